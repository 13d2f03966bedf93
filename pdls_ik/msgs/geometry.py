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
geometry_msgs Pose / PoseStamped: build from a pose, parse with validation.

Quaternions are in ROS order (x, y, z, w). A parsed orientation is normalized when its norm is
not 1 (and the fact is reported); a quaternion of norm below :data:`ZERO_QUATERNION_NORM` or any
NaN/inf component is an :class:`~pdls_ik.errors.InputError` naming the field.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, Tuple, Union

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.msgs.message_types import MessageTypes
from pdls_ik.msgs.stamps import header, msg_to_ns, Stamp
from scipy.spatial.transform import Rotation

#: quaternion norms below this are rejected as zero
ZERO_QUATERNION_NORM = 1e-6
#: |norm - 1| above this is reported as "normalized"
UNIT_TOLERANCE = 1e-9

#: a pose: (4, 4) homogeneous matrix, or (position (3,), quaternion xyzw (4,))
PoseLike = Union[NDArray[np.float64], Tuple[Sequence[float], Sequence[float]]]


@dataclass(frozen=True)
class ParsedPose:
    """
    A validated pose read from a message.

    :ivar frame_id: the header's frame ("" for a bare Pose).
    :ivar position: (3,) metres, in ``frame_id``.
    :ivar quaternion: (4,) unit quaternion x, y, z, w.
    :ivar stamp_ns: header stamp in nanoseconds (0 for a bare Pose).
    :ivar input_norm: norm of the quaternion as received (1.0 when it was unit).
    """

    frame_id: str
    position: NDArray[np.float64]
    quaternion: NDArray[np.float64]
    stamp_ns: int = 0
    input_norm: float = 1.0

    @property
    def normalized(self) -> bool:
        """Tell whether the received quaternion was not unit and has been normalized."""
        return abs(self.input_norm - 1.0) > UNIT_TOLERANCE

    def matrix(self) -> NDArray[np.float64]:
        """(4, 4) homogeneous transform of the pose, in ``frame_id``."""
        out = np.eye(4)
        out[:3, :3] = Rotation.from_quat(self.quaternion).as_matrix()
        out[:3, 3] = self.position
        return out


def position_quaternion(pose: PoseLike) -> Tuple[NDArray[np.float64], NDArray[np.float64]]:
    """
    Split a (4, 4) pose or a (position, quaternion) pair into (3,) and (4,) xyzw arrays.

    :raises InputError: wrong shapes.
    """
    if isinstance(pose, np.ndarray) and pose.shape == (4, 4):
        quat = Rotation.from_matrix(pose[:3, :3]).as_quat()
        return np.array(pose[:3, 3], dtype=float), quat
    try:
        position, quaternion = pose
        position = np.asarray(position, dtype=float).reshape(3)
        quaternion = np.asarray(quaternion, dtype=float).reshape(4)
    except (TypeError, ValueError) as exc:
        raise InputError(f'pose: expected a (4, 4) matrix or (position (3,), quaternion (4,)): '
                         f'{exc}') from None
    return position, quaternion


def pose_msg(types: MessageTypes, pose: PoseLike) -> Any:
    """geometry_msgs/Pose from a (4, 4) matrix or (position, quaternion xyzw)."""
    position, quaternion = position_quaternion(pose)
    x, y, z = (float(v) for v in position)
    qx, qy, qz, qw = (float(v) for v in quaternion)
    return types.Pose(position=types.Point(x=x, y=y, z=z),
                      orientation=types.Quaternion(x=qx, y=qy, z=qz, w=qw))


def pose_stamped(types: MessageTypes, pose: PoseLike, frame_id: str = '',
                 stamp: Stamp = 0.0) -> Any:
    """geometry_msgs/PoseStamped; ``stamp`` in seconds or a Time message."""
    return types.PoseStamped(header=header(types, stamp, frame_id), pose=pose_msg(types, pose))


def pose_from_msg(msg: Any, field: str = 'pose') -> ParsedPose:
    """
    Validate a PoseStamped or Pose message into a :class:`ParsedPose`.

    :param msg: geometry_msgs PoseStamped or Pose (either back end).
    :param field: name of the message in error texts (e.g. ``"goal_pose"``).

    :raises InputError: a NaN/inf component (naming it, e.g. ``goal_pose.pose.position.x``), or a
        zero quaternion.
    """
    frame_id, stamp_ns, pose, prefix = '', 0, msg, field
    if hasattr(msg, 'header'):
        frame_id, stamp_ns = str(msg.header.frame_id), msg_to_ns(msg.header.stamp)
        pose, prefix = msg.pose, f'{field}.pose'
    values = {}
    for part, names in (('position', 'xyz'), ('orientation', 'xyzw')):
        sub = getattr(pose, part)
        for name in names:
            value = float(getattr(sub, name))
            if not np.isfinite(value):
                raise InputError(f'{prefix}.{part}.{name}: must be finite, got {value}')
            values[part, name] = value
    position = np.array([values['position', n] for n in 'xyz'])
    quaternion = np.array([values['orientation', n] for n in 'xyzw'])
    norm = float(np.linalg.norm(quaternion))
    if norm < ZERO_QUATERNION_NORM:
        raise InputError(f'{prefix}.orientation: zero quaternion (norm {norm:.3g}) '
                         f'is not a rotation')
    return ParsedPose(frame_id, position, quaternion / norm, stamp_ns, norm)
