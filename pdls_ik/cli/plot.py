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
Plot of a tracking run (matplotlib, Agg backend: no display needed).

Three panels sharing the time axis: joint positions normalized to their limits (0 = lower,
1 = upper; unbounded joints scaled to [-π, π]), the residual norm of each priority level with the
position and orientation errors (log scale) with the success tolerances as dashed lines, and
the solve time per cycle (wall clock, with the CPU time of the tracking thread when logged).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple, Union

import numpy as np


def plot_tracking(arrays: Dict[str, np.ndarray], joint_names: Sequence[str],
                  level_names: Sequence[str], lower: np.ndarray, upper: np.ndarray,
                  path: Union[str, Path], title: str = 'pdls_ik tracking',
                  tolerances: Optional[Tuple[float, float]] = None) -> Path:
    """
    Write the PNG of a tracking log (see :meth:`pdls_ik.cli.tracking.TrackingLog.arrays`).

    :param lower, upper: (n,) joint limits [rad or m].
    :param tolerances: (position [m], orientation [rad]) drawn as dashed lines on the error panel.

    Returns the path written; its folder is created.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    t, q = arrays['t'], arrays['q']
    lo = np.where(np.isfinite(lower), lower, -math.pi)
    up = np.where(np.isfinite(upper), upper, math.pi)
    span = np.where(up > lo, up - lo, 1.0)
    fig, axes = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
    ax = axes[0]
    for i, name in enumerate(joint_names):
        ax.plot(t, (q[:, i] - lo[i]) / span[i], label=name, lw=1.2)
    ax.axhline(0.0, color='k', lw=0.8, ls='--')
    ax.axhline(1.0, color='k', lw=0.8, ls='--')
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel('joint position\n(0 = lower, 1 = upper limit)')
    ax.legend(fontsize=7, ncol=4, loc='upper right')
    ax.set_title(title)

    ax = axes[1]
    floor = 1e-12
    for k, name in enumerate(level_names):
        ax.semilogy(t, np.maximum(arrays['residuals'][:, k], floor), label=f'level {k}: {name}')
    lines = ax.semilogy(t, np.maximum(arrays['position_error'], floor), ls=':',
                        label='position error [m]')
    lines += ax.semilogy(t, np.maximum(arrays['orientation_error'], floor), ls=':',
                         label='orientation error [rad]')
    if tolerances is not None:
        for line, tol, what in zip(lines, tolerances, ('position', 'orientation')):
            ax.axhline(tol, color=line.get_color(), lw=0.8, ls='--', label=f'{what} tolerance')
    ax.set_ylabel('task error per level')
    ax.legend(fontsize=7, loc='upper right')

    ax = axes[2]
    ax.plot(t, 1e3 * arrays['solve_time'], lw=0.8, label='wall clock')
    cpu = arrays.get('cpu_time')
    if cpu is not None and cpu.shape == t.shape:
        ax.plot(t, 1e3 * cpu, lw=0.8, label='CPU (tracking thread)')
        ax.legend(fontsize=7, loc='upper right')
    ax.set_ylabel('solve time [ms]')
    ax.set_xlabel('time [s]')
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
