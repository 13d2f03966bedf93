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
from pdls_ik._accel import available as numba_available, numba_problem
from pdls_ik.config import IKConfig
from pdls_ik.model.collision import collision_model
from pdls_ik.model.obstacles import Obstacle, ObstacleSet
from pdls_ik.model.srdf import load_srdf
from pdls_ik.msgs import duration_msg, joint_state, pose_stamped
from pdls_ik.msgs.moveit import ErrorCode, ik_request_from_msg, ik_response
from pdls_ik.resources import bundled_srdf, bundled_urdf
from pdls_ik.ros_logic.collision_setup import CollisionSettings
from pdls_ik.ros_logic.ik_service import COLLISIONS_CHECKED, IKService
from pdls_ik.ros_logic.robot import build_robot
import pytest
from ros_support import panda_robot, reachable_goal

Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])


def _request(ts, types, pose, frame='panda_link0', link='', seed=None, timeout=5.0,
             avoid_collisions=False, group=''):
    """
    Build a GetPositionIK request.

    The generous default timeout makes a reachable goal's answer independent of the machine's load
    (the solve returns as soon as it succeeds).
    """
    msg = default_msg(ts, 'moveit_msgs/srv/GetPositionIK_Request')
    req = msg.ik_request
    req.group_name, req.ik_link_name = group, link      # "": no group named
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
    ({'link': 'no_such_link'}, ErrorCode.INVALID_LINK_NAME,
     "link 'no_such_link': unknown link (not found in robot 'panda'; closest names: "
     'panda_link8, panda_link7, panda_link6; the tips of its tree: panda_hand_tcp, '
     'panda_leftfinger, panda_rightfinger)'),
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


def test_avoid_collisions_solves_collision_free(store):  # noqa: F811
    ts, types = store
    robot = panda_robot()
    request = _request(ts, types, reachable_goal(robot, Q_GOAL), avoid_collisions=True)
    reply, msg = _answer(ts, types, IKService(robot), request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS, reply.message
    assert COLLISIONS_CHECKED in reply.message and 'closest link pair' in reply.message
    if hasattr(msg.error_code, 'message'):  # Jazzy's MoveItErrorCodes carries it
        assert COLLISIONS_CHECKED in msg.error_code.message
    # independent check: the bundled Panda's capsules, every pair at least d_min apart
    model = collision_model(robot.linkage)
    assert model.distances(np.asarray(reply.positions)).distance.min() >= 0.01 - 1e-6


#: a hand position beside the base column: reached only through the robot's own links
INSIDE = np.array([0.1, 0.0, 0.15])


def test_avoid_collisions_true_refuses_what_false_returns(store):  # noqa: F811
    ts, types = store
    robot = panda_robot(position_only=True)
    model = collision_model(robot.linkage)
    goal = np.eye(4)
    goal[:3, 3] = INSIDE
    service = IKService(robot)
    free_reply, _ = _answer(ts, types, service, _request(ts, types, goal, timeout=0.5),
                            robot.default_q())
    # avoid_collisions false: no collision level, an answer in collision
    assert free_reply.code == ErrorCode.SUCCESS and COLLISIONS_CHECKED not in free_reply.message
    assert model.distances(np.asarray(free_reply.positions)).distance.min() < 0.0
    reply, msg = _answer(ts, types, service, _request(ts, types, goal, timeout=0.5,
                                                      avoid_collisions=True),
                         robot.default_q())
    # the goal lies inside the body: no collision-free solution within the time (TIMED_OUT, as
    # for any goal the solver ran out of time on), the closest pair of the best try named
    expected = ErrorCode.TIMED_OUT if 'max_time' in reply.message else ErrorCode.NO_IK_SOLUTION
    assert reply.code == expected and msg.error_code.val == int(expected)
    assert 'best configuration: closest link pair panda_' in reply.message
    assert '(d_min 0.01 m)' in reply.message


def test_avoid_collisions_uses_the_node_parameters(store):  # noqa: F811
    ts, types = store
    config = IKConfig(tip_link='panda_link8')
    robot = build_robot(bundled_urdf('panda').read_text(), config,
                        CollisionSettings(enabled=True, d_min=0.05))
    assert robot.collision is not None
    request = _request(ts, types, reachable_goal(robot, Q_GOAL), avoid_collisions=True)
    reply, _ = _answer(ts, types, IKService(robot), request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS, reply.message
    assert '(d_min 0.05 m)' in reply.message
    assert robot.collision.distances(np.asarray(reply.positions)).distance.min() >= 0.05 - 1e-6


def test_avoid_collisions_without_collision_geometry(store):  # noqa: F811
    ts, types = store
    robot = build_robot(bundled_urdf('ur5').read_text(), IKConfig(tip_link='ee_link'))
    goal = robot.linkage.forward_kinematics(np.array([0.3, -1.2, 1.4, -1.0, 1.2, 0.4]),
                                            'ee_link')
    request = _request(ts, types, goal, frame='base_link', avoid_collisions=True)
    reply, _ = _answer(ts, types, IKService(robot), request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS, reply.message
    assert "avoid_collisions: nothing to check (parameter 'collision_model'" in reply.message
    assert 'no usable <collision> geometry' in reply.message


# ---------------------------------------------- no group named: any link is a tip (issue 29)
#: left-arm joint values of the bimanual robot whose left tool pose is the goal
Q_LEFT = {'l_shoulder_pan': 0.5, 'l_shoulder_lift': -0.6, 'l_elbow': -0.9, 'l_wrist_roll': 0.3}
#: right-arm joint values sent in the request's robot state (held: not on the left chain)
Q_RIGHT = {'r_shoulder_pan': -0.4, 'r_shoulder_lift': 0.2, 'r_elbow': -0.7, 'r_wrist_roll': -0.1}


def _bimanual(base_link, srdf=False):
    """Return the bimanual robot configured for the right tool (and its SRDF or None)."""
    robot = build_robot(bundled_urdf('bimanual').read_text(),
                        IKConfig(base_link=base_link, tip_link='r_tool'))
    return robot, (load_srdf(bundled_srdf('bimanual')) if srdf else None)


def _positions(robot, values):
    q = robot.default_q()
    for name, value in values.items():
        q[robot.joint_names.index(name)] = value
    return q


@pytest.mark.parametrize('base_link, srdf', [('torso', False), ('base_link', False),
                                             ('torso', True)])
def test_no_group_solves_a_tip_on_another_branch(store, base_link, srdf):  # noqa: F811
    ts, types = store
    robot, semantic = _bimanual(base_link, srdf)
    goal = robot.linkage.forward_kinematics(_positions(robot, Q_LEFT), 'l_tool', base_link)
    seed_q = _positions(robot, Q_RIGHT)
    request = _request(ts, types, goal, frame=base_link, link='l_tool',
                       seed=(robot.joint_names, seed_q))
    reply, msg = _answer(ts, types, IKService(robot, semantic), request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS and msg.error_code.val == 1, reply.message
    q = np.asarray(msg.solution.joint_state.position)
    reached = robot.linkage.forward_kinematics(q, 'l_tool', base_link)
    assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= robot.config.position_tolerance
    rotation = reached[:3, :3].T @ goal[:3, :3]
    angle = math.acos(np.clip((np.trace(rotation) - 1.0) / 2.0, -1.0, 1.0))
    assert angle <= robot.config.orientation_tolerance
    # the chain from the base to the left tool moved; the right arm is as the request gave it
    moved = [name for name, a, b in zip(robot.joint_names, q, seed_q) if a != b]
    chain = set(Q_LEFT) | ({'torso_yaw'} if base_link == 'base_link' else set())
    assert set(moved) <= chain and moved
    for name in Q_RIGHT:
        assert q[robot.joint_names.index(name)] == Q_RIGHT[name]


def test_a_named_group_still_refuses_a_tip_it_does_not_move(store):  # noqa: F811
    ts, types = store
    robot, srdf = _bimanual('torso', srdf=True)
    goal = robot.linkage.forward_kinematics(_positions(robot, Q_LEFT), 'l_tool', 'torso')
    request = _request(ts, types, goal, frame='torso', link='l_tool', group='right_arm')
    reply, msg = _answer(ts, types, IKService(robot, srdf), request, robot.default_q())
    assert reply.code == ErrorCode.INVALID_LINK_NAME and msg.error_code.val == -18
    assert reply.message == ("ik_request.ik_link_name: link 'l_tool' is not moved by the joints "
                             "of group 'right_arm' (r_shoulder_pan, r_shoulder_lift, r_elbow, "
                             'r_wrist_roll)')


def test_no_group_refuses_a_tip_no_joint_moves(store):  # noqa: F811
    ts, types = store
    robot, _ = _bimanual('torso')
    request = _request(ts, types, np.eye(4), frame='torso', link='torso')
    reply, _ = _answer(ts, types, IKService(robot), request, robot.default_q())
    assert reply.code == ErrorCode.INVALID_LINK_NAME
    assert reply.message == ("ik_request.ik_link_name: link 'torso' is not moved by any joint "
                             "relative to the base link 'torso'")


def test_c13_tip_on_the_other_arm_solves_its_chain(store, case_dir):  # noqa: F811
    """C13: a node configured torso -> r_hand answers a request for l_hand (position only)."""
    ts, types = store
    config = IKConfig(base_link='torso', tip_link='r_hand', position_only=True)
    robot = build_robot((case_dir('C13') / 'twin_arms.urdf').read_text(), config)
    goal = np.eye(4)
    goal[:3, 3] = [0.0, 0.5, 0.0]      # shoulder at y = 0.2, hand 0.3 m out: l_shoulder = pi/2
    request = _request(ts, types, goal, frame='torso', link='l_hand',
                       seed=(['r_shoulder'], [0.3]))
    reply, _ = _answer(ts, types, IKService(robot), request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS, reply.message
    q = dict(zip(reply.joint_names, reply.positions))
    assert abs(q['l_shoulder'] - math.pi / 2) <= 1e-4 and q['r_shoulder'] == 0.3


@pytest.mark.skipif(not numba_available(), reason=f'{numba_problem()}: no compiled kernel')
def test_avoid_collisions_runs_compiled_while_the_node_knows_no_obstacle(store):  # noqa: F811
    """
    The node's obstacle set, empty until a collision_object arrives, keeps the compiled kernels.

    The self-collision level alone is compiled; an obstacle level is solved by NumPy. An empty
    set had made every avoid_collisions request (all of SrvKinematicsPlugin's) take NumPy: 152
    of 200 random Panda goals at the node's 5 ms in the Humble lab, against 188 compiled.
    """
    ts, types = store
    obstacles = ObstacleSet()
    robot = build_robot(bundled_urdf('panda').read_text(), IKConfig(tip_link='panda_link8'),
                        obstacles=obstacles)
    service = IKService(robot)
    request = _request(ts, types, reachable_goal(robot, Q_GOAL), avoid_collisions=True)
    reply, _ = _answer(ts, types, service, request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS and 'chain solver, numba' in reply.message, \
        reply.message
    far = np.eye(4)
    far[:3, 3] = (2.0, 2.0, 2.0)
    obstacles.put('far', [Obstacle('far[0]', 'sphere', far, (0.1,))])
    reply, _ = _answer(ts, types, service, request, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS and 'chain solver, numpy' in reply.message, \
        reply.message
    assert 'far[0]' in reply.message
    obstacles.remove('far')
    reply, _ = _answer(ts, types, service, request, robot.default_q())
    assert 'chain solver, numba' in reply.message, reply.message
