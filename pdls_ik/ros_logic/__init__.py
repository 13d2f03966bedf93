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
ROS-free logic of the ROS 2 nodes: everything in :mod:`pdls_ik.ros` that is not plumbing.

- :mod:`.robot` — robot description + config -> linkage and solvers (rebuilt atomically);
- :mod:`.frames` — goal frames (empty, base link, any model link through FK);
- :mod:`.tracker` — latest goal / joint state and one tracking cycle (newest goal wins);
- :mod:`.ik_service` — the GetPositionIK service answer (MoveIt's SrvKinematicsPlugin requests,
  one or several tips);
- :mod:`.fk_service` — the GetPositionFK service answer;
- :mod:`.groups` — the planning groups: the SRDF's, and the configured chain;
- :mod:`.board` — the diagnostic statuses the node publishes;
- :mod:`.parameters` — node parameters from the :class:`~pdls_ik.config.IKConfig` table;
- :mod:`.markers` — interactive-marker helpers (rate limiting, the release pose);
- :mod:`.controller_setup` — the controller's joints; a URDF for ros2_control mock hardware;
- :mod:`.loader` — robots and solvers built off the callback thread, with progress;
- :mod:`.gate` — callbacks that never outlive the node at shutdown;
- :mod:`.loopback` — the joint-state loop-back: publishes only while no other source does;
- :mod:`.collision_setup` — the collision parameters -> collision model, task entries, checks;
- :mod:`.collision_objects` — moveit_msgs/CollisionObject messages -> environment obstacles.

Nothing here imports rclpy: all of it is tested without ROS.
"""
