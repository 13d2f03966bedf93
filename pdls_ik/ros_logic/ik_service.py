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
The ``~/compute_ik`` answer (moveit_msgs/srv/GetPositionIK semantics), without ROS.

Steps and their MoveIt error codes: ``ik_link_name`` unknown -> INVALID_LINK_NAME; robot_state
joints with NaN -> INVALID_ROBOT_STATE; goal frame unknown -> FRAME_TRANSFORM_FAILURE; solve
without success -> TIMED_OUT when the solver ran out of time, else NO_IK_SOLUTION. The seed is
the request's robot_state (joints it lacks taken from the node's current state), the timeout the
request's (zero: the configured one). ``avoid_collisions`` is reported as unsupported in the
reply's message. A failed reply carries no joints, as MoveIt's does.
"""
from __future__ import annotations

import threading
from typing import Callable, Dict

import numpy as np
from numpy.typing import NDArray
from pdls_ik.diagnostics import failure_message
from pdls_ik.errors import InputError, LinkError
from pdls_ik.msgs.joint_state import match_joint_positions
from pdls_ik.msgs.moveit import ErrorCode, IKServiceReply, IKServiceRequest
from pdls_ik.ros_logic.frames import goal_in_base
from pdls_ik.ros_logic.robot import Robot

AVOID_COLLISIONS_UNSUPPORTED = ('avoid_collisions is not supported: pdls_ik checks no '
                                'collisions, the solution was not checked')


def _timed_out(result) -> bool:
    return 'time' in str(result.status).lower()


class IKService:
    """Serves GetPositionIK requests with solvers of its own (one per tip link, cached)."""

    def __init__(self, robot: Robot):
        self._lock = threading.Lock()
        self._robot = robot
        self._solvers: Dict[str, object] = {}

    def set_robot(self, robot: Robot) -> None:
        """Swap in a new robot; cached solvers are dropped."""
        with self._lock:
            self._robot, self._solvers = robot, {}

    def _solver(self, robot: Robot, tip: str):
        if tip not in self._solvers:
            self._solvers[tip] = robot.solver(tip)
        return self._solvers[tip]

    def compute(self, request: IKServiceRequest,
                current_q: Callable[[], NDArray[np.float64]]) -> IKServiceReply:
        """
        Answers one request; never raises on bad input (the reply carries the error code).

        :param request: the parsed request.
        :param current_q: returns the node's (n,) current joint positions (seed of joints the
            request does not give, and state of a goal frame that is a moving link).
        """
        with self._lock:  # one request at a time per service: solvers are not shared
            return self._compute(request, current_q)

    def _compute(self, request: IKServiceRequest,
                 current_q: Callable[[], NDArray[np.float64]]) -> IKServiceReply:
        robot = self._robot
        notes = [AVOID_COLLISIONS_UNSUPPORTED] if request.avoid_collisions else []
        tip = request.ik_link_name or robot.tip_link

        def fail(code: ErrorCode, message: str) -> IKServiceReply:
            return IKServiceReply(code, '; '.join([message] + notes))

        try:
            solver = self._solver(robot, tip)
        except LinkError as exc:
            return fail(ErrorCode.INVALID_LINK_NAME, f'ik_link_name: {exc}')
        try:
            seed = match_joint_positions(request.seed_names, request.seed_positions,
                                         robot.joint_names, fallback=current_q(),
                                         field_name='ik_request.robot_state.joint_state').q
        except InputError as exc:
            return fail(ErrorCode.INVALID_ROBOT_STATE, str(exc))
        try:
            target = goal_in_base(robot.linkage, robot.base_link, request.target, seed)
        except LinkError as exc:
            return fail(ErrorCode.FRAME_TRANSFORM_FAILURE, f'ik_request.pose_stamped: {exc}')
        result = solver.solve(target, seed=seed, timeout=request.timeout)
        if not result.success:
            code = ErrorCode.TIMED_OUT if _timed_out(result) else ErrorCode.NO_IK_SOLUTION
            return fail(code, failure_message(result))
        message = '; '.join([f'solved ({result.status}) in {1e3 * result.solve_time:.3g} ms']
                            + notes)
        return IKServiceReply(ErrorCode.SUCCESS, message, list(robot.joint_names),
                              np.asarray(result.q, dtype=float))
