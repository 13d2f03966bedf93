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
Tracking protocol: a continuous goal path at 1 kHz through :meth:`IKSolver.track`.

Paths: the demo figure-eight of :mod:`pdls_ik.cli.demo_path` on the Panda, and joint-space sweeps
whose FK crosses a wrist singularity (Panda q6 through 0, where joints 5 and 7 align; UR5 q5
through 0, where joints 4 and 6 align). The Panda runs with 3 priority levels: a joint lock (the
finger joint held), the pose, and the posture (null space); the UR5 with pose + posture. Each
path runs on the default backend (the compiled cycle when numba is installed) and on the NumPy
reference; the solver is warmed up first (:meth:`IKSolver.warm_up`), as the node does.

Per run: cycle time p50 / p99 / max (ms, wall clock around ``track``; also the thread's CPU
time p50 / p99, which leaves out the time the process was descheduled on a shared machine),
cycles that met the goal,
max position / orientation tracking error, largest joint step (rad, and as a fraction of the
velocity limit × dt), and joint-limit violations.

    python benchmarks/tracking.py [--quick]
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Dict, List

import common  # noqa: F401,I100  (first: single-core BLAS before NumPy loads)
from common import LIMIT_SLACK, protocol_main, robots
import numpy as np
from pdls_ik import IKSolver
from pdls_ik._accel import available as numba_available
from pdls_ik.cli.demo_path import default_path
from scipy.spatial.transform import Rotation

RATE = 1000.0


def _sweep(robot, joint: int, home, amplitude: float, period: float) -> Callable:
    """Goal (position, quaternion) at t: FK of home with q[joint] = amplitude · cos(2πt/T)."""
    def goal(t: float):
        q = np.array(home, dtype=float)
        q[joint] = amplitude * np.cos(2 * np.pi * t / period)
        T = robot.linkage.forward_kinematics(q, robot.tip, robot.base)
        return T[:3, 3], Rotation.from_matrix(T[:3, :3]).as_quat()
    return goal


def cases(quick: bool):
    """(label, robot, solver options, goal function, q0) of every tracking run."""
    out = []
    for robot in robots(['panda (bundled)', 'ur5 (bundled)']):
        if robot.label.startswith('panda'):
            opts = {'locked_joints': ['panda_finger_joint1'], 'locked_positions': [0.02]}
            path, home = default_path(robot.linkage, robot.tip, robot.base, robot_name='panda')
            home = home.copy()
            home[robot.linkage.joint_index('panda_finger_joint1')] = 0.02
            out.append(('panda demo figure-eight', robot, opts,
                        lambda t, p=path: p.pose(t), home))
            wrist = home.copy()
            wrist[5] = 0.31
            out.append(('panda wrist singularity (q6 through 0)', robot, opts,
                        _panda_wrist(robot, wrist), wrist))
        else:
            home = np.array([0.0, -1.2, 1.5, -1.0, 0.4, 0.3])
            out.append(('ur5 wrist singularity (q5 through 0)', robot, {},
                        _sweep(robot, 4, home, 0.4, 2.0), home))
    return out


def _panda_wrist(robot, home) -> Callable:
    """q6 follows 0.15 + 0.16 cos(2πt / 2 s): through 0 (singular) down to −0.01 (in limits)."""
    def goal(t: float):
        q = np.array(home, dtype=float)
        q[5] = 0.15 + 0.16 * np.cos(2 * np.pi * t / 2.0)
        T = robot.linkage.forward_kinematics(q, robot.tip, robot.base)
        return T[:3, 3], Rotation.from_matrix(T[:3, :3]).as_quat()
    return goal


def run_case(label, robot, options, goal, q0, duration: float, backend: str = 'auto') -> Dict:
    solver = IKSolver(robot.linkage, robot.tip, robot.base, backend=backend, **options)
    solver.warm_up()      # as the node does at start: the kernels' loading is not a cycle
    dt = 1.0 / RATE
    q = np.array(q0, dtype=float)
    vmax = robot.linkage.velocity_limits * solver.config.velocity_scaling
    times, cpu, pos_err, ori_err, steps, ratio, ok = [], [], [], [], [], [], 0
    violations = 0
    cycles = int(round(duration * RATE))
    for k in range(1, cycles + 1):
        target = goal(k * dt)
        t0, c0 = time.perf_counter(), time.thread_time()
        res = solver.track(target, q, dt)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        step = np.abs(res.q - q)
        steps.append(float(step.max()))
        finite = np.isfinite(vmax) & (vmax > 0)
        ratio.append(float((step[finite] / (vmax[finite] * dt)).max()))
        violations += int(np.any(res.q < robot.linkage.lower - LIMIT_SLACK)
                          or np.any(res.q > robot.linkage.upper + LIMIT_SLACK))
        pos_err.append(res.position_error)
        ori_err.append(res.orientation_error)
        ok += res.success
        q = res.q
    t, c = np.array(times) * 1e3, np.array(cpu) * 1e3
    return {'case': label, 'robot': robot.label, 'backend': solver.backend,
            'levels': list(solver.level_names) + (
                ['posture'] if solver.posture is not None else []),
            'dof': len(robot.chain_variables), 'cycles': cycles, 'rate_hz': RATE,
            'p50_ms': float(np.percentile(t, 50)), 'p99_ms': float(np.percentile(t, 99)),
            'max_ms': float(t.max()), 'cpu_p50_ms': float(np.percentile(c, 50)),
            'cpu_p99_ms': float(np.percentile(c, 99)), 'goal_met_pct': 100.0 * ok / cycles,
            'max_position_error_m': float(max(pos_err)),
            'max_orientation_error_rad': float(max(ori_err)),
            'largest_joint_step_rad': float(max(steps)),
            'largest_step_over_velocity_limit': float(max(ratio)),
            'limit_violations': violations}


def run(quick: bool = False, log=print, backends=None) -> List[Dict]:
    """
    Every path on the default backend (numba when installed), then on the NumPy reference.

    ``backends``: a subset of ('auto', 'numpy') to run instead.
    """
    duration = 2.0 if quick else 10.0
    rows = []
    if backends is None:
        backends = ['auto', 'numpy'] if numba_available() else ['numpy']
    for label, robot, options, goal, q0 in cases(quick):
        for backend in backends:
            row = run_case(label, robot, options, goal, q0, duration, backend)
            rows.append(row)
            log(f"{label:<42} {row['backend']:<6} p50 {row['p50_ms']:.3f} ms  "
                f"p99 {row['p99_ms']:.3f} ms  "
                f"(CPU p99 {row['cpu_p99_ms']:.3f} ms)  "
                f"max err {row['max_position_error_m']:.2e} m / "
                f"{row['max_orientation_error_rad']:.2e} rad  "
                f"step {row['largest_joint_step_rad']:.4f} rad  "
                f"violations {row['limit_violations']}")
    return rows


def markdown(rows: List[Dict]) -> str:
    lines = ['| path | backend | levels | DOF | cycles | p50 ms | p99 ms | max ms '
             '| CPU p50 / p99 ms | goal met % | max pos err m | max ori err rad '
             '| largest step rad (÷ v_max·dt) | limit viol. |',
             '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for r in rows:
        lines.append(f"| {r['case']} | {r.get('backend', 'numpy')} | {' > '.join(r['levels'])} "
                     f"| {r['dof']} | {r['cycles']} | "
                     f"{r['p50_ms']:.3f} | {r['p99_ms']:.3f} | {r['max_ms']:.2f} | "
                     f"{r['cpu_p50_ms']:.3f} / {r['cpu_p99_ms']:.3f} | "
                     f"{r['goal_met_pct']:.1f} | {r['max_position_error_m']:.2e} | "
                     f"{r['max_orientation_error_rad']:.2e} | {r['largest_joint_step_rad']:.4f} "
                     f"({r['largest_step_over_velocity_limit']:.2f}) | {r['limit_violations']} |")
    return '\n'.join(lines)


def main(argv=None) -> int:
    def extra(parser):
        parser.add_argument('--backends', nargs='*', choices=('auto', 'numpy'),
                            help="backends to run (default both; 'auto': numba when installed)")
    return protocol_main(__doc__, '2 s paths instead of 10 s',
                         lambda a: run(a.quick, backends=a.backends), markdown, argv, extra)


if __name__ == '__main__':
    sys.exit(main())
