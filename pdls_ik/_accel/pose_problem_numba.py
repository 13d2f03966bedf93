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
Numba backend of :meth:`pdls_ik.IKSolver.solve` with a self-collision level.

A transcription of the NumPy reference for an IKSolver whose only extra task is a
:class:`~pdls_ik.tasks.SelfCollisionTask` ranked above the pose: its
:class:`~pdls_ik.ik.pose_problem.PoseProblem` (levels joint locks (if any) > self-collision
inequality rows > the pose; success needs the pose, the locks and every pair at ≥ d_min;
the restart monitor on the pose residual plus the unmet collision violation) solved by
:func:`pdls_ik.pdls.solve` with the options IKSolver passes with extra tasks (no divergence
check; the adaptive step size floored at each level's tolerance; the best iterate ranked level
by level against those tolerances), each step by
:func:`pdls_ik._accel.levels_numba.inequality_step`; and IKSolver's loop of random restarts,
attempts ranked by (locks held, collision violation, weighted pose error). A result in
collision is not a success: restarts continue.

``test/_accel/test_collision_backends.py`` checks that both backends return the same answers,
statuses and iteration counts.
"""
from __future__ import annotations

import math
from typing import List, NamedTuple, Tuple

import numba
import numpy as np
from pdls_ik._accel import in_cache, use_sources_cache
from pdls_ik._accel.chain_numba import chain_tuple
from pdls_ik._accel.collision_numba import (collision_tuple, collision_work, self_collision_rows,
                                            task_tuple)
from pdls_ik._accel.ik_solver_numba import (CONVERGED, evaluate, lock_residual, MAX_ITERATIONS,
                                            MAX_TIME, monitor_window, now, OPTION_DEFAULTS,
                                            place, residual_errors, STALLED, STATUS_NAMES,
                                            STUCK)
from pdls_ik._accel.levels_numba import (adapt_levels, improves_levels, inequality_step,
                                         inequality_work)
from pdls_ik._accel.step_numba import lock_arrays, locks_held
from pdls_ik.model.chain_arrays import ChainArrays
from pdls_ik.pdls.levels import ACTIVE_TOL
from pdls_ik.tasks.self_collision_task import SelfCollisionTask

use_sources_cache()     # before the first cached kernel

#: metrics vector of a solve: per level (lock, collision, pose) norm, λ, rank, σ_min at
#: ``M_LEVEL + 4 k``; then the pose errors, whether a step was taken, the collision violation
M_LEVEL, M_POS, M_ORI, M_STEPPED, M_VIOLATION, M_HELD = 0, 12, 13, 14, 15, 16
M_SIZE = 17


@numba.njit(cache=True)
def level_work(n, L, P, rows):
    """
    Return the work of :func:`evaluate_levels` for L locks, P pairs and the pose rows.

    (J (R, n), e (R,), start (4,), inequality (R,), T, J6, P4, e6, lock residual (L,), norms
    (3,)), R = L + P + rows.
    """
    R = L + P + rows
    start = np.array([0, L, L + P, R], dtype=np.int64)
    ineq = np.zeros(R, dtype=np.bool_)
    ineq[L:L + P] = True
    return (np.zeros((R, n)), np.zeros(R), start, ineq, np.empty((4, 4)), np.empty((6, n)),
            np.empty((4, 4)), np.empty(6), np.empty(L), np.empty(3))


@numba.njit(cache=True)
def evaluate_levels(theta, ch, pose, locks, coll, shift, ev, cw):
    """
    Evaluate the stacked levels at θ (n,): lock rows, collision rows, pose rows minus shift.

    pose = (target, wp, wo, rows, ...); locks = (lock_idx, lock_values, lock_cont, lock_w, ...);
    coll = (tree, shapes, task, ...) (:mod:`pdls_ik._accel.collision_numba`); shift (rows,):
    subtracted from the pose residual (a tracking waypoint; zeros otherwise); ev:
    :func:`level_work` (its norms: each level's active residual norm); cw: the collision work.
    Returns the largest collision violation max(d_min − d, 0) [m].
    """
    target, wp, wo, rows = pose[0], pose[1], pose[2], pose[3]
    lock_idx, lock_values, lock_cont, lock_w = locks[0], locks[1], locks[2], locks[3]
    tree, shapes, task = coll[0], coll[1], coll[2]
    J, e, start, T, J6, P4, e6, eL, norms = ev[0], ev[1], ev[2], ev[4], ev[5], ev[6], ev[7], \
        ev[8], ev[9]
    n = theta.shape[0]
    L, c0, p0 = lock_idx.shape[0], start[1], start[2]
    norms[0] = lock_residual(theta, lock_idx, lock_values, lock_cont, lock_w, eL)
    for i in range(L):
        e[i] = eL[i]
        J[i, lock_idx[i]] = lock_w
    worst = self_collision_rows(theta, tree, shapes, task, e[c0:p0], J[c0:p0], cw, True)
    acc = 0.0
    for r in range(c0, p0):
        if e[r] > ACTIVE_TOL:
            acc += e[r] * e[r]
    norms[1] = math.sqrt(acc)
    evaluate(theta, target, wp, wo, rows, ch, T, J6, P4, e6)
    acc = 0.0
    for r in range(rows):
        e6[r] -= shift[r]
        e[p0 + r] = e6[r]
        acc += e6[r] * e6[r]
        for j in range(n):
            J[p0 + r, j] = J6[r, j]
    norms[2] = math.sqrt(acc)
    return worst


@numba.njit(cache=True)
def collision_met(worst, coll):
    """(met, violation): the task within its tolerance; its weighted violation when not met."""
    w, tol = coll[2][3], coll[3]
    err = (w * worst) / w
    return err <= tol, (0.0 if err <= tol else err * w)


@numba.njit(cache=True)
def solve_local(theta0, ch, bounds, pose, locks, coll, options, budget, out, lw):
    """
    Run one PDLS local solve from theta0 (n,), as :func:`pdls_ik.pdls.solve` on PoseProblem.

    bounds = (lower, upper, free, continuous, periodic); pose = (target, wp, wo, rows, tol_p,
    tol_o); locks = (lock_idx, lock_values, lock_cont, lock_w, lock_tol); coll = (tree, shapes,
    task, tol_c, tolerances (3,), present (3,)): the collision arrays and task, its tolerance
    [m], the levels' tolerances (best iterate, slow-down floors) and which levels the problem
    has; options = (lam_fixed, tmax, svd_tol, residual_tol, max_iterations, window, ratio,
    limit_window, limit_ratio) (the restart monitor: :func:`.ik_solver_numba.monitor_window`);
    budget = (deadline, min_iterations); out = (theta, best, metrics (``M_*``)); lw:
    :func:`_local_work`. Returns (status code, iterations).
    """
    lower, upper, free, continuous, periodic = bounds
    wp, wo, rows, tol_p, tol_o = pose[1], pose[2], pose[3], pose[4], pose[5]
    lock_w, lock_tol = locks[3], locks[4]
    tols, present = coll[4], coll[5]
    lam_fixed, tmax, svd_tol, max_iterations, window = options[0], options[1], options[2], \
        options[4], options[5]
    deadline, min_iterations = budget
    theta, best, metrics = out
    ev, cw, wk, dtheta, nxt, history, lm, rc, last_norms, clamps, best_key, shift = lw
    norms, eL, e = ev[9], ev[8], ev[1]
    p0 = ev[2][2]
    n = theta0.shape[0]
    floors = np.empty(3)
    for k in range(3):
        floors[k] = tols[k] if tols[k] > 0.0 else 1e-12
    no_posture = np.empty(0)
    theta[:] = theta0
    place(theta, lower, upper, continuous, periodic)
    worst = evaluate_levels(theta, ch, pose, locks, coll, shift, ev, cw)
    best[:] = theta
    best_key[:] = math.inf
    clamps[:] = -1.0
    last_mag, last_applied, have_step = 0.0, math.inf, False
    h = 0
    iteration = 0
    metrics[M_STEPPED] = 0.0
    while True:
        for k in range(3):
            metrics[M_LEVEL + 4 * k] = norms[k]
        metrics[M_VIOLATION] = worst
        if improves_levels(norms, tols, present, best_key):
            best[:] = theta
        pos, ori = residual_errors(e[p0:], wp, wo, rows)
        metrics[M_POS], metrics[M_ORI] = pos, ori
        met, violation = collision_met(worst, coll)
        if pos <= tol_p and ori <= tol_o and met:
            if locks_held(eL, lock_tol * lock_w):
                return CONVERGED, iteration
        elif window > 0:        # the restart monitor: pose residual + unmet violation
            history[h] = norms[2] + violation
            h += 1
            w, r = monitor_window(theta, lower, upper, free, (locks[0], eL, lock_tol * lock_w),
                                  options[5:])
            if h > w and history[h - 1] > r * history[h - 1 - w]:
                return STUCK, iteration
        if have_step and last_applied < 1e-12 and not (rc[0] or rc[1] or rc[2]):
            return STALLED, iteration
        if iteration >= max_iterations:
            return MAX_ITERATIONS, iteration
        if iteration >= min_iterations and (iteration & 3) == 0 and now() >= deadline:
            return MAX_TIME, iteration      # the clock costs ~1 µs: every 4th iteration
        if have_step:
            adapt_levels(clamps, last_mag, tmax, last_norms, rc, floors, present)
        last_norms[:] = norms
        last_mag = inequality_step((ev[0], e, ev[2], ev[3], present), theta,
                                   (lower, upper, free, periodic),
                                   (lam_fixed, tmax, svd_tol, True), clamps, no_posture,
                                   (dtheta, wk, lm, rc, norms))
        for k in range(3):
            for c in range(3):
                metrics[M_LEVEL + 4 * k + 1 + c] = lm[k, c]
        have_step = True
        metrics[M_STEPPED] = 1.0
        for j in range(n):
            nxt[j] = theta[j] + dtheta[j]
        place(nxt, lower, upper, continuous, periodic)
        acc = 0.0
        for j in range(n):
            acc += (nxt[j] - theta[j]) ** 2
        last_applied = math.sqrt(acc)
        theta[:] = nxt
        iteration += 1
        worst = evaluate_levels(theta, ch, pose, locks, coll, shift, ev, cw)


@numba.njit(cache=True)
def _local_work(n, L, rows, max_iterations, coll):
    """Work arrays of :func:`solve_local`, allocated once per call of :func:`solve_restarts`."""
    ev = level_work(n, L, coll[1][7].shape[0] - 1, rows)
    R = ev[1].shape[0]
    return (ev, collision_work(coll[0], coll[1]), inequality_work(R, n), np.empty(n), np.empty(n),
            np.empty(max_iterations + 2), np.zeros((3, 3)), np.zeros(3, dtype=np.bool_),
            np.empty(3), np.empty(3), np.empty(3), np.zeros(rows))


@numba.njit(cache=True)
def attempt_scores(q, ch, pose, locks, coll, ev, cw):
    """(collision violation, pose errors) of q (n,): the ranking of attempts and task errors."""
    worst = evaluate_levels(q, ch, pose, locks, coll, np.zeros(pose[3]), ev, cw)
    met, violation = collision_met(worst, coll)
    pos, ori = residual_errors(ev[1][ev[2][2]:], 1.0, 1.0, pose[3])
    return violation, pos / pose[1], (ori / pose[2] if pose[3] == 6 else 0.0), worst


@numba.njit(cache=True)
def solve_restarts(run, ch, bounds, pose, locks, coll, options, best_q, metrics):
    """
    Run IKSolver.solve's loop of local solves, as :mod:`pdls_ik._accel.ik_solver_numba` does.

    Attempts ranked by (locks held, collision violation, weighted pose error), as the NumPy
    reference ranks them with extra tasks. run = (start, use_start, seeds, chain_idx, first,
    deadline, min_iterations, restart); the other arguments as in :func:`solve_local`. Fills
    best_q (n,) and metrics (``M_*``, errors, violation and locks held at best_q); returns
    (status code, iterations, local solves run from seeds).
    """
    start, use_start, seeds, chain_idx, first, deadline, min_iterations, restart = run
    wp, wo, rows = pose[1], pose[2], pose[3]
    max_iterations = options[4]
    n = start.shape[0]
    theta, best, q0 = np.empty(n), np.empty(n), start.copy()
    local = np.empty(metrics.shape[0])
    lw = _local_work(n, locks[0].shape[0], rows, max_iterations, coll)
    best_v, best_s, best_status, best_held = math.inf, math.inf, MAX_ITERATIONS, False
    iterations = 0
    runs = 0
    row = first
    if not use_start:
        q0[chain_idx] = seeds[row]
        row += 1
        runs = 1
    while True:
        status, its = solve_local(q0, ch, bounds, pose, locks, coll, options,
                                  (deadline, min_iterations), (theta, best, local), lw)
        min_iterations = 0
        iterations += its
        q = theta if status == CONVERGED or status == STUCK else best
        violation, pos, ori, worst = attempt_scores(q, ch, pose, locks, coll, lw[0], lw[1])
        score = math.hypot(pos * wp, ori * wo)
        held = locks_held(lw[0][8], locks[4] * locks[3])       # the lock residual at q
        if (held and not best_held) or (held == best_held and (
                violation < best_v or (violation == best_v and score < best_s))):
            best_v, best_s, best_status, best_held = violation, score, status, held
            best_q[:] = q
            metrics[:] = local
            metrics[M_POS], metrics[M_ORI], metrics[M_VIOLATION] = pos, ori, worst
            metrics[M_HELD] = 1.0 if held else 0.0
        if (status == CONVERGED) or not restart or now() >= deadline or row >= seeds.shape[0]:
            return best_status, iterations, runs
        q0[:] = start
        q0[chain_idx] = seeds[row]
        row += 1
        runs += 1


@numba.njit(cache=True)
def state_errors(q, ch, pose, locks, coll):
    """(position [m], orientation [rad], largest collision violation [m]) at q (n,)."""
    n = q.shape[0]
    ev = level_work(n, locks[0].shape[0], coll[1][7].shape[0] - 1, pose[3])
    cw = collision_work(coll[0], coll[1])
    violation, pos, ori, worst = attempt_scores(q, ch, pose, locks, coll, ev, cw)
    return pos, ori, worst


class CollisionAttempt(NamedTuple):
    """
    What one call of the kernel found.

    ``score`` is the triple (0 when the locks are held else 1, collision violation, weighted pose
    error) that ranks attempts.
    """

    q: np.ndarray
    status: str
    metrics: Tuple[List[float], List[float], List[int], List[float]]
    score: Tuple[float, float, float]
    position_error: float
    orientation_error: float
    iterations: int
    restarts: int


def collision_level_unsupported(solver) -> str:
    """
    Why the compiled kernels cannot solve this IKSolver's extra tasks ("" if they can).

    They cover one :class:`~pdls_ik.tasks.SelfCollisionTask` on a level of its own between the
    locks (if any) and the pose.
    """
    tasks = solver.extra_tasks
    if len(tasks) != 1 or type(tasks[0]) is not SelfCollisionTask:
        return ('extra tasks (closures, CoM, bounds...) are solved by the NumPy code only (the '
                'compiled kernels cover one self-collision level)')
    task = tasks[0]
    expected = ([solver.locks] if solver.locks is not None else []) + [task, solver.frame]
    groups = solver._problem.stack.groups
    if task.optional or len(groups) != len(expected) or \
            any(len(g) != 1 or g[0] is not t for g, t in zip(groups, expected)):
        return ('the self-collision level is not a level of its own between the locks and the '
                'pose (its priority must be above pose_priority)')
    return ''


def level_lists(m: List[float], levels: List[int], stepped: bool):
    """Per-level (norms, λ, ranks, σ_min) lists of a metrics vector for the present levels."""
    norms = [m[M_LEVEL + 4 * k] for k in levels]
    if not stepped:
        return norms, [], [], []
    return (norms, [m[M_LEVEL + 4 * k + 1] for k in levels],
            [int(m[M_LEVEL + 4 * k + 2]) for k in levels],
            [m[M_LEVEL + 4 * k + 3] for k in levels])


def collision_arguments(solver, lock_tol: float) -> tuple:
    """
    Return the constant kernel arguments of an IKSolver with a self-collision level.

    (chain tuple, pose tuple, locks tuple, coll tuple, present levels, target (4, 4)): read from
    the solver's frame task, locks, its one SelfCollisionTask and its problem's level
    tolerances.
    """
    cfg, task = solver.config, solver.extra_tasks[0]
    c = ChainArrays(solver.linkage, solver.tip_link, solver.base_link)
    target = np.eye(4)
    free_orientation = solver.frame.dim == 3
    rows = 3 if free_orientation else 6
    pose = (target, cfg.position_weight, cfg.orientation_weight, rows, cfg.position_tolerance,
            cfg.orientation_tolerance)
    lock = lock_arrays(solver.locks, c.continuous)
    locks = (*lock, float(lock_tol))
    tree, shapes = collision_tuple(task.model)
    tolerances = solver._problem.tolerances
    present = [solver.locks is not None, True, True]
    tols = [OPTION_DEFAULTS['residual_tol'] if t is None else t for t in tolerances]
    if solver.locks is None:
        tols.insert(0, 0.0)
    coll = (tree, shapes, task_tuple(task), float(task.tolerance), np.array(tols, dtype=float),
            np.array(present, dtype=np.bool_))
    levels = [k for k in range(3) if present[k]]
    return chain_tuple(c), pose, locks, coll, levels, target


class CollisionPoseKernel:
    """
    The compiled one-shot solve of an IKSolver whose only extra task is a SelfCollisionTask.

    The interface of :class:`pdls_ik._accel.ik_solver_numba.PoseKernel` (``load``, ``solve``,
    ``errors``) plus :meth:`task_errors`.

    :param solver: the :class:`pdls_ik.IKSolver` (its chain, frame, locks, free and periodic
        variables, restart sampling variables, options and level tolerances).
    :param periodic: (n,) bool, the variables turned through their limits.
    :param monitor: (window, ratio, window at a limit, ratio at a limit) of the restart
        monitor.
    :param lock_tol: a locked joint is held within lock_tol · weight of its value.
    """

    def __init__(self, solver, periodic, monitor, lock_tol: float):
        cfg = solver.config
        self.ch, self.pose, self.locks, self.coll, self.levels, self.target = \
            collision_arguments(solver, lock_tol)
        self.task = solver.extra_tasks[0]
        lower, upper = np.asarray(solver.lower, float), np.asarray(solver.upper, float)
        self.bounds = (lower, upper, np.ascontiguousarray(solver.free, dtype=np.bool_),
                       np.asarray(solver.continuous, dtype=np.bool_),
                       np.ascontiguousarray(periodic, dtype=np.bool_))
        self.chain_idx = np.asarray(solver._sample_variables, dtype=np.int64)
        self.weights = (cfg.position_weight, cfg.orientation_weight)
        monitor = tuple(monitor) if cfg.random_restarts else (0, 1.0, 0, 1.0)
        #: (q, largest violation [m]) of the last result of this kernel or of the solver's
        #: tracking kernel: :meth:`task_errors` of that same q costs nothing
        self.known = None
        self.options = (cfg.damping if cfg.damping >= 0.0 else -1.0, cfg.max_step,
                        OPTION_DEFAULTS['svd_tol'], OPTION_DEFAULTS['residual_tol'],
                        cfg.max_iterations, *monitor)
        self.ready = False

    @property
    def compiled(self) -> bool:
        """Whether :meth:`load` has nothing to compile (loaded, or in numba's cache)."""
        return self.ready or in_cache(solve_restarts, state_errors)

    def load(self) -> None:
        """Compile the kernel or load it from numba's cache, by one tiny solve."""
        if not self.ready:
            n = self.bounds[0].shape[0]
            start = np.clip(np.zeros(n), self.bounds[0], self.bounds[1])
            solve_restarts((start, True, np.zeros((1, self.chain_idx.size)), self.chain_idx, 0,
                            0.0, 0, False), self.ch, self.bounds, self.pose, self.locks,
                           self.coll, self.options, np.empty(n), np.zeros(M_SIZE))
            state_errors(start, self.ch, self.pose, self.locks, self.coll)
            self.ready = True

    def _target(self, frame) -> np.ndarray:
        self.target[:3, :3] = frame.target_rotation
        self.target[:3, 3] = frame.target_position
        return self.target

    def solve(self, frame, start: np.ndarray, use_start: bool, first: int, seeds: np.ndarray,
              deadline: float, min_iterations: int, restart: bool) -> CollisionAttempt:
        """Solve toward the goal of ``frame`` by :func:`solve_restarts` (as PoseKernel.solve)."""
        q, metrics = np.empty(start.shape[0]), np.zeros(M_SIZE)
        self._target(frame)
        status, iterations, runs = solve_restarts(
            (start, use_start, seeds, self.chain_idx, first, deadline, min_iterations, restart),
            self.ch, self.bounds, self.pose, self.locks, self.coll, self.options, q, metrics)
        m = metrics.tolist()
        pos, ori = m[M_POS], m[M_ORI]
        self.known = (q, m[M_VIOLATION])
        met, violation = self._violation(m[M_VIOLATION])
        wp, wo = self.weights
        return CollisionAttempt(q, STATUS_NAMES[status],
                                level_lists(m, self.levels, bool(m[M_STEPPED])),
                                (1.0 - m[M_HELD], violation, math.hypot(pos * wp, ori * wo)),
                                pos, ori, iterations, runs)

    def _violation(self, worst: float):
        w, tol = self.task.weight, self.task.tolerance
        err = (w * worst) / w
        return err <= tol, (0.0 if err <= tol else err * w)

    def errors(self, q: np.ndarray, frame):
        """(position [m], orientation [rad]) errors of q (n,) against the goal of ``frame``."""
        pos, ori, _ = self._state(q, frame)
        return pos, ori

    def _state(self, q, frame):
        self._target(frame)
        pos, ori, worst = state_errors(np.ascontiguousarray(q, dtype=float), self.ch, self.pose,
                                       self.locks, self.coll)
        return float(pos), float(ori), float(worst)

    def task_errors(self, q: np.ndarray, frame):
        """
        {task name: (unweighted error [m], met)} at q (n,), as ``PoseProblem.errors``.

        The collision task's error is its largest violation max(d_min − d, 0).
        """
        known = self.known
        worst = known[1] if known is not None and known[0] is q else self._state(q, frame)[2]
        met, _ = self._violation(worst)
        return {self.task.name: ((self.task.weight * worst) / self.task.weight, met)}
