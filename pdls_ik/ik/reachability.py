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
Reachability maps: where an arm can place its tip, and in how many orientations.

A voxel grid of edge ``voxel`` [m] covers the ball of the chain's reach
(:meth:`Linkage.reach`) around the base frame's origin. At each voxel centre, each of O
orientations (uniform on SO(3) by default, or given) is one pose IK problem, solved by the batch
solver (:class:`pdls_ik.ik.batch.BatchSolver`: damped least squares with random restarts). The
reachability index of a voxel is the fraction of its orientations solved (Zacharias, Borst &
Hirzinger 2007, "Capturing robot workspace structure: representing robot capabilities",
IROS; the map of ROS 1's reuleaux, Makhal & Goins 2018).

The voxels are split in chunks of ``chunk`` voxels, each chunk one task for Dask: by default on
a local cluster with one single-threaded worker process per core, or, with ``scheduler``, on an
existing Dask cluster (its address), so that a bigger map needs more workers, not other code. A
worker loads the compiled batch kernel once per process (from numba's cache) and uses it for
every chunk it gets. With ``out`` ending in ``.zarr`` the results land in a chunked Zarr
store as chunks complete, and a run that was stopped resumes there: done chunks are not solved
again. ``scheduler='synchronous'`` solves in this process, without Dask.

Answers are reproducible: the orientations and each chunk's restart seeds follow from
``random_seed`` and the chunk's number, not from which worker solved it or when.
"""
from __future__ import annotations

from dataclasses import dataclass
import logging
import math
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import InputError
from pdls_ik.ik.batch import BatchSolver
from pdls_ik.model import load_urdf
from pdls_ik.model.collision import CollisionModel
from scipy.spatial.transform import Rotation

Array = NDArray[np.float64]

#: default options of the batch solves of a map (local solves of 30 iterations; 4 random
#: restarts: an unreachable pose costs 5 local solves)
SOLVE_OPTIONS = {'max_iterations': 30, 'max_restarts': 4}


@dataclass
class ReachMap:
    """
    A reachability map.

    :ivar centers: (V, 3) voxel centres [m] in the base frame.
    :ivar index: (V,) reachability index in [0, 1]: fraction of the orientations solved.
    :ivar q: (V, O, n) one joint solution per solved (voxel, orientation) [rad, m], NaN where
        unsolved; joints in ``joint_names`` order.
    :ivar orientations: (O, 4) the goal orientations, quaternions (x, y, z, w) in the base frame.
    :ivar voxel: voxel edge [m]; tip, base: the chain's links; joint_names: the joints of q.
    """

    centers: Array
    index: Array
    q: Array
    orientations: Array
    voxel: float
    tip: str
    base: str
    joint_names: List[str]

    @property
    def solved(self) -> NDArray[np.bool_]:
        """(V, O) whether each (voxel, orientation) was solved."""
        return ~np.isnan(self.q[:, :, 0]) if self.q.shape[2] else \
            np.zeros(self.q.shape[:2], dtype=bool)

    def save(self, path: Union[str, Path]) -> Path:
        """Write the map as a NumPy ``.npz`` file (arrays and metadata); return its path."""
        path = Path(path)
        np.savez_compressed(path, centers=self.centers, index=self.index, q=self.q,
                            orientations=self.orientations, voxel=self.voxel,
                            tip=self.tip, base=self.base, joint_names=np.array(self.joint_names))
        return path

    @classmethod
    def load(cls, path: Union[str, Path]) -> 'ReachMap':
        """Read a map written by :meth:`save` (``.npz``) or by a ``.zarr`` run."""
        path = Path(path)
        if path.suffix == '.zarr':
            store = _ZarrStore.open_existing(path)
            return store.reach_map()
        with np.load(path) as data:
            return cls(data['centers'], data['index'], data['q'], data['orientations'],
                       float(data['voxel']), str(data['tip']), str(data['base']),
                       [str(n) for n in data['joint_names']])


def voxel_centers(reach: float, voxel: float) -> Array:
    """
    Return the centres (V, 3) [m] of the grid voxels that meet the ball of radius ``reach``.

    The grid has a voxel centred on the origin; a voxel is kept when its centre lies within
    reach + half its diagonal of the origin.
    """
    if not (math.isfinite(reach) and reach > 0.0):
        raise InputError(f'reach: {reach!r} m must be finite and > 0 (a chain with an unbounded '
                         'prismatic joint has no finite reach)')
    if not (math.isfinite(voxel) and voxel > 0.0):
        raise InputError(f'voxel: {voxel!r} m must be finite and > 0')
    m = int(math.ceil(reach / voxel))
    if (2 * m + 1) ** 3 > 50_000_000:
        raise InputError(f'voxel: {voxel:g} m gives more than 50 million voxels over a reach of '
                         f'{reach:.3g} m; choose a larger voxel')
    k = np.arange(-m, m + 1) * voxel
    grid = np.stack(np.meshgrid(k, k, k, indexing='ij'), axis=-1).reshape(-1, 3)
    return grid[np.linalg.norm(grid, axis=1) <= reach + 0.5 * math.sqrt(3.0) * voxel]


def sample_orientations(count: int, random_seed: int = 0) -> Array:
    """Return ``count`` orientations (count, 4) (x, y, z, w), uniform on SO(3), reproducibly."""
    if int(count) < 1:
        raise InputError(f'orientations: {count!r} must be >= 1')
    rotations = Rotation.random(int(count), random_state=np.random.default_rng(random_seed))
    return np.atleast_2d(rotations.as_quat())


def _quaternions(orientations, random_seed: int) -> Array:
    if np.isscalar(orientations):
        return sample_orientations(int(orientations), random_seed)
    quats = np.asarray(orientations, dtype=float)
    if quats.ndim != 2 or quats.shape[1] != 4 or not np.isfinite(quats).all():
        raise InputError(f'orientations: expected a count or finite quaternions (O, 4), got '
                         f'shape {quats.shape}')
    norms = np.linalg.norm(quats, axis=1)
    if (norms < 1e-9).any():
        raise InputError(f'orientations: quaternion {int(np.argmin(norms))} is zero')
    return quats / norms[:, None]


def solve_chunk(linkage, tip: str, base: str, centers: Array, quats: Array,
                options: Tuple, random_seed: int) -> Tuple[Array, Array]:
    """
    Solve one chunk: every (voxel centre (C, 3), orientation (O, 4)) pair; runs on a worker.

    The batch solver is built here (cheap: chain arrays); its compiled kernel is loaded once per
    worker process, from numba's cache.

    :return: (index (C,), q (C, O, n) with NaN where unsolved).
    """
    solver = BatchSolver(linkage, tip, base, random_seed=random_seed, **dict(options))
    C, K = centers.shape[0], quats.shape[0]
    T = np.zeros((C, K, 4, 4))
    T[:, :, :3, :3] = Rotation.from_quat(quats).as_matrix()[None]
    T[:, :, :3, 3] = centers[:, None, :]
    T[:, :, 3, 3] = 1.0
    res = solver.solve(T.reshape(C * K, 4, 4))
    q = np.where(res.success[:, None], res.q, np.nan).reshape(C, K, -1)
    return res.success.reshape(C, K).mean(axis=1), q


def reachability_map(robot, tip: str, base: Optional[str] = None, *, voxel: float = 0.05,
                     orientations: Union[int, Sequence] = 64, chunk: int = 64,
                     scheduler: Optional[str] = None, workers: Optional[int] = None,
                     out: Optional[Union[str, Path]] = None, progress: bool = True,
                     random_seed: int = 0, **solve_options) -> ReachMap:
    """
    Compute the reachability map of the chain ``base`` → ``tip``.

    :param robot: a :class:`pdls_ik.model.Linkage` (sent to the workers), or a URDF path or XML
        text.
    :param tip, base: the chain (base default: the root link); goals are in the base frame.
    :param voxel: voxel edge [m].
    :param orientations: how many orientations per voxel (uniform on SO(3)), or (O, 4)
        quaternions (x, y, z, w).
    :param chunk: voxels per Dask task.
    :param scheduler: None: a local Dask cluster of ``workers`` single-threaded processes
        (default: one per core); an address ("tcp://host:8786"): that cluster;
        "synchronous": this process, no Dask.
    :param out: ``.zarr`` (chunked store, written as chunks complete; a stopped run resumes) or
        ``.npz`` (written at the end); None: not saved.
    :param progress: a progress bar (tqdm) as chunks complete.
    :param random_seed: seed of the orientations and of the restarts.
    :param solve_options: :class:`BatchSolver` options (default :data:`SOLVE_OPTIONS`), e.g.
        ``position_tolerance`` [m], ``orientation_tolerance`` [rad], or ``self_collision`` (True
        or a :class:`~pdls_ik.model.collision.CollisionModel`) with ``d_min`` [m]: a pose
        counts as solved only by a configuration whose checked link pairs are ``d_min`` apart
        (a voxel whose only solutions go through the robot's body is not reachable).

    :return: :class:`ReachMap`.

    :raises InputError: bad voxel, orientations, chunk or options; a ``.zarr`` store made with
        other parameters. LinkError: unknown links. ImportError (naming the package): Dask or
        Zarr needed but not installed.
    """
    linkage = robot if hasattr(robot, 'joint_names') else load_urdf(robot)
    base = base or linkage.base_link
    options = tuple(sorted({**SOLVE_OPTIONS, **solve_options}.items()))
    BatchSolver(linkage, tip, base, **dict(options))              # checks links and options
    if int(chunk) < 1:
        raise InputError(f'chunk: {chunk!r} must be >= 1')
    centers = voxel_centers(linkage.reach(tip, base), voxel)
    quats = _quaternions(orientations, random_seed)
    n = linkage.n
    bounds = list(range(0, centers.shape[0], int(chunk)))
    store = None
    if out is not None and Path(out).suffix == '.zarr':
        store = _ZarrStore.create_or_resume(Path(out), centers, quats, n, int(chunk), voxel,
                                            tip, base, linkage.joint_names, random_seed,
                                            options)
    index = np.zeros(centers.shape[0])
    q = np.full((centers.shape[0], quats.shape[0], n), np.nan)
    todo = []
    for k, lo in enumerate(bounds):
        hi = min(lo + int(chunk), centers.shape[0])
        if store is not None and store.done(k):
            index[lo:hi], q[lo:hi] = store.read(lo, hi)
        else:
            todo.append((k, lo, hi))

    def record(k: int, lo: int, hi: int, result: Tuple[Array, Array]) -> None:
        index[lo:hi], q[lo:hi] = result
        if store is not None:
            store.write(k, lo, hi, *result)

    args = (linkage, tip, base)
    jobs = [(k, lo, hi, (*args, centers[lo:hi], quats, options, random_seed * 1_000_003 + k))
            for k, lo, hi in todo]
    _run(jobs, record, scheduler, workers, progress)
    result = ReachMap(centers, index, q, quats, float(voxel), tip, base,
                      list(linkage.joint_names))
    if out is not None and Path(out).suffix != '.zarr':
        result.save(out)
    return result


def _run(jobs, record: Callable, scheduler: Optional[str], workers: Optional[int],
         progress: bool) -> None:
    """Solve the chunks ``jobs`` in this process or on Dask, recording each as it completes."""
    bar = None
    if progress and jobs:
        from tqdm import tqdm
        bar = tqdm(total=len(jobs), unit='chunk', desc='reachability', leave=False)
    try:
        if scheduler == 'synchronous':
            for k, lo, hi, job in jobs:
                record(k, lo, hi, solve_chunk(*job))
                if bar is not None:
                    bar.update()
            return
        try:
            from distributed import as_completed, Client, LocalCluster
        except ImportError as exc:
            raise ImportError("reachability maps on Dask need the 'distributed' package: pip "
                              "install 'pdls_ik[reach]' (or scheduler='synchronous')") from exc
        cluster = None
        if scheduler is None:
            import os
            cluster = LocalCluster(n_workers=int(workers or os.cpu_count() or 1),
                                   threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.CRITICAL)
        try:
            with Client(cluster if cluster is not None else scheduler) as client:
                futures: Dict = {}
                for k, lo, hi, job in jobs:
                    futures[client.submit(solve_chunk, *job, pure=False)] = (k, lo, hi)
                for future in as_completed(futures):
                    record(*futures[future], future.result())
                    if bar is not None:
                        bar.update()
        finally:
            if cluster is not None:
                cluster.close()
    finally:
        if bar is not None:
            bar.close()


def _option_attr(value):
    """Return a solve option as JSON for a store's attrs: a collision model by its pairs."""
    if isinstance(value, CollisionModel):
        return {'collision_model_pairs': [list(pair) for pair in value.pairs]}
    return value


class _ZarrStore:
    """A map's chunked Zarr store: arrays index (V,), q (V, O, n), done (chunks,) and attrs."""

    def __init__(self, group):
        self.group = group

    @staticmethod
    def _zarr():
        try:
            import zarr
        except ImportError as exc:
            raise ImportError("a .zarr output needs the 'zarr' package: pip install "
                              "'pdls_ik[reach]' (or write .npz)") from exc
        return zarr

    @classmethod
    def open_existing(cls, path: Path) -> '_ZarrStore':
        if not path.exists():
            raise InputError(f"'{path}': no such Zarr store")
        return cls(cls._zarr().open_group(str(path), mode='r'))

    @classmethod
    def create_or_resume(cls, path: Path, centers: Array, quats: Array, n: int, chunk: int,
                         voxel: float, tip: str, base: str, joint_names, random_seed: int,
                         options: Tuple) -> '_ZarrStore':
        zarr = cls._zarr()
        attrs = {'voxel': float(voxel), 'tip': tip, 'base': base,
                 'joint_names': list(joint_names), 'chunk': chunk, 'random_seed': random_seed,
                 'options': [[k, _option_attr(v)] for k, v in options],
                 'voxels': int(centers.shape[0]),
                 'orientations': quats.round(12).tolist()}
        if path.exists():
            group = zarr.open_group(str(path), mode='a')
            old = dict(group.attrs)
            differ = [k for k in attrs if old.get(k) != attrs[k]]
            if differ:
                raise InputError(f"'{path}': made with other {', '.join(differ)}; remove it or "
                                 'choose another --out to start a new map')
            return cls(group)
        group = zarr.open_group(str(path), mode='w')
        group.attrs.update(attrs)
        V, K = centers.shape[0], quats.shape[0]
        chunks = -(-V // chunk)
        cls._array(group, 'centers', centers)
        cls._array(group, 'orientations', quats)
        cls._array(group, 'index', np.zeros(V), (chunk,))
        cls._array(group, 'q', np.full((V, K, n), np.nan, dtype=np.float32), (chunk, K, n))
        cls._array(group, 'done', np.zeros(chunks, dtype=bool), (chunks,))
        return cls(group)

    @staticmethod
    def _array(group, name: str, data: np.ndarray, chunks=None) -> None:
        arr = group.create_array(name, shape=data.shape, dtype=data.dtype,
                                 chunks=chunks or data.shape) \
            if hasattr(group, 'create_array') else \
            group.create_dataset(name, shape=data.shape, dtype=data.dtype,
                                 chunks=chunks or data.shape)
        arr[...] = data

    def done(self, k: int) -> bool:
        return bool(self.group['done'][k])

    def read(self, lo: int, hi: int) -> Tuple[Array, Array]:
        return np.asarray(self.group['index'][lo:hi]), \
            np.asarray(self.group['q'][lo:hi], dtype=float)

    def write(self, k: int, lo: int, hi: int, index: Array, q: Array) -> None:
        self.group['index'][lo:hi] = index
        self.group['q'][lo:hi] = q.astype(np.float32)
        self.group['done'][k] = True                # last: a chunk is done once all is there

    def reach_map(self) -> ReachMap:
        g, a = self.group, dict(self.group.attrs)
        return ReachMap(np.asarray(g['centers']), np.asarray(g['index']),
                        np.asarray(g['q'], dtype=float), np.asarray(g['orientations']),
                        float(a['voxel']), a['tip'], a['base'], list(a['joint_names']))
