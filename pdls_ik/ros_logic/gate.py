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
A gate around a node's callbacks, so that shutting down never races a running callback.

At Ctrl-C, rclpy's executor stops spinning while callbacks may still run in its worker threads;
the node's handles are then destroyed under them, and the callback's task ends with "cannot use
Destroyable because destruction was requested", printed as an exception that was never
retrieved; a callback running when Ctrl-C shuts the context down fails to publish the same way.
Every callback of the node enters the gate: :meth:`CallbackGate.close` refuses new entries and
waits for the running ones before the node is destroyed, and an exception raised in a callback
while shutting down is dropped.
"""
from __future__ import annotations

from contextlib import contextmanager
import threading
import time
from typing import Callable, Iterator, Optional


class CallbackGate:
    """Count the callbacks in progress; once closed, let none in (thread-safe)."""

    def __init__(self, shutting_down: Optional[Callable[[], bool]] = None):
        """
        Open gate.

        :param shutting_down: tells whether the middleware is shutting down (rclpy: the context
            is no longer ok); an exception raised in a callback then is the shutdown's, and is
            dropped, as after :meth:`close`.
        """
        self._cond = threading.Condition()
        self._busy = 0
        self._closed = False
        self._shutting_down = shutting_down or (lambda: False)

    @property
    def closed(self) -> bool:
        """Tell whether :meth:`close` was called."""
        return self._closed

    @contextmanager
    def enter(self) -> Iterator[bool]:
        """
        Enter for the duration of a callback; yields False when closed (return at once then).

        Usage: ``with gate.enter() as open_: if not open_: return``.
        """
        with self._cond:
            if self._closed:
                allowed = False
            else:
                self._busy += 1
                allowed = True
        try:
            yield allowed
        except Exception:  # noqa: BLE001 - re-raised unless the shutdown caused it
            if not (self._closed or self._shutting_down()):
                raise
        finally:
            if allowed:
                with self._cond:
                    self._busy -= 1
                    self._cond.notify_all()

    def close(self, timeout: Optional[float] = None) -> bool:
        """
        Refuse new entries; wait until the callbacks in progress have left.

        :param timeout: longest wait [s]; None: no limit.
        :return: True when none is left running.
        """
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._closed = True
            while self._busy:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0.0:
                    return False
                self._cond.wait(left)
        return True
