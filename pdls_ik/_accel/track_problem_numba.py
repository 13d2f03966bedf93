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
Numba backend of :meth:`pdls_ik.IKSolver.track` for a plain pose or position-only goal.

A transcription of one tracking cycle of the NumPy reference (``IKSolver.track`` with its
:class:`~pdls_ik.ik.track_problem.TrackProblem`, :func:`pdls_ik.pdls.solve` and
:func:`pdls_ik.pdls.step.compute_step`) for the levels IKSolver builds without extra tasks:
joint locks (if any) > the pose > the posture in the null space of both, each step by
:func:`pdls_ik._accel.step_numba.levels_step`. The posture variation is applied in the first
iteration of the cycle only, clipped per joint; the time budget is checked once the minimum of
iterations is applied.

The cycle first takes the undamped step toward the goal within the joint limits: when it
leaves the cycle's velocity box, the cycle aims instead at the pose predicted by the
box-constrained least-squares step (projected Gauss–Seidel,
:func:`pdls_ik._accel.step_numba.pgs_box_step`), its residual shifted by what that step leaves
undone, the joints it puts on a bound held there (``TrackProblem.aim``): clamped from the
start of every step (``lower == upper``), as :func:`pdls_ik.pdls.step.compute_step` does.
``test/test_track_backends.py`` checks that both backends give the same cycles.
"""
from __future__ import annotations

import math

import numba
from numba.core import types
from numba.experimental import structref
import numpy as np
from pdls_ik._accel import in_cache, use_sources_cache
from pdls_ik._accel.chain_numba import chain_tuple
from pdls_ik._accel.ik_solver_numba import (CONVERGED, evaluate, lock_residual, MAX_ITERATIONS,
                                            now, OPTION_DEFAULTS, residual_errors, seed_taken,
                                            STALLED, STATUS_NAMES)
from pdls_ik._accel.step_numba import (adapt_step_size, exactly_inside, improves_best,
                                       levels_step, lock_arrays, locks_held, pgs_box_step,
                                       reset_basis, step_work)
from pdls_ik.ik.restarts import CHECK_GOAL, CHECK_SEED, GOAL_UNCHECKED, SEED_UNCHECKED
from pdls_ik.lie.se3 import MAX_GOAL_COORDINATE, QUAT_NORM_NOTE_TOL
from pdls_ik.model.chain_arrays import ChainArrays

use_sources_cache()     # before the first cached kernel

#: PDLSOptions defaults of the box-constrained step (pgs_level_weight, pgs_max_iterations,
#: pgs_tol; asserted by the tests)
PGS_LEVEL_WEIGHT, PGS_MAX_ITERATIONS, PGS_TOL = 1e-3, 200, 1e-12
#: status of a cycle stopped by its time budget (reported as "max_time", STATUS_NAMES[3])
TIMED_OUT = 3
#: metrics vector: (norm, λ, rank, σ_min) of the lock level then the pose level, position and
#: orientation errors at the returned q, whether a step was taken
T_LOCK, T_POSE, T_POS, T_ORI, T_STEPPED = 0, 4, 8, 9, 10


@numba.njit(cache=True)
def _shifted(q, pose, ch, work, shift):
    """
    Evaluate the pose level at q with the cycle's target: e(q) − shift; return its norm.

    pose = (target, wp, wo, rows, ...) as in :func:`track_cycle`; work = (T, J6, P, e6).
    """
    target, wp, wo, rows = pose[0], pose[1], pose[2], pose[3]
    T, J6, P, e6 = work
    evaluate(q, target, wp, wo, rows, ch, T, J6, P, e6)
    acc = 0.0
    for r in range(rows):
        e6[r] -= shift[r]
        acc += e6[r] * e6[r]
    return math.sqrt(acc)


@numba.njit(cache=True)
def track_cycle(q, ch, bounds, pose, locks, posture_task, options, budget, out):
    """
    Run one tracking cycle from q (n,) toward ``target`` (4, 4) within [lo, up] (n,).

    The target of the cycle first (the goal, or the waypoint the box allows, see the module
    doc), then PDLS iterations (at most ``max_iterations``; the time budget ``deadline`` is
    checked once ``min_iterations`` are applied; a waypoint is met after ``min_iterations``)
    on the levels locks (``lock_idx`` (L,) at ``lock_values`` with weight ``lock_w``; L = 0:
    none) > pose (``rows`` 6 or 3, weights wp, wo) > posture (``posture_w`` > 0: w (preferred
    − θ) in the first iteration toward the goal itself, clipped to ±``posture_bound``). Fills
    q_out (n,) and metrics (see ``T_*``; errors against the goal); returns (status code,
    iterations).

    The arguments: ch, the chain tuple (:mod:`.chain_numba`); bounds = (lower, upper, lo, up,
    free) (n,) each; pose = (target, wp, wo, rows, tol_p, tol_o); locks = (lock_idx,
    lock_values, lock_cont, lock_w, lock_tol); posture_task = (preferred, posture_w,
    posture_cont, posture_bound); options = (lam_fixed, tmax, svd_tol, residual_tol,
    max_iterations); budget = (min_iterations, deadline); out = (q_out, metrics).
    """
    lower, upper, lo, up, free = bounds
    target, wp, wo, rows, tol_p, tol_o = pose
    lock_idx, lock_values, lock_cont, lock_w, lock_tol = locks
    preferred, posture_w, posture_cont, posture_bound = posture_task
    lam_fixed, tmax, svd_tol, residual_tol, max_iterations = options
    min_iterations, deadline = budget
    q_out, metrics = out
    n, L = q.shape[0], lock_idx.shape[0]
    T, P, J6 = np.empty((4, 4)), np.empty((4, 4)), np.empty((6, n))
    e6, eL = np.empty(6), np.empty(L)
    J, e = J6[:rows], e6[:rows]
    wk = step_work(rows, n, L)
    lm, no_periodic = np.zeros((2, 3)), np.zeros(n, dtype=np.bool_)
    reset_basis(wk[12])
    dtheta, nxt, theta_prev, best = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    rc = np.zeros(2, dtype=np.bool_)
    no_posture = np.empty(0)
    lo, up = lo.copy(), up.copy()
    theta = np.minimum(np.maximum(q, lo), up)
    shift = np.zeros(rows)
    norm = _shifted(theta, pose, ch, (T, J6, P, e6), shift)
    norm_l = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
    # the target of the cycle (TrackProblem.aim): the undamped step within the joint
    # limits tells whether the goal is within the box [lo, up] to first order
    levels = (J, e, eL, lock_idx, lock_w)
    levels_step(levels, theta, (lower, upper, free, no_periodic), (0.0, tmax, svd_tol, False),
                (-1.0, -1.0), no_posture, False, (dtheta, wk, lm, rc))
    share = math.inf
    for j in range(n):
        d = dtheta[j]
        if d != 0.0:
            room = (up[j] - theta[j]) if d > 0.0 else (lo[j] - theta[j])
            share = min(share, room / d)
    shifted = pinned = False
    if max(0.0, share) < 1.0:
        # no: the pose that the box-constrained least-squares step d predicts is the target
        unbounded = np.full(n, np.inf)
        levels_step(levels, theta, (-unbounded, unbounded, free, no_periodic),
                    (0.0, tmax, svd_tol, False), (-1.0, -1.0), no_posture, False,
                    (dtheta, wk, lm, rc))
        at_bound = np.zeros(n, dtype=np.bool_)
        outside = False
        for j in range(n):
            t = theta[j] + dtheta[j]
            outside |= free[j] and (t > up[j] or t < lo[j])
        if outside:
            pgs_box_step(levels, dtheta.copy(), (lo - theta, up - theta, free),
                         (PGS_LEVEL_WEIGHT, PGS_MAX_ITERATIONS, PGS_TOL), (dtheta, at_bound))
            exactly_inside(theta, dtheta, lo, up, no_periodic, wk[7], wk[8])
        for r in range(rows):
            acc = 0.0
            for j in range(n):
                acc += J[r, j] * dtheta[j]
            shift[r] = e[r] - acc
        pos, ori = residual_errors(shift, wp, wo, rows)
        if pos > tol_p or ori > tol_o:
            shifted = pinned = True
            for j in range(n):
                if at_bound[j]:          # held on its bound for the cycle, as in the optimal step
                    lo[j] = up[j] = theta[j] + dtheta[j]
                if free[j] and lo[j] < up[j]:
                    pinned = False
            theta = np.minimum(np.maximum(theta, lo), up)
            norm_l = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
        else:
            shift[:] = 0.0
        norm = _shifted(theta, pose, ch, (T, J6, P, e6), shift)
    reset_basis(wk[12])               # the cycle's own SVDs start cold, as the first one did
    posture = np.empty(n if posture_w > 0.0 else 0)
    best[:] = theta
    best_key = np.full(2, math.inf)
    prev0 = -1.0
    clamps = np.full(4, -1.0)           # residual clamps and speed-up caps (lock, pose)
    last_mag, last_applied, have_step = 0.0, math.inf, False
    last_l, last_p = norm_l, norm
    status = MAX_ITERATIONS
    iteration, passes = 0, 0
    metrics[T_STEPPED] = 0.0
    while True:
        if improves_best(norm_l, norm, L > 0, residual_tol, best_key):
            best[:] = theta
        passes += 1
        pos, ori = residual_errors(e6, wp, wo, rows)
        if pos <= tol_p and ori <= tol_o and locks_held(eL, lock_tol * lock_w):
            status = CONVERGED
            break
        if shifted and (pinned or passes > min_iterations):
            status = CONVERGED           # the intermediate target: a waypoint, close enough
            break
        if passes > min_iterations and now() >= deadline:
            status = TIMED_OUT
            break
        top = norm_l if L else norm
        diverging = prev0 >= 0.0 and top > residual_tol and top - prev0 > prev0
        if diverging:
            theta[:] = theta_prev
            norm = _shifted(theta, pose, ch, (T, J6, P, e6), shift)
            norm_l = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
        if have_step and last_applied < 1e-12 and not (rc[0] or rc[1]):
            status = STALLED
            break
        if iteration >= max_iterations:
            status = MAX_ITERATIONS
            break
        if have_step:
            adapt_step_size(clamps, last_mag, tmax, diverging, L > 0, last_l, last_p, rc,
                            residual_tol)
        if posture.shape[0] and passes == 1 and not shifted:
            for j in range(n):
                d = preferred[j] - theta[j]
                if posture_cont[j]:
                    d = (d + math.pi) % (2.0 * math.pi) - math.pi
                posture[j] = min(max(posture_w * d, -posture_bound[j]), posture_bound[j])
            step_posture = posture
        else:
            step_posture = no_posture
        last_l, last_p = norm_l, norm
        last_mag = levels_step(levels, theta, (lo, up, free, no_periodic),
                               (lam_fixed, tmax, svd_tol, False),
                               (clamps[0] if L else -1.0, clamps[1]), step_posture, True,
                               (dtheta, wk, lm, rc))
        have_step = True
        for k in range(3):
            metrics[T_LOCK + 1 + k], metrics[T_POSE + 1 + k] = lm[0, k], lm[1, k]
        metrics[T_STEPPED] = 1.0
        acc = 0.0
        for j in range(n):
            nxt[j] = min(max(theta[j] + dtheta[j], lo[j]), up[j])
            acc += (nxt[j] - theta[j]) ** 2
        last_applied = math.sqrt(acc)
        theta_prev[:] = theta
        prev0 = norm_l if L else norm       # level 0 at the θ stepped from
        theta[:] = nxt
        iteration += 1
        norm = _shifted(theta, pose, ch, (T, J6, P, e6), shift)
        norm_l = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
    metrics[T_LOCK] = norm_l if L else 0.0
    metrics[T_POSE] = norm
    q_out[:] = theta if status == CONVERGED or status == TIMED_OUT else best
    if shifted or not (status == CONVERGED or status == TIMED_OUT):   # errors against the goal
        evaluate(q_out, target, wp, wo, rows, ch, T, J6, P, e6)
    metrics[T_POS], metrics[T_ORI] = residual_errors(e6, wp, wo, rows)
    return status, iteration


@structref.register
class TrackStateType(types.StructRef):
    """numba type of :class:`TrackState`."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class TrackState(structref.StructRefProxy):
    """
    What :func:`track_state_cycle` needs beyond q and the cycle's reach, once per TrackKernel.

    A numba structref (:func:`track_state`), typed at a call as one object (as
    :class:`pdls_ik._accel.ik_solver_numba.PoseState`). Fields: ``ch``, ``limits`` (lower,
    upper), ``free``, ``pose``, ``locks``, ``posture`` (preferred, weight, continuous) and
    ``options`` (lam_fixed, svd_tol, residual_tol, max_iterations) as in :func:`track_cycle`;
    work arrays ``box`` (4, n) (the cycle's lo, up, posture bound and start) and ``metrics``
    (11,).
    """


structref.define_boxing(TrackStateType, TrackState)
structref.define_constructor(TrackState, TrackStateType, ('ch', 'limits', 'free', 'pose',
                                                          'locks', 'posture', 'options', 'box',
                                                          'metrics'))


@numba.njit(cache=True)
def track_state(ch, limits, free, pose, locks, posture, options, box, metrics):
    """Return the :class:`TrackState` of these arguments (compiled: cached with the kernel)."""
    return TrackState(ch, limits, free, pose, locks, posture, options, box, metrics)


@numba.njit(cache=True, inline='always')
def pair_goal_taken(position, quat, target):
    """
    Set target (4, 4) from a goal (position (3,), quaternion (4,) x, y, z, w) as parse_pose would.

    Only when :func:`pdls_ik.lie.se3.parse_pose` takes it with nothing to raise or note: finite,
    position within ``MAX_GOAL_COORDINATE``, quaternion norm within ``QUAT_NORM_NOTE_TOL`` of 1;
    the same floating-point operations (normalization, then
    :func:`pdls_ik.lie.se3.quaternion_matrix`). Returns False, target untouched, otherwise.
    """
    x, y, z = position[0], position[1], position[2]
    a, b, c, d = quat[0], quat[1], quat[2], quat[3]
    if not math.isfinite(x + y + z + (a + b + c + d)):
        return False
    if max(abs(x), abs(y), abs(z)) > MAX_GOAL_COORDINATE:
        return False
    scale = max(abs(a), abs(b), abs(c), abs(d))
    if scale <= 0.0:
        return False
    ta, tb, tc, td = a / scale, b / scale, c / scale, d / scale
    norm = scale * math.sqrt(ta * ta + tb * tb + tc * tc + td * td)
    if norm < 1e-9 or abs(norm - 1.0) > QUAT_NORM_NOTE_TOL:
        return False
    qx, qy, qz, qw = a / norm, b / norm, c / norm, d / norm
    xx, yy, zz, ww = qx * qx, qy * qy, qz * qz, qw * qw
    xy, zw, xz, yw, yz, xw = qx * qy, qz * qw, qx * qz, qy * qw, qy * qz, qx * qw
    target[0, 0], target[0, 1], target[0, 2] = xx - yy - zz + ww, 2.0 * (xy - zw), 2.0 * (xz + yw)
    target[1, 0], target[1, 1], target[1, 2] = 2.0 * (xy + zw), -xx + yy - zz + ww, 2.0 * (yz - xw)
    target[2, 0], target[2, 1], target[2, 2] = 2.0 * (xz - yw), 2.0 * (yz + xw), -xx - yy + zz + ww
    target[0, 3], target[1, 3], target[2, 3] = x, y, z
    return True


@numba.njit(cache=True)
def track_state_cycle(state, position, quat, q, reach, posture_share, tmax, budget, flags,
                      q_out):
    """
    Run :func:`track_cycle` from q (n,) within the limits and q ± reach (n,) [rad or m].

    With ``CHECK_GOAL`` in flags, the goal (position (3,) [m], quaternion (4,) x, y, z, w) is
    taken as the target when :func:`pair_goal_taken` accepts it (else the target already set is
    used); with ``CHECK_SEED``, q is checked and its continuous joints wrapped as
    ``IKSolver._check_q`` does (:func:`pdls_ik._accel.ik_solver_numba.seed_taken`). The posture
    variation is bounded by ±posture_share · reach; tmax, budget = (min_iterations, deadline),
    q_out as in :func:`track_cycle`; the metrics into ``state.metrics``. Returns (status code,
    iterations), or (``GOAL_UNCHECKED`` or ``SEED_UNCHECKED``, 0) when a check leaves that input
    to the caller's parsing (its errors and notes).
    """
    lower, upper = state.limits
    box, metrics = state.box, state.metrics
    preferred, weight, continuous = state.posture
    if flags & CHECK_GOAL and not pair_goal_taken(position, quat, state.pose[0]):
        return GOAL_UNCHECKED, 0
    start = box[3]
    for j in range(q.shape[0]):
        start[j] = q[j]
    if flags & CHECK_SEED and not seed_taken(start, lower, upper, continuous):
        return SEED_UNCHECKED, 0
    for j in range(q.shape[0]):
        box[0, j] = max(lower[j], start[j] - reach[j])
        box[1, j] = min(upper[j], start[j] + reach[j])
        box[2, j] = posture_share * reach[j]
    metrics[:] = 0.0
    lam_fixed, svd_tol, residual_tol, max_iterations = state.options
    return track_cycle(start, state.ch, (lower, upper, box[0], box[1], state.free), state.pose,
                       state.locks, (preferred, weight, continuous, box[2]),
                       (lam_fixed, tmax, svd_tol, residual_tol, max_iterations),
                       budget, (q_out, metrics))


#: the goal arrays of a cycle whose target is already set (no ``CHECK_GOAL``)
NO_POSITION, NO_QUATERNION = np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])


class TrackKernel:
    """
    The compiled tracking cycle of one :class:`pdls_ik.IKSolver` (see the module doc).

    :param linkage, tip, base: the solver's chain (a base above the tip, or joined to it by fixed
        joints).
    :param position_only: 3 position rows instead of the 6 pose rows.
    :param config: the solver's :class:`pdls_ik.config.IKConfig`.
    :param free: (n,) bool, the variables the solver moves.
    :param locks: the solver's :class:`pdls_ik.tasks.JointLockTask` (distinct joints) or None.
    :param posture: its :class:`pdls_ik.tasks.PostureTask` or None.
    :param lock_tol: a locked joint is held within lock_tol · weight of its value [rad or m].
    :param goal: the (4, 4) array holding the goal (IKSolver passes its FrameTask's
        ``target_pose``); default its own, set from the frame at each cycle.

    The kernel's :class:`TrackState` (built by :meth:`load`) holds the constant arguments and
    work arrays of every cycle: one TrackKernel (hence one IKSolver) must not track from two
    threads at once.
    """

    def __init__(self, linkage, tip: str, base: str, position_only: bool, config, free,
                 locks, posture, lock_tol: float, goal=None):
        c = ChainArrays(linkage, tip, base)
        self.ch = chain_tuple(c)
        self.n = c.lower.shape[0]
        continuous = np.asarray(linkage.continuous, dtype=np.bool_)
        lock = lock_arrays(locks, continuous)
        if posture is None:
            pose = (np.zeros(self.n), 0.0, continuous)
        else:
            pose = (np.asarray(posture.preferred, dtype=float), float(posture.weight),
                    continuous)
        self.lock_levels = 2 if locks is not None else 1
        self.target = np.eye(4) if goal is None else goal
        #: the parts of :func:`track_cycle`'s arguments that do not change, bound once
        self._limits = (c.lower, c.upper)
        self._free = np.ascontiguousarray(free, dtype=np.bool_)
        self._pose = (self.target, config.position_weight, config.orientation_weight,
                      3 if position_only else 6, config.position_tolerance,
                      config.orientation_tolerance)
        self._locks = (*lock, float(lock_tol))
        self._posture = pose
        self._options = (config.damping if config.damping >= 0.0 else -1.0,
                         OPTION_DEFAULTS['svd_tol'], OPTION_DEFAULTS['residual_tol'],
                         config.tracking_max_iterations)
        #: the metrics of the last cycle (``T_*``), shared with the kernel state
        self.metrics = np.zeros(11)
        self._state = None
        self.ready = False

    @property
    def compiled(self) -> bool:
        """Whether :meth:`load` has nothing to compile (loaded, or in numba's cache)."""
        return self.ready or in_cache(track_state_cycle, track_state)

    def load(self) -> None:
        """Compile the kernel, or load it from numba's cache, build its state, by one cycle."""
        if not self.ready:
            n = self.n
            self._state = track_state(self.ch, self._limits, self._free, self._pose,
                                      self._locks, self._posture, self._options,
                                      np.zeros((4, n)), self.metrics)
            q = np.clip(np.zeros(n), self._limits[0], self._limits[1])
            track_state_cycle(self._state, NO_POSITION, NO_QUATERNION, q, np.zeros(n), 0.0,
                              0.1, (0, 0.0), 0, np.empty(n))
            self.ready = True

    def cycle(self, frame, q: np.ndarray, reach: np.ndarray, posture_share: float,
              tmax: float, min_iterations: int, deadline: float, goal=(None, None),
              flags: int = 0):
        """
        Run one cycle from q (n,) toward the goal of ``frame`` (a FrameTask).

        :param reach: (n,) the largest motion of each joint in the cycle [rad or m] (the
            cycle's box is the limits and q ± reach); posture_share: the posture variation is
            bounded by ±posture_share · reach; tmax: the step bound (theta_diff_max_mag) [rad];
            deadline: ``time.perf_counter`` seconds.
        :param goal, flags: (position (3,), quaternion (4,)) float arrays that the kernel takes
            as the target with ``CHECK_GOAL`` in flags; ``CHECK_SEED``: q (n,) a float array the
            kernel checks (:func:`track_state_cycle`).
        :return: (q (n,), status name, per-level metrics lists, iterations, position error [m],
            orientation error [rad]), by :func:`track_state_cycle`; or (None, ``GOAL_UNCHECKED``
            or ``SEED_UNCHECKED``, ...) when a check leaves that input to the caller.
        """
        if frame.target_pose is not self.target:
            self.target[:3, :3] = frame.target_rotation
            self.target[:3, 3] = frame.target_position
        q_out = np.empty(self.n)
        position, quat = goal
        status, iterations = track_state_cycle(
            self._state, NO_POSITION if position is None else position,
            NO_QUATERNION if quat is None else quat, q, reach, posture_share, tmax,
            (min_iterations, deadline), flags, q_out)
        if status < 0:
            return None, status, None, 0, 0.0, 0.0
        m = self.metrics.tolist()
        levels = [T_LOCK, T_POSE] if self.lock_levels == 2 else [T_POSE]
        norms = [m[k] for k in levels]
        level = (norms, [m[k + 1] for k in levels], [int(m[k + 2]) for k in levels],
                 [m[k + 3] for k in levels]) if m[T_STEPPED] else (norms, [], [], [])
        return q_out, STATUS_NAMES[status], level, iterations, m[T_POS], m[T_ORI]
