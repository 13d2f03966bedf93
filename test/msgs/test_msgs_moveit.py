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
GetPositionIK request/response against the public moveit_msgs definitions (Humble, Jazzy).

The request is built as a client would (every field at its zero value, then the fields of an IK
query set), serialized to CDR, read back and parsed; the response is built from a plain reply,
serialized and read back.
"""
import math

from msgs_support import default_msg, roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.msgs.geometry import pose_stamped
from pdls_ik.msgs.joint_state import joint_state
from pdls_ik.msgs.moveit import (ErrorCode, ik_request_from_msg, ik_response, IKServiceReply,
                                 RequestError, SOURCE)
from pdls_ik.msgs.stamps import duration_msg
import pytest

REQUEST = 'moveit_msgs/srv/GetPositionIK_Request'


def _request(ts, types, **changes):
    msg = default_msg(ts, REQUEST)
    req = msg.ik_request
    req.group_name = 'panda_arm'
    req.ik_link_name = 'panda_link8'
    req.pose_stamped = pose_stamped(types, ([0.4, 0.1, 0.5], [1.0, 0.0, 0.0, 0.0]),
                                    'panda_link0', 2.0)
    req.robot_state.joint_state = joint_state(types, ['panda_joint1', 'panda_joint2'],
                                              [0.1, -0.3])
    req.timeout = duration_msg(types, 0.05)
    for key, value in changes.items():
        setattr(req, key, value)
    return roundtrip(ts, msg)


def test_error_codes_match_moveit_definition(store):  # noqa: F811
    ts, _ = store
    cls = ts.types['moveit_msgs/msg/MoveItErrorCodes']
    for code in ErrorCode:
        assert getattr(cls, code.name) == code.value, code.name
    assert (ErrorCode.SUCCESS, ErrorCode.NO_IK_SOLUTION, ErrorCode.INVALID_LINK_NAME,
            ErrorCode.FRAME_TRANSFORM_FAILURE, ErrorCode.TIMED_OUT,
            ErrorCode.INVALID_ROBOT_STATE) == (1, -31, -18, -21, -6, -17)


def test_parse_request(store):  # noqa: F811
    ts, types = store
    req = ik_request_from_msg(_request(ts, types, avoid_collisions=True))
    assert req.group_name == 'panda_arm' and req.ik_link_name == 'panda_link8'
    assert req.target.frame_id == 'panda_link0' and req.target.stamp_ns == 2_000_000_000
    np.testing.assert_array_equal(req.target.position, [0.4, 0.1, 0.5])
    np.testing.assert_array_equal(req.target.quaternion, [1.0, 0.0, 0.0, 0.0])
    assert req.seed_names == ['panda_joint1', 'panda_joint2']
    np.testing.assert_array_equal(req.seed_positions, [0.1, -0.3])
    assert req.timeout == 0.05 and req.avoid_collisions is True


def test_zero_timeout_means_default_and_empty_seed(store):  # noqa: F811
    ts, types = store
    req = ik_request_from_msg(_request(ts, types, timeout=duration_msg(types, 0.0),
                                       robot_state=default_msg(ts, 'moveit_msgs/msg/RobotState')))
    assert req.timeout is None and req.seed_names == [] and len(req.seed_positions) == 0
    assert req.avoid_collisions is False


def test_single_entry_vectors_accepted(store):  # noqa: F811
    ts, types = store
    target = pose_stamped(types, ([0.3, 0.0, 0.4], [0.0, 0.0, 0.0, 1.0]), '', 0.0)
    req = ik_request_from_msg(_request(ts, types, ik_link_names=['panda_hand'],
                                       pose_stamped_vector=[target]))
    assert req.ik_link_name == 'panda_hand'
    np.testing.assert_array_equal(req.target.position, [0.3, 0.0, 0.4])


def test_several_links_read_in_order(store):  # noqa: F811
    ts, types = store
    left = pose_stamped(types, ([0.3, 0.2, 0.4], [0.0, 0.0, 0.0, 1.0]), 'torso')
    right = pose_stamped(types, ([0.3, -0.2, 0.4], [0.0, 0.0, 0.0, 1.0]), 'torso')
    req = ik_request_from_msg(_request(ts, types, ik_link_names=['l_tool', 'r_tool'],
                                       pose_stamped_vector=[left, right]))
    assert [t.link for t in req.targets] == ['l_tool', 'r_tool']
    assert [t.field for t in req.targets] == ['ik_request.pose_stamped_vector[0]',
                                              'ik_request.pose_stamped_vector[1]']
    np.testing.assert_array_equal(req.targets[1].pose.position, [0.3, -0.2, 0.4])
    assert req.targets[1].pose.frame_id == 'torso'


@pytest.mark.parametrize('links, text', [(['a'], '2 poses in pose_stamped_vector for 1'),
                                         (['a', 'a'], "link 'a' is given twice")])
def test_bad_link_lists_refused(store, links, text):  # noqa: F811
    ts, types = store
    target = pose_stamped(types, ([0.3, 0.0, 0.4], [0.0, 0.0, 0.0, 1.0]))
    with pytest.raises(RequestError, match=text) as info:
        ik_request_from_msg(_request(ts, types, ik_link_names=links,
                                     pose_stamped_vector=[target, target]))
    assert info.value.code == ErrorCode.INVALID_LINK_NAME


def test_bad_pose_and_bad_robot_state_codes(store):  # noqa: F811
    ts, types = store
    msg = _request(ts, types)
    msg.ik_request.pose_stamped.pose.position.y = math.nan
    with pytest.raises(RequestError, match=r'pose_stamped\.pose\.position\.y') as info:
        ik_request_from_msg(msg)
    assert info.value.code == ErrorCode.INVALID_GOAL_CONSTRAINTS
    msg = _request(ts, types)
    msg.ik_request.robot_state.joint_state.position = np.array([0.1])
    with pytest.raises(RequestError, match=r'joint_state\.position: 1 values for 2') as info:
        ik_request_from_msg(msg)
    assert info.value.code == ErrorCode.INVALID_ROBOT_STATE


@pytest.mark.parametrize('code', [ErrorCode.SUCCESS, ErrorCode.NO_IK_SOLUTION])
def test_response_roundtrip(store, code):  # noqa: F811
    ts, types = store
    reply = IKServiceReply(code, 'avoid_collisions is not supported', ['j1', 'j2'],
                           np.array([0.5, -1.25]))
    msg = roundtrip(ts, ik_response(types, reply, stamp=3.0))
    assert msg.__msgtype__ == 'moveit_msgs/srv/GetPositionIK_Response'
    assert msg.error_code.val == int(code)
    js = msg.solution.joint_state
    assert js.name == ['j1', 'j2']
    np.testing.assert_array_equal(js.position, [0.5, -1.25])
    assert (js.header.stamp.sec, js.header.stamp.nanosec) == (3, 0)
    assert msg.solution.multi_dof_joint_state.joint_names == []
    assert msg.solution.attached_collision_objects == [] and msg.solution.is_diff is False
    if hasattr(msg.error_code, 'message'):  # moveit_msgs >= 2.4 (Jazzy)
        assert msg.error_code.message == 'avoid_collisions is not supported'
        assert msg.error_code.source == SOURCE
