/* The non-smooth stepper of Tasora & Anitescu (papers/004): rigid contacts
 * with sliding, rolling and spinning friction cones, the velocity-level
 * scheme Eq. (18), relaxed into the cone complementarity problem Eq. (40):
 *
 *   (N gamma + r) in -Y°  perp  gamma in Y,
 *   N = D^T M^-1 D (+ C, Sec. 6.2),  r = D^T v* + b,  v* = v + h M^-1 f,
 *
 * per contact a 6-D reaction (impulse) gamma = (g_n, g_u, g_w, t_u, t_w, t_n)
 * in the cone of Eq. (31), the Jacobian rows of App. B (Eq. 52-57) stored per
 * contact, N applied matrix-free through the bodies (never built), then
 * v+ = v* + M^-1 D gamma (Eq. 44) and the positions advanced with v+ on the
 * rotation group. docs/models/complementarity.md gives the derivations.
 *
 * Conventions. n points into body i (from j to i), the frame is (n, u, w).
 * The force on body i is F = g_n n + g_u u + g_w w at the contact point, the
 * torque on i about the point T = t_n n + t_u u + t_w w; body j gets -F and
 * -T. The constraint velocities are the transposed rows: the gap rate
 * n . (v_i + w_i x r_i - v_j - w_j x r_j) + Phi/h and likewise for u, w; the
 * relative rotation rates e . (w_i - w_j) for e = u, w (rolling) and n
 * (spinning), Eq. (51).
 *
 * Units. The rotational rows are scaled by a length L (the contact's
 * effective radius) so that every row is a velocity and every reaction an
 * impulse: x = (g_n, g_u, g_w, t_u/L, t_w/L, t_n/L), cone coefficients
 * (mu, rho/L, sigma/L). The solution of the CCP does not depend on this
 * metric; the projected iterations need one metric for the whole 6-D block.
 *
 * Residual. r(x) = max over contacts of |x_c - Pi_c(x_c - g_c (N x + r)_c)| /
 * g_c, in m/s: it
 * is zero exactly at a solution of the CCP (the projected-gradient fixed
 * point), and it measures the velocity error of the constraints. g_c is
 * 1 / (Gershgorin's bound on the largest eigenvalue of the contact's block). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "contact/cone_projection.h"
#include "core/error.h"
#include "world/world_internal.h"

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

/* ---------------------------------------------------------------- settings */

static fd_complementarity_def settings_of(const fd_world* world)
{
    fd_complementarity_def s = world->def.complementarity;
    if (s.max_iterations <= 0) {
        s.max_iterations = 200;
    }
    if (!(s.tolerance > 0.0)) {
        s.tolerance = 1e-6;
    }
    if (!(s.omega > 0.0)) {
        s.omega = s.solver == FD_SOLVER_JACOBI ? 0.3 : 1.0;
    }
    if (!(s.lambda > 0.0)) {
        s.lambda = 1.0;
    }
    if (!(s.recovery_speed > 0.0)) {
        s.recovery_speed = 0.1;
    }
    return s;
}

/* ---------------------------------------------------------------- bodies */

static fd_vec3 without_locked(fd_vec3 value, uint32_t locks, fd_quat frame)
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
static void apply_inverse_mass(const nsc_body* body, fd_vec3 impulse, fd_vec3 angular_impulse, fd_vec3* dv,
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
static void contact_velocity(const nsc_contact* c, const fd_vec3* v, const fd_vec3* w, double out[ROWS])
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
static void contact_impulses(const nsc_contact* c, const double* x, fd_vec3* impulse, fd_vec3* angular_i,
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

static void project_contact(const nsc_contact* c, double* x)
{
    fd_cone_project(x, c->mu, c->rho, c->sigma);
}

static void project_box(const nsc_box* box, double* x)
{
    *x = fmin(box->limit, fmax(-box->limit, *x));
}

/* ---------------------------------------------------------------- set-up */

/* Every array is allocated, even for no entries: the solver's memcpy and
 * memset calls may pass zero bytes (no contacts, no bodies), and a null
 * pointer is undefined behaviour for them even then (C17 7.24.1). */
static bool grow(void** array, int* capacity, int needed, size_t size)
{
    if (needed <= *capacity && *array != NULL) {
        return true;
    }
    int next = needed + needed / 2 + 16;
    void* grown = realloc(*array, (size_t)next * size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    *capacity = next;
    return true;
}

static fd_status reserve(fd_complementarity* s, int contacts, int boxes, int bodies)
{
    int unknowns = ROWS * contacts + boxes;
    bool ok = grow((void**)&s->contacts, &s->contact_capacity, contacts, sizeof *s->contacts) &&
              grow((void**)&s->boxes, &s->box_capacity, boxes, sizeof *s->boxes);
    int capacity = s->unknown_capacity;
    double** vectors[] = {&s->x,       &s->y,       &s->previous,     &s->best,
                          &s->gradient, &s->scratch, &s->gradient_new, &s->saved, &s->gradient_previous};
    for (int k = 0; ok && k < 9; ++k) {
        capacity = s->unknown_capacity;
        ok = grow((void**)vectors[k], &capacity, unknowns, sizeof(double));
    }
    if (ok) {
        s->unknown_capacity = capacity;
    }
    int body_capacity = s->body_capacity;
    void** body_arrays[] = {(void**)&s->free_velocity, (void**)&s->free_angular, (void**)&s->velocity,
                            (void**)&s->angular,       (void**)&s->impulse,      (void**)&s->angular_impulse};
    for (int k = 0; ok && k < 6; ++k) {
        body_capacity = s->body_capacity;
        ok = grow(body_arrays[k], &body_capacity, bodies, sizeof(fd_vec3));
    }
    if (ok) {
        body_capacity = s->body_capacity;
        ok = grow((void**)&s->bodies, &body_capacity, bodies, sizeof *s->bodies);
        s->body_capacity = body_capacity;
    }
    if (!ok) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the complementarity problem (%d contacts)", contacts);
    }
    s->unknowns = unknowns;
    return FD_OK;
}

void fd_complementarity_free(fd_complementarity* s)
{
    if (s == NULL) {
        return;
    }
    free(s->contacts);
    free(s->boxes);
    free(s->x);
    free(s->y);
    free(s->previous);
    free(s->best);
    free(s->gradient);
    free(s->scratch);
    free(s->gradient_new);
    free(s->saved);
    free(s->gradient_previous);
    free(s->bodies);
    free(s->free_velocity);
    free(s->free_angular);
    free(s->velocity);
    free(s->angular);
    free(s->impulse);
    free(s->angular_impulse);
    free(s->residual_history);
    free(s);
}

/* The contact's length scale L of the rotational rows: its effective radius,
 * or the smaller sphere's radius against a plane. */
static double contact_length(const fd_world* world, const fd_contact* contact)
{
    double radius = contact->geometry.effective_radius;
    if (isfinite(radius) && radius > 0.0) {
        return radius;
    }
    double ri = world->bounding_radii[contact->body_i], rj = world->bounding_radii[contact->body_j];
    double r = fmin(isfinite(ri) ? ri : INFINITY, isfinite(rj) ? rj : INFINITY);
    return isfinite(r) && r > 0.0 ? r : 1.0;
}

/* Builds the rows, the free velocities and the warm start. */
static fd_status build_problem(fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings)
{
    double h = world->def.time_step;
    int n = world->body_count;
    const fd_contact_set* set = &world->contacts;
    int boxes = 0;
    for (int b = 0; b < n; ++b) {
        boxes += fd_body_extras(&world->masses[b])->friction_force > 0.0 && world->colds[b].type == FD_BODY_DYNAMIC;
    }
    fd_status status = reserve(s, set->count, boxes, n);
    if (status != FD_OK) {
        return status;
    }
    s->contact_count = set->count;
    s->box_count = boxes;

    /* Bodies: inverse mass with locks, v* = v + h M^-1 f (Eq. 37, 44). */
    for (int b = 0; b < n; ++b) {
        nsc_body* body = &s->bodies[b];
        const fd_body_mass* mass = &world->masses[b];
        const fd_body_state body_state = fd_world_state(world, b);
        const fd_body_state* state = &body_state;
        body->inverse_mass = mass->inverse_mass;
        body->inverse_inertia_body = mass->inverse_inertia;
        body->orientation = state->orientation;
        body->lock_frame = fd_body_extras(mass)->lock_frame;
        body->lock_translation = mass->lock_translation;
        body->lock_rotation = mass->lock_rotation;
        body->simple = mass->isotropic && mass->lock_translation == 0 && mass->lock_rotation == 0;
        fd_vec3 dv, dw;
        apply_inverse_mass(body, fd_v3_scale(h, world->forces[b]), fd_v3_scale(h, world->torques[b]), &dv, &dw);
        fd_body_state free_state = *state;
        free_state.velocity = fd_v3_add(state->velocity, dv);
        free_state.angular_velocity = fd_v3_add(state->angular_velocity, dw);
        world->lock_work[b] = 0.0;
        if (world->colds[b].type == FD_BODY_DYNAMIC) {
            world->lock_work[b] = fd_body_apply_locks(&free_state, mass);
        }
        s->free_velocity[b] = free_state.velocity;
        s->free_angular[b] = free_state.angular_velocity;
    }

    /* Contacts: rows of App. B, cone coefficients, stabilisation, warm start. */
    for (int c = 0; c < set->count; ++c) {
        const fd_contact* contact = &set->contacts[c];
        const fd_contact_law* law = &world->laws[contact->law];
        nsc_contact* row = &s->contacts[c];
        const fd_contact_geometry* g = &contact->geometry;
        int i = contact->body_i, j = contact->body_j;
        row->body_i = world->colds[i].type == FD_BODY_DYNAMIC ? i : -1;
        row->body_j = world->colds[j].type == FD_BODY_DYNAMIC ? j : -1;
        fd_vec3 nrm = g->normal;
        fd_vec3 u = fd_v3_any_orthogonal(nrm);
        row->frame[0] = nrm;
        row->frame[1] = u;
        row->frame[2] = fd_v3_cross(nrm, u);
        fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(g->point_i, g->point_j));
        fd_vec3 ri = fd_v3_sub(point, world->position[i]);
        /* body j through its image nearest to body i (periodic worlds) */
        fd_vec3 rj = fd_v3_sub(point, fd_v3_add(world->position[j], contact->image_offset));
        for (int k = 0; k < 3; ++k) {
            row->arm_i[k] = fd_v3_cross(ri, row->frame[k]);
            row->arm_j[k] = fd_v3_cross(rj, row->frame[k]);
        }
        double length = contact_length(world, contact);
        row->length = length;
        const double* normal = law->params[FD_MECHANISM_NORMAL];
        const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
        const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
        const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
        /* A missing mechanism is a cone of coefficient 0: no reaction there. */
        row->mu = slide != NULL ? law->params[FD_MECHANISM_SLIDE][0] : 0.0;
        row->rho = roll != NULL ? law->params[FD_MECHANISM_ROLL][0] / length : 0.0;
        row->sigma = spin != NULL ? law->params[FD_MECHANISM_SPIN][0] / length : 0.0;
        double inverse_h2 = 1.0 / (h * h);
        row->compliance[0] = normal[0] * inverse_h2;
        row->compliance[1] = row->compliance[2] = slide != NULL ? law->params[FD_MECHANISM_SLIDE][1] * inverse_h2 : 0.0;
        row->compliance[FD_CONE_TU] = row->compliance[FD_CONE_TW] =
            roll != NULL ? law->params[FD_MECHANISM_ROLL][1] * length * length * inverse_h2 : 0.0;
        row->compliance[FD_CONE_TN] =
            spin != NULL ? law->params[FD_MECHANISM_SPIN][1] * length * length * inverse_h2 : 0.0;
        /* Phi/h, the gap closed in one step (Eq. 18); a penetration is pushed
         * out no faster than the recovery speed. */
        double gap = -g->penetration;
        row->b_n = fmax(gap / h, -settings->recovery_speed);

        /* The block N_cc (+ C) column by column (a unit impulse per row and
         * the velocities it makes), and the step g_c = 1 / (its largest
         * eigenvalue), bounded by Gershgorin's row sums: a projected step of
         * g_c on the block alone is then a contraction (Jacobi takes omega of
         * it for the coupling with the other contacts). */
        double block[ROWS][ROWS] = {{0}};
        nsc_contact local = *row; /* the same rows on a two-body velocity array */
        local.body_i = row->body_i >= 0 ? 0 : -1;
        local.body_j = row->body_j >= 0 ? 1 : -1;
        for (int k = 0; k < ROWS; ++k) {
            double unit[ROWS] = {0};
            unit[k] = 1.0;
            fd_vec3 impulse, angular_i, angular_j;
            contact_impulses(row, unit, &impulse, &angular_i, &angular_j);
            fd_vec3 dv[2] = {fd_v3(0, 0, 0), fd_v3(0, 0, 0)}, dw[2] = {fd_v3(0, 0, 0), fd_v3(0, 0, 0)};
            if (row->body_i >= 0) {
                apply_inverse_mass(&s->bodies[row->body_i], impulse, angular_i, &dv[0], &dw[0]);
            }
            if (row->body_j >= 0) {
                apply_inverse_mass(&s->bodies[row->body_j], fd_v3_neg(impulse), angular_j, &dv[1], &dw[1]);
            }
            double column[ROWS];
            contact_velocity(&local, dv, dw, column);
            for (int r = 0; r < ROWS; ++r) {
                block[r][k] = column[r] + (r == k ? row->compliance[k] : 0.0);
            }
        }
        double bound = 0.0;
        for (int r = 0; r < ROWS; ++r) {
            double sum = 0.0;
            for (int k = 0; k < ROWS; ++k) {
                sum += fabs(block[r][k]);
            }
            bound = fmax(bound, sum);
        }
        row->step = bound > 0.0 ? 1.0 / bound : 0.0;

        /* Warm start: last step's reaction (world vectors), in the new frame. */
        double* x = s->x + (size_t)ROWS * (size_t)c;
        const double* history = set->history + (size_t)c * (size_t)world->history_stride +
                                law->history_offset[FD_MECHANISM_NORMAL];
        if (settings->cold_start || contact->first_step == world->step_count) {
            memset(x, 0, ROWS * sizeof *x);
        } else {
            fd_vec3 force = fd_v3(history[FD_CONE_HISTORY_FORCE], history[FD_CONE_HISTORY_FORCE + 1],
                                  history[FD_CONE_HISTORY_FORCE + 2]);
            fd_vec3 torque = fd_v3(history[FD_CONE_HISTORY_TORQUE], history[FD_CONE_HISTORY_TORQUE + 1],
                                   history[FD_CONE_HISTORY_TORQUE + 2]);
            for (int k = 0; k < 3; ++k) {
                x[k] = h * fd_v3_dot(force, row->frame[k]);
            }
            x[FD_CONE_TU] = h * fd_v3_dot(torque, row->frame[1]) / length;
            x[FD_CONE_TW] = h * fd_v3_dot(torque, row->frame[2]) / length;
            x[FD_CONE_TN] = h * fd_v3_dot(torque, row->frame[0]) / length;
            project_contact(row, x);
        }
    }

    /* Box rows: generalized friction on a translation (Sec. 6.2, seal). */
    int k = 0;
    for (int b = 0; b < n; ++b) {
        const fd_body_mass* mass = &world->masses[b];
        if (!(fd_body_extras(mass)->friction_force > 0.0) || world->colds[b].type != FD_BODY_DYNAMIC) {
            continue;
        }
        nsc_box* box = &s->boxes[k];
        box->body = b;
        box->axis = fd_body_extras(mass)->friction_axis;
        box->limit = fd_body_extras(mass)->friction_force * h;
        fd_vec3 dv, dw;
        apply_inverse_mass(&s->bodies[b], box->axis, fd_v3(0, 0, 0), &dv, &dw);
        double diagonal = fd_v3_dot(box->axis, dv);
        box->step = diagonal > 0.0 ? 1.0 / diagonal : 0.0;
        s->x[ROWS * s->contact_count + k] = 0.0;
        ++k;
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- products */

/* v = v* + M^-1 D x, for all bodies; deterministic (contacts in order). */
static void velocities_from(const fd_world* world, fd_complementarity* s, const double* x)
{
    int n = world->body_count;
    memset(s->impulse, 0, (size_t)n * sizeof *s->impulse);
    memset(s->angular_impulse, 0, (size_t)n * sizeof *s->angular_impulse);
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        fd_vec3 impulse, angular_i, angular_j;
        contact_impulses(row, x + (size_t)ROWS * (size_t)c, &impulse, &angular_i, &angular_j);
        if (row->body_i >= 0) {
            s->impulse[row->body_i] = fd_v3_add(s->impulse[row->body_i], impulse);
            s->angular_impulse[row->body_i] = fd_v3_add(s->angular_impulse[row->body_i], angular_i);
        }
        if (row->body_j >= 0) {
            s->impulse[row->body_j] = fd_v3_sub(s->impulse[row->body_j], impulse);
            s->angular_impulse[row->body_j] = fd_v3_add(s->angular_impulse[row->body_j], angular_j);
        }
    }
    const double* box_x = x + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        const nsc_box* box = &s->boxes[k];
        s->impulse[box->body] = fd_v3_mul_add(s->impulse[box->body], box_x[k], box->axis);
    }
#pragma omp parallel for schedule(static) num_threads(world->def.thread_count) if (world->def.thread_count > 1)
    for (int b = 0; b < n; ++b) {
        fd_vec3 dv, dw;
        apply_inverse_mass(&s->bodies[b], s->impulse[b], s->angular_impulse[b], &dv, &dw);
        s->velocity[b] = fd_v3_add(s->free_velocity[b], dv);
        s->angular[b] = fd_v3_add(s->free_angular[b], dw);
    }
}

/* gradient = N x + r + C x = D^T v(x) + b + C x, from the velocities of x. */
static void gradient_at(const fd_world* world, fd_complementarity* s, const double* x, double* gradient)
{
    velocities_from(world, s, x);
#pragma omp parallel for schedule(static) num_threads(world->def.thread_count) if (world->def.thread_count > 1)
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        double* gc = gradient + (size_t)ROWS * (size_t)c;
        const double* xc = x + (size_t)ROWS * (size_t)c;
        contact_velocity(row, s->velocity, s->angular, gc);
        gc[0] += row->b_n;
        for (int k = 0; k < ROWS; ++k) {
            gc[k] += row->compliance[k] * xc[k];
        }
    }
    double* box_gradient = gradient + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        box_gradient[k] = fd_v3_dot(s->boxes[k].axis, s->velocity[s->boxes[k].body]);
    }
}

/* The residual of x given its gradient (see the head of the file), m/s. */
static double residual_of(const fd_complementarity* s, const double* x, const double* gradient)
{
    double worst = 0.0;
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        const double* xc = x + (size_t)ROWS * (size_t)c;
        const double* gc = gradient + (size_t)ROWS * (size_t)c;
        if (!(row->step > 0.0)) {
            continue;
        }
        double trial[ROWS];
        for (int k = 0; k < ROWS; ++k) {
            trial[k] = xc[k] - row->step * gc[k];
        }
        project_contact(row, trial);
        double sum = 0.0;
        for (int k = 0; k < ROWS; ++k) {
            double d = xc[k] - trial[k];
            sum += d * d;
        }
        worst = fmax(worst, sqrt(sum) / row->step);
    }
    const double* box_x = x + (size_t)ROWS * (size_t)s->contact_count;
    const double* box_g = gradient + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        const nsc_box* box = &s->boxes[k];
        if (!(box->step > 0.0)) {
            continue;
        }
        double trial = box_x[k] - box->step * box_g[k];
        project_box(box, &trial);
        worst = fmax(worst, fabs(box_x[k] - trial) / box->step);
    }
    return worst;
}

static double dot(const double* a, const double* b, int n)
{
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
        sum += a[k] * b[k];
    }
    return sum;
}

/* ---------------------------------------------------------------- solvers */

static void record(fd_complementarity* s, int iteration, double residual)
{
    if (iteration < s->residual_capacity) {
        s->residual_history[iteration] = residual;
    }
}

/* Projected x - omega g_c gradient per block, relaxed by lambda (Eq. 46, K = 0). */
static void jacobi_update(fd_complementarity* s, const fd_complementarity_def* settings, int threads)
{
    double omega = settings->omega, lambda = settings->lambda;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        double* xc = s->x + (size_t)ROWS * (size_t)c;
        const double* gc = s->gradient + (size_t)ROWS * (size_t)c;
        double trial[ROWS];
        for (int k = 0; k < ROWS; ++k) {
            trial[k] = xc[k] - omega * row->step * gc[k];
        }
        project_contact(row, trial);
        for (int k = 0; k < ROWS; ++k) {
            xc[k] = lambda * trial[k] + (1.0 - lambda) * xc[k];
        }
    }
    double* box_x = s->x + (size_t)ROWS * (size_t)s->contact_count;
    const double* box_g = s->gradient + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        double trial = box_x[k] - omega * s->boxes[k].step * box_g[k];
        project_box(&s->boxes[k], &trial);
        box_x[k] = lambda * trial + (1.0 - lambda) * box_x[k];
    }
}

static void solve_jacobi(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings)
{
    int threads = world->def.thread_count;
    double residual = INFINITY;
    int iteration = 0;
    gradient_at(world, s, s->x, s->gradient);
    residual = residual_of(s, s->x, s->gradient);
    while (iteration < settings->max_iterations && residual > settings->tolerance) {
        jacobi_update(s, settings, threads);
        gradient_at(world, s, s->x, s->gradient);
        residual = residual_of(s, s->x, s->gradient);
        record(s, iteration, residual);
        ++iteration;
    }
    s->stats.iterations = iteration;
    s->stats.residual = residual;
}

/* Gauss-Seidel: contacts in order, each from the newest body velocities, its
 * change applied to the bodies at once (Eq. 46 with K the lower triangle). */
static void solve_gauss_seidel(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings)
{
    double omega = settings->omega, lambda = settings->lambda;
    gradient_at(world, s, s->x, s->gradient); /* sets s->velocity from x */
    double residual = residual_of(s, s->x, s->gradient);
    int iteration = 0;
    while (iteration < settings->max_iterations && residual > settings->tolerance) {
        for (int c = 0; c < s->contact_count; ++c) {
            const nsc_contact* row = &s->contacts[c];
            double* xc = s->x + (size_t)ROWS * (size_t)c;
            double velocity[ROWS], trial[ROWS], change[ROWS];
            contact_velocity(row, s->velocity, s->angular, velocity);
            velocity[0] += row->b_n;
            for (int k = 0; k < ROWS; ++k) {
                trial[k] = xc[k] - omega * row->step * (velocity[k] + row->compliance[k] * xc[k]);
            }
            project_contact(row, trial);
            for (int k = 0; k < ROWS; ++k) {
                double next = lambda * trial[k] + (1.0 - lambda) * xc[k];
                change[k] = next - xc[k];
                xc[k] = next;
            }
            fd_vec3 impulse, angular_i, angular_j, dv, dw;
            contact_impulses(row, change, &impulse, &angular_i, &angular_j);
            if (row->body_i >= 0) {
                apply_inverse_mass(&s->bodies[row->body_i], impulse, angular_i, &dv, &dw);
                s->velocity[row->body_i] = fd_v3_add(s->velocity[row->body_i], dv);
                s->angular[row->body_i] = fd_v3_add(s->angular[row->body_i], dw);
            }
            if (row->body_j >= 0) {
                apply_inverse_mass(&s->bodies[row->body_j], fd_v3_neg(impulse), angular_j, &dv, &dw);
                s->velocity[row->body_j] = fd_v3_add(s->velocity[row->body_j], dv);
                s->angular[row->body_j] = fd_v3_add(s->angular[row->body_j], dw);
            }
        }
        double* box_x = s->x + (size_t)ROWS * (size_t)s->contact_count;
        for (int k = 0; k < s->box_count; ++k) {
            const nsc_box* box = &s->boxes[k];
            double velocity = fd_v3_dot(box->axis, s->velocity[box->body]);
            double trial = box_x[k] - omega * box->step * velocity;
            project_box(box, &trial);
            double next = lambda * trial + (1.0 - lambda) * box_x[k];
            fd_vec3 dv, dw;
            apply_inverse_mass(&s->bodies[box->body], fd_v3_scale(next - box_x[k], box->axis), fd_v3(0, 0, 0), &dv,
                               &dw);
            s->velocity[box->body] = fd_v3_add(s->velocity[box->body], dv);
            box_x[k] = next;
        }
        /* The residual from exact velocities (the sweep's are exact too, but
         * recomputing keeps round-off from accumulating over iterations). */
        gradient_at(world, s, s->x, s->gradient);
        residual = residual_of(s, s->x, s->gradient);
        record(s, iteration, residual);
        ++iteration;
    }
    s->stats.iterations = iteration;
    s->stats.residual = residual;
}

/* The product (N + C) p without r: the gradient at p minus the gradient at 0. */
static void apply_operator(const fd_world* world, fd_complementarity* s, const double* p, double* out,
                           const double* gradient_at_zero)
{
    gradient_at(world, s, p, out);
    for (int k = 0; k < s->unknowns; ++k) {
        out[k] -= gradient_at_zero[k];
    }
}

/* Accelerated projected gradient descent (Nesterov) with adaptive step and
 * restart, after Mazhar, Heyn, Negrut & Tasora, ACM TOG 34 (2015) Alg. 2. It
 * minimizes Eq. (42), f(x) = x^T (N + C) x / 2 + r^T x over Y. */
static void solve_apgd(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings)
{
    int count = s->unknowns;
    double* x = s->x;
    double* y = s->y;
    double* previous = s->previous;
    double* best = s->best;
    double* g = s->gradient;
    double* r = s->scratch; /* the gradient at 0: r of Eq. (39); f(x) = x^T (g(x) + r) / 2 */
    /* r = gradient at x = 0 */
    memset(y, 0, (size_t)count * sizeof *y);
    gradient_at(world, s, y, r);
    /* The gradient at x and its residual: x may already solve it (warm start). */
    gradient_at(world, s, x, g);
    double residual = residual_of(s, x, g);
    double best_residual = residual;
    memcpy(best, x, (size_t)count * sizeof *best);
    int iteration = 0;
    if (residual <= settings->tolerance || count == 0) {
        s->stats.iterations = 0;
        s->stats.residual = residual;
        return;
    }
    /* Lipschitz estimate L = |A (x - z)| / |x - z| for a nearby z. */
    double* z = previous;
    for (int k = 0; k < count; ++k) {
        z[k] = x[k] + 1e-3 * (fabs(x[k]) + 1e-12);
    }
    double* az = y; /* scratch */
    for (int k = 0; k < count; ++k) {
        z[k] -= x[k];
    }
    apply_operator(world, s, z, az, r);
    double lipschitz = sqrt(dot(az, az, count) / fmax(dot(z, z, count), 1e-300));
    if (!(lipschitz > 0.0) || !isfinite(lipschitz)) {
        lipschitz = 1.0;
    }
    double t = 1.0 / lipschitz;
    double theta = 1.0;
    memcpy(y, x, (size_t)count * sizeof *y);
    memcpy(previous, x, (size_t)count * sizeof *previous);
    double* trial = s->x; /* x holds the newest iterate */
    double* gy = g;       /* gradient at y */
    /* gradient at y (= x now) already in g */
    double* gx = s->gradient_new;
    double* y_saved = s->saved;
    double* g_previous = s->gradient_previous;
    memcpy(g_previous, gy, (size_t)count * sizeof *g_previous);
    while (iteration < settings->max_iterations) {
        /* f(y) = 1/2 y^T (gy + r) */
        double f_y = 0.5 * dot(y, gy, count) + 0.5 * dot(y, r, count);
        memcpy(y_saved, y, (size_t)count * sizeof *y_saved);
        for (;;) {
            for (int k = 0; k < count; ++k) {
                trial[k] = y_saved[k] - t * gy[k];
            }
            for (int c = 0; c < s->contact_count; ++c) {
                project_contact(&s->contacts[c], trial + (size_t)ROWS * (size_t)c);
            }
            for (int k = 0; k < s->box_count; ++k) {
                project_box(&s->boxes[k], trial + (size_t)ROWS * (size_t)s->contact_count + k);
            }
            gradient_at(world, s, trial, gx);
            double f_x = 0.5 * dot(trial, gx, count) + 0.5 * dot(trial, r, count);
            double bound = f_y;
            double step_sq = 0.0;
            for (int k = 0; k < count; ++k) {
                double d = trial[k] - y_saved[k];
                bound += gy[k] * d;
                step_sq += d * d;
            }
            bound += 0.5 * lipschitz * step_sq;
            if (f_x <= bound + 1e-14 * fabs(bound) || lipschitz > 1e300) {
                break;
            }
            lipschitz *= 2.0;
            t = 1.0 / lipschitz;
        }
        double theta_next = 0.5 * (-theta * theta + theta * sqrt(theta * theta + 4.0));
        double beta = theta * (1.0 - theta) / (theta * theta + theta_next);
        double progress = 0.0;
        for (int k = 0; k < count; ++k) {
            progress += gy[k] * (trial[k] - previous[k]);
        }
        bool restart = progress > 0.0;
        for (int k = 0; k < count; ++k) {
            y[k] = trial[k] + beta * (trial[k] - previous[k]);
        }
        residual = residual_of(s, trial, gx);
        record(s, iteration, residual);
        ++iteration;
        if (residual < best_residual) {
            best_residual = residual;
            memcpy(best, trial, (size_t)count * sizeof *best);
        }
        if (residual <= settings->tolerance) {
            break;
        }
        /* The gradient at y without another product with N: the gradient
         * is affine, and y = (1 + beta) x_(k+1) - beta x_k. */
        if (restart) {
            /* Restart (O'Donoghue & Candes): the momentum points uphill. */
            memcpy(y, trial, (size_t)count * sizeof *y);
            memcpy(gy, gx, (size_t)count * sizeof *gy);
            theta_next = 1.0;
        } else {
            for (int k = 0; k < count; ++k) {
                gy[k] = (1.0 + beta) * gx[k] - beta * g_previous[k];
            }
        }
        memcpy(previous, trial, (size_t)count * sizeof *previous);
        memcpy(g_previous, gx, (size_t)count * sizeof *g_previous);
        theta = theta_next;
        lipschitz *= 0.9;
        t = 1.0 / lipschitz;
    }
    memcpy(s->x, best, (size_t)count * sizeof *best);
    s->stats.iterations = iteration;
    s->stats.residual = best_residual;
}

/* ---------------------------------------------------------------- the step */

fd_complementarity* fd_complementarity_create(void)
{
    fd_complementarity* s = calloc(1, sizeof *s);
    return s;
}

/* Reactions as loads (N, N m) for outputs, history (warm start), energy
 * books and slip states. */
static void store_reactions(fd_world* world, fd_complementarity* s, double tolerance)
{
    double h = world->def.time_step;
    fd_contact_set* set = &world->contacts;
    fd_energy_totals* totals = &world->energy_totals;
    memset(world->stored_energy, 0, sizeof world->stored_energy);
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        fd_contact* contact = &set->contacts[c];
        const fd_contact_law* law = &world->laws[contact->law];
        const double* x = s->x + (size_t)ROWS * (size_t)c;
        fd_vec3 force = fd_v3(0, 0, 0);
        for (int k = 0; k < 3; ++k) {
            force = fd_v3_mul_add(force, x[k] / h, row->frame[k]);
        }
        fd_vec3 rolling = fd_v3_scale(row->length / h, fd_v3_add(fd_v3_scale(x[FD_CONE_TU], row->frame[1]),
                                                                 fd_v3_scale(x[FD_CONE_TW], row->frame[2])));
        fd_vec3 spinning = fd_v3_scale(row->length * x[FD_CONE_TN] / h, row->frame[0]);
        fd_contact_loads loads = {0};
        loads.normal_force = x[0] / h;
        loads.slide_force = fd_v3_add(fd_v3_scale(x[1] / h, row->frame[1]), fd_v3_scale(x[2] / h, row->frame[2]));
        loads.roll_torque_i = rolling;
        loads.roll_torque_j = fd_v3_neg(rolling);
        loads.spin_torque_i = spinning;
        loads.spin_torque_j = fd_v3_neg(spinning);
        loads.force_on_i = force;
        contact->loads = loads;

        double* history = set->history + (size_t)c * (size_t)world->history_stride +
                          law->history_offset[FD_MECHANISM_NORMAL];
        fd_vec3 torque = fd_v3_add(rolling, spinning);
        history[FD_CONE_HISTORY_FORCE] = force.x;
        history[FD_CONE_HISTORY_FORCE + 1] = force.y;
        history[FD_CONE_HISTORY_FORCE + 2] = force.z;
        history[FD_CONE_HISTORY_TORQUE] = torque.x;
        history[FD_CONE_HISTORY_TORQUE + 1] = torque.y;
        history[FD_CONE_HISTORY_TORQUE + 2] = torque.z;

        double* columns = set->columns + (size_t)c * (size_t)world->column_count;
        for (int k = 0; k < world->column_count; ++k) {
            columns[k] = NAN;
        }
        const int* normal_columns = law->column_index[FD_MECHANISM_NORMAL];
        for (int k = 0; k < 3; ++k) {
            columns[normal_columns[k]] = x[k] / h;
        }
        if (law->submodel[FD_MECHANISM_ROLL] != NULL) {
            columns[law->column_index[FD_MECHANISM_ROLL][0]] = row->length * x[FD_CONE_TU] / h;
            columns[law->column_index[FD_MECHANISM_ROLL][1]] = row->length * x[FD_CONE_TW] / h;
        }
        if (law->submodel[FD_MECHANISM_SPIN] != NULL) {
            columns[law->column_index[FD_MECHANISM_SPIN][0]] = row->length * x[FD_CONE_TN] / h;
        }

        /* Energy: the impulses do the work x . D^T (v + v+) / 2, with v the
         * velocity the step starts from: with the external loads' work
         * h f . (v + v+) / 2 this is the kinetic energy change exactly, and
         * gravity's work is booked as the potential energy change
         * -h m g . v+, so a body at rest on the ground books no work at all
         * (with v* in place of v it would book m g^2 h^2 / 2 per step as an
         * impact). What the impulses take is dissipated (the
         * normal one by an inelastic impact, booked as dashpot; friction as
         * slip), what they give is created (the Phi/h push-out, the
         * relaxation's dilatancy, Eq. 28). Slip states: the relative motion
         * of the mechanism after the step exceeds the solver tolerance. */
        double before[ROWS], after[ROWS];
        contact_velocity(row, s->impulse, s->angular_impulse, before); /* velocities at the start of the step */
        contact_velocity(row, s->velocity, s->angular, after);
        double work[FD_MECHANISM_COUNT] = {0};
        static const int mechanism_of_row[ROWS] = {FD_MECHANISM_NORMAL, FD_MECHANISM_SLIDE, FD_MECHANISM_SLIDE,
                                                   FD_MECHANISM_ROLL,   FD_MECHANISM_ROLL,  FD_MECHANISM_SPIN};
        for (int k = 0; k < ROWS; ++k) {
            work[mechanism_of_row[k]] += 0.5 * x[k] * (before[k] + after[k]);
        }
        unsigned slip_flags = 0;
        if (hypot(after[1], after[2]) > tolerance && law->submodel[FD_MECHANISM_SLIDE] != NULL && x[0] > 0.0) {
            slip_flags |= 1u << FD_MECHANISM_SLIDE;
        }
        if (hypot(after[3], after[4]) > tolerance && law->submodel[FD_MECHANISM_ROLL] != NULL && x[0] > 0.0) {
            slip_flags |= 1u << FD_MECHANISM_ROLL;
        }
        if (fabs(after[5]) > tolerance && law->submodel[FD_MECHANISM_SPIN] != NULL && x[0] > 0.0) {
            slip_flags |= 1u << FD_MECHANISM_SPIN;
        }
        contact->slip_flags = slip_flags;
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            double taken = -work[m];
            double* line = m == FD_MECHANISM_NORMAL ? &contact->energy[m].dashpot : &contact->energy[m].slip;
            double* total = m == FD_MECHANISM_NORMAL ? &totals->dashpot[m] : &totals->slip[m];
            if (taken >= 0.0) {
                *line += taken;
                *total += taken;
            } else {
                contact->energy[m].created -= taken;
                totals->created[m] -= taken;
            }
            contact->energy[m].stored = 0.0;
        }
    }
    /* Seal friction does work on the bodies like a constraint. */
    const double* box_x = s->x + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        const nsc_box* box = &s->boxes[k];
        double before = fd_v3_dot(box->axis, s->impulse[box->body]);
        double after = fd_v3_dot(box->axis, s->velocity[box->body]);
        totals->constraint_work += 0.5 * box_x[k] * (before + after);
    }
}

fd_status fd_world_step_complementarity(fd_world* world)
{
    fd_complementarity* s = world->complementarity;
    fd_complementarity_def settings = settings_of(world);
    double h = world->def.time_step;
    int n = world->body_count;

    /* Contacts and loads at the state the step starts from (q^(l), Eq. 18). */
    fd_world_apply_external_loads(world);
    fd_status status = fd_world_find_contacts(world);
    if (status != FD_OK) {
        return status;
    }
    double start = fd_wall_seconds();
    status = build_problem(world, s, &settings);
    if (status != FD_OK) {
        return status;
    }
    if (s->residual_capacity < settings.max_iterations) {
        double* grown = realloc(s->residual_history, (size_t)settings.max_iterations * sizeof *grown);
        if (grown == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the solver's residual history");
        }
        s->residual_history = grown;
        s->residual_capacity = settings.max_iterations;
    }
    switch (settings.solver) {
    case FD_SOLVER_JACOBI:
        solve_jacobi(world, s, &settings);
        break;
    case FD_SOLVER_GAUSS_SEIDEL:
        solve_gauss_seidel(world, s, &settings);
        break;
    case FD_SOLVER_APGD:
    default:
        solve_apgd(world, s, &settings);
        break;
    }
    s->stats.contacts = s->contact_count;
    world->profile.contact_models += fd_wall_seconds() - start;
    world->profile.contact_steps += s->contact_count;
    world->profile.solver_iterations += s->stats.iterations;

    /* v+ (Eq. 44), books, then positions on the rotation group with v+. */
    velocities_from(world, s, s->x);
    for (int b = 0; b < n; ++b) { /* the start velocities, for the energy books */
        s->impulse[b] = world->velocity[b];
        s->angular_impulse[b] = world->angular_velocity[b];
    }
    store_reactions(world, s, settings.tolerance);
    start = fd_wall_seconds();
    for (int b = 0; b < n; ++b) {
        if (world->colds[b].type != FD_BODY_DYNAMIC) {
            continue;
        }
        fd_body_state state = fd_world_state(world, b);
        state.velocity = s->velocity[b];
        state.angular_velocity = s->angular[b];
        world->lock_work[b] += fd_body_apply_locks(&state, &world->masses[b]);
        world->lock_work[b] += fd_body_drift(&state, &world->masses[b], h);
        fd_world_put_state(world, b, &state);
    }
    world->profile.integrate += fd_wall_seconds() - start;
    /* Events of the contacts found at the start of the step, stamped with
     * the step's end like the penalty stepper's. */
    status = fd_world_raise_events(world);
    world->time = (double)(world->step_count + 1) * h;
    world->step_count++;
    world->profile.steps++;
    for (int k = 0; k < world->event_count; ++k) {
        world->events[k].step = world->step_count;
        world->events[k].time = world->time;
    }
    return status;
}

fd_status fd_world_set_complementarity(fd_world* world, const fd_complementarity_def* def)
{
    if (world->def.stepper != FD_STEPPER_COMPLEMENTARITY) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "solver settings: the world uses the penalty stepper");
    }
    if ((def->solver != FD_SOLVER_APGD && def->solver != FD_SOLVER_JACOBI && def->solver != FD_SOLVER_GAUSS_SEIDEL) ||
        def->max_iterations < 0 || !(def->tolerance >= 0.0) || !(def->omega >= 0.0) || !(def->lambda >= 0.0) ||
        def->lambda > 1.0 || !(def->recovery_speed >= 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "solver settings out of range (see fd_complementarity_def)");
    }
    world->def.complementarity = *def;
    return FD_OK;
}

void fd_complementarity_set_stats(fd_world* world, fd_solver_stats stats)
{
    if (world->complementarity != NULL) {
        world->complementarity->stats = stats;
    }
}

fd_solver_stats fd_world_solver_stats(const fd_world* world)
{
    return world->complementarity != NULL ? world->complementarity->stats : (fd_solver_stats){0, 0.0, 0};
}

int fd_world_solver_residuals(const fd_world* world, const double** residuals)
{
    const fd_complementarity* s = world->complementarity;
    if (s == NULL) {
        *residuals = NULL;
        return 0;
    }
    *residuals = s->residual_history;
    return s->stats.iterations < s->residual_capacity ? s->stats.iterations : s->residual_capacity;
}
