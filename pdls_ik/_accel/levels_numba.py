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
The PDLS step of the compiled kernels for three levels with inequality rows.

A transcription of :func:`pdls_ik.pdls.step.compute_step` (and of the row selection of
:class:`pdls_ik.pdls.levels.PreparedLevels`) for the levels IKSolver builds with a
self-collision level: joint locks (if any) > self-collision (inequality rows) > the pose > the
posture. The levels travel as one stack of rows: ``levels`` = (J (R, n), e (R,), start (4,),
inequality (R,) bool, present (3,) bool): level k owns the rows ``start[k]:start[k + 1]``
(lock, collision, pose), ``present[k]`` tells whether the NumPy problem has that level (no lock
level without locks: it changes the weights of the stacked projected Gauss–Seidel step).

Each pass of the priority loop solves every level by the SVD of its active rows restricted to
the null space of the levels above, ``J_k P`` (one-sided Jacobi,
:func:`pdls_ik._accel.step_numba.jacobi_rows`), with automatic or fixed λ, rank relative to
``svd_tol ‖J_k‖_F`` over the free variables (Baerlocher & Boulic 2004, §3). An inequality row
takes part while violated (``e > 0``: ``LESS_EQUAL``); a satisfied row joins its level when the
step would violate it (its linearized residual ``e − J Δθ`` turns positive), asking to land on
its bound, and the passes repeat until no variable is newly clamped and no row newly activated,
as :func:`pdls_ik.pdls.step._activate_inequalities` does. Then Δθ clamping and the exact stay
within the limits. ``test/_accel/test_collision_backends.py`` holds the kernels built on it
against the NumPy reference.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from pdls_ik._accel import use_sources_cache
from pdls_ik._accel.chain_numba import turned
from pdls_ik._accel.step_numba import (auto_lambda, bounded_gauss_seidel, clamp_stuck,
                                       compare_norms, exactly_inside, jacobi_rows,
                                       posture_within_limits)
from pdls_ik.pdls.levels import ACTIVE_TOL

use_sources_cache()     # before the first cached kernel

#: per-level metrics of a step, columns of ``lm`` (3, 3): λ, rank, σ_min
LM_LAMBDA, LM_RANK, LM_SIGMA = range(3)
#: levels of the stack
LOCK_LEVEL, COLLISION_LEVEL, POSE_LEVEL = range(3)


@numba.njit(cache=True)
def inequality_work(R, n):
    """
    Work arrays of :func:`inequality_step` for R rows and n variables.

    (on (R,), pending (R,), used residual (R,), W (R, n + 1), s (R,), norms (R,), Q (R, R),
    projector (n, n), fixed (n,), active (n,), clamped (n,), lo2 (n,), up2 (n,), x (n,)).
    """
    return (np.empty(R, dtype=np.bool_), np.empty(R, dtype=np.bool_), np.empty(R),
            np.empty((R, n + 1)), np.empty(R), np.empty(R), np.empty((R, R)), np.empty((n, n)),
            np.empty(n), np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_), np.empty(n),
            np.empty(n), np.empty(n))


@numba.njit(cache=True)
def _select_rows(levels, rmm, wk, norms, rc):
    """
    Rows that take part (equalities, violated inequalities); residual clamps rmm (3,) (< 0: none).

    norms (3,) out: each level's active residual norm (``PreparedLevels.norms``); rc (3,) out:
    whether its residual was clamped. Returns whether some inequality row waits (satisfied).
    """
    e, start, ineq = levels[1], levels[2], levels[3]
    on, pending, used = wk[0], wk[1], wk[2]
    waiting = False
    for k in range(3):
        acc = 0.0
        for r in range(start[k], start[k + 1]):
            on[r] = not ineq[r] or e[r] > ACTIVE_TOL
            pending[r] = not on[r]
            waiting |= pending[r]
            used[r] = e[r]
            if on[r]:
                acc += e[r] * e[r]
        norms[k] = math.sqrt(acc)
        rc[k] = False
        if rmm[k] >= 0.0 and norms[k] > rmm[k]:
            rc[k] = True
            scale = rmm[k] / norms[k]
            for r in range(start[k], start[k + 1]):
                if on[r]:
                    used[r] = e[r] * scale
    return waiting


@numba.njit(cache=True)
def _triangularize(W, m, k):
    """
    Householder QR of the rows W[:m, :k + 1] in place: W ← R (upper triangular), Qᵀ applied.

    Returns the rows left, min(m, k + 1). An orthogonal transformation on the left keeps the
    singular values and right singular vectors of W[:, :k] and the products u_iᵀ b of the last
    column b, so that the one-sided Jacobi SVD that follows works on at most k + 1 rows, of a
    triangular matrix: a few sweeps instead of dozens for many nearly parallel rows (pairs of
    fingers against the same link; Drmač & Veselić 2008, QR preconditioning).
    """
    cols = k + 1
    r = min(m, cols)
    for c in range(r):
        acc = 0.0
        for i in range(c, m):
            acc += W[i, c] * W[i, c]
        if acc == 0.0:
            continue
        alpha = -math.copysign(math.sqrt(acc), W[c, c])
        v0 = W[c, c] - alpha
        vv = v0 * v0 + acc - W[c, c] * W[c, c]
        if vv <= 0.0:
            continue
        for j in range(c + 1, cols):
            dot = v0 * W[c, j]
            for i in range(c + 1, m):
                dot += W[i, c] * W[i, j]
            f = 2.0 * dot / vv
            W[c, j] -= f * v0
            for i in range(c + 1, m):
                W[i, j] -= f * W[i, c]
        W[c, c] = alpha
        for i in range(c + 1, m):
            W[i, c] = 0.0
    return r


@numba.njit(cache=True)
def _priority_pass(levels, dtheta, active, free, lam_tmax_svd, project_last, wk, lm):
    """
    One pass of the priority loop (:func:`pdls_ik.pdls.step._priority_loop`) from Δθ (n,).

    dtheta holds the motion of the clamped variables on entry (0 elsewhere) and the step on
    return; lm (3, 3) out: per level λ, rank, σ_min. The projector wk[7] (n, n) ends as the null
    space of the levels solved (the last one included when ``project_last``).
    """
    J, start = levels[0], levels[2]
    lam_fixed, tmax, svd_tol = lam_tmax_svd
    on, used, W, s, norms, Q, P = wk[0], wk[2], wk[3], wk[4], wk[5], wk[6], wk[7]
    n = J.shape[1]
    P[:, :] = 0.0
    for j in range(n):
        if active[j]:
            P[j, j] = 1.0
    for k in range(3):
        lm[k, 0] = lm[k, 1] = lm[k, 2] = 0.0
        m = 0
        acc = 0.0
        e_acc = 0.0
        for r in range(start[k], start[k + 1]):
            if not on[r]:
                continue
            moved = 0.0
            for j in range(n):
                if free[j]:
                    acc += J[r, j] * J[r, j]
                moved += J[r, j] * dtheta[j]
                v = 0.0
                for c in range(n):
                    v += J[r, c] * P[c, j]
                W[m, j] = v
            W[m, n] = used[r] - moved
            e_acc += W[m, n] * W[m, n]
            m += 1
        if m == 0:
            continue
        if m > 1:
            m = _triangularize(W, m, n)
        Wm, sm, Qm = W[:m], s[:m], Q[:m, :m]
        Qm[:, :] = 0.0
        for i in range(m):
            Qm[i, i] = 1.0
        jacobi_rows(Wm, n, sm, norms[:m], Qm)
        cut = svd_tol * math.sqrt(acc)
        rank, smin = 0, math.inf
        for i in range(m):
            if sm[i] > cut:
                rank += 1
                smin = min(smin, sm[i])
        lm[k, LM_RANK] = rank
        if rank == 0:
            continue
        lam = lam_fixed if lam_fixed >= 0.0 else auto_lambda(math.sqrt(e_acc), smin, tmax)
        lm[k, LM_LAMBDA], lm[k, LM_SIGMA] = lam, smin
        project = k < POSE_LEVEL or project_last
        for i in range(m):
            if sm[i] > cut:
                # s_i / (s_i² + λ²) (u_iᵀ ê) v_i, with W[i, :n] = s_i v_iᵀ, W[i, n] = u_iᵀ ê
                c = Wm[i, n] / (sm[i] * sm[i] + lam * lam)
                for j in range(n):
                    dtheta[j] += c * Wm[i, j]
                if project:
                    inv2 = 1.0 / (sm[i] * sm[i])
                    for a in range(n):
                        if Wm[i, a] != 0.0:
                            for b in range(n):
                                P[a, b] -= Wm[i, a] * Wm[i, b] * inv2


@numba.njit(cache=True)
def _activate(levels, dtheta, wk):
    """Activate the waiting inequality rows that Δθ (n,) would violate; True if any."""
    J, e = levels[0], levels[1]
    on, pending, used = wk[0], wk[1], wk[2]
    changed = False
    for r in range(e.shape[0]):
        if pending[r]:
            acc = 0.0
            for j in range(J.shape[1]):
                acc += J[r, j] * dtheta[j]
            if e[r] - acc > ACTIVE_TOL:
                on[r] = True
                pending[r] = False
                used[r] = e[r]
                changed = True
    return changed


@numba.njit(cache=True)
def inequality_step(levels, theta, box, options, rmm, posture, out):
    """
    One PDLS step of the stacked levels with the limiting loop (``limit_strategy="clamping"``).

    :param levels: (J, e, start, inequality, present), module doc.
    :param theta: (n,) θ within the box.
    :param box: (lo, up, free, periodic) (n,) each: bounds, the variables that may move, the
        variables turned through their limits instead of clamped.
    :param options: (lam_fixed, tmax, svd_tol, limit_diff): λ (< 0: automatic, aiming at tmax),
        θ_diff_max_mag, relative rank tolerance, whether ‖Δθ‖ is clamped to tmax.
    :param rmm: (3,) residual clamps (< 0: none).
    :param posture: (n,) variation in the null space of every level, or an empty array.
    :param out: (dtheta (n,), work (:func:`inequality_work`), lm (3, 3) per-level λ, rank,
        σ_min, rc (3,) bool residual clamped, norms (3,) the levels' active residual norms).

    :return: ‖Δθ‖ before its clamp to tmax.
    """
    lo, up, free, periodic = box
    lam_fixed, tmax, svd_tol, limit_diff = options
    dtheta, wk, lm, rc, norms = out
    P, fixed, active, clamped, lo2, up2 = wk[7], wk[8], wk[9], wk[10], wk[11], wk[12]
    n = theta.shape[0]
    waiting = _select_rows(levels, rmm, wk, norms, rc)
    fixed[:] = 0.0
    clamped[:] = False
    active[:] = free
    any_fixed = clamp_stuck(theta, lo, up, periodic, (fixed, clamped, active))
    want = posture.shape[0] > 0
    while True:
        for j in range(n):
            dtheta[j] = fixed[j]
        _priority_pass(levels, dtheta, active, free, (lam_fixed, tmax, svd_tol), want, wk, lm)
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
        if not changed and want:
            for j in range(n):
                if clamped[j]:
                    dtheta[j] = fixed[j]
            dtheta += posture_within_limits(P, posture, theta + dtheta, lo, up, periodic)
        if waiting and _activate(levels, dtheta, wk):
            changed = True
        if not changed:
            break
    for j in range(n):
        if clamped[j]:
            dtheta[j] = fixed[j]
        if not free[j]:
            dtheta[j] = 0.0
    mag = math.sqrt(np.dot(dtheta, dtheta))
    diff_clamped = limit_diff and mag > tmax
    if diff_clamped:
        dtheta *= tmax / mag
    if any_fixed or diff_clamped or want:
        exactly_inside(theta, dtheta, lo, up, periodic, lo2, up2)
    return mag


@numba.njit(cache=True)
def _stacked_pgs(levels, x0, box, params, wk, at_bound):
    """
    :func:`pdls_ik.pdls.pgs.pgs_step` (λ = 0, no posture) over the active rows of the stack.

    Level k of the NumPy problem weighted by level_weight^k; min ‖A x − b‖² over lo_step ≤ x ≤
    up_step (n,) for the free variables by projected Gauss–Seidel sweeps from x0 (n,) projected
    (:func:`pdls_ik.pdls.pgs.bounded_least_squares`). Fills wk[13] (n,) with x (0 where not free)
    and at_bound (n,).
    """
    J, start, present = levels[0], levels[2], levels[4]
    lo_step, up_step, free = box
    level_weight, max_iterations, tol = params
    on, used, x = wk[0], wk[2], wk[13]
    cols = np.flatnonzero(free)
    k = cols.shape[0]
    H, g = np.zeros((k, k)), np.zeros(k)
    w = 1.0
    for lev in range(3):
        if not present[lev]:
            continue
        for r in range(start[lev], start[lev + 1]):
            if not on[r]:
                continue
            for a in range(k):
                ja = w * J[r, cols[a]]
                for b in range(a, k):
                    H[a, b] += ja * (w * J[r, cols[b]])
                g[a] += ja * (w * used[r])
        w *= level_weight
    bounded_gauss_seidel(H, g, (x0, cols), (lo_step, up_step), (max_iterations, tol),
                         (x, at_bound))


@numba.njit(cache=True)
def inequality_box_step(levels, theta, box, params, out):
    """
    Compute the undamped step of the stack bounded by projected Gauss–Seidel.

    ``limit_strategy="pgs_weighted"``.

    :func:`pdls_ik.pdls.step.compute_step` with λ = 0, no residual clamp, no posture, no Δθ
    clamping and ``limit_strategy="pgs_weighted"``: each pass takes the unbounded priority-loop
    step and, when it leaves [lo, up] (n,), replaces it by the stacked box-constrained step
    (:func:`_stacked_pgs`), then activates the inequality rows it would violate; until none.

    box = (lo, up, free); params = (svd_tol, tmax, level_weight, max_iterations, tol);
    out = (dtheta (n,), work, lm (3, 3), at_bound (n,) bool: the variables the last bounded
    step put on a bound, norms (3,)).
    """
    lo, up, free = box
    svd_tol, tmax, level_weight, max_iterations, tol = params
    dtheta, wk, lm, at_bound, norms = out
    x, lo2, up2 = wk[13], wk[11], wk[12]
    n = theta.shape[0]
    rc = np.zeros(3, dtype=np.bool_)
    waiting = _select_rows(levels, np.full(3, -1.0), wk, norms, rc)
    at_bound[:] = False
    no_periodic = np.zeros(n, dtype=np.bool_)
    while True:
        dtheta[:] = 0.0
        _priority_pass(levels, dtheta, free, free, (0.0, tmax, svd_tol), False, wk, lm)
        outside = False
        for j in range(n):
            t = theta[j] + dtheta[j]
            outside |= free[j] and (t > up[j] or t < lo[j])
        if outside:
            _stacked_pgs(levels, dtheta, (lo - theta, up - theta, free),
                         (level_weight, max_iterations, tol), wk, at_bound)
            dtheta[:] = x
        if not (waiting and _activate(levels, dtheta, wk)):
            break
    for j in range(n):
        if not free[j]:
            dtheta[j] = 0.0
    exactly_inside(theta, dtheta, lo, up, no_periodic, lo2, up2)


@numba.njit(cache=True)
def adapt_levels(clamps, last_mag, tmax, last_norms, rc, floors, present):
    """
    Update the residual clamps (3,) after a step (:class:`pdls_ik.pdls.stepsize.AdaptiveStepSize`).

    Without divergence check (IKSolver with extra tasks): slow down (halve every level's clamp,
    unset ones starting at the level's last residual norm, floored at its tolerance) when
    ‖Δθ‖ before its clamp exceeded tmax; speed up (× 1.5) the clamps that clamped when it was
    below tmax / 2. last_norms, floors: (3,); rc: (3,) residual clamped; present: (3,).
    """
    if last_mag > tmax:
        for k in range(3):
            if present[k]:
                current = last_norms[k] if clamps[k] < 0.0 else clamps[k]
                clamps[k] = max(current * 0.5, floors[k])
    elif last_mag < 0.5 * tmax:
        for k in range(3):
            if clamps[k] >= 0.0 and rc[k]:
                clamps[k] *= 1.5


@numba.njit(cache=True)
def improves_levels(norms, tols, present, best_key):
    """
    Tell whether the levels' norms (3,) beat best_key (3,), updating it (the best iterate).

    Lexicographic over the present levels of max(norm, tolerance), norms within rounding tied,
    as :func:`pdls_ik.pdls.solve.improves`.
    """
    for k in range(3):
        if not present[k]:
            continue
        v = max(norms[k], tols[k])
        order = compare_norms(v, best_key[k])
        if order > 0:
            return False
        if order < 0:
            for i in range(3):
                best_key[i] = max(norms[i], tols[i])
            return True
    return False
