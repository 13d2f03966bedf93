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
The NumPy backend's loop of a plain pose goal (pdls_ik.ik.pose_loop) against pdls.solve.

Both run the same algorithm: the same answers, iterations, restarts and metrics, to rounding.
"""
from conftest import PinocchioBridge, random_q
import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik.resources import bundled_urdf
import pytest

#: generous: the outcome must not depend on the machine's load (tests never time anything)
NO_TIME_LIMIT = 30.0


def generic(solver: IKSolver) -> IKSolver:
    """Return the solver set on the generic pdls.solve path (its pose loop set aside)."""
    solver._pose_loop = None
    return solver


@pytest.mark.parametrize('name, tip, options', [
    ('panda', 'panda_link8', {}),
    ('ur5', 'ee_link', {}),
    ('panda', 'panda_link8', {'position_only': True}),
    ('ur5', 'ee_link', {'damping': 0.001, 'max_step': 0.5}),
    ('ur5', 'ee_link', {'random_restarts': False, 'max_iterations': 30}),
])
def test_pose_loop_gives_the_answers_of_pdls_solve(name, tip, options):
    path = bundled_urdf(name)
    robot = load_urdf(path)
    bridge = PinocchioBridge(path.read_text(), robot)
    fast = IKSolver(robot, tip, backend='numpy', timeout=NO_TIME_LIMIT, **options)
    assert fast._pose_loop is not None
    ref = generic(IKSolver(robot, tip, backend='numpy', timeout=NO_TIME_LIMIT, **options))
    rng = np.random.default_rng(8)
    same = 0
    for _ in range(40):
        goal = robot.forward_kinematics(random_q(robot, rng), tip)
        seed = random_q(robot, rng)
        a, b = ref.solve(goal, seed=seed), fast.solve(goal, seed=seed)
        assert b.status == a.status or not a.success
        if b.success:
            assert np.all(b.q >= robot.lower) and np.all(b.q <= robot.upper)
            P = bridge.pose(b.q, tip)
            assert np.linalg.norm(P[:3, 3] - goal[:3, 3]) <= 1e-5
        if a.iterations == b.iterations and a.restarts == b.restarts:
            same += 1
            assert b.status == a.status and b.success == a.success
            np.testing.assert_allclose(b.q, a.q, atol=1e-9)
            np.testing.assert_allclose(b.residual_norms, a.residual_norms, rtol=1e-6,
                                       atol=1e-13)
            assert b.ranks == a.ranks
            np.testing.assert_allclose(b.lambdas, a.lambdas, atol=1e-10)
            np.testing.assert_allclose(b.min_singular_values, a.min_singular_values,
                                       atol=1e-8)
            assert b.position_error == pytest.approx(a.position_error, abs=1e-10)
            assert b.clamped_joints == a.clamped_joints
    assert same >= 39


def test_pose_loop_serves_plain_pose_goals_only():
    robot = load_urdf(bundled_urdf('panda'))
    assert IKSolver(robot, 'panda_link8', backend='numpy')._pose_loop is not None
    assert IKSolver(robot, 'panda_link8', backend='numpy', locked_joints=['panda_joint1'],
                    locked_positions=[0.0])._pose_loop is None
    assert IKSolver(robot, 'panda_link8', backend='numpy', limit_strategy='pgs')._pose_loop \
        is None
