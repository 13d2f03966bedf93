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

"""Solve statuses and the result of :func:`pdls_ik.pdls.solve`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np
from numpy.typing import NDArray

CONVERGED = 'converged'          # every counted level within its tolerance (or custom test true)
STALLED = 'stalled'              # an applied ‖Δθ‖ fell below theta_diff_tol, unconverged
MAX_ITERATIONS = 'max_iterations'
MAX_TIME = 'max_time'
DIVERGED = 'diverged'            # a level above min_divergable_level grew (abort_on_divergence)
INFEASIBLE = 'infeasible'        # unconverged at the start while no variable may move
STATUSES = (CONVERGED, STALLED, MAX_ITERATIONS, MAX_TIME, DIVERGED, INFEASIBLE)


@dataclass
class PDLSResult:
    """
    What :func:`pdls_ik.pdls.solve` achieved, and how.

    :ivar theta: (n,) final variables (within limits). On an aborted divergence with
        ``revert_on_divergence`` it is the θ before the diverging step.
    :ivar status: one of :data:`STATUSES`.
    :ivar iterations: number of steps applied (reverted steps included).
    :ivar residual_norms, initial_residual_norms: per level, ‖e_k‖ of the active rows at
        ``theta`` and at the (repaired) start.
    :ivar tolerances: per level, the tolerance used; converged_levels: per level, norm <=
        tolerance.
    :ivar lambdas, ranks, min_singular_values, clamped, limiting_variation: metrics of the last
        computed step (see :class:`pdls_ik.pdls.StepResult`); empty when no step was taken.
    :ivar best_theta, best_residual_norms, best_iteration: the iterate with the lexicographically
        smallest residual norms (levels in priority order, each floored at its tolerance; norms
        within rounding tie, :func:`pdls_ik.pdls.solve.improves`: the earlier iterate stays).
    :ivar start_clamped: indices of variables of θ0 that were outside their limits and were
        clamped onto them before the first iteration (a documented repair).
    :ivar residual_max_mag: per-level residual clamp in force at the end (adaptive step size).
    :ivar slowdowns, speedups, divergences, reverts, evaluations: event counters.
    :ivar theta_diff_norms: per iteration, the applied ‖α·Δθ‖.
    :ivar history: per-level residual norms at every evaluated iterate (the start first).
    :ivar phase_times: seconds spent in "evaluate" (the problem's update), "step",
        "line_search" and "total", and within the steps (MSim's ``TimeMetrics``):
        "priority_loop", "svd", "limits" (limiting loop or bounded PGS step) and "posture".
    :ivar level_times: per level, seconds of priority-loop work over the solve.
    :ivar limiting_iterations: priority-loop passes over all steps (one per step when no
        variable is clamped; MSim's limiting iterations).
    :ivar pgs_unconverged: steps whose projected Gauss–Seidel did not converge within
        ``pgs_max_iterations`` (``limit_strategy="pgs"``; such a step keeps the largest share of
        its level's motion that stays within the limits).
    :ivar infeasible_levels: with status "infeasible", the unconverged counted levels.
    """

    theta: NDArray[np.float64]
    status: str
    iterations: int
    residual_norms: List[float]
    initial_residual_norms: List[float]
    tolerances: List[float]
    converged_levels: List[bool]
    lambdas: List[float] = field(default_factory=list)
    ranks: List[int] = field(default_factory=list)
    min_singular_values: List[float] = field(default_factory=list)
    clamped: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    limiting_variation: Optional[NDArray[np.float64]] = None
    best_theta: Optional[NDArray[np.float64]] = None
    best_residual_norms: List[float] = field(default_factory=list)
    best_iteration: int = 0
    start_clamped: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    residual_max_mag: List[Optional[float]] = field(default_factory=list)
    slowdowns: int = 0
    speedups: int = 0
    divergences: int = 0
    reverts: int = 0
    evaluations: int = 0
    theta_diff_norms: List[float] = field(default_factory=list)
    history: List[List[float]] = field(default_factory=list)
    phase_times: Dict[str, float] = field(default_factory=dict)
    level_times: List[float] = field(default_factory=list)
    limiting_iterations: int = 0
    pgs_unconverged: int = 0
    infeasible_levels: List[int] = field(default_factory=list)

    @property
    def converged(self) -> bool:
        """Tell whether ``status == "converged"``."""
        return self.status == CONVERGED

    def summary(self) -> str:
        """One line: status, iterations and final residual norms per level."""
        norms = ', '.join(f'{v:.3g}' for v in self.residual_norms)
        return (f'{self.status} after {self.iterations} iterations; residual norms per level: '
                f'[{norms}]')
