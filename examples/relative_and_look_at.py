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
Relative frame task (two arms carry a bar) and look-at task (a head camera follows a hand).

1. Bimanual robot: the left tool is held at its current position in the right tool's frame
   (the two ends of a carried bar, level 0) while the right tool moves the bar (level 1); both
   arms and the torso move.
2. Humanoid (fixed pelvis): the right hand reaches a point (level 0) and the head camera's
   x axis points at the hand (level 1, two rows).

Run:  python examples/relative_and_look_at.py        (exit status 0 when every check passes)
"""
from __future__ import annotations

from pathlib import Path
import sys

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdls_ik import load_urdf  # noqa: E402
from pdls_ik.ik.task_solver import TaskSolver  # noqa: E402
from pdls_ik.tasks import FrameTask, LookAtTask, RelativeFrameTask  # noqa: E402


def carry_bar() -> bool:
    robot = load_urdf(ROOT / 'urdf' / 'bimanual.urdf')
    q0 = np.zeros(robot.n)
    for name, value in (('l_shoulder_lift', 0.5), ('l_elbow', -1.0), ('r_shoulder_lift', 0.5),
                        ('r_elbow', -1.0), ('l_shoulder_pan', -0.4), ('r_shoulder_pan', 0.4)):
        q0[robot.joint_index(name)] = value
    hold = RelativeFrameTask(robot, 'l_tool', 'r_tool', orientation_mask=(0, 0, 0),
                             position_tolerance=1e-10, priority=0)
    hold.hold(q0)
    start = robot.forward_kinematics(q0, 'r_tool')[:3, 3]
    goal = start + (0.05, 0.08, 0.04)
    move = FrameTask(robot, 'r_tool', target=(goal, (0, 0, 0, 1)), orientation_mask=(0, 0, 0),
                     position_tolerance=1e-9, priority=1)
    res = TaskSolver(robot, [hold, move]).solve(q0)
    bar0 = robot.forward_kinematics(q0, 'l_tool', 'r_tool')[:3, 3]
    bar = robot.forward_kinematics(res.q, 'l_tool', 'r_tool')[:3, 3]
    reach = np.linalg.norm(robot.forward_kinematics(res.q, 'r_tool')[:3, 3] - goal)
    print(f'[carry a bar] {res.status} in {res.iterations} iterations')
    print(f'  bar end in the right tool frame: error {np.linalg.norm(bar - bar0):.3e} m')
    print(f'  right tool to its goal:          error {reach:.3e} m')
    print(f'  left arm joints moved by {np.abs(res.q - q0)[1:5].max():.3f} rad')
    return res.success and np.linalg.norm(bar - bar0) < 1e-9 and reach < 1e-8


def follow_hand() -> bool:
    robot = load_urdf(ROOT / 'urdf' / 'humanoid.urdf')
    q0 = np.clip(np.zeros(robot.n), robot.lower, robot.upper)
    hand = FrameTask(robot, 'r_hand', target=((0.3, -0.25, 0.35), (0, 0, 0, 1)),
                     orientation_mask=(0, 0, 0), position_tolerance=1e-9, priority=0)
    gaze = LookAtTask(robot, 'camera', axis='x', target_link='r_hand', target=(0, 0, -0.05),
                      tolerance=1e-9, priority=1)
    res = TaskSolver(robot, [hand, gaze]).solve(q0)
    T = robot.forward_kinematics(res.q, 'camera')
    Th = robot.forward_kinematics(res.q, 'r_hand')
    d = Th[:3, :3] @ (0, 0, -0.05) + Th[:3, 3] - T[:3, 3]
    # atan2 of the cross and dot products: arccos of a cosine within one rounding of 1 reads
    # 1.5e-8 rad however small the angle
    angle = float(np.arctan2(np.linalg.norm(np.cross(T[:3, 0], d)), T[:3, 0] @ d))
    print(f'[look at the hand] {res.status} in {res.iterations} iterations')
    print(f"  hand to its goal:     error {res.errors['frame:r_hand']:.3e} m")
    print(f'  camera axis to hand:  error {angle:.3e} rad (by forward kinematics)')
    return res.success and angle < 1e-8


def main() -> int:
    ok = carry_bar()
    ok = follow_hand() and ok
    print('OK' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
