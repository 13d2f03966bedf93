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

"""Tests of pdls_ik.ik.task_levels: level order (locks > targets by priority > posture), stack."""
from conftest import ROBOTS
import numpy as np
from pdls_ik import pdls
from pdls_ik.errors import InputError
from pdls_ik.ik.task_levels import assign_levels, LevelStack
from pdls_ik.model import load_urdf
from pdls_ik.tasks import FrameTask, JointLockTask, PostureTask
import pytest


@pytest.fixture(scope='module')
def panda():
    if not (ROBOTS / 'panda.urdf').exists():
        pytest.skip('shared robots not found')
    return load_urdf(ROBOTS / 'panda.urdf')


def test_order_and_grouping(panda):
    a = FrameTask(panda, 'panda_link8', priority=1, name='a')
    b = FrameTask(panda, 'panda_link6', priority=0, orientation_mask=(0, 0, 0), name='b')
    c = FrameTask(panda, 'panda_link4', priority=1, orientation_mask=(0, 0, 0), name='c')
    lock = JointLockTask(panda, ['panda_joint1'], [0.1])
    posture = PostureTask(panda)
    groups = assign_levels([a, posture, b, c, lock])
    assert [[t.name for t in g] for g in groups] == [['lock'], ['b'], ['a', 'c']]
    stack = LevelStack([a, posture, b, c, lock], panda.n)
    assert stack.names == ['lock', 'b', 'a+c']
    q = np.full(panda.n, 0.2)
    levels = stack(q)
    assert [lv.residual.shape[0] for lv in levels] == [1, 3, 9]
    e_a, J_a = a.compute(q)
    np.testing.assert_array_equal(levels[2].residual[stack.rows[2][0]], e_a)
    np.testing.assert_array_equal(levels[2].jacobian[stack.rows[2][1]], c.compute(q)[1])
    np.testing.assert_allclose(stack.posture_variation(q), posture.variation(q))
    with pytest.raises(InputError, match='no task'):
        LevelStack([posture], panda.n)


def test_strict_priority_of_a_higher_target_over_a_conflicting_lower_one(panda):
    """
    Two position targets for the same link, the lower one conflicting.

    The PDLS solve meets the higher one exactly and the lower one only in its null space.
    """
    tip = 'panda_link8'
    q0 = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8, 0.0])
    p0 = panda.forward_kinematics(q0, tip)[:3, 3]
    high = FrameTask(panda, tip, target=(p0 + [0.05, 0, 0], [0, 0, 0, 1]), priority=0,
                     orientation_mask=(0, 0, 0), name='high')
    low = FrameTask(panda, tip, target=(p0 + [-0.05, 0.02, 0], [0, 0, 0, 1]), priority=1,
                    orientation_mask=(0, 0, 0), name='low')
    res = pdls.solve(LevelStack([high, low], panda.n), q0, panda.lower, panda.upper,
                     pdls.PDLSOptions(max_iterations=200, last_is_optional=True))
    assert res.residual_norms[0] < 1e-9
    alone = pdls.solve(LevelStack([high], panda.n), q0, panda.lower, panda.upper,
                       pdls.PDLSOptions(max_iterations=200))
    assert alone.residual_norms[0] < 1e-9
    # the lower level's remaining error is the distance between the two targets
    assert res.residual_norms[1] == pytest.approx(np.linalg.norm([0.1, 0.02, 0]), abs=1e-6)
