/* Fang & Negrut's sphere lanes' inputs gathered from the world and the
 * pool, and their loads put back (fn_lanes.c has the rest, and the springs).
 * Inline: the law pass calls them once per contact of a lane, and a call
 * would cost more than the copies themselves.
 *
 * Must not: change what a contact computes (the lanes give the registry
 * path's bits), or read a body's cold record. */
#ifndef FD_PENALTY_FN_LANES_H
#define FD_PENALTY_FN_LANES_H

#include <math.h>

#include "contact/fang_negrut_lane.h"
#include "penalty/penalty_internal.h"
#include "penalty/round_pair.h"
#include "world/world_store.h"

static inline void fd_fn_put_turn(double (*turn)[FD_FN_BLOCK], int c, fd_quat q)
{
    turn[0][c] = q.w;
    turn[1][c] = q.x;
    turn[2][c] = q.y;
    turn[3][c] = q.z;
}

/* Lane c of the block: the pair's inputs; false when the pair must take
 * the registry path instead (a body whose moments differ). */
static inline __attribute__((always_inline)) bool fd_fn_gather(const fd_world* world, fd_fn_block* b, int c, int shapes,
                                                               int i, int j, int32_t slot, const fd_fn_lane_law* law)
{
    const fd_penalty* p = world->penalty;
    const double* constants = p->pool.constants + (size_t)slot * (size_t)p->constant_stride;
    double inertia_i = constants[FD_FN_PAIR_INERTIA], inertia_j = constants[FD_FN_PAIR_INERTIA + 1];
    if (isnan(inertia_i) || isnan(inertia_j)) {
        return false; /* a body whose moments differ: the registry path */
    }
    FD_LANE_STORE3(b->position_i, c, world->position[i]);
    if (shapes == FD_FN_SPHERES) {
        FD_LANE_STORE3(b->position_j, c, fd_v3_add(world->position[j], fd_round_pair_image_offset(world, i, j)));
    } else {
        FD_LANE_STORE3(b->position_j, c, world->position[j]); /* a wall's pair has no image */
        FD_LANE_STORE3(b->plane_normal, c, world->plane_normals[shapes == FD_FN_PLANE_I ? i : j]);
    }
    FD_LANE_STORE3(b->velocity_i, c, world->velocity[i]);
    FD_LANE_STORE3(b->velocity_j, c, world->velocity[j]);
    FD_LANE_STORE3(b->spin_i, c, world->angular_velocity[i]);
    FD_LANE_STORE3(b->spin_j, c, world->angular_velocity[j]);
    fd_fn_put_turn(b->turn_i, c, p->body_turns[i]);
    fd_fn_put_turn(b->turn_j, c, p->body_turns[j]);
    b->radius_i[c] = constants[FD_FN_PAIR_RADIUS];
    b->radius_j[c] = constants[FD_FN_PAIR_RADIUS + 1];
    b->mass_i[c] = constants[FD_FN_PAIR_MASS];
    b->mass_j[c] = constants[FD_FN_PAIR_MASS + 1];
    b->inertia_i[c] = inertia_i;
    b->inertia_j[c] = inertia_j;
    b->dashpot[c] = constants[FD_FN_PAIR_DASHPOT];
    b->effective_radius[c] = constants[FD_FN_PAIR_EFFECTIVE_RADIUS];
    b->hertz_constant[c] = constants[FD_FN_PAIR_HERTZ];
    b->slot[c] = slot; /* its springs: fd_fn_gather_springs, for the whole block */
    return true;
}

/* Lane c's loads (its springs: fd_fn_scatter_springs). */
static inline __attribute__((always_inline)) fd_pair_loads fd_fn_lane_loads(const fd_fn_block* b, int c)
{
    fd_pair_loads out;
    out.force = FD_LANE_LOAD3(b->force, c);
    out.torque_i = FD_LANE_LOAD3(b->torque_i, c);
    out.torque_j = FD_LANE_LOAD3(b->torque_j, c);
    out.slip = fd_entry_slip_of_flags((unsigned)b->slip[c]);
    return out;
}

/* The springs of the block's lanes [0, count) from the pool (the slots
 * fd_fn_gather kept), and back for the lanes the block did (no fallback):
 * the contact's whole block as the registry path leaves it, the law's
 * springs from the lanes and what lies past them (another law's room)
 * carried over. Four lanes at a time by permutes where the processor has
 * them (core/permute.h: the same bits). fn_lanes.c. */
void fd_fn_gather_springs(fd_fn_block* b, const fd_fn_lane_law* law, const fd_contact_pool* pool, int stride);
void fd_fn_scatter_springs(const fd_fn_block* b, const fd_fn_lane_law* law, fd_contact_pool* pool, int stride);

#endif
