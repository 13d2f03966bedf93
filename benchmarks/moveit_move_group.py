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
move_group on the bundled Panda with each kinematics plugin: OMPL pose goals, Cartesian paths.

For each plugin (``--plugins pdls kdl``) the script starts ``ros2 launch pdls_ik
moveit.launch.py ik_plugin:=<plugin>`` (its own process group, stopped at the end), then over
``-n`` seeded random goals (the forward kinematics of random in-limit joint values of panda_arm):

- a pose goal (panda_link8 in panda_link0, 0.1 mm / 1 mrad) planned by OMPL (RRTConnect) from
  the ready pose through ``/plan_kinematic_path``: MoveIt samples goal states through the plugin;
- ``/compute_cartesian_path`` from the random joint values along a 20 cm straight line in a
  random direction (1 cm steps, no jump threshold): MoveIt solves IK at every step, seeded
  with the previous one; the fraction achieved is reported (a line may leave the workspace or
  the joint limits: the same lines for every plugin).

Needs a sourced ROS 2 with MoveIt (moveit_ros_move_group, moveit_planners_ompl, moveit_kinematics
for KDL) and this package built by colcon with its plugin. Prints a Markdown table (the rows of
benchmarks/results/moveit_move_group.md); ``--json`` keeps the results per goal:

    python benchmarks/moveit_move_group.py -n 100 --plugins pdls kdl
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import signal
import subprocess
import time
from typing import Dict, List, Optional, Sequence

import numpy as np
from pdls_ik.model import load_urdf
from pdls_ik.resources import bundled_urdf
from scipy.spatial.transform import Rotation

GROUP, TIP, BASE = 'panda_arm', 'panda_link8', 'panda_link0'
ARM = [f'panda_joint{i}' for i in range(1, 8)]
#: urdf/panda.srdf's "ready" state of panda_arm [rad]
READY = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]
#: MoveGroupInterface's default goal tolerances [m], [rad]
POSITION_TOLERANCE, ORIENTATION_TOLERANCE = 1e-4, 1e-3
LINE_LENGTH, LINE_STEP = 0.20, 0.01


class PandaGoals:
    """Seeded random goals of panda_arm: joint values and their panda_link8 pose."""

    def __init__(self, seed: int = 0):
        self.linkage = load_urdf(bundled_urdf('panda'))
        self.columns = [self.linkage.joint_index(j) for j in ARM]
        lower = np.asarray(self.linkage.lower, dtype=float)[self.columns]
        upper = np.asarray(self.linkage.upper, dtype=float)[self.columns]
        self.lower, self.upper = lower, upper
        self.rng = np.random.default_rng(seed)

    def pose(self, q: Sequence[float]) -> np.ndarray:
        """(x, y, z, qx, qy, qz, qw) of panda_link8 in panda_link0 at arm values q."""
        q_all = 0.5 * (np.asarray(self.linkage.lower, dtype=float)
                       + np.asarray(self.linkage.upper, dtype=float))
        q_all[self.columns] = q
        T = self.linkage.forward_kinematics(q_all, TIP, BASE)
        return np.concatenate([T[:3, 3], Rotation.from_matrix(T[:3, :3]).as_quat()])

    def joints(self) -> np.ndarray:
        """Random arm values within the limits (0.05 rad inside)."""
        return self.lower + 0.05 + self.rng.random(7) * (self.upper - self.lower - 0.1)

    def direction(self) -> np.ndarray:
        """Return a random unit vector."""
        v = self.rng.normal(size=3)
        return v / np.linalg.norm(v)


class MoveGroupClient:
    """rclpy client of move_group's /plan_kinematic_path and /compute_cartesian_path."""

    def __init__(self, name: str = 'pdls_ik_move_group_client'):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from moveit_msgs.srv import GetCartesianPath, GetMotionPlan  # noqa: I100
        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.plan_client = self.node.create_client(GetMotionPlan, '/plan_kinematic_path')
        self.cartesian_client = self.node.create_client(GetCartesianPath,
                                                        '/compute_cartesian_path')

    def close(self) -> None:
        """Destroy the node and shut the context down."""
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.shutdown(context=self.context)

    def wait(self, timeout: float) -> bool:
        """Wait for both services; True when they are there."""
        end = time.monotonic() + timeout
        for client in (self.plan_client, self.cartesian_client):
            if not client.wait_for_service(timeout_sec=max(0.0, end - time.monotonic())):
                return False
        return True

    def _call(self, client, request, timeout: float):
        future = client.call_async(request)
        self.executor.spin_until_future_complete(future, timeout_sec=timeout)
        if not future.done():
            client.remove_pending_request(future)
            raise TimeoutError(f'{client.srv_name}: no reply within {timeout} s')
        return future.result()

    @staticmethod
    def _start_state(q: Sequence[float]):
        from moveit_msgs.msg import RobotState
        state = RobotState()
        state.joint_state.name = list(ARM)
        state.joint_state.position = [float(v) for v in q]
        state.is_diff = False
        return state

    @staticmethod
    def _pose(p: Sequence[float]):
        from geometry_msgs.msg import Pose
        pose = Pose()
        pose.position.x, pose.position.y, pose.position.z = (float(v) for v in p[:3])
        (pose.orientation.x, pose.orientation.y, pose.orientation.z,
         pose.orientation.w) = (float(v) for v in p[3:7])
        return pose

    def plan_pose(self, start: Sequence[float], goal: Sequence[float],
                  planning_time: float = 5.0, timeout: float = 30.0) -> Dict[str, float]:
        """
        Plan panda_arm from joint values ``start`` to the pose ``goal`` of panda_link8 with OMPL.

        :return: code (MoveItErrorCodes), planning_time [s] (move_group's), wall [s], points,
            end (the arm's values at the last point, or []).
        """
        from moveit_msgs.msg import (BoundingVolume, Constraints, OrientationConstraint,
                                     PositionConstraint)
        from moveit_msgs.srv import GetMotionPlan
        from shape_msgs.msg import SolidPrimitive
        request = GetMotionPlan.Request()
        req = request.motion_plan_request
        req.group_name = GROUP
        req.pipeline_id = 'ompl'
        req.planner_id = 'RRTConnectkConfigDefault'
        req.num_planning_attempts = 1
        req.allowed_planning_time = float(planning_time)
        req.max_velocity_scaling_factor = req.max_acceleration_scaling_factor = 1.0
        workspace = req.workspace_parameters
        workspace.header.frame_id = BASE
        workspace.min_corner.x = workspace.min_corner.y = workspace.min_corner.z = -2.0
        workspace.max_corner.x = workspace.max_corner.y = workspace.max_corner.z = 2.0
        req.start_state = self._start_state(start)
        pose = self._pose(goal)
        position = PositionConstraint()
        position.header.frame_id = BASE
        position.link_name = TIP
        sphere = SolidPrimitive(type=SolidPrimitive.SPHERE, dimensions=[POSITION_TOLERANCE])
        position.constraint_region = BoundingVolume(primitives=[sphere],
                                                    primitive_poses=[self._pose(
                                                        list(goal[:3]) + [0.0, 0.0, 0.0, 1.0])])
        position.weight = 1.0
        orientation = OrientationConstraint()
        orientation.header.frame_id = BASE
        orientation.link_name = TIP
        orientation.orientation = pose.orientation
        orientation.absolute_x_axis_tolerance = ORIENTATION_TOLERANCE
        orientation.absolute_y_axis_tolerance = ORIENTATION_TOLERANCE
        orientation.absolute_z_axis_tolerance = ORIENTATION_TOLERANCE
        orientation.weight = 1.0
        req.goal_constraints = [Constraints(position_constraints=[position],
                                            orientation_constraints=[orientation])]
        t0 = time.perf_counter()
        response = self._call(self.plan_client, request, timeout).motion_plan_response
        wall = time.perf_counter() - t0
        return {'code': response.error_code.val, 'planning_time': response.planning_time,
                'wall': wall, **_ends(response.trajectory.joint_trajectory)}

    def cartesian(self, start: Sequence[float], waypoints: Sequence[Sequence[float]],
                  timeout: float = 30.0) -> Dict[str, float]:
        """
        Call /compute_cartesian_path of panda_link8 from joint values ``start``.

        Through ``waypoints`` (poses in panda_link0), 1 cm steps, no jump threshold, collisions
        avoided.

        :return: code, fraction (0-1), wall [s], points, end (as :meth:`plan_pose`).
        """
        from moveit_msgs.srv import GetCartesianPath
        request = GetCartesianPath.Request()
        request.header.frame_id = BASE
        request.start_state = self._start_state(start)
        request.group_name = GROUP
        request.link_name = TIP
        request.waypoints = [self._pose(p) for p in waypoints]
        request.max_step = LINE_STEP
        request.jump_threshold = 0.0
        request.avoid_collisions = True
        if hasattr(request, 'max_velocity_scaling_factor'):     # moveit_msgs 2.2.2+, not Humble's
            request.max_velocity_scaling_factor = request.max_acceleration_scaling_factor = 1.0
        t0 = time.perf_counter()
        response = self._call(self.cartesian_client, request, timeout)
        wall = time.perf_counter() - t0
        return {'code': response.error_code.val, 'fraction': response.fraction, 'wall': wall,
                **_ends(response.solution.joint_trajectory)}


def _ends(trajectory) -> Dict[str, object]:
    """Point count and the arm's values at the last point (MoveIt's joint order) of a reply."""
    points = trajectory.points
    end = []
    if points:
        values = dict(zip(trajectory.joint_names, points[-1].positions))
        end = [float(values[j]) for j in ARM] if all(j in values for j in ARM) else []
    return {'points': len(points), 'end': end}


def line_end(pose: np.ndarray, direction: np.ndarray, length: float = LINE_LENGTH) -> np.ndarray:
    """Return ``pose`` moved ``length`` [m] along ``direction`` (panda_link0), same rotation."""
    out = np.array(pose, dtype=float)
    out[:3] += length * np.asarray(direction, dtype=float)
    return out


def start_move_group(plugin: str, log: Path, extra: Sequence[str] = ()) -> subprocess.Popen:
    """``ros2 launch pdls_ik moveit.launch.py ik_plugin:=plugin`` in its own process group."""
    with open(log, 'w') as out:
        return subprocess.Popen(['ros2', 'launch', 'pdls_ik', 'moveit.launch.py',
                                 f'ik_plugin:={plugin}', 'use_robot_state_publisher:=false',
                                 *extra], stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    """Stop a launch started by :func:`start_move_group` (SIGINT, then SIGKILL)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def run_plugin(plugin: str, count: int, seed: int, log: Path,
               record: Optional[str] = None) -> Dict[str, List[Dict[str, float]]]:
    """Start move_group with ``plugin``, run the goals, stop it; the raw results."""
    extra = [f'record:={record}'] if record else []
    process = start_move_group(plugin, log, extra)
    client = MoveGroupClient()
    try:
        if not client.wait(120.0):
            raise RuntimeError(f'move_group ({plugin}) did not offer its services; see {log}')
        goals = PandaGoals(seed)
        plans, lines = [], []
        for _ in range(count):
            q_goal, q_start, direction = goals.joints(), goals.joints(), goals.direction()
            plans.append(client.plan_pose(READY, goals.pose(q_goal)))
            start_pose = goals.pose(q_start)
            lines.append(client.cartesian(q_start, [line_end(start_pose, direction)]))
        return {'plans': plans, 'lines': lines}
    finally:
        client.close()
        stop(process)


def summary(results: Dict[str, List[Dict[str, float]]]) -> Dict[str, float]:
    """Success counts, planning times [ms] and Cartesian fractions of :func:`run_plugin`."""
    plans, lines = results['plans'], results['lines']
    ok = [p for p in plans if p['code'] == 1]
    times = np.array([p['planning_time'] for p in ok]) * 1e3
    fractions = np.array([c['fraction'] for c in lines])
    line_wall = np.array([c['wall'] for c in lines]) * 1e3
    return {
        'n': len(plans), 'plan_ok': len(ok),
        'plan_ms_mean': float(times.mean()) if times.size else float('nan'),
        'plan_ms_p50': float(np.median(times)) if times.size else float('nan'),
        'plan_ms_p95': float(np.percentile(times, 95)) if times.size else float('nan'),
        'line_full': int(np.sum(fractions >= 1.0 - 1e-9)),
        'fraction_mean': float(fractions.mean()),
        'line_ms_p50': float(np.median(line_wall)),
    }


def table(rows: Dict[str, Dict[str, float]]) -> str:
    """Return the Markdown table of :func:`summary` per plugin."""
    lines = ['| plugin | pose goals planned | planning time mean / p50 / p95 [ms] | '
             '20 cm lines complete | mean fraction | Cartesian call p50 [ms] |',
             '|---|---|---|---|---|---|']
    for plugin, s in rows.items():
        lines.append(f"| {plugin} | {s['plan_ok']}/{s['n']} | {s['plan_ms_mean']:.1f} / "
                     f"{s['plan_ms_p50']:.1f} / {s['plan_ms_p95']:.1f} | "
                     f"{s['line_full']}/{s['n']} | {s['fraction_mean']:.3f} | "
                     f"{s['line_ms_p50']:.1f} |")
    return '\n'.join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the plugins one after the other and print (or write) the table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('-n', type=int, default=100, help='goals per plugin (default 100)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--plugins', nargs='+', default=['pdls', 'kdl'])
    parser.add_argument('--logs', default='/tmp', help='folder of the launch logs')
    parser.add_argument('--record', default='', help='pdls plugin: file of its request record')
    parser.add_argument('--json', default='', help='file of the raw results (per goal)')
    args = parser.parse_args(argv)
    rows, raw = {}, {}
    Path(args.logs).mkdir(parents=True, exist_ok=True)
    for plugin in args.plugins:
        log = Path(args.logs) / f'moveit_move_group_{plugin}.log'
        record = args.record if plugin == 'pdls' else None
        raw[plugin] = run_plugin(plugin, args.n, args.seed, log, record)
        rows[plugin] = summary(raw[plugin])
        print(plugin, rows[plugin], flush=True)
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(raw))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
