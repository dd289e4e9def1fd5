"""Rolling disk: the Fang & Negrut roll-friction model against the closed
forms of docs/validation/disk.md (paper 003, Sec. 4.2, Table 3, Fig. 6 to 8
of the paper's PDF numbering).

Scenes scenes/fang_negrut/disk.yaml and disk_legacy.yaml: a disk (m = 5 kg,
R = 0.2 m, I = 0.1 kg m^2; a sphere with that inertia held in the x-z plane)
thrown at 0.5 m/s without spin on a plane, prescribed N = m g, mu_k = 0.2,
mu_s = 0.25 (inferred), K_E = 1e5 N/m, K_D = K_cr = 1414.21 N s/m, eta_r =
0.4, K_R = 1600 N m/rad (Table 3's K_r), D_R = D_cr = 25.30 N m s/rad,
g = 9.8 m/s^2, dt = 1e-4 s, symplectic Euler. The readings of the paper that
these values make (the initial speed, K_R, mu_s) are argued in the
derivation. Runs: the Table 3 disk to rest; the same without dashpots (the
switch time from rest); the damping study (K_D and D_R scaled together by
0.25, 0.5, 1, 2); the legacy constant-torque roll model, Eq. (8), mu_r = 0.1;
and the other readings of the paper (v0 = 5 m/s; K_R from Eq. (2b)) up to
the switch to rolling. CSV rows every step.

Signs: x is the disk's position along the throw, theta its rotation about +y
(x' = R theta' when rolling), forces and torques are those on the disk (body
j; contacts.csv gives the slide force on the ground, body i, so the disk's is
its opposite). S is the slide micro-deflection (positive while the disk's
contact point slips forward), Theta the disk's roll micro-deflection.
"""
from __future__ import annotations

import math

import numpy as np
import matplotlib.pyplot as plt

from .common import ROOT, CaseResult, Context, body_rows, read_csv, roundoff_tolerance, FN_PAPER_FORM, FN_PAPER_FORM_ROLL, compare_fn_default_form, fn_paper_form_case, finish_axes, save_figure

TITLE = "Fang & Negrut Sec. 4.2: disk rolling on a flat surface (roll friction)"
ORDER = 42

SCENES = ROOT / "scenes" / "fang_negrut"
G = 9.8
MASS, RADIUS, INERTIA = 5.0, 0.2, 0.1
NORMAL = MASS * G                         # N = 49 N, prescribed
MU_S, MU_K = 0.25, 0.2
K_E = 1.0e5
K_CR = 2.0 * math.sqrt(MASS * K_E)         # 1414.21 N s/m (Table 3)
K_R = 1600.0                              # Table 3's K_r
ETA_R = 0.4
D_CR = 2.0 * math.sqrt(INERTIA * K_R)     # 25.30 N m s/rad (Table 3)
K_D, D_R = 1414.21, 25.30                 # as printed in Table 3 and used in the scene
MU_R = 0.1                                # legacy model (Sec. 4.2)
DT = 1.0e-4
V0 = 0.5
DAMPING_FACTORS = [0.25, 0.5, 1.0, 2.0]
REST_BOUND_TORQUE = 1e-9                  # N m, see the at-rest rows
REST_BOUND_OMEGA = 1e-10                  # rad/s


def roll_threshold(mu):
    """Theta^s or Theta^d of Eq. (2c) for the disk on a plane: kappa_i + kappa_j = 1/R."""
    return mu * NORMAL / (2.0 * RADIUS * K_E)


def phases(v0=V0, k_r=K_R, torque=None):
    """The closed forms of docs/validation/disk.md, Eq. (3) to (9)."""
    t_k = k_r * roll_threshold(MU_K) if torque is None else torque    # Eq. (3)
    xdd_slip = -MU_K * G                                              # Eq. (4)
    thdd_slip = (MU_K * NORMAL * RADIUS - t_k) / INERTIA              # Eq. (5)
    rel = -xdd_slip + RADIUS * thdd_slip                              # Eq. (6): u' = -rel
    t_switch = v0 / rel                                               # Eq. (7)
    xdd_roll = -t_k * RADIUS / (INERTIA + MASS * RADIUS ** 2)         # Eq. (8)
    v_switch = v0 + xdd_slip * t_switch
    t_stop = t_switch + v_switch / -xdd_roll                          # Eq. (9)
    return dict(t_k=t_k, xdd_slip=xdd_slip, thdd_slip=thdd_slip, rel=rel, t_switch=t_switch,
                xdd_roll=xdd_roll, thdd_roll=xdd_roll / RADIUS, v_switch=v_switch, t_stop=t_stop,
                friction_roll=-MASS * xdd_roll)


def stick_system(k_d, d_r):
    """State matrix of the stick-stick linear system after the stop (Eq. 11) for
    y = (S, Theta, x', theta')."""
    return np.array([
        [0.0, 0.0, 1.0, -RADIUS],
        [0.0, 0.0, 0.0, 1.0],
        [-K_E / MASS, 0.0, -k_d / MASS, k_d * RADIUS / MASS],
        [RADIUS * K_E / INERTIA, -K_R / INERTIA, RADIUS * k_d / INERTIA,
         -(RADIUS ** 2 * k_d + d_r) / INERTIA],
    ])


def post_stop_response(t, k_d, d_r):
    """Response of Eq. (11) from the state at the stop, Eq. (12): S = F_roll / K_E, Theta = Theta^d,
    x' = theta' = 0. Returns S, Theta, x', theta', x'', theta'' at the times t (from the stop)."""
    a = stick_system(k_d, d_r)
    values, vectors = np.linalg.eig(a)
    y0 = np.array([phases()["friction_roll"] / K_E, roll_threshold(MU_K), 0.0, 0.0])
    coefficients = np.linalg.solve(vectors, y0)
    y = (vectors @ (coefficients[:, None] * np.exp(values[:, None] * t[None, :]))).real
    s, theta, v, w = y
    xdd = -(K_E * s + k_d * (v - RADIUS * w)) / MASS
    thdd = (RADIUS * (K_E * s + k_d * (v - RADIUS * w)) - K_R * theta - d_r * w) / INERTIA
    return s, theta, v, w, xdd, thdd


def slowest_rate(k_d, d_r):
    """Decay rate (1/s) of the slowest mode of Eq. (11)."""
    return -np.max(np.linalg.eigvals(stick_system(k_d, d_r)).real)


def load(out, contacts=True):
    bodies = body_rows(read_csv(out / "bodies.csv"), "disk")
    d = dict(step=bodies["step"], t=bodies["step"] * DT, x=bodies["x"], v=bodies["vx"], w=bodies["wy"],
             theta=2.0 * np.arctan2(bodies["qy"], bodies["qw"]))
    # Accelerations: with symplectic Euler v_(n+1) - v_n = dt F_n / m exactly, F_n the force at step n.
    d["xdd"] = np.append(np.diff(d["v"]) / DT, np.nan)
    d["thdd"] = np.append(np.diff(d["w"]) / DT, np.nan)
    if contacts:
        c = read_csv(out / "contacts.csv")
        if not np.array_equal(c["step"], d["step"]):
            raise RuntimeError(f"{out}: bodies.csv and contacts.csv rows differ (one contact expected every step)")
        d.update(F=-c["fsx"], T=c["roll_j_y"], slide_mode=c["slide_mode"], S=c["S_x"],
                 E=-c["slide_elastic_x"], D=-c["slide_damping_x"])
        if "roll_mode_j" in c and not np.all(np.isnan(c["roll_mode_j"])):
            d.update(roll_mode=c["roll_mode_j"], Te=c["roll_elastic_j_y"], Td=c["roll_damping_j_y"],
                     Theta=c["Theta_j_x"])
    return d


def slip_start(d):
    """A time in the slip phase after the onset transient: 10 ms after the last step on which the roll was
    still in stick before the switch to rolling, and not before 20 ms."""
    switch = first_stick(d, 0.003)[1]
    stick = np.flatnonzero(d["roll_mode"][:switch] == 0)
    last = d["t"][stick[-1]] if len(stick) else 0.0
    return max(0.02, last + 0.01) - DT / 2


def first_stick(d, after=0.0):
    """Time of the first step in slide stick mode after `after` (the switch to rolling)."""
    k = np.flatnonzero((d["slide_mode"] == 0) & (d["t"] > after))
    return d["t"][k[0]], k[0]


def stop_index(d, after=0.2):
    """First step after `after` at which theta' <= 0 (the rolling disk has stopped)."""
    return int(np.flatnonzero((d["w"] <= 0) & (d["t"] > after))[0])


def decay_rate(t, w, start, end):
    """Decay rate of the envelope of |w| between start and end (s after t[0]): least squares on the log of
    the peaks of |w|."""
    keep = (t >= start) & (t <= end)
    tt, aw = t[keep], np.abs(w[keep])
    peaks = np.flatnonzero((aw[1:-1] > aw[:-2]) & (aw[1:-1] >= aw[2:])) + 1
    if len(peaks) < 3:  # overdamped: no oscillation, fit the curve itself
        peaks = np.arange(len(tt))
    slope = np.polyfit(tt[peaks], np.log(aw[peaks]), 1)[0]
    return -slope


def run(ctx: Context) -> CaseResult:
    result = fn_paper_form_case(ctx, "disk", TITLE, __doc__, FN_PAPER_FORM_ROLL)
    every_step = {"output.csv_interval": 0}
    main = load(ctx.run_scene(SCENES / "disk.yaml", "table3", {**every_step, "time.duration": 2.5}))
    no_dashpots = load(ctx.run_scene(SCENES / "disk.yaml", "no_dashpots",
                                     {**every_step, "time.duration": 0.15, "contacts.0.slide.K_D": 0,
                                      "contacts.0.roll.D_R": 0}))
    damping = {1.0: main}
    for f in DAMPING_FACTORS:
        if f != 1.0:
            damping[f] = load(ctx.run_scene(SCENES / "disk.yaml", f"damping_{f:g}",
                                            {**every_step, "time.duration": 2.5, "contacts.0.slide.K_D": f * K_D,
                                             "contacts.0.roll.D_R": f * D_R, "output.contacts_csv": "false"}),
                              contacts=False)
    legacy = load(ctx.run_scene(SCENES / "disk_legacy.yaml", "legacy",  # its roll model has no rocking key
                                {**FN_PAPER_FORM, **every_step, "time.duration": 2.0}, base=False))
    readings = {}
    for key, v0, k_r, duration in [("v5_table3", 5.0, 1600.0, 1.2), ("v5_eq2b", 5.0, -1, 2.0),
                                   ("v05_eq2b", 0.5, -1, 0.3), ("v05_k3200", 0.5, 3200.0, 0.2)]:
        readings[key] = load(ctx.run_scene(SCENES / "disk.yaml", key, {
            **every_step, "time.duration": duration, "bodies.disk.velocity": f"[{v0},0,0]",
            "contacts.0.roll.K_R": k_r, "contacts.0.roll.D_R": -1}))
    p = phases()
    derivation = "docs/validation/disk.md"

    # ------------------------------------------------ slip phase
    d = main
    i1, i2 = np.searchsorted(d["t"], 0.02 - DT / 2), np.searchsorted(d["t"], 0.08 - DT / 2)
    span = d["t"][i2] - d["t"][i1]
    tol_v = roundoff_tolerance(i2 - i1, 1.0) / span
    result.check("slip phase: x''", p["xdd_slip"], (d["v"][i2] - d["v"][i1]) / span, tol_v, "m/s^2",
                 derivation=f"Eq. (4) of {derivation}: in slip the friction on the disk is mu_k N = 9.8 N "
                 "backwards, x'' = -mu_k g; constant forces change the velocity by the same amount every step, "
                 "so only round-off is left (measured from 20 to 80 ms, after the onset transient of Eq. 10).",
                 basis="slip phase")
    result.check("slip phase: theta''", p["thdd_slip"], (d["w"][i2] - d["w"][i1]) / span, tol_v / RADIUS, "rad/s^2",
                 derivation="Eq. (5): theta'' = (mu_k N R - T_k) / I with the kinetic roll torque T_k = K_R "
                 "Theta^d = K_R mu_k N / (2 R K_E) = 0.392 N m (Eq. 3): 15.68 rad/s^2; round-off tolerance.",
                 basis="slip phase theta''")
    result.check("slip phase: E_f on the disk", -MU_K * NORMAL, d["E"][i1], roundoff_tolerance(1, 10.0), "N",
                 derivation="Eq. (4): the paper's E_f = m g mu_k = 9.8 N (the paper prints the magnitude), "
                 "backwards on the disk.", basis="slip phase")
    result.check("slip phase: roll torque on the disk", -p["t_k"], d["T"][i1], roundoff_tolerance(1, 1.0), "N m",
                 basis="slip phase theta''")

    # ------------------------------------------------ switch to rolling
    t_sw, k_sw = first_stick(d, 0.01)
    k0 = np.searchsorted(d["t"], slip_start(d))
    u0 = d["v"][k0] - RADIUS * d["w"][k0]
    predicted = d["t"][k0] + u0 / p["rel"]
    result.check("switch to rolling (slide stick), from the state in slip at 20 ms", predicted, t_sw, 2 * DT, "s",
                 derivation="Eq. (6)-(7): the slip velocity u = x' - R theta' falls at mu_k g + R (mu_k N R - "
                 "T_k) / I = 5.096 m/s^2 and the slide switches to stick on the step where it changes sign "
                 "(Sec. 3.1: |S + Delta S| < S_k); started from the measured u at 20 ms, after the onset "
                 "transient (Eq. 10); tolerance two steps (the sign change falls inside a step; the switch "
                 "step is the next one).", basis="switch time")
    t_sw0, _ = first_stick(no_dashpots, 0.003)
    result.check("switch to rolling from rest, dashpots off (K_D = D_R = 0)", p["t_switch"], t_sw0, 1e-3, "s",
                 derivation="Eq. (7) from t = 0: t_s = v0 / 5.096 m/s^2 = 98.1 ms. Without dashpots the onset "
                 "transient is only the build-up of the springs: the roll spring ramps from 0 to its cap over "
                 "~6 ms (theta reaches Theta^s = 3.06e-4 rad), with half the kinetic torque on average, which "
                 "advances the switch by ~0.5 ms: tolerance 1 ms.", basis="switch time")
    result.notes.append(
        f"Switch to rolling: paper 0.11 s; fricdem {t_sw:.4f} s with Table 3's dashpots and {t_sw0:.4f} s without; "
        f"closed form from rest {p['t_switch']:.4f} s (Eq. 7). The stick-mode slide dashpot at the onset of the "
        f"contact (2 steps with D_f up to K_D u0 = 707 N) and the roll dashpot during the first 1.3 ms of roll "
        f"stick change the slip velocity at 20 ms by {u0 - (V0 - p['rel'] * 0.02):+.4f} m/s (Eq. 10), so the switch "
        f"comes {p['t_switch'] - t_sw:.4f} s early.")

    # ------------------------------------------------ rolling phase
    i1, i2 = np.searchsorted(d["t"], 0.4 - DT / 2), np.searchsorted(d["t"], 1.0 - DT / 2)
    span = d["t"][i2] - d["t"][i1]
    result.check("rolling phase: x''", p["xdd_roll"], (d["v"][i2] - d["v"][i1]) / span,
                 1e-6 * abs(p["xdd_roll"]), "m/s^2", relative=False,
                 derivation="Eq. (8): rolling without slip (x' = R theta') with the kinetic roll torque, "
                 "x'' = -T_k R / (I + m R^2) = -0.2613 m/s^2, theta'' = x'' / R. After the switch the slide "
                 "spring relaxes from mu_k N to the rolling friction through an overdamped mode of rate ~78 /s "
                 "(Eq. 8b); from 0.4 s on it is below 1e-9 of its start: tolerance 1e-6 relative.",
                 basis="rolling phase")
    result.check("rolling phase: theta''", p["thdd_roll"], (d["w"][i2] - d["w"][i1]) / span,
                 1e-6 * abs(p["thdd_roll"]), "rad/s^2", basis="rolling phase")
    result.check("rolling phase: slide friction on the disk", -p["friction_roll"], d["F"][i1],
                 1e-6 * p["friction_roll"], "N", basis="rolling phase",
                 derivation="Eq. (8): F = m T_k R / (I + m R^2) = 1.307 N backwards, well inside mu_s N = 12.25 N "
                 "(the slide stays in stick).")
    result.check("rolling phase: roll mode (1 = kinetic) at every step", 1.0,
                 np.min(d["roll_mode"][i1:i2 + 1]), 0,
                 derivation="the disk keeps rolling forward, so every step pushes Theta past Theta^d again: the "
                 "roll stays kinetic (the paper: 'Roll friction remains in kinetic mode').", basis="rolling phase")
    k_stop = stop_index(d)
    predicted_stop = d["t"][i1] + d["v"][i1] / -p["xdd_roll"]
    result.check("stop (theta' <= 0), from the state at 0.4 s", predicted_stop, d["t"][k_stop], 2 * DT, "s",
                 derivation="Eq. (9): t_stop = t + x'(t) / |x''|; from rest and without the onset transient it "
                 f"would be {p['t_stop']:.4f} s; tolerance two steps.", basis="stop time")

    # ------------------------------------------------ after the stop: linear stick-stick system
    after = np.arange(k_stop, len(d["t"]))
    result.check("after the stop: roll slip steps", 0, np.count_nonzero(d["roll_mode"][after] == 1), 0,
                 derivation="Eq. (11)-(12): at the stop Theta = Theta^d < Theta^s and the disk rolls back, "
                 "unloading both springs: slide and roll stay in stick and the motion is the linear system of "
                 "Eq. (11).", basis="after the stop")
    result.check("after the stop: slide slip steps", 0, np.count_nonzero(d["slide_mode"][after] == 1), 0,
                 basis="after the stop")
    rates = {}
    for f in DAMPING_FACTORS:
        df = damping[f]
        ks = stop_index(df)
        ta = df["t"][ks:] - df["t"][ks]
        decays = np.unique(np.round(-np.linalg.eigvals(stick_system(f * K_D, f * D_R)).real, 9))
        expected, gap = decays[0], decays[1] - decays[0]
        start = max(0.1, 5.0 / gap)                 # the next mode is below exp(-5) of the slowest
        end = min(start + 0.3, 16.0 / expected, ta[-1])  # the slowest still above ~1e-7 of its start
        rates[f] = decay_rate(ta, df["w"][ks:], start, end)
        result.check(f"damping x{f:g}: decay rate of |theta'| after the stop", expected, rates[f], 0.05,
                     "1/s", relative=True,
                     derivation="Eq. (13): the slowest eigenvalue of the stick-stick system (11) sets how fast the "
                     "disk comes to rest: 8.7, 17.4, 34.7, 34.9 /s for the factors 0.25, 0.5, 1, 2 (2 is "
                     "overdamped, its next mode decays at 51.9 /s). Measured by a least-squares fit of log "
                     "|theta'| (at its peaks when it oscillates) from the time the next-slowest mode is below "
                     "exp(-5) of the slowest one (at least 0.1 s after the stop) for 0.3 s or until the slowest "
                     "mode has fallen by exp(-16), far above the round-off floor; tolerance 5%: what is left of "
                     "the faster modes and the peak sampling bend the fit by up to ~1%.", basis="decay rate")
    peaks = {}
    for f in DAMPING_FACTORS:
        df = damping[f]
        ks = stop_index(df)
        tt = df["t"][ks:] - df["t"][ks]
        window = tt < 0.3
        model = post_stop_response(tt[window], f * K_D, f * D_R)[4]
        peaks[f] = (np.nanmax(model), np.nanmax(df["xdd"][ks:][window]))
        result.check(f"damping x{f:g}: overshoot (largest x'' > 0 after the stop)", peaks[f][0], peaks[f][1],
                     0.1 * peaks[f][0] + abs(p["xdd_roll"]) * 0.02, "m/s^2",
                     derivation="Eq. (12): the response of the linear system (11) from the state at the stop "
                     "(S = F / K_E, Theta = Theta^d, at rest), in continuous time; tolerance 10% of the peak plus "
                     "2% of |x''| in rolling: the stop is seen up to one step late (|theta'| up to |theta''| dt "
                     "at the first step) and the fastest mode (up to 4100 /s) is not resolved by dt = 1e-4 s.",
                     basis="overshoot")
    result.notes.append(
        "Damping study (K_D and D_R scaled together; the paper's Fig. 7): largest x'' overshoot after the stop "
        + ", ".join(f"x{f:g}: {peaks[f][1]:.4f} m/s^2" for f in DAMPING_FACTORS)
        + " (it decreases with damping, as the paper says); decay rate of theta' "
        + ", ".join(f"x{f:g}: {rates[f]:.1f} /s" for f in DAMPING_FACTORS)
        + ". The disk comes to rest sooner with more damping up to critical, and not beyond: the slowest "
        "rate is 34.9 /s at x2 and falls again (16.5 /s at x4, Eq. 13), overdamped.")

    # ------------------------------------------------ at rest
    rest = d["t"] >= d["t"][k_stop] + 1.0
    torque_rest = np.max(np.abs(d["T"][rest]))
    omega_rest = np.max(np.abs(d["w"][rest]))
    result.check("ours at rest (from 1 s after the stop): max |roll torque|", 0.0, torque_rest, REST_BOUND_TORQUE,
                 "N m", derivation="Eq. (14): the transient decays at 34.7 /s, to exp(-34.7) = 1e-15 of its "
                 "0.39 N m within 1 s; what is left is round-off: the painted points are carried with positions "
                 "of ~0.21 m, so each step's roll increment theta = p_j / R carries a few ulp(0.21) / R ~ 5e-16 "
                 "rad of noise, which the stick dashpot turns into D_R theta / dt ~ 1e-10 N m. Bound 1e-9 N m, "
                 "ten times that floor, 1e9 times below the legacy model's 0.98 N m.", basis="at rest")
    result.check("ours at rest: max |theta'|", 0.0, omega_rest, REST_BOUND_OMEGA, "rad/s",
                 derivation="the round-off torque floor over the roll dashpot, 1e-10 N m / D_R ~ 4e-12 rad/s; "
                 "bound 1e-10 rad/s (the legacy model: ~1e-3 rad/s).", basis="at rest omega")

    # ------------------------------------------------ legacy model
    q = phases(torque=MU_R * RADIUS * NORMAL)
    lg = legacy
    i1, i2 = np.searchsorted(lg["t"], 0.02 - DT / 2), np.searchsorted(lg["t"], 0.08 - DT / 2)
    span = lg["t"][i2] - lg["t"][i1]
    result.check("legacy, slip phase: theta''", q["thdd_slip"], (lg["w"][i2] - lg["w"][i1]) / span,
                 roundoff_tolerance(i2 - i1, 1.0) / span / RADIUS, "rad/s^2",
                 derivation="Eq. (5) with the legacy torque mu_r R N = 0.98 N m (Eq. 8 of the paper): "
                 "theta'' = (1.96 - 0.98) / 0.1 = 9.8 rad/s^2; round-off tolerance.", basis="legacy phases")
    i1, i2 = np.searchsorted(lg["t"], 0.3 - DT / 2), np.searchsorted(lg["t"], 0.48 - DT / 2)
    span = lg["t"][i2] - lg["t"][i1]
    result.check("legacy, rolling phase: x''", q["xdd_roll"], (lg["v"][i2] - lg["v"][i1]) / span,
                 1e-5 * abs(q["xdd_roll"]), "m/s^2",
                 derivation="Eq. (8) with T = 0.98 N m: -0.6533 m/s^2. The legacy switch comes at 0.107 s and "
                 "the stop at 0.51 s, so the window 0.3-0.48 s starts only 0.19 s after the switch: the slide "
                 "transient (rate ~78 /s) is down to ~1e-6 of its start; tolerance 1e-5 relative.",
                 basis="legacy phases")
    k_lstop = stop_index(lg)
    predicted = lg["t"][i1] + lg["v"][i1] / -q["xdd_roll"]
    result.check("legacy: stop (theta' <= 0), from the state at 0.3 s", predicted, lg["t"][k_lstop], 2 * DT, "s",
                 basis="legacy phases")
    result.check("legacy: stop from rest, by the angular momentum about the contact point",
                 MASS * V0 * RADIUS / (MU_R * RADIUS * NORMAL) + 2 * DT, lg["t"][k_lstop], 1.5 * DT, "s",
                 derivation="Eq. (9b): the slide force and the normal force act at the contact point, so the "
                 "disk's angular momentum about it, L = m x' R + I theta', changes only through the roll torque: "
                 "L = m v0 R - T (t - 2 dt) (the torque is zero on the first two steps: no history, then omega = "
                 "0 exactly) reaches 0, and the rolling disk stops, at m v0 R / T + 2 dt = 0.51041 s, whatever "
                 "happens in the slip phase; tolerance 1.5 steps (theta' <= 0 is seen on the first step past).",
                 basis="legacy phases")
    rest = lg["t"] >= lg["t"][k_lstop] + 0.1
    torque = lg["T"][rest]
    flips = np.count_nonzero(np.sign(torque[1:]) != np.sign(torque[:-1])) / (len(torque) - 1)
    result.check("legacy at rest (from 0.1 s after the stop): fraction of steps on which the torque flips sign",
                 1.0, flips, 0.0,
                 derivation="Eq. (15): the torque -mu_r R N omega / |omega| has the full magnitude for any omega "
                 "!= 0; at the stop each step's torque overshoots omega through zero, so the torque flips sign "
                 "every step (the paper's Fig. 8a inset: 'an oscillation of the rolling friction torque between "
                 "two values').", basis="legacy chattering")
    result.check("legacy at rest: smallest |roll torque|", MU_R * RADIUS * NORMAL, np.min(np.abs(torque)),
                 roundoff_tolerance(1, 1.0), "N m",
                 derivation="Eq. (15): the torque never decreases: |M_r| = mu_r R N = 0.98 N m on every step.",
                 basis="legacy chattering")
    w_rest = lg["w"][rest]
    swing = np.mean(np.abs(np.diff(w_rest)))
    result.check("legacy at rest: step-to-step swing of theta'", MU_R * RADIUS * NORMAL * DT / INERTIA, swing, 0.05,
                 "rad/s", relative=True,
                 derivation="Eq. (16): each step the torque of size mu_r R N changes omega by mu_r R N dt / I = "
                 "9.8e-4 rad/s, and back on the next; the alternating slide force (~0.15 N, moment arm R) adds "
                 "~3%: tolerance 5%.", basis="legacy chattering")
    creep_speed = np.mean(lg["v"][rest])
    result.notes.append(
        f"At rest (the paper's Fig. 8): the legacy model's torque flips between +{MU_R * RADIUS * NORMAL:.2f} and "
        f"-{MU_R * RADIUS * NORMAL:.2f} N m on {flips * 100:.0f}% of the steps, its angular velocity swings by "
        f"{swing:.3g} rad/s each step (max |theta'| {np.max(np.abs(w_rest)):.3g} rad/s), and the chattering is "
        f"lopsided: the disk keeps rolling backwards at a mean {creep_speed:.3g} m/s. Ours: max |roll torque| "
        f"{torque_rest:.3g} N m and max |theta'| {omega_rest:.3g} rad/s from 1 s after the stop (round-off).")

    # ------------------------------------------------ other readings of the paper
    lines = []
    for key, v0, k_r, label in [("v5_table3", 5.0, K_R, "v0 = 5 m/s, K_R = 1600"),
                                ("v5_eq2b", 5.0, 4 * ETA_R * RADIUS ** 2 * K_E, "v0 = 5 m/s, K_R = 6400 (Eq. 2b)"),
                                ("v05_eq2b", 0.5, 4 * ETA_R * RADIUS ** 2 * K_E, "v0 = 0.5 m/s, K_R = 6400 (Eq. 2b)"),
                                ("v05_k3200", 0.5, 3200.0, "v0 = 0.5 m/s, K_R = 3200")]:
        r = readings[key]
        closed = phases(v0=v0, k_r=k_r)
        if not np.any((r["slide_mode"] == 0) & (r["t"] > 0.003)):
            # The knife edge below: the roll's static cap equals the friction moment, and round-off may
            # keep the roll in stick for the whole run; then there is no switch to time.
            lines.append(f"{label}: the disk never starts rolling in {r['t'][-1]:.1f} s (the knife edge below: "
                         "K_R Theta^s = 2 eta_r mu_s N R equals mu_k N R and round-off keeps the roll in stick)")
            continue
        t_switch, _ = first_stick(r, 0.003)
        t0 = slip_start(r)
        k0 = np.searchsorted(r["t"], t0)
        u0 = r["v"][k0] - RADIUS * r["w"][k0]
        predicted = r["t"][k0] + u0 / closed["rel"]
        result.check(f"reading {label}: switch to rolling, from the state at {t0 * 1e3:.0f} ms", predicted,
                     t_switch, 2 * DT, "s", basis="switch time")
        lines.append(f"{label}: T_k = {closed['t_k']:.3f} N m, switch {t_switch:.4f} s (closed form from rest "
                     f"{closed['t_switch']:.4f} s)")
        if t0 > 0.05:
            lines.append(f"(with v0 = 5 m/s and K_R = 6400 the roll stays in stick until {t0 - 0.01:.3f} s: its "
                         "static cap K_R Theta^s = 2 eta_r mu_s N R = 1.96 N m equals the friction moment "
                         "mu_k N R, a knife edge that round-off decides, Eq. 3b)")
    result.notes.append("Other readings of Sec. 4.2 (the paper's switch: 0.11 s): " + "; ".join(lines)
                        + f"; as the scene: v0 = 0.5 m/s, K_R = 1600: {t_sw:.4f} s (closed form {p['t_switch']:.4f} s). "
                        "K_R = 3200 gives the kinetic torque eta_r mu_k N R = 0.784 N m that Table 1's identical-"
                        "curvature row (the row Table 3's K_r comes from) would give. These runs take D_R from the "
                        "heuristic 2 sqrt(I K_R) (25.30 for 1600, as Table 3).")

    figure_kinematics(ctx, result, main)
    figure_damping(ctx, result, damping)
    figure_legacy_vs_ours(ctx, result, main, legacy)
    figure_at_rest(ctx, result, main, legacy)
    compare_fn_default_form(ctx, result, SCENES / "disk.yaml", "table3", "disk", 0.25,
                            sets={"time.duration": 2.5})
    return result


def twin(axis, t, left, right, left_label, right_label, styles=("-", "-")):
    axis.plot(t, left, styles[0], color="tab:blue", lw=1.2)
    axis.set_ylabel(left_label, color="tab:blue")
    axis.tick_params(axis="y", colors="tab:blue")
    other = axis.twinx()
    other.plot(t, right, styles[1], color="tab:red", lw=1.2)
    other.set_ylabel(right_label, color="tab:red")
    other.tick_params(axis="y", colors="tab:red")
    axis.set_xlabel("time t [s]")
    axis.grid(alpha=0.3)
    return other


def figure_kinematics(ctx, result, d):
    """The thrown disk's positions, loads, velocities, accelerations and
    micro-deformations (the paper's Fig. 6)."""
    p = phases()
    keep = d["t"] <= 1.6
    t = d["t"][keep]
    figure, axes = plt.subplots(3, 2, figsize=(13, 10.5))
    figure.suptitle("Disk rolling on a flat surface (Table 3, v0 = 0.5 m/s): blue = x and slide, red = theta and "
                    "roll (cf. Fang & Negrut Fig. 6)")
    twin(axes[0, 0], t, d["x"][keep], d["theta"][keep], "x [m]", "theta [rad]")
    axes[0, 0].set_title("(a) position", fontsize=10)
    twin(axes[0, 1], t, d["E"][keep], d["Te"][keep], "elastic slide force E_f [N]", "elastic roll torque T_E [N m]")
    axes[0, 1].set_title("(a) elastic components of the friction loads on the disk", fontsize=10)
    other = twin(axes[1, 0], t, d["v"][keep], d["w"][keep], "x' [m/s]", "theta' [rad/s]")
    slipping = t < p["t_switch"]
    v_closed = np.where(slipping, V0 + p["xdd_slip"] * t, p["v_switch"] + p["xdd_roll"] * (t - p["t_switch"]))
    w_closed = np.where(slipping, p["thdd_slip"] * t, p["v_switch"] / RADIUS + p["thdd_roll"] * (t - p["t_switch"]))
    axes[1, 0].plot(t, np.maximum(v_closed, 0.0), "k:", lw=0.9)
    other.plot(t, np.maximum(w_closed, 0.0), "k:", lw=0.9)
    axes[1, 0].set_title("(b) velocity (dotted: Eq. 4-9 from rest, without the onset transient)", fontsize=10)
    other = twin(axes[1, 1], t, d["D"][keep], d["Td"][keep], "damping slide force D_f [N]",
                 "damping roll torque T_D [N m]")
    axes[1, 1].set_title("(b) damping components (stick only; onset spikes clipped)", fontsize=10)
    axes[1, 1].set_ylim(-5, 5)
    other.set_ylim(-0.5, 0.5)
    other = twin(axes[2, 0], t, d["xdd"][keep], d["thdd"][keep], "x'' [m/s^2]", "theta'' [rad/s^2]")
    axes[2, 0].set_title("(c) acceleration (onset spikes clipped)", fontsize=10)
    axes[2, 0].set_ylim(-2.5, 4.0)
    other.set_ylim(-2.5 / RADIUS, 4.0 / RADIUS)  # same scale as x'' / R: in rolling the curves coincide
    twin(axes[2, 1], t, d["S"][keep] * 1e6, d["Theta"][keep] * 1e6, "slide micro-deformation S [um]",
         "roll micro-deformation Theta [urad]")
    axes[2, 1].set_title("(c) micro-deformations", fontsize=10)
    for axis in axes.flat:
        axis.axvline(first_stick(d, 0.01)[0], color="gray", ls="--", lw=0.7)
        axis.axvline(d["t"][stop_index(d)], color="gray", ls="--", lw=0.7)
    save_figure(ctx, result, figure, "kinematics",
                "The disk of Table 3 thrown at 0.5 m/s (the paper's Fig. 6 layout; dashed: the "
                "switch to rolling at 0.085 s and the stop at 1.258 s). It slips with E_f = -9.8 N and "
                "the kinetic roll torque -0.392 N m until x' = R theta', rolls without slip at x'' = "
                "-0.261 m/s^2 with the roll still kinetic, and stops; S and Theta then relax to zero. "
                "The onset of the contact, in stick, carries a brief slide dashpot spike (707 N, "
                "clipped) and a roll dashpot torque.", dpi=85)


def figure_damping(ctx, result, damping):
    """The damping study: the motion near the stop for each damping factor
    (the paper's Fig. 7)."""
    figure, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    colors = {0.25: "tab:orange", 0.5: "tab:green", 1.0: "tab:blue", 2.0: "tab:purple"}
    for f in DAMPING_FACTORS:
        df = damping[f]
        ks = stop_index(df)
        window = (df["t"] > df["t"][ks] - 0.05) & (df["t"] < df["t"][ks] + 0.4)
        label = f"K_D = {f:g} K_cr, D_r = {f:g} D_cr"
        axes[0].plot(df["t"][window], df["xdd"][window], color=colors[f], lw=1.2, label=label)
        axes[1].plot(df["t"][window], df["thdd"][window], color=colors[f], lw=1.2, label=label)
        tt = np.linspace(0, 0.4, 1500)
        model = post_stop_response(tt, f * K_D, f * D_R)
        axes[0].plot(df["t"][ks] + tt, model[4], ":", color="k", lw=0.8)
        axes[1].plot(df["t"][ks] + tt, model[5], ":", color="k", lw=0.8)
        later = df["t"] > df["t"][ks] - 0.05
        axes[2].semilogy(df["t"][later], np.maximum(np.abs(df["w"][later]), 1e-17), color=colors[f], lw=1, label=label)
    axes[0].plot([], [], "k:", lw=0.8, label="Eq. (12), linear stick-stick response")
    panels = [("x'' [m/s^2]", "translational acceleration near the stop", {"fontsize": 8}),
              ("theta'' [rad/s^2]", "angular acceleration near the stop", None),
              ("|theta'| [rad/s]", "coming to rest: |theta'| (log scale)", {"fontsize": 8})]
    for axis, (ylabel, title, legend) in zip(axes, panels):
        finish_axes(axis, "time t [s]", ylabel, title, title_size=10, grid=True, legend=legend)
    save_figure(ctx, result, figure, "damping",
                "Damping study (cf. the paper's Fig. 7): K_D and D_r scaled together. x'' and "
                "theta'' hold the rolling values until the stop, then overshoot and change sign before "
                "settling; the overshoot decreases with damping and follows the linear response of "
                "Eq. (12) (dotted). Right: |theta'| decays at the slowest eigenvalue of Eq. (11), "
                "faster with more damping up to x2, down to the round-off floor (~1e-12 rad/s).", dpi=85)


def figure_legacy_vs_ours(ctx, result, d, legacy):
    """Angular position and roll torque with the legacy constant-torque
    model and with the Fang & Negrut model (the paper's Fig. 8)."""
    figure, axes = plt.subplots(2, 2, figsize=(13, 8.5))
    for row, (model, name, t_end) in enumerate([(legacy, "(a) legacy constant torque, Eq. (8), mu_r = 0.1", 2.0),
                                                 (d, "(b) Fang & Negrut roll model (Table 3)", 2.5)]):
        keep = model["t"] <= t_end
        axes[row, 0].plot(model["t"][keep], model["theta"][keep], color="tab:red", lw=1.2)
        axes[row, 0].set_ylabel("theta [rad]")
        axes[row, 0].set_title(f"{name}: angular position", fontsize=10)
        axes[row, 1].plot(model["t"][keep], model["T"][keep], color="tab:red", lw=0.8)
        axes[row, 1].set_ylabel("roll torque on the disk [N m]")
        axes[row, 1].set_title(f"{name}: roll friction torque", fontsize=10)
        for axis in axes[row]:
            axis.set_xlabel("time t [s]")
            axis.grid(alpha=0.3)
        zoom = (model["t"] > t_end - 0.002 + DT / 2) & (model["t"] <= t_end)
        t_zoom = (model["t"][zoom] - t_end) * 1e3
        inset = axes[row, 1].inset_axes([0.45, 0.15, 0.5, 0.4])
        inset.plot(t_zoom, model["T"][zoom], ".-", color="tab:red", lw=0.6, ms=3)
        inset.set_title("last 2 ms, every step: torque [N m]", fontsize=8)
        inset.set_xlabel("t - t_end [ms]", fontsize=7)
        inset.tick_params(labelsize=7)
        zoom_theta = axes[row, 0].inset_axes([0.45, 0.15, 0.5, 0.4])
        zoom_theta.plot(t_zoom, (model["theta"][zoom] - model["theta"][zoom][-1]) * 1e6, ".-", color="tab:red",
                        lw=0.6, ms=3)
        zoom_theta.set_title("last 2 ms, every step: theta - theta(t_end) [urad]", fontsize=8)
        zoom_theta.set_xlabel("t - t_end [ms]", fontsize=7)
        zoom_theta.tick_params(labelsize=7)
    axes[1, 1].set_ylim(-0.5, 0.2)
    axes[1, 1].text(0.02, 0.03, "onset spike (-6.9 N m, roll dashpot in stick) clipped", fontsize=8,
                    transform=axes[1, 1].transAxes)
    save_figure(ctx, result, figure, "legacy_vs_ours",
                "The paper's Fig. 8: angular position and roll torque with the legacy "
                "constant-torque model (a) and with the Fang & Negrut model (b). Insets: the last 2 ms, "
                "every step. The legacy torque flips between +0.98 and -0.98 N m on every step after the "
                "stop and theta keeps drifting; ours is down to ~1e-10 N m and theta is constant.", dpi=85)


def figure_at_rest(ctx, result, d, legacy):
    """What is left of the roll torque and the spin once the disk has
    stopped, legacy model against Fang & Negrut, on log scales."""
    figure, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    for model, name, color in [(legacy, "legacy, Eq. (8)", "tab:orange"), (d, "Fang & Negrut", "tab:blue")]:
        axes[0].semilogy(model["t"], np.maximum(np.abs(model["T"]), 1e-20), color=color, lw=0.8, label=name)
        axes[1].semilogy(model["t"], np.maximum(np.abs(model["w"]), 1e-20), color=color, lw=0.8, label=name)
    axes[0].axhline(REST_BOUND_TORQUE, color="k", ls=":", lw=0.8)
    axes[1].axhline(REST_BOUND_OMEGA, color="k", ls=":", lw=0.8)
    panels = [("|roll torque| [N m]", "roll torque at rest: chattering vs round-off (dotted: the checked bound)"),
              ("|theta'| [rad/s]", "angular velocity at rest (dotted: the checked bound)")]
    for axis, (ylabel, title) in zip(axes, panels):
        finish_axes(axis, "time t [s]", ylabel, title, title_size=10, grid=True, legend={"fontsize": 8})
    save_figure(ctx, result, figure, "at_rest",
                "Residual roll torque and angular velocity on log scales: the legacy model "
                "keeps |torque| = 0.98 N m and |theta'| ~ 1e-3 rad/s for ever; the Fang & Negrut model "
                "decays at 34.7 /s to a round-off floor of ~1e-10 N m and ~1e-12 rad/s.", dpi=85)
