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
Tasks (effectors): residual rows and Jacobian rows, one task per file.

    FrameTask           pose target for any link (masks, weights, tolerances)
    RelativeFrameTask   pose of a link in another moving link's frame
    LookAtTask          a link axis pointing at a point (2 rows)
    CoMTask             centre of mass on selected axes
    PositionBoundTask   a link point inside a box / above a plane (≤, ≥ rows)
    LimitAvoidanceTask  soft joint-limit margins, optional lower level
    ClosureTask         loop closure between two links, "invariant" level
    PotentialEnergyTask gravitational (CoM) and elastic potential, minimized: one row
    PostureTask         preferred joint values, lowest priority
    JointLockTask       hold joints at values, above the targets
    SelfCollisionTask   link pairs kept ≥ d_min apart (inequality rows), above the pose
    ObstacleTask        links kept ≥ d_min from environment obstacles (the same rows)
    Task                the abstract base: compute(q) -> (e (m,), J (m, n))

Each lives in the file named after it in snake case (``FrameTask`` in ``frame_task.py``).
"""
from pdls_ik.tasks.base import INVARIANT, LOCK, POSTURE, TARGET, Task
from pdls_ik.tasks.closure_task import ClosureTask
from pdls_ik.tasks.com_task import CoMTask
from pdls_ik.tasks.frame_task import FrameTask
from pdls_ik.tasks.joint_lock_task import JointLockTask
from pdls_ik.tasks.limit_avoidance_task import LimitAvoidanceTask
from pdls_ik.tasks.look_at_task import LookAtTask
from pdls_ik.tasks.obstacle_task import ObstacleTask
from pdls_ik.tasks.position_bound_task import PositionBoundTask
from pdls_ik.tasks.posture_task import middle_of_limits, PostureTask
from pdls_ik.tasks.potential_energy_task import PotentialEnergyTask
from pdls_ik.tasks.relative_frame_task import RelativeFrameTask
from pdls_ik.tasks.self_collision_task import SelfCollisionTask

__all__ = ['Task', 'FrameTask', 'RelativeFrameTask', 'LookAtTask', 'CoMTask',
           'PositionBoundTask', 'LimitAvoidanceTask', 'ClosureTask', 'PotentialEnergyTask',
           'PostureTask', 'JointLockTask', 'SelfCollisionTask', 'ObstacleTask', 'middle_of_limits',
           'INVARIANT',
           'LOCK', 'TARGET', 'POSTURE']
