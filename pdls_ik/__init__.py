"""pdls_ik: inverse kinematics by Prioritized Damped Least Squares (Baerlocher & Boulic 2004).

Public entry points:
    load_urdf(source, base_link=None) -> Linkage   (pdls_ik.model)
    IKSolver, IKResult                              (pdls_ik.ik)
    pdls.step, pdls.solve                           (pdls_ik.pdls, the robot-agnostic core)
"""
from pdls_ik.errors import (ConfigError, InputError, JointError, LinkError,  # noqa: F401
                            PDLSIKError, URDFError)

__version__ = "0.1.0"
