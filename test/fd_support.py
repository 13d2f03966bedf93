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

"""Central finite differences for Jacobian checks in the task tests."""
from __future__ import annotations

import numpy as np


def central_differences(f, q: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """(m, n) matrix of ∂f/∂q_i ≈ (f(q + h e_i) − f(q − h e_i)) / 2h for f: (n,) → (m,)."""
    cols = []
    for i in range(q.size):
        d = np.zeros(q.size)
        d[i] = h
        cols.append((np.asarray(f(q + d)) - np.asarray(f(q - d))) / (2 * h))
    return np.column_stack(cols)


def residual_derivative(task, q: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """−∂e/∂q of a task's residual e(q): what its Jacobian J must equal (e = target − value)."""
    return -central_differences(lambda x: task.compute(x)[0], q, h)
