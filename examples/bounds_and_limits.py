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
Inequality tasks: a table plane, a box for the elbow, and soft joint-limit avoidance (Panda).

1. Table: the hand is asked to go 15 cm below a table top at z = 0.25 m; the plane bound (level
   0) stops it on the table while the rest of the target (x, y) is met.
2. Box: the elbow (panda_link4) must stay below z = 0.5 m while the hand reaches a high goal;
   without the bound the elbow would rise above it.
3. Soft limits: starting with joint 1 inside the 10 % margin of its range, an optional lower
   level pushes every joint out of its margin while the hand still reaches its goal.

Run:  python examples/bounds_and_limits.py        (exit status 0 when every check passes)
"""
from __future__ import annotations

from pathlib import Path
import sys

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdls_ik import load_urdf  # noqa: E402
from pdls_ik.ik.task_solver import TaskSolver  # noqa: E402
from pdls_ik.tasks import FrameTask, LimitAvoidanceTask, PositionBoundTask  # noqa: E402

Q0 = np.array([0.0, -0.4, 0.0, -2.2, 0.0, 1.9, 0.8, 0.02])


def reach(robot, goal, priority=1):
    return FrameTask(robot, 'panda_link8', target=(goal, (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0), priority=priority, position_tolerance=1e-9)


def main() -> int:
    robot = load_urdf(ROOT / 'urdf' / 'panda.urdf')
    ok = True

    table = PositionBoundTask(robot, 'panda_link8', normal=(0, 0, 1), offset=0.25, priority=0,
                              tolerance=1e-9)
    goal = np.array([0.5, 0.1, 0.1])
    res = TaskSolver(robot, [table, reach(robot, goal)]).solve(Q0)
    p = robot.forward_kinematics(res.q, 'panda_link8')[:3, 3]
    print(f'[table] hand z = {p[2]:.9f} m (table 0.25), violation '
          f"{res.errors['bound:panda_link8']:.3e} m, x-y error "
          f'{np.linalg.norm(p[:2] - goal[:2]):.3e} m; target below the table: '
          f'success={res.success}')
    ok &= p[2] >= 0.25 - 1e-9 and np.linalg.norm(p[:2] - goal[:2]) < 1e-6

    box = PositionBoundTask(robot, 'panda_link4', upper=(None, None, 0.5), priority=0,
                            tolerance=1e-9)
    goal = np.array([0.35, 0.0, 0.75])
    free = TaskSolver(robot, [reach(robot, goal)]).solve(Q0)
    res = TaskSolver(robot, [box, reach(robot, goal)]).solve(Q0)
    z_free = robot.forward_kinematics(free.q, 'panda_link4')[2, 3]
    z = robot.forward_kinematics(res.q, 'panda_link4')[2, 3]
    print(f'[box] elbow z without bound {z_free:.4f} m, with bound {z:.9f} m (<= 0.5); '
          f"hand error {res.errors['frame:panda_link8']:.3e} m")
    ok &= res.success and z <= 0.5 + 1e-9 and z_free > 0.5

    q0 = Q0.copy()
    q0[0] = robot.upper[0] - 0.01
    goal = robot.forward_kinematics(q0, 'panda_link8')[:3, 3] + (0.0, 0.0, 0.03)
    soft = LimitAvoidanceTask(robot, fraction=0.1, joints=robot.joint_names[:7])
    plain = TaskSolver(robot, [reach(robot, goal, 0)]).solve(q0)
    res = TaskSolver(robot, [reach(robot, goal, 0), soft]).solve(q0)
    margin = 0.1 * (robot.upper[:7] - robot.lower[:7])

    def worst(q):
        return float(np.max(np.maximum(robot.lower[:7] + margin - q[:7],
                                       q[:7] - robot.upper[:7] + margin)))
    print(f'[soft limits] deepest margin intrusion: without {max(worst(plain.q), 0):.4f} rad, '
          f'with {max(worst(res.q), 0):.3e} rad; hand error '
          f"{res.errors['frame:panda_link8']:.3e} m")
    ok &= res.success and worst(res.q) <= 1e-9 and worst(plain.q) > 0.0
    print('OK' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
