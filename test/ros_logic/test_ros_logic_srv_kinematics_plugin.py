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
~/compute_ik as MoveIt's SrvKinematicsPlugin calls it: single-tip and multi-tip requests.

Each request is built field by field as the plugin builds it (:mod:`moveit_support`), serialized
to CDR with the public moveit_msgs definitions (Humble and Jazzy), parsed, answered by
:class:`~pdls_ik.ros_logic.ik_service.IKService`, the response serialized and read back as the
plugin reads it; the tips are then placed by Pinocchio's forward kinematics of the reply.
"""
import re

from moveit_support import example_robot_data, full_state, plugin_request, plugin_solution
from msgs_support import default_msg, roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.model.srdf import load_srdf, SRDFError
from pdls_ik.msgs.moveit import ErrorCode, ik_request_from_msg, ik_response, RequestError
from pdls_ik.resources import bundled_srdf, bundled_urdf
from pdls_ik.ros_logic.collision_setup import build_model
from pdls_ik.ros_logic.ik_service import COLLISIONS_CHECKED, IKService
from pdls_ik.ros_logic.robot import build_robot
import pytest

POS_TOL, ORI_TOL = 1e-5, 1e-4
Q_PANDA = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.02])


def _robot(urdf_text, tip, srdf_path=None, **changes):
    """
    Return the node's robot and SRDF.

    The node's timeout (the plugin sends none) is generous, so that the answer to a reachable
    goal does not depend on the machine's load (a solve returns as soon as it succeeds).
    """
    robot = build_robot(urdf_text, IKConfig(tip_link=tip, timeout=1.0).replace(**changes))
    return robot, (load_srdf(srdf_path) if srdf_path else None)


def _ask(ts, types, service, msg, q_now):
    request = ik_request_from_msg(roundtrip(ts, msg))
    reply = service.compute(request, lambda: q_now.copy())
    return request, reply, roundtrip(ts, ik_response(types, reply))


def _pin_q(robot, state):
    """Our q (n,) from a name -> value state."""
    return np.array([state[name] for name in robot.joint_names])


def _rotation_error(a, b):
    cos = (np.trace(a[:3, :3].T @ b[:3, :3]) - 1.0) / 2.0
    return float(np.arccos(np.clip(cos, -1.0, 1.0)))


def _check_tips(bridge, robot, state, tips, goals_in_root):
    q = _pin_q(robot, state)
    assert np.all(q >= robot.linkage.lower - 1e-12) and np.all(q <= robot.linkage.upper + 1e-12)
    for tip, goal in zip(tips, goals_in_root):
        reached = bridge.pose(q, tip)
        assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= POS_TOL, tip
        assert _rotation_error(reached, goal) <= ORI_TOL, tip


def test_panda_single_tip_as_the_plugin_sends_it(store, pinocchio_bridge):  # noqa: F811
    ts, types = store
    urdf = bundled_urdf('panda').read_text()
    robot, srdf = _robot(urdf, 'panda_link8', bundled_srdf('panda'))
    service = IKService(robot, srdf)
    group = service.groups.get('panda_arm')
    assert (group.base_link, group.tip_link) == ('panda_link0', 'panda_link8')
    linkage = robot.linkage
    goal = linkage.forward_kinematics(Q_PANDA, 'panda_link8', 'panda_link0')
    seed_q = robot.default_q()
    seed_q[7] = 0.035                       # the fingers (not in the group) somewhere else
    seed = full_state(linkage, seed_q)
    assert 'panda_finger_joint2' in seed    # MoveIt sends the mimic joint too
    msg = plugin_request(ts, types, default_msg, 'panda_arm', group.base_link, [group.tip_link],
                         [goal], seed, service.groups.model_frame)
    assert service.groups.model_frame == 'world'   # the SRDF's virtual joint
    request, reply, response = _ask(ts, types, service, msg, robot.default_q())
    assert request.timeout is None              # never set by the plugin: the node's timeout
    assert request.avoid_collisions and request.constraints == 0
    assert reply.code == ErrorCode.SUCCESS, reply.message
    assert COLLISIONS_CHECKED in reply.message
    state = plugin_solution(response, seed, group.variable_names)
    bridge = pinocchio_bridge(urdf, linkage)
    _check_tips(bridge, robot, state, ['panda_link8'], [bridge.pose(Q_PANDA, 'panda_link8')])
    assert state['panda_finger_joint1'] == 0.035 and state['panda_finger_joint2'] == 0.035


def test_bimanual_two_tips_solved_together(store, pinocchio_bridge):  # noqa: F811
    ts, types = store
    urdf = bundled_urdf('bimanual').read_text()
    robot, srdf = _robot(urdf, 'r_tool', bundled_srdf('bimanual'))
    service = IKService(robot, srdf)
    group = service.groups.get('both_arms')
    assert group.base_link == 'torso' and 'torso_yaw' not in group.variable_names
    linkage = robot.linkage
    bridge = pinocchio_bridge(urdf, linkage)
    rng = np.random.default_rng(7)
    tips = ['l_tool', 'r_tool']
    for _ in range(4):
        q_goal = robot.default_q()
        q_goal[group.variables] = rng.uniform(np.maximum(linkage.lower, -np.pi),
                                              np.minimum(linkage.upper, np.pi))[group.variables]
        q_goal[0] = 0.3     # the torso, outside the group, is where the seed has it
        seed_q = robot.default_q()
        seed_q[0] = 0.3
        seed = full_state(linkage, seed_q)
        goals = [linkage.forward_kinematics(q_goal, tip, 'torso') for tip in tips]
        msg = plugin_request(ts, types, default_msg, 'both_arms', group.base_link, tips, goals,
                             seed, service.groups.model_frame)
        assert msg.ik_request.pose_stamped.header.frame_id == ''   # left empty by the plugin
        request, reply, response = _ask(ts, types, service, msg, robot.default_q())
        assert [t.link for t in request.targets] == tips
        assert reply.code == ErrorCode.SUCCESS, reply.message
        state = plugin_solution(response, seed, group.variable_names)
        assert state['torso_yaw'] == 0.3
        _check_tips(bridge, robot, state, tips, [bridge.pose(q_goal, tip) for tip in tips])


@pytest.mark.parametrize('group_name, tips, base, size', [
    ('all_arms_torso', ['wrist_left_ft_tool_link', 'wrist_right_ft_tool_link'], 'base_link', 16),
    ('r_arm', ['wrist_right_ft_tool_link'], 'torso_2_link', 7),   # one tip: the chain solver
])
def test_talos_hands(store, pinocchio_bridge, group_name, tips, base, size):  # noqa: F811
    """Talos (example-robot-data): two hands and the torso together; one arm from the torso."""
    ts, types = store
    urdf_path = example_robot_data('talos_data/robots/talos_full_v2.urdf')
    urdf = urdf_path.read_text()
    robot, srdf = _robot(urdf, 'wrist_right_ft_tool_link',
                         example_robot_data('talos_data/srdf/talos.srdf'))
    service = IKService(robot, srdf)
    group = service.groups.get(group_name)
    assert len(group.variable_names) == size and group.base_link == base
    assert group.tip_link == tips[-1]           # the tip MoveIt gives the plugin
    linkage = robot.linkage
    half_sitting, skipped = srdf.state_positions(linkage, srdf.group_state('half_sitting'),
                                                 robot.default_q())
    assert skipped == ['root_joint']    # Pinocchio's free flyer: not a URDF joint
    knee = linkage.joint_index('leg_left_4_joint')      # outside both groups
    half_sitting[knee] = 0.6
    # the goal: a collision-free configuration of the group (its capsules, fitted to the
    # meshes, 2 cm clear of d_min); the legs' capsules, which the group does not move, overlap
    moved = np.zeros(linkage.n, dtype=bool)
    moved[group.variables] = True
    model = build_model(linkage, robot.collision_settings, srdf).moved_by(moved)
    rng = np.random.default_rng(3)
    for _ in range(50):
        q_goal = half_sitting.copy()
        q_goal[group.variables] += rng.uniform(-0.3, 0.3, group.variables.size)
        q_goal = np.clip(q_goal, linkage.lower, linkage.upper)
        if model.distances(q_goal).distance.min() > robot.collision_settings.d_min + 0.02:
            break
    else:
        pytest.fail('no collision-free goal in 50 draws')
    goals = [linkage.forward_kinematics(q_goal, tip, base) for tip in tips]
    seed = full_state(linkage, half_sitting)
    msg = plugin_request(ts, types, default_msg, group_name, group.base_link, tips,
                         goals, seed, service.groups.model_frame)
    _, reply, response = _ask(ts, types, service, msg, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS, reply.message
    # avoid_collisions (the plugin always sets it): the self-collision level above the tips
    assert ('chain solver' if len(tips) == 1 else 'task solver, 2 level(s)') in reply.message
    assert COLLISIONS_CHECKED in reply.message and 'closest link pair' in reply.message
    state = plugin_solution(response, seed, group.variable_names)
    bridge = pinocchio_bridge(urdf, linkage)
    _check_tips(bridge, robot, state, tips, [bridge.pose(q_goal, tip) for tip in tips])
    legs = [j for j in robot.joint_names if j.startswith('leg_')]
    assert all(state[j] == seed[j] for j in legs)      # outside the group: untouched


def test_unknown_group_is_invalid_group_name(store):  # noqa: F811
    ts, types = store
    robot, srdf = _robot(bundled_urdf('panda').read_text(), 'panda_link8', bundled_srdf('panda'))
    goal = robot.linkage.forward_kinematics(Q_PANDA, 'panda_link8')
    seed = full_state(robot.linkage, robot.default_q())
    for service, group in ((IKService(robot, srdf), 'no_such_group'),
                           (IKService(robot), 'panda_arm')):   # no SRDF: the chain only
        msg = plugin_request(ts, types, default_msg, group, 'panda_link0', ['panda_link8'],
                             [goal], seed, 'panda_link0')
        _, reply, response = _ask(ts, types, service, msg, robot.default_q())
        assert reply.code == ErrorCode.INVALID_GROUP_NAME and response.error_code.val == -15
        assert f"group_name '{group}'" in reply.message
        assert list(response.solution.joint_state.name) == []
    msg = plugin_request(ts, types, default_msg, '', 'panda_link0', ['panda_link8'], [goal],
                         seed, 'panda_link0')
    _, reply, _ = _ask(ts, types, IKService(robot), msg, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS, reply.message


def test_seed_outside_limits_is_clamped_and_said(store):  # noqa: F811
    ts, types = store
    robot, srdf = _robot(bundled_urdf('panda').read_text(), 'panda_link8', bundled_srdf('panda'))
    service = IKService(robot, srdf)
    goal = robot.linkage.forward_kinematics(Q_PANDA, 'panda_link8')
    seed_q = robot.default_q()
    seed_q[3] = 0.5                      # panda_joint4 upper limit: -0.0698
    seed_q[7] = 0.07                     # a finger, outside the group, beyond its 0.04
    seed = full_state(robot.linkage, seed_q)
    msg = plugin_request(ts, types, default_msg, 'panda_arm', 'panda_link0', ['panda_link8'],
                         [goal], seed, 'world')
    _, reply, response = _ask(ts, types, service, msg, robot.default_q())
    assert reply.code == ErrorCode.SUCCESS, reply.message
    assert 'seed outside the joint limits, clamped: panda_joint4 0.5 -> -0.0698' in reply.message
    state = plugin_solution(response, seed, ['panda_joint4'])
    assert robot.linkage.lower[3] <= state['panda_joint4'] <= robot.linkage.upper[3]
    assert state['panda_finger_joint1'] == 0.07           # not in the group: as given


@pytest.mark.parametrize('link, code, text', [
    ('no_such_link', ErrorCode.INVALID_LINK_NAME, "ik_link_name: link 'no_such_link'"),
    ('panda_link0', ErrorCode.INVALID_LINK_NAME, 'not moved by the joints of group '
                                                 "'panda_arm'"),
])
def test_tip_outside_the_group(store, link, code, text):  # noqa: F811
    ts, types = store
    robot, srdf = _robot(bundled_urdf('panda').read_text(), 'panda_link8', bundled_srdf('panda'))
    seed = full_state(robot.linkage, robot.default_q())
    msg = plugin_request(ts, types, default_msg, 'panda_arm', 'panda_link0', [link],
                         [np.eye(4)], seed, 'world')
    _, reply, _ = _ask(ts, types, IKService(robot, srdf), msg, robot.default_q())
    assert reply.code == code and text in reply.message


def test_mismatched_tip_lists_refused(store):  # noqa: F811
    ts, types = store
    robot, srdf = _robot(bundled_urdf('bimanual').read_text(), 'r_tool',
                         bundled_srdf('bimanual'))
    seed = full_state(robot.linkage, robot.default_q())
    msg = plugin_request(ts, types, default_msg, 'both_arms', 'torso', ['l_tool', 'r_tool'],
                         [np.eye(4), np.eye(4)], seed, 'base_link')
    msg.ik_request.ik_link_names = ['l_tool']
    reply = None
    with pytest.raises(RequestError, match='2 poses in pose_stamped_vector for 1') as info:
        reply = ik_request_from_msg(roundtrip(ts, msg))
    assert reply is None and info.value.code == ErrorCode.INVALID_LINK_NAME


def _task_errors(message):
    return {name: float(value) for name, value in
            re.findall(r'(pose:\w+) ([0-9.e+-]+)', message)}


def test_tip_priorities_rank_conflicting_hands(store):  # noqa: F811
    """
    Two hand goals that cannot both be met: on one level both miss; ranked, the first is met.

    The right goal is out of reach (2 m ahead); MoveIt answers such a request NO_IK_SOLUTION,
    and so does the service, but the reply's message gives each tip's error. One local solve
    (no random restarts) answers NO_IK_SOLUTION; with restarts, which run until the timeout for
    a goal out of reach, the answer is TIMED_OUT on any machine (it had followed the best
    attempt's own status, so a loaded machine's clock could turn one code into the other).
    """
    ts, types = store
    robot, srdf = _robot(bundled_urdf('bimanual').read_text(), 'r_tool',
                         bundled_srdf('bimanual'), position_only=True, timeout=30.0,
                         random_restarts=False)
    linkage = robot.linkage
    q = robot.default_q()
    left = linkage.forward_kinematics(q, 'l_tool', 'torso')
    right = linkage.forward_kinematics(q, 'r_tool', 'torso')
    right[:3, 3] += [2.0, 0.0, 0.0]
    seed = full_state(linkage, q)
    msg = plugin_request(ts, types, default_msg, 'upper_body', 'base_link',
                         ['l_tool', 'r_tool'], [left, right], seed, 'base_link')
    msg.ik_request.pose_stamped_vector[0].header.frame_id = 'torso'
    msg.ik_request.pose_stamped_vector[1].header.frame_id = 'torso'
    errors = {}
    for label, priorities in (('same level', None), ('left first', {'l_tool': 0, 'r_tool': 1})):
        _, reply, _ = _ask(ts, types, IKService(robot, srdf, tip_priorities=priorities), msg, q)
        assert reply.code == ErrorCode.NO_IK_SOLUTION, reply.message
        assert f'task solver, {1 if priorities is None else 2} level(s)' in reply.message
        errors[label] = _task_errors(reply.message)
    assert errors['left first']['pose:l_tool'] <= 1e-5
    assert errors['same level']['pose:l_tool'] > 1e-3        # a compromise between the hands
    assert errors['left first']['pose:r_tool'] > 1.0
    robot, _ = _robot(bundled_urdf('bimanual').read_text(), 'r_tool', position_only=True,
                      timeout=0.05)
    ranked = IKService(robot, srdf, tip_priorities={'l_tool': 0, 'r_tool': 1})
    _, reply, _ = _ask(ts, types, ranked, msg, q)
    assert reply.code == ErrorCode.TIMED_OUT and '(max_time' in reply.message, reply.message


def test_posture_state_is_the_posture_target(store):  # noqa: F811
    """
    posture_state 'panda_arm/ready': the SRDF state is the preferred posture of the solve.

    It is the lowest priority (null space of the tips): it acts while the solve iterates, so a
    seed that already meets the goal comes back unchanged.
    """
    ts, types = store
    robot, srdf = _robot(bundled_urdf('panda').read_text(), 'panda_link8', bundled_srdf('panda'))
    service = IKService(robot, srdf, posture_state='panda_arm/ready')
    ready = [float(v[0]) for v in srdf.group_state('ready', 'panda_arm').values.values()]
    np.testing.assert_array_equal(service.posture[:7], ready)
    assert service.posture[7] == robot.default_q()[7]     # not in the state: mid-limits
    goal = robot.linkage.forward_kinematics(Q_PANDA, 'panda_link8')
    for seed_q in (robot.default_q(), Q_PANDA):
        seed = full_state(robot.linkage, seed_q)
        msg = plugin_request(ts, types, default_msg, 'panda_arm', 'panda_link0',
                             ['panda_link8'], [goal], seed, 'world')
        _, reply, _ = _ask(ts, types, service, msg, robot.default_q())
        assert reply.code == ErrorCode.SUCCESS, reply.message
        reached = robot.linkage.forward_kinematics(reply.positions, 'panda_link8')
        assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= POS_TOL
    np.testing.assert_array_equal(reply.positions, Q_PANDA)
    with pytest.raises(SRDFError, match="group_state 'nowhere': unknown"):
        IKService(robot, srdf, posture_state='nowhere')


def test_constraints_said_not_applied(store):  # noqa: F811
    """The plugin never sets constraints; a client that does is told they were not applied."""
    ts, types = store
    robot, srdf = _robot(bundled_urdf('panda').read_text(), 'panda_link8', bundled_srdf('panda'))
    goal = robot.linkage.forward_kinematics(Q_PANDA, 'panda_link8')
    msg = plugin_request(ts, types, default_msg, 'panda_arm', 'panda_link0', ['panda_link8'],
                         [goal], full_state(robot.linkage, robot.default_q()), 'world')
    msg.ik_request.constraints.joint_constraints = [
        default_msg(ts, 'moveit_msgs/msg/JointConstraint')]
    request, reply, _ = _ask(ts, types, IKService(robot, srdf), msg, robot.default_q())
    assert request.constraints == 1 and reply.code == ErrorCode.SUCCESS
    assert 'ik_request.constraints not applied (1 constraints)' in reply.message
