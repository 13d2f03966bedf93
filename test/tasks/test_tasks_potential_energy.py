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

"""PotentialEnergyTask: energy, gradient, and quasi-static settling as a PDLS level."""
import math

import numpy as np
from pdls_ik import load_urdf, pdls
from pdls_ik.errors import InputError
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.model.com import CenterOfMass
from pdls_ik.resources import bundled_urdf
from pdls_ik.tasks import FrameTask, PotentialEnergyTask
import pytest

#: a planar double pendulum: joints about y, 0.4 m and 0.3 m links along x, 2 kg and 1 kg at
#: their ends; hanging straight down is the equilibrium of least potential
PENDULUM = """<robot name="pendulum">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0.4 0 0"/><mass value="2"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0.3 0 0"/><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1"
    velocity="1"/></joint>
</robot>"""


def test_energy_and_gradient_of_the_pendulum():
    robot = load_urdf(PENDULUM)
    task = PotentialEnergyTask(robot)
    q = np.array([0.3, -0.5])
    energy, grad = task.energy_and_gradient(q)
    # a joint about +y turns +x toward −z: heights −0.4 sin(q1) and −(0.4 sin q1 + 0.3 sin(q1+q2))
    g = 9.80665
    h1, h2 = -0.4 * math.sin(0.3), -0.4 * math.sin(0.3) - 0.3 * math.sin(-0.2)
    assert energy == pytest.approx(g * (2 * h1 + 1 * h2), abs=1e-12)
    step = 1e-6
    fd = [(task.energy_and_gradient(q + step * d)[0] - task.energy_and_gradient(q - step * d)[0])
          / (2 * step) for d in np.eye(2)]
    np.testing.assert_allclose(grad, fd, atol=1e-7)
    e, J = task.compute(q)
    assert e.shape == (1,) and J.shape == (1, 2)
    assert e[0] == pytest.approx(-(grad @ grad) / task.curvature)
    # κ = M |g| R: 3 kg, R = 0.7 m (elbow at 0.4, lower CoM 0.3 further)
    assert task.curvature == pytest.approx(3 * g * 0.7)
    assert task.optional and task.kind == 'target' and task.priority == 1


def test_the_pendulum_settles_hanging_down():
    """Quasi-static: from near horizontal, the solve ends at the equilibrium q = (π/2, 0)."""
    robot = load_urdf(PENDULUM)
    task = PotentialEnergyTask(robot)
    result = pdls.solve(LevelStack([task], 2), np.array([0.1, 0.4]), robot.lower, robot.upper,
                        pdls.PDLSOptions(max_iterations=500, residual_tol=1e-12))
    assert result.status == 'converged'
    np.testing.assert_allclose(result.theta, [math.pi / 2, 0.0], atol=1e-5)
    c = CenterOfMass(robot).position(result.theta)
    assert c[2] == pytest.approx(-(2 * 0.4 + 0.7) / 3, abs=1e-9)     # the lowest CoM


def test_springs_only_return_to_rest_in_one_step():
    robot = load_urdf(PENDULUM)
    task = PotentialEnergyTask(robot, gravity=(0, 0, 0), stiffness=[5.0, 5.0], rest=[0.2, -0.1])
    result = pdls.solve(LevelStack([task], 2), np.array([1.0, 0.5]), robot.lower, robot.upper,
                        pdls.PDLSOptions(residual_tol=1e-20, theta_diff_max_mag=math.inf))
    assert result.status == 'converged' and result.iterations == 1      # Δθ = −∇U / κ = r − q
    np.testing.assert_allclose(result.theta, [0.2, -0.1], atol=1e-15)
    assert task.energy_and_gradient(result.theta)[0] == pytest.approx(0.0, abs=1e-25)


def test_the_potential_descends_in_the_null_space_of_the_tip_position():
    """The Panda holds its tip point (level 0) while its redundant joints lower the CoM."""
    panda = load_urdf(bundled_urdf('panda'))
    q = np.array([0.3, -0.4, 0.5, -2.0, 0.3, 1.8, 0.5, 0.02])
    tip = panda.forward_kinematics(q, 'panda_link8')
    frame = FrameTask(panda, 'panda_link8', target=tip, orientation_mask=(0, 0, 0))
    task = PotentialEnergyTask(panda)
    result = pdls.solve(LevelStack([frame, task], panda.n), q, panda.lower, panda.upper,
                        pdls.PDLSOptions(max_iterations=100, divergence_factor=None))
    before, after = task.energy_and_gradient(q)[0], task.energy_and_gradient(result.theta)[0]
    assert after < before - 20.0              # [J]: the CoM (17.5 kg) went down by ~0.16 m
    moved = panda.forward_kinematics(result.theta, 'panda_link8')[:3, 3]
    assert np.linalg.norm(moved - tip[:3, 3]) < 1e-6
    assert np.all(result.theta >= panda.lower) and np.all(result.theta <= panda.upper)


def test_bad_input_is_named():
    robot = load_urdf(PENDULUM)
    with pytest.raises(InputError, match='stiffness'):
        PotentialEnergyTask(robot, stiffness=[1.0, -1.0])
    with pytest.raises(InputError, match='nothing to minimize'):
        PotentialEnergyTask(robot, gravity=(0, 0, 0))
    with pytest.raises(InputError, match='gravity'):
        PotentialEnergyTask(robot, gravity=(0, float('nan'), 0))
