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
A model of ros2_controllers' joint_trajectory_controller (4.42) sampling streamed messages.

Written from the controller's source (``joint_trajectory_controller.cpp``, ``update()``, and
``trajectory.cpp``, ``sample()`` and ``interpolate_between_points()``) for the set-up of
``config/panda_controllers.yaml`` (position command, ``interpolate_from_desired_state: true``,
speed scaling 1). Per control cycle at time T:

- the newest message received replaces the running trajectory (messages received within one
  cycle but one are never used);
- on the first sample of a message, the point before it is the last command
  (``last_commanded_state_``: the previous cycle's sample at its time + one period, with its
  velocity and acceleration) placed at the previous cycle's time (``last_commanded_time_``);
  a header stamp of zero starts the message at T;
- the reference (``controller_state``'s ``reference``) is the sample at T, the command written
  to the hardware the sample at T + period;
- before the first point: the spline from the point before to the first point; between points:
  linear without velocities, cubic with velocities, quintic with velocities and accelerations;
  after the last point: the last point.
"""
from dataclasses import dataclass
from typing import List, Optional

import numpy as np


@dataclass
class Sample:
    """Positions, velocities, accelerations (n,) each, as the controller samples them."""

    p: np.ndarray
    v: np.ndarray
    a: np.ndarray


def _interpolate(ta: float, a: Sample, tb: float, b: Sample, t: float,
                 has_acc: bool) -> Sample:
    """interpolate_between_points(): the Hermite spline of the points' fields [s]."""
    h = tb - ta
    s = t - ta
    linear = False
    if s < 0.0:
        s, linear = 0.0, True
    if s > h:
        s, linear = h, True
    if linear:
        vel = (b.p - a.p) / h if h else np.zeros_like(a.p)
        return Sample(a.p + vel * s, vel, np.zeros_like(a.p))
    if not has_acc:
        c2 = (-3.0 * a.p + 3.0 * b.p - 2.0 * a.v * h - b.v * h) / h ** 2
        c3 = (2.0 * a.p - 2.0 * b.p + a.v * h + b.v * h) / h ** 3
        return Sample(a.p + a.v * s + c2 * s ** 2 + c3 * s ** 3,
                      a.v + 2.0 * c2 * s + 3.0 * c3 * s ** 2, 2.0 * c2 + 6.0 * c3 * s)
    c2 = 0.5 * a.a
    c3 = (-20.0 * a.p + 20.0 * b.p - 3.0 * a.a * h ** 2 + b.a * h ** 2 - 12.0 * a.v * h
          - 8.0 * b.v * h) / (2.0 * h ** 3)
    c4 = (30.0 * a.p - 30.0 * b.p + 3.0 * a.a * h ** 2 - 2.0 * b.a * h ** 2 + 16.0 * a.v * h
          + 14.0 * b.v * h) / (2.0 * h ** 4)
    c5 = (-12.0 * a.p + 12.0 * b.p - a.a * h ** 2 + b.a * h ** 2 - 6.0 * a.v * h
          - 6.0 * b.v * h) / (2.0 * h ** 5)
    return Sample(a.p + a.v * s + c2 * s ** 2 + c3 * s ** 3 + c4 * s ** 4 + c5 * s ** 5,
                  a.v + 2 * c2 * s + 3 * c3 * s ** 2 + 4 * c4 * s ** 3 + 5 * c5 * s ** 4,
                  2 * c2 + 6 * c3 * s + 12 * c4 * s ** 2 + 20 * c5 * s ** 3)


class JtcModel:
    """
    The controller's sampling of streamed :class:`pdls_ik.trajectory.Trajectory` messages.

    Times are integer nanoseconds on the controller's clock. A message's header stamp is its
    ``start_ns`` when ``stamped`` (else zero: start on its first sample).

    :param q0: (n,) the position the controller holds at start.
    :param period_ns: the controller's update period (its ``update_period_``).
    """

    def __init__(self, q0, period_ns: int, stamped: bool):
        q0 = np.asarray(q0, dtype=float)
        zero = np.zeros_like(q0)
        self.period_ns, self.stamped = int(period_ns), stamped
        self.last_command = Sample(q0.copy(), zero.copy(), zero.copy())
        self.last_time: Optional[int] = None
        self.message = None
        self.used = 0  # messages the controller switched to
        self.spliced = 0  # of which sampled first before their first point (from the command)
        self._sampled = False
        self._start = 0
        self._before: Optional[tuple] = None

    def update(self, t_ns: int, newest) -> tuple:
        """
        One control cycle at ``t_ns`` with ``newest`` the last message received (or None).

        :return: (reference Sample, command positions (n,)); the reference of a cycle without
            a trajectory is the held position at rest.
        """
        if newest is not None and newest is not self.message:
            self.message, self._sampled = newest, False
            self.used += 1
        if self.message is None:
            return Sample(self.last_command.p, 0 * self.last_command.p,
                          0 * self.last_command.p), self.last_command.p
        if not self._sampled:
            before = self.last_time if self.last_time is not None else t_ns
            self._before = (before, self.last_command)
            stamp = self.message.start_ns if self.stamped else None
            self._start = t_ns if not stamp else stamp
            self._sampled = True
            self._traj_time = t_ns
            self.spliced += t_ns < self._point(0)[0]
        else:
            self._traj_time += t_ns - self._last_cycle
        self._last_cycle = t_ns
        reference = self._sample(self._traj_time)
        command = self._sample(self._traj_time + self.period_ns)
        self.last_command, self.last_time = command, t_ns
        return reference, command.p

    def _point(self, k: int) -> tuple:
        pt = self.message.points[k]
        t = self._start + int(round(pt.time_from_start * 1e9))
        acc = pt.accelerations
        return t, Sample(np.asarray(pt.positions, float), np.asarray(pt.velocities, float),
                         None if acc is None else np.asarray(acc, float))

    def _sample(self, t_ns: int) -> Sample:
        points: List = self.message.points
        t0, first = self._point(0)
        if t_ns < t0:  # the spline from the point before the message to its first point
            tb, before = self._before
            has_acc = first.a is not None
            b = first if has_acc else Sample(first.p, first.v, np.zeros_like(first.p))
            return _interpolate(0.0, before, (t0 - tb) / 1e9, b, (t_ns - tb) / 1e9, has_acc)
        for k in range(len(points) - 1):
            ta, a = self._point(k)
            tb, b = self._point(k + 1)
            if ta <= t_ns < tb:
                return _interpolate(0.0, a, (tb - ta) / 1e9, b, (t_ns - ta) / 1e9,
                                    a.a is not None and b.a is not None)
        _, last = self._point(len(points) - 1)
        zero = np.zeros_like(last.p)
        return Sample(last.p, last.v, zero if last.a is None else last.a)


def run_stream(produce, q0, dt: float, cycles: int, stamped: bool, rng=None,
               node_late: float = 0.0, delivery: float = 0.0, phase: float = 0.37):
    """
    Run a node's stream through :class:`JtcModel` with irregular timing.

    Node cycle ``k`` runs at ``k dt`` + a random lateness in [0, ``node_late``) [s] and calls
    ``produce(k, now)`` for its message; the message reaches the controller a random delay in
    [0, ``delivery``) later, in order. The controller runs at ``(j + phase) dt``.

    :return: (times (m,) [s], reference positions (m, n), reference velocities (m, n),
        command positions (m, n), the model, [(arrival [ns], message)]).
    """
    rng = rng or np.random.default_rng(0)
    dt_ns = int(round(dt * 1e9))
    sent = []  # (arrival ns, message)
    arrival = now_ns = 0
    for k in range(cycles):
        now_ns = max(now_ns + 1, k * dt_ns + int(rng.uniform(0.0, node_late) * 1e9))
        msg = produce(k, now_ns / 1e9)
        if msg is None:
            continue
        arrival = max(arrival, now_ns + 1 + int(rng.uniform(0.0, delivery) * 1e9))
        sent.append((arrival, msg))
    model = JtcModel(q0, dt_ns, stamped)
    times, ref_p, ref_v, out_p = [], [], [], []
    i, newest = 0, None
    for j in range(cycles + 100):
        t = int(round((j + phase) * dt_ns))
        while i < len(sent) and sent[i][0] <= t:
            newest = sent[i][1]
            i += 1
        ref, command = model.update(t, newest)
        times.append(t / 1e9)
        ref_p.append(ref.p)
        ref_v.append(ref.v)
        out_p.append(command)
    return (np.array(times), np.array(ref_p), np.array(ref_v), np.array(out_p), model, sent)
