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
The Gram-matrix step of the numba PDLS step (pdls_ik._accel.gram_numba) against LAPACK's SVD.

The kernels that use it are tested against the NumPy reference in test_ik_backends.py and
test_track_backends.py.
"""
from __future__ import annotations

import numpy as np
from pdls_ik._accel import available
import pytest

pytestmark = pytest.mark.skipif(not available(), reason='numba not installed (optional)')


def _damped(A, b, lam):
    """Return Σ s_i / (s_i² + λ²) (u_iᵀ b) v_i by numpy's SVD (all s_i kept): the reference."""
    u, s, vt = np.linalg.svd(A, full_matrices=False)
    return vt.T @ (s / (s ** 2 + lam ** 2) * (u.T @ b))


def _work(m, n):
    return np.empty((4, m, m)), np.zeros((4, m + n))


def _sigma_min(W, m, k, cut, Gs, vec):
    """(σ_min or -1.0: declined, ‖A‖_F²) of the level W[:, :k] by gram_factor, gram_rayleigh."""
    from pdls_ik._accel.gram_numba import gram_factor, gram_rayleigh
    trace = gram_factor(W, m, k, Gs)
    if trace < 0.0:
        return -1.0, trace
    return gram_rayleigh(Gs, min(m, k), k >= m, cut, trace, vec), trace


@pytest.mark.parametrize('k', [4, 5, 6, 7, 9])
def test_sigma_min_and_damped_step_equal_the_svd_ones_wide_and_tall(k):
    """
    σ_min to 1e-10 and the step to 1e-11 relative, for k ≥ m (A Aᵀ) and k < m (Aᵀ A).

    The certificate bounds σ_min² within CERTIFY = 1e-10 relative (σ_min within 5e-11).
    """
    from pdls_ik._accel.gram_numba import gram_solve
    rng = np.random.default_rng(k)
    m, n = 6, 9
    Gs, vec = _work(m, n)
    declined = 0
    for trial in range(40):
        A = rng.normal(size=(m, k)) * rng.uniform(0.2, 2.0, size=k)
        b = rng.normal(size=m)
        W = np.concatenate((A, b[:, None]), axis=1)
        vec[3] = 0.0             # a cold start, as each local solve's first step
        smin, trace = _sigma_min(W, m, k, 1e-9, Gs, vec)
        s_ref = np.linalg.svd(A, compute_uv=False)
        assert trace == pytest.approx(np.sum(A * A), rel=1e-13)
        if smin < 0.0:           # declined (the SVD takes the step): rare
            declined += 1
            continue
        assert smin == pytest.approx(s_ref[-1], rel=1e-10)
        for lam in (0.0, 0.3 * s_ref[-1], 2.0):
            out = np.zeros(n)
            idx = np.arange(k)[::-1].copy()      # columns land at idx[c]
            gram_solve(W, m, k, lam, Gs, vec, out, idx)
            np.testing.assert_allclose(out[idx], _damped(A, b, lam), rtol=1e-11, atol=1e-12)
    assert declined <= 2


def test_ill_conditioned_and_rank_deficient_blocks_are_declined():
    """The SVD then takes the step: near rank deficiency the Gram matrix loses ε κ²."""
    from pdls_ik._accel.gram_numba import gram_suits
    rng = np.random.default_rng(3)
    m, k = 6, 7
    Gs, vec = _work(m, k)
    for scale in (0.0, 1e-9, 1e-5):
        A = rng.normal(size=(m, k))
        A[5] = A[4] + scale * rng.normal(size=k)     # σ_min ≈ scale
        W = np.concatenate((A, rng.normal(size=(m, 1))), axis=1)
        smin, trace = _sigma_min(W, m, k, 1e-9 * np.sqrt(np.sum(A * A)), Gs, vec)
        assert smin == -1.0
    # a σ_min between the two ratios: only a saturated or fixed λ may use it
    s_set = np.array([3.0, 2.0, 2.0, 1.5, 1.0, 0.0])
    s_set[-1] = np.sqrt(3e-6 * np.sum(s_set ** 2))
    U = np.linalg.qr(rng.normal(size=(m, m)))[0]
    V = np.linalg.qr(rng.normal(size=(k, k)))[0][:, :m]
    A = U @ np.diag(s_set) @ V.T
    W = np.concatenate((A, rng.normal(size=(m, 1))), axis=1)
    smin, trace = _sigma_min(W, m, k, 1e-9, Gs, vec)
    s_ref = np.linalg.svd(A, compute_uv=False)
    assert 1e-6 * trace < s_ref[-1] ** 2 < 1e-5 * trace
    assert smin == pytest.approx(s_ref[-1], rel=1e-9)
    d = 4.0 * smin                                   # automatic λ saturated at d / 2
    assert gram_suits(smin, trace, 0.5 * d, -1.0, d) == (0.25 * d * d >= 1e-5 * trace)
    assert not gram_suits(smin, trace, 0.0, -1.0, 0.5 * smin)        # λ = 0: the SVD
    assert gram_suits(smin, trace, 1.0, 1.0, 0.0)                     # fixed λ = 1


@pytest.mark.parametrize('k', [5, 6, 7])
def test_gram_bound_certifies_exactly_the_eigenvalues_above_it(k):
    """
    gram_above(floor) holds exactly when σ_min² > floor (Sylvester's inertia).

    Bounds at 1 ± 1e-6 of σ_min² (away from rounding), across conditionings; the step it lets
    through is the SVD's, and pending_sigma later finds σ_min from the kept Gram matrix.
    """
    from pdls_ik._accel.gram_numba import (gram_above, gram_bisect_sigma, gram_factor,
                                           GRAM_MIN_RATIO)
    from pdls_ik._accel.step_numba import (LM_RANK, LM_SIGMA, pending_sigma, SIGMA_PENDING,
                                           step_work)
    rng = np.random.default_rng(100 + k)
    m, n = 6, 9
    for trial in range(30):
        A = rng.normal(size=(m, k)) * np.logspace(0, -rng.uniform(0, 3), k)
        W = np.concatenate((A, rng.normal(size=(m, 1))), axis=1)
        wk = step_work(m, n, 0)
        Gs = wk[15]
        trace = gram_factor(W, m, k, Gs)
        assert trace == pytest.approx(np.sum(A * A), rel=1e-13)
        s2 = np.linalg.svd(A, compute_uv=False)[-1] ** 2
        r = min(m, k)
        assert gram_above(Gs, r, s2 * (1.0 - 1e-6))
        assert not gram_above(Gs, r, s2 * (1.0 + 1e-6))
        if s2 < GRAM_MIN_RATIO * trace:     # the steps keep such a level off the Gram path
            continue
        lm = np.zeros((2, 3))
        lm[1, LM_RANK], lm[1, LM_SIGMA] = r, SIGMA_PENDING
        pending_sigma(lm, wk)
        assert lm[1, LM_SIGMA] == pytest.approx(np.sqrt(s2), rel=1e-9)
        # the fallback when the Rayleigh iteration does not settle
        assert gram_bisect_sigma(Gs, r) == pytest.approx(np.sqrt(s2), rel=1e-9)
