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
Adaptive step size: per-level residual clamps managed between iterations.

The scheme is that of the PDLS solver of Marsette Vona's MSim (``vona.math.PDLS``), an addition
to the method of Baerlocher & Boulic 2004.

The step size of level k is ``residual_max_mag[k]``, the largest residual the next step may bite.
After each step that left the problem unconverged:

* slow down when the unclamped ‖Δθ‖ exceeded ``slowdown_threshold · theta_diff_max_mag``, or
  the largest automatic λ exceeded ``auto_lambda_slowdown_threshold``, or a level diverged:
  every unset clamp starts at that level's last residual norm, then every clamp is multiplied by
  ``slowdown_factor`` and floored at ``slowdown_limit`` (default: the level's tolerance, else
  eps). A diverging level also caps its future speed-ups at its new clamp;
* otherwise speed up when ‖Δθ‖ was below ``speedup_threshold · theta_diff_max_mag``, the
  largest automatic λ did not exceed ``auto_lambda_speedup_threshold`` and nothing diverged:
  every clamp that actually clamped in that step is multiplied by ``speedup_factor`` and capped
  at ``speedup_limit``.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from pdls_ik.pdls.options import level_value, PDLSOptions
from pdls_ik.pdls.step import StepResult

EPS = 1e-12

SLOWDOWN = 'slowdown'
SPEEDUP = 'speedup'


class AdaptiveStepSize:
    """Per-level residual clamps of one solve; :attr:`residual_max_mag` feeds the next step."""

    def __init__(self, options: PDLSOptions):
        self.options = options
        self.residual_max_mag: List[Optional[float]] = []
        self.speedup_limit: List[Optional[float]] = []

    def fit(self, p: int) -> List[Optional[float]]:
        """Size the per-level lists for p levels (new levels take the option values)."""
        o = self.options
        for k in range(len(self.residual_max_mag), p):
            self.residual_max_mag.append(level_value(o.residual_max_mag, k))
            self.speedup_limit.append(level_value(o.speedup_limit, k))
        del self.residual_max_mag[p:], self.speedup_limit[p:]
        return self.residual_max_mag

    def update(self, last: StepResult, diverging_level: Optional[int],
               tolerances: Sequence[float]) -> Optional[str]:
        """Adjust the clamps after the step ``last``; returns "slowdown", "speedup" or None."""
        o = self.options
        p = len(last.residual_norms)
        rmm = self.fit(p)
        tmax = o.theta_diff_max_mag
        autos = [lam for lam, auto in zip(last.lambdas, last.auto_lambda) if auto]
        max_auto = max(autos) if autos else 0.0
        slow = (last.theta_diff_mag > o.slowdown_threshold * tmax
                or (o.auto_lambda_slowdown_threshold is not None
                    and max_auto > o.auto_lambda_slowdown_threshold)
                or diverging_level is not None)
        if slow:
            for k in range(p):
                current = last.residual_norms[k] if rmm[k] is None else rmm[k]
                floor = level_value(o.slowdown_limit, k)
                if floor is None:
                    floor = tolerances[k] if tolerances[k] > 0 else EPS
                rmm[k] = max(current * o.slowdown_factor, floor)
            if diverging_level is not None and diverging_level < p:
                k = diverging_level
                cap = self.speedup_limit[k]
                self.speedup_limit[k] = rmm[k] if cap is None else min(cap, rmm[k])
            return SLOWDOWN
        if (last.theta_diff_mag < o.speedup_threshold * tmax
                and (o.auto_lambda_speedup_threshold is None
                     or max_auto <= o.auto_lambda_speedup_threshold)):
            grown = False
            for k in range(p):
                if rmm[k] is not None and last.residual_clamped[k]:
                    value = rmm[k] * o.speedup_factor
                    cap = self.speedup_limit[k]
                    rmm[k] = value if cap is None else min(value, cap)
                    grown = True
            return SPEEDUP if grown else None
        return None
