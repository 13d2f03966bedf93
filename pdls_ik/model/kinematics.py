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
Forward kinematics and analytic frame Jacobians on a joint tree.

A query between any two links, ``base`` and ``tip``, runs through their lowest common ancestor
(LCA): ``T_base_tip = (T_lca_base)^-1 · T_lca_tip``. Both halves are serial chains from the LCA
downwards. Fixed (and passive) joints are folded into the next moving joint's constant transform,
so one evaluation costs one rotation per moving joint and one 4×4 product per moving joint.

Jacobian (twist of the tip origin relative to the base, in base coordinates), for a moving joint
with unit axis a through point p (both in base coordinates at the current q) and tip origin t:

- revolute / continuous: column = σ · μ · [a × (t − p); a]
- prismatic:             column = σ · μ · [a; 0]

with μ the mimic multiplier (1 for an active joint) and σ = +1 for joints between the LCA and the
tip, σ = −1 for joints between the LCA and the base (moving such a joint moves the base frame,
so the tip moves the opposite way relative to it). Columns of mimic joints are summed into their
master's column. This is the geometric Jacobian of Orin & Schrader (1984) / Siciliano et al.,
*Robotics*, §3.1.3, generalised to a path through the tree.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import JointError
from pdls_ik.lie.so3 import skew
from pdls_ik.model.joints import Joint, PASSIVE_TYPES


class JointMotions:
    """
    Vectorised local transforms ``A_k(q) = F_k · M_k(θ_k)`` of a list of joints.

    With Rodrigues' formula M(θ) = I + sin θ K̂ + (1 − cos θ) K̂² + θ P̂ (K̂: the axis
    cross-product matrix for a rotation, P̂: the axis as a translation column for a prismatic
    joint), A_k is linear in the coefficients (1, sin θ, 1 − cos θ, θ), so all A_k come from one
    batched product of those coefficients with the constant basis (F_k, F_k K̂, F_k K̂², F_k P̂).

    :param joints: the joints; fixed and passive ones give the constant A_k = F_k.
    :param fixed: (m, 4, 4) constant transforms F_k preceding each joint's motion.
    :param n: number of variables in q; q is read through an index array in which a fixed joint
        points at position n (callers append a zero to q).
    """

    def __init__(self, joints: Sequence[Joint], fixed: NDArray[np.float64], n: int):
        m = self.m = len(joints)
        basis = np.zeros((m, 4, 4, 4))
        self.axis = np.zeros((m, 3))
        self.revolute = np.array([j.revolute and j.moving for j in joints], dtype=bool)
        self.prismatic = np.array([j.type == 'prismatic' and j.moving for j in joints],
                                  dtype=bool)
        for k, joint in enumerate(joints):
            F = fixed[k]
            basis[k, 0] = F
            if not joint.moving:
                continue
            self.axis[k] = joint.axis
            if self.revolute[k]:
                K = np.zeros((4, 4))
                K[:3, :3] = skew(joint.axis)
                basis[k, 1] = F @ K
                basis[k, 2] = F @ K @ K
            else:
                basis[k, 3, :3, 3] = F[:3, :3] @ joint.axis
        self.basis = basis.reshape(m, 4, 16)
        self.qidx = np.array([j.index if j.moving else n for j in joints], dtype=np.intp)
        self.multiplier = np.array([j.multiplier if j.moving else 0.0 for j in joints])
        self.offset = np.array([j.offset if j.moving else 0.0 for j in joints])
        self.plain = bool(np.all(self.multiplier == 1.0) and np.all(self.offset == 0.0))

    def local(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """(m, 4, 4) transforms A_k of each joint's child frame in its predecessor's frame."""
        theta = q[self.qidx]
        if not self.plain:
            theta = self.multiplier * theta + self.offset
        coef = np.empty((self.m, 1, 4))
        coef[:, 0, 0] = 1.0
        coef[:, 0, 1] = np.sin(theta)
        coef[:, 0, 2] = 1.0 - np.cos(theta)
        coef[:, 0, 3] = theta
        return np.matmul(coef, self.basis).reshape(self.m, 4, 4)


_CROSS_A = np.array([1, 2, 0, 2, 0, 1])
_CROSS_D = np.array([2, 0, 1, 1, 2, 0])


def _prefix_products(A: NDArray[np.float64]) -> NDArray[np.float64]:
    """(m, 4, 4) inclusive prefix products P_k = A_0 ··· A_k (Hillis-Steele scan, log2 m steps)."""
    P = A  # callers pass a fresh array: it is updated in place
    step = 1
    while step < len(P):
        P[step:] = np.matmul(P[:-step], P[step:])
        step *= 2
    return P


class Chain:
    """
    Precomputed path between two links, evaluated for pose and Jacobian.

    :param joints: all joints of the tree.
    :param parent_joint: link index → index in ``joints`` of its parent joint (-1 for the root).
    :param base, tip: link indices.
    :param n: number of variables in q.
    """

    def __init__(self, joints: Sequence[Joint], parent_joint: Sequence[int], base: int, tip: int,
                 n: int):
        def ancestors(link: int) -> List[int]:
            path = []
            while parent_joint[link] >= 0:
                path.append(parent_joint[link])
                link = joints[parent_joint[link]].parent
            return path

        up, down = ancestors(base), ancestors(tip)
        common = set(up) & set(down)
        up = [j for j in up if j not in common][::-1]  # LCA → base, downward order
        down = [j for j in down if j not in common][::-1]  # LCA → tip, downward order
        #: indices in ``joints`` of every joint on the path (LCA → tip, then LCA → base)
        self.path_joints = down + up
        #: floating/planar joints on the path (held at their origin; Jacobians refused)
        self.passive = [joints[j].name for j in up + down if joints[j].type in PASSIVE_TYPES]
        halves = []
        for path in (down, up):
            moving, fixed, F = [], [], np.eye(4)
            for j in path:
                F = F @ joints[j].origin
                if joints[j].moving:
                    moving.append(joints[j])
                    fixed.append(F)
                    F = np.eye(4)
            halves.append((moving, np.array(fixed).reshape(-1, 4, 4), F))
        (tip_joints, tip_fixed, self.end_tip), (base_joints, base_fixed, self.end_base) = halves
        self.tip_motions = JointMotions(tip_joints, tip_fixed, n)
        self.base_motions = JointMotions(base_joints, base_fixed, n) if base_joints else None
        self.base_is_lca = not up
        moving = tip_joints + base_joints
        #: moving joints on the path (tip half first), e.g. to report an IK chain
        self.names = [j.name for j in moving]
        self.axis = np.array([j.axis for j in moving]).reshape(-1, 3)
        # coordinate axes (±x, ±y, ±z, the usual case) are read as a column of the joint frame
        self.axis_column = np.argmax(np.abs(self.axis), axis=1) if moving else np.zeros(0, int)
        self.axis_sign = np.sign(self.axis[np.arange(len(moving)), self.axis_column])[:, None]
        self.axis_aligned = bool(np.all(np.abs(self.axis).max(axis=1) == 1.0)) if moving else True
        self.rows = np.arange(len(moving))
        self.revolute = np.array([j.revolute for j in moving], dtype=bool)
        self.prismatic = np.flatnonzero(~self.revolute)
        # column selection: J = cols @ S, S[k, q-index of joint k] = σ_k μ_k (sums mimic columns)
        self.select = np.zeros((len(moving), n))
        for k, joint in enumerate(moving):
            sign = 1.0 if k < len(tip_joints) else -1.0
            self.select[k, joint.index] += sign * joint.multiplier

    def _frames(self, q):
        """
        Return the child-frame poses of the moving joints in the LCA frame, T_lca_tip, T_lca_base.

        Poses: tip half, then base half; T_lca_base is None when the base is the LCA.
        """
        P = _prefix_products(self.tip_motions.local(q)) if self.tip_motions.m else \
            np.empty((0, 4, 4))
        T_tip = (P[-1] if len(P) else np.eye(4)) @ self.end_tip
        if self.base_is_lca:
            return P, T_tip, None
        if self.base_motions is None:
            return P, T_tip, self.end_base
        P_base = _prefix_products(self.base_motions.local(q))
        return np.concatenate((P, P_base)), T_tip, P_base[-1] @ self.end_base

    def pose(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """(4, 4) pose of the tip in the base frame; q is (n,)."""
        _, T_tip, T_base = self._frames(q)
        return T_tip if T_base is None else _inverse(T_base) @ T_tip

    def pose_and_jacobian(self, q: NDArray[np.float64]
                          ) -> Tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(T (4, 4), J (6, n)): tip pose and Jacobian in the base frame (module docstring)."""
        if self.passive:
            raise JointError(self.passive[0], 'the chain passes through this unsupported '
                             'floating/planar joint; choose a base below it')
        P, T_tip, T_base = self._frames(q)
        if self.axis_aligned:
            axes = P[self.rows, :3, self.axis_column] * self.axis_sign
        else:
            axes = np.matmul(P[:, :3, :3], self.axis[:, :, None])[:, :, 0]
        points = P[:, :3, 3]
        if T_base is not None:
            inv = _inverse(T_base)
            T_tip = inv @ T_tip
            axes = axes @ inv[:3, :3].T
            points = points @ inv[:3, :3].T + inv[:3, 3]
        d = T_tip[:3, 3] - points
        products = axes[:, _CROSS_A] * d[:, _CROSS_D]  # a × d = products[:3] − products[3:]
        cols = np.empty((len(axes), 6))
        cols[:, :3] = products[:, :3] - products[:, 3:]
        cols[:, 3:] = axes
        if len(self.prismatic):
            cols[self.prismatic, :3] = axes[self.prismatic]
            cols[self.prismatic, 3:] = 0.0
        return T_tip, cols.T @ self.select


def _inverse(T: NDArray[np.float64]) -> NDArray[np.float64]:
    """Inverse of a (4, 4) rigid transform."""
    inv = np.eye(4)
    inv[:3, :3] = T[:3, :3].T
    inv[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return inv


def tree_poses(joints: Sequence[Joint], motions: JointMotions, n_links: int, root: int,
               q_ext: NDArray[np.float64]) -> List[NDArray[np.float64]]:
    """
    (4, 4) pose of every link in the root frame, in one pass over joints in topological order.

    Passive (floating/planar) joints are held at their origin.
    """
    A = motions.local(q_ext)
    poses: List = [None] * n_links
    poses[root] = np.eye(4)
    for k, joint in enumerate(joints):
        poses[joint.child] = poses[joint.parent] @ A[k]
    return poses
