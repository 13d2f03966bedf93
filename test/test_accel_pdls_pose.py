"""The Numba PDLS prototype (pdls_ik._accel.pdls_pose) against its NumPy reference: Jacobi SVD
against LAPACK, and the same iterates, restarts and answers as IKSolver.solve."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import PinocchioBridge, random_q
from pdls_ik import IKSolver, load_urdf
from pdls_ik._accel import available
from pdls_ik.resources import bundled_urdf

pytestmark = pytest.mark.skipif(not available(), reason="numba not installed (optional)")


def test_jacobi_svd_matches_lapack_including_rank_deficient():
    from pdls_ik._accel.pdls_pose import jacobi_svd
    rng = np.random.default_rng(0)
    for k in range(30):
        A = rng.normal(size=(6, 6 + k % 4))
        if k % 3 == 0:
            A[5] = 2.0 * A[4] + (1e-12 if k % 2 else 0.0) * A[3]   # (nearly) rank deficient
        u, s, vt = jacobi_svd(A)
        np.testing.assert_allclose(s, np.linalg.svd(A, compute_uv=False), atol=1e-13)
        np.testing.assert_allclose((u * s) @ vt, A, atol=1e-13)
        np.testing.assert_allclose(u.T @ u, np.eye(6), atol=1e-13)
        big = s > 1e-9
        np.testing.assert_allclose(vt[big] @ vt[big].T, np.eye(int(big.sum())), atol=1e-12)


@pytest.mark.parametrize("name,tip", [("panda", "panda_link8"), ("ur5", "ee_link")])
def test_same_answers_iterations_and_restarts_as_iksolver(name, tip):
    from pdls_ik._accel.pdls_pose import PoseSolver
    path = bundled_urdf(name)
    robot = load_urdf(path)
    bridge = PinocchioBridge(path.read_text(), robot)
    reference, fast = IKSolver(robot, tip), PoseSolver(robot, tip)
    rng = np.random.default_rng(21)
    same = 0
    for _ in range(40):
        goal = robot.forward_kinematics(random_q(robot, rng), tip)
        seed = random_q(robot, rng)
        ref = reference.solve(goal, seed=seed, timeout=30.0)
        q, ok, status, iterations, restarts = fast.solve(goal, seed, timeout=30.0)
        assert ok and ref.success and status == "converged"
        assert np.all(q >= robot.lower) and np.all(q <= robot.upper)
        P = bridge.pose(q, tip)
        assert np.linalg.norm(P[:3, 3] - goal[:3, 3]) <= 1e-5
        same += (iterations == ref.iterations and restarts == ref.restarts
                 and np.allclose(q, ref.q, atol=1e-8))
    assert same >= 38   # rounding (scan vs sequential FK products) may flip a rare branch


def test_unreachable_goal_stops_at_the_timeout_with_the_best_attempt():
    from pdls_ik._accel.pdls_pose import PoseSolver
    robot = load_urdf(bundled_urdf("panda"))
    fast = PoseSolver(robot, "panda_link8")
    goal = np.eye(4)
    goal[:3, 3] = (2.0, 0.0, 0.5)
    fast.solve(goal, None, timeout=0.01)                      # compile / load the cache
    q, ok, status, iterations, restarts = fast.solve(goal, None, timeout=0.02)
    assert not ok and status != "converged" and restarts >= 1
    assert np.all(q >= robot.lower) and np.all(q <= robot.upper)
    reach = np.linalg.norm(robot.forward_kinematics(q, "panda_link8")[:3, 3] - goal[:3, 3])
    assert 0.9 < reach < 1.5    # stretched toward the goal: about 2.06 m away minus the reach
