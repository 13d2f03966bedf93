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
The solver behind MoveIt's ``pdls_ik/PDLSKinematicsPlugin``, without ROS.

MoveIt calls IK through its ``kinematics::KinematicsBase`` interface (C++). The plugin
(``moveit_plugin/pdls_ik_kinematics_plugin.cpp``) is a thin shell: it runs this class in an
embedded Python interpreter and passes plain numbers. All IK semantics live here and are those
of the ``~/compute_ik`` service (:class:`~pdls_ik.ros_logic.ik_service.IKService`): the group is
MoveIt's (its active joints, in MoveIt's order), one tip whose chain is the group runs the
compiled chain solver, several tips their chains in turn or a task solver with one pose level,
``avoid_collisions`` off (MoveIt checks collisions itself, through the solution callback the
plugin calls).

What the plugin adds to a service request (``KinematicsBase::searchPositionIK``):

- ``timeout`` [s] bounds the whole call; every attempt gets what remains. MoveIt calls one
  instance from many threads (every RobotState of a robot model asks the same one): solves run
  one at a time, and the time a call waits for another thread's solve is taken from its own.
- ``attempt`` k > 0 (the solution callback refused the previous answer, or it broke the
  consistency limits) starts from the k-th seed of a generator seeded by k: within the
  consistency box around the seed when limits are given, else within the joint limits. The same
  call sequence gives the same answers (deterministic).
- ``consistency_limits`` (one per joint, or none): an answer with a joint farther than its limit
  from the seed (continuous joints: by angle) is not returned (NO_IK_SOLUTION), as MoveIt's KDL
  plugin rules.

Record: with the environment variable ``PDLS_IK_PLUGIN_RECORD`` set to a file, every attempt
appends one JSON line to it (:data:`RECORD_ENV`: group, base and tip frames, joint names, poses,
seed, timeout, consistency limits, attempt, code, solution): the requests MoveIt sent, replayed
without ROS by ``test/ros_logic/test_ros_logic_plugin_replay.py``.

First start: on the numba backend, when the compiled kernels are not in numba's cache yet (the
first use on a machine), a child Python process compiles them into numba's cache (1-3
minutes), then they are loaded here; requests are answered by the NumPy backend meanwhile, and
:attr:`KinematicsPlugin.backend` says which one answers. The host (move_group, rviz2) never runs
the compiler: it may exit at any time.
"""
from __future__ import annotations

import fcntl
import json
import math
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, List, Mapping, Optional, Sequence, Tuple
import warnings
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

import numpy as np
from numpy.typing import NDArray
from pdls_ik.config import IKConfig, MOVEIT_IGNORED, PARAMETERS
from pdls_ik.errors import ConfigError, PDLSIKError
from pdls_ik.ik import IKSolver
from pdls_ik.model.srdf import parse_srdf
from pdls_ik.msgs.geometry import ParsedPose
from pdls_ik.msgs.moveit import ErrorCode, IKServiceRequest, IKTarget
from pdls_ik.ros_logic.ik_service import IKService
from pdls_ik.ros_logic.robot import build_robot
from scipy.spatial.transform import Rotation

Array = NDArray[np.float64]

#: kinematics.yaml keys MoveIt reads itself (the plugin gets the timeout with each call, and
#: the tips, ``kinematics_solver_ik_links``, in ``initialize``; Humble's move_group passes that
#: key for every group)
MOVEIT_OWN = tuple(MOVEIT_IGNORED) + ('kinematics_solver_timeout', 'kinematics_solver_ik_links')

#: the plugin's smallest time budget for one attempt [s] (a timeout already spent still gets
#: one short solve, as MoveIt's KDL plugin always makes one iteration)
MIN_ATTEMPT_TIME = 2e-4

#: environment variable naming the file where each attempt is appended as a JSON line
RECORD_ENV = 'PDLS_IK_PLUGIN_RECORD'


def plugin_config(parameters: Mapping[str, Any]) -> Tuple[IKConfig, List[str]]:
    """
    Build the solver's :class:`IKConfig` from the group's kinematics.yaml parameters.

    :param parameters: key -> value of ``robot_description_kinematics.<group>.*`` (the prefix
        removed). IKConfig fields and MoveIt's aliases (``position_only_ik``, ``epsilon``) apply;
        MoveIt's own keys (:data:`MOVEIT_OWN`) are left to MoveIt.
    :return: the config and the keys that were ignored because nothing reads them (for a warning).
    :raises ConfigError: a known key with a bad value (naming it).
    """
    known, unknown = {}, []
    for key, value in parameters.items():
        if key in MOVEIT_OWN:
            continue
        if key in PARAMETERS or key in ('position_only_ik', 'epsilon'):
            known[key] = list(value) if isinstance(value, (list, tuple)) else value
        else:
            unknown.append(key)
    return IKConfig.from_dict(known), sorted(unknown)


def urdf_of_model(robot_name: str, links: Sequence[str],
                  joints: Sequence[Mapping[str, Any]]) -> str:
    """
    Write the URDF XML of a robot model given as tables.

    The tables are MoveIt's ``urdf::Model`` as the plugin reads it: MoveIt may have taken the
    description from a topic, so no XML text is at hand.

    :param links: every link name.
    :param joints: one mapping per joint: ``name``, ``type`` (URDF's: revolute, continuous,
        prismatic, fixed, floating, planar), ``parent``, ``child``, ``xyz`` [m] and ``rpy`` [rad]
        of the origin in the parent link, ``axis``; ``lower``, ``upper`` [rad, m],
        ``velocity`` [rad/s, m/s] and ``effort`` when the joint has limits; ``mimic`` as
        (joint, multiplier, offset) or None. Inertia and geometry are not carried: the plugin
        leaves collisions to MoveIt.
    """
    robot = ET.Element('robot', name=robot_name)
    for link in links:
        ET.SubElement(robot, 'link', name=link)

    def numbers(values):
        return ' '.join(repr(float(v)) for v in values)

    for joint in joints:
        elem = ET.SubElement(robot, 'joint', name=joint['name'], type=joint['type'])
        ET.SubElement(elem, 'parent', link=joint['parent'])
        ET.SubElement(elem, 'child', link=joint['child'])
        ET.SubElement(elem, 'origin', xyz=numbers(joint['xyz']), rpy=numbers(joint['rpy']))
        if joint['type'] not in ('fixed', 'floating'):
            ET.SubElement(elem, 'axis', xyz=numbers(joint['axis']))
        if 'velocity' in joint:
            keys = ('lower', 'upper', 'velocity', 'effort')
            limit = {key: repr(float(joint[key])) for key in keys if key in joint}
            ET.SubElement(elem, 'limit', limit)
        if joint.get('mimic'):
            other, multiplier, offset = joint['mimic']
            ET.SubElement(elem, 'mimic', joint=other, multiplier=repr(float(multiplier)),
                          offset=repr(float(offset)))
    return ET.tostring(robot, encoding='unicode')


def group_srdf(robot_name: str, group: str, joints: Sequence[str], base_frame: str,
               links: Sequence[str], root_link: str) -> str:
    """
    Write the SRDF text of one group made of MoveIt's joints.

    ``base_frame`` becomes the model frame (a virtual joint to the root) when it is not a link:
    MoveIt names the model frame when the group's first joint has no parent link.
    """
    lines = [f'<robot name={quoteattr(robot_name)}>']
    if base_frame and base_frame not in links:
        lines.append(f'  <virtual_joint name="pdls_ik_model_frame" type="fixed" '
                     f'parent_frame={quoteattr(base_frame)} child_link={quoteattr(root_link)}/>')
    lines.append(f'  <group name={quoteattr(group)}>')
    lines += [f'    <joint name={quoteattr(j)}/>' for j in joints]
    lines += ['  </group>', '</robot>']
    return '\n'.join(lines)


def chain_solvers(linkage, config: IKConfig, base_link: str,
                  tips: Sequence[str]) -> List[IKSolver]:
    """Return the compiled chain solvers of the tips from ``base_link`` (those with a chain)."""
    out = []
    for tip in tips:
        try:
            solver = IKSolver(linkage, tip, base_link, config=config)
        except PDLSIKError:
            continue
        if solver.backend == 'numba':
            out.append(solver)
    return out


def python_executable() -> Optional[str]:
    """
    Return the Python interpreter of this process, also when it is embedded, or None.

    Embedded in MoveIt's process, ``sys.executable`` is the Python its start-up found on PATH (or
    the host program, or nothing); the interpreter of ``sys.exec_prefix`` with this version is
    the fallback.
    """
    version = f'python{sys.version_info[0]}.{sys.version_info[1]}'
    for path in (sys.executable, os.path.join(sys.exec_prefix, 'bin', version)):
        if path and os.path.basename(path).startswith('python') and os.access(path, os.X_OK):
            return path
    return None


def compile_kernels(spec_path: str) -> None:
    """
    Compile the kernels of a plugin's chain solvers into numba's cache (the child process).

    :param spec_path: a pickle of (robot_description, IKConfig, base link, tip frames), removed
        once read.
    """
    with open(spec_path, 'rb') as f:
        description, config, base_link, tips = pickle.load(f)
    os.unlink(spec_path)        # the host may be gone already: the compile still fills the cache
    os.nice(10)                 # behind the host's own work
    solvers = chain_solvers(build_robot(description, config).linkage, config, base_link, tips)
    os.makedirs(os.environ['NUMBA_CACHE_DIR'], exist_ok=True)
    with open(os.path.join(os.environ['NUMBA_CACHE_DIR'], 'pdls_ik_compile.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)    # one compile at a time: a host restarted meanwhile
        for solver in solvers:              # then loads what the first compiled
            solver.warm_up()


class KinematicsPlugin:
    """
    IK and FK of one MoveIt planning group.

    :param robot_description: URDF XML of the robot (as MoveIt's robot model has it).
    :param group_name: the planning group.
    :param joint_names: the group's active joints, in the order of MoveIt's seeds and solutions
        (``KinematicsBase::getJointNames``).
    :param base_frame: the frame of the IK poses (``getBaseFrame``).
    :param tip_frames: the tip links, one per pose of a request.
    :param parameters: the group's kinematics.yaml parameters (:func:`plugin_config`).

    :raises URDFError: the description does not load.
    :raises LinkError: a tip or the base frame that is not a link of the robot.
    :raises ConfigError: a bad parameter value, a joint that is not a revolute or prismatic
        joint of the robot.
    """

    def __init__(self, robot_description: str, group_name: str, joint_names: Sequence[str],
                 base_frame: str, tip_frames: Sequence[str],
                 parameters: Optional[Mapping[str, Any]] = None):
        config, ignored = plugin_config(parameters or {})
        if ignored:
            warnings.warn(f"kinematics.yaml group '{group_name}': keys not read by pdls_ik: "
                          f"{', '.join(ignored)}", stacklevel=2)
        if not tip_frames:
            raise ConfigError(f"group '{group_name}': no tip frame")
        config = config.replace(tip_link=tip_frames[0], base_link='')
        robot = build_robot(robot_description, config)
        linkage = robot.linkage
        missing = [j for j in joint_names if j not in linkage.joint_names]
        if missing:
            raise ConfigError(f"group '{group_name}': joint(s) {', '.join(missing)} are not "
                              'revolute, continuous or prismatic joints of robot '
                              f"'{linkage.name}'")
        for tip in tip_frames:
            linkage.link_index(tip)
        srdf = parse_srdf(group_srdf(linkage.name, group_name, joint_names, base_frame,
                                     linkage.link_names, linkage.root_link))
        self.group_name, self.base_frame = group_name, base_frame
        self.joint_names, self.tip_frames = list(joint_names), list(tip_frames)
        self.linkage, self._config = linkage, config
        self._columns = np.array([linkage.joint_index(j) for j in joint_names], dtype=np.int64)
        self._lower = np.asarray(linkage.lower, dtype=float)[self._columns]
        self._upper = np.asarray(linkage.upper, dtype=float)[self._columns]
        self._continuous = np.asarray(linkage.continuous, dtype=bool)[self._columns]
        #: joints outside the group stay at the middle of their limits (they never move)
        self._others = robot.default_q()
        self._service = IKService(robot, srdf)
        self.group = self._service.groups.get(group_name)
        self._numpy_service: Optional[IKService] = None
        self._compile: Optional[threading.Thread] = None
        #: MoveIt calls from many threads; the GIL alone would interleave two solves
        self._lock = threading.Lock()
        self._record = os.environ.get(RECORD_ENV) or None
        #: the chain solvers run numba's kernels (none where numba is absent or covers no tip:
        #: the NumPy backend answers every call)
        self._compiled = False
        if config.backend != 'numpy':
            solvers = chain_solvers(linkage, config, self.group.base_link, self.tip_frames)
            self._compiled = bool(solvers)
            if all(s.kernels_compiled for s in solvers):
                self._warm_up(solvers)      # from numba's cache (under a second): not in a call
            else:
                robot_np = build_robot(robot_description, config.replace(backend='numpy'))
                self._numpy_service = IKService(robot_np, srdf)
                self._compile = threading.Thread(
                    target=self._compile_elsewhere, daemon=True, name='pdls_ik kernel compile',
                    args=(solvers, (robot_description, config, self.group.base_link,
                                    self.tip_frames)))
                self._compile.start()

    def _compile_elsewhere(self, solvers: List[IKSolver], spec: Tuple) -> None:
        """
        Compile the kernels in a child Python process, then load them here from numba's cache.

        Not in the host: a process (move_group, rviz2) that exits while LLVM compiles in one of
        its threads crashes in LLVM's exit handlers (seen in the Humble lab: 2 exits of 6 ended
        in SIGSEGV or an LLVM assertion), and the compile would hold the GIL the NumPy answers
        need. Where no Python executable is found, the kernels compile in this thread.
        """
        python = python_executable()
        if python is not None:
            with tempfile.NamedTemporaryFile('wb', suffix='.pickle', delete=False) as out:
                pickle.dump(spec, out)
            proc = subprocess.run(
                [python, '-m', __name__, out.name], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False,
                env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
            if proc.returncode != 0 or not all(s.kernels_compiled for s in solvers):
                last = (proc.stderr.decode(errors='replace').strip().splitlines() or [''])[-1]
                warnings.warn(f'pdls_ik: compiling the solver kernels failed (exit '
                              f'{proc.returncode}: {last}); the NumPy backend answers',
                              stacklevel=1)
                return
        self._warm_up(solvers)

    def _warm_up(self, solvers: List[IKSolver]) -> None:
        try:
            for solver in solvers:
                solver.warm_up()
        except Exception as exc:  # noqa: BLE001 - reported; the NumPy backend goes on
            warnings.warn(f'pdls_ik: compiling the solver kernels failed ({exc}); the NumPy '
                          f'backend answers', stacklevel=1)
            return
        self._numpy_service = None          # the compiled kernels answer from now on

    @property
    def backend(self) -> str:
        """Which backend answers now: "numba" or "numpy" (also while the kernels compile)."""
        if self._numpy_service is not None or not self._compiled:
            return 'numpy'
        return 'numba'

    def wait_compiled(self, timeout: Optional[float] = None) -> bool:
        """Wait for the kernels to compile; True when the numba backend answers."""
        if self._compile is not None:
            self._compile.join(timeout)
        return self._compiled and self._numpy_service is None

    # ------------------------------------------------------------------ IK
    def _seed_of_attempt(self, seed: Array, consistency: Optional[Array], attempt: int) -> Array:
        """Return the start of attempt k: the seed, then draws of a generator seeded by k."""
        if attempt == 0:
            return seed
        rng = np.random.default_rng(attempt)
        lower = np.where(np.isfinite(self._lower), self._lower, -math.pi)
        upper = np.where(np.isfinite(self._upper), self._upper, math.pi)
        if consistency is not None:
            lower = np.maximum(lower, seed - consistency)
            upper = np.minimum(upper, seed + consistency)
        return lower + rng.random(seed.size) * (upper - lower)

    def _consistent(self, q: Array, seed: Array, consistency: Optional[Array]) -> bool:
        if consistency is None:
            return True
        step = q - seed
        step = np.where(self._continuous, (step + math.pi) % (2.0 * math.pi) - math.pi, step)
        return bool(np.all(np.abs(step) <= consistency + 1e-12))

    def search(self, poses: Sequence[Sequence[float]], seed: Sequence[float], timeout: float,
               consistency_limits: Sequence[float] = (), attempt: int = 0
               ) -> Tuple[int, List[float], str]:
        """
        One IK attempt of ``KinematicsBase::searchPositionIK`` (appended to the record file).

        :param poses: one (x, y, z, qx, qy, qz, qw) per tip frame, in ``base_frame`` [m].
        :param seed: (k,) group joint values, MoveIt's order [rad, m].
        :param timeout: time left for this call [s], the wait for another thread's solve
            included (at least :data:`MIN_ATTEMPT_TIME` used).
        :param consistency_limits: () or (k,) largest distance of each joint from the seed.
        :param attempt: 0 for the first attempt of a call; k for the k-th retry.
        :return: (MoveItErrorCodes value, (k,) solution or [], message).
        """
        reply = self._search(poses, seed, timeout, consistency_limits, attempt)
        if self._record:
            line = json.dumps({
                'group': self.group_name, 'base_frame': self.base_frame,
                'tip_frames': self.tip_frames, 'joint_names': self.joint_names,
                'poses': [[float(v) for v in p] for p in poses],
                'seed': [float(v) for v in seed], 'timeout': float(timeout),
                'consistency_limits': [float(v) for v in consistency_limits],
                'attempt': int(attempt), 'code': reply[0], 'solution': reply[1]})
            with self._lock, open(self._record, 'a') as out:
                out.write(line + '\n')
        return reply

    def _search(self, poses, seed, timeout, consistency_limits, attempt):
        called = time.perf_counter()
        seed = np.asarray(seed, dtype=float)
        if seed.shape != (len(self.joint_names),):
            return (int(ErrorCode.INVALID_ROBOT_STATE), [],
                    f'ik_seed_state: {seed.size} values for {len(self.joint_names)} joints')
        if len(poses) != len(self.tip_frames):
            return (int(ErrorCode.INVALID_LINK_NAME), [],
                    f'{len(poses)} poses for {len(self.tip_frames)} tip frames')
        consistency = None
        if len(consistency_limits):
            consistency = np.abs(np.asarray(consistency_limits, dtype=float))
            if consistency.shape != seed.shape:
                return (int(ErrorCode.FAILURE), [],
                        f'consistency_limits: {consistency.size} values for {seed.size} joints')
        start = self._seed_of_attempt(seed, consistency, attempt)
        targets = tuple(
            IKTarget(tip, ParsedPose(self.base_frame, np.asarray(p[:3], dtype=float),
                                     np.asarray(p[3:7], dtype=float)), f'ik_poses[{i}]')
            for i, (tip, p) in enumerate(zip(self.tip_frames, poses)))
        q_all = self._others.copy()
        q_all[self._columns] = start
        with self._lock:
            # another thread's solve waited for is part of this call's time
            left = float(timeout) - (time.perf_counter() - called)
            request = IKServiceRequest(self.group_name, targets, list(self.linkage.joint_names),
                                       q_all, max(left, MIN_ATTEMPT_TIME))
            service = self._numpy_service or self._service
            reply = service.compute(request, lambda: q_all)
        if reply.code != ErrorCode.SUCCESS:
            return int(reply.code), [], reply.message
        q = np.asarray(reply.positions, dtype=float)[self._columns]
        if not self._consistent(q, seed, consistency):
            return int(ErrorCode.NO_IK_SOLUTION), [], 'solution outside the consistency limits'
        return int(ErrorCode.SUCCESS), q.tolist(), reply.message

    # ------------------------------------------------------------------ FK
    def forward(self, links: Sequence[str], q: Sequence[float]) -> List[List[float]]:
        """
        Poses of ``links`` in ``base_frame`` at the group values q (``getPositionFK``).

        :return: one (x, y, z, qx, qy, qz, qw) per link [m].
        :raises LinkError: unknown link. :raises InputError: q of the wrong size.
        """
        values = np.asarray(q, dtype=float)
        if values.shape != (len(self.joint_names),):
            raise ConfigError(f'joint_angles: {values.size} values for '
                              f'{len(self.joint_names)} joints')
        q_all = self._others.copy()
        q_all[self._columns] = values
        base = self._service.groups.link_of_frame(self.base_frame)
        out = []
        for link in links:
            T = self.linkage.forward_kinematics(q_all, link, base)
            out.append(list(T[:3, 3]) + list(Rotation.from_matrix(T[:3, :3]).as_quat()))
        return out


if __name__ == '__main__':          # the kernel compile of KinematicsPlugin._compile_elsewhere
    compile_kernels(sys.argv[1])
