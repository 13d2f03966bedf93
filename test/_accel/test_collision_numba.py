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

"""The compiled capsule distances, gradients and task rows equal the NumPy reference's."""
import warnings

import numpy as np
from pdls_ik import load_urdf
from pdls_ik._accel import available as numba_available
from pdls_ik.model.collision import Capsule, collision_model, CollisionModel
from pdls_ik.resources import bundled_urdf
from pdls_ik.tasks import SelfCollisionTask
import pytest

pytestmark = pytest.mark.skipif(not numba_available(),
                                reason='numba not installed (optional accelerator)')
if numba_available():
    from pdls_ik._accel.collision_numba import (collision_tuple, collision_work, distances_at,
                                                segment_parameters, self_collision_rows,
                                                task_tuple)


@pytest.fixture(scope='module')
def panda():
    robot = load_urdf(bundled_urdf('panda'))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        model = collision_model(robot)
    return robot, model


def test_distances_witnesses_and_gradient_rows_match_the_reference(panda):
    robot, model = panda
    tree, shapes = collision_tuple(model)
    rng = np.random.default_rng(3)
    for gain, margin in ((1.0, 0.0), (0.3, 0.0), (0.3, 0.002)):   # margin: tracking rows
        task = SelfCollisionTask(robot, model, d_min=0.02, activation_distance=0.15, gain=gain,
                                 weight=2.0, margin=margin)
        work = collision_work(tree, shapes)
        P = len(model.pairs)
        e, J = np.empty(P), np.empty((P, robot.n))
        near = 0
        for _ in range(40):
            q = rng.uniform(robot.lower, robot.upper)
            e_ref, J_ref = task.compute(q)
            worst = self_collision_rows(q, tree, shapes, task_tuple(task), e, J, work, True)
            np.testing.assert_allclose(e, e_ref, rtol=0.0, atol=1e-12)
            np.testing.assert_allclose(J, J_ref, rtol=0.0, atol=1e-12)
            ref = model.distances(q)
            act = ref.distance < 0.15        # beyond the activation distance: a lower bound
            np.testing.assert_allclose(work[2][act], ref.distance[act], rtol=0.0, atol=1e-12)
            assert np.all(work[2][~act] >= 0.15)
            np.testing.assert_allclose(work[3][act], ref.normal[act], rtol=0.0, atol=1e-9)
            np.testing.assert_allclose(work[4][act], ref.witness_a[act], rtol=0.0, atol=1e-12)
            np.testing.assert_allclose(work[5][act], ref.witness_b[act], rtol=0.0, atol=1e-12)
            np.testing.assert_allclose(distances_at(q, tree, shapes), ref.distance, atol=1e-12)
            assert worst == pytest.approx(max(0.0, float(np.max(0.02 - ref.distance))), abs=1e-12)
            near += int(np.any(J_ref != 0.0))
        assert near > 10                  # gradient rows were exercised


def test_degenerate_segments_and_intersections_as_the_reference():
    robot = load_urdf(bundled_urdf('panda'))
    caps = [Capsule('panda_link0', (0, 0, 0.1), (0, 0, 0.1), 0.05),          # a sphere
            Capsule('panda_link3', (0, 0, 0), (0, 0, 0.2), 0.04),
            Capsule('panda_link5', (0, 0, 0), (0, 0, 0), 0.03),               # a sphere
            Capsule('panda_link7', (-0.1, 0, 0), (0.1, 0, 0), 0.02)]
    model = CollisionModel(robot, caps, neutral=False)
    tree, shapes = collision_tuple(model)
    rng = np.random.default_rng(5)
    for _ in range(30):
        q = rng.uniform(robot.lower, robot.upper)
        np.testing.assert_allclose(distances_at(q, tree, shapes), model.distances(q).distance,
                                   rtol=0.0, atol=1e-12)
    # parallel, crossing and point segments: the parameters of the NumPy closest points
    from pdls_ik.model.collision import segment_closest_points
    cases = [((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)), ((0, 0, 0), (1, 0, 0), (0.5, -1, 0),
             (0.5, 1, 0)), ((0, 0, 0), (0, 0, 0), (1, 1, 0), (2, 1, 0)),
             ((0, 0, 0), (1, 0, 0), (3, 3, 3), (3, 3, 3)), ((0, 0, 0), (0, 0, 0), (1, 0, 0),
                                                            (1, 0, 0))]
    for p1, q1, p2, q2 in cases:
        p1, q1, p2, q2 = (np.array(v, dtype=float) for v in (p1, q1, p2, q2))
        s, t = segment_parameters(p1, q1, p2, q2)
        c1, c2 = segment_closest_points(p1[None], q1[None], p2[None], q2[None])
        np.testing.assert_allclose(p1 + s * (q1 - p1), c1[0], atol=1e-15)
        np.testing.assert_allclose(p2 + t * (q2 - p2), c2[0], atol=1e-15)
