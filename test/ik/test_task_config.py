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

"""YAML / dict configuration of closures and extra tasks: keys, defaults, errors naming keys."""
from __future__ import annotations

from conftest import REPO
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.errors import ConfigError
from pdls_ik.ik.task_config import load_task_config, TASK_TYPES, TaskConfig
from pdls_ik.model.floating import FloatingBase
from pdls_ik.tasks import (ClosureTask, CoMTask, FrameTask, JointLockTask, LimitAvoidanceTask,
                           LookAtTask, PositionBoundTask, PostureTask, PotentialEnergyTask,
                           RelativeFrameTask)
import pytest

EVERY_TYPE = {
    'floating_base': False, 'limit_strategy': 'pgs', 'solve_groups': True,
    'fixed_joints': ['torso_yaw'],
    'closures': [{'link_a': 'l_tool', 'link_b': 'r_tool', 'mode': 'pose',
                  'frame_a': {'position': [0, 0.1, 0], 'orientation': [0, 0, 0, 1]}}],
    'tasks': [
        {'type': 'frame', 'link': 'l_tool', 'position': [0.3, 0.2, 0.8], 'priority': 2,
         'orientation_mask': [False, False, False]},
        {'type': 'relative_frame', 'link': 'l_tool', 'relative_to': 'r_tool',
         'position': [0, 0.2, 0], 'orientation': [0, 0, 0, 1]},
        {'type': 'com', 'target': [0, 0, 0], 'axes': [True, True, False]},
        {'type': 'look_at', 'link': 'l_tool', 'target': [1, 0, 1], 'axis': 'z'},
        {'type': 'position_bound', 'link': 'r_tool', 'normal': [0, 0, 1], 'offset': 0.3},
        {'type': 'limit_avoidance', 'fraction': 0.1},
        {'type': 'joint_lock', 'joints': ['l_wrist_roll'], 'positions': [0.2]},
        {'type': 'posture', 'weight': 0.05},
        {'type': 'potential', 'stiffness': [0.0] * 10 + [1.0], 'priority': 3},
    ]}


def test_every_task_type_builds(tmp_path):
    import yaml
    path = tmp_path / 'tasks.yaml'
    path.write_text(yaml.safe_dump({'pdls_ik_tasks': EVERY_TYPE}))
    cfg = load_task_config(path)
    assert cfg.limit_strategy == 'pgs' and cfg.solve_groups and cfg.fixed_joints == ['torso_yaw']
    tasks = cfg.build(load_urdf(REPO / 'urdf' / 'bimanual.urdf'))
    assert [type(t) for t in tasks] == [ClosureTask, FrameTask, RelativeFrameTask, CoMTask,
                                        LookAtTask, PositionBoundTask, LimitAvoidanceTask,
                                        JointLockTask, PostureTask, PotentialEnergyTask]
    assert set(TASK_TYPES) == {e['type'] for e in EVERY_TYPE['tasks']}
    assert tasks[1].priority == 2 and np.allclose(tasks[1].target_position, (0.3, 0.2, 0.8))
    assert np.allclose(tasks[0].p_af, (0, 0.1, 0))
    assert tasks[7].values.tolist() == [0.2]
    assert tasks[9].priority == 3 and tasks[9].k[-1] == 1.0 and tasks[9].optional


def test_bundled_fourbar_config_and_floating_robot():
    cfg = load_task_config(REPO / 'config' / 'fourbar_closures.yaml')
    assert len(cfg.closures) == 1 and cfg.closures[0]['mode'] == 'position'
    robot = FloatingBase(load_urdf(REPO / 'urdf' / 'humanoid.urdf'))
    tasks = TaskConfig.from_dict({'floating_base': True, 'tasks': [
        {'type': 'com', 'target': [0, 0, 0]},
        {'type': 'frame', 'link': 'l_sole', 'position': [0, 0.08, 0]}]}).build(robot)
    assert tasks[0].compute(np.zeros(robot.nv))[1].shape == (2, 29)


@pytest.mark.parametrize('data, key', [
    ({'closure': []}, r'config\.closure: unknown key'),
    ({'tasks': [{'type': 'gaze', 'link': 'x'}]}, r'tasks\[0\]\.type'),
    ({'tasks': [{'type': 'frame', 'link': 'l_tool'}]}, r'tasks\[0\]\.position: required'),
    ({'tasks': [{'type': 'com', 'target': [0, 0, 0], 'colour': 1}]}, r'tasks\[0\]\.colour'),
    ({'tasks': ['com']}, r'tasks\[0\]: expected a mapping'),
    ({'limit_strategy': 'magic'}, r'limit_strategy'),
    ({'solve_groups': 'yes'}, r'solve_groups'),
    ({'fixed_joints': 'torso_yaw'}, r'fixed_joints'),
    ({'closures': [{'link_a': 'a'}]}, r'closures\[0\]\.link_b'),
])
def test_bad_keys_are_named(data, key):
    with pytest.raises(ConfigError, match=key):
        TaskConfig.from_dict(data)


def test_bad_values_name_the_entry_and_the_element():
    robot = load_urdf(REPO / 'urdf' / 'bimanual.urdf')
    cases = [({'tasks': [{'type': 'frame', 'link': 'elbow', 'position': [0, 0, 0]}]},
              r"tasks\[0\] \(FrameTask\).*'elbow'"),
             ({'tasks': [{'type': 'joint_lock', 'joints': ['knee'], 'positions': [0]}]},
              r"tasks\[0\] \(JointLockTask\).*'knee'"),
             ({'tasks': [{'type': 'limit_avoidance', 'fraction': 0.9}]},
              r'tasks\[0\].*fraction')]
    for data, key in cases:
        with pytest.raises(ConfigError, match=key):
            TaskConfig.from_dict(data).build(robot)


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match='cannot read'):
        load_task_config(tmp_path / 'missing.yaml')
    bad = tmp_path / 'bad.yaml'
    bad.write_text('tasks: [unclosed\n')
    with pytest.raises(ConfigError, match='invalid YAML'):
        load_task_config(bad)
