/* The sphere kernel: one contact law evaluated at a sphere-sphere or
 * sphere-plane contact, from the few numbers such a contact has (normal,
 * overlap, relative velocity, spins) and the pair's constants computed when
 * the neighbour list was built (neighbor.c, pair_constants).
 *
 * Laws: normal hooke (with any of its dashpots) or hertz; slide dsds, csds or
 * one of the mindlin models; roll dsds or csds; spin dsds, csds or marshall;
 * each mechanism optional. The updates are contact/sds_core.h's and
 * contact/mindlin_core.h's, the same the registry kernels use;
 * the normal forces are normal.c's (fd_normal_evaluate), written for the
 * constants at hand. Energy books come back with the loads; a caller that
 * keeps none ignores them and the compiler drops their arithmetic.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#ifndef FD_PENALTY_SPHERE_KERNEL_H
#define FD_PENALTY_SPHERE_KERNEL_H

#include "contact/mindlin_core.h"
#include "contact/model.h"
#include "contact/sds_core.h"
#include "penalty/penalty.h"

typedef struct fd_sphere_loads {
    double normal_force;          /* N along n on body i */
    double elastic_force;         /* N, the spring's part (output column) */
    double damping_force;         /* N, the dashpot's part (output column) */
    fd_vec3 slide_force;          /* N on body i */
    fd_vec3 roll_torque;          /* N m on body i; body j takes the opposite */
    double spin_torque;           /* N m on body i along n; body j takes the opposite */
    unsigned slip;                /* FD_ENTRY_SLIP_* */
} fd_sphere_loads;

/* history: the contact's block (zeroed when it began); n into body i; overlap
 * (m, > 0 when the surfaces overlap); relative_velocity: body i's surface
 * minus body j's at the contact point (m/s); was_slipping: the FD_ENTRY_SLIP_*
 * bits of the last step (the sliders' static or kinetic coefficient, model.h
 * fd_static_kinetic). books: NULL, or this step's books per mechanism (stored
 * after it, increments over it; zeroed by the caller). */
static inline __attribute__((always_inline)) fd_sphere_loads
fd_sphere_kernel(const fd_contact_law* law, const double* constants, double dt, double advance, fd_vec3 n,
                 double overlap, fd_vec3 relative_velocity, fd_vec3 omega_i, fd_vec3 omega_j, unsigned was_slipping,
                 double* history, fd_energy_books* books)
{
    fd_sphere_loads out;
    out.slip = 0;
    out.slide_force = fd_v3(0.0, 0.0, 0.0);
    out.roll_torque = fd_v3(0.0, 0.0, 0.0);
    out.spin_torque = 0.0;

    /* Normal (normal.c): the overlap grows when body j's surface moves
     * towards body i's along n. */
    double normal_velocity = fd_v3_dot(relative_velocity, n);
    double overlap_rate = -normal_velocity;
    double positive = overlap > 0.0 ? overlap : 0.0;
    const double* normal_params = law->params[FD_MECHANISM_NORMAL];
    double total, stored;
    double normal_dashpot; /* c_n, N s/m (fd_normal_damping_coefficient) */
    bool clamp = true;
    if (law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ) {
        /* Johnson Eq. (4.23); the dashpot's prefactor is the pair's
         * constants[0], its overlap factor fd_normal_dashpot_factor's. */
        double hertz_constant = constants[2];
        double root = sqrt(positive);
        out.elastic_force = hertz_constant * positive * root;
        normal_dashpot = positive > 0.0 ? constants[0] * fd_normal_dashpot_factor(law, constants[1], positive) : 0.0;
        out.damping_force = normal_dashpot * overlap_rate;
        stored = 0.4 * hertz_constant * positive * positive * root;
        clamp = normal_params[FD_HERTZ_LIMIT_DAMPING] != 0.0;
    } else {
        double k = normal_params[FD_HOOKE_STIFFNESS];
        out.elastic_force = k * positive;
        /* No dashpot without overlap (within a positive contact_margin).
         * R_eff is a pair constant only where a law reads it (the
         * viscoelastic dashpot among them: fd_law_constant_count). */
        double radius = normal_params[FD_HOOKE_ETA_N_VISCO] > 0.0 ? constants[1] : 0.0;
        normal_dashpot = positive > 0.0 ? constants[0] * fd_normal_dashpot_factor(law, radius, positive) : 0.0;
        out.damping_force = positive > 0.0 ? normal_dashpot * overlap_rate : 0.0;
        stored = 0.5 * k * positive * positive;
        clamp = normal_params[FD_HOOKE_LIMIT_DAMPING] != 0.0;
    }
    total = out.elastic_force + out.damping_force;
    out.normal_force = clamp && !(total > 0.0) ? 0.0 : total;
    if (books != NULL) {
        books[FD_MECHANISM_NORMAL].stored = stored;
        books[FD_MECHANISM_NORMAL].dashpot = (out.normal_force - out.elastic_force) * overlap_rate * dt;
    }
    /* Coulomb limits scale with |N| (LAMMPS Fncrit; friction.c). */
    double critical = fabs(out.normal_force);

    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    if (slide != NULL && slide->kind == FD_KIND_SLIDE_LINEAR_NOHISTORY) {
        const double* p = law->params[FD_MECHANISM_SLIDE];
        double gamma = fd_tangential_dashpot(p[FD_NOHISTORY_GAMMA_T], p[FD_NOHISTORY_X_GAMMA_T], normal_dashpot);
        fd_vec3 tangential = fd_v3_mul_add(relative_velocity, -normal_velocity, n);
        bool slipping;
        out.slide_force = fd_nohistory_slide_force(gamma, p[FD_NOHISTORY_MU] * critical, dt, tangential, &slipping,
                                                   books != NULL ? &books[FD_MECHANISM_SLIDE] : NULL);
        out.slip |= slipping ? FD_ENTRY_SLIP_SLIDE : 0u;
    } else if (slide != NULL && fd_kind_is_mindlin(slide->kind)) {
        /* mindlin.c: k = k_t a, a = sqrt(R_eff delta), gamma = x_gamma_t c_n. */
        const double* p = law->params[FD_MECHANISM_SLIDE];
        const double* derived = law->derived[FD_MECHANISM_SLIDE];
        double* h = history + law->history_offset[FD_MECHANISM_SLIDE];
        double radius = positive > 0.0 ? sqrt(constants[1] * positive) : 0.0;
        fd_vec3 tangential = fd_v3_mul_add(relative_velocity, -normal_velocity, n);
        fd_sds_vector_step s = fd_mindlin_step_history(
            h, fd_mindlin_rescales(slide->kind), fd_mindlin_holds_force(slide->kind),
            p[FD_MINDLIN_LEGACY_PROJECTION] != 0.0, derived[FD_MINDLIN_DERIVED_K_T], radius,
            p[FD_MINDLIN_X_GAMMA_T] * normal_dashpot, p[FD_MINDLIN_MU_S] * critical,
            derived[FD_MINDLIN_DERIVED_MU_K] * critical, dt, advance, n, tangential);
        out.slide_force = s.force;
        out.slip |= s.slipping ? FD_ENTRY_SLIP_SLIDE : 0u;
        if (books != NULL) {
            books[FD_MECHANISM_SLIDE] = (fd_energy_books){s.stored, s.dashpot, s.slip, s.created, 0.0};
        }
    } else if (slide != NULL) {
        const double* p = law->params[FD_MECHANISM_SLIDE];
        double* h = history + law->history_offset[FD_MECHANISM_SLIDE];
        fd_vec3 tangential = fd_v3_mul_add(relative_velocity, -normal_velocity, n);
        fd_vec3 spring = fd_v3(h[0], h[1], h[2]);
        fd_vec3 xi = p[FD_SDS_LEGACY_PROJECTION] != 0.0 ? fd_sds_project(spring, n) : fd_sds_into_plane(spring, n);
        const double* derived = law->derived[FD_MECHANISM_SLIDE];
        double limit = fd_static_kinetic(was_slipping & FD_ENTRY_SLIP_SLIDE, derived[FD_DERIVED_MU_S],
                                         derived[FD_DERIVED_MU_K]) *
                       critical;
        double inverse_gamma;
        double gamma = fd_sds_tangential_dashpot(p, derived, normal_dashpot, &inverse_gamma);
        fd_sds_vector_step s =
            slide->kind == FD_KIND_SLIDE_DSDS
                ? fd_dsds_vector_step(p[FD_SDS_K_T], derived[FD_SDS_DERIVED_INVERSE_K], gamma, limit, dt, advance,
                                      xi, tangential)
                : fd_csds_vector_step(p[FD_SDS_K_T], gamma, inverse_gamma, limit, dt, advance, xi, tangential);
        h[0] = s.spring.x;
        h[1] = s.spring.y;
        h[2] = s.spring.z;
        out.slide_force = s.force;
        out.slip |= s.slipping ? FD_ENTRY_SLIP_SLIDE : 0u;
        if (books != NULL) {
            books[FD_MECHANISM_SLIDE] = (fd_energy_books){s.stored, s.dashpot, s.slip, s.created, 0.0};
        }
    }

    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    fd_vec3 relative_spin = fd_v3_sub(omega_i, omega_j);
    if (roll != NULL) {
        /* sds_torque.c: v_r = R (omega_i - omega_j) x n, torque R n x F. */
        const double* p = law->params[FD_MECHANISM_ROLL];
        double* h = history + law->history_offset[FD_MECHANISM_ROLL];
        double radius = constants[1];
        const double* derived = law->derived[FD_MECHANISM_ROLL];
        double k = p[0], gamma = p[1];
        double limit = fd_static_kinetic(was_slipping & FD_ENTRY_SLIP_ROLL, derived[FD_DERIVED_MU_S],
                                         derived[FD_DERIVED_MU_K]) *
                       critical;
        fd_vec3 velocity = fd_v3_scale(radius, fd_v3_cross(relative_spin, n));
        double twist = 0.5 * fd_v3_dot(fd_v3_add(omega_i, omega_j), n) * advance;
        fd_vec3 xi = fd_roll_spring_carried(fd_v3(h[0], h[1], h[2]), fd_v3(h[3], h[4], h[5]), n, p[3] != 0.0, twist,
                                            k, limit);
        fd_sds_vector_step s =
            roll->kind == FD_KIND_ROLL_DSDS
                ? fd_dsds_vector_step(k, derived[FD_SDS_DERIVED_INVERSE_K], gamma, limit, dt, advance, xi, velocity)
                : fd_csds_vector_step(k, gamma, derived[FD_SDS_DERIVED_INVERSE_GAMMA], limit, dt, advance, xi,
                                      velocity);
        h[0] = s.spring.x;
        h[1] = s.spring.y;
        h[2] = s.spring.z;
        h[3] = n.x;
        h[4] = n.y;
        h[5] = n.z;
        out.roll_torque = fd_v3_scale(radius, fd_v3_cross(n, s.force));
        out.slip |= s.slipping ? FD_ENTRY_SLIP_ROLL : 0u;
        if (books != NULL) {
            books[FD_MECHANISM_ROLL] = (fd_energy_books){s.stored, s.dashpot, s.slip, s.created, 0.0};
        }
    }

    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    if (spin != NULL) {
        double* h = history + law->history_offset[FD_MECHANISM_SPIN];
        fd_sds_spin_constants c = fd_sds_spin_constants_of(law, constants[1], overlap, normal_dashpot);
        double w = fd_v3_dot(relative_spin, n);
        double limit = fd_static_kinetic(was_slipping & FD_ENTRY_SLIP_SPIN, c.mu_s, c.mu_k) * critical;
        fd_sds_scalar_step s = spin->kind == FD_KIND_SPIN_CSDS
                                   ? fd_csds_scalar_step(c.k, c.gamma, limit, dt, advance, h[0], w)
                                   : fd_dsds_scalar_step(c.k, c.gamma, limit, dt, advance, h[0], w);
        h[0] = s.spring;
        out.spin_torque = s.torque;
        out.slip |= s.slipping ? FD_ENTRY_SLIP_SPIN : 0u;
        if (books != NULL) {
            books[FD_MECHANISM_SPIN] = (fd_energy_books){s.stored, s.dashpot, s.slip, s.created, 0.0};
        }
    }
    return out;
}

#endif
