/* Granular-gas measurements through the public API (see gas_tracker.h for
 * what is measured and the derivation of the integration bound). */
#include "gas_tracker.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/math.h"

/* A contact being followed, in key order like the world's contacts. */
typedef struct active {
    uint64_t key, id;
    int collision;        /* index into the collisions */
    fd_vec3 xi;           /* slide spring after the last update (m) */
    double delta;         /* penetration at the last step (m) */
    double delta_rate;    /* its rate at the last step (m/s) */
    double g_normal;      /* (v_i - v_j) . n at n0 (m/s) */
    fd_vec3 normal;       /* n at the last step */
    fd_vec3 g_contact_t;  /* tangential velocity of the contact points at n0 */
} active;

struct gas_tracker {
    int body_count;
    double* mass;         /* kg */
    double* inertia;      /* kg m^2 (spheres: one moment) */
    double* radius;       /* m */
    int* contact_count;   /* contacts per body at the current step */
    bool dsds;
    double k_n, k_t, gamma_t, mu, restitution, dt;
    fd_world_def def;
    int xi_column[3], slipping_column;

    active* now;
    active* before;
    int now_count, before_count, active_capacity;
    gas_collision* collisions;
    int collision_count, collision_capacity;
    int64_t collisions_begun;
    double normal_spring, slide_spring, created_slide;
    int contacts;
};

/* ---------------------------------------------------------------- setup */

static double law_param(const fd_contact_law_def* law, fd_mechanism mechanism, const char* name)
{
    const fd_submodel_def* model = &law->submodel[mechanism];
    for (int p = 0; p < model->param_count; ++p) {
        if (strcmp(model->params[p].name, name) == 0) {
            return model->params[p].value;
        }
    }
    return NAN;
}

gas_tracker* gas_tracker_create(const fd_world* world, char* message, size_t message_size)
{
    int n = fd_world_body_count(world);
    fd_world_def def = fd_world_get_def(world);
    if (n < 2) {
        snprintf(message, message_size, "the gas needs at least two bodies");
        return NULL;
    }
    if (def.integrator != FD_INTEGRATOR_SYMPLECTIC_EULER || fd_v3_length(def.gravity) != 0.0) {
        snprintf(message, message_size, "the energy balance assumes symplectic Euler and no gravity");
        return NULL;
    }
    if (fd_world_step_count(world) != 0) {
        snprintf(message, message_size, "create the tracker before the first step");
        return NULL;
    }
    fd_material_id material = fd_body_get_info(world, fd_world_body_at(world, 0)).material;
    gas_tracker* t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(message, message_size, "out of memory");
        return NULL;
    }
    t->body_count = n;
    t->def = def;
    t->dt = def.time_step;
    t->mass = malloc((size_t)n * sizeof *t->mass);
    t->inertia = malloc((size_t)n * sizeof *t->inertia);
    t->radius = malloc((size_t)n * sizeof *t->radius);
    t->contact_count = calloc((size_t)n, sizeof *t->contact_count);
    if (!t->mass || !t->inertia || !t->radius || !t->contact_count) {
        snprintf(message, message_size, "out of memory");
        gas_tracker_free(t);
        return NULL;
    }
    for (int b = 0; b < n; ++b) {
        fd_body_info info = fd_body_get_info(world, fd_world_body_at(world, b));
        if (info.type != FD_BODY_DYNAMIC || info.shape.type != FD_SHAPE_SPHERE ||
            info.material.index1 != material.index1) {
            snprintf(message, message_size, "body %d: the gas must be dynamic spheres of one material", b);
            gas_tracker_free(t);
            return NULL;
        }
        t->mass[b] = info.mass;
        t->inertia[b] = info.inertia.x;
        t->radius[b] = info.shape.radius;
    }
    fd_contact_law_def law;
    if (fd_world_get_contact_law(world, material, material, &law) != FD_OK) {
        snprintf(message, message_size, "%s", fd_last_error());
        gas_tracker_free(t);
        return NULL;
    }
    const char* slide = law.submodel[FD_MECHANISM_SLIDE].model;
    if (strcmp(law.submodel[FD_MECHANISM_NORMAL].model, "hooke") != 0 ||
        (strcmp(slide, "dsds") != 0 && strcmp(slide, "csds") != 0) ||
        strcmp(law.submodel[FD_MECHANISM_ROLL].model, "none") != 0 ||
        strcmp(law.submodel[FD_MECHANISM_SPIN].model, "none") != 0) {
        snprintf(message, message_size, "the law must be normal hooke with slide dsds or csds and no roll or spin "
                                        "model (got %s, %s)",
                 law.submodel[FD_MECHANISM_NORMAL].model, slide);
        gas_tracker_free(t);
        return NULL;
    }
    t->dsds = strcmp(slide, "dsds") == 0;
    t->k_n = law_param(&law, FD_MECHANISM_NORMAL, "k_n");
    t->restitution = law_param(&law, FD_MECHANISM_NORMAL, "restitution");
    t->k_t = law_param(&law, FD_MECHANISM_SLIDE, "k_t");
    t->gamma_t = law_param(&law, FD_MECHANISM_SLIDE, "gamma_t");
    t->mu = law_param(&law, FD_MECHANISM_SLIDE, "mu");
    const char* names[3] = {"xi_x", "xi_y", "xi_z"};
    for (int k = 0; k < 3; ++k) {
        t->xi_column[k] = fd_world_find_contact_column(world, names[k]);
    }
    t->slipping_column = fd_world_find_contact_column(world, "slipping");
    if (t->xi_column[0] < 0 || t->xi_column[1] < 0 || t->xi_column[2] < 0 || t->slipping_column < 0) {
        snprintf(message, message_size, "the world has no xi_x, xi_y, xi_z, slipping contact columns");
        gas_tracker_free(t);
        return NULL;
    }
    return t;
}

void gas_tracker_free(gas_tracker* t)
{
    if (!t) {
        return;
    }
    FD_FREE_ALL(t->mass, t->inertia, t->radius, t->contact_count, t->now, t->before, t->collisions, t);
}

const char* gas_tracker_slide_model(const gas_tracker* t) { return t->dsds ? "dsds" : "csds"; }

double gas_tracker_param(const gas_tracker* t, const char* name)
{
    if (strcmp(name, "k_n") == 0) return t->k_n;
    if (strcmp(name, "k_t") == 0) return t->k_t;
    if (strcmp(name, "gamma_t") == 0) return t->gamma_t;
    if (strcmp(name, "mu") == 0) return t->mu;
    if (strcmp(name, "restitution") == 0) return t->restitution;
    return NAN;
}

int gas_tracker_collision_count(const gas_tracker* t) { return t->collision_count; }
const gas_collision* gas_tracker_collision_at(const gas_tracker* t, int index) { return &t->collisions[index]; }

/* ---------------------------------------------------------------- kinematics */

static fd_body_state body_state(const fd_world* world, int b)
{
    return fd_body_get_state(world, fd_world_body_at(world, b));
}

/* Kinetic energy of the pair in its centre-of-mass frame. */
static double pair_kinetic(const gas_tracker* t, const fd_body_state* a, const fd_body_state* b, int i, int j)
{
    double reduced = t->mass[i] * t->mass[j] / (t->mass[i] + t->mass[j]);
    return 0.5 * reduced * fd_v3_length_squared(fd_v3_sub(a->velocity, b->velocity)) +
           0.5 * t->inertia[i] * fd_v3_length_squared(a->angular_velocity) +
           0.5 * t->inertia[j] * fd_v3_length_squared(b->angular_velocity);
}

/* The image of x_b nearest to x_a (periodic axes). */
static fd_vec3 nearest_image(const gas_tracker* t, fd_vec3 a, fd_vec3 b)
{
    double image[3] = {b.x, b.y, b.z}, from[3] = {a.x, a.y, a.z};
    for (int k = 0; k < 3; ++k) {
        if (t->def.periodic[k]) {
            double length = fd_v3_component(t->def.box_max, k) - fd_v3_component(t->def.box_min, k);
            image[k] -= length * round((image[k] - from[k]) / length);
        }
    }
    return fd_v3(image[0], image[1], image[2]);
}

/* Velocity of body i's surface minus body j's at the contact point (the
 * engine's sign, fd_contact_input.relative_velocity):
 * v_rel = (v_i + w_i x a_i) - (v_j + w_j x a_j), a the arms to the point. */
static fd_vec3 relative_velocity(const fd_body_state* a, const fd_body_state* b, fd_vec3 arm_i, fd_vec3 arm_j)
{
    fd_vec3 vi = fd_v3_add(a->velocity, fd_v3_cross(a->angular_velocity, arm_i));
    fd_vec3 vj = fd_v3_add(b->velocity, fd_v3_cross(b->angular_velocity, arm_j));
    return fd_v3_sub(vi, vj);
}

/* The spring turned into the plane of n, keeping its length (as sds.c does). */
static fd_vec3 spring_in_plane(fd_vec3 xi, fd_vec3 n)
{
    return fd_v3_scale(fd_v3_length(xi), fd_v3_normalize(fd_v3_reject(xi, n)));
}

/* ---------------------------------------------------------------- bookkeeping */

static bool reserve(gas_tracker* t, int actives)
{
    if (actives > t->active_capacity) {
        int capacity = t->active_capacity ? 2 * t->active_capacity : 1024;
        while (capacity < actives) {
            capacity *= 2;
        }
        active* now = realloc(t->now, (size_t)capacity * sizeof *now);
        if (!now) return false;
        t->now = now;
        active* before = realloc(t->before, (size_t)capacity * sizeof *before);
        if (!before) return false;
        t->before = before;
        t->active_capacity = capacity;
    }
    if (t->collision_count + actives > t->collision_capacity) { /* each contact may be new */
        int capacity = t->collision_capacity ? 2 * t->collision_capacity : 4096;
        while (capacity < t->collision_count + actives) {
            capacity *= 2;
        }
        gas_collision* grown = realloc(t->collisions, (size_t)capacity * sizeof *grown);
        if (!grown) return false;
        t->collisions = grown;
        t->collision_capacity = capacity;
    }
    return true;
}

/* The normal spring's terms of the last step, once delta(n + 1) is known:
 * exactly U(n+1) - U(n) - k delta dt ddelta/dt (U = k (delta+)^2 / 2), and
 * its bound. */
static void close_normal_term(const gas_tracker* t, const active* a, gas_collision* c, double delta_next)
{
    double jump = delta_next - a->delta;
    double next = delta_next > 0.0 ? delta_next : 0.0;
    c->integration += 0.5 * t->k_n * (next * next - a->delta * a->delta) - t->k_n * a->delta * t->dt * a->delta_rate;
    c->bound += 0.5 * t->k_n * jump * jump + t->k_n * a->delta * fabs(jump - t->dt * a->delta_rate);
}

/* Contact a ended: the world is now at step n1 + 1. */
static void end_contact(gas_tracker* t, const fd_world* world, const active* a)
{
    gas_collision* c = &t->collisions[a->collision];
    int i = c->body_i, j = c->body_j;
    fd_body_state si = body_state(world, i), sj = body_state(world, j);
    fd_vec3 image = nearest_image(t, si.position, sj.position);
    double delta_next = t->radius[i] + t->radius[j] - fd_v3_distance(si.position, image);
    close_normal_term(t, a, c, delta_next);
    c->kinetic_end = pair_kinetic(t, &si, &sj, i, j);
    c->spring_left = 0.5 * t->k_t * fd_v3_length_squared(a->xi);
    c->energy_end = c->kinetic_end + c->spring_left;
    /* Round-off: every energy and bound term is a sum of ~10 products with
     * relative error ~eps each, and the velocities carry one rounding per
     * kick; 100 eps per step on the energies involved is generous. */
    c->roundoff = 100.0 * DBL_EPSILON * (double)(c->steps + 1) * (c->energy_start + c->energy_end + c->bound);
    c->model_work = c->energy_end - c->energy_start - c->integration;
    fd_vec3 g = fd_v3_sub(si.velocity, sj.velocity);
    double g_normal = fd_v3_dot(g, a->normal);
    c->restitution = a->g_normal != 0.0 ? -g_normal / a->g_normal : NAN;
    fd_vec3 n = a->normal; /* into i: i's contact point at -r_i n, j's at +r_j n */
    fd_vec3 gc = fd_v3_sub(fd_v3_add(si.velocity, fd_v3_cross(si.angular_velocity, fd_v3_scale(-t->radius[i], n))),
                           fd_v3_add(sj.velocity, fd_v3_cross(sj.angular_velocity, fd_v3_scale(t->radius[j], n))));
    fd_vec3 gct = fd_v3_reject(gc, n);
    double before = fd_v3_length_squared(a->g_contact_t);
    c->tangential_restitution = before > 0.0 ? -fd_v3_dot(gct, a->g_contact_t) / before : NAN;
    c->ended = true;
}

fd_status gas_tracker_observe(gas_tracker* t, const fd_world* world)
{
    const int64_t step = fd_world_step_count(world);
    const int count = fd_world_contact_count(world);
    if (!reserve(t, count)) {
        return FD_ERR_OUT_OF_MEMORY;
    }
    memset(t->contact_count, 0, (size_t)t->body_count * sizeof *t->contact_count);
    for (int k = 0; k < count; ++k) {
        fd_contact_view view;
        fd_world_get_contact(world, k, &view);
        t->contact_count[view.body_i.index1 - 1]++;
        t->contact_count[view.body_j.index1 - 1]++;
    }
    const double dt = t->dt;
    int old = 0;
    t->now_count = 0;
    t->normal_spring = 0.0;
    t->slide_spring = 0.0;
    t->contacts = count;
    for (int k = 0; k < count; ++k) {
        fd_contact_view view;
        memset(&view, 0, sizeof view); /* the energy books stay 0 where the world does not fill them */
        fd_world_get_contact(world, k, &view);
        int i = view.body_i.index1 - 1, j = view.body_j.index1 - 1;
        uint64_t key = (uint64_t)i << 32 | (uint32_t)j;
        while (old < t->before_count && t->before[old].key < key) {
            end_contact(t, world, &t->before[old++]);
        }
        const fd_contact_geometry* g = &view.geometry;
        fd_vec3 xi_next = fd_v3(view.columns[t->xi_column[0]], view.columns[t->xi_column[1]],
                                view.columns[t->xi_column[2]]);
        t->normal_spring += 0.5 * t->k_n * g->penetration * g->penetration;
        t->slide_spring += 0.5 * t->k_t * fd_v3_length_squared(xi_next);

        fd_body_state si = body_state(world, i), sj = body_state(world, j);
        sj.position = fd_v3_add(sj.position, view.image_offset); /* the image that touches i */
        fd_vec3 n = g->normal;
        fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(g->point_i, g->point_j));
        fd_vec3 arm_i = fd_v3_sub(point, si.position), arm_j = fd_v3_sub(point, sj.position);
        fd_vec3 v_rel = relative_velocity(&si, &sj, arm_i, arm_j);
        double delta_rate = -fd_v3_dot(v_rel, n);
        fd_vec3 v_t = fd_v3_reject(v_rel, n);

        active* a = NULL;
        fd_vec3 xi_previous = fd_v3(0, 0, 0);
        if (old < t->before_count && t->before[old].key == key && t->before[old].id == view.id) {
            a = &t->now[t->now_count++];
            *a = t->before[old++];
            close_normal_term(t, a, &t->collisions[a->collision], g->penetration);
            xi_previous = a->xi;
        } else {
            if (old < t->before_count && t->before[old].key == key) {
                end_contact(t, world, &t->before[old++]); /* ended, and a new one began since */
            }
            if (view.first_step == step && step > 0) {
                t->collisions_begun++;
                a = &t->now[t->now_count++];
                memset(a, 0, sizeof *a);
                a->key = key;
                a->id = view.id;
                a->collision = t->collision_count++;
                gas_collision* c = &t->collisions[a->collision];
                memset(c, 0, sizeof *c);
                c->id = view.id;
                c->body_i = i;
                c->body_j = j;
                c->first_step = step;
                c->binary = true;
                c->kinetic_start = pair_kinetic(t, &si, &sj, i, j);
                c->energy_start = c->kinetic_start + 0.5 * t->k_n * g->penetration * g->penetration;
                c->normal_speed = delta_rate;
                c->tangential_speed = fd_v3_length(v_t);
                a->g_normal = fd_v3_dot(fd_v3_sub(si.velocity, sj.velocity), n);
                fd_vec3 gc = fd_v3_sub(
                    fd_v3_add(si.velocity, fd_v3_cross(si.angular_velocity, fd_v3_scale(-t->radius[i], n))),
                    fd_v3_add(sj.velocity, fd_v3_cross(sj.angular_velocity, fd_v3_scale(t->radius[j], n))));
                a->g_contact_t = fd_v3_reject(gc, n);
            }
        }
        bool slipping = view.columns[t->slipping_column] != 0.0;
        fd_vec3 xi_turned = spring_in_plane(xi_previous, n);
        /* The slide model's own balance over this step (every contact,
         * followed or not): work of its force on the relative motion plus
         * the change of its spring energy; > 0 is energy it created. */
        double balance = dt * fd_v3_dot(view.loads.slide_force, v_t) +
                         0.5 * t->k_t * (fd_v3_length_squared(xi_next) - fd_v3_length_squared(xi_previous));
        double created = fmax(balance, 0.0);
        t->created_slide += created;
        if (a == NULL) {
            continue; /* began before the first observation: not followed */
        }
        gas_collision* c = &t->collisions[a->collision];
        c->last_step = step;
        c->steps++;
        c->slip_steps += slipping;
        c->created_slide += created;
        c->created_ledger = view.energy[FD_MECHANISM_SLIDE].created;
        if (t->contact_count[i] > 1 || t->contact_count[j] > 1) {
            c->binary = false;
        }
        /* The bound's terms of this step (gas_tracker.h). */
        fd_vec3 force = view.loads.force_on_i;
        fd_vec3 torque_i = fd_v3_cross(arm_i, force), torque_j = fd_v3_cross(arm_j, fd_v3_neg(force));
        double force2 = fd_v3_length_squared(force);
        double kick = 0.5 * dt * dt *
                      (force2 / t->mass[i] + force2 / t->mass[j] + fd_v3_length_squared(torque_i) / t->inertia[i] +
                       fd_v3_length_squared(torque_j) / t->inertia[j]);
        fd_vec3 spring_step = t->dsds && slipping ? fd_v3_scale(dt, v_t) : fd_v3_sub(xi_next, xi_turned);
        double spring = 0.5 * t->k_t * fd_v3_length_squared(spring_step);
        c->bound += kick + spring;
        c->integration += kick + spring;
        a->xi = xi_next;
        a->delta = g->penetration;
        a->delta_rate = delta_rate;
        a->normal = n;
    }
    while (old < t->before_count) {
        end_contact(t, world, &t->before[old++]);
    }
    active* swap = t->before;
    t->before = t->now;
    t->now = swap;
    t->before_count = t->now_count;
    return FD_OK;
}

void gas_tracker_finish(gas_tracker* t)
{
    for (int k = 0; k < t->before_count; ++k) {
        t->collisions[t->before[k].collision].ended = false;
    }
    t->before_count = 0;
}

gas_sample gas_tracker_sample(const gas_tracker* t, const fd_world* world)
{
    gas_sample s;
    memset(&s, 0, sizeof s);
    s.time = fd_world_time(world);
    s.step = fd_world_step_count(world);
    double total_mass = 0.0;
    for (int b = 0; b < t->body_count; ++b) {
        fd_body_state state = body_state(world, b);
        s.momentum = fd_v3_mul_add(s.momentum, t->mass[b], state.velocity);
        total_mass += t->mass[b];
    }
    fd_vec3 mean = fd_v3_scale(1.0 / total_mass, s.momentum);
    for (int b = 0; b < t->body_count; ++b) {
        fd_body_state state = body_state(world, b);
        s.kinetic_trans += 0.5 * t->mass[b] * fd_v3_length_squared(fd_v3_sub(state.velocity, mean));
        s.kinetic_rot += 0.5 * t->inertia[b] * fd_v3_length_squared(state.angular_velocity);
    }
    s.temperature_trans = 2.0 * s.kinetic_trans / (3.0 * t->body_count);
    s.temperature_rot = 2.0 * s.kinetic_rot / (3.0 * t->body_count);
    s.normal_spring = t->normal_spring;
    s.slide_spring = t->slide_spring;
    s.created_ledger = fd_world_get_energy(world).created[FD_MECHANISM_SLIDE];
    s.created_slide = t->created_slide;
    s.contacts = t->contacts;
    s.collisions = t->collisions_begun;
    return s;
}
