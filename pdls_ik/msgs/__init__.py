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
ROS-free message building and parsing for pdls_ik (one message family per module).

Builders take a :class:`~pdls_ik.msgs.message_types.MessageTypes` provider first, so the same
code makes rclpy messages in the node (:func:`rclpy_types`) and rosbags messages in bags and tests
(:func:`rosbags_types`). Parsers accept messages of either back end and raise
:class:`~pdls_ik.errors.InputError` naming the offending field.
"""
from pdls_ik.msgs.diagnostic_msgs import (diagnostic_array, diagnostic_status,  # noqa: F401
                                          status_level, status_values)
from pdls_ik.msgs.geometry import ParsedPose, pose_from_msg, pose_msg, pose_stamped  # noqa: F401
from pdls_ik.msgs.joint_state import (has_positions, joint_state,  # noqa: F401
                                      joint_state_to_q, JointMatch, match_joint_positions)
from pdls_ik.msgs.message_types import (MessageTypes, rclpy_types,  # noqa: F401
                                        register_interfaces, rosbags_types)
from pdls_ik.msgs.multi_array import float64_multi_array, multi_array_values  # noqa: F401
from pdls_ik.msgs.stamps import (duration_msg, header, msg_to_ns, msg_to_seconds,  # noqa: F401
                                 seconds_to_ns, time_msg, time_msg_from_ns)
from pdls_ik.msgs.trajectory_msgs import joint_trajectory  # noqa: F401
from pdls_ik.msgs.visualization import reach_marker_array  # noqa: F401
