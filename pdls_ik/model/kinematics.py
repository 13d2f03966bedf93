"""Forward kinematics and analytic frame Jacobians on a joint tree.

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
from pdls_ik.model.joints import PASSIVE_TYPES, Joint, skew


def _rotation_terms(joints: Sequence[Joint]):
    """Per-joint constants of the Rodrigues formula R = I + sin θ K + (1 − cos θ) K²."""
    m = len(joints)
    K = np.zeros((m, 3, 3))
    K2 = np.zeros((m, 3, 3))
    axis = np.zeros((m, 3))
    revolute = np.zeros(m, dtype=bool)
    for k, joint in enumerate(joints):
        axis[k] = joint.axis
        if joint.revolute:
            revolute[k] = True
            K[k] = skew(joint.axis)
            K2[k] = K[k] @ K[k]
    return K, K2, axis, revolute


class JointMotions:
    """Vectorised local transforms ``A_k(q) = F_k · M_k(θ_k)`` of a list of joints.

    Args:
        joints: the joints; fixed ones are allowed (constant A_k = F_k).
        fixed: (m, 4, 4) constant transforms F_k preceding each joint's motion.
        n: number of variables in q.
    """

    def __init__(self, joints: Sequence[Joint], fixed: NDArray[np.float64], n: int):
        self.m = len(joints)
        self.K, self.K2, self.axis, self.revolute = _rotation_terms(joints)
        self.prismatic_axis = self.axis * np.array([j.type == "prismatic" for j in joints])[:, None]
        # q is extended by one zero so that index -1 (fixed joint) reads 0
        self.qidx = np.array([j.index if j.moving else n for j in joints], dtype=np.intp)
        self.multiplier = np.array([j.multiplier if j.moving else 0.0 for j in joints])
        self.offset = np.array([j.offset if j.moving else 0.0 for j in joints])
        self.fixed = fixed
        self._motion = np.tile(np.eye(4), (self.m, 1, 1))

    def local(self, q_ext: NDArray[np.float64]) -> NDArray[np.float64]:
        """(m, 4, 4) transforms A_k of each joint's child frame in its chain predecessor's frame."""
        theta = self.multiplier * q_ext[self.qidx] + self.offset
        s = np.sin(theta)[:, None, None]
        c = np.cos(theta)[:, None, None]
        M = self._motion
        M[:, :3, :3] = np.eye(3) + s * self.K + (1.0 - c) * self.K2
        M[:, :3, 3] = self.prismatic_axis * theta[:, None]
        return np.matmul(self.fixed, M)


class Chain:
    """Precomputed path between two links, evaluated for pose and Jacobian.

    Args:
        joints: all joints of the tree, each link's parent joint reachable via ``parent_joint``.
        parent_joint: link index → index in ``joints`` of its parent joint (-1 for the root).
        base, tip: link indices.
        n: number of variables in q.
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
        self.passive = [joints[j].name for j in up + down if joints[j].type in PASSIVE_TYPES]
        self.n = n
        moving, fixed, sign, ends = [], [], [], []
        for path, sigma in ((down, 1.0), (up, -1.0)):
            F = np.eye(4)
            for j in path:
                F = F @ joints[j].origin
                if joints[j].moving:
                    moving.append(joints[j])
                    fixed.append(F)
                    sign.append(sigma)
                    F = np.eye(4)
            ends.append(F)
        self.m_tip = sum(1 for s in sign if s > 0)
        self.end_tip, self.end_base = ends
        self.motions = JointMotions(moving, np.array(fixed).reshape(-1, 4, 4), n)
        self.names = [j.name for j in moving]
        # column selection: J = cols @ S, S[k, q-index of joint k] = σ_k μ_k (sums mimic columns)
        self.select = np.zeros((len(moving), n))
        for k, joint in enumerate(moving):
            self.select[k, joint.index] += sign[k] * joint.multiplier
        self.base_is_lca = not up and np.allclose(self.end_base, np.eye(4), atol=0, rtol=0)
        self.revolute = self.motions.revolute
        self.axis = self.motions.axis

    def _frames(self, q_ext):
        """Child-frame poses of the moving joints in the LCA frame, and T_lca_tip, T_lca_base."""
        A = self.motions.local(q_ext)
        P = np.empty_like(A)
        T = np.eye(4)
        for k in range(self.m_tip):
            T = P[k] = T @ A[k]
        T_tip = T @ self.end_tip
        T = np.eye(4)
        for k in range(self.m_tip, self.motions.m):
            T = P[k] = T @ A[k]
        T_base = T @ self.end_base
        return P, T_tip, T_base

    def pose(self, q_ext: NDArray[np.float64]) -> NDArray[np.float64]:
        """(4, 4) pose of the tip in the base frame."""
        _, T_tip, T_base = self._frames(q_ext)
        return T_tip if self.base_is_lca else _inverse(T_base) @ T_tip

    def pose_and_jacobian(self, q_ext: NDArray[np.float64]
                          ) -> Tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(T (4, 4), J (6, n)): tip pose and Jacobian in the base frame (module docstring)."""
        if self.passive:
            raise JointError(self.passive[0], "the chain passes through this unsupported "
                             "floating/planar joint; choose a base below it")
        P, T_tip, T_base = self._frames(q_ext)
        axes = np.matmul(P[:, :3, :3], self.axis[:, :, None])[:, :, 0]
        points = P[:, :3, 3]
        tip = T_tip[:3, 3]
        if not self.base_is_lca:
            Rt = T_base[:3, :3].T
            T_tip = _inverse(T_base) @ T_tip
            axes = axes @ Rt.T
            points = (points - T_base[:3, 3]) @ Rt.T
            tip = T_tip[:3, 3]
        d = tip - points
        cols = np.empty((6, self.motions.m))
        a0, a1, a2 = axes[:, 0], axes[:, 1], axes[:, 2]
        rev = self.revolute
        cols[0] = np.where(rev, a1 * d[:, 2] - a2 * d[:, 1], a0)
        cols[1] = np.where(rev, a2 * d[:, 0] - a0 * d[:, 2], a1)
        cols[2] = np.where(rev, a0 * d[:, 1] - a1 * d[:, 0], a2)
        cols[3:] = axes.T * rev
        return T_tip, cols @ self.select


def _inverse(T: NDArray[np.float64]) -> NDArray[np.float64]:
    """Inverse of a (4, 4) rigid transform."""
    inv = np.eye(4)
    inv[:3, :3] = T[:3, :3].T
    inv[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return inv


def tree_poses(joints: Sequence[Joint], motions: JointMotions, n_links: int, root: int,
               q_ext: NDArray[np.float64]) -> List[NDArray[np.float64]]:
    """(4, 4) pose of every link in the root frame, in one pass over joints in topological order.

    Passive (floating/planar) joints are held at their origin.
    """
    A = motions.local(q_ext)
    poses: List = [None] * n_links
    poses[root] = np.eye(4)
    for k, joint in enumerate(joints):
        poses[joint.child] = poses[joint.parent] @ A[k]
    return poses

