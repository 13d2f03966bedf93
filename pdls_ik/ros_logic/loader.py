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
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

#: what a load reports while it runs (the kernel step dominates)
LOADING = 'loading solver kernels'


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

    @property
    def loading(self) -> bool:
        """Tell whether a build is running."""
        return self._started is not None

    def start(self, build: Callable[[], Any], origin: str) -> None:
        """Run ``build()`` in a new thread (an older running build's result will be dropped)."""
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
        if newest:
            self._deliver(result, origin)

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
