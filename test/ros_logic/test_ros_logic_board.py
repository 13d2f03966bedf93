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

"""Diagnostics board: one status per source, names, change detection for immediate publishing."""
from pdls_ik.diagnostics import DiagnosticStatus, ERROR, OK, WARN
from pdls_ik.ros_logic.board import Board


def test_statuses_named_sorted_and_stringified():
    board = Board('pdls_ik_node', 'panda')
    assert board.error('joint_states', 'bad', received=3) is True
    assert board.ok('goal_pose', 'goal accepted') is True
    statuses = board.statuses()
    assert [s.name for s in statuses] == ['pdls_ik_node: goal_pose', 'pdls_ik_node: joint_states']
    assert [s.level for s in statuses] == [OK, ERROR]
    assert statuses[1].values == {'received': '3'} and statuses[1].hardware_id == 'panda'


def test_change_detection():
    board = Board('n')
    assert board.warn('a', 'x') is True
    assert board.warn('a', 'x', other=1) is False  # same level and message: no burst
    assert board.error('a', 'x') is True
    assert board.error('a', 'y') is True
    assert board.put('solver', DiagnosticStatus(OK, 'pdls_ik', 'solved', '', {'k': 'v'}))
    got = board.get('solver')
    assert got.name == 'n: solver' and got.values == {'k': 'v'} and got.level == OK
    assert board.get('a').level == ERROR and board.get('a').message == 'y'
    assert WARN not in [s.level for s in board.statuses()]
