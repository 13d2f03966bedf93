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
The two implementations of IKSolver.track agree, cycle by cycle.

The compiled cycle (pdls_ik._accel.track_problem_numba) gives the NumPy reference's cycles: the
same q, status, iterations and per-level metrics.
"""
import math

import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik._accel import available as numba_available
from pdls_ik.cli.demo_path import default_path
from pdls_ik.resources import bundled_urdf
import pytest

pytestmark = pytest.mark.skipif(not numba_available(),
                                reason='numba not installed (optional accelerator)')
DT = 0.001
#: generous: the outcome must not depend on the machine's load (tests never time anything)
NO_TIME_LIMIT = 30.0

WRIST_URDF = """<robot name="w">
  <link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-2.5" upper="2.5" effort="1" velocity="2"/></joint>
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 1 0"/>
    <origin xyz="0 0 0.3"/><limit lower="-2" upper="2" effort="1" velocity="2"/></joint>
  <joint name="j3" type="prismatic"><parent link="c"/><child link="d"/><axis xyz="1 0 0"/>
    <origin xyz="0.2 0 0"/><limit lower="-0.1" upper="0.3" effort="1" velocity="0.5"/></joint>
  <joint name="w" type="continuous"><parent link="d"/><child link="e"/><axis xyz="1 0 0"/>
    <origin xyz="0.1 0 0"/><limit effort="1" velocity="3"/></joint>
</robot>"""


def _pair(robot, tip, **options):
    options = {'tracking_timeout': 10.0, **options}      # the largest: never reached
    compiled = IKSolver(robot, tip, **options)
    reference = IKSolver(robot, tip, backend='numpy', **options)
    assert compiled.backend == 'numba' and reference.backend == 'numpy'
    return compiled, reference


def _same_cycle(compiled, reference, target, q, dt=DT):
    """Run one cycle on both backends from q; assert they agree; return the reference's."""
    a, b = compiled.track(target, q, dt), reference.track(target, q, dt)
    np.testing.assert_allclose(a.q, b.q, rtol=0.0, atol=1e-10)
    assert (a.status, a.iterations, a.success) == (b.status, b.iterations, b.success)
    assert a.clamped_joints == b.clamped_joints and a.notes == b.notes
    assert a.level_names == b.level_names and a.ranks == b.ranks
    for got, want in ((a.residual_norms, b.residual_norms), (a.lambdas, b.lambdas),
                      (a.min_singular_values, b.min_singular_values)):
        assert len(got) == len(want)
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose([a.position_error, a.orientation_error],
                               [b.position_error, b.orientation_error], rtol=1e-7, atol=1e-10)
    return b


def _follow(compiled, reference, goals, q, dt=DT):
    """Track the goals (each a pose) from q; every cycle compared; returns the statuses seen."""
    statuses = set()
    for target in goals:
        res = _same_cycle(compiled, reference, target, q, dt)
        statuses.add(res.status)
        q = res.q
    return statuses, q


@pytest.fixture(scope='module')
def panda():
    return load_urdf(bundled_urdf('panda'))


@pytest.fixture(scope='module')
def ur5():
    return load_urdf(bundled_urdf('ur5'))


def test_figure_eight_with_a_lock_and_the_posture(panda):
    """The demo path: lock (finger) > pose > posture, cycle by cycle."""
    compiled, reference = _pair(panda, 'panda_link8', locked_joints=['panda_finger_joint1'],
                                locked_positions=[0.02])
    path, home = default_path(panda, 'panda_link8', compiled.base_link, robot_name='panda')
    q = home.copy()
    q[7] = 0.02
    goals = [path.pose(k * DT) for k in range(1, 601)]
    statuses, _ = _follow(compiled, reference, goals, q)
    assert statuses == {'converged'}


def test_wrist_singularity_and_joint_limits_of_the_ur5(ur5):
    """q5 through 0 (joints 4 and 6 align), then goals pushing the elbow onto its limit."""
    compiled, reference = _pair(ur5, 'ee_link')
    home = np.array([0.0, -1.2, 1.5, -1.0, 0.4, 0.3])
    goals = []
    for k in range(1, 401):
        q = home.copy()
        q[4] = 0.4 * math.cos(2.0 * math.pi * k * DT / 0.4)
        goals.append(ur5.forward_kinematics(q, 'ee_link', compiled.base_link))
    _follow(compiled, reference, goals, home)
    # the elbow 1 mrad below its upper limit (π): goals beyond it clamp the elbow
    edge = np.array([0.2, -1.0, math.pi - 1e-3, -1.0, 0.5, 0.2])
    beyond = edge.copy()
    beyond[2] = math.pi + 0.05
    target = ur5.forward_kinematics(beyond, 'ee_link', compiled.base_link)
    statuses, q = _follow(compiled, reference, [target] * 30, edge)
    assert q[2] == ur5.upper[2]
    assert statuses - {'converged'}, 'the unreachable side must show a non-converged cycle'


def test_a_lock_on_a_chain_joint_that_must_move(panda):
    """Joint 3 locked 0.2 rad away: the lock level moves it at its velocity bound each cycle."""
    compiled, reference = _pair(panda, 'panda_link8', locked_joints=['panda_joint3'],
                                locked_positions=[0.2])
    q = compiled._middle.copy()
    rng = np.random.default_rng(3)
    goals = []
    for k in range(200):
        qk = q.copy()
        qk[:7] += 0.02 * np.sin(0.05 * k + np.arange(7))
        goals.append(panda.forward_kinematics(qk, 'panda_link8', compiled.base_link))
    goals += [panda.forward_kinematics(q + rng.normal(0.0, 1e-3, q.size) * (np.arange(8) < 7),
                                       'panda_link8', compiled.base_link) for _ in range(50)]
    statuses, q_end = _follow(compiled, reference, goals, q)
    assert abs(q_end[2] - 0.2) <= 1e-9        # the lock is held once reached


@pytest.mark.parametrize('options', [
    {'position_only': True},
    {'posture_enabled': False},
    {'damping': 0.05},
    {'velocity_scaling': 0.2},
], ids=lambda o: next(iter(o)))
def test_options_of_the_cycle(panda, options):
    compiled, reference = _pair(panda, 'panda_link8', **options)
    path, home = default_path(panda, 'panda_link8', compiled.base_link, robot_name='panda')
    goals = [path.pose(k * DT) for k in range(1, 201)]
    _follow(compiled, reference, goals, home)


def test_a_damped_lock_a_little_away_is_reached_within_the_box(panda):
    """Fixed damping on both levels: the lock step w ê / (w² + λ²) and the pose step after it."""
    path, home = default_path(panda, 'panda_link8', 'panda_link0', robot_name='panda')
    compiled, reference = _pair(panda, 'panda_link8', damping=0.05,
                                locked_joints=['panda_joint3'],
                                locked_positions=[home[2] + 0.001])
    goals = [path.pose(k * DT) for k in range(1, 101)]
    res = compiled.track(goals[0], home, DT)
    assert res.lambdas == [0.05, 0.05] and res.ranks[0] == 1
    statuses, q = _follow(compiled, reference, goals, home)
    assert abs(q[2] - (home[2] + 0.001)) <= 1e-9


def test_far_goals_are_approached_through_the_same_waypoints(panda):
    """A reachable goal far beyond a cycle's velocity box: waypoint cycles, then the goal."""
    compiled, reference = _pair(panda, 'panda_link8')
    q = compiled._middle.copy()
    far = q + np.array([0.5, 0.3, -0.4, 0.4, 0.3, 0.3, 0.4, 0.0])
    T = panda.forward_kinematics(far, 'panda_link8', compiled.base_link)
    statuses, q_end = _follow(compiled, reference, [T] * 100, q, dt=0.01)
    assert statuses == {'not_converged', 'converged'}    # waypoints on the way, then the goal


def test_time_budget_stops_after_the_minimum_iterations(panda):
    """A spent budget (1 ns) stops both backends after the same minimum of iterations."""
    compiled, reference = _pair(panda, 'panda_link8', tracking_timeout=1e-9)
    q = compiled._middle.copy()
    qk = q.copy()
    qk[:7] += 0.05                           # within the box (dt 0.1 s), 3 iterations away
    T = panda.forward_kinematics(qk, 'panda_link8', compiled.base_link)
    res = _same_cycle(compiled, reference, T, q, dt=0.1)
    assert res.status == 'max_time' and res.iterations == 2


def test_continuous_joint_posture_and_prismatic_joint():
    """A continuous wrist (posture the short way round) and a prismatic joint."""
    robot = load_urdf(WRIST_URDF)
    compiled, reference = _pair(robot, 'e', position_only=False, orientation_tolerance=1e-4)
    q = np.array([0.3, -0.4, 0.1, 3.0])        # the wrist near +π: its posture goes through π
    goals = []
    for k in range(1, 201):
        qk = q + 0.01 * np.sin(0.03 * k) * np.array([1.0, 0.5, 0.2, 1.0])
        goals.append(robot.forward_kinematics(qk, 'e'))
    _follow(compiled, reference, goals, q)


def test_mimic_joint_on_the_path_of_a_branching_robot():
    """Bimanual robot, tip on a finger that mimics its twin (multiplier −1), torso shared."""
    robot = load_urdf(bundled_urdf('bimanual'))
    compiled, reference = _pair(robot, 'l_finger_b', position_only=True)
    q = compiled._middle.copy()
    goals = []
    for k in range(1, 201):
        qk = q + 0.05 * np.sin(0.02 * k + np.arange(q.size))
        goals.append(robot.forward_kinematics(qk, 'l_finger_b', compiled.base_link))
    statuses, _ = _follow(compiled, reference, goals, q)
    assert 'converged' in statuses


def test_box_step_constants_are_the_pdls_option_defaults():
    from pdls_ik._accel.track_problem_numba import PGS_LEVEL_WEIGHT, PGS_MAX_ITERATIONS, PGS_TOL
    from pdls_ik.pdls import PDLSOptions
    defaults = PDLSOptions()
    assert (defaults.pgs_level_weight, defaults.pgs_max_iterations, defaults.pgs_tol) == \
        (PGS_LEVEL_WEIGHT, PGS_MAX_ITERATIONS, PGS_TOL)


def test_goal_and_state_taken_by_the_kernel_as_the_parsers_take_them(panda):
    """
    The compiled cycle checks a (position, quaternion) goal and q_current inside its kernel.

    The target it builds is parse_pose's bit for bit; anything else (a 4 × 4 goal, errors,
    repairs) goes through parse_pose and _check_q: the same cycles, notes and errors as the
    NumPy backend (the goal's first).
    """
    from pdls_ik.errors import InputError
    from pdls_ik.lie.se3 import parse_pose
    from scipy.spatial.transform import Rotation
    compiled, reference = _pair(panda, 'panda_link8')
    rng = np.random.default_rng(8)
    for _ in range(50):
        q = np.clip(rng.uniform(panda.lower, panda.upper), -2.5, 2.5)
        quat = Rotation.random(random_state=rng).as_quat() * (1.0 + rng.uniform(-5e-10, 5e-10))
        goal = (rng.uniform(-0.5, 0.5, 3), quat)
        res = _same_cycle(compiled, reference, goal, q)
        assert res.notes == [] and compiled.frame.notes == []
        p, R, _ = parse_pose(goal)
        # parse_pose's matrix is SciPy's: SciPy 1.11 (Ubuntu 24.04) rounds the last bit of a
        # few entries otherwise than the kernel's products and newer SciPy
        assert np.allclose(compiled.frame.target_pose[:3, :3], R, rtol=0.0, atol=1e-15)
        assert compiled.frame.target_pose[:3, 3].tobytes() == p.tobytes()
        assert compiled.frame.target_pose[3].tolist() == [0.0, 0.0, 0.0, 1.0]
    compiled._set_goal = compiled._check_q = None     # never called: the kernel took both
    assert compiled.track(goal, q, DT).q.tobytes() == res.q.tobytes()
    readonly = goal[1].copy()
    readonly.flags.writeable = False
    T = np.eye(4)
    T[:3, 3] = goal[0]
    strided = (T[:3, 3], readonly)                # strided, read-only: copied, not compiled for
    assert compiled.track(strided, np.repeat(q, 2)[::2], DT).q.tobytes() == res.q.tobytes()
    del compiled._set_goal, compiled._check_q
    from pdls_ik._accel.track_problem_numba import track_state_cycle
    assert len(track_state_cycle.signatures) == 1
    T = compiled.frame.target_pose.copy()
    as_matrix = compiled.track(T, q, DT)          # a 4 × 4 goal: parsed in Python
    assert np.allclose(as_matrix.q, compiled.track(goal, q, DT).q, rtol=0.0, atol=1e-12)
    outside = q.copy()
    outside[0] = 10.0                              # clamped into the limits, noted
    long_quat = (goal[0], 2.0 * goal[1])           # normalized, noted
    for g, s in ((goal, outside), (long_quat, q), (long_quat, outside),
                 ((list(goal[0]), tuple(goal[1])), list(q))):
        a = _same_cycle(compiled, reference, g, s)
        assert len(a.notes) == (g is long_quat) + (s is outside)
        assert compiled.frame.notes == reference.frame.notes
    nan_goal, nan_q = (np.full(3, np.nan), goal[1]), np.full(panda.n, np.nan)
    for g, s, field in ((nan_goal, q, 'position'), (goal, nan_q, 'panda_joint1'),
                        (nan_goal, nan_q, 'position'), (goal, np.zeros(panda.n + 1), 'q_current'),
                        ((np.zeros(3), np.zeros(4)), q, 'zero quaternion'),
                        ((np.zeros(2), goal[1]), q, 'position needs 3')):
        before = compiled.frame.target_pose.copy()
        with pytest.raises(InputError, match=field) as a:
            reference.track(g, s, DT)
        with pytest.raises(InputError, match=field) as b:
            compiled.track(g, s, DT)
        assert str(a.value) == str(b.value)
        if g is not goal:
            np.testing.assert_array_equal(compiled.frame.target_pose, before)  # left as it was
