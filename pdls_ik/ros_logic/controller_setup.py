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
What a ros2_control controller needs of the node and of the robot description (ROS-free).

:func:`controller_joints`: the joints the node's messages list (the controller's joints).

:func:`with_mock_hardware` (used by ``launch/controller.launch.py``) adds a ``<ros2_control>``
tag with ``mock_components/GenericSystem`` to a robot description: one position command
interface and position and velocity state interfaces per commanded joint, each starting at
``initial`` (else 0), as ros2_control's demos do.
"""
from __future__ import annotations

from typing import List, Mapping, Optional, Sequence
import xml.etree.ElementTree as ElementTree

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import ConfigError, URDFError

#: the tag's name and plugin
SYSTEM_NAME = 'pdls_ik_mock_system'
MOCK_PLUGIN = 'mock_components/GenericSystem'


def controller_joints(robot, solver, names: Sequence[str] = ()
                      ) -> Optional[NDArray[np.int64]]:
    """
    Model indices of the joints a controller owns, in the controller's order.

    With ``solver`` None and no names, only checks (returns None).

    :param names: the ``controller_joints`` parameter; empty: the joints the solver moves (the
        chain's joints and those of its extra tasks), in model order: no mimic followers, no
        joints of other branches.
    :raises ConfigError: a name that is not an active joint of the model (a mimic follower,
        a fixed or unknown joint), or given twice.
    """
    if not names:
        return None if solver is None else np.flatnonzero(solver.free)
    index = {name: i for i, name in enumerate(robot.joint_names)}
    mimic = {j.name: j.mimic for j in getattr(robot.linkage, 'joints', [])
             if getattr(j, 'mimic', None)}
    out: List[int] = []
    for name in names:
        if name in mimic:
            raise ConfigError(f"parameter 'controller_joints': joint '{name}' mimics "
                              f"'{mimic[name]}' (a controller commands the master only)")
        if name not in index:
            raise ConfigError(f"parameter 'controller_joints': '{name}' is not a moving joint "
                              f"of robot '{robot.linkage.name}'")
        if index[name] in out:
            raise ConfigError(f"parameter 'controller_joints': '{name}' given twice")
        out.append(index[name])
    return np.array(out, dtype=int)


def with_mock_hardware(description: str, joints: Sequence[str],
                       initial: Optional[Mapping[str, float]] = None) -> str:
    """
    Return ``description`` (URDF XML) with a mock-hardware ``<ros2_control>`` tag for ``joints``.

    :param joints: joints of the controller (each a joint of the description).
    :param initial: joint -> initial position [rad or m]; 0 where not given.
    :raises URDFError: the text is not XML with a ``<robot>`` root, it holds a ``<ros2_control>``
        tag already, or a joint is not in it (naming the joint).
    """
    try:
        root = ElementTree.fromstring(description)
    except ElementTree.ParseError as exc:
        raise URDFError(f'robot description is not XML: {exc}') from None
    if root.tag != 'robot':
        raise URDFError(f'robot description: root element is <{root.tag}>, not <robot>')
    if root.find('ros2_control') is not None:
        raise URDFError('robot description has a <ros2_control> tag already: use it as is')
    known = {j.get('name') for j in root.findall('joint')}
    system = ElementTree.SubElement(root, 'ros2_control', name=SYSTEM_NAME, type='system')
    hardware = ElementTree.SubElement(system, 'hardware')
    ElementTree.SubElement(hardware, 'plugin').text = MOCK_PLUGIN
    for name in joints:
        if name not in known:
            raise URDFError(f"joint '{name}': not in the robot description")
        joint = ElementTree.SubElement(system, 'joint', name=name)
        ElementTree.SubElement(joint, 'command_interface', name='position')
        state = ElementTree.SubElement(joint, 'state_interface', name='position')
        value = float((initial or {}).get(name, 0.0))
        ElementTree.SubElement(state, 'param', name='initial_value').text = repr(value)
        ElementTree.SubElement(joint, 'state_interface', name='velocity')
    return ElementTree.tostring(root, encoding='unicode')
