/* The contact events of a step under several ranks (partition.h): each
 * rank packs those of the contacts it answers for, rank 0 puts every
 * rank's back in one process's order. Owns no state of its own; must not
 * touch roles or contacts (partition.c). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "parallel/partition.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

static uint64_t body_id_word(fd_body_id id) { return (uint64_t)(uint32_t)id.index1 << 32 | id.generation; }

static fd_body_id body_id_of(uint64_t word)
{
    return (fd_body_id){.index1 = (int32_t)(uint32_t)(word >> 32), .generation = (uint32_t)(word & 0xffffffffu)};
}

fd_status fd_partition_pack_events(const fd_partition* part, fd_parcel* out)
{
    const fd_world* world = part->world;
    out->word_count = 0;
    for (int k = 0; k < world->event_count; ++k) {
        const fd_contact_event* event = &world->events[k];
        int i = event->body_i.index1 - 1, j = event->body_j.index1 - 1;
        if (!fd_partition_answers_for(part, i, j)) {
            continue;
        }
        if (!fd_grow((void**)&out->words, &out->word_capacity, out->word_count + FD_PARTITION_EVENT_WORDS,
                     sizeof *out->words)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the contact events");
        }
        uint64_t* at = out->words + out->word_count;
        at[0] = (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
        at[1] = (uint64_t)k; /* a contact's events in the order raised */
        at[2] = (uint64_t)event->type | (uint64_t)event->mechanism << 8;
        at[3] = event->contact_id;
        at[4] = body_id_word(event->body_i);
        at[5] = body_id_word(event->body_j);
        at[6] = (uint64_t)event->step;
        memcpy(&at[7], &event->time, sizeof event->time);
        out->word_count += FD_PARTITION_EVENT_WORDS;
    }
    return FD_OK;
}

/* Events' words by key, then by the order their rank raised them. */
static int compare_event_words(const void* a, const void* b)
{
    const uint64_t* x = a;
    const uint64_t* y = b;
    if (x[0] != y[0]) {
        return x[0] < y[0] ? -1 : 1;
    }
    return (x[1] > y[1]) - (x[1] < y[1]);
}

fd_status fd_partition_put_events(fd_partition* part, const uint64_t* words, int64_t word_count)
{
    fd_world* world = part->world;
    int64_t count = word_count / FD_PARTITION_EVENT_WORDS;
    uint64_t* sorted = malloc((size_t)(count > 0 ? word_count : 1) * sizeof *sorted);
    if (sorted == NULL || count > INT32_MAX) {
        free(sorted);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for %lld contact events",
                       (long long)count);
    }
    if (count > 0) {
        memcpy(sorted, words, (size_t)word_count * sizeof *sorted);
        qsort(sorted, (size_t)count, FD_PARTITION_EVENT_WORDS * sizeof *sorted, compare_event_words);
    }
    world->event_count = 0;
    for (int64_t k = 0; k < count; ++k) {
        const uint64_t* at = sorted + k * FD_PARTITION_EVENT_WORDS;
        fd_body_id body_i = body_id_of(at[4]), body_j = body_id_of(at[5]);
        if (!fd_world_push_event(world, (fd_event_type)(at[2] & 0xff), (fd_mechanism)(at[2] >> 8), at[3],
                                 body_i.index1 - 1, body_j.index1 - 1)) {
            free(sorted);
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the contact events");
        }
        fd_contact_event* event = &world->events[world->event_count - 1];
        event->body_i = body_i; /* the ids the raising rank gave (a body an outlet took since keeps its old one) */
        event->body_j = body_j;
        event->step = (int64_t)at[6];
        memcpy(&event->time, &at[7], sizeof event->time);
    }
    free(sorted);
    return FD_OK;
}
