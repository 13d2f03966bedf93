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
Self-collision level on the bundled Panda: success and time with and without it, and tracking.

Goals for the hand (``panda_link8``, position only): half are the FK of random in-limit
configurations, half are placed against the robot's own links (a random point on the surface of
a random capsule of panda_link0…panda_link4 at a random configuration, moved 2–6 cm out along the
surface normal). Each goal is solved from a random in-limit seed by IKSolver with the default
tolerances and a ``--timeout`` (default 20 ms), with restarts:

- ``without``: no collision level, compiled backend (numba) and NumPy backend;
- ``with level``: the SelfCollisionTask level above the pose (d_min = 1 cm), compiled
  (:mod:`pdls_ik._accel.pose_problem_numba`) and NumPy backends.

Every success is checked independently: Pinocchio's FK of the hand within 1e-5 m of the goal,
and coal's distance between every checked pair of capsules placed at Pinocchio's link poses
≥ d_min − 1e-6 m. Reported: success rate, mean and p95 time over all attempts, and how many
successes are in collision (pairs below d_min by coal), and the mean time of the successes
(a goal that cannot be reached without contact spends the whole timeout).

Tracking (1 kHz, dt = 1 ms, compiled backend; levels finger lock > self-collision (velocity
damper, 0.5 m/s at 10 cm) > pose > posture): the demo's figure-eight (full pose, 5 s) and a
hand goal pushed through the robot's base (position only, 3 s: the collision level active),
each with and without the level: solve time per cycle p50 / p99, wall clock and CPU time of the
thread (a wall-clock spike with a flat CPU time is the process waiting for a core), the smallest
pair distance reached.

    python benchmarks/self_collision.py            # N = 1000
    python benchmarks/self_collision.py -n 100
    python benchmarks/self_collision.py --tracking-only
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import coal  # noqa: E402,I100
import numpy as np  # noqa: E402
from pdls_ik import IKSolver, load_urdf  # noqa: E402
from pdls_ik.cli.demo_path import default_path  # noqa: E402
from pdls_ik.config import IKConfig  # noqa: E402
from pdls_ik.model.collision import collision_model  # noqa: E402
from pdls_ik.resources import bundled_urdf  # noqa: E402
from pdls_ik.tasks import SelfCollisionTask  # noqa: E402
from pdls_ik.tasks.self_collision_task import damper_gain  # noqa: E402
import pinocchio as pin  # noqa: E402

TIP, D_MIN = 'panda_link8', 0.01


def _coal_shape(a, b, r):
    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.linalg.norm(b - a))
    if length < 1e-15:
        return coal.Sphere(r), coal.Transform3s(np.eye(3), a)
    z = (b - a) / length
    x = np.cross(z, [1.0, 0, 0] if abs(z[0]) < 0.9 else [0, 1.0, 0])
    x /= np.linalg.norm(x)
    R = np.column_stack((x, np.cross(z, x), z))
    return coal.Capsule(r, length), coal.Transform3s(R, 0.5 * (a + b))


class Check:
    """Pinocchio FK and coal distances of the same capsules: independent of pdls_ik's code."""

    def __init__(self, urdf_text, robot, model):
        self.pm = pin.buildModelFromXML(urdf_text)
        self.pd = self.pm.createData()
        self.robot, self.model = robot, model

    def _q(self, q):
        qp = pin.neutral(self.pm)
        values = dict(zip(self.robot.joint_names, q))
        values.update(self.robot.mimic_values(q))
        for name, v in values.items():
            qp[self.pm.idx_qs[self.pm.getJointId(name)]] = v
        return qp

    def pose(self, q, link):
        pin.forwardKinematics(self.pm, self.pd, self._q(q))
        return pin.updateFramePlacement(self.pm, self.pd, self.pm.getFrameId(link)).homogeneous

    def min_distance(self, q):
        pin.forwardKinematics(self.pm, self.pd, self._q(q))
        poses = {link: pin.updateFramePlacement(self.pm, self.pd,
                                                self.pm.getFrameId(link)).homogeneous
                 for link in self.model.links}
        best = np.inf
        for la, lb in self.model.pairs:
            for c1 in self.model.capsules:
                if c1.link != la:
                    continue
                T1 = poses[la]
                s1, t1 = _coal_shape(T1[:3, :3] @ c1.a + T1[:3, 3], T1[:3, :3] @ c1.b + T1[:3, 3],
                                     c1.radius)
                for c2 in self.model.capsules:
                    if c2.link != lb:
                        continue
                    T2 = poses[lb]
                    s2, t2 = _coal_shape(T2[:3, :3] @ c2.a + T2[:3, 3],
                                         T2[:3, :3] @ c2.b + T2[:3, 3], c2.radius)
                    best = min(best, coal.distance(s1, t1, s2, t2, coal.DistanceRequest(),
                                                   coal.DistanceResult()))
        return best


def goals(robot, model, n, rng):
    """(n, 3) hand positions: first half FK of random q, second half against the body."""
    lo, hi = robot.lower, robot.upper
    out = []
    for _ in range(n // 2):
        out.append(robot.forward_kinematics(rng.uniform(lo, hi), TIP)[:3, 3])
    body_links = ('panda_link0', 'panda_link1', 'panda_link2', 'panda_link3', 'panda_link4')
    body = [c for c in model.capsules if c.link in body_links]
    while len(out) < n:
        cap = body[rng.integers(len(body))]
        T = robot.forward_kinematics(rng.uniform(lo, hi), cap.link)
        s = rng.uniform()
        axis_point = (1 - s) * np.asarray(cap.a) + s * np.asarray(cap.b)
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        local = axis_point + (cap.radius + rng.uniform(0.02, 0.06)) * direction
        p = T[:3, :3] @ local + T[:3, 3]
        if p[2] > 0.05:                                   # above the floor
            out.append(p)
    return np.array(out)


def run(n, timeout, log=print):
    robot = load_urdf(bundled_urdf('panda'))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        model = collision_model(robot)
    check = Check(bundled_urdf('panda').read_text(), robot, model)
    rng = np.random.default_rng(16)
    targets = goals(robot, model, n, rng)
    seeds = rng.uniform(robot.lower, robot.upper, (n, robot.n))
    task = SelfCollisionTask(robot, model, d_min=D_MIN)
    fast = IKConfig(position_only=True, timeout=timeout)
    ref = IKConfig(position_only=True, timeout=timeout, backend='numpy')
    variants = {
        'without (numba)': IKSolver(robot, TIP, config=fast),
        'without (numpy)': IKSolver(robot, TIP, config=ref),
        'with level (numba)': IKSolver(robot, TIP, config=fast, extra_tasks=[task]),
        'with level (numpy)': IKSolver(robot, TIP, config=ref, extra_tasks=[task]),
    }
    rows = []
    half = n // 2
    for label, ik in variants.items():
        ik.warm_up()
        ik.solve((targets[0], (0, 0, 0, 1)), seed=seeds[0])
        for part, sl in (('random', slice(0, half)), ('against body', slice(half, n))):
            ok = colliding = 0
            times, solved = [], []
            for goal, seed in zip(targets[sl], seeds[sl]):
                t0 = time.perf_counter()
                res = ik.solve((goal, (0, 0, 0, 1)), seed=seed)
                times.append(time.perf_counter() - t0)
                if not res.success:
                    continue
                solved.append(times[-1])
                reached = np.linalg.norm(check.pose(res.q, TIP)[:3, 3] - goal) <= 1e-5
                inside = np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
                if reached and inside:
                    ok += 1
                    if check.min_distance(res.q) < D_MIN - 1e-6:
                        colliding += 1
            count = len(times)
            row = {'solver': label, 'goals': part, 'n': count,
                   'success': 100.0 * ok / count, 'mean_ms': 1e3 * float(np.mean(times)),
                   'p95_ms': 1e3 * float(np.percentile(times, 95)),
                   'mean_success_ms': 1e3 * float(np.mean(solved)) if solved else float('nan'),
                   'successes_below_d_min': colliding}
            rows.append(row)
            log(f"{label:20s} {part:13s} success {row['success']:5.1f} %  mean "
                f"{row['mean_ms']:6.2f} ms  p95 {row['p95_ms']:6.2f} ms  mean of successes "
                f"{row['mean_success_ms']:6.2f} ms  successes below d_min (coal): {colliding}")
    rows += tracking(robot, model, log)
    return rows


def tracking(robot, model, log=print, rate=1000.0):
    """Tracking cycles at ``rate`` [Hz] with and without the level (module docstring)."""
    dt = 1.0 / rate
    gain = damper_gain(0.5, dt, D_MIN, 0.1)
    rows = []
    path, home = default_path(robot, TIP, robot_name='panda')
    start = robot.forward_kinematics(home, TIP)[:3, 3]
    end = np.array([0.1, 0.0, 0.15])                        # beside the base: through links 0-2
    cases = {'figure-eight (pose)': (False, 5.0, lambda t: path.pose(t)),
             'pushed through the base (position)': (True, 3.0, lambda t: (
                 start + min(1.0, t / 2.0) * (end - start), (0, 0, 0, 1)))}
    for case, (position_only, duration, goal_at) in cases.items():
        for level in (False, True):
            task = SelfCollisionTask(robot, model, d_min=D_MIN, gain=gain)
            ik = IKSolver(robot, TIP, config=IKConfig(
                position_only=position_only, locked_joints=['panda_finger_joint1'],
                locked_positions=[float(home[-1])]), extra_tasks=[task] if level else None)
            ik.warm_up()
            q = home.copy()
            ik.track(goal_at(0.0), q, dt)
            wall, cpu, closest = [], [], np.inf
            for k in range(int(round(duration * rate))):
                c0, t0 = time.thread_time(), time.perf_counter()
                res = ik.track(goal_at(k * dt), q, dt)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.thread_time() - c0)
                q = res.q
                if k % 10 == 0:
                    closest = min(closest, float(model.distances(q).distance.min()))
            wall, cpu = 1e3 * np.array(wall), 1e3 * np.array(cpu)
            row = {'tracking': case, 'level': level, 'backend': ik.backend, 'cycles': len(wall),
                   'p50_ms': float(np.percentile(wall, 50)),
                   'p99_ms': float(np.percentile(wall, 99)),
                   'cpu_p50_ms': float(np.percentile(cpu, 50)),
                   'cpu_p99_ms': float(np.percentile(cpu, 99)), 'closest_pair_m': closest}
            rows.append(row)
            log(f"tracking {case:36s} {'with level' if level else 'without':10s} "
                f"({ik.backend}) p50 {row['p50_ms']:.3f} ms  p99 {row['p99_ms']:.3f} ms  CPU "
                f"p50 {row['cpu_p50_ms']:.3f} ms  p99 {row['cpu_p99_ms']:.3f} ms  closest pair "
                f'{closest * 1e3:6.1f} mm (1 kHz budget: 1 ms)')
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('-n', type=int, default=1000)
    parser.add_argument('--timeout', type=float, default=0.02, help='[s] per goal')
    parser.add_argument('--tracking-only', action='store_true', help='only the tracking runs')
    args = parser.parse_args()
    if args.tracking_only:
        robot = load_urdf(bundled_urdf('panda'))
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            tracking(robot, collision_model(robot))
    else:
        run(args.n, args.timeout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
