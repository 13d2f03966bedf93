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
Rotation logarithm, swing error about a free axis, and validated goal poses.

:func:`rotation_log` is a closed-form SO(3) logarithm for the solver's inner loop (scipy's
``Rotation`` costs tens of µs per call); it falls back on scipy near π where the closed form loses
accuracy, and is tested against ``Rotation.from_matrix(R).as_rotvec()``. :func:`parse_pose` turns
a user goal into a position and rotation matrix with scipy, checking every number.
"""
from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from scipy.spatial.transform import Rotation

Array = NDArray[np.float64]

#: quaternions whose norm differs from 1 by more than this are normalized with a note
QUAT_NORM_NOTE_TOL = 1e-9
#: a 4×4 pose whose rotation block is further than this from orthonormal is rejected
ROTATION_ORTHO_TOL = 1e-3


def rotation_log(R: Array) -> Array:
    """
    Rotation vector r (3,) [rad] with ``exp([r]×) = R`` for a rotation matrix R (3, 3).

    |r| ∈ [0, π]. Uses ``sin θ · axis = vee(R − Rᵀ) / 2`` and ``cos θ = (tr R − 1) / 2``;
    near θ = π (where sin θ → 0 and the axis must come from the symmetric part) scipy is used.
    """
    s0 = 0.5 * (R[2, 1] - R[1, 2])
    s1 = 0.5 * (R[0, 2] - R[2, 0])
    s2 = 0.5 * (R[1, 0] - R[0, 1])
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
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


def _finite(values: Array, label: str, fields: str) -> None:
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        raise InputError(f'invalid goal: non-finite value in {label}.{fields[i]} ({values[i]})')


#: largest goal coordinate accepted [m]: far beyond any robot's reach, yet small enough that
#: squared residuals cannot overflow (an overflow would turn an unreachable goal into NaN
#: arithmetic, and NaN compares as "within tolerance" nowhere safely)
MAX_GOAL_COORDINATE = 1e6


def _in_range(p: Array, label: str) -> None:
    for axis, value in zip('xyz', p.tolist()):
        if abs(value) > MAX_GOAL_COORDINATE:
            raise InputError(f'invalid goal: {label}.{axis} = {value:g} m is out of range '
                             f'(|value| <= {MAX_GOAL_COORDINATE:g} m)')


def parse_pose(target) -> Tuple[Array, Array, List[str]]:
    """
    Validate a goal pose; returns position (3,) [m], rotation matrix (3, 3) and notes.

    :param target: a (4, 4) homogeneous transform, or a pair (position (3,), quaternion (4,) in
        ROS order x, y, z, w).

    :return: (p, R, notes): notes record repairs, e.g. a quaternion normalized from norm 0.99996.

    :raises InputError: wrong shape, NaN/inf (naming the field), a coordinate beyond
        ``MAX_GOAL_COORDINATE``, zero quaternion, a 4×4 whose last row is not (0, 0, 0, 1) or
        whose rotation block is not a rotation.
    """
    notes: List[str] = []
    if isinstance(target, (tuple, list)) and len(target) == 2:
        try:
            p = np.asarray(target[0], dtype=float).reshape(-1)
            quat = np.asarray(target[1], dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise InputError('invalid goal: position and quaternion must be numbers') from None
        if p.shape != (3,):
            raise InputError(f'invalid goal: position needs 3 values (x, y, z), got {p.size}')
        if quat.shape != (4,):
            raise InputError('invalid goal: orientation needs 4 quaternion values '
                             f'(x, y, z, w), got {quat.size}')
        x, y, z = p.tolist()
        values = quat.tolist()
        if not math.isfinite(x + y + z + sum(values)):     # one test on the fast path
            _finite(p, 'position', 'xyz')
            _finite(quat, 'orientation', 'xyzw')
        if max(abs(x), abs(y), abs(z)) > MAX_GOAL_COORDINATE:
            _in_range(p, 'position')
        scale = max(abs(v) for v in values)   # scaled first: the norm of 1e300s overflows
        norm = scale * math.sqrt(sum((v / scale) ** 2 for v in values)) if scale > 0.0 else 0.0
        if norm < 1e-9:
            raise InputError('invalid goal: orientation is a zero quaternion (norm 0), '
                             'not a rotation')
        if abs(norm - 1.0) > QUAT_NORM_NOTE_TOL:
            notes.append(f'normalized goal quaternion (norm was {norm:.9g})')
        return p, Rotation.from_quat(quat / scale).as_matrix(), notes
    try:
        T = np.asarray(target, dtype=float)
    except (TypeError, ValueError):
        raise InputError('invalid goal: expected a 4x4 pose or (position, quaternion)') \
            from None
    if T.shape != (4, 4):
        raise InputError(f'invalid goal: expected a 4x4 pose or (position, quaternion), got '
                         f'an array of shape {T.shape}')
    (a, b, c, px), (d, e, f, py), (g, h, i, pz), (x, y, z, w) = T.tolist()
    if not math.isfinite(a + b + c + d + e + f + g + h + i + px + py + pz + x + y + z + w):
        bad = np.argwhere(~np.isfinite(T))
        if bad.size:
            r, c = (int(i) for i in bad[0])
            raise InputError(f'invalid goal: non-finite value in pose[{r}][{c}] ({T[r, c]})')
    if max(abs(x), abs(y), abs(z)) > 1e-9 or abs(w - 1.0) > 1e-9 + 1e-5:  # numpy.allclose
        raise InputError(f'invalid goal: the last row of the pose is {T[3].tolist()}, '
                         'not [0, 0, 0, 1]')
    # |RᵀR − I| (max norm) on Python floats: a 3 × 3 product through NumPy costs 3× more
    ortho = max(abs(a * a + d * d + g * g - 1.0), abs(b * b + e * e + h * h - 1.0),
                abs(c * c + f * f + i * i - 1.0), abs(a * b + d * e + g * h),
                abs(a * c + d * f + g * i), abs(b * c + e * f + h * i))
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    R = T[:3, :3]
    if ortho > ROTATION_ORTHO_TOL or det <= 0.0:
        raise InputError('invalid goal: the rotation block of the pose is not a rotation '
                         f'(|RᵀR − I| = {ortho:.3g}, det = {det:.3g})')
    if ortho > QUAT_NORM_NOTE_TOL:
        notes.append(f're-orthonormalized goal rotation (|RᵀR − I| was {ortho:.3g})')
        R = Rotation.from_matrix(R).as_matrix()
    if max(abs(px), abs(py), abs(pz)) > MAX_GOAL_COORDINATE:
        _in_range(T[:3, 3], 'position')
    return T[:3, 3].copy(), R.copy(), notes
