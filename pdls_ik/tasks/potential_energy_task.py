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
Potential-energy task: quasi-static minimization of gravitational and elastic potential.

The potential-energy effector of MSim's robot PDLS solver (``msim.control.Solver``: one row for
the total potential energy of the system, minimized as a priority level). The potential at q
[J]::

    U(q) = M |g| h(q)  +  ½ Σ_j k_j (q_j − r_j)²

with M the total mass [kg], g the gravity vector in the base frame [m/s²], h(q) = −ĝ · c(q) the
height of the centre of mass c(q) above the base along −g [m] (gravitational potential is one
row through the CoM Jacobian J_c, :class:`~pdls_ik.model.com.CenterOfMass`), and optional joint
springs of stiffness k_j [N·m/rad or N/m] at rest values r_j. The row::

    J = w ∇U(q)ᵀ = w (M |g| (−ĝ)ᵀ J_c(q) + (k ∘ (q − r))ᵀ)        (1, n)
    e = −w ‖∇U(q)‖² / κ                                              [J]

asks for the energy decrease of a gradient step of length ‖∇U‖/κ: alone, the PDLS step is
Δθ = −∇U / κ, steepest descent with κ ≥ the curvature of U (default M |g| R + max k, R the
largest distance of a link's CoM from the base, which bounds the second derivatives of M|g|h),
and within the null space of the levels above it descends what they leave. The residual
vanishes exactly at a static equilibrium (∇U = 0 on the moving joints) instead of at an
arbitrary zero of U: MSim's literal row (e = −U) asks to remove the whole potential in one
step, so its steps depend on where U is zero. The task is *optional* (never required for
success, like the soft limit margins); in a :class:`~pdls_ik.ik.task_solver.TaskSolver` it shapes
the redundant motion while the required tasks iterate; to settle a robot quasi-statically,
solve its levels with :func:`pdls_ik.pdls.solve` (the residual then meets ``tolerance``).
MSim ranks potential effectors above the soft goals; here it is a target task with a priority
like any other, default 1: below the default targets (priority 0), above the posture; give
priority -1 to rank it above them as MSim does.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.model.com import CenterOfMass
from pdls_ik.tasks.base import Array, check_weight, TARGET, Task
from pdls_ik.tasks.com_task import point3

#: standard gravity in the base frame [m/s²], z up
STANDARD_GRAVITY = (0.0, 0.0, -9.80665)


class PotentialEnergyTask(Task):
    """
    Minimize the robot's potential energy (gravity on the CoM, optional joint springs): one row.

    :param linkage: a :class:`~pdls_ik.model.Linkage` with inertials (URDF ``<inertial>``).
    :param gravity: g (3,) [m/s²] in the base frame; zero for springs only.
    :param stiffness: k (n,) [N·m/rad or N/m] per joint, or None (no springs).
    :param rest: r (n,) spring rest values; default the middle of the limits (0 if unbounded).
    :param curvature: κ [J/rad², J/m²]; default M |g| R + max k (module docstring).
    :param: weight [1/J], tolerance [J] (on the unweighted residual ‖∇U‖²/κ), priority
        (default 1), name.

    :raises URDFError: gravity is set and the robot has no inertials (names the robot).
    :raises InputError: bad gravity, stiffness, rest or curvature.
    """

    kind = TARGET
    optional = True

    def __init__(self, linkage, gravity: Sequence[float] = STANDARD_GRAVITY,
                 stiffness: Optional[Sequence[float]] = None,
                 rest: Optional[Sequence[float]] = None, curvature: Optional[float] = None,
                 weight: float = 1.0, tolerance: float = 1e-9, priority: int = 1,
                 name: str = 'potential'):
        super().__init__(name, weight, priority)
        self.n = linkage.n
        g = point3(gravity, f"task '{name}' gravity")
        self.g_norm = float(np.linalg.norm(g))
        self.up = -g / self.g_norm if self.g_norm > 0.0 else np.zeros(3)
        self.k = np.zeros(self.n) if stiffness is None else self._vector(stiffness, 'stiffness')
        if np.any(self.k < 0.0):
            raise InputError(f"task '{name}' stiffness: expected values >= 0")
        if self.g_norm == 0.0 and not self.k.any():
            raise InputError(f"task '{name}': no gravity and no stiffness, nothing to minimize")
        lower, upper = np.asarray(linkage.lower, float), np.asarray(linkage.upper, float)
        finite = np.isfinite(lower) & np.isfinite(upper)
        middle = np.where(finite, 0.5 * (np.where(finite, lower, 0) + np.where(finite, upper, 0)),
                          0.0)
        self.rest = middle if rest is None else self._vector(rest, 'rest')
        self.mass = 0.0
        self._com = None
        if self.g_norm > 0.0:
            self._com = CenterOfMass(linkage)
            self._base = linkage.base_link
            self.mass = float(self._com.total_mass)
        if curvature is None:             # every link CoM lies within reach + its offset
            radius = max((linkage.reach(link) + float(np.linalg.norm(
                getattr(linkage.inertials.get(link), 'origin', np.eye(4))[:3, 3]))
                for link in linkage.link_names), default=0.0)
            curvature = self.mass * self.g_norm * radius + float(self.k.max(initial=0.0))
        self.curvature = check_weight(curvature, f"task '{name}' curvature")
        self.tolerance = float(tolerance)
        if not (np.isfinite(self.tolerance) and self.tolerance >= 0.0):
            raise InputError(f"task '{name}' tolerance: expected a finite number >= 0")

    def _vector(self, value, label: str) -> Array:
        v = np.asarray(value, dtype=float).reshape(-1)
        if v.shape != (self.n,) or not np.all(np.isfinite(v)):
            raise InputError(f"task '{self.name}' {label}: expected {self.n} finite values")
        return v

    @property
    def dim(self) -> int:
        return 1

    def energy_and_gradient(self, q: Array) -> Tuple[float, Array]:
        """Return U(q) [J] (CoM height measured from the base) and ∇U(q) (n,)."""
        d = q - self.rest
        energy = 0.5 * float(np.dot(self.k * d, d))
        grad = self.k * d
        if self._com is not None:
            c, Jc = self._com.position_and_jacobian(q, self._base)
            scale = self.mass * self.g_norm
            energy += scale * float(self.up @ c)
            grad = grad + scale * (self.up @ Jc)
        return energy, grad

    def compute(self, q: Array) -> Tuple[Array, Array]:
        _, grad = self.energy_and_gradient(q)
        return (np.array([-self.weight * float(grad @ grad) / self.curvature]),
                self.weight * grad[None, :])
