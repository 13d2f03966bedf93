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
import warnings

import numpy as np
from pdls_ik.errors import InputError, JointError, LinkError, PDLSIKError, URDFError
from pdls_ik.model import load_urdf, URDFWarning
from pdls_ik.model.com import CenterOfMass
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
])
def test_broken_trees_are_refused_naming_the_element(text, error, subject, match):
    with pytest.raises(error, match=match) as info:
        load_urdf(text)
    if error is JointError:
        assert info.value.joint == subject
    if error is LinkError:
        assert info.value.link == subject


@pytest.mark.parametrize('extra,jtype,match', [
    ('', 'weird', "unknown joint type 'weird'"),
    ("<origin xyz='0 nan 0'/>", 'fixed', 'origin xyz.*NaN'),
    ("<origin rpy='0 0 inf'/>", 'fixed', 'origin rpy.*infinity'),
    ("<origin xyz='0 0'/>", 'fixed', 'needs 3'),
])
def test_a_broken_joint_disables_only_its_own_subtree(extra, jtype, match):
    text = _robot(_joint('k', 'a', 'c', 'revolute', "<axis xyz='0 0 1'/><limit lower='-1' "
                                                    "upper='1' effort='1' velocity='1'/>"),
                  _joint('j', 'a', 'b', jtype, extra))
    with pytest.warns(URDFWarning, match=f"joint 'j': .*{match}.*disabled"):
        robot = load_urdf(text)
    assert robot.joint_names == ['k'] and list(robot.joint_defects) == ['j']
    np.testing.assert_allclose(robot.forward_kinematics([0.5], 'c')[:2, 0],
                               [np.cos(0.5), np.sin(0.5)], atol=1e-15)
    for use in (lambda: robot.forward_kinematics([0.5], 'b'), lambda: robot.jacobian([0], 'b'),
                lambda: robot.chain('c', 'b'), lambda: robot.joint_index('j')):
        with pytest.raises(JointError, match=match) as info:
            use()
        assert info.value.joint == 'j'
    poses = robot.forward_kinematics_all([0.5])
    assert np.isnan(poses['b']).all() == ('origin' in extra)


def test_cycle_below_a_valid_root_is_reported():
    text = _robot(_joint('j', 'a', 'b'), _joint('k', 'c', 'd'), _joint('l', 'd', 'c'),
                  links=('a', 'b', 'c', 'd'))
    with pytest.raises(URDFError, match='cycle through link.*c, d'):
        load_urdf(text)


@pytest.mark.parametrize('inertial,match', [
    ("<mass value='nan'/>", 'mass value.*NaN'),
    ("<mass value='-1'/>", 'negative'),
    ("<mass value='1'/><inertia ixx='1' ixy='0' ixz='0' iyy='inf' iyz='0' izz='1'/>",
     'iyy.*infinity'),
    ("<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/>", 'no <mass>'),
])
def test_bad_inertials_disable_the_link_for_centre_of_mass_only(inertial, match):
    text = (f"<robot name='x'><link name='body'><inertial>{inertial}</inertial></link>"
            "<link name='arm'><inertial><mass value='2'/></inertial></link>"
            "<joint name='j' type='continuous'><parent link='body'/><child link='arm'/>"
            "<origin xyz='1 0 0'/></joint></robot>")
    with pytest.warns(URDFWarning, match=f"link 'body': .*{match}"):
        robot = load_urdf(text)
    assert set(robot.inertials) == {'arm'} and list(robot.link_defects) == ['body']
    np.testing.assert_allclose(robot.forward_kinematics([0.3], 'arm')[:3, 3], [1, 0, 0])
    with pytest.raises(LinkError, match=match) as info:
        CenterOfMass(robot)
    assert info.value.link == 'body'
    np.testing.assert_allclose(CenterOfMass(robot, subtree='arm').position([0.0]), [1, 0, 0])


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
    with pytest.warns(URDFWarning, match="no usable velocity limit.*: 'elbow'$"):
        load_urdf(ARM.replace('<robot name="arm">', '<robot name="arm"><gazebo/><ros2_control/>'))
    out, err = capfd.readouterr()
    assert out == '' and err == ''


def test_path_like_object_is_accepted(tmp_path):
    (tmp_path / 'a.urdf').write_text(ARM)
    assert load_urdf(Path(tmp_path) / 'a.urdf').n == 3


NON_KINEMATIC = """<robot name="arm">
  <material name="grey"><texture/></material>
  <transmission name="pr2_style" type="pr2_mechanism_model/SimpleTransmission">
    <actuator name="m"/><joint name="shoulder"/><mechanicalReduction>x</mechanicalReduction>
  </transmission>
  <transmission name="ros_style"><type>transmission_interface/SimpleTransmission</type>
    <joint name="shoulder"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
  </transmission>
  <gazebo reference="base"><mu1>not a number</mu1></gazebo>
  <ros2_control name="sys" type="system"><hardware><plugin>mock</plugin></hardware></ros2_control>
  <sensor name="cam" update_rate="fast"><parent link="base"/><camera/></sensor>
  <link name="base"><visual><geometry><box/></geometry><material name="undefined"/></visual>
    <collision><geometry><mesh filename="package://nowhere/m.stl" scale="a b"/></geometry>
    </collision><contact><lateral_friction value="1"/></contact></link>
  <link name="upper"><visual><geometry><cylinder radius="x"/></geometry></visual></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
    <dynamics damping="lots"/><calibration rising="?"/><physics/></joint>
  <plugin name="extension"/>
</robot>"""


def test_elements_kinematics_never_reads_never_refuse():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        robot = load_urdf(NON_KINEMATIC)
    assert [str(w.message) for w in caught] == [
        "elements kinematics does not read, ignored: <plugin>; <contact> in link 'base'; "
        "<physics> in joint 'shoulder'"]
    assert robot.joint_names == ['shoulder'] and robot.link_names == ['base', 'upper']
    np.testing.assert_allclose(robot.forward_kinematics([np.pi / 2], 'upper')[:3, 0], [0, 1, 0],
                               atol=1e-15)


@pytest.mark.parametrize('extra', [
    '<safety_controller soft_lower_limit="-0.5" k_velocity="fast" k_position="?"/>',
    '<limit effort="1" velocity="2" stiffness="high"/><mimic joint="shoulder" spring="x"/>',
    '<axis xyz="0 1 0" frame="?"/><origin xyz="0 0 0.3" rpy="0 0 0" frame="?"/>',
])
def test_attributes_kinematics_does_not_read_are_ignored(extra):
    text = ARM.replace('<origin xyz="0 0 0.3" rpy="0 0 0"/><axis xyz="0 1 0"/></joint>',
                       f'{extra}</joint>')
    assert extra in text
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        # the continuous elbow has no velocity limit (but in the second case): its note only
        warnings.filterwarnings('ignore', "no usable velocity limit.*: 'elbow'$")
        robot = load_urdf(text)
    assert robot.joint('elbow').type == 'continuous'


def test_a_task_naming_a_disabled_joint_raises_its_defect():
    from pdls_ik import IKSolver
    from pdls_ik.trajectory import plan_to
    text = _robot(_joint('j1', 'a', 'b', 'revolute', "<axis xyz='0 0 1'/><limit lower='-1' "
                                                     "upper='1' effort='1' velocity='1'/>"),
                  _joint('j2', 'b', 'c', 'revolute', "<origin xyz='0.5 0 0'/><limit "
                                                     "lower='1' upper='-1' effort='1' "
                                                     "velocity='1'/>"))
    with pytest.warns(URDFWarning, match="joint 'j2': limit lower 1 > upper -1"):
        robot = load_urdf(text)
    assert robot.joint_names == ['j1']
    with pytest.raises(JointError, match='lower 1 > upper -1') as info:
        IKSolver(robot, 'b', locked_joints=['j2'], locked_positions=[0.0])
    assert info.value.joint == 'j2'
    assert plan_to(robot, [0.0], [0.5]).joint_names == ['j1']
    result = IKSolver(robot, 'b', backend='numpy', timeout=5.0).solve(
        robot.forward_kinematics([0.5], 'b'), seed=[0.0])
    assert result.success and result.q[0] == pytest.approx(0.5, abs=1e-6)
