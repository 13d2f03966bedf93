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
The layers of pdls_ik: every module imports, no import cycle, every arrow points down.

Layer order (DESIGN.md; an import may only point to a lower layer or within its own layer):

    errors, config, resources  <  lie  <  model  <  pdls  <  tasks  <  ik, _accel
    <  trajectory, diagnostics  <  msgs  <  ros_logic  <  ros, cli

``pdls`` is robot-agnostic: it imports only ``errors`` from the package. Every import of a
pdls_ik module sits at its module's top: a function-local import hides a cycle (a cycle means a
fact lives in the wrong layer). One exception, for an optional dependency: the numba kernels
(``pdls_ik._accel.*_numba``, which import numba at their top) are imported where the compiled
backend is chosen, so that a process that never uses them does not pay numba's import, and the
package works without numba. Other optional dependencies stay lazy inside their own modules
(numba's availability check in ``_accel``, rclpy and interactive_markers in ``ros/``, matplotlib
in ``cli/plot.py``, tqdm in ``cli/tracking.py``, rosbags in ``msgs/`` and ``cli/bag.py``, xacro
and ament_index in ``ros_logic/launch_setup.py`` and ``resources.py``): those are not pdls_ik
modules and this test does not look at them.

The graph is read from the source (ast), so that it covers the ``ros/`` modules without ROS 2;
the import test imports each module in a fresh interpreter only where its dependencies exist.
"""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
import subprocess
import sys
from typing import Dict, List, Set, Tuple

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / 'pdls_ik'

#: rank of each top-level part of the package; equal ranks may import each other (no cycle)
LAYERS = (('errors', 'config', 'resources'), ('lie',), ('model',), ('pdls',), ('tasks',),
          ('ik', '_accel'), ('trajectory', 'diagnostics'), ('msgs',), ('ros_logic',),
          ('ros', 'cli'))
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}
#: modules that may be imported inside a function: the numba kernels, which import numba (an
#: optional dependency) at their top
LAZY_ALLOWED = tuple(sorted(f'pdls_ik._accel.{p.stem}'
                            for p in (PACKAGE / '_accel').glob('*_numba.py')))
#: modules that need ROS 2 (rclpy) to be imported
NEEDS_ROS = ('pdls_ik.ros.',)


def _modules() -> Dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob('*.py')):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
        if parts[-1] == '__init__':
            parts.pop()
        out['.'.join(parts)] = path
    return out


MODULES = _modules()


def _target(name: str) -> str:
    """Return the pdls_ik module that an import of ``name`` executes."""
    while name not in MODULES:
        name = name.rpartition('.')[0]
    return name


def _imports(module: str) -> List[Tuple[str, int, bool]]:
    """Return (imported pdls_ik module, line, at module top) of every import in ``module``."""
    tree = ast.parse(MODULES[module].read_text(encoding='utf-8'))
    top = set()
    for node in tree.body:
        for sub in ast.walk(node):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                break
        else:
            sub = None
        if sub is None:
            top.update(id(n) for n in ast.walk(node))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            top.add(id(node))
        else:    # a class or function: only its imports outside any function body are top
            for n in ast.walk(node):
                if isinstance(n, (ast.Import, ast.ImportFrom)):
                    inside = any(isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                                 and any(m is n for m in ast.walk(f))
                                 for f in ast.walk(node))
                    if not inside:
                        top.add(id(n))
    found = []
    package = module if MODULES[module].name == '__init__.py' else module.rpartition('.')[0]
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                base = '.'.join(package.split('.')[:len(package.split('.')) - node.level + 1]
                                + ([base] if base else []))
            names = [f'{base}.{a.name}' if f'{base}.{a.name}' in MODULES else base
                     for a in node.names]
        for name in names:
            if name == 'pdls_ik' or name.startswith('pdls_ik.'):
                found.append((_target(name), node.lineno, id(node) in top))
    return found


def _part(module: str) -> str:
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else ''


GRAPH: Dict[str, Set[str]] = {m: {t for t, _, at_top in _imports(m) if at_top and t != m}
                              for m in MODULES}


def test_every_module_is_in_a_layer():
    unplaced = sorted(m for m in MODULES if m != 'pdls_ik' and _part(m) not in RANK)
    assert not unplaced, f'modules outside the layer order (add them to LAYERS): {unplaced}'


def test_no_import_points_up():
    upward = [f'{m} imports {t} ({_part(m)} < {_part(t)})'
              for m, targets in GRAPH.items() if m != 'pdls_ik' for t in targets
              if t != 'pdls_ik' and RANK.get(_part(t), -1) > RANK.get(_part(m), len(LAYERS))]
    assert not upward, '\n'.join(upward)


def test_pdls_imports_nothing_robotic():
    robotic = [f'{m} imports {t}' for m, targets in GRAPH.items() if _part(m) == 'pdls'
               for t in targets if _part(t) not in ('pdls', 'errors')]
    assert not robotic, '\n'.join(robotic)


def test_no_function_local_import_of_the_package():
    local = [f'{m}:{line} imports {t} inside a function'
             for m in MODULES for t, line, at_top in _imports(m)
             if not at_top and t not in LAZY_ALLOWED]
    assert not local, '\n'.join(local)


def _cycles() -> List[List[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    out: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    assert _cycles() == []


def test_the_checks_see_a_cycle_and_an_upward_arrow():
    """The graph walk itself: a known edge set, a made-up cycle."""
    assert 'pdls_ik.model.joint_vector' in GRAPH['pdls_ik.ik.ik_solver']
    saved = set(GRAPH['pdls_ik.errors'])
    GRAPH['pdls_ik.errors'].add('pdls_ik.config')
    try:
        assert ['pdls_ik.config', 'pdls_ik.errors'] in _cycles()
    finally:
        GRAPH['pdls_ik.errors'] = saved


#: the only modules directly in pdls_ik/ (everything else lives in a package of its layer)
LOOSE = {'__init__', 'errors', 'config', 'resources', 'trajectory', 'diagnostics'}
#: the most parameters a numba kernel takes (its arguments travel in a few tuples)
MAX_KERNEL_PARAMETERS = 10


def test_only_the_top_layer_modules_are_loose():
    loose = {p.stem for p in PACKAGE.glob('*.py')}
    assert loose == LOOSE, f'move into a package: {sorted(loose - LOOSE)}'


def test_no_two_modules_share_a_name():
    names: Dict[str, List[str]] = {}
    for path in PACKAGE.rglob('*.py'):
        if path.name != '__init__.py':
            names.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {k: v for k, v in names.items() if len(v) > 1} == {}


def _is_kernel(node: ast.FunctionDef) -> bool:
    return any('njit' in ast.unparse(d) or 'jit' in ast.unparse(d) for d in node.decorator_list)


def test_kernels_take_few_parameters_and_import_no_private_name():
    long, private = [], []
    for path in sorted((PACKAGE / '_accel').glob('*.py')):
        tree = ast.parse(path.read_text(encoding='utf-8'))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and _is_kernel(node) and \
                    len(node.args.args) > MAX_KERNEL_PARAMETERS:
                long.append(f'{path.name}:{node.name} ({len(node.args.args)})')
            if isinstance(node, ast.ImportFrom) and (node.module or '').startswith('pdls_ik'):
                private += [f'{path.name} imports {node.module}.{a.name}' for a in node.names
                            if a.name.startswith('_')]
    assert long == [] and private == []


def _importable(module: str) -> bool:
    if module.startswith(NEEDS_ROS):
        return importlib.util.find_spec('rclpy') is not None
    if module in LAZY_ALLOWED:
        return importlib.util.find_spec('numba') is not None
    return True


@pytest.mark.parametrize('module', sorted(MODULES))
def test_every_module_imports_alone(module):
    if not _importable(module):
        pytest.skip(f'{module} needs an optional dependency that is not installed')
    proc = subprocess.run([sys.executable, '-c', f'import {module}'], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
