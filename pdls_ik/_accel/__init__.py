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
Optional compiled kernels (Numba) of hot loops; NumPy code elsewhere remains the reference.

Used only when ``numba`` is importable (``pip install numba``); tests run each kernel against its
NumPy reference when both are available. Each file is named after its reference:
``step_numba`` (:mod:`pdls_ik.pdls.step`, pgs, stepsize), ``ik_solver_numba``
(:meth:`pdls_ik.ik.IKSolver.solve`), ``track_problem_numba`` (:mod:`pdls_ik.ik.track_problem`),
``batch_numba`` (:mod:`pdls_ik.ik.batch`), ``chain_numba`` (:mod:`pdls_ik.model.chain_arrays`
and :func:`pdls_ik.lie.so3.rotation_log`, shared by the others), ``gram_numba`` (the full-rank
damped step of :mod:`pdls_ik.pdls.pinv` from the Gram matrix, used by ``step_numba``); for a
self-collision level: ``collision_numba`` (:mod:`pdls_ik.model.collision`,
:class:`pdls_ik.tasks.SelfCollisionTask`), ``levels_numba`` (the inequality rows of
:mod:`pdls_ik.pdls.levels` in the step of :mod:`pdls_ik.pdls.step`), ``pose_problem_numba``
(:meth:`pdls_ik.ik.IKSolver.solve` with it, :mod:`pdls_ik.ik.pose_problem`) and
``track_collision_numba`` (:meth:`pdls_ik.ik.IKSolver.track` with it,
:mod:`pdls_ik.ik.track_problem`).

Kernel arguments travel in a few plain tuples, unpacked by position at the top of each kernel:
the chain ``ch`` (:func:`.chain_numba.chain_tuple`), bounds (limits, free and periodic masks),
the pose task (target, weights, rows, tolerances), the locks (indices, values, continuous,
weight, tolerance), the options (λ, step bound, SVD and residual tolerances, iteration budget),
the time budget and the output/work arrays; each kernel's docstring gives its layout. Plain
tuples, not NamedTuples: numba types a plain tuple at call time as fast as flat arguments
(~3.5 µs for a call with 30 values), a NamedTuple ~3× slower, measured. The one-shot pose kernel
keeps its constant tuples and work arrays in a numba structref built once per solver
(``ik_solver_numba.PoseState``), typed as one object at a call: ~0.8 µs for its call, ~0.4 µs
through its compiled entry point (:func:`compiled_entry`).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import logging
import os
from pathlib import Path
import re
import threading
from typing import Optional, Tuple

#: the oldest numba used: Ubuntu 24.04's python3-numba, tested by CI (issue 26: 0.55.1, Ubuntu
#: 22.04's, and 0.57.1 had not compiled the Panda's kernels after 15 minutes; 0.58 is untested;
#: the README, section Development, has the figures). An older numba is left unused: the NumPy
#: backend runs, with one warning naming the version found and this one.
NUMBA_FLOOR: Tuple[int, int] = (0, 59)

# Compiled kernels are cached (numba ``cache=True``) in the user's cache folder, not beside the
# sources: a cache inside site-packages survives ``pip uninstall`` (pip does not know those
# files) and the leftover ``pdls_ik/_accel/__pycache__`` then shadows a later (editable)
# install as an empty namespace package. Set before numba is imported; a NUMBA_CACHE_DIR
# chosen by the user wins. The folder is named after the package's sources (_sources_digest).


def _sources_digest() -> str:
    """
    Return a digest of the package's sources, which names the folder of the compiled kernels.

    numba checks only the file that defines a kernel: a kernel compiled against an older
    version of a function or a constant it takes from another file (after a git pull, or an
    upgrade that keeps file times) would be loaded stale and give wrong answers or crash.
    The layers below the kernels' users (the ROS, message and command-line layers are left
    out: editing them recompiles nothing); a few ms. Folders of older sources can be deleted.
    """
    digest = hashlib.sha1()
    package = Path(__file__).resolve().parent.parent
    above = {'ros', 'ros_logic', 'msgs', 'cli'}
    for path in sorted(package.rglob('*.py')):
        if path.relative_to(package).parts[0] in above:
            continue
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


#: the digest of the sources the kernels are compiled from (:func:`_sources_digest`)
SOURCES_DIGEST = _sources_digest()
os.environ.setdefault('NUMBA_CACHE_DIR', str(
    Path(os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache') / 'pdls_ik' / 'numba' /
    SOURCES_DIGEST))
#: the folder of this package's kernels in the cache (numba's would be named by their path)
_CACHE_PATH = os.path.join(os.environ['NUMBA_CACHE_DIR'], 'pdls_ik_accel')
_HERE = os.path.dirname(os.path.abspath(__file__))

_log = logging.getLogger('pdls_ik')
_warned = threading.Event()     # the warning about an unusable numba, once per process


def numba_version() -> Optional[str]:
    """Return the installed numba's version ("0.59.0"), read without importing it; or None."""
    if importlib.util.find_spec('numba') is None:
        return None
    try:
        return importlib.metadata.version('numba')
    except importlib.metadata.PackageNotFoundError:     # importable without metadata
        import numba
        return numba.__version__


def numba_problem(version: Optional[str] = None, numpy_version: Optional[str] = None) -> str:
    """
    Why the compiled kernels cannot be used ("" when they can), with the command that helps.

    :param version: a numba version ("0.55.1"); default the installed one
        (:func:`numba_version`).
    :param numpy_version: NumPy's version; default the installed one. Below 1.22 (Ubuntu
        22.04's 1.21.5) the command also asks for NumPy >= 1.22, < 1.25: numba >= 0.59 needs
        1.22, and a plain ``pip install numba`` brings NumPy 2, with which that release's SciPy
        1.8 does not run (seen in the Humble lab).
    :return: one line naming the version found and the one needed, e.g. "numba 0.55.1 is
        older than 0.59, ...", or that numba is not installed.
    """
    version = numba_version() if version is None else version
    numpy_version = numpy_version or importlib.metadata.version('numpy')
    floor = '.'.join(map(str, NUMBA_FLOOR))
    install = f'pip install "numba>={floor}"'
    if tuple(int(x) for x in re.findall(r'\d+', numpy_version)[:2]) < (1, 22):
        install += ' "numpy>=1.22,<1.25"'
    if version is None:
        return f'numba is not installed ({install})'
    found = tuple(int(x) for x in re.findall(r'\d+', version)[:2])
    if found < NUMBA_FLOOR:
        return (f'numba {version} is older than {floor}, the oldest known to compile the '
                f'kernels in minutes ({install}): the NumPy backend runs')
    return ''


def available() -> bool:
    """
    Whether the compiled kernels can be used: numba installed, not older than the floor.

    An installed numba below :data:`NUMBA_FLOOR` gives False, with one warning per process
    (logger ``pdls_ik``) naming the version found and the one needed.
    """
    problem = numba_problem()
    if problem and numba_version() is not None and not _warned.is_set():
        _warned.set()
        _log.warning('pdls_ik: %s', problem)
    return not problem


def use_sources_cache() -> None:
    """
    Key numba's cache of this package's kernels by the sources' digest, not by path and mtime.

    numba files a cached kernel under a hash of its source file's folder and stamps it with the
    file's modification time (older numba) or contents: a new install path (a new colcon
    workspace, a reinstall) would compile every kernel again. The kernels of this folder are
    cached in ``NUMBA_CACHE_DIR/pdls_ik_accel`` instead, stamped with :data:`SOURCES_DIGEST`
    (every source they read: an edit compiles anew). Each kernel module calls this before
    its first ``@numba.njit(cache=True)``; a numba without this layout keeps its own.
    """
    from numba.core import caching
    impl = getattr(caching, 'CacheImpl', None) or getattr(caching, '_CacheImpl', None)
    base = getattr(caching, 'UserProvidedCacheLocator', None) or \
        getattr(caching, '_UserProvidedCacheLocator', None)
    if impl is None or base is None or \
            any(getattr(c, 'pdls_ik', False) for c in impl._locator_classes):
        return

    class SourcesLocator(base):
        """numba's cache locator of this package's kernels (see :func:`use_sources_cache`)."""

        pdls_ik = True

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = _CACHE_PATH

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return SOURCES_DIGEST

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != _HERE:
                return None
            locator = cls(py_func, py_file)
            try:
                locator.ensure_cache_path()
            except OSError:         # not writable: numba's own locators
                return None
            return locator

    impl._locator_classes.insert(0, SourcesLocator)


def in_cache(*dispatchers) -> bool:
    """
    Whether numba's cache holds every one of these compiled functions (``cache=True``).

    True means loading them compiles nothing (about 0.3 s); False, that the next call compiles
    (tens of seconds). Read from the cache's index files (numba's ``FunctionCache``), so that a
    note about compiling is shown only when compiling happens, not when a loaded machine is slow.
    """
    try:
        return all(Path(d._cache._cache_file._index_path).is_file() for d in dispatchers)
    except AttributeError:          # a numba without this cache layout: assume compiling
        return False


def compiled_entry(dispatcher, args):
    """
    Return the compiled entry point of a numba ``dispatcher`` for the types of ``args``.

    A dispatcher types every argument of every call to pick its compiled version (~0.1 µs an
    array, ~0.5 µs a structref); a kernel always called with arguments of the same types can
    skip that by calling the version itself. The caller must then pass exactly those types:
    arrays of the same dtype, dimension and layout (an array of other types is misread, not
    converted; a read-only one is taken as it is, so the kernel must not write to it), Python
    ints and floats for int64 and float64. ``args`` must have been passed to the dispatcher once
    (that call compiled or loaded the version). Returns the dispatcher itself when numba does
    not keep that version by those types.
    """
    import numba
    try:
        return dispatcher.overloads[tuple(numba.typeof(a) for a in args)].entry_point
    except (AttributeError, KeyError):
        return dispatcher
