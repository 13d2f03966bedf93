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
controller.launch.py with the real joint_trajectory_controller on mock hardware (launch_pytest).

A reachable goal, then the figure-eight as a 100 Hz goal stream for 7 s: the controller's
reference (``controller_state``) follows the node's stream on the goal path, and its velocity
never jumps by more than acceleration limit × period between control cycles but in cycles whose
message arrived later than the node's lookahead (a loaded machine: at most 2 %).

Needs a sourced ROS 2 with launch_pytest, ros2_control (controller_manager, mock hardware),
joint_state_broadcaster, joint_trajectory_controller and robot_state_publisher, and this package
installed by colcon; skipped with a reason elsewhere.
"""
import threading
import time

import numpy as np
import pytest
from ros_support import launch_test_missing

CONTROLLER_PACKAGES = ('controller_manager', 'joint_state_broadcaster',
                       'joint_trajectory_controller', 'robot_state_publisher')


def _skip_reason():
    """Why this test cannot run here, or None (never raises, never skips at import)."""
    missing = launch_test_missing(('control_msgs.msg',), 'a ROS 2 setup with ros2_control')
    if missing:
        return missing
    from pdls_ik.ros_logic.launch_setup import ament_has_package
    missing = [p for p in ('pdls_ik',) + CONTROLLER_PACKAGES if not ament_has_package(p)]
    if missing:
        return f"not installed in the sourced ROS 2: {', '.join(missing)}"
    return None


SKIP_REASON = _skip_reason()

if SKIP_REASON is not None:
    @pytest.mark.skip(reason=SKIP_REASON)
    def test_controller_launch_skipped():
        """Stand-in for the controller launch test (skipped, with the reason)."""
else:
    import launch_pytest
    import rclpy

    from ament_index_python.packages import get_package_share_directory  # noqa: I100
    from control_msgs.msg import JointTrajectoryControllerState
    from diagnostic_msgs.msg import DiagnosticArray
    from geometry_msgs.msg import PoseStamped
    import launch
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from pdls_ik.cli.demo_path import default_path
    from pdls_ik.model import load_urdf
    from pdls_ik.msgs import pose_stamped, rclpy_types, status_values
    from pdls_ik.resources import bundled_urdf
    from pdls_ik.trajectory import acceleration_limits

    SHARE = get_package_share_directory('pdls_ik')
    Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])
    STARTUP_WAIT, SOLVE_WAIT = 300.0, 60.0

    @launch_pytest.fixture
    def controller():
        """controller.launch.py (stamped stream, default lookahead)."""
        include = launch.actions.IncludeLaunchDescription(
            PythonLaunchDescriptionSource(f'{SHARE}/launch/controller.launch.py'))
        return launch.LaunchDescription([include, launch_pytest.actions.ReadyToTest()])

    @pytest.mark.launch(fixture=controller)
    def test_stream_through_the_controller():
        context = rclpy.Context()
        rclpy.init(context=context)
        node = rclpy.create_node('pdls_ik_controller_probe', context=context)
        got = {'state': [], 'diagnostics': []}
        lock = threading.Lock()

        def store(key):
            def callback(msg):
                with lock:
                    got[key].append((time.monotonic(), msg))
            return callback

        node.create_subscription(JointTrajectoryControllerState,
                                 '/panda_arm_controller/controller_state', store('state'), 1000)
        node.create_subscription(DiagnosticArray, '/diagnostics', store('diagnostics'), 100)
        publisher = node.create_publisher(PoseStamped, '/goal_pose', 10)
        executor = rclpy.executors.SingleThreadedExecutor(context=context)
        executor.add_node(node)
        threading.Thread(target=executor.spin, daemon=True).start()
        types = rclpy_types()
        linkage = load_urdf(bundled_urdf('panda'))

        def solver(after, accept):
            with lock:
                return any(t > after and s.name.endswith(': solver') and accept(s)
                           for t, a in got['diagnostics'] for s in a.status)

        def reached(after):
            return solver(after, lambda s: status_values(s).get('goal') == 'reached')

        def wait(condition, timeout):
            end = time.monotonic() + timeout
            while not condition() and time.monotonic() < end:
                time.sleep(0.05)
            return condition()

        try:
            assert wait(lambda: publisher.get_subscription_count() >= 1 and got['state'] and
                        solver(-1.0, lambda s: s.message.startswith('ready')), STARTUP_WAIT)
            start = time.monotonic()
            publisher.publish(pose_stamped(types, linkage.forward_kinematics(
                Q_GOAL, 'panda_link8'), 'panda_link0'))
            assert wait(lambda: reached(start), STARTUP_WAIT), 'the first goal was not reached'
            path, _ = default_path(linkage, 'panda_link8', 'panda_link0', 5.0, 'panda')
            goals, t0 = [], time.monotonic()
            for k in range(1, 701):  # the figure-eight at 100 Hz for 7 s
                position, quat = path.pose(k * 0.01)
                publisher.publish(pose_stamped(types, (position, quat), 'panda_link0'))
                goals.append(position)
                time.sleep(max(0.0, t0 + k * 0.01 - time.monotonic()))
            t1 = time.monotonic()
            assert wait(lambda: reached(t1), SOLVE_WAIT), 'the last goal was not reached'
            with lock:
                states = [m for t, m in got['state'] if t0 + 3.0 <= t <= t1]
            stamps = np.array([m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec
                               for m in states])
            velocity = np.array([m.reference.velocities for m in states])
            amax = acceleration_limits(linkage.velocity_limits, 0.0)[:7]
            jump = np.max(np.abs(np.diff(velocity, axis=0)) /
                          (amax * np.diff(stamps)[:, None]), axis=1)
            assert np.max(np.abs(velocity) / linkage.velocity_limits[:7]) > 0.1  # it moves
            assert np.mean(jump > 1.001) <= 0.02, np.sort(jump)[-10:]
            # the reference tip on the goal stream's path (its polyline) within 1 mm
            goals = np.array(goals)
            for state in states:
                tip = linkage.forward_kinematics(np.r_[state.reference.positions, 0.0],
                                                 'panda_link8')[:3, 3]
                d = goals[1:] - goals[:-1]
                s = np.clip(np.einsum('ij,ij->i', tip - goals[:-1], d) /
                            np.maximum(np.einsum('ij,ij->i', d, d), 1e-18), 0.0, 1.0)
                gap = np.min(np.linalg.norm(goals[:-1] + s[:, None] * d - tip, axis=1))
                assert gap <= 1e-3, gap
        finally:
            executor.shutdown()
            node.destroy_node()
            rclpy.shutdown(context=context)
