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


PLANAR_URDF = """<robot name="p">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><axis xyz="0 0 1"/>
    <origin xyz="0.3 0 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="slide" type="prismatic"><parent link="l2"/><child link="tip"/>
    <axis xyz="1 0 0"/><origin xyz="0.2 0 0"/>
    <limit lower="-0.05" upper="0.1" effort="1" velocity="1"/></joint>
</robot>"""


def test_reach_bounds_the_distance_to_the_tip_and_is_exact_when_stretched():
    from pdls_ik.resources import bundled_urdf
    planar = load_urdf(PLANAR_URDF)
    # links 0.3 and 0.2 m, the slide out by 0.1 m: stretched, the tip is 0.6 m away
    assert planar.reach('tip') == pytest.approx(0.6, abs=1e-15)
    stretched = planar.forward_kinematics([0.0, 0.0, 0.1], 'tip')
    assert np.linalg.norm(stretched[:3, 3]) == pytest.approx(0.6, abs=1e-15)
    assert planar.reach('l1') == 0.0 and planar.reach('base', 'tip') == pytest.approx(0.6)
    rng = np.random.default_rng(3)
    for name, tip in (('panda', 'panda_link8'), ('ur5', 'ee_link'), ('bimanual', 'l_tool')):
        robot = load_urdf(bundled_urdf(name))
        bound = robot.reach(tip)
        far = max(np.linalg.norm(robot.forward_kinematics(random_q(robot, rng), tip)[:3, 3])
                  for _ in range(500))
        assert far <= bound < 2.0 * far + 0.5      # a bound, and not a loose one
