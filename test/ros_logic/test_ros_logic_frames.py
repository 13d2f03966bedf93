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

"""Goal frames: base link, empty, any model link (through FK, checked with Pinocchio), unknown."""
import numpy as np
from pdls_ik.errors import LinkError
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.ros_logic.frames import goal_in_base
import pytest
from ros_support import panda_robot
from scipy.spatial.transform import Rotation

Q = np.array([0.3, -0.5, 0.2, -2.0, 0.1, 1.6, 0.7, 0.02])


def _goal(frame):
    quat = Rotation.from_rotvec([0.1, 0.2, -0.3]).as_quat()
    return ParsedPose(frame, np.array([0.05, -0.02, 0.1]), quat)


@pytest.mark.parametrize('frame', ['', 'panda_link0', '/panda_link0'])
def test_base_frame_goal_unchanged(frame):
    robot = panda_robot()
    goal = _goal(frame)
    np.testing.assert_array_equal(goal_in_base(robot.linkage, 'panda_link0', goal, Q),
                                  goal.matrix())


def test_link_frame_goal_composed_with_pinocchio_fk(pinocchio_bridge):
    robot = panda_robot()
    bridge = pinocchio_bridge(robot.description, robot.linkage)
    goal = _goal('panda_hand')
    got = goal_in_base(robot.linkage, 'panda_link0', goal, Q)
    base = bridge.pose(Q, 'panda_link0')
    expected = np.linalg.inv(base) @ bridge.pose(Q, 'panda_hand') @ goal.matrix()
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_unknown_frame_named():
    robot = panda_robot()
    with pytest.raises(LinkError) as info:
        goal_in_base(robot.linkage, 'panda_link0', _goal('world'), Q)
    assert str(info.value) == (
        "link 'world': unknown goal frame: not 'panda_link0' nor a link of robot 'panda' (no "
        'TF lookup in this node; closest names: panda_hand, panda_link8, panda_link7; the tips '
        'of its tree: panda_hand_tcp, panda_leftfinger, panda_rightfinger)')
