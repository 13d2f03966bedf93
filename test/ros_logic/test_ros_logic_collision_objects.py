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

"""CollisionObject messages -> the node's obstacles -> avoid_collisions answers and tracking."""
from msgs_support import collision_object, default_msg, roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.errors import InputError, LinkError
from pdls_ik.model.obstacles import capsule_distances
from pdls_ik.msgs import duration_msg, pose_stamped
from pdls_ik.msgs.collision_object import collision_object_from_msg
from pdls_ik.msgs.moveit import ErrorCode, ik_request_from_msg
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.collision_objects import CollisionScene
from pdls_ik.ros_logic.collision_setup import CollisionSettings
from pdls_ik.ros_logic.ik_service import IKService
from pdls_ik.ros_logic.robot import build_robot
from pdls_ik.ros_logic.tracker import Tracker
import pytest

IDENTITY = ((0, 0, 0), (0, 0, 0, 1))
TABLE = [(1, [0.4, 0.8, 0.04], IDENTITY)]


def _root(frame):
    if frame not in ('', 'panda_link0', 'world'):
        raise LinkError(frame, 'unknown frame')
    return np.eye(4)


def _parse(ts, types, **kwargs):
    return collision_object_from_msg(collision_object(ts, types, **kwargs))


def test_add_append_move_remove(store):  # noqa: F811
    ts, types = store
    scene = CollisionScene()
    line = scene.apply(_parse(ts, types, primitives=TABLE), _root)
    assert line == "collision object 'table' (add): 1 shape(s) in 'panda_link0'"
    (box,) = scene.obstacles.snapshot()
    assert box.kind == 'box' and box.name == 'table[0]' and box.size == (0.4, 0.8, 0.04)
    np.testing.assert_allclose(box.pose[:3, 3], [0.5, 0.0, 0.2])
    # APPEND: a cylinder leg 0.2 below the object's pose, kept with the table
    scene.apply(_parse(ts, types, operation=2, primitives=[
        (3, [0.2, 0.02], ((0.1, 0.3, -0.1), (0, 0, 0, 1)))]), _root)
    leg = scene.obstacles.snapshot()[1]
    assert leg.kind == 'capsule' and leg.size == (0.02, 0.2)
    np.testing.assert_allclose(leg.pose[:3, 3], [0.6, 0.3, 0.1])
    # MOVE: the whole object, shapes with it
    scene.apply(_parse(ts, types, operation=3, pose=((0.5, 0.0, 0.3), (0, 0, 0, 1))), _root)
    np.testing.assert_allclose([o.pose[2, 3] for o in scene.obstacles.snapshot()], [0.3, 0.2])
    scene.apply(_parse(ts, types, object_id='floor', planes=[([0, 0, 1, 0], IDENTITY)],
                       pose=IDENTITY), _root)
    floor = scene.obstacles.snapshot()[-1]
    d, _, _ = capsule_distances(np.array([[0, 0, 0.5]]), np.array([[0, 0, 0.5]]),
                                np.array([0.1]), floor)
    assert floor.kind == 'plane' and d[0] == pytest.approx(0.4)
    assert scene.summary() == '3 obstacles from 2 collision objects: table, floor'
    assert scene.apply(_parse(ts, types, operation=1), _root) == \
        "removed collision object 'table'"
    assert scene.apply(_parse(ts, types, object_id='', operation=1), _root) == \
        'removed every collision object (1)'
    assert scene.obstacles.snapshot() == ()


@pytest.mark.parametrize('kwargs, error, fragment', [
    ({'operation': 1, 'object_id': 'ghost'}, InputError, "'ghost' is not a known object"),
    ({'operation': 3, 'object_id': 'ghost'}, InputError, 'MOVE needs an ADD first'),
    ({'object_id': ''}, InputError, 'collision_object.id: empty (ADD'),
    ({'frame': 'map', 'primitives': TABLE}, LinkError, 'map'),
])
def test_bad_operations_change_nothing(store, kwargs, error, fragment):  # noqa: F811
    ts, types = store
    scene = CollisionScene()
    with pytest.raises(error) as err:
        scene.apply(_parse(ts, types, **kwargs), _root)
    assert fragment in str(err.value) and scene.obstacles.snapshot() == ()


def _ik_request(ts, types, xyz, avoid):
    msg = default_msg(ts, 'moveit_msgs/srv/GetPositionIK_Request')
    pose = np.eye(4)
    pose[:3, 3] = xyz
    msg.ik_request.pose_stamped = pose_stamped(types, pose, 'panda_link0')
    msg.ik_request.timeout = duration_msg(types, 1.0)
    msg.ik_request.avoid_collisions = avoid
    return ik_request_from_msg(roundtrip(ts, msg))


def test_obstacles_in_avoid_collisions_answers_and_tracking(store):  # noqa: F811
    ts, types = store
    scene = CollisionScene()
    robot = build_robot(bundled_urdf('panda').read_text(),
                        IKConfig(tip_link='panda_link8', position_only=True),
                        CollisionSettings(enabled=True), obstacles=scene.obstacles)
    scene.apply(_parse(ts, types, primitives=TABLE), _root)   # top face at z = 0.22
    service = IKService(robot)
    inside = _ik_request(ts, types, (0.5, 0.0, 0.2), avoid=True)
    reply = service.compute(inside, robot.default_q)
    assert reply.code in (ErrorCode.NO_IK_SOLUTION, ErrorCode.TIMED_OUT)
    assert "obstacle 'table[0]'" in reply.message and '(d_min 0.01 m)' in reply.message
    reply = service.compute(_ik_request(ts, types, (0.5, 0.0, 0.2), avoid=False),
                            robot.default_q)
    assert reply.code == ErrorCode.SUCCESS              # no collision level: into the table
    above = service.compute(_ik_request(ts, types, (0.45, 0.1, 0.40), avoid=True),
                            robot.default_q)
    assert above.code == ErrorCode.SUCCESS and "nearest obstacle 'table[0]'" in above.message
    # tracking: the level's obstacle rows read the same set
    tracker = Tracker(robot)
    assert [t.name for t in tracker._solver.extra_tasks] == ['self_collision', 'obstacles']
    assert tracker._solver.extra_tasks[1].obstacles is scene.obstacles
