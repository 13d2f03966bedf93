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
Frame task: bring a link's pose to a target pose, with per-axis masks and tolerances.

Residual (before weights and masks), in the base frame:

    e_p = p* − p(q)                      [m]     position error
    e_R = log(R* R(q)ᵀ)                  [rad]   orientation error as a rotation vector

and the Jacobian rows are the linear and angular rows of the link's base-aligned frame Jacobian
(for small errors ``d e_R ≈ −ω dt``, so ``J Δq = e`` moves toward the target; Baerlocher &
Boulic 2004, §2; the rotation-vector error follows Siciliano et al., *Robotics*, §3.7.3).

Masks:
    ``position_mask`` (3 bools, base-frame axes x, y, z) keeps the position rows whose flag is
    set (all False: orientation-only).
    ``orientation_mask`` (3 bools, axes of the link frame): all True, the full orientation is
    controlled; all False, orientation is free (position-only); exactly one False, rotation about
    that tool axis is free and only the direction of the axis is controlled: the residual is the
    swing rotation vector taking the link's axis onto the target's (see :func:`swing_log`),
    expressed in the link frame, and its two rows perpendicular to the free axis are used with
    the angular Jacobian rows expressed in the link frame.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.lie.se3 import parse_pose
from pdls_ik.lie.so3 import rotation_log, swing_log
from pdls_ik.tasks.base import Array, check_weight, TARGET, Task


def _mask(values: Sequence[bool], label: str) -> np.ndarray:
    m = np.asarray(values, dtype=bool).reshape(-1)
    if m.shape != (3,):
        raise InputError(f'{label}: expected 3 flags (x, y, z), got {m.size}')
    return m


class FrameTask(Task):
    """
    Pose target for any link of a linkage, relative to a base link.

    :param linkage: the robot model (uses ``pose_and_jacobian``).
    :param link: controlled link (effector).
    :param base: frame of the target and of the Jacobian; default the linkage's base link.
    :param target: initial target (4×4 or (position, quaternion xyzw)); set later otherwise.
    :param position_mask, orientation_mask: see the module docstring.
    :param position_weight [1/m], orientation_weight [1/rad]: row weights.
    :param position_tolerance [m], orientation_tolerance [rad]: success thresholds on the masked,
        unweighted errors (:meth:`within_tolerance`).
    :param priority: integer priority among targets (smaller = higher).

    After :meth:`compute`, :attr:`position_error` (m) and :attr:`orientation_error` (rad) hold the
    masked, unweighted error norms at that configuration.
    """

    kind = TARGET

    def __init__(self, linkage, link: str, base: Optional[str] = None, target=None,
                 position_mask: Sequence[bool] = (True, True, True),
                 orientation_mask: Sequence[bool] = (True, True, True),
                 position_weight: float = 1.0, orientation_weight: float = 1.0,
                 position_tolerance: float = 1e-5, orientation_tolerance: float = 1e-4,
                 priority: int = 0, name: Optional[str] = None):
        super().__init__(name or f'frame:{link}', 1.0, priority)
        self.linkage = linkage
        self.link = link
        self.base = linkage.base_link if base is None else base
        linkage.link_index(self.link)          # LinkError for an unknown link
        linkage.link_index(self.base)
        self.position_weight = check_weight(position_weight, f"task '{self.name}' position_weight")
        self.orientation_weight = check_weight(orientation_weight,
                                               f"task '{self.name}' orientation_weight")
        self.position_tolerance = check_weight(position_tolerance,
                                               f"task '{self.name}' position_tolerance")
        self.orientation_tolerance = check_weight(orientation_tolerance,
                                                  f"task '{self.name}' orientation_tolerance")
        pm = _mask(position_mask, 'position_mask')
        om = _mask(orientation_mask, 'orientation_mask')
        if om.sum() == 1:
            raise InputError('orientation_mask: give all axes (full orientation), none '
                             '(position only) or all but one (free rotation about that axis)')
        self._pos_rows = np.flatnonzero(pm)
        self._full_orientation = bool(om.all())
        self._free_axis = int(np.flatnonzero(~om)[0]) if om.sum() == 2 else None
        self._ori_rows = (np.arange(3) if self._full_orientation else np.flatnonzero(om))
        self._np, self._no = len(self._pos_rows), (len(self._ori_rows) if om.any() else 0)
        if self._np + self._no == 0:
            raise InputError(f"task '{self.name}': every axis is masked out")
        #: the target pose (4, 4) in the base frame; :attr:`target_position` and
        #: :attr:`target_rotation` are views of it, and :meth:`set_target` writes into it (so
        #: that a compiled kernel holding it reads every new target without a copy)
        self.target_pose = np.eye(4)
        self._position, self._rotation = self.target_pose[:3, 3], self.target_pose[:3, :3]
        self.notes: list = []
        self.position_error = np.inf
        self.orientation_error = np.inf if self._no else 0.0
        if target is not None:
            self.set_target(target)

    @property
    def dim(self) -> int:
        return self._np + self._no

    @property
    def controls_orientation(self) -> bool:
        """Whether any orientation row is active."""
        return self._no > 0

    @property
    def target_position(self) -> Array:
        """Target position (3,) [m] in the base frame: a view of :attr:`target_pose`."""
        return self._position

    @target_position.setter
    def target_position(self, value) -> None:
        self._position[:] = value

    @property
    def target_rotation(self) -> Array:
        """Target rotation matrix (3, 3) in the base frame: a view of :attr:`target_pose`."""
        return self._rotation

    @target_rotation.setter
    def target_rotation(self, value) -> None:
        self._rotation[:] = value

    def set_target(self, target) -> None:
        """
        Set the target pose in the base frame: (4, 4) or (position (3,), quat xyzw (4,)).

        Written into :attr:`target_pose` (views :attr:`target_position`, :attr:`target_rotation`
        change in place). Raises InputError for NaN/inf or a zero quaternion (the target is then
        unchanged); a non-unit quaternion is normalized and recorded in :attr:`notes`.
        """
        p, R, self.notes = parse_pose(target)
        self._position[:] = p
        self._rotation[:] = R

    def errors(self, T: Array) -> Tuple[float, float]:
        """Masked, unweighted (position [m], orientation [rad]) errors of a link pose T (4, 4)."""
        dp = self.target_position - T[:3, 3]
        pos = float(np.linalg.norm(dp[self._pos_rows]))
        if not self._no:
            return pos, 0.0
        R = T[:3, :3]
        if self._full_orientation:
            return pos, float(np.linalg.norm(rotation_log(self.target_rotation @ R.T)))
        return pos, float(np.linalg.norm(swing_log(R.T @ self.target_rotation, self._free_axis)))

    def within_tolerance(self) -> bool:
        """Whether the errors of the last :meth:`compute` are within both tolerances."""
        return (self.position_error <= self.position_tolerance
                and self.orientation_error <= self.orientation_tolerance)

    def residual_error(self, e: Array) -> Tuple[float, bool]:
        """
        Return (error, met): the larger of the position [m] and orientation [rad] errors.

        Met when each is within its own tolerance (:meth:`errors_from_residual`).
        """
        pos, ori = self.errors_from_residual(e)
        return max(pos, ori), (pos <= self.position_tolerance
                               and ori <= self.orientation_tolerance)

    def level_tolerance(self) -> float:
        """Return the weighted residual norm below which the pose is surely met (inf: optional)."""
        if self.optional:
            return math.inf
        return min(self.position_tolerance * self.position_weight,
                   self.orientation_tolerance * self.orientation_weight)

    def errors_from_residual(self, e: Array) -> Tuple[float, float]:
        """
        Return the masked, unweighted (position [m], orientation [rad]) errors.

        Read from this task's residual rows e (m,) as returned by :meth:`compute` (no forward
        kinematics needed).
        """
        k = self._np
        pos = float(np.sqrt(e[:k].dot(e[:k]))) / self.position_weight
        if not self._no:
            return pos, 0.0
        return pos, float(np.sqrt(e[k:].dot(e[k:]))) / self.orientation_weight

    def compute(self, q: Array) -> Tuple[Array, Array]:
        """Weighted residual (m,) and Jacobian (m, n), m = active rows; see the module doc."""
        T, J = self.linkage.pose_and_jacobian(q, self.link, self.base)
        k = self._np
        e = np.empty(k + self._no)
        Jt = np.empty((k + self._no, J.shape[1]))
        dp = self.target_position - T[:3, 3]
        wp = self.position_weight
        if k == 3:
            e[:3] = wp * dp
            Jt[:3] = wp * J[:3]
        else:
            e[:k] = wp * dp[self._pos_rows]
            Jt[:k] = wp * J[self._pos_rows]
        if self._no:
            R = T[:3, :3]
            wo = self.orientation_weight
            if self._full_orientation:
                e[k:] = wo * rotation_log(self.target_rotation @ R.T)
                Jt[k:] = wo * J[3:]
            else:
                rows = self._ori_rows
                e[k:] = wo * swing_log(R.T @ self.target_rotation, self._free_axis)[rows]
                Jt[k:] = wo * (R.T[rows] @ J[3:])
        self.position_error, self.orientation_error = self.errors_from_residual(e)
        return e, Jt
