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
Issue 26: compiled kernels survive a new install path and rebuilt files (a second colcon build).

numba files its cache under a hash of the source folder and stamps it with the file's time: a
new workspace compiled every kernel again. pdls_ik's kernels are keyed by the sources' digest.
"""
import json
import os
from pathlib import Path
import shutil
import subprocess
import sys
import time

from pdls_ik._accel import available, numba_problem
import pytest

pytestmark = pytest.mark.skipif(not available(), reason=numba_problem() or 'numba in use')

PACKAGE = Path(__file__).resolve().parents[2] / 'pdls_ik'
#: calls one small cached kernel; prints its cache hits and misses
CALL = ('import json, pdls_ik\n'
        'from pdls_ik._accel.chain_numba import turned\n'
        'turned(1.0, -4.0, 4.0)\n'
        'print(json.dumps([pdls_ik.__file__, len(turned.stats.cache_hits), '
        'len(turned.stats.cache_misses)]))\n')


def _call(root: Path, cache: Path):
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(cache))
    run = subprocess.run([sys.executable, '-c', CALL], capture_output=True, text=True, env=env,
                         cwd=root, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def test_a_copy_of_the_package_at_a_new_path_with_new_times_loads_the_cached_kernel(tmp_path):
    first, second = tmp_path / 'ws1', tmp_path / 'ws2'
    for root in (first, second):
        shutil.copytree(PACKAGE, root / 'pdls_ik',
                        ignore=shutil.ignore_patterns('__pycache__'))
    later = time.time() + 100.0                 # the second build's files are newer
    for path in (second / 'pdls_ik').rglob('*.py'):
        os.utime(path, (later, later))
    cache = tmp_path / 'cache'
    file1, hits, misses = _call(first, cache)
    assert file1.startswith(str(first)) and (hits, misses) == (0, 1)      # compiled
    file2, hits, misses = _call(second, cache)
    assert file2.startswith(str(second)) and (hits, misses) == (1, 0)     # loaded


def test_an_edited_source_compiles_anew(tmp_path):
    """The cache is keyed by the sources' contents: an edit below the kernels is not stale."""
    root = tmp_path / 'ws'
    shutil.copytree(PACKAGE, root / 'pdls_ik', ignore=shutil.ignore_patterns('__pycache__'))
    cache = tmp_path / 'cache'
    assert _call(root, cache)[1:] == [0, 1]
    with open(root / 'pdls_ik' / 'pdls' / 'pgs.py', 'a') as f:
        f.write('\n# edited\n')
    assert _call(root, cache)[1:] == [0, 1]
