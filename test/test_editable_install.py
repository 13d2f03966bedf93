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
An editable install imports the package, not the clone's folder, from beside the clone.

A script run from the folder that holds the clone (a ROS workspace's ``src/``, the clone named
``pdls_ik``) sees that folder first on sys.path. With setuptools' import hook (its default for
a flat layout) the clone's root, which has no ``__init__.py``, was imported as an empty namespace
package ("module 'pdls_ik' has no attribute 'load_urdf'"); setup.py's ``package_dir`` makes the
editable install a path entry, where the real package wins.

Under ``colcon test`` the package imported is colcon's installed copy, whose folder is on
PYTHONPATH (ahead of every .pth entry): the script then runs without PYTHONPATH, so that what
it checks is the editable install alone, as a pip user has it (issue 26).
"""
import os
from pathlib import Path
import subprocess
import sys
import zipfile

from conftest import REPO
import pytest


def test_a_script_beside_the_clone_imports_the_real_package(tmp_path):
    """Build the editable wheel (PEP 660 hook), install its .pth, import from beside the clone."""
    if not (REPO / 'setup.py').is_file():
        pytest.skip(f'no setup.py in {REPO}: the tests run from an installed copy')
    setuptools = pytest.importorskip('setuptools')
    if int(setuptools.__version__.split('.')[0]) < 64:
        pytest.skip(f'setuptools {setuptools.__version__} has no PEP 660 editable installs')
    try:        # bdist_wheel: setuptools' own since 70.1, else the wheel package's
        import setuptools.command.bdist_wheel  # noqa: F401
    except ImportError:
        pytest.importorskip('wheel.bdist_wheel', reason='no bdist_wheel (setuptools < 70.1 '
                            'without the wheel package): no editable wheel can be built')
    wheels = tmp_path / 'wheels'
    wheels.mkdir()
    build = ('import sys; from setuptools import build_meta; '
             'print(build_meta.build_editable(sys.argv[1]))')
    name = subprocess.run([sys.executable, '-c', build, str(wheels)], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout.split()[-1]
    with zipfile.ZipFile(wheels / name) as wheel:
        (pth,) = [n for n in wheel.namelist() if n.endswith('.pth')]
        line = wheel.read(pth).decode().strip()
        (points,) = [n for n in wheel.namelist() if n.endswith('.dist-info/entry_points.txt')]
        scripts = wheel.read(points).decode()
    # the console scripts, from setup.cfg (which colcon's ament_cmake_python reads too)
    for script in ('pdls-ik = pdls_ik.cli:main', 'pdls_ik_node = pdls_ik.ros.node:main',
                   'pdls_ik_markers = pdls_ik.ros.marker_node:main'):
        assert script in scripts, scripts
    # a path entry (the clone's root), not an import hook
    assert Path(line).resolve() == REPO.resolve(), line
    site = tmp_path / 'site'
    site.mkdir()
    (site / Path(pth).name).write_text(line + '\n')
    workspace = tmp_path / 'src'
    workspace.mkdir()
    (workspace / 'pdls_ik').symlink_to(REPO, target_is_directory=True)
    code = ('import site, sys, importlib.util as u; site.addsitedir(sys.argv[1]); '
            'print(u.find_spec("pdls_ik").origin)')
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}   # colcon's install
    found = subprocess.run([sys.executable, '-c', code, str(site)], cwd=workspace, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(found) == REPO / 'pdls_ik' / '__init__.py'
