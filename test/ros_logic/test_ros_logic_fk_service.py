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

"""~/compute_fk answers (GetPositionFK through CDR, Humble and Jazzy) against Pinocchio."""
from moveit_support import full_state
from msgs_support import default_msg, roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.model.srdf import load_srdf
from pdls_ik.msgs import joint_state
from pdls_ik.msgs.moveit import ErrorCode, fk_request_from_msg, fk_response
from pdls_ik.resources import bundled_srdf, bundled_urdf
from pdls_ik.ros_logic.fk_service import compute_fk
from pdls_ik.ros_logic.groups import Groups
from pdls_ik.ros_logic.robot import build_robot
from scipy.spatial.transform import Rotation

Q = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.03])
LINKS = ['panda_link3', 'panda_link8', 'panda_hand_tcp', 'panda_rightfinger']


def _groups(srdf=True):
    urdf = bundled_urdf('panda').read_text()
    robot = build_robot(urdf, IKConfig(tip_link='panda_link8'))
    return urdf, Groups(robot, load_srdf(bundled_srdf('panda')) if srdf else None)


def _ask(ts, types, groups, frame, links, state):
    msg = default_msg(ts, 'moveit_msgs/srv/GetPositionFK_Request')
    msg.header.frame_id = frame
    msg.fk_link_names = list(links)
    msg.robot_state.joint_state = joint_state(types, list(state), list(state.values()))
    request = fk_request_from_msg(roundtrip(ts, msg))
    reply = compute_fk(groups, request, groups.robot.default_q)
    return reply, roundtrip(ts, fk_response(types, reply, stamp=4.0))


def _matrix(pose):
    T = np.eye(4)
    T[:3, 3] = [pose.position.x, pose.position.y, pose.position.z]
    q = pose.orientation
    T[:3, :3] = Rotation.from_quat([q.x, q.y, q.z, q.w]).as_matrix()
    return T


def test_poses_match_pinocchio_in_the_model_frame(store, pinocchio_bridge):  # noqa: F811
    ts, types = store
    urdf, groups = _groups()
    bridge = pinocchio_bridge(urdf, groups.robot.linkage)
    reply, msg = _ask(ts, types, groups, '', LINKS, full_state(groups.robot.linkage, Q))
    assert reply.code == ErrorCode.SUCCESS and msg.error_code.val == 1
    assert list(msg.fk_link_names) == LINKS
    for link, stamped in zip(LINKS, msg.pose_stamped):
        assert stamped.header.frame_id == 'world'       # the SRDF's model frame
        assert (stamped.header.stamp.sec, stamped.header.stamp.nanosec) == (4, 0)
        np.testing.assert_allclose(_matrix(stamped.pose), bridge.pose(Q, link), atol=1e-12)


def test_poses_in_a_link_frame(store, pinocchio_bridge):  # noqa: F811
    ts, types = store
    urdf, groups = _groups(srdf=False)
    bridge = pinocchio_bridge(urdf, groups.robot.linkage)
    reply, msg = _ask(ts, types, groups, 'panda_link4', LINKS,
                      full_state(groups.robot.linkage, Q))
    assert reply.code == ErrorCode.SUCCESS
    base = np.linalg.inv(bridge.pose(Q, 'panda_link4'))
    for link, stamped in zip(LINKS, msg.pose_stamped):
        assert stamped.header.frame_id == 'panda_link4'
        np.testing.assert_allclose(_matrix(stamped.pose), base @ bridge.pose(Q, link),
                                   atol=1e-12)


def test_partial_state_uses_the_current_one(store, pinocchio_bridge):  # noqa: F811
    ts, types = store
    urdf, groups = _groups()
    bridge = pinocchio_bridge(urdf, groups.robot.linkage)
    reply, msg = _ask(ts, types, groups, 'world', ['panda_link8'], {'panda_joint2': -0.3})
    q = groups.robot.default_q()
    q[1] = -0.3
    np.testing.assert_allclose(_matrix(msg.pose_stamped[0].pose), bridge.pose(q, 'panda_link8'),
                               atol=1e-12)


def test_errors(store):  # noqa: F811
    ts, types = store
    _, groups = _groups()
    state = full_state(groups.robot.linkage, Q)
    reply, msg = _ask(ts, types, groups, '', [], state)
    assert reply.code == ErrorCode.INVALID_LINK_NAME and 'no link given' in reply.message
    reply, msg = _ask(ts, types, groups, '', ['panda_link8', 'nowhere'], state)
    assert reply.code == ErrorCode.INVALID_LINK_NAME and reply.message == (
        "fk_link_names: unknown link(s) nowhere (robot 'panda'; nowhere: closest names "
        'panda_rightfinger, panda_leftfinger, panda_hand; the tips of its tree: '
        'panda_hand_tcp, panda_leftfinger, panda_rightfinger)')
    assert list(msg.fk_link_names) == ['panda_link8'] and len(msg.pose_stamped) == 1
    reply, _ = _ask(ts, types, groups, 'map', ['panda_link8'], state)
    assert reply.code == ErrorCode.FRAME_TRANSFORM_FAILURE and "'map'" in reply.message
    reply, _ = _ask(ts, types, groups, '', ['panda_link8'], {'panda_joint1': float('nan')})
    assert reply.code == ErrorCode.INVALID_ROBOT_STATE and 'panda_joint1' in reply.message
