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
URDF → :class:`~pdls_ik.model.linkage.Linkage`.

The source is read by :mod:`pdls_ik.model.urdf_source` (path, text or bytes, any declared
encoding), checked by :mod:`pdls_ik.model.urdf_checks` (refusals, per-element defects, notes),
reduced to the elements kinematics reads, parsed by urdf_parser_py (urdfdom_py, whose console
messages are captured) and resolved into a tree of :class:`~pdls_ik.model.joints.Joint` records
in topological order (parents before children), with the rules of
:mod:`pdls_ik.model.urdf_rules` applied to degenerate numbers.
"""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Dict, List, Optional, Tuple
import warnings
import xml.etree.ElementTree as ET

import numpy as np
from pdls_ik.config import DEFAULT_PRISMATIC_VELOCITY_LIMIT, DEFAULT_VELOCITY_LIMIT
from pdls_ik.errors import URDFError
from pdls_ik.model.joints import Inertial, Joint, JOINT_TYPES, MOVING_TYPES, PASSIVE_TYPES, \
    pose_matrix
from pdls_ik.model.linkage import Limits, Linkage
from pdls_ik.model.urdf_checks import check_robot, Report, URDFWarning
from pdls_ik.model.urdf_rules import unit_axis
from pdls_ik.model.urdf_source import parse_xml, read_source, Source

__all__ = ['load_urdf', 'read_source', 'Source']

#: the warning naming the joints of q without a usable velocity limit (0, below DBL_EPSILON or
#: no ``velocity``): the model reads it as none, trajectories and tracking use a default bound
NO_VELOCITY_NOTE = ('no usable velocity limit (velocity 0, below DBL_EPSILON or not given: read '
                    "as none, as urdfdom's default and MoveIt do); trajectories and tracking move "
                    'these joints at most at default_velocity_limit '
                    f'({DEFAULT_VELOCITY_LIMIT:g} rad/s) or, if prismatic, '
                    f'default_prismatic_velocity_limit ({DEFAULT_PRISMATIC_VELOCITY_LIMIT:g} m/s) '
                    'unless configured: ')

#: the attributes copied for urdf_parser_py (all validated), with the values of absent ones
#: (None: left absent)
_ATTRIBUTES = {
    'origin': {'xyz': None, 'rpy': None}, 'axis': {'xyz': None},
    'limit': {'lower': None, 'upper': None, 'effort': 'inf', 'velocity': 'inf'},
    'safety_controller': {'soft_lower_limit': None, 'soft_upper_limit': None},
    'mimic': {'joint': None, 'multiplier': None, 'offset': None},
    'inertial': {}, 'mass': {'value': None},
    'inertia': dict.fromkeys(('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'), '0'),
}


def _copy(parent: ET.Element, elem: Optional[ET.Element]) -> Optional[ET.Element]:
    """Append ``elem`` with the attributes of :data:`_ATTRIBUTES` to ``parent``; return it."""
    if elem is None:
        return None
    attributes = {}
    for attr, default in _ATTRIBUTES[elem.tag].items():
        value = elem.get(attr, default)
        if value is not None:
            attributes[attr] = value
    if elem.tag == 'safety_controller':
        attributes['k_velocity'] = '0'  # required by urdf_parser_py, never read here
    return ET.SubElement(parent, elem.tag, attributes)


def _copy_inertial(parent: ET.Element, inertial: Optional[ET.Element]) -> None:
    new = _copy(parent, inertial)
    if new is not None:
        for tag in ('origin', 'mass', 'inertia'):
            _copy(new, inertial.find(tag))


def kinematic_copy(root: ET.Element, report: Report) -> ET.Element:
    """
    Return a ``<robot>`` holding only what kinematics reads, every value in it valid.

    Links keep their ``<inertial>`` (unless defective); joints keep parent, child, origin, axis,
    limit, safety_controller and mimic. A defective joint becomes a fixed joint (without its
    origin when that is the defect); an ignored or defective ``<mimic>`` is dropped.
    """
    robot = ET.Element('robot', {'name': root.get('name', '')})
    for link in root.findall('link'):
        new = ET.SubElement(robot, 'link', {'name': link.get('name')})
        if link.get('name') not in report.link_defects:
            _copy_inertial(new, link.find('inertial'))
    for joint in root.findall('joint'):
        name = joint.get('name')
        broken = name in report.joint_defects
        new = ET.SubElement(robot, 'joint', {'name': name,
                                             'type': 'fixed' if broken else joint.get('type')})
        for role in ('parent', 'child'):
            ET.SubElement(new, role, {'link': joint.find(role).get('link')})
        if name not in report.bad_origins:
            _copy(new, joint.find('origin'))
        if not broken and joint.get('type') in MOVING_TYPES + ('planar',):
            _copy(new, joint.find('axis'))
        if not broken and joint.get('type') in MOVING_TYPES:
            for tag in ('limit', 'safety_controller', 'mimic'):
                _copy(new, joint.find(tag))
    return robot


def _parse_with_urdf_parser_py(kinematic: ET.Element, label: str):
    from urdf_parser_py.urdf import URDF
    from urdf_parser_py.xml_reflection import core

    messages: List[str] = []
    previous = core.on_error
    core.on_error = messages.append  # urdf_parser_py prints unknown tags etc. to stderr otherwise
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return URDF.from_xml_string(ET.tostring(kinematic))
    except Exception as exc:  # urdf_parser_py raises ParseError, AssertionError, ValueError...
        raise URDFError(f'{label}: urdf_parser_py cannot parse it: {exc}') from None
    finally:
        core.on_error = previous


def _inertial(link) -> Optional[Inertial]:
    inertial = link.inertial
    if inertial is None:
        return None
    origin = inertial.origin
    T = pose_matrix(origin.xyz or [0, 0, 0], origin.rpy or [0, 0, 0]) if origin else np.eye(4)
    inertia = np.zeros((3, 3))
    if inertial.inertia is not None:
        i = inertial.inertia
        inertia = np.array([[i.ixx, i.ixy, i.ixz], [i.ixy, i.iyy, i.iyz], [i.ixz, i.iyz, i.izz]],
                           dtype=float)
    return Inertial(mass=float(inertial.mass or 0.0), origin=T, inertia=inertia)


def _topological_joints(robot, root: str) -> List:
    """Joints in depth-first pre-order from the root, children in document order."""
    by_parent: Dict[str, List] = {}
    for joint in robot.joints:
        by_parent.setdefault(joint.parent, []).append(joint)
    order, stack = [], [iter(by_parent.get(root, []))]
    while stack:
        joint = next(stack[-1], None)
        if joint is None:
            stack.pop()
            continue
        order.append(joint)
        stack.append(iter(by_parent.get(joint.child, [])))
    return order


def _mimic_resolution(robot) -> Dict[str, Tuple[str, float, float]]:
    """Follower → (independent master, multiplier, offset), composing chains of mimics."""
    direct = {j.name: (j.mimic.joint,
                       float(j.mimic.multiplier if j.mimic.multiplier is not None else 1.0),
                       float(j.mimic.offset if j.mimic.offset is not None else 0.0))
              for j in robot.joints if j.mimic is not None}
    resolved = {}
    for name in direct:  # urdf_checks left no cycle and no dangling master
        master, mult, off = name, 1.0, 0.0
        while master in direct:
            nxt, m, o = direct[master]
            mult, off = mult * m, mult * o + off
            master = nxt
        resolved[name] = (master, mult, off)
    return resolved


def _warn(report: Report, followers, types: Dict[str, str]) -> None:
    """Issue the report's warning lines: notes, empty ranges, defects (one line each)."""
    lines = list(report.notes)
    for name, why in report.empty_ranges.items():
        if name not in report.joint_defects:
            lines.append(f"joint '{name}': {why}: empty range, "
                         + ('it follows its <mimic> master and does not limit it'
                            if name in followers else 'the joint acts as a fixed joint'))
    for name, defect in report.joint_defects.items():
        how = 'held at its origin' + (', left out of q' if types.get(name) in MOVING_TYPES
                                      else '')
        if name in report.bad_origins:
            how = 'no pose for the links below it'
        lines.append(f"joint '{name}': {defect}; disabled ({how}): a chain, task or trajectory "
                     'that uses it raises this error')
    for name, defect in report.link_defects.items():
        lines.append(f"link '{name}': {defect}; its <inertial> is ignored: a centre-of-mass "
                     'task that counts it raises this error')
    for line in lines:
        warnings.warn(line, URDFWarning, stacklevel=4)


def load_urdf(source: Source, base_link: Optional[str] = None) -> Linkage:
    """
    Load a robot description into a :class:`Linkage`.

    What loads: every description urdfdom loads whose joints form one tree. Elements kinematics
    never reads (visual, collision, material, texture, transmission of any style, gazebo,
    ros2_control, sensor, calibration, dynamics, unknown extension elements) are not validated;
    unknown ones are named in one warning line.

    Defects of one element — a joint's type, origin, axis, limits or ``<mimic>`` (unknown or
    non-moving master, cycle), a link's ``<inertial>`` — do not stop loading: a
    :class:`URDFWarning` line names the element and the defect, the joint is held at its origin
    (NaN poses below it when the origin itself is broken) and left out of q, and the named
    error is raised when a chain (:meth:`Linkage.chain`, FK, Jacobian, IK), a task or a
    trajectory uses it (:attr:`Linkage.joint_defects`, :attr:`Linkage.link_defects`).

    Degenerate numbers (:mod:`pdls_ik.model.urdf_rules`, one warning line per rule):

    - position bounds with ``|x| >= 1e6`` (±1e16, ±1e300, ±DBL_MAX) are unlimited (±inf);
    - a velocity or effort limit of 0 or below DBL_EPSILON (denormals) means no limit (inf),
      as urdfdom's default and MoveIt; a negative one is read as its magnitude;
    - an axis is normalized after scaling by its largest component (no overflow for 1e200 or
      DBL_MAX, no underflow for denormals); largest component below 1e-9: a zero axis, a defect;
    - ``<mimic>`` on a fixed, floating or planar joint is ignored;
    - a mimic follower's own range and velocity limit constrain its master: the master's
      ``lower``/``upper``/``velocity_limits`` (and soft limits) are its own intersected with
      the follower's mapped back through ``θ_f = m · q + o``; a follower whose own range is
      empty (bounds omitted), or whose mapped range would leave the master no motion (a sign
      error), does not constrain position (the latter with a warning line).

    :param source: path of a .urdf file (str, bytes or Path), the XML text itself (str or
        bytes, a byte-order mark allowed; bytes and files follow their declared encoding, e.g.
        ISO-8859-1), or the contents of a ``robot_description`` parameter.
    :param base_link: default base frame of FK/Jacobian queries; the root link if None.

    :return: The linkage: active joints (revolute, continuous, prismatic without ``<mimic>``)
        are the variables of q, in depth-first tree order from the root (children in document
        order); mimic joints follow θ = multiplier · q_master + offset.

    :raises URDFError: empty or malformed XML (line and column), bytes not valid in the
        declared encoding (naming the byte's position), unexpanded xacro, no link, several
        roots, a cycle, a file that cannot be read.
    :raises JointError: a joint named twice, or whose parent/child link is missing.
    :raises LinkError: a link named twice or with two parents; unknown ``base_link``.

    :warns URDFWarning: one line per defect, per rule applied, for an empty joint range, and
        for a floating or planar joint (held at its origin, not a variable).
    """
    data, label = read_source(source)
    root = parse_xml(data, label)
    report = check_robot(root)
    linkage = _build(_parse_with_urdf_parser_py(kinematic_copy(root, report), label), report,
                     base_link)
    # the description itself, for what reads more of it (the collision model's <collision>)
    linkage.urdf_text = data
    linkage.urdf_path = Path(os.fsdecode(source)) if label.startswith('URDF file') else None
    return linkage


def _build(robot, report: Report, base_link: Optional[str]) -> Linkage:
    link_names = [link.name for link in robot.links]
    link_index = {name: i for i, name in enumerate(link_names)}
    mimics = _mimic_resolution(robot)
    tree_order = _topological_joints(robot, report.root_link)
    active = [j for j in tree_order if j.type in MOVING_TYPES and j.name not in mimics]
    limits = Limits.from_joints(active)
    limits, notes = limits.with_followers(active, [j for j in robot.joints if j.name in mimics],
                                          mimics)
    report.notes.extend(notes)
    unlimited = [f"'{j.name}'" for j, v in zip(active, limits.velocity) if np.isinf(v)]
    if unlimited:
        report.notes.append(NO_VELOCITY_NOTE + ', '.join(unlimited))
    types = {j.name: j.type for j in robot.joints}
    types.update(report.joint_types)
    _warn(report, mimics, types)
    q_index = {j.name: i for i, j in enumerate(active)}
    joints: List[Joint] = []
    for uj in tree_order:
        origin = uj.origin
        T = pose_matrix(origin.xyz or [0, 0, 0], origin.rpy or [0, 0, 0]) if origin else np.eye(4)
        defect = report.joint_defects.get(uj.name)
        if uj.name in report.bad_origins:
            T = np.full((4, 4), np.nan)
        axis = np.zeros(3)
        master, mult, off = uj.name, 1.0, 0.0
        moving = uj.type in MOVING_TYPES and not defect
        if moving or uj.type == 'planar':
            axis = unit_axis(uj.axis if uj.axis is not None else [1.0, 0.0, 0.0])
            master, mult, off = mimics.get(uj.name, (uj.name, 1.0, 0.0))
        if uj.type in PASSIVE_TYPES:
            warnings.warn(f"joint '{uj.name}' is {uj.type}: not supported as a variable; it is "
                          'held at its origin and chains through it are rejected',
                          URDFWarning, stacklevel=3)
        jtype = types[uj.name] if types[uj.name] in JOINT_TYPES else 'fixed'
        joints.append(Joint(name=uj.name, type=jtype, parent=link_index[uj.parent],
                            child=link_index[uj.child], origin=T, axis=axis,
                            index=q_index.get(master, -1) if moving else -1, multiplier=mult,
                            offset=off, mimic=master if uj.name in mimics else None,
                            defect=defect))
    inertials = {link.name: _inertial(link) for link in robot.links if link.inertial is not None}
    linkage = Linkage(name=robot.name, link_names=link_names, root_link=report.root_link,
                      joints=joints, joint_names=[j.name for j in active],
                      joint_types=[j.type for j in active], limits=limits,
                      inertials=inertials, base_link=base_link,
                      joint_defects=report.joint_defects, link_defects=report.link_defects)
    return linkage
