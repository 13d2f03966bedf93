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
The local solves of a plain pose goal on the NumPy backend, without the generic machinery.

:class:`PoseLoop` runs :func:`pdls_ik.pdls.solve` on the problem :class:`pdls_ik.IKSolver` builds
for a pose (or position-only) goal without joint locks or extra tasks — one level, the weighted
residual of :class:`~pdls_ik.tasks.FrameTask` — with the options IKSolver passes, as the
compiled kernel (:func:`pdls_ik._accel.ik_solver_numba.solve_local`) does: the same iterate
placement, restart monitor, divergence check with revert, adaptive step size, best iterate and
budgets, and the step of :func:`pdls_ik.pdls.step.compute_step` for one level (thin SVD, relative
rank, automatic or fixed λ, the limiting loop with the periodic variables turned through their
limits, Δθ clamping). What it leaves out is what such a solve never uses: the level lists, their
validation, the per-phase timers, the posture, line searches, inequality rows, a second level.
It works on the variables the goal moves only (the chain's: the others keep their values), and
evaluates the tip pose and Jacobian by one batched product of the joints' Rodrigues bases and a
prefix scan (:class:`~pdls_ik.model.chain_arrays.ChainArrays`).

It is how the NumPy backend serves a ROS user without numba at MoveIt's 5 ms timeout; the
generic :func:`pdls_ik.pdls.solve` remains the reference, and ``test/ik/test_pose_loop.py`` checks
that both give the same iterates, answers, iteration and restart counts.
"""
from __future__ import annotations

import math
import operator
import time
from typing import List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.lie.so3 import rotation_log
from pdls_ik.model.chain_arrays import ChainArrays
from pdls_ik.pdls.options import level_value
from pdls_ik.pdls.pinv import auto_lambda, thin_svd
from pdls_ik.pdls.solve import BEST_TIE_ATOL, BEST_TIE_RTOL

Array = NDArray[np.float64]
TWO_PI = 2.0 * math.pi
#: statuses of a local solve (those of :class:`pdls_ik.pdls.PDLSResult`); "stuck": the restart
#: monitor gave up on it (IKSolver reports it as "stalled")
CONVERGED, STALLED, MAX_ITERATIONS, MAX_TIME, INFEASIBLE, STUCK = (
    'converged', 'stalled', 'max_iterations', 'max_time', 'infeasible', 'stuck')


def pose_loop_unsupported(linkage, tip: str, base: str, extra, locks, options) -> str:
    """Why :class:`PoseLoop` cannot run a solver's one-shot solves ("" if it can)."""
    if extra:
        return 'extra tasks'
    if locks is not None:
        return 'joint locks'
    if options.limit_strategy != 'clamping':
        return f"limit_strategy '{options.limit_strategy}'"
    chain = linkage.chain(tip, base)
    if not chain.base_is_lca and chain.base_motions is not None:
        return 'a base below moving joints of the path'
    return ''


class LocalResult:
    """
    Outcome of one local solve: the :class:`pdls_ik.pdls.PDLSResult` fields IKSolver reads.

    :ivar q: (n,) the answer of the attempt (the last iterate when converged or stuck, else the
        best); status, iterations; residual_norms, lambdas, ranks, min_singular_values: per
        level (one), the norm at the last iterate and the last step's metrics (empty when no
        step was taken); position_error [m], orientation_error [rad] of q.
    """

    __slots__ = ('q', 'status', 'iterations', 'residual_norms', 'lambdas', 'ranks',
                 'min_singular_values', 'position_error', 'orientation_error')


class PoseLoop:
    """
    One-shot local solves of a plain pose goal on NumPy (see the module doc).

    :param linkage, tip, base: the solver's chain (a base above the tip, or joined to it by fixed
        joints: :func:`pose_loop_unsupported`).
    :param free: (n,) bool, the variables the solve moves (the chain's).
    :param frame: the solver's :class:`~pdls_ik.tasks.FrameTask` (goal, weights, tolerances,
        orientation controlled or not), read at each solve.
    :param options: the solver's :class:`~pdls_ik.pdls.PDLSOptions`.
    :param continuous: (n,) bool, the continuous joints (wrapped into [-π, π)).
    """

    def __init__(self, linkage, tip: str, base: str, free: NDArray[np.bool_], frame, options,
                 continuous: NDArray[np.bool_]):
        c = ChainArrays(linkage, tip, base)
        self.frame = frame
        self.n = linkage.n
        idx = self.variables = np.flatnonzero(free)
        k = idx.size
        where = {int(v): i for i, v in enumerate(idx)}
        self._m = m = c.m
        self._qidx = np.array([where[int(v)] for v in c.qidx], dtype=np.intp)
        self._plain = bool(np.all(c.multiplier == 1.0) and np.all(c.offset == 0.0))
        self._mult, self._offset = c.multiplier, c.offset
        # the joint transforms, then the constant end transform: the prefix scan gives the tip
        basis = np.zeros((m + 1, 4, 16))
        basis[:m] = c.basis
        basis[m, 0] = c.end.reshape(16)
        self._basis = basis
        self._coef = np.zeros((m + 1, 1, 4))
        self._coef[:, 0, 0] = 1.0
        self._prismatic = bool((~c.revolute).any())
        self._start = None if np.array_equal(c.start, np.eye(4)) else c.start
        select = c.select[:, idx]
        self._aligned = c.axis_column is not None
        if self._aligned:
            # coordinate axes (the usual case): each joint's axis a, the permutations of a, of
            # its origin p and of the tip's t that a × (t − p) takes, read from the frames by
            # one take of the flat scan (m + 1, 16); the axis signs go to the column map
            col, row = c.axis_column[:, None], np.arange(3)[None, :]
            at = np.arange(m)[:, None] * 16
            perm1, perm2 = np.array([1, 2, 0]), np.array([2, 0, 1])
            self._take = np.stack([at + row * 4 + col,                 # a
                                   at + perm1 * 4 + col,               # a (1, 2, 0)
                                   at + perm2 * 4 + col,               # a (2, 0, 1)
                                   at + perm2 * 4 + 3,                 # p (2, 0, 1)
                                   at + perm1 * 4 + 3,                 # p (1, 2, 0)
                                   m * 16 + perm2 * 4 + 3 + 0 * at,    # t (2, 0, 1)
                                   m * 16 + perm1 * 4 + 3 + 0 * at],   # t (1, 2, 0)
                                  axis=1)
            select = select * c.axis_sign
        else:
            self._axis = c.axis
            self._cross_a = np.array([1, 2, 0, 2, 0, 1])
            self._cross_d = np.array([2, 0, 1, 1, 2, 0])
        self._revolute = c.revolute
        self._select = np.ascontiguousarray(select)
        lower = np.asarray(linkage.lower, dtype=float)[idx]
        upper = np.asarray(linkage.upper, dtype=float)[idx]
        self._lower, self._upper = lower, upper
        self._lo, self._up = lower.tolist(), upper.tolist()
        periodic = options.periodic_mask(self.n)
        self._periodic = [False] * k if periodic is None else periodic[idx].tolist()
        self._continuous = np.asarray(continuous, dtype=bool)[idx].tolist()
        self._any_continuous = any(self._continuous)
        #: variables without room (lower == upper, not periodic): clamped from the start
        self._stuck = [j for j in range(k) if self._lo[j] == self._up[j]
                       and not self._periodic[j]]
        #: whether some variable may move (lower < upper)
        self._movable = any(a < b for a, b in zip(self._lo, self._up))
        self.options = options
        #: whether the goal has orientation rows (else position only); their row weights
        self._orientation = frame.controls_orientation
        self._row_weights = np.repeat([frame.position_weight, frame.orientation_weight],
                                      3)[:, None]
        lam = level_value(options.damping, 0)
        self._lam_fixed = None if lam is None or lam < 0.0 else float(lam)
        self._damp_sigma = (options.never_damp_sigma, options.always_damp_sigma)
        self._aim = options.theta_diff_max_mag * options.auto_lambda_theta_diff_max_mag_scale
        self.window = self.ratio = self.limit_window = 0
        self.limit_ratio = 1.0

    # ------------------------------------------------------------------ kinematics
    def evaluate(self, x: Array) -> Tuple[Array, Array, float, float, float]:
        """
        Weighted residual e (r,), Jacobian J (r, k) of the goal at x (k,); ‖e‖, errors.

        r = 6 rows (3 position-only); k the moved variables. The errors are the unweighted
        (position [m], orientation [rad]) ones, from e (:meth:`FrameTask.errors_from_residual`).
        """
        m = self._m
        theta = x[self._qidx]
        if not self._plain:
            theta = theta * self._mult + self._offset
        coef = self._coef
        np.sin(theta, out=coef[:m, 0, 1])
        np.subtract(1.0, np.cos(theta), out=coef[:m, 0, 2])
        if self._prismatic:
            coef[:m, 0, 3] = theta
        P = np.matmul(coef, self._basis).reshape(m + 1, 4, 4)
        if self._start is not None:
            P[0] = self._start @ P[0]
        step = 1
        while step <= m:            # inclusive prefix products (Hillis-Steele scan)
            P[step:] = np.matmul(P[:-step], P[step:])
            step *= 2
        T = P[m]
        if self._aligned:
            G = P.reshape(-1).take(self._take)          # (m, 7, 3): a, a₁, a₂, p₂, p₁, t₂, t₁
            M = G[:, 1:3] * (G[:, 5:7] - G[:, 3:5])
            cols = np.empty((m, 6))
            np.subtract(M[:, 0], M[:, 1], out=cols[:, :3])      # a × (t − p)
            cols[:, 3:] = axes = G[:, 0]
        else:
            axes = np.matmul(P[:m, :3, :3], self._axis[:, :, None])[:, :, 0]
            d = T[:3, 3] - P[:m, :3, 3]
            products = axes[:, self._cross_a] * d[:, self._cross_d]
            cols = np.empty((m, 6))
            cols[:, :3] = products[:, :3] - products[:, 3:]
            cols[:, 3:] = axes
        if self._prismatic:
            prismatic = ~self._revolute
            cols[prismatic, :3] = axes[prismatic]
            cols[prismatic, 3:] = 0.0
        J = cols.T @ self._select
        frame = self.frame
        wp = frame.position_weight
        (_, _, _, t0), (_, _, _, t1), (_, _, _, t2), _ = T.tolist()
        p0, p1, p2 = frame.target_position.tolist()
        e0, e1, e2 = wp * (p0 - t0), wp * (p1 - t1), wp * (p2 - t2)
        sp = e0 * e0 + e1 * e1 + e2 * e2
        if self._orientation:
            wo = frame.orientation_weight
            r0, r1, r2 = rotation_log(frame.target_rotation @ T[:3, :3].T).tolist()
            e3, e4, e5 = wo * r0, wo * r1, wo * r2
            J *= self._row_weights
            so = e3 * e3 + e4 * e4 + e5 * e5
            return (np.array((e0, e1, e2, e3, e4, e5)), J, math.sqrt(sp + so),
                    math.sqrt(sp) / wp, math.sqrt(so) / wo)
        return np.array((e0, e1, e2)), wp * J[:3], math.sqrt(sp), math.sqrt(sp) / wp, 0.0

    # ------------------------------------------------------------------ one step
    def step(self, x: Array, J: Array, e: Array, norm: float, clamp: Optional[float]):
        """
        One PDLS step of the single level from x (k,): :func:`pdls_ik.pdls.step.compute_step`.

        ``clamp``: the adaptive residual clamp (None: none). Returns (Δθ (k,), ‖Δθ‖ before its
        clamp, residual clamped, λ, rank, σ_min); x + Δθ stays within the limits (a periodic
        variable: or has an image within them).
        """
        res_clamped = clamp is not None and norm > clamp
        e_use = e * (clamp / norm) if res_clamped else e
        opts = self.options
        cut = opts.svd_tol * math.sqrt(float(np.vdot(J, J)))
        lo, up, periodic = self._lo, self._up, self._periodic
        xl = x.tolist()
        k = len(xl)
        fixed = clamped = mask = None
        if self._stuck:
            fixed, clamped = np.zeros(k), [False] * k
            for j in self._stuck:
                fixed[j] = lo[j] - xl[j]
                clamped[j] = True
            mask = np.array([0.0 if c else 1.0 for c in clamped])
        while True:
            if fixed is None:
                e_hat, A = e_use, J
            else:
                e_hat, A = e_use - J @ fixed, J * mask
            u, s, vt = thin_svd(A)
            sl = s.tolist()
            r = len(sl)
            while r and sl[r - 1] <= cut:
                r -= 1
            lam = smin = 0.0
            if r:
                smin = sl[r - 1]
                lam = self._lam_fixed
                if lam is None:
                    lam = auto_lambda(math.sqrt(e_hat.dot(e_hat)), smin, self._aim,
                                      *self._damp_sigma)
                if r < len(sl):
                    u, s, vt = u[:, :r], s[:r], vt[:r]
                gain = s / (s * s + lam * lam) if lam else 1.0 / s
                dtheta = (gain * (e_hat @ u)) @ vt
                if fixed is not None:
                    dtheta = fixed + dtheta
            else:
                dtheta = np.zeros(k) if fixed is None else fixed.copy()
            t = (x + dtheta).tolist()
            changed = False
            for j in range(k):
                tj = t[j]
                if (tj > up[j] or tj < lo[j]) and (clamped is None or not clamped[j]):
                    if periodic[j] and tj + TWO_PI * math.ceil((lo[j] - tj) / TWO_PI) <= up[j]:
                        continue            # turned onto its image within the limits
                    if fixed is None:
                        fixed, clamped = np.zeros(k), [False] * k
                    fixed[j] = (up[j] if tj > up[j] else lo[j]) - xl[j]
                    clamped[j] = changed = True
            if not changed:
                break
            mask = np.array([0.0 if c else 1.0 for c in clamped])
        if fixed is not None:   # exact motion of the clamped variables
            for j in range(k):
                if clamped[j]:
                    dtheta[j] = fixed[j]
        mag = math.sqrt(dtheta.dot(dtheta))
        tmax = opts.theta_diff_max_mag
        diff_clamped = opts.theta_diff_clamping and mag > tmax
        if diff_clamped:
            dtheta = dtheta * (tmax / math.sqrt(dtheta.dot(dtheta)))
        if fixed is not None or diff_clamped:
            self._exactly_inside(xl, dtheta)
        return dtheta, mag, res_clamped, lam, r, smin

    def _exactly_inside(self, xl: List[float], dtheta: Array) -> None:
        """:func:`pdls_ik.pdls.step._exactly_inside` on the moved variables, in place."""
        lo, up, periodic = list(self._lo), list(self._up), self._periodic
        for _ in range(8):
            moved = False
            t = [a + b for a, b in zip(xl, dtheta.tolist())]
            for j, tj in enumerate(t):
                if periodic[j] and (tj > up[j] or tj < lo[j]) and \
                        tj + TWO_PI * math.ceil((lo[j] - tj) / TWO_PI) <= up[j]:
                    continue
                if tj > up[j] and xl[j] <= up[j]:
                    dtheta[j] = math.nextafter(up[j] - xl[j], -math.inf)
                    up[j] = math.nextafter(up[j], -math.inf)
                    moved = True
                elif tj < lo[j] and xl[j] >= lo[j]:
                    dtheta[j] = math.nextafter(lo[j] - xl[j], math.inf)
                    lo[j] = math.nextafter(lo[j], math.inf)
                    moved = True
            if not moved:
                return

    def place(self, x: Array) -> Array:
        """
        Place x (k,) in the limits (a copy when it moves; :func:`pdls_ik.pdls.solve`'s place).

        Continuous joints wrapped into [-π, π), periodic ones outside their limits turned onto
        an image within them if any, then clipped into the limits.
        """
        xl = x.tolist()
        lo, up, periodic = self._lo, self._up, self._periodic
        moved = False
        for j, v in enumerate(xl):
            if self._any_continuous and self._continuous[j]:
                v = (v + math.pi) % TWO_PI - math.pi
            if v > up[j] or v < lo[j]:
                if periodic[j]:
                    image = v + TWO_PI * math.ceil((lo[j] - v) / TWO_PI)
                    if image <= up[j]:
                        v = image
                v = min(max(v, lo[j]), up[j])
            if v != xl[j]:
                xl[j] = v
                moved = True
        return np.array(xl) if moved else x

    # ------------------------------------------------------------------ local solve
    def start(self, window: int = 0, ratio: float = 1.0, limit_window: int = 0,
              limit_ratio: float = 1.0) -> None:
        """Set the restart monitor (as :meth:`pdls_ik.ik.pose_problem.PoseProblem.start`)."""
        self.window, self.ratio = window, ratio
        self.limit_window, self.limit_ratio = limit_window, limit_ratio

    def solve(self, q0: Array, deadline: float, min_iterations: int) -> LocalResult:
        """
        Run one local solve from q0 (n,), within the limits.

        The clock is read once ``min_iterations`` are done (deadline: a time.perf_counter()
        value). Returns a :class:`LocalResult`.
        """
        opts = self.options
        idx = self.variables
        residual_tol, tmax = opts.residual_tol, opts.theta_diff_max_mag
        frame = self.frame
        tol_p, tol_o = frame.position_tolerance, frame.orientation_tolerance
        x = self.place(q0[idx])
        e, J, norm, pos, ori = self.evaluate(x)
        best, best_key = x, math.inf
        history: List[float] = []
        clamp: Optional[float] = None
        cap: Optional[float] = None
        prev: Optional[float] = None
        x_prev = x
        step = None                 # (mag, residual clamped, λ, rank, σ_min) of the last step
        last_applied = math.inf
        iteration = 0
        lo, up = self._lo, self._up
        while True:
            key = max(norm, residual_tol)
            if key < best_key and (best_key == math.inf or
                                   best_key - key > BEST_TIE_RTOL * best_key + BEST_TIE_ATOL):
                best, best_key = x, key
            if pos <= tol_p and ori <= tol_o:
                status = CONVERGED
                break
            if self.window:
                history.append(norm)
                window, ratio = self.window, self.ratio
                xl = x.tolist()
                if self.limit_window and (any(map(operator.le, xl, lo))
                                          or any(map(operator.ge, xl, up))):
                    window, ratio = self.limit_window, self.limit_ratio
                if len(history) > window and history[-1] > ratio * history[-1 - window]:
                    status = STUCK
                    break
            if iteration == 0 and not self._movable:
                status = INFEASIBLE
                break
            diverging = prev is not None and opts.divergence_factor and norm > residual_tol \
                and norm - prev > opts.divergence_tol + opts.divergence_factor * prev
            if diverging:
                x = x_prev
                e, J, norm, pos, ori = self.evaluate(x)
            if step is not None and last_applied < opts.theta_diff_tol and not step[1]:
                status = STALLED
                break
            if iteration >= opts.max_iterations:
                status = MAX_ITERATIONS
                break
            if iteration >= min_iterations and time.perf_counter() >= deadline:
                status = MAX_TIME
                break
            if step is not None:        # adaptive step size (pdls.stepsize.AdaptiveStepSize)
                mag = step[0]
                if mag > opts.slowdown_threshold * tmax or diverging:
                    clamp = max((prev if clamp is None else clamp) * opts.slowdown_factor,
                                residual_tol)
                    if diverging:
                        cap = clamp if cap is None else min(cap, clamp)
                elif mag < opts.speedup_threshold * tmax and clamp is not None and step[1]:
                    clamp = clamp * opts.speedup_factor
                    if cap is not None:
                        clamp = min(clamp, cap)
            dtheta, *metrics = self.step(x, J, e, norm, clamp)
            step = metrics
            nxt = self.place(x + dtheta)
            applied = nxt - x
            last_applied = math.sqrt(applied.dot(applied))
            x_prev, prev = x, norm
            x = nxt
            iteration += 1
            e, J, norm, pos, ori = self.evaluate(x)
        out = LocalResult()
        out.status, out.iterations, out.residual_norms = status, iteration, [norm]
        if step is None:
            out.lambdas, out.ranks, out.min_singular_values = [], [], []
        else:
            out.lambdas, out.ranks, out.min_singular_values = [step[2]], [step[3]], [step[4]]
        if status in (CONVERGED, STUCK) or best is x:
            answer = x
        else:
            answer = best
            _, _, _, pos, ori = self.evaluate(best)
        q = q0.copy()
        q[idx] = answer
        out.q, out.position_error, out.orientation_error = q, pos, ori
        return out
