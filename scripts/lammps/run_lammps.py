#!/usr/bin/python3
"""Runs LAMMPS on the cross-check decks of this folder and writes the golden
numbers that fricdem is compared with (tests/test_lammps_golden.c,
scripts/validation/lammps_crosscheck.py; docs/validation/lammps_crosscheck.md):

  tests/golden/lammps_impact.csv   case 1: two-sphere impacts (impact_*.in):
                                   velocities and spins after separation,
                                   first/last contact step and contact steps
  tests/golden/lammps_rolling.csv  case 2: a sphere on a wall (rolling_*.in):
                                   state every 0.01 s, stopping time
  tests/golden/lammps_pour.csv     case 3: a pour of 600 spheres (pour.in),
                                   seeds 1-3: packing fraction, coordination
                                   number, bed height, kinetic energy
  tests/golden/lammps_mindlin.csv  case 4: two-sphere impacts with a Mindlin
                                   tangential spring (impact_mindlin*.in):
                                   the force on sphere one every 10 steps of
                                   contact, velocities and spins after
                                   separation, contact steps
  tests/golden/lammps_touching.csv case 5: two spheres touching at t = 0
                                   (touching_*.in, spins held at zero): the
                                   force on sphere one at every step of
                                   contact from step 0 (issue 18: a contact's
                                   history holds the elapsed time only)
  tests/golden/lammps_newer.csv    case 8: case 4's rows for options newer
                                   than Debian's LAMMPS: the static/dynamic
                                   sliders of LAMMPS 2026 (impact_*_static.in,
                                   tangential linear_history/static and
                                   mindlin/static), damping coeff_restitution
                                   and tangential linear_history_classic and
                                   mindlin_classic (LAMMPS 2023); a LAMMPS
                                   that predates them refuses the decks, and
                                   the numbers are then reference.py's
                                   transcription of LAMMPS's source, run with
                                   LAMMPS's arms

Cases 1, 2, 4 and 8 carry, next to each LAMMPS number, `arm_shift`: how much
fricdem's contact-arm convention moves that number (scripts/lammps/reference.py
run with fricdem's convention minus run with LAMMPS's). The script first checks
that the reference run with LAMMPS's convention reproduces LAMMPS to round-off
(1e-10 of the case's scale), so that the shift is known to be the convention's
effect and nothing else; it stops with an error otherwise.

Needs `lmp` (scripts/install-lammps.sh) and, for case 3, build/release
(make build: bench/lammps_data.c writes fricdem's initial lattice as LAMMPS
data). Usage:

    /usr/bin/python3 scripts/lammps/run_lammps.py [--cases impact,rolling,pour,mindlin,newer] [--out DIR] [--keep DIR]
"""
from __future__ import annotations

import argparse
import datetime
import math
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import granular_stats  # noqa: E402
import reference  # noqa: E402

IMPACTS = ["impact_elastic_slide", "impact_damped_slide", "impact_damped_stick", "impact_roll_twist",
           "impact_roll_marshall"]
ROLLINGS = ["rolling_slide", "rolling_resist"]
MINDLINS = ["impact_mindlin", "impact_mindlin_rescale", "impact_mindlin_force", "impact_mindlin_rescale_force",
            "impact_hooke_mindlin"]
NEWER = ["impact_linear_history_static", "impact_mindlin_static", "impact_coeff_restitution",
         "impact_hertz_coeff_restitution", "impact_linear_history_classic", "impact_mindlin_classic"]
TOUCHINGS = ["touching_linear_history", "touching_mindlin", "touching_mass_velocity", "touching_viscoelastic",
             "touching_nohistory", "touching_hertz_viscoelastic", "touching_tsuji",
             "touching_legacy_hooke_history", "touching_legacy_hooke",
             "touching_hertz_viscoelastic_free", "touching_legacy_hertz_history", "touching_roll_twist",
             "touching_roll_marshall"]
UNITS = ["unit_hooke_roll_marshall", "unit_hertz_mindlin_sds", "unit_dilute_hooke_roll_marshall",
         "unit_dilute_hertz_mindlin_sds"]
# Case 7: the decks of scenes/lammps/decks/ that `fricdem import-lammps` translates.
DECKS = ROOT / "scenes" / "lammps" / "decks"
IMPORTS = ["polydisperse", "settle", "mixing", "legacy", "cylinder", "exclude"]
# mixing.in's 1-2 pair written out for Debian's LAMMPS, which does not mix models (the deck says why).
IMPORT_VARIABLES = {"mixing": {"pair12": "mixing_by_hand.lmp"}}
FORCE_EVERY = 10  # steps between the force rows of case 4, from the first contact step
POUR_SEEDS = [1, 2, 3]
STOP_SPEED = 1e-3  # m/s: the rolling sphere has stopped when its speed first falls below this
GOLDEN_EVERY = 1000  # steps between golden rows of case 2 (0.01 s)
# The reference with LAMMPS's convention must reproduce LAMMPS within this
# fraction of the case's scale (speed 1 m/s, spin 100 rad/s, length 10 mm).
REFERENCE_TOLERANCE = 1e-10


def lammps_version(lmp: str) -> str:
    text = subprocess.run([lmp, "-h"], capture_output=True, text=True).stdout
    match = re.search(r"Large-scale Atomic/Molecular Massively Parallel Simulator - (.*)", text)
    version = match.group(1).strip() if match else "unknown version"
    package = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "lammps"], capture_output=True,
                             text=True).stdout.strip()
    return f"LAMMPS {version}" + (f" (Debian package lammps {package})" if package else "") + \
        f", binary {shutil.which(lmp) or lmp}"


def deck_variables(deck: Path) -> dict[str, str]:
    """`variable NAME equal|index|string VALUE` lines of a deck (comments stripped)."""
    values = {}
    for line in deck.read_text().splitlines():
        match = re.match(r"\s*variable\s+(\w+)\s+(?:equal|index|string)\s+(.*)$", line)
        if match:
            value = match.group(2)
            if value.startswith('"'):
                value = value[1:value.index('"', 1)]
            else:
                value = value.split("#", 1)[0].strip()
            values[match.group(1)] = value
    return values


def run_deck(lmp: str, deck: str, work: Path, variables: dict[str, str], label: str = "", folder: Path = HERE) -> str:
    """Runs one deck from folder (default: this one; log OUT/<label or
    deck>.log); returns the command as run (paths of the work directory
    shown as OUT/)."""
    log = work / ((label or Path(deck).stem) + ".log")
    command = [lmp, "-in", deck]
    for key, value in variables.items():
        command += ["-var", key, str(value)]
    command += ["-log", str(log), "-screen", "none"]
    completed = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    if completed.returncode != 0:
        tail = log.read_text().splitlines()[-10:] if log.exists() else []
        raise RuntimeError(f"{' '.join(command)} exited with {completed.returncode}:\n" + "\n".join(tail) +
                           completed.stderr)
    return " ".join(shlex.quote(c.replace(str(work), "OUT")) for c in command)


def read_dump(path: Path) -> list[tuple[int, dict[str, np.ndarray]]]:
    """A LAMMPS custom dump: [(step, {column: values in id order})]."""
    frames = []
    lines = path.read_text().splitlines()
    k = 0
    while k < len(lines):
        if lines[k].startswith("ITEM: TIMESTEP"):
            step = int(lines[k + 1])
            count = int(lines[k + 3])
            columns = lines[k + 8].split()[2:]
            rows = np.array([[float(v) for v in lines[k + 9 + a].split()] for a in range(count)])
            frames.append((step, {name: rows[:, c] for c, name in enumerate(columns)}))
            k += 9 + count
        else:
            k += 1
    return frames


def parse_extra(extra: str):
    """'rolling sds k g mu twisting sds k g mu' / 'twisting marshall' -> (roll, twist)."""
    words = extra.split()
    roll = twist = None
    k = 0
    while k < len(words):
        if words[k] == "rolling" and words[k + 1] == "sds":
            roll = tuple(float(w) for w in words[k + 2:k + 5])
            k += 5
        elif words[k] == "twisting" and words[k + 1] == "sds":
            twist = tuple(float(w) for w in words[k + 2:k + 5])
            k += 5
        elif words[k] == "twisting" and words[k + 1] == "marshall":
            twist = "marshall"
            k += 2
        else:
            raise ValueError(f"cannot read '{extra}' at '{words[k]}'")
    return roll, twist


def vec(v: dict, *names) -> tuple:
    return tuple(float(v[n]) for n in names)


# ---------------------------------------------------------------- case 1

def impact_spheres(v: dict):
    """The two spheres of an impact deck's variables, sphere one at the origin."""
    one = reference.Sphere(float(v["r1"]), float(v["rho"]), (0.0, 0.0, 0.0), vec(v, "v1x", "v1y", "v1z"),
                           vec(v, "w1x", "w1y", "w1z"))
    two = reference.Sphere(float(v["r2"]), float(v["rho"]), vec(v, "x2", "y2", "z2"), vec(v, "v2x", "v2y", "v2z"),
                           vec(v, "w2x", "w2y", "w2z"))
    return one, two


def impact_values(one, two, touching: list[int]) -> dict:
    """An impact's golden quantities after the run: both spheres' velocities
    and spins, and the steps of contact."""
    values = {}
    for name, s in (("one", one), ("two", two)):
        for axis, value in zip("xyz", s.v):
            values[f"{name}.v{axis}"] = value
        for axis, value in zip("xyz", s.w):
            values[f"{name}.w{axis}"] = value
    values["contact_first_step"] = touching[0] if touching else -1
    values["contact_last_step"] = touching[-1] if touching else -1
    values["contact_steps"] = len(touching)
    return values


def impact_reference(v: dict, arm: str):
    one, two = impact_spheres(v)
    meff = one.m * two.m / (one.m + two.m)
    kn = float(v["kn"])
    roll, twist = parse_extra(v["extra"])
    law = reference.Law(kn, float(v["gamma"]) * math.sqrt(meff * kn), float(v["kt"]), float(v["xgammat"]),
                        float(v["mu"]), roll, twist)
    touching = reference.simulate([one, two], law, float(v["dt"]), int(v["steps"]), arm)
    values = impact_values(one, two, touching)
    return values


def impact_case(lmp: str, name: str, work: Path):
    deck = HERE / f"{name}.in"
    v = deck_variables(deck)
    dump = work / f"{name}.dump"
    command = run_deck(lmp, deck.name, work, {"dump": str(dump)})
    frames = read_dump(dump)
    steps = int(v["steps"])
    r1, r2 = float(v["r1"]), float(v["r2"])
    touching = []
    for step, f in frames:
        d = np.array([f["x"][0] - f["x"][1], f["y"][0] - f["y"][1], f["z"][0] - f["z"][1]])
        if step > 0 and float(d @ d) < (r1 + r2) ** 2:  # pair_granular: contact iff rsq < radsum^2
            touching.append(step)
    last = frames[-1][1]
    assert frames[-1][0] == steps
    lammps = {}
    for k, name_ in enumerate(("one", "two")):
        for axis in "xyz":
            lammps[f"{name_}.v{axis}"] = float(last[f"v{axis}"][k])
        for axis in "xyz":
            lammps[f"{name_}.w{axis}"] = float(last[f"omega{axis}"][k])
    lammps["contact_first_step"] = touching[0]
    lammps["contact_last_step"] = touching[-1]
    lammps["contact_steps"] = len(touching)
    as_lammps = impact_reference(v, "lammps")
    as_fricdem = impact_reference(v, "midpoint")
    worst = 0.0
    for key, value in lammps.items():
        scale = 100.0 if ".w" in key else 1.0
        error = abs(as_lammps[key] - value) / scale
        if key.startswith("contact") and as_lammps[key] != value:
            error = math.inf
        worst = max(worst, error)
    if worst > REFERENCE_TOLERANCE:
        raise RuntimeError(f"{name}: scripts/lammps/reference.py no longer reproduces LAMMPS "
                           f"(error {worst:.3g} of the scale); the arm shifts would be wrong")
    rows = [(name, steps, key, value, as_fricdem[key] - as_lammps[key]) for key, value in lammps.items()]
    return rows, command, worst


# ---------------------------------------------------------------- case 4

def mindlin_law(v: dict) -> reference.Law:
    """The law of an impact_mindlin*.in deck from its `normal`, `damping` and
    `tangential` strings (the pair_coeff words, impact_mindlin.lmp)."""
    normal, damping, tangential = v["normal"].split(), v["damping"], v["tangential"].split()
    if normal[0] == "hertz/material":
        e_mod, poisson = float(normal[1]), float(normal[3])
        law = dict(normal="hertz", kn=reference.hertz_material_kn(e_mod, poisson))
    elif normal[0] == "hooke":
        e_mod = poisson = None
        law = dict(normal="hooke", kn=float(normal[1]))
    else:
        raise ValueError(f"normal model '{normal[0]}' is not transcribed")
    if damping == "tsuji":
        eta_n = reference.tsuji_alpha(float(normal[2]))
    elif damping == "coeff_restitution":
        eta_n = reference.coeff_restitution_damp(float(normal[2]), law["normal"])
    elif damping in ("velocity", "mass_velocity"):
        eta_n = float(normal[2])
    else:
        raise ValueError(f"damping '{damping}' is not transcribed")
    known = reference.MINDLIN + reference.STATIC + reference.CLASSIC + ("linear_history",)
    if tangential[0] not in known:
        raise ValueError(f"tangential model '{tangential[0]}' is not transcribed")
    kt = reference.mindlin_null_kt(e_mod, poisson) if tangential[1] == "NULL" else float(tangential[1])
    # The static sliders (case 8) take mu_s and mu_d.
    mu_dynamic = float(tangential[4]) if tangential[0] in reference.STATIC else None
    return reference.Law(law["kn"], eta_n, kt, float(tangential[2]), float(tangential[3]), normal=law["normal"],
                         damping=damping, tangential=tangential[0], mu_dynamic=mu_dynamic)


def mindlin_reference(v: dict, arm: str):
    """Final velocities and spins, contact steps and the force on sphere one
    at every step (in contact or not) of a case-4 deck run by reference.py."""
    one, two = impact_spheres(v)
    forces = {}

    def record(step, spheres, inside):
        forces[step] = list(spheres[0].f)

    touching = reference.simulate([one, two], mindlin_law(v), float(v["dt"]), int(v["steps"]), arm, record=record)
    values = impact_values(one, two, touching)
    return values, forces


def mindlin_case(lmp: str, name: str, work: Path):
    deck = HERE / f"{name}.in"
    v = deck_variables(deck)
    dump = work / f"{name}.dump"
    command = run_deck(lmp, deck.name, work, {"dump": str(dump)})
    frames = dict(read_dump(dump))
    steps = int(v["steps"])
    r1, r2 = float(v["r1"]), float(v["r2"])
    touching = []
    for step, f in sorted(frames.items()):
        d = np.array([f["x"][0] - f["x"][1], f["y"][0] - f["y"][1], f["z"][0] - f["z"][1]])
        if step > 0 and float(d @ d) < (r1 + r2) ** 2:  # pair_granular: contact iff rsq < radsum^2
            touching.append(step)
    # Forces every FORCE_EVERY steps from the first contact step, and at the last one.
    force_steps = [s for s in touching if (s - touching[0]) % FORCE_EVERY == 0] + [touching[-1]]
    lammps = {}
    for step in force_steps:
        for axis in "xyz":
            lammps[(step, f"one.f{axis}")] = float(frames[step][f"f{axis}"][0])
    last = frames[steps]
    for k, body in enumerate(("one", "two")):
        for axis in "xyz":
            lammps[(steps, f"{body}.v{axis}")] = float(last[f"v{axis}"][k])
        for axis in "xyz":
            lammps[(steps, f"{body}.w{axis}")] = float(last[f"omega{axis}"][k])
    lammps[(steps, "contact_first_step")] = touching[0]
    lammps[(steps, "contact_last_step")] = touching[-1]
    lammps[(steps, "contact_steps")] = len(touching)
    as_lammps, forces_lammps = mindlin_reference(v, "lammps")
    as_fricdem, forces_fricdem = mindlin_reference(v, "midpoint")
    force_scale = max(abs(value) for (step, key), value in lammps.items() if ".f" in key)

    def reference_value(values, forces, step, key):
        return forces[step]["xyz".index(key[-1])] if ".f" in key else values[key]

    worst = 0.0
    for (step, key), value in lammps.items():
        scale = force_scale if ".f" in key else 100.0 if ".w" in key else 1.0
        ref = reference_value(as_lammps, forces_lammps, step, key)
        error = abs(ref - value) / scale
        if key.startswith("contact") and ref != value:
            error = math.inf
        worst = max(worst, error)
    if worst > REFERENCE_TOLERANCE:
        raise RuntimeError(f"{name}: scripts/lammps/reference.py no longer reproduces LAMMPS "
                           f"(error {worst:.3g} of the scale); the arm shifts would be wrong")
    rows = [(name, step, key, value,
             reference_value(as_fricdem, forces_fricdem, step, key) - reference_value(as_lammps, forces_lammps, step, key))
            for (step, key), value in sorted(lammps.items(), key=lambda item: item[0][0])]
    return rows, command, worst, force_scale


# ---------------------------------------------------------------- case 8

def newer_case(lmp: str, name: str, work: Path):
    """Case 4's rows for a deck of an option newer than Debian's LAMMPS. A
    LAMMPS that has it runs the deck and the reference is checked against it
    as in case 4 (source "LAMMPS"); one that refuses the model (Debian's 29
    Sep 2021) leaves the reference with LAMMPS's arms as the numbers (source
    "reference.py"): a transcription of the option's source, in a reference
    that reproduces that LAMMPS to round-off on every model it has (cases 1
    and 4), and for the static sliders checked against their base models."""
    try:
        rows, command, worst, force_scale = mindlin_case(lmp, name, work)
        return rows, command, worst, force_scale, "LAMMPS"
    except RuntimeError as error:
        if "not recognized" not in str(error) and "unrecognized" not in str(error):
            raise
    v = deck_variables(HERE / f"{name}.in")
    static = v["tangential"].split()[0] in reference.STATIC
    twin_error = static_twin_error(lmp, name, v, work) if static else 0.0
    as_lammps, forces_lammps = mindlin_reference(v, "lammps")
    as_fricdem, forces_fricdem = mindlin_reference(v, "midpoint")
    touching = list(range(as_lammps["contact_first_step"], as_lammps["contact_last_step"] + 1))
    if len(touching) != as_lammps["contact_steps"]:
        raise RuntimeError(f"{name}: the contact breaks and begins again; case 4's rows assume one contact")
    steps = int(v["steps"])
    force_steps = [s for s in touching if (s - touching[0]) % FORCE_EVERY == 0] + [touching[-1]]
    rows = []
    for step in force_steps:
        for k, axis in enumerate("xyz"):
            lammps = forces_lammps[step][k]
            rows.append((name, step, f"one.f{axis}", lammps, forces_fricdem[step][k] - lammps))
    for key, value in as_lammps.items():
        rows.append((name, steps, key, value, as_fricdem[key] - value))
    force_scale = max(abs(row[3]) for row in rows if ".f" in row[2])
    return rows, f"(none: {lmp} refuses the deck's model) {name}.in", twin_error, force_scale, "reference.py"


def static_twin_error(lmp: str, name: str, v: dict, work: Path) -> float:
    """What this LAMMPS can check of the transcription: the deck's twin with
    the static slider's base model (linear_history or mindlin, mu = mu_s),
    run by LAMMPS, against the reference's static model with mu_d = mu_s (the
    same forces in exact arithmetic: the state never changes the cap). The
    largest difference over the force at every step and the final velocities
    and spins, as a fraction of case 4's scales; an error above
    REFERENCE_TOLERANCE stops the script."""
    words = v["tangential"].split()
    base = words[0].removesuffix("/static")
    deck = (HERE / f"{name}.in").read_text()
    twin = work / f"{name}_twin.in"
    twin.write_text(re.sub(r'variable tangential string ".*"',
                           f'variable tangential string "{" ".join([base] + words[1:4])}"', deck))
    dump = work / f"{name}_twin.dump"
    run_deck(lmp, str(twin), work, {"dump": str(dump)}, label=f"{name}_twin")
    frames = dict(read_dump(dump))
    as_reference, forces = mindlin_reference(dict(v, tangential=" ".join(words[:4] + [words[3]])), "lammps")
    steps = int(v["steps"])
    force_scale = max(abs(value) for f in frames.values() for value in (f["fx"][0], f["fy"][0], f["fz"][0]))
    worst = max(abs(forces[step][k] - float(frames[step][f"f{axis}"][0])) / force_scale
                for step in frames for k, axis in enumerate("xyz"))
    for k, body in enumerate(("one", "two")):
        for axis in "xyz":
            worst = max(worst, abs(as_reference[f"{body}.v{axis}"] - float(frames[steps][f"v{axis}"][k])),
                        abs(as_reference[f"{body}.w{axis}"] - float(frames[steps][f"omega{axis}"][k])) / 100.0)
    if worst > REFERENCE_TOLERANCE:
        raise RuntimeError(f"{name}: scripts/lammps/reference.py's {words[0]} with mu_d = mu_s no longer "
                           f"reproduces LAMMPS {base} (error {worst:.3g} of the scale)")
    print(f"run_lammps: {name}: the transcription with mu_d = mu_s vs LAMMPS {base}: {worst:.2g} of the scale")
    return worst


# ---------------------------------------------------------------- case 2

def rolling_reference(v: dict, arm: str, every: int):
    ball = reference.Sphere(float(v["r"]), float(v["rho"]), (0.0, 0.0, float(v["z0"])), vec(v, "vx", "vy", "vz"),
                            vec(v, "wx", "wy", "wz"))
    kn = float(v["kn"])
    roll, twist = parse_extra(v["extra"])
    law = reference.Law(kn, float(v["gamma"]) * math.sqrt(ball.m * kn), float(v["kt"]), float(v["xgammat"]),
                        float(v["mu"]), roll, twist)
    series = {}

    def record(step, spheres, inside):
        if step % every == 0:
            s = spheres[0]
            series[step] = list(s.x) + list(s.v) + list(s.w)

    reference.simulate([ball], law, float(v["dt"]), int(v["steps"]), arm, gravity=(0.0, 0.0, -9.81), wall_z=0.0,
                       record=record)
    return series


ROLLING_QUANTITIES = ["ball.x", "ball.y", "ball.z", "ball.vx", "ball.vy", "ball.vz", "ball.wx", "ball.wy", "ball.wz"]
ROLLING_SCALES = [0.01, 0.01, 0.01, 1.0, 1.0, 1.0, 100.0, 100.0, 100.0]


def stop_time(series: dict[int, list], dt: float) -> float:
    for step in sorted(series):
        s = series[step]
        if step > 0 and math.hypot(s[3], s[4]) < STOP_SPEED:
            return step * dt
    return math.nan


def rolling_case(lmp: str, name: str, work: Path):
    deck = HERE / f"{name}.in"
    v = deck_variables(deck)
    dump = work / f"{name}.dump"
    command = run_deck(lmp, deck.name, work, {"dump": str(dump)})
    every = int(v["every"])
    dt = float(v["dt"])
    lammps = {}
    for step, f in read_dump(dump):
        lammps[step] = [float(f[c][0]) for c in ("x", "y", "z", "vx", "vy", "vz", "omegax", "omegay", "omegaz")]
    as_lammps = rolling_reference(v, "lammps", every)
    as_fricdem = rolling_reference(v, "midpoint", every)
    worst = 0.0
    for step, values in lammps.items():
        for value, ref, scale in zip(values, as_lammps[step], ROLLING_SCALES):
            worst = max(worst, abs(value - ref) / scale)
    if worst > REFERENCE_TOLERANCE:
        raise RuntimeError(f"{name}: scripts/lammps/reference.py no longer reproduces LAMMPS "
                           f"(error {worst:.3g} of the scale); the arm shifts would be wrong")
    rows = []
    for step in sorted(lammps):
        if step % GOLDEN_EVERY:
            continue
        for q, value, a, b in zip(ROLLING_QUANTITIES, lammps[step], as_lammps[step], as_fricdem[step]):
            rows.append((name, step, q, value, b - a))
    stop = stop_time(lammps, dt)
    if not math.isnan(stop):
        rows.append((name, int(round(stop / dt)), "stop_time", stop,
                     stop_time(as_fricdem, dt) - stop_time(as_lammps, dt)))
    return rows, command, worst


# ---------------------------------------------------------------- case 3

def read_data_radii(path: Path) -> np.ndarray:
    atoms = path.read_text().split("Atoms # sphere")[1].split("Velocities")[0].strip().splitlines()
    return np.array([0.5 * float(line.split()[2]) for line in atoms])


def pour_box(scene: Path) -> tuple[float, float, float, float]:
    """The four walls of scenes/lammps/pour.yaml (x_min, x_max, y_min, y_max)."""
    text = scene.read_text()
    positions = {}
    for name in ("wall_x_min", "wall_x_max", "wall_y_min", "wall_y_max"):
        match = re.search(name + r".*position: \[([^\]]*)\]", text)
        positions[name] = [float(c) for c in match.group(1).split(",")]
    return (positions["wall_x_min"][0], positions["wall_x_max"][0], positions["wall_y_min"][1],
            positions["wall_y_max"][1])


def pour_case(lmp: str, work: Path):
    tool = ROOT / "build" / "release" / "fricdem_lammps_data"
    if not tool.exists():
        raise RuntimeError(f"{tool} is missing: build fricdem first (make build)")
    scene = ROOT / "scenes" / "lammps" / "pour.yaml"
    box = pour_box(scene)
    rows, commands = [], []
    for seed in POUR_SEEDS:
        data = work / f"pour_seed{seed}.data"
        subprocess.run([str(tool), str(scene), "0", str(data), f"generators.0.seed={seed}"], check=True,
                       capture_output=True)
        dump = work / f"pour_seed{seed}.dump"
        commands.append(run_deck(lmp, "pour.in", work, {"data": str(data), "dump": str(dump)}, f"pour_seed{seed}"))
        step, f = read_dump(dump)[-1]
        x = np.column_stack([f["x"], f["y"], f["z"]])
        r = f["radius"]
        if not np.allclose(r, read_data_radii(data), rtol=0, atol=0):
            raise RuntimeError("radii of the dump differ from the data file")
        stats = granular_stats.statistics(x, r, box)
        mass = 4.0 * math.pi / 3.0 * r ** 3 * 2500.0
        inertia = 0.4 * mass * r ** 2
        v2 = f["vx"] ** 2 + f["vy"] ** 2 + f["vz"] ** 2
        w2 = f["omegax"] ** 2 + f["omegay"] ** 2 + f["omegaz"] ** 2
        stats["kinetic_energy"] = float(0.5 * np.sum(mass * v2 + inertia * w2))
        for key, value in stats.items():
            rows.append((seed, step, key, value))
    return rows, commands


# ---------------------------------------------------------------- output

def touching_case(lmp: str, name: str, work: Path):
    """Case 5: the force on sphere one at every step the pair touches, from
    step 0 (LAMMPS's set-up). The spins stay zero (fix nve), so no arm
    convention enters: arm_shift is 0 and fricdem must give LAMMPS's numbers
    to round-off."""
    deck = HERE / f"{name}.in"
    v = {**deck_variables(HERE / "touching.lmp"), **deck_variables(deck)}  # the deck's values over the defaults
    dump = work / f"{name}.dump"
    command = run_deck(lmp, deck.name, work, {"dump": str(dump)})
    r1, r2 = float(v["r1"]), float(v["r2"])
    rows = []
    for step, f in read_dump(dump):
        d = np.array([f["x"][0] - f["x"][1], f["y"][0] - f["y"][1], f["z"][0] - f["z"][1]])
        if float(d @ d) < (r1 + r2) ** 2:  # pair_granular: contact iff rsq < radsum^2
            rows += [(name, step, f"one.f{axis}", float(f[f"f{axis}"][0]), 0.0) for axis in "xyz"]
            if v.get("integrate") == "nve/sphere":  # spinning: the spins too (fricdem with lammps_arms)
                rows += [(name, step, f"{body}.w{axis}", float(f[f"omega{axis}"][k]), 0.0)
                         for k, body in enumerate(("one", "two")) for axis in "xyz"]
    return rows, command


def unit_case(lmp: str, name: str, work: Path):
    """Case 6: the many-sphere parity system (make_unit_system.py): every
    sphere's total force (b<id>.Fx..) and spin (b<id>.wx..) at each dumped
    step from step 0, with LAMMPS's arms (fricdem's lammps_arms)."""
    dump = work / f"{name}.dump"
    command = run_deck(lmp, f"{name}.in", work, {"dump": str(dump)})
    rows = []
    for step, f in read_dump(dump):
        for k, atom in enumerate(f["id"]):
            body = f"b{int(atom)}"
            rows += [(name, step, f"{body}.F{axis}", float(f[f"f{axis}"][k]), 0.0) for axis in "xyz"]
            rows += [(name, step, f"{body}.w{axis}", float(f[f"omega{axis}"][k]), 0.0) for axis in "xyz"]
    return rows, command


def thermo_rows(log: Path) -> list[list[str]]:
    """The rows of a log's thermo table (after its "Step" header, up to "Loop time")."""
    rows, inside = [], False
    for line in log.read_text().splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            inside = True
        elif inside and line.startswith("Loop time"):
            inside = False
        elif inside and words and words[0].isdigit():
            rows.append(words)
    return rows


def import_case(lmp: str, name: str, work: Path):
    """Case 7: the decks that `fricdem import-lammps` translates
    (scenes/lammps/decks/): the kinetic energy, translational (compute ke)
    and rotational (compute erotate/sphere), at each thermo step."""
    command = run_deck(lmp, f"{name}.in", work, IMPORT_VARIABLES.get(name, {}), folder=DECKS)
    rows = []
    for words in thermo_rows(work / f"{name}.log"):
        step = int(words[0])
        rows.append((name, step, "kinetic_translational", float(words[1]), 0.0))
        rows.append((name, step, "kinetic_rotational", float(words[2]), 0.0))
    return rows, command


def run_cases(case, lmp: str, names: list[str], work: Path):
    """The golden rows and the commands of case(lmp, name, work) over names."""
    rows, commands = [], []
    for name in names:
        r, c = case(lmp, name, work)
        rows += r
        commands.append(c)
    return rows, commands


def run_checked_cases(case, lmp: str, names: list[str], work: Path, says=None):
    """run_cases for the cases checked against scripts/lammps/reference.py:
    case(lmp, name, work) returns its rows, its command, its largest gap to the
    reference (a fraction of the scale) and what else it measured. Returns the
    rows, the commands, the largest gap and each case's extras; prints each
    case's gap, or says(name, extras) when given."""
    rows, commands, extras, worst = [], [], [], 0.0
    for name in names:
        r, c, w, *extra = case(lmp, name, work)
        rows += r
        commands.append(c)
        extras.append(extra)
        worst = max(worst, w)
        print(f"run_lammps: {name}: " + (says(name, extra) if says else f"reference vs LAMMPS {w:.2g} of the scale"))
    return rows, commands, worst, extras


def write_golden(path: Path, header: list[str], columns: str, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as out:
        for line in header:
            out.write(f"# {line}\n")
        out.write(columns + "\n")
        for row in rows:
            out.write(",".join(f"{v:.17g}" if isinstance(v, float) else str(v) for v in row) + "\n")
    print(f"run_lammps: wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} ({len(rows)} rows)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="impact,rolling,pour,mindlin,newer,touching,unit,import",
                        help="comma-separated: impact, rolling, pour, mindlin, newer, touching, unit, import")
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden"), help="where the golden files go")
    parser.add_argument("--keep", help="keep LAMMPS's dumps and logs in this folder (default: a temporary one)")
    parser.add_argument("--lmp", default="lmp", help="the LAMMPS binary (default: lmp)")
    args = parser.parse_args()
    if shutil.which(args.lmp) is None:
        print(f"run_lammps: '{args.lmp}' not found; install it with scripts/install-lammps.sh", file=sys.stderr)
        return 2
    cases = set(args.cases.split(","))
    out = Path(args.out)
    version = lammps_version(args.lmp)
    today = datetime.date.today().isoformat()
    work_context = tempfile.TemporaryDirectory() if not args.keep else None
    work = Path(args.keep) if args.keep else Path(work_context.name)
    work.mkdir(parents=True, exist_ok=True)
    common = [version,
              f"written by scripts/lammps/run_lammps.py on {today}; the commands below ran in scripts/lammps/ "
              "(OUT = a scratch folder)"]
    shift_note = ("arm_shift: fricdem's contact-arm convention minus LAMMPS's for that number (scripts/lammps/"
                  "reference.py run both ways); fricdem should give lammps + arm_shift to round-off")
    if "impact" in cases:
        rows, commands, worst, _ = run_checked_cases(impact_case, args.lmp, IMPACTS, work)
        write_golden(out / "lammps_impact.csv",
                     common + [f"command: {c}" for c in commands] + [
                         "case 1: two-sphere impacts; quantities after separation at the last step: velocities "
                         "(m/s), spins (rad/s) of spheres one (atom 1) and two (atom 2); contact steps",
                         shift_note + f"; reference vs LAMMPS: at most {worst:.2g} of the scale (1 m/s, 100 rad/s)"],
                     "case,step,quantity,lammps,arm_shift", rows)
    if "rolling" in cases:
        rows, commands, worst, _ = run_checked_cases(rolling_case, args.lmp, ROLLINGS, work)
        write_golden(out / "lammps_rolling.csv",
                     common + [f"command: {c}" for c in commands] + [
                         f"case 2: a sphere on a wall; state every {GOLDEN_EVERY} steps: position (m), velocity "
                         f"(m/s), spin (rad/s); stop_time (s): first dump time with speed < {STOP_SPEED} m/s",
                         shift_note + f"; reference vs LAMMPS: at most {worst:.2g} of the scale "
                         "(10 mm, 1 m/s, 100 rad/s)"],
                     "case,step,quantity,lammps,arm_shift", rows)
    if "mindlin" in cases:
        rows, commands, worst, extras = run_checked_cases(mindlin_case, args.lmp, MINDLINS, work)
        scales = [f"{name} {force_scale:.6g} N" for name, (force_scale,) in zip(MINDLINS, extras)]
        write_golden(out / "lammps_mindlin.csv",
                     common + [f"command: {c}" for c in commands] + [
                         "case 4: two-sphere impacts with a Mindlin tangential spring; one.fx, one.fy, one.fz: "
                         f"the force on sphere one (atom 1, N) every {FORCE_EVERY} steps from the first contact step "
                         "and at the last; after separation at the last step: velocities (m/s), spins (rad/s) of "
                         "spheres one and two (atom 2); contact steps",
                         shift_note + f"; reference vs LAMMPS: at most {worst:.2g} of the scale (the largest force "
                         "row of the case, 1 m/s, 100 rad/s)",
                         "largest force row per case: " + ", ".join(scales)],
                     "case,step,quantity,lammps,arm_shift", rows)
    if "newer" in cases:
        rows, commands, worst, extras = run_checked_cases(newer_case, args.lmp, NEWER, work,
                                                          says=lambda name, extra: f"numbers from {extra[1]}")
        sources = [f"{name}: {source}" for name, (_, source) in zip(NEWER, extras)]
        scales = [f"{name} {force_scale:.6g} N" for name, (force_scale, _) in zip(NEWER, extras)]
        write_golden(out / "lammps_newer.csv",
                     common + [f"command: {c}" for c in commands] + [
                         "case 8: case 4's rows for options newer than Debian's LAMMPS: LAMMPS 2026's static/dynamic "
                         "sliders, tangential linear_history/static and mindlin/static (k_t xgammat mu_s mu_d); "
                         "LAMMPS 2023's damping coeff_restitution and tangential linear_history_classic and "
                         "mindlin_classic; where the LAMMPS above refuses them, the numbers (column lammps) are "
                         "scripts/lammps/reference.py's transcription of their source (src/GRANULAR/"
                         "gran_sub_mod_tangential.cpp, gran_sub_mod_damping.cpp) with LAMMPS's arms",
                         "source of the numbers: " + ", ".join(sources),
                         shift_note + "; where LAMMPS refuses a deck, its twin with the base model (linear_history, "
                         "mindlin) checks the transcription with mu_d = mu_s against LAMMPS: "
                         f"at most {worst:.2g} of the scale (the largest force of the run, 1 m/s, 100 rad/s)",
                         "largest force row per case: " + ", ".join(scales)],
                     "case,step,quantity,lammps,arm_shift", rows)
    # The cases with no reference to check LAMMPS against, in the order they run: (name, case, its
    # systems or decks, the opening lines of its golden file, what its rows hold).
    unchecked = [
        ("unit", unit_case, UNITS, common,
         "case 6: 32 overlapping spheres in a periodic cube, random velocities and spins "
         "(make_unit_system.py); b<id>.Fx, .Fy, .Fz: the total force on each sphere (N), b<id>.wx, "
         ".wy, .wz: its spin (rad/s), every 10 steps from step 0 to 200; fricdem with lammps_arms: "
         "arm_shift 0"),
        ("import", import_case, IMPORTS,
         [version, f"written by scripts/lammps/run_lammps.py on {today}; the commands below ran in "
          "scenes/lammps/decks/ (OUT = a scratch folder)"],
         "case 7: decks that fricdem import-lammps translates; kinetic_translational and "
         "kinetic_rotational (J, LAMMPS compute ke and erotate/sphere) at each thermo step"),
        ("touching", touching_case, TOUCHINGS, common,
         "case 5: two spheres touching at t = 0, spins held at zero (fix nve); one.fx, one.fy, "
         "one.fz: the force on sphere one (atom 1, N) at every step of contact from step 0 (the "
         "set-up, whose history LAMMPS does not advance); arm_shift 0: no spin, no arm convention"),
    ]
    for name, case, names, opening, rows_note in unchecked:
        if name in cases:
            rows, commands = run_cases(case, args.lmp, names, work)
            write_golden(out / f"lammps_{name}.csv", opening + [f"command: {c}" for c in commands] + [rows_note],
                         "case,step,quantity,lammps,arm_shift", rows)
    if "pour" in cases:
        rows, commands = pour_case(args.lmp, work)
        table = {}
        for seed, step, key, value in rows:
            table.setdefault(key, []).append(value)
        summary = [f"{key}: mean {np.mean(values):.6g}, sample std {np.std(values, ddof=1):.3g} over seeds "
                   f"{POUR_SEEDS}" for key, values in table.items()]
        write_golden(out / "lammps_pour.csv",
                     common + [f"command: {c}" for c in commands] + [
                         "initial states (run in the repository root): build/release/fricdem_lammps_data "
                         "scenes/lammps/pour.yaml 0 OUT/pour_seedN.data generators.0.seed=N",
                         "case 3: a pour of 600 spheres settled (scenes/lammps/pour.yaml's lattice, seeds 1-3); "
                         "statistics of scripts/lammps/granular_stats.py"] + summary,
                     "seed,step,quantity,lammps", rows)
    if work_context:
        work_context.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
