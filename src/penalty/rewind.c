/* The rewind point of the penalty stepper's steps made in place.
 *
 * Why: the stepper once wrote each step's state into a second set of
 * buffers and kept the first for a rollback. Every step then streamed six
 * more arrays (the new buffers' lines are read before they are written):
 * about a third of the integration's memory traffic, 10 % of the chute's
 * step (bench/README.md). Now the bodies are stepped in place, and a failed
 * step, which is rare, pays instead: the world goes back to its rewind point,
 * the steps since are made again, and the failing step once more the careful
 * way (src/penalty/stepper.c).
 *
 * A rewind point is what a checkpoint keeps of the world, in memory: the
 * bodies' states and loads (the next drift reads the loads), the contacts as
 * fd_penalty_gather gives them (springs, ids, first steps, state bytes,
 * books), and the world's clocks and books (fd_step_undo). Making the steps
 * again gives the same bits because a restart does (docs/restart.md): the
 * neighbour list built at another step holds the same contacts, and every
 * sum is in key order. It holds only while nothing but the steps changed
 * the world: every change from outside (fd_world_note_change) and every
 * careful step (it uses the saved buffers) makes the next step take a new
 * one.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

typedef struct fd_rewind {
    bool valid;
    int64_t taken_at;             /* the step count when last taken, valid or not since */
    uint64_t changes;             /* world->changes when taken */
    int body_count;
    fd_step_undo clocks;          /* step count, time, next contact id, ledger totals */
    fd_penalty_contacts contacts;
} fd_rewind;

/* The state arrays a step changes, with their saved buffers. */
typedef struct state_array {
    size_t live, saved;           /* offsets in fd_world */
    size_t element_size;
} state_array;

#define STATE_ARRAY(field)                                                                                             \
    {offsetof(fd_world, field), offsetof(fd_world, saved_##field), sizeof *((fd_world*)NULL)->field}
static const state_array state_arrays[] = {
    STATE_ARRAY(position), STATE_ARRAY(orientation), STATE_ARRAY(velocity),
    STATE_ARRAY(angular_velocity), STATE_ARRAY(forces), STATE_ARRAY(torques),
};
#undef STATE_ARRAY

static void copy_states(fd_world* world, bool restore)
{
    size_t n = (size_t)world->body_count;
    for (size_t k = 0; k < sizeof state_arrays / sizeof state_arrays[0]; ++k) {
        void* live = *(void**)((char*)world + state_arrays[k].live);
        void* saved = *(void**)((char*)world + state_arrays[k].saved);
        if (n > 0) {
            memcpy(restore ? live : saved, restore ? saved : live, n * state_arrays[k].element_size);
        }
    }
}

void fd_rewind_free(fd_rewind* rewind)
{
    if (rewind != NULL) {
        fd_penalty_contacts_free(&rewind->contacts);
        free(rewind);
    }
}

size_t fd_rewind_memory(const fd_rewind* rewind)
{
    if (rewind == NULL) {
        return 0;
    }
    const fd_penalty_contacts* c = &rewind->contacts;
    size_t per_contact = 2 * sizeof(int32_t) + sizeof(uint64_t) + sizeof(int64_t) + sizeof(uint8_t) +
                         (size_t)c->history_stride * sizeof(double) + (size_t)c->book_count * sizeof(fd_energy_books);
    return sizeof *rewind + (size_t)c->count * per_contact;
}

bool fd_rewind_taken_lately(const fd_world* world)
{
    const fd_rewind* r = world->penalty->rewind;
    return r != NULL && world->step_count >= r->taken_at && world->step_count - r->taken_at < FD_REWIND_SPACING;
}

bool fd_rewind_due(const fd_world* world)
{
    const fd_rewind* r = world->penalty->rewind;
    return r == NULL || !r->valid || r->changes != world->changes || r->body_count != world->body_count ||
           world->step_count - r->clocks.step_count >= FD_REWIND_INTERVAL;
}

fd_status fd_rewind_take(fd_world* world)
{
    fd_penalty* p = world->penalty;
    if (p->rewind == NULL) {
        p->rewind = calloc(1, sizeof *p->rewind);
        if (p->rewind == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the rewind point");
        }
    }
    fd_rewind* r = p->rewind;
    r->valid = false;
    fd_penalty_contacts_free(&r->contacts);
    fd_status status = fd_penalty_gather(world, &r->contacts);
    if (status != FD_OK) {
        return status;
    }
    copy_states(world, false);
    r->clocks = (fd_step_undo){.next_contact_id = world->next_contact_id,
                               .energy_totals = world->energy_totals,
                               .time = world->time,
                               .step_count = world->step_count};
    memcpy(r->clocks.stored_energy, world->stored_energy, sizeof r->clocks.stored_energy);
    r->changes = world->changes;
    r->body_count = world->body_count;
    r->taken_at = world->step_count;
    r->valid = true;
    return FD_OK;
}

fd_status fd_rewind_restore(fd_world* world)
{
    fd_rewind* r = world->penalty->rewind;
    if (r == NULL || !r->valid || r->body_count != world->body_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "internal: no rewind point to go back to at step %lld",
                       (long long)world->step_count);
    }
    copy_states(world, true);
    fd_world_undo_step(world, &r->clocks);
    world->event_count = 0;
    return fd_penalty_install(world, &r->contacts);
}

void fd_rewind_forget(fd_world* world)
{
    if (world->penalty->rewind != NULL) {
        world->penalty->rewind->valid = false;
    }
}
