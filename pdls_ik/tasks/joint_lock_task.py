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
Joint lock task: hold given joints at given values, above every target.

Locks rank as the lock effectors of MSim's robot PDLS solver (``msim.control.Solver``): below the
chain-closure invariants, above every target and the posture.

Residual and Jacobian (one row per locked joint i with value v_i):

    e_i = w · (v_i − q_i)        J_i = w · e_iᵀ   (a row of the identity)

(the short way round for continuous joints). Placed on a priority level above the targets, its
rows remove the locked columns from the null space left to lower levels, so no target can move a
locked joint (strict priority).
"""
from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np
from pdls_ik.errors import InputError, JointError
from pdls_ik.model.joint_vector import joint_delta
from pdls_ik.tasks.base import Array, LOCK, Task


class JointLockTask(Task):
    """
    Hold ``joints`` (names) at ``values`` [rad or m].

    :raises JointError: unknown joint or a value outside its limits.  InputError: lengths differ.
    """

    kind = LOCK

    def __init__(self, linkage, joints: Sequence[str], values: Sequence[float],
                 weight: float = 1.0, name: str = 'lock'):
        super().__init__(name, weight, priority=0)
        joints = list(joints)
        values = np.asarray(values, dtype=float).reshape(-1)
        if len(joints) != values.size or not joints:
            raise InputError(f"joint lock '{name}': {values.size} values for {len(joints)} "
                             'joints (need one value per joint, at least one)')
        self.joints = joints
        self.indices = np.array([linkage.joint_index(j) for j in joints], dtype=int)
        for j, i, v in zip(joints, self.indices, values):
            if not np.isfinite(v):
                raise JointError(j, f'lock value {v} is not finite')
            if v < linkage.lower[i] or v > linkage.upper[i]:
                raise JointError(j, f'lock value {v} is outside the limits '
                                    f'[{linkage.lower[i]}, {linkage.upper[i]}]')
        self.values = values
        self._continuous = np.asarray(linkage.continuous, dtype=bool)[self.indices]
        self._J = np.zeros((len(joints), linkage.n))
        self._J[np.arange(len(joints)), self.indices] = self.weight

    @property
    def dim(self) -> int:
        return len(self.joints)

    def compute(self, q: Array) -> Tuple[Array, Array]:
        return self.weight * joint_delta(q[self.indices], self.values, self._continuous), self._J
