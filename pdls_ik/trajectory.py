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
round.

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
trajectory generation of Kröger & Wahl 2010). Each message holds the next cycle's point and then
the continuation of the same law toward ``q*`` held still, until rest (on a coarser grid,
:data:`TAIL_STEP`), so a late message never leaves the controller at a trajectory end with
speed; with a moving target, the first :data:`PREDICT_STEPS` cycles of that continuation go
on at the target's velocity (what the next messages will most likely command, and what a
controller follows when one is late). Point times are whole nanoseconds, strictly increasing,
the first one ``dt`` after the start (the controller interpolates from its own commanded state
at reception).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
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
    """A joint trajectory: ``joint_names`` (n,) and time-ordered ``points``."""

    joint_names: List[str]
    points: List[TrajectoryPoint] = field(default_factory=list)

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
            min_duration: float = 0.0, num_points: Optional[int] = None) -> Trajectory:
    """
    Plan a synchronized trapezoidal joint trajectory from ``q_from`` to ``q_to``.

    :param linkage: the robot model (uses ``joint_names``, ``velocity_limits``, ``continuous``).
    :param q_from: start configuration (n,) [rad, m].
    :param q_to: goal configuration (n,) [rad, m].
    :param velocity_scaling: fraction (0, 1] of each joint's URDF velocity limit. Joints whose
        limit is missing (0, negative or not finite) are not speed-limited.
    :param max_acceleration: acceleration bound per joint [rad/s², m/s²], None or 0 for none (then
        the profile blends over a third of the duration each end).
    :param min_duration: lower bound on the duration [s] (e.g. the trajectory horizon).
    :param num_points: number of points (≥ 2); default about one per 50 ms, 2…101.

    :return: A :class:`Trajectory` whose first point is ``q_from`` and last point is
        ``q_from + Δ``, where Δ takes the short way round for continuous joints: the last point
        equals ``q_to`` exactly for other joints and modulo 2π for continuous ones (positions
        stay continuous, so a controller without angle wrap-around also turns the short way).
        Velocities are zero at both ends; all joints move on one shared time law, so the path
        is the straight segment in joint space and stays within the limits of its end points.

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
    vmax = np.asarray(linkage.velocity_limits, dtype=float) * velocity_scaling
    limited = np.isfinite(vmax) & (vmax > 0.0)
    dist = np.abs(delta)
    moving = dist > 0.0
    # Largest normalized rate and acceleration of s(t) such that every joint stays in bounds.
    rate = np.min(vmax[moving & limited] / dist[moving & limited], initial=np.inf)
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
#: largest number of points of one streamed message (a longer continuation to rest is sampled
#: evenly, its first and last points kept)
MAX_POINTS = 100
#: cycles of a message after its first point that continue a moving target's motion (the
#: prediction a controller follows when the next message is late), before the stop
PREDICT_STEPS = 5
#: shortest message [cycles]: one that comes to rest sooner holds its last point until then, so
#: that a controller placing it on an absolute time line never finds it over on arrival
MIN_CYCLES = 3
#: time step [s] of the continuation to rest after a message's first point (at least dt): the
#: same law on a coarser grid, within the same bounds
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
    The commanded state of a streaming controller and one message per cycle.

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

    :raises ConfigError: dt not positive and finite, or arrays of different lengths.
    """

    def __init__(self, joint_names: Sequence[str], velocity_limits: Sequence[float],
                 acceleration_limits: Sequence[float], dt: float,
                 continuous: Optional[Sequence[bool]] = None,
                 commanded: Optional[Sequence[int]] = None,
                 lower: Optional[Sequence[float]] = None,
                 upper: Optional[Sequence[float]] = None):
        n = len(joint_names)
        if not (math.isfinite(dt) and dt > 0.0):
            raise ConfigError(f'dt: the cycle period must be > 0 s, got {dt}')
        vmax = np.asarray(velocity_limits, dtype=float)
        amax = np.asarray(acceleration_limits, dtype=float)
        if vmax.shape != (n,) or amax.shape != (n,):
            raise ConfigError(f'velocity/acceleration limits: expected {n} values each')
        self.joint_names = list(joint_names)
        self.vmax = np.where(np.isfinite(vmax) & (vmax > 0.0), vmax, np.inf)
        self.amax = np.where(amax > 0.0, amax, np.inf)
        self.dt = float(dt)
        self.continuous = np.zeros(n, bool) if continuous is None else \
            np.asarray(continuous, dtype=bool)
        self.commanded = np.arange(n) if commanded is None else np.asarray(commanded, int)
        self.lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
        self.upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        self.positions: Optional[NDArray[np.float64]] = None
        self.velocities = np.zeros(n)

    @property
    def active(self) -> bool:
        """Tell whether a commanded state exists (a stream was started and not reset)."""
        return self.positions is not None

    @property
    def at_rest(self) -> bool:
        """Tell whether the commanded velocity is zero (no stream, or stopped)."""
        return not np.any(self.velocities)

    @property
    def can_stop(self) -> bool:
        """Tell whether every joint can stop within one cycle (|v| <= a_max dt)."""
        return bool(np.all(np.abs(self.velocities) <= self.amax * self.dt))

    def reset(self, q: Optional[Sequence[float]] = None) -> None:
        """Start over from rest at ``q`` (n,) (the measured state), or forget the state (None)."""
        self.positions = None if q is None else np.array(q, dtype=float)
        self.velocities = np.zeros(len(self.joint_names))

    def step(self, target: Sequence[float],
             target_velocity: Optional[Sequence[float]] = None) -> Trajectory:
        """
        Advance the commanded state by one cycle toward ``target`` (n,); return the message.

        The message's first point (at ``dt``) is the new commanded state; the following ones
        continue toward ``target``, held still, to rest on it (at most :data:`MAX_POINTS`
        points). Only the :attr:`commanded` joints are listed. The state must have been
        :meth:`reset` first.

        :param target_velocity: (n,) velocity of a moving target [rad/s, m/s] (a goal stream),
            followed in this cycle (feed-forward, within ``v_max``); None: a still target.
        :raises InputError: no state yet, or ``target`` of the wrong length or not finite.
        """
        if self.positions is None:
            raise InputError('stream: no commanded state yet (reset it from the measured one)')
        q = np.asarray(target, dtype=float).reshape(-1)
        if q.shape != self.positions.shape or not np.all(np.isfinite(q)):
            raise InputError(f'target: expected {self.positions.size} finite joint values')
        still = np.zeros(q.shape)
        c = still if target_velocity is None else \
            np.clip(np.nan_to_num(np.asarray(target_velocity, dtype=float)), -self.vmax,
                    self.vmax)
        sel = self.commanded
        p, v, a = _advance(self.positions, self.velocities, q, self.vmax, self.amax, self.dt,
                           self.continuous, c)
        self.positions, self.velocities = p, v
        states, times = [(p[sel], v[sel], a[sel])], [self.dt]
        # the next cycles as the stream predicts them (the target goes on at its velocity):
        # what a controller samples when the next message is late
        ahead = q
        if np.any(c):
            for _ in range(PREDICT_STEPS):
                ahead = np.clip(ahead + c * self.dt, self.lower, self.upper)
                p, v, a = _advance(p, v, ahead, self.vmax, self.amax, self.dt, self.continuous,
                                   c)
                states.append((p[sel], v[sel], a[sel]))
                times.append(times[-1] + self.dt)
        tail = max(self.dt, TAIL_STEP)
        for _ in range(MAX_STEPS):
            if not np.any(v):
                break
            p, v, a = _advance(p, v, ahead, self.vmax, self.amax, tail, self.continuous, still)
            states.append((p[sel], v[sel], a[sel]))
            times.append(times[-1] + tail)
        if times[-1] < MIN_CYCLES * self.dt:  # at rest early: held there a little longer
            states.append(states[-1][:2] + (np.zeros(len(sel)),))
            times.append(MIN_CYCLES * self.dt)
        keep = np.unique(np.linspace(0, len(states) - 1, min(len(states), MAX_POINTS))
                         .round().astype(int))
        ticks = whole_ns_times([times[k] for k in keep])
        # no accelerations: a controller then interpolates each segment with a cubic, which for
        # these points (p1 - p0 = (v0 + v1) dt / 2) is exactly the constant-acceleration motion
        points = [TrajectoryPoint(states[k][0].copy(), states[k][1].copy(), None, t)
                  for k, t in zip(keep, ticks)]
        return Trajectory([self.joint_names[i] for i in self.commanded], points)


def planner_for(linkage, config, dt: float, commanded: Optional[Sequence[int]] = None
                ) -> StreamPlanner:
    """
    Build the streaming planner of a robot, as ``pdls_ik_node`` and ``pdls-ik demo`` use it.

    :param linkage: the model (``joint_names``, ``velocity_limits``, ``continuous``).
    :param config: :class:`pdls_ik.config.IKConfig` (``velocity_scaling``,
        ``max_acceleration``, ``acceleration_scaling``).
    :param dt: cycle period [s].
    :param commanded: model indices of the controller's joints (default all).
    """
    vmax = np.asarray(linkage.velocity_limits, dtype=float)
    return StreamPlanner(linkage.joint_names, vmax * config.velocity_scaling,
                         acceleration_limits(vmax, config.max_acceleration,
                                             config.acceleration_scaling),
                         dt, linkage.continuous, commanded, linkage.lower, linkage.upper)
