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
Options of the PDLS solver: one dataclass, validated on construction.

Field names follow the knobs of the PDLS solver of Marsette Vona's MSim (``vona.math.PDLS``, an
implementation of Baerlocher & Boulic 2004) in snake_case, so ``thetaDiffMaxMag`` is
``theta_diff_max_mag`` and so on. Knobs borrowed from HPP's hierarchical Newton solver
(hpp-constraints' ``HierarchicalIterative``: free variables, optional last level, line searches)
and from the plain damped least squares loop (Wampler 1986; Nakamura & Hanafusa 1986; as in the
Elixir library bb_ik_dls: step size, fixed λ, respect limits) live in the same class so that one
solver covers all three configurations.

Per-level values (``residual_tol``, ``damping``, ``residual_max_mag``, ``slowdown_limit``,
``speedup_limit``) accept a scalar applied to every level or a sequence indexed by priority level
(level 0 is the highest priority); missing trailing entries and ``None`` entries mean "unset".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, fields
import math
from typing import Optional, Sequence, Union

import numpy as np
from pdls_ik.errors import ConfigError

PerLevel = Union[None, float, Sequence[Optional[float]]]

LINE_SEARCHES = ('constant', 'backtracking', 'fixed_sequence', 'error_norm')
LIMIT_STRATEGIES = ('clamping', 'pgs', 'pgs_weighted')


def _fail(name: str, why: str, value) -> None:
    raise ConfigError(f'PDLSOptions.{name}: {why} (got {value!r})')


def _check_number(name, value, *, low=None, high=None, low_open=False, allow_inf=False,
                  allow_none=False):
    if value is None:
        if not allow_none:
            _fail(name, 'must be a number', value)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        _fail(name, 'must be a number', value)
    v = float(value)
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        _fail(name, 'must be finite' if not allow_inf else 'must not be NaN', value)
    if low is not None and (v < low or (low_open and v == low)):
        _fail(name, f"must be {'>' if low_open else '>='} {low}", value)
    if high is not None and v > high:
        _fail(name, f'must be <= {high}', value)


def _check_per_level(name, value, **kw):
    if value is None or np.isscalar(value):
        _check_number(name, value, allow_none=True, **kw)
        return
    try:
        items = list(value)
    except TypeError:
        _fail(name, 'must be a number, None or a sequence per priority level', value)
    for k, item in enumerate(items):
        _check_number(f'{name}[{k}]', item, allow_none=True, **kw)


def level_value(value: PerLevel, level: int) -> Optional[float]:
    """Return the per-level option ``value`` at priority ``level`` (0 = highest), or None."""
    if value is None:
        return None
    if isinstance(value, (float, int)) or np.isscalar(value):
        return float(value)
    if level < len(value) and value[level] is not None:
        return float(value[level])
    return None


@dataclass
class PDLSOptions:
    """
    Every knob of :func:`pdls_ik.pdls.solve` and :func:`pdls_ik.pdls.step`.

    Units: θ-space quantities (``theta_diff_*``) are in the units of the variables (radians and
    metres for robots); residual quantities in the units of the residual rows; λ and σ in residual
    units per variable unit.

    Damping (Baerlocher 2001, after Maciejewski & Klein 1988):
        damping: fixed λ per level (scalar or sequence); None or a negative entry selects the
            automatic λ, see :func:`pdls_ik.pdls.pinv.auto_lambda`.
        theta_diff_max_mag: largest allowed ‖Δθ‖ per iteration; also the target of the automatic
            λ. ``inf`` disables both.
        auto_lambda_theta_diff_max_mag_scale: the automatic λ aims at
            ``theta_diff_max_mag * scale``.
        never_damp_sigma: no automatic damping while the smallest retained singular value is at
            least this (``inf``: thresholding off).
        always_damp_sigma: automatic damping is applied below this singular value even when
            ``never_damp_sigma`` would forbid it (0: off); λ is then the formula above with the
            level's own d, as MSim's ``alwaysDampSigma`` (it changes whether damping applies,
            never how much).
        svd_tol: relative rank tolerance: a singular value of the restricted Jacobian J̃_k at or
            below ``svd_tol · ‖J_k‖_F`` (the Frobenius norm of the level's unrestricted Jacobian
            over the free variables) is treated as zero. Relative, so that scaling a level's
            units never changes the rank, and rounding left by the projector (~1e-16 ‖J_k‖) is
            never taken for a direction.
    Clamping:
        theta_diff_clamping: clamp ‖Δθ‖ to ``theta_diff_max_mag`` (last resort after damping).
        clamp_theta_diff_by_component: clamp each component of Δθ instead of its 2-norm.
        residual_max_mag: per-level clamp of the uncompensated residual (initial step size when
            ``adaptive_step_size``); ``posture_max_mag`` does the same for the posture variation.
        clamp_residual_by_component: clamp (and measure) residuals per component (max-norm).
    Termination:
        residual_tol: per-level convergence tolerance on ‖e_k‖ (a level's own ``tolerance``
            overrides it); also the default lower bound of adaptive slowdown.
        theta_diff_tol: stall when an applied ‖Δθ‖ falls below this while unconverged.
        max_iterations: iteration (step) budget; max_time: wall-clock budget in seconds.
        min_iterations: iterations always run before ``max_time`` may stop the solve, however
            late the clock is (a loaded machine still gets the same first iterations; the time
            budget is a cap, never a schedule).
        divergence_tol, divergence_factor, min_divergable_level: a level k <
            ``min_divergable_level`` diverges when its residual *increases* by more than
            divergence_tol + divergence_factor · previous ‖e_k‖, i.e. ‖e_k‖ − previous >
            divergence_tol + divergence_factor · previous (MSim's ``checkConvergence``; the
            default 1 flags a residual that more than doubles); ``None`` or 0 disables the
            check (0 as MSim's ``setDivergenceFactor``).
        abort_on_divergence: stop with status "diverged"; revert_on_divergence: go back to the θ
            before the diverging step (on abort, or before retrying with a slower step size).
        last_is_optional: the last level does not count for convergence (as the optional last
            level of hpp-constraints' hierarchical solver).
    Adaptive step size (the adaptive step size of MSim's ``vona.math.PDLS``):
        adaptive_step_size: manage ``residual_max_mag`` per level from the second iteration on.
        slowdown_threshold, speedup_threshold: fractions of ``theta_diff_max_mag`` for the
            unclamped ‖Δθ‖ above which to slow down / below which a speed-up is allowed.
        auto_lambda_slowdown_threshold, auto_lambda_speedup_threshold: same on the largest
            automatic λ (None: check off).
        slowdown_factor (< 1), speedup_factor (> 1), slowdown_limit / speedup_limit: per-level
            lower / upper bounds of the managed residual clamp.
    Line search (the strategies of hpp-constraints' hierarchical solver) applied to the final Δθ:
        line_search: "constant" (α = step_size), "backtracking" (sufficient decrease of the
            summed squared residual), "fixed_sequence" (α_{i+1} = α_max − K(α_max − α_i)),
            "error_norm" (α = 1 − (1 − α_min)·tanh(‖e‖ / line_search_error_scale)).
        step_size: the constant α, and the first trial α of backtracking.
    Variables:
        free_variables: indices or a boolean mask (n,) of the variables allowed to move.
        periodic_variables: boolean mask (n,) of the variables that are angles of period 2π
            (θ and θ + 2πk the same configuration): a step taking one beyond a limit is not
            clamped when an image θ + Δθ + 2πk lies within the limits; θ moves onto that
            image (:mod:`pdls_ik.pdls.periodic`; for one-shot solves, not trajectories).
        respect_limits: run the limiting loop (hard limits on θ).
        limit_strategy: how a step that would leave the limits is bounded: "clamping" (the
            limiting loop of Baerlocher & Boulic, the default), "pgs" (strict priority: each
            level's damped bounded problem in the null space and box left by the levels above,
            the first by projected Gauss–Seidel as in Simbody's ``SimTK::PGSImpulseSolver``,
            the others by an active-set method, see :mod:`pdls_ik.pdls.pgs`; the default
            stays "clamping": on the Panda it succeeds as often or more with a 3–4 times
            smaller median time, ``benchmarks/compare_limit_strategies.py``) or
            "pgs_weighted" (the levels stacked with weights ``pgs_level_weight``^k in one PGS:
            not strict; the reference of the compiled tracking cycle's box step).
        pgs_level_weight: weight ratio between consecutive levels under "pgs_weighted", in
            (0, 1].
        pgs_max_iterations, pgs_tol: sweep budget and relative stopping tolerance of PGS (under
            "pgs", also the iteration budget of the active-set solves of the lower levels); a
            step whose bounded solve did not converge is reported
            (``StepResult.pgs_converged``, ``PDLSResult.pgs_unconverged``).
    """

    theta_diff_max_mag: float = 0.5
    auto_lambda_theta_diff_max_mag_scale: float = 1.0
    damping: PerLevel = None
    never_damp_sigma: float = math.inf
    always_damp_sigma: float = 0.0
    svd_tol: float = 1e-9
    theta_diff_clamping: bool = True
    clamp_theta_diff_by_component: bool = False
    residual_max_mag: PerLevel = None
    posture_max_mag: Optional[float] = None
    clamp_residual_by_component: bool = False
    residual_tol: PerLevel = 1e-10
    theta_diff_tol: float = 1e-12
    max_iterations: int = 100
    max_time: Optional[float] = None
    min_iterations: int = 0
    divergence_tol: float = 0.0
    divergence_factor: Optional[float] = 1.0
    min_divergable_level: int = 1
    abort_on_divergence: bool = False
    revert_on_divergence: bool = True
    last_is_optional: bool = False
    adaptive_step_size: bool = True
    slowdown_threshold: float = 1.0
    speedup_threshold: float = 0.5
    auto_lambda_slowdown_threshold: Optional[float] = None
    auto_lambda_speedup_threshold: Optional[float] = None
    slowdown_factor: float = 0.5
    speedup_factor: float = 1.5
    slowdown_limit: PerLevel = None
    speedup_limit: PerLevel = None
    line_search: str = 'constant'
    step_size: float = 1.0
    line_search_alpha_min: float = 0.2
    line_search_alpha_max: float = 0.95
    line_search_k: float = 0.8
    line_search_shrink: float = 0.5
    line_search_armijo: float = 1e-4
    line_search_error_scale: float = 1.0
    free_variables: Optional[Sequence] = None
    periodic_variables: Optional[Sequence] = None
    respect_limits: bool = True
    limit_strategy: str = 'clamping'
    pgs_level_weight: float = 1e-3
    pgs_max_iterations: int = 200
    pgs_tol: float = 1e-12

    def __post_init__(self) -> None:
        for name in OPTION_NAMES:
            _check_field(self, name)

    def _check_free_variables(self) -> None:
        fv = self.free_variables
        if fv is None:
            return
        arr = np.asarray(fv)
        if arr.ndim != 1 or not (arr.dtype == bool or np.issubdtype(arr.dtype, np.integer)
                                 or arr.size == 0):
            _fail('free_variables', 'must be a boolean mask (n,) or a sequence of indices', fv)
        if arr.dtype != bool and arr.size and arr.min() < 0:
            _fail('free_variables', 'indices must be >= 0', fv)

    def periodic_mask(self, n: int) -> Optional[np.ndarray]:
        """
        Boolean mask (n,) of the periodic variables, or None when there is none.

        :raises ConfigError: the mask length differs from n.
        """
        pv = self.periodic_variables
        if pv is None:
            return None
        arr = np.asarray(pv)
        if arr.size != n:
            _fail('periodic_variables', f'mask has {arr.size} entries for {n} variables', pv)
        return arr.copy() if arr.any() else None

    def free_mask(self, n: int) -> Optional[np.ndarray]:
        """
        Boolean mask (n,) of the free variables, or None when every variable is free.

        :raises ConfigError: the mask length differs from n or an index is >= n.
        """
        fv = self.free_variables
        if fv is None:
            return None
        arr = np.asarray(fv)
        if arr.dtype == bool:
            if arr.size != n:
                _fail('free_variables', f'mask has {arr.size} entries for {n} variables', fv)
            mask = arr.copy()
        else:
            idx = arr.astype(int)
            if idx.size and idx.max() >= n:
                _fail('free_variables', f'index {int(idx.max())} out of range for {n} variables',
                      fv)
            mask = np.zeros(n, dtype=bool)
            mask[idx] = True
        return None if mask.all() else mask

    def replace(self, **changes) -> 'PDLSOptions':
        """
        Return a copy with some fields changed.

        Only the changed fields are validated (the others were when this object was built), so that
        a solver may change ``max_time`` before every local solve at the cost of one check.

        :raises ConfigError: a changed value is invalid.
        :raises TypeError: an unknown field name.
        """
        unknown = set(changes).difference(OPTION_NAMES)
        if unknown:
            raise TypeError(f'PDLSOptions.replace: unknown field(s) {sorted(unknown)}')
        new = copy.copy(self)
        new.__dict__.update(changes)
        for name in changes:
            _check_field(new, name)
        return new

    @classmethod
    def dls(cls, *, max_iterations: int = 100, tolerance: float = 1e-6,
            damping: Optional[float] = 0.05, adaptive_damping: bool = False,
            step_size: float = 1.0, respect_limits: bool = True) -> 'PDLSOptions':
        """
        Return the classic single-level damped least squares loop as PDLS options.

        The Levenberg–Marquardt / DLS iteration of Wampler 1986 and Nakamura & Hanafusa 1986
        (as run, for instance, by the Elixir library bb_ik_dls). One level, fixed λ (or the
        automatic λ when ``adaptive_damping``), a constant step size, no adaptive step size and
        no Δθ clamping: each iteration applies ``step_size · Jᵀ(JJᵀ + λ²I)⁻¹ e``. A separate
        orientation tolerance is expressed by the problem's ``converged`` hook (or by two
        levels).
        """
        return cls(max_iterations=max_iterations, residual_tol=tolerance,
                   damping=None if adaptive_damping else damping, step_size=step_size,
                   respect_limits=respect_limits, adaptive_step_size=False,
                   theta_diff_clamping=adaptive_damping, line_search='constant', svd_tol=0.0)


OPTION_NAMES = tuple(f.name for f in fields(PDLSOptions))

#: validation rules: numeric fields -> keyword arguments of _check_number
_NUMBERS = {
    'theta_diff_max_mag': {'low': 0.0, 'low_open': True, 'allow_inf': True},
    'auto_lambda_theta_diff_max_mag_scale': {'low': 0.0, 'low_open': True},
    'never_damp_sigma': {'low': 0.0, 'allow_inf': True},
    'always_damp_sigma': {'low': 0.0},
    'svd_tol': {'low': 0.0},
    'posture_max_mag': {'low': 0.0, 'low_open': True, 'allow_inf': True, 'allow_none': True},
    'theta_diff_tol': {'low': 0.0},
    'max_time': {'low': 0.0, 'low_open': True, 'allow_inf': True, 'allow_none': True},
    'divergence_tol': {'low': 0.0},
    'divergence_factor': {'low': 0.0, 'allow_none': True},
    'slowdown_threshold': {'low': 0.0, 'low_open': True, 'allow_inf': True},
    'speedup_threshold': {'low': 0.0},
    'auto_lambda_slowdown_threshold': {'low': 0.0, 'allow_none': True, 'allow_inf': True},
    'auto_lambda_speedup_threshold': {'low': 0.0, 'allow_none': True, 'allow_inf': True},
    'slowdown_factor': {'low': 0.0, 'low_open': True, 'high': 1.0},
    'speedup_factor': {'low': 1.0},
    'pgs_level_weight': {'low': 0.0, 'low_open': True, 'high': 1.0},
    'pgs_max_iterations': {'low': 1},
    'pgs_tol': {'low': 0.0},
    'step_size': {'low': 0.0, 'low_open': True, 'high': 1.0},
    'line_search_alpha_min': {'low': 0.0, 'low_open': True, 'high': 1.0},
    'line_search_alpha_max': {'low': 0.0, 'low_open': True, 'high': 1.0},
    'line_search_k': {'low': 0.0, 'high': 1.0},
    'line_search_shrink': {'low': 0.0, 'low_open': True, 'high': 0.99},
    'line_search_armijo': {'low': 0.0, 'high': 0.5},
    'line_search_error_scale': {'low': 0.0, 'low_open': True},
}
#: per-level fields -> keyword arguments of _check_number for each entry
_PER_LEVEL = {
    'damping': {'low': -math.inf},
    'residual_max_mag': {'low': 0.0, 'low_open': True, 'allow_inf': True},
    'residual_tol': {'low': 0.0},
    'slowdown_limit': {'low': 0.0},
    'speedup_limit': {'low': 0.0, 'low_open': True, 'allow_inf': True},
}
_CHOICES = {'limit_strategy': LIMIT_STRATEGIES, 'line_search': LINE_SEARCHES}
_FLAGS = ('theta_diff_clamping', 'clamp_theta_diff_by_component', 'clamp_residual_by_component',
          'abort_on_divergence', 'revert_on_divergence', 'last_is_optional',
          'adaptive_step_size', 'respect_limits')


def _is_int(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, np.integer))


def _check_field(opts: PDLSOptions, name: str) -> None:
    """Validate one field of opts (ConfigError naming it)."""
    value = getattr(opts, name)
    if name in _NUMBERS:
        _check_number(name, value, **_NUMBERS[name])
    elif name in _PER_LEVEL:
        _check_per_level(name, value, **_PER_LEVEL[name])
    elif name in _CHOICES:
        if value not in _CHOICES[name]:
            _fail(name, f"must be one of {', '.join(_CHOICES[name])}", value)
    elif name in _FLAGS:
        if not isinstance(value, (bool, np.bool_)):
            _fail(name, 'must be True or False', value)
    elif name in ('max_iterations', 'min_iterations'):
        if not _is_int(value):
            _fail(name, 'must be an integer', value)
        _check_number(name, value, low=0)
    elif name == 'min_divergable_level':
        if not _is_int(value) or value < 0:
            _fail(name, 'must be an integer >= 0', value)
    elif name == 'free_variables':
        opts._check_free_variables()
    elif name == 'periodic_variables':
        if value is not None and (np.asarray(value).ndim != 1 or
                                  np.asarray(value).dtype != bool):
            _fail(name, 'must be a boolean mask (n,) or None', value)
