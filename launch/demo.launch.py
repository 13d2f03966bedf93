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
Demo without hardware: the bundled Panda, with the joint-state loop-back.

    ros2 launch pdls_ik demo.launch.py            # then drag the marker in rviz, or:
    ros2 topic pub --once /goal_pose geometry_msgs/msg/PoseStamped \
      "{header: {frame_id: panda_link0}, pose: {position: {x: 0.4, y: 0.2, z: 0.5},
        orientation: {x: 1.0, y: 0.0, z: 0.0, w: 0.0}}}"

pdls_ik.launch.py with ``echo_joint_states:=true`` (its default too): the commanded state is
published on joint_states while no other node publishes there, so robot_state_publisher and rviz
show the robot moving. Any argument of pdls_ik.launch.py can still be given (e.g.
``use_rviz:=false`` on a machine without a display).
"""
import os

from launch import LaunchDescription
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource


def generate_launch_description():
    """pdls_ik.launch.py (beside this file) with the loop-back on."""
    main = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pdls_ik.launch.py')
    return LaunchDescription([IncludeLaunchDescription(
        PythonLaunchDescriptionSource(main),
        launch_arguments={'echo_joint_states': 'true'}.items())])
