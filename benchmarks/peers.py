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
Adapters giving every solver of the comparison one call: ``solve(target, seed, timeout) -> q``.

``target`` is the (4, 4) tip pose in the base frame, ``seed`` and the returned q are (n,) in
pdls_ik's joint order (None when the solver returned nothing). Peers without a time budget
(roboticstoolbox, ikpy, solve_batch) run with their own iteration/restart budgets; the harness
counts an answer as a success only if it came back within the timeout.

A peer that cannot be imported or set up raises :class:`PeerMissing` with the reason; the
harness reports it in the results instead of dropping it silently.
"""
from __future__ import annotations

import math
import tempfile
import time
from typing import Callable, Dict, List, Optional
import warnings
import xml.etree.ElementTree as ET

import common  # noqa: F401,I100  (first: single-core BLAS before NumPy loads)
from common import mid_q, Robot
import numpy as np

Solve = Callable[[np.ndarray, np.ndarray, float], Optional[np.ndarray]]


class PeerMissing(RuntimeError):
    """A peer is not installed or does not support this robot; the message says why."""


def _iksolver(robot: Robot, backend: str) -> Solve:
    """
    pdls_ik's product path.

    :meth:`IKSolver.solve` (PDLS with random restarts, timeout) on one backend; the kernel is
    loaded (or compiled) before timing starts.
    """
    from pdls_ik import IKSolver
    from pdls_ik._accel import available
    if backend == 'numba' and not available():
        raise PeerMissing('numba not installed (pip install numba)')
    solver = IKSolver(robot.linkage, robot.tip, robot.base, backend=backend)
    solver.solve(np.eye(4), mid_q(robot), timeout=0.01)
    return lambda T, seed, timeout: solver.solve(T, seed=seed, timeout=timeout).q


def pdls_iksolver_numpy(robot: Robot) -> Solve:
    """IKSolver.solve on the NumPy reference implementation (``backend="numpy"``)."""
    return _iksolver(robot, 'numpy')


def pdls_iksolver_numba(robot: Robot) -> Solve:
    """
    Solve with IKSolver.solve on the compiled kernel (``backend="numba"``).

    That backend is the default when numba is installed.
    """
    return _iksolver(robot, 'numba')


def pdls_batch_numba(robot: Robot) -> Solve:
    """:class:`pdls_ik.ik.batch.BatchSolver` with N = 1 and the Numba kernel (restart budget)."""
    from pdls_ik._accel import available
    if not available():
        raise PeerMissing('numba not installed (pip install numba)')
    from pdls_ik.ik.batch import BatchSolver
    solver = BatchSolver(robot.linkage, robot.tip, robot.base, backend='numba')
    solver.solve(np.eye(4)[None], mid_q(robot)[None])  # compile or load the cached kernel

    def solve(T, seed, timeout):
        return solver.solve(T[None], seed[None]).q[0]
    return solve


def _chain_indices(robot: Robot) -> np.ndarray:
    chain = robot.linkage.chain(robot.tip, robot.base)
    return np.array([robot.linkage.joint_index(name) for name in chain.names])


def _kinematic_urdf(robot: Robot) -> str:
    """
    Return the path of a copy of the robot's URDF: links and joints, without visual and collision.

    roboticstoolbox runs every URDF through xacro, which stops at the ``package://`` mesh URIs
    of example-robot-data's files, and refuses transmissions of joints it does not keep; IK
    needs none of them.
    """
    tree = ET.fromstring(robot.text)
    for el in list(tree):
        if el.tag not in ('link', 'joint'):     # transmissions, gazebo, materials
            tree.remove(el)
    for link in tree.findall('link'):
        for el in link.findall('visual') + link.findall('collision'):
            link.remove(el)
    with tempfile.NamedTemporaryFile('w', suffix='.urdf', delete=False) as f:
        f.write(ET.tostring(tree, encoding='unicode'))
    return f.name


def _child_on_path(robot: Robot) -> str:
    """Return the link right below the base on the path from the base to the tip."""
    by_child = {j.find('child').get('link'): j.find('parent').get('link')
                for j in ET.fromstring(robot.text).findall('joint')}
    link = robot.tip
    while by_child.get(link) not in (robot.base, None):
        link = by_child[link]
    return link


def _rtb(robot: Robot, method: str) -> Solve:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            import roboticstoolbox as rtb
            model = rtb.Robot.URDF(_kinematic_urdf(robot))
            ets = model.ets(start=robot.base, end=robot.tip)
            idx = _chain_indices(robot)
            if ets.n != idx.size:       # rtb counts the joint into its start link: start one
                ets = model.ets(start=_child_on_path(robot), end=robot.tip)    # link lower
    except ImportError as exc:
        raise PeerMissing(f'roboticstoolbox-python not installed ({exc})') from None
    except Exception as exc:  # noqa: BLE001 - any setup failure is reported as such
        raise PeerMissing(f'roboticstoolbox cannot load {robot.path.name}: {exc}') from None
    if ets.n != idx.size:
        raise PeerMissing(f'roboticstoolbox chain has {ets.n} joints, pdls_ik {idx.size}')
    q = mid_q(robot) + 0.1
    q = np.clip(q, robot.lower, robot.upper)
    if not np.allclose(ets.eval(q[idx]), robot.linkage.forward_kinematics(q, robot.tip,
                                                                          robot.base), atol=1e-9):
        raise PeerMissing('roboticstoolbox joint order differs from the chain order')
    fn = getattr(ets, method)

    def solve(T, seed, timeout):
        # E = ½ eᵀe < 1e-12 ⇒ ‖e‖ < 1.5e-6: tighter than the 1e-5 m / 1e-4 rad check
        sol = fn(T, q0=seed[idx], ilimit=30, slimit=100, tol=1e-12, joint_limits=True)
        out = seed.copy()
        out[idx] = sol.q
        return out if sol.success else None
    return solve


def rtb_lm(robot: Robot) -> Solve:
    """roboticstoolbox-python ``ETS.ik_LM`` (compiled Levenberg–Marquardt, Chan damping)."""
    return _rtb(robot, 'ik_LM')


def rtb_nr(robot: Robot) -> Solve:
    """roboticstoolbox-python ``ETS.ik_NR`` (compiled Newton–Raphson)."""
    return _rtb(robot, 'ik_NR')


def _chain_urdf(robot: Robot) -> str:
    """Return the URDF reduced to the links and joints between base and tip (for ikpy)."""
    tree = ET.fromstring(robot.text)
    joints = {j.get('name'): j for j in tree.findall('joint')}
    keep_joints = set(robot.linkage.chain(robot.tip, robot.base).names)
    link = robot.tip
    path = []
    by_child = {j.find('child').get('link'): j for j in joints.values()}
    while link != robot.base:
        joint = by_child[link]
        path.append(joint.get('name'))
        link = joint.find('parent').get('link')
    keep_joints |= set(path)
    links = {robot.base} | {joints[n].find('child').get('link') for n in keep_joints}
    for el in list(tree):
        if (el.tag == 'joint' and el.get('name') not in keep_joints) or \
                (el.tag == 'link' and el.get('name') not in links) or \
                el.tag not in ('joint', 'link'):
            tree.remove(el)
    return ET.tostring(tree, encoding='unicode')


def ikpy_solver(robot: Robot) -> Solve:
    """Solve with ikpy's ``Chain.inverse_kinematics_frame`` (scipy, full pose, one local solve)."""
    try:
        import ikpy.chain
    except ImportError as exc:
        raise PeerMissing(f'ikpy not installed ({exc})') from None
    with tempfile.NamedTemporaryFile('w', suffix='.urdf', delete=False) as f:
        f.write(_chain_urdf(robot))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        chain = ikpy.chain.Chain.from_urdf_file(f.name, base_elements=[robot.base])
        mask = [link.joint_type != 'fixed' for link in chain.links]
        chain = ikpy.chain.Chain.from_urdf_file(f.name, base_elements=[robot.base],
                                                active_links_mask=mask)
    names = [link.name for link in chain.links]
    pairs = [(k, robot.linkage.joint_index(name)) for k, name in enumerate(names)
             if mask[k]]

    def solve(T, seed, timeout):
        init = np.zeros(len(names))
        for k, i in pairs:
            init[k] = seed[i]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            sol = chain.inverse_kinematics_frame(T, initial_position=init,
                                                 orientation_mode='all')
        out = seed.copy()
        for k, i in pairs:
            out[i] = sol[k]
        return out
    return solve


def pinocchio_clik(robot: Robot) -> Solve:
    """
    Solve with Pinocchio's damped CLIK (log6 error, frame Jacobian, λ = 1e-6).

    Random restarts until the timeout (the loop of Pinocchio's inverse-kinematics example, full
    step, clipped).
    """
    try:
        import pinocchio as pin
    except ImportError as exc:
        raise PeerMissing(f'pin not installed ({exc})') from None
    from common import PinocchioCheck
    check = PinocchioCheck(robot)
    model, data, fid = check.model, check.data, check.tip
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    rng = np.random.default_rng(0)
    names = robot.linkage.joint_names
    slots = [(robot.linkage.joint_index(n), i, k) for n, i, k in check.slots if n in names]
    chain = set(_chain_indices(robot).tolist())

    def to_pin(q):
        qp = pin.neutral(model)
        for name, idx, nq in check.slots:
            v = q[names.index(name)] if name in names else None
            if v is None:
                continue
            if nq == 2:
                qp[idx:idx + 2] = math.cos(v), math.sin(v)
            else:
                qp[idx] = v
        return qp

    def from_pin(qp, seed):
        out = seed.copy()
        for i, idx, nq in slots:
            out[i] = math.atan2(qp[idx + 1], qp[idx]) if nq == 2 else qp[idx]
        return out

    def solve(T, seed, timeout):
        t_end = time.perf_counter() + timeout
        goal = pin.SE3(T[:3, :3].copy(), T[:3, 3].copy())
        q = to_pin(seed)
        it = 0
        best = math.inf
        while time.perf_counter() < t_end:
            pin.forwardKinematics(model, data, q)
            iMd = pin.updateFramePlacement(model, data, fid).actInv(goal)
            err = pin.log6(iMd).vector
            norm = float(np.linalg.norm(err))
            if norm < 1e-8:
                return from_pin(q, seed)
            it += 1
            if it > 100 or (it % 20 == 0 and norm > 0.5 * best):
                fresh = seed.copy()
                for i in chain:
                    fresh[i] = rng.uniform(robot.lower[i], robot.upper[i])
                q, it, best = to_pin(fresh), 0, math.inf
                continue
            if it % 20 == 1:
                best = norm
            J = pin.computeFrameJacobian(model, data, q, fid)
            J = -pin.Jlog6(iMd.inverse()) @ J
            v = -J.T @ np.linalg.solve(J @ J.T + 1e-6 * np.eye(6), err)
            q = np.clip(pin.integrate(model, q, v), lo, hi)
        return from_pin(q, seed)
    return solve


#: label -> (factory, whether it is pdls_ik itself)
SOLVERS: Dict[str, tuple] = {
    'pdls_ik IKSolver[numba]': (pdls_iksolver_numba, True),
    'pdls_ik IKSolver[numpy]': (pdls_iksolver_numpy, True),
    'pdls_ik solve_batch[numba] N=1': (pdls_batch_numba, True),
    'rtb ik_LM': (rtb_lm, False),
    'rtb ik_NR': (rtb_nr, False),
    'pinocchio CLIK': (pinocchio_clik, False),
    'ikpy': (ikpy_solver, False),
}


def prepare(robot: Robot, labels: Optional[List[str]] = None):
    """{label: solve function or the PeerMissing reason (str)} for one robot."""
    out = {}
    for label, (factory, _) in SOLVERS.items():
        if labels and label not in labels:
            continue
        try:
            out[label] = factory(robot)
        except PeerMissing as exc:
            out[label] = str(exc)
    return out
