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
The node's collision settings, without ROS: parameters -> collision model -> task entries.

Node parameters (:data:`pdls_ik.ros_logic.parameters.NODE_PARAMETERS`):

- ``self_collision`` (bool): the self-collision level (:class:`~pdls_ik.tasks.SelfCollisionTask`,
  above the pose) in every tracking cycle; ``~/compute_ik`` uses it whenever a request sets
  ``avoid_collisions``, whatever this parameter says;
- ``collision_d_min`` [m]: smallest distance between checked link pairs (and between a link and
  an environment obstacle);
- ``collision_model``: a capsule YAML (:meth:`~pdls_ik.model.collision.CollisionModel.save`) or
  a bundled robot name; "" the URDF's ``<collision>`` elements (the bundled model of a bundled
  robot);
- ``mesh_path``: folders where ``package://`` meshes are looked for.

Environment obstacles (the node's ``collision_object`` topic,
:mod:`pdls_ik.ros_logic.collision_objects`, and a task file's ``obstacles``) join the same level
(:class:`~pdls_ik.tasks.ObstacleTask`) wherever the self-collision level acts.

The link pairs skip the SRDF's ``disable_collisions`` (the node's ``robot_description_semantic``,
parameter or topic). Tracking uses the velocity damper of the tracking rate
(:func:`~pdls_ik.tasks.self_collision_task.damper_gain`, approach speed :data:`APPROACH_SPEED`
at the activation distance); one-shot solves the position form (gain 1).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
from pdls_ik.errors import ConfigError, PDLSIKError
from pdls_ik.ik.task_config import TaskConfig
from pdls_ik.model.collision import collision_model, CollisionModel, neutral_configurations
from pdls_ik.model.obstacles import ObstacleSet
from pdls_ik.tasks import ObstacleTask
from pdls_ik.tasks.self_collision_task import damper_gain, TRACKING_MARGIN

#: approach speed [m/s] allowed at the activation distance in tracking (velocity damper)
APPROACH_SPEED = 0.5
#: activation distance [m] beyond d_min: pairs farther than d_min + this give no active row
ACTIVATION_MARGIN = 0.05
#: smallest activation distance [m]
ACTIVATION_MIN = 0.1
#: slack [m] of the independent check of an answer (the rows hold d ≥ d_min to this)
CHECK_SLACK = 1e-6


@dataclass(frozen=True)
class CollisionSettings:
    """
    The node's collision parameters (module docstring).

    :ivar enabled: ``self_collision``; d_min [m]: ``collision_d_min``; model:
        ``collision_model`` ("" the URDF's); mesh_path: ``mesh_path`` folders.
    """

    enabled: bool = False
    d_min: float = 0.01
    model: str = ''
    mesh_path: Tuple[str, ...] = ()

    @property
    def activation_distance(self) -> float:
        """Return the distance [m] below which a pair gives an active row."""
        return max(ACTIVATION_MIN, self.d_min + ACTIVATION_MARGIN)


def collision_settings(values: Mapping[str, Any]) -> CollisionSettings:
    """
    Read the collision parameters from node parameter values (None: unset).

    :raises ConfigError: ``collision_d_min`` negative or not finite (naming the parameter).
    """
    d_min = values.get('collision_d_min')
    d_min = 0.01 if d_min is None else d_min
    try:
        d_min = float(d_min)
    except (TypeError, ValueError):
        raise ConfigError(f"parameter 'collision_d_min': {d_min!r} is not a number") from None
    if not (np.isfinite(d_min) and d_min >= 0.0):
        raise ConfigError(f"parameter 'collision_d_min': {d_min} must be finite and >= 0 m")
    mesh_path = tuple(str(p) for p in (values.get('mesh_path') or ()) if p)
    return CollisionSettings(bool(values.get('self_collision') or False), d_min,
                             str(values.get('collision_model') or ''), mesh_path)


def srdf_skip_pairs(srdf) -> List[Tuple[str, str, str]]:
    """Return the ``disable_collisions`` pairs of a parsed SRDF (or None) as skip pairs."""
    if srdf is None:
        return []
    return [(c.link1, c.link2, 'srdf') for c in srdf.disabled_collisions]


def build_model(linkage, settings: CollisionSettings, srdf=None) -> CollisionModel:
    """
    Build the collision model of ``linkage`` for ``settings`` and an SRDF (or None).

    :raises ConfigError: no collision geometry, a bad model file or a link it names, naming
        the parameter ``collision_model``.
    """
    try:
        return collision_model(linkage, settings.model or None, mesh_path=settings.mesh_path,
                               skip_pairs=srdf_skip_pairs(srdf),
                               neutral=neutral_configurations(linkage, srdf))
    except PDLSIKError as exc:
        raise ConfigError(f"parameter 'collision_model' ({settings.model or 'the URDF'}): "
                          f'{exc}') from None


def collision_entry(model: CollisionModel, settings: CollisionSettings,
                    tracking_rate: Optional[float] = None) -> Dict[str, Any]:
    """
    Return the ``self_collision`` task entry of a built model (:mod:`pdls_ik.ik.task_config`).

    With ``tracking_rate`` [Hz]: the velocity damper of that rate, rows held
    :data:`~pdls_ik.tasks.self_collision_task.TRACKING_MARGIN` above d_min; else the position
    form.
    """
    entry: Dict[str, Any] = {'model': model, 'd_min': settings.d_min,
                             'activation_distance': settings.activation_distance}
    if tracking_rate:
        entry['gain'] = damper_gain(APPROACH_SPEED, 1.0 / tracking_rate,
                                    settings.d_min + TRACKING_MARGIN,
                                    settings.activation_distance)
        entry['margin'] = TRACKING_MARGIN
    return entry


def with_collision(tasks: Optional[TaskConfig], entry: Optional[Dict[str, Any]],
                   obstacles: Optional[ObstacleSet] = None) -> Optional[TaskConfig]:
    """
    Return a copy of ``tasks`` whose ``self_collision`` entry is ``entry`` (None: removed).

    An entry of the task file is the base; ``entry`` overrides its keys. With ``entry``, the
    obstacle rows read ``obstacles`` (the node's set) when given, else the task file's
    obstacles; without it, no obstacle rows either. ``tasks`` itself is not changed; None stays
    None when there is nothing to add.
    """
    if entry is None:
        return None if tasks is None else replace(tasks, self_collision=None, obstacles=None)
    base = tasks if tasks is not None else TaskConfig()
    return replace(base, self_collision=dict(base.self_collision or {}, **entry),
                   obstacles=obstacles if obstacles is not None else base.obstacles)


def closest_pair(model: CollisionModel, q) -> Tuple[str, str, float]:
    """Return (link_a, link_b, distance [m]) of the closest checked pair at q (n,)."""
    if not model.pairs:
        return '', '', float('inf')
    d = model.distances(np.asarray(q, dtype=float)).distance
    k = int(np.argmin(d))
    return model.pairs[k][0], model.pairs[k][1], float(d[k])


def closest_obstacle(model: CollisionModel, q, obstacles: ObstacleSet, free=None
                     ) -> Tuple[str, str, float]:
    """
    Return (link, obstacle, distance [m]) of the link nearest to an obstacle at q (n,).

    :param free: (n,) bool mask: only the links these variables move (default: every link a
        joint moves).
    """
    task = ObstacleTask(model.linkage, model, obstacles, d_min=0.0, activation_distance=1.0,
                        rows_per_link=1)
    if free is not None:
        task = task.restricted_to(free)
    task.compute(np.asarray(q, dtype=float))
    return task.closest()


def collision_text(model: CollisionModel, q, d_min: float,
                   obstacles: Optional[ObstacleSet] = None, free=None) -> Tuple[bool, str]:
    """
    Check q (n,) independently: (every pair and obstacle ≥ d_min − :data:`CHECK_SLACK`, line).

    The line names the closest link pair (and the link nearest to an obstacle) with distances.
    With ``free`` ((n,) bool mask of the variables the solve changed), only the pairs and links
    those variables move are checked (:meth:`CollisionModel.moved_by`): a pair that no variable
    of the request moves is named in the line when in collision, but does not fail the check (it
    was so in the given state, and the request cannot change it).
    """
    lines, ok = [], True
    checked = model if free is None else model.moved_by(free)
    a, b, d = closest_pair(checked, q)
    if a:
        fine = d >= d_min - CHECK_SLACK
        lines.append(f"{'closest' if fine else 'in collision:'} link pair {a} / {b} at "
                     f'{d:.4f} m')
        ok &= fine
    if checked is not model:
        a, b, d = closest_pair(model, q)
        if d < d_min - CHECK_SLACK and (a, b) not in checked.pairs:
            lines.append(f'link pair {a} / {b} at {d:.4f} m, which the request does not move: '
                         'not checked')
    if obstacles is not None and obstacles.snapshot():
        link, name, d = closest_obstacle(model, q, obstacles, free)
        if link:
            fine = d >= d_min - CHECK_SLACK
            lines.append(f"{'nearest obstacle' if fine else 'in collision with obstacle'} "
                         f"'{name}' at {d:.4f} m from {link}")
            ok &= fine
    if not lines:
        return True, 'no link pair to check'
    return ok, '; '.join(lines) + f' (d_min {d_min:g} m)'


def collision_status(robot) -> Tuple[str, str]:
    """
    Return ("ok" or "error", message) of a :class:`~pdls_ik.ros_logic.robot.Robot`'s collision.

    "error" when ``self_collision`` is on and the model could not be built (the node runs on
    without the level); "ok" with the model's counts, or saying that the level is off.
    """
    settings = robot.collision_settings
    if robot.collision_problem:
        return 'error', (f'self_collision is on but not applied: {robot.collision_problem}; '
                         'tracking runs without the collision level')
    if robot.collision is None:
        return 'ok', ('off in tracking (self_collision false); ~/compute_ik requests with '
                      'avoid_collisions are checked')
    return 'ok', (f'on: {robot.collision.report()[0]}, d_min {settings.d_min:g} m')
