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
Run the whole suite and write ``results/benchmarks.{json,md,png}`` (and the console tables).

    python benchmarks/run_all.py --quick          # about half a minute (12 s of CPU)
    python benchmarks/run_all.py                  # the full protocols (N = 1000; ~1 hour)
    python benchmarks/run_all.py --only oneshot batch --out /tmp/results

The JSON holds the machine (date, CPU, load, BLAS environment), the package versions and every
row of every protocol; the Markdown is the tables of the README's Performance section; the PNG
plots one-shot success and mean time per solver, tracking cycle times, scaling and batch
throughput.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
import sys
import time
from typing import Dict

import batch
from common import machine, versions
import oneshot
import scaling
import tracking

PROTOCOLS = ('oneshot', 'tracking', 'scaling', 'batch')


def run(quick: bool, only=PROTOCOLS, n=None, log=print) -> Dict:
    """Run the selected protocols; returns the results document."""
    doc = {'machine': machine(), 'versions': versions(), 'quick': quick,
           'command': ' '.join(['python', 'benchmarks/run_all.py'] + sys.argv[1:])}
    t0 = time.perf_counter()
    if 'oneshot' in only:
        log('== one-shot ==')
        doc['oneshot'] = oneshot.run(n or (30 if quick else 1000), quick=quick, log=log)
    if 'tracking' in only:
        log('== tracking ==')
        doc['tracking'] = tracking.run(quick, log=log)
    if 'scaling' in only:
        log('== scaling ==')
        doc['scaling'] = scaling.run(quick=quick, log=log)
    if 'batch' in only:
        log('== batch ==')
        doc['batch'] = batch.run(quick=quick, log=log)
    doc['elapsed_s'] = time.perf_counter() - t0
    return doc


def markdown(doc: Dict) -> str:
    m, v = doc['machine'], doc['versions']
    head = [f"Measured {m['date']} on {m['cpu']} ({m['cores']} cores, load average "
            f"{m['load_average']}), Python {v['python']}, numpy {v['numpy']}, "
            f"pin {v['pin']}, roboticstoolbox-python {v['roboticstoolbox-python']}, "
            f"ikpy {v['ikpy']}, numba {v['numba']}; OPENBLAS_CORETYPE={m['OPENBLAS_CORETYPE']},"
            f" OPENBLAS_L2_SIZE={m['OPENBLAS_L2_SIZE']}, OPENBLAS_NUM_THREADS="
            f"{m.get('OPENBLAS_NUM_THREADS', '(unset)')}.", f"Command: `{doc['command']}`"
            + (' (quick mode)' if doc['quick'] else '')]
    parts = ['\n'.join(head)]
    if 'oneshot' in doc:
        parts.append('### One-shot\n\n' + oneshot.markdown(doc['oneshot']))
    if 'tracking' in doc:
        parts.append('### Tracking at 1 kHz\n\n' + tracking.markdown(doc['tracking']))
    if 'scaling' in doc:
        parts.append('### Scaling\n' + scaling.markdown(doc['scaling']))
    if 'batch' in doc:
        parts.append('### Batch (Panda)\n\n' + batch.markdown(doc['batch']))
    return '\n\n'.join(parts) + '\n'


def plot(doc: Dict, path: Path) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    if 'oneshot' in doc:
        rows = [r for r in doc['oneshot'] if 'missing' not in r and r['seeds'] == 'random'
                and r['timeout_ms'] == 5.0]
        robots_ = sorted({r['robot'] for r in rows})
        solvers = list(dict.fromkeys(r['solver'] for r in rows))
        ax = axes[0, 0]
        width = 0.8 / max(len(solvers), 1)
        for i, s in enumerate(solvers):
            vals = [next((r['mean_ms'] for r in rows if r['robot'] == rb and r['solver'] == s),
                         0.0) for rb in robots_]
            ax.bar([k + i * width for k in range(len(robots_))], vals, width, label=s)
        ax.set_yscale('log')
        ax.set_xticks([k + 0.4 - width / 2 for k in range(len(robots_))])
        ax.set_xticklabels(robots_, fontsize=8)
        ax.set_ylabel('mean time per attempt [ms] (5 ms timeout, random seeds)')
        ax.legend(fontsize=7)
        ax.set_title('One-shot: mean time (log scale)')
    if 'tracking' in doc:
        ax = axes[0, 1]
        rows = doc['tracking']
        ax.bar(range(len(rows)), [r['p50_ms'] for r in rows], label='p50')
        ax.bar(range(len(rows)), [r['p99_ms'] - r['p50_ms'] for r in rows],
               bottom=[r['p50_ms'] for r in rows], label='p99')
        ax.axhline(1.0, color='k', ls='--', lw=1, label='1 ms target')
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([f"{r['case']} [{r.get('backend', 'numpy')}]" for r in rows],
                           fontsize=6, rotation=20, ha='right')
        ax.set_ylabel('cycle time [ms]')
        ax.set_title('Tracking at 1 kHz')
        ax.legend(fontsize=8)
    if 'scaling' in doc:
        ax = axes[1, 0]
        rows = doc['scaling']['rows']
        for p in sorted({r['p'] for r in rows}):
            sub = [r for r in rows if r['p'] == p]
            ax.loglog([r['n'] for r in sub], [r['iteration_ms'] for r in sub], 'o-',
                      label=f'p = {p}')
        ax.set_xlabel('joints n')
        ax.set_ylabel('time per PDLS iteration [ms]')
        ax.set_title('Scaling')
        ax.legend(fontsize=8)
    if 'batch' in doc:
        ax = axes[1, 1]
        rows = [r for r in doc['batch'] if 'missing' not in r]
        for backend in dict.fromkeys(r['backend'] for r in rows):
            sub = [r for r in rows if r['backend'] == backend]
            ax.loglog([r['N'] for r in sub], [r['solves_per_cpu_s'] for r in sub], 'o-',
                      label=backend)
        ax.axhline(1e4, color='k', ls='--', lw=1, label='10,000 / s / core target')
        ax.set_xlabel('goals per call N')
        ax.set_ylabel('solves per second per core')
        ax.set_title('solve_batch (Panda)')
        ax.legend(fontsize=8)
    fig.suptitle(f"pdls_ik benchmarks, {doc['machine']['date']}")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='short protocols (~2 minutes)')
    parser.add_argument('--only', nargs='*', choices=PROTOCOLS, default=list(PROTOCOLS))
    parser.add_argument('-n', type=int, help='one-shot targets per robot')
    parser.add_argument('--out', default=str(Path(__file__).resolve().parent / 'results'))
    args = parser.parse_args(argv)
    doc = run(args.quick, args.only, args.n)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / 'benchmarks.json').write_text(json.dumps(doc, indent=1, default=str))
    text = markdown(doc)
    (out / 'benchmarks.md').write_text(text)
    plot(doc, out / 'benchmarks.png')
    print(text)
    print(f"written: {out / 'benchmarks.json'}, {out / 'benchmarks.md'}, "
          f"{out / 'benchmarks.png'}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
