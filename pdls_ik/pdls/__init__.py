"""The PDLS core: Prioritized Damped Least Squares, robot-agnostic (Baerlocher & Boulic 2004).

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
from pdls_ik.pdls.result import (CONVERGED, DIVERGED, MAX_ITERATIONS, MAX_TIME, STALLED,
                                 STATUSES, PDLSResult)
from pdls_ik.pdls.solve import solve
from pdls_ik.pdls.step import StepResult, step

__all__ = [
    "CONVERGED", "DIVERGED", "EQUAL", "GREATER_EQUAL", "LESS_EQUAL", "Level", "MAX_ITERATIONS",
    "MAX_TIME", "PDLSOptions", "PDLSProblem", "PDLSResult", "STALLED", "STATUSES", "StepResult",
    "auto_lambda", "damped_pinv", "solve", "step",
]
