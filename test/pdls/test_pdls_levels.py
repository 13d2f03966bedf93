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

"""Levels: inequality rows (active only while violated or about to be), validation."""
import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.pdls import (CONVERGED, EQUAL, GREATER_EQUAL, LESS_EQUAL, Level, PDLSOptions, solve,
                          STALLED, step)
import pytest

EXACT = PDLSOptions(damping=0.0, theta_diff_clamping=False, adaptive_step_size=False)


def bounded_goal_problem(bound_row, comparison):
    """Level 0: one inequality row on x; level 1: pull (x, y) to (0, 2) (or (2, 2))."""
    target_x = 0.0 if comparison == LESS_EQUAL else 2.0

    def levels(th):
        x, y = th
        return [Level(np.array([bound_row - x]), np.array([[1.0, 0.0]]),
                      comparison=[comparison], name='bound'),
                Level(np.array([target_x - x, 2.0 - y]), np.eye(2), name='goal')]
    return levels


def test_lower_bound_row_is_satisfied_at_the_end():
    # x >= 1 written as e = 1 − x <= 0.
    result = solve(bounded_goal_problem(1.0, LESS_EQUAL), np.array([3.0, 0.0]), options=EXACT)
    assert result.status == STALLED  # the goal level conflicts with the bound
    assert result.converged_levels == [True, False]
    np.testing.assert_allclose(result.theta, [1.0, 2.0], atol=1e-12)
    assert result.residual_norms[0] == 0.0
    assert result.residual_norms[1] == pytest.approx(1.0)


def test_upper_bound_row_is_satisfied_at_the_end():
    # x <= 0.5 written as e = 0.5 − x >= 0; the goal pulls x to 2.
    result = solve(bounded_goal_problem(0.5, GREATER_EQUAL), np.array([-1.0, 0.0]),
                   options=EXACT)
    assert result.status == STALLED and result.residual_norms[0] == 0.0
    np.testing.assert_allclose(result.theta, [0.5, 2.0], atol=1e-12)
    # With the goal level optional, the satisfied bound alone means converged at the start.
    optional = solve(bounded_goal_problem(0.5, GREATER_EQUAL), np.array([-1.0, 0.0]),
                     options=EXACT.replace(last_is_optional=True))
    assert optional.status == CONVERGED and optional.iterations == 0


def test_violated_row_is_driven_to_its_bound_first():
    result = solve(bounded_goal_problem(1.0, LESS_EQUAL), np.array([-2.0, 0.0]), options=EXACT)
    np.testing.assert_allclose(result.theta, [1.0, 2.0], atol=1e-12)
    assert result.initial_residual_norms[0] == pytest.approx(3.0)


def test_a_satisfied_row_that_would_be_crossed_lands_on_its_bound_in_one_step():
    out = step(bounded_goal_problem(1.0, LESS_EQUAL)(np.array([3.0, 0.0])), np.array([3.0, 0.0]),
               options=EXACT)
    np.testing.assert_allclose(out.theta_diff, [-2.0, 2.0], atol=1e-15)
    assert out.limiting_iterations == 2
    assert out.residual_norms[0] == 0.0  # satisfied rows count as zero


def test_inactive_rows_do_not_constrain():
    # x >= −1 never binds: the result equals the problem without the row.
    with_row = bounded_goal_problem(-1.0, LESS_EQUAL)
    result = solve(with_row, np.array([3.0, 0.0]), options=EXACT)
    assert result.status == CONVERGED and result.iterations == 1
    np.testing.assert_allclose(result.theta, [0.0, 2.0], atol=1e-15)
    lv = with_row(np.array([3.0, 0.0]))
    a = step(lv, np.array([3.0, 0.0]), options=EXACT)
    b = step(lv[1:], np.array([3.0, 0.0]), options=EXACT)
    np.testing.assert_array_equal(a.theta_diff, b.theta_diff)
    assert a.ranks == [0, 2]


def test_equal_rows_mixed_with_inequalities():
    lev = Level(np.array([0.5, -0.2]), np.eye(2), comparison=[EQUAL, GREATER_EQUAL])
    out = step([lev], np.zeros(2), options=EXACT)
    np.testing.assert_allclose(out.theta_diff, [0.5, -0.2])
    lev = Level(np.array([0.5, 0.2]), np.eye(2), comparison=[EQUAL, GREATER_EQUAL])
    out = step([lev], np.zeros(2), options=EXACT)
    np.testing.assert_allclose(out.theta_diff, [0.5, 0.0])


def test_level_validation_messages():
    with pytest.raises(InputError, match=r"level 0 \('c'\): comparison row 1 is 2"):
        step([Level(np.zeros(2), np.eye(2), comparison=[0, 2], name='c')], np.zeros(2))
    with pytest.raises(InputError, match='comparison must have shape'):
        step([Level(np.zeros(2), np.eye(2), comparison=[0])], np.zeros(2))
    with pytest.raises(InputError, match='tolerance must be a finite number'):
        step([Level(np.zeros(2), np.eye(2), tolerance=-1.0)], np.zeros(2))
    with pytest.raises(InputError, match='non-empty list'):
        step([], np.zeros(2))
    with pytest.raises(InputError, match='level 0: residual must have shape'):
        step([(np.zeros((2, 1)), np.eye(2))], np.zeros(2))
    with pytest.raises(InputError, match='level 1: expected a Level'):
        step([(np.zeros(2), np.eye(2)), 'oops'], np.zeros(2))


def test_empty_level_is_allowed():
    out = step([(np.zeros(0), np.zeros((0, 3))), (np.ones(1), np.ones((1, 3)))], np.zeros(3),
               options=EXACT)
    assert out.ranks == [0, 1]
    np.testing.assert_allclose(out.theta_diff, np.full(3, 1 / 3))
