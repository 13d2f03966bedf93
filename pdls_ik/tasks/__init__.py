"""Tasks (effectors): residual rows and Jacobian rows, one task per file.

    FrameTask           pose target for any link (masks, weights, tolerances)  frame_task.py
    RelativeFrameTask   pose of a link in another moving link's frame          relative_frame_task.py
    LookAtTask          a link axis pointing at a point (2 rows)               look_at_task.py
    CoMTask             centre of mass on selected axes                        com_task.py
    PositionBoundTask   a link point inside a box / above a plane (≤, ≥ rows)  position_bound_task.py
    LimitAvoidanceTask  soft joint-limit margins, optional lower level         limit_avoidance_task.py
    ClosureTask         loop closure between two links, "invariant" level      closure_task.py
    PostureTask         preferred joint values, lowest priority                posture_task.py
    JointLockTask       hold joints at values, above the targets               joint_lock_task.py
    Task                the abstract base: compute(q) -> (e (m,), J (m, n))    base.py
"""
from pdls_ik.tasks.base import INVARIANT, LOCK, POSTURE, TARGET, Task
from pdls_ik.tasks.closure_task import ClosureTask
from pdls_ik.tasks.com_task import CoMTask
from pdls_ik.tasks.frame_task import FrameTask
from pdls_ik.tasks.joint_lock_task import JointLockTask
from pdls_ik.tasks.limit_avoidance_task import LimitAvoidanceTask
from pdls_ik.tasks.look_at_task import LookAtTask
from pdls_ik.tasks.position_bound_task import PositionBoundTask
from pdls_ik.tasks.posture_task import PostureTask, middle_of_limits
from pdls_ik.tasks.relative_frame_task import RelativeFrameTask

__all__ = ["Task", "FrameTask", "RelativeFrameTask", "LookAtTask", "CoMTask",
           "PositionBoundTask", "LimitAvoidanceTask", "ClosureTask", "PostureTask",
           "JointLockTask", "middle_of_limits", "INVARIANT", "LOCK", "TARGET", "POSTURE"]
