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
Solver configuration: :class:`IKConfig`, one flat table of validated fields, and YAML loading.

The field names are also the ROS 2 node's parameter names. Each field carries a description, a
type and a valid range in its dataclass metadata; :data:`PARAMETERS` lists them as
:class:`ParameterSpec` rows so that the node declares parameters with descriptors from the same
table. :meth:`IKConfig.from_dict` and :meth:`IKConfig.replace` validate everything before building
a new object: a bad key, type or value raises :class:`~pdls_ik.errors.ConfigError` naming the key,
and nothing is half-applied.

MoveIt ``kinematics.yaml`` keys are accepted as aliases (:data:`MOVEIT_ALIASES`):
``kinematics_solver_timeout`` → ``timeout``, ``position_only_ik`` → ``position_only``,
``epsilon`` → ``position_tolerance``; the plugin-selection keys ``kinematics_solver``,
``kinematics_solver_search_resolution`` and ``kinematics_solver_attempts`` are ignored.
"""
import dataclasses
from dataclasses import dataclass, field
import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from pdls_ik.errors import ConfigError

INF = math.inf
MOVEIT_ALIASES = {'kinematics_solver_timeout': 'timeout', 'position_only_ik': 'position_only',
                  'epsilon': 'position_tolerance'}
MOVEIT_IGNORED = ('kinematics_solver', 'kinematics_solver_search_resolution',
                  'kinematics_solver_attempts')
DEFAULT_NODE_NAME = 'pdls_ik_node'
#: values of ``limit_strategy`` (pdls_ik.pdls.options.LIMIT_STRATEGIES, not imported: config
#: stays free of the solver)
LIMIT_STRATEGIES = ('clamping', 'pgs')
#: values of ``backend``: "auto" (numba when importable and the problem is covered), "numpy"
#: (the reference implementation), "numba" (the compiled kernels of pdls_ik._accel:
#: ik_solver_numba for one-shot solves, track_problem_numba for tracking cycles)
BACKENDS = ('auto', 'numpy', 'numba')
#: default velocity bound [rad/s] of a revolute or continuous joint without a usable URDF
#: velocity limit (``default_velocity_limit``): about half the slowest joint of common arms
DEFAULT_VELOCITY_LIMIT = 1.0
#: default velocity bound [m/s] of a prismatic joint without a usable URDF velocity limit
#: (``default_prismatic_velocity_limit``): a gripper finger's or a linear axis's slow speed
DEFAULT_PRISMATIC_VELOCITY_LIMIT = 0.1


def _p(default, description: str, lo=None, hi=None, lo_open=False, hi_open=False):
    """Declare a config field with its description and valid range [lo, hi] (open ends if set)."""
    meta = {'description': description, 'range': (lo, hi), 'open': (lo_open, hi_open)}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class IKConfig:
    """Every setting of the IK solver, the tracking loop and the trajectories (units in names)."""

    base_link: str = _p('', 'Base frame of goals and of the IK chain; empty: the URDF root link.')
    tip_link: str = _p('', 'Link whose pose is controlled (the effector); required by the node.')
    position_tolerance: float = _p(1e-5, 'Position tolerance for success [m].', 0.0, 1.0,
                                   lo_open=True)
    orientation_tolerance: float = _p(
        1e-4, 'Orientation tolerance for success [rad]; >= pi ignores orientation.',
        0.0, 2 * math.pi, lo_open=True)
    position_only: bool = _p(False, 'Solve for the tip position only (orientation free).')
    timeout: float = _p(0.005, 'Time budget of one one-shot solve, restarts included [s].',
                        0.0, 3600.0, lo_open=True)
    max_iterations: int = _p(100, 'Iteration budget of one local solve (before a restart).',
                             1, 100000)
    max_step: float = _p(1.5, 'Largest joint variation norm of one iteration [rad] '
                              '(theta_diff_max_mag; also sets the automatic damping).',
                         0.0, 10.0, lo_open=True)
    damping_target_scale: float = _p(
        3.0, 'The automatic damping of a one-shot solve aims at a step of max_step times this '
             '(Baerlocher 2001; PDLSOptions.auto_lambda_theta_diff_max_mag_scale): above 1, a '
             'step far from the goal is damped less and clamped to max_step instead. Tracking '
             'cycles aim at their velocity bound, solves with extra tasks at max_step.', 0.0,
        100.0, lo_open=True)
    damping: float = _p(-1.0, 'Damping lambda of every level; < 0: automatic per level '
                              '(Baerlocher 2001), >= 0: fixed.', -1.0, 1e3)
    limit_strategy: str = _p('clamping', 'How a step is kept within the joint limits: '
                                         "'clamping' (limiting loop, the default) or 'pgs' "
                                         "(each level's damped bounded problem in strict "
                                         'priority, by projected Gauss-Seidel; slower).')
    backend: str = _p('auto', "Implementation of solves and tracking cycles: 'numpy' (the "
                              "reference), 'numba' (compiled kernels; plain pose or "
                              'position-only goals, joint locks allowed, without extra tasks, '
                              "limit_strategy 'clamping', numba installed) or 'auto' (numba "
                              'where it applies, else numpy).')
    pose_priority: int = _p(0, 'Priority of the pose task among targets (smaller = higher).',
                            0, 100)
    position_weight: float = _p(1.0, 'Weight of the position rows [1/m].', 0.0, 1e6,
                                lo_open=True)
    orientation_weight: float = _p(1.0, 'Weight of the orientation rows [1/rad].', 0.0, 1e6,
                                   lo_open=True)
    posture_enabled: bool = _p(True, 'While tracking, pull redundant joints toward the middle '
                                     'of their limits (lowest priority, in the null space of '
                                     'the tasks).')
    posture_weight: float = _p(0.1, 'Gain of the posture variation per iteration [1] (tracking: '
                                    'per cycle, within a quarter of the velocity bound).',
                               0.0, 1.0)
    locked_joints: List[str] = _p([], 'Joints held at locked_positions (priority above targets).')
    locked_positions: List[float] = _p([], 'Values of the locked joints [rad or m], same order.')
    tasks_file: str = _p('', 'YAML file of closures and extra tasks solved with the tip pose '
                             '(keys: pdls_ik/ik/task_config.py, e.g. '
                             'config/fourbar_closures.yaml; '
                             "a relative path is relative to the working directory); '': none.")
    random_seed: int = _p(0, 'Seed of the random restarts (reproducible solves).', 0, 2**31 - 1)
    random_restarts: bool = _p(True, 'Restart from random in-limit seeds until the timeout when '
                                     'a local solve fails (one-shot solves only).')
    tracking_rate: float = _p(100.0, 'Rate of the tracking loop [Hz].', 0.0, 10000.0,
                              lo_open=True)
    tracking_max_iterations: int = _p(10, 'Iteration budget of one tracking cycle (the '
                                          'primary bound).', 1, 10000)
    tracking_timeout: float = _p(0.005, 'Time budget of one tracking cycle [s]: a safety net, '
                                        'checked between iterations once two are done.',
                                 0.0, 10.0, lo_open=True)
    velocity_scaling: float = _p(1.0, 'Fraction of the URDF velocity limits used (0, 1].',
                                 0.0, 1.0, lo_open=True)
    acceleration_scaling: float = _p(1.0, 'Fraction of max_acceleration used (0, 1].',
                                     0.0, 1.0, lo_open=True)
    max_acceleration: float = _p(0.0, 'Joint acceleration limit of trajectories [rad/s^2]; '
                                      '0: each joint reaches its velocity limit in 0.2 s '
                                      '(streamed), none (one-shot).', 0.0, 1e6)
    trajectory_horizon: float = _p(0.1, 'Minimum duration of a published trajectory [s].',
                                   0.0, 60.0)
    default_velocity_limit: float = _p(
        DEFAULT_VELOCITY_LIMIT, 'Velocity bound [rad/s] of a revolute or continuous joint '
        'whose URDF gives no usable velocity limit (0 or missing), in trajectories and '
        'tracking.', 0.0, 1e3, lo_open=True)
    default_prismatic_velocity_limit: float = _p(
        DEFAULT_PRISMATIC_VELOCITY_LIMIT, 'Velocity bound [m/s] of a prismatic joint whose URDF '
        'gives no usable velocity limit (0 or missing), in trajectories and tracking.', 0.0,
        1e3, lo_open=True)

    def __post_init__(self):
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, _check(f, getattr(self, f.name)))
        if len(self.locked_joints) != len(self.locked_positions):
            raise ConfigError(
                f'locked_positions: {len(self.locked_positions)} values for '
                f'{len(self.locked_joints)} locked_joints')
        if self.limit_strategy not in LIMIT_STRATEGIES:
            raise ConfigError(f"parameter 'limit_strategy': expected one of "
                              f"{', '.join(LIMIT_STRATEGIES)}, got {self.limit_strategy!r}")
        if self.backend not in BACKENDS:
            raise ConfigError(f"parameter 'backend': expected one of {', '.join(BACKENDS)}, "
                              f'got {self.backend!r}')
        if len(set(self.locked_joints)) != len(self.locked_joints):
            raise ConfigError('locked_joints: a joint is listed twice')

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> 'IKConfig':
        """
        Build a config from a mapping of field names (and MoveIt aliases) to values.

        :raises ConfigError: unknown key, wrong type, value out of range, conflicting alias; the
            message names the key. Nothing is applied when an error is raised.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f'configuration: expected a mapping of parameters, got '
                              f'{type(data).__name__}')
        return cls(**_canonical(data))

    def replace(self, **changes: Any) -> 'IKConfig':
        """Return a copy with ``changes`` applied, checked like :meth:`from_dict` (aliases too)."""
        merged = self.to_dict()
        merged.update(_canonical(changes))
        return type(self)(**merged)

    def to_dict(self) -> Dict[str, Any]:
        """Field name → value (lists copied)."""
        return {f.name: _copy(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class ParameterSpec:
    """
    One row of the parameter table.

    ``type`` is bool, int, float, str, "str[]" or "float[]"; ``minimum``/``maximum`` are None for
    unbounded or non-numeric parameters.
    """

    name: str
    type: Union[type, str]  # noqa: A003 (a public field name)
    default: Any
    description: str
    minimum: Optional[float]
    maximum: Optional[float]


_LIST_TYPES = {List[str]: 'str[]', List[float]: 'float[]'}


def _spec(f: dataclasses.Field) -> ParameterSpec:
    lo, hi = f.metadata['range']
    default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
    kind = _LIST_TYPES.get(f.type, f.type)
    return ParameterSpec(f.name, kind, default, f.metadata['description'], lo, hi)


_FIELDS = {f.name: f for f in dataclasses.fields(IKConfig)}

#: the parameter table: name -> ParameterSpec (description, type, default, range)
PARAMETERS: Dict[str, ParameterSpec] = {name: _spec(f) for name, f in _FIELDS.items()}


def _copy(value):
    return list(value) if isinstance(value, list) else value


def _canonical(data: Mapping[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    source: Dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            raise ConfigError(f'parameter {key!r}: parameter names must be strings')
        if key in MOVEIT_IGNORED:
            continue
        name = MOVEIT_ALIASES.get(key, key)
        if name not in _FIELDS:
            raise ConfigError(f"parameter '{key}': unknown parameter (known: "
                              f"{', '.join(sorted(_FIELDS))})")
        if name in out and out[name] != value:
            raise ConfigError(f"parameter '{key}': conflicts with '{source[name]}' "
                              f'({value!r} != {out[name]!r})')
        out[name], source[name] = value, key
    return out


def _check(f: dataclasses.Field, value: Any) -> Any:
    """Validate (and normalize: int → float, tuple → list) a value of field ``f``."""
    name, kind = f.name, f.type
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"parameter '{name}': expected true or false, got {value!r}")
        return value
    if kind is str:
        if not isinstance(value, str):
            raise ConfigError(f"parameter '{name}': expected a string, got {value!r}")
        return value
    if kind in (List[str], List[float]):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"parameter '{name}': expected a list, got {value!r}")
        item = str if kind == List[str] else float
        return [_scalar(name, v, item) for v in value]
    value = _scalar(name, value, kind)
    lo, hi = f.metadata['range']
    lo_open, hi_open = f.metadata['open']
    if ((lo is not None and (value < lo or (lo_open and value == lo)))
            or (hi is not None and (value > hi or (hi_open and value == hi)))):
        raise ConfigError(f"parameter '{name}': {value!r} is outside "
                          f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}")
    return value


def _scalar(name: str, value: Any, kind: type) -> Any:
    if kind is str:
        if not isinstance(value, str):
            raise ConfigError(f"parameter '{name}': expected strings, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"parameter '{name}': expected a number, got {value!r}")
    if kind is int:
        if isinstance(value, float) and not value.is_integer():
            raise ConfigError(f"parameter '{name}': expected an integer, got {value!r}")
        return int(value)
    if not math.isfinite(value):
        raise ConfigError(f"parameter '{name}': expected a finite number, got {value!r}")
    return float(value)


def _parameters_of(doc: Any, node_name: str) -> Tuple[Dict[str, Any], bool]:
    """Return the parameter mapping of a YAML document and whether it was in ROS 2 file form."""
    if not isinstance(doc, Mapping):
        raise ConfigError('configuration file: expected a mapping at the top level')
    sections = {k: v for k, v in doc.items()
                if isinstance(v, Mapping) and 'ros__parameters' in v}
    if not sections:
        return dict(doc), False
    merged: Dict[str, Any] = {}
    # wildcard first, then the node's own section (its values win)
    for key in sorted(sections, key=lambda k: 0 if str(k) in ('/**', '**') else 1):
        base = str(key).rstrip('/').split('/')[-1]
        if str(key) in ('/**', '**') or base == node_name:
            params = sections[key]['ros__parameters'] or {}
            if not isinstance(params, Mapping):
                raise ConfigError(f"configuration file: '{key}.ros__parameters' is not a mapping")
            merged.update(params)
    return merged, True


def yaml_error_line(exc: Exception) -> str:
    """One line for a PyYAML error: the problem and where (line, column), not its excerpt."""
    mark = getattr(exc, 'problem_mark', None)
    problem = getattr(exc, 'problem', None) or str(exc).splitlines()[0]
    if mark is None:
        return problem
    return f'{problem} at line {mark.line + 1}, column {mark.column + 1}'


def load_config(path: Union[str, Path], node_name: str = DEFAULT_NODE_NAME) -> IKConfig:
    """
    Read an :class:`IKConfig` from a YAML file.

    Accepted forms: a ROS 2 parameter file (``pdls_ik_node: {ros__parameters: {...}}``,
    ``/**: {ros__parameters: {...}}``, namespaced node keys such as ``/arm/pdls_ik_node``; the
    wildcard section applies first, the node's own section overrides it) or a plain mapping of
    parameters. MoveIt kinematics.yaml aliases are accepted.

    :raises ConfigError: unreadable YAML, or any invalid key or value (naming the key).
    :raises OSError: the file cannot be read.
    """
    import yaml

    try:
        doc = yaml.safe_load(Path(path).read_text())
    except OSError as exc:
        raise ConfigError(f"configuration file '{path}': cannot read it: "
                          f'{exc.strerror or exc}') from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"configuration file '{path}': invalid YAML: "
                          f'{yaml_error_line(exc)}') from None
    if doc is None:
        return IKConfig()
    params, _ = _parameters_of(doc, node_name)
    try:
        return IKConfig.from_dict(params)
    except ConfigError as exc:
        raise ConfigError(f'{path}: {exc}') from None
