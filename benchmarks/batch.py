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
Batch protocol: :func:`pdls_ik.ik.batch.solve_batch` throughput versus the number of goals N.

Panda (bundled), targets by FK of random in-limit configurations, random in-limit seeds. For each
backend (NumPy reference; Numba when importable) and N: solves per second of wall time, and per
core (solves per CPU-second of this process; the kernels run on one core), the success rate (each
success re-checked by Pinocchio FK within 1e-5 m / 1e-4 rad and the limits) and mean iterations.

    python benchmarks/batch.py [--quick]
"""
from __future__ import annotations

import sys
import time
from typing import Dict, List

import common  # noqa: F401,I100  (first: single-core BLAS before NumPy loads)
from common import PinocchioCheck, protocol_main, random_q, robots, targets_by_fk
import numpy as np
from pdls_ik._accel import available
from pdls_ik.ik.batch import BatchSolver


def run(sizes=None, robot_name: str = 'panda (bundled)', quick: bool = False,
        log=print) -> List[Dict]:
    """Rows per (backend, N); sizes default to 1 … 10,000 (… 1000 when quick)."""
    sizes = sizes or ((1, 10, 100, 1000) if quick else (1, 10, 100, 1000, 10000))
    robot = robots([robot_name])[0]
    check = PinocchioCheck(robot)
    rng = np.random.default_rng(7)
    count = max(sizes)
    qs = random_q(robot, rng, count)
    targets = np.array([robot.linkage.forward_kinematics(q, robot.tip, robot.base) for q in qs])
    seeds = random_q(robot, rng, count)
    verify = targets_by_fk(robot, qs[:200], check)
    assert np.allclose(verify, targets[:200], atol=1e-9), 'pdls_ik and Pinocchio FK disagree'
    rows = []
    for backend in ('numpy', 'numba'):
        if backend == 'numba' and not available():
            rows.append({'backend': backend, 'missing': 'numba not installed'})
            continue
        solver = BatchSolver(robot.linkage, robot.tip, robot.base, backend=backend)
        solver.solve(targets[:2], seeds[:2])  # warm-up (and JIT cache load)
        for N in sizes:
            reps = max(1, min(50, 2000 // N))
            wall, cpu = [], []
            for _ in range(reps if N < 1000 else 2):
                t0, c0 = time.perf_counter(), time.process_time()
                res = solver.solve(targets[:N], seeds[:N])
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            good = 0
            for k in np.flatnonzero(res.success)[:200]:
                good += check.valid(res.q[k], targets[k])[0]
            checked = min(int(res.success.sum()), 200)
            row = {'backend': backend, 'robot': robot.label, 'N': N,
                   'solves_per_s': N / min(wall), 'solves_per_cpu_s': N / max(min(cpu), 1e-9),
                   'success_pct': 100.0 * res.success.mean(),
                   'pinocchio_confirmed': f'{good}/{checked}',
                   'mean_iterations': float(res.iterations.mean())}
            rows.append(row)
            log(f"{backend:<6} N {N:>6}  {row['solves_per_s']:10.0f} solves/s  "
                f"{row['solves_per_cpu_s']:10.0f} solves/CPU-s  success "
                f"{row['success_pct']:.2f} %  (Pinocchio {row['pinocchio_confirmed']})")
    return rows


def markdown(rows: List[Dict]) -> str:
    lines = ['| backend | N | solves/s | solves/s/core | success % | Pinocchio-confirmed | '
             'mean iterations |', '|---|---|---|---|---|---|---|']
    for r in rows:
        if 'missing' in r:
            lines.append(f"| {r['backend']} | missing: {r['missing']} | | | | | |")
            continue
        lines.append(f"| {r['backend']} | {r['N']} | {r['solves_per_s']:.0f} | "
                     f"{r['solves_per_cpu_s']:.0f} | {r['success_pct']:.2f} | "
                     f"{r['pinocchio_confirmed']} | {r['mean_iterations']:.1f} |")
    return '\n'.join(lines)


def main(argv=None) -> int:
    return protocol_main(__doc__, 'N up to 1000', lambda a: run(quick=a.quick), markdown, argv)


if __name__ == '__main__':
    sys.exit(main())
