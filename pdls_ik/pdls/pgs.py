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

so no level changes what a level above achieved (J_i x_k = J_i x_{k−1}, i < k). The box on x is
a general polytope for z, so PGS runs on the dual: with H = BᵀB + λ²I (B = J_k N_k) and the
bound rows G z ≤ h (±rows of N_k), the multipliers μ ≥ 0 of the box minimize
``½ μᵀ (G H⁻¹ Gᵀ) μ − μᵀ (G H⁻¹ Bᵀê − h)`` — a box-constrained problem, solved by the sweeps
above (as Simbody's PGS solves for impulses, the multipliers of its constraints), and
``z = H⁻¹ (Bᵀê − Gᵀμ)``. The posture is the last level (J = I, no compensation: inside the
box it is P v, as in the priority loop). An unconverged level takes the largest fraction of its
z that stays within the box (strictness and bounds are kept exactly) and is reported.

:func:`pgs_step` keeps the older stacked form (levels weighted by ``w^k``; the weighted box step
of the compiled tracking cycle, :func:`pdls_ik._accel.step.pgs_box_step`, is its twin).
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
    gl, lol, upl, xl = g.tolist(), lo.tolist(), up.tolist(), x.tolist()
    sweeps, converged = 0, False
    while sweeps < max_iterations:
        sweeps += 1
        moved = 0.0
        for i in range(n):
            hii = diag[i]
            if hii <= 0.0:          # a zero column without damping: x_i does not matter
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


def _dual_pgs(M: Array, p: Array, up: Array, lo: Array, nu0: Array, max_iterations: int,
              tol: float):
    """
    Minimize ``½ νᵀMν − νᵀp + Σ_i (up_i max(ν_i, 0) − lo_i max(−ν_i, 0))`` by Gauss–Seidel.

    The dual of a box lo ≤ N z ≤ up (lo ≤ 0 ≤ up): ν_i > 0 is the multiplier of variable i's
    upper bound, ν_i < 0 of its lower one; each sweep minimizes exactly in one ν_i at a time (a
    projected, soft-thresholded Gauss–Seidel step). Returns (ν, sweeps, converged).
    """
    rows = M.tolist()
    diag = np.diag(M).tolist()
    pl, upl, lol = p.tolist(), up.tolist(), lo.tolist()
    nu = nu0.tolist()
    m = len(pl)
    for sweep in range(1, max_iterations + 1):
        moved = 0.0
        for i in range(m):
            a = diag[i]
            if a <= 0.0:
                continue
            row = rows[i]
            acc = 0.0
            for j in range(m):
                acc += row[j] * nu[j]
            beta = acc - a * nu[i] - pl[i]
            new = -(beta + upl[i]) / a
            if not new > 0.0:
                new = -(beta + lol[i]) / a
                if not new < 0.0:
                    new = 0.0
            change = abs(new - nu[i])
            if change > moved:
                moved = change
            nu[i] = new
        if moved <= tol * (1.0 + max((abs(v) for v in nu), default=0.0)):
            return np.array(nu), sweep, True
    return np.array(nu), max_iterations, False


#: proximal weight of an undamped level, relative to the largest σ² of its J_k N_k
PROX_SHARE = 0.05
#: proximal (outer) iterations of one undamped level at most
PROX_ITERATIONS = 60


def _bounded_level(B, e_hat, lam, N, x, lo, up, max_iterations, tol):
    """
    One level of :func:`strict_pgs_step`: z minimizing ‖B z − ê‖² + λ²‖z‖², x + N z in the box.

    N (c, r) orthonormal, the directions left by the levels above; x, lo, up (c,) the motion so
    far and the box. The multipliers of the box come from the dual by PGS (:func:`_dual_pgs`). An
    undamped level (λ = 0, H = BᵀB singular) is solved by proximal iterations, each adding
    ε²‖z − z_prev‖² (ε² = ``PROX_SHARE`` · σ_max²): from z = 0 they converge to the bounded
    optimum nearest 0, the bounded counterpart of the pseudoinverse. Returns (z (r,), sweeps,
    converged).
    """
    r = N.shape[1]
    BtB = B.T @ B
    smax2 = float(np.linalg.eigvalsh(BtB)[-1])
    eps2 = PROX_SHARE * smax2 if lam == 0.0 else 0.0
    H = BtB + (lam * lam + eps2) * np.eye(r)
    Bt_e = B.T @ e_hat
    lo_step, up_step = lo - x, up - x
    movable = np.einsum('ij,ij->i', N, N) > 1e-12           # rows of N that can move
    Nm = N[movable]
    Hinv_Nt = np.linalg.solve(H, Nm.T)
    M = Nm @ Hinv_Nt
    z = np.zeros(r)
    nu = np.zeros(Nm.shape[0])
    sweeps = 0
    for _ in range(PROX_ITERATIONS if eps2 > 0.0 else 1):
        z_free = np.linalg.solve(H, Bt_e + eps2 * z)
        t = N @ z_free
        if np.all(t >= lo_step) and np.all(t <= up_step):
            nu[:] = 0.0
            z_new, ok = z_free, True
        else:
            nu, used, ok = _dual_pgs(M, Nm @ z_free, up_step[movable], lo_step[movable], nu,
                                     max_iterations, tol)
            sweeps += used
            z_new = z_free - Hinv_Nt @ nu
        moved = float(np.abs(z_new - z).max())
        z = z_new
        if not ok:
            return z, sweeps, False
        if eps2 == 0.0 or moved <= PROX_TOL * (1.0 + float(np.abs(z).max())):
            return z, sweeps, True
    return z, sweeps, False


#: an undamped level's proximal iterations stop when z moves less than this (relative)
PROX_TOL = 1e-10


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
                                                max_iterations, tol)
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
