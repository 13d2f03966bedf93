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

"""The one check of a joint vector given by a user, and the finite range joints are sampled in."""
from __future__ import annotations

import math
from typing import Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pdls_ik.errors import InputError


def check_joint_vector(values: ArrayLike, names: Sequence[str], label: str
                       ) -> NDArray[np.float64]:
    """
    Return ``values`` as a float array (n,), one value per joint of ``names`` (n).

    :param label: what the vector is, for the messages (``'q'``, ``'seed'``, ``'θ'``...).
    :return: the values; the input itself when it already is a float array of that shape.
    :raises InputError: values that are not numbers, a wrong length (naming the expected
        joints), or a NaN/inf (naming the joint).
    """
    n = len(names)
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{label}: expected {n} numbers, one per joint ({', '.join(names)})"
                         ) from None
    if arr.shape != (n,):
        raise InputError(f'{label}: expected {n} joint values, shape ({n},), one per joint '
                         f"({', '.join(names)}); got shape {arr.shape}")
    if not math.isfinite(arr.dot(arr)) and not np.isfinite(arr).all():  # dot: fast path
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InputError(f"{label}: value for joint '{names[bad]}' is {arr[bad]}, not a finite "
                         'number')
    return arr


def sampling_range(lower: ArrayLike, upper: ArrayLike
                   ) -> Tuple[NDArray[np.float64], NDArray[np.float64]]:
    """
    Return finite (lo, hi) (n,) to draw joint values from, lo <= hi, within the limits.

    A finite limit is kept; an infinite side spans one turn (2π) from the finite one, and a
    joint unlimited on both sides (continuous, or bounds of magnitude >= 1e6) spans [−π, π].
    So a range such as [4, inf) gives [4, 4 + 2π], never lo > hi.
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    lo = np.where(np.isfinite(lower), lower,
                  np.where(np.isfinite(upper), upper - 2.0 * math.pi, -math.pi))
    hi = np.where(np.isfinite(upper), upper, np.where(np.isfinite(lower), lo + 2.0 * math.pi,
                                                      math.pi))
    return lo, hi
