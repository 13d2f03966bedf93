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

"""Tests of pdls_ik.lie.se3: closed-form rotation log vs scipy, swing, goal validation."""
import math

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.lie.se3 import parse_pose
from pdls_ik.lie.so3 import rotation_log, swing_log
import pytest
from scipy.spatial.transform import Rotation


def test_rotation_log_matches_scipy_on_random_and_edge_rotations():
    rng = np.random.default_rng(0)
    rotvecs = list(Rotation.random(500, random_state=1).as_rotvec())
    axes = rng.normal(size=(60, 3))
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    for a, angle in zip(axes, np.concatenate([np.full(20, math.pi - 1e-7),
                                              np.full(20, math.pi - 2e-3),
                                              np.full(20, 1e-9)])):
        rotvecs.append(a * angle)
    rotvecs += [np.zeros(3), np.array([math.pi, 0.0, 0.0])]
    for r in rotvecs:
        R = Rotation.from_rotvec(r).as_matrix()
        ours = rotation_log(R)
        ref = Rotation.from_matrix(R).as_rotvec()
        if np.linalg.norm(ref) > math.pi - 1e-6:   # ±axis·π are the same rotation
            assert np.linalg.norm(ours) == pytest.approx(np.linalg.norm(ref), abs=1e-9)
            assert abs(abs(ours @ ref) / np.linalg.norm(ref) ** 2 - 1.0) < 1e-6
        else:
            np.testing.assert_allclose(ours, ref, atol=1e-10)


def test_swing_is_the_angle_between_axes_and_ignores_twist():
    rng = np.random.default_rng(2)
    for axis in range(3):
        for _ in range(50):
            R = Rotation.random(random_state=rng.integers(1 << 30)).as_matrix()
            s = swing_log(R, axis)
            e = np.eye(3)[axis]
            assert abs(s[axis]) < 1e-12
            angle = math.acos(np.clip(R[axis, axis], -1, 1))
            assert np.linalg.norm(s) == pytest.approx(angle, abs=1e-9)
            # the swing maps the axis onto R's axis
            np.testing.assert_allclose(Rotation.from_rotvec(s).apply(e), R[:, axis], atol=1e-9)
            # a twist about the axis does not change it
            twist = Rotation.from_rotvec(e * rng.uniform(-3, 3)).as_matrix()
            np.testing.assert_allclose(swing_log(R @ twist, axis), s, atol=1e-9)
    assert np.linalg.norm(swing_log(np.diag([1.0, -1.0, -1.0]), 2)) == pytest.approx(math.pi)


def test_parse_pose_forms_and_notes():
    p, R, notes = parse_pose(([0.1, 0.2, 0.3], [0.0, 0.0, 0.0, 1.0]))
    np.testing.assert_array_equal(p, [0.1, 0.2, 0.3])
    np.testing.assert_allclose(R, np.eye(3), atol=1e-15)
    assert notes == []
    T = np.eye(4)
    T[:3, :3] = Rotation.from_rotvec([0.1, 0.2, 0.3]).as_matrix()
    T[:3, 3] = [1, 2, 3]
    p, R, notes = parse_pose(T)
    np.testing.assert_array_equal(R, T[:3, :3]) and notes == []
    # scaled quaternion: normalized, noted, still the identity rotation
    _, R, notes = parse_pose(([0, 0, 0], [0, 0, 0, 2.0]))
    np.testing.assert_allclose(R, np.eye(3), atol=1e-15)
    assert notes and 'norm was 2' in notes[0]


@pytest.mark.parametrize('target, fragment', [
    (([math.nan, 0, 0], [0, 0, 0, 1]), 'position.x'),
    (([0, math.inf, 0], [0, 0, 0, 1]), 'position.y'),
    (([0, 0, 0], [0, 0, math.nan, 1]), 'orientation.z'),
    (([0, 0, 0], [0, 0, 0, 0]), 'zero quaternion'),
    (([0, 0], [0, 0, 0, 1]), 'position needs 3'),
    (([0, 0, 0], [0, 0, 1]), '4 quaternion values'),
    (np.eye(3), 'shape (3, 3)'),
    (np.diag([1.0, 1.0, -1.0, 1.0]), 'not a rotation'),
    (np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1.0]]), 'last row'),
])
def test_parse_pose_rejects_bad_goals(target, fragment):
    with pytest.raises(InputError) as err:
        parse_pose(target)
    assert fragment in str(err.value)
    T = np.eye(4)
    T[1, 3] = math.nan
    with pytest.raises(InputError, match=r'pose\[1\]\[3\]'):
        parse_pose(T)


@pytest.mark.parametrize('target', [((1e300, 0.0, 0.5), (1, 0, 0, 0)),
                                    ((0.0, -2e6, 0.5), (0, 0, 0, 1)),
                                    np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1e7],
                                              [0, 0, 0, 1]])])
def test_goal_coordinates_beyond_reach_of_any_robot_are_rejected(target):
    """Squares of such coordinates overflow: the goal is refused, never solved in NaN."""
    with pytest.raises(InputError, match=r'position\.[xyz] = .* m is out of range'):
        parse_pose(target)


def test_huge_quaternion_is_normalized_without_overflow():
    p, R, notes = parse_pose(((0.4, 0.1, 0.5), (1e300, 0.0, 0.0, 1e300)))
    np.testing.assert_allclose(R, Rotation.from_quat([1, 0, 0, 1]).as_matrix(), atol=1e-15)
    assert notes and 'normalized' in notes[0]
