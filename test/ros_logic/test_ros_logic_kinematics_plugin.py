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

"""The MoveIt kinematics plugin's solver (KinematicsPlugin), checked by forward kinematics."""
import math
import os
import subprocess
import sys
import threading
import time

import numpy as np
from pdls_ik._accel import available as numba_available
from pdls_ik.errors import ConfigError
from pdls_ik.model import load_urdf
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.kinematics_plugin import KinematicsPlugin, plugin_config, urdf_of_model
import pytest
from scipy.spatial.transform import Rotation
from urdf_parser_py.urdf import URDF

ARM = [f'panda_joint{i}' for i in range(1, 8)]


@pytest.fixture(scope='module')
def panda():
    with open(bundled_urdf('panda')) as f:
        xml = f.read()
    return KinematicsPlugin(xml, 'panda_arm', ARM, 'panda_link0', ['panda_link8'],
                            {'backend': 'numpy', 'kinematics_solver_timeout': 0.005,
                             'kinematics_solver': 'pdls_ik/PDLSKinematicsPlugin'})


def _pose_error(a, b):
    dp = np.linalg.norm(np.subtract(a[:3], b[:3]))
    rot = Rotation.from_quat(a[3:]) * Rotation.from_quat(b[3:]).inv()
    return dp, np.linalg.norm(rot.as_rotvec())


def test_random_reachable_goals_are_solved_in_moveit_s_joint_order(panda):
    rng = np.random.default_rng(3)
    lower, upper = panda._lower, panda._upper
    for _ in range(20):
        goal = panda.forward(['panda_link8'], lower + rng.random(7) * (upper - lower))[0]
        seed = lower + rng.random(7) * (upper - lower)
        code, q, message = panda.search([goal], seed, timeout=1.0)
        assert code == 1, message
        assert len(q) == 7 and np.all(np.array(q) >= lower) and np.all(np.array(q) <= upper)
        dp, dr = _pose_error(panda.forward(['panda_link8'], q)[0], goal)
        assert dp < 1e-4 and dr < 1e-3


def test_forward_is_the_model_s_forward_kinematics_in_the_base_frame(panda):
    q = np.array([0.1, -0.5, 0.2, -2.0, 0.1, 1.6, 0.7])
    pose = panda.forward(['panda_link8'], q)[0]
    full = np.zeros(panda.linkage.n)
    full[[panda.linkage.joint_index(j) for j in ARM]] = q
    T = panda.linkage.forward_kinematics(full, 'panda_link8', 'panda_link0')
    assert np.allclose(pose[:3], T[:3, 3], atol=1e-12)
    assert np.allclose(Rotation.from_quat(pose[3:]).as_matrix(), T[:3, :3], atol=1e-12)


def test_consistency_limits_bound_the_answer_around_the_seed(panda):
    seed = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8])
    goal = panda.forward(['panda_link8'], seed + 0.05)[0]
    limits = [0.2] * 7
    for attempt in range(3):
        code, q, message = panda.search([goal], seed, 1.0, limits, attempt)
        if code == 1:
            assert np.all(np.abs(np.array(q) - seed) <= 0.2 + 1e-12)
        else:
            assert code == -31 and 'consistency' in message
    # a goal only reachable far from the seed is refused, never answered outside the box
    far = panda.forward(['panda_link8'], seed + np.array([1.5, 0, 0, 0, 0, 0, 0]))[0]
    code, q, message = panda.search([far], seed, 0.2, [0.1] * 7, 0)
    assert code != 1 and q == []


def test_retries_start_elsewhere_and_are_deterministic(panda):
    seed = np.zeros(7)
    first = panda._seed_of_attempt(seed, None, 1)
    assert np.array_equal(first, panda._seed_of_attempt(seed, None, 1))
    assert not np.array_equal(first, panda._seed_of_attempt(seed, None, 2))
    assert np.all(first >= panda._lower) and np.all(first <= panda._upper)
    boxed = panda._seed_of_attempt(seed, np.full(7, 0.1), 5)
    assert np.all(np.abs(boxed) <= 0.1)


def test_bad_calls_get_moveit_codes_naming_the_field(panda):
    goal = [0.3, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0]
    code, q, message = panda.search([goal], [0.0] * 6, 0.1)
    assert (code, q) == (-17, []) and '6 values for 7 joints' in message
    code, q, message = panda.search([goal, goal], [0.0] * 7, 0.1)
    assert (code, q) == (-18, []) and '2 poses for 1 tip frames' in message


def test_kinematics_yaml_keys():
    config, ignored = plugin_config({'position_only_ik': True, 'kinematics_solver_timeout': 0.01,
                                     'kinematics_solver_attempts': 3, 'foo': 1,
                                     'kinematics_solver_ik_links': []})
    assert config.position_only and ignored == ['foo']
    assert config.timeout != 0.01        # MoveIt's per-call timeout is not the solver's default
    with pytest.raises(ConfigError, match='position_tolerance'):
        plugin_config({'position_tolerance': -1.0})


def test_two_arms_on_a_torso_joint_are_solved_chain_by_chain():
    """
    Two tips sharing the torso joint: one arm's chain with the torso, the other's from the torso.

    Each 4-joint arm meets a full 6D pose only at exact configurations, so the torso value must
    suit both arms: every goal is met (the task solver met 565 of 1000 at 50 ms), and the same
    request gives the same answer, bit for bit.
    """
    with open(bundled_urdf('bimanual')) as f:
        xml = f.read()
    linkage = load_urdf(xml)
    tips = ['l_tool', 'r_tool']
    moved = set()
    for tip in tips:
        chain = linkage.chain(tip, linkage.root_link)
        moved |= {linkage.joint_names[i] for i in
                  np.flatnonzero(np.any(chain.select != 0.0, axis=0))}
    joints = [j for j in linkage.joint_names if j in moved]
    assert 'torso_yaw' in joints and len(joints) == 9
    plugin = KinematicsPlugin(xml, 'upper_body', joints, linkage.root_link, tips,
                              {'backend': 'numpy'})
    rng = np.random.default_rng(1)
    lower = np.where(np.isfinite(plugin._lower), plugin._lower, -math.pi)
    upper = np.where(np.isfinite(plugin._upper), plugin._upper, math.pi)
    for _ in range(20):
        goals = plugin.forward(tips, lower + rng.random(len(joints)) * (upper - lower))
        code, q, message = plugin.search(goals, 0.5 * (lower + upper), 5.0)
        assert code == 1 and '2 chain solvers' in message, message
        for got, goal in zip(plugin.forward(tips, q), goals):
            dp, dr = _pose_error(got, goal)
            assert dp < 1e-4 and dr < 1e-3
    again = plugin.search(goals, 0.5 * (lower + upper), 5.0)
    assert again[0] == 1 and again[1] == q


def test_two_arms_on_a_fixed_torso_are_two_chain_problems():
    """Tips whose chains split the group are solved each by its chain solver: every goal met."""
    with open(bundled_urdf('bimanual')) as f:
        xml = f.read()
    linkage = load_urdf(xml)
    tips = ['l_tool', 'r_tool']
    joints = [j for j in linkage.joint_names if j[:2] in ('l_', 'r_') and 'finger' not in j]
    plugin = KinematicsPlugin(xml, 'both_arms', joints, 'torso', tips, {'backend': 'numpy'})
    rng = np.random.default_rng(2)
    lower = np.where(np.isfinite(plugin._lower), plugin._lower, -math.pi)
    upper = np.where(np.isfinite(plugin._upper), plugin._upper, math.pi)
    for _ in range(20):
        goals = plugin.forward(tips, lower + rng.random(len(joints)) * (upper - lower))
        code, q, message = plugin.search(goals, 0.5 * (lower + upper), 2.0)
        assert code == 1 and '2 chain solvers' in message, message
        for got, goal in zip(plugin.forward(tips, q), goals):
            dp, dr = _pose_error(got, goal)
            assert dp < 1e-4 and dr < 1e-3


def test_urdf_of_model_keeps_the_kinematics():
    """The plugin's URDF from MoveIt's urdf::Model tables (read here by urdf_parser_py)."""
    with open(bundled_urdf('panda')) as f:
        xml = f.read()
    model = URDF.from_xml_string(xml)
    joints = []
    for j in model.joints:
        row = {'name': j.name, 'type': j.type, 'parent': j.parent, 'child': j.child,
               'xyz': j.origin.xyz if j.origin else [0, 0, 0],
               'rpy': j.origin.rpy if j.origin else [0, 0, 0],
               'axis': j.axis or [1, 0, 0],
               'mimic': (j.mimic.joint, j.mimic.multiplier or 1.0, j.mimic.offset or 0.0)
               if j.mimic else None}
        if j.limit is not None:
            row.update(lower=j.limit.lower, upper=j.limit.upper, velocity=j.limit.velocity,
                       effort=j.limit.effort)
        joints.append(row)
    rebuilt = load_urdf(urdf_of_model(model.name, [link.name for link in model.links], joints))
    original = load_urdf(xml)
    assert rebuilt.joint_names == original.joint_names
    np.testing.assert_array_equal(rebuilt.lower, original.lower)
    np.testing.assert_array_equal(rebuilt.upper, original.upper)
    q = np.random.default_rng(4).uniform(original.lower, original.upper)
    for link in ('panda_link8', 'panda_hand', 'panda_leftfinger'):
        np.testing.assert_allclose(rebuilt.forward_kinematics(q, link),
                                   original.forward_kinematics(q, link), atol=1e-12)


def test_a_call_waiting_for_another_thread_s_solve_spends_its_own_timeout(panda):
    """
    Threads of MoveIt share one instance, whose solves run one at a time.

    A call that waited for another thread's solve has only the rest of its timeout: the service
    is given at most timeout - wait (it had been given the whole timeout again).
    """
    given = []
    service = panda._numpy_service or panda._service
    compute = service.compute

    def spy(request, current_q):
        given.append(request.timeout)
        return compute(request, current_q)

    goal = panda.forward(['panda_link8'], (panda._lower + panda._upper) / 2)[0]
    seed = (panda._lower + panda._upper) / 2
    service.compute = spy
    try:
        with panda._lock:       # another thread's solve
            caller = threading.Thread(target=panda.search, args=([goal], seed, 0.3))
            caller.start()
            time.sleep(0.1)
        caller.join()
    finally:
        del service.compute
    assert len(given) == 1 and given[0] <= 0.3 - 0.1


FIRST_START = """
from pdls_ik.resources import bundled_urdf
from pdls_ik.ros_logic.kinematics_plugin import KinematicsPlugin
import numba.core.dispatcher as nd
used = set()                    # the kernels this process compiled or loaded
compile_ = nd.Dispatcher.compile
nd.Dispatcher.compile = lambda self, sig: used.add(self) or compile_(self, sig)
xml = open(bundled_urdf('panda')).read()
plugin = KinematicsPlugin(xml, 'panda_arm', [f'panda_joint{i}' for i in range(1, 8)],
                          'panda_link0', ['panda_link8'], {})
mid = (plugin._lower + plugin._upper) / 2
goal = plugin.forward(['panda_link8'], mid + 0.2)[0]
first = plugin.backend, plugin.search([goal], mid, 1.0)[0]
print(first, plugin.wait_compiled(900), plugin.backend, plugin.search([goal], mid, 1.0)[0])
print(sum(sum(k._cache_hits.values()) for k in used) > 0,
      sorted(k.py_func.__name__ for k in used if sum(k._cache_misses.values())))
"""


@pytest.mark.skipif(not numba_available(), reason='numba not installed (optional accelerator)')
def test_first_start_compiles_in_a_child_process_while_numpy_answers(tmp_path):
    """
    First use on a machine (empty numba cache): NumPy answers at once; a child process compiles.

    The host then loads the kernels from numba's cache and the numba backend answers. The host
    never runs the compiler itself: a C++ host (move_group) that exited while LLVM compiled in
    one of its threads crashed in LLVM's exit handlers (2 of 6 exits in the Humble lab).
    """
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, '-c', FIRST_START], capture_output=True, text=True,
                          env=env, timeout=1200)
    assert proc.returncode == 0, proc.stderr
    # NumPy answered, the kernels came, then numba answered; all loaded from the cache, none
    # compiled here
    assert proc.stdout.split('\n')[:2] == ["('numpy', 1) True numba 1", 'True []'], proc.stdout


def test_backend_is_numpy_where_numba_is_absent(monkeypatch):
    """
    Without numba the plugin says NumPy answers (and that no kernels will come).

    Found on Humble (no numba): move_group's log said "numba backend" while NumPy answered, as
    no compiled chain solver existed and nothing was compiling.
    """
    import pdls_ik.ik.ik_solver as ik_solver
    monkeypatch.setattr(ik_solver, 'numba_available', lambda: False)
    monkeypatch.setattr(ik_solver, 'numba_problem', lambda: 'numba is not installed')
    with open(bundled_urdf('panda')) as f:
        xml = f.read()
    plugin = KinematicsPlugin(xml, 'panda_arm', ARM, 'panda_link0', ['panda_link8'], {})
    assert plugin.backend == 'numpy'
    assert not plugin.wait_compiled(0.0)
    goal = plugin.forward(['panda_link8'], [0.1, -0.5, 0.2, -2.0, 0.1, 1.6, 0.7])[0]
    code, _, message = plugin.search([goal], np.zeros(7), 1.0)
    assert code == 1, message
