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

"""The bundled robots of urdf/: same kinematics as the real descriptions, mimic and branches."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from conftest import numeric_jacobian, random_q
import numpy as np
from pdls_ik.model import load_urdf
from pdls_ik.resources import BUNDLED_ROBOTS, bundled_urdf
import pytest


@pytest.mark.parametrize('name', ['panda', 'ur5'])
def test_bundled_matches_real_description(name, robots_dir):
    ours, real = load_urdf(bundled_urdf(name)), load_urdf(robots_dir / f'{name}.urdf')
    assert ours.joint_names == real.joint_names
    assert set(ours.link_names) == set(real.link_names)
    for attr in ('lower', 'upper', 'soft_lower', 'soft_upper', 'velocity_limits',
                 'effort_limits'):
        np.testing.assert_array_equal(getattr(ours, attr), getattr(real, attr), err_msg=attr)
    rng = np.random.default_rng(10)
    tip = BUNDLED_ROBOTS[name][1]
    for _ in range(100):
        q = random_q(ours, rng)
        a, b = ours.forward_kinematics_all(q), real.forward_kinematics_all(q)
        for link in ours.link_names:
            np.testing.assert_allclose(a[link], b[link], atol=1e-9, rtol=0, err_msg=link)
        np.testing.assert_allclose(ours.jacobian(q, tip), real.jacobian(q, tip), atol=1e-9)


def test_bundled_inertials_match_published_masses(robots_dir):
    ours, real = load_urdf(bundled_urdf('panda')), load_urdf(robots_dir / 'panda.urdf')
    for link, inertial in real.inertials.items():
        if inertial.mass > 0:
            assert ours.inertials[link].mass == inertial.mass
            np.testing.assert_allclose(ours.inertials[link].origin, inertial.origin)
            np.testing.assert_allclose(ours.inertials[link].inertia, inertial.inertia)


@pytest.mark.parametrize('name', sorted(BUNDLED_ROBOTS))
def test_bundled_files_are_self_contained(name):
    text = bundled_urdf(name).read_text()
    assert 'SPDX-License-Identifier' in text
    root = ET.fromstring(text)
    assert root.find('.//mesh') is None  # primitives only, nothing to resolve
    robot = load_urdf(text)
    moving_children = {robot.link_names[j.child] for j in robot.joints if j.moving}
    assert moving_children <= set(robot.inertials)
    assert all(robot.inertials[link].mass > 0 for link in moving_children)


def test_bimanual_branches_and_mimic_fingers():
    robot = load_urdf(bundled_urdf('bimanual'))
    assert robot.n == 11 and robot.root_link == 'base_link'
    assert robot.continuous.sum() == 2
    q = np.zeros(robot.n)
    q[robot.joint_index('r_finger_a_joint')] = 0.03
    q[robot.joint_index('l_finger_a_joint')] = 0.01
    poses = robot.forward_kinematics_all(q)
    # fingers open symmetrically: b follows a through <mimic> (r: ×1; l: ×-1 with mirrored axis)
    for side, opening in (('r', 0.03), ('l', 0.01)):
        inv_hand = np.linalg.inv(poses[f'{side}_hand'])
        np.testing.assert_allclose((inv_hand @ poses[f'{side}_finger_a'])[:3, 3],
                                   [0.08, 0.005 + opening, 0], atol=1e-15)
        np.testing.assert_allclose((inv_hand @ poses[f'{side}_finger_b'])[:3, 3],
                                   [0.08, -0.005 - opening, 0], atol=1e-15)
    # finger b's column is the master's: it slides along the hand's -y per unit of l_finger_a
    i = robot.joint_index('l_finger_a_joint')
    J = robot.jacobian(q, 'l_finger_b')
    np.testing.assert_allclose(J[:3, i], -poses['l_hand'][:3, 1], atol=1e-15)
    np.testing.assert_allclose(J[3:, i], 0, atol=0)
    # the torso joint moves both tools, each arm only its own tool
    J_l, J_r = robot.jacobian(q, 'l_tool'), robot.jacobian(q, 'r_tool')
    for k, name in enumerate(robot.joint_names):
        assert bool(J_l[:, k].any()) == (name == 'torso_yaw' or name.startswith('l_')
                                         and 'finger' not in name), name
        assert bool(J_r[:, k].any()) == (name == 'torso_yaw' or name.startswith('r_')
                                         and 'finger' not in name), name
    rng = np.random.default_rng(11)
    for _ in range(10):
        q = random_q(robot, rng)
        for base, tip in (('l_tool', 'r_tool'), ('r_finger_b', 'l_hand'), ('base_link', 'l_tool')):
            np.testing.assert_allclose(robot.jacobian(q, tip, base),
                                       numeric_jacobian(robot, q, tip, base), atol=1e-6)
