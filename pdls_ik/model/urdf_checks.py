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
Validation of the raw URDF XML where urdf_parser_py is silent or lenient.

urdf_parser_py accepts NaN, a zero axis, a revolute joint without ``<limit>``, swapped bounds and
an unresolved ``<mimic>``, and reports tree errors as bare assertions. These checks run on the
XML tree before it is handed to urdf_parser_py and raise :mod:`pdls_ik.errors` exceptions that
name the offending joint, link and attribute. The rules follow the URDF specification
(ros.org/wiki/urdf/XML/joint, /link).
"""
from __future__ import annotations

import math
import re
from typing import Dict, List, Optional
import warnings
import xml.etree.ElementTree as ET

from pdls_ik.errors import JointError, LinkError, URDFError
from pdls_ik.model.joints import JOINT_TYPES, MOVING_TYPES

XACRO_NS = '{http://www.ros.org/wiki/xacro}'
XACRO_EXPR = re.compile(r'\$[{(][^})]*[})]?')
#: an axis shorter than this cannot be normalized (metres or unitless)
AXIS_MIN_NORM = 1e-9


class URDFWarning(UserWarning):
    """A description loads but something in it deserves attention (e.g. an empty joint range)."""


def parse_xml(text: str, label: str) -> ET.Element:
    """Parse ``text`` as XML whose root element is ``<robot>``; raises URDFError otherwise."""
    if not text.strip():
        raise URDFError(f'{label} is empty: no robot description')
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise URDFError(f'{label} is not well-formed XML: {exc}') from None
    if root.tag != 'robot':
        raise URDFError(f'{label}: root element is <{root.tag}>, expected <robot>')
    return root


def _error(kind: str, name: str, message: str) -> Exception:
    if kind == 'joint':
        return JointError(name, message)
    if kind == 'link':
        return LinkError(name, message)
    return URDFError(message)


def _xacro_error(kind: str, name: str, where: str, value: str) -> Exception:
    expr = XACRO_EXPR.search(value).group(0)
    return _error(kind, name, f"{where} = '{value}' holds the unexpanded xacro expression "
                              f"'{expr}': the file looks like unprocessed xacro; run xacro on it "
                              'first')


def floats(value: Optional[str], count: int, kind: str, name: str, where: str) -> List[float]:
    """
    Parse ``count`` finite floats from an attribute value, raising an error naming the place.

    :param value: the attribute text (e.g. ``"0 0 0.1"``).
    :param count: expected number of components.
    :param kind, name: ``"joint"`` or ``"link"`` and its name (the error class and subject).
    :param where: element and attribute, e.g. ``"origin xyz"``.
    """
    text = '' if value is None else value
    parts = text.split()
    if XACRO_EXPR.search(text):
        raise _xacro_error(kind, name, where, text)
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise _error(kind, name, f"{where} = '{text}' is not a number list") from None
    if len(numbers) != count:
        raise _error(kind, name, f"{where} = '{text}' needs {count} number(s), got {len(numbers)}")
    if not all(math.isfinite(x) for x in numbers):
        raise _error(kind, name, f"{where} = '{text}' contains NaN or infinity")
    return numbers


def _check_xacro(root: ET.Element) -> None:
    """Reject unexpanded xacro: ``${...}`` / ``$(...)`` values, then xacro elements."""
    for owner in root:
        kind, name = owner.tag, owner.get('name', '?')
        for elem in owner.iter():
            for attr, value in elem.attrib.items():
                if XACRO_EXPR.search(value):
                    where = attr if elem is owner else f'{elem.tag} {attr}'
                    raise _xacro_error(kind, name, where, value)
    for elem in root.iter():
        if isinstance(elem.tag, str) and elem.tag.startswith(XACRO_NS):
            tag = 'xacro:' + elem.tag[len(XACRO_NS):]
            raise URDFError(f"element <{tag} name='{elem.get('name', '')}'> found: the file looks "
                            'like unprocessed xacro; run xacro on it first')


def _check_origin(elem: ET.Element, kind: str, name: str, prefix: str = '') -> None:
    origin = elem.find('origin')
    if origin is not None:
        for attr in ('xyz', 'rpy'):
            if attr in origin.attrib:
                floats(origin.get(attr), 3, kind, name, f'{prefix} origin {attr}'.strip())


def _check_link(link: ET.Element) -> None:
    name = link.get('name')
    inertial = link.find('inertial')
    if inertial is None:
        return
    _check_origin(inertial, 'link', name, 'inertial')
    mass = inertial.find('mass')
    if mass is not None:
        (value,) = floats(mass.get('value'), 1, 'link', name, 'inertial mass value')
        if value < 0:
            raise LinkError(name, f'inertial mass value = {value} is negative')
    inertia = inertial.find('inertia')
    if inertia is not None:
        for attr in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'):
            floats(inertia.get(attr, '0'), 1, 'link', name, f'inertial inertia {attr}')


def _optional(elem: Optional[ET.Element], attr: str, joint: str, where: str) -> Optional[float]:
    if elem is None or attr not in elem.attrib:
        return None
    return floats(elem.get(attr), 1, 'joint', joint, f'{where} {attr}')[0]


def _check_joint(joint: ET.Element, links: Dict[str, ET.Element]) -> None:
    name = joint.get('name')
    jtype = joint.get('type')
    if jtype not in JOINT_TYPES:
        raise JointError(name, f"unknown joint type '{jtype}' (expected one of "
                               f"{', '.join(JOINT_TYPES)})")
    for role in ('parent', 'child'):
        elem = joint.find(role)
        if elem is None or not elem.get('link'):
            raise JointError(name, f'has no <{role} link=...> element')
        if elem.get('link') not in links:
            raise JointError(name, f"{role} link '{elem.get('link')}' is not defined in the file")
    _check_origin(joint, 'joint', name)
    axis = joint.find('axis')
    if axis is not None:
        xyz = floats(axis.get('xyz'), 3, 'joint', name, 'axis xyz')
        norm = math.sqrt(sum(x * x for x in xyz))
        if jtype in MOVING_TYPES + ('planar',) and norm < AXIS_MIN_NORM:
            raise JointError(name, f"axis xyz = '{axis.get('xyz')}' has zero (or near-zero) "
                                   f'length {norm:g}: cannot move a {jtype} joint about it')
    limit = joint.find('limit')
    lower = _optional(limit, 'lower', name, 'limit')
    upper = _optional(limit, 'upper', name, 'limit')
    for attr in ('effort', 'velocity'):
        value = _optional(limit, attr, name, 'limit')
        if value is not None and value < 0:
            raise JointError(name, f'limit {attr} = {value} is negative')
    soft = joint.find('safety_controller')
    for attr in ('soft_lower_limit', 'soft_upper_limit', 'k_position', 'k_velocity'):
        _optional(soft, attr, name, 'safety_controller')
    mimic = joint.find('mimic')
    for attr in ('multiplier', 'offset'):
        _optional(mimic, attr, name, 'mimic')
    if jtype not in ('revolute', 'prismatic'):
        return
    if limit is None:
        raise JointError(name, f'type {jtype} requires a <limit> element (lower, upper, effort, '
                               'velocity) by the URDF specification, and it has none')
    lo = 0.0 if lower is None else lower
    hi = 0.0 if upper is None else upper
    if lo > hi:
        raise JointError(name, f'limit lower {lo:g} > upper {hi:g}')
    if lo == hi:
        why = ('<limit> has no lower/upper (the URDF default is 0 for both)'
               if lower is None and upper is None else f'limit lower = upper = {lo:g}')
        warnings.warn(f"joint '{name}': {why}: empty range, the joint acts as a fixed joint",
                      URDFWarning, stacklevel=4)


def _check_names(elems: List[ET.Element], kind: str) -> Dict[str, ET.Element]:
    named: Dict[str, ET.Element] = {}
    for elem in elems:
        name = elem.get('name')
        if not name:
            raise URDFError(f'a <{kind}> element has no name attribute')
        if name in named:
            raise _error(kind, name, 'is defined twice')
        named[name] = elem
    return named


def _check_tree(links: Dict[str, ET.Element], joints: Dict[str, ET.Element]) -> str:
    """Check that joints form one tree over the links; returns the root link name."""
    parent_joint: Dict[str, str] = {}
    children: Dict[str, List[str]] = {name: [] for name in links}
    for jname, joint in joints.items():
        parent, child = joint.find('parent').get('link'), joint.find('child').get('link')
        if parent == child:
            raise JointError(jname, f"parent and child are the same link '{child}' (a cycle)")
        if child in parent_joint:
            raise LinkError(child, f"has two parent joints, '{parent_joint[child]}' and "
                                   f"'{jname}' (a link may have only one)")
        parent_joint[child] = jname
        children[parent].append(child)
    roots = [name for name in links if name not in parent_joint]
    if len(roots) > 1:
        raise URDFError(f'several root links (links without a parent joint): '
                        f"{', '.join(roots)}; connect them with joints into one tree")
    if not roots:
        raise URDFError('no root link: every link has a parent joint, so the joints form a cycle')
    reached, stack = set(), [roots[0]]
    while stack:
        link = stack.pop()
        reached.add(link)
        stack.extend(children[link])
    if len(reached) != len(links):
        cut = sorted(set(links) - reached)
        raise URDFError(f"joints form a cycle through link(s) {', '.join(cut)}: they are not "
                        f"reachable from the root link '{roots[0]}'")
    return roots[0]


def check_robot(root: ET.Element) -> str:
    """
    Run every check on a ``<robot>`` element; returns the root link name.

    :raises URDFError, JointError, LinkError: naming the offending element and value.
    """
    _check_xacro(root)
    links = _check_names(root.findall('link'), 'link')
    joints = _check_names(root.findall('joint'), 'joint')
    if not links:
        raise URDFError(f"robot '{root.get('name', '')}' defines no <link>")
    for link in links.values():
        _check_link(link)
    for joint in joints.values():
        _check_joint(joint, links)
    for jname, joint in joints.items():
        mimic = joint.find('mimic')
        if mimic is None:
            continue
        master = mimic.get('joint')
        if master not in joints:
            raise JointError(jname, f"<mimic> refers to unknown joint '{master}'")
        for who in (jname, master):
            if joints[who].get('type') not in MOVING_TYPES:
                raise JointError(jname, f"<mimic> couples '{jname}' to '{master}', but "
                                        f"'{who}' is {joints[who].get('type')}, not moving")
    return _check_tree(links, joints)
