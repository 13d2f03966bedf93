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
Bounded variables by projected Gauss–Seidel (PGS).

The damped step as a box-constrained least-squares problem.

The clamping loop of :mod:`pdls_ik.pdls.step` holds a variable at the limit it would cross and
re-solves, once per newly clamped variable. The alternative solves the damped least-squares step
*with* the bounds in one problem::

    minimize  ‖A x − b‖² + λ² ‖x‖²     subject to  l ≤ x ≤ u

through its normal equations H x = g, H = AᵀA + λ²I, g = Aᵀb, by projected Gauss–Seidel sweeps
(each variable in turn solves its own row and is projected onto its interval)::

    x_i ← clip(x_i − (H_i · x − g_i) / H_ii,  l_i,  u_i)

This is the iteration of Simbody's projected Gauss–Seidel impulse solver
(``SimTK::PGSImpulseSolver``: bounded unknowns ``lb ≤ π ≤ ub`` solved row by row with
projection), here applied to the kinematic step; H is symmetric positive definite when λ > 0,
so the sweeps converge to the unique minimizer (Cryer 1971, "The solution of a quadratic
programming problem using systematic overrelaxation"; Murty 1988, *Linear Complementarity,
Linear and Nonlinear Programming*).

For strict priority levels (:func:`strict_pgs_step`, ``limit_strategy="pgs"``) each level k
solves its own bounded problem inside what the levels above leave: the null space N_k of their
Jacobians and the box minus the motion they took,

    x_k = x_{k−1} + N_k z,   z = argmin ‖J_k N_k z − ê_k‖² + λ_k² ‖z‖²
                             subject to  l ≤ x_{k−1} + N_k z ≤ u,

so no level changes what a level above achieved (J_i x_k = J_i x_{k−1}, i < k). The first level
that acts has the box alone (N = I): projected Gauss–Seidel as above. Below it the box is a
polytope in z, where Gauss–Seidel on the dual (the multipliers of the box, as Simbody's PGS
solves for impulses) stalled: its matrix N H⁻¹ Nᵀ is singular when N has fewer columns than
rows, and 119 of 421 such solves of the audit's problem set had not converged after 200
sweeps. Those levels are solved exactly by a primal active-set method
(:func:`_active_set_qp`), a few iterations for these sizes. The posture is the last level
(J = I, no compensation: inside the box it is P v, as in the priority loop). A level whose
solver did not converge keeps the largest share of its motion that stays within the box
(strictness and bounds are kept exactly) and is reported.

:func:`pgs_step` keeps the older stacked form (levels weighted by ``w^k``; the weighted box step
of the compiled tracking cycle, :func:`pdls_ik._accel.step_numba.pgs_box_step`, is its twin).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError

Array = NDArray[np.float64]
#: a variable within this of a bound of its step [variable units] counts as at the bound
AT_BOUND_TOL = 1e-12

#: H_ii ≤ ZERO_COLUMN · max_j H_jj: a zero column (squared norms; 1e-12 relative in norm)
ZERO_COLUMN = 1e-24


@dataclass
class PGSResult:
    """
    Outcome of :func:`bounded_least_squares`.

    :ivar x: (n,) the solution, within [lower, upper].
    :ivar iterations: Gauss–Seidel sweeps done.  converged: the last sweep moved no variable by
        more than the tolerance.  at_bound: (n,) bool, variables on a bound.
    """

    x: Array
    iterations: int
    converged: bool
    at_bound: Array


def bounded_least_squares(A: Array, b: Array, lower: Array, upper: Array, damping: float = 0.0,
                          x0: Optional[Array] = None, max_iterations: int = 200,
                          tol: float = 1e-12) -> PGSResult:
    """
    Solve ``min ‖A x − b‖² + λ²‖x‖²`` s.t. ``lower ≤ x ≤ upper`` by projected Gauss–Seidel.

    :param A: (m, n).  b: (m,).  lower, upper: (n,), ±inf allowed, lower ≤ upper.
    :param damping: λ ≥ 0 (λ > 0 makes the minimizer unique and the sweeps contract).
    :param x0: (n,) warm start (projected onto the box); default the projection of 0.
    :param max_iterations: sweep budget.  tol: stop when a sweep moves no variable by more than
        ``tol · (1 + max|x|)``.

    :return: :class:`PGSResult`.

    :raises InputError: mismatched shapes, NaN, lower > upper, negative damping.
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    if A.ndim != 2 or b.shape != (A.shape[0],):
        raise InputError(f'bounded_least_squares: A (m, n) and b (m,) expected, got {A.shape} '
                         f'and {b.shape}')
    n = A.shape[1]
    lo = np.asarray(lower, dtype=float)
    up = np.asarray(upper, dtype=float)
    if lo.shape != (n,) or up.shape != (n,) or not np.all(lo <= up):
        raise InputError(f'bounded_least_squares: lower and upper must be ({n},) with '
                         'lower <= upper')
    if not (np.isfinite(A).all() and np.isfinite(b).all()) or not damping >= 0.0:
        raise InputError('bounded_least_squares: A and b must be finite and damping >= 0')
    H = A.T @ A
    H[np.diag_indices(n)] += damping * damping
    g = A.T @ b
    x = np.clip(np.zeros(n) if x0 is None else np.asarray(x0, dtype=float), lo, up)
    rows: List[List[float]] = H.tolist()
    diag = np.diag(H).tolist()
    # a column this small is rounding noise (a joint that does not move the task, ~1e-17):
    # x_i does not matter; left alone, the noise's sign would drive it onto either bound
    zero = ZERO_COLUMN * max(diag, default=0.0)
    gl, lol, upl, xl = g.tolist(), lo.tolist(), up.tolist(), x.tolist()
    sweeps, converged = 0, False
    while sweeps < max_iterations:
        sweeps += 1
        moved = 0.0
        for i in range(n):
            hii = diag[i]
            if hii <= zero:         # a zero column without damping: x_i does not matter
                new = min(max(0.0, lol[i]), upl[i])
            else:
                row = rows[i]
                s = 0.0
                for j in range(n):
                    s += row[j] * xl[j]
                new = xl[i] - (s - gl[i]) / hii
                new = upl[i] if new > upl[i] else (lol[i] if new < lol[i] else new)
            change = abs(new - xl[i])
            if change > moved:
                moved = change
            xl[i] = new
        if moved <= tol * (1.0 + max(abs(v) for v in xl)):
            converged = True
            break
    x = np.array(xl)
    return PGSResult(x, sweeps, converged, (x <= lo) | (x >= up))


@dataclass
class StrictPGSResult:
    """
    Outcome of :func:`strict_pgs_step`.

    :ivar x: (n,) the bounded step.  at_bound: (n,) bool, variables on a bound.
    :ivar sweeps: PGS sweeps over all levels.  converged: every level's sweeps converged.
    :ivar unconverged_levels: indices of the levels (the posture: len(levels)) that did not.
    """

    x: Array
    at_bound: Array
    sweeps: int
    converged: bool
    unconverged_levels: List[int]


def _active_set_qp(H: Array, g: Array, G: Array, h: Array, max_iterations: int):
    """
    Minimize ½ zᵀHz − gᵀz subject to G z ≤ h from the feasible z = 0 (h ≥ 0), H ⪰ 0.

    A primal active-set method (Nocedal & Wright 2006, Algorithm 16.3): each iteration solves
    the equality-constrained step on the working set (least squares on its KKT system, so a
    singular H gives the least-norm step), then either moves to the first blocking constraint
    or, at a stationary point, drops the constraint of the most negative multiplier. Returns
    (z, iterations, converged).
    """
    r = H.shape[0]
    z = np.zeros(r)
    work: List[int] = []
    scale = 1.0 + float(np.abs(H).max(initial=0.0))
    for iteration in range(1, max_iterations + 1):
        Gw = G[work]
        K = np.zeros((r + len(work), r + len(work)))
        K[:r, :r] = H
        K[:r, r:] = Gw.T
        K[r:, :r] = Gw
        rhs = np.concatenate([g - H @ z, np.zeros(len(work))])
        sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
        p, mu = sol[:r], sol[r:]
        if np.abs(p).max(initial=0.0) <= 1e-13 * (1.0 + np.abs(z).max(initial=0.0)):
            if not work or mu.min() >= -1e-12 * scale:
                return z, iteration, True
            work.pop(int(np.argmin(mu)))
            continue
        Gp = G @ p
        slack = h - G @ z
        alpha, block = 1.0, -1
        for i in np.flatnonzero(Gp > 1e-14 * (1.0 + np.abs(p).max())):
            if i in work:
                continue
            step = max(slack[i], 0.0) / Gp[i]
            if step < alpha:
                alpha, block = step, int(i)
        z = z + alpha * p
        if block >= 0:
            work.append(block)
    return z, max_iterations, False


def _bounded_level(B, e_hat, lam, N, x, lo, up, max_iterations):
    """
    One level of :func:`strict_pgs_step`: z minimizing ‖B z − ê‖² + λ²‖z‖², x + N z in the box.

    N (c, r) orthonormal, the directions left by the levels above; x, lo, up (c,) the motion so
    far and the box; the box is a polytope in z, solved by :func:`_active_set_qp`. Returns
    (z (r,), iterations, converged).
    """
    r = N.shape[1]
    H = B.T @ B + lam * lam * np.eye(r)
    g = B.T @ e_hat
    movable = np.einsum('ij,ij->i', N, N) > 1e-12           # rows of N that can move
    upper_rows = movable & np.isfinite(up)
    lower_rows = movable & np.isfinite(lo)
    G = np.vstack([N[upper_rows], -N[lower_rows]])
    h = np.maximum(np.concatenate([up[upper_rows] - x[upper_rows],
                                   x[lower_rows] - lo[lower_rows]]), 0.0)
    return _active_set_qp(H, g, G, h, max_iterations)


def strict_pgs_step(jacobians: Sequence[Array], residuals: Sequence[Array],
                    lambdas: Sequence[float], x0: Array, lower_step: Array, upper_step: Array,
                    movable: Array, posture: Optional[Array], rank_tol: float,
                    max_iterations: int, tol: float) -> StrictPGSResult:
    """
    Compute the bounded PDLS step level by level in strict priority (module docstring).

    :param jacobians, residuals: per level, highest first, J_k (m_k, n) and the (clamped) e_k.
    :param lambdas: per level, λ_k (of the unbounded step: fixed or automatic).
    :param x0: (n,) the motion fixed before (variables moved back onto a limit), 0 elsewhere.
    :param lower_step, upper_step: (n,) bounds on Δθ (limits minus θ); x0 within them.
    :param movable: (n,) bool, the variables the levels may move.
    :param posture: (n,) the posture variation (the last level), or None.
    :param rank_tol: relative rank tolerance (``svd_tol``): the directions of J_k N_k with σ
        above ``rank_tol · ‖J_k‖_F`` are the level's; the others are left to the levels below.
    :param max_iterations, tol: sweep budget and relative stopping tolerance of each dual PGS.

    :return: :class:`StrictPGSResult` over all n variables.
    """
    cols = np.flatnonzero(movable)
    x = np.array(x0, dtype=float)
    lo, up = lower_step[cols], upper_step[cols]
    N = np.eye(cols.size)
    sweeps, unconverged = 0, []
    levels = list(zip(jacobians, residuals, lambdas))
    if posture is not None:
        levels.append((None, posture, 0.0))
    for k, (J, e, lam) in enumerate(levels):
        if N.shape[1] == 0:
            break
        if J is None:                                       # the posture: B = N, e = v
            B, e_hat, cut = N, e[cols], 0.5
        else:
            if J.shape[0] == 0:
                continue
            Jc = J[:, cols]
            B, e_hat = Jc @ N, e - J @ x
            cut = rank_tol * float(np.linalg.norm(Jc))
        _, s, vt = np.linalg.svd(B, full_matrices=True)
        rank = int(np.count_nonzero(s > cut))
        if rank == 0:
            continue
        if N.shape[1] == cols.size and J is not None:        # nothing above: N = I, primal PGS
            xc = x[cols]
            warm = np.linalg.lstsq(np.vstack([B, lam * np.eye(cols.size)]),
                                   np.concatenate([e_hat, np.zeros(cols.size)]), rcond=None)[0]
            res = bounded_least_squares(B, e_hat, lo - xc, up - xc, lam, warm, max_iterations,
                                        tol)
            z, used, converged = res.x, res.iterations, res.converged
        else:
            z, used, converged = _bounded_level(B, e_hat, lam, N, x[cols], lo, up,
                                                max_iterations)
        sweeps += used
        step_c = N @ z
        t = x[cols] + step_c
        out_up, out_lo = t > up + AT_BOUND_TOL, t < lo - AT_BOUND_TOL
        if out_up.any() or out_lo.any():            # an unconverged level: stay within the box
            ratio = np.ones(cols.size)
            ratio[out_up] = (up - x[cols])[out_up] / step_c[out_up]
            ratio[out_lo] = (lo - x[cols])[out_lo] / step_c[out_lo]
            step_c = step_c * max(0.0, float(ratio.min()))
            converged = False
        x[cols] = np.clip(x[cols] + step_c, lo, up)        # rounding at the bounds
        if not converged:
            unconverged.append(k)
        N = N @ vt[rank:].T                                 # what this level leaves
    t = x[cols]
    at_bound = np.zeros(x.size, dtype=bool)
    at_bound[cols] = (t - lo <= AT_BOUND_TOL) | (up - t <= AT_BOUND_TOL)
    return StrictPGSResult(x, at_bound, sweeps, not unconverged, unconverged)


def pgs_step(jacobians: Sequence[Array], residuals: Sequence[Array], dtheta0: Array,
             lower_step: Array, upper_step: Array, free: Optional[Array],
             posture: Optional[Array], damping: float, level_weight: float,
             max_iterations: int, tol: float) -> PGSResult:
    """
    Compute the PDLS step with bounds, as one box-constrained damped least-squares problem.

    :param jacobians, residuals: per level, highest first, J_k (m_k, n) and the (clamped) e_k.
    :param dtheta0: (n,) the unbounded PDLS step (warm start after projection).
    :param lower_step, upper_step: (n,) bounds on Δθ (limits minus θ).
    :param free: (n,) bool mask of the variables that may move, or None.
    :param posture: (n,) posture variation (a last level with J = I) or None.
    :param damping: λ (the top level's λ of the unbounded step).
    :param level_weight: w; level k rows are scaled by w^k.

    :return: :class:`PGSResult` over all n variables (fixed ones: x = 0, not at bound).
    """
    n = dtheta0.size
    cols = np.arange(n) if free is None else np.flatnonzero(free)
    blocks_A, blocks_b = [], []
    w = 1.0
    for J, e in zip(jacobians, residuals):
        if J.shape[0]:
            blocks_A.append(w * J[:, cols])
            blocks_b.append(w * e)
        w *= level_weight
    if posture is not None:
        blocks_A.append(w * np.eye(cols.size))
        blocks_b.append(w * posture[cols])
    if not blocks_A:
        blocks_A, blocks_b = [np.zeros((0, cols.size))], [np.zeros(0)]
    res = bounded_least_squares(np.vstack(blocks_A), np.concatenate(blocks_b),
                                lower_step[cols], upper_step[cols], damping, dtheta0[cols],
                                max_iterations, tol)
    x = np.zeros(n)
    x[cols] = res.x
    at_bound = np.zeros(n, dtype=bool)
    at_bound[cols] = res.at_bound
    return PGSResult(x, res.iterations, res.converged, at_bound)
