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
pdls_ik/PDLSKinematicsPlugin through MoveIt's own call path: RobotState::setFromIK.

``pdls_ik_plugin_probe`` (moveit_plugin/plugin_probe.cpp) loads the plugin by pluginlib as
MoveIt's kinematics plugin loader does, asks setFromIK for random reachable goals and checks
every answer with MoveIt's forward kinematics. Every goal must be solved and none wrong, on the
Panda's arm (one chain) and on the bundled bimanual robot's two-tip groups (arms on a fixed
torso, and on the torso joint). The timeouts are generous (the clock is a cap: a loaded
machine, or the NumPy backend while the kernels compile on a first start, still solves).

Needs this package built by colcon where moveit_core is found (the probe and the plugin
library) in the sourced workspace; skipped with the reason elsewhere. The plugin's embedded
Python must import NumPy and SciPy: this test passes its own ``sys.path`` on as PYTHONPATH.
"""
import os
from pathlib import Path
import re
import subprocess
import sys

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = 'pdls_ik_plugin_probe'


def _probe():
    """(path of the installed probe, None) or (None, why it cannot run here)."""
    try:
        from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    except ImportError:
        return None, 'ament_index_python is not importable (no sourced ROS 2)'
    try:
        prefix = Path(get_package_prefix('pdls_ik'))
    except PackageNotFoundError:
        return None, 'pdls_ik is not installed in the sourced ROS 2 workspace (colcon build)'
    path = prefix / 'lib' / 'pdls_ik' / PROBE
    if not path.is_file():
        return None, (f'{path} not built: the workspace was built without moveit_core (or '
                      'with PDLS_IK_NO_MOVEIT=1)')
    return path, None


PROBE_PATH, SKIP_REASON = _probe()


def _run(robot, group, n, timeout, tips=(), threads=1):
    args = [str(PROBE_PATH), str(REPO / 'urdf' / f'{robot}.urdf'),
            str(REPO / 'urdf' / f'{robot}.srdf'), group, 'pdls_ik/PDLSKinematicsPlugin', str(n),
            str(timeout), '--threads', str(threads)]
    if tips:
        args += ['--tips', ','.join(tips)]
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([p for p in sys.path if p] +
                                        [env.get('PYTHONPATH', '')])
    proc = subprocess.run(args, capture_output=True, text=True, timeout=1800, env=env)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith('plugin=')), None)
    assert line is not None, proc.stdout + proc.stderr
    fields = dict(re.findall(r'(\w+)=(\S+)', line))
    return proc.returncode, fields, proc.stdout + proc.stderr


@pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or '')
@pytest.mark.parametrize('robot, group, tips, n', [
    ('panda', 'panda_arm', (), 300),
    ('bimanual', 'both_arms', ('l_tool', 'r_tool'), 100),
    ('bimanual', 'upper_body', ('l_tool', 'r_tool'), 100),
])
def test_set_from_ik_solves_every_goal(robot, group, tips, n):
    code, fields, text = _run(robot, group, n, 0.5, tips)
    assert code == 0 and fields['wrong'] == '0', text
    assert int(fields['success']) == n, text
    assert int(fields['tips']) == max(len(tips), 1), text


@pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or '')
@pytest.mark.parametrize('robot, group, tips', [
    ('panda', 'panda_arm', ()),
    ('bimanual', 'upper_body', ('l_tool', 'r_tool')),
])
def test_threads_sharing_the_solver_instance_all_get_right_answers(robot, group, tips):
    """
    Four threads call setFromIK at once through the group's one solver instance.

    So do move_group's planning threads, rviz's MotionPlanning panel and MoveIt Servo (every
    RobotState of one RobotModel asks the same instance): every goal solved, none wrong (an
    answer to another thread's request would be off its goal).
    """
    code, fields, text = _run(robot, group, 200, 2.0, tips, threads=4)
    assert code == 0 and fields['wrong'] == '0', text
    assert int(fields['success']) == 200 and fields['threads'] == '4', text
