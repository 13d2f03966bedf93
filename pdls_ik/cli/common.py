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

"""Helpers shared by the ``ik``, ``track`` and ``demo`` subcommands: robot, config, solver."""
from __future__ import annotations

import argparse
from pathlib import Path
import sys
from typing import Optional

from pdls_ik.config import IKConfig, load_config
from pdls_ik.errors import ConfigError, InputError
from pdls_ik.ik import IKSolver
from pdls_ik.ik.task_config import load_task_config
from pdls_ik.model import load_urdf
from pdls_ik.resources import BUNDLED_ROBOTS, urdf_path


def add_robot_arguments(parser: argparse.ArgumentParser, urdf_positional: bool = True) -> None:
    """URDF (positional or --urdf), --tip, --base, --config, --tasks."""
    if urdf_positional:
        parser.add_argument('urdf', help='URDF file or bundled robot name '
                                         f"({', '.join(BUNDLED_ROBOTS)})")
    parser.add_argument('--tip', help="controlled link (default: the bundled robot's tip, "
                                      'else tip_link of the config)')
    parser.add_argument('--base', help='frame of the goals (default: the URDF root link)')
    parser.add_argument('--config', help='YAML parameter file (default: built-in defaults)')
    parser.add_argument('--tasks', metavar='FILE',
                        help='YAML of closures and extra tasks solved with the tip pose (keys: '
                             'pdls_ik/ik/task_config.py; default: tasks_file of the config)')


def make_solver(urdf: str, tip: Optional[str], base: Optional[str],
                config_path: Optional[str], tasks_path: Optional[str] = None,
                **overrides) -> IKSolver:
    """
    Load the robot and build an :class:`IKSolver`; errors name the bad input.

    ``tasks_path`` (``--tasks``; default: the config's ``tasks_file``) adds the closures and
    extra tasks of a :mod:`pdls_ik.ik.task_config` YAML file to the solver.
    """
    robot = load_urdf(urdf_path(urdf))
    config = load_config(config_path) if config_path else IKConfig()
    tasks_path = tasks_path or config.tasks_file
    tasks = load_task_config(tasks_path) if tasks_path else None
    if not tip:
        key = str(urdf)[:-5] if str(urdf).endswith('.urdf') else str(urdf)
        tip = config.tip_link or (BUNDLED_ROBOTS[key][1] if key in BUNDLED_ROBOTS else '')
    if not tip:
        raise ConfigError("parameter 'tip_link': give --tip LINK (no default for this robot)")
    overrides = {k: v for k, v in overrides.items() if v is not None}
    return IKSolver(robot, tip, base or None, config=config, extra_tasks=tasks, **overrides)


def output_folder(path: str, option: str = '--out') -> Path:
    """
    Create the output folder ``path`` (with its parents) before any work; return it.

    :raises InputError: ``path`` is a file, or cannot be created (naming the option).
    """
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InputError(f"{option}: '{out}' is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{option}: cannot create the folder '{out}': "
                         f'{exc.strerror or exc}') from None
    return out


def warm_up(solver: IKSolver) -> None:
    """
    Load the solver's compiled kernels before any timed work, saying why when it takes long.

    The first run on a machine compiles them (numba, tens of seconds, then cached): a one-line
    note goes to stderr then, and only then (:attr:`IKSolver.kernels_compiled`). Commands call
    this after checking their inputs, so that no note comes before a one-line input error.
    """
    if not solver.kernels_compiled:
        print('pdls-ik: compiling the solver kernels (numba, once per installation: about '
              '20-50 s; cached for later runs)', file=sys.stderr, flush=True)
    solver.warm_up()
