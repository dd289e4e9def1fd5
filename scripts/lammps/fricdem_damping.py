"""fricdem's normal dashpot as a number LAMMPS can take.

fricdem's `hooke` normal model takes a coefficient of restitution e and turns
it into the dashpot c = gamma sqrt(m_eff k_n), with gamma found once per law
by bisection on an RK4-integrated, force-clamped impact (src/contact/normal.c,
`damping_for_restitution`). LAMMPS `pair_style granular ... hooke k_n eta_n0
damping velocity` takes the dashpot c = eta_n0 itself, so for a contact whose
m_eff is known (two given spheres, a sphere on a wall) eta_n0 = gamma sqrt(m_eff
k_n) reproduces fricdem's law; LAMMPS `damping tsuji` takes e and uses c =
alpha(e) sqrt(m_eff k_n) with Tsuji's polynomial alpha(e), the same form as
fricdem's for every pair, so the e' with alpha(e') = gamma reproduces it for a
polydisperse packing.

This module transcribes normal.c's calibration operation for operation (IEEE
double arithmetic, no fused multiply-add, like fricdem's -ffp-contract=off
build), so `hooke_gamma(e)` is bitwise the gamma fricdem uses, and inverts
Tsuji's polynomial to 17 digits. Used by scripts/lammps/run_lammps.py, the
benchmark (bench/lammps_compare.sh) and documented in
docs/validation/lammps_crosscheck.md.

    /usr/bin/python3 scripts/lammps/fricdem_damping.py 0.5 [M_EFF K_N]
"""
from __future__ import annotations

import sys


def _scaled_force(p: float, q: float, gamma: float, x: float, v: float) -> float:
    xc = x if x > 0.0 else 0.0
    return -(xc ** p) - gamma * (1.0 if q == 0.0 else xc ** q) * v


def _restitution_of_scaled_law(p: float, q: float, gamma: float) -> float:
    h = 1e-3
    x, v = 0.0, 1.0
    f = _scaled_force
    for step in range(1000000):
        k1x, k1v = v, f(p, q, gamma, x, v)
        k2x, k2v = v + 0.5 * h * k1v, f(p, q, gamma, x + 0.5 * h * k1x, v + 0.5 * h * k1v)
        k3x, k3v = v + 0.5 * h * k2v, f(p, q, gamma, x + 0.5 * h * k2x, v + 0.5 * h * k2v)
        k4x, k4v = v + h * k3v, f(p, q, gamma, x + h * k3x, v + h * k3v)
        x1 = x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        v1 = v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
        f0 = -f(p, q, gamma, x, v)
        f1 = -f(p, q, gamma, x1, v1)
        if step > 0 and (f1 <= 0.0 or x1 <= 0.0):
            s = 1.0
            if f1 <= 0.0 and f0 > 0.0:
                s = f0 / (f0 - f1)
            if x1 <= 0.0 and x > 0.0:
                sx = x / (x - x1)
                s = sx if sx < s else s
            v_end = v + s * (v1 - v)
            return -v_end if v_end < 0.0 else 0.0
        x, v = x1, v1
    return 0.0


def _damping_for_restitution(p: float, q: float, restitution: float) -> float:
    if restitution >= 1.0:
        return 0.0
    low, high = 0.0, 1.0
    while _restitution_of_scaled_law(p, q, high) > restitution and high < 1e6:
        low = high
        high *= 2.0
    iteration = 0
    while iteration < 60 and high - low > 1e-12 * high:
        mid = 0.5 * (low + high)
        if _restitution_of_scaled_law(p, q, mid) > restitution:
            low = mid
        else:
            high = mid
        iteration += 1
    return 0.5 * (low + high)


def hooke_gamma(restitution: float) -> float:
    """fricdem hooke's dimensionless dashpot: c = gamma sqrt(m_eff k_n)."""
    return _damping_for_restitution(1.0, 0.0, restitution)


def hertz_gamma(restitution: float) -> float:
    """fricdem hertz's dimensionless dashpot: c = gamma sqrt(m_eff K) delta^(1/4)."""
    return _damping_for_restitution(1.5, 0.25, restitution)


def tsuji_alpha(e: float) -> float:
    """LAMMPS `damping tsuji`: alpha(e), pair_granular.cpp coeff(), same operations."""
    return (1.2728 - 4.2783 * e + 11.087 * (e * e) - 22.348 * (e * e * e) + 27.467 * e ** 4
            - 18.022 * e ** 5 + 4.8218 * e ** 6)


def tsuji_restitution_for(alpha: float) -> float:
    """The e' in (0, 1) with tsuji_alpha(e') = alpha (alpha decreases on (0, 1))."""
    low, high = 0.0, 1.0
    if not tsuji_alpha(high) <= alpha <= tsuji_alpha(low):
        raise ValueError(f"alpha {alpha} is outside Tsuji's range [{tsuji_alpha(1.0)}, {tsuji_alpha(0.0)}]")
    for _ in range(200):
        mid = 0.5 * (low + high)
        if tsuji_alpha(mid) > alpha:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def tsuji_restitution_exact(alpha: float) -> float:
    """An e' whose LAMMPS alpha(e') (reference.tsuji_alpha, LAMMPS's
    operations) is alpha to the last bit, searched among the doubles next to
    tsuji_restitution_for(alpha); that one where none is."""
    import math

    import reference

    start = tsuji_restitution_for(alpha)
    below = above = start
    for _ in range(1000):
        for candidate in (below, above):
            if reference.tsuji_alpha(candidate) == alpha:
                return candidate
        below, above = math.nextafter(below, -1.0), math.nextafter(above, 2.0)
    return start


def main() -> int:
    if len(sys.argv) not in (2, 4):
        print(__doc__.rsplit("\n\n", 1)[1].strip(), file=sys.stderr)
        return 2
    e = float(sys.argv[1])
    gamma = hooke_gamma(e)
    print(f"restitution {e}: gamma = {gamma!r}")
    if gamma > 0.0:
        ep = tsuji_restitution_for(gamma)
        print(f"LAMMPS damping tsuji: e' = {ep!r} (alpha(e') = {tsuji_alpha(ep)!r})")
    if len(sys.argv) == 4:
        meff, kn = float(sys.argv[2]), float(sys.argv[3])
        print(f"LAMMPS damping velocity: eta_n0 = gamma sqrt(m_eff k_n) = {gamma * (meff * kn) ** 0.5!r} N s/m")
    return 0


if __name__ == "__main__":
    sys.exit(main())
