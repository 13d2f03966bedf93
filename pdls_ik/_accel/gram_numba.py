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
:func:`gram_sigma_min` declines and the caller runs the Jacobi SVD (the same step to rounding).
"""
from __future__ import annotations

import math

import numba

#: relative shift of the certificate: σ_min² is known to within this (σ_min to half of it)
CERTIFY = 1e-10
#: Rayleigh quotient iterations at most before declining
MAX_INVERSE_ITERATIONS = 12
#: the Gram matrix is used only where σ_min² ≥ GRAM_MIN_RATIO ‖A‖_F² (κ(A) ≲ 300): its rounding
#: error, ε κ², then stays below 1e-11 of the step (the SVD's is ε κ)
GRAM_MIN_RATIO = 1e-5


@numba.njit(cache=True, inline='always')
def cholesky(G, r, shift, L):
    """
    Factor G[:r, :r] − shift I = L Lᵀ (lower L[:r, :r]); False if a pivot is not > 0.

    Sylvester's inertia: it succeeds exactly when every eigenvalue is above ``shift`` (to
    rounding).
    """
    for j in range(r):
        acc = G[j, j] - shift
        for c in range(j):
            acc -= L[j, c] * L[j, c]
        if not acc > 0.0:
            return False
        d = math.sqrt(acc)
        L[j, j] = d
        for i in range(j + 1, r):
            acc = G[i, j]
            for c in range(j):
                acc -= L[i, c] * L[j, c]
            L[i, j] = acc / d
    return True


@numba.njit(cache=True, inline='always')
def cholesky_solve(L, r, b, x):
    """x[:r] = (L Lᵀ)⁻¹ b[:r] (forward then back substitution); x may be b."""
    for i in range(r):
        acc = b[i]
        for c in range(i):
            acc -= L[i, c] * x[c]
        x[i] = acc / L[i, i]
    for i in range(r - 1, -1, -1):
        acc = x[i]
        for c in range(i + 1, r):
            acc -= L[c, i] * x[c]
        x[i] = acc / L[i, i]


@numba.njit(cache=True, inline='always')
def gram_sigma_min(A, m, k, cut, work):
    """
    Smallest singular value of A[:, :k] (m, k) from its Gram matrix, if the level has full rank.

    :param cut: rank cut on the singular values.
    :param work: (G, L, two spares) (4, m, m), vectors (3, m + n), warm (m,): the last
        iteration vector (zero: start cold); see :func:`pdls_ik._accel.step_numba.step_work`.
    :return: σ_min, or -1.0 when the step needs the SVD (G[:r, :r] and its factor L are kept
        for :func:`gram_solve`).
    """
    Gs, vec, warm = work
    G = Gs[0]
    y, gx = vec[0], vec[1]
    L = 1
    wide = k >= m
    r = m if wide else k
    for i in range(r):
        for j in range(i + 1):
            acc = 0.0
            if wide:
                for c in range(k):
                    acc += A[i, c] * A[j, c]
            else:
                for c in range(m):
                    acc += A[c, i] * A[c, j]
            G[i, j] = G[j, i] = acc
    trace = 0.0
    for i in range(r):
        trace += G[i, i]
    if not cholesky(G, r, 0.0, Gs[L]):
        return -1.0
    # Rayleigh quotient iteration with safe shifts μ < λ_min: y = (G − μ I)⁻¹ x, x = y / ‖y‖,
    # ρ = xᵀ G x, r = ‖G x − ρ x‖; an eigenvalue lies within r of ρ, and ρ ≥ λ_min
    acc = 0.0
    for i in range(r):
        acc += warm[i] * warm[i]
    if not (wide and acc > 0.0):          # cold: a fixed start (deterministic)
        for i in range(r):
            warm[i] = (1.0 if i % 2 == 0 else -1.0) / math.sqrt(r)
    F, mu = L, 0.0
    for _ in range(MAX_INVERSE_ITERATIONS):
        cholesky_solve(Gs[F], r, warm, y)
        yy = 0.0
        for i in range(r):
            yy += y[i] * y[i]
        inv = 1.0 / math.sqrt(yy)
        rho = 0.0
        for i in range(r):
            warm[i] = y[i] * inv
        for i in range(r):
            acc = 0.0
            for j in range(r):
                acc += G[i, j] * warm[j]
            gx[i] = acc
            rho += warm[i] * acc
        res = 0.0
        for i in range(r):
            res += (gx[i] - rho * warm[i]) ** 2
        res = math.sqrt(res)
        floor = rho * (1.0 - CERTIFY)
        if floor <= cut * cut or rho < GRAM_MIN_RATIO * trace:
            break
        spare = 3 if F == 2 else 2
        if cholesky(G, r, floor, Gs[spare]):       # certified: λ_min ∈ (floor, ρ]
            return math.sqrt(rho)
        shift = rho - 1.01 * res
        if mu < shift < rho and cholesky(G, r, shift, Gs[spare]):
            F, mu = spare, shift
    warm[:] = 0.0
    return -1.0


@numba.njit(cache=True, inline='always')
def gram_solve(A, m, k, lam, work):
    """
    Step Σ s_i / (s_i² + λ²) (u_iᵀ ê) v_i of the level A[:, :k], ê = A[:, k], all s_i kept.

    After :func:`gram_sigma_min` succeeded on A; the step (k,) lands in work's vectors[2].
    """
    Gs, vec, _ = work
    G, L, L2 = Gs[0], Gs[1], Gs[2]
    y, b, out = vec[0], vec[1], vec[2]
    wide = k >= m
    r = m if wide else k
    F = L
    if lam > 0.0:
        if not cholesky(G, r, -lam * lam, L2):       # cannot fail: G + λ² I is definite
            raise ValueError('gram_solve: G + lambda^2 I not positive definite')
        F = L2
    if wide:            # Aᵀ (A Aᵀ + λ² I)⁻¹ ê
        for i in range(m):
            b[i] = A[i, k]
        cholesky_solve(F, m, b, y)
        for c in range(k):
            acc = 0.0
            for i in range(m):
                acc += A[i, c] * y[i]
            out[c] = acc
    else:               # (Aᵀ A + λ² I)⁻¹ Aᵀ ê
        for c in range(k):
            acc = 0.0
            for i in range(m):
                acc += A[i, c] * A[i, k]
            b[c] = acc
        cholesky_solve(F, k, b, out)
