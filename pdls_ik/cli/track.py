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
``pdls-ik track URDF --tip LINK --goals FILE``: the tracking demo on a user's goal stream.

FILE is CSV (header ``t,x,y,z,qx,qy,qz,qw``; ``#`` comments allowed) or JSON (a list, or
``{"goals": [...]}``, of ``{"t": s, "position": [x, y, z], "orientation_xyzw": [...]}``) of
timed poses in the base frame. A bad row (missing or non-numeric value, NaN/inf, zero
quaternion, time going backwards) is skipped and reported naming its line (CSV) or goal (JSON)
and the column; the run goes on with the other goals. The robot tracks the latest goal at --rate
from the IK solution of the first goal (or --seed) until the last goal time plus --settle; writes
OUT/track_bag (a ROS 2 bag), OUT/track.png and the summary as OUT/track_summary.txt and
OUT/track_summary.json. Exit status: 0 when the robot reached every goal
within tolerance before the next one took over (the last one by the end of --settle) and every
joint stayed within its limits and velocity bound, 1 otherwise, 2 on bad input.
"""
from __future__ import annotations

import argparse
import bisect
import csv
import json
import math
from pathlib import Path
import sys
from typing import List, Tuple

import numpy as np
from pdls_ik.cli.common import (add_robot_arguments, collision_options, make_solver,
                                output_folder, warm_up, write_summary)
from pdls_ik.cli.plot import plot_tracking, tracking_plot_data
from pdls_ik.cli.tracking import (exit_status, OFFLINE_TRACKING_TIMEOUT, print_summary,
                                  run_tracking, START_SOLVE_TIMEOUT, summarize, wall_start_ns,
                                  write_bag)
from pdls_ik.errors import InputError
from pdls_ik.lie.se3 import parse_pose

COLUMNS = ('t', 'x', 'y', 'z', 'qx', 'qy', 'qz', 'qw')

Goal = Tuple[float, np.ndarray, np.ndarray]


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik track`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'track', help='track a file of timed goal poses; write a bag, a plot and a summary',
        description=__doc__.split('\n\n', 1)[1].replace('``', "'"))  # RST → plain text
    add_robot_arguments(parser)
    parser.add_argument('--goals', required=True, metavar='FILE',
                        help='CSV or JSON file of timed poses')
    parser.add_argument('--rate', type=float, default=100.0,
                        help='tracking rate in Hz (default 100)')
    parser.add_argument('--settle', type=float, default=1.0,
                        help='seconds tracked after the last goal (default 1)')
    parser.add_argument('--seed', nargs='+', type=float, metavar='Q',
                        help='start joint values (default: the IK solution of the first goal)')
    parser.add_argument('--out', default='pdls_ik_out',
                        help='output folder (default pdls_ik_out)')
    parser.add_argument('--no-progress', action='store_true', help='no progress bar')
    return parser


def _number(value, row: str, column: str) -> float:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(f'{row}, column {column}: missing value')
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f'{row}, column {column}: {value!r} is not a number') from None
    if not math.isfinite(x):
        raise InputError(f'{row}, column {column}: {value!r} is not finite')
    return x


def _goal(row: str, values: dict) -> Goal:
    nums = {c: _number(values.get(c), row, c) for c in COLUMNS}
    p = np.array([nums[c] for c in COLUMNS[1:4]])
    q = np.array([nums[c] for c in COLUMNS[4:]])
    try:
        parse_pose((p, q))
    except InputError as exc:
        columns = 'x..z' if 'position' in str(exc) else 'qx..qw'
        raise InputError(f'{row}, column {columns}: {exc}') from None
    return nums['t'], p, q


def read_goals(path: Path) -> Tuple[List[Goal], List[str]]:
    """
    Return the goals sorted by time and the report of the skipped rows.

    A report reads "line N, column C: why" for CSV (N the line of the file) and "goal N, column
    C: why" for JSON (N the goal's place in the list).

    :raises InputError: the file is neither CSV with the expected header nor JSON of goals.
    """
    text = path.read_text()
    rows: List[Tuple[str, dict]] = []
    if path.suffix.lower() == '.json' or text.lstrip().startswith(('[', '{')):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f'{path}: invalid JSON: {exc}') from None
        items = doc.get('goals') if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            raise InputError(f'{path}: expected a list of goals or {{"goals": [...]}}')
        for i, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                rows.append((f'goal {i}', {}))
                continue
            pos = item.get('position') or [None] * 3
            quat = item.get('orientation_xyzw') or [None] * 4
            flat = dict(zip(COLUMNS[1:4], list(pos) + [None] * 3))
            flat.update(zip(COLUMNS[4:], list(quat) + [None] * 4))
            flat['t'] = item.get('t')
            rows.append((f'goal {i}', flat))
    else:
        numbered = [(k, ln) for k, ln in enumerate(text.splitlines(), start=1)
                    if ln.strip() and not ln.lstrip().startswith('#')]
        reader = csv.DictReader([ln for _, ln in numbered])
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise InputError(f"{path}: CSV header lacks column(s) {', '.join(missing)} "
                             f"(expected {','.join(COLUMNS)})")
        for (k, _), rec in zip(numbered[1:], reader):
            rows.append((f'line {k}', {c.strip(): v for c, v in rec.items() if c is not None}))
    goals: List[Goal] = []
    skipped: List[str] = []
    for where, values in rows:
        try:
            goal = _goal(where, values)
            if goals and goal[0] < goals[-1][0]:
                raise InputError(f'{where}, column t: time {goal[0]} goes backwards '
                                 f'(previous {goals[-1][0]})')
            goals.append(goal)
        except InputError as exc:
            skipped.append(str(exc))
    return goals, skipped


def run(args: argparse.Namespace) -> int:
    """Track a goal file; return 0 ok, 1 a goal was missed or a limit was violated."""
    if not 0.0 < args.rate <= 10000.0:
        raise InputError(f'--rate: {args.rate} must be in (0, 10000] Hz')
    if not 0.0 <= args.settle <= 3600.0:
        raise InputError(f'--settle: {args.settle} must be in [0, 3600] seconds')
    out = output_folder(args.out)
    solver = make_solver(args.urdf, args.tip, args.base, args.config, args.tasks,
                         collision_options(args),
                         tracking_rate=args.rate, tracking_timeout=OFFLINE_TRACKING_TIMEOUT)
    try:
        goals, skipped = read_goals(Path(args.goals))
    except OSError as exc:
        raise InputError(f"--goals: cannot read '{args.goals}': {exc.strerror or exc}") from None
    for line in skipped:
        print(f'pdls-ik track: skipped goal: {line}', file=sys.stderr)
    if not goals:
        raise InputError(f'{args.goals}: no valid goal')
    times = [g[0] for g in goals]

    def goal_at(t: float):
        k = max(bisect.bisect_right(times, t) - 1, 0)
        return goals[k][1], goals[k][2]

    warm_up(solver)
    q0 = solver.solve((goals[0][1], goals[0][2]), timeout=START_SOLVE_TIMEOUT).q \
        if args.seed is None else np.asarray(args.seed, dtype=float)
    duration = max(times[-1], 0.0) + args.settle
    print(f'pdls-ik track: {solver.linkage.name}, {solver.base_link} -> {solver.tip_link}, '
          f'{args.rate:g} Hz for {duration:g} s')
    start_ns = wall_start_ns()
    log = run_tracking(solver, goal_at, solver.linkage.check_q(q0), args.rate, duration,
                       progress=not args.no_progress)
    summary = summarize(log, solver)
    print(f'goals: {len(goals)} used, {len(skipped)} skipped')
    print_summary(summary)
    written = write_summary(summary, print_summary, out, 'track_summary')
    write_bag(log, solver, out / 'track_bag', start_ns)
    plot_tracking(tracking_plot_data(log, solver), out / 'track.png',
                  title=f'pdls_ik track: {solver.linkage.name}, {solver.base_link} -> '
                        f'{solver.tip_link}, {args.rate:g} Hz', summary=summary)
    print(f"wrote {out / 'track_bag' / 'track_bag.mcap'}, {out / 'track.png'}, "
          f"{' and '.join(str(w) for w in written)}")
    return exit_status(log, summary, times)
