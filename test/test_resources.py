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

"""Locating bundled robots and config files."""
from __future__ import annotations

from pathlib import Path
import sys

from pdls_ik import resources
from pdls_ik.model import load_urdf
import pytest


def test_bundled_robots_are_found_and_load():
    for name, (filename, tip) in resources.BUNDLED_ROBOTS.items():
        path = resources.bundled_urdf(name)
        assert path.name == filename and path.is_file()
        assert resources.bundled_urdf(filename) == path
        assert tip in load_urdf(path).link_names


def test_search_order_ends_with_prefix_user_and_checkout():
    dirs = resources.share_dirs()
    checkout = Path(resources.__file__).resolve().parents[1]
    assert dirs[-1] == checkout
    assert Path(sys.prefix) / 'share' / 'pdls_ik' in dirs
    assert dirs.index(Path(sys.prefix) / 'share' / 'pdls_ik') < dirs.index(checkout)


def test_earlier_share_dir_wins(tmp_path, monkeypatch):
    (tmp_path / 'urdf').mkdir()
    (tmp_path / 'urdf' / 'ur5.urdf').write_text("<robot name='x'/>")
    real = resources.share_dirs
    monkeypatch.setattr(resources, 'share_dirs', lambda: [tmp_path] + real())
    assert resources.bundled_urdf('ur5') == tmp_path / 'urdf' / 'ur5.urdf'
    assert resources.bundled_urdf('panda').parent != tmp_path / 'urdf'


def test_unknown_names_raise_file_not_found_listing_choices(tmp_path):
    with pytest.raises(FileNotFoundError, match='panda, ur5, bimanual'):
        resources.bundled_urdf('kuka')
    with pytest.raises(FileNotFoundError, match='not found'):
        resources.config_file('no_such_config.yaml')
    with pytest.raises(FileNotFoundError, match='bundled robot'):
        resources.urdf_path(tmp_path / 'missing.urdf')


def test_urdf_path_prefers_existing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resources.urdf_path('panda') == resources.bundled_urdf('panda')
    (tmp_path / 'panda').write_text('<robot/>')
    assert resources.urdf_path('panda') == Path('panda')


def test_ament_share_directory_comes_first(tmp_path, monkeypatch):
    """With ROS 2 sourced, the ament index share directory (colcon install) is searched first."""
    import types
    (tmp_path / 'urdf').mkdir()
    (tmp_path / 'urdf' / 'panda.urdf').write_text("<robot name='x'/>")
    packages = types.ModuleType('ament_index_python.packages')
    packages.PackageNotFoundError = KeyError
    packages.get_package_share_directory = lambda name: str(tmp_path) if name == 'pdls_ik' \
        else None
    monkeypatch.setitem(sys.modules, 'ament_index_python', types.ModuleType('ament_index_python'))
    monkeypatch.setitem(sys.modules, 'ament_index_python.packages', packages)
    assert resources.share_dirs()[0] == tmp_path
    assert resources.bundled_urdf('panda') == tmp_path / 'urdf' / 'panda.urdf'
