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

"""move_group's parameters of launch/moveit.launch.py, built from the package's own files."""
from pdls_ik.model import load_urdf
from pdls_ik.resources import bundled_srdf, bundled_urdf, config_file
from pdls_ik.ros_logic.launch_setup import LaunchSetupError
from pdls_ik.ros_logic.moveit_setup import (IK_PLUGINS, kinematics_parameters,
                                            move_group_parameters, moveit_missing,
                                            moveit_version, PLUGIN_LIBRARY)
import pytest

KINEMATICS = str(config_file('kinematics.yaml'))


def test_the_shipped_kinematics_names_pdls_ik_s_plugin_and_ik_plugin_swaps_it():
    own = kinematics_parameters(KINEMATICS)['robot_description_kinematics']
    assert own == {'panda_arm': {'kinematics_solver': 'pdls_ik/PDLSKinematicsPlugin',
                                 'kinematics_solver_timeout': 0.005}}
    kdl = kinematics_parameters(KINEMATICS, 'kdl', '0.05')['robot_description_kinematics']
    assert kdl == {'panda_arm': {'kinematics_solver': 'kdl_kinematics_plugin/KDLKinematicsPlugin',
                                 'kinematics_solver_timeout': 0.05}}


@pytest.mark.parametrize('plugin, timeout, message', [
    ('trac', '', "ik_plugin: unknown 'trac' (known: pdls, kdl, pick_ik)"),
    ('', 'fast', "ik_timeout: expected a positive number of seconds, got 'fast'"),
    ('', '0', "ik_timeout: expected a positive number of seconds, got '0'"),
    ('', 'nan', "ik_timeout: expected a positive number of seconds, got 'nan'"),
])
def test_bad_arguments_are_named(plugin, timeout, message):
    with pytest.raises(LaunchSetupError) as info:
        kinematics_parameters(KINEMATICS, plugin, timeout)
    assert str(info.value) == message


def test_a_group_that_is_not_a_mapping_is_named(tmp_path):
    path = tmp_path / 'kinematics.yaml'
    path.write_text('panda_arm: pdls_ik/PDLSKinematicsPlugin\n')
    with pytest.raises(LaunchSetupError) as info:
        kinematics_parameters(str(path))
    assert str(info.value) == f"kinematics: {path}: group 'panda_arm' is not a mapping"
    with pytest.raises(LaunchSetupError) as info:
        kinematics_parameters(str(tmp_path / 'none.yaml'))
    assert str(info.value).startswith(f"kinematics: cannot read {tmp_path / 'none.yaml'}")


def test_move_group_gets_one_ompl_pipeline_for_every_srdf_group_and_limits_for_every_joint():
    urdf, srdf = bundled_urdf('panda').read_text(), bundled_srdf('panda').read_text()
    params = move_group_parameters(urdf, srdf, kinematics_parameters(KINEMATICS),
                                   str(config_file('ompl_planning.yaml')),
                                   str(config_file('panda_joint_limits.yaml')))
    assert params['robot_description'] == urdf
    assert params['robot_description_semantic'] == srdf
    assert params['planning_pipelines'] == ['ompl']
    assert params['default_planning_pipeline'] == 'ompl'
    ompl = params['ompl']
    assert ompl['planning_plugins'] == ['ompl_interface/OMPLPlanner']
    for group in ('panda_arm', 'hand', 'panda_arm_hand'):
        assert ompl[group]['default_planner_config'] in ompl['planner_configs']
    # time parameterization needs an acceleration limit for every moving joint
    limits = params['robot_description_planning']['joint_limits']
    linkage = load_urdf(bundled_urdf('panda'))
    for joint in linkage.joints:
        if joint.type in ('revolute', 'prismatic'):
            assert limits[joint.name]['has_acceleration_limits'] is True
            assert limits[joint.name]['max_acceleration'] > 0.0
    assert params['allow_trajectory_execution'] is False


def test_missing_packages_and_the_unbuilt_plugin_are_named(tmp_path):
    kinematics = kinematics_parameters(KINEMATICS)
    everything = {'moveit_ros_move_group', 'moveit_planners_ompl', 'pdls_ik',
                  'moveit_kinematics'}
    (tmp_path / PLUGIN_LIBRARY).parent.mkdir(parents=True)
    assert moveit_missing(kinematics, everything.__contains__, lambda _: str(tmp_path)) == [
        'pdls_ik/PDLSKinematicsPlugin: lib/libpdls_ik_kinematics_plugin.so not in the pdls_ik '
        'install (colcon builds it only where moveit_core is found)']
    (tmp_path / PLUGIN_LIBRARY).write_bytes(b'')
    assert moveit_missing(kinematics, everything.__contains__, lambda _: str(tmp_path)) == []
    kdl = kinematics_parameters(KINEMATICS, 'kdl')
    assert moveit_missing(kdl, {'pdls_ik'}.__contains__, lambda _: str(tmp_path)) == [
        'moveit_ros_move_group', 'moveit_planners_ompl',
        'moveit_kinematics (plugin kdl_kinematics_plugin/KDLKinematicsPlugin)']
    assert set(IK_PLUGINS) == {'pdls', 'kdl', 'pick_ik'}


#: the request adapters Humble's moveit_ros_planning (2.5) exports
HUMBLE_ADAPTERS = {f'default_planner_request_adapters/{name}' for name in (
    'Empty', 'FixStartStateBounds', 'FixStartStatePathConstraints', 'FixWorkspaceBounds',
    'FixStartStateCollision', 'ResolveConstraintFrames', 'AddTimeOptimalParameterization',
    'AddRuckigTrajectorySmoothing')}


def test_moveit_before_2_10_gets_the_pipeline_in_its_own_form():
    """
    Humble's move_group (MoveIt 2.5) wants one planning_plugin and one string of adapters.

    Found on Humble: the lists of MoveIt 2.10+ (the shipped file's form) made move_group abort
    at start-up ("parameter 'ompl.request_adapters' has invalid type: expected [string] got
    [string_array]").
    """
    urdf, srdf = bundled_urdf('panda').read_text(), bundled_srdf('panda').read_text()
    args = (urdf, srdf, kinematics_parameters(KINEMATICS), str(config_file('ompl_planning.yaml')),
            str(config_file('panda_joint_limits.yaml')))
    jazzy = move_group_parameters(*args)['ompl']
    assert move_group_parameters(*args, moveit=(2, 12, 3))['ompl'] == jazzy
    humble = move_group_parameters(*args, moveit=(2, 5, 9))['ompl']
    assert humble['planning_plugin'] == 'ompl_interface/OMPLPlanner'
    assert not {'planning_plugins', 'response_adapters'} & set(humble)
    assert isinstance(humble['request_adapters'], str)
    adapters = humble['request_adapters'].split()
    assert set(adapters) <= HUMBLE_ADAPTERS and len(adapters) == 5
    # the time parameterization post-processes last: the outermost adapter
    assert adapters[0] == 'default_planner_request_adapters/AddTimeOptimalParameterization'
    assert {k: v for k, v in humble.items() if k not in ('planning_plugin', 'request_adapters')} \
        == {k: v for k, v in jazzy.items()
            if k not in ('planning_plugins', 'request_adapters', 'response_adapters')}


def test_moveit_version_is_read_from_package_xml(tmp_path):
    path = tmp_path / 'package.xml'
    path.write_text('<package format="3"><name>moveit_core</name><version>2.5.9</version>'
                    '</package>')
    assert moveit_version(str(path)) == (2, 5, 9)
    path.write_text('<package format="3"><name>moveit_core</name></package>')
    with pytest.raises(LaunchSetupError, match='moveit_core: no version'):
        moveit_version(str(path))
