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

The suite lives in ``benchmarks/`` of a clone (it compares against optional peers: ``pip install
-e .[bench]``); this command finds it beside the package, runs ``benchmarks/run_all.py`` and
writes ``benchmarks.json``, ``benchmarks.md`` and ``benchmarks.png`` to ``--out``.
"""
from __future__ import annotations

import argparse
from pathlib import Path
import subprocess
import sys
from typing import List, Optional

PROTOCOLS = ('oneshot', 'tracking', 'scaling', 'batch')


def suite_dir() -> Optional[Path]:
    """Return the ``benchmarks/`` folder of the source tree holding this package, or None."""
    folder = Path(__file__).resolve().parents[2] / 'benchmarks'
    return folder if (folder / 'run_all.py').is_file() else None


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``pdls-ik bench`` on ``subparsers``; return its parser."""
    parser = subparsers.add_parser(
        'bench', help='run the benchmark suite against peer solvers (quick by default)',
        description='Run benchmarks/run_all.py of the source tree: one-shot success and time '
                    'beside roboticstoolbox, Pinocchio and ikpy, tracking at 1 kHz, scaling '
                    'and batch throughput. Quick version (about two minutes) unless --full.')
    parser.add_argument('--full', action='store_true',
                        help='the full protocols (N = 1000 targets per robot; about an hour)')
    parser.add_argument('--only', nargs='*', choices=PROTOCOLS, help='protocols to run')
    parser.add_argument('-n', type=int, help='one-shot targets per robot')
    parser.add_argument('--out', default='bench_results', help='output folder '
                        '(default: ./bench_results)')
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
        print('pdls-ik bench: error: the benchmark suite is not installed with the package; '
              'run it from a clone of the repository (benchmarks/run_all.py)', file=sys.stderr)
        return 2
    # a fresh interpreter: the suite limits BLAS to one thread before NumPy loads
    command = [sys.executable, str(folder / 'run_all.py')] + build_argv(args)
    return subprocess.run(command, check=False).returncode
