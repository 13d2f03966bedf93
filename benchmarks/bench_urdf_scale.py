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
Loading time of large and real URDFs: a 1,200-joint chain, a 3,000-link tree, example-robot-data.

Run: ``python benchmarks/bench_urdf_scale.py``. Prints, per description, the seconds of
``load_urdf``, of one full FK (all links), of one FK of the deepest link and of
``pdls-ik info`` (output discarded); then the slowest example-robot-data files, when installed.
"""
from __future__ import annotations

import contextlib
from importlib import metadata
import io
from pathlib import Path
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdls_ik.cli import main as cli  # noqa: E402
from pdls_ik.model import load_urdf  # noqa: E402

JOINT = ('<link name="l{i}"/><joint name="j{i}" type="revolute"><parent link="l{p}"/>'
         '<child link="l{i}"/><origin xyz="0.01 0 0.01" rpy="0 0.001 0"/><axis xyz="0 0 1"/>'
         '<limit lower="-1" upper="1" effort="1" velocity="1"/>'
         '<dynamics damping="0.1"/></joint>')
VISUAL = '<visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual>'


def description(links: int, parent) -> str:
    """URDF text with ``links`` links, link i hanging from ``parent(i)``."""
    body = ''.join(JOINT.format(i=i, p=parent(i)).replace('"/><joint', f'">{VISUAL}</link>'
                                                          '<joint', 1)
                   for i in range(1, links))
    return f'<robot name="scale"><link name="l0"/>{body}</robot>'


def seconds(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(label: str, path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        load = seconds(lambda: load_urdf(path))
        robot = load_urdf(path)
        q = np.zeros(robot.n)
        fk_all = seconds(lambda: robot.forward_kinematics_all(q))
        deepest = robot.link_names[robot.joints[-1].child]
        fk = seconds(lambda: robot.forward_kinematics(q, deepest))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            info = seconds(lambda: cli(['info', str(path)]))
    print(f'{label:<44} {robot.n:>5} dof {len(robot.link_names):>5} links  load {load:7.3f} s  '
          f'FK all {fk_all:7.4f} s  FK {fk:7.4f} s  info {info:6.2f} s')


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        for label, links, parent in (('chain, 1,200 joints', 1201, lambda i: i - 1),
                                     ('tree, 3,000 links', 3000, lambda i: (i - 1) // 3)):
            path = Path(folder) / 'scale.urdf'
            path.write_text(description(links, parent))
            measure(label, path)
    try:
        dist = metadata.distribution('example-robot-data')
    except metadata.PackageNotFoundError:
        print('example-robot-data not installed: pip install example-robot-data')
        return 0
    mark = 'share/example-robot-data/robots/'
    real = ('talos_full_v2.urdf', 'pr2.urdf', 'icub.urdf', 'tiago_pro.urdf', 'romeo.urdf')
    for f in sorted(dist.files or [], key=str):
        if mark in str(f) and str(f).endswith(real):
            measure(str(f).split(mark)[1], Path(dist.locate_file(f)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
