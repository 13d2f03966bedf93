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
Shared fixtures: the reference data in ../shared (robots, cases) and a Pinocchio bridge.

CI clones the repository into a folder that has ``shared/`` beside it, so the data is found at
``<repo>/../shared`` (or where ``PDLS_IK_SHARED`` points); tests that need it are skipped with a
reason when it is absent.

The tests mirror the package tree (test/model, test/pdls, test/ik, ...); this folder is put on
``sys.path`` so that every test imports the support modules beside this file (``conftest``,
``fd_support``, ``msgs_support``, ``ros_support``) wherever it lives, and however pytest is run
(``python -m pytest test``, one file, ``colcon test``).
"""
from __future__ import annotations

import os
from pathlib import Path
import sys

import numpy as np
import pytest

TEST_DIR = Path(__file__).resolve().parent
if str(TEST_DIR) not in sys.path:
    sys.path.insert(0, str(TEST_DIR))

REPO = TEST_DIR.parent
SHARED = Path(os.environ.get('PDLS_IK_SHARED') or REPO.parent / 'shared')
ROBOTS = SHARED / 'robots'
CASES = SHARED / 'cases'


def pytest_configure(config):
    """Register the ament linters' markers (ament_lint registers them only under ROS 2)."""
    for name in ('linter', 'flake8', 'pep257', 'copyright'):
        config.addinivalue_line('markers', f'{name}: ament linter test')


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f'reference data not found at {path} (expected ../shared beside the repo)')
    return path


@pytest.fixture
def robots_dir() -> Path:
    """Folder of the real robot descriptions (../shared/robots)."""
    return _need(ROBOTS)


@pytest.fixture
def case_dir():
    """Return a finder of one case's folder by its prefix (e.g. "C02")."""
    def find(prefix: str) -> Path:
        matches = sorted(_need(CASES).glob(f'{prefix}-*'))
        if not matches:
            pytest.skip(f'case {prefix} not found in {CASES}')
        return matches[0]
    return find


def random_q(robot, rng: np.random.Generator) -> np.ndarray:
    """Return a random q inside the limits (continuous joints in [-π, π])."""
    lo = np.where(np.isfinite(robot.lower), robot.lower, -np.pi)
    hi = np.where(np.isfinite(robot.upper), robot.upper, np.pi)
    return rng.uniform(lo, hi)


class PinocchioBridge:
    """
    Pinocchio model of the same URDF, with q and Jacobian columns mapped by joint name.

    Pinocchio treats a mimic joint as an independent joint: its value is set from the master
    and its column added to the master's column times the multiplier.
    """

    def __init__(self, urdf_text: str, robot):
        pin = pytest.importorskip('pinocchio')
        self.pin, self.robot = pin, robot
        self.model = pin.buildModelFromXML(urdf_text)
        self.data = self.model.createData()
        self.idx_q = {}
        self.idx_v = {}
        for jid in range(1, self.model.njoints):
            name = self.model.names[jid]
            self.idx_q[name] = self.model.idx_qs[jid]
            self.idx_v[name] = self.model.idx_vs[jid]

    def q(self, q: np.ndarray) -> np.ndarray:
        """Pinocchio configuration; continuous joints are (cos θ, sin θ) pairs there."""
        qp = self.pin.neutral(self.model)
        values = dict(zip(self.robot.joint_names, q))
        values.update(self.robot.mimic_values(q))
        for name, value in values.items():
            jid = self.model.getJointId(name)
            if self.model.nqs[jid] == 2:
                qp[self.idx_q[name]:self.idx_q[name] + 2] = np.cos(value), np.sin(value)
            else:
                qp[self.idx_q[name]] = value
        return qp

    def pose(self, q: np.ndarray, link: str) -> np.ndarray:
        """(4, 4) pose of ``link`` in the root frame."""
        pin = self.pin
        pin.forwardKinematics(self.model, self.data, self.q(q))
        fid = self.model.getFrameId(link)
        return pin.updateFramePlacement(self.model, self.data, fid).homogeneous

    def jacobian(self, q: np.ndarray, link: str) -> np.ndarray:
        """(6, n) Jacobian of the ``link`` origin, root frame (LOCAL_WORLD_ALIGNED), our order."""
        pin = self.pin
        fid = self.model.getFrameId(link)
        Jp = pin.computeFrameJacobian(self.model, self.data, self.q(q), fid,
                                      pin.LOCAL_WORLD_ALIGNED)
        J = np.zeros((6, self.robot.n))
        for i, name in enumerate(self.robot.joint_names):
            J[:, i] += Jp[:, self.idx_v[name]]
        for joint in self.robot.joints:
            if joint.mimic:
                J[:, joint.index] += joint.multiplier * Jp[:, self.idx_v[joint.name]]
        return J


@pytest.fixture
def pinocchio_bridge():
    """Return a factory of :class:`PinocchioBridge` from URDF text and the pdls_ik robot."""
    return PinocchioBridge


def numeric_jacobian(robot, q, link, base=None, h=1e-6) -> np.ndarray:
    """
    (6, n) central finite-difference Jacobian of the link pose relative to ``base``.

    Linear rows: d(position)/dq in the base frame; angular rows: the rotation vector of
    R(q+h) R(q-h)^T / (2h), in the base frame.
    """
    from scipy.spatial.transform import Rotation
    J = np.zeros((6, robot.n))
    for i in range(robot.n):
        dq = np.zeros(robot.n)
        dq[i] = h
        Tp = robot.forward_kinematics(q + dq, link, base)
        Tm = robot.forward_kinematics(q - dq, link, base)
        J[:3, i] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        J[3:, i] = Rotation.from_matrix(Tp[:3, :3] @ Tm[:3, :3].T).as_rotvec() / (2 * h)
    return J
