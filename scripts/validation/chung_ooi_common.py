"""Shared pieces of the Chung & Ooi (2011) benchmark cases
(chung_ooi_normal.py: tests 1-3, chung_ooi_plane.py: tests 4-6,
chung_ooi_spheres.py: tests 7-8): the benchmark's materials and speeds, the
closed forms they are compared with, the table of contact-law variants every
oblique test runs, the measurement of one impact from fricdem's CSVs, and the
oblique tests' checks of a sweep and their normalised figure.

Chung, Y.C. & Ooi, J.Y. (2011), Benchmark tests for verifying discrete element
modelling codes at particle impact level, Granular Matter 13:643-656.

Where the numbers come from. The paper itself is not in this project's
library. Its inputs were taken from three public implementations of the
benchmark, which agree where they overlap: Yade's scripts of tests 1-4
(materials, radii, speeds, e = 0.98 and mu = 0.092 of test 4), the DEM
application of Kratos (`Chung_Ooi_class.py`: speeds, radii, mu and e of tests
5-8, and its digitised paper data, whose maximum forces of tests 1 and 2,
7108 N and 7233 N, are the Hertz values of limestone and of the magnesium
alloy computed here: the inputs below are the paper's) and PySPH's examples
(the steel, polyethylene, nylon and copper of tests 5-8). The size ratio of
the two spheres of test 8 could not be confirmed (PySPH uses R2 = 5 R1, with
other changes); we take R2 = 5 R1 of the same material. Nothing checked here
depends on it: the closed forms hold for any sizes and masses.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .common import finish_axes, read_csv, registered_models, save_figure

SCENE_PLANE = "chung_ooi/sphere_plane.yaml"
SCENE_PAIR = "chung_ooi/sphere_pair.yaml"

# ---------------------------------------------------------------- materials

@dataclass(frozen=True)
class Material:
    name: str
    youngs_modulus: float  # Pa
    poisson_ratio: float   # -
    density: float         # kg/m^3


MATERIALS = {m.name: m for m in (
    Material("glass", 4.8e10, 0.20, 2800.0),              # test 1
    Material("limestone", 2.0e10, 0.25, 2500.0),          # test 1
    Material("aluminium alloy (test 2)", 7.0e10, 0.30, 2699.0),  # test 2
    Material("magnesium alloy", 4.0e10, 0.35, 1800.0),    # test 2
    Material("aluminium oxide", 3.8e11, 0.23, 4000.0),    # tests 3, 4 (Kharaz et al.'s spheres)
    Material("cast iron", 1.0e11, 0.25, 7000.0),          # test 3
    Material("aluminium alloy", 7.0e10, 0.33, 2700.0),    # tests 4, 6, 7, 8
    Material("steel", 2.08e11, 0.30, 7850.0),             # test 5
    Material("polyethylene", 1.0e9, 0.40, 1400.0),        # test 5
    Material("nylon", 2.5e9, 0.40, 1000.0),               # tests 6, 8
    Material("copper", 1.2e11, 0.35, 8900.0),             # test 7
)}

RIGID_FACTOR = 1.0e15  # the plane's modulus is this times the sphere's: a rigid plane to 1e-15


def effective_modulus(a: Material, b: Material | None = None) -> float:
    """E* of Johnson Eq. (4.22); b = None: a rigid counterpart."""
    s = (1.0 - a.poisson_ratio ** 2) / a.youngs_modulus
    if b is not None:
        s += (1.0 - b.poisson_ratio ** 2) / b.youngs_modulus
    return 1.0 / s


def effective_shear_modulus(a: Material, b: Material | None = None) -> float:
    """G* of Mindlin's tangential stiffness 8 G* a: 1/G* = (2 - nu_1)/G_1 + (2 - nu_2)/G_2."""
    def term(m):
        return (2.0 - m.poisson_ratio) * 2.0 * (1.0 + m.poisson_ratio) / m.youngs_modulus
    return 1.0 / (term(a) + (term(b) if b is not None else 0.0))


def sphere_mass(material: Material, radius: float) -> float:
    return material.density * 4.0 / 3.0 * math.pi * radius ** 3


# ------------------------------------------------------------ closed forms

# int_0^1 dx / sqrt(1 - x^(5/2)) = (2/5) B(2/5, 1/2): the Hertz contact lasts 2 this delta_max / v
_HERTZ_DURATION = 0.4 * math.gamma(0.4) * math.gamma(0.5) / math.gamma(0.9)


def hertz_impact(m_eff: float, r_eff: float, e_star: float, speed: float) -> dict:
    """Elastic Hertz impact at approach speed `speed` (Johnson Sec. 11.4):
    delta_max = (15 m* v^2 / (16 E* sqrt(R*)))^(2/5), F_max = 4/3 E* sqrt(R*) delta_max^(3/2),
    t_c = 2 delta_max/v int_0^1 dx/sqrt(1 - x^(5/2)) = 2.868 (m*^2 / (R* E*^2 v))^(1/5),
    contact radius a_max = sqrt(R* delta_max)."""
    delta = (15.0 * m_eff * speed ** 2 / (16.0 * e_star * math.sqrt(r_eff))) ** 0.4
    force = 4.0 / 3.0 * e_star * math.sqrt(r_eff) * delta ** 1.5
    return dict(delta=delta, force=force, duration=2.0 * _HERTZ_DURATION * delta / speed,
                radius=math.sqrt(r_eff * delta))


def rigid_body_oblique(psi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rigid-body (Coulomb, restitution e) oblique impact of spheres, in the
    normalised form used throughout: psi = s0 / (mu (1 + e) v_n), s0 the slip
    speed of the contact points before impact, v_n the approach speed.
    Returns (F, s'): F = friction impulse / (mu x normal impulse), s' = slip
    after impact / (mu (1 + e) v_n). The slip changes by 7/2 of the friction
    impulse over the effective mass (a solid sphere: 1 + m R^2/I = 7/2, for each
    body), so it stops when psi <= 7/2 (sticking: F = 2 psi / 7, s' = 0) and
    the contact slides throughout when psi >= 7/2 (F = 1, s' = psi - 7/2),
    i.e. tan(theta) = 7/2 mu (1 + e) for a sphere without spin on a plane."""
    psi = np.asarray(psi, dtype=float)
    return np.minimum(1.0, 2.0 * psi / 7.0), np.maximum(0.0, psi - 3.5)


def relaxed_ccp_impulse(v_n: float, s0: float, mu: float) -> tuple[float, bool]:
    """Normal impulse over the effective mass (P/m*) of the complementarity
    stepper's one-step impact from zero gap (docs/models/complementarity.md):
    the relaxed cone complementarity problem (Anitescu's, Tasora & Anitescu
    Eq. 26-28) makes a sliding contact separate at u_n = mu |u_t| instead of 0.
    With u_n = -v_n + P/m*, u_t = s0 - 7/2 mu P/m* (sliding):
    P/m* = (v_n + mu s0) / (1 + 7/2 mu^2), valid while u_t > 0, i.e.
    s0 > 7/2 mu v_n; otherwise the contact sticks (u_t = 0, u_n = 0, P/m* = v_n:
    a rigid, perfectly inelastic impact). Returns (P/m*, sliding)."""
    if s0 > 3.5 * mu * v_n:
        return (v_n + mu * s0) / (1.0 + 3.5 * mu * mu), True
    return v_n, False


# Kharaz, Gorham & Salman (2001), Powder Technol. 120:281, aluminium oxide spheres
# (5 mm) on a thick soda-lime glass anvil at 3.9 m/s: the measured points as
# Chung & Ooi's Fig. 6 shows them, digitised in the Kratos DEM application's
# test data (applications/DEMApplication/test_examples/basic_benchmarks/
# paper_data/benchmark4_graph{1,2,3}.dat, BSD licence); read off a figure, to
# about 1 degree and 1% of the axis.
KHARAZ_TANGENTIAL_RESTITUTION = [  # (incident angle deg, v_t'/v_t)
    (2.24, 0.797), (4.22, 0.746), (9.84, 0.675), (20.22, 0.599), (30.36, 0.690), (39.54, 0.774),
    (49.60, 0.848), (71.07, 0.937), (79.23, 0.970), (85.17, 0.979)]
KHARAZ_SPIN = [  # (incident angle deg, |omega'| rad/s)
    (5.90, 134.9), (10.87, 261.2), (21.12, 573.7), (31.14, 612.2), (38.95, 595.1), (50.24, 449.5),
    (60.10, 375.7), (69.96, 243.0), (78.56, 142.4), (84.32, 70.6)]
KHARAZ_REBOUND_ANGLE = [  # (incident angle deg, rebound angle of the contact patch deg)
    (2.10, 0.77), (3.94, 0.77), (9.72, -1.06), (20.31, -8.53), (30.16, -2.55), (39.12, 9.91),
    (49.51, 30.02), (59.90, 49.95), (70.46, 66.90), (78.86, 78.87), (84.78, 85.68)]

# ------------------------------------------------------ contact-law variants


@dataclass
class Setup:
    """What a variant needs to build its contact law for one impact."""
    mu: float             # friction coefficient
    restitution: float    # normal restitution of the benchmark
    m_eff: float          # effective mass m* (kg)
    k_t: float            # tangential stiffness chosen for the linear springs (N/m)
    duration: float       # Hertz contact duration at this impact's normal speed (s)


def _flow(mapping: dict) -> str:
    return "{" + ", ".join(f"{k}: {v!r}" if isinstance(v, float) else f"{k}: {v}" for k, v in mapping.items()) + "}"


def _hertz(s: Setup) -> str:
    return _flow({"model": "hertz", "restitution": float(s.restitution)})


def _light_dashpot(s: Setup) -> float:
    """gamma_t = 2 x 0.05 sqrt(m_t k_t), m_t = 2 m*/7 the contact point's tangential mass."""
    return 2.0 * 0.05 * math.sqrt(2.0 / 7.0 * s.m_eff * s.k_t)


def _pfc_normal(s: Setup) -> str:
    # The linear spring whose undamped half period is the Hertz contact duration, and
    # the critical-damping ratio of a linear oscillator with restitution e (dp_mode 0:
    # the dashpot acts in full until the overlap closes, so e = exp(-pi b / sqrt(1 - b^2))).
    kn = s.m_eff * (math.pi / s.duration) ** 2
    ln_e = math.log(s.restitution)
    beta = -ln_e / math.sqrt(math.pi ** 2 + ln_e ** 2)
    return _flow({"model": "pfc_linear", "kn": kn, "dp_nratio": beta, "dp_mode": 0})


# Mindlin's spring k_t a starts from zero stiffness at first touch and builds its force at k_t a s; with a
# restitution below 1 the Tsuji dashpot makes N jump at first touch (it scales as delta^(1/4) v_n), so over the
# first ~5% of the contact the spring is still below mu N: the friction impulse falls 1% short of mu x normal
# in tests 6 to 8 (e = 0.5; measured 0.989 at psi = 5, 0.985 at 3.7; LAMMPS's mindlin does the same, to
# round-off: tests/test_lammps_golden.c). Its gross-slip rows are kept where the normal force starts from zero
# (e >= 0.95: tests 4 and 5); the damped runs are on the figures and keep the other rows.
MINDLIN_GROSS_SLIP_MIN_RESTITUTION = 0.95


@dataclass
class Variant:
    key: str
    label: str
    normal: object        # Setup -> YAML flow mapping of the normal model
    slide: object         # Setup -> YAML flow mapping of the slide model
    needs: tuple = ()     # (mechanism, model) pairs it needs from the registry
    stepper: str = "penalty"
    marker: str = "o"
    note: str = ""
    min_restitution_for_gross_slip: float = 0.0  # its gross-slip rows only where e >= this (see mindlin)


# The slide models every oblique test runs. Hertz normal (the published
# comparison's) for all but pfc_linear, whose slide model needs its own linear
# normal model. Linear tangential springs get k_t = 8 G* a_max (Mindlin's
# stiffness at the largest contact radius of the impact, see Setup.k_t).
VARIANTS = [
    Variant("dsds", "dsds (Hertz)", _hertz,
            lambda s: _flow({"model": "dsds", "k_t": s.k_t, "gamma_t": _light_dashpot(s), "mu": float(s.mu)}),
            needs=(("slide", "dsds"),), marker="o"),
    Variant("csds", "csds (Hertz)", _hertz,
            lambda s: _flow({"model": "csds", "k_t": s.k_t, "gamma_t": _light_dashpot(s), "mu": float(s.mu)}),
            needs=(("slide", "csds"),), marker="s"),
    Variant("pfc_linear", "pfc_linear (linear normal)", _pfc_normal,
            lambda s: _flow({"model": "pfc_linear", "ks": s.k_t, "fric": float(s.mu)}),
            needs=(("normal", "pfc_linear"), ("slide", "pfc_linear")), marker="^"),
    Variant("fang_negrut", "fang_negrut (Hertz)", _hertz,
            lambda s: _flow({"model": "fang_negrut", "mu_s": float(s.mu), "mu_k": float(s.mu), "K_E": s.k_t}),
            needs=(("slide", "fang_negrut"),), marker="v"),
    Variant("mindlin", "mindlin (Hertz)", _hertz,
            lambda s: _flow({"model": "mindlin", "mu_s": float(s.mu)}),
            needs=(("slide", "mindlin"),), marker="D",
            min_restitution_for_gross_slip=MINDLIN_GROSS_SLIP_MIN_RESTITUTION),
    Variant("complementarity", "complementarity (rigid, e = 0)", lambda s: "{model: rigid}",
            lambda s: _flow({"model": "sliding_cone", "mu": float(s.mu)}),
            needs=(("normal", "rigid"), ("slide", "sliding_cone")), stepper="complementarity", marker="x"),
]

VARIANTS_NOTE = (
    "Contact laws (one run per variant and impact): Hertz normal with the benchmark's restitution (fricdem's "
    "Tsuji dashpot, calibrated to e with the clamp) and the slide models dsds and csds (k_t = 8 G* a_max, "
    "Mindlin's tangential stiffness at the impact's largest Hertz contact radius a_max = sqrt(R* delta_max) at "
    "its normal speed; a light dashpot gamma_t = 2 x 0.05 sqrt(2 m*/7 k_t), which C-SDS needs, the same for "
    "both), fang_negrut (mu_s = mu_k = mu, K_E = the same k_t, K_D = -1: the paper's critical damping "
    "2 sqrt(m* K_E)), mindlin (mu_s = mu, k_t and damping at their defaults: 8 G* from the materials, "
    "x_gamma_t = 0); pfc_linear with its own linear normal model (k_n = m* (pi/t_c)^2, the spring whose "
    "half period is the Hertz contact duration t_c; dp_nratio from e for a linear oscillator, dp_mode 0; "
    "ks = the same k_t, fric = mu); and the complementarity stepper (normal rigid, sliding_cone mu: a "
    "perfectly inelastic rigid impact, e = 0, resolved in one step from zero gap, solver tolerance "
    "1e-12 m/s). The time step is the Hertz contact duration / 400 (complementarity: 1e-5 s).")


def variant_status(models: set) -> dict[str, str]:
    """{variant key: '' if it runs, else why it is skipped}."""
    status = {}
    for v in VARIANTS:
        missing = [f"{m} model '{n}'" for m, n in v.needs if (m, n) not in models]
        status[v.key] = (f"skipped: `fricdem models` lists no {' and no '.join(missing)}; it runs once merged"
                         if missing else "")
    return status


def runnable_variants(result) -> list[Variant]:
    """The variants this build can run (every model they need is one that
    `fricdem models` lists), in VARIANTS order; each skipped one gets a note
    in `result` saying what it lacks, so that an oblique test runs whatever
    laws are merged and says which it left out."""
    status = variant_status(registered_models())
    for variant in VARIANTS:
        if status[variant.key]:
            result.notes.append(f"{variant.label}: {status[variant.key]}.")
    return [v for v in VARIANTS if not status[v.key]]


def law_sets(variant: Variant, setup: Setup) -> dict:
    """--set overrides of the contact law (contacts.0) and the stepper for one variant."""
    sets = {"contacts.0.normal": variant.normal(setup), "contacts.0.slide": variant.slide(setup)}
    if variant.stepper == "complementarity":
        sets.update({"world.stepper": "complementarity", "solver": "{tolerance: 1.0e-12, max_iterations: 5000}"})
    return sets


# ------------------------------------------------------------ measurement

@dataclass
class Impact:
    """One measured impact (SI units). Body 1 is the sphere whose contact point
    lies below its centre (normal along z); body 2 the one below it (absent
    for the plane). Tangential along x, spin about y."""
    e: float                # measured normal restitution v_n' / v_n
    v_n: float              # approach speed
    s0: float               # slip speed of the contact points before (x)
    s1: float               # after
    impulse: float          # normal impulse P on body 1 (N s)
    friction: float         # friction impulse J_t on body 1 against the initial slip (N s)
    moment_error: list = field(default_factory=list)  # per body: plane |I dw/R + m dv|, pair |I dw/R -+ J_t| (N s)
    arm_bound: list = field(default_factory=list)     # per body: delta_max / (2 R)
    coulomb_ratio: float = 0.0   # max over the steps of |F_t| / (mu N) (N: the model's Coulomb force)
    coulomb_phase: float = 0.0   # where in the contact that step lies: 0 its first step, 1 its last
    delta_max: float = 0.0       # largest overlap (m)
    force_max: float = 0.0       # largest normal force (N)
    duration: float = 0.0        # contact duration (s), midpoints of the steps around start and end
    steps: int = 0               # steps in contact
    dv: list = field(default_factory=list)   # per body (dv_x, dw_y R)
    final: dict = field(default_factory=dict)


def measure(out, mu: float, bodies: list[tuple[str, float, float, float]], rigid: bool = False) -> Impact:
    """Reads bodies.csv and contacts.csv (written every step) of an impact.
    `bodies`: (name, radius, mass, moment of inertia) of body 1 and, for a pair, body 2.
    `rigid`: the complementarity stepper's contact, which an inelastic impact leaves closed at zero gap."""
    table = read_csv(out / "bodies.csv")
    contacts = read_csv(out / "contacts.csv")
    rows = []
    for name, *_ in bodies:
        mask = table["name"] == name
        rows.append({k: v[mask] for k, v in table.items()})
    steps = contacts["step"]
    if len(steps) == 0:
        raise RuntimeError(f"{out}: no contact")
    last_step = rows[0]["step"][-1]
    touching = contacts["penetration"] > 0.0 if "penetration" in contacts else np.ones(len(steps), bool)
    if not rigid and contacts["step"][-1] >= last_step and touching[-1]:
        raise RuntimeError(f"{out}: the contact had not ended when the run did")
    first = lambda r, c: r[c][0]  # noqa: E731
    final = lambda r, c: r[c][-1]  # noqa: E731
    (n1, r1, m1, i1) = bodies[0]
    b1 = rows[0]
    if len(bodies) == 1:
        v_n = -first(b1, "vz")
        v_out = final(b1, "vz")
        s0 = first(b1, "vx") - r1 * first(b1, "wy")
        s1 = final(b1, "vx") - r1 * final(b1, "wy")
    else:
        (n2, r2, m2, i2) = bodies[1]
        b2 = rows[1]
        v_n = first(b2, "vz") - first(b1, "vz")
        v_out = final(b1, "vz") - final(b2, "vz")
        s0 = (first(b1, "vx") - r1 * first(b1, "wy")) - (first(b2, "vx") + r2 * first(b2, "wy"))
        s1 = (final(b1, "vx") - r1 * final(b1, "wy")) - (final(b2, "vx") + r2 * final(b2, "wy"))
    dt = (rows[0]["time"][-1] - rows[0]["time"][0]) / max(rows[0]["step"][-1] - rows[0]["step"][0], 1)
    direction = 1.0 if s0 >= 0.0 else -1.0
    dv1 = final(b1, "vx") - first(b1, "vx")
    dw1 = final(b1, "wy") - first(b1, "wy")
    delta_max = max(float(np.max(contacts["penetration"])), 0.0)  # the rigid contact's is <= 0
    arm = [delta_max / (2.0 * r1)]
    dv = [(dv1, dw1 * r1)]
    if len(bodies) == 1:
        # A plane: the normal stays along z, so the impulses are the changes of momentum.
        impulse = m1 * (final(b1, "vz") - first(b1, "vz"))
        friction = -m1 * dv1 * direction
        moment = [abs(i1 * dw1 / r1 + m1 * dv1)]
    else:
        # Two spheres: the line of centres turns while they slide past each other, so the impulses are summed
        # in the contact's own frame from contacts.csv (the force of row k acts over the step that follows it):
        # P = sum N dt, J_t = sum of the tangential force on body 1 along -e_k, e_k the x axis projected on the
        # tangent plane of step k (the slip direction when s0 > 0), and each sphere's spin follows the
        # friction torque, (I/R) Delta omega = J_t up to the arm R - delta/2.
        normal = np.column_stack([contacts["nx"], contacts["ny"], contacts["nz"]])
        force = np.column_stack([contacts["fsx"], contacts["fsy"], contacts["fsz"]])
        force *= np.where(contacts["name_i"] == n1, 1.0, -1.0)[:, None]  # on body 1
        axis = np.array([1.0, 0.0, 0.0]) - normal[:, 0:1] * normal
        axis /= np.linalg.norm(axis, axis=1)[:, None]
        impulse = float(np.sum(contacts["normal_force"]) * dt)
        friction = -float(np.sum(np.sum(force * axis, axis=1)) * dt) * direction
        (n2, r2, m2, i2) = bodies[1]
        dv2 = final(b2, "vx") - first(b2, "vx")
        dw2 = final(b2, "wy") - first(b2, "wy")
        moment = [abs(i1 * dw1 / r1 * direction - friction), abs(i2 * dw2 / r2 * direction - friction)]
        arm.append(delta_max / (2.0 * r2))
        dv.append((dv2, dw2 * r2))
    # Coulomb force of the model: mu N, N the normal force (pfc_linear: its linear part F_n^l)
    limit = contacts["normal_elastic_force"] if "pfc_slip" in contacts else contacts["normal_force"]
    tangential = np.sqrt(contacts["fsx"] ** 2 + contacts["fsy"] ** 2 + contacts["fsz"] ** 2)
    loaded = limit > 0.0
    ratio, phase = 0.0, 0.0
    if loaded.any() and mu > 0:
        ratios = np.where(loaded, tangential / (mu * np.where(loaded, limit, 1.0)), 0.0)
        at = int(np.argmax(ratios))
        ratio = float(ratios[at])
        span = steps[loaded][-1] - steps[loaded][0]
        phase = float((steps[at] - steps[loaded][0]) / span) if span > 0 else 0.0
    active = contacts["penetration"] > 0.0
    n_active = int(np.count_nonzero(active))
    return Impact(e=v_out / v_n, v_n=v_n, s0=s0, s1=s1, impulse=impulse, friction=friction, moment_error=moment,
                  arm_bound=arm, coulomb_ratio=ratio, coulomb_phase=phase, delta_max=delta_max,
                  force_max=float(np.max(contacts["normal_force"])), duration=n_active * dt, steps=n_active,
                  dv=dv, final={k: [final(r, k) for r in rows] for k in ("vx", "vz", "wy")})


# ------------------------------------------------------------ running impacts

STEPS_PER_CONTACT = 400
COMPLEMENTARITY_STEP = 1.0e-5


def _time_sets(variant: Variant, duration: float, gap_time: float) -> dict:
    if variant.stepper == "complementarity":
        return {"time.step": COMPLEMENTARITY_STEP, "time.duration": 5 * COMPLEMENTARITY_STEP}
    dt = duration / STEPS_PER_CONTACT
    return {"time.step": dt, "time.duration": gap_time + 2.0 * duration + 5 * dt}


def _impact_setup(variant: Variant, m_eff: float, r_eff: float, e_star: float, g_star: float, v_n: float,
                  mu: float, restitution: float) -> tuple[dict, Setup, float]:
    """What every impact of the benchmark starts from: the Hertz closed form of
    the head-on impact (effective mass, radius and moduli, normal speed v_n),
    the Setup the contact law is built from (tangential stiffness 8 G* a) and
    the initial gap, a thousandth of the maximum overlap (none for the
    complementarity stepper's rigid contact). Shared by plane_impact and
    pair_impact so that both tests build their laws alike."""
    hertz = hertz_impact(m_eff, r_eff, e_star, v_n)
    setup = Setup(mu=mu, restitution=restitution, m_eff=m_eff, k_t=8.0 * g_star * hertz["radius"],
                  duration=hertz["duration"])
    gap = 0.0 if variant.stepper == "complementarity" else 1e-3 * hertz["delta"]
    return hertz, setup, gap


def _run_impact(ctx, scene: str, label: str, variant: Variant, material: Material, setup: Setup, hertz: dict,
                gap: float, v_n: float, head_on_only: bool, body_sets: dict) -> Path:
    """Runs one impact scene: the spheres' material, `body_sets` (the scene's
    own bodies and walls), the variant's contact law and a time step and
    duration that resolve the contact; `head_on_only` turns the slide model
    off. Returns the output directory."""
    sets = {
        "materials.ball.youngs_modulus": material.youngs_modulus,
        "materials.ball.poisson_ratio": material.poisson_ratio,
        "materials.ball.density": material.density,
        **body_sets,
        **law_sets(variant, setup),
        **_time_sets(variant, hertz["duration"], gap / v_n),
    }
    if head_on_only:
        sets["contacts.0.slide"] = "{model: none}"
    return ctx.run_scene(scene, label, sets)


def plane_impact(ctx, label: str, variant: Variant, material: Material, radius: float, v_n: float, v_t: float,
                 spin: float, mu: float, restitution: float, head_on_only: bool = False) -> tuple[Impact, Setup]:
    """A sphere of `material` and `radius` striking the rigid plane z = 0 with
    velocity (v_t, 0, -v_n) and angular velocity (0, spin, 0)."""
    mass = sphere_mass(material, radius)
    e_star, g_star = effective_modulus(material), effective_shear_modulus(material)
    hertz, setup, gap = _impact_setup(variant, mass, radius, e_star, g_star, v_n, mu, restitution)
    out = _run_impact(ctx, SCENE_PLANE, label, variant, material, setup, hertz, gap, v_n, head_on_only, {
        "materials.rigid.youngs_modulus": RIGID_FACTOR * material.youngs_modulus,
        "materials.rigid.poisson_ratio": material.poisson_ratio,
        "bodies.ball.shape.radius": radius,
        "bodies.ball.position": f"[0, 0, {radius + gap!r}]",
        "bodies.ball.velocity": f"[{v_t!r}, 0, {-v_n!r}]",
        "bodies.ball.angular_velocity": f"[0, {spin!r}, 0]",
    })
    return measure(out, mu, [("ball", radius, mass, 0.4 * mass * radius ** 2)],
                   rigid=variant.stepper == "complementarity"), setup


def pair_impact(ctx, label: str, variant: Variant, material: Material, r_upper: float, r_lower: float,
                v_upper: tuple, v_lower: tuple, w_upper: float, w_lower: float, mu: float,
                restitution: float, head_on_only: bool = False) -> tuple[Impact, Setup]:
    """Two spheres of `material` along z, `upper` above `lower`, with
    velocities (vx, vz) and spins about y."""
    m_up, m_low = sphere_mass(material, r_upper), sphere_mass(material, r_lower)
    m_eff = m_up * m_low / (m_up + m_low)
    r_eff = r_upper * r_lower / (r_upper + r_lower)
    v_n = v_lower[1] - v_upper[1]
    e_star, g_star = effective_modulus(material, material), effective_shear_modulus(material, material)
    hertz, setup, gap = _impact_setup(variant, m_eff, r_eff, e_star, g_star, v_n, mu, restitution)
    out = _run_impact(ctx, SCENE_PAIR, label, variant, material, setup, hertz, gap, v_n, head_on_only, {
        "bodies.upper.shape.radius": r_upper,
        "bodies.lower.shape.radius": r_lower,
        "bodies.upper.position": f"[0, 0, {r_upper + r_lower + gap!r}]",
        "bodies.lower.position": "[0, 0, 0]",
        "bodies.upper.velocity": f"[{v_upper[0]!r}, 0, {v_upper[1]!r}]",
        "bodies.lower.velocity": f"[{v_lower[0]!r}, 0, {v_lower[1]!r}]",
        "bodies.upper.angular_velocity": f"[0, {w_upper!r}, 0]",
        "bodies.lower.angular_velocity": f"[0, {w_lower!r}, 0]",
    })
    bodies = [("upper", r_upper, m_up, 0.4 * m_up * r_upper ** 2), ("lower", r_lower, m_low, 0.4 * m_low * r_lower ** 2)]
    return measure(out, mu, bodies, rigid=variant.stepper == "complementarity"), setup


def drawn_series(sweeps: dict, test_key: str, materials) -> list:
    """The swept impacts of one test that a figure draws, in the figures'
    order: (index, material, variant, points, colour) for each material
    (index 0 is drawn filled, 1 open) and each variant that ran (a skipped
    variant has no points); the colour is the variant's own, the same in
    every figure."""
    series = []
    for index, name in enumerate(materials):
        for variant in VARIANTS:
            points = sweeps.get((test_key, name, variant.key))
            if points:
                series.append((index, name, variant, points, f"C{VARIANTS.index(variant)}"))
    return series


def save_normalised_figure(ctx, result, sweeps: dict, tests: list[dict], psi_top: float, xlabel: str,
                           ylabels: tuple[str, ...], title, slip_top: float, width: float, row_height: float,
                           caption: str) -> None:
    """The oblique tests' figure "normalised": a row of panels per test
    (`tests`: dicts with its "key" and "materials"), against psi from 0.1 to
    `psi_top` on a log scale, with rigid-body theory's sticking limit psi =
    7/2 dotted. Columns, one per y label: F = friction impulse / (mu x normal
    impulse) and s', the slip after impact, with rigid-body theory's curves
    (s' on a symlog scale, linear within +-1, from -1.5 to `slip_top`), and,
    given a third label, the largest |F_t| / (mu N), on a log scale with the
    Coulomb bound 1. The points: each drawn series (drawn_series), filled for
    the first material and open for the second, labelled by law and material
    (the complementarity stepper's by "rigid", its contact). title(test,
    column) titles a panel; one legend below them all."""
    import matplotlib.pyplot as plt  # here, so that validate.py has chosen the Agg backend first

    psi = np.geomspace(0.1, psi_top, 300)
    rigid = rigid_body_oblique(psi)
    figure, axes = plt.subplots(len(tests), len(ylabels), figsize=(width, row_height * len(tests)))
    for row, test in enumerate(tests):
        for col, ylabel in enumerate(ylabels):
            ax = axes[row, col]
            if col < 2:
                ax.plot(psi, rigid[col], "k-", lw=1.0, label="rigid body (Coulomb)")
            else:
                ax.axhline(1.0, color="k", lw=0.8)
            for index, name, variant, points, color in drawn_series(sweeps, test["key"], test["materials"]):
                who = "rigid" if variant.stepper == "complementarity" else name
                y = [(p.F, p.slip, p.impact.coulomb_ratio)[col] for p in points]
                ax.plot([p.psi for p in points], y, variant.marker, color=color, mfc=color if index == 0 else "none",
                        ms=5, label=f"{variant.label}, {who}")
            ax.set_xscale("log")
            ax.axvline(3.5, color="0.6", ls=":", lw=0.8)
            if col == 1:
                ax.set_yscale("symlog", linthresh=1.0)
                ax.set_ylim(-1.5, slip_top)
            if col == 2:
                ax.set_yscale("log")
            finish_axes(ax, xlabel, ylabel, title(test, col), title_size=9, grid=True)
    legend_below(figure, axes[:, 0])
    save_figure(ctx, result, figure, "normalised", caption, dpi=85, layout=False)


def legend_below(figure, first_column) -> None:
    """One legend under the panels of a figure of sweeps: every label that the
    `first_column` axes carry (every material and variant that ran), once, in
    four columns, and the figure laid out to leave it room."""
    handles, labels = [], []
    for ax in first_column:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    figure.legend(handles, labels, loc="lower center", ncol=4, fontsize=7)
    legend_rows = -(-len(labels) // 4)
    figure.tight_layout(rect=(0, (0.22 * legend_rows + 0.15) / figure.get_figheight(), 1, 1))


def coulomb_excesses(sweeps: dict):
    """The Fang & Negrut sweeps in which the tangential force exceeds mu N
    (beyond round-off) at some step, for the cases to note in numbers: for
    each, the sentence that says in how many runs, over which psi and how far
    at worst (it ends at "% of the contact", for the case to go on), and the
    sweep's gross-slip points. The paper's form leaves its stick damper
    uncapped, so these are expected and noted, not failed."""
    for (test, name, key), points in sweeps.items():
        if key != "fang_negrut":
            continue
        over = [p for p in points if p.impact.coulomb_ratio > 1.0 + COULOMB_ROUND_OFF]
        if over:
            worst = max(over, key=lambda p: p.impact.coulomb_ratio)
            summary = (f"{test}, {name}, fang_negrut: |F_t| > mu N at some step in {len(over)} of {len(points)} "
                       f"runs (psi = {min(p.psi for p in over):.3g} to {max(p.psi for p in over):.3g}); worst "
                       f"{worst.impact.coulomb_ratio:.4g} x mu N at psi = {worst.psi:.3g}, at "
                       f"{100 * worst.impact.coulomb_phase:.0f}% of the contact")
            yield summary, [p for p in points if p.psi >= GROSS_SLIP]


def condense_runs(ctx, keep: int = 6) -> None:
    """Shortens the list of CLI runs the report prints: a sweep runs the same
    scene hundreds of times with different --set values."""
    runs = ctx.runs
    if len(runs) <= keep:
        return
    total = 0.0
    for r in runs:
        try:
            total += float(r.rsplit("(", 1)[1].split(" s)")[0])
        except (IndexError, ValueError):
            pass
    ctx.runs = runs[:keep] + [f"... and {len(runs) - keep} more runs of the same scenes with other --set values "
                              f"({len(runs)} runs, {total:.1f} s of CLI time in all)"]


# ------------------------------------------------------- oblique sweeps

@dataclass
class Point:
    """One impact of an oblique sweep, normalised (rigid_body_oblique's form)."""
    variant: str
    material: str
    x: float          # the test's own abscissa (incident angle, psi given, spin given)
    impact: Impact
    setup: Setup
    psi: float = 0.0  # s0 / (mu (1 + e) v_n), e the measured restitution (two spheres: s0 m* / (mu P))
    F: float = 0.0    # friction impulse / (mu x normal impulse)
    slip: float = 0.0  # s1 / (mu (1 + e) v_n)

    def __post_init__(self):
        i = self.impact
        scale = self.setup.mu * (1.0 + i.e) * i.v_n
        if len(i.arm_bound) == 2:  # two spheres: (1 + e) v_n of rigid-body theory is P / m*
            scale = self.setup.mu * abs(i.impulse) / self.setup.m_eff
        self.psi = abs(i.s0) / scale if scale > 0 else 0.0
        self.F = i.friction / (self.setup.mu * abs(i.impulse)) if i.impulse else 0.0
        self.slip = (i.s1 if i.s0 >= 0 else -i.s1) / scale if scale > 0 else 0.0


GROSS_SLIP = 3.5 * 1.03   # psi above which a run counts as sliding throughout (3% above the rigid-body boundary)
GROSS_SLIP_TOLERANCE = 1e-3
COULOMB_ROUND_OFF = 1e-9

GROSS_SLIP_NOTE = (
    "Rigid-body theory (Coulomb, restitution e): while the contact slides throughout, the friction impulse is mu "
    "times the normal impulse, so F = friction impulse / (mu x normal impulse) = 1 exactly, whatever the normal "
    "law (Delta v_t = mu (1 + e) v_n; the spin changes by 5/2 of that over R); it slides throughout when "
    "psi = s0 / (mu (1 + e) v_n) >= 7/2, i.e. tan theta >= 7/2 mu (1 + e) for a sphere without spin on a plane "
    "(Maw, Barber & Fawcett 1976; Wu, Thornton & Li 2003). psi uses the measured e, so the check is of the "
    "friction alone; runs with psi >= 3.5 x 1.03 count. The compliant laws slide throughout there too: a "
    "capped spring sticks again only if the slip speed falls below mu (dN/dt) / k_t, the rate at which its cap "
    "rises; for the Hertz force that rate peaks during loading at 0.16 mu v_n E*/G* (<= 0.9 mu v_n for these "
    "materials, with k_t = 8 G* a_max) when the slip is still above s0 - 0.54 mu v_n, and at the deepest overlap "
    "the slip is above s0 - 7/2 mu v_n >= 7/2 mu e v_n while the rate is 0; unloading, the cap falls. "
    "For a spring-slider the spring force grows "
    "as t from the first step of contact and the cap mu N as t^(3/2), so the force is capped from the start and "
    "F = 1 to round-off; F&N leaves the first step of a contact without friction (its Sec. 3): deficits of "
    "2e-5 measured. Tolerance 1e-3; for pfc_linear, which caps at mu times the linear part F_n^l of the normal "
    "force, plus the dashpot impulse c (delta_last - delta_first) that F_n^l's impulse leaves out, at most "
    "c v_n dt = 2 beta_n (pi/N)/(1 + e) of the normal impulse (N steps in contact; 7.9e-4 measured at e = 0.5).")
COULOMB_NOTE = (
    "A Coulomb law never lets the tangential force exceed mu N (its own N: the normal force, or pfc_linear's "
    "linear part F_n^l, on which its cap acts). Measured at every step of the contact from contacts.csv "
    "(|fs| / (mu N) where N > 0); expected 1 at most, tolerance 1e-9 for round-off (the capped models sit at "
    "1 + 4e-16 while sliding).")
MOMENT_NOTE = (
    "On a plane, the forces act at the contact point and the normal one through the centre, so the sphere's "
    "angular momentum about the contact point is conserved: (I/R) Delta omega = -m Delta v_t, for every model "
    "and every angle (measured from the velocities). Between two spheres the line of centres turns while they "
    "slide past each other (by s t_c / (R1 + R2), up to 2e-3 rad here), so the normal force gains a small "
    "tangential component along the fixed axes; there each sphere's spin is compared with the friction impulse "
    "J_t summed in the contact frame from contacts.csv: (I_i/R_i) Delta omega_i = J_t. fricdem applies the "
    "tangential force at the midpoint of the overlap, R - delta/2 from the centre, so the two sides differ by at "
    "most delta_max/(2R) of the friction impulse, itself at most mu x the normal impulse P: measured "
    "|(I/R) Delta omega -+ m Delta v_t| or |(I/R) Delta omega - J_t| over mu P, tolerance delta_max/(2R) (the "
    "run's largest overlap) + 1e-9.")
RESTITUTION_OBLIQUE_NOTE = (
    "Friction does not act along the normal, so the normal rebound is the head-on one: measured v_n'/v_n "
    "against the restitution given to the law (pfc_linear: the linear oscillator's, as in test 3); tolerance "
    "2/N relative, N the steps in contact (chung_ooi_normal's rule).")


def keep_sweep(result, sweeps: dict, test_key: str, material: str, variant: Variant, points: list[Point],
               rigid_label: str) -> None:
    """Keeps one law's sweep of one test and material in `sweeps` for the
    figures and checks it (oblique_checks); a row names the complementarity
    stepper's sweep by `rigid_label`, not by the material, whose stiffness its
    rigid contact does not see."""
    sweeps[(test_key, material, variant.key)] = points
    who = rigid_label if variant.stepper == "complementarity" else material
    oblique_checks(result, f"{test_key}, {who}, {variant.key}", points, variant)


def oblique_checks(result, label: str, points: list[Point], variant: Variant) -> None:
    """The rows of one (test, material, variant) sweep."""
    if variant.stepper == "complementarity":
        return relaxed_checks(result, label, points)
    gross_slip = GROSS_SLIP
    slid = [p for p in points if p.psi >= gross_slip]
    if slid and slid[0].setup.restitution < variant.min_restitution_for_gross_slip:
        result.notes.append(f"{label}: no gross-slip row: its spring starts from zero stiffness while the damped "
                            "normal force jumps at first touch (MINDLIN_GROSS_SLIP_MIN_RESTITUTION in "
                            "chung_ooi_common.py); friction impulse / (mu x normal impulse) from "
                            f"{min(p.F for p in slid):.4f} to {max(p.F for p in slid):.4f} over psi >= {gross_slip:.2f}.")
        slid = []
    if slid:
        def tolerance(p):
            if variant.key != "pfc_linear":
                return GROSS_SLIP_TOLERANCE
            # pfc_linear caps at mu F_n^l; the dashpot impulse c (delta_last - delta_first) it leaves out is at
            # most c v_n dt, i.e. 2 beta (pi/N) / (1 + e) of the normal impulse m* (1 + e) v_n (omega_n dt = pi/N)
            ln_e = math.log(p.setup.restitution)
            beta = -ln_e / math.sqrt(math.pi ** 2 + ln_e ** 2)
            return GROSS_SLIP_TOLERANCE + 2.0 * beta * math.pi / (p.impact.steps * (1.0 + p.setup.restitution))
        worst = max(slid, key=lambda p: abs(p.F - 1.0) / tolerance(p))
        result.check(f"{label}: gross slip ({len(slid)} runs, psi >= {gross_slip:.2f}), worst friction impulse / "
                     f"(mu x normal impulse) (at psi = {worst.psi:.3g})", 1.0, worst.F, tolerance(worst),
                     basis="gross slip: friction impulse = mu x normal impulse", derivation=GROSS_SLIP_NOTE)
    worst = max(points, key=lambda p: p.impact.coulomb_ratio)
    result.check(f"{label}: all {len(points)} runs, largest |F_t| / (mu N) at any step (at psi = {worst.psi:.3g})",
                 1.0, max(worst.impact.coulomb_ratio, 1.0), COULOMB_ROUND_OFF,
                 basis="Coulomb limit at every step", derivation=COULOMB_NOTE)
    moment_check(result, label, points)
    if len(points[0].impact.arm_bound) == 2:
        return  # two spheres: the turning line of centres changes the normal speed (chung_ooi_spheres.py)
    def restitution_error(p):
        return abs(p.impact.e / p.setup.restitution - 1.0) * p.impact.steps
    worst = max(points, key=restitution_error)
    result.check(f"{label}: normal restitution, worst over the runs (N = {worst.impact.steps})",
                 worst.setup.restitution, worst.impact.e, 2.0 / worst.impact.steps, relative=True,
                 basis="normal restitution unchanged by friction", derivation=RESTITUTION_OBLIQUE_NOTE)


def moment_check(result, label: str, points: list[Point]) -> None:
    def excess(p):  # (how far the worst body is past its bound, its error / (mu P), its bound, which body)
        scale = p.setup.mu * abs(p.impact.impulse)
        return max((err / scale - bound, err / scale, bound, body)
                   for body, (err, bound) in enumerate(zip(p.impact.moment_error, p.impact.arm_bound)))
    worst = max(points, key=excess)
    _, err, bound, body = excess(worst)
    if len(worst.impact.arm_bound) == 1:
        what = "angular momentum about the contact point, worst |(I/R) dw + m dv| / (mu P)"
    else:
        what = f"spin against the friction impulse, worst |(I/R) dw - J_t| / (mu P) ({('upper', 'lower')[body]} sphere)"
    result.check(f"{label}: {what} (at psi = {worst.psi:.3g}; tolerance delta_max/2R there)", 0.0, err,
                 bound + 1e-9, basis="angular momentum about the contact point", derivation=MOMENT_NOTE)


RELAXED_NOTE = (
    "The complementarity stepper resolves the impact in one step from zero gap. Its relaxed cone complementarity "
    "problem (Tasora & Anitescu Eq. 26-28, docs/models/complementarity.md) makes a sliding contact separate at "
    "u_n = mu |u_t| instead of 0: with P/m* = (v_n + mu s0) / (1 + 7/2 mu^2) the expected separation speed is "
    "P/m* - v_n and the slip after s0 - 7/2 mu P/m* when s0 > 7/2 mu v_n; otherwise the contact sticks (both "
    "0: rolling at 5/7 of the tangential speed for a sphere on a plane). Compared per run, worst error over "
    "v_n; tolerance 1e-9 (solver tolerance 1e-12 m/s). This is not the Coulomb rigid-body impact (e = 0, "
    "separation 0): the relaxation adds the normal impulse mu^2 s0 / (1 + 7/2 mu^2) - 7/2 mu^2 v_n / (1 + 7/2 "
    "mu^2), which makes the rebound and the friction impulse grow with the slip (the figures show both).")


def relaxed_expectation(p: Point) -> tuple[float, float]:
    """(separation speed, slip after) of the relaxed one-step impact."""
    i = p.impact
    impulse, sliding = relaxed_ccp_impulse(i.v_n, abs(i.s0), p.setup.mu)
    if sliding:
        return impulse - i.v_n, abs(i.s0) - 3.5 * p.setup.mu * impulse
    return 0.0, 0.0


def relaxed_checks(result, label: str, points: list[Point]) -> None:
    errors = []
    for p in points:
        separation, slip = relaxed_expectation(p)
        i = p.impact
        errors.append((max(abs(i.e * i.v_n - separation), abs(abs(i.s1) - slip)) / i.v_n, p))
    worst, p = max(errors, key=lambda t: t[0])
    result.check(f"{label}: all {len(points)} runs against the relaxed one-step impulse, worst |error| / v_n "
                 f"(at psi_0 = s0/(mu v_n) = {abs(p.impact.s0) / (p.setup.mu * p.impact.v_n):.3g})", 0.0, worst, 1e-9,
                 basis="complementarity: the relaxed rigid impact", derivation=RELAXED_NOTE)
    worst = max(points, key=lambda p: p.impact.coulomb_ratio)
    result.check(f"{label}: all {len(points)} runs, largest |F_t| / (mu N) at any step", 1.0,
                 max(worst.impact.coulomb_ratio, 1.0), COULOMB_ROUND_OFF, basis="Coulomb limit at every step",
                 derivation=COULOMB_NOTE)
    moment_check(result, label, points)
