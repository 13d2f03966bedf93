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

"""Every example runs as a user would run it: exit status 0, and the printed errors are small."""
from __future__ import annotations

import ast
import re
import subprocess
import sys

from conftest import REPO
import pytest

EXAMPLES = sorted((REPO / 'examples').glob('*.py'))


def _run(path, *args):
    proc = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True,
                          timeout=600, cwd=str(REPO))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == 'OK'
    return proc.stdout


def _numbers(text: str, label: str):
    """Floats printed after ``label`` on each line containing it."""
    pattern = re.escape(label) + r'\s*([-+0-9.e]+)'
    return [float(m) for m in re.findall(pattern, text)]


def test_every_example_is_tested():
    assert {p.name for p in EXAMPLES} == {
        'closed_chain_fourbar.py', 'whole_body.py', 'relative_and_look_at.py',
        'bounds_and_limits.py', 'solve_groups.py'}


def test_closed_chain_fourbar():
    out = _run(REPO / 'examples' / 'closed_chain_fourbar.py')
    closure = _numbers(out, 'max closure error:')
    assert closure and closure[0] < 1e-9
    assert _numbers(out, 'max deviation from the analytic four-bar:')[0] < 1e-8
    assert len(re.findall(r'^\s+\d+ ', out, flags=re.M)) == 13       # 13 crank angles


def test_whole_body():
    out = _run(REPO / 'examples' / 'whole_body.py')
    errors = dict(re.findall(r'^\s+(\S+)\s+error ([-+0-9.e]+)', out, flags=re.M))
    assert set(errors) == {'frame:l_sole', 'frame:r_sole', 'com', 'frame:l_hand',
                           'frame:r_hand', 'look_at:camera'}
    assert float(errors['frame:l_sole']) < 1e-9 and float(errors['frame:r_sole']) < 1e-9
    assert float(errors['com']) < 1e-6
    assert 'status: converged' in out and 'nq = 30, nv = 29' in out


def test_relative_and_look_at():
    out = _run(REPO / 'examples' / 'relative_and_look_at.py')
    assert max(_numbers(out, 'error')) < 1e-8
    assert out.count('converged') == 2


def test_bounds_and_limits():
    out = _run(REPO / 'examples' / 'bounds_and_limits.py')
    assert _numbers(out, 'violation')[0] <= 1e-9
    assert _numbers(out, 'with bound')[0] <= 0.5 + 1e-9
    assert _numbers(out, 'with')[-1] <= 1e-9                         # margin intrusion


def test_solve_groups():
    out = _run(REPO / 'examples' / 'solve_groups.py', '--runs', '8')
    assert _numbers(out, 'joint vs grouped answer:')[0] < 1e-9
    assert 'groups: 2' in out


def test_limit_strategy_benchmark_runs():
    script = REPO / 'benchmarks' / 'compare_limit_strategies.py'
    proc = subprocess.run([sys.executable, str(script), '--count', '3'],
                          capture_output=True, text=True, timeout=600, cwd=str(REPO))
    assert proc.returncode == 0, proc.stderr
    for case in ('interior', 'near limits', 'at limits'):
        for strategy in ('clamping', 'pgs', 'pgs-30'):
            assert re.search(rf'^{case}\s+{strategy}\s+\d+\.\d%', proc.stdout, flags=re.M)


@pytest.mark.parametrize('path', EXAMPLES, ids=lambda p: p.stem)
def test_examples_have_a_docstring_with_a_run_line(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc is not None and 'Run:' in doc
