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
Validation of the raw URDF XML: what refuses a description, what only disables part of it.

urdf_parser_py accepts NaN, a zero axis, a revolute joint without ``<limit>``, swapped bounds and
an unresolved ``<mimic>``, and refuses elements that kinematics never reads (a ``<texture>``
without ``filename``, an old-style ``<transmission>``). These checks run on the XML tree first and
sort what they find (URDF specification, ros.org/wiki/urdf/XML):

- **refusals** (the whole description is unusable, as in urdfdom): not a ``<robot>``, no link,
  an element without a name or named twice, a joint whose parent/child link is missing, links
  that do not form one tree, unprocessed xacro in what kinematics reads. Raised at once.
- **defects** of one joint or link (bad type, origin, axis, limits, mimic; a bad ``<inertial>``):
  recorded with the error naming the element, reported as one warning line each, and raised
  only when a chain, task or trajectory uses that joint or link.
- **notes**: rules applied to degenerate numbers (:mod:`pdls_ik.model.urdf_rules`), ignored
  ``<mimic>`` on fixed joints, unknown elements: one warning line per kind.

Elements kinematics never reads (visual, collision, material, texture, transmission, gazebo,
ros2_control, sensor, calibration, dynamics) are not validated at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
import re
from typing import Dict, List, Optional
import xml.etree.ElementTree as ET

from pdls_ik.errors import JointError, LinkError, URDFError
from pdls_ik.model.joints import JOINT_TYPES, MOVING_TYPES
from pdls_ik.model.urdf_rules import MIN_RATE, position_bound, unit_axis, UNLIMITED_BOUND

XACRO_NS = '{http://www.ros.org/wiki/xacro}'
XACRO_EXPR = re.compile(r'\$[{(][^})]*[})]?')
#: elements kinematics never reads: not validated, never a refusal, no warning
SILENT_TAGS = {'robot': {'material', 'transmission', 'gazebo', 'ros2_control', 'sensor'},
               'link': {'visual', 'collision'},
               'joint': {'calibration', 'dynamics'}}
#: the elements kinematics reads, per owner
KINEMATIC_TAGS = {'robot': {'link', 'joint'}, 'link': {'inertial'},
                  'joint': {'origin', 'parent', 'child', 'axis', 'limit', 'mimic',
                            'safety_controller'}}


class URDFWarning(UserWarning):
    """A description loads but something in it deserves attention (e.g. an empty joint range)."""


class Defect(Exception):
    """A value that disables one joint or link (internal: becomes a recorded defect)."""


@dataclass
class Report:
    """
    What :func:`check_robot` found.

    :ivar root_link: the link without a parent joint.
    :ivar joint_types: joint name → its ``type`` attribute as written.
    :ivar bad_origins: joints whose ``<origin>`` is the defect (no pose below them).
    :ivar joint_defects, link_defects: element name → message (without the name) of the error
        raised when the element is used; document order.
    :ivar ignored_mimics: joints whose ``<mimic>`` is ignored (the joint itself does not move).
    :ivar notes: warning lines (degenerate numbers, ignored elements), one per kind.
    :ivar empty_ranges: joint name → why its range is empty (lower = upper).
    """

    root_link: str = ''
    joint_types: Dict[str, str] = field(default_factory=dict)
    bad_origins: List[str] = field(default_factory=list)
    joint_defects: Dict[str, str] = field(default_factory=dict)
    link_defects: Dict[str, str] = field(default_factory=dict)
    ignored_mimics: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    empty_ranges: Dict[str, str] = field(default_factory=dict)


def _xacro_message(where: str, value: str) -> str:
    expr = XACRO_EXPR.search(value).group(0)
    return (f"{where} = '{value}' holds the unexpanded xacro expression '{expr}': the file "
            'looks like unprocessed xacro; run xacro on it first')


def floats(value: Optional[str], count: int, where: str, finite: bool = True) -> List[float]:
    """
    Parse ``count`` floats from an attribute value; :class:`Defect` names the place otherwise.

    :param value: the attribute text (e.g. ``"0 0 0.1"``).
    :param count: expected number of components.
    :param where: element and attribute, e.g. ``"origin xyz"``.
    :param finite: refuse ±inf too (NaN is always refused).
    """
    text = '' if value is None else value
    try:
        numbers = [float(p) for p in text.split()]
    except ValueError:
        raise Defect(f"{where} = '{text}' is not a number list") from None
    if len(numbers) != count:
        raise Defect(f"{where} = '{text}' needs {count} number(s), got {len(numbers)}")
    if any(math.isnan(x) for x in numbers) or (finite and not all(map(math.isfinite, numbers))):
        raise Defect(f"{where} = '{text}' contains {'NaN or infinity' if finite else 'NaN'}")
    return numbers


def _kinematic_attributes(owner: ET.Element):
    """Yield (where, value) of every attribute kinematics reads in a <link> or <joint>."""
    for attr, value in owner.attrib.items():
        yield attr, value
    for child in owner:
        if child.tag in KINEMATIC_TAGS.get(owner.tag, ()):
            for elem in child.iter():
                for attr, value in elem.attrib.items():
                    path = child.tag if elem is child else f'{child.tag} {elem.tag}'
                    yield f'{path} {attr}', value


def _check_xacro(root: ET.Element, report: Report) -> None:
    """Refuse xacro elements and unexpanded expressions that kinematics would read."""
    ignored = []
    for owner in root:
        kind, name = owner.tag, owner.get('name', '?')
        if kind in ('link', 'joint'):
            for where, value in _kinematic_attributes(owner):
                if XACRO_EXPR.search(value):
                    message = _xacro_message(where, value)
                    raise (JointError if kind == 'joint' else LinkError)(name, message)
        for elem in owner.iter():
            for attr, value in elem.attrib.items():
                if XACRO_EXPR.search(value):
                    ignored.append(f"{kind} '{name}' <{elem.tag} {attr}='{value}'>")
    for elem in root.iter():
        if isinstance(elem.tag, str) and elem.tag.startswith(XACRO_NS):
            tag = 'xacro:' + elem.tag[len(XACRO_NS):]
            raise URDFError(f"element <{tag} name='{elem.get('name', '')}'> found: the file looks "
                            'like unprocessed xacro; run xacro on it first')
    if ignored:
        more = f' (and {len(ignored) - 1} more)' if len(ignored) > 1 else ''
        report.notes.append(f'unexpanded xacro expression in an element kinematics does not '
                            f'read, ignored: {ignored[0]}{more}')


def listing(items: List[str], most: int = 6) -> str:
    """Return ``"a, b, c"`` with at most ``most`` items, then ``"... (N in all)"``."""
    shown = ', '.join(items[:most])
    return shown if len(items) <= most else f'{shown}, ... ({len(items)} in all)'


def _check_unknown(root: ET.Element, report: Report) -> None:
    unknown: Dict[str, List[str]] = {}
    for owner in [root] + [e for e in root if e.tag in ('link', 'joint')]:
        for child in owner:
            tag = child.tag
            if tag in KINEMATIC_TAGS[owner.tag] or tag in SILENT_TAGS[owner.tag]:
                continue
            where = unknown.setdefault(f'<{tag}>' if owner is root else f'<{tag}> in '
                                       f'{owner.tag}', [])
            if owner is not root and f"'{owner.get('name')}'" not in where:
                where.append(f"'{owner.get('name')}'")
    if unknown:
        report.notes.append('elements kinematics does not read, ignored: ' + '; '.join(
            f'{tag} {listing(owners, 3)}'.strip() for tag, owners in unknown.items()))


def _origin(elem: ET.Element, prefix: str = '') -> None:
    origin = elem.find('origin')
    if origin is not None:
        for attr in ('xyz', 'rpy'):
            if attr in origin.attrib:
                floats(origin.get(attr), 3, f'{prefix}origin {attr}')


def _check_link(link: ET.Element) -> None:
    inertial = link.find('inertial')
    if inertial is None:
        return
    _origin(inertial, 'inertial ')
    mass = inertial.find('mass')
    if mass is None:
        raise Defect('inertial has no <mass> element')
    (value,) = floats(mass.get('value'), 1, 'inertial mass value')
    if value < 0:
        raise Defect(f'inertial mass value = {value:g} is negative')
    inertia = inertial.find('inertia')
    if inertia is not None:
        for attr in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'):
            floats(inertia.get(attr, '0'), 1, f'inertial inertia {attr}')


def _optional(elem: Optional[ET.Element], attr: str, where: str) -> Optional[float]:
    if elem is None or attr not in elem.attrib:
        return None
    return floats(elem.get(attr), 1, f'{where} {attr}', finite=False)[0]


def _check_limits(name: str, jtype: str, joint: ET.Element, report: Report,
                  notes: Dict[str, List[str]]) -> None:
    if jtype not in MOVING_TYPES:
        return  # limits of fixed, floating and planar joints are never read
    limit = joint.find('limit')
    lower = _optional(limit, 'lower', 'limit')
    upper = _optional(limit, 'upper', 'limit')
    rates = {attr: _optional(limit, attr, 'limit') for attr in ('velocity', 'effort')}
    for kind, test in (('zero', lambda v: 0 <= v < MIN_RATE), ('negative', lambda v: v < 0)):
        attrs = [attr for attr, value in rates.items() if value is not None and test(value)]
        if attrs:
            notes[kind].append(f"'{name}' ({', '.join(attrs)})")
    soft = joint.find('safety_controller')
    bounds = [('lower', lower), ('upper', upper)]
    if jtype != 'continuous':
        bounds += [(f'soft_{attr}_limit', _optional(soft, f'soft_{attr}_limit',
                                                    'safety_controller'))
                   for attr in ('lower', 'upper')]
    huge = [f'{attr} {value:g}' for attr, value in bounds
            if value is not None and abs(value) >= UNLIMITED_BOUND]
    if huge:
        notes['unlimited'].append(f"'{name}' ({', '.join(huge)})")
    if jtype not in ('revolute', 'prismatic'):
        return
    if limit is None:
        raise Defect(f'type {jtype} requires a <limit> element (lower, upper, effort, velocity) '
                     'by the URDF specification, and it has none')
    lo = 0.0 if lower is None else lower
    hi = 0.0 if upper is None else upper
    if position_bound(lo) == math.inf or position_bound(hi) == -math.inf:
        raise Defect(f'limit lower {lo:g}, upper {hi:g} leaves no range (a bound of magnitude '
                     f'>= {UNLIMITED_BOUND:g} on the wrong side)')
    if lo > hi:
        raise Defect(f'limit lower {lo:g} > upper {hi:g}')
    if lo == hi:
        why = ('<limit> has no lower/upper (the URDF default is 0 for both)'
               if lower is None and upper is None else f'limit lower = upper = {lo:g}')
        report.empty_ranges[name] = why


def _check_joint(joint: ET.Element, report: Report, notes: Dict[str, List[str]]) -> None:
    name = joint.get('name')
    jtype = joint.get('type')
    try:
        _origin(joint)
    except Defect:
        report.bad_origins.append(name)
        raise
    if jtype not in JOINT_TYPES:
        raise Defect(f"unknown joint type '{jtype}' (expected one of {', '.join(JOINT_TYPES)})")
    axis = joint.find('axis')
    if jtype in MOVING_TYPES + ('planar',) and axis is not None:
        xyz = floats(axis.get('xyz'), 3, 'axis xyz')
        if unit_axis(xyz) is None:
            raise Defect(f"axis xyz = '{axis.get('xyz')}' is zero (largest component "
                         f'{max(map(abs, xyz)):g} < 1e-9): cannot move a {jtype} joint about it')
    _check_limits(name, jtype, joint, report, notes)
    mimic = joint.find('mimic')
    if mimic is not None and jtype in MOVING_TYPES:
        for attr in ('multiplier', 'offset'):
            value = _optional(mimic, attr, 'mimic')
            if value is not None and not math.isfinite(value):
                raise Defect(f"mimic {attr} = '{mimic.get(attr)}' contains infinity")
        if not mimic.get('joint'):
            raise Defect('<mimic> has no joint attribute')


def _check_names(elems: List[ET.Element], kind: str) -> Dict[str, ET.Element]:
    named: Dict[str, ET.Element] = {}
    for elem in elems:
        name = elem.get('name')
        if not name:
            raise URDFError(f'a <{kind}> element has no name attribute')
        if name in named:
            raise (JointError if kind == 'joint' else LinkError)(name, 'is defined twice')
        named[name] = elem
    return named


def _check_tree(links: Dict[str, ET.Element], joints: Dict[str, ET.Element]) -> str:
    """Check that joints form one tree over the links; returns the root link name."""
    parent_joint: Dict[str, str] = {}
    children: Dict[str, List[str]] = {name: [] for name in links}
    for jname, joint in joints.items():
        ends = []
        for role in ('parent', 'child'):
            elem = joint.find(role)
            if elem is None or not elem.get('link'):
                raise JointError(jname, f'has no <{role} link=...> element')
            if elem.get('link') not in links:
                raise JointError(jname, f"{role} link '{elem.get('link')}' is not defined in "
                                        'the file')
            ends.append(elem.get('link'))
        parent, child = ends
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


def _check_mimics(joints: Dict[str, ET.Element], report: Report) -> None:
    """Ignore <mimic> on joints that do not move; record bad masters, cycles, and their heirs."""
    defects = report.joint_defects
    masters: Dict[str, str] = {}
    for name, joint in joints.items():
        mimic = joint.find('mimic')
        if mimic is None or name in defects:
            continue
        master = mimic.get('joint')
        if joint.get('type') not in MOVING_TYPES:
            report.ignored_mimics.append(name)
        elif master not in joints:
            defects[name] = f"<mimic> refers to unknown joint '{master}'"
        elif joints[master].get('type') not in MOVING_TYPES and master not in defects:
            defects[name] = (f"<mimic> couples '{name}' to '{master}', but '{master}' is "
                             f"{joints[master].get('type')}, not moving")
        else:
            masters[name] = master
    for name in masters:  # cycles first, so that every defect is known before inheriting
        chain = [name]
        while chain[-1] in masters and masters[chain[-1]] not in chain:
            chain.append(masters[chain[-1]])
        if chain[-1] in masters:
            defects[name] = '<mimic> joints form a cycle: ' + ' -> '.join(
                chain + [masters[chain[-1]]])
    for name in masters:
        if name in defects:
            continue
        master = masters[name]
        while master not in defects and master in masters and master != name:
            master = masters[master]
        if master in defects:
            defects[name] = f"its <mimic> master '{master}' is defective: {defects[master]}"
    if report.ignored_mimics:
        report.notes.append('<mimic> ignored on joints that do not move (fixed, floating, '
                            'planar): ' + listing([f"'{n}'" for n in report.ignored_mimics]))


_NOTES = {
    'zero': 'limit velocity/effort 0 (or below DBL_EPSILON) read as "no limit given", as '
            "urdfdom's default and MoveIt do",
    'negative': 'negative limit velocity/effort read as its magnitude, as MoveIt does',
    'unlimited': f'position bounds of magnitude >= {UNLIMITED_BOUND:g} read as unlimited (±inf)',
}


def check_robot(root: ET.Element) -> Report:
    """
    Run every check on a ``<robot>`` element.

    :return: the :class:`Report`: root link, joint and link defects, warning lines.
    :raises URDFError, JointError, LinkError: a refusal (module docstring), naming the offending
        element and value.
    """
    report = Report()
    _check_xacro(root, report)
    links = _check_names(root.findall('link'), 'link')
    joints = _check_names(root.findall('joint'), 'joint')
    if not links:
        raise URDFError(f"robot '{root.get('name', '')}' defines no <link>")
    report.root_link = _check_tree(links, joints)
    _check_unknown(root, report)
    for name, link in links.items():
        try:
            _check_link(link)
        except Defect as exc:
            report.link_defects[name] = str(exc)
    notes: Dict[str, List[str]] = {kind: [] for kind in _NOTES}
    for name, joint in joints.items():
        report.joint_types[name] = joint.get('type', '')
        try:
            _check_joint(joint, report, notes)
        except Defect as exc:
            report.joint_defects[name] = str(exc)
    _check_mimics(joints, report)
    for kind, items in notes.items():
        if items:
            report.notes.append(f'{_NOTES[kind]}: {listing(items)}')
    return report
