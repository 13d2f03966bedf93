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
Self-collision model: capsules on the links, the link pairs to check, distances and gradients.

The shapes are capsules (sphere-swept segments, :mod:`pdls_ik.model.collision_geometry`), built
from the URDF's ``<collision>`` elements or loaded from a YAML file (:meth:`CollisionModel.save`,
:meth:`CollisionModel.load`: readable and editable, as cuRobo's robot configurations are).

**Pairs.** Every pair of links with geometry, except (each exclusion is kept with its reason in
:attr:`CollisionModel.skipped`):

- ``adjacent``: the tree path between the two links crosses at most one moving joint (links
  welded by fixed joints count as one body: the distance cannot change);
- ``srdf``: MoveIt SRDF ``<disable_collisions link1 link2>`` entries (:func:`read_disabled_pairs`);
- ``explicit``: pairs given by the caller;
- ``neutral``: pairs in contact (distance ≤ 0) at the neutral configuration (the middle of the
  limits unless given), which the rows could never separate; reported by
  :meth:`CollisionModel.report`.

**Distance.** For capsules (segments s₁, s₂ with radii r₁, r₂): d = ‖c₁ − c₂‖ − r₁ − r₂ with
c₁, c₂ the closest points of the two segments (Ericson 2005, *Real-Time Collision Detection*,
§5.1.9); a link pair's distance is the smallest over its capsule pairs. With the unit normal
n = (c₁ − c₂) / ‖c₁ − c₂‖ and the witness points on the surfaces w₁ = c₁ − r₁ n,
w₂ = c₂ + r₂ n, the gradient (1, n) is

    ∂d/∂q = nᵀ (J_p(link₁, c₁) − J_p(link₂, c₂)),   J_p(link, c) = J_v − [c − o]ₓ J_ω

with J_v, J_ω the frame Jacobian rows of the link (origin o) in the root frame: the closest
points are stationary, so their sliding along the segments does not enter (first order). The
columns are those of the moving joints above each link, a revolute joint with world axis z at p
giving n · (z × (c − p)), a prismatic one n · z (mimic joints add into their master's column
times the multiplier), for all pairs at once. Where the segments intersect (n undefined) n is
taken between the capsules' centres.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
import math
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union
import xml.etree.ElementTree as ElementTree

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import ConfigError, LinkError
from pdls_ik.model.collision_geometry import Capsule, capsules_from_urdf, CollisionWarning
from pdls_ik.model.srdf import parse_srdf, SRDFError
from pdls_ik.model.urdf_loader import _parse_with_urdf_parser_py
from pdls_ik.model.urdf_source import parse_xml, read_source
from pdls_ik.resources import BUNDLED_ROBOTS, bundled_urdf, config_file

Array = NDArray[np.float64]
Pair = Tuple[str, str]

__all__ = ['Capsule', 'CollisionModel', 'CollisionWarning', 'PairDistances',
           'collision_model', 'read_disabled_pairs', 'segment_closest_points']
#: bundled robot → its bundled collision model in config/ (benchmarks/fit_panda_collision.py)
BUNDLED_MODELS = {'panda': 'panda_collision.yaml'}


def _read_srdf(srdf: Union[str, Path]):
    """Return the parsed SRDF file (:func:`pdls_ik.model.srdf.parse_srdf`)."""
    try:
        text = Path(srdf).read_text()
    except OSError as err:
        raise ConfigError(f"SRDF '{srdf}': cannot read it ({err.strerror})") from None
    try:
        return parse_srdf(text)
    except SRDFError as err:
        raise ConfigError(f"SRDF '{srdf}': {err}") from None


def read_disabled_pairs(srdf: Union[str, Path]) -> List[Tuple[str, str, str]]:
    """
    Return the ``(link1, link2, reason)`` of every ``<disable_collisions>`` of an SRDF file.

    Read by :func:`pdls_ik.model.srdf.load_srdf` (MoveIt's SRDF).

    :raises ConfigError: the file cannot be read or parsed (the SRDF error, naming the line).
    """
    return [(c.link1, c.link2, c.reason) for c in _read_srdf(srdf).disabled_collisions]


def neutral_configurations(linkage, srdf=None) -> Array:
    """
    Return the (k, n) configurations at which link pairs in contact are not checked.

    The middle of the limits (0 for unbounded joints), then each ``group_state`` of a parsed
    SRDF (:class:`~pdls_ik.model.srdf.SRDF`) put over it: the robot's own named poses (a
    humanoid's "half_sitting") are collision-free, so a pair whose capsules touch there is an
    artefact of the capsule fit, as MoveIt's setup assistant disables pairs "in collision by
    default". A state that cannot be applied (a value out of limits) is left out.
    """
    lo, hi = np.asarray(linkage.lower, float), np.asarray(linkage.upper, float)
    bounded = np.isfinite(lo) & np.isfinite(hi)
    middle = np.where(bounded, 0.5 * (np.where(bounded, lo, 0.0) + np.where(bounded, hi, 0.0)),
                      np.clip(0.0, lo, hi))
    rows = [middle]
    for state in (srdf.group_states.values() if srdf is not None else ()):
        try:
            rows.append(srdf.state_positions(linkage, state, middle)[0])
        except SRDFError:
            continue
    return np.array(rows)


def segment_closest_points(p1: Array, q1: Array, p2: Array, q2: Array
                           ) -> Tuple[Array, Array]:
    """
    Closest points (c1 (k, 3), c2 (k, 3)) of k segment pairs [p1, q1], [p2, q2] (each (k, 3)).

    Ericson 2005, §5.1.9 (clamped parameters s, t ∈ [0, 1]), vectorized; degenerate segments
    (points) are handled.
    """
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = np.einsum('ij,ij->i', d1, d1)
    e = np.einsum('ij,ij->i', d2, d2)
    f = np.einsum('ij,ij->i', d2, r)
    c = np.einsum('ij,ij->i', d1, r)
    b = np.einsum('ij,ij->i', d1, d2)
    eps = 1e-30
    a_ok, e_ok = a > eps, e > eps
    a_s, e_s = np.where(a_ok, a, 1.0), np.where(e_ok, e, 1.0)
    denom = a * e - b * b
    general = a_ok & e_ok
    s = np.where(general & (denom > 1e-14 * np.maximum(a * e, eps)),
                 np.clip((b * f - c * e) / np.where(denom > 0, denom, 1.0), 0.0, 1.0), 0.0)
    t = np.where(general, (b * s + f) / e_s, 0.0)
    low, high = general & (t < 0.0), general & (t > 1.0)
    t = np.where(low, 0.0, np.where(high, 1.0, t))
    s = np.where(low, np.clip(-c / a_s, 0.0, 1.0), s)
    s = np.where(high, np.clip((b - c) / a_s, 0.0, 1.0), s)
    # one segment degenerate (a point)
    only1 = a_ok & ~e_ok
    s = np.where(only1, np.clip(-c / a_s, 0.0, 1.0), s)
    t = np.where(only1, 0.0, t)
    only2 = ~a_ok & e_ok
    s = np.where(only2, 0.0, s)
    t = np.where(only2, np.clip(f / e_s, 0.0, 1.0), t)
    s = np.where(~a_ok & ~e_ok, 0.0, s)
    t = np.where(~a_ok & ~e_ok, 0.0, t)
    return p1 + s[:, None] * d1, p2 + t[:, None] * d2


def _cross(a: Array, b: Array) -> Array:
    """Cross product along the last axis, broadcast (np.cross is slow on small arrays)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=-1)


@dataclass
class PairDistances:
    """
    Distances of the checked link pairs at one configuration (root frame, metres).

    :ivar distance: (P,) signed distance of each pair (negative: penetration depth).
    :ivar witness_a, witness_b: (P, 3) closest surface points on the pair's first/second link.
    :ivar normal: (P, 3) unit vector from the second link's witness towards the first's.
    :ivar capsules: (P, 2) indices into :attr:`CollisionModel.capsules` of the closest capsules.
    """

    distance: Array
    witness_a: Array
    witness_b: Array
    normal: Array
    capsules: NDArray[np.int64]


class CollisionModel:
    """
    Capsules on the links of a linkage and the link pairs that are checked (module docstring).

    :param linkage: the robot (:class:`~pdls_ik.model.Linkage`).
    :param capsules: the shapes (:class:`Capsule`, link frames).
    :param skip_pairs: link pairs never checked (any order); a third item is kept as the reason.
    :param srdf: an SRDF file whose ``disable_collisions`` pairs are skipped.
    :param neutral: (n,) or (k, n) configurations whose pairs in contact are skipped; default
        :func:`neutral_configurations` (the middle of the limits, and the SRDF's group states);
        ``False``: no neutral check.

    :ivar pairs: the checked (link_a, link_b), in the order of :attr:`PairDistances.distance`.
    :ivar skipped: (link_a, link_b) → reason (adjacent, srdf, explicit, neutral, not moved:
        :meth:`moved_by`).
    :ivar neutral_contacts: (link_a, link_b, distance) of the pairs skipped at neutral.

    :raises LinkError: a capsule or a pair naming an unknown link.  ConfigError: bad SRDF.
    """

    def __init__(self, linkage, capsules: Sequence[Capsule], skip_pairs=(),
                 srdf: Optional[Union[str, Path]] = None, neutral=None):
        self.linkage = linkage
        self.capsules = list(capsules)
        for cap in self.capsules:
            linkage.link_index(cap.link)
        self.links = list(dict.fromkeys(c.link for c in self.capsules))
        order = {link: linkage.link_index(link) for link in self.links}
        self.skipped: Dict[Pair, str] = {}
        explicit = [(tuple(p[:2]), p[2] if len(p) > 2 and p[2] else 'explicit')
                    for p in skip_pairs]
        parsed = _read_srdf(srdf) if srdf is not None else None
        if parsed is not None:
            explicit += [((c.link1, c.link2), 'srdf') for c in parsed.disabled_collisions]
        wanted = {}
        for (a, b), reason in explicit:
            if a in order and b in order:    # SRDF pairs may name links without geometry
                wanted[frozenset((a, b))] = reason
            elif a not in linkage.link_names or b not in linkage.link_names:
                bad = a if a not in linkage.link_names else b
                if reason != 'srdf':
                    raise LinkError(bad, f'skip pair ({a}, {b}): unknown link')
        pairs = []
        for i, a in enumerate(self.links):
            for b in self.links[i + 1:]:
                key = (a, b) if order[a] < order[b] else (b, a)
                chain = linkage.chain(key[1], key[0])
                moving = sum(1 for j in chain.path_joints if linkage.joints[j].moving)
                if moving <= 1:
                    self.skipped[key] = 'adjacent'
                elif frozenset(key) in wanted:
                    self.skipped[key] = wanted[frozenset(key)]
                else:
                    pairs.append(key)
        self._set_pairs(pairs)
        self.neutral_contacts: List[Tuple[str, str, float]] = []
        if neutral is not False and self.pairs:
            configurations = neutral_configurations(linkage, parsed) if neutral is None else \
                np.atleast_2d(np.asarray(neutral, dtype=float))
            dist = np.min([self.distances(q).distance for q in configurations], axis=0)
            keep = []
            for pair, d in zip(self.pairs, dist):
                if d <= 0.0:
                    self.skipped[pair] = 'neutral'
                    self.neutral_contacts.append((pair[0], pair[1], float(d)))
                else:
                    keep.append(pair)
            self._set_pairs(keep)

    def _set_pairs(self, pairs: Sequence[Pair]) -> None:
        self.pairs = list(pairs)
        by_link: Dict[str, List[int]] = {}
        for k, cap in enumerate(self.capsules):
            by_link.setdefault(cap.link, []).append(k)
        ia, ib, owner = [], [], []
        for p, (a, b) in enumerate(self.pairs):
            for i in by_link[a]:
                for j in by_link[b]:
                    ia.append(i)
                    ib.append(j)
                    owner.append(p)
        self._ia, self._ib = np.array(ia, dtype=np.int64), np.array(ib, dtype=np.int64)
        self._owner = np.array(owner, dtype=np.int64)
        self._starts = np.flatnonzero(np.r_[True, np.diff(self._owner) != 0]) if owner else \
            np.zeros(0, dtype=np.int64)
        self._cap_link = np.array([self.links.index(c.link) for c in self.capsules],
                                  dtype=np.int64)
        self._a = np.array([c.a for c in self.capsules], dtype=float).reshape(-1, 3)
        self._b = np.array([c.b for c in self.capsules], dtype=float).reshape(-1, 3)
        self._r = np.array([c.radius for c in self.capsules], dtype=float)
        # moving joints above the links with geometry: child frame, axis, column of q
        joints = self.linkage.joints
        above = [j for j, joint in enumerate(joints) if joint.moving]
        names = self.linkage.link_names
        self._joint_child = [names[joints[j].child] for j in above]
        self._joint_axis = np.array([joints[j].axis for j in above], dtype=float).reshape(-1, 3)
        self._joint_revolute = np.array([joints[j].revolute for j in above], dtype=bool)
        self._joint_columns = np.zeros((len(above), self.linkage.n))
        for k, j in enumerate(above):
            self._joint_columns[k, joints[j].index] = joints[j].multiplier
        root = self.linkage.link_index(self.linkage.root_link)
        self._ancestors = np.zeros((len(self.links), len(above)))
        for i, link in enumerate(self.links):
            path = set(self.linkage.chain(link, names[root]).path_joints)
            self._ancestors[i] = [j in path for j in above]
        self._pair_links = np.array([(self.links.index(a), self.links.index(b))
                                     for a, b in self.pairs], dtype=np.int64).reshape(-1, 2)

    def links_moved_by(self, free) -> NDArray[np.bool_]:
        """
        Return the (L,) mask of :attr:`links` that some variable of ``free`` moves.

        :param free: (n,) bool mask of the joint variables a solve may change.
        """
        joint_free = np.abs(self._joint_columns) @ np.asarray(free, dtype=float) > 0.0
        return (self._ancestors @ joint_free.astype(float)) > 0.0

    def moved_by(self, free) -> 'CollisionModel':
        """
        Return this model restricted to the pairs whose distance ``free`` can change.

        A pair is kept when a joint on the tree path between its two links has its variable in
        ``free``; the others keep a constant distance during the solve (an arm's solve never
        moves the legs: a pair of the legs cannot be helped by it, and is not the solve's
        business). They are listed in :attr:`skipped` as "not moved". ``self`` when every pair
        is kept.

        :param free: (n,) bool mask of the joint variables a solve may change.
        """
        joint_free = np.abs(self._joint_columns) @ np.asarray(free, dtype=float) > 0.0
        on_path = self._ancestors[self._pair_links[:, 0]] != \
            self._ancestors[self._pair_links[:, 1]]                  # (P, moving joints)
        keep = (on_path & joint_free).any(axis=1) if on_path.size else \
            np.zeros(len(self.pairs), dtype=bool)
        if keep.all():
            return self
        restricted = copy.copy(self)
        restricted.skipped = dict(self.skipped)
        for pair, kept in zip(self.pairs, keep):
            if not kept:
                restricted.skipped[pair] = 'not moved'
        restricted._set_pairs([p for p, kept in zip(self.pairs, keep) if kept])
        return restricted

    # ------------------------------------------------------------------ queries
    def _poses(self, q) -> Array:
        """(L, 4, 4) poses of the links with geometry in the root frame."""
        poses = self.linkage.forward_kinematics_all(q)
        return np.array([poses[link] for link in self.links])

    def _evaluate(self, T: Array) -> PairDistances:
        R, p = T[self._cap_link, :3, :3], T[self._cap_link, :3, 3]
        A = np.einsum('kij,kj->ki', R, self._a) + p
        B = np.einsum('kij,kj->ki', R, self._b) + p
        ia, ib = self._ia, self._ib
        c1, c2 = segment_closest_points(A[ia], B[ia], A[ib], B[ib])
        diff = c1 - c2
        length = np.linalg.norm(diff, axis=1)
        flat = length < 1e-12
        if flat.any():     # intersecting segments: normal between the capsule centres
            diff[flat] = 0.5 * (A[ia] + B[ia] - A[ib] - B[ib])[flat]
            zero = np.linalg.norm(diff, axis=1) < 1e-12
            diff[zero & flat] = (0.0, 0.0, 1.0)
        normal = diff / np.linalg.norm(diff, axis=1)[:, None]
        d = length - self._r[ia] - self._r[ib]
        order = np.lexsort((d, self._owner))
        best = order[self._starts]
        return PairDistances(d[best], c1[best] - self._r[ia[best], None] * normal[best],
                             c2[best] + self._r[ib[best], None] * normal[best], normal[best],
                             np.column_stack((ia[best], ib[best])))

    def distances(self, q) -> PairDistances:
        """Return the :class:`PairDistances` of every checked pair at q (n,)."""
        if not self.pairs:
            z = np.zeros((0, 3))
            return PairDistances(np.zeros(0), z, z, z, np.zeros((0, 2), dtype=np.int64))
        return self._evaluate(self._poses(q))

    def distances_and_gradient(self, q, cutoff: float = np.inf
                               ) -> Tuple[PairDistances, Array]:
        """
        (:class:`PairDistances`, G (P, n)) at q (n,): G[k] = ∂d_k/∂q (module docstring).

        Rows of pairs whose distance is ≥ ``cutoff`` [m] are zero (not computed).
        """
        n = self.linkage.n
        if not self.pairs:
            return self.distances(q), np.zeros((0, n))
        poses = self.linkage.forward_kinematics_all(q)
        res = self._evaluate(np.array([poses[link] for link in self.links]))
        G = np.zeros((len(self.pairs), n))
        near = np.flatnonzero(res.distance < cutoff)
        if near.size == 0 or not self._joint_child:
            return res, G
        frames = np.array([poses[name] for name in self._joint_child])
        axes = np.einsum('kij,kj->ki', frames[:, :3, :3], self._joint_axis)      # (K, 3)
        origins = frames[:, :3, 3]
        nrm = res.normal[near]                                                  # (P', 3)
        rate = np.zeros((near.size, len(self._joint_child)))
        n_cross_z = _cross(nrm[:, None, :], axes[None, :, :])      # n · (z × r) = r · (n × z)
        for side, witness, sign in ((0, res.witness_a, 1.0), (1, res.witness_b, -1.0)):
            r = witness[near][:, None, :] - origins[None, :, :]                  # (P', K, 3)
            # revolute: n · (z × r); prismatic: n · z
            moved = np.where(self._joint_revolute[None, :],
                             np.einsum('pkj,pkj->pk', r, n_cross_z), nrm @ axes.T)
            rate += sign * moved * self._ancestors[self._pair_links[near, side]]
        G[near] = rate @ self._joint_columns
        return res, G

    def report(self) -> List[str]:
        """Readable lines: counts of shapes and pairs, and each pair skipped at neutral."""
        reasons: Dict[str, int] = {}
        for why in self.skipped.values():
            reasons[why] = reasons.get(why, 0) + 1
        lines = [f'collision model: {len(self.capsules)} capsules on {len(self.links)} links, '
                 f'{len(self.pairs)} pairs checked, skipped: ' +
                 (', '.join(f'{v} {k}' for k, v in sorted(reasons.items())) or 'none')]
        lines += [f'  {a} / {b}: in contact at the neutral configuration (distance {d:.4f} m), '
                  'not checked' for a, b, d in self.neutral_contacts]
        return lines

    # ------------------------------------------------------------- construction
    @classmethod
    def from_urdf(cls, linkage, source=None, mesh_path: Sequence[str] = (),
                  capsules_per_mesh: int = 3, **pair_options) -> 'CollisionModel':
        """
        Build the model from the ``<collision>`` elements of a URDF.

        :param source: URDF path or XML text; default the text ``linkage`` was loaded from.
        :param mesh_path: folders searched for meshes (:func:`resolve_mesh`).
        :param capsules_per_mesh: capsules fitted to each mesh (trimesh).
        :param pair_options: ``skip_pairs``, ``srdf``, ``neutral`` (see the class).

        :raises ConfigError: no URDF text known, or no link has collision geometry.
        :warns CollisionWarning: meshes that cannot be used (those links are left out).
        """
        if source is None:
            source = getattr(linkage, 'urdf_text', None)
            if source is None:
                raise ConfigError('collision model: the linkage does not keep its URDF; give '
                                  'the URDF source or a collision model YAML')
            data, label = read_source(source)
            path = getattr(linkage, 'urdf_path', None)
            urdf_dir = None if path is None else path.parent
        else:
            data, label = read_source(source)
            urdf_dir = Path(source).parent if label.startswith('URDF file') else None
        robot = _parse_with_urdf_parser_py(_collision_copy(parse_xml(data, label)), label)
        capsules, _ = capsules_from_urdf(robot, urdf_dir, mesh_path, capsules_per_mesh)
        if not capsules:
            raise ConfigError(f"collision model: robot '{linkage.name}' has no usable "
                              '<collision> geometry; give a collision model YAML')
        return cls(linkage, capsules, **pair_options)

    def save(self, path: Union[str, Path]) -> None:
        """Write the capsules and the non-adjacent skipped pairs as YAML (:meth:`load`)."""
        import yaml
        links: Dict[str, list] = {}
        for cap in self.capsules:
            # rounded up (and by the rounding of the points): the saved shape still contains it
            entry = {'radius': math.ceil((float(cap.radius) + 1e-6) * 1e6) / 1e6}
            if cap.is_sphere:
                entry['center'] = [round(float(v), 6) for v in cap.a]
            else:
                entry['a'] = [round(float(v), 6) for v in cap.a]
                entry['b'] = [round(float(v), 6) for v in cap.b]
            if cap.source:
                entry['source'] = cap.source
            links.setdefault(cap.link, []).append(entry)
        skip = [[a, b, why] for (a, b), why in self.skipped.items() if why != 'adjacent']
        data = {'robot': self.linkage.name, 'capsules': links, 'skip_pairs': skip}
        header = ('# pdls_ik collision model: capsules (segment a-b, radius; or a sphere: '
                  'center, radius)\n# in each link frame [m]; skip_pairs: [link1, link2, '
                  'reason]. Edit freely.\n')
        Path(path).write_text(header + yaml.safe_dump(data, sort_keys=False,
                                                      default_flow_style=None))

    @classmethod
    def load(cls, linkage, path: Union[str, Path], **pair_options) -> 'CollisionModel':
        """
        Read a model written by :meth:`save` (or by hand) for ``linkage``.

        ``pair_options`` (``skip_pairs``, ``srdf``, ``neutral``) add to the file's skip pairs.

        :raises ConfigError: unreadable file, bad YAML or entry (named).  LinkError: unknown link.
        """
        import yaml
        try:
            data = yaml.safe_load(Path(path).read_text())
        except OSError as err:
            raise ConfigError(f"collision model '{path}': cannot read it ({err.strerror})"
                              ) from None
        except yaml.YAMLError as err:
            raise ConfigError(f"collision model '{path}': invalid YAML ({err})") from None
        if not isinstance(data, dict) or not isinstance(data.get('capsules'), dict):
            raise ConfigError(f"collision model '{path}': expected a mapping with 'capsules'")
        capsules = []
        for link, entries in data['capsules'].items():
            for i, entry in enumerate(entries or []):
                key = f"collision model '{path}': capsules.{link}[{i}]"
                try:
                    r = float(entry['radius'])
                    if 'center' in entry:
                        a = b = tuple(float(v) for v in entry['center'])
                    else:
                        a = tuple(float(v) for v in entry['a'])
                        b = tuple(float(v) for v in entry['b'])
                except (KeyError, TypeError, ValueError):
                    raise ConfigError(f'{key}: expected radius and center, or radius, a and b'
                                      ) from None
                if len(a) != 3 or len(b) != 3 or not (r >= 0.0 and np.isfinite(r)):
                    raise ConfigError(f'{key}: points need 3 numbers, radius ≥ 0')
                capsules.append(Capsule(str(link), a, b, r, str(entry.get('source', ''))))
        skip = [tuple(p) for p in (data.get('skip_pairs') or [])]
        skip += list(pair_options.pop('skip_pairs', ()))
        return cls(linkage, capsules, skip_pairs=skip, **pair_options)


def _bundled_name(linkage) -> Optional[str]:
    """
    Name of the bundled robot ``linkage`` was loaded from, or None.

    The same file, or the same text (a copy of the bundled URDF elsewhere: the source tree
    beside an installed package, a robot_description parameter).
    """
    path = getattr(linkage, 'urdf_path', None)
    text = getattr(linkage, 'urdf_text', None)
    if isinstance(text, str):
        text = text.encode()
    for name in BUNDLED_ROBOTS:
        try:
            bundled = bundled_urdf(name)
            if (path is not None and Path(path).resolve() == bundled.resolve()) or \
                    (text is not None and text.strip() == bundled.read_bytes().strip()):
                return name
        except OSError:
            continue
    return None


def collision_model(linkage, model: Optional[Union[str, Path]] = None,
                    mesh_path: Sequence[str] = (), capsules_per_mesh: int = 3,
                    **pair_options) -> CollisionModel:
    """
    Return the collision model of ``linkage``: from a YAML file, its URDF, or the bundled one.

    In order: ``model`` (a YAML path written by :meth:`CollisionModel.save`, or a bundled robot
    name such as ``"panda"``); the ``<collision>`` elements of the URDF the linkage was loaded
    from; the bundled model of a bundled robot loaded from its bundled file (the bundled Panda's
    URDF has no collision elements: its capsules were fitted to example-robot-data's meshes).

    :param pair_options: ``skip_pairs``, ``srdf``, ``neutral`` (see :class:`CollisionModel`).

    :raises ConfigError: no collision geometry anywhere, or a bad file (named).
    """
    if model is not None:
        path = config_file(BUNDLED_MODELS[str(model)]) if str(model) in BUNDLED_MODELS \
            else Path(model)
        return CollisionModel.load(linkage, path, **pair_options)
    try:
        return CollisionModel.from_urdf(linkage, mesh_path=mesh_path,
                                        capsules_per_mesh=capsules_per_mesh, **pair_options)
    except ConfigError:
        name = _bundled_name(linkage)
        if name not in BUNDLED_MODELS:
            raise
    return CollisionModel.load(linkage, config_file(BUNDLED_MODELS[name]), **pair_options)


def _collision_copy(root: ElementTree.Element) -> ElementTree.Element:
    """Return a ``<robot>`` of the links of ``root`` with their ``<collision>`` elements."""
    robot = ElementTree.Element('robot', {'name': root.get('name', '')})
    for link in root.findall('link'):
        new = ElementTree.SubElement(robot, 'link', {'name': link.get('name', '')})
        new.extend(link.findall('collision'))
    return robot
