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
Forward kinematics and Jacobian timings of the bundled Panda, beside Pinocchio.

Run: ``python benchmarks/bench_fk.py [--repeat N]``. Prints µs per call for a full FK (all links),
a single-link FK, a Jacobian and the fused pose + Jacobian (tip panda_link8, base panda_link0),
for pdls_ik and for Pinocchio (forwardKinematics + updateFramePlacements, forwardKinematics +
updateFramePlacement, computeFrameJacobian, both), and the ratio pdls_ik / Pinocchio.
"""
from __future__ import annotations

import argparse
from pathlib import Path
import sys
import timeit

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pdls_ik.model import load_urdf  # noqa: E402
from pdls_ik.resources import bundled_urdf  # noqa: E402

TIP = 'panda_link8'


def best_us(fn, repeat: int, number: int) -> float:
    """Best of ``repeat`` runs of ``number`` calls, in µs per call."""
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=7)
    parser.add_argument('--number', type=int, default=2000)
    args = parser.parse_args()

    path = bundled_urdf('panda')
    robot = load_urdf(path)
    q = np.random.default_rng(0).uniform(np.maximum(robot.lower, -2), np.minimum(robot.upper, 2))
    ours = {
        'full FK (all links)': lambda: robot.forward_kinematics_all(q),
        'single-link FK': lambda: robot.forward_kinematics(q, TIP),
        'Jacobian': lambda: robot.jacobian(q, TIP),
        'pose_and_jacobian': lambda: robot.pose_and_jacobian(q, TIP),
    }
    theirs = {}
    try:
        import pinocchio as pin
        model = pin.buildModelFromXML(path.read_text())
        data = model.createData()
        fid = model.getFrameId(TIP)
        qp = pin.neutral(model)
        for i, name in enumerate(robot.joint_names):
            qp[model.idx_qs[model.getJointId(name)]] = q[i]
        frame = pin.LOCAL_WORLD_ALIGNED

        def full():
            pin.forwardKinematics(model, data, qp)
            pin.updateFramePlacements(model, data)

        def single():
            pin.forwardKinematics(model, data, qp)
            return pin.updateFramePlacement(model, data, fid)

        def both():
            pin.forwardKinematics(model, data, qp)
            return (pin.updateFramePlacement(model, data, fid),
                    pin.computeFrameJacobian(model, data, qp, fid, frame))

        theirs = {'full FK (all links)': full, 'single-link FK': single,
                  'Jacobian': lambda: pin.computeFrameJacobian(model, data, qp, fid, frame),
                  'pose_and_jacobian': both}
        single()
        assert np.allclose(data.oMf[fid].homogeneous, robot.forward_kinematics(q, TIP))
    except ImportError:
        print('pinocchio not installed (pip install pin): pdls_ik figures only')

    print(f'Panda ({robot.n} variables, tip {TIP}); µs per call, best of {args.repeat} × '
          f'{args.number}')
    print(f"{'operation':<22} {'pdls_ik':>9} {'pinocchio':>10} {'ratio':>7}")
    for name, fn in ours.items():
        mine = best_us(fn, args.repeat, args.number)
        if name in theirs:
            ref = best_us(theirs[name], args.repeat, args.number)
            print(f'{name:<22} {mine:>9.2f} {ref:>10.2f} {mine / ref:>7.1f}')
        else:
            print(f'{name:<22} {mine:>9.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
