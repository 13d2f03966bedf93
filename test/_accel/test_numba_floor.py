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
Issue 26: a numba below the floor is never used (Ubuntu 22.04's 0.55.1 hung in its compile).

The NumPy backend runs instead, with one warning naming the version found and the one needed;
no hang, no traceback. The check reads the installed version (tests fake it: the real one is
checked in the Ubuntu 22.04 pass of .ci/run, where numba 0.55.1 is installed).
"""
import logging
import os
import subprocess
import sys

import numpy as np
from pdls_ik import _accel
from pdls_ik.ik import IKSolver
from pdls_ik.model import load_urdf
from pdls_ik.resources import bundled_urdf
import pytest

OLD = ('numba 0.55.1 is older than 0.59, the oldest known to compile the kernels in minutes '
       '(pip install "numba>=0.59"): the NumPy backend runs')
#: Ubuntu 22.04's NumPy 1.21.5: numba 0.59 needs 1.22, its SciPy 1.8 < 1.25
PIN = '"numba>=0.59" "numpy>=1.22,<1.25"'
#: the warning with the installed NumPy
OLD_HERE = OLD.replace('"numba>=0.59"', PIN) if np.lib.NumpyVersion(np.__version__) < '1.22.0' \
    else OLD
GOAL = (np.array([0.4, 0.1, 0.5]), np.array([1.0, 0.0, 0.0, 0.0]))


@pytest.fixture
def numba_055(monkeypatch):
    """Make the installed numba read as 0.55.1, its warning not yet given."""
    monkeypatch.setattr(_accel, 'numba_version', lambda: '0.55.1')
    was = _accel._warned.is_set()
    _accel._warned.clear()
    yield
    if was:
        _accel._warned.set()
    else:
        _accel._warned.clear()


@pytest.mark.parametrize('version, problem', [
    ('0.55.1', OLD),
    ('0.58.1', OLD.replace('0.55.1', '0.58.1')),
    ('0.59.0', ''), ('0.60.0rc1', ''), ('1.0.0', ''),
])
def test_numba_below_the_floor_is_named_with_the_floor(version, problem):
    assert _accel.numba_problem(version, numpy_version='1.26.4') == problem


def test_on_ubuntu_2204s_numpy_the_command_keeps_its_scipy_working(monkeypatch):
    assert _accel.numba_problem('0.55.1', numpy_version='1.21.5') == OLD.replace(
        '"numba>=0.59"', PIN)
    assert _accel.numba_problem('0.59.0', numpy_version='1.21.5') == ''
    monkeypatch.setattr(_accel, 'numba_version', lambda: None)
    assert _accel.numba_problem(numpy_version='1.21.5') == \
        f'numba is not installed (pip install {PIN})'
    assert _accel.numba_problem(numpy_version='1.26.4') == \
        'numba is not installed (pip install "numba>=0.59")'


def test_a_solver_with_numba_below_the_floor_runs_numpy_and_warns_once(
        numba_055, caplog, monkeypatch):
    # under ROS 2, launch's pytest plugin imports launch first, whose LaunchLogger class makes
    # the 'pdls_ik' logger one that does not propagate: caplog (on the root logger) saw nothing
    monkeypatch.setattr(logging.getLogger('pdls_ik'), 'propagate', True)
    robot = load_urdf(bundled_urdf('panda'))
    with caplog.at_level(logging.WARNING, logger='pdls_ik'):
        solvers = [IKSolver(robot, 'panda_link8') for _ in range(2)]
    assert [s.backend for s in solvers] == ['numpy', 'numpy']
    assert solvers[0].backend_reason == OLD_HERE
    assert [r.getMessage() for r in caplog.records] == [f'pdls_ik: {OLD_HERE}']
    result = solvers[0].solve(GOAL)
    assert result.status == 'converged' and result.position_error < 1e-4


def test_the_cli_with_numba_below_the_floor_answers_with_one_warning_line(tmp_path):
    """`pdls-ik ik` (which never answered with numba 0.57.1): the NumPy answer, one line."""
    script = ('import sys; from pdls_ik import _accel\n'
              "_accel.numba_version = lambda: '0.55.1'\n"
              'from pdls_ik.cli import main\n'
              "sys.exit(main(['ik', 'panda', '--tip', 'panda_link8', '--pose', '0.4', '0.1', "
              "'0.5', '1', '0', '0', '0']))\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))   # nothing compiled could be loaded
    run = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                         env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [f'pdls_ik: {OLD_HERE}']
    assert not list(tmp_path.iterdir())      # numba compiled nothing


def test_the_installed_numba_below_the_floor_is_not_used():
    version = _accel.numba_version()
    if version is None or not _accel.numba_problem(version):
        pytest.skip(f'the installed numba ({version}) is not below the floor (Ubuntu 22.04 '
                    'pass of .ci/run: 0.55.1)')
    solver = IKSolver(load_urdf(bundled_urdf('panda')), 'panda_link8')
    assert solver.backend == 'numpy' and version in solver.backend_reason
