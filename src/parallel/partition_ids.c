/* Contact ids under several ranks (partition.h): the contacts that began in
 * a step are numbered in key order over all ranks, from the world's next
 * id, as one process numbers them. Each rank sends the keys of those it
 * answers for to the rank that numbers their range of first bodies; that
 * rank numbers them by their places among the keys it got, from the next
 * id plus the counts of the ranks before it, and sends the ids back. A
 * key travels to one rank and its id back, so a rank's share does not grow
 * with the number of ranks (every rank got every rank's keys until the
 * thirty-first session). Owns no state of its own; must not touch roles or
 * bodies (partition.c). */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/sort_keys.h"
#include "parallel/partition.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

/* The contacts that began in the step just made: their keys and slots (the
 * force pass keeps both for its new contacts, in key order), and whether
 * this rank answers for them. (A scan of every listed pair cost a quarter of
 * a step at 10^5 bodies, one of the touching pairs 2 %.) False when out of
 * memory. */
static bool collect_new_contacts(fd_partition* part)
{
    const fd_world* world = part->world;
    const fd_penalty* p = world->penalty;
    const fd_neighbor_list* list = &p->lists[p->current];
    part->new_count = 0;
    for (int t = 0; list->row_start != NULL && t < list->thread_count; ++t) { /* the last pass's threads */
        const fd_penalty_thread* th = &p->threads[t];
        if (!fd_grow((void**)&part->new_contacts, &part->new_capacity, part->new_count + th->new_count,
                     sizeof *part->new_contacts)) {
            return false;
        }
        for (int64_t k = 0; k < th->new_count; ++k) {
            uint64_t key = th->new_keys[k];
            int i = (int)(key >> 32), j = (int)(key & 0xffffffffu);
            part->new_contacts[part->new_count++] =
                (fd_new_contact){key, th->new_slots[k], fd_partition_answers_for(part, i, j)};
        }
    }
    return true;
}

int64_t fd_partition_new_keys(fd_partition* part, uint64_t** keys)
{
    *keys = NULL;
    if (!collect_new_contacts(part)) {
        return -1;
    }
    *keys = malloc((size_t)(part->new_count > 0 ? part->new_count : 1) * sizeof **keys);
    if (*keys == NULL) {
        return -1;
    }
    int64_t count = 0;
    for (int64_t k = 0; k < part->new_count; ++k) {
        if (part->new_contacts[k].answered) {
            (*keys)[count++] = part->new_contacts[k].key;
        }
    }
    return count;
}

int fd_partition_numbering_rank(const fd_partition* part, uint64_t key, int ranks)
{
    uint64_t first_body = key >> 32;
    uint64_t bodies = part->world->body_count > 0 ? (uint64_t)part->world->body_count : 1;
    uint64_t rank = first_body * (uint64_t)ranks / bodies;
    return rank < (uint64_t)ranks ? (int)rank : ranks - 1;
}

bool fd_partition_number_keys(const uint64_t* keys, int64_t count, uint64_t first_id, uint64_t* ids)
{
    uint64_t* sorted = malloc((size_t)(count > 0 ? count : 1) * sizeof *sorted);
    if (sorted == NULL) {
        return false;
    }
    memcpy(sorted, keys, (size_t)count * sizeof *sorted);
    fd_sort_keys(sorted, count); /* each rank's share comes sorted: a merge */
    /* Each rank's share in one walk along the sorted keys (a search where
     * the next share begins); one rank answers for a key, so each is there
     * once. */
    int64_t at = 0;
    for (int64_t k = 0; k < count; ++k) {
        if (k > 0 && keys[k] < keys[k - 1]) {
            at = fd_lower_bound_key(sorted, count, keys[k]);
        }
        while (at < count && sorted[at] < keys[k]) {
            ++at;
        }
        ids[k] = first_id + (uint64_t)at;
    }
    free(sorted);
    return true;
}

/* A new contact's key and id, for the records and events that carry its
 * rank's own number. */
typedef struct numbered_key {
    uint64_t key, id;
} numbered_key;

static int compare_numbered_keys(const void* a, const void* b)
{
    return fd_compare_keys(&((const numbered_key*)a)->key, &((const numbered_key*)b)->key);
}

/* The id of `key` among the rank's numbered new contacts (sorted by key),
 * or 0 when it is not one of them. */
static uint64_t id_of(const numbered_key* numbered, int64_t count, uint64_t key)
{
    numbered_key probe = {key, 0};
    const numbered_key* found = bsearch(&probe, numbered, (size_t)count, sizeof *numbered, compare_numbered_keys);
    return found != NULL ? found->id : 0;
}

bool fd_partition_take_ids(fd_partition* part, const uint64_t* ids, int64_t total)
{
    fd_world* world = part->world;
    int64_t answered = 0;
    for (int64_t k = 0; k < part->new_count; ++k) {
        answered += part->new_contacts[k].answered;
    }
    /* The records and events of the step carry the rank's own numbers of
     * its new contacts: found by key when there are any. */
    fd_contact_set* set = &world->contacts;
    bool records = !world->penalty->unrecorded && set->count > 0;
    bool renumber = records || world->event_count > 0;
    numbered_key* numbered = malloc((size_t)(renumber && answered > 0 ? answered : 1) * sizeof *numbered);
    if (numbered == NULL) {
        return false;
    }
    /* (A contact no rank answered for would load only ghosts, and keep its
     * id: a rank lists no pair of two ghosts, FD_MOTION_PASSIVE.) */
    int64_t a = 0;
    for (int64_t k = 0; k < part->new_count; ++k) {
        const fd_new_contact* fresh = &part->new_contacts[k];
        if (fresh->answered) {
            world->penalty->pool.id[fresh->slot] = ids[a];
            if (renumber) {
                numbered[a] = (numbered_key){fresh->key, ids[a]};
            }
            ++a;
        }
    }
    if (renumber) {
        qsort(numbered, (size_t)answered, sizeof *numbered, compare_numbered_keys);
    }
    /* A step that recorded its contacts wrote the rank's own numbers into
     * the records: those of its new contacts take the same ids (rank 0
     * gathers a contact's record from the rank that answers for it). */
    for (int c = 0; records && c < set->count; ++c) {
        fd_contact* record = &set->contacts[c];
        uint64_t id = record->first_step == world->step_count ? id_of(numbered, answered, record->key) : 0;
        record->id = id != 0 ? id : record->id;
    }
    /* So did the step's events of its new contacts (their ids at or past
     * the first this step gave; rank 0 gathers those the rank answers for). */
    for (int k = 0; k < world->event_count; ++k) {
        fd_contact_event* event = &world->events[k];
        if (event->contact_id < part->next_id) {
            continue;
        }
        uint64_t key = (uint64_t)(uint32_t)(event->body_i.index1 - 1) << 32 | (uint32_t)(event->body_j.index1 - 1);
        uint64_t id = id_of(numbered, answered, key);
        event->contact_id = id != 0 ? id : event->contact_id;
    }
    free(numbered);
    part->next_id += (uint64_t)total;
    world->next_contact_id = part->next_id;
    return true;
}
