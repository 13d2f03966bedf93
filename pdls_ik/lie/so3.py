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
SO(3): the rotation logarithm (one rotation, or N at once), the swing about a free axis, [v]×.

:func:`rotation_log` is a closed-form SO(3) logarithm for the solver's inner loop (scipy's
``Rotation`` costs tens of µs per call); it falls back on scipy near π where the closed form loses
accuracy, and is tested against ``Rotation.from_matrix(R).as_rotvec()``. :func:`rotation_logs`
is the same closed form vectorized over N rotations (the batched solver); the numba kernels of
:mod:`pdls_ik._accel` transcribe it.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.transform import Rotation

Array = NDArray[np.float64]


def rotation_log(R: Array) -> Array:
    """
    Rotation vector r (3,) [rad] with ``exp([r]×) = R`` for a rotation matrix R (3, 3).

    |r| ∈ [0, π]. Uses ``sin θ · axis = vee(R − Rᵀ) / 2`` and ``cos θ = (tr R − 1) / 2``;
    near θ = π (where sin θ → 0 and the axis must come from the symmetric part) scipy is used.
    """
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = R.tolist()    # Python floats: faster
    s0 = 0.5 * (r21 - r12)
    s1 = 0.5 * (r02 - r20)
    s2 = 0.5 * (r10 - r01)
    c = 0.5 * (r00 + r11 + r22 - 1.0)
    s = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    if c < 0.0 and s < 1e-3:
        return Rotation.from_matrix(R).as_rotvec()
    theta = math.atan2(s, c)
    k = theta / s if s > 1e-12 else 1.0 + s * s / 6.0   # θ / sin θ → 1 as θ → 0
    return np.array((k * s0, k * s1, k * s2))


def swing_log(R_rel: Array, axis: int) -> Array:
    """
    Rotation vector (3,) of the *swing* that turns unit axis ``axis`` onto ``R_rel[:, axis]``.

    Decomposing R_rel = swing · twist with the twist about coordinate axis ``axis``, the swing is
    the shortest rotation aligning that axis; its rotation vector is perpendicular to the axis
    and its norm is the angle between the two axes [rad]. Used for a free rotation about a tool
    axis: only the axis direction is controlled.
    """
    a = R_rel[:, axis]
    e = np.zeros(3)
    e[axis] = 1.0
    cross = np.cross(e, a)
    s = math.sqrt(float(cross @ cross))
    angle = math.atan2(s, float(a[axis]))
    if s < 1e-12:
        if a[axis] > 0.0:
            return np.zeros(3)
        cross = np.zeros(3)            # opposite axes: any perpendicular axis, here the next one
        cross[(axis + 1) % 3] = 1.0
        s = 1.0
    return cross * (angle / s)


def rotation_logs(R: Array) -> Array:
    """
    Rotation vectors (N, 3) [rad] of N rotation matrices R (N, 3, 3): :func:`rotation_log` batched.

    Closed form; near an angle of π the axis comes from the symmetric part (scipy).
    """
    s = 0.5 * np.stack((R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0],
                        R[:, 1, 0] - R[:, 0, 1]), axis=1)
    c = 0.5 * (np.trace(R, axis1=1, axis2=2) - 1.0)
    sn = np.sqrt(np.einsum('Ni,Ni->N', s, s))
    angle = np.arctan2(sn, c)
    k = np.where(sn > 1e-12, angle / np.maximum(sn, 1e-300), 1.0)
    out = s * k[:, None]
    near_pi = (c < 0.0) & (sn < 1e-3)
    if near_pi.any():
        out[near_pi] = Rotation.from_matrix(R[near_pi]).as_rotvec()
    return out


def skew(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """(3, 3) cross-product matrix [v]× such that [v]× w = v × w."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
