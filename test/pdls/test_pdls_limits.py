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

"""The limiting loop: hard limits on θ hold after every iteration, clamped motion compensated."""
import numpy as np
from pdls_ik.pdls import PDLSOptions, solve, step
import pytest

EXACT = PDLSOptions(damping=0.0, theta_diff_clamping=False, svd_tol=1e-12)


def test_ten_thousand_random_problems_stay_within_limits():
    rng = np.random.default_rng(2024)
    total = clamped_problems = 0
    for n, p, count in [(2, 1, 1500), (4, 2, 2500), (7, 2, 3000), (7, 3, 2000), (12, 3, 1000)]:
        # Vectorized generation: every problem of the group at once.
        width = rng.uniform(0.0, 0.4, (count, n))
        width[rng.random((count, n)) < 0.05] = 0.0  # some variables fixed (lower == upper)
        lower = rng.uniform(-1.0, 1.0, (count, n))
        upper = lower + width
        theta = lower + rng.random((count, n)) * width
        theta[:, 0] = upper[:, 0]  # one variable sits on its limit
        rows = rng.integers(1, 5, (count, p))
        jac = rng.standard_normal((count, p, 4, n))
        res = rng.standard_normal((count, p, 4)) * rng.uniform(0.1, 5.0, (count, 1, 1))
        posture = rng.standard_normal((count, n)) * (rng.random((count, 1)) < 0.5)
        damped = rng.random(count) < 0.5
        for i in range(count):
            levels = [(res[i, k, :rows[i, k]], jac[i, k, :rows[i, k]]) for k in range(p)]
            opts = PDLSOptions() if damped[i] else EXACT
            out = step(levels, theta[i], lower[i], upper[i], posture=posture[i], options=opts)
            new = theta[i] + out.theta_diff
            assert np.all(new >= lower[i]) and np.all(new <= upper[i]), (n, p, i)
            clamped_problems += out.clamped.size > 0
        total += count
    assert total == 10_000
    assert clamped_problems > 5_000  # the limits really were active


def test_clamped_motion_is_compensated_by_the_other_variables():
    # Two rows, four variables: the level stays exactly satisfied with variable 0 held.
    J = np.array([[1.0, 0.5, 0.2, 0.0], [0.3, 1.0, 0.0, 0.4]])
    e = np.array([1.0, -0.5])
    free = step([(e, J)], np.zeros(4), options=EXACT).theta_diff
    assert free[0] > 0.2  # unconstrained, variable 0 would move beyond its limit
    lower, upper = np.full(4, -5.0), np.array([0.2, 5.0, 5.0, 5.0])
    out = step([(e, J)], np.zeros(4), lower, upper, options=EXACT)
    assert out.theta_diff[0] == 0.2
    np.testing.assert_allclose(J @ out.theta_diff, e, atol=1e-12)
    np.testing.assert_array_equal(out.clamped, [0])
    assert out.limiting_variation[0] == pytest.approx(free[0] - 0.2)
    assert out.limiting_iterations == 2


def test_higher_level_still_satisfied_when_clamping_and_lower_level_gives_way():
    rng = np.random.default_rng(8)
    n = 6
    J1, e1 = rng.standard_normal((2, n)), rng.standard_normal(2)
    J2, e2 = rng.standard_normal((2, n)), rng.standard_normal(2)
    unlimited = step([(e1, J1), (e2, J2)], np.zeros(n), options=EXACT).theta_diff
    hit = int(np.argmax(np.abs(unlimited)))
    upper = np.full(n, 10.0)
    lower = -upper
    bound = 0.3 * unlimited[hit]
    (upper if bound > 0 else lower)[hit] = bound
    out = step([(e1, J1), (e2, J2)], np.zeros(n), lower, upper, options=EXACT)
    assert hit in out.clamped
    assert out.theta_diff[hit] == pytest.approx(bound, abs=0)
    np.testing.assert_allclose(J1 @ out.theta_diff, e1, atol=1e-10)
    assert np.sign(out.limiting_variation[hit]) == np.sign(bound)


def test_lower_equal_upper_freezes_the_variable():
    e, J = np.array([1.0]), np.array([[1.0, 1.0]])
    out = step([(e, J)], np.array([0.5, 0.0]), [0.5, -1.0], [0.5, 1.0], options=EXACT)
    assert out.theta_diff[0] == 0.0 and out.theta_diff[1] == pytest.approx(1.0)


def test_theta_outside_limits_is_clamped_at_start_and_recorded():
    A = np.eye(3)
    goal = np.array([0.5, 2.0, 0.0])
    result = solve(lambda th: [(goal - A @ th, A)], np.array([3.0, 0.0, -4.0]),
                   lower=[-1.0, -1.0, -1.0], upper=[1.0, 1.0, 1.0], options=EXACT)
    np.testing.assert_array_equal(result.start_clamped, [0, 2])
    np.testing.assert_allclose(result.theta, [0.5, 1.0, 0.0], atol=1e-12)
    assert result.status == 'stalled'  # goal 2.0 is beyond the limit 1.0 of variable 1
    np.testing.assert_array_equal(result.clamped, [1])


def test_step_moves_a_variable_outside_its_limit_back_onto_it():
    out = step([(np.zeros(1), np.array([[0.0, 1.0]]))], np.array([2.0, 0.0]),
               [-1.0, -1.0], [1.0, 1.0], options=EXACT)
    assert out.theta_diff[0] == -1.0
    np.testing.assert_array_equal(out.clamped, [0])


def test_limits_ignored_when_respect_limits_is_off():
    e, J = np.array([2.0]), np.array([[1.0]])
    out = step([(e, J)], np.zeros(1), [-1.0], [1.0], options=EXACT.replace(respect_limits=False))
    assert out.theta_diff[0] == 2.0 and out.clamped.size == 0


class _PostureOutside:
    """Issue 14's reproduction: 2 rows, 5 variables in ±0.3, a posture pulling to ±1."""

    def __init__(self, seed, posture=True):
        rng = np.random.default_rng(seed)
        n = 5
        self.A = rng.normal(size=(2, n))
        self.b = self.A @ rng.uniform(-.25, .25, n)
        self.pref = rng.choice([-1., 1.], n) if posture else None

    def levels(self, th):
        return [(self.b - self.A @ th, self.A)]

    def posture_variation(self, th):
        return None if self.pref is None else .5 * (self.pref - th)


def test_the_posture_never_takes_a_variable_from_the_level_through_the_limits():
    """
    Issue 14, finding 1: the limiting loop used to clamp variables the posture pushed out.

    Seed 14 ended "stalled" with |e0| = 0.222 (160 of seeds 0–299 unsolved); without the posture
    every one converges. Now the posture only uses what the limits leave.
    """
    lo, up = -.3 * np.ones(5), .3 * np.ones(5)
    result = solve(_PostureOutside(14), np.zeros(5), lo, up)
    assert result.status == 'converged' and result.residual_norms[0] < 1e-10
    unsolved = sum(solve(_PostureOutside(seed), np.zeros(5), lo, up).residual_norms[0] > 1e-6
                   for seed in range(60))
    assert unsolved == 0
    # and the posture got what the limits leave: some variable sits on a limit
    assert np.isclose(np.abs(result.theta), 0.3).any()


def test_random_strict_priority_with_active_limits_and_a_posture():
    """
    Property: with limits active, the posture changes no level's residual and no clamp.

    Random 1–3 level problems; every step with a posture (often pulling far outside the limits)
    leaves each level's linearized residual J_k Δθ − e_k as the step without it, clamps the
    same variables, stays within the limits, and its extra motion lies in the levels' null space.
    """
    rng = np.random.default_rng(1414)
    moved = bounded = 0
    for i in range(1500):
        n = int(rng.integers(3, 10))
        p = int(rng.integers(1, 4))
        lower = rng.uniform(-1.0, 0.0, n)
        upper = lower + rng.uniform(0.1, 1.5, n)
        theta = lower + rng.random(n) * (upper - lower)
        levels = [(rng.standard_normal(m) * rng.uniform(0.1, 2.0), rng.standard_normal((m, n)))
                  for m in rng.integers(1, 3, p)]
        posture = rng.standard_normal(n) * 1.5
        opts = PDLSOptions() if i % 2 else EXACT
        plain = step(levels, theta, lower, upper, options=opts.replace(theta_diff_clamping=False))
        with_p = step(levels, theta, lower, upper, posture=posture,
                      options=opts.replace(theta_diff_clamping=False))
        new = theta + with_p.theta_diff
        assert np.all(new >= lower) and np.all(new <= upper), i
        np.testing.assert_array_equal(with_p.clamped, plain.clamped)
        for e, J in levels:
            np.testing.assert_allclose(J @ with_p.theta_diff, J @ plain.theta_diff,
                                       atol=1e-9 * (1.0 + np.abs(e).max()), err_msg=str(i))
        extra = with_p.theta_diff - plain.theta_diff
        moved += np.abs(extra).max() > 1e-6
        bounded += np.any(np.isclose(new, lower) | np.isclose(new, upper)) and \
            plain.clamped.size == 0
    assert moved > 500 and bounded > 150         # the posture moved, and the limits bound it
