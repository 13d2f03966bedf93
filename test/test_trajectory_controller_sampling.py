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
The node's stream as a joint_trajectory_controller samples it, with irregular delivery.

The tracker (the node's streaming path, ``pdls_ik.ros_logic.tracker``) runs the bundled
Panda's figure-eight, or a marker-drag-like goal sequence, one cycle per node period at a
randomly late time (seeded), each message reaching the controller model
(``jtc_support.JtcModel``: ros2_controllers 4.42's sampling) a random delay later. Checked on
the controller's reference, per control cycle: velocity jump at most acceleration limit × dt,
commanded velocity equal to the resulting motion (speed within 5 %), limits held, the goal path
followed within 1 mm, every message valid for the controller and none spliced from its last
command.
"""
from jtc_support import run_stream
from msgs_support import store  # noqa: F401
import numpy as np
from pdls_ik.cli.demo_path import default_path
from pdls_ik.msgs import joint_state, pose_from_msg, pose_stamped
from pdls_ik.ros_logic.tracker import Tracker
from pdls_ik.trajectory import acceleration_limits
import pytest
import ros_support

DT = 0.01
ARM = list(range(7))
#: the node's settings for a stamped stream (pdls_ik_node: stream_lookahead, STAMPED_PAST)
LOOKAHEAD, PAST = 0.1, 2


def _tracker(types, scaling=1.0, stamped=True):
    robot = ros_support.panda_robot(tracking_timeout=1.0, velocity_scaling=scaling,
                                    acceleration_scaling=scaling)
    timing = (LOOKAHEAD, PAST) if stamped else (0.0, 0)
    return robot, Tracker(robot, lookahead=timing[0], past=timing[1])


def _limits(robot):
    cfg = robot.config
    vmax = robot.linkage.velocity_limits[ARM] * cfg.velocity_scaling
    amax = acceleration_limits(robot.linkage.velocity_limits, cfg.max_acceleration,
                               cfg.acceleration_scaling)[ARM]
    return vmax, amax


def _jumps(t, velocities, amax):
    """Velocity change of each control cycle over acceleration limit × its period, (m-1,)."""
    return np.max(np.abs(np.diff(velocities, axis=0)) / (amax * np.diff(t)[:, None]), axis=1)


def _check_messages(robot, sent):
    """Check what the controller's validate_trajectory_msg() checks, at the arrival time."""
    for arrival, traj in sent:
        assert traj.joint_names == robot.joint_names[:7]
        ns = [round(p.time_from_start * 1e9) for p in traj.points]
        assert all(b > a for a, b in zip(ns, ns[1:]))
        np.testing.assert_array_equal(traj.points[-1].velocities, 0.0)
        assert traj.start_ns is None or traj.start_ns + ns[-1] >= arrival  # not over


def _figure_eight(types, stamped, node_late, delivery, seed, scaling=1.0, cycles=600):
    robot, tracker = _tracker(types, scaling, stamped)
    path, home = default_path(robot.linkage, robot.tip_link, robot.base_link, 5.0, 'panda')
    tracker.offer_joint_state(joint_state(types, robot.joint_names, home))

    def produce(k, now):
        goal = min(int(now / DT + 1e-9), cycles)  # the newest goal of a 100 Hz stream
        pose = pose_stamped(types, path.pose(goal * DT), '')
        tracker.offer_goal(pose_from_msg(pose, 'goal_pose'))
        out = tracker.cycle(DT, clock=now)
        return None if out is None else out.trajectory

    run = run_stream(produce, home[ARM], DT, cycles + 100, stamped,
                     np.random.default_rng(seed), node_late, delivery)
    return robot, path, run


# the tip's largest distance from the path: 0.19 mm, 0.20 mm, 1.05 mm (seed 2: at the
# figure's fastest turn, t = 2.16 s, the controller follows the older trajectory while the
# newer one is 2.5 periods late)
@pytest.mark.parametrize('node_late, delivery, seed, gap_bound', [
    (0.0, 0.0, 0, 1e-3),        # one message per control cycle
    (0.005, 0.02, 1, 1e-3),     # node cycles up to half a period late, delivery up to 2 periods
    (0.01, 0.025, 2, 1.5e-3),   # a period late, delivery up to 2.5 periods
])
def test_figure_eight_through_the_controller(store, node_late, delivery, seed,  # noqa: F811
                                             gap_bound):
    _, types = store
    robot, path, (t, ref_p, ref_v, out_p, model, sent) = _figure_eight(
        types, True, node_late, delivery, seed)
    vmax, amax = _limits(robot)
    _check_messages(robot, sent)
    assert model.used > 300 and model.spliced == 0
    # reference and command: no velocity jump above a_max dt between control cycles
    assert np.max(_jumps(t, ref_v, amax)) <= 1.0 + 1e-9
    out_v = np.diff(out_p, axis=0) / np.diff(t)[:, None]
    assert np.max(_jumps(t[1:], out_v, amax)) <= 1.0 + 1e-6
    # limits held
    assert np.all(np.abs(ref_v) <= vmax + 1e-12)
    assert np.all(ref_p >= robot.linkage.lower[ARM]) and np.all(ref_p <= robot.linkage.upper[ARM])
    # commanded velocity = the motion that results: per joint, the mean of a cycle's end
    # velocities is its mean velocity but for an acceleration change within the cycle (at
    # most 2 a_max: a_max dt / 4); the speed within 5 % once above a quarter of the top speed
    motion = np.diff(ref_p, axis=0) / np.diff(t)[:, None]
    commanded = 0.5 * (ref_v[1:] + ref_v[:-1])
    assert np.all(np.abs(commanded - motion) <= amax * DT / 4 + 1e-12)
    speed, commanded = np.linalg.norm(motion, axis=1), np.linalg.norm(commanded, axis=1)
    moving = speed > 0.25 * speed.max()
    np.testing.assert_allclose(commanded[moving], speed[moving], rtol=0.05)
    # the reference tip on the goal path within gap_bound after the start from rest (1 s), a
    # lookahead behind it
    for time, q in list(zip(t, ref_p))[100:600]:
        tip = robot.linkage.forward_kinematics(np.r_[q, 0.02], robot.tip_link)[:3, 3]
        near = np.arange(time - LOOKAHEAD - 0.05, time - LOOKAHEAD + 0.02, 0.0005)
        gap = min(np.linalg.norm(tip - path.pose(x)[0]) for x in near)
        assert gap <= gap_bound, (time, gap)


def test_limits_scaled_through_the_controller(store):  # noqa: F811
    """velocity_scaling and acceleration_scaling 0.5: half the limits, still no jump."""
    _, types = store
    robot, _, (t, ref_p, ref_v, out_p, model, sent) = _figure_eight(types, True, 0.005, 0.02, 3,
                                                                    scaling=0.5, cycles=300)
    vmax, amax = _limits(robot)
    assert np.all(np.abs(ref_v) <= vmax + 1e-12)
    assert np.max(_jumps(t, ref_v, amax)) <= 1.0 + 1e-9
    assert np.max(np.abs(ref_v) / vmax) > 0.5  # the scaled limits are what bounds it


def test_stamp_zero_with_irregular_delivery_jumps(store):  # noqa: F811
    """
    Header stamp zero: each message starts when the controller picks it up.

    With one message per control cycle it is exact; delivered irregularly, the motion is
    replayed late or skipped ahead and its velocity jumps (why streams are stamped).
    """
    _, types = store
    robot, _, run = _figure_eight(types, False, 0.0, 0.0, 0, cycles=300)
    t, ref_v, model = run[0], run[2], run[4]
    _, amax = _limits(robot)
    assert np.max(_jumps(t, ref_v, amax)) <= 1.0 + 1e-9 and model.spliced == 0
    robot, _, run = _figure_eight(types, False, 0.005, 0.02, 1, cycles=300)
    t, ref_v = run[0], run[2]
    assert np.mean(_jumps(t, ref_v, amax) > 1.0 + 1e-9) > 0.01


def test_marker_drag_through_the_controller(store):  # noqa: F811
    """
    A marker drag: the goal moves at irregular intervals (10-50 ms), pauses and jumps.

    The controller's reference never jumps above a_max dt, and comes to rest on the last goal.
    """
    _, types = store
    robot, tracker = _tracker(types)
    q0 = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])
    tracker.offer_joint_state(joint_state(types, robot.joint_names, q0))
    start = ros_support.reachable_goal(robot, q0)
    rng = np.random.default_rng(7)
    goals, time, p = {}, 0.0, start[:3, 3].copy()
    for duration, move in [(1.0, (0.0, 0.2, 0.0)), (0.4, None), (0.6, (0.0, -0.1, 0.08)),
                           (0.0, (0.04, 0.0, 0.0)), (0.8, (0.0, -0.1, -0.08))]:
        if move is None:
            time += duration
            continue
        origin, end = p.copy(), time + duration
        while True:  # mouse events until the move's end (a jump: one event)
            s = 1.0 if duration == 0.0 else min(1.0, (time - end + duration) / duration)
            p = origin + s * np.array(move)
            goals[int(round(time / DT))] = p.copy()
            if s >= 1.0:
                break
            time += rng.uniform(0.01, 0.05)
    last = max(goals)

    def produce(k, now):
        if k in goals:
            pose = start.copy()
            pose[:3, 3] = goals[k]
            tracker.offer_goal(pose_from_msg(pose_stamped(types, pose, ''), 'goal_pose'))
        out = tracker.cycle(DT, clock=now)
        return None if out is None else out.trajectory

    t, ref_p, ref_v, _, model, sent = run_stream(produce, q0[ARM], DT, last + 300, True,
                                                 np.random.default_rng(8), 0.005, 0.02)
    vmax, amax = _limits(robot)
    _check_messages(robot, sent)
    assert model.spliced == 0
    assert np.max(_jumps(t, ref_v, amax)) <= 1.0 + 1e-9
    assert np.all(np.abs(ref_v) <= vmax + 1e-12)
    assert np.max(np.abs(ref_v) / vmax) > 0.3  # it moved
    np.testing.assert_array_equal(ref_v[-1], 0.0)
    tip = robot.linkage.forward_kinematics(np.r_[ref_p[-1], 0.0], robot.tip_link)
    assert np.linalg.norm(tip[:3, 3] - goals[last]) <= robot.config.position_tolerance


@pytest.mark.parametrize('every, late', [(1, 0.003), (5, 0.0)])
def test_figure_eight_with_irregular_goals(store, every, late):  # noqa: F811
    """
    Goals at 100 Hz that arrive irregularly (up to 3 ms late: none or two per cycle), or 20 Hz.

    With their receipt times the stream's velocity is that of the goals, not of the cycles
    that happened to see them: the reference stays on the goal path within 1 mm.
    """
    _, types = store
    robot, tracker = _tracker(types)
    path, home = default_path(robot.linkage, robot.tip_link, robot.base_link, 5.0, 'panda')
    tracker.offer_joint_state(joint_state(types, robot.joint_names, home))
    rng = np.random.default_rng(5)
    cycles = 900
    index = np.arange(0, cycles, every)
    sent = np.maximum.accumulate(index * DT + 0.001 + rng.uniform(0.0, late, len(index)))

    def produce(k, now):
        newest = np.flatnonzero(sent <= now)
        if len(newest):
            pose = pose_stamped(types, path.pose(index[newest[-1]] * DT), '')
            tracker.offer_goal(pose_from_msg(pose, 'goal_pose'), clock=sent[newest[-1]])
        out = tracker.cycle(DT, clock=now)
        return None if out is None else out.trajectory

    t, ref_p, ref_v, _, model, _ = run_stream(produce, home[ARM], DT, cycles, True,
                                              np.random.default_rng(6), 0.003, 0.02)
    _, amax = _limits(robot)
    assert model.spliced == 0 and np.max(_jumps(t, ref_v, amax)) <= 1.0 + 1e-9
    goals = np.array([path.pose(k * DT)[0] for k in range(cycles)])
    for time, q in list(zip(t, ref_p))[300:cycles]:
        tip = robot.linkage.forward_kinematics(np.r_[q, 0.02], robot.tip_link)[:3, 3]
        near = np.arange(int((time - 0.6) / DT), min(int((time + 0.05) / DT), cycles - 1))
        a, d = goals[near], goals[near + 1] - goals[near]
        s = np.clip(np.einsum('ij,ij->i', tip - a, d) / np.einsum('ij,ij->i', d, d), 0, 1)
        gap = np.min(np.linalg.norm(a + s[:, None] * d - tip, axis=1))
        assert gap <= 1e-3, (time, gap)
