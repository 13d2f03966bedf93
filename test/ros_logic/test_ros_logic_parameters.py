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

"""Node parameters from the IKConfig table: declarations, start-up values, runtime changes."""
from pdls_ik.config import IKConfig, MOVEIT_ALIASES, PARAMETERS
from pdls_ik.errors import ConfigError
from pdls_ik.resources import config_file
from pdls_ik.ros_logic.parameters import (alias_groups, apply_changes, config_from_values,
                                          declarations, mirrored, NODE_PARAMETERS, out_of_sync,
                                          read_only_names)
import pytest
import yaml


def test_every_config_field_alias_and_node_parameter_declared_once():
    decls = {d.name: d for d in declarations()}
    assert len(decls) == len(declarations())
    node_names = {d.name for d in NODE_PARAMETERS}
    assert set(decls) == set(PARAMETERS) | set(MOVEIT_ALIASES) | node_names
    for name, spec in PARAMETERS.items():
        d = decls[name]
        assert d.description == spec.description
        assert (d.minimum, d.maximum) == ((spec.minimum, spec.maximum) if spec.type in
                                          (int, float) else (None, None))
    assert decls['timeout'].ros_type == 'double' and decls['max_iterations'].ros_type == \
        'integer'
    assert decls['locked_joints'].ros_type == 'string_array'
    assert decls['locked_joints'].default is None  # typed, unset: [] has no ROS type
    assert decls['kinematics_solver_timeout'].default is None
    assert "alias of 'timeout'" in decls['kinematics_solver_timeout'].description
    assert set(read_only_names()) == {'mode', 'echo_joint_states', 'diagnostics_period',
                                      'robot_description_semantic', 'posture_state',
                                      'ik_link_priorities', 'controller_joints',
                                      'command_out_type', 'stamp_trajectories',
                                      'stream_lookahead'}
    assert 'state_timeout' not in read_only_names()  # may change at runtime


def test_node_settings_checked_and_normalized():
    from pdls_ik.ros_logic.parameters import COMMAND_OUT_TYPES, node_settings
    defaults = node_settings({})
    assert defaults['controller_joints'] == [] and defaults['state_timeout'] == 0.0
    assert defaults['command_out_type'] == 'trajectory_msgs/JointTrajectory'
    assert node_settings({'controller_joints': ['']})['controller_joints'] == []
    assert node_settings({'command_out_type': COMMAND_OUT_TYPES[1]})['command_out_type'] == \
        'std_msgs/Float64MultiArray'
    with pytest.raises(ConfigError, match="'command_out_type': 'float' is not one of"):
        node_settings({'command_out_type': 'float'})
    with pytest.raises(ConfigError, match="'state_timeout'"):
        node_settings({'state_timeout': -1.0})
    assert defaults['stamp_trajectories'] and defaults['stream_lookahead'] == 0.1
    with pytest.raises(ConfigError, match="'stream_lookahead': must be within"):
        node_settings({'stream_lookahead': 2.0})


def test_defaults_give_default_config():
    values = {d.name: d.default for d in declarations()}
    assert config_from_values(values) == IKConfig()


def test_shipped_parameter_file_is_valid_node_configuration():
    doc = yaml.safe_load(config_file('pdls_ik.yaml').read_text())
    values = doc['pdls_ik_node']['ros__parameters']
    config = config_from_values(values)
    assert config.tip_link == values['tip_link']
    assert config.locked_joints == [] and config.locked_positions == []  # [""] placeholder


def test_alias_used_when_target_at_default_and_conflict_refused():
    assert config_from_values({'kinematics_solver_timeout': 0.02}).timeout == 0.02
    assert config_from_values({'position_only_ik': True}).position_only is True
    assert config_from_values({'timeout': 0.02, 'kinematics_solver_timeout': 0.02}).timeout \
        == 0.02
    with pytest.raises(ConfigError, match='kinematics_solver_timeout'):
        config_from_values({'timeout': 0.03, 'kinematics_solver_timeout': 0.02})


@pytest.mark.parametrize('values, key', [({'timeout': 0.0}, 'timeout'),
                                         ({'posture_weight': 2.0}, 'posture_weight'),
                                         ({'locked_joints': ['a']}, 'locked_positions')])
def test_invalid_start_values_name_the_parameter(values, key):
    with pytest.raises(ConfigError, match=key):
        config_from_values(values)


def test_runtime_changes_all_or_nothing():
    config = IKConfig(tip_link='panda_link8')
    new, reason = apply_changes(config, {'damping': 0.05, 'epsilon': 1e-4})
    assert reason == '' and new.damping == 0.05 and new.position_tolerance == 1e-4
    bad, reason = apply_changes(config, {'damping': 0.05, 'velocity_scaling': 1.5})
    assert bad is None and 'velocity_scaling' in reason
    assert config.damping == -1.0  # untouched
    new, _ = apply_changes(config, {'locked_joints': ['']})
    assert new.locked_joints == [] and new.locked_positions == []
    new, _ = apply_changes(config, {'robot_description': '<robot/>', 'mode': 'x'})
    assert new == config  # not solver settings


def test_runtime_field_and_alias_must_agree():
    config = IKConfig(tip_link='panda_link8')
    new, reason = apply_changes(config, {'timeout': 0.02, 'kinematics_solver_timeout': 0.02})
    assert reason == '' and new.timeout == 0.02
    bad, reason = apply_changes(config, {'timeout': 0.03, 'kinematics_solver_timeout': 0.02})
    assert bad is None
    assert 'kinematics_solver_timeout' in reason and "'timeout'" in reason


def test_alias_groups_from_moveit_aliases():
    assert alias_groups() == {'timeout': ('timeout', 'kinematics_solver_timeout'),
                              'position_only': ('position_only', 'position_only_ik'),
                              'position_tolerance': ('position_tolerance', 'epsilon')}


@pytest.mark.parametrize('changes, expected', [
    ({'kinematics_solver_timeout': 0.01}, {'timeout': 0.01}),
    ({'timeout': 0.01}, {'kinematics_solver_timeout': 0.01}),
    ({'position_only_ik': True, 'damping': 0.1}, {'position_only': True}),
    ({'epsilon': 1e-4, 'timeout': 0.2},
     {'position_tolerance': 1e-4, 'kinematics_solver_timeout': 0.2}),
    ({'timeout': 0.01, 'kinematics_solver_timeout': 0.01}, {}),  # both given: nothing to add
    ({'timeout': 0.03, 'kinematics_solver_timeout': 0.02}, {}),  # conflict: refused later
    ({'damping': 0.1, 'tip_link': 'x'}, {}),
    ({'kinematics_solver_timeout': None}, {}),  # unset is not copied
])
def test_runtime_change_mirrored_to_the_other_names(changes, expected):
    assert mirrored(changes) == expected


def test_mirrored_request_is_accepted_and_reads_one_value():
    config = IKConfig(tip_link='panda_link8')
    request = {'kinematics_solver_timeout': 0.01}
    request.update(mirrored(request))
    new, reason = apply_changes(config, request)
    assert reason == '' and new.timeout == 0.01
    assert out_of_sync(new, request) == {'position_only': False, 'position_only_ik': False,
                                         'position_tolerance': 1e-5, 'epsilon': 1e-5}


def test_startup_alias_only_gives_the_field_its_value():
    values = {d.name: d.default for d in declarations()}
    values['kinematics_solver_timeout'] = 0.02
    config = config_from_values(values)
    assert config.timeout == 0.02
    assert out_of_sync(config, values) == {'timeout': 0.02, 'position_only_ik': False,
                                           'epsilon': 1e-5}
    values.update(out_of_sync(config, values))
    assert config_from_values(values) == config and out_of_sync(config, values) == {}


def test_startup_field_only_gives_the_alias_its_value():
    values = {d.name: d.default for d in declarations()}
    values.update(timeout=0.03, position_only=True)
    config = config_from_values(values)
    assert out_of_sync(config, values) == {'kinematics_solver_timeout': 0.03,
                                           'position_only_ik': True, 'epsilon': 1e-5}
