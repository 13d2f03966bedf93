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

"""The bundled four-bar linkage (urdf/fourbar.urdf) in closed form, for the closure tests."""
from __future__ import annotations

import math

import numpy as np

#: link lengths [m] of urdf/fourbar.urdf
CRANK, COUPLER, ROCKER, GROUND = 0.1, 0.25, 0.2, 0.2


def fourbar_b(theta2, branch=1.0):
    """Return the closed form (coupler joint, rocker joint) [rad] for crank angle theta2."""
    a = np.array([CRANK * math.cos(theta2), CRANK * math.sin(theta2)])
    d = np.array([GROUND, 0.0])
    dist = np.linalg.norm(d - a)
    along = (COUPLER ** 2 - ROCKER ** 2 + dist ** 2) / (2 * dist)
    h = math.sqrt(COUPLER ** 2 - along ** 2)
    u = (d - a) / dist
    b = a + along * u + branch * h * np.array([-u[1], u[0]])
    t3 = math.atan2(b[1] - a[1], b[0] - a[0]) - theta2
    t4 = math.atan2(b[1], b[0] - GROUND)
    return np.array([(t3 + math.pi) % (2 * math.pi) - math.pi, t4])
