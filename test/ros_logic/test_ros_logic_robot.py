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

"""Robot building for the node: description + config (and tasks file) -> checked robot."""
import math

from conftest import REPO
import numpy as np
from pdls_ik.config import IKConfig
from pdls_ik.errors import ConfigError, LinkError, URDFError
from pdls_ik.model.srdf import load_srdf
from pdls_ik.resources import bundled_srdf, bundled_urdf
from pdls_ik.ros_logic.collision_setup import collision_settings, collision_status
from pdls_ik.ros_logic.parameters import apply_changes
from pdls_ik.ros_logic.robot import build_robot
import pytest
from ros_support import panda_robot


def test_panda_robot_links_and_default_q():
    robot = panda_robot()
    assert robot.base_link == 'panda_link0' and robot.tip_link == 'panda_link8'
    assert robot.joint_names == [f'panda_joint{i}' for i in range(1, 8)] + \
        ['panda_finger_joint1']
    lower, upper = robot.linkage.lower, robot.linkage.upper
    np.testing.assert_allclose(robot.default_q(), 0.5 * (lower + upper), atol=0)
    assert robot.solver().tip_link == 'panda_link8'
    assert robot.solver('panda_hand').tip_link == 'panda_hand'


def test_the_node_solvers_come_with_their_kernels_loaded():
    """The first goal of a node never waits for numba (IKSolver.warm_up at build)."""
    from pdls_ik._accel import available
    solver = panda_robot().solver()
    kernels = [k for k in (solver._kernel, solver._track_kernel) if k is not None]
    assert len(kernels) == (2 if available() else 0)
    assert all(k.ready for k in kernels)


@pytest.mark.parametrize('changes, error, text', [
    ({'tip_link': ''}, ConfigError, 'tip_link'),
    ({'tip_link': 'gripper_of_doom'}, LinkError, 'gripper_of_doom'),
    ({'base_link': 'world2'}, LinkError, 'world2'),
])
def test_bad_links_rejected(changes, error, text):
    config = IKConfig(tip_link='panda_link8').replace(**changes)
    with pytest.raises(error, match=text):
        build_robot(bundled_urdf('panda').read_text(), config)


def test_an_unknown_tip_names_the_candidates():
    config = IKConfig(tip_link='panda_hnd')
    with pytest.raises(LinkError) as info:
        build_robot(bundled_urdf('panda').read_text(), config)
    assert str(info.value) == (
        "link 'panda_hnd': unknown link (not found in robot 'panda'; closest names: "
        'panda_hand, panda_hand_tcp, panda_link8; the tips of its tree: panda_hand_tcp, '
        'panda_leftfinger, panda_rightfinger)')


@pytest.mark.parametrize('text', ['', "<robot name='r'><link name='a'/>", 'not xml at all'])
def test_bad_description_rejected(text):
    with pytest.raises(URDFError):
        build_robot(text, IKConfig(tip_link='a'))


def test_continuous_joint_default_is_zero():
    urdf = """<robot name="wheel"><link name="base"/><link name="w"/>
      <joint name="spin" type="continuous"><parent link="base"/><child link="w"/>
      <axis xyz="0 0 1"/></joint></robot>"""
    robot = build_robot(urdf, IKConfig(tip_link='w', position_only=True))
    np.testing.assert_array_equal(robot.default_q(), [0.0])


CLOSURE_YAML = """pdls_ik_tasks:
  closures:
    - {name: loop_B, link_a: rocker, link_b: coupler, frame_a: [0.2, 0, 0],
       frame_b: [0.25, 0, 0], mode: position, tolerance: 1.0e-12}
"""


def _fourbar_robot(tasks_file):
    config = IKConfig(tip_link='crank', tasks_file=str(tasks_file))
    return build_robot(str(REPO / 'urdf' / 'fourbar.urdf'), config)


def test_tasks_file_gives_every_solver_the_closure(tmp_path):
    path = tmp_path / 'closure.yaml'
    path.write_text(CLOSURE_YAML)
    robot = _fourbar_robot(path)
    solver = robot.solver()
    assert solver.level_names == ['loop_B', 'pose:crank']
    assert solver.extra_tasks is not robot.solver().extra_tasks  # one task set per solver
    res = solver.solve(([0, 0, 0], [0, 0, math.sin(0.25), math.cos(0.25)]), timeout=5.0)
    assert res.success and res.task_errors['loop_B'] < 1e-9
    assert abs(res.q[0] - 0.5) < 1e-6


@pytest.mark.parametrize('text, fragment', [
    (None, r"parameter 'tasks_file': task config .*missing.yaml.*cannot read"),
    ('closures: [{link_a: rocker, link_b: coupler, fram_a: [0, 0, 0]}]',
     r"parameter 'tasks_file'.*closures\[0\]\.fram_a: unknown key"),
    ('tasks: [{type: frame, link: crank, position: [0, 0, 0], priority: high}]',
     r"parameter 'tasks_file'.*tasks\[0\].*priority"),
    ('closures: [{link_a: rocker, link_b: no_such_link}]',
     r"parameter 'tasks_file'.*closures\[0\].*no_such_link"),
    ('floating_base: true', r"parameter 'tasks_file'.*floating_base"),
    ('closures: [', r"parameter 'tasks_file'.*invalid YAML"),
])
def test_bad_tasks_file_is_a_config_error_naming_the_key(tmp_path, text, fragment):
    path = tmp_path / 'missing.yaml'
    if text is not None:
        path = tmp_path / 'tasks.yaml'
        path.write_text(text)
    with pytest.raises(ConfigError, match=fragment):
        _fourbar_robot(path)


def test_runtime_tasks_file_change_refused_whole(tmp_path):
    """A bad tasks_file change: the config is valid, the robot build refuses it (node rule)."""
    good = tmp_path / 'closure.yaml'
    good.write_text(CLOSURE_YAML)
    robot = _fourbar_robot(good)
    config, reason = apply_changes(robot.config, {'tasks_file': str(tmp_path / 'gone.yaml')})
    assert reason == '' and config.tasks_file.endswith('gone.yaml')
    with pytest.raises(ConfigError, match='tasks_file'):
        build_robot(robot.description, config)
    assert robot.solver().level_names == ['loop_B', 'pose:crank']     # previous robot intact


def test_collision_parameters_build_the_level():
    settings = collision_settings({'self_collision': True, 'collision_d_min': 0.02,
                                   'mesh_path': ['']})
    assert settings.enabled and settings.d_min == 0.02 and settings.mesh_path == ()
    srdf = load_srdf(bundled_srdf('panda').read_text())
    robot = build_robot(bundled_urdf('panda').read_text(), IKConfig(tip_link='panda_link8'),
                        settings, srdf)
    assert ('panda_link0', 'panda_link7') in robot.collision.pairs
    assert robot.collision.skipped[('panda_link5', 'panda_link7')] in ('srdf', 'adjacent')
    assert 'srdf' in robot.collision.skipped.values()
    assert collision_status(robot) == ('ok', f'on: {robot.collision.report()[0]}, d_min 0.02 m')
    tracking, one_shot = robot.solver(), robot.solver(one_shot=True)
    assert tracking.level_names[0] == one_shot.level_names[0] == 'self_collision'
    gains = [s.extra_tasks[0].gain for s in (tracking, one_shot)]
    # the damper of 100 Hz, rows 2 mm above d_min
    assert gains[0] == pytest.approx(0.5 * 0.01 / (0.1 - 0.022)) and gains[1] == 1.0
    assert [s.extra_tasks[0].margin for s in (tracking, one_shot)] == [0.002, 0.0]
    assert tracking.extra_tasks[0].d_min == 0.02


def test_bad_collision_parameters_are_reported_not_fatal():
    with pytest.raises(ConfigError, match="parameter 'collision_d_min'"):
        collision_settings({'collision_d_min': -0.1})
    robot = build_robot(bundled_urdf('panda').read_text(), IKConfig(tip_link='panda_link8'),
                        collision_settings({'self_collision': True,
                                            'collision_model': '/no/model.yaml'}))
    assert robot.collision is None
    level, message = collision_status(robot)
    assert level == 'error' and "parameter 'collision_model' (/no/model.yaml)" in message
    assert 'cannot read it' in message
    assert robot.solver().level_names == ['pose:panda_link8']      # runs on without the level
