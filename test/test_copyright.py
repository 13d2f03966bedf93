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
ament_copyright over the package, as in ROS 2's ament_python package template.

Every Python file carries the Apache-2.0 header (the package's license). Skipped without ROS 2;
``test_style.py`` checks the same header without it.
"""

from pathlib import Path

import pytest

try:
    from ament_copyright.main import main
except ImportError:  # no ROS 2 environment sourced (e.g. CI from PyPI)
    main = None

ROOT = Path(__file__).resolve().parents[1]
PATHS = [str(ROOT / d) for d in ('pdls_ik', 'test', 'launch', 'benchmarks', 'examples')]


@pytest.mark.copyright
@pytest.mark.linter
@pytest.mark.skipif(main is None,
                    reason='ament_copyright is not importable (source a ROS 2 environment); '
                           'test_style.py checks the license headers instead')
def test_copyright():
    rc = main(argv=PATHS)
    assert rc == 0, 'Found errors'
