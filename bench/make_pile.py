#!/usr/bin/python3
"""Writes the benchmark scene: N spheres settling under gravity in a box of
five static planes (floor and four walls), frictionless hooke contacts,
outputs off.

    make_pile.py N STEPS THREADS OUT.yaml [--from-data PILE.data]

With --from-data the spheres are not generated but listed, with their radii,
positions, velocities and spins, from a LAMMPS data file that
bench/lammps_data.c wrote from this pile (after its settling steps): the
LAMMPS comparison (bench/lammps_compare.sh) then times fricdem and LAMMPS from
the same settled state. The box is the same as for N generated spheres.

The pile has the same height (20 lattice layers) for every N and a square
cross-section that grows with N, so each sphere sees statistically the same
dynamics whatever N is, and the cost per particle-step can be compared
across N. The spheres (radius 5 mm +- 5%) start on a lattice whose spacing
leaves gaps of up to 10% of a radius, moving down at 0.5 m/s: the bottom
layer meets the floor within ~10 steps and the compaction front reaches the
top after ~400 steps, after which every sphere has several contacts.
"""
import math
import sys

RADIUS = 0.005           # m
SPREAD = 0.02            # radius_spread
LAYERS = 20
DENSITY = 2500.0         # kg/m^3
K_N = 1.0e4              # N/m: contact time pi sqrt(m / k) = 1.1 ms
STEP = 5.0e-5            # s: ~23 steps per contact, 1/13 of the critical step


def read_lammps_data(path: str) -> list[tuple[list[str], list[str]]]:
    """The atoms of a LAMMPS data file that bench/lammps_data.c wrote: per
    atom its `Atoms # sphere` fields (id, type, diameter, density, x, y, z)
    and its `Velocities` fields (id, vx, vy, vz, wx, wy, wz), as strings."""
    text = open(path).read()
    atoms = text.split("Atoms # sphere")[1].split("Velocities")[0].split()
    velocities = text.split("Velocities")[1].split()
    return [(atoms[7 * k:7 * k + 7], velocities[7 * k:7 * k + 7]) for k in range(len(atoms) // 7)]


def listed_bodies(path: str) -> tuple[int, str]:
    """The spheres of a LAMMPS data file (bench/lammps_data.c) as scene bodies."""
    atoms = read_lammps_data(path)
    count = len(atoms)
    lines = ["# The spheres, listed from " + path + " (atom id, diameter, density, x, y, z; v, w)."]
    for a, v in atoms:
        lines.append(f"  - {{material: grain, shape: {{type: sphere, radius: {0.5 * float(a[2])!r}}}, "
                     f"position: [{a[4]}, {a[5]}, {a[6]}], velocity: [{v[1]}, {v[2]}, {v[3]}], "
                     f"angular_velocity: [{v[4]}, {v[5]}, {v[6]}]}}")
    return count, "\n".join(lines) + "\n"


def scene(n: int, steps: int, threads: int, data: str | None = None) -> str:
    spacing = 2.0 * RADIUS * (1.0 + SPREAD)
    side_sites = math.ceil(math.sqrt(n / LAYERS))
    layers = math.ceil(n / side_sites ** 2)
    half = 0.5 * side_sites * spacing
    height = layers * spacing
    listed = ""
    if data is not None:
        count, listed = listed_bodies(data)
        if count != n:
            raise SystemExit(f"make_pile.py: {data} has {count} spheres, not {n}")
    generator = f"""generators:
  - type: lattice
    count: {n}
    name_prefix: g
    material: grain
    radius: {RADIUS!r}
    radius_spread: {SPREAD!r}
    region: {{min: [{-half!r}, {-half!r}, 0.0], max: [{half!r}, {half!r}, {height!r}]}}
    velocity: [0.0, 0.0, -0.5]
    jitter: 1.0
    seed: 1
""" if data is None else ""
    return f"""# Benchmark pile (bench/make_pile.py {n} {steps} {threads}): {n} spheres,
# {side_sites} x {side_sites} x {layers} lattice, box {2 * half:.4g} m wide.
name: pile_{n}
time:
  step: {STEP!r}
  duration: {steps * STEP!r}
  integrator: symplectic_euler
world:
  gravity: [0.0, 0.0, -9.81]
  threads: {threads}
materials:
  - {{name: grain, density: {DENSITY!r}, youngs_modulus: 1.0e9, poisson_ratio: 0.3}}
contacts:
  - materials: [grain, grain]
    normal: {{model: hooke, k_n: {K_N!r}, restitution: 0.3}}
bodies:
  - {{name: floor, static: true, material: grain, shape: {{type: plane, normal: [0, 0, 1]}}, position: [0, 0, 0]}}
  - {{name: wall_x_min, static: true, material: grain, shape: {{type: plane, normal: [1, 0, 0]}}, position: [{-half!r}, 0, 0]}}
  - {{name: wall_x_max, static: true, material: grain, shape: {{type: plane, normal: [-1, 0, 0]}}, position: [{half!r}, 0, 0]}}
  - {{name: wall_y_min, static: true, material: grain, shape: {{type: plane, normal: [0, 1, 0]}}, position: [0, {-half!r}, 0]}}
  - {{name: wall_y_max, static: true, material: grain, shape: {{type: plane, normal: [0, -1, 0]}}, position: [0, {half!r}, 0]}}
{listed}{generator}output:
  csv_interval: 1.0e9
  bodies_csv: false
  contacts_csv: false
  energy_csv: false
  vtu_interval: 0.0
"""


def main() -> int:
    args = sys.argv[1:]
    data = None
    if len(args) == 6 and args[4] == "--from-data":
        data = args[5]
        args = args[:4]
    if len(args) != 4:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    n, steps, threads, path = int(args[0]), int(args[1]), int(args[2]), args[3]
    with open(path, "w") as file:
        file.write(scene(n, steps, threads, data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
