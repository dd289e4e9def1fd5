#!/usr/bin/python3
"""Writes the chute benchmark scene, fricdem's equivalent of LAMMPS's
bench/in.chute: spheres of diameter 1 flowing down a rough base tilted 26
degrees, periodic along x (down the slope) and y, in LAMMPS's lj units
(diameter 1, density 1, g = 1, step 1e-4; fricdem reads them as SI numbers).

    make_chute.py OUT.yaml [--from-data CHUTE.data] [--threads T]

Generated (no --from-data): a 40 x 20 base of 800 static spheres on a square
lattice of spacing 1 (one layer, z = 0.5: the frozen rough base), and 31 200
spheres on a lattice of spacing 1.01 above it (44 layers, 722 per layer),
moving down at 1 with a spread of 0.1 so that the column compacts within a
few thousand steps; 32 000 spheres in all. Gravity is LAMMPS's `fix gravity
1.0 chute 26.0`: (sin 26, 0, -cos 26).

With --from-data the spheres are listed from a LAMMPS data file that
bench/lammps_data.c wrote from this scene after its settling steps (type 1:
flowing, type 2: static base): bench/chute/chute_compare.sh then times
fricdem and LAMMPS (bench/chute/chute.in) from the same state.

The contact law is LAMMPS's
  pair granular hooke 200000 50 tangential linear_history 57142.857 0.5 0.5 damping mass_velocity
  normal:     F_n = k_n delta + eta_n m_eff d(delta)/dt, k_n = 2e5, eta_n = 50 (no clamp: LAMMPS
              without limit_damping), fricdem hooke with eta_n_mass 50 and limit_damping 0;
  tangential: F_t = -k_t xi - gamma_t v_t capped at 0.5 |F_n|, k_t = 57142.857 and, as LAMMPS's
              linear_history, gamma_t = x_gamma_t eta_n m_eff = 0.5 x 50 x m_eff.
fricdem's dsds dashpot gamma_t is a constant per law, so the scene has one
law per material pair: grain-grain with m_eff = m/2 and grain-base with
m_eff = m (LAMMPS's m_eff against a frozen atom is the other atom's mass,
fricdem's against a static body too), m = pi/6 the mass of a sphere.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from make_pile import OUTPUTS_OFF, read_lammps_data, usage  # noqa: E402  (bench/make_pile.py)

DIAMETER = 1.0
DENSITY = 1.0
MASS = math.pi / 6.0 * DENSITY * DIAMETER ** 3
ANGLE = math.radians(26.0)
LX, LY = 40.0, 40.0
BASE = int(LX) * int(LY)               # 800 base spheres, spacing 1
FLOWING = 32000 - BASE                  # 31 200 flowing spheres
SPACING = 1.0
LAYERS = math.ceil(FLOWING / (math.floor(LX / SPACING) * math.floor(LY / SPACING)))
HEIGHT = LAYERS * SPACING
K_N, ETA_N = 2.0e5, 50.0
K_T, X_GAMMA_T, MU = 57142.857, 0.5, 0.5
STEP = 1.0e-4
SKIN = 0.1                              # LAMMPS in.chute: neighbor 0.1 bin


def listed_bodies(path: str) -> tuple[int, str]:
    """The spheres of a LAMMPS data file (bench/lammps_data.c) as scene bodies."""
    atoms = read_lammps_data(path)
    count = len(atoms)
    lines = ["# The spheres, listed from " + path + " (atom id, type, diameter, density, x, y, z; v, w)."]
    for a, v in atoms:
        if a[1] == "2":
            lines.append(f"  - {{static: true, material: base, shape: {{type: sphere, radius: {0.5 * float(a[2])!r}}}, "
                         f"position: [{a[4]}, {a[5]}, {a[6]}]}}")
        else:
            lines.append(f"  - {{material: grain, shape: {{type: sphere, radius: {0.5 * float(a[2])!r}}}, "
                         f"position: [{a[4]}, {a[5]}, {a[6]}], velocity: [{v[1]}, {v[2]}, {v[3]}], "
                         f"angular_velocity: [{v[4]}, {v[5]}, {v[6]}]}}")
    return count, "\n".join(lines) + "\n"


def law(other: str, effective_mass: float) -> str:
    gamma_t = X_GAMMA_T * ETA_N * effective_mass
    return f"""  - materials: [grain, {other}]
    normal: {{model: hooke, k_n: {K_N!r}, eta_n_mass: {ETA_N!r}, limit_damping: 0}}
    slide: {{model: dsds, k_t: {K_T!r}, gamma_t: {gamma_t!r}, mu: {MU!r}}}  # {X_GAMMA_T} x {ETA_N} x m_eff {effective_mass:.6g}
"""


def scene(threads: int, data: str | None) -> str:
    radius = 0.5 * DIAMETER
    if data is not None:
        count, bodies = listed_bodies(data)
        if count != BASE + FLOWING:
            raise SystemExit(f"make_chute.py: {data} has {count} spheres, not {BASE + FLOWING}")
        bodies = "bodies:\n" + bodies
        generators = ""
    else:
        bodies = ""
        generators = f"""generators:
  - type: lattice             # the frozen rough base: one layer of static spheres
    count: {BASE}
    name_prefix: base
    material: base
    radius: {radius!r}
    region: {{min: [0.0, 0.0, 0.0], max: [{LX!r}, {LY!r}, {DIAMETER!r}]}}
    static: true
  - type: lattice             # the flowing spheres
    count: {FLOWING}
    name_prefix: g
    material: grain
    radius: {radius!r}
    spacing: {SPACING!r}
    jitter: 1.0
    region: {{min: [0.0, 0.0, {DIAMETER!r}], max: [{LX!r}, {LY!r}, {DIAMETER + HEIGHT!r}]}}
    velocity_spread: 0.1
    seed: 7
"""
    return f"""# Chute flow benchmark (bench/chute/make_chute.py), fricdem's equivalent of
# LAMMPS bench/in.chute, lj units: {BASE} base spheres and {FLOWING} flowing ones.
name: chute
time:
  step: {STEP!r}
  duration: {1000 * STEP!r}
  integrator: velocity_verlet   # LAMMPS fix nve/sphere
world:
  gravity: [{math.sin(ANGLE)!r}, 0.0, {-math.cos(ANGLE)!r}]
  periodic: [x, y]
  box: {{min: [0.0, 0.0, 0.0], max: [{LX!r}, {LY!r}, {DIAMETER + HEIGHT + 10.0!r}]}}
  neighbor_skin: {SKIN!r}
  threads: {threads}
materials:
  - {{name: grain, density: {DENSITY!r}}}
  - {{name: base, density: {DENSITY!r}}}
contacts:
{law("grain", 0.5 * MASS)}{law("base", MASS)}{bodies}{generators}{OUTPUTS_OFF}"""


def main() -> int:
    args = sys.argv[1:]
    data, threads = None, 1
    while len(args) > 1 and args[-2] in ("--from-data", "--threads"):
        if args[-2] == "--from-data":
            data = args[-1]
        else:
            threads = int(args[-1])
        args = args[:-2]
    if len(args) != 1:
        return usage(__doc__)
    with open(args[0], "w") as file:
        file.write(scene(threads, data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
