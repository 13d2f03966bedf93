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
Loop-closure task: two links of the tree joined by a closure joint (closed chains).

A URDF is a tree, so a closed chain (four-bar, parallel gripper, two hands on one object) is
described by cutting one joint of each loop and declaring the cut as a closure between a frame
F_a fixed on ``link_a`` and a frame F_b fixed on ``link_b``. As in the robot PDLS solver of MSim
(``msim.control.Solver``: each chain closure induces an *invariant effector*; all invariants
share the highest priority level 0), the task has kind ``"invariant"``, so every other task acts
only in the null space of the closure constraints: with one input joint driven, the passive
joints follow.

Residual in the frame of ``link_a`` (T_ab(q): pose of link_b in link_a, J its relative Jacobian in
link_a coordinates; p_af, R_af: F_a in link_a; p_bf, R_bf: F_b in link_b; r = R_ab p_bf)::

    e_p = p_af − (t_ab + r)                   J_p = J_v − [r]× J_ω        (3 rows)   [m]
    e_R = log(R_af (R_ab R_bf)ᵀ)              J_R = J_ω                   (3 rows)   [rad]

``mode="position"`` keeps the 3 position rows only: a ball (spherical) closure joint, or a
revolute one in a planar mechanism whose loop is in the plane. ``mode="pose"``: a rigid (welded)
closure, 6 rows. (Rotation-vector error: Siciliano et al., *Robotics*, §3.7.3.)
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
from pdls_ik.errors import InputError, LinkError
from pdls_ik.lie.se3 import parse_pose
from pdls_ik.lie.so3 import rotation_log
from pdls_ik.lie.so3 import skew
from pdls_ik.tasks.base import Array, check_weight, INVARIANT, Task

MODES = ('pose', 'position')


def _frame(value, label: str) -> Tuple[Array, Array]:
    """(p, R) of an optional frame: None (identity), a point (3,), a (4, 4) or (p, quat)."""
    if value is None:
        return np.zeros(3), np.eye(3)
    arr = np.asarray(value, dtype=object)
    if arr.shape == (3,):
        try:
            p = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f'{label}: expected 3 numbers, got {value!r}') from None
        if not np.all(np.isfinite(p)):
            raise InputError(f'{label}: non-finite value in {value!r}')
        return p, np.eye(3)
    try:
        p, R, _ = parse_pose(value)
    except InputError as err:
        raise InputError(f'{label}: {err}') from None
    return p, R


class ClosureTask(Task):
    """
    Closure between frame F_a on ``link_a`` and frame F_b on ``link_b`` (module docstring).

    :param linkage: the robot model.
    :param link_a, link_b: the two links joined by the closure joint.
    :param frame_a, frame_b: F_a in link_a, F_b in link_b: None (link origin), a point (3,) [m], a
        (4, 4) pose or (position, quaternion xyzw).
    :param mode: "pose" (6 rows) or "position" (3 rows, ball joint).
    :param weight, tolerance [m for position, rad for orientation]: default 1e-10.

    :raises LinkError: unknown link, the same link twice, or no joint between the two links.
    :raises InputError: bad mode or frame.
    """

    kind = INVARIANT

    def __init__(self, linkage, link_a: str, link_b: str, frame_a=None, frame_b=None,
                 mode: str = 'pose', weight: float = 1.0, tolerance: float = 1e-10,
                 name: Optional[str] = None):
        super().__init__(name or f'closure:{link_a}-{link_b}', weight, priority=0)
        for link in (link_a, link_b):
            linkage.link_index(link)
        if link_a == link_b:
            raise LinkError(link_a, f"closure '{self.name}' joins a link to itself")
        if mode not in MODES:
            raise InputError(f"closure '{self.name}' mode: expected one of {', '.join(MODES)}, "
                             f'got {mode!r}')
        if not np.any(linkage.jacobian(np.zeros(linkage.n), link_b, link_a)):
            raise LinkError(link_b, f"closure '{self.name}': no joint moves '{link_b}' "
                                    f"relative to '{link_a}', so the loop cannot close")
        self.linkage, self.link_a, self.link_b, self.mode = linkage, link_a, link_b, mode
        self.p_af, self.R_af = _frame(frame_a, f"closure '{self.name}' frame_a")
        self.p_bf, self.R_bf = _frame(frame_b, f"closure '{self.name}' frame_b")
        self.tolerance = check_weight(tolerance, f"closure '{self.name}' tolerance")
        self.position_error = self.orientation_error = np.inf

    @property
    def dim(self) -> int:
        return 6 if self.mode == 'pose' else 3

    @property
    def error(self) -> float:
        """Largest of the position [m] and orientation [rad] errors of the last compute."""
        return max(self.position_error, self.orientation_error)

    def residual_error(self, e: Array) -> Tuple[float, bool]:
        """
        Return (error, met) from the weighted residual e (m,), met within :attr:`tolerance`.

        In pose mode the error is the larger of the position [m] and orientation [rad] errors,
        else the position error.
        """
        if e.size != 6:
            return super().residual_error(e)
        err = max(float(np.linalg.norm(e[:3])), float(np.linalg.norm(e[3:]))) / self.weight
        return err, err <= self.tolerance

    def errors(self, q: Array) -> Tuple[float, float]:
        """
        Return the unweighted (position [m], orientation [rad]) closure errors at q.

        The orientation error is 0 rad in position mode.
        """
        self.compute(q)
        return self.position_error, self.orientation_error

    def compute(self, q: Array) -> Tuple[Array, Array]:
        T, J = self.linkage.pose_and_jacobian(q, self.link_b, self.link_a)
        R = T[:3, :3]
        r = R @ self.p_bf
        e = np.empty(self.dim)
        Jt = np.empty((self.dim, J.shape[1]))
        e[:3] = self.p_af - (T[:3, 3] + r)
        Jt[:3] = J[:3] - skew(r) @ J[3:]
        self.position_error = float(np.linalg.norm(e[:3]))
        self.orientation_error = 0.0
        if self.mode == 'pose':
            e[3:] = rotation_log(self.R_af @ (R @ self.R_bf).T)
            Jt[3:] = J[3:]
            self.orientation_error = float(np.linalg.norm(e[3:]))
        return self.weight * e, self.weight * Jt
