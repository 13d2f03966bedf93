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

"""The PDLS problem of one :meth:`~pdls_ik.ik.IKSolver.track` cycle: a bounded step to the goal."""
from __future__ import annotations

import math
import time
from typing import List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik import pdls
from pdls_ik.ik.pose_problem import PoseProblem
from pdls_ik.ik.task_levels import LevelStack
from pdls_ik.tasks import FrameTask, JointLockTask
from pdls_ik.tasks.base import Task

Array = NDArray[np.float64]
#: a tracking cycle always applies this many iterations before its time budget may stop it, so
#: that a cycle preempted on a loaded machine still makes progress (the iteration budget
#: ``tracking_max_iterations`` is the primary bound, ``tracking_timeout`` a safety net)
TRACK_MIN_ITERATIONS = 2
#: share of each joint's per-cycle velocity bound that the posture variation may ask for
TRACK_POSTURE_SHARE = 0.25


def _box_share(d: Array, q: Array, lo: Array, up: Array) -> float:
    """Largest factor f >= 0 keeping q + f·d (n,) in [lo, up] (inf when d = 0)."""
    room = np.where(d > 0.0, up - q, lo - q)
    moving = d != 0.0
    return max(0.0, float(np.min(room[moving] / d[moving], initial=math.inf)))


class TrackProblem(PoseProblem):
    """
    The PDLS problem of one tracking cycle (see :meth:`IKSolver.track`).

    * The posture variation is applied in the first iteration of the cycle only, each
      component clipped to ``TRACK_POSTURE_SHARE`` of the joint's velocity bound: one bounded
      null-space step per cycle. Applied at every iteration, its second-order effect on the
      pose (a null-space step is null only to first order) keeps the pose residual near 1e-4
      and the divergence check reverting steps, so that a cycle never converged.
    * Time budget as a safety net: once ``TRACK_MIN_ITERATIONS`` iterations are applied and the
      deadline is passed, the cycle stops (``timed_out``), reported as "max_time".
    * A goal beyond the cycle's velocity box is replaced by the intermediate pose that the best
      step inside the box predicts (:meth:`aim`), a waypoint approached by
      ``TRACK_MIN_ITERATIONS`` iterations (fewer than the time budget ever allows, so that the
      result does not depend on the machine's load); the posture is then left out, the box
      being spent on the pose. Iterating toward the goal itself inside the box made the limiting
      loop clamp joint after joint at the box until the clamped step raised the error: the
      cycle then returned its start (status "stalled") and the arm stopped ~3 cm short of a far
      goal, depending on how many iterations the time budget allowed.
    """

    #: no wrapping in a cycle: it would fight the cycle's narrowed bounds
    normalize = None

    def __init__(self, stack: LevelStack, frame: FrameTask, frame_level: int, frame_rows: slice,
                 locks: Optional[JointLockTask], continuous: Array, extra: Sequence[Task] = ()):
        super().__init__(stack, frame, frame_level, frame_rows, locks, continuous, extra=extra)
        self._posture = stack.posture_variation if stack.postures else None
        self.begin(np.zeros(continuous.size), math.inf)

    def begin(self, reach: Array, deadline: float) -> None:
        """
        Start a cycle.

        :param reach: per-joint velocity bound (n,) of the cycle (inf: none).
        :param deadline: end of the cycle (``time.perf_counter`` seconds).
        """
        self.posture_bound = TRACK_POSTURE_SHARE * reach
        self.deadline, self.passes, self.timed_out = deadline, 0, False
        self.shift, self.pinned, self._start = None, False, None

    def aim(self, q: Array, lower: Array, upper: Array, lo: Array, up: Array, free: Array,
            undamped: 'pdls.PDLSOptions', boxed: 'pdls.PDLSOptions') -> Tuple[Array, Array]:
        """
        Choose the target of the cycle from q (n,): the goal, or a pose within reach.

        Returns the cycle's bounds (n,), (n,): [lo, up], or narrower (see below).

        The undamped PDLS step from q within the joint limits [lower, upper] (``undamped``)
        tells whether the goal is within this cycle's box [lo, up] to first order; if so the
        goal is the target. Otherwise the box-constrained least-squares step d (``boxed``:
        projected Gauss–Seidel over [lo, up]) is the best the cycle can do, and
        the target is the pose it predicts: the frame residual is clamped to the part of
        e(q) that d achieves, J d, by subtracting ``shift = e(q) − J d`` from it during the
        cycle (PDLS residual clamping, as a shift held for the whole cycle so
        that its iterations converge to a fixed pose whatever their number). The joints that
        d puts on a bound are held there for the cycle (their bounds narrowed to that value),
        as in the optimal step: the others reach the target. ``free`` (n,) bool: the
        variables the solver may move.
        """
        self.shift = None
        base = super().levels(q)
        self._start = (q, base)      # the cycle's first evaluation, at q
        d = pdls.step(base, q, lower, upper, None, undamped).theta_diff
        if _box_share(d, q, lo, up) >= 1.0:
            return lo, up
        st = pdls.step(base, q, lo, up, None, boxed)
        d = st.theta_diff
        frame = base[self.frame_level]
        shift = frame.residual[self.frame_rows] - frame.jacobian[self.frame_rows] @ d
        pos, ori = self.frame.errors_from_residual(shift)
        if pos <= self.frame.position_tolerance and ori <= self.frame.orientation_tolerance:
            return lo, up
        self.shift = shift
        held = st.clamped
        lo, up = lo.copy(), up.copy()
        lo[held] = up[held] = q[held] + d[held]
        self.pinned = not np.any(free & (lo < up))
        return lo, up

    def _shifted(self, levels: List['pdls.Level']) -> List['pdls.Level']:
        """Return the levels with the frame residual of the intermediate target (:meth:`aim`)."""
        if self.shift is None:
            return levels
        level = levels[self.frame_level]
        e = level.residual.copy()
        e[self.frame_rows] -= self.shift
        levels = list(levels)
        levels[self.frame_level] = pdls.Level(e, level.jacobian, level.comparison,
                                              level.tolerance, level.name)
        return levels

    def levels(self, theta: Array) -> List['pdls.Level']:
        """Return the levels at θ (n,), shifted to the cycle target (:meth:`aim`)."""
        start, self._start = self._start, None
        if start is not None and np.array_equal(theta, start[0]):
            return self._shifted(start[1])
        return self._shifted(super().levels(theta))

    def posture_variation(self, theta: Array) -> Optional[Array]:
        """Return the posture variation in the cycle's first iteration only, clipped per joint."""
        if self._posture is None or self.passes != 1 or self.shift is not None:
            return None
        v = self._posture(theta)
        return np.clip(v, -self.posture_bound, self.posture_bound)

    def converged(self, theta: Array, levels) -> bool:
        self.passes += 1          # one call per PDLS pass: passes - 1 iterations applied so far
        if super().converged(theta, levels):
            return True
        if self.shift is not None and (self.pinned or self.passes > TRACK_MIN_ITERATIONS) and \
                self.met(levels):
            return True           # an intermediate target: a waypoint, close enough
        if self.passes > TRACK_MIN_ITERATIONS and time.perf_counter() >= self.deadline:
            self.timed_out = True
            return True
        return False
