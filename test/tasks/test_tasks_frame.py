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
Tests of pdls_ik.tasks.FrameTask.

zero error at the target, Jacobian vs finite differences, masks (position-only, orientation-only,
free tool axis), weights and tolerances.
"""
import math

from conftest import random_q
import numpy as np
from pdls_ik.errors import InputError, LinkError
from pdls_ik.model import load_urdf
from pdls_ik.tasks import FrameTask
import pytest
from scipy.spatial.transform import Rotation

TIP = 'panda_link8'


@pytest.fixture(scope='module')
def panda():
    from conftest import ROBOTS
    path = ROBOTS / 'panda.urdf'
    if not path.exists():
        pytest.skip('shared robots not found')
    return load_urdf(path)


def _fd_residual_jacobian(task, q, h=1e-6):
    cols = []
    for i in range(q.size):
        dq = np.zeros(q.size)
        dq[i] = h
        ep = task.compute(q + dq)[0].copy()
        em = task.compute(q - dq)[0].copy()
        cols.append((ep - em) / (2 * h))
    return np.array(cols).T


@pytest.mark.parametrize('orientation_mask', [(1, 1, 1), (1, 1, 0), (0, 1, 1), (0, 0, 0)])
def test_zero_error_at_target_and_jacobian_matches_finite_differences(panda, orientation_mask):
    rng = np.random.default_rng(4)
    for _ in range(5):
        q = random_q(panda, rng)
        task = FrameTask(panda, TIP, target=panda.forward_kinematics(q, TIP),
                         orientation_mask=orientation_mask, position_weight=2.0,
                         orientation_weight=0.5)
        e, J = task.compute(q)
        J = J.copy()
        np.testing.assert_allclose(e, 0.0, atol=1e-12)
        assert task.position_error < 1e-12 and task.orientation_error < 1e-12
        assert task.within_tolerance()
        # the residual is target − value: its derivative is −J at the target
        np.testing.assert_allclose(_fd_residual_jacobian(task, q), -J, atol=1e-6)


def test_full_residual_values(panda):
    q = np.zeros(panda.n)
    T = panda.forward_kinematics(q, TIP)
    goal = T.copy()
    goal[:3, 3] += [0.01, -0.02, 0.03]
    goal[:3, :3] = Rotation.from_rotvec([0.0, 0.0, 0.2]).as_matrix() @ T[:3, :3]
    task = FrameTask(panda, TIP, target=goal, position_weight=3.0, orientation_weight=0.5)
    e, J = task.compute(q)
    np.testing.assert_allclose(e[:3], 3.0 * np.array([0.01, -0.02, 0.03]), atol=1e-12)
    np.testing.assert_allclose(e[3:], 0.5 * np.array([0.0, 0.0, 0.2]), atol=1e-12)
    np.testing.assert_allclose(J, np.vstack([3.0 * panda.jacobian(q, TIP)[:3],
                                             0.5 * panda.jacobian(q, TIP)[3:]]), atol=1e-14)
    assert task.position_error == pytest.approx(math.sqrt(0.0014))
    assert task.orientation_error == pytest.approx(0.2)
    assert not task.within_tolerance()
    assert task.errors(T) == pytest.approx((math.sqrt(0.0014), 0.2))


def test_masks_select_rows(panda):
    q = np.zeros(panda.n)
    T = panda.forward_kinematics(q, TIP)
    pos_only = FrameTask(panda, TIP, target=T, orientation_mask=(0, 0, 0))
    assert pos_only.dim == 3 and not pos_only.controls_orientation
    ori_only = FrameTask(panda, TIP, target=T, position_mask=(0, 0, 0))
    assert ori_only.dim == 3
    xy = FrameTask(panda, TIP, target=T, position_mask=(1, 1, 0), orientation_mask=(1, 1, 0))
    assert xy.dim == 4
    # a goal differing only in z and in rotation about the tool z axis has zero masked error
    goal = T.copy()
    goal[2, 3] += 0.3
    goal[:3, :3] = T[:3, :3] @ Rotation.from_rotvec([0, 0, 1.2]).as_matrix()
    xy.set_target(goal)
    e, _ = xy.compute(q)
    np.testing.assert_allclose(e, 0.0, atol=1e-12)
    # ... but tilting the tool axis is seen, with the angle between the axes as error
    goal[:3, :3] = T[:3, :3] @ Rotation.from_rotvec([0.3, 0, 0]).as_matrix()
    xy.set_target(goal)
    xy.compute(q)
    assert xy.orientation_error == pytest.approx(0.3)


def test_bad_arguments(panda):
    with pytest.raises(LinkError, match='nope'):
        FrameTask(panda, 'nope')
    with pytest.raises(InputError, match='orientation_mask'):
        FrameTask(panda, TIP, orientation_mask=(1, 0, 0))
    with pytest.raises(InputError, match='every axis'):
        FrameTask(panda, TIP, position_mask=(0, 0, 0), orientation_mask=(0, 0, 0))
    with pytest.raises(InputError, match='position_weight'):
        FrameTask(panda, TIP, position_weight=0.0)
    task = FrameTask(panda, TIP)
    with pytest.raises(InputError, match='zero quaternion'):
        task.set_target(([0.3, 0, 0.5], [0, 0, 0, 0]))
    task.set_target(([0.3, 0, 0.5], [0, 0, 0, 1.00004]))
    assert task.notes and 'normalized' in task.notes[0]
