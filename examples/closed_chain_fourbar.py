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
Closed chain: drive the crank of a planar four-bar, the passive joints follow the loop.

The loop closure (config/fourbar_closures.yaml) sits on the highest "invariant" level, the crank
target (a joint lock on the input joint) one level below, so the passive coupler and rocker joints
move to keep the loop closed (chain closures as invariant effectors, as in MSim's
``msim.control.Solver``). Each step is checked against the closed-form position analysis of the
four-bar (intersection of the circles of radius |AB| about A and |DB| about D).

Run:  python examples/closed_chain_fourbar.py        (exit status 0 when every check passes)
"""
from __future__ import annotations

import math
from pathlib import Path
import sys

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pdls_ik import load_urdf  # noqa: E402
from pdls_ik.config import IKConfig  # noqa: E402
from pdls_ik.ik.task_config import load_task_config  # noqa: E402
from pdls_ik.ik.task_solver import TaskSolver  # noqa: E402

CRANK, COUPLER, ROCKER, GROUND = 0.1, 0.25, 0.2, 0.2      # link lengths [m]


def analytic(theta2: float, branch: float):
    """(coupler_joint, rocker_joint) angles [rad] of the four-bar at crank angle theta2."""
    a = np.array([CRANK * math.cos(theta2), CRANK * math.sin(theta2)])
    d = np.array([GROUND, 0.0])
    dist = float(np.linalg.norm(d - a))
    along = (COUPLER ** 2 - ROCKER ** 2 + dist ** 2) / (2 * dist)
    h = math.sqrt(max(COUPLER ** 2 - along ** 2, 0.0))
    u = (d - a) / dist
    b = a + along * u + branch * h * np.array([-u[1], u[0]])
    theta3 = math.atan2(b[1] - a[1], b[0] - a[0])
    theta4 = math.atan2(b[1] - d[1], b[0] - d[0])
    wrap = lambda x: (x + math.pi) % (2 * math.pi) - math.pi  # noqa: E731
    return wrap(theta3 - theta2), wrap(theta4)


def main() -> int:
    robot = load_urdf(ROOT / 'urdf' / 'fourbar.urdf')
    config = load_task_config(ROOT / 'config' / 'fourbar_closures.yaml')
    tasks = config.build(robot)
    closure, crank = tasks
    solver = TaskSolver(robot, tasks, config=IKConfig(max_iterations=200))
    q = np.array([0.0, 1.2, 1.8])                  # not assembled: the first solve closes the loop
    worst_closure = worst_analytic = 0.0
    ok = True
    print(f"{'crank [deg]':>11} {'coupler':>9} {'rocker':>9} {'closure err [m]':>16} "
          f"{'vs analytic [rad]':>18} iters")
    for deg in range(0, 361, 30):
        theta2 = math.radians(deg)
        crank.values[:] = (theta2 + math.pi) % (2 * math.pi) - math.pi
        res = solver.solve(q)
        q = res.q
        pos_err, _ = closure.errors(q)
        branch = 1.0 if deg == 0 and q[2] > 0 else None
        if branch is None:
            gap_plus = abs(analytic(theta2, 1.0)[1] - q[2])
            gap_minus = abs(analytic(theta2, -1.0)[1] - q[2])
            branch = 1.0 if gap_plus < gap_minus else -1.0
        ref = np.array(analytic(theta2, branch))
        dev = float(np.max(np.abs((q[1:] - ref + math.pi) % (2 * math.pi) - math.pi)))
        worst_closure, worst_analytic = max(worst_closure, pos_err), max(worst_analytic, dev)
        ok &= res.success and pos_err < 1e-9 and dev < 1e-8
        print(f'{deg:11d} {q[1]:9.5f} {q[2]:9.5f} {pos_err:16.3e} {dev:18.3e} {res.iterations:5d}')
    print(f'max closure error: {worst_closure:.3e} m (required < 1e-9)')
    print(f'max deviation from the analytic four-bar: {worst_analytic:.3e} rad')
    print('OK' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
