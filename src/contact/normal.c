/* Normal force sub-models: prescribed, hooke, hertz.
 *
 * Damping and restitution. Both hooke and hertz take a coefficient of
 * restitution e and turn it into a dashpot. The textbook relations
 * (linear: zeta = -ln e / sqrt(pi^2 + ln^2 e); Hertz: Tsuji, Tanaka & Ishida,
 * Powder Technol. 71 (1992) 239, as used by Chrono and LIGGGHTS) assume that
 * the contact ends when the overlap returns to zero. A contact force cannot
 * pull, so we clamp it at zero, and then the bodies part earlier, where
 * spring + dashpot = 0, and the real restitution differs from e (for e = 0.5
 * by several per cent). Instead we find the dashpot that gives exactly e with
 * the clamp: in units that scale out mass, stiffness and impact speed, both
 * laws read
 *
 *     x'' = -x^p - gamma x^q x',   x(0) = 0, x'(0) = 1,
 *
 * (linear: p = 1, q = 0, gamma = 2 zeta; Hertz: p = 3/2, q = 1/4, the
 * Tsuji-form dashpot c = gamma sqrt(m K) delta^(1/4)), whose restitution
 * -x'(t_end) depends on gamma alone (for Hertz because c delta^(1/4) scales
 * with the impact speed exactly as the spring does). We integrate that
 * equation once per law and bisect on gamma.
 *
 * LAMMPS dashpots. hooke also takes the dashpot of LAMMPS `pair_style
 * granular` `hooke k_n eta_n0` directly: `damping velocity` is c = eta_n0
 * (our eta_n), `damping mass_velocity` c = eta_n0 m_eff (our eta_n_mass); the
 * LAMMPS damping force is -c v_n with v_n = (v_i - v_j) . n = -d(delta)/dt,
 * the same c d(delta)/dt. LAMMPS clamps the total force at zero only with its
 * `limit_damping` keyword; limit_damping = 0 here lets the dashpot pull as
 * LAMMPS does by default. */
#include <math.h>
#include <string.h>

#include "contact/model.h"
#include "core/error.h"

/* ---------------------------------------------------------------- restitution calibration */

/* Force of the dimensionless law; x clamped at 0 so x^q is defined. */
static double scaled_force(double p, double q, double gamma, double x, double v)
{
    double xc = x > 0.0 ? x : 0.0;
    return -pow(xc, p) - gamma * (q == 0.0 ? 1.0 : pow(xc, q)) * v;
}

/* Restitution of one dimensionless impact, RK4 with step h = 1e-3 of the
 * scaled time (the undamped contact lasts pi for p = 1 and 3.22 for p = 3/2,
 * so >= 3000 steps; RK4 error ~h^4 is far below the 1e-6 we need). The end
 * is where the clamped force first reaches zero, found by linear interpolation. */
static double restitution_of_scaled_law(double p, double q, double gamma)
{
    const double h = 1e-3;
    double x = 0.0, v = 1.0;
    for (int step = 0; step < 1000000; ++step) {
        double k1x = v, k1v = scaled_force(p, q, gamma, x, v);
        double k2x = v + 0.5 * h * k1v, k2v = scaled_force(p, q, gamma, x + 0.5 * h * k1x, v + 0.5 * h * k1v);
        double k3x = v + 0.5 * h * k2v, k3v = scaled_force(p, q, gamma, x + 0.5 * h * k2x, v + 0.5 * h * k2v);
        double k4x = v + h * k3v, k4v = scaled_force(p, q, gamma, x + h * k3x, v + h * k3v);
        double x1 = x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        double v1 = v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        double f0 = -scaled_force(p, q, gamma, x, v);   /* repulsive force, > 0 while pushing */
        double f1 = -scaled_force(p, q, gamma, x1, v1);
        if (step > 0 && (f1 <= 0.0 || x1 <= 0.0)) {
            /* Interpolate to the zero of the force (or of x, whichever first). */
            double s = 1.0;
            if (f1 <= 0.0 && f0 > 0.0) {
                s = f0 / (f0 - f1);
            }
            if (x1 <= 0.0 && x > 0.0) {
                double sx = x / (x - x1);
                s = sx < s ? sx : s;
            }
            double v_end = v + s * (v1 - v);
            return v_end < 0.0 ? -v_end : 0.0;
        }
        x = x1;
        v = v1;
    }
    return 0.0;
}

static double damping_for_restitution(double p, double q, double restitution)
{
    if (restitution >= 1.0) {
        return 0.0;
    }
    double low = 0.0, high = 1.0;
    while (restitution_of_scaled_law(p, q, high) > restitution && high < 1e6) {
        low = high;
        high *= 2.0;
    }
    for (int iteration = 0; iteration < 60 && high - low > 1e-12 * high; ++iteration) {
        double mid = 0.5 * (low + high);
        if (restitution_of_scaled_law(p, q, mid) > restitution) {
            low = mid;
        } else {
            high = mid;
        }
    }
    return 0.5 * (low + high);
}

double fd_hertz_damping_for_restitution(double restitution) { return damping_for_restitution(1.5, 0.25, restitution); }
double fd_hertz_restitution_for_damping(double gamma) { return restitution_of_scaled_law(1.5, 0.25, gamma); }

/* ---------------------------------------------------------------- resolve */

enum { PRESCRIBED_FORCE = 0 };
enum { HERTZ_RESTITUTION = 0 };

static fd_status resolve_prescribed(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    return FD_OK;
}

static fd_status resolve_hooke(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    double restitution = params[FD_HOOKE_RESTITUTION], limit = params[FD_HOOKE_LIMIT_DAMPING];
    int dashpots = (restitution < 1.0) + (params[FD_HOOKE_ETA_N] > 0.0) + (params[FD_HOOKE_ETA_N_MASS] > 0.0);
    if (dashpots > 1) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hooke' takes one dashpot: restitution < 1, eta_n (LAMMPS damping velocity) or "
                       "eta_n_mass (LAMMPS damping mass_velocity); got restitution = %g, eta_n = %g N s/m, "
                       "eta_n_mass = %g 1/s",
                       restitution, params[FD_HOOKE_ETA_N], params[FD_HOOKE_ETA_N_MASS]);
    }
    if (limit != 0.0 && limit != 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hooke': limit_damping is 1 (N >= 0) or 0 (the dashpot may pull), got %g", limit);
    }
    if (limit == 0.0 && restitution < 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hooke': limit_damping = 0 is for the LAMMPS dashpots eta_n and eta_n_mass; the "
                       "restitution calibration assumes the clamp N >= 0");
    }
    derived[FD_NORMAL_DERIVED_GAMMA] = damping_for_restitution(1.0, 0.0, restitution);
    return FD_OK;
}

static fd_status resolve_hertz(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    if (!(a->youngs_modulus > 0.0) || !(b->youngs_modulus > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hertz' needs youngs_modulus > 0 for materials '%s' and '%s' (got %g and %g Pa)",
                       a->name, b->name, a->youngs_modulus, b->youngs_modulus);
    }
    /* Johnson, Contact Mechanics, Eq. (4.22): 1/E* = (1 - nu1^2)/E1 + (1 - nu2^2)/E2. */
    double compliance = (1.0 - a->poisson_ratio * a->poisson_ratio) / a->youngs_modulus +
                        (1.0 - b->poisson_ratio * b->poisson_ratio) / b->youngs_modulus;
    derived[FD_NORMAL_DERIVED_MODULUS] = 1.0 / compliance;
    derived[FD_NORMAL_DERIVED_GAMMA] = damping_for_restitution(1.5, 0.25, params[HERTZ_RESTITUTION]);
    return FD_OK;
}

/* ---------------------------------------------------------------- kernels */

/* hooke's dashpot (N s/m): c = gamma sqrt(m k) (gamma = 2 zeta, calibrated
 * above), or a LAMMPS dashpot: c = eta_n, or c = eta_n_mass m_eff. */
static double hooke_dashpot(const double* params, const double* derived, double effective_mass)
{
    double damping = derived[FD_NORMAL_DERIVED_GAMMA] * sqrt(effective_mass * params[FD_HOOKE_STIFFNESS]);
    if (params[FD_HOOKE_ETA_N] > 0.0) {
        damping = params[FD_HOOKE_ETA_N];
    } else if (params[FD_HOOKE_ETA_N_MASS] > 0.0) {
        damping = params[FD_HOOKE_ETA_N_MASS] * effective_mass;
    }
    return damping;
}

/* hertz's dashpot (N s/m), Tsuji et al. (1992) form: c = gamma sqrt(m K)
 * delta^(1/4), with root_overlap = sqrt(delta). */
static double hertz_dashpot(const double* derived, double effective_mass, double hertz_constant, double root_overlap)
{
    return derived[FD_NORMAL_DERIVED_GAMMA] * sqrt(effective_mass * hertz_constant) * sqrt(root_overlap);
}

static double hertz_constant_of(const double* derived, double effective_radius)
{
    /* Johnson Eq. (4.23): F = K delta^(3/2), K = 4/3 E* sqrt(R). */
    return 4.0 / 3.0 * derived[FD_NORMAL_DERIVED_MODULUS] * sqrt(effective_radius);
}

double fd_normal_damping_coefficient(const fd_contact_law* law, const fd_contact_input* input)
{
    const double* params = law->params[FD_MECHANISM_NORMAL];
    const double* derived = law->derived[FD_MECHANISM_NORMAL];
    double overlap = input->geometry->penetration > 0.0 ? input->geometry->penetration : 0.0;
    switch (law->submodel[FD_MECHANISM_NORMAL]->kind) {
    case FD_KIND_NORMAL_HOOKE:
        /* No dashpot without overlap, as in fd_normal_evaluate. */
        return overlap > 0.0 ? hooke_dashpot(params, derived, input->effective_mass) : 0.0;
    case FD_KIND_NORMAL_HERTZ:
        return hertz_dashpot(derived, input->effective_mass,
                             hertz_constant_of(derived, input->geometry->effective_radius), sqrt(overlap));
    default:
        return 0.0;
    }
}

fd_normal_result fd_normal_evaluate(const fd_contact_law* law, const fd_contact_input* input)
{
    fd_normal_result result = {0};
    const fd_submodel* model = law->submodel[FD_MECHANISM_NORMAL];
    const double* params = law->params[FD_MECHANISM_NORMAL];
    const double* derived = law->derived[FD_MECHANISM_NORMAL];
    double delta = input->geometry->penetration;
    switch (model->kind) {
    case FD_KIND_NORMAL_PRESCRIBED:
        /* Fang & Negrut Sec. 4.1-4.4: N given (m g cos alpha) while the contact is active. */
        result.elastic_force = params[PRESCRIBED_FORCE];
        break;
    case FD_KIND_NORMAL_HOOKE: {
        double k = params[FD_HOOKE_STIFFNESS];
        double overlap = delta > 0.0 ? delta : 0.0;
        /* Linear spring-dashpot. */
        double damping = hooke_dashpot(params, derived, input->effective_mass);
        result.elastic_force = k * overlap;
        /* No dashpot without overlap: within a positive contact_margin the
         * bodies do not touch yet, and a rate-only force would act at a distance. */
        result.damping_force = overlap > 0.0 ? damping * input->penetration_rate : 0.0;
        result.elastic_energy = 0.5 * k * overlap * overlap;
        if (params[FD_HOOKE_LIMIT_DAMPING] == 0.0) {
            result.force = result.elastic_force + result.damping_force; /* LAMMPS without limit_damping */
            return result;
        }
        break;
    }
    case FD_KIND_NORMAL_HERTZ: {
        double overlap = delta > 0.0 ? delta : 0.0;
        /* Johnson Eq. (4.23): F = 4/3 E* sqrt(R) delta^(3/2); stored energy 2/5 K delta^(5/2). */
        double hertz_constant = hertz_constant_of(derived, input->geometry->effective_radius);
        double root_overlap = sqrt(overlap);
        result.elastic_force = hertz_constant * overlap * root_overlap;
        result.damping_force =
            hertz_dashpot(derived, input->effective_mass, hertz_constant, root_overlap) * input->penetration_rate;
        result.elastic_energy = 0.4 * hertz_constant * overlap * overlap * root_overlap;
        break;
    }
    case FD_KIND_NORMAL_PFC_LINEAR:
        /* PFC linear (src/contact/pfc.c): keeps F_n^l in its history, and its
         * full-normal dashpot modes may pull, so no clamp here. */
        return fd_pfc_normal(law, input);
    default:
        break;
    }
    double total = result.elastic_force + result.damping_force;
    result.force = total > 0.0 ? total : 0.0; /* contacts push, never pull */
    return result;
}

/* Stability limit of symplectic Euler / velocity Verlet for m x'' = -k x - c x':
 * dt < 2 sqrt(m/k) (sqrt(1 + zeta^2) - zeta), zeta = c / (2 sqrt(m k)); for
 * zeta = 0 the familiar 2 sqrt(m/k), for a critically damped spring 0.41 of it. */
static double damped_critical_step(double mass, double stiffness, double zeta)
{
    if (!(stiffness > 0.0) || !(mass > 0.0)) {
        return INFINITY;
    }
    return 2.0 * sqrt(mass / stiffness) * (sqrt(1.0 + zeta * zeta) - zeta);
}

fd_critical_step fd_contact_law_critical_step(const fd_contact_law* law, double smallest_radius, double lightest_mass)
{
    fd_critical_step limit = {INFINITY, 0.0, 0.0, "none"};
    const fd_submodel* normal = law->submodel[FD_MECHANISM_NORMAL];
    const double* normal_params = law->params[FD_MECHANISM_NORMAL];
    const double* normal_derived = law->derived[FD_MECHANISM_NORMAL];
    double stiffness = 0.0, zeta = 0.0;
    switch (normal->kind) {
    case FD_KIND_NORMAL_HOOKE:
        stiffness = normal_params[FD_HOOKE_STIFFNESS];
        zeta = 0.5 * normal_derived[FD_NORMAL_DERIVED_GAMMA]; /* c = gamma sqrt(m k) */
        if (stiffness > 0.0 && lightest_mass > 0.0) {
            /* LAMMPS dashpots: c = eta_n or eta_n_mass m, zeta = c / (2 sqrt(m k)). */
            double root = 2.0 * sqrt(lightest_mass * stiffness);
            zeta += (normal_params[FD_HOOKE_ETA_N] + normal_params[FD_HOOKE_ETA_N_MASS] * lightest_mass) / root;
        }
        break;
    case FD_KIND_NORMAL_HERTZ: {
        /* Tangent stiffness 1.5 K sqrt(delta) = 2 E* sqrt(R_e delta) at a
         * reference overlap delta = 1% of R_e, R_e = r_min / 2 (two of the
         * smallest spheres); the dashpot gamma sqrt(m K) delta^(1/4) gives
         * zeta = gamma / (2 sqrt(1.5)) for that linearisation. */
        double radius = 0.5 * smallest_radius;
        stiffness = 2.0 * normal_derived[FD_NORMAL_DERIVED_MODULUS] * sqrt(radius * 0.01 * radius);
        zeta = normal_derived[FD_NORMAL_DERIVED_GAMMA] / (2.0 * sqrt(1.5));
        break;
    }
    case FD_KIND_NORMAL_PFC_LINEAR:
        /* kn, or by the deformability method k_n = A E* / L, largest for the
         * smallest ball on a plane: pi r^2 E* / r (PFC linear model). */
        stiffness = normal_params[0] >= 0.0 ? normal_params[0] : FD_PI * smallest_radius * normal_params[5];
        zeta = normal_params[1]; /* dp_nratio */
        break;
    default:
        break;
    }
    double step = damped_critical_step(lightest_mass, stiffness, zeta);
    if (step < limit.time_step) {
        limit = (fd_critical_step){step, stiffness, zeta, "normal"};
    }
    /* The normal dashpot at that reference, c = 2 zeta sqrt(m k) (mindlin's
     * is a fraction of it). */
    double normal_dashpot = stiffness > 0.0 && lightest_mass > 0.0 ? 2.0 * zeta * sqrt(lightest_mass * stiffness) : 0.0;
    /* The slide spring acts on the same mass: its stiffness and dashpot count too. */
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    if (slide != NULL) {
        const double* p = law->params[FD_MECHANISM_SLIDE];
        double k = 0.0, c = 0.0;
        if (slide->kind == FD_KIND_SLIDE_FANG_NEGRUT) {
            k = p[2];                                                          /* K_E */
            c = p[3] < 0.0 ? 2.0 * sqrt(lightest_mass * k) : p[3];             /* K_D, Eq. (1c) */
        } else if (slide->kind == FD_KIND_SLIDE_DSDS || slide->kind == FD_KIND_SLIDE_CSDS) {
            k = p[0];                                                          /* k_t */
            c = p[1];                                                          /* gamma_t */
        } else if (fd_kind_is_mindlin(slide->kind)) {
            /* k_t a at the reference overlap delta = 1% of R_e, R_e = r_min / 2:
             * a = sqrt(R_e delta) = 0.1 R_e; dashpot x_gamma_t c_n. */
            k = law->derived[FD_MECHANISM_SLIDE][FD_MINDLIN_DERIVED_K_T] * 0.1 * (0.5 * smallest_radius);
            c = p[FD_MINDLIN_X_GAMMA_T] * normal_dashpot;
        } else if (slide->kind == FD_KIND_SLIDE_PFC_LINEAR) {
            double ratio = normal_params[6];                                   /* kratio */
            k = p[0] >= 0.0 ? p[0] : (ratio > 0.0 ? stiffness / ratio : 0.0); /* ks */
            c = 2.0 * p[2] * sqrt(lightest_mass * k);                          /* dp_sratio */
        }
        double z = k > 0.0 && lightest_mass > 0.0 ? c / (2.0 * sqrt(lightest_mass * k)) : 0.0;
        step = damped_critical_step(lightest_mass, k, z);
        if (step < limit.time_step) {
            limit = (fd_critical_step){step, k, z, "slide"};
        }
        /* C-SDS advances its spring by explicit Euler on d(xi)/dt = -(k xi +
         * F)/gamma while sliding (Eq. 10): stable for dt < 2 gamma / k,
         * whatever the mass. */
        if (slide->kind == FD_KIND_SLIDE_CSDS && k > 0.0 && 2.0 * c / k < limit.time_step) {
            limit = (fd_critical_step){2.0 * c / k, k, z, "slide (C-SDS spring update, 2 gamma_t / k_t)"};
        }
    }
    /* The roll and spin springs of sds_torque.c turn a sphere of the smallest
     * radius r and the lightest mass m, I = 2/5 m r^2. Rolling: k_roll R_eff^2
     * with R_eff <= r on I is the stiffness k_roll / 0.4 on m; twisting:
     * k_twist / (0.4 r^2) on m; their dashpots likewise. */
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    if (roll != NULL && (roll->kind == FD_KIND_ROLL_DSDS || roll->kind == FD_KIND_ROLL_CSDS)) {
        const double* p = law->params[FD_MECHANISM_ROLL];
        double k = p[0] / 0.4, c = p[1] / 0.4; /* k_roll, gamma_roll */
        double z = lightest_mass > 0.0 ? c / (2.0 * sqrt(lightest_mass * k)) : 0.0;
        step = damped_critical_step(lightest_mass, k, z);
        if (step < limit.time_step) {
            limit = (fd_critical_step){step, k, z, "roll"};
        }
    }
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    if (spin != NULL && (spin->kind == FD_KIND_SPIN_DSDS || spin->kind == FD_KIND_SPIN_CSDS) && smallest_radius > 0.0) {
        const double* p = law->params[FD_MECHANISM_SPIN];
        double scale = 1.0 / (0.4 * smallest_radius * smallest_radius);
        double k = p[0] * scale, c = p[1] * scale; /* k_twist, gamma_twist */
        double z = lightest_mass > 0.0 ? c / (2.0 * sqrt(lightest_mass * k)) : 0.0;
        step = damped_critical_step(lightest_mass, k, z);
        if (step < limit.time_step) {
            limit = (fd_critical_step){step, k, z, "spin"};
        }
    }
    return limit;
}

/* ---------------------------------------------------------------- table */

static const fd_param_info prescribed_params[] = {
    {"force", "N", "normal force applied while the contact is active (Fang & Negrut Sec. 4.1: m g cos alpha)", NAN, 0.0,
     INFINITY},
};

static const fd_param_info hooke_params[] = {
    {"k_n", "N/m", "normal spring stiffness", NAN, 0.0, INFINITY},
    {"restitution", "-", "coefficient of restitution of a head-on impact (1 = no damping)", 1.0, 0.01, 1.0},
    {"eta_n", "N s/m", "dashpot c = eta_n, as LAMMPS hooke k_n eta_n with damping velocity; 0 = none", 0.0, 0.0,
     INFINITY},
    {"eta_n_mass", "1/s", "dashpot c = eta_n_mass m_eff, as LAMMPS hooke k_n eta_n with damping mass_velocity; 0 = none",
     0.0, 0.0, INFINITY},
    {"limit_damping", "-",
     "1 = clamp the total force at N >= 0; 0 = the dashpot may pull (LAMMPS without limit_damping; with eta_n or "
     "eta_n_mass only)",
     1.0, 0.0, 1.0},
};

static const fd_param_info hertz_params[] = {
    {"restitution", "-", "coefficient of restitution of a head-on impact (1 = no damping)", 1.0, 0.01, 1.0},
};

static const char* const normal_columns[] = {"normal_elastic_force", "normal_damping_force"};
static const char* const normal_units[] = {"N", "N"};

const fd_submodel fd_normal_submodels[] = {
    {
        .info = {"prescribed", FD_MECHANISM_NORMAL,
                 "Constant normal force N while the bodies touch; no normal dynamics (lock the normal "
                 "translation). Fang & Negrut Sec. 4.1 to 4.4.",
                 prescribed_params, 1},
        .kind = FD_KIND_NORMAL_PRESCRIBED,
        .resolve = resolve_prescribed,
    },
    {
        .info = {"hooke", FD_MECHANISM_NORMAL,
                 "Linear spring-dashpot N = k_n delta + c d(delta)/dt, clamped at N >= 0; c from the "
                 "restitution, calibrated so that a head-on impact has exactly that restitution with the clamp, or "
                 "c = eta_n (LAMMPS damping velocity) or eta_n_mass m_eff (damping mass_velocity).",
                 hooke_params, 5},
        .kind = FD_KIND_NORMAL_HOOKE,
        .column_count = 2,
        .column_names = normal_columns,
        .column_units = normal_units,
        .resolve = resolve_hooke,
    },
    {
        .info = {"hertz", FD_MECHANISM_NORMAL,
                 "Hertz N = 4/3 E* sqrt(R_e) delta^(3/2) (Johnson Eq. 4.23) with E* from youngs_modulus and "
                 "poisson_ratio of both materials and R_e the effective radius of the contact geometry; "
                 "dashpot of Tsuji et al. (1992) form c ~ delta^(1/4), calibrated to the restitution.",
                 hertz_params, 1},
        .kind = FD_KIND_NORMAL_HERTZ,
        .column_count = 2,
        .column_names = normal_columns,
        .column_units = normal_units,
        .resolve = resolve_hertz,
    },
};
const int fd_normal_submodel_count = (int)(sizeof fd_normal_submodels / sizeof fd_normal_submodels[0]);
