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

"""JointState building and matching by name, against the real sensor_msgs definition."""
import math

from msgs_support import roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.msgs.joint_state import joint_state, joint_state_to_q, match_joint_positions
import pytest

MODEL = ['j1', 'j2', 'j3']


def test_joint_state_roundtrip(store):  # noqa: F811
    ts, types = store
    msg = roundtrip(ts, joint_state(types, MODEL, [0.1, -0.2, 0.3], [1.0, 2.0, 3.0],
                                    stamp=7.5, frame_id='base'))
    assert msg.__msgtype__ == 'sensor_msgs/msg/JointState'
    assert msg.name == MODEL
    np.testing.assert_array_equal(msg.position, [0.1, -0.2, 0.3])
    np.testing.assert_array_equal(msg.velocity, [1.0, 2.0, 3.0])
    assert len(msg.effort) == 0
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec, msg.header.frame_id) == \
        (7, 500_000_000, 'base')


def test_builder_length_mismatch_named(store):  # noqa: F811
    _, types = store
    with pytest.raises(InputError, match='velocities: 2 values for 3'):
        joint_state(types, MODEL, [0, 0, 0], [1, 2])


def test_match_by_name_unknown_ignored_missing_reported(store):  # noqa: F811
    ts, types = store
    msg = roundtrip(ts, joint_state(types, ['gripper', 'j3', 'j1'], [0.04, 0.3, 0.1]))
    match = joint_state_to_q(msg, MODEL)
    np.testing.assert_array_equal(match.q[[0, 2]], [0.1, 0.3])
    assert math.isnan(match.q[1])
    assert match.missing == ['j2'] and match.unknown == ['gripper'] and not match.complete
    np.testing.assert_array_equal(match.found, [True, False, True])
    filled = joint_state_to_q(msg, MODEL, fallback=[9.0, 8.0, 7.0])
    np.testing.assert_array_equal(filled.q, [0.1, 8.0, 0.3])


def test_complete_match(store):  # noqa: F811
    _, types = store
    match = joint_state_to_q(joint_state(types, MODEL[::-1], [3.0, 2.0, 1.0]), MODEL)
    np.testing.assert_array_equal(match.q, [1.0, 2.0, 3.0])
    assert match.complete and match.unknown == []


def test_empty_message_rejected(store):  # noqa: F811
    _, types = store
    with pytest.raises(InputError, match='joint_states: message has no joint names'):
        joint_state_to_q(joint_state(types, [], []), MODEL)


@pytest.mark.parametrize('array_name, values, text', [
    ('position', [0.1, 0.2], r'joint_states\.position: 2 values for 3 names'),
    ('velocity', [0.1], r'joint_states\.velocity: 1 values for 3 names'),
    ('effort', [0.1, 0.2, 0.3, 0.4], r'joint_states\.effort: 4 values for 3 names')])
def test_mismatched_arrays_named(store, array_name, values, text):  # noqa: F811
    _, types = store
    msg = joint_state(types, MODEL, [0.0, 0.0, 0.0])
    setattr(msg, array_name, types.floats(values))
    with pytest.raises(InputError, match=text):
        joint_state_to_q(msg, MODEL)


def test_nan_position_and_duplicate_named():
    with pytest.raises(InputError, match="joint 'j2' is nan"):
        match_joint_positions(['j2'], [math.nan], MODEL)
    with pytest.raises(InputError, match="joint 'j1' appears twice"):
        match_joint_positions(['j1', 'j1'], [0.0, 1.0], MODEL)
    # NaN of a joint the model does not have is ignored with the joint
    assert match_joint_positions(['x', 'j1'], [math.nan, 0.5], MODEL).unknown == ['x']
