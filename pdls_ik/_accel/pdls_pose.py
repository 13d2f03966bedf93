"""Numba prototype of a PDLS local solve for one pose level (the IK one-shot configuration).

A transcription of :func:`pdls_ik.pdls.solve` for a single level — the weighted pose residual of
:class:`pdls_ik.tasks.FrameTask` (full orientation) and its Jacobian — with the options IKSolver
uses: automatic λ (:func:`pdls_ik.pdls.pinv.auto_lambda`), SVD damped pseudoinverse with rank by
``svd_tol``, the limiting loop, Δθ clamping to ``theta_diff_max_mag``, adaptive step size
(slow-down / speed-up of the residual clamp), divergence check with revert, stall and iteration
budget, constant step, the best iterate, and IKSolver's progress monitor (a local solve is
abandoned as "stuck" when ‖e‖ fell by less than ``ratio`` over ``window`` iterations).
Not covered (NumPy only): several levels, posture, inequality rows, line searches, ``max_time``.

The NumPy code stays the reference: ``test/test_accel_pdls_pose.py`` checks that this kernel
reaches the same iterates, statuses and iteration counts.
"""
from __future__ import annotations

import math
import time

import numba
import numpy as np

from pdls_ik._accel.dls import _pose_jacobian, _residual

CONVERGED, STALLED, MAX_ITERATIONS, STUCK = 0, 1, 2, 3
STATUS_NAMES = ("converged", "stalled", "max_iterations", "stuck")


@numba.njit(cache=True)
def _auto_lambda(residual_mag, min_sigma, target):
    d = residual_mag / target if target < math.inf else 0.0
    if min_sigma >= d:
        return 0.0
    if min_sigma <= 0.5 * d:
        return 0.5 * d
    return math.sqrt(min_sigma * (d - min_sigma))


@numba.njit(cache=True)
def jacobi_svd(A):
    """Thin SVD (U (m, m), s (m,), Vt (m, n)) of A (m, n), m <= n, by one-sided Jacobi rotations
    of the rows (Hestenes 1958; Demmel & Veselić 1992: high relative accuracy), s decreasing.
    LAPACK through numba costs ~30 µs for a 6 × 7 matrix; this costs a few µs."""
    m, n = A.shape
    W = A.copy()
    U = np.eye(m)
    norms = np.empty(m)                 # squared row norms, updated by each rotation
    for i in range(m):
        norms[i] = np.dot(W[i], W[i])
    for _ in range(60):
        rotated = False
        for i in range(m - 1):
            for k in range(i + 1, m):
                a, b = norms[i], norms[k]
                c = 0.0
                for j in range(n):
                    c += W[i, j] * W[k, j]
                if c == 0.0 or abs(c) <= 1e-15 * math.sqrt(a * b):
                    continue
                rotated = True
                zeta = (b - a) / (2.0 * c)
                t = math.copysign(1.0, zeta) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                cs = 1.0 / math.sqrt(1.0 + t * t)
                sn = cs * t
                for j in range(n):
                    wi, wk = W[i, j], W[k, j]
                    W[i, j] = cs * wi - sn * wk
                    W[k, j] = sn * wi + cs * wk
                for j in range(m):
                    ui, uk = U[j, i], U[j, k]
                    U[j, i] = cs * ui - sn * uk
                    U[j, k] = sn * ui + cs * uk
                norms[i] = np.dot(W[i], W[i])
                norms[k] = np.dot(W[k], W[k])
        if not rotated:
            break
    for i in range(m):
        norms[i] = math.sqrt(norms[i])
    order = np.argsort(-norms)
    u, s, vt = np.empty((m, m)), np.empty(m), np.zeros((m, n))
    for r in range(m):
        i = order[r]
        s[r] = norms[i]
        u[:, r] = U[:, i]
        if norms[i] > 0.0:
            vt[r] = W[i] / norms[i]
    return u, s, vt


@numba.njit(cache=True)
def _priority_pass(J, e, active, fixed, any_fixed, target, svd_tol, out):
    """One level of the priority loop: out = fixed + J̃^{+λ} (e − J fixed); returns λ."""
    n = J.shape[1]
    e_hat = e.copy()
    if any_fixed:
        for r in range(6):
            acc = 0.0
            for j in range(n):
                acc += J[r, j] * fixed[j]
            e_hat[r] = e[r] - acc
    Jm = np.empty((6, n))
    for r in range(6):
        for j in range(n):
            Jm[r, j] = J[r, j] if active[j] else 0.0
    u, s, vt = jacobi_svd(Jm)
    for j in range(n):
        out[j] = fixed[j] if any_fixed else 0.0
    rank = s.shape[0]
    while rank > 0 and s[rank - 1] <= svd_tol:
        rank -= 1
    if rank == 0:
        return 0.0
    lam = _auto_lambda(math.sqrt(np.dot(e_hat, e_hat)), s[rank - 1], target)
    for i in range(rank):
        gain = s[i] / (s[i] * s[i] + lam * lam) if lam != 0.0 else 1.0 / s[i]
        c = gain * np.dot(u[:, i], e_hat)
        for j in range(n):
            out[j] += c * vt[i, j]
    return lam


@numba.njit(cache=True)
def _step(J, e, norm, rmm, theta, lower, upper, free, tmax, svd_tol, dtheta):
    """compute_step for one level; returns (Δθ magnitude before clamping, residual clamped)."""
    n = theta.shape[0]
    e_use = e
    clamped_res = False
    if rmm > 0.0 and norm > rmm:
        e_use = e * (rmm / math.sqrt(np.dot(e, e)))
        clamped_res = True
    fixed = np.zeros(n)
    clamped = np.zeros(n, dtype=np.bool_)
    active = free.copy()
    any_fixed = False
    while True:
        _priority_pass(J, e_use, active, fixed, any_fixed, tmax, svd_tol, dtheta)
        changed = False
        for j in range(n):
            t = theta[j] + dtheta[j]
            if active[j] and (t > upper[j] or t < lower[j]):
                fixed[j] = (upper[j] if t > upper[j] else lower[j]) - theta[j]
                clamped[j] = True
                active[j] = False
                any_fixed = True
                changed = True
        if not changed:
            break
    for j in range(n):
        if clamped[j]:
            dtheta[j] = fixed[j]
        if not free[j]:
            dtheta[j] = 0.0
    mag = math.sqrt(np.dot(dtheta, dtheta))
    diff_clamped = mag > tmax
    if diff_clamped:
        dtheta *= tmax / math.sqrt(np.dot(dtheta, dtheta))
    if any_fixed or diff_clamped:  # _exactly_inside
        lo, up = lower.copy(), upper.copy()
        for _ in range(8):
            moved = False
            for j in range(n):
                t = theta[j] + dtheta[j]
                if t > up[j] and theta[j] <= up[j]:
                    dtheta[j] = np.nextafter(up[j] - theta[j], -np.inf)
                    up[j] = np.nextafter(up[j], -np.inf)
                    moved = True
                elif t < lo[j] and theta[j] >= lo[j]:
                    dtheta[j] = np.nextafter(lo[j] - theta[j], np.inf)
                    lo[j] = np.nextafter(lo[j], np.inf)
                    moved = True
            if not moved:
                break
    return mag, clamped_res


@numba.njit(cache=True)
def _evaluate(q, target, wp, wo, ch, T, J, P, e):
    basis, qidx, mult, offset, start, end, axis, revolute, select = ch
    _pose_jacobian(q, basis, qidx, mult, offset, start, end, axis, revolute, select, T, J, P)
    _residual(T, target, e)
    for r in range(3):
        e[r] *= wp
        e[3 + r] *= wo
        for j in range(J.shape[1]):
            J[r, j] *= wp
            J[3 + r, j] *= wo
    return math.sqrt(np.dot(e, e))


@numba.njit(cache=True)
def solve_local(theta0, target, ch, lower, upper, free, continuous, wp, wo, tol_p, tol_o,
                tmax, svd_tol, residual_tol, max_iterations, window, ratio):
    """One PDLS local solve; returns (θ, best θ, status code, iterations)."""
    n = theta0.shape[0]
    T, P, J, e = np.empty((4, 4)), np.empty((4, 4)), np.empty((6, n)), np.empty(6)
    dtheta = np.empty(n)
    theta = np.minimum(np.maximum(theta0, lower), upper)
    for j in range(n):  # place(): wrap continuous joints, clip
        if continuous[j]:
            theta[j] = (theta[j] + math.pi) % (2.0 * math.pi) - math.pi
    theta = np.minimum(np.maximum(theta, lower), upper)
    norm = _evaluate(theta, target, wp, wo, ch, T, J, P, e)
    best, best_key = theta.copy(), math.inf
    theta_prev = theta.copy()
    prev_norm = -1.0
    rmm, speed_cap = -1.0, -1.0        # residual clamp and speed-up cap (-1: unset)
    last_mag, last_clamped, last_applied, have_step = 0.0, False, math.inf, False
    last_norm = norm
    history = np.empty(max_iterations + 2)
    h = 0
    iteration = 0
    while True:
        key = max(norm, residual_tol)
        if key < best_key:
            best[:], best_key = theta, key
        pos = math.sqrt(e[0] ** 2 + e[1] ** 2 + e[2] ** 2) / wp
        ori = math.sqrt(e[3] ** 2 + e[4] ** 2 + e[5] ** 2) / wo
        if pos <= tol_p and ori <= tol_o:
            return theta, best, CONVERGED, iteration
        if window > 0:
            history[h] = norm
            h += 1
            if h > window and history[h - 1] > ratio * history[h - 1 - window]:
                return theta, best, STUCK, iteration
        diverging = prev_norm >= 0.0 and norm > 2.0 * prev_norm
        if diverging:
            theta[:] = theta_prev
            norm = _evaluate(theta, target, wp, wo, ch, T, J, P, e)
        if have_step and last_applied < 1e-12 and not last_clamped:
            return theta, best, STALLED, iteration
        if iteration >= max_iterations:
            return theta, best, MAX_ITERATIONS, iteration
        if have_step:   # AdaptiveStepSize.update
            if last_mag > tmax or diverging:
                current = last_norm if rmm < 0.0 else rmm
                rmm = max(current * 0.5, residual_tol if residual_tol > 0 else 1e-12)
                if diverging:
                    speed_cap = rmm if speed_cap < 0.0 else min(speed_cap, rmm)
            elif last_mag < 0.5 * tmax and rmm >= 0.0 and last_clamped:
                rmm = rmm * 1.5 if speed_cap < 0.0 else min(rmm * 1.5, speed_cap)
        last_norm = norm
        last_mag, last_clamped = _step(J, e, norm, rmm, theta, lower, upper, free, tmax,
                                       svd_tol, dtheta)
        have_step = True
        nxt = theta + dtheta
        for j in range(n):
            if continuous[j]:
                nxt[j] = (nxt[j] + math.pi) % (2.0 * math.pi) - math.pi
            nxt[j] = min(max(nxt[j], lower[j]), upper[j])
        applied = nxt - theta
        last_applied = math.sqrt(np.dot(applied, applied))
        theta_prev[:] = theta
        prev_norm = norm
        theta = nxt
        iteration += 1
        norm = _evaluate(theta, target, wp, wo, ch, T, J, P, e)


@numba.njit(cache=True)
def pose_errors(q, target, ch):
    """(position [m], orientation [rad]) error of the tip pose at q against target (4, 4)."""
    n = q.shape[0]
    T, P, J, e = np.empty((4, 4)), np.empty((4, 4)), np.empty((6, n)), np.empty(6)
    _evaluate(q, target, 1.0, 1.0, ch, T, J, P, e)
    return math.sqrt(e[0] ** 2 + e[1] ** 2 + e[2] ** 2), math.sqrt(e[3] ** 2 + e[4] ** 2
                                                                 + e[5] ** 2)


@numba.njit(cache=True)
def _now():
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@numba.njit(cache=True)
def solve_restarts(start, use_start, pool, deadline, target, ch, lower, upper, free, continuous,
                   wp, wo, tol_p, tol_o, tmax, max_iterations, window, ratio, restart):
    """IKSolver.solve's loop: local solves from start (if use_start), then from the rows of pool
    (fresh seeds (n,)) while unconverged and before ``deadline`` (perf_counter seconds).

    Returns (best q, its status, iterations, local solves run)."""
    best_q, best_score, best_status = start.copy(), math.inf, MAX_ITERATIONS
    iterations = 0
    runs = 0
    q0 = start
    if not use_start:
        q0, runs = pool[0], 1
    while True:
        theta, best, status, its = solve_local(q0, target, ch, lower, upper, free, continuous,
                                               wp, wo, tol_p, tol_o, tmax, 1e-9, 1e-10,
                                               max_iterations, window, ratio)
        iterations += its
        q = theta if status == CONVERGED or status == STUCK else best
        pos, ori = pose_errors(q, target, ch)
        score = math.hypot(pos * wp, ori * wo)
        if score < best_score:
            best_q, best_score, best_status = q, score, status
        if status == CONVERGED or not restart or _now() >= deadline or runs >= pool.shape[0]:
            return best_q, best_status, iterations, runs
        q0 = pool[runs]
        runs += 1


class PoseSolver:
    """Prototype of :meth:`pdls_ik.IKSolver.solve` on the compiled local solve.

    Same restart loop: a local PDLS solve from the seed (progress monitor on), then fresh random
    in-limit seeds from ``numpy.random.default_rng(config.random_seed)`` until the timeout; the
    best attempt by weighted pose error is returned, wrapped and clipped. Full-orientation pose
    goals without joint locks only.

    Args:
        linkage, tip, base: as for IKSolver.  config: :class:`pdls_ik.config.IKConfig`.
    """

    #: restart seeds drawn per call into the compiled loop (the stream IKSolver draws one by one)
    POOL = 32

    def __init__(self, linkage, tip: str, base=None, config=None):
        from pdls_ik.batch import ChainArrays
        from pdls_ik.config import IKConfig
        from pdls_ik.ik import RESTART_RATIO, RESTART_WINDOW
        self.config = cfg = config if config is not None else IKConfig()
        c = self.chain = ChainArrays(linkage, tip, base)
        self.ch = (c.basis, c.qidx, c.multiplier, c.offset, c.start, c.end, c.axis, c.revolute,
                   c.select)
        self.monitor = (RESTART_WINDOW, RESTART_RATIO) if cfg.random_restarts else (0, 1.0)
        self.middle = np.where(np.isfinite(c.lower) & np.isfinite(c.upper),
                               0.5 * (c.lower + c.upper), 0.0)
        self.chain_variables = np.flatnonzero(c.free)

    def solve(self, target, seed=None, timeout=None):
        """(q (n,), success, status, iterations, restarts) for a goal (4, 4) in the base frame."""
        t0 = time.perf_counter()
        cfg, c = self.config, self.chain
        timeout = cfg.timeout if timeout is None else float(timeout)
        target = np.ascontiguousarray(target, dtype=float)
        start = self.middle.copy() if seed is None else np.array(seed, dtype=float)
        start[c.continuous] = (start[c.continuous] + math.pi) % (2.0 * math.pi) - math.pi
        start = np.clip(start, c.lower, c.upper)
        rng = np.random.default_rng(cfg.random_seed)
        idx = self.chain_variables
        tols = (cfg.position_tolerance, cfg.orientation_tolerance)
        best_q, best_score, best_status = start, math.inf, MAX_ITERATIONS
        iterations = restarts = 0
        use_start = True
        while True:
            pool = np.tile(start, (self.POOL, 1))
            pool[:, idx] = rng.uniform(c.sample_lo[idx], c.sample_hi[idx], (self.POOL, idx.size))
            q, status, its, runs = solve_restarts(
                start, use_start, pool, t0 + timeout, target, self.ch, c.lower, c.upper, c.free,
                c.continuous, cfg.position_weight, cfg.orientation_weight, *tols, cfg.max_step,
                cfg.max_iterations, *self.monitor, cfg.random_restarts)
            iterations += its
            restarts += runs
            use_start = False
            pos, ori = pose_errors(q, target, self.ch)
            score = math.hypot(pos * cfg.position_weight, ori * cfg.orientation_weight)
            if score < best_score:
                best_q, best_score, best_status = q, score, status
            if runs < self.POOL or status == CONVERGED:
                break   # else the pool is used up and the time is not: draw a fresh one
        q = best_q.copy()
        q[c.continuous] = (q[c.continuous] + math.pi) % (2.0 * math.pi) - math.pi
        q = np.clip(q, c.lower, c.upper)
        pos, ori = pose_errors(q, target, self.ch)
        ok = pos <= tols[0] and ori <= tols[1]
        return q, ok, "converged" if ok else STATUS_NAMES[best_status], iterations, restarts
