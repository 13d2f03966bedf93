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
Numba twin of :mod:`pdls_ik.model.collision` and of :class:`pdls_ik.tasks.SelfCollisionTask`.

The capsule distances of the checked link pairs (closest points of two segments, Ericson 2005
§5.1.9, transcribed from :func:`pdls_ik.model.collision.segment_closest_points` with its
degenerate cases), the witness points and normals, the analytic gradient ∂d/∂q from the frames
of the moving joints above each link, and the task's weighted inequality rows, for one
configuration, without allocation in the loop. The link poses come from one pass over the
linkage's tree (:func:`pdls_ik.model.kinematics.tree_poses`).

Arguments travel in two tuples (:func:`collision_tuple`): ``tree`` = (basis (J, 4, 16), qidx
(J,), multiplier (J,), offset (J,), parent (J,), child (J,), root, number of links) for the
joints of the linkage in topological order, and ``shapes`` = (geo_link (G,), cap_link (C,),
a (C, 3), b (C, 3), radius (C,), ia (CP,), ib (CP,), pair_start (P + 1,), pair_links (P, 2),
joint_link (K,), joint_axis (K, 3), revolute (K,), column (K,), multiplier (K,), ancestors
(G, K)) for the model: G links with geometry (their linkage link indices), C capsules (their
model link), CP capsule pairs grouped by link pair (pair p owns
``pair_start[p]:pair_start[p + 1]``), K moving joints (child link, axis in the child frame,
column of q and mimic multiplier), and which joints lie above each link.
``test/_accel/test_collision_numba.py`` holds them against the NumPy reference.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from pdls_ik._accel import use_sources_cache

use_sources_cache()     # before the first cached kernel

#: indices of the task tuple (d_min, activation_distance, gain, weight, margin)
TASK_D_MIN, TASK_ACTIVATION, TASK_GAIN, TASK_WEIGHT, TASK_MARGIN = range(5)


def collision_tuple(model) -> tuple:
    """
    Return (tree, shapes) of a :class:`~pdls_ik.model.collision.CollisionModel` (module doc).

    Read from the model's pair tables and its linkage's tree.
    """
    linkage = model.linkage
    motions = linkage._tree
    m = motions.m
    tree = (np.ascontiguousarray(motions.basis.reshape(m, 4, 16)),
            np.asarray(motions.qidx, dtype=np.int64),
            np.asarray(motions.multiplier, dtype=float), np.asarray(motions.offset, dtype=float),
            np.array([j.parent for j in linkage.joints], dtype=np.int64),
            np.array([j.child for j in linkage.joints], dtype=np.int64),
            int(linkage.link_index(linkage.root_link)), len(linkage.link_names))
    joints = linkage.joints
    above = [j for j, joint in enumerate(joints) if joint.moving]
    starts = np.append(model._starts, model._ia.size).astype(np.int64)
    shapes = (np.array([linkage.link_index(name) for name in model.links], dtype=np.int64),
              np.asarray(model._cap_link, dtype=np.int64),
              np.ascontiguousarray(model._a, dtype=float),
              np.ascontiguousarray(model._b, dtype=float),
              np.ascontiguousarray(model._r, dtype=float),
              np.asarray(model._ia, dtype=np.int64), np.asarray(model._ib, dtype=np.int64),
              starts, np.ascontiguousarray(model._pair_links, dtype=np.int64).reshape(-1, 2),
              np.array([joints[j].child for j in above], dtype=np.int64),
              np.ascontiguousarray(model._joint_axis, dtype=float).reshape(-1, 3),
              np.asarray(model._joint_revolute, dtype=np.bool_),
              np.array([joints[j].index for j in above], dtype=np.int64),
              np.array([joints[j].multiplier for j in above], dtype=float),
              np.ascontiguousarray(model._ancestors != 0.0).reshape(len(model.links),
                                                                    len(above)))
    return tree, shapes


def task_tuple(task) -> tuple:
    """Return the task tuple (d_min, activation_distance, gain, weight, margin) of a task."""
    return (float(task.d_min), float(task.activation_distance), float(task.gain),
            float(task.weight), float(task.margin))


@numba.njit(cache=True)
def tree_poses(q, tree, poses):
    """
    Fill poses (links, 4, 4) with every link's pose in the root frame at q (n,).

    As :func:`pdls_ik.model.kinematics.tree_poses` (joints in topological order).
    """
    basis, qidx, mult, offset, parent, child, root = tree[:7]
    n = q.shape[0]
    poses[root, :, :] = 0.0
    for i in range(4):
        poses[root, i, i] = 1.0
    A = np.empty(16)
    for k in range(basis.shape[0]):
        th = (q[qidx[k]] if qidx[k] < n else 0.0) * mult[k] + offset[k]
        s, c1 = math.sin(th), 1.0 - math.cos(th)
        for i in range(16):
            A[i] = basis[k, 0, i] + s * basis[k, 1, i] + c1 * basis[k, 2, i] + th * basis[k, 3, i]
        P, C = poses[parent[k]], poses[child[k]]
        for r in range(4):
            for c in range(4):
                C[r, c] = (P[r, 0] * A[c] + P[r, 1] * A[4 + c] + P[r, 2] * A[8 + c]
                           + P[r, 3] * A[12 + c])


@numba.njit(cache=True)
def _clip01(v):
    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)


@numba.njit(cache=True)
def _parameters(d10, d11, d12, d20, d21, d22, r0, r1, r2):
    """(s, t) of the closest points from the directions d1, d2 and r = p1 − p2 (scalars)."""
    a = d10 * d10 + d11 * d11 + d12 * d12
    e = d20 * d20 + d21 * d21 + d22 * d22
    f = d20 * r0 + d21 * r1 + d22 * r2
    c = d10 * r0 + d11 * r1 + d12 * r2
    b = d10 * d20 + d11 * d21 + d12 * d22
    eps = 1e-30
    a_ok, e_ok = a > eps, e > eps
    if a_ok and e_ok:
        denom = a * e - b * b
        s = 0.0
        if denom > 1e-14 * max(a * e, eps):
            s = _clip01((b * f - c * e) / denom)
        t = (b * s + f) / e
        if t < 0.0:
            return _clip01(-c / a), 0.0
        if t > 1.0:
            return _clip01((b - c) / a), 1.0
        return s, t
    if a_ok:
        return _clip01(-c / a), 0.0
    if e_ok:
        return 0.0, _clip01(f / e)
    return 0.0, 0.0


@numba.njit(cache=True)
def segment_parameters(p1, q1, p2, q2):
    """
    Parameters (s, t) ∈ [0, 1]² of the closest points of segments [p1, q1], [p2, q2] (3,) each.

    :func:`pdls_ik.model.collision.segment_closest_points` for one pair.
    """
    return _parameters(q1[0] - p1[0], q1[1] - p1[1], q1[2] - p1[2], q2[0] - p2[0],
                       q2[1] - p2[1], q2[2] - p2[2], p1[0] - p2[0], p1[1] - p2[1],
                       p1[2] - p2[2])


@numba.njit(cache=True)
def pair_distances(poses, shapes, ends, cutoff, dist, normal, wa, wb):
    """
    Distances dist (P,) of the checked pairs, their normals and witness points (P, 3) each.

    :meth:`pdls_ik.model.collision.CollisionModel.distances` from the link poses (links, 4, 4);
    ends: (C + G, 8) work (each capsule's end points in the root frame and its bounding sphere
    radius; then each link's bounding sphere: centre, radius). The closest capsule pair of a
    link pair is the first of smallest distance. Bounding spheres cull: a capsule pair farther
    apart than the best distance so far is skipped (it cannot be closer), and so is a link pair
    or a capsule pair farther than ``cutoff`` [m] (inf: exact distances): a link pair beyond the
    cutoff gets a distance ≥ cutoff (a lower bound) and no normal or witness points.
    """
    geo_link, cap_link, ca, cb, cr, ia, ib, pair_start, pair_links = shapes[:9]
    C, G = ca.shape[0], geo_link.shape[0]
    for g in range(G):
        ends[C + g, 0] = ends[C + g, 1] = ends[C + g, 2] = ends[C + g, 3] = 0.0
        ends[C + g, 4] = ends[C + g, 5] = 0.0
    for k in range(C):
        T = poses[geo_link[cap_link[k]]]
        half = 0.0
        for i in range(3):
            u = T[i, 0] * ca[k, 0] + T[i, 1] * ca[k, 1] + T[i, 2] * ca[k, 2] + T[i, 3]
            v = T[i, 0] * cb[k, 0] + T[i, 1] * cb[k, 1] + T[i, 2] * cb[k, 2] + T[i, 3]
            ends[k, i], ends[k, 3 + i] = u, v
            half += (v - u) * (v - u)
            ends[C + cap_link[k], i] += 0.5 * (u + v)
        ends[k, 6] = 0.5 * math.sqrt(half) + cr[k]
        ends[C + cap_link[k], 4] += 1.0
    for k in range(C):          # each link's sphere: about the mean of its capsules' centres
        g = C + cap_link[k]
        if ends[g, 4] > 0.0:
            for i in range(3):
                ends[g, i] /= ends[g, 4]
            ends[g, 4] = 0.0
        x0 = 0.5 * (ends[k, 0] + ends[k, 3]) - ends[g, 0]
        x1 = 0.5 * (ends[k, 1] + ends[k, 4]) - ends[g, 1]
        x2 = 0.5 * (ends[k, 2] + ends[k, 5]) - ends[g, 2]
        ends[g, 3] = max(ends[g, 3], math.sqrt(x0 * x0 + x1 * x1 + x2 * x2) + ends[k, 6])
    for p in range(pair_start.shape[0] - 1):
        ga, gb = C + pair_links[p, 0], C + pair_links[p, 1]
        x0, x1, x2 = ends[ga, 0] - ends[gb, 0], ends[ga, 1] - ends[gb, 1], \
            ends[ga, 2] - ends[gb, 2]
        lower = math.sqrt(x0 * x0 + x1 * x1 + x2 * x2) - ends[ga, 3] - ends[gb, 3]
        if lower >= cutoff:
            dist[p] = lower
            continue
        best = math.inf
        bound = math.inf
        for h in range(pair_start[p], pair_start[p + 1]):
            i, j = ia[h], ib[h]
            x0 = 0.5 * (ends[i, 0] + ends[i, 3] - ends[j, 0] - ends[j, 3])
            x1 = 0.5 * (ends[i, 1] + ends[i, 4] - ends[j, 1] - ends[j, 4])
            x2 = 0.5 * (ends[i, 2] + ends[i, 5] - ends[j, 2] - ends[j, 5])
            lower = math.sqrt(x0 * x0 + x1 * x1 + x2 * x2) - ends[i, 6] - ends[j, 6]
            if lower >= cutoff:
                bound = min(bound, lower)
                continue
            if lower >= best:
                continue
            d10, d11, d12 = ends[i, 3] - ends[i, 0], ends[i, 4] - ends[i, 1], \
                ends[i, 5] - ends[i, 2]
            d20, d21, d22 = ends[j, 3] - ends[j, 0], ends[j, 4] - ends[j, 1], \
                ends[j, 5] - ends[j, 2]
            s, t = _parameters(d10, d11, d12, d20, d21, d22, ends[i, 0] - ends[j, 0],
                               ends[i, 1] - ends[j, 1], ends[i, 2] - ends[j, 2])
            c10, c11, c12 = ends[i, 0] + s * d10, ends[i, 1] + s * d11, ends[i, 2] + s * d12
            c20, c21, c22 = ends[j, 0] + t * d20, ends[j, 1] + t * d21, ends[j, 2] + t * d22
            y0, y1, y2 = c10 - c20, c11 - c21, c12 - c22
            length = math.sqrt(y0 * y0 + y1 * y1 + y2 * y2)
            d = length - cr[i] - cr[j]
            if not d < best:
                continue
            best = d
            if length < 1e-12:      # intersecting segments: normal between the capsule centres
                y0, y1, y2 = x0, x1, x2
                if math.sqrt(y0 * y0 + y1 * y1 + y2 * y2) < 1e-12:
                    y0, y1, y2 = 0.0, 0.0, 1.0
            norm = math.sqrt(y0 * y0 + y1 * y1 + y2 * y2)
            dist[p] = d
            normal[p, 0], normal[p, 1], normal[p, 2] = y0 / norm, y1 / norm, y2 / norm
            wa[p, 0] = c10 - cr[i] * normal[p, 0]
            wa[p, 1] = c11 - cr[i] * normal[p, 1]
            wa[p, 2] = c12 - cr[i] * normal[p, 2]
            wb[p, 0] = c20 + cr[j] * normal[p, 0]
            wb[p, 1] = c21 + cr[j] * normal[p, 1]
            wb[p, 2] = c22 + cr[j] * normal[p, 2]
        if best == math.inf:
            dist[p] = bound


@numba.njit(cache=True)
def distance_gradient(poses, shapes, dist, normal, wa, wb, cutoff, G):
    """
    Fill G (P, n) with ∂d/∂q of the pairs closer than cutoff [m] (zero rows for the others).

    :meth:`pdls_ik.model.collision.CollisionModel.distances_and_gradient`: a revolute joint of
    world axis z at o moves a witness w by n · (z × (w − o)), a prismatic one by n · z, signed
    + for the pair's first link, − for its second, on the joints above that link.
    """
    pair_links, joint_link, joint_axis, revolute, column, jmult, ancestors = shapes[8:]
    G[:, :] = 0.0
    for k in range(joint_link.shape[0]):
        T = poses[joint_link[k]]
        z0 = T[0, 0] * joint_axis[k, 0] + T[0, 1] * joint_axis[k, 1] + T[0, 2] * joint_axis[k, 2]
        z1 = T[1, 0] * joint_axis[k, 0] + T[1, 1] * joint_axis[k, 1] + T[1, 2] * joint_axis[k, 2]
        z2 = T[2, 0] * joint_axis[k, 0] + T[2, 1] * joint_axis[k, 1] + T[2, 2] * joint_axis[k, 2]
        o0, o1, o2 = T[0, 3], T[1, 3], T[2, 3]
        for p in range(dist.shape[0]):
            if not dist[p] < cutoff:
                continue
            n0, n1, n2 = normal[p, 0], normal[p, 1], normal[p, 2]
            rate = 0.0
            if revolute[k]:
                x0, x1, x2 = n1 * z2 - n2 * z1, n2 * z0 - n0 * z2, n0 * z1 - n1 * z0
                if ancestors[pair_links[p, 0], k]:
                    rate += (wa[p, 0] - o0) * x0 + (wa[p, 1] - o1) * x1 + (wa[p, 2] - o2) * x2
                if ancestors[pair_links[p, 1], k]:
                    rate -= (wb[p, 0] - o0) * x0 + (wb[p, 1] - o1) * x1 + (wb[p, 2] - o2) * x2
            else:
                moved = n0 * z0 + n1 * z1 + n2 * z2
                if ancestors[pair_links[p, 0], k]:
                    rate += moved
                if ancestors[pair_links[p, 1], k]:
                    rate -= moved
            G[p, column[k]] += rate * jmult[k]


@numba.njit(cache=True)
def collision_work(tree, shapes):
    """Work arrays of :func:`self_collision_rows`: (poses, ends, dist, normal, wa, wb)."""
    P = shapes[7].shape[0] - 1
    return (np.empty((tree[7], 4, 4)),
            np.empty((shapes[2].shape[0] + shapes[0].shape[0], 8)),
            np.empty(P), np.empty((P, 3)), np.empty((P, 3)), np.empty((P, 3)))


@numba.njit(cache=True)
def self_collision_rows(q, tree, shapes, task, e, J, work, gradient):
    """
    Fill the task's weighted rows at q (n,): e (P,) and, if ``gradient``, J (P, n).

    :meth:`pdls_ik.tasks.SelfCollisionTask.compute`: with the bound b = d_min + margin,
    e = w (b − d) (times the gain γ while d ≥ b) for pairs closer than the activation distance,
    w (b − d_act) for the others (never active), J = w ∂d/∂q. Returns the largest violation
    max(d_min − d, 0) [m] (met at d_min, the margin aside); work: :func:`collision_work` (its
    dist holds the distances after the call).
    """
    d_min, act, gain, w, margin = task
    bound = d_min + margin
    poses, ends, dist, normal, wa, wb = work
    tree_poses(q, tree, poses)
    pair_distances(poses, shapes, ends, act, dist, normal, wa, wb)
    worst = 0.0
    for p in range(dist.shape[0]):
        gap = bound - dist[p]
        if dist[p] < act:
            e[p] = w * (gap if gap > 0.0 else gain * gap)
        else:
            e[p] = w * (bound - act)
        worst = max(worst, d_min - dist[p])
    if gradient:
        distance_gradient(poses, shapes, dist, normal, wa, wb, act, J)
        for p in range(dist.shape[0]):
            for j in range(J.shape[1]):
                J[p, j] *= w
    return worst


@numba.njit(cache=True)
def distances_at(q, tree, shapes):
    """Distances (P,) of the checked pairs at q (n,) [m] (:meth:`CollisionModel.distances`)."""
    work = collision_work(tree, shapes)
    tree_poses(q, tree, work[0])
    pair_distances(work[0], shapes, work[1], math.inf, work[2], work[3], work[4], work[5])
    return work[2].copy()
