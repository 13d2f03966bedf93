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
solve_batch.

solutions checked by Pinocchio FK and limits, IKSolver's success criterion, both backends (NumPy
reference; Numba when importable) and the kernel transcription.
"""
from __future__ import annotations

from conftest import PinocchioBridge, random_q, ROBOTS
import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik._accel import available
from pdls_ik.errors import InputError, LinkError
from pdls_ik.ik.batch import BatchSolver, pose_residuals, solve_batch, STALL_RATIO, STALL_WINDOW
from pdls_ik.model.chain_arrays import ChainArrays
from pdls_ik.resources import bundled_urdf
import pytest
from scipy.spatial.transform import Rotation

BACKENDS = ['numpy', pytest.param('numba', marks=pytest.mark.skipif(
    not available(), reason='numba not installed (optional accelerator)'))]
ROBOT_TIPS = [('panda', 'panda_link8'), ('ur5', 'ee_link')]


def _problems(robot, tip, count, rng):
    qs = np.array([random_q(robot, rng) for _ in range(count)])
    targets = np.array([robot.forward_kinematics(q, tip) for q in qs])
    seeds = np.array([random_q(robot, rng) for _ in range(count)])
    return targets, seeds


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('name,tip', ROBOT_TIPS)
def test_every_success_passes_pinocchio_fk_and_limits(name, tip, backend):
    path = bundled_urdf(name)
    robot = load_urdf(path)
    bridge = PinocchioBridge(path.read_text(), robot)
    targets, seeds = _problems(robot, tip, 150, np.random.default_rng(7))
    res = solve_batch(robot, tip, targets, seeds, backend=backend)
    assert res.backend == backend
    assert res.success.mean() >= 0.99
    assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
    for q, T, ok in zip(res.q, targets, res.success):
        if not ok:
            continue
        P = bridge.pose(q, tip)
        assert np.linalg.norm(P[:3, 3] - T[:3, 3]) <= 1e-5
        assert np.linalg.norm(Rotation.from_matrix(T[:3, :3] @ P[:3, :3].T).as_rotvec()) <= 1e-4
    assert np.all(res.iterations >= 0) and np.all(res.restarts <= 100)


@pytest.mark.parametrize('backend', BACKENDS)
def test_success_criterion_agrees_with_iksolver(backend):
    robot = load_urdf(bundled_urdf('ur5'))
    rng = np.random.default_rng(3)
    targets, seeds = _problems(robot, 'ee_link', 40, rng)
    # a few problems with a tiny budget, so that failures are part of the comparison
    res = solve_batch(robot, 'ee_link', targets, seeds, max_iterations=3, max_restarts=0,
                      backend=backend)
    assert not res.success.all()
    solver = IKSolver(robot, 'ee_link')
    for q, T, ok, pos, ori in zip(res.q, targets, res.success, res.position_error,
                                  res.orientation_error):
        solver.frame.set_target(T)
        ref_pos, ref_ori = solver.errors(q)
        assert pos == pytest.approx(ref_pos, abs=1e-12)
        assert ori == pytest.approx(ref_ori, abs=1e-9)
        assert ok == (ref_pos <= solver.config.position_tolerance
                      and ref_ori <= solver.config.orientation_tolerance)


def test_stacked_pose_and_jacobian_match_the_linkage():
    robot = load_urdf(bundled_urdf('panda'))
    chain = ChainArrays(robot, 'panda_link8')
    rng = np.random.default_rng(0)
    qs = np.array([random_q(robot, rng) for _ in range(20)])
    T, J = chain.pose_and_jacobian(qs)
    for q, Tb, Jb in zip(qs, T, J):
        Tr, Jr = robot.pose_and_jacobian(q, 'panda_link8')
        np.testing.assert_allclose(Tb, Tr, atol=1e-12)
        np.testing.assert_allclose(Jb, Jr, atol=1e-12)


@pytest.mark.skipif(not available(), reason='numba not installed (optional accelerator)')
def test_numba_kernel_is_a_transcription_of_the_numpy_reference():
    from pdls_ik._accel import batch_numba
    from pdls_ik._accel.chain_numba import chain_tuple, pose_jacobian, pose_residual
    assert (batch_numba.STALL_WINDOW, batch_numba.STALL_RATIO) == (STALL_WINDOW, STALL_RATIO)
    robot = load_urdf(bundled_urdf('panda'))
    ch = ChainArrays(robot, 'panda_link8')
    rng = np.random.default_rng(1)
    T, J, P, e = np.empty((4, 4)), np.empty((6, robot.n)), np.empty((4, 4)), np.empty(6)
    for _ in range(20):
        q = random_q(robot, rng)
        goal = robot.forward_kinematics(random_q(robot, rng), 'panda_link8')
        pose_jacobian(q, chain_tuple(ch), T, J, P)
        Tr, Jr = ch.pose_and_jacobian(q[None])
        np.testing.assert_allclose(T, Tr[0], atol=1e-12)
        np.testing.assert_allclose(J, Jr[0], atol=1e-12)
        pose_residual(T, goal, e)
        np.testing.assert_allclose(e, pose_residuals(Tr, goal[None])[0], atol=1e-9)


def test_rotation_residual_near_pi_matches_scipy():
    rng = np.random.default_rng(5)
    axes = rng.normal(size=(6, 3))
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    rotvecs = axes * (np.pi - np.array([0.0, 1e-9, 1e-6, 1e-4, 0.3, 2.0]))[:, None]
    targets = np.tile(np.eye(4), (6, 1, 1))
    targets[:, :3, :3] = Rotation.from_rotvec(rotvecs).as_matrix()
    e = pose_residuals(np.tile(np.eye(4), (6, 1, 1)), targets)
    np.testing.assert_allclose(np.linalg.norm(e[:, 3:], axis=1), np.linalg.norm(rotvecs, axis=1),
                               atol=1e-9)
    ok = np.linalg.norm(rotvecs, axis=1) < np.pi - 1e-7   # at π, ±axis are the same rotation
    np.testing.assert_allclose(e[ok, 3:], rotvecs[ok], atol=1e-6)


@pytest.mark.parametrize('backend', BACKENDS)
def test_unreachable_goal_fails_within_limits(backend):
    robot = load_urdf(bundled_urdf('panda'))
    far = np.eye(4)
    far[:3, 3] = (3.0, 0.0, 0.5)
    res = solve_batch(robot, 'panda_link8', far[None], max_restarts=2, backend=backend)
    assert not res.success[0]
    assert res.position_error[0] > 1.5
    assert np.all(res.q[0] >= robot.lower) and np.all(res.q[0] <= robot.upper)
    assert res.restarts[0] == 2


def test_bad_input_is_named():
    robot = load_urdf(bundled_urdf('panda'))
    with pytest.raises(InputError, match='targets'):
        solve_batch(robot, 'panda_link8', np.eye(4))
    bad = np.tile(np.eye(4), (2, 1, 1))
    bad[1, 0, 3] = np.nan
    with pytest.raises(InputError, match='problem 1'):
        solve_batch(robot, 'panda_link8', bad)
    with pytest.raises(InputError, match='seeds'):
        solve_batch(robot, 'panda_link8', np.tile(np.eye(4), (2, 1, 1)), np.zeros((2, 3)))
    with pytest.raises(InputError, match='backend'):
        BatchSolver(robot, 'panda_link8', backend='gpu')
    with pytest.raises(LinkError, match='panda_link0'):
        solve_batch(robot, 'panda_link0', np.eye(4)[None], base='panda_link8')


@pytest.mark.skipif(not (ROBOTS / 'ur5.urdf').exists(), reason='../shared/robots not found')
def test_real_ur5_description():
    robot = load_urdf(ROBOTS / 'ur5.urdf')
    targets, seeds = _problems(robot, 'ee_link', 60, np.random.default_rng(11))
    res = solve_batch(robot, 'ee_link', targets, seeds, backend='numpy')
    assert res.success.all()
    assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
