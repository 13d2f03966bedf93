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
Launch set-up without ROS.

Descriptions (xacro), links from config and arguments, and the one-line messages for missing
packages.
"""
import builtins
import sys

from pdls_ik.resources import bundled_urdf, config_file
from pdls_ik.ros_logic import launch_setup
from pdls_ik.ros_logic.launch_setup import (as_bool, LaunchSetupError, missing_message,
                                            missing_packages, read_description, required_packages,
                                            resolve_links, tasks_file_parameter)
import pytest

PANDA = bundled_urdf('panda')


def test_read_plain_urdf_and_missing_file(tmp_path):
    assert read_description(str(PANDA)) == PANDA.read_text()
    with pytest.raises(LaunchSetupError, match='urdf: file not found: .*nope.urdf'):
        read_description(str(tmp_path / 'nope.urdf'))


def test_xacro_without_xacro_named_in_one_line(tmp_path, monkeypatch):
    file = tmp_path / 'robot.urdf.xacro'
    file.write_text(PANDA.read_text())
    real_import = builtins.__import__

    def no_xacro(name, *args, **kwargs):
        if name == 'xacro':
            raise ImportError('no xacro')
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, 'xacro', raising=False)
    monkeypatch.setattr(builtins, '__import__', no_xacro)
    monkeypatch.setattr(launch_setup.shutil, 'which', lambda name: None)
    with pytest.raises(LaunchSetupError) as info:
        read_description(str(file))
    assert 'xacro is not installed' in str(info.value) and '\n' not in str(info.value)


def test_xacro_command_used_when_module_missing(tmp_path, monkeypatch):
    file = tmp_path / 'robot.urdf.xacro'
    file.write_text('<robot/>')
    script = tmp_path / 'xacro'
    script.write_text(f'#!/bin/sh\ncat {PANDA}\n')
    script.chmod(0o755)
    monkeypatch.setitem(sys.modules, 'xacro', None)  # import xacro -> ImportError
    monkeypatch.setattr(launch_setup.shutil, 'which', lambda name: str(script))
    assert read_description(str(file)) == PANDA.read_text()


def test_links_from_config_arguments_and_root():
    text, config = PANDA.read_text(), str(config_file('pdls_ik.yaml'))
    assert resolve_links(text, config) == launch_setup.Links('panda_link0', 'panda_link8')
    assert resolve_links(text, config, 'panda_link1', 'panda_hand') == \
        launch_setup.Links('panda_link1', 'panda_hand')
    with pytest.raises(LaunchSetupError, match="'tool0'"):
        resolve_links(text, config, tip_link='tool0')


def test_bad_config_file_one_line(tmp_path):
    bad = tmp_path / 'bad.yaml'
    bad.write_text('pdls_ik_node:\n  ros__parameters:\n    timeout: -1.0\n')
    with pytest.raises(LaunchSetupError, match='timeout'):
        resolve_links(PANDA.read_text(), str(bad))
    with pytest.raises(LaunchSetupError, match='missing.yaml'):
        resolve_links(PANDA.read_text(), str(tmp_path / 'missing.yaml'))


def test_missing_packages_message():
    assert required_packages(True, True) == ['robot_state_publisher', 'rviz2']
    assert required_packages(False, False) == []
    missing = missing_packages(['robot_state_publisher', 'rviz2'], lambda n: n != 'rviz2')
    assert missing == ['rviz2']
    assert missing_message(missing, 'pdls_ik.launch.py') == (
        'pdls_ik.launch.py: ROS package(s) not installed: rviz2 (install them, or run '
        'without: use_rviz:=false)')


@pytest.mark.parametrize('text, value', [('true', True), ('False', False), ('1', True),
                                         ('no', False)])
def test_as_bool(text, value):
    assert as_bool(text, 'use_rviz') is value


def test_as_bool_rejects_other_text():
    with pytest.raises(LaunchSetupError, match="use_rviz: expected true or false, got 'maybe'"):
        as_bool('maybe', 'use_rviz')


def test_tasks_file_argument_checked_and_made_absolute(tmp_path, monkeypatch):
    assert tasks_file_parameter('') == {}
    closures = config_file('fourbar_closures.yaml')
    assert tasks_file_parameter(str(closures)) == {'tasks_file': str(closures.resolve())}
    monkeypatch.chdir(closures.parent)
    assert tasks_file_parameter(closures.name) == {'tasks_file': str(closures.resolve())}
    with pytest.raises(LaunchSetupError, match='tasks_file: file not found: .*nope.yaml'):
        tasks_file_parameter(str(tmp_path / 'nope.yaml'))
    bad = tmp_path / 'bad.yaml'
    bad.write_text('tasks: [{type: com, targt: [0, 0, 0]}]\n')
    with pytest.raises(LaunchSetupError, match=r'tasks_file: tasks\[0\]\.targt: unknown key'):
        tasks_file_parameter(str(bad))


def test_srdf_argument_checked_against_the_robot(tmp_path):
    from pdls_ik.resources import bundled_srdf
    from pdls_ik.ros_logic.launch_setup import srdf_parameter
    panda = bundled_urdf('panda').read_text()
    assert srdf_parameter('', panda) == {}
    text = bundled_srdf('panda').read_text()
    assert srdf_parameter(str(bundled_srdf('panda')), panda) == \
        {'robot_description_semantic': text}
    with pytest.raises(LaunchSetupError, match='srdf: file not found'):
        srdf_parameter(str(tmp_path / 'none.srdf'), panda)
    other = tmp_path / 'bimanual.srdf'
    other.write_text(bundled_srdf('bimanual').read_text())
    with pytest.raises(LaunchSetupError, match=r"srdf: .*group 'left_arm' .*link 'torso' is not "
                                               r"a link of robot 'panda'"):
        srdf_parameter(str(other), panda)
