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

"""~/compute_ik answers: request messages (CDR, Humble and Jazzy) -> solve -> response messages."""
import math

from msgs_support import default_msg, roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.msgs import duration_msg, joint_state, pose_stamped
from pdls_ik.msgs.moveit import ErrorCode, ik_request_from_msg, ik_response
from pdls_ik.ros_logic.ik_service import AVOID_COLLISIONS_UNSUPPORTED, IKService
import pytest
from ros_support import panda_robot, reachable_goal

Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])


def _request(ts, types, pose, frame='panda_link0', link='', seed=None, timeout=5.0,
             avoid_collisions=False):
    """
    Build a GetPositionIK request.

    The generous default timeout makes a reachable goal's answer independent of the machine's load
    (the solve returns as soon as it succeeds).
    """
    msg = default_msg(ts, 'moveit_msgs/srv/GetPositionIK_Request')
    req = msg.ik_request
    req.group_name, req.ik_link_name = '', link      # "": the configured chain (no SRDF)
    req.pose_stamped = pose_stamped(types, pose, frame)
    if seed is not None:
        req.robot_state.joint_state = joint_state(types, *seed)
    req.timeout = duration_msg(types, timeout)
    req.avoid_collisions = avoid_collisions
    return ik_request_from_msg(roundtrip(ts, msg))


def _answer(ts, types, service, request, q_now):
    reply = service.compute(request, lambda: q_now.copy())
    return reply, roundtrip(ts, ik_response(types, reply))


def test_success_solution_meets_goal(store):  # noqa: F811
    ts, types = store
    robot = panda_robot()
    service = IKService(robot)
    goal = reachable_goal(robot, Q_GOAL)
    request = _request(ts, types, goal, seed=(robot.joint_names[:7], Q_GOAL[:7] + 0.1))
    reply, msg = _answer(ts, types, service, request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS and msg.error_code.val == 1
    q = np.asarray(msg.solution.joint_state.position)
    assert msg.solution.joint_state.name == robot.joint_names
    reached = robot.linkage.forward_kinematics(q, robot.tip_link)
    assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= robot.config.position_tolerance
    assert np.all(q >= robot.linkage.lower) and np.all(q <= robot.linkage.upper)


def test_other_ik_link_and_link_frame(store):  # noqa: F811
    ts, types = store
    robot = panda_robot()
    q_now = robot.default_q()
    hand_in_link5 = robot.linkage.forward_kinematics(Q_GOAL, 'panda_hand', 'panda_link5')
    request = _request(ts, types, hand_in_link5, frame='panda_link5', link='panda_hand',
                       seed=(robot.joint_names, Q_GOAL))
    reply, _ = _answer(ts, types, IKService(robot), request, q_now)
    assert reply.code == ErrorCode.SUCCESS
    # the goal frame is placed with the request's seed state (Q_GOAL), as MoveIt does
    target = robot.linkage.forward_kinematics(Q_GOAL, 'panda_hand')
    reached = robot.linkage.forward_kinematics(reply.positions, 'panda_hand')
    np.testing.assert_allclose(reached[:3, 3], target[:3, 3], atol=1e-5)


@pytest.mark.parametrize('kwargs, code, text', [
    ({'link': 'no_such_link'}, ErrorCode.INVALID_LINK_NAME, 'no_such_link'),
    ({'frame': 'map'}, ErrorCode.FRAME_TRANSFORM_FAILURE, "'map': unknown goal frame"),
    ({'seed': (['panda_joint1'], [math.inf])}, ErrorCode.INVALID_ROBOT_STATE,
     "panda_joint1' is inf"),
])
def test_error_codes(store, kwargs, code, text):  # noqa: F811
    ts, types = store
    robot = panda_robot()
    request = _request(ts, types, reachable_goal(robot, Q_GOAL), **kwargs)
    reply, msg = _answer(ts, types, IKService(robot), request, robot.default_q())
    assert reply.code == code and msg.error_code.val == int(code)
    assert text in reply.message
    assert msg.solution.joint_state.name == [] and len(msg.solution.joint_state.position) == 0
    if hasattr(msg.error_code, 'message'):
        assert msg.error_code.message == reply.message


def test_unreachable_goal_no_solution(store):  # noqa: F811
    ts, types = store
    robot = panda_robot()
    far = np.eye(4)
    far[:3, 3] = [2.0, 0.0, 0.3]
    reply, msg = _answer(ts, types, IKService(robot), _request(ts, types, far, timeout=0.02),
                         robot.default_q())
    assert reply.code in (ErrorCode.NO_IK_SOLUTION, ErrorCode.TIMED_OUT)
    expected = ErrorCode.TIMED_OUT if 'max_time' in reply.message else ErrorCode.NO_IK_SOLUTION
    assert reply.code == expected and msg.error_code.val == int(expected)


def test_avoid_collisions_reported_not_ignored(store):  # noqa: F811
    ts, types = store
    robot = panda_robot()
    request = _request(ts, types, reachable_goal(robot, Q_GOAL), avoid_collisions=True)
    reply, msg = _answer(ts, types, IKService(robot), request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS
    assert AVOID_COLLISIONS_UNSUPPORTED in reply.message
    if hasattr(msg.error_code, 'message'):  # Jazzy's MoveItErrorCodes carries it
        assert AVOID_COLLISIONS_UNSUPPORTED in msg.error_code.message
