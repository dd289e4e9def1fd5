"""Statistics of a settled packing of spheres, computed the same way for
LAMMPS's and fricdem's final states (cross-check case 3,
docs/validation/lammps_crosscheck.md):

- bed height H: the highest sphere top, max(z + r);
- packing fraction phi: the fraction of the measuring box covered by spheres,
  the box being x, y within one mean diameter d of the walls excluded and
  d <= z <= H - 2 d (away from the floor's and the free surface's ordering);
  sampled on a grid of spacing d / 20 (cell centres), which resolves the
  boundary of each sphere to a sampling error below 1e-3 in phi;
- coordination number Z: twice the number of touching sphere pairs
  (|x_i - x_j| < r_i + r_j, the contact rule of both engines) over the number
  of spheres, walls not counted, rattlers included.
"""
from __future__ import annotations

import numpy as np


def bed_height(x: np.ndarray, r: np.ndarray) -> float:
    return float(np.max(x[:, 2] + r))


def packing_fraction(x: np.ndarray, r: np.ndarray, box: tuple[float, float, float, float]) -> tuple[float, tuple]:
    """x: (N, 3) centres, r: (N,) radii, box: (xlo, xhi, ylo, yhi) of the walls.
    Returns (phi, measuring box (x0, x1, y0, y1, z0, z1))."""
    d = 2.0 * float(np.mean(r))
    height = bed_height(x, r)
    lo = np.array([box[0] + d, box[2] + d, d])
    hi = np.array([box[1] - d, box[3] - d, height - 2.0 * d])
    if np.any(hi <= lo):
        raise ValueError(f"bed too shallow for the measuring box: {lo} .. {hi}")
    h = d / 20.0
    counts = np.maximum(np.round((hi - lo) / h).astype(int), 1)
    spacing = (hi - lo) / counts
    axes = [lo[k] + (np.arange(counts[k]) + 0.5) * spacing[k] for k in range(3)]
    covered = np.zeros(counts, dtype=bool)
    for c, radius in zip(x, r):
        index = []
        for k in range(3):
            a = np.searchsorted(axes[k], c[k] - radius)
            b = np.searchsorted(axes[k], c[k] + radius)
            index.append((a, b))
        if any(a >= b for a, b in index):
            continue
        gx = axes[0][index[0][0]:index[0][1]] - c[0]
        gy = axes[1][index[1][0]:index[1][1]] - c[1]
        gz = axes[2][index[2][0]:index[2][1]] - c[2]
        inside = (gx[:, None, None] ** 2 + gy[None, :, None] ** 2 + gz[None, None, :] ** 2) < radius * radius
        covered[index[0][0]:index[0][1], index[1][0]:index[1][1], index[2][0]:index[2][1]] |= inside
    return float(covered.mean()), (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


def coordination(x: np.ndarray, r: np.ndarray) -> float:
    difference = x[:, None, :] - x[None, :, :]
    distance_sq = np.einsum("ijk,ijk->ij", difference, difference)
    reach = r[:, None] + r[None, :]
    touching = distance_sq < reach * reach
    np.fill_diagonal(touching, False)
    return float(touching.sum()) / len(r)  # each pair counted twice: 2 pairs / N


def statistics(x: np.ndarray, r: np.ndarray, box) -> dict[str, float]:
    phi, _ = packing_fraction(x, r, box)
    return {"packing_fraction": phi, "coordination": coordination(x, r), "bed_height": bed_height(x, r)}
