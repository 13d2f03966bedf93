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
Centre-of-mass task: bring the robot's CoM to a target point, on selected axes.

Residual and Jacobian (rows of the selected axes of the base frame; e.g. x and y only to keep
the CoM above a point of the support polygon, height free)::

    e = w · (c* − c(q))      [m]          J = w · J_c(q)      (m, n)

with c and J_c from :class:`~pdls_ik.model.com.CenterOfMass` (Baerlocher & Boulic 2000,
"Kinematic control of the mass properties of redundant articulated bodies", ICRA), or from
:meth:`~pdls_ik.model.floating.FloatingBase.com_position_and_jacobian` on a floating robot, where
the base is the world.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.model.com import CenterOfMass
from pdls_ik.model.floating import FloatingBase
from pdls_ik.tasks.base import Array, check_weight, TARGET, Task


def point3(value, label: str) -> Array:
    """Return a finite point (3,) [m], or raise InputError naming ``label``."""
    try:
        p = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError(f'{label}: expected 3 numbers (x, y, z), got {value!r}') from None
    if p.shape != (3,) or not np.all(np.isfinite(p)):
        raise InputError(f'{label}: expected 3 finite numbers (x, y, z), got {value!r}')
    return p


class CoMTask(Task):
    """
    Centre-of-mass position target.

    :param linkage: a :class:`~pdls_ik.model.Linkage` or a
        :class:`~pdls_ik.model.floating.FloatingBase`.
    :param target: c* (3,) [m] in the base frame (the world for a floating robot).
    :param axes: 3 flags (x, y, z) selecting the controlled rows; default (True, True, False).
    :param base: frame of the target (fixed-base robots only); default the linkage's base link.
    :param: weight [1/m], tolerance [m] (success threshold on the unweighted error norm), priority.

    :raises URDFError: the robot has no inertials (names the robot).  LinkError: unknown base.
    :raises InputError: bad target, axes or weight.
    """

    kind = TARGET

    def __init__(self, linkage, target: Sequence[float] = (0.0, 0.0, 0.0),
                 axes: Sequence[bool] = (True, True, False), base: Optional[str] = None,
                 weight: float = 1.0, tolerance: float = 1e-5, priority: int = 0,
                 name: str = 'com'):
        super().__init__(name, weight, priority)
        self.tolerance = check_weight(tolerance, f"task '{name}' tolerance")
        axes = np.asarray(axes, dtype=bool).reshape(-1)
        if axes.shape != (3,) or not axes.any():
            raise InputError(f"task '{name}' axes: expected 3 flags (x, y, z), at least one set")
        self.rows = np.flatnonzero(axes)
        self.target = point3(target, f"task '{name}' target")
        self.error = np.inf
        if isinstance(linkage, FloatingBase):
            CenterOfMass(linkage.linkage)                      # URDFError without inertials
            self._evaluate = linkage.com_position_and_jacobian
        else:
            com = CenterOfMass(linkage)
            base = linkage.base_link if base is None else base
            linkage.link_index(base)
            self._evaluate = lambda q: com.position_and_jacobian(q, base)

    @property
    def dim(self) -> int:
        return len(self.rows)

    def set_target(self, target: Sequence[float]) -> None:
        """Set c* (3,) [m] in the base frame (rows outside ``axes`` are ignored)."""
        self.target = point3(target, f"task '{self.name}' target")

    def position(self, q: Array) -> Array:
        """Return the CoM (3,) [m] at q, in the base frame."""
        return self._evaluate(q)[0]

    def compute(self, q: Array) -> Tuple[Array, Array]:
        c, J = self._evaluate(q)
        e = (self.target - c)[self.rows]
        self.error = float(np.linalg.norm(e))
        return self.weight * e, self.weight * J[self.rows]
