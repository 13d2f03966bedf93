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
move_group's parameters for ``launch/moveit.launch.py`` (ROS-free, so it is tested anywhere).

Built from this package's own files, no MoveIt config package needed: the robot description and
SRDF (text), ``config/kinematics.yaml`` as ``robot_description_kinematics`` (its solver replaced
by the ``ik_plugin`` launch argument: :data:`IK_PLUGINS`), ``config/ompl_planning.yaml`` as the
single planning pipeline ``ompl``, ``config/panda_joint_limits.yaml`` as
``robot_description_planning``, and no trajectory execution (plan only). The layout is
moveit_configs_utils' (``MoveItConfigsBuilder.to_dict``) for MoveIt 2.10+ (Jazzy); for an older
MoveIt (Humble's 2.5) the pipeline's planner and adapters are given in that MoveIt's form
(:func:`legacy_pipeline`).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Tuple
import xml.etree.ElementTree as ET

from pdls_ik.ros_logic.launch_setup import LaunchSetupError
import yaml

#: ``ik_plugin`` launch argument -> (pluginlib class of MoveIt's KinematicsBase, ROS package)
IK_PLUGINS = {
    'pdls': ('pdls_ik/PDLSKinematicsPlugin', 'pdls_ik'),
    'kdl': ('kdl_kinematics_plugin/KDLKinematicsPlugin', 'moveit_kinematics'),
    'pick_ik': ('pick_ik/PickIkPlugin', 'pick_ik'),
}

#: the library of pdls_ik/PDLSKinematicsPlugin in pdls_ik's install prefix (colcon builds it only
#: where moveit_core is found)
PLUGIN_LIBRARY = Path('lib') / 'libpdls_ik_kinematics_plugin.so'

#: ROS packages move_group with the OMPL pipeline needs
MOVE_GROUP_PACKAGES = ('moveit_ros_move_group', 'moveit_planners_ompl')

#: the first MoveIt whose planning pipeline takes ``planning_plugins`` and ``request_adapters``
#: as lists and has response adapters (2.10, Jazzy)
ADAPTER_LISTS_SINCE = (2, 10)

#: MoveIt 2.10+ adapters -> their counterparts before 2.10 (Humble), all request adapters there;
#: ValidateSolution and DisplayMotionPath have none (that pipeline checks and displays the path
#: itself)
LEGACY_ADAPTERS = {
    'default_planning_request_adapters/ResolveConstraintFrames':
        'default_planner_request_adapters/ResolveConstraintFrames',
    'default_planning_request_adapters/ValidateWorkspaceBounds':
        'default_planner_request_adapters/FixWorkspaceBounds',
    'default_planning_request_adapters/CheckStartStateBounds':
        'default_planner_request_adapters/FixStartStateBounds',
    'default_planning_request_adapters/CheckStartStateCollision':
        'default_planner_request_adapters/FixStartStateCollision',
    'default_planning_response_adapters/AddTimeOptimalParameterization':
        'default_planner_request_adapters/AddTimeOptimalParameterization',
}


def load_yaml_file(path: str, what: str) -> Dict[str, Any]:
    """
    Read a YAML mapping.

    :raises LaunchSetupError: missing file, bad YAML, or not a mapping (naming ``what``).
    """
    try:
        doc = yaml.safe_load(Path(path).read_text())
    except OSError as exc:
        raise LaunchSetupError(f'{what}: cannot read {path}: {exc.strerror}') from None
    except yaml.YAMLError as exc:
        raise LaunchSetupError(f'{what}: {path}: not YAML ({exc})') from None
    if not isinstance(doc, dict):
        raise LaunchSetupError(f'{what}: {path}: expected a mapping of groups, got '
                               f'{type(doc).__name__}')
    return doc


def kinematics_parameters(path: str, ik_plugin: str = '', timeout: str = '') -> Dict[str, Any]:
    """
    ``robot_description_kinematics`` from a MoveIt kinematics.yaml.

    :param path: kinematics.yaml: group name -> its keys (``kinematics_solver``, ...).
    :param ik_plugin: '' (the file's solvers) or a key of :data:`IK_PLUGINS`: every group's
        ``kinematics_solver`` becomes that plugin (other keys stay; KDL ignores pdls_ik's).
    :param timeout: '' (the file's) or ``kinematics_solver_timeout`` [s] of every group, > 0.
    :raises LaunchSetupError: unreadable file, a group that is not a mapping, an unknown
        ``ik_plugin`` (listing the known ones), a timeout that is not a positive number.
    """
    groups = load_yaml_file(path, 'kinematics')
    if ik_plugin and ik_plugin not in IK_PLUGINS:
        raise LaunchSetupError(f"ik_plugin: unknown '{ik_plugin}' (known: "
                               f"{', '.join(IK_PLUGINS)})")
    seconds = None
    if timeout:
        try:
            seconds = float(timeout)
        except ValueError:
            seconds = math.nan
        if not (seconds > 0.0 and math.isfinite(seconds)):
            raise LaunchSetupError('ik_timeout: expected a positive number of seconds, got '
                                   f"'{timeout}'")
    out = {}
    for group, keys in groups.items():
        if not isinstance(keys, dict):
            raise LaunchSetupError(f"kinematics: {path}: group '{group}' is not a mapping")
        keys = dict(keys)
        if ik_plugin:
            keys['kinematics_solver'] = IK_PLUGINS[ik_plugin][0]
        if seconds is not None:
            keys['kinematics_solver_timeout'] = seconds
        out[str(group)] = keys
    return {'robot_description_kinematics': out}


def moveit_version(package_xml: str) -> Tuple[int, ...]:
    """
    Return the version of a ROS package from its package.xml (moveit_core's: MoveIt's).

    :raises LaunchSetupError: an unreadable file, or no numeric ``<version>`` in it.
    """
    try:
        text = ET.parse(package_xml).getroot().findtext('version', '')
        return tuple(int(part) for part in text.strip().split('.'))
    except (OSError, ET.ParseError, ValueError) as exc:
        raise LaunchSetupError(f'moveit_core: no version in {package_xml} ({exc})') from None


def legacy_pipeline(pipeline: Mapping[str, Any]) -> Dict[str, Any]:
    """
    Return a MoveIt 2.10+ planning pipeline's parameters in MoveIt 2.5's form (Humble).

    There the planner is ``planning_plugin`` (one string) and the adapters ``request_adapters``
    (one space-separated string; a list is refused at start-up, move_group aborts); the former
    response adapters come first (the outermost adapter post-processes last), then the request
    adapters, each by its :data:`LEGACY_ADAPTERS` name (those without one are left out). Other
    keys (planner configurations, groups) are kept.
    """
    out = {k: v for k, v in pipeline.items()
           if k not in ('planning_plugins', 'request_adapters', 'response_adapters')}
    plugins = pipeline.get('planning_plugins')
    if plugins:
        out['planning_plugin'] = plugins if isinstance(plugins, str) else plugins[0]
    adapters = []
    for key in ('response_adapters', 'request_adapters'):
        names = pipeline.get(key) or []
        for name in names.split() if isinstance(names, str) else names:
            name = LEGACY_ADAPTERS.get(name, name)
            if name.startswith('default_planner_request_adapters/') and name not in adapters:
                adapters.append(name)
    if adapters:
        out['request_adapters'] = ' '.join(adapters)
    return out


def move_group_parameters(description: str, semantic: str, kinematics: Mapping[str, Any],
                          ompl_file: str, joint_limits_file: str,
                          moveit: Tuple[int, ...] = ADAPTER_LISTS_SINCE) -> Dict[str, Any]:
    """
    Every parameter of move_group: one planning pipeline ``ompl``, plan only.

    :param description: URDF XML. :param semantic: SRDF XML.
    :param kinematics: :func:`kinematics_parameters`' answer.
    :param ompl_file: the pipeline's YAML (config/ompl_planning.yaml, MoveIt 2.10+'s form).
    :param joint_limits_file: YAML with a ``joint_limits`` mapping
        (config/panda_joint_limits.yaml).
    :param moveit: MoveIt's version (:func:`moveit_version`); below :data:`ADAPTER_LISTS_SINCE`
        the pipeline is given in that MoveIt's form (:func:`legacy_pipeline`).
    :raises LaunchSetupError: an unreadable file, or joint limits without ``joint_limits``.
    """
    limits = load_yaml_file(joint_limits_file, 'joint_limits')
    if not isinstance(limits.get('joint_limits'), dict):
        raise LaunchSetupError(f'joint_limits: {joint_limits_file}: no joint_limits mapping')
    ompl = load_yaml_file(ompl_file, 'ompl')
    if tuple(moveit) < ADAPTER_LISTS_SINCE:
        ompl = legacy_pipeline(ompl)
    return {
        'robot_description': description,
        'robot_description_semantic': semantic,
        **kinematics,
        'robot_description_planning': limits,
        'planning_pipelines': ['ompl'],
        'default_planning_pipeline': 'ompl',
        'ompl': ompl,
        # plan only: no controllers (MoveGroup goals with plan_only, compute_cartesian_path)
        'allow_trajectory_execution': False,
        'publish_robot_description': True,
        'publish_robot_description_semantic': True,
    }


def moveit_missing(kinematics: Mapping[str, Any], has_package: Callable[[str], bool],
                   package_prefix: Callable[[str], str]) -> List[str]:
    """
    List what move_group with these kinematics parameters lacks here, one item per thing.

    :param kinematics: :func:`kinematics_parameters`' answer; the plugins of
        :data:`IK_PLUGINS` it names are checked (another plugin is the user's to install).
    :param has_package: tells whether the ament index knows a package.
    :param package_prefix: a package's install prefix (called for pdls_ik only).
    :return: the missing packages and libraries, in order (empty: nothing is missing).
    """
    missing = [p for p in MOVE_GROUP_PACKAGES if not has_package(p)]
    named = {str(keys.get('kinematics_solver', ''))
             for keys in kinematics['robot_description_kinematics'].values()}
    for name, package in IK_PLUGINS.values():
        if name not in named:
            continue
        if not has_package(package):
            missing.append(f'{package} (plugin {name})')
        elif package == 'pdls_ik' and not (Path(package_prefix(package))
                                           / PLUGIN_LIBRARY).is_file():
            missing.append(f'{name}: {PLUGIN_LIBRARY} not in the pdls_ik install (colcon builds '
                           f'it only where moveit_core is found)')
    return missing
