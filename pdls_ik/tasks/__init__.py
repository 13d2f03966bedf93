"""Tasks (effectors): residual rows and Jacobian rows, one task per file.

    FrameTask       pose target for any link (masks, weights, tolerances)   frame_task.py
    PostureTask     preferred joint values, lowest priority                 posture_task.py
    JointLockTask   hold joints at values, above the targets                joint_lock_task.py
    Task            the abstract base: compute(q) -> (e (m,), J (m, n))     base.py
"""
from pdls_ik.tasks.base import LOCK, POSTURE, TARGET, Task
from pdls_ik.tasks.frame_task import FrameTask
from pdls_ik.tasks.joint_lock_task import JointLockTask
from pdls_ik.tasks.posture_task import PostureTask, middle_of_limits

__all__ = ["Task", "FrameTask", "PostureTask", "JointLockTask", "middle_of_limits",
           "LOCK", "TARGET", "POSTURE"]
