/* One step of the penalty stepper, as a list of stages:
 *
 *   1. made in place (the common way): a rewind point first when one is due
 *      (rewind.c); made the careful way (where the ledger needs the state
 *      before the step, and to repeat a step that failed in place): the
 *      state and force buffers swap, the step writes the new state into the
 *      one and leaves the state before it in the other, untouched, for a
 *      rollback (nothing is copied);
 *   2. one loop over the bodies: the first kick (dt for symplectic Euler,
 *      dt / 2 for velocity Verlet) with the old forces, the drift, the wrap
 *      into a periodic box, the displacement since the neighbour list was
 *      built, and the new force buffers set to gravity and external loads;
 *   3. the force pass (force_pass.c);
 *   4. velocity Verlet: the second half kick with the new forces;
 *   5. a non-finite value anywhere (a cheap probe in the loops, then a scan
 *      that names the body) rolls the step back, and so does a blow-up: a
 *      body that moved more than half its radius (the largest move of a body
 *      in the step and the widest turn, both found by the loop, say when to
 *      look; src/world/stability.c); made in place, the rollback is the
 *      rewind point's (fd_penalty_step);
 *   6. the ledger's external and lock work (when on), every 64 steps its
 *      test of the kinetic energy against what entered.
 * (The outlets and inlets follow in fd_world_step, src/engine/world.c.)
 *
 * Bodies with isotropic inertia and no locks (spheres, the common case) take
 * the straight kick and drift of body/integrate.c written inline, the same
 * arithmetic; the others call it.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "core/error.h"
#include "core/permute.h"
#include "penalty/body_quads.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

/* 0 for finite x, NaN for infinities and NaN (so a sum of probes is 0 only
 * when every value is finite). */
static inline double probe(double x) { return x - x; }
static inline double probe3(fd_vec3 v) { return probe(v.x) + probe(v.y) + probe(v.z); }

static void swap_buffers(fd_world* world)
{
#define FD_SWAP(type, a, b)                                                                                            \
    do {                                                                                                               \
        type* held_ = world->a;                                                                                        \
        world->a = world->b;                                                                                           \
        world->b = held_;                                                                                              \
    } while (0)
    FD_SWAP(fd_vec3, position, saved_position);
    FD_SWAP(fd_quat, orientation, saved_orientation);
    FD_SWAP(fd_vec3, velocity, saved_velocity);
    FD_SWAP(fd_vec3, angular_velocity, saved_angular_velocity);
    FD_SWAP(fd_vec3, forces, saved_forces);
    FD_SWAP(fd_vec3, torques, saved_torques);
#undef FD_SWAP
}

/* What one range of bodies reports back. */
typedef struct range_result {
    double largest;               /* m^2, the largest displacement since the list was built */
    double step_squared;          /* m^2, the largest (h v)^2 of the drift: a body's move in the step */
    double probes;                /* 0 when every value is finite */
    double widest_turn;           /* the largest (omega dt)^2 of the straight drift (its series needs < 0.04) */
    double worst_norm;            /* the largest | |q|^2 - 1 | its renormalisation met (it needs < 1e-8) */
} range_result;

/* The straight kick and drift of up to FD_BODY_BLOCK bodies, from arrays
 * per component so that the loop vectorises (as the contacts' block kernel):
 * body/integrate.c's arithmetic for isotropic bodies, the exponential map by
 * its series (fd_quat_from_rotation_vector: |omega dt| < 0.2, which every
 * caller checks) and the renormalisation of a near-unit product
 * (fd_quat_renormalize: || q |^2 - 1| < 1e-8, checked too). The same
 * operations run in every clone, so the bits do not depend on which. */
/* What a block's checks found, over its bodies. */
typedef struct block_checks {
    double probes;                /* 0 when every x and w is finite */
    double fastest;               /* the largest v^2 of the drift */
    double widest_turn;           /* the largest (omega dt)^2 */
    int outside_series;           /* some body's turn or renormalisation is beyond the series (exact_body) */
} block_checks;

FD_VECTOR_CLONES static block_checks
straight_block(fd_body_block* restrict k, double drift)
{
    double probes = 0.0, widest = 0.0, fastest = 0.0;
    int outside_series = 0;
#pragma omp simd reduction(+ : probes) reduction(max : widest, fastest) reduction(| : outside_series)
    for (int c = 0; c < k->count; ++c) {
        double vx = k->v[0][c] + k->kick_mass[c] * k->f[0][c];
        double vy = k->v[1][c] + k->kick_mass[c] * k->f[1][c];
        double vz = k->v[2][c] + k->kick_mass[c] * k->f[2][c];
        double wx = k->w[0][c] + k->kick_inertia[c] * k->t[0][c];
        double wy = k->w[1][c] + k->kick_inertia[c] * k->t[1][c];
        double wz = k->w[2][c] + k->kick_inertia[c] * k->t[2][c];
        k->x[0][c] = k->x[0][c] + drift * vx;
        k->x[1][c] = k->x[1][c] + drift * vy;
        k->x[2][c] = k->x[2][c] + drift * vz;
        k->v[0][c] = vx, k->v[1][c] = vy, k->v[2][c] = vz;
        k->w[0][c] = wx, k->w[1][c] = wy, k->w[2][c] = wz;
        /* Fang & Negrut Sec. 4: the exponential map of omega dt. */
        double px = drift * wx, py = drift * wy, pz = drift * wz;
        double turn_squared = px * px + py * py + pz * pz;
        double u = 0.25 * turn_squared;
        double c0 = 1.0 + u * (-1.0 / 2 + u * (1.0 / 24 + u * (-1.0 / 720 + u * (1.0 / 40320 + u * (-1.0 / 3628800 +
                    u * (1.0 / 479001600))))));
        double s0 = 0.5 * (1.0 + u * (-1.0 / 6 + u * (1.0 / 120 + u * (-1.0 / 5040 + u * (1.0 / 362880 +
                    u * (-1.0 / 39916800 + u * (1.0 / 6227020800.0)))))));
        double ax = s0 * px, ay = s0 * py, az = s0 * pz;
        double bw = k->q[0][c], bx = k->q[1][c], by = k->q[2][c], bz = k->q[3][c];
        /* fd_quat_mul((c0, a), b) */
        double qw = c0 * bw - ax * bx - ay * by - az * bz;
        double qx = c0 * bx + ax * bw + ay * bz - az * by;
        double qy = c0 * by - ax * bz + ay * bw + az * bx;
        double qz = c0 * bz + ax * by - ay * bx + az * bw;
        double norm_squared = qw * qw + qx * qx + qy * qy + qz * qz;
        double inverse = 1.5 - 0.5 * norm_squared;
        k->q[0][c] = qw * inverse, k->q[1][c] = qx * inverse, k->q[2][c] = qy * inverse, k->q[3][c] = qz * inverse;
        /* x = x0 + dt v: a non-finite v makes x non-finite, and the periodic
         * wrap (after this loop) keeps a finite x finite and a non-finite one
         * not: x's probe, here, answers for v and for the wrapped x. */
        probes += probe(k->x[0][c]) + probe(k->x[1][c]) + probe(k->x[2][c]) + probe(wx) + probe(wy) + probe(wz);
        widest = turn_squared > widest ? turn_squared : widest;
        double speed_squared = vx * vx + vy * vy + vz * vz;
        fastest = speed_squared > fastest ? speed_squared : fastest;
        outside_series |= !(turn_squared < 0.04) | !(fabs(norm_squared - 1.0) < 1e-8);
    }
    return (block_checks){probes, fastest, widest, outside_series};
}

/* One body done exactly as body/integrate.c does it, from the state before
 * the step (the saved buffers, or the live ones when the step is made in
 * place and this body's were not written yet): a body with locks,
 * anisotropic inertia or external loads, or one whose turn is too wide for
 * the straight loop's series. */
static void exact_body(fd_world* world, int b, double kick, double drift, range_result* r)
{
    const fd_penalty* p = world->penalty;
    const bool kept = !p->stepping_in_place;
    const fd_body_motion m = world->motion[b];
    const fd_periodic* periodic = &world->periodic;
    int referenced = p->lists[p->current].row_start != NULL ? p->lists[p->current].body_count : 0;
    fd_body_state s = kept ? (fd_body_state){world->saved_position[b], world->saved_orientation[b],
                                             world->saved_velocity[b], world->saved_angular_velocity[b]}
                           : fd_world_state(world, b);
    const fd_body_mass* mass = &world->masses[b];
    double locks = fd_body_kick(&s, mass, kept ? world->saved_forces[b] : world->forces[b],
                                kept ? world->saved_torques[b] : world->torques[b], kick);
    locks += fd_body_drift(&s, mass, drift);
    if (world->lock_work != NULL) {
        world->lock_work[b] += locks;
    }
    if (periodic->any && !(m.flags & FD_MOTION_PLANE)) {
        s.position = fd_periodic_wrap_position(periodic, s.position);
    }
    r->probes += probe3(s.position) + probe3(s.velocity) + probe3(s.angular_velocity) +
                 probe(s.orientation.w + s.orientation.x + s.orientation.y + s.orientation.z);
    if (b < referenced) {
        fd_vec3 moved = fd_v3_sub(s.position, p->reference_position[b]);
        if (periodic->any) {
            moved = fd_v3_sub(moved, fd_periodic_near_offset(periodic, moved));
        }
        r->largest = fmax(r->largest, fd_v3_dot(moved, moved));
    }
    r->widest_turn = fmax(r->widest_turn, drift * drift * fd_v3_length_squared(s.angular_velocity));
    r->step_squared = fmax(r->step_squared, drift * drift * fd_v3_length_squared(s.velocity));
    fd_world_put_state(world, b, &s);
    const fd_body_extra* extra = fd_body_extras(mass);
    world->forces[b] = fd_v3_mul_add(extra->external_force, m.mass, world->def.gravity);
    world->torques[b] = extra->external_torque;
}

/* Whether body b, not FD_MOTION_SIMPLE alone, is stepped by exact_body
 * (else it is static or moved by its wall's motion: kept, with no load). */
static bool is_exact(uint32_t flags)
{
    return (flags & FD_MOTION_DYNAMIC) && (!(flags & FD_MOTION_SIMPLE) || (flags & FD_MOTION_LOADED));
}

/* The bodies of [begin, end) with isotropic inertia, no locks and no
 * external loads (FD_MOTION_SIMPLE without FD_MOTION_LOADED), FD_BODY_BLOCK
 * at a time through straight_block; static bodies keep their state; the
 * others are left to exact_body (advance_range), and so are the bodies of a
 * block where one's turn is too wide for the series: the block is not
 * written back (made in place, its old loads are put back), and each of its
 * bodies is done again, exactly, from the state before the step. Four
 * neighbouring bodies move in and out of the block by the processor's
 * permutes where they can (body_quads.c: the same bits), the others one at
 * a time. */
static range_result advance_straight(fd_world* world, int begin, int end, double kick, double drift)
{
    const fd_penalty* p = world->penalty;
    const bool kept = !p->stepping_in_place; /* the state before the step in the saved buffers */
    const fd_step_arrays a = {
        .x0 = kept ? world->saved_position : world->position,
        .q0 = kept ? world->saved_orientation : world->orientation,
        .v0 = kept ? world->saved_velocity : world->velocity,
        .w0 = kept ? world->saved_angular_velocity : world->angular_velocity,
        .f0 = kept ? world->saved_forces : world->forces, .t0 = kept ? world->saved_torques : world->torques,
        .x1 = world->position, .q1 = world->orientation, .v1 = world->velocity, .w1 = world->angular_velocity,
        .f1 = world->forces, .t1 = world->torques, .motion = world->motion, .reference = p->reference_position,
        .referenced = p->lists[p->current].row_start != NULL ? p->lists[p->current].body_count : 0,
        .periodic = &world->periodic, .gravity = world->def.gravity, .kick = kick,
    };
    const fd_periodic* periodic = &world->periodic;
    bool quads = fd_permutes_on();
    double largest = 0.0, probes = 0.0, widest = 0.0, fastest = 0.0;
    range_result redone = {0};
    fd_body_block k;
    for (int b = begin; b < end;) {
        k.count = 0;
        while (b < end && k.count < FD_BODY_BLOCK) {
            if (quads) {
                b = fd_body_quads_gather(&k, &a, b, end);
                if (b == end || k.count == FD_BODY_BLOCK) {
                    break;
                }
            }
            const fd_body_motion m = a.motion[b]; /* (never dormant: over_held walks the held runs) */
            if ((m.flags & (FD_MOTION_SIMPLE | FD_MOTION_LOADED)) != FD_MOTION_SIMPLE) {
                /* Static: kept, with no load. Others: exact_body, which
                 * reads their loads (made in place, still these). */
                if (kept) {
                    a.x1[b] = a.x0[b];
                    a.q1[b] = a.q0[b];
                    a.v1[b] = a.v0[b];
                    a.w1[b] = a.w0[b];
                }
                if (kept || !is_exact(m.flags)) {
                    a.f1[b] = fd_v3(0.0, 0.0, 0.0);
                    a.t1[b] = fd_v3(0.0, 0.0, 0.0);
                }
                ++b;
                continue;
            }
            int c = k.count++;
            k.body[c] = b;
            k.x[0][c] = a.x0[b].x, k.x[1][c] = a.x0[b].y, k.x[2][c] = a.x0[b].z;
            k.v[0][c] = a.v0[b].x, k.v[1][c] = a.v0[b].y, k.v[2][c] = a.v0[b].z;
            k.w[0][c] = a.w0[b].x, k.w[1][c] = a.w0[b].y, k.w[2][c] = a.w0[b].z;
            k.q[0][c] = a.q0[b].w, k.q[1][c] = a.q0[b].x, k.q[2][c] = a.q0[b].y, k.q[3][c] = a.q0[b].z;
            k.f[0][c] = a.f0[b].x, k.f[1][c] = a.f0[b].y, k.f[2][c] = a.f0[b].z;
            k.t[0][c] = a.t0[b].x, k.t[1][c] = a.t0[b].y, k.t[2][c] = a.t0[b].z;
            k.kick_mass[c] = kick * m.inverse_mass;
            k.kick_inertia[c] = kick * m.inverse_inertia;
            a.f1[b] = fd_v3_scale(m.mass, a.gravity);
            a.t1[b] = fd_v3(0.0, 0.0, 0.0);
            ++b;
        }
        block_checks checks = straight_block(&k, drift);
        if (checks.outside_series) {
            /* The series or the renormalisation does not hold for some
             * body: the whole block again, exactly (the state before the
             * step is still where it was; made in place, the gathering set
             * the new loads, so the old ones go back first). */
            for (int c = 0; c < k.count; ++c) {
                int body = k.body[c];
                if (!kept) {
                    a.f1[body] = (fd_vec3){k.f[0][c], k.f[1][c], k.f[2][c]};
                    a.t1[body] = (fd_vec3){k.t[0][c], k.t[1][c], k.t[2][c]};
                }
                exact_body(world, body, kick, drift, &redone);
            }
            continue;
        }
        probes += checks.probes;
        widest = checks.widest_turn > widest ? checks.widest_turn : widest;
        fastest = checks.fastest > fastest ? checks.fastest : fastest;
        for (int c = 0; c < k.count; ++c) {
            if (quads) {
                c = fd_body_quads_scatter(&k, &a, c, &largest);
                if (c == k.count) {
                    break;
                }
            }
            int body = k.body[c];
            fd_vec3 x = {k.x[0][c], k.x[1][c], k.x[2][c]};
            fd_vec3 v = {k.v[0][c], k.v[1][c], k.v[2][c]};
            fd_vec3 w = {k.w[0][c], k.w[1][c], k.w[2][c]};
            if (periodic->any) {
                x = fd_periodic_wrap_position(periodic, x);
            }
            if (body < a.referenced) {
                fd_vec3 moved = fd_v3_sub(x, a.reference[body]);
                if (periodic->any) {
                    moved = fd_v3_sub(moved, fd_periodic_near_offset(periodic, moved));
                }
                double moved_squared = fd_v3_dot(moved, moved);
                largest = moved_squared > largest ? moved_squared : largest;
            }
            a.x1[body] = x;
            a.v1[body] = v;
            a.w1[body] = w;
            a.q1[body] = (fd_quat){k.q[0][c], k.q[1][c], k.q[2][c], k.q[3][c]};
        }
    }
    return (range_result){fmax(largest, redone.largest), fmax(drift * drift * fastest, redone.step_squared),
                          probes + redone.probes, fmax(widest, redone.widest_turn), 0.0};
}

/* Stage 2 for bodies [begin, end): the straight loop, then the bodies it
 * leaves to exact_body (the world's list of them). */
static range_result advance_range(fd_world* world, int begin, int end, double kick, double drift)
{
    range_result r = advance_straight(world, begin, end, kick, drift);
    const int32_t* special = world->special_bodies;
    int k = 0;
    while (k < world->special_count && special[k] < begin) {
        ++k;
    }
    for (; k < world->special_count && special[k] < end; ++k) {
        exact_body(world, special[k], kick, drift, &r);
    }
    return r;
}

/* Stage 4 for bodies [begin, end): the second half kick (kick > 0), or only
 * the check of the new forces (symplectic Euler, kick = 0). */
static range_result finish_straight(fd_world* world, int begin, int end, double kick)
{
    fd_vec3* restrict v1 = world->velocity;
    fd_vec3* restrict w1 = world->angular_velocity;
    const fd_vec3* restrict forces = world->forces;
    const fd_vec3* restrict torques = world->torques;
    const fd_body_motion* restrict motion = world->motion;
    double probes = 0.0;
    bool quads = fd_permutes_on();
    for (int b = begin; b < end; ++b) {
        if (quads) {
            b = fd_body_quads_finish(v1, w1, forces, torques, motion, kick, b, end, &probes); /* four at a time */
            if (b == end) {
                break;
            }
        }
        const fd_body_motion m = motion[b];
        if (!(m.flags & FD_MOTION_SIMPLE)) {
            continue;
        }
        fd_vec3 v = fd_v3_mul_add(v1[b], kick * m.inverse_mass, forces[b]);
        fd_vec3 w = fd_v3_mul_add(w1[b], kick * m.inverse_inertia, torques[b]);
        v1[b] = v;
        w1[b] = w;
        /* v = v1 + k F with k finite (0 included: 0 x inf is NaN): a
         * non-finite force makes v non-finite, a torque w, so the new
         * velocities' probes answer for the loads too. */
        probes += probe3(v) + probe3(w);
    }
    return (range_result){.probes = probes};
}

static range_result finish_range(fd_world* world, int begin, int end, double kick)
{
    range_result r = kick > 0.0 ? finish_straight(world, begin, end, kick) : (range_result){0};
    if (kick == 0.0) {
        for (int b = begin; b < end; ++b) {
            if (world->motion[b].flags & FD_MOTION_DYNAMIC) {
                r.probes += probe3(world->forces[b]) + probe3(world->torques[b]);
            }
        }
        return r;
    }
    for (int k = 0; k < world->special_count; ++k) {
        int b = world->special_bodies[k];
        const fd_body_motion m = world->motion[b];
        if (b < begin || b >= end || (m.flags & FD_MOTION_SIMPLE)) {
            continue;
        }
        fd_body_state s = fd_world_state(world, b);
        double locks = fd_body_kick(&s, &world->masses[b], world->forces[b], world->torques[b], kick);
        if (world->lock_work != NULL) {
            world->lock_work[b] += locks;
        }
        fd_world_put_state(world, b, &s);
        r.probes += probe3(s.velocity) + probe3(s.angular_velocity);
    }
    return r;
}

/* Stage 2 or 4 for the bodies of [begin, end) that are not dormant, run by
 * run (world->held_runs): a rank holds about one body in R of the world's,
 * in runs between the ones other ranks hold, and the loops above, walking
 * every body, spent a third of the time of one process's whole
 * integration passing over the others (perf, two ranks). */
static range_result over_held(fd_world* world, bool advance, int begin, int end, double kick, double drift)
{
    range_result r = {0};
    for (int k = 0; k < world->held_run_count; ++k) {
        int first = world->held_runs[2 * k] > begin ? world->held_runs[2 * k] : begin;
        int last = world->held_runs[2 * k + 1] < end ? world->held_runs[2 * k + 1] : end;
        if (first >= last) {
            continue;
        }
        range_result run = advance ? advance_range(world, first, last, kick, drift)
                                   : finish_range(world, first, last, kick);
        r.largest = run.largest > r.largest ? run.largest : r.largest;
        r.step_squared = run.step_squared > r.step_squared ? run.step_squared : r.step_squared;
        r.widest_turn = run.widest_turn > r.widest_turn ? run.widest_turn : r.widest_turn;
        r.probes += run.probes;
    }
    return r;
}

/* A loop over the bodies, split into one range per thread (one thread: a
 * plain call). The largest displacement is a maximum, the same whatever the
 * split; the probes only say whether something is not finite. */
static range_result over_bodies(fd_world* world, bool advance, double kick, double drift)
{
    int n = world->body_count, threads = world->def.thread_count;
    if (threads <= 1 || n < 2 * threads) {
        return over_held(world, advance, 0, n, kick, drift);
    }
    double largest = 0.0, step_squared = 0.0, probes = 0.0, widest = 0.0;
    /* Each thread the bodies of its rows in the contact passes, where it can:
     * their state is then in its core's caches for the passes that read it. */
    const fd_neighbor_list* list = &world->penalty->lists[world->penalty->current];
    const int32_t* rows = list->row_start != NULL && list->thread_count == threads && list->body_count == n
                              ? list->thread_row
                              : NULL;
#pragma omp parallel for schedule(static, 1) num_threads(threads) reduction(max : largest, step_squared, widest) \
    reduction(+ : probes)
    for (int t = 0; t < threads; ++t) {
        int begin = rows != NULL ? rows[t] : (int)((int64_t)n * t / threads);
        int end = rows != NULL ? rows[t + 1] : (int)((int64_t)n * (t + 1) / threads);
        range_result r = over_held(world, advance, begin, end, kick, drift);
        largest = r.largest > largest ? r.largest : largest;
        step_squared = r.step_squared > step_squared ? r.step_squared : step_squared;
        widest = r.widest_turn > widest ? r.widest_turn : widest;
        probes += r.probes;
    }
    return (range_result){largest, step_squared, probes, widest, 0.0};
}

/* The list of bodies the straight loops leave to exact_body, and the runs of
 * bodies not dormant, kept for the world's bodies as they are now. */
static bool list_special_bodies(fd_world* world)
{
    if (world->special_listed == world->body_count) {
        return true;
    }
    int count = 0, runs = 0;
    for (int b = 0; b < world->body_count; ++b) {
        uint32_t f = world->motion[b].flags;
        count += is_exact(f);
        runs += !(f & FD_MOTION_DORMANT) && (b == 0 || (world->motion[b - 1].flags & FD_MOTION_DORMANT));
    }
    int32_t* held = realloc(world->held_runs, (size_t)(runs > 0 ? 2 * runs : 2) * sizeof *held);
    if (held == NULL) {
        return false;
    }
    world->held_runs = held;
    world->held_run_count = 0;
    for (int b = 0; b < world->body_count; ++b) {
        if (world->motion[b].flags & FD_MOTION_DORMANT) {
            continue;
        }
        if (world->held_run_count == 0 || held[2 * world->held_run_count - 1] != b) {
            held[2 * world->held_run_count++] = b; /* a run begins */
        }
        held[2 * world->held_run_count - 1] = b + 1;
    }
    int32_t* special = realloc(world->special_bodies, (size_t)(count > 0 ? count : 1) * sizeof *special);
    if (special == NULL) {
        return false;
    }
    count = 0;
    for (int b = 0; b < world->body_count; ++b) {
        uint32_t f = world->motion[b].flags;
        if (is_exact(f)) {
            special[count++] = b;
        }
    }
    world->special_bodies = special;
    world->special_count = count;
    world->special_listed = world->body_count;
    return true;
}

/* Stage 2. Returns whether every new value is finite; *suspect: whether the
 * step may have blown up (fd_world_blow_up_suspected). */
static bool advance_bodies(fd_world* world, double kick, double drift, bool* suspect)
{
    double start = fd_wall_seconds();
    range_result r = over_bodies(world, true, kick, drift);
    fd_penalty* p = world->penalty;
    p->max_displacement_squared = r.largest > p->max_displacement_squared ? r.largest : p->max_displacement_squared;
    *suspect = fd_world_blow_up_suspected(world, r.step_squared, r.widest_turn);
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
    fd_status status = fd_penalty_force_pass(world, record, false); /* set-up: no time has passed */
    if (status == FD_OK) {
        world->contacts_requested = false;
    }
    return status;
}

/* The ledger's work of external loads and locks over the step: in one
 * process booked as every stepper books it (fd_world_book_step_work); on a
 * rank of several, its own bodies' terms kept for the rank that writes the
 * ledger (in ascending index; a zero never changes a total, which is never
 * -0; src/parallel/partition_ledger.c). */
static fd_status book_step_work(fd_world* world, double h)
{
    fd_penalty* p = world->penalty;
    p->body_work_count = 0;
    if (p->book_rows == NULL) {
        fd_world_book_step_work(world, h);
        return FD_OK;
    }
    if (!world->has_external_loads && !world->has_locks) {
        return FD_OK;
    }
    for (int b = 0; b < world->body_count; ++b) {
        if (world->colds[b].type != FD_BODY_DYNAMIC) {
            continue;
        }
        double external, constraint;
        fd_world_body_step_work(world, b, h, &external, &constraint);
        if ((p->book_rows[b] & FD_BOOK_ROW_KIND) == FD_BOOK_ROW_NONE || (external == 0.0 && constraint == 0.0)) {
            continue;
        }
        if (!fd_grow((void**)&p->body_work, &p->body_work_capacity, p->body_work_count + 1,
                     sizeof *p->body_work)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the ledger's work of external loads");
        }
        p->body_work[p->body_work_count++] = (fd_body_work){b, external, constraint};
    }
    return FD_OK;
}

/* A moving wall that has moved half the skin since the list was built, or
 * a turning plane (its range test changes everywhere), makes the list
 * stale: the wall's range test of the last build no longer holds. */
static void check_walls_in_reach(fd_world* world)
{
    fd_penalty* p = world->penalty;
    double half_skin = 0.5 * p->skin;
    int referenced = p->lists[p->current].row_start != NULL ? p->lists[p->current].body_count : 0;
    for (int k = 0; k < world->moving_wall_count; ++k) {
        const fd_moving_wall* wall = &world->moving_walls[k];
        int b = wall->body;
        if (b < referenced) {
            fd_vec3 moved = fd_v3_sub(world->position[b], p->reference_position[b]);
            double tau = world->time - wall->start_time;
            if (!(fd_v3_dot(moved, moved) <= half_skin * half_skin) || (wall->turns_a_plane && tau > 0.0)) {
                p->dirty = true;
            }
        }
    }
}

/* How a step ended. */
typedef enum step_end {
    STEP_DONE,                    /* made and committed (a failed energy test after it included) */
    STEP_UNDONE,                  /* failed and rolled back: the contacts and clocks; the bodies only if kept */
} step_end;

/* One step, in place (in_place) or the careful way. */
static fd_status step_once(fd_world* world, bool in_place, step_end* end)
{
    fd_penalty* p = world->penalty;
    *end = STEP_DONE;
    double dt = world->def.time_step;
    bool verlet = world->def.integrator == FD_INTEGRATOR_VELOCITY_VERLET;
    if (!list_special_bodies(world)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    p->stepping_in_place = in_place;
    world->state_before_kept = !in_place;
    if (in_place && p->tracks_turns) {
        /* Fang & Negrut's turns need the orientations before the step. */
        if (!fd_grow((void**)&p->body_turns, &p->body_turn_capacity, world->body_count, sizeof *p->body_turns)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
        }
        memcpy(p->body_turns, world->orientation, (size_t)world->body_count * sizeof *p->body_turns);
    }
    fd_step_undo undo = fd_world_begin_step(world);

    if (!in_place) {
        swap_buffers(world);
    }
    bool suspect = false;
    bool finite = advance_bodies(world, verlet ? 0.5 * dt : dt, dt, &suspect);
    world->time = (double)(world->step_count + 1) * dt; /* no running-sum round-off */
    world->step_count++;
    if (world->moving_wall_count > 0) {
        fd_world_move_walls(world); /* at the new time, before the contacts read them */
        check_walls_in_reach(world);
    }
    bool record = world->def.contact_output == FD_CONTACT_OUTPUT_EVERY_STEP || world->contacts_requested;
    fd_status status = FD_OK;
    if (finite && suspect) {
        status = fd_world_check_blow_up(world); /* before the force pass: the drift alone tells */
    }
    if (finite && status == FD_OK) {
        status = fd_penalty_force_pass(world, record, true);
    }
    if (status == FD_OK && finite) {
        world->contacts_requested = false;
        finite = finish_step(world, verlet ? 0.5 * dt : 0.0);
    }
    if (status == FD_OK && !finite) {
        status = fd_world_check_finite(world);
        if (status == FD_OK) {
            /* The probe saw a non-finite value that the scan did not name. */
            status = fd_fail(FD_ERR_NON_FINITE, "non-finite state at step %lld, t = %.9g s (%s)",
                             (long long)world->step_count, world->time, fd_world_state_left(world));
        }
    }
    if (status == FD_OK && world->def.energy_ledger) {
        status = book_step_work(world, dt);
        if (status == FD_OK && world->penalty->book_rows == NULL) {
            /* (a rank of several holds a share of a wall's reaction: the
             * rank that writes the ledger books the walls' work from every
             * rank's share, src/parallel/partition_ledger.c) */
            fd_world_book_wall_work(world, dt);
        }
    }
    if (status != FD_OK) {
        /* Back to the last good step: the caller can still write it out
         * (made in place, the bodies are not: fd_penalty_step). */
        if (!in_place) {
            swap_buffers(world);
        }
        fd_penalty_rollback(world);
        fd_world_undo_step(world, &undo);
        *end = STEP_UNDONE;
        return status;
    }
    fd_penalty_commit(world);
    if (world->def.energy_ledger && world->penalty->book_rows == NULL && world->step_count % 64 == 0) {
        /* (On several ranks no rank holds the kinetic energy: docs/mpi.md.) */
        /* The books are the committed ones now; the state stays this step's. */
        status = fd_world_check_energy_gain(world);
        if (status != FD_OK) {
            fd_rewind_forget(world); /* a caller that goes on has a world no replay would make */
            return status;
        }
    }
    return FD_OK;
}

/* Whether the steps can be made in place: not where the ledger books work
 * from the state before the step (external loads' and locks' work,
 * src/world/ledger.c; a moving wall's, src/world/wall_motion.c), which the
 * careful way keeps in the saved buffers. */
static bool steps_in_place(const fd_world* world)
{
    return !(world->def.energy_ledger && (world->has_external_loads || world->has_locks ||
                                          world->moving_wall_count > 0));
}

/* After a step made in place failed: the world back at its rewind point,
 * and the steps from there to `last_good` made again, the last of them
 * recording its contacts if it did the first time (`recorded`). */
static fd_status replay_to(fd_world* world, int64_t last_good, bool recorded)
{
    bool requested = world->contacts_requested; /* for the failing step, which comes after */
    fd_status status = fd_rewind_restore(world);
    while (status == FD_OK && world->step_count < last_good) {
        world->contacts_requested = world->step_count + 1 == last_good && recorded;
        step_end end;
        status = step_once(world, true, &end);
    }
    world->contacts_requested = requested;
    world->event_count = 0; /* the caller had the replayed steps' events */
    return status;
}

fd_status fd_penalty_step(fd_world* world)
{
    fd_penalty* p = world->penalty;
    step_end end;
    if (!steps_in_place(world)) {
        fd_rewind_forget(world); /* the careful step swaps the saved buffers */
        return step_once(world, false, &end);
    }
    /* A rank of several keeps no rewind point: a failure stops every rank,
     * and none writes the state of the last good step (docs/mpi.md). */
    bool rewinds = !world->outlets_by_caller;
    if (rewinds && fd_rewind_due(world)) {
        if (fd_rewind_taken_lately(world)) {
            fd_rewind_forget(world);
            return step_once(world, false, &end); /* changed again soon after the last one */
        }
        fd_status taken = fd_rewind_take(world);
        if (taken != FD_OK) {
            return taken;
        }
    }
    int64_t last_good = world->step_count;
    bool recorded = !p->unrecorded; /* the last good step's contacts were recorded */
    fd_status status = step_once(world, true, &end);
    if (status == FD_OK || end != STEP_UNDONE || !rewinds) {
        return status;
    }
    /* The failing step again, the careful way: it fails again (the same
     * bits), names the same body in its message, and leaves the state of the
     * last good step. */
    status = replay_to(world, last_good, recorded);
    fd_rewind_forget(world);
    return status == FD_OK ? step_once(world, false, &end) : status;
}
