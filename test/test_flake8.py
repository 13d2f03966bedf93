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
ament_flake8 over the package, as in ROS 2's ament_python package template.

The paths are given explicitly (not ``.``) so that the result does not depend on the working
directory or on build artefacts beside the sources. Without ROS 2 the test is skipped;
``test_style.py`` runs the same configuration through flake8 from PyPI.
"""

from pathlib import Path

import pytest

try:
    from ament_flake8.main import main_with_errors
except ImportError:  # no ROS 2 environment sourced (e.g. CI from PyPI)
    main_with_errors = None

ROOT = Path(__file__).resolve().parents[1]
PATHS = [str(ROOT / d) for d in ('pdls_ik', 'test', 'launch', 'benchmarks', 'examples')]


@pytest.mark.flake8
@pytest.mark.linter
@pytest.mark.skipif(main_with_errors is None,
                    reason='ament_flake8 is not importable (source a ROS 2 environment); '
                           'test_style.py runs flake8 instead')
def test_flake8():
    rc, errors = main_with_errors(argv=PATHS)
    assert rc == 0, \
        'Found %d code style errors / warnings:\n' % len(errors) + \
        '\n'.join(errors)
