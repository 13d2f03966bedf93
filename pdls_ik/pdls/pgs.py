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

For priority levels (:func:`pgs_step`), the levels are stacked with weights ``w^k`` (w =
``pgs_level_weight`` ≪ 1): the bounds are met exactly, the priorities become very strong weights
rather than strict null-space projections. Inside the bounds the PDLS step is kept unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError

Array = NDArray[np.float64]


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
