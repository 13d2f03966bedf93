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
Write config/panda_collision.yaml: capsules fitted to example-robot-data's Panda collision meshes.

Needs ``pip install example-robot-data trimesh``. The meshes and SRDF are those of
example-robot-data's ``panda_description`` (Apache-2.0, Franka Emika GmbH); only the fitted
capsules are bundled. Run: ``python benchmarks/fit_panda_collision.py``.
"""
from pathlib import Path
import sys

from pdls_ik.model import load_urdf
from pdls_ik.model.collision import CollisionModel
from pdls_ik.model.collision_geometry import example_robot_data_share
from pdls_ik.resources import bundled_urdf

HEADER = """# Franka Emika Panda self-collision model for pdls_ik (bundled urdf/panda.urdf; the
# same link frames as example-robot-data's panda_description). Capsules fitted by
# benchmarks/fit_panda_collision.py (trimesh, 3 per mesh; the fingers' boxes bounded exactly)
# to the collision meshes of example-robot-data's robots/panda_description (Apache-2.0,
# Franka Emika GmbH; see its LICENSE); skip_pairs: its SRDF's disable_collisions entries.
# No mesh is bundled.
"""


def main() -> int:
    share = example_robot_data_share()
    if share is None:
        print('pip install example-robot-data trimesh first', file=sys.stderr)
        return 2
    desc = share / 'robots' / 'panda_description'
    robot = load_urdf(bundled_urdf('panda'))
    model = CollisionModel.from_urdf(robot, desc / 'urdf' / 'panda.urdf',
                                     srdf=desc / 'srdf' / 'panda.srdf', neutral=False)
    out = Path(__file__).resolve().parents[1] / 'config' / 'panda_collision.yaml'
    model.save(out)
    out.write_text(HEADER + out.read_text())
    print('\n'.join(model.report()))
    print(f'wrote {out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
