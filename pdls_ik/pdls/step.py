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
One PDLS iteration: the limiting loop around the priority loop, then posture and Δθ clamping.

Priority loop (Siciliano & Slotine 1991; Baerlocher & Boulic 2004, section 3), for levels
k = 1..p, starting from Δθ = (motion of clamped variables) and P = diag(free, unclamped)::

    ê_k = e_k − J_k Δθ               compensated residual
    J̃_k = J_k P                      restricted Jacobian
    Δθ += J̃_k^{+λ_k} ê_k             damped pseudoinverse, λ_k fixed or automatic
    P  −= J̃_k^{+} J̃_k                undamped, rank relative: σ > svd_tol ‖J_k‖_F
                                     (= P − VᵣVᵣᵀ)

then ``Δθ += c`` for the posture variation v (lowest priority): c = P v, bounded by the limits
that remain (:mod:`pdls_ik.pdls.posture`).

Limiting loop (Baerlocher & Boulic 2004, section 4): when θ + Δθ leaves [lower, upper] for some
variables, they are clamped at the limit they cross: their motion is fixed to reach it exactly,
their columns leave P (so the other variables compensate that fixed motion through ê_k) and the
priority loop runs again, until no new variable is clamped (at most n rounds); a variable
without room (lower == upper, e.g. a joint held for a tracking cycle) is clamped from the start,
so that no level counts on a variable that cannot move. The limiting
loop sees the levels only: a variable is never clamped because the posture would push it past a
limit (that would take it from the levels above); the posture is added after the loop, within
the limits.

With ``limit_strategy="pgs"`` the limiting loop is replaced: a step (posture included) that
leaves the limits is recomputed level by level, each level's damped bounded problem solved
inside the null space and the box left by the levels above
(:func:`pdls_ik.pdls.pgs.strict_pgs_step`: projected Gauss–Seidel after Simbody's
``SimTK::PGSImpulseSolver`` for the box alone, an active-set method below); its sweeps and
convergence are reported (``pgs_sweeps``, ``pgs_converged``). ``"pgs_weighted"`` keeps the
former stacked form (levels weighted by ``pgs_level_weight``^k, one PGS over all): not a strict
hierarchy, it is the NumPy reference of the compiled tracking cycle's box step.

Inequality rows are handled the same way: a satisfied row that the step would violate joins its
level with the request to land on its bound, and the passes repeat until nothing new is clamped
or activated.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
import time
from typing import Dict, List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.pdls.levels import (ACTIVE_TOL, check_limits, check_vector, GREATER_EQUAL,
                                 LESS_EQUAL, LevelLike, PreparedLevels, residual_norm)
from pdls_ik.pdls.options import level_value, PDLSOptions
from pdls_ik.pdls.periodic import turn_into_limits
from pdls_ik.pdls.pgs import pgs_step, strict_pgs_step
from pdls_ik.pdls.pinv import auto_lambda, thin_svd
from pdls_ik.pdls.posture import posture_within_limits

_DEFAULT_OPTIONS = PDLSOptions()
_NO_INDICES = np.zeros(0, dtype=np.int64)
_NO_INDICES.setflags(write=False)


@dataclass
class StepResult:
    """
    Outcome of one PDLS iteration.

    :ivar theta_diff: (n,) the variation to add to θ (after Δθ clamping); θ + Δθ stays in limits.
    :ivar lambdas, ranks, min_singular_values: per level, the λ used, the rank of the restricted
        Jacobian J̃_k and its smallest singular value above ``svd_tol · ‖J_k‖_F`` (0 when
        rank 0).
    :ivar auto_lambda: per level, whether λ was computed automatically.
    :ivar residual_norms: per level, the norm of the active (unclamped, uncompensated) residual.
    :ivar residual_clamped: per level, whether ``residual_max_mag`` clamped the residual.
    :ivar clamped: indices of the variables held at a limit, increasing.
    :ivar limiting_variation: (n,) for a clamped variable, the desired change minus the allowed
        change (positive at an upper limit, negative at a lower one); 0 elsewhere.
    :ivar limiting_iterations: number of priority-loop passes (1 when no variable was clamped).
    :ivar theta_diff_mag: ‖Δθ‖ before Δθ clamping (max-abs when clamping by component).
    :ivar theta_diff_clamped: whether Δθ was scaled or clipped to ``theta_diff_max_mag``.
    :ivar pgs_sweeps, pgs_converged: with ``limit_strategy="pgs"``, the projected Gauss–Seidel
        sweeps of the bounded step and whether every level's sweeps converged (0 and True when
        the unbounded step stayed within the limits or the strategy is "clamping").
    :ivar times: seconds spent in this step's phases (after MSim's ``TimeMetrics``):
        "priority_loop" (all passes), "svd" (within it), "limits" (limiting loop checks or the
        bounded PGS step), "posture" (the posture within the limits).
    :ivar level_times: per level, seconds spent in its priority-loop work (all passes).
    """

    theta_diff: NDArray[np.float64]
    lambdas: List[float]
    ranks: List[int]
    min_singular_values: List[float]
    auto_lambda: List[bool]
    residual_norms: List[float]
    residual_clamped: List[bool]
    clamped: NDArray[np.int64]
    limiting_variation: NDArray[np.float64]
    limiting_iterations: int
    theta_diff_mag: float
    theta_diff_clamped: bool
    pgs_sweeps: int = 0
    pgs_converged: bool = True
    times: Dict[str, float] = field(default_factory=dict)
    level_times: List[float] = field(default_factory=list)


def step(levels: Sequence[LevelLike], theta, lower=None, upper=None, posture=None,
         options: Optional[PDLSOptions] = None) -> StepResult:
    """
    Compute one PDLS variation Δθ (Baerlocher & Boulic 2004).

    :param levels: highest priority first; each a :class:`Level` or a pair ``(e_k (m_k,),
        J_k (m_k, n))``. Inactive inequality rows are dropped.
    :param theta: (n,) current variables.
    :param lower, upper: (n,) limits (±inf allowed) or None. Applied when
        ``options.respect_limits``. A variable already outside its limits is moved back to
        the limit it violates (before Δθ clamping).
    :param posture: (n,) desired variation applied in the remaining null space, or None.
    :param options: :class:`PDLSOptions`; defaults when None.

    :return: :class:`StepResult`; ``theta + result.theta_diff`` lies within [lower, upper] in exact
        floating point for every variable that started inside, or (a periodic variable, see
        ``options.periodic_variables``) a full turn away from a value within them.

    :raises InputError: wrong shape or non-finite value, naming the level, row and variable.
    :raises ConfigError: ``options.free_variables`` does not fit n.
    """
    opts = _DEFAULT_OPTIONS if options is None else options
    theta = check_vector('theta', theta, None)
    n = theta.size
    lo, up = check_limits(lower, upper, n) if opts.respect_limits else (None, None)
    prepared = PreparedLevels(levels, n, opts.clamp_residual_by_component)
    if posture is not None:
        posture = check_vector('posture', posture, n)
    return compute_step(prepared, theta, lo, up, posture, opts, opts.free_mask(n))


def clamp_vector(v: NDArray[np.float64], max_mag: float, by_component: bool) -> NDArray:
    """Return v scaled to 2-norm ``max_mag`` (or clipped per component to ±max_mag), a copy."""
    if by_component:
        return np.clip(v, -max_mag, max_mag)
    return v * (max_mag / math.sqrt(v.dot(v)))


def compute_step(prep: PreparedLevels, theta: NDArray[np.float64], lower, upper, posture,
                 opts: PDLSOptions, free: Optional[NDArray[np.bool_]],
                 residual_max_mag: Optional[Sequence[Optional[float]]] = None) -> StepResult:
    """
    :func:`step` on validated inputs (the solver's hot path).

    :param residual_max_mag: per-level residual clamp overriding ``opts.residual_max_mag`` (the
        adaptive step size), None entries meaning no clamp.
    """
    p, n = len(prep), theta.size
    by_comp = opts.clamp_residual_by_component
    es, res_clamped, lam_fixed = list(prep.residuals), [False] * p, [None] * p
    rmm = opts.residual_max_mag if residual_max_mag is None else residual_max_mag
    damping = opts.damping
    periodic = None if opts.periodic_variables is None else opts.periodic_mask(n)
    for k in range(p):
        rm = level_value(rmm, k) if rmm is not None else None
        if rm is not None and prep.norms[k] > rm:
            es[k] = clamp_vector(es[k], rm, by_comp)
            res_clamped[k] = True
        if damping is not None:
            lam = level_value(damping, k)
            lam_fixed[k] = None if lam is None or lam < 0 else lam
    if posture is not None and opts.posture_max_mag is not None:
        if residual_norm(posture, by_comp) > opts.posture_max_mag:
            posture = clamp_vector(posture, opts.posture_max_mag, by_comp)

    clamped = fixed = None
    limiting_variation = np.zeros(n)
    active = free
    if lower is not None and opts.limit_strategy == 'clamping':
        # a variable without room (lower == upper: a joint held for a tracking cycle) is clamped
        # from the start: no level may count on it. Left active, it would take part until a
        # pass gave it a motion, and whether rounding noise (1e-19) in that motion leaves its
        # zero-width box would decide the passes, the rows activated and the step.
        stuck = lower == upper
        if periodic is not None:
            stuck &= ~periodic
        if active is not None:
            stuck &= active
        if stuck.any():
            fixed, clamped = np.zeros(n), stuck
            fixed[stuck] = lower[stuck] - theta[stuck]
            active = ~clamped if free is None else (free & ~clamped)
    jacobians = prep.jacobians
    pending = None
    if prep.inactive is not None:
        jacobians = list(jacobians)
        pending = [None if rest is None else np.ones(rest[0].size, dtype=bool)
                   for rest in prep.inactive]
    rounds = 0
    pgs_used = False
    pgs_info = None
    clock = time.perf_counter
    times = {'priority_loop': 0.0, 'svd': 0.0, 'limits': 0.0, 'posture': 0.0}
    level_times = [0.0] * p
    while True:
        rounds += 1
        t0 = clock()
        dtheta, lambdas, ranks, sigmas, autos, proj = _priority_loop(
            jacobians, es, n, active, fixed, free, posture is not None, lam_fixed, opts,
            times, level_times)
        t1 = clock()
        times['priority_loop'] += t1 - t0
        changed = False
        if lower is not None and opts.limit_strategy != 'clamping':
            if posture is not None:
                dtheta = dtheta + proj @ posture
            bounded = _pgs_bound(jacobians, es, theta, dtheta, lower, upper, active, posture,
                                 lambdas, opts)
            pgs_used = True
            if bounded is not None:
                limiting_variation = dtheta - bounded.x
                dtheta, clamped = bounded.x, bounded.at_bound
                limiting_variation[~clamped] = 0.0
                pgs_info = bounded
        elif lower is not None:
            new_theta = theta + dtheta
            over = new_theta > upper
            under = new_theta < lower
            if periodic is not None and (over.any() or under.any()):
                turned = turn_into_limits(new_theta, lower, upper, periodic)[1]
                over &= ~turned
                under &= ~turned
            if over.any() or under.any():
                viol = over | under
                if active is not None:
                    viol &= active
                if viol.any():
                    if fixed is None:
                        fixed, clamped = np.zeros(n), np.zeros(n, dtype=bool)
                    fixed[viol] = np.where(over, upper, lower)[viol] - theta[viol]
                    limiting_variation[viol] = dtheta[viol] - fixed[viol]
                    clamped |= viol
                    active = ~clamped if free is None else (free & ~clamped)
                    changed = True
        t2 = clock()
        times['limits'] += t2 - t1
        bounded_by_pgs = lower is not None and opts.limit_strategy != 'clamping'
        if not changed and posture is not None and not bounded_by_pgs:
            # the posture last, within what the limits leave: never clamps a variable
            if fixed is not None:
                dtheta[clamped] = fixed[clamped]
            dtheta += posture_within_limits(proj, posture, theta + dtheta, lower, upper,
                                            periodic)
            times['posture'] += clock() - t2
        if pending is not None:
            changed |= _activate_inequalities(prep.inactive, pending, es, jacobians, dtheta)
        if not changed:
            break
    if fixed is not None:  # exact motion of the clamped variables (the SVD leaves ~1e-17 there)
        dtheta[clamped] = fixed[clamped]
    if free is not None:
        dtheta[~free] = 0.0

    if opts.clamp_theta_diff_by_component:
        mag = float(np.abs(dtheta).max()) if n else 0.0
    else:
        mag = math.sqrt(dtheta.dot(dtheta))
    tmax = opts.theta_diff_max_mag
    diff_clamped = opts.theta_diff_clamping and mag > tmax
    if diff_clamped:
        dtheta = clamp_vector(dtheta, tmax, opts.clamp_theta_diff_by_component)
    if lower is not None and (fixed is not None or diff_clamped or pgs_used
                              or posture is not None):
        _exactly_inside(theta, dtheta, lower, upper, periodic)
    result = StepResult(dtheta, lambdas, ranks, sigmas, autos, list(prep.norms), res_clamped,
                        _NO_INDICES if clamped is None else np.flatnonzero(clamped),
                        limiting_variation, rounds, mag, diff_clamped)
    if pgs_info is not None:
        result.pgs_sweeps = getattr(pgs_info, 'sweeps', getattr(pgs_info, 'iterations', 0))
        result.pgs_converged = pgs_info.converged
    result.times, result.level_times = times, level_times
    return result


def _priority_loop(jacobians, residuals, n, active, fixed, free, want_projector, lam_fixed,
                   opts, times, level_times):
    """
    One pass of the priority loop over the levels (the posture is not added).

    Returns Δθ, the per-level λ, rank, σ_min, auto flags, and (when ``want_projector``) the
    (n, n) projector onto the null space of every level within the active variables, else None.
    Ranks are relative: σ counts when above ``svd_tol · ‖J_k‖_F`` over the free variables.
    Adds the seconds spent to ``times["svd"]`` and ``level_times[k]``.
    """
    clock = time.perf_counter
    p = len(jacobians)
    svd_tol = opts.svd_tol
    target = opts.theta_diff_max_mag * opts.auto_lambda_theta_diff_max_mag_scale
    never, always = opts.never_damp_sigma, opts.always_damp_sigma
    dtheta = None if fixed is None else fixed.copy()
    mask = None if active is None else active.astype(float)
    proj = None  # None: P is diag(mask) (the identity when mask is None)
    last_projected = p if want_projector else p - 1
    lambdas, ranks, sigmas = [0.0] * p, [0] * p, [0.0] * p
    autos = [lam is None for lam in lam_fixed]
    for k in range(p):
        J = jacobians[k]
        if J.shape[0] == 0:
            continue
        t_level = clock()
        e_hat = residuals[k] if dtheta is None else residuals[k] - J @ dtheta
        Jf = J if free is None else J[:, free]
        scale = math.sqrt(float(np.vdot(Jf, Jf)))
        if proj is not None:
            J = J @ proj
        elif mask is not None:
            J = J * mask
        t_svd = clock()
        u, s, vt = thin_svd(J)
        times['svd'] += clock() - t_svd
        sl = s.tolist()
        r = len(sl)
        cut = svd_tol * scale
        while r and sl[r - 1] <= cut:
            r -= 1
        ranks[k] = r
        if r == 0:
            level_times[k] += clock() - t_level
            continue
        smin = sl[r - 1]
        sigmas[k] = smin
        lam = lam_fixed[k]
        if lam is None:
            lam = auto_lambda(math.sqrt(e_hat.dot(e_hat)), smin, target, never, always)
        lambdas[k] = lam
        if r < len(sl):
            u, s, vt = u[:, :r], s[:r], vt[:r]
        gain = s / (s * s + lam * lam) if lam else 1.0 / s
        contribution = (gain * (e_hat @ u)) @ vt
        dtheta = contribution if dtheta is None else dtheta + contribution
        if k < last_projected:
            if proj is None:
                proj = np.eye(n) if mask is None else np.diag(mask)
            proj -= vt.T @ vt
        level_times[k] += clock() - t_level
    if dtheta is None:
        dtheta = np.zeros(n)
    if want_projector and proj is None:
        proj = np.eye(n) if mask is None else np.diag(mask)
    return dtheta, lambdas, ranks, sigmas, autos, proj if want_projector else None


def _pgs_bound(jacobians, residuals, theta, dtheta, lower, upper, active, posture, lambdas,
               opts):
    """
    Return the step bounded level by level by projected Gauss–Seidel (:mod:`pdls_ik.pdls.pgs`).

    None when the unbounded step ``dtheta`` (posture included) already stays within the limits.
    A variable outside its limits at θ moves back onto the limit it violates and stays there.
    """
    new_theta = theta + dtheta
    outside = (new_theta > upper) | (new_theta < lower)
    if active is not None:
        outside &= active
    if not outside.any():
        return None
    if opts.limit_strategy == 'pgs_weighted':
        top = next((lam for lam, J in zip(lambdas, jacobians) if J.shape[0]), 0.0)
        return pgs_step(jacobians, residuals, dtheta, lower - theta, upper - theta, active,
                        posture, top, opts.pgs_level_weight, opts.pgs_max_iterations,
                        opts.pgs_tol)
    movable = np.ones(theta.size, dtype=bool) if active is None else active.copy()
    x0 = np.zeros(theta.size)
    back = movable & ((theta > upper) | (theta < lower))
    if back.any():
        x0[back] = np.where(theta > upper, upper, lower)[back] - theta[back]
        movable &= ~back
    return strict_pgs_step(jacobians, residuals, lambdas, x0, lower - theta, upper - theta,
                           movable, posture, opts.svd_tol, opts.pgs_max_iterations, opts.pgs_tol)


def _activate_inequalities(inactive, pending, residuals, jacobians, dtheta) -> bool:
    """
    Add to their level the satisfied inequality rows that Δθ would violate; True if any.

    An added row asks for ``J_i Δθ = e_i``: its linearized residual lands on the bound.
    """
    changed = False
    for k, rest in enumerate(inactive):
        if rest is None or not pending[k].any():
            continue
        e_in, J_in, c_in = rest
        predicted = e_in - J_in @ dtheta
        hit = pending[k] & (((c_in == LESS_EQUAL) & (predicted > ACTIVE_TOL))
                            | ((c_in == GREATER_EQUAL) & (predicted < -ACTIVE_TOL)))
        if hit.any():
            residuals[k] = np.concatenate([residuals[k], e_in[hit]])
            jacobians[k] = np.vstack([jacobians[k], J_in[hit]])
            pending[k] &= ~hit
            changed = True
    return changed


def _exactly_inside(theta, dtheta, lower, upper, periodic=None) -> None:
    """
    Fix Δθ where rounding put θ + Δθ a hair outside a limit that θ started within.

    A periodic variable (mask ``periodic``) whose θ + Δθ has an image within the limits is left
    alone: the solve turns it onto that image.
    """
    for _ in range(8):
        t = theta + dtheta
        over = (t > upper) & (theta <= upper)
        under = (t < lower) & (theta >= lower)
        if periodic is not None and (over.any() or under.any()):
            turned = turn_into_limits(t, lower, upper, periodic)[1]
            over &= ~turned
            under &= ~turned
        if not (over.any() or under.any()):
            return
        dtheta[over] = np.nextafter(upper[over] - theta[over], -np.inf)
        dtheta[under] = np.nextafter(lower[under] - theta[under], np.inf)
        upper, lower = np.where(over, np.nextafter(upper, -np.inf), upper), \
            np.where(under, np.nextafter(lower, np.inf), lower)
