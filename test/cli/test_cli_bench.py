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

"""``pdls-ik bench``: finds the suite of the source tree, maps its options, writes the results."""
from __future__ import annotations

import json

from pdls_ik.cli import build_parser, main
from pdls_ik.cli.bench import build_argv, suite_dir
import pytest


def test_suite_found_and_options_mapped(tmp_path):
    assert suite_dir() is not None and (suite_dir() / 'oneshot.py').is_file()
    args = build_parser().parse_args(['bench', '--only', 'batch', 'scaling', '--out',
                                      str(tmp_path)])
    assert build_argv(args) == ['--quick', '--only', 'batch', 'scaling', '--out', str(tmp_path)]
    args = build_parser().parse_args(['bench', '--full', '-n', '200'])
    assert build_argv(args) == ['-n', '200', '--out', 'bench_results']


def test_scaling_protocol_writes_json_markdown_and_png(tmp_path):
    pytest.importorskip('matplotlib')
    assert main(['bench', '--only', 'scaling', '--out', str(tmp_path)]) == 0
    doc = json.loads((tmp_path / 'benchmarks.json').read_text())
    rows = doc['scaling']['rows']
    assert {(r['n'], r['p']) for r in rows} == {(n, p) for n in (6, 25, 100) for p in (1, 3)}
    assert all(r['status'] == 'converged' and r['iteration_ms'] > 0 for r in rows)
    assert 'ms per iteration' in (tmp_path / 'benchmarks.md').read_text()
    assert (tmp_path / 'benchmarks.png').stat().st_size > 10000


def _installed_copy(tmp_path):
    """Imitate a non-editable install: a copy of the package alone in a site folder."""
    import shutil
    from pathlib import Path

    import pdls_ik
    site = tmp_path / 'site'
    shutil.copytree(Path(pdls_ik.__file__).parent, site / 'pdls_ik',
                    ignore=shutil.ignore_patterns('__pycache__'))
    return site


def _suite_from(site, cwd):
    import os
    import subprocess
    import sys

    code = ('import pdls_ik.cli.bench as b; s = b.suite_dir(); '
            'print(s if s else "NONE"); print(b.not_found_message())')
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run([sys.executable, '-c', code], cwd=cwd, env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    return out[0], out[1]


def test_a_non_editable_install_finds_the_clone_of_the_current_folder(tmp_path):
    site = _installed_copy(tmp_path)
    repo = suite_dir().parent
    found, _ = _suite_from(site, repo / 'test')             # run from inside the clone
    assert found == str(repo / 'benchmarks')
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    found, message = _suite_from(site, elsewhere)            # not in a clone: the real cause
    assert found == 'NONE'
    assert 'non-editable install' in message and str(site / 'pdls_ik') in message
    assert str(elsewhere) in message


def test_bench_results_are_ignored_by_git():
    repo = suite_dir().parent
    assert 'bench_results/' in (repo / '.gitignore').read_text().split()
