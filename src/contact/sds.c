/* The discontinuous spring-dashpot-slider (D-SDS) for sliding: Luding's
 * tangential spring as LAMMPS `tangential linear_history` implements it,
 * written after the C-SDS paper (002), Eq. (1)-(3):
 *
 *   F_S = -k xi - gamma v                        (1)  test force on body i
 *   d(xi)/dt = v                                 (2)  while sticking
 *   xi = -(F_max F_S / |F_S| + gamma v) / k      (3)  when |F_S| > F_max = mu N
 *
 * v is the relative tangential velocity of body i's surface against body j's
 * at the contact. The spring xi (world vector, the contact's history) is
 * turned back into the current tangent plane every step keeping its length
 * (the paper, Sec. 2: "the displacement vector must be rotated back into the
 * contact plane every time it is updated"), then advanced by v dt.
 *
 * Eq. (3) resets the spring instantaneously; the C-SDS paper shows that this
 * can load it against the motion and create energy.
 *
 * The continuous spring-dashpot-slider (C-SDS), the paper's Eq. (10):
 *
 *   F = min(F_S, F_max) F_S / |F_S|                          the force on body i
 *   d(xi)/dt = -(min(F_S, F_max) F_S / |F_S| + k xi) / gamma  (10)
 *
 * which is v while sticking and Eq. (9) while sliding. xi is turned into the
 * tangent plane as for D-SDS, then advanced by one explicit Euler step of
 * Eq. (10) evaluated at the state the step starts from (xi_n, v_n); the force
 * returned is the one of that state. Eq. (10) divides by gamma: gamma_t = 0 is
 * refused when the law is resolved.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>
#include <stdio.h>

#include "contact/model.h"
#include "contact/sds_core.h"
#include "core/error.h"

enum { DSDS_K_T, DSDS_GAMMA_T, DSDS_MU, DSDS_X_GAMMA_T, DSDS_LEGACY_PROJECTION, DSDS_MU_S, DSDS_MU_K };
enum { H_XI = 0, DSDS_HISTORY = 3 };
enum { C_XI = 0, C_SLIPPING = 3, DSDS_COLUMNS = 4 };

static void store_spring(double* history, fd_vec3 xi, bool slipping, double* columns, const int* column_index)
{
    history[H_XI] = xi.x;
    history[H_XI + 1] = xi.y;
    history[H_XI + 2] = xi.z;
    if (columns != NULL) {
        columns[column_index[C_XI]] = xi.x;
        columns[column_index[C_XI + 1]] = xi.y;
        columns[column_index[C_XI + 2]] = xi.z;
        columns[column_index[C_SLIPPING]] = slipping ? 1.0 : 0.0;
    }
}

/* The update itself is fd_dsds_vector_step / fd_csds_vector_step
 * (contact/sds_core.h), shared with the penalty stepper's sphere kernels. */
static fd_vec3 slide(bool continuous, const fd_contact_law* law, const fd_contact_input* input,
                     fd_vec3 tangential_velocity, double normal_force, double* history, double* columns)
{
    const double* params = law->params[FD_MECHANISM_SLIDE];
    const double* derived = law->derived[FD_MECHANISM_SLIDE];
    const int* column_index = law->column_index[FD_MECHANISM_SLIDE];
    history += law->history_offset[FD_MECHANISM_SLIDE];
    fd_vec3 n = input->geometry->normal;
    fd_vec3 stored = fd_v3(history[H_XI], history[H_XI + 1], history[H_XI + 2]);
    fd_vec3 xi = params[DSDS_LEGACY_PROJECTION] != 0.0 ? fd_sds_project(stored, n) : fd_sds_into_plane(stored, n);
    bool was_slipping = input->was_slipping & (1u << FD_MECHANISM_SLIDE);
    double limit = fd_static_kinetic(was_slipping, derived[FD_DERIVED_MU_S], derived[FD_DERIVED_MU_K]) *
                   normal_force;
    double inverse_gamma;
    double gamma = fd_sds_tangential_dashpot(
        params, derived, params[DSDS_X_GAMMA_T] >= 0.0 ? fd_normal_damping_coefficient(law, input) : 0.0,
        &inverse_gamma);
    fd_sds_vector_step s =
        continuous ? fd_csds_vector_step(params[DSDS_K_T], gamma, inverse_gamma, limit, input->time_step,
                                         input->spring_time_step, xi, tangential_velocity)
                   : fd_dsds_vector_step(params[DSDS_K_T], derived[FD_SDS_DERIVED_INVERSE_K], gamma, limit,
                                         input->time_step, input->spring_time_step, xi, tangential_velocity);
    store_spring(history, s.spring, s.slipping, columns, column_index);
    fd_sds_report_slide(input, &s);
    return s.force;
}

fd_vec3 fd_dsds_slide(const fd_contact_law* law, const fd_contact_input* input, fd_vec3 tangential_velocity,
                      double normal_force, double* history, double* columns)
{
    return slide(false, law, input, tangential_velocity, normal_force, history, columns);
}

fd_vec3 fd_csds_slide(const fd_contact_law* law, const fd_contact_input* input, fd_vec3 tangential_velocity,
                      double normal_force, double* history, double* columns)
{
    return slide(true, law, input, tangential_velocity, normal_force, history, columns);
}

fd_vec3 fd_nohistory_slide(const fd_contact_law* law, const fd_contact_input* input, fd_vec3 tangential_velocity,
                           double normal_force, double* columns)
{
    const double* params = law->params[FD_MECHANISM_SLIDE];
    double x_gamma_t = params[FD_NOHISTORY_X_GAMMA_T];
    double gamma = fd_tangential_dashpot(params[FD_NOHISTORY_GAMMA_T], x_gamma_t,
                                         x_gamma_t >= 0.0 ? fd_normal_damping_coefficient(law, input) : 0.0);
    bool slipping;
    fd_vec3 force = fd_nohistory_slide_force(gamma, params[FD_NOHISTORY_MU] * normal_force, input->time_step,
                                             tangential_velocity, &slipping,
                                             input->energy != NULL ? &input->energy[FD_MECHANISM_SLIDE] : NULL);
    if (slipping && input->slip_flags != NULL) {
        *input->slip_flags |= 1u << FD_MECHANISM_SLIDE;
    }
    if (columns != NULL) {
        columns[law->column_index[FD_MECHANISM_SLIDE][0]] = slipping ? 1.0 : 0.0;
    }
    return force;
}

/* x_gamma_t: -1 (off: gamma_t), or >= 0 with gamma_t left at 0. */
static fd_status check_tangential_dashpot(const char* model, double gamma_t, double x_gamma_t)
{
    if (x_gamma_t != -1.0 && !(x_gamma_t >= 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "slide model '%s': x_gamma_t is -1 (off) or >= 0 (got %g)", model,
                       x_gamma_t);
    }
    if (x_gamma_t >= 0.0 && gamma_t != 0.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "slide model '%s': give gamma_t (a constant dashpot, N s/m) or x_gamma_t (a multiple of the "
                       "pair's normal dashpot, LAMMPS xgammat), not both (got gamma_t = %g, x_gamma_t = %g)",
                       model, gamma_t, x_gamma_t);
    }
    return FD_OK;
}

/* dsds and csds: the dashpot and projection choices, 1/k, 1/gamma_t, and the
 * static and kinetic coefficients. */
static fd_status resolve_spring_slider(const char* model, const double* params, double* derived)
{
    fd_status status = check_tangential_dashpot(model, params[DSDS_GAMMA_T], params[DSDS_X_GAMMA_T]);
    if (status != FD_OK) {
        return status;
    }
    char what[64];
    snprintf(what, sizeof what, "slide model '%s'", model);
    status = fd_resolve_static_kinetic(what, "mu", params, DSDS_MU, DSDS_MU_S, DSDS_MU_K, derived);
    if (status != FD_OK) {
        return status;
    }
    double legacy = params[DSDS_LEGACY_PROJECTION];
    if (legacy != 0.0 && legacy != 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "slide model '%s': legacy_projection is 0 or 1 (got %g)", model,
                       legacy);
    }
    derived[FD_SDS_DERIVED_INVERSE_K] = 1.0 / params[DSDS_K_T];
    derived[FD_SDS_DERIVED_INVERSE_GAMMA] = params[DSDS_GAMMA_T] > 0.0 ? 1.0 / params[DSDS_GAMMA_T] : 0.0;
    return FD_OK;
}

static fd_status resolve_dsds(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    return resolve_spring_slider("dsds", params, derived);
}

/* Eq. (10) divides by gamma: without a dashpot the C-SDS has no rate. */
static fd_status resolve_csds(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    fd_status status = resolve_spring_slider("csds", params, derived);
    if (status == FD_OK && !(params[DSDS_GAMMA_T] > 0.0) && !(params[DSDS_X_GAMMA_T] > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "slide model 'csds' needs gamma_t > 0 (got %g N s/m): its spring rate, C-SDS paper Eq. (10), "
                       "is -(F + k xi) / gamma_t; use 'dsds' for a slider without dashpot (or x_gamma_t > 0)",
                       params[DSDS_GAMMA_T]);
    }
    return status;
}

static fd_status resolve_nohistory(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    return check_tangential_dashpot("linear_nohistory", params[FD_NOHISTORY_GAMMA_T], params[FD_NOHISTORY_X_GAMMA_T]);
}

static const fd_param_info nohistory_params[] = {
    {"gamma_t", "N s/m", "tangential dashpot gamma: F = -gamma v capped at mu N", 0.0, 0.0, INFINITY,
     "fricdem: a constant dashpot gamma (LAMMPS linear_nohistory scales c_n: x_gamma_t)"},
    {"mu", "-", "Coulomb friction coefficient", NAN, 0.0, INFINITY,
     "LAMMPS pair granular: tangential linear_nohistory mu_s"},
    {"x_gamma_t", "-",
     "instead of gamma_t: gamma = x_gamma_t times the pair's normal dashpot coefficient c_n (LAMMPS xgammat); -1 = off",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: tangential linear_nohistory x_gamma_t"},
};

static const fd_param_info dsds_params[] = {
    {"k_t", "N/m", "tangential spring stiffness k of Eq. (1)", NAN, 1e-300, INFINITY,
     "C-SDS Eq. (1), (3); csds: C-SDS Eq. (10)"},
    {"gamma_t", "N s/m", "tangential dashpot gamma of Eq. (1)", 0.0, 0.0, INFINITY,
     "C-SDS Eq. (1), (3); csds: C-SDS Eq. (10)"},
    {"mu", "-", "Coulomb friction coefficient, static = kinetic (or mu_s and mu_k instead); -1 = not given", -1.0,
     -1.0, INFINITY, "C-SDS Sec. 1: F_max = mu F_n, static = kinetic"},
    {"x_gamma_t", "-",
     "tangential dashpot as a multiple of the pair's normal dashpot coefficient c_n (LAMMPS xgammat: per pair "
     "m_eff under hooke's eta_n_mass or restitution, Hertz's overlap too); -1 = off, gamma_t is the dashpot",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: tangential linear_history x_gamma_t"},
    {"legacy_projection", "-",
     "1: the spring is turned into the tangent plane by removing its normal part, its length not restored (LAMMPS "
     "gran/hooke/history, gran/hertz/history); 0: its length kept (LAMMPS pair granular, the C-SDS paper)",
     0.0, 0.0, 1.0, "LAMMPS legacy gran/hooke/history, gran/hertz/history (tangential linear_history_classic)"},
    {"mu_s", "-",
     "static friction coefficient, instead of mu: a sticking contact slips when |F_S| exceeds mu_s N (LAMMPS "
     "linear_history/static); -1 = not given",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: tangential linear_history/static mu_s"},
    {"mu_k", "-",
     "kinetic friction coefficient (with mu_s, <= mu_s): the cap while slipping, until |F_S| <= mu_k N; -1 = mu_s",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: tangential linear_history/static mu_d"},
};
static const char* const dsds_columns[DSDS_COLUMNS] = {"xi_x", "xi_y", "xi_z", "slipping"};
static const char* const dsds_units[DSDS_COLUMNS] = {"m", "m", "m", "0=stick|1=slip"};
static const char* const nohistory_columns[] = {"slipping"};
static const char* const nohistory_units[] = {"0=stick|1=slip"};

const fd_submodel fd_sds_submodels[] = {
    FD_SUBMODEL("dsds", FD_MECHANISM_SLIDE, dsds_params,
                "Discontinuous spring-dashpot-slider (Luding; LAMMPS tangential linear_history), C-SDS paper "
                "Eq. (1)-(3): F = -k xi - gamma v capped at mu N, spring reset by Eq. (3) while sliding.",
                .kind = FD_KIND_SLIDE_DSDS, .history_size = DSDS_HISTORY, .resolve = resolve_dsds,
                FD_SUBMODEL_COLUMNS(dsds_columns, dsds_units)),
    FD_SUBMODEL("csds", FD_MECHANISM_SLIDE, dsds_params,
                "Continuous spring-dashpot-slider, C-SDS paper Eq. (10): F = -k xi - gamma v capped at mu N, "
                "d(xi)/dt = -(F + k xi)/gamma (= v while sticking), explicit Euler; needs gamma_t > 0.",
                .kind = FD_KIND_SLIDE_CSDS, .history_size = DSDS_HISTORY, .resolve = resolve_csds,
                FD_SUBMODEL_COLUMNS(dsds_columns, dsds_units)),
    FD_SUBMODEL("linear_nohistory", FD_MECHANISM_SLIDE, nohistory_params,
                "History-free tangential dashpot (LAMMPS tangential linear_nohistory, and the legacy gran/hooke): "
                "F = -gamma v capped at mu N, no spring; gamma = gamma_t or x_gamma_t c_n.",
                .kind = FD_KIND_SLIDE_LINEAR_NOHISTORY, .resolve = resolve_nohistory,
                FD_SUBMODEL_COLUMNS(nohistory_columns, nohistory_units)),
};
const int fd_sds_submodel_count = FD_COUNT_OF(fd_sds_submodels);
