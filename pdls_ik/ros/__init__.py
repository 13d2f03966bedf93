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
The rclpy shells of pdls_ik.

``pdls_ik_node`` (:mod:`.node`) and ``pdls_ik_markers`` (:mod:`.marker_node`). All logic lives in
the ROS-free :mod:`pdls_ik.ros_logic` and :mod:`pdls_ik.msgs`; this package only connects them to
topics, services and parameters.
"""
