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
The PDLS iteration loop: evaluate, check, step, apply.

The loop runs the solve cycles of the PDLS solver of Marsette Vona's MSim (``vona.math.PDLS``),
an implementation of Baerlocher & Boulic 2004.

Each cycle evaluates the problem at θ, then in this order: converged (every counted level within
its tolerance, or the problem's own test) → infeasible (at the start: unconverged while no
variable may move, none free or every free one with lower == upper; hpp-constraints'
``INFEASIBLE``, "reduced dimension 0") → diverged (a level above
``min_divergable_level`` increased by more than ``divergence_tol + divergence_factor ·
previous``; stop only with ``abort_on_divergence``) → stalled (the last applied ‖Δθ‖ was
below ``theta_diff_tol`` while no residual was clamped) → max_iterations → max_time;
otherwise adapt the step size, compute one :func:`step`, choose α by the line search and apply
θ ← clip(turn(normalize(θ ⊕ αΔθ))), where ⊕ is the problem's ``integrate`` hook (plain addition
by default) and turn maps the periodic variables outside their limits onto an image within them
(:mod:`pdls_ik.pdls.periodic`).
"""
from __future__ import annotations

import math
import time
from typing import Callable, List, Optional, Sequence, Union

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.pdls.levels import check_limits, check_vector, PreparedLevels
from pdls_ik.pdls.linesearch import LineSearch
from pdls_ik.pdls.options import level_value, PDLSOptions
from pdls_ik.pdls.periodic import turn_into_limits
from pdls_ik.pdls.problem import PDLSProblem
from pdls_ik.pdls.result import (CONVERGED, DIVERGED, INFEASIBLE, MAX_ITERATIONS, MAX_TIME,
                                 PDLSResult, STALLED)
from pdls_ik.pdls.step import compute_step
from pdls_ik.pdls.stepsize import AdaptiveStepSize, EPS, SLOWDOWN, SPEEDUP

_DEFAULT_OPTIONS = PDLSOptions()


class _Hooks:
    """The problem's callbacks, resolved once (plain callable or PDLSProblem-like object)."""

    def __init__(self, problem):
        levels = getattr(problem, 'levels', None)
        if callable(levels):
            self.levels = levels
            self.posture = getattr(problem, 'posture_variation', None)
            self.converged = getattr(problem, 'converged', None)
            self.normalize = getattr(problem, 'normalize', None)
            self.integrate = getattr(problem, 'integrate', None)
            self.trusted = bool(getattr(problem, 'trusted_levels', False))
        elif callable(problem):
            self.levels, self.posture, self.converged, self.normalize = problem, None, None, None
            self.integrate, self.trusted = None, False
        else:
            raise InputError(f'problem: expected a callable theta -> levels or an object with a '
                             f'levels(theta) method, got {type(problem).__name__}')


def solve(problem: Union[PDLSProblem, Callable], theta0, lower=None, upper=None,
          options: Optional[PDLSOptions] = None) -> PDLSResult:
    """
    Drive the residuals of strict priority levels to zero (Baerlocher & Boulic 2004).

    :param problem: ``problem(theta) -> levels`` or a :class:`PDLSProblem`-like object with
        ``levels(theta)`` and optional ``posture_variation(theta)``,
        ``converged(theta, levels)``, ``normalize(theta)`` and ``integrate(theta, step)``
        (applies a step on a Lie-group configuration space, as hpp-constraints does; the Jacobians
        are then taken with respect to that step; default θ + step). A problem whose
        attribute ``trusted_levels`` is True promises :class:`Level` objects with float
        arrays of the right shapes and finite values: they are used without validation
        (:meth:`PreparedLevels.trusted`; for problems built inside this package from
        validated tasks, such as IKSolver's). Levels from elsewhere are always checked.
    :param theta0: (n,) start. Variables outside [lower, upper] are clamped onto their limits
        first and listed in ``result.start_clamped``.
    :param lower, upper: (n,) limits (±inf allowed) or None; θ never leaves them.
    :param options: :class:`PDLSOptions`; defaults when None.

    :return: :class:`PDLSResult` with the status and metrics. Not converging is not an error.

    :raises InputError: non-finite or mis-shaped θ0, limits, levels or posture (at any iteration,
        named by iteration, level, row and variable).
    :raises ConfigError: ``options.free_variables`` does not fit n.
    """
    opts = _DEFAULT_OPTIONS if options is None else options
    t_start = time.perf_counter()
    hooks = _Hooks(problem)
    theta = check_vector('theta0', theta0, None).copy()
    n = theta.size
    lo, up = check_limits(lower, upper, n) if opts.respect_limits else (None, None)
    start_clamped = np.zeros(0, dtype=np.int64)
    if lo is not None:
        outside = (theta < lo) | (theta > up)
        if outside.any():
            start_clamped = np.flatnonzero(outside)
            theta = np.clip(theta, lo, up)
    free = opts.free_mask(n)
    periodic = opts.periodic_mask(n) if lo is not None else None
    by_comp = opts.clamp_residual_by_component
    times = {'evaluate': 0.0, 'step': 0.0, 'line_search': 0.0, 'priority_loop': 0.0, 'svd': 0.0,
             'limits': 0.0, 'posture': 0.0}
    level_times: List[float] = []
    limiting = pgs_unconverged = 0
    infeasible: List[int] = []
    stepper = AdaptiveStepSize(opts) if opts.adaptive_step_size else None
    search = LineSearch(opts)
    counters = {'slowdowns': 0, 'speedups': 0, 'divergences': 0, 'reverts': 0, 'evaluations': 0}
    iteration = 0

    def place(th):
        if hooks.normalize is not None:
            th = np.asarray(hooks.normalize(th), dtype=float)
            if th.shape != (n,) or not np.isfinite(th).all():
                raise InputError(f'normalize(theta) at iteration {iteration}: returned a '
                                 f'non-finite value or shape {th.shape} instead of ({n},)')
        if periodic is not None:
            th = turn_into_limits(th, lo, up, periodic)[0]
        return th if lo is None else np.clip(th, lo, up)

    def evaluate(th):
        t0 = time.perf_counter()
        raw = hooks.levels(th)
        if hooks.trusted:
            prep = PreparedLevels.trusted(raw, by_comp)
        else:
            try:
                prep = PreparedLevels(raw, n, by_comp)
            except InputError as err:
                raise InputError(f'problem.levels at iteration {iteration}: {err}') from None
        counters['evaluations'] += 1
        times['evaluate'] += time.perf_counter() - t0
        return raw, prep

    def tolerances(prep):
        tols = []
        for k, own in enumerate(prep.tolerances):
            tol = own if own is not None else level_value(opts.residual_tol, k)
            tols.append(EPS if tol is None else tol)
        return tols

    def counted(p):
        return p - 1 if opts.last_is_optional and p > 1 else p

    def merit(prep):
        return sum(v * v for v in prep.norms[:counted(len(prep))])

    def candidate(th):
        th = place(th)
        evaluation = evaluate(th)
        return th, evaluation, merit(evaluation[1])

    theta = place(theta)
    raw, prep = evaluate(theta)
    initial_norms = list(prep.norms)
    history: List[List[float]] = [initial_norms]
    best_theta, best_key, best_norms, best_iteration = theta, None, initial_norms, 0
    prev_norms: Optional[List[float]] = None
    theta_prev = theta
    last_step = None
    last_applied = math.inf
    diff_norms: List[float] = []
    while True:
        p = len(prep)
        tols = tolerances(prep)
        conv = [v <= t for v, t in zip(prep.norms, tols)]
        key = tuple(max(v, t) for v, t in zip(prep.norms[:counted(p)], tols))
        if best_key is None or (len(key) == len(best_key) and improves(key, best_key)):
            best_theta, best_key, best_norms, best_iteration = theta, key, prep.norms, iteration
        custom = hooks.converged(theta, raw) if hooks.converged is not None else None
        if (all(conv[:counted(p)]) if custom is None else bool(custom)):
            status = CONVERGED
            break
        if iteration == 0 and _movable_count(n, free, lo, up) == 0:
            infeasible = [k for k, ok in enumerate(conv[:counted(p)]) if not ok]
            status = INFEASIBLE
            break
        diverging = _diverging_level(prep.norms, prev_norms, tols, opts)
        if diverging is not None:
            counters['divergences'] += 1
            if opts.abort_on_divergence:
                status = DIVERGED
                if opts.revert_on_divergence:
                    theta, raw, prep = theta_prev, None, None
                break
            if stepper is not None and opts.revert_on_divergence:
                counters['reverts'] += 1
                theta = theta_prev
                raw, prep = evaluate(theta)
                history.append(list(prep.norms))
                p, tols = len(prep), tolerances(prep)
        if last_step is not None and last_applied < opts.theta_diff_tol \
                and not any(last_step.residual_clamped):
            status = STALLED
            break
        if iteration >= opts.max_iterations:
            status = MAX_ITERATIONS
            break
        if opts.max_time is not None and iteration >= opts.min_iterations and \
                time.perf_counter() - t_start >= opts.max_time:
            status = MAX_TIME
            break
        rmm = None
        if stepper is not None:
            rmm = stepper.fit(p)
            if last_step is not None and len(last_step.residual_norms) == p:
                event = stepper.update(last_step, diverging, tols)
                counters['slowdowns'] += event == SLOWDOWN
                counters['speedups'] += event == SPEEDUP
        posture = None
        if hooks.posture is not None:
            posture = hooks.posture(theta)
            if posture is not None:
                posture = check_vector(f'posture_variation at iteration {iteration}', posture, n)
        t0 = time.perf_counter()
        last_step = compute_step(prep, theta, lo, up, posture, opts, free, rmm)
        times['step'] += time.perf_counter() - t0
        for name, value in last_step.times.items():
            times[name] += value
        if len(level_times) < len(last_step.level_times):
            level_times.extend([0.0] * (len(last_step.level_times) - len(level_times)))
        for k, value in enumerate(last_step.level_times):
            level_times[k] += value
        limiting += last_step.limiting_iterations
        pgs_unconverged += not last_step.pgs_converged
        t0 = time.perf_counter()
        alpha, theta_next, evaluation = search.search(theta, last_step.theta_diff, merit(prep),
                                                      candidate, hooks.integrate)
        times['line_search'] += time.perf_counter() - t0
        if evaluation is None:
            theta_next = place(theta_next)
        applied = theta_next - theta
        last_applied = float(math.sqrt(applied.dot(applied)))
        diff_norms.append(last_applied)
        theta_prev, prev_norms = theta, prep.norms
        theta = theta_next
        iteration += 1
        raw, prep = evaluate(theta) if evaluation is None else evaluation
        history.append(list(prep.norms))

    norms = prev_norms if prep is None else list(prep.norms)
    tols = tolerances(prep) if prep is not None else tols
    times['total'] = time.perf_counter() - t_start
    result = PDLSResult(
        theta=theta, status=status, iterations=iteration, residual_norms=list(norms),
        initial_residual_norms=initial_norms, tolerances=tols,
        converged_levels=[v <= t for v, t in zip(norms, tols)],
        best_theta=best_theta, best_residual_norms=list(best_norms),
        best_iteration=best_iteration, start_clamped=start_clamped,
        residual_max_mag=list(stepper.residual_max_mag) if stepper else [],
        theta_diff_norms=diff_norms, history=history, phase_times=times,
        level_times=level_times, limiting_iterations=limiting, pgs_unconverged=pgs_unconverged,
        infeasible_levels=infeasible, **counters)
    if last_step is not None:
        result.lambdas, result.ranks = last_step.lambdas, last_step.ranks
        result.min_singular_values = last_step.min_singular_values
        result.clamped, result.limiting_variation = last_step.clamped, \
            last_step.limiting_variation
    return result


#: two iterates' level norms within BEST_TIE_RTOL · norm + BEST_TIE_ATOL tie for the best
#: iterate (the next level decides; all tied: the earlier iterate stays). A solve that stalls or
#: cycles holds a level at one value, its norm repeating to rounding (1e-17 absolute on a
#: residual of metres), and the compiled kernels sum in another order: an exact comparison let
#: rounding pick the best iterate.
BEST_TIE_RTOL, BEST_TIE_ATOL = 1e-12, 1e-14


def improves(key: Sequence[float], best: Sequence[float]) -> bool:
    """
    Whether the level norms ``key`` beat ``best`` (the best iterate so far), highest level first.

    Lexicographic, two norms within ``BEST_TIE_RTOL · b + BEST_TIE_ATOL`` counting as equal.
    """
    for v, b in zip(key, best):
        if v < b and (b == math.inf or b - v > BEST_TIE_RTOL * b + BEST_TIE_ATOL):
            return True
        if v > b and v - b > BEST_TIE_RTOL * b + BEST_TIE_ATOL:
            return False
    return False


def _movable_count(n: int, free, lo, up) -> int:
    """Count the variables that may move: free and, when limited, with lower < upper."""
    movable = np.ones(n, dtype=bool) if free is None else free.copy()
    if lo is not None:
        movable &= lo < up
    return int(movable.sum())


def _diverging_level(norms: List[float], previous: Optional[List[float]], tols: List[float],
                     opts: PDLSOptions) -> Optional[int]:
    """
    Highest-priority level k < min_divergable_level whose norm grew too much, or None.

    Growth beyond the seed's bound: ``‖e_k‖ − previous > divergence_tol + divergence_factor ·
    previous`` (MSim's ``checkConvergence``: "an increase ... more than divergenceTol plus
    divergenceFactor times its value in residualWas").

    Growth that leaves a level within its convergence tolerance ``tols[k]`` is not divergence:
    a converged level whose residual moves at rounding level (1e-17 to 1e-16, say) while lower
    levels act must not revert their steps.
    """
    factor = opts.divergence_factor
    if previous is None or not factor or len(previous) != len(norms):
        return None
    for k in range(min(opts.min_divergable_level, len(norms))):
        if norms[k] > tols[k] and \
                norms[k] - previous[k] > opts.divergence_tol + factor * previous[k]:
            return k
    return None
