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
moveit_msgs GetPositionIK and GetPositionFK: request -> plain request, plain reply -> response.

Semantics follow MoveIt's ``compute_ik`` / ``compute_fk`` services (move_group's
``MoveGroupKinematicsService``) and what ``srv_kinematics_plugin/SrvKinematicsPlugin`` sends:

- IK targets: with ``pose_stamped_vector`` empty, ``pose_stamped`` for ``ik_link_name``; with one
  entry, that pose for ``ik_link_names[0]`` (or ""); with several, one pose per entry of
  ``ik_link_names`` (same length, else INVALID_LINK_NAME), solved together. An empty link name
  means the group's tip.
- The seed is ``robot_state.joint_state`` (MoveIt sends the whole robot); ``timeout`` zero means
  the server's default; ``avoid_collisions`` and ``constraints`` are reported in the reply's
  message (this server checks neither), never ignored silently.
- FK: the poses of ``fk_link_names`` at ``robot_state`` (joints it lacks: the node's state), in
  ``header.frame_id`` (empty: the model's root).

Error code values are those of moveit_msgs/msg/MoveItErrorCodes.msg (same in Humble and Jazzy);
the ``message`` and ``source`` fields exist from moveit_msgs 2.4 (Jazzy) on and are filled only
when the type has them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.msgs.geometry import ParsedPose, pose_from_msg, pose_stamped
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
class IKTarget:
    """
    One tip of an IK request: ``link`` ("" for the group's tip) to bring to ``pose``.

    :ivar field: the request field it came from, for error texts (e.g.
        ``ik_request.pose_stamped_vector[1]``).
    """

    link: str
    pose: ParsedPose
    field: str = 'ik_request.pose_stamped'


@dataclass(frozen=True)
class RobotStateSeed:
    """
    The joints of a moveit_msgs/RobotState: names and (k,) positions, possibly empty.

    :ivar multi_dof_names: joints of ``multi_dof_joint_state`` (virtual joints: not applied).
    """

    names: List[str] = field(default_factory=list)
    positions: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    multi_dof_names: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class IKServiceRequest:
    """
    A validated GetPositionIK request, free of ROS types.

    :ivar group_name: the planning group ("" for the node's configured chain).
    :ivar targets: one :class:`IKTarget` per tip, solved together.
    :ivar seed_names, seed_positions: joint names and (k,) positions of the robot_state, possibly
        empty.
    :ivar timeout: seconds, None for the server's default (the request's zero).
    :ivar avoid_collisions: as received (unsupported: reported in the reply).
    :ivar constraints: number of constraints in ``constraints`` (not applied: reported).
    :ivar multi_dof_names: joints of ``robot_state.multi_dof_joint_state`` (not applied).
    """

    group_name: str
    targets: Tuple[IKTarget, ...]
    seed_names: List[str] = field(default_factory=list)
    seed_positions: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    timeout: Optional[float] = None
    avoid_collisions: bool = False
    constraints: int = 0
    multi_dof_names: List[str] = field(default_factory=list)

    @property
    def ik_link_name(self) -> str:
        """Return the link of the first target ("" for the group's tip)."""
        return self.targets[0].link

    @property
    def target(self) -> ParsedPose:
        """Return the pose of the first target."""
        return self.targets[0].pose


@dataclass(frozen=True)
class IKServiceReply:
    """What the service answers: ``code`` (ErrorCode), ``message``, and the solution joints."""

    code: ErrorCode
    message: str = ''
    joint_names: List[str] = field(default_factory=list)
    positions: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))


def robot_state_from_msg(msg: Any, field_name: str) -> RobotStateSeed:
    """
    Read the joints of a moveit_msgs/RobotState.

    :raises RequestError: INVALID_ROBOT_STATE when ``joint_state`` has mismatched name/position
        arrays (the message names ``field_name``).
    """
    names = [str(n) for n in msg.joint_state.name]
    positions = np.asarray(list(msg.joint_state.position), dtype=float)
    if len(positions) != len(names):
        raise RequestError(ErrorCode.INVALID_ROBOT_STATE,
                           f'{field_name}.joint_state.position: {len(positions)} values for '
                           f'{len(names)} names')
    return RobotStateSeed(names, positions,
                          [str(n) for n in msg.multi_dof_joint_state.joint_names])


def _target(msg: Any, link: str, field_name: str) -> IKTarget:
    try:
        return IKTarget(link, pose_from_msg(msg, field_name), field_name)
    except InputError as exc:
        raise RequestError(ErrorCode.INVALID_GOAL_CONSTRAINTS, str(exc)) from None


def _targets(req: Any) -> Tuple[IKTarget, ...]:
    """Read the tips of a PositionIKRequest as MoveIt's compute_ik reads them."""
    link_names = [str(n) for n in req.ik_link_names]
    poses = list(req.pose_stamped_vector)
    if not poses:
        return (_target(req.pose_stamped, str(req.ik_link_name), 'ik_request.pose_stamped'),)
    if len(poses) == 1 and len(link_names) <= 1:
        return (_target(poses[0], link_names[0] if link_names else '',
                        'ik_request.pose_stamped_vector[0]'),)
    if len(poses) != len(link_names):
        raise RequestError(ErrorCode.INVALID_LINK_NAME,
                           f'ik_request: {len(poses)} poses in pose_stamped_vector for '
                           f'{len(link_names)} ik_link_names {link_names}')
    twice = sorted({n for n in link_names if link_names.count(n) > 1})
    if twice:
        raise RequestError(ErrorCode.INVALID_LINK_NAME,
                           f"ik_request.ik_link_names: link '{twice[0]}' is given twice")
    return tuple(_target(pose, link, f'ik_request.pose_stamped_vector[{k}]')
                 for k, (pose, link) in enumerate(zip(poses, link_names)))


def _constraint_count(constraints: Any) -> int:
    return sum(len(getattr(constraints, name)) for name in
               ('joint_constraints', 'position_constraints', 'orientation_constraints',
                'visibility_constraints'))


def ik_request_from_msg(msg: Any) -> IKServiceRequest:
    """
    Read a GetPositionIK request (or its ``ik_request`` PositionIKRequest).

    :raises RequestError: INVALID_ROBOT_STATE when ``robot_state.joint_state`` has mismatched
        name/position arrays; INVALID_GOAL_CONSTRAINTS for a NaN/inf pose or zero
        quaternion (naming the field); INVALID_LINK_NAME when ``ik_link_names`` does not match
        ``pose_stamped_vector`` or names a link twice.
    """
    req = getattr(msg, 'ik_request', msg)
    seed = robot_state_from_msg(req.robot_state, 'ik_request.robot_state')
    targets = _targets(req)
    timeout = msg_to_seconds(req.timeout)
    return IKServiceRequest(group_name=str(req.group_name), targets=targets,
                            seed_names=seed.names, seed_positions=seed.positions,
                            timeout=timeout if timeout > 0.0 else None,
                            avoid_collisions=bool(req.avoid_collisions),
                            constraints=_constraint_count(req.constraints),
                            multi_dof_names=seed.multi_dof_names)


@dataclass(frozen=True)
class FKServiceRequest:
    """
    A validated GetPositionFK request.

    :ivar frame_id: frame of the answers (``header.frame_id``; "" for the model's root).
    :ivar link_names: ``fk_link_names``.
    :ivar seed: the joints of ``robot_state``.
    """

    frame_id: str
    link_names: List[str]
    seed: RobotStateSeed


@dataclass(frozen=True)
class FKServiceReply:
    """
    What the FK service answers.

    :ivar poses: one (4, 4) pose per entry of ``link_names``, in ``frame_id``.
    """

    code: ErrorCode
    message: str = ''
    frame_id: str = ''
    link_names: List[str] = field(default_factory=list)
    poses: List[NDArray[np.float64]] = field(default_factory=list)


def fk_request_from_msg(msg: Any) -> FKServiceRequest:
    """
    Read a GetPositionFK request.

    :raises RequestError: INVALID_ROBOT_STATE for mismatched ``robot_state.joint_state`` arrays.
    """
    return FKServiceRequest(str(msg.header.frame_id), [str(n) for n in msg.fk_link_names],
                            robot_state_from_msg(msg.robot_state, 'robot_state'))


def fk_response(types: MessageTypes, reply: FKServiceReply, stamp: Stamp = 0.0) -> Any:
    """Build a GetPositionFK response: one PoseStamped per answered link, stamped ``stamp``."""
    return types.GetPositionFK_Response(
        pose_stamped=[pose_stamped(types, pose, reply.frame_id, stamp) for pose in reply.poses],
        fk_link_names=list(reply.link_names),
        error_code=error_code_msg(types, reply.code, reply.message))


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
