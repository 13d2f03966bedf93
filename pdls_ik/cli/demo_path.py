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
Goal paths for tracking demos: a figure-eight with a changing tool orientation.

:class:`FigureEight` moves the goal on a lemniscate of Gerono around a centre pose (wide in base
y, tall in base z, with a little depth in base x) while the tool rolls, pitches and yaws about
the base axes, a realistic teleoperation-like stream. :func:`default_path` builds it around the
tip pose of a home configuration, so that it runs on any arm.

For the bundled Panda (:data:`PRESETS`) the tool points forward and down, like a pen on a slanted
board, and the path was tuned on the tracking solver at 100 Hz so that it is feasible yet
demanding. Measured over two loops (``pdls-ik demo``):

* the wrist comes within about 5 degrees of its singularity q6 = π (straight wrist: the axes of
  joints 5 and 7 aligned), where joints 5 and 7 must turn fast, at about 0.8 of their velocity
  bound;
* the tool roll takes joint 7 to about 3.5 degrees of its upper limit (2.8973 rad);
* no goal needs a joint outside its limits or faster than its velocity limit.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray
from pdls_ik.model.joint_vector import sampling_range
from pdls_ik.tasks import middle_of_limits
from scipy.spatial.transform import Rotation

Array = NDArray[np.float64]


@dataclass
class FigureEight:
    """
    Goal pose at time t [s] on a figure-eight around ``center`` (4, 4), base-frame axes.

    With the phase w = 2π t / period, the position offset is (depth sin 2w, width sin w,
    height sin 2w) [m] and the orientation is the centre's, turned first by the rotation vector
    (roll sin w, pitch (1 − cos w), yaw sin 2w) [rad] about the base axes x, y, z. At t = 0 the
    goal is the centre pose; the roll peaks at w = π/2, the pitch at w = π (the crossing point).
    """

    center: Array
    width: float = 0.15
    height: float = 0.08
    depth: float = 0.03
    period: float = 5.0
    roll: float = 0.3
    pitch: float = 0.1
    yaw: float = 0.2

    def pose(self, t: float) -> Tuple[Array, Array]:
        """(position (3,) [m], quaternion (4,) x, y, z, w) of the goal at time t [s]."""
        w = 2.0 * math.pi * t / self.period
        offset = np.array([self.depth * math.sin(2 * w), self.width * math.sin(w),
                           self.height * math.sin(2 * w)])
        turn = Rotation.from_rotvec([self.roll * math.sin(w), self.pitch * (1.0 - math.cos(w)),
                                     self.yaw * math.sin(2 * w)])
        rotation = turn * Rotation.from_matrix(self.center[:3, :3])
        return self.center[:3, 3] + offset, rotation.as_quat()


#: bundled robots: home configuration (joint order of the bundled URDF, leading joints) and the
#: figure-eight's size [m] and orientation swings [rad] (see the module doc for the Panda)
PRESETS: Dict[str, dict] = {
    'panda': {'home': [0.0, 0.1, 0.0, -1.75, 0.0, 2.6, 1.9],
              'path': {'width': 0.15, 'height': 0.08, 'depth': 0.03,
                       'roll': 0.4, 'pitch': -0.12, 'yaw': 0.2}},
}


def default_path(linkage, tip: str, base: Optional[str] = None, period: float = 5.0,
                 robot_name: Optional[str] = None, position_only: bool = False,
                 home: Optional[Array] = None, scale: float = 1.0) -> Tuple[FigureEight, Array]:
    """
    Return the demo path for a robot and the home configuration q (n,) it starts from.

    Bundled robots use their :data:`PRESETS`. Any other robot starts at :func:`dexterous_home`
    (or ``home``), with a path of 20 % × 10 % of the base-to-tip distance at home and swings of
    0.2 rad, all times ``scale``. :func:`trackable_path` checks a path before a run.
    """
    preset = PRESETS.get(robot_name or '')
    if home is None and preset is not None and len(preset['home']) <= linkage.n:
        home = middle_of_limits(linkage.lower, linkage.upper)
        home[:len(preset['home'])] = preset['home']
        center = linkage.forward_kinematics(home, tip, base)
        size = {k: scale * v for k, v in preset['path'].items()}
        return FigureEight(center, period=period, **size), home
    if home is None:
        home = dexterous_home(linkage, tip, base, position_only=position_only)
    center = linkage.forward_kinematics(home, tip, base)
    reach = max(float(np.linalg.norm(center[:3, 3])), 0.1)
    return FigureEight(center, width=0.2 * reach * scale, height=0.1 * reach * scale,
                       depth=0.02 * reach * scale, period=period, roll=0.2 * scale,
                       pitch=0.1 * scale, yaw=0.2 * scale), home


def dexterous_homes(linkage, tip: str, base: Optional[str] = None, candidates: int = 64,
                    margin: float = 0.25, position_only: bool = False) -> List[Array]:
    """
    Return home configurations (n,) ranked from the best conditioned, reproducibly.

    The middle of the joint limits and ``candidates`` configurations drawn (seeded generator)
    from the middle ``1 − 2·margin`` of each joint's range (continuous joints: [−π, π)), ranked
    by the k-th singular value of the tip Jacobian's task rows (position rows alone when
    ``position_only``), k = min(task rows, moving joints of the chain): the smallest singular
    value of the chain's own Jacobian. The scores are rounded to 4 significant digits and ties
    keep the draw order, so that the ranking does not hang on rounding differences between
    LAPACK builds. The middle of the limits alone is often a stretched, singular arm (the UR5's
    zero configuration, for instance).
    """
    lower, upper = np.asarray(linkage.lower, float), np.asarray(linkage.upper, float)
    lo, hi = sampling_range(lower, upper)
    middle = middle_of_limits(lower, upper)
    rng = np.random.default_rng(0)
    draws = rng.uniform(lo + margin * (hi - lo), hi - margin * (hi - lo),
                        size=(candidates, linkage.n))
    configurations = [middle, *draws]
    rows = slice(0, 3) if position_only else slice(0, 6)
    scores = []
    for q in configurations:
        J = linkage.jacobian(q, tip, base)[rows]
        moving = int(np.count_nonzero(np.abs(J).sum(axis=0) > 0.0))
        sigma = np.linalg.svd(J, compute_uv=False)
        k = min(J.shape[0], moving)
        scores.append(float(f'{sigma[k - 1]:.4g}') if k > 0 else 0.0)
    order = sorted(range(len(configurations)), key=lambda i: -scores[i])     # stable: ties
    return [configurations[i] for i in order]                              # keep draw order


def dexterous_home(linkage, tip: str, base: Optional[str] = None, candidates: int = 64,
                   margin: float = 0.25, position_only: bool = False) -> Array:
    """Return the best conditioned home configuration (n,), first of :func:`dexterous_homes`."""
    return dexterous_homes(linkage, tip, base, candidates, margin, position_only)[0]


#: :func:`through_body`: the scale of the path centre's position in the base frame (x, y, z):
#: onto the base's vertical axis, at three quarters of its height
THROUGH_BODY_SCALE = (0.0, 0.0, 0.75)


def through_body(path: FigureEight) -> FigureEight:
    """
    Return ``path`` with its centre moved into the robot's body (:data:`THROUGH_BODY_SCALE`).

    On the bundled Panda the goal then sweeps through the base column and the upper arm (centre
    (0, 0, 0.446) m). Tracked for its position alone, without a self-collision level the arm
    follows the goal up to 10 cm into itself for most of the run; with ``--self-collision``
    no pair comes below ``d_min`` and the hand slides along the margin
    (``pdls-ik demo --self-collision --through-body``; test/cli/test_cli_self_collision.py).
    """
    center = path.center.copy()
    center[:3, 3] *= np.asarray(THROUGH_BODY_SCALE)
    return FigureEight(center, path.width, path.height, path.depth, path.period, path.roll,
                       path.pitch, path.yaw)


#: path sizes tried by :func:`trackable_path`, largest first (fractions of the default size)
PATH_SCALES = (1.0, 0.5, 0.25, 0.1)
#: home configurations tried by :func:`trackable_path` (best conditioned first)
HOMES_TRIED = 4


def trackable_path(solver, rate: float, duration: float, period: float = 5.0,
                   robot_name: Optional[str] = None,
                   homes: Optional[Sequence[Array]] = None) -> Tuple[FigureEight, Array, str]:
    """
    Return a demo path, its home (n,) and a note, checked to be trackable before the run.

    Tries the preset (bundled robots) or the :data:`HOMES_TRIED` best conditioned homes of
    :func:`dexterous_homes` (or ``homes``), each at the sizes :data:`PATH_SCALES`, and returns
    the first whose path ``solver`` (an :class:`pdls_ik.IKSolver`) tracks at ``rate`` [Hz] over
    min(duration, 2 periods) with every cycle reaching its goal: within tolerance, within the
    joint limits and each joint's velocity limit × velocity_scaling (the cycle's bounds). The
    check runs the same deterministic tracking cycles as the run itself (their iteration
    budgets, not the clock, bound them). When nothing passes, the smallest path from the best
    home is returned and the note says so.
    """
    linkage, tip, base = solver.linkage, solver.tip_link, solver.base_link
    position_only = bool(solver.config.position_only)
    if homes is None:
        preset = PRESETS.get(robot_name or '')
        homes = [None] if preset is not None and len(preset['home']) <= linkage.n else \
            dexterous_homes(linkage, tip, base, position_only=position_only)[:HOMES_TRIED]
    dt = 1.0 / rate
    cycles = max(1, int(round(min(duration, 2.0 * period) * rate)))
    for k, home in enumerate(homes):
        for scale in PATH_SCALES:
            path, q0 = default_path(linkage, tip, base, period, robot_name, position_only,
                                    home, scale)
            if _tracks(solver, path, q0, dt, cycles):
                start = 'preset home' if home is None else f'home {k + 1} of {len(homes)}'
                return path, q0, (f'demo path: {start}, size x{scale:g}, checked trackable '
                                  f'at {rate:g} Hz over {cycles * dt:g} s')
    path, q0 = default_path(linkage, tip, base, period, robot_name, position_only, homes[0],
                            PATH_SCALES[-1])
    return path, q0, (f'demo path: no size of the path was trackable from {len(homes)} homes; '
                      f'running the smallest (x{PATH_SCALES[-1]:g})')


def _tracks(solver, path: FigureEight, q0: Array, dt: float, cycles: int) -> bool:
    q = np.asarray(q0, dtype=float)
    for k in range(1, cycles + 1):
        res = solver.track(path.pose(k * dt), q, dt)
        if not res.success:
            return False
        q = res.q
    return True
