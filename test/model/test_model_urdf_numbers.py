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

"""Degenerate numbers in a URDF: each rule of pdls_ik.model.urdf_rules, end to end."""
from __future__ import annotations

import sys
import warnings

import numpy as np
from pdls_ik import IKSolver
from pdls_ik._accel import available as numba_available
from pdls_ik.cli import main
from pdls_ik.errors import JointError
from pdls_ik.model import load_urdf, URDFWarning
from pdls_ik.model.joint_vector import sampling_range
from pdls_ik.model.urdf_rules import master_range, master_rate, unit_axis
import pytest
from scipy.spatial.transform import Rotation

BACKENDS = ['numpy', pytest.param('numba', marks=pytest.mark.skipif(
    not numba_available(), reason='numba not installed (optional accelerator: pip install numba)'
))]

DBL_MAX = sys.float_info.max
ARM = """<robot name="r"><link name="a"/><link name="b"/><link name="c"/><link name="tip"/>
  <joint name="j1" type="{jtype}"><parent link="a"/><child link="b"/><axis xyz="{axis}"/>
    <limit {limit}/></joint>
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/><origin xyz="0.5 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="tool" type="fixed"><parent link="c"/><child link="tip"/><origin xyz="0.5 0 0"/>
  </joint></robot>"""


def _arm(limit='lower="-1" upper="1" effort="1" velocity="1"', axis='0 0 1', jtype='revolute'):
    return ARM.format(limit=limit, axis=axis, jtype=jtype)


def _load_quietly_except(text, match):
    """Load with numpy overflow as an error; exactly one URDFWarning line, matching ``match``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with np.errstate(over='raise', invalid='raise', divide='raise'):
            robot = load_urdf(text)
    lines = [str(w.message) for w in caught]
    assert len(lines) == (1 if match else 0), lines
    if match:
        assert issubclass(caught[0].category, URDFWarning) and '\n' not in lines[0]
        assert match in lines[0] and "'j1'" in lines[0]
    return robot


# ------------------------------------------------------------------ velocity and effort
@pytest.mark.parametrize('value', ['0', '0.0', '-0', '5e-324', '2.2250738585072014e-308',
                                   '1e-17', '-1e-300', None])
def test_zero_denormal_or_missing_velocity_means_no_limit(value):
    given = '' if value is None else f' velocity="{value}"'
    robot = _load_quietly_except(_arm(f'lower="-1" upper="1" effort="3"{given}'),
                                 'no usable velocity limit (velocity 0, below DBL_EPSILON or not '
                                 "given: read as none, as urdfdom's default and MoveIt do); "
                                 'trajectories and tracking move these joints at most at '
                                 'default_velocity_limit (1 rad/s) or, if prismatic, '
                                 'default_prismatic_velocity_limit (0.1 m/s) unless configured: '
                                 "'j1'")
    assert robot.velocity_limits[0] == np.inf and robot.effort_limits[0] == 3
    assert robot.velocity_limits[1] == 1


def test_negative_velocity_is_its_magnitude():
    robot = _load_quietly_except(_arm('lower="-1" upper="1" effort="-4" velocity="-2.5"'),
                                 'negative limit velocity read as its magnitude')
    assert robot.velocity_limits[0] == 2.5 and robot.effort_limits[0] == 4


def test_minus_infinite_velocity_is_no_limit_named_twice():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        robot = load_urdf(_arm('lower="-1" upper="1" effort="1" velocity="-inf"'))
    lines = [str(w.message) for w in caught]
    assert len(lines) == 2 and lines[0].startswith('negative limit velocity read as its '
                                                   "magnitude, as MoveIt does: 'j1'")
    assert lines[1].startswith('no usable velocity limit') and lines[1].endswith(": 'j1'")
    assert robot.velocity_limits[0] == np.inf


def test_small_but_normal_velocity_is_kept():
    robot = _load_quietly_except(_arm('lower="-1" upper="1" effort="1" velocity="1e-15"'), '')
    assert robot.velocity_limits[0] == 1e-15


# ------------------------------------------------------------------------ position bounds
@pytest.mark.parametrize('lower,upper', [('-1e300', '1e300'), (f'{-DBL_MAX!r}', f'{DBL_MAX!r}'),
                                         ('-1e16', '1e16'), ('-inf', 'inf'), ('-1e6', '1e6')])
@pytest.mark.parametrize('backend', BACKENDS)
def test_huge_bounds_are_unlimited_and_ik_still_solves(lower, upper, backend):
    robot = _load_quietly_except(
        _arm(f'lower="{lower}" upper="{upper}" effort="1" velocity="1"'),
        'read as unlimited (±inf)')
    assert (robot.lower[0], robot.upper[0]) == (-np.inf, np.inf)
    assert (robot.soft_lower[0], robot.soft_upper[0]) == (-np.inf, np.inf)
    q = np.array([2.5, 1.0])
    goal = robot.forward_kinematics(q, 'tip')
    with np.errstate(over='raise', invalid='raise'):
        solver = IKSolver(robot, 'tip', position_only=True, timeout=5.0, backend=backend)
        result = solver.solve(goal)
    assert result.success and result.position_error < 1e-5
    np.testing.assert_allclose(robot.forward_kinematics(result.q, 'tip')[:3, 3], goal[:3, 3],
                               atol=1e-5)


@pytest.mark.parametrize('lower,upper,inside', [('4', '1e300', (4, np.inf)),
                                                ('-1e300', '-4', (-np.inf, -4))])
@pytest.mark.parametrize('backend', BACKENDS)
def test_one_unlimited_side_keeps_the_other(lower, upper, inside, backend):
    robot = _load_quietly_except(
        _arm(f'lower="{lower}" upper="{upper}" effort="1" velocity="1"'), 'unlimited')
    assert (robot.lower[0], robot.upper[0]) == inside
    lo, hi = sampling_range(robot.lower, robot.upper)
    assert lo[0] < hi[0] and inside[0] <= lo[0] and hi[0] <= inside[1]
    q = np.array([5.0 if inside[0] == 4 else -5.0, 1.0])
    goal = robot.forward_kinematics(q, 'tip')
    result = IKSolver(robot, 'tip', position_only=True, timeout=5.0, backend=backend).solve(goal)
    assert result.success and inside[0] <= result.q[0] <= inside[1]


def test_soft_limits_follow_the_same_rule():
    text = _arm().replace('</joint>', '<safety_controller soft_lower_limit="-1e300" '
                                      'soft_upper_limit="0.5" k_velocity="1"/></joint>', 1)
    robot = _load_quietly_except(text, 'soft_lower_limit -1e+300')
    assert (robot.soft_lower[0], robot.soft_upper[0]) == (-1, 0.5)


def test_bounds_of_a_million_are_kept_below_it():
    robot = _load_quietly_except(_arm('lower="-999999" upper="999999" effort="1" velocity="1"'),
                                 '')
    assert (robot.lower[0], robot.upper[0]) == (-999999, 999999)


# ---------------------------------------------------------------------------------- axes
@pytest.mark.parametrize('axis,unit', [
    ('0 0 1e200', (0, 0, 1)), (f'0 0 {-DBL_MAX!r}', (0, 0, -1)),
    (f'{DBL_MAX!r} {DBL_MAX!r} 0', (np.sqrt(0.5), np.sqrt(0.5), 0)),
    ('1e-5 0 0', (1, 0, 0)), ('3e-9 4e-9 0', (0.6, 0.8, 0)),
    ('1 5e-324 0', (1, 5e-324, 0)), ('1e300 1e-300 0', (1, 1e-600, 0)),
])
def test_huge_and_tiny_axes_normalize_without_overflow(axis, unit):
    robot = _load_quietly_except(_arm(axis=axis), '')
    np.testing.assert_allclose(robot.joint('j1').axis, unit, rtol=1e-15, atol=0)
    R = robot.forward_kinematics([0.7, 0.0], 'b')[:3, :3]
    np.testing.assert_allclose(R, Rotation.from_rotvec(0.7 * np.array(unit)).as_matrix(),
                               atol=1e-15)


@pytest.mark.parametrize('axis', ['0 0 0', '1e-10 0 0', '5e-324 0 -5e-324', '0 0 1e-200'])
@pytest.mark.parametrize('jtype', ['revolute', 'prismatic', 'continuous'])
def test_an_axis_below_1e9_is_refused_as_zero_never_silently(axis, jtype):
    with pytest.warns(URDFWarning, match=r"joint 'j1': axis xyz = .* is zero .*disabled"):
        robot = load_urdf(_arm(axis=axis, jtype=jtype))
    assert robot.joint_names == ['j2']
    with pytest.raises(JointError, match='is zero') as info:
        robot.forward_kinematics([0.0], 'tip')
    assert info.value.joint == 'j1'


def test_unit_axis_rule_directly():
    assert unit_axis([0.0, 0.0, 0.0]) is None and unit_axis([9e-10, 0, 0]) is None
    np.testing.assert_array_equal(unit_axis([0, DBL_MAX, 0]), [0, 1, 0])
    np.testing.assert_allclose(np.linalg.norm(unit_axis([DBL_MAX, -DBL_MAX, DBL_MAX])), 1.0,
                               rtol=1e-15)


# ------------------------------------------------------------------ mimic arithmetic
@pytest.mark.parametrize('lower,upper,m,o,expected', [
    (-0.4, 0.6, 0.5, 0.1, (-1.0, 1.0)),
    (-0.4, 0.6, -0.5, 0.1, (-1.0, 1.0)),
    (0.0, 1.0, 1e-300, 0.0, (0.0, 1e300)),
    (0.0, 1.0, 1e-310, 0.0, (0.0, np.inf)),
    (-1.0, 1.0, 5e-324, 0.0, (-np.inf, np.inf)),
    (-1.0, 1.0, 0.0, 0.5, (-np.inf, np.inf)),
    (-1.0, 1.0, 0.0, 2.0, (np.inf, -np.inf)),
    (-np.inf, 1.0, -2.0, 0.0, (-0.5, np.inf)),
])
def test_master_range_never_overflows(lower, upper, m, o, expected):
    with np.errstate(all='ignore'):
        assert master_range(lower, upper, m, o) == pytest.approx(expected)
    assert master_rate(1.0, 1e-320) == np.inf and master_rate(2.0, -4.0) == 0.5


# ------------------------------------------------------------------- the CLI, no traceback
@pytest.mark.parametrize('limit,axis', [
    ('lower="-1.8e308" upper="1.8e308" effort="0" velocity="0"', '0 0 1e200'),
    ('lower="-1" upper="1" effort="-1" velocity="5e-324"', f'{DBL_MAX!r} 0 0'),
    ('lower="2" upper="1" effort="1" velocity="1"', '0 0 1'),
    ('lower="-1" upper="1" effort="1" velocity="1"', '0 0 1e-300'),
])
def test_cli_info_prints_rules_and_defects_without_traceback(tmp_path, capsys, limit, axis):
    path = tmp_path / 'r.urdf'
    path.write_text(_arm(limit, axis))
    assert main(['info', str(path)]) == 0
    out, err = capsys.readouterr()
    assert 'Traceback' not in out + err and 'j2' in out
    assert all(line.startswith('pdls-ik info: warning: ') for line in err.splitlines())
    assert ("disabled joint 'j1'" in out) == ('upper="1"' in limit and 'lower="2"' in limit
                                              or '1e-300' in axis)
