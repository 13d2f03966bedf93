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

"""Line searches on a linear problem, where each α shows as the residual ratio 1 − α."""
import math

import numpy as np
from pdls_ik.pdls import MAX_ITERATIONS, PDLSOptions, solve
import pytest

BASE = PDLSOptions(damping=0.0, theta_diff_clamping=False, adaptive_step_size=False,
                   max_iterations=5, residual_tol=1e-14)
A = np.array([[2.0, 0.0, 1.0], [0.0, 1.0, -1.0]])
GOAL = np.array([1.0, 2.0])


def linear(theta):
    return [(GOAL - A @ theta, A)]


def ratios(result):
    h = [norms[0] for norms in result.history]
    return [b / a for a, b in zip(h, h[1:])]


def test_constant_step_size():
    result = solve(linear, np.zeros(3), options=BASE.replace(step_size=0.5))
    assert result.status == MAX_ITERATIONS
    np.testing.assert_allclose(ratios(result), [0.5] * 5, rtol=1e-12)


def test_fixed_sequence():
    result = solve(linear, np.zeros(3), options=BASE.replace(line_search='fixed_sequence'))
    alphas, a = [], 0.2
    for _ in range(5):
        alphas.append(a)
        a = 0.95 - 0.8 * (0.95 - a)
    np.testing.assert_allclose(ratios(result), [1 - a for a in alphas], rtol=1e-12)


def test_error_norm_based():
    options = BASE.replace(line_search='error_norm', line_search_error_scale=0.5)
    result = solve(linear, np.zeros(3), options=options)
    h = [norms[0] for norms in result.history]
    expected = [0.8 * math.tanh(r / 0.5) for r in h[:-1]]  # 1 − α
    np.testing.assert_allclose(ratios(result), expected, rtol=1e-10)
    assert ratios(result)[-1] < ratios(result)[0]  # full steps near the solution


def test_backtracking_decreases_the_merit_every_iteration():
    def cubic(theta):
        t = theta[0]
        return [(np.array([-(t ** 3 - 2 * t + 2)]), np.array([[3 * t ** 2 - 2]]))]
    result = solve(cubic, np.array([0.0]),
                   options=BASE.replace(line_search='backtracking', max_iterations=20))
    h = [norms[0] for norms in result.history]
    assert all(b <= a for a, b in zip(h, h[1:]))
    assert result.evaluations > result.iterations + 1  # some steps were shortened
    # Near the local minimum of |f| (θ = sqrt(2/3), no root nearby) no α >= α_min decreases
    # the merit: the search takes no step and the solver reports a stall.
    assert result.status == 'stalled'
    assert result.theta[0] == 0.75 and result.residual_norms[0] == pytest.approx(0.921875)
    # Plain Newton cycles 0 → 1 → 0 instead.
    plain = solve(cubic, np.array([0.0]), options=BASE.replace(max_iterations=2))
    assert plain.theta[0] == pytest.approx(0.0)
