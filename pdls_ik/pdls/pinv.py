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
Damped pseudoinverse by SVD and the automatic damping factor λ.

For a matrix A (m, n) with thin SVD ``A = U diag(σ) Vᵀ``, the damped least-squares solution of
``A x = b`` is ``x = Σ_i σ_i / (σ_i² + λ²) (u_iᵀ b) v_i = Aᵀ(AAᵀ + λ²I)⁻¹ b`` (Wampler 1986;
Nakamura & Hanafusa 1986). Singular values at or below a tolerance are treated as zero: they
decide the rank and are left out of the sum, so λ = 0 gives the Moore–Penrose pseudoinverse of
the rank-truncated matrix. :func:`damped_pinv` takes that tolerance as given; the PDLS step makes
it relative to each level's scale (``svd_tol · ‖J_k‖_F``, :mod:`pdls_ik.pdls.step`).
"""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np
from numpy.typing import NDArray

try:  # LAPACK's divide-and-conquer SVD without numpy.linalg's per-call overhead (about 2x).
    from scipy.linalg.lapack import dgesdd as _dgesdd
except ImportError:  # pragma: no cover - scipy is optional for this package
    _dgesdd = None


def thin_svd(a: NDArray[np.float64]) -> Tuple[NDArray, NDArray, NDArray]:
    """
    Thin SVD ``a = U diag(s) Vt`` of a finite matrix (m, n): U (m, r), s (r,), Vt (r, n).

    ``r = min(m, n)``, s sorted in decreasing order. Uses LAPACK dgesdd and falls back to
    numpy's SVD if it reports no convergence.
    """
    if _dgesdd is not None:
        u, s, vt, info = _dgesdd(a, compute_uv=1, full_matrices=0)
        if info == 0:
            return u, s, vt
    return np.linalg.svd(a, full_matrices=False)


def auto_lambda(residual_mag: float, min_sigma: float, target_mag: float,
                never_damp_sigma: float = math.inf, always_damp_sigma: float = 0.0) -> float:
    """
    Automatic damping factor λ of one level (Baerlocher 2001, after Maciejewski & Klein 1988).

    With ``d = residual_mag / target_mag`` (the smallest singular value that moves the residual
    ``residual_mag`` with a variation no larger than ``target_mag``)::

        λ = 0                      if σ_min >= d
            d / 2                  if σ_min <= d / 2
            sqrt(σ_min (d − σ_min)) otherwise

    which caps every gain σ/(σ² + λ²) at 1/d, hence ‖Δθ‖ <= target_mag. As MSim's
    ``vona.math.PDLS``, damping applies iff ``σ_min < min(never_damp_sigma, d)`` or ``σ_min <
    always_damp_sigma``, and its amount is always the formula above: ``always_damp_sigma`` lifts
    the ``never_damp_sigma`` veto, it never raises d (so σ_min >= d still gives λ = 0).

    :param residual_mag: norm of the (clamped) compensated residual of the level.
    :param min_sigma: smallest singular value of the restricted Jacobian above the rank
        tolerance.
    :param target_mag: ``theta_diff_max_mag * auto_lambda_theta_diff_max_mag_scale``.
    """
    d = residual_mag / target_mag if target_mag < math.inf else 0.0
    if min_sigma >= d or (min_sigma >= never_damp_sigma and min_sigma >= always_damp_sigma):
        return 0.0
    if min_sigma <= 0.5 * d:
        return 0.5 * d
    return math.sqrt(min_sigma * (d - min_sigma))


def damped_pinv(a: NDArray[np.float64], lam: float = 0.0,
                svd_tol: float = 0.0) -> NDArray[np.float64]:
    """Damped pseudoinverse ``Vᵣ diag(σ/(σ²+λ²)) Uᵣᵀ`` (n, m) of a (m, n); rank by ``svd_tol``."""
    u, s, vt = thin_svd(np.asarray(a, dtype=float))
    r = int(np.count_nonzero(s > svd_tol))
    g = s[:r] / (s[:r] ** 2 + lam * lam)
    return (vt[:r].T * g) @ u[:, :r].T
