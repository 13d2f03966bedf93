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

"""Collision model: capsule distances against coal, gradients, fitting, pairs, YAML, SRDF."""
from __future__ import annotations

from conftest import random_q, REPO
from fd_support import central_differences
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.errors import ConfigError, LinkError
from pdls_ik.model.collision import (Capsule, collision_model, CollisionModel,
                                     read_disabled_pairs, segment_closest_points)
from pdls_ik.model.collision_geometry import (bounding_capsule, CollisionWarning,
                                              example_robot_data_share, resolve_mesh)
import pytest

TWO_LINKS = """<robot name="two">
  <link name="base"><collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <link name="l1"><collision><origin xyz="0 0 0.25"/>
    <geometry><cylinder radius="0.04" length="0.5"/></geometry></collision></link>
  <link name="l2"><collision><origin xyz="0.2 0 0"/>
    <geometry><cylinder radius="0.03" length="0.4"/></geometry></collision></link>
  <link name="l3"><collision><geometry><sphere radius="0.05"/></geometry></collision>
    <collision><geometry><mesh filename="package://nowhere/meshes/tool.stl"/></geometry>
    </collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0 0 0.5"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/><origin xyz="0.4 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


def _coal_capsule(coal, a, b, r):
    """Return the coal shape and transform of the capsule [a, b] (its axis is z, centred)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    axis = b - a
    length = float(np.linalg.norm(axis))
    if length < 1e-15:
        return coal.Sphere(r), coal.Transform3s(np.eye(3), a)
    z = axis / length
    x = np.cross(z, [1.0, 0, 0] if abs(z[0]) < 0.9 else [0, 1.0, 0])
    x /= np.linalg.norm(x)
    R = np.column_stack((x, np.cross(z, x), z))
    return coal.Capsule(r, length), coal.Transform3s(R, 0.5 * (a + b))


def _coal_distance(coal, cap1, cap2):
    (s1, t1), (s2, t2) = _coal_capsule(coal, *cap1), _coal_capsule(coal, *cap2)
    res = coal.DistanceResult()
    d = coal.distance(s1, t1, s2, t2, coal.DistanceRequest(), res)
    return d, np.array(res.getNearestPoint1()), np.array(res.getNearestPoint2())


def _capsule_distance(cap1, cap2):
    (a1, b1, r1), (a2, b2, r2) = cap1, cap2
    c1, c2 = segment_closest_points(*(np.asarray(v, float)[None] for v in (a1, b1, a2, b2)))
    diff = (c1 - c2)[0]
    dist = np.linalg.norm(diff)
    n = diff / dist
    return dist - r1 - r2, c1[0] - r1 * n, c2[0] + r2 * n


def test_capsule_distances_and_witness_points_match_coal():
    coal = pytest.importorskip('coal')
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(300):
        kind = rng.integers(4)
        caps = []
        for _ in range(2):
            a = rng.uniform(-0.5, 0.5, 3)
            b = a if kind == 0 else a + rng.uniform(-0.4, 0.4, 3)
            caps.append((a, b, float(rng.uniform(0.01, 0.1))))
        if kind == 2:   # parallel segments
            d = caps[0][1] - caps[0][0]
            caps[1] = (caps[1][0], caps[1][0] + 0.7 * d, caps[1][2])
        cases.append(caps)
    cases.append([((0, 0, 0), (0, 0, 1), 0.1), ((0.5, 0, 0.5), (0.5, 0, 0.5), 0.1)])
    cases.append([((0, 0, 0), (0, 0, 1), 0.1), ((0.5, 0, 2.0), (0.5, 0, 3.0), 0.1)])
    checked = 0
    for cap1, cap2 in cases:
        d, w1, w2 = _capsule_distance(cap1, cap2)
        dc, p1, p2 = _coal_distance(coal, cap1, cap2)
        assert d == pytest.approx(dc, abs=1e-9)
        if d > 1e-6:     # coal's witness points are defined for separated shapes
            assert np.abs(w1 - p1).max() < 1e-9 and np.abs(w2 - p2).max() < 1e-9
            checked += 1
    assert checked > 200


def test_bounding_capsule_contains_box_corners_and_is_tight():
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(500, 3)) * (0.3, 0.05, 0.02)
    a, b, r = bounding_capsule(pts)
    c1, _ = segment_closest_points(np.tile(a, (500, 1)), np.tile(b, (500, 1)), pts, pts)
    dist = np.linalg.norm(pts - c1, axis=1)
    assert dist.max() <= r + 1e-12
    assert dist.max() == pytest.approx(r, abs=1e-12)         # some point on the surface
    assert np.linalg.norm(b - a) > 0.5                       # along the long axis


@pytest.fixture(scope='module')
def two():
    return load_urdf(TWO_LINKS)


def test_primitives_pairs_and_missing_mesh_warning(two):
    with pytest.warns(CollisionWarning, match="'l3'.*nowhere/meshes/tool.stl: not found"):
        model = CollisionModel.from_urdf(two, TWO_LINKS)
    assert model.links == ['base', 'l1', 'l2']       # l3 left out: its mesh is missing
    assert model.pairs == [('base', 'l2')]
    assert model.skipped == {('base', 'l1'): 'adjacent', ('l1', 'l2'): 'adjacent'}
    box = model.capsules[0]
    corners = np.array([[x, y, z] for x in (-.1, .1) for y in (-.1, .1) for z in (-.05, .05)])
    c1, _ = segment_closest_points(np.tile(box.a, (8, 1)), np.tile(box.b, (8, 1)), corners,
                                   corners)
    assert np.linalg.norm(corners - c1, axis=1).max() <= box.radius + 1e-12
    cyl = model.capsules[1]
    assert cyl.radius == pytest.approx(0.04) and abs(cyl.b[2] - cyl.a[2]) == pytest.approx(0.5)


def test_distance_gradient_matches_finite_differences(two):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', CollisionWarning)
        model = CollisionModel.from_urdf(two, TWO_LINKS, neutral=False)
    panda = load_urdf(REPO / 'urdf' / 'panda.urdf')
    pmodel = collision_model(panda)
    rng = np.random.default_rng(7)
    for m, robot in ((model, two), (pmodel, panda)):
        for _ in range(5):
            q = random_q(robot, rng)
            res, G = m.distances_and_gradient(q)
            assert np.allclose(res.distance, m.distances(q).distance, atol=1e-15)
            fd = central_differences(lambda x: m.distances(x).distance, q, 1e-7)
            assert np.abs(G - fd).max() < 1e-6


def test_panda_pair_distances_against_coal_on_pinocchio_poses(pinocchio_bridge):
    coal = pytest.importorskip('coal')
    panda = load_urdf(REPO / 'urdf' / 'panda.urdf')
    model = collision_model(panda)
    bridge = pinocchio_bridge((REPO / 'urdf' / 'panda.urdf').read_text(), panda)
    rng = np.random.default_rng(11)
    for _ in range(10):
        q = random_q(panda, rng)
        ours = model.distances(q).distance

        def world(cap):
            T = bridge.pose(q, cap.link)
            return (T[:3, :3] @ cap.a + T[:3, 3], T[:3, :3] @ cap.b + T[:3, 3], cap.radius)

        for k, (la, lb) in enumerate(model.pairs):
            ref = min(_coal_distance(coal, world(c1), world(c2))[0]
                      for c1 in model.capsules if c1.link == la
                      for c2 in model.capsules if c2.link == lb)
            assert ours[k] == pytest.approx(ref, abs=1e-9)


def test_yaml_round_trip_and_errors(two, tmp_path):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', CollisionWarning)
        model = CollisionModel.from_urdf(two, TWO_LINKS, skip_pairs=[('base', 'l2')])
    assert model.pairs == [] and model.skipped[('base', 'l2')] == 'explicit'
    model.save(tmp_path / 'm.yaml')
    again = CollisionModel.load(two, tmp_path / 'm.yaml')
    assert again.skipped == model.skipped
    for c1, c2 in zip(model.capsules, again.capsules):
        assert c1.link == c2.link and np.allclose(c1.a, c2.a, atol=1e-6)
        assert c1.radius <= c2.radius <= c1.radius + 3e-6       # rounded up
    (tmp_path / 'bad.yaml').write_text('capsules: {nolink: [{center: [0, 0, 0], '
                                       'radius: 0.1}]}')
    with pytest.raises(LinkError, match='nolink'):
        CollisionModel.load(two, tmp_path / 'bad.yaml')
    (tmp_path / 'bad2.yaml').write_text('capsules: {l1: [{a: [0, 0, 0], radius: 0.1}]}')
    with pytest.raises(ConfigError, match=r'capsules.l1\[0\]'):
        CollisionModel.load(two, tmp_path / 'bad2.yaml')
    with pytest.raises(ConfigError, match='no usable <collision>'):
        CollisionModel.from_urdf(load_urdf(REPO / 'urdf' / 'ur5.urdf'))


def test_srdf_pairs_and_neutral_contacts(two, tmp_path):
    srdf = tmp_path / 'two.srdf'
    srdf.write_text('<robot name="two"><disable_collisions link1="l2" link2="base" '
                    'reason="Never"/><disable_collisions link1="l3" link2="x"/></robot>')
    assert read_disabled_pairs(srdf) == [('l2', 'base', 'Never'), ('l3', 'x', '')]
    caps = [Capsule('base', (0, 0, 0), (0, 0, 0), 0.1), Capsule('l2', (0, 0, 0), (0, 0, 0), 0.1)]
    model = CollisionModel(two, caps, srdf=srdf)
    assert model.pairs == [] and model.skipped[('base', 'l2')] == 'srdf'
    # l2's sphere at 0.5 m above the base at q = 0: inside a 0.6 m base sphere → neutral contact
    caps[0] = Capsule('base', (0, 0, 0), (0, 0, 0), 0.6)
    model = CollisionModel(two, caps)
    assert model.pairs == [] and model.skipped[('base', 'l2')] == 'neutral'
    assert model.neutral_contacts[0][2] == pytest.approx(0.5 - 0.7)
    assert 'base / l2: in contact at the neutral configuration' in model.report()[1]
    (tmp_path / 'broken.srdf').write_text('<robot>')
    with pytest.raises(ConfigError, match='broken.srdf.*not well-formed XML'):
        read_disabled_pairs(tmp_path / 'broken.srdf')


def test_srdf_group_states_are_neutral_and_moved_by_keeps_what_the_solve_moves(two, tmp_path):
    caps = [Capsule('base', (0, 0, 0), (0, 0, 0), 0.1), Capsule('l2', (0, 0, 0), (0, 0, 0), 0.02),
            Capsule('l3', (0, 0, 0), (0, 0, 0), 0.05)]
    # folded: j2 = 1.4 puts l3's origin 0.126 m from the base's centre (radii 0.1 + 0.05)
    srdf = tmp_path / 'two.srdf'
    srdf.write_text('<robot name="two"><group name="arm"><joint name="j2"/></group>'
                    '<group_state name="folded" group="arm"><joint name="j2" value="1.4"/>'
                    '</group_state></robot>')
    model = CollisionModel(two, caps, srdf=srdf)
    assert model.skipped[('base', 'l3')] == 'neutral'
    contact = {(a, b): d for a, b, d in model.neutral_contacts}
    assert contact[('base', 'l3')] == pytest.approx(np.hypot(0.4 * np.cos(1.4),
                                                             0.5 - 0.4 * np.sin(1.4)) - 0.15)
    model = CollisionModel(two, caps)                 # the middle of the limits alone
    assert model.pairs == [('base', 'l2'), ('base', 'l3')]
    # a solve that moves j3 alone cannot change the base-l2 distance (path j1, j2)
    moved = model.moved_by(np.array([False, False, True]))
    assert moved.pairs == [('base', 'l3')] and moved.skipped[('base', 'l2')] == 'not moved'
    assert model.pairs == [('base', 'l2'), ('base', 'l3')]            # the model is unchanged
    q = np.array([0.3, -0.7, 1.1])
    assert moved.distances(q).distance == pytest.approx(model.distances(q).distance[1:])
    assert model.moved_by(np.ones(3, dtype=bool)) is model
    assert model.links_moved_by(np.array([False, True, False])).tolist() == [False, True, True]


def test_package_meshes_resolve_through_mesh_path_and_example_robot_data(tmp_path):
    mesh = tmp_path / 'my_robot' / 'meshes' / 'link.stl'
    mesh.parent.mkdir(parents=True)
    mesh.write_text('solid x\nendsolid x\n')
    assert resolve_mesh('package://my_robot/meshes/link.stl', None, [str(tmp_path)]) == mesh
    assert resolve_mesh('meshes/link.stl', tmp_path / 'my_robot') == mesh
    assert resolve_mesh('package://my_robot/meshes/other.stl', None, [str(tmp_path)]) is None
    # an empty authority (Talos in example-robot-data): PKG is the first path segment
    assert resolve_mesh('package:///my_robot/meshes/link.stl', None, [str(tmp_path)]) == mesh
    share = example_robot_data_share()
    if share is None:
        pytest.skip('example-robot-data is not installed (pip install example-robot-data)')
    found = resolve_mesh('package://example-robot-data/robots/panda_description/meshes/'
                         'collision/link4.stl')
    assert found == share / 'robots/panda_description/meshes/collision/link4.stl'
    talos = resolve_mesh('package:///example-robot-data/robots/talos_data/meshes/arm/'
                         'arm_1_collision.STL')
    assert talos == share / 'robots/talos_data/meshes/arm/arm_1_collision.STL'


def test_fitted_mesh_capsules_contain_the_mesh():
    trimesh = pytest.importorskip('trimesh')
    share = example_robot_data_share()
    if share is None:
        pytest.skip('example-robot-data is not installed (pip install example-robot-data)')
    from pdls_ik.model.collision_geometry import fit_mesh
    path = share / 'robots/panda_description/meshes/collision/link4.stl'
    caps = fit_mesh(str(path), (1.0, 1.0, 1.0), 3)
    assert len(caps) == 3
    mesh = trimesh.load(str(path), force='mesh')
    pts = np.vstack((mesh.vertices, trimesh.sample.sample_surface(mesh, 3000, seed=1)[0]))
    inside = np.zeros(len(pts), dtype=bool)
    for a, b, r in caps:
        c, _ = segment_closest_points(np.tile(a, (len(pts), 1)), np.tile(b, (len(pts), 1)),
                                      pts, pts)
        inside |= np.linalg.norm(pts - c, axis=1) <= r + 1e-9
    assert inside.all()


def test_capsules_are_no_closer_than_the_real_meshes(pinocchio_bridge):
    """The fitted capsules contain the meshes: a pair's mesh distance (coal) ≥ its capsule's."""
    coal = pytest.importorskip('coal')
    trimesh = pytest.importorskip('trimesh')
    share = example_robot_data_share()
    if share is None:
        pytest.skip('example-robot-data is not installed (pip install example-robot-data)')
    panda = load_urdf(REPO / 'urdf' / 'panda.urdf')
    model = collision_model(panda)
    bridge = pinocchio_bridge((REPO / 'urdf' / 'panda.urdf').read_text(), panda)
    meshes = {}
    for link in model.links:
        name = link.replace('panda_', '')
        path = share / 'robots/panda_description/meshes/collision' / f'{name}.stl'
        if not path.is_file():
            continue                              # the fingers are boxes in the URDF
        mesh = trimesh.load(str(path), force='mesh')
        bvh = coal.BVHModelOBBRSS()
        bvh.beginModel(len(mesh.faces), len(mesh.vertices))
        bvh.addVertices(np.ascontiguousarray(mesh.vertices, dtype=float))
        bvh.addTriangles(np.ascontiguousarray(mesh.faces, dtype=np.int64))
        bvh.endModel()
        meshes[link] = bvh
    assert len(meshes) == 9
    rng = np.random.default_rng(21)
    checked = 0
    for _ in range(8):
        q = random_q(panda, rng)
        ours = model.distances(q).distance
        for k, (la, lb) in enumerate(model.pairs):
            if la not in meshes or lb not in meshes or ours[k] <= 0.0:
                continue
            Ta, Tb = bridge.pose(q, la), bridge.pose(q, lb)
            d = coal.distance(meshes[la], coal.Transform3s(Ta[:3, :3], Ta[:3, 3]),
                              meshes[lb], coal.Transform3s(Tb[:3, :3], Tb[:3, 3]),
                              coal.DistanceRequest(), coal.DistanceResult())
            assert d >= ours[k] - 1e-9
            checked += 1
    assert checked > 30
