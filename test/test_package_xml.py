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

"""package.xml tells rosdep every module the package imports at run time."""
import ast
from pathlib import Path
import sys
import xml.etree.ElementTree as ET

ROOT = Path(__file__).resolve().parents[1]

#: top-level module -> its rosdep key (keys checked in ros/rosdistro's rosdep/*.yaml, 2026-12),
#: or None: optional, with the reason (the code says so where it is imported)
MODULES = {
    'numpy': 'python3-numpy', 'scipy': 'python3-scipy', 'yaml': 'python3-yaml',
    'numba': 'python3-numba', 'llvmlite': 'python3-numba',
    'matplotlib': 'python3-matplotlib', 'tqdm': 'python3-tqdm',
    'rosbags': 'python3-rosbags-pip', 'trimesh': 'python3-trimesh-pip',
    'urdf_parser_py': 'urdfdom_py', 'xacro': 'xacro', 'rclpy': 'rclpy',
    'ament_index_python': 'ament_index_python', 'interactive_markers': 'interactive_markers',
    'rcl_interfaces': 'rcl_interfaces', 'std_msgs': 'std_msgs', 'geometry_msgs': 'geometry_msgs',
    'sensor_msgs': 'sensor_msgs', 'trajectory_msgs': 'trajectory_msgs',
    'diagnostic_msgs': 'diagnostic_msgs', 'visualization_msgs': 'visualization_msgs',
    'moveit_msgs': 'moveit_msgs', 'PIL': 'python3-pil',
    'zarr': None, 'distributed': None, 'dask': None,   # `pdls-ik reach` only (the reach extra)
}


def _imports():
    found = {}
    for path in (ROOT / 'pdls_ik').rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split('.')[0], path.relative_to(ROOT))
    return found


def test_every_third_party_import_has_a_declared_rosdep_key():
    stdlib = set(sys.stdlib_module_names) | {'__future__'}
    third_party = {m: p for m, p in _imports().items() if m not in stdlib and m != 'pdls_ik'}
    unknown = {m: str(p) for m, p in third_party.items() if m not in MODULES}
    assert unknown == {}, f'imports without a rosdep key in this table: {unknown}'
    declared = {e.text.strip() for e in ET.parse(ROOT / 'package.xml').getroot()
                if e.tag in ('exec_depend', 'depend')}
    missing = {m: k for m, k in MODULES.items() if k and m in third_party and k not in declared}
    assert missing == {}, f'package.xml lacks these exec_depend keys: {missing}'
