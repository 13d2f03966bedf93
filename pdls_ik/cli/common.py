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
import io
import json
import math
from pathlib import Path
import sys
from typing import Callable, Dict, List, Optional

from pdls_ik.config import IKConfig, load_config
from pdls_ik.errors import ConfigError, InputError
from pdls_ik.ik import IKSolver
from pdls_ik.ik.task_config import load_task_config, TaskConfig
from pdls_ik.model import load_urdf
from pdls_ik.resources import BUNDLED_ROBOTS, urdf_path
from pdls_ik.tasks.self_collision_task import damper_gain, SelfCollisionTask, TRACKING_MARGIN
from pdls_ik.trajectory import velocity_bounds


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
    parser.add_argument('--self-collision', nargs='?', const='', default=None, metavar='MODEL',
                        help='keep the link pairs at least --d-min apart, on a level above the '
                             'pose: from the URDF <collision> elements, the bundled model of a '
                             'bundled robot, or MODEL (a capsule YAML)')
    parser.add_argument('--srdf', metavar='FILE',
                        help='with --self-collision: its disable_collisions pairs are not checked')
    parser.add_argument('--mesh-path', action='append', default=[], metavar='DIR',
                        help='with --self-collision: a folder where package:// meshes are looked '
                             'for (repeatable)')
    parser.add_argument('--d-min', type=float, default=0.01, metavar='M',
                        help='with --self-collision: smallest distance between links [m] '
                             '(default 0.01)')


def collision_options(args: argparse.Namespace) -> Optional[dict]:
    """Return the ``self_collision`` task entry of the --self-collision options, or None."""
    if args.self_collision is None:
        if args.srdf or args.mesh_path:
            raise InputError('--srdf and --mesh-path need --self-collision')
        return None
    entry = {'d_min': args.d_min, 'activation_distance': max(0.1, args.d_min + 0.05)}
    if args.self_collision:
        entry['model'] = args.self_collision
    if args.srdf:
        entry['srdf'] = args.srdf
    if args.mesh_path:
        entry['mesh_path'] = list(args.mesh_path)
    return entry


def make_solver(urdf: str, tip: Optional[str], base: Optional[str],
                config_path: Optional[str], tasks_path: Optional[str] = None,
                collision: Optional[dict] = None, **overrides) -> IKSolver:
    """
    Load the robot and build an :class:`IKSolver`; errors name the bad input.

    A joint without a usable URDF velocity limit gets the config's default bound
    (:func:`pdls_ik.trajectory.velocity_bounds`) in the solver's model, so that a tracking
    cycle's step and the streamed trajectories are bounded on it too.

    ``tasks_path`` (``--tasks``; default: the config's ``tasks_file``) adds the closures and
    extra tasks of a :mod:`pdls_ik.ik.task_config` YAML file to the solver; ``collision``
    (:func:`collision_options`) its ``self_collision`` entry, with the velocity damper of the
    tracking rate when one is given (approach speed 0.5 m/s at the activation distance, rows
    held ``TRACKING_MARGIN`` above d_min).
    """
    robot = load_urdf(urdf_path(urdf))
    config = load_config(config_path) if config_path else IKConfig()
    # joints without a URDF velocity limit: their default bound, for tracking and trajectories
    robot = robot.with_velocity_limits(velocity_bounds(robot, config))
    tasks_path = tasks_path or config.tasks_file
    tasks = load_task_config(tasks_path) if tasks_path else None
    if collision is not None:
        tasks = tasks if tasks is not None else TaskConfig()
        entry = dict(tasks.self_collision or {}, **collision)
        rate = overrides.get('tracking_rate')
        if rate:
            entry['margin'] = TRACKING_MARGIN
            entry['gain'] = damper_gain(0.5, 1.0 / rate, entry['d_min'] + TRACKING_MARGIN,
                                        entry['activation_distance'])
        tasks.self_collision = entry
    tip = resolve_tip(urdf, robot, tip or config.tip_link)
    overrides = {k: v for k, v in overrides.items() if v is not None}
    solver = IKSolver(robot, tip, base or None, config=config, extra_tasks=tasks, **overrides)
    for task in solver.extra_tasks:      # pairs left out at neutral: said, on stderr
        if isinstance(task, SelfCollisionTask) and task.model.neutral_contacts:
            print('note: ' + '\n'.join(task.model.report()[1:]).strip(), file=sys.stderr)
    return solver


def resolve_tip(urdf: str, robot, tip: Optional[str]) -> str:
    """
    Return ``tip``, else the bundled robot's default tip link for ``urdf`` (a bundled name).

    :raises ConfigError: no tip given and none known: the message lists the tree's leaf links.
    """
    key = str(urdf)[:-5] if str(urdf).endswith('.urdf') else str(urdf)
    tip = tip or (BUNDLED_ROBOTS[key][1] if key in BUNDLED_ROBOTS else '')
    if not tip:
        raise ConfigError("parameter 'tip_link': give --tip LINK (no default for this robot; "
                          f"the tips of its tree: {', '.join(robot.leaf_links)})")
    return tip


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
              '1-2 minutes; cached for later runs)', file=sys.stderr, flush=True)
    solver.warm_up()


def _json_ready(value):
    """Summary value for JSON: NaN and ±inf become null (JSON has no such numbers)."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_summary(summary: Dict[str, object], printer: Callable, folder: Path,
                  stem: str) -> List[Path]:
    """
    Write a run's summary as ``folder/stem.txt`` (the printed lines) and ``stem.json``.

    :param printer: ``printer(summary, out=file)`` writes the readable lines.
    :return: the two paths written.
    """
    text = io.StringIO()
    printer(summary, out=text)
    txt, js = folder / f'{stem}.txt', folder / f'{stem}.json'
    txt.write_text(text.getvalue())
    js.write_text(json.dumps(_json_ready(summary), indent=2) + '\n')
    return [txt, js]
