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
Periodic variables: angles whose values θ and θ + 2πk give the same configuration.

A revolute joint's limits exclude angles, not configurations only: θ beyond the upper limit may
have an image θ − 2π within the limits, the very same pose. For such a variable the limiting
loop (:func:`pdls_ik.pdls.step.compute_step`) does not clamp a step whose target has an image
within the limits, and :func:`pdls_ik.pdls.solve` places θ on that image: the iterate goes
"through" the limit by a full turn instead of stopping at it. That is right for a one-shot IK
solve, where only the final configuration matters (clamping at ±π the elbow of a UR5, whose
limits span exactly one turn, halved the local convergence from random seeds), and wrong for
a trajectory, where a jump of 2π is not a motion: tracking leaves the option unset.
"""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np
from numpy.typing import NDArray

TWO_PI = 2.0 * math.pi


def turn_into_limits(t: NDArray[np.float64], lower: NDArray[np.float64],
                     upper: NDArray[np.float64], periodic: NDArray[np.bool_]
                     ) -> Tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """
    Map the periodic values outside their limits onto an image within them, when one exists.

    :param t: (n,) values [rad]; lower, upper: (n,) limits (a periodic variable has finite
        limits); periodic: (n,) bool.
    :return: (t', turned): t' (n,) a copy of t where ``turned`` (n,) bool, the periodic variables
        outside [lower, upper] with an image ``t + 2πk`` (k = ⌈(lower − t) / 2π⌉, the lowest
        image at or above lower) within it, take that image; t itself when nothing turns.
    """
    outside = periodic & ((t > upper) | (t < lower))
    if not outside.any():
        return t, outside
    image = t[outside] + TWO_PI * np.ceil((lower[outside] - t[outside]) / TWO_PI)
    fits = image <= upper[outside]
    turned = np.zeros_like(outside)
    turned[np.flatnonzero(outside)[fits]] = True
    if not fits.any():
        return t, turned
    t = t.copy()
    t[turned] = image[fits]
    return t, turned
