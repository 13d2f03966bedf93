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
Node parameters from the :data:`pdls_ik.config.PARAMETERS` table (no second list).

:func:`declarations` gives what the node declares: every IKConfig field with its type,
default, description and range, the MoveIt kinematics.yaml aliases (typed, without default:
they count only when given), and the node's own parameters (:data:`NODE_PARAMETERS`).
:func:`config_from_values` and :func:`apply_changes` turn parameter values into a validated
:class:`~pdls_ik.config.IKConfig`, or a reason to refuse them; nothing is half-applied.
:func:`mirrored` and :func:`out_of_sync` keep every name of one setting (a field and its MoveIt
aliases) reading the value in use.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from pdls_ik.config import IKConfig, MOVEIT_ALIASES, PARAMETERS
from pdls_ik.errors import ConfigError

#: ParameterSpec.type -> ROS parameter type name (rcl_interfaces/ParameterType without prefix)
ROS_TYPES = {bool: 'bool', int: 'integer', float: 'double', str: 'string',
             'str[]': 'string_array', 'float[]': 'double_array'}


@dataclass(frozen=True)
class Declaration:
    """
    One parameter to declare.

    :ivar name: parameter name.
    :ivar ros_type: "bool", "integer", "double", "string", "string_array" or "double_array".
    :ivar default: default value, None to declare it typed but unset.
    :ivar description: shown by ``ros2 param describe``.
    :ivar minimum, maximum: numeric range (closed; open ends are enforced by IKConfig), or None.
    :ivar read_only: cannot change at runtime.
    """

    name: str
    ros_type: str
    default: Any
    description: str
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    read_only: bool = False


#: values of ``command_out_type`` (the message types, as MoveIt Servo's parameter names them)
COMMAND_OUT_TYPES = ('trajectory_msgs/JointTrajectory', 'std_msgs/Float64MultiArray')

#: parameters of the node itself (not solver settings)
NODE_PARAMETERS = (
    Declaration('robot_description', 'string', '',
                'URDF XML of the robot; empty: read the /robot_description topic '
                '(transient local, as robot_state_publisher publishes it).'),
    Declaration('mode', 'string', 'tracking',
                "'tracking': each goal followed warm-started with bounded cycles (default); "
                "'one_shot': each goal solved once with restarts.", read_only=True),
    Declaration('echo_joint_states', 'bool', False,
                'Loop-back without hardware: publish the commanded state on joint_states while '
                'no other node publishes there (checked for 1 s after start before the first '
                'message; off for good once another publisher appears).', read_only=True),
    Declaration('robot_description_semantic', 'string', '',
                'SRDF XML (or file path) of the robot: the planning groups and group states of '
                '~/compute_ik (MoveIt semantics); empty: read the robot_description_semantic '
                'topic (transient local), else the configured chain is the only group.',
                read_only=True),
    Declaration('posture_state', 'string', '',
                "SRDF group_state ('state' or 'group/state') used as the lowest-priority "
                "posture target of ~/compute_ik solves; '': none.", read_only=True),
    Declaration('ik_link_priorities', 'string_array', None,
                "Priority of each tip of a multi-tip ~/compute_ik request, 'link:priority' "
                '(smaller = higher, strict); tips not listed: pose_priority (one level).',
                read_only=True),
    Declaration('diagnostics_period', 'double', 1.0,
                'Period of the diagnostics publication [s] (also published after every solve).',
                0.01, 1.0, read_only=True),
    Declaration('controller_joints', 'string_array', None,
                "Joints of the controller, in its order (its 'joints' parameter); unset: the "
                'joints the solver moves (the chain of base_link to tip_link), no mimic joints.',
                read_only=True),
    Declaration('command_out_type', 'string', COMMAND_OUT_TYPES[0],
                f"Output: '{COMMAND_OUT_TYPES[0]}' on joint_trajectory (a "
                f"joint_trajectory_controller) or '{COMMAND_OUT_TYPES[1]}' on commands "
                '(positions for a forward position controller), as MoveIt Servo.',
                read_only=True),
    Declaration('stamp_trajectories', 'bool', True,
                'true: each joint_trajectory message is stamped with the time of its first '
                'point (two cycles back), so that a joint_trajectory_controller places every '
                'message on one time line whatever the delivery delay (node and controller '
                'share a clock); false: header stamp zero, the controller starts each message '
                'when it picks it up (exact only when one message arrives per control cycle).',
                read_only=True),
    Declaration('stream_lookahead', 'double', 0.1,
                'Stamped trajectories: time [s] the streamed motion is committed ahead of the '
                'current cycle (whole cycles, at least one): a message delivered up to this '
                'late is spliced without a velocity jump; a goal change takes effect this much '
                'later.', 0.0, 1.0, read_only=True),
    Declaration('state_timeout', 'double', 0.0,
                'Age [s] above which the last joint_states is stale (ERROR, motion stopped); '
                '0: five tracking periods, at least 0.1 s.', 0.0, 60.0),
    Declaration('self_collision', 'bool', False,
                'Self-collision level above the pose in every tracking cycle (link pairs kept '
                'collision_d_min apart, slowing down before contact); ~/compute_ik uses it '
                'whenever a request sets avoid_collisions, whatever this says.'),
    Declaration('collision_d_min', 'double', 0.01,
                'Smallest distance [m] between checked link pairs (self_collision, '
                'avoid_collisions).', 0.0, 1.0),
    Declaration('collision_model', 'string', '',
                "Capsule model YAML (pdls-ik's CollisionModel.save) or bundled robot name; "
                "'': the URDF's <collision> elements (the bundled model of a bundled robot). "
                "Pairs in the SRDF's disable_collisions are not checked."),
    Declaration('mesh_path', 'string_array', None,
                'Folders where package:// collision meshes are looked for (after the ament '
                'index).'),
)

#: the node parameters of the collision model (:mod:`pdls_ik.ros_logic.collision_setup`)
COLLISION_PARAMETERS = ('self_collision', 'collision_d_min', 'collision_model', 'mesh_path')


def _empty(value: Any) -> bool:
    return isinstance(value, list) and not value


def declarations() -> List[Declaration]:
    """Every parameter the node declares, solver settings first."""
    out = []
    for spec in PARAMETERS.values():
        default = None if _empty(spec.default) else spec.default
        numeric = spec.type in (int, float)
        out.append(Declaration(spec.name, ROS_TYPES[spec.type], default, spec.description,
                               spec.minimum if numeric else None,
                               spec.maximum if numeric else None))
    for alias, target in MOVEIT_ALIASES.items():
        spec = PARAMETERS[target]
        out.append(Declaration(alias, ROS_TYPES[spec.type], None,
                               f"MoveIt kinematics.yaml alias of '{target}'. {spec.description}",
                               None, None))
    out.extend(NODE_PARAMETERS)
    return out


def _normalize(name: str, value: Any) -> Any:
    """
    Convert ROS values to IKConfig values.

    Arrays become lists; [""] (an empty list in a YAML file that must name its type) becomes [].
    """
    if isinstance(value, (list, tuple)) or type(value).__name__ == 'array':
        value = list(value)
        if name in ('locked_joints', 'controller_joints') and value == ['']:
            return []
    return value


def config_from_values(values: Mapping[str, Any]) -> IKConfig:
    """
    Build an IKConfig from declared parameter values (None: unset alias or empty list).

    An alias counts when set; its target keeps its own value only if that differs from the
    default (then both must agree).

    :raises ConfigError: invalid value or conflicting alias (naming the parameter).
    """
    data: Dict[str, Any] = {}
    for name, spec in PARAMETERS.items():
        value = values.get(name)
        data[name] = spec.default if value is None else _normalize(name, value)
    if data['locked_joints'] == [] and data['locked_positions'] == [0.0]:
        data['locked_positions'] = []  # the YAML placeholder of "no locked joint"
    for alias, target in MOVEIT_ALIASES.items():
        value = values.get(alias)
        if value is None:
            continue
        if data[target] == PARAMETERS[target].default:
            del data[target]
        data[alias] = _normalize(alias, value)
    return IKConfig.from_dict(data)


def apply_changes(config: IKConfig, changes: Mapping[str, Any]
                  ) -> Tuple[Optional[IKConfig], str]:
    """
    Validate a set of parameter changes against ``config``, all or nothing.

    :return: (new config, "") when valid; (None, reason naming the parameter) otherwise, also
        when a field and its alias are given different values. Changes of parameters that are not
        solver settings are ignored here.
    """
    solver_changes: Dict[str, Any] = {}
    given_as: Dict[str, str] = {}
    for name, value in changes.items():
        target = MOVEIT_ALIASES.get(name, name)
        if target not in PARAMETERS:
            continue
        value = _normalize(target, value)
        if target in solver_changes and solver_changes[target] != value:
            return None, (f"parameter '{name}': conflicts with '{given_as[target]}' "
                          f'({value!r} != {solver_changes[target]!r})')
        solver_changes[target], given_as[target] = value, name
    if solver_changes.get('locked_joints') == [] and 'locked_positions' not in solver_changes:
        solver_changes['locked_positions'] = []
    try:
        return config.replace(**solver_changes), ''
    except ConfigError as exc:
        return None, str(exc)


def node_settings(values: Mapping[str, Any]) -> Dict[str, Any]:
    """
    Check the node's own parameters; return them normalized.

    :raises ConfigError: ``command_out_type`` not one of :data:`COMMAND_OUT_TYPES`, a
        negative ``state_timeout`` or ``stream_lookahead`` outside [0, 1] s (naming the
        parameter).
    """
    out = {d.name: values.get(d.name, d.default) for d in NODE_PARAMETERS}
    out['controller_joints'] = _normalize('controller_joints',
                                          out['controller_joints'] or [])
    if out['command_out_type'] not in COMMAND_OUT_TYPES:
        raise ConfigError(f"parameter 'command_out_type': {out['command_out_type']!r} is not "
                          f"one of {', '.join(COMMAND_OUT_TYPES)}")
    if not out['state_timeout'] >= 0.0:
        raise ConfigError(f"parameter 'state_timeout': must be >= 0 s, got "
                          f"{out['state_timeout']}")
    if not 0.0 <= out['stream_lookahead'] <= 1.0:
        raise ConfigError(f"parameter 'stream_lookahead': must be within [0, 1] s, got "
                          f"{out['stream_lookahead']}")
    return out


def read_only_names() -> List[str]:
    """Names of the parameters that cannot change at runtime."""
    return [d.name for d in declarations() if d.read_only]


def alias_groups() -> Dict[str, Tuple[str, ...]]:
    """
    Group the names of each setting that has MoveIt aliases.

    :return: IKConfig field -> (field, alias, ...), from :data:`pdls_ik.config.MOVEIT_ALIASES`.
    """
    groups: Dict[str, Tuple[str, ...]] = {}
    for alias, target in MOVEIT_ALIASES.items():
        groups[target] = groups.get(target, (target,)) + (alias,)
    return groups


def mirrored(changes: Mapping[str, Any]) -> Dict[str, Any]:
    """
    Give the other names of the settings being changed, to set in the same request.

    A change of ``kinematics_solver_timeout`` also sets ``timeout`` and the reverse, so that
    both read the value in use. A setting given under two names with different values gets
    nothing added (:func:`apply_changes` refuses it); unset values (None) are not copied.

    :param changes: parameter name -> requested value.
    :return: name not in ``changes`` -> the value requested for another name of its setting.
    """
    out: Dict[str, Any] = {}
    for names in alias_groups().values():
        given = [changes[n] for n in names if n in changes and changes[n] is not None]
        if given and all(v == given[0] for v in given):
            out.update({n: given[0] for n in names if n not in changes})
    return out


def out_of_sync(config: IKConfig, values: Mapping[str, Any]) -> Dict[str, Any]:
    """
    Find the names of aliased settings whose parameter does not read the value in use.

    At start-up a parameter file may give only ``kinematics_solver_timeout``: ``timeout`` then
    still holds its default while the solver uses the alias's value.

    :param config: the configuration in use.
    :param values: parameter name -> current value (None: unset).
    :return: name -> value of ``config`` it should read, for the names that differ.
    """
    out: Dict[str, Any] = {}
    for field, names in alias_groups().items():
        value = getattr(config, field)
        out.update({n: value for n in names if values.get(n) != value})
    return out
