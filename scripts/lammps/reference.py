"""A transcription of LAMMPS 29Sep2021 `pair_style granular` / `fix wall/gran
granular` (hooke, hertz/material, linear_history, mindlin, mindlin_rescale,
mindlin/force, mindlin_rescale/force, rolling sds, twisting sds / marshall,
damping velocity / tsuji, limit_damping) and `fix nve/sphere`, for two spheres
or one sphere on a plane, with a switch for the contact arm. Also the static
and kinetic sliders of LAMMPS 2026, tangential `linear_history/static` and
`mindlin/static` (src/GRANULAR/gran_sub_mod_tangential.cpp,
GranSubModTangentialLinearHistoryStatic and ...MindlinStatic::calculate_forces),
which Debian's LAMMPS (29 Sep 2021) predates, and two more options of LAMMPS
2023 and later it lacks: `damping coeff_restitution`
(gran_sub_mod_damping.cpp: Tsuji's prefactor damp sqrt(m_eff F_n / delta)
with damp from the restitution) and the tangential `linear_history_classic`
and `mindlin_classic` (the legacy pair styles' update inside pair granular:
the history advanced, then projected without rescaling). For those the
transcription is the only LAMMPS there is to compare with here
(docs/validation/lammps_crosscheck.md, case 8).

  arm="lammps"    relative sliding velocity from the full radii (v_i - v_j -
                  (R_i w_i + R_j w_j) x n); slide torque on a sphere from a
                  pair at R_i - delta/2, from a wall at R (pair_granular.cpp,
                  fix_wall_gran.cpp of that version);
  arm="midpoint"  fricdem's convention (docs/design.md): both velocity and
                  torque at the midpoint of the two surface points, R_i - delta/2
                  from each centre (for a plane: R - delta/2).

It exists to show where LAMMPS and fricdem differ: with arm="lammps" it
reproduces LAMMPS's numbers (scripts/lammps/run_lammps.py checks that, to
round-off), with arm="midpoint" fricdem's, so the difference between the two
runs is the arm convention alone and is recorded next to the golden numbers
(tests/golden/lammps_impact.csv, column `arm_shift`). Pure Python, a few
microseconds per step; docs/validation/lammps_crosscheck.md.
"""
from __future__ import annotations

import math

EPSILON = 1e-10  # pair_granular.cpp: frame update of the history only above EPSILON * Fscrit


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _norm(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


MINDLIN = ("mindlin", "mindlin_rescale", "mindlin/force", "mindlin_rescale/force")
# The sliders with a static and a dynamic coefficient (LAMMPS 2026): history[3]
# is the contact's state, 0 static (Fscrit = mu_s Fncrit) or 1 dynamic
# (mu_d Fncrit); the force exceeding Fscrit makes it dynamic, a force within
# it static again.
STATIC = ("linear_history/static", "mindlin/static")
# LAMMPS 2023 and later: the legacy gran/hooke/history and gran/hertz/history
# tangential update (GranSubModTangentialLinearHistoryClassic, ...MindlinClassic).
CLASSIC = ("linear_history_classic", "mindlin_classic")


class Law:
    """LAMMPS coefficients: kn, eta_n, kt, xgammat, mu; optional rolling sds
    (k_roll, gamma_roll, mu_roll) and twisting sds (k_twist, gamma_twist,
    mu_twist) or marshall (twist = "marshall").

    normal: "hooke" (kn in N/m) or "hertz" (hertz/material: kn = 4/3 E_eff in
    Pa, the Hertz force kn a delta, a = sqrt(R_eff delta)); damping: "velocity"
    (eta_n in N s/m), "mass_velocity" (eta_n m_eff), "tsuji" (eta_n = alpha(e'),
    the dashpot eta_n sqrt(m_eff kn a)) or "coeff_restitution" (eta_n =
    coeff_restitution_damp(e), the dashpot eta_n sqrt(m_eff F_n / delta),
    LAMMPS 2023 and later); tangential: "linear_history" (kt in N/m) or one of
    MINDLIN (kt in Pa: the stiffness kt a), one of CLASSIC, or one of STATIC (mu is then
    mu_static, and mu_dynamic the dynamic one)."""

    def __init__(self, kn, eta_n, kt, xgammat, mu, roll=None, twist=None, normal="hooke", damping="velocity",
                 tangential="linear_history", mu_dynamic=None):
        self.kn, self.eta_n, self.kt, self.xgammat, self.mu = kn, eta_n, kt, xgammat, mu
        self.mu_dynamic = mu if mu_dynamic is None else mu_dynamic
        self.roll, self.twist = roll, twist
        self.normal, self.damping, self.tangential = normal, damping, tangential


def powint(x, n):
    """math_special.h powint: x^n by repeated squaring, its operations."""
    if n == 0:
        return 1.0
    if x == 0.0:
        return 0.0
    nn = abs(n)
    ww, yy = x, 1.0
    while nn != 0:
        if nn & 1:
            yy *= ww
        nn >>= 1
        ww *= ww
    return yy if n > 0 else 1.0 / yy


def tsuji_alpha(cor):
    """pair_granular.cpp coeff(): `damping tsuji` turns e' into alpha(e')."""
    return (1.2728 - 4.2783 * cor + 11.087 * (cor * cor) - 22.348 * (cor * cor * cor) + 27.467 * powint(cor, 4)
            - 18.022 * powint(cor, 5) + 4.8218 * powint(cor, 6))


def coeff_restitution_damp(cor, normal):
    """GranSubModDampingCoeffRestitution::init(): damp from the restitution,
    hooke's or (any other normal model) Hertz's."""
    logcor = math.log(cor)
    if normal == "hooke":
        return -2 * logcor / math.sqrt(math.pi * math.pi + logcor * logcor)
    damp = -1.22474487139158894067 * 1.82574185835055380345 * logcor  # ROOTTHREEBYTWO * TWOROOTFIVEBYSIX
    return damp / math.sqrt(math.pi * math.pi + logcor * logcor)


def hertz_material_kn(e_mod, poisson):
    """pair_granular.cpp coeff(): FOURTHIRDS mix_stiffnessE(E, E, nu, nu)."""
    return (4.0 / 3.0) * (1 / ((1 - poisson * poisson) / e_mod + (1 - poisson * poisson) / e_mod))


def mindlin_null_kt(e_mod, poisson):
    """pair_granular.cpp coeff(): k_t NULL is 8 mix_stiffnessG(E, E, nu, nu)."""
    return 8 * (1 / ((2 * (2 - poisson) * (1 + poisson) / e_mod) + (2 * (2 - poisson) * (1 + poisson) / e_mod)))


def _project(h, n, k, limit):
    """Rotate a history vector into the tangent plane keeping its length;
    LAMMPS skips it when |h.n| k <= EPSILON limit."""
    rsht = h[0] * n[0] + h[1] * n[1] + h[2] * n[2]
    if abs(rsht) * k > EPSILON * limit:
        mag = _norm(h)
        p = [h[0] - rsht * n[0], h[1] - rsht * n[1], h[2] - rsht * n[2]]
        pm = _norm(p)
        s = mag / pm if pm > 0 else 0.0
        return [p[0] * s, p[1] * s, p[2] * s]
    return list(h)


def _classic_slide(h, n, vtr, kt, dampt, fscrit, dt, update):
    """LinearHistoryClassic::calculate_forces (LAMMPS 2023 and later; the
    legacy gran/hooke/history update): the history advanced, then projected
    without rescaling, the zero test on its length before the projection.
    Returns (history, force, slipping)."""
    if update:
        h = [h[k] + vtr[k] * dt for k in range(3)]
    shrmag = _norm(h)
    if update:
        rsht = _dot(h, n)
        h = [h[k] - rsht * n[k] for k in range(3)]
    fdamp = [-dampt * vtr[k] for k in range(3)]
    fs = [-kt * h[k] + fdamp[k] for k in range(3)]
    fsm = _norm(fs)
    if fsm > fscrit:
        if shrmag != 0.0:
            ratio = fscrit / fsm
            fs = [ratio * fs[k] for k in range(3)]
            h = [-1.0 / kt * (fs[k] - fdamp[k]) for k in range(3)]
        else:
            fs = [0.0, 0.0, 0.0]
    return h, fs, fsm > fscrit


def contact(law, hist, n, delta, radi, radj, reff, vi, vj, wi, wj, dt, update, arm, wall, meff=None):
    """Forces and torques of one contact (n from j to i); returns (f_i,
    torque_i, torque_j) and updates hist (dict). meff: the pair's effective
    mass (needed by damping tsuji)."""
    vr = [vi[k] - vj[k] for k in range(3)]
    vnnr = _dot(vr, n)
    knfac = law.kn
    fne = knfac * delta
    a = math.sqrt(delta * reff)  # dR = delta Reff; a = sqrt(dR)
    if law.normal == "hertz":
        fne *= a
        knfac *= a
    if law.damping == "coeff_restitution":
        # gran_damping_tsuji_prefactor (LAMMPS 2023 and later): of the elastic force over the overlap
        damp = law.eta_n * math.sqrt(max(0.0, meff * fne / delta)) if delta > 0.0 else 0.0
    else:
        damp_normal = {"velocity": 1.0, "mass_velocity": meff}.get(law.damping) or math.sqrt(meff * knfac)
        damp = law.eta_n * damp_normal  # damp_normal_prefactor
    fdamp = -damp * vnnr
    fntot = fne + fdamp
    if fntot < 0.0:  # limit_damping
        fntot = 0.0
    vt = [vr[k] - n[k] * vnnr for k in range(3)]
    if arm == "lammps":
        ai, aj = radi, radj
    else:
        ai, aj = radi - 0.5 * delta, radj - 0.5 * delta
    if wall:
        wr = [ai * wi[k] for k in range(3)]
    else:
        wr = [ai * wi[k] + aj * wj[k] for k in range(3)]
    vtr = [vt[0] - (n[2] * wr[1] - n[1] * wr[2]),
           vt[1] - (n[0] * wr[2] - n[2] * wr[0]),
           vt[2] - (n[1] * wr[0] - n[0] * wr[1])]
    fncrit = abs(fntot)
    static = law.tangential in STATIC
    dynamic = static and hist.get("dynamic", 0) != 0
    fscrit = fncrit * (law.mu_dynamic if dynamic else law.mu)
    kt = law.kt
    dampt = law.xgammat * damp
    force_history = law.tangential in ("mindlin/force", "mindlin_rescale/force")
    rescale = law.tangential in ("mindlin_rescale", "mindlin_rescale/force")
    h = hist.setdefault("slide", [0.0, 0.0, 0.0])
    if law.tangential in MINDLIN or law.tangential in ("mindlin/static", "mindlin_classic"):
        kt *= a
        if rescale and a < hist.get("radius", 0.0):  # on unloading, LAMMPS's history[3]
            factor = a / hist["radius"]
            h = [h[k] * factor for k in range(3)]
    if law.tangential in CLASSIC:
        h, fs, hist["slipping"] = _classic_slide(h, n, vtr, kt, dampt, fscrit, dt, update)
    else:
        if update:
            h = _project(h, n, 1.0 if force_history else kt, fscrit)
            if force_history:
                h = [h[k] - kt * vtr[k] * dt for k in range(3)]
            else:
                h = [h[k] + vtr[k] * dt for k in range(3)]
            if rescale:
                hist["radius"] = a
        if force_history:
            fs = [h[k] - dampt * vtr[k] for k in range(3)]
        else:
            fs = [-kt * h[k] - dampt * vtr[k] for k in range(3)]
        fsm = _norm(fs)
        hist["slipping"] = fsm > fscrit
        if static:
            # calculate_forces of the static models: the rescale through 1 / |fs|,
            # and the state switch.
            if fsm > fscrit:
                if _norm(h) != 0.0:
                    ratio = fscrit * (1.0 / fsm)
                    h = [-1.0 / kt * (ratio * fs[k] + dampt * vtr[k]) for k in range(3)]
                    fs = [ratio * fs[k] for k in range(3)]
                else:
                    fs = [0.0, 0.0, 0.0]
                hist["dynamic"] = 1
            else:
                hist["dynamic"] = 0
        elif fsm > fscrit:
            if _norm(h) != 0.0:
                if force_history:
                    h = [fscrit * fs[k] / fsm + dampt * vtr[k] for k in range(3)]
                else:
                    h = [-1.0 / kt * (fscrit * fs[k] / fsm + dampt * vtr[k]) for k in range(3)]
                fs = [fs[k] * fscrit / fsm for k in range(3)]
            else:
                fs = [0.0, 0.0, 0.0]
    hist["slide"] = h
    relrot = [wi[k] - wj[k] for k in range(3)]
    tor_roll = [0.0, 0.0, 0.0]
    if law.roll is not None:
        kr, gr, mur = law.roll
        vrl = [reff * (relrot[1] * n[2] - relrot[2] * n[1]),
               reff * (relrot[2] * n[0] - relrot[0] * n[2]),
               reff * (relrot[0] * n[1] - relrot[1] * n[0])]
        frcrit = mur * fncrit
        r = hist.setdefault("roll", [0.0, 0.0, 0.0])
        if update:
            r = _project(r, n, kr, frcrit)
            r = [r[k] + vrl[k] * dt for k in range(3)]
        fr = [-kr * r[k] - gr * vrl[k] for k in range(3)]
        frm = _norm(fr)
        if frm > frcrit:
            if _norm(r) != 0.0:
                r = [-1.0 / kr * (frcrit * fr[k] / frm + gr * vrl[k]) for k in range(3)]
                fr = [fr[k] * frcrit / frm for k in range(3)]
            else:
                fr = [0.0, 0.0, 0.0]
        hist["roll"] = r
        tor_roll = [reff * (n[1] * fr[2] - n[2] * fr[1]), reff * (n[2] * fr[0] - n[0] * fr[2]),
                    reff * (n[0] * fr[1] - n[1] * fr[0])]
    tor_twist = 0.0
    if law.twist is not None:
        magtwist = _dot(relrot, n)
        if law.twist == "marshall":
            a = math.sqrt(delta * reff)
            ktw, gtw, mutw = 0.5 * kt * a * a, 0.5 * dampt * a * a, 2.0 / 3.0 * a * law.mu
        else:
            ktw, gtw, mutw = law.twist
        t = hist.get("twist", 0.0)
        if update:
            t += magtwist * dt
        m = -ktw * t - gtw * magtwist
        sign = 1.0 if magtwist > 0 else (-1.0 if magtwist < 0 else 0.0)
        mcrit = mutw * fncrit
        if abs(m) > mcrit:
            t = 1.0 / ktw * (mcrit * sign - gtw * magtwist)
            m = -mcrit * sign
        hist["twist"] = t
        tor_twist = m
    f = [n[k] * fntot + fs[k] for k in range(3)]
    tor = [n[1] * fs[2] - n[2] * fs[1], n[2] * fs[0] - n[0] * fs[2], n[0] * fs[1] - n[1] * fs[0]]
    if arm == "lammps":
        di = radi if wall else radi - 0.5 * delta
        dj = radj - 0.5 * delta
    else:
        di, dj = radi - 0.5 * delta, radj - 0.5 * delta
    ti = [-di * tor[k] + tor_twist * n[k] + tor_roll[k] for k in range(3)]
    tj = [-dj * tor[k] - tor_twist * n[k] - tor_roll[k] for k in range(3)]
    return f, ti, tj


class Sphere:
    def __init__(self, radius, density, x, v, w):
        self.r = radius
        self.m = 4.0 * math.pi / 3.0 * radius * radius * radius * density  # atom_vec_sphere / set density
        self.x, self.v, self.w = list(x), list(v), list(w)
        self.f, self.t = [0.0] * 3, [0.0] * 3


def simulate(spheres, law, dt, steps, arm, gravity=(0.0, 0.0, 0.0), wall_z=None, record=None,
             setup_update=False):
    """Velocity Verlet of fix nve/sphere. Two spheres (pair), or one sphere on
    the plane z = wall_z (fix wall/gran zplane). `record(step, spheres, in_contact)`
    is called after every step (and for step 0). Returns the steps in contact.

    setup_update: whether the force evaluation at t = 0 advances the contact
    history. LAMMPS's setup does not (update->setupflag), fricdem's
    fd_world_prepare does (a contact present at t = 0 gets its first v dt
    there and a second one at step 1); this matters only for contacts that
    exist at t = 0."""
    hist = {}
    touching = []

    def forces(update):
        for s in spheres:
            s.f = [s.m * gravity[k] for k in range(3)]
            s.t = [0.0, 0.0, 0.0]
        if wall_z is None:
            a, b = spheres
            d = [a.x[k] - b.x[k] for k in range(3)]
            rsq = _dot(d, d)
            radsum = a.r + b.r
            if rsq >= radsum * radsum:
                hist.clear()
                return False
            r = math.sqrt(rsq)
            n = [d[k] / r for k in range(3)]
            delta = radsum - r
            reff = a.r * b.r / radsum
            meff = a.m * b.m / (a.m + b.m)
            f, ti, tj = contact(law, hist, n, delta, a.r, b.r, reff, a.v, b.v, a.w, b.w, dt, update, arm, False,
                                meff)
            a.f = [a.f[k] + f[k] for k in range(3)]
            b.f = [b.f[k] - f[k] for k in range(3)]
            a.t = [a.t[k] + ti[k] for k in range(3)]
            b.t = [b.t[k] + tj[k] for k in range(3)]
            return True
        (a,) = spheres
        height = a.x[2] - wall_z
        if height >= a.r:
            hist.clear()
            return False
        n = [0.0, 0.0, 1.0]
        delta = a.r - height
        f, ti, _ = contact(law, hist, n, delta, a.r, 0.0, a.r, a.v, [0.0] * 3, a.w, [0.0] * 3, dt, update,
                           arm, True, a.m)
        a.f = [a.f[k] + f[k] for k in range(3)]
        a.t = [a.t[k] + ti[k] for k in range(3)]
        return True

    forces(update=setup_update)  # LAMMPS setup: no history update
    if record:
        record(0, spheres, None)
    dtf = 0.5 * dt
    for step in range(1, steps + 1):
        for s in spheres:
            dtfm = dtf / s.m
            s.v = [s.v[k] + dtfm * s.f[k] for k in range(3)]
            s.x = [s.x[k] + dt * s.v[k] for k in range(3)]
            dti = dtf / 0.4 / (s.r * s.r * s.m)
            s.w = [s.w[k] + dti * s.t[k] for k in range(3)]
        inside = forces(update=True)
        if inside:
            touching.append(step)
        for s in spheres:
            dtfm = dtf / s.m
            s.v = [s.v[k] + dtfm * s.f[k] for k in range(3)]
            dti = dtf / 0.4 / (s.r * s.r * s.m)
            s.w = [s.w[k] + dti * s.t[k] for k in range(3)]
        if record:
            record(step, spheres, inside)
    return touching
