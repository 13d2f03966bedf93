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
Defects of one joint or link of a URDF: found on the XML tree, recorded, raised when used.

A defect disables one element (:func:`~pdls_ik.model.load_urdf`): a joint's unknown type, bad
origin, zero or malformed axis, bad or missing ``<limit>``, a ``<mimic>`` whose master is
missing, does not move, is itself disabled or closes a cycle; a link's bad ``<inertial>``. The
functions here raise :class:`Defect` (message without the element name) or append to the
:class:`Report`; :mod:`pdls_ik.model.urdf_checks` runs them. Rules for degenerate numbers are in
:mod:`pdls_ik.model.urdf_rules`; the notes name the elements a rule changed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Dict, List, Optional
import xml.etree.ElementTree as ET

from pdls_ik.model.joints import JOINT_TYPES, MOVING_TYPES
from pdls_ik.model.urdf_rules import MIN_RATE, position_bound, unit_axis, UNLIMITED_BOUND


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


def listing(items: List[str], most: int = 6) -> str:
    """Return ``"a, b, c"`` with at most ``most`` items, then ``"... (N in all)"``."""
    shown = ', '.join(items[:most])
    return shown if len(items) <= most else f'{shown}, ... ({len(items)} in all)'


def check_origin(elem: ET.Element, prefix: str = '') -> None:
    """Check the ``<origin>`` of ``elem`` (xyz, rpy: 3 finite numbers each)."""
    origin = elem.find('origin')
    if origin is not None:
        for attr in ('xyz', 'rpy'):
            if attr in origin.attrib:
                floats(origin.get(attr), 3, f'{prefix}origin {attr}')


def check_link(link: ET.Element) -> None:
    """Check a link's ``<inertial>``: origin, a non-negative mass, finite inertia."""
    inertial = link.find('inertial')
    if inertial is None:
        return
    check_origin(inertial, 'inertial ')
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
    velocity = _optional(limit, 'velocity', 'limit')
    _optional(limit, 'effort', 'limit')  # same rule as velocity, never noted: never used here
    if velocity is not None and velocity <= -MIN_RATE:
        notes['negative'].append(f"'{name}'")  # 0 or missing: the loader's note on q's joints
    soft = joint.find('safety_controller')
    bounds = [('lower', lower), ('upper', upper)]
    soft_bounds = [(f'soft_{attr}_limit', _optional(soft, f'soft_{attr}_limit',
                                                    'safety_controller'))
                   for attr in ('lower', 'upper')]  # validated always, used when bounded
    if jtype != 'continuous':
        bounds += soft_bounds
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


def check_joint(joint: ET.Element, report: Report, notes: Dict[str, List[str]]) -> None:
    """
    Check one joint: origin, type, axis, limits, soft limits, mimic numbers.

    :param notes: rule kind (a key of :data:`NOTES`) → items, appended to.
    :raises Defect: the first defect found (the joint is then disabled).
    """
    name = joint.get('name')
    jtype = joint.get('type')
    try:
        check_origin(joint)
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


def check_mimics(joints: Dict[str, ET.Element], report: Report) -> None:
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


NOTES = {
    'negative': 'negative limit velocity read as its magnitude, as MoveIt does',
    'unlimited': f'position bounds of magnitude >= {UNLIMITED_BOUND:g} read as unlimited (±inf)',
}
