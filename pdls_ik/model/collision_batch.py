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
Link-pair distances of many configurations at once (the batch solver's collision check).

:func:`pair_distances_many` gives the same distances as
:meth:`~pdls_ik.model.collision.CollisionModel.distances`, for N configurations in one pass of
stacked arrays: the link poses of all N from one batched product per joint (the joint transforms
of :class:`~pdls_ik.model.kinematics.JointMotions`, (N, m, 4, 4)), the capsule segments placed
in the root frame, and the closest points of every capsule pair of every configuration by the
vectorized segment-segment routine (Ericson 2005, §5.1.9); a link pair's distance is the
smallest over its capsule pairs.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.model.collision import CollisionModel, segment_closest_points

Array = NDArray[np.float64]
#: configurations evaluated per block (bounds the memory of the stacked arrays)
BLOCK = 2048


def link_poses_many(linkage, Q: Array) -> Array:
    """
    Return the (N, L, 4, 4) pose of every link (``linkage.link_names`` order) in the root frame.

    :param Q: (N, n) configurations [rad, m] (not checked here: finite, model order).
    """
    motions = linkage._tree
    N = Q.shape[0]
    q_ext = np.concatenate((Q, np.zeros((N, 1))), axis=1)
    theta = q_ext[:, motions.qidx]
    if not motions.plain:
        theta = motions.multiplier * theta + motions.offset
    coef = np.empty((N, motions.m, 1, 4))
    coef[..., 0, 0] = 1.0
    coef[..., 0, 1] = np.sin(theta)
    coef[..., 0, 2] = 1.0 - np.cos(theta)
    coef[..., 0, 3] = theta
    A = np.matmul(coef, motions.basis).reshape(N, motions.m, 4, 4)
    poses = np.empty((N, len(linkage.link_names), 4, 4))
    poses[:, linkage.link_index(linkage.root_link)] = np.eye(4)
    for k, joint in enumerate(linkage.joints):
        poses[:, joint.child] = poses[:, joint.parent] @ A[:, k]
    return poses


def pair_distances_many(model: CollisionModel, Q) -> Array:
    """
    Return the (N, P) signed distance [m] of every checked pair of ``model`` at each row of Q.

    :param Q: (N, n) configurations; pairs in the order of ``model.pairs``.
    """
    Q = np.atleast_2d(np.asarray(Q, dtype=float))
    P = len(model.pairs)
    out = np.empty((Q.shape[0], P))
    if P == 0:
        return out
    linkage = model.linkage
    index = np.array([linkage.link_index(link) for link in model.links])
    for lo in range(0, Q.shape[0], BLOCK):
        poses = link_poses_many(linkage, Q[lo:lo + BLOCK])[:, index]      # (B, L, 4, 4)
        out[lo:lo + BLOCK] = _block(model, poses)
    return out


def _block(model: CollisionModel, poses: Array) -> Array:
    T = poses[:, model._cap_link]                                          # (B, K, 4, 4)
    R, p = T[..., :3, :3], T[..., :3, 3]
    A = np.einsum('bkij,kj->bki', R, model._a) + p
    B = np.einsum('bkij,kj->bki', R, model._b) + p
    ia, ib = model._ia, model._ib
    shape = (poses.shape[0], ia.size)
    c1, c2 = segment_closest_points(A[:, ia].reshape(-1, 3), B[:, ia].reshape(-1, 3),
                                    A[:, ib].reshape(-1, 3), B[:, ib].reshape(-1, 3))
    d = np.linalg.norm(c1 - c2, axis=1).reshape(shape) - model._r[ia] - model._r[ib]
    return np.minimum.reduceat(d, model._starts, axis=1)


def min_distances(model: CollisionModel, Q) -> Tuple[Array, NDArray[np.int64]]:
    """Return (the smallest pair distance (N,) [m], the index of that pair (N,)) per row of Q."""
    d = pair_distances_many(model, Q)
    if d.shape[1] == 0:
        return np.full(d.shape[0], np.inf), np.full(d.shape[0], -1, dtype=np.int64)
    k = np.argmin(d, axis=1)
    return d[np.arange(d.shape[0]), k], k
