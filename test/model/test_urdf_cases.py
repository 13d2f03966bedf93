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

"""The URDF-loading cases of ../shared/cases (C02, C03, C04, C06, C07, C09, C10, C13, C14)."""
from __future__ import annotations

import warnings

from conftest import numeric_jacobian
import numpy as np
from pdls_ik.errors import InputError, JointError, LinkError, PDLSIKError, URDFError
from pdls_ik.model import load_urdf, URDFWarning
import pytest
from scipy.spatial.transform import Rotation


def _q(robot, **values):
    q = np.zeros(robot.n)
    for name, value in values.items():
        q[robot.joint_index(name)] = value
    return q


def _pos(robot, q, link, base=None):
    return robot.forward_kinematics(q, link, base)[:3, 3]


def _disabled(source, joint, why, tip):
    """
    Load ``source`` and check that ``joint`` is disabled, not refused.

    One warning line names ``joint`` and ``why``; it is not a variable, and a chain through it
    (the root to ``tip``, its own parent to child) raises JointError(why).
    """
    with pytest.warns(URDFWarning, match=f"joint '{joint}': .*{why}.*disabled"):
        robot = load_urdf(source)
    assert joint in robot.joint_defects and joint not in robot.joint_names
    with pytest.raises(JointError, match='disabled when the URDF was loaded') as info:
        robot.chain(tip)
    assert info.value.joint in robot.joint_defects  # the first disabled joint on the path
    record = robot.joint(joint)
    for use in (lambda: robot.chain(robot.link_names[record.child],
                                    robot.link_names[record.parent]),
                lambda: robot.joint_index(joint)):
        with pytest.raises(JointError, match=why) as info:
            use()
        assert info.value.joint == joint
    return robot


# --------------------------------------------------------------------------------- C02 axis
def test_c02_zero_axis_on_moving_joint_is_an_error_when_used(case_dir):
    robot = _disabled(case_dir('C02') / 'axis_zero.urdf', 'shoulder', 'zero', 'flange')
    assert robot.n == 0


def test_c02_zero_axis_on_fixed_joint_is_ignored(case_dir):
    robot = load_urdf(case_dir('C02') / 'axis_zero_fixed_only.urdf')
    assert robot.joint_names == ['shoulder']
    np.testing.assert_allclose(_pos(robot, [np.pi / 2], 'flange'), [0, 0.3, 0.1], atol=1e-12)


def test_c02_non_unit_and_tilted_axes_are_normalized(case_dir):
    robot = load_urdf(case_dir('C02') / 'axis_nonunit.urdf')
    np.testing.assert_allclose(_pos(robot, _q(robot, scaled_hinge=np.pi / 2), 'scaled_tip'),
                               [0, 0, -1], atol=1e-9)
    np.testing.assert_allclose(_pos(robot, _q(robot, crooked_hinge=1.0), 'crooked_tip'),
                               [0.218297, -0.194304, -0.067766], atol=1e-5)
    np.testing.assert_allclose(_pos(robot, _q(robot, lift=0.1), 'carriage'), [0, 0, 0.1],
                               atol=1e-12)
    # prismatic column is the unit axis, not (0, 0, 2)
    J = robot.jacobian(_q(robot, lift=0.1), 'carriage')
    np.testing.assert_allclose(J[:, robot.joint_index('lift')], [0, 0, 1, 0, 0, 0], atol=1e-15)
    q = np.array([0.3, -0.7, 0.2])
    for tip in ('scaled_tip', 'crooked_tip', 'carriage'):
        np.testing.assert_allclose(robot.jacobian(q, tip), numeric_jacobian(robot, q, tip),
                                   atol=1e-6)


AXIS_JOINT = """<robot name="r"><link name="a"/><link name="b"/>
  <joint name="hinge" type="{jtype}"><parent link="a"/><child link="b"/>
    <axis xyz="{axis}"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""


@pytest.mark.parametrize('jtype', ['revolute', 'continuous', 'prismatic'])
@pytest.mark.parametrize('axis,why', [
    ('0 0 0', 'zero'), ('1e-12 0 0', 'zero'), ('-0.0 0 0.0', 'zero'),
    ('nan 0 1', 'NaN'), ('0 inf 0', 'NaN or infinity'), ('0 0 -inf', 'NaN or infinity'),
    ('1 0', 'needs 3'), ('1 0 0 0', 'needs 3'), ('', 'needs 3'), ('x y z', 'not a number'),
])
def test_c02_every_degenerate_axis_names_the_joint(jtype, axis, why):
    robot = _disabled(AXIS_JOINT.format(jtype=jtype, axis=axis), 'hinge', why, 'b')
    np.testing.assert_array_equal(robot.forward_kinematics_all([])['b'], np.eye(4))


def test_c02_missing_axis_defaults_to_x():
    text = AXIS_JOINT.format(jtype='revolute', axis='1 0 0').replace('<axis xyz="1 0 0"/>', '')
    robot = load_urdf(text)
    np.testing.assert_allclose(robot.forward_kinematics([0.5], 'b')[:3, :3],
                               Rotation.from_rotvec([0.5, 0, 0]).as_matrix(), atol=1e-15)


# ------------------------------------------------------------------------------- C03 limits
@pytest.mark.parametrize('file,joint,jtype', [('revolute_no_limit.urdf', 'elbow', 'revolute'),
                                              ('prismatic_no_limit.urdf', 'slide', 'prismatic')])
def test_c03_moving_joint_without_limit_is_an_error_when_used(case_dir, file, joint, jtype):
    _disabled(case_dir('C03') / file, joint, f'{jtype}.*<limit>', 'tip')


def test_c03_lower_greater_than_upper_names_both_numbers(case_dir):
    _disabled(case_dir('C03') / 'lower_gt_upper.urdf', 'elbow', 'lower 1 > upper -1', 'tip')


def test_c03_limit_without_bounds_loads_with_empty_range_warning(case_dir):
    with pytest.warns(URDFWarning, match="'elbow'.*empty range"):
        robot = load_urdf(case_dir('C03') / 'limit_without_bounds.urdf')
    assert robot.joint_names == ['elbow']
    assert robot.lower[0] == 0.0 and robot.upper[0] == 0.0
    np.testing.assert_allclose(robot.velocity_limits, [1.0])
    np.testing.assert_allclose(robot.effort_limits, [10.0])


LIMIT = """<robot name="r"><link name="a"/><link name="b"/>
  <joint name="elbow" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit {attrs}/></joint></robot>"""


@pytest.mark.parametrize('attrs,why', [
    ('lower="nan" upper="1" effort="1" velocity="1"', 'limit lower.*NaN'),
    ('lower="-1" upper="one" effort="1" velocity="1"', 'not a number'),
    ('lower="-1" upper="1" effort="1" velocity="nan"', 'limit velocity.*NaN'),
    ('lower="0.5" upper="0.4999" effort="1" velocity="1"', 'lower 0.5 > upper 0.4999'),
    ('lower="inf" upper="inf" effort="1" velocity="1"', 'lower inf, upper inf leaves no range'),
    ('lower="-1" upper="-1e300" effort="1" velocity="1"', 'upper -1e\\+300 leaves no range'),
])
def test_c03_every_bad_limit_names_the_joint(attrs, why):
    _disabled(LIMIT.format(attrs=attrs), 'elbow', why, 'b')


def test_c03_equal_bounds_warn_and_soft_limits_are_read():
    with pytest.warns(URDFWarning, match='lower = upper = 0.3'):
        load_urdf(LIMIT.format(attrs='lower="0.3" upper="0.3" effort="1" velocity="1"'))
    text = LIMIT.format(attrs='lower="-2" upper="2" effort="3" velocity="4"').replace(
        '</joint>', '<safety_controller soft_lower_limit="-1.5" soft_upper_limit="1.75" '
                    'k_position="10" k_velocity="1"/></joint>')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        robot = load_urdf(text)
    assert (robot.lower[0], robot.upper[0]) == (-2, 2)
    assert (robot.soft_lower[0], robot.soft_upper[0]) == (-1.5, 1.75)
    assert (robot.effort_limits[0], robot.velocity_limits[0]) == (3, 4)


# -------------------------------------------------------------------------- C04 continuous
@pytest.mark.parametrize('file', ['turntable_no_limit.urdf', 'turntable_effort_only.urdf'])
def test_c04_continuous_joint_is_unbounded_and_moves(case_dir, file):
    robot = load_urdf(case_dir('C04') / file)
    assert robot.joint_names == ['turn'] and robot.joint_types == ['continuous']
    assert robot.continuous.tolist() == [True]
    assert robot.lower[0] == -np.inf and robot.upper[0] == np.inf
    assert robot.soft_lower[0] == -np.inf and robot.soft_upper[0] == np.inf
    for turn in (2.5, 2.5 - 2 * np.pi, 2.5 + 4 * np.pi):
        T = robot.forward_kinematics([turn], 'tip')
        np.testing.assert_allclose(T[:3, 3], [-0.400572, 0.299236, 0], atol=1e-6)
        quat = Rotation.from_matrix(T[:3, :3]).as_quat()
        quat *= np.sign(quat[3])
        np.testing.assert_allclose(quat, [0, 0, 0.948985, 0.315322], atol=1e-6)
        J = robot.jacobian([turn], 'tip')
        np.testing.assert_allclose(J[:, 0], [-0.299236, -0.400572, 0, 0, 0, 1], atol=1e-6)


# ----------------------------------------------------------------------------- C06 mimic
def test_c06_mimic_is_folded_into_master_column(case_dir):
    robot = load_urdf(case_dir('C06') / 'mimic_arm.urdf')
    assert robot.joint_names == ['j1'] and robot.n == 1
    assert robot.mimic_values([0.6]) == pytest.approx({'j2': 0.4}, abs=1e-15)
    np.testing.assert_allclose(_pos(robot, [0.6], 'tip'), [0.682819, 0.703057, 0], atol=1e-6)
    with pytest.raises(JointError, match="mimics 'j1'"):
        robot.joint_index('j2')
    for q1 in (0.6, -1.1, 2.0):
        # hand-computed: tip = 0.5 (cos q, sin q) + 0.5 (cos φ, sin φ), φ = q + 0.5 q + 0.1
        phi = 1.5 * q1 + 0.1
        expected = [-0.5 * np.sin(q1) - 0.75 * np.sin(phi),
                    0.5 * np.cos(q1) + 0.75 * np.cos(phi), 0, 0, 0, 1.5]
        J = robot.jacobian([q1], 'tip')
        np.testing.assert_allclose(J[:, 0], expected, atol=1e-14)
        np.testing.assert_allclose(J, numeric_jacobian(robot, np.array([q1]), 'tip'), atol=1e-6)
    # reversed: tip seen from link2, the master moves both joints between them
    np.testing.assert_allclose(robot.jacobian([0.6], 'base_link', 'tip'),
                               numeric_jacobian(robot, np.array([0.6]), 'base_link', 'tip'),
                               atol=1e-6)


def test_c06_mimic_of_unknown_joint_names_both(case_dir):
    robot = _disabled(case_dir('C06') / 'mimic_missing.urdf', 'j2',
                      "<mimic> refers to unknown joint 'j_does_not_exist'", 'tip')
    assert robot.joint_names == ['j1']
    np.testing.assert_allclose(_pos(robot, [np.pi / 2], 'link1'), [0, 0, 0], atol=1e-15)
    np.testing.assert_allclose(robot.forward_kinematics_all([np.pi / 2])['tip'][:3, 3],
                               _pos(load_urdf(case_dir('C06') / 'mimic_arm.urdf'),
                                    [np.pi / 2], 'link2') + [0, 0.5, 0], atol=1e-15)


MIMIC_CHAIN = """<robot name="m"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="{t2}"><parent link="b"/><child link="c"/><origin xyz="1 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>{m2}</joint>
  <joint name="j3" type="revolute"><parent link="c"/><child link="d"/><origin xyz="1 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>{m3}</joint>
</robot>"""


def test_c06_mimic_of_a_mimic_composes():
    robot = load_urdf(MIMIC_CHAIN.format(
        t2='revolute', m2='<mimic joint="j1" multiplier="2" offset="0.1"/>',
        m3='<mimic joint="j2" multiplier="-0.5" offset="0.3"/>'))
    assert robot.joint_names == ['j1']
    values = robot.mimic_values([0.4])
    assert values['j2'] == pytest.approx(0.9) and values['j3'] == pytest.approx(-0.15)
    np.testing.assert_allclose(robot.jacobian([0.4], 'd')[5], [1 + 2 - 1], atol=1e-14)
    np.testing.assert_allclose(robot.jacobian([0.4], 'd'),
                               numeric_jacobian(robot, np.array([0.4]), 'd'), atol=1e-6)


@pytest.mark.parametrize('t2,m2,m3,joint,match', [
    ('revolute', '<mimic joint="j3"/>', '<mimic joint="j2"/>', 'j2', 'cycle: j2 -> j3 -> j2'),
    ('fixed', '', '<mimic joint="j2"/>', 'j3', "'j2' is fixed, not moving"),
    ('revolute', '<mimic joint="j1" multiplier="nan"/>', '', 'j2', 'multiplier.*NaN'),
    ('revolute', '<mimic joint="j1" offset="inf"/>', '', 'j2', 'offset.*infinity'),
    ('revolute', '<mimic/>', '', 'j2', 'no joint attribute'),
    ('weird', '', '<mimic joint="j2"/>', 'j3', "master 'j2' is defective: unknown joint type"),
    ('revolute', '<mimic joint="jx"/>', '<mimic joint="j2"/>', 'j3',
     "master 'j2' is defective: <mimic> refers to unknown joint 'jx'"),
])
def test_c06_bad_mimics_are_errors_when_used(t2, m2, m3, joint, match):
    robot = _disabled(MIMIC_CHAIN.format(t2=t2, m2=m2, m3=m3), joint, match, 'd')
    assert robot.joint_names[0] == 'j1' and joint not in robot.joint_names
    np.testing.assert_allclose(_pos(robot, np.full(robot.n, np.pi / 2), 'b'), [0, 0, 0],
                               atol=1e-15)


def test_c06_mimic_on_a_fixed_joint_is_ignored_with_one_line():
    text = MIMIC_CHAIN.format(t2='fixed', m2='<mimic joint="j1" multiplier="2"/>', m3='')
    with pytest.warns(URDFWarning, match=r"<mimic> ignored on joints that do not move.*'j2'"):
        robot = load_urdf(text)
    assert robot.joint_names == ['j1', 'j3'] and not robot.joint_defects
    assert robot.joint('j2').mimic is None and not robot.joint('j2').moving
    np.testing.assert_allclose(_pos(robot, [np.pi / 2, 0], 'd'), [0, 2, 0], atol=1e-15)


# ------------------------------------------------------------------ C07 floating / planar
def test_c07_floating_joint_is_kept_as_floating_and_chains_through_it_rejected(case_dir):
    with pytest.warns(URDFWarning, match="'free_base' is floating"):
        robot = load_urdf(case_dir('C07') / 'floating_base.urdf')
    assert robot.joint('free_base').type == 'floating'
    assert robot.joint_names == ['yaw'] and robot.root_link == 'world'
    np.testing.assert_allclose(_pos(robot, [0.0], 'tool', 'world'), [0.4, 0, 1], atol=1e-15)
    np.testing.assert_allclose(robot.forward_kinematics_all([0.0])['tool'][:3, 3], [0.4, 0, 1])
    J = robot.jacobian([np.pi / 2], 'tool', 'base_link')
    np.testing.assert_allclose(J[:, 0], [-0.4, 0, 0, 0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(_pos(robot, [np.pi / 2], 'tool', 'base_link'), [0, 0.4, 0],
                               atol=1e-15)
    with pytest.raises(JointError, match='floating/planar') as info:
        robot.jacobian([0.0], 'tool', 'world')
    assert info.value.joint == 'free_base'
    with pytest.raises(JointError):
        robot.pose_and_jacobian([0.0], 'world', 'tool')


def test_c07_planar_joint_is_named_and_never_moves(case_dir):
    with pytest.warns(URDFWarning, match="'sled_plane' is planar"):
        robot = load_urdf(case_dir('C07') / 'planar_base.urdf')
    assert robot.n == 0 and robot.joint('sled_plane').type == 'planar'
    np.testing.assert_allclose(robot.forward_kinematics([], 'sled'), np.eye(4))
    with pytest.raises(JointError) as info:
        robot.jacobian([], 'sled')
    assert info.value.joint == 'sled_plane'


# ---------------------------------------------------------------------- C09 roots / links
def test_c09_two_roots_are_both_listed(case_dir):
    with pytest.raises(URDFError, match='base_link, gripper_adapter'):
        load_urdf(case_dir('C09') / 'two_roots.urdf')


def test_c09_missing_parent_link_names_joint_and_link(case_dir):
    with pytest.raises(JointError, match="parent link 'wrist_pitch_link' is not defined") as info:
        load_urdf(case_dir('C09') / 'missing_parent_link.urdf')
    assert info.value.joint == 'hand_base_joint'


def test_c09_connecting_joint_gives_one_root_whatever_the_order(case_dir):
    text = (case_dir('C09') / 'two_roots.urdf').read_text()
    joint = ('<joint name="adapter" type="fixed"><parent link="link1"/>'
             '<child link="gripper_adapter"/><origin xyz="0.1 0 0"/></joint>')
    for patched in (text.replace('</robot>', joint + '</robot>'),
                    text.replace('<link name="base_link"/>', joint + '<link name="base_link"/>')):
        robot = load_urdf(patched)
        assert robot.root_link == 'base_link' and robot.base_link == 'base_link'
        np.testing.assert_allclose(_pos(robot, [np.pi / 2], 'finger'), [0, 0.1, 0.25],
                                   atol=1e-15)


# ------------------------------------------------------------------------ C10 ROS leftovers
def test_c10_unexpanded_xacro_is_named_and_quoted(case_dir):
    with pytest.raises(JointError) as info:
        load_urdf(case_dir('C10') / 'unexpanded_xacro.urdf')
    message = str(info.value)
    assert info.value.joint == 'column_joint'
    for part in ('${column_height/2}', 'origin xyz', 'xacro'):
        assert part in message


def test_c10_xacro_leftover_in_a_visual_is_only_noted():
    text = ('<robot name="x"><link name="a"><visual><geometry><mesh filename="$(find pkg)/m.stl"'
            '/></geometry></visual></link></robot>')
    with pytest.warns(URDFWarning, match=r'kinematics does not read, ignored: .*\$\(find pkg\)'):
        robot = load_urdf(text)
    assert robot.link_names == ['a']


@pytest.mark.parametrize('snippet,quoted', [
    ('<link name="a"/><xacro:macro name="arm" params="side"/>', 'xacro:macro'),
    ('<link name="a"><inertial><mass value="${m}"/></inertial></link>', '${m}'),
])
def test_c10_every_xacro_leftover_is_rejected(snippet, quoted):
    text = (f'<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">{snippet}</robot>')
    with pytest.raises(PDLSIKError, match='xacro') as info:
        load_urdf(text)
    assert quoted in str(info.value)


def test_c10_package_uris_do_not_block_kinematics(case_dir):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        robot = load_urdf(case_dir('C10') / 'package_meshes.urdf')
    np.testing.assert_allclose(_pos(robot, [0.5], 'tip'), [0.263275, 0.143828, 0.2], atol=1e-6)


# ------------------------------------------------------------------- C13 branches / base
def test_c13_any_two_links_give_a_relative_jacobian(case_dir):
    robot = load_urdf(case_dir('C13') / 'twin_arms.urdf')
    il, ir = robot.joint_index('l_shoulder'), robot.joint_index('r_shoulder')
    q = _q(robot, r_shoulder=-np.pi / 2)
    np.testing.assert_allclose(_pos(robot, q, 'r_hand', 'torso'), [0, -0.5, 0], atol=1e-15)
    J = robot.jacobian(q, 'r_hand', 'torso')
    np.testing.assert_allclose(J[:, ir], [0.3, 0, 0, 0, 0, 1], atol=1e-15)
    assert not J[:, il].any()
    rng = np.random.default_rng(5)
    for base, tip in [('l_upper', 'r_hand'), ('r_hand', 'torso'), ('l_hand', 'r_hand'),
                      ('r_hand', 'l_hand'), ('torso', 'torso')]:
        q = rng.uniform(-2, 2, 2)
        T = robot.forward_kinematics(q, tip, base)
        expected = (np.linalg.inv(robot.forward_kinematics(q, base, 'base_link'))
                    @ robot.forward_kinematics(q, tip, 'base_link'))
        np.testing.assert_allclose(T, expected, atol=1e-14)
        np.testing.assert_allclose(robot.jacobian(q, tip, base),
                                   numeric_jacobian(robot, q, tip, base), atol=1e-6)
    # l_upper -> r_hand: both shoulders move the hand relative to the base, with opposite signs
    J = robot.jacobian([0.0, 0.0], 'r_hand', 'l_upper')
    np.testing.assert_allclose(J[3:, il], [0, 0, -1], atol=1e-15)
    np.testing.assert_allclose(J[3:, ir], [0, 0, 1], atol=1e-15)
    assert not robot.jacobian([0.3, 0.2], 'torso', 'torso').any()
    with pytest.raises(LinkError, match='fubar_link') as info:
        robot.jacobian([0.0, 0.0], 'fubar_link', 'torso')
    assert info.value.link == 'fubar_link'


# ----------------------------------------------------------------------- C14 root detection
def test_c14_root_found_from_the_joint_graph(case_dir):
    path = case_dir('C14') / 'leaf_first.urdf'
    robot = load_urdf(path)
    assert robot.root_link == 'pedestal' and robot.base_link == 'pedestal'
    assert robot.joint_names == ['turn', 'pitch']
    q = _q(robot, turn=0.5, pitch=-0.3)
    np.testing.assert_allclose(_pos(robot, q, 'gripper'), [0.209597, 0.114503, 0.473880],
                               atol=1e-6)
    assert np.count_nonzero(np.abs(robot.jacobian(q, 'gripper')).sum(axis=0)) == 2
    with pytest.raises(LinkError, match='base_link') as info:
        load_urdf(path, base_link='base_link')
    assert info.value.link == 'base_link'
    with pytest.raises(InputError, match=r'q: expected 2 joint values, shape \(2,\)'):
        robot.forward_kinematics([0.5], 'gripper')
