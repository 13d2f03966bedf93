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
import importlib.util
import os
from pathlib import Path

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


os.environ.setdefault('NUMBA_CACHE_DIR', str(
    Path(os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache') / 'pdls_ik' / 'numba' /
    _sources_digest()))


def available() -> bool:
    """Whether numba is importable (the compiled kernels can be used)."""
    return importlib.util.find_spec('numba') is not None


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
