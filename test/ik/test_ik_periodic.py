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

"""One-shot solves turn revolute joints through their limits; tracking never does."""
import math

from conftest import PinocchioBridge
import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik._accel import available as numba_available
from pdls_ik.model.joint_vector import periodic_variables
from pdls_ik.resources import bundled_urdf
import pytest

BACKENDS = ['numpy'] + (['numba'] if numba_available() else [])
NO_TIME_LIMIT = 30.0

MIMIC_URDF = """<robot name="m">
  <link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>
  <joint name="r" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="half" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/><mimic joint="r" multiplier="0.5"/>
  </joint>
  <joint name="s" type="revolute"><parent link="c"/><child link="d"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="w" type="continuous"><parent link="d"/><child link="e"/><axis xyz="1 0 0"/>
  </joint>
</robot>"""


@pytest.fixture(scope='module')
def ur5():
    path = bundled_urdf('ur5')
    return load_urdf(path), path.read_text()


def test_periodic_variables_are_the_revolute_joints_with_periodic_motions(ur5):
    assert periodic_variables(ur5[0]).all()
    panda = load_urdf(bundled_urdf('panda'))
    # the prismatic finger is not an angle
    assert periodic_variables(panda).tolist() == [True] * 7 + [False]
    m = load_urdf(MIMIC_URDF)
    # r drives a mimic at half its angle: r + 2π is another pose; w is continuous (no limits)
    assert m.joint_names == ['r', 's', 'w']
    assert periodic_variables(m).tolist() == [False, True, False]


@pytest.mark.parametrize('backend', BACKENDS)
def test_ur5_elbow_goes_through_its_limit_in_one_local_solve(ur5, backend):
    robot, text = ur5
    bridge = PinocchioBridge(text, robot)
    goal_q = np.array([0.4, -1.2, -2.9, -1.0, 1.3, 0.2])
    seed = np.array([0.4, -1.2, 2.9, -1.0, 1.3, 0.2])     # elbow a short way across ±π
    goal = bridge.pose(goal_q, 'ee_link')
    solver = IKSolver(robot, 'ee_link', backend=backend, timeout=NO_TIME_LIMIT)
    res = solver.solve(goal, seed)
    assert res.success and res.status == 'converged'
    assert res.restarts == 0 and res.iterations <= 10
    assert np.all(res.q >= robot.lower) and np.all(res.q <= robot.upper)
    T = bridge.pose(res.q, 'ee_link')
    assert np.linalg.norm(T[:3, 3] - goal[:3, 3]) <= 1e-5
    cos = (np.trace(T[:3, :3].T @ goal[:3, :3]) - 1.0) / 2.0
    assert math.acos(min(1.0, cos)) <= 1e-4


@pytest.mark.parametrize('backend', BACKENDS)
def test_random_seeds_need_few_restarts_on_the_ur5(ur5, backend):
    robot, _ = ur5
    solver = IKSolver(robot, 'ee_link', backend=backend, timeout=NO_TIME_LIMIT)
    rng = np.random.default_rng(5)
    restarts = 0
    for _ in range(20):
        goal_q = rng.uniform(robot.lower, robot.upper)
        goal = robot.forward_kinematics(goal_q, 'ee_link', solver.base_link)
        res = solver.solve(goal, rng.uniform(robot.lower, robot.upper))
        assert res.success
        restarts += res.restarts
    # measured 1.0 restarts per solve on 500 goals (4.0 when the limiting loop stopped the elbow
    # at ±π); 20 goals: a bound with room for the sample's spread
    assert restarts <= 40


def test_tracking_never_turns_a_joint(ur5):
    robot, _ = ur5
    solver = IKSolver(robot, 'ee_link')
    assert solver._options.periodic_variables is not None
    assert solver._track_options.periodic_variables is None


@pytest.mark.parametrize('backend', BACKENDS)
def test_a_seed_beyond_a_limit_is_turned_onto_its_image_not_clamped(ur5, backend):
    """A joint state read a little past 2π is the same pose a turn back: the seed keeps it."""
    robot, text = ur5
    bridge = PinocchioBridge(text, robot)
    goal_q = np.array([0.3, -1.1, 1.4, -0.9, 1.2, 0.25])
    seed = goal_q.copy()
    seed[5] += 2.0 * math.pi      # 6.53 rad > 2π: beyond the wrist's upper limit
    solver = IKSolver(robot, 'ee_link', backend=backend, timeout=NO_TIME_LIMIT)
    res = solver.solve(bridge.pose(goal_q, 'ee_link'), seed)
    # the seed is the goal itself once turned: solved at the start, no iteration
    assert res.success and res.iterations == 0 and res.restarts == 0
    np.testing.assert_allclose(res.q[:5], goal_q[:5], atol=1e-12)
    turns = (res.q[5] - goal_q[5]) / (2.0 * math.pi)     # an image of the goal's wrist angle
    assert abs(turns - round(turns)) <= 1e-12 and robot.lower[5] <= res.q[5] <= robot.upper[5]
    assert any('seed turned' in n and 'wrist_3_joint' in n for n in res.notes)
    assert not any('clamped' in n for n in res.notes)
    # a state the solver tracks from is clamped instead: a turn is no motion
    track = solver.track(bridge.pose(goal_q, 'ee_link'), seed, 0.01)
    assert track.q[5] <= robot.upper[5]
    assert any('q_current clamped' in n and 'wrist_3_joint' in n for n in track.notes)
