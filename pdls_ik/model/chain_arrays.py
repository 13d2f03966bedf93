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
The arrays of one base → tip chain that the batched and compiled solvers read.

:class:`ChainArrays` flattens a :class:`~pdls_ik.model.linkage.Linkage` chain (Rodrigues basis of
the joint transforms, mimic coupling, joint axes, Jacobian column map, limits) into contiguous
arrays, and computes stacked tip poses and Jacobians for N configurations at once
(:meth:`ChainArrays.pose_and_jacobian`). Read by :mod:`pdls_ik.ik.batch` and the numba kernels of
:mod:`pdls_ik._accel`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import LinkError
from pdls_ik.model.joint_vector import periodic_variables, sampling_range

Array = NDArray[np.float64]


class ChainArrays:
    """
    The arrays of one base → tip chain that the batched kernels read.

    :ivar basis: (m, 4, 16) Rodrigues basis of the joint transforms (see ``JointMotions``).
    :ivar qidx: (m,) index of each joint's variable in q extended by a trailing 0 (index n).
    :ivar multiplier, offset: (m,) mimic coupling θ_k = μ_k q[qidx_k] + o_k.
    :ivar start: (4, 4) constant pose of the chain's first frame in the base frame.
    :ivar end: (4, 4) constant transform from the last joint's frame to the tip.
    :ivar axis: (m, 3) joint axes in their own frames; revolute: (m,) bool.
    :ivar select: (m, n) Jacobian column map J = cols @ select (mimic columns summed).
    :ivar lower, upper: (n,) limits; sample_lo, sample_hi: (n,) seed sampling range (±π where a
        limit is infinite); free: (n,) variables that move the tip.
    :ivar periodic: (n,) bool, the variables turned through their limits
        (:func:`pdls_ik.model.joint_vector.periodic_variables`).
    """

    def __init__(self, linkage, tip: str, base: Optional[str] = None):
        base = linkage.base_link if base is None else base
        chain = linkage.chain(tip, base)
        if chain.passive:
            raise LinkError(tip, f"a floating/planar joint lies between '{base}' and '{tip}'")
        if not chain.base_is_lca and chain.base_motions is not None:
            raise LinkError(base, f"solve_batch needs a base above the tip '{tip}' (or joined "
                                  'to it by fixed joints only); the path crosses moving joints '
                                  'upward')
        motions = chain.tip_motions
        if motions.m == 0:
            raise LinkError(tip, f"no movable joints between base '{base}' and tip '{tip}'")
        self.n, self.m = linkage.n, motions.m
        self.basis = np.ascontiguousarray(motions.basis.reshape(self.m, 4, 16))
        self.qidx = motions.qidx.astype(np.int64)
        self.multiplier, self.offset = motions.multiplier.copy(), motions.offset.copy()
        self.start = np.eye(4) if chain.base_is_lca else _inverse(chain.end_base)
        self.end = chain.end_tip.copy()
        self.axis = np.ascontiguousarray(chain.axis[:self.m])
        self.revolute = chain.revolute[:self.m].copy()
        self.select = np.ascontiguousarray(chain.select[:self.m])
        self.lower = np.asarray(linkage.lower, dtype=float)
        self.upper = np.asarray(linkage.upper, dtype=float)
        self.continuous = np.asarray(linkage.continuous, dtype=bool)
        self.periodic = periodic_variables(linkage)
        self.sample_lo, self.sample_hi = sampling_range(self.lower, self.upper)
        self.free = np.any(self.select != 0.0, axis=0)
        self.rows = np.arange(self.m)
        aligned = chain.axis_aligned
        self.axis_column = chain.axis_column[:self.m] if aligned else None
        self.axis_sign = chain.axis_sign[:self.m] if aligned else None

    def pose_and_jacobian(self, q: Array):
        """
        Stacked tip poses T (N, 4, 4) and Jacobians J (N, 6, n) in the base frame, q (N, n).

        Arrays are joint-major, (m, N, ...), so that every product is one BLAS call or one
        stacked 4 × 4 product over the N problems.
        """
        N, m = q.shape[0], self.m
        q_ext = np.concatenate((q, np.zeros((N, 1))), axis=1)
        theta = (q_ext[:, self.qidx] * self.multiplier + self.offset).T
        coef = np.empty((m, N, 4))
        coef[:, :, 0] = 1.0
        np.sin(theta, out=coef[:, :, 1])
        coef[:, :, 2] = 1.0 - np.cos(theta)
        coef[:, :, 3] = theta
        A = np.matmul(coef, self.basis).reshape(m, N, 4, 4)
        P = np.empty((m, N, 4, 4))
        np.matmul(self.start, A[0], out=P[0])
        for k in range(1, m):
            np.matmul(P[k - 1], A[k], out=P[k])
        T = P[-1] @ self.end
        if self.axis_column is not None:   # coordinate axes: a column of the joint frame
            axes = P[self.rows, :, :3, self.axis_column] * self.axis_sign[:, :, None]
        else:
            axes = np.matmul(P[:, :, :3, :3], self.axis[:, None, :, None])[..., 0]
        d = T[None, :, :3, 3] - P[:, :, :3, 3]
        cols = np.empty((m, N, 6))
        a0, a1, a2 = axes[..., 0], axes[..., 1], axes[..., 2]
        d0, d1, d2 = d[..., 0], d[..., 1], d[..., 2]
        cols[..., 0] = a1 * d2 - a2 * d1
        cols[..., 1] = a2 * d0 - a0 * d2
        cols[..., 2] = a0 * d1 - a1 * d0
        cols[..., 3:] = axes
        if not self.revolute.all():
            prismatic = ~self.revolute
            cols[prismatic, :, :3] = axes[prismatic]
            cols[prismatic, :, 3:] = 0.0
        J = (cols.reshape(m, N * 6).T @ self.select).reshape(N, 6, self.n)
        return T, J


def _inverse(T: Array) -> Array:
    inv = np.eye(4)
    inv[:3, :3] = T[:3, :3].T
    inv[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return inv
