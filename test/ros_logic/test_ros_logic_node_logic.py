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
What a real ROS 2 run found wrong (issue 19), checked without ROS.

Marker release vs the rate limiter's pending pose, statuses of a normal approach and of a goal
given up, stale joint states, velocity-only joint states, the controller's joints, the loader
that keeps the node responsive while kernels load, and the callback gate of shutdown.
"""
import threading

from msgs_support import roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.diagnostics import ERROR, OK, WARN
from pdls_ik.errors import ConfigError
from pdls_ik.msgs import (float64_multi_array, joint_state, multi_array_values, pose_from_msg,
                          pose_stamped)
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.controller_setup import controller_joints
from pdls_ik.ros_logic.gate import CallbackGate
from pdls_ik.ros_logic.loader import Loader, LOADING
from pdls_ik.ros_logic.markers import RateLimiter
from pdls_ik.ros_logic.robot import build_robot
from pdls_ik.ros_logic.tracker import STALL_CYCLES, Tracker
import pytest
import ros_support
from ros_support import reachable_goal

DT = 0.01
Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])


def _tracker(**kwargs):
    robot = ros_support.panda_robot(tracking_timeout=1.0)
    return robot, Tracker(robot, **kwargs)


def _goal(types, pose):
    return pose_from_msg(pose_stamped(types, pose, ''), 'goal_pose')


def test_release_pose_wins_over_pending_drag_pose():
    """Item 2: a held-back drag pose flushed after the release pose put the robot 3 mm off."""
    limiter = RateLimiter(0.05)
    assert limiter.offer(0.000, 'drag 1') == 'drag 1'
    assert limiter.offer(0.020, 'drag 2') is None  # held back
    assert limiter.release(0.021, 'release') == 'release'
    assert limiter.flush(0.100) is None  # the stale drag pose never follows


def test_unreachable_goal_reported_as_unreachable(store):  # noqa: F811
    """Item 3: on the topic path an unreachable goal ended as not_converged."""
    _, types = store
    robot, tracker = _tracker()
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]  # beyond the Panda's reach
    tracker.offer_goal(_goal(types, far))
    outs = []
    while tracker.has_goal and len(outs) < 3000:
        outs.append(tracker.cycle(DT))
    levels = [o.status.level for o in outs]
    assert levels[-1] == ERROR and ERROR not in levels[:-1]  # one ERROR: when given up
    last = outs[-1].status
    assert last.values['goal'] == 'unreachable' and last.message.startswith('unreachable:')
    assert 'reaches at most' in last.message


def test_goal_behind_a_joint_limit_reported_as_stalled(store):  # noqa: F811
    """A pose within reach that the locked joints forbid: stalled, not a silent failure."""
    _, types = store
    locked = ['panda_joint1', 'panda_joint3', 'panda_joint5']  # the arm moves in a plane
    robot = ros_support.panda_robot(tracking_timeout=1.0, locked_joints=locked,
                                    locked_positions=[0.0, 0.0, 0.0])
    tracker = Tracker(robot)
    q = Q_GOAL.copy()
    q[0] = 1.2  # the base turned: out of the locked arm's plane
    tracker.offer_goal(_goal(types, reachable_goal(robot, q)))
    outs = []
    while tracker.has_goal and len(outs) < 3000:
        outs.append(tracker.cycle(DT))
    assert outs[-1].status.level == ERROR and outs[-1].status.values['goal'] == 'stalled'
    assert f'no progress in {STALL_CYCLES} cycles' in outs[-1].status.message
    assert sum(o.status.level == ERROR for o in outs) == 1


def test_stale_joint_states_stop_motion(store):  # noqa: F811
    """Item 5: after the joint_states source dies, motion stops and the state says stale."""
    _, types = store
    robot, tracker = _tracker()
    msg = joint_state(types, robot.joint_names, robot.default_q())
    assert tracker.state_status(0.0)[0] == WARN  # nothing received yet
    tracker.offer_joint_state(msg, now=0.0)
    assert tracker.state_limit() == pytest.approx(max(5 / robot.config.tracking_rate, 0.1))
    tracker.offer_goal(_goal(types, reachable_goal(robot, Q_GOAL)))
    assert tracker.cycle(DT, now=0.01) is not None
    assert tracker.cycle(DT, now=1.0) is None  # 1 s old: no motion
    level, message = tracker.state_status(1.0)
    assert level == ERROR and message.startswith('stale: last joint_states 1 s ago')
    assert tracker.has_goal  # the goal waits
    tracker.offer_joint_state(msg, now=1.001)  # fresh again: the stream restarts from it
    out = tracker.cycle(DT, now=1.002)
    np.testing.assert_array_equal(out.q_from, robot.default_q())
    assert tracker.state_status(1.002)[0] == OK
    tracker.state_timeout = 2.0  # the parameter
    assert not tracker.is_stale(2.5)


def test_velocity_only_joint_states_skipped_quietly(store):  # noqa: F811
    _, types = store
    robot, tracker = _tracker()
    before = tracker.current_q()
    msg = joint_state(types, robot.joint_names, robot.default_q() + 0.1)
    msg.position = types.floats(())
    msg.velocity = types.floats(np.ones(robot.linkage.n))
    assert tracker.offer_joint_state(msg, now=0.0) is None
    np.testing.assert_array_equal(tracker.current_q(), before)
    assert tracker.state_age(0.0) is None  # not a position: freshness unchanged


def test_controller_joints_default_and_parameter():
    """The chain's joints by default: no finger (another branch), no mimic follower."""
    robot, tracker = _tracker()
    assert tracker.commanded_joints == [f'panda_joint{i}' for i in range(1, 8)]
    solver = robot.solver()
    names = ['panda_joint2', 'panda_joint1', 'panda_finger_joint1']
    np.testing.assert_array_equal(controller_joints(robot, solver, names), [1, 0, 7])
    with pytest.raises(ConfigError, match="'panda_finger_joint2' mimics 'panda_finger_joint1'"):
        controller_joints(robot, solver, ['panda_finger_joint2'])
    with pytest.raises(ConfigError, match="'tool' is not a moving joint"):
        controller_joints(robot, solver, ['tool'])
    with pytest.raises(ConfigError, match='given twice'):
        controller_joints(robot, solver, ['panda_joint1', 'panda_joint1'])
    ordered = Tracker(robot, controller_names=names)
    assert ordered.commanded_joints == names
    assert ordered.uncommanded_joints == [f'panda_joint{i}' for i in range(3, 8)]
    assert tracker.uncommanded_joints == []


def test_bimanual_chain_commands_one_arm():
    from pdls_ik.config import IKConfig
    text = bundled_urdf('bimanual').read_text()
    robot = build_robot(text, IKConfig(tip_link='l_tool'))
    tracker = Tracker(robot)
    names = tracker.commanded_joints
    assert names and all(n in robot.joint_names for n in names)
    assert len(names) < len(robot.joint_names)  # the other arm is not listed
    assert not any(n.startswith('r_') for n in names)


def test_float64_multi_array(store):  # noqa: F811
    ts, types = store
    msg = roundtrip(ts, float64_multi_array(types, [0.1, -0.2, 0.3]))
    assert msg.__msgtype__ == 'std_msgs/msg/Float64MultiArray'
    assert multi_array_values(msg) == [0.1, -0.2, 0.3]
    assert msg.layout.dim[0].label == 'joints' and msg.layout.dim[0].size == 3
    from pdls_ik.errors import InputError
    with pytest.raises(InputError, match='non-finite'):
        float64_multi_array(types, [np.nan])


def test_loader_reports_progress_and_newest_wins():
    """Item 4: the kernels load in a thread; meanwhile a progress line, then the result."""
    delivered, failed = [], []
    clock = [100.0]
    loader = Loader(lambda r, o: delivered.append((r, o)), lambda e, o: failed.append((e, o)),
                    clock=lambda: clock[0])
    assert loader.progress() is None and not loader.loading
    release_first, release_second = threading.Event(), threading.Event()
    loader.start(lambda: release_first.wait(10) and 'old', 'parameter')
    clock[0] = 112.0
    assert loader.loading and loader.progress().startswith(f'{LOADING}: 12 s so far')
    loader.start(lambda: release_second.wait(10) and 'new', 'topic')
    release_first.set()
    release_second.set()
    assert loader.join(10)
    import time
    time.sleep(0.05)
    assert delivered == [('new', 'topic')] and not failed  # the older result is dropped
    loader.start(lambda: 1 / 0, 'parameter')
    loader.join(10)
    assert isinstance(failed[0][0], ZeroDivisionError) and not loader.loading


def test_gate_waits_for_running_callbacks_then_refuses():
    """Item 6: no callback may run while the node's handles are destroyed."""
    gate = CallbackGate()
    inside, leave, seen = threading.Event(), threading.Event(), []

    def callback():
        with gate.enter() as open_:
            seen.append(open_)
            inside.set()
            leave.wait(10)

    worker = threading.Thread(target=callback)
    worker.start()
    assert inside.wait(10)
    assert gate.close(timeout=0.05) is False  # still running
    leave.set()
    assert gate.close(timeout=10) is True
    with gate.enter() as open_:
        assert open_ is False and gate.closed
    worker.join()
    assert seen == [True]


def test_mock_hardware_urdf_loads_and_names_the_joints():
    import xml.etree.ElementTree as ElementTree
    from pdls_ik.errors import URDFError
    from pdls_ik.model import load_urdf
    from pdls_ik.ros_logic.controller_setup import MOCK_PLUGIN, with_mock_hardware
    text = bundled_urdf('panda').read_text()
    joints = [f'panda_joint{i}' for i in range(1, 8)]
    out = with_mock_hardware(text, joints, {'panda_joint4': -2.356})
    assert load_urdf(out).joint_names == load_urdf(text).joint_names  # kinematics unchanged
    tag = ElementTree.fromstring(out).find('ros2_control')
    assert tag.find('hardware/plugin').text == MOCK_PLUGIN
    assert [j.get('name') for j in tag.findall('joint')] == joints
    j4 = tag.findall('joint')[3]
    assert [c.get('name') for c in j4.findall('command_interface')] == ['position']
    assert [s.get('name') for s in j4.findall('state_interface')] == ['position', 'velocity']
    assert float(j4.find("state_interface/param[@name='initial_value']").text) == -2.356
    with pytest.raises(URDFError, match="joint 'nope'"):
        with_mock_hardware(text, ['nope'])
    with pytest.raises(URDFError, match='has a <ros2_control> tag already'):
        with_mock_hardware(out, joints)


def test_gate_drops_exceptions_of_the_shutdown_only():
    """A callback failing because the middleware shuts down is not an error; others are."""
    stopping = [False]
    gate = CallbackGate(lambda: stopping[0])
    with pytest.raises(RuntimeError, match='real'):
        with gate.enter():
            raise RuntimeError('real failure')
    stopping[0] = True
    with gate.enter() as open_:
        assert open_
        raise RuntimeError("Failed to publish: publisher's context is invalid")
    assert gate.close(timeout=1.0)


def test_approach_turning_away_first_is_no_stall(store):  # noqa: F811
    """
    From the demo's home (the end of a figure-eight) to Q_GOAL: reached, no ERROR.

    The joint-space motion first moves the tip away from the goal; a real run declared it
    stalled after 0.55 s (20 cycles without progress while the motion was at speed).
    """
    _, types = store
    robot, tracker = _tracker()
    home = np.array([0.048, 0.1, -0.05, -1.75, 0.009, 2.6, 1.894, 0.02])
    tracker.offer_joint_state(joint_state(types, robot.joint_names, home))
    tracker.offer_goal(_goal(types, reachable_goal(robot, Q_GOAL)))
    outs = []
    while tracker.has_goal and len(outs) < 1000:
        outs.append(tracker.cycle(DT))
    assert outs[-1].status.values['goal'] == 'reached'
    assert all(o.status.level < ERROR for o in outs)
