/* The penalty stepper's contacts for a checkpoint (src/io/checkpoint.c):
 * gathered from the pool in key order, and put back into a restored world.
 *
 * What is kept of a contact is what the next force pass reads of it: its
 * pair (i, j), id, first step, state byte (this pass's and the last pass's
 * touch and slip bits: the events compare them), its springs and its
 * lifetime books. Its pair constants are not kept: fd_pair_constants
 * computes them from the law and the two bodies, the same bits as when the
 * contact began. The neighbour list is not kept either: the restored world
 * builds one at the checkpoint's state, and the results do not depend on
 * when the list is built (penalty.h; tests/test_penalty.c checks it for the
 * skin, tests/test_restart.c for the restart itself).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

static void free_arrays(fd_penalty_contacts* contacts)
{
    FD_FREE_ALL(contacts->pairs, contacts->id, contacts->first_step, contacts->state, contacts->springs,
                contacts->books);
    contacts->capacity = 0;
}

void fd_penalty_contacts_free(fd_penalty_contacts* contacts)
{
    free_arrays(contacts);
    memset(contacts, 0, sizeof *contacts);
}

static bool allocate(fd_penalty_contacts* c, int64_t count)
{
    size_t n = (size_t)(count > 0 ? count : 1);
    c->capacity = (int64_t)n;
    c->pairs = malloc(2 * n * sizeof *c->pairs);
    c->id = malloc(n * sizeof *c->id);
    c->first_step = malloc(n * sizeof *c->first_step);
    c->state = malloc(n * sizeof *c->state);
    c->springs = malloc(n * (size_t)(c->history_stride > 0 ? c->history_stride : 1) * sizeof *c->springs);
    c->books = c->book_count > 0 ? malloc(n * (size_t)c->book_count * sizeof *c->books) : NULL;
    return c->pairs && c->id && c->first_step && c->state && c->springs && (c->book_count == 0 || c->books);
}

static fd_status gather(const fd_world* world, fd_row_filter rows, fd_pair_filter wanted, const void* context,
                        fd_penalty_contacts* out, bool reuse);

fd_status fd_penalty_gather(const fd_world* world, fd_penalty_contacts* out)
{
    return gather(world, NULL, NULL, NULL, out, false);
}

fd_status fd_penalty_gather_again(const fd_world* world, fd_penalty_contacts* out)
{
    return gather(world, NULL, NULL, NULL, out, true);
}

fd_status fd_penalty_gather_where(const fd_world* world, fd_row_filter rows, fd_pair_filter wanted,
                                  const void* context, fd_penalty_contacts* out)
{
    return gather(world, rows, wanted, context, out, false);
}

static fd_status gather(const fd_world* world, fd_row_filter rows, fd_pair_filter wanted, const void* context,
                        fd_penalty_contacts* out, bool reuse)
{
    const fd_penalty* p = world->penalty;
    const fd_neighbor_list* list = &p->lists[p->current];
    const fd_contact_pool* pool = &p->pool;
    int book_count = pool->books[0] != NULL || pool->stored[0] != NULL ? pool->book_count : 0;
    if (!reuse) {
        memset(out, 0, sizeof *out);
    } else if (out->history_stride != world->history_stride || out->book_count != book_count ||
               out->lifetime_books != pool->lifetime_books) {
        fd_penalty_contacts_free(out);
    }
    out->history_stride = world->history_stride;
    out->book_count = book_count;
    out->lifetime_books = pool->lifetime_books;
    int64_t count = 0;
    for (int i = 0; list->row_start != NULL && i < list->body_count; ++i) {
        if (rows != NULL && !rows(context, i)) {
            continue;
        }
        for (int64_t e = list->row_start[i]; e < list->row_start[i + 1]; ++e) {
            count += list->contact[e] != FD_NO_CONTACT && (wanted == NULL || wanted(context, i, list->partner[e]));
        }
    }
    /* (a first gather allocates even for no contact: its arrays are never null) */
    bool room = reuse && out->pairs != NULL && count <= out->capacity;
    if (!room && (free_arrays(out), !allocate(out, reuse ? count + count / 8 : count))) {
        fd_penalty_contacts_free(out);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld contacts", (long long)count);
    }
    int stride = out->history_stride;
    int64_t k = 0;
    for (int i = 0; list->row_start != NULL && i < list->body_count; ++i) {
        if (rows != NULL && !rows(context, i)) {
            continue;
        }
        for (int64_t e = list->row_start[i]; e < list->row_start[i + 1]; ++e) {
            int32_t slot = list->contact[e];
            if (slot == FD_NO_CONTACT || (wanted != NULL && !wanted(context, i, list->partner[e]))) {
                continue;
            }
            out->pairs[2 * k] = i;
            out->pairs[2 * k + 1] = list->partner[e];
            out->id[k] = pool->id[slot];
            out->first_step[k] = pool->first_step[slot];
            out->state[k] = pool->state[slot];
            memcpy(out->springs + (size_t)k * (size_t)stride, fd_springs_before(pool, slot, stride),
                   (size_t)stride * sizeof(double));
            if (out->book_count > 0 && out->lifetime_books) {
                memcpy(out->books + (size_t)k * (size_t)out->book_count, fd_books_before(pool, slot),
                       (size_t)out->book_count * sizeof(fd_energy_books));
            } else if (out->book_count > 0) {
                fd_energy_books* books = out->books + (size_t)k * (size_t)out->book_count;
                for (int m = 0; m < out->book_count; ++m) {
                    books[m] = (fd_energy_books){.stored = fd_stored_before(pool, slot)[m]};
                }
            }
            ++k;
        }
    }
    out->count = k;
    return FD_OK;
}

/* The entry of pair (i, j) in the list (rows hold their partners in
 * ascending order), or -1. */
static int64_t find_entry(const fd_neighbor_list* list, int i, int j)
{
    int64_t low = list->row_start[i], high = list->row_start[i + 1];
    while (low < high) {
        int64_t middle = low + (high - low) / 2;
        if (list->partner[middle] < j) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low < list->row_start[i + 1] && list->partner[low] == j ? low : -1;
}

/* Contact k of `in` into slot `slot` of the pool, at entry e of the list:
 * its pair constants made again (the same bits as when it began), its
 * springs and books in both buffers, as a rebuild leaves them. */
static void put_contact(fd_world* world, fd_neighbor_list* list, int64_t e, int32_t slot,
                        const fd_penalty_contacts* in, int64_t k)
{
    fd_penalty* p = world->penalty;
    fd_contact_pool* pool = &p->pool;
    int stride = world->history_stride;
    int i = in->pairs[2 * k], j = in->pairs[2 * k + 1];
    list->contact[e] = slot;
    if (list->kind[e] < FD_PAIR_GENERIC) {
        fd_pair_constants(world, &world->laws[list->law[e]], i, j,
                          pool->constants + (size_t)slot * (size_t)p->constant_stride);
    } else if (fd_fn_lane_law_of_pair(world->penalty, list, e) >= 0) {
        fd_fn_pair_constants(world, &world->laws[list->law[e]], list->kind[e] - FD_PAIR_GENERIC_SPHERES, i, j,
                             pool->constants + (size_t)slot * (size_t)p->constant_stride);
    }
    const double* springs = in->springs + (size_t)k * (size_t)stride;
    memcpy(fd_springs_before(pool, slot, stride), springs, (size_t)stride * sizeof(double));
    memcpy(fd_springs_after(pool, slot, stride), springs, (size_t)stride * sizeof(double));
    if (p->book_count > 0 && p->lifetime_books) {
        /* Both buffers, as a rebuild does: what a pass never changes is never written again. */
        const fd_energy_books* books = in->books + (size_t)k * (size_t)in->book_count;
        memcpy(fd_books_before(pool, slot), books, (size_t)p->book_count * sizeof(fd_energy_books));
        memcpy(fd_books_after(pool, slot), books, (size_t)p->book_count * sizeof(fd_energy_books));
    } else if (p->book_count > 0) {
        const fd_energy_books* books = in->books + (size_t)k * (size_t)in->book_count;
        for (int m = 0; m < p->book_count; ++m) {
            fd_stored_before(pool, slot)[m] = fd_stored_after(pool, slot)[m] = books[m].stored;
        }
    }
    pool->id[slot] = in->id[k];
    pool->first_step[slot] = in->first_step[k];
    pool->state[slot] = in->state[k];
}

/* The contacts of `in` (pairs in key order) into the entries of their
 * pairs, in slots first_slot, first_slot + 1, ...; `what` and `why` name
 * the source in the messages. */
static fd_status place_contacts(fd_world* world, fd_neighbor_list* list, const fd_penalty_contacts* in,
                                int64_t first_slot, const char* what, const char* why)
{
    uint64_t previous_key = 0;
    for (int64_t k = 0; k < in->count; ++k) {
        int i = in->pairs[2 * k], j = in->pairs[2 * k + 1];
        uint64_t key = (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
        if (i < 0 || j <= i || j >= world->body_count || (k > 0 && key <= previous_key)) {
            return fd_fail(FD_ERR_PARSE, "%s: contact %lld names bodies %d and %d: not a pair i < j of this "
                           "world's bodies in key order %s", what, (long long)k, i, j, why);
        }
        previous_key = key;
        int64_t e = find_entry(list, i, j);
        if (e < 0 || list->law[e] == FD_NO_LAW || list->contact[e] != FD_NO_CONTACT) {
            char a[300], b[300];
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "%s: contact %llu between bodies %s and %s is not a pair within reach without a contact "
                           "at this state %s", what, (unsigned long long)in->id[k],
                           fd_world_body_label(world, i, a, sizeof a), fd_world_body_label(world, j, b, sizeof b),
                           why);
        }
        put_contact(world, list, e, (int32_t)(first_slot + k), in, k);
    }
    return FD_OK;
}

fd_status fd_penalty_install(fd_world* world, const fd_penalty_contacts* in)
{
    fd_penalty* p = world->penalty;
    if (in->history_stride != world->history_stride) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "checkpoint: its contacts have %d history values each, this world's laws %d: the checkpoint "
                       "is from a different scene", in->history_stride, world->history_stride);
    }
    if (p->book_count > 0 && in->book_count != p->book_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "checkpoint: written with the energy ledger %s, this world keeps it: a resumed run cannot "
                       "switch the ledger on (its books before the checkpoint are unknown)",
                       in->book_count == 0 ? "off" : "on for other mechanisms");
    }
    if (p->lifetime_books && !in->lifetime_books) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "checkpoint: written without the contacts' own energy books, and this world keeps them "
                       "(world.contact_energy_books, set when an output writes contacts with the ledger on): a "
                       "resumed run cannot start them (the contacts' books before the checkpoint are unknown); "
                       "resume with the same outputs, or start the run again with them");
    }
    /* A fresh list at this state, with no contacts; then the contacts into it. */
    fd_status status = fd_penalty_rebuild_list(world, false);
    if (status != FD_OK) {
        return status;
    }
    fd_neighbor_list* list = &p->lists[p->current];
    fd_contact_pool* pool = &p->pool;
    int stride = world->history_stride;
    if (!fd_contact_pool_reserve(pool, in->count, stride, p->constant_stride, p->book_count, p->lifetime_books)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld contacts", (long long)in->count);
    }
    fd_status placed =
        place_contacts(world, list, in, 0, "checkpoint", "(a damaged checkpoint, or one from a different scene)");
    if (placed != FD_OK) {
        return placed;
    }
    pool->used = in->count;
    pool->free_count = 0;
    p->touching_count = in->count;
    p->stage = 0;
    return FD_OK;
}

void fd_penalty_drop_contacts(fd_world* world, fd_row_filter rows, fd_pair_filter kept, const void* context)
{
    fd_penalty* p = world->penalty;
    fd_neighbor_list* list = &p->lists[p->current];
    for (int i = 0; list->row_start != NULL && i < list->body_count; ++i) {
        if (rows != NULL && !rows(context, i)) {
            continue;
        }
        for (int64_t e = list->row_start[i]; e < list->row_start[i + 1]; ++e) {
            if (list->contact[e] != FD_NO_CONTACT && !kept(context, i, list->partner[e])) {
                /* Its slot is left to no entry: the rebuild's packing of
                 * the pool drops it. */
                list->contact[e] = FD_NO_CONTACT;
            }
        }
    }
    p->dirty = true;
}

fd_status fd_penalty_rebuild_adding(fd_world* world, const fd_penalty_contacts* in)
{
    fd_penalty* p = world->penalty;
    if (in->history_stride != world->history_stride || (p->book_count > 0 && in->book_count != p->book_count)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "migration: contacts with %d history values and %d books each, this "
                       "world's laws keep %d and %d", in->history_stride, in->book_count, world->history_stride,
                       p->book_count);
    }
    fd_status status = fd_penalty_rebuild_list(world, true);
    if (status != FD_OK) {
        return status;
    }
    fd_contact_pool* pool = &p->pool;
    int64_t carried = pool->used;
    if (!fd_contact_pool_reserve(pool, carried + in->count, world->history_stride, p->constant_stride,
                                 p->book_count, p->lifetime_books)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "migration: out of memory for %lld contacts",
                       (long long)(carried + in->count));
    }
    status = place_contacts(world, &p->lists[p->current], in, carried, "migration",
                            "(the ranks disagree on which bodies they hold)");
    if (status != FD_OK) {
        return status;
    }
    pool->used = carried + in->count;
    p->begun_since_packed += in->count; /* out of key order in the pool: a later pass packs it again */
    p->touching_count = pool->used;
    p->stage = 0;
    return FD_OK;
}
