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
pdls_ik on a robot: robot_state_publisher, pdls_ik_node, pdls_ik_markers and rviz2.

    ros2 launch pdls_ik pdls_ik.launch.py urdf:=/path/robot.urdf tip_link:=tool0

Arguments: urdf (URDF or xacro path; default the bundled Panda), config (parameter file;
default the package's config/pdls_ik.yaml), base_link, tip_link (default: from the config),
tasks_file (closures and extra tasks, pdls_ik/ik/task_config.py; default: from the config),
srdf (MoveIt SRDF: planning groups of ~/compute_ik; default: the bundled Panda's SRDF with the
bundled Panda, else none, and the node reads the robot_description_semantic topic),
use_rviz (true), use_robot_state_publisher (true), echo_joint_states (true: the loop-back that
publishes the commanded state on joint_states while no other node publishes there, so that
robot_state_publisher and rviz show the robot without hardware; a hardware driver or a
joint_state_broadcaster publishing joint_states turns it off for good,
pdls_ik/ros_logic/loopback.py). Setup problems (missing file or package, bad link) stop the
launch with one line naming the problem.
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

ARGUMENTS = {
    'urdf': ('', 'Robot description: URDF or xacro file (default: the bundled Panda).'),
    'config': ('', 'Parameter file of pdls_ik_node (default: config/pdls_ik.yaml).'),
    'base_link': ('', 'Base link of goals; empty: from the config, else the URDF root.'),
    'tip_link': ('', 'Controlled link; empty: from the config.'),
    'tasks_file': ('', 'YAML of closures and extra tasks (pdls_ik/ik/task_config.py keys, e.g. '
                       'config/fourbar_closures.yaml); empty: from the config, else none.'),
    'srdf': ('', 'MoveIt SRDF (or xacro) of the robot: planning groups of ~/compute_ik; empty: '
                 "the bundled Panda's with the bundled Panda, else the "
                 'robot_description_semantic topic.'),
    'use_rviz': ('true', 'Start rviz2 with config/pdls_ik.rviz.'),
    'use_robot_state_publisher': ('true', 'Start robot_state_publisher (TF, description).'),
    'echo_joint_states': ('true', 'Loop-back: publish the commanded state on joint_states '
                                  'while no other node publishes there.'),
}


def _setup(context):
    from pdls_ik.resources import bundled_srdf, bundled_urdf, config_file
    from pdls_ik.ros_logic.launch_setup import (LaunchSetupError, ament_has_package, as_bool,
                                                missing_message, missing_packages,
                                                read_description, required_packages,
                                                resolve_links, srdf_parameter,
                                                tasks_file_parameter)

    arg = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    try:
        use_rsp = as_bool(arg['use_robot_state_publisher'], 'use_robot_state_publisher')
        use_rviz = as_bool(arg['use_rviz'], 'use_rviz')
        echo = as_bool(arg['echo_joint_states'], 'echo_joint_states')
        missing = missing_packages(required_packages(use_rsp, use_rviz), ament_has_package)
        if missing:
            raise LaunchSetupError(missing_message(missing, 'pdls_ik.launch.py'))
        urdf = arg['urdf'] or str(bundled_urdf('panda'))
        srdf = arg['srdf'] or ('' if arg['urdf'] else str(bundled_srdf('panda')))
        config = arg['config'] or str(config_file('pdls_ik.yaml'))
        description = read_description(urdf)
        links = resolve_links(description, config, arg['base_link'], arg['tip_link'])
        tasks = tasks_file_parameter(arg['tasks_file'])
        semantic = srdf_parameter(srdf, description)
    except LaunchSetupError as exc:
        raise RuntimeError(str(exc)) from None  # launch prints it as one line and exits 1

    chain = {'base_link': links.base_link, 'tip_link': links.tip_link}
    # with robot_state_publisher the nodes read the latched /robot_description topic
    own_description = {} if use_rsp else {'robot_description': description}
    actions = [
        Node(package='pdls_ik', executable='pdls_ik_node', name='pdls_ik_node', output='screen',
             parameters=[config, dict(chain, echo_joint_states=echo, **tasks, **semantic,
                                      **own_description)]),
        Node(package='pdls_ik', executable='pdls_ik_markers', name='pdls_ik_markers',
             output='screen', parameters=[dict(chain, **own_description)]),
    ]
    if use_rsp:
        actions.append(Node(package='robot_state_publisher', executable='robot_state_publisher',
                            output='screen', parameters=[{'robot_description': description}]))
    if use_rviz:
        rviz_config = str(config_file('pdls_ik.rviz'))
        actions.append(Node(package='rviz2', executable='rviz2', output='screen',
                            arguments=['-d', rviz_config, '-f', links.base_link]))
    return actions


def generate_launch_description():
    """Return the launch description (arguments, then the nodes set up from them)."""
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=text)
         for name, (default, text) in ARGUMENTS.items()] + [OpaqueFunction(function=_setup)])
