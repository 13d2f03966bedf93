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
Shared pieces of the benchmark suite: robots, random targets, the independent FK check, stats.

Single-core figures: BLAS thread pools are limited to one thread (``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` default to 1 here, before NumPy loads); threaded BLAS
only adds synchronisation to the small products of IK.

Robots: the bundled Panda and UR5 (:func:`pdls_ik.resources.bundled_urdf`) and every URDF in
``../shared/robots`` beside the repository (override with ``PDLS_IK_ROBOTS``). The check of a
solution uses Pinocchio's forward kinematics, not pdls_ik's.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
import datetime
from importlib import metadata
import json
import os
from pathlib import Path
import platform
import sys
from typing import Dict, List, Optional, Tuple
import warnings

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pdls_ik.model import load_urdf  # noqa: E402
from pdls_ik.resources import BUNDLED_ROBOTS, bundled_urdf  # noqa: E402

SHARED_ROBOTS = Path(os.environ.get('PDLS_IK_ROBOTS', REPO.parent / 'shared' / 'robots'))
#: success thresholds of the one-shot protocol
POSITION_TOL, ORIENTATION_TOL = 1e-5, 1e-4
#: a joint value beyond its limit by more than this counts as a violation [rad or m]
LIMIT_SLACK = 1e-9


@dataclass
class Robot:
    """A benchmark robot: label, URDF path and text, IK chain, pdls_ik linkage."""

    label: str
    path: Path
    tip: str
    base: str
    linkage: object

    @property
    def text(self) -> str:
        return self.path.read_text()

    @property
    def lower(self):
        return np.where(np.isfinite(self.linkage.lower), self.linkage.lower, -np.pi)

    @property
    def upper(self):
        return np.where(np.isfinite(self.linkage.upper), self.linkage.upper, np.pi)

    @property
    def chain_variables(self) -> np.ndarray:
        chain = self.linkage.chain(self.tip, self.base)
        return np.flatnonzero(np.any(chain.select != 0.0, axis=0))


#: arms of example-robot-data (pip install example-robot-data): label, file under its robots/,
#: tip, base ('' = the root). Continuous joints (kinova), limit ranges off zero (kinova
#: [0.82, 5.46], xarm7 joint4 [-0.19, 3.93], z1 joint2 [0, 2.97], talos arm_left_2 [0, 2.88]).
#: (TIAGo's arm below its torso: roboticstoolbox's ik_LM failed every goal of it.)
ERD_ARMS = (
    ('kinova (erd)', 'kinova_description/robots/kinova.urdf', 'j2s6s200_link_6', ''),
    ('z1 (erd)', 'z1_description/urdf/z1.urdf', 'link06', ''),
    ('xarm7 (erd)', 'xarm_description/urdf/xarm7.urdf', 'link7', ''),
    ('talos arm (erd)', 'talos_data/robots/talos_left_arm.urdf', 'arm_left_7_link', ''),
    ('ur10 (erd)', 'ur_description/urdf/ur10_robot.urdf', 'ee_link', ''),
)


def _robot(label: str, path: Path, tip: str, base: str = '') -> Robot:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')     # URDF notes (meshes, inertias) of third-party files
        linkage = load_urdf(path)
    return Robot(label, path, tip, base or linkage.base_link, linkage)


def erd_robots() -> List[Robot]:
    """Return the :data:`ERD_ARMS` (none, with a note, without example-robot-data)."""
    try:
        dist = metadata.distribution('example-robot-data')
    except metadata.PackageNotFoundError:
        print('note: example-robot-data not installed: its arms skipped', file=sys.stderr)
        return []
    files = {str(f).split('example-robot-data/robots/', 1)[1]: Path(dist.locate_file(f))
             for f in dist.files or [] if 'example-robot-data/robots/' in str(f)}
    return [_robot(label, files[rel], tip, base) for label, rel, tip, base in ERD_ARMS
            if rel in files]


def robots(names: Optional[List[str]] = None, erd: bool = False) -> List[Robot]:
    """
    List the suite's robots: bundled Panda and UR5, then ../shared/robots/*.urdf.

    ``erd``: then the arms of example-robot-data (:data:`ERD_ARMS`).
    """
    out = [_robot(f'{name} (bundled)', bundled_urdf(name), BUNDLED_ROBOTS[name][1])
           for name in ('panda', 'ur5')]
    tips = {'panda': 'panda_link8', 'ur5': 'ee_link'}
    if SHARED_ROBOTS.is_dir():
        for path in sorted(SHARED_ROBOTS.glob('*.urdf')):
            tip = tips.get(path.stem)
            if tip is None:
                linkage = load_urdf(path)
                tip = _deepest_link(linkage)
            out.append(_robot(f'{path.stem} (shared)', path, tip))
    else:
        print(f'note: {SHARED_ROBOTS} not found: shared robots skipped', file=sys.stderr)
    if erd:
        out.extend(erd_robots())
    if names:
        out = [r for r in out if any(r.label.startswith(n) for n in names)]
    return out


def _deepest_link(linkage) -> str:
    """Return the link with the most moving joints between it and the root."""
    best, count = linkage.root_link, -1
    for link in linkage.link_names:
        k = len(linkage.chain(link).names)
        if k > count:
            best, count = link, k
    return best


def random_q(robot: Robot, rng: np.random.Generator, count: int) -> np.ndarray:
    """(count, n) joint vectors uniform within the limits (±π for continuous joints)."""
    return rng.uniform(robot.lower, robot.upper, size=(count, robot.linkage.n))


def mid_q(robot: Robot) -> np.ndarray:
    """(n,) the middle of the joint limits (0 for continuous joints)."""
    lo, hi = robot.linkage.lower, robot.linkage.upper
    return np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (robot.lower + robot.upper), 0.0)


class PinocchioCheck:
    """Independent forward kinematics (Pinocchio) of a robot's tip, q in pdls_ik order."""

    def __init__(self, robot: Robot):
        import pinocchio as pin
        self.pin, self.robot = pin, robot
        self.model = pin.buildModelFromXML(robot.text)
        self.data = self.model.createData()
        self.tip = self.model.getFrameId(robot.tip)
        self.base = self.model.getFrameId(robot.base)
        self.slots = []
        for name in robot.linkage.joint_names + [j.name for j in robot.linkage.joints
                                                 if j.mimic]:
            jid = self.model.getJointId(name)
            self.slots.append((name, self.model.idx_qs[jid], self.model.nqs[jid]))

    def pose(self, q: np.ndarray) -> np.ndarray:
        """(4, 4) pose of the tip in the base frame."""
        pin, model = self.pin, self.model
        values = dict(zip(self.robot.linkage.joint_names, q))
        values.update(self.robot.linkage.mimic_values(q))
        qp = pin.neutral(model)
        for name, idx, nq in self.slots:
            v = values[name]
            if nq == 2:
                qp[idx:idx + 2] = np.cos(v), np.sin(v)
            else:
                qp[idx] = v
        pin.framesForwardKinematics(model, self.data, qp)
        T = self.data.oMf[self.tip].homogeneous
        B = self.data.oMf[self.base].homogeneous
        return np.linalg.solve(B, T)

    def errors(self, q: np.ndarray, target: np.ndarray) -> Tuple[float, float]:
        """(position [m], orientation [rad]) distance of the tip pose at q to the target."""
        from scipy.spatial.transform import Rotation
        T = self.pose(q)
        pos = float(np.linalg.norm(T[:3, 3] - target[:3, 3]))
        ori = float(np.linalg.norm(Rotation.from_matrix(target[:3, :3] @ T[:3, :3].T)
                                   .as_rotvec()))
        return pos, ori

    def valid(self, q: np.ndarray, target: np.ndarray) -> Tuple[bool, bool]:
        """(success, limit_violation): within limits and within 1e-5 m / 1e-4 rad."""
        lo, hi = self.robot.linkage.lower, self.robot.linkage.upper
        violation = bool(np.any(q < lo - LIMIT_SLACK) or np.any(q > hi + LIMIT_SLACK))
        if not np.all(np.isfinite(q)):
            return False, violation
        pos, ori = self.errors(q, target)
        return (not violation) and pos <= POSITION_TOL and ori <= ORIENTATION_TOL, violation


def targets_by_fk(robot: Robot, qs: np.ndarray, check: PinocchioCheck) -> np.ndarray:
    """(count, 4, 4) tip poses of the joint vectors qs, by Pinocchio."""
    return np.array([check.pose(q) for q in qs])


def time_stats(times_s, success) -> Dict[str, float]:
    """Success % and times in ms: mean / median / p95 over all attempts, median of successes."""
    t = np.asarray(times_s, dtype=float) * 1e3
    ok = np.asarray(success, dtype=bool)
    return {'success_pct': 100.0 * ok.mean() if ok.size else 0.0,
            'mean_ms': float(t.mean()), 'median_ms': float(np.median(t)),
            'p95_ms': float(np.percentile(t, 95)),
            'median_success_ms': float(np.median(t[ok])) if ok.any() else float('nan')}


def versions() -> Dict[str, str]:
    """Installed versions of the packages the suite touches (absent ones marked)."""
    out = {'python': platform.python_version()}
    for dist in ('numpy', 'scipy', 'pdls_ik', 'pin', 'ikpy', 'roboticstoolbox-python', 'numba'):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = 'not installed'
    return out


def machine() -> Dict[str, object]:
    """Date, host, CPU and BLAS-related environment of this run."""
    cpu = platform.processor()
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                cpu = line.split(':', 1)[1].strip()
                break
    except OSError:
        pass
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, 'getloadavg') else None
    return {'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
            'machine': platform.machine(), 'system': platform.platform(), 'cpu': cpu,
            'cores': os.cpu_count(), 'load_average': load,
            'OPENBLAS_CORETYPE': os.environ.get('OPENBLAS_CORETYPE', '(unset)'),
            'OPENBLAS_L2_SIZE': os.environ.get('OPENBLAS_L2_SIZE', '(unset)'),
            'OPENBLAS_NUM_THREADS': os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}


def protocol_main(doc: str, quick_help: str, run, markdown, argv=None, extra=None) -> int:
    """
    Command line of one protocol.

    ``--quick``, ``--json FILE`` and ``extra(parser)`` arguments; ``run(args)`` gives the results,
    printed as ``markdown(results)``.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help=quick_help)
    parser.add_argument('--json', help='write the results to this file')
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    result = run(args)
    print(markdown(result))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(result, f, indent=1, default=str)
    return 0
