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
``pdls_ik_markers``: a 6-DOF interactive marker at the tip link, publishing goal poses.

The marker starts at the tip link's pose computed from the robot description and the first
joint_states that gives the joints between base and tip; dragging it publishes PoseStamped goals
on ``goal_pose`` (in the base link), at most ``goal_rate`` per second, and the final pose on
release. The menu entry "Reset to current pose" moves the marker back to the tip's current
pose. Uses the interactive_markers Python API.
"""
from __future__ import annotations

import sys
import time

from geometry_msgs.msg import PoseStamped
import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.errors import PDLSIKError
from pdls_ik.msgs import joint_state_to_q, pose_msg, rclpy_types
from pdls_ik.ros.spin import run_node
from pdls_ik.ros_logic.lifetime import ExitGuard
from pdls_ik.ros_logic.markers import marker_state, RateLimiter, tip_pose
from pdls_ik.ros_logic.robot import build_robot
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from visualization_msgs.msg import (InteractiveMarker, InteractiveMarkerControl,
                                    InteractiveMarkerFeedback, Marker)

NODE_NAME = 'pdls_ik_markers'
MARKER = 'pdls_ik_goal'
#: (name, axis quaternion xyzw) of the three move/rotate axis pairs
AXES = (('x', (1.0, 0.0, 0.0, 1.0)), ('y', (0.0, 1.0, 0.0, 1.0)), ('z', (0.0, 0.0, 1.0, 1.0)))


def _controls(scale: float):
    controls = []
    for name, (x, y, z, w) in AXES:
        norm = np.sqrt(x * x + y * y + z * z + w * w)
        for mode, prefix in ((InteractiveMarkerControl.ROTATE_AXIS, 'rotate_'),
                             (InteractiveMarkerControl.MOVE_AXIS, 'move_')):
            control = InteractiveMarkerControl()
            control.name = prefix + name
            control.orientation.x, control.orientation.y = x / norm, y / norm
            control.orientation.z, control.orientation.w = z / norm, w / norm
            control.interaction_mode = mode
            controls.append(control)
    sphere = Marker(type=Marker.SPHERE)
    sphere.scale.x = sphere.scale.y = sphere.scale.z = 0.3 * scale
    sphere.color.r, sphere.color.g, sphere.color.b, sphere.color.a = 0.2, 0.6, 1.0, 0.6
    handle = InteractiveMarkerControl(always_visible=True, markers=[sphere],
                                      interaction_mode=InteractiveMarkerControl.MOVE_ROTATE_3D)
    return controls + [handle]


class MarkersNode(Node):
    """
    The interactive-marker node (rclpy shell over :mod:`pdls_ik.ros_logic.markers`).

    :raises PDLSIKError: the interactive_markers package is not installed (named in one line).
    """

    def __init__(self):
        try:
            from interactive_markers import InteractiveMarkerServer, MenuHandler
        except ImportError:
            raise PDLSIKError("the ROS package 'interactive_markers' is not installed") from None
        super().__init__(NODE_NAME)
        self.types = rclpy_types()
        self.declare_parameter('base_link', '')
        self.declare_parameter('tip_link', '')
        self.declare_parameter('robot_description', '')
        self.declare_parameter('goal_rate', 20.0)
        self.declare_parameter('scale', 0.2)
        self.config = IKConfig(base_link=self.get_parameter('base_link').value,
                               tip_link=self.get_parameter('tip_link').value)
        self.limiter = RateLimiter(1.0 / self.get_parameter('goal_rate').value)
        self.robot = None
        self.q = None
        #: the marker was placed from joint_states (else from mid-limits)
        self._at_state = False
        self.server = InteractiveMarkerServer(self, NODE_NAME)
        self.menu = MenuHandler()
        self.menu.insert('Reset to current pose', callback=self._on_reset)
        self.pub_goal = self.create_publisher(PoseStamped, 'goal_pose', 10)
        description = self.get_parameter('robot_description').value
        if description:
            self._load(description)
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.create_subscription(String, 'robot_description',
                                 lambda msg: self._load(msg.data), latched)
        self.create_subscription(JointState, 'joint_states', self._on_joint_states, 10)
        self.create_timer(0.05, self._flush)

    def _load(self, description: str) -> None:
        try:
            self.robot = build_robot(description, self.config)
        except PDLSIKError as exc:
            self.get_logger().error(f'robot description rejected: {exc}')
            return
        self.q, self._at_state = None, False  # placed again at the next joint_states
        self._place(self.robot.default_q())

    def _on_joint_states(self, msg: JointState) -> None:
        if self.robot is None:
            return
        try:
            match = joint_state_to_q(msg, self.robot.joint_names, fallback=self.q)
        except PDLSIKError as exc:
            self.get_logger().warn(f'joint_states ignored: {exc}', throttle_duration_sec=5.0)
            return
        self.q = match.q
        if not self._at_state:
            q = marker_state(self.robot, match.q, match.found)
            if q is not None:  # every joint moving the tip known (others need not be)
                self._at_state = True
                self._place(q)

    def _place(self, q) -> None:
        """(Re)creates the marker at the tip pose for joint positions ``q``."""
        marker = InteractiveMarker(name=MARKER, description='pdls_ik goal',
                                   scale=self.get_parameter('scale').value)
        marker.header.frame_id = self.robot.base_link
        marker.pose = pose_msg(self.types, tip_pose(self.robot, q))
        marker.controls = _controls(marker.scale)
        self.server.insert(marker, feedback_callback=self._on_feedback)
        self.menu.apply(self.server, MARKER)
        self.server.applyChanges()

    def _on_reset(self, feedback) -> None:
        if self.robot is not None:
            q = None if self.q is None else marker_state(self.robot, self.q, np.isfinite(self.q))
            self._place(q if q is not None else self.robot.default_q())

    def _goal(self, pose) -> PoseStamped:
        goal = PoseStamped(pose=pose)
        goal.header.frame_id = self.robot.base_link
        goal.header.stamp = self.get_clock().now().to_msg()
        return goal

    def _on_feedback(self, feedback: InteractiveMarkerFeedback) -> None:
        if self.robot is None:
            return
        if feedback.event_type == InteractiveMarkerFeedback.POSE_UPDATE:
            goal = self.limiter.offer(time.monotonic(), feedback.pose)
        elif feedback.event_type == InteractiveMarkerFeedback.MOUSE_UP:
            # the release pose always goes out, and no held-back drag pose after it
            goal = self.limiter.release(time.monotonic(), feedback.pose)
        else:
            return
        if goal is not None:
            self.pub_goal.publish(self._goal(goal))

    def _flush(self) -> None:
        pose = self.limiter.flush(time.monotonic())
        if pose is not None and self.robot is not None:
            self.pub_goal.publish(self._goal(pose))


def main(args=None) -> int:
    """Entry point of ``pdls_ik_markers`` (0 on a clean shutdown, 1 when it cannot start)."""
    return run_node(MarkersNode, NODE_NAME, args, guard=ExitGuard())


if __name__ == '__main__':
    sys.exit(main())
