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

"""PDLSOptions: validation naming the field, per-level values, free-variable masks."""
import math

import numpy as np
from pdls_ik.errors import ConfigError
from pdls_ik.pdls import PDLSOptions
from pdls_ik.pdls.options import level_value
import pytest


@pytest.mark.parametrize('field,value', [
    ('theta_diff_max_mag', 0.0), ('theta_diff_max_mag', float('nan')), ('svd_tol', -1.0),
    ('residual_tol', [1e-6, -1.0]), ('damping', 'auto'), ('max_iterations', 2.5),
    ('max_iterations', -1), ('max_time', 0.0), ('slowdown_factor', 1.5),
    ('speedup_factor', 0.5), ('line_search', 'wolfe'), ('step_size', 1.5),
    ('min_divergable_level', -1), ('respect_limits', 'yes'), ('free_variables', [[0, 1]]),
    ('free_variables', [-1]), ('residual_max_mag', [0.0]), ('never_damp_sigma', None),
])
def test_bad_values_raise_config_error_naming_the_field(field, value):
    with pytest.raises(ConfigError, match=rf'PDLSOptions\.{field}'):
        PDLSOptions(**{field: value})


def test_defaults_and_replace_are_valid():
    o = PDLSOptions()
    assert o.damping is None and math.isinf(o.never_damp_sigma)
    assert o.replace(max_iterations=5).max_iterations == 5
    with pytest.raises(ConfigError, match='PDLSOptions.max_iterations'):
        o.replace(max_iterations=-3)


def test_per_level_values():
    assert level_value(None, 3) is None
    assert level_value(0.1, 3) == 0.1
    assert level_value([0.1, None, 0.3], 1) is None
    assert level_value([0.1, None, 0.3], 2) == 0.3
    assert level_value([0.1], 4) is None


def test_free_mask_from_indices_and_booleans():
    np.testing.assert_array_equal(PDLSOptions(free_variables=[0, 2]).free_mask(3),
                                  [True, False, True])
    assert PDLSOptions(free_variables=[True, True]).free_mask(2) is None
    assert PDLSOptions().free_mask(4) is None
    with pytest.raises(ConfigError, match='mask has 2 entries for 3 variables'):
        PDLSOptions(free_variables=[True, False]).free_mask(3)
    with pytest.raises(ConfigError, match='index 5 out of range'):
        PDLSOptions(free_variables=[5]).free_mask(3)


def test_dls_configuration():
    o = PDLSOptions.dls(damping=0.2, step_size=0.5, max_iterations=7, tolerance=1e-5)
    assert (o.damping, o.step_size, o.max_iterations, o.residual_tol) == (0.2, 0.5, 7, 1e-5)
    assert not o.adaptive_step_size and not o.theta_diff_clamping
    assert PDLSOptions.dls(adaptive_damping=True).damping is None


def test_replace_checks_the_changed_fields_and_keeps_the_others():
    base = PDLSOptions(theta_diff_max_mag=0.7, free_variables=[0, 2])
    new = base.replace(max_time=0.01, damping=[None, 0.1])
    assert (new.max_time, new.damping, new.theta_diff_max_mag) == (0.01, [None, 0.1], 0.7)
    assert base.max_time is None and base.damping is None       # the original is unchanged
    assert new.free_mask(3).tolist() == [True, False, True]
    for field, value in (('max_time', 0.0), ('damping', [0.1, 'x']), ('line_search', 'no'),
                         ('respect_limits', 1), ('free_variables', [-1])):
        with pytest.raises(ConfigError, match=field):
            base.replace(**{field: value})
    with pytest.raises(TypeError, match='max_tim'):
        base.replace(max_tim=1.0)
