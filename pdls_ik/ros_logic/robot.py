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
A robot ready to solve: linkage, base and tip links, config, and solver factory.

Built in one step from a robot description and an :class:`~pdls_ik.config.IKConfig` (with the
closures and extra tasks of its ``tasks_file``, :mod:`pdls_ik.ik.task_config`, and the collision
model of the node's collision parameters, :mod:`pdls_ik.ros_logic.collision_setup`); the
node swaps a whole :class:`Robot` when the description or a parameter changes, so that a
failing change leaves the previous robot in service (never half-applied).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np
from numpy.typing import NDArray
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, InputError, URDFError
from pdls_ik.ik import IKSolver
from pdls_ik.ik.task_config import load_task_config, TaskConfig
from pdls_ik.model import load_urdf
from pdls_ik.model.obstacles import ObstacleSet
from pdls_ik.ros_logic.collision_setup import (build_model, collision_entry, CollisionSettings,
                                               with_collision)


@dataclass(frozen=True)
class Robot:
    """
    Linkage + config; ``base_link`` and ``tip_link`` resolved and checked against the model.

    :ivar tasks: the closures and extra tasks of ``config.tasks_file`` (None without one),
        given to every solver.
    :ivar collision_settings: the node's collision parameters.
    :ivar collision: the collision model (:class:`~pdls_ik.model.collision.CollisionModel`)
        when ``collision_settings.enabled`` and it could be built, else None.
    :ivar collision_problem: why it could not be built ("" when it was, or was not asked for).
    :ivar obstacles: the node's environment obstacles
        (:class:`~pdls_ik.model.obstacles.ObstacleSet`, read on the collision level), or None.
    :ivar interim: its solvers run on the NumPy backend while the compiled kernels compile
        (:meth:`on_numpy`); ``config`` keeps the configured backend.
    """

    linkage: object
    config: IKConfig
    base_link: str
    tip_link: str
    description: str
    tasks: Optional[TaskConfig] = None
    collision_settings: CollisionSettings = field(default_factory=CollisionSettings)
    collision: object = None
    collision_problem: str = ''
    obstacles: object = None
    interim: bool = False

    @property
    def joint_names(self):
        """Model joint order (the order of q)."""
        return list(self.linkage.joint_names)

    @property
    def solver_config(self) -> IKConfig:
        """Return the config of its solvers: ``config``, on the NumPy backend when ``interim``."""
        return self.config.replace(backend='numpy') if self.interim else self.config

    def on_numpy(self) -> 'Robot':
        """Return this robot with its solvers on the NumPy backend (``interim``)."""
        return replace(self, interim=True)

    def solver(self, tip_link: Optional[str] = None, one_shot: bool = False,
               warm: bool = True):
        """
        Build a new :class:`pdls_ik.ik.IKSolver` for ``tip_link`` (default: the configured tip).

        One solver per thread: the tracking loop and the service each hold their own. Its
        compiled kernels are loaded here (:meth:`IKSolver.warm_up`; not when ``warm`` is
        False), not by the first goal. With a collision model, the self-collision level is
        added: the velocity damper of ``tracking_rate`` for tracking, the position form when
        ``one_shot``.

        :raises LinkError: unknown tip link.
        """
        solver = IKSolver(self.linkage, tip_link or self.tip_link, self.base_link,
                          config=self.solver_config, extra_tasks=self.extra_tasks(one_shot))
        if warm:
            solver.warm_up()
        return solver

    def extra_tasks(self, one_shot: bool = True) -> Optional[TaskConfig]:
        """Return the extra tasks of this robot's solvers, with the collision level if any."""
        if self.collision is None:
            return self.tasks
        rate = None if one_shot else self.config.tracking_rate
        return with_collision(self.tasks, collision_entry(self.collision,
                                                          self.collision_settings, rate),
                              self.obstacles)

    def default_q(self) -> NDArray[np.float64]:
        """(n,) middle of the joint limits (0 for continuous joints): the seed without state."""
        lower, upper = np.asarray(self.linkage.lower), np.asarray(self.linkage.upper)
        finite = np.isfinite(lower) & np.isfinite(upper)
        q = np.zeros(len(lower))
        q[finite] = 0.5 * (lower[finite] + upper[finite])
        return q


def build_robot(description: str, config: IKConfig,
                collision: Optional[CollisionSettings] = None, srdf=None,
                obstacles: Optional[ObstacleSet] = None) -> Robot:
    """
    Load ``description`` (URDF XML text, or a path) and check the config against it.

    The links, and the ``tasks_file`` (read and built into a solver of the tip, so that every
    link, joint and key it names is checked here, not at the first goal). With ``collision``
    enabled, the collision model is built (SRDF pairs of ``srdf``, a parsed SRDF, skipped); a
    model that cannot be built leaves ``Robot.collision`` None and says why in
    ``Robot.collision_problem`` (the node reports it and runs on without the level).
    ``obstacles`` (the node's set) is read by the collision level; a task file's obstacles are
    put in it (group ``tasks_file``).

    :raises URDFError: the description does not load (also: a path that cannot be read).
    :raises LinkError: unknown base or tip link.
    :raises ConfigError: ``tip_link`` is empty; the ``tasks_file`` cannot be read, or has a bad
        key or entry (the message names the parameter, the file and the key, e.g.
        ``tasks[0].link``).
    """
    if not config.tip_link:
        raise ConfigError("parameter 'tip_link': required (the link whose pose is controlled)")
    try:
        linkage = load_urdf(description)
    except OSError as exc:
        raise URDFError(f'robot description is neither URDF XML nor a readable file: '
                        f'{exc.strerror or exc}: {str(description)[:80]!r}') from None
    base = config.base_link or linkage.root_link
    linkage.link_index(base)
    linkage.link_index(config.tip_link)
    settings = collision or CollisionSettings()
    model, problem = None, ''
    if settings.enabled:
        try:
            model = build_model(linkage, settings, srdf)
        except ConfigError as exc:
            problem = str(exc)
    if not config.tasks_file:
        return Robot(linkage, config, base, config.tip_link, description, None, settings, model,
                     problem, obstacles)
    try:
        tasks = load_task_config(config.tasks_file)
    except ConfigError as exc:
        raise ConfigError(f"parameter 'tasks_file': {exc}") from None
    if obstacles is not None and isinstance(tasks.obstacles, list):
        obstacles.put('tasks_file', tasks.obstacles)
    robot = Robot(linkage, config, base, config.tip_link, description, tasks, settings, model,
                  problem, obstacles)
    try:
        robot.solver(warm=False)        # compiles nothing here (the loader's thread does)
    except (ConfigError, InputError) as exc:
        raise ConfigError(f"parameter 'tasks_file' ({config.tasks_file}): {exc}") from None
    return robot
