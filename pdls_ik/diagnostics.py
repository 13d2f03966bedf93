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
Solver result → diagnostic status (ROS-free; shape of ``diagnostic_msgs/DiagnosticStatus``).

Levels follow diagnostic_msgs: OK, WARN, ERROR, STALE. A solve that met its tolerances is OK, or
WARN when the smallest singular value of a priority level is below :data:`NEAR_SINGULAR_SIGMA`
(close to a singularity: damping is active and accuracy may drop) or when joints sit at their
limits; a solve that did not meet its tolerances is ERROR. Values are strings, as in the message.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Dict, Sequence

OK, WARN, ERROR, STALE = 0, 1, 2, 3
LEVEL_NAMES = {OK: 'OK', WARN: 'WARN', ERROR: 'ERROR', STALE: 'STALE'}

#: smallest singular value of a level's restricted Jacobian below which a WARN is raised
NEAR_SINGULAR_SIGMA = 1e-2


@dataclass
class DiagnosticStatus:
    """
    One diagnostic report.

    ``level`` (OK/WARN/ERROR/STALE), ``name``, ``message``, ``hardware_id`` and string
    key-values.
    """

    level: int
    name: str
    message: str
    hardware_id: str = ''
    values: Dict[str, str] = field(default_factory=dict)


def _fmt(x: float) -> str:
    return 'nan' if x is None or (isinstance(x, float) and math.isnan(x)) else f'{x:.6g}'


def _per_level(names: Sequence[str], values: Sequence[float], prefix: str) -> Dict[str, str]:
    out = {}
    for i, v in enumerate(values):
        label = names[i] if i < len(names) and names[i] else str(i)
        out[f'{prefix} [{label}]'] = _fmt(float(v))
    return out


def status_from_result(result, name: str = 'pdls_ik', hardware_id: str = '') -> DiagnosticStatus:
    """
    Diagnostic status of an :class:`pdls_ik.ik.IKResult`.

    Key-values: ``status``, ``success``, ``iterations``, ``restarts``, ``solve time [ms]``,
    ``position error [m]``, ``orientation error [rad]``, ``residual [level]`` and
    ``lambda [level]`` per priority level, ``min singular value`` (smallest over all levels),
    ``joints at limits`` (comma-separated names or "none"), and ``notes`` when the input was
    repaired (normalized quaternion, clamped seed).
    """
    level_names = list(getattr(result, 'level_names', []) or [])
    sigmas = [float(s) for s in (getattr(result, 'min_singular_values', None) or [])
              if s is not None and math.isfinite(float(s)) and float(s) > 0.0]
    sigma_min = min(sigmas) if sigmas else float('nan')
    at_limits = list(getattr(result, 'clamped_joints', None) or [])
    values = {
        'status': str(result.status),
        'success': str(bool(result.success)).lower(),
        'iterations': str(int(result.iterations)),
        'restarts': str(int(getattr(result, 'restarts', 0))),
        'solve time [ms]': _fmt(1e3 * float(result.solve_time)),
        'position error [m]': _fmt(float(result.position_error)),
        'orientation error [rad]': _fmt(float(result.orientation_error)),
    }
    values.update(_per_level(level_names, getattr(result, 'residual_norms', []) or [],
                             'residual'))
    values.update(_per_level(level_names, getattr(result, 'lambdas', []) or [], 'lambda'))
    values['min singular value'] = _fmt(sigma_min) if sigmas else 'n/a (no step taken)'
    for task, err in (getattr(result, 'task_errors', None) or {}).items():
        values[f'task error [{task}]'] = _fmt(float(err))
    values['joints at limits'] = ', '.join(at_limits) if at_limits else 'none'
    notes = list(getattr(result, 'notes', []) or [])
    if notes:
        values['notes'] = '; '.join(notes)

    if not result.success:
        level, message = ERROR, failure_message(result)
    elif sigmas and sigma_min < NEAR_SINGULAR_SIGMA:
        level, message = WARN, f'solved near a singularity (min singular value {sigma_min:.3g})'
    elif at_limits:
        level, message = WARN, f"solved with joints at limits: {', '.join(at_limits)}"
    else:
        level, message = OK, f'solved in {int(result.iterations)} iterations'
    return DiagnosticStatus(level, name, message, hardware_id, values)


def failure_message(result) -> str:
    """
    One line saying why an :class:`pdls_ik.ik.IKResult` failed.

    Gives the status, the tip's position error [m] and orientation error [rad], and the error of
    every extra task (closures, CoM, bounds…), so that a failure caused by a task other than the
    tip pose is not reported as a pose error of 0.
    """
    message = (f'no solution ({result.status}): position error '
               f'{_fmt(float(result.position_error))} m, orientation error '
               f'{_fmt(float(result.orientation_error))} rad')
    task_errors = getattr(result, 'task_errors', None) or {}
    if task_errors:
        message += '; task errors: ' + ', '.join(
            f'{task} {_fmt(float(err))}' for task, err in task_errors.items())
    return message


def error_status(message: str, name: str = 'pdls_ik', hardware_id: str = '',
                 **values: object) -> DiagnosticStatus:
    """Build an ERROR status for bad input (NaN goal, unknown frame, …); values become strings."""
    return DiagnosticStatus(ERROR, name, message, hardware_id,
                            {str(k): str(v) for k, v in values.items()})


#: phases of a streamed goal (:func:`tracking_status`)
REACHED, APPROACHING, STALLED, UNREACHABLE = 'reached', 'approaching', 'stalled', 'unreachable'


def tracking_status(result, phase: str, position_left: float, orientation_left: float,
                    name: str = 'pdls_ik', hardware_id: str = '',
                    detail: str = '') -> DiagnosticStatus:
    """
    Diagnostic status of one tracking cycle toward a streamed goal.

    A cycle that makes progress toward a goal is not an error: it is OK with the remaining
    distance (WARN when joints sit at a limit or near a singularity meanwhile). ERROR is for what
    needs a person: the goal was given up because it is out of reach (``unreachable``) or the
    motion stopped short of it (``stalled``: a joint limit, a singularity, a conflicting task).

    :param result: the cycle's :class:`pdls_ik.ik.IKResult` (its key-values are kept).
    :param phase: :data:`REACHED`, :data:`APPROACHING`, :data:`STALLED` or :data:`UNREACHABLE`.
    :param position_left: tip position error [m] of the commanded state at the cycle's end.
    :param orientation_left: tip orientation error [rad] of that state.
    :param detail: appended to the message (e.g. the reach bound of an unreachable goal).
    :raises ValueError: unknown phase.
    """
    base = status_from_result(result, name, hardware_id)
    values = dict(base.values)
    values['goal'] = phase
    values['remaining position [m]'] = _fmt(float(position_left))
    values['remaining orientation [rad]'] = _fmt(float(orientation_left))
    left = f'{_fmt(float(position_left))} m, {_fmt(float(orientation_left))} rad'
    at_limits = list(getattr(result, 'clamped_joints', None) or [])
    tail = f'; {detail}' if detail else ''
    if phase == REACHED:
        level = base.level if result.success else OK
        message = f'goal reached ({base.message})'
    elif phase == APPROACHING:
        level, message = OK, f'approaching the goal: {left} to go'
        if base.level == WARN:
            level, message = WARN, f'{message}; {base.message}'
        elif at_limits:
            level, message = WARN, f"{message}; joints at limits: {', '.join(at_limits)}"
    elif phase in (STALLED, UNREACHABLE):
        level = ERROR
        message = f'{phase}: goal given up {left} away ({result.status})'
        if at_limits:
            message += f"; joints at limits: {', '.join(at_limits)}"
    else:
        raise ValueError(f'phase: unknown {phase!r}')
    return DiagnosticStatus(level, name, message + tail, hardware_id, values)
