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
trajectory_msgs JointTrajectory from a :class:`pdls_ik.trajectory.Trajectory`.

The header stamp defaults to zero, which ros2_controllers' joint_trajectory_controller reads as
"start now"; ``time_from_start`` of each point is a Duration from the float seconds of the point.
"""
from __future__ import annotations

from typing import Any

from pdls_ik.msgs.message_types import MessageTypes, optional_floats
from pdls_ik.msgs.stamps import duration_msg, header, Stamp


def joint_trajectory_point(types: MessageTypes, point: Any) -> Any:
    """
    Build a trajectory_msgs/JointTrajectoryPoint from a TrajectoryPoint.

    Positions, velocities, accelerations or None, time_from_start in s; effort is left empty.
    """
    return types.JointTrajectoryPoint(
        positions=types.floats(point.positions),
        velocities=optional_floats(types, point.velocities),
        accelerations=optional_floats(types, point.accelerations),
        effort=types.floats(()),
        time_from_start=duration_msg(types, point.time_from_start))


def joint_trajectory(types: MessageTypes, trajectory: Any, stamp: Stamp = 0.0,
                     frame_id: str = '') -> Any:
    """
    trajectory_msgs/JointTrajectory; ``trajectory`` has ``joint_names`` and ``points``.

    :param stamp: header stamp in seconds or a Time message; 0 means "start now" to a controller.
    """
    return types.JointTrajectory(
        header=header(types, stamp, frame_id),
        joint_names=[str(j) for j in trajectory.joint_names],
        points=[joint_trajectory_point(types, p) for p in trajectory.points])
