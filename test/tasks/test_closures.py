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
Loop closures.

The four-bar against its closed-form solution, closures on the invariant level above locks, pose
closures, Jacobians, and bad configuration.
"""
from __future__ import annotations

import math

from conftest import random_q, REPO
from fd_support import residual_derivative
from fourbar_support import COUPLER, fourbar_b, ROCKER
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, LinkError
from pdls_ik.ik.task_config import load_task_config, TaskConfig
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.tasks import ClosureTask, FrameTask, JointLockTask
import pytest


@pytest.fixture(scope='module')
def fourbar():
    robot = load_urdf(REPO / 'urdf' / 'fourbar.urdf')
    tasks = load_task_config(REPO / 'config' / 'fourbar_closures.yaml').build(robot)
    return robot, tasks


def test_closure_is_the_highest_level_even_below_a_lock(fourbar):
    robot, (closure, crank) = fourbar
    solver = TaskSolver(robot, [crank, closure])           # order given does not matter
    assert solver.level_names == ['loop_B', 'input']
    assert closure.kind == 'invariant' and closure.dim == 3


def test_driving_the_crank_moves_the_passive_joints(fourbar):
    robot, (closure, crank) = fourbar
    solver = TaskSolver(robot, [closure, crank], config=IKConfig(max_iterations=200))
    q = np.array([0.0, 1.0, 1.5])                          # disassembled start
    for deg in range(0, 361, 15):
        theta2 = math.radians(deg)
        crank.values[:] = (theta2 + math.pi) % (2 * math.pi) - math.pi
        res = solver.solve(q)
        assert res.success, deg
        q = res.q
        assert closure.errors(q)[0] < 1e-9                 # closure error [m]
        # independent check: B on the coupler equals B on the rocker by forward kinematics
        Tc = robot.forward_kinematics(q, 'coupler')
        Tr = robot.forward_kinematics(q, 'rocker')
        b_c = Tc[:3, :3] @ (COUPLER, 0, 0) + Tc[:3, 3]
        b_r = Tr[:3, :3] @ (ROCKER, 0, 0) + Tr[:3, 3]
        assert np.linalg.norm(b_c - b_r) < 1e-9
        assert abs(((q[0] - theta2) + math.pi) % (2 * math.pi) - math.pi) < 1e-12
        ref = fourbar_b(theta2, 1.0)                      # the assembly found: upper branch
        assert np.abs(((q[1:] - ref) + math.pi) % (2 * math.pi) - math.pi).max() < 1e-8


def test_a_stretched_singular_start_is_left_by_a_random_restart(fourbar):
    """
    Start with all joints at 0, the linkage stretched: a local solve stalls at once.

    The closure residual lies along the links, orthogonal to every Jacobian column; a restart
    from a random in-limit seed assembles the loop (an assembly of the closed form, crank at 0).
    """
    robot, (closure, crank) = fourbar
    crank.values[:] = 0.0
    single = TaskSolver(robot, [closure, crank],
                        config=IKConfig(max_iterations=200, random_restarts=False))
    stuck = single.solve(np.zeros(3))
    assert not stuck.success and stuck.status == 'stalled' and stuck.restarts == 0
    res = TaskSolver(robot, [closure, crank], config=IKConfig(max_iterations=200)).solve(
        np.zeros(3))
    assert res.success and res.status == 'converged' and res.restarts >= 1
    assert closure.errors(res.q)[0] < 1e-9 and res.q[0] == pytest.approx(0.0, abs=1e-12)
    branches = [fourbar_b(0.0, 1.0), fourbar_b(0.0, -1.0)]
    wrapped = [np.abs(((res.q[1:] - b) + math.pi) % (2 * math.pi) - math.pi).max()
               for b in branches]
    assert min(wrapped) < 1e-8


def test_closure_jacobian_matches_finite_differences():
    bimanual = load_urdf(REPO / 'urdf' / 'bimanual.urdf')
    q = random_q(bimanual, np.random.default_rng(0))
    for mode in ('pose', 'position'):
        task = ClosureTask(bimanual, 'l_tool', 'r_tool',
                           frame_a=((0.0, 0.05, 0.1), (0, 0, 0.6, 0.8)),
                           frame_b=(0.02, 0, 0.03), mode=mode)
        e, J = task.compute(q)
        fd = residual_derivative(task, q)
        assert np.abs(fd[:3] - J[:3]).max() < 1e-8        # position rows: exact anywhere
        # rotation rows: exact at closure, see the two-hands test
        assert task.dim == (6 if mode == 'pose' else 3)


def test_pose_closure_two_hands_on_one_object():
    """
    Both hands weld to a held object.

    A 6-row closure on the invariant level; the right hand moves the object, the left follows
    exactly.
    """
    robot = load_urdf(REPO / 'urdf' / 'bimanual.urdf')
    q0 = random_q(robot, np.random.default_rng(4))
    q0[robot.joint_index('torso_yaw')] = 0.0
    grasp = robot.forward_kinematics(q0, 'r_tool', 'l_tool')           # current relative pose
    closure = ClosureTask(robot, 'l_tool', 'r_tool', frame_a=grasp, mode='pose',
                          tolerance=1e-10)
    e, J = closure.compute(q0)
    assert np.abs(e).max() < 1e-12
    assert np.abs(residual_derivative(closure, q0) - J).max() < 1e-8   # exact at closure
    goal = robot.forward_kinematics(q0, 'r_tool')[:3, 3] + (0.02, -0.01, 0.02)
    move = FrameTask(robot, 'r_tool', target=(goal, (0, 0, 0, 1)), orientation_mask=(0, 0, 0),
                     position_tolerance=1e-9)
    res = TaskSolver(robot, [closure, move]).solve(q0)
    assert res.success
    assert np.abs(robot.forward_kinematics(res.q, 'r_tool', 'l_tool') - grasp).max() < 1e-9
    assert np.linalg.norm(robot.forward_kinematics(res.q, 'r_tool')[:3, 3] - goal) < 1e-9


def test_closure_outranks_a_conflicting_lock(fourbar):
    """
    Lock a passive joint at an incompatible value.

    The loop stays closed (strict priority), the lock is honestly reported unmet.
    """
    robot, (closure, crank) = fourbar
    crank.values[:] = 0.3
    bad = JointLockTask(robot, ['rocker_joint'], [-2.0], name='bad_lock')
    res = TaskSolver(robot, [closure, crank, bad]).solve(np.array([0.3, 0.9, 1.3]))
    assert closure.errors(res.q)[0] < 1e-9
    assert not res.success and res.errors['bad_lock'] > 0.1


def test_bad_closures_name_the_element():
    robot = load_urdf(REPO / 'urdf' / 'fourbar.urdf')
    with pytest.raises(LinkError, match="'gripper'"):
        ClosureTask(robot, 'coupler', 'gripper')
    with pytest.raises(LinkError, match="'rocker'"):
        ClosureTask(robot, 'rocker', 'rocker')
    with pytest.raises(ConfigError, match=r"closures\[0\].*'gripper'"):
        TaskConfig.from_dict({'closures': [{'link_a': 'coupler', 'link_b': 'gripper'}]}
                             ).build(robot)
    with pytest.raises(ConfigError, match=r'closures\[0\]\.link_b: required'):
        TaskConfig.from_dict({'closures': [{'link_a': 'coupler'}]})
    with pytest.raises(ConfigError, match=r'closures\[0\]\.mode'):
        TaskConfig.from_dict({'closures': [{'link_a': 'coupler', 'link_b': 'rocker',
                                            'mode': 'hinge'}]})
    with pytest.raises(ConfigError, match=r'closures\[0\]\.frame_a\.orient'):
        TaskConfig.from_dict({'closures': [{'link_a': 'coupler', 'link_b': 'rocker',
                                            'frame_a': {'position': [0, 0, 0],
                                                        'orient': [0, 0, 0, 1]}}]})
    bimanual = load_urdf(REPO / 'urdf' / 'bimanual.urdf')
    with pytest.raises(LinkError, match='no joint'):
        ClosureTask(bimanual, 'l_hand', 'l_tool')              # rigidly attached, no loop
