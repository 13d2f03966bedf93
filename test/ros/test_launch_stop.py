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
A stopped ``ros2 launch`` leaves no pdls_ik_node behind, whatever the node was doing.

As a supervisor or a test harness stops a launch: SIGINT to ``ros2 launch``, SIGTERM to it 3 s
later if it still runs. Three moments: while the node loads its kernels (a cold numba cache of
its own: minutes of compilation), while it tracks (kernels loaded), and idle after a failed load
(a robot_description that is no URDF). After the launch has ended, no process of the node may
be left (a liveness bound of the node's exit grace plus a margin, not a timing).

Driven through the ``ros2`` command on a launch file written here, which runs the node as
``python -m pdls_ik.ros.node`` from this source tree (no colcon install needed); skipped with a
reason where ROS 2 (rclpy, the ``ros2`` command with its launch verb) is absent. Linux only (the
processes are found in /proc).
"""
import importlib
import os
from pathlib import Path
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid

from pdls_ik._accel import available, numba_problem
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.lifetime import EXIT_GRACE
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
#: SIGTERM to the launch this long after its SIGINT [s] (as the issue's harness did)
TERM_AFTER = 3.0
#: how long the launch may take to end after its SIGTERM, and the node after the launch [s]
#: (liveness bounds on a loaded machine)
MARGIN = 30.0
#: the longest wait for the node to reach the state a test stops it in [s] (tracking needs the
#: kernels: compiled once per machine, minutes on a loaded one)
REACH = 900.0


def _skip_reason():
    if not sys.platform.startswith('linux'):
        return 'finds processes in /proc (Linux)'
    if shutil.which('ros2') is None:
        return 'ros2 command not found: source a ROS 2 setup'
    # the launch verb, and what the node imports
    for module in ('rclpy', 'ros2launch', 'launch', 'diagnostic_msgs.msg', 'trajectory_msgs.msg',
                   'sensor_msgs.msg', 'geometry_msgs.msg', 'std_msgs.msg'):
        try:
            importlib.import_module(module)
        except ImportError:
            return f'{module} not found: source a ROS 2 setup that has it'
    return None


SKIP_REASON = _skip_reason()
pytestmark = pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or '')

LAUNCH_FILE = """
from launch import LaunchDescription
from launch.actions import ExecuteProcess

def generate_launch_description():
    actions = [ExecuteProcess(cmd={node!r}, output='screen', additional_env={env!r})]
    if {publish!r}:
        actions.append(ExecuteProcess(cmd={publish!r}, output='screen'))
    return LaunchDescription(actions)
"""


class Launch:
    """One ``ros2 launch`` of the node, its output collected line by line."""

    def __init__(self, tmp_path: Path, state: str):
        self.marker = f'pdls_ik_stop_{state}_{uuid.uuid4().hex[:8]}'
        namespace = f'/{self.marker}'
        values = {'tip_link': 'panda_link8', 'echo_joint_states': True}
        if state != 'failed_load':
            values['robot_description'] = bundled_urdf('panda').read_text()
        params = tmp_path / f'{self.marker}.yaml'
        params.write_text(yaml.safe_dump({'/**': {'ros__parameters': values}}))
        env = {'PYTHONPATH': os.pathsep.join([str(REPO), os.environ.get('PYTHONPATH', '')])}
        if state == 'loading':           # a cold cache of its own: the kernels compile
            env['NUMBA_CACHE_DIR'] = str(tmp_path / 'numba_cache')
        publish = None
        if state == 'failed_load':
            publish = ['ros2', 'topic', 'pub', '--once', '-w', '1', '--qos-durability',
                       'transient_local', '--qos-reliability', 'reliable',
                       f'{namespace}/robot_description', 'std_msgs/msg/String',
                       "{data: 'not a robot description'}"]
        node = [sys.executable, '-m', 'pdls_ik.ros.node', '--ros-args', '--params-file',
                str(params), '-r', f'__ns:={namespace}']
        launch_file = tmp_path / f'{self.marker}.launch.py'
        launch_file.write_text(LAUNCH_FILE.format(node=node, env=env, publish=publish))
        self.lines = []
        self._new = threading.Condition()
        self.proc = subprocess.Popen(['ros2', 'launch', str(launch_file)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self._new:
                self.lines.append(line.rstrip())
                self._new.notify_all()

    def wait_for(self, text: str, limit: float) -> bool:
        """Wait until a line of the output holds ``text``."""
        end = time.monotonic() + limit
        with self._new:
            while not any(text in line for line in self.lines):
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return any(text in line for line in self.lines)
                self._new.wait(min(left, 1.0))
        return True

    def node_pids(self):
        """Pids of the live (not zombie) processes whose command line holds the marker."""
        pids = []
        for entry in Path('/proc').iterdir():
            if not entry.name.isdigit() or int(entry.name) == self.proc.pid:
                continue
            try:
                cmdline = (entry / 'cmdline').read_bytes().replace(b'\0', b' ').decode()
                state = (entry / 'stat').read_text().rsplit(')', 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if self.marker in cmdline and 'pdls_ik.ros.node' in cmdline and state != 'Z':
                pids.append(int(entry.name))
        return pids

    def stop(self):
        """SIGINT to the launch, SIGTERM TERM_AFTER s later if it still runs; wait for its end."""
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(TERM_AFTER)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(MARGIN)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def left_after(self, limit: float):
        """Return the node processes still alive ``limit`` s after the launch ended (killed)."""
        end = time.monotonic() + limit
        while self.node_pids() and time.monotonic() < end:
            time.sleep(0.2)
        left = self.node_pids()
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        return left


@pytest.mark.parametrize('state, text', [
    # no loading phase without the compiled kernels: on NumPy the node is ready at once
    pytest.param('loading', 'pdls_ik_node started', marks=pytest.mark.skipif(
        not available(), reason=f'{numba_problem()}: no kernels to compile, so no loading '
                                'state to stop the node in (the NumPy backend is ready at once)')),
    ('tracking', 'pdls_ik_node ready: solver kernels loaded'),
    ('failed_load', 'robot_description rejected'),
])
def test_stopped_launch_leaves_no_node(tmp_path, state, text):
    launch = Launch(tmp_path, state)
    try:
        reached = launch.wait_for(text, REACH)
        assert reached, '\n'.join(launch.lines[-30:])
        assert launch.node_pids(), 'the node process was not found'
        if state == 'loading':
            assert not launch.wait_for('ready: solver kernels loaded', 0.0)
    finally:
        launch.stop()
    left = launch.left_after(EXIT_GRACE + MARGIN)
    assert left == [], f'node processes left after the launch ended: {left}'
