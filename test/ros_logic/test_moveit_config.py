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

"""config/kinematics.yaml (MoveIt) for the bundled Panda, and the README lines quoting it."""
from pathlib import Path

from pdls_ik.config import IKConfig, MOVEIT_ALIASES
from pdls_ik.model import load_urdf
from pdls_ik.model.srdf import load_srdf
from pdls_ik.resources import bundled_srdf, bundled_urdf, config_file
from pdls_ik.ros_logic.groups import chain_group
import yaml

#: the plugin's class name (moveit_plugin/pdls_ik_kinematics_plugin.xml)
PLUGIN = 'pdls_ik/PDLSKinematicsPlugin'


def test_kinematics_yaml_names_pdls_ik_s_plugin_for_an_srdf_chain_group():
    doc = yaml.safe_load(config_file('kinematics.yaml').read_text())
    srdf = load_srdf(bundled_srdf('panda'))
    linkage = load_urdf(bundled_urdf('panda'))
    for group, entry in doc.items():
        assert entry['kinematics_solver'] == PLUGIN
        assert IKConfig.from_dict({'kinematics_solver_timeout':
                                   entry['kinematics_solver_timeout']}).timeout > 0.0
        resolved = srdf.resolve(linkage, group)
        # a chain group: MoveIt gives the plugin one tip, the group's last link
        chain = chain_group(linkage, resolved.base_link, resolved.tip_link)
        assert chain.variable_names == resolved.variable_names
    assert 'kinematics_solver_timeout' in MOVEIT_ALIASES


def test_readme_quotes_the_shipped_kinematics_yaml():
    readme = (Path(__file__).resolve().parents[2] / 'README.md').read_text()
    section = readme[readme.index('## Use with MoveIt'):]
    body = [line for line in config_file('kinematics.yaml').read_text().splitlines()
            if line and not line.startswith('#')]
    for line in body:
        assert line in section, line
