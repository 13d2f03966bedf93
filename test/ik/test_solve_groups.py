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

"""Solve groups: partition of independent joints and tasks; same answer as the joint problem."""
from __future__ import annotations

from conftest import REPO
import numpy as np
from pdls_ik import load_urdf, pdls
from pdls_ik.config import IKConfig
from pdls_ik.ik.solve_groups import GroupedSolve, partition
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.tasks import FrameTask, JointLockTask, LimitAvoidanceTask, PostureTask
import pytest

#: options under which the PDLS step is block-wise (see pdls_ik.ik.solve_groups)
SEPARABLE = pdls.PDLSOptions(damping=1e-3, clamp_theta_diff_by_component=True,
                             clamp_residual_by_component=True, adaptive_step_size=False,
                             theta_diff_max_mag=0.3, divergence_factor=None,
                             max_iterations=500)


@pytest.fixture(scope='module')
def bimanual():
    return load_urdf(REPO / 'urdf' / 'bimanual.urdf')


def _arm_tasks(robot, rng, q0):
    tasks = []
    for side, offset in (('l', (0.05, 0.04, -0.03)), ('r', (-0.04, -0.02, 0.06))):
        p = robot.forward_kinematics(q0, f'{side}_tool')[:3, 3] + offset
        tasks.append(FrameTask(robot, f'{side}_tool', target=(p, (0, 0, 0, 1)),
                               orientation_mask=(0, 0, 0), position_tolerance=1e-11))
    return tasks


def _q0(robot):
    q = np.zeros(robot.n)
    for name, value in (('l_shoulder_lift', 0.4), ('l_elbow', -0.9), ('r_shoulder_lift', 0.5),
                        ('r_elbow', -1.0)):
        q[robot.joint_index(name)] = value
    return np.clip(q, robot.lower, robot.upper)


def test_partition_splits_the_arms_only_without_the_torso(bimanual):
    q0 = _q0(bimanual)
    tasks = _arm_tasks(bimanual, None, q0)
    free = np.ones(bimanual.n, dtype=bool)
    groups = partition(tasks, [q0], free)
    assert len(groups) == 1                                   # torso_yaw couples both arms
    free[bimanual.joint_index('torso_yaw')] = False
    groups = partition(tasks, [q0], free)
    assert len(groups) == 2
    names = [{bimanual.joint_names[i] for i in g.variables} for g in groups]
    assert {'l_shoulder_pan', 'l_shoulder_lift', 'l_elbow'} <= names[0]
    assert all(n.startswith('l_') for n in names[0]) and all(n.startswith('r_') for n in
                                                             names[1])
    assert [t.name for t, _ in groups[0].tasks] == ['frame:l_tool']


def test_separable_tasks_are_split_by_rows(bimanual):
    q0 = _q0(bimanual)
    lock = JointLockTask(bimanual, ['l_wrist_roll', 'r_wrist_roll'], [0.1, -0.1])
    soft = LimitAvoidanceTask(bimanual, fraction=0.05, joints=['l_elbow', 'r_elbow'])
    free = np.ones(bimanual.n, dtype=bool)
    free[bimanual.joint_index('torso_yaw')] = False
    groups = partition(_arm_tasks(bimanual, None, q0) + [lock, soft], [q0], free)
    assert len(groups) == 2
    lock_rows = [rows for g in groups for t, rows in g.tasks if t is lock]
    assert [r.tolist() for r in lock_rows] == [[0], [1]]
    soft_rows = [rows for g in groups for t, rows in g.tasks if t is soft]
    assert [r.tolist() for r in soft_rows] == [[0, 2], [1, 3]]    # lower and upper rows


@pytest.mark.parametrize('with_extras', [False, True])
def test_grouped_equals_joint_solution(bimanual, with_extras):
    q0 = _q0(bimanual)
    tasks = _arm_tasks(bimanual, None, q0)
    if with_extras:
        tasks += [JointLockTask(bimanual, ['l_wrist_roll', 'r_wrist_roll'], [0.3, -0.2]),
                  PostureTask(bimanual, weight=0.05)]
    fixed = ['torso_yaw']
    joint = TaskSolver(bimanual, tasks, options=SEPARABLE, fixed_joints=fixed).solve(q0)
    grouped = TaskSolver(bimanual, tasks, options=SEPARABLE, fixed_joints=fixed,
                         solve_groups=True).solve(q0)
    assert joint.success and grouped.success and grouped.groups == 2 and joint.groups == 1
    in_groups = np.ones(bimanual.n, dtype=bool)
    fingers = [bimanual.joint_index(j) for j in ('l_finger_a_joint', 'r_finger_a_joint')]
    in_groups[fingers] = False            # moved by the posture only: no group (module doc)
    assert np.abs(joint.q - grouped.q)[in_groups].max() < 1e-9
    if with_extras:                        # the posture's fixed point, where the joint problem
        middle = 0.5 * (bimanual.lower[fingers] + bimanual.upper[fingers])   # is heading
        assert np.allclose(grouped.q[fingers], middle, atol=0)
        assert np.all(np.abs(joint.q[fingers] - middle) < np.abs(q0[fingers] - middle))
    assert grouped.q[bimanual.joint_index('torso_yaw')] == q0[bimanual.joint_index('torso_yaw')]
    for name, err in grouped.errors.items():
        assert err < 1e-10, name


def test_grouped_solve_with_default_options_reaches_the_same_targets(bimanual):
    """With automatic damping the paths differ per group; the achieved targets do not."""
    q0 = _q0(bimanual)
    tasks = _arm_tasks(bimanual, None, q0)
    res = TaskSolver(bimanual, tasks, fixed_joints=['torso_yaw'], solve_groups=True).solve(q0)
    assert res.success and res.groups == 2
    for task in tasks:
        p = bimanual.forward_kinematics(res.q, task.link)[:3, 3]
        assert np.linalg.norm(p - task.target_position) < 1e-10


def test_a_group_that_fails_where_the_joint_solve_succeeds_falls_back_to_it(bimanual):
    """
    Issue 14, finding 6: per-group damping and clamps change the path, and so the outcome.

    Goal 11 of this sample: solved jointly in one local solve, grouped the right arm used to
    end 0.22 m off (max_iterations); the grouped solver now also solves the joint problem when a
    group fails and keeps the better.
    """
    rng = np.random.default_rng(6)
    for _ in range(12):
        qg = rng.uniform(np.maximum(bimanual.lower, -np.pi), np.minimum(bimanual.upper, np.pi))
    qg[bimanual.joint_index('torso_yaw')] = 0.0
    tasks = [FrameTask(bimanual, f'{side}_tool',
                       target=bimanual.forward_kinematics(qg, f'{side}_tool'))
             for side in 'lr']
    q0 = np.clip(np.zeros(bimanual.n), bimanual.lower, bimanual.upper)
    config = IKConfig(random_restarts=False)
    joint = TaskSolver(bimanual, tasks, config=config, fixed_joints=['torso_yaw']).solve(q0)
    grouped = TaskSolver(bimanual, tasks, config=config, fixed_joints=['torso_yaw'],
                         solve_groups=True)
    assert joint.success and joint.restarts == 0
    theta, status, _, groups = GroupedSolve(grouped).solve(grouped._seed(q0))
    assert status != 'converged' and groups == 2              # the groups alone fail here
    res = grouped.solve(q0)
    assert res.success and res.restarts == 0
    for task in tasks:
        p = bimanual.forward_kinematics(res.q, task.link)[:3, 3]
        assert np.linalg.norm(p - task.target_position) < 1e-5      # the default tolerance
