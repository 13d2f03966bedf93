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
Clamping loop vs projected Gauss–Seidel (PGS) as the PDLS limit strategy, on the Panda.

One local PDLS solve per goal (no random restarts), pose task on panda_link8 (tolerances 1e-5 m,
1e-4 rad), seed = middle of the joint limits, at most 200 iterations. Goals are forward
kinematics of random configurations:

- interior: every joint in the middle 80 % of its range (limits rarely active);
- near limits: three random joints within 2 % of a limit (the solution sits at the limits);
- at limits: three random joints exactly at a limit.

Strategies: the clamping loop, PGS to 1e-12, and an inexact PGS (30 sweeps). For each strategy
and case it prints the success rate, the median and 90th-percentile solve time
and the mean iterations of the successful solves. Times depend on the machine (run it alone;
it takes the best of two passes).

    python benchmarks/compare_limit_strategies.py [--count N] [--seed S]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from pdls_ik import load_urdf, pdls  # noqa: E402
from pdls_ik.ik.task_solver import TaskSolver  # noqa: E402
from pdls_ik.tasks import FrameTask  # noqa: E402

URDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'urdf', 'panda.urdf')
CASES = ('interior', 'near limits', 'at limits')
#: label → PDLS options: the clamping loop, PGS solved to 1e-12 (200 sweeps), and an inexact
#: PGS (30 sweeps, 1e-8): the outer PDLS iterations tolerate an approximate bounded step
STRATEGIES = {'clamping': {'limit_strategy': 'clamping'},
              'pgs': {'limit_strategy': 'pgs'},
              'pgs-30': {'limit_strategy': 'pgs', 'pgs_max_iterations': 30, 'pgs_tol': 1e-8}}


def goals(robot, case: str, count: int, rng: np.random.Generator):
    """Goal configurations (count, n) of one case (module docstring)."""
    lo, hi = robot.lower[:7], robot.upper[:7]
    out = []
    for _ in range(count):
        q = np.clip(np.zeros(robot.n), robot.lower, robot.upper)
        q[:7] = rng.uniform(lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo))
        if case != 'interior':
            for j in rng.choice(7, size=3, replace=False):
                gap = 0.0 if case == 'at limits' else rng.uniform(0.0, 0.02) * (hi[j] - lo[j])
                q[j] = lo[j] + gap if rng.random() < 0.5 else hi[j] - gap
        out.append(q)
    return out


def run(robot, strategy: str, configs, seed_q):
    task = FrameTask(robot, 'panda_link8')
    options = pdls.PDLSOptions(max_iterations=200, theta_diff_max_mag=1.5,
                               divergence_factor=None, **STRATEGIES[strategy])
    solver = TaskSolver(robot, [task], options=options)
    times, iters, ok = [], [], 0
    for q in configs:
        task.set_target(robot.forward_kinematics(q, 'panda_link8'))
        t0 = time.perf_counter()
        res = solver.solve(seed_q)
        times.append(time.perf_counter() - t0)
        if res.success:
            ok += 1
            iters.append(res.iterations)
    return ok, np.array(times), iters


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--count', type=int, default=200, help='goals per case')
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    robot = load_urdf(URDF)
    seed_q = 0.5 * (robot.lower + robot.upper)
    rng = np.random.default_rng(args.seed)
    print(f'Panda, {args.count} goals per case, one local solve each (no restarts)')
    print(f"{'case':12s} {'strategy':9s} {'success':>8s} {'median ms':>10s} {'p90 ms':>8s} "
          f"{'iters':>6s}")
    summary = {}
    for case in CASES:
        configs = goals(robot, case, args.count, rng)
        for strategy in STRATEGIES:
            best = None
            for _ in range(2):                      # best of two passes: least disturbed
                ok, times, iters = run(robot, strategy, configs, seed_q)
                if best is None or np.median(times) < np.median(best[1]):
                    best = (ok, times, iters)
            ok, times, iters = best
            summary[case, strategy] = (ok, float(np.median(times)))
            print(f'{case:12s} {strategy:9s} {ok / args.count:8.1%} '
                  f'{1e3 * np.median(times):10.3f} {1e3 * np.percentile(times, 90):8.3f} '
                  f"{np.mean(iters) if iters else float('nan'):6.1f}")
    print()
    for case in CASES:
        runs = {k: summary[case, k] for k in STRATEGIES}
        most = max(v[0] for v in runs.values())
        fastest = min(runs, key=lambda k: runs[k][1])
        print(f"{case}: most successes: {', '.join(k for k in runs if runs[k][0] == most)} "
              f'({most}/{args.count}); fastest median: {fastest}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
