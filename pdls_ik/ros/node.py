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
The ``pdls_ik_node`` node.

Goal poses and joint states in; joint trajectories, solutions and diagnostics out; the
``~/compute_ik`` and ``~/compute_fk`` services (MoveIt's GetPositionIK / GetPositionFK, groups
from the SRDF of ``robot_description_semantic``) beside them.

Callback groups: subscriptions, parameters and the diagnostics timer share the node's default
group (short callbacks that only store); the tracking timer has its own group and the services a
reentrant one, so under a :class:`MultiThreadedExecutor` a solve never delays diagnostics or the
services, and a client calling from inside a callback of this process (MoveIt's Humble deadlock,
moveit2 #3633) does not stall them; no bad message stops the node: every failure becomes an
ERROR status on /diagnostics.
"""
from __future__ import annotations

import sys
import threading
from typing import Optional, Sequence, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
from pdls_ik.errors import PDLSIKError
from pdls_ik.model.srdf import load_srdf
from pdls_ik.msgs import (diagnostic_array, joint_state, joint_trajectory, pose_from_msg,
                          rclpy_types)
from pdls_ik.msgs.moveit import ErrorCode, ik_request_from_msg, IKServiceReply, RequestError
from pdls_ik.msgs.moveit import fk_request_from_msg, fk_response, FKServiceReply, ik_response
from pdls_ik.ros.node_parameters import AliasMirror, changes_of, declare_all
from pdls_ik.ros.spin import run_node
from pdls_ik.ros_logic.board import Board
from pdls_ik.ros_logic.fk_service import compute_fk
from pdls_ik.ros_logic.ik_service import IKService, tip_priorities
from pdls_ik.ros_logic.parameters import apply_changes, config_from_values, read_only_names
from pdls_ik.ros_logic.robot import build_robot
from pdls_ik.ros_logic.tracker import Tracker
from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from trajectory_msgs.msg import JointTrajectory

NODE_NAME = 'pdls_ik_node'
#: period of the loop-back's joint_states between solutions [s]
ECHO_PERIOD = 0.1


class PDLSIKNode(Node):
    """
    The IK node.

    Construction raises :class:`~pdls_ik.errors.PDLSIKError` on a bad start-up configuration
    (the caller logs it in one line and exits non-zero).
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.types = rclpy_types()
        values = declare_all(self)
        self.config = config_from_values(values)
        self._aliases = AliasMirror(self, lambda: self.config)
        self._aliases.sync_now()  # e.g. timeout reads a kinematics_solver_timeout given alone
        self.mode = values['mode']
        self.board = Board(self.get_name())
        self.tracker: Optional[Tracker] = None
        self.service = None
        self._solve_group = MutuallyExclusiveCallbackGroup()
        self._service_group = ReentrantCallbackGroup()
        self._semantics = {'posture_state': values['posture_state'],
                           'tip_priorities': tip_priorities(values['ik_link_priorities'])}
        self._srdf = load_srdf(values['robot_description_semantic']) \
            if values['robot_description_semantic'] else None

        self.pub_trajectory = self.create_publisher(JointTrajectory, 'joint_trajectory', 10)
        self.pub_solution = self.create_publisher(JointState, '~/solution', 10)
        self.pub_diagnostics = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.pub_echo = (self.create_publisher(JointState, 'joint_states', 10)
                         if values['echo_joint_states'] else None)
        #: loop-back: (joint names, q) of the last solution sent on joint_states; the echo timer
        #: repeats it under the lock (never the state read back from joint_states, which lags:
        #: repeated after the solution, it would put the looped-back robot back one solve)
        self._echoed: Optional[Tuple[Sequence[str], Sequence[float]]] = None
        self._echo_lock = threading.Lock()

        if values['robot_description']:
            self._set_robot(build_robot(values['robot_description'], self.config), 'parameter')
        else:
            self.board.warn('robot_description', 'waiting for the robot_description topic')
            latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                 reliability=ReliabilityPolicy.RELIABLE)
            self.create_subscription(String, 'robot_description', self._on_description, latched)
        self.create_subscription(PoseStamped, 'goal_pose', self._on_goal, 10)
        self.create_subscription(JointState, 'joint_states', self._on_joint_states, 10)
        self.board.warn('joint_states', 'no joint_states received yet: solving from the last '
                        'solution, else mid-limits')
        self._create_service()
        if self._srdf is None:
            latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                 reliability=ReliabilityPolicy.RELIABLE)
            self.create_subscription(String, 'robot_description_semantic', self._on_semantic,
                                     latched)
        self._tracking_timer = self._make_tracking_timer()
        self.create_timer(values['diagnostics_period'], self.publish_diagnostics)
        if self.pub_echo is not None:  # loop-back: also keep joint_states alive between goals
            self.create_timer(ECHO_PERIOD, self._echo_state)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.get_logger().info(f"{NODE_NAME} ready ({self.mode}, tip '{self.config.tip_link}')")

    # ------------------------------------------------------------------ model
    def _set_robot(self, robot, origin: str) -> None:
        if self.tracker is None:
            service = IKService(robot, self._srdf, **self._semantics)
            self.tracker, self.service = Tracker(robot, self.mode), service
        else:
            self.service.set_robot(robot)
            self.tracker.set_robot(robot)
        self._report_groups()
        self.config = robot.config
        self.board.ok('robot_description', f"robot '{robot.linkage.name}' from the {origin}: "
                      f"{robot.linkage.n} joints, base '{robot.base_link}', tip "
                      f"'{robot.tip_link}'")

    def _on_description(self, msg: String) -> None:
        try:
            self._set_robot(build_robot(msg.data, self.config), 'robot_description topic')
        except PDLSIKError as exc:
            kept = ' (previous model kept)' if self.tracker else ''
            self._report('robot_description', f'robot_description rejected{kept}: {exc}')
        self.publish_diagnostics()

    def _report_groups(self) -> None:
        groups = self.service.groups
        if groups.srdf is None:
            self.board.ok('robot_description_semantic', 'no SRDF: ~/compute_ik answers for the '
                          "configured chain only (group_name '')")
        elif groups.problems:
            self.board.warn('robot_description_semantic', 'SRDF groups not fitting the robot: '
                            + '; '.join(groups.problems.values()))
        else:
            self.board.ok('robot_description_semantic',
                          f"SRDF groups: {', '.join(n for n in groups.names if n)}")

    def _on_semantic(self, msg: String) -> None:
        try:
            srdf = load_srdf(msg.data)
            if self.service is not None:
                self.service.set_srdf(srdf)
            self._srdf = srdf
        except PDLSIKError as exc:
            self._report('robot_description_semantic',
                         f'robot_description_semantic rejected (previous groups kept): {exc}')
            return
        if self.service is not None:
            self._report_groups()
        self.publish_diagnostics()

    # ------------------------------------------------------------ subscribers
    def _report(self, source: str, message: str) -> None:
        """ERROR on diagnostics (published at once when new) and in the log."""
        if self.board.error(source, message):
            self.get_logger().error(message)
            self.publish_diagnostics()

    def _on_goal(self, msg: PoseStamped) -> None:
        if self.tracker is None:
            self._report('goal_pose', 'goal dropped: no robot model yet')
            return
        try:
            self.tracker.offer_goal(pose_from_msg(msg, 'goal_pose'))
        except PDLSIKError as exc:
            self._report('goal_pose', f'goal dropped: {exc}')
            return
        self.board.ok('goal_pose', 'goal accepted', frame_id=msg.header.frame_id or '(base)')

    def _on_joint_states(self, msg: JointState) -> None:
        if self.tracker is None:
            return
        try:
            match = self.tracker.offer_joint_state(msg)
        except PDLSIKError as exc:
            self._report('joint_states', f'joint_states ignored: {exc}')
            return
        if match.missing:
            self.board.warn('joint_states', f"joints missing: {', '.join(match.missing)}")
        else:
            self.board.ok('joint_states', 'all joints received')

    # ---------------------------------------------------------------- solving
    def _make_tracking_timer(self):
        return self.create_timer(1.0 / self.config.tracking_rate, self._on_tracking_timer,
                                 callback_group=self._solve_group)

    def _on_tracking_timer(self) -> None:
        tracker = self.tracker
        if tracker is None or not tracker.has_goal:
            return
        try:
            out = tracker.cycle(1.0 / self.config.tracking_rate)
        except Exception as exc:  # noqa: BLE001 - the node must survive any solver failure
            self._report('solver', f'solve failed: {type(exc).__name__}: {exc}')
            return
        if out is None:
            return
        now = self.get_clock().now().to_msg()
        names = tracker.robot.joint_names
        self.pub_trajectory.publish(joint_trajectory(self.types, out.trajectory))  # stamp 0
        solution = joint_state(self.types, names, out.result.q, stamp=now)
        self.pub_solution.publish(solution)
        if self.pub_echo is not None:
            with self._echo_lock:
                self._echoed = (names, out.result.q)
                self.pub_echo.publish(solution)
        self.board.put('solver', out.status)
        self.publish_diagnostics()

    def _echo_state(self) -> None:
        tracker = self.tracker
        if tracker is None:
            return
        with self._echo_lock:
            names, q = self._echoed or (None, None)
            if names != tracker.robot.joint_names:  # no solution yet, or another robot
                names, q = tracker.robot.joint_names, tracker.current_q()
            self.pub_echo.publish(joint_state(self.types, names, q,
                                              stamp=self.get_clock().now().to_msg()))

    def _create_service(self) -> None:
        try:
            from moveit_msgs.srv import GetPositionFK, GetPositionIK
        except ImportError:
            self.board.warn('compute_ik', 'moveit_msgs not installed: ~/compute_ik and '
                            '~/compute_fk not offered')
            return
        self.create_service(GetPositionIK, '~/compute_ik', self._on_compute_ik,
                            callback_group=self._service_group)
        self.create_service(GetPositionFK, '~/compute_fk', self._on_compute_fk,
                            callback_group=self._service_group)
        self.board.ok('compute_ik', '~/compute_ik and ~/compute_fk ready')

    def _on_compute_ik(self, request, response):
        if self.service is None:
            reply = IKServiceReply(ErrorCode.FAILURE, 'no robot model yet')
        else:
            try:
                reply = self.service.compute(ik_request_from_msg(request),
                                             self.tracker.current_q)
            except RequestError as exc:
                reply = IKServiceReply(exc.code, str(exc))
        self.get_logger().info(f'compute_ik: {reply.code.name}: {reply.message}')
        return ik_response(self.types, reply, stamp=self.get_clock().now().to_msg())

    def _on_compute_fk(self, request, response):
        service = self.service
        if service is None:
            reply = FKServiceReply(ErrorCode.FAILURE, 'no robot model yet')
        else:
            try:
                reply = compute_fk(service.groups, fk_request_from_msg(request),
                                   self.tracker.current_q)
            except RequestError as exc:
                reply = FKServiceReply(exc.code, str(exc))
        if reply.code != ErrorCode.SUCCESS:
            self.get_logger().info(f'compute_fk: {reply.code.name}: {reply.message}')
        return fk_response(self.types, reply, stamp=self.get_clock().now().to_msg())

    # ------------------------------------------------------------- parameters
    def _on_set_parameters(self, parameters) -> SetParametersResult:
        changes = changes_of(parameters)
        frozen = sorted(set(changes) & set(read_only_names()))
        if frozen:
            return SetParametersResult(successful=False,
                                       reason=f"read-only at runtime: {', '.join(frozen)}")
        config, reason = apply_changes(self.config, changes)
        if config is None:
            return SetParametersResult(successful=False, reason=reason)
        description = changes.get('robot_description')
        try:
            if self.tracker is not None or description:
                source = description or self.tracker.robot.description
                self._set_robot(build_robot(source, config), 'parameters')
        except PDLSIKError as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        rate_changed = config.tracking_rate != self.config.tracking_rate
        self.config = config
        if rate_changed:
            self.destroy_timer(self._tracking_timer)
            self._tracking_timer = self._make_tracking_timer()
        self._aliases.after_accept()
        return SetParametersResult(successful=True)

    # ------------------------------------------------------------ diagnostics
    def publish_diagnostics(self) -> None:
        """Publish every current status on /diagnostics."""
        stamp = self.get_clock().now().to_msg()
        self.pub_diagnostics.publish(diagnostic_array(self.types, self.board.statuses(), stamp))


def main(args=None) -> int:
    """Entry point of ``pdls_ik_node``: 0 on a clean shutdown, 1 on a bad configuration."""
    return run_node(PDLSIKNode, NODE_NAME, args, lambda: MultiThreadedExecutor(num_threads=3))


if __name__ == '__main__':
    sys.exit(main())
