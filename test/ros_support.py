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


def launch_test_missing(modules, where):
    """
    Why a launch_pytest test cannot run here, or None (never raises, never skips at import).

    launch_pytest (ROS 2 Jazzy) needs pytest < 8.4; each of ``modules`` must import, else the
    reason says to source ``where`` (e.g. 'a ROS 2 setup with MoveIt').
    """
    import importlib
    import pytest
    version = tuple(int(''.join(c for c in p if c.isdigit()) or 0)
                    for p in pytest.__version__.split('.')[:2])
    if version >= (8, 4):
        return f'pytest {pytest.__version__} >= 8.4: launch_pytest (ROS 2 Jazzy) needs < 8.4'
    for module in ('launch_pytest', 'rclpy') + tuple(modules):
        try:
            importlib.import_module(module)
        except ImportError:
            return f'{module} not found: source {where}'
    return None
