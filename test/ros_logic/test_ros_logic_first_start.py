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
from pdls_ik._accel import available, numba_problem
from pdls_ik.diagnostics import OK, WARN
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.msgs.moveit import ErrorCode, FKServiceRequest, IKServiceRequest, IKTarget
from pdls_ik.msgs.moveit import RobotStateSeed
from pdls_ik.ros_logic.fk_service import compute_fk
from pdls_ik.ros_logic.ik_service import IKService
from pdls_ik.ros_logic.loader import backend_status, kernel_stages, KernelError, Loader
from pdls_ik.ros_logic.robot import Robot
from pdls_ik.ros_logic.tracker import Tracker
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


def _held_back_start(monkeypatch, compile_kernels):
    """Start a node's loader on the Panda, its kernels not yet compiled (a first start)."""
    monkeypatch.setattr(Robot, 'compiles', lambda self: not self.interim)
    robot = ros_support.panda_robot()
    node = Node()
    loader = Loader(node.deliver, node.fail)
    loader.start(lambda: kernel_stages(robot, compile_kernels), 'parameter')
    return robot, node, loader


def test_services_answer_from_numpy_while_the_kernels_compile_then_switch(monkeypatch):
    release, compiling = threading.Event(), threading.Event()

    def compile_kernels(robot):
        compiling.set()
        assert release.wait(300)
        robot.solver()

    robot, node, loader = _held_back_start(monkeypatch, compile_kernels)
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

    release.set()
    assert loader.join(1800) and not node.failed
    assert node.stages == [True, False] and not node.robot.interim
    backend = 'numba' if available() else 'numpy'
    assert node.tracker.backend[0] == backend
    reply = node.service.compute(_ik_request(goal), node.tracker.current_q)
    assert reply.code == ErrorCode.SUCCESS and f'chain solver, {backend})' in reply.message
    level, message = backend_status(node.robot, *node.tracker.backend)
    if available():
        assert level == OK and message.endswith(': compiled kernels')
    else:
        assert (level, message) == (WARN, f'numpy: {numba_problem()}')


def test_a_failed_compile_leaves_the_numpy_backend_answering(monkeypatch):
    def compile_kernels(robot):
        raise RuntimeError('LLVM ERROR: out of memory\nmore')

    robot, node, loader = _held_back_start(monkeypatch, compile_kernels)
    assert loader.join(120)
    assert node.stages == [True] and len(node.failed) == 1
    assert isinstance(node.failed[0], KernelError)
    assert str(node.failed[0]).endswith(' failed to compile the kernels (RuntimeError: LLVM '
                                        'ERROR: out of memory): the NumPy backend answers')
    goal = ros_support.reachable_goal(robot, Q_GOAL)
    reply = node.service.compute(_ik_request(goal), node.tracker.current_q)
    assert reply.code == ErrorCode.SUCCESS and 'chain solver, numpy)' in reply.message


def test_without_a_compile_the_robot_is_served_at_once():
    """Kernels in the cache (or the NumPy backend configured): one stage, no interim."""
    robot = ros_support.panda_robot(backend='numpy')
    assert not robot.compiles()
    assert [r.interim for r in kernel_stages(robot)] == [False]
