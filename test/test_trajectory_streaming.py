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
Streamed trajectories as a joint trajectory controller needs them (pdls_ik.trajectory).

Each message continues the commanded motion: velocity continuous across messages (jump at most
acceleration limit × dt), commanded velocity equal to the motion that results, limits held,
strictly increasing whole-nanosecond times, rest only on the goal; the controller's joints only.
"""
from msgs_support import roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.msgs import joint_state, msg_to_ns, pose_from_msg, pose_stamped
from pdls_ik.msgs.trajectory_msgs import joint_trajectory
from pdls_ik.ros_logic.tracker import Tracker
from pdls_ik.trajectory import acceleration_limits, braking_horizon, StreamPlanner
from pdls_ik.trajectory import plan_to, whole_ns_times
import pytest
import ros_support
from ros_support import reachable_goal

DT = 0.01
VMAX = np.array([2.0, 1.0, 0.5])
Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])


def _planner(vmax=VMAX, amax=None, dt=DT):
    amax = acceleration_limits(vmax, 0.0) if amax is None else amax
    return StreamPlanner(['a', 'b', 'c'], vmax, amax, dt)


def _stream(planner, targets):
    """(positions (K+1, n), velocities (K+1, n), messages) of one message per target."""
    p, v, msgs = [planner.positions.copy()], [planner.velocities.copy()], []
    for q in targets:
        msgs.append(planner.step(q))
        p.append(planner.positions.copy())
        v.append(planner.velocities.copy())
    return np.array(p), np.array(v), msgs


def test_fixed_target_reached_at_rest_within_bounds():
    planner = _planner()
    planner.reset(np.zeros(3))
    target = np.array([1.0, -0.3, 0.02])
    p, v, msgs = _stream(planner, [target] * 120)
    amax = acceleration_limits(VMAX, 0.0)
    assert np.all(np.abs(v) <= VMAX + 1e-12)
    assert np.all(np.abs(np.diff(v, axis=0)) <= amax * DT * (1 + 1e-9))
    rest = np.flatnonzero(~np.any(v, axis=1))
    assert rest[0] == 0 and rest[1] > 20  # at rest at the start, then only on the target
    np.testing.assert_array_equal(p[rest[1]], target)
    assert np.all(p[rest[1]:] == target)
    # commanded velocity = the motion that results: constant acceleration within a cycle
    np.testing.assert_allclose(np.diff(p, axis=0) / DT, 0.5 * (v[1:] + v[:-1]), atol=1e-12)
    # the joints move together: straight line in joint space
    s = p[:rest[1] + 1] / target
    np.testing.assert_allclose(s, s[:, :1].repeat(3, axis=1), atol=1e-9)


def test_messages_continue_each_other_and_end_at_rest(store):  # noqa: F811
    """
    Without a clock (stamp zero) each message starts at the current cycle's commanded state.

    Its first point (``time_from_start`` 0) is the previous message's second one, its second
    point the new commanded state one cycle on; it ends at rest on the target.
    """
    ts, types = store
    planner = _planner()
    planner.reset(np.zeros(3))
    rng = np.random.default_rng(1)
    targets = [np.array([0.5, -0.2, 0.1]) + 0.05 * rng.standard_normal(3) for _ in range(60)]
    p, v, msgs = _stream(planner, targets)
    for k, traj in enumerate(msgs):
        first, second, last = traj.points[0], traj.points[1], traj.points[-1]
        np.testing.assert_array_equal(first.positions, p[k])
        np.testing.assert_array_equal(first.velocities, v[k])
        np.testing.assert_array_equal(second.positions, p[k + 1])
        np.testing.assert_array_equal(second.velocities, v[k + 1])
        np.testing.assert_array_equal(last.velocities, 0.0)  # a late message: it stops
        np.testing.assert_allclose(last.positions, targets[k], atol=1e-12)
        assert traj.start_ns is None
        msg = roundtrip(ts, joint_trajectory(types, traj))
        assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (0, 0)
        ns = [msg_to_ns(pt.time_from_start) for pt in msg.points]
        assert ns[:2] == [0, 10_000_000] and all(b > a for a, b in zip(ns, ns[1:]))
        assert ns[-1] >= 1e9  # held at rest until MIN_HOLD: never over on a late arrival
        # the tail continues the motion within the bounds
        vel = np.array([pt.velocities for pt in traj.points])
        assert np.all(np.abs(vel) <= VMAX + 1e-12)
        # a controller's cubic through (position, velocity) points is the law's motion itself:
        # p1 - p0 = (v0 + v1) dt / 2 on every segment
        pos = np.array([pt.positions for pt in traj.points])
        t = np.array([pt.time_from_start for pt in traj.points])
        np.testing.assert_allclose(np.diff(pos, axis=0),
                                   0.5 * (vel[1:] + vel[:-1]) * np.diff(t)[:, None], atol=1e-12)
        assert all(pt.accelerations is None for pt in traj.points)


def test_planner_rejects_bad_input():
    planner = _planner()
    with pytest.raises(InputError, match='no commanded state'):
        planner.step(np.zeros(3))
    planner.reset(np.zeros(3))
    with pytest.raises(InputError, match='3 finite'):
        planner.step([0.0, np.nan, 0.0])


def test_whole_ns_times_strictly_increasing():
    assert whole_ns_times([0.0, 1e-10, 2e-10, 0.5]) == [0.0, 1e-9, 2e-9, 0.5]
    assert whole_ns_times([0.01, 0.02]) == [0.01, 0.02]


def test_tiny_move_has_distinct_point_times():
    """A very small move gave two points with the same time_from_start."""
    from types import SimpleNamespace
    link = SimpleNamespace(joint_names=['a'], velocity_limits=np.array([np.inf]),
                           continuous=np.array([False]))
    traj = plan_to(link, [0.0], [1e-12], num_points=3, min_duration=1e-12)
    times = [round(p.time_from_start * 1e9) for p in traj.points]
    assert times == sorted(set(times)) and len(times) == 3


def test_braking_horizon_allows_full_speed():
    amax = acceleration_limits(VMAX, 0.0)
    h = braking_horizon(VMAX, amax, DT)
    assert h == pytest.approx(2 * DT + 0.1)  # v / (2 a) = 0.2 s / 2
    planner = _planner()
    planner.reset(np.zeros(3))
    # a target that runs ahead by v_max × H, as a tracking solve over H gives
    for _ in range(100):
        planner.step(planner.positions + VMAX * h)
    np.testing.assert_allclose(planner.velocities, VMAX, rtol=1e-9)


def test_acceleration_limits_from_parameters():
    np.testing.assert_array_equal(acceleration_limits(VMAX, 3.0, 0.5), [1.5, 1.5, 1.5])
    np.testing.assert_array_equal(acceleration_limits([2.0, np.inf], 0.0), [10.0, np.inf])


def _panda_tracker(**changes):
    robot = ros_support.panda_robot(**dict({'tracking_timeout': 1.0}, **changes))
    return robot, Tracker(robot)


def _goal(types, robot, q):
    return pose_from_msg(pose_stamped(types, reachable_goal(robot, q), ''), 'goal_pose')


def test_node_stream_on_the_panda(store):  # noqa: F811
    """
    A goal stream (circle) then a stop: the controller's 7 joints, continuity, 5 % speed match.

    The commanded velocity of each message's first point is the velocity of the motion that
    results (the next messages' positions) within 5 %; the velocity never jumps by more than
    acceleration limit × dt; it is zero only when the last goal is reached.
    """
    _, types = store
    robot, tracker = _panda_tracker()
    cycles = []
    for k in range(150):  # goals moving on a 5 cm circle at 100 Hz
        q = Q_GOAL.copy()
        q[0] += 0.1 * np.sin(2 * np.pi * k / 150)
        q[3] += 0.1 * np.cos(2 * np.pi * k / 150) - 0.1
        tracker.offer_goal(_goal(types, robot, q))
        cycles.append(tracker.cycle(DT))
    while tracker.has_goal:
        cycles.append(tracker.cycle(DT))
    assert cycles[-1].status.values['goal'] == 'reached'
    arm = list(range(7))
    for out in cycles:
        assert out.trajectory.joint_names == robot.joint_names[:7]  # no finger
    p = np.array([cycles[0].q_from] + [c.commanded for c in cycles])[:, arm]
    v = np.array([np.zeros(7)] + [c.trajectory.points[1].velocities for c in cycles])
    vmax = robot.linkage.velocity_limits[arm]
    amax = acceleration_limits(robot.linkage.velocity_limits, 0.0)[arm]
    assert np.all(np.abs(v) <= vmax + 1e-12)
    assert np.all(np.abs(np.diff(v, axis=0)) <= amax * DT * (1 + 1e-9))
    motion = np.diff(p, axis=0) / DT  # the motion that results, per cycle
    speed = np.linalg.norm(motion, axis=1)
    commanded = np.linalg.norm(0.5 * (v[1:] + v[:-1]), axis=1)
    moving = speed > 0.05 * speed.max()
    np.testing.assert_allclose(commanded[moving], speed[moving], rtol=0.05)
    at_rest = ~np.any(v[1:], axis=1)
    assert not at_rest[:-1].any() and at_rest[-1]  # rest only at the goal


def test_stream_continues_from_command_not_lagging_state(store):  # noqa: F811
    """While the command moves, a lagging joint_states does not reset the stream."""
    _, types = store
    robot, tracker = _panda_tracker()
    tracker.offer_goal(_goal(types, robot, Q_GOAL))
    first = tracker.cycle(DT)
    lagging = first.q_from  # the robot has not moved yet
    tracker.offer_joint_state(joint_state(types, robot.joint_names, lagging), now=0.0)
    second = tracker.cycle(DT, now=0.001)
    np.testing.assert_array_equal(second.q_from, first.commanded)


@pytest.mark.parametrize('every, delay', [(1, 0), (5, 4)])
def test_figure_eight_stream_followed_within_a_millimetre(store, every, delay):  # noqa: F811
    """
    The demo's figure-eight as a goal stream at 100 Hz (every cycle) or 20 Hz (every 5th).

    After the first second (the start from rest), the commanded tip is within 1e-3 m of the goal
    of the time the command takes effect; at 20 Hz, of the goal path 4 cycles earlier (the
    stream is run as its linear interpolation, one goal interval less a cycle late, so that the
    motion neither stops between goals nor overshoots the last one). No ERROR; bounds held.
    """
    from pdls_ik.cli.demo_path import default_path
    _, types = store
    robot, tracker = _panda_tracker()
    path, home = default_path(robot.linkage, robot.tip_link, robot.base_link, 5.0, 'panda')
    tracker.offer_joint_state(joint_state(types, robot.joint_names, home))
    gaps, levels, velocities = [], [], []
    for k in range(1, 301):
        if (k - 1) % every == 0:
            pose = pose_stamped(types, path.pose(k * DT), '')
            tracker.offer_goal(pose_from_msg(pose, 'goal_pose'))
        out = tracker.cycle(DT)
        tip = robot.linkage.forward_kinematics(out.commanded, robot.tip_link)
        goal_then = path.pose((k + 1 - delay) * DT)[0]
        gaps.append(np.linalg.norm(tip[:3, 3] - goal_then))
        levels.append(out.status.level)
        velocities.append(out.trajectory.points[1].velocities)
    assert max(gaps[100:]) <= 1e-3
    assert 2 not in levels
    v = np.array(velocities)
    arm = robot.linkage.velocity_limits[:7]
    assert np.all(np.abs(v) <= arm + 1e-12)
    amax = acceleration_limits(robot.linkage.velocity_limits, 0.0)[:7]
    assert np.all(np.abs(np.diff(v, axis=0)) <= amax * DT * (1 + 1e-9))


def test_a_pause_is_no_licence_to_start_now():
    """
    A stream that resumes after a pause (no cycle for a second) starts a lookahead later.

    The controller holds the last message's rest until a new message arrives, which may be up
    to the lookahead late: the new motion starts after it, from the same rest.
    """
    planner = StreamPlanner(['a', 'b', 'c'], VMAX, acceleration_limits(VMAX, 0.0), DT,
                            lookahead=10, past=2)
    planner.reset(np.zeros(3), now=100.0)
    for k in range(1, 80):
        planner.step([0.2, 0.1, 0.0], now=100.0 + k * DT)
    assert planner.at_rest
    rest = planner.positions.copy()
    planner.step([0.5, 0.0, 0.1], now=101.5)
    traj = planner.step([0.5, 0.0, 0.1], now=101.51)
    ticks = [traj.start_ns + round(p.time_from_start * 1e9) for p in traj.points]
    moving = [t for t, p in zip(ticks, traj.points) if np.any(p.velocities)]
    assert min(moving) > round(101.5e9) + 10 * 10_000_000  # at rest until now + lookahead
    still = [p for t, p in zip(ticks, traj.points) if t <= round(101.5e9) + 10 * 10_000_000]
    assert all(np.array_equal(p.positions, rest) for p in still)
