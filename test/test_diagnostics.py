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

"""Tests of pdls_ik.diagnostics: levels, messages and key-values from a solve result."""
from types import SimpleNamespace

from pdls_ik import diagnostics as diag


def _result(**over):
    base = {'q': [0.0, 0.0], 'success': True, 'status': 'converged', 'iterations': 7,
            'restarts': 0, 'solve_time': 0.0012, 'position_error': 3e-7,
            'orientation_error': 2e-6, 'residual_norms': [0.0, 4e-7], 'lambdas': [0.0, 0.05],
            'min_singular_values': [1.0, 0.3], 'level_names': ['lock', 'frame:tool'],
            'clamped_joints': [], 'notes': []}
    base.update(over)
    return SimpleNamespace(**base)


def test_constants_match_diagnostic_msgs():
    assert (diag.OK, diag.WARN, diag.ERROR, diag.STALE) == (0, 1, 2, 3)


def test_ok_status_keys_and_values():
    st = diag.status_from_result(_result(), name='ik', hardware_id='panda')
    assert st.level == diag.OK and st.name == 'ik' and st.hardware_id == 'panda'
    assert st.message == 'solved in 7 iterations'
    v = st.values
    assert v['status'] == 'converged' and v['success'] == 'true'
    assert v['iterations'] == '7' and v['restarts'] == '0'
    assert v['solve time [ms]'] == '1.2'
    assert v['residual [lock]'] == '0' and v['residual [frame:tool]'] == '4e-07'
    assert v['lambda [frame:tool]'] == '0.05'
    assert v['min singular value'] == '0.3'
    assert v['joints at limits'] == 'none'
    assert 'notes' not in v
    assert all(isinstance(x, str) for x in v.values())


def test_near_singularity_warns():
    st = diag.status_from_result(_result(min_singular_values=[1.0, 1e-4]))
    assert st.level == diag.WARN
    assert 'singularity' in st.message and st.values['min singular value'] == '0.0001'


def test_joints_at_limits_warn_and_notes():
    st = diag.status_from_result(_result(clamped_joints=['j4', 'j6'],
                                         notes=['normalized quaternion (norm 2)']))
    assert st.level == diag.WARN
    assert st.values['joints at limits'] == 'j4, j6'
    assert st.values['notes'] == 'normalized quaternion (norm 2)'


def test_failure_is_error_with_errors_in_message():
    st = diag.status_from_result(_result(success=False, status='max_time', position_error=0.5))
    assert st.level == diag.ERROR
    assert 'max_time' in st.message and '0.5 m' in st.message
    assert st.values['success'] == 'false'


def test_error_status_for_bad_input():
    st = diag.error_status('goal pose: non-finite value in position.x', frame='base_link',
                           x=float('nan'))
    assert st.level == diag.ERROR and st.name == 'pdls_ik'
    assert st.values == {'frame': 'base_link', 'x': 'nan'}


def test_failure_caused_by_an_extra_task_names_it():
    """A closure left open while the tip pose is met is not reported as 'pose error 0' only."""
    res = _result(success=False, status='stalled', position_error=0.0, orientation_error=0.0,
                  task_errors={'loop_B': 0.05, 'com': 1e-12})
    st = diag.status_from_result(res)
    assert st.level == diag.ERROR
    assert st.message == ('no solution (stalled): position error 0 m, orientation error 0 rad; '
                          'task errors: loop_B 0.05, com 1e-12')
    assert st.values['task error [loop_B]'] == '0.05'
    assert diag.failure_message(res) == st.message


def test_no_step_taken_has_no_singular_value():
    st = diag.status_from_result(_result(success=False, status='max_time', iterations=0,
                                         min_singular_values=[]))
    assert st.values['min singular value'] == 'n/a (no step taken)'
    assert 'nan' not in st.message
