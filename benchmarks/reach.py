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
Reachability maps: solves per second per core, scaling over Dask workers, and the full map's cost.

Run: ``python benchmarks/reach.py [--voxel 0.05] [--orientations 64] [--sample 24]``.

1. Chunk timings (in this process, one core): ``--sample`` chunks of 64 voxels drawn evenly
   from the bundled Panda's full grid at ``--voxel`` × ``--orientations``, each solved as a Dask
   worker solves it (:func:`pdls_ik.ik.reachability.solve_chunk`); solves per second per core,
   and the full map's time extrapolated from the mean chunk time.
2. Scaling: a coarse map (0.2 m, 16 orientations) with 1 and 2 local Dask workers (wall time).
3. On paper: the full map's wall time on 16 and 64 workers, by scheduling the sampled chunk
   times (resampled to the full chunk count, longest first) on that many workers.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from pdls_ik import load_urdf
from pdls_ik.ik import reachability as reach
from pdls_ik.resources import bundled_urdf


def _makespan(times: np.ndarray, workers: int) -> float:
    """Wall time of running ``times`` on ``workers`` (longest first, each to the least loaded)."""
    load = np.zeros(workers)
    for t in np.sort(times)[::-1]:
        load[np.argmin(load)] += t
    return float(load.max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--voxel', type=float, default=0.05)
    parser.add_argument('--orientations', type=int, default=64)
    parser.add_argument('--sample', type=int, default=24, help='chunks timed (default 24)')
    args = parser.parse_args()
    robot = load_urdf(bundled_urdf('panda'))
    tip, base = 'panda_link8', 'panda_link0'
    centers = reach.voxel_centers(robot.reach(tip, base), args.voxel)
    quats = reach.sample_orientations(args.orientations)
    chunk = 64
    starts = np.arange(0, len(centers), chunk)
    options = tuple(sorted(reach.SOLVE_OPTIONS.items()))
    reach.solve_chunk(robot, tip, base, centers[:1], quats[:1], options, 0)    # load kernels
    picked = starts[np.linspace(0, len(starts) - 1, args.sample).round().astype(int)]
    times, reachable = [], 0
    for k, lo in enumerate(picked):
        t0 = time.perf_counter()
        index, _ = reach.solve_chunk(robot, tip, base, centers[lo:lo + chunk], quats, options, k)
        times.append(time.perf_counter() - t0)
        reachable += int((index > 0).sum())
    times = np.array(times)
    solves = len(picked) * chunk * args.orientations
    rate = solves / times.sum()
    full = len(centers) * args.orientations
    print(f'Panda {args.voxel:g} m x {args.orientations} orientations: {len(centers)} voxels, '
          f'{full} solves in {len(starts)} chunks')
    print(f'chunk timings ({len(picked)} chunks, one core): mean {times.mean():.2f} s, '
          f'min {times.min():.2f} s, max {times.max():.2f} s; {rate:.0f} solves per second '
          f'per core')
    print(f'full map, extrapolated: {full / rate / 3600:.2f} core-hours')
    resampled = np.resize(times, len(starts))
    for workers in (1, 2, 16, 64):
        print(f'  on {workers:2d} workers (scheduled on paper): '
              f'{_makespan(resampled, workers) / 60:.1f} min')
    for workers in (1, 2):
        t0 = time.perf_counter()
        reach.reachability_map(robot, tip, base, voxel=0.2, orientations=16, workers=workers,
                               progress=False)
        print(f'coarse map (0.2 m, 16 orientations) on {workers} local Dask worker(s): '
              f'{time.perf_counter() - t0:.1f} s wall')


if __name__ == '__main__':
    main()
