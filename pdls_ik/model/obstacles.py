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
Environment obstacles (boxes, spheres, capsules, planes) and their distance to link capsules.

An :class:`Obstacle` is fixed in the robot's root frame. Its signed distance to a capsule (a
sphere-swept segment [a, b] of radius r, :mod:`pdls_ik.model.collision_geometry`) is the
distance from the segment to the obstacle minus r, negative inside; with it the **witness** w on
the capsule's surface and the unit **normal** n pointing from the obstacle towards the capsule,
so that a motion v of the capsule's point w changes the distance by n · v (first order; the
closest points are stationary, as for link pairs in :mod:`pdls_ik.model.collision`):

- ``sphere`` (radius R; ``capsule`` radius R along the local z axis, ±length/2; a MoveIt
  cylinder is bounded by that capsule): the closest points of two segments (Ericson 2005,
  *Real-Time Collision Detection*, §5.1.9), d = ‖c₁ − c₂‖ − r − R;
- ``plane`` (the half-space below the local x-y plane, free side along the local z axis): the
  segment end with the smaller height h (the middle when both are equal), d = h − r, n = z;
- ``box`` (full sizes (x, y, z), centred at its pose): the signed distance to a box, sd(x) =
  ‖max(|x| − h, 0)‖ + min(max_i(|x_i| − h_i), 0), is convex, so along the segment it has one
  minimum, found by golden-section search to 1e-15 of the segment (:data:`GOLDEN_STEPS`); n is
  the direction from the box's closest point, or the normal of the nearest face inside the box.

:class:`ObstacleSet` holds the obstacles a node receives (named objects, each a list of
shapes), swapped atomically so that a solver may read it while it changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
import threading
from typing import Dict, List, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.model.collision import segment_closest_points

Array = NDArray[np.float64]
KINDS = ('box', 'sphere', 'capsule', 'plane')
#: golden-section steps of the capsule-box distance: 0.618^75 < 1e-15 of the segment
GOLDEN_STEPS = 75
_GOLD = (math.sqrt(5.0) - 1.0) / 2.0


@dataclass(frozen=True, eq=False)
class Obstacle:
    """
    One obstacle in the robot's root frame.

    :ivar name: for reports (e.g. the CollisionObject id and the primitive's index).
    :ivar kind: "box", "sphere", "capsule" or "plane".
    :ivar pose: (4, 4) its frame in the root frame [m] (a plane: its surface through the
        origin, free side along z).
    :ivar size: box (x, y, z) full sizes [m]; sphere (radius,); capsule (radius, length);
        plane ().

    :raises InputError: unknown kind, wrong number of sizes, negative or non-finite sizes, a
        pose that is not a finite rigid transform.
    """

    name: str
    kind: str
    pose: Array
    size: Tuple[float, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"obstacle '{self.name}': kind '{self.kind}' is not one of "
                             f"{', '.join(KINDS)}")
        count = {'box': 3, 'sphere': 1, 'capsule': 2, 'plane': 0}[self.kind]
        size = tuple(float(v) for v in self.size)
        if len(size) != count or not all(math.isfinite(v) and v >= 0.0 for v in size):
            raise InputError(f"obstacle '{self.name}': a {self.kind} needs {count} sizes >= 0 "
                             f'[m], got {list(self.size)}')
        pose = np.array(self.pose, dtype=float)
        if pose.shape != (4, 4) or not np.isfinite(pose).all() or \
                not np.allclose(pose[:3, :3].T @ pose[:3, :3], np.eye(3), atol=1e-6):
            raise InputError(f"obstacle '{self.name}': pose must be a finite (4, 4) rigid "
                             'transform')
        object.__setattr__(self, 'size', size)
        object.__setattr__(self, 'pose', pose)


def plane_obstacle(name: str, normal, offset: float) -> Obstacle:
    """Return the plane {x : normal · x = offset} (free side along ``normal``) as an Obstacle."""
    n = np.asarray(normal, dtype=float).reshape(3)
    length = float(np.linalg.norm(n))
    if not (math.isfinite(length) and length > 1e-12 and math.isfinite(float(offset))):
        raise InputError(f"obstacle '{name}': plane normal {list(n)} and offset {offset!r} "
                         'must be finite, the normal not zero')
    z = n / length
    x = np.cross(z, [1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0])
    x /= np.linalg.norm(x)
    pose = np.eye(4)
    pose[:3, :3] = np.column_stack((x, np.cross(z, x), z))
    pose[:3, 3] = z * float(offset) / length
    return Obstacle(name, 'plane', pose)


def _box_signed(x: Array, half: Array) -> Array:
    """Signed distance (k,) of points x (k, 3) to the centred box of half sizes ``half``."""
    q = np.abs(x) - half
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=1)
    return outside + np.minimum(q.max(axis=1), 0.0)


def _box(a: Array, b: Array, half: Array) -> Tuple[Array, Array, Array]:
    """(segment point c (k, 3), box-to-capsule normal (k, 3), sd (k,)) in the box frame."""
    k = a.shape[0]
    d = b - a
    lo, hi = np.zeros(k), np.ones(k)
    t1, t2 = hi - _GOLD * (hi - lo), lo + _GOLD * (hi - lo)
    f1 = _box_signed(a + t1[:, None] * d, half)
    f2 = _box_signed(a + t2[:, None] * d, half)
    for _ in range(GOLDEN_STEPS):
        left = f1 <= f2                   # convex: a minimum lies in [lo, t2], else [t1, hi]
        hi = np.where(left, t2, hi)
        lo = np.where(left, lo, t1)
        new_t1 = np.where(left, hi - _GOLD * (hi - lo), t2)
        new_t2 = np.where(left, t1, lo + _GOLD * (hi - lo))
        t_eval = np.where(left, new_t1, new_t2)           # one new evaluation per step
        f_eval = _box_signed(a + t_eval[:, None] * d, half)
        f1, f2 = np.where(left, f_eval, f2), np.where(left, f1, f_eval)
        t1, t2 = new_t1, new_t2
    candidates = np.stack((np.zeros(k), np.ones(k), 0.5 * (lo + hi)), axis=1)
    values = np.stack([_box_signed(a + candidates[:, j, None] * d, half) for j in range(3)],
                      axis=1)
    best = np.argmin(values, axis=1)
    t = candidates[np.arange(k), best]
    c = a + t[:, None] * d
    sd = values[np.arange(k), best]
    nearest = np.clip(c, -half, half)
    diff = c - nearest
    length = np.linalg.norm(diff, axis=1)
    normal = np.zeros((k, 3))
    out = length > 1e-12
    normal[out] = diff[out] / length[out, None]
    inside = ~out                    # the face nearest to c (largest |c_i| − h_i)
    if inside.any():
        q = np.abs(c[inside]) - half
        axis = np.argmax(q, axis=1)
        sign = np.where(c[inside, axis] >= 0.0, 1.0, -1.0)
        normal[np.flatnonzero(inside), axis] = sign
    return c, normal, sd


def capsule_distances(A: Array, B: Array, r: Array, obstacle: Obstacle
                      ) -> Tuple[Array, Array, Array]:
    """
    Signed distances of k capsules to one obstacle (module docstring), root frame.

    :param A, B: (k, 3) segment ends [m]; r: (k,) radii [m].
    :return: (d (k,) [m], witness on each capsule's surface (k, 3) [m], unit normal from the
        obstacle towards the capsule (k, 3)).
    """
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    r = np.asarray(r, dtype=float)
    R, p = obstacle.pose[:3, :3], obstacle.pose[:3, 3]
    k = A.shape[0]
    if obstacle.kind in ('sphere', 'capsule'):
        radius = obstacle.size[0]
        half = 0.0 if obstacle.kind == 'sphere' else 0.5 * obstacle.size[1]
        oa = np.broadcast_to(p - half * R[:, 2], (k, 3))
        ob = np.broadcast_to(p + half * R[:, 2], (k, 3))
        c1, c2 = segment_closest_points(A, B, oa, ob)
        diff = c1 - c2
        length = np.linalg.norm(diff, axis=1)
        flat = length < 1e-12
        if flat.any():           # the axes meet: normal from the obstacle's centre
            diff[flat] = (0.5 * (A + B) - p)[flat]
            zero = np.linalg.norm(diff, axis=1) < 1e-12
            diff[zero & flat] = (0.0, 0.0, 1.0)
        normal = diff / np.linalg.norm(diff, axis=1)[:, None]
        return length - r - radius, c1 - r[:, None] * normal, normal
    if obstacle.kind == 'plane':
        z = R[:, 2]
        ha, hb = (A - p) @ z, (B - p) @ z
        t = np.where(ha < hb, 0.0, np.where(hb < ha, 1.0, 0.5))
        c = A + t[:, None] * (B - A)
        h = (c - p) @ z
        normal = np.broadcast_to(z, (k, 3)).copy()
        return h - r, c - r[:, None] * normal, normal
    a, b = (A - p) @ R, (B - p) @ R                  # into the box frame
    c, n_local, sd = _box(a, b, 0.5 * np.asarray(obstacle.size))
    normal = n_local @ R.T
    witness = (c @ R.T + p) - r[:, None] * normal
    return sd - r, witness, normal


@dataclass
class ObstacleSet:
    """
    Named groups of obstacles (e.g. one per CollisionObject id), read and changed by threads.

    :meth:`snapshot` returns the current obstacles as a tuple (never changed afterwards);
    :meth:`put`, :meth:`remove` and :meth:`clear` replace it.
    """

    _objects: Dict[str, Tuple[Obstacle, ...]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _flat: Tuple[Obstacle, ...] = ()

    def __post_init__(self):
        self._flat = tuple(o for group in self._objects.values() for o in group)

    def _publish(self) -> None:
        self._flat = tuple(o for group in self._objects.values() for o in group)

    def put(self, name: str, obstacles: Sequence[Obstacle]) -> None:
        """Add or replace the group ``name``."""
        with self._lock:
            self._objects[str(name)] = tuple(obstacles)
            self._publish()

    def remove(self, name: str) -> bool:
        """Remove the group ``name``; return whether it was there."""
        with self._lock:
            found = self._objects.pop(str(name), None) is not None
            self._publish()
            return found

    def clear(self) -> None:
        """Remove every group."""
        with self._lock:
            self._objects.clear()
            self._publish()

    def get(self, name: str) -> Tuple[Obstacle, ...]:
        """Return the obstacles of group ``name`` (empty when unknown)."""
        with self._lock:
            return self._objects.get(str(name), ())

    def names(self) -> List[str]:
        """Return the group names, in insertion order."""
        with self._lock:
            return list(self._objects)

    def snapshot(self) -> Tuple[Obstacle, ...]:
        """Return every obstacle now (a tuple: safe to iterate while the set changes)."""
        return self._flat
