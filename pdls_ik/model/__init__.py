"""Linkage model: URDF loading, kinematic tree, forward kinematics, frame Jacobians.

    from pdls_ik.model import load_urdf
    robot = load_urdf("panda.urdf")
    T, J = robot.pose_and_jacobian(q, "panda_link8")   # (4, 4), (6, 7)
"""
from pdls_ik.model.joints import Inertial, Joint
from pdls_ik.model.linkage import Limits, Linkage
from pdls_ik.model.urdf_checks import URDFWarning
from pdls_ik.model.urdf_loader import load_urdf

__all__ = ["load_urdf", "Linkage", "Limits", "Joint", "Inertial", "URDFWarning"]
