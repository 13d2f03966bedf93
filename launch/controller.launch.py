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
The bundled Panda on ros2_control's mock hardware, driven by pdls_ik through a JTC.

    ros2 launch pdls_ik controller.launch.py              # then drag the marker, or publish
                                                          # geometry_msgs/PoseStamped on goal_pose

Starts robot_state_publisher (the Panda with a mock_components/GenericSystem ros2_control tag
for the arm and the hand's finger joint, pdls_ik/ros_logic/controller_setup.py),
controller_manager (config/panda_controllers.yaml), the spawners of joint_state_broadcaster and
panda_arm_controller (a joint_trajectory_controller), pdls_ik_node with its joint_trajectory
remapped to /panda_arm_controller/joint_trajectory, and pdls_ik_markers; rviz2 with
use_rviz:=true.
Needs the ROS packages controller_manager, joint_state_broadcaster,
joint_trajectory_controller, mock hardware (hardware_interface) and robot_state_publisher.
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

ARGUMENTS = {
    'controller': ('panda_arm_controller', 'Name of the joint_trajectory_controller.'),
    'use_rviz': ('false', 'Start rviz2 with config/pdls_ik.rviz.'),
    'stamp_trajectories': ('true', "pdls_ik_node's stamp_trajectories: messages placed on the "
                                   "controller's time line (true), or header stamp zero."),
    'stream_lookahead': ('0.1', "pdls_ik_node's stream_lookahead [s]: the streamed motion "
                                'committed ahead (stamped trajectories).'),
}
#: start pose of the mock hardware (the Panda's ready pose) [rad]
READY = {'panda_joint1': 0.0, 'panda_joint2': -0.785, 'panda_joint3': 0.0,
         'panda_joint4': -2.356, 'panda_joint5': 0.0, 'panda_joint6': 1.571,
         'panda_joint7': 0.785}
#: the hand's joint on the mock hardware too (its twin mimics it): joint_state_broadcaster then
#: publishes every moving joint and robot_state_publisher places the fingers (rviz's RobotModel
#: reported "No transform" for them); no controller commands it
HAND = {'panda_finger_joint1': 0.0}


def _setup(context):
    from pdls_ik.resources import bundled_urdf, config_file
    from pdls_ik.ros_logic.controller_setup import with_mock_hardware
    from pdls_ik.ros_logic.launch_setup import (ament_has_package, as_bool, LaunchSetupError,
                                                missing_message, missing_packages)

    controller = LaunchConfiguration('controller').perform(context)
    try:
        use_rviz = as_bool(LaunchConfiguration('use_rviz').perform(context), 'use_rviz')
        stamp = as_bool(LaunchConfiguration('stamp_trajectories').perform(context),
                        'stamp_trajectories')
        lookahead = LaunchConfiguration('stream_lookahead').perform(context)
        try:
            lookahead = float(lookahead)
        except ValueError:
            raise LaunchSetupError(f'stream_lookahead: {lookahead!r} is not a number') from None
        needed = ['controller_manager', 'joint_state_broadcaster',
                  'joint_trajectory_controller', 'robot_state_publisher'] + \
            (['rviz2'] if use_rviz else [])
        missing = missing_packages(needed, ament_has_package)
        if missing:
            raise LaunchSetupError(missing_message(missing, 'controller.launch.py'))
    except LaunchSetupError as exc:
        raise RuntimeError(str(exc)) from None
    description = with_mock_hardware(bundled_urdf('panda').read_text(),
                                     list(READY) + list(HAND), dict(READY, **HAND))
    controllers = str(config_file('panda_controllers.yaml'))
    chain = {'base_link': 'panda_link0', 'tip_link': 'panda_link8'}
    actions = [
        Node(package='robot_state_publisher', executable='robot_state_publisher',
             output='screen', parameters=[{'robot_description': description}]),
        Node(package='controller_manager', executable='ros2_control_node', output='screen',
             parameters=[controllers], remappings=[('~/robot_description',
                                                    '/robot_description')]),
        Node(package='controller_manager', executable='spawner', output='screen',
             arguments=['joint_state_broadcaster', controller]),
        Node(package='pdls_ik', executable='pdls_ik_node', name='pdls_ik_node',
             output='screen',
             parameters=[str(config_file('pdls_ik.yaml')),
                         dict(chain, stamp_trajectories=stamp, stream_lookahead=lookahead)],
             remappings=[('joint_trajectory', f'/{controller}/joint_trajectory')]),
        Node(package='pdls_ik', executable='pdls_ik_markers', name='pdls_ik_markers',
             output='screen', parameters=[dict(chain)]),
    ]
    if use_rviz:
        actions.append(Node(package='rviz2', executable='rviz2', output='screen',
                            arguments=['-d', str(config_file('pdls_ik.rviz')), '-f',
                                       'panda_link0']))
    return actions


def generate_launch_description():
    """Return the launch description (arguments, then the nodes)."""
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=text)
         for name, (default, text) in ARGUMENTS.items()] + [OpaqueFunction(function=_setup)])
