"""Static and kinetic friction in sliding, rolling and twisting: a sphere on
an incline whose slope is raised slowly and lowered again, and a spinning
sphere slowing down (issue 18, item 3).

Scene scenes/validation/static_kinetic/incline.yaml: a glass sphere (R = 1 cm)
on a plane, the gravity vector tilted about y one stage per 0.1 degree (the
stages are written here), two runs:
 - slide: rotation locked (a sliding block), slide dsds mu_s = 0.5,
   mu_k = 0.3: at rest it must start when tan(theta) passes mu_s (26.57
   degrees), and once sliding keep sliding with a = g (sin - mu_k cos) down to
   tan(theta) = mu_k (16.70 degrees), below which it decelerates;
 - roll: free, slide mu = 1 (no sliding), roll dsds mu_roll_s = 0.1,
   mu_roll_k = 0.05: it must start to roll at tan(theta) = mu_roll_s (5.71
   degrees) and roll with a = (g sin - mu_roll_k g cos R / r) / (1 + I / (m r^2))
   (r = R - delta/2 the arm of the contact point) down to that acceleration's
   zero near tan(theta) = mu_roll_k (2.86 degrees).
A third run spins the sphere at 5 rad/s about the vertical on level ground,
spin dsds mu_twist_s = 2e-4 m, mu_twist_k = 1e-4 m: it must slow at
mu_twist_k N / I (half what mu_twist_s would give) and stay stopped.
The sphere first settles for 0.2 s at the lowest slope (the springs take up
the load); the start angle is then the first stage in which it moves at more
than 1 mm/s; the accelerations are least-squares slopes of the velocity over each
stage of the lowering ramp while the sphere moves, and the kinetic threshold
is where a line fitted to a(theta) crosses zero. Derivations:
docs/models/sds.md, "Static and kinetic friction".
"""
from __future__ import annotations

import math

import numpy as np
import matplotlib.pyplot as plt
import yaml

from .common import ROOT, CaseResult, Context, body_rows, read_csv, save_figure

TITLE = "Static and kinetic friction: a sphere on a slowly tilted incline (slide, roll) and spinning down (twist)"
ORDER = 82

SCENE = ROOT / "scenes" / "validation" / "static_kinetic" / "incline.yaml"
GRAVITY = 9.81
RADIUS = 0.01
STAGE = 0.01         # s per 0.1 degree
SETTLE = 0.2         # s at the first slope, before the ramp: the springs take up the load
STEP_DEGREES = 0.1
MOVING = 1e-3        # m/s: "the sphere moves"

CASES = {
    # name: (mu_s, mu_k, up from, up to, down to), the laws
    "slide": dict(mu_s=0.5, mu_k=0.3, start=20.0, top=28.0, bottom=12.0),
    "roll": dict(mu_s=0.1, mu_k=0.05, start=3.5, top=7.0, bottom=1.0),
}


def ramp(start: float, top: float, bottom: float) -> np.ndarray:
    up = np.arange(start, top + 1e-9, STEP_DEGREES)
    down = np.arange(top - STEP_DEGREES, bottom - 1e-9, -STEP_DEGREES)
    return np.concatenate([up, down])


def write_scene(ctx: Context, name: str, angles: np.ndarray) -> str:
    scene = yaml.safe_load(open(SCENE))
    case = CASES[name]
    law = scene["contacts"][0]
    if name == "roll":
        law["slide"] = {"model": "dsds", "k_t": 2857.142857142857, "gamma_t": 10.939822673917252, "mu": 1.0}
        # critical against the rocking inertia 7/5 m R^2: gamma = 2 sqrt(k 7/5 m) (the R^2 cancel)
        mass = 2500.0 * 4.0 / 3.0 * math.pi * RADIUS ** 3
        law["roll"] = {"model": "dsds", "k_roll": 2857.142857142857,
                       "gamma_roll": 2.0 * math.sqrt(2857.142857142857 * 1.4 * mass),
                       "mu_roll_s": case["mu_s"], "mu_roll_k": case["mu_k"]}
        ball = next(b for b in scene["bodies"] if b["name"] == "ball")
        del ball["lock"]
    else:
        law["slide"]["mu_s"], law["slide"]["mu_k"] = case["mu_s"], case["mu_k"]
    scene["name"] = f"static_kinetic_{name}"
    def gravity(a):
        return [GRAVITY * math.sin(math.radians(a)), 0.0, -GRAVITY * math.cos(math.radians(a))]

    scene["world"]["gravity"] = gravity(angles[0])
    # at the static overlap of the first slope: a ball dropped by a micrometre
    # would bounce, and the dip of N under the bounce can break it loose. The
    # first slope is low enough that the load taken up at once, whose peak
    # with a critically damped spring is 1.135 m g sin (spring plus dashpot),
    # stays under the static cap.
    mass = 2500.0 * 4.0 / 3.0 * math.pi * RADIUS ** 3
    ball = next(b for b in scene["bodies"] if b["name"] == "ball")
    ball["position"][2] = RADIUS - mass * GRAVITY * math.cos(math.radians(angles[0])) / 1.0e4
    scene["stages"] = [{"name": "settle", "duration": SETTLE, "gravity": gravity(angles[0])}] + [
        {"name": f"a{k}", "duration": STAGE, "gravity": gravity(a)} for k, a in enumerate(angles)]
    ctx.out.mkdir(parents=True, exist_ok=True)
    path = ctx.out / f"incline_{name}.yaml"
    with open(path, "w") as f:
        yaml.safe_dump(scene, f, sort_keys=False)
    return str(path)


def stage_of(t: np.ndarray) -> np.ndarray:
    """The ramp stage whose steps a row of bodies.csv ends (the row at a
    stage's end time holds the state after its steps); -1 while settling."""
    return np.ceil((t - SETTLE) / STAGE - 1e-6).astype(int) - 1


def expected_acceleration(name: str, theta: np.ndarray) -> np.ndarray:
    case = CASES[name]
    if name == "slide":
        return GRAVITY * (np.sin(theta) - case["mu_k"] * np.cos(theta))
    # the arm of the contact point: R less half the overlap m g cos / k_n
    mass = 2500.0 * 4.0 / 3.0 * math.pi * RADIUS ** 3
    arm = RADIUS - 0.5 * mass * GRAVITY * np.cos(theta) / 1.0e4
    inertia = 0.4 * mass * RADIUS ** 2
    return (GRAVITY * np.sin(theta) - RADIUS / arm * case["mu_k"] * GRAVITY * np.cos(theta)) / (
        1.0 + inertia / (mass * arm ** 2))


TWIST = dict(mu_s=2e-4, mu_k=1e-4, omega=5.0, k=1e-3, gamma=1e-6)


def spin_down(ctx: Context, result: CaseResult, axis) -> None:
    """The twisting run: omega(t) against omega_0 - mu_twist_k N t / I."""
    scene = yaml.safe_load(open(SCENE))
    mass = 2500.0 * 4.0 / 3.0 * math.pi * RADIUS ** 3
    inertia = 0.4 * mass * RADIUS ** 2
    law = scene["contacts"][0]
    law["slide"] = {"model": "dsds", "k_t": 2857.142857142857, "gamma_t": 10.939822673917252, "mu": 0.5}
    law["spin"] = {"model": "dsds", "k_twist": TWIST["k"], "gamma_twist": TWIST["gamma"],
                   "mu_twist_s": TWIST["mu_s"], "mu_twist_k": TWIST["mu_k"]}
    ball = next(b for b in scene["bodies"] if b["name"] == "ball")
    del ball["lock"]
    ball["angular_velocity"] = [0.0, 0.0, TWIST["omega"]]
    scene["name"] = "static_kinetic_twist"
    scene["time"]["duration"] = 0.5
    path = ctx.out / "spin_down.yaml"
    with open(path, "w") as f:
        yaml.safe_dump(scene, f, sort_keys=False)
    out = ctx.run_scene(str(path), "twist")
    rows = body_rows(read_csv(out / "bodies.csv"), "ball")
    t, w = rows["time"], rows["wz"]
    normal = mass * GRAVITY
    rate_k = TWIST["mu_k"] * normal / inertia
    window = (t > 0.02) & (w > 1.0)
    slope = -np.polyfit(t[window], w[window], 1)[0]
    result.check("twist: spin-down rate (rad/s^2)", rate_k, slope, 1e-3 * rate_k, unit="rad/s^2",
                 derivation=f"while the sphere twists the torque is the kinetic cap mu_twist_k N = "
                 f"{TWIST['mu_k']} m x m g: omega falls at mu_twist_k m g / (2/5 m R^2) = {rate_k:.4g} rad/s^2 "
                 f"(mu_twist_s would give {2 * rate_k:.4g}); a D-SDS with this light dashpot slips every step while "
                 "k w dt > gamma alpha dt (w above 0.025 rad/s); tolerance 1e-3 for the normal force's settling "
                 "(the sphere sits at the level overlap) over the window from 0.02 s to 1 rad/s.")
    stop = TWIST["omega"] / rate_k
    after = t > stop + 0.02
    ring = TWIST["mu_k"] * normal / math.sqrt(TWIST["k"] * inertia)
    turned = 2.0 * np.arctan2(rows["qz"], rows["qw"])
    swing = TWIST["mu_k"] * normal / TWIST["k"]
    result.check("twist: turn after the stop, max - min (rad), within [0, 2 mu_twist_k N / k_twist]", swing,
                 np.ptp(turned[after]), swing, unit="rad",
                 derivation="once it stops the twisting spring sticks under the static cap: the sphere rocks about "
                 "its rest angle and turns no further. The spring is released from at most the kinetic cap, "
                 f"k_twist xi = mu_twist_k N, so it swings over at most 2 mu_twist_k N / k_twist = {2 * swing:.3g} rad "
                 "(49 rad/s, the light dashpot's decay aside); a contact that broke loose again would turn on past it. "
                 "A bound: expected the half, tolerance the half.")
    result.check("twist: largest |omega| after the stop (rad/s), within [0, 2 x the ring amplitude]", ring,
                 np.abs(w[after]).max(), ring, unit="rad/s",
                 derivation=f"the same swing at 49 rad/s: amplitude at most mu_twist_k N / sqrt(k_twist I) = "
                 f"{ring:.3g} rad/s; a bound as above.")
    grid = np.linspace(0.0, 0.5, 500)
    axis.plot(t, w, color="C0", label="fricdem")
    axis.plot(grid, np.maximum(TWIST["omega"] - rate_k * grid, 0.0), "k--", lw=1, label="omega_0 - mu_twist_k N t / I")
    axis.plot(grid, np.maximum(TWIST["omega"] - 2 * rate_k * grid, 0.0), ":", color="C3", lw=1,
              label="with mu_twist_s instead")
    axis.set_xlabel("time (s)")
    axis.set_ylabel("spin about the normal (rad/s)")
    axis.set_title(f"twist: mu_twist_s = {TWIST['mu_s']} m, mu_twist_k = {TWIST['mu_k']} m")
    axis.legend(fontsize=8)


def run(ctx: Context) -> CaseResult:
    result = CaseResult("static_kinetic", TITLE, __doc__.split("\n\n", 1)[1])
    figure, axes = plt.subplots(2, 3, figsize=(17, 8))
    for column, name in enumerate(CASES):
        case = CASES[name]
        angles = ramp(case["start"], case["top"], case["bottom"])
        out = ctx.run_scene(write_scene(ctx, name, angles), name)
        ball = body_rows(read_csv(out / "bodies.csv"), "ball")
        t, v = ball["time"], ball["vx"]
        stages = stage_of(t)
        valid = (stages >= 0) & (stages < len(angles))
        theta_deg = np.where(valid, angles[np.minimum(stages, len(angles) - 1)], np.nan)
        peak = len(np.arange(case["start"], case["top"] + 1e-9, STEP_DEGREES))

        # start: the first stage after which it moves
        moving = np.abs(v) > MOVING
        starts = moving & valid
        first = int(np.argmax(starts)) if starts.any() else None
        static_deg = math.degrees(math.atan(case["mu_s"]))
        started = float(theta_deg[first]) if first is not None else float("nan")
        result.check(f"{name}: slope at which the resting sphere starts (degrees)", static_deg, started,
                     STEP_DEGREES + 0.02, unit="deg",
                     derivation=f"at rest the static cap mu_s N holds up to tan(theta) = mu_s = {case['mu_s']} "
                     f"({static_deg:.2f} deg); the slope rises in {STEP_DEGREES} degree stages, so the start falls in "
                     "the first stage past it: tolerance one stage (and 0.02 for the stage boundary).")

        # accelerations over the lowering ramp, per stage, while moving
        rows = []
        for s in range(peak, len(angles)):
            inside = (stages == s) & moving & valid
            if np.count_nonzero(inside) >= 5:
                slope = np.polyfit(t[inside], v[inside], 1)[0]
                rows.append((angles[s], slope))
        rows = np.array(rows)
        theta = np.radians(rows[:, 0])
        expected = expected_acceleration(name, theta)
        scale = GRAVITY * math.sin(math.radians(case["top"]))
        error = np.abs(rows[:, 1] - expected).max()
        result.check(f"{name}: largest |a - a_kinetic(theta)| over the lowering ramp (m/s^2)", 0.0, error,
                     0.01 * scale, unit="m/s^2",
                     derivation="while it moves the cap is mu_k N (kinetic), so the acceleration follows the closed "
                     "form above at every slope of the lowering ramp, also below tan(theta) = mu_s where a sphere "
                     "at rest would stay; tolerance 1 % of g sin(theta_top) for the spring's and the dashpot's "
                     "ringing after each 0.1 degree step.")
        fit = np.polyfit(rows[:, 0], rows[:, 1], 1)
        zero = -fit[1] / fit[0]
        kinetic_deg = math.degrees(math.atan(case["mu_k"]))
        closed_zero = rows[np.argmin(np.abs(expected)), 0] if name == "slide" else math.degrees(
            math.atan(case["mu_k"] * RADIUS / (RADIUS - 0.5 * 0.0104720 * GRAVITY / 1.0e4)))
        result.check(f"{name}: slope where the moving sphere's acceleration changes sign (degrees)", kinetic_deg,
                     zero, 0.1, unit="deg",
                     derivation=f"a = 0 at tan(theta) = mu_k = {case['mu_k']} ({kinetic_deg:.2f} deg; for rolling "
                     f"mu_roll_k R / r, {closed_zero:.3f} deg): a line fitted to a(theta) over the lowering ramp; "
                     "tolerance one stage.")

        # figures: slope and velocity against time; a against slope
        ax = axes[0, column]
        ax.plot(t, v, color="C0", label="velocity down the slope")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("v (m/s)")
        ax2 = ax.twinx()
        ax2.plot(t, theta_deg, color="C1", label="slope")
        ax2.axhline(static_deg, color="C3", ls="--", lw=1, label="atan(mu_s)")
        ax2.axhline(kinetic_deg, color="C2", ls="--", lw=1, label="atan(mu_k)")
        ax2.set_ylabel("slope (degrees)")
        ax.set_title(f"{name}: mu_s = {case['mu_s']}, mu_k = {case['mu_k']}")
        lines = ax.get_legend_handles_labels()
        lines2 = ax2.get_legend_handles_labels()
        ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=8, loc="upper left")
        ax = axes[1, column]
        grid = np.linspace(case["bottom"], case["top"], 200)
        ax.plot(grid, expected_acceleration(name, np.radians(grid)), "k-", lw=1,
                label="closed form with mu_k" if name == "slide" else "closed form with mu_roll_k")
        ax.plot(rows[:, 0], rows[:, 1], "o", ms=3, color="C0", label="fricdem, lowering ramp")
        ax.axvline(static_deg, color="C3", ls="--", lw=1, label="atan(mu_s): start from rest")
        ax.axvline(kinetic_deg, color="C2", ls="--", lw=1, label="atan(mu_k)")
        ax.axhline(0.0, color="grey", lw=0.5)
        ax.set_xlabel("slope (degrees)")
        ax.set_ylabel("acceleration (m/s^2)")
        ax.legend(fontsize=8)
    spin_down(ctx, result, axes[0, 2])
    axes[1, 2].axis("off")
    save_figure(ctx, result, figure, "incline",
                "Top: the slope raised and lowered in 0.1 degree stages and the sphere's velocity "
                "down it; the sphere starts at atan(mu_s) and, moving, keeps going below it down to "
                "atan(mu_k). Bottom: its acceleration per stage of the lowering ramp against the kinetic "
                "closed form (sliding: g (sin - mu_k cos); rolling: (g sin - mu_roll_k g cos R / r) / "
                "(1 + I / (m r^2))). Right: the spinning sphere slows at the kinetic rate and stays stopped.")
    return result
