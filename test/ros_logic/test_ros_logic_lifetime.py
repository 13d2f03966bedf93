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
The end of a node process (ROS-free): deadline, second signal, parent death, daemon loader.

The process tests run a stand-in for a node whose shutdown hangs as the issue's did: its main
thread waits for a thread that never ends (a callback behind a kernel compilation), a kernel
load runs in the loader's thread. Each must be gone within the guard's grace (plus margin) of
the signal or of its parent's death.
"""
import os
from pathlib import Path
import signal
import subprocess
import sys
import threading
import time

from pdls_ik.ros_logic.lifetime import ExitGuard
from pdls_ik.ros_logic.loader import Loader
import pytest

REPO = Path(__file__).resolve().parents[2]
#: how long a process may take to end after the guard's grace (process start-up, a loaded
#: machine); a liveness bound, not a timing
MARGIN = 20.0

#: a node stand-in: guard installed, the parent watched, a busy loader thread, and a main thread
#: that waits forever for a thread that never ends (non-daemon: it also holds the interpreter's
#: exit); prints its pid once ready. With ``MASK`` the main thread blocks the stop signals once
#: the other threads run, so the kernel delivers them to one of those (as it may on any node)
STUCK_NODE = """
import os, signal, sys, threading
from pdls_ik.ros_logic.lifetime import ExitGuard
from pdls_ik.ros_logic.loader import Loader
guard = ExitGuard(grace=1.0)
guard.install()
guard.watch_parent()
def busy():
    while True:
        sum(range(10000))
Loader(lambda *a: None, lambda *a: None).start(busy, 'test')
stuck = threading.Thread(target=busy)
stuck.start()
if MASK:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
print(os.getpid(), flush=True)
stuck.join()
"""


def _env():
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([str(REPO), env.get('PYTHONPATH', '')])
    return env


def _gone(pid):
    """Tell whether process pid has ended (a zombie counts as ended)."""
    try:
        status = Path(f'/proc/{pid}/status').read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return any(line.startswith('State:') and 'Z' in line.split()[1]
               for line in status.splitlines())


def _wait_gone(pid, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.1)
    return _gone(pid)


def test_deadline_exits_with_the_status_after_its_grace():
    exited, lines = [], []
    done = threading.Event()
    guard = ExitGuard(grace=0.01, exit_process=lambda status: (exited.append(status), done.set()),
                      log=lines.append)
    assert not guard.armed
    guard.arm(0)
    guard.arm(5)                        # the first deadline stands
    assert guard.armed and done.wait(MARGIN)
    assert exited == [0]
    assert lines == ['pdls_ik: shutdown not finished 0.01 s after it started: exiting']


def test_deadline_exits_when_its_line_cannot_be_written():
    """The launch that read the node's output is gone: the broken pipe must not keep it alive."""
    exited = []
    done = threading.Event()

    def broken(line):
        raise BrokenPipeError(32, 'Broken pipe')

    guard = ExitGuard(grace=0.01, exit_process=lambda status: (exited.append(status), done.set()),
                      log=broken)
    guard.arm(0)
    assert done.wait(MARGIN) and exited == [0]
    guard.handle(signal.SIGINT)
    guard.handle(signal.SIGINT)         # the second signal's line is lost too: exits all the same
    assert exited == [0, 0]


def test_first_signal_arms_second_exits_at_once():
    exited, lines = [], []
    guard = ExitGuard(grace=3600.0, exit_process=exited.append, log=lines.append)
    guard.handle(signal.SIGINT)         # does not raise: rclpy has stopped the executor
    assert guard.armed and exited == []
    guard.handle(signal.SIGTERM)
    assert exited == [0] and lines == [f'pdls_ik: signal {int(signal.SIGTERM)} again: exiting now']


def test_loader_threads_are_daemons():
    """A kernel load never holds the interpreter's exit."""
    release = threading.Event()
    loader = Loader(lambda *a: None, lambda *a: None)
    loader.start(release.wait, 'test')
    threads = [t for t in threading.enumerate() if t.name.startswith('pdls_ik loader')]
    release.set()
    assert threads and all(t.daemon for t in threads)
    assert loader.join(MARGIN)


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='reads /proc (Linux)')
@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize('mask', [False, True], ids=['any-thread', 'other-thread'])
def test_a_stuck_node_ends_after_a_stop_signal(signum, mask):
    """
    The signal ends it whichever thread receives it.

    ``other-thread``: the main thread, blocked in ``join``, never runs a Python signal handler
    (CPython runs them there only); the guard took the signal there and hung (CI, once in the
    ``any-thread`` case, where the kernel chose a busy thread).
    """
    proc = subprocess.Popen([sys.executable, '-c', f'MASK = {mask}\n' + STUCK_NODE],
                            stdout=subprocess.PIPE, env=_env(), text=True)
    try:
        pid = int(proc.stdout.readline())
        os.kill(pid, signum)
        proc.wait(1.0 + MARGIN)
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='reads /proc (Linux)')
def test_a_stuck_node_ends_with_its_parent():
    """
    The parent (a launch) dies without stopping it: the node ends all the same.

    Its output went to the parent (as a launch reads its nodes'): the pipes are broken by then.
    """
    parent = ('import subprocess, sys\n'
              f'child = subprocess.Popen([sys.executable, "-c", {"MASK = False" + STUCK_NODE!r}], '
              'stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)\n'
              'print(child.stdout.readline().strip(), flush=True)\n'
              'import os; os._exit(0)\n')
    proc = subprocess.Popen([sys.executable, '-c', parent], stdout=subprocess.PIPE, env=_env(),
                            text=True)
    pid = int(proc.stdout.readline())
    proc.wait(MARGIN)
    try:
        assert _wait_gone(pid, 1.0 + MARGIN)
    finally:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)
