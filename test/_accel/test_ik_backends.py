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
from pdls_ik.model.collision import collision_model
from pdls_ik.resources import bundled_urdf
from pdls_ik.tasks import SelfCollisionTask
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
    # the automatic damping aiming at max_step itself (damping_target_scale 1): the last step of
    # the arm stretched toward a goal out of reach is damped
    solver = IKSolver(robot, 'panda_link8', backend='numba', timeout=0.2,
                      damping_target_scale=1.0)
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
    table = solver._seed_table.rows(40)
    rng = np.random.default_rng(5)
    idx = solver.chain_variables
    lo = np.where(np.isfinite(robot.lower), robot.lower, -np.pi)[idx]
    hi = np.where(np.isfinite(robot.upper), robot.upper, np.pi)[idx]
    for k in range(40):
        np.testing.assert_array_equal(table[k], rng.uniform(lo, hi))


def test_restart_monitor_judges_sooner_while_a_joint_is_at_a_limit(panda):
    """
    The restart monitor's window at a limit (RESTART_MONITOR) applies only at such an iterate.

    Constant residuals: stuck after RESTART_WINDOW + 1 iterates, or RESTART_LIMIT_WINDOW + 1
    when a moved joint is at a limit; a locked joint at a limit does not count, nor does any
    joint while the locks are not held.
    """
    from pdls_ik.ik.restarts import RESTART_LIMIT_WINDOW, RESTART_MONITOR, RESTART_WINDOW
    robot, _ = panda
    tip = 'panda_link8'
    goal = robot.forward_kinematics(np.zeros(robot.n), tip)

    def iterates_until_stuck(solver, theta):
        problem = solver._problem
        solver.frame.set_target(goal)
        problem.start(*RESTART_MONITOR)
        levels = problem.levels(theta)
        for k in range(1, 20):
            if problem.converged(theta, levels):
                assert problem.stuck
                return k
        return None

    free = IKSolver(robot, tip, backend='numpy')
    middle = (robot.lower + robot.upper) / 2.0
    at_limit = middle.copy()
    at_limit[3] = robot.upper[3]
    assert iterates_until_stuck(free, middle) == RESTART_WINDOW + 1
    assert iterates_until_stuck(free, at_limit) == RESTART_LIMIT_WINDOW + 1
    locked = IKSolver(robot, tip, backend='numpy', locked_joints=['panda_joint4'],
                      locked_positions=[float(robot.upper[3])])
    assert iterates_until_stuck(locked, at_limit) == RESTART_WINDOW + 1      # locked: no
    unheld = IKSolver(robot, tip, backend='numpy', locked_joints=['panda_joint1'],
                      locked_positions=[0.5])
    assert iterates_until_stuck(unheld, at_limit) == RESTART_WINDOW + 1      # lock unmet


def test_restart_seed_table_is_bounded_and_reused_cyclically(panda):
    from pdls_ik.ik import MAX_SEEDS
    robot, _ = panda
    solver = IKSolver(robot, 'panda_link8', backend='numpy')
    table = solver._seed_table.rows(10 * MAX_SEEDS)
    assert table.shape == (MAX_SEEDS, solver.chain_variables.size)
    base = np.full(robot.n, 0.01)
    q = solver._seed_table.seed(MAX_SEEDS + 3, base)
    np.testing.assert_array_equal(q[solver.chain_variables], table[3])
    assert q[7] == 0.01       # the finger, off the chain, keeps the base value


def test_restarts_try_the_ranked_seeds_nearest_tip_first(panda):
    """The first RANKED_SEEDS restarts take the table's first rows, nearest tip first."""
    from pdls_ik.ik.restarts import RANKED_SEEDS
    robot, text = panda
    bridge = PinocchioBridge(text, robot)
    solver = IKSolver(robot, 'panda_link8', backend='numpy')
    table, base = solver._seed_table, solver._default_start
    tips = solver._seed_tips
    assert tips.shape == (RANKED_SEEDS, 3, 4)
    for k in (0, 17, RANKED_SEEDS - 1):
        np.testing.assert_allclose(tips[k], bridge.pose(table.seed(k, base), 'panda_link8')[:3],
                                   atol=1e-12)
    goal = bridge.pose(random_q(robot, np.random.default_rng(4)), 'panda_link8')
    solver.frame.set_target(goal)
    order = solver._seed_order()
    assert sorted(order.tolist()) == list(range(RANKED_SEEDS))
    # the squared pose residual for small errors: ‖Δp‖² + 2 (1 − cos θ)
    distance = np.array([np.sum((t[:, 3] - goal[:3, 3]) ** 2) + 3.0
                         - np.trace(t[:, :3].T @ goal[:3, :3]) for t in tips])
    assert np.all(np.diff(distance[order]) >= -1e-12)
    assert distance[order[0]] < np.median(distance) / 4
    idx = solver.chain_variables
    np.testing.assert_array_equal(table.seed(0, base, order)[idx], table.rows(1)[order[0]])
    k = RANKED_SEEDS + 2                # past the ranked rows: table order
    np.testing.assert_array_equal(table.seed(k, base, order)[idx], table.rows(k + 1)[k])
    ranked = table.rows(2 * RANKED_SEEDS, order)
    np.testing.assert_array_equal(ranked[:RANKED_SEEDS], table.rows(1)[order])
    np.testing.assert_array_equal(ranked[RANKED_SEEDS:], table.rows(1)[RANKED_SEEDS:])


@needs_numba
def test_kernel_ranks_restart_seeds_as_seed_order():
    from pdls_ik._accel.ik_solver_numba import seed_order_into
    from pdls_ik.ik.restarts import seed_order
    from scipy.spatial.transform import Rotation
    rng = np.random.default_rng(3)
    tips = np.concatenate([Rotation.random(40, random_state=rng).as_matrix(),
                           rng.normal(size=(40, 3, 1))], axis=2)
    tips[9] = tips[5]                   # a tie keeps table order
    goal = np.eye(4)
    goal[:3, :3], goal[:3, 3] = Rotation.random(random_state=rng).as_matrix(), rng.normal(size=3)
    keys, order = np.empty(40), np.empty(40, dtype=np.int64)
    for rows in (6, 3):
        seed_order_into(tips, goal, 2.0, 0.3, rows, keys, order)
        np.testing.assert_array_equal(order, seed_order(tips, goal, 2.0, 0.3, rows == 3))
        assert order.tolist().index(5) == order.tolist().index(9) - 1


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


@needs_numba
def test_goal_and_seed_taken_by_the_kernel_as_the_parsers_take_them(panda):
    """
    The numba backend checks a (4, 4) goal and the seed inside its kernel.

    Anything else (other forms, errors, repairs) goes through parse_pose and _check_q: the same
    answer bit for bit whatever the form, the same notes and errors as the NumPy backend (the
    goal's first), and the FrameTask holds the goal for errors() and the NumPy code.
    """
    from scipy.spatial.transform import Rotation
    from pdls_ik.errors import InputError
    robot, _ = panda
    tip = 'panda_link8'
    fast = IKSolver(robot, tip, backend='numba', timeout=NO_TIME_LIMIT)
    ref = IKSolver(robot, tip, backend='numpy', timeout=NO_TIME_LIMIT)
    rng = np.random.default_rng(3)
    goal = robot.forward_kinematics(random_q(robot, rng), tip)
    seed = random_q(robot, rng)
    first = fast.solve(goal, seed=seed)
    assert first.success and first.notes == [] and fast.frame.notes == []
    np.testing.assert_array_equal(fast.frame.target_pose, goal)
    assert fast.frame.target_position.base is fast.frame.target_pose     # views, set in place
    readonly = goal.copy()
    readonly.flags.writeable = False
    quat = (goal[:3, 3], Rotation.from_matrix(goal[:3, :3]).as_quat())
    for form, seed_form in ((goal.tolist(), list(seed)), (np.asfortranarray(goal), tuple(seed)),
                            (readonly, np.repeat(seed, 2)[::2])):
        res = fast.solve(form, seed=seed_form)
        assert res.q.tobytes() == first.q.tobytes() and res.iterations == first.iterations
        assert res.residual_norms == first.residual_norms and res.notes == []
    from pdls_ik._accel.ik_solver_numba import solve_restarts
    assert len(solve_restarts.signatures) == 1    # read-only arrays too: no compilation anew
    assert fast._kernel._run is not solve_restarts    # called by its compiled entry point
    res = fast.solve(quat, seed=seed)
    assert res.success and np.abs(fast.frame.target_pose - goal).max() < 1e-12
    assert fast.errors(first.q) == pytest.approx((first.position_error,
                                                  first.orientation_error), abs=1e-12)
    outside = seed.copy()
    outside[0] = 10.0                        # clamped into the limits, noted
    skewed = goal.copy()
    skewed[:3, :3] *= 1.0 + 1e-6             # re-orthonormalized, noted
    for g, s in ((goal, outside), (skewed, seed), (skewed, outside)):
        a, b = ref.solve(g, seed=s), fast.solve(g, seed=s)
        assert a.notes == b.notes and len(b.notes) == (g is skewed) + (s is outside)
        assert fast.frame.notes == ref.frame.notes
        np.testing.assert_array_equal(fast.frame.target_pose, ref.frame.target_pose)
    fast.solve(goal, seed=seed)
    assert fast.frame.notes == []             # taken by the kernel: no repair
    nan_goal, nan_seed = np.full((4, 4), np.nan), np.full(robot.n, np.nan)
    for g, s, field in ((nan_goal, seed, 'pose'), (goal, nan_seed, 'panda_joint1'),
                        (nan_goal, nan_seed, 'pose'), (goal, np.zeros(robot.n + 1), 'seed'),
                        (np.eye(3), seed, 'shape'), (goal[:, :3], seed, 'shape'),
                        ((np.zeros(3), np.zeros(4)), seed, 'zero quaternion')):
        before = fast.frame.target_pose.copy()
        with pytest.raises(InputError, match=field) as a:
            ref.solve(g, seed=s)
        with pytest.raises(InputError, match=field) as b:
            fast.solve(g, seed=s)
        assert str(a.value) == str(b.value)
        if g is not goal:
            np.testing.assert_array_equal(fast.frame.target_pose, before)    # left as it was


@needs_numba
def test_kernel_result_is_finish_s_and_at_a_limit_names_the_joint(panda):
    """
    The pose kernel's answer strictly inside the limits skips IKSolver._finish: the same result.

    The kernel tests the place of its answer against _finish's bounds (M_INSIDE); an answer at
    a limit goes through _finish, which names the joint (clamped_joints) as the NumPy backend
    does.
    """
    import dataclasses
    robot, _ = panda
    tip = 'panda_link8'
    fast = IKSolver(robot, tip, backend='numba', timeout=NO_TIME_LIMIT)
    ref = IKSolver(robot, tip, backend='numpy', timeout=NO_TIME_LIMIT)
    rng = np.random.default_rng(8)
    inside = 0
    for _ in range(20):
        goal = robot.forward_kinematics(random_q(robot, rng), tip)
        res = fast.solve(goal, seed=random_q(robot, rng))
        assert res.success
        inside += res.clamped_joints == []
        again = fast._finish(res.q, res.status, (res.residual_norms, res.lambdas, res.ranks,
                                                 res.min_singular_values), res.iterations,
                             res.restarts, 0.0, [], wrapped=True)
        mine, theirs = dataclasses.asdict(res), dataclasses.asdict(again)
        for d in (mine, theirs):
            del d['solve_time'], d['q']
        assert mine == theirs
        assert again.q.tobytes() == res.q.tobytes()
    assert inside >= 15
    at_limit = random_q(robot, rng)
    at_limit[3] = robot.upper[3]                       # panda_joint4 at its upper limit
    goal = robot.forward_kinematics(at_limit, tip)
    a, b = ref.solve(goal, seed=at_limit), fast.solve(goal, seed=at_limit)
    assert a.success and b.success and b.iterations == 0
    assert a.clamped_joints == b.clamped_joints == [robot.joint_names[3]]
    assert b.q.tobytes() == at_limit.tobytes()


@needs_numba
def test_kernel_wraps_a_seed_as_check_q_does(tmp_path):
    """The kernel's seed check gives _check_q's start bit for bit (continuous joints wrapped)."""
    import re
    from pdls_ik.ik.restarts import CHECK_SEED, USE_START
    text = bundled_urdf('ur5').read_text()
    for joint in ('shoulder_pan_joint', 'wrist_3_joint'):
        text = re.sub(f'(<joint name="{joint}" type=")revolute"', r'\1continuous"', text)
    path = tmp_path / 'ur5_continuous.urdf'
    path.write_text(text)
    robot = load_urdf(path)
    assert robot.continuous.sum() == 2
    solver = IKSolver(robot, 'ee_link', backend='numba', random_restarts=False)
    solver.warm_up()
    kernel = solver._kernel
    goal = robot.forward_kinematics(np.zeros(robot.n), 'ee_link')
    rng = np.random.default_rng(4)
    q = np.empty(robot.n)
    for k in range(200):
        seed = random_q(robot, rng) + np.where(robot.continuous, rng.uniform(-40, 40), 0.0)
        seed[robot.continuous] += (0.0, np.pi, -np.pi, 3 * np.pi)[k % 4]
        status = kernel.solve(goal, seed, 0, np.zeros((1, 6)), 0.0, 0, USE_START | CHECK_SEED,
                              q)[0]
        assert isinstance(status, str)
        assert kernel.start.tobytes() == solver._check_q(seed, 'seed', []).tobytes()
    # the answer's continuous joints in [-π, π) as the kernel placed them (IKSolver._finish
    # does not wrap them again), with restarts too
    solver = IKSolver(robot, 'ee_link', backend='numba', timeout=NO_TIME_LIMIT)
    cont = robot.continuous
    for k in range(40):
        goal_q = random_q(robot, rng) + np.where(cont, rng.uniform(-40, 40), 0.0)
        goal = robot.forward_kinematics(goal_q, 'ee_link')
        res = solver.solve(goal, seed=random_q(robot, rng) + np.where(cont, 7.0, 0.0))
        assert res.success
        assert np.all(-np.pi <= res.q[cont]) and np.all(res.q[cont] < np.pi)


@needs_numba
def test_kernel_state_loads_from_numba_s_cache_in_a_new_process(panda):
    """A second process loads the pose kernel and its state from the cache: nothing compiled."""
    import subprocess
    import sys
    IKSolver(panda[0], 'panda_link8', backend='numba').warm_up()
    code = ('from pdls_ik import IKSolver, load_urdf\n'
            'from pdls_ik.resources import bundled_urdf\n'
            'from pdls_ik._accel import ik_solver_numba as k\n'
            "s = IKSolver(load_urdf(bundled_urdf('panda')), 'panda_link8', backend='numba')\n"
            'assert s.kernels_compiled\n'
            's.warm_up()\n'
            'print(sum(sum(f.stats.cache_misses.values()) for f in (k.solve_restarts, '
            'k.pose_state, k.restart_work, k.pose_errors)), '
            'sum(sum(f.stats.cache_hits.values()) for f in (k.solve_restarts, k.pose_state)))\n')
    proc = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ['0', '2']


#: a Panda position goal at the seed's own flange, panda_joint7 (which turns the flange about its
#: axis: it does not move panda_link8's origin) locked 5.6 rad from the seed, steps of at most
#: 0.2 rad and 15 iterations per local solve: the first attempt cannot reach its lock (abandoned
#: at max_iterations, at the goal), a later one from a restart seed nearer the lock converges
LOCK_RANKING = {'position_only': True, 'max_step': 0.2, 'max_iterations': 15,
                'position_tolerance': 1e-3, 'locked_joints': ['panda_joint7'],
                'locked_positions': [2.8], 'timeout': NO_TIME_LIMIT}
LOCK_SEED = np.array([0.3, -0.4, 0.2, -2.0, 0.3, 1.8, -2.8, 0.0])


def _lock_ranking_solves(robot, backend, collision):
    """
    Return (the first attempt alone, the solve with restarts) of LOCK_RANKING on backend.

    collision: with the self-collision level (the kernel of pose_problem_numba when compiled).
    """
    goal = robot.forward_kinematics(LOCK_SEED, 'panda_link8')
    extra = [SelfCollisionTask(robot, collision_model(robot), d_min=0.01)] if collision else []
    alone = IKSolver(robot, 'panda_link8', backend=backend, random_restarts=False,
                     extra_tasks=extra, **LOCK_RANKING)
    solver = IKSolver(robot, 'panda_link8', backend=backend, extra_tasks=extra, **LOCK_RANKING)
    return alone.solve(goal, seed=LOCK_SEED), solver.solve(goal, seed=LOCK_SEED)


@pytest.mark.parametrize('collision', [False, True])
@pytest.mark.parametrize('backend', ['numpy', pytest.param('numba', marks=needs_numba)])
def test_attempts_holding_their_locks_rank_first(panda, backend, collision):
    """An attempt that holds its locks beats one nearer the goal that does not."""
    robot, _ = panda
    j7 = robot.joint_index('panda_joint7')
    first, res = _lock_ranking_solves(robot, backend, collision)
    # the first attempt: at the goal, its lock not held
    assert not first.success and first.status == 'max_iterations'
    assert first.position_error < 1e-9 and abs(first.q[j7] - 2.8) > 1.0
    # a later attempt converged: returned, although its position error is the larger
    assert res.success and res.status == 'converged' and res.restarts >= 1
    assert res.q[j7] == 2.8
    assert first.position_error < res.position_error <= 1e-3


@needs_numba
@pytest.mark.parametrize('collision', [False, True])
def test_lock_ranking_same_answer_on_both_backends(panda, collision):
    """
    The same attempt is returned: same restarts, same q.

    (The iteration counts may differ: the pose kernel's restart monitor also runs while the pose
    is met and the locks are not, the NumPy reference's does not.)
    """
    robot, _ = panda
    (_, a), (_, b) = (_lock_ranking_solves(robot, backend, collision)
                      for backend in ('numpy', 'numba'))
    assert a.success and b.success and a.restarts == b.restarts
    np.testing.assert_allclose(b.q, a.q, atol=1e-8)
