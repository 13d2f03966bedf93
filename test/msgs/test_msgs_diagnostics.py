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

"""DiagnosticArray from pdls_ik.diagnostics statuses, against diagnostic_msgs (Humble, Jazzy)."""
from msgs_support import roundtrip, store  # noqa: F401
from pdls_ik.diagnostics import DiagnosticStatus, ERROR, error_status, OK, WARN
from pdls_ik.msgs.diagnostic_msgs import diagnostic_array, status_level, status_values


def test_diagnostic_array_roundtrip_all_fields(store):  # noqa: F811
    ts, types = store
    statuses = [
        DiagnosticStatus(OK, 'pdls_ik: solver', 'solved in 3 iterations', 'panda',
                         {'status': 'converged', 'iterations': '3'}),
        DiagnosticStatus(WARN, 'pdls_ik: solver', 'near a singularity', '', {}),
        error_status("goal_pose: unknown frame 'world2'", frame_id='world2'),
    ]
    msg = roundtrip(ts, diagnostic_array(types, statuses, stamp=100.000000001))
    assert msg.__msgtype__ == 'diagnostic_msgs/msg/DiagnosticArray'
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (100, 1)
    assert [status_level(s) for s in msg.status] == [OK, WARN, ERROR]
    assert [s.name for s in msg.status] == ['pdls_ik: solver', 'pdls_ik: solver', 'pdls_ik']
    assert msg.status[0].message == 'solved in 3 iterations'
    assert msg.status[0].hardware_id == 'panda'
    assert status_values(msg.status[0]) == {'status': 'converged', 'iterations': '3'}
    assert [kv.key for kv in msg.status[0].values] == ['status', 'iterations']  # order kept
    assert status_values(msg.status[1]) == {}
    assert status_values(msg.status[2]) == {'frame_id': 'world2'}
    assert msg.status[2].message == "goal_pose: unknown frame 'world2'"


def test_status_level_reads_rclpy_bytes():
    class Msg:
        level = b'\x02'
    assert status_level(Msg()) == ERROR
