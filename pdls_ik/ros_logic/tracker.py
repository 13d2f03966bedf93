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
The tracking loop without ROS: latest goal and joint state in, one bounded solve per cycle.

Subscriptions only store (:meth:`Tracker.offer_goal`, :meth:`Tracker.offer_joint_state`): a
goal replaces any goal not yet reached, so a flood of goals never queues up (the newest wins).
The node's timer calls :meth:`Tracker.cycle` at ``tracking_rate`` in its own callback group.

A cycle (tracking mode) continues the commanded motion (:class:`pdls_ik.trajectory.StreamPlanner`):
it solves :meth:`IKSolver.track` from the last *commanded* position (the head of the committed
motion, a lookahead ahead of the cycle), advances the commanded state (position and velocity)
toward that solution under the velocity and acceleration bounds up to the cycle's time (given
the controller's clock, a late cycle catches up), and publishes the controller's joints of that
motion, continued to rest. The solution's change since the previous goal (a moving goal) is
followed as the target's velocity, so that a goal stream is tracked without lag (with the goals'
receipt times: their velocity over the last :data:`STREAM_WINDOW`, whatever the cycles that saw
them); a cycle held by the velocity box (a far goal) is solved again over the braking horizon
(:func:`pdls_ik.trajectory.braking_horizon`), so that the motion can reach full speed and still
stop on the goal. Once the commanded state can stop within a cycle
and the solution meets the goal, the motion lands on that solution and rests there.

A stream starts from the measured joint state (else mid-limits); it restarts from a measured
state only when the commanded motion has rested for :data:`RESYNC_SETTLE` and the robot is
measured more than :data:`RESYNC_TOL` away from it (moved by something else): while it moves,
or runs a lookahead behind the head, a lagging joint_states never resets it.

The goal stays active until the commanded state rests on a solution within tolerance (reached)
or stops making progress (:data:`STALL_CYCLES` cycles of a motion slow enough to stop within a
cycle that did not lower the remaining error, position [m] + orientation [rad] of the commanded
state, by a relative :data:`PROGRESS`; a motion at speed may first turn away from the goal): then
the goal is given up as ``unreachable`` (farther from the base than the chain reaches) or
``stalled``. Each cycle carries a status (:func:`pdls_ik.diagnostics.tracking_status`): OK or
WARN with the remaining distance while approaching; ERROR only when given up.

Joint states older than ``state_timeout`` (after one was received) are stale: no cycle runs and
no motion is published until a fresh one arrives (the stream then restarts from it).

In one-shot mode a goal gets one :meth:`IKSolver.solve` with restarts and a point-to-point
trajectory (:func:`pdls_ik.trajectory.plan_to`) instead.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
import threading
from typing import List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.diagnostics import (APPROACHING, DiagnosticStatus, ERROR, OK, REACHED, STALLED,
                                 tracking_status, UNREACHABLE, WARN)
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.msgs.joint_state import has_positions, joint_state_to_q, JointMatch
from pdls_ik.ros_logic.controller_setup import controller_joints
from pdls_ik.ros_logic.frames import goal_in_base
from pdls_ik.ros_logic.robot import Robot
from pdls_ik.trajectory import braking_horizon, planner_for, StreamPlanner
from pdls_ik.trajectory import plan_to, select_joints, Trajectory

#: relative decrease of the goal error below which a cycle makes no progress
PROGRESS = 1e-6
#: consecutive cycles without progress after which a goal is given up (stalled)
STALL_CYCLES = 20
MODES = ('tracking', 'one_shot')
#: gap [rad or m] between the measured and the commanded state at rest beyond which a new
#: stream starts from the measured one (the robot was moved by something else)
RESYNC_TOL = 1e-3
#: goal streams with receipt times: the window [s] of goals that gives the stream's velocity,
#: the longest interval [s] between two goals of one stream, and the wait for a late goal, in
#: goal intervals, before the motion stops on the last one
STREAM_WINDOW = 0.05
STREAM_GAP = 0.5
STREAM_GRACE = 1.0
#: goal streams with receipt times: the longest irregularity [s] of goal arrivals absorbed (the
#: target runs this much further behind the goals)
STREAM_JITTER = 0.02
#: time [s] the commanded motion rests before a measured state off it counts as moved by others
RESYNC_SETTLE = 0.25
#: stale joint_states: default age limit in tracking periods (``state_timeout`` 0), and its
#: floor [s] (a loaded machine delays messages by tens of milliseconds)
STALE_PERIODS = 5
STALE_MIN = 0.1


@dataclass(frozen=True)
class CycleOutput:
    """
    What one cycle publishes.

    :ivar q_from: (n,) commanded joint positions the cycle started from.
    :ivar result: the :class:`pdls_ik.ik.IKResult` (its ``q``: the solution the motion heads to).
    :ivar trajectory: the controller's joints, from the commanded state on.
    :ivar commanded: (n,) commanded joint positions one period later (forward position
        controllers, the loop-back); the plan runs ahead of them by the lookahead.
    :ivar status: diagnostic status of the cycle.
    :ivar goal_done: the goal is finished (reached or given up); no further cycles for it.
    """

    q_from: NDArray[np.float64]
    result: object
    trajectory: Trajectory
    commanded: NDArray[np.float64]
    status: DiagnosticStatus
    goal_done: bool


@dataclass
class _Segment:
    """A goal of a stream: the solutions it runs between, over ``cycles`` cycles."""

    seq: int
    since: int
    anchor: Optional[NDArray[np.float64]]
    cycles: int
    solution: NDArray[np.float64]


class Tracker:
    """
    Latest goal and joint state of one robot, and the solve cycle (thread-safe).

    :param controller_names: the ``controller_joints`` parameter (:func:`controller_joints`).
    :param state_timeout: age [s] above which received joint states are stale; 0: five
        tracking periods (:data:`STALE_PERIODS`), at least :data:`STALE_MIN`.
    :param lookahead: committed time [s] of the streamed motion ahead of the current cycle
        (:class:`pdls_ik.trajectory.StreamPlanner`; 0: one cycle).
    :param past: cycles before the current one at the start of each message (messages placed on
        the controller's time line: their first point is due when they arrive).
    """

    def __init__(self, robot: Robot, mode: str = 'tracking',
                 controller_names: Sequence[str] = (), state_timeout: float = 0.0,
                 lookahead: float = 0.0, past: int = 0):
        if mode not in MODES:
            raise ValueError(f'mode: expected one of {MODES}, got {mode!r}')
        self.mode = mode
        self.controller_names = list(controller_names)
        self.state_timeout = float(state_timeout)
        self.lookahead, self.past = float(lookahead), int(past)
        self._lock = threading.Lock()
        self._robot = robot
        self._solver = robot.solver(one_shot=mode == 'one_shot')
        self._commanded = controller_joints(robot, self._solver, self.controller_names)
        self._stream = self._new_stream(robot)
        self._goal: Optional[NDArray[np.float64]] = None
        #: (4, 4) the last goal offered (active or finished)
        self._last_target: Optional[NDArray[np.float64]] = None
        self._goal_seq = 0
        #: (n,) the solution the commanded state lands on once it meets the goal
        self._landing: Optional[NDArray[np.float64]] = None
        #: (n,) the previous cycle's solution when it was not bounded by the velocity box
        #: the goal-stream segment in progress (cycles not bounded by the velocity box)
        self._previous_solution: Optional[_Segment] = None
        self._cycle_count = 0
        #: receipt clock of the active goal; (receipt clock, solution) of a goal stream's goals
        self._goal_clock: Optional[float] = None
        self._stream_goals: List[tuple] = []
        self._idle_cycles = 0
        self._best_error = math.inf
        self._q_measured: Optional[NDArray[np.float64]] = None
        self._measured_at: Optional[float] = None
        self._fresh = False  # a joint state arrived since the stream last came to rest
        self._q_solution: Optional[NDArray[np.float64]] = None

    def _new_stream(self, robot: Robot) -> StreamPlanner:
        return planner_for(robot.linkage, robot.config, 1.0 / robot.config.tracking_rate,
                           self._commanded, self.lookahead, self.past)

    @property
    def robot(self) -> Robot:
        """Return the robot in service."""
        return self._robot

    @property
    def backend(self) -> Tuple[str, str]:
        """(:attr:`IKSolver.backend`, :attr:`IKSolver.backend_reason`) of its solver."""
        solver = self._solver
        return solver.backend, solver.backend_reason

    @property
    def commanded_joints(self) -> List[str]:
        """Names of the joints in the published motion (the controller's joints)."""
        return [self._robot.joint_names[i] for i in self._commanded]

    @property
    def uncommanded_joints(self) -> List[str]:
        """Joints the solver moves that the controller's joints leave out (held by nothing)."""
        free = np.flatnonzero(self._solver.free)
        return [self._robot.joint_names[i] for i in free if i not in set(self._commanded)]

    def set_robot(self, robot: Robot) -> None:
        """
        Swap in a new robot (description or parameters changed).

        The commanded motion continues when the joints are the same; the state of joints is reset
        otherwise. The solver is built first, so a failure leaves the previous robot in service.

        :raises ConfigError: ``controller_joints`` does not fit the new robot.
        """
        solver = robot.solver(one_shot=self.mode == 'one_shot')
        commanded = controller_joints(robot, solver, self.controller_names)
        with self._lock:
            same_joints = robot.joint_names == self._robot.joint_names
            old = self._stream
            self._robot, self._solver, self._commanded = robot, solver, commanded
            self._stream = self._new_stream(robot)
            if same_joints and old.active:
                self._stream.continue_from(old)
            if not same_joints:
                self._goal = self._q_measured = self._q_solution = self._last_target = None
                self._measured_at = None

    def current_q(self) -> NDArray[np.float64]:
        """(n,) best known joint positions: joint_states, else the commanded state, else mid."""
        with self._lock:
            return self._current_q_locked()

    def _current_q_locked(self) -> NDArray[np.float64]:
        for q in (self._q_measured, self._stream.positions, self._q_solution):
            if q is not None:
                return q.copy()
        return self._robot.default_q()

    def offer_joint_state(self, msg, now: Optional[float] = None) -> Optional[JointMatch]:
        """
        Store the joint positions of a JointState message (matched by name) received at ``now``.

        Joints missing from the message keep their last known value (see ``missing``).

        :param now: receive time [s] on a monotonic clock (for :meth:`state_age`), or None.
        :return: the match; None for a message without positions (velocity or effort only, as
            some drivers send), which is skipped.
        :raises InputError: no joint names, mismatched arrays, NaN position (naming the field).
        """
        if not has_positions(msg):
            return None
        with self._lock:
            match = joint_state_to_q(msg, self._robot.joint_names,
                                     fallback=self._current_q_locked())
            if match.found.any():
                self._q_measured = match.q
                self._measured_at = now
                self._fresh = True
        return match

    def state_limit(self) -> float:
        """Age [s] above which a received joint state is stale."""
        if self.state_timeout > 0.0:
            return self.state_timeout
        return max(STALE_PERIODS / self._robot.config.tracking_rate, STALE_MIN)

    def state_age(self, now: float) -> Optional[float]:
        """Age [s] of the last joint state at ``now``; None before the first one (or untimed)."""
        at = self._measured_at
        return None if at is None else max(0.0, now - at)

    def is_stale(self, now: Optional[float]) -> bool:
        """Tell whether joint states were received and the last one is too old at ``now``."""
        age = None if now is None else self.state_age(now)
        return age is not None and age > self.state_limit()

    def state_status(self, now: float, match: Optional[JointMatch] = None) -> tuple:
        """
        (level, message) of the joint_states input at ``now``.

        ERROR when stale (:meth:`is_stale`), WARN before the first message or when joints are
        missing from the last one, else OK.
        """
        age = self.state_age(now)
        if age is None:
            return WARN, ('no joint_states received yet: solving from the commanded state, '
                          'else mid-limits')
        if age > self.state_limit():
            return ERROR, (f'stale: last joint_states {age:.3g} s ago (limit '
                           f'{self.state_limit():.3g} s, parameter state_timeout): motion '
                           f'stopped until a fresh one arrives')
        if match is not None and match.missing:
            return WARN, f"joints missing: {', '.join(match.missing)}"
        return OK, 'all joints received'

    def offer_goal(self, goal: ParsedPose, clock: Optional[float] = None
                   ) -> NDArray[np.float64]:
        """
        Make ``goal`` the active goal (replacing any other); return it in the base frame.

        :param clock: receipt time [s] on the clock of :meth:`cycle` (a goal stream's timing).
        :raises LinkError: unknown goal frame.
        """
        with self._lock:
            target = goal_in_base(self._robot.linkage, self._robot.base_link, goal,
                                  self._current_q_locked())
            if self._same_goal(target):
                # the same goal re-sent (a marker held still, a goal repeated at 20 Hz): the
                # approach, its landing point and its progress count go on; a goal reached or
                # given up stays so, unless the robot was moved away meanwhile
                if self._goal is None and self._moved():
                    self._goal = target
                return target
            self._goal, self._last_target = target, target
            self._goal_clock = None if clock is None else float(clock)
            self._goal_seq += 1
            self._landing = None
            self._idle_cycles, self._best_error = 0, math.inf
        return target

    def _same_goal(self, target: NDArray[np.float64]) -> bool:
        """Tell whether ``target`` (4, 4) is the last goal within the solver's tolerances."""
        last = self._last_target
        if last is None:
            return False
        cfg = self._robot.config
        moved = float(np.linalg.norm(target[:3, 3] - last[:3, 3]))
        cos = 0.5 * (float(np.trace(last[:3, :3].T @ target[:3, :3])) - 1.0)
        turned = math.acos(min(1.0, max(-1.0, cos)))
        return moved <= 0.1 * cfg.position_tolerance and turned <= 0.1 * cfg.orientation_tolerance

    @property
    def has_goal(self) -> bool:
        """Tell whether a goal waits for (more) cycles."""
        return self._goal is not None

    def cycle(self, dt: float, now: Optional[float] = None,
              clock: Optional[float] = None) -> Optional[CycleOutput]:
        """
        One solve toward the active goal; None when there is none or joint states are stale.

        :param dt: cycle period [s] (1 / tracking_rate): the time step of the commanded motion.
        :param now: the time [s] (monotonic clock of :meth:`offer_joint_state`) for the stale
            check; None: no check.
        :param clock: the time [s] of this cycle on the controller's clock (ROS time): the
            commanded motion runs on that time line (a late cycle catches up) and each message
            carries its start time there; None: every call is one cycle.
        """
        with self._lock:
            if self._goal is None:
                return None
            if self.is_stale(now):
                self._stream.reset(None)  # restart from the next fresh state
                return None
            target, seq, goal_clock = self._goal, self._goal_seq, self._goal_clock
            robot, solver, stream = self._robot, self._solver, self._stream
            if self.mode == 'one_shot':
                q_from = self._current_q_locked()
            else:
                if not stream.active or (self._fresh and self._moved(clock)):
                    stream.reset(self._current_q_locked(), clock)
                self._fresh = False
                q_from = stream.positions.copy()
        if self.mode == 'one_shot':
            return self._one_shot(robot, solver, target, seq, q_from)
        stream.dt = float(dt)
        result = solver.track(target, q_from, dt)
        q_star = np.asarray(result.q, dtype=float)
        landing = self._landing
        if landing is None and result.success and stream.can_stop:
            # a solution of the goal, and a motion that can turn toward it: land there and stay
            # (solutions recomputed each cycle drift in the null space with the posture task,
            # and a motion chasing them would never come to rest)
            landing = self._landing = q_star
        target_q, velocity = self._aim(stream, solver, target, seq, q_from, q_star,
                                       result.success, dt, (clock, goal_clock))
        trajectory = stream.step(target_q if landing is None else landing,
                                 None if landing is not None else velocity, clock)
        commanded = stream.next_positions.copy()
        position_left, orientation_left = solver.errors(stream.positions)
        error = float(position_left) + float(orientation_left)
        reached = landing is not None and stream.arrived
        waiting = landing is not None and stream.at_rest and not reached  # on its way there
        with self._lock:
            current = robot is self._robot and seq == self._goal_seq
            if current and error < self._best_error * (1.0 - PROGRESS):
                self._idle_cycles, self._best_error = 0, error
            elif current and stream.can_stop:  # no progress, and the motion has slowed down
                self._idle_cycles += 1
            stalled = self._idle_cycles >= STALL_CYCLES and not (reached or waiting)
            if robot is self._robot:
                self._q_solution = np.asarray(result.q, dtype=float)
                if (reached or stalled) and current:
                    self._goal = None  # reached or given up, and no newer goal arrived
        phase, detail = REACHED if reached else APPROACHING, ''
        if stalled:
            phase, detail = self._given_up(robot, target)
        status = tracking_status(result, phase, position_left, orientation_left,
                                 hardware_id=robot.linkage.name, detail=detail)
        return CycleOutput(q_from, result, trajectory, commanded, status, reached or stalled)

    def _aim(self, stream: StreamPlanner, solver, target, seq: int, q_from, q_star,
             success: bool, dt: float, clocks: tuple = (None, None)):
        """
        Return the stream's target (n,) and its velocity (n,) or None for this cycle's solution.

        A cycle bounded by the velocity box (a far goal) gives only the first step of the way:
        a second tracking solve over the braking horizon gives a target far enough ahead for
        the stream to move at full speed and still stop on time (or the goal's solution, when
        that solve reaches it). The solution is the target; for a goal stream, the target runs
        from the previous goal's solution to the new one over the cycles that separated the two
        goals, at that velocity (followed without lag at 100 Hz, without stop-and-go at 20 Hz);
        a change larger than the velocity box allows is a jump (a goal elsewhere), not a motion
        to follow. With the receipt times of the goals (``clocks``: this cycle's and the goal's),
        :meth:`_aim_timed` instead.
        """
        self._cycle_count += 1
        reach = stream.vmax * dt
        step = np.abs(q_star - q_from)
        free = solver.free
        saturated = not success and bool(np.any(step[free] >= (1.0 - 1e-6) * reach[free]))
        if saturated:
            horizon = braking_horizon(stream.vmax, stream.amax, dt)
            far = solver.track(target, q_from, horizon)
            q_star = np.asarray(far.q, dtype=float)
            if not far.success:  # a far goal: approach it, no stream to follow
                self._previous_solution = None
                self._stream_goals = []
                return q_star, None
        if clocks[0] is not None and clocks[1] is not None:
            return self._aim_timed(stream, seq, q_star, dt, *clocks)
        previous = self._previous_solution
        if previous is None or previous.seq != seq:  # a new goal: it starts a stream segment
            cycles = None if previous is None else self._cycle_count - previous.since
            anchor = None if previous is None else previous.solution
            if anchor is not None and np.any(np.abs(q_star - anchor) > reach * cycles):
                anchor = None  # a jump to a goal elsewhere: no motion to follow
            previous = self._previous_solution = _Segment(seq, self._cycle_count, anchor,
                                                          cycles or 1, q_star)
        previous.solution = q_star
        if previous.anchor is None:
            return q_star, None
        # the segment from the previous goal's solution to this one, run over the interval
        # between the two goals: the stream follows it at its velocity, one cycle of grace
        # for a late goal, then the motion stops on the goal's solution
        elapsed = self._cycle_count - previous.since
        if elapsed > previous.cycles:
            return q_star, None
        fraction = min(1.0, (elapsed + 1) / previous.cycles)
        velocity = (q_star - previous.anchor) / (previous.cycles * dt)
        return previous.anchor + (q_star - previous.anchor) * fraction, velocity

    def _aim_timed(self, stream: StreamPlanner, seq: int, q_star, dt: float, clock: float,
                   goal_clock: float):
        """
        Return a goal stream's target and velocity from the receipt times of its goals.

        The goals received within :data:`STREAM_WINDOW` give the stream's velocity (their
        solutions over their receipt times: a goal that arrives late or early, or two in one
        cycle, barely change it). The target runs behind the newest goal's solution at that
        velocity, by one goal interval less a cycle (it reaches the solution when the next goal
        is due) plus up to :data:`STREAM_JITTER` for goals that arrive irregularly, and stops on
        it when none has come a further :data:`STREAM_GRACE` intervals later.
        """
        goals = self._stream_goals
        previous = self._previous_solution
        if previous is None or previous.seq != seq:  # a new goal
            self._previous_solution = _Segment(seq, self._cycle_count, None, 1, q_star)
            if goals:
                last_clock, last_q = goals[-1]
                interval = goal_clock - last_clock
                reach = stream.vmax * (interval + dt)
                if interval <= 0.0 or interval > STREAM_GAP or \
                        np.any(np.abs(q_star - last_q) > reach):
                    goals.clear()  # a goal elsewhere, or after a pause: no motion to follow
            goals.append((goal_clock, q_star))
            while len(goals) > 2 and goal_clock - goals[1][0] >= STREAM_WINDOW:
                goals.pop(0)
        goals[-1] = (goals[-1][0], q_star)
        span = goals[-1][0] - goals[0][0]
        if len(goals) < 2 or span <= 0.0:
            return q_star, None
        interval = span / (len(goals) - 1)
        allowance = min(interval, STREAM_JITTER)
        age = clock - goal_clock
        if age > interval * (1.0 + STREAM_GRACE) + allowance:
            return q_star, None
        velocity = (q_star - goals[0][1]) / span
        return q_star + velocity * min(age - (interval - dt + allowance), 0.0), velocity

    def _moved(self, clock: Optional[float] = None) -> bool:
        """
        Tell whether the measured state is off the commanded one at rest (moved by others).

        With the cycle's ``clock``, only once the commanded motion has rested for
        :data:`RESYNC_SETTLE` (the controller runs it a lookahead behind the head, and joint
        states arrive late).
        """
        if self._q_measured is None or not self._stream.settled(RESYNC_SETTLE, clock):
            return False
        gap = np.abs(self._q_measured - self._stream.positions)[self._commanded]
        return bool(np.any(gap > RESYNC_TOL))

    @staticmethod
    def _given_up(robot: Robot, target: NDArray[np.float64]) -> tuple:
        """(phase, detail) of a goal without progress: unreachable when beyond the reach."""
        distance = float(np.linalg.norm(target[:3, 3]))
        reach = robot.linkage.reach(robot.tip_link, robot.base_link)
        if distance > reach:
            return UNREACHABLE, (f'the goal is {distance:.3g} m from {robot.base_link}, the '
                                 f'chain to {robot.tip_link} reaches at most {reach:.3g} m')
        return STALLED, 'no progress in %d cycles' % STALL_CYCLES

    def _one_shot(self, robot: Robot, solver, target, seq: int,
                  q_from: NDArray[np.float64]) -> CycleOutput:
        result = solver.solve(target, seed=q_from)
        q = np.asarray(result.q, dtype=float)
        config = robot.config
        max_acc = config.max_acceleration * config.acceleration_scaling or None
        trajectory = select_joints(plan_to(robot.linkage, q_from, q,
                                           velocity_scaling=config.velocity_scaling,
                                           max_acceleration=max_acc,
                                           min_duration=config.trajectory_horizon,
                                           config=config),
                                   self._commanded)
        position_left, orientation_left = result.position_error, result.orientation_error
        with self._lock:
            if robot is self._robot:
                self._q_solution = q
                self._stream.reset(q)
                if seq == self._goal_seq:
                    self._goal = None
        phase = REACHED if result.success else STALLED
        status = tracking_status(result, phase, position_left, orientation_left,
                                 hardware_id=robot.linkage.name,
                                 detail='' if result.success else 'one-shot solve failed')
        return CycleOutput(q_from, result, trajectory, q, status, True)
