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

"""ObstacleTask: rows and their gradient, a level above the pose, task files, changing sets."""
from __future__ import annotations

from fd_support import residual_derivative
import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, InputError
from pdls_ik.ik.task_config import load_task_config
from pdls_ik.model.collision import collision_model
from pdls_ik.model.obstacles import Obstacle, ObstacleSet, plane_obstacle
from pdls_ik.resources import bundled_urdf
from pdls_ik.tasks import ObstacleTask
import pytest


@pytest.fixture(scope='module')
def panda():
    return load_urdf(bundled_urdf('panda'))


@pytest.fixture(scope='module')
def model(panda):
    return collision_model(panda)


def _at(x, y, z):
    pose = np.eye(4)
    pose[:3, 3] = (x, y, z)
    return pose


TABLE = Obstacle('table', 'box', _at(0.5, 0.0, 0.25), (0.4, 0.8, 0.04))
BALL = Obstacle('ball', 'sphere', _at(0.3, 0.3, 0.6), (0.08,))
FLOOR = plane_obstacle('floor', [0, 0, 1], 0.0)


def test_rows_and_gradient_match_finite_differences(panda, model):
    task = ObstacleTask(panda, model, [TABLE, BALL, FLOOR], d_min=0.01, activation_distance=5.0,
                        weight=2.0)
    # the base stands on the floor: a link no joint moves gets no row
    assert 'panda_link0' not in [model.links[i] for i in task.links]
    assert task.dim == 2 * len(task.links)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(10):
        q = rng.uniform(panda.lower, panda.upper)
        e, J = task.compute(q)
        nearest = task._nearest
        np.testing.assert_allclose(e, 2.0 * (0.01 - task.distances), atol=1e-15)
        fd = residual_derivative(task, q)
        if task._nearest != nearest:      # a row changed obstacle within ±h: not smooth here
            continue
        np.testing.assert_allclose(J, fd, atol=1e-7)
        checked += 1
    assert checked >= 8


def test_obstacles_level_keeps_the_hand_above_the_table(panda, model):
    cfg = IKConfig(backend='numpy', position_only=True, timeout=1.0, random_seed=2)
    task = ObstacleTask(panda, model, [TABLE], d_min=0.02)
    ik = IKSolver(panda, 'panda_link8', config=cfg, extra_tasks=[task])
    assert ik.level_names == ['obstacles', 'pose:panda_link8']
    under = ik.solve(((0.5, 0.0, 0.22), (0, 0, 0, 1)))     # inside the table top
    assert not under.success
    task.compute(under.q)
    assert min(task.distances) >= 0.02 - 1e-6
    above = ik.solve(((0.5, 0.1, 0.45), (0, 0, 0, 1)))
    assert above.success and above.position_error <= 1e-5
    task.compute(above.q)
    assert min(task.distances) >= 0.02 - 1e-6


def test_an_obstacle_set_changes_between_solves(panda, model):
    obstacles = ObstacleSet()
    task = ObstacleTask(panda, model, obstacles, d_min=0.01)
    q = np.array([0.0, 0.1, 0.0, -1.75, 0.0, 2.6, 1.9, 0.02])
    e, J = task.compute(q)
    assert np.all(e < 0) and not J.any() and task.closest() == ('', '', np.inf)
    hand = panda.forward_kinematics(q, 'panda_hand')[:3, 3]
    obstacles.put('ball', [Obstacle('ball', 'sphere', _at(*hand), (0.05,))])
    e, J = task.compute(q)
    link, name, d = task.closest()
    assert name == 'ball' and link in ('panda_hand', 'panda_link7', 'panda_leftfinger',
                                       'panda_rightfinger') and d < 0
    assert task.violation == pytest.approx(0.01 - min(task.distances)) and J.any()
    obstacles.remove('ball')
    assert np.all(task.compute(q)[0] < 0)


def test_task_file_obstacles(panda):
    tasks = load_task_config({'self_collision': {'d_min': 0.02, 'gain': 0.5}, 'obstacles': [
        {'type': 'box', 'size': [0.4, 0.8, 0.04], 'position': [0.5, 0, 0.25], 'name': 'table'},
        {'type': 'cylinder', 'radius': 0.05, 'length': 0.4, 'position': [0.3, 0.3, 0.5],
         'orientation': [0, 0, 0, 1]},
        {'type': 'plane', 'normal': [0, 0, 1]}]}).build(panda)
    assert [t.name for t in tasks] == ['self_collision', 'obstacles']
    obstacle_task = tasks[1]
    assert obstacle_task.model is tasks[0].model and obstacle_task.d_min == 0.02
    assert obstacle_task.gain == 0.5 and obstacle_task.priority == tasks[0].priority
    kinds = [o.kind for o in obstacle_task.obstacles.snapshot()]
    assert kinds == ['box', 'capsule', 'plane']
    assert obstacle_task.obstacles.snapshot()[0].name == 'table'
    alone = load_task_config({'obstacles': [{'type': 'sphere', 'radius': 0.1,
                                             'position': [0.4, 0, 0.4]}]}).build(panda)
    assert [t.name for t in alone] == ['obstacles'] and alone[0].d_min == 0.01


@pytest.mark.parametrize('entry, fragment', [
    ({'type': 'cone'}, 'obstacles[0].type: expected one of box'),
    ({'type': 'box', 'position': [0, 0, 0]}, 'obstacles[0].size: required key is missing'),
    ({'type': 'sphere', 'radius': 0.1, 'position': [0, 0, 0], 'size': 1},
     'obstacles[0].size: unknown key'),
    ({'type': 'sphere', 'radius': -0.1, 'position': [0, 0, 0]},
     "obstacles[0] (sphere): obstacle 'obstacles[0]': a sphere needs 1 sizes"),
    ({'type': 'box', 'size': [1, 1, 1], 'position': [0, 0, float('nan')]},
     'obstacles[0] (box):'),
])
def test_bad_obstacle_entries_are_named(entry, fragment):
    with pytest.raises(ConfigError) as err:
        load_task_config({'obstacles': [entry]})
    assert fragment in str(err.value)


def test_bad_arguments(panda, model):
    with pytest.raises(InputError, match=r'obstacles\[0\]: expected an Obstacle'):
        ObstacleTask(panda, model, ['table'])
    with pytest.raises(InputError, match='rows_per_link'):
        ObstacleTask(panda, model, [], rows_per_link=0)
    with pytest.raises(InputError, match='activation_distance'):
        ObstacleTask(panda, model, [], d_min=0.1, margin=0.01, activation_distance=0.1)
