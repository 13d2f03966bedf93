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

"""Tests of pdls_ik.ik.task_levels: level order (locks > targets by priority > posture), stack."""
from types import SimpleNamespace

from conftest import ROBOTS
import numpy as np
from pdls_ik import pdls
from pdls_ik.errors import InputError
from pdls_ik.ik.task_levels import assign_levels, LevelStack
from pdls_ik.ik.task_problem import TaskProblem
from pdls_ik.model import load_urdf
from pdls_ik.tasks import FrameTask, JointLockTask, PostureTask
import pytest


@pytest.fixture(scope='module')
def panda():
    if not (ROBOTS / 'panda.urdf').exists():
        pytest.skip('shared robots not found')
    return load_urdf(ROBOTS / 'panda.urdf')


def test_order_and_grouping(panda):
    a = FrameTask(panda, 'panda_link8', priority=1, name='a')
    b = FrameTask(panda, 'panda_link6', priority=0, orientation_mask=(0, 0, 0), name='b')
    c = FrameTask(panda, 'panda_link4', priority=1, orientation_mask=(0, 0, 0), name='c')
    lock = JointLockTask(panda, ['panda_joint1'], [0.1])
    posture = PostureTask(panda)
    groups = assign_levels([a, posture, b, c, lock])
    assert [[t.name for t in g] for g in groups] == [['lock'], ['b'], ['a', 'c']]
    stack = LevelStack([a, posture, b, c, lock], panda.n)
    assert stack.names == ['lock', 'b', 'a+c']
    q = np.full(panda.n, 0.2)
    levels = stack(q)
    assert [lv.residual.shape[0] for lv in levels] == [1, 3, 9]
    e_a, J_a = a.compute(q)
    np.testing.assert_array_equal(levels[2].residual[stack.rows[2][0]], e_a)
    np.testing.assert_array_equal(levels[2].jacobian[stack.rows[2][1]], c.compute(q)[1])
    np.testing.assert_allclose(stack.posture_variation(q), posture.variation(q))
    with pytest.raises(InputError, match='no task'):
        LevelStack([posture], panda.n)


def test_strict_priority_of_a_higher_target_over_a_conflicting_lower_one(panda):
    """
    Two position targets for the same link, the lower one conflicting.

    The PDLS solve meets the higher one exactly and the lower one only in its null space.
    """
    tip = 'panda_link8'
    q0 = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8, 0.0])
    p0 = panda.forward_kinematics(q0, tip)[:3, 3]
    high = FrameTask(panda, tip, target=(p0 + [0.05, 0, 0], [0, 0, 0, 1]), priority=0,
                     orientation_mask=(0, 0, 0), name='high')
    low = FrameTask(panda, tip, target=(p0 + [-0.05, 0.02, 0], [0, 0, 0, 1]), priority=1,
                    orientation_mask=(0, 0, 0), name='low')
    res = pdls.solve(LevelStack([high, low], panda.n), q0, panda.lower, panda.upper,
                     pdls.PDLSOptions(max_iterations=200, last_is_optional=True))
    assert res.residual_norms[0] < 1e-9
    alone = pdls.solve(LevelStack([high], panda.n), q0, panda.lower, panda.upper,
                       pdls.PDLSOptions(max_iterations=200))
    assert alone.residual_norms[0] < 1e-9
    # the lower level's remaining error is the distance between the two targets
    assert res.residual_norms[1] == pytest.approx(np.linalg.norm([0.1, 0.02, 0]), abs=1e-6)


def test_posture_tasks_at_distinct_priorities_are_ranked_not_summed():
    """
    Issue 14 / seed 001: posture effectors are ranked by priority.

    Two postures on one free joint pull opposite ways: summed they cancel (the old behaviour);
    ranked, the first (priority 0) is a strict level and wins, the second only gets what it
    leaves (nothing here).
    """
    robot = SimpleNamespace(n=2, lower=np.array([-2.0, -2.0]), upper=np.array([2.0, 2.0]),
                            continuous=np.array([False, False]), joint_names=['a', 'b'])
    lock = JointLockTask(SimpleNamespace(**vars(robot), joint_index=['a', 'b'].index), ['a'],
                         [0.3])
    first = PostureTask(robot, preferred=[0.0, 1.0], weight=0.5, name='first', priority=0)
    second = PostureTask(robot, preferred=[0.0, -1.0], weight=0.5, name='second', priority=1)
    stack = LevelStack([lock, first, second], 2)
    assert stack.names == ['lock', 'first'] and stack.postures == [second]
    # the levels' own solve (no task-success test: it iterates until the levels stall)
    result = pdls.solve(stack, np.zeros(2), robot.lower, robot.upper,
                        pdls.PDLSOptions(max_iterations=200))
    assert result.theta[0] == pytest.approx(0.3, abs=1e-9)       # the lock, above both
    assert result.theta[1] == pytest.approx(1.0, abs=1e-6)       # the first posture's target
    summed = LevelStack([lock, first, PostureTask(robot, preferred=[0.0, -1.0], weight=0.5,
                                                  name='second')], 2)
    assert summed.names == ['lock'] and len(summed.postures) == 2
    both = pdls.solve(summed, np.zeros(2), robot.lower, robot.upper,
                      pdls.PDLSOptions(max_iterations=200))
    assert both.theta[1] == pytest.approx(0.0, abs=1e-6)         # summed: they cancel
    # a task solve treats the posture levels as never required
    problem = TaskProblem.from_tasks([lock, first, second], 2, robot.continuous)
    assert problem.tolerances == [pytest.approx(1e-6), None]
    assert problem.converged(result.theta, problem.levels(result.theta))
