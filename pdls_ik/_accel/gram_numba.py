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
The damped least-squares step of one full-rank level from its Gram matrix (numba).

The PDLS step of a level A (m, k) with residual ê (m,) is Σ_i s_i / (s_i² + λ²) (u_iᵀ ê) v_i
over the singular values above the rank cut, λ from the smallest of them
(:func:`pdls_ik.pdls.pinv.auto_lambda`). When every singular value is above the cut (rank
r = min(m, k)), that sum is the closed form Aᵀ (A Aᵀ + λ² I)⁻¹ ê (k ≥ m) or
(Aᵀ A + λ² I)⁻¹ Aᵀ ê (k < m): a Cholesky factorization of the r × r Gram matrix G instead of a
Jacobi SVD of A (about 50 rotations of a 6 × 8 block, 5–6 sweeps even when warm started;
this costs a fraction of it).

σ_min² is the smallest eigenvalue of G, found by Rayleigh quotient iteration warm started from
the previous step's vector, with shifts kept below λ_min (each shift μ is accepted only when
G − μ I factors), and certified: G − ρ (1 − :data:`CERTIFY`) I must factor (Sylvester's
inertia: no eigenvalue below ρ (1 − CERTIFY), so ρ is the smallest to that relative precision,
and ρ ≥ λ_min by Rayleigh). The error of the Gram matrix grows as κ(A)²: for an ill-conditioned
A (κ ≳ 300, :data:`GRAM_MIN_RATIO`), a σ_min at the rank cut, or an iteration that does not settle,
:func:`gram_rayleigh` declines and the caller runs the Jacobi SVD (the same step to rounding).
Most steps need only bounds on σ_min: that the Gram matrix suits the step, and (automatic λ,
d = ‖ê‖ / θ_diff_max_mag) that σ_min ≥ d, so λ = 0, or that σ_min ≤ d / 2, so λ = d / 2. One
or three more Cholesky factorizations certify them (:func:`gram_above`), and the Rayleigh
iteration runs only when σ_min lies between (λ = √(σ_min (d − σ_min))) or near the floor, or
once for the σ_min reported of a solve's last step.
"""
from __future__ import annotations

import math

import numba
from pdls_ik._accel import use_sources_cache

use_sources_cache()     # before the first cached kernel

#: relative shift of the certificate: σ_min² is known to within this (σ_min to half of it)
CERTIFY = 1e-10
#: Rayleigh quotient iterations at most before declining
MAX_INVERSE_ITERATIONS = 12
#: the Gram matrix solves a step where (σ_min² + λ²) ≥ GRAM_MIN_RATIO ‖A‖_F²: its rounding error,
#: ε (σ_max² + λ²) / (σ_min² + λ²), then stays below 1e-11 of the step (the SVD's: ε κ). With
#: σ_min² < GRAM_MIN_RATIO ‖A‖_F², only where λ does not depend on σ_min (fixed, or saturated at
#: d / 2), and σ_min² ≥ GRAM_SIGMA_RATIO ‖A‖_F²: σ_min (a reported metric) then has a relative
#: error below 1e-10 (ε ‖A‖_F² / 2σ_min²)
GRAM_MIN_RATIO, GRAM_SIGMA_RATIO = 1e-5, 1e-6


@numba.njit(cache=True, inline='always')
def cholesky(Gs, r, shift, f):
    """
    Factor Gs[0, :r, :r] − shift I = L Lᵀ into L = Gs[f] (lower); False if a pivot is not > 0.

    Sylvester's inertia: it succeeds exactly when every eigenvalue is above ``shift`` (to
    rounding). L's diagonal is stored inverted (1 / L_jj): the solves multiply where they would
    divide (a division's latency, on the critical path of these short loops, was a tenth of the
    one-shot kernel's time). Matrices are indexed in the work array Gs (no views: each costs two
    atomic reference count changes in a kernel).
    """
    for j in range(r):
        acc = Gs[0, j, j] - shift
        for c in range(j):
            acc -= Gs[f, j, c] * Gs[f, j, c]
        if not acc > 0.0:
            return False
        inv = 1.0 / math.sqrt(acc)
        Gs[f, j, j] = inv
        for i in range(j + 1, r):
            acc = Gs[0, i, j]
            for c in range(j):
                acc -= Gs[f, i, c] * Gs[f, j, c]
            Gs[f, i, j] = acc * inv
    return True


@numba.njit(cache=True, inline='always')
def cholesky_solve(Gs, f, r, vec, b, x):
    """vec[x, :r] = (L Lᵀ)⁻¹ vec[b, :r], L = Gs[f] (:func:`cholesky`); x may be b."""
    for i in range(r):
        acc = vec[b, i]
        for c in range(i):
            acc -= Gs[f, i, c] * vec[x, c]
        vec[x, i] = acc * Gs[f, i, i]
    for i in range(r - 1, -1, -1):
        acc = vec[x, i]
        for c in range(i + 1, r):
            acc -= Gs[f, c, i] * vec[x, c]
        vec[x, i] = acc * Gs[f, i, i]


@numba.njit(cache=True, inline='always')
def gram_factor(A, m, k, Gs):
    """
    Form the Gram matrix G of A[:, :k] (m, k) into Gs[0] and factor it into Gs[1].

    G = A Aᵀ (r = m) when k ≥ m, else Aᵀ A (r = k). Returns ‖A‖_F² (the trace of G), or -1.0
    when G is not positive definite (the level lacks full rank: the caller runs the SVD).
    """
    wide = k >= m
    r = m if wide else k
    trace = 0.0
    for i in range(r):
        for j in range(i + 1):
            acc = 0.0
            if wide:
                for c in range(k):
                    acc += A[i, c] * A[j, c]
            else:
                for c in range(m):
                    acc += A[c, i] * A[c, j]
            Gs[0, i, j] = Gs[0, j, i] = acc
        trace += Gs[0, i, i]
    return trace if cholesky(Gs, r, 0.0, 1) else -1.0


@numba.njit(cache=True, inline='always')
def gram_above(Gs, r, floor):
    """
    Tell whether every eigenvalue of G = Gs[0, :r, :r] exceeds ``floor`` (σ_min² > floor).

    Sylvester's inertia: G − floor I factors (into the spare Gs[2]). One Cholesky instead of the
    Rayleigh iterations of :func:`gram_rayleigh`, when only a bound on σ_min decides the step.
    """
    return cholesky(Gs, r, floor, 2)


@numba.njit(cache=True)
def gram_bisect_sigma(Gs, r):
    """
    Return σ_min = √λ_min of G = Gs[0, :r, :r] (positive definite) by bisection, to 1e-13.

    Sylvester's inertia: λ_min > μ exactly when G − μ I factors (:func:`gram_above`); λ_min is
    at most G's smallest diagonal entry. About 45 Cholesky factorizations, no allocation: the
    fallback when :func:`gram_rayleigh` does not settle.
    """
    low, high = 0.0, Gs[0, 0, 0]
    for i in range(1, r):
        high = min(high, Gs[0, i, i])
    while high - low > 1e-13 * high:
        mid = 0.5 * (low + high)
        if gram_above(Gs, r, mid):
            low = mid
        else:
            high = mid
    return math.sqrt(low)


@numba.njit(cache=True, inline='always')
def gram_rayleigh(Gs, r, wide, cut, trace, vec):
    """
    Smallest singular value of a full-rank level from its Gram matrix G (r, r) and its factor.

    G and its factor are in Gs[0], Gs[1] (:func:`gram_factor`).

    :param wide: G = A Aᵀ (else Aᵀ A); cut: rank cut on the singular values; trace: ‖A‖_F².
    :param Gs: (4, m, m) work: G, its factor L, two spares; vec: (4, m + n) work, row 3 the
        last iteration vector (zero: start cold); see :func:`pdls_ik._accel.step_numba.step_work`.
    :return: σ_min, or -1.0 when the step needs the SVD (G and L are kept for
        :func:`gram_solve`; whether its conditioning suits the step: :func:`gram_suits`).
    """
    X, Y, GX, WARM = 3, 0, 1, 3
    # Rayleigh quotient iteration with safe shifts μ < λ_min: y = (G − μ I)⁻¹ x, x = y / ‖y‖,
    # ρ = xᵀ G x, r = ‖G x − ρ x‖; an eigenvalue lies within r of ρ, and ρ ≥ λ_min
    acc = 0.0
    for i in range(r):
        acc += vec[WARM, i] * vec[WARM, i]
    if not (wide and acc > 0.0):          # cold: a fixed start (deterministic)
        for i in range(r):
            vec[X, i] = (1.0 if i % 2 == 0 else -1.0) / math.sqrt(r)
    F, mu = 1, 0.0
    for _ in range(MAX_INVERSE_ITERATIONS):
        cholesky_solve(Gs, F, r, vec, X, Y)
        yy = 0.0
        for i in range(r):
            yy += vec[Y, i] * vec[Y, i]
        inv = 1.0 / math.sqrt(yy)
        rho = 0.0
        for i in range(r):
            vec[X, i] = vec[Y, i] * inv
        for i in range(r):
            acc = 0.0
            for j in range(r):
                acc += Gs[0, i, j] * vec[X, j]
            vec[GX, i] = acc
            rho += vec[X, i] * acc
        res = 0.0
        for i in range(r):
            res += (vec[GX, i] - rho * vec[X, i]) ** 2
        res = math.sqrt(res)
        floor = rho * (1.0 - CERTIFY)
        if floor <= cut * cut or rho < GRAM_SIGMA_RATIO * trace:
            break
        spare = 3 if F == 2 else 2
        if cholesky(Gs, r, floor, spare):       # certified: λ_min ∈ (floor, ρ]
            if not wide:        # a vector of the column space: no start for the next row one
                for i in range(r):
                    vec[WARM, i] = 0.0
            return math.sqrt(rho)
        shift = rho - 1.01 * res
        if mu < shift < rho and cholesky(Gs, r, shift, spare):
            F, mu = spare, shift
    for i in range(vec.shape[1]):
        vec[WARM, i] = 0.0
    return -1.0


@numba.njit(cache=True, inline='always')
def gram_suits(smin, trace, lam, lam_fixed, d):
    """
    Tell whether the Gram matrix may solve a step (:data:`GRAM_MIN_RATIO`).

    smin: σ_min; trace: ‖A‖_F²; lam: the step's λ; lam_fixed ≥ 0: λ is fixed; d: the residual ÷
    step bound that the automatic λ aims at.
    """
    if smin * smin >= GRAM_MIN_RATIO * trace:
        return True
    return (lam_fixed >= 0.0 or smin <= 0.5 * d) and lam * lam >= GRAM_MIN_RATIO * trace


@numba.njit(cache=True, inline='always')
def gram_solve(A, m, k, lam, Gs, vec, out, idx):
    """
    Add the step Σ s_i / (s_i² + λ²) (u_iᵀ ê) v_i of the level A[:, :k], ê = A[:, k].

    After :func:`gram_factor` succeeded on A (all s_i kept): out[idx[c]] += step[c] for the
    k columns c.
    """
    Y, B = 0, 1
    wide = k >= m
    r = m if wide else k
    F = 1
    if lam > 0.0:
        cholesky(Gs, r, -lam * lam, 2)     # G + λ² I: definite
        F = 2
    if wide:            # Aᵀ (A Aᵀ + λ² I)⁻¹ ê
        for i in range(m):
            vec[B, i] = A[i, k]
        cholesky_solve(Gs, F, m, vec, B, Y)
        for c in range(k):
            acc = 0.0
            for i in range(m):
                acc += A[i, c] * vec[Y, i]
            out[idx[c]] += acc
    else:               # (Aᵀ A + λ² I)⁻¹ Aᵀ ê
        for c in range(k):
            acc = 0.0
            for i in range(m):
                acc += A[i, c] * A[i, k]
            vec[B, c] = acc
        cholesky_solve(Gs, F, k, vec, B, Y)
        for c in range(k):
            out[idx[c]] += vec[Y, c]
