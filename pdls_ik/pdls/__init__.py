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
The PDLS core: Prioritized Damped Least Squares, robot-agnostic (Baerlocher & Boulic 2004).

Solve ``J_k Δθ = e_k`` for strict priority levels k = 1..p under hard limits on θ, each level only
in the null space of the ones above, with automatic damping near singularities, a posture
variation as lowest priority, and adaptive step size. Imports nothing robotic.

    step(levels, theta, lower, upper, posture, options) -> StepResult    one iteration
    solve(problem, theta0, lower, upper, options) -> PDLSResult          the iteration loop
"""
from pdls_ik.pdls.levels import EQUAL, GREATER_EQUAL, LESS_EQUAL, Level
from pdls_ik.pdls.options import PDLSOptions
from pdls_ik.pdls.pinv import auto_lambda, damped_pinv
from pdls_ik.pdls.problem import PDLSProblem
from pdls_ik.pdls.result import (CONVERGED, DIVERGED, INFEASIBLE, MAX_ITERATIONS, MAX_TIME,
                                 PDLSResult, STALLED, STATUSES)
from pdls_ik.pdls.solve import solve
from pdls_ik.pdls.step import step, StepResult

__all__ = [
    'CONVERGED', 'DIVERGED', 'EQUAL', 'GREATER_EQUAL', 'INFEASIBLE', 'LESS_EQUAL', 'Level',
    'MAX_ITERATIONS',
    'MAX_TIME', 'PDLSOptions', 'PDLSProblem', 'PDLSResult', 'STALLED', 'STATUSES', 'StepResult',
    'auto_lambda', 'damped_pinv', 'solve', 'step',
]
