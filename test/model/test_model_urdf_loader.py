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

"""Loading sources and rejecting broken descriptions, each error naming the element."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from pdls_ik.errors import InputError, JointError, LinkError, PDLSIKError, URDFError
from pdls_ik.model import load_urdf
import pytest

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base"><inertial><origin xyz="0 0 0.05" rpy="0 0 0"/><mass value="2.5"/>
    <inertia ixx="0.1" ixy="0.01" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>
  <link name="upper"/><link name="lower"/><link name="tool"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 0.3" rpy="0 0 0"/><axis xyz="0 1 0"/></joint>
  <joint name="slide" type="prismatic"><parent link="lower"/><child link="tool"/>
    <origin xyz="0 0 0.2" rpy="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.1" effort="50" velocity="0.5"/></joint>
</robot>"""


def test_sources_path_str_xml_bytes_and_parameter_contents(tmp_path):
    file = tmp_path / 'arm.urdf'
    file.write_text(ARM)
    for source in (file, str(file), ARM, ARM.encode(), '\n  ' + ARM):
        robot = load_urdf(source)
        assert robot.joint_names == ['shoulder', 'elbow', 'slide']
        assert robot.joint_types == ['revolute', 'continuous', 'prismatic']
        np.testing.assert_allclose(robot.forward_kinematics([0, 0, 0.05], 'tool')[:3, 3],
                                   [0, 0, 0.65], atol=1e-15)


def test_attributes_and_inertials():
    robot = load_urdf(ARM, base_link='upper')
    assert robot.base_link == 'upper' and robot.root_link == 'base' and robot.n == 3
    assert robot.link_names == ['base', 'upper', 'lower', 'tool']
    np.testing.assert_array_equal(robot.lower, [-1, -np.inf, 0])
    np.testing.assert_array_equal(robot.upper, [1, np.inf, 0.1])
    np.testing.assert_array_equal(robot.velocity_limits, [2, np.inf, 0.5])
    np.testing.assert_array_equal(robot.effort_limits, [5, np.inf, 50])
    np.testing.assert_array_equal(robot.continuous, [False, True, False])
    assert robot.joint_index('slide') == 2 and robot.link_index('tool') == 3
    inertial = robot.inertials['base']
    assert inertial.mass == 2.5 and set(robot.inertials) == {'base'}
    np.testing.assert_allclose(inertial.origin[:3, 3], [0, 0, 0.05])
    np.testing.assert_allclose(inertial.inertia, [[0.1, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.3]])
    # default base is base_link: the pose of tool in "upper"
    np.testing.assert_allclose(robot.forward_kinematics([0.4, 0, 0], 'tool')[:3, 3],
                               [0, 0, 0.5], atol=1e-15)


def test_empty_and_missing_files(tmp_path):
    empty = tmp_path / 'empty.urdf'
    empty.write_text('  \n')
    for source in (empty, '', '   '):
        with pytest.raises(URDFError, match='empty'):
            load_urdf(source)
    with pytest.raises(URDFError, match=r"missing\.urdf': cannot read it: No such file"):
        load_urdf(tmp_path / 'missing.urdf')
    with pytest.raises(URDFError, match='cannot read it: Is a directory'):
        load_urdf(tmp_path)
    with pytest.raises(URDFError, match="as text must start with '<'"):
        load_urdf('this is not xml')


@pytest.mark.parametrize('text,error,match', [
    ("<robot name='x'><link name='a'>", URDFError, 'not well-formed'),
    ('<robot', URDFError, 'not well-formed'),
    ("<model name='x'/>", URDFError, '<model>'),
    ("<robot name='x'/>", URDFError, 'no <link>'),
    ("<robot name='x'><link/></robot>", URDFError, 'no name'),
    ("<robot name='x'><link name='a'/><link name='a'/></robot>", LinkError, 'twice'),
])
def test_malformed_documents(text, error, match):
    with pytest.raises(error, match=match):
        load_urdf(text)


def _robot(*joints: str, links=('a', 'b', 'c')) -> str:
    return ("<robot name='x'>" + ''.join(f"<link name='{n}'/>" for n in links)
            + ''.join(joints) + '</robot>')


def _joint(name, parent, child, jtype='fixed', extra=''):
    return (f"<joint name='{name}' type='{jtype}'><parent link='{parent}'/>"
            f"<child link='{child}'/>{extra}</joint>")


@pytest.mark.parametrize('text,error,subject,match', [
    (_robot(_joint('j', 'a', 'b', 'weird')), JointError, 'j', "unknown joint type 'weird'"),
    (_robot(_joint('j', 'a', 'zz'), _joint('k', 'b', 'c')), JointError, 'j',
     "child link 'zz' is not defined"),
    (_robot(_joint('j', 'a', 'b'), _joint('k', 'c', 'b')), LinkError, 'b', 'two parent joints'),
    (_robot(_joint('j', 'a', 'b'), _joint('k', 'b', 'c'), _joint('l', 'c', 'b')),
     LinkError, 'b', 'two parent joints'),
    (_robot(_joint('j', 'a', 'b'), _joint('k', 'b', 'a'), links=('a', 'b')), URDFError, None,
     'cycle'),
    (_robot(_joint('j', 'a', 'a'), links=('a',)), JointError, 'j', 'same link'),
    (_robot(_joint('j', 'a', 'b'), _joint('k', 'b', 'c'), _joint('l', 'c', 'b'),
            links=('a', 'b', 'c', 'd')), LinkError, 'b', 'two parent'),
    (_robot(_joint('j', 'a', 'b'), links=('a', 'b', 'c', 'd')), URDFError, None, 'a, c, d'),
    (_robot(_joint('j', 'a', 'b'), _joint('j', 'b', 'c')), JointError, 'j', 'twice'),
    ("<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='fixed'>"
     "<child link='b'/></joint></robot>", JointError, 'j', 'no <parent'),
    (_robot(_joint('j', 'a', 'b', extra="<origin xyz='0 nan 0'/>"), _joint('k', 'b', 'c')),
     JointError, 'j', 'origin xyz.*NaN'),
    (_robot(_joint('j', 'a', 'b', extra="<origin rpy='0 0 inf'/>"), _joint('k', 'b', 'c')),
     JointError, 'j', 'origin rpy.*infinity'),
    (_robot(_joint('j', 'a', 'b', extra="<origin xyz='0 0'/>"), _joint('k', 'b', 'c')),
     JointError, 'j', 'needs 3'),
])
def test_broken_trees_and_values_name_the_element(text, error, subject, match):
    with pytest.raises(error, match=match) as info:
        load_urdf(text)
    if error is JointError:
        assert info.value.joint == subject
    if error is LinkError:
        assert info.value.link == subject


def test_cycle_below_a_valid_root_is_reported():
    text = _robot(_joint('j', 'a', 'b'), _joint('k', 'c', 'd'), _joint('l', 'd', 'c'),
                  links=('a', 'b', 'c', 'd'))
    with pytest.raises(URDFError, match='cycle through link.*c, d'):
        load_urdf(text)


@pytest.mark.parametrize('inertial,match', [
    ("<mass value='nan'/>", 'mass value.*NaN'),
    ("<mass value='-1'/>", 'negative'),
    ("<inertia ixx='1' ixy='0' ixz='0' iyy='inf' iyz='0' izz='1'/>", 'iyy.*infinity'),
])
def test_bad_inertials_name_the_link(inertial, match):
    text = f"<robot name='x'><link name='body'><inertial>{inertial}</inertial></link></robot>"
    with pytest.raises(LinkError, match=match) as info:
        load_urdf(text)
    assert info.value.link == 'body'


def test_queries_validate_q_and_names():
    robot = load_urdf(ARM)
    for bad in ([0, 0], [0, 0, 0, 0], [[0, 0, 0]], 'abc', None):
        with pytest.raises(InputError, match=r'3'):
            robot.forward_kinematics(bad, 'tool')
    for value, shown in ((np.nan, 'nan'), (np.inf, 'inf'), (-np.inf, '-inf')):
        with pytest.raises(InputError, match=f"'elbow' is {shown}"):
            robot.jacobian([0, value, 0], 'tool')
    with pytest.raises(LinkError, match="'hand'"):
        robot.forward_kinematics([0, 0, 0], 'hand')
    with pytest.raises(LinkError, match="'nowhere'"):
        robot.pose_and_jacobian([0, 0, 0], 'tool', base='nowhere')
    with pytest.raises(JointError, match="'knee'.*unknown"):
        robot.joint_index('knee')
    with pytest.raises(LinkError):
        load_urdf(ARM, base_link='nowhere')
    assert issubclass(LinkError, PDLSIKError) and issubclass(JointError, URDFError)


def test_urdf_parser_py_prints_nothing(capfd):
    load_urdf(ARM.replace('<robot name="arm">', '<robot name="arm"><gazebo/><ros2_control/>'))
    out, err = capfd.readouterr()
    assert out == '' and err == ''


def test_path_like_object_is_accepted(tmp_path):
    (tmp_path / 'a.urdf').write_text(ARM)
    assert load_urdf(Path(tmp_path) / 'a.urdf').n == 3
