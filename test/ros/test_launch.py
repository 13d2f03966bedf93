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
The demo launch end to end (launch_pytest).

A goal in, a trajectory, solutions looped back to joint_states and diagnostics out; and the
one-line message for a missing package.

Needs a sourced ROS 2 (Humble or newer) with launch_pytest and this package installed by colcon
(``ros2 launch pdls_ik ...`` must find it); skipped with a reason elsewhere. rviz2 is never started
here (``use_rviz:=false``); robot_state_publisher only when installed.
"""
import importlib
from pathlib import Path
import shutil
import subprocess
import threading
import time

import numpy as np
import pytest

#: Jazzy's launch_pytest needs pytest < 8.4: on a newer pytest its plugin fails at collection
#: and, under launch_testing's plugin, takes every other module down with it
LAUNCH_PYTEST_MAX = (8, 4)


def _version(text):
    parts = []
    for part in text.split('.')[:2]:
        digits = ''.join(c for c in part if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _skip_reason():
    """Why the launch tests cannot run here, or None. Never raises, never skips at import."""
    if _version(pytest.__version__) >= LAUNCH_PYTEST_MAX:
        return (f'pytest {pytest.__version__} >= 8.4: launch_pytest (ROS 2 Jazzy) needs '
                f'pytest < 8.4; run the launch test with pytest < 8.4')
    for module, why in (('launch_pytest', 'launch_pytest not found: source a ROS 2 (Humble or '
                                          'newer) setup'),
                        ('rclpy', 'rclpy not found: source a ROS 2 setup')):
        try:
            importlib.import_module(module)
        except ImportError:
            return why
    from pdls_ik.ros_logic.launch_setup import ament_has_package
    if not ament_has_package('pdls_ik'):
        return 'pdls_ik is not installed in the sourced ROS 2 workspace (colcon build)'
    return None


#: A skip mark, not a module-level skip: under launch_testing's pytest plugin (ROS 2), a skip
#: raised while a module is imported ends the collection of the whole session. Nothing of
#: launch_pytest is imported or defined when the reason is set.
SKIP_REASON = _skip_reason()

if SKIP_REASON is not None:
    @pytest.mark.skip(reason=SKIP_REASON)
    def test_launch_tests_skipped():
        """Stand-in for the launch tests (skipped, with the reason)."""
else:
    import launch_pytest
    import rclpy

    from ament_index_python.packages import get_package_share_directory  # noqa: I100
    from diagnostic_msgs.msg import DiagnosticArray
    from geometry_msgs.msg import PoseStamped
    import launch
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from pdls_ik.diagnostics import OK
    from pdls_ik.model import load_urdf
    from pdls_ik.msgs import pose_stamped, rclpy_types, status_level, status_values
    from pdls_ik.resources import bundled_urdf
    from pdls_ik.ros_logic.launch_setup import ament_has_package
    from sensor_msgs.msg import JointState
    from trajectory_msgs.msg import JointTrajectory

    SHARE = Path(get_package_share_directory('pdls_ik'))
    HAS_RSP = ament_has_package('robot_state_publisher')
    Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])
    #: bounds of the waits [s] (each ends as soon as its condition holds): the node's start-up,
    #: whose robot's solvers load numba's compiled kernels (when numba's cache is cold: 40 s on
    #: an idle 2-core machine, 100 s under load), then the solve
    STARTUP_WAIT = 300.0
    SOLVE_WAIT = 60.0

    def _without_rviz(launch_file):
        """``launch_file`` without rviz (nor robot_state_publisher when not installed)."""
        include = launch.actions.IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(SHARE / 'launch' / launch_file)),
            launch_arguments={'use_rviz': 'false',
                              'use_robot_state_publisher': str(HAS_RSP).lower()}.items())
        return launch.LaunchDescription([include, launch_pytest.actions.ReadyToTest()])

    @launch_pytest.fixture
    def demo():
        """demo.launch.py without rviz."""
        return _without_rviz('demo.launch.py')

    @pytest.mark.launch(fixture=demo)
    def test_demo_follows_a_goal():
        context = rclpy.Context()
        rclpy.init(context=context)
        node = rclpy.create_node('pdls_ik_launch_probe', context=context)
        got = {'trajectory': [], 'diagnostics': [], 'joint_states': []}
        lock = threading.Lock()

        def store(key):
            def callback(msg):
                with lock:
                    got[key].append(msg)
            return callback

        node.create_subscription(JointTrajectory, 'joint_trajectory', store('trajectory'), 10)
        node.create_subscription(DiagnosticArray, '/diagnostics', store('diagnostics'), 10)
        node.create_subscription(JointState, 'joint_states', store('joint_states'), 50)
        publisher = node.create_publisher(PoseStamped, 'goal_pose', 10)
        executor = rclpy.executors.SingleThreadedExecutor(context=context)
        executor.add_node(node)
        thread = threading.Thread(target=executor.spin, daemon=True)
        thread.start()
        try:
            linkage = load_urdf(bundled_urdf('panda'))
            target = linkage.forward_kinematics(Q_GOAL, 'panda_link8')

            def reported(source, accept):
                with lock:
                    arrays = list(got['diagnostics'])
                return any(s.name.endswith(f': {source}') and accept(s)
                           for array in arrays for s in array.status)

            def ready():
                # a goal sent before the node holds its robot (read from robot_state_publisher's
                # topic, its solvers' kernels loaded) would be dropped
                return publisher.get_subscription_count() >= 1 and \
                    reported('robot_description', lambda s: status_level(s) == OK)

            def converged():
                return reported('solver', lambda s: status_values(s).get('goal') == 'reached')

            deadline = time.monotonic() + STARTUP_WAIT
            while not ready() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert ready(), 'pdls_ik_node not ready for goals (subscriber, robot on /diagnostics)'
            publisher.publish(pose_stamped(rclpy_types(), target, 'panda_link0'))

            def last(key):
                with lock:
                    return got[key][-1] if got[key] else None

            def reaches_goal(trajectory):
                q = np.r_[trajectory.points[-1].positions, 0.0]  # arm joints, the finger
                tip = linkage.forward_kinematics(q, 'panda_link8')
                return np.linalg.norm(tip[:3, 3] - target[:3, 3]) <= 1e-5

            def settled(trajectory, state):
                # the goal ends reached: its trajectory is the last one, and the loop-back then
                # echoes its end point (status, trajectory and joint_states arrive on three
                # topics, in any order; an earlier trajectory may already be within 1e-5 m)
                return (converged() and trajectory is not None and reaches_goal(trajectory) and
                        state is not None and
                        np.allclose(state.position[:7], trajectory.points[-1].positions,
                                    atol=1e-9))

            deadline = time.monotonic() + SOLVE_WAIT
            trajectory, state = last('trajectory'), last('joint_states')
            while not settled(trajectory, state) and time.monotonic() < deadline:
                time.sleep(0.1)
                trajectory, state = last('trajectory'), last('joint_states')
            assert converged(), "no 'goal reached' on /diagnostics"
            assert trajectory is not None and reaches_goal(trajectory), \
                'the last joint_trajectory does not end within 1e-5 m of the goal'
            assert list(trajectory.joint_names) == list(linkage.joint_names)[:7]  # the arm
            assert state is not None, 'no joint_states from the loop-back'
            # the loop-back echoes the solution: the robot "is" where the solver put it
            np.testing.assert_allclose(state.position[:7], trajectory.points[-1].positions,
                                       atol=1e-9)
        finally:
            executor.shutdown()
            node.destroy_node()
            rclpy.shutdown(context=context)

    @launch_pytest.fixture
    def defaults():
        """pdls_ik.launch.py with its default arguments but rviz (nothing else publishes)."""
        return _without_rviz('pdls_ik.launch.py')

    @pytest.mark.launch(fixture=defaults)
    def test_default_launch_publishes_the_robot_state():
        """Issue 28: with the defaults nothing published joint_states and rviz drew no robot."""
        context = rclpy.Context()
        rclpy.init(context=context)
        node = rclpy.create_node('pdls_ik_defaults_probe', context=context)
        states = []
        node.create_subscription(JointState, 'joint_states', states.append, 10)
        executor = rclpy.executors.SingleThreadedExecutor(context=context)
        executor.add_node(node)
        threading.Thread(target=executor.spin, daemon=True).start()
        try:
            deadline = time.monotonic() + STARTUP_WAIT
            while not states and time.monotonic() < deadline:
                time.sleep(0.1)
            assert states, 'nothing publishes joint_states with the default arguments'
            publishers = node.get_publishers_info_by_topic('/joint_states')
            assert [p.node_name for p in publishers] == ['pdls_ik_node']
            linkage = load_urdf(bundled_urdf('panda'))
            assert list(states[0].name) == list(linkage.joint_names)
            np.testing.assert_allclose(states[0].position,
                                       0.5 * (linkage.lower + linkage.upper))  # mid-limits
        finally:
            executor.shutdown()
            node.destroy_node()
            rclpy.shutdown(context=context)

    @pytest.mark.skipif(shutil.which('ros2') is None, reason='ros2 command not found')
    @pytest.mark.skipif(ament_has_package('rviz2'), reason='rviz2 is installed: nothing missing')
    def test_missing_rviz_named_in_one_line():
        done = subprocess.run(['ros2', 'launch', 'pdls_ik', 'pdls_ik.launch.py', 'use_rviz:=true',
                               f'use_robot_state_publisher:={str(HAS_RSP).lower()}'],
                              capture_output=True, text=True, timeout=60)
        output = done.stdout + done.stderr
        assert done.returncode != 0
        lines = [ln for ln in output.splitlines() if 'not installed: rviz2' in ln]
        assert len(lines) == 1 and 'use_rviz:=false' in lines[0]
        assert 'Traceback' not in output
