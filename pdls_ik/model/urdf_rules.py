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
Rules for degenerate numbers in a URDF, each applied the same way wherever the number is read.

==========================  ==================================================================
value                       rule
==========================  ==================================================================
position bound (``lower``,  ``|x| >= UNLIMITED_BOUND`` (1e6 rad or m, e.g. ±1e16, ±1e300,
``upper``, soft limits)     ±DBL_MAX) means *unlimited*: read as ±inf, with a note. At 1e6 a
                            double can no longer resolve a 1e-10 step, so such a bound only
                            stands for "no limit" (and ±DBL_MAX overflows ``upper - lower``).
``velocity``, ``effort``    0, a denormal, anything below ``MIN_RATE`` (DBL_EPSILON), or no
                            attribute: *no limit given* (inf); urdfdom writes 0 when the
                            attribute is missing, and MoveIt reads these the same way. The
                            joints of q left without a velocity limit are named in one note:
                            trajectories and tracking move them at a default bound
                            (``pdls_ik.trajectory.velocity_bounds``). Negative: its magnitude,
                            with a note (as MoveIt does). Effort: the same rule, without a note
                            (kinematics never uses it).
``axis xyz``                scaled by its largest component before normalizing, so huge
                            (1e200, DBL_MAX) and tiny (denormal) components normalize without
                            overflow or underflow; an axis whose largest component is below
                            ``AXIS_MIN_COMPONENT`` (1e-9) is refused as zero. Never a silent
                            zero axis.
mimic follower limits       the follower ``θ_f = m · q + o`` keeps its own range and velocity:
                            the master's range becomes its own intersected with
                            ``[(lower_f − o)/m, (upper_f − o)/m]`` (ends swapped for m < 0) and
                            its velocity limit ``min(v, v_f/|m|)``. A follower range that is
                            empty, or that would leave the master no motion (a sign error),
                            does not constrain it (with a note).
==========================  ==================================================================
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray

#: a position bound at least this large (rad or m) means "unlimited"
UNLIMITED_BOUND = 1e6
#: a velocity or effort limit below this means "no limit given" (DBL_EPSILON, as MoveIt)
MIN_RATE = float(np.finfo(float).eps)
#: an axis whose largest |component| is below this is a zero axis (unitless)
AXIS_MIN_COMPONENT = 1e-9


def position_bound(value: float) -> float:
    """Return a position bound, ±inf when ``|value| >= UNLIMITED_BOUND``."""
    return math.copysign(math.inf, value) if abs(value) >= UNLIMITED_BOUND else value


def rate_limit(value: Optional[float]) -> float:
    """Return a velocity or effort limit: ``|value|``, inf when absent or below ``MIN_RATE``."""
    if value is None or abs(value) < MIN_RATE:
        return math.inf
    return abs(value)


def unit_axis(xyz: Sequence[float]) -> Optional[NDArray[np.float64]]:
    """
    Return the (3,) unit vector along finite ``xyz``, or None when it is a zero axis.

    The components are divided by the largest magnitude first, so no square overflows (1e200)
    or underflows (5e-324) on the way.
    """
    axis = np.asarray(xyz, dtype=float)
    largest = float(np.max(np.abs(axis)))
    if not largest >= AXIS_MIN_COMPONENT:
        return None
    axis = axis / largest
    return axis / np.linalg.norm(axis)


def master_range(lower_f: float, upper_f: float, multiplier: float, offset: float
                 ) -> Tuple[float, float]:
    """
    Master positions [lo, hi] that keep a follower ``θ_f = m · q + o`` in [lower_f, upper_f].

    ``m = 0``: the whole line if ``o`` is within the follower's range, else empty (lo > hi).
    Computed in NumPy float64: a tiny ``m`` gives ±inf, never an OverflowError.
    """
    if multiplier == 0.0:
        return (-math.inf, math.inf) if lower_f <= offset <= upper_f else (math.inf, -math.inf)
    with np.errstate(over='ignore', invalid='ignore'):
        a = (np.float64(lower_f) - offset) / multiplier
        b = (np.float64(upper_f) - offset) / multiplier
    lo, hi = (a, b) if multiplier > 0 else (b, a)
    return float(lo) + 0.0, float(hi) + 0.0  # + 0.0: no -0.0 bound


def master_rate(rate_f: float, multiplier: float) -> float:
    """Return the master rate limit that keeps ``|m| · q̇`` within a follower's ``rate_f``."""
    if multiplier == 0.0 or math.isinf(rate_f):
        return math.inf
    with np.errstate(over='ignore'):
        return float(np.float64(rate_f) / abs(multiplier))
