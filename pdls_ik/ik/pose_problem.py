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

"""The PDLS problem of an :class:`~pdls_ik.ik.IKSolver` one-shot solve: pose, locks, extras."""
from __future__ import annotations

import math
from typing import Dict, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.ik.task_problem import required, task_error, TaskProblem
from pdls_ik.tasks import FrameTask, JointLockTask
from pdls_ik.tasks.base import POSTURE, Task

Array = NDArray[np.float64]
#: a locked joint counts as held when within this of its value [rad or m]
LOCK_TOL = 1e-9


class PoseProblem(TaskProblem):
    """
    The PDLS problem of an :class:`~pdls_ik.ik.IKSolver` one-shot solve.

    The tip pose (``frame``, rows ``frame_rows`` of level ``frame_level``), joint locks and the
    extra tasks (counted: success needs the required ones met) in one stack; a progress monitor
    that stops a local solve early for a random restart (:meth:`start`). No posture hook: a
    one-shot solve has no motion to keep near a posture.
    """

    #: levels come from a LevelStack of validated tasks at a finite θ (checked inputs):
    #: pdls.solve uses them without re-validation
    trusted_levels = True
    posture_variation = None

    def __init__(self, stack: LevelStack, frame: FrameTask, frame_level: int, frame_rows: slice,
                 locks: Optional[JointLockTask], continuous: Array, extra: Sequence[Task] = (),
                 limits: Optional[Tuple[Array, Array, NDArray[np.bool_]]] = None):
        super().__init__(stack, continuous, counted=extra)
        #: (lower, upper, watched): the monitor's window at a limit applies while a watched
        #: variable (moved by the solve, not locked) is at one of its limits
        self.limits = limits
        # θ of the last convergence test and the frame's (position, orientation) errors there
        self.last_theta: Optional[Array] = None
        self.last_errors: Tuple[float, float] = (math.inf, math.inf)
        self._last_levels = None        # the levels evaluated at last_theta
        self.frame, self.frame_level, self.frame_rows = frame, frame_level, frame_rows
        self.locks = locks
        if locks is not None:       # (level, rows) of the locks
            k = next(k for k, g in enumerate(stack.groups) if locks in g)
            self.lock_at = (k, stack.rows[k][stack.groups[k].index(locks)])
        self.start()

    def start(self, window: int = 0, ratio: float = 1.0, limit_window: int = 0,
              limit_ratio: float = 1.0) -> None:
        """
        Reset the progress monitor before a local solve (window 0: monitor off).

        (limit_window, limit_ratio) replace (window, ratio) at an iterate where the locks are
        held and a watched variable is at a limit (:attr:`limits`; limit_window 0: never).
        """
        self.window, self.ratio, self.history, self.stuck = window, ratio, [], False
        self.limit_window, self.limit_ratio = limit_window, limit_ratio

    def converged(self, theta: Array, levels) -> bool:
        """
        Tell whether the pose is within tolerance, locks are held and the extra tasks are met.

        Also True (with ``self.stuck`` set) when the monitor sees the pose residual (plus the unmet
        extra tasks' weighted errors) decrease by less than the factor ``ratio`` over ``window``
        iterations (``limit_ratio`` over ``limit_window`` while the locks are held and a watched
        variable is at a limit), so that a restart happens early.
        """
        e = levels[self.frame_level].residual[self.frame_rows]
        pos, ori = self.frame.errors_from_residual(e)
        self.last_theta, self.last_errors, self._last_levels = theta, (pos, ori), levels
        if pos > self.frame.position_tolerance or ori > self.frame.orientation_tolerance or \
                not self.met(levels):
            if self.window:
                hist = self.history
                size = float(np.sqrt(e.dot(e)))
                hist.append(size + self.violation(levels) if self._required_rows else size)
                window, ratio = self.window, self.ratio
                if self.limit_window and self.limits is not None:
                    lower, upper, watched = self.limits
                    if np.any(watched & ((theta <= lower) | (theta >= upper))) and \
                            self._locks_held(levels):
                        window, ratio = self.limit_window, self.limit_ratio
                if len(hist) > window and hist[-1] > ratio * hist[-1 - window]:
                    self.stuck = True
                    return True
            return False
        return self._locks_held(levels)

    def _locks_held(self, levels) -> bool:
        """Whether the locked joints are within LOCK_TOL of their values (True without locks)."""
        if self.locks is None:
            return True
        e = levels[self.lock_at[0]].residual[self.lock_at[1]]
        return float(np.max(np.abs(e))) <= LOCK_TOL * self.locks.weight

    def locks_held_at(self, q: Array) -> bool:
        """
        Tell whether the locked joints are within LOCK_TOL of their values at q (n,).

        True without locks; from the levels already evaluated when q is there.
        """
        if self.locks is None:
            return True
        if q is self.last_theta and self._last_levels is not None:
            return self._locks_held(self._last_levels)
        e, _ = self.locks.compute(q)
        return float(np.max(np.abs(e))) <= LOCK_TOL * self.locks.weight

    def violation_at(self, q: Array) -> float:
        """:meth:`TaskProblem.violation_at`, from the levels already evaluated when q is there."""
        if q is self.last_theta and self._last_levels is not None:
            return self.violation(self._last_levels)
        return super().violation_at(q)

    def errors(self, q: Array) -> Dict[str, Tuple[float, bool]]:
        """:meth:`TaskProblem.errors`, from the levels already evaluated when q is there."""
        levels = self._last_levels
        if q is not self.last_theta or levels is None:
            return super().errors(q)
        out = {}
        for task, k, sl in self._rows:
            if task.kind != POSTURE:
                err, ok = task_error(task, levels[k].residual[sl])
                out[task.name] = (err, ok or not required(task))
        return out
