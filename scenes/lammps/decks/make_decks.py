#!/usr/bin/python3
"""Writes the atoms of the two shipped LAMMPS decks (issue 18, `fricdem
import-lammps`): polydisperse.data (read_data: 2 atom types, Atoms and
Velocities) and settle_atoms.lmp (included: create_atoms single lines).
Also mixing_by_hand.lmp, the 1-2 line of mixing.in as LAMMPS's manual mixes
it. Deterministic (numpy's PCG64, seed 18); rerun only to change the decks, then
regenerate tests/golden/lammps_import.csv with
    /usr/bin/python3 scripts/lammps/run_lammps.py --cases import
"""
import math
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def polydisperse(rng: np.random.Generator) -> None:
    """120 spheres of radius 1.5-2.5 mm, loose in a 30 x 30 mm periodic
    column above a floor at z = 0; the small half type 1 (glass), the large
    half type 2 (steel); random velocities (0.2 m/s) and spins (20 rad/s)."""
    box = (0.0, 0.03, 0.0, 0.03, 0.0, 0.06)
    centres, radii = [], []
    while len(centres) < 120:
        r = rng.uniform(0.0015, 0.0025)
        c = np.array([rng.uniform(box[0], box[1]), rng.uniform(box[2], box[3]), rng.uniform(r + 0.0005, box[5] - r)])
        clear = True
        for other, ro in zip(centres, radii):
            d = c - other
            d[:2] -= np.round(d[:2] / 0.03) * 0.03  # periodic in x and y
            if np.linalg.norm(d) < r + ro + 0.0002:
                clear = False
                break
        if clear:
            centres.append(c)
            radii.append(r)
    lines = ["fricdem issue 18: polydisperse spheres for polydisperse.in (make_decks.py)", "",
             f"{len(centres)} atoms", "2 atom types", "",
             f"{box[0]} {box[1]} xlo xhi", f"{box[2]} {box[3]} ylo yhi", f"{box[4]} {box[5]} zlo zhi", "",
             "Atoms # sphere", ""]
    for k, (c, r) in enumerate(zip(centres, radii), start=1):
        kind = 1 if r < 0.002 else 2
        density = 2500.0 if kind == 1 else 7800.0
        lines.append(f"{k} {kind} {2 * r!r} {density!r} {c[0]!r} {c[1]!r} {c[2]!r}")
    lines += ["", "Velocities", ""]
    for k in range(1, len(centres) + 1):
        v = rng.uniform(-0.2, 0.2, 3)
        w = rng.uniform(-20.0, 20.0, 3)
        lines.append(f"{k} " + " ".join(repr(float(x)) for x in (*v, *w)))
    (HERE / "polydisperse.data").write_text("\n".join(lines) + "\n")


def settle(rng: np.random.Generator) -> None:
    """A frozen rough base of 5 x 5 spheres (type 2, diameter 4 mm, resting
    on z = 0) and 36 grains (type 1) on a jittered 3 x 3 x 4 lattice just
    above it, inside the 20 x 20 x 40 mm box of settle.in."""
    lines = ["# Atoms of settle.in (make_decks.py): the base (type 2), then the grains (type 1)."]
    for i in range(5):
        for j in range(5):
            lines.append(f"create_atoms 2 single {-0.008 + 0.004 * i!r} {-0.008 + 0.004 * j!r} 0.002 units box")
    for k in range(4):
        for i in range(3):
            for j in range(3):
                x, y = -0.005 + 0.005 * i + rng.uniform(-5e-4, 5e-4), -0.005 + 0.005 * j + rng.uniform(-5e-4, 5e-4)
                z = 0.0058 + 0.0036 * k + rng.uniform(0.0, 2e-4)
                lines.append(f"create_atoms 1 single {x!r} {y!r} {z!r} units box")
    (HERE / "settle_atoms.lmp").write_text("\n".join(lines) + "\n")


def mixing_by_hand() -> None:
    """mixing.in's 1-2 pair, mixed as LAMMPS's manual says (the same models,
    each coefficient the geometric mean sqrt(a b) of the two types', as its
    mix_geom computes it), for Debian's LAMMPS, which does not mix the models."""
    one = {"k_n": 2.0e4, "eta": 300.0, "k_t": 6.0e3, "x_gammat": 0.5, "mu": 0.4}
    two = {"k_n": 5.0e4, "eta": 500.0, "k_t": 1.5e4, "x_gammat": 0.3, "mu": 0.6}
    m = {key: math.sqrt(one[key] * two[key]) for key in one}
    line = (f"pair_coeff      1 2 hooke {m['k_n']!r} {m['eta']!r} tangential linear_history {m['k_t']!r} "
            f"{m['x_gammat']!r} {m['mu']!r} twisting marshall damping mass_velocity limit_damping")
    (HERE / "mixing_by_hand.lmp").write_text("# mixing.in's 1-2 pair as LAMMPS's manual mixes it (make_decks.py).\n"
                                             + line + "\n")


if __name__ == "__main__":
    generator = np.random.default_rng(18)
    polydisperse(generator)
    settle(generator)
    mixing_by_hand()
