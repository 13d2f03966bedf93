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

"""The PDLS iteration loop: convergence, every status, hooks, DLS equivalence, metrics."""
import math
import time

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.pdls import (CONVERGED, DIVERGED, INFEASIBLE, Level, MAX_ITERATIONS, MAX_TIME,
                          PDLSOptions, PDLSProblem, solve, STALLED, STATUSES)
import pytest

EXACT = PDLSOptions(damping=0.0, theta_diff_clamping=False, adaptive_step_size=False)
LINKS = np.array([1.0, 0.8, 0.5])


def arm_levels(goal):
    """Planar 3-link arm reaching a 2-D point: e = goal − fk(q), J = ∂fk/∂q."""
    def levels(q):
        c = np.cumsum(q)
        tip = np.array([LINKS @ np.cos(c), LINKS @ np.sin(c)])
        J = np.array([[-(LINKS[i:] @ np.sin(c[i:])) for i in range(3)],
                      [LINKS[i:] @ np.cos(c[i:]) for i in range(3)]])
        return [(goal - tip, J)]
    return levels


def cubic(theta):
    """f(θ) = θ³ − 2θ + 2: Newton from 0 cycles 0 → 1 → 0 (|f| goes 2 → 1 → 2)."""
    t = theta[0]
    return [(np.array([-(t ** 3 - 2 * t + 2)]), np.array([[3 * t ** 2 - 2]]))]


@pytest.mark.parametrize('seed', range(6))
def test_linear_problems_converge_in_one_iteration(seed):
    rng = np.random.default_rng(seed)
    n = 8
    rows = rng.integers(1, 4, rng.integers(1, 4))
    mats = [rng.standard_normal((m, n)) for m in rows]
    goals = [rng.standard_normal(m) for m in rows]
    result = solve(lambda th: [(g - A @ th, A) for g, A in zip(goals, mats)],
                   rng.standard_normal(n), lower=np.full(n, -1e3), upper=np.full(n, 1e3),
                   options=EXACT)
    assert result.status == CONVERGED and result.iterations == 1
    assert max(result.residual_norms) < 1e-10
    assert result.ranks == list(rows)


def test_nonlinear_arm_converges_with_default_options():
    goal = np.array([0.5, 1.2])
    result = solve(arm_levels(goal), np.full(3, 0.1), lower=np.full(3, -2.0),
                   upper=np.full(3, 2.0))
    assert result.status == CONVERGED
    c = np.cumsum(result.theta)
    np.testing.assert_allclose([LINKS @ np.cos(c), LINKS @ np.sin(c)], goal, atol=1e-10)
    assert result.initial_residual_norms[0] == pytest.approx(
        np.linalg.norm(goal - [LINKS @ np.cos([0.1, 0.2, 0.3]), LINKS @ np.sin([0.1, 0.2, 0.3])]))
    assert set(result.phase_times) == {'evaluate', 'step', 'line_search', 'total',
                                       'priority_loop', 'svd', 'limits', 'posture'}
    assert result.evaluations == result.iterations + 1
    assert len(result.history) == result.iterations + 1
    np.testing.assert_array_equal(result.best_theta, result.theta)


def test_stalled_on_inconsistent_problem():
    J = np.array([[1.0], [1.0]])
    result = solve(lambda th: [(np.array([1.0, -1.0]) - J @ th, J)], np.array([0.7]),
                   options=EXACT)
    assert result.status == STALLED
    assert result.theta[0] == pytest.approx(0.0, abs=1e-15)
    assert result.residual_norms[0] == pytest.approx(math.sqrt(2))
    assert result.iterations == 2


def test_max_iterations():
    result = solve(arm_levels(np.array([0.5, 1.2])), np.full(3, 0.1),
                   options=PDLSOptions(max_iterations=2))
    assert result.status == MAX_ITERATIONS and result.iterations == 2
    assert result.residual_norms[0] > 1e-6
    assert result.residual_norms[0] < result.initial_residual_norms[0]


def test_max_time():
    def slow(theta):
        time.sleep(0.01)
        return arm_levels(np.array([0.5, 1.2]))(theta)
    result = solve(slow, np.full(3, 0.1), options=PDLSOptions(max_time=0.025, step_size=0.1,
                                                              line_search='constant'))
    assert result.status == MAX_TIME
    assert 1 <= result.iterations <= 3
    assert result.phase_times['total'] >= 0.025


@pytest.mark.parametrize('revert,theta,norm', [(True, 1.0, 1.0), (False, 0.0, 2.0)])
def test_diverged_with_and_without_revert(revert, theta, norm):
    opts = EXACT.replace(abort_on_divergence=True, revert_on_divergence=revert,
                         divergence_factor=0.5)          # diverged: grew by more than half
    result = solve(cubic, np.array([0.0]), options=opts)
    assert result.status == DIVERGED and result.iterations == 2
    assert result.theta[0] == theta and result.residual_norms == [norm]
    assert result.divergences == 1


def test_growth_within_tolerance_is_not_divergence():
    """
    A converged level whose residual moves at rounding level is not diverging.

    The residual grows x10 per iteration, far below its tolerance, while a lower level iterates.
    """
    calls = []

    def levels(theta):
        calls.append(None)
        noise = np.array([1e-18 * 10.0 ** len(calls)])          # 1e-17, 1e-16, ... < 1e-10
        t = theta[1]
        return [(noise, np.array([[1.0, 0.0]])),
                (np.array([-math.atan(t - 0.5)]), np.array([[0.0, 1.0 / (1.0 + (t - 0.5) ** 2)]]))]
    opts = EXACT.replace(abort_on_divergence=True, divergence_factor=2.0)
    result = solve(levels, np.array([0.0, 1.0]), options=opts)
    assert result.status == CONVERGED and result.divergences == 0
    assert result.iterations >= 3 and abs(result.theta[1] - 0.5) < 1e-10


def test_divergence_without_abort_reverts_and_slows_down():
    # Newton on atan(θ) = 0 diverges from |θ0| > 1.39; smaller steps converge.
    def atan_levels(theta):
        t = theta[0]
        return [(np.array([-math.atan(t)]), np.array([[1.0 / (1.0 + t * t)]]))]
    opts = PDLSOptions(damping=0.0, theta_diff_clamping=False, divergence_factor=1e-9)
    result = solve(atan_levels, np.array([1.5]), options=opts)
    assert result.status == CONVERGED and abs(result.theta[0]) < 1e-10
    assert result.divergences >= 1 and result.reverts == result.divergences
    assert result.slowdowns >= 1
    plain = solve(atan_levels, np.array([1.5]), options=EXACT.replace(max_iterations=20))
    assert plain.status == STALLED and abs(plain.theta[0]) > 1e6 and plain.ranks == [0]


def test_time_metrics_per_phase_and_level_and_limiting_iterations():
    """Seed 000's TimeMetrics: update, priority loop, limiting loop, SVD, per level."""
    J0, J1 = np.array([[1.0, 1.0, 0.0]]), np.array([[0.0, 1.0, 1.0]])

    def levels(theta):
        return [(np.array([2.0]) - J0 @ theta, J0), (np.array([-1.0]) - J1 @ theta, J1)]
    result = solve(levels, np.zeros(3), np.full(3, -0.6), np.full(3, 0.6),
                   PDLSOptions(max_iterations=30))
    times = result.phase_times
    assert len(result.level_times) == 2 and all(t > 0.0 for t in result.level_times)
    assert 0.0 < times['svd'] <= times['priority_loop'] <= times['step'] <= times['total']
    assert sum(result.level_times) <= times['priority_loop']
    # x0 + x1 = 2 within ±0.6 is out of reach: every step clamps, so passes > steps
    assert result.limiting_iterations > result.iterations > 0
    assert result.pgs_unconverged == 0
    assert result.residual_norms[0] == pytest.approx(0.8, abs=1e-9)


def test_infeasible_when_no_variable_may_move():
    """
    hpp-constraints' INFEASIBLE ("reduced dimension 0"): known before iterating.

    Not after max_iterations: every variable fixed by free_variables or by lower == upper.
    """
    J = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])

    def levels(theta):
        return [(np.array([0.5, 0.0]) - J @ theta, J)]
    none_free = solve(levels, np.zeros(3), options=PDLSOptions(free_variables=[]))
    assert none_free.status == INFEASIBLE and none_free.iterations == 0
    assert none_free.infeasible_levels == [0] and none_free.evaluations == 1
    pinned = solve(levels, np.zeros(3), np.array([0.0, 0.0, -1.0]), np.array([0.0, 0.0, -1.0]))
    assert pinned.status == INFEASIBLE and pinned.theta[2] == -1.0
    met = solve(levels, np.array([0.5, 0.0, 0.0]), options=PDLSOptions(free_variables=[]))
    assert met.status == CONVERGED                       # already met: nothing to move
    one = solve(levels, np.zeros(3), np.array([0.0, -1.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    assert one.status != INFEASIBLE                      # one variable may move: it tries


class _Growing:
    """One level whose residual is 1 at θ = 0 and ``1 + growth · θ``: a unit step grows it."""

    def __init__(self, growth):
        self.growth = growth

    def levels(self, theta):
        return [(np.array([1.0 + self.growth * theta[0]]), np.array([[1.0]]))]


@pytest.mark.parametrize('growth,status', [(1.5, MAX_ITERATIONS), (2.5, DIVERGED)])
def test_divergence_factor_bounds_the_increase_as_the_seed_reads(growth, status):
    """
    Issue 14, finding 3: diverged when the *increase* exceeds tol + factor × previous (MSim).

    Factor 2: 1 → 2.5 (increase 1.5 < 2) is not divergence, 1 → 3.5 (increase 2.5) is.
    """
    opts = PDLSOptions(damping=0.0, theta_diff_clamping=False, adaptive_step_size=False,
                       abort_on_divergence=True, divergence_factor=2.0, max_iterations=1)
    result = solve(_Growing(growth), np.array([0.0]), options=opts)
    assert result.status == status
    assert result.divergences == (status == DIVERGED)
    off = solve(_Growing(growth), np.array([0.0]),
                options=opts.replace(divergence_factor=0.0))           # 0 disables (MSim)
    assert off.status == MAX_ITERATIONS and off.divergences == 0


def test_last_is_optional():
    J = np.array([[1.0]])

    def levels(th):
        return [(np.array([1.0]) - J @ th, J), (np.array([3.0]) - J @ th, J)]
    strict = solve(levels, np.zeros(1), options=EXACT)
    optional = solve(levels, np.zeros(1), options=EXACT.replace(last_is_optional=True))
    assert strict.status == STALLED
    assert optional.status == CONVERGED and optional.iterations == 1
    assert optional.theta[0] == 1.0 and optional.converged_levels == [True, False]


class WrappedAngleProblem(PDLSProblem):
    """One angle reaching 3.1 rad the short way across ±π, a second variable set by posture."""

    def levels(self, theta):
        err = math.remainder(3.1 - theta[0], 2 * math.pi)
        return [Level(np.array([err]), np.array([[1.0, 0.0]]), tolerance=1e-12, name='angle')]

    def posture_variation(self, theta):
        return np.array([0.0, 0.25 - theta[1]])

    def converged(self, theta, levels):
        return abs(levels[0].residual[0]) < 1e-12 and abs(theta[1] - 0.25) < 1e-12

    def normalize(self, theta):
        return np.array([math.remainder(theta[0], 2 * math.pi), theta[1]])


def test_problem_hooks_posture_converged_normalize():
    result = solve(WrappedAngleProblem(), np.array([-3.1, 2.0]), options=EXACT)
    assert result.status == CONVERGED
    assert result.theta[0] == pytest.approx(3.1, abs=1e-12)
    assert result.theta[1] == pytest.approx(0.25, abs=1e-12)
    assert result.iterations == 1


def test_free_variables_never_move():
    rng = np.random.default_rng(9)
    A, b = rng.standard_normal((2, 5)), rng.standard_normal(2)
    theta0 = rng.standard_normal(5)
    result = solve(lambda th: [(b - A @ th, A)], theta0,
                   options=EXACT.replace(free_variables=[1, 2, 4]))
    assert result.status == CONVERGED
    np.testing.assert_array_equal(result.theta[[0, 3]], theta0[[0, 3]])


def test_dls_configuration_matches_the_plain_dls_loop():
    levels = arm_levels(np.array([1.9, 0.9]))
    lam, alpha, k = 0.1, 0.6, 6
    opts = PDLSOptions.dls(damping=lam, step_size=alpha, max_iterations=k, tolerance=1e-15)
    result = solve(levels, np.full(3, 0.2), options=opts)
    q = np.full(3, 0.2)
    for _ in range(k):
        ((e, J),) = levels(q)
        q = q + alpha * J.T @ np.linalg.solve(J @ J.T + lam ** 2 * np.eye(2), e)
    assert result.status == MAX_ITERATIONS and result.iterations == k
    np.testing.assert_allclose(result.theta, q, atol=1e-12)
    assert result.lambdas == [lam]


def test_adaptive_step_size_slows_down_big_steps_then_converges():
    opts = PDLSOptions(damping=0.0, theta_diff_clamping=False, theta_diff_max_mag=0.2,
                       max_iterations=200)
    result = solve(arm_levels(np.array([-1.5, 0.8])), np.array([0.3, 0.3, 0.3]), options=opts)
    assert result.status == CONVERGED
    assert result.slowdowns >= 1
    assert result.residual_max_mag[0] < result.initial_residual_norms[0]
    assert result.residual_max_mag[0] is not None


def test_non_finite_values_from_the_problem_are_named():
    def levels(theta):
        bad = np.nan if theta[0] != 0.0 else 1.0
        return [(np.array([1.0, bad]), np.eye(2))]
    with pytest.raises(InputError, match=r'iteration 1: level 0: residual row 1'):
        solve(levels, np.zeros(2), options=EXACT)
    with pytest.raises(InputError, match='theta0: variable 0'):
        solve(levels, np.array([np.inf, 0.0]))
    with pytest.raises(InputError, match='problem: expected a callable'):
        solve(42, np.zeros(2))


def test_every_status_is_a_documented_constant():
    assert set(STATUSES) == {'converged', 'stalled', 'max_iterations', 'max_time', 'diverged',
                             'infeasible'}


@pytest.mark.parametrize('comparison', [None, [0, -1]])
def test_trusted_levels_skip_the_checks_and_change_nothing_else(comparison):
    """
    A problem with ``trusted_levels`` reaches the same iterates as the checked path.

    Its levels are built from validated inputs; a problem without it is still checked.
    """
    goal = np.array([0.5, 1.2])
    arm = arm_levels(goal)

    class Arm(PDLSProblem):
        def __init__(self, trusted):
            self.trusted_levels = trusted

        def levels(self, theta):
            e, J = arm(theta)[0]
            return [Level(e, J, comparison=comparison, name='tip')]

    args = (np.full(3, 0.1), np.full(3, -2.0), np.full(3, 2.0))
    checked, trusted = solve(Arm(False), *args), solve(Arm(True), *args)
    assert checked.status == trusted.status == CONVERGED
    assert trusted.iterations == checked.iterations
    np.testing.assert_array_equal(trusted.theta, checked.theta)
    assert trusted.history == checked.history

    class Bad(PDLSProblem):
        def levels(self, theta):
            return [Level(np.array([np.nan, 0.0]), np.ones((2, 3)))]
    with pytest.raises(InputError, match='residual row 0'):
        solve(Bad(), *args)
