"""fricdem against LAMMPS (29Sep2021, Debian 20220106): the same contact law
(hooke + linear_history = fricdem hooke + slide dsds, optionally rolling sds /
twisting sds / marshall), the same integrator (velocity Verlet), the same
initial states, in both engines.

Case 1, two-sphere impacts (scenes/lammps/impact_*.yaml, decks
scripts/lammps/impact_*.in): velocities and spins after separation and the
contact duration. Case 2, a sphere thrown along a wall (rolling_*): its state
every 0.01 s and its stopping time. Case 3, 600 spheres poured into a box
(pour): packing fraction and coordination number of the settled bed, seeds
1-3, both engines starting from fricdem's lattice. The LAMMPS numbers are the
committed golden files tests/golden/lammps_*.csv; when LAMMPS is installed (or
scripts/install-lammps.sh can install it) it is run again here and must
reproduce them. The two engines differ by one convention, the arm of the
sliding velocity (LAMMPS: the full radii; fricdem: the midpoint of the contact,
R - delta/2), whose effect each golden number carries as `arm_shift`
(scripts/lammps/reference.py). Derivations: docs/validation/lammps_crosscheck.md.
"""
from __future__ import annotations

import csv
import math
import shutil
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np

from .common import OUT, ROOT, CaseResult, Context, body_rows, read_csv, registered_models, save_figure

TITLE = "LAMMPS cross-check: impacts, a sphere rolling on a wall, a pour"
ORDER = 90

SCENES = ROOT / "scenes" / "lammps"
GOLDEN = ROOT / "tests" / "golden"
LAMMPS_DIR = ROOT / "scripts" / "lammps"
IMPACTS = ["impact_elastic_slide", "impact_damped_slide", "impact_damped_stick", "impact_roll_twist",
           "impact_roll_marshall"]
ROLLINGS = ["rolling_slide", "rolling_resist"]
NEEDS = {  # (mechanism, model) each variant needs beyond what fricdem had when this case was written
    "impact_roll_twist": [("roll", "dsds"), ("spin", "dsds")],
    "impact_roll_marshall": [("roll", "dsds"), ("spin", "marshall")],
    "rolling_resist": [("roll", "dsds"), ("spin", "dsds")],
}
ROUND_OFF = 1e-10  # of the scale (1 m/s, 100 rad/s, 10 mm): see the C test's comment and the docs
SCALES = {"v": 1.0, "w": 100.0}


def scale_of(quantity: str) -> float:
    field = quantity.split(".", 1)[1]
    return SCALES.get(field[0], 0.01)


def read_golden(path) -> dict[str, list[dict]]:
    """{case: [rows]} of a golden file (comment lines skipped)."""
    with open(path) as file:
        lines = [line for line in file if not line.startswith("#")]
    table: dict[str, list[dict]] = {}
    for row in csv.DictReader(lines):
        key = row.get("case") or f"seed{row['seed']}"
        table.setdefault(key, []).append(row)
    return table


def lammps_available(result: CaseResult) -> bool:
    if shutil.which("lmp"):
        return True
    installer = ROOT / "scripts" / "install-lammps.sh"
    completed = subprocess.run([str(installer)], capture_output=True, text=True)
    if completed.returncode == 0 and shutil.which("lmp"):
        result.notes.append("LAMMPS was missing and was installed by scripts/install-lammps.sh.")
        return True
    result.notes.append("LAMMPS is not installed and scripts/install-lammps.sh could not install it ("
                        + (completed.stderr.strip().splitlines() or ["no message"])[-1]
                        + "): LAMMPS was not run again; fricdem is compared with the committed golden numbers only.")
    return False


def rerun_lammps(ctx: Context, result: CaseResult) -> None:
    """Runs LAMMPS again into validation/out/ and compares with the committed golden files."""
    fresh = OUT / ctx.case / "lammps_golden"
    command = [sys.executable, str(LAMMPS_DIR / "run_lammps.py"), "--out", str(fresh),
               "--keep", str(OUT / ctx.case / "lammps_work")]
    completed = subprocess.run(command, capture_output=True, text=True)
    ctx.runs.append("`" + " ".join(["/usr/bin/python3", "scripts/lammps/run_lammps.py", "--out", str(fresh.relative_to(ROOT)),
                                     "--keep", str((OUT / ctx.case / 'lammps_work').relative_to(ROOT))]) + "`")
    if completed.returncode != 0:
        raise RuntimeError(f"run_lammps.py failed:\n{completed.stderr.strip() or completed.stdout.strip()}")
    for name in ("lammps_impact.csv", "lammps_rolling.csv", "lammps_pour.csv"):
        committed, now = read_golden(GOLDEN / name), read_golden(fresh / name)
        worst = 0.0
        for key, rows in committed.items():
            for a, b in zip(rows, now[key]):
                if a["quantity"] in ("packing_fraction", "coordination", "bed_height", "kinetic_energy"):
                    scale = 1.0 if a["quantity"] != "kinetic_energy" else 1e-6
                elif a["quantity"].startswith("contact") or a["quantity"] == "stop_time":
                    scale = 1.0
                else:
                    scale = scale_of(a["quantity"])
                worst = max(worst, abs(float(a["lammps"]) - float(b["lammps"])) / scale)
        result.check(f"LAMMPS run again vs committed {name}: max difference / scale", 0.0, worst, 1e-12,
                     derivation="the same LAMMPS binary on the same decks and initial states repeats its numbers "
                     "(bitwise on one machine); 1e-12 of the scale leaves room for another build of the same "
                     "version, whose last bits may differ.")


def impact_checks(ctx: Context, result: CaseResult, golden, models) -> dict:
    finals = {}
    for name in IMPACTS:
        missing = [f"{m} '{n}'" for m, n in NEEDS.get(name, []) if (m, n) not in models]
        if missing:
            result.notes.append(f"{name}: pending, fricdem has no {' and no '.join(missing)} model yet (the sds "
                                "branch adds them); its LAMMPS numbers are golden in tests/golden/lammps_impact.csv.")
            continue
        out = ctx.run_scene(SCENES / f"{name}.yaml", name)
        bodies = read_csv(out / "bodies.csv")
        contacts = read_csv(out / "contacts.csv")
        steps = np.unique(contacts["step"]) if len(contacts["step"]) else np.array([])
        rows = golden[name]
        worst, worst_raw, largest_shift = 0.0, 0.0, 0.0
        values = {}
        for row in rows:
            q = row["quantity"]
            lammps, shift = float(row["lammps"]), float(row["arm_shift"])
            if q.startswith("contact"):
                measured = {"contact_first_step": steps[0], "contact_last_step": steps[-1],
                            "contact_steps": len(steps)}[q]
                if q == "contact_steps":
                    result.check(f"{name}: contact duration (steps of {1e-6:g} s)", lammps, measured, 0,
                                 derivation="the contact exists at step n iff the spheres overlap at x_n, the same "
                                 "rule in both engines (rsq < (R_i + R_j)^2, penetration > 0); exact.")
                continue
            body, field = q.split(".")
            column = {"vx": "vx", "vy": "vy", "vz": "vz", "wx": "wx", "wy": "wy", "wz": "wz"}[field]
            measured = body_rows(bodies, body)[column][-1]
            values[q] = (lammps, shift, measured)
            scale = scale_of(q)
            worst = max(worst, abs(measured - (lammps + shift)) / scale)
            worst_raw = max(worst_raw, abs(measured - lammps) / scale)
            largest_shift = max(largest_shift, abs(shift) / scale)
        finals[name] = values
        result.check(f"{name}: max |fricdem - (LAMMPS + arm shift)| / scale after separation", 0.0, worst, ROUND_OFF,
                     derivation="LAMMPS's numbers moved by the effect of fricdem's contact arm (reference.py run "
                     "with each convention; it reproduces LAMMPS to 1e-15 of the scale, 1 m/s and 100 rad/s): "
                     "what is left is round-off; tolerance 1e-10 of the scale.")
        result.check(f"{name}: max |fricdem - LAMMPS| / scale (the arm convention's effect)", largest_shift,
                     worst_raw, max(0.05 * largest_shift, ROUND_OFF),
                     derivation="expected: the largest arm shift of the case; 0 (round-off) when the contact slides "
                     "throughout in one plane, where the force is mu N along the same line whatever the arm. "
                     "Tolerance 5% of it (or round-off).")
    return finals


def rolling_checks(ctx: Context, result: CaseResult, golden, models) -> dict:
    series = {}
    for name in ROLLINGS:
        missing = [f"{m} '{n}'" for m, n in NEEDS.get(name, []) if (m, n) not in models]
        rows = golden[name]
        lammps = {}
        for row in rows:
            lammps.setdefault(int(row["step"]), {})[row["quantity"]] = (float(row["lammps"]), float(row["arm_shift"]))
        series[name] = {"lammps": lammps}
        if missing:
            result.notes.append(f"{name}: pending, fricdem has no {' and no '.join(missing)} model yet; "
                                "its LAMMPS numbers are golden in tests/golden/lammps_rolling.csv (plotted).")
            continue
        out = ctx.run_scene(SCENES / f"{name}.yaml", name)
        ball = body_rows(read_csv(out / "bodies.csv"), "ball")
        series[name]["fricdem"] = ball
        by_step = {int(s): k for k, s in enumerate(ball["step"])}
        worst, worst_raw, largest_shift = 0.0, 0.0, 0.0
        for step, quantities in lammps.items():
            for q, (value, shift) in quantities.items():
                if q == "stop_time":
                    continue
                measured = ball[q.split(".")[1]][by_step[step]]
                scale = scale_of(q)
                worst = max(worst, abs(measured - (value + shift)) / scale)
                worst_raw = max(worst_raw, abs(measured - value) / scale)
                largest_shift = max(largest_shift, abs(shift) / scale)
        result.check(f"{name}: max |fricdem - (LAMMPS + arm shift)| / scale, every 0.01 s", 0.0, worst, ROUND_OFF,
                     derivation="as for the impacts; on a wall LAMMPS also applies the sliding force at R (a pair: "
                     "R - delta/2), which reference.py follows.")
        result.check(f"{name}: max |fricdem - LAMMPS| / scale (the arm convention's effect)", largest_shift,
                     worst_raw, max(0.05 * largest_shift, ROUND_OFF),
                     derivation="rolling without slip is v = R w in LAMMPS and v = (R - delta/2) w in fricdem: "
                     "a relative difference delta / 2R = 5e-5 at the static overlap m g / k_n = 1.03 um.")
        final = max(lammps)
        for q in ("ball.vx", "ball.wy"):
            value, shift = lammps[final][q]
            result.check(f"{name}: {q} at t = {final * 1e-5:g} s (LAMMPS vs fricdem)", value,
                         ball[q.split(".")[1]][by_step[final]], abs(shift) * 1.05 + ROUND_OFF * scale_of(q),
                         unit="m/s" if ".v" in q else "rad/s",
                         derivation="side by side; tolerance the arm shift of this number (+5%).")
    return series


def pour_checks(ctx: Context, result: CaseResult, pour_golden) -> dict:
    sys.path.insert(0, str(LAMMPS_DIR))
    import granular_stats  # noqa: E402
    from run_lammps import pour_box, read_data_radii  # noqa: E402

    scene = SCENES / "pour.yaml"
    box = pour_box(scene)
    tool = ROOT / "build" / "release" / "fricdem_lammps_data"
    stats = {"fricdem": {}, "lammps": {}}
    for key, rows in pour_golden.items():
        seed = int(key[4:])
        stats["lammps"][seed] = {row["quantity"]: float(row["lammps"]) for row in rows}
        out = ctx.run_scene(scene, f"pour_seed{seed}", {"generators.0.seed": seed})
        # Beside the run's directory, not in it: fricdem's --overwrite leaves
        # alone (and refuses) a directory holding files it did not write.
        data = out.parent / f"pour_seed{seed}_initial.data"
        subprocess.run([str(tool), str(scene), "0", str(data), f"generators.0.seed={seed}"], check=True,
                       capture_output=True)
        radii = read_data_radii(data)
        bodies = read_csv(out / "bodies.csv")
        last = bodies["time"] == bodies["time"].max()
        x = np.column_stack([bodies[c][last] for c in ("x", "y", "z")])
        stats["fricdem"][seed] = granular_stats.statistics(x, radii, box)
    seeds = sorted(stats["lammps"])
    for quantity, unit in (("packing_fraction", ""), ("coordination", "")):
        lmp = np.array([stats["lammps"][s][quantity] for s in seeds])
        fd = np.array([stats["fricdem"][s][quantity] for s in seeds])
        spread = float(np.std(lmp, ddof=1))
        tolerance = 3.0 * spread * math.sqrt(2.0 / len(seeds))
        for s, a, b in zip(seeds, lmp, fd):
            result.check(f"pour seed {s}: {quantity.replace('_', ' ')} (LAMMPS vs fricdem)", a, b, 3.0 * spread,
                         derivation="one settled bed each, from the same lattice; the runs diverge chaotically "
                         "within a few collisions, so a single bed differs as two seeds do: tolerance 3 x the "
                         "seed-to-seed sample standard deviation of LAMMPS's beds.")
        result.check(f"pour, mean over seeds {seeds}: {quantity.replace('_', ' ')} (LAMMPS vs fricdem)",
                     lmp.mean(), fd.mean(), tolerance,
                     derivation=f"the difference of two means of {len(seeds)} beds has standard deviation "
                     f"sigma sqrt(2/{len(seeds)}), sigma the seed-to-seed spread ({spread:.3g}, LAMMPS's 3 seeds); "
                     "tolerance 3 of those (the identical initial states correlate the engines' beds, which only "
                     "narrows the difference).")
    return stats


def figures(ctx: Context, result: CaseResult, series, stats) -> None:
    figure, axes = plt.subplots(3, 1, figsize=(9, 10), sharex=True)
    colours = {"rolling_slide": "C0", "rolling_resist": "C3"}
    for name, data in series.items():
        steps = sorted(s for s in data["lammps"] if "ball.vx" in data["lammps"][s])
        t = np.array(steps) * 1e-5
        get = lambda q: np.array([data["lammps"][s][q][0] for s in steps])  # noqa: E731
        shift = lambda q: np.array([data["lammps"][s][q][1] for s in steps])  # noqa: E731
        c = colours[name]
        axes[0].plot(t, get("ball.vx"), "o", color=c, ms=4, mfc="none", label=f"{name}: LAMMPS v_x")
        axes[0].plot(t, 0.01 * get("ball.wy"), "s", color=c, ms=3, mfc="none", label=f"{name}: LAMMPS R w_y")
        axes[1].plot(t, get("ball.wz"), "o", color=c, ms=4, mfc="none", label=f"{name}: LAMMPS w_z")
        axes[1].plot(t, get("ball.wx"), "^", color=c, ms=4, mfc="none", label=f"{name}: LAMMPS w_x")
        if "fricdem" in data:
            b = data["fricdem"]
            axes[0].plot(b["time"], b["vx"], "-", color=c, lw=1, label=f"{name}: fricdem v_x")
            axes[0].plot(b["time"], 0.01 * b["wy"], "--", color=c, lw=1, label=f"{name}: fricdem R w_y")
            axes[1].plot(b["time"], b["wz"], "-", color=c, lw=1, label=f"{name}: fricdem w_z")
            axes[1].plot(b["time"], b["wx"], ":", color=c, lw=1, label=f"{name}: fricdem w_x")
            by_step = {int(s): k for k, s in enumerate(b["step"])}
            index = [by_step[s] for s in steps]
            axes[2].plot(t, b["wy"][index] - get("ball.wy"), "-", color=c, label=f"{name}: fricdem - LAMMPS, w_y")
            axes[2].plot(t, shift("ball.wy"), "x", color="k", ms=5, label=f"{name}: arm shift (reference.py)")
        else:
            axes[2].plot(t, shift("ball.wy"), "x", color=c, ms=5,
                         label=f"{name}: arm shift (reference.py); fricdem pending")
    axes[0].set_ylabel("m/s")
    axes[1].set_ylabel("rad/s")
    axes[2].set_ylabel("w_y difference (rad/s)")
    axes[2].set_xlabel("time (s)")
    for a in axes:
        a.legend(fontsize=7, ncol=2)
        a.grid(alpha=0.3)
    axes[0].set_title("A 10 mm sphere thrown at 0.5 m/s along a wall, spinning (w_x = 5, w_z = 20 rad/s)")
    save_figure(ctx, result, figure, "rolling",
                "Case 2: velocity and spins of the sphere in both engines (markers: LAMMPS every "
                "0.01 s; lines: fricdem every 1 ms). It slides, curves (w_x), rolls (v_x = R w_y), and "
                "with rolling and twisting resistance stops. Bottom: fricdem minus LAMMPS in w_y and the "
                "shift the contact-arm convention predicts (R w_y = v in LAMMPS, (R - delta/2) w_y = v in "
                "fricdem).")
    if stats:
        figure, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        seeds = sorted(stats["lammps"])
        for a, quantity, label in ((axes[0], "packing_fraction", "packing fraction"),
                                   (axes[1], "coordination", "coordination number")):
            a.plot(seeds, [stats["lammps"][s][quantity] for s in seeds], "o", ms=8, mfc="none", label="LAMMPS")
            a.plot(seeds, [stats["fricdem"][s][quantity] for s in seeds], "x", ms=8, label="fricdem")
            a.set_xticks(seeds)
            a.set_xlabel("lattice seed")
            a.set_ylabel(label)
            a.grid(alpha=0.3)
            a.legend(fontsize=8)
        figure.suptitle("Case 3: 600 spheres poured into a 30 mm box, settled (same initial lattice per seed)")
        save_figure(ctx, result, figure, "pour",
                    "Case 3: packing fraction (measuring box one diameter from the walls and the "
                    "floor, two below the surface) and mean sphere-sphere contacts per sphere, per seed.")


def run(ctx: Context) -> CaseResult:
    result = CaseResult("lammps_crosscheck", TITLE, __doc__.split("\n\n", 1)[1])
    if lammps_available(result):
        rerun_lammps(ctx, result)
    models = registered_models()
    impact_checks(ctx, result, read_golden(GOLDEN / "lammps_impact.csv"), models)
    series = rolling_checks(ctx, result, read_golden(GOLDEN / "lammps_rolling.csv"), models)
    stats = pour_checks(ctx, result, read_golden(GOLDEN / "lammps_pour.csv"))
    figures(ctx, result, series, stats)
    return result
