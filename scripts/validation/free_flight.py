"""Free flight and ballistic motion: bodies without contacts.

Scene scenes/validation/free_flight.yaml. Checks the integrators against what
can be derived exactly:
- symplectic Euler (v1 = v0 + dt g, x1 = x0 + dt v1) has the closed form
  x_n = x0 + n dt v0 + dt^2 g n (n + 1) / 2, v_n = v0 + n dt g, which the run
  must reproduce to round-off; it differs from the continuous parabola by
  exactly g dt t_n / 2 (first order in dt: half the step, half the error);
- velocity Verlet is exact for a constant acceleration (to round-off);
- a torque-free sphere keeps its angular velocity and turns as exp(omega t);
- a torque-free tri-axial ellipsoid spun near its intermediate axis tumbles,
  but its world-frame angular momentum is conserved exactly by the integrator
  (a composition of exact rotor flows).
"""
from __future__ import annotations

import numpy as np
import matplotlib.pyplot as plt

from .common import CaseResult, Context, body_rows, finish_axes, read_csv, roundoff_tolerance, save_figure

TITLE = "Free flight and ballistic motion"
ORDER = 10

SCENE = "free_flight.yaml"
G = np.array([0.0, 0.0, -9.81])
X0 = np.array([0.0, 0.0, 1.0])
V0 = np.array([3.0, -1.5, 8.0])
OMEGA_SPINNER = np.array([5.0, -3.0, 20.0])
SEMI_AXES = np.array([0.3, 0.2, 0.1])


def vectors(rows, *names):
    return np.column_stack([rows[n] for n in names])


def quat_rotate(q, v):
    """Rotates the rows of v by the rows of the unit quaternions q (w, x, y, z)."""
    w = q[:, :1]
    u = q[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_from_rotation_vector(phi):
    angle = np.linalg.norm(phi, axis=1, keepdims=True)
    half = 0.5 * angle
    s = np.where(angle > 0, np.sin(half) / np.where(angle > 0, angle, 1.0), 0.5)
    return np.hstack([np.cos(half), s * phi])


def quat_angle_between(a, b):
    """Rotation angle of a b^-1 (rad), insensitive to the sign of either."""
    d = quat_mul(a, quat_conj(b))
    return 2.0 * np.arctan2(np.linalg.norm(d[:, 1:], axis=1), np.abs(d[:, 0]))


def quat_conj(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def quat_mul(a, b):
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.column_stack([aw * bw - ax * bx - ay * by - az * bz,
                            aw * bx + ax * bw + ay * bz - az * by,
                            aw * by - ax * bz + ay * bw + az * bx,
                            aw * bz + ax * by - ay * bx + az * bw])


def run(ctx: Context) -> CaseResult:
    result = CaseResult("free_flight", TITLE, __doc__.split("\n\n", 1)[1])
    dt = 1e-3
    runs = {
        "euler": ctx.run_scene(SCENE, "symplectic_euler"),
        "euler_half": ctx.run_scene(SCENE, "symplectic_euler_half_step", {"time.step": dt / 2}),
        "verlet": ctx.run_scene(SCENE, "velocity_verlet", {"time.integrator": "velocity_verlet"}),
    }
    bodies = {key: read_csv(out / "bodies.csv") for key, out in runs.items()}

    # ---- thrown sphere, symplectic Euler: the discrete closed form
    thrown = body_rows(bodies["euler"], "thrown")
    n = thrown["step"][:, None]
    x = vectors(thrown, "x", "y", "z")
    v = vectors(thrown, "vx", "vy", "vz")
    steps = int(n[-1, 0])
    x_discrete = X0 + n * dt * V0 + dt * dt * G * n * (n + 1) / 2
    v_discrete = V0 + n * dt * G
    scale_x = np.abs(x).max()
    scale_v = np.abs(v).max()
    result.check("thrown, symplectic Euler: max |x_n - closed form|", 0.0, np.abs(x - x_discrete).max(),
                 roundoff_tolerance(steps, scale_x), "m",
                 derivation="expected 0: the recursion v_n = v_(n-1) + dt g, x_n = x_(n-1) + dt v_n sums to "
                 "x_n = x0 + n dt v0 + dt^2 g n(n+1)/2 and v_n = v0 + n dt g exactly; tolerance 10 N eps max|x| "
                 "(N steps, each rounding once at the size of the value, safety factor 10).")
    result.check("thrown, symplectic Euler: max |v_n - closed form|", 0.0, np.abs(v - v_discrete).max(),
                 roundoff_tolerance(steps, scale_v), "m/s",
                 derivation="expected 0 (same closed form); tolerance 10 N eps max|v|.")

    # ---- against the continuous parabola: O(dt) error, exactly g dt t / 2
    def parabola_error(table, step):
        rows = body_rows(table, "thrown")
        k = rows["step"][:, None]
        t = k * step
        exact = X0 + V0 * t + 0.5 * G * t * t
        return t[:, 0], vectors(rows, "x", "y", "z") - exact

    t_full, e_full = parabola_error(bodies["euler"], dt)
    t_half, e_half = parabola_error(bodies["euler_half"], dt / 2)
    duration = t_full[-1]
    expected_full = 0.5 * abs(G[2]) * dt * duration
    expected_half = 0.5 * abs(G[2]) * (dt / 2) * duration
    max_full = np.abs(e_full).max()
    max_half = np.abs(e_half).max()
    result.check("thrown, symplectic Euler, dt = 1 ms: max |x - parabola|", expected_full, max_full,
                 roundoff_tolerance(steps, scale_x), "m",
                 derivation="x_n - x(t_n) = dt^2 g n / 2 = g dt t_n / 2, largest at the end t = T: "
                 "|g| dt T / 2; tolerance: round-off as above.")
    result.check("thrown, symplectic Euler, dt = 0.5 ms: max |x - parabola|", expected_half, max_half,
                 roundoff_tolerance(2 * steps, scale_x), "m")
    result.check("error ratio dt = 1 ms / dt = 0.5 ms (first order)", 2.0, max_full / max_half, 1e-6,
                 derivation="a first-order method halves its error with the step; the ratio of the two exact "
                 "errors above is 2, tolerance 1e-6 leaves room for round-off only.")

    # ---- velocity Verlet: exact for constant acceleration
    verlet = body_rows(bodies["verlet"], "thrown")
    k = verlet["step"][:, None]
    t = k * dt
    exact = X0 + V0 * t + 0.5 * G * t * t
    result.check("thrown, velocity Verlet: max |x - parabola|", 0.0,
                 np.abs(vectors(verlet, "x", "y", "z") - exact).max(), roundoff_tolerance(steps, scale_x), "m",
                 derivation="expected 0: kick-drift-kick gives x1 = x0 + dt v0 + dt^2 g / 2, the parabola itself; "
                 "tolerance: round-off as above.")
    result.check("thrown, velocity Verlet: max |v - (v0 + g t)|", 0.0,
                 np.abs(vectors(verlet, "vx", "vy", "vz") - (V0 + G * t)).max(),
                 roundoff_tolerance(steps, scale_v), "m/s")

    # ---- torque-free sphere
    spinner = body_rows(bodies["euler"], "spinner")
    omega = vectors(spinner, "wx", "wy", "wz")
    result.check("spinner: max |omega - omega0|", 0.0, np.abs(omega - OMEGA_SPINNER).max(),
                 roundoff_tolerance(steps, np.abs(OMEGA_SPINNER).max()), "rad/s",
                 derivation="a torque-free sphere (isotropic inertia) has d(omega)/dt = 0; tolerance: round-off.")
    q = vectors(spinner, "qw", "qx", "qy", "qz")
    q_exact = quat_from_rotation_vector(spinner["step"][:, None] * dt * OMEGA_SPINNER)
    angle = quat_angle_between(q, q_exact)
    result.check("spinner: max angle between q and exp(omega t)", 0.0, angle.max(),
                 roundoff_tolerance(steps, np.linalg.norm(OMEGA_SPINNER) * duration), "rad",
                 derivation="constant omega turns the body by exp(omega t); the integrator composes exact "
                 "rotations exp(omega dt), so the difference is round-off: tolerance 10 N eps |omega| T.")

    # ---- torque-free tumbling ellipsoid: angular momentum conserved
    tumbler = body_rows(bodies["euler"], "tumbler")
    q = vectors(tumbler, "qw", "qx", "qy", "qz")
    omega = vectors(tumbler, "wx", "wy", "wz")
    a, b, c = SEMI_AXES
    inertia = np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 5.0  # per unit mass
    omega_body = quat_rotate(quat_conj(q), omega)
    momentum = quat_rotate(q, inertia * omega_body)
    drift = np.linalg.norm(momentum - momentum[0], axis=1) / np.linalg.norm(momentum[0])
    result.check("tumbler: max |L(t) - L(0)| / |L(0)|", 0.0, drift.max(), roundoff_tolerance(steps, 1.0),
                 derivation="without torque the world angular momentum L = R I R^T omega is constant; each "
                 "rotor sub-step of the integrator is an exact flow that keeps L, so the change is round-off "
                 "(relative tolerance 10 N eps).")
    energy = 0.5 * np.sum(omega_body * inertia * omega_body, axis=1)
    energy_drift = np.abs(energy - energy[0]).max() / energy[0]
    omega_dt = np.linalg.norm(omega, axis=1).max() * dt
    result.check("tumbler: max |T_rot(t) - T_rot(0)| / T_rot(0)", 0.0, energy_drift, omega_dt ** 2,
                 derivation="the symmetric (Strang) rotor splitting is second order and symplectic: its energy "
                 "error stays bounded at O((|omega| dt)^2); tolerance (|omega| dt)^2 = "
                 f"{omega_dt ** 2:.2g}.")
    flips = np.count_nonzero(np.diff(np.sign(omega_body[:, 1])) != 0)
    result.notes.append(f"The tumbler's body-frame omega_y changes sign {flips} time(s) in {duration:g} s "
                        "(intermediate-axis instability), while L stays constant.")

    # ---- figures
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    exact_t = np.linspace(0, duration, 400)
    axes[0].plot(exact_t, X0[2] + V0[2] * exact_t + 0.5 * G[2] * exact_t ** 2, "k-", lw=1, label="parabola")
    axes[0].plot(t_full[::50], x[::50, 2], "o", ms=4, label="fricdem, symplectic Euler, dt = 1 ms")
    finish_axes(axes[0], "time t [s]", "height z [m]", "Thrown sphere", legend={})
    axes[1].plot(t_full, e_full[:, 2] * 1e3, label="fricdem, dt = 1 ms")
    axes[1].plot(t_half, e_half[:, 2] * 1e3, label="fricdem, dt = 0.5 ms")
    axes[1].plot(exact_t, -0.5 * abs(G[2]) * dt * exact_t * 1e3, "k--", lw=1, label="g dt t / 2")
    axes[1].plot(exact_t, -0.5 * abs(G[2]) * dt / 2 * exact_t * 1e3, "k:", lw=1, label="g (dt/2) t / 2")
    finish_axes(axes[1], "time t [s]", "z - z_parabola [mm]", "Symplectic Euler error: first order in dt", legend={})
    save_figure(ctx, result, figure, "thrown",
                "Thrown sphere: height against the parabola (left) and the error of symplectic "
                "Euler, which is exactly g dt t / 2 (right).")

    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    time = tumbler["step"] * dt
    for i, name in enumerate("xyz"):
        axes[0].plot(time, omega_body[:, i], label=f"omega_{name} (body)")
    finish_axes(axes[0], "time t [s]", "angular velocity, body frame [rad/s]",
                "Tumbling ellipsoid (spun near its intermediate axis)", legend={})
    axes[1].semilogy(time, np.maximum(drift, 1e-17), label="|L - L0| / |L0|")
    axes[1].semilogy(time, np.maximum(np.abs(energy - energy[0]) / energy[0], 1e-17), label="|T - T0| / T0")
    finish_axes(axes[1], "time t [s]", "relative change", "Conserved quantities", legend={})
    save_figure(ctx, result, figure, "tumbler",
                "Torque-free ellipsoid: the body-frame angular velocity flips (left) while the "
                "angular momentum stays constant to round-off and the energy error stays bounded (right).")
    return result
