/* The round pairs' image offset and touching test (round_pair.c has the
 * rest), inline for the distance pass, which tests every listed round pair
 * each step: fd_collide's test from the centres, bit for bit.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#ifndef FD_PENALTY_ROUND_PAIR_H
#define FD_PENALTY_ROUND_PAIR_H

#include "penalty/penalty_internal.h"
#include "world/world_store.h"

/* Body j's position as fd_collide sees it: its image across a periodic face
 * for two non-wall bodies (distance_pass.c, generic_distance). */
static inline fd_vec3 fd_round_pair_image_offset(const fd_world* world, int i, int j)
{
    if (!world->periodic.any || world->is_wall[i] || world->is_wall[j]) {
        return fd_v3(0.0, 0.0, 0.0);
    }
    return fd_periodic_near_offset(&world->periodic, fd_v3_sub(world->position[i], world->position[j]));
}

static inline bool fd_round_pair_touches(const fd_world* world, int i, int j, int shapes, double margin)
{
    if (shapes == FD_PAIR_SPHERE_SPHERE) {
        fd_vec3 image_j = fd_v3_add(world->position[j], fd_round_pair_image_offset(world, i, j));
        double distance = fd_v3_length(fd_v3_sub(world->position[i], image_j));
        double penetration = world->bounding_radii[i] + world->bounding_radii[j] - distance;
        return penetration > -margin;
    }
    int sphere = shapes == FD_PAIR_SPHERE_PLANE ? i : j, plane = shapes == FD_PAIR_SPHERE_PLANE ? j : i;
    double height = fd_v3_dot(fd_v3_sub(world->position[sphere], world->position[plane]), world->plane_normals[plane]);
    double penetration = world->bounding_radii[sphere] - height;
    return penetration > -margin;
}

#endif
