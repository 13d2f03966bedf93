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
Relative frame task: the pose of one link in another *moving* link's frame.

Examples: two-arm holding (the left hand's pose in the right hand's frame fixed, while both
arms move), a tool held at a pose relative to a part carried by another arm. The residual is the
:class:`~pdls_ik.tasks.FrameTask` residual of ``link`` with ``relative_to`` as the base::

    e_p = p* − p_rel(q)          e_R = log(R* R_rel(q)ᵀ)       (in the ``relative_to`` frame)

and the Jacobian is the relative frame Jacobian of the path ``relative_to`` → ``link`` through
the tree (joints on the ``relative_to`` side count with a minus sign, see
:mod:`pdls_ik.model.kinematics`), so *both* chains move to achieve it (Baerlocher & Boulic 2004,
§2, effectors; the relative Jacobian of cooperative manipulators, Chiacchio, Chiaverini & Siciliano
1996, "Direct and inverse kinematics for coordinated motion tasks of a two-manipulator system").
"""
from __future__ import annotations

from typing import Optional, Sequence

from pdls_ik.errors import LinkError
from pdls_ik.tasks.frame_task import FrameTask


class RelativeFrameTask(FrameTask):
    """
    Pose target of ``link`` expressed in the frame of ``relative_to``.

    :param linkage: the robot model.
    :param link: controlled link.  relative_to: the moving reference link (must differ).
    :param target: T* (4, 4) or (position, quaternion xyzw) of ``link`` in ``relative_to``;
        None: keep the current relative pose, call :meth:`hold` or :meth:`set_target`.
    :param: Other arguments as :class:`~pdls_ik.tasks.FrameTask` (masks, weights, tolerances).

    :raises LinkError: unknown link, or ``link`` equal to ``relative_to``.
    """

    def __init__(self, linkage, link: str, relative_to: str, target=None,
                 position_mask: Sequence[bool] = (True, True, True),
                 orientation_mask: Sequence[bool] = (True, True, True),
                 position_weight: float = 1.0, orientation_weight: float = 1.0,
                 position_tolerance: float = 1e-5, orientation_tolerance: float = 1e-4,
                 priority: int = 0, name: Optional[str] = None):
        if link == relative_to:
            raise LinkError(link, 'a relative frame task needs two different links')
        super().__init__(linkage, link, relative_to, target, position_mask, orientation_mask,
                         position_weight, orientation_weight, position_tolerance,
                         orientation_tolerance, priority, name or f'relative:{link}@{relative_to}')
        self.relative_to = relative_to

    def hold(self, q) -> None:
        """Set the target to the current relative pose at q (e.g. when both hands grasp)."""
        self.set_target(self.linkage.forward_kinematics(q, self.link, self.relative_to))
