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
Priority levels: residual rows, Jacobian rows, row comparison types, and their validation.

A level is the pair (e_k, J_k): ``e_k`` (m_k,) is the change of the level's task values that we
want, ``J_k`` (m_k, n) maps a variation Δθ to the resulting change, so the solver seeks
``J_k Δθ = e_k``. Levels are given highest priority first.

Row comparison types (after those of HPP's hierarchical Newton solver,
``hpp::constraints::solver::HierarchicalIterative`` in hpp-constraints): an equality row always
takes part; an inequality row only while it is violated, and then as an equality that drives its
residual to zero. With ``LESS_EQUAL`` a row is satisfied while ``e_i <= 0``; with
``GREATER_EQUAL`` while ``e_i >= 0`` (to :data:`ACTIVE_TOL`: rounding noise on the bound is no
violation). For instance a lower bound ``x >= x_min`` on a task value x
is the row ``e = x_min - x`` with ``LESS_EQUAL``.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError

EQUAL = 0
LESS_EQUAL = -1
GREATER_EQUAL = 1
#: an inequality row counts as violated beyond this size of its (weighted) residual only: a row
#: that a step landed on its bound sits there within rounding noise (±1e-16), whose sign would
#: otherwise decide whether the row holds the next step on the bound or lets it leave
ACTIVE_TOL = 1e-12


@dataclass
class Level:
    """
    One priority level.

    :ivar residual: (m,) desired change of the level's task values.
    :ivar jacobian: (m, n) derivative of the task values with respect to θ.
    :ivar comparison: optional (m,) row types: ``EQUAL`` (0), ``LESS_EQUAL`` (-1, satisfied while
        ``e_i <= 0``) or ``GREATER_EQUAL`` (+1, satisfied while ``e_i >= 0``).
    :ivar tolerance: convergence tolerance on this level's residual norm; overrides
        ``PDLSOptions.residual_tol``.
    :ivar name: used in error messages and metrics.
    """

    residual: NDArray[np.float64]
    jacobian: NDArray[np.float64]
    comparison: Optional[Sequence[int]] = None
    tolerance: Optional[float] = None
    name: Optional[str] = None


LevelLike = Union[Level, Tuple[NDArray[np.float64], NDArray[np.float64]]]


def _label(k: int, name: Optional[str]) -> str:
    return f'level {k}' + (f" ('{name}')" if name else '')


def _first_bad(a: NDArray[np.float64]):
    """Index of the first non-finite entry of a, or None."""
    bad = np.argwhere(~np.isfinite(a))
    return tuple(int(i) for i in bad[0]) if bad.size else None


class PreparedLevels:
    """
    Validated arrays of a list of levels, with inactive inequality rows removed.

    Attributes (lists indexed by level):
        residuals: active residual rows (m'_k,); jacobians: active Jacobian rows (m'_k, n);
        norms: norm of the active residual (the satisfied inequality rows count as zero);
        tolerances: the level's own tolerance or None; names: the level's name or None;
        inactive: None, or the satisfied inequality rows ``(e, J, comparison)`` that the step
            activates when its predicted residual would violate them.
    """

    __slots__ = ('residuals', 'jacobians', 'norms', 'tolerances', 'names', 'inactive')

    def __init__(self, levels: Sequence[LevelLike], n: int, by_component: bool = False):
        if isinstance(levels, Level) or len(levels) == 0:
            raise InputError('levels: expected a non-empty list of Level or (residual, jacobian)'
                             ' pairs, highest priority first')
        self.residuals: List[NDArray[np.float64]] = []
        self.jacobians: List[NDArray[np.float64]] = []
        self.norms: List[float] = []
        self.tolerances: List[Optional[float]] = []
        self.names: List[Optional[str]] = []
        self.inactive: Optional[List[Optional[tuple]]] = None
        for k, lev in enumerate(levels):
            if isinstance(lev, Level):
                e, J, comp, tol, name = (lev.residual, lev.jacobian, lev.comparison,
                                         lev.tolerance, lev.name)
            else:
                try:
                    e, J = lev
                except (TypeError, ValueError):
                    raise InputError(f'level {k}: expected a Level or a (residual, jacobian) '
                                     f'pair, got {type(lev).__name__}') from None
                comp = tol = name = None
            e, J, sq = _check_arrays(k, name, e, J, n)
            if comp is not None:
                e, J, rest = _active_rows(k, name, e, J, comp)
                if rest is not None:
                    if self.inactive is None:
                        self.inactive = [None] * len(levels)
                    self.inactive[k] = rest
            if tol is not None and not (isinstance(tol, (int, float, np.floating, np.integer))
                                        and tol >= 0 and math.isfinite(tol)):
                raise InputError(f'{_label(k, name)}: tolerance must be a finite number >= 0, '
                                 f'got {tol!r}')
            self.residuals.append(e)
            self.jacobians.append(J)
            self.norms.append(residual_norm(e, by_component) if comp is not None or by_component
                              else math.sqrt(sq))
            self.tolerances.append(None if tol is None else float(tol))
            self.names.append(name)

    def __len__(self) -> int:
        return len(self.residuals)

    @classmethod
    def trusted(cls, levels: Sequence[Level], by_component: bool = False) -> 'PreparedLevels':
        """
        Build the same object without validation, for levels built by code that guarantees them.

        :class:`Level` objects with float arrays e (m,) and J (m, n), finite, valid row comparisons
        and tolerances (a problem's ``trusted_levels``; see :func:`pdls_ik.pdls.solve`). Saves the
        checks, not the work: about 5 % of a solve.
        """
        self = cls.__new__(cls)
        self.residuals, self.jacobians, self.norms = [], [], []
        self.tolerances, self.names, self.inactive = [], [], None
        for k, lev in enumerate(levels):
            e, J = lev.residual, lev.jacobian
            if lev.comparison is not None:
                e, J, rest = _active_rows(k, lev.name, e, J, lev.comparison)
                if rest is not None:
                    if self.inactive is None:
                        self.inactive = [None] * len(levels)
                    self.inactive[k] = rest
            self.residuals.append(e)
            self.jacobians.append(J)
            self.norms.append(residual_norm(e, by_component))
            self.tolerances.append(None if lev.tolerance is None else float(lev.tolerance))
            self.names.append(lev.name)
        return self


def residual_norm(e: NDArray[np.float64], by_component: bool = False) -> float:
    """2-norm of e, or its largest absolute component when ``by_component``; 0 when empty."""
    if e.size == 0:
        return 0.0
    if by_component:
        return float(np.abs(e).max())
    return float(math.sqrt(e.dot(e)))


def _check_arrays(k, name, e, J, n):
    """(e, J, ‖e‖²) as float arrays of matching shapes, or InputError naming the entry."""
    e = np.asarray(e, dtype=float)
    J = np.asarray(J, dtype=float)
    if e.ndim != 1:
        raise InputError(f'{_label(k, name)}: residual must have shape (m,), got {e.shape}')
    if J.shape != (e.size, n):
        raise InputError(f'{_label(k, name)}: Jacobian must have shape ({e.size}, {n}) to '
                         f'match the residual and θ, got {J.shape}')
    sq = float(e.dot(e))
    if not math.isfinite(sq + float(J.sum())):  # one test on the fast path
        bad = _first_bad(e)
        if bad is not None:
            raise InputError(f'{_label(k, name)}: residual row {bad[0]} is {e[bad]} '
                             f'(not finite)')
        bad = _first_bad(J)
        if bad is not None:
            raise InputError(f'{_label(k, name)}: Jacobian row {bad[0]}, variable {bad[1]} is '
                             f'{J[bad]} (not finite)')
        sq = float(np.linalg.norm(e)) ** 2  # finite but huge entries overflowed the sum
    return e, J, sq


def _active_rows(k, name, e, J, comp):
    comp = np.asarray(comp)
    if comp.shape != e.shape:
        raise InputError(f'{_label(k, name)}: comparison must have shape {e.shape}, '
                         f'got {comp.shape}')
    # (three comparisons: np.isin costs ~10x more on these short arrays, every evaluation)
    unknown = (comp != EQUAL) & (comp != LESS_EQUAL) & (comp != GREATER_EQUAL)
    if unknown.any():
        row = int(np.argmax(unknown))
        raise InputError(f'{_label(k, name)}: comparison row {row} is {comp[row].item()!r}; use '
                         f'0 (equal), -1 (residual <= 0) or +1 (residual >= 0)')
    active = (comp == EQUAL) | ((comp == LESS_EQUAL) & (e > ACTIVE_TOL)) | \
             ((comp == GREATER_EQUAL) & (e < -ACTIVE_TOL))
    if active.all():
        return e, J, None
    rest = ~active
    return e[active], J[active], (e[rest], J[rest], comp[rest])


def check_vector(name: str, v, n: Optional[int], *, allow_inf: bool = False
                 ) -> NDArray[np.float64]:
    """
    Return v as a float array (n,), any length when n is None.

    :raises InputError: naming ``name`` and the offending variable.
    """
    a = np.asarray(v, dtype=float)
    if a.ndim != 1 or (n is not None and a.size != n):
        raise InputError(f"{name}: expected shape ({'n' if n is None else n},), got {a.shape}")
    if allow_inf or not math.isfinite(float(a.sum())):
        bad = np.isnan(a) if allow_inf else ~np.isfinite(a)
        if bad.any():
            i = int(np.argmax(bad))
            kind = 'a number' if allow_inf else 'finite'
            raise InputError(f'{name}: variable {i} is {a[i]} (not {kind})')
    return a


def check_limits(lower, upper, n: int):
    """
    Validate (lower, upper) arrays (n,) with ±inf allowed; (None, None) when no limit.

    :raises InputError: NaN, wrong shape, or lower > upper, naming the variable.
    """
    if lower is None and upper is None:
        return None, None
    lo = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
    up = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
    if lo.shape != (n,) or up.shape != (n,) or not (lo <= up).all():  # NaN fails <= too
        lo = check_vector('lower', lo, n, allow_inf=True)
        up = check_vector('upper', up, n, allow_inf=True)
        i = int(np.argmax(lo > up))
        raise InputError(f'limits: variable {i} has lower {lo[i]} > upper {up[i]}')
    if (lo == -np.inf).all() and (up == np.inf).all():
        return None, None
    return lo, up
