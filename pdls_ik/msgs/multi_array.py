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
std_msgs Float64MultiArray: joint positions for a forward position controller.

ros2_controllers' forward command controllers
(``position_controllers/JointGroupPositionController``) read one value per joint on
``~/commands``, in the order of their ``joints`` parameter, and ignore the layout; MoveIt
Servo publishes the same message for them. The layout here is one dimension labelled ``joints``
(size n, stride n), so that generic tools can read it too.
"""
from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np
from pdls_ik.errors import InputError
from pdls_ik.msgs.message_types import MessageTypes


def float64_multi_array(types: MessageTypes, values: Sequence[float]) -> Any:
    """
    std_msgs/Float64MultiArray holding ``values`` (n,) [rad or m].

    :raises InputError: a value is NaN or infinite (a controller would execute it).
    """
    data = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(data)):
        raise InputError('Float64MultiArray.data: non-finite joint position')
    n = int(data.size)
    layout = types.MultiArrayLayout(
        dim=[types.MultiArrayDimension(label='joints', size=n, stride=n)], data_offset=0)
    return types.Float64MultiArray(layout=layout, data=types.floats(data))


def multi_array_values(msg: Any) -> List[float]:
    """Return the data of a Float64MultiArray of either back end as a list of floats."""
    return [float(v) for v in msg.data]
