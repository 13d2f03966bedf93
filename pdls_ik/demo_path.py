"""Goal paths for tracking demos: a figure-eight with a changing tool orientation.

:class:`FigureEight` moves the goal on a lemniscate of Gerono in a vertical plane around a
centre pose while the orientation swings about all three axes, a realistic teleoperation-like
stream. :func:`default_path` builds it around the tip pose of a home configuration, scaled to the
robot's size, so that it runs on any arm; for the bundled Panda the home is chosen so that the
path passes close to the wrist singularity (q6 ≈ 0, joints 5 and 7 aligned, one degree from the
joint-6 lower limit) and stretches the elbow toward its limit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.transform import Rotation

from pdls_ik.tasks import middle_of_limits

Array = NDArray[np.float64]

#: home configurations of the bundled robots for the demo (joint order of the bundled URDF)
HOMES = {
    "panda": [0.0, 0.25, 0.0, -1.45, 0.0, 0.35, 0.785],
}


@dataclass
class FigureEight:
    """Goal pose at time t [s]: centre (4, 4) ⊕ figure-eight of half-width ``width`` and
    half-height ``height`` [m] in the centre's y–z plane (base-frame axes), period ``period``
    [s]; orientation swings of ``swing`` [rad] about x, y, z (different frequencies)."""

    center: Array
    width: float = 0.15
    height: float = 0.08
    period: float = 5.0
    swing: float = 0.35

    def pose(self, t: float) -> Tuple[Array, Array]:
        """(position (3,) [m], quaternion (4,) x, y, z, w) of the goal at time t [s]."""
        w = 2.0 * math.pi * t / self.period
        offset = np.array([0.04 * math.sin(2 * w), self.width * math.sin(w),
                           self.height * math.sin(2 * w)])
        position = self.center[:3, 3] + offset
        tilt = Rotation.from_rotvec([self.swing * math.sin(w), 0.7 * self.swing * math.sin(2 * w),
                                     self.swing * math.cos(w) - self.swing])
        rotation = tilt * Rotation.from_matrix(self.center[:3, :3])
        return position, rotation.as_quat()


def default_path(linkage, tip: str, base: Optional[str] = None, period: float = 5.0,
                 robot_name: Optional[str] = None) -> Tuple[FigureEight, Array]:
    """The demo path for a robot and the home configuration q (n,) it starts from.

    The home is :data:`HOMES` for bundled robots, else the middle of the joint limits; the
    path's size is a fraction of the distance from the base to the tip at home.
    """
    home = middle_of_limits(linkage.lower, linkage.upper)
    preset = HOMES.get(robot_name or "")
    if preset is not None and len(preset) <= linkage.n:
        home[:len(preset)] = preset
    center = linkage.forward_kinematics(home, tip, base)
    reach = max(float(np.linalg.norm(center[:3, 3])), 0.1)
    return FigureEight(center, width=0.2 * reach, height=0.1 * reach, period=period), home
