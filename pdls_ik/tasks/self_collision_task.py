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
Self-collision task: the checked link pairs keep at least ``d_min`` apart (inequality rows).

One row per pair of the :class:`~pdls_ik.model.collision.CollisionModel` (d the pair's distance,
∂d/∂q its analytic gradient, w the weight):

- d < ``activation_distance``: ``e = w (d_min − d) · (1 if d < d_min else γ)``,
  ``J = w ∂d/∂q``, ``LESS_EQUAL``: the row is satisfied (inactive) while d ≥ d_min, and the
  PDLS step activates it when its linearized motion would bring d below ``d_min − e/w`` —
  i.e. it allows ``Δd ≥ −γ (d − d_min)``, and pushes back by ``d_min − d`` when violated;
- d ≥ ``activation_distance``: a satisfied row with a zero Jacobian (never active).

γ = 1 (default) is the position form for one-shot solves: a step may bring a pair right onto
``d_min``. γ < 1 is the velocity damper of Faverjon & Tournassoud (1987, "A local based approach
for path planning of manipulators with a high number of degrees of freedom", ICRA):
``ḋ ≥ −ξ (d − d_s) / (d_i − d_s)`` with d_i the activation distance and d_s = ``d_min``; over a
step of Δt, γ = ξ Δt / (d_i − d_s) (:func:`damper_gain`). Each solver iteration then approaches
the bound by at most the fraction γ of the remaining gap, so that a streamed goal slows the arm
before contact instead of stopping it dead. The bound holds for the linearized step: sliding
along the margin, one step's second-order term can take a pair below ``d_min`` by a little
(about 1 mm at 0.5 m/s, 100 Hz on the Panda; the position form dips 3 mm there), pushed back at
the next step. ``margin`` takes that into account: the rows hold d ≥ ``d_min + margin`` while
the task is met (and ``violation`` measured) at ``d_min`` (tracking sets 2 mm,
:data:`TRACKING_MARGIN`).

Its kind is ``target`` with priority −1 by default: a level of its own above the pose task
(priority 0) and below locks and closures, so the effector gets as close to its goal as the
robot's own body allows, with no weight deciding between the two (Kanoun, Lamiraux & Wieber 2011
for inequality tasks in a priority hierarchy).
"""
from __future__ import annotations

import copy
from typing import Optional, Tuple

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.model.collision import CollisionModel
from pdls_ik.pdls import LESS_EQUAL
from pdls_ik.tasks.base import Array, check_weight, TARGET, Task

#: [m] margin of the tracking rows above d_min: one cycle's second-order dip (module docstring)
TRACKING_MARGIN = 0.002


def damper_gain(approach_speed: float, cycle_time: float, d_min: float,
                activation_distance: float) -> float:
    """
    Return γ = ξ Δt / (d_i − d_s), capped at 1 (Faverjon & Tournassoud's velocity damper).

    :param approach_speed: ξ [m/s], the approach speed allowed at the activation distance.
    :param cycle_time: Δt [s] of one tracking cycle.
    """
    return min(1.0, float(approach_speed) * float(cycle_time) /
               (float(activation_distance) - float(d_min)))


def set_distance_parameters(task: Task, linkage, model: CollisionModel, values) -> None:
    """
    Check and set a distance task's linkage, model, d_min, activation_distance, gain, margin.

    :param values: (d_min [m], activation_distance [m], gain, margin [m]), as the class says.
    :raises InputError: the rule broken, naming the task and the parameter.
    """
    name = task.name
    if not isinstance(model, CollisionModel):
        raise InputError(f"task '{name}' model: expected a CollisionModel, got "
                         f'{type(model).__name__}')
    if model.linkage.n != linkage.n or model.linkage.link_names != linkage.link_names:
        raise InputError(f"task '{name}': the collision model was built for robot "
                         f"'{model.linkage.name}', not this linkage")
    task.linkage, task.model = linkage, model
    try:
        task.d_min, task.activation_distance, task.gain, task.margin = (float(v) for v in values)
    except (TypeError, ValueError):
        raise InputError(f"task '{name}': d_min, activation_distance, gain and margin must be "
                         'numbers') from None
    for key in ('d_min', 'margin'):
        value = getattr(task, key)
        if not (np.isfinite(value) and value >= 0.0):
            raise InputError(f"task '{name}' {key}: {value!r} must be finite and ≥ 0")
    if not task.activation_distance > task.d_min + task.margin:
        raise InputError(f"task '{name}' activation_distance: {task.activation_distance!r} "
                         f'must be > d_min + margin ({task.d_min + task.margin})')
    if not 0.0 < task.gain <= 1.0:
        raise InputError(f"task '{name}' gain: {task.gain!r} must be in (0, 1]")


class SelfCollisionTask(Task):
    """
    Keep every checked link pair of ``model`` at least ``d_min`` apart (module docstring).

    :param linkage: the robot model (the one ``model`` was built on).
    :param model: the :class:`~pdls_ik.model.collision.CollisionModel`.
    :param d_min: [m] smallest allowed distance (≥ 0).
    :param activation_distance: [m] > d_min; farther pairs give no active row.
    :param gain: γ ∈ (0, 1]: 1 position form, < 1 velocity damper (:func:`damper_gain`).
    :param margin: [m] ≥ 0, the rows' bound above d_min (module docstring).
    :param: weight [1/m], tolerance [m] (largest violation counted as satisfied), priority
        (default −1: above the pose task), name.

    :ivar distances: (P,) the pairs' distances at the last :meth:`compute` [m].
    :ivar violation: max(d_min − d, 0) over the pairs at the last :meth:`compute` [m].

    :raises InputError: d_min < 0, activation_distance ≤ d_min, gain outside (0, 1], a model
        built on another linkage.
    """

    kind = TARGET
    frees_joints = False

    def __init__(self, linkage, model: CollisionModel, d_min: float = 0.01,
                 activation_distance: float = 0.1, gain: float = 1.0, weight: float = 1.0,
                 tolerance: float = 1e-6, priority: int = -1, name: Optional[str] = None,
                 margin: float = 0.0):
        super().__init__(name or 'self_collision', weight, priority)
        set_distance_parameters(self, linkage, model, (d_min, activation_distance, gain, margin))
        self.tolerance = check_weight(tolerance, f"task '{self.name}' tolerance")
        self.comparison = np.full(len(model.pairs), LESS_EQUAL)
        self.distances = np.full(len(model.pairs), np.inf)
        self.violation = np.inf

    @property
    def dim(self) -> int:
        return len(self.model.pairs)

    def restricted_to(self, free) -> 'SelfCollisionTask':
        """
        Return the task on the pairs whose distance ``free`` changes (``CollisionModel.moved_by``).

        :param free: (n,) bool mask of the joint variables the solve may change.
        """
        model = self.model.moved_by(free)
        if model is self.model:
            return self
        task = copy.copy(self)
        task.model = model
        task.comparison = np.full(len(model.pairs), LESS_EQUAL)
        task.distances = np.full(len(model.pairs), np.inf)
        return task

    def compute(self, q: Array) -> Tuple[Array, Array]:
        res, G = self.model.distances_and_gradient(q, cutoff=self.activation_distance)
        d = res.distance
        self.distances = d
        bound = self.d_min + self.margin
        gap = bound - d
        e = np.where(d < self.activation_distance,
                     np.where(gap > 0.0, gap, self.gain * gap),
                     bound - self.activation_distance)
        self.violation = float(np.maximum(self.d_min - d, 0.0).max(initial=0.0))
        self.error = self.violation
        return self.weight * e, self.weight * G

    def residual_error(self, e: Array) -> Tuple[float, bool]:
        """(largest d_min − d over the pairs [m], ≤ tolerance) from the weighted rows e (P,)."""
        if self.margin == 0.0:
            return super().residual_error(e)
        err = max(float(np.max(e, initial=0.0)) / self.weight - self.margin, 0.0)
        return err, err <= self.tolerance

    def closest(self) -> Tuple[str, str, float]:
        """(link_a, link_b, distance [m]) of the closest pair at the last :meth:`compute`."""
        if not self.model.pairs:
            return '', '', float('inf')
        k = int(np.argmin(self.distances))
        return self.model.pairs[k][0], self.model.pairs[k][1], float(self.distances[k])
