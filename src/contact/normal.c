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
 * the same c d(delta)/dt; `damping viscoelastic` (LAMMPS's default) c =
 * eta_n0 a m_eff with a = sqrt(R_eff delta), the contact radius (our
 * eta_n_visco). LAMMPS clamps the total force at zero only with its
 * `limit_damping` keyword; limit_damping = 0 here lets the dashpot pull as
 * LAMMPS does by default.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
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

/* Tsuji, Tanaka & Ishida (1992)'s fit of the damping ratio alpha(e) of a
 * Hertz contact to its restitution e, a sixth-degree polynomial, which
 * LAMMPS's `damping tsuji` applies to hooke and hertz alike (c = alpha
 * sqrt(m_eff k) for hooke, alpha sqrt(m_eff K) delta^(1/4) for hertz). It
 * assumes no clamp, so with limit_damping its restitution is not quite e:
 * fricdem's own `restitution` calibrates instead (above); this is for decks
 * that must match LAMMPS. */
static double tsuji_alpha(double e)
{
    static const double coefficient[7] = {1.2728, -4.2783, 11.087, -22.348, 27.467, -18.022, 4.8218};
    double alpha = 0.0, power = 1.0;
    for (int k = 0; k < 7; ++k) {
        alpha += coefficient[k] * power;
        power *= e;
    }
    return alpha;
}

/* LAMMPS's `damping coeff_restitution` (LAMMPS 2023 and later,
 * gran_sub_mod_damping.cpp): c = gamma sqrt(m_eff F_n / delta), which is
 * gamma sqrt(m_eff k) for hooke and gamma sqrt(m_eff K) delta^(1/4) for hertz,
 * with gamma = -2 ln e / sqrt(pi^2 + ln^2 e) for hooke (the linear
 * oscillator's damping ratio for restitution e, exact without the clamp) and
 * sqrt(3/2) 2 sqrt(5/6) times the same for hertz (Tsuji et al.'s closed
 * form), in LAMMPS's order of operations. */
static double coeff_restitution_gamma(double e, bool hertz)
{
    double log_e = log(e);
    if (!hertz) {
        return -2.0 * log_e / sqrt(FD_PI * FD_PI + log_e * log_e);
    }
    const double root_three_by_two = 1.22474487139158894067, two_root_five_by_six = 1.82574185835055380345;
    return -root_three_by_two * two_root_five_by_six * log_e / sqrt(FD_PI * FD_PI + log_e * log_e);
}

/* tsuji_sqrt2: 0 (LAMMPS 2021's alpha(e)) or 1 (sqrt(2) alpha(e), the
 * "effective mass convention" of newer LAMMPS, gran_sub_mod_damping.cpp), and
 * only with tsuji. */
static fd_status check_tsuji_sqrt2(const char* model, double tsuji, double sqrt2)
{
    if (sqrt2 != 0.0 && sqrt2 != 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "normal model '%s': tsuji_sqrt2 is 0 or 1 (got %g)", model, sqrt2);
    }
    if (sqrt2 == 1.0 && !(tsuji > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "normal model '%s': tsuji_sqrt2 = 1 scales the tsuji dashpot, "
                       "which is off (tsuji = %g)", model, tsuji);
    }
    return FD_OK;
}

/* A tsuji or coeff_restitution parameter: -1 (off) or a restitution in (0, 1]. */
static fd_status check_lammps_restitution(const char* model, const char* name, double e)
{
    if (e != -1.0 && !(e > 0.0 && e <= 1.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "normal model '%s': %s is -1 (off) or a restitution in (0, 1] (got %g)",
                       model, name, e);
    }
    return FD_OK;
}

static fd_status check_tsuji(const char* model, double tsuji, double coeff_restitution)
{
    fd_status status = check_lammps_restitution(model, "tsuji", tsuji);
    return status == FD_OK ? check_lammps_restitution(model, "coeff_restitution", coeff_restitution) : status;
}

/* gamma of c = gamma sqrt(m k) (hooke) or gamma sqrt(m K) delta^(1/4) (hertz). */
static double derived_gamma(double tsuji, double tsuji_sqrt2, double coeff_restitution, double restitution,
                            bool hertz)
{
    if (tsuji > 0.0) {
        /* Newer LAMMPS multiplies alpha by sqrt(2) after the polynomial (MY_SQRT2: the same double). */
        return tsuji_sqrt2 == 1.0 ? tsuji_alpha(tsuji) * 1.41421356237309504880 : tsuji_alpha(tsuji);
    }
    if (coeff_restitution > 0.0) {
        return coeff_restitution_gamma(coeff_restitution, hertz);
    }
    return hertz ? damping_for_restitution(1.5, 0.25, restitution) : damping_for_restitution(1.0, 0.0, restitution);
}
double fd_hertz_restitution_for_damping(double gamma) { return restitution_of_scaled_law(1.5, 0.25, gamma); }

/* ---------------------------------------------------------------- resolve */

enum { PRESCRIBED_FORCE = 0 };

static fd_status resolve_prescribed(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    return FD_OK;
}

static fd_status resolve_hooke(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    double restitution = params[FD_HOOKE_RESTITUTION], limit = params[FD_HOOKE_LIMIT_DAMPING];
    fd_status status = check_tsuji("hooke", params[FD_HOOKE_TSUJI], params[FD_HOOKE_COEFF_RESTITUTION]);
    status =
        status == FD_OK ? check_tsuji_sqrt2("hooke", params[FD_HOOKE_TSUJI], params[FD_HOOKE_TSUJI_SQRT2]) : status;
    if (status != FD_OK) {
        return status;
    }
    int dashpots = (restitution < 1.0) + (params[FD_HOOKE_ETA_N] > 0.0) + (params[FD_HOOKE_ETA_N_MASS] > 0.0) +
                   (params[FD_HOOKE_ETA_N_VISCO] > 0.0) + (params[FD_HOOKE_TSUJI] > 0.0) +
                   (params[FD_HOOKE_COEFF_RESTITUTION] > 0.0);
    if (dashpots > 1) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hooke' takes one dashpot: restitution < 1, eta_n (LAMMPS damping velocity), "
                       "eta_n_mass (damping mass_velocity), eta_n_visco (damping viscoelastic), tsuji (damping "
                       "tsuji) or coeff_restitution; got restitution = %g, eta_n = %g N s/m, eta_n_mass = %g 1/s, "
                       "eta_n_visco = %g 1/(m s), tsuji = %g, coeff_restitution = %g",
                       restitution, params[FD_HOOKE_ETA_N], params[FD_HOOKE_ETA_N_MASS], params[FD_HOOKE_ETA_N_VISCO],
                       params[FD_HOOKE_TSUJI], params[FD_HOOKE_COEFF_RESTITUTION]);
    }
    if (limit != 0.0 && limit != 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hooke': limit_damping is 1 (N >= 0) or 0 (the dashpot may pull), got %g", limit);
    }
    if (limit == 0.0 && restitution < 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hooke': limit_damping = 0 is for the LAMMPS dashpots eta_n, eta_n_mass and "
                       "eta_n_visco; the "
                       "restitution calibration assumes the clamp N >= 0");
    }
    /* c = gamma sqrt(m k): calibrated to the restitution, Tsuji's alpha(e) (LAMMPS tsuji) or the linear
     * oscillator's damping ratio (LAMMPS coeff_restitution). */
    derived[FD_NORMAL_DERIVED_GAMMA] =
        derived_gamma(params[FD_HOOKE_TSUJI], params[FD_HOOKE_TSUJI_SQRT2], params[FD_HOOKE_COEFF_RESTITUTION],
                      restitution, false);
    return FD_OK;
}

static fd_status resolve_hertz(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    if (!(a->youngs_modulus > 0.0) || !(b->youngs_modulus > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hertz' needs youngs_modulus > 0 for materials '%s' and '%s' (got %g and %g Pa)",
                       a->name, b->name, a->youngs_modulus, b->youngs_modulus);
    }
    derived[FD_NORMAL_DERIVED_MODULUS] =
        fd_hertz_modulus(a->youngs_modulus, a->poisson_ratio, b->youngs_modulus, b->poisson_ratio);
    fd_status status = check_tsuji("hertz", params[FD_HERTZ_TSUJI], params[FD_HERTZ_COEFF_RESTITUTION]);
    status =
        status == FD_OK ? check_tsuji_sqrt2("hertz", params[FD_HERTZ_TSUJI], params[FD_HERTZ_TSUJI_SQRT2]) : status;
    if (status != FD_OK) {
        return status;
    }
    int dashpots = (params[FD_HERTZ_RESTITUTION] < 1.0) + (params[FD_HERTZ_ETA_N] > 0.0) +
                   (params[FD_HERTZ_ETA_N_MASS] > 0.0) + (params[FD_HERTZ_ETA_N_VISCO] > 0.0) +
                   (params[FD_HERTZ_TSUJI] > 0.0) + (params[FD_HERTZ_COEFF_RESTITUTION] > 0.0);
    if (dashpots > 1) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hertz' takes one dashpot: restitution < 1 (Tsuji's form), eta_n (LAMMPS damping "
                       "velocity), eta_n_mass (mass_velocity), eta_n_visco (viscoelastic), tsuji or coeff_restitution; "
                       "got restitution = %g, "
                       "eta_n = %g N s/m, eta_n_mass = %g 1/s, eta_n_visco = %g 1/(m s)",
                       params[FD_HERTZ_RESTITUTION], params[FD_HERTZ_ETA_N], params[FD_HERTZ_ETA_N_MASS],
                       params[FD_HERTZ_ETA_N_VISCO]);
    }
    double limit = params[FD_HERTZ_LIMIT_DAMPING];
    if (limit != 0.0 && limit != 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hertz': limit_damping is 1 (N >= 0) or 0 (the dashpot may pull), got %g", limit);
    }
    if (limit == 0.0 && params[FD_HERTZ_RESTITUTION] < 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'hertz': limit_damping = 0 is for LAMMPS's dashpots (eta_n, eta_n_mass, "
                       "eta_n_visco, tsuji, coeff_restitution); the restitution calibration assumes the clamp N >= 0");
    }
    derived[FD_NORMAL_DERIVED_GAMMA] = derived_gamma(params[FD_HERTZ_TSUJI], params[FD_HERTZ_TSUJI_SQRT2],
                                                     params[FD_HERTZ_COEFF_RESTITUTION], params[FD_HERTZ_RESTITUTION],
                                                     true);
    return FD_OK;
}

/* ---------------------------------------------------------------- kernels */

/* A LAMMPS dashpot's prefactor, the same for hooke and hertz: eta_n
 * (damping velocity), eta_n_mass m (mass_velocity) or eta_n_visco m
 * (viscoelastic, times a per contact); -1 when the law has none of them. */
static double lammps_dashpot_prefactor(double eta_n, double eta_n_mass, double eta_n_visco, double effective_mass)
{
    if (eta_n > 0.0) {
        return eta_n;
    }
    if (eta_n_mass > 0.0) {
        return eta_n_mass * effective_mass;
    }
    return eta_n_visco > 0.0 ? eta_n_visco * effective_mass : -1.0;
}

double fd_normal_dashpot_prefactor(const fd_contact_law* law, double effective_mass, double effective_radius)
{
    const double* p = law->params[FD_MECHANISM_NORMAL];
    const double* derived = law->derived[FD_MECHANISM_NORMAL];
    if (law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ) {
        double lammps = lammps_dashpot_prefactor(p[FD_HERTZ_ETA_N], p[FD_HERTZ_ETA_N_MASS], p[FD_HERTZ_ETA_N_VISCO],
                                                 effective_mass);
        /* Otherwise Tsuji et al. (1992): gamma sqrt(m K), times delta^(1/4) per contact. */
        return lammps >= 0.0 ? lammps
                             : derived[FD_NORMAL_DERIVED_GAMMA] *
                                   sqrt(effective_mass * fd_hertz_constant(derived, effective_radius));
    }
    double lammps = lammps_dashpot_prefactor(p[FD_HOOKE_ETA_N], p[FD_HOOKE_ETA_N_MASS], p[FD_HOOKE_ETA_N_VISCO],
                                             effective_mass);
    return lammps >= 0.0 ? lammps : derived[FD_NORMAL_DERIVED_GAMMA] * sqrt(effective_mass * p[FD_HOOKE_STIFFNESS]);
}

/* c at a contact: none without overlap (within a positive contact_margin the
 * bodies do not touch yet, and a rate-only force would act at a distance). */
static double normal_dashpot(const fd_contact_law* law, const fd_contact_input* input, double overlap)
{
    double radius = input->geometry->effective_radius;
    return overlap > 0.0 ? fd_normal_dashpot_prefactor(law, input->effective_mass, radius) *
                               fd_normal_dashpot_factor(law, radius, overlap)
                         : 0.0;
}

double fd_normal_damping_coefficient(const fd_contact_law* law, const fd_contact_input* input)
{
    double overlap = input->geometry->penetration > 0.0 ? input->geometry->penetration : 0.0;
    switch (law->submodel[FD_MECHANISM_NORMAL]->kind) {
    case FD_KIND_NORMAL_HOOKE:
    case FD_KIND_NORMAL_HERTZ:
        return normal_dashpot(law, input, overlap);
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
        result.elastic_force = k * overlap;
        result.damping_force = overlap > 0.0 ? normal_dashpot(law, input, overlap) * input->penetration_rate : 0.0;
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
        double hertz_constant = fd_hertz_constant(derived, input->geometry->effective_radius);
        double root_overlap = sqrt(overlap);
        result.elastic_force = hertz_constant * overlap * root_overlap;
        result.damping_force = overlap > 0.0 ? normal_dashpot(law, input, overlap) * input->penetration_rate : 0.0;
        result.elastic_energy = 0.4 * hertz_constant * overlap * overlap * root_overlap;
        if (params[FD_HERTZ_LIMIT_DAMPING] == 0.0) {
            result.force = result.elastic_force + result.damping_force; /* LAMMPS without limit_damping */
            return result;
        }
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

/* ---------------------------------------------------------------- table */

static const fd_param_info prescribed_params[] = {
    {"force", "N", "normal force applied while the contact is active (Fang & Negrut Sec. 4.1: m g cos alpha)", NAN, 0.0,
     INFINITY, "Fang & Negrut Sec. 4.1: N = m g cos(alpha)"},
};

static const fd_param_info hooke_params[] = {
    {"k_n", "N/m", "normal spring stiffness", NAN, 0.0, INFINITY, "LAMMPS pair granular: normal hooke k_n"},
    {"restitution", "-", "coefficient of restitution of a head-on impact (1 = no damping)", 1.0, 0.01, 1.0,
     "fricdem: dashpot calibrated to e with the N >= 0 clamp (docs/models/normal.md)"},
    {"eta_n", "N s/m", "dashpot c = eta_n, as LAMMPS hooke k_n eta_n with damping velocity; 0 = none", 0.0, 0.0,
     INFINITY, "LAMMPS pair granular hooke: damping velocity"},
    {"eta_n_mass", "1/s",
     "dashpot c = eta_n_mass m_eff, as LAMMPS hooke k_n eta_n with damping mass_velocity; 0 = none", 0.0, 0.0, INFINITY,
     "LAMMPS pair granular hooke: damping mass_velocity"},
    {"limit_damping", "-",
     "1 = clamp the total force at N >= 0; 0 = the dashpot may pull (LAMMPS without limit_damping; with eta_n, "
     "eta_n_mass or eta_n_visco only)",
     1.0, 0.0, 1.0, "LAMMPS pair granular: limit_damping keyword"},
    {"eta_n_visco", "1/(m s)",
     "dashpot c = eta_n_visco a m_eff, a = sqrt(R_eff delta), as LAMMPS hooke k_n eta_n with damping viscoelastic "
     "(its default); 0 = none",
     0.0, 0.0, INFINITY, "LAMMPS pair granular hooke: damping viscoelastic"},
    {"tsuji", "-",
     "c = alpha(e) sqrt(m_eff k_n), alpha Tsuji et al.'s (1992) polynomial of this restitution e, as LAMMPS damping "
     "tsuji (its restitution with the clamp is not exactly e: `restitution` calibrates); -1 = off",
     -1.0, -1.0, 1.0, "LAMMPS pair granular hooke: damping tsuji (Tsuji et al. 1992)"},
    {"coeff_restitution", "-",
     "c = -2 ln e / sqrt(pi^2 + ln^2 e) sqrt(m_eff k_n), as LAMMPS damping coeff_restitution (2023 and later): "
     "restitution e exactly without the clamp (limit_damping 0), not quite with it; -1 = off",
     -1.0, -1.0, 1.0, "LAMMPS pair granular hooke: damping coeff_restitution"},
    {"tsuji_sqrt2", "-",
     "with tsuji: 1 = c = sqrt(2) alpha(e) sqrt(m_eff k_n), newer LAMMPS's damping tsuji (its \"effective mass "
     "convention\", gran_sub_mod_damping.cpp); 0 = alpha(e), LAMMPS 29 Sep 2021's (Debian)",
     0.0, 0.0, 1.0, "LAMMPS pair granular: damping tsuji, sqrt(2) of newer LAMMPS (gran_sub_mod_damping.cpp)"},
};

static const fd_param_info hertz_params[] = {
    {"restitution", "-", "coefficient of restitution of a head-on impact (1 = no damping), Tsuji's dashpot", 1.0, 0.01,
     1.0, "Tsuji et al. (1992) dashpot (Fang & Negrut App. A.1 Eq. (6)); fricdem: calibrated to e with the clamp"},
    {"eta_n", "N s/m", "dashpot c = eta_n, as LAMMPS hertz/material with damping velocity; 0 = none", 0.0, 0.0,
     INFINITY, "LAMMPS pair granular hertz/material: damping velocity"},
    {"eta_n_mass", "1/s", "dashpot c = eta_n_mass m_eff, as LAMMPS damping mass_velocity; 0 = none", 0.0, 0.0,
     INFINITY, "LAMMPS pair granular hertz/material: damping mass_velocity"},
    {"eta_n_visco", "1/(m s)",
     "dashpot c = eta_n_visco a m_eff, a = sqrt(R_eff delta), as LAMMPS damping viscoelastic (its default); 0 = none",
     0.0, 0.0, INFINITY, "LAMMPS pair granular hertz/material: damping viscoelastic"},
    {"tsuji", "-",
     "Tsuji's dashpot with alpha(e), Tsuji et al.'s (1992) polynomial of this restitution e, as LAMMPS damping tsuji "
     "(instead of the calibrated gamma of `restitution`); -1 = off",
     -1.0, -1.0, 1.0, "LAMMPS pair granular hertz/material: damping tsuji (Tsuji et al. 1992)"},
    {"limit_damping", "-",
     "1 = clamp the total force at N >= 0; 0 = the dashpot may pull (LAMMPS without limit_damping, its default; "
     "not with restitution)",
     1.0, 0.0, 1.0, "LAMMPS pair granular: limit_damping keyword"},
    {"coeff_restitution", "-",
     "Tsuji's dashpot with gamma = -sqrt(5) ln e / sqrt(pi^2 + ln^2 e), as LAMMPS damping coeff_restitution (2023 "
     "and later); -1 = off",
     -1.0, -1.0, 1.0, "LAMMPS pair granular hertz/material: damping coeff_restitution"},
    {"tsuji_sqrt2", "-",
     "with tsuji: 1 = Tsuji's dashpot with sqrt(2) alpha(e), newer LAMMPS's damping tsuji (its \"effective mass "
     "convention\", gran_sub_mod_damping.cpp); 0 = alpha(e), LAMMPS 29 Sep 2021's (Debian)",
     0.0, 0.0, 1.0, "LAMMPS pair granular: damping tsuji, sqrt(2) of newer LAMMPS (gran_sub_mod_damping.cpp)"},
};

static const char* const normal_columns[] = {"normal_elastic_force", "normal_damping_force"};
static const char* const normal_units[] = {"N", "N"};

const fd_submodel fd_normal_submodels[] = {
    {
        .info = {"none", FD_MECHANISM_NORMAL,
                 "The two materials never touch: their bodies pass through each other, no pair of them is ever "
                 "tested or evaluated (LAMMPS neigh_modify exclude type); takes no slide, roll or spin model.",
                 NULL, 0},
        .kind = FD_KIND_NORMAL_NEVER,
    },
    FD_SUBMODEL("prescribed", FD_MECHANISM_NORMAL, prescribed_params,
                "Constant normal force N while the bodies touch; no normal dynamics (lock the normal "
                "translation). Fang & Negrut Sec. 4.1 to 4.4.",
                .kind = FD_KIND_NORMAL_PRESCRIBED, .resolve = resolve_prescribed),
    FD_SUBMODEL("hooke", FD_MECHANISM_NORMAL, hooke_params,
                "Linear spring-dashpot N = k_n delta + c d(delta)/dt, clamped at N >= 0; c from the "
                "restitution, calibrated so that a head-on impact has exactly that restitution with the clamp, or "
                "c = eta_n (LAMMPS damping velocity), eta_n_mass m_eff (damping mass_velocity) or eta_n_visco "
                "sqrt(R_eff delta) m_eff (damping viscoelastic).",
                .kind = FD_KIND_NORMAL_HOOKE, .resolve = resolve_hooke,
                FD_SUBMODEL_COLUMNS(normal_columns, normal_units)),
    FD_SUBMODEL("hertz", FD_MECHANISM_NORMAL, hertz_params,
                "Hertz N = 4/3 E* sqrt(R_e) delta^(3/2) (Johnson Eq. 4.23) with E* from youngs_modulus and "
                "poisson_ratio of both materials and R_e the effective radius of the contact geometry; "
                "dashpot of Tsuji et al. (1992) form c ~ delta^(1/4), calibrated to the restitution, or LAMMPS's "
                "velocity, mass_velocity or viscoelastic dashpot (eta_n, eta_n_mass, eta_n_visco); N >= 0 unless "
                "limit_damping = 0.",
                .kind = FD_KIND_NORMAL_HERTZ, .resolve = resolve_hertz,
                FD_SUBMODEL_COLUMNS(normal_columns, normal_units)),
};
const int fd_normal_submodel_count = FD_COUNT_OF(fd_normal_submodels);
