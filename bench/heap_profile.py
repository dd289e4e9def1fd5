#!/usr/bin/python3
"""The poured heap of scenes/examples/heap_million.yaml, from its trajectory.

    /usr/bin/python3 bench/heap_profile.py OUT_DIR

reads OUT_DIR/trajectory.h5 (fricdem run ... --out OUT_DIR) and prints, per
frame, the spheres present, their kinetic energy and the heap's height; for
the last frame, the surface height in rings around the axis (the highest
top of a sphere at rest, slower than 5 cm/s, in each ring: the median over
16 sectors; the rain above is left out) and the slope of the rim
fitted where the surface falls from 90 % to 10 % of the height of the flat
top; and draws OUT_DIR/heap_profile.png (the surface against the distance
from the axis, each frame). Nothing is asserted: it reports.
"""
import math
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

RING = 0.02  # m, ring width: two sphere diameters
RESTING_SPEED = 0.05  # m/s: spheres slower than this make the surface
SECTORS = 16


def surface(position, radius):
    """Surface height per ring: the highest sphere top, median over sectors."""
    r = np.hypot(position[:, 0], position[:, 1])
    top = position[:, 2] + radius
    rings = int(r.max() / RING) + 1
    sector = ((np.arctan2(position[:, 1], position[:, 0]) + math.pi) / (2 * math.pi) * SECTORS).astype(int)
    sector = np.minimum(sector, SECTORS - 1)
    ring = (r / RING).astype(int)
    highest = np.zeros((rings, SECTORS))
    np.maximum.at(highest, (ring, sector), top)
    return (np.arange(rings) + 0.5) * RING, np.median(highest, axis=1)


def main(directory):
    f = h5py.File(f"{directory}/trajectory.h5", "r")
    times = f["particles/all/position/time"][:]
    counts = f["observables/all/count/value"][:]
    kinetic = f["observables/energy/kinetic_translational/value"][:]
    figure, axes = plt.subplots(figsize=(7, 4))
    print(f"{'t [s]':>6} {'spheres':>9} {'at rest':>9} {'kinetic [J]':>12} {'top [m]':>8}")
    for k, t in enumerate(times):
        n = int(counts[k])
        position = f["particles/all/position/value"][k, :n]
        radius = f["particles/all/radius/value"][k, :n]
        speed = np.linalg.norm(f["particles/all/velocity/value"][k, :n], axis=1)
        alive = np.isfinite(radius)  # the floor plane's radius is NaN
        spheres = int(alive.sum())
        resting = alive & (speed < RESTING_SPEED)
        position, radius = position[resting], radius[resting]
        if len(radius) == 0:
            continue
        rings, height = surface(position, radius)
        print(f"{t:6.3f} {spheres:9d} {len(radius):9d} {kinetic[k]:12.4g} {height[:5].mean():8.4f}")
        axes.plot(rings, height, lw=1, color=plt.cm.viridis(k / max(1, len(times) - 1)), label=f"t = {t:.2f} s")
    flat = height[: int(0.5 / RING)].mean()  # the top, inside half a metre
    falling = np.where((height < 0.9 * flat) & (height > 0.1 * flat) & (rings > 0.5))[0]
    if len(falling) >= 2:
        slope, intercept = np.polyfit(rings[falling], height[falling], 1)
        print(f"\nlast frame: flat top {flat:.3f} m; rim from {rings[falling[0]]:.2f} to {rings[falling[-1]]:.2f} m, "
              f"slope {math.degrees(math.atan(-slope)):.1f} degrees (fit of {len(falling)} rings)")
    axes.set_xlabel("distance from the axis [m]")
    axes.set_ylabel("surface height [m]")
    axes.set_title(f"heap_million: {spheres} spheres poured from a disk of radius 1 m")
    axes.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(f"{directory}/heap_profile.png", dpi=120)
    print(f"figure: {directory}/heap_profile.png")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
