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
``pdls-ik reach ROBOT --tip LINK``: a reachability map of the chain, on Dask.

Voxels over the chain's reach, each with --orientations goal orientations (uniform on SO(3))
solved by the batch solver; the reachability index of a voxel is the fraction solved
(:mod:`pdls_ik.ik.reachability`). Runs on a local Dask cluster (one worker per core, or
--workers), or on an existing one (--scheduler ADDRESS). Writes --out (.zarr: chunked, a
stopped run resumes; or .npz), OUT.png (the map in 3-D and its slice through the base's x-z
plane) and OUT_bag (a ROS 2 bag with a visualization_msgs/MarkerArray on /reachability for
rviz). With --self-collision (and --srdf, --mesh-path, --d-min, as for ik) a pose counts as
reached only by a configuration whose checked link pairs are --d-min apart. --config applies its
tip_link, base_link, position_tolerance, orientation_tolerance and random_seed (unless --seed);
a map solves the tip pose alone, so --tasks, a config's tasks_file and position_only are
refused. Exit status 0, or 2 on bad input.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
import time

import numpy as np
from pdls_ik import msgs
from pdls_ik.cli.bag import BagWriter
from pdls_ik.cli.common import add_robot_arguments, collision_options, resolve_tip
from pdls_ik.config import IKConfig, load_config
from pdls_ik.errors import InputError
from pdls_ik.ik.reachability import reachability_map, ReachMap
from pdls_ik.ik.task_config import self_collision_task
from pdls_ik.model import load_urdf
from pdls_ik.resources import urdf_path


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik reach`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'reach', help='reachability map of a chain (voxels x orientations), on Dask',
        description=__doc__.split('\n\n', 1)[1].replace('``', "'"))
    add_robot_arguments(parser)
    parser.add_argument('--voxel', type=float, default=0.05, help='voxel edge in m (default '
                                                                  '0.05)')
    parser.add_argument('--orientations', type=int, default=64,
                        help='orientations per voxel, uniform on SO(3) (default 64)')
    parser.add_argument('--out', default='pdls_ik_out/reach.zarr',
                        help='map file: .zarr (resumable) or .npz (default '
                             'pdls_ik_out/reach.zarr)')
    parser.add_argument('--scheduler', help='Dask scheduler address (default: a local '
                                            "cluster); 'synchronous': this process only")
    parser.add_argument('--workers', type=int, help='local cluster workers (default: one per '
                                                    'core)')
    parser.add_argument('--chunk', type=int, default=64, help='voxels per Dask task (default 64)')
    parser.add_argument('--seed', type=int, help='random seed (default: random_seed of the '
                                                 'config, 0)')
    parser.add_argument('--no-progress', action='store_true', help='no progress bar')
    return parser


def run(args: argparse.Namespace) -> int:
    """Compute, save and draw a reachability map; return 0 (2 on bad input)."""
    out = Path(args.out)
    if out.suffix not in ('.zarr', '.npz'):
        raise InputError(f"--out: '{out}' must end in .zarr or .npz")
    if args.workers is not None and args.workers < 1:
        raise InputError(f'--workers: {args.workers} must be >= 1')
    config = load_config(args.config) if args.config else IKConfig()
    if args.tasks or config.tasks_file:
        option = '--tasks' if args.tasks else "--config: parameter 'tasks_file'"
        raise InputError(f'{option}: a reachability map solves the tip pose alone (the batch '
                         'solver); closures and extra tasks are not supported')
    if config.position_only:
        raise InputError("--config: parameter 'position_only': a reachability map counts the "
                         'orientations reached at each voxel; it needs full poses')
    robot = load_urdf(urdf_path(args.urdf))
    tip = resolve_tip(args.urdf, robot, args.tip or config.tip_link)
    base = args.base or config.base_link or None
    options = {'position_tolerance': config.position_tolerance,
               'orientation_tolerance': config.orientation_tolerance}
    entry = collision_options(args)
    if entry is not None:
        task = self_collision_task(robot, entry)
        options.update(self_collision=task.model, d_min=task.d_min)
    out.parent.mkdir(parents=True, exist_ok=True)
    workers = args.workers or (1 if args.scheduler else os.cpu_count() or 1)
    print(f'pdls-ik reach: {robot.name}, {base or robot.base_link} -> {tip}, voxel '
          f'{args.voxel:g} m, {args.orientations} orientations, '
          f"{args.scheduler or f'local Dask cluster of {workers} workers'}"
          + (f", self-collision ({len(options['self_collision'].pairs)} link pairs at least "
             f"{options['d_min']:g} m apart)" if entry is not None else ''))
    t0 = time.perf_counter()
    result = reachability_map(robot, tip, base, voxel=args.voxel,
                              orientations=args.orientations, chunk=args.chunk,
                              scheduler=args.scheduler, workers=args.workers, out=out,
                              progress=not args.no_progress,
                              random_seed=config.random_seed if args.seed is None else args.seed,
                              **options)
    seconds = time.perf_counter() - t0
    solves = result.index.size * result.orientations.shape[0]
    reachable = result.index > 0
    print(f'voxels: {result.index.size} ({int(reachable.sum())} reachable, '
          f'{int((result.index == 1).sum())} in every orientation)')
    print(f'solves: {solves} in {seconds:.1f} s ({solves / max(seconds, 1e-9):.0f} per second '
          f'over {workers} workers)')
    print(f'mean reachability index of reachable voxels: '
          f'{result.index[reachable].mean() if reachable.any() else 0.0:.3f}')
    png = out.with_suffix('.png')
    plot_map(result, png, f'pdls_ik reach: {robot.name} {tip}')
    bag = write_marker_bag(result, out.with_name(out.stem + '_bag'))
    print(f'wrote {out}, {png} and {bag}')
    return 0


def plot_map(result: ReachMap, path: Path, title: str) -> None:
    """Draw the map: voxels in 3-D coloured by index, and the slice through the x-z plane."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    c, idx, v = result.centers, result.index, result.voxel
    fig = plt.figure(figsize=(12, 5.5))
    ax = fig.add_subplot(1, 2, 1, projection='3d')
    keep = idx > 0
    art = ax.scatter(c[keep, 0], c[keep, 1], c[keep, 2], c=idx[keep], cmap='viridis', vmin=0,
                     vmax=1, s=6, depthshade=False)
    ax.set(xlabel='x [m]', ylabel='y [m]', zlabel='z [m]',
           title=f'reachable voxels ({int(keep.sum())} of {idx.size}, {v:g} m)')
    ax2 = fig.add_subplot(1, 2, 2)
    plane = np.abs(c[:, 1]) < 0.5 * v
    xs, zs = np.unique(c[plane, 0]), np.unique(c[plane, 2])
    image = np.full((zs.size, xs.size), np.nan)
    image[np.searchsorted(zs, c[plane, 2]), np.searchsorted(xs, c[plane, 0])] = idx[plane]
    ax2.imshow(image, origin='lower', cmap='viridis', vmin=0, vmax=1,
               extent=(xs[0] - v / 2, xs[-1] + v / 2, zs[0] - v / 2, zs[-1] + v / 2))
    ax2.set(xlabel='x [m]', ylabel='z [m]', title=f'slice y = 0 in {result.base}')
    fig.colorbar(art, ax=[ax, ax2], label='reachability index (fraction of orientations)')
    fig.suptitle(title)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_marker_bag(result: ReachMap, path: Path) -> Path:
    """Write the map as a visualization_msgs/MarkerArray on /reachability in a ROS 2 bag."""
    types = msgs.rosbags_types()
    with BagWriter(path) as bag:
        stamp = time.time_ns()
        bag.write('/reachability', msgs.reach_marker_array(
            types, result.centers, result.index, result.voxel, result.base,
            msgs.time_msg_from_ns(types, stamp)), stamp)
    return path
