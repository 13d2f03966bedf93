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
Picture of a tracking run (``pdls-ik demo`` and ``track``; matplotlib, Agg: no display needed).

Rows, top to bottom:

1. the goal path against the achieved tip path in the base frame, three projections (top x-y,
   front x-z, side y-z) [m], cycles outside tolerance marked;
2. each joint of the chain (and any other joint an extra task moves; never fingers or other
   branches) in its own unit [rad or m] against its position limits (the region beyond a limit
   shaded; the view follows the motion, a limit far from it is written, not drawn, so that a
   robot with ±2π limits does not flatten), and below it its velocity [rad/s or m/s] against
   the URDF velocity limit and the bound the tracking uses (limit × ``velocity_scaling``);
3. the true, unweighted error of every task at the achieved q, labelled by its priority level
   and split by unit: position [m] and orientation [rad] on separate axes (others on a third),
   tolerances as dashed lines. The solver's per-level residual is not plotted: it is weighted,
   and in tracking it is measured to the cycle's velocity-bounded waypoint, not to the goal;
4. with a self-collision level (``--self-collision``): the distance of the link pairs that were
   the closest at some cycle (each named) against ``d_min`` (dashed; below it shaded);
5. the solve time of each cycle (wall clock, CPU time of the tracking thread) against the cycle
   budget 1/rate.

:func:`tracking_plot_data` computes what is drawn (tested); :func:`plot_tracking` draws it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import io
import math
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.model.collision_batch import pair_distances_many
from pdls_ik.tasks import SelfCollisionTask

#: errors below this are drawn at it on the log axes
ERROR_FLOOR = 1e-10


@dataclass
class TaskErrorCurve:
    """
    True error of one task over a run.

    :ivar level: priority level of the task (0 highest).
    :ivar label: e.g. "L1 pose:panda_link8 position".
    :ivar unit: "m", "rad" or "" (the task's own unit).
    :ivar values: (K,) error at each cycle's achieved q.
    :ivar tolerance: success tolerance in the same unit, None when the task has none.
    """

    level: int
    label: str
    unit: str
    values: np.ndarray
    tolerance: Optional[float] = None


@dataclass
class ClearanceCurves:
    """
    Link-pair distances over a run with a self-collision level.

    :ivar d_min: [m] the level's smallest allowed distance.
    :ivar pairs: "link_a / link_b" of the pairs drawn: those closest at some cycle, closest
        first (at most :data:`CLEARANCE_PAIRS`).
    :ivar distances: (K, len(pairs)) their distances [m] at each cycle's achieved q.
    :ivar closest: (K,) the smallest distance over every checked pair [m].
    """

    d_min: float
    pairs: List[str]
    distances: np.ndarray
    closest: np.ndarray


#: pairs drawn in the clearance panel, at most
CLEARANCE_PAIRS = 4


def clearance_curves(q: np.ndarray, solver) -> Optional[ClearanceCurves]:
    """Return the :class:`ClearanceCurves` of a run's q (K, n), None without the level."""
    task = next((t for t in solver.extra_tasks if isinstance(t, SelfCollisionTask)), None)
    if task is None or not task.model.pairs or len(q) == 0:
        return None
    D = pair_distances_many(task.model, q)
    nearest = np.unique(np.argmin(D, axis=1))
    chosen = nearest[np.argsort(D[:, nearest].min(axis=0))][:CLEARANCE_PAIRS]
    return ClearanceCurves(task.d_min, ['{} / {}'.format(*task.model.pairs[k]) for k in chosen],
                           D[:, chosen], D.min(axis=1))


@dataclass
class TrackingPlotData:
    """
    What :func:`plot_tracking` draws, computed from a run.

    :ivar t: (K,) cycle times [s]; dt: cycle period [s] (the budget 1/rate).
    :ivar goal_xyz, tip_xyz: (K, 3) goal and achieved tip positions in the base frame [m].
    :ivar success: (K,) cycle reached its goal within tolerance.
    :ivar joints: indices (into the robot's q) of the joints drawn; names, units ("rad"/"m").
    :ivar q: (K, len(joints)) positions; qd: (K, len(joints)) velocities (q_k − q_{k−1}) / dt,
        continuous joints the short way.
    :ivar lower, upper: (len(joints),) position limits (±inf when none).
    :ivar velocity_limit: (len(joints),) URDF velocity limits, inf when the URDF gives none (0).
    :ivar velocity_bound: the tracking's bound, velocity_limit × velocity_scaling.
    :ivar errors: one :class:`TaskErrorCurve` per task and unit, highest level first.
    :ivar solve_time, cpu_time: (K,) [s] (cpu_time empty when not logged).
    :ivar clearance: link-pair distances (:class:`ClearanceCurves`), with a self-collision
        level; else None.
    """

    t: np.ndarray
    dt: float
    goal_xyz: np.ndarray
    tip_xyz: np.ndarray
    success: np.ndarray
    joints: List[int]
    names: List[str]
    units: List[str]
    q: np.ndarray
    qd: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    velocity_limit: np.ndarray
    velocity_bound: np.ndarray
    errors: List[TaskErrorCurve] = field(default_factory=list)
    solve_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cpu_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    clearance: Optional[ClearanceCurves] = None


def plotted_joints(solver, q: np.ndarray) -> List[int]:
    """
    Return the indices of the joints worth drawing.

    The chain from base to tip, then any other joint the solver moved (an extra task's), never
    a joint that no task moves (fingers, other branches).

    :param q: (K, n) the run's joint positions.
    """
    chain = [int(i) for i in solver.chain_variables]
    moved = np.flatnonzero(solver.free & (np.ptp(q, axis=0) > 0.0)) if len(q) else []
    return chain + [int(i) for i in moved if int(i) not in chain]


def _task_units(task) -> List[Tuple[str, str]]:
    """(suffix, unit) of the curves of one task: frames and 6-row closures give two."""
    if hasattr(task, 'errors_from_residual') or (task.kind == 'invariant' and task.dim == 6):
        return [('position', 'm'), ('orientation', 'rad')]
    unit = {'CoMTask': 'm', 'PositionBoundTask': 'm', 'LookAtTask': 'rad',
            'ClosureTask': 'm'}.get(type(task).__name__, '')
    return [('', unit)]


def _extra_task_errors(task, q: np.ndarray) -> List[np.ndarray]:
    """Return the true errors of an extra task at each row of q (K, n), per :func:`_task_units`."""
    rows = []
    for qk in q:
        e, _ = task.compute(qk)
        if hasattr(task, 'errors_from_residual'):
            rows.append(task.errors_from_residual(e))
        elif task.kind == 'invariant' and e.size == 6:
            rows.append((np.linalg.norm(e[:3]) / task.weight, np.linalg.norm(e[3:]) / task.weight))
        else:
            rows.append((task.residual_error(e)[0],))
    return [np.asarray(col, dtype=float) for col in zip(*rows)]


def task_error_curves(log, solver) -> List[TaskErrorCurve]:
    """
    Return the true (unweighted) error of every task of ``solver`` at each cycle, by level.

    The tip pose: position [m] and orientation [rad] of each result (to the goal, not to the
    cycle's waypoint); joint locks: the largest |q_i − locked value| [rad or m]; extra tasks:
    their errors recomputed at the achieved q (frames and closures split into position and
    orientation). Posture is no level (it acts in the null space) and is left out.
    """
    tasks = [solver.frame] + ([solver.locks] if solver.locks is not None else []) + \
        list(solver.extra_tasks or [])
    stack = LevelStack(tasks, solver.n)
    q = np.array(log.q)
    res = log.results
    curves = []
    for level, group in enumerate(stack.groups):
        for task in group:
            name = f'L{level} {task.name}'
            if task is solver.frame:
                curves.append(TaskErrorCurve(level, f'{name} position', 'm',
                                             np.array([r.position_error for r in res]),
                                             task.position_tolerance))
                if not solver.config.position_only and task.orientation_tolerance < math.pi:
                    curves.append(TaskErrorCurve(level, f'{name} orientation', 'rad',
                                                 np.array([r.orientation_error for r in res]),
                                                 task.orientation_tolerance))
            elif task is solver.locks:
                err = np.max(np.abs(q[:, task.indices] - task.values), axis=1)
                kinds = {solver.linkage.joint_types[i] == 'prismatic' for i in task.indices}
                curves.append(TaskErrorCurve(level, f'{name} (largest offset)',
                                             'm' if kinds == {True} else 'rad', err,
                                             getattr(task, 'tolerance', None)))
            else:
                for (suffix, unit), values in zip(_task_units(task),
                                                  _extra_task_errors(task, q)):
                    tol = getattr(task, f'{suffix}_tolerance', None) if suffix else None
                    tol = tol if tol is not None else getattr(task, 'tolerance', None)
                    curves.append(TaskErrorCurve(level, f'{name} {suffix}'.rstrip(), unit,
                                                 values, tol))
    return curves


def tracking_plot_data(log, solver) -> TrackingPlotData:
    """
    Compute what the picture of a run shows.

    :param log: a :class:`pdls_ik.cli.tracking.TrackingLog`.
    :param solver: the :class:`pdls_ik.ik.IKSolver` that ran it.
    """
    linkage = solver.linkage
    q_all = np.array(log.q)
    joints = plotted_joints(solver, q_all)
    prev = np.vstack([log.q0[None, :], q_all[:-1]])
    step = q_all - prev
    cont = np.asarray(solver.continuous, dtype=bool)
    step[:, cont] = (step[:, cont] + math.pi) % (2 * math.pi) - math.pi
    vmax = np.asarray(linkage.velocity_limits, dtype=float)[joints]
    vmax = np.where(np.isfinite(vmax) & (vmax > 0.0), vmax, np.inf)
    tip = np.array([linkage.forward_kinematics(qk, solver.tip_link, solver.base_link)[:3, 3]
                    for qk in q_all])
    cpu = np.asarray(log.cpu_times, dtype=float)
    return TrackingPlotData(
        t=np.asarray(log.t, dtype=float), dt=float(log.dt),
        goal_xyz=np.array(log.goals)[:, :3], tip_xyz=tip,
        success=np.array([r.success for r in log.results], dtype=bool),
        joints=joints, names=[solver.joint_names[i] for i in joints],
        units=['m' if linkage.joint_types[i] == 'prismatic' else 'rad' for i in joints],
        q=q_all[:, joints], qd=step[:, joints] / log.dt,
        lower=np.asarray(solver.lower, dtype=float)[joints],
        upper=np.asarray(solver.upper, dtype=float)[joints],
        velocity_limit=vmax, velocity_bound=vmax * solver.config.velocity_scaling,
        errors=task_error_curves(log, solver),
        solve_time=np.array([r.solve_time for r in log.results], dtype=float),
        cpu_time=cpu if cpu.shape == (len(log.t),) else np.zeros(0),
        clearance=clearance_curves(q_all, solver))


def view_range(data_lo: float, data_hi: float, limits: Tuple[float, float],
               min_span: float) -> Tuple[float, float]:
    """
    Return the vertical range of a joint panel.

    The motion with a margin, widened to show a limit only when the limit is within one motion
    span of the data (a far limit, as ±2π, would flatten the curve).

    :param min_span: smallest span of the view (a joint that barely moves).
    """
    span = max(data_hi - data_lo, min_span)
    lo, hi = data_lo - 0.15 * span, data_hi + 0.15 * span
    if math.isfinite(limits[0]) and data_lo - limits[0] <= span:
        lo = min(lo, limits[0] - 0.1 * span)
    if math.isfinite(limits[1]) and limits[1] - data_hi <= span:
        hi = max(hi, limits[1] + 0.1 * span)
    return lo, hi


def _limit_lines(ax, lo: float, hi: float, view: Tuple[float, float],
                 color: str = 'tab:red') -> None:
    """Draw the limits that fall in the view, the region beyond them shaded."""
    if math.isfinite(lo) and lo >= view[0]:
        ax.axhspan(view[0], lo, color=color, alpha=0.15, lw=0)
        ax.axhline(lo, color=color, lw=0.9)
    if math.isfinite(hi) and hi <= view[1]:
        ax.axhspan(hi, view[1], color=color, alpha=0.15, lw=0)
        ax.axhline(hi, color=color, lw=0.9)


def limits_text(lo: float, hi: float, view: Tuple[float, float], unit: str) -> str:
    """Limits as written in a joint panel, those out of the view marked "off scale"."""
    if not math.isfinite(lo) and not math.isfinite(hi):
        return 'no position limit'
    far = (math.isfinite(lo) and lo < view[0]) or (math.isfinite(hi) and hi > view[1])
    return f'limits {lo:.3g} … {hi:.3g} {unit}' + (', off scale' if far else '')


def _decades(ax, series: List[np.ndarray], tolerances: List[float]) -> None:
    """Log axis spanning at least three decades around the data and tolerances (major ticks)."""
    from matplotlib.ticker import NullFormatter

    values = np.concatenate([_log_floor(v) for v in series] + [np.asarray(tolerances, float)])
    lo, hi = float(values.min()), float(values.max())
    lo = min(lo, hi * 1e-3)
    ax.set_ylim(lo / 2.0, hi * 2.0)
    ax.yaxis.set_minor_formatter(NullFormatter())


def _log_floor(values: np.ndarray) -> np.ndarray:
    return np.maximum(np.nan_to_num(values, nan=ERROR_FLOOR), ERROR_FLOOR)


def plot_tracking(data: TrackingPlotData, path: Union[str, Path],
                  title: str = 'pdls_ik tracking',
                  summary: Optional[Dict[str, object]] = None) -> Path:
    """
    Write the PNG of a run (see the module docstring for what each row shows).

    :param data: from :func:`tracking_plot_data`.
    :param summary: optional :func:`pdls_ik.cli.tracking.summarize` result, printed beside the
        paths.
    :return: the path written; its folder is created.
    """
    import matplotlib.pyplot as plt

    fig = tracking_figure(data, title, summary)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _save_png(fig, path)
    plt.close(fig)
    return path


def tracking_figure(data: TrackingPlotData, title: str = 'pdls_ik tracking',
                    summary: Optional[Dict[str, object]] = None):
    """Return the matplotlib figure of :func:`plot_tracking` (Agg backend; close it after use)."""
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib.lines import Line2D
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    n = len(data.joints)
    cols = max(1, min(n, 7))
    joint_rows = max(1, math.ceil(n / cols))
    heights = [3.3] + [3.4] * joint_rows + ([2.3] if data.clearance else []) + [2.3, 2.0]
    fig = plt.figure(figsize=(16, sum(heights) + 1.2))
    outer = fig.add_gridspec(len(heights), 1, height_ratios=heights, hspace=0.55,
                             left=0.05, right=0.98, top=0.95, bottom=0.04)
    fig.suptitle(title, fontsize=13)
    t = data.t

    # row 1: the paths, three projections, and the legend/summary column
    row = outer[0].subgridspec(1, 4, width_ratios=[1, 1, 1, 0.9], wspace=0.3)
    missed = ~data.success
    for c, (i, j, what) in enumerate(((0, 1, 'top view'), (0, 2, 'front view'),
                                      (1, 2, 'side view'))):
        ax = fig.add_subplot(row[c])
        few = len(np.unique(data.goal_xyz, axis=0)) < 50     # a goal stream, not a path
        ax.plot(data.goal_xyz[:, i], data.goal_xyz[:, j], color='0.55', lw=2.6,
                marker='o' if few else None, ls='none' if few else '-', ms=6, label='goal')
        ax.plot(data.tip_xyz[:, i], data.tip_xyz[:, j], color='tab:blue', lw=1.0,
                label='achieved tip')
        if missed.any():
            ax.plot(data.tip_xyz[missed, i], data.tip_xyz[missed, j], 'o', ms=2.5,
                    color='tab:red', label='cycle outside tolerance')
        ax.plot(*data.tip_xyz[0, [i, j]], 'k^', ms=5, label='start')
        ax.set_aspect('equal', adjustable='datalim')
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.set_xlabel(f"{'xyz'[i]} [m]")
        ax.set_ylabel(f"{'xyz'[j]} [m]")
        ax.set_title(f"{what} ({'xyz'[i]}-{'xyz'[j]}), base frame", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    side = fig.add_subplot(row[3])
    side.axis('off')
    few = len(np.unique(data.goal_xyz, axis=0)) < 50
    handles = [Line2D([], [], color='0.55', lw=2.6, marker='o' if few else None,
                      ls='none' if few else '-', label='goals' if few else 'goal path'),
               Line2D([], [], color='tab:blue', lw=1.0, label='achieved tip path'),
               Line2D([], [], color='k', marker='^', ls='', label='start')]
    if missed.any():
        handles.append(Line2D([], [], color='tab:red', marker='o', ls='', ms=3,
                              label='cycle outside tolerance'))
    side.legend(handles=handles, loc='upper left', fontsize=8, frameon=False)
    if summary:
        s = summary
        lag = sum(s['lagging_cycles'].values()) if 'lagging_cycles' in s else 0
        text = '\n'.join([
            f"{s['cycles']} cycles at {1.0 / data.dt:g} Hz",
            f"{100 * s['success_rate']:.1f} % within tolerance, {lag} lagging",
            f"max error {1e3 * s['max_position_error_m']:.3g} mm, "
            f"{math.degrees(s['max_orientation_error_rad']):.3g} deg",
            f"solve time p50 {s['solve_time_p50_ms']:.2f} ms, "
            f"p99 {s['solve_time_p99_ms']:.2f} ms",
            f"  (CPU p99 {s['cpu_time_p99_ms']:.2f} ms)",
            f"joint-limit violations {s['joint_limit_violations']}",
            f"closest to a limit {math.degrees(s['closest_to_limit_rad']):.1f} deg",
            f"smallest singular value {s['min_singular_value']:.3g}"])
        side.text(0.0, 0.62, text, fontsize=8, va='top', family='monospace',
                  transform=side.transAxes)

    # rows 2..: joint positions and velocities, one column per joint
    first_time_ax = None
    for r in range(joint_rows):
        block = outer[1 + r].subgridspec(2, cols, wspace=0.3, hspace=0.45)
        for c in range(cols):
            k = r * cols + c
            if k >= n:
                break
            unit = data.units[k]
            ax = fig.add_subplot(block[0, c], sharex=first_time_ax)
            first_time_ax = first_time_ax or ax
            y = data.q[:, k]
            view = view_range(float(y.min()), float(y.max()),
                              (data.lower[k], data.upper[k]), 0.05 if unit == 'rad' else 0.005)
            ax.plot(t, y, color='tab:blue', lw=1.1)
            _limit_lines(ax, data.lower[k], data.upper[k], view)
            ax.set_ylim(*view)
            ax.set_title(f'{data.names[k]}\n'
                         f'{limits_text(data.lower[k], data.upper[k], view, unit)}',
                         fontsize=7.5)
            ax.set_ylabel(f'position [{unit}]' if c == 0 else '', fontsize=8)
            ax.tick_params(labelsize=7, labelbottom=False)
            ax.grid(alpha=0.3)
            ax = fig.add_subplot(block[1, c], sharex=first_time_ax)
            v = data.qd[:, k]
            bound, limit = data.velocity_bound[k], data.velocity_limit[k]
            peak = float(np.max(np.abs(v))) if v.size else 0.0
            vview = view_range(-peak, peak, (-bound, bound), 0.05 if unit == 'rad' else 0.005)
            ax.plot(t, v, color='tab:green', lw=1.0)
            if math.isfinite(limit):
                _limit_lines(ax, -bound, bound, vview)
                scaled = f' (bound ±{bound:.3g})' if bound < limit else ''
                what = (f'limit ±{limit:.3g} {unit}/s{scaled}'
                        + ('' if bound <= vview[1] else ', off scale')
                        + f'; peak {100 * peak / limit:.0f} %')
            else:
                what = 'no velocity limit in the URDF'
            ax.set_title(what, fontsize=7)
            ax.set_ylim(*vview)
            ax.set_ylabel(f'velocity [{unit}/s]' if c == 0 else '', fontsize=8)
            ax.tick_params(labelsize=7, labelbottom=r == joint_rows - 1)
            if r == joint_rows - 1:
                ax.set_xlabel('time [s]', fontsize=7)
            ax.grid(alpha=0.3)

    units = [u for u in ('m', 'rad', '') if any(e.unit == u for e in data.errors)]
    if data.clearance is not None:
        _clearance_row(fig, outer[-3], data, len(units), first_time_ax)

    # errors by unit; one colour per task, the same in every panel
    err_row = outer[-2].subgridspec(1, len(units) + 1,
                                    width_ratios=[1] * len(units) + [0.55], wspace=0.25)
    colors = {}
    palette = plt.rcParams['axes.prop_cycle'].by_key()['color']
    handles = []
    for c, unit in enumerate(units):
        ax = fig.add_subplot(err_row[c], sharex=first_time_ax)
        for curve in (e for e in data.errors if e.unit == unit):
            key = curve.label.rsplit(' ', 1)[0] if curve.unit in ('m', 'rad') else curve.label
            color = colors.setdefault(key, palette[len(colors) % len(palette)])
            line, = ax.semilogy(t, _log_floor(curve.values), color=color, lw=1.0,
                                label=curve.label)
            handles.append(line)
            if curve.tolerance is not None and curve.tolerance > 0:
                ax.axhline(curve.tolerance, color=color, lw=0.9, ls='--')
        _decades(ax, [e.values for e in data.errors if e.unit == unit],
                 [e.tolerance for e in data.errors if e.unit == unit and e.tolerance])
        what = {'m': 'position error [m]', 'rad': 'orientation error [rad]',
                '': "error [task's unit]"}[unit]
        ax.set_ylabel(what, fontsize=9)
        ax.set_title(f'{what.split(" [")[0]} of each task at the achieved q', fontsize=9)
        ax.set_xlabel('time [s]', fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3, which='both')
    side = fig.add_subplot(err_row[-1])
    side.axis('off')
    handles.append(Line2D([], [], color='k', lw=0.9, ls='--', label='tolerance (same colour)'))
    order = {c.label: c.level for c in data.errors}
    handles.sort(key=lambda h: order.get(h.get_label(), len(order)))
    side.legend(handles=handles, loc='upper left', fontsize=7.5, frameon=False,
                title='Lk = priority level k (0 highest)', title_fontsize=7.5)
    side.text(0.0, 0.0, 'true, unweighted errors to the goal;\nthe solver residual per level is '
              'weighted\nand, in tracking, measured to the cycle’s\nvelocity-bounded waypoint;\n'
              f'errors below {ERROR_FLOOR:g} are drawn at {ERROR_FLOOR:g}',
              fontsize=6.5, color='0.35', transform=side.transAxes, va='bottom')

    # solve time against the budget
    time_row = outer[-1].subgridspec(1, 2, width_ratios=[len(units) + 0.25, 0.55], wspace=0.05)
    ax = fig.add_subplot(time_row[0], sharex=first_time_ax)
    handles = [ax.semilogy(t, 1e3 * np.maximum(data.solve_time, 1e-7), lw=0.8,
                           color='tab:blue', label='solve time (wall clock)')[0]]
    if data.cpu_time.size:
        handles += ax.semilogy(t, 1e3 * np.maximum(data.cpu_time, 1e-7), lw=0.8,
                               color='tab:orange', alpha=0.8,
                               label='CPU time of the tracking thread\n(wall − CPU: '
                                     'waiting for a core)')
    handles.append(ax.axhline(1e3 * data.dt, color='tab:red', lw=1.2, ls='--',
                              label=f'cycle budget 1/rate = {1e3 * data.dt:.3g} ms'))
    ax.set_ylabel('time per cycle [ms]', fontsize=9)
    ax.set_xlabel('time [s]', fontsize=9)
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3, which='both')
    side = fig.add_subplot(time_row[1])
    side.axis('off')
    side.legend(handles=handles, loc='center left', fontsize=8, frameon=False)

    return fig


def _clearance_row(fig, cell, data: TrackingPlotData, width: int, sharex) -> None:
    """Draw the distances of the closest link pairs against d_min (module docstring, row 4)."""
    c = data.clearance
    row = cell.subgridspec(1, 2, width_ratios=[width + 0.25, 0.55], wspace=0.05)
    ax = fig.add_subplot(row[0], sharex=sharex)
    handles = []
    for k, name in enumerate(c.pairs):
        handles += ax.plot(data.t, 1e3 * c.distances[:, k], lw=1.0, label=name)
    handles.append(ax.axhline(1e3 * c.d_min, color='tab:red', lw=1.2, ls='--',
                              label=f'd_min = {1e3 * c.d_min:.3g} mm'))
    low = min(float(c.closest.min()), c.d_min)
    top = min(max(float(c.distances.max()), 2 * c.d_min), low + 0.3)
    pad = 0.05 * (top - low)
    ax.axhspan(1e3 * (low - 2 * pad), 1e3 * c.d_min, color='tab:red', alpha=0.08)
    ax.set_ylim(1e3 * (low - pad), 1e3 * (top + pad))
    k = int(np.argmin(c.closest))
    ax.plot(data.t[k], 1e3 * c.closest[k], 'kv', ms=5)
    ax.set_title(f'closest link pairs (capsule distance at the achieved q): minimum '
                 f'{1e3 * c.closest[k]:.2f} mm, {c.pairs[0]}, at t = {data.t[k]:.2f} s; '
                 f'{int(np.count_nonzero(c.closest < c.d_min - 1e-6))} cycles below d_min',
                 fontsize=9)
    ax.set_ylabel('distance [mm]', fontsize=9)
    ax.set_xlabel('time [s]', fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3)
    side = fig.add_subplot(row[1])
    side.axis('off')
    side.legend(handles=handles, loc='center left', fontsize=8, frameon=False,
                title='link pair', title_fontsize=8)


def _save_png(fig, path: Path, dpi: int = 90) -> None:
    """Save as a 256-colour PNG (a line plot loses nothing; about a third of the size)."""
    from PIL import Image

    buffer = io.BytesIO()
    fig.savefig(buffer, format='png', dpi=dpi)
    buffer.seek(0)
    with Image.open(buffer) as image:
        image.convert('RGB').quantize(colors=256).save(path, optimize=True)
