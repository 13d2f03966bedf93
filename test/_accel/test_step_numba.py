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
The Jacobi SVD of the numba PDLS step (pdls_ik._accel.step_numba) against LAPACK.

The kernel against IKSolver's NumPy path is tested in test_ik_backends.py.
"""
from __future__ import annotations

import numpy as np
from pdls_ik._accel import available
import pytest

pytestmark = pytest.mark.skipif(not available(), reason='numba not installed (optional)')


def test_jacobi_rows_give_the_svd_and_the_damped_solution_including_rank_deficient():
    """
    Rows W[:, :k] = s_i v_iᵀ (singular values and right vectors as LAPACK's), W[:, k] = Uᵀ b.

    The kernel's damped pseudoinverse solution equals the one from numpy's SVD.
    """
    from pdls_ik._accel.step_numba import jacobi_rows
    rng = np.random.default_rng(0)
    for k in range(30):
        A = rng.normal(size=(6, 6 + k % 4))
        if k % 3 == 0:
            A[5] = 2.0 * A[4] + (1e-12 if k % 2 else 0.0) * A[3]   # (nearly) rank deficient
        b = rng.normal(size=6)
        W = np.concatenate((A, b[:, None]), axis=1)
        s, norms, Q = np.empty(6), np.empty(6), np.eye(6)
        jacobi_rows(W, A.shape[1], s, norms, Q)
        u_ref, s_ref, vt_ref = np.linalg.svd(A, full_matrices=False)
        np.testing.assert_allclose(np.sort(s)[::-1], s_ref, atol=1e-13)
        big = s > 1e-9
        V = W[big, :-1] / s[big, None]
        np.testing.assert_allclose(V @ V.T, np.eye(int(big.sum())), atol=1e-12)
        lam = 0.05
        ours = (W[big, -1] / (s[big] ** 2 + lam ** 2)) @ W[big, :-1]
        keep = s_ref > 1e-9
        ref = (vt_ref[keep].T * (s_ref[keep] / (s_ref[keep] ** 2 + lam ** 2))) @ \
            (u_ref[:, keep].T @ b)
        np.testing.assert_allclose(ours, ref, atol=1e-11)
        # Q = Uᵀ: the rotations applied to [A | b]
        np.testing.assert_allclose(Q @ Q.T, np.eye(6), atol=1e-13)
        np.testing.assert_allclose(Q @ np.concatenate((A, b[:, None]), axis=1), W, atol=1e-12)


def test_jacobi_rows_warm_started_from_a_previous_u_give_the_svd_of_the_new_matrix():
    """Started from the Uᵀ of a nearby matrix (the previous iteration), the result is unchanged."""
    from pdls_ik._accel.step_numba import jacobi_rows
    rng = np.random.default_rng(1)
    for k in range(20):
        A = rng.normal(size=(6, 6 + k % 3))
        W, s, norms, Q = np.concatenate((A, np.zeros((6, 1))), axis=1), np.empty(6), \
            np.empty(6), np.eye(6)
        jacobi_rows(W, A.shape[1], s, norms, Q)
        A2 = A + 1e-2 * rng.normal(size=A.shape)
        b = rng.normal(size=6)
        W = Q @ np.concatenate((A2, b[:, None]), axis=1)
        jacobi_rows(W, A.shape[1], s, norms, Q)
        u_ref, s_ref, vt_ref = np.linalg.svd(A2, full_matrices=False)
        np.testing.assert_allclose(np.sort(s)[::-1], s_ref, atol=1e-13)
        lam = 0.01
        ours = (W[:, -1] / (s ** 2 + lam ** 2)) @ W[:, :-1]
        ref = (vt_ref.T * (s_ref / (s_ref ** 2 + lam ** 2))) @ (u_ref.T @ b)
        np.testing.assert_allclose(ours, ref, atol=1e-11)


def test_pgs_box_step_is_the_numpy_pgs_step_of_the_levels():
    """The compiled box-constrained step equals pdls.pgs.pgs_step on the same stacked levels."""
    from pdls_ik._accel.step_numba import pgs_box_step
    from pdls_ik.pdls.pgs import pgs_step
    rng = np.random.default_rng(4)
    hit_lower = hit_upper = 0
    for trial in range(40):
        n, m, locks = 7, 6, trial % 3
        J, e = rng.normal(size=(m, n)), rng.normal(size=m)
        lock_idx = rng.choice(n, locks, replace=False).astype(np.int64)
        w, e_lock = 1.0, rng.normal(size=locks)
        J_lock = np.zeros((locks, n))
        J_lock[np.arange(locks), lock_idx] = w
        free = rng.random(n) > 0.15
        lo, up = -rng.uniform(0.01, 0.3, n), rng.uniform(0.01, 0.3, n)
        x0 = rng.normal(size=n)
        levels = ([J_lock, J], [e_lock, e]) if locks else ([J], [e])
        ref = pgs_step(*levels, x0, lo, up, free, None, 0.0, 1e-3, 200, 1e-12)
        x, at_bound = np.empty(n), np.empty(n, dtype=bool)
        pgs_box_step((J, e, e_lock, lock_idx, w), x0, (lo, up, free), (1e-3, 200, 1e-12),
                     (x, at_bound))
        np.testing.assert_allclose(x, ref.x, rtol=0.0, atol=1e-9)
        np.testing.assert_array_equal(at_bound, ref.at_bound)
        assert np.all(x[free] >= lo[free]) and np.all(x[free] <= up[free])
        assert np.all(x[~free] == 0.0)
        hit_lower += int(np.sum(x[free] == lo[free]))
        hit_upper += int(np.sum(x[free] == up[free]))
    assert hit_lower > 10 and hit_upper > 10      # both bounds are exercised


def test_levels_step_bounds_the_posture_as_the_numpy_step_does():
    """
    Issue 14: the compiled step adds the posture after the limiting loop, within the limits.

    Locks (0–2) > pose (6 rows) > a posture pulling far outside the limits: the compiled
    levels_step equals pdls.step, clamps only what the levels need, and stays within limits.
    """
    from pdls_ik._accel.step_numba import levels_step, step_work
    from pdls_ik.pdls import PDLSOptions, step
    rng = np.random.default_rng(14)
    bounded = 0
    for trial in range(60):
        n, m, locks = 7, 6, trial % 3
        J, e = rng.normal(size=(m, n)), 0.3 * rng.normal(size=m)
        lock_idx = rng.choice(n, locks, replace=False).astype(np.int64)
        w, e_lock = 1.0, 0.1 * rng.normal(size=locks)
        J_lock = np.zeros((locks, n))
        J_lock[np.arange(locks), lock_idx] = w
        lo, up = -rng.uniform(0.1, 1.0, n), rng.uniform(0.1, 1.0, n)
        theta = lo + rng.random(n) * (up - lo)
        posture = 3.0 * rng.normal(size=n)
        free = np.ones(n, dtype=bool)
        levels = [(e_lock, J_lock), (e, J)] if locks else [(e, J)]
        opts = PDLSOptions(theta_diff_max_mag=1.5)
        ref = step(levels, theta, lo, up, posture, opts)
        plain = step(levels, theta, lo, up, None, opts)
        dtheta, lm, rc = np.empty(n), np.zeros((2, 3)), np.zeros(2, dtype=bool)
        levels_step((J, e, e_lock, lock_idx, w), theta, (lo, up, free, np.zeros(n, dtype=bool)),
                    (-1.0, 1.5, 1e-9, True), (-1.0, -1.0), posture, True,
                    (dtheta, step_work(m, n, locks), lm, rc))
        np.testing.assert_allclose(dtheta, ref.theta_diff, rtol=0.0, atol=1e-9)
        new = theta + dtheta
        assert np.all(new >= lo) and np.all(new <= up)
        np.testing.assert_array_equal(ref.clamped, plain.clamped)   # none for the posture
        bounded += bool(np.any((new == lo) | (new == up)))
    assert bounded > 20
