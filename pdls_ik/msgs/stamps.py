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
builtin_interfaces Time/Duration and std_msgs Header: exact nanosecond conversions.

Time and Duration hold ``sec`` (int32) and ``nanosec`` (uint32, in [0, 1e9)); a negative
duration of -0.25 s is ``sec=-1, nanosec=750000000``. Conversions from float seconds split off the
integer part first, so that a stamp of 1.7e9 s keeps its nanoseconds (a float product
``seconds * 1e9`` would not).
"""
from __future__ import annotations

import math
from typing import Any, Tuple, Union

from pdls_ik.errors import InputError
from pdls_ik.msgs.message_types import MessageTypes

NS_PER_S = 1_000_000_000
_INT32_MIN, _INT32_MAX = -2**31, 2**31 - 1

#: a stamp given as seconds (float or int) or as an already built Time message
Stamp = Union[float, int, Any]


def seconds_to_ns(seconds: float, field: str = 'stamp') -> int:
    """
    Float seconds -> integer nanoseconds, rounded to the nearest nanosecond.

    :raises InputError: ``seconds`` is NaN or infinite (naming ``field``).
    """
    seconds = float(seconds)
    if not math.isfinite(seconds):
        raise InputError(f'{field}: time must be finite, got {seconds}')
    whole = math.floor(seconds)
    return int(whole) * NS_PER_S + int(round((seconds - whole) * NS_PER_S))


def split_ns(ns: int, field: str = 'stamp') -> Tuple[int, int]:
    """
    Integer nanoseconds -> (sec, nanosec) with nanosec in [0, 1e9).

    :raises InputError: ``sec`` does not fit int32 (naming ``field``).
    """
    sec, nanosec = divmod(int(ns), NS_PER_S)
    if not _INT32_MIN <= sec <= _INT32_MAX:
        raise InputError(f'{field}: {ns} ns does not fit a ROS time (int32 seconds)')
    return sec, nanosec


def time_msg(types: MessageTypes, stamp: Stamp = 0.0) -> Any:
    """builtin_interfaces/Time from seconds, or ``stamp`` itself when it already is a message."""
    if hasattr(stamp, 'nanosec'):
        return stamp
    sec, nanosec = split_ns(seconds_to_ns(stamp))
    return types.Time(sec=sec, nanosec=nanosec)


def time_msg_from_ns(types: MessageTypes, ns: int) -> Any:
    """builtin_interfaces/Time from integer nanoseconds (exact)."""
    sec, nanosec = split_ns(ns)
    return types.Time(sec=sec, nanosec=nanosec)


def duration_msg(types: MessageTypes, seconds: float) -> Any:
    """builtin_interfaces/Duration from float seconds (may be negative)."""
    sec, nanosec = split_ns(seconds_to_ns(seconds, 'duration'), 'duration')
    return types.Duration(sec=sec, nanosec=nanosec)


def msg_to_ns(msg: Any) -> int:
    """Time or Duration message -> integer nanoseconds (exact)."""
    return int(msg.sec) * NS_PER_S + int(msg.nanosec)


def msg_to_seconds(msg: Any) -> float:
    """Time or Duration message -> float seconds."""
    return int(msg.sec) + int(msg.nanosec) / NS_PER_S


def header(types: MessageTypes, stamp: Stamp = 0.0, frame_id: str = '') -> Any:
    """std_msgs/Header; ``stamp`` in seconds or a Time message."""
    return types.Header(stamp=time_msg(types, stamp), frame_id=str(frame_id))
