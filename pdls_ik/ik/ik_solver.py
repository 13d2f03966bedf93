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
IK facade: :class:`IKSolver` builds PDLS levels from tasks; one-shot solves and tracking.

One-shot (:meth:`IKSolver.solve`): a local PDLS solve from the seed; when it fails, fresh random
in-limit seeds until the timeout (random restarts, as TRAC-IK does; Beeson & Ames 2015), drawn
from a generator seeded with ``config.random_seed`` so that a solve is reproducible; a revolute
joint may go through a limit onto its image a turn away (:func:`periodic_variables`: clamping
the UR5's elbow at ±π halved the local convergence from random seeds). Tracking
(:meth:`IKSolver.track`): one bounded PDLS cycle warm-started from the current joint state, with
the joint limits narrowed to ``q ± velocity_limit · velocity_scaling · dt`` so that no joint moves
faster than allowed, whatever the goal (no configuration jump, also through singularities); a
goal beyond that box is approached through the pose that the best step inside it predicts.

Success is decided from the forward kinematics of the returned configuration against the goal
and the tolerances, never from the solver's own status alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
import numbers
import operator
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik import pdls
from pdls_ik._accel import available as numba_available, numba_problem
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, InputError, JointError, LinkError
from pdls_ik.ik.pose_loop import pose_loop_unsupported, PoseLoop, STUCK
from pdls_ik.ik.pose_problem import LOCK_TOL, PoseProblem
from pdls_ik.ik.restarts import (CHECK_GOAL, CHECK_SEED, FIRST_SOLVE_MIN_ITERATIONS,
                                 GOAL_UNCHECKED, MAX_SEEDS, RESTART, RESTART_MONITOR,
                                 SEED_BLOCK, seed_order, SeedTable,
                                 USE_START)
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.ik.task_problem import moved_variables, pdls_options, resolve_tasks
from pdls_ik.ik.track_problem import TRACK_MIN_ITERATIONS, TRACK_POSTURE_SHARE, TrackProblem
from pdls_ik.model.joint_vector import check_joint_vector, periodic_variables, wrap_angle
from pdls_ik.pdls.periodic import turn_into_limits
from pdls_ik.tasks import FrameTask, JointLockTask, middle_of_limits, PostureTask

Array = NDArray[np.float64]


@dataclass
class IKResult:
    """
    Outcome of one IK solve or tracking cycle.

    :ivar q: (n,) joint positions in ``joint_names`` order [rad, m], within limits, continuous
        joints wrapped into [-π, π). On failure: the best configuration found.
    :ivar joint_names: the linkage's joint names.
    :ivar success: the forward kinematics of ``q`` meets the goal within both tolerances (and
        locked joints are held).
    :ivar status: "converged" on success, else the PDLS status of the best attempt
        ("stalled", "max_iterations", "max_time", "diverged"), or "not_converged" when
        the PDLS converged short of the goal (a tracking cycle that reached the waypoint
        its velocity box allows, see :meth:`IKSolver.track`).
    :ivar iterations: PDLS iterations over all attempts; restarts: random restarts used.
    :ivar position_error [m], orientation_error [rad]: masked errors of ``q`` (orientation 0 when
        orientation is free).
    :ivar solve_time [s]; notes: repairs of the input (normalized quaternion, clamped seed...).
    :ivar level_names, residual_norms, lambdas, ranks, min_singular_values: per PDLS level, from
        the final iteration of the returned attempt.
    :ivar clamped_joints: names of joints at a position limit in ``q``.
    :ivar task_errors: extra task name -> its unweighted error at ``q`` (m, rad or the task's
        unit; :func:`pdls_ik.ik.task_problem.task_error`); empty without extra tasks.
    """

    q: Array
    joint_names: List[str]
    success: bool
    status: str
    iterations: int = 0
    position_error: float = math.inf
    orientation_error: float = math.inf
    solve_time: float = 0.0
    restarts: int = 0
    notes: List[str] = field(default_factory=list)
    level_names: List[str] = field(default_factory=list)
    residual_norms: List[float] = field(default_factory=list)
    lambdas: List[float] = field(default_factory=list)
    ranks: List[int] = field(default_factory=list)
    min_singular_values: List[float] = field(default_factory=list)
    clamped_joints: List[str] = field(default_factory=list)
    task_errors: Dict[str, float] = field(default_factory=dict)


def _seconds(value, name: str) -> float:
    """Return ``value`` as a float duration [s]; InputError unless a finite real number > 0."""
    if type(value) is float and 0.0 < value < math.inf:       # the common case, 10× faster
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        seconds = float(value)
        if seconds > 0.0 and math.isfinite(seconds):
            return seconds
    raise InputError(f'{name}: {value!r} must be a finite number of seconds > 0')


def _level_metrics(res: 'pdls.PDLSResult') -> Tuple[List, List, List, List]:
    """Per-level (residual norms, λ, ranks, smallest singular values) lists of a PDLS result."""
    return (list(res.residual_norms), [float(x) for x in res.lambdas],
            [int(x) for x in res.ranks], [float(x) for x in res.min_singular_values])


class IKSolver:
    """
    Inverse kinematics of one tip link relative to a base link, by PDLS.

    :param linkage: the robot model (:func:`pdls_ik.model.load_urdf`).
    :param tip_link: controlled link; default ``config.tip_link``.
    :param base_link: frame of the goals; default ``config.base_link``, else the linkage's base.
    :param config: :class:`IKConfig`; ``**options`` override its fields (validated).
    :param extra_tasks: closures, CoM, bounds, look-at, relative-frame, limit-avoidance... tasks
        solved with the tip pose: a sequence of :class:`~pdls_ik.tasks.Task` or a
        :class:`~pdls_ik.ik.task_config.TaskConfig` (built on ``linkage``; its
        ``fixed_joints`` are not moved). Success then also needs every required extra task
        within its own tolerance (:func:`pdls_ik.ik.task_problem.task_error`); the joints they
        move are freed and sampled by the random restarts (e.g. the passive joints of a
        closed chain), but for self-collision and obstacle tasks, which move no joint by
        themselves: they keep to the pairs and links the freed joints move
        (:meth:`~pdls_ik.tasks.Task.restricted_to`). They run on the NumPy backend, but for a lone
        :class:`~pdls_ik.tasks.SelfCollisionTask` on its own level (compiled, one-shot and
        tracking).

    Levels (ranked as MSim's robot PDLS solver ``msim.control.Solver`` ranks its effectors):
    closure invariants (if any) > joint locks (if any) > targets by priority (the pose task at
    ``pose_priority``) > posture (null space of all, Baerlocher & Boulic 2004). Joint limits
    are hard bounds in every iteration.

    Threads: a solver keeps its goal (its FrameTask) and, on the numba backend, the work arrays of
    its compiled kernels between calls; one solver must not solve or track from two threads at
    once (one solver per thread, or per ROS callback group).

    :raises ConfigError: bad option.
    :raises LinkError: unknown tip or base link, or no movable joint between them.
    :raises JointError: a floating/planar joint on the path, a bad lock.
    """

    def __init__(self, linkage, tip_link: Optional[str] = None, base_link: Optional[str] = None,
                 config: Optional[IKConfig] = None, extra_tasks=None, **options):
        cfg = config if config is not None else IKConfig()
        if options:
            cfg = cfg.replace(**options)
        tip = tip_link or cfg.tip_link
        if not tip:
            raise LinkError('', 'no tip link given (tip_link)')
        base = base_link or cfg.base_link or linkage.base_link
        linkage.link_index(base)
        linkage.link_index(tip)
        self.config = cfg = cfg.replace(tip_link=tip, base_link=base)
        self.linkage, self.tip_link, self.base_link = linkage, tip, base
        self.joint_names = list(linkage.joint_names)
        n = self.n = linkage.n
        chain = linkage.chain(tip, base)
        if chain.passive:
            raise JointError(chain.passive[0], f'floating or planar joint on the path from '
                                               f"'{base}' to '{tip}' is not supported by IK")
        self.chain_variables = np.flatnonzero(np.any(chain.select != 0.0, axis=0))
        if self.chain_variables.size == 0:
            raise LinkError(tip, f"no movable joints between base '{base}' and tip '{tip}'")
        self.lower = np.asarray(linkage.lower, dtype=float)
        self.upper = np.asarray(linkage.upper, dtype=float)
        self.continuous = np.asarray(linkage.continuous, dtype=bool)
        self._any_continuous = bool(self.continuous.any())
        self._limit_pairs = list(zip(self.lower.tolist(), self.upper.tolist()))
        self._lower_list, self._upper_list = self.lower.tolist(), self.upper.tolist()
        # a joint within 1e-9 (relative beyond 1) of a limit counts as at the limit
        # (clamped_joints): q <= near_lower or q >= near_upper
        tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(self.lower), self.lower, 0.0)))
        near_lower, near_upper = (self.lower + tol).tolist(), (self.upper - tol).tolist()
        free_orientation = cfg.position_only or cfg.orientation_tolerance >= math.pi
        self.frame = FrameTask(linkage, tip, base, orientation_mask=(0, 0, 0) if
                               free_orientation else (1, 1, 1),
                               position_weight=cfg.position_weight,
                               orientation_weight=cfg.orientation_weight,
                               position_tolerance=cfg.position_tolerance,
                               orientation_tolerance=cfg.orientation_tolerance,
                               priority=cfg.pose_priority, name=f'pose:{tip}')
        tasks = [self.frame]
        self._tolerances = (self.frame.position_tolerance, self.frame.orientation_tolerance)
        self.locks = None
        free = np.zeros(n, dtype=bool)
        free[self.chain_variables] = True
        if cfg.locked_joints:
            self.locks = JointLockTask(linkage, cfg.locked_joints, cfg.locked_positions)
            tasks.append(self.locks)
            self._lock_pairs = list(zip(self.locks.indices.tolist(), self.locks.values.tolist()))
            free[self.locks.indices] = True
        self.posture = None
        if cfg.posture_enabled and cfg.posture_weight > 0.0:
            self.posture = PostureTask(linkage, weight=cfg.posture_weight)
            tasks.append(self.posture)
        extra, fixed = resolve_tasks(linkage, extra_tasks)
        #: the extra tasks (built from ``extra_tasks``)
        self.extra_tasks = extra
        self._sample_variables = self.chain_variables
        if extra:
            # tasks that keep the solve away from something (self-collision, obstacles) move
            # no joint by themselves: they act on what the pose, locks and other tasks free
            moved = moved_variables([t for t in extra if t.frees_joints], self.lower,
                                    self.upper)
            moved[self.chain_variables] = True
            fixed_idx = [linkage.joint_index(j) for j in fixed]
            moved[fixed_idx] = False
            free |= moved
            free[fixed_idx] = False
            self._sample_variables = np.flatnonzero(moved)
            extra = [t.restricted_to(free) for t in extra]
            self.extra_tasks = extra
            tasks.extend(extra)
        self.free = free
        #: (index, joint name, near lower, near upper) of the variables the solver moves
        #: (clamped_joints)
        self._clamp_rows = [(int(i), self.joint_names[i], near_lower[i], near_upper[i])
                            for i in np.flatnonzero(free)]
        #: strict bounds (n,) inside which a q is within the limits and no moved variable is at
        #: one (the fast test of _finish): near a limit for the moved ones, the limit itself
        #: (one float beyond) for the others
        self._inside = (np.where(free, near_lower, np.nextafter(self.lower, -np.inf)).tolist(),
                        np.where(free, near_upper, np.nextafter(self.upper, np.inf)).tolist())
        periodic = periodic_variables(linkage)
        if self.locks is not None:
            periodic[self.locks.indices] = False
        stack = LevelStack(tasks, n)
        level = next(k for k, g in enumerate(stack.groups) if self.frame in g)
        rows = stack.rows[level][stack.groups[level].index(self.frame)]
        self.level_names = stack.names
        #: the restart monitor (:data:`RESTART_MONITOR`, measured on pose goals; with extra
        #: tasks, whose solves slide along their margins, without its window at a limit)
        self._monitor = RESTART_MONITOR if not extra else RESTART_MONITOR[:2] + (0, 1.0)
        watched = free.copy()     # the restart monitor's limits: moved, not locked
        if self.locks is not None:
            watched[self.locks.indices] = False
        self._problem = PoseProblem(stack, self.frame, level, rows, self.locks, self.continuous,
                                    extra=extra, limits=(self.lower, self.upper, watched))
        self._track_problem = TrackProblem(stack, self.frame, level, rows, self.locks,
                                           self.continuous, extra=extra)
        # a one-shot pose solve's automatic damping aims beyond the step clamp
        # (config.damping_target_scale); with extra tasks, as TaskSolver: at the clamp
        self._options = pdls_options(cfg, divergence_check=not extra,  # as TaskSolver with extras
                                     free_variables=None if free.all() else free,
                                     periodic_variables=periodic if periodic.any() else None,
                                     auto_lambda_theta_diff_max_mag_scale=1.0 if extra else
                                     cfg.damping_target_scale)
        self._track_options = self._options.replace(     # a turn is no motion: no periodic
            max_iterations=cfg.tracking_max_iterations, max_time=None, periodic_variables=None,
            auto_lambda_theta_diff_max_mag_scale=1.0)   # a cycle's damping aims at its bound
        self._track_cache: Tuple = (math.nan, None, None, ())
        self._middle = middle_of_limits(self.lower, self.upper)
        self._seed_table = SeedTable(self.lower, self.upper, self._sample_variables,
                                     cfg.random_seed)
        #: the default start of a one-shot solve: the middle of the limits, continuous joints 0
        self._default_start = self._middle.copy()
        self._default_start[self.continuous] = 0.0
        #: tip poses (R, 3, 4) of the ranked restart seeds (:func:`seed_order`), with restarts
        self._seed_tips = self._seed_table.tip_poses(
            lambda q: linkage.forward_kinematics(q, tip, base),
            self._default_start) if cfg.random_restarts else None
        self._kernel = None
        #: whether the one-shot kernel is the plain pose kernel (:meth:`_solve_pose_kernel`)
        self._pose_kernel = False
        self._kernel_flags = USE_START | RESTART if cfg.random_restarts else USE_START
        reason = '' if cfg.backend == 'numpy' else self._numba_unsupported(cfg)
        if cfg.backend == 'numba' and reason:
            raise ConfigError(f"parameter 'backend': 'numba' cannot solve this problem: {reason} "
                              "(backend 'auto' compiles what it can and runs the rest on NumPy)")
        #: the implementation of one-shot solves and tracking cycles: "numpy" or "numba" (see
        #: ``config.backend``)
        self.backend = 'numpy' if cfg.backend == 'numpy' or reason else 'numba'
        #: the NumPy backend's one-shot local solves of a plain pose goal (without the generic
        #: pdls.solve machinery: :mod:`pdls_ik.ik.pose_loop`), None where it does not apply
        self._pose_loop = None
        if self.backend == 'numpy' and not pose_loop_unsupported(
                linkage, tip, base, extra, self.locks, self._options):
            self._pose_loop = PoseLoop(linkage, tip, base, free, self.frame, self._options,
                                       self.continuous)
        #: why the NumPy backend runs although ``config.backend`` is "auto" ("" otherwise)
        self.backend_reason = reason if cfg.backend == 'auto' else ''
        self._track_kernel = None
        if self.backend == 'numba' and extra:      # the self-collision level, compiled
            from pdls_ik._accel.pose_problem_numba import CollisionPoseKernel
            from pdls_ik._accel.track_collision_numba import CollisionTrackKernel
            self._kernel = CollisionPoseKernel(self, periodic, self._monitor,
                                               LOCK_TOL)
            self._track_kernel = CollisionTrackKernel(self, LOCK_TOL)
        elif self.backend == 'numba':
            from pdls_ik._accel.ik_solver_numba import PoseKernel
            from pdls_ik._accel.track_problem_numba import TrackKernel
            self._kernel = PoseKernel(linkage, tip, base, self.chain_variables,
                                      free_orientation, cfg, self._monitor,
                                      free, periodic, self.locks, LOCK_TOL,
                                      goal=self.frame.target_pose, tips=self._seed_tips,
                                      inside=self._inside)
            self._pose_kernel = True
            #: the first block of restart seeds (the table's first rows, drawn now: the same
            #: stream; a later, longer table starts with the same rows)
            self._first_seeds = self._seed_table.rows(SEED_BLOCK)
            self._track_kernel = TrackKernel(linkage, tip, base, free_orientation, cfg, free,
                                             self.locks, self.posture, LOCK_TOL,
                                             goal=self.frame.target_pose)

    def _numba_unsupported(self, cfg: IKConfig) -> str:
        """Why the compiled kernels cannot solve this solver's problem ("" if they can)."""
        if not numba_available():
            return numba_problem()
        if self.extra_tasks:
            from pdls_ik._accel.pose_problem_numba import collision_level_unsupported
            reason = collision_level_unsupported(self)
            if reason:
                return reason
        if self.locks is not None and len(set(self.locks.indices.tolist())) < \
                self.locks.indices.size:
            return 'a joint is locked twice'
        if cfg.limit_strategy != 'clamping':
            return f"limit_strategy '{cfg.limit_strategy}' (the kernel runs the limiting loop)"
        chain = self.linkage.chain(self.tip_link, self.base_link)
        if not chain.base_is_lca and chain.base_motions is not None:
            return (f"the path from '{self.base_link}' to '{self.tip_link}' crosses moving joints "
                    'upward')
        return ''

    # ------------------------------------------------------------------ helpers
    def _check_q(self, q, label: str, notes: List[str], turn: bool = False) -> Array:
        """
        Return q (n,) finite, clamped into limits (noted), continuous joints wrapped.

        ``turn``: the periodic variables outside their limits first take their image a whole
        number of turns away when it is within them (the same pose; noted), as a one-shot seed
        may; a tracking state is clamped (a turn is no motion).
        """
        arr = np.array(check_joint_vector(q, self.joint_names, label))   # a copy of its own
        if self._any_continuous:
            arr[self.continuous] = wrap_angle(arr[self.continuous])
        # the fast path, on Python floats (a NumPy test costs 4× more for a robot arm)
        if all(lo <= v <= hi for v, (lo, hi) in zip(arr.tolist(), self._limit_pairs)):
            return arr
        periodic = self._options.periodic_variables
        if turn and periodic is not None:
            arr, turned = turn_into_limits(arr, self.lower, self.upper, periodic)
            if turned.any():
                names = ', '.join(self.joint_names[i] for i in np.flatnonzero(turned))
                notes.append(f'{label} turned by whole turns into joint limits ({names})')
        outside = np.flatnonzero((arr < self.lower) | (arr > self.upper))
        if outside.size:
            names = ', '.join(self.joint_names[i] for i in outside)
            notes.append(f'{label} clamped into joint limits ({names})')
        return np.clip(arr, self.lower, self.upper)

    def _kernel_vector(self, q, own: bool = True) -> Optional[Array]:
        """
        Return q as a float64 C array (n,), for a kernel's checks, or None.

        ``own``: a copy of its own (for a kernel called through numba's dispatcher, which
        compiles anew for a read-only or strided array); else q itself when it already is such
        an array (for a kernel called through its compiled entry point, which only reads it).
        None when q is not n numbers: :meth:`_check_q` then raises its error.
        """
        try:
            arr = np.array(q, dtype=float) if own else np.ascontiguousarray(q, dtype=float)
        except (TypeError, ValueError):
            return None
        return arr if arr.shape == (self.n,) else None

    def _set_goal(self, target, notes: List[str]) -> None:
        self.frame.set_target(target)
        notes.extend(self.frame.notes)

    def _seed_order(self) -> NDArray[np.int64]:
        """Return the order of the ranked restart seeds for the goal set (:func:`seed_order`)."""
        frame = self.frame
        return seed_order(self._seed_tips, frame.target_pose, frame.position_weight,
                          frame.orientation_weight, not frame.controls_orientation)

    def errors(self, q: Array):
        """
        Return the masked (position [m], orientation [rad]) errors of q (n,) against the goal.

        Computed by forward kinematics.
        """
        return self.frame.errors(self.linkage.forward_kinematics(q, self.tip_link,
                                                                 self.base_link))

    def _errors(self, q: Array) -> Tuple[float, float]:
        """:meth:`errors`, by the compiled kernel once loaded (numba backend)."""
        if self._kernel is not None and self._kernel.ready:
            return self._kernel.errors(q, self.frame)
        return self.errors(q)

    def _finish(self, q: Array, status: str, metrics: Tuple[List, List, List, List],
                iterations: int, restarts: int, t0: float, notes: List[str],
                known: Optional[Tuple] = None, wrapped: bool = False) -> IKResult:
        """
        Build the IKResult of configuration q (n,).

        ``status``: the PDLS status of the attempt that gave q; ``metrics``: its per-level lists
        (residual norms, λ, ranks, smallest singular values). ``known``: (q', position error,
        orientation error) measured at some q' — reused when q is still q' after wrapping,
        clipping and snapping (no second forward kinematics). ``wrapped``: the continuous joints
        of q are already in [-π, π) (the one-shot kernels place every iterate).
        """
        q_in = q
        if self._any_continuous and not wrapped:
            q = q.copy()
            q[self.continuous] = wrap_angle(q[self.continuous])
        values = q.tolist()     # the tests on Python floats: 4× cheaper than NumPy for an arm
        clamped = None
        if all(map(operator.lt, self._inside[0], values)) and \
                all(map(operator.lt, values, self._inside[1])):
            clamped = []        # within the limits, no moved joint at one
        elif not (all(map(operator.le, self._lower_list, values))
                  and all(map(operator.le, values, self._upper_list))):
            q = np.minimum(np.maximum(q, self.lower), self.upper)     # np.clip costs twice that
        if q is not q_in:
            values = q.tolist()
        if self.locks is not None:       # held to rounding: snap exactly onto the lock values
            snap = [(i, v) for i, v in self._lock_pairs
                    if values[i] != v and abs(values[i] - v) <= LOCK_TOL]
            if snap:
                q = q.copy() if q is q_in else q
                clamped = None
                for i, v in snap:
                    q[i] = values[i] = v
        if known is not None and known[0] is q_in and (q is q_in or bool((q == q_in).all())):
            pos, ori = known[1], known[2]
        else:
            pos, ori = self._errors(q)
        ok = pos <= self._tolerances[0] and ori <= self._tolerances[1]
        if ok and self.locks is not None:
            ok = all(abs(values[i] - v) <= LOCK_TOL for i, v in self._lock_pairs)
        task_errors = {}
        if self.extra_tasks:
            errors = self._kernel.task_errors(q, self.frame) if self._kernel is not None \
                else self._problem.errors(q)
            task_errors = {name: err for name, (err, _) in errors.items()}
            ok = ok and all(met for _, met in errors.values())
        if not ok and status == 'converged':
            status = 'not_converged'
        residual_norms, lambdas, ranks, min_singular_values = metrics
        # the fields in their order: the dataclass's __init__ takes them 2× faster than by name
        return IKResult(q, list(self.joint_names), bool(ok), status if not ok else 'converged',
                        iterations, pos, ori, time.perf_counter() - t0, restarts, notes,
                        list(self.level_names), residual_norms, lambdas, ranks,
                        min_singular_values,
                        clamped if clamped is not None else
                        [name for i, name, lo, hi in self._clamp_rows
                         if values[i] <= lo or values[i] >= hi], task_errors)

    # ------------------------------------------------------------------ public API
    def warm_up(self) -> None:
        """
        Load the compiled kernels of the numba backend now (nothing to do on NumPy).

        A kernel is compiled on its first use on a machine (1–2 minutes in all, then cached) and
        loaded from that cache by the first use in a process (about 0.3 s). :meth:`solve` and
        :meth:`track` do it before their clocks start; a node calls this at start so that its
        first goal does not wait.
        """
        if self._kernel is not None:
            self._kernel.load()
        if self._track_kernel is not None:
            self._track_kernel.load()

    @property
    def kernels_compiled(self) -> bool:
        """Whether :meth:`warm_up` has nothing to compile (kernels loaded or in numba's cache)."""
        return all(k is None or k.compiled for k in (self._kernel, self._track_kernel))

    def solve(self, target, seed: Optional[Sequence[float]] = None,
              timeout: Optional[float] = None) -> IKResult:
        """
        One-shot IK: a configuration whose tip pose meets ``target``.

        :param target: goal pose of the tip in the base frame: (4, 4), or (position (3,) [m],
            quaternion (4,) x, y, z, w).
        :param seed: start configuration (n,); default the middle of the joint limits. Values
            outside the limits are clamped (noted in the result).
        :param timeout: time budget [s] including random restarts; default ``config.timeout``.

        :return: :class:`IKResult`; ``success=False`` with the best configuration found when the
            goal is not met in time (never raises for an unreachable goal).

        Determinism: the local solves and their random restart seeds are scheduled by iteration
        counts and ``config.random_seed`` alone; ``timeout`` is only a cap. The same target, seed,
        options and random seed give the same q, bit for bit, whenever the solve ends inside its
        timeout, whatever the machine's load; a solve cut short by the cap says so (status
        "max_time", ``restarts`` done). The first local solve always runs at least
        :data:`FIRST_SOLVE_MIN_ITERATIONS` iterations (unless it ends sooner), however late the
        clock is.

        :raises InputError: NaN/inf in the goal, zero quaternion, bad shapes, bad seed or timeout.

        With the numba backend, the first call of a process first loads the compiled kernel
        (about 0.3 s; about 45 s once per installation, when numba compiles and caches it),
        before the clock of ``timeout`` starts.
        """
        if self._kernel is not None and not self._kernel.ready:
            self._kernel.load()
        t0 = time.perf_counter()
        timeout = self.config.timeout if timeout is None else _seconds(timeout, 'timeout')
        if self._pose_kernel:
            return self._solve_pose_kernel(target, seed, t0, t0 + timeout)
        notes: List[str] = []
        self._set_goal(target, notes)
        if seed is None:
            start = self._default_start.copy()
        else:
            start = self._check_q(seed, 'seed', notes, turn=True)
        deadline = t0 + timeout
        if self._kernel is not None:
            return self._solve_compiled(start, deadline, t0, notes)
        if self._pose_loop is not None:     # no locks, no extra tasks: ranked by the pose
            return self._solve_pose_loop(start, deadline, t0, notes)
        best, best_known, best_score = None, None, (math.inf, math.inf, math.inf)
        iterations = restarts = 0
        q0 = start
        problem = self._problem
        while True:
            remaining = deadline - time.perf_counter()
            opts = self._options.replace(
                max_time=max(remaining, 1e-6),
                min_iterations=FIRST_SOLVE_MIN_ITERATIONS if restarts == 0 else 0)
            if self.config.random_restarts:
                problem.start(*self._monitor)
            res = pdls.solve(problem, q0, self.lower, self.upper, opts)
            if problem.stuck:
                res.status = 'stalled'
            iterations += res.iterations
            q = res.theta if res.converged or res.best_theta is None else res.best_theta
            # the last evaluation's errors when it was at q (no second forward kinematics)
            pos, ori = problem.last_errors if q is problem.last_theta else self.errors(q)
            # attempts ranked by their locks (held first), their unmet extra tasks, the pose
            score = (0.0 if problem.locks_held_at(q) else 1.0,
                     problem.violation_at(q) if self.extra_tasks else 0.0,
                     math.hypot(pos * self.frame.position_weight,
                                ori * self.frame.orientation_weight))
            if score < best_score or best is None:
                best, best_known, best_score = res, (q, pos, ori), score
            if (res.converged and not problem.stuck) or not self.config.random_restarts:
                break
            if time.perf_counter() >= deadline:         # cut short by the cap: say so
                best.status = 'max_time'
                break
            if restarts == 0:
                order = self._seed_order()
            q0 = self._seed_table.seed(restarts, start, order)
            restarts += 1
        return self._finish(best_known[0], best.status, _level_metrics(best), iterations,
                            restarts, t0, notes, best_known)

    def _solve_pose_loop(self, start: Array, deadline: float, t0: float,
                         notes: List[str]) -> IKResult:
        """
        :meth:`solve` on the NumPy backend for a plain pose goal (:mod:`pdls_ik.ik.pose_loop`).

        The same local solves, restart monitor and restart seeds as the generic loop of
        :meth:`solve`, each attempt ranked by its weighted pose error.
        """
        loop, frame = self._pose_loop, self.frame
        restart = self.config.random_restarts
        loop.start(*(self._monitor if restart else ()))
        wp, wo = frame.position_weight, frame.orientation_weight
        best, best_score = None, math.inf
        iterations = restarts = 0
        q0 = start
        while True:
            res = loop.solve(q0, deadline, FIRST_SOLVE_MIN_ITERATIONS if restarts == 0 else 0)
            iterations += res.iterations
            if res.status == STUCK:
                res.status = 'stalled'
            score = math.hypot(res.position_error * wp, res.orientation_error * wo)
            if best is None or score < best_score:
                best, best_score = res, score
            if res.status == 'converged' or not restart:
                break
            if time.perf_counter() >= deadline:         # cut short by the cap: say so
                best.status = 'max_time'
                break
            if restarts == 0:
                order = self._seed_order()
            q0 = self._seed_table.seed(restarts, start, order)
            restarts += 1
        metrics = (best.residual_norms, best.lambdas, best.ranks, best.min_singular_values)
        return self._finish(best.q, best.status, metrics, iterations, restarts, t0, notes,
                            (best.q, best.position_error, best.orientation_error))

    def _solve_pose_kernel(self, target, seed, t0: float, deadline: float) -> IKResult:
        """
        :meth:`solve` on the compiled pose kernel (:mod:`pdls_ik._accel.ik_solver_numba`).

        A (4, 4) goal array and the seed go to the kernel as they are (float64 C arrays, copied
        only if they are not: the kernel reads them): it takes them when they pass the checks
        of :meth:`_set_goal` and :meth:`_check_q` with nothing to repair or note (the same
        values); otherwise (the (position, quaternion) form, an error to raise, a repair to
        note) those parse them here. The same local solves, restart monitor and restart seeds
        as :meth:`_solve_compiled`.
        """
        kernel, n = self._kernel, self.n
        notes: List[str] = []
        flags = self._kernel_flags
        goal = None
        if type(target) is np.ndarray and target.shape == (4, 4):
            try:
                goal = np.ascontiguousarray(target, dtype=float)
                flags |= CHECK_GOAL
            except (TypeError, ValueError):
                pass
        if goal is None:
            self._set_goal(target, notes)
            goal = self.frame.target_pose
        if seed is None:
            start = self._default_start
        else:
            start = self._kernel_vector(seed, own=False)
            if start is None:
                start = self._check_q(seed, 'seed', notes, turn=True)
            else:
                flags |= CHECK_SEED
        best = None                     # (q, status, metrics list) of the best call
        iterations = restarts = first = 0
        seeds = self._first_seeds
        min_iterations = FIRST_SOLVE_MIN_ITERATIONS
        while True:
            q = np.empty(n)
            status, its, runs = kernel.solve(goal, start, first, seeds, deadline, min_iterations,
                                             flags, q)
            if status.__class__ is int:         # a check left the goal or the seed to us
                if status == GOAL_UNCHECKED:
                    self._set_goal(target, notes)
                    flags &= ~CHECK_GOAL
                else:
                    start = self._check_q(seed, 'seed', notes, turn=True)
                    flags &= ~CHECK_SEED
                continue
            iterations += its
            restarts += runs
            m = kernel.metrics.tolist()
            if best is None or kernel.score(m) < kernel.score(best[2]):
                best = (q, status, m)
            if status == 'converged' or not flags & RESTART:
                break
            if time.perf_counter() >= deadline:         # cut short by the cap: say so
                best = (best[0], 'max_time', best[2])
                break
            flags &= ~USE_START
            min_iterations = 0
            first = restarts % MAX_SEEDS
            seeds = self._seed_table.rows(first + SEED_BLOCK)
        if flags & CHECK_GOAL:
            self.frame.notes = []               # the goal was taken as it is
        q, status, m = best
        level, pos, ori, inside = kernel.outcome(m)
        if inside and self.locks is None:
            # in the limits and at none (the test of _finish, in the kernel), continuous joints
            # wrapped (the kernel places every iterate), the errors those of the kernel's
            # convergence test (the same tolerances): _finish's result, without its repairs
            return IKResult(q, list(self.joint_names), status == 'converged', status, iterations,
                            pos, ori, time.perf_counter() - t0, restarts, notes,
                            list(self.level_names), *level, [], {})
        return self._finish(q, status, level, iterations, restarts, t0, notes, (q, pos, ori),
                            wrapped=True)

    def _solve_compiled(self, start: Array, deadline: float, t0: float,
                        notes: List[str]) -> IKResult:
        """
        :meth:`solve` on the compiled kernel (:mod:`pdls_ik._accel.ik_solver_numba`).

        the same local solves, restart monitor and restart seeds, run in blocks of the seed table.
        """
        kernel, frame = self._kernel, self.frame
        restart = self.config.random_restarts
        order = self._seed_order() if restart else None
        best = None
        iterations = restarts = 0
        while True:
            first = restarts % MAX_SEEDS
            seeds = self._seed_table.rows(first + SEED_BLOCK, order)
            attempt = kernel.solve(frame, start, best is None, first, seeds, deadline,
                                   FIRST_SOLVE_MIN_ITERATIONS if best is None else 0, restart)
            iterations += attempt.iterations
            restarts += attempt.restarts
            if best is None or attempt.score < best.score:
                best = attempt
            if attempt.status == 'converged' or not restart:
                break
            if time.perf_counter() >= deadline:         # cut short by the cap: say so
                best = best._replace(status='max_time')
                break
        return self._finish(best.q, best.status, best.metrics, iterations, restarts, t0, notes,
                            (best.q, best.position_error, best.orientation_error), wrapped=True)

    def track(self, target, q_current: Sequence[float], dt: float) -> IKResult:
        """
        One tracking cycle toward ``target`` from ``q_current`` (n,), for a period dt [s].

        Warm-started, no restarts. Bounds of one cycle:

        * velocity: every joint moves by at most ``velocity_limit · velocity_scaling · dt``
          (URDF limits; joints without a velocity limit are bounded by their position limits
          only). These per-cycle bounds are the PDLS limits, so the limiting loop keeps them
          and the pose task is served by the other joints first; the automatic damping aims
          at the norm of that bound (``theta_diff_max_mag``), which keeps the step smooth near
          a singularity instead of saturating every joint (Baerlocher 2001);
        * reach: when the undamped step to the goal leaves that box, the cycle aims instead at
          the pose predicted by the box-constrained least-squares step (projected
          Gauss–Seidel), which it reaches within the box to first order; the posture then
          rests. A far goal is approached with the error falling cycle after cycle, and a
          cycle's result does not depend on how many iterations it ran beyond
          ``TRACK_MIN_ITERATIONS`` (so neither on the machine's load);
        * iterations: ``config.tracking_max_iterations``, the primary budget;
        * time: ``config.tracking_timeout`` [s], a safety net checked between iterations and
          only after ``TRACK_MIN_ITERATIONS`` iterations, so that a cycle delayed by a loaded
          machine still makes progress (its status is then "max_time").

        The posture (if enabled) takes one null-space step per cycle, at most
        ``TRACK_POSTURE_SHARE`` of each joint's velocity bound. On the numba backend the cycle
        runs compiled (:mod:`pdls_ik._accel.track_problem_numba`, the same cycle to rounding).

        :return: :class:`IKResult`: ``success`` tells whether the goal was reached within tolerance
            in this cycle; otherwise ``q`` is the best iterate of the cycle (the arm lags: goal
            beyond the velocity bound or a joint limit, or a budget ran out; see ``status`` and
            ``clamped_joints``).

        :raises InputError: bad goal, q_current of the wrong length or non-finite, dt <= 0.
        """
        if self._track_kernel is not None:
            self._track_kernel.load()
        t0 = time.perf_counter()
        dt = _seconds(dt, 'dt')
        if self._pose_kernel:
            return self._track_pose_kernel(target, q_current, dt, t0)
        notes: List[str] = []
        self._set_goal(target, notes)
        q = self._check_q(q_current, 'q_current', notes)
        reach, opts, aim = self._track_bounds(dt)
        if self._track_kernel is not None:      # the box: the limits and q ± reach
            q_out, status, metrics, iterations, pos, ori = self._track_kernel.cycle(
                self.frame, q, reach, TRACK_POSTURE_SHARE, opts.theta_diff_max_mag,
                TRACK_MIN_ITERATIONS, t0 + self.config.tracking_timeout)
            return self._finish(q_out, status, metrics, iterations, 0, t0, notes,
                                (q_out, pos, ori))
        lo = np.maximum(self.lower, q - reach)
        up = np.minimum(self.upper, q + reach)
        problem = self._track_problem
        problem.begin(reach, t0 + self.config.tracking_timeout)
        lo, up = problem.aim(q, self.lower, self.upper, lo, up, self.free, *aim)
        res = pdls.solve(problem, q, lo, up, opts)
        if problem.timed_out:
            res.status = 'max_time'
        q_out = res.theta if res.converged or res.best_theta is None else res.best_theta
        # the last convergence test's errors when it was at q_out against the goal itself
        known = (q_out, *problem.last_errors) if q_out is problem.last_theta and \
            problem.shift is None else None
        return self._finish(q_out, res.status, _level_metrics(res), res.iterations, 0, t0, notes,
                            known)

    def _track_pose_kernel(self, target, q_current, dt: float, t0: float) -> IKResult:
        """
        :meth:`track` on the compiled tracking kernel of a plain pose (``TrackKernel``).

        A (position, quaternion) goal and q_current go to the kernel as float arrays: it takes
        them when they pass the checks of :meth:`_set_goal` and :meth:`_check_q` with nothing
        to raise, repair or note (the same values); otherwise those parse them here.
        """
        kernel = self._track_kernel
        notes: List[str] = []
        flags = 0
        goal = (None, None)
        if isinstance(target, (tuple, list)) and len(target) == 2:
            try:        # float C arrays of their own: the types the kernel is compiled for
                goal = (np.array(target[0], dtype=float), np.array(target[1], dtype=float))
            except (TypeError, ValueError):
                pass
            if goal[0] is not None and goal[0].shape == (3,) and goal[1].shape == (4,):
                flags |= CHECK_GOAL
        if not flags & CHECK_GOAL:
            self._set_goal(target, notes)
        q = self._kernel_vector(q_current)
        if q is None:
            q = self._check_q(q_current, 'q_current', notes)
        else:
            flags |= CHECK_SEED
        reach, opts, _ = self._track_bounds(dt)
        while True:
            q_out, status, metrics, iterations, pos, ori = kernel.cycle(
                self.frame, q, reach, TRACK_POSTURE_SHARE, opts.theta_diff_max_mag,
                TRACK_MIN_ITERATIONS, t0 + self.config.tracking_timeout, goal, flags)
            if q_out is not None:
                break
            if status == GOAL_UNCHECKED:        # a check left the goal or q_current to us
                self._set_goal(target, notes)
                flags &= ~CHECK_GOAL
            else:
                q = self._check_q(q_current, 'q_current', notes)
                flags &= ~CHECK_SEED
        if flags & CHECK_GOAL:
            self.frame.notes = []               # the goal was taken as it is
        return self._finish(q_out, status, metrics, iterations, 0, t0, notes, (q_out, pos, ori))

    def _track_bounds(self, dt: float) -> Tuple[Array, 'pdls.PDLSOptions', Tuple]:
        """
        Return the per-joint reach (n,) [rad or m] in dt and the PDLS options of a cycle.

        Also the two option sets of :meth:`~pdls_ik.ik.track_problem.TrackProblem.aim`
        (undamped; undamped and box-constrained by projected Gauss–Seidel), cached per dt.
        """
        if self._track_cache[0] != dt:
            vmax = np.asarray(self.linkage.velocity_limits, dtype=float) * \
                self.config.velocity_scaling
            reach = np.where(np.isfinite(vmax) & (vmax > 0.0), vmax * dt, np.inf)
            finite = reach[self.free & np.isfinite(reach)]
            step = min(self.config.max_step, float(np.sqrt(finite.dot(finite)))) if \
                finite.size else self.config.max_step
            opts = self._track_options.replace(theta_diff_max_mag=step)
            undamped = opts.replace(theta_diff_clamping=False, damping=0.0)
            self._track_cache = (dt, reach, opts,
                                 (undamped, undamped.replace(limit_strategy='pgs_weighted')))
        return self._track_cache[1:]
