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
visualization_msgs for rviz: a reachability map as a MarkerArray.

Marker fields as in visualization_msgs/msg/Marker (Humble and newer have the same fields).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from pdls_ik.msgs.message_types import MessageTypes
from pdls_ik.msgs.stamps import header, Stamp

#: the colours of reachability index 0 and 1 (red → green), RGBA in [0, 1]
LOW_COLOR, HIGH_COLOR = np.array([0.85, 0.1, 0.1, 0.8]), np.array([0.1, 0.75, 0.2, 0.8])


def reach_marker_array(types: MessageTypes, centers: ArrayLike, index: ArrayLike, voxel: float,
                       frame_id: str, stamp: Stamp = 0.0, ns: str = 'reachability') -> Any:
    """
    visualization_msgs/MarkerArray of one CUBE_LIST marker: a cube per reachable voxel.

    :param centers: (V, 3) voxel centres [m] in ``frame_id``; index: (V,) reachability index in
        [0, 1] (voxels at 0 are left out); voxel: cube edge [m].
    Colours go from red (index near 0) to green (1), as reuleaux's maps in rviz.
    """
    centers, index = np.asarray(centers, dtype=float), np.asarray(index, dtype=float)
    keep = index > 0.0
    rgba = LOW_COLOR + index[keep, None] * (HIGH_COLOR - LOW_COLOR)
    t = types
    pose = t.Pose(position=t.Point(x=0.0, y=0.0, z=0.0),
                  orientation=t.Quaternion(x=0.0, y=0.0, z=0.0, w=1.0))
    hdr = header(t, stamp, frame_id)
    marker = t.Marker(
        header=hdr, ns=ns, id=0, type=6, action=0, pose=pose,       # 6: CUBE_LIST, 0: ADD
        scale=t.Vector3(x=float(voxel), y=float(voxel), z=float(voxel)),
        color=t.ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0),
        lifetime=t.Duration(sec=0, nanosec=0), frame_locked=False,
        points=[t.Point(x=float(x), y=float(y), z=float(z)) for x, y, z in centers[keep]],
        colors=[t.ColorRGBA(r=float(r), g=float(g), b=float(b), a=float(a))
                for r, g, b, a in rgba],
        texture_resource='',
        texture=t.CompressedImage(header=header(t, 0.0, ''), format='',
                                  data=np.zeros(0, dtype=np.uint8)),
        uv_coordinates=[], text='', mesh_resource='',
        mesh_file=t.MeshFile(filename='', data=np.zeros(0, dtype=np.uint8)),
        mesh_use_embedded_materials=False)
    return t.MarkerArray(markers=[marker])
