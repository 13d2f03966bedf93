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
The ``pdls-ik`` command: one subcommand per module of this package.

Each subcommand module defines ``add_parser(subparsers)`` (registers its argparse parser) and
``run(args) -> int`` (the exit status). Errors of the :mod:`pdls_ik.errors` family, and files
that cannot be read, become one readable line on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
from importlib import import_module
import signal
import sys
from typing import Optional, Sequence
import warnings

from pdls_ik.errors import PDLSIKError

#: subcommand name -> module (under pdls_ik.cli) implementing it
SUBCOMMANDS = {
    'info': 'info',
    'fk': 'fk',
    'ik': 'ik',
    'track': 'track',
    'demo': 'demo',
    'reach': 'reach',
    'bench': 'bench',
}

EXIT_OK, EXIT_NO_SOLUTION, EXIT_BAD_INPUT = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    """Return the ``pdls-ik`` argument parser with every available subcommand registered."""
    parser = argparse.ArgumentParser(
        prog='pdls-ik',
        description='Inverse kinematics by Prioritized Damped Least Squares.')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND')
    sub.required = True
    for name, module in SUBCOMMANDS.items():
        try:
            mod = import_module(f'pdls_ik.cli.{module}')
        except ModuleNotFoundError as exc:
            if exc.name != f'pdls_ik.cli.{module}':
                raise
            continue  # subcommand not built yet
        sub_parser = mod.add_parser(sub)
        sub_parser.set_defaults(_run=mod.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``pdls-ik``; returns the exit status (0 ok, 1 no solution, 2 bad input)."""
    printable_output()
    parser = build_parser()
    args = parser.parse_args(argv)
    if argv is None and hasattr(signal, 'SIGPIPE'):
        # output piped into e.g. `head`: end quietly when the reader closes, as Unix tools do
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning(args.command)
        return _run(args)


def printable_output() -> None:
    """
    Let stdout and stderr print any text: what their encoding lacks becomes an escape.

    An ASCII-only terminal (``PYTHONIOENCODING=ascii``, ``LANG=C`` on Python < 3.7, minimal
    containers, CI runners) cannot encode "±", "…" or a non-ASCII joint name: such a character
    is printed as its backslash escape (``errors='backslashreplace'``) instead of ending the
    command in a UnicodeEncodeError.
    """
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, 'reconfigure'):
            stream.reconfigure(errors='backslashreplace')


def _one_line_warning(command: str):
    """Build a ``warnings.showwarning`` printing 'pdls-ik CMD: warning: …' (no path, no source)."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f'pdls-ik {command}: warning: {message}', file=sys.stderr)
    return show


def _run(args) -> int:
    try:
        return int(args._run(args))
    except PDLSIKError as exc:
        print(f'pdls-ik {args.command}: error: {exc}', file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        name = exc.filename if exc.filename is not None else ''
        print(f'pdls-ik {args.command}: error: {exc.strerror or exc}: {name}'.rstrip(': '),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f'pdls-ik {args.command}: interrupted', file=sys.stderr)
        return 130


if __name__ == '__main__':
    sys.exit(main())
