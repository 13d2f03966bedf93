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
Step length α along Δθ: the line-search strategies of a hierarchical Newton solver.

The strategies are those of HPP's ``hpp::constraints::solver::HierarchicalIterative``
(hpp-constraints).

* ``constant``: α = ``step_size`` every iteration.
* ``fixed_sequence``: α starts at ``line_search_alpha_min`` and follows
  α ← α_max − K (α_max − α), rising towards ``line_search_alpha_max``.
* ``error_norm``: α = 1 − (1 − α_min) tanh(‖e‖ / ``line_search_error_scale``): cautious far
  from the solution, a full step close to it (where Newton converges quadratically).
* ``backtracking``: α = ``step_size``, then multiplied by ``line_search_shrink`` until the merit
  (sum of squared residual norms of the counted levels) satisfies
  merit(α) <= (1 − c α) merit(0) with c = ``line_search_armijo``; below α_min it takes the
  best trial that decreased the merit, or no step at all (the solver then reports a stall).
"""
from __future__ import annotations

import math
from typing import Callable, Optional, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.pdls.options import PDLSOptions


class LineSearch:
    """Stateful step-length rule of one solve."""

    def __init__(self, options: PDLSOptions):
        self.options = options
        self.kind = options.line_search
        self.alpha = options.line_search_alpha_min

    def search(self, theta: NDArray[np.float64], theta_diff: NDArray[np.float64], merit0: float,
               evaluate: Callable[[NDArray[np.float64]], Tuple[NDArray, object, float]],
               integrate: Optional[Callable] = None):
        """
        Choose α and the next θ.

        :param merit0: merit (sum of squared counted residual norms) at θ.
        :param evaluate: ``evaluate(theta_candidate) -> (theta_next, evaluation, merit)``; called
            only by backtracking, whose last evaluation is handed back for reuse.
        :param integrate: ``integrate(theta, step) -> theta`` applying a step on a Lie group
            (as hpp-constraints integrates on the configuration space); default θ + step.

        :return: ``(alpha, theta_next, evaluation)`` where ``evaluation`` is None unless the
            candidate was already evaluated.
        """
        o = self.options
        move = _add if integrate is None else integrate
        if self.kind == 'backtracking':
            alpha, best = o.step_size, None
            while alpha >= o.line_search_alpha_min:
                theta_next, evaluation, merit = evaluate(move(theta, alpha * theta_diff))
                if merit <= (1.0 - o.line_search_armijo * alpha) * merit0:
                    return alpha, theta_next, evaluation
                if best is None or merit < best[0]:
                    best = (merit, alpha, theta_next, evaluation)
                alpha *= o.line_search_shrink
            if best is not None and best[0] < merit0:
                return best[1], best[2], best[3]
            return 0.0, theta, None  # no decrease along Δθ: stay (the solver then stalls)
        if self.kind == 'fixed_sequence':
            alpha = self.alpha
            amax = o.line_search_alpha_max
            self.alpha = amax - o.line_search_k * (amax - alpha)
        elif self.kind == 'error_norm':
            amin = o.line_search_alpha_min
            alpha = 1.0 - (1.0 - amin) * math.tanh(math.sqrt(merit0) / o.line_search_error_scale)
        else:
            alpha = o.step_size
        return alpha, move(theta, alpha * theta_diff), None


def _add(theta: NDArray[np.float64], step: NDArray[np.float64]) -> NDArray[np.float64]:
    return theta + step
