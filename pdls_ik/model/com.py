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
Centre of mass (CoM) of a linkage and its Jacobian, from the URDF ``<inertial>`` elements.

Position (root frame), with link masses m_i and link CoM positions c_i(q)::

    c(q) = (1 / M) Σ_i m_i c_i(q),        M = Σ_i m_i

Jacobian (3, n), after Baerlocher & Boulic (2000), "Kinematic control of the mass properties of
redundant articulated bodies", IEEE ICRA: a joint moves the whole subtree it carries, so each
joint column is that of one *augmented body*, the subtree mass M_j at the subtree CoM s_j::

    revolute  j:  J_c[:, j] = (M_j / M) · a_j × (s_j − p_j)
    prismatic j:  J_c[:, j] = (M_j / M) · a_j

with a_j the unit joint axis and p_j a point on it (root frame); mimic joints add μ times their
column into their master's. Subtree masses and moments come from one backward pass over the tree,
so the cost is one forward-kinematics pass plus O(links).

Units: kg, metres; Jacobian columns in m/rad or m/m. Floating and planar joints are held at their
origin (see :mod:`pdls_ik.model.floating` for a free-flying root).
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pdls_ik.errors import URDFError

Array = NDArray[np.float64]


class CenterOfMass:
    """
    Precomputed mass distribution of a :class:`~pdls_ik.model.Linkage`.

    :param linkage: the robot model; links without ``<inertial>`` (or with mass 0) weigh nothing.
    :param subtree: count only this link and its descendants (e.g. the body carried by a floating
        joint, leaving out the world link); default every link.

    :ivar total_mass: M [kg].
    :ivar masses: (L,) link masses in ``linkage.link_names`` order [kg].

    :raises URDFError: no link has a positive mass (the robot has no inertials), naming the robot.
    :raises LinkError, JointError: a counted link or joint was disabled at load (a bad
        ``<inertial>``, a joint defect), naming it.
    """

    def __init__(self, linkage, subtree: Optional[str] = None):
        self.linkage = linkage
        n_links = len(linkage.link_names)
        self.masses = np.zeros(n_links)
        self._offsets = np.zeros((n_links, 3))   # CoM of each link in its own frame [m]
        for name, inertial in linkage.inertials.items():
            if inertial is not None and inertial.mass > 0.0:
                i = linkage.link_index(name)
                self.masses[i] = inertial.mass
                self._offsets[i] = inertial.origin[:3, 3]
        keep = np.ones(n_links, dtype=bool)
        if subtree is not None:
            keep[:] = False
            keep[linkage.link_index(subtree)] = True
            for joint in linkage.joints:                 # parents before children
                keep[joint.child] |= keep[joint.parent]
            self.masses[~keep] = 0.0
        for name in getattr(linkage, 'link_defects', {}):  # disabled at load: named here
            if keep[linkage.link_index(name)]:
                linkage.check_link_usable(name)
        for joint in linkage.joints:
            if joint.defect and keep[joint.child]:
                linkage.check_joint_usable(joint.name)
        self.total_mass = float(self.masses.sum())
        if not self.total_mass > 0.0:
            raise URDFError(f"robot '{linkage.name}': no link has an <inertial> with a positive "
                            'mass, so its centre of mass is undefined (add <inertial> elements)')
        self._moving = [j for j in linkage.joints if j.moving]

    def _link_coms(self, poses) -> Array:
        """(L, 3) link CoM positions in the root frame."""
        names = self.linkage.link_names
        T = np.array([poses[name] for name in names])
        return np.einsum('lij,lj->li', T[:, :3, :3], self._offsets) + T[:, :3, 3]

    def position(self, q: ArrayLike, base: Optional[str] = None) -> Array:
        """Return the CoM (3,) [m] in the frame of ``base`` (default the linkage's base link)."""
        return self.position_and_jacobian(q, base, jacobian=False)[0]

    def jacobian(self, q: ArrayLike, base: Optional[str] = None) -> Array:
        """Return the CoM Jacobian (3, n) [m/rad, m/m] relative to ``base``, in its coordinates."""
        return self.position_and_jacobian(q, base)[1]

    def position_and_jacobian(self, q: ArrayLike, base: Optional[str] = None,
                              jacobian: bool = True) -> Tuple[Array, Optional[Array]]:
        """
        (c (3,), J (3, n)): CoM position and Jacobian relative to ``base``, base coordinates.

        For a base other than the root, the CoM velocity is taken relative to the base frame:
        ``ċ_b = R_rbᵀ (ċ_r − v_b − ω_b × (c_r − p_b))`` with the base's own twist (v_b, ω_b).

        :raises InputError: bad q.  LinkError: unknown base link.
        """
        link = self.linkage
        q = link.check_q(q)
        base = link.base_link if base is None else base
        link.link_index(base)
        poses = link.forward_kinematics_all(q)
        coms = self._link_coms(poses)
        c = self.masses @ coms / self.total_mass
        J = None
        if jacobian:
            J = self._root_jacobian(poses, coms)
        if base == link.root_link:
            return c, J
        T_rb = poses[base]
        R, p = T_rb[:3, :3], T_rb[:3, 3]
        if J is not None and link.chain(base, link.root_link).names:
            Jb = link.jacobian(q, base, link.root_link)       # base twist in root coordinates
            d = c - p
            J = R.T @ (J - Jb[:3] + np.cross(d, Jb[3:].T).T)
        return R.T @ (c - p), J

    def _root_jacobian(self, poses, coms: Array) -> Array:
        """(3, n) CoM Jacobian in the root frame, by augmented bodies (module docstring)."""
        link = self.linkage
        mass = self.masses.copy()
        moment = self.masses[:, None] * coms            # Σ m_i c_i over each subtree
        for joint in reversed(link.joints):              # children before parents
            mass[joint.parent] += mass[joint.child]
            moment[joint.parent] += moment[joint.child]
        J = np.zeros((3, link.n))
        names = link.link_names
        for joint in self._moving:
            child = joint.child
            if mass[child] == 0.0:
                continue
            T = poses[names[child]]
            axis = T[:3, :3] @ joint.axis
            if joint.revolute:
                col = np.cross(axis, moment[child] - mass[child] * T[:3, 3])
            else:
                col = axis * mass[child]
            J[:, joint.index] += (joint.multiplier / self.total_mass) * col
        return J


def center_of_mass(linkage, q: ArrayLike, base: Optional[str] = None) -> Array:
    """
    Return the CoM (3,) [m] of ``linkage`` at q (n,), in the frame of ``base``.

    Convenience wrapper of :class:`CenterOfMass` (which caches the mass data; prefer it in loops).
    Raises URDFError when the robot has no inertials.
    """
    return CenterOfMass(linkage).position(q, base)


def com_jacobian(linkage, q: ArrayLike, base: Optional[str] = None) -> Array:
    """
    Return the CoM Jacobian (3, n) of ``linkage`` at q (n,), relative to ``base``.

    Baerlocher & Boulic 2000; see :class:`CenterOfMass`.
    """
    return CenterOfMass(linkage).jacobian(q, base)
