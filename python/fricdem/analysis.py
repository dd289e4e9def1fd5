"""Analysis helpers for granular packings: packing fraction in a box,
coordination number, angle of repose of a heap, contact stress tensor.

They take plain numpy arrays (World.states(), World.bodies(),
World.contacts(), or the columns of bodies.csv and contacts.csv read with
pandas), so they work on a live world and on a run's files alike. Units SI.
python/tests/test_analysis.py checks each against a case with a known answer.

Must not touch: libfricdem (plain numpy in, plain numbers out).
"""
from __future__ import annotations

import math

import numpy as np

_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(20)


# ---------------------------------------------------------------- packing fraction

def _quadrant_area(a: float, b: float, radius: float) -> float:
    """Area of the disk |p| <= radius (centred at 0) where x <= a and y <= b."""
    if radius <= 0.0:
        return 0.0
    r2 = radius * radius

    def s_integral(x: float) -> float:  # integral of sqrt(R^2 - x^2) dx
        x = min(max(x, -radius), radius)
        return 0.5 * (x * math.sqrt(max(r2 - x * x, 0.0)) + r2 * math.asin(x / radius))

    upper = min(max(a, -radius), radius)
    if b >= radius:
        return 2.0 * (s_integral(upper) - s_integral(-radius))
    if b <= -radius:
        return 0.0
    w = math.sqrt(r2 - b * b)  # |x| < w: the chord crosses y = b
    total = 0.0
    # Pieces of [-R, upper]: [-R, -w], [-w, w], [w, R].
    pieces = ((-radius, -w, "outer"), (-w, w, "inner"), (w, radius, "outer"))
    for lo, hi, kind in pieces:
        hi = min(hi, upper)
        if hi <= lo:
            continue
        if kind == "inner":  # chord from -s(x) to b: length b + s(x)
            total += b * (hi - lo) + s_integral(hi) - s_integral(lo)
        elif b >= 0.0:       # the whole chord (2 s(x)) lies below b
            total += 2.0 * (s_integral(hi) - s_integral(lo))
    return total


def _disk_rectangle_area(cx, cy, radius, x0, x1, y0, y1) -> float:
    """Area of the disk (cx, cy, radius) inside [x0, x1] x [y0, y1], exact."""
    q = lambda a, b: _quadrant_area(a - cx, b - cy, radius)  # noqa: E731
    return q(x1, y1) - q(x0, y1) - q(x1, y0) + q(x0, y0)


def _sphere_box_volume(center, radius, box_min, box_max) -> float:
    """Volume of a sphere inside an axis-aligned box. The cross-section area
    A(z) is exact; it is integrated over z by Gauss-Legendre between the
    heights where the section circle meets an edge or corner of the box's
    section (A(z) is analytic between them), so the result is exact to
    round-off for practical purposes (tests: 1e-12 relative)."""
    cx, cy, cz = center
    lo = max(box_min[2], cz - radius)
    hi = min(box_max[2], cz + radius)
    if hi <= lo:
        return 0.0
    inside = all(box_min[a] <= center[a] - radius and center[a] + radius <= box_max[a] for a in range(3))
    if inside:
        return 4.0 / 3.0 * math.pi * radius ** 3
    breaks = {lo, hi}
    dx = (cx - box_min[0], box_max[0] - cx)
    dy = (cy - box_min[1], box_max[1] - cy)
    distances = [abs(d) for d in dx + dy] + [math.hypot(a, b) for a in dx for b in dy]
    for d in distances:
        if d < radius:
            h = math.sqrt(radius * radius - d * d)
            for z in (cz - h, cz + h):
                if lo < z < hi:
                    breaks.add(z)
    edges = sorted(breaks)
    volume = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        half, middle = 0.5 * (b - a), 0.5 * (a + b)
        for node, weight in zip(_GAUSS_NODES, _GAUSS_WEIGHTS):
            z = middle + half * node
            rho = math.sqrt(max(radius * radius - (z - cz) ** 2, 0.0))
            volume += weight * half * _disk_rectangle_area(cx, cy, rho, box_min[0], box_max[0], box_min[1],
                                                           box_max[1])
    return volume


def packing_fraction(positions, radii, box_min, box_max) -> float:
    """Solid fraction of the box [box_min, box_max] (m): the volume of the
    spheres inside it, each cut exactly by the box's faces, over the box's
    volume. positions (n, 3), radii (n,); NaN rows (removed bodies) and
    infinite radii (walls) are skipped."""
    positions = np.asarray(positions, dtype=float)
    radii = np.asarray(radii, dtype=float)
    box_min = np.asarray(box_min, dtype=float)
    box_max = np.asarray(box_max, dtype=float)
    if np.any(box_max <= box_min):
        raise ValueError("packing_fraction: box_max must exceed box_min on every axis")
    keep = np.isfinite(radii) & np.all(np.isfinite(positions), axis=1)
    solid = 0.0
    for center, radius in zip(positions[keep], radii[keep]):
        if np.all(center + radius > box_min) and np.all(center - radius < box_max):
            solid += _sphere_box_volume(center, radius, box_min, box_max)
    return solid / float(np.prod(box_max - box_min))


# ---------------------------------------------------------------- coordination

def coordination_number(contacts, bodies, *, with_walls: bool = False, rattler_threshold: int = 0,
                        normal_force_min: float = 0.0) -> float:
    """Mean number of contacts per dynamic body, Z = 2 C / N for the
    contacts between dynamic bodies (plus one per body-wall contact when
    with_walls). contacts: body_i, body_j (and normal_force, to count only
    contacts carrying more than normal_force_min N); bodies: World.bodies()
    (its `static` and `shape` columns). Bodies with at most
    rattler_threshold contacts (rattlers, usually 0 or 1) are left out of
    both the count and the mean (Z of the force-carrying network)."""
    static = np.asarray(bodies["static"], dtype=bool)
    alive = np.asarray(bodies["shape"]) >= 0
    dynamic = alive & ~static
    i = np.asarray(contacts["body_i"], dtype=int)
    j = np.asarray(contacts["body_j"], dtype=int)
    if "normal_force" in contacts and normal_force_min > 0.0:
        carrying = np.asarray(contacts["normal_force"]) > normal_force_min
        i, j = i[carrying], j[carrying]
    degree = np.zeros(len(static), dtype=int)
    both = dynamic[i] & dynamic[j]
    np.add.at(degree, i[both], 1)
    np.add.at(degree, j[both], 1)
    if with_walls:
        wall_i = dynamic[j] & ~dynamic[i]
        wall_j = dynamic[i] & ~dynamic[j]
        np.add.at(degree, j[wall_i], 1)
        np.add.at(degree, i[wall_j], 1)
    counted = dynamic & (degree > rattler_threshold)
    if not np.any(counted):
        return 0.0
    return float(degree[counted].sum()) / float(counted.sum())


# ---------------------------------------------------------------- angle of repose

def repose_angle(positions, radii, *, center=None, axis=2, bins: int = 20, fit_range=(0.2, 0.8)) -> dict:
    """Angle of repose of a heap (degrees): the surface is the highest
    sphere top (height + radius) in each ring around the heap's axis (through
    `center`, default the heap's centre of mass; `axis` 0, 1 or 2 is up);
    a straight line through the ring surface heights between fit_range
    (fractions of the heap's radius: away from the rounded top and the
    scattered foot) gives the slope. Returns angle, its standard error
    (from the fit), the slope, and the rings (radius, height) used."""
    positions = np.asarray(positions, dtype=float)
    radii = np.asarray(radii, dtype=float)
    keep = np.isfinite(radii) & np.all(np.isfinite(positions), axis=1)
    positions, radii = positions[keep], radii[keep]
    up = positions[:, axis]
    flat = np.delete(positions, axis, axis=1)
    middle = flat.mean(axis=0) if center is None else np.delete(np.asarray(center, dtype=float), axis)
    r = np.hypot(*(flat - middle).T)
    top = up + radii
    extent = r.max()
    edges = np.linspace(0.0, extent, bins + 1)
    ring_r, ring_h = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (r >= lo) & (r < hi)
        if np.any(inside):
            ring_r.append(0.5 * (lo + hi))
            ring_h.append(top[inside].max())
    ring_r, ring_h = np.array(ring_r), np.array(ring_h)
    chosen = (ring_r >= fit_range[0] * extent) & (ring_r <= fit_range[1] * extent)
    if chosen.sum() < 3:
        raise ValueError("repose_angle: fewer than 3 rings in the fit range; use more spheres or fewer bins")
    (slope, intercept), covariance = np.polyfit(ring_r[chosen], ring_h[chosen], 1, cov=True)
    angle = math.degrees(math.atan(-slope))
    slope_error = math.sqrt(covariance[0, 0])
    angle_error = math.degrees(slope_error / (1.0 + slope * slope))
    return {"angle": angle, "angle_error": angle_error, "slope": slope, "intercept": intercept,
            "ring_radius": ring_r, "ring_height": ring_h, "fitted": chosen}


# ---------------------------------------------------------------- stress

def stress_tensor(contacts, positions, volume: float, *, bodies=None, region_min=None, region_max=None) -> np.ndarray:
    """Mean stress in a volume from its contacts (Love-Weber):
        sigma = (1 / V) sum_c f_c (x) l_c,
    f_c the force body i exerts on body j (-force_on_i), l_c the branch
    vector from body i's centre to body j's. For a contact with a wall
    (body i not a sphere, known from `bodies`, World.bodies()) the branch is
    twice the vector from the contact point to the sphere's centre: the
    sphere's half of a branch to its mirror image. Compression is positive
    (the soil-mechanics sign). contacts: body_i, body_j, force_on_i, point_i
    (World.contacts()); positions (n, 3) of the body slots; volume in m^3.
    With region_min / region_max only the contacts whose point lies in that
    box count (V should then be the box's volume)."""
    positions = np.asarray(positions, dtype=float)
    i = np.asarray(contacts["body_i"], dtype=int)
    j = np.asarray(contacts["body_j"], dtype=int)
    force_on_j = -np.asarray(contacts["force_on_i"], dtype=float).reshape(-1, 3)
    point = np.asarray(contacts["point_i"], dtype=float).reshape(-1, 3)
    if region_min is not None or region_max is not None:
        low = np.asarray(region_min if region_min is not None else [-np.inf] * 3, dtype=float)
        high = np.asarray(region_max if region_max is not None else [np.inf] * 3, dtype=float)
        inside = np.all((point >= low) & (point <= high), axis=1)
        i, j, force_on_j, point = i[inside], j[inside], force_on_j[inside], point[inside]
    branch = positions[j] - positions[i]
    if bodies is not None:
        wall = np.asarray(bodies["shape"])[i] != 0
        branch[wall] = 2.0 * (positions[j][wall] - point[wall])
    return np.einsum("ka,kb->ab", force_on_j, branch) / volume
