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
Message-type providers: one builder code path for rclpy messages and rosbags messages.

Every builder in :mod:`pdls_ik.msgs` takes a :class:`MessageTypes` first. It resolves short names
(``types.PoseStamped``) to the message classes of one back end:

- :func:`rosbags_types` — dataclasses of a rosbags typestore (bag writing and CDR tests, no ROS);
- :func:`rclpy_types` — the generated rclpy classes of a sourced ROS 2 installation.

The two back ends differ in two field kinds, which the provider hides: ``byte`` fields (an ``int``
in rosbags, a length-1 ``bytes`` in rclpy) and unbounded ``float64[]`` sequences (a float64
``numpy.ndarray`` in rosbags, an ``array.array('d')`` in rclpy, which refuses ndarrays). Builders
pass every field as a keyword, since rosbags dataclasses have no defaults.
"""
from __future__ import annotations

import array
from importlib import import_module
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

import numpy as np

#: short name -> full ROS interface name
INTERFACES: Dict[str, str] = {
    'Time': 'builtin_interfaces/msg/Time',
    'Duration': 'builtin_interfaces/msg/Duration',
    'Header': 'std_msgs/msg/Header',
    'Point': 'geometry_msgs/msg/Point',
    'Quaternion': 'geometry_msgs/msg/Quaternion',
    'Pose': 'geometry_msgs/msg/Pose',
    'PoseStamped': 'geometry_msgs/msg/PoseStamped',
    'JointState': 'sensor_msgs/msg/JointState',
    'MultiDOFJointState': 'sensor_msgs/msg/MultiDOFJointState',
    'JointTrajectory': 'trajectory_msgs/msg/JointTrajectory',
    'JointTrajectoryPoint': 'trajectory_msgs/msg/JointTrajectoryPoint',
    'Vector3': 'geometry_msgs/msg/Vector3',
    'ColorRGBA': 'std_msgs/msg/ColorRGBA',
    'CompressedImage': 'sensor_msgs/msg/CompressedImage',
    'MeshFile': 'visualization_msgs/msg/MeshFile',
    'Marker': 'visualization_msgs/msg/Marker',
    'MarkerArray': 'visualization_msgs/msg/MarkerArray',
    'Float64MultiArray': 'std_msgs/msg/Float64MultiArray',
    'MultiArrayLayout': 'std_msgs/msg/MultiArrayLayout',
    'MultiArrayDimension': 'std_msgs/msg/MultiArrayDimension',
    'DiagnosticArray': 'diagnostic_msgs/msg/DiagnosticArray',
    'DiagnosticStatus': 'diagnostic_msgs/msg/DiagnosticStatus',
    'KeyValue': 'diagnostic_msgs/msg/KeyValue',
    'RobotState': 'moveit_msgs/msg/RobotState',
    'MoveItErrorCodes': 'moveit_msgs/msg/MoveItErrorCodes',
    'PositionIKRequest': 'moveit_msgs/msg/PositionIKRequest',
    'GetPositionIK_Request': 'moveit_msgs/srv/GetPositionIK_Request',
    'GetPositionIK_Response': 'moveit_msgs/srv/GetPositionIK_Response',
    'GetPositionFK_Request': 'moveit_msgs/srv/GetPositionFK_Request',
    'GetPositionFK_Response': 'moveit_msgs/srv/GetPositionFK_Response',
}


class MessageTypes:
    """
    Resolves short message names to the classes of one back end (lazily, cached).

    :ivar flavour: ``"rosbags"`` or ``"rclpy"``.
    :ivar byte: converts an int in [0, 255] to the back end's ``byte`` field value.
    :ivar floats: converts an iterable of floats to the back end's ``float64[]`` field value.

    :raises AttributeError: on access to a type the back end lacks (e.g. moveit_msgs not
        installed),
        naming the interface.
    """

    def __init__(self, flavour: str, resolve: Callable[[str], Any], byte: Callable[[int], Any],
                 floats: Callable[[Iterable[float]], Any]):
        self.flavour = flavour
        self._resolve = resolve
        self.byte = byte
        self.floats = floats
        self._cache: Dict[str, Any] = {}

    def __getattr__(self, short: str) -> Any:
        if short.startswith('_') or short not in INTERFACES:
            raise AttributeError(short)
        cache = self.__dict__['_cache']
        if short not in cache:
            full = INTERFACES[short]
            try:
                cache[short] = self._resolve(full)
            except (KeyError, ImportError, AttributeError) as exc:
                raise AttributeError(
                    f'message type {full} is not available in the {self.flavour} types '
                    f'({type(exc).__name__}: {exc})') from None
        return cache[short]

    def has(self, short: str) -> bool:
        """Tell whether the back end provides the message type ``short`` (e.g. "RobotState")."""
        try:
            getattr(self, short)
        except AttributeError:
            return False
        return True


def field_names(cls: Any) -> Tuple[str, ...]:
    """Field names of a message class of either back end, in definition order."""
    fields = getattr(cls, '__dataclass_fields__', None)
    if fields is not None:
        return tuple(fields)
    return tuple(cls.get_fields_and_field_types())


def byte_value(value: Any) -> int:
    """Read a ``byte`` field of either back end (int, or length-1 bytes) as an int."""
    if isinstance(value, (bytes, bytearray)):
        if len(value) != 1:
            raise ValueError(f'byte field holds {len(value)} bytes, expected 1')
        return value[0]
    return int(value)


def rosbags_types(typestore: Any = None) -> MessageTypes:
    """
    Return a provider over a rosbags typestore (default: ``Stores.ROS2_JAZZY``).

    moveit_msgs types are present only if registered in ``typestore`` (see
    :func:`register_interfaces`).
    """
    if typestore is None:
        from rosbags.typesys import Stores, get_typestore
        typestore = get_typestore(Stores.ROS2_JAZZY)
    return MessageTypes('rosbags', lambda full: typestore.types[full], int,
                        lambda values: np.asarray(list(values), dtype=np.float64))


def _rclpy_resolve(full: str) -> Any:
    package, kind, name = full.split('/')
    service, _, part = name.partition('_')
    module = import_module(f'{package}.{kind}')
    if kind == 'srv':
        return getattr(getattr(module, service), part)
    return getattr(module, name)


def rclpy_types() -> MessageTypes:
    """Return a provider over the rclpy message classes of a sourced ROS 2 installation."""
    return MessageTypes('rclpy', _rclpy_resolve, lambda value: bytes([int(value)]),
                        lambda values: array.array('d', [float(v) for v in values]))


def register_interfaces(typestore: Any, *roots: Path) -> Any:
    """
    Register every ``<package>/msg/*.msg`` and ``<package>/srv/*.srv`` under ``roots``.

    A service ``S`` becomes the two message types ``<package>/srv/S_Request`` and
    ``<package>/srv/S_Response``, as rclpy and rosbags name them.

    :param typestore: a rosbags typestore (modified in place and returned).
    :param roots: folders holding one subfolder per package; a definition found in a later root
        replaces one of the same name in an earlier root.
    """
    from rosbags.typesys import get_types_from_msg

    found: Dict[str, Any] = {}
    for root in roots:
        for path in sorted(Path(root).glob('*/msg/*.msg')):
            name = f'{path.parent.parent.name}/msg/{path.stem}'
            found.update(get_types_from_msg(path.read_text(), name))
        for path in sorted(Path(root).glob('*/srv/*.srv')):
            package = path.parent.parent.name
            for part, text in zip(('Request', 'Response'), path.read_text().split('\n---')):
                # parsed as a msg of the package (so relative field types resolve to
                # <package>/msg/...), registered under the service part's own name
                parsed = get_types_from_msg(text, f'{package}/msg/{path.stem}_{part}')
                found[f'{package}/srv/{path.stem}_{part}'] = parsed.popitem()[1]
    typestore.register(found)
    return typestore


def optional_floats(types: MessageTypes, values: Optional[Iterable[float]]) -> Any:
    """``types.floats(values)``, or an empty sequence for ``None``."""
    return types.floats(() if values is None else values)
