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
Typestores of the ROS 2 distributions the message tests run against (Humble and Jazzy).

moveit_msgs is not in rosbags' stores: its definitions (field lists of the public moveit_msgs
interfaces, branch noted in each file) live in test/data/moveit_msgs/ and are registered here;
MoveItErrorCodes differs between Humble and Jazzy (message and source fields since 2.4).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from pdls_ik.msgs import pose_msg
from pdls_ik.msgs.message_types import register_interfaces, rosbags_types
import pytest

MOVEIT = Path(__file__).parent / 'data' / 'moveit_msgs'
DISTROS = ('humble', 'jazzy')


def typestore(distro: str):
    """Return a fresh rosbags typestore of ``distro`` with moveit_msgs registered."""
    from rosbags.typesys import Stores, get_typestore
    store = get_typestore(Stores.ROS2_HUMBLE if distro == 'humble' else Stores.ROS2_JAZZY)
    return register_interfaces(store, MOVEIT / 'common', MOVEIT / distro)


@pytest.fixture(params=DISTROS)
def store(request):
    """(typestore, MessageTypes provider) of each ROS 2 distribution."""
    ts = typestore(request.param)
    return ts, rosbags_types(ts)


def roundtrip(ts, msg):
    """Serialize ``msg`` to CDR and read it back."""
    data = ts.serialize_cdr(msg, msg.__msgtype__)
    return ts.deserialize_cdr(data, msg.__msgtype__)


_NUMERIC = {'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
            'float32', 'float64', 'byte', 'char', 'octet'}


def default_msg(ts, typename: str):
    """Build a message of ``typename``, every field at its zero value (as a ROS client does)."""
    import numpy as np
    from rosbags.typesys.base import Nodetype

    def value(desc):
        kind, rest = desc
        if kind == Nodetype.BASE:
            base = rest[0]
            if base == 'string':
                return ''
            return False if base == 'bool' else (0.0 if base.startswith('float') else 0)
        if kind == Nodetype.NAME:
            return default_msg(ts, rest)
        inner, size = rest
        if inner[0] == Nodetype.BASE and inner[1][0] in _NUMERIC:
            dtype = np.float64 if inner[1][0].startswith('float') else np.uint8 \
                if inner[1][0] in ('uint8', 'byte', 'char', 'octet') else np.int64
            if inner[1][0] == 'bool':
                dtype = np.bool_
            return np.zeros(size if kind == Nodetype.ARRAY else 0, dtype=dtype)
        return [value(inner) for _ in range(size if kind == Nodetype.ARRAY else 0)]

    _, fields = ts.fielddefs[typename]
    return ts.types[typename](**{name: value(desc) for name, desc in fields})


def collision_object(ts, types, object_id='table', operation=0, frame='panda_link0',
                     pose=((0.5, 0.0, 0.2), (0, 0, 0, 1)), primitives=(), planes=()):
    """Build a CollisionObject: primitives ((type, dims, pose), ...), planes ((coef, pose),)."""
    msg = default_msg(ts, 'moveit_msgs/msg/CollisionObject')
    msg.id, msg.header.frame_id, msg.operation = object_id, frame, operation
    msg.pose = pose_msg(types, pose)
    shapes, poses = [], []
    for kind, dims, local in primitives:
        primitive = default_msg(ts, 'shape_msgs/msg/SolidPrimitive')
        primitive.type, primitive.dimensions = kind, np.array(dims, dtype=np.float64)
        shapes.append(primitive)
        poses.append(pose_msg(types, local))
    msg.primitives, msg.primitive_poses = shapes, poses
    plane_msgs, plane_poses = [], []
    for coef, local in planes:
        plane = default_msg(ts, 'shape_msgs/msg/Plane')
        plane.coef = np.array(coef, dtype=np.float64)
        plane_msgs.append(plane)
        plane_poses.append(pose_msg(types, local))
    msg.planes, msg.plane_poses = plane_msgs, plane_poses
    return roundtrip(ts, msg)
