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
:func:`pdls_ik.pdls.solve`, and the base of :class:`~pdls_ik.ik.pose_problem.PoseProblem`, the
problem of an :class:`~pdls_ik.ik.IKSolver`. :func:`task_error` and :func:`level_tolerance`
define when a task is met, for every solver. The extra tasks of an IKSolver (closures, CoM,
bounds... beside its tip pose) join the tip pose task in one
:class:`~pdls_ik.ik.task_levels.LevelStack` (invariants > locks > targets by priority > posture,
as MSim's ``msim.control.Solver`` ranks its effectors); the problem counts them: it knows where
their rows are and tells whether each required one is within its own tolerance.
:func:`moved_variables` finds the joints the tasks move (freed for the solver and sampled by
random restarts: e.g. the passive joints of a closed chain, off the tip chain).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import NDArray
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, InputError, JointError, PDLSIKError
from pdls_ik.ik.task_config import TaskConfig
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.model.joint_vector import sampling_range, wrap_angle
from pdls_ik.pdls import Level, PDLSOptions, PDLSProblem
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
    """(error, within tolerance) of ``task`` from its weighted rows e (m,): its residual_error."""
    return task.residual_error(e)


def level_tolerance(task: Task) -> float:
    """Return the weighted residual norm below which ``task`` is surely met (its own)."""
    return task.level_tolerance()


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
    lo, hi = sampling_range(lower, upper)
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


def pdls_options(config: IKConfig, divergence_check: bool = False, **changes) -> PDLSOptions:
    """
    Build the PDLS options of a solver from an :class:`IKConfig`: iterations, step, damping.

    Written once for :class:`~pdls_ik.ik.task_solver.TaskSolver` and
    :class:`~pdls_ik.ik.IKSolver`. ``changes`` override any field.

    The divergence check is off unless ``divergence_check`` (IKSolver without extra tasks): with
    a nonlinear constraint on a high level (a loop closure, a foot), every step of a lower level
    raises that level's residual at second order (from 1e-17 to 1e-2 for a 0.5 rad crank step),
    which the next Newton step removes; treating it as divergence would revert every step. The
    adaptive step size still bounds the steps.
    """
    damping = None if config.damping < 0.0 else config.damping
    fields = {'max_iterations': config.max_iterations, 'damping': damping,
              'theta_diff_max_mag': config.max_step, 'limit_strategy': config.limit_strategy}
    if not divergence_check:
        fields['divergence_factor'] = None
    fields.update(changes)
    return PDLSOptions(**fields)


def required(task: Task) -> bool:
    """Whether success needs ``task`` within its tolerance (not posture, not optional)."""
    return task.kind != POSTURE and not task.optional


class TaskProblem(PDLSProblem):
    """
    The PDLS problem of a stack of tasks: levels with their tolerances, success, hooks.

    :param stack: the :class:`~pdls_ik.ik.task_levels.LevelStack` of every task.
    :param continuous: (n,) bool, the continuous joints (wrapped into [-π, π) after each update).
    :param counted: the tasks whose tolerances decide success (default: every task of the
        stack; the extra tasks of an :class:`~pdls_ik.ik.IKSolver`, beside its tip pose). With
        none, the levels carry no tolerance.
    :param integrate: Lie-group step ``integrate(theta, step)`` (a floating base), or None.

    :ivar tasks: the counted tasks.
    :ivar tolerances: per level, the weighted residual norm below which its tasks are met
        (:func:`level_tolerance`; None where no task constrains), set on the levels by
        :meth:`levels` so that the best iterate of a failed solve is ranked level by level
        against them; None without counted tasks.
    """

    def __init__(self, stack: LevelStack, continuous: Array,
                 counted: Optional[Sequence[Task]] = None, integrate=None):
        self.stack = stack
        self.continuous = np.asarray(continuous, dtype=bool)
        self.tasks = list(stack.tasks if counted is None else counted)
        #: (task, level, rows) of every counted task, and of those success needs
        self._rows = [(task, k, sl) for k, (group, slices) in
                      enumerate(zip(stack.groups, stack.rows))
                      for task, sl in zip(group, slices) if any(task is t for t in self.tasks)]
        self._required_rows = [row for row in self._rows if required(row[0])]
        self.tolerances = None
        if self.tasks:
            tolerances = [min(level_tolerance(t) for t in group) for group in stack.groups]
            self.tolerances = [None if np.isinf(t) else float(t) for t in tolerances]
        self._integrate = integrate

    @classmethod
    def from_tasks(cls, tasks: Sequence[Task], n: int, continuous: Array,
                   integrate=None) -> 'TaskProblem':
        """Return the problem of ``tasks`` on n variables, every task counted."""
        return cls(LevelStack(tasks, n), continuous, integrate=integrate)

    def levels(self, theta: Array) -> List[Level]:
        """Evaluate the stack at θ (n,), each level with its tolerance (:attr:`tolerances`)."""
        levels = self.stack(theta)
        if self.tolerances is not None:
            for level, tol in zip(levels, self.tolerances):
                level.tolerance = tol
        return levels

    @property
    def posture_variation(self):
        """Return the posture variation hook of :func:`pdls_ik.pdls.solve` (None: none)."""
        return self.stack.posture_variation if self.stack.postures else None

    @property
    def normalize(self):
        """Return the hook wrapping the continuous joints (None: none to wrap)."""
        return self._wrapped if self.continuous.any() else None

    @property
    def integrate(self):
        """Return the Lie-group step hook of :func:`pdls_ik.pdls.solve` (None: θ + step)."""
        return self._integrate

    def _wrapped(self, theta: Array) -> Array:
        theta = theta.copy()
        theta[self.continuous] = wrap_angle(theta[self.continuous])
        return theta

    def converged(self, theta: Array, levels) -> bool:
        """Whether every required counted task is within its tolerance (:meth:`met`)."""
        return self.met(levels)

    def met(self, levels: Sequence[Level]) -> bool:
        """Whether every required counted task is within its tolerance in evaluated levels."""
        return all(task_error(task, levels[k].residual[sl])[1]
                   for task, k, sl in self._required_rows)

    def violation(self, levels: Sequence[Level]) -> float:
        """Weighted size of the unmet required counted tasks in evaluated levels (0 when met)."""
        total = 0.0
        for task, k, sl in self._required_rows:
            err, ok = task_error(task, levels[k].residual[sl])
            if not ok:
                total += err * task.weight
        return total

    def task_errors(self, levels) -> Dict[str, Tuple[float, bool]]:
        """Task name → (error, within tolerance) of every counted task from evaluated levels."""
        return {task.name: task_error(task, levels[k].residual[sl])
                for task, k, sl in self._rows}

    def _evaluate(self, q: Array) -> List[Tuple[Task, float, bool]]:
        """(task, unweighted error, met) of every non-posture counted task at q (n,)."""
        out = []
        for task in self.tasks:
            if task.kind != POSTURE:
                err, ok = task_error(task, task.compute(q)[0])
                out.append((task, err, ok or not required(task)))
        return out

    def errors(self, q: Array) -> Dict[str, Tuple[float, bool]]:
        """Task name → (unweighted error, met) of every counted task at q (n,) but postures."""
        return {task.name: (err, ok) for task, err, ok in self._evaluate(q)}

    def violation_at(self, q: Array) -> float:
        """Weighted size of the unmet required counted tasks at q (n,) (0 when all are met)."""
        return sum(err * task.weight for task, err, ok in self._evaluate(q) if not ok)
