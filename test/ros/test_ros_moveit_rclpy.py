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
pdls_ik_node's ~/compute_ik and ~/compute_fk over real ROS 2 services, as MoveIt calls them.

Needs a sourced ROS 2 with moveit_msgs; skipped with a reason elsewhere. The SRDF arrives on the
``robot_description_semantic`` topic (transient local, as MoveIt publishes it); a client sends
GetPositionIK requests built field by field as SrvKinematicsPlugin builds them (one tip, two
tips, whole-robot seed, ``avoid_collisions`` true, no timeout) and GetPositionFK requests. The
nodes run in a namespace of this process, on one MultiThreadedExecutor, as in ``main``.
"""
import os
import threading
import time

import numpy as np
import pytest

rclpy = pytest.importorskip(
    'rclpy', reason='rclpy not found: source a ROS 2 (Humble or newer) setup to run node tests')
moveit_srv = pytest.importorskip(
    'moveit_msgs.srv', reason='moveit_msgs not installed: ~/compute_ik is not offered')

from moveit_support import fill_plugin_request, full_state  # noqa: E402, I100
from pdls_ik import IKSolver, load_urdf  # noqa: E402
from pdls_ik.msgs import joint_state, rclpy_types  # noqa: E402
from pdls_ik.resources import bundled_srdf, bundled_urdf  # noqa: E402
from pdls_ik.ros.node import PDLSIKNode  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from std_msgs.msg import String  # noqa: E402

NAMESPACE = f'/pdls_ik_moveit_test_{os.getpid()}'
NODE = f'{NAMESPACE}/pdls_ik_node'
#: wait for an answer [s]: answers come in milliseconds; this only bounds a failure
ANSWER_WAIT = 30.0
Q_PANDA = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.02])
TOL = 1e-5


@pytest.fixture(scope='module', autouse=True)
def loaded_kernels():
    """
    Load (or compile, once per numba cache: 1–2 minutes) the kernels of the nodes' solvers.

    Before any node starts: a node compiles them while it loads its robot, and a cold cache held
    that load up beyond the wait of :func:`ros`'s ``start`` (seen on a fresh ``NUMBA_CACHE_DIR``).
    """
    IKSolver(load_urdf(bundled_urdf('panda')), 'panda_link8').warm_up()


@pytest.fixture
def ros():
    """(start a node on a robot with its SRDF on the topic, probe node), spun in a thread."""
    context = rclpy.Context()
    rclpy.init(context=context)
    executor = MultiThreadedExecutor(num_threads=4, context=context)
    probe = rclpy.create_node('pdls_ik_moveit_probe', namespace=NAMESPACE, context=context)
    executor.add_node(probe)
    nodes = []
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
    pub_srdf = probe.create_publisher(String, 'robot_description_semantic', latched)

    def start(robot, tip, **parameters):
        pub_srdf.publish(String(data=bundled_srdf(robot).read_text()))
        parameters = {'robot_description': bundled_urdf(robot).read_text(), 'tip_link': tip,
                      'timeout': 1.0, **parameters}
        node = PDLSIKNode(context=context, namespace=NAMESPACE,
                          parameter_overrides=[Parameter(k, value=v)
                                               for k, v in parameters.items()])
        nodes.append(node)
        executor.add_node(node)
        assert _wait(lambda: node.service is not None and node.service.groups.srdf is not None), \
            'robot not loaded or SRDF not received'
        assert node._loader.join(60.0), 'solver kernels still loading'
        return node

    stop = threading.Event()

    def spin():
        while not stop.is_set():
            executor.spin_once(timeout_sec=0.05)

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    yield start, probe
    stop.set()
    thread.join(timeout=5.0)
    executor.shutdown()
    for node in nodes + [probe]:
        node.destroy_node()
    rclpy.shutdown(context=context)


def _wait(predicate, timeout=ANSWER_WAIT):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def _call(client, request):
    future = client.call_async(request)
    assert _wait(future.done), f'no answer from {client.srv_name}'
    return future.result()


def _plugin_request(group, base_frame, tips, poses, seed, model_frame):
    """Build a GetPositionIK request as SrvKinematicsPlugin::searchPositionIK fills it."""
    return fill_plugin_request(moveit_srv.GetPositionIK.Request(), rclpy_types(), group,
                               base_frame, tips, poses, seed, model_frame)


def _solution(response, seed):
    state = dict(seed)
    state.update(zip(response.solution.joint_state.name, response.solution.joint_state.position))
    return state


def test_single_tip_and_unknown_group(ros):
    start, probe = ros
    node = start('panda', 'panda_link8')
    robot = node.service.groups.robot
    linkage = robot.linkage
    client = probe.create_client(moveit_srv.GetPositionIK, f'{NODE}/compute_ik')
    assert client.wait_for_service(timeout_sec=10.0)
    seed = full_state(linkage, robot.default_q())
    goal = linkage.forward_kinematics(Q_PANDA, 'panda_link8', 'panda_link0')
    request = _plugin_request('panda_arm', 'panda_link0', ['panda_link8'], [goal], seed, 'world')
    response = _call(client, request)
    assert response.error_code.val == response.error_code.SUCCESS
    if hasattr(response.error_code, 'message'):     # moveit_msgs >= 2.4 (Jazzy)
        assert "collisions checked: the robot's own links" in response.error_code.message
    state = _solution(response, seed)
    q = np.array([state[name] for name in linkage.joint_names])
    reached = linkage.forward_kinematics(q, 'panda_link8', 'panda_link0')
    assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= TOL
    # avoid_collisions (always true from the plugin): the answer keeps the links apart, the
    # SRDF's disable_collisions pairs left out
    model = node.tracker.robot.collision or node.service._collision_model()[0]
    assert 'srdf' in model.skipped.values()
    assert model.distances(q).distance.min() >= 0.01 - 1e-6
    request.ik_request.group_name = 'no_such_group'
    response = _call(client, request)
    assert response.error_code.val == response.error_code.INVALID_GROUP_NAME == -15
    assert list(response.solution.joint_state.name) == []


def test_two_tips_of_the_bimanual_robot(ros):
    start, probe = ros
    node = start('bimanual', 'r_tool')
    robot = node.service.groups.robot
    linkage = robot.linkage
    group = node.service.groups.get('both_arms')
    client = probe.create_client(moveit_srv.GetPositionIK, f'{NODE}/compute_ik')
    assert client.wait_for_service(timeout_sec=10.0)
    q_goal = robot.default_q()
    q_goal[group.variables] += 0.3
    tips = ['l_tool', 'r_tool']
    goals = [linkage.forward_kinematics(q_goal, tip, 'torso') for tip in tips]
    seed = full_state(linkage, robot.default_q())
    response = _call(client, _plugin_request('both_arms', 'torso', tips, goals, seed,
                                             'base_link'))
    assert response.error_code.val == response.error_code.SUCCESS
    state = _solution(response, seed)
    assert all(name in state for name in group.variable_names)
    q = np.array([state[name] for name in linkage.joint_names])
    for tip, goal in zip(tips, goals):
        reached = linkage.forward_kinematics(q, tip, 'torso')
        assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= TOL, tip


def test_compute_fk_and_a_concurrent_slow_ik(ros):
    """FK answers while a long IK request is in progress: the services are reentrant."""
    start, probe = ros
    node = start('panda', 'panda_link8', timeout=3.0)
    linkage = node.service.groups.robot.linkage
    fk = probe.create_client(moveit_srv.GetPositionFK, f'{NODE}/compute_fk')
    ik = probe.create_client(moveit_srv.GetPositionIK, f'{NODE}/compute_ik')
    assert fk.wait_for_service(timeout_sec=10.0) and ik.wait_for_service(timeout_sec=10.0)
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]          # out of reach: the solve uses its whole timeout
    seed = full_state(linkage, Q_PANDA)
    slow = ik.call_async(_plugin_request('panda_arm', 'panda_link0', ['panda_link8'], [far],
                                         seed, 'world'))
    request = moveit_srv.GetPositionFK.Request()
    request.header.frame_id = 'panda_link0'
    request.fk_link_names = ['panda_link8', 'panda_hand']
    request.robot_state.joint_state = joint_state(rclpy_types(), list(seed), list(seed.values()))
    future = fk.call_async(request)
    assert _wait(future.done), 'no FK answer'
    assert not slow.done(), 'the FK answer waited for the IK solve'
    response = future.result()
    assert response.error_code.val == response.error_code.SUCCESS
    assert list(response.fk_link_names) == ['panda_link8', 'panda_hand']
    for link, stamped in zip(response.fk_link_names, response.pose_stamped):
        expected = linkage.forward_kinematics(Q_PANDA, link, 'panda_link0')
        p = stamped.pose.position
        np.testing.assert_allclose([p.x, p.y, p.z], expected[:3, 3], atol=1e-12)
        assert stamped.header.frame_id == 'panda_link0'
    assert _wait(slow.done)
    assert slow.result().error_code.val in (-31, -6)   # NO_IK_SOLUTION or TIMED_OUT
