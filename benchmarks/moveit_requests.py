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
~/compute_ik answering MoveIt-style requests (ROS-free): success and time per group.

Each request is what SrvKinematicsPlugin sends (whole-robot seed at the middle of the limits,
one pose per tip in the group's base frame, no timeout: the node's ``timeout`` applies,
avoid_collisions true), for goals placed by the forward kinematics of random in-limit group
configurations. ``--no-collisions``: as pdls_ik's own MoveIt plugin asks (avoid_collisions
false; MoveIt checks collisions through its solution callback). A success is
checked by Pinocchio's forward kinematics of the reply (1e-5 m, 1e-4 rad).

    python benchmarks/moveit_requests.py -n 200          # the bundled Panda and bimanual robot
                                                         # (+ Talos with example-robot-data)
    python benchmarks/moveit_requests.py -n 1000 --timeouts 0.05 --no-collisions
"""
from __future__ import annotations

import argparse
from importlib import metadata
from pathlib import Path
import time

import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.model.srdf import load_srdf
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.msgs.moveit import IKServiceRequest, IKTarget
from pdls_ik.resources import bundled_srdf, bundled_urdf
from pdls_ik.ros_logic.ik_service import IKService
from pdls_ik.ros_logic.robot import build_robot
from scipy.spatial.transform import Rotation


def _talos():
    try:
        files = metadata.files('example-robot-data') or []
    except metadata.PackageNotFoundError:
        return None
    found = {}
    for f in files:
        name = str(f)
        for key in ('robots/talos_data/robots/talos_full_v2.urdf',
                    'robots/talos_data/srdf/talos.srdf'):
            if name.endswith(key):
                found[key] = Path(f.locate())
    if len(found) != 2:
        return None
    return (found['robots/talos_data/robots/talos_full_v2.urdf'],
            found['robots/talos_data/srdf/talos.srdf'])


def cases():
    """(label, urdf path, srdf path, configured tip, group, tips) of each benchmark row."""
    rows = [('Panda panda_arm', bundled_urdf('panda'), bundled_srdf('panda'), 'panda_link8',
             'panda_arm', ['panda_link8']),
            ('bimanual both_arms', bundled_urdf('bimanual'), bundled_srdf('bimanual'), 'r_tool',
             'both_arms', ['l_tool', 'r_tool']),
            ('bimanual upper_body', bundled_urdf('bimanual'), bundled_srdf('bimanual'),
             'r_tool', 'upper_body', ['l_tool', 'r_tool'])]
    talos = _talos()
    if talos:
        hands = ['wrist_left_ft_tool_link', 'wrist_right_ft_tool_link']
        rows += [('Talos r_arm', *talos, hands[1], 'r_arm', hands[1:]),
                 ('Talos all_arms_torso', *talos, hands[1], 'all_arms_torso', hands)]
    return rows


def _pose(T, frame):
    return ParsedPose(frame, T[:3, 3].copy(), Rotation.from_matrix(T[:3, :3]).as_quat(), 0, 1.0)


def run(n: int, timeouts, seed: int = 0, avoid_collisions: bool = True):
    """Print one row per case and timeout: success rate, mean and median time per request."""
    import pinocchio as pin
    print(f"{'case':24s} {'timeout':>8s} {'success':>8s} {'mean ms':>8s} {'p50 ms':>8s}")
    for label, urdf, srdf_path, tip, group_name, tips in cases():
        text = Path(urdf).read_text()
        model = pin.buildModelFromXML(text)
        data = model.createData()
        for timeout in timeouts:
            robot = build_robot(text, IKConfig(tip_link=tip, timeout=timeout))
            service = IKService(robot, load_srdf(srdf_path))
            group = service.groups.get(group_name)
            linkage = robot.linkage
            lo = np.where(np.isfinite(linkage.lower), linkage.lower, -np.pi)
            hi = np.where(np.isfinite(linkage.upper), linkage.upper, np.pi)
            rng = np.random.default_rng(seed)
            warm = IKServiceRequest(group_name, tuple(IKTarget(t, _pose(
                linkage.forward_kinematics(robot.default_q(), t, group.base_link),
                group.base_link)) for t in tips))
            service.compute(warm, robot.default_q)   # loads the compiled kernels (not timed)
            times, ok = [], 0
            for _ in range(n):
                q_goal = robot.default_q()
                q_goal[group.variables] = rng.uniform(lo, hi)[group.variables]
                targets = tuple(IKTarget(t, _pose(linkage.forward_kinematics(
                    q_goal, t, group.base_link), group.base_link)) for t in tips)
                request = IKServiceRequest(group_name, targets, list(robot.joint_names),
                                           robot.default_q(), None, avoid_collisions)
                t0 = time.perf_counter()
                reply = service.compute(request, robot.default_q)
                times.append(time.perf_counter() - t0)
                if reply.code != 1:
                    continue
                values = dict(zip(reply.joint_names, reply.positions))
                qp = pin.neutral(model)
                for jid in range(1, model.njoints):
                    name = model.names[jid]
                    if name in values:
                        k = model.idx_qs[jid]
                        if model.nqs[jid] == 2:
                            qp[k:k + 2] = np.cos(values[name]), np.sin(values[name])
                        else:
                            qp[k] = values[name]
                pin.framesForwardKinematics(model, data, qp)
                good = True
                for t in tips:
                    want = linkage.forward_kinematics(q_goal, t)
                    got = data.oMf[model.getFrameId(t)].homogeneous
                    dR = Rotation.from_matrix(want[:3, :3].T @ got[:3, :3]).magnitude()
                    good &= np.linalg.norm(want[:3, 3] - got[:3, 3]) <= 1e-5 and dR <= 1e-4
                ok += bool(good)
            times_ms = 1e3 * np.asarray(times)
            print(f'{label:24s} {timeout:8.3f} {100.0 * ok / n:7.1f}% {times_ms.mean():8.2f} '
                  f'{np.median(times_ms):8.2f}')


def main():
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('-n', type=int, default=200, help='goals per case')
    parser.add_argument('--timeouts', type=float, nargs='+', default=[0.005, 0.05])
    parser.add_argument('--no-collisions', action='store_true',
                        help='avoid_collisions false (as pdls_ik/PDLSKinematicsPlugin asks)')
    args = parser.parse_args()
    run(args.n, args.timeouts, avoid_collisions=not args.no_collisions)


if __name__ == '__main__':
    main()
