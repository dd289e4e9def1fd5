#!/usr/bin/python3
"""Writes scenes/complementarity/guideway.yaml: the linear guideway of
Tasora & Anitescu Sec. 6.2 as the complementarity stepper sees it.

The guideway has four rows of balls (2 R_b = 6.4 mm) on raceways at 45
degrees to the load. Under a downward load F_y and no preload, the two upper
rows carry it and the two lower ones carry nothing; the two loaded rows are
mirror images. So the scene holds one loaded row: nine balls between the
rail's raceway (a static plane) and the carriage's (a plane that moves), with
half the load, half the carriage's mass and half the seal friction, the
carriage's rotations locked and its lateral translation too (what the mirror
row balances in the one-piece carriage). The resisting force of the whole
guideway is twice the row's. (Raceways are half-spaces here: the mirror row
would lie inside this row's rail, which is why it is left to symmetry.)

Run: /usr/bin/python3 scripts/scenes/make_guideway.py (rewrites the scene).
"""
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RB = 3.2e-3                     # ball radius, m
BALLS = 9                       # per row (Sec. 6.2: "nine balls, on average")
PITCH = 3.0 * RB                # spacing along the rail
LOAD = 490.0                    # F_y, N (Fig. 8)
SEAL = 5.3                      # S, N
ZETA = 0.005
PUSH = 20.0                     # N along the rail (the whole carriage)
CARRIAGE = 2.0                  # kg per raceway (4 kg carriage)
S2 = math.sqrt(0.5)

lines = [
    "# Linear guideway, Tasora & Anitescu Sec. 6.2 (written by scripts/scenes/make_guideway.py).",
    "# One of the two loaded rows (the other is its mirror image): 9 steel balls (2 R_b = 6.4 mm)",
    "# between the rail's raceway (static plane) and the carriage's (a moving plane: rotations and",
    "# lateral motion locked), at 45 degrees to the load. The row carries F_y / 2 = 245 N (-z here),",
    "# half the seal friction S = 5.3 N (a box row on the carriage's x) and half the carriage mass.",
    "# Rolling friction rho = zeta R_b, zeta = 0.005; compliance from Hertz (Tikhonov, Sec. 6.2)",
    "# makes the load sharing among the balls unique. The carriage is pushed along x by",
    "# external_force; the guideway's resisting force is twice the row's.",
    "# scripts/validation/complementarity_guideway.py sweeps rho, S and the push.",
    "name: guideway",
    "time:",
    "  step: 1.0e-3",
    "  duration: 0.3",
    "world:",
    "  gravity: [0.0, 0.0, 0.0]",
    "  stepper: complementarity",
    "  contact_margin: 1.0e-4",
    "solver:",
    "  method: apgd",
    "  tolerance: 1.0e-9",
    "  max_iterations: 3000",
    "materials:",
    "  - {name: steel, density: 7800.0}",
    "contacts:",
    "  - materials: [steel, steel]",
    "    normal: {model: rigid, compliance: 5.0e-8}   # m/N: Hertz, steel ball on a flat, ~27 N per contact",
    "    slide: {model: sliding_cone, mu: 0.3}",
    f"    roll: {{model: rolling_cone, rho: {ZETA * RB!r}}}   # zeta R_b",
    "bodies:",
]
for side, sign in (("left", -1.0),):
    # rail raceway normal: up and outwards; the ball rests on it
    n = (0.0, sign * S2, S2)
    rail_point = (0.0, sign * 0.01, 0.0)
    center = tuple(rail_point[k] + RB * n[k] for k in range(3))
    carriage_point = tuple(center[k] + RB * n[k] for k in range(3))
    lines += [
        "  - name: rail",
        "    static: true",
        "    material: steel",
        f"    shape: {{type: plane, normal: [{n[0]!r}, {n[1]!r}, {n[2]!r}]}}",
        f"    position: [{rail_point[0]!r}, {rail_point[1]!r}, {rail_point[2]!r}]",
        "  - name: carriage",
        "    material: steel",
        f"    shape: {{type: plane, normal: [{-n[0]!r}, {-n[1]!r}, {-n[2]!r}]}}",
        f"    position: [{carriage_point[0]!r}, {carriage_point[1]!r}, {carriage_point[2]!r}]",
        f"    mass: {CARRIAGE!r}",
        "    lock: {translation: [y], rotation: [x, y, z]}",
        f"    external_force: [{PUSH / 2!r}, 0.0, {-LOAD / 2!r}]   # N: half the push, half the load",
        "    friction_axis: [1.0, 0.0, 0.0]",
        f"    friction_force: {SEAL / 2!r}",
    ]
    for b in range(BALLS):
        x = (b - (BALLS - 1) / 2) * PITCH
        lines += [
            f"  - name: ball_{b}",
            "    material: steel",
            f"    shape: {{type: sphere, radius: {RB!r}}}",
            f"    position: [{x!r}, {center[1]!r}, {center[2]!r}]",
        ]
lines += [
    "output:",
    "  csv_interval: 1.0e-3",
    "  bodies_csv: true",
    "  contacts_csv: false",
    "  energy_csv: false",
    "  vtu_interval: 0.0",
]
(ROOT / "scenes" / "complementarity" / "guideway.yaml").write_text("\n".join(lines) + "\n")
