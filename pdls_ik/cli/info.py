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

"""``pdls-ik info URDF``: joints, types, limits and the link tree of a robot description."""
from __future__ import annotations

import argparse
import json
import math
from typing import Dict, List

from pdls_ik.model import Linkage, load_urdf
from pdls_ik.resources import urdf_path


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik info`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'info', help='show joints, types, limits and the link tree of a URDF',
        description='Load a URDF (file, or bundled robot name: panda, ur5, bimanual) and print '
                    'its active joints (the order of q), types, limits and link tree.')
    parser.add_argument('urdf', help='URDF file or bundled robot name')
    parser.add_argument('--base', help='base link (default: the root link)')
    parser.add_argument('--json', action='store_true', help='print JSON instead of text')
    return parser


def _num(x: float) -> object:
    """Return a limit for JSON: a finite number as it is, an infinite one (no limit) as None."""
    return float(x) if math.isfinite(x) else None


def describe(robot: Linkage) -> dict:
    """
    Return a JSON-ready summary: name, root, base, joints (with limits) and the tree edges.

    A limit the URDF does not give (continuous joints, no velocity or effort limit) is None
    (JSON null): JSON has no infinity.
    """
    joints = []
    for i, name in enumerate(robot.joint_names):
        joints.append({'name': name, 'type': robot.joint_types[i],
                       'lower': _num(robot.lower[i]), 'upper': _num(robot.upper[i]),
                       'velocity': _num(robot.velocity_limits[i]),
                       'effort': _num(robot.effort_limits[i])})
    tree = [{'joint': j.name, 'type': j.type, 'parent': robot.link_names[j.parent],
             'child': robot.link_names[j.child],
             **({'mimic': j.mimic, 'multiplier': j.multiplier, 'offset': j.offset}
                if j.mimic else {})} for j in robot.joints]
    return {'name': robot.name, 'root_link': robot.root_link, 'base_link': robot.base_link,
            'dof': robot.n, 'joints': joints, 'tree': tree,
            'disabled_joints': dict(robot.joint_defects),
            'disabled_links': dict(robot.link_defects)}


#: deeper tree levels are drawn with their depth and the last few levels of indentation
_MAX_DRAWN_DEPTH = 24


def _tree_lines(robot: Linkage) -> List[str]:
    """Lines of the link tree, drawn without recursion (any depth)."""
    children: Dict[int, List] = {}
    for joint in robot.joints:
        children.setdefault(joint.parent, []).append(joint)
    lines = [robot.root_link]
    # stack of (iterator over a link's child joints, indentation of its children)
    stack = [(iter(enumerate(children.get(robot.link_index(robot.root_link), []))), '')]
    while stack:
        kids, indent = stack[-1]
        step = next(kids, None)
        if step is None:
            stack.pop()
            continue
        k, joint = step
        last = k == len(children[joint.parent]) - 1
        label = joint.type + (f', mimics {joint.mimic} ×{joint.multiplier:g}{joint.offset:+g}'
                              if joint.mimic else '') + (', DISABLED' if joint.defect else '')
        drawn = indent
        if len(stack) > _MAX_DRAWN_DEPTH:
            drawn = f'[depth {len(stack)}] ' + indent[-4 * 4:]
        lines.append(f"{drawn}{'└' if last else '├'}── {robot.link_names[joint.child]}"
                     f'  [{joint.name}: {label}]')
        stack.append((iter(enumerate(children.get(joint.child, []))),
                      indent + ('    ' if last else '│   ')))
    return lines


def run(args: argparse.Namespace) -> int:
    """Print joints, types, limits and the link tree of a URDF; return 0."""
    robot = load_urdf(urdf_path(args.urdf), base_link=args.base)
    info = describe(robot)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f'robot {robot.name}: {robot.n} active joints, {len(robot.link_names)} links, '
          f'root {robot.root_link}, base {robot.base_link}')
    print(f"{'#':>3}  {'joint':<24} {'type':<11} {'lower':>9} {'upper':>9} {'velocity':>9} "
          f"{'effort':>8}")
    for i, joint in enumerate(info['joints']):
        print(f"{i:>3}  {joint['name']:<24} {joint['type']:<11} {robot.lower[i]:>9.4g} "
              f'{robot.upper[i]:>9.4g} {robot.velocity_limits[i]:>9.4g} '
              f'{robot.effort_limits[i]:>8.4g}')
    print('tree:')
    for line in _tree_lines(robot):
        print('  ' + line)
    for kind, defects in (('joint', robot.joint_defects), ('link', robot.link_defects)):
        for name, defect in defects.items():
            print(f"disabled {kind} '{name}': {defect}")
    return 0
