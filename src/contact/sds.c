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
 * can load it against the motion and create energy. The continuous variant
 * (C-SDS) and the rolling and twisting springs belong with the energy ledger
 * of the spring-dashpot family. */
#include <math.h>

#include "contact/model.h"
#include "core/error.h"

enum { DSDS_K_T, DSDS_GAMMA_T, DSDS_MU };
enum { H_XI = 0, DSDS_HISTORY = 3 };
enum { C_XI = 0, C_SLIPPING = 3, DSDS_COLUMNS = 4 };

fd_vec3 fd_dsds_slide(const double* params, const fd_contact_input* input, fd_vec3 tangential_velocity,
                      double normal_force, double* history, double* columns, const int* column_index)
{
    fd_vec3 n = input->geometry->normal;
    double stiffness = params[DSDS_K_T], damping = params[DSDS_GAMMA_T];
    /* Turn the spring into the new tangent plane, keeping its length. */
    fd_vec3 xi = fd_v3(history[H_XI], history[H_XI + 1], history[H_XI + 2]);
    double length = fd_v3_length(xi);
    xi = fd_v3_scale(length, fd_v3_normalize(fd_v3_reject(xi, n)));
    xi = fd_v3_mul_add(xi, input->time_step, tangential_velocity); /* Eq. (2) */
    fd_vec3 test = fd_v3_sub(fd_v3_scale(-stiffness, xi), fd_v3_scale(damping, tangential_velocity)); /* Eq. (1) */
    double limit = params[DSDS_MU] * normal_force;
    double magnitude = fd_v3_length(test);
    fd_vec3 force = test;
    bool slipping = magnitude > limit;
    if (slipping) {
        force = magnitude > 0.0 ? fd_v3_scale(limit / magnitude, test) : fd_v3(0, 0, 0);
        /* Eq. (3): the spring that makes the test force equal the capped force. */
        xi = fd_v3_scale(-1.0 / stiffness, fd_v3_add(force, fd_v3_scale(damping, tangential_velocity)));
    }
    history[H_XI] = xi.x;
    history[H_XI + 1] = xi.y;
    history[H_XI + 2] = xi.z;
    if (columns != NULL) {
        columns[column_index[C_XI]] = xi.x;
        columns[column_index[C_XI + 1]] = xi.y;
        columns[column_index[C_XI + 2]] = xi.z;
        columns[column_index[C_SLIPPING]] = slipping ? 1.0 : 0.0;
    }
    return force;
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
};
const int fd_sds_submodel_count = (int)(sizeof fd_sds_submodels / sizeof fd_sds_submodels[0]);
