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
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError

_TWO_PI = 2.0 * math.pi


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


def wrap_angle(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Wrap angles into [-π, π) [rad]; works element-wise on arrays."""
    return (np.asarray(x, dtype=float) + math.pi) % _TWO_PI - math.pi


def joint_delta(q_from: NDArray[np.float64], q_to: NDArray[np.float64],
                continuous: Optional[NDArray[np.bool_]] = None) -> NDArray[np.float64]:
    """Joint displacement ``q_to − q_from`` (n,), the short way round for continuous joints."""
    delta = np.asarray(q_to, dtype=float) - np.asarray(q_from, dtype=float)
    if continuous is not None and np.any(continuous):
        delta = delta.copy()
        delta[continuous] = wrap_angle(delta[continuous])
    return delta


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
