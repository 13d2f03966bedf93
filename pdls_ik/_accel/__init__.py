"""Optional compiled kernels (Numba) of hot loops; NumPy code elsewhere remains the reference.

Used only when ``numba`` is importable (``pip install numba``); tests run each kernel against its
NumPy reference when both are available.
"""
from __future__ import annotations

import importlib.util


def available() -> bool:
    """Whether numba is importable (the compiled kernels can be used)."""
    return importlib.util.find_spec("numba") is not None
