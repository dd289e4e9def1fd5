"""PFC rrlinear verification: a single ball on a flat surface (papers/001,
"Rolling Resistance Linear Contact Model: Single Ball on a Flat Surface"),
against the closed forms of docs/validation/pfc_ball.md.

Scene scenes/pfc/ball_rrlinear.yaml: a ball R = 0.1 m, m = 1 kg, thrown at
v0 = 2 m/s without spin on a plane, normal and slide `pfc_linear` (kn = ks =
1e6 N/m, fric 0.5, dp_nratio = dp_sratio = 0.1, dp_mode 3), roll
`pfc_rrlinear` (rr_fric 0.1, k_r = ks R^2), g = 9.81 m/s^2, dt = 2e-5 s,
symplectic Euler, a CSV row every 1 ms. It slides until t1, then rolls with
the deceleration 5 mu_r g / 7 until it stops at t2, then rests. Signs: x is
the direction of motion; omega_y > 0 rolls forward; the rolling moment on the
ball (body i) is -M* about y while it rolls.
"""
from __future__ import annotations


import numpy as np
import matplotlib.pyplot as plt

from .common import ROOT, CaseResult, Context, body_rows, finish_axes, read_csv, save_figure

TITLE = "PFC rrlinear: single ball on a flat surface (slide, roll, rest)"
ORDER = 60

SCENE = ROOT / "scenes" / "pfc" / "ball_rrlinear.yaml"
G = 9.81
MASS, RADIUS = 1.0, 0.1
INERTIA = 0.4 * MASS * RADIUS ** 2
V0, MU, MU_R = 2.0, 0.5, 0.1
KN, KS = 1.0e6, 1.0e6
ROW = 1.0e-3     # s between CSV rows


def closed_form():
    """docs/validation/pfc_ball.md Eq. (1)-(6)."""
    t1 = 2.0 * V0 / ((7.0 * MU - 5.0 * MU_R) * G)
    v1 = 5.0 * V0 * (MU - MU_R) / (7.0 * MU - 5.0 * MU_R)
    alpha = 5.0 * (MU - MU_R) * G / (2.0 * RADIUS)       # angular acceleration while sliding
    a = 5.0 * MU_R * G / 7.0                              # rolling deceleration
    t2 = t1 + v1 / a
    x1 = V0 * t1 - 0.5 * MU * G * t1 ** 2
    x2 = x1 + 0.5 * v1 ** 2 / a
    moment = MU_R * RADIUS * MASS * G                     # M* = mu_r R F_n, Eq. (7)
    slip = MU * MASS * V0 ** 2 / (7.0 * MU - 5.0 * MU_R)  # mu m g times the slid distance v0 t1 / 2
    rotation = 0.5 * alpha * t1 ** 2 + (x2 - x1) / RADIUS
    return dict(t1=t1, v1=v1, alpha=alpha, a=a, t2=t2, x1=x1, x2=x2, moment=moment, slip=slip,
                rrslip=moment * rotation, rotation=rotation)


def curves(t, c):
    """v(t), omega(t) of the closed form."""
    v = np.where(t < c["t1"], V0 - MU * G * t, np.maximum(c["v1"] - c["a"] * (t - c["t1"]), 0.0))
    w = np.where(t < c["t1"], c["alpha"] * t, v / RADIUS)
    return v, w


def run(ctx: Context) -> CaseResult:
    result = CaseResult("pfc_ball", TITLE, __doc__.split("\n\n", 1)[1])
    out = ctx.run_scene(SCENE, "rrlinear")
    ball = body_rows(read_csv(out / "bodies.csv"), "ball")
    contacts = read_csv(out / "contacts.csv")
    if not np.array_equal(ball["step"], contacts["step"]):
        raise RuntimeError(f"{out}: bodies.csv and contacts.csv rows differ (one contact expected every row)")
    t, x, v, w = ball["time"], ball["x"], ball["vx"], ball["wy"]
    c = closed_form()
    derivation = "docs/validation/pfc_ball.md"

    sliding = contacts["lin_slip"] == 1
    t1_run = t[np.flatnonzero(~sliding & (t > 0.01))[0]]
    result.check("end of sliding t1", c["t1"], t1_run, 2 * ROW, "s",
                 derivation=f"Eq. (3) of {derivation}: the slip speed v - omega R falls at (7 mu - 5 mu_r) g / 2 "
                 "from v0: t1 = 2 v0 / ((7 mu - 5 mu_r) g); tolerance two CSV rows (the first row without slip).")
    k1 = int(np.argmin(np.abs(t - (c["t1"] + 0.01))))
    result.check("velocity 10 ms after t1", c["v1"] - c["a"] * (t[k1] - c["t1"]), v[k1], 1e-3, "m/s", relative=True,
                 derivation="Eq. (4): v1 = 5 v0 (mu - mu_r) / (7 mu - 5 mu_r) = 1.3333 m/s, then v1 - a (t - t1); "
                 "the spring transient at the stick onset lasts ~ sqrt(m/ks) = 1 ms and moves v by mu g 1 ms / 2 "
                 "at most: 1e-3 relative.")

    rolling = (t > c["t1"] + 0.05) & (t < c["t2"] - 0.05)
    slope = np.polyfit(t[rolling], v[rolling], 1)[0]
    result.check("rolling deceleration", c["a"], -slope, 1e-3, "m/s^2", relative=True,
                 derivation="Eq. (5): rolling without slip under M* = mu_r R m g, m a = f, I alpha = -f R - M*, "
                 "a = alpha R give a = 5 mu_r g / 7 = 0.70071 m/s^2; least-squares slope of v over the rolling "
                 "phase less 50 ms at each end. Symplectic Euler integrates a constant deceleration exactly; the "
                 "elastic rocking of the springs (period 2 pi sqrt(I / (k_r + ks R^2)) ~ 3 ms, amplitude "
                 "< M*/k_r) averages out: 1e-3 relative.")
    result.check("rolling moment while rolling", -c["moment"], np.mean(contacts["rr_moment_y"][rolling]), 1e-6,
                 "N m", relative=True,
                 derivation="Eq. (6)-(7): at the limit |M| = mu_r R F_n^l = 0.0981 N m, against omega; F_n^l = m g "
                 "(the ball starts at its equilibrium overlap): round-off and the normal micro-oscillation.")
    stop = int(np.flatnonzero((v <= 0.0) & (t > c["t1"]))[0])
    result.check("stopping time t2", c["t2"], t[stop], 2 * ROW, "s",
                 derivation="Eq. (5): t2 = t1 + v1 / a = 2.0387 s; tolerance two CSV rows.")
    result.check("stopping distance", c["x2"], x[-1], 1e-3, "m", relative=True,
                 derivation="Eq. (6): x2 = v0 t1 - mu g t1^2 / 2 + v1^2 / (2 a) = 1.4951 m, read at the end "
                 "(t = 2.5 s, at rest); the elastic springs hold the ball within M*/(k_r) R ~ 1e-6 m of where "
                 "it stopped: tolerance 1e-3 relative for the O(dt) integration error.")
    result.check("at rest after t2 + 0.1 s: max |v|", 0.0, np.max(np.abs(v[t > c["t2"] + 0.1])), 1e-3, "m/s",
                 derivation="once v reaches 0 the rolling spring (no longer at its limit) holds the ball; it rocks "
                 "elastically with a speed below (M*/k_r) R omega_n ~ 2e-3 m/s (omega_n ~ sqrt((k_r + ks R^2) / "
                 "I) ~ 2.2e3 rad/s), which the shear dashpot (beta_s = 0.1, decay time ~ 1 / (beta_s omega_n) "
                 "~ 5 ms) damps within 0.1 s: 1e-3 m/s.")

    # energies (J), each at the last row
    slip, rrslip = contacts["pfc_slip"], contacts["pfc_rrslip"]
    result.check("slip energy (end)", c["slip"], slip[-1], 2e-3, "J", relative=True,
                 derivation="Eq. (7): friction mu m g times the slid distance v0 t1 / 2 (the slip speed falls "
                 "linearly): mu m v0^2 / (7 mu - 5 mu_r) = 0.6667 J; none after t1. Spring loading at the onset "
                 "(~1 ms) and O(dt): 2e-3 relative.")
    result.check("rolling slip energy (end)", c["rrslip"], rrslip[-1], 2e-3, "J", relative=True,
                 derivation="Eq. (8): M* times the ball's total rotation, alpha t1^2 / 2 + (x2 - x1) / R = "
                 f"{c['rotation']:.3f} rad: {c['rrslip']:.4f} J; tolerance as above.")
    kinetic = 0.5 * MASS * v ** 2 + 0.5 * INERTIA * w ** 2 + 0.5 * MASS * ball["vz"] ** 2
    strain0 = 0.5 * (MASS * G) ** 2 / KN
    stored = contacts["pfc_strain"] - strain0 + contacts["pfc_rrstrain"]
    dissipated = slip + rrslip + contacts["pfc_dashpot"]
    balance = kinetic[0] - kinetic[-1] - stored[-1]
    result.check("energy balance: kinetic lost less strain vs slip + rrslip + dashpot", balance, dissipated[-1], 1e-3,
                 "J", relative=True,
                 derivation="the contact's partitions (manual Eq. 9, 10 and the linear model's) must account for "
                 "all kinetic energy lost (gravity does no work, the height is constant); symplectic Euler's "
                 "energy error is O(dt): 1e-3 relative.")
    result.notes.append(
        "Closed form vs run: t1 = %.4f s vs %.4f s; deceleration %.5f vs %.5f m/s^2; t2 = %.4f s vs %.4f s; "
        "x2 = %.4f m vs %.4f m; slip %.4f vs %.4f J; rrslip %.4f vs %.4f J; dashpot %.2e J." % (
            c["t1"], t1_run, c["a"], -slope, c["t2"], t[stop], c["x2"], x[-1], c["slip"], slip[-1], c["rrslip"],
            rrslip[-1], contacts["pfc_dashpot"][-1]))

    figures(ctx, result, t, v, w, contacts, kinetic, c)
    return result


def figures(ctx, result, t, v, w, contacts, kinetic, c):
    figure, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    figure.suptitle("PFC rrlinear: ball on a flat surface (v0 = 2 m/s, fric 0.5, rr_fric 0.1)")
    vc, wc = curves(t, c)
    ax = axes[0, 0]
    ax.plot(t, v, color="tab:blue", lw=1.5, label="v (run)")
    ax.plot(t, w * RADIUS, color="tab:orange", lw=1.5, label="omega R (run)")
    ax.plot(t, vc, "k:", lw=1, label="closed form")
    ax.plot(t, wc * RADIUS, "k:", lw=1)
    ax.axvline(c["t1"], color="gray", ls="--", lw=0.8)
    ax.axvline(c["t2"], color="gray", ls="--", lw=0.8)
    ax = axes[0, 1]
    ax.plot(t, w, color="tab:orange", lw=1.5, label="omega_y (run)")
    ax.plot(t, wc, "k:", lw=1, label="closed form")
    ax = axes[1, 0]
    ax.plot(t, contacts["rr_moment_y"], color="tab:green", lw=1.5, label="rolling moment M_y on the ball")
    ax.plot(t, -contacts["pfc_fs_x"] * RADIUS, color="tab:purple", lw=1, label="-F_s,x R (shear force moment)")
    ax.axhline(-c["moment"], color="red", ls=":", lw=0.8, label="-M* = -mu_r R m g")
    ax.axhline(MU * MASS * G * RADIUS, color="gray", ls=":", lw=0.8, label="mu m g R")
    ax = axes[1, 1]
    ax.plot(t, kinetic, color="k", lw=1.5, label="kinetic")
    ax.plot(t, contacts["pfc_slip"], color="tab:blue", lw=1.5, label="slip (dissipated)")
    ax.plot(t, contacts["pfc_rrslip"], color="tab:green", lw=1.5, label="rrslip (dissipated, Eq. 10)")
    ax.plot(t, contacts["pfc_dashpot"], color="tab:red", lw=1, label="dashpot (dissipated)")
    ax.plot(t, (contacts["pfc_strain"] + contacts["pfc_rrstrain"]) * 1e3, color="tab:gray", lw=1,
            label="strain + rrstrain (Eq. 9) x 1000")
    total = kinetic + contacts["pfc_slip"] + contacts["pfc_rrslip"] + contacts["pfc_dashpot"] + \
        contacts["pfc_strain"] + contacts["pfc_rrstrain"]
    ax.plot(t, total, "k--", lw=1, label="sum")
    panels = [("velocity [m/s]", "(a) centre velocity and omega R: slide, roll (-5 mu_r g / 7), rest"),
              ("omega_y [rad/s]", "(b) angular velocity"),
              ("moment [N m]", "(c) rolling resistance moment (Eq. 2-8)"),
              ("energy [J]", "(d) energy partitions")]
    for axis, (ylabel, title) in zip(axes.flat, panels):
        finish_axes(axis, "time t [s]", ylabel, title, title_size=10, grid=True, legend={"fontsize": 8})
    save_figure(ctx, result, figure, "history",
                "Ball on a flat surface with rrlinear: (a) v falls at mu g and omega R rises until "
                "they meet at t1 = 0.136 s, then both fall at 5 mu_r g / 7 until the ball stops at t2 = "
                "2.039 s (dotted: closed form); (b) omega; (c) the rolling moment sits on -M* from the "
                "first steps (the ball rotates from the start) until it stops; (d) the energy "
                "partitions: kinetic energy goes to slip while sliding, to rolling slip while rolling; "
                "the sum stays at the initial 2 J.", dpi=90)
