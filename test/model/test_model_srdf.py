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

"""SRDF reading: bundled and example-robot-data SRDFs, groups resolved as MoveIt does, errors."""
from moveit_support import example_robot_data
import numpy as np
from pdls_ik.model import load_urdf
from pdls_ik.model.srdf import load_srdf, parse_srdf, SRDFError, SRDFWarning
from pdls_ik.resources import bundled_srdf, bundled_urdf
import pytest


def test_bundled_panda():
    srdf = load_srdf(bundled_srdf('panda'))
    linkage = load_urdf(bundled_urdf('panda'))
    arm = srdf.resolve(linkage, 'panda_arm')
    assert arm.variable_names == tuple(f'panda_joint{i}' for i in range(1, 8))
    assert 'panda_joint8' in arm.joint_names             # the fixed joint of the chain
    assert (arm.base_link, arm.tip_link) == ('panda_link0', 'panda_link8')
    hand = srdf.resolve(linkage, 'hand')                  # link members: their parent joints
    assert hand.variable_names == ('panda_finger_joint1',)   # the mimic finger is no variable
    both = srdf.resolve(linkage, 'panda_arm_hand')        # subgroups
    assert both.variable_names == arm.variable_names + hand.variable_names
    assert frozenset(('panda_link7', 'panda_hand')) in srdf.disabled_collision_pairs()
    assert srdf.virtual_joints[0].parent_frame == 'world'
    ready = srdf.group_state('ready')
    assert ready.group == 'panda_arm' and ready.values['panda_joint4'] == (-2.356,)


def test_talos_groups_and_half_sitting():
    srdf = load_srdf(example_robot_data('talos_data/srdf/talos.srdf'))
    linkage = load_urdf(example_robot_data('talos_data/robots/talos_full_v2.urdf'))
    arms = srdf.resolve(linkage, 'all_arms')
    assert len(arms.variable_names) == 14 and arms.base_link == 'torso_2_link'
    assert arms.chain_tips == ('wrist_left_ft_tool_link', 'wrist_right_ft_tool_link')
    assert srdf.resolve(linkage, 'all').variables.size == 30
    q, skipped = srdf.state_positions(linkage, srdf.group_state('half_sitting'),
                                      np.zeros(linkage.n))
    assert skipped == ['root_joint']
    assert q[linkage.joint_index('leg_left_4_joint')] == 0.859395
    assert srdf.group_state('half_sitting').values['root_joint'] == (0., 0., 1.01927, 0., 0.,
                                                                     0., 1.)
    assert len(srdf.disabled_collisions) > 400
    assert 'gripper_left_motor_single_joint' in srdf.passive_joints


ROBOT = '<robot name="bimanual">{}</robot>'


@pytest.mark.parametrize('body, text', [
    ('<group name="a">', 'not well-formed XML: line 1'),
    ('<group name="a">\n  <chain base_link="torso"/>\n</group>',
     "line 2: <chain> of group 'a' needs a 'tip_link' attribute"),
    ('<group name="a">\n  <joint name="torso_yaw"/>\n  <frame name="x"/></group>',
     "line 3: group 'a': unknown member <frame>"),
    ('<group name="a"><joint name="torso_yaw"/></group>\n<group name="a"/>',
     "line 2: group 'a' declared twice"),
    ('<group name="a"><joint name="torso_yaw"/></group>\n<group_state name="s" group="a">\n'
     '<joint name="torso_yaw" value="x"/></group_state>', "line 3: group_state 's' joint"),
])
def test_parse_errors_name_element_and_line(body, text):
    with pytest.raises(SRDFError, match=text.replace('(', r'\(').replace(')', r'\)')):
        parse_srdf(ROBOT.format(body))


@pytest.mark.parametrize('body, text, kept', [
    ('<group name="a">\n<group name="b"/></group><group name="c"><joint name="torso_yaw"/>'
     '</group>', "line 1: group 'a': subgroup 'b' is not declared; the group is left out", 'c'),
    ('<group name="c"><joint name="torso_yaw"/></group><group_state name="s" group="nope"/>',
     "group_state 's': group 'nope' is not declared; the state is left out", 'c')])
def test_an_undeclared_reference_leaves_out_that_element_alone(body, text, kept):
    """As srdfdom does: the element is skipped with a message, the rest of the file is used."""
    with pytest.warns(SRDFWarning, match=text):
        srdf = parse_srdf(ROBOT.format(body))
    assert list(srdf.groups) == [kept] and not srdf.group_states


@pytest.mark.parametrize('body, text', [
    ('<group name="a"><joint name="nope"/></group>', "joint 'nope' is not a joint of robot"),
    ('<group name="a"><chain base_link="l_tool" tip_link="torso"/></group>',
     "base_link 'l_tool' is not an ancestor of tip_link 'torso'"),
    ('<group name="a"><link name="nope"/></group>', "link 'nope' is not a link of robot"),
    ('<group name="a"><group name="b"/></group><group name="b"><group name="a"/></group>',
     'subgroup cycle a -> b -> a'),
    ('<group name="a"><joint name="l_tool_joint"/></group>', 'no movable joint'),
])
def test_groups_that_do_not_fit_the_robot(body, text):
    srdf = parse_srdf(ROBOT.format(body))
    with pytest.raises(SRDFError, match=text):
        srdf.resolve(load_urdf(bundled_urdf('bimanual')), 'a')


def test_not_xml_nor_file():
    with pytest.raises(SRDFError, match='neither XML text nor a readable file'):
        load_srdf('no/such/file.srdf')
