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

"""Forward kinematics and Jacobians against Pinocchio and finite differences."""
from __future__ import annotations

from conftest import numeric_jacobian, random_q, REPO, ROBOTS
import numpy as np
from pdls_ik.model import load_urdf
import pytest

REAL = sorted(ROBOTS.glob('*.urdf')) if ROBOTS.exists() else []
BUNDLED = sorted((REPO / 'urdf').glob('*.urdf'))


@pytest.fixture(params=REAL + BUNDLED, ids=lambda p: f'{p.parent.name}/{p.stem}')
def real_robot(request, pinocchio_bridge):
    """Every robot of ../shared/robots and urdf/, with its Pinocchio twin."""
    text = request.param.read_text()
    robot = load_urdf(text)
    return robot, pinocchio_bridge(text, robot)


def test_real_robots_present():
    if not ROBOTS.exists():
        pytest.skip(f'{ROBOTS} not found')
    assert {p.stem for p in REAL} >= {'panda', 'ur5'}
    assert {p.stem for p in BUNDLED} >= {'panda', 'ur5', 'bimanual'}


def test_fk_every_link_matches_pinocchio(real_robot):
    robot, pin = real_robot
    rng = np.random.default_rng(0)
    for _ in range(100):
        q = random_q(robot, rng)
        poses = robot.forward_kinematics_all(q)
        assert set(poses) == set(robot.link_names)
        for link, T in poses.items():
            np.testing.assert_allclose(T, pin.pose(q, link), atol=1e-10, rtol=0, err_msg=link)
            np.testing.assert_allclose(robot.forward_kinematics(q, link, robot.root_link), T,
                                       atol=1e-12, rtol=0, err_msg=link)


def test_jacobian_every_link_matches_pinocchio(real_robot):
    robot, pin = real_robot
    rng = np.random.default_rng(1)
    for _ in range(100):
        q = random_q(robot, rng)
        for link in robot.link_names:
            T, J = robot.pose_and_jacobian(q, link, robot.root_link)
            np.testing.assert_allclose(J, pin.jacobian(q, link), atol=1e-10, rtol=0,
                                       err_msg=link)
            np.testing.assert_allclose(T, pin.pose(q, link), atol=1e-10, rtol=0)


def test_jacobian_matches_finite_differences(real_robot):
    robot, _ = real_robot
    rng = np.random.default_rng(2)
    movers = [robot.link_names[j.child] for j in robot.joints if j.moving]
    for _ in range(10):
        q = random_q(robot, rng)
        for link in (robot.link_names[-1], movers[len(movers) // 2]):
            np.testing.assert_allclose(robot.jacobian(q, link), numeric_jacobian(robot, q, link),
                                       atol=1e-6, rtol=0)


def test_reversed_path_jacobian_is_relative_twist(real_robot):
    """Base deep in the chain, tip near the root: J = d/dq of T_base^-1 T_tip."""
    robot, pin = real_robot
    rng = np.random.default_rng(3)
    movers = [robot.link_names[j.child] for j in robot.joints if j.moving]
    base, tip = movers[-2], movers[1]
    for _ in range(20):
        q = random_q(robot, rng)
        T_base, T_tip = pin.pose(q, base), pin.pose(q, tip)
        T_rel = np.linalg.inv(T_base) @ T_tip
        T, J = robot.pose_and_jacobian(q, tip, base)
        np.testing.assert_allclose(T, T_rel, atol=1e-10, rtol=0)
        np.testing.assert_allclose(J, numeric_jacobian(robot, q, tip, base), atol=1e-6, rtol=0)
        # analytic identity: relative twist = Ad(base) of the difference of world twists
        R = T_base[:3, :3]
        J_b, J_t = pin.jacobian(q, base), pin.jacobian(q, tip)
        lin = R.T @ (J_t[:3] - J_b[:3] - np.cross(J_b[3:].T, (T_tip[:3, 3] - T_base[:3, 3])).T)
        ang = R.T @ (J_t[3:] - J_b[3:])
        np.testing.assert_allclose(J, np.vstack((lin, ang)), atol=1e-10, rtol=0)


def test_local_jacobian_is_rotated_base_jacobian(real_robot):
    robot, _ = real_robot
    q = random_q(robot, np.random.default_rng(4))
    tip = robot.link_names[-1]
    T, J = robot.pose_and_jacobian(q, tip)
    R = T[:3, :3]
    J_local = robot.jacobian(q, tip, local=True)
    np.testing.assert_allclose(J_local[:3], R.T @ J[:3], atol=1e-14)
    np.testing.assert_allclose(J_local[3:], R.T @ J[3:], atol=1e-14)
