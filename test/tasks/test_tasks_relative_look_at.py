# Copyright 2026 pdls_ik developers
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Relative frame task (two-arm holding) and look-at task (2 rows).

Residuals, Jacobians, solves checked by forward kinematics, bad configuration.
"""
from __future__ import annotations

import math

from conftest import random_q, REPO
from fd_support import residual_derivative
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.errors import ConfigError, InputError, LinkError
from pdls_ik.ik.task_config import TaskConfig
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.model.floating import FloatingBase
from pdls_ik.tasks import FrameTask, LookAtTask, RelativeFrameTask
import pytest


@pytest.fixture(scope='module')
def bimanual():
    return load_urdf(REPO / 'urdf' / 'bimanual.urdf')


@pytest.fixture(scope='module')
def humanoid():
    return load_urdf(REPO / 'urdf' / 'humanoid.urdf')


def _angle(robot, q, link, axis, point, target_link=None):
    """Angle [rad] between the link axis and the direction to the point, by FK only."""
    T = robot.forward_kinematics(q, link)
    P = np.asarray(point, float)
    if target_link is not None:
        Tt = robot.forward_kinematics(q, target_link)
        P = Tt[:3, :3] @ P + Tt[:3, 3]
    d = P - T[:3, 3]
    a = T[:3, :3] @ axis
    return float(np.arccos(np.clip(a @ d / np.linalg.norm(d), -1.0, 1.0)))


def test_relative_task_is_the_pose_in_the_other_link(bimanual):
    q = random_q(bimanual, np.random.default_rng(0))
    task = RelativeFrameTask(bimanual, 'l_tool', 'r_tool')
    task.hold(q)
    e, J = task.compute(q)
    assert np.abs(e).max() < 1e-12 and task.dim == 6
    T, Jref = bimanual.pose_and_jacobian(q, 'l_tool', 'r_tool')
    assert np.allclose(J, Jref, atol=0)
    assert np.any(J[:, bimanual.joint_index('l_shoulder_pan')] != 0)     # both arms count
    assert np.any(J[:, bimanual.joint_index('r_shoulder_pan')] != 0)


def test_two_arm_holding_moves_both_arms(bimanual):
    rng = np.random.default_rng(1)
    q0 = random_q(bimanual, rng)
    hold = RelativeFrameTask(bimanual, 'l_tool', 'r_tool', priority=0,     # a held bar's ends
                             orientation_mask=(0, 0, 0), position_tolerance=1e-10)
    hold.hold(q0)
    held = bimanual.forward_kinematics(q0, 'l_tool', 'r_tool')
    T_r = bimanual.forward_kinematics(q0, 'r_tool')
    goal = T_r[:3, 3] + (0.03, 0.02, -0.02)
    carry = FrameTask(bimanual, 'r_tool', target=(goal, (0, 0, 0, 1)),
                      orientation_mask=(0, 0, 0), priority=1, position_tolerance=1e-9)
    res = TaskSolver(bimanual, [hold, carry]).solve(q0)
    assert res.success
    rel = bimanual.forward_kinematics(res.q, 'l_tool', 'r_tool')
    assert np.abs(rel[:3, 3] - held[:3, 3]).max() < 1e-9
    assert np.linalg.norm(bimanual.forward_kinematics(res.q, 'r_tool')[:3, 3] - goal) < 1e-9
    moved = np.abs(res.q - q0) > 1e-6
    assert moved[bimanual.joint_index('l_shoulder_lift')] or \
        moved[bimanual.joint_index('l_elbow')]           # the left arm followed


def test_relative_task_needs_two_links(bimanual):
    with pytest.raises(LinkError, match='l_tool'):
        RelativeFrameTask(bimanual, 'l_tool', 'l_tool')
    with pytest.raises(LinkError, match='nope'):
        RelativeFrameTask(bimanual, 'l_tool', 'nope')


@pytest.mark.parametrize('axis', ['x', 'z', (0.0, 1.0, 1.0)])
def test_look_at_jacobian_at_alignment_is_minus_the_residual_derivative(humanoid, axis):
    """At alignment the residual is 0 and J = −de/dq exactly (first-order model elsewhere)."""
    q = random_q(humanoid, np.random.default_rng(2))
    a = np.eye(3)['xyz'.index(axis)] if isinstance(axis, str) else np.array(axis) / np.sqrt(2)
    T = humanoid.forward_kinematics(q, 'camera')
    task = LookAtTask(humanoid, 'camera', target=T[:3, 3] + 0.8 * T[:3, :3] @ a, axis=axis)
    e, J = task.compute(q)
    assert task.dim == 2 and np.abs(e).max() < 1e-12
    assert np.abs(residual_derivative(task, q) - J).max() < 1e-7


def test_look_at_points_the_camera_by_forward_kinematics(humanoid):
    q0 = np.clip(np.zeros(humanoid.n), humanoid.lower, humanoid.upper)
    point = (1.0, -0.6, 0.2)
    task = LookAtTask(humanoid, 'camera', target=point, tolerance=1e-10)
    res = TaskSolver(humanoid, [task]).solve(q0)
    assert res.success and res.errors['look_at:camera'] < 1e-10
    assert _angle(humanoid, res.q, 'camera', np.array([1.0, 0, 0]), point) < 1e-9


def test_look_at_a_moving_hand_on_a_floating_robot():
    robot = FloatingBase(load_urdf(REPO / 'urdf' / 'humanoid.urdf'))
    q0 = robot.neutral()
    theta0 = robot.from_q(q0)
    gaze = LookAtTask(robot, 'camera', target_link='r_hand', target=(0.0, 0.0, -0.05),
                      tolerance=1e-10, priority=1)
    hand = FrameTask(robot, 'r_hand', target=((0.35, -0.3, 0.35), (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0), priority=0, position_tolerance=1e-9)
    pelvis = FrameTask(robot, 'pelvis', target=robot.forward_kinematics(theta0, 'pelvis'),
                       priority=0)
    res = TaskSolver(robot, [pelvis, hand, gaze]).solve(q0)
    assert res.success
    theta = robot.from_q(res.q)
    T = robot.forward_kinematics(theta, 'camera')
    Th = robot.forward_kinematics(theta, 'r_hand')
    d = Th[:3, :3] @ (0, 0, -0.05) + Th[:3, 3] - T[:3, 3]
    # angle between the camera axis and the line of sight (atan2: well conditioned near 0)
    assert math.atan2(np.linalg.norm(np.cross(T[:3, 0], d)), T[:3, 0] @ d) < 1e-9


def test_look_at_opposite_direction_still_turns(humanoid):
    q0 = np.clip(np.zeros(humanoid.n), humanoid.lower, humanoid.upper)
    T = humanoid.forward_kinematics(q0, 'camera')
    behind = T[:3, 3] - 2.0 * T[:3, 0]                 # exactly behind the camera: 180°
    task = LookAtTask(humanoid, 'camera', target=behind)
    e, _ = task.compute(q0)
    assert np.linalg.norm(e) == pytest.approx(np.pi)


def test_look_at_target_at_the_link_origin_is_an_error(humanoid):
    q0 = np.clip(np.zeros(humanoid.n), humanoid.lower, humanoid.upper)
    origin = humanoid.forward_kinematics(q0, 'camera')[:3, 3]
    task = LookAtTask(humanoid, 'camera', target=origin)
    with pytest.raises(InputError, match="origin of link 'camera'"):
        task.compute(q0)
    with pytest.raises(LinkError, match='camera'):
        LookAtTask(humanoid, 'camera', target_link='camera', target=(0, 0, 0))
    with pytest.raises(ConfigError, match=r'tasks\[0\].*camera'):
        TaskConfig.from_dict({'tasks': [{'type': 'look_at', 'link': 'camera',
                                         'target_link': 'camera', 'target': [0, 0, 0]}]}
                             ).build(humanoid)
    with pytest.raises(InputError, match='axis'):
        LookAtTask(humanoid, 'camera', axis=(0, 0, 0))
    with pytest.raises(InputError, match='axis'):
        LookAtTask(humanoid, 'camera', axis='w')


def test_look_at_swing_matches_scipy(humanoid):
    """The residual norm is the angle and its direction the swing axis (link frame)."""
    q = random_q(humanoid, np.random.default_rng(3))
    task = LookAtTask(humanoid, 'camera', target=(0.7, 0.4, 1.5), axis='x')
    e, _ = task.compute(q)
    angle = _angle(humanoid, q, 'camera', np.array([1.0, 0, 0]), (0.7, 0.4, 1.5))
    assert np.linalg.norm(e) == pytest.approx(angle, abs=1e-12)
    T = humanoid.forward_kinematics(q, 'camera')
    d_l = T[:3, :3].T @ ((0.7, 0.4, 1.5) - T[:3, 3])
    # the smallest rotation taking x onto d_l (scipy's align_vectors only returns it for one
    # vector pair from SciPy 1.11 on, so it is written out here: axis x × d, angle atan2)
    a, d = np.array([1.0, 0.0, 0.0]), d_l / np.linalg.norm(d_l)
    axis = np.cross(a, d)
    swing = axis / np.linalg.norm(axis) * math.atan2(np.linalg.norm(axis), a @ d)
    rows = task._basis @ swing
    assert np.allclose(rows, e, atol=1e-9)
