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

"""Adaptive step size: the slowdown and speed-up rules on the per-level residual clamps."""
import numpy as np
from pdls_ik.pdls import PDLSOptions, StepResult
from pdls_ik.pdls.stepsize import AdaptiveStepSize, SLOWDOWN, SPEEDUP
import pytest


def last_step(mag, norms, clamped, lambdas=None, autos=None):
    p = len(norms)
    return StepResult(theta_diff=np.zeros(2), lambdas=lambdas or [0.0] * p, ranks=[1] * p,
                      min_singular_values=[1.0] * p, auto_lambda=autos or [True] * p,
                      residual_norms=list(norms), residual_clamped=list(clamped),
                      clamped=np.zeros(0, dtype=np.int64), limiting_variation=np.zeros(2),
                      limiting_iterations=1, theta_diff_mag=mag, theta_diff_clamped=False)


def test_slowdown_starts_unset_clamps_at_last_residual_and_floors_at_tolerance():
    ctl = AdaptiveStepSize(PDLSOptions(theta_diff_max_mag=0.5, slowdown_factor=0.5,
                                       residual_max_mag=[None, 0.4]))
    ctl.fit(3)
    event = ctl.update(last_step(0.9, [2.0, 1.0, 1e-9], [False, True, False]), None,
                       [1e-6, 1e-6, 1e-6])
    assert event == SLOWDOWN
    assert ctl.residual_max_mag == [1.0, 0.2, 1e-6]


def test_slowdown_on_large_auto_lambda_and_on_divergence_caps_speedup():
    opts = PDLSOptions(theta_diff_max_mag=0.5, auto_lambda_slowdown_threshold=0.1)
    ctl = AdaptiveStepSize(opts)
    ctl.fit(1)
    assert ctl.update(last_step(0.1, [1.0], [False], lambdas=[0.3]), None, [0.0]) == SLOWDOWN
    ctl = AdaptiveStepSize(PDLSOptions())
    ctl.fit(2)
    assert ctl.update(last_step(0.01, [1.0, 1.0], [False, False]), 0, [0.0, 0.0]) == SLOWDOWN
    assert ctl.residual_max_mag == [0.5, 0.5] and ctl.speedup_limit == [0.5, None]
    # A later speed-up of level 0 cannot pass its cap.
    assert ctl.update(last_step(0.01, [0.5, 0.5], [True, True]), None, [0.0, 0.0]) == SPEEDUP
    assert ctl.residual_max_mag == [0.5, 0.75]


def test_speedup_only_grows_clamps_that_clamped_and_respects_limit():
    ctl = AdaptiveStepSize(PDLSOptions(residual_max_mag=[0.1, 0.1, None], speedup_factor=2.0,
                                       speedup_limit=[0.15, None]))
    ctl.fit(3)
    event = ctl.update(last_step(0.1, [1.0, 0.05, 1.0], [True, False, False]), None, [0.0] * 3)
    assert event == SPEEDUP
    assert ctl.residual_max_mag == [0.15, 0.1, None]


def test_no_change_between_thresholds():
    ctl = AdaptiveStepSize(PDLSOptions(theta_diff_max_mag=1.0, residual_max_mag=0.3))
    ctl.fit(1)
    assert ctl.update(last_step(0.7, [1.0], [True]), None, [0.0]) is None
    assert ctl.residual_max_mag == [0.3]
    assert ctl.update(last_step(0.1, [1.0], [True], lambdas=[0.2]), None, [0.0]) == SPEEDUP
    ctl = AdaptiveStepSize(PDLSOptions(residual_max_mag=0.3, auto_lambda_speedup_threshold=0.1))
    ctl.fit(1)
    assert ctl.update(last_step(0.1, [1.0], [True], lambdas=[0.2]), None, [0.0]) is None
    assert ctl.residual_max_mag == [pytest.approx(0.3)]
