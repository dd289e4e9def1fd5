#!/usr/bin/python3
"""Writes scenes/complementarity/guideway.yaml: the linear guideway of
Tasora & Anitescu Sec. 6.2 as the complementarity stepper sees it.

Two loaded rows of nine steel balls (2 R_b = 6.4 mm) run between the rail's
raceways and the carriage's, all at 45 degrees to the load F_y. The carriage
is two raceway planes (one per row) that move together by symmetry: each
carries half the load and half the seal friction, its rotations are locked
and its lateral translation too (the lateral push of one row is what the
other row's balances in the one-piece carriage). The two lower rows of the
real guideway carry no load without preload and are left out.

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
CARRIAGE = 2.0                  # kg per raceway (4 kg carriage)
S2 = math.sqrt(0.5)

lines = [
    "# Linear guideway, Tasora & Anitescu Sec. 6.2 (written by scripts/scenes/make_guideway.py).",
    "# Two loaded rows of 9 steel balls (2 R_b = 6.4 mm) between the rail's raceways (static planes)",
    "# and the carriage's (two dynamic planes, one per row, rotations and lateral motion locked),",
    "# all at 45 degrees to the load F_y = 490 N (-z here). Rolling friction rho = zeta R_b,",
    "# zeta = 0.005; seal friction S = 5.3 N as generalized friction on the carriage's x (a box",
    "# row, half on each raceway); compliance from Hertz (Tikhonov, Sec. 6.2) makes the load",
    "# sharing among the balls unique. The carriage is pushed along x by external_force.",
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
for side, sign in (("left", -1.0), ("right", 1.0)):
    # rail raceway normal: up and outwards; the ball rests on it
    n = (0.0, sign * S2, S2)
    rail_point = (0.0, sign * 0.01, 0.0)
    center = tuple(rail_point[k] + RB * n[k] for k in range(3))
    carriage_point = tuple(center[k] + RB * n[k] for k in range(3))
    lines += [
        f"  - name: rail_{side}",
        "    static: true",
        "    material: steel",
        f"    shape: {{type: plane, normal: [{n[0]!r}, {n[1]!r}, {n[2]!r}]}}",
        f"    position: [{rail_point[0]!r}, {rail_point[1]!r}, {rail_point[2]!r}]",
        f"  - name: carriage_{side}",
        "    material: steel",
        f"    shape: {{type: plane, normal: [{-n[0]!r}, {-n[1]!r}, {-n[2]!r}]}}",
        f"    position: [{carriage_point[0]!r}, {carriage_point[1]!r}, {carriage_point[2]!r}]",
        f"    mass: {CARRIAGE!r}",
        "    lock: {translation: [y], rotation: [x, y, z]}",
        f"    external_force: [0.0, 0.0, {-LOAD / 2!r}]",
        "    friction_axis: [1.0, 0.0, 0.0]",
        f"    friction_force: {SEAL / 2!r}",
    ]
    for b in range(BALLS):
        x = (b - (BALLS - 1) / 2) * PITCH
        lines += [
            f"  - name: ball_{side}_{b}",
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
