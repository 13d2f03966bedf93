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
The problem sets of the strict-priority audit (issue 14), counted on the current code.

1. posture and limits: 300 random feasible one-level problems (2 rows, 5 variables, limits
   ±0.3, a reachable target) with a posture variation pulling outside the limits; how many end
   with level 0 unsolved (``|e0| > 1e-6``), with and without the posture. Then the Panda: 25
   random reachable poses, a posture task whose preferred values sit at the joint limits, one
   local solve from the middle of the limits: how many poses are met, with and without it.
2. rank at scale: 200 random two-level problems whose level 1 lies in level 0's row space,
   Jacobian entries ~1e6, λ = 0: how many steps leave ``|e0 after| / |e0| > 1e-6``.
3. limit strategies: 200 random two-level bounded problems (3 + 3 rows, 7 variables, box ±0.2
   around θ = 0) whose unbounded step leaves the box; one undamped step by each strategy,
   compared with the strict lexicographic bounded optimum (level 0 by ``scipy.optimize.
   lsq_linear``, level 1 by SLSQP with level 0 held at its optimum): how many steps end above it
   at level 0, and the excess at level 1 (median, max); whether PGS converged. Strategies: the
   clamping loop (one step of it is not meant to be optimal), ``pgs_weighted`` (the PGS of
   before issue 14: levels stacked with weights 1e-3^k) and ``pgs`` (strict, level by level).
   Then 300 single-level bounded problems (4 rows, 6 variables, an unreachable target) solved
   to the end by each strategy, compared with the bounded optimum.

    python benchmarks/audit_strict_priority.py [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from pdls_ik import load_urdf, pdls  # noqa: E402
from pdls_ik.config import IKConfig  # noqa: E402
from pdls_ik.ik.task_problem import pdls_options, TaskProblem  # noqa: E402
from pdls_ik.tasks import FrameTask, PostureTask  # noqa: E402
from scipy.optimize import lsq_linear, minimize  # noqa: E402

#: PGS sweep budget of the one-step comparison (the PDLSOptions default)
SWEEPS = 200
URDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'urdf', 'panda.urdf')


class _Linear:
    """One linear level b − Aθ, with an optional posture pulling toward ``pref``."""

    def __init__(self, A, b, pref=None):
        self.A, self.b, self.pref = A, b, pref

    def levels(self, th):
        return [(self.b - self.A @ th, self.A)]

    def posture_variation(self, th):
        return None if self.pref is None else 0.5 * (self.pref - th)


def posture_leak(count: int = 300):
    """Count finding 1, linear: (unsolved with posture, unsolved without) out of count."""
    bad = [0, 0]
    n = 5
    for seed in range(count):
        rng = np.random.default_rng(seed)
        A = rng.normal(size=(2, n))
        b = A @ rng.uniform(-.25, .25, n)
        pref = rng.choice([-1., 1.], n)
        for i, p in enumerate((pref, None)):
            res = pdls.solve(_Linear(A, b, p), np.zeros(n), -.3 * np.ones(n), .3 * np.ones(n))
            bad[i] += res.residual_norms[0] > 1e-6
    return bad


def panda_posture(count: int = 25, seed: int = 14):
    """Count finding 1, Panda: (poses met with a posture at the limits, poses met without)."""
    robot = load_urdf(URDF)
    rng = np.random.default_rng(seed)
    lo, up = robot.lower, robot.upper
    start = 0.5 * (lo + up)
    options = pdls_options(IKConfig())
    met = [0, 0]
    for _ in range(count):
        q = rng.uniform(lo, up)
        frame = FrameTask(robot, 'panda_link8')
        frame.set_target(robot.forward_kinematics(q, 'panda_link8'))
        preferred = np.where(rng.random(robot.n) < 0.5, lo, up)
        for i, tasks in enumerate(([frame, PostureTask(robot, preferred, weight=0.5)],
                                   [frame])):
            problem = TaskProblem.from_tasks(tasks, robot.n, robot.continuous)
            res = pdls.solve(problem, start, lo, up, options)
            met[i] += bool(problem.converged(res.theta, problem.levels(res.theta)))
    return met


def rank_at_scale(count: int = 200, scale: float = 1e6):
    """Count finding 2: how many undamped steps leave |e0 after| / |e0| > 1e-6, out of count."""
    bad = 0
    n = 7
    for seed in range(count):
        rng = np.random.default_rng(seed)
        J0 = rng.normal(size=(3, n)) * scale
        M = rng.normal(size=(2, 3))
        e0 = rng.normal(size=3) * scale / 100
        e1 = M @ e0 + rng.normal(size=2) * scale / 100
        st = pdls.step([(e0, J0), (e1, M @ J0)], np.zeros(n),
                       options=pdls.PDLSOptions(damping=0.0))
        after = np.linalg.norm(e0 - J0 @ st.theta_diff) / np.linalg.norm(e0)
        bad += after > 1e-6
    return bad


def lexicographic_optimum(A0, b0, A1, b1, lo, up):
    """(‖A0x − b0‖, ‖A1x − b1‖) at the strict lexicographic bounded optimum."""
    x0 = lsq_linear(A0, b0, bounds=(lo, up), tol=1e-14, method='bvls').x
    y = A0 @ x0
    res = minimize(lambda x: 0.5 * np.sum((A1 @ x - b1) ** 2), x0,
                   jac=lambda x: A1.T @ (A1 @ x - b1), method='SLSQP',
                   bounds=list(zip(lo, up)),
                   constraints=[{'type': 'eq', 'fun': lambda x: A0 @ x - y,
                                 'jac': lambda x: A0}],
                   options={'ftol': 1e-15, 'maxiter': 500})
    return np.linalg.norm(A0 @ x0 - b0), np.linalg.norm(A1 @ res.x - b1)


def bounded_two_level(count: int = 200, strategies=('clamping', 'pgs_weighted', 'pgs')):
    """Count finding 5, one step: per strategy (problems, level 0 above, level 1 excesses)."""
    n, box = 7, 0.2
    problems = []
    for seed in range(count):
        rng = np.random.default_rng(1000 + seed)
        A0, A1 = rng.normal(size=(3, n)), rng.normal(size=(3, n))
        b0, b1 = rng.normal(size=3), rng.normal(size=3)
        free = pdls.step([(b0, A0), (b1, A1)], np.zeros(n),
                         options=pdls.PDLSOptions(damping=0.0, respect_limits=False))
        if np.abs(free.theta_diff).max() > box:
            problems.append((A0, b0, A1, b1))
    lo, up = -box * np.ones(n), box * np.ones(n)
    optimum = [lexicographic_optimum(*p, lo, up) for p in problems]
    out = {}
    for strategy in strategies:
        opts = pdls.PDLSOptions(damping=0.0, theta_diff_max_mag=np.inf,
                                limit_strategy=strategy, pgs_max_iterations=SWEEPS)
        excess0, excess1, unconverged = [], [], 0
        for (A0, b0, A1, b1), (r0, r1) in zip(problems, optimum):
            st = pdls.step([(b0, A0), (b1, A1)], np.zeros(n), lo, up, options=opts)
            x = st.theta_diff
            e0, e1 = np.linalg.norm(A0 @ x - b0), np.linalg.norm(A1 @ x - b1)
            excess0.append(e0 - r0)
            if e0 <= r0 + 1e-6:
                excess1.append(e1 - r1)
            unconverged += not st.pgs_converged
        out[strategy] = (len(problems), excess0, excess1, unconverged)
    return out


def bounded_one_level(count: int = 300, strategies=('clamping', 'pgs_weighted', 'pgs')):
    """Count finding 5, full solves: per strategy, how many end above the bounded optimum."""
    n, m, box = 6, 4, 0.3
    out = dict.fromkeys(strategies, 0)
    for seed in range(count):
        rng = np.random.default_rng(5000 + seed)
        A = rng.normal(size=(m, n))
        b = rng.normal(size=m) * 2.0
        lo, up = -box * np.ones(n), box * np.ones(n)
        best = np.linalg.norm(A @ lsq_linear(A, b, bounds=(lo, up), tol=1e-14,
                                             method='bvls').x - b)
        for strategy in strategies:
            res = pdls.solve(_Linear(A, b), np.zeros(n), lo, up,
                             pdls.PDLSOptions(limit_strategy=strategy, max_iterations=200))
            out[strategy] += res.residual_norms[0] > best + 1e-6
    return out, count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--quick', action='store_true', help='a tenth of each set')
    args = parser.parse_args()
    f = 10 if args.quick else 1
    leak = posture_leak(300 // f)
    print(f'1. posture and limits: level 0 unsolved in {leak[0]}/{300 // f} with the posture, '
          f'{leak[1]}/{300 // f} without')
    met = panda_posture(max(25 // f, 5))
    print(f'   Panda, posture at the limits: pose met {met[0]}/{max(25 // f, 5)}, '
          f'without posture {met[1]}/{max(25 // f, 5)}')
    print(f'2. rank at scale 1e6, λ = 0: level 0 destroyed in {rank_at_scale(200 // f)}/'
          f'{200 // f}')
    for strategy, (total, excess0, excess1, unconv) in bounded_two_level(200 // f).items():
        ex0 = np.array(excess0)
        ex = np.array(excess1) if excess1 else np.zeros(1)
        print(f'5. {strategy:12s}: {total} bounded two-level steps (λ = 0, {SWEEPS} sweeps): '
              f'level 0 above its optimum in {int(np.sum(ex0 > 1e-6))} (median '
              f'{np.median(ex0):.2g}, max {ex0.max():.2g}); where level 0 is optimal, level 1 '
              f'excess median {np.median(ex):.2g}, max {ex.max():.2g}; PGS unconverged {unconv}')
    stalls, total = bounded_one_level(300 // f)
    for strategy, bad in stalls.items():
        print(f'5. {strategy:12s}: {bad}/{total} single-level solves end above the bounded '
              'optimum')
    return 0


if __name__ == '__main__':
    sys.exit(main())
