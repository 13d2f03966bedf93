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

"""Inequality tasks: position bounds (box, plane) and soft joint-limit avoidance."""
from __future__ import annotations

from conftest import REPO
from fd_support import residual_derivative
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.errors import ConfigError, InputError
from pdls_ik.ik.task_config import TaskConfig
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.pdls import GREATER_EQUAL, LESS_EQUAL
from pdls_ik.tasks import FrameTask, LimitAvoidanceTask, PositionBoundTask
import pytest

Q0 = np.array([0.0, -0.4, 0.0, -2.2, 0.0, 1.9, 0.8, 0.02])


@pytest.fixture(scope='module')
def panda():
    return load_urdf(REPO / 'urdf' / 'panda.urdf')


def _reach(panda, goal, priority=1):
    return FrameTask(panda, 'panda_link8', target=(goal, (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0), priority=priority, position_tolerance=1e-9)


def _elbow(panda, q):
    return panda.forward_kinematics(q, 'panda_link4')[:3, 3]


def test_rows_and_comparisons(panda):
    box = PositionBoundTask(panda, 'panda_link8', lower=(None, -0.2, 0.1),
                            upper=(0.6, np.inf, None), point=(0, 0, 0.1))
    assert box.dim == 3
    assert box.comparison.tolist() == [LESS_EQUAL, LESS_EQUAL, GREATER_EQUAL]
    e, J = box.compute(Q0)
    T = panda.forward_kinematics(Q0, 'panda_link8')
    x = T[:3, :3] @ (0, 0, 0.1) + T[:3, 3]
    assert np.allclose(e, [-0.2 - x[1], 0.1 - x[2], 0.6 - x[0]], atol=1e-15)
    assert np.abs(residual_derivative(box, Q0) - J).max() < 1e-8
    plane = PositionBoundTask(panda, 'panda_link8', normal=(0, 0, 2.0), offset=0.4)
    e, J = plane.compute(Q0)
    assert plane.comparison.tolist() == [LESS_EQUAL]
    assert e[0] == pytest.approx(0.2 - x[2] + T[:3, :3][2] @ (0, 0, 0.1), abs=1e-15)


def test_plane_bound_holds_while_the_target_is_reached_as_far_as_allowed(panda):
    """A target below a table top: the effector stops on the plane (feasible bound met)."""
    table = PositionBoundTask(panda, 'panda_link8', normal=(0, 0, 1), offset=0.25, priority=0,
                              tolerance=1e-9)
    goal = np.array([0.5, 0.1, 0.1])                      # 15 cm below the table top
    res = TaskSolver(panda, [table, _reach(panda, goal)]).solve(Q0)
    z = panda.forward_kinematics(res.q, 'panda_link8')[2, 3]
    assert z >= 0.25 - 1e-9 and z == pytest.approx(0.25, abs=1e-6)      # on the table
    xy = panda.forward_kinematics(res.q, 'panda_link8')[:2, 3]
    assert np.linalg.norm(xy - goal[:2]) < 1e-6                         # rest of the target
    assert res.errors['bound:panda_link8'] <= 1e-9
    assert not res.success                                              # target not met: honest


def test_box_bound_keeps_the_elbow_inside(panda):
    """Elbow (link4) kept below z = 0.5 while the hand reaches a high goal."""
    box = PositionBoundTask(panda, 'panda_link4', upper=(None, None, 0.5), priority=0,
                            tolerance=1e-9)
    goal = np.array([0.35, 0.0, 0.75])
    free = TaskSolver(panda, [_reach(panda, goal)]).solve(Q0)
    assert _elbow(panda, free.q)[2] > 0.5                 # the bound matters for this goal
    res = TaskSolver(panda, [box, _reach(panda, goal)]).solve(Q0)
    assert res.success and res.status == 'converged'
    assert _elbow(panda, res.q)[2] <= 0.5 + 1e-9
    assert np.linalg.norm(panda.forward_kinematics(res.q, 'panda_link8')[:3, 3] - goal) < 1e-9


def test_inactive_bound_changes_nothing(panda):
    """A bound never violated along the solve leaves the answer bit-for-bit unchanged."""
    goal = np.array([0.45, -0.1, 0.4])
    loose = PositionBoundTask(panda, 'panda_link8', lower=(-2, -2, -2), upper=(2, 2, 2),
                              priority=0)
    a = TaskSolver(panda, [_reach(panda, goal)]).solve(Q0)
    b = TaskSolver(panda, [loose, _reach(panda, goal)]).solve(Q0)
    assert a.success and b.success
    assert np.array_equal(a.q, b.q) and a.iterations == b.iterations
    assert b.errors['bound:panda_link8'] == 0.0


def test_limit_avoidance_keeps_margins_when_possible(panda):
    q0 = Q0.copy()
    q0[0] = panda.upper[0] - 0.01                         # start inside the margin of joint 1
    goal = panda.forward_kinematics(q0, 'panda_link8')[:3, 3] + (0.0, 0.0, 0.03)
    plain = TaskSolver(panda, [_reach(panda, goal, priority=0)]).solve(q0)
    assert plain.q[0] > panda.upper[0] - 0.1 * (panda.upper[0] - panda.lower[0])  # inside
    soft = LimitAvoidanceTask(panda, fraction=0.1, joints=panda.joint_names[:7])
    res = TaskSolver(panda, [_reach(panda, goal, priority=0), soft]).solve(q0)
    assert plain.success and res.success
    margin = 0.1 * (panda.upper[:7] - panda.lower[:7])
    inside = (res.q[:7] < panda.lower[:7] + margin - 1e-9) | \
        (res.q[:7] > panda.upper[:7] - margin + 1e-9)
    assert not inside.any()                               # every joint out of its margin
    assert res.errors['limit_avoidance'] == 0.0
    assert res.level_names[-1] == 'limit_avoidance'       # a lower level than the target


def test_limit_avoidance_is_optional_when_infeasible(panda):
    """A target that needs a joint inside its margin is still reached: the soft task yields."""
    q_goal = Q0.copy()
    q_goal[3] = panda.upper[3] - 0.02                     # joint 4 near its upper limit
    T = panda.forward_kinematics(q_goal, 'panda_link8')
    hand = FrameTask(panda, 'panda_link8', target=T, position_tolerance=1e-9,
                     orientation_tolerance=1e-9)
    soft = LimitAvoidanceTask(panda, fraction=0.2, joints=['panda_joint4'])
    res = TaskSolver(panda, [hand, soft]).solve(q_goal)
    assert res.success and res.errors['frame:panda_link8'] < 1e-9
    assert res.errors['limit_avoidance'] > 0.0            # margin violated, honestly reported


def test_safety_limits_and_bad_inputs(robots_dir):
    panda = load_urdf(robots_dir / 'panda.urdf')           # has <safety_controller> limits
    soft = LimitAvoidanceTask(panda, fraction=0.0, use_safety_limits=True)
    i = soft.joints.index('panda_joint1')
    assert soft.soft_lower[i] == pytest.approx(panda.soft_lower[0])
    with pytest.raises(InputError, match='fraction'):
        LimitAvoidanceTask(panda, fraction=0.6)
    with pytest.raises(InputError, match='exactly one'):
        PositionBoundTask(panda, 'panda_link8', lower=(0, 0, 0), normal=(0, 0, 1))
    with pytest.raises(InputError, match='lower 1.0 > upper 0.0 on axis y'):
        PositionBoundTask(panda, 'panda_link8', lower=(0, 1, 0), upper=(1, 0, 1))
    with pytest.raises(InputError, match='normal'):
        PositionBoundTask(panda, 'panda_link8', normal=(0, 0, 0))
    with pytest.raises(ConfigError, match=r'tasks\[0\].link'):
        TaskConfig.from_dict({'tasks': [{'type': 'position_bound', 'normal': [0, 0, 1]}]})


def test_bounds_from_yaml_keys(panda):
    cfg = TaskConfig.from_dict({'tasks': [
        {'type': 'position_bound', 'link': 'panda_link8', 'normal': [0, 0, 1], 'offset': 0.2},
        {'type': 'position_bound', 'link': 'panda_link4', 'upper': [None, None, 0.5]},
        {'type': 'limit_avoidance', 'fraction': 0.05}]})
    tasks = cfg.build(panda)
    assert [type(t).__name__ for t in tasks] == ['PositionBoundTask', 'PositionBoundTask',
                                                 'LimitAvoidanceTask']
    assert tasks[1].comparison.tolist() == [GREATER_EQUAL]
