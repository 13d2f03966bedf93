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
sensor_msgs JointState: build from joint vectors, match a received one to model joints.

A received JointState is matched by joint name: names unknown to the model are ignored (other
joints of the robot, grippers), model joints absent from the message are reported as missing.
``position`` must be as long as ``name``; ``velocity`` and ``effort`` may be empty or as long as
``name`` (the message's own contract); anything else is an InputError naming the array.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.msgs.message_types import MessageTypes, optional_floats
from pdls_ik.msgs.stamps import header, Stamp


def joint_state(types: MessageTypes, joint_names: Sequence[str], positions: Sequence[float],
                velocities: Optional[Sequence[float]] = None,
                efforts: Optional[Sequence[float]] = None, stamp: Stamp = 0.0,
                frame_id: str = '') -> Any:
    """
    sensor_msgs/JointState; positions (n,) in radians/metres, velocities (n,) or None.

    :raises InputError: an array whose length differs from ``joint_names``.
    """
    n = len(joint_names)
    for name, values in (('positions', positions), ('velocities', velocities),
                         ('efforts', efforts)):
        if values is not None and len(values) != n:
            raise InputError(f'joint_state {name}: {len(values)} values for {n} joint names')
    return types.JointState(header=header(types, stamp, frame_id),
                            name=[str(j) for j in joint_names],
                            position=types.floats(positions),
                            velocity=optional_floats(types, velocities),
                            effort=optional_floats(types, efforts))


@dataclass(frozen=True)
class JointMatch:
    """
    Joint positions of a message matched to the model's joint order.

    :ivar q: (n,) positions in model order; missing joints hold the fallback value (NaN when no
        fallback was given).
    :ivar found: (n,) bool, True where the message gave the joint.
    :ivar missing: model joints absent from the message.
    :ivar unknown: message joints unknown to the model (ignored).
    """

    q: NDArray[np.float64]
    found: NDArray[np.bool_]
    missing: List[str] = field(default_factory=list)
    unknown: List[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Tell whether every model joint was given."""
        return not self.missing


def match_joint_positions(names: Sequence[str], positions: Sequence[float],
                          joint_names: Sequence[str],
                          fallback: Optional[Sequence[float]] = None,
                          field_name: str = 'joint_state') -> JointMatch:
    """
    Match (name, position) pairs to ``joint_names`` (the model order).

    :param names: joint names of the message.
    :param positions: same length as ``names``.
    :param joint_names: model joint order, (n,).
    :param fallback: (n,) values for missing joints, or None (missing -> NaN).
    :param field_name: message name used in error texts.

    :raises InputError: length mismatch, a repeated name, or a NaN/inf position of a model joint.
    """
    names = [str(n) for n in names]
    positions = np.asarray(positions, dtype=float).reshape(-1)
    if len(positions) != len(names):
        raise InputError(f'{field_name}.position: {len(positions)} values for '
                         f'{len(names)} names')
    index = {name: i for i, name in enumerate(joint_names)}
    q = np.full(len(joint_names), np.nan)
    if fallback is not None:
        fallback = np.asarray(fallback, dtype=float).reshape(-1)
        if len(fallback) != len(joint_names):
            raise InputError(f'{field_name}: fallback has {len(fallback)} values for '
                             f'{len(joint_names)} joints')
        q[:] = fallback
    found = np.zeros(len(joint_names), dtype=bool)
    seen, unknown = set(), []
    for name, value in zip(names, positions):
        if name in seen:
            raise InputError(f"{field_name}.name: joint '{name}' appears twice")
        seen.add(name)
        if name not in index:
            unknown.append(name)
            continue
        if not np.isfinite(value):
            raise InputError(f"{field_name}.position: joint '{name}' is {value}")
        q[index[name]] = value
        found[index[name]] = True
    missing = [j for j, ok in zip(joint_names, found) if not ok]
    return JointMatch(q, found, missing, unknown)


def has_positions(msg: Any) -> bool:
    """
    Tell whether a sensor_msgs/JointState carries positions.

    Some drivers send velocities or efforts only (an empty ``position`` array): such a message
    says nothing about where the joints are and is skipped, not an error.
    """
    return not (len(msg.position) == 0 and
                (len(msg.velocity) > 0 or len(msg.effort) > 0))


def joint_state_to_q(msg: Any, joint_names: Sequence[str],
                     fallback: Optional[Sequence[float]] = None,
                     field_name: str = 'joint_states') -> JointMatch:
    """
    Match a sensor_msgs/JointState to the model joints (see :func:`match_joint_positions`).

    :raises InputError: the message has no joint names, ``position`` is not as long as ``name``,
        ``velocity``/``effort`` is neither empty nor as long as ``name`` (each naming the
        array), a repeated name, or a NaN/inf position of a model joint.
    """
    names = list(msg.name)
    if not names:
        raise InputError(f'{field_name}: message has no joint names')
    for array_name in ('velocity', 'effort'):
        length = len(getattr(msg, array_name))
        if length not in (0, len(names)):
            raise InputError(f'{field_name}.{array_name}: {length} values for '
                             f'{len(names)} names (must be 0 or {len(names)})')
    return match_joint_positions(names, list(msg.position), joint_names, fallback, field_name)
