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
The two implementations of IKSolver.solve (config.backend).

selection, errors, and agreement of the compiled kernel (pdls_ik._accel.ik_solver_numba) with the
NumPy reference on the same seeds.
"""
import sys
import time

from conftest import PinocchioBridge, random_q
import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik._accel import available as numba_available
from pdls_ik.errors import ConfigError
from pdls_ik.resources import bundled_urdf
import pytest

needs_numba = pytest.mark.skipif(not numba_available(),
                                 reason='numba not installed (optional accelerator)')
#: generous: the outcome must not depend on the machine's load (tests never time anything)
NO_TIME_LIMIT = 30.0


@pytest.fixture(scope='module')
def panda():
    path = bundled_urdf('panda')
    return load_urdf(path), path.read_text()


def test_backend_values_and_fallback(panda):
    robot, _ = panda
    assert IKSolver(robot, 'panda_link8', backend='numpy').backend == 'numpy'
    auto = IKSolver(robot, 'panda_link8')
    assert auto.backend == ('numba' if numba_available() else 'numpy')
    # joint locks (a second priority level) are compiled too; the PGS strategy is not
    locked = IKSolver(robot, 'panda_link8', locked_joints=['panda_joint1'],
                      locked_positions=[0.0])
    assert locked.backend == auto.backend
    assert IKSolver(robot, 'panda_link8', limit_strategy='pgs').backend == 'numpy'
    with pytest.raises(ConfigError, match='backend'):
        IKSolver(robot, 'panda_link8', backend='fortran')


@needs_numba
def test_forcing_numba_on_an_uncovered_problem_names_the_reason(panda):
    robot, _ = panda
    with pytest.raises(ConfigError, match="pgs.*backend 'auto'"):
        IKSolver(robot, 'panda_link8', backend='numba', limit_strategy='pgs')


@needs_numba
def test_kernel_constants_are_the_pdls_option_defaults():
    from pdls_ik._accel.ik_solver_numba import OPTION_DEFAULTS
    from pdls_ik.pdls import PDLSOptions
    defaults = PDLSOptions()
    for name, value in OPTION_DEFAULTS.items():
        assert getattr(defaults, name) == value, name


@needs_numba
@pytest.mark.parametrize('name, tip, options', [
    ('panda', 'panda_link8', {}),
    ('ur5', 'ee_link', {}),
    ('panda', 'panda_link8', {'position_only': True}),
    ('ur5', 'ee_link', {'damping': 0.001, 'max_step': 0.5}),
    ('panda', 'panda_link8', {'locked_joints': ['panda_joint3', 'panda_finger_joint1'],
                              'locked_positions': [0.3, 0.01]}),
    ('ur5', 'ee_link', {'locked_joints': ['wrist_3_joint'], 'locked_positions': [1.0],
                        'position_only': True}),
])
def test_same_answers_iterations_and_restarts_on_both_backends(name, tip, options):
    """
    Same seeds, same local solves.

    The compiled kernel reproduces the NumPy reference's answers, iteration and restart counts and
    PDLS metrics. The two differ only by rounding (sequential versus scan FK products, Jacobi
    versus LAPACK SVD), which may flip a rare branch of the restart monitor: at most 2 of 40
    problems may differ (both still valid).
    """
    path = bundled_urdf(name)
    robot = load_urdf(path)
    bridge = PinocchioBridge(path.read_text(), robot)
    ref = IKSolver(robot, tip, backend='numpy', timeout=NO_TIME_LIMIT, **options)
    fast = IKSolver(robot, tip, backend='numba', timeout=NO_TIME_LIMIT, **options)
    rng = np.random.default_rng(21)
    same = 0
    for _ in range(40):
        goal_q = random_q(robot, rng)
        for joint, value in zip(options.get('locked_joints', []),
                                options.get('locked_positions', [])):
            goal_q[robot.joint_index(joint)] = value        # a goal the locked robot reaches
        goal = robot.forward_kinematics(goal_q, tip)
        seed = random_q(robot, rng)
        a, b = ref.solve(goal, seed=seed), fast.solve(goal, seed=seed)
        for res in (a, b):
            assert res.success and res.status == 'converged'
            assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
            P = bridge.pose(res.q, tip)
            assert np.linalg.norm(P[:3, 3] - goal[:3, 3]) <= 1e-5
            locks = options.get('locked_joints', [])
            assert res.level_names == (['lock'] if locks else []) + [f'pose:{tip}']
            assert res.residual_norms[-1] < 1e-4
            for joint, value in zip(locks, options.get('locked_positions', [])):
                assert res.q[robot.joint_index(joint)] == value      # held exactly
        if a.iterations == b.iterations and a.restarts == b.restarts:
            same += 1
            np.testing.assert_allclose(b.q, a.q, atol=1e-8)
            np.testing.assert_allclose(b.residual_norms, a.residual_norms, rtol=1e-4,
                                       atol=1e-12)
            assert b.ranks == a.ranks and len(b.lambdas) == len(a.lambdas)
            np.testing.assert_allclose(b.lambdas, a.lambdas, atol=1e-9)
            np.testing.assert_allclose(b.min_singular_values, a.min_singular_values,
                                       rtol=1e-9)
            assert b.position_error == pytest.approx(a.position_error, abs=1e-12)
    assert same >= 38


@needs_numba
def test_unreachable_goal_best_attempt_and_metrics_on_numba(panda):
    robot, _ = panda
    # long enough for restarts whatever the load (the numba backend runs thousands in 0.2 s)
    solver = IKSolver(robot, 'panda_link8', backend='numba', timeout=0.2)
    goal = np.eye(4)
    goal[:3, 3] = (2.0, 0.0, 0.5)
    res = solver.solve(goal)
    assert not res.success and res.status in ('stalled', 'max_iterations', 'max_time')
    assert res.restarts >= 1 and np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
    reach = np.linalg.norm(robot.forward_kinematics(res.q, 'panda_link8')[:3, 3] - goal[:3, 3])
    assert reach == pytest.approx(res.position_error, abs=1e-12)
    assert 0.9 < reach < 1.5    # stretched toward the goal: about 2.06 m away minus the reach
    assert len(res.lambdas) == 1 and res.lambdas[0] > 0.0   # damped: the goal is out of reach
    assert res.ranks[0] >= 1 and res.clamped_joints is not None


def test_restart_seed_table_is_the_generator_stream(panda):
    """
    Both backends restart from the same table.

    The rows of default_rng(random_seed), drawn in blocks, equal the draws made one restart at a
    time.
    """
    robot, _ = panda
    solver = IKSolver(robot, 'panda_link8', backend='numpy', random_seed=5)
    table = solver._restart_seeds(40)
    rng = np.random.default_rng(5)
    idx = solver.chain_variables
    lo = np.where(np.isfinite(robot.lower), robot.lower, -np.pi)[idx]
    hi = np.where(np.isfinite(robot.upper), robot.upper, np.pi)[idx]
    for k in range(40):
        np.testing.assert_array_equal(table[k], rng.uniform(lo, hi))


def test_restart_seed_table_is_bounded_and_reused_cyclically(panda):
    from pdls_ik.ik import MAX_SEEDS
    robot, _ = panda
    solver = IKSolver(robot, 'panda_link8', backend='numpy')
    table = solver._restart_seeds(10 * MAX_SEEDS)
    assert table.shape == (MAX_SEEDS, solver.chain_variables.size)
    base = np.full(robot.n, 0.01)
    q = solver._random_seed(MAX_SEEDS + 3, base)
    np.testing.assert_array_equal(q[solver.chain_variables], table[3])
    assert q[7] == 0.01       # the finger, off the chain, keeps the base value


@needs_numba
def test_kernel_clock_is_perf_counter():
    """The kernels' clock reads time.perf_counter()'s clock (the deadlines are perf_counter's)."""
    import numba
    from pdls_ik._accel.ik_solver_numba import DIRECT_CLOCK, now

    @numba.njit
    def between():
        return now()

    for _ in range(5):
        t0 = time.perf_counter()
        t = between()
        t1 = time.perf_counter()
        assert t0 <= t <= t1
    assert DIRECT_CLOCK == (sys.platform.startswith('linux') and sys.maxsize > 2 ** 32)
