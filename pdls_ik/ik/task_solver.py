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
Multi-task solver: any set of tasks (closures, CoM, frames, bounds...) on any robot.

:class:`~pdls_ik.IKSolver` solves one tip pose with random restarts and tracking; this facade
solves a whole task set from a seed: the tasks are grouped into strict priority levels by
:class:`~pdls_ik.ik.task_levels.LevelStack`
(invariants > locks > targets by priority > posture, the effector ranking of MSim's
``msim.control.Solver``) and handed to :func:`pdls_ik.pdls.solve`. Success is each required task
within its own tolerance (:func:`~pdls_ik.ik.task_problem.task_error`); ``optional`` tasks (soft
limit avoidance) never block success. On a :class:`~pdls_ik.model.floating.FloatingBase`
the step is integrated on the Lie group (as in hpp-constraints' hierarchical Newton solver) and q
has a quaternion (nq = nv + 1).

Fixed joints (``fixed_joints``) are not variables of the solve (tasks keep to what the others
move: :meth:`~pdls_ik.tasks.Task.restricted_to`; the free variables of
hpp-constraints' ``HierarchicalIterative``; in MSim's ``msim.control.Solver`` locked joints
belong to no solver); with ``solve_groups=True`` the variables are split into independent
problems (:mod:`pdls_ik.ik.solve_groups`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik import pdls
from pdls_ik.config import IKConfig
from pdls_ik.ik.solve_groups import GroupedSolve
from pdls_ik.ik.task_problem import pdls_options, TaskProblem
from pdls_ik.model.floating import FloatingBase
from pdls_ik.model.joint_vector import sampling_range, wrap_angle
from pdls_ik.pdls.levels import PreparedLevels
from pdls_ik.tasks.base import Task

Array = NDArray[np.float64]


@dataclass
class TaskResult:
    """
    Outcome of :meth:`TaskSolver.solve`.

    :ivar q: (n,) joint positions (within limits, continuous joints wrapped), or (nq,) for a
        floating base (root position, quaternion x y z w, joints).
    :ivar success: every required task within its tolerance at q.
    :ivar status: "converged" on success; "max_time" when random restarts ran until the timeout
        (the clock ended the search, whatever the best attempt's own status); else the PDLS
        status of the one attempt ("max_iterations", "stalled"...).
    :ivar: iterations, solve_time [s].
    :ivar errors: task name → unweighted error at q (m, rad, or the task's unit).
    :ivar level_names, residual_norms: per PDLS level at the end.
    :ivar groups: number of independent problems solved (1 without solve groups).
    :ivar restarts: local solves restarted from random seeds after a failure.
    """

    q: Array
    success: bool
    status: str
    iterations: int
    solve_time: float
    errors: Dict[str, float] = field(default_factory=dict)
    level_names: List[str] = field(default_factory=list)
    residual_norms: List[float] = field(default_factory=list)
    groups: int = 1
    restarts: int = 0


class TaskSolver:
    """
    Solve a set of tasks on one robot by PDLS from a seed.

    :param linkage: a :class:`~pdls_ik.model.Linkage` or a
        :class:`~pdls_ik.model.floating.FloatingBase`.
    :param tasks: the tasks (any kinds); at least one non-posture task.
    :param config: :class:`IKConfig` for ``max_iterations``, ``max_step``, ``damping``; and
        ``random_restarts``, ``timeout``, ``random_seed``: a solve whose required tasks are not
        all met restarts from random in-limit joint values (the floating root keeps the seed's)
        at least once and until the timeout, and returns the best attempt (as IKSolver: e.g. a
        loop closure started from a stretched, singular configuration).
    :param options: :class:`~pdls_ik.pdls.PDLSOptions` overriding those (e.g. ``limit_strategy``).
    :param fixed_joints: joint names the solver must not move.
    :param solve_groups: split into independent problems when the tasks allow it.

    :raises InputError: no task, or a task whose dimension does not fit.
    :raises JointError: unknown fixed joint.
    """

    def __init__(self, linkage, tasks: Sequence[Task], config: Optional[IKConfig] = None,
                 options: Optional[pdls.PDLSOptions] = None,
                 fixed_joints: Sequence[str] = (), solve_groups: bool = False):
        self.linkage = linkage
        self.tasks = list(tasks)
        self.n = linkage.n
        self.floating = isinstance(linkage, FloatingBase)
        self.lower = np.asarray(linkage.lower, dtype=float)
        self.upper = np.asarray(linkage.upper, dtype=float)
        self.continuous = np.asarray(linkage.continuous, dtype=bool)
        cfg = config if config is not None else IKConfig()
        self.options = options if options is not None else pdls_options(cfg)
        free = np.ones(self.n, dtype=bool)
        for name in fixed_joints:
            free[linkage.joint_index(name)] = False
        self.free = free
        if not free.all():      # self-collision, obstacles: the pairs and links free moves
            self.tasks = [t.restricted_to(free) for t in self.tasks]
        self.problem = TaskProblem.from_tasks(self.tasks, self.n, self.continuous,
                                              linkage.integrate_theta if self.floating else None)
        self.level_names = self.problem.stack.names
        self.solve_groups = bool(solve_groups)
        self._grouped = GroupedSolve(self) if self.solve_groups else None
        self.restart_budget = (cfg.random_restarts, cfg.timeout, cfg.random_seed)
        #: perf_counter time at which the running solve's timeout ends (None: no solve runs)
        self._deadline: Optional[float] = None
        # variables a restart samples: the free joints (the floating root keeps the seed's)
        sampled = free.copy()
        if self.floating:
            sampled[:6] = False
        self._sampled = np.flatnonzero(sampled)

    def _seed(self, seed) -> Array:
        """Solver coordinates θ (n,) of the seed: clipped into limits, angles wrapped."""
        if seed is None:
            q0 = self.linkage.neutral() if self.floating else np.clip(
                np.zeros(self.n), self.lower, self.upper)
        else:
            q0 = seed
        theta = self.linkage.from_q(q0) if self.floating else \
            np.array(self.linkage.check_q(q0), dtype=float)
        theta[self.continuous] = wrap_angle(theta[self.continuous])
        return np.clip(theta, self.lower, self.upper)

    def errors(self, theta: Array) -> Dict[str, Tuple[float, bool]]:
        """Task name → (error, within tolerance) at solver coordinates θ (n,)."""
        return self.problem.task_errors(self.problem.levels(theta))

    def solve(self, seed: Optional[Sequence[float]] = None) -> TaskResult:
        """
        Solve the tasks from ``seed``.

        ``seed`` is q (n,), or (nq,) on a floating base; default zeros clipped into the limits,
        or the floating neutral configuration.

        :return: :class:`TaskResult` (never raises for an unreachable task set: success=False).

        :raises InputError: bad seed; errors raised by tasks for bad configuration (e.g. a look-at
            target at the link origin).
        """
        t0 = time.perf_counter()
        theta0 = self._seed(seed)
        restart, timeout, random_seed = self.restart_budget
        self._deadline = t0 + timeout if timeout is not None else None
        attempt = self._attempt(theta0)
        best, iterations, restarts = attempt, attempt[4], 0
        rng = np.random.default_rng(random_seed) if restart else None
        while not best[1] and restart and (restarts == 0 or
                                           time.perf_counter() - t0 < timeout):
            start = theta0.copy()
            lo, up = self.lower[self._sampled], self.upper[self._sampled]
            start[self._sampled] = rng.uniform(*sampling_range(lo, up))
            attempt = self._attempt(start)
            iterations += attempt[4]
            restarts += 1
            if attempt[1] or attempt[0] < best[0]:
                best = attempt
        self._deadline = None
        _, ok, theta, status, _, ngroups, levels, errs = best
        if not ok and restart:
            status = 'max_time'         # the restarts ended at the timeout: the clock decided
        q = self.linkage.to_q(theta) if self.floating else theta
        return TaskResult(q=q, success=bool(ok),
                          status='converged' if ok else (status if status != 'converged'
                                                         else 'not_converged'),
                          iterations=iterations, solve_time=time.perf_counter() - t0,
                          errors={k: v[0] for k, v in errs.items()},
                          level_names=list(self.level_names),
                          residual_norms=list(PreparedLevels(levels, self.n).norms),
                          groups=ngroups, restarts=restarts)

    def _attempt(self, theta0: Array) -> Tuple:
        """
        One local solve from θ0 (n,), with its verdict.

        Returns (key, success, θ, status, iterations, groups, levels, task errors); key ranks
        failed attempts: per level, the residual norm floored at its tolerance, highest first
        (the best iterate's order of :func:`pdls_ik.pdls.solve`).
        """
        if self._grouped is not None:
            theta, status, iterations, ngroups = self._grouped.solve(theta0)
            grouped = self._verdict(theta, status, iterations, ngroups)
            if grouped[1]:
                return grouped
            # a group failed: its path differs from the joint one (pdls_ik.ik.solve_groups), so
            # the joint problem may still succeed from the same seed; keep the better
            joint = self._verdict(*self._joint_solve(theta0), 1)
            joint = joint[:4] + (joint[4] + iterations,) + joint[5:]
            return joint if joint[1] or joint[0] < grouped[0] else grouped
        return self._verdict(*self._joint_solve(theta0), 1)

    def local_options(self) -> pdls.PDLSOptions:
        """
        Return the next local solve's options: ``max_time`` at most the time left.

        When the options bound local solves by the clock (``max_time`` set, as the IK services
        set it to the timeout), the solve's timeout bounds the whole solve (restarts, groups, the
        joint solve after a grouped one): a restart started just before the end would otherwise
        run a whole ``max_time`` more. Without ``max_time`` a local solve runs to its own end, as
        before. The local solve still makes its ``min_iterations``.
        """
        limit = self.options.max_time
        if self._deadline is None or limit is None:
            return self.options
        return self.options.replace(max_time=min(limit, max(self._deadline - time.perf_counter(),
                                                            1e-9)))

    def _joint_solve(self, theta0: Array) -> Tuple[Array, str, int]:
        """One PDLS solve of the whole problem from θ0: (θ, status, iterations)."""
        opts = self.local_options()
        if not self.free.all():
            opts = opts.replace(free_variables=self.free)
        res = pdls.solve(self.problem, theta0, self.lower, self.upper, opts)
        theta = res.theta if res.converged or res.best_theta is None else res.best_theta
        return theta, res.status, res.iterations

    def _verdict(self, theta: Array, status: str, iterations: int, ngroups: int) -> Tuple:
        """Return the tuple of :meth:`_attempt` for a solved θ (n,)."""
        levels = self.problem.levels(theta)
        errs = self.problem.task_errors(levels)
        ok = all(errs[t.name][1] for t in self.tasks if not t.optional
                 and t.kind != 'posture')
        norms = PreparedLevels(levels, self.n).norms
        key = tuple(max(v, t if t is not None else 1e-10)
                    for v, t in zip(norms, self.problem.tolerances))
        return key, bool(ok), theta, status, iterations, ngroups, levels, errs
