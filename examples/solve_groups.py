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
Solve groups: two arms that do not interact are solved as two smaller problems.

The bimanual robot's torso joint is fixed, so the left-arm and right-arm tasks share no joint
(the solve groups of MSim's robot PDLS solver, ``msim.control.Solver``). For random reachable
goals (each arm's own random configuration) the script solves the joint problem and the grouped
one from the same seed, with options under which the PDLS step is block-wise (fixed damping,
clamping by component), and reports the largest difference of the answers and the solve times
(median of the runs) in two scenarios: both arms get new goals, or only the right arm does (the
left arm's group then costs one evaluation, while the joint problem keeps evaluating both arms
every iteration). Timings depend on the machine; only the answers are checked.

Run:  python examples/solve_groups.py [--runs N]     (exit status 0 when every check passes)
"""
from __future__ import annotations

import argparse
from pathlib import Path
import statistics
import sys
import time

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdls_ik import load_urdf, pdls  # noqa: E402
from pdls_ik.config import IKConfig  # noqa: E402
from pdls_ik.ik.task_solver import TaskSolver  # noqa: E402
from pdls_ik.tasks import FrameTask, JointLockTask  # noqa: E402

OPTIONS = pdls.PDLSOptions(damping=1e-3, clamp_theta_diff_by_component=True,
                           clamp_residual_by_component=True, adaptive_step_size=False,
                           theta_diff_max_mag=0.3, divergence_factor=None, max_iterations=500)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=40)
    args = parser.parse_args()
    robot = load_urdf(ROOT / 'urdf' / 'bimanual.urdf')
    rng = np.random.default_rng(0)
    lo = np.where(np.isfinite(robot.lower), robot.lower, -np.pi)
    hi = np.where(np.isfinite(robot.upper), robot.upper, np.pi)
    q0 = np.zeros(robot.n)
    for name, value in (('l_shoulder_lift', 0.4), ('l_elbow', -0.9), ('r_shoulder_lift', 0.5),
                        ('r_elbow', -1.0)):
        q0[robot.joint_index(name)] = value
    tasks = [FrameTask(robot, f'{s}_tool', orientation_mask=(0, 0, 0), position_tolerance=1e-11)
             for s in 'lr']
    tasks.append(JointLockTask(robot, ['l_wrist_roll', 'r_wrist_roll'], [0.0, 0.0]))
    # one local solve each (no random restarts): the two ways of solving the same local problem
    single = IKConfig(random_restarts=False)
    joint = TaskSolver(robot, tasks, config=single, options=OPTIONS, fixed_joints=['torso_yaw'])
    grouped = TaskSolver(robot, tasks, config=single, options=OPTIONS,
                         fixed_joints=['torso_yaw'], solve_groups=True)
    worst, solved, groups = 0.0, 0, 0
    for scenario in ('both arms move', 'only the right arm moves'):
        times = {'joint': [], 'grouped': []}
        for _ in range(args.runs):
            q_goal = rng.uniform(lo, hi)
            q_goal[robot.joint_index('torso_yaw')] = 0.0
            if scenario.startswith('only'):
                q_goal[:6] = q0[:6]                       # torso and left arm: goal = start
            for task in tasks[:2]:
                task.set_target(robot.forward_kinematics(q_goal, task.link))
            out = {}
            for name, solver in (('joint', joint), ('grouped', grouped)):
                t0 = time.perf_counter()
                out[name] = solver.solve(q0)
                times[name].append(time.perf_counter() - t0)
            if out['joint'].success and out['grouped'].success:
                solved += 1
                worst = max(worst, float(np.abs(out['joint'].q - out['grouped'].q).max()))
            groups = out['grouped'].groups
        tj, tg = (statistics.median(times[k]) * 1e3 for k in ('joint', 'grouped'))
        print(f'{scenario}: median solve time joint {tj:.2f} ms, grouped {tg:.2f} ms '
              f'(grouped is {tj / tg:.2f}x the speed)')
    print(f'groups: {groups}; both solved: {solved}/{2 * args.runs} goals')
    print(f'largest difference joint vs grouped answer: {worst:.3e} rad (required < 1e-9)')
    ok = groups == 2 and solved >= 0.6 * 2 * args.runs and worst < 1e-9
    print('OK' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
