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
Position bound task: keep a point of a link inside a box, or on one side of a plane.

Inequality rows of the PDLS solver (after the row comparison types of HPP's hierarchical Newton
solver in hpp-constraints, see :mod:`pdls_ik.pdls.levels`): a row takes part only while it is
violated (or while the step would violate it), and then drives the point back onto the bound; a
satisfied bound leaves the level's null space untouched.

With x(q) the point (base frame) and J_x its linear Jacobian (3, n):

- box ``lower ≤ x ≤ upper`` (per axis, ±inf for no bound): a lower bound gives the row
  ``e = w (lower_i − x_i)`` with ``LESS_EQUAL`` (satisfied while e ≤ 0), an upper bound
  ``e = w (upper_i − x_i)`` with ``GREATER_EQUAL``; Jacobian row ``w J_x[i]``;
- plane ``n · x ≥ offset`` (the allowed side is the one the unit normal n points to; e.g. above a
  table top at height h: n = (0, 0, 1), offset = h): ``e = w (offset − n · x)``, ``LESS_EQUAL``,
  Jacobian ``w nᵀ J_x``.

(Kanoun, Lamiraux & Wieber 2011, "Kinematic control of redundant manipulators: generalizing the
task-priority framework to inequality task", for inequality tasks in a priority hierarchy.)
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.lie.so3 import skew
from pdls_ik.pdls import GREATER_EQUAL, LESS_EQUAL
from pdls_ik.tasks.base import Array, check_weight, TARGET, Task
from pdls_ik.tasks.com_task import point3


def _bounds(values, label: str, fill: float) -> Array:
    if values is None:
        return np.full(3, fill)
    try:
        b = np.asarray([fill if v is None else v for v in values], dtype=float)
    except (TypeError, ValueError):
        raise InputError(f'{label}: expected 3 numbers (x, y, z; None or ±inf for no bound), '
                         f'got {values!r}') from None
    if b.shape != (3,) or np.isnan(b).any():
        raise InputError(f'{label}: expected 3 numbers (x, y, z; None or ±inf for no bound), '
                         f'got {values!r}')
    return b


class PositionBoundTask(Task):
    """
    A point of ``link`` kept inside a box or on one side of a plane (module docstring).

    Give either ``lower``/``upper`` (box) or ``normal``/``offset`` (plane), not both.

    :param linkage: the robot model.  link: the bounded link.
    :param point: (3,) point in the link frame [m] (default its origin).
    :param lower, upper: box bounds (3,) [m] in the base frame (None / ±inf: unbounded axis).
    :param normal, offset: plane ``normal · x ≥ offset`` [m] in the base frame.
    :param base: base frame; default the linkage's base link.
    :param: weight [1/m], tolerance [m] (largest violation counted as satisfied), priority.

    :raises InputError: no bound, both kinds, lower > upper, zero normal.  LinkError: unknown link.
    """

    kind = TARGET

    def __init__(self, linkage, link: str, point: Sequence[float] = (0.0, 0.0, 0.0),
                 lower=None, upper=None, normal=None, offset: float = 0.0,
                 base: Optional[str] = None, weight: float = 1.0, tolerance: float = 1e-6,
                 priority: int = 0, name: Optional[str] = None):
        super().__init__(name or f'bound:{link}', weight, priority)
        self.linkage, self.link = linkage, link
        self.base = linkage.base_link if base is None else base
        linkage.link_index(link)
        linkage.link_index(self.base)
        self.point = point3(point, f"task '{self.name}' point")
        self.tolerance = check_weight(tolerance, f"task '{self.name}' tolerance")
        box = lower is not None or upper is not None
        if box == (normal is not None):
            raise InputError(f"task '{self.name}': give a box (lower/upper) or a plane "
                             '(normal/offset), exactly one')
        if box:
            lo = _bounds(lower, f"task '{self.name}' lower", -np.inf)
            hi = _bounds(upper, f"task '{self.name}' upper", np.inf)
            if np.any(lo > hi):
                i = int(np.argmax(lo > hi))
                raise InputError(f"task '{self.name}': lower {lo[i]} > upper {hi[i]} on axis "
                                 f"{'xyz'[i]}")
            lo_axes, hi_axes = np.flatnonzero(np.isfinite(lo)), np.flatnonzero(np.isfinite(hi))
            if not (lo_axes.size or hi_axes.size):
                raise InputError(f"task '{self.name}': every box bound is infinite")
            # row i: bound values, direction rows (unit axes), comparison
            self._normals = np.vstack((np.eye(3)[lo_axes], np.eye(3)[hi_axes]))
            self._offsets = np.concatenate((lo[lo_axes], hi[hi_axes]))
            self.comparison = np.array([LESS_EQUAL] * lo_axes.size +
                                       [GREATER_EQUAL] * hi_axes.size)
        else:
            nrm = point3(normal, f"task '{self.name}' normal")
            length = float(np.linalg.norm(nrm))
            if length < 1e-9:
                raise InputError(f"task '{self.name}' normal: zero vector")
            self._normals = (nrm / length)[None, :]
            self._offsets = np.array([float(offset) / length])
            self.comparison = np.array([LESS_EQUAL])
        self.violation = np.inf

    @property
    def dim(self) -> int:
        return len(self._offsets)

    def position(self, q: Array) -> Array:
        """Return the bounded point (3,) [m] at q, in the base frame."""
        T = self.linkage.forward_kinematics(q, self.link, self.base)
        return T[:3, :3] @ self.point + T[:3, 3]

    def compute(self, q: Array) -> Tuple[Array, Array]:
        T, J = self.linkage.pose_and_jacobian(q, self.link, self.base)
        r = T[:3, :3] @ self.point
        x = T[:3, 3] + r
        Jx = J[:3] - skew(r) @ J[3:]
        e = self._offsets - self._normals @ x
        violated = np.where(self.comparison == LESS_EQUAL, np.maximum(e, 0.0),
                            np.maximum(-e, 0.0))
        self.violation = float(violated.max())
        self.error = self.violation
        return self.weight * e, self.weight * (self._normals @ Jx)
