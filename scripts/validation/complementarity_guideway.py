"""The linear guideway of Tasora & Anitescu Sec. 6.2 (Fig. 8): the force
that resists moving the carriage, from the rolling friction of the balls
(rho = zeta R_b) and the seal friction S (a box constraint), against the
maker's formula F_x = -sign(v_x) (zeta F_y + S), and sticking at zero speed.

Scene scenes/complementarity/guideway.yaml (one of the two loaded rows; see
scripts/scenes/make_guideway.py and docs/validation/complementarity_guideway.md).
"""
from __future__ import annotations

import math

import numpy as np
import matplotlib.pyplot as plt

from .common import ROOT, CaseResult, Context, body_rows, finish_axes, read_csv, save_figure

TITLE = "Complementarity stepper: linear guideway (Sec. 6.2, Fig. 8)"
ORDER = 81
SCENE = ROOT / "scenes" / "complementarity" / "guideway.yaml"

RB = 3.2e-3
BALL_MASS = 7800.0 * 4.0 / 3.0 * math.pi * RB**3
BALLS = 9
CARRIAGE = 2.0                        # kg, the row's half of the carriage
EFFECTIVE_MASS = CARRIAGE + BALLS * BALL_MASS * (0.25 + 0.1)  # balls at v/2, spinning at v/(2 R_b)
LOAD = 490.0                          # F_y, N
SEAL = 5.3                            # S, N


def resisting_force(ctx, label, zeta, seal, push):
    """Guideway resisting force (N, both rows) and final carriage speed for a push (N, both rows)."""
    sets = {"contacts.0.roll.rho": repr(zeta * RB), "bodies.carriage.friction_force": repr(seal / 2),
            "bodies.carriage.external_force": f"[{push / 2!r},0,{-LOAD / 2!r}]"}
    out = ctx.run_scene(SCENE, label, sets)
    carriage = body_rows(read_csv(out / "bodies.csv"), "carriage")
    t, v = carriage["time"], carriage["vx"]
    sel = t > 0.1
    acceleration = np.polyfit(t[sel], v[sel], 1)[0]
    row = push / 2 - EFFECTIVE_MASS * acceleration
    settled = t > 0.05  # after the load has settled into the compliant contacts
    return 2.0 * row, float(v[-1]), float(np.max(np.abs(v[settled])))


def run(ctx: Context) -> CaseResult:
    result = CaseResult("complementarity_guideway", TITLE,
                        "One loaded row of nine balls between the rail's and the carriage's raceways at 45 degrees "
                        "(the other loaded row is its mirror image), pushed along the rail; the resisting force is "
                        "the push less the effective mass times the acceleration, times two rows.")
    zetas = [0.0, 0.0025, 0.005, 0.0075, 0.01]
    push = 20.0
    with_seal, without_seal = [], []
    for zeta in zetas:
        with_seal.append(resisting_force(ctx, f"seal_z{zeta:g}", zeta, SEAL, push)[0])
        without_seal.append(resisting_force(ctx, f"noseal_z{zeta:g}", zeta, 0.0, push)[0])
    for zeta, f_seal, f_free in zip(zetas, with_seal, without_seal):
        mechanics = math.sqrt(2.0) * zeta * LOAD
        result.check(f"zeta = {zeta:g}, with seal: resisting force (N)", SEAL + mechanics, f_seal, 1e-3 * (SEAL + 5),
                     unit="N",
                     derivation="each ball rolls between two raceways with the torque rho N at both: the carriage "
                                "feels rho N / R_b = zeta N per ball; the loaded rows carry F_y at 45 degrees, so "
                                "sum N = F_y / cos 45 = sqrt(2) F_y, and F_x = sqrt(2) zeta F_y + S. Tolerance "
                                "1e-3 of the force: the solver tolerance and the balls' settling in the first steps")
        result.check(f"zeta = {zeta:g}, no seal: resisting force (N)", mechanics, f_free, 1e-3 * 5, unit="N",
                     derivation="as above with S = 0")
    # sticking at zero speed: a push below the resistance leaves it at rest
    force, final_speed, largest = resisting_force(ctx, "stick", 0.005, SEAL, 0.5 * (SEAL + math.sqrt(2) * 0.005 * LOAD))
    result.check("push at half the resistance: largest carriage speed after 50 ms (m/s)", 0.0, largest, 5e-8,
                 unit="m/s",
                 derivation="set-valued rolling and seal friction hold the carriage (sticking at zero speed, "
                            "Sec. 6.2): what moves is the solver's error, 1e-9 m/s per contact row, amplified by the "
                            "ill-conditioned compliant contacts of 9 balls (measured 1.2e-8 m/s); in the first 50 ms "
                            "the 245 N load settles into the compliance (5 um)")
    # both directions, for the F_x(v_x) picture of Fig. 8
    backward = resisting_force(ctx, "backward", 0.005, SEAL, -push)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    z = np.linspace(0, 0.0105, 50)
    axes[0].plot(z, SEAL + math.sqrt(2) * z * LOAD, "k-", lw=1, label="sqrt(2) zeta F_y + S (45-degree raceways)")
    axes[0].plot(z, SEAL + z * LOAD, "k--", lw=1, label="maker: zeta F_y + S")
    axes[0].plot(z, math.sqrt(2) * z * LOAD, "C1-", lw=1, label="sqrt(2) zeta F_y (no seal)")
    axes[0].plot(z, z * LOAD, "C1--", lw=1, label="maker: zeta F_y (no seal)")
    axes[0].plot(zetas, with_seal, "o", color="k", label="fricdem, with seal")
    axes[0].plot(zetas, without_seal, "s", color="C1", label="fricdem, no seal")
    finish_axes(axes[0], "zeta = rho / R_b", "resisting force F_x (N), F_y = 490 N",
                "Guideway resistance against rolling friction (cf. Fig. 8)", grid=True, legend={"fontsize": 8})
    speeds = [backward[1], 0.0, resisting_force(ctx, "forward", 0.005, SEAL, push)[1]]
    forces = [backward[0], 0.0, with_seal[2]]  # push less m a; the force on the carriage is its negative
    v = np.linspace(-1, 1, 401)
    level = SEAL + math.sqrt(2) * 0.005 * LOAD
    axes[1].plot(v, -np.sign(v) * level, "k-", lw=1, label="-sign(v) (sqrt(2) zeta F_y + S)")
    axes[1].plot([0, 0], [-level, level], "k-", lw=1)
    axes[1].plot(speeds, [-f for f in forces], "o", color="C3", label="fricdem (pushed back, held, pushed)")
    finish_axes(axes[1], "carriage speed v_x (m/s) at the end of the push", "F_x (N)",
                "Set-valued resistance: sticks at v = 0 (zeta = 0.005)", grid=True, legend={"fontsize": 8})
    save_figure(ctx, result, fig, "resistance",
                "Left: resisting force against zeta, with and without seal friction, against the "
                "raceway mechanics and the maker's formula (the factor sqrt(2) is the 45-degree "
                "contact: docs/validation/complementarity_guideway.md). Right: F_x against the "
                "speed, a step with the sticking branch at v = 0.", dpi=120)
    return result
