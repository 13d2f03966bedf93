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

"""Tests of pdls_ik.trajectory: velocity and acceleration limits, short way round, end points."""
import math
from types import SimpleNamespace
import warnings

import numpy as np
from pdls_ik.config import DEFAULT_PRISMATIC_VELOCITY_LIMIT, DEFAULT_VELOCITY_LIMIT, IKConfig
from pdls_ik.errors import InputError
from pdls_ik.model import load_urdf
from pdls_ik.model.joint_vector import joint_delta, wrap_angle
from pdls_ik.trajectory import plan_to, planner_for, Trajectory, velocity_bounds
import pytest


def _linkage(vel=(2.0, 1.0, 0.5), continuous=(False, False, True)):
    n = len(vel)
    return SimpleNamespace(joint_names=[f'j{i}' for i in range(n)],
                           velocity_limits=np.array(vel, dtype=float),
                           continuous=np.array(continuous, dtype=bool),
                           lower=np.array([-2.0] * (n - 1) + [-np.inf]),
                           upper=np.array([2.0] * (n - 1) + [np.inf]))


def _finite_diff_velocity(traj):
    pos = traj.positions()
    t = np.array([p.time_from_start for p in traj.points])
    return np.diff(pos, axis=0) / np.diff(t)[:, None]


def test_wrap_angle_range():
    x = np.array([-math.pi, math.pi, 3 * math.pi + 0.1, -7.0, 0.0])
    w = wrap_angle(x)
    assert np.all(w >= -math.pi) and np.all(w < math.pi)
    np.testing.assert_allclose(np.cos(w), np.cos(x), atol=1e-12)
    assert w[1] == pytest.approx(-math.pi)


def test_velocity_limits_respected_and_synchronized():
    link = _linkage()
    q0 = np.array([-1.5, 0.3, 0.0])
    q1 = np.array([1.5, -0.7, 1.0])
    traj = plan_to(link, q0, q1, velocity_scaling=0.5, num_points=401)
    vel = np.array([p.velocities for p in traj.points])
    assert np.all(np.abs(vel) <= 0.5 * link.velocity_limits + 1e-12)
    # the limiting joint (j2: 1 rad at 0.25 rad/s) reaches its scaled limit, the others do not
    assert np.max(np.abs(vel[:, 2])) == pytest.approx(0.25, rel=1e-9)
    assert np.max(np.abs(vel[:, 0])) == pytest.approx(0.75, rel=1e-9)
    # duration of the "third blends" profile: 1.5 * distance / velocity for the limiting joint
    assert traj.duration == pytest.approx(1.5 * 1.0 / 0.25)
    # the finite-difference velocity agrees with the reported one, and stays within limits
    fd = _finite_diff_velocity(traj)
    assert np.all(np.abs(fd) <= 0.5 * link.velocity_limits + 1e-9)
    # straight line in joint space: all joints share one time law
    s = (traj.positions() - q0) / (q1 - q0)
    np.testing.assert_allclose(s, np.repeat(s[:, :1], 3, axis=1), atol=1e-12)


def test_end_points_and_zero_end_velocities():
    link = _linkage()
    q0 = np.array([0.1, 0.2, 0.3])
    q1 = np.array([-0.4, 0.9, -1.2])
    traj = plan_to(link, q0, q1)
    np.testing.assert_array_equal(traj.points[0].positions, q0)
    np.testing.assert_array_equal(traj.points[-1].positions, q1)
    np.testing.assert_array_equal(traj.points[0].velocities, 0.0)
    np.testing.assert_array_equal(traj.points[-1].velocities, 0.0)
    assert traj.points[0].time_from_start == 0.0
    times = [p.time_from_start for p in traj.points]
    assert all(b > a for a, b in zip(times, times[1:]))
    assert traj.joint_names == ['j0', 'j1', 'j2']


def test_joint_limits_respected_along_path():
    link = _linkage()
    rng = np.random.default_rng(3)
    for _ in range(50):
        q0 = rng.uniform(-2.0, 2.0, 3)
        q1 = rng.uniform(-2.0, 2.0, 3)
        pos = plan_to(link, q0, q1).positions()
        assert np.all(pos[:, :2] >= -2.0) and np.all(pos[:, :2] <= 2.0)


def test_continuous_joint_takes_short_way_round():
    link = _linkage()
    q0 = np.array([0.0, 0.0, 3.0])
    q1 = np.array([0.0, 0.0, -3.0])        # short way: +0.283 rad through π
    traj = plan_to(link, q0, q1)
    pos = traj.positions()[:, 2]
    assert np.all(np.diff(pos) >= 0.0)
    assert pos[-1] - pos[0] == pytest.approx(2 * math.pi - 6.0)
    assert wrap_angle(pos[-1]) == pytest.approx(-3.0)
    assert np.all(np.abs(pos - 3.0) <= 2 * math.pi - 6.0 + 1e-12)
    # a revolute joint with the same numbers goes the long way (it has no wrap-around)
    np.testing.assert_allclose(joint_delta(q0[::-1], q1[::-1], np.array([False, False, True])),
                               [-6.0, 0.0, 0.0])


def test_acceleration_limit_respected():
    link = _linkage()
    q0 = np.zeros(3)
    q1 = np.array([1.0, 0.5, 0.1])
    traj = plan_to(link, q0, q1, max_acceleration=2.0, num_points=1001)
    acc = np.array([p.accelerations for p in traj.points])
    assert np.max(np.abs(acc)) == pytest.approx(2.0, rel=1e-9)
    # the velocity and acceleration profile integrates to the displacement
    vel = np.array([p.velocities for p in traj.points])
    t = np.array([p.time_from_start for p in traj.points])
    integral = np.sum(0.5 * (vel[1:] + vel[:-1]) * np.diff(t)[:, None], axis=0)
    np.testing.assert_allclose(integral, q1, atol=1e-5)
    # joint 0 (1 rad, v = 2, a = 2) has no cruise phase: triangle, T = 2 sqrt(1 / 2)
    assert traj.duration == pytest.approx(math.sqrt(2.0))
    # with a lower velocity a cruise phase appears: v = 0.5, a = 2 -> T = 1/0.5 + 0.5/2
    slow = plan_to(_linkage(vel=(0.5, 1.0, 0.5)), q0, q1, max_acceleration=2.0)
    assert slow.duration == pytest.approx(2.25)


def test_min_duration_stretches_and_noop_returns_goal():
    link = _linkage()
    traj = plan_to(link, np.zeros(3), np.array([0.01, 0.0, 0.0]), min_duration=0.5)
    assert traj.duration == pytest.approx(0.5)
    vel = np.array([p.velocities for p in traj.points])
    assert np.max(np.abs(vel[:, 0])) == pytest.approx(1.5 * 0.01 / 0.5)
    still = plan_to(link, np.ones(3), np.ones(3))
    assert isinstance(still, Trajectory) and len(still.points) == 1
    np.testing.assert_array_equal(still.points[0].positions, 1.0)


def test_bad_input():
    link = _linkage()
    with pytest.raises(InputError, match='q_to'):
        plan_to(link, np.zeros(3), np.zeros(2))
    with pytest.raises(InputError, match='q_from'):
        plan_to(link, [np.nan, 0, 0], np.zeros(3))
    with pytest.raises(InputError, match='velocity_scaling'):
        plan_to(link, np.zeros(3), np.ones(3), velocity_scaling=0.0)


# ------------------------------------------------- joints without a usable velocity limit
TWO_JOINTS = """<robot name="two"><link name="a"/><link name="b"/><link name="c"/>
  <joint name="shoulder" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1"{v1}/></joint>
  <joint name="slide" type="prismatic"><parent link="b"/><child link="c"/><origin xyz="0.3 0 0"/>
    <axis xyz="1 0 0"/><limit lower="-2" upper="2" effort="1"{v2}/></joint></robot>"""


def _unlimited_arm(velocity):
    """Load the two-joint arm (revolute, prismatic) whose joints give ``velocity`` (None: none)."""
    attr = '' if velocity is None else f' velocity="{velocity}"'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        robot = load_urdf(TWO_JOINTS.format(v1=attr, v2=attr))
    return robot, [str(w.message) for w in caught]


@pytest.mark.parametrize('velocity', ['0', None])
def test_a_joint_without_velocity_limit_moves_at_the_default_bound(velocity):
    robot, lines = _unlimited_arm(velocity)
    # one warning at load, naming both joints
    assert len(lines) == 1 and lines[0].startswith('no usable velocity limit')
    assert lines[0].endswith(": 'shoulder', 'slide'")
    np.testing.assert_array_equal(robot.velocity_limits, [np.inf, np.inf])
    bound = [DEFAULT_VELOCITY_LIMIT, DEFAULT_PRISMATIC_VELOCITY_LIMIT]
    np.testing.assert_array_equal(velocity_bounds(robot), bound)
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no warning after the load
        traj = plan_to(robot, [0.0, 0.0], [1.0, 0.5])
    first = traj.points[0]
    assert first.time_from_start == 0.0 and np.array_equal(first.positions, [0.0, 0.0])
    np.testing.assert_array_equal(traj.points[-1].positions, [1.0, 0.5])
    # the slide (0.5 m at 0.1 m/s) sets the pace: the "third blends" profile lasts 1.5 · 5 s
    assert traj.duration == pytest.approx(7.5, rel=1e-12)
    vel = np.array([p.velocities for p in traj.points])
    assert np.all(np.abs(vel) <= np.array(bound) + 1e-12)
    assert np.all(np.abs(_finite_diff_velocity(traj)) <= np.array(bound) + 1e-9)
    # a configured default
    config = IKConfig(default_velocity_limit=0.5, default_prismatic_velocity_limit=0.25)
    np.testing.assert_array_equal(velocity_bounds(robot, config), [0.5, 0.25])
    assert plan_to(robot, [0.0, 0.0], [1.0, 0.5], config=config).duration == \
        pytest.approx(3.0, rel=1e-12)


@pytest.mark.parametrize('velocity', ['0', None])
def test_a_stream_on_joints_without_velocity_limit_never_steps(velocity):
    robot, _ = _unlimited_arm(velocity)
    config = IKConfig()
    stream = planner_for(robot, config, 0.01)
    bound = np.array([DEFAULT_VELOCITY_LIMIT, DEFAULT_PRISMATIC_VELOCITY_LIMIT])
    np.testing.assert_array_equal(stream.vmax, bound)
    stream.reset([0.0, 0.0])
    first = stream.step([1.0, 0.5])
    assert first.points[0].time_from_start == 0.0
    np.testing.assert_array_equal(first.points[0].positions, [0.0, 0.0])
    assert first.duration > 0.0
    previous = np.zeros(2)
    for _ in range(2000):
        msg = stream.step([1.0, 0.5])
        for p in msg.points:
            assert np.all(np.abs(p.velocities) <= bound + 1e-12)
        step = np.abs(stream.positions - previous)
        assert np.all(step <= bound * 0.01 + 1e-12)
        previous = stream.positions.copy()
        if stream.arrived:
            break
    assert stream.arrived and np.array_equal(stream.positions, [1.0, 0.5])
