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
 * 1 / (Gershgorin's bound on the largest eigenvalue of the contact's block).
 *
 * Must not touch: the engine, the penalty stepper, files, ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "complementarity/complementarity_internal.h"
#include "core/error.h"
#include "core/grow.h"

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
    if (!fd_resize(array, (size_t)next, size)) {
        return false;
    }
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
    FD_FREE_ALL(s->contacts, s->boxes, s->x, s->y, s->previous, s->best, s->gradient, s->scratch, s->gradient_new,
                s->saved, s->gradient_previous, s->bodies, s->free_velocity, s->free_angular, s->velocity, s->angular,
                s->impulse, s->angular_impulse, s->residual_history, s);
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

static fd_status step(fd_world* world)
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
        if (!fd_resize((void**)&s->residual_history, (size_t)settings.max_iterations, sizeof *s->residual_history)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the solver's residual history");
        }
        s->residual_capacity = settings.max_iterations;
    }
    switch (settings.solver) {
    case FD_SOLVER_JACOBI:
        fd_ccp_solve_jacobi(world, s, &settings);
        break;
    case FD_SOLVER_GAUSS_SEIDEL:
        fd_ccp_solve_gauss_seidel(world, s, &settings);
        break;
    case FD_SOLVER_APGD:
    default:
        fd_ccp_solve_apgd(world, s, &settings);
        break;
    }
    s->stats.contacts = s->contact_count;
    world->profile.contact_models += fd_wall_seconds() - start;
    world->profile.contact_steps += s->contact_count;
    world->profile.solver_iterations += s->stats.iterations;

    /* v+ (Eq. 44), books, then positions on the rotation group with v+. */
    fd_ccp_velocities_from(world, s, s->x);
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

/* One step with its rollback: the state copied first, and put back when
 * the step fails (a non-finite state), so that the
 * caller can still write out the last good step. */
fd_status fd_complementarity_step(fd_world* world)
{
    /* Copies of the state for rollback. */
    if (world->body_capacity == 0 && fd_world_reserve_bodies(world, 1) != FD_OK) {
        /* No bodies yet (an inlet may bring them), so no arrays: the copies
         * below must not hand memcpy null pointers, even for zero bytes. */
        return FD_ERR_OUT_OF_MEMORY;
    }
    fd_world_copy_states(world, false);
    world->state_before_kept = true;
    fd_step_undo undo = fd_world_begin_step(world);
    double dt = world->def.time_step;
    fd_status status = step(world);
    if (status == FD_OK) {
        status = fd_world_check_finite(world);
    }
    if (status == FD_OK) {
        fd_world_book_step_work(world, dt);
    }
    if (status != FD_OK) {
        /* Roll back to the last good step: the caller can still write it out. */
        fd_world_copy_states(world, true);
        if (status == FD_ERR_NON_FINITE) {
            fd_contact_set swap = world->contacts;
            world->contacts = world->previous;
            world->previous = swap;
        }
        fd_world_undo_step(world, &undo);
        return status;
    }
    return FD_OK;
}

fd_status fd_world_set_complementarity(fd_world* world, const fd_complementarity_def* def)
{
    fd_world_note_change(world);
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

