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
The linkage model: kinematic tree, joint limits, forward kinematics and frame Jacobians.

Units: radians and metres; poses are (4, 4) homogeneous transforms; Jacobians are (6, n) with
linear-velocity rows first, then angular, for q in :attr:`Linkage.joint_names` order.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
import difflib
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pdls_ik.errors import InputError, JointError, LinkError
from pdls_ik.model.joint_vector import check_joint_vector
from pdls_ik.model.joints import Inertial, Joint
from pdls_ik.model.kinematics import Chain, JointMotions, tree_poses
from pdls_ik.model.urdf_rules import master_range, master_rate, position_bound, rate_limit

Array = NDArray[np.float64]
#: most link names an unknown-link message offers as closest
CLOSE_NAMES = 3


@dataclass(frozen=True)
class Limits:
    """
    Per-variable limits, each an (n,) float array in q order.

    ``lower``/``upper`` are ±inf for continuous joints and for bounds of magnitude >= 1e6
    (:func:`~pdls_ik.model.urdf_rules.position_bound`); velocity and effort limits are inf when
    absent or zero (:func:`~pdls_ik.model.urdf_rules.rate_limit`); ``soft_lower``/``soft_upper``
    come from ``<safety_controller>``, else equal the hard limits. After
    :meth:`with_followers`, a master's limits include those of its mimic followers.
    """

    lower: Array
    upper: Array
    velocity: Array
    effort: Array
    soft_lower: Array
    soft_upper: Array

    @classmethod
    def from_joints(cls, joints: Sequence) -> 'Limits':
        """Read the limits of urdf_parser_py joints (already validated by urdf_checks)."""
        n = len(joints)
        lo, hi = np.full(n, -np.inf), np.full(n, np.inf)
        vel, eff = np.full(n, np.inf), np.full(n, np.inf)
        soft_lo, soft_hi = lo.copy(), hi.copy()
        for i, joint in enumerate(joints):
            limit = joint.limit
            if limit is not None:
                if joint.type != 'continuous':
                    lo[i] = position_bound(float(limit.lower or 0.0))
                    hi[i] = position_bound(float(limit.upper or 0.0))
                vel[i] = rate_limit(limit.velocity)
                eff[i] = rate_limit(limit.effort)
            soft_lo[i], soft_hi[i] = lo[i], hi[i]
            safety = joint.safety_controller
            if safety is not None and joint.type != 'continuous':
                if safety.soft_lower_limit is not None:
                    soft_lo[i] = max(lo[i], position_bound(float(safety.soft_lower_limit)))
                if safety.soft_upper_limit is not None:
                    soft_hi[i] = min(hi[i], position_bound(float(safety.soft_upper_limit)))
        return cls(lo, hi, vel, eff, soft_lo, soft_hi)

    def with_followers(self, active: Sequence, followers: Sequence,
                       mimics: Dict[str, Tuple[str, float, float]]
                       ) -> Tuple['Limits', List[str]]:
        """
        Return (limits, notes): these limits narrowed by the mimic followers' own limits.

        A follower ``θ_f = m · q + o`` keeps ``lower_f <= θ_f <= upper_f`` and
        ``|θ̇_f| <= v_f`` when the master keeps ``q`` in the follower's range mapped back
        (:func:`~pdls_ik.model.urdf_rules.master_range`) and ``|q̇| <= v_f / |m|``; soft limits
        likewise. A follower with an empty range of its own (lower = upper, e.g. bounds
        omitted) does not constrain position. A follower whose mapped range would leave the
        master no motion (an empty or one-point intersection with a range of positive width:
        a sign error, as the PR2 gripper's ``*_r_parallel_root_joint``, multiplier -1 with
        range [0, 0.548]) constrains nothing either, and ``notes`` names it.

        :param active: the urdf_parser_py joints of these limits, in q order.
        :param followers: urdf_parser_py mimic joints; ``mimics``: follower → (master,
            multiplier, offset) resolved to an active master.
        """
        index = {j.name: i for i, j in enumerate(active)}
        own = Limits.from_joints(followers)
        lo, hi, vel, soft_lo, soft_hi = (a.copy() for a in (
            self.lower, self.upper, self.velocity, self.soft_lower, self.soft_upper))
        notes: List[str] = []
        for k, joint in enumerate(followers):
            master, mult, off = mimics[joint.name]
            i = index[master]
            vel[i] = min(vel[i], master_rate(own.velocity[k], mult))
            if not own.lower[k] < own.upper[k]:
                continue
            a, b = master_range(own.lower[k], own.upper[k], mult, off)
            if max(lo[i], a) >= min(hi[i], b):
                if lo[i] == hi[i]:
                    continue  # the master does not move anyway (an empty range of its own)
                notes.append(f"joint '{joint.name}': its range [{own.lower[k]:g}, "
                             f'{own.upper[k]:g}] through <mimic> (θ = {mult:g} · {master} '
                             f"{off:+g}) needs '{master}' in [{a:g}, {b:g}], which leaves "
                             f'nothing of its range [{lo[i]:g}, {hi[i]:g}]: the range of the '
                             'follower is ignored (a sign error in the URDF?)')
                continue
            lo[i], hi[i] = max(lo[i], a), min(hi[i], b)
            a, b = master_range(own.soft_lower[k], own.soft_upper[k], mult, off)
            soft_lo[i], soft_hi[i] = max(soft_lo[i], a), min(soft_hi[i], b)
        soft_lo = np.clip(soft_lo, lo, hi)
        soft_hi = np.clip(soft_hi, soft_lo, hi)
        return Limits(lo, hi, vel, self.effort, soft_lo, soft_hi), notes


class Linkage:
    """
    A robot's kinematic tree, built by :func:`pdls_ik.model.load_urdf`.

    :ivar name: robot name.
    :ivar joint_names: active joints, the order of q (mimic, fixed, floating, planar excluded).
    :ivar joint_types: type of each active joint ("revolute", "continuous", "prismatic").
    :ivar n: number of active joints (degrees of freedom).
    :ivar link_names: every link, in document order.
    :ivar root_link: the link without a parent joint.
    :ivar base_link: default base frame of queries (``root_link`` unless given).
    :ivar lower, upper: (n,) position limits, rad or m, ±inf for continuous joints and bounds
        of magnitude >= 1e6; a mimic master's include its followers'
        (:meth:`Limits.with_followers`).
    :ivar velocity_limits, effort_limits: (n,) rad/s or m/s, N·m or N; inf if absent or 0; a
        mimic master's velocity limit includes its followers'.
    :ivar soft_lower, soft_upper: (n,) ``<safety_controller>`` limits, else the hard limits.
    :ivar continuous: (n,) bool, True for continuous joints.
    :ivar inertials: link name → :class:`Inertial` (mass, centre-of-mass origin, inertia).
    :ivar joints: every joint of the tree (:class:`Joint`), parents before children.
    :ivar joint_defects, link_defects: name → defect of each disabled joint or link (see
        :func:`~pdls_ik.model.load_urdf`); using one raises JointError / LinkError with it.
    """

    def __init__(self, name: str, link_names: List[str], root_link: str, joints: List[Joint],
                 joint_names: List[str], joint_types: List[str], limits: Limits,
                 inertials: Dict[str, Inertial], base_link: Optional[str] = None,
                 joint_defects: Optional[Dict[str, str]] = None,
                 link_defects: Optional[Dict[str, str]] = None):
        self.name = name
        self.link_names = list(link_names)
        self._link_index = {link: i for i, link in enumerate(self.link_names)}
        self.root_link = root_link
        self.joints = list(joints)
        self._joint_by_name = {j.name: j for j in self.joints}
        self.joint_names = list(joint_names)
        self._joint_index = {joint: i for i, joint in enumerate(self.joint_names)}
        self.joint_types = list(joint_types)
        self.n = len(self.joint_names)
        self.limits = limits
        self.lower, self.upper = limits.lower, limits.upper
        self.velocity_limits, self.effort_limits = limits.velocity, limits.effort
        self.soft_lower, self.soft_upper = limits.soft_lower, limits.soft_upper
        self.continuous = np.array([t == 'continuous' for t in self.joint_types], dtype=bool)
        self.inertials = dict(inertials)
        self.joint_defects = dict(joint_defects or {})
        self.link_defects = dict(link_defects or {})
        self._parent_joint = [-1] * len(self.link_names)
        for k, joint in enumerate(self.joints):
            self._parent_joint[joint.child] = k
        self._tree = JointMotions(self.joints, np.array([j.origin for j in self.joints])
                                  .reshape(-1, 4, 4), self.n)
        self._chains: Dict[Tuple[int, int], Chain] = {}
        self.base_link = root_link
        if base_link is not None:
            self.link_index(base_link)
            self.base_link = base_link

    def __repr__(self) -> str:
        return (f"Linkage('{self.name}', n={self.n}, links={len(self.link_names)}, "
                f"root='{self.root_link}', base='{self.base_link}')")

    def with_velocity_limits(self, velocity: ArrayLike) -> 'Linkage':
        """
        Return a copy of the model whose velocity limits (n,) [rad/s, m/s] are ``velocity``.

        The tree, chains and every other limit are shared with this model; e.g. the model with
        the default bounds of joints its URDF leaves without one
        (:func:`pdls_ik.trajectory.velocity_bounds`).

        :raises InputError: not n positive numbers.
        """
        v = np.array(velocity, dtype=float).reshape(-1)
        if v.shape != (self.n,) or not np.all(v > 0.0):
            raise InputError(f'velocity limits: expected {self.n} numbers > 0, got {v}')
        other = copy.copy(self)
        other.limits = dataclasses.replace(self.limits, velocity=v)
        other.velocity_limits = v
        return other

    # ----------------------------------------------------------------- lookups
    def joint_index(self, name: str) -> int:
        """Column of q for active joint ``name``; JointError if unknown or not a variable."""
        try:
            return self._joint_index[name]
        except KeyError:
            self.check_joint_usable(name)
            if name in self._joint_by_name:
                joint = self._joint_by_name[name]
                why = (f"mimics '{joint.mimic}'" if joint.mimic else f'is {joint.type}')
                raise JointError(name, f'is not a variable of q: it {why}') from None
            raise JointError(name, f"unknown joint (robot '{self.name}' has "
                                   f'{len(self._joint_by_name)} joints)') from None

    def check_joint_usable(self, name: str) -> None:
        """
        Raise the recorded defect of joint ``name`` (JointError naming it), if it has one.

        Chains, tasks and trajectories call this (through :meth:`chain` and
        :meth:`joint_index`) for every joint they use.
        """
        if name in self.joint_defects:
            raise JointError(name, f'{self.joint_defects[name]} (the joint was disabled when '
                                   'the URDF was loaded; fix the description to use it)')

    def check_link_usable(self, name: str) -> None:
        """Raise the recorded defect of link ``name`` (LinkError naming it), if it has one."""
        if name in self.link_defects:
            raise LinkError(name, f'{self.link_defects[name]} (its <inertial> was ignored '
                                  'when the URDF was loaded; fix the description)')

    def link_index(self, name: str) -> int:
        """
        Index of link ``name`` in :attr:`link_names`.

        :raises LinkError: unknown link; the message names the closest link names and the tips
            of the tree (:meth:`link_candidates`).
        """
        try:
            return self._link_index[name]
        except (KeyError, TypeError):
            raise LinkError(str(name), f"unknown link (not found in robot '{self.name}'; "
                                       f'{self.link_candidates(str(name))})') from None

    @property
    def leaf_links(self) -> List[str]:
        """Return the links without a child joint (the tips of the tree), in URDF order."""
        parents = {joint.parent for joint in self.joints}
        return [name for i, name in enumerate(self.link_names) if i not in parents]

    def closest_links(self, name: str) -> List[str]:
        """
        Return the :data:`CLOSE_NAMES` link names most similar to ``name``, most similar first.

        Similarity: the :class:`difflib.SequenceMatcher` ratio (:func:`difflib.get_close_matches`
        without a cutoff), so there is always a candidate.
        """
        return difflib.get_close_matches(str(name), self.link_names, n=CLOSE_NAMES, cutoff=0.0)

    def link_candidates(self, name: str) -> str:
        """
        Say which links ``name`` may have meant: the closest names, then the tips of the tree.

        E.g. "closest names: tool0, world, wrist_3_link; the tips of its tree: ee_link, base,
        tool0" (:meth:`closest_links`, :attr:`leaf_links`).
        """
        return (f"closest names: {', '.join(self.closest_links(name))}; the tips of its tree: "
                f"{', '.join(self.leaf_links)}")

    def joint(self, name: str) -> Joint:
        """Return the :class:`Joint` record of any joint, fixed, mimic and floating included."""
        try:
            return self._joint_by_name[name]
        except KeyError:
            raise JointError(name, f"unknown joint in robot '{self.name}'") from None

    def mimic_values(self, q: ArrayLike) -> Dict[str, float]:
        """Values of the mimic joints, θ = multiplier · q[master] + offset (rad or m)."""
        q = self.check_q(q)
        return {j.name: j.multiplier * q[j.index] + j.offset for j in self.joints if j.mimic}

    def check_q(self, q: ArrayLike) -> Array:
        """
        Return q as an (n,) float array.

        :raises InputError: wrong length (naming the joints) or a NaN/inf (naming the joint).
        """
        return check_joint_vector(q, self.joint_names, 'q')

    def _q_ext(self, q: ArrayLike) -> Array:
        arr = self.check_q(q)
        q_ext = np.empty(self.n + 1)
        q_ext[:self.n] = arr
        q_ext[self.n] = 0.0
        return q_ext

    def chain(self, link: str, base: Optional[str] = None) -> Chain:
        """
        Return the cached :class:`Chain` from ``base`` (default: the base link) to ``link``.

        :raises LinkError: unknown link.  JointError: a disabled joint (:attr:`joint_defects`)
            on the path, naming it and its defect.
        """
        key = (self.link_index(self.base_link if base is None else base), self.link_index(link))
        chain = self._chains.get(key)
        if chain is None:
            chain = Chain(self.joints, self._parent_joint, key[0], key[1], self.n)
            for j in chain.path_joints:
                self.check_joint_usable(self.joints[j].name)
            self._chains[key] = chain
        return chain

    def reach(self, link: str, base: Optional[str] = None) -> float:
        """
        Return an upper bound [m] on the distance between the origins of ``base`` and ``link``.

        Over all q within the limits: the sum of the origin offsets of the joints on the path
        (a rotation keeps lengths, so the triangle inequality bounds the distance by that sum),
        plus each prismatic joint's largest travel; inf when a prismatic joint is unbounded.

        :raises LinkError: unknown link.
        """
        bound = 0.0
        for j in self.chain(link, base).path_joints:
            joint = self.joints[j]
            bound += float(np.linalg.norm(joint.origin[:3, 3]))
            if joint.moving and joint.type == 'prismatic':
                travel = max(abs(self.lower[joint.index]), abs(self.upper[joint.index]))
                bound += abs(joint.multiplier) * travel + abs(joint.offset)
        return bound

    # --------------------------------------------------------------- kinematics
    def forward_kinematics(self, q: ArrayLike, link: str, base: Optional[str] = None) -> Array:
        """
        (4, 4) pose of ``link`` in the frame of ``base`` (default :attr:`base_link`), metres.

        :raises InputError: bad q.  LinkError: unknown link.
        """
        return self.chain(link, base).pose(self.check_q(q))

    def forward_kinematics_all(self, q: ArrayLike) -> Dict[str, Array]:
        """
        (4, 4) pose of every link in the root-link frame, computed in one pass over the tree.

        Floating and planar joints and disabled joints (:attr:`joint_defects`) are held at their
        origin; the links below a joint whose ``<origin>`` is the defect get NaN poses.
        """
        poses = tree_poses(self.joints, self._tree, len(self.link_names),
                           self._link_index[self.root_link], self._q_ext(q))
        return dict(zip(self.link_names, poses))

    def jacobian(self, q: ArrayLike, link: str, base: Optional[str] = None,
                 local: bool = False) -> Array:
        """
        (6, n) analytic frame Jacobian of the origin of ``link`` relative to ``base``.

        Rows 0-2: linear velocity of the link origin (m/s per unit q̇), rows 3-5: angular
        velocity (rad/s per unit q̇), both relative to ``base`` and expressed in the base frame,
        or in the link's own frame if ``local``. ``base`` and ``link`` may be any two links
        (the path may go up the tree, then down another branch); columns of joints off the
        path are zero, mimic joints add into their master's column. See
        :mod:`pdls_ik.model.kinematics` for the formula.

        :raises InputError: bad q.  LinkError: unknown link.
        :raises JointError: the path crosses a floating or planar joint.
        """
        T, J = self.chain(link, base).pose_and_jacobian(self.check_q(q))
        if local:
            R = T[:3, :3]
            J = np.vstack((R.T @ J[:3], R.T @ J[3:]))
        return J

    def pose_and_jacobian(self, q: ArrayLike, link: str, base: Optional[str] = None
                          ) -> Tuple[Array, Array]:
        """
        (T (4, 4), J (6, n)): :meth:`forward_kinematics` and :meth:`jacobian` in one pass.

        The chain between ``base`` and ``link`` is precomputed once and cached, so this is the
        call to make in solver iterations.
        """
        return self.chain(link, base).pose_and_jacobian(self.check_q(q))
