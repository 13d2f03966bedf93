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
``pdls-ik ik URDF --tip LINK --pose x y z qx qy qz qw``: one-shot inverse kinematics.

Prints q by joint name and the errors (or JSON with ``--json``). Exit status 0 when a solution
was found, 1 when not (the best configuration is still printed), 2 on bad input.
"""
from __future__ import annotations

import argparse
import json

import numpy as np
from pdls_ik.cli.common import (add_robot_arguments, collision_options, make_solver,
                                warm_up)
from pdls_ik.errors import InputError
from pdls_ik.lie.se3 import parse_pose
from pdls_ik.model.joint_vector import check_joint_vector


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik ik`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'ik', help='one-shot inverse kinematics of a pose',
        description='Joint values that put --tip at --pose (in the --base frame). '
                    'Exit status: 0 solved, 1 no solution, 2 bad input.')
    add_robot_arguments(parser)
    parser.add_argument('--pose', nargs=7, type=float, required=True,
                        metavar=('X', 'Y', 'Z', 'QX', 'QY', 'QZ', 'QW'),
                        help='goal position (m) and quaternion (x y z w)')
    parser.add_argument('--seed', nargs='+', type=float, metavar='Q',
                        help='start joint values (default: middle of the limits)')
    parser.add_argument('--position-only', action='store_true', default=None,
                        help='ignore the goal orientation')
    parser.add_argument('--timeout', type=float, help='time budget in seconds (default 0.005)')
    parser.add_argument('--json', action='store_true', help='print JSON instead of text')
    return parser


def result_dict(res) -> dict:
    """Return the fields of an IKResult as JSON-ready values."""
    return {'success': res.success, 'status': res.status,
            'q': dict(zip(res.joint_names, res.q.tolist())),
            'position_error': res.position_error, 'orientation_error': res.orientation_error,
            'iterations': res.iterations, 'restarts': res.restarts,
            'solve_time': res.solve_time, 'notes': res.notes,
            'levels': [{'name': n, 'residual': r} for n, r in
                       zip(res.level_names, res.residual_norms)],
            'task_errors': dict(res.task_errors)}


def run(args: argparse.Namespace) -> int:
    """Solve one goal and print q by joint name; return 0 solved, 1 no solution."""
    solver = make_solver(args.urdf, args.tip, args.base, args.config, args.tasks,
                         collision_options(args),
                         position_only=args.position_only)
    if args.timeout is not None and not args.timeout > 0:
        raise InputError(f'--timeout: {args.timeout} must be > 0 seconds')
    pose = np.array(args.pose)
    parse_pose((pose[:3], pose[3:]))            # a bad goal is refused before any kernel work
    if args.seed is not None:
        check_joint_vector(args.seed, solver.joint_names, 'seed')
    warm_up(solver)
    res = solver.solve((pose[:3], pose[3:]), seed=args.seed, timeout=args.timeout)
    if args.json:
        print(json.dumps(result_dict(res), indent=2))
    else:
        print(f"{'solution' if res.success else 'NO SOLUTION (best found)'}: {res.status}, "
              f'{res.iterations} iterations, {res.restarts} restarts, '
              f'{1e3 * res.solve_time:.2f} ms')
        width = max(len(n) for n in res.joint_names)
        for name, value in zip(res.joint_names, res.q):
            print(f'  {name:<{width}}  {value: .6f}')
        print(f'position error:    {res.position_error:.3g} m')
        print(f'orientation error: {res.orientation_error:.3g} rad')
        for name, error in res.task_errors.items():
            print(f'task {name} error: {error:.3g}')
        for note in res.notes:
            print(f'note: {note}')
        distance = float(np.linalg.norm(pose[:3]))
        reach = solver.linkage.reach(solver.tip_link, solver.base_link)
        if not res.success and distance > reach:
            print(f'hint: the goal is {distance:.3g} m from {solver.base_link}, beyond the reach '
                  f'of the chain to {solver.tip_link} (at most {reach:.3g} m)')
    return 0 if res.success else 1
