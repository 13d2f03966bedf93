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
How many iterations a one-shot solve's first local solve needs when it converges.

Run: ``python benchmarks/first_solve_iterations.py [--goals N]``. For the bundled Panda and UR5,
N random reachable goals (default 1,000), half from the middle of the limits and half from random
in-limit seeds, solved with random restarts on and no effective timeout; prints the iteration
percentiles of the solves that converged without a restart. :data:`pdls_ik.ik.
FIRST_SOLVE_MIN_ITERATIONS` (the iterations a solve always runs before its timeout may cut it)
is chosen above their maximum.
"""
from __future__ import annotations

import argparse

import numpy as np
from pdls_ik import IKSolver, load_urdf
from pdls_ik.ik import FIRST_SOLVE_MIN_ITERATIONS
from pdls_ik.resources import bundled_urdf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--goals', type=int, default=1000)
    args = parser.parse_args()
    print(f'FIRST_SOLVE_MIN_ITERATIONS = {FIRST_SOLVE_MIN_ITERATIONS}')
    for name, tip in (('panda', 'panda_link8'), ('ur5', 'ee_link')):
        robot = load_urdf(bundled_urdf(name))
        solver = IKSolver(robot, tip)
        solver.warm_up()
        rng = np.random.default_rng(1)
        lo = np.where(np.isfinite(robot.lower), robot.lower, -np.pi)
        hi = np.where(np.isfinite(robot.upper), robot.upper, np.pi)
        first = []
        for k in range(args.goals):
            goal = robot.forward_kinematics(rng.uniform(lo, hi), tip)
            seed = rng.uniform(lo, hi) if k % 2 else None
            res = solver.solve(goal, seed=seed, timeout=10.0)
            if res.success and res.restarts == 0:
                first.append(res.iterations)
        p50, p90, p99, top = np.percentile(first, [50, 90, 99, 100])
        print(f'{name}: {len(first)} of {args.goals} solved by the first local solve; '
              f'iterations p50 {p50:.0f}, p90 {p90:.0f}, p99 {p99:.0f}, max {top:.0f}')


if __name__ == '__main__':
    main()
