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

"""SelfCollisionTask: rows, a level above the pose, the velocity damper, task files, IKSolver."""
from __future__ import annotations

from conftest import random_q, REPO
from fd_support import residual_derivative
import numpy as np
from pdls_ik import IKSolver, load_urdf, pdls
from pdls_ik.cli.tracking import OFFLINE_TRACKING_TIMEOUT
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, InputError
from pdls_ik.ik.task_config import load_task_config
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.model.collision import collision_model
from pdls_ik.tasks import FrameTask, SelfCollisionTask
from pdls_ik.tasks.self_collision_task import damper_gain
import pytest

Q0 = np.array([0.0, -0.4, 0.0, -2.2, 0.0, 1.9, 0.8, 0.02])
#: a hand goal beside the base: reached only through the robot's own links
INSIDE = (0.15, 0.0, 0.2)
#: a hand goal inside the base's capsules: never reached without contact
BASE = (0.05, 0.0, 0.08)


@pytest.fixture(scope='module')
def panda():
    return load_urdf(REPO / 'urdf' / 'panda.urdf')


@pytest.fixture(scope='module')
def model(panda):
    return collision_model(panda)


def _reach(panda, goal):
    return FrameTask(panda, 'panda_link8', target=(goal, (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0), position_tolerance=1e-6)


def test_rows_are_distances_with_analytic_gradient(panda, model):
    task = SelfCollisionTask(panda, model, d_min=0.02, activation_distance=0.3, weight=2.0)
    assert task.dim == len(model.pairs) == 20 and (task.comparison == pdls.LESS_EQUAL).all()
    rng = np.random.default_rng(5)
    near_rows = far_rows = 0
    for _ in range(6):
        q = random_q(panda, rng)
        e, J = task.compute(q)
        d = model.distances(q).distance
        near = d < 0.3
        assert np.allclose(e[near], 2.0 * (0.02 - d[near]), atol=1e-15)
        assert np.all(e[~near] == 2.0 * (0.02 - 0.3)) and np.all(J[~near] == 0.0)
        fd = residual_derivative(task, q, 1e-7)
        assert np.abs(J[near] - fd[near]).max(initial=0.0) < 2e-6
        assert task.violation == pytest.approx(max(0.0, 0.02 - d.min()))
        near_rows += near.sum()
        far_rows += (~near).sum()
    assert near_rows > 5 and far_rows > 5


def test_level_above_the_pose_keeps_d_min_and_gets_as_close_as_the_body_allows(panda, model):
    free = TaskSolver(panda, [_reach(panda, INSIDE)], IKConfig(random_restarts=False)).solve(Q0)
    assert free.success and model.distances(free.q).distance.min() < 0.0   # through the body
    task = SelfCollisionTask(panda, model, d_min=0.01)
    res = TaskSolver(panda, [_reach(panda, INSIDE), task],
                     IKConfig(random_restarts=False)).solve(Q0)
    assert res.level_names == ['self_collision', 'frame:panda_link8']
    assert res.success                                    # reached around the body
    assert model.distances(res.q).distance.min() >= 0.01 - 1e-6
    # a goal inside the base's capsules: the hand stops on the margin, as close as it can
    res = TaskSolver(panda, [_reach(panda, BASE), task],
                     IKConfig(random_restarts=False)).solve(Q0)
    d = model.distances(res.q).distance
    assert d.min() >= 0.01 - 1e-6 and d.min() < 0.0102       # a pair rests on the margin
    assert not res.success and 0.0 < res.errors['frame:panda_link8'] < 0.15
    assert res.errors['self_collision'] <= 1e-6


def test_velocity_damper_slows_the_approach(panda, model):
    free = TaskSolver(panda, [_reach(panda, INSIDE)], IKConfig(random_restarts=False)).solve(Q0)
    q = None
    for s in np.linspace(0.0, 1.0, 201):       # a configuration 4-6 cm from contact
        qs = (1 - s) * Q0 + s * free.q
        if 0.04 < model.distances(qs).distance.min() < 0.06:
            q = qs
            break
    assert q is not None
    gain = damper_gain(approach_speed=0.5, cycle_time=0.02, d_min=0.01, activation_distance=0.1)
    assert gain == pytest.approx(0.5 * 0.02 / 0.09)
    runs = {}
    for g in (1.0, gain):       # PDLS steps towards the goal inside the body
        task = SelfCollisionTask(panda, model, d_min=0.01, activation_distance=0.1, gain=g)
        stack = LevelStack([task, _reach(panda, INSIDE)], panda.n)
        x, dist = q.copy(), [model.distances(q).distance.min()]
        for _ in range(30):
            x = x + pdls.step(stack(x), x, panda.lower, panda.upper,
                              options=pdls.PDLSOptions(theta_diff_max_mag=0.1)).theta_diff
            dist.append(model.distances(x).distance.min())
        runs[g] = np.array(dist)
    damped = runs[gain]
    for k in range(5):          # each step closes at most about the fraction γ of the gap
        assert 0.0 < damped[k] - damped[k + 1] <= gain * (damped[k] - 0.01) + 1e-3
    assert runs[1.0][0] - runs[1.0][1] > 3 * (damped[0] - damped[1])
    for dist in runs.values():  # both end on the margin; linearization overshoots stay small
        assert abs(dist[-1] - 0.01) < 4e-3 and dist.min() > 0.0


def test_task_file_key_builds_the_task(panda, tmp_path):
    tasks = load_task_config({'self_collision': {'d_min': 0.02, 'model': 'panda',
                                                 'skip_pairs': [['panda_link0', 'panda_hand']]}}
                             ).build(panda)
    assert len(tasks) == 1 and isinstance(tasks[0], SelfCollisionTask)
    assert tasks[0].d_min == 0.02 and tasks[0].priority == -1
    assert ('panda_link0', 'panda_hand') not in tasks[0].model.pairs
    assert isinstance(load_task_config({'self_collision': True}).build(panda)[0],
                      SelfCollisionTask)                 # the bundled Panda's own model
    with pytest.raises(ConfigError, match='self_collision.dmin: unknown key'):
        load_task_config({'self_collision': {'dmin': 0.02}})
    with pytest.raises(ConfigError, match='self_collision.*activation_distance'):
        load_task_config({'self_collision': {'d_min': 0.2}}).build(panda)
    srdf = tmp_path / 'p.srdf'
    srdf.write_text('<robot name="panda"><disable_collisions link1="panda_link1" '
                    'link2="panda_link5" reason="Never"/></robot>')
    (tmp_path / 'tasks.yaml').write_text('self_collision: {srdf: p.srdf}\n')
    task = load_task_config(tmp_path / 'tasks.yaml').build(panda)[0]
    assert task.model.skipped[('panda_link1', 'panda_link5')] == 'srdf'
    ur5 = load_urdf(REPO / 'urdf' / 'ur5.urdf')
    with pytest.raises(ConfigError, match='self_collision: .*no usable <collision>'):
        load_task_config({'self_collision': {}}).build(ur5)


def test_bad_arguments_are_named(panda, model):
    with pytest.raises(InputError, match='gain'):
        SelfCollisionTask(panda, model, gain=0.0)
    with pytest.raises(InputError, match='d_min'):
        SelfCollisionTask(panda, model, d_min=-0.01)
    with pytest.raises(InputError, match='model'):
        SelfCollisionTask(panda, 'panda')


def test_ik_solver_one_shot_counts_a_colliding_answer_as_a_failure(panda, model):
    cfg = IKConfig(backend='numpy', timeout=0.3, position_only=True, random_seed=1)
    task = SelfCollisionTask(panda, model, d_min=0.01)
    ik = IKSolver(panda, 'panda_link8', config=cfg, extra_tasks=[task])
    inside = ik.solve((BASE, (0, 0, 0, 1)), seed=Q0)
    assert not inside.success and inside.restarts > 0
    assert model.distances(inside.q).distance.min() >= 0.01 - 1e-6
    goal = panda.forward_kinematics(Q0 + 0.2, 'panda_link8')[:3, 3]
    res = ik.solve((goal, (0, 0, 0, 1)), seed=Q0)
    assert res.success and res.position_error < 1e-4
    assert model.distances(res.q).distance.min() >= 0.01 - 1e-6


def test_the_level_moves_only_the_joints_the_pose_frees(panda, model):
    """The fingers are no joint of the arm's chain: the collision rows must not move them."""
    task = SelfCollisionTask(panda, model, d_min=0.01)
    ik = IKSolver(panda, 'panda_link8', config=IKConfig(backend='numpy'), extra_tasks=[task])
    finger = panda.joint_index('panda_finger_joint1')
    assert ik.free.sum() == 7 and not ik.free[finger]
    res = ik.solve((INSIDE, (0, 0, 0, 1)), seed=Q0)
    assert res.q[finger] == Q0[finger]


def test_tracking_a_goal_pushed_through_the_body_slides_along_the_margin(panda, model):
    dt = 0.01
    gain = damper_gain(0.5, dt, 0.01, 0.1)
    task = SelfCollisionTask(panda, model, d_min=0.01, gain=gain)
    # cycles bounded by their iteration budget alone (the time cap of a simulated run), so that
    # the path does not depend on the machine's load
    ik = IKSolver(panda, 'panda_link8', config=IKConfig(
        position_only=True, backend='numpy', tracking_timeout=OFFLINE_TRACKING_TIMEOUT),
        extra_tasks=[task])
    start = panda.forward_kinematics(Q0, 'panda_link8')[:3, 3]
    end = np.array([0.1, 0.0, 0.15])               # beside the base: through links 0-2
    q, dist, speed = Q0.copy(), [], []
    for k in range(140):
        s = min(1.0, k / 100)
        res = ik.track(((1 - s) * start + s * end, (0, 0, 0, 1)), q, dt)
        speed.append(np.abs(res.q - q) / dt)
        q = res.q
        dist.append(model.distances(q).distance.min())
    dist = np.array(dist)
    # never below the margin but for the second-order term of one cycle's linear step while
    # sliding along it (~1 mm here; the position form, gain 1, dips 3 mm below on this path)
    assert dist.min() >= 0.01 - 2e-3
    assert np.all(np.abs(dist[-20:] - 0.01) < 5e-3)     # held near it while the goal pushes in
    assert np.all(np.array(speed) <= panda.velocity_limits * (1 + 1e-9))
    reached = panda.forward_kinematics(q, 'panda_link8')[:3, 3]
    assert np.linalg.norm(reached - end) > 0.03     # the goal itself is not reached (4.1 cm)
