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
Look-at (gaze) task: point an axis of a link at a point, 2 rows (camera heads, pointers).

With the link origin o, its rotation R (base frame), the unit axis a in the link frame and the
target point P, the wanted direction is d = (P − o) / ρ, ρ = ‖P − o‖. The error is the *swing*
rotation vector taking a onto d_l = Rᵀ d (link frame, see :func:`~pdls_ik.lie.se3.swing_log`);
it is perpendicular to a, so two rows remain, its components on two unit vectors u₁, u₂ that
complete a to an orthonormal basis::

    e = w · [u₁ u₂]ᵀ swing(a → Rᵀ d)                  [rad]

The axis turns with the link's angular velocity ω; the direction d turns with
ω_d = d × ḋ = −(1/ρ) [d]× (ȯ − Ṗ). The error closes at the relative rate ω − ω_d, so::

    J = w · [u₁ u₂]ᵀ Rᵀ (J_ω + (1/ρ) [d]× (J_o − J_P))

with J_o the linear Jacobian of the link origin and J_P that of the target point (zero for a
point fixed in the base frame; for a point carried by ``target_link`` its point Jacobian). This is
exact at alignment and a first-order model elsewhere, like every rotation-vector error
(effectors of Baerlocher & Boulic 2004; orientation errors after Siciliano et al., *Robotics*,
§3.7.3).
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError, LinkError
from pdls_ik.lie.so3 import skew, swing_log
from pdls_ik.tasks.base import Array, check_weight, TARGET, Task
from pdls_ik.tasks.com_task import point3

#: a target closer than this to the link origin leaves the direction undefined [m]
MIN_DISTANCE = 1e-6


class LookAtTask(Task):
    """
    Point ``axis`` (link frame) of ``link`` at ``target``.

    :param linkage: the robot model (or a floating base).
    :param link: the pointing link (e.g. a camera frame).
    :param target: P (3,) [m] in the frame of ``target_link`` (default the base frame).
    :param axis: "x", "y", "z" or 3 numbers in the link frame; default "x" (ROS camera body frames
        look along +x; optical frames along +z).
    :param base: base frame of the Jacobian (default the linkage's base link).
    :param target_link: link carrying the target point (e.g. look at a hand), or None.
    :param: weight [1/rad], tolerance [rad] (angle between axis and direction), priority.

    :raises LinkError: unknown link; ``target_link`` equal to ``link`` with P at its origin.
    :raises InputError: zero axis, bad target, or (in :meth:`compute`) the target at the link's
        origin, naming the task and link.
    """

    kind = TARGET

    def __init__(self, linkage, link: str, target: Sequence[float] = (1.0, 0.0, 0.0),
                 axis='x', base: Optional[str] = None, target_link: Optional[str] = None,
                 weight: float = 1.0, tolerance: float = 1e-4, priority: int = 0,
                 name: Optional[str] = None):
        super().__init__(name or f'look_at:{link}', weight, priority)
        self.linkage, self.link = linkage, link
        self.base = linkage.base_link if base is None else base
        linkage.link_index(link)
        linkage.link_index(self.base)
        self.target_link = target_link
        if target_link is not None:
            linkage.link_index(target_link)
        self.tolerance = check_weight(tolerance, f"task '{self.name}' tolerance")
        if isinstance(axis, str):
            if axis not in ('x', 'y', 'z'):
                raise InputError(f"task '{self.name}' axis: expected 'x', 'y', 'z' or 3 numbers,"
                                 f' got {axis!r}')
            a = np.eye(3)['xyz'.index(axis)]
        else:
            a = point3(axis, f"task '{self.name}' axis")
        norm = float(np.linalg.norm(a))
        if norm < 1e-9:
            raise InputError(f"task '{self.name}' axis: zero vector")
        self.axis = a / norm
        # u1, u2: orthonormal completion of the axis; swing vectors are rotated into it
        helper = np.eye(3)[int(np.argmin(np.abs(self.axis)))]
        u1 = np.cross(self.axis, helper)
        u1 /= np.linalg.norm(u1)
        self._basis = np.vstack((u1, np.cross(self.axis, u1)))          # (2, 3)
        # rotation taking the axis onto x, to reuse swing_log about a coordinate axis
        self._to_x = np.vstack((self.axis, self._basis))
        self.error = np.inf
        self.set_target(target)

    @property
    def dim(self) -> int:
        return 2

    def set_target(self, target: Sequence[float]) -> None:
        """Set P (3,) [m] in the frame of ``target_link`` (or the base frame)."""
        p = point3(target, f"task '{self.name}' target")
        if self.target_link == self.link and np.linalg.norm(p) < MIN_DISTANCE:
            raise LinkError(self.link, f"look-at task '{self.name}': the target is the link's "
                                       'own origin, so no direction is defined')
        self.target = p

    def _target_point(self, q: Array) -> Tuple[Array, Array]:
        """P (3,) in the base frame and its linear Jacobian (3, n)."""
        n = self.linkage.n
        if self.target_link is None:
            return self.target, np.zeros((3, n))
        T, J = self.linkage.pose_and_jacobian(q, self.target_link, self.base)
        r = T[:3, :3] @ self.target
        return T[:3, 3] + r, J[:3] - skew(r) @ J[3:]

    def compute(self, q: Array) -> Tuple[Array, Array]:
        T, J = self.linkage.pose_and_jacobian(q, self.link, self.base)
        R, o = T[:3, :3], T[:3, 3]
        P, JP = self._target_point(q)
        diff = P - o
        rho = float(np.linalg.norm(diff))
        if rho < MIN_DISTANCE:
            raise InputError(f"look-at task '{self.name}': the target {P.tolist()} is at the "
                             f"origin of link '{self.link}' (distance {rho:.3g} m), so no "
                             'direction is defined; move the target or the link frame')
        d = diff / rho
        d_l = self._to_x @ (R.T @ d)             # direction in the (axis, u1, u2) basis
        swing = swing_log(np.column_stack((d_l, np.zeros(3), np.zeros(3))), 0)
        e = swing[1:]                            # components on u1, u2
        self.error = float(np.linalg.norm(e))
        Jrel = J[3:] + skew(d) @ (J[:3] - JP) / rho
        return self.weight * e, self.weight * (self._basis @ (R.T @ Jrel))
