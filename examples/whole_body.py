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
Whole-body IK of a small humanoid with a floating root (quaternion in q, Lie-group steps).

Priorities (strict): both feet keep their pose on the ground (level 0) > the centre of mass
stays above the middle of the feet in x, y (level 1) > the hands reach targets (level 2) > the
head camera looks at the right hand (level 3) > posture. The pelvis is free: 6 root variables
(nv = 29, nq = 30), integrated on SE(3) (Lie-group steps as in hpp-constraints).

Run:  python examples/whole_body.py        (exit status 0 when every check passes)
"""
from __future__ import annotations

from pathlib import Path
import sys

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdls_ik import load_urdf  # noqa: E402
from pdls_ik.config import IKConfig  # noqa: E402
from pdls_ik.ik.task_solver import TaskSolver  # noqa: E402
from pdls_ik.model.floating import FloatingBase  # noqa: E402
from pdls_ik.tasks import CoMTask, FrameTask, LookAtTask, PostureTask  # noqa: E402


def main() -> int:
    robot = FloatingBase(load_urdf(ROOT / 'urdf' / 'humanoid.urdf'))
    q0 = robot.neutral()
    for side in 'lr':                                # knees flexed, feet flat
        for joint, value in (('hip_pitch', -0.25), ('knee', 0.5), ('ankle_pitch', -0.25)):
            q0[7 + robot.linkage.joint_index(f'{side}_{joint}')] = value
    q0[2] = -robot.forward_kinematics(robot.from_q(q0), 'l_sole')[2, 3]   # soles at z = 0
    theta0 = robot.from_q(q0)
    feet = [FrameTask(robot, side, target=robot.forward_kinematics(theta0, side),
                      priority=0, position_tolerance=1e-9, orientation_tolerance=1e-9)
            for side in ('l_sole', 'r_sole')]
    middle = 0.5 * (feet[0].target_position + feet[1].target_position)
    com = CoMTask(robot, target=middle, axes=(True, True, False), priority=1, tolerance=1e-6)
    hands = [FrameTask(robot, 'l_hand', target=((0.25, 0.25, 0.45), (0, 0, 0, 1)),
                       orientation_mask=(0, 0, 0), priority=2, position_tolerance=1e-4),
             FrameTask(robot, 'r_hand', target=((0.30, -0.20, 0.75), (0, 0, 0, 1)),
                       orientation_mask=(0, 0, 0), priority=2, position_tolerance=1e-4)]
    gaze = LookAtTask(robot, 'camera', axis='x', target_link='r_hand', target=(0, 0, 0),
                      priority=3, tolerance=1e-3)
    posture = PostureTask(robot, preferred=theta0, weight=0.05)
    posture.preferred[:6] = theta0[:6]
    solver = TaskSolver(robot, feet + [com] + hands + [gaze, posture],
                        config=IKConfig(max_iterations=500))
    res = solver.solve(q0)
    theta = robot.from_q(res.q)
    print(f'status: {res.status}, iterations: {res.iterations}, time: {res.solve_time:.3f} s')
    print(f"levels: {', '.join(solver.level_names)}")
    print(f'root pose: position {np.round(res.q[:3], 4).tolist()}, '
          f'quaternion {np.round(res.q[3:7], 4).tolist()} (nq = {robot.nq}, nv = {robot.nv})')
    for name, err in res.errors.items():
        print(f'  {name:28s} error {err:.3e}')
    c = com.position(theta)
    print(f'CoM {np.round(c, 4).tolist()} above feet middle {np.round(middle, 4).tolist()}')
    ok = (res.success and res.errors['frame:l_sole'] < 1e-9 and res.errors['frame:r_sole'] < 1e-9
          and res.errors['com'] < 1e-6 and abs(np.linalg.norm(res.q[3:7]) - 1.0) < 1e-12)
    print('OK' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
