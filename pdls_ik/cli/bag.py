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
Write ROS 2 bags (MCAP storage) without ROS, with rosbags.

    with BagWriter("out/demo_bag") as bag:
        bag.write("/joint_states", msg, stamp_ns)

Messages are rosbags typestore dataclasses (build them with :mod:`pdls_ik.msgs` and
:func:`pdls_ik.msgs.rosbags_types`); each topic's type is taken from its first message. The
result is a rosbag2 folder (``metadata.yaml`` + ``.mcap`` file) that ``ros2 bag play``,
``ros2 bag info`` and Foxglove open.

The metadata is written in rosbag2 format version 8, the oldest rosbags writes, which every
supported distribution reads: Humble's reader (metadata version 5) decodes the fields it knows
and ignores the rest, and format 8 keeps ``offered_qos_profiles`` a string as Humble expects
(format 9, Jazzy's, makes it a list Humble cannot read). Humble needs the MCAP storage plugin
(``ros-humble-rosbag2-storage-mcap``); Iron and newer have it by default.
"""
from __future__ import annotations

from pathlib import Path
import shutil
from typing import Any, Dict, Union

from pdls_ik.errors import InputError


class BagWriter:
    """
    A rosbag2 writer with MCAP storage over one rosbags typestore.

    :param path: folder of the bag to create; an existing one is replaced when ``overwrite``.
    :param typestore: rosbags typestore of the messages (default: ROS 2 Jazzy).
    :param overwrite: remove an existing bag folder at ``path`` first.

    :raises InputError: ``path`` exists and is not a bag folder (never deleted), or exists
        and ``overwrite`` is False.
    """

    def __init__(self, path: Union[str, Path], typestore: Any = None, overwrite: bool = True):
        from rosbags.rosbag2 import StoragePlugin, Writer
        from rosbags.typesys import Stores, get_typestore

        self.path = Path(path)
        if self.path.exists():
            is_bag = self.path.is_dir() and (self.path / 'metadata.yaml').is_file()
            if not (overwrite and is_bag):
                raise InputError(f'bag output {self.path}: already exists'
                                 + ('' if is_bag else ' and is not a rosbag2 folder'))
            shutil.rmtree(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.typestore = typestore if typestore is not None else get_typestore(Stores.ROS2_JAZZY)
        try:
            self._writer = Writer(self.path, version=8, storage_plugin=StoragePlugin.MCAP)
        except TypeError:  # older rosbags without the version keyword
            self._writer = Writer(self.path, storage_plugin=StoragePlugin.MCAP)
        self._connections: Dict[str, Any] = {}
        self.counts: Dict[str, int] = {}

    def __enter__(self) -> 'BagWriter':
        self._writer.open()
        return self

    def __exit__(self, *exc) -> None:
        self._writer.close()

    def write(self, topic: str, msg: Any, stamp_ns: int) -> None:
        """Append ``msg`` on ``topic`` at receive time ``stamp_ns`` (integer nanoseconds)."""
        msgtype = msg.__msgtype__
        conn = self._connections.get(topic)
        if conn is None:
            conn = self._connections[topic] = self._writer.add_connection(
                topic, msgtype, typestore=self.typestore)
        self._writer.write(conn, int(stamp_ns), self.typestore.serialize_cdr(msg, msgtype))
        self.counts[topic] = self.counts.get(topic, 0) + 1
