"""Reference solutions of a head-on impact of a sphere on a static plane,
written independently of the engine from the contact laws' documentation
(registry docs of 'hooke' and 'hertz', src/contact/normal.c):

    hooke: N = k d + c d',            c = gamma sqrt(m k)
    hertz: N = K d^(3/2) + c d',      c = gamma sqrt(m K) d^(1/4),  K = 4/3 E* sqrt(R)
    N clamped at >= 0 (contacts push, never pull); d = overlap.

gamma is defined by the restitution e of a gravity-free impact with the
clamp: in scaled units both laws read x'' = -x^p - gamma x^q x', x(0) = 0,
x'(0) = 1, and e = -x'(end) where the clamped force first returns to 0 (or x
to 0). We calibrate gamma by bisection on that scaled problem, then integrate
the dimensional impact with gravity to get the rebound ratio a dropped ball
shows (gravity acts during the contact, so the ratio is not exactly e).
Both integrations are classical RK4 with steps far smaller than the engine's.
"""
from __future__ import annotations

import math

HOOKE = (1.0, 0.0)   # (p, q)
HERTZ = (1.5, 0.25)


def _rk4_step(acceleration, x: float, v: float, h: float) -> tuple[float, float]:
    """One classical Runge-Kutta step of x'' = acceleration(x, x') from (x, v)
    over h: the integrator of both references here (the scaled restitution and
    the rebound), written once."""
    k1x, k1v = v, acceleration(x, v)
    k2x, k2v = v + 0.5 * h * k1v, acceleration(x + 0.5 * h * k1x, v + 0.5 * h * k1v)
    k3x, k3v = v + 0.5 * h * k2v, acceleration(x + 0.5 * h * k2x, v + 0.5 * h * k2v)
    k4x, k4v = v + h * k3v, acceleration(x + h * k3x, v + h * k3v)
    return x + h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x), v + h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)


def _scaled_restitution(p: float, q: float, gamma: float, h: float = 2.5e-4) -> float:
    def force(x, v):
        xc = x if x > 0.0 else 0.0
        return -xc ** p - gamma * (1.0 if q == 0.0 else xc ** q) * v

    x, v = 0.0, 1.0
    for step in range(10_000_000):
        x1, v1 = _rk4_step(force, x, v, h)
        f0, f1 = -force(x, v), -force(x1, v1)
        if step > 0 and (f1 <= 0.0 or x1 <= 0.0):
            s = 1.0
            if f1 <= 0.0 < f0:
                s = f0 / (f0 - f1)
            if x1 <= 0.0 < x:
                s = min(s, x / (x - x1))
            v_end = v + s * (v1 - v)
            return -v_end if v_end < 0.0 else 0.0
        x, v = x1, v1
    raise RuntimeError("scaled impact did not end")


def damping_for_restitution(law: tuple[float, float], e: float) -> float:
    """gamma of the scaled law that gives restitution e (bisection to 1e-10)."""
    p, q = law
    if e >= 1.0:
        return 0.0
    low, high = 0.0, 1.0
    while _scaled_restitution(p, q, high) > e:
        low, high = high, 2.0 * high
    while high - low > 1e-10 * high:
        mid = 0.5 * (low + high)
        if _scaled_restitution(p, q, mid) > e:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def rebound(law: tuple[float, float], stiffness: float, gamma: float, mass: float, v_in: float, g: float,
            steps: int = 40_000) -> tuple[float, float]:
    """Dimensional impact at speed v_in with gravity g (m/s^2, pulling into the
    plane); `stiffness` is k (hooke) or K (hertz). Returns (v_out / v_in,
    contact duration in s), v_out being the speed when the overlap returns to 0."""
    p, q = law
    c0 = gamma * math.sqrt(mass * stiffness)

    def acceleration(d, v):
        if d <= 0.0:
            return g
        n = stiffness * d ** p + c0 * (1.0 if q == 0.0 else d ** q) * v
        return g - max(n, 0.0) / mass

    # Time scale of the undamped contact, to choose the step.
    scale = (mass / stiffness) ** (1.0 / (p + 1.0)) * v_in ** ((1.0 - p) / (1.0 + p))
    h = 4.0 * scale / steps
    d, v, t = 0.0, v_in, 0.0
    for _ in range(100 * steps):
        d1, v1 = _rk4_step(acceleration, d, v, h)
        if d1 <= 0.0 < d and v1 < 0.0:
            s = d / (d - d1)
            return -(v + s * (v1 - v)) / v_in, t + s * h
        d, v, t = d1, v1, t + h
    raise RuntimeError("dimensional impact did not end")


def effective_modulus(e1: float, nu1: float, e2: float, nu2: float) -> float:
    """E* of Johnson, Contact Mechanics, Eq. (4.22)."""
    return 1.0 / ((1.0 - nu1 * nu1) / e1 + (1.0 - nu2 * nu2) / e2)


def hertz_constant(e_star: float, radius: float) -> float:
    """K of N = K d^(3/2), Johnson Eq. (4.23)."""
    return 4.0 / 3.0 * e_star * math.sqrt(radius)
