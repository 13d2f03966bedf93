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
The ``~/compute_fk`` answer (moveit_msgs/srv/GetPositionFK semantics), without ROS.

As move_group's ``computeFKService``: no ``fk_link_names`` -> INVALID_LINK_NAME; the joints of
``robot_state`` replace the node's current state (joints it lacks keep the current values); each
known link is answered, in request order, in ``header.frame_id`` ("" or the model frame: the
root link; else any link of the model, placed at the same state); an unknown link is left out
of the answer and the code is INVALID_LINK_NAME (naming it); an unknown frame ->
FRAME_TRANSFORM_FAILURE. A NaN/inf joint value -> INVALID_ROBOT_STATE.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError, LinkError
from pdls_ik.msgs.joint_state import match_joint_positions
from pdls_ik.msgs.moveit import ErrorCode, FKServiceReply, FKServiceRequest
from pdls_ik.ros_logic.groups import Groups


def compute_fk(groups: Groups, request: FKServiceRequest,
               current_q: Callable[[], NDArray[np.float64]]) -> FKServiceReply:
    """
    Answer one GetPositionFK request; never raises on bad input (the reply carries the code).

    :param groups: the robot and its frames (:class:`~pdls_ik.ros_logic.groups.Groups`).
    :param request: the parsed request.
    :param current_q: returns the node's (n,) current joint positions.
    :return: poses (4, 4) [m] of the known links in the answer frame.
    """
    linkage = groups.robot.linkage
    if not request.link_names:
        return FKServiceReply(ErrorCode.INVALID_LINK_NAME, 'fk_link_names: no link given')
    try:
        q = match_joint_positions(request.seed.names, request.seed.positions,
                                  linkage.joint_names, fallback=current_q(),
                                  field_name='robot_state.joint_state').q
    except InputError as exc:
        return FKServiceReply(ErrorCode.INVALID_ROBOT_STATE, str(exc))
    frame = request.frame_id.lstrip('/') or groups.model_frame
    frame_link = groups.link_of_frame(frame)
    if frame_link not in linkage.link_names:
        return FKServiceReply(ErrorCode.FRAME_TRANSFORM_FAILURE,
                              f"header.frame_id '{request.frame_id}': unknown frame (not the "
                              f"model frame '{groups.model_frame}' nor a link of robot "
                              f"'{linkage.name}'; no TF lookup in this node)")
    names, poses, unknown = [], [], []
    for link in request.link_names:
        try:
            poses.append(linkage.forward_kinematics(q, link, frame_link))
        except LinkError:
            unknown.append(link)
            continue
        names.append(link)
    if unknown:
        hints = '; '.join(f"{link}: closest names {', '.join(linkage.closest_links(link))}"
                          for link in unknown)
        return FKServiceReply(ErrorCode.INVALID_LINK_NAME,
                              f"fk_link_names: unknown link(s) {', '.join(unknown)} (robot "
                              f"'{linkage.name}'; {hints}; the tips of its tree: "
                              f"{', '.join(linkage.leaf_links)})", frame, names, poses)
    return FKServiceReply(ErrorCode.SUCCESS, f'{len(names)} link pose(s) in {frame}', frame,
                          names, poses)
