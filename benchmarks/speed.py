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
Issue 17's speed figures in one run: one-shot against ik_LM on every arm, and the tracking cycle.

One-shot (:mod:`oneshot`): the bundled and shared Panda and UR5 and the arms of
example-robot-data (:data:`common.ERD_ARMS`), N random reachable goals (Pinocchio FK of random
in-limit configurations), random in-limit seeds, 5 ms, ``IKSolver.solve`` on both backends
(numba; NumPy, what a user without numba runs) and roboticstoolbox's ``ik_LM``, one solver after
the other on the same goals; per arm: success, mean, median of the successes, mean ÷ ik_LM,
limit violations, and the same times in CPU time of the thread (``time.thread_time``; on a
loaded machine the ratios to ik_LM of the same run and the CPU times are the figures to
trust). Tracking (:mod:`tracking`): the 1 kHz paths on the numba backend, wall and thread CPU
p50 / p99 (the 7-DOF Panda runs lock > pose > posture).
Writes ``results/speed.{json,md}``.

    python benchmarks/speed.py                 # N = 1000, 10 s tracking paths
    python benchmarks/speed.py -n 200 --quick  # N = 200, 2 s paths
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
import sys
from typing import Dict

import common  # noqa: F401,I100  (first: single-core BLAS before NumPy loads)
from common import machine, versions
import oneshot
import tracking

SOLVERS = ['pdls_ik IKSolver[numba]', 'pdls_ik IKSolver[numpy]', 'rtb ik_LM']


def markdown(doc: Dict) -> str:
    """Return the summary tables (one-shot per arm, tracking) in Markdown."""
    m, v = doc['machine'], doc['versions']
    lines = [f"Measured {m['date']} on {m['cpu']} ({m['cores']} cores, load average "
             f"{m['load_average']} before, {doc['load_after']} after), Python {v['python']}, "
             f"numpy {v['numpy']}, numba {v['numba']}, roboticstoolbox-python "
             f"{v['roboticstoolbox-python']}, pin {v['pin']}.", f"Command: `{doc['command']}`",
             '', '### One-shot: random goals, random seeds, 5 ms', '',
             '| robot | DOF | solver | N | success % | mean ms | median ok ms | limit viol. '
             '| mean / ik_LM | CPU mean ms | CPU median ok ms | CPU mean / ik_LM |',
             '|---|---|---|---|---|---|---|---|---|---|---|---|']
    for r in doc['oneshot']:
        if 'missing' in r:
            lines.append(f"| {r['robot']} | {r['dof']} | {r['solver']} | missing: "
                         f"{r['missing']} | | | | | | | | |")
            continue
        ratio = f"{r['ratio_ik_lm']:.2f}" if 'ratio_ik_lm' in r else ''
        cpu_ratio = f"{r['cpu_ratio_ik_lm']:.2f}" if 'cpu_ratio_ik_lm' in r else ''
        lines.append(f"| {r['robot']} | {r['dof']} | {r['solver']} | {r['n']} | "
                     f"{r['success_pct']:.1f} | {r['mean_ms']:.3f} | "
                     f"{r['median_success_ms']:.3f} | {r['limit_violations']} | {ratio} | "
                     f"{r['cpu_mean_ms']:.3f} | {r['cpu_median_success_ms']:.3f} | "
                     f'{cpu_ratio} |')
    lines += ['', '### Tracking at 1 kHz (numba backend)', '', tracking.markdown(doc['tracking'])]
    return '\n'.join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('-n', type=int, default=1000, help='goals per arm (default 1000)')
    parser.add_argument('--quick', action='store_true', help='2 s tracking paths')
    parser.add_argument('--out', default=str(Path(__file__).parent / 'results'),
                        help='folder of speed.json and speed.md')
    args = parser.parse_args(argv)
    doc = {'machine': machine(), 'versions': versions(),
           'command': ' '.join(['python', 'benchmarks/speed.py'] + sys.argv[1:])}
    doc['oneshot'] = oneshot.run(args.n, (0.005,), ('random',), solver_labels=SOLVERS,
                                 erd=True)
    doc['tracking'] = tracking.run(args.quick, backends=['auto'])
    doc['load_after'] = machine()['load_average']
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / 'speed.json').write_text(json.dumps(doc, indent=1, default=str))
    text = markdown(doc)
    (out / 'speed.md').write_text(text + '\n')
    print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
