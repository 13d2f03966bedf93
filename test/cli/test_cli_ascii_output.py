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
Every ``pdls-ik`` subcommand under an ASCII-only standard output (``PYTHONIOENCODING=ascii``).

What the encoding lacks ("±", "…", "└", non-ASCII joint names) is printed as a backslash escape;
the command exits as usual, never with a UnicodeEncodeError.
"""
import os
import subprocess
import sys

from pdls_ik.cli import SUBCOMMANDS
import pytest

#: a robot whose names are not ASCII (the second joint also lacks a velocity limit: a warning)
URDF = """<?xml version="1.0" encoding="utf-8"?>
<robot name="bras_é">
  <link name="socle"/><link name="épaule"/><link name="bout"/>
  <joint name="épaule_j" type="revolute"><parent link="socle"/><child link="épaule"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="coude_ü" type="revolute"><parent link="épaule"/><child link="bout"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="0"/></joint>
</robot>
"""


def _pdls_ik(tmp_path, *argv):
    env = dict(os.environ, PYTHONIOENCODING='ascii')
    entry = 'import sys; from pdls_ik.cli import main; sys.exit(main())'
    done = subprocess.run([sys.executable, '-c', entry, *argv], cwd=tmp_path, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    out, err = done.stdout.decode('ascii'), done.stderr.decode('ascii')   # ASCII only
    assert 'Traceback' not in out + err and 'UnicodeEncodeError' not in out + err, err
    return done.returncode, out, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / 'bras.urdf').write_text(URDF, encoding='utf-8')
    (tmp_path / 'c.yaml').write_text('position_only: true\n')
    (tmp_path / 'g.csv').write_text('t,x,y,z,qx,qy,qz,qw\n0,0,0.3,0,0,0,0,1\n')
    return tmp_path


#: per subcommand, its arguments and the expected exit status
RUNS = {
    'info': [(['bras.urdf'], 0), (['panda'], 0)],
    'fk': [(['bras.urdf', 'bout', '--q', '0', '0'], 0)],
    'ik': [(['bras.urdf', '--tip', 'bout', '--config', 'c.yaml', '--pose', '0', '0.3', '0',
             '0', '0', '0', '1', '--timeout', '5'], 0)],
    'track': [(['bras.urdf', '--tip', 'bout', '--config', 'c.yaml', '--goals', 'g.csv',
                '--settle', '0.2', '--no-progress', '--out', 'out'], 0)],
    'demo': [(['--duration', '0.1', '--no-progress', '--out', 'out'], 0)],
    'reach': [(['bras.urdf', '--tip', 'bout', '--voxel', '0.2', '--orientations', '2',
                '--scheduler', 'synchronous', '--no-progress', '--out', 'out/r.npz'], 0)],
    'bench': [(['--only', 'scaling', '-n', '1', '--out', 'out'], 0)],   # the suite too
}


def test_every_subcommand_is_run():
    assert set(RUNS) == set(SUBCOMMANDS)


@pytest.mark.parametrize('command, argv, status', [
    (command, argv, status) for command, runs in RUNS.items() for argv, status in runs])
def test_subcommand_prints_under_an_ascii_stdout(files, command, argv, status):
    code, out, err = _pdls_ik(files, command, *argv)
    assert code == status, err
    if command in ('info', 'fk', 'ik', 'track', 'reach') and argv[0] == 'bras.urdf':
        # the non-ASCII names come out as escapes: the joint in a warning, or printed
        assert "'coude_\\xfc'" in err
    if command == 'info' and argv[0] == 'bras.urdf':
        assert 'robot bras_\\xe9:' in out and '\\u2514\\u2500\\u2500 \\xe9paule' in out
    if command == 'ik':
        assert '\\xe9paule_j' in out and 'coude_\\xfc' in out
