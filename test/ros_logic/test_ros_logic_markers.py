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

"""Marker helpers: goal rate limiting (the final pose is never lost) and the tip pose."""
import numpy as np
from pdls_ik.ros_logic.markers import marker_state, RateLimiter, tip_pose
import pytest
from ros_support import panda_robot, reachable_goal


def test_rate_limiter_passes_one_per_period_and_flushes_last():
    limiter = RateLimiter(0.1)
    assert limiter.offer(0.00, 'a') == 'a'
    assert limiter.offer(0.03, 'b') is None
    assert limiter.offer(0.06, 'c') is None
    assert limiter.flush(0.08) is None  # its slot has not come yet
    assert limiter.flush(0.10) == 'c'   # the newest held-back pose, once
    assert limiter.flush(0.50) is None
    assert limiter.offer(0.15, 'd') is None
    assert limiter.offer(0.21, 'e') == 'e'  # held-back "d" superseded by a pass
    assert limiter.flush(1.0) is None


def test_rate_limiter_rejects_negative_period():
    with pytest.raises(ValueError, match='period'):
        RateLimiter(-1.0)


def test_tip_pose_is_fk_of_tip():
    robot = panda_robot()
    q = robot.default_q()
    np.testing.assert_array_equal(tip_pose(robot, q), reachable_goal(robot, q))


def test_marker_state_needs_the_tip_joints_only():
    """Issue 28: mock hardware without the finger: the marker stayed at mid-limits."""
    robot = panda_robot()
    names = list(robot.joint_names)
    assert names[-1] == 'panda_finger_joint1'  # not between panda_link0 and panda_link8
    q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, np.nan])
    arm = np.array([True] * 7 + [False])
    placed = marker_state(robot, q, arm)
    np.testing.assert_array_equal(placed[:7], q[:7])
    assert placed[7] == robot.default_q()[7]            # the missing finger at mid-limits
    np.testing.assert_allclose(tip_pose(robot, placed), reachable_goal(robot, placed))
    for missing in range(7):                            # any arm joint missing: not yet
        found = arm.copy()
        found[missing] = False
        assert marker_state(robot, q, found) is None
    complete = np.r_[q[:7], 0.02]
    np.testing.assert_array_equal(marker_state(robot, complete, np.ones(8, bool)), complete)
