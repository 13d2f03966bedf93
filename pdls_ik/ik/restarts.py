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
Random restarts of a one-shot solve: when a local solve gives up, and where the next one starts.

A local solve is abandoned for a random restart when its progress stalls (:data:`RESTART_WINDOW`,
:data:`RESTART_RATIO`, the monitor of :class:`~pdls_ik.ik.pose_problem.PoseProblem` and of the
compiled kernel); the next starts from a row of the :class:`SeedTable`, drawn from a generator
seeded with ``config.random_seed``, so that a solve is reproducible and both backends read the
same seeds. The table's first :data:`RANKED_SEEDS` rows are tried nearest to the goal first
(:func:`seed_order`): a restart from a seed whose tip is already near the goal more often
converges, and sooner.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
from numpy.typing import NDArray
from pdls_ik.model.joint_vector import sampling_range

Array = NDArray[np.float64]
#: a local solve is abandoned for a random restart when its pose residual falls by less than
#: RESTART_RATIO over RESTART_WINDOW iterations (stuck at limits or in a local minimum). 500
#: random goals from random seeds: (4, 0.6) against (3, 0.5): UR5 12.98 iterations and 0.55
#: restarts per solve against 13.82 and 1.00, Panda 17.97 and 1.31 against 18.30 and 1.98;
#: (4, 0.7) against (4, 0.6) (issue 17, iterations per solve): Panda 18.05 / 18.55, UR5 12.22 /
#: 12.54, kinova 14.73 / 14.95, z1 27.78 / 28.06, TALOS arm 25.46 / 33.54, all 100 % solved
RESTART_WINDOW, RESTART_RATIO = 4, 0.7
#: while a joint the solve moves (not a locked one) sits at one of its limits and the locks are
#: held, the monitor judges over RESTART_LIMIT_WINDOW iterations with RESTART_LIMIT_RATIO
#: instead: a solve pressed against a limit rarely frees itself. 1,000 random goals from random
#: seeds per arm (issue 17, iterations per solve, NumPy backend): TALOS arm 12.43 → 10.53, z1
#: 14.39 → 12.78, Panda 13.72 → 12.49, xarm7 12.07 → 11.63, Kinova 10.87 → 10.91, UR5 and UR10
#: unchanged, all solved
RESTART_LIMIT_WINDOW, RESTART_LIMIT_RATIO = 2, 0.6
#: the monitor's (window, ratio, window at a limit, ratio at a limit)
RESTART_MONITOR = (RESTART_WINDOW, RESTART_RATIO, RESTART_LIMIT_WINDOW, RESTART_LIMIT_RATIO)
#: random restart seeds are drawn from the generator in blocks of this many (the same stream as
#: one draw per restart; both backends read the same table)
SEED_BLOCK = 64
#: the first restarts of a solve start from the table's first RANKED_SEEDS rows in the order of
#: their tip's distance to the goal (:func:`seed_order`), the later ones from the rows after them
#: in table order. 1,000 random goals from random seeds, iterations per solve in table order →
#: ranked 32 → ranked 64 (issue 17): Panda 18.7 → 15.5 → 14.2, UR5 14.8 → 13.3 → 13.6, kinova
#: 13.2 → 11.9 → 11.7, z1 25.7 → 19.2 → 18.1, TALOS arm 19.9 → 16.2 → 15.8
RANKED_SEEDS = SEED_BLOCK
#: the table holds at most this many seeds; later restarts reuse them cyclically (a goal still
#: unmet after thousands of restarts is out of reach; the table stays small)
MAX_SEEDS = 4096
#: the first local solve of a one-shot solve always runs this many iterations (unless it ends
#: sooner) before its time budget may stop it, so that a solve started late on a loaded machine
#: gives the answer it gives on an idle one. 1,000 random goals each, from the middle of the
#: limits and from random seeds: first local solves that converged took at most 17 iterations
#: (p99 14 on the Panda, 15 on the UR5; ``benchmarks/first_solve_iterations.py``); 20
#: iterations cost about 0.1 ms compiled, 2 ms on the NumPy backend
FIRST_SOLVE_MIN_ITERATIONS = 20
#: flags of a compiled one-shot solve (:func:`pdls_ik._accel.ik_solver_numba.solve_restarts`): a
#: first local solve from the start configuration; random restarts; the kernel takes the goal
#: after its own checks; the same for the seed
USE_START, RESTART, CHECK_GOAL, CHECK_SEED = 1, 2, 4, 8
#: what that kernel returns when its checks leave the goal or the seed to the Python parsing (an
#: error to raise, a repair to note)
GOAL_UNCHECKED, SEED_UNCHECKED = -1, -2


#: the entries of a rotation block in the order seed_order sums their products
ROTATION_ENTRIES = tuple((r, c) for r in range(3) for c in range(3))


class SeedTable:
    """
    The random restart seeds of a solver, drawn in blocks of :data:`SEED_BLOCK` on demand.

    :param lower, upper: (n,) joint limits; the seeds are uniform within them
        (:func:`~pdls_ik.model.joint_vector.sampling_range` where a limit is infinite).
    :param variables: (k,) indices of the sampled variables (the chain's and those the extra
        tasks move); the others keep the base configuration's values.
    :param random_seed: seed of the generator (``config.random_seed``).
    """

    def __init__(self, lower: Array, upper: Array, variables: NDArray[np.int64],
                 random_seed: int):
        self.variables = variables
        self._lo, self._hi = sampling_range(lower, upper)
        self._rng = np.random.default_rng(random_seed)
        self._rows = np.empty((0, variables.size))

    def rows(self, count: int, order: Optional[NDArray[np.int64]] = None) -> Array:
        """
        Return the first ``count`` (at least) seeds (k', sampled variables), k' ≤ MAX_SEEDS.

        The same table for every solve of the solver and for both backends; with ``order``
        (:func:`seed_order`), a copy whose first rows are in that order.
        """
        count = min(max(count, RANKED_SEEDS), MAX_SEEDS)
        if self._rows.shape[0] < count:
            idx = self.variables
            more = -(-(count - self._rows.shape[0]) // SEED_BLOCK) * SEED_BLOCK
            self._rows = np.concatenate((self._rows, self._rng.uniform(
                self._lo[idx], self._hi[idx], (more, idx.size))))
        if order is None:
            return self._rows
        rows = self._rows.copy()
        rows[:order.size] = self._rows[order]
        return rows

    def seed(self, k: int, base: Array, order: Optional[NDArray[np.int64]] = None) -> Array:
        """
        Restart seed k: ``base`` (n,) with its sampled variables from row k (mod MAX_SEEDS).

        With ``order`` (:func:`seed_order`), restart k < RANKED_SEEDS takes row ``order[k]``.
        """
        k %= MAX_SEEDS
        if order is not None and k < order.size:
            k = int(order[k])
        q = base.copy()
        q[self.variables] = self.rows(k + 1)[k]
        return q

    def tip_poses(self, forward_kinematics: Callable[[Array], Array], base: Array) -> Array:
        """
        Return the tip pose at each of the first :data:`RANKED_SEEDS` seeds, (R, 3, 4) [R | p].

        :param forward_kinematics: q (n,) -> (4, 4) pose of the tip in the base frame [m].
        :param base: (n,) the values of the variables the table does not sample.
        """
        return np.array([forward_kinematics(self.seed(k, base))[:3]
                         for k in range(RANKED_SEEDS)])


def seed_order(tips: Array, target: Array, position_weight: float, orientation_weight: float,
               position_only: bool) -> NDArray[np.int64]:
    """
    Return the order (R,) in which restarts try the ranked seeds: nearest tip to the goal first.

    The distance of a tip pose (R_k, p_k) to the goal (R*, p*) is
    wp² ‖p_k − p*‖² + wo² (3 − tr(R_kᵀ R*)) (3 − tr is 2 (1 − cos θ), θ the angle between the
    rotations, ≈ θ²: the squared weighted pose residual for small errors; position only: the first
    term). Ties keep table order. The compiled kernel
    (:func:`pdls_ik._accel.ik_solver_numba.seed_order_into`) computes it in the same
    floating-point operations.

    :param tips: (R, 3, 4) tip poses of the seeds (:meth:`SeedTable.tip_poses`).
    :param target: (4, 4) goal pose [m]; position_weight [1/m], orientation_weight [1/rad].
    """
    ww, vv = position_weight * position_weight, orientation_weight * orientation_weight
    d0, d1, d2 = (tips[:, r, 3] - target[r, 3] for r in range(3))
    key = ww * (d0 * d0 + d1 * d1 + d2 * d2)
    if not position_only:
        trace = tips[:, 0, 0] * target[0, 0]
        for r, c in ROTATION_ENTRIES[1:]:
            trace = trace + tips[:, r, c] * target[r, c]
        key = key + vv * (3.0 - trace)
    return np.argsort(key, kind='stable')
