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
``pdls-ik bench``: run the benchmark suite of the source tree (quick version by default).

The suite lives in ``benchmarks/`` of a clone, not in the installed package (it compares against
optional peers: ``pip install -e .[bench]``). This command finds it beside the package (an
editable install, a colcon ``--symlink-install``) or, for a non-editable install, in the clone
that holds the current folder; runs ``benchmarks/run_all.py`` on the installed ``pdls_ik`` and
writes ``benchmarks.json``, ``benchmarks.md`` and ``benchmarks.png`` to ``--out``
(``bench_results/`` by default, which git ignores).
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
import subprocess
import sys
from typing import List, Optional

PROTOCOLS = ('oneshot', 'tracking', 'scaling', 'batch')


def _is_clone(folder: Path) -> bool:
    """Return whether ``folder`` is a pdls_ik source tree (the suite and its setup.py)."""
    setup = folder / 'setup.py'
    return (folder / 'benchmarks' / 'run_all.py').is_file() and setup.is_file() and \
        "'pdls_ik'" in setup.read_text(errors='replace')


def suite_dir(cwd: Optional[Path] = None) -> Optional[Path]:
    """
    Return the ``benchmarks/`` folder to run, or None.

    First the source tree holding this package (editable install), then the current folder
    ``cwd`` and its parents (a clone beside a non-editable install).
    """
    beside = Path(__file__).resolve().parents[2]
    if (beside / 'benchmarks' / 'run_all.py').is_file():
        return beside / 'benchmarks'
    here = Path.cwd() if cwd is None else Path(cwd)
    for folder in (here.resolve(), *here.resolve().parents):
        if _is_clone(folder):
            return folder / 'benchmarks'
    return None


def not_found_message(cwd: Optional[Path] = None) -> str:
    """Return why no suite was found (one line), naming the install and the folder."""
    package = Path(__file__).resolve().parents[1]
    here = Path.cwd() if cwd is None else Path(cwd)
    return (f'benchmarks/run_all.py not found: pdls_ik is installed without its source tree '
            f'(a non-editable install, at {package}) and {here} is not inside a clone of the '
            f'repository; run it from a clone, or install the clone with pip install -e .')


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik bench`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'bench', help='run the benchmark suite against peer solvers (quick by default)',
        description='Run benchmarks/run_all.py of the source tree: one-shot success and time '
                    'beside roboticstoolbox, Pinocchio and ikpy, tracking at 1 kHz, scaling '
                    'and batch throughput. Quick version unless --full: about half a minute '
                    '(26 s measured on an idle 2-core machine, 12 s of CPU; a minute under '
                    'load). The suite is that of the clone holding the current folder when the '
                    'package is not an editable install.')
    parser.add_argument('--full', action='store_true',
                        help='the full protocols (N = 1000 targets per robot; about an hour)')
    parser.add_argument('--only', nargs='*', choices=PROTOCOLS, help='protocols to run')
    parser.add_argument('-n', type=int, help='one-shot targets per robot')
    parser.add_argument('--out', default='bench_results', help='output folder '
                        '(default: ./bench_results, ignored by git)')
    return parser


def build_argv(args) -> List[str]:
    """Arguments of run_all.py for the parsed ``pdls-ik bench`` arguments."""
    argv = [] if args.full else ['--quick']
    if args.only:
        argv += ['--only', *args.only]
    if args.n:
        argv += ['-n', str(args.n)]
    return argv + ['--out', str(args.out)]


def run(args) -> int:
    """Run the quick benchmark suite; return its exit status."""
    folder = suite_dir()
    if folder is None:
        print(f'pdls-ik bench: error: {not_found_message()}', file=sys.stderr)
        return 2
    print(f'pdls-ik bench: {folder / "run_all.py"} on pdls_ik at '
          f'{Path(__file__).resolve().parents[1]}', flush=True)
    # a fresh interpreter: the suite limits BLAS to one thread before NumPy loads
    command = [sys.executable, str(folder / 'run_all.py')] + build_argv(args)
    # the suite prints as this command does: escapes for what the terminal cannot encode
    env = dict(os.environ, PYTHONIOENCODING=f'{sys.stdout.encoding or "utf-8"}:backslashreplace')
    return subprocess.run(command, check=False, env=env).returncode
