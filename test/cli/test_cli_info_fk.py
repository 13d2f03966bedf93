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

"""``pdls-ik info`` and ``pdls-ik fk`` through the dispatcher: output, exit codes, no traceback."""
from __future__ import annotations

import json

import numpy as np
from pdls_ik.cli import main
from pdls_ik.model import load_urdf
from pdls_ik.resources import bundled_urdf
import pytest
from scipy.spatial.transform import Rotation


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert 'Traceback' not in out + err
    return code, out, err


def test_info_lists_joints_limits_and_tree(capsys):
    code, out, _ = _run(capsys, 'info', 'ur5')
    assert code == 0
    assert '6 active joints' in out and 'root world' in out
    assert 'elbow_joint' in out and '-3.142' in out
    assert '├── ee_link  [ee_fixed_joint: fixed]' in out
    assert '└── tool0  [wrist_3_link-tool0_fixed_joint: fixed]' in out


def test_info_json_reports_mimic_and_unbounded(capsys):
    code, out, _ = _run(capsys, 'info', str(bundled_urdf('bimanual')), '--json')
    assert code == 0
    info = json.loads(out)
    assert info['dof'] == 11 and info['root_link'] == 'base_link'
    wrist = next(j for j in info['joints'] if j['name'] == 'l_wrist_roll')
    assert wrist['type'] == 'continuous' and wrist['lower'] is None and wrist['upper'] is None
    assert 'null' in out and 'inf' not in out.replace('info', '')   # JSON has no infinity
    finger = next(e for e in info['tree'] if e['joint'] == 'l_finger_b_joint')
    assert finger['mimic'] == 'l_finger_a_joint' and finger['multiplier'] == -1


def test_fk_json_matches_the_model(capsys):
    q = [0.1, -0.5, 0.2, -2.0, 0.3, 1.5, 0.7, 0.02]
    code, out, _ = _run(capsys, 'fk', 'panda', 'panda_link8', '--json', '--q',
                        *map(str, q))
    assert code == 0
    result = json.loads(out)
    T = load_urdf(bundled_urdf('panda')).forward_kinematics(q, 'panda_link8')
    np.testing.assert_allclose(result['matrix'], T, atol=1e-15)
    np.testing.assert_allclose(result['position'], T[:3, 3], atol=1e-15)
    quat = np.array(result['quaternion_xyzw'])
    np.testing.assert_allclose(Rotation.from_quat(quat).as_matrix(), T[:3, :3], atol=1e-12)
    assert result['base'] == 'panda_link0'


def test_fk_text_with_base_and_default_q_the_middle_of_the_limits(capsys):
    code, out, err = _run(capsys, 'fk', 'panda', 'panda_link8', '--json')
    robot = load_urdf(bundled_urdf('panda'))
    assert code == 0 and err == ''           # the default q is within the limits: no warning
    np.testing.assert_allclose(json.loads(out)['q'], 0.5 * (robot.lower + robot.upper))
    code, out, _ = _run(capsys, 'fk', 'ur5', 'ee_link', '--base', 'base_link')
    assert code == 0
    # UR5 at its middle (0): ee x = 0.425 + 0.39225, y = 0.10915 + 0.0823, z = 0.089159 - 0.09465
    assert 'position (m):        0.817250 0.191450 -0.005491' in out
    assert 'quaternion (x y z w):' in out


@pytest.mark.parametrize('argv,message', [
    (['fk', 'ur5', 'ee_link', '--q', '0', '1'], 'expected 6 joint values'),
    (['fk', 'ur5', 'ee_link', '--q', '0', '0', '0', '0', '0', 'nan'], 'wrist_3_joint'),
    (['fk', 'ur5', 'ee_link', '--q', '0', '0', '0', '0', '0', 'x'], "'x'"),
    (['fk', 'ur5', 'fubar_link'], 'fubar_link'),
    (['fk', 'ur5', 'ee_link', '--base', 'nowhere'], 'nowhere'),
    (['info', 'no_such_robot.urdf'], 'no_such_robot.urdf'),
    (['info', 'ur5', '--base', 'nowhere'], 'nowhere'),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ''
    assert len(err.strip().splitlines()) == 1 and message in err


@pytest.mark.parametrize('case,file,joint,tip', [
    ('C02', 'axis_zero.urdf', 'shoulder', 'flange'),
    ('C03', 'revolute_no_limit.urdf', 'elbow', 'tip'),
])
def test_a_disabled_joint_is_listed_and_refused_when_used(capsys, case_dir, case, file, joint,
                                                          tip):
    path = str(case_dir(case) / file)
    code, out, err = _run(capsys, 'info', path)
    assert code == 0 and f"disabled joint '{joint}'" in out
    assert err.startswith(f"pdls-ik info: warning: joint '{joint}'") and len(err.splitlines()) == 1
    code, out, err = _run(capsys, 'fk', path, tip)
    lines = err.strip().splitlines()
    assert code == 2 and out == '' and len(lines) == 2
    assert lines[1].startswith(f"pdls-ik fk: error: joint '{joint}'")


@pytest.mark.parametrize('case,file,message', [
    ('C09', 'two_roots.urdf', 'gripper_adapter'),
    ('C10', 'unexpanded_xacro.urdf', '${column_height/2}'),
])
def test_broken_descriptions_are_one_line_and_exit_2(capsys, case_dir, case, file, message):
    code, out, err = _run(capsys, 'info', str(case_dir(case) / file))
    assert code == 2 and out == ''
    assert len(err.strip().splitlines()) == 1 and message in err


def test_malformed_and_empty_files(capsys, tmp_path):
    (tmp_path / 'bad.urdf').write_text("<robot name='x'><link name='a'>")
    (tmp_path / 'empty.urdf').write_text('')
    for name, message in (('bad.urdf', 'not well-formed'), ('empty.urdf', 'empty')):
        code, _, err = _run(capsys, 'fk', str(tmp_path / name), 'a')
        assert code == 2 and message in err


def test_directory_instead_of_urdf_is_named(capsys, tmp_path):
    code, out, err = _run(capsys, 'info', str(tmp_path))
    assert code == 2 and out == ''
    assert err.strip() == f'pdls-ik info: error: a directory, not a URDF file: {tmp_path}'


def test_warnings_are_one_line_without_source(capsys, tmp_path):
    urdf = tmp_path / 'floating.urdf'
    urdf.write_text(
        '<robot name="f"><link name="world"/><link name="base"/><link name="tip"/>'
        '<joint name="free" type="floating"><parent link="world"/><child link="base"/></joint>'
        '<joint name="j1" type="revolute"><parent link="base"/><child link="tip"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        '</robot>')
    code, _, err = _run(capsys, 'info', str(urdf))
    assert code == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pdls-ik info: warning: joint 'free'")


def test_fk_outside_limits_is_computed_with_a_warning(capsys):
    code, out, err = _run(capsys, 'fk', 'panda', 'panda_link8', '--q', '0', '0', '0', '-1', '0',
                          '0', '0', '100')
    assert code == 0 and out.startswith('pose of panda_link8')
    assert err.strip() == 'pdls-ik fk: warning: q outside the joint limits of panda_finger_joint1'


def test_fk_of_a_chain_inside_a_bigger_robot_takes_the_chain_s_joints(capsys):
    """bimanual: r_tool from the torso needs the right arm's 4 joints, not all 11."""
    robot = load_urdf(bundled_urdf('bimanual'))
    arm = [0.3, -0.4, -1.1, 0.7]
    code, out, _ = _run(capsys, 'fk', 'bimanual', 'r_tool', '--base', 'torso', '--json',
                        '--q', *map(str, arm))
    assert code == 0
    result = json.loads(out)
    assert result['joint_names'] == ['r_shoulder_pan', 'r_shoulder_lift', 'r_elbow',
                                     'r_wrist_roll']
    q = np.zeros(robot.n)
    q[[robot.joint_index(j) for j in result['joint_names']]] = arm
    q[robot.joint_index('l_elbow')] = -2.0      # other branches do not matter
    T = robot.forward_kinematics(q, 'r_tool', 'torso')
    np.testing.assert_allclose(result['matrix'], T, atol=1e-15)
    # from the root the torso joint is in the chain too: 5 values, and a wrong count names them
    code, out, _ = _run(capsys, 'fk', 'bimanual', 'r_tool', '--q', '0.2', *map(str, arm))
    assert code == 0
    code, out, err = _run(capsys, 'fk', 'bimanual', 'r_tool', '--q', *map(str, arm))
    assert code == 2 and 'expected 11 joint values' in err
    assert 'or 5 (the joints from base to link: torso_yaw, r_shoulder_pan' in err


def test_a_custom_urdf_without_tip_lists_the_tips_of_its_tree(capsys, tmp_path):
    urdf = tmp_path / 'arm.urdf'           # the bundled Panda under a name with no default tip
    urdf.write_text(bundled_urdf('panda').read_text())
    code, out, err = _run(capsys, 'ik', str(urdf), '--pose', '0.4', '0', '0.5', '1', '0', '0',
                          '0')
    assert code == 2 and out == ''
    assert err.strip().endswith('the tips of its tree: panda_hand_tcp, panda_leftfinger, '
                                'panda_rightfinger)')
