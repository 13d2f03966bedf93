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
Scaling protocol: serial chains of 6 … 200 revolute joints and 1 … 5 priority levels.

Each chain is generated as a URDF string (joint axes cycling z, y, x; total length 1 m). Level 1
is the tip pose (6 rows); level k > 1 is the position of the link at fraction (p − k + 1) / p of
the chain (3 rows). Targets come from the FK of one random in-limit configuration, so every level
is reachable at once. Measured with :func:`pdls_ik.pdls.solve` on a
:class:`pdls_ik.ik.task_levels.LevelStack` (the IK layer's evaluation + PDLS step):

* time per iteration: a 10-iteration solve toward targets of another configuration, / 10;
* time per solve: from the middle of the limits until converged (residual 1e-10 per level,
  at most 300 iterations), with the iteration count and status;
* peak memory of one solve (tracemalloc, Python allocations incl. NumPy buffers);
* the growth exponent a of time ∝ n^a per p, fitted by least squares on log–log axes.

    python benchmarks/scaling.py [--quick]
"""
from __future__ import annotations

import sys
import time
import tracemalloc
from typing import Dict

import common  # noqa: F401,I100  (first: single-core BLAS before NumPy loads)
from common import protocol_main
import numpy as np
from pdls_ik import pdls
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.model import load_urdf
from pdls_ik.tasks import FrameTask

AXES = ('0 0 1', '0 1 0', '1 0 0')


def chain_urdf(n: int) -> str:
    """URDF string of a serial chain of n revolute joints (limits ±2.8 rad), 1 m long."""
    length = 1.0 / n
    parts = ['<robot name="chain%d">' % n, '<link name="l0"/>']
    for i in range(n):
        parts.append(
            f'<link name="l{i + 1}"/><joint name="j{i}" type="revolute"><parent link="l{i}"/>'
            f'<child link="l{i + 1}"/><origin xyz="0 0 {length if i else 0.0}"/>'
            f'<axis xyz="{AXES[i % 3]}"/><limit lower="-2.8" upper="2.8" effort="1" '
            f'velocity="1"/></joint>')
    parts.append('</robot>')
    return ''.join(parts)


def _stack(robot, p: int, q_goal):
    n = robot.n
    tasks = []
    for k in range(p):
        link = f'l{n if k == 0 else max(1, round(n * (p - k) / p))}'
        T = robot.forward_kinematics(q_goal, link)
        mask = (1, 1, 1) if k == 0 else (0, 0, 0)
        tasks.append(FrameTask(robot, link, target=T, orientation_mask=mask, priority=k,
                               name=f'L{k}:{link}'))
    return LevelStack(tasks, n)


def best_time(fn, repeat: int) -> float:
    fn()
    return min(_timed(fn) for _ in range(repeat))


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(ns=None, ps=None, repeat: int = 3, quick: bool = False, log=print) -> Dict:
    """Rows per (n, p) and fitted exponents; quick: n = 6, 25, 100, p = 1, 3, best of 2."""
    if quick:
        ns, ps, repeat = ns or (6, 25, 100), ps or (1, 3), 2
    ns, ps = ns or (6, 12, 25, 50, 100, 200), ps or (1, 2, 3, 4, 5)
    rows = []
    for n in ns:
        robot = load_urdf(chain_urdf(n))
        rng = np.random.default_rng(n)
        q_goal = rng.uniform(-1.0, 1.0, n)
        q_far = rng.uniform(-1.0, 1.0, n)
        q0 = np.zeros(n)
        for p in ps:
            stack = _stack(robot, p, q_goal)
            far = _stack(robot, p, q_far)
            it_opts = pdls.PDLSOptions(max_iterations=10, residual_tol=0.0)
            per_it = best_time(lambda: pdls.solve(far, q0, robot.lower, robot.upper, it_opts),
                               repeat) / 10
            opts = pdls.PDLSOptions(max_iterations=300)
            result = pdls.solve(stack, q0, robot.lower, robot.upper, opts)
            per_solve = best_time(lambda: pdls.solve(stack, q0, robot.lower, robot.upper, opts),
                                  repeat)
            tracemalloc.start()
            pdls.solve(stack, q0, robot.lower, robot.upper, opts)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            row = {'n': n, 'p': p, 'iteration_ms': per_it * 1e3, 'solve_ms': per_solve * 1e3,
                   'iterations': result.iterations, 'status': result.status,
                   'peak_memory_kib': peak / 1024}
            rows.append(row)
            log(f"n {n:>4} p {p}  {row['iteration_ms']:8.3f} ms/iteration  "
                f"{row['solve_ms']:9.2f} ms/solve ({result.iterations} it, {result.status})  "
                f"peak {row['peak_memory_kib']:8.1f} KiB")
    exponents = {}
    for p in ps:
        sub = [r for r in rows if r['p'] == p]
        if len(sub) >= 2:
            x = np.log([r['n'] for r in sub])
            exponents[p] = {
                'iteration': float(np.polyfit(x, np.log([r['iteration_ms'] for r in sub]), 1)[0]),
                'solve': float(np.polyfit(x, np.log([r['solve_ms'] for r in sub]), 1)[0])}
    return {'rows': rows, 'exponents': exponents}


def markdown(result: Dict) -> str:
    rows = result['rows']
    ns = sorted({r['n'] for r in rows})
    ps = sorted({r['p'] for r in rows})
    cell = {(r['n'], r['p']): r for r in rows}
    out = []
    for key, title, fmt in (('iteration_ms', 'ms per iteration', '{:.3f}'),
                            ('solve_ms', 'ms per solve (iterations)', '{:.2f}'),
                            ('peak_memory_kib', 'peak memory of a solve, KiB', '{:.0f}')):
        out.append(f'\n{title}\n')
        out.append('| p \\ n | ' + ' | '.join(str(n) for n in ns) + ' | exponent |')
        out.append('|---' * (len(ns) + 2) + '|')
        for p in ps:
            cells = []
            for n in ns:
                r = cell[n, p]
                text = fmt.format(r[key])
                if key == 'solve_ms':
                    note = '' if r['status'] == 'converged' else ' ' + r['status']
                    text += f" ({r['iterations']}{note})"
                cells.append(text)
            exp = result['exponents'].get(p, {})
            e = exp.get('iteration' if key == 'iteration_ms' else 'solve') \
                if key != 'peak_memory_kib' else None
            out.append(f'| {p} | ' + ' | '.join(cells) + f" | {'' if e is None else f'{e:.2f}'} |")
    return '\n'.join(out)


def main(argv=None) -> int:
    return protocol_main(__doc__, 'n = 6, 25, 100 and p = 1, 3', lambda a: run(quick=a.quick),
                         markdown, argv)


if __name__ == '__main__':
    sys.exit(main())
