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
Numba backend of :meth:`pdls_ik.IKSolver.solve` for a plain pose or position-only goal.

A transcription of :func:`pdls_ik.pdls.solve` for the problem that IKSolver builds for such a
goal — joint locks (if any) above the weighted residual of :class:`pdls_ik.tasks.FrameTask` (full
orientation: 6 rows, position-only: 3 rows) — with the options IKSolver passes: the step of
:func:`pdls_ik._accel.step_numba.pose_step` (automatic or fixed λ, SVD damped pseudoinverse, the
limiting loop with the periodic variables turned through their limits, Δθ clamping to
``theta_diff_max_mag``), the adaptive step size (slow-down / speed-up of the residual clamps),
divergence check with revert, stall, iteration and time budgets (the clock, :func:`now`, is read
every eighth iteration), the best iterate (norms within rounding tie: the earlier stays), and
IKSolver's restart monitor (:data:`pdls_ik.ik.restarts.RESTART_MONITOR`) with restarts from
IKSolver's table of random seeds (:class:`pdls_ik.ik.restarts.SeedTable`).

Not covered (the NumPy path handles them): extra tasks, posture, inequality rows, line searches,
``limit_strategy="pgs"``, a free rotation about a tool axis, a base below moving joints of the
path. The NumPy code is the reference: ``test/_accel/test_ik_backends.py`` checks that both
backends return the same answers, iteration and restart counts.

:func:`solve_local`, the loop of iterations, allocates nothing and borrows the arrays of
:func:`solve_restarts`: it is compiled without reference counting
(:data:`pdls_ik._accel.step_numba.BORROWING`).
"""
from __future__ import annotations

import math
import sys
import time
from typing import List, Tuple

from llvmlite import ir
import numba
from numba.core import cgutils, types
from numba.experimental import structref
from numba.extending import intrinsic
import numpy as np
from pdls_ik._accel import compiled_entry, in_cache, use_sources_cache
from pdls_ik._accel.chain_numba import chain_tuple, pose_jacobian, pose_residual, turned
from pdls_ik._accel.step_numba import (adapt_step_size, BORROWING, improves_best, lock_arrays,
                                       locks_held, pending_sigma, pose_step, reset_basis,
                                       SIGMA_PENDING, step_work)
from pdls_ik.ik.restarts import (CHECK_GOAL, CHECK_SEED, GOAL_UNCHECKED, RESTART,
                                 SEED_UNCHECKED, USE_START)
from pdls_ik.lie.se3 import MAX_GOAL_COORDINATE, QUAT_NORM_NOTE_TOL
from pdls_ik.model.chain_arrays import ChainArrays

use_sources_cache()     # before the first cached kernel


#: status codes of the kernel; STUCK is the restart monitor's verdict (reported as "stalled")
CONVERGED, STALLED, MAX_ITERATIONS, MAX_TIME, STUCK = 0, 1, 2, 3, 4
STATUS_NAMES = ('converged', 'stalled', 'max_iterations', 'max_time', 'stalled')
#: indices of the metrics vector filled by :func:`solve_restarts` (M_INSIDE: 1.0 when the answer
#: is strictly inside the state's ``inside`` bounds; M_HELD: 1.0 when its locks are held)
(M_NORM, M_LAMBDA, M_RANK, M_SIGMA, M_POS, M_ORI, M_STEPPED, M_LOCK_NORM, M_LOCK_LAMBDA,
 M_LOCK_RANK, M_LOCK_SIGMA, M_INSIDE, M_HELD) = range(13)
M_SIZE = 13
#: PDLSOptions defaults that IKSolver keeps and the kernel hard-codes (asserted by the tests):
#: svd_tol, residual_tol, theta_diff_tol, divergence_factor, slowdown_factor, speedup_factor,
#: speedup_threshold, slowdown_threshold
OPTION_DEFAULTS = {'svd_tol': 1e-9, 'residual_tol': 1e-10, 'theta_diff_tol': 1e-12,
                   'divergence_factor': 1.0, 'slowdown_factor': 0.5, 'speedup_factor': 1.5,
                   'speedup_threshold': 0.5, 'slowdown_threshold': 1.0}


@structref.register
class PoseStateType(types.StructRef):
    """numba type of :class:`PoseState`."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class PoseState(structref.StructRefProxy):
    """
    What :func:`solve_restarts` needs beyond the goal and seed, built once per :class:`PoseKernel`.

    A numba structref (:func:`pose_state`): numba types it at a call as one object, where it
    types the tuples of the same arrays member by member (~2 µs a call). Fields: ``ch``,
    ``bounds``, ``pose``, ``locks``, ``options`` (as in :func:`solve_local`), ``chain_idx``
    (k,), ``start`` (n,), ``metrics`` (``M_SIZE``,), ``work`` (:func:`restart_work`), ``inside``
    (2, n) (the strict bounds of ``M_INSIDE``). The arrays are shared with the Python objects
    they came from (the goal in ``pose[0]``, metrics).
    """


structref.define_boxing(PoseStateType, PoseState)
structref.define_constructor(PoseState, PoseStateType, ('ch', 'bounds', 'pose', 'locks',
                                                        'options', 'chain_idx', 'start',
                                                        'metrics', 'work', 'inside'))


@numba.njit(cache=True)
def pose_state(ch, bounds, pose, locks, options, chain_idx, start, metrics, work, inside):
    """Return the :class:`PoseState` of these arguments (compiled: cached with the kernels)."""
    return PoseState(ch, bounds, pose, locks, options, chain_idx, start, metrics, work, inside)


#: time.perf_counter() is clock_gettime(CLOCK_MONOTONIC) with a 64-bit struct timespec (Linux on a
#: 64-bit machine): the kernels read that clock directly (~20 ns) instead of calling Python
#: (~0.9 µs, the GIL taken)
DIRECT_CLOCK = sys.platform.startswith('linux') and sys.maxsize > 2 ** 32 and \
    time.get_clock_info('perf_counter').implementation == 'clock_gettime(CLOCK_MONOTONIC)'


@intrinsic
def _clock_monotonic(typingctx):
    """time.perf_counter() [s] on Linux: libc's clock_gettime(CLOCK_MONOTONIC, &ts)."""
    def codegen(context, builder, signature, args):
        i64, f64 = ir.IntType(64), ir.DoubleType()
        timespec = ir.LiteralStructType([i64, i64])         # tv_sec, tv_nsec
        ts = cgutils.alloca_once(builder, timespec)
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
        clock_gettime = cgutils.get_or_insert_function(builder.module, fnty, 'clock_gettime')
        builder.call(clock_gettime, [ir.Constant(ir.IntType(32), 1), ts])    # CLOCK_MONOTONIC
        sec = builder.sitofp(builder.load(cgutils.gep_inbounds(builder, ts, 0, 0)), f64)
        nsec = builder.sitofp(builder.load(cgutils.gep_inbounds(builder, ts, 0, 1)), f64)
        return builder.fadd(sec, builder.fmul(nsec, ir.Constant(f64, 1e-9)))
    return types.float64(), codegen


if DIRECT_CLOCK:
    @numba.njit(cache=True, inline='always')
    def now():
        """Return time.perf_counter() [s] (:data:`DIRECT_CLOCK`)."""
        return _clock_monotonic()
else:
    @numba.njit(cache=True)
    def now():
        """Return time.perf_counter() [s], through Python."""
        with numba.objmode(t='float64'):
            t = time.perf_counter()
        return t


@numba.njit(cache=True, inline='always')
def evaluate(q, target, wp, wo, rows, ch, T, J6, P, e6):
    """Weighted residual e6[:rows] and Jacobian J6[:rows] at q; returns ‖e‖ of those rows."""
    pose_jacobian(q, ch, T, J6, P)
    pose_residual(T, target, e6)
    for r in range(3):
        e6[r] *= wp
        e6[3 + r] *= wo
        for j in range(J6.shape[1]):
            J6[r, j] *= wp
            J6[3 + r, j] *= wo
    acc = 0.0
    for r in range(rows):
        acc += e6[r] * e6[r]
    return math.sqrt(acc)


@numba.njit(cache=True, inline='always')
def _place(theta, lower, upper, continuous, periodic):
    """
    Place θ in the limits, in place.

    Continuous joints wrapped into [-π, π), periodic ones outside their limits turned onto an image
    within them if any, then clipped into the limits.
    """
    for j in range(theta.shape[0]):
        if continuous[j]:
            theta[j] = (theta[j] + math.pi) % (2.0 * math.pi) - math.pi
        if periodic[j] and (theta[j] > upper[j] or theta[j] < lower[j]):
            image = turned(theta[j], lower[j], upper[j])
            if not math.isnan(image):
                theta[j] = image
        theta[j] = min(max(theta[j], lower[j]), upper[j])


@numba.njit(cache=True, inline='always')
def monitor_window(theta, lower, upper, free, lock, monitor):
    """
    Return the restart monitor's (window, ratio) at θ (as ``PoseProblem.converged``).

    monitor = (window, ratio, limit_window, limit_ratio): the second pair while a free variable
    that is not locked is at one of its limits and the locks are held (limit_window 0: never);
    lock = (lock_idx (L,), lock residual eL (L,), its tolerance): :func:`locks_held`, tested
    only then.
    """
    window, ratio, limit_window, limit_ratio = monitor
    if limit_window > 0:
        lock_idx, eL, tol = lock
        for j in range(theta.shape[0]):
            if free[j] and (theta[j] <= lower[j] or theta[j] >= upper[j]):
                locked = False
                for i in range(lock_idx.shape[0]):
                    locked = locked or lock_idx[i] == j
                if not locked:
                    if locks_held(eL, tol):
                        return limit_window, limit_ratio
                    break
    return window, ratio


@numba.njit(cache=True, inline='always')
def residual_errors(e6, wp, wo, rows):
    """Unweighted (position [m], orientation [rad]) errors of a weighted residual."""
    pos = math.sqrt(e6[0] ** 2 + e6[1] ** 2 + e6[2] ** 2) / wp
    ori = math.sqrt(e6[3] ** 2 + e6[4] ** 2 + e6[5] ** 2) / wo if rows == 6 else 0.0
    return pos, ori


@numba.njit(cache=True)
def _local_work(n, rows, locks, max_iterations):
    """
    Work arrays of :func:`solve_local`, allocated once per call of :func:`solve_restarts`.

    (T, P, J6, e6, step work, dtheta, next θ, previous θ, residual history, per-level step
    metrics, residual clamped flags, lock residual, best iterate's key (2,), residual clamps and
    speed-up caps (4,)): :func:`solve_local` allocates nothing (it borrows its arrays).
    """
    return (np.empty((4, 4)), np.empty((4, 4)), np.empty((6, n)), np.empty(6),
            step_work(rows, n, locks), np.empty(n), np.empty(n), np.empty(n),
            np.empty(max_iterations + 2), np.zeros((2, 3)), np.zeros(2, dtype=np.bool_),
            np.empty(locks), np.empty(2), np.empty(4))


@numba.njit(cache=True, inline='always')
def lock_residual(q, lock_idx, lock_values, lock_cont, w, out):
    """Lock residual w (value − q) (L,), the short way round for continuous joints; its norm."""
    acc = 0.0
    for i in range(lock_idx.shape[0]):
        d = lock_values[i] - q[lock_idx[i]]
        if lock_cont[i]:
            d = (d + math.pi) % (2.0 * math.pi) - math.pi
        out[i] = w * d
        acc += out[i] * out[i]
    return math.sqrt(acc)


@numba.njit(cache=True, **BORROWING)
def solve_local(theta0, ch, bounds, pose, locks, options, budget, out, lw):
    """
    Run one PDLS local solve from theta0 (n,).

    As :func:`pdls_ik.pdls.solve` with IKSolver's problem and options: the levels joint locks
    (``lock_idx`` (L,) held at ``lock_values`` with weight ``lock_w``, met within lock_tol · w;
    L = 0: none) > pose. The clock (``deadline``) is read only once ``min_iterations`` are done.
    Fills theta (n,) and the best iterate best (n,); metrics (``M_*``): per
    level ‖e‖ at theta and λ, rank and σ_min of the last step, pose errors at theta; lw:
    :func:`_local_work`. Returns (status code, iterations).

    The arguments (see :class:`PoseKernel`): ch, the chain tuple (:mod:`.chain_numba`);
    bounds = (lower, upper, free, continuous, periodic); pose = (target, wp, wo, rows, tol_p,
    tol_o); locks = (lock_idx, lock_values, lock_cont, lock_w, lock_tol); options = (lam_fixed,
    tmax, svd_tol, residual_tol, max_iterations, window, ratio, limit_window, limit_ratio, aim):
    the restart monitor (:func:`monitor_window`), tmax the clamp of ‖Δθ‖
    (``theta_diff_max_mag``), aim the step norm the automatic λ aims at (its product with
    ``auto_lambda_theta_diff_max_mag_scale``); budget = (deadline, min_iterations); out = (theta,
    best, metrics).
    """
    lower, upper, free, continuous, periodic = bounds
    target, wp, wo, rows, tol_p, tol_o = pose
    lock_idx, lock_values, lock_cont, lock_w, lock_tol = locks
    lam_fixed, tmax, svd_tol, residual_tol, max_iterations = options[:5]
    window, ratio, limit_window, limit_ratio, aim = options[5:]
    deadline, min_iterations = budget
    theta, best, metrics = out
    n, L = theta0.shape[0], lock_idx.shape[0]
    T, P, J6, e6, wk, dtheta, nxt, theta_prev, history, lm, rc, eL, best_key, clamps = lw
    J, e = J6[:rows], e6[:rows]
    reset_basis(wk[12], wk[16])  # each local solve starts cold (independent of history)
    for j in range(n):      # loops, not slices: no reference counting here (BORROWING)
        theta[j] = theta0[j]
    _place(theta, lower, upper, continuous, periodic)
    norm = evaluate(theta, target, wp, wo, rows, ch, T, J6, P, e6)
    norm_l = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
    for j in range(n):
        best[j] = theta[j]
    best_key[0] = best_key[1] = math.inf
    prev0 = -1.0
    for i in range(4):      # residual clamps and speed-up caps (lock, pose)
        clamps[i] = -1.0
    last_mag, last_applied, have_step = 0.0, math.inf, False
    last_l, last_p = norm_l, norm
    h = 0
    iteration = 0
    status = CONVERGED
    metrics[M_STEPPED] = 0.0
    while True:
        metrics[M_NORM], metrics[M_LOCK_NORM] = norm, norm_l
        metrics[M_POS], metrics[M_ORI] = residual_errors(e6, wp, wo, rows)
        if improves_best(norm_l, norm, L > 0, residual_tol, best_key):
            for j in range(n):
                best[j] = theta[j]
        if metrics[M_POS] <= tol_p and metrics[M_ORI] <= tol_o and \
                locks_held(eL, lock_tol * lock_w):
            break
        elif window > 0:        # the restart monitor, on the pose residual
            history[h] = norm
            h += 1
            w, r = monitor_window(theta, lower, upper, free, (lock_idx, eL, lock_tol * lock_w),
                                  (window, ratio, limit_window, limit_ratio))
            if h > w and history[h - 1] > r * history[h - 1 - w]:
                status = STUCK
                break
        top = norm_l if L else norm
        diverging = prev0 >= 0.0 and top > residual_tol and top - prev0 > prev0
        if diverging:
            for j in range(n):
                theta[j] = theta_prev[j]
            norm = evaluate(theta, target, wp, wo, rows, ch, T, J6, P, e6)
            norm_l = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
            metrics[M_NORM], metrics[M_LOCK_NORM] = norm, norm_l
            metrics[M_POS], metrics[M_ORI] = residual_errors(e6, wp, wo, rows)
        if have_step and last_applied < 1e-12 and not (rc[0] or rc[1]):
            status = STALLED
            break
        if iteration >= max_iterations:
            status = MAX_ITERATIONS
            break
        if iteration >= min_iterations and (iteration & 7) == 7 and now() >= deadline:
            status = MAX_TIME       # every 8th iteration (the clock costs ~1 µs off Linux)
            break
        if have_step:
            adapt_step_size(clamps, last_mag, tmax, diverging, L > 0, last_l, last_p, rc,
                            residual_tol)
        last_l, last_p = norm_l, norm
        last_mag = pose_step((J, e, eL, lock_idx, lock_w), theta, (lower, upper, free, periodic),
                             (lam_fixed, aim, svd_tol, True),
                             (clamps[0] if L else -1.0, clamps[1]), tmax, (dtheta, wk, lm, rc))
        metrics[M_LOCK_LAMBDA], metrics[M_LOCK_RANK], metrics[M_LOCK_SIGMA] = \
            lm[0, 0], lm[0, 1], lm[0, 2]
        metrics[M_LAMBDA], metrics[M_RANK], metrics[M_SIGMA] = lm[1, 0], lm[1, 1], lm[1, 2]
        have_step = True
        metrics[M_STEPPED] = 1.0
        for j in range(n):
            nxt[j] = theta[j] + dtheta[j]
        _place(nxt, lower, upper, continuous, periodic)
        acc = 0.0
        for j in range(n):
            acc += (nxt[j] - theta[j]) ** 2
        last_applied = math.sqrt(acc)
        for j in range(n):
            theta_prev[j] = theta[j]
            theta[j] = nxt[j]
        prev0 = norm_l if L else norm       # level 0 at the θ stepped from
        iteration += 1
        norm = evaluate(theta, target, wp, wo, rows, ch, T, J6, P, e6)
        norm_l = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
    if metrics[M_SIGMA] == SIGMA_PENDING:       # the last step's σ_min, found once
        pending_sigma(lm, wk)
        metrics[M_SIGMA] = lm[1, 2]
    return status, iteration


@numba.njit(cache=True)
def pose_errors(q, target, ch, rows):
    """
    Return the (position [m], orientation [rad]) error of the tip pose at q against target.

    target is (4, 4); the orientation error is 0 for a position-only goal.
    """
    n = q.shape[0]
    return _pose_errors_into(q, target, ch, rows, np.empty((4, 4)), np.empty((4, 4)),
                             np.empty((6, n)), np.empty(6))


@numba.njit(cache=True)
def _pose_errors_into(q, target, ch, rows, T, P, J6, e6):
    evaluate(q, target, 1.0, 1.0, rows, ch, T, J6, P, e6)
    return residual_errors(e6, 1.0, 1.0, rows)


@numba.njit(cache=True)
def restart_work(n, rows, locks, max_iterations, size, tips):
    """
    Return the work arrays of :func:`restarts_into`, allocated once per :class:`PoseKernel`.

    (θ, best θ, q0 (n,) each, local metrics (size,), :func:`_local_work`, the ranking of the
    restart seeds (tips (R, 3, 4), keys (R,), order (R,) int), see :func:`seed_order_into`).
    """
    R = tips.shape[0]
    return (np.empty(n), np.empty(n), np.empty(n), np.empty(size),
            _local_work(n, rows, locks, max_iterations),
            (tips, np.empty(R), np.empty(R, dtype=np.int64)))


@numba.njit(cache=True)
def seed_order_into(tips, target, wp, wo, rows, keys, order):
    """
    Fill order (R,) with :func:`pdls_ik.ik.restarts.seed_order` of tips (R, 3, 4), keys (R,).

    The same floating-point operations in the same order (a stable insertion sort: ties keep
    table order), so that both backends restart from the same seeds.
    """
    ww, vv = wp * wp, wo * wo
    for k in range(tips.shape[0]):
        d0 = tips[k, 0, 3] - target[0, 3]
        d1 = tips[k, 1, 3] - target[1, 3]
        d2 = tips[k, 2, 3] - target[2, 3]
        key = ww * (d0 * d0 + d1 * d1 + d2 * d2)
        if rows == 6:
            trace = tips[k, 0, 0] * target[0, 0]
            for r in range(3):
                for c in range(3):
                    if r or c:
                        trace = trace + tips[k, r, c] * target[r, c]
            key = key + vv * (3.0 - trace)
        keys[k] = key
        j = k
        while j > 0 and keys[order[j - 1]] > key:
            order[j] = order[j - 1]
            j -= 1
        order[j] = k


@numba.njit(cache=True, inline='always')
def _seed_row(row, ranked, rank, pose):
    """Table row of restart row (ranked rows by :func:`seed_order_into`, done once a call)."""
    tips, keys, order = rank
    if row >= tips.shape[0]:
        return row, ranked
    if not ranked:
        seed_order_into(tips, pose[0], pose[1], pose[2], pose[3], keys, order)
    return order[row], True


@numba.njit(cache=True, inline='always')
def goal_taken(goal, target):
    """
    Copy a (4, 4) goal into target when :func:`pdls_ik.lie.se3.parse_pose` takes it as it is.

    That is: finite, last row (0, 0, 0, 1) (within numpy.allclose), rotation block orthonormal
    within ``QUAT_NORM_NOTE_TOL`` (no repair, no note) with a positive determinant, position
    within ``MAX_GOAL_COORDINATE``; the same tests in the same floating-point operations.
    Returns False, target untouched, otherwise: parse_pose then gives the error or the repair.
    """
    a, b, c, px = goal[0, 0], goal[0, 1], goal[0, 2], goal[0, 3]
    d, e, f, py = goal[1, 0], goal[1, 1], goal[1, 2], goal[1, 3]
    g, h, i, pz = goal[2, 0], goal[2, 1], goal[2, 2], goal[2, 3]
    x, y, z, w = goal[3, 0], goal[3, 1], goal[3, 2], goal[3, 3]
    if not math.isfinite(a + b + c + d + e + f + g + h + i + px + py + pz + x + y + z + w):
        return False
    if max(abs(x), abs(y), abs(z)) > 1e-9 or abs(w - 1.0) > 1e-9 + 1e-5:
        return False
    ortho = max(abs(a * a + d * d + g * g - 1.0), abs(b * b + e * e + h * h - 1.0),
                abs(c * c + f * f + i * i - 1.0), abs(a * b + d * e + g * h),
                abs(a * c + d * f + g * i), abs(b * c + e * f + h * i))
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    if ortho > QUAT_NORM_NOTE_TOL or det <= 0.0:
        return False
    if max(abs(px), abs(py), abs(pz)) > MAX_GOAL_COORDINATE:
        return False
    for r in range(3):
        for k in range(4):
            target[r, k] = goal[r, k]
    return True


@numba.njit(cache=True, inline='always')
def seed_taken(start, lower, upper, continuous):
    """
    Wrap the continuous joints of a seed start (n,) in place; whether it is finite, in limits.

    IKSolver._check_q's fast path: the same wrap as :func:`pdls_ik.model.joint_vector.wrap_angle`,
    the same tests.
    """
    for j in range(start.shape[0]):
        if not math.isfinite(start[j]):
            return False
    for j in range(start.shape[0]):
        if continuous[j]:
            start[j] = (start[j] + math.pi) % (2.0 * math.pi) - math.pi
    for j in range(start.shape[0]):
        if not lower[j] <= start[j] <= upper[j]:
            return False
    return True


@numba.njit(cache=True)
def solve_restarts(state, goal, seed, seeds, first, deadline, min_iterations, flags, best_q):
    """
    Run IKSolver.solve's loop of local solves on a :class:`PoseKernel`'s state.

    :param state: :class:`PoseState` (:func:`pose_state`): the constant arguments of
        :func:`solve_local` and the work arrays; its ``metrics`` (``M_*``) receive those of the
        answer, its ``start`` the start configuration.
    :param goal: (4, 4), taken as the target when ``flags`` has ``CHECK_GOAL`` and
        :func:`goal_taken` accepts it (else the target already set is used).
    :param seed: (n,), the start configuration; with ``CHECK_SEED``, checked and wrapped
        (:func:`seed_taken`), else taken as it is (checked by the caller).
    :param seeds, first, deadline, min_iterations: as in :func:`restarts_into`.
    :param flags: ``USE_START | RESTART | CHECK_GOAL | CHECK_SEED``
        (:mod:`pdls_ik.ik.restarts`).
    :param best_q: (n,) out.

    Returns (status code, iterations, local solves run from seeds), or (``GOAL_UNCHECKED``
    or ``SEED_UNCHECKED``, 0, 0) when a check leaves the goal or the seed to the caller's
    own parsing (its errors, repairs and notes); the goal is then untouched, or already taken.
    """
    start, bounds = state.start, state.bounds
    if flags & CHECK_GOAL and not goal_taken(goal, state.pose[0]):
        return GOAL_UNCHECKED, 0, 0
    start[:] = seed
    if flags & CHECK_SEED and not seed_taken(start, bounds[0], bounds[1], bounds[3]):
        return SEED_UNCHECKED, 0, 0
    metrics = state.metrics
    metrics[:] = 0.0
    result = restarts_into((start, (flags & USE_START) != 0, seeds, state.chain_idx, first,
                            deadline, min_iterations, (flags & RESTART) != 0),
                           state.ch, bounds, state.pose, state.locks, state.options, best_q,
                           metrics, state.work)
    inside = state.inside
    metrics[M_INSIDE] = 1.0
    for j in range(best_q.shape[0]):
        if not inside[0, j] < best_q[j] < inside[1, j]:
            metrics[M_INSIDE] = 0.0
    return result


@numba.njit(cache=True, inline='always')
def restarts_into(run, ch, bounds, pose, locks, options, best_q, metrics, work):
    """
    Run the loop of local solves of :func:`solve_restarts`.

    A local solve from start (if use_start), then from start with its chain variables chain_idx
    replaced by the rows first, first + 1, ... of seeds (the random restart table, at least R
    rows, R those of the work's tips: the first R in the goal's :func:`seed_order_into`), while
    unconverged, ``restart`` is set and ``deadline`` (perf_counter seconds) is not passed. The
    first local solve of the call runs at least ``min_iterations`` iterations (unless it ends
    first), however late the clock is.

    Fills best_q (n,) with the best attempt, metrics with its metrics (see :func:`solve_local`;
    ``M_HELD``: its locks held); returns (its status code, iterations, local solves run from
    seeds). Attempts are ranked as the NumPy reference ranks them: those that hold their locks
    first, then by weighted pose error.

    run = (start, use_start, seeds, chain_idx, first, deadline, min_iterations, restart); work:
    :func:`restart_work`; the other arguments as in :func:`solve_local`.
    """
    start, use_start, seeds, chain_idx, first, deadline, min_iterations, restart = run
    target, wp, wo, rows = pose[0], pose[1], pose[2], pose[3]
    theta, best, q0, local, lw, rank = work
    q0[:] = start
    best_score, best_status, best_held = math.inf, MAX_ITERATIONS, False
    iterations = 0
    runs = 0
    row = first
    ranked = False
    if not use_start:
        k, ranked = _seed_row(row, ranked, rank, pose)
        q0[chain_idx] = seeds[k]
        row += 1
        runs = 1
    while True:
        status, its = solve_local(q0, ch, bounds, pose, locks, options,
                                  (deadline, min_iterations), (theta, best, local), lw)
        min_iterations = 0
        iterations += its
        if status == CONVERGED or status == STUCK:
            pos, ori = local[M_POS], local[M_ORI]
            q = theta
        else:
            q = best
            pos, ori = _pose_errors_into(best, target, ch, rows, lw[0], lw[1], lw[2], lw[3])
        score = math.hypot(pos * wp, ori * wo)
        eL = lw[11]         # the lock residual at q (the next local solve starts its own)
        lock_residual(q, locks[0], locks[1], locks[2], locks[3], eL)
        held = locks_held(eL, locks[4] * locks[3])
        if (held and not best_held) or (held == best_held and score < best_score):
            best_score, best_status, best_held = score, status, held
            best_q[:] = q
            metrics[:] = local
            metrics[M_POS], metrics[M_ORI] = pos, ori
            metrics[M_HELD] = 1.0 if held else 0.0
        if status == CONVERGED or not restart or now() >= deadline or row >= seeds.shape[0]:
            return best_status, iterations, runs
        q0[:] = start
        k, ranked = _seed_row(row, ranked, rank, pose)
        q0[chain_idx] = seeds[k]
        row += 1
        runs += 1


class PoseKernel:
    """
    The compiled one-shot solve of one :class:`pdls_ik.IKSolver` (see the module doc).

    :param linkage, tip, base: the solver's chain (a base above the tip, or joined to it by fixed
        joints). chain_idx: (k,) indices of the variables that restart seeds replace.
    :param position_only: 3 position rows instead of the 6 pose rows.
    :param config: the solver's :class:`pdls_ik.config.IKConfig`; monitor: (window, ratio,
        window at a limit, ratio at a limit) of the restart monitor, used when
        ``config.random_restarts``.
    :param free: (n,) bool, the variables the solver moves.
    :param periodic: (n,) bool, the variables turned through their limits
        (:func:`pdls_ik.model.joint_vector.periodic_variables`).
    :param locks: the solver's :class:`pdls_ik.tasks.JointLockTask` (distinct joints) or None;
        lock_tol: a locked joint is held within lock_tol · weight of its value [rad or m].
    :param goal: the (4, 4) array holding the goal (IKSolver passes its FrameTask's
        ``target_pose``, which :func:`solve_restarts` then sets in place); default its own.
    :param tips: (R, 3, 4) tip poses of the table's first R restart seeds
        (:meth:`pdls_ik.ik.restarts.SeedTable.tip_poses`), tried nearest to the goal first;
        default none (table order).
    :param inside: (2, n) strict bounds: ``M_INSIDE`` of a solve's metrics tells whether its
        answer is strictly within them (IKSolver: in the limits and at none); default the limits
        (an answer at a limit is not inside).

    The kernel's :class:`PoseState` (built by :meth:`load`) holds the constant arguments and the
    work arrays of every solve: one PoseKernel (hence one IKSolver) must not solve from two
    threads at once (as its FrameTask's goal already forbade); one solver per thread.
    """

    def __init__(self, linkage, tip: str, base: str, chain_idx: np.ndarray,
                 position_only: bool, config, monitor, free, periodic, locks=None,
                 lock_tol: float = 0.0, goal=None, tips=None, inside=None):
        c = ChainArrays(linkage, tip, base)
        self.ch = chain_tuple(c)
        self.limits = (c.lower, c.upper, np.ascontiguousarray(free, dtype=np.bool_),
                       c.continuous, np.ascontiguousarray(periodic, dtype=np.bool_))
        self.chain_idx = np.asarray(chain_idx, dtype=np.int64)
        self.n = c.lower.shape[0]
        self.rows = 3 if position_only else 6
        self.weights = (config.position_weight, config.orientation_weight)
        self.tolerances = (config.position_tolerance, config.orientation_tolerance)
        lock = lock_arrays(locks, c.continuous)
        #: levels: 2 with joint locks (locks > pose), else 1
        self.levels = 1 if locks is None else 2
        #: the metrics indices (norm, λ, rank, σ_min) of each level, highest first
        self._level_rows = ([(M_LOCK_NORM, M_LOCK_LAMBDA, M_LOCK_RANK, M_LOCK_SIGMA)]
                            if locks is not None else []) + [(M_NORM, M_LAMBDA, M_RANK, M_SIGMA)]
        monitor = tuple(monitor) if config.random_restarts else (0, 1.0, 0, 1.0)
        self.target = np.eye(4) if goal is None else goal
        #: the metrics of the last solve (``M_*``) and its start configuration (n,) (the seed
        #: as checked and wrapped), shared with the kernel state
        self.metrics, self.start = np.zeros(M_SIZE), np.empty(self.n)
        #: the constant arguments of :func:`solve_local`: chain, bounds, pose, locks, options
        self._constants = (self.ch, self.limits, (self.target, *self.weights, self.rows,
                                                  *self.tolerances),
                           (*lock, float(lock_tol)),
                           (config.damping if config.damping >= 0.0 else -1.0, config.max_step,
                            OPTION_DEFAULTS['svd_tol'], OPTION_DEFAULTS['residual_tol'],
                            config.max_iterations, *monitor,
                            config.max_step * config.damping_target_scale))
        self._max_iterations = config.max_iterations
        #: tip poses (R, 3, 4) of the ranked restart seeds (none: table order)
        self._tips = np.zeros((0, 3, 4)) if tips is None else \
            np.ascontiguousarray(tips, dtype=float)
        self._inside = np.array([c.lower, c.upper] if inside is None else inside, dtype=float)
        self._state = None
        self._run = solve_restarts
        self.ready = False

    @property
    def compiled(self) -> bool:
        """Whether :meth:`load` has nothing to compile (loaded, or in numba's cache)."""
        return self.ready or in_cache(solve_restarts, pose_errors, pose_state, restart_work)

    def load(self) -> None:
        """
        Compile the kernel, or load it from numba's cache, build its state, by one tiny solve.

        ~0.3 s with the cache, about 45 s the first time on a machine.
        :meth:`pdls_ik.IKSolver.solve` calls it before its clock starts, so that no timeout is
        spent compiling.
        """
        if not self.ready:
            n = self.n
            work = restart_work(n, self.rows, self._constants[3][0].shape[0],
                                self._max_iterations, M_SIZE, self._tips)
            self._state = pose_state(*self._constants, self.chain_idx, self.start, self.metrics,
                                     work, self._inside)
            start = np.clip(np.zeros(n), self.limits[0], self.limits[1])
            # the types of every call (:meth:`solve`): float64 C arrays, Python ints and
            # floats
            args = (self._state, np.eye(4), start, np.zeros((1, self.chain_idx.size)), 0, 0.0,
                    0, USE_START, np.empty(n))
            solve_restarts(*args)
            self._run = compiled_entry(solve_restarts, args)
            pose_errors(start, np.eye(4), self.ch, self.rows)
            self.ready = True

    def _target(self, frame) -> np.ndarray:
        if frame.target_pose is not self.target:
            self.target[:3, :3] = frame.target_rotation
            self.target[:3, 3] = frame.target_position
        return self.target

    def solve(self, goal: np.ndarray, seed: np.ndarray, first: int, seeds: np.ndarray,
              deadline: float, min_iterations: int, flags: int, q: np.ndarray):
        """
        Solve by :func:`solve_restarts` (its arguments; goal (4, 4), seed (n,) float arrays).

        Local solves from the seed (flags ``USE_START``), then from the seed rows first,
        first + 1, ... (``RESTART``); the first runs at least ``min_iterations`` before the
        clock may stop it. Fills q (n,) with the best configuration and :attr:`metrics` with
        its metrics (:meth:`score`, :meth:`outcome`); returns (its PDLS status, iterations,
        local solves run from seeds), or (``GOAL_UNCHECKED`` or ``SEED_UNCHECKED``, 0, 0) when
        a check (``CHECK_GOAL``, ``CHECK_SEED``) leaves that input to the caller
        (:mod:`pdls_ik.ik.restarts`).

        Called through the compiled entry point of :meth:`load` (:func:`compiled_entry`): the
        arrays must be float64 C arrays (goal, seed and seeds may be read-only: the kernel
        writes only q), the others Python ints and floats.
        """
        status, iterations, runs = self._run(self._state, goal, seed, seeds, first, deadline,
                                             min_iterations, flags, q)
        return STATUS_NAMES[status] if status >= 0 else status, iterations, runs

    def score(self, m: List[float]) -> Tuple[float, float]:
        """
        Rank of a metrics vector m (``M_*``, :attr:`metrics` as a list): smaller is better.

        (0 when its locks are held, else 1; weighted pose error), as :func:`restarts_into`.
        """
        return (1.0 - m[M_HELD], math.hypot(m[M_POS] * self.weights[0],
                                            m[M_ORI] * self.weights[1]))

    def outcome(self, m: List[float]) -> Tuple[Tuple[List, List, List, List], float, float,
                                               bool]:
        """
        Return the per-level lists, pose errors and place of a metrics vector m (``M_*``, a list).

        ((residual norms, λ, ranks, smallest singular values), joint locks first, empty but
        for the norms when no step was taken; position error [m], orientation error [rad];
        whether the answer is strictly inside the ``inside`` bounds).
        """
        if self.levels == 1:
            norm = [m[M_NORM]]
            level = (norm, [m[M_LAMBDA]], [int(m[M_RANK])], [m[M_SIGMA]]) if m[M_STEPPED] \
                else (norm, [], [], [])
        else:
            rows = self._level_rows
            norms = [m[lv[0]] for lv in rows]
            level = (norms, [m[lv[1]] for lv in rows], [int(m[lv[2]]) for lv in rows],
                     [m[lv[3]] for lv in rows]) if m[M_STEPPED] else (norms, [], [], [])
        return level, m[M_POS], m[M_ORI], m[M_INSIDE] == 1.0

    def errors(self, q: np.ndarray, frame):
        """(position [m], orientation [rad]) errors of q (n,) against the goal of ``frame``."""
        pos, ori = pose_errors(np.ascontiguousarray(q, dtype=float), self._target(frame),
                               self.ch, self.rows)
        return float(pos), float(ori)


#: public name of the placement in the limits for the other kernels (pose_problem_numba)
place = _place
