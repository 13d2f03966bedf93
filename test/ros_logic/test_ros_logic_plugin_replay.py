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
The IK requests MoveIt's move_group sent to pdls_ik/PDLSKinematicsPlugin, replayed without ROS.

``test/data/moveit_plugin_requests.jsonl``: every 15th attempt recorded (PDLS_IK_PLUGIN_RECORD)
while ``benchmarks/moveit_move_group.py -n 100 --plugins pdls`` ran in the lab (MoveIt 2.12.4,
Jazzy): OMPL's goal sampling for pose goals and compute_cartesian_path's steps on the bundled
Panda, group panda_arm, 5 ms per call. Each line: group, base and tip frames, joint names,
poses, seed, timeout, consistency limits, attempt, code, solution.
"""
import json
from pathlib import Path

import numpy as np
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.kinematics_plugin import KinematicsPlugin, RECORD_ENV
import pytest
from scipy.spatial.transform import Rotation

DATA = Path(__file__).resolve().parents[1] / 'data' / 'moveit_plugin_requests.jsonl'
#: the solver's default tolerances (IKConfig position_tolerance, orientation_tolerance)
POSITION_TOLERANCE, ORIENTATION_TOLERANCE = 1e-5, 1e-4
#: replay budget [s]: generous, so that the answer never depends on the machine's load
REPLAY_TIMEOUT = 1.0


def _records():
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def _plugin(record, parameters=None):
    return KinematicsPlugin(bundled_urdf('panda').read_text(), record['group'],
                            record['joint_names'], record['base_frame'], record['tip_frames'],
                            dict({'backend': 'numpy'}, **(parameters or {})))


def _errors(plugin, record, q):
    errors = []
    for tip, goal, got in zip(record['tip_frames'], record['poses'],
                              plugin.forward(record['tip_frames'], q)):
        dp = np.linalg.norm(np.subtract(got[:3], goal[:3]))
        dr = (Rotation.from_quat(got[3:]) * Rotation.from_quat(goal[3:]).inv()).magnitude()
        errors.append((dp, dr))
    return errors


@pytest.fixture(scope='module')
def recorded():
    records = _records()
    plugin = _plugin(records[0])
    return plugin, records


def test_the_record_is_moveit_s_panda_arm_and_its_successes_hold():
    records = _records()
    successes = [r for r in records if r['code'] == 1]
    assert len(records) > 150 and len(successes) > 150
    assert {(r['group'], r['base_frame'], tuple(r['tip_frames'])) for r in records} == {
        ('panda_arm', 'panda_link0', ('panda_link8',))}
    plugin = _plugin(records[0])
    for r in successes:
        for dp, dr in _errors(plugin, r, r['solution']):
            assert dp < POSITION_TOLERANCE and dr < ORIENTATION_TOLERANCE


def test_every_recorded_success_is_solved_again(recorded):
    plugin, records = recorded
    for r in (r for r in records if r['code'] == 1):
        code, q, message = plugin.search(r['poses'], r['seed'], REPLAY_TIMEOUT,
                                         r['consistency_limits'], r['attempt'])
        assert code == 1, (r, message)
        for dp, dr in _errors(plugin, r, q):
            assert dp < POSITION_TOLERANCE and dr < ORIENTATION_TOLERANCE, (r, dp, dr)


def test_search_appends_one_json_line_per_attempt_to_the_record_file(tmp_path, monkeypatch):
    record = _records()[0]
    path = tmp_path / 'record.jsonl'
    monkeypatch.setenv(RECORD_ENV, str(path))
    plugin = _plugin(record)
    goal = record['poses']
    assert plugin.search(goal, record['seed'], REPLAY_TIMEOUT, [], 0)[0] == 1
    assert plugin.search(goal, [0.0] * 6, REPLAY_TIMEOUT, [], 2)[0] == -17
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(line['attempt'], line['code']) for line in lines] == [(0, 1), (2, -17)]
    assert lines[0]['poses'] == goal and lines[0]['seed'] == record['seed']
    assert lines[0]['timeout'] == REPLAY_TIMEOUT and lines[0]['consistency_limits'] == []
    assert lines[0]['joint_names'] == record['joint_names'] and len(lines[0]['solution']) == 7
    assert lines[1]['solution'] == []
    monkeypatch.delenv(RECORD_ENV)
    _plugin(record).search(goal, record['seed'], REPLAY_TIMEOUT)
    assert len(path.read_text().splitlines()) == 2      # no variable: no record
