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

"""Capsule-obstacle distances (box, sphere, capsule, plane) against coal; the obstacle set."""
from __future__ import annotations

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.model.obstacles import (capsule_distances, Obstacle, ObstacleSet,
                                     plane_obstacle)
import pytest
from scipy.spatial.transform import Rotation


def _pose(rng, trial):
    pose = np.eye(4)
    pose[:3, :3] = Rotation.random(random_state=trial).as_matrix()
    pose[:3, 3] = rng.uniform(-0.3, 0.3, 3)
    return pose


def _obstacles(rng, trial):
    pose = _pose(rng, trial)
    return [Obstacle('box', 'box', pose, tuple(rng.uniform(0.05, 0.4, 3))),
            Obstacle('sphere', 'sphere', pose, (0.1,)),
            Obstacle('capsule', 'capsule', pose, (0.07, 0.3)),
            Obstacle('plane', 'plane', pose)]


def _coal_capsule(coal, a, b, r):
    axis = b - a
    z = axis / np.linalg.norm(axis)
    x = np.cross(z, [1.0, 0, 0] if abs(z[0]) < 0.9 else [0, 1.0, 0])
    x /= np.linalg.norm(x)
    R = np.column_stack((x, np.cross(z, x), z))
    return coal.Capsule(r, float(np.linalg.norm(axis))), coal.Transform3s(R, 0.5 * (a + b))


def _coal_obstacle(coal, o):
    T = coal.Transform3s(o.pose[:3, :3], o.pose[:3, 3])
    shape = {'box': lambda: coal.Box(*o.size), 'sphere': lambda: coal.Sphere(o.size[0]),
             'capsule': lambda: coal.Capsule(*o.size),
             'plane': lambda: coal.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)}[o.kind]()
    return shape, T


def test_distances_and_witness_points_match_coal():
    coal = pytest.importorskip('coal', reason='coal not installed (pip install coal)')
    rng = np.random.default_rng(1)
    checked = dict.fromkeys(('box', 'sphere', 'capsule', 'plane'), 0)
    for trial in range(200):
        for o in _obstacles(rng, trial):
            a = rng.uniform(-0.8, 0.8, 3)
            b = a + rng.uniform(-0.3, 0.3, 3)
            d, w, n = capsule_distances(a[None], b[None], np.array([0.05]), o)
            if d[0] <= 1e-3:
                continue                   # coal's distance is for separated shapes
            shape, T = _coal_capsule(coal, a, b, 0.05)
            result = coal.DistanceResult()
            expected = coal.distance(shape, T, *_coal_obstacle(coal, o), coal.DistanceRequest(),
                                     result)
            assert abs(d[0] - expected) < 1e-9, o.kind
            assert np.linalg.norm(n[0]) == pytest.approx(1.0, abs=1e-12)
            if o.kind != 'plane':          # a plane's witness is a whole face when parallel
                np.testing.assert_allclose(w[0], result.getNearestPoint1(), atol=1e-6)
                # the obstacle's nearest point: the witness moved back by d along the normal
                np.testing.assert_allclose(w[0] - d[0] * n[0], result.getNearestPoint2(),
                                           atol=1e-6)
            checked[o.kind] += 1
    assert min(checked.values()) > 50


def test_penetration_is_negative_with_the_normal_pushing_out():
    box = Obstacle('b', 'box', np.eye(4), (0.4, 0.4, 0.4))
    # a sphere-capsule at the box centre, 0.05 below the top face
    d, w, n = capsule_distances(np.array([[0.0, 0.05, 0.15]]), np.array([[0.0, -0.05, 0.15]]),
                                np.array([0.02]), box)
    assert d[0] == pytest.approx(-0.05 - 0.02, abs=1e-12)
    np.testing.assert_allclose(n[0], [0, 0, 1], atol=1e-12)
    floor = plane_obstacle('floor', [0, 0, 2], 0.1)        # z = 0.05, free side up
    d, w, n = capsule_distances(np.array([[0, 0, 0.3], [0, 0, 0.0]]),
                                np.array([[0.1, 0, 0.2], [0.2, 0, 0.0]]), np.array([0.05, 0.05]),
                                floor)
    np.testing.assert_allclose(d, [0.2 - 0.05 - 0.05, -0.05 - 0.05], atol=1e-12)
    np.testing.assert_allclose(w[0], [0.1, 0, 0.15], atol=1e-12)


def test_bad_obstacles_are_named():
    with pytest.raises(InputError, match="obstacle 'x': kind 'cone'"):
        Obstacle('x', 'cone', np.eye(4), (1.0, 1.0))
    with pytest.raises(InputError, match="obstacle 'x': a box needs 3 sizes"):
        Obstacle('x', 'box', np.eye(4), (1.0, -1.0, 1.0))
    with pytest.raises(InputError, match="obstacle 'x': pose must be"):
        Obstacle('x', 'sphere', 2 * np.eye(4), (1.0,))
    with pytest.raises(InputError, match="obstacle 'p': plane normal"):
        plane_obstacle('p', [0, 0, 0], 1.0)


def test_obstacle_set_snapshots():
    s = ObstacleSet()
    ball = Obstacle('ball', 'sphere', np.eye(4), (0.1,))
    s.put('a', [ball, ball])
    before = s.snapshot()
    s.put('b', [ball])
    assert len(before) == 2 and len(s.snapshot()) == 3 and s.names() == ['a', 'b']
    assert s.remove('a') and not s.remove('a') and len(s.snapshot()) == 1
    s.clear()
    assert s.snapshot() == ()
