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
Reachability maps against a closed form.

A planar arm of three revolute joints about z (links 0.5 m and 0.3 m, then a tool 0.2 m long)
reaches a pose (x, y, 0) with its tool along the angle φ in the plane exactly when its wrist,
(x, y) − 0.2 (cos φ, sin φ), lies in the annulus 0.2 ≤ r ≤ 0.8 of the first two links.
"""
import math

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.ik import reachability as reach
from pdls_ik.model import load_urdf
import pytest

PLANAR = """<robot name="planar3">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="tool"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/><limit lower="-3.1416" upper="3.1416" velocity="1" effort="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.5 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3.1416" upper="3.1416" velocity="1" effort="1"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3.1416" upper="3.1416" velocity="1" effort="1"/></joint>
  <joint name="tool" type="fixed"><parent link="l3"/><child link="tool"/>
    <origin xyz="0.2 0 0"/></joint>
</robot>"""
ANGLES = 2.0 * math.pi * np.arange(8) / 8
QUATS = np.stack([np.zeros(8), np.zeros(8), np.sin(ANGLES / 2), np.cos(ANGLES / 2)], axis=1)
#: pairs closer than this to the annulus' edges [m] are not compared (either answer is right
#: within the solver's tolerance and the voxel's rounding)
MARGIN = 0.01


def _closed_form(centers):
    """(V, 8) reachable pairs and (V,) whether any pair is too close to an edge to tell."""
    wrist = centers[:, None, :2] - 0.2 * np.stack([np.cos(ANGLES), np.sin(ANGLES)], axis=1)
    r = np.linalg.norm(wrist, axis=2)
    planar = np.abs(centers[:, 2:3]) < 1e-9
    reachable = planar & (r >= 0.2) & (r <= 0.8)
    unclear = planar & ((np.abs(r - 0.2) < MARGIN) | (np.abs(r - 0.8) < MARGIN))
    return reachable, unclear


def _check(result):
    reachable, unclear = _closed_form(result.centers)
    assert result.q.shape == (len(result.centers), 8, 3)
    clear = ~unclear
    assert np.array_equal(result.solved[clear], reachable[clear])
    whole = ~unclear.any(axis=1)
    assert np.array_equal(result.index[whole], reachable[whole].mean(axis=1))
    assert reachable.sum() > 100 and result.index.max() == 1.0


def test_the_planar_arm_map_on_a_two_worker_cluster_is_the_annulus(tmp_path):
    pytest.importorskip('distributed')
    robot = load_urdf(PLANAR)
    result = reach.reachability_map(robot, 'tool', voxel=0.125, orientations=QUATS, chunk=256,
                                    workers=2, progress=False, out=tmp_path / 'map.npz')
    _check(result)
    again = reach.ReachMap.load(tmp_path / 'map.npz')
    assert np.array_equal(again.index, result.index) and again.joint_names == ['j1', 'j2', 'j3']
    # each (voxel, orientation) answer is a solution: FK of q at the goal
    v, o = np.argwhere(result.solved)[0]
    T = robot.forward_kinematics(result.q[v, o], 'tool')
    assert np.allclose(T[:3, 3], result.centers[v], atol=1e-5)


def test_a_zarr_run_resumes_where_it_stopped(tmp_path, monkeypatch):
    pytest.importorskip('zarr')
    robot = load_urdf(PLANAR)
    store = tmp_path / 'map.zarr'
    options = {'voxel': 0.125, 'orientations': QUATS, 'chunk': 256,
               'scheduler': 'synchronous', 'progress': False, 'out': store}
    first = reach.reachability_map(robot, 'tool', **options)
    _check(first)
    import zarr
    done = zarr.open_group(str(store), mode='a')['done']
    done[1] = False                                      # as if stopped before chunk 1 ended
    calls = []
    solve = reach.solve_chunk
    monkeypatch.setattr(reach, 'solve_chunk', lambda *a: calls.append(a) or solve(*a))
    second = reach.reachability_map(robot, 'tool', **options)
    assert len(calls) == 1 and np.array_equal(second.index, first.index)
    assert np.array_equal(reach.ReachMap.load(store).index, first.index)
    with pytest.raises(InputError, match='made with other voxel'):
        reach.reachability_map(robot, 'tool', **{**options, 'voxel': 0.2})


def test_orientations_are_uniform_and_reproducible():
    q = reach.sample_orientations(2000, 7)
    assert np.array_equal(q, reach.sample_orientations(2000, 7))
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0)
    # uniform on SO(3): the rotation angle θ has density (1 − cos θ)/π, mean π/2 + 2/π
    angle = 2.0 * np.arccos(np.clip(np.abs(q[:, 3]), 0.0, 1.0))
    assert abs(angle.mean() - (math.pi / 2 + 2 / math.pi)) < 0.03


@pytest.mark.parametrize('kwargs, fragment', [
    ({'voxel': 0.0}, 'voxel'), ({'voxel': float('nan')}, 'voxel'),
    ({'orientations': 0}, 'orientations'), ({'orientations': [[0, 0, 0, 0]]}, 'zero'),
    ({'chunk': 0}, 'chunk'), ({'voxel': 1e-4}, 'million voxels')])
def test_bad_options_name_what_is_wrong(kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        reach.reachability_map(load_urdf(PLANAR), 'tool', scheduler='synchronous',
                               progress=False, **kwargs)


def test_reach_command_writes_the_map_a_picture_and_a_marker_bag(tmp_path, capsys):
    """``pdls-ik reach`` end to end: the map file, the PNG and a MarkerArray bag rviz can play."""
    pytest.importorskip('zarr')
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import Stores, get_typestore

    from pdls_ik.cli import main
    out = tmp_path / 'map.npz'
    code = main(['reach', 'panda', '--voxel', '0.4', '--orientations', '4',
                 '--scheduler', 'synchronous', '--out', str(out), '--no-progress'])
    text = capsys.readouterr().out
    assert code == 0 and 'reachable' in text
    result = reach.ReachMap.load(out)
    assert (tmp_path / 'map.png').stat().st_size > 10_000
    with AnyReader([tmp_path / 'map_bag'],
                   default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        (conn, _, raw), = list(reader.messages())
        markers = reader.deserialize(raw, conn.msgtype).markers
    assert conn.msgtype == 'visualization_msgs/msg/MarkerArray' and len(markers) == 1
    assert len(markers[0].points) == int((result.index > 0).sum()) > 0
    assert markers[0].header.frame_id == 'panda_link0' and markers[0].scale.x == 0.4


def test_reach_command_bad_output_is_one_line(tmp_path, capsys):
    from pdls_ik.cli import main
    code = main(['reach', 'panda', '--out', str(tmp_path / 'map.txt')])
    err = capsys.readouterr().err
    assert code == 2 and 'must end in .zarr or .npz' in err and len(err.splitlines()) == 1


def _reach_map(tmp_path, name, *options):
    from pdls_ik.cli import main
    out = tmp_path / f'{name}.npz'
    code = main(['reach', 'panda', '--voxel', '0.4', '--orientations', '4', '--scheduler',
                 'synchronous', '--out', str(out), '--no-progress', *options])
    assert code == 0
    return reach.ReachMap.load(out)


def test_reach_command_with_self_collision_counts_only_collision_free_solutions(tmp_path):
    from pdls_ik.model.collision import collision_model
    from pdls_ik.resources import bundled_urdf
    free = _reach_map(tmp_path, 'free')
    kept = _reach_map(tmp_path, 'kept', '--self-collision', '--d-min', '0.02')
    model = collision_model(load_urdf(bundled_urdf('panda')))   # the bundled capsules

    def closest(result):
        q = result.q[result.solved]
        return np.array([model.distances(qk).distance.min() for qk in q])

    assert closest(kept).min() >= 0.02 - 1e-6            # every counted solution is clear
    assert closest(free).min() < 0.0                     # without: some go through the body
    # the same batch solves, then the colliding ones solved again or dropped: a voxel reached
    # only through the body is not reached with --self-collision
    assert np.all(kept.solved <= free.solved)
    assert np.any((free.index > 0) & (kept.index == 0))


def test_reach_command_applies_the_config_and_refuses_tasks(tmp_path, capsys):
    from pdls_ik.cli import main
    config = tmp_path / 'c.yaml'
    config.write_text('tip_link: panda_hand\nrandom_seed: 3\n')
    result = _reach_map(tmp_path, 'hand', '--config', str(config))
    assert result.tip == 'panda_hand'
    tasks = tmp_path / 't.yaml'
    tasks.write_text('tasks: []\n')
    code = main(['reach', 'panda', '--tasks', str(tasks), '--out', str(tmp_path / 'm.npz')])
    assert code == 2 and capsys.readouterr().err == (
        'pdls-ik reach: error: --tasks: a reachability map solves the tip pose alone (the batch '
        'solver); closures and extra tasks are not supported\n')
    config.write_text('position_only: true\n')
    code = main(['reach', 'panda', '--config', str(config), '--out', str(tmp_path / 'm.npz')])
    assert code == 2 and "parameter 'position_only'" in capsys.readouterr().err
