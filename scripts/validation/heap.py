"""Repose angle of a heap of spheres, measured from its surface.

Reusable by any case that pours a heap (repose_angle, the gravel pile of
issue 5). Given the sphere centres (x, y, z) and radii r of the settled heap:

1. Axis: the horizontal centroid of the spheres that stand above the bottom
   layer (z - floor > 2 mean radii), unless a centre is given; rho is the
   horizontal distance from it.
2. Surface points: rings of width `bin_width` (default 2 mean diameters) in
   rho, each cut into azimuthal cells about `bin_width` long (at least one);
   the surface height of a cell is the top of its highest sphere, max(z + r).
   A ring's height is the median over its cells.
3. Toe: the first ring, going out from the axis, whose height is below
   `floor + toe_height` (default 2 mean diameters: the heap is less than two
   layers thick there); R_toe is that ring's inner edge.
4. Flank: cells with rho in [flank[0] R_toe, flank[1] R_toe] (default 0.45
   and 0.95): this leaves out the top, rounded by the stream that lands on
   it (a poured heap of a few thousand spheres is curved there out to about
   half its radius), and the toe, where the slope bends into the floor.
5. Slope: a least-squares line h = a + b rho through the flank cells of each
   of `wedges` azimuthal wedges (default 8); angle_k = atan(-b_k). The
   angle is their mean and its uncertainty their standard deviation over
   sqrt(wedges): it holds both the roughness of the surface (a few sphere
   sizes) and the heap's asymmetry. The line through all flank cells
   (`pooled`) is returned too, with its regression standard error.

All lengths in metres, angles in degrees.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class HeapAngle:
    angle: float               # deg, mean over wedges
    uncertainty: float         # deg, standard deviation of the wedge angles / sqrt(wedges)
    wedge_angles: np.ndarray   # deg
    pooled: float              # deg, one line through all flank cells
    pooled_error: float        # deg, its regression standard error
    center: tuple              # (x, y) of the axis, m
    apex: float                # m above the floor, highest ring height
    toe: float                 # m, R_toe
    flank: tuple               # (rho_lo, rho_hi), m
    intercept: float           # m, pooled line's height at rho = 0 (above the floor)
    cells: dict = field(default_factory=dict)   # rho, height, wedge, used: the surface points
    rings: dict = field(default_factory=dict)   # rho (ring centre), height (median), count


def line_fit(x: np.ndarray, y: np.ndarray):
    """Least-squares y = a + b x; returns a, b and the standard error of b."""
    n = len(x)
    if n < 3:
        return math.nan, math.nan, math.nan
    design = np.vstack([np.ones(n), x]).T
    coefficients, residuals, _, _ = np.linalg.lstsq(design, y, rcond=None)
    a, b = coefficients
    residual = y - (a + b * x)
    s2 = float(residual @ residual) / (n - 2)
    sxx = float(((x - x.mean()) ** 2).sum())
    return float(a), float(b), math.sqrt(s2 / sxx) if sxx > 0 else math.nan


def measure(x, y, z, r, floor: float = 0.0, center=None, bin_width: float | None = None,
            toe_height: float | None = None, flank=(0.45, 0.95), wedges: int = 8) -> HeapAngle:
    x, y, z, r = (np.asarray(v, dtype=float) for v in (x, y, z, r))
    mean_radius = float(np.mean(r))
    diameter = 2.0 * mean_radius
    bin_width = bin_width or 2.0 * diameter
    toe_height = toe_height if toe_height is not None else 2.0 * diameter
    if center is None:
        raised = z - floor > 2.0 * mean_radius
        pick = raised if raised.sum() >= 10 else np.ones_like(z, dtype=bool)
        center = (float(np.mean(x[pick])), float(np.mean(y[pick])))
    dx, dy = x - center[0], y - center[1]
    rho = np.hypot(dx, dy)
    phi = np.mod(np.arctan2(dy, dx), 2.0 * math.pi)
    top = z + r - floor

    # Surface cells: ring k, azimuthal cell j of n_k = max(1, round(2 pi rho_k / w)).
    ring = np.floor(rho / bin_width).astype(int)
    cell_rho, cell_height, cell_phi, ring_of_cell = [], [], [], []
    rings = {"rho": [], "height": [], "count": []}
    for k in range(int(ring.max()) + 1):
        in_ring = ring == k
        if not in_ring.any():
            rings["rho"].append((k + 0.5) * bin_width)
            rings["height"].append(0.0)
            rings["count"].append(0)
            continue
        centre_rho = (k + 0.5) * bin_width
        n_cells = max(1, int(round(2.0 * math.pi * centre_rho / bin_width)))
        cell = np.floor(phi[in_ring] / (2.0 * math.pi) * n_cells).astype(int) % n_cells
        heights = []
        for j in range(n_cells):
            members = cell == j
            if not members.any():
                continue
            best = int(np.argmax(top[in_ring][members]))
            heights.append(top[in_ring][members][best])
            cell_rho.append(rho[in_ring][members][best])
            cell_height.append(top[in_ring][members][best])
            cell_phi.append((j + 0.5) / n_cells * 2.0 * math.pi)
            ring_of_cell.append(k)
        # Cells with no sphere at all are bare floor: height 0.
        heights += [0.0] * (n_cells - len(heights))
        rings["rho"].append(centre_rho)
        rings["height"].append(float(np.median(heights)))
        rings["count"].append(int(in_ring.sum()))
    ring_rho = np.array(rings["rho"])
    ring_height = np.array(rings["height"])
    apex_ring = int(np.argmax(ring_height))
    low = [k for k in range(apex_ring + 1, len(ring_height)) if ring_height[k] < toe_height]
    toe = float(low[0] * bin_width) if low else float(len(ring_rho) * bin_width)

    cell_rho = np.array(cell_rho)
    cell_height = np.array(cell_height)
    cell_phi = np.array(cell_phi)
    lo, hi = flank[0] * toe, flank[1] * toe
    used = (cell_rho >= lo) & (cell_rho <= hi)
    a, b, error_b = line_fit(cell_rho[used], cell_height[used])
    pooled = math.degrees(math.atan(-b))
    pooled_error = math.degrees(error_b / (1.0 + b * b))
    wedge = np.floor(cell_phi / (2.0 * math.pi) * wedges).astype(int) % wedges
    angles = []
    for w in range(wedges):
        pick = used & (wedge == w)
        _, bw, _ = line_fit(cell_rho[pick], cell_height[pick])
        if math.isfinite(bw):
            angles.append(math.degrees(math.atan(-bw)))
    angles = np.array(angles)
    angle = float(np.mean(angles)) if len(angles) else math.nan
    uncertainty = float(np.std(angles, ddof=1) / math.sqrt(len(angles))) if len(angles) > 1 else math.nan
    return HeapAngle(angle=angle, uncertainty=uncertainty, wedge_angles=angles, pooled=pooled,
                     pooled_error=pooled_error, center=center, apex=float(ring_height.max()), toe=toe,
                     flank=(lo, hi), intercept=a,
                     cells={"rho": cell_rho, "height": cell_height, "wedge": wedge, "used": used},
                     rings={"rho": ring_rho, "height": ring_height, "count": np.array(rings["count"])})


def synthetic_cone(angle_deg: float, height: float, radius: float, seed: int = 0, spread: float = 0.1,
                   fill: float = 0.55):
    """Spheres of mean radius `radius` (+- spread) filling a cone of the given
    angle and height above z = 0, rejection-sampled to a volume fraction about
    `fill` (overlaps allowed): a test object for `measure`."""
    rng = np.random.default_rng(seed)
    slope = math.tan(math.radians(angle_deg))
    base = height / slope
    volume = math.pi * base ** 2 * height / 3.0
    count = int(fill * volume / (4.0 / 3.0 * math.pi * radius ** 3))
    points = []
    while len(points) < count:
        p = rng.uniform([-base, -base, 0.0], [base, base, height], size=(4 * count, 3))
        rho = np.hypot(p[:, 0], p[:, 1])
        inside = p[:, 2] <= height - slope * rho
        points.extend(p[inside][: count - len(points)])
    points = np.array(points)
    r = radius * (1.0 + spread * rng.uniform(-1.0, 1.0, size=len(points)))
    # Centres lie up to one radius below the cone's surface: the sphere tops touch it.
    z = np.maximum(points[:, 2] - r, r)
    return points[:, 0], points[:, 1], z, r


def read_vtu_bodies(path) -> dict:
    """The bodies of a fricdem bodies_NNNNNN.vtu snapshot (VTK XML, binary
    appended or ASCII, output.vtu_format):
    {"x", "y", "z", "radius", "id", "velocity" (n x 3), ...} as float arrays.
    bodies.csv has no radii; the snapshots do (docs/output-format.md)."""
    import xml.etree.ElementTree as ElementTree

    raw = open(path, "rb").read()
    appended = raw.find(b"<AppendedData")
    if appended < 0:
        root = ElementTree.fromstring(raw)
    else:
        # The XML before the raw block, closed; each array's bytes follow the
        # '_' at its offset: a little-endian UInt64 byte count, then the values.
        root = ElementTree.fromstring(raw[:appended] + b"</VTKFile>")
        data_start = raw.index(b"_", appended) + 1
    types = {"Float64": "<f8", "Int64": "<i8", "UInt64": "<u8", "Int32": "<i4", "UInt8": "u1"}

    def values(array) -> np.ndarray:
        if appended < 0:
            return np.array((array.text or "").split(), dtype=float)
        start = data_start + int(array.get("offset"))
        size = int.from_bytes(raw[start:start + 8], "little")
        dtype = np.dtype(types[array.get("type")])
        return np.frombuffer(raw, dtype=dtype, count=size // dtype.itemsize, offset=start + 8).astype(float)

    piece = root.find("UnstructuredGrid/Piece")
    n = int(piece.get("NumberOfPoints"))
    out = {}
    xyz = values(piece.find("Points/DataArray")).reshape(n, 3) if n else np.zeros((0, 3))
    out["x"], out["y"], out["z"] = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    for array in piece.find("PointData"):
        components = int(array.get("NumberOfComponents", "1"))
        array_values = values(array)
        out[array.get("Name")] = array_values.reshape(n, components) if components > 1 else array_values
    return out


def last_snapshot(directory) -> str:
    """Path of the last bodies snapshot listed in DIRECTORY/bodies.pvd."""
    import xml.etree.ElementTree as ElementTree
    from pathlib import Path

    directory = Path(directory)
    datasets = ElementTree.parse(directory / "bodies.pvd").getroot().findall("Collection/DataSet")
    return str(directory / datasets[-1].get("file"))
