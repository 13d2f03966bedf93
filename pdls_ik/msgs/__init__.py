"""ROS-free message building and parsing for pdls_ik (one message family per module).

Builders take a :class:`~pdls_ik.msgs.types.MessageTypes` provider first, so the same code makes
rclpy messages in the node (:func:`rclpy_types`) and rosbags messages in bags and tests
(:func:`rosbags_types`). Parsers accept messages of either back end and raise
:class:`~pdls_ik.errors.InputError` naming the offending field.
"""
from pdls_ik.msgs.diagnostics import (diagnostic_array, diagnostic_status,  # noqa: F401
                                      status_level, status_values)
from pdls_ik.msgs.geometry import ParsedPose, pose_from_msg, pose_msg, pose_stamped  # noqa: F401
from pdls_ik.msgs.joint_state import (JointMatch, joint_state, joint_state_to_q,  # noqa: F401
                                      match_joint_positions)
from pdls_ik.msgs.stamps import (duration_msg, header, msg_to_ns, msg_to_seconds,  # noqa: F401
                                 seconds_to_ns, time_msg, time_msg_from_ns)
from pdls_ik.msgs.trajectory import joint_trajectory  # noqa: F401
from pdls_ik.msgs.types import (MessageTypes, rclpy_types, register_interfaces,  # noqa: F401
                                rosbags_types)
