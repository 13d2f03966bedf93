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
import numpy as np

TWO_PI = 2.0 * math.pi


def chain_tuple(c) -> tuple:
    """Return the kernels' chain tuple of a :class:`~pdls_ik.model.chain_arrays.ChainArrays`."""
    return (c.basis, c.qidx, c.multiplier, c.offset, c.start, c.end, c.axis, c.revolute,
            c.select)


@numba.njit(cache=True)
def turned(t, lower, upper):
    """:func:`pdls_ik.pdls.periodic.turn_into_limits` of one value: its image or NaN (none)."""
    image = t + TWO_PI * math.ceil((lower - t) / TWO_PI)
    return image if image <= upper else math.nan


@numba.njit(cache=True, fastmath=False)
def pose_jacobian(q, ch, T, J, P):
    """
    Tip pose T (4, 4) and Jacobian J (6, n) of chain ``ch`` at q (n,), base frame; P: work (4, 4).

    :meth:`pdls_ik.model.chain_arrays.ChainArrays.pose_and_jacobian` for one configuration.
    """
    basis, qidx, mult, offset, start, end, axis, revolute, select = ch
    m = basis.shape[0]
    n = q.shape[0]
    for r in range(4):
        for c in range(4):
            P[r, c] = start[r, c]
    pts = np.empty((m, 3))
    axs = np.empty((m, 3))
    A = np.empty(16)
    tmp = np.empty((4, 4))
    for k in range(m):
        th = (q[qidx[k]] if qidx[k] < n else 0.0) * mult[k] + offset[k]
        s, c1 = math.sin(th), 1.0 - math.cos(th)
        for i in range(16):
            A[i] = basis[k, 0, i] + s * basis[k, 1, i] + c1 * basis[k, 2, i] + th * basis[k, 3, i]
        for r in range(3):
            for c in range(4):
                tmp[r, c] = (P[r, 0] * A[c] + P[r, 1] * A[4 + c] + P[r, 2] * A[8 + c]
                             + P[r, 3] * A[12 + c])
        for r in range(3):
            for c in range(4):
                P[r, c] = tmp[r, c]
        for r in range(3):
            pts[k, r] = P[r, 3]
            axs[k, r] = P[r, 0] * axis[k, 0] + P[r, 1] * axis[k, 1] + P[r, 2] * axis[k, 2]
    for r in range(3):
        for c in range(4):
            T[r, c] = P[r, 0] * end[0, c] + P[r, 1] * end[1, c] + P[r, 2] * end[2, c] \
                + P[r, 3] * end[3, c]
    T[3, 0] = T[3, 1] = T[3, 2] = 0.0
    T[3, 3] = 1.0
    J[:, :] = 0.0
    for k in range(m):
        a0, a1, a2 = axs[k, 0], axs[k, 1], axs[k, 2]
        if revolute[k]:
            d0, d1, d2 = T[0, 3] - pts[k, 0], T[1, 3] - pts[k, 1], T[2, 3] - pts[k, 2]
            col = (a1 * d2 - a2 * d1, a2 * d0 - a0 * d2, a0 * d1 - a1 * d0, a0, a1, a2)
        else:
            col = (a0, a1, a2, 0.0, 0.0, 0.0)
        for j in range(n):
            w = select[k, j]
            if w != 0.0:
                for r in range(6):
                    J[r, j] += w * col[r]


@numba.njit(cache=True)
def pose_residual(T, target, e):
    """
    Pose residual e (6,) of the tip pose T (4, 4) against target (4, 4): p* − p, log(R* Rᵀ).

    :func:`pdls_ik.lie.so3.rotation_log`'s closed form; near π the axis from the symmetric part.
    """
    for i in range(3):
        e[i] = target[i, 3] - T[i, 3]
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = target[i, 0] * T[j, 0] + target[i, 1] * T[j, 1] + target[i, 2] * T[j, 2]
    s0 = 0.5 * (R[2, 1] - R[1, 2])
    s1 = 0.5 * (R[0, 2] - R[2, 0])
    s2 = 0.5 * (R[1, 0] - R[0, 1])
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    sn = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    angle = math.atan2(sn, c)
    if c < 0.0 and sn < 1e-3:  # near π: axis from the symmetric part, sign from the skew part
        best = 0
        for i in range(3):
            if R[i, i] > R[best, best]:
                best = i
        v = np.empty(3)
        for i in range(3):
            v[i] = 0.5 * (R[i, best] + R[best, i])
        v[best] = R[best, best] - c  # symmetric part = c I + (1 − c) a aᵀ
        norm = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        sgn = 1.0 if v[0] * s0 + v[1] * s1 + v[2] * s2 >= 0.0 else -1.0
        for i in range(3):
            e[3 + i] = sgn * angle * v[i] / norm
        return
    k = angle / sn if sn > 1e-12 else 1.0
    e[3], e[4], e[5] = k * s0, k * s1, k * s2
