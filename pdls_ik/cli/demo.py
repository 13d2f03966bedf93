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
``pdls-ik demo``: a robot tracks a figure-eight goal path; summary, ROS 2 bag and plot.

With no argument the bundled Panda tracks the path of :mod:`pdls_ik.cli.demo_path` at 100 Hz for
10 s (two loops), passing within a few degrees of its wrist singularity and of a joint limit.
Each cycle is one :meth:`IKSolver.track` call: at most ``tracking_max_iterations`` iterations
(the primary bound), ``tracking_timeout`` as a safety net. Writes the ROS 2 bag folder
``pdls_ik_out/demo_bag/`` (``demo_bag.mcap`` and ``metadata.yaml``: /goal_pose, /joint_states,
/joint_trajectory, /diagnostics), ``pdls_ik_out/demo.png`` (:mod:`pdls_ik.cli.plot`) and the
printed summary as ``summary.txt`` and ``summary.json``. Exit 0 when every cycle kept
its joint limits and velocity bound, 1 otherwise, 2 on bad input.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from pdls_ik.cli.common import (add_robot_arguments, collision_options, make_solver,
                                output_folder, warm_up, write_summary)
from pdls_ik.cli.demo_path import default_path, through_body, trackable_path
from pdls_ik.cli.plot import plot_tracking, tracking_plot_data
from pdls_ik.cli.tracking import (exit_status, OFFLINE_TRACKING_TIMEOUT, print_summary,
                                  run_tracking, START_SOLVE_TIMEOUT, summarize, wall_start_ns,
                                  write_bag)
from pdls_ik.errors import InputError


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik demo`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'demo', help='track a figure-eight goal path; write a bag, a plot and a summary',
        description='Tracking demo: the robot (default: the bundled Panda) follows a '
                    'figure-eight with changing orientation; writes OUT/demo_bag (a ROS 2 '
                    'bag), OUT/demo.png, OUT/summary.txt and OUT/summary.json. Exit status: '
                    '0 when every cycle reached its goal '
                    'within tolerance and every joint stayed within its limits and velocity '
                    'bound, 1 otherwise, 2 on bad input.')
    parser.add_argument('--urdf', default='panda', help='URDF file or bundled robot name '
                                                        '(default: panda)')
    add_robot_arguments(parser, urdf_positional=False)
    parser.add_argument('--out', default='pdls_ik_out', help='output folder (default: '
                                                             'pdls_ik_out)')
    parser.add_argument('--duration', type=float, default=10.0, help='seconds (default 10)')
    parser.add_argument('--rate', type=float, default=100.0, help='tracking rate in Hz '
                                                                  '(default 100)')
    parser.add_argument('--no-progress', action='store_true', help='no progress bar')
    parser.add_argument('--through-body', action='store_true',
                        help="move the path's centre onto the base's axis so that the goal "
                             "sweeps through the robot's own links (position only; with "
                             '--self-collision the hand slides along the margin); the path is '
                             'not checked trackable')
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the tracking demo; return 0 ok, 1 a cycle lagged or a limit was violated."""
    if not 0.0 < args.duration <= 3600.0:
        raise InputError(f'--duration: {args.duration} must be in (0, 3600] seconds')
    if not 0.0 < args.rate <= 10000.0:
        raise InputError(f'--rate: {args.rate} must be in (0, 10000] Hz')
    out = output_folder(args.out)
    solver = make_solver(args.urdf, args.tip, args.base, args.config, args.tasks,
                         collision_options(args),
                         tracking_rate=args.rate, tracking_timeout=OFFLINE_TRACKING_TIMEOUT)
    dof = solver.chain_variables.size
    if dof < 6 and not solver.config.position_only:
        print(f'note: {dof} joints from {solver.base_link} to {solver.tip_link} cannot follow '
              f'a full pose path; tracking the position only (position_only: true)')
        solver = make_solver(args.urdf, args.tip, args.base, args.config, args.tasks,
                             collision_options(args),
                             tracking_rate=args.rate, tracking_timeout=OFFLINE_TRACKING_TIMEOUT,
                             position_only=True)
    if args.through_body and not solver.config.position_only:
        print('note: --through-body tracks the position only (position_only: true)')
        solver = make_solver(args.urdf, args.tip, args.base, args.config, args.tasks,
                             collision_options(args),
                             tracking_rate=args.rate, tracking_timeout=OFFLINE_TRACKING_TIMEOUT,
                             position_only=True)
    warm_up(solver)
    robot_name = Path(str(args.urdf)).stem if not Path(str(args.urdf)).is_file() else None
    if args.through_body:
        path, home = default_path(solver.linkage, solver.tip_link, solver.base_link,
                                  robot_name=robot_name,
                                  position_only=bool(solver.config.position_only))
        path = through_body(path)
        # start as close to the path's first goal as the solver allows (with the level: the
        # closest collision-free configuration)
        home = solver.solve(path.pose(0.0), seed=home, timeout=START_SOLVE_TIMEOUT).q
        note = ("demo path: pushed through the robot's body (centre "
                f"{', '.join(f'{v:.3f}' for v in path.center[:3, 3])} m)")
    else:
        path, home, note = trackable_path(solver, args.rate, args.duration,
                                          robot_name=robot_name)
    print(note)
    print(f'pdls-ik demo: {solver.linkage.name}, {solver.base_link} -> {solver.tip_link}, '
          f'{args.rate:g} Hz for {args.duration:g} s')
    start_ns = wall_start_ns()
    log = run_tracking(solver, path.pose, home, args.rate, args.duration,
                       progress=not args.no_progress)
    summary = summarize(log, solver)
    print_summary(summary)
    written = write_summary(summary, print_summary, out, 'summary')
    counts = write_bag(log, solver, out / 'demo_bag', start_ns)
    plot_tracking(tracking_plot_data(log, solver), out / 'demo.png',
                  title=f'pdls_ik demo: {solver.linkage.name}, {solver.base_link} -> '
                        f'{solver.tip_link}, {args.rate:g} Hz', summary=summary)
    print(f"wrote {out / 'demo_bag' / 'demo_bag.mcap'} "
          f"({', '.join(f'{k} {v}' for k, v in counts.items())})")
    print(f"wrote {out / 'demo.png'}, {' and '.join(str(w) for w in written)}")
    return exit_status(log, summary)
