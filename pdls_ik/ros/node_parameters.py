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
The node's parameters (rclpy glue only).

Declared with descriptors from :func:`pdls_ik.ros_logic.parameters.declarations` and read back;
:class:`AliasMirror` keeps a setting and its MoveIt aliases reading one value.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping

from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError
from pdls_ik.ros_logic.parameters import (alias_groups, Declaration, declarations, mirrored,
                                          out_of_sync)
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.exceptions import (InvalidParameterTypeException, InvalidParameterValueException,
                              ParameterUninitializedException)
from rclpy.parameter import Parameter

_TYPES = {'bool': Parameter.Type.BOOL, 'integer': Parameter.Type.INTEGER,
          'double': Parameter.Type.DOUBLE, 'string': Parameter.Type.STRING,
          'string_array': Parameter.Type.STRING_ARRAY,
          'double_array': Parameter.Type.DOUBLE_ARRAY}


def descriptor(decl: Declaration) -> ParameterDescriptor:
    """rcl_interfaces/ParameterDescriptor of one declaration (type, description, range)."""
    desc = ParameterDescriptor(name=decl.name, type=_TYPES[decl.ros_type].value,
                               description=decl.description, read_only=decl.read_only)
    if decl.minimum is not None and decl.maximum is not None:
        if decl.ros_type == 'integer':
            desc.integer_range = [IntegerRange(from_value=int(decl.minimum),
                                               to_value=int(decl.maximum), step=0)]
        elif decl.ros_type == 'double':
            desc.floating_point_range = [FloatingPointRange(from_value=float(decl.minimum),
                                                            to_value=float(decl.maximum),
                                                            step=0.0)]
    return desc


def declare_all(node) -> Dict[str, Any]:
    """
    Declare every parameter on ``node``; return name -> value (None when unset).

    :raises ConfigError: a value given at start-up (parameter file, command line) has the wrong
        type or is out of range, naming the parameter.
    """
    values: Dict[str, Any] = {}
    for decl in declarations():
        default = _TYPES[decl.ros_type] if decl.default is None else decl.default
        try:
            node.declare_parameter(decl.name, default, descriptor(decl))
        except InvalidParameterTypeException as exc:
            raise ConfigError(f"parameter '{decl.name}': {exc}") from None
        except InvalidParameterValueException as exc:
            raise ConfigError(f"parameter '{decl.name}': {exc}") from None
        values[decl.name] = read(node, decl.name)
    return values


def read(node, name: str) -> Any:
    """Value of parameter ``name``, None when declared typed but unset."""
    try:
        return node.get_parameter(name).value
    except ParameterUninitializedException:
        return None


def changes_of(parameters) -> Dict[str, Any]:
    """Map name -> value for a list of rclpy Parameters (arrays as lists)."""
    out = {}
    for p in parameters:
        value = p.value
        if p.type_ in (Parameter.Type.STRING_ARRAY, Parameter.Type.DOUBLE_ARRAY):
            value = list(value)
        out[p.name] = value
    return out


def typed(values: Mapping[str, Any]) -> List[Parameter]:
    """
    Return rclpy Parameters of name -> value, each of its declared type.

    A value not of that type is left out: it was copied from a request that the declared
    descriptors refuse anyway.
    """
    kinds = {d.name: _TYPES[d.ros_type] for d in declarations()}
    return [Parameter(name, kinds[name], value) for name, value in values.items()
            if kinds[name].check(value)]


class AliasMirror:
    """
    Keep every name of an aliased setting (``timeout``, ``kinematics_solver_timeout``) equal.

    With rclpy Iron or newer, a pre-set parameters callback adds the other names to each set
    request, so they are validated and set in one atomic change. rclpy Humble has no such
    callback, and parameters cannot be set from the on-set callback: there
    :meth:`after_accept` (called by the node once it accepted a change) arms a one-shot timer that
    sets the names still out of sync with the configuration in use.
    """

    #: delay of the deferred set (rclpy without pre-set callbacks) [s]
    DELAY = 0.01

    def __init__(self, node, config_of: Callable[[], IKConfig]):
        self._node = node
        self._config_of = config_of
        self._timer = None
        if callable(getattr(node, 'add_pre_set_parameters_callback', None)):
            node.add_pre_set_parameters_callback(self._with_other_names)
        else:
            self._timer = node.create_timer(self.DELAY, self._sync)
            self._timer.cancel()

    def sync_now(self) -> None:
        """Set the names that do not read the configuration in use (start-up; deferred set)."""
        names = [n for group in alias_groups().values() for n in group]
        current = {n: read(self._node, n) for n in names}
        stale = out_of_sync(self._config_of(), current)
        if stale:
            self._node.set_parameters(typed(stale))

    def after_accept(self) -> None:
        """Schedule the deferred set (rclpy without pre-set callbacks only)."""
        if self._timer is not None:
            self._timer.reset()

    def _with_other_names(self, parameters: List[Parameter]) -> List[Parameter]:
        extra = mirrored(changes_of(parameters))
        return list(parameters) + typed(extra)

    def _sync(self) -> None:
        self._timer.cancel()
        self.sync_now()
