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
Closures and extra tasks from YAML or a dict (also used by the ROS node's parameter files).

Keys (every one optional; unknown keys are errors naming the key)::

    floating_base: false          # true: the URDF root floats (FloatingBase), q has a quaternion
    limit_strategy: clamping      # or pgs (projected Gauss-Seidel, pdls.pgs)
    solve_groups: false           # split independent joints/tasks into separate problems
    fixed_joints: [torso_yaw]     # joints the solver must not move
    closures:                     # loop closures, solved at the highest ("invariant") level
      - link_a: coupler           # required
        link_b: rocker            # required
        frame_a: [0.25, 0, 0]     # point [m] in link_a, or {position: [..], orientation: [..]}
        frame_b: [0.2, 0, 0]
        mode: position            # pose (6 rows, welded) | position (3 rows, ball joint)
        tolerance: 1.0e-10        # [m] / [rad]
        name: loop_b
    tasks:                        # extra tasks; "type" selects the class
      - {type: com, target: [0, 0, 0], axes: [true, true, false], tolerance: 1.0e-5}
      - {type: frame, link: l_hand, position: [..], orientation: [x, y, z, w], priority: 1}
      - {type: relative_frame, link: l_tool, relative_to: r_tool, position: [..]}
      - {type: look_at, link: camera, target: [1, 0, 1], axis: x, target_link: null}
      - {type: position_bound, link: l_tool, lower: [null, null, 0.1], upper: [.., .., ..]}
      - {type: position_bound, link: l_tool, normal: [0, 0, 1], offset: 0.1}
      - {type: limit_avoidance, fraction: 0.1}
      - {type: joint_lock, joints: [crank_joint], positions: [0.5]}
      - {type: posture, preferred: [..], weight: 0.1, priority: 0}
      - {type: potential, gravity: [0, 0, -9.81], stiffness: [..], rest: [..], priority: 1}
    self_collision:               # or "true" for the defaults: a level above the pose task
      d_min: 0.01                 # [m] smallest allowed distance between checked link pairs
      activation_distance: 0.1    # [m] pairs farther apart give no active row
      gain: 1.0                   # (0, 1]: 1 one-shot position form, < 1 velocity damper
      margin: 0.0                 # [m] rows held at d_min + margin (tracking: 0.002)
      model: panda                # capsules YAML (CollisionModel.save) or bundled robot name
                                  # (from Python: a CollisionModel);
                                  # default: the URDF's <collision> elements
      srdf: robot.srdf            # its disable_collisions pairs are not checked
      skip_pairs: [[link_a, link_b]]
      mesh_path: [/path/to/meshes]      # where package:// meshes are looked for
      capsules_per_mesh: 3
      priority: -1                # with weight, tolerance, name
    obstacles:                    # environment obstacles in the base (root) frame, kept d_min
      - {type: box, size: [0.6, 1.0, 0.05], position: [0.5, 0, 0.2], orientation: [0, 0, 0, 1]}
      - {type: sphere, radius: 0.1, position: [0.3, 0.3, 0.6], name: ball}
      - {type: cylinder, radius: 0.05, length: 0.4, position: [..]}   # bounded by its capsule
      - {type: plane, normal: [0, 0, 1], offset: 0.0}                   # free side: normal's
                                  # away from the links: one more task on the self_collision
                                  # level (its d_min, gain, model...; defaults without it)

Every task also accepts ``name``, ``priority`` (targets, smaller = higher) and ``weight``; the
other keys are the task class's constructor arguments (see its docstring). ``self_collision``
builds a :class:`~pdls_ik.tasks.SelfCollisionTask` on
:func:`pdls_ik.model.collision.collision_model`; relative ``model`` and ``srdf`` paths of a file
are taken from the file's folder. ``obstacles`` builds an :class:`~pdls_ik.tasks.ObstacleTask` on
the same collision model (from Python, an :class:`~pdls_ik.model.obstacles.ObstacleSet` may
stand for the list: the node's obstacles, changing while it runs).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
from pdls_ik.config import yaml_error_line
from pdls_ik.errors import ConfigError, PDLSIKError
from pdls_ik.lie.se3 import parse_pose
from pdls_ik.model.collision import collision_model, CollisionModel
from pdls_ik.model.obstacles import Obstacle, ObstacleSet, plane_obstacle
from pdls_ik.tasks import (ClosureTask, CoMTask, FrameTask, JointLockTask, LimitAvoidanceTask,
                           LookAtTask, ObstacleTask, PositionBoundTask, PostureTask,
                           PotentialEnergyTask, RelativeFrameTask, SelfCollisionTask, Task)

_COMMON = ('name', 'priority', 'weight')
_FRAME = ('link', 'base', 'position', 'orientation', 'position_mask', 'orientation_mask',
          'position_weight', 'orientation_weight', 'position_tolerance',
          'orientation_tolerance', 'name', 'priority')
#: type → (class, allowed keys, required keys)
TASK_TYPES: Dict[str, Tuple[type, Tuple[str, ...], Tuple[str, ...]]] = {
    'frame': (FrameTask, _FRAME, ('link', 'position')),
    'relative_frame': (RelativeFrameTask, _FRAME + ('relative_to',),
                       ('link', 'relative_to', 'position')),
    'com': (CoMTask, _COMMON + ('target', 'axes', 'base', 'tolerance'), ('target',)),
    'look_at': (LookAtTask, _COMMON + ('link', 'target', 'axis', 'base', 'target_link',
                                       'tolerance'), ('link', 'target')),
    'position_bound': (PositionBoundTask, _COMMON + ('link', 'point', 'lower', 'upper',
                                                     'normal', 'offset', 'base', 'tolerance'),
                       ('link',)),
    'limit_avoidance': (LimitAvoidanceTask, _COMMON + ('fraction', 'joints',
                                                       'use_safety_limits'), ()),
    'joint_lock': (JointLockTask, ('name', 'weight', 'joints', 'positions'),
                   ('joints', 'positions')),
    'posture': (PostureTask, ('name', 'weight', 'preferred', 'priority'), ()),
    'potential': (PotentialEnergyTask, _COMMON + ('gravity', 'stiffness', 'rest', 'curvature',
                                                  'tolerance'), ()),
}
CLOSURE_KEYS = ('name', 'link_a', 'link_b', 'frame_a', 'frame_b', 'mode', 'tolerance', 'weight')
TOP_KEYS = ('floating_base', 'limit_strategy', 'solve_groups', 'fixed_joints', 'closures',
            'tasks', 'self_collision', 'obstacles')
#: obstacle type → (allowed keys, required keys)
OBSTACLE_TYPES = {
    'box': (('type', 'name', 'size', 'position', 'orientation'), ('size', 'position')),
    'sphere': (('type', 'name', 'radius', 'position'), ('radius', 'position')),
    'cylinder': (('type', 'name', 'radius', 'length', 'position', 'orientation'),
                 ('radius', 'length', 'position')),
    'capsule': (('type', 'name', 'radius', 'length', 'position', 'orientation'),
                ('radius', 'length', 'position')),
    'plane': (('type', 'name', 'normal', 'offset'), ('normal',)),
}
#: self_collision keys: the task's, then the collision model's
COLLISION_TASK_KEYS = ('d_min', 'activation_distance', 'gain', 'margin', 'weight',
                       'tolerance', 'priority', 'name')
COLLISION_MODEL_KEYS = ('model', 'srdf', 'skip_pairs', 'mesh_path', 'capsules_per_mesh')


def _mapping(value, key: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise ConfigError(f'{key}: expected a mapping of keys, got {type(value).__name__}')
    return value


def _check_keys(entry: Mapping, allowed, required, key: str) -> None:
    for k in entry:
        if k not in allowed:
            raise ConfigError(f"{key}.{k}: unknown key (allowed: {', '.join(allowed)})")
    for k in required:
        if entry.get(k) is None:
            raise ConfigError(f'{key}.{k}: required key is missing')


def _frame_value(value, key: str):
    """Read a closure frame: None, a point [x, y, z], or {position, orientation}."""
    if value is None or isinstance(value, (list, tuple)):
        return value
    entry = _mapping(value, key)
    _check_keys(entry, ('position', 'orientation'), ('position',), key)
    return (entry['position'], entry.get('orientation', (0.0, 0.0, 0.0, 1.0)))


@dataclass
class TaskConfig:
    """Validated closure and task entries (see the module docstring for the keys)."""

    floating_base: bool = False
    limit_strategy: str = 'clamping'
    solve_groups: bool = False
    fixed_joints: List[str] = field(default_factory=list)
    closures: List[Dict[str, Any]] = field(default_factory=list)
    tasks: List[Dict[str, Any]] = field(default_factory=list)
    #: the ``self_collision`` entry, or None
    self_collision: Optional[Dict[str, Any]] = None
    #: the obstacles (:class:`~pdls_ik.model.obstacles.Obstacle` list, or an ObstacleSet), or
    #: None
    obstacles: Optional[Union[List[Obstacle], ObstacleSet]] = None

    @classmethod
    def from_dict(cls, data: Mapping) -> 'TaskConfig':
        """
        Check the structure and keys (links are checked by :meth:`build`).

        :raises ConfigError: unknown or missing key, wrong type, unknown task type; names the key
            (e.g. ``tasks[2].link``).
        """
        data = _mapping(data if data is not None else {}, 'config')
        _check_keys(data, TOP_KEYS, (), 'config')
        for flag in ('floating_base', 'solve_groups'):
            if not isinstance(data.get(flag, False), bool):
                raise ConfigError(f'{flag}: expected true or false, got {data[flag]!r}')
        strategy = data.get('limit_strategy', 'clamping')
        if strategy not in ('clamping', 'pgs'):
            raise ConfigError(f'limit_strategy: expected clamping or pgs, got {strategy!r}')
        fixed = data.get('fixed_joints') or []
        if not isinstance(fixed, list) or not all(isinstance(j, str) for j in fixed):
            raise ConfigError(f'fixed_joints: expected a list of joint names, got {fixed!r}')
        closures, tasks = [], []
        for i, entry in enumerate(data.get('closures') or []):
            key = f'closures[{i}]'
            entry = dict(_mapping(entry, key))
            _check_keys(entry, CLOSURE_KEYS, ('link_a', 'link_b'), key)
            if entry.get('mode', 'pose') not in ('pose', 'position'):
                raise ConfigError(f'{key}.mode: expected pose or position, got '
                                  f"{entry['mode']!r}")
            for side in ('frame_a', 'frame_b'):
                entry[side] = _frame_value(entry.get(side), f'{key}.{side}')
            closures.append(entry)
        for i, entry in enumerate(data.get('tasks') or []):
            key = f'tasks[{i}]'
            entry = dict(_mapping(entry, key))
            kind = entry.pop('type', None)
            if kind not in TASK_TYPES:
                raise ConfigError(f"{key}.type: expected one of {', '.join(TASK_TYPES)}, got "
                                  f'{kind!r}')
            _, allowed, required = TASK_TYPES[kind]
            _check_keys(entry, allowed, required, key)
            entry['type'] = kind
            tasks.append(entry)
        collision = data.get('self_collision')
        if collision is True:
            collision = {}
        elif collision is False:
            collision = None
        elif collision is not None:
            collision = dict(_mapping(collision, 'self_collision'))
            _check_keys(collision, COLLISION_TASK_KEYS + COLLISION_MODEL_KEYS, (),
                        'self_collision')
        obstacles = data.get('obstacles')
        if obstacles is not None:
            if not isinstance(obstacles, list):
                raise ConfigError(f'obstacles: expected a list of obstacles, got '
                                  f'{type(obstacles).__name__}')
            obstacles = [obstacle_from_entry(entry, f'obstacles[{i}]')
                         for i, entry in enumerate(obstacles)]
        return cls(data.get('floating_base', False), strategy,
                   data.get('solve_groups', False), list(fixed), closures, tasks, collision,
                   obstacles)

    def build(self, linkage) -> List[Task]:
        """
        Build the tasks (closures first) on ``linkage`` (a Linkage or FloatingBase).

        :raises ConfigError: an entry the task rejects (unknown link, robot without inertials,
            bad value), naming the entry's key and the task's own message.
        """
        out: List[Task] = []
        for i, entry in enumerate(self.closures):
            out.append(_construct(ClosureTask, linkage, entry, f'closures[{i}]'))
        for i, entry in enumerate(self.tasks):
            entry = dict(entry)
            cls = TASK_TYPES[entry.pop('type')][0]
            if 'position' in entry:                    # frame targets: (position, quaternion)
                entry['target'] = (entry.pop('position'),
                                   entry.pop('orientation', (0.0, 0.0, 0.0, 1.0)))
            if cls is JointLockTask:
                entry['values'] = entry.pop('positions')
            out.append(_construct(cls, linkage, entry, f'tasks[{i}]'))
        if self.self_collision is not None:
            out.append(self_collision_task(linkage, self.self_collision))
        if self.obstacles is not None:
            model = out[-1].model if self.self_collision is not None else \
                self_collision_task(linkage, {}).model
            entry = self.self_collision or {}
            args = {k: entry[k] for k in ('d_min', 'activation_distance', 'gain', 'margin',
                                          'priority') if entry.get(k) is not None}
            out.append(_construct(ObstacleTask, linkage,
                                  dict(args, model=model, obstacles=self.obstacles),
                                  'obstacles'))
        return out


def obstacle_from_entry(entry, key: str) -> Obstacle:
    """
    Build an :class:`~pdls_ik.model.obstacles.Obstacle` from a task-file entry (module doc).

    A cylinder becomes the capsule that contains it.

    :raises ConfigError: unknown type or key, a missing key, a bad value (naming ``key``).
    """
    entry = dict(_mapping(entry, key))
    kind = entry.get('type')
    if kind not in OBSTACLE_TYPES:
        raise ConfigError(f"{key}.type: expected one of {', '.join(OBSTACLE_TYPES)}, got "
                          f'{kind!r}')
    _check_keys(entry, *OBSTACLE_TYPES[kind], key)
    name = str(entry.get('name') or key)
    try:
        if kind == 'plane':
            return plane_obstacle(name, entry['normal'], float(entry.get('offset', 0.0)))
        p, R, _ = parse_pose((entry['position'], entry.get('orientation', (0, 0, 0, 1))))
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = R, p
        if kind == 'box':
            return Obstacle(name, 'box', pose, tuple(entry['size']))
        if kind == 'sphere':
            return Obstacle(name, 'sphere', pose, (entry['radius'],))
        return Obstacle(name, 'capsule', pose, (entry['radius'], entry['length']))
    except (PDLSIKError, TypeError, ValueError) as err:
        raise ConfigError(f'{key} ({kind}): {err}') from None


def self_collision_task(linkage, entry: Mapping[str, Any]) -> SelfCollisionTask:
    """
    Build a SelfCollisionTask from a ``self_collision`` entry (keys: module docstring).

    :raises ConfigError: a model that cannot be built or a value the task rejects, naming
        ``self_collision``.
    """
    model_args = {k: entry[k] for k in COLLISION_MODEL_KEYS if entry.get(k) is not None}
    if 'skip_pairs' in model_args:
        pairs = model_args['skip_pairs']
        if not isinstance(pairs, list) or not all(isinstance(p, (list, tuple)) and len(p) == 2
                                                  for p in pairs):
            raise ConfigError(f'self_collision.skip_pairs: expected a list of [link_a, link_b],'
                              f' got {pairs!r}')
    if isinstance(model_args.get('mesh_path'), str):
        model_args['mesh_path'] = [model_args['mesh_path']]
    if isinstance(model_args.get('model'), CollisionModel):   # built already (the node's)
        model = model_args['model']
    else:
        try:
            model = collision_model(linkage, **model_args)
        except (PDLSIKError, TypeError) as err:
            raise ConfigError(f'self_collision: {err}') from err
    task_args = {k: entry[k] for k in COLLISION_TASK_KEYS if entry.get(k) is not None}
    return _construct(SelfCollisionTask, linkage, dict(task_args, model=model),
                      'self_collision')


def _construct(cls, linkage, kwargs: Dict[str, Any], key: str) -> Task:
    try:
        return cls(linkage, **kwargs)
    except (PDLSIKError, TypeError, ValueError) as err:
        raise ConfigError(f'{key} ({cls.__name__}): {err}') from err


def load_task_config(source: Union[str, Path, Mapping]) -> TaskConfig:
    """
    Load a :class:`TaskConfig` from a YAML file path or an already parsed mapping.

    The YAML may hold the keys at the top level or under ``pdls_ik_tasks``.

    :raises ConfigError: unreadable file, invalid YAML, or an invalid key (named).
    """
    if isinstance(source, Mapping):
        data = source
    else:
        import yaml
        try:
            data = yaml.safe_load(Path(source).read_text())
        except OSError as err:
            raise ConfigError(f"task config '{source}': cannot read ({err.strerror})") from None
        except yaml.YAMLError as err:
            raise ConfigError(f"task config '{source}': invalid YAML ({yaml_error_line(err)})"
                              ) from None
    if isinstance(data, Mapping) and 'pdls_ik_tasks' in data:
        data = data['pdls_ik_tasks']
    config = TaskConfig.from_dict(data)
    if config.self_collision and not isinstance(source, Mapping):
        for key in ('model', 'srdf'):     # relative to the task file (a bundled name stays)
            value = config.self_collision.get(key)
            if isinstance(value, str) and (Path(source).parent / value).is_file():
                config.self_collision[key] = str(Path(source).parent / value)
    return config
