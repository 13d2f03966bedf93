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
move_group with pdls_ik/PDLSKinematicsPlugin (launch/moveit.launch.py), end to end (launch_pytest).

An OMPL pose goal and a 20 cm compute_cartesian_path on the bundled Panda both succeed, and the
plugin's record (PDLS_IK_PLUGIN_RECORD) shows that pdls_ik answered MoveIt's IK calls. The client
is benchmarks/moveit_move_group.py's.

Needs a sourced ROS 2 (Jazzy: pytest < 8.4) with launch_pytest, MoveIt's moveit_ros_move_group
and moveit_planners_ompl, and this package built by colcon where moveit_core is found (the
plugin library); skipped with the reason elsewhere. The plugin's embedded Python must import
NumPy and SciPy (PYTHONPATH when they live in a virtual environment).
"""
import importlib
import importlib.util
import json
import math
from pathlib import Path
import time

import numpy as np
import pytest
from ros_support import launch_test_missing
from scipy.spatial.transform import Rotation

REPO = Path(__file__).resolve().parents[2]


def _skip_reason():
    """Why this test cannot run here, or None (never raises, never skips at import)."""
    missing = launch_test_missing(('moveit_msgs.srv',), 'a ROS 2 setup with MoveIt')
    if missing:
        return missing
    from pdls_ik.ros_logic.launch_setup import ament_has_package
    if not ament_has_package('pdls_ik'):
        return 'pdls_ik is not installed in the sourced ROS 2 workspace (colcon build)'
    from ament_index_python.packages import get_package_prefix
    from pdls_ik.ros_logic.moveit_setup import kinematics_parameters, moveit_missing
    from pdls_ik.resources import config_file
    missing = moveit_missing(kinematics_parameters(str(config_file('kinematics.yaml')), 'pdls'),
                             ament_has_package, get_package_prefix)
    if missing:
        return 'not installed: ' + '; '.join(missing)
    return None


SKIP_REASON = _skip_reason()

if SKIP_REASON is not None:
    @pytest.mark.skip(reason=SKIP_REASON)
    def test_moveit_launch_skipped():
        """Stand-in for the move_group launch test (skipped, with the reason)."""
else:
    import launch_pytest

    from ament_index_python.packages import get_package_share_directory  # noqa: I100
    import launch
    import launch.event_handlers
    from launch.launch_description_sources import PythonLaunchDescriptionSource

    SHARE = Path(get_package_share_directory('pdls_ik'))
    _spec = importlib.util.spec_from_file_location(
        'moveit_move_group', REPO / 'benchmarks' / 'moveit_move_group.py')
    bench = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(bench)
    #: move_group's start-up: robot model, the plugin (numba's kernels from its cache, or
    #: compiled in the background while NumPy answers), OMPL
    STARTUP_WAIT = 300.0
    #: the arm's pose goal: urdf/panda.srdf's "extended" state, away from the ready start
    Q_GOAL = [0.0, 0.0, 0.0, -0.1, 0.0, 1.6, 0.785]
    LINE = np.array([0.0, 0.0, -1.0])           # 20 cm down from the ready pose
    #: processes of the launch that exited, as "<name> exited with <code>"
    EXITED = []

    def _assert_reached(goals, q, pose, position_tolerance, orientation_tolerance):
        """Assert the arm at q puts panda_link8 at pose (x, y, z, qx, qy, qz, qw)."""
        assert len(q) == 7, 'no arm values at the last point'
        got = goals.pose(q)
        dp = np.linalg.norm(got[:3] - pose[:3])
        dr = (Rotation.from_quat(got[3:]) * Rotation.from_quat(pose[3:]).inv()).magnitude()
        assert dp <= position_tolerance and dr <= orientation_tolerance, (dp, dr)

    @pytest.fixture(scope='module')
    def record_file(tmp_path_factory):
        return tmp_path_factory.mktemp('moveit') / 'record.jsonl'

    @launch_pytest.fixture
    def move_group(record_file):
        """moveit.launch.py with pdls_ik's plugin, recording its IK attempts."""
        include = launch.actions.IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(SHARE / 'launch' / 'moveit.launch.py')),
            launch_arguments={'ik_plugin': 'pdls', 'use_robot_state_publisher': 'false',
                              'record': str(record_file)}.items())
        # a process that exits during start-up fails the test at once, not after STARTUP_WAIT
        exited = launch.actions.RegisterEventHandler(launch.event_handlers.OnProcessExit(
            on_exit=lambda event, context: EXITED.append(f'{event.action.name} exited with '
                                                         f'{event.returncode}')))
        return launch.LaunchDescription([exited, include,
                                         launch_pytest.actions.ReadyToTest()])

    @pytest.mark.launch(fixture=move_group)
    def test_pose_goal_and_cartesian_path_with_pdls_ik_s_plugin(record_file):
        client = bench.MoveGroupClient('pdls_ik_moveit_launch_probe')
        try:
            deadline = time.monotonic() + STARTUP_WAIT
            while not EXITED and not client.wait(1.0) and time.monotonic() < deadline:
                pass
            assert not EXITED, f'{EXITED} during start-up (its output is above)'
            assert client.wait(0.0), 'move_group offered no planning services'
            goals = bench.PandaGoals()
            goal = goals.pose(Q_GOAL)
            plan = client.plan_pose(bench.READY, goal, planning_time=10.0, timeout=60.0)
            assert plan['code'] == 1 and plan['points'] >= 2, plan
            # MoveIt samples the goal state anywhere in the constraint region: within the
            # sphere, and within the tolerance about each axis
            _assert_reached(goals, plan['end'], goal, bench.POSITION_TOLERANCE,
                            math.sqrt(3.0) * bench.ORIENTATION_TOLERANCE)
            end = bench.line_end(goals.pose(bench.READY), LINE)
            line = client.cartesian(bench.READY, [end], timeout=60.0)
            assert line['code'] == 1 and line['fraction'] == 1.0, line
            _assert_reached(goals, line['end'], end, 1e-4, 1e-3)
        finally:
            client.close()
        deadline = time.monotonic() + 10.0
        while not record_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        records = [json.loads(x) for x in record_file.read_text().splitlines()]
        assert records and all(r['group'] == 'panda_arm' for r in records)
        assert sum(r['code'] == 1 for r in records) >= 20   # the line's 20 steps, the goal
