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

"""``pdls-ik fk URDF LINK --q ...``: forward kinematics of one link: pose, position, quaternion."""
from __future__ import annotations

import argparse
import json
import warnings

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.model import load_urdf
from pdls_ik.resources import urdf_path
from pdls_ik.tasks import middle_of_limits
from scipy.spatial.transform import Rotation


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik fk`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'fk', help='forward kinematics of one link',
        description='Pose of LINK in the base frame for the joint values --q (radians, metres, '
                    "in the order printed by 'pdls-ik info'). Quaternion order: x y z w.")
    parser.add_argument('urdf', help='URDF file or bundled robot name')
    parser.add_argument('link', help='link whose pose is computed')
    parser.add_argument('--q', nargs='*', default=None, metavar='V',
                        help='joint values (default: the middle of the limits, 0 for '
                             'continuous joints)')
    parser.add_argument('--base', help='frame of the result (default: the root link)')
    parser.add_argument('--json', action='store_true', help='print JSON instead of text')
    return parser


def _parse_q(values, robot) -> np.ndarray:
    if values is None:
        return middle_of_limits(robot.lower, robot.upper)
    try:
        q = np.array([float(v) for v in values])
    except ValueError as exc:
        raise InputError(f'--q: {exc}') from None
    return robot.check_q(q)


def run(args: argparse.Namespace) -> int:
    """Print the pose of a link (4×4, position [m], quaternion x y z w); return 0."""
    robot = load_urdf(urdf_path(args.urdf))
    q = _parse_q(args.q, robot)
    outside = [name for name, v, lo, up in zip(robot.joint_names, q, robot.lower, robot.upper)
               if not lo <= v <= up]
    if outside:     # FK is defined there, but the user may have mistyped a value or a unit
        warnings.warn(f"q outside the joint limits of {', '.join(outside)}")
    base = args.base or robot.base_link
    T = robot.forward_kinematics(q, args.link, base)
    quat = Rotation.from_matrix(T[:3, :3]).as_quat()
    if args.json:
        print(json.dumps({'link': args.link, 'base': base, 'q': q.tolist(),
                          'joint_names': robot.joint_names, 'matrix': T.tolist(),
                          'position': T[:3, 3].tolist(), 'quaternion_xyzw': quat.tolist()},
                         indent=2))
        return 0
    print(f'pose of {args.link} in {base}:')
    with np.printoptions(precision=6, suppress=True, floatmode='fixed'):
        for row in T:
            print('  ' + ' '.join(f'{v: .6f}' for v in row))
    print('position (m):        ' + ' '.join(f'{v:.6f}' for v in T[:3, 3]))
    print('quaternion (x y z w): ' + ' '.join(f'{v:.6f}' for v in quat))
    return 0
