#!/usr/bin/python3
"""A multi-stage study from Python: fill a box, let the pile settle, then
tilt it degree by degree until it slides (docs/python.md).

The scene (scenes/examples/tilt_box.yaml) pours 200 glass spheres into a
10 cm x 4 cm box during its `fill` stage. This script then
  1. lets the pile settle until its kinetic energy is below 1e-7 J,
  2. tilts gravity by one degree every 50 ms (the box tilts about y),
     recording the kinetic energy and the fraction of the spheres that have
     moved more than a radius since the pile settled (an avalanche of the
     surface layers shows as a jump of both),
  3. plots both against the tilt angle, with the packing fraction and
     coordination number of the settled pile in the title,
and writes the figure (default docs/figures/python_tilt_study.png).

Usage: /usr/bin/python3 examples/python/tilt_study.py [FIGURE.png]
(build the library first: make build, or make test).
"""
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import fricdem  # noqa: E402
from fricdem import analysis  # noqa: E402

G = 9.81


def kinetic_energy(world, bodies):
    states = world.states()
    moving = ~bodies["static"] & (bodies["shape"] >= 0)
    v2 = np.sum(states["velocity"][moving] ** 2, axis=1)
    return 0.5 * float(np.sum(bodies["mass"][moving] * v2))


def main(figure: Path) -> None:
    scene = fricdem.Scene(ROOT / "scenes" / "examples" / "tilt_box.yaml")
    world = scene.world
    scene.run()  # the scene's stages: fill
    bodies = world.bodies()
    grains = ~bodies["static"]

    # 1. Settle.
    while kinetic_energy(world, bodies) > 1e-7 and world.time < 3.0:
        world.step(500)
    settled = world.states()["position"][grains]
    world.request_contacts()
    world.step()
    radii = bodies["radius"][grains]
    height = float(np.max(settled[:, 2] + radii))
    phi = analysis.packing_fraction(settled, radii, (-0.05, -0.02, 0.0), (0.05, 0.02, 0.5 * height))
    z = analysis.coordination_number(world.contacts(), bodies, rattler_threshold=1)
    print(f"settled at t = {world.time:.2f} s: packing fraction {phi:.3f} (lower half), coordination {z:.2f}")

    # 2. Tilt.
    angles, energies, moved = [], [], []
    for degrees in range(0, 46):
        a = math.radians(degrees)
        world.set_gravity((G * math.sin(a), 0.0, -G * math.cos(a)))
        world.step(5000)  # 50 ms at 1e-5 s
        angles.append(degrees)
        energies.append(kinetic_energy(world, bodies))
        travel = np.linalg.norm(world.states()["position"][grains] - settled, axis=1)
        moved.append(float(np.mean(travel > radii)))
    moved = np.array(moved)
    slid = np.nonzero(moved > 0.1)[0]
    failure = angles[slid[0]] if len(slid) else None
    print("the surface avalanches at", f"{failure} degrees" if failure is not None else "no angle up to 45 degrees")

    # 3. Plot.
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 6.0), sharex=True)
    top.semilogy(angles, np.maximum(energies, 1e-12), "o-", color="tab:red")
    top.set_ylabel("kinetic energy after 50 ms (J)")
    top.set_title(f"200 spheres, packing fraction {phi:.3f}, coordination {z:.2f}")
    bottom.plot(angles, 100 * moved, "o-", color="tab:blue")
    bottom.axhline(10, color="gray", ls="--", label="10% of the spheres")
    if failure is not None:
        for axis in (top, bottom):
            axis.axvline(failure, color="black", ls=":", label=f"avalanche at {failure} deg")
    bottom.set_xlabel("tilt angle (degrees)")
    bottom.set_ylabel("spheres moved > 1 radius (%)")
    bottom.legend()
    fig.tight_layout()
    figure.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(figure, dpi=120)
    print("figure:", figure)
    scene.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "figures" / "python_tilt_study.png")
