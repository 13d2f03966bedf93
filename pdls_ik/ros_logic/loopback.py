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
The joint-state loop-back (``echo_joint_states``) without ROS: when the node stands in.

With no hardware (and no simulator, no ros2_control), nothing publishes ``joint_states``:
robot_state_publisher then sends only the fixed transforms and rviz draws no robot. The loop-back
publishes the state the node commands instead (the middle of the joint limits before the first
goal), so that robot_state_publisher, rviz and the marker see the robot where the solver puts it.

It publishes only while no other node publishes ``joint_states``: it waits
:data:`DISCOVERY` seconds after start for a source started beside it to be discovered, and the
first other publisher seen (a hardware driver, a joint_state_broadcaster, a
joint_state_publisher) ends it for good. From then on the measured state is the truth; a
loop-back resumed when that source goes away would hide its loss (the node's stale-state stop
would never come).
"""
from __future__ import annotations

from typing import Tuple

from pdls_ik.diagnostics import OK

#: wait after start for another joint_states source to be discovered (DDS discovery of a node
#: started in the same launch takes well under a second) [s]
DISCOVERY = 1.0

#: states of the loop-back
OFF, WAITING, ACTIVE, YIELDED = 'off', 'waiting', 'active', 'yielded'


class LoopBack:
    """
    Whether the node publishes its commanded state on ``joint_states`` now.

    :param enabled: the ``echo_joint_states`` parameter.
    :param started: time of the node's start [s] (monotonic, caller-supplied).
    :param discovery: wait for other sources after start [s], >= 0.
    :raises ValueError: negative or non-finite ``discovery``.
    """

    def __init__(self, enabled: bool, started: float, discovery: float = DISCOVERY):
        if not 0.0 <= discovery < float('inf'):
            raise ValueError(f'discovery: must be a finite time >= 0 s, got {discovery}')
        self.state = WAITING if enabled else OFF
        self._until = started + discovery
        self._others = 0

    @property
    def watching(self) -> bool:
        """Tell whether the joint_states publishers still need counting (waiting or active)."""
        return self.state in (WAITING, ACTIVE)

    @property
    def active(self) -> bool:
        """Tell whether the loop-back publishes now."""
        return self.state == ACTIVE

    def update(self, now: float, other_publishers: int) -> bool:
        """
        Account for the count of the other nodes' publishers on joint_states at ``now`` [s].

        :param other_publishers: publishers of the joint_states topic but the node's own.
        :return: True when the state changed (the node then publishes its status).
        """
        if not self.watching:
            return False
        before = self.state
        if other_publishers > 0:
            self.state, self._others = YIELDED, other_publishers
        elif now >= self._until:
            self.state = ACTIVE
        return self.state != before

    def status(self) -> Tuple[int, str]:
        """(level, message) of the ``echo_joint_states`` diagnostic status."""
        return OK, {
            OFF: 'off (echo_joint_states false): joint_states come from the robot',
            WAITING: 'waiting for another joint_states source before publishing the '
                     'commanded state',
            ACTIVE: 'publishing the commanded state on joint_states: no other node publishes '
                    'there',
            YIELDED: f'off for good: another node publishes joint_states ({self._others} '
                     f'publisher(s)), the robot state comes from it',
        }[self.state]
