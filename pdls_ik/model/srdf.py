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
SRDF (MoveIt's Semantic Robot Description Format): planning groups, group states, collisions.

No maintained SRDF parser is on PyPI (``srdfdom``'s Python module ships with ROS only), so this is
a small strict reader on the standard library's expat: every error names the element, the
attribute and the line. It reads what MoveIt's ``srdfdom`` reads: ``group`` (``joint``, ``link``,
``chain``, ``group`` members), ``group_state``, ``virtual_joint``, ``end_effector``,
``passive_joint``, ``disable_collisions`` (and ``disable_default_collisions``); other elements
(``link_sphere_approximation``, Pinocchio's ``rotor_params``...) are skipped, as srdfdom does.

Groups are resolved against a :class:`~pdls_ik.model.Linkage` as MoveIt's ``RobotModel`` builds a
``JointModelGroup``: a ``joint`` member adds that joint; a ``link`` member adds the link's parent
joint; a ``chain`` adds every joint on the path from ``base_link`` down to ``tip_link``; a
``group`` member adds the joints of that group (recursively). The group's variables are its
joints that are variables of q (fixed, mimic and passive joints excluded); its links are the child
links of its joints in model order; its default tip is the last of those links (MoveIt's
``KinematicsPluginLoader::chooseTipFrames``) and its base the parent link of the first one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple, Union
import warnings
from xml.parsers import expat

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import JointError, LinkError, URDFError


class SRDFError(URDFError):
    """An SRDF cannot be read or does not fit the robot; the message names element and line."""


class SRDFWarning(UserWarning):
    """An SRDF element that refers to something undeclared: left out, the rest is used."""


@dataclass(frozen=True)
class _Element:
    tag: str
    attrs: Dict[str, str]
    line: int
    children: List['_Element'] = field(default_factory=list)

    def get(self, name: str, what: str) -> str:
        value = self.attrs.get(name, '').strip()
        if not value:
            raise SRDFError(f"line {self.line}: <{self.tag}> of {what} needs a '{name}' "
                            f'attribute')
        return value


@dataclass(frozen=True)
class Chain:
    """A ``<chain base_link tip_link/>`` member of a group (line: where it is declared)."""

    base_link: str
    tip_link: str
    line: int = 0


@dataclass(frozen=True)
class Group:
    """
    A planning group as declared (unresolved): its members, in document order.

    :ivar name: group name.
    :ivar joints, links: names of the ``joint`` and ``link`` members.
    :ivar chains: the ``chain`` members.
    :ivar subgroups: names of the ``group`` members.
    :ivar line: line of the ``<group>`` element.
    """

    name: str
    joints: Tuple[str, ...] = ()
    links: Tuple[str, ...] = ()
    chains: Tuple[Chain, ...] = ()
    subgroups: Tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class GroupState:
    """
    A named configuration of a group.

    :ivar values: joint name -> values (one value, or several for a multi-variable joint, e.g.
        Pinocchio's 7-value free-flyer ``root_joint``).
    """

    name: str
    group: str
    values: Dict[str, Tuple[float, ...]]
    line: int = 0


@dataclass(frozen=True)
class VirtualJoint:
    """``<virtual_joint>``: how the robot's root link is attached to a fixed frame."""

    name: str
    type: str  # noqa: A003 (the SRDF attribute name)
    parent_frame: str
    child_link: str


@dataclass(frozen=True)
class EndEffector:
    """``<end_effector>``: a group attached to ``parent_link`` (of ``parent_group``, if given)."""

    name: str
    group: str
    parent_link: str
    parent_group: str = ''


@dataclass(frozen=True)
class DisabledCollision:
    """A ``<disable_collisions>`` pair and its reason ("Adjacent", "Never"...)."""

    link1: str
    link2: str
    reason: str = ''


@dataclass(frozen=True)
class ResolvedGroup:
    """
    A group resolved against a linkage (see the module docstring for MoveIt's rules).

    :ivar name: group name.
    :ivar joint_names: every joint of the group (fixed ones included), in model order.
    :ivar variables: (k,) int column indices in q of the group's variables (model order).
    :ivar variable_names: the names of those variables.
    :ivar link_names: child links of the group's joints, in model order.
    :ivar tip_link: the default tip (last of ``link_names``).
    :ivar base_link: parent link of the group's first joint.
    :ivar chain_tips: the ``tip_link`` of the group's chains (subgroups included), in order.
    """

    name: str
    joint_names: Tuple[str, ...]
    variables: NDArray[np.int64]
    variable_names: Tuple[str, ...]
    link_names: Tuple[str, ...]
    tip_link: str
    base_link: str
    chain_tips: Tuple[str, ...] = ()

    def moves(self, linkage, link: str, base: Optional[str] = None) -> bool:
        """Tell whether a variable of the group moves ``link`` relative to ``base``."""
        select = linkage.chain(link, base).select
        return bool(np.any(select[:, self.variables] != 0.0))


@dataclass(frozen=True)
class SRDF:
    """
    A parsed SRDF.

    :ivar name: the robot name of the ``<robot>`` element.
    :ivar groups: group name -> :class:`Group`, in document order.
    :ivar group_states: (group name, state name) -> :class:`GroupState`.
    :ivar virtual_joints, end_effectors: as declared.
    :ivar passive_joints: names of the ``<passive_joint>`` elements.
    :ivar disabled_collisions: the ``<disable_collisions>`` pairs, as declared.
    :ivar disabled_default_collisions: links whose default collisions are disabled
        (``<disable_default_collisions link=...>``).
    """

    name: str
    groups: Dict[str, Group] = field(default_factory=dict)
    group_states: Dict[Tuple[str, str], GroupState] = field(default_factory=dict)
    virtual_joints: Tuple[VirtualJoint, ...] = ()
    end_effectors: Tuple[EndEffector, ...] = ()
    passive_joints: Tuple[str, ...] = ()
    disabled_collisions: Tuple[DisabledCollision, ...] = ()
    disabled_default_collisions: Tuple[str, ...] = ()

    def disabled_collision_pairs(self) -> FrozenSet[FrozenSet[str]]:
        """Return the unordered link pairs whose collisions are never checked (self-collision)."""
        return frozenset(frozenset((c.link1, c.link2)) for c in self.disabled_collisions)

    def group_state(self, name: str, group: Optional[str] = None) -> GroupState:
        """
        Return the group state ``name`` (of ``group``, or of any group when unambiguous).

        :raises SRDFError: no such state, or several groups have one of that name.
        """
        found = [s for (g, n), s in self.group_states.items()
                 if n == name and (group is None or g == group)]
        if len(found) != 1:
            known = ', '.join(f'{g}/{n}' for g, n in self.group_states) or 'none'
            why = 'unknown' if not found else 'ambiguous (give the group)'
            raise SRDFError(f"group_state '{name}': {why} (states: {known})")
        return found[0]

    def resolve(self, linkage, name: str) -> ResolvedGroup:
        """
        Resolve group ``name`` against ``linkage`` (MoveIt's rules, module docstring).

        :raises SRDFError: unknown group, a member naming a joint or link the robot lacks, a
            chain whose base is not an ancestor of its tip, a cycle of subgroups, or a group
            without variables; the message names the group, the member and its line.
        """
        joints: Dict[int, None] = {}
        chain_tips: List[str] = []
        self._collect(linkage, name, joints, chain_tips, ())
        order = sorted(joints)
        records = [linkage.joints[k] for k in order]
        passive = set(self.passive_joints)
        variables = [j.index for j in records
                     if j.index >= 0 and not j.mimic and j.name not in passive]
        variables = sorted(set(variables))
        if not variables:
            raise SRDFError(f"group '{name}' (line {self.groups[name].line}): no movable joint "
                            f"of robot '{linkage.name}'")
        links = [linkage.link_names[j.child] for j in records]
        return ResolvedGroup(
            name=name, joint_names=tuple(j.name for j in records),
            variables=np.asarray(variables, dtype=np.int64),
            variable_names=tuple(linkage.joint_names[i] for i in variables),
            link_names=tuple(links), tip_link=links[-1],
            base_link=linkage.link_names[records[0].parent], chain_tips=tuple(chain_tips))

    def _collect(self, linkage, name: str, joints: Dict[int, None], chain_tips: List[str],
                 stack: Tuple[str, ...]) -> None:
        if name not in self.groups:
            raise SRDFError(f"group '{name}': unknown (groups: "
                            f"{', '.join(self.groups) or 'none'})")
        if name in stack:
            raise SRDFError(f"group '{name}': subgroup cycle {' -> '.join(stack + (name,))}")
        group = self.groups[name]
        index = {j.name: k for k, j in enumerate(linkage.joints)}
        parent_joint = {j.child: k for k, j in enumerate(linkage.joints)}
        where = f"group '{name}' (line {group.line})"
        for joint in group.joints:
            if joint not in index:
                raise SRDFError(f"{where}: joint '{joint}' is not a joint of robot "
                                f"'{linkage.name}'")
            joints[index[joint]] = None
        for link in group.links:
            k = _link(linkage, link, where)
            if k in parent_joint:
                joints[parent_joint[k]] = None
        for chain in group.chains:
            base = _link(linkage, chain.base_link, f'{where}, chain line {chain.line}')
            tip = _link(linkage, chain.tip_link, f'{where}, chain line {chain.line}')
            path, link = [], tip
            while link != base:
                if link not in parent_joint:
                    raise SRDFError(f'{where}, chain line {chain.line}: base_link '
                                    f"'{chain.base_link}' is not an ancestor of tip_link "
                                    f"'{chain.tip_link}'")
                path.append(parent_joint[link])
                link = linkage.joints[parent_joint[link]].parent
            joints.update(dict.fromkeys(path))
            chain_tips.append(chain.tip_link)
        for sub in group.subgroups:
            self._collect(linkage, sub, joints, chain_tips, stack + (name,))

    def state_positions(self, linkage, state: GroupState,
                        fallback: Sequence[float]) -> Tuple[NDArray[np.float64], List[str]]:
        """
        Joint positions (n,) of a group state: ``fallback`` with the state's values put in.

        :return: (q, names of the state's joints that are not variables of q, e.g. a
            free-flyer ``root_joint`` or a fixed joint: not applied).
        :raises SRDFError: a one-variable joint given several values, or a value out of limits.
        """
        q = np.array(fallback, dtype=float)
        skipped = []
        for joint, values in state.values.items():
            try:
                i = linkage.joint_index(joint)
            except JointError:
                skipped.append(joint)
                continue
            if len(values) != 1:
                raise SRDFError(f"group_state '{state.name}' (line {state.line}): joint "
                                f"'{joint}' has {len(values)} values, expected 1")
            q[i] = values[0]
        return q, skipped


def _link(linkage, name: str, where: str) -> int:
    try:
        return linkage.link_index(name)
    except LinkError:
        raise SRDFError(f"{where}: link '{name}' is not a link of robot "
                        f"'{linkage.name}'") from None


def _parse_tree(text: str) -> _Element:
    parser = expat.ParserCreate()
    root: List[_Element] = []
    stack: List[_Element] = []

    def start(tag, attrs):
        element = _Element(tag, dict(attrs), parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(element)
        stack.append(element)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise SRDFError(f'SRDF is not well-formed XML: line {exc.lineno}, column '
                        f'{exc.offset}: {expat.ErrorString(exc.code)}') from None
    return root[0]


def _float_values(element: _Element, what: str) -> Tuple[float, ...]:
    text = element.get('value', what)
    try:
        values = tuple(float(v) for v in text.split())
    except ValueError:
        raise SRDFError(f"line {element.line}: {what}: value '{text}' is not a list of "
                        f'numbers') from None
    if not all(np.isfinite(values)):
        raise SRDFError(f"line {element.line}: {what}: value '{text}' is not finite")
    return values


def _group(element: _Element) -> Group:
    name = element.get('name', 'a group')
    what = f"group '{name}'"
    members: Dict[str, list] = {'joint': [], 'link': [], 'chain': [], 'group': []}
    for child in element.children:
        if child.tag not in members:
            raise SRDFError(f'line {child.line}: {what}: unknown member <{child.tag}> '
                            f'(expected joint, link, chain or group)')
        if child.tag == 'chain':
            members['chain'].append(Chain(child.get('base_link', what),
                                          child.get('tip_link', what), child.line))
        else:
            members[child.tag].append(child.get('name', what))
    return Group(name, tuple(members['joint']), tuple(members['link']),
                 tuple(members['chain']), tuple(members['group']), element.line)


def _group_state(element: _Element) -> GroupState:
    name = element.get('name', 'a group_state')
    group = element.get('group', f"group_state '{name}'")
    values: Dict[str, Tuple[float, ...]] = {}
    for child in element.children:
        if child.tag != 'joint':
            raise SRDFError(f"line {child.line}: group_state '{name}': unexpected "
                            f'<{child.tag}> (expected joint)')
        joint = child.get('name', f"group_state '{name}'")
        if joint in values:
            raise SRDFError(f"line {child.line}: group_state '{name}': joint '{joint}' given "
                            f'twice')
        values[joint] = _float_values(child, f"group_state '{name}' joint '{joint}'")
    return GroupState(name, group, values, element.line)


def parse_srdf(text: str) -> SRDF:
    """
    Parse SRDF XML text.

    :raises SRDFError: not well-formed XML, a root other than ``<robot>``, a missing attribute,
        a malformed member, a duplicate group (each naming the element and its line).
    :warns SRDFWarning: a group whose subgroup is not declared, a group_state of an undeclared
        group: each left out, named with its line.
    """
    root = _parse_tree(text)
    if root.tag != 'robot':
        raise SRDFError(f'line {root.line}: the SRDF root element is <{root.tag}>, expected '
                        f'<robot>')
    groups: Dict[str, Group] = {}
    states: Dict[Tuple[str, str], GroupState] = {}
    virtual, effectors, passive, disabled, default_off = [], [], [], [], []
    for child in root.children:
        if child.tag == 'group':
            group = _group(child)
            if group.name in groups:
                raise SRDFError(f"line {child.line}: group '{group.name}' declared twice "
                                f'(first at line {groups[group.name].line})')
            groups[group.name] = group
        elif child.tag == 'group_state':
            state = _group_state(child)
            states[(state.group, state.name)] = state
        elif child.tag == 'virtual_joint':
            name = child.get('name', 'a virtual_joint')
            what = f"virtual_joint '{name}'"
            kind = child.get('type', what)
            if kind not in ('fixed', 'floating', 'planar'):
                raise SRDFError(f"line {child.line}: {what}: type '{kind}' (expected fixed, "
                                f'floating or planar)')
            virtual.append(VirtualJoint(name, kind, child.get('parent_frame', what),
                                        child.get('child_link', what)))
        elif child.tag == 'end_effector':
            name = child.get('name', 'an end_effector')
            what = f"end_effector '{name}'"
            effectors.append(EndEffector(name, child.get('group', what),
                                         child.get('parent_link', what),
                                         child.attrs.get('parent_group', '')))
        elif child.tag == 'passive_joint':
            passive.append(child.get('name', 'a passive_joint'))
        elif child.tag == 'disable_collisions':
            disabled.append(DisabledCollision(child.get('link1', 'disable_collisions'),
                                              child.get('link2', 'disable_collisions'),
                                              child.attrs.get('reason', '')))
        elif child.tag == 'disable_default_collisions':
            default_off.append(child.get('link', 'disable_default_collisions'))
    # a reference to an undeclared group spoils that element alone: warned and left out (as
    # srdfdom logs and skips it), so that the rest of the file stays usable
    for name, group in list(groups.items()):
        missing = [sub for sub in group.subgroups if sub not in groups]
        if missing:
            warnings.warn(f"SRDF line {group.line}: group '{name}': subgroup '{missing[0]}' is "
                          f'not declared; the group is left out', SRDFWarning, stacklevel=2)
            del groups[name]
    for (group, name), state in list(states.items()):
        if group not in groups:
            warnings.warn(f"SRDF line {state.line}: group_state '{name}': group '{group}' is "
                          f'not declared; the state is left out', SRDFWarning, stacklevel=2)
            del states[(group, name)]
    return SRDF(root.attrs.get('name', ''), groups, states, tuple(virtual), tuple(effectors),
                tuple(passive), tuple(disabled), tuple(default_off))


def load_srdf(source: Union[str, Path]) -> SRDF:
    """
    Read an SRDF from XML text (as ``robot_description_semantic`` carries it) or a file path.

    :raises SRDFError: see :func:`parse_srdf`; also a path that cannot be read.
    """
    text = str(source)
    if isinstance(source, Path) or not text.lstrip().startswith('<'):
        try:
            text = Path(text).read_text()
        except OSError as exc:
            raise SRDFError(f'SRDF is neither XML text nor a readable file: '
                            f'{exc.strerror or exc}: {text[:80]!r}') from None
    return parse_srdf(text)
