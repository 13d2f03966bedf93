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
A 6-DOF floating (free-flying) root on a linkage: configuration on a Lie group.

Configuration q (nq = nv + 1 = n + 7) = [x, y, z, qx, qy, qz, qw, joints (n)]: the pose of the
floating body (root position [m] and unit quaternion in ROS order) in the world frame, then the
joints in ``Linkage.joint_names`` order. Velocity / step v (nv = n + 6) = [v (3), ω (3),
joints (n)], the root twist expressed in the root frame (Pinocchio's free-flyer convention) and
the joint rates. The step is applied on the Lie group SE(3) × Rⁿ, as HPP's hierarchical Newton
solver (``hpp::constraints::solver::HierarchicalIterative``, hpp-constraints) integrates its
steps on a Lie-group configuration space::

    integrate(q, v):   T_root ← T_root · exp(v_root),   joints ← joints + v_joints
    difference(q0, q1) = v  such that integrate(q0, v) = q1

(exp/log of SE(3): Murray, Li & Sastry, *A Mathematical Introduction to Robotic Manipulation*,
§2.4; Solà et al. 2018, "A micro Lie theory", Appendix D.)

For the PDLS solver, whose variables must be a vector it can add to and bound, the class also
offers *solver coordinates* θ (nv) = [root position, root rotation vector, joints]. Jacobians are
taken with respect to the tangent step v, and a step is applied with :meth:`integrate_theta`
(θ ⊕ v), so the solver moves on the group; θ is only a storage chart, never differentiated.
:class:`FloatingBase` mirrors the parts of :class:`~pdls_ik.model.Linkage` that tasks use
(``n``, ``joint_names``, limits, ``pose_and_jacobian``...) with θ in place of q, so every task
works unchanged on a floating robot, with the extra link ``world``.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pdls_ik.errors import InputError, LinkError
from pdls_ik.lie.se3 import se3_exp, se3_log
from pdls_ik.lie.so3 import skew
from pdls_ik.model.com import CenterOfMass
from pdls_ik.model.joint_vector import check_joint_vector
from scipy.spatial.transform import Rotation

Array = NDArray[np.float64]
ROOT_VARIABLES = ('root_x', 'root_y', 'root_z', 'root_rx', 'root_ry', 'root_rz')


class FloatingBase:
    """
    A linkage whose root body floats freely in a ``world`` frame (see module docstring).

    :param linkage: the robot model. If its URDF root is attached by a ``floating`` joint, that
        joint's child is the floating body and the URDF root is the world; otherwise the
        URDF root link is the floating body and a virtual ``world`` link is added.
    :param world: name of the virtual world link (when the URDF has no floating joint).

    :ivar nq, nv: sizes of q and of the step v (and of θ).  n: nv, the solver's variable count.
    :ivar body: the floating link.  joint_names: the 6 root variables then the joints.
    :ivar lower, upper, continuous, velocity_limits: (nv,) in θ order; the root is unbounded.
    """

    def __init__(self, linkage, world: str = 'world'):
        self.linkage = linkage
        self.name = linkage.name
        floating = [j for j in linkage.joints
                    if j.type == 'floating' and j.parent == linkage.link_index(linkage.root_link)]
        if floating:
            self.body = linkage.link_names[floating[0].child]
            self.world = linkage.root_link
        else:
            if world in linkage.link_names:
                raise LinkError(world, 'the virtual world link name is taken by a robot link; '
                                       'pass another world= name')
            self.body, self.world = linkage.root_link, world
        self.root_link = self.base_link = self.world
        self.link_names = ([] if floating else [self.world]) + list(linkage.link_names)
        self.joints_n = linkage.n
        self.nv = self.n = linkage.n + 6
        self.nq = linkage.n + 7
        self.joint_names = list(ROOT_VARIABLES) + list(linkage.joint_names)
        inf6 = np.full(6, np.inf)
        self.lower = np.concatenate((-inf6, linkage.lower))
        self.upper = np.concatenate((inf6, linkage.upper))
        self.soft_lower = np.concatenate((-inf6, linkage.soft_lower))
        self.soft_upper = np.concatenate((inf6, linkage.soft_upper))
        self.velocity_limits = np.concatenate((inf6, linkage.velocity_limits))
        self.continuous = np.concatenate((np.zeros(6, dtype=bool), linkage.continuous))
        self.inertials = linkage.inertials
        self._com: Optional[CenterOfMass] = None

    def __repr__(self) -> str:
        return f"FloatingBase('{self.name}', body='{self.body}', nq={self.nq}, nv={self.nv})"

    # ------------------------------------------------------------ configurations
    def neutral(self) -> Array:
        """
        Return the neutral configuration q (nq,).

        Root at the world origin, identity orientation, joints at 0 (clipped into their limits).
        """
        joints = np.clip(np.zeros(self.joints_n), self.linkage.lower, self.linkage.upper)
        return np.concatenate(((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), joints))

    def check_config(self, q: ArrayLike) -> Array:
        """Return q as a float array (nq,), quaternion normalized; InputError names a bad entry."""
        q = np.array(q, dtype=float).reshape(-1)
        if q.shape != (self.nq,):
            raise InputError(f'q: expected {self.nq} values (x, y, z, qx, qy, qz, qw, then '
                             f'{self.joints_n} joints), got {q.size}')
        bad = np.flatnonzero(~np.isfinite(q))
        if bad.size:
            raise InputError(f'q[{bad[0]}] is {q[bad[0]]}, not a finite number')
        norm = float(np.linalg.norm(q[3:7]))
        if norm < 1e-9:
            raise InputError('q: the root quaternion (q[3:7]) is zero, not a rotation')
        q[3:7] /= norm
        return q

    def from_q(self, q: ArrayLike) -> Array:
        """Solver coordinates θ (nv,) of a configuration q (nq,)."""
        q = self.check_config(q)
        return np.concatenate((q[:3], Rotation.from_quat(q[3:7]).as_rotvec(), q[7:]))

    def to_q(self, theta: ArrayLike) -> Array:
        """Return the configuration q (nq,) of solver coordinates θ (nv,)."""
        theta = self.check_q(theta)
        return np.concatenate((theta[:3], Rotation.from_rotvec(theta[3:6]).as_quat(),
                               theta[6:]))

    def root_pose(self, theta: ArrayLike) -> Array:
        """(4, 4) pose of the floating body in the world frame, from θ (nv,)."""
        T = np.eye(4)
        T[:3, :3] = Rotation.from_rotvec(theta[3:6]).as_matrix()
        T[:3, 3] = theta[:3]
        return T

    def integrate_theta(self, theta: Array, v: Array) -> Array:
        """θ ⊕ v (nv,): the root pose right-multiplied by exp(v_root), joints added."""
        T = self.root_pose(theta) @ se3_exp(v[:6])
        return np.concatenate((T[:3, 3], Rotation.from_matrix(T[:3, :3]).as_rotvec(),
                               theta[6:] + v[6:]))

    def integrate(self, q: ArrayLike, v: ArrayLike) -> Array:
        """Return q ⊕ v (nq,) for a configuration q (nq,) and a step v (nv,) (module docstring)."""
        v = np.asarray(v, dtype=float).reshape(-1)
        if v.shape != (self.nv,):
            raise InputError(f'v: expected {self.nv} values, got {v.size}')
        return self.to_q(self.integrate_theta(self.from_q(q), v))

    def difference(self, q0: ArrayLike, q1: ArrayLike) -> Array:
        """Return v (nv,) with ``integrate(q0, v) = q1``: root log(T0⁻¹ T1), joints q1 − q0."""
        t0, t1 = self.from_q(q0), self.from_q(q1)
        T = np.linalg.inv(self.root_pose(t0)) @ self.root_pose(t1)
        return np.concatenate((se3_log(T), t1[6:] - t0[6:]))

    # ------------------------------------------------------------ Linkage-like API (θ)
    def check_q(self, theta: ArrayLike) -> Array:
        """θ as a float array (nv,); InputError naming the bad variable."""
        return check_joint_vector(theta, self.joint_names, 'θ')

    def link_index(self, name: str) -> int:
        """Index of a link in :attr:`link_names`; LinkError if unknown."""
        if name == self.world:
            return 0
        self.linkage.link_index(name)
        return self.link_names.index(name)

    def joint_index(self, name: str) -> int:
        """Column of a joint in θ (the root variables first); JointError if unknown."""
        if name in ROOT_VARIABLES:
            return ROOT_VARIABLES.index(name)
        return 6 + self.linkage.joint_index(name)

    def forward_kinematics(self, theta: ArrayLike, link: str, base: Optional[str] = None
                           ) -> Array:
        """(4, 4) pose of ``link`` in ``base`` (default the world)."""
        return self.pose_and_jacobian(theta, link, base)[0]

    def jacobian(self, theta: ArrayLike, link: str, base: Optional[str] = None) -> Array:
        """(6, nv) Jacobian of ``link`` origin relative to ``base``, in base coordinates."""
        return self.pose_and_jacobian(theta, link, base)[1]

    def pose_and_jacobian(self, theta: ArrayLike, link: str, base: Optional[str] = None
                          ) -> Tuple[Array, Array]:
        """
        Return (T (4, 4), J (6, nv)): the pose of ``link`` in ``base`` and its Jacobian.

        J is taken with respect to the step v (root twist in the root frame, then joints) and
        expressed in base coordinates.

        With the world as base, for a link origin x and root pose (R, p), the root columns are
        ``[R, −[x − p]× R]`` (linear rows) and ``[0, R]`` (angular rows); the joint columns are
        the fixed-base Jacobian rotated into the world. Between two robot links the root does
        not matter: its columns are zero.
        """
        theta = self.check_q(theta)
        base = self.world if base is None else base
        if link == self.world and base == self.world:
            return np.eye(4), np.zeros((6, self.nv))
        if link == self.world:        # the world seen from a link: invert link-in-world
            T, J = self.pose_and_jacobian(theta, base)
            R = T[:3, :3]
            Tinv = np.linalg.inv(T)
            Jl = -np.vstack((R.T @ J[:3] - skew(Tinv[:3, 3]) @ (R.T @ J[3:]), R.T @ J[3:]))
            return Tinv, Jl
        J = np.zeros((6, self.nv))
        if base != self.world:
            T, J[:, 6:] = self.linkage.pose_and_jacobian(theta[6:], link, base)
            return T, J
        T_bl, J_bl = self.linkage.pose_and_jacobian(theta[6:], link, self.body)
        T_wb = self.root_pose(theta)
        R, p = T_wb[:3, :3], T_wb[:3, 3]
        T = T_wb @ T_bl
        J[:3, :3] = R
        J[:3, 3:6] = -skew(T[:3, 3] - p) @ R
        J[3:, 3:6] = R
        J[:3, 6:] = R @ J_bl[:3]
        J[3:, 6:] = R @ J_bl[3:]
        return T, J

    # ------------------------------------------------------------ centre of mass
    def com_position_and_jacobian(self, theta: ArrayLike) -> Tuple[Array, Array]:
        """
        (c (3,), J (3, nv)): whole-body CoM in the world frame and its Jacobian.

        Root columns ``[R, −[c − p]× R]``, joint columns ``R · J_c`` with J_c the CoM Jacobian
        relative to the floating body (:class:`~pdls_ik.model.com.CenterOfMass`).

        :raises URDFError: the robot has no inertials.
        """
        theta = self.check_q(theta)
        if self._com is None:
            self._com = CenterOfMass(self.linkage, subtree=self.body)
        c_b, J_b = self._com.position_and_jacobian(theta[6:], self.body)
        T = self.root_pose(theta)
        R, p = T[:3, :3], T[:3, 3]
        c = R @ c_b + p
        J = np.empty((3, self.nv))
        J[:, :3] = R
        J[:, 3:6] = -skew(c - p) @ R
        J[:, 6:] = R @ J_b
        return c, J
