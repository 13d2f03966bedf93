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

"""The batch solver's self-collision option: vectorized check, colliding answers solved again."""
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.errors import ConfigError
from pdls_ik.ik.batch import BatchSolver
from pdls_ik.model.collision import collision_model
from pdls_ik.model.collision_batch import pair_distances_many
from pdls_ik.resources import bundled_urdf
import pytest


@pytest.fixture(scope='module')
def panda():
    return load_urdf(bundled_urdf('panda'))


@pytest.fixture(scope='module')
def model(panda):
    return collision_model(panda)


def test_many_configurations_match_the_one_by_one_distances(panda, model):
    rng = np.random.default_rng(0)
    Q = rng.uniform(panda.lower, panda.upper, size=(300, panda.n))
    D = pair_distances_many(model, Q)
    assert D.shape == (300, len(model.pairs))
    np.testing.assert_allclose(D, [model.distances(q).distance for q in Q], rtol=0, atol=1e-12)
    assert (D.min(axis=1) < 0.01).sum() > 10        # random configurations do collide


def test_batch_answers_keep_the_pairs_apart(panda, model):
    rng = np.random.default_rng(3)
    Q = rng.uniform(panda.lower, panda.upper, size=(100, panda.n))
    T = np.array([panda.forward_kinematics(q, 'panda_link8') for q in Q])
    plain = BatchSolver(panda, 'panda_link8', backend='numpy').solve(T)
    assert plain.min_distance is None and plain.resolved is None
    colliding = plain.success & np.array([model.distances(q).distance.min() < 0.01
                                          for q in plain.q])
    assert colliding.sum() >= 5
    res = BatchSolver(panda, 'panda_link8', backend='numpy', self_collision=model,
                      d_min=0.01, collision_timeout=1.0).solve(T)
    # the same batch answers; exactly the colliding successes were solved again
    np.testing.assert_array_equal(res.resolved, colliding)
    np.testing.assert_array_equal(res.q[~colliding], plain.q[~colliding])
    # independent check, one configuration at a time: every success keeps d_min, and the
    # reported closest distance is the one measured
    measured = np.array([model.distances(q).distance.min() for q in res.q])
    np.testing.assert_allclose(res.min_distance, measured, rtol=0, atol=1e-12)
    assert np.all(measured[res.success] >= 0.01 - 1e-6)
    assert np.all(~res.success[measured < 0.01 - 1e-6])
    assert (res.success & colliding).sum() >= 3      # solved again, collision-free
    for i in np.flatnonzero(res.success):
        T_i = panda.forward_kinematics(res.q[i], 'panda_link8')
        assert np.linalg.norm(T_i[:3, 3] - T[i, :3, 3]) <= 1e-5


def test_collision_model_option(panda, tmp_path):
    solver = BatchSolver(panda, 'panda_link8', collision_model='panda', d_min=0.02)
    assert solver.collision is not None and solver.d_min == 0.02
    with pytest.raises(ConfigError, match="collision model '/no/model.yaml': cannot read"):
        BatchSolver(panda, 'panda_link8', collision_model='/no/model.yaml')
