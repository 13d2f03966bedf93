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

"""Interactive-marker helpers without ROS: goal rate limiting and the marker's start pose."""
from __future__ import annotations

import threading
from typing import Optional

import numpy as np
from numpy.typing import NDArray


class RateLimiter:
    """
    Let an event through at most once per ``period`` seconds.

    The last held-back event can be flushed (so the final pose of a drag is never lost).

    Times are caller-supplied seconds (monotonic), so that tests need no clock.
    """

    def __init__(self, period: float):
        if not period >= 0.0:
            raise ValueError(f'period: must be >= 0 s, got {period}')
        self.period = float(period)
        self._lock = threading.Lock()
        self._last: Optional[float] = None
        self._pending = None

    def offer(self, now: float, item) -> Optional[object]:
        """Return ``item`` when it may go now, else keep it as pending and return None."""
        with self._lock:
            if self._last is None or now - self._last >= self.period:
                self._last, self._pending = now, None
                return item
            self._pending = item
            return None

    def release(self, now: float, item):
        """
        Let the final ``item`` (a drag's release pose) through at once, dropping any pending one.

        A pending pose is older than the release pose: flushed after it, it would become the
        goal and the robot would end off the release pose.
        """
        with self._lock:
            self._last, self._pending = now, None
            return item

    def flush(self, now: float) -> Optional[object]:
        """Return the pending item (if any and its slot has come), clearing it."""
        with self._lock:
            if self._pending is None or (self._last is not None
                                         and now - self._last < self.period):
                return None
            item, self._pending, self._last = self._pending, None, now
            return item


def tip_pose(robot, q: NDArray[np.float64]) -> NDArray[np.float64]:
    """(4, 4) pose of the robot's tip link in its base link at joint positions ``q`` (n,)."""
    return robot.linkage.forward_kinematics(q, robot.tip_link, robot.base_link)


def marker_state(robot, q: NDArray[np.float64], found: NDArray[np.bool_]
                 ) -> Optional[NDArray[np.float64]]:
    """
    Joint positions to place the marker at from a joint_states message, or None.

    The marker goes to the tip as soon as every joint between the base and the tip link is
    known: a robot whose hardware publishes no state of other joints (a gripper without driver,
    a second arm) still gets its marker at the tip.

    :param q: (n,) positions of the message in model order (missing joints any value).
    :param found: (n,) bool, True where the message gave the joint.
    :return: (n,) ``q`` with the missing joints at mid-limits (:meth:`Robot.default_q`), or None
        when a joint that moves the tip is missing.
    """
    linkage = robot.linkage
    chain = linkage.chain(robot.tip_link, robot.base_link)
    needed = [linkage.joints[j].index for j in chain.path_joints if linkage.joints[j].moving]
    found = np.asarray(found, dtype=bool)
    if not np.all(found[needed]):
        return None
    return np.where(found, np.asarray(q, dtype=float), robot.default_q())
