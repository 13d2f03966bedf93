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
A node process ends within seconds when told to, in every state, and never outlives its parent.

The solver kernels load in a thread (:class:`~pdls_ik.ros_logic.loader.Loader`: numba compiles
them for tens of seconds on a cold cache, minutes when several nodes compile at once on a loaded
machine). A shutdown that waits on anything (a callback, the executor's thread pool, the
interpreter's exit) would keep the process, and its compilation, alive: stopping ``ros2 launch``
during the load (SIGINT, then SIGTERM to the launch 3 s later) left every node running for up to
half an hour, and a further SIGINT did not end them. :class:`ExitGuard` makes the end certain:

- the first SIGINT or SIGTERM starts the clean shutdown (rclpy's own handler stops the executor)
  and arms a deadline: the process exits :data:`EXIT_GRACE` seconds later whatever it is still
  doing (``os._exit``: no thread, atexit hook or compilation holds it);
- a second signal exits at once;
- when the parent process (the launch) dies, the node gets SIGTERM: ``prctl(PR_SET_PDEATHSIG)``
  on Linux, else a thread that polls the parent's pid every :data:`PARENT_POLL` seconds.

The parent watch is what the issue's harness needs: a launch sent SIGINT alone does not pass it
on (it expects the terminal to have signalled the whole process group) and sends SIGTERM only
``sigterm_timeout`` (5 s) later; a SIGTERM to the launch before then ends the launch at once and
leaves its nodes unsignalled. The forced exit's line on stderr is best effort: the launch that
read the node's output may be gone (a broken pipe must not keep the process alive).

The guard learns of a signal from a thread of its own, not from a Python signal handler: CPython
runs those in the main thread only, between bytecodes, and the kernel may deliver the signal to
any thread. A main thread blocked in C (joining a thread, waiting on a lock, inside a long
kernel call) then never runs the handler, and the deadline is never armed. CPython's C-level
handler writes each signal's number to the wakeup fd (``signal.set_wakeup_fd``) from whatever
thread received it; the guard's watch thread reads it there.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import socket
import sys
import threading
import time
from typing import Callable, Optional, Sequence

#: longest time from the first SIGINT/SIGTERM (or the end of spinning) to the process's exit [s]
EXIT_GRACE = 3.0
#: period of the parent check where prctl is not available [s]
PARENT_POLL = 0.5
#: prctl option: the signal the kernel sends this process when its parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1
#: the signals that stop a node
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _ignore(signum: int, frame=None) -> None:
    """Python-level handler of a signal the guard's watch thread takes from the wakeup fd."""


def _prctl_parent_death(signum: int) -> bool:
    """Ask Linux to send ``signum`` when the parent dies; False where prctl is not available."""
    if not sys.platform.startswith('linux'):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class ExitGuard:
    """
    The end of a node process: a deadline once stopping starts, and the parent watched.

    :param grace: seconds from :meth:`arm` to the forced exit.
    :param exit_process: called with the exit status when the deadline passes or a second
        signal comes (default ``os._exit``; tests give their own).
    :param log: called with one line before a forced exit (default: to stderr).
    """

    def __init__(self, grace: float = EXIT_GRACE,
                 exit_process: Callable[[int], None] = os._exit,
                 log: Optional[Callable[[str], None]] = None):
        self.grace = grace
        self._exit = exit_process
        self._log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self._lock = threading.Lock()
        self._timer: Optional[threading.Timer] = None
        self._signals = 0
        self._wakeup: Optional[socket.socket] = None

    @property
    def armed(self) -> bool:
        """Tell whether the deadline runs."""
        return self._timer is not None

    def arm(self, status: int = 0) -> None:
        """
        Exit with ``status`` ``grace`` seconds from now unless the process has ended first.

        The first call sets the deadline; later calls keep it. The timer thread is a daemon:
        a process that ends sooner is not held by it.
        """
        with self._lock:
            if self._timer is not None:
                return
            self._timer = threading.Timer(self.grace, self._expire, (status,))
            self._timer.daemon = True
            self._timer.name = 'pdls_ik exit deadline'
            self._timer.start()

    def _expire(self, status: int) -> None:
        self._say(f'pdls_ik: shutdown not finished {self.grace:g} s after it started: exiting')
        self._exit(status)

    def _say(self, line: str) -> None:
        """Log one line; a closed or broken output (the launch reading it is gone) is no error."""
        try:
            self._log(line)
        except (OSError, ValueError):
            pass

    def handle(self, signum: int, frame=None) -> None:
        """
        Take a stop signal: the first arms the deadline, a second one exits now.

        It does not raise: rclpy's handler has already stopped the executor.
        """
        self._signals += 1
        if self._signals > 1:
            self._say(f'pdls_ik: signal {signum} again: exiting now')
            self._exit(0)
            return
        self.arm(0)

    def install(self, signals: Sequence[int] = STOP_SIGNALS) -> None:
        """
        Take ``signals`` (from the main thread, before ``rclpy.init``).

        The Python handler installed for each signal does nothing itself: it keeps CPython's
        C-level handler in place (rclpy's handler, installed after it, calls it in turn), which
        writes the signal to the wakeup fd that the guard's watch thread reads and passes to
        :meth:`handle`. Where the wakeup fd is already taken (an asyncio loop in this process),
        it is left alone and the Python handler calls :meth:`handle` itself.
        """
        handler = self.handle
        if self._wakeup is None:
            reader, writer = socket.socketpair()
            writer.setblocking(False)
            previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
            if previous == -1:
                self._wakeup = writer
                threading.Thread(target=self._watch_signals, args=(reader, frozenset(signals)),
                                 daemon=True, name='pdls_ik signal watch').start()
            else:
                signal.set_wakeup_fd(previous)
                reader.close()
                writer.close()
        if self._wakeup is not None:
            handler = _ignore
        for signum in signals:
            signal.signal(signum, handler)

    def _watch_signals(self, reader: socket.socket, signals: frozenset) -> None:
        while True:
            data = reader.recv(64)
            if not data:
                return
            for signum in data:
                if signum in signals:
                    self.handle(signum)

    def watch_parent(self, poll: float = PARENT_POLL,
                     parent: Optional[int] = None) -> Optional[threading.Thread]:
        """
        Send SIGTERM to this process when its parent dies (the launch that started it).

        ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` on Linux (the kernel sends it; None is returned);
        elsewhere, or when that fails, a daemon thread compares ``os.getppid()`` with
        ``parent`` (default: the current parent) every ``poll`` seconds, and that thread is
        returned.
        """
        parent = os.getppid() if parent is None else parent
        if _prctl_parent_death(signal.SIGTERM):
            return None
        thread = threading.Thread(target=self._poll_parent, args=(parent, poll), daemon=True,
                                  name='pdls_ik parent watch')
        thread.start()
        return thread

    @staticmethod
    def _poll_parent(parent: int, poll: float) -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGTERM)
                return
