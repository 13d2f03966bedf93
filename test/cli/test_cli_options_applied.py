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
No ``pdls-ik`` subcommand accepts an option it does not apply.

Each subparser's options (their ``dest``) are compared with the ``args.NAME`` that its module
reads, with the helpers of :mod:`pdls_ik.cli.common` it calls: an option nobody reads would be
accepted and silently ignored. Reading one to refuse it (a clear error naming it) counts.
"""
import argparse
import ast
from importlib import import_module
import inspect

from pdls_ik.cli import build_parser, common, SUBCOMMANDS
import pytest


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def _args_read(source: str) -> set:
    """Names NAME of every ``args.NAME`` in ``source``."""
    return {node.attr for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == 'args'}


def _read_by(module) -> set:
    source = inspect.getsource(module)
    read = _args_read(source)
    for name, helper in inspect.getmembers(common, inspect.isfunction):
        if helper.__module__ == common.__name__ and f'{name}(args' in source:
            read |= _args_read(inspect.getsource(helper))
    return read


def test_every_subcommand_is_walked():
    assert set(_subparsers()) == set(SUBCOMMANDS)


@pytest.mark.parametrize('command', sorted(SUBCOMMANDS))
def test_every_option_of_a_subcommand_is_read(command):
    parser = _subparsers()[command]
    options = {a.dest for a in parser._actions if a.dest != 'help'}
    module = import_module(f'pdls_ik.cli.{SUBCOMMANDS[command]}')
    unread = options - _read_by(module)
    assert not unread, f'pdls-ik {command} accepts but never reads: {sorted(unread)}'


def test_the_walk_reads_only_what_run_reads():
    """The check itself: ``args.NAME`` is read, an attribute of another object is not."""
    assert _args_read('def run(args):\n    return args.out, other.seed, args.rate\n') == \
        {'out', 'rate'}
