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
Large descriptions: a 1,200-joint chain and a 3,000-link tree load, give FK and ``pdls-ik info``.

Everything on the path runs under a recursion limit far below the tree depth, so no step walks
the tree recursively. Load times are measured in ``benchmarks/bench_urdf_scale.py``.
"""
from __future__ import annotations

import sys

import numpy as np
from pdls_ik.cli import main
from pdls_ik.model import load_urdf
import pytest

JOINT = ('<link name="l{i}"/><joint name="j{i}" type="revolute"><parent link="l{p}"/>'
         '<child link="l{i}"/><origin xyz="{x} 0 0.01" rpy="0 0.001 {yaw}"/><axis xyz="{axis}"/>'
         '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')


def chain(n: int) -> str:
    """Return a serial chain of ``n`` revolute joints (axes alternating z, y)."""
    return '<robot name="chain"><link name="l0"/>' + ''.join(
        JOINT.format(i=i, p=i - 1, x=0.0, yaw=0.0, axis='0 1 0' if i % 2 else '0 0 1')
        for i in range(1, n + 1)) + '</robot>'


def tree(links: int) -> str:
    """Return a ternary tree of ``links`` links (depth about log3), joints revolute about z."""
    return '<robot name="tree"><link name="l0"/>' + ''.join(
        JOINT.format(i=i, p=(i - 1) // 3, x=0.01, yaw=i % 3, axis='0 0 1')
        for i in range(1, links)) + '</robot>'


@pytest.fixture
def shallow_stack():
    """Run the test with a recursion limit of 300: a recursive walk of 1,200 levels fails."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    yield
    sys.setrecursionlimit(previous)


def test_1200_joint_chain_loads_with_fk_and_jacobian(tmp_path, capsys, shallow_stack):
    path = tmp_path / 'chain.urdf'
    path.write_text(chain(1200))
    robot = load_urdf(path)
    assert robot.n == 1200 and len(robot.link_names) == 1201
    q = np.random.default_rng(3).uniform(-1, 1, robot.n)
    poses = robot.forward_kinematics_all(q)
    T = np.eye(4)
    for joint in robot.joints:   # reference: the product of the joint transforms, in order
        c, s = np.cos(q[joint.index]), np.sin(q[joint.index])
        x, y, z = joint.axis
        C = 1 - c
        R = np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                      [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                      [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])
        M = np.eye(4)
        M[:3, :3] = R
        T = T @ joint.origin @ M
    np.testing.assert_allclose(poses['l1200'], T, atol=1e-10)
    np.testing.assert_allclose(robot.forward_kinematics(q, 'l1200'), T, atol=1e-10)
    J = robot.jacobian(q, 'l1200')
    assert J.shape == (6, 1200) and np.all(np.isfinite(J))
    np.testing.assert_allclose(np.linalg.norm(J[3:], axis=0), 1.0, atol=1e-12)  # unit axes
    assert main(['info', str(path)]) == 0
    out = capsys.readouterr().out
    assert 'robot chain: 1200 active joints, 1201 links' in out
    assert '[depth 1200] ' in out and '└── l1200  [j1200: revolute]' in out
    assert max(map(len, out.splitlines())) < 160


def test_3000_link_tree_loads_with_fk_and_info(tmp_path, capsys, shallow_stack):
    path = tmp_path / 'tree.urdf'
    path.write_text(tree(3000))
    robot = load_urdf(path)
    assert robot.n == 2999 and len(robot.link_names) == 3000
    q = np.random.default_rng(4).uniform(-1, 1, robot.n)
    poses = robot.forward_kinematics_all(q)
    for link in ('l2999', 'l1500', 'l7'):
        np.testing.assert_allclose(poses[link], robot.forward_kinematics(q, link), atol=1e-12)
    relative = robot.forward_kinematics(q, 'l2999', 'l1500')
    np.testing.assert_allclose(relative, np.linalg.inv(poses['l1500']) @ poses['l2999'],
                               atol=1e-12)
    assert main(['info', str(path), '--json']) == 0
    assert '"dof": 2999' in capsys.readouterr().out
