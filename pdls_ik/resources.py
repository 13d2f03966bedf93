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
Locating the files installed beside the package: bundled robots (urdf/) and configs (config/).

``setup.py`` installs ``urdf/``, ``config/`` and ``launch/`` into ``<prefix>/share/pdls_ik``
(both for ``pip install`` and ``colcon build``). The search order is:

1. the ament index share directory (``ament_index_python``, when ROS 2 is sourced);
2. ``sys.prefix/share/pdls_ik`` (pip or venv install);
3. ``site.USER_BASE/share/pdls_ik`` (``pip install --user``);
4. the source checkout, ``<repo>/`` (running from a clone without installing).
"""
from __future__ import annotations

import os
from pathlib import Path
import site
import sys
from typing import List, Union

PACKAGE = 'pdls_ik'
#: bundled robot name -> (file in urdf/, default IK tip link)
BUNDLED_ROBOTS = {
    'panda': ('panda.urdf', 'panda_link8'),
    'ur5': ('ur5.urdf', 'ee_link'),
    'bimanual': ('bimanual.urdf', 'r_tool'),
}


def share_dirs() -> List[Path]:
    """Candidate share directories, in search order (existing or not)."""
    dirs: List[Path] = []
    try:
        from ament_index_python.packages import (PackageNotFoundError,
                                                 get_package_share_directory)
        try:
            dirs.append(Path(get_package_share_directory(PACKAGE)))
        except (PackageNotFoundError, ValueError, LookupError):
            pass
    except ImportError:
        pass
    dirs.append(Path(sys.prefix) / 'share' / PACKAGE)
    user_base = getattr(site, 'USER_BASE', None)
    if user_base:
        dirs.append(Path(user_base) / 'share' / PACKAGE)
    dirs.append(Path(__file__).resolve().parents[1])
    return dirs


def _find(folder: str, filename: str) -> Path:
    tried = []
    for root in share_dirs():
        candidate = root / folder / filename
        if candidate.is_file():
            return candidate
        tried.append(str(candidate.parent))
    raise FileNotFoundError(2, f"'{filename}' not found in {', '.join(tried)}",
                            f'{folder}/{filename}')


def bundled_urdf(name: str) -> Path:
    """
    Path of a bundled robot description: ``"panda"``, ``"ur5"`` or ``"bimanual"``.

    :raises FileNotFoundError: unknown name (listing the bundled ones), or the file is not
        installed.
    """
    key = name[:-5] if name.endswith('.urdf') else name
    if key not in BUNDLED_ROBOTS:
        raise FileNotFoundError(2, f"no bundled robot '{name}' (bundled: "
                                   f"{', '.join(BUNDLED_ROBOTS)})", name)
    return _find('urdf', BUNDLED_ROBOTS[key][0])


def bundled_srdf(name: str) -> Path:
    """
    Path of the SRDF (MoveIt semantic description) of a bundled robot: ``"panda"``, ``"bimanual"``.

    :raises FileNotFoundError: the robot has no bundled SRDF.
    """
    key = name[:-5] if name.endswith('.srdf') else name
    return _find('urdf', f'{key}.srdf')


def config_file(name: str) -> Path:
    """Path of an installed configuration file in ``config/`` (e.g. ``"panda.yaml"``)."""
    return _find('config', name)


def urdf_path(name_or_path: Union[str, os.PathLike]) -> Path:
    """
    Resolve a URDF path given by the user: an existing file, else a bundled robot name.

    :raises FileNotFoundError: neither an existing file nor a bundled robot.
    :raises IsADirectoryError: the path is a directory.
    """
    path = Path(name_or_path)
    if path.is_file():
        return path
    if path.is_dir():
        raise IsADirectoryError(21, 'a directory, not a URDF file', str(name_or_path))
    if str(name_or_path) in BUNDLED_ROBOTS:
        return bundled_urdf(str(name_or_path))
    raise FileNotFoundError(2, f'no such file, and not a bundled robot '
                               f"({', '.join(BUNDLED_ROBOTS)})", str(name_or_path))
