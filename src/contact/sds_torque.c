/* Rolling and twisting spring-dashpot-sliders, as LAMMPS `pair_style granular`
 * defines `rolling sds`, `twisting sds` and `twisting marshall`
 * (src/GRANULAR/granular_model.cpp, gran_sub_mod_rolling*.{cpp,h},
 * gran_sub_mod_twisting*.{cpp,h}), each with the discontinuous update of
 * LAMMPS (D-SDS, C-SDS paper Eq. 1-3) or the continuous one (C-SDS, Eq. 10):
 * the paper's Sec. 1 notes that the same applies to torques.
 *
 * Conventions (fricdem's, which are LAMMPS's): bodies i < j, n points into
 * body i (LAMMPS n = (x_i - x_j)/|x_i - x_j|), omega_rel = omega_i - omega_j.
 *
 * Roll. The relative rolling velocity (LAMMPS, after Wang et al. 2015 Eq. 31)
 *
 *     v_r = R (omega_i - omega_j) x n,    R = R_eff = R_i R_j / (R_i + R_j)
 *
 * drives a spring xi_r (a length in the tangent plane); the pseudo-force
 *
 *     F_S = -k_roll xi_r - gamma_roll v_r                      (1)
 *
 * is capped at mu_roll F_n and gives the torques
 *
 *     tau_i = R n x F,   tau_j = -tau_i.
 *
 * (Check: a ball i rolling along +x on ground j has n = +z, omega_i = +w y,
 * v_r = R w x, F = -gamma_roll R w x, tau_i = -gamma_roll R^2 w y: against the
 * rolling. A small sticking rotation theta in the tangent plane loads
 * xi_r = R theta x n and gives tau_i = -k_roll R^2 theta.) The power of the
 * torques on the pair is tau_i . omega_rel = F . v_r, so the energy books of
 * a pseudo-force in (F, v_r) are those of a force.
 *
 * Spin. The relative twist rate (Marshall 2009 Eq. 29) w = (omega_i -
 * omega_j) . n drives a scalar spring xi_t (rad); the test torque
 *
 *     T_S = -k_twist xi_t - gamma_twist w                       (1)
 *
 * is capped at mu_twist F_n (mu_twist in m: Marshall Eq. 44) and acts as
 * tau_i = T n, tau_j = -T n. `marshall` takes k_twist = k_t a^2 / 2,
 * gamma_twist = gamma_t a^2 / 2, mu_twist = 2/3 a mu (Marshall Eq. 32-33)
 * from the law's slide model (dsds or csds) and the contact radius
 * a = sqrt(R_eff delta), with the D-SDS update, as LAMMPS.
 *
 * Updates, per step, given the spring xi_n carried over from the last step:
 *   D-SDS (LAMMPS): xi_p = xi_n + dt v (2); F_S from (1) at xi_p; when
 *     |F_S| > F_max, F = F_max F_S/|F_S| and the spring is reset to
 *     xi = -(F + gamma v)/k (3), else F = F_S, xi = xi_p.
 *   C-SDS: F_S from (1) at xi_n; F = min(|F_S|, F_max) F_S/|F_S|;
 *     xi_(n+1) = xi_n + dt r, r = -(F + k xi_n)/gamma (10), = v while sticking.
 *
 * Where we differ from LAMMPS, and why:
 *  - Frame transport of the rolling spring. LAMMPS projects the stored
 *    spring into the new tangent plane and rescales it to its old length
 *    (gk_rotate_rescale_vec, Luding 2008 Eq. 17) and does not turn it with the
 *    pair's rotation about n ("not currently implemented", pair_granular
 *    docs). We store the previous normal and carry the spring by the minimal
 *    rotation taking it to the new normal (Rodrigues), then turn it about n
 *    by the pair's mean spin, (omega_i + omega_j)/2 . n dt. A pair that turns
 *    rigidly then carries its spring with it exactly: length and angle to the
 *    axis of rotation are kept for any step, where the projection changes the
 *    angle by O(dphi^2) per step and loses the spring entirely at a 90 degree
 *    turn. The slide models keep LAMMPS's projection.
 *  - The twisting cap direction. LAMMPS caps at -mu_twist F_n sgn(w) and
 *    resets xi_t = (mu_twist F_n sgn(w) - gamma w)/k; we cap along the test
 *    torque, T = F_max T_S/|T_S| and xi_t = -(T + gamma w)/k, Eq. (3) as
 *    LAMMPS does for rolling and sliding. The two agree whenever the test
 *    torque opposes w, which is every slip onset at a steady normal force;
 *    they differ when the normal force drops under a spring loaded against
 *    the current twist (LAMMPS then flips the torque, ours keeps the spring's
 *    sign), and at w = 0 (LAMMPS drops the torque and the spring to zero).
 *  - The normal: LAMMPS evaluates v_r and w with the half-step normal of its
 *    velocity Verlet (nxuse) and the torques with the full-step one; fricdem
 *    has one normal per step, the narrow phase's.
 *  - F_n is |N| (LAMMPS Fncrit = |F_ne + F_damp|), the total normal force.
 *
 * Energy books (fd_energy_books, per step): stored = k |xi|^2 / 2 after the
 * update; dashpot = gamma |r|^2 dt with r the rate the dashpot sees (v for
 * D-SDS, the spring rate for C-SDS); D-SDS reset: the spring energy change of
 * Eq. (3), k (|xi|^2 - |xi_p|^2)/2, goes to `created` when positive, to
 * `slip` (negated) when negative; C-SDS while slipping: slip = -F . (v - r) dt
 * >= 0 (the paper's Eq. 11).
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>

#include "contact/model.h"
#include "contact/sds_core.h"
#include "core/error.h"

enum { ROLL_K, ROLL_GAMMA, ROLL_MU, ROLL_TRANSPORT, ROLL_MU_S, ROLL_MU_K };
enum { SPIN_K, SPIN_GAMMA, SPIN_MU, SPIN_MU_S, SPIN_MU_K };
enum { H_ROLL_XI = 0, H_ROLL_NORMAL = 3, ROLL_HISTORY = 6 };
enum { H_SPIN_XI = 0, SPIN_HISTORY = 1 };
enum { C_ROLL_XI = 0, C_ROLL_SLIPPING = 3, ROLL_COLUMNS = 4 };
enum { C_SPIN_XI = 0, C_SPIN_SLIPPING = 1, SPIN_COLUMNS = 2 };

/* ---------------------------------------------------------------- frame transport */

fd_vec3 fd_sds_transport(fd_vec3 vector, fd_vec3 from, fd_vec3 to, double twist)
{
    return fd_sds_transport_inline(vector, from, to, twist);
}

/* ---------------------------------------------------------------- books */

/* The step's books arrive zeroed (fd_contact_input.energy): the increments
 * are added, as Fang & Negrut's roll adds each body's share to one book,
 * and the stored energy, a state, is set. */
static void book_vector_step(fd_energy_books* books, const fd_sds_vector_step* s)
{
    if (books != NULL) {
        books->stored = s->stored;
        books->dashpot += s->dashpot;
        books->slip += s->slip;
        books->created += s->created;
    }
}

/* ---------------------------------------------------------------- roll */

/* The updates are those of contact/sds_core.h, shared with the penalty
 * stepper's sphere kernels. */
void fd_sds_roll_evaluate(const fd_contact_law* law, const fd_contact_input* input, double critical_force,
                          double* history, double* columns, fd_contact_loads* loads)
{
    const fd_submodel* model = law->submodel[FD_MECHANISM_ROLL];
    const double* p = law->params[FD_MECHANISM_ROLL];
    const int* column_index = law->column_index[FD_MECHANISM_ROLL];
    double* h = history + law->history_offset[FD_MECHANISM_ROLL];
    double k = p[ROLL_K], gamma = p[ROLL_GAMMA], dt = input->time_step, advance = input->spring_time_step;
    fd_vec3 n = input->geometry->normal;
    double radius = input->geometry->effective_radius;
    radius = isfinite(radius) ? radius : 0.0; /* two planes do not roll */

    fd_vec3 omega_i = input->state_i->angular_velocity, omega_j = input->state_j->angular_velocity;
    fd_vec3 velocity = fd_v3_scale(radius, fd_v3_cross(fd_v3_sub(omega_i, omega_j), n));
    /* The stored spring, carried from last step's frame to this one. */
    fd_vec3 xi = fd_v3(h[H_ROLL_XI], h[H_ROLL_XI + 1], h[H_ROLL_XI + 2]);
    fd_vec3 previous =
        input->is_new ? fd_v3(0, 0, 0) : fd_v3(h[H_ROLL_NORMAL], h[H_ROLL_NORMAL + 1], h[H_ROLL_NORMAL + 2]);
    const double* derived = law->derived[FD_MECHANISM_ROLL];
    bool was_slipping = input->was_slipping & (1u << FD_MECHANISM_ROLL);
    double limit = fd_static_kinetic(was_slipping, derived[FD_DERIVED_MU_S], derived[FD_DERIVED_MU_K]) *
                   critical_force;
    double twist = 0.5 * fd_v3_dot(fd_v3_add(omega_i, omega_j), n) * advance;
    xi = fd_roll_spring_carried(xi, previous, n, p[ROLL_TRANSPORT] != 0.0, twist, k, limit);
    fd_sds_vector_step s =
        model->kind == FD_KIND_ROLL_DSDS
            ? fd_dsds_vector_step(k, derived[FD_SDS_DERIVED_INVERSE_K], gamma, limit, dt, advance, xi, velocity)
            : fd_csds_vector_step(k, gamma, derived[FD_SDS_DERIVED_INVERSE_GAMMA], limit, dt, advance, xi, velocity);
    book_vector_step(input->energy != NULL ? &input->energy[FD_MECHANISM_ROLL] : NULL, &s);
    fd_vec3 torque = fd_v3_scale(radius, fd_v3_cross(n, s.force));
    loads->roll_torque_i = torque;
    loads->roll_torque_j = fd_v3_neg(torque);
    if (s.slipping && input->slip_flags != NULL) {
        *input->slip_flags |= 1u << FD_MECHANISM_ROLL;
    }
    h[H_ROLL_XI] = s.spring.x;
    h[H_ROLL_XI + 1] = s.spring.y;
    h[H_ROLL_XI + 2] = s.spring.z;
    h[H_ROLL_NORMAL] = n.x;
    h[H_ROLL_NORMAL + 1] = n.y;
    h[H_ROLL_NORMAL + 2] = n.z;
    if (columns != NULL) {
        columns[column_index[C_ROLL_XI]] = s.spring.x;
        columns[column_index[C_ROLL_XI + 1]] = s.spring.y;
        columns[column_index[C_ROLL_XI + 2]] = s.spring.z;
        columns[column_index[C_ROLL_SLIPPING]] = s.slipping ? 1.0 : 0.0;
    }
}

/* ---------------------------------------------------------------- spin */

void fd_sds_spin_evaluate(const fd_contact_law* law, const fd_contact_input* input, double critical_force,
                          double* history, double* columns, fd_contact_loads* loads)
{
    const fd_submodel* model = law->submodel[FD_MECHANISM_SPIN];
    const int* column_index = law->column_index[FD_MECHANISM_SPIN];
    double* h = history + law->history_offset[FD_MECHANISM_SPIN];
    /* The pair's normal dashpot enters only marshall's, under a slide law
     * with x_gamma_t. */
    bool scaled_dashpot = model->kind == FD_KIND_SPIN_MARSHALL &&
                          law->params[FD_MECHANISM_SLIDE][FD_SDS_X_GAMMA_T] >= 0.0;
    fd_sds_spin_constants c =
        fd_sds_spin_constants_of(law, input->geometry->effective_radius, input->geometry->penetration,
                                 scaled_dashpot ? fd_normal_damping_coefficient(law, input) : 0.0);
    fd_vec3 n = input->geometry->normal;
    double rate_twist = fd_v3_dot(fd_v3_sub(input->state_i->angular_velocity, input->state_j->angular_velocity), n);
    double xi = input->is_new ? 0.0 : h[H_SPIN_XI];
    bool was_slipping = input->was_slipping & (1u << FD_MECHANISM_SPIN);
    double limit = fd_static_kinetic(was_slipping, c.mu_s, c.mu_k) * critical_force; /* Marshall Eq. 44 */
    fd_sds_scalar_step s =
        model->kind == FD_KIND_SPIN_CSDS
            ? fd_csds_scalar_step(c.k, c.gamma, limit, input->time_step, input->spring_time_step, xi, rate_twist)
            : fd_dsds_scalar_step(c.k, c.gamma, limit, input->time_step, input->spring_time_step, xi, rate_twist);
    if (input->energy != NULL) {
        fd_energy_books* books = &input->energy[FD_MECHANISM_SPIN];
        books->stored = s.stored;
        books->dashpot += s.dashpot;
        books->slip += s.slip;
        books->created += s.created;
    }
    loads->spin_torque_i = fd_v3_scale(s.torque, n);
    loads->spin_torque_j = fd_v3_scale(-s.torque, n);
    if (s.slipping && input->slip_flags != NULL) {
        *input->slip_flags |= 1u << FD_MECHANISM_SPIN;
    }
    h[H_SPIN_XI] = s.spring;
    if (columns != NULL) {
        columns[column_index[C_SPIN_XI]] = s.spring;
        columns[column_index[C_SPIN_SLIPPING]] = s.slipping ? 1.0 : 0.0;
    }
}

/* LAMMPS twisting marshall (Marshall 2009 Eq. 32-33, gran_twisting_marshall):
 * k_twist = k_t a^2 / 2, gamma_twist = gamma_t a^2 / 2, mu_twist = 2/3 a mu
 * from the slide model, a = sqrt(R_eff delta) the contact radius of LAMMPS's
 * non-cohesive normal models (0 without overlap or curvature); the others'
 * own parameters. */
fd_sds_spin_constants fd_sds_spin_constants_of(const fd_contact_law* law, double effective_radius, double penetration,
                                               double normal_dashpot)
{
    if (law->submodel[FD_MECHANISM_SPIN]->kind == FD_KIND_SPIN_MARSHALL) {
        const double* slide = law->params[FD_MECHANISM_SLIDE];
        const double* coefficients = law->derived[FD_MECHANISM_SLIDE];
        double a = isfinite(effective_radius) && penetration > 0.0 ? sqrt(effective_radius * penetration) : 0.0;
        double gamma_t = fd_tangential_dashpot(slide[FD_SDS_GAMMA_T], slide[FD_SDS_X_GAMMA_T], normal_dashpot);
        return (fd_sds_spin_constants){0.5 * slide[FD_SDS_K_T] * a * a, 0.5 * gamma_t * a * a,
                                       2.0 / 3.0 * a * coefficients[FD_DERIVED_MU_S],
                                       2.0 / 3.0 * a * coefficients[FD_DERIVED_MU_K]};
    }
    const double* p = law->params[FD_MECHANISM_SPIN];
    const double* derived = law->derived[FD_MECHANISM_SPIN];
    return (fd_sds_spin_constants){p[SPIN_K], p[SPIN_GAMMA], derived[FD_DERIVED_MU_S],
                                   derived[FD_DERIVED_MU_K]};
}

/* ---------------------------------------------------------------- checks */

fd_status fd_sds_torque_check_law(const fd_contact_law* law)
{
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    if (spin != NULL && spin->kind == FD_KIND_SPIN_MARSHALL &&
        (slide == NULL || (slide->kind != FD_KIND_SLIDE_DSDS && slide->kind != FD_KIND_SLIDE_CSDS))) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "spin model 'marshall' needs slide model 'dsds' or 'csds' (it takes k_twist = k_t a^2/2, "
                       "gamma_twist = gamma_t a^2/2, mu_twist = 2/3 a mu from it; LAMMPS twisting marshall); "
                       "got slide model '%s'",
                       slide != NULL ? slide->info.name : "none");
    }
    return FD_OK;
}

static fd_status resolve_roll(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    fd_status status = fd_resolve_static_kinetic("roll model (dsds or csds)", "mu_roll", params, ROLL_MU, ROLL_MU_S,
                                                 ROLL_MU_K, derived);
    if (status != FD_OK) {
        return status;
    }
    derived[FD_SDS_DERIVED_INVERSE_K] = 1.0 / params[ROLL_K];
    derived[FD_SDS_DERIVED_INVERSE_GAMMA] = params[ROLL_GAMMA] > 0.0 ? 1.0 / params[ROLL_GAMMA] : 0.0;
    return FD_OK;
}

/* Eq. (10) divides by gamma: without a dashpot the C-SDS has no rate. The
 * roll's and the spin's check, naming the mechanism, its dashpot (value and
 * unit) and the load its spring rate is written with. */
static fd_status check_csds_dashpot(const char* mechanism, const char* gamma_name, double gamma, const char* unit,
                                    const char* load)
{
    if (gamma > 0.0) {
        return FD_OK;
    }
    return fd_fail(FD_ERR_INVALID_ARGUMENT,
                   "%s model 'csds' needs %s > 0 (got %g %s): its spring rate, C-SDS paper Eq. (10), is -(%s + k xi) "
                   "/ %s; use 'dsds' for a slider without dashpot",
                   mechanism, gamma_name, gamma, unit, load, gamma_name);
}

static fd_status resolve_roll_csds(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    fd_status status = check_csds_dashpot("roll", "gamma_roll", params[ROLL_GAMMA], "N s/m", "F");
    return status != FD_OK ? status : resolve_roll(params, a, b, derived);
}

static fd_status resolve_spin(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    return fd_resolve_static_kinetic("spin model (dsds or csds)", "mu_twist", params, SPIN_MU, SPIN_MU_S, SPIN_MU_K,
                                     derived);
}

static fd_status resolve_spin_csds(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    fd_status status = check_csds_dashpot("spin", "gamma_twist", params[SPIN_GAMMA], "N m s/rad", "T");
    return status != FD_OK ? status : resolve_spin(params, a, b, derived);
}

/* ---------------------------------------------------------------- table */

static const fd_param_info roll_params[] = {
    {"k_roll", "N/m", "rolling spring k_roll: F = -k_roll xi_r, torque R_eff n x F (LAMMPS rolling sds)", NAN, 1e-300,
     INFINITY, "LAMMPS pair granular: rolling sds k_roll (C-SDS Eq. (1), torques: Sec. 1)"},
    {"gamma_roll", "N s/m", "rolling dashpot gamma_roll on v_r = R_eff (omega_i - omega_j) x n", 0.0, 0.0, INFINITY,
     "LAMMPS pair granular: rolling sds gamma_roll; csds: C-SDS Eq. (10)"},
    {"mu_roll", "-",
     "rolling friction coefficient, static = kinetic: |F| <= mu_roll |N|, torque <= mu_roll |N| R_eff (or "
     "mu_roll_s and mu_roll_k instead); -1 = not given",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: rolling sds mu_roll"},
    {"transport", "-",
     "how the spring follows the contact (integer): 0 turned with the frame (minimal rotation of the normal, then "
     "the pair's mean spin about it); 1 projected into the new tangent plane and rescaled, as LAMMPS does",
     0.0, 0.0, 1.0, "fricdem: spring turned with the contact frame; 1 = LAMMPS rolling sds (Luding 2008 Eq. 17)"},
    {"mu_roll_s", "-",
     "static rolling friction coefficient, instead of mu_roll: a sticking contact starts to roll when |F| exceeds "
     "mu_roll_s |N|; -1 = not given",
     -1.0, -1.0, INFINITY, "fricdem: LAMMPS linear_history/static switch (Fang & Negrut Sec. 3.1) applied to rolling"},
    {"mu_roll_k", "-",
     "kinetic rolling friction coefficient (with mu_roll_s, <= it): the cap while rolling, until |F| <= "
     "mu_roll_k |N|; -1 = mu_roll_s",
     -1.0, -1.0, INFINITY, "fricdem: LAMMPS linear_history/static switch (Fang & Negrut Sec. 3.1) applied to rolling"},
};
static const fd_param_info spin_params[] = {
    {"k_twist", "N m/rad", "twisting spring k_twist: T = -k_twist xi_t (LAMMPS twisting sds)", NAN, 1e-300, INFINITY,
     "LAMMPS pair granular: twisting sds k_twist (C-SDS Eq. (1), torques: Sec. 1)"},
    {"gamma_twist", "N m s/rad", "twisting dashpot on w = (omega_i - omega_j) . n", 0.0, 0.0, INFINITY,
     "LAMMPS pair granular: twisting sds gamma_twist; csds: C-SDS Eq. (10)"},
    {"mu_twist", "m",
     "twisting friction length, static = kinetic: |T| <= mu_twist |N| (or mu_twist_s and mu_twist_k instead); -1 = "
     "not given",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: twisting sds mu_twist (a length, Marshall 2009 Eq. 44)"},
    {"mu_twist_s", "m",
     "static twisting friction length, instead of mu_twist: a sticking contact starts to twist when |T| exceeds "
     "mu_twist_s |N|; -1 = not given",
     -1.0, -1.0, INFINITY, "fricdem: LAMMPS linear_history/static switch (Fang & Negrut Sec. 3.1) applied to twisting"},
    {"mu_twist_k", "m",
     "kinetic twisting friction length (with mu_twist_s, <= it): the cap while twisting, until |T| <= mu_twist_k "
     "|N|; -1 = mu_twist_s",
     -1.0, -1.0, INFINITY, "fricdem: LAMMPS linear_history/static switch (Fang & Negrut Sec. 3.1) applied to twisting"},
};
static const char* const roll_columns[ROLL_COLUMNS] = {"roll_xi_x", "roll_xi_y", "roll_xi_z", "roll_slipping"};
static const char* const roll_units[ROLL_COLUMNS] = {"m", "m", "m", "0=stick|1=slip"};
static const char* const spin_columns[SPIN_COLUMNS] = {"twist_xi", "spin_slipping"};
static const char* const spin_units[SPIN_COLUMNS] = {"rad", "0=stick|1=slip"};

const fd_submodel fd_sds_torque_submodels[] = {
    FD_SUBMODEL("dsds", FD_MECHANISM_ROLL, roll_params,
                "Rolling spring-dashpot-slider, LAMMPS rolling sds: pseudo-force F = -k_roll xi_r - gamma_roll v_r, "
                "v_r = R_eff (omega_i - omega_j) x n, capped at mu_roll |N| with the D-SDS reset (C-SDS paper "
                "Eq. 3); torque R_eff n x F on body i, the opposite on j; spring carried with the contact frame.",
                .kind = FD_KIND_ROLL_DSDS, .history_size = ROLL_HISTORY, .resolve = resolve_roll,
                FD_SUBMODEL_COLUMNS(roll_columns, roll_units)),
    FD_SUBMODEL("csds", FD_MECHANISM_ROLL, roll_params,
                "Continuous rolling spring-dashpot-slider: as roll dsds, with the C-SDS update d(xi_r)/dt = "
                "-(F + k_roll xi_r)/gamma_roll (= v_r while sticking), C-SDS paper Eq. (10); needs gamma_roll > 0.",
                .kind = FD_KIND_ROLL_CSDS, .history_size = ROLL_HISTORY, .resolve = resolve_roll_csds,
                FD_SUBMODEL_COLUMNS(roll_columns, roll_units)),
    FD_SUBMODEL("dsds", FD_MECHANISM_SPIN, spin_params,
                "Twisting spring-dashpot-slider, LAMMPS twisting sds: T = -k_twist xi_t - gamma_twist w, "
                "w = (omega_i - omega_j) . n, capped at mu_twist |N| with the D-SDS reset (C-SDS paper Eq. 3); "
                "torque T n on body i, the opposite on j.",
                .kind = FD_KIND_SPIN_DSDS, .history_size = SPIN_HISTORY, .resolve = resolve_spin,
                FD_SUBMODEL_COLUMNS(spin_columns, spin_units)),
    FD_SUBMODEL("csds", FD_MECHANISM_SPIN, spin_params,
                "Continuous twisting spring-dashpot-slider: as spin dsds, with the C-SDS update d(xi_t)/dt = "
                "-(T + k_twist xi_t)/gamma_twist (= w while sticking), C-SDS paper Eq. (10); needs gamma_twist > 0.",
                .kind = FD_KIND_SPIN_CSDS, .history_size = SPIN_HISTORY, .resolve = resolve_spin_csds,
                FD_SUBMODEL_COLUMNS(spin_columns, spin_units)),
    {
        .info = {"marshall", FD_MECHANISM_SPIN,
                 "LAMMPS twisting marshall (Marshall 2009 Eq. 32-33): spin dsds with k_twist = k_t a^2/2, "
                 "gamma_twist = gamma_t a^2/2, mu_twist = 2/3 a mu from the slide model (dsds or csds) and "
                 "a = sqrt(R_eff delta); no parameters.",
                 NULL, 0},
        .kind = FD_KIND_SPIN_MARSHALL,
        .history_size = SPIN_HISTORY, FD_SUBMODEL_COLUMNS(spin_columns, spin_units),
    },
};
const int fd_sds_torque_submodel_count = FD_COUNT_OF(fd_sds_torque_submodels);
