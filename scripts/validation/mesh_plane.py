"""Mesh walls against analytic planes: a sphere rolling over a triangulated
floor moves as on a plane (issue 12).

Scenes scenes/validation/mesh_plane/: the floor plane.stl (make_plane_stl.py:
the square [-0.2, 0.2]^2 m of the plane z = 0 cut into 20 x 20 cells of two
triangles, every inner vertex jittered in the plane, 800 triangles) and an
analytic plane, each under the same glass sphere (r = 0.01 m, m = 0.010472 kg,
hooke k_n = 1e4 N/m, dsds slide k_t = 2/7 k_n, mu = 0.5):

  - flat_mesh.yaml / flat_plane.yaml: thrown at (0.6, 0.25) m/s without spin,
    the ball slides for 2 v / (7 mu g) = 38 ms, then rolls with a little
    rolling resistance (dsds roll, mu_roll = 0.02) across some 25 triangle
    edges in 0.5 s;
  - incline_mesh.yaml / incline_plane.yaml: the floor turned 20 degrees about
    x, the ball let go at rest rolls down without slip (mu = 0.5 > 2/7 tan 20
    deg = 0.104) for 0.35 s.

What is measured (bodies.csv and contacts.csv every 1e-4 s): the normal
force, the friction force and the velocity on the mesh against the plane at
every sample; the contacts on the mesh per sample and their identity; the
triangle under the contact point (from the STL) and the times it changes (the
hand-overs, marked in the figures); the acceleration down the incline (a
least-squares line through the velocity over 0.05-0.35 s) against the closed
form. tests/test_mesh_contact.c checks the same for every friction family.
"""
from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np
import matplotlib.pyplot as plt

from .common import ROOT, CaseResult, Context, body_rows, finish_axes, read_csv, save_figure

TITLE = "Mesh walls against analytic planes: a sphere rolling over a triangulated floor, flat and inclined"
ORDER = 50

SCENES = ROOT / "scenes" / "validation" / "mesh_plane"

# The scenes' values (kept in step with scenes/validation/mesh_plane/*.yaml).
G = 9.81
RADIUS = 0.01
MASS = 2500.0 * 4.0 / 3.0 * math.pi * RADIUS ** 3
K_N = 1.0e4
THETA = math.radians(20.0)
SPEED = math.hypot(0.6, 0.25)  # the flat run's initial speed, m/s
FIT_FROM = 0.05  # s: the incline's fit starts when the spring's loading transient has died (e^-30 left)


def read_stl_triangles(path: Path) -> np.ndarray:
    """The triangles of a binary STL as an array (n, 3, 3) of doubles."""
    data = path.read_bytes()
    count = struct.unpack_from("<I", data, 80)[0]
    records = np.frombuffer(data, dtype=np.dtype([("normal", "<f4", 3), ("vertices", "<f4", (3, 3)),
                                                 ("attribute", "<u2")]), count=count, offset=84)
    return records["vertices"].astype(float)


def triangle_under(points: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """Index of the triangle whose closed area holds each (x, y) point (the
    lowest index on a shared edge, as the engine breaks ties), -1 if none."""
    a, b, c = triangles[:, 0, :2], triangles[:, 1, :2], triangles[:, 2, :2]
    v0, v1 = b - a, c - a
    d = points[:, None, :] - a[None, :, :]
    det = v0[:, 0] * v1[:, 1] - v0[:, 1] * v1[:, 0]
    s = (d[..., 0] * v1[:, 1] - d[..., 1] * v1[:, 0]) / det
    t = (v0[:, 0] * d[..., 1] - v0[:, 1] * d[..., 0]) / det
    inside = (s >= -1e-12) & (t >= -1e-12) & (s + t <= 1.0 + 1e-12)
    index = np.argmax(inside, axis=1)
    return np.where(inside.any(axis=1), index, -1)


def hand_overs(time: np.ndarray, under: np.ndarray) -> np.ndarray:
    """Times (midway between samples) at which the triangle under the contact changed."""
    changed = np.nonzero(under[1:] != under[:-1])[0]
    return 0.5 * (time[changed] + time[changed + 1])


def run_pair(ctx: Context, kind: str) -> dict:
    """Runs <kind>_plane and <kind>_mesh; their ball rows and contact rows."""
    runs = {}
    for floor in ("plane", "mesh"):
        out = ctx.run_scene(SCENES / f"{kind}_{floor}.yaml", f"{kind}_{floor}")
        contacts = read_csv(out / "contacts.csv")
        runs[floor] = dict(ball=body_rows(read_csv(out / "bodies.csv"), "ball"), contacts=contacts)
    return runs


def per_sample_contacts(contacts: dict, time: np.ndarray) -> np.ndarray:
    """How many contacts each sample time has."""
    return np.array([np.count_nonzero(contacts["time"] == t) for t in time])


def vec(table: dict, *names: str) -> np.ndarray:
    return np.stack([table[n] for n in names], axis=1)


def floor_frame(points: np.ndarray, theta: float) -> np.ndarray:
    """World points into the frame of the floor turned by theta about x."""
    c, s = math.cos(theta), math.sin(theta)
    return np.stack([points[:, 0], c * points[:, 1] + s * points[:, 2], -s * points[:, 1] + c * points[:, 2]],
                    axis=1)


def compare(result: CaseResult, runs: dict, label: str, force_scale: float, speed_scale: float,
            tolerance: float, derivation: str) -> dict:
    """Checks mesh against plane sample by sample: normal force, friction force, velocity."""
    plane, mesh = runs["plane"], runs["mesh"]
    time = mesh["ball"]["time"]
    counts = per_sample_contacts(mesh["contacts"], time)
    result.check(f"{label}: contacts per sample on the mesh (fewest)", 1, counts.min(), 0,
                 derivation="one patch (a flat mesh), one wall body: exactly one contact at every sample, on "
                            "faces, edges and vertices alike; never none, never two",
                 basis=f"{label} contacts")
    result.check(f"{label}: contacts per sample on the mesh (most)", 1, counts.max(), 0, basis=f"{label} contacts")
    result.check(f"{label}: contact identities on the mesh", 1, len(np.unique(mesh["contacts"]["id"])), 0,
                 derivation="the contact (and its spring) is kept from triangle to triangle: one identity for the "
                            "whole run", basis=f"{label} contacts")
    if not np.array_equal(time, plane["ball"]["time"]) or not np.array_equal(time, mesh["contacts"]["time"]) \
            or not np.array_equal(time, plane["contacts"]["time"]):
        raise RuntimeError(f"{label}: the runs' samples differ, or a sample has no contact or several")
    d_normal = np.abs(mesh["contacts"]["normal_force"] - plane["contacts"]["normal_force"]) / force_scale
    d_slide = np.linalg.norm(vec(mesh["contacts"], "fsx", "fsy", "fsz") - vec(plane["contacts"], "fsx", "fsy", "fsz"),
                             axis=1) / force_scale
    d_velocity = np.linalg.norm(vec(mesh["ball"], "vx", "vy", "vz") - vec(plane["ball"], "vx", "vy", "vz"),
                                axis=1) / speed_scale
    result.check(f"{label}: max |N_mesh - N_plane| / scale", 0.0, d_normal.max(), tolerance, relative=False,
                 derivation=derivation, basis=f"{label} mesh vs plane")
    result.check(f"{label}: max |F_t,mesh - F_t,plane| / scale", 0.0, d_slide.max(), tolerance, relative=False,
                 basis=f"{label} mesh vs plane")
    result.check(f"{label}: max |v_mesh - v_plane| / speed", 0.0, d_velocity.max(), tolerance, relative=False,
                 basis=f"{label} mesh vs plane")
    return dict(time=time, d_normal=d_normal, d_slide=d_slide, d_velocity=d_velocity)


def mark_hand_overs(axis, times):
    for k, t in enumerate(times):
        axis.axvline(t, color="0.75", lw=0.6, zorder=0, label="triangle hand-over" if k == 0 else None)


def draw_differences(axis, diff, title):
    floor = 1e-18
    for key, label, color in (("d_normal", "|N_mesh - N_plane| / scale", "C0"),
                              ("d_slide", "|F_t,mesh - F_t,plane| / scale", "C1"),
                              ("d_velocity", "|v_mesh - v_plane| / speed", "C2")):
        axis.semilogy(diff["time"], np.maximum(diff[key], floor), color=color, lw=1.0, label=label)
    axis.set_ylim(floor / 3, 1e-6)
    axis.axhline(floor, color="k", lw=0.5, ls=":")
    axis.text(0.01, floor * 1.6, "identical to the bit (drawn at 1e-18)", transform=axis.get_yaxis_transform(),
              fontsize=7)
    finish_axes(axis, "time (s)", title=title, title_size=9, legend={"fontsize": 7, "loc": "upper right"})


def save_pair_figure(ctx, result, figure, axes, diff, name, caption):
    """Ends a 2 x 2 figure of the mesh run against the plane run (`name`:
    flat or incline): the lower right panel shows their differences, every
    sample; then saves it."""
    draw_differences(axes[1, 1], diff, f"{name}: mesh minus plane, every sample")
    save_figure(ctx, result, figure, name, caption)


def run(ctx: Context) -> CaseResult:
    result = CaseResult("mesh_plane", TITLE,
                        "A sphere on a triangulated floor (800 jittered triangles of a plane, an STL) against the "
                        "same sphere on an analytic plane, flat (thrown: slides, then rolls across ~25 edges) and "
                        "turned 20 degrees (let go: rolls down): forces and velocities sample by sample, one contact "
                        "with one identity throughout, and the incline's acceleration against the closed form "
                        "(issue 12; tests/test_mesh_contact.c checks every friction family).")
    triangles = read_stl_triangles(SCENES / "plane.stl")
    weight = MASS * G

    # ---------------------------------------------------------------- flat
    flat = run_pair(ctx, "flat")
    flat_diff = compare(
        result, flat, "flat", weight, SPEED, 1e-12,
        "0: on a mesh lying in its frame's z = 0 plane the closest point is the centre's projection, the normal "
        "(0, 0, 1) exactly and the gap the centre's height exactly, so the laws see the plane's numbers to the bit "
        "(tests/test_mesh_contact.c); the STL's float32 coordinates keep z = 0. Tolerance 1e-12 of the weight "
        "(forces) and of the initial speed: an ulp of the centre's height (1.7e-18 m) would change the 1e-5 m "
        "overlap by 2e-13 of itself, and a contact placed on a neighbouring triangle's edge by round-off would "
        "tilt the normal by 1e-10 m / 1e-2 m = 1e-8")
    time = flat_diff["time"]
    contact_flat = vec(flat["mesh"]["contacts"], "px", "py")
    under_flat = triangle_under(contact_flat, triangles)
    if (under_flat < 0).any():
        raise RuntimeError("flat: the contact point left the floor")
    flat_hand_overs = hand_overs(time, under_flat)
    result.notes.append(f"flat: {len(flat_hand_overs)} triangle hand-overs in {time[-1]:.2f} s "
                        f"({len(np.unique(under_flat))} triangles visited)")

    # ---------------------------------------------------------------- incline
    incline = run_pair(ctx, "incline")
    incline_diff = compare(
        result, incline, "incline", weight * math.cos(THETA), 0.25 * G * math.sin(THETA), 1e-9,
        "0 up to round-off: the mesh takes the centre into its turned frame by one more rotation than the plane, "
        "which moves it by an ulp of its coordinates (0.1 m: 1.4e-17 m) and the 9.7e-6 m overlap by 1.4e-12 of "
        "itself; the spring sums such differences over the 3.5e4 steps. Tolerance 1e-9 (of m g cos theta for "
        "forces, of the final speed for velocities): 500 times the round-off, a thousand times below what a "
        "misplaced contact point would do")
    contact_incline = floor_frame(vec(incline["mesh"]["contacts"], "px", "py", "pz"), THETA)[:, :2]
    under_incline = triangle_under(contact_incline, triangles)
    incline_time = incline_diff["time"]
    incline_hand_overs = hand_overs(incline_time, under_incline)
    result.notes.append(f"incline: {len(incline_hand_overs)} triangle hand-overs in {incline_time[-1]:.2f} s")

    downhill = np.array([0.0, -math.cos(THETA), -math.sin(THETA)])
    overlap = MASS * G * math.cos(THETA) / K_N
    arm = RADIUS - 0.5 * overlap
    rolling = G * math.sin(THETA) / (1.0 + 0.4 * (RADIUS / arm) ** 2)
    rigid = 5.0 / 7.0 * G * math.sin(THETA)
    fits = {}
    for floor in ("mesh", "plane"):
        ball = incline[floor]["ball"]
        v = vec(ball, "vx", "vy", "vz") @ downhill
        window = ball["time"] >= FIT_FROM
        slope, intercept = np.polyfit(ball["time"][window], v[window], 1)
        fits[floor] = (slope, intercept, v)
        result.check(f"incline, {floor}: acceleration down the slope", rolling, slope, 1e-6, unit="m/s^2",
                     relative=True,
                     derivation="rolling without slip with the contact point at the middle of the overlap, "
                                "a = r - delta/2 from the centre (delta = m g cos theta / k_n): x'' = g sin theta / "
                                "(1 + 2/5 (r/a)^2). Tolerance 1e-6: the acceleration is constant once the tangential "
                                "spring's loading transient has died (fit from 0.05 s, e^-30 of it left), and the "
                                "stepper integrates a constant acceleration exactly; what is left is round-off and "
                                "the normal spring's residual oscillation (tests/test_mesh_contact.c finds 1e-10)",
                     basis="incline acceleration")
    result.check("incline, mesh: acceleration against 5/7 g sin theta (rigid contact)", rigid, fits["mesh"][0],
                 4e-4, unit="m/s^2", relative=True,
                 derivation="the rigid-contact closed form; the contact point's depth lowers it by 2/7 delta / r "
                            "= 2.8e-4 (first order of the line above): tolerance 4e-4",
                 basis="incline vs 5/7 g sin theta")

    # ---------------------------------------------------------------- figures
    def draw_normal_force(axis, runs, t, scale, marks, title):
        mark_hand_overs(axis, marks)
        for floor, style in (("plane", dict(color="0.3", lw=3.0, alpha=0.5)), ("mesh", dict(color="C0", lw=0.8))):
            excess = (runs[floor]["contacts"]["normal_force"] / scale - 1.0) * 1e12
            axis.plot(t, excess, label=floor, **style)
        axis.set_ylim(-10, 10)
        finish_axes(axis, "time (s)", "(N / static load - 1) x 1e12", title, title_size=9,
                    legend={"fontsize": 7, "loc": "upper right"})

    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    ax = axes[0, 0]
    low, high = contact_flat.min(axis=0) - 0.03, contact_flat.max(axis=0) + 0.03
    for t in triangles:
        if (t[:, :2] >= low - 0.03).all() and (t[:, :2] <= high + 0.03).all():
            ax.fill(t[:, 0], t[:, 1], facecolor="none", edgecolor="0.75", lw=0.5)
    ax.plot(contact_flat[:, 0], contact_flat[:, 1], color="C3", lw=1.2, label="contact point on the mesh")
    changed = np.nonzero(under_flat[1:] != under_flat[:-1])[0] + 1
    ax.plot(contact_flat[changed, 0], contact_flat[changed, 1], "k.", ms=4, label="hand-overs")
    ax.set_aspect("equal")
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    finish_axes(ax, "x (m)", "y (m)", "flat: the path over plane.stl (800 jittered triangles; part shown)",
                title_size=9, legend={"fontsize": 7, "loc": "upper left"})

    draw_normal_force(axes[0, 1], flat, time, weight, flat_hand_overs,
                      "flat: normal force minus m g, x 1e12 (no step at any hand-over)")

    ax = axes[1, 0]
    mark_hand_overs(ax, flat_hand_overs)
    for floor, style in (("plane", dict(color="0.3", lw=3.0, alpha=0.5)), ("mesh", dict(lw=1.0))):
        ball = flat[floor]["ball"]
        speed = np.linalg.norm(vec(ball, "vx", "vy"), axis=1)
        spin = RADIUS * np.linalg.norm(vec(ball, "wx", "wy"), axis=1)
        ax.plot(ball["time"], speed, label=f"|v|, {floor}", **({"color": "C0"} | style if floor == "mesh" else style))
        ax.plot(ball["time"], spin, ls="--", label=f"r |omega|, {floor}",
                **({"color": "C1"} | style if floor == "mesh" else style))
    ax.set_ylim(0, 0.8)
    finish_axes(ax, "time (s)", "m/s", "flat: speed and spin (slip ends at 38 ms, then rolling with resistance)",
                title_size=9, legend={"fontsize": 7, "loc": "upper right", "ncol": 2})

    save_pair_figure(ctx, result, fig, axes, flat_diff, "flat",
                     "A sphere thrown over a triangulated floor (mesh) and over an analytic plane: "
                     "path over the triangles, normal force, speed and spin, and their differences "
                     "(none: the runs are identical to the bit), with the times the contact passes "
                     "from one triangle to the next (grey lines).")

    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    ax = axes[0, 0]
    mark_hand_overs(ax, incline_hand_overs)
    for floor, style in (("plane", dict(color="0.3", lw=3.0, alpha=0.5)), ("mesh", dict(color="C0", lw=1.0))):
        ax.plot(incline[floor]["ball"]["time"], fits[floor][2], label=f"v down the slope, {floor}", **style)
    ax.plot(incline_time, fits["mesh"][1] + rolling * incline_time, color="k", ls=":", lw=1.0,
            label=f"closed form, slope {rolling:.5f} m/s^2")
    finish_axes(ax, "time (s)", "m/s", "incline 20 deg: velocity (rolling without slip)", title_size=9,
                legend={"fontsize": 7, "loc": "upper left"})

    ax = axes[0, 1]
    mark_hand_overs(ax, incline_hand_overs)
    peak = 0.0
    for floor, style in (("plane", dict(color="0.3", lw=3.0, alpha=0.5)), ("mesh", dict(color="C0", lw=1.0))):
        residual = fits[floor][2] - (fits[floor][1] + rolling * incline[floor]["ball"]["time"])
        ax.plot(incline[floor]["ball"]["time"], residual * 1e6, label=floor, **style)
        peak = max(peak, float(np.max(np.abs(residual))) * 1e6) if floor == "mesh" else 0.0
    ax.axvline(FIT_FROM, color="k", lw=0.6, ls="--", label="fit from here")
    ax.set_ylim(-0.1 * peak, 1.1 * peak)
    finish_axes(ax, "time (s)", "v - (v0 + a t), um/s",
                "incline: velocity minus the closed-form line (the spring's loading transient, then flat)",
                title_size=9, legend={"fontsize": 7, "loc": "lower right"})

    draw_normal_force(axes[1, 0], incline, incline_time, weight * math.cos(THETA), incline_hand_overs,
                      "incline: normal force minus m g cos theta, x 1e12 (round-off of the turned frame)")
    save_pair_figure(ctx, result, fig, axes, incline_diff, "incline",
                     "A sphere rolling down a triangulated floor turned 20 degrees (mesh) and down an "
                     "analytic plane turned alike: velocity and its departure from the closed form, "
                     "normal force, and the differences of the two runs (round-off), with the triangle "
                     "hand-overs (grey lines).")
    return result
