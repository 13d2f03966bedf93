"""The Jacobi SVD of the Numba PDLS kernel (pdls_ik._accel.pdls_pose) against LAPACK; the kernel
against IKSolver's NumPy path is tested in test_ik_backends.py."""
from __future__ import annotations

import numpy as np
import pytest

from pdls_ik._accel import available

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
