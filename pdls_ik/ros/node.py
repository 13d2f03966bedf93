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

Goal poses and joint states in; the controller's motion (joint trajectories, or positions for a
forward position controller), solutions and diagnostics out; the ``~/compute_ik`` and
``~/compute_fk`` services (MoveIt's GetPositionIK / GetPositionFK, groups from the SRDF of
``robot_description_semantic``) beside them.

Callback groups: subscriptions, parameters and the diagnostics timer share the node's default
group (short callbacks that only store); the tracking timer has its own group and the services a
reentrant one, so under a :class:`MultiThreadedExecutor` a solve never delays diagnostics or the
services, and a client calling from inside a callback of this process (MoveIt's Humble deadlock,
moveit2 #3633) does not stall them; no bad message stops the node: every failure becomes an
ERROR status on /diagnostics. moveit_msgs/CollisionObject messages on ``collision_object`` (the
topic MoveIt's planning scene reads too) become environment obstacles of the collision level
(:mod:`pdls_ik.ros_logic.collision_objects`). The robot's solvers load in a thread of their own
(:class:`~pdls_ik.ros_logic.loader.Loader`): when their numba kernels would compile (minutes on
a first start), the robot serves at once on the NumPy backend and switches to the compiled
kernels once they are loaded (:func:`~pdls_ik.ros_logic.loader.kernel_stages`); the ``backend``
status says which answers. Every callback enters a
:class:`~pdls_ik.ros_logic.gate.CallbackGate`, closed before the node is destroyed.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Optional, Sequence, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
from pdls_ik.diagnostics import OK
from pdls_ik.errors import ConfigError, PDLSIKError
from pdls_ik.model.srdf import load_srdf
from pdls_ik.msgs import (diagnostic_array, float64_multi_array, joint_state, joint_trajectory,
                          pose_from_msg, rclpy_types, time_msg_from_ns)
from pdls_ik.msgs.collision_object import collision_object_from_msg
from pdls_ik.msgs.moveit import ErrorCode, ik_request_from_msg, IKServiceReply, RequestError
from pdls_ik.msgs.moveit import fk_request_from_msg, fk_response, FKServiceReply, ik_response
from pdls_ik.ros.node_parameters import AliasMirror, changes_of, declare_all
from pdls_ik.ros.spin import run_node
from pdls_ik.ros_logic.board import Board
from pdls_ik.ros_logic.collision_objects import CollisionScene
from pdls_ik.ros_logic.collision_setup import collision_settings, collision_status
from pdls_ik.ros_logic.controller_setup import controller_joints
from pdls_ik.ros_logic.fk_service import compute_fk
from pdls_ik.ros_logic.gate import CallbackGate
from pdls_ik.ros_logic.ik_service import IKService, tip_priorities
from pdls_ik.ros_logic.lifetime import ExitGuard
from pdls_ik.ros_logic.loader import (backend_status, kernel_stages, KernelError, Loader,
                                      LOADING)
from pdls_ik.ros_logic.loopback import LoopBack
from pdls_ik.ros_logic.parameters import (apply_changes, COLLISION_PARAMETERS,
                                          COMMAND_OUT_TYPES, config_from_values, node_settings,
                                          read_only_names)
from pdls_ik.ros_logic.robot import build_robot
from pdls_ik.ros_logic.tracker import Tracker
from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory

NODE_NAME = 'pdls_ik_node'
#: delay of the first diagnostics after start [s] (then every diagnostics_period)
FIRST_DIAGNOSTICS = 0.3
#: longest wait for running callbacks at shutdown [s]
CLOSE_WAIT = 5.0
#: cycles before the current one at the start of a stamped trajectory (so that it is due when
#: it arrives, and a joint_trajectory_controller samples it without splicing)
STAMPED_PAST = 2


class PDLSIKNode(Node):
    """
    The IK node.

    Construction raises :class:`~pdls_ik.errors.PDLSIKError` on a bad start-up configuration
    (the caller logs it in one line and exits non-zero).
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.types = rclpy_types()
        self._gate = CallbackGate(lambda: not self.context.ok())
        values = declare_all(self)
        self.config = config_from_values(values)
        self.settings = node_settings(values)
        self.collision = collision_settings(values)
        #: environment obstacles from the collision_object topic (and the task file)
        self.scene = CollisionScene()
        #: collision objects received before the robot was loaded (applied once it is)
        self._pending_objects = []
        self._aliases = AliasMirror(self, lambda: self.config)
        self._aliases.sync_now()  # e.g. timeout reads a kinematics_solver_timeout given alone
        self.mode = values['mode']
        self.board = Board(self.get_name())
        self.tracker: Optional[Tracker] = None
        self.service = None
        self._loader = Loader(self._robot_loaded, self._robot_failed)
        #: why the compiled kernels of the robot in service failed to load ("" if they did not)
        self._kernel_failure = ''
        self._pending_goal = None
        self._last_match = None
        self._solve_group = MutuallyExclusiveCallbackGroup()
        self._service_group = ReentrantCallbackGroup()
        self._semantics = {'posture_state': values['posture_state'],
                           'tip_priorities': tip_priorities(values['ik_link_priorities'])}
        self._srdf = load_srdf(values['robot_description_semantic']) \
            if values['robot_description_semantic'] else None

        positions_out = self.settings['command_out_type'] == COMMAND_OUT_TYPES[1]
        self.pub_trajectory = None if positions_out else \
            self.create_publisher(JointTrajectory, 'joint_trajectory', 10)
        self.pub_positions = self.create_publisher(Float64MultiArray, 'commands', 10) \
            if positions_out else None
        self.pub_solution = self.create_publisher(JointState, '~/solution', 10)
        self.pub_diagnostics = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.pub_echo = (self.create_publisher(JointState, 'joint_states', 10)
                         if values['echo_joint_states'] else None)
        #: loop-back: (joint names, q) of the commanded state, repeated by the echo timer
        self._echoed: Optional[Tuple[Sequence[str], Sequence[float]]] = None
        self._echo_lock = threading.Lock()
        #: the loop-back publishes only while no other node publishes joint_states
        self._loopback = LoopBack(values['echo_joint_states'], time.monotonic())
        if self.pub_echo is not None:
            self.board.set('echo_joint_states', *self._loopback.status())

        self.board.warn('solver', 'waiting for the robot description')
        if values['robot_description']:
            self._load(values['robot_description'], self.config, 'parameter')
        else:
            self.board.warn('robot_description', 'waiting for the robot_description topic')
            latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                 reliability=ReliabilityPolicy.RELIABLE)
            self.create_subscription(String, 'robot_description', self._on_description, latched)
        self.create_subscription(PoseStamped, 'goal_pose', self._on_goal, 10)
        self.create_subscription(JointState, 'joint_states', self._on_joint_states, 10)
        self.board.warn('joint_states', 'no joint_states received yet: solving from the '
                        'commanded state, else mid-limits')
        self._create_service()
        if self._srdf is None:
            latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                 reliability=ReliabilityPolicy.RELIABLE)
            self.create_subscription(String, 'robot_description_semantic', self._on_semantic,
                                     latched)
        self._tracking_timer = self._make_tracking_timer()
        self._echo_timer = self._make_echo_timer()
        self.create_timer(values['diagnostics_period'], self._on_diagnostics_timer)
        # and once soon after start (subscribers have found the topic by then), whatever loads
        self._first_diagnostics = self.create_timer(FIRST_DIAGNOSTICS, self._on_first_diagnostics)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.publish_diagnostics()  # at once: a first start may load kernels for a minute
        tip = self.config.tip_link
        self.get_logger().info(f"{NODE_NAME} started ({self.mode}, tip '{tip}'): loading "
                               'the solver')

    # ------------------------------------------------------------------ model
    def _load(self, description: str, config, origin: str) -> None:
        """
        Check ``description`` now (links, controller joints), then load the solvers off-thread.

        :raises PDLSIKError: the description or configuration is bad (nothing changed).
        """
        robot = build_robot(description, config, self.collision, self._srdf,
                            self.scene.obstacles)
        controller_joints(robot, None, self.settings['controller_joints'])  # names only
        self.board.warn('solver', f'{LOADING}: robot from the {origin}')
        self._loader.start(lambda: kernel_stages(robot), origin)

    def _install(self, robot):
        """In the loader's thread: the tracker and service of ``robot`` (kernels loaded)."""
        if self.tracker is None:
            tracker = Tracker(robot, self.mode, self.settings['controller_joints'],
                              self.settings['state_timeout'], *self._stream_timing())
            return tracker, IKService(robot, self._srdf, **self._semantics)
        self.tracker.set_robot(robot)
        self.service.set_robot(robot)
        return self.tracker, self.service

    def _like_current(self, robot):
        """``robot`` on the NumPy backend when the one in service is (its kernels not loaded)."""
        tracker = self.tracker
        return robot.on_numpy() if tracker is not None and tracker.robot.interim else robot

    def _robot_loaded(self, robot, origin: str) -> None:
        """In the loader's thread: a stage of ``robot`` (on NumPy first, while kernels compile)."""
        with self._gate.enter() as open_:
            if not open_:
                return
            tracker, service = self._install(robot)
            self.tracker, self.service, self.config = tracker, service, robot.config
            self._kernel_failure = ''
            if self._srdf is not None and service.groups.srdf is not self._srdf:
                try:                            # arrived on the topic while the robot loaded
                    service.set_srdf(self._srdf)
                except PDLSIKError as exc:
                    self._report('robot_description_semantic',
                                 f'robot_description_semantic rejected: {exc}')
            self._report_groups()
            self._report_collision(robot)
            joints = ', '.join(tracker.commanded_joints)
            self.board.ok('robot_description', f"robot '{robot.linkage.name}' from the "
                          f"{origin}: {robot.linkage.n} joints, base '{robot.base_link}', tip "
                          f"'{robot.tip_link}', controller joints: {joints}")
            if not tracker.has_goal:        # (a switch of backend keeps the goal's status)
                self.board.ok('solver', 'ready: waiting for a goal')
            self._report_backend()
            left_out = tracker.uncommanded_joints
            if left_out:
                self.board.warn('controller_joints', 'the solver moves joints the controller '
                                f"does not command: {', '.join(left_out)}")
            else:
                self.board.ok('controller_joints', ', '.join(tracker.commanded_joints))
            self.get_logger().info(f'{NODE_NAME} ready: ' + (
                'answering from the NumPy backend while the solver kernels load (a first '
                'start on a machine compiles them: minutes)'
                if robot.interim else 'solver kernels loaded'))
            objects, self._pending_objects = self._pending_objects, []
            for msg in objects:
                self._apply_collision_object(msg)
            goal, self._pending_goal = self._pending_goal, None
            if goal is not None:
                self._offer_goal(goal)
            self.publish_diagnostics()

    def _robot_failed(self, exc: BaseException, origin: str) -> None:
        with self._gate.enter() as open_:
            if not open_:
                return
            if isinstance(exc, KernelError):        # the NumPy stage answers on
                self._kernel_failure = str(exc)
                self._report_backend()
                self.publish_diagnostics()
                return
            kept = ' (previous model kept)' if self.tracker else ''
            if self.tracker is None:
                self.board.error('solver', 'no solver: the robot was rejected (robot_description)')
            else:
                self.board.ok('solver', 'ready (previous robot kept)')
            self._report('robot_description', f'robot from the {origin} rejected{kept}: {exc}')

    def _on_description(self, msg: String) -> None:
        with self._gate.enter() as open_:
            if not open_:
                return
            try:
                self._load(msg.data, self.config, 'robot_description topic')
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

    def _report_collision(self, robot) -> None:
        """Report the self_collision status: the model in use, off, or why it is not built."""
        level, message = collision_status(robot)
        if level == 'error':
            self._report('self_collision', message)
        else:
            self.board.ok('self_collision', message)

    def _on_semantic(self, msg: String) -> None:
        with self._gate.enter() as open_:
            if not open_:
                return
            try:
                srdf = load_srdf(msg.data)
                tracker = self.tracker
                if tracker is not None and tracker.robot.collision is not None:
                    # the collision model skips the SRDF's disable_collisions pairs: rebuilt
                    robot = self._like_current(build_robot(
                        tracker.robot.description, self.config, self.collision, srdf,
                        self.scene.obstacles))
                    tracker.set_robot(robot)
                    self.service.set_robot(robot, srdf)
                    self._report_collision(robot)
                elif self.service is not None:
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
        with self._gate.enter() as open_:
            if not open_:
                return
            if self.tracker is None or self._loader.waiting:
                self._pending_goal = msg
                self.board.warn('goal_pose', f'goal held until the solver is ready '
                                f'({LOADING})')
                return
            self._offer_goal(msg)

    def _offer_goal(self, msg: PoseStamped) -> None:
        try:
            self.tracker.offer_goal(pose_from_msg(msg, 'goal_pose'),
                                    self.get_clock().now().nanoseconds / 1e9)
        except PDLSIKError as exc:
            self._report('goal_pose', f'goal dropped: {exc}')
            return
        self.board.ok('goal_pose', 'goal accepted', frame_id=msg.header.frame_id or '(base)')

    def _on_joint_states(self, msg: JointState) -> None:
        with self._gate.enter() as open_:
            tracker = self.tracker
            if not open_ or tracker is None:
                return
            try:
                match = tracker.offer_joint_state(msg, time.monotonic())
            except PDLSIKError as exc:
                self._report('joint_states', f'joint_states ignored: {exc}')
                return
            if match is None:
                return  # velocities or efforts only: nothing to read, skipped quietly
            self._last_match = match
            level, message = tracker.state_status(time.monotonic(), match)
            self.board.set('joint_states', level, message)

    # ---------------------------------------------------------------- solving
    def _period(self) -> float:
        return 1.0 / self.config.tracking_rate

    def _make_tracking_timer(self):
        return self.create_timer(self._period(), self._on_tracking_timer,
                                 callback_group=self._solve_group)

    def _make_echo_timer(self):
        """Loop-back: joint_states at the tracking rate (never stale), or None."""
        if self.pub_echo is None:
            return None
        return self.create_timer(self._period(), self._echo_state)

    def _sync_timers(self) -> None:
        """Re-create the timers whose period is not 1 / tracking_rate (rate changed)."""
        period_ns = int(round(self._period() * 1e9))
        if self._tracking_timer.timer_period_ns != period_ns:
            self.destroy_timer(self._tracking_timer)
            self._tracking_timer = self._make_tracking_timer()
        if self._echo_timer is not None and self._echo_timer.timer_period_ns != period_ns:
            self.destroy_timer(self._echo_timer)
            self._echo_timer = self._make_echo_timer()

    def _on_tracking_timer(self) -> None:
        with self._gate.enter() as open_:
            tracker = self.tracker
            if not open_ or tracker is None or not tracker.has_goal:
                return
            now = time.monotonic()
            clock = self.get_clock().now().nanoseconds / 1e9  # the controller's time line
            try:
                out = tracker.cycle(self._period(), now, clock)
            except Exception as exc:  # noqa: BLE001 - the node must survive any solver failure
                self._report('solver', f'solve failed: {type(exc).__name__}: {exc}')
                return
            if out is None:  # stale joint states: no motion
                level, message = tracker.state_status(now, self._last_match)
                if self.board.set('joint_states', level, message):
                    self.get_logger().error(message)
                    self.publish_diagnostics()
                return
            self._publish_cycle(tracker, out)

    def _stream_timing(self) -> tuple:
        """
        (lookahead [s], past cycles) of the streamed motion.

        Stamped trajectories: ``stream_lookahead`` committed ahead, and messages that start
        :data:`STAMPED_PAST` cycles back (due when they arrive: the controller never splices);
        stamp zero and forward position commands: one cycle, no past.
        """
        if self.pub_trajectory is not None and self.settings['stamp_trajectories']:
            return self.settings['stream_lookahead'], STAMPED_PAST
        return 0.0, 0

    def _publish_cycle(self, tracker: Tracker, out) -> None:
        if self.pub_trajectory is not None:
            start = out.trajectory.start_ns
            stamp = 0.0 if start is None or not self.settings['stamp_trajectories'] else \
                time_msg_from_ns(self.types, start)
            self.pub_trajectory.publish(joint_trajectory(self.types, out.trajectory, stamp))
        else:
            positions = out.commanded[[tracker.robot.joint_names.index(n)
                                       for n in out.trajectory.joint_names]]
            self.pub_positions.publish(float64_multi_array(self.types, positions))
        now = self.get_clock().now().to_msg()
        names = tracker.robot.joint_names
        self.pub_solution.publish(joint_state(self.types, names, out.result.q, stamp=now))
        if self.pub_echo is not None:
            with self._echo_lock:
                self._echoed = (names, out.commanded)
                if self._loopback.active:
                    self.pub_echo.publish(joint_state(self.types, names, out.commanded,
                                                      stamp=now))
        try:
            level = self.board.get('solver').level
        except KeyError:
            level = None
        self.board.put('solver', out.status)
        if out.status.level != level or out.goal_done:  # else at the diagnostics period
            self.publish_diagnostics()

    def _echo_state(self) -> None:
        with self._gate.enter() as open_:
            tracker = self.tracker
            if not open_ or tracker is None or not self._watch_joint_states():
                return
            with self._echo_lock:
                names, q = self._echoed or (None, None)
                if names != tracker.robot.joint_names:  # no motion yet, or another robot
                    names, q = tracker.robot.joint_names, tracker.current_q()
                self.pub_echo.publish(joint_state(self.types, names, q,
                                                  stamp=self.get_clock().now().to_msg()))

    def _watch_joint_states(self) -> bool:
        """Count the other joint_states publishers (while it matters); True: loop-back on."""
        with self._echo_lock:
            if self._loopback.watching:
                others = self.count_publishers(self.pub_echo.topic_name) - 1  # but its own
                if self._loopback.update(time.monotonic(), others):
                    level, message = self._loopback.status()
                    self.board.set('echo_joint_states', level, message)
                    self.get_logger().info(f'echo_joint_states: {message}')
                    self.publish_diagnostics()
            return self._loopback.active

    def _create_service(self) -> None:
        try:
            from moveit_msgs.msg import CollisionObject
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
        self.create_subscription(CollisionObject, 'collision_object', self._on_collision_object,
                                 10)
        self.board.ok('collision_object', self.scene.summary())

    def _frame_pose(self, frame_id: str):
        """(4, 4) of a frame in the robot's root frame at the current joint state."""
        groups, tracker = self.service.groups, self.tracker
        link = groups.link_of_frame(frame_id)
        linkage = tracker.robot.linkage
        linkage.link_index(link)
        return linkage.forward_kinematics(tracker.current_q(), link, linkage.root_link)

    def _on_collision_object(self, msg) -> None:
        with self._gate.enter() as open_:
            if not open_:
                return
            if self.service is None or self._loader.waiting:
                self._pending_objects.append(msg)
                self.board.warn('collision_object', f'{len(self._pending_objects)} collision '
                                f'object message(s) held until the robot is loaded')
                return
            self._apply_collision_object(msg)
            self.publish_diagnostics()

    def _apply_collision_object(self, msg) -> None:
        try:
            line = self.scene.apply(collision_object_from_msg(msg), self._frame_pose)
        except PDLSIKError as exc:
            self._report('collision_object', f'collision object dropped: {exc}')
            return
        self.board.ok('collision_object', f'{line}; {self.scene.summary()}')

    def _unavailable(self, open_: bool) -> Optional[str]:
        """Why the services cannot answer now (shutting down, robot loading), or None."""
        if not open_:
            return 'node shutting down'
        progress = self._loader.progress()
        if self.service is None or self._loader.waiting:
            why = progress or 'no robot model yet (waiting for robot_description)'
            return f'solver not ready, retry later: {why}'
        return None

    def _on_compute_ik(self, request, response):
        with self._gate.enter() as open_:
            why = self._unavailable(open_)
            try:
                reply = IKServiceReply(ErrorCode.FAILURE, why) if why else \
                    self.service.compute(ik_request_from_msg(request), self.tracker.current_q)
            except RequestError as exc:
                reply = IKServiceReply(exc.code, str(exc))
            self.get_logger().info(f'compute_ik: {reply.code.name}: {reply.message}')
            return ik_response(self.types, reply, stamp=self.get_clock().now().to_msg())

    def _on_compute_fk(self, request, response):
        with self._gate.enter() as open_:
            why = self._unavailable(open_)
            try:
                reply = FKServiceReply(ErrorCode.FAILURE, why) if why else \
                    compute_fk(self.service.groups, fk_request_from_msg(request),
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
        collision = self.collision
        if set(changes) & set(COLLISION_PARAMETERS):
            values = {name: getattr(self.collision, field) for name, field in
                      zip(COLLISION_PARAMETERS, ('enabled', 'd_min', 'model', 'mesh_path'))}
            try:
                collision = collision_settings(dict(values, **changes))
            except PDLSIKError as exc:
                return SetParametersResult(successful=False, reason=str(exc))
        if 'state_timeout' in changes:
            try:
                settings = node_settings(dict(self.settings, **changes))
            except PDLSIKError as exc:
                return SetParametersResult(successful=False, reason=str(exc))
            self.settings = settings
            if self.tracker is not None:
                self.tracker.state_timeout = settings['state_timeout']
        description = changes.get('robot_description')
        if description or (self.tracker is not None and (config != self.config or
                                                         collision != self.collision)):
            if self._loader.loading and not description:
                return SetParametersResult(successful=False,
                                           reason=f'{LOADING}: retry when the solver is ready')
            source = description or self.tracker.robot.description
            previous, self.collision = self.collision, collision
            try:
                robot = build_robot(source, config, collision, self._srdf, self.scene.obstacles)
                if robot.collision_problem:
                    raise ConfigError(robot.collision_problem)
                controller_joints(robot, None, self.settings['controller_joints'])
                if self.tracker is not None and not description:
                    robot = self._like_current(robot)
                    self.tracker.set_robot(robot)  # kernels in memory already: quick
                    self.service.set_robot(robot)
                    self._report_collision(robot)
                else:
                    self._load(source, config, 'parameters')
            except PDLSIKError as exc:
                self.collision = previous
                return SetParametersResult(successful=False, reason=str(exc))
        self.collision = collision
        self.config = config
        self._sync_timers()  # after self.config: the rate in force decides
        self._aliases.after_accept()
        return SetParametersResult(successful=True)

    # ------------------------------------------------------------ diagnostics
    def _on_diagnostics_timer(self) -> None:
        with self._gate.enter() as open_:
            if not open_:
                return
            progress = self._loader.progress()
            if progress is not None and self._loader.waiting:
                self.board.warn('solver', progress)
            self._report_backend()
            tracker = self.tracker
            if tracker is not None and tracker.state_age(time.monotonic()) is not None:
                level, message = tracker.state_status(time.monotonic(), self._last_match)
                self.board.set('joint_states', level, message)
            self.publish_diagnostics()

    def _report_backend(self) -> None:
        """Set the ``backend`` status: the backend answering, and why (logged on a change)."""
        tracker = self.tracker
        if tracker is None:
            return
        compiling = self._loader.elapsed() if tracker.robot.interim else None
        level, message = backend_status(tracker.robot, *tracker.backend, compiling,
                                        self._kernel_failure)
        try:
            old = self.board.get('backend').level
        except KeyError:
            old = None
        if self.board.set('backend', level, message) and level != old:
            # one call site per severity: rclpy refuses a call site whose severity changes
            if level == OK:
                self.get_logger().info(f'backend: {message}')
            else:
                self.get_logger().warning(f'backend: {message}')

    def _on_first_diagnostics(self) -> None:
        self._first_diagnostics.cancel()
        self._on_diagnostics_timer()

    def publish_diagnostics(self) -> None:
        """Publish every current status on /diagnostics."""
        stamp = self.get_clock().now().to_msg()
        self.pub_diagnostics.publish(diagnostic_array(self.types, self.board.statuses(), stamp))

    # --------------------------------------------------------------- shutdown
    def close(self, timeout: float = CLOSE_WAIT) -> bool:
        """
        Let no callback start and wait for the running ones (before ``destroy_node``).

        :return: True when none is left running within ``timeout`` [s].
        """
        return self._gate.close(timeout)


def main(args=None) -> int:
    """Entry point of ``pdls_ik_node``: 0 on a clean shutdown, 1 on a bad configuration."""
    return run_node(PDLSIKNode, NODE_NAME, args, lambda: MultiThreadedExecutor(num_threads=3),
                    ExitGuard())


if __name__ == '__main__':
    sys.exit(main())
