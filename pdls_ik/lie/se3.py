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
SE(3): validated goal poses, and the exponential and logarithm of rigid transforms.

:func:`parse_pose` turns a user goal into a position and rotation matrix with scipy, checking
every number. :func:`se3_exp` / :func:`se3_log` map a twist (v [m], ω [rad]) to a transform and
back (Murray, Li & Sastry, §2.4; Solà et al. 2018, "A micro Lie theory", Appendix D), for the
floating base's Lie-group steps (:mod:`pdls_ik.model.floating`).
"""
from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.lie.so3 import skew
from scipy.spatial.transform import Rotation

Array = NDArray[np.float64]

#: quaternions whose norm differs from 1 by more than this are normalized with a note
QUAT_NORM_NOTE_TOL = 1e-9
#: a 4×4 pose whose rotation block is further than this from orthonormal is rejected
ROTATION_ORTHO_TOL = 1e-3


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


def quaternion_matrix(quat) -> Array:
    """
    Rotation matrix (3, 3) of a unit quaternion (x, y, z, w), ROS order.

    The formula of ``scipy.spatial.transform.Rotation.as_matrix`` on Python floats: the same
    matrix to rounding, about 20× faster for one quaternion (a tracking goal per cycle).
    """
    x, y, z, w = quat
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return np.array([[xx - yy - zz + ww, 2.0 * (xy - zw), 2.0 * (xz + yw)],
                     [2.0 * (xy + zw), -xx + yy - zz + ww, 2.0 * (yz - xw)],
                     [2.0 * (xz - yw), 2.0 * (yz + xw), -xx - yy + zz + ww]])


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
        # products, not ** 2: the tracking kernel's goal intake repeats these operations
        norm = scale * math.sqrt(sum(t * t for t in [v / scale for v in values])) \
            if scale > 0.0 else 0.0
        if norm < 1e-9:
            raise InputError('invalid goal: orientation is a zero quaternion (norm 0), '
                             'not a rotation')
        if abs(norm - 1.0) > QUAT_NORM_NOTE_TOL:
            notes.append(f'normalized goal quaternion (norm was {norm:.9g})')
        return p, quaternion_matrix([v / norm for v in values]), notes
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


def _v_matrix(w: Array, inverse: bool = False) -> Array:
    """SE(3) left Jacobian of SO(3), V(ω) (or its inverse): t = V(ω) v in exp((v, ω))."""
    theta = float(np.linalg.norm(w))
    W = skew(w)
    if theta < 1e-8:
        return np.eye(3) - 0.5 * W if inverse else np.eye(3) + 0.5 * W
    if inverse:
        half = 0.5 * theta
        c = (1.0 - half / math.tan(half)) / theta ** 2
        return np.eye(3) - 0.5 * W + c * (W @ W)
    a = (1.0 - math.cos(theta)) / theta ** 2
    b = (theta - math.sin(theta)) / theta ** 3
    return np.eye(3) + a * W + b * (W @ W)


def se3_exp(twist: Array) -> Array:
    """(4, 4) exp of a twist (6,) = (v [m], ω [rad]) in the body frame."""
    T = np.eye(4)
    T[:3, :3] = Rotation.from_rotvec(twist[3:]).as_matrix()
    T[:3, 3] = _v_matrix(twist[3:]) @ twist[:3]
    return T


def se3_log(T: Array) -> Array:
    """Twist (6,) = (v, ω) with ``se3_exp(twist) = T`` for a rigid transform T (4, 4)."""
    w = Rotation.from_matrix(T[:3, :3]).as_rotvec()
    return np.concatenate((_v_matrix(w, inverse=True) @ T[:3, 3], w))
