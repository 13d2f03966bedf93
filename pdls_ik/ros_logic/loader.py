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
Build robots and solvers off the callback thread, reporting progress meanwhile.

Loading a robot's solvers loads numba's compiled kernels: about 0.3 s from the cache, but
20-60 s (more on a loaded machine) when the cache is cold (the first start on a machine, a new
install path). Run in a callback, that blocks the node's other callbacks of its group, the
diagnostics among them. :class:`Loader` runs each build in a thread of its own; the node keeps
publishing diagnostics (:meth:`Loader.progress`) and answering its services with a clear code
until the build is in place. The newest request wins: the result of an older build that ends
later is dropped.

A first start answers at once (issue 26): :func:`kernel_stages` gives the robot's solvers on the
NumPy backend first, loads (or, on a cold cache, compiles: minutes) their kernels in the
loader's thread while those answer, then gives the robot on its compiled kernels; a build may
be such a generator of stages (:meth:`Loader.start`). :func:`backend_status` says which backend
answers.
"""
from __future__ import annotations

import inspect
import threading
import time
from typing import Any, Callable, Iterator, Optional, Tuple

from pdls_ik._accel import available, numba_problem, numba_version
from pdls_ik.diagnostics import OK, WARN
from pdls_ik.ros_logic.robot import Robot

#: what a load reports while it runs (the kernel step dominates)
LOADING = 'loading solver kernels'
#: longest expected compile of a robot's kernels [s] (150 s for the Panda, 185 s for the
#: bimanual robot, measured on a loaded 2-core machine); past it the status says so (the NumPy
#: backend answers on: a compile cannot be interrupted)
COMPILE_BOUND = 600.0


class Loader:
    """
    Run builds in a background thread, one result delivered per newest request.

    :param deliver: called in the build's thread with (result, origin) when the newest build
        succeeds.
    :param fail: called with (exception, origin) when the newest build raises.
    :param clock: monotonic clock [s] (tests give their own).
    """

    def __init__(self, deliver: Callable[[Any, str], None],
                 fail: Callable[[BaseException, str], None],
                 clock: Callable[[], float] = time.monotonic):
        self._deliver, self._fail, self._clock = deliver, fail, clock
        self._lock = threading.Lock()
        self._seq = 0
        self._started: Optional[float] = None
        self._origin = ''
        self._thread: Optional[threading.Thread] = None
        self._served = 0            # the newest build that delivered a stage

    @property
    def loading(self) -> bool:
        """Tell whether a build is running."""
        return self._started is not None

    @property
    def waiting(self) -> bool:
        """Tell whether a build is running that has delivered nothing yet (nothing to answer)."""
        with self._lock:
            return self._started is not None and self._served != self._seq

    def elapsed(self) -> Optional[float]:
        """Time [s] since the running build started; None if idle."""
        started = self._started
        return None if started is None else self._clock() - started

    def start(self, build: Callable[[], Any], origin: str) -> None:
        """
        Run ``build()`` in a new thread (an older running build's result will be dropped).

        ``build`` may return a generator: each value it yields is delivered (a first answer,
        then a better one); a newer build stops an older one at its next yield.
        """
        with self._lock:
            self._seq += 1
            seq = self._seq
            self._started, self._origin = self._clock(), origin
        thread = threading.Thread(target=self._run, args=(build, origin, seq), daemon=True,
                                  name=f'pdls_ik loader {seq}')
        self._thread = thread
        thread.start()

    def _run(self, build: Callable[[], Any], origin: str, seq: int) -> None:
        try:
            result = build()
            if inspect.isgenerator(result):
                result = self._stages(result, origin, seq)
        except BaseException as exc:  # noqa: BLE001 - reported, never lost in a thread
            with self._lock:
                newest = seq == self._seq
                if newest:
                    self._started = None
            if newest:
                self._fail(exc, origin)
            return
        with self._lock:
            newest = seq == self._seq
            if newest:
                self._started = None
        if newest and result is not _STAGED:
            self._deliver(result, origin)

    def _stages(self, stages: Iterator, origin: str, seq: int):
        """Deliver each stage as it comes while ``seq`` is the newest build."""
        for stage in stages:
            with self._lock:
                if seq != self._seq:
                    stages.close()
                    break
                self._served = seq
            self._deliver(stage, origin)
        return _STAGED

    def progress(self) -> Optional[str]:
        """One line on the running build ("loading solver kernels: 12 s, ..."), None if idle."""
        with self._lock:
            started, origin = self._started, self._origin
        if started is None:
            return None
        return (f'{LOADING}: {self._clock() - started:.0f} s so far (robot from the {origin}; '
                f'the first start on a machine compiles them, 20-60 s, then they are cached)')

    def join(self, timeout: Optional[float] = None) -> bool:
        """Wait for the last started build [s]; True when none is running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.loading


#: no stage to deliver (a generator build stopped by a newer one)
_STAGED = object()


def kernel_stages(robot: Robot, compile_kernels: Optional[Callable[[Robot], None]] = None
                  ) -> Iterator[Robot]:
    """
    Yield ``robot`` on the NumPy backend while its kernels load, then ``robot`` itself.

    Loading the kernels takes 0.3 s from numba's cache, minutes when they compile (a first
    start on a machine): the first stage, ``robot.on_numpy()``, answers meanwhile;
    ``compile_kernels(robot)`` (default: :meth:`Robot.solver`, which loads or compiles and
    caches them) runs, then ``robot`` follows. ``robot`` alone when its solvers run on NumPy
    anyway (``backend`` parameter "numpy"; numba missing or below the floor).

    :raises KernelError: the compile failed (the NumPy stage stays in service).
    """
    if robot.config.backend == 'numpy' or not available():
        yield robot
        return
    yield robot.on_numpy()
    try:
        (compile_kernels or Robot.solver)(robot)
    except Exception as exc:  # noqa: BLE001 - any numba failure: NumPy answers on
        first = str(exc).splitlines()[0] if str(exc) else ''
        raise KernelError(f'numba {numba_version()} failed to compile the kernels '
                          f'({type(exc).__name__}: {first}): the NumPy backend answers') from exc
    yield robot


class KernelError(RuntimeError):
    """The compiled kernels failed to compile (the NumPy backend answers on)."""


def backend_status(robot: Robot, backend: str, reason: str = '',
                   compiling: Optional[float] = None, failure: str = '') -> Tuple[int, str]:
    """
    Level and message of the node's ``backend`` status: which backend answers, and why.

    :param robot: the robot in service (``robot.interim``: on NumPy while kernels compile).
    :param backend: the backend of its solvers ("numpy" or "numba", :attr:`IKSolver.backend`).
    :param reason: why NumPy although ``config.backend`` is "auto"
        (:attr:`IKSolver.backend_reason`).
    :param compiling: time [s] the kernels have been compiling, None when not.
    :param failure: why they failed to compile (:class:`KernelError`), "" if they did not.
    """
    if robot.interim and failure:
        return WARN, f'numpy: {failure}'
    if robot.interim and compiling is not None:
        late = (f', past the {COMPILE_BOUND:.0f} s expected: numba {numba_version()} may not '
                'finish' if compiling > COMPILE_BOUND else '')
        return WARN, (f'numpy: answering from the NumPy backend while numba {numba_version()} '
                      f'loads the kernels ({compiling:.0f} s so far{late}; a first start on a '
                      'machine compiles them: minutes, then cached)')
    if backend == 'numba':
        return OK, f'numba {numba_version()}: compiled kernels'
    if reason and numba_problem():
        return WARN, f'numpy: {reason}'
    return OK, f"numpy: {reason or 'parameter backend'}"
