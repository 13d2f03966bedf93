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
Tests of pdls_ik.ik.IKSolver.

FK of solutions checked with Pinocchio, success rate, priority, masks, limits, continuous joints,
bad input, tracking bounded by velocity limits.
"""
import math

from conftest import PinocchioBridge, random_q, ROBOTS
import numpy as np
from pdls_ik._accel import available as numba_available
from pdls_ik.errors import ConfigError, InputError, LinkError
from pdls_ik.ik import IKResult, IKSolver
from pdls_ik.model import load_urdf
import pytest
from scipy.spatial.transform import Rotation

PANDA_TIP, UR5_TIP = 'panda_link8', 'ee_link'


def _robot(name):
    path = ROBOTS / f'{name}.urdf'
    if not path.exists():
        pytest.skip('shared robots not found')
    return load_urdf(path), path.read_text()


#: timeout [s] for solves that must succeed: long enough that a loaded machine cannot turn a
#: reachable goal into a failure (tests never measure time; benchmarks/ do)
NO_TIME_LIMIT = 5.0


#: the one-shot tests run on both implementations (config.backend)
BACKENDS = ['numpy', pytest.param('numba', marks=pytest.mark.skipif(
    not numba_available(), reason='numba not installed (optional accelerator: pip install numba)'
))]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture(scope='module')
def panda():
    return _robot('panda')


@pytest.fixture(scope='module')
def ur5():
    return _robot('ur5')


def _pin_errors(bridge, q, tip, T_goal):
    T = bridge.pose(q, tip)
    rot = Rotation.from_matrix(T_goal[:3, :3] @ T[:3, :3].T).magnitude()
    return float(np.linalg.norm(T[:3, 3] - T_goal[:3, 3])), float(rot)


@pytest.mark.parametrize('name, tip', [('panda', PANDA_TIP), ('ur5', UR5_TIP)])
def test_success_rate_and_pinocchio_fk_on_200_random_poses(name, tip, backend):
    """
    ≥ 99 % success on 200 random reachable poses from random in-limit seeds.

    Every success passes an independent FK check (Pinocchio) within 1e-5 m / 1e-4 rad.

    Time is not under test here (speed and the rate at the default 5 ms timeout are measured by
    benchmarks/): the generous timeout makes the outcome independent of machine load, and the
    seeded restarts make it reproducible.
    """
    robot, text = _robot(name)
    bridge = PinocchioBridge(text, robot)
    solver = IKSolver(robot, tip, timeout=NO_TIME_LIMIT, backend=backend)
    assert solver.backend == backend
    rng = np.random.default_rng(7)
    ok = 0
    for _ in range(200):
        T_goal = robot.forward_kinematics(random_q(robot, rng), tip)
        res = solver.solve(T_goal, seed=random_q(robot, rng))
        assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
        if res.success:
            ok += 1
            pos, rot = _pin_errors(bridge, res.q, tip, T_goal)
            assert pos <= 1e-5 and rot <= 1e-4
            assert res.position_error == pytest.approx(pos, abs=1e-9)
            assert res.status == 'converged'
    assert ok >= 198


def test_result_fields_and_reproducibility(panda, backend):
    robot, _ = panda
    solver = IKSolver(robot, PANDA_TIP, timeout=NO_TIME_LIMIT, backend=backend)
    q_goal = np.array([0.3, -0.4, 0.2, -2.0, 0.1, 1.8, 0.5, 0.02])
    T = robot.forward_kinematics(q_goal, PANDA_TIP)
    pos, quat = T[:3, 3], Rotation.from_matrix(T[:3, :3]).as_quat()
    a = solver.solve((pos, quat))
    b = solver.solve((pos, quat))
    assert isinstance(a, IKResult) and a.success and a.joint_names == robot.joint_names
    np.testing.assert_array_equal(a.q, b.q)             # same random_seed -> same answer
    assert a.iterations >= 1 and a.solve_time > 0 and a.notes == []
    assert a.level_names == [f'pose:{PANDA_TIP}'] and len(a.residual_norms) == 1
    assert a.residual_norms[0] < 1e-5 and len(a.lambdas) == 1 and a.ranks == [6]
    # the finger joint is not on the chain: it stays at its seed value (middle of limits)
    assert a.q[7] == pytest.approx(0.02)


def test_unknown_links_and_empty_chain(panda):
    robot, _ = panda
    with pytest.raises(LinkError, match='fubar_link'):
        IKSolver(robot, 'fubar_link')
    with pytest.raises(LinkError, match='no movable joints'):
        IKSolver(robot, 'panda_link0')
    with pytest.raises(ConfigError, match='timeout'):
        IKSolver(robot, PANDA_TIP, timeout=-1.0)


def test_bad_goal_and_seed(panda):
    robot, _ = panda
    solver = IKSolver(robot, PANDA_TIP)
    with pytest.raises(InputError, match='position.x'):
        solver.solve(([math.nan, 0, 0.5], [0, 0, 0, 1]))
    with pytest.raises(InputError, match='zero quaternion'):
        solver.solve(([0.3, 0, 0.5], [0, 0, 0, 0]))
    with pytest.raises(InputError, match='seed: expected 8 joint values'):
        solver.solve(([0.3, 0, 0.5], [1, 0, 0, 0]), seed=[0.0] * 7)
    with pytest.raises(InputError, match='panda_joint2'):
        solver.solve(([0.3, 0, 0.5], [1, 0, 0, 0]), seed=[0.0, math.inf] + [0.0] * 6)
    for bad in (0.0, -1, math.nan, 'fast', True):
        with pytest.raises(InputError, match='timeout: .* must be a finite number of seconds'):
            solver.solve(([0.3, 0, 0.5], [1, 0, 0, 0]), timeout=bad)
    # a seed outside the limits is clamped and noted
    res = solver.solve(([0.4, 0.1, 0.5], [1, 0, 0, 0]), seed=[0.0, 0.0, 0.0, 0.5, 0, 1, 0, 0],
                       timeout=0.2)
    assert any('seed clamped' in n and 'panda_joint4' in n for n in res.notes)


def test_position_only_leaves_orientation_free(panda, backend):
    robot, text = panda
    bridge = PinocchioBridge(text, robot)
    solver = IKSolver(robot, PANDA_TIP, position_only=True, timeout=NO_TIME_LIMIT,
                      backend=backend)
    goal = ([0.45, -0.2, 0.35], [0.3, 0.2, 0.1, 0.9])   # orientation ignored
    res = solver.solve(goal)
    assert res.success and res.orientation_error == 0.0
    np.testing.assert_allclose(bridge.pose(res.q, PANDA_TIP)[:3, 3], goal[0], atol=1e-5)
    assert res.level_names == [f'pose:{PANDA_TIP}'] and res.ranks == [3]


def test_joint_lock_has_strict_priority_over_the_pose(panda):
    robot, _ = panda
    q_goal = np.array([0.8, 0.3, 0.6, -1.8, 0.0, 2.0, 0.4, 0.0])
    T = robot.forward_kinematics(q_goal, PANDA_TIP)
    # holding joints 1 and 3 at 0 leaves 5 joints for a 6-DOF pose that needs them moved
    solver = IKSolver(robot, PANDA_TIP, locked_joints=['panda_joint1', 'panda_joint3'],
                      locked_positions=[0.0, 0.0], timeout=0.05)
    res = solver.solve(T, seed=q_goal)
    assert res.q[0] == 0.0 and res.q[2] == 0.0       # the lock wins, exactly
    assert not res.success and res.position_error > 0.05
    assert res.level_names == ['lock', f'pose:{PANDA_TIP}']
    assert res.residual_norms[0] < 1e-12 and res.ranks[0] == 2
    # a goal reachable with the lock: solved, lock held exactly
    T2 = robot.forward_kinematics(np.r_[0.0, 0.3, 0.0, q_goal[3:]], PANDA_TIP)
    res2 = solver.solve(T2, timeout=NO_TIME_LIMIT)
    assert res2.success and res2.q[0] == 0.0 and res2.q[2] == 0.0


def test_continuous_joints_wrapped_and_limits_respected(ur5, backend):
    robot, _ = ur5
    solver = IKSolver(robot, UR5_TIP, timeout=0.1, backend=backend)
    rng = np.random.default_rng(3)
    for _ in range(20):
        res = solver.solve(robot.forward_kinematics(random_q(robot, rng), UR5_TIP),
                           seed=random_q(robot, rng))
        assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)


def test_unreachable_goal_returns_best_effort(panda, backend):
    robot, _ = panda
    solver = IKSolver(robot, PANDA_TIP, position_only=True, timeout=0.05, backend=backend)
    res = solver.solve(([2.0, 0.0, 0.3], [0, 0, 0, 1]))
    assert not res.success and res.status != 'converged'
    # the Panda reaches at most ~1.19 m from its shoulder (0, 0, 0.333): the goal is 1.97 m
    # from it, so no configuration comes closer than ~0.78 m
    assert 0.75 < res.position_error < 1.2
    assert res.restarts >= 1 and np.all(np.isfinite(res.q))


def test_tracking_steps_bounded_by_velocity_through_wrist_singularity(panda):
    """
    The Panda's wrist is singular at q6 = 0 (axes 5 and 7 aligned), 1 degree from its lower limit.

    A goal path through it must never move a joint faster than its velocity limit.
    """
    robot, _ = panda
    solver = IKSolver(robot, PANDA_TIP, velocity_scaling=0.5)
    dt = 0.01
    bound = robot.velocity_limits * 0.5 * dt
    qa = np.array([0.0, -0.3, 0.0, -2.2, 0.3, 0.6, 0.8, 0.0])
    qm = np.array([0.2, -0.1, 0.1, -2.0, 0.6, 0.0, 0.3, 0.0])     # wrist singular
    qb = np.array([0.5, 0.2, 0.3, -1.6, 1.2, 0.7, -0.6, 0.0])
    path = [(1 - s) * qa + s * qm for s in np.linspace(0, 1, 150)] + \
           [(1 - s) * qm + s * qb for s in np.linspace(0, 1, 150)]
    q = qa.copy()
    sigmas = []
    for q_goal in path:
        res = solver.track(robot.forward_kinematics(q_goal, PANDA_TIP), q, dt)
        assert np.all(np.abs(res.q - q) <= bound + 1e-12)
        assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
        sigmas.append(min(res.min_singular_values) if res.min_singular_values else np.inf)
        q = res.q
    # the path did get close to the singularity (7 joints: one redundant, so rank 6 remains)
    assert min(sigmas) < 0.3 * sigmas[1]
    assert res.position_error < 1e-3
    for bad in (0.0, math.inf, '0.01', None):
        with pytest.raises(InputError, match='dt: .* must be a finite number of seconds'):
            solver.track(robot.forward_kinematics(qb, PANDA_TIP), q, bad)
    for good in (np.int64(1), np.float32(0.01), 1):     # any real number type
        assert solver.track(robot.forward_kinematics(qb, PANDA_TIP), q, good).q.shape == q.shape
