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
