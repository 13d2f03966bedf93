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
Time per PDLS iteration versus the number of variables n and of priority levels p.

Each level has 6 rows (a frame task); limits are finite but inactive, no posture: the case the
IK layer meets every iteration. Prints one table per entry point (``step``: the public call with
its input validation; ``core``: the validated hot path that ``solve`` uses) and the growth
exponent a of time ~ c·n^a fitted by least squares, over all n and over n >= 50 (where the
O(n²h) projector update and the SVD dominate the Python overhead).

    python benchmarks/bench_pdls.py            # n = 7 … 200, p = 1 … 5
    python benchmarks/bench_pdls.py --quick    # a short run
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from pdls_ik.pdls import PDLSOptions, step  # noqa: E402
from pdls_ik.pdls.levels import PreparedLevels  # noqa: E402
from pdls_ik.pdls.step import compute_step  # noqa: E402

ROWS = 6


def make_problem(n: int, p: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    levels = [(0.01 * rng.standard_normal(ROWS), rng.standard_normal((ROWS, n)))
              for _ in range(p)]
    theta = rng.uniform(-0.5, 0.5, n)
    return levels, theta, np.full(n, -3.0), np.full(n, 3.0)


def time_call(fn, min_time: float) -> float:
    """
    Seconds per call.

    best of 7 batches, each at least ``min_time`` long (the machine may be shared: the best batch
    is the least disturbed one).
    """
    fn()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time:
            break
        reps *= 4
    best = elapsed / reps
    for _ in range(6):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def fit_exponent(ns, times) -> float:
    return float(np.polyfit(np.log(ns), np.log(times), 1)[0])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='fewer sizes, shorter timings')
    args = parser.parse_args(argv)
    ns = [7, 25, 100] if args.quick else [7, 12, 25, 50, 100, 200]
    ps = [1, 3] if args.quick else [1, 2, 3, 4, 5]
    min_time = 0.01 if args.quick else 0.05
    options = PDLSOptions()
    results = {'step': {}, 'core': {}}
    for p in ps:
        for n in ns:
            levels, theta, lower, upper = make_problem(n, p)
            prepared = PreparedLevels(levels, n)
            results['step'][p, n] = time_call(
                lambda: step(levels, theta, lower, upper, options=options), min_time)
            results['core'][p, n] = time_call(
                lambda: compute_step(prepared, theta, lower, upper, None, options, None),
                min_time)
    print(f'PDLS time per iteration (µs), {ROWS} rows per level, numpy {np.__version__}')
    for name, table in results.items():
        print(f'\n[{name}]')
        print('p \\ n ' + ''.join(f'{n:>9d}' for n in ns) + '   exponent(all)  exponent(n>=50)')
        for p in ps:
            row = [table[p, n] for n in ns]
            big = [n for n in ns if n >= 50]
            tail = (f'{fit_exponent(big, [table[p, n] for n in big]):15.2f}'
                    if len(big) >= 2 else f"{'-':>15}")
            print(f'{p:<6d}' + ''.join(f'{t * 1e6:9.1f}' for t in row)
                  + f'{fit_exponent(ns, row):15.2f}' + tail)
    return 0


if __name__ == '__main__':
    sys.exit(main())
