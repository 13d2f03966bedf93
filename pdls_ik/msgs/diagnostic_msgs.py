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
diagnostic_msgs DiagnosticArray from :class:`pdls_ik.diagnostics.DiagnosticStatus` objects.

A status object has ``level`` (0 OK, 1 WARN, 2 ERROR, 3 STALE), ``name``, ``message``,
``hardware_id`` and ``values`` (an ordered mapping str -> str, becoming KeyValue pairs in order).
"""
from __future__ import annotations

from typing import Any, Dict, Iterable

from pdls_ik.msgs.message_types import byte_value, MessageTypes
from pdls_ik.msgs.stamps import header, Stamp


def diagnostic_status(types: MessageTypes, status: Any) -> Any:
    """diagnostic_msgs/DiagnosticStatus from a status object (values stringified with str())."""
    return types.DiagnosticStatus(
        level=types.byte(int(status.level)), name=str(status.name),
        message=str(status.message), hardware_id=str(status.hardware_id),
        values=[types.KeyValue(key=str(k), value=str(v)) for k, v in status.values.items()])


def diagnostic_array(types: MessageTypes, statuses: Iterable[Any], stamp: Stamp = 0.0) -> Any:
    """diagnostic_msgs/DiagnosticArray; ``stamp`` in seconds or a Time message."""
    return types.DiagnosticArray(header=header(types, stamp, ''),
                                 status=[diagnostic_status(types, s) for s in statuses])


def status_values(msg: Any) -> Dict[str, str]:
    """Return the KeyValue pairs of a DiagnosticStatus message as an ordered dict."""
    return {str(kv.key): str(kv.value) for kv in msg.values}


def status_level(msg: Any) -> int:
    """Level of a DiagnosticStatus message of either back end as an int."""
    return byte_value(msg.level)
