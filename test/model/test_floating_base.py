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
Floating root.

Lie-group integration, Jacobians and CoM against Pinocchio's free flyer; whole-body solve with
strict priorities.
"""
from __future__ import annotations

from conftest import random_q, REPO
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.errors import InputError, LinkError
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.lie.se3 import se3_exp, se3_log
from pdls_ik.model.floating import FloatingBase
from pdls_ik.tasks import CoMTask, FrameTask, PostureTask
import pytest
from scipy.spatial.transform import Rotation

try:
    import pinocchio as pin
except ImportError:
    pin = None
# Not pytest.importorskip: under ROS 2, launch_testing's pytest plugin imports every test module
# while collecting, and a module-level skip there ends the collection of the whole session.
pytestmark = pytest.mark.skipif(pin is None, reason='pinocchio is not installed')
HUMANOID = REPO / 'urdf' / 'humanoid.urdf'


@pytest.fixture(scope='module')
def setup():
    robot = FloatingBase(load_urdf(HUMANOID))
    model = pin.buildModelFromXML(HUMANOID.read_text(), pin.JointModelFreeFlyer())
    order = [model.idx_qs[model.getJointId(n)] for n in robot.linkage.joint_names]
    vorder = [model.idx_vs[model.getJointId(n)] for n in robot.linkage.joint_names]
    return robot, model, np.array(order), np.array(vorder)


def _random_config(robot, rng):
    q = np.empty(robot.nq)
    q[:3] = rng.uniform(-1, 1, 3)
    q[3:7] = Rotation.random(random_state=rng.integers(1 << 31)).as_quat()
    q[7:] = random_q(robot.linkage, rng)
    return q


def _to_pin(q, order, model):
    qp = pin.neutral(model)
    qp[:7] = q[:7]
    qp[order] = q[7:]
    return qp


def _same_config(a, b):
    """Equal configurations (a quaternion and its negative are the same rotation)."""
    sign = 1.0 if a[3:7] @ b[3:7] >= 0 else -1.0
    return max(np.abs(a[:3] - b[:3]).max(), np.abs(a[3:7] - sign * b[3:7]).max(),
               np.abs(a[7:] - b[7:]).max(initial=0.0))


def test_sizes_and_names(setup):
    robot = setup[0]
    assert (robot.nq, robot.nv, robot.n) == (30, 29, 29)
    assert robot.body == 'pelvis' and robot.world == 'world'
    assert robot.joint_names[:6] == ['root_x', 'root_y', 'root_z', 'root_rx', 'root_ry',
                                     'root_rz']
    assert np.all(np.isinf(robot.lower[:6]))
    assert np.all(robot.lower[6:] == robot.linkage.lower)


def test_integrate_and_difference_match_pinocchio(setup):
    robot, model, order, vorder = setup
    rng = np.random.default_rng(4)
    for _ in range(20):
        q = _random_config(robot, rng)
        v = rng.normal(size=robot.nv)
        v[3:6] *= 3.0 / max(3.0, np.linalg.norm(v[3:6]))     # |ω| < π: log is the inverse
        vp = np.zeros(model.nv)
        vp[:6] = v[:6]
        vp[vorder] = v[6:]
        ref = pin.integrate(model, _to_pin(q, order, model), vp)
        ours = robot.integrate(q, v)
        ours_p = _to_pin(ours, order, model)
        assert _same_config(ours_p, ref) < 1e-12
        assert abs(np.linalg.norm(ours[3:7]) - 1.0) < 1e-14
        back = robot.difference(q, ours)
        assert np.abs(back - v).max() < 1e-9
        assert _same_config(robot.integrate(q, back), ours) < 1e-12


def test_se3_exp_log_round_trip():
    rng = np.random.default_rng(0)
    for scale in (1e-10, 1e-4, 1.0, 3.0):
        twist = rng.normal(size=6) * scale
        twist[3:] *= min(1.0, 3.0 / max(np.linalg.norm(twist[3:]), 1e-300))
        assert np.abs(se3_log(se3_exp(twist)) - twist).max() < 1e-12 * max(1.0, scale)


@pytest.mark.parametrize('link', ['l_sole', 'r_hand', 'camera', 'pelvis'])
def test_jacobian_matches_pinocchio_and_finite_differences(setup, link):
    robot, model, order, vorder = setup
    data = model.createData()
    rng = np.random.default_rng(5)
    q = _random_config(robot, rng)
    theta = robot.from_q(q)
    T, J = robot.pose_and_jacobian(theta, link)
    qp = _to_pin(q, order, model)
    pin.computeJointJacobians(model, data, qp)
    pin.updateFramePlacements(model, data)
    fid = model.getFrameId(link)
    assert np.abs(data.oMf[fid].homogeneous - T).max() < 1e-12
    Jp = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
    J_ref = np.hstack((Jp[:, :6], Jp[:, vorder]))
    assert np.abs(J - J_ref).max() < 1e-12
    h = 1e-6
    for i in range(robot.nv):
        d = np.zeros(robot.nv)
        d[i] = h
        Tp = robot.forward_kinematics(robot.integrate_theta(theta, d), link)
        Tm = robot.forward_kinematics(robot.integrate_theta(theta, -d), link)
        lin = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        ang = Rotation.from_matrix(Tp[:3, :3] @ Tm[:3, :3].T).as_rotvec() / (2 * h)
        assert np.abs(lin - J[:3, i]).max() < 1e-8 and np.abs(ang - J[3:, i]).max() < 1e-8


def test_world_seen_from_a_link_and_relative_links(setup):
    robot = setup[0]
    theta = robot.from_q(_random_config(robot, np.random.default_rng(9)))
    T, J = robot.pose_and_jacobian(theta, 'world', 'l_sole')
    assert np.allclose(T, np.linalg.inv(robot.forward_kinematics(theta, 'l_sole')), atol=1e-12)
    h = 1e-6
    for i in range(robot.nv):
        d = np.zeros(robot.nv)
        d[i] = h
        fd = (robot.forward_kinematics(robot.integrate_theta(theta, d), 'world', 'l_sole')[:3, 3]
              - robot.forward_kinematics(robot.integrate_theta(theta, -d), 'world',
                                         'l_sole')[:3, 3]) / (2 * h)
        assert np.abs(fd - J[:3, i]).max() < 1e-8
    _, Jrel = robot.pose_and_jacobian(theta, 'r_hand', 'l_sole')
    assert np.all(Jrel[:, :6] == 0.0)                  # the root does not move one link in another


def test_com_matches_pinocchio(setup):
    robot, model, order, vorder = setup
    data = model.createData()
    q = _random_config(robot, np.random.default_rng(6))
    c, J = robot.com_position_and_jacobian(robot.from_q(q))
    qp = _to_pin(q, order, model)
    assert np.abs(c - pin.centerOfMass(model, data, qp)).max() < 1e-12
    Jp = pin.jacobianCenterOfMass(model, data, qp)
    assert np.abs(J - np.hstack((Jp[:, :6], Jp[:, vorder]))).max() < 1e-12


def test_urdf_with_a_floating_joint():
    text = HUMANOID.read_text().replace(
        '<robot name="humanoid">',
        '<robot name="humanoid"><link name="odom"/><joint name="root" type="floating">'
        '<parent link="odom"/><child link="pelvis"/></joint>')
    with pytest.warns(UserWarning, match='floating'):
        linkage = load_urdf(text)
    robot = FloatingBase(linkage)
    assert robot.world == 'odom' and robot.body == 'pelvis' and robot.nv == 29
    theta = robot.from_q(robot.neutral())
    assert np.allclose(robot.forward_kinematics(theta, 'l_sole')[:3, 3], (0, 0.08, -0.76))
    c, _ = robot.com_position_and_jacobian(theta)
    assert np.isfinite(c).all()


def test_bad_inputs(setup):
    robot = setup[0]
    with pytest.raises(InputError, match='quaternion'):
        robot.from_q(np.zeros(robot.nq))
    with pytest.raises(InputError, match='expected 30'):
        robot.from_q(np.zeros(5))
    with pytest.raises(LinkError, match='nowhere'):
        robot.forward_kinematics(np.zeros(robot.nv), 'nowhere')
    with pytest.raises(LinkError, match='torso'):
        FloatingBase(load_urdf(HUMANOID), world='torso')


def test_whole_body_strict_priorities(setup):
    robot = setup[0]
    q0 = robot.neutral()
    for side in 'lr':
        for joint, value in (('hip_pitch', -0.25), ('knee', 0.5), ('ankle_pitch', -0.25)):
            q0[7 + robot.linkage.joint_index(f'{side}_{joint}')] = value
    q0[2] = -robot.forward_kinematics(robot.from_q(q0), 'l_sole')[2, 3]
    theta0 = robot.from_q(q0)
    feet = [FrameTask(robot, s, target=robot.forward_kinematics(theta0, s), priority=0,
                      position_tolerance=1e-10, orientation_tolerance=1e-10)
            for s in ('l_sole', 'r_sole')]
    com = CoMTask(robot, target=(0.02, 0.01, 0.0), priority=1, tolerance=1e-9)
    hand = FrameTask(robot, 'r_hand', target=((0.35, -0.25, 0.8), (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0), priority=2, position_tolerance=1e-8)
    res = TaskSolver(robot, feet + [com, hand, PostureTask(robot, preferred=theta0)]).solve(q0)
    assert res.success and res.status == 'converged'
    theta = robot.from_q(res.q)
    for task in feet:
        T = robot.forward_kinematics(theta, task.link)
        assert np.abs(T[:3, 3] - task.target_position).max() < 1e-10
        assert np.abs(T[:3, :3] - task.target_rotation).max() < 1e-10
    c, _ = robot.com_position_and_jacobian(theta)
    assert np.abs(c[:2] - (0.02, 0.01)).max() < 1e-9
    assert np.linalg.norm(robot.forward_kinematics(theta, 'r_hand')[:3, 3]
                          - (0.35, -0.25, 0.8)) < 1e-8
    assert abs(np.linalg.norm(res.q[3:7]) - 1.0) < 1e-14
    assert np.all(res.q[7:] >= robot.linkage.lower) and np.all(res.q[7:] <= robot.linkage.upper)
    assert np.abs(res.q[:3] - q0[:3]).max() > 1e-3      # the root did move
