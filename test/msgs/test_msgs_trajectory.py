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

"""JointTrajectory from pdls_ik.trajectory.Trajectory, against trajectory_msgs (Humble, Jazzy)."""
from msgs_support import roundtrip, store  # noqa: F401
import numpy as np
from pdls_ik.msgs.trajectory_msgs import joint_trajectory
from pdls_ik.trajectory import Trajectory, TrajectoryPoint


def test_joint_trajectory_roundtrip_all_fields(store):  # noqa: F811
    ts, types = store
    traj = Trajectory(['a', 'b'], [
        TrajectoryPoint(np.array([0.0, 1.0]), np.array([0.0, 0.0]), None, 0.0),
        TrajectoryPoint(np.array([0.5, 1.5]), np.array([1.0, -1.0]), np.array([2.0, 3.0]),
                        0.75),
        TrajectoryPoint(np.array([1.0, 2.0]), np.array([0.0, 0.0]), None, 1.000000001)])
    msg = roundtrip(ts, joint_trajectory(types, traj))
    assert msg.__msgtype__ == 'trajectory_msgs/msg/JointTrajectory'
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (0, 0)  # zero = start now
    assert msg.header.frame_id == '' and msg.joint_names == ['a', 'b']
    assert len(msg.points) == 3
    for got, want in zip(msg.points, traj.points):
        np.testing.assert_array_equal(got.positions, want.positions)
        np.testing.assert_array_equal(got.velocities, want.velocities)
        expected_acc = [] if want.accelerations is None else want.accelerations
        np.testing.assert_array_equal(got.accelerations, expected_acc)
        assert len(got.effort) == 0
    durations = [(p.time_from_start.sec, p.time_from_start.nanosec) for p in msg.points]
    assert durations == [(0, 0), (0, 750_000_000), (1, 1)]


def test_joint_trajectory_from_plan_to_keeps_times(store, robots_dir):  # noqa: F811
    """A planned trajectory (the node's output) converts point by point."""
    ts, types = store
    from pdls_ik.model import load_urdf
    from pdls_ik.trajectory import plan_to
    robot = load_urdf(str(robots_dir / 'panda.urdf'))
    q0 = np.zeros(robot.n)
    q1 = q0 + 0.2
    traj = plan_to(robot, q0, q1)
    msg = roundtrip(ts, joint_trajectory(types, traj, stamp=0.0))
    assert msg.joint_names == list(robot.joint_names)
    np.testing.assert_array_equal(msg.points[-1].positions, traj.points[-1].positions)
    last = msg.points[-1].time_from_start
    assert abs(last.sec + last.nanosec * 1e-9 - traj.duration) <= 1e-9
