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

"""Centre of mass: position and Jacobian against Pinocchio and finite differences; CoM task."""
from __future__ import annotations

from conftest import random_q, REPO
from fd_support import central_differences
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.errors import ConfigError, LinkError, URDFError
from pdls_ik.ik.task_config import TaskConfig
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.model.com import center_of_mass, CenterOfMass, com_jacobian
from pdls_ik.tasks import CoMTask, FrameTask
import pytest

try:
    import pinocchio as pin
except ImportError:
    pin = None
# Not pytest.importorskip: under ROS 2, launch_testing's pytest plugin imports every test module
# while collecting, and a module-level skip there ends the collection of the whole session.
pytestmark = pytest.mark.skipif(pin is None, reason='pinocchio is not installed')

BUNDLED = [REPO / 'urdf' / 'bimanual.urdf', REPO / 'urdf' / 'humanoid.urdf',
           REPO / 'urdf' / 'panda.urdf']


def _pinocchio_com(path, robot, q):
    """
    Return Pinocchio's CoM (3,) and CoM Jacobian (3, n) mapped to our q order.

    Mimic columns are added into their master's. A free-flyer root at identity keeps the root
    link's inertia, which a fixed-base Pinocchio model attaches to the universe and drops.
    """
    model = pin.buildModelFromXML(path.read_text(), pin.JointModelFreeFlyer())
    data = model.createData()
    qp = pin.neutral(model)
    values = dict(zip(robot.joint_names, q))
    values.update(robot.mimic_values(q))
    for name, value in values.items():
        jid = model.getJointId(name)
        i = model.idx_qs[jid]
        if model.nqs[jid] == 2:
            qp[i:i + 2] = np.cos(value), np.sin(value)
        else:
            qp[i] = value
    c = pin.centerOfMass(model, data, qp)
    Jp = pin.jacobianCenterOfMass(model, data, qp)
    J = np.zeros((3, robot.n))
    for joint in robot.joints:
        if joint.moving:
            J[:, joint.index] += joint.multiplier * Jp[:, model.idx_vs[
                model.getJointId(joint.name)]]
    return c, J, pin.computeTotalMass(model)


def _check_against_pinocchio(path, count):
    robot = load_urdf(path)
    com = CenterOfMass(robot)
    rng = np.random.default_rng(7)
    for _ in range(count):
        q = random_q(robot, rng)
        c_ref, J_ref, mass = _pinocchio_com(path, robot, q)
        c, J = com.position_and_jacobian(q)
        assert com.total_mass == pytest.approx(mass, abs=1e-12)
        assert np.abs(c - c_ref).max() < 1e-12
        assert np.abs(J - J_ref).max() < 1e-12


@pytest.mark.parametrize('path', BUNDLED, ids=lambda p: p.stem)
def test_com_and_jacobian_match_pinocchio(path):
    _check_against_pinocchio(path, 20)


@pytest.mark.parametrize('name', ['panda.urdf', 'ur5.urdf'])
def test_real_robots_match_pinocchio(robots_dir, name):
    _check_against_pinocchio(robots_dir / name, 20)


@pytest.mark.parametrize('base', [None, 'torso', 'l_tool'])
def test_jacobian_matches_central_differences_in_any_base(base):
    robot = load_urdf(REPO / 'urdf' / 'bimanual.urdf')
    com = CenterOfMass(robot)
    rng = np.random.default_rng(1)
    q = random_q(robot, rng)
    J = com.jacobian(q, base)
    fd = central_differences(lambda x: com.position(x, base), q)
    assert np.abs(fd - J).max() < 1e-8
    # the CoM in another base is the root CoM seen from that base
    T = robot.forward_kinematics(q, base or robot.root_link, robot.root_link)
    assert np.allclose(T[:3, :3] @ com.position(q, base) + T[:3, 3], com.position(q),
                       atol=1e-14)
    assert np.allclose(center_of_mass(robot, q, base), com.position(q, base), atol=0)
    assert np.allclose(com_jacobian(robot, q, base), J, atol=0)


def test_com_task_residual_and_jacobian():
    robot = load_urdf(REPO / 'urdf' / 'panda.urdf')
    task = CoMTask(robot, target=(0.1, -0.05, 0.3), axes=(True, False, True), weight=2.0)
    q = random_q(robot, np.random.default_rng(2))
    e, J = task.compute(q)
    c, Jc = CenterOfMass(robot).position_and_jacobian(q)
    assert task.dim == 2
    assert np.allclose(e, 2.0 * (np.array([0.1, 0.3]) - c[[0, 2]]), atol=1e-15)
    assert np.allclose(J, 2.0 * Jc[[0, 2]], atol=1e-15)
    assert task.error == pytest.approx(np.linalg.norm(e) / 2.0)


def test_com_task_moves_the_com_above_a_point():
    robot = load_urdf(REPO / 'urdf' / 'panda.urdf')
    q0 = np.clip(np.zeros(robot.n), robot.lower, robot.upper)
    c0 = CenterOfMass(robot).position(q0)
    target = c0 + np.array([0.05, -0.04, 0.0])
    task = CoMTask(robot, target=target, axes=(True, True, False), tolerance=1e-9)
    res = TaskSolver(robot, [task]).solve(q0)
    assert res.success and res.status == 'converged'
    c = CenterOfMass(robot).position(res.q)
    assert np.abs(c[:2] - target[:2]).max() < 1e-9
    assert res.errors['com'] < 1e-9
    assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)


def test_com_task_keeps_priority_below_a_frame_task():
    robot = load_urdf(REPO / 'urdf' / 'panda.urdf')
    q0 = np.array([0.1, -0.3, 0.2, -2.0, 0.1, 1.8, 0.5, 0.0])[:robot.n]
    hand = FrameTask(robot, 'panda_link8', target=robot.forward_kinematics(q0, 'panda_link8'),
                     orientation_mask=(0, 0, 0), priority=0, position_tolerance=1e-10)
    c0 = CenterOfMass(robot).position(q0)
    com = CoMTask(robot, target=c0 + (0.03, 0.0, 0.0), priority=1, tolerance=1e-9)
    res = TaskSolver(robot, [hand, com]).solve(q0)
    assert res.success
    assert res.errors['frame:panda_link8'] < 1e-10                    # strict priority
    assert res.errors['com'] < 1e-9                                   # in its null space


def test_robot_without_inertials_is_a_clear_error():
    urdf = """<robot name="massless"><link name="a"/><link name="b"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
      <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""
    robot = load_urdf(urdf)
    with pytest.raises(URDFError, match='massless.*inertial'):
        CoMTask(robot, target=(0, 0, 0))
    with pytest.raises(ConfigError, match=r'tasks\[0\].*massless'):
        TaskConfig.from_dict({'tasks': [{'type': 'com', 'target': [0, 0, 0]}]}).build(robot)


def test_bad_com_task_inputs():
    robot = load_urdf(REPO / 'urdf' / 'panda.urdf')
    with pytest.raises(LinkError, match='nowhere'):
        CoMTask(robot, target=(0, 0, 0), base='nowhere')
    with pytest.raises(Exception, match='axes'):
        CoMTask(robot, target=(0, 0, 0), axes=(False, False, False))
    with pytest.raises(Exception, match='target'):
        CoMTask(robot, target=(0, np.nan, 0))
