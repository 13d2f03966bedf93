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

"""The joint-state loop-back: publishes only while no other node publishes joint_states."""
from pdls_ik.diagnostics import OK
from pdls_ik.ros_logic.loopback import ACTIVE, DISCOVERY, LoopBack, OFF, WAITING, YIELDED
import pytest


def test_alone_it_publishes_after_the_discovery_wait():
    loop = LoopBack(True, started=10.0)
    assert DISCOVERY == 1.0
    assert not loop.update(10.5, 0) and loop.state == WAITING and not loop.active
    assert loop.update(11.0, 0) and loop.state == ACTIVE and loop.active
    assert not loop.update(60.0, 0) and loop.active  # alone for good: stays on
    assert loop.status() == (OK, 'publishing the commanded state on joint_states: no other '
                                 'node publishes there')


def test_another_source_ends_it_for_good():
    loop = LoopBack(True, started=0.0)
    assert loop.update(2.0, 0) and loop.active
    assert loop.update(2.01, 2)                    # a driver and a joint_state_publisher
    assert loop.state == YIELDED and not loop.active and not loop.watching
    assert not loop.update(5.0, 0) and not loop.active  # that source gone: not resumed
    assert loop.status() == (OK, 'off for good: another node publishes joint_states '
                                 '(2 publisher(s)), the robot state comes from it')


def test_a_source_found_while_waiting_means_it_never_publishes():
    loop = LoopBack(True, started=0.0)
    assert loop.update(0.2, 1) and loop.state == YIELDED
    assert not loop.update(3.0, 0) and not loop.active


def test_disabled_never_publishes_nor_watches():
    loop = LoopBack(False, started=0.0)
    assert loop.state == OFF and not loop.watching
    assert not loop.update(100.0, 0) and not loop.active
    assert loop.status() == (OK, 'off (echo_joint_states false): joint_states come from the '
                                 'robot')


def test_zero_discovery_publishes_at_once():
    loop = LoopBack(True, started=5.0, discovery=0.0)
    assert loop.update(5.0, 0) and loop.active


@pytest.mark.parametrize('discovery', [-0.1, float('inf'), float('nan')])
def test_bad_discovery_named(discovery):
    with pytest.raises(ValueError, match='discovery: must be a finite time'):
        LoopBack(True, started=0.0, discovery=discovery)
