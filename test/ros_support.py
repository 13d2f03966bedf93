"""Shared set-up of the ROS-free node-logic tests: the bundled Panda as a node robot."""
from __future__ import annotations

import numpy as np

from pdls_ik.config import IKConfig
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.robot import build_robot

PANDA_TIP = "panda_link8"


def panda_robot(**changes):
    """The bundled Panda with tip panda_link8 (config fields overridable)."""
    config = IKConfig(tip_link=PANDA_TIP).replace(**changes)
    return build_robot(bundled_urdf("panda").read_text(), config)


def reachable_goal(robot, q):
    """(4, 4) tip pose at joint positions q (n,): a goal known to be reachable."""
    return robot.linkage.forward_kinematics(np.asarray(q, dtype=float), robot.tip_link,
                                            robot.base_link)
