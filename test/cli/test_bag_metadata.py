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
The bag's metadata.yaml is one the oldest supported distribution, Humble, reads.

Humble's rosbag2 (rosbag2_storage 0.15, metadata version 5) reads any version number and decodes
the fields below (``YAML::convert<BagMetadata>::decode`` in rosbag2_storage/src/rosbag2_storage/
metadata_io.cpp, humble branch), ignoring the others. Format 8, the oldest rosbags writes, keeps
``offered_qos_profiles`` a string as Humble expects; format 9 (Jazzy) makes it a YAML list, which
Humble's ``as<std::string>()`` rejects.
"""
import numpy as np
from pdls_ik import msgs
from pdls_ik.cli.bag import BagWriter
import pytest
import yaml

rosbags = pytest.importorskip('rosbags')


def _write_bag(path):
    from rosbags.typesys import Stores, get_typestore

    typestore = get_typestore(Stores.ROS2_JAZZY)
    types = msgs.rosbags_types(typestore)
    with BagWriter(path, typestore) as bag:
        for k in range(3):
            stamp = 1_700_000_000_000_000_000 + k * 10_000_000
            sec = msgs.time_msg_from_ns(types, stamp)
            bag.write('/joint_states', msgs.joint_state(types, ['j1', 'j2'], np.array([k, 0.0]),
                                                        np.zeros(2), stamp=sec), stamp)
    return yaml.safe_load((path / 'metadata.yaml').read_text())['rosbag2_bagfile_information']


def _ns(node, key):
    assert isinstance(node[key], int) and node[key] >= 0, node


def test_metadata_has_every_field_humble_decodes_with_its_type(tmp_path):
    meta = _write_bag(tmp_path / 'bag')
    assert meta['version'] == 8
    assert meta['storage_identifier'] == 'mcap'      # Humble: ros-humble-rosbag2-storage-mcap
    _ns(meta['duration'], 'nanoseconds')
    _ns(meta['starting_time'], 'nanoseconds_since_epoch')
    assert meta['message_count'] == 3
    assert meta['relative_file_paths'] == ['bag.mcap']
    assert isinstance(meta['compression_format'], str)       # read when version >= 3
    assert isinstance(meta['compression_mode'], str)
    for info in meta['files']:                               # read when version >= 5
        assert info['path'] == 'bag.mcap' and info['message_count'] == 3
        _ns(info['starting_time'], 'nanoseconds_since_epoch')
        _ns(info['duration'], 'nanoseconds')
    (topic,) = meta['topics_with_message_count']
    assert topic['message_count'] == 3
    t = topic['topic_metadata']
    assert (t['name'], t['type'], t['serialization_format']) == \
        ('/joint_states', 'sensor_msgs/msg/JointState', 'cdr')
    # read when version >= 4, as a string: a YAML list (format 9) breaks Humble's reader
    assert isinstance(t['offered_qos_profiles'], str)


def test_the_bag_reads_back(tmp_path):
    from rosbags.highlevel import AnyReader

    _write_bag(tmp_path / 'bag')
    with AnyReader([tmp_path / 'bag']) as reader:
        values = [reader.deserialize(raw, conn.msgtype).position[0]
                  for conn, _, raw in reader.messages()]
    assert values == [0.0, 1.0, 2.0]
