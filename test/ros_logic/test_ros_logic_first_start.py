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
Issue 26 item 4: on a first start, the services and the tracking loop answer while kernels compile.

A first start refused every ~/compute_ik and ~/compute_fk request for minutes ("solver not
ready, retry later: loading solver kernels"). The robot now serves from the NumPy backend until
the compiled kernels are loaded, then switches; the ``backend`` status says which answers.
The compile is held back on an Event here (as a cold cache on a loaded machine would).
"""
import threading

import numpy as np
from pdls_ik import _accel
from pdls_ik._accel import available, numba_problem, numba_version
from pdls_ik.diagnostics import OK, WARN
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.msgs.moveit import ErrorCode, FKServiceRequest, IKServiceRequest, IKTarget
from pdls_ik.msgs.moveit import RobotStateSeed
from pdls_ik.ros_logic.fk_service import compute_fk
from pdls_ik.ros_logic.ik_service import IKService
from pdls_ik.ros_logic.loader import (backend_status, COMPILE_BOUND, kernel_stages, KernelError,
                                      Loader)
from pdls_ik.ros_logic.tracker import Tracker
import pytest
import ros_support
from scipy.spatial.transform import Rotation

Q_GOAL = np.array([0.4, -0.3, 0.3, -2.2, 0.2, 1.9, 0.5, 0.0])


class Node:
    """What the node does with each stage the loader delivers (``PDLSIKNode._robot_loaded``)."""

    def __init__(self):
        self.robot = self.tracker = self.service = None
        self.stages, self.failed = [], []

    def deliver(self, robot, origin):
        if self.tracker is None:
            self.tracker, self.service = Tracker(robot), IKService(robot)
        else:
            self.tracker.set_robot(robot)
            self.service.set_robot(robot)
        self.robot = robot
        self.stages.append(robot.interim)

    def fail(self, exc, origin):
        self.failed.append(exc)


def _ik_request(pose):
    position, quaternion = pose[:3, 3], Rotation.from_matrix(pose[:3, :3]).as_quat()
    return IKServiceRequest('', (IKTarget('', ParsedPose('panda_link0', position, quaternion)),),
                            timeout=5.0)


def _held_back_start(compile_kernels):
    """Start a node's loader on the Panda, its kernels compiling until released (a first start)."""
    robot = ros_support.panda_robot()
    node = Node()
    loader = Loader(node.deliver, node.fail)
    loader.start(lambda: kernel_stages(robot, compile_kernels), 'parameter')
    return robot, node, loader


needs_numba = pytest.mark.skipif(not available(), reason=f'{numba_problem()}: no kernel to '
                                 'wait for (the robot is served at once on NumPy)')


@needs_numba
def test_services_answer_from_numpy_while_the_kernels_compile_then_switch():
    release, compiling = threading.Event(), threading.Event()

    def compile_kernels(robot):
        compiling.set()
        assert release.wait(300)
        robot.solver()

    robot, node, loader = _held_back_start(compile_kernels)
    assert compiling.wait(120)
    assert node.stages == [True] and loader.loading and not loader.waiting
    assert node.tracker.backend[0] == 'numpy'
    goal = ros_support.reachable_goal(robot, Q_GOAL)
    reply = node.service.compute(_ik_request(goal), node.tracker.current_q)
    assert reply.code == ErrorCode.SUCCESS and '(converged, chain solver, numpy)' in \
        reply.message
    q = np.asarray(reply.positions)
    assert np.linalg.norm(robot.linkage.forward_kinematics(q, 'panda_link8')[:3, 3] -
                          goal[:3, 3]) < 1e-4
    fk = compute_fk(node.service.groups, FKServiceRequest('', ['panda_link8'], RobotStateSeed(
        list(robot.joint_names), Q_GOAL)), node.tracker.current_q)
    assert fk.code == ErrorCode.SUCCESS and np.allclose(fk.poses[0], goal, atol=1e-12)
    level, message = backend_status(node.robot, *node.tracker.backend, 42.0)
    assert level == WARN and message.startswith(
        'numpy: answering from the NumPy backend while numba ') and '(42 s so far;' in message
    level, message = backend_status(node.robot, *node.tracker.backend, COMPILE_BOUND + 1.0)
    assert level == WARN and f'{COMPILE_BOUND + 1.0:.0f} s so far, past the ' \
        f'{COMPILE_BOUND:.0f} s expected: numba {numba_version()} may not finish;' in message

    release.set()
    assert loader.join(1800) and not node.failed
    assert node.stages == [True, False] and not node.robot.interim
    assert node.tracker.backend == ('numba', '')
    reply = node.service.compute(_ik_request(goal), node.tracker.current_q)
    assert reply.code == ErrorCode.SUCCESS and '(converged, chain solver, numba)' in \
        reply.message
    assert backend_status(node.robot, *node.tracker.backend) == (
        OK, f'numba {numba_version()}: compiled kernels')


@needs_numba
def test_a_failed_compile_leaves_the_numpy_backend_answering():
    def compile_kernels(robot):
        raise RuntimeError('LLVM ERROR: out of memory\nmore')

    robot, node, loader = _held_back_start(compile_kernels)
    assert loader.join(120)
    assert node.stages == [True] and len(node.failed) == 1
    assert isinstance(node.failed[0], KernelError)
    assert str(node.failed[0]).endswith(' failed to compile the kernels (RuntimeError: LLVM '
                                        'ERROR: out of memory): the NumPy backend answers')
    goal = ros_support.reachable_goal(robot, Q_GOAL)
    reply = node.service.compute(_ik_request(goal), node.tracker.current_q)
    assert reply.code == ErrorCode.SUCCESS and 'chain solver, numpy)' in reply.message


def test_a_robot_on_numpy_anyway_is_served_in_one_stage(monkeypatch):
    """The backend parameter "numpy", or numba below the floor: no interim, no kernel."""
    robot = ros_support.panda_robot(backend='numpy')
    assert [r.interim for r in kernel_stages(robot)] == [False]
    monkeypatch.setattr(_accel, 'numba_version', lambda: '0.55.1')
    monkeypatch.setattr(_accel, '_warned', threading.Event())
    robot = ros_support.panda_robot()
    (stage,) = kernel_stages(robot, compile_kernels=lambda r: pytest.fail('compiled'))
    tracker = Tracker(stage)
    assert not stage.interim and tracker.backend[0] == 'numpy'
    assert backend_status(stage, *tracker.backend) == (WARN, f'numpy: {_accel.numba_problem()}')
    assert 'numba 0.55.1 is older than 0.59' in _accel.numba_problem()
