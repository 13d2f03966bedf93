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

Steps and their MoveIt error codes, in MoveIt's order (move_group's ``computeIK``):

1. ``group_name`` selects the group (:mod:`pdls_ik.ros_logic.groups`): unknown ->
   INVALID_GROUP_NAME naming it. Each ``ik_link_name(s)`` ("" -> the group's tip) must be a
   link of the model and, with a group named, a link that a joint of the group moves (MoveIt's
   rule), else INVALID_LINK_NAME. Without ``group_name`` the configured chain is no limit: any
   link a joint moves relative to the base link is a tip, and the group is the chains from the
   base link to the tips (a hand on another branch of the robot solves its own chain).
2. Seed: ``robot_state.joint_state`` (joints it lacks: the node's current state; names the model
   lacks, e.g. mimic joints, are skipped); NaN/inf -> INVALID_ROBOT_STATE. A group joint outside
   its limits is clamped into them and named in the reply's message: MoveIt accepts such a seed
   too and its solvers (KDL clips every step into the limits) answer within the limits. Joints
   outside the group are never moved: the reply carries them as given.
3. Targets: each pose's frame must be a link of the model, "" or the SRDF's model frame, else
   FRAME_TRANSFORM_FAILURE (a goal in a moving link is placed with the seed's joint values, as
   MoveIt does).
4. Solve: one tip whose chain from the group's base is exactly the group -> the cached
   :class:`~pdls_ik.ik.IKSolver` (compiled kernels); several tips on one priority level whose
   chains cover the group (two arms on a fixed torso, or on a torso joint) -> chain by chain
   (:meth:`IKService._solve_plan`); otherwise (a group that is not one chain, ranked tips, a
   posture state, or the chain plan's attempts spent before the timeout) a
   :class:`~pdls_ik.ik.task_solver.TaskSolver` with one
   :class:`~pdls_ik.tasks.FrameTask` per tip, at the priority ``tip_priorities`` gives its link
   (default ``pose_priority``: all tips on one level), the joints outside the group fixed, and
   the posture state (an SRDF ``group_state``) as the lowest-priority posture target. No success
   -> TIMED_OUT when the solver ran out of time, else NO_IK_SOLUTION; a failed reply carries no
   joints, as MoveIt's does.
5. Reply: every joint variable of the robot (model order; mimic joints follow their masters):
   the group's solved, the others as in the seed. ``constraints`` are not applied (said in the
   reply's message).

``avoid_collisions`` (always true from SrvKinematicsPlugin) means what it means to MoveIt: the
answer is collision-free. The solve then has the self-collision level above the poses
(:class:`~pdls_ik.tasks.SelfCollisionTask`, position form, ``collision_d_min``) on the node's
collision model: the one of the ``self_collision`` parameter, else built on demand from the
same parameters (``collision_model``, ``mesh_path``, the SRDF's ``disable_collisions``) and
kept; the node's environment obstacles (``collision_object`` topic, task file) join the level
(:class:`~pdls_ik.tasks.ObstacleTask`). Every answer is then checked independently
(:func:`collision_text`): a solution that still has a pair, or a link and an obstacle, closer
than ``collision_d_min`` is NO_IK_SOLUTION naming them. What is checked: the robot's own links
(its collision model) and the obstacles the node knows; MoveIt's planning scene (its world,
attached bodies, the Allowed Collision Matrix) is not read. A robot without
collision geometry has nothing to check (said in the reply's message). ``avoid_collisions``
false: no collision level, no check (a ``self_collision`` entry of the task file is left out
too).
"""
from __future__ import annotations

import dataclasses
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.diagnostics import failure_message
from pdls_ik.errors import ConfigError, InputError, LinkError, PDLSIKError
from pdls_ik.ik import IKSolver
from pdls_ik.ik.task_problem import pdls_options, resolve_tasks
from pdls_ik.ik.task_solver import TaskSolver
from pdls_ik.model.obstacles import ObstacleSet
from pdls_ik.model.srdf import ResolvedGroup, SRDF, SRDFError
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.msgs.joint_state import match_joint_positions
from pdls_ik.msgs.moveit import ErrorCode, IKServiceReply, IKServiceRequest, RequestError
from pdls_ik.ros_logic.collision_setup import (build_model, collision_entry, collision_text,
                                               with_collision)
from pdls_ik.ros_logic.groups import chain_group, CONFIGURED_GROUP, Groups
from pdls_ik.ros_logic.robot import Robot
from pdls_ik.tasks import FrameTask, PostureTask

#: starts (the joints solved before it, then random draws) of a tip whose chain starts on an
#: earlier tip's chain, per attempt of :meth:`IKService._solve_plan`
LATER_TIP_STARTS = 4

#: attempts of :meth:`IKService._solve_plan` on chains that share joints before the task solver
#: takes the rest of the timeout (the bundled bimanual's upper_body: 1000 of 1000 random goals
#: within 32)
PLAN_ATTEMPTS = 64

#: said in every reply to a request with avoid_collisions: what is (not) checked
COLLISIONS_CHECKED = ("collisions checked: the robot's own links (self-collision) and the "
                      "node's environment obstacles; MoveIt's planning scene is not read")

Array = NDArray[np.float64]


def tip_priorities(entries: Optional[Sequence[str]]) -> Dict[str, int]:
    """
    Read the ``ik_link_priorities`` parameter: ``["l_tool:0", "r_tool:1"]`` -> {link: priority}.

    :raises ConfigError: an entry that is not ``link:integer``, or a link given twice.
    """
    out: Dict[str, int] = {}
    for entry in entries or ():
        if not entry:
            continue            # [""]: an empty list in a YAML file that must name its type
        link, sep, value = str(entry).rpartition(':')
        try:
            priority = int(value)
        except ValueError:
            priority = -1
        if not sep or not link or priority < 0:
            raise ConfigError(f"parameter 'ik_link_priorities': entry '{entry}' is not "
                              f"'link:priority' with an integer priority >= 0")
        if link in out:
            raise ConfigError(f"parameter 'ik_link_priorities': link '{link}' given twice")
        out[link] = priority
    return out


def _timed_out(result) -> bool:
    return 'time' in str(result.status).lower()


def pose_in_base(groups: Groups, pose: ParsedPose, q: Array) -> Array:
    """
    (4, 4) pose of ``pose`` in the robot's base link, moving links placed at q (n,).

    :raises LinkError: the frame is neither "", the model frame, an SRDF virtual joint's frame
        nor a link of the model (this node has no TF).
    """
    robot = groups.robot
    linkage = robot.linkage
    link = groups.link_of_frame(pose.frame_id)
    if link not in linkage.link_names:
        raise LinkError(pose.frame_id, f'unknown goal frame: not the model frame '
                                       f"'{groups.model_frame}' nor a link of robot "
                                       f"'{linkage.name}' (no TF lookup in this node)")
    return linkage.forward_kinematics(q, link, robot.base_link) @ pose.matrix()


def _task_failure(result) -> str:
    errors = ', '.join(f'{name} {err:.3g}' for name, err in result.errors.items())
    return (f'no solution ({result.status}) after {result.restarts} restarts: task errors '
            f'{errors}')


class IKService:
    """
    Serves GetPositionIK requests with solvers of its own.

    :param robot: the node's robot.
    :param srdf: its SRDF (groups, group states), or None: the configured chain is the only
        group.
    :param posture_state: name of an SRDF group_state ("state" or "group/state") used as the
        posture target of every solve (once an SRDF is given); "" for none.
    :param tip_priorities: link -> priority of its pose task (smaller = higher, strict); links
        not listed get ``config.pose_priority``.

    :raises SRDFError: ``posture_state`` names no group state, or a value of another robot.
    """

    def __init__(self, robot: Robot, srdf: Optional[SRDF] = None, posture_state: str = '',
                 tip_priorities: Optional[Dict[str, int]] = None):
        self._lock = threading.Lock()
        self.tip_priorities = dict(tip_priorities or {})
        self._posture_state = posture_state
        self._install(robot, srdf)

    def _install(self, robot: Robot, srdf: Optional[SRDF]) -> None:
        groups = Groups(robot, srdf)
        posture = None
        if self._posture_state and srdf is not None:    # applied once an SRDF is there
            group, _, name = self._posture_state.rpartition('/')
            state = srdf.group_state(name, group or None)
            posture, _ = srdf.state_positions(robot.linkage, state, robot.default_q())
            outside = (posture < robot.linkage.lower) | (posture > robot.linkage.upper)
            if outside.any():
                joint = robot.joint_names[int(np.flatnonzero(outside)[0])]
                raise SRDFError(f"posture_state '{self._posture_state}': joint '{joint}' "
                                f'outside its limits')
        self._robot, self._groups, self._posture = robot, groups, posture
        self._solvers: Dict[Tuple[str, str, bool], Optional[IKSolver]] = {}
        #: (collision model or None, why there is none) of avoid_collisions requests, once built
        self._collision: Optional[Tuple[object, str]] = None

    @property
    def posture(self) -> Optional[Array]:
        """Return the (n,) posture target of ``posture_state`` (others mid-limits), or None."""
        return None if self._posture is None else self._posture.copy()

    @property
    def groups(self) -> Groups:
        """Return the groups this service answers for."""
        return self._groups

    def set_robot(self, robot: Robot, srdf: Optional[SRDF] = None, keep_srdf: bool = True
                  ) -> None:
        """
        Swap in a new robot (and SRDF; ``keep_srdf``: keep the current one when None).

        Cached solvers are dropped. :raises SRDFError: see the class.
        """
        with self._lock:
            if srdf is None and keep_srdf:
                srdf = self._groups.srdf
            self._install(robot, srdf)

    def set_srdf(self, srdf: Optional[SRDF]) -> None:
        """Swap in a new SRDF (None: none). :raises SRDFError: see the class."""
        self.set_robot(self._robot, srdf, keep_srdf=False)

    def compute(self, request: IKServiceRequest,
                current_q: Callable[[], Array]) -> IKServiceReply:
        """
        Answers one request; never raises on bad input (the reply carries the error code).

        :param request: the parsed request.
        :param current_q: returns the node's (n,) current joint positions (seed of joints the
            request does not give, and state of a goal frame that is a moving link).
        """
        with self._lock:  # one request at a time per service: solvers are not shared
            notes: List[str] = []
            try:
                return self._compute(request, current_q, notes)
            except RequestError as exc:
                return IKServiceReply(exc.code, '; '.join([str(exc)] + notes))

    # ------------------------------------------------------------------ steps
    def _seed(self, request: IKServiceRequest, group: ResolvedGroup, q_now: Array,
              notes: List[str]) -> Tuple[Array, Array]:
        """(seed as given, seed with the group's joints clamped into their limits), (n,) each."""
        robot = self._robot
        try:
            given = match_joint_positions(request.seed_names, request.seed_positions,
                                          robot.joint_names, fallback=q_now,
                                          field_name='ik_request.robot_state.joint_state').q
        except InputError as exc:
            raise RequestError(ErrorCode.INVALID_ROBOT_STATE, str(exc)) from None
        lower, upper = robot.linkage.lower, robot.linkage.upper
        seed = given.copy()
        idx = group.variables
        seed[idx] = np.clip(given[idx], lower[idx], upper[idx])
        clamped = [f'{robot.joint_names[i]} {given[i]:.6g} -> {seed[i]:.6g}'
                   for i in idx if seed[i] != given[i]]
        if clamped:
            notes.append('seed outside the joint limits, clamped: ' + ', '.join(clamped))
        if request.multi_dof_names:
            notes.append('robot_state.multi_dof_joint_state not applied (the model has a fixed '
                         f"root): {', '.join(request.multi_dof_names)}")
        return given, seed

    def _group(self, request: IKServiceRequest) -> Tuple[ResolvedGroup, List[str]]:
        """
        (group whose joints move, tip link of every target) of a request.

        A named group as MoveIt resolves it, every tip moved by one of its joints; no group
        named: the chains from the base link to the tips (any link a joint moves relative to
        the base).
        """
        robot = self._robot
        linkage, base = robot.linkage, robot.base_link
        named = request.group_name != CONFIGURED_GROUP
        group = self._groups.get(request.group_name)
        labels = [target.field.replace('pose_stamped', 'ik_link_name')
                  for target in request.targets]
        links = [target.link or group.tip_link for target in request.targets]
        for label, link in zip(labels, links):
            try:
                linkage.link_index(link)
            except LinkError as exc:
                raise RequestError(ErrorCode.INVALID_LINK_NAME, f'{label}: {exc}') from None
        if not named:
            group = chain_group(linkage, base, *links)
        for label, link in zip(labels, links):
            if group.moves(linkage, link, base):
                continue
            if named:
                why = (f"is not moved by the joints of group '{group.name}' "
                       f"({', '.join(group.variable_names)})")
            else:
                why = f"is not moved by any joint relative to the base link '{base}'"
            raise RequestError(ErrorCode.INVALID_LINK_NAME, f"{label}: link '{link}' {why}")
        return group, links

    def _targets(self, request: IKServiceRequest, links: List[str],
                 given: Array) -> List[Tuple[str, Array]]:
        """(tip link, (4, 4) goal in the base link) of every target, frames placed at given."""
        out = []
        for target, link in zip(request.targets, links):
            try:
                out.append((link, pose_in_base(self._groups, target.pose, given)))
            except LinkError as exc:
                raise RequestError(ErrorCode.FRAME_TRANSFORM_FAILURE,
                                   f'{target.field}: {exc}') from None
        return out

    def _collision_model(self) -> Tuple[object, str]:
        """
        (collision model or None, why none) for avoid_collisions requests, built once.

        The node's model when its ``self_collision`` parameter built one; else one built here
        from the same parameters and the SRDF in force.
        """
        if self._collision is None:
            robot = self._robot
            if robot.collision is not None:
                self._collision = (robot.collision, '')
            else:
                try:
                    self._collision = (build_model(robot.linkage, robot.collision_settings,
                                                   self._groups.srdf), '')
                except ConfigError as exc:
                    self._collision = (None, str(exc))
        return self._collision

    def _extra_tasks(self, avoid: bool):
        """Return the extra tasks of a solve: the robot's, with the collision level iff avoid."""
        robot = self._robot
        model = self._collision_model()[0] if avoid else None
        entry = None if model is None else collision_entry(model, robot.collision_settings)
        if entry is None and avoid:
            return robot.tasks             # nothing to check: a task file's entry stays
        tasks = with_collision(robot.tasks, entry, robot.obstacles)
        if tasks is not None and tasks.obstacles is not None and not (
                tasks.obstacles.snapshot() if isinstance(tasks.obstacles, ObstacleSet)
                else tasks.obstacles):
            # no obstacle now (the node's set is empty until a collision_object arrives): the
            # self-collision level alone, which the compiled kernels solve
            tasks = dataclasses.replace(tasks, obstacles=None)
        return tasks

    def _chain_solver(self, group: ResolvedGroup, tip: str, avoid: bool
                      ) -> Optional[IKSolver]:
        """
        Return the cached IKSolver of ``tip`` from the group base if its chain is the group.

        One per group, tip, avoid_collisions and whether obstacles are known at the time of the
        request (the node's set changes while it runs).
        """
        tasks = self._extra_tasks(avoid)
        key = (group.name, tip, avoid,      # no group named: the group is the tip's chain
               tasks is not None and tasks.obstacles is not None)
        if key not in self._solvers:
            solver = None
            try:
                candidate = IKSolver(self._robot.linkage, tip, group.base_link,
                                     config=self._robot.solver_config, extra_tasks=tasks)
                # the variables it moves (chain, locks, extra tasks') are the group's
                if np.array_equal(np.flatnonzero(candidate.free), group.variables):
                    candidate.warm_up()
                    solver = candidate
            except PDLSIKError:
                solver = None
            self._solvers[key] = solver
        return self._solvers[key]

    def _chain_plans(self, group: ResolvedGroup, tips: List[str], avoid: bool
                     ) -> Optional[List[List[Tuple[str, IKSolver, str]]]]:
        """
        Return the chain plans of the tips: one per tip order that starts the chains anew.

        Independent chains (:meth:`_chain_plan` gives each the group base) need one plan; chains
        that share joints get one plan per rotation of the tips, so that each tip in turn
        chooses the shared joints. None when the tips' chains do not cover the group.
        """
        plan = self._chain_plan(group, tips, avoid)
        if plan is None or all(base == group.base_link for _, _, base in plan):
            return None if plan is None else [plan]
        rotations = (self._chain_plan(group, tips[r:] + tips[:r], avoid)
                     for r in range(len(tips)))
        return [p for p in rotations if p is not None]

    def _chain_plan(self, group: ResolvedGroup, tips: List[str], avoid: bool
                    ) -> Optional[List[Tuple[str, IKSolver, str]]]:
        """
        Return (tip, compiled chain solver, its base link) per tip when chains cover the group.

        Tip k's chain starts where its path from the group base leaves the paths of the tips
        before it (the group base when it shares no joint with them): two arms on a fixed torso
        are two chains from the torso; on a torso joint, the first arm's chain holds the torso
        joint and the second arm's starts at the torso link. The plan holds when those chains
        move disjoint joints that together are the group's and no extra task couples them;
        None otherwise (the task solver answers).
        """
        key = (group.name, tuple(tips), avoid)
        if key not in self._solvers:
            plan: Optional[List[Tuple[str, IKSolver, str]]] = None
            linkage = self._robot.linkage
            if not self._extra_tasks(avoid):
                try:
                    bases, seen = [], set()
                    for tip in tips:
                        chain = linkage.chain(tip, group.base_link)
                        if not chain.base_is_lca:
                            raise LinkError(tip, 'not below the group base')
                        base = group.base_link
                        for joint in chain.path_joints:       # group base -> tip
                            if joint not in seen:
                                break
                            base = linkage.link_names[linkage.joints[joint].child]
                        seen.update(chain.path_joints)
                        bases.append(base)
                    config = self._robot.solver_config
                    if any(base != group.base_link for base in bases):
                        # one local solve per call: _solve_plan schedules the restarts
                        config = config.replace(random_restarts=False)
                    plan = [(tip, IKSolver(linkage, tip, base, config=config), base)
                            for tip, base in zip(tips, bases)]
                except PDLSIKError:
                    plan = None
            if plan is not None:
                moved = np.concatenate([np.flatnonzero(s.free) for _, s, _ in plan])
                if moved.size != np.unique(moved).size or \
                        not np.array_equal(np.sort(moved), group.variables):
                    plan = None
                else:
                    for _, solver, _ in plan:
                        solver.warm_up()
            self._solvers[key] = plan
        return self._solvers[key]

    def _solve_plan(self, plans: List[List[Tuple[str, IKSolver, str]]], group: ResolvedGroup,
                    targets: List[Tuple[str, Array]], seed: Array, timeout: Optional[float]):
        """
        Solve the tips chain by chain within one timeout; one result.

        Independent chains (all from the group base) are each solved once, with the solver's own
        restarts. Chains that start on an earlier tip's chain are solved in order, each goal
        taken in its chain's base at the joints solved before it; when a tip fails, the next
        attempt takes the next plan (tip order) and starts its first chain from a random
        configuration; each later tip gets :data:`LATER_TIP_STARTS` starts. The result is the
        attempt that met the most tips: on failure its status is "max_time" when the clock
        ended the attempts, else its chain's (:data:`PLAN_ATTEMPTS` spent: the caller gives the
        rest of the timeout to the task solver). The random draws come from a generator seeded
        by ``random_seed``: the attempts are a function of the inputs; the timeout only ends
        them.
        """
        robot, linkage = self._robot, self._robot.linkage
        config = robot.solver_config
        budget = config.timeout if timeout is None else timeout
        start = time.perf_counter()
        deadline = start + budget
        q = np.array(seed, dtype=float)
        goals = dict(targets)
        sequential = len(plans) > 1 or any(base != group.base_link for _, _, base in plans[0])
        lower = np.where(np.isfinite(linkage.lower), linkage.lower, -np.pi)
        upper = np.where(np.isfinite(linkage.upper), linkage.upper, np.pi)
        rng = np.random.default_rng(config.random_seed)
        best: Tuple[int, Array, object] = (-1, q, None)
        attempt = 0
        while True:
            plan = plans[attempt % len(plans)]
            q = np.array(seed, dtype=float)
            if attempt:
                free = plan[0][1].free
                q[free] = lower[free] + rng.random(int(free.sum())) * (upper - lower)[free]
            solved, failed = 0, None
            for k, (tip, solver, base) in enumerate(plan):
                goal_in_base = linkage.forward_kinematics(q, robot.base_link, base) @ goals[tip]
                starts = LATER_TIP_STARTS if sequential and k else 1
                for n in range(starts):
                    if n:
                        q[solver.free] = lower[solver.free] + rng.random(
                            int(solver.free.sum())) * (upper - lower)[solver.free]
                    left = max(deadline - time.perf_counter(), 1e-9)
                    result = solver.solve(goal_in_base, seed=q, timeout=left)
                    if result.success or time.perf_counter() >= deadline:
                        break
                q[solver.free] = np.asarray(result.q, dtype=float)[solver.free]
                if not result.success:
                    failed = failed or result
                    if sequential:
                        break
                solved += bool(result.success)
            if solved > best[0]:
                best = (solved, q.copy(), failed or result)
            if solved == len(plan) or not sequential or not config.random_restarts or \
                    attempt + 1 >= PLAN_ATTEMPTS or time.perf_counter() >= deadline:
                break
            attempt += 1
        solved, q, result = best
        if solved < len(plan) and sequential and time.perf_counter() >= deadline:
            result = dataclasses.replace(result, status='max_time')
        return dataclasses.replace(result, q=q, restarts=attempt,
                                   solve_time=time.perf_counter() - start)

    def _solve_tasks(self, group: ResolvedGroup, targets: List[Tuple[str, Array]],
                     seed: Array, timeout: Optional[float], avoid: bool):
        robot = self._robot
        linkage, cfg = robot.linkage, robot.config
        free_orientation = cfg.position_only or cfg.orientation_tolerance >= np.pi
        tasks = [FrameTask(linkage, link, robot.base_link, target=goal,
                           orientation_mask=(0, 0, 0) if free_orientation else (1, 1, 1),
                           position_weight=cfg.position_weight,
                           orientation_weight=cfg.orientation_weight,
                           position_tolerance=cfg.position_tolerance,
                           orientation_tolerance=cfg.orientation_tolerance,
                           priority=self.tip_priorities.get(link, cfg.pose_priority),
                           name=f'pose:{link}')
                 for link, goal in targets]
        if self._posture is not None:
            tasks.append(PostureTask(linkage, self._posture, weight=max(cfg.posture_weight,
                                                                        1e-3)))
        extra, _ = resolve_tasks(linkage, self._extra_tasks(avoid))
        tasks.extend(extra)
        in_group = set(group.variable_names)
        fixed = [name for name in robot.joint_names if name not in in_group]
        config = cfg if timeout is None else cfg.replace(timeout=timeout)
        # each local solve within the timeout too (the restarts stop at it; one is always made)
        solver = TaskSolver(linkage, tasks, config=config,
                            options=pdls_options(config, max_time=config.timeout),
                            fixed_joints=fixed, solve_groups=True)
        # the joints outside the group are held exactly as given, even outside their limits
        # (MoveIt does not touch them): the solver's bounds of those fixed joints include them
        # (new arrays: the solver's may be the linkage's own)
        out = ~solver.free
        solver.lower = np.where(out, np.minimum(solver.lower, seed), solver.lower)
        solver.upper = np.where(out, np.maximum(solver.upper, seed), solver.upper)
        return solver.solve(seed)

    def _compute(self, request: IKServiceRequest, current_q: Callable[[], Array],
                 notes: List[str]) -> IKServiceReply:
        robot = self._robot
        avoid = bool(request.avoid_collisions)
        model = None
        if avoid:
            model, why = self._collision_model()
            notes.append(COLLISIONS_CHECKED if model is not None else
                         f'avoid_collisions: nothing to check ({why})')
        if request.constraints:
            notes.append(f'ik_request.constraints not applied ({request.constraints} '
                         f'constraints): pdls_ik solves the poses only')
        group, links = self._group(request)
        given, seed = self._seed(request, group, np.asarray(current_q(), dtype=float), notes)
        targets = self._targets(request, links, given)
        solver = chains = result = None
        timeout = request.timeout
        same_level = len({self.tip_priorities.get(link, robot.config.pose_priority)
                          for link, _ in targets}) == 1
        if len(targets) == 1 and self._posture is None:
            solver = self._chain_solver(group, targets[0][0], avoid)
        elif self._posture is None and same_level:
            chains = self._chain_plans(group, [link for link, _ in targets], avoid)
        if chains is not None:
            result = self._solve_plan(chains, group, targets, seed, timeout)
            failure = None if result.success else failure_message(result)
            method = f'{len(targets)} chain solvers, {chains[0][0][1].backend}'
            if not result.success and not _timed_out(result):
                # the plan's attempts ended before the clock: the task solver has what is left
                timeout = None if timeout is None else max(timeout - result.solve_time, 1e-9)
                result = None
        elif solver is not None:
            base_in_group = robot.linkage.forward_kinematics(seed, robot.base_link,
                                                             group.base_link)
            result = solver.solve(base_in_group @ targets[0][1], seed=seed, timeout=timeout)
            failure = None if result.success else failure_message(result)
            method = f'chain solver, {solver.backend}'
        if result is None:
            result = self._solve_tasks(group, targets, seed, timeout, avoid)
            failure = None if result.success else _task_failure(result)
            method = f'task solver, {len(result.level_names)} level(s)'
        q = given.copy()
        q[group.variables] = np.asarray(result.q, dtype=float)[group.variables]
        if model is not None:           # checked independently of the solver's own verdict
            moved = np.zeros(len(q), dtype=bool)
            moved[group.variables] = True
            free, text = collision_text(model, q, robot.collision_settings.d_min,
                                        robot.obstacles, moved)
            if not free:
                failure = f"{failure or 'no collision-free solution'}; {text}"
                raise RequestError(ErrorCode.NO_IK_SOLUTION, f'{failure} ({method})')
            if failure is not None:
                failure = f'{failure}; best configuration: {text}'
            notes.append(text)
        if failure is not None:
            code = ErrorCode.TIMED_OUT if _timed_out(result) else ErrorCode.NO_IK_SOLUTION
            raise RequestError(code, f'{failure} ({method})')
        tips = ', '.join(link for link, _ in targets)
        message = '; '.join([f"solved group '{group.name}' for {tips} ({result.status}, "
                             f'{method}) in {1e3 * result.solve_time:.3g} ms'] + notes)
        return IKServiceReply(ErrorCode.SUCCESS, message, robot.joint_names, q)
