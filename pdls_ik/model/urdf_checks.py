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

import re
from typing import Dict, List
import xml.etree.ElementTree as ET

from pdls_ik.errors import JointError, LinkError, URDFError
from pdls_ik.model.urdf_defects import check_joint, check_link, check_mimics, Defect, listing, \
    NOTES, Report

__all__ = ['check_robot', 'Report', 'URDFWarning']

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


def _xacro_message(where: str, value: str) -> str:
    expr = XACRO_EXPR.search(value).group(0)
    return (f"{where} = '{value}' holds the unexpanded xacro expression '{expr}': the file "
            'looks like unprocessed xacro; run xacro on it first')


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
            check_link(link)
        except Defect as exc:
            report.link_defects[name] = str(exc)
    notes: Dict[str, List[str]] = {kind: [] for kind in NOTES}
    for name, joint in joints.items():
        report.joint_types[name] = joint.get('type', '')
        try:
            check_joint(joint, report, notes)
        except Defect as exc:
            report.joint_defects[name] = str(exc)
    check_mimics(joints, report)
    for kind, items in notes.items():
        if items:
            report.notes.append(f'{NOTES[kind]}: {listing(items)}')
    return report
