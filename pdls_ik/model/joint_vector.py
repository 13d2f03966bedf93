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
Joint vectors q (n,) in model order: checks, sampling ranges, angle wrapping, periodic variables.

The one check of a joint vector given by a user (length, finite values); the finite range
joints are sampled in; angles wrapped into [-π, π) and joint displacements the short way round
for continuous joints; the revolute variables whose images a turn apart give the same pose.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pdls_ik.errors import InputError

_TWO_PI = 2.0 * math.pi


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


def wrap_angle(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Wrap angles into [-π, π) [rad]; works element-wise on arrays."""
    return (np.asarray(x, dtype=float) + math.pi) % _TWO_PI - math.pi


def joint_delta(q_from: NDArray[np.float64], q_to: NDArray[np.float64],
                continuous: Optional[NDArray[np.bool_]] = None) -> NDArray[np.float64]:
    """Joint displacement ``q_to − q_from`` (n,), the short way round for continuous joints."""
    delta = np.asarray(q_to, dtype=float) - np.asarray(q_from, dtype=float)
    if continuous is not None and np.any(continuous):
        delta = delta.copy()
        delta[continuous] = wrap_angle(delta[continuous])
    return delta


def periodic_variables(linkage) -> NDArray[np.bool_]:
    """
    Return the (n,) bool mask of the variables whose values θ and θ + 2π give the same pose.

    Revolute (not continuous: those have no limits and are wrapped) joints with finite limits
    (a bound of magnitude >= 1e6 is unlimited: nothing to turn into) whose every motion,
    mimic joints included, is a rotation by an integer multiple of the variable. One-shot
    solves let such a variable go beyond a limit onto its image a turn away
    (:mod:`pdls_ik.pdls.periodic`).
    """
    periodic = np.array([t == 'revolute' for t in linkage.joint_types], dtype=bool)
    periodic &= np.isfinite(linkage.lower) & np.isfinite(linkage.upper)  # no image at ±inf
    for joint in linkage.joints:
        if joint.moving and joint.index >= 0 and not (
                joint.revolute and float(joint.multiplier).is_integer()):
            periodic[joint.index] = False
    return periodic
