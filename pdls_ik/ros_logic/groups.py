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
The planning groups a node answers for: the SRDF's groups, and its configured chain.

The configured chain (``base_link`` to ``tip_link``) is always the group named "" (a request
without ``group_name``); without an SRDF it is the only group. With an SRDF
(``robot_description_semantic``) every SRDF group is resolved against the robot when the SRDF
arrives (:meth:`pdls_ik.model.srdf.SRDF.resolve`); a group that does not fit the robot is kept
out, its reason listed in :attr:`Groups.problems` and given to a request that names it. The
SRDF's fixed frame (``virtual_joint`` ``parent_frame``, e.g. "world") is the model frame: a
goal or an FK answer in it is in the root link (a floating or planar virtual joint is taken at
its origin: the node's model has a fixed root).
"""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np
from pdls_ik.model.srdf import ResolvedGroup, SRDF, SRDFError
from pdls_ik.msgs.moveit import ErrorCode, RequestError

#: name of the node's configured chain among the groups
CONFIGURED_GROUP = ''


def chain_group(linkage, base_link: str, *tip_links: str) -> ResolvedGroup:
    """
    Return the group of the joints on the paths from ``base_link`` to each of ``tip_links``.

    Its default tip (``tip_link``) is the first of ``tip_links``; its ``chain_tips`` all of
    them, in order.

    :raises LinkError: unknown link.
    """
    chains = [linkage.chain(tip, base_link) for tip in tip_links]
    moving = np.zeros(linkage.n, dtype=bool)
    for chain in chains:
        moving |= np.any(chain.select != 0.0, axis=0)
    variables = np.flatnonzero(moving)
    records = sorted(set().union(*(chain.path_joints for chain in chains)))
    links = [linkage.link_names[linkage.joints[k].child] for k in records]
    return ResolvedGroup(
        name=CONFIGURED_GROUP, joint_names=tuple(linkage.joints[k].name for k in records),
        variables=variables.astype(np.int64),
        variable_names=tuple(linkage.joint_names[i] for i in variables),
        link_names=tuple(links), tip_link=tip_links[0], base_link=base_link,
        chain_tips=tuple(dict.fromkeys(tip_links)))


class Groups:
    """
    Group name -> :class:`~pdls_ik.model.srdf.ResolvedGroup` of one robot (and SRDF).

    :param robot: the node's :class:`~pdls_ik.ros_logic.robot.Robot`.
    :param srdf: the parsed SRDF, or None.

    :ivar problems: SRDF group name -> why it does not fit the robot.
    :ivar model_frame: the frame "" stands for in answers (SRDF virtual joint parent frame,
        else the root link).
    :ivar frame_aliases: frame name -> the link it stands for (the SRDF virtual joints').
    """

    def __init__(self, robot, srdf: Optional[SRDF] = None):
        self.robot, self.srdf = robot, srdf
        linkage = robot.linkage
        self._groups: Dict[str, ResolvedGroup] = {
            CONFIGURED_GROUP: chain_group(linkage, robot.base_link, robot.tip_link)}
        self.problems: Dict[str, str] = {}
        self.frame_aliases: Dict[str, str] = {}
        self.model_frame = linkage.root_link
        if srdf is None:
            return
        for name in srdf.groups:
            try:
                self._groups[name] = srdf.resolve(linkage, name)
            except SRDFError as exc:
                self.problems[name] = str(exc)
        for joint in srdf.virtual_joints:
            if joint.child_link in linkage.link_names:
                self.frame_aliases[joint.parent_frame] = joint.child_link
                if joint.child_link == linkage.root_link:
                    self.model_frame = joint.parent_frame

    @property
    def names(self) -> List[str]:
        """Names of the groups that can be asked for ("" first: the configured chain)."""
        return list(self._groups)

    def link_of_frame(self, frame: str) -> str:
        """Return the link a frame name stands for ("" and the model frame: the root link)."""
        frame = frame.lstrip('/')
        if frame in ('', self.model_frame):
            return self.robot.linkage.root_link
        return self.frame_aliases.get(frame, frame)

    def get(self, name: str) -> ResolvedGroup:
        """
        Return group ``name``.

        :raises RequestError: INVALID_GROUP_NAME (MoveIt's -15) naming the group, with the
            known groups, or why the SRDF's group does not fit the robot.
        """
        group = self._groups.get(name)
        if group is not None:
            return group
        if name in self.problems:
            reason = f"group_name '{name}': {self.problems[name]}"
        else:
            known = ', '.join(repr(n) for n in self._groups)
            source = 'the SRDF' if self.srdf is not None else \
                'no SRDF given (robot_description_semantic): only the configured chain'
            reason = f"group_name '{name}': unknown group ({source}; groups: {known})"
        raise RequestError(ErrorCode.INVALID_GROUP_NAME, reason)
