/* Every body's state in one call (the Python package's numpy arrays,
 * python/fricdem): a loop over fd_body_get_state / fd_body_set_state in C
 * instead of one foreign call per body.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#include <math.h>

#include "core/error.h"
#include "world/world_store.h"

static bool range_is_valid(const fd_world* world, int first, int count)
{
    return world != NULL && first >= 0 && count >= 0 && first <= world->body_count - count;
}

fd_status fd_world_get_states(const fd_world* world, int first, int count, fd_body_state* out)
{
    if (!range_is_valid(world, first, count) || (count > 0 && out == NULL)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_get_states: bodies [%d, %d) are not all slots of the world",
                       first, first + count);
    }
    const fd_body_state removed = {{NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}, {NAN, NAN, NAN}, {NAN, NAN, NAN}};
    for (int k = 0; k < count; ++k) {
        int b = first + k;
        out[k] = (world->motion[b].flags & FD_MOTION_REMOVED) ? removed : fd_world_state(world, b);
    }
    return FD_OK;
}

fd_status fd_world_set_states(fd_world* world, int first, int count, const fd_body_state* states)
{
    if (!range_is_valid(world, first, count) || (count > 0 && states == NULL)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_set_states: bodies [%d, %d) are not all slots of the world",
                       first, first + count);
    }
    fd_world_note_change(world);
    for (int k = 0; k < count; ++k) {
        int b = first + k;
        if ((world->motion[b].flags & FD_MOTION_REMOVED) || world->colds[b].type == FD_BODY_STATIC) {
            continue; /* walls move by their motion; a removed body's slot holds nothing */
        }
        fd_status status = fd_body_set_state(world, fd_world_body_at(world, b), &states[k]);
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}
