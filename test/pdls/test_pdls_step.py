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

"""One PDLS iteration: pseudoinverse identities, strict priority, null-space projector, damping."""
import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.pdls import Level, PDLSOptions, step
import pytest

EXACT = PDLSOptions(damping=0.0, theta_diff_clamping=False, svd_tol=1e-12)


def random_level(rng, m, n):
    return rng.standard_normal(m), rng.standard_normal((m, n))


@pytest.mark.parametrize('m,n', [(3, 7), (6, 6), (6, 7), (9, 4)])
def test_one_level_undamped_is_least_squares_step(m, n):
    rng = np.random.default_rng(m * 10 + n)
    e, J = random_level(rng, m, n)
    res = step([(e, J)], rng.standard_normal(n), options=EXACT)
    expected = np.linalg.lstsq(J, e, rcond=None)[0]  # minimum-norm least squares = J⁺e
    np.testing.assert_allclose(res.theta_diff, expected, rtol=0, atol=1e-12)
    assert res.ranks == [min(m, n)]
    assert res.lambdas == [0.0]
    assert res.min_singular_values[0] == pytest.approx(np.linalg.svd(J, compute_uv=False)[-1])


def test_fixed_lambda_single_level_is_the_dls_update():
    rng = np.random.default_rng(4)
    J = rng.standard_normal((6, 7))
    J[5] = J[4] + 1e-7 * rng.standard_normal(7)  # nearly singular
    e = rng.standard_normal(6)
    for lam in (1e-3, 0.05, 0.7):
        opts = PDLSOptions.dls(damping=lam)
        res = step([(e, J)], np.zeros(7), options=opts)
        A = J @ J.T + lam ** 2 * np.eye(6)
        expected = J.T @ np.linalg.solve(A, e)
        # The normal equations lose digits with cond(A); the SVD form does not.
        tol = max(1e-12, 1e-15 * np.linalg.cond(A))
        np.testing.assert_allclose(res.theta_diff, expected, rtol=0, atol=tol)
        assert res.lambdas == [lam] and res.auto_lambda == [False]


def test_strict_priority_keeps_higher_level_and_minimizes_lower_in_null_space():
    rng = np.random.default_rng(1)
    n = 7
    e1, J1 = random_level(rng, 3, n)
    e2, J2 = random_level(rng, 6, n)  # conflicts: 3 + 6 rows > 7 variables
    alone = step([(e1, J1)], np.zeros(n), options=EXACT).theta_diff
    both = step([(e1, J1), (e2, J2)], np.zeros(n), options=EXACT)
    d = both.theta_diff
    assert np.linalg.norm(J1 @ d - e1) == pytest.approx(np.linalg.norm(J1 @ alone - e1), abs=1e-10)
    np.testing.assert_allclose(J1 @ d, e1, atol=1e-10)
    # The lower level's residual is the least one reachable within the null space of J1.
    N1 = np.eye(n) - np.linalg.pinv(J1) @ J1
    z = np.linalg.lstsq(J2 @ N1, e2 - J2 @ alone, rcond=None)[0]
    best = np.linalg.norm(J2 @ (alone + N1 @ z) - e2)
    assert np.linalg.norm(J2 @ d - e2) == pytest.approx(best, abs=1e-10)
    assert best > 1e-3  # the conflict is real
    assert both.ranks == [3, 4]


def test_nullspace_projector_annihilates_higher_levels():
    rng = np.random.default_rng(2)
    n = 9
    levels = [random_level(rng, 3, n), random_level(rng, 2, n)]
    base = step(levels, np.zeros(n), options=EXACT).theta_diff
    # Δθ(posture) − Δθ(0) = P·posture: recover P column by column.
    P = np.column_stack([step(levels, np.zeros(n), posture=col, options=EXACT).theta_diff - base
                         for col in np.eye(n)])
    for _, J in levels:
        assert np.abs(J @ P).max() < 1e-12
    np.testing.assert_allclose(P, P.T, atol=1e-12)
    np.testing.assert_allclose(P @ P, P, atol=1e-12)
    assert np.trace(P) == pytest.approx(n - 5)


def test_posture_only_moves_in_remaining_null_space():
    rng = np.random.default_rng(3)
    e, J = random_level(rng, 4, 6)
    posture = rng.standard_normal(6)
    d = step([(e, J)], np.zeros(6), posture=posture, options=EXACT).theta_diff
    np.testing.assert_allclose(J @ d, e, atol=1e-12)
    N = np.eye(6) - np.linalg.pinv(J) @ J
    np.testing.assert_allclose(d - np.linalg.pinv(J) @ e, N @ posture, atol=1e-12)


@pytest.mark.parametrize('k', [2, 4, 6, 8, 10, 14])
def test_auto_lambda_bounds_step_near_singularity(k):
    rng = np.random.default_rng(k)
    U = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    V = np.linalg.qr(rng.standard_normal((7, 7)))[0][:, :3]
    J = U @ np.diag([2.0, 0.5, 10.0 ** -k]) @ V.T
    e = np.array([0.3, -0.2, 0.4])
    opts = PDLSOptions(theta_diff_max_mag=0.25, auto_lambda_theta_diff_max_mag_scale=0.8,
                       theta_diff_clamping=False, svd_tol=1e-15)
    res = step([(e, J)], np.zeros(7), options=opts)
    target = 0.25 * 0.8
    assert np.linalg.norm(res.theta_diff) <= target * (1 + 1e-12)
    d = np.linalg.norm(e) / target
    assert res.lambdas[0] == pytest.approx(d / 2)  # σ_min << d/2: the saturated branch
    assert res.auto_lambda == [True]
    undamped = step([(e, J)], np.zeros(7), options=EXACT.replace(svd_tol=1e-15))
    assert np.linalg.norm(undamped.theta_diff) > 10 * target


def test_auto_lambda_is_zero_for_well_conditioned_small_residual():
    rng = np.random.default_rng(5)
    e, J = random_level(rng, 3, 7)
    e *= 1e-3
    res = step([(e, J)], np.zeros(7))
    assert res.lambdas == [0.0]
    np.testing.assert_allclose(res.theta_diff, np.linalg.pinv(J) @ e, atol=1e-14)


def test_theta_diff_clamping_by_norm_and_by_component():
    e, J = np.array([10.0, -4.0]), np.eye(2)
    opts = PDLSOptions(damping=0.0, theta_diff_max_mag=1.0)
    res = step([(e, J)], np.zeros(2), options=opts)
    np.testing.assert_allclose(res.theta_diff, e / np.linalg.norm(e))
    assert res.theta_diff_clamped and res.theta_diff_mag == pytest.approx(np.linalg.norm(e))
    res = step([(e, J)], np.zeros(2), options=opts.replace(clamp_theta_diff_by_component=True))
    np.testing.assert_allclose(res.theta_diff, [1.0, -1.0])


def test_residual_max_mag_clamps_the_uncompensated_residual():
    e, J = np.array([3.0, 4.0]), np.eye(2)
    res = step([Level(e, J)], np.zeros(2), options=PDLSOptions(damping=0.0,
                                                               residual_max_mag=[0.5]))
    np.testing.assert_allclose(res.theta_diff, [0.3, 0.4])
    assert res.residual_clamped == [True] and res.residual_norms == [5.0]


def test_free_variables_stay_put():
    rng = np.random.default_rng(6)
    e, J = random_level(rng, 2, 5)
    opts = EXACT.replace(free_variables=[0, 2, 4])
    d = step([(e, J)], np.zeros(5), options=opts).theta_diff
    assert d[1] == 0.0 and d[3] == 0.0
    np.testing.assert_allclose(J @ d, e, atol=1e-12)
    mask = np.array([True, False, True, False, True])
    np.testing.assert_array_equal(
        step([(e, J)], np.zeros(5), options=EXACT.replace(free_variables=mask)).theta_diff, d)


def test_non_finite_inputs_are_named_errors():
    e, J = np.ones(2), np.eye(2)
    with pytest.raises(InputError, match=r"level 1 \('elbow'\): residual row 1"):
        step([(e, J), Level(np.array([0.0, np.nan]), J, name='elbow')], np.zeros(2))
    bad = J.copy()
    bad[1, 0] = np.inf
    with pytest.raises(InputError, match='level 0: Jacobian row 1, variable 0'):
        step([(e, bad)], np.zeros(2))
    with pytest.raises(InputError, match='theta: variable 1'):
        step([(e, J)], np.array([0.0, np.nan]))
    with pytest.raises(InputError, match='lower: variable 0'):
        step([(e, J)], np.zeros(2), lower=[np.nan, 0.0], upper=[1.0, 1.0])
    with pytest.raises(InputError, match='variable 1 has lower 2.0 > upper 1.0'):
        step([(e, J)], np.zeros(2), lower=[0.0, 2.0], upper=[1.0, 1.0])
    with pytest.raises(InputError, match=r'level 0: Jacobian must have shape \(2, 3\)'):
        step([(e, J)], np.zeros(3))
    with pytest.raises(InputError, match='posture: variable 0'):
        step([(e, J)], np.zeros(2), posture=[np.inf, 0.0])


def test_rank_is_relative_to_the_level_so_rounding_never_makes_a_direction():
    """
    Issue 14, finding 2: a level in level 0's row space, entries ~1e6, λ = 0.

    The projector leaves ~1e-9 of rounding in J₁P; with an absolute svd_tol that was rank 1 and
    its pseudoinverse (gain ~4e8) destroyed level 0 (|e0 after| / |e0| = 89).
    """
    rng = np.random.default_rng(0)
    n = 7
    J0 = rng.normal(size=(3, n)) * 1e6
    M = rng.normal(size=(2, 3))
    e0 = rng.normal(size=3) * 1e4
    e1 = M @ e0 + rng.normal(size=2) * 1e4
    out = step([(e0, J0), (e1, M @ J0)], np.zeros(n), options=PDLSOptions(damping=0.0))
    assert out.ranks == [3, 0]
    assert np.linalg.norm(e0 - J0 @ out.theta_diff) < 1e-12 * np.linalg.norm(e0)


@pytest.mark.parametrize('scale', [1e-6, 1e-3, 1e3, 1e6])
def test_scaling_the_units_of_the_levels_never_changes_the_answer(scale):
    """Residuals and Jacobians of every level × scale (other units): the same Δθ and ranks."""
    rng = np.random.default_rng(11)
    n = 7
    J0 = rng.normal(size=(3, n))
    J1 = np.vstack([rng.normal(size=(1, 3)) @ J0, rng.normal(size=(2, n))])  # 1 dependent row
    e0, e1 = rng.normal(size=3), rng.normal(size=3)
    opts = PDLSOptions(damping=0.0, theta_diff_clamping=False)
    ref = step([(e0, J0), (e1, J1)], np.zeros(n), options=opts)
    got = step([(scale * e0, scale * J0), (scale * e1, scale * J1)], np.zeros(n), options=opts)
    assert got.ranks == ref.ranks == [3, 2]
    np.testing.assert_allclose(got.theta_diff, ref.theta_diff, rtol=1e-9, atol=1e-12)
