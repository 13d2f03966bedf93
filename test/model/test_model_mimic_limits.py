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

"""A mimic follower's own position and velocity limits constrain its master (IK, trajectories)."""
from __future__ import annotations

import warnings

import numpy as np
from pdls_ik import IKSolver
from pdls_ik.model import load_urdf, URDFWarning
from pdls_ik.trajectory import plan_to, with_mimic_joints
import pytest

# planar: j1 (master) then j2 following θ2 = m · q1 + o, then j3 following j2 (optional)
ARM = """<robot name="m"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="3"/>
    <safety_controller soft_lower_limit="-1.9" soft_upper_limit="1.9" k_velocity="1"/></joint>
  <joint name="j2" type="{t2}"><parent link="b"/><child link="c"/><origin xyz="0.5 0 0"/>
    <axis xyz="0 0 1"/>{limit2}<mimic joint="j1" multiplier="{m}" offset="{o}"/></joint>
  <joint name="j3" type="revolute"><parent link="c"/><child link="d"/><origin xyz="0.5 0 0"/>
    <axis xyz="0 0 1"/>{limit3}</joint>
  <joint name="tool" type="fixed"><parent link="d"/><child link="tip"/><origin xyz="0.2 0 0"/>
  </joint></robot>"""
FOLLOWER = '<limit lower="-0.4" upper="0.6" effort="1" velocity="1"/>'
FREE_J3 = '<limit lower="-3" upper="3" effort="1" velocity="1"/>'


def _arm(m=0.5, o=0.1, limit2=FOLLOWER, t2='revolute', limit3=FREE_J3):
    return ARM.format(m=m, o=o, limit2=limit2, t2=t2, limit3=limit3)


def _quiet(text):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        return load_urdf(text)


@pytest.mark.parametrize('m,o,lower,upper,velocity', [
    (0.5, 0.1, -1.0, 1.0, 2.0),       # θ2 ∈ [-0.4, 0.6]  ⇔  q1 ∈ [-1, 1]; 1 / 0.5
    (-0.5, 0.1, -1.0, 1.0, 2.0),      # swapped ends
    (2.0, 0.0, -0.2, 0.3, 0.5),       # 1 / 2
    (0.1, 0.0, -2.0, 2.0, 3.0),       # follower range [-4, 6] wider than the master's
])
def test_master_limits_are_the_intersection(m, o, lower, upper, velocity):
    robot = _quiet(_arm(m, o))
    i = robot.joint_index('j1')
    assert robot.lower[i] == pytest.approx(lower) and robot.upper[i] == pytest.approx(upper)
    assert robot.velocity_limits[i] == pytest.approx(velocity)
    assert lower <= robot.soft_lower[i] <= robot.soft_upper[i] <= upper
    for q1 in (robot.lower[i], robot.upper[i]):
        theta = robot.mimic_values(np.array([q1, 0.0]))['j2']
        assert -0.4 - 1e-12 <= theta <= 0.6 + 1e-12


def test_soft_limits_of_the_follower_are_mapped_too():
    limit2 = FOLLOWER + '<safety_controller soft_lower_limit="-0.3" soft_upper_limit="0.5" ' \
                        'k_velocity="1"/>'
    robot = _quiet(_arm(limit2=limit2))
    assert (robot.soft_lower[0], robot.soft_upper[0]) == pytest.approx((-0.8, 0.8))
    assert (robot.lower[0], robot.upper[0]) == pytest.approx((-1.0, 1.0))


def test_a_mimic_of_a_mimic_constrains_the_first_master():
    # j3 follows j2: θ3 = 2 θ2 = q1 + 0.2 ∈ [-0.5, 0.5] ⇔ q1 ∈ [-0.7, 0.3]
    limit3 = '<limit lower="-0.5" upper="0.5" effort="1" velocity="4"/>' \
             '<mimic joint="j2" multiplier="2"/>'
    robot = _quiet(_arm(limit3=limit3))
    assert robot.joint_names == ['j1']
    assert (robot.lower[0], robot.upper[0]) == pytest.approx((-0.7, 0.3))
    assert robot.velocity_limits[0] == pytest.approx(2.0)   # j2: 1/0.5 = 2; j3: 4/1 = 4


def test_followers_without_position_limits_leave_the_range():
    robot = _quiet(_arm(t2='continuous', limit2='<limit effort="1" velocity="0.5"/>'))
    assert (robot.lower[0], robot.upper[0]) == (-2, 2) and robot.velocity_limits[0] == 1.0
    with pytest.warns(URDFWarning, match="'j2'.*empty range, it follows its <mimic> master and "
                                         'does not limit it'):
        robot = load_urdf(_arm(limit2='<limit effort="1" velocity="1"/>'))
    assert (robot.lower[0], robot.upper[0]) == (-2, 2) and robot.velocity_limits[0] == 2.0


def test_a_follower_range_that_would_lock_the_master_is_ignored_and_named():
    # the PR2 gripper's sign error: multiplier -1 with a range on the positive side
    text = _arm(m=-1, o=0, limit2=FOLLOWER.replace('-0.4', '0.1')).replace(
        'lower="-2" upper="2"', 'lower="0" upper="2"')
    with pytest.warns(URDFWarning, match=r"'j2': its range \[0.1, 0.6\] .* needs 'j1' in "
                                         r'\[-0.6, -0.1\].* is ignored'):
        robot = load_urdf(text)
    assert (robot.lower[0], robot.upper[0]) == (0, 2)


def test_ik_keeps_master_and_follower_within_their_limits():
    robot = _quiet(_arm())
    ik = IKSolver(robot, 'tip', position_only=True, timeout=0.5, backend='numpy',
                  position_tolerance=1e-9)
    inside = robot.forward_kinematics([0.8, 0.3], 'tip')
    result = ik.solve(inside)
    assert result.success and result.position_error < 1e-9
    outside = robot.forward_kinematics([1.6, 0.3], 'tip')  # j2 would be 0.9 > 0.6
    for goal in (inside, outside):
        q = ik.solve(goal, seed=[0.0, 0.0]).q
        assert -1.0 - 1e-9 <= q[0] <= 1.0 + 1e-9
        assert -0.4 - 1e-9 <= robot.mimic_values(q)['j2'] <= 0.6 + 1e-9


def test_trajectories_keep_the_follower_velocity():
    robot = _quiet(_arm())
    trajectory = with_mimic_joints(robot, plan_to(robot, [-1.0, 0.0], [1.0, 0.0]))
    j1, j2 = trajectory.joint_names.index('j1'), trajectory.joint_names.index('j2')
    speeds = np.abs([p.velocities for p in trajectory.points])
    assert speeds[:, j1].max() == pytest.approx(2.0, rel=1e-6)   # the follower binds, not 3
    assert speeds[:, j2].max() <= 1.0 + 1e-9
    for point in trajectory.points:
        assert -1.0 - 1e-12 <= point.positions[j1] <= 1.0 + 1e-12
        assert -0.4 - 1e-12 <= point.positions[j2] <= 0.6 + 1e-12


def test_a_master_with_an_empty_range_stays_put():
    text = _arm().replace('lower="-2" upper="2"', 'lower="1.5" upper="1.5"')
    with pytest.warns(URDFWarning, match="'j1': limit lower = upper = 1.5: empty range"):
        robot = load_urdf(text)
    assert (robot.lower[0], robot.upper[0]) == (1.5, 1.5)   # the follower's [-1, 1] is moot
