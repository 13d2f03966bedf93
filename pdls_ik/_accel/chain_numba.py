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
Numba twins of the chain model and the SO(3) log, shared by the kernels of :mod:`pdls_ik._accel`.

A chain travels through the kernels as one tuple ``ch`` = (basis, qidx, multiplier, offset,
start, end, axis, revolute, select): the arrays of
:class:`~pdls_ik.model.chain_arrays.ChainArrays` (:func:`chain_tuple`), in that order.
"""
from __future__ import annotations

import math

import numba
from pdls_ik._accel import use_sources_cache

use_sources_cache()     # before the first cached kernel

TWO_PI = 2.0 * math.pi


def chain_tuple(c) -> tuple:
    """Return the kernels' chain tuple of a :class:`~pdls_ik.model.chain_arrays.ChainArrays`."""
    return (c.basis, c.qidx, c.multiplier, c.offset, c.start, c.end, c.axis, c.revolute,
            c.select)


@numba.njit(cache=True, inline='always')
def turned(t, lower, upper):
    """:func:`pdls_ik.pdls.periodic.turn_into_limits` of one value: its image or NaN (none)."""
    image = t + TWO_PI * math.ceil((lower - t) / TWO_PI)
    return image if image <= upper else math.nan


@numba.njit(cache=True, fastmath=False, inline='always')
def pose_jacobian(q, ch, T, J, P):
    """
    Tip pose T (4, 4) and Jacobian J (6, n) of chain ``ch`` at q (n,), base frame; P: work (4, 4).

    :meth:`pdls_ik.model.chain_arrays.ChainArrays.pose_and_jacobian` for one configuration.
    Allocates nothing (a kernel calls it every iteration): the joint transform A goes through
    T's storage, and the linear rows of a revolute column a_k × (p − p_k) are summed as
    (Σ a_k) × p − Σ a_k × p_k, so that no joint origin p_k needs keeping until the tip p is known.
    """
    basis, qidx, mult, offset, start, end, axis, revolute, select = ch
    m = basis.shape[0]
    n = q.shape[0]
    for r in range(4):
        for c in range(4):
            P[r, c] = start[r, c]
    J[:, :] = 0.0
    for k in range(m):
        th = (q[qidx[k]] if qidx[k] < n else 0.0) * mult[k] + offset[k]
        # A's rows 0–2 (row-major, held in T until the end; its last row is (0, 0, 0, 1)): the
        # sin and 1 − cos terms of a revolute joint, the θ term of the others (the remaining
        # basis terms are zero: the same values)
        if revolute[k]:
            s, c1 = math.sin(th), 1.0 - math.cos(th)
            for i in range(12):
                T[i // 4, i % 4] = basis[k, 0, i] + s * basis[k, 1, i] + c1 * basis[k, 2, i]
        else:
            for i in range(12):
                T[i // 4, i % 4] = basis[k, 0, i] + th * basis[k, 3, i]
        for r in range(3):
            p0, p1, p2, p3 = P[r, 0], P[r, 1], P[r, 2], P[r, 3]
            for c in range(3):
                P[r, c] = p0 * T[0, c] + p1 * T[1, c] + p2 * T[2, c]
            P[r, 3] = p0 * T[0, 3] + p1 * T[1, 3] + p2 * T[2, 3] + p3
        a0 = P[0, 0] * axis[k, 0] + P[0, 1] * axis[k, 1] + P[0, 2] * axis[k, 2]
        a1 = P[1, 0] * axis[k, 0] + P[1, 1] * axis[k, 1] + P[1, 2] * axis[k, 2]
        a2 = P[2, 0] * axis[k, 0] + P[2, 1] * axis[k, 1] + P[2, 2] * axis[k, 2]
        if revolute[k]:     # angular rows a; linear rows −a × p_k now, (Σ a) × p at the end
            x, y, z = P[0, 3], P[1, 3], P[2, 3]
            col = (-(a1 * z - a2 * y), -(a2 * x - a0 * z), -(a0 * y - a1 * x), a0, a1, a2)
        else:
            col = (a0, a1, a2, 0.0, 0.0, 0.0)
        for j in range(n):
            w = select[k, j]
            if w != 0.0:
                for r in range(6):
                    J[r, j] += w * col[r]
    for r in range(3):
        for c in range(4):
            T[r, c] = P[r, 0] * end[0, c] + P[r, 1] * end[1, c] + P[r, 2] * end[2, c] \
                + P[r, 3] * end[3, c]
    T[3, 0] = T[3, 1] = T[3, 2] = 0.0
    T[3, 3] = 1.0
    x, y, z = T[0, 3], T[1, 3], T[2, 3]
    for j in range(n):
        a0, a1, a2 = J[3, j], J[4, j], J[5, j]
        J[0, j] += a1 * z - a2 * y
        J[1, j] += a2 * x - a0 * z
        J[2, j] += a0 * y - a1 * x


@numba.njit(cache=True, inline='always')
def pose_residual(T, target, e):
    """
    Pose residual e (6,) of the tip pose T (4, 4) against target (4, 4): p* − p, log(R* Rᵀ).

    :func:`pdls_ik.lie.so3.rotation_log`'s closed form; near π the axis from the symmetric part.
    """
    for i in range(3):
        e[i] = target[i, 3] - T[i, 3]
    # R = R* Rᵀ: the entries the closed form needs, no allocation
    r01 = target[0, 0] * T[1, 0] + target[0, 1] * T[1, 1] + target[0, 2] * T[1, 2]
    r02 = target[0, 0] * T[2, 0] + target[0, 1] * T[2, 1] + target[0, 2] * T[2, 2]
    r10 = target[1, 0] * T[0, 0] + target[1, 1] * T[0, 1] + target[1, 2] * T[0, 2]
    r12 = target[1, 0] * T[2, 0] + target[1, 1] * T[2, 1] + target[1, 2] * T[2, 2]
    r20 = target[2, 0] * T[0, 0] + target[2, 1] * T[0, 1] + target[2, 2] * T[0, 2]
    r21 = target[2, 0] * T[1, 0] + target[2, 1] * T[1, 1] + target[2, 2] * T[1, 2]
    r00 = target[0, 0] * T[0, 0] + target[0, 1] * T[0, 1] + target[0, 2] * T[0, 2]
    r11 = target[1, 0] * T[1, 0] + target[1, 1] * T[1, 1] + target[1, 2] * T[1, 2]
    r22 = target[2, 0] * T[2, 0] + target[2, 1] * T[2, 1] + target[2, 2] * T[2, 2]
    s0 = 0.5 * (r21 - r12)
    s1 = 0.5 * (r02 - r20)
    s2 = 0.5 * (r10 - r01)
    c = 0.5 * (r00 + r11 + r22 - 1.0)
    sn = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    angle = math.atan2(sn, c)
    if c < 0.0 and sn < 1e-3:  # near π: axis from the symmetric part, sign from the skew part
        # the column of the largest diagonal entry of R's symmetric part c I + (1 − c) a aᵀ
        if r00 >= r11 and r00 >= r22:
            v0, v1, v2 = r00 - c, 0.5 * (r10 + r01), 0.5 * (r20 + r02)
        elif r11 >= r22:
            v0, v1, v2 = 0.5 * (r01 + r10), r11 - c, 0.5 * (r21 + r12)
        else:
            v0, v1, v2 = 0.5 * (r02 + r20), 0.5 * (r12 + r21), r22 - c
        norm = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
        sgn = 1.0 if v0 * s0 + v1 * s1 + v2 * s2 >= 0.0 else -1.0
        k = sgn * angle / norm
        e[3], e[4], e[5] = k * v0, k * v1, k * v2
        return
    k = angle / sn if sn > 1e-12 else 1.0
    e[3], e[4], e[5] = k * s0, k * s1, k * s2
