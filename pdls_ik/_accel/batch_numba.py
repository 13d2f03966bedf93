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
from pdls_ik._accel import use_sources_cache
from pdls_ik._accel.chain_numba import chain_tuple, pose_jacobian, pose_residual, turned

use_sources_cache()     # before the first cached kernel

STALL_WINDOW, STALL_RATIO = 5, 0.9  # same values as pdls_ik.ik.batch (asserted by the tests)


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
def _solve_one(q, target, ch, bounds, tolerances, options):
    """
    Solve one problem from q (n,), in place: (iterations, restarts).

    bounds = (lower, upper, sample_lo, sample_hi, free, continuous, periodic) (n,) each;
    tolerances = (position [m], orientation [rad]); options = (max_iterations, max_restarts,
    damping, min_damping).
    """
    lower, upper, sample_lo, sample_hi, free, _, periodic = bounds
    tol_p, tol_o = tolerances
    max_iterations, max_restarts, damping, min_damping = options
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
        pose_jacobian(q, ch, T, J, P)
        pose_residual(T, target, e)
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
                    not math.isnan(turned(t, lower[j], upper[j])):
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
                image = turned(t, lower[j], upper[j])
                if not math.isnan(image):
                    t = image
            q[j] = min(max(t, lower[j]), upper[j])
        iterations += 1
        local += 1
    return iterations, restarts


@numba.njit(cache=True)
def _solve_all(targets, Q, ch, bounds, tolerances, options, random_seed, out):
    """Solve every row of Q (N, n) in place; out: iterations (N,), restarts (N,), errors (N, 2)."""
    lower, upper, _, _, _, continuous, _ = bounds
    iterations, restarts, errors = out
    n = Q.shape[1]
    T, P, J, e = np.empty((4, 4)), np.empty((4, 4)), np.empty((6, n)), np.empty(6)
    for i in range(Q.shape[0]):
        np.random.seed(random_seed + i)
        q = Q[i]
        it, rs = _solve_one(q, targets[i], ch, bounds, tolerances, options)
        iterations[i], restarts[i] = it, rs
        # the returned q as pdls_ik.ik.batch.check_solutions makes it: wrapped, clipped, measured
        for j in range(n):
            if continuous[j]:
                q[j] = (q[j] + math.pi) % (2.0 * math.pi) - math.pi
            q[j] = min(max(q[j], lower[j]), upper[j])
        pose_jacobian(q, ch, T, J, P)
        pose_residual(T, targets[i], e)
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
    bounds = (ch.lower, ch.upper, ch.sample_lo, ch.sample_hi, ch.free, ch.continuous, ch.periodic)
    _solve_all(np.ascontiguousarray(targets), q, chain_tuple(ch), bounds, (tol_p, tol_o),
               (max_iterations, max_restarts, damping, min_damping), random_seed,
               (iterations, restarts, errors))
    return q, iterations, restarts, errors[:, 0], errors[:, 1]
