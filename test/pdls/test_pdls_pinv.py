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

"""SVD damped pseudoinverse and the automatic damping factor (Baerlocher 2001)."""
import math

import numpy as np
from pdls_ik.pdls import auto_lambda, damped_pinv
from pdls_ik.pdls.pinv import thin_svd
import pytest


def test_auto_lambda_branches():
    # d = residual / target = 0.4 / 0.2 = 2
    assert auto_lambda(0.4, 2.5, 0.2) == 0.0          # σ >= d: no damping
    assert auto_lambda(0.4, 0.5, 0.2) == 1.0          # σ <= d/2: λ = d/2
    assert auto_lambda(0.4, 1.5, 0.2) == pytest.approx(math.sqrt(1.5 * 0.5))
    assert auto_lambda(0.4, 0.5, 0.2, never_damp_sigma=0.4) == 0.0
    assert auto_lambda(0.4, 0.5, math.inf) == 0.0      # no target, no damping
    # always_damp_sigma lifts the never_damp_sigma veto; λ is the formula with the level's d
    assert auto_lambda(0.4, 0.5, 0.2, never_damp_sigma=0.4, always_damp_sigma=0.6) == 1.0
    assert auto_lambda(1e-9, 1e-4, 0.2, always_damp_sigma=1e-3) == 0.0  # σ >= d: none
    assert auto_lambda(1e-9, 1e-2, 0.2, always_damp_sigma=1e-3) == 0.0


def test_always_damp_sigma_is_the_seed_formula_not_a_raised_d():
    """
    Issue 14, finding 4: MSim applies damping iff σ < min(never, d) or σ < always, by the formula.

    σ = 0.02, d = 0.0135 / 0.5 = 0.027, never 0.005, always 0.1: λ = sqrt(σ (d − σ)) = 0.0118
    (the product used to raise d to always_damp_sigma: λ = 0.05).
    """
    lam = auto_lambda(0.0135, 0.02, 0.5, never_damp_sigma=0.005, always_damp_sigma=0.1)
    assert lam == pytest.approx(math.sqrt(0.02 * 0.007), rel=1e-12)
    assert auto_lambda(0.0135, 0.02, 0.5, never_damp_sigma=0.005) == 0.0   # vetoed without it


def test_auto_lambda_caps_every_gain_at_one_over_d():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        d = 10 ** rng.uniform(-3, 2)
        smin = d * 10 ** rng.uniform(-6, 0.5)
        lam = auto_lambda(d * 0.3, smin, 0.3)
        sigmas = smin * 10 ** rng.uniform(0, 4, 8)  # every retained σ >= σ_min
        assert np.all(sigmas / (sigmas ** 2 + lam ** 2) <= (1 / d) * (1 + 1e-12))


def test_damped_pinv_matches_normal_equations_and_moore_penrose():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 6))
    np.testing.assert_allclose(damped_pinv(A), np.linalg.pinv(A), atol=1e-13)
    lam = 0.3
    np.testing.assert_allclose(damped_pinv(A, lam),
                               A.T @ np.linalg.inv(A @ A.T + lam ** 2 * np.eye(4)), atol=1e-13)
    B = np.vstack([A[:2], A[0] + A[1]])  # rank 2
    assert np.linalg.matrix_rank(damped_pinv(B, svd_tol=1e-10)) == 2
    np.testing.assert_allclose(damped_pinv(B, svd_tol=1e-10), np.linalg.pinv(B), atol=1e-12)


def test_thin_svd_shapes_and_reconstruction():
    rng = np.random.default_rng(2)
    for shape in [(6, 7), (7, 3), (1, 5)]:
        A = rng.standard_normal(shape)
        u, s, vt = thin_svd(A)
        r = min(shape)
        assert u.shape == (shape[0], r) and s.shape == (r,) and vt.shape == (r, shape[1])
        assert np.all(np.diff(s) <= 0)
        np.testing.assert_allclose((u * s) @ vt, A, atol=1e-13)
