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
Numba kernel of :func:`pdls_ik.ik.batch.solve_batch`: the same iteration, compiled per problem.

Per iteration: chain forward kinematics and Jacobian in one pass (prefix products of the joint
transforms, columns [a × (t − p); a]), the pose residual with a closed-form SO(3) log, the
error-damped least-squares step Jᵀ(JJᵀ + μI)⁻¹e by a 6 × 6 Cholesky solve, one limiting pass
(a periodic variable whose target has an image within the limits is not held), the periodic
variables turned onto that image, clipping into the limits, and the stall / iteration-budget
restarts from random in-limit seeds.
See :mod:`pdls_ik.ik.batch` for the mathematics; this file must stay its exact transcription.
"""
from __future__ import annotations

import math

import numba
import numpy as np

STALL_WINDOW, STALL_RATIO = 5, 0.9  # same values as pdls_ik.ik.batch (asserted by the tests)
TWO_PI = 2.0 * math.pi


@numba.njit(cache=True)
def _turned(t, lower, upper):
    """:func:`pdls_ik.pdls.periodic.turn_into_limits` of one value: its image or NaN (none)."""
    image = t + TWO_PI * math.ceil((lower - t) / TWO_PI)
    return image if image <= upper else math.nan


@numba.njit(cache=True, fastmath=False)
def _pose_jacobian(q, basis, qidx, mult, offset, start, end, axis, revolute, select, T, J, P):
    m = basis.shape[0]
    n = q.shape[0]
    for r in range(4):
        for c in range(4):
            P[r, c] = start[r, c]
    pts = np.empty((m, 3))
    axs = np.empty((m, 3))
    A = np.empty(16)
    tmp = np.empty((4, 4))
    for k in range(m):
        th = (q[qidx[k]] if qidx[k] < n else 0.0) * mult[k] + offset[k]
        s, c1 = math.sin(th), 1.0 - math.cos(th)
        for i in range(16):
            A[i] = basis[k, 0, i] + s * basis[k, 1, i] + c1 * basis[k, 2, i] + th * basis[k, 3, i]
        for r in range(3):
            for c in range(4):
                tmp[r, c] = (P[r, 0] * A[c] + P[r, 1] * A[4 + c] + P[r, 2] * A[8 + c]
                             + P[r, 3] * A[12 + c])
        for r in range(3):
            for c in range(4):
                P[r, c] = tmp[r, c]
        for r in range(3):
            pts[k, r] = P[r, 3]
            axs[k, r] = P[r, 0] * axis[k, 0] + P[r, 1] * axis[k, 1] + P[r, 2] * axis[k, 2]
    for r in range(3):
        for c in range(4):
            T[r, c] = P[r, 0] * end[0, c] + P[r, 1] * end[1, c] + P[r, 2] * end[2, c] \
                + P[r, 3] * end[3, c]
    T[3, 0] = T[3, 1] = T[3, 2] = 0.0
    T[3, 3] = 1.0
    J[:, :] = 0.0
    for k in range(m):
        a0, a1, a2 = axs[k, 0], axs[k, 1], axs[k, 2]
        if revolute[k]:
            d0, d1, d2 = T[0, 3] - pts[k, 0], T[1, 3] - pts[k, 1], T[2, 3] - pts[k, 2]
            col = (a1 * d2 - a2 * d1, a2 * d0 - a0 * d2, a0 * d1 - a1 * d0, a0, a1, a2)
        else:
            col = (a0, a1, a2, 0.0, 0.0, 0.0)
        for j in range(n):
            w = select[k, j]
            if w != 0.0:
                for r in range(6):
                    J[r, j] += w * col[r]


@numba.njit(cache=True)
def _residual(T, target, e):
    for i in range(3):
        e[i] = target[i, 3] - T[i, 3]
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = target[i, 0] * T[j, 0] + target[i, 1] * T[j, 1] + target[i, 2] * T[j, 2]
    s0 = 0.5 * (R[2, 1] - R[1, 2])
    s1 = 0.5 * (R[0, 2] - R[2, 0])
    s2 = 0.5 * (R[1, 0] - R[0, 1])
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    sn = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    angle = math.atan2(sn, c)
    if c < 0.0 and sn < 1e-3:  # near π: axis from the symmetric part, sign from the skew part
        best = 0
        for i in range(3):
            if R[i, i] > R[best, best]:
                best = i
        v = np.empty(3)
        for i in range(3):
            v[i] = 0.5 * (R[i, best] + R[best, i])
        v[best] = R[best, best] - c  # symmetric part = c I + (1 − c) a aᵀ
        norm = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        sgn = 1.0 if v[0] * s0 + v[1] * s1 + v[2] * s2 >= 0.0 else -1.0
        for i in range(3):
            e[3 + i] = sgn * angle * v[i] / norm
        return
    k = angle / sn if sn > 1e-12 else 1.0
    e[3], e[4], e[5] = k * s0, k * s1, k * s2


@numba.njit(cache=True)
def _dls(J, e, mu, active, out):
    """Write Jₐᵀ (Jₐ Jₐᵀ + μ I)⁻¹ e to out, Jₐ the columns of J where active (6 × 6 Cholesky)."""
    n = J.shape[1]
    A = np.zeros((6, 6))
    for i in range(6):
        for j in range(i + 1):
            acc = 0.0
            for k in range(n):
                if active[k]:
                    acc += J[i, k] * J[j, k]
            A[i, j] = acc
        A[i, i] += mu
    L = np.zeros((6, 6))
    for i in range(6):
        for j in range(i + 1):
            acc = A[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            if i == j:
                L[i, i] = math.sqrt(acc) if acc > 0.0 else 1e-300
            else:
                L[i, j] = acc / L[j, j]
    y = np.empty(6)
    for i in range(6):
        acc = e[i]
        for k in range(i):
            acc -= L[i, k] * y[k]
        y[i] = acc / L[i, i]
    for i in range(5, -1, -1):
        acc = y[i]
        for k in range(i + 1, 6):
            acc -= L[k, i] * y[k]
        y[i] = acc / L[i, i]
    for k in range(n):
        acc = 0.0
        if active[k]:
            for i in range(6):
                acc += J[i, k] * y[i]
        out[k] = acc


@numba.njit(cache=True)
def _solve_one(q, target, basis, qidx, mult, offset, start, end, axis, revolute, select, lower,
               upper, sample_lo, sample_hi, free, periodic, tol_p, tol_o, max_iterations,
               max_restarts, damping, min_damping):
    n = q.shape[0]
    T = np.empty((4, 4))
    P = np.zeros((4, 4))
    J = np.empty((6, n))
    e = np.empty(6)
    e2 = np.empty(6)
    dq = np.empty(n)
    dq2 = np.empty(n)
    fixed = np.zeros(n)
    everyone = np.ones(n, dtype=np.bool_)
    unclamped = np.ones(n, dtype=np.bool_)
    history = np.empty(STALL_WINDOW)
    iterations = 0
    restarts = 0
    local = 0
    while True:
        _pose_jacobian(q, basis, qidx, mult, offset, start, end, axis, revolute, select, T, J, P)
        _residual(T, target, e)
        pos = math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
        ori = math.sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5])
        if pos <= tol_p and ori <= tol_o:
            break
        merit = 0.5 * (pos * pos + ori * ori)
        slot = local % STALL_WINDOW
        stalled = local >= STALL_WINDOW and merit > STALL_RATIO * history[slot]
        history[slot] = merit
        if stalled or local >= max_iterations:
            if restarts >= max_restarts:
                break
            for j in range(n):
                if free[j]:
                    q[j] = np.random.uniform(sample_lo[j], sample_hi[j])
            restarts += 1
            local = 0
            continue
        mu = damping * merit + min_damping
        _dls(J, e, mu, everyone, dq)
        hit = False
        for j in range(n):
            t = q[j] + dq[j]
            unclamped[j] = True
            fixed[j] = 0.0
            if periodic[j] and (t > upper[j] or t < lower[j]) and \
                    not math.isnan(_turned(t, lower[j], upper[j])):
                continue  # goes through the limit onto its image: not held
            if t > upper[j]:
                fixed[j], unclamped[j], hit = upper[j] - q[j], False, True
            elif t < lower[j]:
                fixed[j], unclamped[j], hit = lower[j] - q[j], False, True
        if hit:
            for r in range(6):
                acc = e[r]
                for j in range(n):
                    acc -= J[r, j] * fixed[j]
                e2[r] = acc
            _dls(J, e2, mu, unclamped, dq2)
            for j in range(n):
                dq[j] = fixed[j] + dq2[j]
        for j in range(n):
            t = q[j] + dq[j]
            if periodic[j] and (t > upper[j] or t < lower[j]):
                image = _turned(t, lower[j], upper[j])
                if not math.isnan(image):
                    t = image
            q[j] = min(max(t, lower[j]), upper[j])
        iterations += 1
        local += 1
    return iterations, restarts


@numba.njit(cache=True)
def _solve_all(targets, Q, basis, qidx, mult, offset, start, end, axis, revolute, select, lower,
               upper, sample_lo, sample_hi, free, continuous, periodic, tol_p, tol_o,
               max_iterations, max_restarts, damping, min_damping, random_seed, iterations,
               restarts, errors):
    n = Q.shape[1]
    T, P, J, e = np.empty((4, 4)), np.empty((4, 4)), np.empty((6, n)), np.empty(6)
    for i in range(Q.shape[0]):
        np.random.seed(random_seed + i)
        q = Q[i]
        it, rs = _solve_one(q, targets[i], basis, qidx, mult, offset, start, end, axis,
                            revolute, select, lower, upper, sample_lo, sample_hi, free,
                            periodic, tol_p, tol_o, max_iterations, max_restarts, damping,
                            min_damping)
        iterations[i], restarts[i] = it, rs
        # the returned q as pdls_ik.ik.batch.check_solutions makes it: wrapped, clipped, measured
        for j in range(n):
            if continuous[j]:
                q[j] = (q[j] + math.pi) % (2.0 * math.pi) - math.pi
            q[j] = min(max(q[j], lower[j]), upper[j])
        _pose_jacobian(q, basis, qidx, mult, offset, start, end, axis, revolute, select, T, J, P)
        _residual(T, targets[i], e)
        errors[i, 0] = math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
        errors[i, 1] = math.sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5])


def solve_many(ch, targets, q, tol_p, tol_o, max_iterations, max_restarts, damping,
               min_damping, random_seed):
    """
    Solve every problem (see :func:`pdls_ik.ik.batch.solve_batch`).

    Returns (q (N, n) wrapped and clipped, iterations (N,), restarts (N,), position error (N,)
    [m], orientation error (N,) [rad]), as ``check_solutions`` would measure them.
    """
    N = q.shape[0]
    q = np.ascontiguousarray(q, dtype=float)
    iterations = np.zeros(N, dtype=np.int64)
    restarts = np.zeros(N, dtype=np.int64)
    errors = np.empty((N, 2))
    _solve_all(np.ascontiguousarray(targets), q, ch.basis, ch.qidx, ch.multiplier, ch.offset,
               ch.start, ch.end, ch.axis, ch.revolute, ch.select, ch.lower, ch.upper,
               ch.sample_lo, ch.sample_hi, ch.free, ch.continuous, ch.periodic, tol_p, tol_o,
               max_iterations, max_restarts, damping, min_damping, random_seed, iterations,
               restarts, errors)
    return q, iterations, restarts, errors[:, 0], errors[:, 1]
