"""Bouncing ball: a sphere dropped on a static frictionless plane, for the
normal contact laws with a coefficient of restitution e.

Scenes scenes/validation/bouncing_ball_*.yaml: hooke (e = 0.5, k_n = 5e6 N/m,
~100 steps per contact), hertz with steel (E = 210 GPa, nu = 0.3, e = 0.4,
~80 steps per contact) and hertz with the parameters of Fang & Negrut
Sec. 4.6 (E = 2 MPa, nu = 0.3, e = 0.4, m = 1 kg, R = 0.15 m, the paper's
step 1e-4 s, ~180 steps per contact).

Measurement (from bodies.csv written every step or every other step): the
first contact spans the samples where the ball overlaps the plane (z <= R).
The impact and rebound speeds are those at the instant the surfaces touch,
v = sqrt(vz^2 + 2 g (z - R)), evaluated on the last free sample before and
the first free sample after the contact (exact for the free flight in
between, up to the O(g dt) of the integrator). The rebound ratio is
v_out / v_in. Each law is run twice: the drop itself (gravity acts during the
contact, so the ratio is below e by an amount a reference solution gives) and
a gravity-free impact at the same speed (the ratio must be e itself).
"""
from __future__ import annotations

import math

import numpy as np
import matplotlib.pyplot as plt

from . import impact_reference as ref
from .common import CaseResult, Context, body_rows, read_csv, save_figure

TITLE = "Bouncing ball: restitution of the normal contact laws"
ORDER = 20

G = 9.81

MODELS = [
    # Values as in the scene files (kept in step with them).
    dict(key="hooke", label="hooke, e = 0.5", scene="bouncing_ball_hooke.yaml", law=ref.HOOKE, e=0.5,
         radius=0.05, mass=1000.0 * 4.0 / 3.0 * math.pi * 0.05 ** 3, stiffness=5.0e6, dt=1e-5, csv=0.0),
    dict(key="hertz_steel", label="hertz steel, e = 0.4", scene="bouncing_ball_hertz_steel.yaml", law=ref.HERTZ,
         e=0.4, radius=0.01, mass=7800.0 * 4.0 / 3.0 * math.pi * 0.01 ** 3,
         stiffness=ref.hertz_constant(ref.effective_modulus(2.1e11, 0.3, 2.1e11, 0.3), 0.01), dt=1e-6, csv=2e-6),
    dict(key="hertz_paper", label="hertz, Fang & Negrut Sec. 4.6 (E = 2 MPa), e = 0.4",
         scene="bouncing_ball_hertz_paper.yaml", law=ref.HERTZ, e=0.4, radius=0.15, mass=1.0,
         stiffness=ref.hertz_constant(ref.effective_modulus(2.0e6, 0.3, 2.0e6, 0.3), 0.15), dt=1e-4, csv=0.0),
]

TOLERANCE_NOTE = ("tolerance 2/N relative, N the number of steps in the contact: the contact begins and ends "
                  "anywhere inside a step, and the symplectic Euler impulse is off by a fraction of a step at "
                  "each end. A sweep of the entry phase over one step (hooke, N = 104) gave errors varying "
                  "linearly from -0.86/N to +0.57/N; halving dt halves the envelope (first order).")


def first_contact(rows, radius):
    """Indices (last free sample before, first free sample after) of the first contact."""
    touching = rows["z"] <= radius
    start = int(np.argmax(touching))
    if not touching[start] or start == 0:
        raise RuntimeError("the ball never touched the plane (or started touching it)")
    after = start + int(np.argmax(~touching[start:]))
    if after == start:
        raise RuntimeError("the first contact did not end before the run did")
    return start - 1, after


def touching_speed(rows, i, radius, g):
    return math.sqrt(rows["vz"][i] ** 2 + 2.0 * g * (rows["z"][i] - radius))


def measure(rows, radius, g):
    before, after = first_contact(rows, radius)
    v_in = touching_speed(rows, before, radius, g)
    v_out = touching_speed(rows, after, radius, g)
    t = rows["time"]
    # The contact starts between samples before and before + 1, ends between after - 1 and after.
    duration = 0.5 * (t[after] + t[after - 1]) - 0.5 * (t[before + 1] + t[before])
    dt = (t[-1] - t[0]) / (rows["step"][-1] - rows["step"][0])
    steps = round(duration / dt)
    return dict(before=before, after=after, v_in=v_in, v_out=v_out, ratio=v_out / v_in, duration=duration,
                steps=int(steps), sample=t[before + 1] - t[before])


def run(ctx: Context) -> CaseResult:
    result = CaseResult("bouncing_ball", TITLE, __doc__.split("\n\n", 1)[1])
    figure, axes = plt.subplots(2, len(MODELS), figsize=(5.2 * len(MODELS), 7.5))
    for column, model in enumerate(MODELS):
        radius, mass, e = model["radius"], model["mass"], model["e"]
        gamma = ref.damping_for_restitution(model["law"], e)

        # ---- the drop, with gravity
        out = ctx.run_scene(model["scene"], f"{model['key']}_drop")
        rows = body_rows(read_csv(out / "bodies.csv"), "ball")
        m = measure(rows, radius, G)
        expected_ratio, expected_duration = ref.rebound(model["law"], model["stiffness"], gamma, mass, m["v_in"], G)
        result.check(f"{model['label']}: drop, rebound ratio v_out/v_in (N = {m['steps']} steps in contact)",
                     expected_ratio, m["ratio"], 2.0 / m["steps"], relative=True, basis="drop, rebound ratio",
                     derivation="expected: reference solution of the same law with gravity (RK4, 40000 steps per "
                     "contact, dashpot calibrated independently to e by bisection, scripts/validation/"
                     "impact_reference.py) at the measured impact speed; gravity during the contact lowers the "
                     "ratio below e. " + TOLERANCE_NOTE)
        result.check(f"{model['label']}: drop, duration of the first contact", expected_duration, m["duration"],
                     2.0 * m["sample"], "s", basis="drop, duration of the first contact",
                     derivation="expected: the reference solution's time from touching to separating (overlap "
                     "back to 0); measured between the midpoints of the samples around the start and the end, so "
                     "each end is known to half a sample interval: tolerance 2 sample intervals.")

        # ---- a gravity-free impact at the same speed: the ratio is e itself
        gap = 0.2 * m["v_in"] * m["duration"]  # touches after ~20% of a contact time
        duration = gap / m["v_in"] + 2.0 * expected_duration
        free = ctx.run_scene(model["scene"], f"{model['key']}_no_gravity", {
            "world.gravity": "[0, 0, 0]",
            "bodies.ball.position": f"[0, 0, {radius + gap!r}]",
            "bodies.ball.velocity": f"[0, 0, {-m['v_in']!r}]",
            "time.duration": repr(duration),
        })
        free_rows = body_rows(read_csv(free / "bodies.csv"), "ball")
        f = measure(free_rows, radius, 0.0)
        result.check(f"{model['label']}: gravity-free impact, v_out/v_in (N = {f['steps']})", e, f["ratio"],
                     2.0 / f["steps"], relative=True, basis="gravity-free impact, rebound ratio",
                     derivation="expected: the restitution e given to the law, which is defined as the rebound "
                     "ratio of a gravity-free head-on impact (the dashpot is calibrated for it, with the force "
                     "clamped at 0). " + TOLERANCE_NOTE)
        result.notes.append(f"{model['label']}: impact speed {m['v_in']:.4g} m/s, contact {m['duration'] * 1e3:.4g} ms "
                            f"= {m['steps']} steps of {model['dt']:g} s; rebound ratio with gravity "
                            f"{m['ratio']:.5f} (reference {expected_ratio:.5f}), without {f['ratio']:.5f} (e = {e}).")

        # ---- figures: height over the whole run, and vz around the first contact
        ax = axes[0, column]
        ax.plot(rows["time"], (rows["z"] - radius) * 1e3, lw=1)
        ax.set_title(model["label"], fontsize=10)
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("height of the ball's bottom z - R [mm]")
        ax.axhline(0.0, color="k", lw=0.5)
        ax = axes[1, column]
        lo = max(m["before"] - 2 * (m["after"] - m["before"]), 0)
        hi = min(m["after"] + 2 * (m["after"] - m["before"]), len(rows["time"]) - 1)
        window = slice(lo, hi + 1)
        t0 = rows["time"][m["before"]]
        ax.plot((rows["time"][window] - t0) * 1e3, rows["vz"][window], "-", lw=1.2, label="vz, fricdem")
        ax.axhline(-m["v_in"], color="C1", ls="--", lw=0.8, label="-v_in")
        ax.axhline(expected_ratio * m["v_in"], color="C2", ls="--", lw=0.8, label="reference rebound (gravity)")
        ax.axhline(e * m["v_in"], color="C3", ls=":", lw=0.8, label="e v_in")
        ax.axvspan((rows["time"][m["before"] + 1] - t0) * 1e3, (rows["time"][m["after"] - 1] - t0) * 1e3,
                   color="0.9", label="in contact")
        ax.set_xlabel("time from the last free sample [ms]")
        ax.set_ylabel("vertical velocity vz [m/s]")
        ax.legend(fontsize=7, loc="lower right")
    save_figure(ctx, result, figure, "drops",
                "Top: height of the ball's lowest point against time for each law (successive "
                "bounces). Bottom: vertical velocity around the first contact (shaded), with the impact "
                "speed, the reference rebound speed with gravity and e times the impact speed.", dpi=100)
    return result
