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
moveit_msgs/msg/CollisionObject -> :class:`ParsedCollisionObject` (either back end).

Field meanings as in moveit_msgs (Humble and Jazzy): ``header.frame_id`` is the frame of
``pose``, the object's pose; each primitive, mesh and plane pose is relative to the object's
pose. ``shape_msgs/SolidPrimitive`` dimensions: BOX [x, y, z], SPHERE [radius], CYLINDER and
CONE [height, radius] (constants of the message); ``shape_msgs/Plane`` coefficients
[a, b, c, d] of a x + b y + c z + d = 0 (free side along (a, b, c), as MoveIt's planes).
A pose whose quaternion is all zeros (a message left at its defaults) is taken as the identity
rotation, as MoveIt's planning scene does. ``operation``: ADD (0) replaces an object of the
same id, REMOVE (1) deletes it (an empty id: every object), APPEND (2) adds shapes to it, MOVE
(3) moves it to the new ``pose``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.msgs.geometry import pose_from_msg
from pdls_ik.msgs.message_types import byte_value

#: CollisionObject.operation values
OPERATIONS = {0: 'add', 1: 'remove', 2: 'append', 3: 'move'}
#: SolidPrimitive.type values -> shape kind and number of dimensions
PRIMITIVES = {1: ('box', 3), 2: ('sphere', 1), 3: ('cylinder', 2), 4: ('cone', 2)}


@dataclass(frozen=True, eq=False)
class ParsedShape:
    """
    One shape of a collision object.

    :ivar kind: "box", "sphere", "cylinder", "cone" or "plane".
    :ivar dimensions: as in SolidPrimitive (box x, y, z; sphere radius; cylinder and cone
        height, radius) [m]; a plane's (a, b, c, d).
    :ivar pose: (4, 4) in the object's frame.
    """

    kind: str
    dimensions: Tuple[float, ...]
    pose: NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class ParsedCollisionObject:
    """
    A CollisionObject message.

    :ivar object_id: the message's ``id``, the object's name; frame_id: the frame of ``pose``.
    :ivar operation: "add", "remove", "append" or "move".
    :ivar pose: (4, 4) the object's pose in ``frame_id``.
    :ivar shapes: its primitives and planes; meshes: how many meshes it has (not read).
    """

    object_id: str
    frame_id: str
    operation: str
    pose: NDArray[np.float64]
    shapes: Tuple[ParsedShape, ...] = ()
    meshes: int = 0


def _floats(values: Any, label: str) -> Tuple[float, ...]:
    out = tuple(float(v) for v in values)
    for i, v in enumerate(out):
        if not np.isfinite(v):
            raise InputError(f'{label}[{i}]: must be finite, got {v}')
    return out


def _pose(msg: Any, label: str) -> NDArray[np.float64]:
    """(4, 4) of a geometry_msgs/Pose; an all-zero quaternion is the identity rotation."""
    o = msg.orientation
    if all(float(getattr(o, k)) == 0.0 for k in 'xyzw'):
        out = np.eye(4)
        out[:3, 3] = [float(getattr(msg.position, k)) for k in 'xyz']
        if not np.isfinite(out).all():
            raise InputError(f'{label}.position: must be finite, got {list(out[:3, 3])}')
        return out
    return pose_from_msg(msg, label).matrix()


def _poses(msg: Any, name: str, count: int, field: str):
    poses = list(getattr(msg, name))
    if count and len(poses) != count:
        raise InputError(f'{field}.{name}: {len(poses)} poses for {count} shapes (one each)')
    return [_pose(p, f'{field}.{name}[{i}]') for i, p in enumerate(poses)]


def collision_object_from_msg(msg: Any, field: str = 'collision_object'
                              ) -> ParsedCollisionObject:
    """
    Parse a moveit_msgs/msg/CollisionObject (module docstring).

    :raises InputError: unknown operation or primitive type, wrong number of dimensions, a
        non-finite or negative size, a pose list that does not match its shapes, a bad pose
        (each naming the field, e.g. ``collision_object.primitives[1].dimensions``).
    """
    operation = OPERATIONS.get(byte_value(msg.operation))
    if operation is None:
        raise InputError(f'{field}.operation: {byte_value(msg.operation)} is not ADD, REMOVE, '
                         'APPEND or MOVE')
    pose = _pose(msg.pose, f'{field}.pose')
    shapes = []
    if operation in ('add', 'append'):
        primitives = list(msg.primitives)
        poses = _poses(msg, 'primitive_poses', len(primitives), field)
        for i, (primitive, local) in enumerate(zip(primitives, poses)):
            label = f'{field}.primitives[{i}]'
            kind, count = PRIMITIVES.get(int(primitive.type), (None, 0))
            if kind is None:
                raise InputError(f'{label}.type: {int(primitive.type)} is not BOX, SPHERE, '
                                 'CYLINDER or CONE')
            dims = _floats(primitive.dimensions, f'{label}.dimensions')
            if len(dims) < count or any(v < 0.0 for v in dims[:count]):
                raise InputError(f'{label}.dimensions: a {kind} needs {count} values >= 0 [m], '
                                 f'got {list(dims)}')
            shapes.append(ParsedShape(kind, dims[:count], local))
        planes = list(msg.planes)
        poses = _poses(msg, 'plane_poses', len(planes), field)
        for i, (plane, local) in enumerate(zip(planes, poses)):
            coef = _floats(plane.coef, f'{field}.planes[{i}].coef')
            if np.linalg.norm(coef[:3]) < 1e-12:
                raise InputError(f'{field}.planes[{i}].coef: the normal (a, b, c) is zero')
            shapes.append(ParsedShape('plane', coef, local))
    return ParsedCollisionObject(str(msg.id), str(msg.header.frame_id), operation, pose,
                                 tuple(shapes), len(list(msg.meshes)))
