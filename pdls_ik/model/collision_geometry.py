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
URDF ``<collision>`` elements → capsules (sphere-swept segments) in each link's frame.

Every shape of the collision model is a capsule: the points within ``radius`` of the segment
``[a, b]`` (a sphere when a = b), the shape family of cuRobo's and PyRoki's sphere models, whose
distances and gradients are exact and cheap (:mod:`pdls_ik.model.collision`). Each URDF shape
becomes capsules that **contain** it:

- ``<sphere>``: itself;
- ``<cylinder>``: the capsule on its axis with its radius and length (the caps overhang by the
  radius), or the sphere around it when that is smaller;
- ``<box>``: the smaller (by volume) of the capsule along its longest axis that contains it and
  the sphere around it (:func:`bounding_capsule`);
- ``<mesh>``: ``capsules_per_mesh`` capsules (default 3) fitted with trimesh: the mesh is
  subdivided to edges ≤ 1 cm, its faces are split into that many clusters along the mesh
  (k-means on the face centres, seeded along the principal axis: deterministic), and each cluster
  gets the bounding capsule of its faces' vertices; every face lies inside one capsule, so the
  capsules contain the whole surface. Fits are cached per file, scale and count.

``package://PKG/REL`` mesh files resolve, in order, through the ament index (``ament_index_python``
when importable), the folders of ``mesh_path`` (``DIR/PKG/REL``, then ``DIR/REL``) and the share
folder of the PyPI package ``example-robot-data`` (``PKG`` = ``example-robot-data``); relative
paths are taken from the URDF's folder and then from ``mesh_path``. A mesh that cannot be found or
read, or trimesh missing, gives **one** warning (:class:`CollisionWarning`) naming the links, and
those links are left out of the collision model (documented fallback: no guessed shape).
"""
from __future__ import annotations

from dataclasses import dataclass
import functools
from pathlib import Path
from typing import List, Optional, Sequence, Tuple
import warnings

import numpy as np
from numpy.typing import NDArray
from pdls_ik.errors import URDFError
from pdls_ik.model.joints import pose_matrix

Array = NDArray[np.float64]
#: largest edge [m] of the subdivided mesh whose faces are clustered (coverage is exact anyway)
MESH_EDGE = 0.01


class CollisionWarning(UserWarning):
    """A collision mesh that cannot be used (not found, unreadable, trimesh missing)."""


@dataclass(frozen=True)
class Capsule:
    """
    A sphere-swept segment attached to a link: the points within ``radius`` of ``[a, b]``.

    :ivar link: the link it moves with.
    :ivar a, b: (3,) segment ends [m] in the link frame; ``a == b`` is a sphere.
    :ivar radius: [m], ≥ 0.
    :ivar source: where it comes from (e.g. ``"box"``, ``"mesh link2.stl 1/3"``), for reports.
    """

    link: str
    a: Tuple[float, float, float]
    b: Tuple[float, float, float]
    radius: float
    source: str = ''

    @property
    def is_sphere(self) -> bool:
        """Return whether the segment is a single point."""
        return tuple(self.a) == tuple(self.b)


def bounding_capsule(points: Array) -> Tuple[Array, Array, float]:
    """
    Return (a (3,), b (3,), radius): a capsule containing every point of ``points`` (k, 3).

    The segment lies on a line along the principal axis of the points, through the centre of
    their bounding rectangle across it; the radius is the largest distance of a point from that
    line, and the ends are drawn in as far as every point stays covered. The sphere around the
    centre of the points' bounding box (in the principal frame) is returned instead when it is
    smaller.
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    c = pts.mean(axis=0)
    X = pts - c
    basis = np.linalg.svd(X, full_matrices=True)[2]
    Y = X @ basis.T
    mid = 0.5 * (Y.max(axis=0) + Y.min(axis=0))
    centre = c + mid @ basis
    t = Y[:, 0] - mid[0]
    rho = np.hypot(Y[:, 1] - mid[1], Y[:, 2] - mid[2])
    radius = float(rho.max())
    s = np.sqrt(np.maximum(radius * radius - rho * rho, 0.0))
    hi, lo = float((t - s).max()), float((t + s).min())
    if lo >= hi:
        lo = hi = 0.5 * (lo + hi)
    length = hi - lo
    sphere_r = float(np.linalg.norm(pts - centre, axis=1).max())
    if sphere_r ** 3 <= radius ** 3 + 0.75 * radius * radius * length:   # volumes / (4π/3)
        return centre, centre.copy(), sphere_r
    return centre + lo * basis[0], centre + hi * basis[0], radius


def _point_segment_distances(points: Array, a: Array, b: Array) -> Array:
    d = b - a
    dd = float(d @ d)
    t = np.clip((points - a) @ d / dd, 0.0, 1.0) if dd > 0.0 else np.zeros(len(points))
    return np.linalg.norm(points - (a + t[:, None] * d), axis=1)


def tight_capsule(points: Array) -> Tuple[Array, Array, float]:
    """
    Return (a (3,), b (3,), radius): a capsule of small volume containing ``points`` (k, 3).

    Starts from :func:`bounding_capsule` and moves the segment ends by Nelder–Mead (SciPy) to
    lower the volume π r² L + 4/3 π r³, the radius always the largest distance from a point
    (of the points' convex hull) to the segment: the result contains every point whatever the
    optimizer does.
    """
    from scipy.optimize import minimize
    from scipy.spatial import ConvexHull
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    try:
        pts = pts[ConvexHull(pts).vertices]
    except (RuntimeError, ValueError):   # QhullError (flat, too few points): keep them all
        pass
    a0, b0, _ = bounding_capsule(pts)

    def volume(x):
        a, b = x[:3], x[3:]
        r = _point_segment_distances(pts, a, b).max()
        return np.pi * r * r * np.linalg.norm(b - a) + 4.0 / 3.0 * np.pi * r ** 3

    x0 = np.concatenate((a0, b0))
    if np.allclose(a0, b0):                     # a sphere: open it along the principal axis
        axis = np.linalg.svd(pts - pts.mean(axis=0), full_matrices=True)[2][0]
        x0 = np.concatenate((a0 - 1e-3 * axis, b0 + 1e-3 * axis))
    best = minimize(volume, x0, method='Nelder-Mead',
                    options={'xatol': 1e-6, 'fatol': 1e-12, 'maxiter': 3000})
    x = best.x if best.fun < volume(np.concatenate((a0, b0))) else np.concatenate((a0, b0))
    a, b = x[:3], x[3:]
    return a, b, float(_point_segment_distances(pts, a, b).max())


def _box_points(size) -> Array:
    half = 0.5 * np.asarray(size, dtype=float)
    return np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half


def _cylinder_capsule(radius: float, length: float) -> Tuple[Array, Array, float]:
    """Return the capsule ±length/2 on z with the cylinder's radius, or the sphere if smaller."""
    half = 0.5 * length
    sphere_r = float(np.hypot(radius, half))
    if sphere_r ** 3 <= radius ** 3 + 0.75 * radius * radius * length:
        return np.zeros(3), np.zeros(3), sphere_r
    return np.array([0.0, 0.0, -half]), np.array([0.0, 0.0, half]), float(radius)


def _transform(T: Array, p: Array) -> Tuple[float, float, float]:
    return tuple(float(v) for v in T[:3, :3] @ p + T[:3, 3])


def example_robot_data_share() -> Optional[Path]:
    """Share folder of the PyPI package ``example-robot-data`` (robots/...), or None."""
    try:
        from importlib import metadata
        dist = metadata.distribution('example-robot-data')
    except Exception:  # PackageNotFoundError, or a broken installation
        return None
    path = Path(dist.locate_file('cmeel.prefix/share/example-robot-data'))
    return path if path.is_dir() else None


def _ament_share(package: str) -> Optional[Path]:
    try:
        from ament_index_python.packages import get_package_share_directory
    except ImportError:
        return None
    try:
        return Path(get_package_share_directory(package))
    except Exception:  # PackageNotFoundError, ValueError
        return None


def resolve_mesh(filename: str, urdf_dir: Optional[Path] = None,
                 mesh_path: Sequence[str] = ()) -> Optional[Path]:
    """
    Return the file a URDF mesh ``filename`` names, or None when it cannot be found.

    ``package://PKG/REL`` (or ``package:///PKG/REL``): the ament share of PKG, then
    ``DIR/PKG/REL`` and ``DIR/REL`` for each DIR of ``mesh_path``, then example-robot-data's
    share folder when PKG is ``example-robot-data``; ``file://`` and plain paths: absolute, or
    relative to ``urdf_dir`` then to each DIR of ``mesh_path``.
    """
    candidates: List[Path] = []
    if filename.startswith('package://'):
        package, _, rel = filename[len('package://'):].partition('/')
        if not package:  # 'package:///PKG/REL' (an empty authority), as Pinocchio reads it
            package, _, rel = rel.partition('/')
        share = _ament_share(package)
        if share is not None:
            candidates.append(share / rel)
        for folder in mesh_path:
            candidates += [Path(folder) / package / rel, Path(folder) / rel]
        if package == 'example-robot-data':
            erd = example_robot_data_share()
            if erd is not None:
                candidates.append(erd / rel)
    else:
        name = filename[len('file://'):] if filename.startswith('file://') else filename
        path = Path(name)
        if path.is_absolute():
            candidates.append(path)
        else:
            if urdf_dir is not None:
                candidates.append(Path(urdf_dir) / path)
            candidates += [Path(folder) / path for folder in mesh_path]
    return next((c for c in candidates if c.is_file()), None)


def _kmeans_labels(points: Array, k: int, iterations: int = 30) -> NDArray[np.int64]:
    """Cluster labels (m,) of ``points`` (m, 3) into ≤ k groups, seeded along the main axis."""
    if k <= 1 or len(points) <= k:
        return np.zeros(len(points), dtype=np.int64)
    X = points - points.mean(axis=0)
    t = X @ np.linalg.svd(X, full_matrices=False)[2][0]
    order = np.argsort(t)
    centres = points[order[((np.arange(k) + 0.5) * len(points) / k).astype(int)]]
    labels = np.zeros(len(points), dtype=np.int64)
    for _ in range(iterations):
        d2 = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = np.argmin(d2, axis=1)
        if _ > 0 and np.array_equal(new, labels):
            break
        labels = new
        for j in range(k):
            if np.any(labels == j):
                centres[j] = points[labels == j].mean(axis=0)
    return labels


@functools.lru_cache(maxsize=64)
def fit_mesh(path: str, scale: Tuple[float, float, float] = (1.0, 1.0, 1.0),
             count: int = 3) -> Tuple[Tuple[Array, Array, float], ...]:
    """
    Fit ``count`` capsules containing the surface of the mesh file ``path`` (mesh frame, scaled).

    Returns ((a (3,), b (3,), radius), ...) in the mesh frame [m] (module docstring); cached.

    :raises ImportError: trimesh is not installed.  ValueError: no triangles in the file.
    """
    import trimesh
    mesh = trimesh.load(path, force='mesh')
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ValueError('no triangles')
    vertices = np.asarray(mesh.vertices, dtype=float) * np.asarray(scale, dtype=float)
    faces = np.asarray(mesh.faces)
    vertices, faces = trimesh.remesh.subdivide_to_size(vertices, faces, MESH_EDGE,
                                                       max_iter=20)
    labels = _kmeans_labels(vertices[faces].mean(axis=1), int(count))
    out = []
    for j in np.unique(labels):
        used = np.unique(faces[labels == j])
        out.append(tight_capsule(vertices[used]))
    return tuple(out)


def capsules_from_urdf(robot, urdf_dir: Optional[Path] = None, mesh_path: Sequence[str] = (),
                       capsules_per_mesh: int = 3) -> Tuple[List[Capsule], List[str]]:
    """
    Return (capsules, links left out) of a parsed URDF (urdf_parser_py ``URDF``).

    Links without ``<collision>`` have no capsule; links whose mesh cannot be used are left out
    (named in the list) after one :class:`CollisionWarning` for them all.

    :raises URDFError: a geometry that is not a box, cylinder, sphere or mesh, naming the link.
    """
    capsules: List[Capsule] = []
    problems: List[str] = []
    dropped: List[str] = []
    for link in robot.links:
        mine: List[Capsule] = []
        failed = False
        for element in link.collisions or []:
            origin = element.origin
            T = pose_matrix(origin.xyz or [0, 0, 0], origin.rpy or [0, 0, 0]) if origin \
                else np.eye(4)
            geom = element.geometry
            kind = type(geom).__name__.lower()
            if kind == 'sphere':
                c = _transform(T, np.zeros(3))
                mine.append(Capsule(link.name, c, c, float(geom.radius), 'sphere'))
                continue
            if kind in ('box', 'cylinder'):
                a, b, r = bounding_capsule(_box_points(geom.size)) if kind == 'box' else \
                    _cylinder_capsule(float(geom.radius), float(geom.length))
                mine.append(Capsule(link.name, _transform(T, a), _transform(T, b), r, kind))
                continue
            if kind != 'mesh':
                raise URDFError(f"link '{link.name}': collision geometry {kind} is not "
                                'supported (box, cylinder, sphere, mesh)')
            found = resolve_mesh(geom.filename, urdf_dir, mesh_path)
            scale = tuple(float(s) for s in (geom.scale or (1.0, 1.0, 1.0)))
            if found is None:
                problems.append(f"'{link.name}' ({geom.filename}: not found)")
                failed = True
                break
            try:
                fitted = fit_mesh(str(found), scale, int(capsules_per_mesh))
            except ImportError:
                problems.append(f"'{link.name}' (trimesh is not installed: pip install trimesh)")
                failed = True
                break
            except Exception as exc:  # trimesh raises many kinds on a corrupt file
                problems.append(f"'{link.name}' ({found}: cannot read it: {exc})")
                failed = True
                break
            for i, (a, b, r) in enumerate(fitted):
                mine.append(Capsule(link.name, _transform(T, a), _transform(T, b), float(r),
                                    f'mesh {found.name} {i + 1}/{len(fitted)}'))
        if failed:
            dropped.append(link.name)
        else:
            capsules += mine
    if problems:
        more = f' and {len(problems) - 3} more' if len(problems) > 3 else ''
        warnings.warn(f'collision model: {len(problems)} links left out, their mesh cannot be '
                      'used: ' + ', '.join(problems[:3]) + more +
                      ' (give the folder with mesh_path / --mesh-path)',
                      CollisionWarning, stacklevel=3)
    return capsules, dropped
