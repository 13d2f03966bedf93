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
Linkage model: URDF loading, kinematic tree, forward kinematics, frame Jacobians.

    from pdls_ik.model import load_urdf
    robot = load_urdf("panda.urdf")
    T, J = robot.pose_and_jacobian(q, "panda_link8")   # (4, 4), (6, 7)
"""
from pdls_ik.model.joints import Inertial, Joint
from pdls_ik.model.linkage import Limits, Linkage
from pdls_ik.model.urdf_checks import URDFWarning
from pdls_ik.model.urdf_loader import load_urdf

__all__ = ['load_urdf', 'Linkage', 'Limits', 'Joint', 'Inertial', 'URDFWarning']
