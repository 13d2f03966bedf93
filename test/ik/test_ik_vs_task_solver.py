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
Characterization: IKSolver(extra_tasks=...) and TaskSolver solve the same tasks the same way.

Both build one :class:`~pdls_ik.ik.task_problem.TaskProblem` stack (the tip pose task, the extra
tasks) and the same PDLS options from one IKConfig; from the same seed, a local solve gives the
same iterates: the same q bit for bit, iterations and status. What differs is the restart
policy: IKSolver's progress monitor (``RESTART_WINDOW``, ``RESTART_RATIO``) abandons a slow
local solve for a random restart, which TaskSolver continues (it restarts only after a failure);
both then still meet every task.
"""
from __future__ import annotations

from conftest import REPO
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.ik import IKSolver, TaskSolver
from pdls_ik.tasks import ClosureTask, PositionBoundTask
import pytest
from scipy.spatial.transform import Rotation

#: generous budget where success is asserted (a loaded machine must not fail the test)
TIMEOUT = 5.0
#: the Panda's arm joints (its finger joint is off the tip chain: fixed for TaskSolver, as
#: IKSolver leaves it)
ARM = np.r_[np.ones(7), 0.0]


@pytest.fixture(scope='module')
def panda():
    return load_urdf(REPO / 'urdf' / 'panda.urdf')


def _panda_cases(panda, count):
    """(goal (4, 4), elbow bound, seed (8,), ceiling [m]): the bound violated at the goal's q."""
    rng = np.random.default_rng(3)
    home = np.array([0.3, -0.4, 0.2, -2.1, 0.1, 1.8, 0.6, 0.02])
    for _ in range(count):
        q_goal = home + rng.uniform(-0.3, 0.3, 8) * ARM
        goal = panda.forward_kinematics(q_goal, 'panda_link8', 'panda_link0')
        ceiling = panda.forward_kinematics(q_goal, 'panda_link4')[2, 3] - 0.03
        bound = PositionBoundTask(panda, 'panda_link4', upper=(None, None, ceiling),
                                  tolerance=1e-6)
        yield goal, bound, q_goal + rng.uniform(-0.2, 0.2, 8) * ARM, ceiling


def _both(linkage, tip, base, extra, goal, seed, fixed=(), **options):
    ik = IKSolver(linkage, tip, base, extra_tasks=extra, **options)
    res_ik = ik.solve(goal, seed=seed, timeout=TIMEOUT)
    # the same pose task (its target set by the solve) and the same extra tasks
    ts = TaskSolver(linkage, [ik.frame, *extra], config=ik.config, fixed_joints=fixed)
    return res_ik, ts.solve(seed)


def test_one_local_solve_gives_the_same_iterates(panda):
    for goal, bound, seed, ceiling in _panda_cases(panda, 8):
        res_ik, res_ts = _both(panda, 'panda_link8', 'panda_link0', [bound], goal, seed,
                               fixed=['panda_finger_joint1'], random_restarts=False)
        assert res_ik.success and res_ts.success
        assert res_ik.status == res_ts.status == 'converged'
        assert res_ik.iterations == res_ts.iterations
        np.testing.assert_array_equal(res_ik.q, res_ts.q)
        assert res_ik.task_errors[bound.name] == res_ts.errors[bound.name] <= 1e-6
        assert panda.forward_kinematics(res_ik.q, 'panda_link4')[2, 3] <= ceiling + 1e-6


def test_a_closed_chain_gives_the_same_iterates_with_restarts_on():
    fourbar = load_urdf(REPO / 'urdf' / 'fourbar.urdf')
    closure = ClosureTask(fourbar, 'rocker', 'coupler', frame_a=(0.2, 0.0, 0.0),
                          frame_b=(0.25, 0.0, 0.0), mode='position')
    seed = np.array([0.1, 0.9, -0.5])
    for theta in (0.2, 0.4, -0.3, 1.0):
        goal = (np.zeros(3), Rotation.from_rotvec([0.0, 0.0, theta]).as_quat())
        res_ik, res_ts = _both(fourbar, 'crank', 'base_link', [closure], goal, seed)
        assert res_ik.success and res_ts.success and res_ik.restarts == res_ts.restarts == 0
        assert res_ik.iterations == res_ts.iterations
        np.testing.assert_array_equal(res_ik.q, res_ts.q)
        assert res_ik.task_errors[closure.name] == res_ts.errors[closure.name] <= closure.tolerance


def test_the_restart_policies_differ_and_both_meet_the_tasks(panda):
    """Case 3 of the series: IKSolver's monitor restarts a solve that TaskSolver continues."""
    goal, bound, seed, ceiling = list(_panda_cases(panda, 3))[2]
    res_ik, res_ts = _both(panda, 'panda_link8', 'panda_link0', [bound], goal, seed,
                           fixed=['panda_finger_joint1'])
    assert res_ik.success and res_ts.success
    assert res_ik.restarts > 0 and res_ts.restarts == 0
    for q in (res_ik.q, res_ts.q):
        T = panda.forward_kinematics(q, 'panda_link8', 'panda_link0')
        assert np.linalg.norm(T[:3, 3] - goal[:3, 3]) <= 1e-5
        assert panda.forward_kinematics(q, 'panda_link4')[2, 3] <= ceiling + 1e-6
