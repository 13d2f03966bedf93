"""Demo without hardware: the bundled Panda, with the joint-state loop-back.

    ros2 launch pdls_ik demo.launch.py            # then drag the marker in rviz, or:
    ros2 topic pub --once /goal_pose geometry_msgs/msg/PoseStamped \
      "{header: {frame_id: panda_link0}, pose: {position: {x: 0.4, y: 0.2, z: 0.5},
        orientation: {x: 1.0, y: 0.0, z: 0.0, w: 0.0}}}"

pdls_ik.launch.py with ``echo_joint_states:=true``: each solution is published on joint_states,
so robot_state_publisher and rviz show the robot moving. Any argument of pdls_ik.launch.py can
still be given (e.g. ``use_rviz:=false`` on a machine without a display).
"""
import os

from launch import LaunchDescription
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource


def generate_launch_description():
    """pdls_ik.launch.py (beside this file) with the loop-back on."""
    main = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pdls_ik.launch.py")
    return LaunchDescription([IncludeLaunchDescription(
        PythonLaunchDescriptionSource(main),
        launch_arguments={"echo_joint_states": "true"}.items())])
