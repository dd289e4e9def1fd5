/* What a run may change between two steps, as a stage of a scene does
 * (docs/stages.md): gravity and the inlets' activity. (Wall motions are in
 * wall_motion.c.) Each change keeps the energy ledger closed and is kept by
 * checkpoints, so that a resumed run sees it too.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#include <math.h>

#include "core/error.h"
#include "world/world_store.h"

fd_status fd_world_set_gravity(fd_world* world, fd_vec3 gravity)
{
    if (world == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_set_gravity: null world");
    }
    fd_world_note_change(world);
    if (!fd_v3_is_finite(gravity)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "world: gravity must be finite");
    }
    fd_vec3 change = fd_v3_sub(gravity, world->def.gravity);
    for (int b = 0; b < world->body_count; ++b) {
        if (world->colds[b].type != FD_BODY_DYNAMIC) {
            continue;
        }
        double m = world->colds[b].mass;
        /* The potential -m g . x jumps by -m (g' - g) . x with the bodies where
         * they are: no body did that work, the field did; booked as external. */
        world->energy_totals.external_work -= m * fd_v3_dot(change, world->position[b]);
        /* The loads the next kick uses hold the old weight: the new one. */
        if (world->forces != NULL) {
            world->forces[b] = fd_v3_mul_add(world->forces[b], m, change);
        }
    }
    world->def.gravity = gravity;
    return FD_OK;
}

fd_status fd_world_set_inlet_active(fd_world* world, int index, bool active)
{
    if (world == NULL || index < 0 || index >= world->inlet_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_set_inlet_active: no inlet %d", index);
    }
    fd_world_note_change(world);
    fd_inlet* inlet = &world->inlets[index];
    if (active && inlet->paused) {
        /* Only the time after its start counts as standing still. */
        double start = fmax(inlet->paused_since, inlet->def.start_time);
        inlet->paused_total += fmax(world->time - start, 0.0);
    } else if (!active && !inlet->paused) {
        inlet->paused_since = world->time;
    }
    inlet->paused = !active;
    return FD_OK;
}

fd_status fd_world_set_outlet_active(fd_world* world, int index, bool active)
{
    if (world == NULL || index < 0 || index >= world->outlet_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_set_outlet_active: no outlet %d", index);
    }
    fd_world_note_change(world);
    /* Its counts go on: a closed outlet removes nothing and adds nothing. */
    world->outlets[index].closed = !active;
    return FD_OK;
}
