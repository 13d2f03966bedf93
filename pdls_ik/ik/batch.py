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
Many IK problems in one call: :func:`solve_batch`, damped least squares vectorized over N goals.

Every problem asks for a configuration q (n,) whose tip pose meets a goal (4, 4) in the base
frame, from its own seed. The N problems share the work of each iteration: the joint transforms
of all problems come from one batched product, the prefix products and Jacobians from stacked
(N, ·, ·) arrays, and the damped least-squares steps from one stacked 6 × 6 solve:

    e   = [p* − p(q);  log(R* R(q)ᵀ)]                       (6,)  pose residual, base frame
    μ   = damping · ½‖e‖² + min_damping                     error-based damping (Chan & Lawrence
    Δq  = Jᵀ (J Jᵀ + μ I₆)⁻¹ e                              1988; Sugihara 2011, IEEE T-RO 27(5))

The dual 6 × 6 form equals the Levenberg–Marquardt step (JᵀJ + μ I)⁻¹ Jᵀ e. Joint limits are
hard: a variable the step would push out of [lower, upper] is held at the limit it reaches, its
column removed and the step recomputed with that motion compensated (one pass of the PDLS
limiting loop, Baerlocher & Boulic 2004, §4); θ is then clipped into the limits.

Revolute joints go through their limits as in :meth:`pdls_ik.IKSolver.solve` (the periodic
variables of :func:`pdls_ik.model.joint_vector.periodic_variables`): such a joint that the step
takes beyond a limit is not held there when θ + 2πk lies within the limits for some integer k,
and θ takes that image, the same pose (:func:`pdls_ik.pdls.periodic.turn_into_limits`): the
UR5's ±2π joints and its elbow at ±π no longer stop a turn short of the goal. Seeds are placed
the same way.

A problem whose local solve does not converge within ``max_iterations`` (or stops improving)
restarts from a random in-limit seed, up to ``max_restarts`` times, as
:meth:`pdls_ik.IKSolver.solve` does.

Success is decided exactly as by :class:`pdls_ik.IKSolver`: the forward kinematics of the returned
q (continuous joints wrapped into [-π, π), clipped into limits) is within ``position_tolerance``
[m] and ``orientation_tolerance`` [rad] of the goal.

Backends: ``"numpy"`` (the reference, vectorized over problems) and ``"numba"`` (the same
iteration compiled per problem by :mod:`pdls_ik._accel`, used when numba is importable).

Self-collision (``self_collision`` / ``collision_model``): the solutions are checked against the
collision model all at once (:func:`pdls_ik.model.collision_batch.pair_distances_many`); a
success with a link pair closer than ``d_min`` is solved again by the one-shot
:class:`~pdls_ik.ik.IKSolver` with the self-collision level above the pose
(:class:`~pdls_ik.tasks.SelfCollisionTask`, position form), starting from that solution and
then from random seeds within ``collision_timeout``; one still colliding (or not solved) is a
failure. ``BatchResult.min_distance`` gives each answer's closest pair distance.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Optional, Union

import numpy as np
from numpy.typing import NDArray
from pdls_ik._accel import available as numba_available
from pdls_ik.config import IKConfig
from pdls_ik.errors import InputError
from pdls_ik.ik.ik_solver import IKSolver
from pdls_ik.lie.so3 import rotation_logs
from pdls_ik.model.chain_arrays import ChainArrays
from pdls_ik.model.collision import collision_model as load_collision_model, CollisionModel
from pdls_ik.model.collision_batch import min_distances
from pdls_ik.model.joint_vector import wrap_angle
from pdls_ik.pdls.periodic import turn_into_limits
from pdls_ik.tasks import SelfCollisionTask

Array = NDArray[np.float64]
#: a local solve restarts when ½‖e‖² fell by less than this factor over STALL_WINDOW iterations
STALL_WINDOW, STALL_RATIO = 5, 0.9
#: problems solved together by the NumPy backend (larger stacks fall out of the CPU caches)
CHUNK = 1024
#: a checked pair counts as apart when d ≥ d_min − this [m] (the level's tolerance)
COLLISION_SLACK = 1e-6


@dataclass
class BatchResult:
    """
    Outcome of :func:`solve_batch` for N problems.

    :ivar q: (N, n) joint positions [rad, m] within limits, continuous joints wrapped.
    :ivar success: (N,) goal met within both tolerances (checked by forward kinematics).
    :ivar position_error: (N,) [m]; orientation_error: (N,) [rad], at ``q``.
    :ivar iterations: (N,) iterations over all attempts; restarts: (N,) random restarts used.
    :ivar backend: "numpy" or "numba".
    :ivar min_distance: (N,) closest link-pair distance [m] at ``q``, with a collision model
        (else None); pair: (N,) index of that pair in the model's ``pairs`` (-1: none).
    :ivar resolved: (N,) problems solved again with the self-collision level (their batch
        answer was in collision), with a collision model (else None).
    """

    q: Array
    success: NDArray[np.bool_]
    position_error: Array
    orientation_error: Array
    iterations: NDArray[np.int64]
    restarts: NDArray[np.int64]
    backend: str
    min_distance: Optional[Array] = None
    pair: Optional[NDArray[np.int64]] = None
    resolved: Optional[NDArray[np.bool_]] = None


def pose_residuals(T: Array, targets: Array) -> Array:
    """
    Residuals (N, 6): position p* − p [m] then rotation vector log(R* Rᵀ) [rad], base frame.

    Closed-form SO(3) logarithm (:func:`pdls_ik.lie.so3.rotation_logs`).
    """
    e = np.empty((T.shape[0], 6))
    e[:, :3] = targets[:, :3, 3] - T[:, :3, 3]
    e[:, 3:] = rotation_logs(targets[:, :3, :3] @ np.swapaxes(T[:, :3, :3], 1, 2))
    return e


def _errors(e: Array):
    return (np.sqrt(np.einsum('Ni,Ni->N', e[:, :3], e[:, :3])),
            np.sqrt(np.einsum('Ni,Ni->N', e[:, 3:], e[:, 3:])))


def turn_rows(t: Array, lower: Array, upper: Array, periodic: NDArray[np.bool_]):
    """
    :func:`pdls_ik.pdls.periodic.turn_into_limits` of every row of t (N, n) [rad, m].

    :param lower, upper: (n,) limits; periodic: (n,) bool.
    :return: (t' (N, n), turned (N, n) bool): the periodic values outside the limits that have an
        image t + 2πk within them take it; t itself when nothing turns.
    """
    shape = t.shape
    flat, turned = turn_into_limits(t.reshape(-1), np.broadcast_to(lower, shape).reshape(-1),
                                    np.broadcast_to(upper, shape).reshape(-1),
                                    np.broadcast_to(periodic, shape).reshape(-1))
    return flat.reshape(shape), turned.reshape(shape)


def _step(J: Array, e: Array, q: Array, lower: Array, upper: Array,
          periodic: NDArray[np.bool_], damping: float, min_damping: float) -> Array:
    """
    Damped least-squares steps (N, n) with one limiting pass (module docstring).

    A periodic variable whose q + Δq has an image within the limits is not held at the limit.
    """
    mu = damping * 0.5 * np.einsum('Ni,Ni->N', e, e) + min_damping
    eye = np.eye(6)
    dq = dls_rows(J, e, mu, eye)
    new = q + dq
    over, under = new > upper, new < lower
    if periodic.any() and (over.any() or under.any()):
        turned = turn_rows(new, lower, upper, periodic)[1]
        over &= ~turned
        under &= ~turned
    hit = over | under
    rows = hit.any(axis=1)
    if rows.any():
        fixed = np.where(over, upper - q, np.where(under, lower - q, 0.0))[rows]
        Jr = J[rows] * ~hit[rows][:, None, :]
        er = e[rows] - (J[rows] @ fixed[:, :, None])[:, :, 0]
        dq[rows] = fixed + dls_rows(Jr, er, mu[rows], eye) * ~hit[rows]
    return dq


def dls_rows(J: Array, e: Array, mu: Array, eye: Array) -> Array:
    """Jᵀ (J Jᵀ + μ I)⁻¹ e for stacked J (N, 6, n), e (N, 6), μ (N,)."""
    A = J @ np.swapaxes(J, 1, 2) + mu[:, None, None] * eye
    return (np.linalg.solve(A, e[:, :, None]).transpose(0, 2, 1) @ J)[:, 0]


def _solve_numpy(ch: ChainArrays, targets, q, tol_p, tol_o, max_iterations, max_restarts,
                 damping, min_damping, rng):
    N = q.shape[0]
    iterations = np.zeros(N, dtype=np.int64)
    restarts = np.zeros(N, dtype=np.int64)
    local = np.zeros(N, dtype=np.int64)
    history = np.full((N, STALL_WINDOW), np.inf)
    active = np.arange(N)
    while active.size:
        qa = q[active]
        T, J = ch.pose_and_jacobian(qa)
        e = pose_residuals(T, targets[active])
        pos, ori = _errors(e)
        done = (pos <= tol_p) & (ori <= tol_o)
        merit = 0.5 * np.einsum('Ni,Ni->N', e, e)
        slot = local[active] % STALL_WINDOW
        stalled = (local[active] >= STALL_WINDOW) & \
            (merit > STALL_RATIO * history[active, slot])
        history[active, slot] = merit
        restart = ~done & (stalled | (local[active] >= max_iterations))
        out = restart & (restarts[active] >= max_restarts)
        done |= out
        restart &= ~out
        if restart.any():
            idx = active[restart]
            fresh = rng.uniform(ch.sample_lo, ch.sample_hi, size=(idx.size, ch.n))
            q[idx] = np.where(ch.free, fresh, q[idx])
            restarts[idx] += 1
            local[idx] = 0
            history[idx] = np.inf
        move = ~done & ~restart
        if move.any():
            idx = active[move]
            dq = _step(J[move], e[move], qa[move], ch.lower, ch.upper, ch.periodic, damping,
                       min_damping)
            new = turn_rows(qa[move] + dq, ch.lower, ch.upper, ch.periodic)[0]
            q[idx] = np.clip(new, ch.lower, ch.upper)
            iterations[idx] += 1
            local[idx] += 1
        active = active[~done]
    return q, iterations, restarts


def check_solutions(ch: ChainArrays, q: Array, targets: Array):
    """
    Wrap continuous joints, clip into limits, and measure the errors by forward kinematics.

    Returns (q (N, n), position_error (N,) [m], orientation_error (N,) [rad]).
    """
    q = q.copy()
    q[:, ch.continuous] = wrap_angle(q[:, ch.continuous])
    q = np.clip(q, ch.lower, ch.upper)
    T, _ = ch.pose_and_jacobian(q)
    pos, ori = _errors(pose_residuals(T, targets))
    return q, pos, ori


def solve_batch(linkage, tip: str, targets, seeds=None, base: Optional[str] = None,
                **options) -> BatchResult:
    """
    Solve N pose-IK problems of one chain together (see the module docstring).

    :param linkage: the robot model (:func:`pdls_ik.load_urdf`).
    :param tip: controlled link; base: frame of the goals (default the linkage's base link), an
        ancestor of the tip or joined to it by fixed joints only.
    :param targets: (N, 4, 4) goal poses of the tip in the base frame [m].
    :param seeds: (N, n) start configurations (periodic joints turned onto an image within their
        limits when one exists, then clipped into the limits), or None for the middle of the
        limits (0 for continuous joints).
    :param **options: the keyword arguments of :class:`BatchSolver`.

    :return: :class:`BatchResult`.

    :raises InputError: bad shapes, non-finite values, unknown backend or bad numbers.
    :raises LinkError: unknown links, or a path the batch kernels do not cover.
    """
    return BatchSolver(linkage, tip, base, **options).solve(targets, seeds)


class BatchSolver:
    """
    :func:`solve_batch` with the chain prepared once, for repeated calls.

    :param linkage, tip, base: as :func:`solve_batch`.
    :param position_tolerance [m], orientation_tolerance [rad]: success thresholds (as IKSolver).
    :param max_iterations: iterations of one local solve before a random restart.
    :param max_restarts: random restarts per problem.
    :param damping, min_damping: μ = damping · ½‖e‖² + min_damping [residual units²].
    :param random_seed: seed of the restart generator (reproducible results).
    :param backend: "numpy", "numba", or "auto" (numba when importable, else numpy).
    :param self_collision: True, or a :class:`~pdls_ik.model.collision.CollisionModel`: answers
        keep every checked link pair ``d_min`` [m] apart (module docstring); True builds the
        model of :func:`~pdls_ik.model.collision.collision_model` (``collision_model``: a
        capsule YAML or bundled robot name, implies ``self_collision``).
    :param collision_timeout: [s] budget of each collision re-solve (its answer is a function
        of its inputs and ``random_seed`` when it ends within it).

    :raises ConfigError: no collision model can be built (named).
    """

    def __init__(self, linkage, tip: str, base: Optional[str] = None, *,
                 position_tolerance: float = 1e-5, orientation_tolerance: float = 1e-4,
                 max_iterations: int = 30, max_restarts: int = 100, damping: float = 0.1,
                 min_damping: float = 1e-9, random_seed: int = 0, backend: str = 'auto',
                 self_collision: Union[bool, CollisionModel] = False,
                 collision_model: Optional[str] = None, d_min: float = 0.01,
                 collision_timeout: float = 0.1):
        self.chain = ChainArrays(linkage, tip, base)
        self.joint_names = list(linkage.joint_names)
        for name, value in (('position_tolerance', position_tolerance),
                            ('orientation_tolerance', orientation_tolerance),
                            ('damping', damping), ('min_damping', min_damping)):
            if not (math.isfinite(value) and value >= 0.0):
                raise InputError(f'{name}: {value!r} must be a finite number >= 0')
        if int(max_iterations) < 1 or int(max_restarts) < 0:
            raise InputError(f'max_iterations ({max_iterations}) must be >= 1 and max_restarts '
                             f'({max_restarts}) >= 0')
        if backend == 'auto':
            backend = 'numba' if numba_available() else 'numpy'
        if backend not in ('numpy', 'numba'):
            raise InputError(f"backend: '{backend}' is not one of auto, numpy, numba")
        self.backend = backend
        self.tolerances = (float(position_tolerance), float(orientation_tolerance))
        self.budget = (int(max_iterations), int(max_restarts))
        self.damping = (float(damping), float(min_damping))
        self.random_seed = int(random_seed)
        #: the collision model of the check, or None
        self.collision: Optional[CollisionModel] = None
        self._resolver: Optional[IKSolver] = None
        if isinstance(self_collision, CollisionModel):
            self.collision = self_collision
        elif self_collision or collision_model is not None:
            self.collision = load_collision_model(linkage, collision_model)
        if self.collision is not None:
            self.d_min = float(d_min)
            task = SelfCollisionTask(linkage, self.collision, d_min=self.d_min,
                                     activation_distance=max(0.1, self.d_min + 0.05))
            config = IKConfig(position_tolerance=max(position_tolerance, 1e-12),
                              orientation_tolerance=max(orientation_tolerance, 1e-12),
                              timeout=collision_timeout, random_seed=self.random_seed,
                              backend='numpy')
            self._resolver = IKSolver(linkage, tip, base, config=config, extra_tasks=[task])

    def _collision_free(self, T: Array, q: Array, success, pos: Array, ori: Array):
        """
        Check the answers q (N, n) against the collision model; re-solve the colliding successes.

        Updates q, success, pos, ori in place; returns (min distance (N,), pair (N,),
        resolved (N,)).
        """
        dist, pair = min_distances(self.collision, q)
        resolved = success & (dist < self.d_min - COLLISION_SLACK)
        for i in np.flatnonzero(resolved):
            res = self._resolver.solve(T[i], seed=q[i])
            q[i], pos[i], ori[i] = res.q, res.position_error, res.orientation_error
            success[i] = res.success
        if resolved.any():
            dist[resolved], pair[resolved] = min_distances(self.collision, q[resolved])
        success &= dist >= self.d_min - COLLISION_SLACK
        return dist, pair, resolved

    def _start(self, seeds, N: int) -> Array:
        ch = self.chain
        if seeds is None:
            mid = np.where(np.isfinite(ch.lower) & np.isfinite(ch.upper),
                           0.5 * (ch.sample_lo + ch.sample_hi), 0.0)
            return np.tile(mid, (N, 1))
        q = np.array(seeds, dtype=float)
        if q.shape != (N, ch.n):
            raise InputError(f'seeds: expected shape ({N}, {ch.n}) (one row per target, '
                             f"joints {', '.join(self.joint_names)}), got {q.shape}")
        if not np.isfinite(q).all():
            raise InputError(f'seeds: row {int(np.argwhere(~np.isfinite(q))[0, 0])} has a '
                             'non-finite value')
        return np.clip(turn_rows(q, ch.lower, ch.upper, ch.periodic)[0], ch.lower, ch.upper)

    def solve(self, targets, seeds=None) -> BatchResult:
        """
        Solve the problems of targets (N, 4, 4) from seeds (N, n) or the middle of the limits.

        :raises InputError: bad shapes or non-finite values, naming the problem row.
        """
        ch = self.chain
        T = np.asarray(targets, dtype=float)
        if T.ndim != 3 or T.shape[1:] != (4, 4):
            raise InputError(f'targets: expected shape (N, 4, 4), got {T.shape}')
        if not np.isfinite(T).all():
            raise InputError(f'targets: problem {int(np.argwhere(~np.isfinite(T))[0, 0])} has '
                             'a non-finite value')
        q = self._start(seeds, T.shape[0])
        args = self.tolerances + self.budget + self.damping
        if self.backend == 'numba':
            from pdls_ik._accel.batch_numba import solve_many
            q, iterations, restarts, pos, ori = solve_many(ch, T, q, *args, self.random_seed)
        else:
            rng = np.random.default_rng(self.random_seed)
            iterations = np.zeros(len(q), dtype=np.int64)
            restarts = np.zeros(len(q), dtype=np.int64)
            for lo in range(0, len(q), CHUNK):  # blocks that stay in cache
                hi = lo + CHUNK
                q[lo:hi], iterations[lo:hi], restarts[lo:hi] = _solve_numpy(
                    ch, T[lo:hi], q[lo:hi], *args, rng)
            q, pos, ori = check_solutions(ch, q, T)
        success = (pos <= self.tolerances[0]) & (ori <= self.tolerances[1])
        if self.collision is None:
            return BatchResult(q, success, pos, ori, iterations, restarts, self.backend)
        dist, pair, resolved = self._collision_free(T, q, success, pos, ori)
        return BatchResult(q, success, pos, ori, iterations, restarts, self.backend, dist, pair,
                           resolved)
