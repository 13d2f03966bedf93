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

"""``--self-collision``, ``--srdf``, ``--mesh-path`` of ``pdls-ik ik`` and ``demo``."""
import json
import re

from conftest import REPO
import numpy as np
from pdls_ik import load_urdf
from pdls_ik.cli import main
from pdls_ik.model.collision import collision_model
import pytest

BASE_GOAL = ['0.05', '0', '0.08', '1', '0', '0', '0']    # inside the base's capsules


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert 'Traceback' not in out + err
    return code, out, err


def test_ik_keeps_the_links_apart(capsys):
    panda = load_urdf(REPO / 'urdf' / 'panda.urdf')
    model = collision_model(panda)
    code, out, _ = _run(capsys, 'ik', 'panda', '--pose', *BASE_GOAL, '--position-only',
                        '--timeout', '0.2', '--self-collision')
    assert code == 1 and out.startswith('NO SOLUTION') and 'task self_collision error: 0' in out
    code, out, _ = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0',
                        '0', '--timeout', '1', '--self-collision', '--d-min', '0.02', '--json')
    data = json.loads(out)
    assert code == 0 and data['success']
    q = np.array([data['q'][name] for name in panda.joint_names])
    assert model.distances(q).distance.min() >= 0.02 - 1e-6


@pytest.mark.parametrize('argv, fragment', [
    (['--srdf', 'x.srdf'], '--srdf and --mesh-path need --self-collision'),
    (['--self-collision', '--srdf', '/no/such.srdf'], "SRDF '/no/such.srdf': cannot read"),
    (['--self-collision', '/no/model.yaml'], "collision model '/no/model.yaml': cannot read"),
])
def test_bad_collision_options_exit_2_with_one_line(capsys, argv, fragment):
    code, _, err = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0',
                        '0', *argv)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_robot_without_collision_geometry_exit_2(capsys):
    code, _, err = _run(capsys, 'ik', 'ur5', '--pose', '0.4', '0.1', '0.5', '1', '0', '0', '0',
                        '--self-collision')
    assert code == 2 and 'no usable <collision> geometry' in err


def test_demo_reports_the_closest_pair(capsys, tmp_path):
    code, out, _ = _run(capsys, 'demo', '--self-collision', '--duration', '0.3', '--out',
                        str(tmp_path))
    found = re.search(r'closest link pair: +(\S+) / (\S+) at ([0-9.]+) m \(d_min 0.01 m; 0 cycles below it\)', out)
    assert code == 0 and found and float(found.group(3)) >= 0.01


def test_pairs_in_contact_at_neutral_are_reported(capsys, tmp_path):
    import yaml
    data = yaml.safe_load((REPO / 'config' / 'panda_collision.yaml').read_text())
    # a base sphere reaching link 5 at the middle of the limits: that pair cannot be checked
    data['capsules']['panda_link0'].append({'center': [0, 0, 0.5], 'radius': 0.4})
    (tmp_path / 'm.yaml').write_text(yaml.safe_dump(data))
    code, _, err = _run(capsys, 'ik', 'panda', '--pose', '0.4', '0.1', '0.5', '1', '0', '0',
                        '0', '--timeout', '1', '--self-collision', str(tmp_path / 'm.yaml'))
    assert code != 2                   # solved or not: the goal lies inside that sphere
    assert 'note: panda_link0 / panda_link5: in contact at the neutral configuration' in err
