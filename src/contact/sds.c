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
 * refused when the law is resolved. */
#include <math.h>

#include "contact/model.h"
#include "core/error.h"

enum { DSDS_K_T, DSDS_GAMMA_T, DSDS_MU };
enum { H_XI = 0, DSDS_HISTORY = 3 };
enum { C_XI = 0, C_SLIPPING = 3, DSDS_COLUMNS = 4 };

/* The stored spring turned into the current tangent plane (normal n),
 * keeping its length (the paper, Sec. 2). */
static fd_vec3 spring_in_plane(const double* history, fd_vec3 n)
{
    fd_vec3 xi = fd_v3(history[H_XI], history[H_XI + 1], history[H_XI + 2]);
    return fd_v3_scale(fd_v3_length(xi), fd_v3_normalize(fd_v3_reject(xi, n)));
}

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

fd_vec3 fd_dsds_slide(const double* params, const fd_contact_input* input, fd_vec3 tangential_velocity,
                      double normal_force, double* history, double* columns, const int* column_index)
{
    fd_vec3 n = input->geometry->normal;
    double stiffness = params[DSDS_K_T], damping = params[DSDS_GAMMA_T];
    fd_vec3 xi = spring_in_plane(history, n);
    xi = fd_v3_mul_add(xi, input->time_step, tangential_velocity); /* Eq. (2) */
    fd_vec3 test = fd_v3_sub(fd_v3_scale(-stiffness, xi), fd_v3_scale(damping, tangential_velocity)); /* Eq. (1) */
    double limit = params[DSDS_MU] * normal_force;
    double magnitude = fd_v3_length(test);
    fd_vec3 force = test;
    bool slipping = magnitude > limit;
    fd_energy_books* books = &input->energy[FD_MECHANISM_SLIDE];
    double predicted_energy = 0.5 * stiffness * fd_v3_length_squared(xi);
    books->stored = predicted_energy;
    /* F = -k xi - gamma v holds in stick and after the reset alike: the
     * dashpot takes gamma |v|^2 over the step. */
    books->dashpot = damping * fd_v3_length_squared(tangential_velocity) * input->time_step;
    if (slipping) {
        force = magnitude > 0.0 ? fd_v3_scale(limit / magnitude, test) : fd_v3(0, 0, 0);
        /* Eq. (3): the spring that makes the test force equal the capped force. */
        xi = fd_v3_scale(-1.0 / stiffness, fd_v3_add(force, fd_v3_scale(damping, tangential_velocity)));
        /* The reset moves the spring's energy at once: a loss is slip; a gain
         * is energy the update rule creates (C-SDS paper Sec. 2, Fig. 2). */
        books->stored = 0.5 * stiffness * fd_v3_length_squared(xi);
        double change = books->stored - predicted_energy;
        if (change > 0.0) {
            books->created = change;
        } else {
            books->slip = -change;
        }
    }
    store_spring(history, xi, slipping, columns, column_index);
    if (slipping) {
        *input->slip_flags |= 1u << FD_MECHANISM_SLIDE;
    }
    return force;
}

fd_vec3 fd_csds_slide(const double* params, const fd_contact_input* input, fd_vec3 tangential_velocity,
                      double normal_force, double* history, double* columns, const int* column_index)
{
    fd_vec3 n = input->geometry->normal;
    double stiffness = params[DSDS_K_T], damping = params[DSDS_GAMMA_T];
    fd_vec3 xi = spring_in_plane(history, n);
    fd_vec3 spring = fd_v3_scale(-stiffness, xi);
    fd_vec3 test = fd_v3_sub(spring, fd_v3_scale(damping, tangential_velocity)); /* Eq. (1) */
    double limit = params[DSDS_MU] * normal_force;
    double magnitude = fd_v3_length(test);
    bool slipping = magnitude > limit;
    fd_vec3 force = slipping ? fd_v3_scale(limit / magnitude, test) : test; /* min(F_S, F_max) F_S/|F_S| */
    /* Eq. (10): d(xi)/dt = -(F + k xi) / gamma, one explicit Euler step. While
     * sticking F + k xi = -gamma v and the rate is v itself (Eq. 2), taken as
     * such to spare the round-off of (gamma v) / gamma; while sliding it is
     * Eq. (9), continuous with v at |F_S| = F_max. */
    fd_vec3 rate = slipping ? fd_v3_scale(1.0 / damping, fd_v3_sub(spring, force)) : tangential_velocity;
    xi = fd_v3_mul_add(xi, input->time_step, rate);
    store_spring(history, xi, slipping, columns, column_index);
    if (slipping) {
        *input->slip_flags |= 1u << FD_MECHANISM_SLIDE;
    }
    /* The dashpot moves at the spring's rate; the slider takes the rest of v,
     * and dissipates -F . (v - rate) = |F| (|F_S| - F_max) / gamma >= 0. */
    fd_energy_books* books = &input->energy[FD_MECHANISM_SLIDE];
    books->stored = 0.5 * stiffness * fd_v3_length_squared(xi);
    books->dashpot = damping * fd_v3_length_squared(rate) * input->time_step;
    if (slipping) {
        books->slip = -fd_v3_dot(force, fd_v3_sub(tangential_velocity, rate)) * input->time_step;
    }
    return force;
}

/* Eq. (10) divides by gamma: without a dashpot the C-SDS has no rate. */
static fd_status resolve_csds(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    (void)a;
    (void)b;
    (void)derived;
    if (!(params[DSDS_GAMMA_T] > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "slide model 'csds' needs gamma_t > 0 (got %g N s/m): its spring rate, C-SDS paper Eq. (10), "
                       "is -(F + k xi) / gamma_t; use 'dsds' for a slider without dashpot",
                       params[DSDS_GAMMA_T]);
    }
    return FD_OK;
}

static const fd_param_info dsds_params[] = {
    {"k_t", "N/m", "tangential spring stiffness k of Eq. (1)", NAN, 1e-300, INFINITY},
    {"gamma_t", "N s/m", "tangential dashpot gamma of Eq. (1)", 0.0, 0.0, INFINITY},
    {"mu", "-", "Coulomb friction coefficient (one coefficient, static = kinetic)", NAN, 0.0, INFINITY},
};
static const char* const dsds_columns[DSDS_COLUMNS] = {"xi_x", "xi_y", "xi_z", "slipping"};
static const char* const dsds_units[DSDS_COLUMNS] = {"m", "m", "m", "0=stick,1=slip"};

const fd_submodel fd_sds_submodels[] = {
    {
        .info = {"dsds", FD_MECHANISM_SLIDE,
                 "Discontinuous spring-dashpot-slider (Luding; LAMMPS tangential linear_history), C-SDS paper "
                 "Eq. (1)-(3): F = -k xi - gamma v capped at mu N, spring reset by Eq. (3) while sliding.",
                 dsds_params, 3},
        .kind = FD_KIND_SLIDE_DSDS,
        .history_size = DSDS_HISTORY,
        .column_count = DSDS_COLUMNS,
        .column_names = dsds_columns,
        .column_units = dsds_units,
    },
    {
        .info = {"csds", FD_MECHANISM_SLIDE,
                 "Continuous spring-dashpot-slider, C-SDS paper Eq. (10): F = -k xi - gamma v capped at mu N, "
                 "d(xi)/dt = -(F + k xi)/gamma (= v while sticking), explicit Euler; needs gamma_t > 0.",
                 dsds_params, 3},
        .kind = FD_KIND_SLIDE_CSDS,
        .history_size = DSDS_HISTORY,
        .column_count = DSDS_COLUMNS,
        .column_names = dsds_columns,
        .column_units = dsds_units,
        .resolve = resolve_csds,
    },
};
const int fd_sds_submodel_count = (int)(sizeof fd_sds_submodels / sizeof fd_sds_submodels[0]);
