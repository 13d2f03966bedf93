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
Solve groups: split a task set into independent smaller PDLS problems.

As in the robot PDLS solver of MSim (``msim.control.Solver``: every closure is solved with all
joints its support overlaps, transitively — its *solve group* — and joints outside any support
get no solver), two variables belong to the same group when some task row depends on both. A
task couples all the variables its Jacobian depends on, except a *separable* task whose every row
depends on one variable only (joint locks, limit avoidance, posture), which is split row by row
among the groups. Each group is then an independent problem: its levels are the restrictions of
the global levels, its Jacobian the block of its columns, and it is solved alone.

For a block-diagonal problem the PDLS step is itself block-wise when the per-level quantities do
not mix the blocks — fixed damping λ, residual and Δθ clamping by component, no adaptive step
size; with those options the grouped solution equals the joint one to rounding, while each group
stops as soon as *it* has converged, and small SVDs replace a large one. With automatic damping,
2-norm clamping or the adaptive step size (the defaults) λ, the clamp of ‖Δθ‖ and the residual
clamps are computed per group, so each group takes other (often larger) steps than the joint
problem would: on a nonlinear problem a group can then reach another local solution, or stall
where the joint solve converges (3 of 60 random bimanual goals, 0.2 m off), and the reverse.
:class:`~pdls_ik.ik.task_solver.TaskSolver` therefore solves the joint problem from the same seed
whenever a group fails and keeps the better of the two: grouping never achieves less than the
joint solve, and costs nothing more when every group succeeds. Variables that no level depends
on belong to no group: they go to the
fixed point of the posture tasks (the weighted mean of their preferred values, where the joint
problem's posture variation converges to), or stay at the seed without posture.

Support is found structurally from the Jacobians at the first seed and at a perturbed seed,
once per solver (the task set and the fixed joints do not change).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik import pdls
from pdls_ik.ik.task_problem import TaskProblem
from pdls_ik.tasks.base import POSTURE, Task

Array = NDArray[np.float64]


class _Restricted(Task):
    """
    A task seen on the variables ``idx`` of a group (others held at ``full``).

    Optionally only some of its rows (separable tasks).
    """

    def __init__(self, task: Task, idx: Array, full: Array, rows: Optional[Array] = None):
        self.inner, self.idx, self.full, self.sel = task, idx, full, rows
        self.name, self.kind, self.priority = task.name, task.kind, task.priority
        self.weight = task.weight
        comp = task.comparison
        self.comparison = None if comp is None or rows is None else np.asarray(comp)[rows]
        if comp is not None and rows is None:
            self.comparison = comp
        self.optional = task.optional
        self.tolerance = task.tolerance

    def __getattr__(self, name):
        return getattr(self.__dict__['inner'], name)

    def residual_error(self, e: Array) -> Tuple[float, bool]:
        """Return the task's own error on all its rows; on some rows, the generic one."""
        return self.inner.residual_error(e) if self.sel is None else super().residual_error(e)

    def level_tolerance(self) -> float:
        return self.inner.level_tolerance()

    @property
    def dim(self) -> int:
        return self.inner.dim if self.sel is None else len(self.sel)

    def _expand(self, theta: Array) -> Array:
        q = self.full.copy()
        q[self.idx] = theta
        return q

    def compute(self, theta: Array):
        e, J = self.inner.compute(self._expand(theta))
        if self.sel is not None:
            e, J = e[self.sel], J[self.sel]
        return e, J[:, self.idx]

    def variation(self, theta: Array) -> Array:
        return self.inner.variation(self._expand(theta))[self.idx]


@dataclass
class SolveGroup:
    """
    One independent problem.

    Its variables (indices into θ) and its (task, rows) pairs, rows None meaning the whole task.
    """

    variables: Array
    tasks: List[Tuple[Task, Optional[Array]]]


def partition(tasks: List[Task], probes: List[Array], free: Array) -> List[SolveGroup]:
    """
    Group the free variables by the task rows that couple them (module docstring).

    :param tasks: all tasks.  probes: configurations θ (n,) at which Jacobians are sampled.
    :param free: (n,) bool, the variables the solver may move.

    :return: The groups, ordered by their smallest variable; variables no level row depends on are
        in no group.
    """
    n = free.size
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    supports = {}
    for task in tasks:
        if task.kind == POSTURE:
            continue
        nz = np.zeros((task.dim, n), dtype=bool)
        for q in probes:
            nz |= task.compute(q)[1] != 0.0
        nz &= free
        supports[id(task)] = nz
        if nz.sum(axis=1).max(initial=0) > 1:        # coupling task: merge its columns
            cols = np.flatnonzero(nz.any(axis=0))
            for c in cols[1:]:
                parent[find(int(c))] = find(int(cols[0]))
    used = np.zeros(n, dtype=bool)
    for nz in supports.values():
        used |= nz.any(axis=0)
    roots = {}
    for v in np.flatnonzero(used):
        roots.setdefault(find(int(v)), []).append(int(v))
    groups = [SolveGroup(np.array(sorted(vs)), []) for _, vs in sorted(roots.items(),
                                                                       key=lambda kv: kv[1][0])]
    where = {v: g for g in groups for v in g.variables}
    for task in tasks:
        if task.kind == POSTURE:
            for g in groups:
                g.tasks.append((task, None))
            continue
        nz = supports[id(task)]
        if not nz.any():
            continue                      # depends on no free variable: nothing to solve
        if nz.sum(axis=1).max() > 1:      # coupling task: whole, in the group of its columns
            where[int(np.flatnonzero(nz.any(axis=0))[0])].tasks.append((task, None))
            continue
        row_groups = [where[int(np.flatnonzero(r)[0])] if r.any() else None for r in nz]
        for g in groups:
            rows = np.array([i for i, rg in enumerate(row_groups) if rg is g], dtype=int)
            if rows.size:
                g.tasks.append((task, None if rows.size == task.dim else rows))
    return groups


class GroupedSolve:
    """
    A :class:`~pdls_ik.ik.task_solver.TaskSolver`'s problem solved group by group.

    The groups (:func:`partition`) and their problems are built at the first solve, from its
    seed, and kept: the task set and the fixed joints of a solver do not change.

    :param solver: the TaskSolver (its tasks, limits, free variables, options, linkage).
    """

    def __init__(self, solver):
        self.solver = solver
        self.groups: Optional[List[SolveGroup]] = None
        self._problems: List[Tuple[TaskProblem, List[_Restricted]]] = []

    def solve(self, theta0: Array) -> Tuple[Array, str, int, int]:
        """
        Solve from θ0 (n,).

        :return: (θ (n,), status, iterations, number of groups): status "converged" when every
            group converged, else the first failing group's status; iterations is the largest
            count of a group (the groups are independent and could run in parallel).
        """
        solver = self.solver
        if self.groups is None:             # structure only: computed once per solver
            rng = np.random.default_rng(0)
            span = np.where(np.isfinite(solver.upper - solver.lower),
                            solver.upper - solver.lower, 1.0)
            probe = np.clip(theta0 + 0.1 * span * rng.uniform(-1.0, 1.0, theta0.size),
                            solver.lower, solver.upper)
            self.groups = partition(solver.tasks, [theta0, probe], solver.free)
            self._problems = [_group_problem(solver, g) for g in self.groups]
        theta = theta0.copy()
        status, iterations = pdls.CONVERGED, 0
        for group, (problem, restricted) in zip(self.groups, self._problems):
            idx = group.variables
            opts = solver.local_options().replace(free_variables=None)
            for task in restricted:
                task.full = theta0          # the other groups' variables (unused by this group)
            res = pdls.solve(problem, theta0[idx], solver.lower[idx], solver.upper[idx], opts)
            theta[idx] = res.theta if res.converged or res.best_theta is None else res.best_theta
            iterations = max(iterations, res.iterations)
            if res.status != pdls.CONVERGED and status == pdls.CONVERGED:
                status = res.status
        _posture_only(solver, self.groups, theta)
        return theta, status, iterations, len(self.groups)


def _group_problem(solver, group: SolveGroup) -> Tuple[TaskProblem, List[_Restricted]]:
    """(problem, restricted tasks) of one group, built once per solver."""
    idx = group.variables
    restricted = [_Restricted(t, idx, np.zeros(solver.n), rows) for t, rows in group.tasks]

    def integrate(th, step):
        full, d = restricted[0].full.copy(), np.zeros(solver.n)
        full[idx], d[idx] = th, step
        return solver.linkage.integrate_theta(full, d)[idx]
    return (TaskProblem.from_tasks(restricted, idx.size, solver.continuous[idx],
                                   integrate if solver.floating else None), restricted)


def _posture_only(solver, groups: List[SolveGroup], theta: Array) -> None:
    """Set the free variables of no group to the posture fixed point Σ wᵢ qᵢ* / Σ wᵢ."""
    postures = [t for t in solver.tasks if t.kind == POSTURE]
    rest = solver.free.copy()
    for g in groups:
        rest[g.variables] = False
    if not postures or not rest.any():
        return
    total = sum(t.weight for t in postures)
    target = sum(t.weight * np.asarray(t.preferred, dtype=float) for t in postures) / total
    theta[rest] = np.clip(target[rest], solver.lower[rest], solver.upper[rest])
