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
Every URDF of the ``example-robot-data`` package (PyPI, a test dependency) against Pinocchio.

Each file that Pinocchio's urdfdom parser loads must load here, and the pose of every link must
agree with Pinocchio's to 1e-10 at random configurations within the limits (mimic followers set
from their master, disabled joints at 0 in both), as must the Jacobians of the deepest leaves.
A file we refuse must be one urdfdom refuses too, for the reason listed in ``REFUSED``. Meshes
are never needed: kinematics reads none.
"""
from __future__ import annotations

from importlib import metadata
from pathlib import Path
import warnings

import numpy as np
from pdls_ik.errors import JointError, PDLSIKError
from pdls_ik.model import load_urdf, URDFWarning
import pytest

MARK = 'share/example-robot-data/robots/'  # under cmeel.prefix/ in the wheels
#: files refused, with the reason (urdfdom refuses them as well: no <link>, no robot name)
REFUSED = {'ur_description/urdf/ur3.urdf': "robot '' defines no <link>"}


def _files():
    try:
        dist = metadata.distribution('example-robot-data')
    except metadata.PackageNotFoundError:
        return []
    return sorted((str(f).split(MARK, 1)[1], Path(dist.locate_file(f)))
                  for f in dist.files or [] if MARK in str(f) and str(f).endswith('.urdf'))


FILES = _files()
NO_DATA = 'example-robot-data is not installed (pip install -e .[test])'


def _pinocchio_model(path: Path):
    pin = pytest.importorskip('pinocchio')
    try:
        return pin.buildModelFromUrdf(str(path))
    except Exception:  # urdfdom (inside Pinocchio) refuses the file
        return None


def _load(path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return load_urdf(path)


def _random_q(robot, rng):
    """Random q within the limits; an unlimited side spans 2π from the other (or ±π)."""
    lo = np.where(np.isfinite(robot.lower), robot.lower,
                  np.where(np.isfinite(robot.upper), robot.upper - 2 * np.pi, -np.pi))
    hi = np.where(np.isfinite(robot.upper), robot.upper, lo + 2 * np.pi)
    return rng.uniform(lo, hi)


def _leaves(robot):
    """Leaf links whose chain from the root has moving joints and no floating/planar/disabled."""
    parents = {j.parent for j in robot.joints}
    leaves = []
    for joint in robot.joints:
        link = robot.link_names[joint.child]
        if joint.child in parents:
            continue
        try:
            chain = robot.chain(link, robot.root_link)
        except JointError:
            continue
        if chain.names and not chain.passive:
            leaves.append((-len(chain.names), link))
    return [link for _, link in sorted(leaves)]


def _pinocchio_q(model, robot, q):
    """Pinocchio's configuration: ours by joint name, mimic followers from their master."""
    pin = pytest.importorskip('pinocchio')
    qp = pin.neutral(model)  # floating/planar and disabled joints: at their origin, as ours
    values = dict(zip(robot.joint_names, q))
    values.update(robot.mimic_values(q))
    for name, value in values.items():
        jid = model.getJointId(name)
        start, nq = model.idx_qs[jid], model.nqs[jid]
        qp[start:start + nq] = (np.cos(value), np.sin(value)) if nq == 2 else value
    return qp


@pytest.mark.skipif(not FILES, reason=NO_DATA)
def test_the_package_ships_its_robots():
    names = {rel for rel, _ in FILES}
    assert len(FILES) >= 60
    assert {'pr2_description/urdf/pr2.urdf', 'icub_description/robots/icub.urdf',
            'talos_data/robots/talos_reduced.urdf', 'tiago_description/robots/tiago.urdf',
            'alex_description/urdf/alex_psyonic_hands.urdf'} <= names


@pytest.mark.skipif(not FILES, reason=NO_DATA)
@pytest.mark.parametrize('rel,path', FILES, ids=[rel for rel, _ in FILES])
def test_loads_what_urdfdom_loads_and_fk_agrees_with_pinocchio(rel, path):
    pin = pytest.importorskip('pinocchio')
    model = _pinocchio_model(path)
    if rel in REFUSED:
        with pytest.raises(PDLSIKError) as info:
            _load(path)
        assert REFUSED[rel] in str(info.value)
        assert model is None, 'a file urdfdom loads must load'
        return
    robot = _load(path)  # every other file loads, whatever Pinocchio says
    if model is None:
        return
    data = model.createData()
    frames = {link: model.getFrameId(link, pin.BODY) for link in robot.link_names}
    rng = np.random.default_rng(sum(map(ord, rel)))
    for _ in range(4):
        q = _random_q(robot, rng)
        pin.framesForwardKinematics(model, data, _pinocchio_q(model, robot, q))
        ours = robot.forward_kinematics_all(q)
        for link, fid in frames.items():
            np.testing.assert_allclose(ours[link], data.oMf[fid].homogeneous, rtol=0,
                                       atol=1e-10, err_msg=f'{rel}: link {link}')
    for link in _leaves(robot)[:4]:   # Jacobians too, mimic columns summed into the master's
        J = pin.computeFrameJacobian(model, data, _pinocchio_q(model, robot, q), frames[link],
                                     pin.LOCAL_WORLD_ALIGNED)
        expected = np.zeros((6, robot.n))
        for joint in robot.joints:
            if joint.moving:
                expected[:, joint.index] += joint.multiplier * J[:, model.idx_vs[
                    model.getJointId(joint.name)]]
        np.testing.assert_allclose(robot.jacobian(q, link), expected, rtol=0, atol=1e-10,
                                   err_msg=f'{rel}: Jacobian of {link}')


@pytest.mark.skipif(not FILES, reason=NO_DATA)
def test_disabled_parts_of_real_robots_only_stop_their_own_chains():
    path = dict(FILES)['alex_description/urdf/alex_psyonic_hands.urdf']
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        robot = load_urdf(path)
    lines = [str(w.message) for w in caught if issubclass(w.category, URDFWarning)]
    assert len(lines) == 8 and all('<mimic> refers to unknown joint' in x for x in lines)
    assert "joint 'Left_index_q2': <mimic> refers to unknown joint 'index_q1'" in lines[0]
    assert len(robot.joint_defects) == 8 and 'Left_index_q2' not in robot.joint_names
    tip = robot.link_names[robot.joint('Left_index_q2').child]
    with pytest.raises(JointError, match="'Left_index_q2'.*unknown joint 'index_q1'"):
        robot.jacobian(np.zeros(robot.n), tip)
    arm_tip = robot.link_names[robot.joint('Left_index_q2').parent]
    assert robot.jacobian(np.zeros(robot.n), arm_tip).shape == (6, robot.n)


@pytest.mark.skipif(not FILES, reason=NO_DATA)
def test_counts_against_pinocchio():
    """The loaded count is Pinocchio's; every refusal is listed in REFUSED with its reason."""
    pytest.importorskip('pinocchio')
    ours, theirs = set(), set()
    for rel, path in FILES:
        if _pinocchio_model(path) is not None:
            theirs.add(rel)
        try:
            _load(path)
            ours.add(rel)
        except PDLSIKError:
            pass
    assert theirs <= ours
    assert {rel for rel, _ in FILES} - ours == set(REFUSED)
    print(f'example-robot-data: {len(FILES)} URDFs, pdls_ik loads {len(ours)}, '
          f'Pinocchio (urdfdom) loads {len(theirs)}')
