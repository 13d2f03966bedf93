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
The abstract task: residual rows e(q) and Jacobian rows J(q), with weight and priority.

A task (an *effector* in Baerlocher & Boulic 2004) states what the solver should achieve as a
residual ``e(q)`` (m,), the change of the task values we want, and its Jacobian ``J(q)`` (m, n),
the derivative of the task values with respect to q, so that the solver seeks ``J Δq = e``.
Rows are already multiplied by the task's weight (as MSim's robot PDLS solver,
``msim.control.Solver``, weights the rows of its soft-goal effectors). Tasks are grouped into
strict priority levels by :mod:`pdls_ik.ik.task_levels` from their :attr:`Task.kind` and
:attr:`Task.priority`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
import math
from typing import Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.pdls.levels import GREATER_EQUAL, LESS_EQUAL

Array = NDArray[np.float64]

#: kinds of task, in priority order (the effector ranking of MSim's ``msim.control.Solver``:
#: chain-closure invariants above locks above targets above posture)
INVARIANT, LOCK, TARGET, POSTURE = 'invariant', 'lock', 'target', 'posture'
KIND_ORDER = {INVARIANT: -1, LOCK: 0, TARGET: 1, POSTURE: 2}


class Task(ABC):
    """
    A residual and its Jacobian over the n joint variables of a linkage.

    :ivar name: label used in levels, metrics and diagnostics.
    :ivar kind: ``"invariant"``, ``"lock"``, ``"target"`` or ``"posture"`` (the level group).
    :ivar priority: integer priority among tasks of the same kind; smaller is higher (0 first).
    :ivar weight: multiplies the residual and Jacobian rows [1 / task unit].
    :ivar dim: number of rows m.
    """

    kind: str = TARGET
    #: (m,) row comparison types (``pdls.EQUAL``, ``LESS_EQUAL``, ``GREATER_EQUAL``) for tasks
    #: with inequality rows; None: every row is an equality
    comparison = None
    #: success threshold on the unweighted error (the task's unit); tasks set their own
    tolerance: float = 1e-6
    #: an optional task never decides success (e.g. soft joint-limit avoidance)
    optional: bool = False
    #: False for a task that only keeps the solve away from something (self-collision,
    #: obstacles): an :class:`~pdls_ik.ik.IKSolver` frees the joints a task moves, but such a
    #: task moves none by itself; it acts on the joints the other tasks free
    #: (:meth:`restricted_to`)
    frees_joints: bool = True

    def __init__(self, name: str, weight: float = 1.0, priority: int = 0):
        self.name = name
        self.weight = check_weight(weight, f"task '{name}' weight")
        if isinstance(priority, bool) or not isinstance(priority, (int, np.integer)):
            raise InputError(f"task '{name}' priority: expected an integer, got {priority!r}")
        self.priority = int(priority)

    @property
    @abstractmethod
    def dim(self) -> int:
        """Return the number of residual rows m."""

    @abstractmethod
    def compute(self, q: Array) -> Tuple[Array, Array]:
        """Weighted residual e (m,) and Jacobian J (m, n) at configuration q (n,)."""

    def residual_error(self, e: Array) -> Tuple[float, bool]:
        """
        Return (error, within tolerance) of the task from its weighted residual rows e (m,).

        The error is unweighted, in the task's unit: for a task with inequality rows the largest
        violation, otherwise the residual norm; met when at most :attr:`tolerance`. Tasks with
        several errors (a frame's position and orientation) override it.
        """
        w = self.weight
        if self.comparison is not None:
            comp = np.asarray(self.comparison)
            viol = np.where(comp == LESS_EQUAL, np.maximum(e, 0.0),
                            np.where(comp == GREATER_EQUAL, np.maximum(-e, 0.0), np.abs(e)))
            err = float(viol.max(initial=0.0)) / w
        else:
            err = float(np.linalg.norm(e)) / w
        return err, err <= self.tolerance

    def restricted_to(self, free) -> 'Task':
        """
        Return the task as a solve that may change only the variables of ``free`` needs it.

        The task itself; tasks whose rows the other variables cannot change override it
        (:class:`~pdls_ik.tasks.SelfCollisionTask` leaves out the pairs ``free`` does not move).

        :param free: (n,) bool mask of the joint variables the solve may change.
        """
        return self

    def level_tolerance(self) -> float:
        """
        Return the weighted residual norm below which the task is surely met.

        Its tightest row tolerance times its weight; an optional task never constrains: inf.
        """
        if self.optional:
            return math.inf
        return self.tolerance * self.weight

    def __repr__(self) -> str:
        return (f"{type(self).__name__}('{self.name}', kind={self.kind}, "
                f'priority={self.priority}, weight={self.weight:g})')


def check_weight(weight: float, label: str) -> float:
    """Return a finite, strictly positive weight, or raise InputError naming ``label``."""
    try:
        w = float(weight)
    except (TypeError, ValueError):
        raise InputError(f'{label}: expected a number, got {weight!r}') from None
    if not (math.isfinite(w) and w > 0.0):
        raise InputError(f'{label}: {weight!r} must be finite and > 0')
    return w
