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

"""The one joint-vector check, and every entry point that takes a joint vector uses it."""
import math

import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik.errors import InputError
from pdls_ik.model.joint_vector import check_joint_vector
from pdls_ik.resources import bundled_urdf
import pytest

NAMES = ['a', 'b', 'c']


def test_a_float_vector_of_the_right_length_is_returned_as_is():
    q = np.array([0.1, -0.2, 3.0])
    assert check_joint_vector(q, NAMES, 'q') is q
    np.testing.assert_array_equal(check_joint_vector([1, 2, 3], NAMES, 'q'), [1.0, 2.0, 3.0])


@pytest.mark.parametrize('values, message', [
    ([0.0, 1.0], r'seed: expected 3 joint values, shape \(3,\), one per joint \(a, b, c\); '
                 r'got shape \(2,\)'),
    ([[0.0, 1.0, 2.0]], r'got shape \(1, 3\)'),
    (['x', 0.0, 1.0], r'seed: expected 3 numbers, one per joint \(a, b, c\)'),
    ([0.0, math.nan, 1.0], r"seed: value for joint 'b' is nan, not a finite number"),
    ([0.0, 1.0, -math.inf], r"seed: value for joint 'c' is -inf, not a finite number"),
])
def test_bad_vectors_name_the_label_and_the_joint(values, message):
    with pytest.raises(InputError, match=message):
        check_joint_vector(values, NAMES, 'seed')


def test_linkage_and_solver_report_the_same_way():
    robot = load_urdf(bundled_urdf('ur5'))
    with pytest.raises(InputError, match="q: value for joint 'elbow_joint' is nan"):
        robot.forward_kinematics([0.0, 0.0, math.nan, 0.0, 0.0, 0.0], 'ee_link')
    solver = IKSolver(robot, 'ee_link', backend='numpy')
    with pytest.raises(InputError, match="seed: value for joint 'elbow_joint' is inf"):
        solver.solve(np.eye(4), [0.0, 0.0, math.inf, 0.0, 0.0, 0.0])
    with pytest.raises(InputError, match='q_current: expected 6 joint values'):
        solver.track(np.eye(4), [0.0] * 5, 0.01)
