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

"""Tracking loop without ROS: convergence, velocity-bounded steps, newest goal wins, bad input."""
import math

from msgs_support import store  # noqa: F401
import numpy as np
from pdls_ik.diagnostics import ERROR, OK
from pdls_ik.errors import InputError, LinkError
from pdls_ik.msgs import joint_state, pose_from_msg, pose_stamped
from pdls_ik.ros_logic.tracker import Tracker
import pytest
import ros_support
from ros_support import reachable_goal
from scipy.spatial.transform import Rotation

DT = 0.01


def panda_robot(**changes):
    """
    Return the node's Panda with a generous cycle time budget.

    The iteration budget alone then bounds a cycle and results do not depend on the machine's
    load.
    """
    return ros_support.panda_robot(**dict({'tracking_timeout': 1.0}, **changes))


Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])


def _offer(tracker, types, pose, frame=''):
    return tracker.offer_goal(pose_from_msg(pose_stamped(types, pose, frame), 'goal_pose'))


def _run(tracker, limit=1000):
    outs = []
    while tracker.has_goal and len(outs) < limit:
        outs.append(tracker.cycle(DT))
    return outs


def _assert_tip_at(robot, q, goal):
    """Assert the tip's forward kinematics at q is within 1e-5 m of the goal position."""
    reached = robot.linkage.forward_kinematics(q, robot.tip_link)
    np.testing.assert_allclose(reached[:3, 3], goal[:3, 3], atol=1e-5)


def test_tracks_reachable_goal_with_bounded_steps(store):  # noqa: F811
    """The commanded motion continues from cycle to cycle, bounded, and rests on the goal."""
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    goal = reachable_goal(robot, Q_GOAL)
    _offer(tracker, types, goal)
    outs = _run(tracker)
    assert not tracker.has_goal and outs[-1].goal_done and outs[-1].result.success
    assert [o.goal_done for o in outs].count(True) == 1
    reached = robot.linkage.forward_kinematics(outs[-1].commanded, robot.tip_link)
    assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= robot.config.position_tolerance
    np.testing.assert_array_equal(outs[-1].trajectory.points[-1].positions,
                                  outs[-1].commanded[:7])  # at rest there
    vmax = robot.linkage.velocity_limits * robot.config.velocity_scaling * DT
    for previous, out in zip(outs, outs[1:]):
        np.testing.assert_array_equal(out.q_from, previous.commanded)  # continues the command
    chain = list(range(7))  # the arm; the finger is no joint of the chain
    for out in outs:
        assert np.all(np.abs(out.commanded - out.q_from) <= vmax + 1e-12)
        traj = out.trajectory
        assert traj.joint_names == robot.joint_names[:7]
        # from the commanded state of the cycle (time 0) to the next one (one period on)
        np.testing.assert_array_equal(traj.points[0].positions, out.q_from[chain])
        np.testing.assert_array_equal(traj.points[1].positions, out.commanded[chain])
        np.testing.assert_array_equal(traj.points[-1].velocities, 0.0)  # continued to rest
        assert [p.time_from_start for p in traj.points[:2]] == [0.0, DT]
        assert out.status.values['status'] == out.result.status
    # a normal approach is no error: OK with the remaining distance, then reached
    assert [o.status.level for o in outs] == [OK] * len(outs)
    assert all(o.status.message.startswith('approaching the goal:') for o in outs[:-1])
    assert outs[-1].status.message.startswith('goal reached') and \
        outs[-1].status.values['goal'] == 'reached'
    left = [float(o.status.values['remaining position [m]']) for o in outs]
    assert left[0] > 0.1 and left[-1] <= robot.config.position_tolerance
    assert tracker.cycle(DT) is None  # goal finished: no more cycles


def test_rate_change_changes_the_step(store):  # noqa: F811
    """The period given to a cycle sizes its step and its point times (tracking_rate)."""
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    _offer(tracker, types, reachable_goal(robot, Q_GOAL))
    outs = []
    while tracker.has_goal:
        outs.append(tracker.cycle(0.02))
    vmax = robot.linkage.velocity_limits * robot.config.velocity_scaling
    steps = np.array([np.abs(o.commanded - o.q_from) for o in outs])
    assert np.all(steps <= vmax * 0.02 + 1e-12)
    assert np.max(steps / (vmax * 0.02)) > 0.99  # full speed is reached: not sized for 10 ms
    assert all(o.trajectory.points[1].time_from_start == 0.02 for o in outs)


def test_newest_goal_wins_and_flood_does_not_queue(store):  # noqa: F811
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    rng = np.random.default_rng(3)
    arm = np.r_[np.ones(7), 0.0]  # the finger joint stays
    for _ in range(500):  # a flood of goals before any cycle
        _offer(tracker, types, reachable_goal(robot, robot.default_q()
                                              + arm * rng.uniform(-0.3, 0.3, 8)))
    last = reachable_goal(robot, Q_GOAL)
    _offer(tracker, types, last)
    outs = _run(tracker)
    assert len(outs) < 200  # only the newest goal is approached (one approach: ~1 s)
    _assert_tip_at(robot, outs[-1].result.q, last)


def test_joint_states_seed_the_cycle(store):  # noqa: F811
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    q_meas = Q_GOAL + 0.05
    match = tracker.offer_joint_state(joint_state(types, robot.joint_names[::-1],
                                                  q_meas[::-1]))
    assert match.complete
    _offer(tracker, types, reachable_goal(robot, Q_GOAL))
    out = tracker.cycle(DT)
    np.testing.assert_array_equal(out.q_from, q_meas)


def test_partial_joint_states_keep_other_joints(store):  # noqa: F811
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    match = tracker.offer_joint_state(joint_state(types, ['panda_joint2', 'other'], [0.7, 1.0]))
    assert 'panda_joint1' in match.missing and match.unknown == ['other']
    expected = robot.default_q()
    expected[1] = 0.7
    np.testing.assert_array_equal(tracker.current_q(), expected)


@pytest.mark.parametrize('names, positions, text', [
    ([], [], 'no joint names'),
    (['panda_joint1', 'panda_joint2'], [0.1], r'position: 1 values for 2 names'),
    (['panda_joint1'], [math.nan], "panda_joint1' is nan"),
])
def test_bad_joint_states_rejected_state_kept(store, names, positions, text):  # noqa: F811
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    before = tracker.current_q()
    msg = joint_state(types, ['panda_joint1'], [0.0])
    msg.name, msg.position = list(names), types.floats(positions)
    with pytest.raises(InputError, match=text):
        tracker.offer_joint_state(msg)
    np.testing.assert_array_equal(tracker.current_q(), before)


def test_unknown_frame_dropped_and_previous_goal_kept(store):  # noqa: F811
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    _offer(tracker, types, reachable_goal(robot, Q_GOAL))
    with pytest.raises(LinkError, match="'map'"):
        _offer(tracker, types, reachable_goal(robot, Q_GOAL), frame='map')
    assert tracker.has_goal  # the earlier goal is still followed
    assert _run(tracker)[-1].result.success


def test_tool_frame_goal_converted_at_arrival(store):  # noqa: F811
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    q0 = tracker.current_q()
    offset = np.eye(4)
    offset[:3, 3] = [0.0, 0.0, 0.05]  # 5 cm along the flange z axis
    target = _offer(tracker, types, offset, frame='panda_link8')
    np.testing.assert_allclose(target, reachable_goal(robot, q0) @ offset, atol=1e-14)
    outs = _run(tracker)
    _assert_tip_at(robot, outs[-1].result.q, target)


def test_unreachable_goal_stalls_with_error_status(store):  # noqa: F811
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]  # beyond the Panda's ~0.85 m reach
    _offer(tracker, types, far)
    outs = _run(tracker, limit=3000)
    assert not tracker.has_goal and outs[-1].goal_done and not outs[-1].result.success
    assert outs[-1].status.level == ERROR


def test_one_shot_mode_solves_once(store):  # noqa: F811
    _, types = store
    robot = panda_robot(timeout=5.0)  # a reachable goal: returns once solved
    tracker = Tracker(robot, mode='one_shot')
    goal = reachable_goal(robot, Q_GOAL)
    quat = Rotation.from_matrix(goal[:3, :3]).as_quat()
    _offer(tracker, types, (goal[:3, 3], quat))
    outs = _run(tracker)
    assert len(outs) == 1 and outs[0].result.success and outs[0].goal_done


def test_new_robot_with_other_joints_resets_state(store):  # noqa: F811
    _, types = store
    tracker = Tracker(panda_robot())
    tracker.offer_joint_state(joint_state(types, ['panda_joint1'], [0.5]))
    from pdls_ik.config import IKConfig
    from pdls_ik.resources import bundled_urdf
    from pdls_ik.ros_logic.robot import build_robot
    ur5 = build_robot(bundled_urdf('ur5').read_text(), IKConfig(tip_link='ee_link'))
    tracker.set_robot(ur5)
    np.testing.assert_array_equal(tracker.current_q(), ur5.default_q())
    assert not tracker.has_goal


class _NoProgress:
    """Tracking cycles that never move; counts one-shot solves (there must be none)."""

    def __init__(self, solver):
        self.real, self.solves = solver, 0
        self.frame, self.free, self.errors = solver.frame, solver.free, solver.errors

    def track(self, target, q_current, dt):
        from pdls_ik.ik import IKResult
        self.real.track(target, q_current, dt)  # sets the goal of errors()
        return IKResult(q=np.array(q_current), joint_names=self.real.joint_names,
                        success=False, status='max_time', position_error=0.1,
                        orientation_error=0.2)

    def solve(self, target, seed=None, timeout=None):
        self.solves += 1
        raise AssertionError('a tracking goal must not be handed to a one-shot solve')


def test_goal_without_progress_given_up_honestly(store):  # noqa: F811
    """
    STALL_CYCLES cycles without progress finish the goal with the last cycle's failure.

    No one-shot solve is tried (it could jump to another IK branch).
    """
    from pdls_ik.ros_logic.tracker import STALL_CYCLES
    _, types = store
    robot = panda_robot()
    tracker = Tracker(robot)
    tracker._solver = solver = _NoProgress(tracker._solver)
    _offer(tracker, types, reachable_goal(robot, Q_GOAL))
    outs = _run(tracker)
    assert len(outs) == STALL_CYCLES + 1  # the first cycle sets the best error
    assert [o.goal_done for o in outs] == [False] * STALL_CYCLES + [True]
    assert solver.solves == 0 and not tracker.has_goal
    last = outs[-1]
    assert not last.result.success and last.status.level == ERROR
    np.testing.assert_array_equal(last.trajectory.points[-1].positions, last.q_from[:7])


def test_far_goal_reached_by_tracking_cycles_alone(store):  # noqa: F811
    """
    Track from the middle of the limits to the pose of Q_GOAL (0.4 m, 0.3 rad away).

    With the node's default cycle time budget, the tracking cycles get there, every one
    progressing, without a one-shot solve.
    """
    _, types = store
    robot = ros_support.panda_robot()
    tracker = Tracker(robot)
    tracker._solver.solve = None  # any one-shot solve would raise TypeError
    _offer(tracker, types, reachable_goal(robot, Q_GOAL))
    outs = _run(tracker, limit=400)
    assert outs[-1].result.success and not tracker.has_goal
    assert len(outs) <= 150
    left = [float(o.status.values['remaining position [m]']) +
            float(o.status.values['remaining orientation [rad]']) for o in outs]
    # closer and closer (the path is straight in joint space, not in the task space)
    assert left[len(left) // 2] < 0.25 * left[0] and left[-1] < 1e-4
    assert all(o.status.level == OK for o in outs)


def test_same_goal_resent_neither_restarts_nor_reopens(store):  # noqa: F811
    """A goal re-sent at 20 Hz (or a marker held still) continues the approach, then stays done."""
    _, types = store
    robot = panda_robot()
    once = Tracker(robot)
    goal = reachable_goal(robot, Q_GOAL)
    _offer(once, types, goal)
    cycles_once = len(_run(once))
    resent = Tracker(robot)
    outs = []
    _offer(resent, types, goal)
    while resent.has_goal and len(outs) < 1000:
        if len(outs) % 5 == 0:
            _offer(resent, types, goal)  # every 5th cycle: 20 Hz at 100 Hz
        outs.append(resent.cycle(DT))
    assert len(outs) == cycles_once and outs[-1].status.values['goal'] == 'reached'
    _offer(resent, types, goal)
    assert not resent.has_goal and resent.cycle(DT) is None  # reached: stays so
    moved = goal.copy()
    moved[2, 3] += 0.01
    _offer(resent, types, moved)  # another goal: a new approach
    assert resent.has_goal


def test_measured_state_behind_a_resting_head_is_no_move_by_others(store):  # noqa: F811
    """
    With a lookahead, the controller (and its joint_states) run behind the commanded head.

    Once the head rests on a goal, joint states of the robot still on its way do not restart
    the stream from them (that would send the robot back); a robot off the commanded rest
    position for RESYNC_SETTLE after it does restart the stream from where it is measured.
    """
    from pdls_ik.ros_logic.tracker import RESYNC_SETTLE
    _, types = store
    robot = panda_robot(tracking_timeout=1.0)
    tracker = Tracker(robot, lookahead=0.1, past=2)
    _offer(tracker, types, reachable_goal(robot, Q_GOAL))
    clock, outs = 100.0, []
    while tracker.has_goal:
        clock += DT
        outs.append(tracker.cycle(DT, clock=clock))
    head = outs[-1].trajectory.points[-1].positions  # the rest the head landed on (arm)
    # the goal is reached once the commanded state arrives there, a lookahead after the head
    landed = next(k for k, out in enumerate(outs) if np.array_equal(out.q_from[:7], head))
    assert len(outs) - landed >= 9 and np.array_equal(outs[-1].commanded[:7], head)
    behind = outs[landed - 10].q_from  # where the robot is measured: ten cycles behind the head
    assert np.max(np.abs(head - behind[:7])) > 1e-3
    tracker.offer_joint_state(joint_state(types, robot.joint_names, behind))
    _offer(tracker, types, reachable_goal(robot, Q_GOAL + 0.01))
    clock += DT
    np.testing.assert_array_equal(tracker.cycle(DT, clock=clock).q_from[:7], head)
    while tracker.has_goal:
        clock += DT
        last = tracker.cycle(DT, clock=clock)
    moved = last.q_from + 0.05  # pushed away by something else, measured long after rest
    tracker.offer_joint_state(joint_state(types, robot.joint_names, moved))
    _offer(tracker, types, reachable_goal(robot, Q_GOAL))
    out = tracker.cycle(DT, clock=clock + RESYNC_SETTLE + 0.1)
    np.testing.assert_array_equal(out.q_from, moved)
