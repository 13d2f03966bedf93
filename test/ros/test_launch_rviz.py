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
rviz2 with the shipped config, under Xvfb, on both launch files with their default arguments.

For ``pdls_ik.launch.py use_rviz:=true`` and ``controller.launch.py use_rviz:=true``: rviz2
prints no error line, subscribes to the marker server's updates, and no display (nor the Global
Status) reports a warning or an error in the Displays panel (read from a screenshot:
rviz draws their names in its status colours, test/rviz_support.py). Then the marker's
translation handle (the move_x arrow) is dragged with the mouse through the XTEST extension (as
xdotool would): rviz must send feedback from that control, and the robot must come to rest at
the released marker, tip within 1 mm. Screenshots before and after the drag go to
``$PDLS_IK_RVIZ_SHOTS`` (else the test's temporary folder), with a GIF of the 3D view during
the drag.

Needs a sourced ROS 2 with launch_pytest, rviz2 and this package installed by colcon (and
ros2_control for the controller launch), Xvfb, python-xlib and Pillow with XCB; skipped with
the reason elsewhere.
"""
import json
import os
from pathlib import Path
import shutil
import threading
import time

import numpy as np
import pytest
from ros_support import launch_test_missing
from rviz_support import xlib_missing


def _skip_reason():
    """Why this test cannot run here, or None (never raises, never skips at import)."""
    missing = launch_test_missing(('visualization_msgs.srv',), 'a ROS 2 (Humble or newer) setup')
    if missing:
        return missing
    from pdls_ik.ros_logic.launch_setup import ament_has_package
    missing = [p for p in ('pdls_ik', 'rviz2', 'robot_state_publisher')
               if not ament_has_package(p)]
    if missing:
        return f"not installed in the sourced ROS 2: {', '.join(missing)}"
    if shutil.which('Xvfb') is None:
        return 'Xvfb not found: rviz2 needs an X display (apt install xvfb)'
    return xlib_missing()


SKIP_REASON = _skip_reason()

if SKIP_REASON is not None:
    @pytest.mark.skip(reason=SKIP_REASON)
    def test_rviz_launch_skipped():
        """Stand-in for the rviz launch tests (skipped, with the reason)."""
else:
    import launch_pytest
    import rclpy

    from ament_index_python.packages import get_package_share_directory  # noqa: I100
    from diagnostic_msgs.msg import DiagnosticArray
    import launch
    from launch.event_handlers import OnProcessIO
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from pdls_ik.model import load_urdf
    from pdls_ik.resources import bundled_urdf
    from pdls_ik.ros_logic.launch_setup import ament_has_package
    from rviz_support import (orbit_projection, save_gif, save_small, Screen, start_xvfb,
                              status_pixels)
    from scipy.spatial.transform import Rotation
    from sensor_msgs.msg import JointState
    from visualization_msgs.msg import InteractiveMarkerFeedback
    from visualization_msgs.srv import GetInteractiveMarkers
    import yaml

    SHARE = Path(get_package_share_directory('pdls_ik'))
    HAS_CONTROL = all(ament_has_package(p) for p in (
        'controller_manager', 'joint_state_broadcaster', 'joint_trajectory_controller'))
    #: bounds of the waits [s]; each ends as soon as its condition holds
    STARTUP_WAIT, SETTLE_WAIT, STATUS_WAIT = 300.0, 30.0, 30.0
    #: the marker server's namespace (pdls_ik/ros/marker_node.py) and its handle under the drag
    SERVER = '/pdls_ik_markers'
    CONTROL = 'move_x'
    #: where on the move_x arrow the drag grabs it: interactive_markers' makeArrow draws it from
    #: 0.5 to 0.9 marker scales along the control's x axis [scales]
    GRAB = 0.8
    #: the drag along the arrow's image on the screen [px] (~0.1 m at the shipped view)
    DRAG_PX = 60.0
    #: output lines of every process of the launch: (process name, line)
    OUTPUT = []

    @pytest.fixture(scope='module')
    def xvfb():
        """Start a virtual X screen (':N') larger than the config's 1400 x 900 rviz window."""
        proc, display = start_xvfb((1600, 1024))
        yield display
        proc.terminate()
        proc.wait(timeout=10)

    def _described(display, launch_file, arguments):
        OUTPUT.clear()

        def collect(event):
            name = event.action.name
            for line in event.text.decode(errors='replace').splitlines():
                OUTPUT.append((name, line))

        include = launch.actions.IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(SHARE / 'launch' / launch_file)),
            launch_arguments=arguments.items())
        return launch.LaunchDescription([
            launch.actions.SetEnvironmentVariable('DISPLAY', display),
            launch.actions.RegisterEventHandler(OnProcessIO(on_stdout=collect,
                                                            on_stderr=collect)),
            include, launch_pytest.actions.ReadyToTest()])

    @launch_pytest.fixture
    def pdls_ik_launch(xvfb):
        """pdls_ik.launch.py use_rviz:=true, every other argument at its default."""
        return _described(xvfb, 'pdls_ik.launch.py', {'use_rviz': 'true'})

    @launch_pytest.fixture
    def controller_launch(xvfb):
        """controller.launch.py use_rviz:=true."""
        return _described(xvfb, 'controller.launch.py', {'use_rviz': 'true'})

    def _view():
        """(distance, yaw, pitch, focal point) of the shipped config's Orbit view."""
        view = yaml.safe_load((SHARE / 'config' / 'pdls_ik.rviz').read_text())[
            'Visualization Manager']['Views']['Current']
        focal = view['Focal Point']
        return (float(view['Distance']), float(view['Yaw']), float(view['Pitch']),
                (float(focal['X']), float(focal['Y']), float(focal['Z'])))

    def _pose_matrix(pose):
        out = np.eye(4)
        q = pose.orientation
        out[:3, :3] = Rotation.from_quat([q.x, q.y, q.z, q.w]).as_matrix()
        out[:3, 3] = [pose.position.x, pose.position.y, pose.position.z]
        return out

    class Probe:
        """joint_states, the marker feedback and the marker server, seen from outside."""

        def __init__(self):
            self.context = rclpy.Context()
            rclpy.init(context=self.context)
            self.node = rclpy.create_node('pdls_ik_rviz_probe', context=self.context)
            self.lock = threading.Lock()
            self.states, self.feedback, self.solver = [], [], []
            self.node.create_subscription(JointState, '/joint_states', self._keep(self.states),
                                          50)
            self.node.create_subscription(InteractiveMarkerFeedback, f'{SERVER}/feedback',
                                          self._keep(self.feedback), 100)
            self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                          50)
            self.markers = self.node.create_client(GetInteractiveMarkers,
                                                   f'{SERVER}/get_interactive_markers')
            self.executor = rclpy.executors.SingleThreadedExecutor(context=self.context)
            self.executor.add_node(self.node)
            threading.Thread(target=self.executor.spin, daemon=True).start()

        def _keep(self, into):
            def callback(msg):
                with self.lock:
                    into.append(msg)
            return callback

        def _on_diagnostics(self, msg):
            with self.lock:
                self.solver.extend(s.message + ' ' + str({v.key: v.value for v in s.values})
                                   for s in msg.status if s.name.endswith(': solver'))

        def close(self):
            self.executor.shutdown()
            self.node.destroy_node()
            rclpy.shutdown(context=self.context)

        def rviz_subscribed(self):
            """Tell whether a node named rviz* subscribes to the marker server's updates."""
            infos = self.node.get_subscriptions_info_by_topic(f'{SERVER}/update')
            return any(info.node_name.startswith('rviz') for info in infos)

        def marker_pose(self):
            """(4, 4) pose of the goal marker in its frame, from the marker server."""
            future = self.markers.call_async(GetInteractiveMarkers.Request())
            end = time.monotonic() + 10.0
            while not future.done() and time.monotonic() < end:
                time.sleep(0.02)
            assert future.done(), 'no answer from the marker server'
            (marker,) = future.result().markers
            return marker.header.frame_id, _pose_matrix(marker.pose)

        def q(self, names):
            """Latest positions of joints ``names`` in joint_states (None before all came)."""
            with self.lock:
                states = list(self.states[-20:])
            known = {}
            for msg in states:
                known.update(zip(msg.name, msg.position))
            if not all(n in known for n in names):
                return None
            return np.array([known[n] for n in names])

    def _wait(condition, timeout):
        end = time.monotonic() + timeout
        while not condition() and time.monotonic() < end:
            time.sleep(0.1)
        return condition()

    def _rviz_errors():
        return [line for name, line in list(OUTPUT)
                if name.startswith('rviz2') and '[ERROR]' in line]

    def _displays_clean(screen, boxes):
        """(clean, counts): no warn/error colour and OK names in the panel left of the 3D view."""
        window, render = boxes
        counts = status_pixels(screen.grab(), (window[0], window[1], render[0], window[3]))
        return counts['ok'] > 0 and counts['warn'] == 0 and counts['error'] == 0, counts

    def _rviz_and_drag(request, label):
        shots = Path(os.environ.get('PDLS_IK_RVIZ_SHOTS') or
                     request.getfixturevalue('tmp_path'))
        shots.mkdir(parents=True, exist_ok=True)
        linkage = load_urdf(bundled_urdf('panda'))
        names = list(linkage.joint_names)
        screen = Screen(request.getfixturevalue('xvfb'))
        probe = Probe()
        try:
            assert _wait(lambda: screen.rviz_boxes() is not None, STARTUP_WAIT), \
                'no rviz window on the screen'
            assert _wait(probe.rviz_subscribed, STARTUP_WAIT), \
                f'rviz does not subscribe to {SERVER}/update'
            assert _wait(lambda: probe.markers.service_is_ready(), STARTUP_WAIT)
            boxes = screen.rviz_boxes()

            def settled_display():  # clean twice, a second apart (TF and markers arrived)
                if not _displays_clean(screen, boxes)[0]:
                    return False
                time.sleep(1.0)
                return _displays_clean(screen, boxes)[0]

            clean = _wait(settled_display, STATUS_WAIT)
            before = screen.grab(boxes[0])
            before.save(shots / f'{label}_before_full.png')
            counts = _displays_clean(screen, boxes)[1]
            assert clean, (f'a display reports a warning or error: {counts} (screenshot '
                           f"{shots / f'{label}_before_full.png'})")
            assert not _rviz_errors(), _rviz_errors()
            assert _wait(lambda: probe.q(names) is not None, STATUS_WAIT), \
                'no joint_states with every joint of the robot'

            # the drag: the move_x arrow's image, pulled along itself toward the base's axis
            frame, marker = probe.marker_pose()
            assert frame == 'panda_link0'
            window, render = boxes
            size = (render[2] - render[0], render[3] - render[1])
            project = orbit_projection(*_view(), size)
            axis = marker[:3, 0]
            inward = -1.0 if axis[:2] @ marker[:2, 3] > 0 else 1.0  # toward z of the base
            scale = 0.2  # pdls_ik_markers' default scale parameter
            grab = marker[:3, 3] + inward * GRAB * scale * axis
            a = np.array(project(grab))
            b = np.array(project(grab + inward * 0.1 * axis))
            direction = (b - a) / np.linalg.norm(b - a)
            start = a + render[:2]
            end = start + DRAG_PX * direction
            with probe.lock:
                probe.feedback.clear()
            frames = [screen.grab(render)]

            def frame(step):  # an animation of the drag: every third step
                if step % 3 == 0:
                    frames.append(screen.grab(render))

            screen.drag(tuple(start), tuple(end), on_step=frame)

            def released():
                with probe.lock:
                    return [f for f in probe.feedback
                            if f.event_type == InteractiveMarkerFeedback.MOUSE_UP]

            assert _wait(released, 10.0), 'rviz sent no MOUSE_UP feedback for the drag'
            with probe.lock:
                controls = {f.control_name for f in probe.feedback}
                updates = sum(f.event_type == InteractiveMarkerFeedback.POSE_UPDATE
                              for f in probe.feedback)
            assert controls == {CONTROL}, controls
            goal = _pose_matrix(released()[-1].pose)
            moved = float(np.linalg.norm(goal[:3, 3] - marker[:3, 3]))
            assert moved > 0.02, f'the marker moved {moved} m only'

            def tip_error():
                q = probe.q(names)
                tip = linkage.forward_kinematics(q, 'panda_link8', 'panda_link0')
                return float(np.linalg.norm(tip[:3, 3] - goal[:3, 3]))

            t0 = time.monotonic()
            assert _wait(lambda: tip_error() <= 1e-3, SETTLE_WAIT), \
                (f'the tip rests {tip_error()} m from the released marker; the solver: '
                 f'{probe.solver[-1:]}')
            reached = time.monotonic() - t0
            for _ in range(4):  # the robot at rest
                frames.append(screen.grab(render))
                time.sleep(0.15)
            save_gif(frames, shots / f'{label}_drag.gif')
            time.sleep(1.0)  # at rest: still there
            error = tip_error()
            assert error <= 1e-3, error
            clean = _wait(settled_display, STATUS_WAIT)
            after = screen.grab(boxes[0])
            after.save(shots / f'{label}_after_full.png')
            assert clean, f'after the drag: {_displays_clean(screen, boxes)[1]}'
            assert not _rviz_errors(), _rviz_errors()
            save_small(before, shots / f'{label}_before.png')
            save_small(after, shots / f'{label}_after.png')
            figures = {'launch': label, 'control': CONTROL, 'pose_updates': updates,
                       'marker_moved_m': moved, 'tip_to_marker_m': error,
                       'reached_within_1mm_s': round(reached, 2),
                       'drag_px': [list(map(float, start)), list(map(float, end))]}
            (shots / f'{label}_drag.json').write_text(json.dumps(figures, indent=1))
            print(figures)
        finally:
            probe.close()
            screen.close()

    @pytest.mark.launch(fixture=pdls_ik_launch)
    def test_rviz_on_pdls_ik_launch_shows_robot_and_drag_moves_it(request):
        _rviz_and_drag(request, 'rviz_pdls_ik_launch')

    @pytest.mark.skipif(not HAS_CONTROL, reason='ros2_control controllers not installed')
    @pytest.mark.launch(fixture=controller_launch)
    def test_rviz_on_controller_launch_shows_robot_and_drag_moves_it(request):
        _rviz_and_drag(request, 'rviz_controller_launch')
