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
What the launch files compute before starting nodes (ROS-free, so it is tested anywhere).

Reads the robot description (expanding xacro files when xacro is installed), resolves base and
tip links from the config file and the launch arguments, and names missing ROS packages in one
line. Errors are :class:`LaunchSetupError`, whose message is that one line.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
import shutil
import subprocess
from typing import Callable, Dict, Iterable, List, Optional

from pdls_ik.config import load_config
from pdls_ik.errors import ConfigError, PDLSIKError
from pdls_ik.ik.task_config import load_task_config
from pdls_ik.model import load_urdf
from pdls_ik.model.srdf import parse_srdf


class LaunchSetupError(PDLSIKError):
    """A launch cannot start: missing file or package, xacro failure, bad config."""


def read_description(path: str) -> str:
    """
    URDF text of ``path``; ``*.xacro`` files are expanded with xacro.

    :raises LaunchSetupError: missing file, xacro not installed, or xacro failing.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise LaunchSetupError(f'urdf: file not found: {file}')
    if file.suffix != '.xacro':
        return file.read_text()
    try:
        import xacro  # the ROS package's Python module
    except ImportError:
        xacro = None
    if xacro is not None:
        try:
            return xacro.process_file(str(file)).toxml()
        except Exception as exc:  # noqa: BLE001 - xacro raises many kinds; one line out
            raise LaunchSetupError(f'urdf: xacro failed on {file}: {exc}') from None
    command = shutil.which('xacro')
    if command is None:
        raise LaunchSetupError(f'urdf: {file} is a xacro file but xacro is not installed '
                               f"(install the 'xacro' package or pass an expanded .urdf)")
    done = subprocess.run([command, str(file)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ['no message'])[-1]
        raise LaunchSetupError(f'urdf: xacro failed on {file}: {last}')
    return done.stdout


def tasks_file_parameter(path: str) -> Dict[str, str]:
    """
    Node parameters of the ``tasks_file`` launch argument: {} when empty, else its absolute path.

    The file's structure and keys are checked here
    (:func:`pdls_ik.ik.task_config.load_task_config`; links and joints are checked by the node
    against the robot).

    :raises LaunchSetupError: missing file, invalid YAML or a bad key (named).
    """
    if not path:
        return {}

    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise LaunchSetupError(f'tasks_file: file not found: {file}')
    try:
        load_task_config(file)
    except ConfigError as exc:
        raise LaunchSetupError(f'tasks_file: {exc}') from None
    return {'tasks_file': str(file)}


def srdf_parameter(path: str, description: str) -> Dict[str, str]:
    """
    Node parameters of the ``srdf`` launch argument: {} when empty, else its XML text.

    ``*.xacro`` files are expanded (as :func:`read_description`); the SRDF is parsed and each
    of its groups resolved against the robot here, so that a broken file stops the launch.

    :raises LaunchSetupError: missing file, xacro failure, an SRDF that does not parse, or a
        group that does not fit the robot (named).
    """
    if not path:
        return {}
    try:
        text = read_description(path)
    except LaunchSetupError as exc:
        raise LaunchSetupError(str(exc).replace('urdf:', 'srdf:', 1)) from None
    try:
        srdf = parse_srdf(text)
        linkage = load_urdf(description)
        for name in srdf.groups:
            srdf.resolve(linkage, name)
    except PDLSIKError as exc:
        raise LaunchSetupError(f'srdf: {path}: {exc}') from None
    return {'robot_description_semantic': text}


@dataclass(frozen=True)
class Links:
    """Resolved ``base_link`` (never empty) and ``tip_link`` of a launch."""

    base_link: str
    tip_link: str


def resolve_links(description: str, config_path: str, base_link: str = '',
                  tip_link: str = '') -> Links:
    """
    Resolve the base and tip links.

    From the launch arguments, else the config file, else the URDF root (base).

    :raises LaunchSetupError: unreadable or invalid config, URDF not loading, unknown link, or no
        tip link anywhere.
    """
    try:
        config = load_config(config_path)
        linkage = load_urdf(description)
        base = base_link or config.base_link or linkage.root_link
        tip = tip_link or config.tip_link
        if not tip:
            raise LaunchSetupError(f'tip_link: not given as a launch argument nor in '
                                   f'{config_path}')
        linkage.link_index(base)
        linkage.link_index(tip)
    except (PDLSIKError, OSError) as exc:
        if isinstance(exc, LaunchSetupError):
            raise
        raise LaunchSetupError(str(exc)) from None
    return Links(base, tip)


def missing_packages(names: Iterable[str], has_package: Callable[[str], bool]) -> List[str]:
    """Return the packages of ``names`` that ``has_package`` does not find, in order."""
    return [name for name in names if not has_package(name)]


def ament_has_package(name: str) -> bool:
    """Tell whether the ament index knows package ``name`` (a sourced ROS 2 environment)."""
    from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    try:
        get_package_prefix(name)
    except (PackageNotFoundError, ValueError, LookupError):
        return False
    return True


def required_packages(use_robot_state_publisher: bool, use_rviz: bool) -> List[str]:
    """ROS packages a launch of pdls_ik needs with these options."""
    names = ['robot_state_publisher'] if use_robot_state_publisher else []
    return names + (['rviz2'] if use_rviz else [])


def missing_message(missing: List[str], launch_file: str) -> str:
    """Return the one line naming missing packages and the arguments that avoid them."""
    flags = {'robot_state_publisher': 'use_robot_state_publisher:=false',
             'rviz2': 'use_rviz:=false'}
    avoid = ' '.join(flags[m] for m in missing if m in flags)
    return (f"{launch_file}: ROS package(s) not installed: {', '.join(missing)}"
            + (f' (install them, or run without: {avoid})' if avoid else ''))


def as_bool(text: Optional[str], name: str) -> bool:
    """Read a launch argument's "true"/"false" (any case; also 1/0, yes/no) as a bool."""
    value = str(text).strip().lower()
    if value in ('true', '1', 'yes', 'on'):
        return True
    if value in ('false', '0', 'no', 'off'):
        return False
    raise LaunchSetupError(f"{name}: expected true or false, got '{text}'")
