#!/usr/bin/python3
"""Writes the benchmark scene: N spheres settling under gravity in a box of
five static planes (floor and four walls), frictionless hooke contacts,
outputs off.

    make_pile.py N STEPS THREADS OUT.yaml [--from-data PILE.data] [--in-place]

With --from-data the spheres are not generated but read, with their radii,
positions, velocities and spins, from OUT.csv (a `bodies_file`, written next
to OUT.yaml) made from a LAMMPS data file that
bench/lammps_data.c wrote from this pile (after its settling steps): the
LAMMPS comparison (bench/lammps_compare.sh) then times fricdem and LAMMPS from
the same settled state. The box is the same as for N generated spheres.

With --in-place the pile is generated already settled, for sizes whose
settling would take too long (10^7): equal spheres at rest in a simple cubic
lattice, each touching its six neighbours (the bottom layer the floor), which
gravity then presses into contact, about three contacts per sphere.

The pile has the same height (20 lattice layers) for every N and a square
cross-section that grows with N, so each sphere sees statistically the same
dynamics whatever N is, and the cost per particle-step can be compared
across N. The spheres (radius 5 mm +- 5%) start on a lattice whose spacing
leaves gaps of up to 10% of a radius, moving down at 0.5 m/s: the bottom
layer meets the floor within ~10 steps and the compaction front reaches the
top after ~400 steps, after which every sphere has several contacts.
"""
import math
import os
import sys

RADIUS = 0.005           # m
SPREAD = 0.02            # radius_spread
LAYERS = 20
DENSITY = 2500.0         # kg/m^3
K_N = 1.0e4              # N/m: contact time pi sqrt(m / k) = 1.1 ms
STEP = 5.0e-5            # s: ~23 steps per contact, 1/13 of the critical step

# The output section of the benchmark scenes (this pile and bench/chute's
# chute): every output off, so that a timing measures the stepping alone.
OUTPUTS_OFF = """output:
  csv_interval: 1.0e9
  bodies_csv: false
  contacts_csv: false
  energy_csv: false
  vtu_interval: 0.0
"""


def usage(doc: str) -> int:
    """Prints the usage paragraph of a script's docstring (its second) to
    stderr; returns the exit status of bad usage, 2."""
    print(doc.split("\n\n")[1].strip(), file=sys.stderr)
    return 2


def read_lammps_data(path: str) -> list[tuple[list[str], list[str]]]:
    """The atoms of a LAMMPS data file that bench/lammps_data.c wrote: per
    atom its `Atoms # sphere` fields (id, type, diameter, density, x, y, z)
    and its `Velocities` fields (id, vx, vy, vz, wx, wy, wz), as strings.
    Read line by line (a pile of 10^6 spheres is a 170 MB file)."""
    atoms, velocities = [], []
    section = None
    with open(path) as file:
        for line in file:
            fields = line.split()
            if not fields:
                continue
            if line.startswith("Atoms"):
                section = atoms
            elif line.startswith("Velocities"):
                section = velocities
            elif section is not None and fields[0].isdigit():
                section.append(fields)
    return list(zip(atoms, velocities))


def write_bodies_file(data: str, path: str) -> int:
    """The spheres of a LAMMPS data file (bench/lammps_data.c) as a CSV
    bodies file (docs/scene-format.md, bodies_file); returns their count.
    Streams: one short string per atom is held until its velocity line is
    read (10^7 spheres: about 1.5 GB, where the fields as lists took 10)."""
    placed = []
    section = None
    count = 0
    with open(data) as source, open(path, "w") as file:
        file.write(f"# the spheres of {data}: radius m, x y z m, v m/s, w rad/s\n")
        file.write("radius,x,y,z,vx,vy,vz,wx,wy,wz\n")
        for line in source:
            fields = line.split()
            if not fields:
                continue
            if line.startswith("Atoms"):
                section = "atoms"
            elif line.startswith("Velocities"):
                section = "velocities"
            elif section == "atoms" and fields[0].isdigit():
                placed.append(f"{0.5 * float(fields[2])!r},{fields[4]},{fields[5]},{fields[6]}")
            elif section == "velocities" and fields[0].isdigit():
                file.write(f"{placed[count]},{','.join(fields[1:7])}\n")
                placed[count] = ""
                count += 1
    return count


def scene(n: int, steps: int, threads: int, out: str, data: str | None = None, in_place: bool = False) -> str:
    spacing = 2.0 * RADIUS * (1.0 if in_place else 1.0 + SPREAD)
    side_sites = math.ceil(math.sqrt(n / LAYERS))
    layers = math.ceil(n / side_sites ** 2)
    half = 0.5 * side_sites * spacing
    height = layers * spacing
    listed = ""
    if data is not None:
        csv_path = os.path.splitext(out)[0] + ".csv"
        count = write_bodies_file(data, csv_path)
        if count != n:
            raise SystemExit(f"make_pile.py: {data} has {count} spheres, not {n}")
        listed = f"bodies_file: {{path: {os.path.basename(csv_path)}, material: grain}}\n"
    generator = f"""generators:
  - type: lattice
    count: {n}
    name_prefix: g
    material: grain
    radius: {RADIUS!r}
    radius_spread: {0.0 if in_place else SPREAD!r}
    region: {{min: [{-half!r}, {-half!r}, 0.0], max: [{half!r}, {half!r}, {height!r}]}}
    velocity: [0.0, 0.0, {0.0 if in_place else -0.5}]
    jitter: {0.0 if in_place else 1.0}
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
{listed}{generator}{OUTPUTS_OFF}"""


def main() -> int:
    args = sys.argv[1:]
    data = None
    in_place = "--in-place" in args
    args = [a for a in args if a != "--in-place"]
    if len(args) == 6 and args[4] == "--from-data":
        data = args[5]
        args = args[:4]
    if len(args) != 4:
        return usage(__doc__)
    n, steps, threads, path = int(args[0]), int(args[1]), int(args[2]), args[3]
    with open(path, "w") as file:
        file.write(scene(n, steps, threads, path, data, in_place))
    return 0


if __name__ == "__main__":
    sys.exit(main())
