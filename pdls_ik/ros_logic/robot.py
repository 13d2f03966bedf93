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
closures and extra tasks of its ``tasks_file``, :mod:`pdls_ik.ik.task_config`); the node swaps a
whole :class:`Robot` when the description or a parameter changes, so that a failing change
leaves the previous robot in service (never half-applied).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from numpy.typing import NDArray
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, InputError, URDFError
from pdls_ik.ik import IKSolver
from pdls_ik.ik.task_config import load_task_config, TaskConfig
from pdls_ik.model import load_urdf


@dataclass(frozen=True)
class Robot:
    """
    Linkage + config; ``base_link`` and ``tip_link`` resolved and checked against the model.

    :ivar tasks: the closures and extra tasks of ``config.tasks_file`` (None without one),
        given to every solver.
    """

    linkage: object
    config: IKConfig
    base_link: str
    tip_link: str
    description: str
    tasks: Optional[TaskConfig] = None

    @property
    def joint_names(self):
        """Model joint order (the order of q)."""
        return list(self.linkage.joint_names)

    def solver(self, tip_link: Optional[str] = None):
        """
        Build a new :class:`pdls_ik.ik.IKSolver` for ``tip_link`` (default: the configured tip).

        One solver per thread: the tracking loop and the service each hold their own. Its
        compiled kernels are loaded here (:meth:`IKSolver.warm_up`), not by the first goal.

        :raises LinkError: unknown tip link.
        """
        solver = IKSolver(self.linkage, tip_link or self.tip_link, self.base_link,
                          config=self.config, extra_tasks=self.tasks)
        solver.warm_up()
        return solver

    def default_q(self) -> NDArray[np.float64]:
        """(n,) middle of the joint limits (0 for continuous joints): the seed without state."""
        lower, upper = np.asarray(self.linkage.lower), np.asarray(self.linkage.upper)
        finite = np.isfinite(lower) & np.isfinite(upper)
        q = np.zeros(len(lower))
        q[finite] = 0.5 * (lower[finite] + upper[finite])
        return q


def build_robot(description: str, config: IKConfig) -> Robot:
    """
    Load ``description`` (URDF XML text, or a path) and check the config against it.

    The links, and the ``tasks_file`` (read and built into a solver of the tip, so that every
    link, joint and key it names is checked here, not at the first goal).

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
    if not config.tasks_file:
        return Robot(linkage, config, base, config.tip_link, description)
    try:
        tasks = load_task_config(config.tasks_file)
    except ConfigError as exc:
        raise ConfigError(f"parameter 'tasks_file': {exc}") from None
    robot = Robot(linkage, config, base, config.tip_link, description, tasks)
    try:
        robot.solver()
    except (ConfigError, InputError) as exc:
        raise ConfigError(f"parameter 'tasks_file' ({config.tasks_file}): {exc}") from None
    return robot
