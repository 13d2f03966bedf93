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
The node's environment obstacles from moveit_msgs/CollisionObject messages, without ROS.

:class:`CollisionScene` applies each parsed message (:mod:`pdls_ik.msgs.collision_object`) to an
:class:`~pdls_ik.model.obstacles.ObstacleSet` that the solvers' obstacle rows read
(:class:`~pdls_ik.tasks.ObstacleTask`, on the self-collision level): ADD, REMOVE, APPEND and MOVE
as MoveIt's planning scene applies them. The object's frame is placed in the robot's root
frame once, when the message arrives (a link of the robot at the current joint state, the
SRDF's model frame or "": the root); the obstacle then stays fixed there. Shapes become
obstacles that contain them: boxes, spheres and planes as they are, a cylinder or a cone the
capsule around it (radius, height); meshes are not read (said in the report).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.model.obstacles import Obstacle, ObstacleSet, plane_obstacle
from pdls_ik.msgs.collision_object import ParsedCollisionObject, ParsedShape

Array = NDArray[np.float64]


@dataclass
class _Object:
    pose: Array                       # (4, 4) object frame in the root frame
    shapes: Tuple[ParsedShape, ...]


def shape_obstacle(name: str, shape: ParsedShape, T: Array) -> Obstacle:
    """Return the obstacle containing ``shape`` whose frame is at T (4, 4) in the root frame."""
    if shape.kind == 'plane':
        a, b, c, d = shape.dimensions[:4]
        n = np.array([a, b, c])
        point = T[:3, :3] @ (-d * n / (n @ n)) + T[:3, 3]
        normal = T[:3, :3] @ n
        return plane_obstacle(name, normal, float(normal @ point))
    if shape.kind == 'box':
        return Obstacle(name, 'box', T, shape.dimensions)
    if shape.kind == 'sphere':
        return Obstacle(name, 'sphere', T, shape.dimensions)
    height, radius = shape.dimensions                 # cylinder, cone: the capsule around it
    return Obstacle(name, 'capsule', T, (radius, height))


class CollisionScene:
    """
    Collision objects by id, kept as obstacles in ``obstacles`` (module docstring).

    :param obstacles: the set the solvers read (a new one by default).
    """

    def __init__(self, obstacles: ObstacleSet = None):
        self.obstacles = obstacles if obstacles is not None else ObstacleSet()
        self._objects: Dict[str, _Object] = {}

    def _publish(self, name: str) -> None:
        obj = self._objects[name]
        self.obstacles.put(name, [shape_obstacle(f'{name}[{i}]', s, obj.pose @ s.pose)
                                  for i, s in enumerate(obj.shapes)])

    def apply(self, msg: ParsedCollisionObject, frame_pose: Callable[[str], Array]) -> str:
        """
        Apply one message; return a readable line of what changed.

        :param frame_pose: (4, 4) of a frame id in the root frame; raises LinkError (or
            InputError) for an unknown frame.
        :raises InputError: an object id that REMOVE, APPEND or MOVE does not know, an empty id
            for ADD, APPEND or MOVE; ``frame_pose``'s errors. Nothing is changed then.
        """
        if msg.operation == 'remove':
            if not msg.object_id:
                count = len(self._objects)
                self._objects.clear()
                self.obstacles.clear()
                return f'removed every collision object ({count})'
            if msg.object_id not in self._objects:
                raise InputError(f"collision_object.id: '{msg.object_id}' is not a known object "
                                 f"(known: {', '.join(self._objects) or 'none'})")
            del self._objects[msg.object_id]
            self.obstacles.remove(msg.object_id)
            return f"removed collision object '{msg.object_id}'"
        if not msg.object_id:
            raise InputError(f'collision_object.id: empty ({msg.operation.upper()} needs the '
                             "object's name)")
        if msg.operation != 'add' and msg.object_id not in self._objects:
            raise InputError(f"collision_object.id: '{msg.object_id}' is not a known object "
                             f'({msg.operation.upper()} needs an ADD first)')
        T = frame_pose(msg.frame_id) @ msg.pose
        if msg.operation == 'move':
            self._objects[msg.object_id].pose = T
        elif msg.operation == 'append':
            old = self._objects[msg.object_id]
            # new shapes are given relative to the message's object pose: kept in the old frame
            moved = tuple(ParsedShape(s.kind, s.dimensions, np.linalg.inv(old.pose) @ T @ s.pose)
                          for s in msg.shapes)
            old.shapes = old.shapes + moved
        else:
            self._objects[msg.object_id] = _Object(T, msg.shapes)
        self._publish(msg.object_id)
        count = len(self._objects[msg.object_id].shapes)
        line = (f"collision object '{msg.object_id}' ({msg.operation}): {count} shape(s) in "
                f"'{msg.frame_id or 'root'}'")
        if msg.meshes:
            line += f'; {msg.meshes} mesh(es) not read (boxes, spheres, cylinders, cones, planes)'
        return line

    def summary(self) -> str:
        """Return one line: the objects and their obstacle count."""
        names: List[str] = self.obstacles.names()
        if not names:
            return 'no collision objects'
        listed = ', '.join(names)
        return f'{len(self.obstacles.snapshot())} obstacles from {len(names)} collision ' \
               f'objects: {listed}'
