"""Discharge of a flat-bottomed cylindrical silo through a central orifice:
the rate W against the orifice diameter D, fitted to the Beverloo law

    W = C rho_b sqrt(g) (D - k d)^(5/2)

(Beverloo, Leniger & van de Velde 1961, Chem. Eng. Sci. 15, 260-269; rho_b
the bulk density of the material at rest, d the grain diameter), with C and k
compared to the published ranges, C about 0.55-0.65 and k about 1.3-1.6
(k ~ 1.5 for most materials, C depending on the grains: the review of
Nedderman, Tuzun, Savage & Houlsby 1982, Chem. Eng. Sci. 37, 1597-1609).

Scenes scenes/validation/silo/: fill.yaml pours 6000 spheres (d = 4 mm +-
10%) into a silo 9 cm = 22.5 d wide onto a closed floor and lets them settle;
its final frame becomes packing.csv, from which discharge.yaml drains the same
bed through an orifice of D = 5, 6, 7, 8 and 9 d (the floor's inner_radius,
`--set`). An outlet 3 d below the floor removes the grains and writes the
removed mass (outlets.csv, every 2 ms). W is the slope of a straight line
through the removed mass against time over the same stretch of every run:
from the 100th grain out (and at least 0.15 s after opening: the start
transient) to the 650th (so every orifice is measured over the same drop of
the bed, about 1.2 d), well before the run ends; its uncertainty the standard
error of the rates of six equal blocks of that stretch. The fit is a weighted straight line through
W^(2/5) against D, W^(2/5) = a (D - k d), a = (C rho_b sqrt g)^(2/5).
Setup, compromises and results: docs/outlets.md, "Example: a silo".
"""
from __future__ import annotations

import math
import os
import time
from concurrent.futures import ThreadPoolExecutor

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.patches import Circle

from . import heap
from .common import SCENES, CaseResult, Context, finish_axes, read_csv, save_figure

TITLE = "Silo discharge: the Beverloo law for the flow rate through a flat-bottomed orifice"
ORDER = 75

FILL = SCENES / "silo" / "fill.yaml"
DISCHARGE = SCENES / "silo" / "discharge.yaml"
JOBS = int(os.environ.get("FRICDEM_VALIDATE_JOBS", "2"))

G = 9.81                # m/s^2
D_NOMINAL = 0.004       # m, the grains' mean diameter in the scenes (measured again from the packing)
SILO_RADIUS = 0.045     # m, the shell's radius in both scenes
ORIFICES = (5.0, 6.0, 7.0, 8.0, 9.0)   # D / d
# Simulated time of each run (s): the window must close (FIRST_GRAIN +
# WINDOW_GRAINS grains out, or 550 after t = T_START) before the run ends; from
# the rates measured (640, 1310, 2220, 3240, 4520 grains/s) that is at 1.07,
# 0.57, 0.40, 0.32, 0.27 s, and each duration leaves 12% or more to spare
# (W's noise is ~4%), no more: the runs are most of the case's cost.
DURATIONS = {5.0: 1.2, 6.0: 0.68, 7.0: 0.46, 8.0: 0.37, 9.0: 0.31}
SNAPSHOT_ORIFICE = 7.0  # its run also writes VTU snapshots, for the figure
SNAPSHOT_TIME = 0.2     # s

# s: the start transient. The grains over the hole fall as a plug first (a burst
# 0.04-0.08 s after opening, counted 3 d below), the rate dips while the arch
# over the orifice forms (0.08-0.12 s) and is steady from ~0.12 s on, for every
# orifice (rates in 40 ms bins of outlets.csv).
T_START = 0.15
FIRST_GRAIN = 100       # the window opens once this many grains are out (and after T_START)
WINDOW_GRAINS = 550     # ... and closes when this many more are out
BLOCKS = 6              # blocks of the window for the uncertainty of W

# Published ranges (see the module's docstring).
C_RANGE = (0.55, 0.65)
K_RANGE = (1.3, 1.6)


def run_discharge(ctx: Context, packing, ratio: float) -> dict:
    sets = {"bodies_file.path": str(packing), "bodies.floor.shape.inner_radius": ratio * D_NOMINAL / 2,
            "time.duration": DURATIONS[ratio]}
    if ratio == SNAPSHOT_ORIFICE:
        sets["output.vtu_interval"] = SNAPSHOT_TIME
    started = time.time()
    out = ctx.run_scene(DISCHARGE, f"D{ratio:g}d", sets)
    seconds = time.time() - started
    outlets = read_csv(out / "outlets.csv")
    return dict(ratio=ratio, out=out, seconds=seconds, t=outlets["time"], mass=outlets["total_removed_mass"],
                count=outlets["total_removed"])


def measure_rate(run: dict) -> dict:
    """W over the window [t_a, t_b] of the removed mass M(t): the least-squares
    slope, and its standard error from BLOCKS equal blocks (each block's rate
    is its mass over its time; the blocks are ~100 grains, longer than the
    flow's correlation time, so they scatter independently)."""
    t, mass, count = run["t"], run["mass"], run["count"]
    start = max(T_START, float(t[np.argmax(count >= FIRST_GRAIN)]))
    i_a = int(np.argmax(t >= start - 1e-9))
    reached = count >= count[i_a] + WINDOW_GRAINS
    complete = bool(reached.any())
    i_b = int(np.argmax(reached)) if complete else int(np.argmax(t >= 0.95 * t[-1]))
    window = slice(i_a, i_b + 1)
    tw, mw = t[window], mass[window]
    slope, intercept = np.polyfit(tw, mw, 1)
    edges = np.linspace(i_a, i_b, BLOCKS + 1).round().astype(int)
    rates = np.array([(mass[b] - mass[a]) / (t[b] - t[a]) for a, b in zip(edges[:-1], edges[1:])])
    error = float(np.std(rates, ddof=1) / math.sqrt(BLOCKS))
    half = (i_a + i_b) // 2
    first = (mass[half] - mass[i_a]) / (t[half] - t[i_a])
    second = (mass[i_b] - mass[half]) / (t[i_b] - t[half])
    return dict(W=float(slope), W_error=error, intercept=float(intercept), t_a=float(t[i_a]), t_b=float(t[i_b]),
                grains=int(count[i_b] - count[i_a]), complete=complete, first=float(first), second=float(second),
                block_error_half=error * math.sqrt(2.0), total=int(count[-1]))


def bulk_density(bodies: dict, d: float) -> dict:
    """rho_b of the settled bed: the mass of the grains whose centres lie in a
    cylinder about the axis, 2 d clear of the shell, the floor and the
    surface, over its volume (counting centres is unbiased for a uniform
    packing)."""
    x, y, z = bodies["x"], bodies["y"], bodies["z"]
    rho = np.hypot(x, y)
    top = float(np.percentile(z[rho < SILO_RADIUS - 2 * d], 98))  # the bed's surface (rough: a few grains stand up)
    radius = SILO_RADIUS - 2 * d
    low, high = 2 * d, top - 3 * d
    inside = (rho < radius) & (z > low) & (z < high)
    volume = math.pi * radius ** 2 * (high - low)
    solid = float(np.sum(4.0 / 3.0 * math.pi * bodies["radius"][inside] ** 3))
    return dict(rho_b=float(np.sum(bodies["mass"][inside]) / volume), packing=solid / volume, height=top,
                grains=int(inside.sum()))


def beverloo_fit(D: np.ndarray, W: np.ndarray, W_error: np.ndarray, rho_b: float, d: float) -> dict:
    """Weighted least squares of y = W^(2/5) = a D + b (sigma_y = 0.4 y
    sigma_W / W), C = a^(5/2) / (rho_b sqrt g), k = -b / (a d), errors by
    linear propagation of the covariance of (a, b), scaled by the reduced
    chi^2 when that exceeds 1 (scatter beyond the error bars widens them)."""
    y = W ** 0.4
    sigma = 0.4 * y * W_error / W
    weights = 1.0 / sigma ** 2
    A = np.vstack([D, np.ones_like(D)]).T
    normal = A.T @ (A * weights[:, None])
    covariance = np.linalg.inv(normal)
    a, b = covariance @ (A.T @ (weights * y))
    residual = y - (a * D + b)
    chi2 = float(np.sum(weights * residual ** 2))
    dof = len(D) - 2
    scale = max(1.0, chi2 / dof) if dof > 0 else 1.0
    covariance = covariance * scale
    C = a ** 2.5 / (rho_b * math.sqrt(G))
    k = -b / (a * d)
    C_error = 2.5 * C * math.sqrt(covariance[0, 0]) / a
    jacobian = np.array([b / (a * a * d), -1.0 / (a * d)])
    k_error = float(math.sqrt(jacobian @ covariance @ jacobian))
    r2 = 1.0 - float(np.sum(residual ** 2)) / float(np.sum((y - y.mean()) ** 2))
    return dict(a=float(a), b=float(b), C=float(C), k=float(k), C_error=float(C_error), k_error=k_error, r2=r2,
                chi2=chi2, dof=dof, y=y, sigma=sigma)


def run(ctx: Context) -> CaseResult:
    result = CaseResult("silo", TITLE, __doc__.split("\n\n", 1)[1])
    started = time.time()
    fill = ctx.run_scene(FILL, "fill")
    fill_seconds = time.time() - started
    # The settled frame is the last (and only non-empty) time of bodies.csv; the
    # file loads as it is (time, step and body columns are ignored).
    packing = fill / "bodies.csv"
    bodies = read_csv(packing)
    settled_at = float(bodies["time"][-1])
    final = bodies["time"] == settled_at
    bodies = {key: values[final] for key, values in bodies.items()}
    d = 2.0 * float(np.mean(bodies["radius"]))
    bed = bulk_density(bodies, d)
    rho_b = bed["rho_b"]

    with ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
        runs = list(pool.map(lambda ratio: run_discharge(ctx, packing.resolve(), ratio), ORIFICES))
    for r in runs:
        r.update(measure_rate(r))
    D = np.array([r["ratio"] * D_NOMINAL for r in runs])
    W = np.array([r["W"] for r in runs])
    W_error = np.array([r["W_error"] for r in runs])
    fit = beverloo_fit(D, W, W_error, rho_b, d)

    result.notes.append(
        f"Fill: {len(bodies['x'])} grains, mean diameter d = {1e3 * d:.4f} mm, settled at t = {settled_at:.3f} s "
        f"({fill_seconds:.0f} s wall); bed {bed['height'] / d:.1f} d deep in a silo {2 * SILO_RADIUS / d:.1f} d wide; "
        f"bulk density rho_b = {rho_b:.0f} kg/m^3 (packing fraction {bed['packing']:.3f}, from {bed['grains']} "
        f"grains in the core).")
    for r in runs:
        result.notes.append(
            f"D = {r['ratio']:g} d = {1e3 * r['ratio'] * D_NOMINAL:.1f} mm: W = {r['W']:.4f} +- {r['W_error']:.4f} "
            f"kg/s over t = {r['t_a']:.3f}-{r['t_b']:.3f} s ({r['grains']} grains; first half "
            f"{r['first']:.4f}, second half {r['second']:.4f} kg/s); {r['total']} grains out in "
            f"{DURATIONS[r['ratio']]:g} s; run {r['seconds']:.0f} s wall ({JOBS} at a time).")
    result.notes.append(
        f"Fit of W^(2/5) = a (D - k d): C = {fit['C']:.3f} +- {fit['C_error']:.3f}, k = {fit['k']:.2f} +- "
        f"{fit['k_error']:.2f}, R^2 = {fit['r2']:.5f}, chi^2 = {fit['chi2']:.2f} for {fit['dof']} degrees of "
        f"freedom (errors scaled by the reduced chi^2 when above 1).")

    result.check("bulk packing fraction of the settled bed", 0.595, bed["packing"], 0.045,
                 derivation="a poured, settled bed of frictional spheres packs between random loose (~0.55) and "
                 "random close packing (~0.64); the band [0.55, 0.64] rejects a bed that did not settle or "
                 "overlaps grossly. rho_b for the fit is measured, not assumed.", basis="bulk density")
    result.check("fill settled (kinetic energy below 1e-7 J) before its time cap", 0.0,
                 max(0.0, settled_at - (0.65 + 1.0 - 1e-6)), 0.0, "s",
                 derivation="fill.yaml's settle stage ends at the first step with kinetic energy below 1e-7 J, "
                 "or at its 1 s cap (t = 1.65 s); measured: how far past the cap it ran, 0 when it settled.",
                 basis="settled")
    for r in runs:
        result.check(f"D = {r['ratio']:g} d: {WINDOW_GRAINS} grains out in the measured window", WINDOW_GRAINS,
                     r["grains"], WINDOW_GRAINS * 0.05 if r["complete"] else 0.0,
                     derivation=f"the run must be long enough to measure every orifice over the same "
                     f"{WINDOW_GRAINS} grains (it did not clog: an arch across the orifice stops the count); "
                     "5% for the rows of outlets.csv (2 ms) that the window's end falls between.",
                     basis="no clog")
    for r in runs:
        spread = abs(r["first"] - r["second"])
        result.check(f"D = {r['ratio']:g} d: steady flow, rate of the window's first half minus its second", 0.0,
                     spread, 3.0 * r["block_error_half"], "kg/s",
                     derivation="the Beverloo rate is a steady rate; the halves' rates may differ by their noise: "
                     "3 sigma, with sigma = sqrt(2) x the block standard error of W (each half has half the "
                     "blocks), so a drift (the bed running low, a start transient left in) shows.",
                     basis="steady")
    rises = np.diff(W)
    result.check("W rises with D: orifice pairs where the larger one drains slower", 0, int(np.sum(rises <= 0)), 0,
                 derivation="W grows as (D - k d)^(5/2) in every model of orifice flow; measured: how many of the "
                 "4 neighbouring pairs of orifices fall, 0 passes (the smallest step, 5 d to 6 d, is ~90% of W, "
                 "far beyond the noise of a few %).", basis="monotone")
    result.check("R^2 of the straight line W^(2/5) against D", 1.0, fit["r2"], 0.01,
                 derivation="W^(2/5) is linear in D if the 5/2 power holds; with W known to a few % (W^(2/5) to "
                 "~1.5%) over a range of y of a factor ~2, noise alone leaves R^2 above 0.99.",
                 basis="5/2 power")
    C_mid, C_half = sum(C_RANGE) / 2, (C_RANGE[1] - C_RANGE[0]) / 2
    result.check("Beverloo C in the published range", C_mid, fit["C"], C_half + 2.0 * fit["C_error"],
                 derivation=f"C = {C_RANGE[0]}-{C_RANGE[1]} (Nedderman et al. 1982's review of flat-bottomed "
                 "orifices; Beverloo et al. 1961): the band's half-width plus twice the fit's standard error of C.",
                 basis="C")
    k_mid, k_half = sum(K_RANGE) / 2, (K_RANGE[1] - K_RANGE[0]) / 2
    result.check("Beverloo k in the published range", k_mid, fit["k"], k_half + 2.0 * fit["k_error"],
                 derivation=f"k = {K_RANGE[0]}-{K_RANGE[1]} (k ~ 1.5 for spheres and most grains: Beverloo et al. "
                 "1961, Nedderman et al. 1982): the band's half-width plus twice the fit's standard error of k "
                 "(C and k are correlated: a larger k comes with a larger C).", basis="k")

    figures(ctx, result, runs, fit, D, W, W_error, rho_b, d, bodies)
    return result


def figures(ctx, result, runs, fit, D, W, W_error, rho_b, d, bodies):
    colours = plt.cm.viridis(np.linspace(0.0, 0.9, len(runs)))
    figure, ax = plt.subplots(figsize=(7, 4.8))
    for r, colour in zip(runs, colours):
        ax.plot(r["t"], 1e3 * r["mass"], color=colour, lw=1.2, label=f"D = {r['ratio']:g} d: "
                f"W = {1e3 * r['W']:.0f} +- {1e3 * r['W_error']:.0f} g/s")
        tw = np.array([r["t_a"], r["t_b"]])
        ax.plot(tw, 1e3 * (r["W"] * tw + r["intercept"]), color="k", lw=2.5, alpha=0.35)
    ax.plot([], [], color="k", lw=2.5, alpha=0.35, label="fitted over the window")
    ax.set_xlabel("time after opening [s]")
    ax.set_ylabel("removed mass [g]")
    ax.set_title(f"Silo {2 * SILO_RADIUS / d:.1f} d wide, d = {1e3 * d:.1f} mm: mass through the orifice")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(ctx, result, figure, "removed_mass",
                "Mass removed by the outlet below the orifice against time, one curve per orifice; "
                f"the grey segments are the straight lines fitted from the {FIRST_GRAIN}th grain out "
                f"(and t >= {T_START} s) over the next {WINDOW_GRAINS}: their slopes are W.", dpi=100)

    figure, ax = plt.subplots(figsize=(7, 4.8))
    Dd = np.linspace(0.0, 10.0, 200)
    scale = (rho_b * math.sqrt(G)) ** 0.4
    low = (C_RANGE[0] ** 0.4) * scale * np.clip(Dd - K_RANGE[1], 0.0, None) * d
    high = (C_RANGE[1] ** 0.4) * scale * np.clip(Dd - K_RANGE[0], 0.0, None) * d
    ax.fill_between(Dd, low, high, color="tab:orange", alpha=0.25,
                    label=f"published: C {C_RANGE[0]}-{C_RANGE[1]}, k {K_RANGE[0]}-{K_RANGE[1]}")
    ax.errorbar(D / d, fit["y"], yerr=fit["sigma"], fmt="o", color="tab:blue", capsize=3, label="fricdem")
    line = fit["a"] * Dd * d + fit["b"]
    ax.plot(Dd, np.where(line > 0, line, np.nan), color="tab:blue", lw=1.2,
            label=f"fit: C = {fit['C']:.3f} +- {fit['C_error']:.3f}, k = {fit['k']:.2f} +- {fit['k_error']:.2f}, "
            f"R^2 = {fit['r2']:.4f}")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, None)
    finish_axes(ax, "orifice diameter D / d", "W^(2/5) [(kg/s)^(2/5)]",
                "Beverloo: W^(2/5) = (C rho_b sqrt(g))^(2/5) (D - k d)", grid=True,
                legend={"fontsize": 8, "loc": "upper left"})
    save_figure(ctx, result, figure, "beverloo",
                "W^(2/5) against the orifice diameter with the weighted straight-line fit (its "
                "intercept with the axis is k d) and the band of the published C and k with this "
                "bed's measured rho_b; error bars: one standard error.", dpi=100)

    snapshot_run = next(r for r in runs if r["ratio"] == SNAPSHOT_ORIFICE)
    frames = [("settled on the closed floor", bodies["x"], bodies["y"], bodies["z"], bodies["radius"],
               np.sqrt(bodies["vx"] ** 2 + bodies["vy"] ** 2 + bodies["vz"] ** 2), None)]
    try:
        snapshot = heap.read_vtu_bodies(snapshot_path(snapshot_run["out"], SNAPSHOT_TIME))
        speed = np.linalg.norm(snapshot["velocity"], axis=1) if "velocity" in snapshot else np.zeros_like(
            snapshot["x"])
        frames.append((f"D = {SNAPSHOT_ORIFICE:g} d, t = {SNAPSHOT_TIME:g} s after opening", snapshot["x"],
                       snapshot["y"], snapshot["z"], snapshot["radius"], speed, SNAPSHOT_ORIFICE * d / 2))
    except (OSError, StopIteration, KeyError) as error:
        result.notes.append(f"snapshot figure: no discharge snapshot ({error})")
    figure, axes = plt.subplots(1, len(frames), figsize=(5.2 * len(frames), 4.6), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, (title, x, y, z, radius, speed, hole) in zip(axes, frames):
        cut = np.abs(y) < radius  # the grains the plane y = 0 cuts, drawn as their cross-sections
        section = np.sqrt(np.maximum(radius[cut] ** 2 - y[cut] ** 2, 0.0))
        patches = [Circle((100 * a, 100 * b), 100 * c) for a, b, c in zip(x[cut], z[cut], section)]
        collection = PatchCollection(patches, cmap="magma", linewidths=0)
        collection.set_array(speed[cut])
        collection.set_clim(0.0, 0.6)
        ax.add_collection(collection)
        wall = dict(color="0.3", lw=2)
        ax.plot([-100 * SILO_RADIUS] * 2, [-0.2, 13.0], **wall)
        ax.plot([100 * SILO_RADIUS] * 2, [-0.2, 13.0], **wall)
        inner = 0.0 if hole is None else 100 * hole
        ax.plot([-100 * SILO_RADIUS, -inner], [0, 0], **wall)
        ax.plot([inner, 100 * SILO_RADIUS], [0, 0], **wall)
        ax.axhline(-1.2, color="tab:red", ls=":", lw=1)
        ax.set_xlim(-100 * SILO_RADIUS - 0.5, 100 * SILO_RADIUS + 0.5)
        ax.set_ylim(-3, 8)
        ax.set_aspect("equal")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("x [cm]")
    axes[0].set_ylabel("z [cm]")
    figure.colorbar(collection, ax=axes, label="speed [m/s]", shrink=0.8)
    save_figure(ctx, result, figure, "snapshot",
                "Vertical section through the silo's axis (grains cut by the plane y = 0, "
                "coloured by speed): the settled bed, and the flow through the orifice; walls grey, "
                "the outlet's plane dotted red.", dpi=100, layout=False, bbox_inches="tight")


def snapshot_path(out, at: float) -> str:
    """The bodies snapshot of OUT closest to time AT, from bodies.pvd."""
    import xml.etree.ElementTree as ElementTree

    datasets = ElementTree.parse(out / "bodies.pvd").getroot().findall("Collection/DataSet")
    best = min(datasets, key=lambda dataset: abs(float(dataset.get("timestep")) - at))
    return str(out / best.get("file"))
