/* The contacts of removed bodies end (penalty.h, fd_penalty_release_removed;
 * src/engine/removal.c gives the design).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <string.h>

#include "core/error.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

bool fd_keep_released(fd_penalty* p, int i, int j, int32_t slot)
{
    if (fd_book_row_of(p->book_rows, i, j) == FD_BOOK_ROW_NONE) {
        return true;
    }
    if (p->released_count == p->released_capacity &&
        !fd_grow((void**)&p->released, &p->released_capacity, p->released_count + 1, sizeof *p->released)) {
        return false;
    }
    fd_book_entry* entry = &p->released[p->released_count++];
    memset(entry, 0, sizeof *entry);
    entry->key = (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
    for (int m = 0; m < p->pool.book_count; ++m) {
        entry->books[m].stored = fd_slot_stored_before(&p->pool, slot, m);
    }
    return true;
}

fd_status fd_penalty_release_removed(fd_world* world)
{
    fd_penalty* p = world->penalty;
    p->released_count = 0;
    p->dirty = true; /* the next pass builds the list without the removed bodies' entries */
    fd_neighbor_list* list = &p->lists[p->current];
    if (list->row_start == NULL) {
        return FD_OK;
    }
    fd_contact_pool* pool = &p->pool;
    fd_energy_totals* totals = &world->energy_totals;
    const bool* removed = world->is_removed;
    bool books =
        world->def.energy_ledger && pool->book_count > 0 && (pool->books[0] != NULL || pool->stored[0] != NULL);
    /* One pass in key order over the entries: the books reach the totals in
     * the same order for any thread count. A slot removed earlier has no
     * contacts left, so every contact of a marked slot is one to end. */
    for (int i = 0; i < list->body_count; ++i) {
        for (int64_t e = list->row_start[i]; e < list->row_start[i + 1]; ++e) {
            int32_t slot = list->contact[e];
            if (slot == FD_NO_CONTACT || (!removed[i] && !removed[list->partner[e]])) {
                continue;
            }
            if (books && p->book_rows != NULL) {
                if (!fd_keep_released(p, i, list->partner[e], slot)) {
                    return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the ledger's released energies");
                }
            }
            for (int m = 0; books && p->book_rows == NULL && m < pool->book_count; ++m) {
                /* Its springs' energy leaves with it; what it dissipated is
                 * in the totals already (fd_book_step_sums). */
                double stored = fd_slot_stored_before(pool, slot, m);
                totals->released += stored;
                world->stored_energy[m] -= stored;
            }
            if (fd_grow((void**)&pool->free_slots, &pool->free_capacity, pool->free_count + 1,
                        sizeof *pool->free_slots)) {
                pool->free_slots[pool->free_count++] = slot;
            }
            list->contact[e] = FD_NO_CONTACT;
            p->touching_count--;
        }
    }
    return FD_OK;
}
