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

Run: ``python benchmarks/reach.py [--voxel 0.05] [--orientations 64] [--sample 24]``
``[--collision-voxel 0.1] [--collision-orientations 16] [--out results/reach.md]``.

1. Chunk timings (in this process, one core): ``--sample`` chunks of 64 voxels drawn evenly
   from the bundled Panda's full grid at ``--voxel`` × ``--orientations``, each solved as a Dask
   worker solves it (:func:`pdls_ik.ik.reachability.solve_chunk`); solves per second per core,
   and the full map's time extrapolated from the mean chunk time.
2. Scaling: a coarse map (0.2 m, 16 orientations) with 1 and 2 local Dask workers (wall time).
3. On paper: the full map's wall time on 16 and 64 workers, by scheduling the sampled chunk
   times (resampled to the full chunk count, longest first) on that many workers.
4. Self-collision: the whole map at ``--collision-voxel`` × ``--collision-orientations`` in this
   process (one core), without and with the bundled Panda's capsule model (pairs 0.01 m apart,
   as ``pdls-ik reach --self-collision``): solves per second, reachable voxels, voxels reached
   in every orientation, the mean index, and the voxels whose index changed. Printed, and
   written as Markdown to ``--out`` (default ``results/reach.md``) when given.
"""
from __future__ import annotations

import argparse
from pathlib import Path
import platform
import time

import numpy as np
from pdls_ik import load_urdf
from pdls_ik.ik import reachability as reach
from pdls_ik.model.collision import collision_model
from pdls_ik.resources import bundled_urdf


def _makespan(times: np.ndarray, workers: int) -> float:
    """Wall time of running ``times`` on ``workers`` (longest first, each to the least loaded)."""
    load = np.zeros(workers)
    for t in np.sort(times)[::-1]:
        load[np.argmin(load)] += t
    return float(load.max())


def self_collision_rows(robot, tip: str, base: str, voxel: float, orientations: int) -> list:
    """
    Lines of part 4: the whole map without and with self-collision, and what changed.

    Both maps solve the same batch (same seeds); the self-collision map then solves its colliding
    successes again with the level, or drops them.
    """
    maps, rows = {}, []
    model = collision_model(robot)
    for label, options in (('without', {}), ('with', {'self_collision': model, 'd_min': 0.01})):
        t0 = time.perf_counter()
        maps[label] = reach.reachability_map(robot, tip, base, voxel=voxel,
                                             orientations=orientations,
                                             scheduler='synchronous', progress=False, **options)
        seconds = time.perf_counter() - t0
        index = maps[label].index
        solves = index.size * orientations
        reachable = index > 0
        rows.append(f'| {label} | {solves} | {seconds:.1f} | {solves / seconds:.0f} | '
                    f'{int(reachable.sum())} | {int((index == 1).sum())} | '
                    f'{index[reachable].mean():.3f} |')
    before, after = maps['without'].index, maps['with'].index
    changed = before != after
    lost = (before > 0) & (after == 0)
    return rows, (f'{int(changed.sum())} of {before.size} voxels changed index '
                  f'({100 * changed.sum() / before.size:.1f} %; '
                  f'{100 * changed.sum() / max(int((before > 0).sum()), 1):.1f} % of the '
                  f'reachable ones); {int(lost.sum())} reachable only through the body')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--voxel', type=float, default=0.05)
    parser.add_argument('--orientations', type=int, default=64)
    parser.add_argument('--sample', type=int, default=24, help='chunks timed (default 24)')
    parser.add_argument('--collision-voxel', type=float, default=0.1,
                        help='voxel of the self-collision comparison [m] (default 0.1)')
    parser.add_argument('--collision-orientations', type=int, default=16,
                        help='orientations of the self-collision comparison (default 16)')
    parser.add_argument('--out', help='write part 4 as Markdown there (e.g. '
                                      'benchmarks/results/reach.md)')
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
    rows, changed = self_collision_rows(robot, tip, base, args.collision_voxel,
                                        args.collision_orientations)
    text = '\n'.join([
        f'# Reachability map of the bundled Panda ({tip}), {args.collision_voxel:g} m x '
        f'{args.collision_orientations} orientations, with and without self-collision', '',
        f'`python benchmarks/reach.py --collision-voxel {args.collision_voxel:g} '
        f'--collision-orientations {args.collision_orientations}`; one core, in this process '
        f"(scheduler 'synchronous'); {platform.processor() or platform.machine()}, "
        f"{time.strftime('%Y-%m-%d')}. Self-collision: the bundled capsule model, every checked "
        'pair at least 0.01 m apart (`pdls-ik reach --self-collision`).', '',
        '| self-collision | solves | seconds | solves per second | reachable voxels | '
        'in every orientation | mean index (reachable) |',
        '|---|---|---|---|---|---|---|', *rows, '', changed, ''])
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == '__main__':
    main()
