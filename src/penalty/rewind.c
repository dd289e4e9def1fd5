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
    return sizeof *rewind + (size_t)c->capacity * per_contact;
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
    fd_status status = fd_penalty_gather_again(world, &r->contacts); /* (into its arrays: no new pages) */
    if (status != FD_OK) {
        return status;
    }
    fd_world_copy_states(world, false);
    r->clocks = fd_world_step_marks(world);
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
    fd_world_copy_states(world, true);
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
