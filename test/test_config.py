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

"""Tests of pdls_ik.config: validation naming the key, aliases, YAML forms, the default file."""
import dataclasses
import math
from pathlib import Path
import re

from pdls_ik.config import IKConfig, load_config, PARAMETERS
from pdls_ik.errors import ConfigError
import pytest

DEFAULT_FILE = Path(__file__).resolve().parents[1] / 'config' / 'pdls_ik.yaml'


def test_defaults_match_contract():
    c = IKConfig()
    assert c.base_link == '' and c.position_tolerance == 1e-5
    assert c.orientation_tolerance == 1e-4 and c.timeout == 0.005
    assert c.position_only is False and c.damping < 0
    assert c.locked_joints == [] and c.locked_positions == []


def test_parameter_table_has_description_type_and_range_for_every_field():
    names = [f.name for f in dataclasses.fields(IKConfig)]
    assert list(PARAMETERS) == names
    for spec in PARAMETERS.values():
        assert spec.description and spec.type in (bool, int, float, str, 'str[]', 'float[]')
        if spec.type in (int, float):
            assert spec.minimum is not None and spec.maximum is not None
            assert spec.minimum <= spec.default <= spec.maximum
    assert PARAMETERS['timeout'].type is float and PARAMETERS['max_iterations'].type is int


@pytest.mark.parametrize('key, value, fragment', [
    ('no_such_key', 1, 'unknown parameter'),
    ('timeout', 'fast', 'expected a number'),
    ('timeout', 0.0, 'outside (0.0'),
    ('timeout', -1.0, 'outside'),
    ('max_iterations', 2.5, 'expected an integer'),
    ('position_only', 1, 'expected true or false'),
    ('velocity_scaling', 1.5, 'outside'),
    ('position_tolerance', math.nan, 'finite'),
    ('locked_joints', 'j1', 'expected a list'),
    ('locked_positions', ['a'], 'expected a number'),
    ('tip_link', 3, 'expected a string'),
    ('max_iterations', True, 'expected a number'),
])
def test_from_dict_errors_name_the_key(key, value, fragment):
    with pytest.raises(ConfigError) as err:
        IKConfig.from_dict({key: value})
    assert f"'{key}'" in str(err.value) and fragment in str(err.value)


def test_never_half_applied():
    base = IKConfig(timeout=0.02)
    with pytest.raises(ConfigError, match='velocity_scaling'):
        base.replace(timeout=0.5, velocity_scaling=3.0)
    assert base.timeout == 0.02
    with pytest.raises(ConfigError, match='locked_positions'):
        IKConfig.from_dict({'locked_joints': ['a', 'b'], 'locked_positions': [0.1]})


def test_int_accepted_for_float_and_values_normalized():
    c = IKConfig.from_dict({'timeout': 1, 'locked_joints': ('j1',), 'locked_positions': [1]})
    assert c.timeout == 1.0 and isinstance(c.timeout, float)
    assert c.locked_joints == ['j1'] and c.locked_positions == [1.0]
    assert IKConfig.from_dict({'max_iterations': 20.0}).max_iterations == 20


def test_moveit_aliases():
    c = IKConfig.from_dict({'kinematics_solver_timeout': 0.05, 'position_only_ik': True,
                            'epsilon': 1e-3,
                            'kinematics_solver': 'pdls_ik/PDLSKinematicsPlugin',
                            'kinematics_solver_search_resolution': 0.005})
    assert (c.timeout, c.position_only, c.position_tolerance) == (0.05, True, 1e-3)
    assert IKConfig().replace(epsilon=2e-4).position_tolerance == 2e-4
    with pytest.raises(ConfigError, match="'epsilon': conflicts with 'position_tolerance'"):
        IKConfig.from_dict({'position_tolerance': 1e-4, 'epsilon': 1e-3})


def test_load_ros2_parameter_file_forms(tmp_path):
    f = tmp_path / 'a.yaml'
    f.write_text('/**:\n  ros__parameters:\n    timeout: 0.01\n    tip_link: a\n'
                 '/arm/pdls_ik_node:\n  ros__parameters:\n    tip_link: b\n'
                 'other_node:\n  ros__parameters:\n    timeout: 9.0\n')
    c = load_config(f)
    assert c.timeout == 0.01 and c.tip_link == 'b'
    plain = tmp_path / 'b.yaml'
    plain.write_text('timeout: 0.02\nposition_only_ik: true\n')
    c = load_config(plain)
    assert c.timeout == 0.02 and c.position_only is True
    empty = tmp_path / 'c.yaml'
    empty.write_text('')
    assert load_config(empty) == IKConfig()


def test_load_errors_name_file_and_key(tmp_path):
    f = tmp_path / 'bad.yaml'
    f.write_text('pdls_ik_node:\n  ros__parameters:\n    timeout: -3\n')
    with pytest.raises(ConfigError, match=r"bad.yaml: parameter 'timeout'"):
        load_config(f)
    g = tmp_path / 'broken.yaml'
    g.write_text('a: [1, 2\n')
    with pytest.raises(ConfigError, match='invalid YAML'):
        load_config(g)
    h = tmp_path / 'list.yaml'
    h.write_text('- 1\n- 2\n')
    with pytest.raises(ConfigError, match='mapping'):
        load_config(h)


def test_default_file_loads_and_documents_every_key():
    cfg = load_config(DEFAULT_FILE)
    assert cfg.tip_link == 'panda_link8'
    text = DEFAULT_FILE.read_text()
    for name in PARAMETERS:
        lines = [ln for ln in text.splitlines() if re.match(rf'\s*#?\s*{name}:', ln)]
        assert lines, f'{name} missing from {DEFAULT_FILE.name}'
        # documented: a comment on the same line or the line above
        idx = text.splitlines().index(lines[0])
        above = text.splitlines()[idx - 1].strip()
        assert '#' in lines[0].split(':', 1)[1] or above.startswith('#')
    # file values equal the dataclass defaults, so that node and library agree
    assert dataclasses.replace(cfg, tip_link='') == IKConfig()
