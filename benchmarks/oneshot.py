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
One-shot protocol (as TRAC-IK publishes it), every solver side by side in the same run.

Per robot: N joint vectors uniform within limits → targets by Pinocchio FK. Each target is solved
once seeded from a different random in-limit vector ("random" seeds) and once from the middle of
the limits ("mid" seeds), with timeouts of 5 ms and 50 ms. An attempt succeeds only if it
returns within the timeout, within the joint limits, and its FK by Pinocchio is within 1e-5 m and
1e-4 rad of the target. Reported per (robot, seeds, timeout, solver): success %, mean / median /
p95 time over all attempts, median time of successes, limit violations, and pdls_ik's ratios to
the best peer of the same run (success: ours / best; times: ours / best).

    python benchmarks/oneshot.py --quick          # N = 30, ikpy on 10 targets
    python benchmarks/oneshot.py -n 1000          # the full protocol
    python benchmarks/oneshot.py -n 1000 --erd --seeds random --timeouts 5 \
        --solvers 'pdls_ik IKSolver[numba]' 'rtb ik_LM'   # also example-robot-data arms

Each pdls_ik row also gives its mean time ÷ roboticstoolbox ``ik_LM``'s in the same run
(``ratio_ik_lm``), when ik_LM ran. Every row also has the solve times in CPU time of the thread
(``cpu_*``, ``time.thread_time``: what a loaded machine's other processes do not inflate) and
the CPU ratio to ik_LM (``cpu_ratio_ik_lm``); success still needs the wall-clock answer within
the timeout.
"""
from __future__ import annotations

import sys
import time
from typing import Dict, List

import common  # noqa: F401,I100  (first: single-core BLAS before NumPy loads)
from common import (mid_q, PinocchioCheck, protocol_main, random_q, robots, targets_by_fk,
                    time_stats)
import numpy as np
import peers

SLOW = {'ikpy': 10}  # solvers run on fewer targets in --quick (tens of ms per solve)


def run(n: int = 1000, timeouts=(0.005, 0.05), seed_modes=('random', 'mid'),
        robot_names=None, solver_labels=None, quick: bool = False, log=print,
        erd: bool = False) -> List[Dict]:
    """
    Run the protocol; returns one row (dict) per (robot, seeds, timeout, solver).

    ``erd``: also the arms of example-robot-data (:data:`common.ERD_ARMS`).
    """
    rows = []
    for robot in robots(robot_names, erd=erd):
        check = PinocchioCheck(robot)
        rng = np.random.default_rng(2024)
        qs = random_q(robot, rng, n)
        targets = targets_by_fk(robot, qs, check)
        random_seeds = random_q(robot, rng, n)
        solvers = peers.prepare(robot, solver_labels)
        for mode in seed_modes:
            seeds = random_seeds if mode == 'random' else np.tile(mid_q(robot), (n, 1))
            for timeout in timeouts:
                for label, solve in solvers.items():
                    row = {'robot': robot.label, 'dof': len(robot.chain_variables),
                           'seeds': mode, 'timeout_ms': timeout * 1e3, 'solver': label,
                           'ours': peers.SOLVERS[label][1]}
                    if isinstance(solve, str):
                        row['missing'] = solve
                        rows.append(row)
                        continue
                    count = min(n, SLOW[label]) if quick and label in SLOW else n
                    times, cpu, ok, violations = [], [], [], 0
                    for k in range(count):
                        c0 = time.thread_time()
                        t0 = time.perf_counter()
                        q = solve(targets[k], seeds[k].copy(), timeout)
                        elapsed = time.perf_counter() - t0
                        cpu.append(time.thread_time() - c0)
                        good, bad_limits = (False, False) if q is None else \
                            check.valid(q, targets[k])
                        violations += bad_limits
                        times.append(elapsed)
                        ok.append(good and elapsed <= timeout)
                    row.update(time_stats(times, ok), n=count, limit_violations=violations)
                    row.update({f'cpu_{key}': value for key, value in time_stats(cpu, ok).items()
                                if key != 'success_pct'})
                    rows.append(row)
                    log(f'{robot.label:<16} {mode:<6} {timeout * 1e3:>4.0f} ms  {label:<32} '
                        f"{row['success_pct']:6.1f} %  mean {row['mean_ms']:7.3f} ms  "
                        f"median {row['median_ms']:7.3f} ms  "
                        f"median ok {row['median_success_ms']:7.3f} ms  violations {violations}")
    add_ratios(rows)
    return rows


def add_ratios(rows: List[Dict]) -> None:
    """Ratios of each pdls_ik row to the best peer of the same (robot, seeds, timeout)."""
    groups: Dict[tuple, List[Dict]] = {}
    for row in rows:
        if 'missing' not in row:
            groups.setdefault((row['robot'], row['seeds'], row['timeout_ms']), []).append(row)
    for group in groups.values():
        others = [r for r in group if not r['ours']]
        if not others:
            continue
        lm = [r for r in others if r['solver'] == 'rtb ik_LM']
        best_success = max(r['success_pct'] for r in others)
        best_mean = min(r['mean_ms'] for r in others)
        best_median = min(r['median_ms'] for r in others)
        for r in group:
            if r['ours']:
                r['best_peer_success_pct'] = best_success
                r['ratio_success'] = r['success_pct'] / best_success if best_success else None
                r['ratio_mean'] = r['mean_ms'] / best_mean
                r['ratio_median'] = r['median_ms'] / best_median
                if lm:
                    r['ratio_ik_lm'] = r['mean_ms'] / lm[0]['mean_ms']
                    r['cpu_ratio_ik_lm'] = r['cpu_mean_ms'] / lm[0]['cpu_mean_ms']


def markdown(rows: List[Dict]) -> str:
    """Return the results as a Markdown table (missing peers listed below it)."""
    lines = ['| robot | seeds | timeout | solver | N | success % | mean ms | median ms | p95 ms '
             '| median ok ms | limit viol. | success / best peer | mean / best peer '
             '| mean / ik_LM |',
             '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    missing = set()
    for r in rows:
        if 'missing' in r:
            missing.add((r['solver'], r['robot'], r['missing']))
            continue
        ratio_s = f"{r['ratio_success']:.3f}" if r.get('ratio_success') is not None else ''
        ratio_m = f"{r['ratio_mean']:.2f}" if 'ratio_mean' in r else ''
        ratio_lm = f"{r['ratio_ik_lm']:.2f}" if 'ratio_ik_lm' in r else ''
        lines.append(f"| {r['robot']} | {r['seeds']} | {r['timeout_ms']:.0f} ms | {r['solver']} "
                     f"| {r['n']} | {r['success_pct']:.1f} | {r['mean_ms']:.3f} | "
                     f"{r['median_ms']:.3f} | {r['p95_ms']:.3f} | {r['median_success_ms']:.3f} | "
                     f"{r['limit_violations']} | {ratio_s} | {ratio_m} | {ratio_lm} |")
    for solver, robot, why in sorted(missing):
        lines.append(f'\nMissing peer: {solver} on {robot}: {why}')
    return '\n'.join(lines)


def main(argv=None) -> int:
    def extra(parser):
        parser.add_argument('-n', type=int, help='targets per robot (default 1000, quick 30)')
        parser.add_argument('--robots', nargs='*', help='robot label prefixes, e.g. panda ur5')
        parser.add_argument('--solvers', nargs='*', help='solver labels (see peers.SOLVERS)')
        parser.add_argument('--erd', action='store_true',
                            help='also the arms of example-robot-data (common.ERD_ARMS)')
        parser.add_argument('--seeds', nargs='*', choices=('random', 'mid'),
                            default=['random', 'mid'], help='seed modes (default both)')
        parser.add_argument('--timeouts', nargs='*', type=float, default=[5.0, 50.0],
                            help='timeouts [ms] (default 5 50)')

    def go(args):
        n = args.n or (30 if args.quick else 1000)
        return run(n, tuple(t * 1e-3 for t in args.timeouts), tuple(args.seeds),
                   robot_names=args.robots, solver_labels=args.solvers, quick=args.quick,
                   erd=args.erd)
    return protocol_main(__doc__, 'N = 30, slow peers on fewer', go, markdown, argv, extra)


if __name__ == '__main__':
    sys.exit(main())
