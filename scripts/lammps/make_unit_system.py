#!/usr/bin/python3
"""Writes the many-sphere parity system of issue 18 (after LAMMPS's own unit
test of the granular pair styles, unittest/force-styles/tests/
atomic-pair-gran*.yaml: overlapping spheres in a periodic box with random
velocities), once, for both engines:

  scripts/lammps/unit_system.data     LAMMPS data file (atom_style sphere, velocities and spins)
  scenes/lammps/unit_<law>.yaml       fricdem scenes of the same spheres, one per law
  scripts/lammps/unit_dilute.data     the dilute variant: the same sizes in a cube of 150 mm, no
  scenes/lammps/unit_dilute_<law>.yaml overlaps at the start, velocities up to 2 m/s: the contacts
                                      all begin during the run (2500 steps of 1e-5 s: 12 collisions)

32 spheres of radius 8 to 12 mm (polydisperse), density 2500 kg/m^3, placed at
random in a periodic cube of 80 mm with overlaps up to a fifth of the sum of
radii, velocities up to 0.5 m/s and spins up to 50 rad/s in each component
(numpy's default_rng(18): the files are reproducible). The laws, one deck each
(unit_<law>.in) and one scene each:

  hooke_roll_marshall  hooke, mass_velocity damping, linear_history with
                       xgammat, rolling sds, twisting marshall, limit_damping
  hertz_mindlin_sds    hertz/material, viscoelastic damping, mindlin, rolling
                       sds, twisting sds, limit_damping

fricdem runs them with world.lammps_arms and roll transport 1, the LAMMPS
conventions (docs/lammps.md). Run once; the outputs are committed.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
COUNT = 32
BOX = 0.08
DENSITY = 2500.0

LAWS = {
    "hooke_roll_marshall": (
        "    normal: {model: hooke, k_n: 1.0e5, eta_n_mass: 2000.0, limit_damping: 1}  # hooke 1e5 2000 damping mass_velocity\n"
        "    slide: {model: dsds, k_t: 5.0e4, x_gamma_t: 0.5, mu: 0.5}  # linear_history 5e4 0.5 0.5\n"
        "    roll: {model: dsds, k_roll: 2.0e4, gamma_roll: 5.0, mu_roll: 0.2, transport: 1}  # rolling sds 2e4 5 0.2\n"
        "    spin: {model: marshall}  # twisting marshall\n",
        "hooke 1.0e5 2000.0 tangential linear_history 5.0e4 0.5 0.5 rolling sds 2.0e4 5.0 0.2 "
        "twisting marshall damping mass_velocity limit_damping",
        "{name: grain, density: 2500.0}"),
    "hertz_mindlin_sds": (
        "    normal: {model: hertz, eta_n_visco: 5.0e5, limit_damping: 1}  # hertz/material 1e8 5e5 0.3 damping viscoelastic\n"
        "    slide: {model: mindlin, k_t: 4.0e7, x_gamma_t: 0.5, mu_s: 0.4}  # mindlin 4e7 0.5 0.4\n"
        "    roll: {model: dsds, k_roll: 2.0e4, gamma_roll: 5.0, mu_roll: 0.2, transport: 1}  # rolling sds 2e4 5 0.2\n"
        "    spin: {model: dsds, k_twist: 2.0, gamma_twist: 0.005, mu_twist: 0.001}  # twisting sds 2 0.005 0.001\n",
        "hertz/material 1.0e8 5.0e5 0.3 tangential mindlin 4.0e7 0.5 0.4 rolling sds 2.0e4 5.0 0.2 "
        "twisting sds 2.0 0.005 0.001 damping viscoelastic limit_damping",
        "{name: grain, density: 2500.0, youngs_modulus: 1.0e8, poisson_ratio: 0.3}"),
}


SYSTEMS = {
    # name: (box, closest approach as a fraction of the sum of radii, speed, time step, steps, dump every)
    "unit": (BOX, 0.8, 0.5, 1.0e-6, 200, 10),
    "unit_dilute": (0.15, 1.05, 2.0, 1.0e-5, 2500, 100),
}


def spheres(box: float, closest: float, speed: float):
    rng = np.random.default_rng(18)
    radii, centres = [], []
    while len(radii) < COUNT:
        r = rng.uniform(0.008, 0.012)
        c = rng.uniform(0.0, box, 3)
        ok = True
        for r2, c2 in zip(radii, centres):
            d = c - c2
            d -= box * np.round(d / box)  # nearest image
            if np.linalg.norm(d) < closest * (r + r2):
                ok = False
                break
        if ok:
            radii.append(r)
            centres.append(c)
    velocities = rng.uniform(-speed, speed, (COUNT, 3))
    spins = rng.uniform(-50.0, 50.0, (COUNT, 3))
    return np.array(radii), np.array(centres), velocities, spins


def main() -> None:
    for system, (box, closest, speed, step, steps, every) in SYSTEMS.items():
        write_system(system, box, closest, speed, step, steps, every)


def write_system(system: str, box: float, closest: float, speed: float, step: float, steps: int, every: int) -> None:
    radii, centres, velocities, spins = spheres(box, closest, speed)
    with open(HERE / f"{system}_system.data" if system == "unit" else HERE / f"{system}.data", "w") as f:
        f.write(f"fricdem issue 18 parity system {system} (scripts/lammps/make_unit_system.py)\n\n")
        f.write(f"{COUNT} atoms\n1 atom types\n\n")
        f.write(f"0.0 {box!r} xlo xhi\n0.0 {box!r} ylo yhi\n0.0 {box!r} zlo zhi\n\nAtoms # sphere\n\n")
        for k in range(COUNT):
            x, y, z = centres[k]
            f.write(f"{k + 1} 1 {2.0 * radii[k]!r} {DENSITY!r} {x!r} {y!r} {z!r}\n")
        f.write("\nVelocities\n\n")
        for k in range(COUNT):
            f.write(f"{k + 1} " + " ".join(repr(float(v)) for v in (*velocities[k], *spins[k])) + "\n")
    data = f"{system}_system.data" if system == "unit" else f"{system}.data"
    for law, (contacts, _, material) in LAWS.items():
        lines = [
            f"# Issue 18: the many-sphere parity system (scripts/lammps/make_unit_system.py writes this file and",
            f"# scripts/lammps/{data}; the deck scripts/lammps/{system}_{law}.in runs LAMMPS on the same",
            "# spheres). 32 polydisperse spheres in a periodic cube, random velocities and spins;",
            "# LAMMPS's conventions: world.lammps_arms, roll transport 1. Compared by tests/test_lammps_golden.c",
            f"# with tests/golden/lammps_unit.csv (each sphere's force and spin every {every} steps, {steps} steps "
            "from step 0).",
            f"name: {system}_{law}",
            "time:",
            f"  step: {step!r}",
            f"  duration: {steps * step!r}",
            "  integrator: velocity_verlet  # LAMMPS fix nve/sphere",
            "world:",
            "  gravity: [0.0, 0.0, 0.0]",
            "  lammps_arms: true",
            "  periodic: [x, y, z]",
            f"  box: {{min: [0.0, 0.0, 0.0], max: [{box!r}, {box!r}, {box!r}]}}",
            "materials:",
            f"  - {material}",
            "contacts:",
            "  - materials: [grain, grain]",
            contacts.rstrip("\n"),
            "bodies:",
        ]
        for k in range(COUNT):
            x, y, z = centres[k]
            v, w = velocities[k], spins[k]
            lines.append(f"  - {{name: b{k + 1}, material: grain, shape: {{type: sphere, radius: {radii[k]!r}}}, "
                         f"position: [{x!r}, {y!r}, {z!r}], velocity: [{v[0]!r}, {v[1]!r}, {v[2]!r}], "
                         f"angular_velocity: [{w[0]!r}, {w[1]!r}, {w[2]!r}]}}")
        lines += ["output:", f"  csv_interval: {every * step!r}", "  bodies_csv: true", "  contacts_csv: false",
                  "  energy_csv: false", "  vtu_interval: 0.0"]
        (ROOT / "scenes" / "lammps" / f"{system}_{law}.yaml").write_text("\n".join(lines) + "\n")
        (HERE / f"{system}_{law}.in").write_text(
            f"# Issue 18: the many-sphere parity system {system}, law {law} (scripts/lammps/make_unit_system.py;\n"
            f"# fricdem: scenes/lammps/{system}_{law}.yaml). Run by run_lammps.py --cases unit.\n"
            f"variable law string \"{LAWS[law][1]}\"\n"
            f"variable data string {data}\n"
            f"variable timestep equal {step!r}\n"
            f"variable steps equal {steps}\n"
            f"variable every equal {every}\n"
            f"variable dump index {system}_{law}.dump\n"
            "include unit_system.lmp\n")


if __name__ == "__main__":
    main()
