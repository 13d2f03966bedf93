"""Tasks (effectors): residual rows and Jacobian rows, one task per file.

    FrameTask           pose target for any link (masks, weights, tolerances)
    RelativeFrameTask   pose of a link in another moving link's frame
    LookAtTask          a link axis pointing at a point (2 rows)
    CoMTask             centre of mass on selected axes
    PositionBoundTask   a link point inside a box / above a plane (≤, ≥ rows)
    LimitAvoidanceTask  soft joint-limit margins, optional lower level
    ClosureTask         loop closure between two links, "invariant" level
    PostureTask         preferred joint values, lowest priority
    JointLockTask       hold joints at values, above the targets
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
from pdls_ik.tasks.position_bound_task import PositionBoundTask
from pdls_ik.tasks.posture_task import PostureTask, middle_of_limits
from pdls_ik.tasks.relative_frame_task import RelativeFrameTask

__all__ = ["Task", "FrameTask", "RelativeFrameTask", "LookAtTask", "CoMTask",
           "PositionBoundTask", "LimitAvoidanceTask", "ClosureTask", "PostureTask",
           "JointLockTask", "middle_of_limits", "INVARIANT", "LOCK", "TARGET", "POSTURE"]
