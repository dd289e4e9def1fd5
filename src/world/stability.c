/* Stable steps: the critical time step the world estimates when it is
 * prepared, and the checks that stop a step that went wrong (a non-finite
 * value, a blow-up), naming the body and the contact.
 *
 * The estimate (docs/models/critical-step.md). For every contact law in use
 * we take the pairs of bodies that limit it: the lightest dynamic body of
 * each of its two materials (a body or an inlet's smallest sphere) against
 * the lightest of the other material (the next lightest of its own, for a
 * law of one material) and against a static body of it, and
 * evaluate fd_contact_law_critical_step with the coordination
 * Z = min(3, the bodies it could touch): 3 is what the six contacts of a
 * body in a packing add up to in its stiffest collective motion (every
 * sphere turning alike). The world's estimate is the smallest; prepare warns,
 * naming the limiting spring or dashpot and the bodies, when the step
 * exceeds it.
 *
 * Blow-up. A body that moves more than half its radius into or out of a
 * contact in one step (or turns its surface by as much, |omega| dt > 1/2,
 * while it touches something) has springs that hold energy nothing put in;
 * one that moves as far in free flight, or along the plane it slides on,
 * meets nothing (the sliding plates of the C-SDS paper do). The test
 * costs nothing in the common case: the stepper already keeps the largest
 * displacement since the neighbour list was built, and a body that moved
 * f r in one step has moved f r / 2 from the list's reference at the start
 * or at the end of it (triangle inequality), so only when that largest
 * displacement passes f r_min / 2 (or the widest turn passes f) does the
 * scan below look at each body. With the default skin (r_min / 5) a list is
 * rebuilt long before that. With the energy ledger on, every 64 steps the
 * kinetic energy is compared with the energy that entered.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "body/body.h"
#include "core/error.h"
#include "world/world_store.h"

/* Half a radius per step: a blow-up. */
static const double BLOW_UP_FRACTION = 0.5;
/* The coordination of the estimate in a packing (docs/models/critical-step.md):
 * its stiffest collective motion, every sphere turning alike, loads a body
 * with 0.48 z times one pair's rate, and z is about 6. */
static const double PACKING_COORDINATION = 3.0;

/* ---------------------------------------------------------------- the critical step */

/* The smallest normal curvature of a shape (1/m). */
static double smallest_curvature(const fd_shape* shape)
{
    switch (shape->type) {
    case FD_SHAPE_SPHERE:
        return 1.0 / shape->radius;
    case FD_SHAPE_ELLIPSOID: {
        /* At the tip of the shortest axis c, along the longest a: c / a^2. */
        fd_vec3 s = shape->semi_axes;
        double longest = fmax(s.x, fmax(s.y, s.z)), shortest = fmin(s.x, fmin(s.y, s.z));
        return shortest / (longest * longest);
    }
    default:
        return 0.0;
    }
}

double fd_shape_inner_radius(const fd_shape* shape)
{
    switch (shape->type) {
    case FD_SHAPE_SPHERE:
        return shape->radius;
    case FD_SHAPE_ELLIPSOID:
        return fmin(shape->semi_axes.x, fmin(shape->semi_axes.y, shape->semi_axes.z));
    default:
        return INFINITY;
    }
}

/* The farthest the surface reaches from the axis u (body frame, unit)
 * through the centre, squared: the semi-major axis of the ellipse the shape
 * projects onto the plane normal to u. */
static double reach_squared(const fd_shape* shape, fd_vec3 u)
{
    if (shape->type == FD_SHAPE_SPHERE) {
        return shape->radius * shape->radius;
    }
    if (shape->type != FD_SHAPE_ELLIPSOID) {
        return 0.0;
    }
    /* v, w: an orthonormal pair normal to u; M = diag(a^2, b^2, c^2) in it. */
    fd_vec3 helper = fabs(u.x) < 0.9 ? fd_v3(1, 0, 0) : fd_v3(0, 1, 0);
    fd_vec3 v = fd_v3_normalize(fd_v3_cross(u, helper)), w = fd_v3_cross(u, v);
    fd_vec3 s = shape->semi_axes;
    fd_vec3 squares = {s.x * s.x, s.y * s.y, s.z * s.z};
    double vv = squares.x * v.x * v.x + squares.y * v.y * v.y + squares.z * v.z * v.z;
    double ww = squares.x * w.x * w.x + squares.y * w.y * w.y + squares.z * w.z * w.z;
    double vw = squares.x * v.x * w.x + squares.y * v.y * w.y + squares.z * v.z * w.z;
    double half = 0.5 * (vv + ww), spread = 0.5 * (vv - ww);
    return half + sqrt(spread * spread + vw * vw);
}

static fd_step_body step_body_of(const fd_world* world, int b)
{
    const fd_body_cold* cold = &world->colds[b];
    const fd_body_mass* mass = &world->masses[b];
    fd_step_body s = {0};
    s.curvature = smallest_curvature(&cold->shape);
    s.arm = cold->shape.type == FD_SHAPE_PLANE ? 0.0 : cold->shape.bounding_radius;
    if (cold->type != FD_BODY_DYNAMIC) {
        return s;
    }
    const unsigned all = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    s.mass = cold->mass;
    s.inertia = fmin(mass->inertia.x, fmin(mass->inertia.y, mass->inertia.z));
    s.translation_mobility = mass->lock_translation == all ? 0.0 : 1.0 / s.mass;
    if (mass->lock_rotation == all || cold->shape.type == FD_SHAPE_PLANE) {
        return s;
    }
    /* The axes it turns about: its principal axes, or the free axes of its
     * lock frame (world-fixed), taken in the body frame as it is now. */
    const fd_body_extra* extra = fd_body_extras(mass);
    for (int k = 0; k < 3; ++k) {
        if (mass->lock_rotation & (1u << k)) {
            continue;
        }
        fd_vec3 axis = fd_v3(k == 0, k == 1, k == 2);
        if (mass->lock_rotation != 0) {
            axis = fd_quat_rotate_inverse(world->orientation[b], fd_quat_rotate(extra->lock_frame, axis));
        }
        double inertia = mass->inertia.x * axis.x * axis.x + mass->inertia.y * axis.y * axis.y +
                         mass->inertia.z * axis.z * axis.z;
        s.rotation_mobility = fmax(s.rotation_mobility, 1.0 / inertia);
        s.lever_mobility = fmax(s.lever_mobility, reach_squared(&cold->shape, axis) / inertia);
    }
    return s;
}

/* The bodies of one material that can limit a law. */
typedef struct material_extremes {
    int lightest;                 /* body index, -1 none */
    int second;                   /* the next lightest body, -1 none */
    int lightest_inlet;           /* inlet index whose smallest sphere is lighter still, -1 none */
    double lightest_mass;
    int static_body;              /* one static body of the material, -1 none */
    int64_t dynamic_count;        /* bodies and inlet spheres to come */
} material_extremes;

typedef struct candidate {
    fd_step_body body;
    char label[160];
} candidate;

static bool dynamic_candidate(const fd_world* world, const material_extremes* e, candidate* out)
{
    char text[140];
    if (e->lightest_inlet >= 0) {
        const fd_inlet* inlet = &world->inlets[e->lightest_inlet];
        double r = inlet->radius_min, m = e->lightest_mass;
        out->body = (fd_step_body){m, 0.4 * m * r * r, 1.0 / m, 1.0 / (0.4 * m * r * r), 2.5 / m, r, 1.0 / r};
        snprintf(out->label, sizeof out->label, "a sphere of inlet '%s' (r = %g m)", inlet->name, r);
        return true;
    }
    if (e->lightest < 0) {
        return false;
    }
    out->body = step_body_of(world, e->lightest);
    snprintf(out->label, sizeof out->label, "%s", fd_world_body_label(world, e->lightest, text, sizeof text));
    return true;
}

static bool static_candidate(const fd_world* world, const material_extremes* e, candidate* out)
{
    char text[140];
    if (e->static_body < 0) {
        return false;
    }
    out->body = step_body_of(world, e->static_body);
    snprintf(out->label, sizeof out->label, "%s", fd_world_body_label(world, e->static_body, text, sizeof text));
    return true;
}

typedef struct world_limit {
    fd_critical_step step;
    candidate body, other;
} world_limit;

static void consider(const fd_world* world, const fd_contact_law* law, const candidate* a, const candidate* b,
                     double coordination, world_limit* limit)
{
    fd_critical_step step = fd_contact_law_critical_step(law, &a->body, &b->body, coordination);
    if (step.time_step < limit->step.time_step) {
        limit->step = step;
        /* Name the lighter dynamic body first: the one the step is about. */
        bool a_first = a->body.mass > 0.0 && (b->body.mass == 0.0 || a->body.mass <= b->body.mass);
        limit->body = a_first ? *a : *b;
        limit->other = a_first ? *b : *a;
    }
}

fd_status fd_world_estimate_critical_step(fd_world* world)
{
    int materials = world->material_count;
    material_extremes* extremes = malloc((size_t)(materials > 0 ? materials : 1) * sizeof *extremes);
    if (extremes == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int m = 0; m < materials; ++m) {
        extremes[m] = (material_extremes){-1, -1, -1, INFINITY, -1, 0};
    }
    int64_t dynamic_total = 0, static_total = 0;
    double smallest_inner = INFINITY;
    for (int b = 0; b < world->body_count; ++b) {
        const fd_body_cold* cold = &world->colds[b];
        material_extremes* e = &extremes[cold->material];
        if (world->is_removed[b]) {
            continue; /* a removed body's slot (src/engine/removal.c) */
        }
        if (cold->type != FD_BODY_DYNAMIC) {
            static_total++;
            e->static_body = e->static_body < 0 ? b : e->static_body;
            continue;
        }
        dynamic_total++;
        e->dynamic_count++;
        smallest_inner = fmin(smallest_inner, fd_shape_inner_radius(&cold->shape));
        if (cold->mass < e->lightest_mass) {
            e->second = e->lightest;
            e->lightest_mass = cold->mass;
            e->lightest = b;
        } else if (e->second < 0 || cold->mass < world->colds[e->second].mass) {
            e->second = b;
        }
    }
    for (int i = 0; i < world->inlet_count; ++i) {
        const fd_inlet* inlet = &world->inlets[i];
        int64_t remaining = inlet->def.count - inlet->inserted;
        if (remaining <= 0) {
            continue;
        }
        material_extremes* e = &extremes[inlet->def.material.index1 - 1];
        double r = inlet->radius_min;
        double mass = world->materials[inlet->def.material.index1 - 1].density * 4.0 / 3.0 * FD_PI * r * r * r;
        dynamic_total += remaining;
        e->dynamic_count += remaining;
        smallest_inner = fmin(smallest_inner, r);
        if (mass < e->lightest_mass) {
            e->lightest_mass = mass;
            e->lightest_inlet = i;
        }
    }
    world->blow_up_radius = smallest_inner;

    /* A body touches at most the others; in a packing about Z at once. */
    double partners = (double)(dynamic_total - 1 + static_total);
    double coordination = fmax(1.0, fmin(PACKING_COORDINATION, partners));
    world_limit limit = {.step = {INFINITY, 0.0, 0.0, coordination, "none", 0.0, ""}};
    for (int a = 0; a < materials; ++a) {
        for (int b = a; b < materials; ++b) {
            int law = world->law_table[a * materials + b];
            if (law < 0 || fd_law_never_touches(&world->laws[law])) {
                continue; /* the pair cannot touch (prepare checked), or never does */
            }
            candidate dynamic_a, dynamic_b, static_a, static_b;
            bool has_a = dynamic_candidate(world, &extremes[a], &dynamic_a);
            bool has_b = dynamic_candidate(world, &extremes[b], &dynamic_b);
            if (a == b && extremes[a].lightest_inlet < 0 && extremes[a].second >= 0) {
                /* Two bodies of one material: the lightest and the next. */
                material_extremes next = extremes[a];
                next.lightest = next.second;
                has_b = dynamic_candidate(world, &next, &dynamic_b);
            }
            bool fixed_a = static_candidate(world, &extremes[a], &static_a);
            bool fixed_b = static_candidate(world, &extremes[b], &static_b);
            const fd_contact_law* l = &world->laws[law];
            /* Two of the lightest of one material: at least two dynamic bodies. */
            if (has_a && has_b && (a != b || extremes[a].dynamic_count >= 2)) {
                consider(world, l, &dynamic_a, &dynamic_b, coordination, &limit);
            }
            if (has_a && fixed_b) {
                consider(world, l, &dynamic_a, &static_b, coordination, &limit);
            }
            if (has_b && fixed_a) {
                consider(world, l, &dynamic_b, &static_a, coordination, &limit);
            }
        }
    }
    free(extremes);

    world->critical_time_step = limit.step.time_step;
    world->critical_step_limit[0] = '\0';
    if (!isfinite(limit.step.time_step)) {
        return FD_OK;
    }
    if (limit.step.coordination == 1.0 && limit.step.rate_squared == 0.0 && limit.step.damping_rate == 0.0) {
        /* The C-SDS spring update: no body in it. */
        snprintf(world->critical_step_limit, sizeof world->critical_step_limit, "%s = %.3g %s, law of %s and %s",
                 limit.step.limiting, limit.step.coefficient, limit.step.unit, limit.body.label, limit.other.label);
    } else {
        snprintf(world->critical_step_limit, sizeof world->critical_step_limit,
                 "%s = %.3g %s on %s (m = %.3g kg) against %s, %g contacts each", limit.step.limiting,
                 limit.step.coefficient, limit.step.unit, limit.body.label, limit.body.body.mass, limit.other.label,
                 limit.step.coordination);
    }
    if (world->def.stepper == FD_STEPPER_PENALTY && world->def.time_step > world->critical_time_step) {
        char text[1024];
        snprintf(text, sizeof text,
                 "time step %g s is %.3g x the critical step %.3g s (%s): above it the explicit springs and "
                 "dashpots may be unstable, making energy from nowhere or blowing up (the estimate errs low, by "
                 "1.5 to 1.7 in the packings checked: docs/models/critical-step.md)",
                 world->def.time_step, world->def.time_step / world->critical_time_step, world->critical_time_step,
                 world->critical_step_limit);
        fd_world_add_warning(world, text);
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- naming a contact */

/* How deep body b overlaps body j at the positions x (m; negative: apart),
 * from the bounding spheres, or the distance to a plane. */
static double overlap_at(const fd_world* world, const fd_vec3* x, int b, int j)
{
    double reach = 4.0 * world->def.contact_margin + 1e-300; /* farther is "apart" (-INFINITY) */
    if (world->is_wall[j]) {
        return -fd_world_wall_gap(world, x, j, x[b], world->bounding_radii[b], reach);
    }
    if (world->is_wall[b]) {
        return -fd_world_wall_gap(world, x, b, x[j], world->bounding_radii[j], reach);
    }
    fd_vec3 image = fd_v3_add(x[j], fd_periodic_offset(&world->periodic, x[b], x[j]));
    return world->bounding_radii[b] + world->bounding_radii[j] - fd_v3_length(fd_v3_sub(image, x[b]));
}

/* The positions before the step: the saved buffers where the stepper kept
 * them there (world->state_before_kept: the penalty stepper's careful
 * steps, the complementarity stepper's copies); else, after a step made in
 * place, x - h v, into *made (the caller frees it): the drift x + h v to the
 * round-off for every integrator (velocity Verlet's v is the half-kicked one
 * until its second kick, after which the estimate is off by h^2 a / 2, for
 * messages only). NULL when out of memory. */
static const fd_vec3* positions_before(const fd_world* world, fd_vec3** made)
{
    *made = NULL;
    if (world->state_before_kept) {
        return world->saved_position;
    }
    *made = malloc((size_t)(world->body_count > 0 ? world->body_count : 1) * sizeof **made);
    if (*made == NULL) {
        return NULL;
    }
    double h = world->def.time_step;
    for (int b = 0; b < world->body_count; ++b) {
        (*made)[b] = fd_v3_mul_add(world->position[b], -h, world->velocity[b]);
    }
    return *made;
}

const char* fd_world_state_left(const fd_world* world)
{
    return world->state_before_kept ? "state kept at the last good step"
                                    : "the bodies were stepped in place, no copy of the last good step is kept";
}

/* Body b's contact over the step from `before` to position: among
 * the bodies it touches (within the contact margin) before or after, the
 * one whose overlap changed most; -1 when it touches none. O(N): for the
 * rare body that moved far, and for messages. */
typedef struct step_contact {
    int partner;                  /* -1: none; STEP_CONTACT_ELSEWHERE: on another rank */
    double before, after;         /* overlaps, m */
} step_contact;
enum { STEP_CONTACT_ELSEWHERE = -2 };

static step_contact contact_over_step(const fd_world* world, const fd_vec3* before_step, int b)
{
    step_contact best = {-1, 0.0, 0.0};
    double margin = world->def.contact_margin, largest = -1.0;
    for (int j = 0; j < world->body_count; ++j) {
        if (j == b || (world->is_wall[j] && world->is_wall[b]) || world->is_removed[j]) {
            continue;
        }
        double before = overlap_at(world, before_step, b, j);
        double after = overlap_at(world, world->position, b, j);
        if (fmax(before, after) >= -margin && fabs(after - before) > largest) {
            largest = fabs(after - before);
            best = (step_contact){j, before, after};
        }
    }
    return best;
}

static void describe_contact(const fd_world* world, step_contact contact, char* text, size_t size)
{
    if (contact.partner == STEP_CONTACT_ELSEWHERE) {
        snprintf(text, size, "its contacts on the rank that owns it");
        return;
    }
    if (contact.partner < 0) {
        snprintf(text, size, "touching nothing");
        return;
    }
    char label[300];
    snprintf(text, size, "in contact with %s (overlap %.3g m before the step, %.3g m after)",
             fd_world_body_label(world, contact.partner, label, sizeof label), contact.before, contact.after);
}

/* ---------------------------------------------------------------- checks */

/* A body this world steps: not one another rank holds (src/parallel: its
 * buffers here are never written, so their values mean nothing). */
static bool stepped_here(const fd_world* world, int b)
{
    return world->colds[b].type == FD_BODY_DYNAMIC && !(world->motion[b].flags & FD_MOTION_DORMANT);
}

fd_status fd_world_check_finite(fd_world* world)
{
    char label[300], contact[400];
    /* A body whose own state is not finite: it ran off (a tiny mass, an
     * infinite acceleration). Static bodies never change. */
    for (int b = 0; b < world->body_count; ++b) {
        if (stepped_here(world, b) &&
            (!fd_v3_is_finite(world->position[b]) || !fd_quat_is_finite(world->orientation[b]) ||
             !fd_v3_is_finite(world->velocity[b]) || !fd_v3_is_finite(world->angular_velocity[b]))) {
            return fd_fail(FD_ERR_NON_FINITE, "non-finite state of body %s at step %lld, t = %.9g s (%s)",
                           fd_world_body_label(world, b, label, sizeof label), (long long)world->step_count,
                           world->time, fd_world_state_left(world));
        }
    }
    /* A non-finite load: a contact puts it on both its bodies (and a static
     * body only receives it), so the body to name is the dynamic one whose
     * numbers overflowed, and overflow comes from products with the mass
     * (m g, the dashpots' sqrt(m k), m v^2): the heaviest of them. */
    int culprit = -1;
    for (int b = 0; b < world->body_count; ++b) {
        if (stepped_here(world, b) &&
            (!fd_v3_is_finite(world->forces[b]) || !fd_v3_is_finite(world->torques[b])) &&
            (culprit < 0 || world->colds[b].mass > world->colds[culprit].mass)) {
            culprit = b;
        }
    }
    if (culprit >= 0) {
        fd_vec3* made;
        const fd_vec3* before = positions_before(world, &made);
        /* (out of memory: the positions after the step name a contact too) */
        describe_contact(world, contact_over_step(world, before != NULL ? before : world->position, culprit), contact,
                         sizeof contact);
        free(made);
        return fd_fail(FD_ERR_NON_FINITE,
                       "non-finite force or torque on body %s (m = %g kg, %s) at step %lld, t = %.9g s: a product "
                       "of its mass or inertia with the law's constants, or its load, is out of the range of a "
                       "double (%s)",
                       fd_world_body_label(world, culprit, label, sizeof label), world->colds[culprit].mass, contact,
                       (long long)world->step_count, world->time, fd_world_state_left(world));
    }
    for (int c = 0; c < world->contacts.count; ++c) {
        const fd_contact* record = &world->contacts.contacts[c];
        if (!isfinite(record->loads.normal_force) || !fd_v3_is_finite(record->loads.force_on_i)) {
            char a[300], b[300];
            return fd_fail(FD_ERR_NON_FINITE, "non-finite load in contact %llu between bodies %s and %s at step %lld, "
                           "t = %.9g s",
                           (unsigned long long)record->id, fd_world_body_label(world, record->body_i, a, sizeof a),
                           fd_world_body_label(world, record->body_j, b, sizeof b), (long long)world->step_count,
                           world->time);
        }
    }
    return FD_OK;
}

bool fd_world_blow_up_suspected(const fd_world* world, double largest_step_squared, double widest_turn_squared)
{
    double trigger = 0.5 * BLOW_UP_FRACTION * world->blow_up_radius;
    return largest_step_squared > trigger * trigger ||
           widest_turn_squared > BLOW_UP_FRACTION * BLOW_UP_FRACTION;
}

/* The step's error for body b: what it did, its contact, the step. */
static fd_status fail_blow_up(const fd_world* world, int b, const char* what, step_contact contact, const char* state)
{
    char label[300], touching[400];
    describe_contact(world, contact, touching, sizeof touching);
    return fd_fail(FD_ERR_UNSTABLE,
                   "blow-up at step %lld, t = %.9g s: body %s %s, %s; the time step %g s is %.3g x the critical step "
                   "%.3g s (%s). Lower time.step (docs/models/critical-step.md); %s",
                   (long long)world->step_count, world->time, fd_world_body_label(world, b, label, sizeof label), what,
                   touching, world->def.time_step, world->def.time_step / world->critical_time_step,
                   world->critical_time_step, world->critical_step_limit[0] ? world->critical_step_limit : "no spring",
                   state);
}

fd_status fd_world_check_blow_up(const fd_world* world)
{
    fd_vec3* made;
    const fd_vec3* positions = positions_before(world, &made);
    if (positions == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the blow-up test of step %lld",
                       (long long)world->step_count);
    }
    double dt = world->def.time_step;
    int worst = -1;
    double worst_ratio = BLOW_UP_FRACTION, moved_worst = 0.0, turned_worst = 0.0;
    step_contact worst_contact = {-1, 0.0, 0.0};
    for (int b = 0; b < world->body_count; ++b) {
        if (!stepped_here(world, b) || world->is_wall[b]) {
            continue;
        }
        double radius = fd_shape_inner_radius(&world->colds[b].shape);
        fd_vec3 before = positions[b];
        fd_vec3 after = fd_v3_add(world->position[b], fd_periodic_offset(&world->periodic, before, world->position[b]));
        double moved = fd_v3_length(fd_v3_sub(after, before));
        double turned = fd_v3_length(world->angular_velocity[b]) * dt;
        if (!(moved > BLOW_UP_FRACTION * radius) && !(turned > BLOW_UP_FRACTION)) {
            continue;
        }
        /* Far, but along what it touches (a plate sliding on its plane) or
         * in free flight, it meets nothing deep: not a blow-up. */
        step_contact contact = contact_over_step(world, positions, b);
        if (contact.partner < 0) {
            continue;
        }
        double ratio = fmax(fabs(contact.after - contact.before) / radius, turned);
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            worst = b;
            moved_worst = moved;
            turned_worst = turned;
            worst_contact = contact;
        }
    }
    free(made);
    if (worst < 0) {
        return FD_OK;
    }
    char what[400];
    double radius = fd_shape_inner_radius(&world->colds[worst].shape);
    snprintf(what, sizeof what,
             "moved %.3g m in one step (%.3g of its radius %.3g m, %.3g m/s) and turned %.3g rad, changing the "
             "overlap of its contact by %.3g of its radius (more than %g of the radius, or %g rad, is a blow-up)",
             moved_worst, moved_worst / radius, radius, moved_worst / dt, turned_worst,
             fabs(worst_contact.after - worst_contact.before) / radius, BLOW_UP_FRACTION, BLOW_UP_FRACTION);
    return fail_blow_up(world, worst, what, worst_contact, fd_world_state_left(world));
}

bool fd_world_energy_gain_checked(const fd_world* world)
{
    for (int a = 0; a < 3; ++a) {
        if (world->periodic.axis[a] && fd_v3_component(world->def.gravity, a) != 0.0) {
            return false; /* a chute: the gravitational energy jumps when a body wraps, nothing to compare with */
        }
    }
    return true;
}

fd_energy_gain_parts fd_world_energy_gain_parts(const fd_world* world, const uint8_t* roles, int mine)
{
    /* The sums of fd_world_get_energy, in its order, and the body that
     * holds most of the kinetic energy. */
    fd_energy_gain_parts parts = {.fastest = -1};
    for (int b = 0; b < world->body_count; ++b) {
        if (world->colds[b].type != FD_BODY_DYNAMIC || (roles != NULL && roles[b] != mine)) {
            continue;
        }
        fd_body_state state = fd_world_state(world, b);
        double m = world->colds[b].mass;
        double translational = 0.5 * m * fd_v3_length_squared(state.velocity);
        double rotational = fd_body_kinetic_rotational(&state, &world->masses[b]);
        parts.kinetic_translational += translational;
        parts.kinetic_rotational += rotational;
        parts.gravitational -= m * fd_v3_dot(world->def.gravity, state.position);
        parts.mass += m;
        if (translational + rotational > parts.largest) {
            parts.largest = translational + rotational;
            parts.fastest = b;
        }
    }
    return parts;
}

fd_status fd_world_judge_energy_gain(const fd_world* world, const fd_energy_gain_parts* parts, bool whole)
{
    /* What entered: the initial kinetic and stored energy plus what gravity,
     * the loads, the locks, the inlets and the models have given since. */
    double entered = fd_world_entered_energy(world, parts->gravitational);
    double kinetic = parts->kinetic_translational + parts->kinetic_rotational;
    /* A floor for a world at rest (nothing entered): every body moving a
     * hundredth of the blow-up radius per step. */
    double speed = isfinite(world->blow_up_radius) ? 0.01 * world->blow_up_radius / world->def.time_step : 0.0;
    double floor = 0.5 * parts->mass * speed * speed;
    int fastest = parts->fastest;
    if (!(kinetic > 2.0 * entered + floor) || fastest < 0) {
        return FD_OK;
    }
    char what[300];
    snprintf(what, sizeof what,
             "holds %.3g J of the kinetic energy %.3g J, more than twice the %.3g J that entered (the energy "
             "ledger)",
             parts->largest, kinetic, entered);
    step_contact contact = {STEP_CONTACT_ELSEWHERE, 0.0, 0.0};
    if (whole) {
        fd_vec3* made;
        const fd_vec3* before = positions_before(world, &made);
        contact = contact_over_step(world, before != NULL ? before : world->position, fastest);
        free(made);
    }
    return fail_blow_up(world, fastest, what, contact, "state kept at this step");
}

fd_status fd_world_check_energy_gain(const fd_world* world)
{
    if (!fd_world_energy_gain_checked(world)) {
        return FD_OK;
    }
    fd_energy_gain_parts parts = fd_world_energy_gain_parts(world, NULL, 0);
    return fd_world_judge_energy_gain(world, &parts, true);
}

void fd_world_add_warning(fd_world* world, const char* text)
{
    if (world->warning_count < (int)(sizeof world->warnings / sizeof world->warnings[0])) {
        snprintf(world->warnings[world->warning_count++], sizeof world->warnings[0], "%s", text);
    }
}
