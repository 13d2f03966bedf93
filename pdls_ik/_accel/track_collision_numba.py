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
Numba backend of :meth:`pdls_ik.IKSolver.track` with a self-collision level.

A transcription of one tracking cycle of the NumPy reference (``IKSolver.track`` with its
:class:`~pdls_ik.ik.track_problem.TrackProblem`) for an IKSolver whose only extra task is a
:class:`~pdls_ik.tasks.SelfCollisionTask` above the pose (usually the velocity-damper form,
gain γ < 1, Faverjon & Tournassoud 1987): levels joint locks (if any) > self-collision
inequality rows > the pose > the posture, each step by
:func:`pdls_ik._accel.levels_numba.inequality_step`. The cycle's target first
(``TrackProblem.aim``): the undamped step within the joint limits; when it leaves the cycle's
velocity box, the box-constrained least-squares step of the stacked levels (projected
Gauss–Seidel, :func:`pdls_ik._accel.levels_numba.inequality_box_step`) gives the waypoint, the
pose residual shifted by what that step leaves undone and the joints it puts on a bound held
there. Then PDLS iterations without divergence check (extra tasks), the posture in the first
iteration only, a waypoint met after the minimum of iterations when the collision level is met,
the time budget checked after that minimum. ``test/_accel/test_collision_backends.py`` checks
that both backends give the same cycles.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from pdls_ik._accel import in_cache, use_sources_cache
from pdls_ik._accel.collision_numba import collision_work
from pdls_ik._accel.ik_solver_numba import (CONVERGED, MAX_ITERATIONS, now,
                                            OPTION_DEFAULTS, residual_errors, STALLED,
                                            STATUS_NAMES)
from pdls_ik._accel.levels_numba import (adapt_levels, improves_levels, inequality_box_step,
                                         inequality_step, inequality_work)
from pdls_ik._accel.pose_problem_numba import (collision_arguments, collision_met,
                                               evaluate_levels, level_lists, level_work, M_LEVEL,
                                               M_ORI, M_POS, M_SIZE, M_STEPPED, M_VIOLATION,
                                               state_errors)
from pdls_ik._accel.step_numba import locks_held

use_sources_cache()     # before the first cached kernel

PGS_LEVEL_WEIGHT, PGS_MAX_ITERATIONS, PGS_TOL = 1e-3, 200, 1e-12
TIMED_OUT = 3


@numba.njit(cache=True)
def _aim(theta, ch, bounds, pose, locks, coll, tmax_svd, shift, work, at_bound):
    """
    Choose the cycle's target from θ (n,) (``TrackProblem.aim``): shift; lo, up narrowed.

    Returns (shifted, pinned): whether the target is a waypoint (the goal is out of the box's
    reach to first order) and whether no free variable is left to move.
    """
    lower, upper, lo, up, free = bounds
    rows, wp, wo, tol_p, tol_o = pose[3], pose[1], pose[2], pose[4], pose[5]
    tmax, svd_tol = tmax_svd
    ev, cw, wk, dtheta, lm, rc = work
    present = coll[5]
    n = theta.shape[0]
    p0 = ev[2][2]
    J, e = ev[0], ev[1]
    levels = (J, e, ev[2], ev[3], present)
    no_periodic = np.zeros(n, dtype=np.bool_)
    norms = np.empty(3)
    inequality_step(levels, theta, (lower, upper, free, no_periodic), (0.0, tmax, svd_tol, False),
                    np.full(3, -1.0), np.empty(0), (dtheta, wk, lm, rc, norms))
    share = math.inf
    for j in range(n):
        d = dtheta[j]
        if d != 0.0:
            room = (up[j] - theta[j]) if d > 0.0 else (lo[j] - theta[j])
            share = min(share, room / d)
    if max(0.0, share) >= 1.0:
        return False, False
    inequality_box_step(levels, theta, (lo, up, free),
                        (svd_tol, tmax, PGS_LEVEL_WEIGHT, PGS_MAX_ITERATIONS, PGS_TOL),
                        (dtheta, wk, lm, at_bound, norms))
    for r in range(rows):
        acc = 0.0
        for j in range(n):
            acc += J[p0 + r, j] * dtheta[j]
        shift[r] = e[p0 + r] - acc
    pos, ori = residual_errors(shift, wp, wo, rows)
    if pos <= tol_p and ori <= tol_o:
        shift[:] = 0.0
        return False, False
    pinned = True
    for j in range(n):
        if at_bound[j]:          # held on its bound for the cycle, as in the optimal step
            lo[j] = up[j] = theta[j] + dtheta[j]
        if free[j] and lo[j] < up[j]:
            pinned = False
    return True, pinned


@numba.njit(cache=True)
def track_cycle(q, ch, bounds, pose, locks, coll, posture_task, options, budget, out):
    """
    Run one tracking cycle from q (n,) toward the goal within [lo, up] (n,).

    bounds = (lower, upper, lo, up, free); pose, locks, coll as in
    :func:`pdls_ik._accel.pose_problem_numba.solve_local`; posture_task = (preferred,
    posture_w, posture_cont, posture_bound); options = (lam_fixed, tmax, svd_tol, residual_tol,
    max_iterations); budget = (min_iterations, deadline); out = (q_out, metrics (``M_*``,
    errors against the goal)). Returns (status code, iterations).
    """
    lower, upper, lo, up, free = bounds
    wp, wo, rows, tol_p, tol_o = pose[1], pose[2], pose[3], pose[4], pose[5]
    lock_w, lock_tol = locks[3], locks[4]
    tols, present = coll[4], coll[5]
    preferred, posture_w, posture_cont, posture_bound = posture_task
    lam_fixed, tmax, svd_tol, max_iterations = options[0], options[1], options[2], options[4]
    min_iterations, deadline = budget
    q_out, metrics = out
    n, L = q.shape[0], locks[0].shape[0]
    ev = level_work(n, L, coll[1][7].shape[0] - 1, rows)
    cw = collision_work(coll[0], coll[1])
    R = ev[1].shape[0]
    wk = inequality_work(R, n)
    dtheta, nxt, best = np.empty(n), np.empty(n), np.empty(n)
    lm, rc = np.zeros((3, 3)), np.zeros(3, dtype=np.bool_)
    norms, eL, e = ev[9], ev[8], ev[1]
    p0 = ev[2][2]
    levels = (ev[0], e, ev[2], ev[3], present)
    lo, up = lo.copy(), up.copy()
    shift = np.zeros(rows)
    at_bound = np.zeros(n, dtype=np.bool_)
    worst = evaluate_levels(q, ch, pose, locks, coll, shift, ev, cw)
    shifted, pinned = _aim(q, ch, (lower, upper, lo, up, free), pose, locks, coll,
                           (tmax, svd_tol), shift, (ev, cw, wk, dtheta, lm, rc), at_bound)
    theta = np.minimum(np.maximum(q, lo), up)
    moved = False
    for j in range(n):
        moved |= theta[j] != q[j]
    if moved:
        worst = evaluate_levels(theta, ch, pose, locks, coll, shift, ev, cw)
    elif shifted:                    # the same θ: only the pose rows move to the waypoint
        acc = 0.0
        for r in range(rows):
            e[p0 + r] -= shift[r]
            acc += e[p0 + r] * e[p0 + r]
        norms[2] = math.sqrt(acc)
    floors = np.empty(3)
    for k in range(3):
        floors[k] = tols[k] if tols[k] > 0.0 else 1e-12
    no_posture = np.empty(0)
    no_periodic = np.zeros(n, dtype=np.bool_)
    posture = np.empty(n if posture_w > 0.0 else 0)
    last_norms, clamps, best_key = np.empty(3), np.full(3, -1.0), np.full(3, math.inf)
    best[:] = theta
    last_mag, last_applied, have_step = 0.0, math.inf, False
    status = MAX_ITERATIONS
    iteration, passes = 0, 0
    metrics[M_STEPPED] = 0.0
    while True:
        if improves_levels(norms, tols, present, best_key):
            best[:] = theta
        passes += 1
        pos, ori = residual_errors(e[p0:], wp, wo, rows)
        met, violation = collision_met(worst, coll)
        if pos <= tol_p and ori <= tol_o and met and locks_held(eL, lock_tol * lock_w):
            status = CONVERGED
            break
        if shifted and (pinned or passes > min_iterations) and met:
            status = CONVERGED           # the intermediate target: a waypoint, close enough
            break
        if passes > min_iterations and now() >= deadline:
            status = TIMED_OUT
            break
        if have_step and last_applied < 1e-12 and not (rc[0] or rc[1] or rc[2]):
            status = STALLED
            break
        if iteration >= max_iterations:
            status = MAX_ITERATIONS
            break
        if have_step:
            adapt_levels(clamps, last_mag, tmax, last_norms, rc, floors, present)
        if posture.shape[0] and passes == 1 and not shifted:
            for j in range(n):
                d = preferred[j] - theta[j]
                if posture_cont[j]:
                    d = (d + math.pi) % (2.0 * math.pi) - math.pi
                posture[j] = min(max(posture_w * d, -posture_bound[j]), posture_bound[j])
            step_posture = posture
        else:
            step_posture = no_posture
        last_norms[:] = norms
        last_mag = inequality_step(levels, theta, (lo, up, free, no_periodic),
                                   (lam_fixed, tmax, svd_tol, True), clamps, step_posture,
                                   (dtheta, wk, lm, rc, norms))
        have_step = True
        for k in range(3):
            for c in range(3):
                metrics[M_LEVEL + 4 * k + 1 + c] = lm[k, c]
        metrics[M_STEPPED] = 1.0
        acc = 0.0
        for j in range(n):
            nxt[j] = min(max(theta[j] + dtheta[j], lo[j]), up[j])
            acc += (nxt[j] - theta[j]) ** 2
        last_applied = math.sqrt(acc)
        theta[:] = nxt
        iteration += 1
        worst = evaluate_levels(theta, ch, pose, locks, coll, shift, ev, cw)
    for k in range(3):
        metrics[M_LEVEL + 4 * k] = norms[k]
    if status == CONVERGED or status == TIMED_OUT:
        q_out[:] = theta
        if shifted:                  # errors against the goal: the pose rows without shift
            for r in range(rows):
                e[p0 + r] += shift[r]
    else:
        q_out[:] = best
        shift[:] = 0.0
        worst = evaluate_levels(q_out, ch, pose, locks, coll, shift, ev, cw)
    metrics[M_POS], metrics[M_ORI] = residual_errors(e[p0:], wp, wo, rows)
    metrics[M_VIOLATION] = worst
    return status, iteration


class CollisionTrackKernel:
    """
    The compiled tracking cycle of an IKSolver whose only extra task is a SelfCollisionTask.

    The interface of :class:`pdls_ik._accel.track_problem_numba.TrackKernel`.

    :param solver: the :class:`pdls_ik.IKSolver`.
    :param lock_tol: a locked joint is held within lock_tol · weight of its value [rad or m].
    """

    def __init__(self, solver, lock_tol: float):
        cfg = solver.config
        self.ch, self.pose, self.locks, self.coll, self.levels, self.target = \
            collision_arguments(solver, lock_tol)
        self.n = solver.n
        continuous = np.asarray(solver.linkage.continuous, dtype=np.bool_)
        posture = solver.posture
        if posture is None:
            self._posture = (np.zeros(self.n), 0.0, continuous)
        else:
            self._posture = (np.asarray(posture.preferred, dtype=float), float(posture.weight),
                             continuous)
        self._limits = (np.asarray(solver.lower, float), np.asarray(solver.upper, float))
        self._free = np.ascontiguousarray(solver.free, dtype=np.bool_)
        self._lam = cfg.damping if cfg.damping >= 0.0 else -1.0
        self._budget = (OPTION_DEFAULTS['svd_tol'], OPTION_DEFAULTS['residual_tol'],
                        cfg.tracking_max_iterations)
        #: the solver's CollisionPoseKernel, whose task_errors reuse the cycle's violation
        self._shared = getattr(solver, '_kernel', None)
        self.ready = False

    @property
    def compiled(self) -> bool:
        """Whether :meth:`load` has nothing to compile (loaded, or in numba's cache)."""
        return self.ready or in_cache(track_cycle, state_errors)

    def load(self) -> None:
        """Compile the kernel, or load it from numba's cache, by one tiny cycle."""
        if not self.ready:
            q = np.clip(np.zeros(self.n), self._limits[0], self._limits[1])
            self.cycle(None, q, np.zeros(self.n), 0.0, 0.1, 0, 0.0)
            state_errors(q, self.ch, self.pose, self.locks, self.coll)
            self.ready = True

    def cycle(self, frame, q: np.ndarray, reach: np.ndarray, posture_share: float,
              tmax: float, min_iterations: int, deadline: float):
        """
        Run one cycle from q (n,) within the limits and q ± reach toward the goal of ``frame``.

        The arguments and the return value of
        :meth:`pdls_ik._accel.track_problem_numba.TrackKernel.cycle`: (q (n,), status name,
        per-level metrics lists, iterations, position error [m], orientation error [rad]).
        """
        if frame is not None:
            self.target[:3, :3] = frame.target_rotation
            self.target[:3, 3] = frame.target_position
        q_out, metrics = np.empty(self.n), np.zeros(M_SIZE)
        lo = np.maximum(self._limits[0], q - reach)
        up = np.minimum(self._limits[1], q + reach)
        status, iterations = track_cycle(
            q, self.ch, (*self._limits, lo, up, self._free), self.pose, self.locks, self.coll,
            (*self._posture, posture_share * reach), (self._lam, tmax, *self._budget),
            (min_iterations, deadline), (q_out, metrics))
        m = metrics.tolist()
        if self._shared is not None:      # the task errors of q_out, for IKSolver's result
            self._shared.known = (q_out, m[M_VIOLATION])
        return (q_out, STATUS_NAMES[status], level_lists(m, self.levels, bool(m[M_STEPPED])),
                iterations, m[M_POS], m[M_ORI])
