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
Goal frames: a goal pose given in the base link, in no frame, or in any link of the model.

A goal stamped in another link ``F`` is converted into the base frame once, when it arrives:
``T_base_goal = T_base_F(q) · T_F_goal`` with the joint positions ``q`` of that moment (so that
"5 cm ahead of the tool" does not slide away while the tool moves). Any other frame is refused:
this node has no TF listener.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import LinkError
from pdls_ik.msgs.geometry import ParsedPose


def goal_in_base(linkage, base_link: str, goal: ParsedPose,
                 q: NDArray[np.float64]) -> NDArray[np.float64]:
    """
    (4, 4) pose of ``goal`` in ``base_link``.

    :param linkage: the robot model.
    :param base_link: the solver's base frame.
    :param goal: parsed pose with its ``frame_id`` ("" means ``base_link``; a leading "/" is
        ignored, as tf2 does).
    :param q: (n,) current joint positions, used only for a goal in a moving link.

    :raises LinkError: ``frame_id`` is neither empty, ``base_link`` nor a link of the model.
    """
    frame = goal.frame_id.lstrip('/')
    pose = goal.matrix()
    if frame in ('', base_link):
        return pose
    if frame not in linkage.link_names:
        raise LinkError(frame, f"unknown goal frame: not '{base_link}' nor a link of robot "
                               f"'{linkage.name}' (no TF lookup in this node; "
                               f'{linkage.link_candidates(frame)})')
    return linkage.forward_kinematics(q, frame, base_link) @ pose
