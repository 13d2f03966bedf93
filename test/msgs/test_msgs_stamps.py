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

"""Time/Duration/Header conversions: exact nanoseconds, negative durations, CDR round trip."""
import math

from msgs_support import roundtrip, store  # noqa: F401
from pdls_ik.errors import InputError
from pdls_ik.msgs.stamps import (duration_msg, header, msg_to_ns, msg_to_seconds,
                                 seconds_to_ns, split_ns, time_msg, time_msg_from_ns)
import pytest


@pytest.mark.parametrize('seconds, ns', [
    (0.0, 0), (1.5, 1_500_000_000), (-0.25, -250_000_000), (2.000000001, 2_000_000_001),
    (1_700_000_000.5, 1_700_000_000_500_000_000), (1e-9, 1), (-1e-9, -1)])
def test_seconds_to_ns_exact(seconds, ns):
    assert seconds_to_ns(seconds) == ns


def test_split_ns_keeps_nanosec_in_range():
    assert split_ns(-250_000_000) == (-1, 750_000_000)
    assert split_ns(1_999_999_999) == (1, 999_999_999)
    assert split_ns(-1) == (-1, 999_999_999)


@pytest.mark.parametrize('value', [math.nan, math.inf, -math.inf])
def test_non_finite_time_rejected(value):
    with pytest.raises(InputError, match='duration'):
        seconds_to_ns(value, 'duration')


def test_int32_overflow_rejected():
    with pytest.raises(InputError, match='int32'):
        split_ns(2**31 * 1_000_000_000)


def test_time_and_duration_roundtrip(store):  # noqa: F811
    ts, types = store
    big = 1_700_000_000_123_456_789
    t = roundtrip(ts, time_msg_from_ns(types, big))
    assert (t.sec, t.nanosec) == (1_700_000_000, 123_456_789)
    assert msg_to_ns(t) == big
    d = roundtrip(ts, duration_msg(types, -0.25))
    assert (d.sec, d.nanosec) == (-1, 750_000_000)
    assert msg_to_seconds(d) == -0.25
    t2 = time_msg(types, 3.5)
    assert time_msg(types, t2) is t2
    h = roundtrip(ts, header(types, 12.000000007, 'panda_link0'))
    assert (h.stamp.sec, h.stamp.nanosec, h.frame_id) == (12, 7, 'panda_link0')
