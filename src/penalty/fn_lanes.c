/* Fang & Negrut's sphere lanes in the force pass (penalty_internal.h): which
 * contacts take them, their inputs gathered from the world and the pool,
 * their loads and springs put back. The lanes themselves are the model's
 * (contact/fang_negrut_lane.h); law_pass.c decides when.
 *
 * Must not: change what a contact computes (the lanes give the registry
 * path's bits), or read a body's cold record. */
#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "contact/fang_negrut_lane.h"
#include "penalty/penalty_internal.h"
#include "penalty/round_pair.h"
#include "world/world_store.h"

static bool isotropic(fd_vec3 inertia) { return inertia.x == inertia.y && inertia.y == inertia.z; }

void fd_fn_pair_constants(const fd_world* world, const fd_contact_law* law, int shapes, int i, int j, double* out)
{
    /* The dashpot as normal.c forms it, with the effective radius
     * round_pair.c gives the pair (a plane curves nowhere; the factor is 1
     * for the lanes' laws). A plane's radius is not read. */
    double radius_i = shapes == FD_FN_PLANE_I ? 0.0 : world->bounding_radii[i];
    double radius_j = shapes == FD_FN_PLANE_J ? 0.0 : world->bounding_radii[j];
    const fd_vec3 zero = {0.0, 0.0, 0.0};
    const fd_vec3 directions[2] = {zero, zero};
    double kappa_i = shapes == FD_FN_PLANE_I ? 0.0 : 1.0 / radius_i;
    double kappa_j = shapes == FD_FN_PLANE_J ? 0.0 : 1.0 / radius_j;
    const double curvature_i[2] = {kappa_i, kappa_i}, curvature_j[2] = {kappa_j, kappa_j};
    double effective_radius = fd_effective_radius(curvature_i, directions, curvature_j, directions);
    double mass_i = world->motion[i].mass, mass_j = world->motion[j].mass;
    out[FD_FN_PAIR_DASHPOT] = fd_normal_dashpot_prefactor(law, fd_pair_effective_mass(mass_i, mass_j), effective_radius);
    out[FD_FN_PAIR_EFFECTIVE_RADIUS] = effective_radius;
    out[FD_FN_PAIR_HERTZ] = law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ
                                ? fd_hertz_constant(law->derived[FD_MECHANISM_NORMAL], effective_radius)
                                : 0.0;
    out[FD_FN_PAIR_RADIUS] = radius_i;
    out[FD_FN_PAIR_RADIUS + 1] = radius_j;
    out[FD_FN_PAIR_MASS] = mass_i;
    out[FD_FN_PAIR_MASS + 1] = mass_j;
    /* fang_negrut.c turns the axis into a body's frame unless its moments
     * are equal: such a pair takes the registry path (fd_fn_gather). */
    fd_vec3 inertia_i = world->masses[i].inertia, inertia_j = world->masses[j].inertia;
    out[FD_FN_PAIR_INERTIA] = isotropic(inertia_i) ? inertia_i.x : NAN;
    out[FD_FN_PAIR_INERTIA + 1] = isotropic(inertia_j) ? inertia_j.x : NAN;
}

static void put_turn(double (*turn)[FD_FN_BLOCK], int c, fd_quat q)
{
    turn[0][c] = q.w;
    turn[1][c] = q.x;
    turn[2][c] = q.y;
    turn[3][c] = q.z;
}

bool fd_fn_gather(const fd_world* world, fd_fn_block* b, int c, int shapes, int i, int j, int32_t slot,
                  const fd_fn_lane_law* law)
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
    put_turn(b->turn_i, c, p->body_turns[i]);
    put_turn(b->turn_j, c, p->body_turns[j]);
    b->radius_i[c] = constants[FD_FN_PAIR_RADIUS];
    b->radius_j[c] = constants[FD_FN_PAIR_RADIUS + 1];
    b->mass_i[c] = constants[FD_FN_PAIR_MASS];
    b->mass_j[c] = constants[FD_FN_PAIR_MASS + 1];
    b->inertia_i[c] = inertia_i;
    b->inertia_j[c] = inertia_j;
    b->dashpot[c] = constants[FD_FN_PAIR_DASHPOT];
    b->effective_radius[c] = constants[FD_FN_PAIR_EFFECTIVE_RADIUS];
    b->hertz_constant[c] = constants[FD_FN_PAIR_HERTZ];
    const double* history = fd_springs_before(&p->pool, slot, world->history_stride);
    for (int k = 0; k < FD_FN_SLIDE_HISTORY; ++k) {
        b->slide[k][c] = history[law->slide_offset + k];
    }
    for (int k = 0; law->has_roll && k < FD_FN_ROLL_HISTORY; ++k) {
        b->roll[k][c] = history[law->roll_offset + k];
    }
    for (int k = 0; law->has_spin && k < FD_FN_SPIN_HISTORY; ++k) {
        b->spin[k][c] = history[law->spin_offset + k];
    }
    return true;
}

fd_pair_loads fd_fn_scatter(fd_world* world, const fd_fn_block* b, int c, const fd_fn_lane_law* law, int32_t slot)
{
    fd_contact_pool* pool = &world->penalty->pool;
    int stride = world->history_stride;
    const double* before = fd_springs_before(pool, slot, stride);
    double* after = fd_springs_after(pool, slot, stride);
    /* The whole block as the registry path leaves it: what the law keeps
     * nothing in (another law's room) carried over, the law's own springs
     * from the lane. */
    for (int k = law->history_size; k < stride; ++k) {
        after[k] = before[k];
    }
    for (int k = 0; k < FD_FN_SLIDE_HISTORY; ++k) {
        after[law->slide_offset + k] = b->slide[k][c];
    }
    for (int k = 0; law->has_roll && k < FD_FN_ROLL_HISTORY; ++k) {
        after[law->roll_offset + k] = b->roll[k][c];
    }
    for (int k = 0; law->has_spin && k < FD_FN_SPIN_HISTORY; ++k) {
        after[law->spin_offset + k] = b->spin[k][c];
    }
    fd_pair_loads out;
    out.force = fd_v3(b->force[0][c], b->force[1][c], b->force[2][c]);
    out.torque_i = fd_v3(b->torque_i[0][c], b->torque_i[1][c], b->torque_i[2][c]);
    out.torque_j = fd_v3(b->torque_j[0][c], b->torque_j[1][c], b->torque_j[2][c]);
    out.slip = fd_entry_slip_of_flags((unsigned)b->slip[c]);
    return out;
}

bool fd_fn_single(fd_world* world, const fd_fn_lane_law* law, fd_fn_block* block, int shapes, int i, int j,
                  int32_t slot, fd_pair_loads* out)
{
    if (!fd_fn_gather(world, block, 0, shapes, i, j, slot, law)) {
        return false;
    }
    block->count = 1;
    fd_fn_block_run(block, law, (fd_fn_shapes)shapes);
    if (block->fallback[0] != 0.0) {
        return false;
    }
    *out = fd_fn_scatter(world, block, 0, law, slot);
    return true;
}
