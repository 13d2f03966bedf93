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
The ament linters' checks without ROS 2: flake8, pydocstyle and license headers from PyPI.

ament_flake8, ament_pep257 and ament_copyright run under ``colcon test`` (``test_flake8.py``,
``test_pep257.py``, ``test_copyright.py``); these tests apply the same rules where ROS 2 is absent
(CI installs the ``test`` extra): flake8 with the ``[flake8]`` section of setup.cfg (ament_flake8's
configuration and plugins), pydocstyle with ament_pep257's default ignore list and file matching,
and the Apache-2.0 header ament_copyright recognizes.
"""

import importlib.util
import os
from pathlib import Path
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ('pdls_ik', 'test', 'launch', 'benchmarks', 'examples')

# ament_flake8 loads these plugins (exec_depends of ament_flake8's package.xml)
FLAKE8_PLUGINS = ('flake8-builtins', 'flake8-comprehensions', 'flake8-docstrings',
                  'flake8-import-order', 'flake8-quotes')
# ament_pep257's default ("ament") convention: every pydocstyle check but these
AMENT_PEP257_IGNORE = ('D100', 'D101', 'D102', 'D103', 'D104', 'D105', 'D106', 'D107',
                       'D203', 'D212', 'D404')
APACHE_2_0 = """\
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


def python_files(skip_private_dirs: bool) -> list:
    """
    Return the package's Python files, sorted, as the ament linters find them.

    :param skip_private_dirs: skip folders whose name starts with ``.`` or ``_`` (ament_pep257
        and ament_copyright do; ament_flake8 only skips hidden and cache folders).
    """
    files = []
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(ROOT / folder):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith('.') and d != '__pycache__'
                and not (skip_private_dirs and d.startswith('_')))
            files += [Path(dirpath) / f for f in filenames if f.endswith('.py')]
    return sorted(files)


def _missing_flake8_plugins() -> list:
    from importlib.metadata import distribution, PackageNotFoundError
    missing = []
    for name in FLAKE8_PLUGINS:
        try:
            distribution(name)
        except PackageNotFoundError:
            missing.append(name)
    return missing


@pytest.mark.linter
@pytest.mark.skipif(importlib.util.find_spec('flake8') is None or bool(_missing_flake8_plugins()),
                    reason='flake8 or its ament plugins are not installed (pip install -e '
                           '.[test]; under colcon test, ament_flake8 runs test_flake8.py)')
def test_flake8_as_ament_flake8():
    cmd = [sys.executable, '-m', 'flake8', '--config', str(ROOT / 'setup.cfg'),
           '--require-plugins', ','.join(FLAKE8_PLUGINS), *(str(ROOT / d) for d in FOLDERS)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, 'flake8 found errors:\n' + out.stdout + out.stderr


@pytest.mark.linter
@pytest.mark.skipif(importlib.util.find_spec('pydocstyle') is None,
                    reason='pydocstyle is not installed (pip install -e .[test])')
def test_pydocstyle_as_ament_pep257():
    import pydocstyle

    files = [str(f) for f in python_files(skip_private_dirs=True)]
    errors = [str(e) for e in pydocstyle.check(files, ignore=list(AMENT_PEP257_IGNORE))]
    assert not errors, 'pydocstyle found %d errors:\n' % len(errors) + '\n'.join(errors)


@pytest.mark.linter
def test_every_python_file_has_the_apache_header():
    missing = []
    for path in python_files(skip_private_dirs=True):
        lines = path.read_text(encoding='utf-8').splitlines(keepends=True)
        while lines and (lines[0].startswith('#!') or 'coding' in lines[0][:30]):
            lines.pop(0)  # a shebang or coding line may come first, as ament_copyright allows
        if not lines:
            continue  # ament_copyright accepts empty files
        head = ''.join(lines[1:13])
        if not (lines[0].startswith('# Copyright ') and head == APACHE_2_0):
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, 'no Apache-2.0 header (see test_style.APACHE_2_0) in:\n' + \
        '\n'.join(missing)
