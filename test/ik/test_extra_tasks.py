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
IKSolver with extra tasks (closures, bounds, CoM) beside its tip pose (pdls_ik.ik.task_problem).

The four-bar's closure is checked against the closed form of the loop, bounds and the pose
against the forward kinematics, and an extra task that cannot be met must make the result fail.
"""
from __future__ import annotations

import math

from conftest import REPO
from fourbar_support import fourbar_b
import numpy as np
from pdls_ik import load_urdf
from pdls_ik._accel import available as numba_available
from pdls_ik.errors import ConfigError, InputError
from pdls_ik.ik import IKSolver
from pdls_ik.ik.task_config import load_task_config, TaskConfig
from pdls_ik.ik.task_problem import moved_variables, resolve_tasks
from pdls_ik.model.com import center_of_mass
from pdls_ik.tasks import ClosureTask, CoMTask, PositionBoundTask
import pytest
from scipy.spatial.transform import Rotation

#: generous budget where success is asserted (a loaded machine must not fail the test)
TIMEOUT = 5.0


def _closure(robot, **kwargs):
    return ClosureTask(robot, 'rocker', 'coupler', frame_a=(0.2, 0.0, 0.0),
                       frame_b=(0.25, 0.0, 0.0), mode='position', **kwargs)


@pytest.fixture(scope='module')
def fourbar():
    return load_urdf(REPO / 'urdf' / 'fourbar.urdf')


@pytest.fixture(scope='module')
def panda():
    return load_urdf(REPO / 'urdf' / 'panda.urdf')


def _crank_goal(theta):
    return (np.zeros(3), Rotation.from_rotvec([0.0, 0.0, theta]).as_quat())


def _closure_error(robot, q):
    """Distance [m] between the two ends B of the loop, from the forward kinematics."""
    T_r = robot.forward_kinematics(q, 'rocker')
    T_c = robot.forward_kinematics(q, 'coupler')
    return float(np.linalg.norm(T_r[:3, :3] @ [0.2, 0, 0] + T_r[:3, 3]
                                - T_c[:3, :3] @ [0.25, 0, 0] - T_c[:3, 3]))


@pytest.mark.parametrize('theta', [0.0, 0.7, -1.2, 2.5])
def test_fourbar_crank_goal_moves_passive_joints_onto_the_closed_form(fourbar, theta):
    solver = IKSolver(fourbar, 'crank', 'base_link', extra_tasks=[_closure(fourbar)])
    assert solver.backend == 'numpy'
    assert solver.level_names == ['closure:rocker-coupler', 'pose:crank']
    res = solver.solve(_crank_goal(theta), timeout=TIMEOUT)
    assert res.success and res.status == 'converged'
    assert _closure_error(fourbar, res.q) < 1e-9
    name = solver.level_names[0]
    assert res.task_errors[name] < 1e-9
    assert abs(math.remainder(res.q[0] - theta, 2 * math.pi)) < 1e-6
    expected = [fourbar_b(theta, branch) for branch in (1.0, -1.0)]
    passive = np.array(res.q[1:])
    assert min(np.max(np.abs(np.remainder(passive - e + math.pi, 2 * math.pi) - math.pi))
               for e in expected) < 1e-6


def test_fourbar_from_task_config_tracks_with_velocity_bound(fourbar):
    config = TaskConfig.from_dict({'closures': [{
        'name': 'loop_B', 'link_a': 'rocker', 'link_b': 'coupler', 'frame_a': [0.2, 0, 0],
        'frame_b': [0.25, 0, 0], 'mode': 'position', 'tolerance': 1e-12}]})
    # tracking_timeout at its maximum: the iteration budget alone bounds each cycle, so the
    # outcome does not depend on machine load
    solver = IKSolver(fourbar, 'crank', 'base_link', extra_tasks=config, posture_enabled=False,
                      tracking_timeout=1.0)
    q = solver.solve(_crank_goal(0.3), timeout=TIMEOUT).q
    dt = 0.01
    bound = np.asarray(fourbar.velocity_limits) * dt * (1 + 1e-9)
    for _ in range(100):
        res = solver.track(_crank_goal(0.6), q, dt)
        assert np.all(np.abs(res.q - q) <= bound)
        q = res.q
        assert _closure_error(fourbar, q) < 1e-9
        if res.success:
            break
    assert res.success and abs(q[0] - 0.6) < 1e-6
    assert res.task_errors['loop_B'] < 1e-9


def test_restart_seeds_sample_every_moved_variable(fourbar):
    solver = IKSolver(fourbar, 'crank', 'base_link', extra_tasks=[_closure(fourbar)])
    assert solver.chain_variables.tolist() == [0]
    assert solver.free.all()
    seed = solver._seed_table.seed(0, np.zeros(3))
    assert np.all(seed != 0.0)


def test_unmet_closure_is_a_failure(fourbar):
    """A loop that cannot close (B 5 m away on the coupler): pose met, result still fails."""
    bad = ClosureTask(fourbar, 'rocker', 'coupler', frame_a=(0.2, 0, 0), frame_b=(5.0, 0, 0),
                      mode='position', name='far')
    solver = IKSolver(fourbar, 'crank', 'base_link', extra_tasks=[bad])
    res = solver.solve(_crank_goal(0.4), timeout=0.05)
    assert not res.success and res.status != 'converged'
    assert res.task_errors['far'] > 1.0
    assert _closure_error(fourbar, res.q) > 0.0


def test_panda_elbow_bound_respected_and_pose_met(panda):
    plain = IKSolver(panda, 'panda_link8', 'panda_link0')
    goal = (np.array([0.45, 0.1, 0.4]), Rotation.from_euler('x', math.pi).as_quat())
    q_plain = plain.solve(goal, timeout=TIMEOUT).q
    elbow = panda.forward_kinematics(q_plain, 'panda_link4')[2, 3]
    ceiling = elbow - 0.05
    bound = PositionBoundTask(panda, 'panda_link4', upper=(None, None, ceiling), tolerance=1e-6)
    solver = IKSolver(panda, 'panda_link8', 'panda_link0', extra_tasks=[bound])
    assert solver.backend == 'numpy'
    res = solver.solve(goal, seed=q_plain, timeout=TIMEOUT)
    assert res.success and res.status == 'converged'
    assert panda.forward_kinematics(res.q, 'panda_link4')[2, 3] <= ceiling + 1e-6
    T = panda.forward_kinematics(res.q, 'panda_link8', 'panda_link0')
    assert np.linalg.norm(T[:3, 3] - goal[0]) <= 1e-5
    assert res.position_error <= 1e-5 and res.orientation_error <= 1e-4
    assert res.task_errors[bound.name] <= 1e-6


def test_panda_com_task_and_hand_position(panda):
    """Keep the CoM (x, y) at a point above the hand position task; both from a known q."""
    q_ref = np.array([0.4, -0.3, 0.2, -2.0, 0.1, 1.9, 0.5, 0.02])
    hand = panda.forward_kinematics(q_ref, 'panda_link8', 'panda_link0')[:3, 3]
    target = center_of_mass(panda, q_ref)
    target[2] = 0.0
    com = CoMTask(panda, target=target, axes=(True, True, False), tolerance=1e-6)
    solver = IKSolver(panda, 'panda_link8', 'panda_link0', extra_tasks=[com], pose_priority=1,
                      position_only=True)
    assert solver.level_names == ['com', 'pose:panda_link8']
    res = solver.solve((hand, np.array([0, 0, 0, 1.0])), timeout=TIMEOUT)
    assert res.success and res.status == 'converged'
    assert np.linalg.norm(center_of_mass(panda, res.q)[:2] - target[:2]) <= 1e-6
    assert res.task_errors['com'] <= 1e-6
    T = panda.forward_kinematics(res.q, 'panda_link8', 'panda_link0')
    assert np.linalg.norm(T[:3, 3] - hand) <= 1e-5


def test_numba_backend_refused_with_extra_tasks(fourbar, panda):
    bound = PositionBoundTask(panda, 'panda_link4', normal=(0, 0, 1), offset=0.1)
    assert IKSolver(panda, 'panda_link8', extra_tasks=[bound]).backend == 'numpy'
    if numba_available():
        assert IKSolver(panda, 'panda_link8').backend == 'numba'
        with pytest.raises(ConfigError, match='backend'):
            IKSolver(panda, 'panda_link8', extra_tasks=[bound], backend='numba')


def test_resolve_tasks_rejects_what_iksolver_cannot_do(fourbar):
    with pytest.raises(ConfigError, match='floating_base'):
        resolve_tasks(fourbar, TaskConfig(floating_base=True))
    with pytest.raises(ConfigError, match='solve_groups'):
        resolve_tasks(fourbar, TaskConfig(solve_groups=True))
    with pytest.raises(ConfigError, match='fixed_joints.*no_such_joint'):
        resolve_tasks(fourbar, TaskConfig(fixed_joints=['no_such_joint']))
    with pytest.raises(InputError, match=r'extra_tasks\[0\]'):
        resolve_tasks(fourbar, ['not a task'])
    tasks, fixed = resolve_tasks(fourbar, load_task_config(REPO / 'config' /
                                                           'fourbar_closures.yaml'))
    assert [t.name for t in tasks] == ['loop_B', 'input'] and fixed == []


def test_moved_variables_of_a_closure_and_a_bound(fourbar, panda):
    moved = moved_variables([_closure(fourbar)], np.asarray(fourbar.lower),
                            np.asarray(fourbar.upper))
    assert moved.tolist() == [True, True, True]
    lower, upper = np.asarray(panda.lower), np.asarray(panda.upper)
    box = PositionBoundTask(panda, 'panda_link4', lower=(-1, -1, 0), upper=(1, 1, 1))
    # panda_link4 is moved by joints 1-3 only (joint 4 turns about an axis through its origin)
    assert moved_variables([box], lower, upper).tolist() == [True] * 3 + [False] * 5
    # its height (a plane z >= 0.1) is not moved by joint 1 either (a vertical axis)
    plane = PositionBoundTask(panda, 'panda_link4', normal=(0, 0, 1), offset=0.1)
    assert moved_variables([plane], lower, upper).tolist() == [False, True, True] + [False] * 5


def test_fixed_joints_of_a_task_config_are_not_moved(fourbar):
    """fixed_joints: the rocker joint stays put; the closure then pins the crank (1 DOF loop)."""
    config = TaskConfig.from_dict({'fixed_joints': ['rocker_joint'], 'closures': [{
        'link_a': 'rocker', 'link_b': 'coupler', 'frame_a': [0.2, 0, 0],
        'frame_b': [0.25, 0, 0], 'mode': 'position'}]})
    solver = IKSolver(fourbar, 'crank', 'base_link', extra_tasks=config)
    assert solver.free.tolist() == [True, True, False]
    res = solver.solve(_crank_goal(1.0), seed=[1.0, 0.0, 0.3], timeout=0.05)
    assert abs(res.q[2] - 0.3) < 1e-12 and not res.success     # wrapped only
