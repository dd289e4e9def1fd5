"""Sphere rolling up an incline: Fang & Negrut (paper 003) Sec. 4.3, Fig. 11
(phases I to IV) and Fig. 12 (steady-state regime map against App. D).

Scene scenes/fang_negrut/incline.yaml: a sphere (R = 0.2 m, m = 5 kg,
I = 2/5 m R^2 = 0.08 kg m^2) is thrown at v0 = 0.5 m/s up a 35 degree incline
with no spin; slide (mu_s = 0.25, mu_k = 0.2, K_E = 1e5 N/m) and roll
(eta_r = 0.3) friction of the paper's model, prescribed normal force
N = m g cos(alpha) with g = 9.8 m/s^2, dt = 1e-4 s, symplectic Euler. The
incline is a horizontal plane under tilted gravity, x up the slope; the plane
is body i, so the loads on the sphere are the opposite of the slide force
columns and roll_j (docs/validation/incline.md, Sec. 1).

Phases (measured from the modes in contacts.csv, every step): after a
~1 ms onset in stick, phase I = slide and roll kinetic (sliding up while spinning
up), II = slide static, rolling up, III = slide static, rolling down, IV =
slide kinetic again (rolling with slip down). The closed forms of
docs/validation/incline.md (Sec. 3) give the accelerations, the kinetic loads
and the switching times.

Fig. 12: alpha = 1..30 deg by 0.1, eta_r = 0.2..0.5 by 0.01 (9,021 runs of
1 s, K_D = sqrt(m K_E), D_R = sqrt(I K_R) as the paper states), each run
classified at t = 1 s by its slide and roll modes (Table 4 of the PDF text /
Table 2 of the LaTeX text) and checked against the kinematic constraint of
that class. Set FRICDEM_INCLINE_SWEEP=coarse for a 210-run version (alpha by
1 deg, eta_r by 0.05) and FRICDEM_INCLINE_WORKERS for the number of processes
(default 2). A supplementary sweep at eta_r = 0.52..0.60 (alpha every 1 deg,
150 runs) shows App. D's pure-slip regime, which Fig. 12's range reaches only
on its knife-edge top row. The results go to validation/out/incline/*.csv;
FRICDEM_INCLINE_REUSE=1 re-reads them instead of re-running (to redraw).
"""
from __future__ import annotations

import math
import os
import subprocess
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import matplotlib.pyplot as plt
from matplotlib import patheffects
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from .common import CLI, ROOT, CaseResult, Context, body_rows, read_csv, FN_PAPER_FORM_ROLL, compare_fn_default_form, fn_paper_form_case, save_figure

TITLE = "Fang & Negrut Sec. 4.3: sphere rolling up an incline (phases I-IV, Fig. 12 regime map)"
ORDER = 43

SCENE = ROOT / "scenes" / "fang_negrut" / "incline.yaml"

# The scene's values (kept in step with scenes/fang_negrut/incline.yaml).
G = 9.8                 # m/s^2, the paper's g
MASS = 5.0              # kg
RADIUS = 0.2            # m
INERTIA = 0.4 * MASS * RADIUS ** 2  # 0.08 kg m^2
MU_S, MU_K = 0.25, 0.2  # Sec. 4.3: mu_k N = 8.027 N, mu_s N = 10.03 N at 35 deg
K_E = 1.0e5             # N/m
ETA_R = 0.3
ALPHA_DEG = 35.0
V0 = 0.5                # m/s up the slope
DT = 1.0e-4             # s

CLASSES = ("S", "PR", "PS", "RwS")
MODES_TO_CLASS = {(0, 0): "S", (0, 1): "PR", (1, 0): "PS", (1, 1): "RwS"}  # (slide, roll) modes, Table 4
STOPPED = 1.0e-3        # m/s: |v|, |omega R| below this count as zero in the kinematic constraints
SLIP = 1.0e-3           # m/s: |v - omega R| below this counts as rolling without slip


# ---------------------------------------------------------------- analytic (docs/validation/incline.md)

def normal_force(alpha):
    return MASS * G * math.cos(alpha)


def kinetic_roll_torque(alpha, eta):
    """T_k = K_R Theta_k = 2 eta_r R mu_k N (Eq. 2b, 2c for a sphere on a plane), Eq. (7) of the notes."""
    return 2.0 * eta * RADIUS * MU_K * normal_force(alpha)


def static_roll_torque(alpha, eta):
    return 2.0 * eta * RADIUS * MU_S * normal_force(alpha)


def phase_rates(alpha, eta):
    """Closed-form rates of the notes, Sec. 3: dv/dt, d(omega)/dt in phases I and IV, dL/dt in I-II."""
    n = normal_force(alpha)
    t_k = kinetic_roll_torque(alpha, eta)
    return dict(
        a1=-G * (math.sin(alpha) + MU_K * math.cos(alpha)),            # notes Eq. (12)
        b1=(MU_K * n * RADIUS - t_k) / INERTIA,                          # notes Eq. (13)
        a4=-G * (math.sin(alpha) - MU_K * math.cos(alpha)),             # notes Eq. (22)
        b4=-(MU_K * n * RADIUS - t_k) / INERTIA,                         # notes Eq. (23)
        dL12=-(MASS * G * RADIUS * math.sin(alpha) + t_k),               # notes Eq. (15)
        rolling_up=-(G * math.sin(alpha) + t_k / (MASS * RADIUS)) / (1.0 + INERTIA / (MASS * RADIUS ** 2)),
    )


def slide_relaxation(alpha, eta, f_start, tau, k_d=None):
    """Phase II: the elastic slide force relaxing from f_start (the kinetic cap) to the force that holds
    the rolling sphere, F_II = m_eff (g sin a - T_k R / I) (notes Eq. 17-19), through the stuck slide spring and
    dashpot: m_eff S'' + K_D S' + K_E S = const with m_eff = (1/m + R^2/I)^-1 (overdamped), S'(0) = 0."""
    k_d = 2.0 * math.sqrt(MASS * K_E) if k_d is None else k_d
    m_eff = 1.0 / (1.0 / MASS + RADIUS ** 2 / INERTIA)
    root = math.sqrt(k_d ** 2 - 4.0 * m_eff * K_E)
    l1, l2 = (-k_d + root) / (2.0 * m_eff), (-k_d - root) / (2.0 * m_eff)
    f_eq = m_eff * (G * math.sin(alpha) - kinetic_roll_torque(alpha, eta) * RADIUS / INERTIA)
    tau = np.asarray(tau, dtype=float)
    return f_eq + (f_start - f_eq) * (l2 * np.exp(l1 * tau) - l1 * np.exp(l2 * tau)) / (l2 - l1)


def app_d_borders(eta):
    """App. D borders (deg): S/PR tan a = 2 eta mu_s (and tan a = mu_s, the slide's own limit, which binds for
    eta > 1/2); PR/RwS (PR/PS above eta = 1/2) tan a = 3.5 mu_s - 5 eta mu_k; RwS/PS at eta = 1/2."""
    return (math.degrees(math.atan(min(2.0 * eta, 1.0) * MU_S)),
            math.degrees(math.atan(3.5 * MU_S - 5.0 * eta * MU_K)))


def roll_static_border(eta):
    """PR/RwS border with the roll torque at its static cap T_s (notes Eq. 29), deg."""
    return math.degrees(math.atan(3.5 * MU_S - 5.0 * eta * MU_S))


def kinetic_borders(eta):
    """Lower edges of the hysteresis bands (notes Sec. 5): tan a = 2 eta mu_k (S/PR) and
    tan a = 3.5 mu_k - 5 eta mu_k (PR/RwS); between them and App. D's border both regimes are steady states."""
    return (math.degrees(math.atan(2.0 * eta * MU_K)), math.degrees(math.atan(3.5 * MU_K - 5.0 * eta * MU_K)))


def app_d_class(alpha_deg, eta):
    """The regime App. D's three conditions give, combined so that they do not overlap (notes Sec. 5.4):
    S if the sphere can be held (m g sin a <= mu_s N and m g R sin a <= 2 eta_r R mu_s N), else PR if the
    static slide can hold a rolling sphere (tan a <= 3.5 mu_s - 5 eta_r mu_k), else PS for eta_r >= 1/2 and
    RwS below. (Read literally, App. D's PS for eta_r >= 0.5 also covers angles where its PR condition holds.)"""
    t = math.tan(math.radians(alpha_deg))
    if t <= min(2.0 * eta, 1.0) * MU_S + 1e-12:
        return "S"
    if t <= 3.5 * MU_S - 5.0 * eta * MU_K + 1e-12:
        return "PR"
    return "PS" if eta >= 0.5 - 1e-12 else "RwS"


# ---------------------------------------------------------------- sweep driver

def sweep_overrides(alpha_deg, eta):
    """--set overrides that turn incline.yaml into one run of the Fig. 12 sweep (Sec. 4.3, last paragraph)."""
    a = math.radians(alpha_deg)
    k_r = 4.0 * eta * K_E * RADIUS ** 2  # Eq. (2b), sphere on a plane
    return {
        "world.gravity": f"[{-G * math.sin(a)!r}, 0, {-G * math.cos(a)!r}]",
        "contacts.0.normal.force": repr(normal_force(a)),
        "contacts.0.roll.eta_r": repr(eta),
        "contacts.0.slide.K_D": repr(math.sqrt(MASS * K_E)),      # the sweep's K_D = sqrt(m K_E)
        "contacts.0.roll.D_R": repr(math.sqrt(INERTIA * k_r)),     # and D_r = sqrt(I K_r)
        "time.duration": "1",
        "output.csv_interval": "0.1",
        "output.energy_csv": "false",
    }


def _last_rows(path, count):
    """The last `count` rows of a fricdem CSV as dicts (read_csv: pandas)."""
    table = read_csv(path)
    rows = len(next(iter(table.values())))
    return [{name: values[k] for name, values in table.items()} for k in range(rows - count, rows)]


def classify_kinematics(v, omega):
    """Table 4's kinematic constraint that (v_CM, omega) satisfies (thresholds STOPPED and SLIP)."""
    roll = omega * RADIUS
    if abs(v) < STOPPED and abs(roll) < STOPPED:
        return "S"
    if abs(v - roll) < SLIP:
        return "PR"
    if abs(roll) < STOPPED:
        return "PS"
    return "RwS" if abs(v) > abs(roll) else "?"


def sweep_point(point):
    """One sweep run through the CLI; returns its final state and classes. Top level for the Pool."""
    alpha_deg, eta = point
    with tempfile.TemporaryDirectory(prefix="fricdem_incline_") as out:
        command = [str(CLI), "run", str(SCENE), "--out", out, "--quiet"]
        for key, value in {**FN_PAPER_FORM_ROLL, **sweep_overrides(alpha_deg, eta)}.items():
            command += ["--set", f"{key}={value}"]
        completed = subprocess.run(command, capture_output=True, text=True)
        if completed.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: {completed.stderr.strip()}")
        bodies = _last_rows(Path(out) / "bodies.csv", 2)      # t = 0.9 s and t = 1 s
        contacts = _last_rows(Path(out) / "contacts.csv", 2)
    classes = [MODES_TO_CLASS[(int(float(c["slide_mode"])), int(float(c["roll_mode_j"])))] for c in contacts]
    v, omega = float(bodies[-1]["vx"]), float(bodies[-1]["wy"])
    return dict(alpha=alpha_deg, eta=eta, v=v, omega=omega, v_09=float(bodies[0]["vx"]), slide_mode=int(float(contacts[-1]["slide_mode"])),
                roll_mode=int(float(contacts[-1]["roll_mode_j"])), cls=classes[-1], cls_09=classes[0],
                kin=classify_kinematics(v, omega), app_d=app_d_class(alpha_deg, eta))


def sweep_grid(mode):
    """(alphas, etas) of the sweep: 'full' is the paper's 291 x 31 grid; 'coarse' 30 x 7."""
    if mode == "coarse":
        return [float(a) for a in range(1, 31)], [round(0.2 + 0.05 * k, 2) for k in range(7)]
    return [round(1.0 + 0.1 * k, 1) for k in range(291)], [round(0.2 + 0.01 * k, 2) for k in range(31)]


def run_sweep(points, workers=2):
    with Pool(workers) as pool:
        return pool.map(sweep_point, points, chunksize=8)


def read_sweep_csv(path):
    """The rows write_sweep_csv wrote (for FRICDEM_INCLINE_REUSE=1)."""
    table = read_csv(path)
    rows = []
    for k in range(len(table["alpha_deg"])):
        rows.append(dict(alpha=float(table["alpha_deg"][k]), eta=float(table["eta_r"][k]), v=float(table["v_cm"][k]),
                         omega=float(table["omega"][k]), v_09=float(table["v_cm_at_0.9s"][k]),
                         slide_mode=int(table["slide_mode"][k]), roll_mode=int(table["roll_mode"][k]),
                         cls=str(table["class_modes"][k]), cls_09=str(table["class_modes_at_0.9s"][k]),
                         kin=str(table["class_kinematic"][k]),
                         app_d=app_d_class(float(table["alpha_deg"][k]), float(table["eta_r"][k]))))
    return rows


def cached_sweep(ctx, label, points, workers):
    """Runs the points, or with FRICDEM_INCLINE_REUSE=1 reads validation/out/incline/<label>.csv when it
    holds exactly these points (for re-drawing the figures without re-running the sweep)."""
    path = ctx.out / f"{label}.csv"
    if os.environ.get("FRICDEM_INCLINE_REUSE") == "1" and path.exists():
        rows = read_sweep_csv(path)
        if [(r["alpha"], r["eta"]) for r in rows] == list(points):
            ctx.runs.append(f"{len(rows)} runs reused from {path.relative_to(ROOT)} (FRICDEM_INCLINE_REUSE=1)")
            return rows, 0.0
    started = time.time()
    rows = run_sweep(points, workers)
    seconds = time.time() - started
    write_sweep_csv(path, rows)
    ctx.runs.append(f"{len(rows)} runs of `build/release/fricdem run scenes/fang_negrut/incline.yaml --set ...` "
                    f"(sweep_overrides() in this module) on {workers} processes, results in "
                    f"{path.relative_to(ROOT)}: {seconds:.0f} s")
    return rows, seconds


def write_sweep_csv(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = ["alpha", "eta", "v", "omega", "v_09", "slide_mode", "roll_mode", "cls", "cls_09", "kin", "app_d"]
    with open(path, "w") as file:
        file.write("# units: deg,-,m/s,rad/s,m/s,0=stick,0=stick,-,-,-,-\n")
        file.write("alpha_deg,eta_r,v_cm,omega,v_cm_at_0.9s,slide_mode,roll_mode,class_modes,class_modes_at_0.9s,"
                   "class_kinematic,class_app_d\n")
        for r in rows:
            file.write(",".join(f"{r[k]!r}" if isinstance(r[k], float) else str(r[k]) for k in keys) + "\n")


# ---------------------------------------------------------------- Fig. 11: the 35 degree run

def phase_times(t, v, slide, roll):
    """Switching times from the per-step modes (docs/validation/incline.md Sec. 4): end of the onset
    (both kinetic), I->II (slide back to stick), II->III (v_CM changes sign), III->IV (slide kinetic)."""
    both = np.flatnonzero((slide == 1) & (roll == 1))
    k_onset = int(both[0])
    k1 = k_onset + int(np.argmax(slide[k_onset:] == 0))
    k2 = k1 + int(np.argmax(v[k1:] < 0))
    k3 = k2 + int(np.argmax(slide[k2:] == 1))
    return k_onset, k1, k2, k3


def phase_at(time_value, t, bounds):
    k = int(np.searchsorted(t, time_value))
    k_onset, k1, k2, k3 = bounds
    return 0 if k < k_onset else 1 if k < k1 else 2 if k < k2 else 3 if k < k3 else 4


def slope(t, y, start, stop):
    """Least-squares slope of y over samples [start, stop)."""
    return float(np.polyfit(t[start:stop], y[start:stop], 1)[0])


def main_run(ctx: Context, result: CaseResult):
    alpha = math.radians(ALPHA_DEG)
    out = ctx.run_scene(SCENE, "fig11_35deg")
    rows = body_rows(read_csv(out / "bodies.csv"), "ball")
    contacts = read_csv(out / "contacts.csv")
    t = rows["time"]
    if not np.array_equal(t, contacts["time"]):
        raise RuntimeError("bodies.csv and contacts.csv rows differ in time")
    v, omega = rows["vx"], rows["wy"]
    f_e = -contacts["slide_elastic_x"]          # elastic slide force on the sphere (body j), up-slope > 0
    t_e = contacts["roll_elastic_j_y"]          # elastic roll torque on the sphere, rolling-up sense > 0
    slide = np.nan_to_num(contacts["slide_mode"], nan=0).astype(int)
    roll = np.nan_to_num(contacts["roll_mode_j"], nan=0).astype(int)
    n = normal_force(alpha)
    t_k = kinetic_roll_torque(alpha, ETA_R)
    rates = phase_rates(alpha, ETA_R)
    bounds = phase_times(t, v, slide, roll)
    k_onset, k1, k2, k3 = bounds
    momentum = MASS * RADIUS * v + INERTIA * omega  # angular momentum about the contact line, notes Eq. (8)

    # ---- kinetic loads, phases I and IV (Sec. 4.3: F_E = mu_k N = 8.027 N, T_E = 2 eta_r R mu_k N = 0.963 N m)
    phase1 = slice(k_onset + 1, k1)  # the switching step itself is capped at the static limit
    phase4 = slice(k3 + 1, len(t))
    exact = ("the elastic parts are capped at exactly mu_k N and K_R Theta_k = 2 eta_r R mu_k N in kinetic "
             "mode (Sec. 3.1 cap, Eq. 2c), so the only error is round-off of the rescaling: tolerance 1e-9 "
             "relative.")
    result.check("phase I: |F_E| = mu_k N (max deviation over the phase)", MU_K * n,
                 MU_K * n + np.max(np.abs(np.abs(f_e[phase1]) - MU_K * n)), 1e-9, "N", relative=True,
                 basis="kinetic loads", derivation=exact)
    result.check("phase I: |T_E| = 2 eta_r R mu_k N (max deviation)", t_k,
                 t_k + np.max(np.abs(np.abs(t_e[phase1]) - t_k)), 1e-9, "N m", relative=True, basis="kinetic loads")
    result.check("phase IV: |F_E| = mu_k N (max deviation)", MU_K * n,
                 MU_K * n + np.max(np.abs(np.abs(f_e[phase4]) - MU_K * n)), 1e-9, "N", relative=True,
                 basis="kinetic loads")
    result.check("phase IV: |T_E| = 2 eta_r R mu_k N (max deviation)", t_k,
                 t_k + np.max(np.abs(np.abs(t_e[phase4]) - t_k)), 1e-9, "N m", relative=True,
                 basis="kinetic loads")
    paper = ("the paper's values, printed to 4 significant digits: tolerance half a unit of the last digit, "
             "one unit for 8.027 N, which is the closed form mu_k m g cos 35deg = 8.02769 N truncated rather "
             "than rounded (2 eta_r R mu_k N = 0.963323 N m, mu_s N = 10.0346 N).")
    result.check("paper F_E in phases I and IV (Sec. 4.3: 8.027 N)", 8.027, abs(f_e[k3 + 100]), 1e-3, "N",
                 basis="paper numbers", derivation=paper)
    result.check("paper T_E in phases I, II and IV (Sec. 4.3: 0.963 N m)", 0.963, abs(t_e[k1 + 100]), 5e-4,
                 "N m", basis="paper numbers")
    result.check("paper: F_E within [-mu_s N, mu_s N] = [-10.03, 10.03] N in phases II and III (max |F_E|, "
                 "reached when it saturates at III->IV)", 10.03, np.max(np.abs(f_e[k1:k3 + 1])), 0.005, "N",
                 basis="paper numbers")

    # ---- accelerations (closed forms, notes Eq. 12, 13, 15, 22, 23)
    inner1 = (k_onset + 10, k1 - 10)
    inner4 = (k3 + 10, len(t))
    rate_note = ("in phases I and IV every load is constant (gravity, the capped elastic slide force and roll "
                 "torque, no dashpot in slip), so v and omega change linearly up to round-off; fitted over the "
                 "phase away from its ends: tolerance 1e-8 relative (the fit of ~500-3000 samples of 17 digits).")
    result.check("phase I: dv/dt = -g (sin a + mu_k cos a)", rates["a1"], slope(t, v, *inner1), 1e-8, "m/s^2",
                 relative=True, basis="accelerations", derivation=rate_note)
    result.check("phase I: d(omega)/dt = (mu_k N R - T_k) / I", rates["b1"], slope(t, omega, *inner1), 1e-8,
                 "rad/s^2", relative=True, basis="accelerations")
    result.check("phase IV: dv/dt = -g (sin a - mu_k cos a)", rates["a4"], slope(t, v, *inner4), 1e-8, "m/s^2",
                 relative=True, basis="accelerations")
    result.check("phase IV: d(omega)/dt = -(mu_k N R - T_k) / I", rates["b4"], slope(t, omega, *inner4), 1e-8,
                 "rad/s^2", relative=True, basis="accelerations")
    result.check("phases I-II: dL/dt = -(m g R sin a + T_k), L = m R v + I omega about the contact line",
                 rates["dL12"], slope(t, momentum, k_onset + 10, k2 - 40), 1e-8, "N m", relative=True,
                 basis="dL/dt",
                 derivation="the slide force acts at the contact point and has no moment about it, so L changes "
                 "only by gravity and the roll torque, which is capped at exactly T_k while the sphere spins up-"
                 "slope (roll kinetic from the end of the onset to just before the turnaround): exactly linear, "
                 "tolerance 1e-8 relative as above.")

    # ---- phase II: the slide force relaxes through the stuck spring-dashpot (notes Eq. 17-19)
    relaxed = slide_relaxation(alpha, ETA_R, f_e[k1 - 1], t[k1:k2] - t[k1 - 1])
    result.check("phase II: max |F_E - closed-form relaxation| (overdamped slide spring, m_eff = 1.43 kg)", 0.0,
                 np.max(np.abs(f_e[k1:k2] - relaxed)), 0.1, "N", basis="phase II slide force",
                 derivation="the slide sticks with the slip velocity up to |ds/dt| dt = 8.8e-4 m/s off zero at the "
                 "switching step, and symplectic Euler resolves the fast mode (913/s) with 0.09 per step; both "
                 "give errors of a few 0.01 N: tolerance 0.1 N, 0.8 % of the 12.6 N swing.")

    # ---- switching times predicted from the state at the end of the onset (notes Eq. 14, 16)
    t_o, v_o, w_o, l_o = t[k_onset], v[k_onset], omega[k_onset], momentum[k_onset]
    t1_pred = t_o + (v_o - RADIUS * w_o) / (-rates["a1"] + RADIUS * rates["b1"])
    t2_pred = t_o + l_o / -rates["dL12"]
    switch = ("closed form from the state at the end of the onset (both modes kinetic); the switch is detected at "
              "the first step after the event (the mode changes a posteriori, Sec. 3.1), and the turnaround of "
              "v_CM lags L = 0 by the micro-slip: tolerance 3 steps (3e-4 s).")
    result.check("t(I->II): slip velocity v - omega R reaches 0, slide back to stick", t1_pred, t[k1], 3 * DT, "s",
                 basis="switching times", derivation=switch)
    result.check("t(II->III): turnaround v_CM = 0 (L = 0)", t2_pred, t[k2], 3 * DT, "s", basis="switching times")

    # ---- the paper's snapshot times (Fig. 11b-e): phases I, II, III, IV at t = 0.004, 0.05, 0.09, 0.2 s
    for snapshot, expected in ((0.004, 1), (0.05, 2), (0.09, 3), (0.2, 4)):
        result.check(f"phase at the paper's snapshot t = {snapshot} s (Fig. 11)", expected,
                     phase_at(snapshot, t, bounds), 0, basis="paper snapshots",
                     derivation="Fig. 11(b)-(e) label the snapshots at 0.004, 0.05, 0.09 and 0.2 s as phases I to "
                     "IV; the phase is an integer, tolerance 0.")

    # the roll torque passes through stick at the turnaround (the paper says kinetic in II and III)
    stick_roll = np.flatnonzero(roll[k2 - 20:k3] == 0) + k2 - 20
    result.notes.append(
        f"35 deg run: onset (stick, dashpots active) until t = {t_o * 1e3:.1f} ms; phase I until "
        f"{t[k1] * 1e3:.1f} ms (closed form {t1_pred * 1e3:.1f} ms), II until {t[k2] * 1e3:.1f} ms "
        f"({t2_pred * 1e3:.1f} ms), III until {t[k3] * 1e3:.1f} ms, IV after. The onset dashpot impulses "
        f"(K_D S* on the slide, D_R Theta* on the roll) take {(V0 - v_o) * 100:.1f} cm/s off v_CM and leave "
        f"omega R = {w_o * RADIUS * 100:.2f} cm/s, which moves the end of phase I from the impulse-free "
        f"{V0 / (-rates['a1'] + RADIUS * rates['b1']) * 1e3:.1f} ms to {t[k1] * 1e3:.1f} ms.")
    if stick_roll.size:
        result.notes.append(
            f"Phase III is not all roll-kinetic as the paper says: the roll torque is elastic (K_R Theta) and must "
            f"pass from -T_k to +T_k as the sphere turns round, so the roll mode is static from "
            f"{t[stick_roll[0]] * 1e3:.1f} to {t[stick_roll[-1]] * 1e3:.1f} ms (see docs/validation/incline.md, "
            f"Paper discrepancies).")

    # ---- figure: Fig. 11a (velocities, elastic loads), phases shaded, closed forms dashed
    figure, axes = plt.subplots(2, 2, figsize=(12, 7.5), sharex=True)
    edges = [0.0, t_o, t[k1], t[k2], t[k3], t[-1]]
    for ax in axes.flat:
        for p in range(5):
            ax.axvspan(edges[p], edges[p + 1], color=("0.7", "0.94", "0.85", "0.94", "0.85")[p], lw=0)
            if p:
                ax.text(0.5 * (edges[p] + edges[p + 1]), 0.97, "I II III IV".split()[p - 1],
                        transform=ax.get_xaxis_transform(), ha="center", va="top", fontsize=11, weight="bold")
        ax.axhline(0.0, color="k", lw=0.5)
        ax.set_xlim(0, t[-1])
    for ax in axes[1]:
        ax.set_xlabel("time t [s]")
    ax_v, ax_w, ax_f, ax_t = axes.flat
    ax_v.plot(t, v, "C0", lw=1.8, label="fricdem")
    ax_w.plot(t, omega, "C3", lw=1.8, label="fricdem")
    # closed forms: phases I and IV from their initial states, phase II rolling with L linear (notes Sec. 3)
    tt = np.linspace(t_o, t[k1], 50)
    ax_v.plot(tt, v_o + rates["a1"] * (tt - t_o), "k--", lw=1.1, zorder=3, label="closed forms (notes Sec. 3)")
    ax_w.plot(tt, w_o + rates["b1"] * (tt - t_o), "k--", lw=1.1, zorder=3, label="closed forms (notes Sec. 3)")
    tt = np.linspace(t[k1], t[k2], 50)
    rolling = (l_o + rates["dL12"] * (tt - t_o)) / (MASS * RADIUS + INERTIA / RADIUS)
    ax_v.plot(tt, rolling, "k--", lw=1.1, zorder=3)
    ax_w.plot(tt, rolling / RADIUS, "k--", lw=1.1, zorder=3)
    ax_f.plot(t[k1:k2], relaxed, "k--", lw=1.1, zorder=3, label="closed forms (notes Sec. 3)")
    tt = np.linspace(t[k3], t[-1], 50)
    ax_v.plot(tt, v[k3] + rates["a4"] * (tt - t[k3]), "k--", lw=1.1, zorder=3)
    ax_w.plot(tt, omega[k3] + rates["b4"] * (tt - t[k3]), "k--", lw=1.1, zorder=3)
    ax_v.set_ylabel("v_CM [m/s]  (up the slope > 0)")
    ax_w.set_ylabel("omega [rad/s]  (rolling up > 0)")
    ax_v.set_title("velocity of the centre of mass (Fig. 11a, left)", fontsize=10)
    ax_w.set_title("angular velocity (Fig. 11a, left)", fontsize=10)
    ax_f.plot(t, f_e, "C0", lw=1.8, label="fricdem")
    ax_f.axhline(MU_K * n, color="0.45", ls="--", lw=0.9, label="+-mu_k N = +-8.027 N")
    ax_f.axhline(-MU_K * n, color="0.45", ls="--", lw=0.9)
    ax_f.axhline(MU_S * n, color="0.45", ls=":", lw=0.9, label="+-mu_s N = +-10.03 N")
    ax_f.axhline(-MU_S * n, color="0.45", ls=":", lw=0.9)
    ax_f.set_ylim(-12, 12)
    ax_f.set_ylabel("F_E [N]  (on the sphere, up the slope > 0)")
    ax_f.set_title("elastic slide friction force (Fig. 11a, right)", fontsize=10)
    ax_t.plot(t, t_e, "C3", lw=1.8, label="fricdem")
    ax_t.axhline(t_k, color="0.45", ls="--", lw=0.9, label="+-2 eta_r R mu_k N = +-0.963 N m")
    ax_t.axhline(-t_k, color="0.45", ls="--", lw=0.9)
    ax_t.axhline(static_roll_torque(alpha, ETA_R), color="0.45", ls=":", lw=0.9, label="+-2 eta_r R mu_s N")
    ax_t.axhline(-static_roll_torque(alpha, ETA_R), color="0.45", ls=":", lw=0.9)
    ax_t.set_ylim(-1.45, 1.45)
    ax_t.set_ylabel("T_E [N m]  (on the sphere, rolling-up sense > 0)")
    ax_t.set_title("elastic roll friction torque (Fig. 11a, right)", fontsize=10)
    if stick_roll.size:
        ax_t.axvspan(t[stick_roll[0]], t[stick_roll[-1]], facecolor="none", edgecolor="C3", hatch="///", lw=0,
                     label="roll mode static")
    for ax in axes.flat:
        ax.legend(loc="lower left" if ax in (ax_v, ax_w) else "center right", fontsize=8, framealpha=0.9)
    figure.suptitle("Sphere sent up a 35 deg incline at 0.5 m/s (R = 0.2 m, m = 5 kg, eta_r = 0.3, mu_s = 0.25, "
                    "mu_k = 0.2, K_E = 1e5 N/m, dt = 1e-4 s)", fontsize=10)
    save_figure(ctx, result, figure, "fig11_phases",
                "Fig. 11a of the paper, reproduced: v_CM, omega, and the elastic slide force F_E "
                "and roll torque T_E on the sphere against time, with the closed forms of the notes "
                "(dashed, top) and the kinetic (dashed) and static (dotted) caps (bottom). Shading: "
                "the ~1 ms onset (dark) and phases I to IV as the engine's modes give them.")


# ---------------------------------------------------------------- Fig. 12: the sweep

def _edges(centres):
    c = np.asarray(centres, dtype=float)
    if len(c) == 1:
        return np.array([c[0] - 0.5, c[0] + 0.5])
    mid = 0.5 * (c[1:] + c[:-1])
    return np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])


def draw_map(rows, alphas, etas, title):
    """The regime map: cells coloured by the simulated class, App. D's borders on top, dots where they differ.
    Returns the figure, for save_figure."""
    index = {c: k for k, c in enumerate(CLASSES)}
    a_pos = {a: k for k, a in enumerate(alphas)}
    e_pos = {e: k for k, e in enumerate(etas)}
    grid = np.full((len(etas), len(alphas)), np.nan)
    for r in rows:
        if r["alpha"] in a_pos and r["eta"] in e_pos:
            grid[e_pos[r["eta"]], a_pos[r["alpha"]]] = index[r["cls"]]
    colours = ListedColormap(["#4575b4", "#91cf60", "#fee08b", "#d73027"])
    figure, ax = plt.subplots(figsize=(11.5, 5.6))
    a_edges, e_edges = _edges(alphas), _edges(etas)
    ax.pcolormesh(a_edges, e_edges, grid, cmap=colours, vmin=-0.5, vmax=3.5, shading="flat")
    bad = [(r["alpha"], r["eta"]) for r in rows
           if r["cls"] != r["app_d"] and r["alpha"] in a_pos and r["eta"] in e_pos]
    if bad:
        ax.plot(*zip(*bad), "k.", ms=1.5 if len(alphas) > 100 else 4)
    top = e_edges[-1]
    eta_line = np.linspace(e_edges[0], top, 300)
    ax.plot([app_d_borders(e)[0] for e in eta_line], eta_line, "k-", lw=2, label="App. D borders")
    ax.plot([app_d_borders(e)[1] for e in eta_line], eta_line, "k-", lw=2)
    if top >= 0.5:
        ax.plot([app_d_borders(0.5)[1], a_edges[-1]], [0.5, 0.5], "k-", lw=2)
    low = eta_line[eta_line <= 0.5]
    outline = [patheffects.withStroke(linewidth=2.6, foreground="0.2")]
    ax.plot([kinetic_borders(e)[0] for e in eta_line], eta_line, "w--", lw=1.3, path_effects=outline,
            label="kinetic edges of the hysteresis\nbands (notes Sec. 5)")
    ax.plot([kinetic_borders(e)[1] for e in low], low, "w--", lw=1.3, path_effects=outline)
    ax.set_xlim(a_edges[0], a_edges[-1])
    ax.set_ylim(e_edges[0], e_edges[-1])
    ax.set_xlabel("incline angle alpha [deg]")
    ax.set_ylabel("rolling resistance eta_r [-]")
    handles = [Patch(color=colours(k), label=c) for k, c in enumerate(CLASSES)]
    handles += ax.get_legend_handles_labels()[0]
    if bad:
        handles.append(plt.Line2D([], [], color="k", marker=".", ls="", label="differs from App. D"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.set_title(title, fontsize=10)
    return figure


def agreement(rows):
    return sum(r["cls"] == r["app_d"] for r in rows) / len(rows)


def in_band(r, margin):
    """Whether a run lies in a hysteresis band of the notes (Sec. 5), within `margin` deg of an App. D
    border, or on the knife-edge row eta_r = 0.5 (Sec. 6)."""
    s_d, p_d = app_d_borders(r["eta"])
    s_k, p_k = kinetic_borders(r["eta"])
    a = r["alpha"]
    return (s_k - margin <= a <= s_d + margin or abs(a - p_d) <= margin or r["eta"] >= 0.5 - 1e-12
            or p_k - margin <= a <= p_d + margin)


def sweep(ctx: Context, result: CaseResult):
    mode = os.environ.get("FRICDEM_INCLINE_SWEEP", "full")
    workers = int(os.environ.get("FRICDEM_INCLINE_WORKERS", "2"))
    alphas, etas = sweep_grid(mode)
    points = [(a, e) for e in etas for a in alphas]
    rows, seconds = cached_sweep(ctx, f"sweep_{mode}", points, workers)

    # ---- the supplement above eta_r = 0.5, where App. D's PS lives
    sup_alphas = [float(a) for a in range(1, 31)]
    sup_etas = [round(0.5 + 0.02 * k, 2) for k in range(1, 6)]
    sup_rows, _ = cached_sweep(ctx, "sweep_above_half", [(a, e) for e in sup_etas for a in sup_alphas], workers)

    total = len(rows)
    share = agreement(rows)
    counts = {c: sum(r["cls"] == c for r in rows) for c in CLASSES}
    app_counts = {c: sum(r["app_d"] == c for r in rows) for c in CLASSES}
    unsteady = [r for r in rows if r["cls"] != r["cls_09"]]
    kin_mismatch = [r for r in rows if r["kin"] != r["cls"]]
    away = [r for r in rows if not in_band(r, 0.25)]
    below_half = [r for r in rows if r["eta"] < 0.5 - 1e-12]

    result.check(f"Fig. 12: share of the {len(away)} runs outside the hysteresis bands, 0.25 deg from the "
                 f"App. D borders and below eta_r = 0.5 that agree with App. D", 1.0, agreement(away), 0.0,
                 basis="agreement away from the borders",
                 derivation="away from the borders App. D's steady states are the only ones possible (notes "
                 "Sec. 5): every run must agree, tolerance 0.")
    # S/PR border per eta_r: at the kinetic edge (notes Sec. 5.1, Eq. 27-28)
    step = alphas[1] - alphas[0]
    slowing = [r for r in rows if r["cls"] == "PR" and abs(r["v"]) < abs(r["v_09"])]
    result.check("Fig. 12: PR runs still slowing down at t = 1 s (|v_CM| falling) with tan a >= 2 eta_r mu_k",
                 0, sum(math.tan(math.radians(r["alpha"])) >= 2.0 * r["eta"] * MU_K for r in slowing), 0,
                 basis="PR runs that have not reached their steady state",
                 derivation="a sphere rolling down with its roll kinetic has dL/dt = T_k - m g R sin a (notes "
                 "Eq. 9, 26): it slows down, and ends static, exactly when tan a < 2 eta_r mu_k; such runs are "
                 "transients that 1 s does not finish, counted with S for the border below. Tolerance 0.")
    outside = []
    for e in etas:
        last_s = max((r["alpha"] for r in rows if r["eta"] == e and (r["cls"] == "S" or r in slowing)),
                     default=math.nan)
        s_k = kinetic_borders(e)[0]
        if not (s_k - step - 1e-9 <= last_s <= s_k + 1e-9):
            outside.append(f"{e:g}: {last_s:g}")
    result.check("Fig. 12: eta_r rows whose last S angle (S or still slowing) is not within one grid step below "
                 "atan(2 eta_r mu_k)", 0, len(outside), 0, basis="S/PR border",
                 derivation="S and PR are both steady states for 2 eta_r mu_k < tan a <= 2 eta_r mu_s (App. D's "
                 "border is the upper edge). The sphere reaches the top rolling up with the roll torque at -T_k, "
                 "and the roll spring overshoots when it swings round; an overshoot of more than "
                 "(mu_s - mu_k) / (2 mu_k) = 12.5 % of the swing trips it into kinetic mode anywhere in the band "
                 "(notes Eq. 27-28; rigid rolling gives 42 %), so the border is the lower, kinetic edge. "
                 "Tolerance 0 rows (one grid step for the grid)." + (f" Outside: {', '.join(outside)}." if outside
                                                                      else ""))
    # PR/RwS border per eta_r: between the roll-static-cap border and App. D's (notes Sec. 5.2, Eq. 29)
    outside, offsets = [], []
    for e in etas:
        p_d = app_d_borders(e)[1]
        if p_d > alphas[-1] or e >= 0.5 - 1e-12:
            continue
        first = min((r["alpha"] for r in rows if r["eta"] == e and r["cls"] == "RwS"), default=math.nan)
        offsets.append(p_d - first)
        if not (roll_static_border(e) - 1e-9 <= first <= p_d + step + 1e-9):
            outside.append(f"{e:g}: {first:g}")
    result.check(f"Fig. 12: of the {len(offsets)} eta_r rows where App. D's PR/RwS border is inside the grid, those "
                 f"whose first RwS angle lies outside [atan(3.5 mu_s - 5 eta_r mu_s), atan(3.5 mu_s - 5 eta_r mu_k)]",
                 0, len(outside), 0, basis="PR/RwS border",
                 derivation="the sphere turns round rolling with its slide static, and leaves rolling when the "
                 "static slide cannot hold it: (2/7) m g sin a + (5/7) T / R > mu_s N. With the roll torque T at "
                 "its kinetic cap this is App. D's border; but at the turnaround T passes the static cap T_s "
                 "before it drops to T_k, so a run can slip below App. D's angle, though not below the border "
                 "with T = T_s (notes Eq. 29). Tolerance 0 rows (one grid step above, for the grid)."
                 + (f" Outside: {', '.join(outside)}." if outside else ""))
    if offsets:
        result.notes.append(f"PR/RwS border: the first RwS angle lies {min(offsets):.2f} to {max(offsets):.2f} deg "
                            f"below App. D's atan(3.5 mu_s - 5 eta_r mu_k) on the {len(offsets)} rows where that "
                            f"border is inside the grid (the roll torque passes its static cap at the turnaround).")
    sup_ps = [r for r in sup_rows if r["alpha"] > app_d_borders(r["eta"])[1] + 0.5]
    result.check("eta_r = 0.52..0.60, alpha > atan(3.5 mu_s - 5 eta_r mu_k) + 0.5 deg: share of runs in PS",
                 1.0, sum(r["cls"] == "PS" for r in sup_ps) / max(len(sup_ps), 1), 0.0, basis="PS above 0.5",
                 derivation="for eta_r > 1/2 the kinetic roll torque exceeds the moment mu_k N R of the kinetic "
                 "slide force, so a sliding sphere stops spinning and its roll re-sticks (App. D, notes Sec. 5.3); "
                 "it slides only where the static slide cannot hold it in rolling, beyond App. D's PR border "
                 "(0.5 deg margin). Tolerance 0.")
    sup_pr = [r for r in sup_rows if app_d_borders(r["eta"])[0] + 0.5 < r["alpha"] < app_d_borders(r["eta"])[1] - 0.5]
    result.check("eta_r = 0.52..0.60, between atan(mu_s) and atan(3.5 mu_s - 5 eta_r mu_k) (0.5 deg margins): "
                 "share in PR (App. D read literally: PS)", 1.0,
                 sum(r["cls"] == "PR" for r in sup_pr) / max(len(sup_pr), 1), 0.0, basis="PR above 0.5",
                 derivation="a sphere that turns round rolling keeps rolling while the static slide friction can "
                 "hold it, App. D's own PR condition, which does not depend on eta_r > 1/2 (notes Sec. 5.4). "
                 "Tolerance 0.")

    result.notes.append(
        f"Fig. 12 sweep ({mode}, {total} runs, "
        f"{f'{seconds:.0f} s on {workers} processes' if seconds else 'reused results'}): {share * 100:.1f} % of the "
        f"runs agree with App. D ({sum(r['cls'] == r['app_d'] for r in rows)} of {total}); "
        f"{agreement(below_half) * 100:.1f} % of the {len(below_half)} runs below eta_r = 0.5. "
        f"Counts (simulation / App. D): " + ", ".join(f"{c} {counts[c]} / {app_counts[c]}" for c in CLASSES) + ".")
    confusion = {(a, b): sum(r["app_d"] == a and r["cls"] == b for r in rows) for a in CLASSES for b in CLASSES}
    result.notes.append("Confusion (App. D -> simulation, nonzero only): " + ", ".join(
        f"{a} -> {b}: {k}" for (a, b), k in confusion.items() if k) + ".")
    result.notes.append(
        f"Runs whose class by modes changed between t = 0.9 s and 1 s: {len(unsteady)}; runs whose (v_CM, omega) "
        f"at 1 s fail the kinematic constraint of their mode class (|v|, |omega R| < {STOPPED} m/s for zero, "
        f"|v - omega R| < {SLIP} m/s for rolling): {len(kin_mismatch)}"
        + (" (" + ", ".join(f"{r['alpha']:g} deg/{r['eta']:g}: {r['cls']} vs {r['kin']}"
                            for r in kin_mismatch[:8]) + (" ..." if len(kin_mismatch) > 8 else "") + ")"
           if kin_mismatch else "") + ".")
    odd = unsteady + [r for r in kin_mismatch if r not in unsteady]
    if odd:
        gaps = [kinetic_borders(r["eta"])[0] - r["alpha"] for r in odd]
        result.notes.append(
            f"All {len(odd)} of these runs lie {min(gaps):.2f} to {max(gaps):.2f} deg below the kinetic edge "
            f"atan(2 eta_r mu_k)" + (": spheres whose roll tripped at the turnaround, rolling down ever more "
                                     "slowly and coming to rest around t = 1 s (notes Sec. 5.1)."
                                     if min(gaps) >= 0 and max(gaps) <= 0.5 else "."))
    half = [r for r in rows if abs(r["eta"] - 0.5) < 1e-12]
    if half:
        result.notes.append(
            "eta_r = 0.5 is a knife edge: the kinetic roll torque 2 eta_r R mu_k N equals the moment R mu_k N of "
            "the kinetic slide force, so omega stays at whatever the onset left (d omega/dt = 0 exactly); "
            "the row ends as " + ", ".join(f"{c} {sum(r['cls'] == c for r in half)}" for c in CLASSES) +
            " where App. D says S, PR, then PS. Just above 0.5 (the supplement) the runs beyond App. D's PR "
            "border end in PS.")

    figure = draw_map(rows, alphas, etas,
                      f"Steady state at t = 1 s, {total} runs ({mode} grid): {share * 100:.1f} % agree with App. D")
    save_figure(ctx, result, figure, "fig12_map",
                "Fig. 12 of the paper, reproduced: the regime at t = 1 s (by the slide and roll "
                "modes, Table 4) over incline angle and rolling resistance, with App. D's borders "
                "(black: tan a = 2 eta_r mu_s, tan a = 3.5 mu_s - 5 eta_r mu_k, eta_r = 0.5) and the "
                "kinetic edges of the hysteresis bands derived in the notes (white dashed: tan a = "
                "2 eta_r mu_k, tan a = (3.5 - 5 eta_r) mu_k).")
    lower_step = 0.05 if mode == "coarse" else 0.02
    lower = [r for r in rows if float(r["alpha"]).is_integer()
             and abs(round((r["eta"] - 0.2) / lower_step) * lower_step + 0.2 - r["eta"]) < 1e-9]
    figure = draw_map(lower + sup_rows, sup_alphas, sorted({r["eta"] for r in lower} | set(sup_etas)),
                      "Supplement: the map extended to eta_r = 0.6 (alpha every 1 deg): PS appears above eta_r = 0.5")
    save_figure(ctx, result, figure, "fig12_above_half",
                "The same map extended to eta_r = 0.6 (coarser grid), where App. D's pure-slip "
                "regime appears; dots mark runs that differ from App. D.")


def run(ctx: Context) -> CaseResult:
    result = fn_paper_form_case(ctx, "incline", TITLE, __doc__, FN_PAPER_FORM_ROLL)
    main_run(ctx, result)
    sweep(ctx, result)
    compare_fn_default_form(ctx, result, SCENE, "fig11_35deg", "ball", MU_S)
    return result
