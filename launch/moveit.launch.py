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
MoveIt's move_group for the bundled Panda, IK by pdls_ik's kinematics plugin, planning with OMPL.

    ros2 launch pdls_ik moveit.launch.py                    # pdls_ik/PDLSKinematicsPlugin
    ros2 launch pdls_ik moveit.launch.py ik_plugin:=kdl     # MoveIt's KDL plugin, side by side

Plan only (no controllers): MoveGroup goals with ``plan_only``, /plan_kinematic_path,
/compute_cartesian_path, /compute_ik. Parameters come from this package's files
(pdls_ik/ros_logic/moveit_setup.py): urdf/panda.urdf, urdf/panda.srdf, config/kinematics.yaml,
config/ompl_planning.yaml, config/panda_joint_limits.yaml; no MoveIt config package is needed.

Arguments: ik_plugin (pdls, kdl or pick_ik: every group's kinematics_solver; empty: the
kinematics file's), ik_timeout (kinematics_solver_timeout [s] of every group; empty: the file's,
0.005), kinematics (kinematics.yaml; default config/kinematics.yaml), urdf, srdf (default: the
bundled Panda's), use_robot_state_publisher (true), record (a file: pdls_ik's plugin appends one
JSON line per IK attempt, PDLS_IK_PLUGIN_RECORD). Needs moveit_ros_move_group,
moveit_planners_ompl and the chosen plugin; what is missing stops the launch with one line.
"""
from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

ARGUMENTS = {
    'ik_plugin': ('pdls', 'Kinematics plugin of every group: pdls, kdl or pick_ik (empty: the '
                          "kinematics file's)."),
    'ik_timeout': ('', "kinematics_solver_timeout [s] of every group (empty: the file's)."),
    'kinematics': ('', 'MoveIt kinematics.yaml (default: config/kinematics.yaml).'),
    'urdf': ('', 'Robot description: URDF or xacro file (default: the bundled Panda).'),
    'srdf': ('', "MoveIt SRDF (or xacro) of the robot (default: the bundled Panda's)."),
    'use_robot_state_publisher': ('true', 'Start robot_state_publisher (TF, description).'),
    'record': ('', "File where pdls_ik's plugin appends one JSON line per IK attempt "
                   '(empty: no record).'),
}


def _setup(context):
    from ament_index_python.packages import get_package_prefix, get_package_share_directory
    from pdls_ik.resources import bundled_srdf, bundled_urdf, config_file
    from pdls_ik.ros_logic.launch_setup import (ament_has_package, as_bool, LaunchSetupError,
                                                missing_message, missing_packages,
                                                read_description, required_packages,
                                                srdf_parameter)
    from pdls_ik.ros_logic.moveit_setup import (kinematics_parameters, move_group_parameters,
                                                moveit_missing, moveit_version)

    arg = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    try:
        use_rsp = as_bool(arg['use_robot_state_publisher'], 'use_robot_state_publisher')
        missing = missing_packages(required_packages(use_rsp, False), ament_has_package)
        if missing:
            raise LaunchSetupError(missing_message(missing, 'moveit.launch.py'))
        kinematics_file = arg['kinematics'] or str(config_file('kinematics.yaml'))
        kinematics = kinematics_parameters(kinematics_file, arg['ik_plugin'], arg['ik_timeout'])
        missing = moveit_missing(kinematics, ament_has_package, get_package_prefix)
        if missing:
            raise LaunchSetupError('moveit.launch.py: not installed: ' + '; '.join(missing))
        urdf = arg['urdf'] or str(bundled_urdf('panda'))
        description = read_description(urdf)
        srdf = arg['srdf'] or str(bundled_srdf('panda'))
        semantic = srdf_parameter(srdf, description)['robot_description_semantic']
        parameters = move_group_parameters(description, semantic, kinematics,
                                           str(config_file('ompl_planning.yaml')),
                                           str(config_file('panda_joint_limits.yaml')),
                                           moveit_version(str(Path(get_package_share_directory(
                                               'moveit_core')) / 'package.xml')))
    except LaunchSetupError as exc:
        raise RuntimeError(str(exc)) from None  # launch prints it as one line and exits 1

    env = {'PDLS_IK_PLUGIN_RECORD': arg['record']} if arg['record'] else None
    actions = [Node(package='moveit_ros_move_group', executable='move_group', output='screen',
                    parameters=[parameters], additional_env=env)]
    if use_rsp:
        actions.append(Node(package='robot_state_publisher', executable='robot_state_publisher',
                            output='screen', parameters=[{'robot_description': description}]))
    return actions


def generate_launch_description():
    """Return the launch description (arguments, then the nodes set up from them)."""
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=text)
         for name, (default, text) in ARGUMENTS.items()] + [OpaqueFunction(function=_setup)])
