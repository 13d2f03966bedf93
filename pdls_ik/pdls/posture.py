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
The posture variation within what the limits leave after every level.

The posture variation v (n,) is the lowest priority: it may only move θ inside the null space
of the levels, ``c = P v`` with P the projector left by the priority loop (Baerlocher & Boulic
2004, §3). It must not cost a level anything through the limits either: the limiting loop runs
on the levels alone, so a variable is never clamped (and lost to the levels) for the posture's
sake. The posture's own contribution is then bounded by the limits that remain, by an
active-set walk along the projected direction:

    c ← 0, F ← ∅, share ← 1
    repeat
        d ← share · P_F v                          P_F: projector onto range(P) ∩ {x : x_F = 0}
        if base + c + d stays within the limits: c ← c + d, stop
        α ← largest step in [0, 1) along d that stays within them
        c ← c + α d;  F ← F ∪ {variables that reached their limit};  share ← (1 − α) share

``P_F v = P v − P[:, F] P[F, F]⁺ (P v)[F]`` (P symmetric idempotent, so ``P[F, :]⁺ P[F, :] =
P[:, F] P[F, F]⁺ P[F, :]``): c stays in range(P) — no level sees it — and every variable moves
toward its limit at most until it reaches it. A periodic variable whose end value has an image
within its limits is not bounded (as in the limiting loop, :mod:`pdls_ik.pdls.periodic`).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from numpy.typing import NDArray
from pdls_ik.pdls.periodic import turn_into_limits

#: eigenvalues of P[F, F] at or below this are zero in its pseudoinverse (a projector's are at
#: most 1, so the cut is absolute); a variable whose P_jj is at or below it cannot move
PROJECTOR_TOL = 1e-9


def posture_within_limits(proj: NDArray[np.float64], v: NDArray[np.float64],
                          base: NDArray[np.float64], lower: Optional[NDArray[np.float64]],
                          upper: Optional[NDArray[np.float64]],
                          periodic: Optional[NDArray[np.bool_]] = None) -> NDArray[np.float64]:
    """
    Return the posture contribution c (n,): P v, bounded so that base + c stays within limits.

    :param proj: (n, n) the null-space projector P left by the levels (zero rows and columns
        for the variables that may not move: fixed, clamped).
    :param v: (n,) the posture variation.
    :param base: (n,) θ + Δθ of the levels, within [lower, upper] (or a periodic image).
    :param lower, upper: (n,) limits, or None (then c = P v).
    :param periodic: (n,) bool or None, see :mod:`pdls_ik.pdls.periodic`.
    """
    c = proj @ v
    if lower is None:
        return c
    n = v.size
    total = np.zeros(n)
    frozen = np.diagonal(proj) <= PROJECTOR_TOL   # immovable: c_j is rounding
    c[frozen] = 0.0
    share = 1.0
    d = c.copy()
    for _ in range(n + 1):
        d[frozen] = 0.0
        t = base + total + d
        over, under = t > upper, t < lower
        if periodic is not None and (over.any() or under.any()):
            turned = turn_into_limits(t, lower, upper, periodic)[1]
            over &= ~turned
            under &= ~turned
        crossing = ((over & (d > 0.0)) | (under & (d < 0.0))) & ~frozen
        if not crossing.any():
            return total + d
        room = np.where(over, upper, lower)[crossing] - (base + total)[crossing]
        alphas = np.clip(room / d[crossing], 0.0, 1.0)
        alpha = float(alphas.min())
        total += alpha * d
        frozen[np.flatnonzero(crossing)[alphas <= alpha]] = True
        share *= 1.0 - alpha
        if share <= 0.0:
            break
        F = np.flatnonzero(frozen)
        w, V = np.linalg.eigh(proj[np.ix_(F, F)])
        keep = w > PROJECTOR_TOL
        z = V[:, keep] @ ((V[:, keep].T @ c[F]) / w[keep])
        d = share * (c - proj[:, F] @ z)
    return total
