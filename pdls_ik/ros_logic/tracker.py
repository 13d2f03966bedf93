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

A cycle (tracking mode) warm-starts :meth:`IKSolver.track` from the current joint positions — the
latest joint_states, else the last solution, else the middle of the limits — and plans a
trajectory from there to the cycle's solution. The goal stays active over the next cycles until
it is reached (success) or the solver stops moving (stalled: unreachable goal), so that a far goal
is approached over several velocity-bounded cycles; "stops moving" means :data:`STALL_CYCLES`
failed cycles in a row that did not lower the best goal error (position [m] + orientation
[rad]) by a relative :data:`PROGRESS`; the goal is then given up with the last cycle's status
(an unreachable goal, or one behind a joint limit). No one-shot solve is tried then: it could
jump to another IK branch; a reachable goal beyond the velocity box is approached by the
tracking cycles themselves (:meth:`IKSolver.track`).

In one-shot mode a goal gets one :meth:`IKSolver.solve` with restarts instead.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
import threading
from typing import Optional

import numpy as np
from numpy.typing import NDArray
from pdls_ik.diagnostics import DiagnosticStatus, status_from_result
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.msgs.joint_state import joint_state_to_q, JointMatch
from pdls_ik.ros_logic.frames import goal_in_base
from pdls_ik.ros_logic.robot import Robot
from pdls_ik.trajectory import plan_to, Trajectory

#: relative decrease of the goal error below which a cycle makes no progress
PROGRESS = 1e-6
#: consecutive failed cycles without progress after which a goal is given up (stalled)
STALL_CYCLES = 20
MODES = ('tracking', 'one_shot')


@dataclass(frozen=True)
class CycleOutput:
    """
    What one cycle publishes.

    :ivar q_from: (n,) joint positions the cycle started from.
    :ivar result: the :class:`pdls_ik.ik.IKResult`.
    :ivar trajectory: from ``q_from`` to ``result.q``.
    :ivar status: diagnostic status of the solve.
    :ivar goal_done: the goal is finished (reached or stalled); no further cycles for it.
    """

    q_from: NDArray[np.float64]
    result: object
    trajectory: Trajectory
    status: DiagnosticStatus
    goal_done: bool


class Tracker:
    """Latest goal and joint state of one robot, and the solve cycle (thread-safe)."""

    def __init__(self, robot: Robot, mode: str = 'tracking'):
        if mode not in MODES:
            raise ValueError(f'mode: expected one of {MODES}, got {mode!r}')
        self.mode = mode
        self._lock = threading.Lock()
        self._robot = robot
        self._solver = robot.solver()
        self._goal: Optional[NDArray[np.float64]] = None
        self._goal_seq = 0
        self._idle_cycles = 0
        self._best_error = math.inf
        self._q_measured: Optional[NDArray[np.float64]] = None
        self._q_solution: Optional[NDArray[np.float64]] = None

    @property
    def robot(self) -> Robot:
        """Return the robot in service."""
        return self._robot

    def set_robot(self, robot: Robot) -> None:
        """
        Swap in a new robot (description or parameters changed); state of joints reset.

        The solver is built first, so a failure leaves the previous robot in service.
        """
        solver = robot.solver()
        with self._lock:
            same_joints = robot.joint_names == self._robot.joint_names
            self._robot, self._solver = robot, solver
            if not same_joints:
                self._goal = self._q_measured = self._q_solution = None

    def current_q(self) -> NDArray[np.float64]:
        """(n,) best known joint positions: joint_states, else last solution, else mid-limits."""
        with self._lock:
            return self._current_q_locked()

    def _current_q_locked(self) -> NDArray[np.float64]:
        for q in (self._q_measured, self._q_solution):
            if q is not None:
                return q.copy()
        return self._robot.default_q()

    def offer_joint_state(self, msg) -> JointMatch:
        """
        Store the joint positions of a JointState message (matched by name).

        Joints missing from the message keep their last known value (see ``missing``).

        :raises InputError: empty message, mismatched arrays, NaN position (naming the field).
        """
        with self._lock:
            match = joint_state_to_q(msg, self._robot.joint_names,
                                     fallback=self._current_q_locked())
            if match.found.any():
                self._q_measured = match.q
        return match

    def offer_goal(self, goal: ParsedPose) -> NDArray[np.float64]:
        """
        Make ``goal`` the active goal (replacing any other); return it in the base frame.

        :raises LinkError: unknown goal frame.
        """
        with self._lock:
            target = goal_in_base(self._robot.linkage, self._robot.base_link, goal,
                                  self._current_q_locked())
            self._goal = target
            self._goal_seq += 1
            self._idle_cycles, self._best_error = 0, math.inf
        return target

    @property
    def has_goal(self) -> bool:
        """Tell whether a goal waits for (more) cycles."""
        return self._goal is not None

    def cycle(self, dt: float) -> Optional[CycleOutput]:
        """
        One solve toward the active goal; None when there is none.

        :param dt: cycle period [s] (1 / tracking_rate): bounds the joint step of a tracking cycle
            to velocity limit × dt.
        """
        with self._lock:
            if self._goal is None:
                return None
            target, seq = self._goal, self._goal_seq
            robot, solver = self._robot, self._solver
            q_from = self._current_q_locked()
        if self.mode == 'tracking':
            result = solver.track(target, q_from, dt)
        else:
            result = solver.solve(target, seed=q_from)
        error = float(result.position_error) + float(result.orientation_error)
        with self._lock:
            current = robot is self._robot and seq == self._goal_seq
            if current and error < self._best_error * (1.0 - PROGRESS):
                self._idle_cycles, self._best_error = 0, error
            elif current:
                self._idle_cycles += 1
            stalled = self._idle_cycles >= STALL_CYCLES
        done = bool(result.success) or self.mode == 'one_shot' or stalled
        q = np.asarray(result.q, dtype=float)
        config = robot.config
        max_acc = config.max_acceleration * config.acceleration_scaling or None
        trajectory = plan_to(robot.linkage, q_from, q, velocity_scaling=config.velocity_scaling,
                             max_acceleration=max_acc, min_duration=config.trajectory_horizon)
        status = status_from_result(result, hardware_id=robot.linkage.name)
        with self._lock:
            if robot is self._robot:
                self._q_solution = q
                if done and current and seq == self._goal_seq:
                    self._goal = None  # reached or stalled, and no newer goal arrived
        return CycleOutput(q_from, result, trajectory, status, done)
