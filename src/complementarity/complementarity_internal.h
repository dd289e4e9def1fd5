/* The complementarity stepper's workspace and the rows of one contact,
 * shared by its two files: stepper.c (the problem of a step, the step, the
 * public settings) and solvers.c (the matrix-free products and the three
 * iterative solvers of the CCP). Private to src/complementarity/; the rest
 * of the engine sees complementarity.h. Conventions and units: stepper.c.
 *
 * Must not touch: the engine, the penalty stepper, files, ranks. */
#ifndef FD_COMPLEMENTARITY_INTERNAL_H
#define FD_COMPLEMENTARITY_INTERNAL_H

#include "complementarity/complementarity.h"
#include "contact/cone_projection.h"
#include "world/world_store.h"

enum { ROWS = 6 };

/* One contact's rows: everything the solver loop reads, nothing else. */
typedef struct nsc_contact {
    int32_t body_i, body_j;   /* -1 for a static body */
    fd_vec3 frame[3];         /* n, u, w */
    fd_vec3 arm_i[3];         /* r_i x e_k: the angular part of the translational rows of body i */
    fd_vec3 arm_j[3];
    double length;            /* L, m: the rotational rows are L e . (w_i - w_j) */
    double mu, rho, sigma;    /* cone coefficients in the scaled variables (rho/L, sigma/L) */
    double compliance[ROWS];  /* diagonal of C, scaled */
    double b_n;               /* Phi/h, bounded below by -recovery_speed */
    double step;              /* g_c = 1 / (a bound on the largest eigenvalue of N_cc + C_cc) */
} nsc_contact;

/* A box row: generalized friction on a body's translation (Sec. 6.2 seal). */
typedef struct nsc_box {
    int32_t body;
    fd_vec3 axis;
    double limit;             /* impulse, N s: |x| <= friction_force h */
    double step;
} nsc_box;

/* Inverse mass data of a body for the step: translational and rotational
 * inverse-mass operators with the locked directions removed. */
typedef struct nsc_body {
    double inverse_mass;
    fd_vec3 inverse_inertia_body;
    fd_quat orientation;
    fd_quat lock_frame;
    uint32_t lock_translation, lock_rotation;
    bool simple;              /* isotropic, no locks: dw = T / I */
} nsc_body;

struct fd_complementarity {
    nsc_contact* contacts;
    nsc_box* boxes;
    int contact_count, contact_capacity;
    int box_count, box_capacity;
    double* x;                /* reactions, (6 per contact) then (1 per box) */
    double* y;                /* APGD extrapolation point */
    double* previous;         /* x of the previous iterate (APGD) */
    double* best;             /* best iterate so far (APGD) */
    double* gradient;         /* N x + r (+ C x) */
    double* scratch;
    double* gradient_new;     /* APGD: the gradient at the new iterate */
    double* saved;            /* APGD: y while the step is backtracked */
    double* gradient_previous;/* APGD: the gradient at the previous iterate */
    int unknowns, unknown_capacity;
    nsc_body* bodies;
    fd_vec3* free_velocity;   /* v*, per body */
    fd_vec3* free_angular;
    fd_vec3* velocity;        /* v* + M^-1 D x, per body */
    fd_vec3* angular;
    fd_vec3* impulse;         /* scratch: D x per body */
    fd_vec3* angular_impulse;
    int body_capacity;
    fd_solver_stats stats;
    double* residual_history; /* residual after each iteration of the last solve */
    int residual_capacity;
};


/* ---------------------------------------------------------------- bodies */

static inline fd_vec3 without_locked(fd_vec3 value, uint32_t locks, fd_quat frame)
{
    if (locks == 0) {
        return value;
    }
    fd_vec3 local = fd_quat_rotate_inverse(frame, value);
    if (locks & FD_LOCK_X) local.x = 0.0;
    if (locks & FD_LOCK_Y) local.y = 0.0;
    if (locks & FD_LOCK_Z) local.z = 0.0;
    return fd_quat_rotate(frame, local);
}

/* Velocity change of a body for an impulse F and an angular impulse T:
 * M^-1 with the locked directions taken out on both sides (P M^-1 P). */
static inline void apply_inverse_mass(const nsc_body* body, fd_vec3 impulse, fd_vec3 angular_impulse, fd_vec3* dv,
                               fd_vec3* dw)
{
    if (body->simple) {
        *dv = fd_v3_scale(body->inverse_mass, impulse);
        *dw = fd_v3_scale(body->inverse_inertia_body.x, angular_impulse);
        return;
    }
    *dv = without_locked(fd_v3_scale(body->inverse_mass, impulse), body->lock_translation, body->lock_frame);
    fd_vec3 torque = without_locked(angular_impulse, body->lock_rotation, body->lock_frame);
    fd_vec3 local = fd_quat_rotate_inverse(body->orientation, torque);
    *dw = without_locked(fd_quat_rotate(body->orientation, fd_v3_hadamard(body->inverse_inertia_body, local)),
                         body->lock_rotation, body->lock_frame);
}

/* ---------------------------------------------------------------- rows */

/* The six constraint velocities of a contact from body velocities. */
static inline void contact_velocity(const nsc_contact* c, const fd_vec3* v, const fd_vec3* w, double out[ROWS])
{
    fd_vec3 vi = c->body_i >= 0 ? v[c->body_i] : fd_v3(0, 0, 0);
    fd_vec3 wi = c->body_i >= 0 ? w[c->body_i] : fd_v3(0, 0, 0);
    fd_vec3 vj = c->body_j >= 0 ? v[c->body_j] : fd_v3(0, 0, 0);
    fd_vec3 wj = c->body_j >= 0 ? w[c->body_j] : fd_v3(0, 0, 0);
    fd_vec3 dv = fd_v3_sub(vi, vj);
    fd_vec3 dw = fd_v3_sub(wi, wj);
    for (int k = 0; k < 3; ++k) {
        /* e . (v_i + w_i x r_i) = e . v_i + w_i . (r_i x e) */
        out[k] = fd_v3_dot(c->frame[k], dv) + fd_v3_dot(wi, c->arm_i[k]) - fd_v3_dot(wj, c->arm_j[k]);
    }
    out[FD_CONE_TU] = c->length * fd_v3_dot(c->frame[1], dw);
    out[FD_CONE_TW] = c->length * fd_v3_dot(c->frame[2], dw);
    out[FD_CONE_TN] = c->length * fd_v3_dot(c->frame[0], dw);
}

/* D_c x_c: the impulse and angular impulse the contact puts on body i (body j
 * gets -impulse and its own angular impulse). */
static inline void contact_impulses(const nsc_contact* c, const double* x, fd_vec3* impulse, fd_vec3* angular_i,
                             fd_vec3* angular_j)
{
    fd_vec3 force = fd_v3(0, 0, 0), torque_i = fd_v3(0, 0, 0), torque_j = fd_v3(0, 0, 0);
    for (int k = 0; k < 3; ++k) {
        force = fd_v3_mul_add(force, x[k], c->frame[k]);
        torque_i = fd_v3_mul_add(torque_i, x[k], c->arm_i[k]);
        torque_j = fd_v3_mul_add(torque_j, x[k], c->arm_j[k]);
    }
    fd_vec3 rolling = fd_v3_scale(c->length, fd_v3_add(fd_v3_add(fd_v3_scale(x[FD_CONE_TU], c->frame[1]),
                                                                 fd_v3_scale(x[FD_CONE_TW], c->frame[2])),
                                                       fd_v3_scale(x[FD_CONE_TN], c->frame[0])));
    *impulse = force;
    *angular_i = fd_v3_add(torque_i, rolling);
    *angular_j = fd_v3_neg(fd_v3_add(torque_j, rolling));
}

static inline void project_contact(const nsc_contact* c, double* x)
{
    fd_cone_project(x, c->mu, c->rho, c->sigma);
}

static inline void project_box(const nsc_box* box, double* x)
{
    *x = fmin(box->limit, fmax(-box->limit, *x));
}


/* ---------------------------------------------------------------- solvers.c */

/* v = v* + M^-1 D x per body (Eq. 44), into s->velocity and s->angular. */
void fd_ccp_velocities_from(const fd_world* world, fd_complementarity* s, const double* x);
/* The CCP of Eq. (40) by the fixed-point iteration Eq. (46): K = 0 (Jacobi),
 * K the lower block triangle (Gauss-Seidel); or by accelerated projected
 * gradient descent (APGD). Each leaves its reactions in s->x and its
 * statistics in s->stats. */
void fd_ccp_solve_jacobi(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings);
void fd_ccp_solve_gauss_seidel(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings);
void fd_ccp_solve_apgd(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings);

#endif
