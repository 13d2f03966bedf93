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
GetPositionIK requests built field by field as MoveIt's SrvKinematicsPlugin builds them.

From ``srv_kinematics_plugin.cpp`` (moveit/moveit2, ``searchPositionIK``) and
``robotStateToRobotStateMsg`` (moveit_core ``conversions.cpp``): ``avoid_collisions = true``;
``group_name``; ``robot_state`` = the whole robot (``is_diff`` false, ``joint_state`` with every
single-variable joint, mimic joints included, positions only, ``header.frame_id`` the model
frame; ``multi_dof_joint_state`` and ``attached_collision_objects`` empty for a robot without
virtual floating joint or attached body); one tip: ``pose_stamped`` (frame_id = the group's base
frame, stamp zero) and ``ik_link_name``; several tips: ``pose_stamped_vector`` and
``ik_link_names``, ``pose_stamped`` left empty; ``timeout`` never set (zero); ``constraints``
never set. The reply is read back as the plugin does: the solution's joints written over the
seed state, then the group's joints copied out (every one of them must be in the reply).

Also: the example-robot-data files (Talos and its SRDF), found through the package's installed
file list (it has no Python module).
"""
from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Dict, Optional, Sequence

import numpy as np
from pdls_ik.msgs import joint_state, pose_stamped
import pytest

SINGLE_DOF = ('revolute', 'continuous', 'prismatic')


def example_robot_data(relative: str) -> Path:
    """Path of a file of the example-robot-data package (``robots/...``); skip without it."""
    try:
        files = metadata.files('example-robot-data') or []
    except metadata.PackageNotFoundError:
        pytest.skip('example-robot-data is not installed (pip install example-robot-data)')
    suffix = 'example-robot-data/robots/' + relative
    for f in files:
        if str(f).replace('\\', '/').endswith(suffix):
            return Path(f.locate())
    pytest.skip(f'example-robot-data has no {relative}')


def full_state(linkage, q: Sequence[float]) -> Dict[str, float]:
    """Return the joint_state MoveIt sends of a whole robot: every 1-variable joint, mimics too."""
    values = dict(zip(linkage.joint_names, np.asarray(q, dtype=float)))
    values.update(linkage.mimic_values(q))
    return {j.name: float(values[j.name]) for j in linkage.joints if j.type in SINGLE_DOF}


def plugin_request(ts, types, default_msg, group: str, base_frame: str, tips: Sequence[str],
                   poses: Sequence[np.ndarray], seed: Dict[str, float],
                   model_frame: str):
    """Build a GetPositionIK request as SrvKinematicsPlugin::searchPositionIK fills it."""
    msg = default_msg(ts, 'moveit_msgs/srv/GetPositionIK_Request')
    return fill_plugin_request(msg, types, group, base_frame, tips, poses, seed, model_frame)


def fill_plugin_request(msg, types, group: str, base_frame: str, tips: Sequence[str],
                        poses: Sequence[np.ndarray], seed: Dict[str, float], model_frame: str):
    """Fill a GetPositionIK request (rosbags or rclpy) as SrvKinematicsPlugin fills it."""
    req = msg.ik_request
    req.avoid_collisions = True
    req.group_name = group
    req.robot_state.is_diff = False
    req.robot_state.joint_state = joint_state(types, list(seed), list(seed.values()),
                                              frame_id=model_frame)
    if len(tips) > 1:
        req.pose_stamped_vector = [pose_stamped(types, pose, base_frame) for pose in poses]
        req.ik_link_names = list(tips)
    else:
        req.pose_stamped = pose_stamped(types, poses[0], base_frame)
        req.ik_link_name = tips[0]
    return msg


def plugin_solution(response, seed: Dict[str, float], group_joints: Sequence[str]
                    ) -> Optional[Dict[str, float]]:
    """
    Read a GetPositionIK response as the plugin does; None unless SUCCESS.

    robotStateMsgToRobotState writes the reply's joints over the seed state, then
    copyJointGroupPositions takes the group's; a group joint missing from the reply would
    silently keep its seed value, so its absence is an error here.
    """
    if response.error_code.val != 1:
        return None
    names = list(response.solution.joint_state.name)
    missing = [j for j in group_joints if j not in names]
    assert not missing, f'group joints missing from the reply: {missing}'
    state = dict(seed)
    state.update(zip(names, np.asarray(response.solution.joint_state.position, dtype=float)))
    return state
