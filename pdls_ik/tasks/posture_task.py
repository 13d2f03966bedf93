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
Posture task: pull the joints toward preferred values, at the lowest priority.

Residual and Jacobian (n rows):

    e = w · (q* − q)        J = w · I        [rad or m]

with the difference taken the short way round for continuous joints. The preferred values q*
default to the middle of the joint limits (0 for unbounded joints). In a PDLS solve the posture is
not a level but the *posture variation* ``w (q* − q)``, projected into the null space left by every
level (Baerlocher & Boulic 2004, §3.3; as in MSim's ``msim.control.Solver``, posture effectors
rank below all targets), so it only moves redundant degrees of freedom.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.model.joint_vector import joint_delta
from pdls_ik.tasks.base import Array, POSTURE, Task


def middle_of_limits(lower: Array, upper: Array) -> Array:
    """(lower + upper) / 2 per joint, 0 where a limit is infinite (continuous joints)."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    finite = np.isfinite(lower) & np.isfinite(upper)
    return np.where(finite, 0.5 * (np.where(finite, lower, 0.0) + np.where(finite, upper, 0.0)),
                    0.0)


class PostureTask(Task):
    """
    Preferred joint values q* (n,), weight w ∈ (0, ∞) (a gain per iteration when ≤ 1).

    :param linkage: the robot model (``lower``, ``upper``, ``continuous``, ``n``).
    :param preferred: q* (n,); default :func:`middle_of_limits`. A value outside its joint's
        limits is clamped onto them (a continuous joint's is not), recorded in :attr:`notes`:
        the posture only moves joints within what the limits leave.
    :param weight: w; the posture variation is ``w (q* − q)``.
    :param priority: rank among posture tasks, smaller first (MSim ranks posture effectors by
        priority): the tasks of the largest value are summed into the PDLS posture variation,
        those of smaller values are strict levels above it (:mod:`pdls_ik.ik.task_levels`).
    """

    kind = POSTURE

    def __init__(self, linkage, preferred: Optional[Sequence[float]] = None,
                 weight: float = 0.1, name: str = 'posture', priority: int = 0):
        super().__init__(name, weight, priority=priority)
        self.n = linkage.n
        self.continuous = np.asarray(linkage.continuous, dtype=bool)
        if preferred is None:
            preferred = middle_of_limits(linkage.lower, linkage.upper)
        self.preferred = np.asarray(preferred, dtype=float).reshape(-1)
        if self.preferred.shape != (self.n,) or not np.all(np.isfinite(self.preferred)):
            raise InputError(f"posture task '{name}': preferred needs {self.n} finite values")
        #: repairs of the input: preferred values clamped into the joint limits
        self.notes: List[str] = []
        lower = np.asarray(linkage.lower, dtype=float)
        upper = np.asarray(linkage.upper, dtype=float)
        outside = ~self.continuous & ((self.preferred < lower) | (self.preferred > upper))
        if outside.any():
            names = getattr(linkage, 'joint_names', None)
            which = ', '.join(names[j] if names is not None else str(j)
                              for j in np.flatnonzero(outside))
            self.preferred = np.where(outside, np.clip(self.preferred, lower, upper),
                                      self.preferred)
            self.notes.append(f"posture task '{name}': preferred values clamped into the joint "
                              f'limits ({which})')
        self._J = self.weight * np.eye(self.n)

    @property
    def dim(self) -> int:
        return self.n

    def variation(self, q: Array) -> Array:
        """Posture variation w (q* − q) (n,), the short way round for continuous joints."""
        return self.weight * joint_delta(q, self.preferred, self.continuous)

    def compute(self, q: Array) -> Tuple[Array, Array]:
        return self.variation(q), self._J

    def level_tolerance(self) -> float:
        """Return inf: a posture never constrains, even ranked as a level of its own."""
        return float('inf')
