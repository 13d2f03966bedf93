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
The picture of a tracking run (pdls_ik.cli.plot) and the summary beside it.

What is drawn is checked as numbers: the chain's joints only, in their own units, velocities
against the URDF limits, the achieved tip path, true task errors per level (not the weighted,
waypoint-relative residual), views that follow the motion, units on every axis, the legends off
the data, the cycle budget as a line.
"""
import io
import json
import re

import numpy as np
from pdls_ik.cli import main
from pdls_ik.cli.plot import (plot_tracking, tracking_figure, tracking_plot_data, view_range)
from pdls_ik.cli.tracking import print_summary, run_tracking, summarize
from pdls_ik.ik import IKSolver
from pdls_ik.model import load_urdf
from pdls_ik.resources import urdf_path
import pytest

pytest.importorskip('matplotlib')
TIP = 'panda_link8'
RATE = 100.0


def _far_goal_run(robot, **config):
    """Track a goal 0.3 m away for 0.3 s: the first cycles lag at the velocity bound."""
    solver = IKSolver(robot, TIP, **config)
    q0 = np.array([0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.8, 0.02])
    T = robot.forward_kinematics(q0, TIP)
    goal = (T[:3, 3] + np.array([0.0, 0.3, 0.0]), np.array([1.0, 0.0, 0.0, 0.0]))
    from scipy.spatial.transform import Rotation
    goal = (goal[0], Rotation.from_matrix(T[:3, :3]).as_quat())
    log = run_tracking(solver, lambda t: goal, q0, RATE, 0.3, progress=False)
    return solver, log, goal


@pytest.fixture(scope='module')
def panda():
    return load_urdf(urdf_path('panda'))


def test_plot_data_is_the_chain_in_its_own_units_with_true_errors(panda):
    solver, log, goal = _far_goal_run(panda)
    data = tracking_plot_data(log, solver)
    # the seven arm joints, not the finger (in the URDF, not in the chain)
    assert data.names == [f'panda_joint{i}' for i in range(1, 8)]
    assert 'panda_finger_joint1' in panda.joint_names
    assert data.units == ['rad'] * 7
    assert np.allclose(data.lower, panda.lower[:7]) and np.allclose(data.upper, panda.upper[:7])
    # velocities (q_k − q_{k−1}) / dt against the URDF limits (Panda: 2.175 / 2.61 rad/s)
    q = np.array(log.q)
    assert np.allclose(data.qd[0], (q[0, :7] - log.q0[:7]) * RATE)
    assert np.allclose(data.qd[1:], np.diff(q[:, :7], axis=0) * RATE)
    assert np.allclose(data.velocity_limit, [2.175] * 4 + [2.61] * 3)
    assert np.all(np.abs(data.qd) <= data.velocity_bound + 1e-9)
    assert np.max(np.abs(data.qd) / data.velocity_limit) > 0.99     # the far goal saturates
    # the achieved tip path is the tip's position; its distance to the goal is the error
    dist = np.linalg.norm(data.tip_xyz - goal[0], axis=1)
    pos = next(e for e in data.errors if e.label == f'L0 pose:{TIP} position')
    assert np.allclose(dist, pos.values, atol=1e-12)
    assert pos.unit == 'm' and pos.tolerance == solver.config.position_tolerance
    ori = next(e for e in data.errors if e.label == f'L0 pose:{TIP} orientation')
    assert ori.unit == 'rad' and ori.tolerance == solver.config.orientation_tolerance
    # the lagging cycles are far from the goal: the level's true error, not the residual the
    # solver reports (measured to the cycle's velocity-bounded waypoint)
    lagging = ~data.success
    assert lagging[:3].all() and data.success[-1]
    assert pos.values[0] > 0.1
    assert log.results[0].residual_norms[0] < 0.1 * pos.values[0]


def test_locked_joint_is_its_own_level_in_its_unit(panda):
    solver, log, _ = _far_goal_run(panda, locked_joints=['panda_joint3'], locked_positions=[0.0])
    data = tracking_plot_data(log, solver)
    labels = [(e.level, e.label, e.unit) for e in data.errors]
    assert labels[0] == (0, f'L0 {solver.locks.name} (largest offset)', 'rad')
    assert np.max(data.errors[0].values) < 1e-9        # the lock holds every cycle
    assert {e.level for e in data.errors if 'pose:' in e.label} == {1}


def test_view_follows_the_motion_not_far_limits():
    # a ±2π joint moving over 0.5 rad: the view stays near the motion (no flat line)
    lo, hi = view_range(0.6, 1.1, (-6.283, 6.283), 0.05)
    assert hi - lo < 1.0
    # a limit within one span of the motion is shown
    lo, hi = view_range(2.5, 2.85, (-2.9, 2.9), 0.05)
    assert hi > 2.9 and lo > 0.0


def test_figure_units_budget_and_legends_off_the_data(panda):
    solver, log, _ = _far_goal_run(panda)
    data = tracking_plot_data(log, solver)
    fig = tracking_figure(data, summary=summarize(log, solver))
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert 'position error [m]' in labels and 'orientation error [rad]' in labels
    assert labels.index('position error [m]') != labels.index('orientation error [rad]')
    assert 'position [rad]' in labels and 'velocity [rad/s]' in labels
    assert sum(1 for ax in fig.axes if ax.get_title().startswith('panda_joint')) == 7
    time_ax = next(ax for ax in fig.axes if ax.get_ylabel() == 'time per cycle [ms]')
    budget = [ln for ln in time_ax.lines if ln.get_label().startswith('cycle budget')]
    assert budget and np.allclose(budget[0].get_ydata(), 1e3 / RATE)
    # legends live on axes without data (their own column)
    for ax in fig.axes:
        if ax.get_legend() is not None:
            assert not ax.axison and not ax.lines
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_demo_writes_picture_and_summary_files(capsys, tmp_path):
    assert main(['demo', '--duration', '0.5', '--out', str(tmp_path), '--no-progress']) == 0
    out = capsys.readouterr().out
    text = (tmp_path / 'summary.txt').read_text()
    assert text.splitlines()[0] in out and 'largest joint step' in text
    summary = json.loads((tmp_path / 'summary.json').read_text())
    assert summary['cycles'] == 50 and summary['joint_limit_violations'] == 0
    size = (tmp_path / 'demo.png').stat().st_size
    assert 20_000 < size < 300_000


def test_no_velocity_limit_is_said(panda, tmp_path):
    """velocity="0" in the URDF (e.g. rtb's Puma560) is no limit, not "0 % of it"."""
    text = urdf_path('panda').read_text()
    text = re.sub(r'velocity="[0-9.]+"', 'velocity="0"', text)
    robot = load_urdf(text)
    assert np.all(np.isinf(robot.velocity_limits[:7]))            # no limit given (URDF rule)
    solver, log, _ = _far_goal_run(robot)
    summary = summarize(log, solver)
    out = io.StringIO()
    print_summary(summary, out=out)
    line = next(ln for ln in out.getvalue().splitlines() if ln.startswith('largest joint step'))
    assert line.endswith('(no velocity limit in the URDF)'), line
    data = tracking_plot_data(log, solver)
    assert np.all(np.isinf(data.velocity_limit))
    path = plot_tracking(data, tmp_path / 'p.png')
    assert path.stat().st_size > 20_000
