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
The PDLS step of the numba kernels: :func:`pdls_ik.pdls.step.compute_step` for their levels.

The levels IKSolver builds without extra tasks: joint locks (if any) > the pose > the posture
in the null space of both. The lock level is a weighted selection of joints, J = w S: its
damped least-squares step is the closed form ``Δθ_j = w ê_j / (w² + λ²)`` on each unclamped
locked joint, and its null-space projector removes those columns, so that the pose level is
solved on the other joints with the lock step as a fixed motion (Baerlocher & Boulic 2004, §3:
the priority loop with compensated residual). The pose level is solved, when it has full rank and
no posture follows, from its Gram matrix (:mod:`pdls_ik._accel.gram_numba`: Cholesky and a
certified σ_min, the same step to rounding), else by the SVD of its active columns (one-sided
Jacobi, :func:`jacobi_rows`, started from the U of the previous SVD), with automatic λ
(:func:`pdls_ik.pdls.pinv.auto_lambda`, Baerlocher 2001) or a fixed λ; the posture is projected
by I − Σ v_i v_iᵀ over its kept right singular vectors. Then the limiting loop
(Baerlocher & Boulic 2004, §4; periodic variables turned through their limits as
:mod:`pdls_ik.pdls.periodic` does), Δθ clamping and the exact stay inside the limits.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from pdls_ik._accel import use_sources_cache
from pdls_ik._accel.chain_numba import turned
from pdls_ik._accel.gram_numba import (gram_above, gram_bisect_sigma, gram_factor, GRAM_MIN_RATIO,
                                       gram_rayleigh, gram_solve, gram_suits)
from pdls_ik.pdls.pgs import ZERO_COLUMN
from pdls_ik.pdls.posture import PROJECTOR_TOL
from pdls_ik.pdls.solve import BEST_TIE_ATOL, BEST_TIE_RTOL

use_sources_cache()     # before the first cached kernel


def _borrowing():
    """Return numba's option that compiles without reference counting, if it has it."""
    try:
        from numba.core.options import DefaultOptions
    except ImportError:         # pragma: no cover - numba reorganized
        return {}
    return {'_nrt': False} if hasattr(DefaultOptions, '_nrt') else {}


#: options of :func:`numba.njit` for a kernel that only borrows arrays (its caller owns them):
#: compiled without numba's reference counting, whose atomic increments and decrements of every
#: array bound to a name, passed on or taken from a tuple took a third of the one-shot solve's
#: CPU time (perf). Such a kernel, and what it calls, may allocate no array and return none:
#: numba refuses to compile it otherwise ("NRT required but not enabled"). ``_nrt`` is a target
#: option of numba (``numba.core.options.DefaultOptions``); a numba without it compiles as usual.
BORROWING = _borrowing()

#: per-level metrics of a step, rows (lock level, pose level): λ, rank, σ_min
LM_LAMBDA, LM_RANK, LM_SIGMA = range(3)
#: the pose level's σ_min of a Gram step that did not need it: :func:`pending_sigma` finds it
#: from the Gram matrix kept in the step work, when the step turns out to be the last
SIGMA_PENDING = -2.0


@numba.njit(cache=True, inline='always')
def _auto_lambda(residual_mag, min_sigma, target):
    """:func:`pdls_ik.pdls.pinv.auto_lambda` without the σ thresholds (IKSolver's options)."""
    d = residual_mag / target if target < math.inf else 0.0
    if min_sigma >= d:
        return 0.0
    if min_sigma <= 0.5 * d:
        return 0.5 * d
    return math.sqrt(min_sigma * (d - min_sigma))


@numba.njit(cache=True, inline='always')
def _sq(v):
    """‖v‖² of a short vector (a loop: numba's np.dot calls BLAS, slower at this size)."""
    acc = 0.0
    for i in range(v.shape[0]):
        acc += v[i] * v[i]
    return acc


@numba.njit(cache=True)
def jacobi_rows(W, k, s, norms, Q):
    """
    Rotate the rows of W[:, :k] (m, k) by one-sided Jacobi rotations until they are orthogonal.

    Hestenes 1958; Demmel & Veselić 1992: high relative accuracy. The same rotations are applied
    to the column W[:, k], a right-hand side b, and to the rows of Q (m, m), an orthogonal matrix.

    With W = Q₀ [A | b] on entry (Q₀ the entry value of Q), on return W[i, :k] = s_i v_iᵀ,
    W[i, k] = u_iᵀ b and Q = Uᵀ, where A = Σ_i s_i u_i v_iᵀ is the SVD of A (unsorted; s (m,)
    the row norms); norms (m,): work. A row whose norm falls below 1e-16 ‖A‖ is rounding noise
    and is not rotated further. Starting from the Uᵀ of a nearby matrix (the Jacobian of the
    previous iteration) takes 1–3 sweeps instead of about 6 (:func:`_rotate_into`). LAPACK
    through numba costs ~30 µs for a 6 × 7 matrix; this costs about 1–3 µs.
    """
    m = W.shape[0]
    total = 0.0
    for i in range(m):
        acc = 0.0
        for j in range(k):
            acc += W[i, j] * W[i, j]
        norms[i] = acc                  # squared row norms, updated by each rotation
        total += acc
    negligible = 1e-32 * total
    for _ in range(60):
        rotated = False
        for i in range(m - 1):
            for q in range(i + 1, m):
                a, b = norms[i], norms[q]
                c = 0.0
                for j in range(k):
                    c += W[i, j] * W[q, j]
                if c == 0.0 or abs(c) <= 1e-15 * math.sqrt(a * b) or \
                        min(a, b) <= negligible:
                    continue
                rotated = True
                zeta = (b - a) / (2.0 * c)
                t = math.copysign(1.0, zeta) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                cs = 1.0 / math.sqrt(1.0 + t * t)
                sn = cs * t
                na, nb = 0.0, 0.0
                for j in range(k):
                    wi, wq = W[i, j], W[q, j]
                    wi, wq = cs * wi - sn * wq, sn * wi + cs * wq
                    W[i, j], W[q, j] = wi, wq
                    na += wi * wi
                    nb += wq * wq
                wi, wq = W[i, k], W[q, k]
                W[i, k], W[q, k] = cs * wi - sn * wq, sn * wi + cs * wq
                for j in range(m):
                    wi, wq = Q[i, j], Q[q, j]
                    Q[i, j], Q[q, j] = cs * wi - sn * wq, sn * wi + cs * wq
                norms[i], norms[q] = na, nb
        if not rotated:
            break
    for i in range(m):
        s[i] = math.sqrt(norms[i])


@numba.njit(cache=True, inline='always')
def _rotate_into(W, A, k, Q):
    """W[:, :k + 1] = Q A[:, :k + 1]: the rows of [A | b] in the basis Q of a previous SVD."""
    m = W.shape[0]
    for i in range(m):
        for j in range(k + 1):
            acc = 0.0
            for r in range(m):
                acc += Q[i, r] * A[r, j]
            W[i, j] = acc


@numba.njit(cache=True)
def step_work(m, n, locks):
    """
    Work arrays of :func:`levels_step` for m pose rows, n variables and ``locks`` locked joints.

    (ê (m,), W (m, n + 1), s (m,), norms (m,), fixed (n,), active (n,), clamped (n,), lo (n,), up
    (n,), clamped e (m,), active indices (n,), [J̃ | ê] (m, n + 1), Uᵀ of the last SVD (m, m),
    clamped and compensated lock residuals (locks,), (locks,), the work of
    :mod:`pdls_ik._accel.gram_numba`: (4, m, m), (3, m + n), warm vector (m,)).
    """
    return (np.empty(m), np.empty((m, n + 1)), np.empty(m), np.empty(m), np.empty(n),
            np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_), np.empty(n), np.empty(n),
            np.empty(m), np.empty(n, dtype=np.int64), np.empty((m, n + 1)), np.eye(m),
            np.empty(locks), np.empty(locks), np.empty((4, m, m)), np.zeros((4, m + n)))


@numba.njit(cache=True)
def clamp_stuck(theta, lo, up, periodic, state):
    """
    Clamp from the start the active variables without room (lo == up, not periodic).

    As :func:`pdls_ik.pdls.step.compute_step`: a joint held for a tracking cycle takes no part
    in the priority loop. state = (fixed, clamped, active) (n,) each, updated. Returns whether
    some variable was clamped.
    """
    fixed, clamped, active = state
    any_fixed = False
    for j in range(theta.shape[0]):
        if active[j] and lo[j] == up[j] and not periodic[j]:
            fixed[j] = lo[j] - theta[j]
            clamped[j] = True
            active[j] = False
            any_fixed = True
    return any_fixed


@numba.njit(cache=True, inline='always')
def priority_step(levels, theta, box, options, clamps, with_posture, out):
    """
    Take the levels (locks, pose) of one PDLS step, with the limiting loop; no posture yet.

    The arguments as in :func:`levels_step` (``with_posture``: a posture follows, so the pose
    level keeps its SVD for the null-space projector). Returns (k, cut, any_fixed): the pose
    level's column count (its indices in wk[10], its SVD rows in wk[1], wk[2] unless the Gram
    step solved it), its rank cut, whether a variable was clamped. :func:`finish_step` ends the
    step.
    """
    J, e, eL, lock_idx, w = levels
    lo, up, free, periodic = box
    lam_fixed, aim, svd_tol, gram = options     # aim: the step the automatic λ aims at
    rmm_lock, rmm_pose = clamps
    dtheta, wk, level_metrics, res_clamped = out
    e_hat, W, s, norms, fixed, active = wk[:6]
    clamped, lo2, e_clamp, idx, A, Q = wk[6], wk[7], wk[9], wk[10], wk[11], wk[12]
    eLc, eL_hat, Gs, gv = wk[13], wk[14], wk[15], wk[16]
    n, m, L = theta.shape[0], J.shape[0], lock_idx.shape[0]
    res_clamped[0] = res_clamped[1] = False
    scale = 1.0
    if rmm_lock >= 0.0 and L:
        nl = math.sqrt(_sq(eL))
        if nl > rmm_lock:
            scale = rmm_lock / nl
            res_clamped[0] = True
    for i in range(L):
        eLc[i] = eL[i] * scale
    e_use = e
    if rmm_pose >= 0.0:
        ne = math.sqrt(_sq(e))
        if ne > rmm_pose:
            for r in range(m):
                e_clamp[r] = e[r] * (rmm_pose / ne)
            e_use = e_clamp
            res_clamped[1] = True
    any_fixed = False
    for j in range(n):      # loops, not slices: a view costs two atomic reference count changes
        fixed[j] = 0.0
        clamped[j] = False
        active[j] = free[j]
        if free[j] and lo[j] == up[j] and not periodic[j]:     # no room: clamp_stuck
            fixed[j] = lo[j] - theta[j]
            clamped[j] = True
            active[j] = False
            any_fixed = True
    pose_active = lo2      # work: the pose level's columns (active, not locked)
    for i in range(2):
        for c in range(3):
            level_metrics[i, c] = 0.0
    acc = 0.0
    for r in range(m):
        for j in range(n):
            if free[j]:
                acc += J[r, j] * J[r, j]
    cut = svd_tol * math.sqrt(acc)  # relative rank: σ > svd_tol ‖J‖_F over the free columns
    while True:
        for j in range(n):
            dtheta[j] = fixed[j] if any_fixed else 0.0
            pose_active[j] = 1.0 if active[j] else 0.0
        # lock level: J = w S masked by the active columns
        if L:
            acc, rank, nfree = 0.0, 0, 0
            for i in range(L):
                j = lock_idx[i]
                r_i = eLc[i] - w * dtheta[j]
                eL_hat[i] = r_i
                acc += r_i * r_i
                if active[j]:
                    rank += 1
                if free[j]:
                    nfree += 1
            kept = w > svd_tol * w * math.sqrt(nfree)      # relative: ‖w S‖_F over free
            level_metrics[0, LM_LAMBDA], level_metrics[0, LM_SIGMA] = 0.0, 0.0
            level_metrics[0, LM_RANK] = rank if kept else 0
            if rank and kept:
                lam = lam_fixed if lam_fixed >= 0.0 else _auto_lambda(math.sqrt(acc), w, aim)
                level_metrics[0, LM_LAMBDA], level_metrics[0, LM_SIGMA] = lam, w
                for i in range(L):
                    j = lock_idx[i]
                    if active[j]:
                        dtheta[j] += w * eL_hat[i] / (w * w + lam * lam)
                        pose_active[j] = 0.0
        # pose level on the remaining columns, residual compensated by the motion so far
        k = 0
        for j in range(n):
            if pose_active[j] != 0.0:
                idx[k] = j
                k += 1
        for r in range(m):
            acc = 0.0
            for j in range(n):
                acc += J[r, j] * dtheta[j]
            e_hat[r] = e_use[r] - acc
            for c in range(k):
                A[r, c] = J[r, idx[c]]
            A[r, k] = e_hat[r]
        # full rank without a posture (no null space needed): the Gram matrix's closed form
        smin, lam = -1.0, lam_fixed
        if gram and k and not with_posture:
            trace = gram_factor(A, m, k, Gs)
            if trace >= 0.0:
                e_norm = math.sqrt(_sq(e_hat))
                d = e_norm / aim if aim < math.inf else 0.0
                # σ_min² above the Gram floor (and above d²: automatic λ = 0) decides the step
                # without σ_min itself, which is found once, for the last step (SIGMA_PENDING)
                floor = max(GRAM_MIN_RATIO * trace, cut * cut)
                half = 0.25 * d * d
                if gram_above(Gs, min(m, k), floor if lam >= 0.0 else max(floor, d * d)):
                    smin, lam = SIGMA_PENDING, max(lam, 0.0)
                elif lam < 0.0 and half > floor and not gram_above(Gs, min(m, k), half) and \
                        gram_above(Gs, min(m, k), floor):
                    # floor < σ_min² ≤ d² / 4: the automatic λ is d / 2 (saturated), decided
                    # by two bounds, as λ = 0 above (far from the goal: half of all steps)
                    smin, lam = SIGMA_PENDING, 0.5 * d
                else:
                    smin = gram_rayleigh(Gs, min(m, k), k >= m, cut, trace, gv)
                    if smin > 0.0:
                        if lam < 0.0:
                            lam = _auto_lambda(e_norm, smin, aim)
                        if not gram_suits(smin, trace, lam, lam_fixed, d):
                            smin = -1.0
        if smin > 0.0 or smin == SIGMA_PENDING:
            level_metrics[1, LM_LAMBDA], level_metrics[1, LM_SIGMA] = lam, smin
            level_metrics[1, LM_RANK] = min(m, k)
            gram_solve(A, m, k, lam, Gs, gv, dtheta, idx)
            rank = 0        # the SVD's rows W are not computed
        else:
            _rotate_into(W, A, k, Q)
            jacobi_rows(W, k, s, norms, Q)
            rank, smin = 0, math.inf
            for i in range(m):
                if s[i] > cut:
                    rank += 1
                    smin = min(smin, s[i])
            level_metrics[1, LM_LAMBDA], level_metrics[1, LM_SIGMA] = 0.0, 0.0
            level_metrics[1, LM_RANK] = rank
        if rank:
            lam = lam_fixed
            if lam < 0.0:
                lam = _auto_lambda(math.sqrt(_sq(e_hat)), smin, aim)
            level_metrics[1, LM_LAMBDA], level_metrics[1, LM_SIGMA] = lam, smin
            for i in range(m):
                if s[i] > cut:
                    # s_i / (s_i² + λ²) (u_iᵀ ê) v_i, with W[i, :k] = s_i v_iᵀ, W[i, k] = u_iᵀ ê
                    c = W[i, k] / (s[i] * s[i] + lam * lam)
                    for col in range(k):
                        dtheta[idx[col]] += c * W[i, col]
        changed = False
        for j in range(n):
            t = theta[j] + dtheta[j]
            if active[j] and (t > up[j] or t < lo[j]) and not (
                    periodic[j] and not math.isnan(turned(t, lo[j], up[j]))):
                fixed[j] = (up[j] if t > up[j] else lo[j]) - theta[j]
                clamped[j] = True
                active[j] = False
                any_fixed = True
                changed = True
        if not changed:
            break
    for j in range(n):
        if clamped[j]:
            dtheta[j] = fixed[j]
    return k, cut, any_fixed


@numba.njit(cache=True, inline='always')
def finish_step(theta, box, tmax, limit_diff, any_fixed, out):
    """
    End a PDLS step: Δθ zero off the free variables, clamped to tmax, exactly inside the limits.

    The clamp ‖Δθ‖ ≤ tmax applies if ``limit_diff``; :func:`exactly_inside` after any clamp.

    box and out as in :func:`levels_step`; any_fixed: a variable was clamped (or a posture
    moved). Returns ‖Δθ‖ before the clamp to tmax.
    """
    lo, up, free, periodic = box
    dtheta, wk = out[0], out[1]
    n = theta.shape[0]
    for j in range(n):
        if not free[j]:
            dtheta[j] = 0.0
    mag = math.sqrt(_sq(dtheta))
    diff_clamped = limit_diff and mag > tmax
    if diff_clamped:
        for j in range(n):
            dtheta[j] *= tmax / mag
    if any_fixed or diff_clamped:
        exactly_inside(theta, dtheta, lo, up, periodic, wk[7], wk[8])
    return mag


@numba.njit(cache=True, inline='always')
def pose_step(levels, theta, box, options, clamps, tmax, out):
    """
    :func:`levels_step` without a posture (the one-shot kernel): allocates nothing.

    options[1]: the step norm the automatic λ aims at (theta_diff_max_mag ×
    auto_lambda_theta_diff_max_mag_scale); tmax: the clamp of ‖Δθ‖ (theta_diff_max_mag).
    Returns ‖Δθ‖ before that clamp.
    """
    k, cut, any_fixed = priority_step(levels, theta, box, options, clamps, False, out)
    return finish_step(theta, box, tmax, True, any_fixed, out)


@numba.njit(cache=True)
def levels_step(levels, theta, box, options, clamps, posture, limit_diff, out):
    """
    One PDLS step of the levels (locks, pose) and the posture, as compute_step.

    :param levels: (J, e, eL, lock_idx, w): the pose level's weighted Jacobian (m, n) and
        residual (m,); eL (L,): the lock residual w (value − θ) of the joints lock_idx (L,)
        (L = 0: no lock level), weight w.
    :param theta: (n,) θ within the box.
    :param box: (lo, up, free, periodic): bounds (n,), free (n,) bool, periodic (n,) bool: the
        variables turned through their limits instead of clamped.
    :param options: (lam_fixed, tmax, svd_tol, gram): λ of every level (< 0: automatic);
        θ_diff_max_mag, also the target of the automatic λ; relative rank tolerance (σ >
        svd_tol ‖J_k‖_F over the free columns counts); gram: a full-rank pose level without
        posture may be solved from its Gram matrix (:mod:`pdls_ik._accel.gram_numba`; the
        one-shot kernel), else always by the SVD (the tracking cycle).
    :param clamps: (rmm_lock, rmm_pose), residual clamps (< 0: none).
    :param posture: (n,) variation, or an empty array; limit_diff: clamp ‖Δθ‖ to tmax.
    :param out: (dtheta, wk, level_metrics, res_clamped): Δθ (n,) out; :func:`step_work`;
        (2, 3) out: per level (lock, pose) λ, rank, σ_min (``LM_*``; a Gram step's σ_min is
        :data:`SIGMA_PENDING`: :func:`pending_sigma`); (2,) bool out: residual clamped.

    :return: ‖Δθ‖ before its clamp to tmax.
    """
    J, e, eL, lock_idx, w = levels
    lo, up, free, periodic = box
    dtheta, wk = out[0], out[1]
    W, s, idx = wk[1], wk[2], wk[10]
    n, m = theta.shape[0], J.shape[0]
    k, cut, any_fixed = priority_step(levels, theta, box, options, clamps, posture.shape[0] > 0,
                                      out)
    if posture.shape[0]:
        # the posture in the null space of both levels, P = diag(pose columns) − Σ v_i v_iᵀ,
        # within the limits that remain (pdls_ik.pdls.posture)
        P = np.zeros((n, n))
        for col in range(k):
            P[idx[col], idx[col]] = 1.0
        for i in range(m):
            if s[i] > cut:
                inv2 = 1.0 / (s[i] * s[i])
                for a in range(k):
                    for b in range(k):
                        P[idx[a], idx[b]] -= W[i, a] * W[i, b] * inv2
        base = theta + dtheta
        dtheta += posture_within_limits(P, posture, base, lo, up, periodic)
        any_fixed = True        # the posture's share of the limits: exactly inside
    return finish_step(theta, box, options[1], limit_diff, any_fixed, out)


@numba.njit(cache=True)
def _limit_share(at, d, lo, up, periodic):
    """Share in [0, 1] of the move d from ``at`` that reaches a limit it crosses, else 2."""
    t = at + d
    if not ((t > up and d > 0.0) or (t < lo and d < 0.0)):
        return 2.0
    if periodic and not math.isnan(turned(t, lo, up)):
        return 2.0
    return min(max(((up if t > up else lo) - at) / d, 0.0), 1.0)


@numba.njit(cache=True)
def posture_within_limits(P, v, base, lo, up, periodic):
    """
    :func:`pdls_ik.pdls.posture.posture_within_limits`: the posture contribution (n,).

    P (n, n) the levels' null-space projector, v (n,) the posture variation, base (n,) θ + Δθ
    of the levels; lo, up, periodic (n,).
    """
    n = v.shape[0]
    c = P @ v
    total = np.zeros(n)
    frozen = np.zeros(n, dtype=np.bool_)
    for j in range(n):
        if P[j, j] <= PROJECTOR_TOL:
            frozen[j] = True
            c[j] = 0.0
    share = 1.0
    d = c.copy()
    for _ in range(n + 1):
        alpha, crossing = 1.0, False
        for j in range(n):
            if frozen[j]:
                d[j] = 0.0
        for j in range(n):
            if not frozen[j]:
                part = _limit_share(base[j] + total[j], d[j], lo[j], up[j], periodic[j])
                if part <= 1.0:
                    crossing = True
                    alpha = min(alpha, part)
        if not crossing:
            for j in range(n):
                total[j] += d[j]
            return total
        for j in range(n):
            if not frozen[j] and \
                    _limit_share(base[j] + total[j], d[j], lo[j], up[j], periodic[j]) <= alpha:
                frozen[j] = True
        for j in range(n):
            total[j] += alpha * d[j]
        share *= 1.0 - alpha
        if share <= 0.0:
            break
        F = np.flatnonzero(frozen)
        f = F.shape[0]
        PFF = np.empty((f, f))
        cf = np.empty(f)
        for a in range(f):
            cf[a] = c[F[a]]
            for b in range(f):
                PFF[a, b] = P[F[a], F[b]]
        w, V = np.linalg.eigh(PFF)
        y = np.zeros(f)
        for i in range(f):
            if w[i] > PROJECTOR_TOL:
                acc = 0.0
                for a in range(f):
                    acc += V[a, i] * cf[a]
                acc /= w[i]
                for a in range(f):
                    y[a] += V[a, i] * acc
        for j in range(n):
            acc = c[j]
            for a in range(f):
                acc -= P[j, F[a]] * y[a]
            d[j] = share * acc
    return total


@numba.njit(cache=True, inline='always')
def exactly_inside(theta, dtheta, lo, up, periodic, lo2, up2):
    """
    Fix Δθ (n,) where rounding put θ + Δθ a hair outside a limit θ started within (in place).

    As :func:`pdls_ik.pdls.step._exactly_inside`; a periodic variable whose θ + Δθ has an image
    within the limits is left alone. lo2, up2: (n,) work.
    """
    n = theta.shape[0]
    for j in range(lo.shape[0]):        # loops: no slices in a borrowing kernel (BORROWING)
        lo2[j] = lo[j]
        up2[j] = up[j]
    for _ in range(8):
        moved = False
        for j in range(n):
            t = theta[j] + dtheta[j]
            if periodic[j] and (t > up2[j] or t < lo2[j]) and \
                    not math.isnan(turned(t, lo2[j], up2[j])):
                continue
            if t > up2[j] and theta[j] <= up2[j]:
                dtheta[j] = np.nextafter(up2[j] - theta[j], -np.inf)
                up2[j] = np.nextafter(up2[j], -np.inf)
                moved = True
            elif t < lo2[j] and theta[j] >= lo2[j]:
                dtheta[j] = np.nextafter(lo2[j] - theta[j], np.inf)
                lo2[j] = np.nextafter(lo2[j], np.inf)
                moved = True
        if not moved:
            break


@numba.njit(cache=True)
def bounded_gauss_seidel(H, g, start, box, params, out):
    """
    Solve min ½ xᵀHx − gᵀx over lo_step ≤ x ≤ up_step by projected Gauss–Seidel sweeps.

    :func:`pdls_ik.pdls.pgs.bounded_least_squares`: H (k, k), upper triangle filled (mirrored
    here), g (k,) over the variables cols (k,) of start = (x0 (n,), cols); box = (lo_step,
    up_step) (n,) each; params = (max_iterations, tol): sweeps ``x_i ← clip(x_i − (H_i · x −
    g_i) / H_ii)`` from x0 projected onto the box until none moves a variable by more than
    ``tol · (1 + max|x|)``; a column of rounding-noise size (``ZERO_COLUMN``) is a zero column.
    Fills out = (x (n,), 0 outside cols; at_bound (n,) bool).
    """
    x0, cols = start
    lo_step, up_step = box
    max_iterations, tol = params
    x, at_bound = out
    k = cols.shape[0]
    for a in range(k):
        for b in range(a):
            H[a, b] = H[b, a]
    xs, lo, up = np.empty(k), np.empty(k), np.empty(k)
    for a in range(k):
        lo[a], up[a] = lo_step[cols[a]], up_step[cols[a]]
        xs[a] = min(max(x0[cols[a]], lo[a]), up[a])
    zero = 0.0
    for a in range(k):
        zero = max(zero, ZERO_COLUMN * H[a, a])
    for _ in range(max_iterations):
        moved = 0.0
        for i in range(k):
            hii = H[i, i]
            if hii <= zero:         # a zero column (rounding noise): x_i does not matter
                new = min(max(0.0, lo[i]), up[i])
            else:
                acc = 0.0
                for j in range(k):
                    acc += H[i, j] * xs[j]
                new = xs[i] - (acc - g[i]) / hii
                new = up[i] if new > up[i] else (lo[i] if new < lo[i] else new)
            moved = max(moved, abs(new - xs[i]))
            xs[i] = new
        biggest = 0.0
        for i in range(k):
            biggest = max(biggest, abs(xs[i]))
        if moved <= tol * (1.0 + biggest):
            break
    x[:] = 0.0
    at_bound[:] = False
    for a in range(k):
        x[cols[a]] = xs[a]
        at_bound[cols[a]] = xs[a] <= lo[a] or xs[a] >= up[a]


@numba.njit(cache=True)
def pgs_box_step(levels, x0, box, params, out):
    """
    Compute the undamped step of the levels (locks, pose) in a box, by projected Gauss–Seidel.

    :func:`pdls_ik.pdls.pgs.pgs_step` with λ = 0 and no posture: the levels stacked with
    weights level_weight^k (lock rows w S, then the pose rows J (m, n)), residuals eL (L,) and
    e (m,), ``min ‖A x − b‖²`` subject to lo_step ≤ x ≤ up_step (n,) over the free (n,)
    variables by sweeps ``x_i ← clip(x_i − (H_i · x − g_i) / H_ii)`` with H = AᵀA, g = Aᵀb,
    from x0 (n,) projected onto the box, at most ``max_iterations`` sweeps, until none moves a
    variable by more than ``tol · (1 + max|x|)`` (Simbody's ``SimTK::PGSImpulseSolver``
    iteration; Cryer 1971). Fills x (n,) (0 where not free) and at_bound (n,) bool.

    levels = (J, e, eL, lock_idx, w) as in :func:`levels_step`; box = (lo_step, up_step, free);
    params = (level_weight, max_iterations, tol); out = (x, at_bound).
    """
    J, e, eL, lock_idx, w = levels
    lo_step, up_step, free = box
    level_weight, max_iterations, tol = params
    x, at_bound = out
    m, L = J.shape[0], lock_idx.shape[0]
    cols = np.flatnonzero(free)
    k = cols.shape[0]
    pose_w = level_weight if L else 1.0
    H, g = np.zeros((k, k)), np.zeros(k)
    for a in range(k):
        for b in range(a, k):
            acc = 0.0
            for r in range(m):
                acc += (pose_w * J[r, cols[a]]) * (pose_w * J[r, cols[b]])
            H[a, b] = acc
        acc = 0.0
        for r in range(m):
            acc += (pose_w * J[r, cols[a]]) * (pose_w * e[r])
        g[a] = acc
    for i in range(L):              # lock rows: w at their column
        for a in range(k):
            if cols[a] == lock_idx[i]:
                H[a, a] += w * w
                g[a] += w * eL[i]
    bounded_gauss_seidel(H, g, (x0, cols), (lo_step, up_step), (max_iterations, tol),
                         (x, at_bound))


@numba.njit(cache=True, inline='always')
def adapt_step_size(clamps, last_mag, tmax, diverging, locked, last_lock, last_pose,
                    res_clamped, residual_tol):
    """
    Update the residual clamps after a step, as :class:`pdls_ik.pdls.stepsize.AdaptiveStepSize`.

    :param clamps: (4,) in place: residual clamps of the lock and pose levels, then their
        speed-up caps (-1: unset).
    :param last_mag: ‖Δθ‖ of the last step before its clamp; tmax: the clamp; diverging: the top
        level (the locks if ``locked``, else the pose) grew; last_lock, last_pose: the levels'
        residual norms when the step was taken; res_clamped: (2,) whether each was clamped.
    """
    if last_mag > tmax or diverging:            # slow down: halve the clamps, floored
        clamps[0] = max((last_lock if clamps[0] < 0.0 else clamps[0]) * 0.5, residual_tol)
        clamps[1] = max((last_pose if clamps[1] < 0.0 else clamps[1]) * 0.5, residual_tol)
        if diverging:
            k = 0 if locked else 1
            clamps[2 + k] = clamps[k] if clamps[2 + k] < 0.0 else min(clamps[2 + k], clamps[k])
    elif last_mag < 0.5 * tmax:                 # speed up the clamped levels, capped
        for k in range(2):
            if clamps[k] >= 0.0 and res_clamped[k]:
                grown = clamps[k] * 1.5
                clamps[k] = grown if clamps[2 + k] < 0.0 else min(grown, clamps[2 + k])


def lock_arrays(locks, continuous):
    """
    Return the kernels' lock level arguments (indices (L,), values (L,), continuous (L,), weight).

    :param locks: a :class:`pdls_ik.tasks.JointLockTask` or None (L = 0, weight 1).
    :param continuous: (n,) bool, the continuous joints (their lock error wraps).
    """
    if locks is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.bool_), 1.0
    idx = np.asarray(locks.indices, dtype=np.int64)
    return (idx, np.asarray(locks.values, dtype=float),
            np.asarray(continuous, dtype=np.bool_)[idx], float(locks.weight))


@numba.njit(cache=True)
def reset_basis(Q, gv=None):
    """
    Set Q (m, m) to the identity: the next SVD starts cold (results independent of history).

    gv (4, m + n), if given: the Gram step's vectors, its iteration vector zeroed (cold) as well.
    """
    if gv is not None:
        gv[3, :] = 0.0
    Q[:, :] = 0.0
    for i in range(Q.shape[0]):
        Q[i, i] = 1.0


@numba.njit(cache=True, inline='always')
def locks_held(eL, tol):
    """Tell whether every weighted lock residual eL (L,) is within tol (True when L = 0)."""
    for i in range(eL.shape[0]):
        if abs(eL[i]) > tol:
            return False
    return True


@numba.njit(cache=True, inline='always')
def improves_best(norm_lock, norm_pose, locked, residual_tol, best_key):
    """
    Tell whether the levels' norms beat best_key (2,), updating it (the PDLS best iterate).

    Levels in priority order (lock, pose), or the pose alone when not ``locked``, each norm
    floored at residual_tol, compared lexicographically as :func:`pdls_ik.pdls.solve` does
    (:func:`pdls_ik.pdls.solve.improves`: norms within rounding tie).
    """
    k0 = max(norm_lock if locked else norm_pose, residual_tol)
    k1 = max(norm_pose, residual_tol) if locked else 0.0
    order = compare_norms(k0, best_key[0])
    if order == 0:
        order = compare_norms(k1, best_key[1])
    if order < 0:
        best_key[0], best_key[1] = k0, k1
        return True
    return False


@numba.njit(cache=True)
def compare_norms(v, b):
    """-1, 0, 1: level norm v better than, tied with, worse than b (``solve.improves``)."""
    if v < b and (b == math.inf or b - v > BEST_TIE_RTOL * b + BEST_TIE_ATOL):
        return -1
    if v > b and v - b > BEST_TIE_RTOL * b + BEST_TIE_ATOL:
        return 1
    return 0


@numba.njit(cache=True)
def pending_sigma(level_metrics, wk):
    """
    Fill the pose level's σ_min of the last step if it is :data:`SIGMA_PENDING`.

    The step work wk (:func:`step_work`) still holds that step's Gram matrix and its factor,
    certified of full rank and σ_min² ≥ GRAM_MIN_RATIO ‖A‖_F²: Rayleigh quotient iteration
    (:func:`pdls_ik._accel.gram_numba.gram_rayleigh`), else bisection on Sylvester's inertia
    (no allocation: the one-shot kernel borrows its arrays, :data:`BORROWING`).
    """
    if level_metrics[1, LM_SIGMA] != SIGMA_PENDING:
        return
    Gs, gv = wk[15], wk[16]
    r = int(level_metrics[1, LM_RANK])
    smin = gram_rayleigh(Gs, r, r == Gs.shape[1], 0.0, 0.0, gv)
    if smin < 0.0:      # not settled
        smin = gram_bisect_sigma(Gs, r)
    level_metrics[1, LM_SIGMA] = smin


#: public name of the automatic λ for the other kernels (levels_numba)
auto_lambda = _auto_lambda
