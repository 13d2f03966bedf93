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
                    "in the order printed by 'pdls-ik info'): every active joint, or only the "
                    'joints from --base to LINK (a chain inside a bigger robot). Quaternion '
                    'order: x y z w.')
    parser.add_argument('urdf', help='URDF file or bundled robot name')
    parser.add_argument('link', help='link whose pose is computed')
    parser.add_argument('--q', nargs='*', default=None, metavar='V',
                        help='joint values: all active joints, or those from --base to LINK '
                             '(default: the middle of the limits, 0 for continuous joints)')
    parser.add_argument('--base', help='frame of the result (default: the root link)')
    parser.add_argument('--json', action='store_true', help='print JSON instead of text')
    return parser


def chain_joints(robot, link: str, base: str) -> np.ndarray:
    """Return the indices (robot order) of the joints moving ``link`` relative to ``base``."""
    return np.flatnonzero(np.any(robot.chain(link, base).select != 0.0, axis=0))


def _parse_q(values, robot, chain: np.ndarray) -> np.ndarray:
    """
    Return the full q (n,) from --q: every active joint, or only the joints of the chain.

    Given the chain's joints alone (a chain inside a big robot), the other joints, which do not
    move the link relative to the base, are set to the middle of their limits.
    """
    middle = middle_of_limits(robot.lower, robot.upper)
    if values is None:
        return middle
    try:
        q = np.array([float(v) for v in values])
    except ValueError as exc:
        raise InputError(f'--q: {exc}') from None
    if q.size == chain.size and q.size != robot.n:
        if not np.all(np.isfinite(q)):
            bad = robot.joint_names[int(chain[np.flatnonzero(~np.isfinite(q))[0]])]
            raise InputError(f"--q: joint '{bad}': value {q[~np.isfinite(q)][0]} is not finite")
        full = middle.copy()
        full[chain] = q
        return full
    if q.size != robot.n:
        names = ', '.join(robot.joint_names[i] for i in chain)
        raise InputError(f'--q: {q.size} values: expected {robot.n} joint values (every '
                         f"active joint, in the order of 'pdls-ik info') or {chain.size} "
                         f'(the joints from base to link: {names})')
    return robot.check_q(q)


def run(args: argparse.Namespace) -> int:
    """Print the pose of a link (4×4, position [m], quaternion x y z w); return 0."""
    robot = load_urdf(urdf_path(args.urdf))
    base = args.base or robot.base_link
    chain = chain_joints(robot, args.link, base)
    q = _parse_q(args.q, robot, chain)
    shown = chain if args.q is not None and len(args.q) == chain.size != robot.n \
        else np.arange(robot.n)
    outside = [robot.joint_names[i] for i in shown
               if not robot.lower[i] <= q[i] <= robot.upper[i]]
    if outside:     # FK is defined there, but the user may have mistyped a value or a unit
        warnings.warn(f"q outside the joint limits of {', '.join(outside)}")
    T = robot.forward_kinematics(q, args.link, base)
    quat = Rotation.from_matrix(T[:3, :3]).as_quat()
    if args.json:
        print(json.dumps({'link': args.link, 'base': base, 'q': q[shown].tolist(),
                          'joint_names': [robot.joint_names[i] for i in shown],
                          'matrix': T.tolist(),
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
