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

"""Periodic variables: turned through their limits by the limiting loop and the solve."""
import math

import numpy as np
from pdls_ik.errors import ConfigError
from pdls_ik.pdls import PDLSOptions, solve, step
from pdls_ik.pdls.periodic import turn_into_limits
import pytest

TWO_PI = 2.0 * math.pi
LO, UP = np.array([-3.0]), np.array([3.0])      # one turn minus a gap (3, 2π − 3)


def circle_levels(goal_angle):
    """Return the levels of a unit link reaching the point at goal_angle (e, J = ∂p/∂θ)."""
    goal = np.array([math.cos(goal_angle), math.sin(goal_angle)])

    def levels(theta):
        t = theta[0]
        return [(goal - np.array([math.cos(t), math.sin(t)]),
                 np.array([[-math.sin(t)], [math.cos(t)]]))]
    return levels


def test_turn_into_limits_takes_the_image_within_the_limits_only():
    lower = np.array([-math.pi, -3.0, -3.0, -1.0])
    upper = np.array([math.pi, 3.0, 3.0, 1.0])
    periodic = np.array([True, True, True, False])
    t = np.array([3.5, 3.2, 4.0 + TWO_PI, 1.5])
    out, turned = turn_into_limits(t, lower, upper, periodic)
    # 3.5 − 2π inside ±π; 3.2 − 2π = −3.08 in the gap: not turned; 4 + 2π − 4π = 4 − 2π inside;
    # the non-periodic variable is never turned
    assert turned.tolist() == [True, False, True, False]
    assert out == pytest.approx([3.5 - TWO_PI, 3.2, 4.0 - TWO_PI, 1.5], abs=1e-15)
    assert t.tolist() == [3.5, 3.2, 4.0 + TWO_PI, 1.5]        # input untouched
    inside = np.array([0.5, 2.0, -2.0, 0.0])
    same, none = turn_into_limits(inside, lower, upper, periodic)
    assert same is inside and not none.any()


def test_limiting_loop_lets_a_periodic_variable_through_its_limit():
    theta = np.array([2.8])
    levels = circle_levels(-2.8)(theta)       # the short way to −2.8 crosses π
    opts = PDLSOptions(damping=0.0, theta_diff_clamping=False)
    clamped = step(levels, theta, LO, UP, None, opts)
    assert clamped.clamped.tolist() == [0]
    assert theta[0] + clamped.theta_diff[0] == 3.0
    through = step(levels, theta, LO, UP, None,
                   opts.replace(periodic_variables=np.array([True])))
    assert through.clamped.size == 0
    assert theta[0] + through.theta_diff[0] > 3.0   # beyond the limit: its image is within


def test_solve_converges_through_the_limit_only_when_periodic():
    theta0 = np.array([2.8])
    blocked = solve(circle_levels(-2.8), theta0, LO, UP, PDLSOptions())
    assert not blocked.converged
    assert blocked.theta[0] == 3.0       # held at the limit that stands in the way
    res = solve(circle_levels(-2.8), theta0, LO, UP,
                PDLSOptions(periodic_variables=np.array([True])))
    assert res.converged and res.iterations <= 6
    assert res.theta[0] == pytest.approx(-2.8, abs=1e-9)
    assert LO[0] <= res.theta[0] <= UP[0]


def test_solve_still_clamps_a_periodic_variable_whose_target_lies_in_the_gap():
    # 3.1 has no image in [−3, 3]: the limit holds, as for any variable
    res = solve(circle_levels(3.1), np.array([2.8]), LO, UP,
                PDLSOptions(periodic_variables=np.array([True])))
    assert not res.converged
    assert res.theta[0] == 3.0


def test_periodic_variables_option_is_checked():
    with pytest.raises(ConfigError, match='periodic_variables'):
        PDLSOptions(periodic_variables=[0, 1])
    with pytest.raises(ConfigError, match='periodic_variables'):
        PDLSOptions(periodic_variables=np.array([True])).periodic_mask(2)
    assert PDLSOptions(periodic_variables=np.array([False, False])).periodic_mask(2) is None
