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

The XML is validated by :mod:`pdls_ik.model.urdf_checks`, parsed by urdf_parser_py (urdfdom_py,
whose console warnings are captured and turned into our errors) and resolved into a tree of
:class:`~pdls_ik.model.joints.Joint` records in topological order (parents before children).
"""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union
import warnings

import numpy as np
from pdls_ik.errors import JointError, URDFError
from pdls_ik.model.joints import Inertial, Joint, PASSIVE_TYPES, pose_matrix
from pdls_ik.model.linkage import Limits, Linkage
from pdls_ik.model.urdf_checks import check_robot, parse_xml, URDFWarning

Source = Union[str, bytes, os.PathLike]


def read_source(source: Source) -> Tuple[str, str]:
    """
    Return (XML text, label) for a file path, an XML string or robot_description contents.

    A ``str`` whose first non-blank character is ``<`` is XML; any other ``str`` is a path.

    :raises URDFError: empty string or file; a file that cannot be read (missing, a folder, no
        permission, not UTF-8), naming the path.
    """
    if isinstance(source, bytes):
        source = source.decode('utf-8')
    if isinstance(source, str) and (source.lstrip().startswith('<') or not source.strip()):
        return source.lstrip(), 'URDF string'  # launch-generated parameters may start blank
    path = Path(source)
    try:
        return path.read_text(encoding='utf-8'), f"URDF file '{path}'"
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        hint = '' if path.suffix or path.parent != Path('.') else \
            " (a URDF given as text must start with '<')"
        raise URDFError(f"URDF file '{path}': cannot read it: {reason}{hint}") from None


def _parse_with_urdf_parser_py(text: str, label: str):
    from urdf_parser_py.urdf import URDF
    from urdf_parser_py.xml_reflection import core

    messages: List[str] = []
    previous = core.on_error
    core.on_error = messages.append  # urdf_parser_py prints unknown tags etc. to stderr otherwise
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            robot = URDF.from_xml_string(text.encode('utf-8'))
    except Exception as exc:  # urdf_parser_py raises ParseError, AssertionError, ValueError...
        raise URDFError(f'{label}: urdf_parser_py cannot parse it: {exc}') from None
    finally:
        core.on_error = previous
    return robot


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
    for name in direct:
        master, mult, off, seen = name, 1.0, 0.0, [name]
        while master in direct:
            nxt, m, o = direct[master]
            mult, off = mult * m, mult * o + off
            master = nxt
            if master in seen:
                raise JointError(name, f"<mimic> joints form a cycle: {' -> '.join(seen)}")
            seen.append(master)
        resolved[name] = (master, mult, off)
    return resolved


def load_urdf(source: Source, base_link: Optional[str] = None) -> Linkage:
    """
    Load a robot description into a :class:`Linkage`.

    :param source: path of a .urdf file (str or Path), the XML text itself, or the contents of a
        ``robot_description`` parameter.
    :param base_link: default base frame of FK/Jacobian queries; the root link if None.

    :return: The linkage: active joints (revolute, continuous, prismatic without ``<mimic>``)
        are the variables of q, in depth-first tree order from the root (children in document
        order); mimic joints follow θ = multiplier · q_master + offset.

    :raises URDFError: empty or malformed XML, unexpanded xacro, several roots, a cycle, a file
        that cannot be read.
    :raises JointError: bad type, axis, limits, mimic or link reference, naming the joint.
    :raises LinkError: a link with two parents, bad inertial, unknown ``base_link``.

    :warns URDFWarning: a revolute/prismatic joint with an empty range (lower = upper), a
        floating or planar joint (held at its origin, not a variable).
    """
    text, label = read_source(source)
    root_link = check_robot(parse_xml(text, label))
    robot = _parse_with_urdf_parser_py(text, label)

    link_names = [link.name for link in robot.links]
    link_index = {name: i for i, name in enumerate(link_names)}
    mimics = _mimic_resolution(robot)
    tree_order = _topological_joints(robot, root_link)
    active = [j for j in tree_order
              if j.type in ('revolute', 'continuous', 'prismatic') and j.name not in mimics]
    q_index = {j.name: i for i, j in enumerate(active)}

    joints: List[Joint] = []
    for uj in tree_order:
        origin = uj.origin
        T = pose_matrix(origin.xyz or [0, 0, 0], origin.rpy or [0, 0, 0]) if origin else np.eye(4)
        axis = np.zeros(3)
        master, mult, off = uj.name, 1.0, 0.0
        if uj.type in ('revolute', 'continuous', 'prismatic', 'planar'):
            axis = np.array(uj.axis if uj.axis is not None else [1.0, 0.0, 0.0], dtype=float)
            axis /= np.linalg.norm(axis)
            master, mult, off = mimics.get(uj.name, (uj.name, 1.0, 0.0))
        if uj.type in PASSIVE_TYPES:
            warnings.warn(f"joint '{uj.name}' is {uj.type}: not supported as a variable; it is "
                          'held at its origin and chains through it are rejected',
                          URDFWarning, stacklevel=2)
        joints.append(Joint(name=uj.name, type=uj.type, parent=link_index[uj.parent],
                            child=link_index[uj.child], origin=T, axis=axis,
                            index=q_index.get(master, -1), multiplier=mult, offset=off,
                            mimic=master if uj.name in mimics else None))

    limits = Limits.from_joints(active)
    inertials = {link.name: _inertial(link) for link in robot.links if link.inertial is not None}
    linkage = Linkage(name=robot.name, link_names=link_names, root_link=root_link,
                      joints=joints, joint_names=[j.name for j in active],
                      joint_types=[j.type for j in active], limits=limits,
                      inertials=inertials, base_link=base_link)
    # the description itself, for what reads more of it (the collision model's <collision>)
    linkage.urdf_text = text
    linkage.urdf_path = Path(source) if label.startswith('URDF file') else None
    return linkage
