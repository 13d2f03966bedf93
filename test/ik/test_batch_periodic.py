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
solve_batch turns revolute joints through their limits, as IKSolver's one-shot solve does.

Checked on the bundled UR5 (±2π joints, elbow ±π): solutions by Pinocchio FK and the limits,
one local solve where clipping at the limit fails, the limiting pass, and both backends giving
the same iterates.
"""
from __future__ import annotations

import math

from conftest import PinocchioBridge, random_q
import numpy as np
from pdls_ik import load_urdf
from pdls_ik._accel import available
from pdls_ik.ik.batch import _step, dls_rows, pose_residuals, solve_batch
from pdls_ik.model.chain_arrays import ChainArrays
from pdls_ik.model.joint_vector import periodic_variables
from pdls_ik.resources import bundled_urdf
import pytest
from scipy.spatial.transform import Rotation

BACKENDS = ['numpy', pytest.param('numba', marks=pytest.mark.skipif(
    not available(), reason='numba not installed (optional accelerator)'))]
needs_numba = pytest.mark.skipif(not available(), reason='numba not installed')
TIP = 'ee_link'
TWO_PI = 2.0 * math.pi
#: a generic UR5 posture (no singularity); every problem changes one joint of it
POSTURE = np.array([0.4, -1.2, 1.5, -1.0, 1.3, 0.2])
#: (joint index, seed value, goal value): the goal a short way beyond a limit from the seed,
#: i.e. its image a turn away within the limits (pan, shoulder, wrists at ±2π; elbow at ±π)
CROSSINGS = [(0, 6.1, 6.45 - TWO_PI), (1, -6.15, -6.5 + TWO_PI), (2, 2.9, -2.9),
             (2, -3.0, 2.95), (3, 6.2, 6.6 - TWO_PI), (4, -6.1, -6.4 + TWO_PI),
             (5, 6.0, 6.5 - TWO_PI), (5, -6.2, -6.35 + TWO_PI)]


@pytest.fixture(scope='module')
def ur5():
    path = bundled_urdf('ur5')
    return load_urdf(path), path.read_text()


def _crossing_problems(robot):
    """Goals (K, 4, 4) and seeds (K, 6): each seed near a limit, its goal a turn away."""
    seeds, goals = [], []
    for j, seed_value, goal_value in CROSSINGS:
        goal_q = POSTURE.copy()
        goal_q[j] = goal_value
        seed = goal_q + 0.05          # every joint off the goal, so that all of them move
        seed[j] = seed_value
        seeds.append(seed)
        goals.append(robot.forward_kinematics(goal_q, TIP))
    return np.array(goals), np.array(seeds)


def _assert_reached(bridge, robot, qs, goals):
    """Every q (K, 6) within the limits and at its goal by Pinocchio's FK (1e-5 m, 1e-4 rad)."""
    assert np.all(qs >= robot.lower) and np.all(qs <= robot.upper)
    for q, goal in zip(qs, goals):
        T = bridge.pose(q, TIP)
        assert np.linalg.norm(T[:3, 3] - goal[:3, 3]) < 1e-5
        assert np.linalg.norm(Rotation.from_matrix(goal[:3, :3] @ T[:3, :3].T).as_rotvec()) \
            < 1e-4


def test_the_batch_chain_uses_iksolvers_periodic_variables(ur5):
    robot, _ = ur5
    assert ChainArrays(robot, TIP).periodic.tolist() == periodic_variables(robot).tolist()
    assert ChainArrays(robot, TIP).periodic.all()
    panda = load_urdf(bundled_urdf('panda'))
    assert ChainArrays(panda, 'panda_link8').periodic.tolist() == [True] * 7 + [False]


@pytest.mark.parametrize('backend', BACKENDS)
def test_joints_go_through_their_limits_in_one_local_solve(ur5, backend):
    robot, text = ur5
    goals, seeds = _crossing_problems(robot)
    # no restart allowed: clipping at the limit stops the joint a turn short of the goal's image
    res = solve_batch(robot, TIP, goals, seeds, max_restarts=0, backend=backend)
    assert res.success.all(), res.position_error
    assert np.all(res.restarts == 0) and np.all(res.iterations <= 12)
    _assert_reached(PinocchioBridge(text, robot), robot, res.q, goals)
    for (j, seed_value, goal_value), q in zip(CROSSINGS, res.q):
        assert math.remainder(q[j] - goal_value, TWO_PI) == pytest.approx(0.0, abs=1e-4)
        assert abs(q[j] - seed_value) > math.pi       # went through the limit: a turn away


@pytest.mark.parametrize('backend', BACKENDS)
def test_one_step_turns_the_joint_onto_its_image(ur5, backend):
    robot, _ = ur5
    goals, seeds = _crossing_problems(robot)
    res = solve_batch(robot, TIP, goals[:1], seeds[:1], max_iterations=1, max_restarts=0,
                      backend=backend)
    assert res.iterations[0] == 1
    # pan: seed 6.1, goal 6.45: one step beyond 2π lands on the lowest image within ±2π,
    # 6.1 + Δq − 4π, instead of stopping at 2π
    assert res.q[0, 0] < 0.0
    assert 0.0 < (res.q[0, 0] - seeds[0, 0]) % TWO_PI < 0.5
    assert res.position_error[0] < np.linalg.norm(goals[0, :3, 3]
                                                  - robot.forward_kinematics(seeds[0], TIP)[:3, 3])


@pytest.mark.parametrize('backend', BACKENDS)
def test_a_seed_beyond_a_limit_is_turned_not_clipped(ur5, backend):
    robot, _ = ur5
    seed = POSTURE.copy()
    seed[2] = 3.3                 # elbow beyond π; its image 3.3 − 2π is within ±π
    goal = robot.forward_kinematics(seed, TIP)
    res = solve_batch(robot, TIP, goal[None], seed[None], max_restarts=0, backend=backend)
    assert res.success[0] and res.iterations[0] == 0
    assert res.q[0, 2] == pytest.approx(3.3 - TWO_PI, abs=1e-12)
    np.testing.assert_array_equal(res.q[0, [0, 1, 3, 4, 5]], seed[[0, 1, 3, 4, 5]])


def test_limiting_pass_does_not_hold_a_periodic_joint_with_an_image_within(ur5):
    robot, _ = ur5
    goals, seeds = _crossing_problems(robot)
    ch = ChainArrays(robot, TIP)
    T, J = ch.pose_and_jacobian(seeds[:1])
    e = pose_residuals(T, goals[:1])
    free = dls_rows(J, e, 0.1 * 0.5 * (e @ e.T)[0] + 1e-9, np.eye(6))
    assert seeds[0, 0] + free[0, 0] > ch.upper[0]  # the pan's unconstrained step leaves ±2π
    dq = _step(J, e, seeds[:1], ch.lower, ch.upper, ch.periodic, 0.1, 1e-9)
    np.testing.assert_array_equal(dq, free)       # not held: its image 6.1 + Δq − 4π is within
    held = _step(J, e, seeds[:1], ch.lower, ch.upper, np.zeros(6, dtype=bool), 0.1, 1e-9)
    assert held[0, 0] == ch.upper[0] - seeds[0, 0]    # a non-periodic joint stops at the limit


def test_a_joint_with_no_image_within_its_limits_is_still_held(ur5):
    robot, _ = ur5
    ch = ChainArrays(robot, TIP)
    lower, upper = ch.lower.copy(), ch.upper.copy()
    lower[0], upper[0] = -1.0, 1.0     # 1 + small beyond: its image near −5.3 is out as well
    seed = POSTURE.copy()
    seed[0] = 0.98
    goal_q = POSTURE.copy()
    goal_q[0] = 1.3
    T, J = ch.pose_and_jacobian(seed[None])
    e = pose_residuals(T, robot.forward_kinematics(goal_q, TIP)[None])
    dq = _step(J, e, seed[None], lower, upper, ch.periodic, 0.1, 1e-9)
    assert dq[0, 0] == upper[0] - seed[0]


@needs_numba
def test_both_backends_give_the_same_iterates(ur5):
    robot, _ = ur5
    rng = np.random.default_rng(21)
    goals = np.array([robot.forward_kinematics(random_q(robot, rng), TIP) for _ in range(100)])
    seeds = np.array([random_q(robot, rng) for _ in range(100)])
    goals_x, seeds_x = _crossing_problems(robot)
    goals, seeds = np.concatenate((goals, goals_x)), np.concatenate((seeds, seeds_x))
    # no restarts: the backends draw their random restart seeds from different generators
    ref = solve_batch(robot, TIP, goals, seeds, max_restarts=0, backend='numpy')
    acc = solve_batch(robot, TIP, goals, seeds, max_restarts=0, backend='numba')
    np.testing.assert_allclose(acc.q, ref.q, rtol=0.0, atol=1e-9)
    np.testing.assert_array_equal(acc.iterations, ref.iterations)
    np.testing.assert_array_equal(acc.success, ref.success)


@pytest.mark.parametrize('backend', BACKENDS)
def test_local_solves_from_random_seeds_converge_more_often(ur5, backend):
    robot, text = ur5
    rng = np.random.default_rng(13)
    goals = np.array([robot.forward_kinematics(random_q(robot, rng), TIP) for _ in range(150)])
    seeds = np.array([random_q(robot, rng) for _ in range(150)])
    res = solve_batch(robot, TIP, goals, seeds, max_restarts=0, backend=backend)
    # measured on 1000 problems: 83 % of the local solves converge (47 % when the joints were
    # clipped at their limits); 150 problems: a bound with room for the sample's spread
    assert res.success.mean() >= 0.7
    assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
    ok = res.success
    _assert_reached(PinocchioBridge(text, robot), robot, res.q[ok], goals[ok])


@needs_numba
def test_the_kernels_turn_is_turn_into_limits():
    from pdls_ik._accel.chain_numba import turned as kernel_turned
    from pdls_ik.pdls.periodic import turn_into_limits
    t = np.concatenate((np.linspace(-20.0, 20.0, 801), [TWO_PI, -TWO_PI, 3 * math.pi, 7.0]))
    for lo, up in ((-TWO_PI, TWO_PI), (-math.pi, math.pi), (-3.0, 3.0), (0.5, 2.0)):
        lower, upper = np.full(t.size, lo), np.full(t.size, up)
        ref, turned = turn_into_limits(t, lower, upper, np.ones(t.size, dtype=bool))
        for value, image, ok in zip(t, ref, turned):
            if lo <= value <= up:
                continue            # within: the kernel never asks
            got = kernel_turned(value, lo, up)
            assert (got == image) if ok else math.isnan(got)
