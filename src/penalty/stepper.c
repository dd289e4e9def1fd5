/* One step of the penalty stepper, as a list of stages:
 *
 *   1. the state and force buffers swap: the step writes the new state into
 *      the one and leaves the state before it in the other, untouched, for a
 *      rollback (nothing is copied);
 *   2. one loop over the bodies: the first kick (dt for symplectic Euler,
 *      dt / 2 for velocity Verlet) with the old forces, the drift, the wrap
 *      into a periodic box, the displacement since the neighbour list was
 *      built, and the new force buffers set to gravity and external loads;
 *   3. the force pass (force_pass.c);
 *   4. velocity Verlet: the second half kick with the new forces;
 *   5. a non-finite value anywhere (a cheap probe in the loops, then a scan
 *      that names the body) rolls the step back;
 *   6. the ledger's external and lock work (when on), the inlets.
 *
 * Bodies with isotropic inertia and no locks (spheres, the common case) take
 * the straight kick and drift of body/integrate.c written inline, the same
 * arithmetic; the others call it. */
#include <math.h>
#include <string.h>

#include "body/body.h"
#include "core/error.h"
#include "penalty/penalty_internal.h"
#include "world/world_internal.h"

/* 0 for finite x, NaN for infinities and NaN (so a sum of probes is 0 only
 * when every value is finite). */
static inline double probe(double x) { return x - x; }
static inline double probe3(fd_vec3 v) { return probe(v.x) + probe(v.y) + probe(v.z); }

static void swap_buffers(fd_world* world)
{
    fd_body_state* states = world->states;
    world->states = world->saved_states;
    world->saved_states = states;
    fd_vec3* forces = world->forces;
    world->forces = world->saved_forces;
    world->saved_forces = forces;
    fd_vec3* torques = world->torques;
    world->torques = world->saved_torques;
    world->saved_torques = torques;
}

/* What one range of bodies reports back. */
typedef struct range_result {
    double largest;               /* m^2, the largest displacement since the list was built */
    double probes;                /* 0 when every value is finite */
} range_result;

/* Stage 2 for bodies [begin, end). */
static range_result advance_range(fd_world* world, int begin, int end, double kick, double drift)
{
    const fd_penalty* p = &world->penalty;
    const fd_body_state* restrict before = world->saved_states;
    const fd_vec3* restrict old_forces = world->saved_forces;
    const fd_vec3* restrict old_torques = world->saved_torques;
    fd_body_state* restrict now = world->states;
    fd_vec3* restrict forces = world->forces;
    fd_vec3* restrict torques = world->torques;
    const fd_body_motion* restrict motion = world->motion;
    const fd_periodic periodic = world->periodic;
    const fd_vec3* restrict reference = p->reference_position;
    fd_place* restrict places = p->places;
    int referenced = p->lists[p->current].row_start != NULL ? p->lists[p->current].body_count : 0;
    fd_vec3 gravity = world->def.gravity;
    double largest = 0.0, probes = 0.0;
    for (int b = begin; b < end; ++b) {
        const fd_body_motion m = motion[b];
        fd_body_state s = before[b];
        if (!(m.flags & FD_MOTION_DYNAMIC)) {
            now[b] = s;
            forces[b] = fd_v3(0.0, 0.0, 0.0);
            torques[b] = fd_v3(0.0, 0.0, 0.0);
            continue;
        }
        if (m.flags & FD_MOTION_SIMPLE) {
            s.velocity = fd_v3_mul_add(s.velocity, kick * m.inverse_mass, old_forces[b]);
            s.angular_velocity = fd_v3_mul_add(s.angular_velocity, kick * m.inverse_inertia, old_torques[b]);
            s.position = fd_v3_mul_add(s.position, drift, s.velocity);
            /* Fang & Negrut Sec. 4: the exponential map of omega dt. */
            s.orientation = fd_quat_renormalize(
                fd_quat_mul(fd_quat_from_rotation_vector(fd_v3_scale(drift, s.angular_velocity)), s.orientation));
        } else {
            const fd_body_mass* mass = &world->masses[b];
            world->lock_work[b] += fd_body_kick(&s, mass, old_forces[b], old_torques[b], kick);
            world->lock_work[b] += fd_body_drift(&s, mass, drift);
        }
        if (periodic.any && !(m.flags & FD_MOTION_PLANE)) {
            if (periodic.axis[0]) s.position.x = fd_periodic_wrap(s.position.x, periodic.low[0], periodic.length[0]);
            if (periodic.axis[1]) s.position.y = fd_periodic_wrap(s.position.y, periodic.low[1], periodic.length[1]);
            if (periodic.axis[2]) s.position.z = fd_periodic_wrap(s.position.z, periodic.low[2], periodic.length[2]);
        }
        probes += probe3(s.position) + probe3(s.velocity) + probe3(s.angular_velocity) +
                  probe(s.orientation.w + s.orientation.x + s.orientation.y + s.orientation.z);
        if (b < referenced) {
            places[b].x = s.position.x;
            places[b].y = s.position.y;
            places[b].z = s.position.z;
            fd_vec3 moved = fd_v3_sub(s.position, reference[b]);
            if (periodic.any) {
                moved = fd_v3_sub(moved, fd_periodic_near_offset(&periodic, moved));
            }
            double moved_squared = fd_v3_dot(moved, moved);
            largest = moved_squared > largest ? moved_squared : largest;
        }
        now[b] = s;
        if (m.flags & FD_MOTION_LOADED) {
            const fd_body_extra* extra = fd_body_extras(&world->masses[b]);
            forces[b] = fd_v3_mul_add(extra->external_force, m.mass, gravity);
            torques[b] = extra->external_torque;
        } else {
            forces[b] = fd_v3_scale(m.mass, gravity);
            torques[b] = fd_v3(0.0, 0.0, 0.0);
        }
    }
    return (range_result){largest, probes};
}

/* Stage 4 for bodies [begin, end): the second half kick (kick > 0), or only
 * the check of the new forces (symplectic Euler, kick = 0). */
static range_result finish_range(fd_world* world, int begin, int end, double kick)
{
    fd_body_state* restrict now = world->states;
    const fd_vec3* restrict forces = world->forces;
    const fd_vec3* restrict torques = world->torques;
    const fd_body_motion* restrict motion = world->motion;
    double probes = 0.0;
    for (int b = begin; b < end; ++b) {
        const fd_body_motion m = motion[b];
        if (!(m.flags & FD_MOTION_DYNAMIC)) {
            continue;
        }
        probes += probe3(forces[b]) + probe3(torques[b]);
        if (kick == 0.0) {
            continue;
        }
        fd_body_state* s = &now[b];
        if (m.flags & FD_MOTION_SIMPLE) {
            s->velocity = fd_v3_mul_add(s->velocity, kick * m.inverse_mass, forces[b]);
            s->angular_velocity = fd_v3_mul_add(s->angular_velocity, kick * m.inverse_inertia, torques[b]);
        } else {
            world->lock_work[b] += fd_body_kick(s, &world->masses[b], forces[b], torques[b], kick);
        }
        probes += probe3(s->velocity) + probe3(s->angular_velocity);
    }
    return (range_result){0.0, probes};
}

/* A loop over the bodies, split into one range per thread (one thread: a
 * plain call). The largest displacement is a maximum, the same whatever the
 * split; the probes only say whether something is not finite. */
static range_result over_bodies(fd_world* world, bool advance, double kick, double drift)
{
    int n = world->body_count, threads = world->def.thread_count;
    if (threads <= 1 || n < 2 * threads) {
        return advance ? advance_range(world, 0, n, kick, drift) : finish_range(world, 0, n, kick);
    }
    double largest = 0.0, probes = 0.0;
#pragma omp parallel for schedule(static, 1) num_threads(threads) reduction(max : largest) reduction(+ : probes)
    for (int t = 0; t < threads; ++t) {
        int begin = (int)((int64_t)n * t / threads), end = (int)((int64_t)n * (t + 1) / threads);
        range_result r = advance ? advance_range(world, begin, end, kick, drift) : finish_range(world, begin, end, kick);
        largest = r.largest > largest ? r.largest : largest;
        probes += r.probes;
    }
    return (range_result){largest, probes};
}

/* Stage 2. Returns whether every new value is finite. */
static bool advance_bodies(fd_world* world, double kick, double drift)
{
    double start = fd_wall_seconds();
    range_result r = over_bodies(world, true, kick, drift);
    fd_penalty* p = &world->penalty;
    p->max_displacement_squared = r.largest > p->max_displacement_squared ? r.largest : p->max_displacement_squared;
    world->profile.integrate += fd_wall_seconds() - start;
    return r.probes == 0.0;
}

/* Stage 4. Returns whether every value is finite. */
static bool finish_step(fd_world* world, double kick)
{
    double start = fd_wall_seconds();
    range_result r = over_bodies(world, false, kick, 0.0);
    world->profile.integrate += fd_wall_seconds() - start;
    return r.probes == 0.0;
}

fd_status fd_penalty_forces(fd_world* world)
{
    fd_world_apply_external_loads(world);
    bool record = world->def.contact_output == FD_CONTACT_OUTPUT_EVERY_STEP || world->contacts_requested;
    fd_status status = fd_penalty_force_pass(world, record);
    if (status == FD_OK) {
        world->contacts_requested = false;
    }
    return status;
}

fd_status fd_penalty_step(fd_world* world)
{
    uint64_t saved_next_id = world->next_contact_id;
    fd_energy_totals saved_totals = world->energy_totals;
    double saved_time = world->time;
    int64_t saved_step = world->step_count;
    if (world->has_locks) {
        memset(world->lock_work, 0, (size_t)world->body_count * sizeof *world->lock_work);
    }
    double dt = world->def.time_step;
    bool verlet = world->def.integrator == FD_INTEGRATOR_VELOCITY_VERLET;

    swap_buffers(world);
    bool finite = advance_bodies(world, verlet ? 0.5 * dt : dt, dt);
    world->time = (double)(world->step_count + 1) * dt; /* no running-sum round-off */
    world->step_count++;
    bool record = world->def.contact_output == FD_CONTACT_OUTPUT_EVERY_STEP || world->contacts_requested;
    fd_status status = FD_OK;
    if (finite) {
        status = fd_penalty_force_pass(world, record);
    }
    if (status == FD_OK && finite) {
        world->contacts_requested = false;
        finite = finish_step(world, verlet ? 0.5 * dt : 0.0);
    }
    if (status == FD_OK && !finite) {
        status = fd_world_check_finite(world);
        if (status == FD_OK) {
            /* The probe saw a non-finite value that the scan did not name. */
            status = fd_fail(FD_ERR_NON_FINITE, "non-finite state at step %lld, t = %.9g s (state kept at the last "
                             "good step)", (long long)world->step_count, world->time);
        }
    }
    if (status == FD_OK && world->def.energy_ledger) {
        fd_world_book_step_work(world, dt);
    }
    if (status != FD_OK) {
        /* Back to the last good step: the caller can still write it out. */
        swap_buffers(world);
        fd_penalty_rollback(world);
        world->next_contact_id = saved_next_id;
        world->energy_totals = saved_totals;
        world->time = saved_time;
        world->step_count = saved_step;
        return status;
    }
    fd_penalty_commit(world);
    /* Spheres due from inlets join the finished state (src/world/inlet.c). */
    return fd_world_run_inlets(world);
}
