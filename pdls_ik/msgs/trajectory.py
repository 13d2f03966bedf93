"""trajectory_msgs JointTrajectory from a :class:`pdls_ik.trajectory.Trajectory`.

The header stamp defaults to zero, which ros2_controllers' joint_trajectory_controller reads as
"start now"; ``time_from_start`` of each point is a Duration from the float seconds of the point.
"""
from __future__ import annotations

from typing import Any

from pdls_ik.msgs.stamps import Stamp, duration_msg, header
from pdls_ik.msgs.types import MessageTypes, optional_floats


def joint_trajectory_point(types: MessageTypes, point: Any) -> Any:
    """trajectory_msgs/JointTrajectoryPoint from a TrajectoryPoint (positions, velocities,
    accelerations or None, time_from_start in s); effort is left empty."""
    return types.JointTrajectoryPoint(
        positions=types.floats(point.positions),
        velocities=optional_floats(types, point.velocities),
        accelerations=optional_floats(types, point.accelerations),
        effort=types.floats(()),
        time_from_start=duration_msg(types, point.time_from_start))


def joint_trajectory(types: MessageTypes, trajectory: Any, stamp: Stamp = 0.0,
                     frame_id: str = "") -> Any:
    """trajectory_msgs/JointTrajectory; ``trajectory`` has ``joint_names`` and ``points``.

    Args:
        stamp: header stamp in seconds or a Time message; 0 means "start now" to a controller.
    """
    return types.JointTrajectory(
        header=header(types, stamp, frame_id),
        joint_names=[str(j) for j in trajectory.joint_names],
        points=[joint_trajectory_point(types, p) for p in trajectory.points])
