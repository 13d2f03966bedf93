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

"""Shared set-up of the ROS-free node-logic tests: the bundled Panda as a node robot."""
from __future__ import annotations

import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.robot import build_robot

PANDA_TIP = 'panda_link8'


def panda_robot(**changes):
    """Return the bundled Panda with tip panda_link8 (config fields overridable)."""
    config = IKConfig(tip_link=PANDA_TIP).replace(**changes)
    return build_robot(bundled_urdf('panda').read_text(), config)


def reachable_goal(robot, q):
    """(4, 4) tip pose at joint positions q (n,): a goal known to be reachable."""
    return robot.linkage.forward_kinematics(np.asarray(q, dtype=float), robot.tip_link,
                                            robot.base_link)
