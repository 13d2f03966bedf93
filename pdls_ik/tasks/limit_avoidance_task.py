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
Soft joint-limit avoidance: keep joints away from their limits when the tasks allow it.

Hard limits are enforced by the PDLS limiting loop; this task adds a *margin* inside them as
inequality rows, normally on a low priority level (Baerlocher & Boulic 2004, §4, joint limits
as the highest constraints; the soft margin as an optional lower level follows the "limit
penalty" effectors of MSim's robot PDLS solver, ``msim.control.Solver``). For joint i with limits
[l_i, u_i] and margin m_i the soft bounds are ``l_i + m_i ≤ q_i ≤ u_i − m_i``::

    e = w (l_i + m_i − q_i)   LESS_EQUAL         e = w (u_i − m_i − q_i)   GREATER_EQUAL
    J = w · (row i of the identity)

A row takes part only while the joint is inside its margin, pushing it back out as far as the
higher levels allow; the task is ``optional`` (never required for success). Margins default to
``fraction`` of each joint's range, or to the URDF ``<safety_controller>`` soft limits.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.pdls import GREATER_EQUAL, LESS_EQUAL
from pdls_ik.tasks.base import Array, TARGET, Task

#: default priority: below ordinary targets (priority 0..99)
LIMIT_AVOIDANCE_PRIORITY = 100


class LimitAvoidanceTask(Task):
    """
    Inequality rows keeping the bounded joints ``fraction`` of their range from the limits.

    :param linkage: the robot model (``lower``, ``upper``, ``soft_lower``, ``soft_upper``).
    :param fraction: margin as a fraction of each joint's range, in [0, 0.5).
    :param joints: names of the joints to watch; default every joint with finite limits.
    :param use_safety_limits: use the URDF ``<safety_controller>`` soft limits instead of fraction
        where they are tighter than the hard limits.
    :param weight, priority: default priority :data:`LIMIT_AVOIDANCE_PRIORITY` (below targets).

    :raises InputError: fraction outside [0, 0.5), no bounded joint.  JointError: unknown joint.
    """

    kind = TARGET
    optional = True

    def __init__(self, linkage, fraction: float = 0.1, joints: Optional[Sequence[str]] = None,
                 use_safety_limits: bool = False, weight: float = 1.0,
                 priority: int = LIMIT_AVOIDANCE_PRIORITY, name: str = 'limit_avoidance'):
        super().__init__(name, weight, priority)
        if not (0.0 <= float(fraction) < 0.5):
            raise InputError(f"task '{name}' fraction: {fraction!r} must be in [0, 0.5)")
        lower, upper = np.asarray(linkage.lower, float), np.asarray(linkage.upper, float)
        if joints is None:
            idx = np.flatnonzero(np.isfinite(lower) & np.isfinite(upper))
        else:
            idx = np.array([linkage.joint_index(j) for j in joints], dtype=int)
            idx = idx[np.isfinite(lower[idx]) & np.isfinite(upper[idx])]
        if idx.size == 0:
            raise InputError(f"task '{name}': no joint with finite limits to keep away from")
        margin = fraction * (upper[idx] - lower[idx])
        self.soft_lower = lower[idx] + margin
        self.soft_upper = upper[idx] - margin
        if use_safety_limits:
            self.soft_lower = np.maximum(self.soft_lower, np.asarray(linkage.soft_lower)[idx])
            self.soft_upper = np.minimum(self.soft_upper, np.asarray(linkage.soft_upper)[idx])
        self.indices = idx
        self.joints = [linkage.joint_names[i] for i in idx]
        k = idx.size
        self.comparison = np.array([LESS_EQUAL] * k + [GREATER_EQUAL] * k)
        self._J = np.zeros((2 * k, linkage.n))
        self._J[np.arange(k), idx] = self.weight
        self._J[k + np.arange(k), idx] = self.weight
        self.tolerance = np.inf
        self.error = 0.0

    @property
    def dim(self) -> int:
        return 2 * self.indices.size

    def compute(self, q: Array) -> Tuple[Array, Array]:
        qi = q[self.indices]
        e = np.concatenate((self.soft_lower - qi, self.soft_upper - qi))
        k = self.indices.size
        self.error = float(max(np.max(e[:k], initial=0.0), np.max(-e[k:], initial=0.0)))
        return self.weight * e, self._J
