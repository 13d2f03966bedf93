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
Joint records and the rigid transforms they produce.

A URDF joint places its child link frame in its parent link frame as
``T_parent_child(θ) = T_origin · M(θ)`` where ``T_origin`` is the joint's ``<origin>`` (fixed)
and ``M(θ)`` the joint motion about / along the unit ``<axis>`` expressed in the joint frame
(URDF specification, ros.org/wiki/urdf/XML/joint). The joint frame coincides with the child
link frame.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Optional

import numpy as np
from numpy.typing import NDArray

#: joint types whose value is a variable of q (or follows one through <mimic>)
MOVING_TYPES = ('revolute', 'continuous', 'prismatic')
#: joint types parsed but not supported as variables: held at their origin (zero displacement)
PASSIVE_TYPES = ('floating', 'planar')
JOINT_TYPES = MOVING_TYPES + ('fixed',) + PASSIVE_TYPES


@dataclass(frozen=True)
class Joint:
    """
    One joint of the tree, resolved against the active variables.

    :ivar name: joint name.
    :ivar type: one of :data:`JOINT_TYPES`.
    :ivar parent, child: link indices in ``Linkage.link_names``.
    :ivar origin: (4, 4) pose of the joint (= child) frame in the parent link frame at θ = 0 [m].
    :ivar axis: (3,) unit axis in the joint frame (zeros for fixed and passive joints).
    :ivar index: column of q driving the joint (-1 for fixed / passive joints); for a mimic joint
        the column of its master.
    :ivar multiplier, offset: θ = multiplier · q[index] + offset (1 and 0 unless ``<mimic>``).
    :ivar mimic: name of the master joint, or None.
    :ivar defect: why the joint is disabled (held at its origin, not moving), or None; the
        :class:`~pdls_ik.errors.JointError` raised when a chain or task uses it.
    """

    name: str
    type: str  # noqa: A003 (the URDF attribute name, public field)
    parent: int
    child: int
    origin: NDArray[np.float64]
    axis: NDArray[np.float64] = field(default_factory=lambda: np.zeros(3))
    index: int = -1
    multiplier: float = 1.0
    offset: float = 0.0
    mimic: Optional[str] = None
    defect: Optional[str] = None

    @property
    def revolute(self) -> bool:
        """Tell whether the joint rotates about its axis (revolute and continuous joints)."""
        return self.type in ('revolute', 'continuous')

    @property
    def moving(self) -> bool:
        """Tell whether the joint's value depends on q."""
        return self.index >= 0


@dataclass(frozen=True)
class Inertial:
    """
    Mass properties of one link (URDF ``<inertial>``), kept for centre-of-mass tasks.

    :ivar mass: kg.
    :ivar origin: (4, 4) pose of the centre-of-mass frame in the link frame, metres.
    :ivar inertia: (3, 3) symmetric inertia tensor about the centre of mass in that frame, kg·m².
    """

    mass: float
    origin: NDArray[np.float64]
    inertia: NDArray[np.float64]


def pose_matrix(xyz, rpy) -> NDArray[np.float64]:
    """
    (4, 4) homogeneous transform of a URDF ``<origin xyz rpy>``.

    ``rpy`` are fixed-axis roll, pitch, yaw (radians): R = Rz(yaw) Ry(pitch) Rx(roll), which is
    scipy's extrinsic ``"xyz"`` Euler sequence, written out.
    """
    roll, pitch, yaw = (float(a) for a in rpy)
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    T = np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, 0.0],
                  [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr, 0.0],
                  [-sp, cp * sr, cp * cr, 0.0],
                  [0.0, 0.0, 0.0, 1.0]])
    T[:3, 3] = xyz
    return T
