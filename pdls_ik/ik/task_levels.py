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
Assign tasks to strict PDLS priority levels.

The ranking of task kinds follows the effector hierarchy of the robot PDLS solver of Marsette
Vona's MSim (``msim.control.Solver``), built on Baerlocher & Boulic 2004.

Order, highest first:

0. chain-closure invariants — one level for all tasks of kind ``"invariant"``
   (:class:`~pdls_ik.tasks.ClosureTask`), above everything else;
1. joint limits — not a level: the PDLS limiting loop enforces them as hard bounds on θ;
2. joint locks — one level for all :class:`~pdls_ik.tasks.JointLockTask`;
3. targets — one level per distinct integer ``priority`` (smaller first); tasks sharing a
   priority share a level, their rows stacked;
4. posture — the sum of the :class:`~pdls_ik.tasks.PostureTask` variations of the lowest
   posture priority (the largest ``priority`` value among them) is the PDLS posture variation,
   projected into the null space left by every level. Posture tasks of a higher posture
   priority are ranked strictly above it, as MSim ranks its posture effectors by priority: one
   level per distinct priority (after every target), rows ``w (q* − q)`` with J = w I. With one
   posture priority (the usual case) every posture task is in the variation, summed.

A task with inequality rows (:attr:`Task.comparison`) passes its comparison types on to its level
(PDLS inequality rows: a row takes part only while violated).

:class:`LevelStack` groups the tasks once; each evaluation at θ only computes the tasks and stacks
their rows (task dimensions are fixed).
"""
from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.pdls import Level
from pdls_ik.tasks.base import KIND_ORDER, POSTURE, TARGET, Task

Array = NDArray[np.float64]


def variation_postures(tasks: Sequence[Task]) -> List[Task]:
    """Return the posture tasks of the lowest posture priority (summed into the variation)."""
    postures = [t for t in tasks if t.kind == POSTURE]
    if not postures:
        return []
    last = max(t.priority for t in postures)
    return [t for t in postures if t.priority == last]


def assign_levels(tasks: Sequence[Task]) -> List[List[Task]]:
    """Group the tasks into priority levels, highest first (see module doc)."""
    groups = {}
    in_variation = {id(t) for t in variation_postures(tasks)}
    for task in tasks:
        if task.kind not in KIND_ORDER:
            raise InputError(f"task '{task.name}': unknown kind '{task.kind}'")
        if id(task) in in_variation:
            continue
        key = (KIND_ORDER[task.kind], task.priority if task.kind in (TARGET, POSTURE) else 0)
        groups.setdefault(key, []).append(task)
    return [groups[k] for k in sorted(groups)]


def level_name(group: Sequence[Task]) -> str:
    """Name of a level: its tasks' names joined by '+'."""
    return '+'.join(t.name for t in group)


class LevelStack:
    """
    Callable PDLS problem built from tasks: ``stack(theta) -> list[Level]``.

    :param tasks: every task (locks, targets, postures), any order.
    :param n: number of variables.

    :ivar groups: the tasks of each level, highest first.  names: level names.
    :ivar postures: the posture tasks of the lowest posture priority (summed into
        :meth:`posture_variation`); posture tasks ranked above them are levels.
    """

    def __init__(self, tasks: Sequence[Task], n: int):
        self.tasks = list(tasks)
        self.n = n
        self.groups = assign_levels(self.tasks)
        if not self.groups:
            raise InputError('no task to solve: give at least one lock or target task')
        self.postures = variation_postures(self.tasks)
        self.names = [level_name(g) for g in self.groups]
        #: per level, per task: the slice of the level's rows that belongs to the task
        self.rows = []
        for group in self.groups:
            sizes = np.cumsum([0] + [t.dim for t in group])
            self.rows.append([slice(int(a), int(b)) for a, b in zip(sizes[:-1], sizes[1:])])
        #: per level: the stacked row comparison types, or None when every row is an equality
        self.comparisons = []
        for group in self.groups:
            if all(t.comparison is None for t in group):
                self.comparisons.append(None)
            else:
                self.comparisons.append(np.concatenate(
                    [np.zeros(t.dim, dtype=int) if t.comparison is None else
                     np.asarray(t.comparison, dtype=int) for t in group]))

    def __call__(self, theta: Array) -> List[Level]:
        """Evaluate every level at θ (n,): residuals (m_k,) and Jacobians (m_k, n), new arrays."""
        levels = []
        for group, name, rows, comp in zip(self.groups, self.names, self.rows,
                                           self.comparisons):
            if len(group) == 1:
                e, J = group[0].compute(theta)
            else:
                m = rows[-1].stop
                e, J = np.empty(m), np.empty((m, self.n))
                for task, sl in zip(group, rows):
                    e[sl], J[sl] = task.compute(theta)
            levels.append(Level(e, J, comparison=comp, name=name))
        return levels

    levels = __call__

    def posture_variation(self, theta: Array) -> Optional[Array]:
        """Sum of the posture tasks' variations (n,), or None without posture task."""
        if not self.postures:
            return None
        out = self.postures[0].variation(theta)
        for task in self.postures[1:]:
            out = out + task.variation(theta)
        return out
