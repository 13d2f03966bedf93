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
