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
The tracking run shared by ``pdls-ik demo`` and ``pdls-ik track``: loop, log, summary, bag.

A run calls :meth:`IKSolver.track` at a fixed rate on the goal in force at each cycle time,
records every cycle, then prints a summary and writes a ROS 2 bag and a plot.

The summary is honest about lag: a cycle that did not reach the goal within tolerance counts as
a failure, and each failure is given its cause (:func:`lag_causes`): the velocity bound, a joint
limit, the time budget (cut short on a loaded machine) or the iteration budget. Solve times are
wall-clock times; the CPU time of the tracking thread is given beside them, so that time spent
waiting for a core on a loaded machine shows as the difference.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
import gc
import math
from pathlib import Path
import time
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik import msgs
from pdls_ik.cli.bag import BagWriter
from pdls_ik.diagnostics import status_from_result
from pdls_ik.ik import IKSolver
from pdls_ik.model.collision_batch import pair_distances_many
from pdls_ik.model.joint_vector import wrap_angle
from pdls_ik.tasks import SelfCollisionTask
from pdls_ik.trajectory import planner_for

Array = NDArray[np.float64]
#: the time cap of one tracking cycle in a simulated run (``pdls-ik track`` and ``demo``): the
#: largest ``tracking_timeout``, so that cycles are bounded by their iteration budget alone and
#: a run's answers do not depend on the machine's load (a real-time loop, as the node's, keeps
#: its configured cap)
OFFLINE_TRACKING_TIMEOUT = 10.0
#: time cap of the one-shot solve that finds a run's start configuration [s] (generous, so that
#: the start does not depend on the machine's load)
START_SOLVE_TIMEOUT = 1.0
GoalFn = Callable[[float], Tuple[Array, Array]]


@dataclass
class TrackingLog:
    """
    Every cycle of a run.

    Times t (K,) [s], goals (K, 7) (x y z qx qy qz qw), q (K, n), errors, success flags, solve
    times [s] (wall clock, from the result), CPU times [s] of the tracking thread during each
    cycle, per-level residual norms (K, p), smallest singular values (K,), and the ``IKResult`` of
    each cycle in ``results``.
    """

    joint_names: List[str]
    level_names: List[str]
    dt: float
    t: List[float] = field(default_factory=list)
    goals: List[Array] = field(default_factory=list)
    q: List[Array] = field(default_factory=list)
    results: list = field(default_factory=list)
    cpu_times: List[float] = field(default_factory=list)
    q0: Optional[Array] = None

    def arrays(self) -> Dict[str, Array]:
        """Return the log as NumPy arrays, one per field of the class docstring."""
        res = self.results
        return {'t': np.array(self.t), 'goals': np.array(self.goals), 'q': np.array(self.q),
                'position_error': np.array([r.position_error for r in res]),
                'orientation_error': np.array([r.orientation_error for r in res]),
                'success': np.array([r.success for r in res]),
                'solve_time': np.array([r.solve_time for r in res]),
                'cpu_time': np.array(self.cpu_times),
                'residuals': np.array([r.residual_norms or [math.nan] * len(self.level_names)
                                       for r in res]),
                'min_sigma': np.array([_smallest_positive(r.min_singular_values) for r in res])}


def _smallest_positive(values) -> float:
    """Smallest positive singular value of a cycle (rank-0 levels report 0), NaN if none."""
    positive = [float(v) for v in (values if values is not None else []) if v > 0.0]
    return min(positive) if positive else math.nan


def run_tracking(solver: IKSolver, goal_at: GoalFn, q0: Array, rate: float, duration: float,
                 progress: bool = True) -> TrackingLog:
    """
    Track ``goal_at(t)`` from ``q0`` (n,) at ``rate`` [Hz] for ``duration`` [s].

    The objects alive at the start are frozen out of the garbage collector during the loop
    (``gc.freeze``): a full collection then no longer walks every loaded module, which cost
    one cycle about 25 ms of CPU time.
    """
    dt = 1.0 / rate
    cycles = max(int(round(duration * rate)), 1)
    log = TrackingLog(list(solver.joint_names), list(solver.level_names), dt, q0=q0.copy())
    q = q0.copy()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=cycles, unit='cycle', desc='tracking', leave=False)
    gc.collect()
    gc.freeze()
    try:
        for k in range(1, cycles + 1):
            t = k * dt
            position, quat = goal_at(t)
            cpu = time.thread_time()
            res = solver.track((position, quat), q, dt)
            log.cpu_times.append(time.thread_time() - cpu)
            q = res.q
            log.t.append(t)
            log.goals.append(np.concatenate([position, quat]))
            log.q.append(q.copy())
            log.results.append(res)
            if bar is not None:
                bar.update(1)
    finally:
        gc.unfreeze()
        if bar is not None:
            bar.close()
    return log


def _joint_steps(log: TrackingLog, solver: IKSolver) -> Tuple[Array, Array]:
    """
    Return the joint steps |q_k − q_{k−1}| (K, n) and the velocity bound of one cycle (n,).

    Continuous joints step the short way; the bound is inf for joints without a velocity limit.
    """
    q = np.array(log.q)
    prev = np.vstack([log.q0[None, :], q[:-1]])
    steps = np.abs(q - prev)
    steps[:, solver.continuous] = np.abs(wrap_angle(steps[:, solver.continuous]))
    vmax = np.asarray(solver.linkage.velocity_limits, float) * solver.config.velocity_scaling
    return steps, np.where(np.isfinite(vmax) & (vmax > 0), vmax * log.dt, np.inf)


#: causes of a lagging cycle, in the order they are assigned
LAG_CAUSES = ('joint limit', 'velocity bound', 'time budget', 'iteration budget')


def lag_causes(log: TrackingLog, solver: IKSolver) -> Dict[str, int]:
    """
    Count the failed cycles per cause (:data:`LAG_CAUSES`), each cycle counted once.

    joint limit: a joint of the chain ended at a position limit (``clamped_joints``);
    velocity bound: a joint of the chain moved by its full velocity bound in that cycle;
    time budget: the cycle was stopped by ``tracking_timeout`` (status "max_time");
    iteration budget: anything else: ``tracking_max_iterations`` ran out or the solve stalled
    (for instance at a goal out of reach).
    """
    steps, bound = _joint_steps(log, solver)
    saturated = np.any(steps[:, solver.free] >= (1.0 - 1e-9) * bound[solver.free], axis=1)
    counts = dict.fromkeys(LAG_CAUSES, 0)
    for k, res in enumerate(log.results):
        if res.success:
            continue
        if res.clamped_joints:
            counts['joint limit'] += 1
        elif saturated[k]:
            counts['velocity bound'] += 1
        elif res.status == 'max_time':
            counts['time budget'] += 1
        else:
            counts['iteration budget'] += 1
    return counts


def exit_status(log: TrackingLog, summary: Dict[str, float],
                goal_times: Optional[List[float]] = None) -> int:
    """
    Exit status of a tracking run (``pdls-ik track`` and ``demo``).

    0 when every goal was reached within tolerance and every joint stayed within its limits and
    velocity bound; else 1. A stream of goals (``goal_times`` [s], increasing: a goal file)
    must reach each goal by the last cycle before the next goal takes over, and the last goal
    by the end; a path (``goal_times`` None: a new goal every cycle) must reach it every cycle.
    """
    ok = summary['joint_limit_violations'] == 0 and \
        summary['largest_step_over_velocity_bound'] <= 1.0 + 1e-9 and bool(log.results)
    if goal_times is None:
        checked = range(len(log.results))
    else:
        ends = [bisect.bisect_left(log.t, t) - 1 for t in goal_times[1:]]
        checked = sorted({i for i in ends if i >= 0} | {len(log.results) - 1})
    return 0 if ok and all(log.results[i].success for i in checked) else 1


def summarize(log: TrackingLog, solver: IKSolver) -> Dict[str, float]:
    """
    Summarize a run.

    Cycles, success rate, lagging cycles by cause, solve time p50/p99 [ms] (wall clock and
    CPU), max errors, limit violations, largest joint step [rad] and its ratio to the velocity
    bound, closest approach to a position limit (chain joints) [rad], smallest singular value.
    """
    a = log.arrays()
    q = a['q']
    steps, bound = _joint_steps(log, solver)
    lo, up = solver.lower, solver.upper
    chain = solver.free
    return {
        'cycles': len(log.t),
        'success_rate': float(np.mean(a['success'])),
        'lagging_cycles': lag_causes(log, solver),
        'solve_time_p50_ms': 1e3 * float(np.percentile(a['solve_time'], 50)),
        'solve_time_p99_ms': 1e3 * float(np.percentile(a['solve_time'], 99)),
        'cpu_time_p99_ms': 1e3 * float(np.percentile(a['cpu_time'], 99))
        if len(log.cpu_times) == len(log.t) else math.nan,
        'max_position_error_m': float(np.max(a['position_error'])),
        'max_orientation_error_rad': float(np.max(a['orientation_error'])),
        'joint_limit_violations': int(np.sum((q < lo) | (q > up))),
        'largest_joint_step_rad': float(np.max(steps)),
        'largest_step_over_velocity_bound': float(np.max(steps / bound)),
        'chain_joints': int(np.count_nonzero(chain)),
        'joints_without_velocity_limit': [log.joint_names[i] for i in np.flatnonzero(chain)
                                          if not np.isfinite(bound[i])],
        'min_singular_value': _smallest_positive(a['min_sigma'][np.isfinite(a['min_sigma'])]),
        'closest_to_limit_rad': float(np.min(np.minimum(q - lo, up - q)[:, chain])),
        **_closest_pair(q, solver),
    }


def _step_bound(s: Dict[str, float]) -> str:
    """Return the largest joint step against the velocity bound, or that there is none."""
    free = s.get('joints_without_velocity_limit') or []
    ratio = f"{100 * s['largest_step_over_velocity_bound']:.0f} % of velocity limit x dt"
    if not free:
        return ratio
    if s.get('chain_joints', 0) and len(free) >= s['chain_joints']:
        return 'no velocity limit in the URDF'
    return f"{ratio}; no velocity limit on {', '.join(free)}"


def _closest_pair(q: Array, solver: IKSolver) -> Dict:
    """
    Closest checked link pair over the run (q (cycles, n)), with a SelfCollisionTask.

    Its names, distance [m], the task's d_min [m], and the cycles with a pair below d_min (by
    more than the level's tolerance).
    """
    task = next((t for t in solver.extra_tasks if isinstance(t, SelfCollisionTask)), None)
    if task is None or not task.model.pairs:
        return {}
    dist = pair_distances_many(task.model, q)
    cycle, pair = np.unravel_index(int(np.argmin(dist)), dist.shape)
    below = int(np.count_nonzero(dist.min(axis=1) < task.d_min - task.tolerance))
    return {'closest_pair': '{} / {}'.format(*task.model.pairs[pair]),
            'closest_pair_distance_m': float(dist[cycle, pair]), 'd_min_m': task.d_min,
            'cycles_below_d_min': below}


def print_summary(summary: Dict[str, float], out=None) -> None:
    """Readable lines of :func:`summarize`."""
    s = summary
    lag = s['lagging_cycles']
    why = ', '.join(f'{k} {v}' for k, v in lag.items() if v)
    lines = [
        f"cycles:                  {s['cycles']}",
        f"success rate:            {100 * s['success_rate']:.1f} %",
        f'lagging cycles:          {sum(lag.values())}' + (f' ({why})' if why else ''),
        f"solve time per cycle:    p50 {s['solve_time_p50_ms']:.2f} ms, "
        f"p99 {s['solve_time_p99_ms']:.2f} ms (CPU p99 {s['cpu_time_p99_ms']:.2f} ms)",
        f"max position error:      {s['max_position_error_m']:.3g} m",
        f"max orientation error:   {s['max_orientation_error_rad']:.3g} rad",
        f"joint-limit violations:  {s['joint_limit_violations']}",
        f"largest joint step:      {s['largest_joint_step_rad']:.4f} rad ({_step_bound(s)})",
        f"closest to a limit:      {s['closest_to_limit_rad']:.4f} rad "
        f"({math.degrees(s['closest_to_limit_rad']):.1f} deg, joints of the chain)",
        f"smallest singular value: {s['min_singular_value']:.3g}",
    ]
    if 'closest_pair' in s:
        lines.append(f"closest link pair:       {s['closest_pair']} at "
                     f"{s['closest_pair_distance_m']:.4f} m (d_min {s['d_min_m']:g} m; "
                     f"{s['cycles_below_d_min']} cycles below it)")
    print('\n'.join(lines), file=out)


def write_bag(log: TrackingLog, solver: IKSolver, path: Path, start_ns: int) -> Dict[str, int]:
    """
    Write /goal_pose, /joint_states, /joint_trajectory and /diagnostics to an MCAP bag.

    Stamps: cycle k at ``start_ns + t_k``, in headers and as receive times (trajectories: header
    stamp zero, "start now", as the node sends them). Joint states list the mimic joints too
    (value from their master); trajectories are the node's stream
    (:func:`pdls_ik.trajectory.planner_for`): the controller's joints, continuing the commanded
    motion. Returns the message count per topic.
    """
    from rosbags.typesys import Stores, get_typestore

    typestore = get_typestore(Stores.ROS2_JAZZY)
    types = msgs.rosbags_types(typestore)
    linkage = solver.linkage
    mimic = [j for j in linkage.joints if getattr(j, 'mimic', None)]
    names = list(log.joint_names) + [j.name for j in mimic]
    # what pdls_ik_node publishes to a controller (its default controller_joints)
    stream = planner_for(linkage, solver.config, log.dt, np.flatnonzero(solver.free))
    stream.reset(log.q0)
    prev = log.q0
    with BagWriter(path, typestore) as bag:
        for t, goal, q, res in zip(log.t, log.goals, log.q, log.results):
            stamp = start_ns + int(round(t * 1e9))
            sec = msgs.time_msg_from_ns(types, stamp)     # exact, no float rounding
            bag.write('/goal_pose', msgs.pose_stamped(types, (goal[:3], goal[3:]),
                                                      solver.base_link, sec), stamp)
            vel = (q - prev) / log.dt
            pos_all = np.concatenate([q, [j.multiplier * q[j.index] + j.offset for j in mimic]])
            vel_all = np.concatenate([vel, [j.multiplier * vel[j.index] for j in mimic]])
            bag.write('/joint_states', msgs.joint_state(types, names, pos_all, vel_all,
                                                        stamp=sec), stamp)
            traj = stream.step(q)
            bag.write('/joint_trajectory', msgs.joint_trajectory(types, traj), stamp)
            status = status_from_result(res, name='pdls_ik', hardware_id=linkage.name)
            bag.write('/diagnostics', msgs.diagnostic_array(types, [status], sec), stamp)
            prev = q
        return dict(bag.counts)


def wall_start_ns() -> int:
    """Return the wall-clock time in integer nanoseconds (start stamp of a bag)."""
    return time.time_ns()
