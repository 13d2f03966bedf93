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

"""TaskSolver: levels from tasks, success from each task's tolerance, fixed joints, seeds."""
from __future__ import annotations

from conftest import REPO
import numpy as np
from pdls_ik import load_urdf, pdls
from pdls_ik.config import IKConfig
from pdls_ik.errors import InputError
from pdls_ik.ik.task_problem import level_tolerance, task_error
from pdls_ik.ik.task_solver import pdls_options, TaskSolver
from pdls_ik.tasks import (ClosureTask, FrameTask, JointLockTask, LimitAvoidanceTask,
                           PositionBoundTask)
import pytest


@pytest.fixture(scope='module')
def panda():
    return load_urdf(REPO / 'urdf' / 'panda.urdf')


def test_task_error_per_kind(panda):
    frame = FrameTask(panda, 'panda_link8', position_weight=2.0, position_tolerance=1e-3,
                      orientation_tolerance=1e-2)
    err, ok = task_error(frame, np.array([2e-3, 0, 0, 0, 5e-3, 0]))
    assert err == pytest.approx(5e-3) and ok
    bound = PositionBoundTask(panda, 'panda_link8', lower=(0, None, None), upper=(1, None, None),
                              tolerance=1e-6)
    assert task_error(bound, np.array([-0.2, 0.3])) == (0.0, True)        # both satisfied
    assert task_error(bound, np.array([0.2, 0.3]))[0] == pytest.approx(0.2)
    assert task_error(bound, np.array([-0.2, -0.1]))[0] == pytest.approx(0.1)
    soft = LimitAvoidanceTask(panda)
    assert level_tolerance(soft) == np.inf and soft.optional
    closure = ClosureTask(panda, 'panda_link0', 'panda_link8', tolerance=1e-9)
    assert task_error(closure, np.array([0, 0, 1e-10, 0, 3e-9, 0])) == (3e-9, False)


def test_fixed_joints_never_move_and_success_is_by_forward_kinematics(panda):
    q0 = np.array([0.2, -0.4, 0.1, -2.0, 0.3, 1.9, 0.5, 0.01])
    goal = panda.forward_kinematics(q0, 'panda_link8')[:3, 3] + (0.05, -0.03, 0.02)
    task = FrameTask(panda, 'panda_link8', target=(goal, (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0), position_tolerance=1e-9)
    res = TaskSolver(panda, [task], fixed_joints=['panda_joint1', 'panda_joint7']).solve(q0)
    assert res.success and res.status == 'converged'
    assert res.q[0] == q0[0] and res.q[6] == q0[6]
    assert np.linalg.norm(panda.forward_kinematics(res.q, 'panda_link8')[:3, 3] - goal) < 1e-9
    assert res.level_names == ['frame:panda_link8'] and res.groups == 1


def test_unreachable_goal_is_a_result_not_an_error(panda):
    task = FrameTask(panda, 'panda_link8', target=((3.0, 0, 0), (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0))
    res = TaskSolver(panda, [task], config=IKConfig(max_iterations=30)).solve()
    assert not res.success and res.status in pdls.STATUSES + ('not_converged',)
    assert 1.5 < res.errors['frame:panda_link8'] < 3.0
    assert np.all(res.q >= panda.lower) and np.all(res.q <= panda.upper)


def test_seed_is_clipped_and_checked(panda):
    lock = JointLockTask(panda, ['panda_joint4'], [-1.0])
    res = TaskSolver(panda, [lock]).solve(np.full(panda.n, 10.0))
    assert res.success and np.all(res.q <= panda.upper)
    with pytest.raises(InputError):
        TaskSolver(panda, [lock]).solve(np.zeros(3))
    with pytest.raises(InputError, match='no task'):
        TaskSolver(panda, [])


def test_options_from_config():
    opts = pdls_options(IKConfig(max_iterations=7, damping=0.2, max_step=0.4),
                        limit_strategy='pgs')
    assert (opts.max_iterations, opts.damping, opts.theta_diff_max_mag) == (7, 0.2, 0.4)
    assert opts.limit_strategy == 'pgs' and opts.divergence_factor is None


def test_restarts_ended_by_the_timeout_say_max_time(panda):
    """
    A goal out of reach: restarts run until the timeout, and the status says so.

    The clock ended the search, whatever the best attempt's own status (IKSolver's rule); one
    local solve keeps its PDLS status.
    """
    task = FrameTask(panda, 'panda_link8', target=((3.0, 0, 0), (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0))
    res = TaskSolver(panda, [task], config=IKConfig(timeout=0.02, max_iterations=30)).solve()
    assert not res.success and res.status == 'max_time' and res.restarts >= 1
    res = TaskSolver(panda, [task], config=IKConfig(random_restarts=False,
                                                    max_iterations=30)).solve()
    assert not res.success and res.restarts == 0
    assert res.status in ('stalled', 'max_iterations', 'diverged', 'infeasible', 'not_converged')
