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
Obstacle task: the robot's links keep at least ``d_min`` from environment obstacles.

The rows are those of :class:`~pdls_ik.tasks.SelfCollisionTask` (inequalities d(q) ≥ d_min,
position form or Faverjon & Tournassoud's velocity damper, ``margin``), with d the signed
distance from a link's capsules (the same :class:`~pdls_ik.model.collision.CollisionModel`) to
an obstacle (:mod:`pdls_ik.model.obstacles`): for each link with capsules that a joint moves
(a link fixed to the root, such as a base standing on the floor, cannot keep away from
anything), ``rows_per_link`` rows, its nearest obstacles (so that the number of rows is fixed
while the obstacles change: an :class:`~pdls_ik.model.obstacles.ObstacleSet` may change
between two evaluations). The gradient is

    ∂d/∂q = n · J_p(link, w) = n · J_v + ((w − o) × n) · J_ω

with w the witness on the capsule, n the unit normal from the obstacle towards it and J_v, J_ω
the link's frame Jacobian (origin o) in the root frame. Priority −1 by default: the level of
the self-collision task, above the pose.
"""
from __future__ import annotations

import copy
from typing import Optional, Sequence, Tuple, Union

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.model.collision import CollisionModel
from pdls_ik.model.obstacles import capsule_distances, Obstacle, ObstacleSet
from pdls_ik.pdls import LESS_EQUAL
from pdls_ik.tasks.base import Array, check_weight, TARGET, Task
from pdls_ik.tasks.self_collision_task import set_distance_parameters


class ObstacleTask(Task):
    """
    Keep every link with capsules at least ``d_min`` from the obstacles (module docstring).

    :param linkage: the robot model (the one ``model`` was built on).
    :param model: the :class:`~pdls_ik.model.collision.CollisionModel` (its capsules).
    :param obstacles: a sequence of :class:`~pdls_ik.model.obstacles.Obstacle` (root frame) or
        an :class:`~pdls_ik.model.obstacles.ObstacleSet` read at every evaluation.
    :param d_min: [m] ≥ 0; activation_distance [m] > d_min + margin; gain ∈ (0, 1]; margin
        [m] ≥ 0: as :class:`~pdls_ik.tasks.SelfCollisionTask`.
    :param rows_per_link: rows of each link (its nearest obstacles), ≥ 1.
    :param: weight [1/m], tolerance [m], priority (default −1), name.

    :ivar distances: (rows,) the rows' distances at the last :meth:`compute` [m] (inf: no
        obstacle).
    :ivar violation: max(d_min − d, 0) at the last :meth:`compute` [m].

    :raises InputError: a bad number, a model of another linkage, an obstacle that is not an
        :class:`~pdls_ik.model.obstacles.Obstacle`.
    """

    kind = TARGET
    frees_joints = False

    def __init__(self, linkage, model: CollisionModel,
                 obstacles: Union[Sequence[Obstacle], ObstacleSet] = (), d_min: float = 0.01,
                 activation_distance: float = 0.1, gain: float = 1.0, margin: float = 0.0,
                 rows_per_link: int = 2, weight: float = 1.0, tolerance: float = 1e-6,
                 priority: int = -1, name: Optional[str] = None):
        super().__init__(name or 'obstacles', weight, priority)
        set_distance_parameters(self, linkage, model, (d_min, activation_distance, gain, margin))
        if isinstance(obstacles, ObstacleSet):
            self.obstacles = obstacles
        else:
            fixed = tuple(obstacles)
            for i, o in enumerate(fixed):
                if not isinstance(o, Obstacle):
                    raise InputError(f"task '{self.name}' obstacles[{i}]: expected an "
                                     f'Obstacle, got {type(o).__name__}')
            self.obstacles = ObstacleSet()
            self.obstacles.put('', fixed)
        try:
            self.rows_per_link = int(rows_per_link)
        except (TypeError, ValueError):
            raise InputError(f"task '{self.name}' rows_per_link: {rows_per_link!r} must be an "
                             'integer') from None
        if self.rows_per_link < 1:
            raise InputError(f"task '{self.name}' rows_per_link: {rows_per_link!r} must be "
                             '≥ 1')
        self.tolerance = check_weight(tolerance, f"task '{self.name}' tolerance")
        #: indices into ``model.links`` of the links with rows (moved by a joint)
        self.links = np.flatnonzero(model.links_moved_by(np.ones(linkage.n, dtype=bool)))
        rows = len(self.links) * self.rows_per_link
        self.comparison = np.full(rows, LESS_EQUAL)
        self.distances = np.full(rows, np.inf)
        self.violation = 0.0
        self._nearest: Tuple[Tuple[str, str], ...] = ()

    @property
    def dim(self) -> int:
        return len(self.links) * self.rows_per_link

    def restricted_to(self, free) -> 'ObstacleTask':
        """
        Return the task on the links that ``free`` moves (the others keep their distances).

        :param free: (n,) bool mask of the joint variables the solve may change.
        """
        links = self.links[self.model.links_moved_by(free)[self.links]]
        if len(links) == len(self.links):
            return self
        task = copy.copy(self)
        task.links = links
        rows = len(links) * self.rows_per_link
        task.comparison = np.full(rows, LESS_EQUAL)
        task.distances = np.full(rows, np.inf)
        return task

    def _geometry(self, q: Array, obstacles):
        """(distance (L, m), witness (L, m, 3), normal (L, m, 3), obstacle index (L, m))."""
        model = self.model
        poses = self.linkage.forward_kinematics_all(q)
        T = np.array([poses[link] for link in model.links])[model._cap_link]
        A = np.einsum('kij,kj->ki', T[:, :3, :3], model._a) + T[:, :3, 3]
        B = np.einsum('kij,kj->ki', T[:, :3, :3], model._b) + T[:, :3, 3]
        L, O, m = len(model.links), len(obstacles), self.rows_per_link
        D = np.full((L, O), np.inf)
        W = np.zeros((L, O, 3))
        N = np.zeros((L, O, 3))
        for j, obstacle in enumerate(obstacles):
            d, w, n = capsule_distances(A, B, model._r, obstacle)
            order = np.lexsort((d, model._cap_link))          # per link, nearest capsule first
            first = order[np.r_[True, np.diff(model._cap_link[order]) != 0]]
            links = model._cap_link[first]
            D[links, j], W[links, j], N[links, j] = d[first], w[first], n[first]
        D, W, N = D[self.links], W[self.links], N[self.links]
        L = len(self.links)
        pick = np.argsort(D, axis=1, kind='stable')[:, :m]
        if O < m:                                  # fewer obstacles than rows: no obstacle
            pick = np.concatenate((pick, np.full((L, m - O), -1)), axis=1)
        rows = np.arange(L)[:, None]
        valid = pick >= 0
        safe = np.where(valid, pick, 0)
        dist = np.where(valid, D[rows, safe] if O else np.inf, np.inf)
        witness = np.where(valid[..., None], W[rows, safe] if O else 0.0, 0.0)
        normal = np.where(valid[..., None], N[rows, safe] if O else 0.0, 0.0)
        return dist, witness, normal, pick, poses

    def compute(self, q: Array) -> Tuple[Array, Array]:
        obstacles = self.obstacles.snapshot()
        n = self.linkage.n
        rows = self.dim
        J = np.zeros((rows, n))
        bound = self.d_min + self.margin
        if not obstacles:
            self.distances = np.full(rows, np.inf)
            self.violation = self.error = 0.0
            self._nearest = ()
            return np.full(rows, self.weight * (bound - self.activation_distance)), J
        dist, witness, normal, pick, poses = self._geometry(q, obstacles)
        m = self.rows_per_link
        d = dist.reshape(-1)
        near = np.flatnonzero(d < self.activation_distance)
        jacobians = {}
        for k in near:
            link = self.model.links[self.links[k // m]]
            if link not in jacobians:
                jacobians[link] = self.linkage.jacobian(q, link, self.linkage.root_link)
            Jl = jacobians[link]
            nrm = normal[k // m, k % m]
            r = witness[k // m, k % m] - poses[link][:3, 3]
            J[k] = nrm @ Jl[:3] + np.cross(r, nrm) @ Jl[3:]
        gap = bound - d
        e = np.where(d < self.activation_distance, np.where(gap > 0.0, gap, self.gain * gap),
                     bound - self.activation_distance)
        self.distances = d
        self.violation = float(np.maximum(self.d_min - d, 0.0).max(initial=0.0))
        self.error = self.violation
        names = [o.name for o in obstacles]
        self._nearest = tuple((self.model.links[self.links[k // m]],
                               names[pick[k // m, k % m]] if pick[k // m, k % m] >= 0 else '')
                              for k in range(rows))
        return self.weight * e, self.weight * J

    def residual_error(self, e: Array) -> Tuple[float, bool]:
        """(largest d_min − d over the rows [m], ≤ tolerance) from the weighted rows e."""
        err = max(float(np.max(e, initial=0.0)) / self.weight - self.margin, 0.0)
        return err, err <= self.tolerance

    def closest(self) -> Tuple[str, str, float]:
        """(link, obstacle name, distance [m]) of the nearest row at the last :meth:`compute`."""
        if not self._nearest:
            return '', '', float('inf')
        k = int(np.argmin(self.distances))
        return self._nearest[k][0], self._nearest[k][1], float(self.distances[k])
