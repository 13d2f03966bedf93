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
Rotations and rigid transforms: SO(3) and SE(3) logarithms, exponentials and pose parsing, once.

Imports nothing robotic (below :mod:`pdls_ik.model` and :mod:`pdls_ik.tasks`, which use it).
Rotation matrices are (3, 3), poses (4, 4) homogeneous, rotation vectors (3,) in radians;
quaternions (x, y, z, w) through scipy's ``Rotation``.
"""
