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
The PDLS problem of a set of tasks: levels, task errors and tolerances, convergence.

:class:`TaskProblem` is the problem :class:`~pdls_ik.ik.task_solver.TaskSolver` hands to
:func:`pdls_ik.pdls.solve`; :func:`task_error` and :func:`level_tolerance` define when a task is
met, for every solver. Extra tasks of an :class:`~pdls_ik.ik.IKSolver` (closures, CoM,
bounds... beside its tip pose) use the same definitions: they join the tip pose task in one
:class:`~pdls_ik.ik.task_levels.LevelStack` (invariants > locks > targets by priority > posture,
as MSim's ``msim.control.Solver`` ranks its effectors). :class:`ExtraTasks` knows where their
rows are and tells whether each required task is within its own tolerance (:func:`task_error`,
:func:`level_tolerance`).
:func:`moved_variables` finds the joints the tasks move (freed for the solver and sampled by
random restarts: e.g. the passive joints of a closed chain, off the tip chain).
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple, Union

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import ConfigError, InputError, JointError, PDLSIKError
from pdls_ik.ik.task_config import TaskConfig
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.model.joint_vector import wrap_angle
from pdls_ik.pdls import GREATER_EQUAL, LESS_EQUAL, Level
from pdls_ik.tasks.base import POSTURE, Task

Array = NDArray[np.float64]
#: TaskConfig keys that only :class:`~pdls_ik.ik.task_solver.TaskSolver` honours, with the value
#: that means "not used"
_TASK_SOLVER_ONLY = (('floating_base', False), ('solve_groups', False),
                     ('limit_strategy', 'clamping'))
#: random configurations (besides the middle of the limits) at which the Jacobian columns of a
#: task are inspected by :func:`moved_variables`
_SAMPLES = 2


def task_error(task: Task, e: Array) -> Tuple[float, bool]:
    """
    (error, within tolerance) of a task from its weighted residual rows e (m,).

    The error is unweighted, in the task's unit: for a frame task the larger of the position
    [m] and orientation [rad] errors (each tested against its own tolerance); for a task with
    inequality rows the largest violation; for a closure the larger of its position and
    orientation errors; otherwise the residual norm. Tasks without a ``tolerance`` attribute use
    1e-6.
    """
    if hasattr(task, 'errors_from_residual'):                 # FrameTask and relatives
        pos, ori = task.errors_from_residual(e)
        return max(pos, ori), (pos <= task.position_tolerance
                               and ori <= task.orientation_tolerance)
    tol = getattr(task, 'tolerance', 1e-6)
    w = task.weight
    if task.comparison is not None:
        comp = np.asarray(task.comparison)
        viol = np.where(comp == LESS_EQUAL, np.maximum(e, 0.0),
                        np.where(comp == GREATER_EQUAL, np.maximum(-e, 0.0), np.abs(e)))
        err = float(viol.max(initial=0.0)) / w
    elif getattr(task, 'kind', None) == 'invariant' and e.size == 6:
        err = max(float(np.linalg.norm(e[:3])), float(np.linalg.norm(e[3:]))) / w
    else:
        err = float(np.linalg.norm(e)) / w
    return err, err <= tol


def level_tolerance(task: Task) -> float:
    """
    Return the weighted residual norm below which ``task`` is surely met.

    That is its tightest row tolerance times its weight; optional tasks never constrain: inf.
    """
    if getattr(task, 'optional', False):
        return float('inf')
    if hasattr(task, 'position_tolerance'):
        return min(task.position_tolerance * task.position_weight,
                   getattr(task, 'orientation_tolerance', np.inf) *
                   getattr(task, 'orientation_weight', 1.0))
    return getattr(task, 'tolerance', 1e-6) * task.weight


class TaskProblem:
    """
    The PDLS problem of a task set on n variables (levels, posture, convergence, integration).

    :param tasks: the tasks; n: number of variables; continuous: (n,) bool (wrapped angles);
    :param integrate: optional Lie-group step ``integrate(theta, step)``.
    """

    def __init__(self, tasks: Sequence[Task], n: int, continuous: Array, integrate=None):
        self.stack = LevelStack(tasks, n)
        #: per level, the residual norm below which its tasks are met (smallest weighted task
        #: tolerance): the lexicographic "best θ" of a failed solve is judged against these
        self.tolerances = [min(level_tolerance(t) for t in group) for group in self.stack.groups]
        self.tolerances = [None if np.isinf(t) else t for t in self.tolerances]
        self.posture_variation = self.stack.posture_variation if self.stack.postures else None
        self.continuous = np.asarray(continuous, dtype=bool)
        if integrate is not None:
            self.integrate = integrate
        self._rows = [(task, k, sl) for k, (group, rows) in
                      enumerate(zip(self.stack.groups, self.stack.rows))
                      for task, sl in zip(group, rows)]

    def levels(self, theta: Array):
        """Return the stacked levels at θ, each with its tolerance (see :attr:`tolerances`)."""
        levels = self.stack(theta)
        for level, tol in zip(levels, self.tolerances):
            level.tolerance = tol
        return levels

    def task_errors(self, levels) -> Dict[str, Tuple[float, bool]]:
        """Task name → (error, within tolerance) from evaluated levels."""
        return {task.name: task_error(task, levels[k].residual[sl])
                for task, k, sl in self._rows}

    def converged(self, theta: Array, levels) -> bool:
        return all(task_error(task, levels[k].residual[sl])[1] for task, k, sl in self._rows
                   if not getattr(task, 'optional', False))

    def normalize(self, theta: Array) -> Array:
        if not self.continuous.any():
            return theta
        theta = theta.copy()
        theta[self.continuous] = wrap_angle(theta[self.continuous])
        return theta


def resolve_tasks(linkage, extra_tasks: Union[None, TaskConfig, Sequence[Task]]
                  ) -> Tuple[List[Task], List[str]]:
    """
    Return (tasks, fixed joint names) of ``extra_tasks`` on ``linkage``.

    :param extra_tasks: None, a sequence of :class:`~pdls_ik.tasks.Task`, or a
        :class:`~pdls_ik.ik.task_config.TaskConfig` (built here: closures first, then its tasks;
        its ``fixed_joints`` are returned).

    :raises ConfigError: a TaskConfig key that IKSolver does not support (``floating_base``,
        ``solve_groups``, ``limit_strategy`` other than the default: use TaskSolver, or the
        solver parameter ``limit_strategy``), an unknown fixed joint, or an entry its task
        rejects (named by its key, e.g. ``closures[0]``).
    :raises InputError: an element of the sequence that is not a Task.
    """
    if extra_tasks is None:
        return [], []
    if isinstance(extra_tasks, TaskConfig):
        for key, unused in _TASK_SOLVER_ONLY:
            value = getattr(extra_tasks, key)
            if value != unused:
                raise ConfigError(f'{key}: {value!r} is not supported with a tip pose task '
                                  '(IKSolver); leave it out (limit_strategy: set the solver '
                                  "parameter 'limit_strategy'), or use TaskSolver")
        for name in extra_tasks.fixed_joints:
            try:
                linkage.joint_index(name)
            except JointError as err:
                raise ConfigError(f'fixed_joints: {err}') from None
        return extra_tasks.build(linkage), list(extra_tasks.fixed_joints)
    tasks = list(extra_tasks)
    for i, task in enumerate(tasks):
        if not isinstance(task, Task):
            raise InputError(f'extra_tasks[{i}]: expected a Task, got {type(task).__name__}')
    return tasks, []


def moved_variables(tasks: Sequence[Task], lower: Array, upper: Array) -> NDArray[np.bool_]:
    """
    Return the (n,) mask of the variables whose Jacobian columns are not zero in some task.

    Posture tasks are left out (they move nothing by themselves). The columns are inspected at
    the middle of the limits and at ``_SAMPLES`` random in-limit configurations (a fixed
    generator: the same mask every time), so that a column zero at one configuration only
    (a singularity) still counts. A configuration where a task cannot be evaluated (a look-at
    target at the link origin) is skipped.

    :raises ConfigError: a task that cannot be evaluated at any of those configurations.
    """
    lo = np.where(np.isfinite(lower), lower, -np.pi)
    hi = np.where(np.isfinite(upper), upper, np.pi)
    rng = np.random.default_rng(0)
    samples = [0.5 * (lo + hi)] + [rng.uniform(lo, hi) for _ in range(_SAMPLES)]
    moved = np.zeros(lower.size, dtype=bool)
    for task in tasks:
        if task.kind == POSTURE:
            continue
        error = None
        evaluated = False
        for q in samples:
            try:
                _, J = task.compute(q)
            except PDLSIKError as err:
                error = err
                continue
            evaluated = True
            moved |= np.any(J != 0.0, axis=0)
        if not evaluated:
            raise ConfigError(f"task '{task.name}': cannot be evaluated: {error}")
    return moved


def required(task: Task) -> bool:
    """Whether success needs ``task`` within its tolerance (not posture, not optional)."""
    return task.kind != POSTURE and not getattr(task, 'optional', False)


class ExtraTasks:
    """
    The extra tasks' rows in a LevelStack, their level tolerances and their success test.

    :param tasks: the extra tasks (all in ``stack``).
    :param stack: the solver's LevelStack.

    :ivar tolerances: per level, the weighted residual norm below which its tasks are met
        (:func:`~pdls_ik.ik.task_solver.level_tolerance`; None where no task constrains), set on
        the levels by :meth:`levels` so that the best iterate of a failed solve is ranked level
        by level against them.
    """

    def __init__(self, tasks: Sequence[Task], stack: LevelStack):
        self.tasks = list(tasks)
        self.stack = stack
        rows = []
        for k, (group, slices) in enumerate(zip(stack.groups, stack.rows)):
            for task, sl in zip(group, slices):
                if any(task is t for t in self.tasks) and required(task):
                    rows.append((task, k, sl))
        self._rows = rows
        tolerances = [min(level_tolerance(t) for t in group) for group in stack.groups]
        self.tolerances = [None if np.isinf(t) else float(t) for t in tolerances]

    def levels(self, theta: Array) -> List[Level]:
        """Evaluate the stack at θ (n,), each level with its tolerance."""
        levels = self.stack(theta)
        for level, tol in zip(levels, self.tolerances):
            level.tolerance = tol
        return levels

    def met(self, levels: Sequence[Level]) -> bool:
        """Whether every required extra task is within its tolerance in evaluated levels."""
        return all(task_error(task, levels[k].residual[sl])[1] for task, k, sl in self._rows)

    def violation(self, levels: Sequence[Level]) -> float:
        """Weighted size of the unmet required extra tasks in evaluated levels (0 when met)."""
        total = 0.0
        for task, k, sl in self._rows:
            err, ok = task_error(task, levels[k].residual[sl])
            if not ok:
                total += err * task.weight
        return total

    def _evaluate(self, q: Array) -> List[Tuple[Task, float, bool]]:
        """(task, unweighted error, met) of every non-posture extra task at q (n,)."""
        out = []
        for task in self.tasks:
            if task.kind != POSTURE:
                err, ok = task_error(task, task.compute(q)[0])
                out.append((task, err, ok or not required(task)))
        return out

    def errors(self, q: Array) -> Dict[str, Tuple[float, bool]]:
        """Task name → (unweighted error, met) of every extra task at q (n,) but postures."""
        return {task.name: (err, ok) for task, err, ok in self._evaluate(q)}

    def violation_at(self, q: Array) -> float:
        """Weighted size of the unmet required extra tasks at q (n,) (0 when all are met)."""
        return sum(err * task.weight for task, err, ok in self._evaluate(q) if not ok)
