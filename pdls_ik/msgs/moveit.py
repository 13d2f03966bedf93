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
moveit_msgs/srv/GetPositionIK: request -> plain request, plain reply -> response.

Semantics follow MoveIt's ``compute_ik`` service: the seed comes from
``ik_request.robot_state.joint_state``, the target from ``pose_stamped`` for ``ik_link_name``
(empty: the solver's tip link), ``timeout`` zero means the server's default, and the answer carries
a ``MoveItErrorCodes`` value. This server checks no collisions: ``avoid_collisions`` is reported
in the reply's message, never ignored silently. Error code values are those of
moveit_msgs/msg/MoveItErrorCodes.msg (same in Humble and Jazzy); the ``message`` and ``source``
fields exist from moveit_msgs 2.4 (Jazzy) on and are filled only when the type has them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.msgs.geometry import ParsedPose, pose_from_msg
from pdls_ik.msgs.joint_state import joint_state
from pdls_ik.msgs.message_types import field_names, MessageTypes
from pdls_ik.msgs.stamps import header, msg_to_seconds, Stamp

#: the ``source`` field of replies (moveit_msgs >= 2.4)
SOURCE = 'pdls_ik'


class ErrorCode(IntEnum):
    """The moveit_msgs/MoveItErrorCodes values this service answers with."""

    SUCCESS = 1
    FAILURE = 99999
    TIMED_OUT = -6
    INVALID_GROUP_NAME = -15
    INVALID_GOAL_CONSTRAINTS = -16
    INVALID_ROBOT_STATE = -17
    INVALID_LINK_NAME = -18
    FRAME_TRANSFORM_FAILURE = -21
    NO_IK_SOLUTION = -31


class RequestError(InputError):
    """A GetPositionIK request that cannot be served; ``code`` is its MoveItErrorCodes value."""

    def __init__(self, code: ErrorCode, message: str):
        self.code = ErrorCode(code)
        super().__init__(message)


@dataclass(frozen=True)
class IKServiceRequest:
    """
    A validated GetPositionIK request, free of ROS types.

    :ivar group_name: as received (this server has one group and does not check it).
    :ivar ik_link_name: link to place, "" for the solver's tip link.
    :ivar target: the goal pose, in ``target.frame_id``.
    :ivar seed_names, seed_positions: joint names and (k,) positions of the robot_state, possibly
        empty.
    :ivar timeout: seconds, None for the server's default (the request's zero).
    :ivar avoid_collisions: as received (unsupported: reported in the reply).
    """

    group_name: str
    ik_link_name: str
    target: ParsedPose
    seed_names: List[str] = field(default_factory=list)
    seed_positions: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    timeout: Optional[float] = None
    avoid_collisions: bool = False


@dataclass(frozen=True)
class IKServiceReply:
    """What the service answers: ``code`` (ErrorCode), ``message``, and the solution joints."""

    code: ErrorCode
    message: str = ''
    joint_names: List[str] = field(default_factory=list)
    positions: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))


def ik_request_from_msg(msg: Any) -> IKServiceRequest:
    """
    Read a GetPositionIK request (or its ``ik_request`` PositionIKRequest).

    :raises RequestError: INVALID_ROBOT_STATE when ``robot_state.joint_state`` has mismatched
        name/position arrays; INVALID_GOAL_CONSTRAINTS for a NaN/inf pose or zero
        quaternion; INVALID_LINK_NAME when several links are asked for at once, or
        ``ik_link_names`` does not match ``pose_stamped_vector``.
    """
    req = getattr(msg, 'ik_request', msg)
    names = [str(n) for n in req.robot_state.joint_state.name]
    positions = np.asarray(list(req.robot_state.joint_state.position), dtype=float)
    if len(positions) != len(names):
        raise RequestError(ErrorCode.INVALID_ROBOT_STATE,
                           f'ik_request.robot_state.joint_state.position: {len(positions)} '
                           f'values for {len(names)} names')
    link, pose_msg = str(req.ik_link_name), req.pose_stamped
    link_names, poses = list(req.ik_link_names), list(req.pose_stamped_vector)
    if poses or link_names:
        if len(poses) != 1 or len(link_names) > 1:
            raise RequestError(ErrorCode.INVALID_LINK_NAME,
                               f'ik_request: {len(poses)} poses for links {link_names}: '
                               f'this server places one link per request')
        pose_msg = poses[0]
        link = str(link_names[0]) if link_names else link
    try:
        target = pose_from_msg(pose_msg, 'ik_request.pose_stamped')
    except InputError as exc:
        raise RequestError(ErrorCode.INVALID_GOAL_CONSTRAINTS, str(exc)) from None
    timeout = msg_to_seconds(req.timeout)
    return IKServiceRequest(group_name=str(req.group_name), ik_link_name=link, target=target,
                            seed_names=names, seed_positions=positions,
                            timeout=timeout if timeout > 0.0 else None,
                            avoid_collisions=bool(req.avoid_collisions))


def _robot_state(types: MessageTypes, joint_names: Sequence[str], positions: Sequence[float],
                 stamp: Stamp) -> Any:
    multi_dof = types.MultiDOFJointState(header=header(types, stamp, ''), joint_names=[],
                                         transforms=[], twist=[], wrench=[])
    return types.RobotState(joint_state=joint_state(types, joint_names, positions, stamp=stamp),
                            multi_dof_joint_state=multi_dof, attached_collision_objects=[],
                            is_diff=False)


def error_code_msg(types: MessageTypes, code: ErrorCode, message: str = '') -> Any:
    """moveit_msgs/MoveItErrorCodes; ``message``/``source`` set when the type has them."""
    fields = {'val': int(code)}
    if 'message' in field_names(types.MoveItErrorCodes):
        fields.update(message=str(message), source=SOURCE)
    return types.MoveItErrorCodes(**fields)


def ik_response(types: MessageTypes, reply: IKServiceReply, stamp: Stamp = 0.0) -> Any:
    """Build a GetPositionIK response; ``solution.joint_state`` holds the joints, or is empty."""
    return types.GetPositionIK_Response(
        solution=_robot_state(types, reply.joint_names, reply.positions, stamp),
        error_code=error_code_msg(types, reply.code, reply.message))
