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
The diagnostic statuses a node publishes: one current status per named source.

Sources are the solver and each input (``goal_pose``, ``joint_states``, ``robot_description``,
``parameters``): a bad message sets its source to ERROR until a good one of the same source
arrives. The node publishes :meth:`Board.statuses` at least once a second and after every solve.
"""
from __future__ import annotations

import threading
from typing import Dict, List

from pdls_ik.diagnostics import DiagnosticStatus, ERROR, OK, WARN


class Board:
    """Thread-safe table source -> :class:`DiagnosticStatus` (names ``"<node>: <source>"``)."""

    def __init__(self, node_name: str, hardware_id: str = ''):
        self.node_name = node_name
        self.hardware_id = hardware_id
        self._lock = threading.Lock()
        self._statuses: Dict[str, DiagnosticStatus] = {}

    def set(self, source: str, level: int, message: str,  # noqa: A003 (a method name)
            **values: object) -> bool:
        """
        Set the status of ``source`` (values stringified).

        :return: True when its level or message changed (the node then publishes at once
            rather than at the next period).
        """
        status = DiagnosticStatus(level, f'{self.node_name}: {source}', message,
                                  self.hardware_id, {k: str(v) for k, v in values.items()})
        return self.put(source, status)

    def put(self, source: str, status: DiagnosticStatus) -> bool:
        """
        Store a prepared status under ``source`` (renamed ``"<node>: <source>"``).

        :return: True when its level or message changed.
        """
        status = DiagnosticStatus(status.level, f'{self.node_name}: {source}', status.message,
                                  status.hardware_id or self.hardware_id, dict(status.values))
        with self._lock:
            old = self._statuses.get(source)
            self._statuses[source] = status
        return old is None or (old.level, old.message) != (status.level, status.message)

    def ok(self, source: str, message: str, **values: object) -> bool:
        """OK status of ``source``."""
        return self.set(source, OK, message, **values)

    def warn(self, source: str, message: str, **values: object) -> bool:
        """WARN status of ``source``."""
        return self.set(source, WARN, message, **values)

    def error(self, source: str, message: str, **values: object) -> bool:
        """ERROR status of ``source``."""
        return self.set(source, ERROR, message, **values)

    def statuses(self) -> List[DiagnosticStatus]:
        """All current statuses, sorted by source name."""
        with self._lock:
            return [self._statuses[k] for k in sorted(self._statuses)]

    def get(self, source: str) -> DiagnosticStatus:
        """Return the current status of ``source`` (KeyError if never set)."""
        with self._lock:
            return self._statuses[source]
