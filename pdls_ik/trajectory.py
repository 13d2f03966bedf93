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
Time-parameterized joint trajectories from one configuration to another (ROS-free).

The shape matches ``trajectory_msgs/JointTrajectory``: joint names and a list of points with
positions, velocities, optional accelerations and ``time_from_start``. :func:`plan_to` moves all
joints along a straight line in joint space with one shared, synchronized trapezoidal velocity
profile (every joint starts and stops together) that respects the URDF velocity limits scaled by
``velocity_scaling`` and, when given, an acceleration limit. Continuous joints take the short way
round. A joint whose URDF gives no usable velocity limit (0, below DBL_EPSILON, or no
``velocity`` at all: the model reads it as inf) moves at most at a default bound
(:func:`velocity_bounds`: ``default_velocity_limit`` 1 rad/s for revolute and continuous joints,
``default_prismatic_velocity_limit`` 0.1 m/s for prismatic ones): a trajectory always starts at
the start state at t = 0 and never steps.

Streaming (:class:`StreamPlanner`, :func:`planner_for`): streamed joint trajectories that
continue the commanded motion.

A tracking loop publishes one trajectory per cycle. A controller that replaces its trajectory at
each message (ros2_controllers' joint_trajectory_controller, MoveIt Servo's consumers) follows
smoothly only if every message continues the motion it is executing: the same position *and*
velocity at the switch, velocities that are the motion's own, and rest only at the goal.
:class:`StreamPlanner` keeps that commanded state ``(p, v)`` (n,) and advances it by one cycle
``dt`` toward the cycle's target ``q*`` (an IK solution), under a velocity bound ``v_max`` and an
acceleration bound ``a_max``, with constant acceleration within a cycle:
``p' = p + (v + v') dt / 2``. The cubic spline a controller draws through points given with
positions and velocities is then exactly that motion (accelerations are left out).

Per joint, with ``D`` the distance to ``q*``, ``c`` the target's own velocity (a moving goal;
0 for a still one) and ``u`` the velocity toward the target relative to ``c``, the new relative
velocity ``w`` is the largest from which the joint can still meet the target::

    R = D - u dt / 2                               # distance left after this cycle at w = 0
    w_brake = a (-dt/2 + sqrt(dt^2/4 + 2 R / a))   # then D' = w^2 / (2a): braking fits
    w = min(w_brake, R / dt)                       # R / dt: meet q* over two cycles
    v' = c + w, within +-v_max; v' - v scaled as a whole into +-a_max dt

The joints heading for ``q*`` share one rate (the smallest ``w / D``), so that they move on a
straight line in joint space and arrive together; once every joint can meet ``q*`` over two
cycles within its bounds (``w = R / dt``), they all do, exactly; the velocity change of a cycle
is scaled as a whole into the acceleration bounds, keeping its direction. So the commanded
velocity never jumps by more than ``a_max · dt``, a still target is met at rest exactly, and a
moving one is followed without lag (classical time-optimal braking, discretized; cf. the online
trajectory generation of Kröger & Wahl 2010).

What a joint_trajectory_controller does with a message (ros2_controllers 4.x,
``joint_trajectory_controller.cpp`` and ``trajectory.cpp``): each control cycle it takes the
newest message received; on its first sample, a message sampled before its first point is
spliced in by a spline from the controller's last command, which it holds as the state of one
cycle *later* than the time it gives it (``last_commanded_state_`` is sampled one period ahead,
``last_commanded_time_`` is the cycle's own time): a spliced motion is pulled back a period,
and its velocity dips and jumps. A header stamp of zero starts the message at the cycle that
picks it up, so a message delivered late replays its motion late. So the stream is planned on
the controller's time line: grid index ``j`` at ``origin + j dt``, states committed up to
``lookahead`` cycles ahead of the current one (the head). Each message is stamped with the time
of its first point, ``past`` cycles before the current one, so it is due when it arrives and is
never spliced; it holds every committed state, then the continuation of the same law toward
``q*`` held still, until rest (on a coarser grid, :data:`TAIL_STEP`), so a very late message
never leaves the controller at a trajectory end with speed; with a moving target, the first
:data:`PREDICT_STEPS` cycles of that continuation go on at the target's velocity. Consecutive
messages agree on every committed state: a message delivered up to ``lookahead`` late is
switched to on the same curve. Point times are whole nanoseconds, strictly increasing. Without
a clock (stamp zero), each step is one cycle and a message starts at the current cycle's state
(``time_from_start`` 0, the point the controller samples on pick-up: no splice either).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.config import DEFAULT_PRISMATIC_VELOCITY_LIMIT, DEFAULT_VELOCITY_LIMIT
from pdls_ik.errors import ConfigError, InputError
from pdls_ik.model.joint_vector import joint_delta


@dataclass
class TrajectoryPoint:
    """
    One waypoint of a joint trajectory.

    ``positions`` (n,) [rad or m], ``velocities`` (n,) [rad/s or m/s], ``accelerations`` (n,)
    or None, and ``time_from_start`` [s].
    """

    positions: NDArray[np.float64]
    velocities: NDArray[np.float64]
    accelerations: Optional[NDArray[np.float64]] = None
    time_from_start: float = 0.0


@dataclass
class Trajectory:
    """
    A joint trajectory: ``joint_names`` (n,) and time-ordered ``points``.

    ``start_ns``: time [ns] of ``time_from_start`` 0 on the controller's clock (the header
    stamp of a message placed on an absolute time line), None: start on receipt (stamp zero).
    """

    joint_names: List[str]
    points: List[TrajectoryPoint] = field(default_factory=list)
    start_ns: Optional[int] = None

    @property
    def duration(self) -> float:
        """Time of the last point [s] (0 for an empty trajectory)."""
        return self.points[-1].time_from_start if self.points else 0.0

    def positions(self) -> NDArray[np.float64]:
        """All point positions stacked, (len(points), n)."""
        return np.array([p.positions for p in self.points])


def whole_ns_times(times: Sequence[float]) -> List[float]:
    """
    Put times [s] on whole nanoseconds, strictly increasing, each nearest to its input.

    ``time_from_start`` is a Duration of whole nanoseconds: two points closer than a nanosecond
    would get the same time, which controllers refuse. Each time is rounded to the nearest
    nanosecond and then put at least 1 ns after the previous one; the returned floats convert
    back to exactly those nanoseconds.

    :param times: (m,) non-decreasing times [s], the first one >= 0.
    """
    out, last = [], -1
    for t in times:
        ns = max(int(round(float(t) * 1e9)), last + 1)
        out.append(ns / 1e9)
        last = ns
    return out


def velocity_bounds(linkage, config=None) -> NDArray[np.float64]:
    """
    Velocity bounds (n,) [rad/s, m/s] of the motion of each joint, before ``velocity_scaling``.

    The URDF limit (``linkage.velocity_limits``) where it is usable (finite and > 0); else the
    default of the joint's type: ``config.default_prismatic_velocity_limit`` [m/s] for a
    prismatic joint, ``config.default_velocity_limit`` [rad/s] for the others (revolute,
    continuous). The model names those joints in one warning when it loads.

    :param linkage: the model (``velocity_limits``, ``joint_types``).
    :param config: :class:`pdls_ik.config.IKConfig`, or None for its defaults.
    """
    vmax = np.asarray(linkage.velocity_limits, dtype=float)
    types = list(getattr(linkage, 'joint_types', [])) or [''] * vmax.size
    revolute = getattr(config, 'default_velocity_limit', DEFAULT_VELOCITY_LIMIT)
    prismatic = getattr(config, 'default_prismatic_velocity_limit',
                        DEFAULT_PRISMATIC_VELOCITY_LIMIT)
    default = np.array([prismatic if t == 'prismatic' else revolute for t in types],
                       dtype=float)
    return np.where(np.isfinite(vmax) & (vmax > 0.0), vmax, default)


def _trapezoid_timing(peak_rate: float, accel_rate: float) -> tuple:
    """
    Duration and blend time of a unit-distance trapezoid with rate ≤ peak, acceleration ≤ accel.

    Returns (T, t_blend) of the normalized path parameter s(t): 0 → 1.
    """
    if math.isinf(accel_rate):
        # No acceleration limit: a profile with blends of a third of the duration and a peak
        # rate exactly at the limit (the duration of a cubic, with finite acceleration).
        # Nothing limits the motion when peak_rate is infinite too: duration 0.
        duration = 1.5 / peak_rate
        return duration, duration / 3.0
    if peak_rate * peak_rate / accel_rate <= 1.0:      # cruise phase exists
        t_blend = peak_rate / accel_rate
        return 1.0 / peak_rate + t_blend, t_blend
    t_blend = math.sqrt(1.0 / accel_rate)              # triangular profile
    return 2.0 * t_blend, t_blend


def _profile(t: float, duration: float, t_blend: float) -> tuple:
    """Return the normalized position, rate and acceleration (s, ṡ, s̈) of the trapezoid at t."""
    peak = 1.0 / (duration - t_blend)
    accel = peak / t_blend
    if t <= 0.0:
        return 0.0, 0.0, accel
    if t >= duration:
        return 1.0, 0.0, -accel
    if t < t_blend:
        return 0.5 * accel * t * t, accel * t, accel
    if t <= duration - t_blend:
        return 0.5 * accel * t_blend * t_blend + peak * (t - t_blend), peak, 0.0
    r = duration - t
    return 1.0 - 0.5 * accel * r * r, accel * r, -accel


def plan_to(linkage, q_from: Sequence[float], q_to: Sequence[float],
            velocity_scaling: float = 1.0, max_acceleration: Optional[float] = None,
            min_duration: float = 0.0, num_points: Optional[int] = None,
            config=None) -> Trajectory:
    """
    Plan a synchronized trapezoidal joint trajectory from ``q_from`` to ``q_to``.

    :param linkage: the robot model (uses ``joint_names``, ``velocity_limits``, ``continuous``).
    :param q_from: start configuration (n,) [rad, m].
    :param q_to: goal configuration (n,) [rad, m].
    :param velocity_scaling: fraction (0, 1] of each joint's velocity bound: its URDF limit,
        or for a joint without a usable one (0 or missing) the default of
        :func:`velocity_bounds`.
    :param max_acceleration: acceleration bound per joint [rad/s², m/s²], None or 0 for none (then
        the profile blends over a third of the duration each end).
    :param min_duration: lower bound on the duration [s] (e.g. the trajectory horizon).
    :param num_points: number of points (≥ 2); default about one per 50 ms, 2…101.
    :param config: :class:`pdls_ik.config.IKConfig` giving the default velocity bounds
        (``default_velocity_limit``, ``default_prismatic_velocity_limit``); None: its defaults.

    :return: A :class:`Trajectory` whose first point is ``q_from`` and last point is
        ``q_from + Δ``, where Δ takes the short way round for continuous joints: the last point
        equals ``q_to`` exactly for other joints and modulo 2π for continuous ones (positions
        stay continuous, so a controller without angle wrap-around also turns the short way).
        Velocities are zero at both ends; all joints move on one shared time law, so the path
        is the straight segment in joint space and stays within the limits of its end points.
        A motion lasts > 0 s; a trajectory that does not move (``q_to`` equal to ``q_from``)
        and has no ``min_duration`` is the single point ``q_from`` at t = 0.

    :raises InputError: wrong shapes, non-finite values, or scaling outside (0, 1].
    """
    names = list(linkage.joint_names)
    n = len(names)
    q0 = np.asarray(q_from, dtype=float).reshape(-1)
    q1 = np.asarray(q_to, dtype=float).reshape(-1)
    for label, q in (('q_from', q0), ('q_to', q1)):
        if q.shape != (n,):
            raise InputError(f'{label}: expected {n} joint values, got {q.size}')
        if not np.all(np.isfinite(q)):
            raise InputError(f'{label}: non-finite joint value')
    if not 0.0 < velocity_scaling <= 1.0:
        raise InputError(f'velocity_scaling: {velocity_scaling} is outside (0, 1]')
    if min_duration < 0.0 or not math.isfinite(min_duration):
        raise InputError(f'min_duration: {min_duration} must be finite and >= 0')

    delta = joint_delta(q0, q1, np.asarray(linkage.continuous, dtype=bool))
    vmax = velocity_bounds(linkage, config) * velocity_scaling
    dist = np.abs(delta)
    moving = dist > 0.0
    # Largest normalized rate and acceleration of s(t) such that every joint stays in bounds.
    rate = np.min(vmax[moving] / dist[moving], initial=np.inf)
    accel = np.inf
    if max_acceleration:
        accel = float(max_acceleration) / float(np.max(dist, initial=0.0) or 1.0)

    duration, t_blend = _trapezoid_timing(rate, accel)
    if duration < min_duration:   # stretch in time: same shape, lower rates and accelerations
        t_blend = t_blend * min_duration / duration if duration > 0.0 else min_duration / 3.0
        duration = min_duration

    if duration <= 0.0:
        zero = np.zeros(n)
        goal = np.where(linkage.continuous, q0 + delta, q1)
        return Trajectory(names, [TrajectoryPoint(goal, zero, zero.copy(), 0.0)])
    count = num_points or int(min(max(math.ceil(duration / 0.05) + 1, 2), 101))
    if count < 2:
        raise InputError(f'num_points: {count} must be at least 2')
    points = []
    times = whole_ns_times(np.linspace(0.0, duration, count))
    for t in times:
        s, ds, dds = _profile(float(t), duration, t_blend)
        points.append(TrajectoryPoint(q0 + s * delta, ds * delta, dds * delta, float(t)))
    # exact goal, free of rounding (continuous joints: start + short-way displacement)
    points[-1].positions = np.where(linkage.continuous, q0 + delta, q1)
    points[-1].velocities = np.zeros(n)
    return Trajectory(names, points)


def select_joints(trajectory: Trajectory, indices: Sequence[int]) -> Trajectory:
    """
    Return the trajectory restricted to the joints at ``indices`` (in that order).

    For a controller that owns some of the joints (``controller_joints``).
    """
    idx = np.asarray(indices, dtype=int)
    points = [TrajectoryPoint(p.positions[idx], p.velocities[idx],
                              None if p.accelerations is None else p.accelerations[idx],
                              p.time_from_start) for p in trajectory.points]
    return Trajectory([trajectory.joint_names[i] for i in idx], points)


def with_mimic_joints(linkage, trajectory: Trajectory) -> Trajectory:
    """
    Return the trajectory with the linkage's mimic joints appended (after the active joints).

    A mimic joint follows its master: position ``m · q_master + offset``, velocity and
    acceleration ``m ·`` those of the master (URDF ``<mimic multiplier offset>``). Robot state
    publishers and recorders expect every joint of the description; controllers of the active
    joints ignore extra names only if configured to, so use this for joint states and logs.
    """
    mimic = [j for j in getattr(linkage, 'joints', []) if getattr(j, 'mimic', None)]
    if not mimic:
        return trajectory
    idx = np.array([j.index for j in mimic], dtype=int)
    mult = np.array([j.multiplier for j in mimic], dtype=float)
    offset = np.array([j.offset for j in mimic], dtype=float)
    points = []
    for p in trajectory.points:
        acc = None if p.accelerations is None else \
            np.concatenate([p.accelerations, mult * p.accelerations[idx]])
        points.append(TrajectoryPoint(np.concatenate([p.positions, mult * p.positions[idx]
                                                      + offset]),
                                      np.concatenate([p.velocities, mult * p.velocities[idx]]),
                                      acc, p.time_from_start))
    return Trajectory(list(trajectory.joint_names) + [j.name for j in mimic], points)


#: time [s] in which a joint reaches its velocity limit when no acceleration limit is given
DEFAULT_ACCELERATION_TIME = 0.2
#: point budget of a message's continuation to rest (its grid is coarsened to fit)
MAX_POINTS = 100
#: cycles of a message after its committed part that continue a moving target's motion (the
#: prediction a controller follows when the next message is late), before the stop
PREDICT_STEPS = 5
#: a message that comes to rest sooner holds its last point until this long [s] after its
#: current cycle, so that a controller placing it on an absolute time line never finds it
#: over (or refuses it as ending in the past) on a late arrival
MIN_HOLD = 1.0
#: time step [s] of the continuation to rest after the committed part (a whole number of
#: cycles, at least one): the same law on a coarser grid, within the same bounds
TAIL_STEP = 0.04
#: largest number of cycles simulated to rest
MAX_STEPS = 100_000
#: distance [rad or m] and speed [rad/s or m/s] below which a joint counts as at rest at q*
REST_TOL = 1e-12


def acceleration_limits(velocity_limits: Sequence[float], max_acceleration: float,
                        acceleration_scaling: float = 1.0) -> NDArray[np.float64]:
    """
    Per-joint acceleration bounds (n,) [rad/s², m/s²] of a streamed motion.

    ``max_acceleration · acceleration_scaling`` for every joint when ``max_acceleration > 0``;
    else (a URDF has no acceleration limits) each joint's URDF velocity limit divided by
    :data:`DEFAULT_ACCELERATION_TIME`, times ``acceleration_scaling``, and inf for a joint
    without a velocity limit.

    :param velocity_limits: (n,) URDF velocity limits [rad/s, m/s] (unscaled).
    """
    vmax = np.asarray(velocity_limits, dtype=float)
    scale = float(acceleration_scaling)
    if max_acceleration > 0.0:
        return np.full(vmax.shape, float(max_acceleration) * scale)
    limited = np.isfinite(vmax) & (vmax > 0.0)
    return np.where(limited, vmax / DEFAULT_ACCELERATION_TIME * scale, np.inf)


def braking_horizon(velocity_limits: Sequence[float], acceleration_limits: Sequence[float],
                    dt: float) -> float:
    """
    Lookahead [s] of the cycle's IK solution so that full speed is possible.

    The braking law cruises at ``v_max`` only while the target is at least
    ``v_max² / (2 a_max) + v_max dt`` ahead; a tracking solve bounded by velocity × H reaches
    that far when ``H = dt + max(v_max / (2 a_max)) + dt`` (joints with both bounds finite).
    """
    vmax = np.asarray(velocity_limits, dtype=float)
    amax = np.asarray(acceleration_limits, dtype=float)
    both = np.isfinite(vmax) & (vmax > 0.0) & np.isfinite(amax) & (amax > 0.0)
    brake = float(np.max(vmax[both] / (2.0 * amax[both]), initial=0.0))
    return 2.0 * float(dt) + brake


def _advance(p, v, target, vmax, amax, dt, continuous, c):
    """
    One cycle of the braking law (module docstring): new (p', v', a) (n,) each.

    ``c`` (n,) is the target's velocity: the law runs in the target's frame (velocities
    relative to ``c``), so that a moving target is followed without lag.
    """
    d = joint_delta(p, target, continuous)
    s = np.where(d < 0.0, -1.0, 1.0)
    dist, u = np.abs(d), (v - c) * s
    r = dist - 0.5 * u * dt
    finite = np.isfinite(amax)
    a = np.where(finite, amax, 1.0)
    step = np.where(finite, amax * dt, np.inf)
    bounds = np.sort(np.stack([(-vmax - c) * s, (vmax - c) * s]), axis=0)
    low, high = bounds[0], bounds[1]
    deadbeat = r / dt  # lands on the target (at its velocity) over two cycles
    if np.all((np.abs(deadbeat - u) <= step) & (np.abs(deadbeat) <= step) &
              (deadbeat >= low) & (deadbeat <= high)):
        w = deadbeat
    else:
        root = np.sqrt(0.25 * dt * dt + 2.0 * np.maximum(r, 0.0) / a)
        w_brake = np.where(finite & (r >= 0.0), a * (root - 0.5 * dt), np.inf)
        cap = np.minimum(np.minimum(w_brake, deadbeat), high)
        # joints heading for the target share one time law (a straight line in joint space);
        # a joint about to pass it (r <= 0) brakes on its own
        ahead = (r > 0.0) & (dist > 0.0)
        rate = float(np.min(cap[ahead] / dist[ahead], initial=np.inf)) if ahead.any() else 0.0
        w = np.clip(np.where(ahead, rate * dist, cap), low, high)
        # the velocity change is scaled as a whole (its direction kept) into a_max dt
        change = np.abs(w - u)
        over = change > step
        if over.any():
            w = u + (w - u) * float(np.min(step[over] / change[over]))
    v_new = c + s * w
    p_new = p + 0.5 * (v + v_new) * dt
    # at rest on a still target (to rounding): snap, so the stream ends exactly there
    rest = (np.abs(joint_delta(p_new, target, continuous)) <= REST_TOL) & \
        (np.abs(v_new) <= REST_TOL) & (c == 0.0)
    p_new = np.where(rest, p + d, p_new)
    v_new = np.where(rest, 0.0, v_new)
    return p_new, v_new, (v_new - v) / dt


class StreamPlanner:
    """
    The commanded motion of a streaming controller, planned ahead, and one message per cycle.

    The motion is a sequence of states ``(p, v)`` on a grid of cycles (index ``j`` at time
    ``origin + j dt``), constant acceleration between them. At the current cycle ``k`` the
    states up to ``k + lookahead`` (the head) are committed: a later cycle never changes them,
    whatever its target. Each :meth:`step` first catches up with the clock, then plans new head
    states toward the cycle's target with the braking law (module docstring). Its message
    holds the states from ``k - past`` to the head, then the same law's continuation to rest.
    Two messages agree on every committed state, so a controller that switches from one to the
    next at any time before the first one's head stays on the same curve.

    :param joint_names: (n,) joints of the state (model order).
    :param velocity_limits: (n,) bounds [rad/s, m/s] (already scaled); inf or <= 0: none.
    :param acceleration_limits: (n,) bounds [rad/s², m/s²]; inf: none
        (:func:`acceleration_limits`).
    :param dt: cycle period [s] (1 / tracking rate).
    :param continuous: (n,) bool, joints that take the short way round.
    :param commanded: indices of the joints listed in the messages (the controller's joints),
        default all.
    :param lower, upper: (n,) position limits that a predicted target stays within (default
        none).
    :param lookahead: committed cycles ahead of the current one (>= 1): the delay of a target
        change, and the lateness of a message (delivery, a late cycle) that a controller still
        splices without a velocity jump.
    :param past: cycles before the current one at the start of each message (0: the first point
        is the current cycle's state, at ``time_from_start`` 0).

    :raises ConfigError: dt not positive and finite, lookahead < 1, past < 0, or arrays of
        different lengths.
    """

    def __init__(self, joint_names: Sequence[str], velocity_limits: Sequence[float],
                 acceleration_limits: Sequence[float], dt: float,
                 continuous: Optional[Sequence[bool]] = None,
                 commanded: Optional[Sequence[int]] = None,
                 lower: Optional[Sequence[float]] = None,
                 upper: Optional[Sequence[float]] = None,
                 lookahead: int = 1, past: int = 0):
        n = len(joint_names)
        vmax = np.asarray(velocity_limits, dtype=float)
        amax = np.asarray(acceleration_limits, dtype=float)
        if vmax.shape != (n,) or amax.shape != (n,):
            raise ConfigError(f'velocity/acceleration limits: expected {n} values each')
        if int(lookahead) < 1 or int(past) < 0:
            raise ConfigError(f'lookahead: {lookahead} cycles (>= 1), past: {past} (>= 0)')
        self.joint_names = list(joint_names)
        self.vmax = np.where(np.isfinite(vmax) & (vmax > 0.0), vmax, np.inf)
        self.amax = np.where(amax > 0.0, amax, np.inf)
        self._dt = _period(dt)
        self.lookahead, self.past = int(lookahead), int(past)
        self.continuous = np.zeros(n, bool) if continuous is None else \
            np.asarray(continuous, dtype=bool)
        self.commanded = np.arange(n) if commanded is None else np.asarray(commanded, int)
        self.lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
        self.upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        self._origin_ns: Optional[int] = None  # time of grid index 0; None: no clock
        self._cur = 0  # grid index of the current cycle
        self._first = 0  # grid index of the first kept state
        self._p: List[NDArray[np.float64]] = []  # committed states, _first .. head
        self._v: List[NDArray[np.float64]] = []
        self._sent: Optional[tuple] = None  # (indices (m,), p (m, n), v (m, n)) last message
        self._rest_from: Optional[int] = None  # first index of the final run of rest states

    @property
    def dt(self) -> float:
        """Cycle period [s]; a new one restarts the grid at the head state (one skip)."""
        return self._dt

    @dt.setter
    def dt(self, value: float) -> None:
        value = _period(value)
        if value == self._dt:
            return
        if self._p:  # the grid restarts at the current cycle, from the head state
            if self._origin_ns is not None:
                self._origin_ns = self._grid_ns(self._cur)
            self._p, self._v = self._p[-1:], self._v[-1:]
            self._first = self._cur = 0
            self._sent = None
            self._rest_from = None if np.any(self._v[-1]) else 0
        self._dt = value

    @property
    def active(self) -> bool:
        """Tell whether a commanded state exists (a stream was started and not reset)."""
        return bool(self._p)

    @property
    def positions(self) -> Optional[NDArray[np.float64]]:
        """Head positions, shape (n,): the last committed state; None without a stream."""
        return self._p[-1] if self._p else None

    @property
    def velocities(self) -> NDArray[np.float64]:
        """Head velocities, shape (n,); zero without a stream."""
        return self._v[-1] if self._v else np.zeros(len(self.joint_names))

    @property
    def next_positions(self) -> Optional[NDArray[np.float64]]:
        """Positions (n,) of the cycle after the current one (a forward position command)."""
        if not self._p:
            return None
        return self._p[min(self._cur + 1 - self._first, len(self._p) - 1)]

    @property
    def at_rest(self) -> bool:
        """Tell whether the head velocity is zero (no stream, or stopped)."""
        return not np.any(self.velocities)

    @property
    def arrived(self) -> bool:
        """
        Tell whether the commanded motion rests at the head from the next cycle on.

        The head rests a lookahead before the controller gets there: the goal is reached when
        the state commanded for the next cycle (:attr:`next_positions`) is the head at rest.
        """
        if not self._p:
            return True
        k = min(self._cur + 1 - self._first, len(self._p) - 1)
        return self.at_rest and not np.any(np.asarray(self._p[k:]) != self._p[-1])

    def settled(self, duration: float, now: Optional[float] = None) -> bool:
        """
        Tell whether the motion rests at the head position since ``duration`` [s] before ``now``.

        The controller runs the commanded motion up to a lookahead behind the head: a measured
        state that differs from the head while the head alone is at rest is the robot still on
        its way, not a robot moved by something else. Without a clock (``now`` None, or a
        stream without one), the head at rest is enough.
        """
        if self._rest_from is None:
            return False
        if now is None or self._origin_ns is None:
            return True
        return int(round(float(now) * 1e9)) - self._grid_ns(self._rest_from) >= duration * 1e9

    def _append(self, p: NDArray[np.float64], v: NDArray[np.float64]) -> None:
        """Add the state of the next grid index (the head moves on)."""
        index = self._first + len(self._p)
        if np.any(v):
            self._rest_from = None
        elif not self._p or np.any(self._v[-1]) or not np.array_equal(p, self._p[-1]):
            self._rest_from = index
        self._p.append(p)
        self._v.append(v)

    @property
    def can_stop(self) -> bool:
        """Tell whether every joint can stop within one cycle (|v| <= a_max dt) at the head."""
        return bool(np.all(np.abs(self.velocities) <= self.amax * self._dt))

    def reset(self, q: Optional[Sequence[float]] = None, now: Optional[float] = None) -> None:
        """
        Start over at rest at ``q`` (n,) (the measured state), or forget the state (None).

        :param now: time [s] of the current cycle on the controller's clock (the grid's origin);
            None: no clock, each :meth:`step` is one cycle.
        """
        self._sent = None
        self._cur = 0
        if q is None:
            self._p, self._v = [], []
            return
        q = np.array(q, dtype=float)
        self._origin_ns = None if now is None else int(round(float(now) * 1e9))
        self._first = self._rest_from = -self.past
        count = self.past + self.lookahead + 1
        self._p = [q.copy() for _ in range(count)]
        self._v = [np.zeros(q.shape) for _ in range(count)]

    def continue_from(self, other: 'StreamPlanner') -> None:
        """Take over the commanded motion of ``other`` (same joints), e.g. new limits."""
        self._origin_ns, self._cur, self._first = other._origin_ns, other._cur, other._first
        self._p, self._v, self._sent = list(other._p), list(other._v), other._sent
        self._rest_from = other._rest_from
        self.dt = other.dt

    def _grid_ns(self, j: int) -> int:
        return (self._origin_ns or 0) + int(round(j * self._dt * 1e9))

    def _index_at(self, now: float) -> int:
        now_ns = int(round(float(now) * 1e9))
        if self._origin_ns is None:  # first clocked step: this is the next cycle
            self._origin_ns = now_ns - int(round((self._cur + 1) * self._dt * 1e9))
        return int(round((now_ns - self._origin_ns) / (self._dt * 1e9)))

    def _sample_sent(self, j: int) -> tuple:
        """(p, v) (n,) of the last message's motion at grid index ``j``."""
        idx, pos, vel = self._sent
        if j >= idx[-1]:
            return pos[-1].copy(), vel[-1].copy()
        k = int(np.searchsorted(idx, j, side='right')) - 1
        h, tau = (idx[k + 1] - idx[k]) * self._dt, (j - idx[k]) * self._dt
        acc = (vel[k + 1] - vel[k]) / h
        return pos[k] + vel[k] * tau + 0.5 * acc * tau * tau, vel[k] + acc * tau

    def _catch_up(self, cur: int) -> None:
        """Move the current cycle to ``cur``: states the controller ran past the head are kept."""
        head = self._first + len(self._p) - 1
        if cur > head:  # a late cycle (or the first after a pause): the controller goes on with
            # the last message's motion, up to a lookahead on (a message may arrive that late)
            start, last = max(head + 1, cur - self.past), self._p[-1]
            if start > head + 1:
                self._p, self._v, self._first = [], [], start
            for j in range(start, cur + self.lookahead + 1):
                p, v = self._sample_sent(j) if self._sent is not None else \
                    (last.copy(), np.zeros(last.shape))
                self._append(p, v)
        drop = cur - self.past - self._first
        if drop > 0:
            del self._p[:drop], self._v[:drop]
            self._first += drop
        self._cur = cur

    def step(self, target: Sequence[float],
             target_velocity: Optional[Sequence[float]] = None,
             now: Optional[float] = None) -> Trajectory:
        """
        Plan the head toward ``target`` (n,) up to ``lookahead`` cycles ahead; return the message.

        The message (:class:`Trajectory`, the :attr:`commanded` joints) starts ``past`` cycles
        before the current one, holds every committed state, then continues toward ``target``
        (at ``target_velocity`` for :data:`PREDICT_STEPS` cycles, then held still) to rest on it
        (on a grid coarsened to at most :data:`MAX_POINTS` points); one that rests sooner holds
        until :data:`MIN_HOLD` after the current cycle. Its ``start_ns`` is the time of its first
        point on the clock of ``now`` (the header stamp that places it on that time line). The
        state must have been :meth:`reset` first.

        :param target_velocity: (n,) velocity of a moving target [rad/s, m/s] (a goal stream),
            followed (feed-forward, within ``v_max``); None: a still target.
        :param now: time [s] of this cycle on the controller's clock: the current cycle is the
            grid index nearest to it (a late cycle plans several states, an early one none);
            None: the cycle after the previous one.
        :raises InputError: no state yet, or ``target`` of the wrong length or not finite.
        """
        if not self._p:
            raise InputError('stream: no commanded state yet (reset it from the measured one)')
        q = np.asarray(target, dtype=float).reshape(-1)
        if q.shape != self._p[-1].shape or not np.all(np.isfinite(q)):
            raise InputError(f'target: expected {self._p[-1].size} finite joint values')
        c = np.zeros(q.shape) if target_velocity is None else \
            np.clip(np.nan_to_num(np.asarray(target_velocity, dtype=float)), -self.vmax,
                    self.vmax)
        cur = self._cur + 1 if now is None else max(self._cur, self._index_at(now))
        self._catch_up(cur)
        law = (self.vmax, self.amax, self._dt, self.continuous)
        steps = cur + self.lookahead - (self._first + len(self._p) - 1)
        for k in range(steps, 0, -1):  # a late cycle: the missed ones aimed where q was then
            aim = q if k == 1 or not np.any(c) else \
                np.clip(q - c * (k - 1) * self._dt, self.lower, self.upper)
            p, v, _ = _advance(self._p[-1], self._v[-1], aim, *law, c)
            self._append(p, v)
        return self._message(q, c)

    def _message(self, q, c) -> Trajectory:
        """Build the message: committed states, prediction, continuation to rest."""
        index = list(range(self._first, self._first + len(self._p)))
        pos, vel = list(self._p), list(self._v)
        p, v, ahead = pos[-1], vel[-1], q
        law = (self.vmax, self.amax, self._dt, self.continuous)
        if np.any(c):  # the next cycles as the stream predicts them (the target goes on)
            for _ in range(PREDICT_STEPS):
                ahead = np.clip(ahead + c * self._dt, self.lower, self.upper)
                p, v, _ = _advance(p, v, ahead, *law, c)
                index.append(index[-1] + 1)
                pos.append(p)
                vel.append(v)
        stride = max(1, int(round(TAIL_STEP / self._dt)))
        tail = self._to_rest(p, v, ahead, stride)
        while len(tail[0]) > MAX_POINTS and stride < MAX_STEPS:
            stride *= 2
            tail = self._to_rest(p, v, ahead, stride)
        for k, (p, v) in enumerate(zip(*tail)):
            index.append(index[-1] + stride)
            pos.append(p)
            vel.append(v)
        hold = self._cur + int(math.ceil(MIN_HOLD / self._dt))
        if index[-1] < hold:
            index.append(hold)
            pos.append(pos[-1])
            vel.append(np.zeros(len(self.joint_names)))
        self._sent = (np.array(index), np.array(pos), np.array(vel))
        start = self._grid_ns(index[0])
        sel = self.commanded
        points = [TrajectoryPoint(p[sel].copy(), v[sel].copy(), None,
                                  (self._grid_ns(j) - start) / 1e9)
                  for j, p, v in zip(index, pos, vel)]
        return Trajectory([self.joint_names[i] for i in sel], points,
                          start if self._origin_ns is not None else None)

    def _to_rest(self, p, v, target, stride: int) -> tuple:
        """States (positions, velocities) every ``stride`` cycles to rest on ``target``."""
        still = np.zeros(p.shape)
        out_p, out_v = [], []
        for _ in range(MAX_STEPS):
            if not np.any(v) or len(out_p) > MAX_POINTS:
                break
            p, v, _ = _advance(p, v, target, self.vmax, self.amax, stride * self._dt,
                               self.continuous, still)
            out_p.append(p)
            out_v.append(v)
        return out_p, out_v


def _period(dt: float) -> float:
    dt = float(dt)
    if not (math.isfinite(dt) and dt > 0.0):
        raise ConfigError(f'dt: the cycle period must be > 0 s, got {dt}')
    return dt


def planner_for(linkage, config, dt: float, commanded: Optional[Sequence[int]] = None,
                lookahead: float = 0.0, past: int = 0) -> StreamPlanner:
    """
    Build the streaming planner of a robot, as ``pdls_ik_node`` and ``pdls-ik demo`` use it.

    :param linkage: the model (``joint_names``, ``velocity_limits``, ``continuous``).
    :param config: :class:`pdls_ik.config.IKConfig` (``velocity_scaling``,
        ``max_acceleration``, ``acceleration_scaling``, the default velocity bounds of
        :func:`velocity_bounds`).
    :param dt: cycle period [s].
    :param commanded: model indices of the controller's joints (default all).
    :param lookahead: committed time ahead [s], whole cycles, at least one (0: one cycle).
    :param past: cycles before the current one at the start of each message.
    """
    vmax = velocity_bounds(linkage, config)
    cycles = max(1, int(math.ceil(float(lookahead) / float(dt) - 1e-9)))
    return StreamPlanner(linkage.joint_names, vmax * config.velocity_scaling,
                         acceleration_limits(vmax, config.max_acceleration,
                                             config.acceleration_scaling),
                         dt, linkage.continuous, commanded, linkage.lower, linkage.upper,
                         cycles, past)
