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
The compiled self-collision level gives the NumPy reference's answers, one-shot and tracking.

IKSolver with a SelfCollisionTask runs compiled (pdls_ik._accel.pose_problem_numba,
track_collision_numba); the NumPy backend is the reference: the same q (1e-10), status,
iterations and restarts on Panda goals against the robot's own links, with joint locks and
full poses, and the same tracking cycles along a goal path pushed through the body. Every
success keeps every checked pair at ≥ d_min, checked independently (Pinocchio's link poses,
coal's capsule distances).
"""
from conftest import PinocchioBridge, REPO
import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik._accel import available as numba_available
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError
from pdls_ik.model.collision import Capsule, collision_model, CollisionModel
from pdls_ik.tasks import PositionBoundTask, SelfCollisionTask
from pdls_ik.tasks.self_collision_task import damper_gain, TRACKING_MARGIN
import pytest

pytestmark = pytest.mark.skipif(not numba_available(),
                                reason='numba not installed (optional accelerator)')
TIP, D_MIN = 'panda_link8', 0.01
Q0 = np.array([0.0, -0.4, 0.0, -2.2, 0.0, 1.9, 0.8, 0.02])
#: hand goals 2–6 cm from a capsule of links 0–4 at random configurations, reachable without
#: contact (the collision level is active in most of these solves: d_min is met on the margin)
AGAINST = [(-0.056, -0.274, 0.303), (-0.138, -0.013, 0.352), (0.046, 0.12, 0.269),
           (0.02, -0.174, 0.353), (0.087, 0.006, 0.511), (-0.211, 0.401, 0.298)]
#: a hand goal inside the base's capsules: never reached without contact
BASE = (0.05, 0.0, 0.08)
#: generous: the outcome must not depend on the machine's load (tests never time anything)
NO_TIME_LIMIT = 30.0


@pytest.fixture(scope='module')
def panda():
    robot = load_urdf(REPO / 'urdf' / 'panda.urdf')
    return robot, collision_model(robot)


@pytest.fixture(scope='module')
def coal_check(panda):
    """Smallest capsule distance over the checked pairs by coal on Pinocchio's link poses."""
    coal = pytest.importorskip('coal')
    robot, model = panda
    bridge = PinocchioBridge((REPO / 'urdf' / 'panda.urdf').read_text(), robot)

    def shape(T, cap):
        a, b = T[:3, :3] @ cap.a + T[:3, 3], T[:3, :3] @ cap.b + T[:3, 3]
        length = float(np.linalg.norm(b - a))
        if length < 1e-15:
            return coal.Sphere(cap.radius), coal.Transform3s(np.eye(3), a)
        z = (b - a) / length
        x = np.cross(z, [1.0, 0, 0] if abs(z[0]) < 0.9 else [0, 1.0, 0])
        x /= np.linalg.norm(x)
        return coal.Capsule(cap.radius, length), coal.Transform3s(
            np.column_stack((x, np.cross(z, x), z)), 0.5 * (a + b))

    def smallest(q):
        poses = {link: bridge.pose(q, link) for link in model.links}
        best = np.inf
        for la, lb in model.pairs:
            for c1 in (c for c in model.capsules if c.link == la):
                for c2 in (c for c in model.capsules if c.link == lb):
                    s1, t1 = shape(poses[la], c1)
                    s2, t2 = shape(poses[lb], c2)
                    best = min(best, coal.distance(s1, t1, s2, t2, coal.DistanceRequest(),
                                                   coal.DistanceResult()))
        return best
    return smallest


def _pair(robot, task, **options):
    compiled = IKSolver(robot, TIP, config=IKConfig(**options), extra_tasks=[task])
    reference = IKSolver(robot, TIP, config=IKConfig(backend='numpy', **options),
                         extra_tasks=[task])
    assert compiled.backend == 'numba' and reference.backend == 'numpy'
    return compiled, reference


def _same(a, b):
    np.testing.assert_allclose(a.q, b.q, rtol=0.0, atol=1e-10)
    assert (a.success, a.status, a.iterations, a.restarts) == \
        (b.success, b.status, b.iterations, b.restarts)
    assert a.level_names == b.level_names
    np.testing.assert_allclose(a.residual_norms, b.residual_norms, rtol=1e-6, atol=1e-9)
    assert a.ranks == b.ranks
    assert a.task_errors.keys() == b.task_errors.keys()
    for name, err in a.task_errors.items():
        assert err == pytest.approx(b.task_errors[name], abs=1e-10)


@pytest.mark.parametrize('options, goals', [
    ({'position_only': True}, AGAINST),
    ({'position_only': True, 'locked_joints': ['panda_joint3'], 'locked_positions': [0.3]},
     AGAINST[:2] + AGAINST[3:]),        # the third is out of reach with that lock
])
def test_one_shot_same_answers_on_goals_against_the_body(panda, coal_check, options, goals):
    robot, model = panda
    task = SelfCollisionTask(robot, model, d_min=D_MIN)
    compiled, reference = _pair(robot, task, timeout=NO_TIME_LIMIT, **options)
    restarted = on_margin = 0
    for goal in goals:
        a = compiled.solve((goal, (0, 0, 0, 1)), seed=Q0)
        b = reference.solve((goal, (0, 0, 0, 1)), seed=Q0)
        _same(a, b)
        assert a.success and a.position_error < 1e-4
        assert coal_check(a.q) >= D_MIN - 1e-6          # independent: Pinocchio and coal
        restarted += a.restarts > 0
        on_margin += model.distances(a.q).distance.min() < D_MIN + 5e-3
    assert restarted and on_margin      # restarts and the level near its bound exercised


def test_one_shot_full_pose_and_a_colliding_goal(panda, coal_check):
    robot, model = panda
    task = SelfCollisionTask(robot, model, d_min=D_MIN)
    compiled, reference = _pair(robot, task, timeout=NO_TIME_LIMIT)
    for dq in (0.2, -0.3):
        goal = robot.forward_kinematics(Q0 + dq, TIP)
        a, b = compiled.solve(goal, seed=Q0), reference.solve(goal, seed=Q0)
        _same(a, b)
        assert a.success and coal_check(a.q) >= D_MIN - 1e-6
    # inside the base: never a success; restarts go on, the best attempt keeps the links apart
    short = IKSolver(robot, TIP, config=IKConfig(position_only=True, timeout=0.05),
                     extra_tasks=[task])
    res = short.solve((BASE, (0, 0, 0, 1)), seed=Q0)
    assert not res.success and res.restarts > 0
    assert model.distances(res.q).distance.min() >= D_MIN - 1e-6
    assert res.task_errors == {'self_collision': pytest.approx(0.0, abs=1e-6)}


@pytest.mark.parametrize('position_only, margin',
                         [(True, 0.0), (False, 0.0), (True, TRACKING_MARGIN)])
def test_tracking_cycles_agree_along_a_path_pushed_through_the_body(panda, position_only,
                                                                    margin):
    robot, model = panda
    dt = 0.01
    # margin: the rows of the CLI's tracking, held above d_min (met at d_min)
    task = SelfCollisionTask(robot, model, d_min=D_MIN, margin=margin,
                             gain=damper_gain(0.5, dt, D_MIN + margin, 0.1))
    compiled, reference = _pair(robot, task, position_only=position_only,
                                tracking_timeout=10.0)     # the largest: never reached
    start = robot.forward_kinematics(Q0, TIP)
    end = np.array([0.1, 0.0, 0.15])               # beside the base: through links 0-2
    q, statuses, closest = Q0.copy(), set(), np.inf
    for k in range(140):
        s = min(1.0, k / 100)
        goal = ((1 - s) * start[:3, 3] + s * end, (0, 0, 0, 1)) if position_only else \
            ((1 - s) * start[:3, 3] + s * end, start[:3, :3])
        if not position_only:
            goal = np.block([[goal[1], goal[0][:, None]], [np.zeros((1, 3)), np.ones((1, 1))]])
        a, b = compiled.track(goal, q, dt), reference.track(goal, q, dt)
        _same(a, b)
        statuses.add(a.status)
        q = b.q
        closest = min(closest, model.distances(q).distance.min())
    assert closest >= D_MIN - 2e-3 and 'not_converged' in statuses
    if position_only:
        assert closest < D_MIN + margin + 1e-3    # the hand slid along the margin


def test_periodic_joints_full_pose_and_tracking_on_the_ur5():
    """The UR5's ±2π joints turn through their limits; capsules along its links by hand."""
    robot = load_urdf(REPO / 'urdf' / 'ur5.urdf')
    caps = [Capsule('base_link', (0, 0, 0), (0, 0, 0.08), 0.08),
            Capsule('shoulder_link', (0, 0, -0.05), (0, 0, 0.05), 0.07),
            Capsule('upper_arm_link', (0, 0, 0), (0, 0, 0.425), 0.06),
            Capsule('forearm_link', (0, 0, 0), (0, 0, 0.39), 0.05),
            Capsule('wrist_1_link', (0, 0, 0), (0, 0.09, 0), 0.045),
            Capsule('wrist_3_link', (0, 0, 0), (0, 0.08, 0), 0.045)]
    model = CollisionModel(robot, caps)
    d_min, dt = 0.002, 0.01
    task = SelfCollisionTask(robot, model, d_min=d_min)
    compiled = IKSolver(robot, 'tool0', timeout=NO_TIME_LIMIT, extra_tasks=[task])
    reference = IKSolver(robot, 'tool0', timeout=NO_TIME_LIMIT, backend='numpy',
                         extra_tasks=[task])
    assert compiled.backend == 'numba' and compiled._options.periodic_variables.all()
    rng = np.random.default_rng(2)
    restarted = 0
    for i in range(7):
        goal = robot.forward_kinematics(rng.uniform(-np.pi, np.pi, 6), 'tool0')
        seed = rng.uniform(-6, 6, 6)           # outside ±π: turned into the limits
        a, b = compiled.solve(goal, seed=seed), reference.solve(goal, seed=seed)
        _same(a, b)
        assert a.success and model.distances(a.q).distance.min() >= d_min - 1e-6
        restarted += a.restarts > 0
    assert restarted
    damped = SelfCollisionTask(robot, model, d_min=d_min, gain=damper_gain(0.5, dt, d_min, 0.1))
    compiled = IKSolver(robot, 'tool0', tracking_timeout=10.0, extra_tasks=[damped])
    reference = IKSolver(robot, 'tool0', tracking_timeout=10.0, backend='numpy',
                         extra_tasks=[damped])
    q = np.array([0.0, -1.2, 1.8, -2.0, -1.57, 0.0])
    T0 = robot.forward_kinematics(q, 'tool0')
    for k in range(100):                # the tool driven down beside the base
        goal = T0.copy()
        goal[:3, 3] = T0[:3, 3] + min(1.0, k / 70) * (np.array([0.05, 0.05, 0.3]) - T0[:3, 3])
        a, b = compiled.track(goal, q, dt), reference.track(goal, q, dt)
        _same(a, b)
        q = b.q
    assert model.distances(q).distance.min() >= d_min - 1e-3


def test_compiled_only_for_one_collision_level_of_its_own(panda):
    robot, model = panda
    task = SelfCollisionTask(robot, model, d_min=D_MIN)
    assert IKSolver(robot, TIP, extra_tasks=[task]).backend == 'numba'
    bound = PositionBoundTask(robot, TIP, lower=(-1, -1, 0.1), upper=(1, 1, 2))
    assert IKSolver(robot, TIP, extra_tasks=[task, bound]).backend == 'numpy'
    shared = SelfCollisionTask(robot, model, d_min=D_MIN, priority=0)      # the pose's level
    assert IKSolver(robot, TIP, extra_tasks=[shared]).backend == 'numpy'
    with pytest.raises(ConfigError, match='level of its own'):
        IKSolver(robot, TIP, extra_tasks=[shared], backend='numba')
