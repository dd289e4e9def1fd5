/* The critical time step of the explicit integrators for one contact law
 * between two bodies (docs/models/critical-step.md gives the derivation and
 * the formula of every model).
 *
 * Why a sum of rates. Symplectic Euler and velocity Verlet advance
 * M x'' = -K x - C x' with the damping force taken from the velocity of the
 * step that has just moved the bodies: the Fang & Negrut dashpots from the
 * increment of S, Theta and Psi over that step divided by dt, the others from
 * the relative velocity of that state. For one mode (omega^2 an eigenvalue of
 * M^-1 K, 2 beta one of M^-1 C) the recurrence
 * x_(n+1) - 2 x_n + x_(n-1) = -h^2 omega^2 x_n - 2 beta h (x_n - x_(n-1))
 * is stable iff (Jury) 2 beta h <= 2 and h^2 omega^2 + 4 beta h < 4, that is
 *
 *     dt_c = 2 / (beta + sqrt(beta^2 + omega^2)),                       (1)
 *
 * which is 2 sqrt(m/k) (sqrt(1 + zeta^2) - zeta) for one spring, zeta =
 * beta / omega, and 2 m / c for a dashpot alone. The largest eigenvalue of a
 * sum of positive semidefinite matrices is at most the sum of theirs (Weyl),
 * so every spring and every dashpot that acts at a contact adds its rate
 * k mu or c mu, with mu the mobility of the relative motion it resists
 * (1/m_i + 1/m_j along the normal, (1/m + d^2/I)_i + (1/m + d^2/I)_j for a
 * force at the contact point, d its lever, 1/I_i + 1/I_j for a torque); and a body with Z
 * contacts sees Z times the rates of one (the bound of a sum of pair blocks,
 * each body in Z of them). omega^2 and beta of (1) are then
 *
 *     omega^2 = Z sum_springs k mu,   2 beta = Z sum_dashpots c mu.      (2)
 *
 * The dashpots the models set "critical" (Fang & Negrut K_D, D_R, D_psi) are
 * critical against the pair's own mass or inertia, not against the far
 * smaller mobility of the motion they resist (a tangential force at arm R
 * moves 1/m + R^2/I = 3.5/m of a sphere, not 1/m): with several contacts
 * their explicit limit 2 / (Z c mu) is what bounds the step in a heap.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>
#include <string.h>

#include "contact/model.h"

/* Parameter order of the Fang & Negrut tables (src/contact/fang_negrut.c). */
enum { FN_SLIDE_K_E = 2, FN_SLIDE_K_D = 3 };
enum { FN_ROLL_ETA_R = 0, FN_ROLL_K_R = 1, FN_ROLL_D_R = 2 };
enum { FN_SPIN_ETA_PSI = 0, FN_SPIN_CURVATURE = 1, FN_SPIN_K_PSI = 2, FN_SPIN_D_PSI = 3 };
enum { FN_SPIN_HERTZ_D_PSI = 0 };
/* ... of the sds_torque.c tables (roll: k_roll, gamma_roll; spin: k_twist, gamma_twist). */
enum { SDS_TORQUE_K = 0, SDS_TORQUE_GAMMA = 1 };
/* ... of the pfc.c tables. */
enum { PFC_KN = 0, PFC_DP_NRATIO = 1, PFC_EMOD = 5, PFC_KRATIO = 6 };
enum { PFC_KS = 0, PFC_DP_SRATIO = 2 };
enum { PFC_KR = 1 };

#define DERIVED (-1.0) /* the models' "use the default" sentinel */

/* The reference overlap of the laws whose stiffness grows with it (Hertz
 * normal, Hertz-based spin, Marshall twisting): 1% of the effective radius. */
static const double REFERENCE_OVERLAP = 0.01;

/* The rates gathered so far: sums of (2) and the element with the smallest
 * limit of its own. */
typedef struct rates {
    double coordination;
    double spring_rate;  /* sum k mu, 1/s^2 */
    double dashpot_rate; /* sum c mu, 1/s */
    double own_limit;    /* s, of the limiting element alone (with Z) */
    fd_critical_step result;
} rates;

static void add_spring(rates* r, const char* name, const char* unit, double stiffness, double mobility)
{
    double rate = stiffness * mobility;
    if (!(rate > 0.0)) {
        return;
    }
    r->spring_rate += rate;
    double own = 2.0 / sqrt(r->coordination * rate); /* (1) with beta = 0 */
    if (own < r->own_limit) {
        r->own_limit = own;
        r->result.limiting = name;
        r->result.coefficient = stiffness;
        r->result.unit = unit;
    }
}

static void add_dashpot(rates* r, const char* name, const char* unit, double damping, double mobility)
{
    double rate = damping * mobility;
    if (!(rate > 0.0)) {
        return;
    }
    r->dashpot_rate += rate;
    double own = 2.0 / (r->coordination * rate); /* (1) with omega = 0 */
    if (own < r->own_limit) {
        r->own_limit = own;
        r->result.limiting = name;
        r->result.coefficient = damping;
        r->result.unit = unit;
    }
}

/* Mass and inertia averaged over the dynamic bodies of the pair, as the Fang
 * & Negrut defaults take them (m_ij, I_ij). */
static double pair_average(double value_i, double mass_i, double value_j, double mass_j)
{
    if (mass_i > 0.0 && mass_j > 0.0) {
        return 0.5 * (value_i + value_j);
    }
    return mass_i > 0.0 ? value_i : value_j;
}

static double inverse_or_zero(double x) { return x > 0.0 && isfinite(x) ? 1.0 / x : 0.0; }

/* The law's normal spring and dashpot; returns k_n (N/m) for the models that
 * derive a shear stiffness from it (PFC kratio). */
static double add_normal(rates* r, const fd_contact_law* law, const fd_step_body* i, const fd_step_body* j,
                         double effective_radius, double* dashpot)
{
    const double* p = law->params[FD_MECHANISM_NORMAL];
    const double* derived = law->derived[FD_MECHANISM_NORMAL];
    double mobility = i->translation_mobility + j->translation_mobility;
    double effective_mass = inverse_or_zero(mobility);
    double k = 0.0, c = 0.0;
    switch (law->submodel[FD_MECHANISM_NORMAL]->kind) {
    case FD_KIND_NORMAL_HOOKE:
        k = p[FD_HOOKE_STIFFNESS];
        /* normal.c's dashpot, at the reference overlap for the viscoelastic one */
        c = fd_normal_dashpot_prefactor(law, effective_mass, effective_radius) *
            fd_normal_dashpot_factor(law, effective_radius, REFERENCE_OVERLAP * effective_radius);
        add_spring(r, "normal spring k_n", "N/m", k, mobility);
        add_dashpot(r, "normal dashpot", "N s/m", c, mobility);
        break;
    case FD_KIND_NORMAL_HERTZ: {
        /* Tangent stiffness dN/d(delta) = 3/2 K sqrt(delta) = 2 E* sqrt(R_e delta), Johnson Eq. (4.23),
         * and normal.c's dashpot (Tsuji's gamma sqrt(m K) delta^(1/4) or LAMMPS's), at the reference overlap. */
        if (!isfinite(effective_radius)) {
            break;
        }
        double delta = REFERENCE_OVERLAP * effective_radius;
        double modulus = derived[FD_NORMAL_DERIVED_MODULUS];
        k = 2.0 * modulus * sqrt(effective_radius * delta);
        c = fd_normal_dashpot_prefactor(law, effective_mass, effective_radius) *
            fd_normal_dashpot_factor(law, effective_radius, delta);
        add_spring(r, "normal spring (Hertz, tangent at 1% overlap)", "N/m", k, mobility);
        add_dashpot(r, "normal dashpot (Hertz)", "N s/m", c, mobility);
        break;
    }
    case FD_KIND_NORMAL_PFC_LINEAR: {
        /* kn, or the deformability method k_n = A E* / L, A = pi min(R)^2, L = R_1 + R_2 (R_1 at a plane). */
        k = p[PFC_KN];
        if (p[PFC_EMOD] > 0.0) {
            double radius_i = inverse_or_zero(i->curvature), radius_j = inverse_or_zero(j->curvature);
            double smallest = radius_i > 0.0 && radius_j > 0.0 ? fmin(radius_i, radius_j) : fmax(radius_i, radius_j);
            k = smallest > 0.0 ? FD_PI * smallest * smallest * p[PFC_EMOD] / (radius_i + radius_j) : 0.0;
        }
        c = 2.0 * p[PFC_DP_NRATIO] * sqrt(effective_mass * k); /* c_n = 2 beta_n sqrt(m_c k_n) */
        add_spring(r, "normal spring k_n (pfc_linear)", "N/m", k, mobility);
        add_dashpot(r, "normal dashpot (pfc_linear)", "N s/m", c, mobility);
        break;
    }
    default:
        break; /* prescribed: no normal dynamics */
    }
    *dashpot = c;
    return k;
}

/* A C-SDS spring is advanced by explicit Euler on d(xi)/dt = -(k xi + F)/gamma
 * while it slides (C-SDS paper Eq. 10): stable for dt < 2 gamma / k, whatever
 * the bodies. */
static void add_csds_update(fd_critical_step* limit, const char* name, const char* unit, double k, double gamma)
{
    if (k > 0.0 && gamma > 0.0 && 2.0 * gamma / k < limit->time_step) {
        *limit = (fd_critical_step){2.0 * gamma / k, 0.0, 0.0, 1.0, name, k, unit};
    }
}

fd_critical_step fd_contact_law_critical_step(const fd_contact_law* law, const fd_step_body* i, const fd_step_body* j,
                                              double coordination)
{
    rates r = {.coordination = coordination > 1.0 ? coordination : 1.0, .own_limit = INFINITY};
    r.result = (fd_critical_step){INFINITY, 0.0, 0.0, r.coordination, "none", 0.0, ""};
    const fd_submodel* normal = law->submodel[FD_MECHANISM_NORMAL];
    if (normal == NULL || normal->kind == FD_KIND_NORMAL_RIGID || normal->kind == FD_KIND_NORMAL_NEVER) {
        return r.result; /* the complementarity stepper integrates no spring; materials that never touch have none */
    }
    /* Geometry of the pair: R_e = 1 / (kappa_i + kappa_j), the contact radius
     * a = sqrt(R_e delta) at the reference overlap. */
    double curvature_sum = i->curvature + j->curvature;
    double effective_radius = curvature_sum > 0.0 ? 1.0 / curvature_sum : INFINITY;
    double contact_radius_squared = isfinite(effective_radius) ? REFERENCE_OVERLAP * effective_radius * effective_radius
                                                               : 0.0;
    double normal_dashpot = 0.0;
    double normal_stiffness = add_normal(&r, law, i, j, effective_radius, &normal_dashpot);
    double mass_ij = pair_average(i->mass, i->mass, j->mass, j->mass);
    double inertia_ij = pair_average(i->inertia, i->mass, j->inertia, j->mass);
    /* A force at the contact point moves the point by 1/m + r^2/I per unit of
     * force (translation plus the turn about the centre); a torque turns by 1/I. */
    double tangential_mobility = i->translation_mobility + i->lever_mobility + j->translation_mobility +
                                 j->lever_mobility;
    double rotation_mobility = i->rotation_mobility + j->rotation_mobility;
    fd_critical_step extra = {INFINITY, 0.0, 0.0, r.coordination, "none", 0.0, ""};

    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    if (slide != NULL) {
        const double* p = law->params[FD_MECHANISM_SLIDE];
        switch (slide->kind) {
        case FD_KIND_SLIDE_FANG_NEGRUT: {
            double k = p[FN_SLIDE_K_E];
            double c = p[FN_SLIDE_K_D] == DERIVED ? 2.0 * sqrt(mass_ij * k) : p[FN_SLIDE_K_D]; /* Eq. (1c) */
            add_spring(&r, "slide spring K_E (fang_negrut)", "N/m", k, tangential_mobility);
            add_dashpot(&r, "slide dashpot K_D (fang_negrut)", "N s/m", c, tangential_mobility);
            break;
        }
        case FD_KIND_SLIDE_DSDS:
        case FD_KIND_SLIDE_CSDS:
        {
            double gamma = p[FD_SDS_X_GAMMA_T] >= 0.0 ? p[FD_SDS_X_GAMMA_T] * normal_dashpot : p[FD_SDS_GAMMA_T];
            add_spring(&r, "slide spring k_t", "N/m", p[FD_SDS_K_T], tangential_mobility);
            add_dashpot(&r, p[FD_SDS_X_GAMMA_T] >= 0.0 ? "slide dashpot x_gamma_t c_n" : "slide dashpot gamma_t",
                        "N s/m", gamma, tangential_mobility);
            if (slide->kind == FD_KIND_SLIDE_CSDS) {
                add_csds_update(&extra, "slide spring update of C-SDS (2 gamma_t / k_t)", "N/m", p[FD_SDS_K_T],
                                gamma);
            }
        }
            break;
        case FD_KIND_SLIDE_MINDLIN:
        case FD_KIND_SLIDE_MINDLIN_RESCALE:
        case FD_KIND_SLIDE_MINDLIN_FORCE:
        case FD_KIND_SLIDE_MINDLIN_RESCALE_FORCE: {
            /* k_t a at the reference overlap (a = sqrt(R_e delta)); dashpot x_gamma_t c_n (docs/models/mindlin.md). */
            double k = law->derived[FD_MECHANISM_SLIDE][FD_MINDLIN_DERIVED_K_T] * sqrt(contact_radius_squared);
            add_spring(&r, "slide spring k_t a (mindlin)", "N/m", k, tangential_mobility);
            add_dashpot(&r, "slide dashpot x_gamma_t c_n (mindlin)", "N s/m", p[FD_MINDLIN_X_GAMMA_T] * normal_dashpot,
                        tangential_mobility);
            break;
        }
        case FD_KIND_SLIDE_PFC_LINEAR: {
            double ratio = law->params[FD_MECHANISM_NORMAL][PFC_KRATIO];
            double k = p[PFC_KS] >= 0.0 ? p[PFC_KS] : (ratio > 0.0 ? normal_stiffness / ratio : 0.0);
            double c =
                2.0 * p[PFC_DP_SRATIO] * sqrt(inverse_or_zero(i->translation_mobility + j->translation_mobility) * k);
            add_spring(&r, "slide spring k_s (pfc_linear)", "N/m", k, tangential_mobility);
            add_dashpot(&r, "slide dashpot (pfc_linear)", "N s/m", c, tangential_mobility);
            break;
        }
        default:
            break;
        }
    }

    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    if (roll != NULL && isfinite(effective_radius)) {
        const double* p = law->params[FD_MECHANISM_ROLL];
        switch (roll->kind) {
        case FD_KIND_ROLL_FANG_NEGRUT: {
            double k_e = law->params[FD_MECHANISM_SLIDE][FN_SLIDE_K_E];
            double k = p[FN_ROLL_K_R] == DERIVED ? 4.0 * p[FN_ROLL_ETA_R] * k_e / (curvature_sum * curvature_sum)
                                                 : p[FN_ROLL_K_R]; /* Eq. (2b) */
            /* D_R = 2 sqrt(I_rock K_R), critical for the rocking about the
             * contact point, I_rock = I + m r^2 pair-averaged: against the
             * turn about the centre (1/I) it is overcritical. */
            double rocking_ij = pair_average(i->inertia + i->mass * i->arm * i->arm, i->mass,
                                             j->inertia + j->mass * j->arm * j->arm, j->mass);
            double c = p[FN_ROLL_D_R] == DERIVED ? 2.0 * sqrt(rocking_ij * k) : p[FN_ROLL_D_R];
            add_spring(&r, "roll spring K_R (fang_negrut)", "N m/rad", k, rotation_mobility);
            add_dashpot(&r, "roll dashpot D_R (fang_negrut)", "N m s/rad", c, rotation_mobility);
            break;
        }
        case FD_KIND_ROLL_DSDS:
        case FD_KIND_ROLL_CSDS: {
            /* F = -k_roll xi_r on v_r = R_eff (omega_i - omega_j) x n, torque R_eff n x F: k_roll R_eff^2 per rad. */
            double arm_squared = effective_radius * effective_radius;
            add_spring(&r, "roll spring k_roll R_eff^2", "N m/rad", p[SDS_TORQUE_K] * arm_squared, rotation_mobility);
            add_dashpot(&r, "roll dashpot gamma_roll R_eff^2", "N m s/rad", p[SDS_TORQUE_GAMMA] * arm_squared,
                        rotation_mobility);
            if (roll->kind == FD_KIND_ROLL_CSDS) {
                add_csds_update(&extra, "roll spring update of C-SDS (2 gamma_roll / k_roll)", "N/m", p[SDS_TORQUE_K],
                                p[SDS_TORQUE_GAMMA]);
            }
            break;
        }
        case FD_KIND_ROLL_PFC_RRLINEAR: {
            /* k_r = rr_kr, or k_s R^2 (manual Eq. 4); k_s from the slide model. */
            double k = p[PFC_KR];
            if (k < 0.0) {
                const double* s = law->params[FD_MECHANISM_SLIDE];
                double ratio = law->params[FD_MECHANISM_NORMAL][PFC_KRATIO];
                double k_s = s[PFC_KS] >= 0.0 ? s[PFC_KS] : (ratio > 0.0 ? normal_stiffness / ratio : 0.0);
                k = k_s * effective_radius * effective_radius;
            }
            add_spring(&r, "roll spring k_r (pfc_rrlinear)", "N m/rad", k, rotation_mobility);
            break;
        }
        default:
            break; /* legacy_constant_torque: a slider, no spring */
        }
    }

    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    if (spin != NULL) {
        const double* p = law->params[FD_MECHANISM_SPIN];
        double k = 0.0, c = 0.0;
        switch (spin->kind) {
        case FD_KIND_SPIN_FANG_NEGRUT: {
            double k_e = law->params[FD_MECHANISM_SLIDE][FN_SLIDE_K_E];
            /* K = the mean curvature of the contact, kappa_i + kappa_j for spheres (1/R on a plane). */
            double curvature = p[FN_SPIN_CURVATURE] == DERIVED ? curvature_sum : p[FN_SPIN_CURVATURE];
            k = p[FN_SPIN_K_PSI] != DERIVED
                    ? p[FN_SPIN_K_PSI]
                    : (curvature > 0.0 ? p[FN_SPIN_ETA_PSI] * k_e / (curvature * curvature) : 0.0);
            c = p[FN_SPIN_D_PSI] == DERIVED ? 2.0 * sqrt(inertia_ij * k) : p[FN_SPIN_D_PSI]; /* Eq. (3c), (3d) */
            add_spring(&r, "spin spring K_psi (fang_negrut)", "N m/rad", k, rotation_mobility);
            add_dashpot(&r, "spin dashpot D_psi (fang_negrut)", "N m s/rad", c, rotation_mobility);
            break;
        }
        case FD_KIND_SPIN_FANG_NEGRUT_HERTZ: {
            double k_e = law->params[FD_MECHANISM_SLIDE][FN_SLIDE_K_E];
            k = 0.5 * contact_radius_squared * k_e; /* App. C, Eq. (13): K_psi = a^2 K_E / 2 */
            c = p[FN_SPIN_HERTZ_D_PSI] == DERIVED ? 2.0 * sqrt(inertia_ij * k) : p[FN_SPIN_HERTZ_D_PSI];
            add_spring(&r, "spin spring K_psi (fang_negrut_hertz, a at 1% overlap)", "N m/rad", k, rotation_mobility);
            add_dashpot(&r, "spin dashpot D_psi (fang_negrut_hertz)", "N m s/rad", c, rotation_mobility);
            break;
        }
        case FD_KIND_SPIN_DSDS:
        case FD_KIND_SPIN_CSDS:
            add_spring(&r, "spin spring k_twist", "N m/rad", p[SDS_TORQUE_K], rotation_mobility);
            add_dashpot(&r, "spin dashpot gamma_twist", "N m s/rad", p[SDS_TORQUE_GAMMA], rotation_mobility);
            if (spin->kind == FD_KIND_SPIN_CSDS) {
                add_csds_update(&extra, "spin spring update of C-SDS (2 gamma_twist / k_twist)", "N m/rad",
                                p[SDS_TORQUE_K], p[SDS_TORQUE_GAMMA]);
            }
            break;
        case FD_KIND_SPIN_MARSHALL: {
            /* k_t a^2 / 2 and gamma_t a^2 / 2 from the slide model (Marshall 2009 Eq. 32-33). */
            const double* s = law->params[FD_MECHANISM_SLIDE];
            add_spring(&r, "spin spring k_t a^2 / 2 (marshall, a at 1% overlap)", "N m/rad",
                       0.5 * s[FD_SDS_K_T] * contact_radius_squared, rotation_mobility);
            add_dashpot(&r, "spin dashpot gamma_t a^2 / 2 (marshall)", "N m s/rad",
                        0.5 * s[FD_SDS_GAMMA_T] * contact_radius_squared, rotation_mobility);
            break;
        }
        default:
            break;
        }
    }

    /* (1) with (2). */
    double omega_squared = r.coordination * r.spring_rate;
    double beta = 0.5 * r.coordination * r.dashpot_rate;
    if (omega_squared > 0.0 || beta > 0.0) {
        r.result.time_step = 2.0 / (beta + sqrt(beta * beta + omega_squared));
        r.result.rate_squared = omega_squared;
        r.result.damping_rate = 2.0 * beta;
    }
    return extra.time_step < r.result.time_step ? extra : r.result;
}
