/* Contact ids under several ranks (partition.h): the contacts that began in
 * a step are numbered in key order over all ranks, from the world's next
 * id, as one process numbers them. Each rank gives the keys of those it
 * answers for, every rank gets every rank's keys sorted, and each numbers
 * its own by their places among them. Owns no state of its own; must not
 * touch roles or bodies (partition.c). */
#include <stdlib.h>

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

/* The place of `key` in sorted_keys[0..count), or -1 when it is not there. */
static int64_t place_of(const uint64_t* sorted_keys, int64_t count, uint64_t key)
{
    int64_t at = fd_lower_bound_key(sorted_keys, count, key);
    return at < count && sorted_keys[at] == key ? at : -1;
}

void fd_partition_number_new_contacts(fd_partition* part, const uint64_t* sorted_keys, int64_t count)
{
    fd_world* world = part->world;
    /* The rank's new contacts come in key order: one walk along the sorted
     * keys finds them all (a search each where the order breaks). */
    int64_t at = 0;
    uint64_t last_key = 0;
    for (int64_t k = 0; k < part->new_count; ++k) {
        const fd_new_contact* fresh = &part->new_contacts[k];
        if (fresh->key < last_key) {
            at = fd_lower_bound_key(sorted_keys, count, fresh->key);
        }
        last_key = fresh->key;
        while (at < count && sorted_keys[at] < fresh->key) {
            ++at;
        }
        /* (A contact no rank answered for would load only ghosts, and keep
         * its id: a rank lists no pair of two ghosts, FD_MOTION_PASSIVE.) */
        if (at < count && sorted_keys[at] == fresh->key) {
            world->penalty->pool.id[fresh->slot] = part->next_id + (uint64_t)at;
        }
    }
    /* A step that recorded its contacts wrote the rank's own numbers into
     * the records: those of its new contacts take the same ids. */
    fd_contact_set* set = &world->contacts;
    for (int c = 0; !world->penalty->unrecorded && c < set->count; ++c) {
        fd_contact* record = &set->contacts[c];
        if (record->first_step != world->step_count) {
            continue;
        }
        int64_t place = place_of(sorted_keys, count, record->key);
        if (place >= 0) {
            record->id = part->next_id + (uint64_t)place;
        }
    }
    /* So did the step's events of its new contacts (their ids at or past
     * the first this step gave). */
    for (int k = 0; k < world->event_count; ++k) {
        fd_contact_event* event = &world->events[k];
        if (event->contact_id < part->next_id) {
            continue;
        }
        uint64_t key = (uint64_t)(uint32_t)(event->body_i.index1 - 1) << 32 | (uint32_t)(event->body_j.index1 - 1);
        int64_t place = place_of(sorted_keys, count, key);
        if (place >= 0) {
            event->contact_id = part->next_id + (uint64_t)place;
        }
    }
    part->next_id += (uint64_t)count;
    world->next_contact_id = part->next_id;
}
