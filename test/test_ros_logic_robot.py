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

"""Robot building for the node: description + config -> linkage with checked links."""
import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, LinkError, URDFError
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.robot import build_robot
import pytest
from ros_support import panda_robot


def test_panda_robot_links_and_default_q():
    robot = panda_robot()
    assert robot.base_link == 'panda_link0' and robot.tip_link == 'panda_link8'
    assert robot.joint_names == [f'panda_joint{i}' for i in range(1, 8)] + \
        ['panda_finger_joint1']
    lower, upper = robot.linkage.lower, robot.linkage.upper
    np.testing.assert_allclose(robot.default_q(), 0.5 * (lower + upper), atol=0)
    assert robot.solver().tip_link == 'panda_link8'
    assert robot.solver('panda_hand').tip_link == 'panda_hand'


@pytest.mark.parametrize('changes, error, text', [
    ({'tip_link': ''}, ConfigError, 'tip_link'),
    ({'tip_link': 'gripper_of_doom'}, LinkError, 'gripper_of_doom'),
    ({'base_link': 'world2'}, LinkError, 'world2'),
])
def test_bad_links_rejected(changes, error, text):
    config = IKConfig(tip_link='panda_link8').replace(**changes)
    with pytest.raises(error, match=text):
        build_robot(bundled_urdf('panda').read_text(), config)


@pytest.mark.parametrize('text', ['', "<robot name='r'><link name='a'/>", 'not xml at all'])
def test_bad_description_rejected(text):
    with pytest.raises(URDFError):
        build_robot(text, IKConfig(tip_link='a'))


def test_continuous_joint_default_is_zero():
    urdf = """<robot name="wheel"><link name="base"/><link name="w"/>
      <joint name="spin" type="continuous"><parent link="base"/><child link="w"/>
      <axis xyz="0 0 1"/></joint></robot>"""
    robot = build_robot(urdf, IKConfig(tip_link='w', position_only=True))
    np.testing.assert_array_equal(robot.default_q(), [0.0])
