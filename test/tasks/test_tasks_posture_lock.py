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

"""Tests of PostureTask and JointLockTask: values, continuous joints, bad input."""
import math
from types import SimpleNamespace

import numpy as np
from pdls_ik.errors import InputError, JointError
from pdls_ik.tasks import JointLockTask, middle_of_limits, PostureTask
import pytest


def _linkage():
    names = ['a', 'b', 'c']

    def joint_index(name):
        if name not in names:
            raise JointError(name, 'unknown joint')
        return names.index(name)

    return SimpleNamespace(n=3, joint_names=names, lower=np.array([-1.0, 0.0, -np.inf]),
                           upper=np.array([3.0, 0.5, np.inf]),
                           continuous=np.array([False, False, True]), joint_index=joint_index)


def test_middle_of_limits():
    np.testing.assert_array_equal(middle_of_limits([-1.0, 0.0, -np.inf], [3.0, 0.5, np.inf]),
                                  [1.0, 0.25, 0.0])


def test_posture_variation_and_rows():
    task = PostureTask(_linkage(), weight=0.5)
    np.testing.assert_array_equal(task.preferred, [1.0, 0.25, 0.0])
    q = np.array([0.0, 0.5, 3.0])
    v = task.variation(q)
    # continuous joint: from 3.0 to 0 the short way is −3.0 (no wrap needed)
    np.testing.assert_allclose(v, 0.5 * np.array([1.0, -0.25, -3.0]))
    e, J = task.compute(q)
    np.testing.assert_allclose(e, v) and np.testing.assert_array_equal(J, 0.5 * np.eye(3))
    wrap = PostureTask(_linkage(), preferred=[0.0, 0.0, -3.0], weight=1.0)
    assert wrap.variation(np.array([0.0, 0.0, 3.0]))[2] == pytest.approx(2 * math.pi - 6.0)
    assert task.kind == 'posture'
    with pytest.raises(InputError, match='preferred'):
        PostureTask(_linkage(), preferred=[0.0, np.nan, 0.0])


def test_posture_target_outside_the_limits_is_clamped_with_a_note():
    """Issue 14: the posture only uses what the limits leave, its target included."""
    task = PostureTask(_linkage(), preferred=[5.0, -1.0, 7.0], weight=1.0)
    np.testing.assert_array_equal(task.preferred, [3.0, 0.0, 7.0])   # continuous: kept
    assert task.notes == ["posture task 'posture': preferred values clamped into the joint "
                          'limits (a, b)']
    assert PostureTask(_linkage(), preferred=[3.0, 0.0, 7.0]).notes == []


def test_joint_lock_rows():
    task = JointLockTask(_linkage(), ['c', 'a'], [-3.0, 0.2], weight=2.0)
    e, J = task.compute(np.array([0.5, 0.1, 3.0]))
    np.testing.assert_allclose(e, 2.0 * np.array([2 * math.pi - 6.0, -0.3]))
    np.testing.assert_array_equal(J, [[0, 0, 2.0], [2.0, 0, 0]])
    assert task.kind == 'lock' and task.dim == 2


def test_joint_lock_bad_input():
    with pytest.raises(JointError, match="'b'.*outside the limits"):
        JointLockTask(_linkage(), ['b'], [0.7])
    with pytest.raises(InputError, match='1 values for 2 joints'):
        JointLockTask(_linkage(), ['a', 'b'], [0.1])
    with pytest.raises(JointError, match="'zz'"):
        JointLockTask(_linkage(), ['zz'], [0.1])
