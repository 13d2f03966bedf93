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

"""Pose/PoseStamped building and validating parse against the real geometry_msgs definitions."""
import math

from msgs_support import roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.msgs.geometry import pose_from_msg, pose_msg, pose_stamped, position_quaternion
import pytest
from scipy.spatial.transform import Rotation


def test_pose_stamped_roundtrip_all_fields(store):  # noqa: F811
    ts, types = store
    quat = Rotation.from_euler('xyz', [0.3, -0.2, 1.1]).as_quat()
    msg = roundtrip(ts, pose_stamped(types, ([0.4, -0.1, 0.6], quat), 'panda_link0', 5.25))
    assert msg.__msgtype__ == 'geometry_msgs/msg/PoseStamped'
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (5, 250_000_000)
    assert msg.header.frame_id == 'panda_link0'
    p, o = msg.pose.position, msg.pose.orientation
    assert (p.x, p.y, p.z) == (0.4, -0.1, 0.6)
    np.testing.assert_array_equal([o.x, o.y, o.z, o.w], quat)


def test_pose_from_matrix_matches_pair(store):  # noqa: F811
    _, types = store
    T = np.eye(4)
    T[:3, :3] = Rotation.from_rotvec([0.0, 0.5, 0.0]).as_matrix()
    T[:3, 3] = [1.0, 2.0, 3.0]
    parsed = pose_from_msg(pose_msg(types, T))
    np.testing.assert_allclose(parsed.matrix(), T, atol=1e-15)
    assert parsed.frame_id == '' and parsed.stamp_ns == 0 and not parsed.normalized


def test_parse_pose_stamped(store):  # noqa: F811
    ts, types = store
    msg = roundtrip(ts, pose_stamped(types, ([1, 2, 3], [0, 0, 0, 2.0]), 'tool', 1.0))
    parsed = pose_from_msg(msg, 'goal_pose')
    assert parsed.frame_id == 'tool' and parsed.stamp_ns == 1_000_000_000
    np.testing.assert_array_equal(parsed.position, [1, 2, 3])
    np.testing.assert_array_equal(parsed.quaternion, [0, 0, 0, 1])
    assert parsed.normalized and parsed.input_norm == 2.0


@pytest.mark.parametrize('part, axis', [('position', 'x'), ('position', 'z'),
                                        ('orientation', 'y'), ('orientation', 'w')])
@pytest.mark.parametrize('bad', [math.nan, math.inf])
def test_non_finite_component_named(store, part, axis, bad):  # noqa: F811
    _, types = store
    msg = pose_stamped(types, ([0, 0, 0], [0, 0, 0, 1]))
    setattr(getattr(msg.pose, part), axis, bad)
    with pytest.raises(InputError, match=rf'goal_pose\.pose\.{part}\.{axis}: must be finite'):
        pose_from_msg(msg, 'goal_pose')


def test_zero_quaternion_rejected(store):  # noqa: F811
    _, types = store
    with pytest.raises(InputError, match=r'goal_pose\.pose\.orientation: zero quaternion'):
        pose_from_msg(pose_stamped(types, ([0, 0, 0], [0, 0, 0, 0])), 'goal_pose')


def test_position_quaternion_shapes():
    with pytest.raises(InputError, match='pose'):
        position_quaternion(([1, 2], [0, 0, 0, 1]))
