/* The ranks of a decomposition stepped together in one process (partition.h,
 * fd_partition_step_together): the MPI runner's messages (app/mpi_run.c)
 * as copies between the partitions, through partition.h's functions only,
 * so that the tests compare every rank's bits with one process without MPI.
 *
 * Must not touch: files, MPI itself (app/mpi_run.c carries the messages). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/sort_keys.h"
#include "parallel/partition.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

/* What every partition's `collect` gives, together and sorted (as the
 * ranks of MPI each get it); *total of them; NULL when out of memory. */
static uint64_t* everyone_sorted(fd_partition* parts, int ranks, int64_t (*collect)(fd_partition*, uint64_t**),
                                 int64_t* total)
{
    *total = 0;
    uint64_t* all = malloc(sizeof *all);
    for (int r = 0; r < ranks && all != NULL; ++r) {
        uint64_t* words = NULL;
        int64_t count = collect(&parts[r], &words);
        uint64_t* grown = count >= 0 ? realloc(all, (size_t)(*total + count + 1) * sizeof *all) : NULL;
        if (grown == NULL) {
            free(all);
            all = NULL;
        } else {
            all = grown;
            memcpy(all + *total, words, (size_t)count * sizeof *words);
            *total += count;
        }
        free(words);
    }
    if (all != NULL) {
        fd_sort_keys(all, *total);
    }
    return all;
}

/* The contacts that began in the step, numbered as the ranks of MPI number
 * them: each rank's keys to the rank that numbers their range
 * (fd_partition_numbering_rank), numbered there in the order they arrive
 * (from each rank in turn), the ids back to the rank that sent them. False
 * when out of memory. */
static bool number_new_contacts(fd_partition* parts, int ranks)
{
    size_t lists = (size_t)(ranks > 0 ? ranks : 1);
    uint64_t** keys = calloc(lists, sizeof *keys);
    uint64_t** ids = calloc(lists, sizeof *ids);
    int64_t* counts = calloc(lists, sizeof *counts);
    bool ok = keys != NULL && ids != NULL && counts != NULL;
    int64_t total = 0;
    for (int r = 0; ok && r < ranks; ++r) {
        counts[r] = fd_partition_new_keys(&parts[r], &keys[r]);
        ids[r] = counts[r] >= 0 ? malloc((size_t)(counts[r] > 0 ? counts[r] : 1) * sizeof *ids[r]) : NULL;
        ok = ids[r] != NULL;
        total += ok ? counts[r] : 0;
    }
    /* what one numbering rank got: the keys, and where each came from */
    uint64_t* got = ok ? malloc((size_t)(total > 0 ? total : 1) * sizeof *got) : NULL;
    uint64_t* got_ids = ok ? malloc((size_t)(total > 0 ? total : 1) * sizeof *got_ids) : NULL;
    int64_t* origin = ok ? malloc((size_t)(total > 0 ? total : 1) * 2 * sizeof *origin) : NULL;
    ok = got != NULL && got_ids != NULL && origin != NULL;
    uint64_t first_id = ok ? parts[0].next_id : 0;
    for (int numbering = 0; ok && numbering < ranks; ++numbering) {
        int64_t n = 0;
        for (int r = 0; r < ranks; ++r) {
            for (int64_t k = 0; k < counts[r]; ++k) {
                if (fd_partition_numbering_rank(&parts[r], keys[r][k], ranks) == numbering) {
                    got[n] = keys[r][k];
                    origin[2 * n] = r;
                    origin[2 * n + 1] = k;
                    ++n;
                }
            }
        }
        ok = fd_partition_number_keys(got, n, first_id, got_ids);
        for (int64_t e = 0; ok && e < n; ++e) {
            ids[origin[2 * e]][origin[2 * e + 1]] = got_ids[e];
        }
        first_id += (uint64_t)n;
    }
    for (int r = 0; ok && r < ranks; ++r) {
        ok = fd_partition_take_ids(&parts[r], ids[r], total);
    }
    for (int r = 0; r < ranks && keys != NULL && ids != NULL; ++r) {
        free(keys[r]);
        free(ids[r]);
    }
    FD_FREE_ALL(keys, ids, counts, got, got_ids, origin);
    return ok;
}

/* The ledger's books of every rank (`pack`), summed on rank 0 (`book`,
 * partition.h). */
static fd_status gather_on_rank_0(fd_partition* parts, int ranks,
                                  fd_status (*pack)(const fd_partition*, fd_parcel*),
                                  fd_status (*book)(fd_partition*, const uint64_t*, int64_t))
{
    fd_parcel all = {0}, mine = {0};
    fd_status status = FD_OK;
    for (int r = 0; r < ranks && status == FD_OK; ++r) {
        status = pack(&parts[r], &mine);
        if (status == FD_OK && !fd_grow((void**)&all.words, &all.word_capacity,
                                        all.word_count + mine.word_count + 1, sizeof *all.words)) {
            status = fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
        }
        if (status == FD_OK && mine.word_count > 0) {
            memcpy(all.words + all.word_count, mine.words, (size_t)mine.word_count * sizeof *mine.words);
            all.word_count += mine.word_count;
        }
    }
    if (status == FD_OK) {
        status = book(&parts[0], all.words, all.word_count);
    }
    fd_parcel_free(&all);
    fd_parcel_free(&mine);
    return status;
}

fd_status fd_partition_step_together(fd_partition* parts, int ranks)
{
    bool ledger = parts[0].world->def.energy_ledger;
    for (int r = 0; r < ranks; ++r) {
        fd_status status = ledger ? fd_partition_ledger_rows(&parts[r]) : FD_OK;
        if (status == FD_OK) {
            status = fd_world_step(parts[r].world);
        }
        if (status != FD_OK) {
            return status;
        }
    }
    if (ledger) {
        fd_status status = gather_on_rank_0(parts, ranks, fd_partition_pack_ledger, fd_partition_book_ledger);
        if (status != FD_OK) {
            return status;
        }
        /* Every 64 steps, the ledger's test of the energy from every rank's
         * sums (the ranks of MPI reduce them the same way). */
        const fd_world* world = parts[0].world;
        if (world->step_count % 64 == 0 && fd_world_energy_gain_checked(world)) {
            fd_energy_gain_parts all = {.fastest = -1};
            for (int r = 0; r < ranks; ++r) {
                fd_energy_gain_parts mine = fd_partition_energy_gain_parts(&parts[r]);
                all.kinetic_translational += mine.kinetic_translational;
                all.kinetic_rotational += mine.kinetic_rotational;
                all.gravitational += mine.gravitational;
                all.mass += mine.mass;
                if (mine.largest > all.largest) {
                    all.largest = mine.largest;
                    all.fastest = mine.fastest;
                }
            }
            status = fd_world_judge_energy_gain(world, &all, false);
            if (status != FD_OK) {
                return status;
            }
        }
    }
    /* The contacts that began, numbered in key order over all ranks; then
     * the bodies the outlets take, found by their owners, removed on every
     * rank. */
    if (!number_new_contacts(parts, ranks)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    int64_t count = 0;
    uint64_t* leaving = everyone_sorted(parts, ranks, fd_partition_leaving, &count);
    if (leaving == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    for (int r = 0; r < ranks; ++r) {
        fd_status removed = fd_partition_remove(&parts[r], leaving, count);
        if (removed != FD_OK) {
            free(leaving);
            return removed;
        }
    }
    free(leaving);
    if (ledger && count > 0) {
        fd_status status = gather_on_rank_0(parts, ranks, fd_partition_pack_removals, fd_partition_book_removals);
        if (status != FD_OK) {
            return status;
        }
    }
    /* The ghosts, from their owners (each rank writes only ghosts: the
     * order of the copies does not matter). */
    double largest = 0.0, list_drift = 0.0;
    for (int r = 0; r < ranks; ++r) {
        largest = fmax(largest, fd_partition_largest_move(&parts[r]));
        list_drift = fmax(list_drift, fd_partition_list_drift(&parts[r]));
    }
    fd_body_record* records = NULL;
    int64_t capacity = 0;
    for (int r = 0; r < ranks; ++r) {
        for (int to = 0; to < ranks; ++to) {
            int64_t ghosts = fd_partition_ghost_count(&parts[r], to);
            if (!fd_grow((void**)&records, &capacity, ghosts + 1, sizeof *records)) {
                free(records);
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
            }
            fd_partition_pack_ghosts(&parts[r], to, records);
            fd_partition_put_bodies(&parts[to], records, ghosts);
        }
    }
    free(records);
    for (int r = 0; r < ranks; ++r) {
        fd_status status = fd_partition_run_inlets(&parts[r]);
        if (status != FD_OK) {
            return status;
        }
    }
    /* The lists rebuilt at the same steps, and migrations with them. */
    bool rebuild_next = false;
    for (int r = 0; r < ranks; ++r) {
        rebuild_next = fd_partition_share_list_drift(&parts[r], list_drift);
    }
    if (!fd_domain_migrates(parts[0].domain, largest, rebuild_next)) {
        return FD_OK;
    }
    /* A rank that owns too many: the boxes cut again from every owned body
     * (the ranks of MPI gather the same points). */
    fd_domain* domain = parts[0].domain;
    int64_t most = 0, total = 0;
    for (int r = 0; r < ranks; ++r) {
        int64_t owned = fd_partition_owned_count(&parts[r]);
        most = owned > most ? owned : most;
        total += owned;
    }
    if (fd_domain_unbalanced(domain, most, total)) {
        fd_vec3* points = malloc((size_t)(total > 0 ? total : 1) * sizeof *points);
        if (points == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
        }
        int64_t k = 0;
        for (int r = 0; r < ranks; ++r) {
            fd_partition_owned_positions(&parts[r], points + k);
            k += fd_partition_owned_count(&parts[r]);
        }
        fd_status cut = fd_domain_cut(domain, points, total);
        free(points);
        if (cut != FD_OK) {
            return cut;
        }
        domain->rebalances++;
    }
    fd_parcel* parcels = calloc((size_t)ranks * (size_t)ranks, sizeof *parcels);
    if (parcels == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    fd_status status = FD_OK;
    for (int r = 0; r < ranks && status == FD_OK; ++r) {
        status = fd_partition_pack_migration(&parts[r], parcels + (size_t)r * (size_t)ranks);
    }
    /* Each rank's intake: what every rank sent it, in rank order. */
    for (int to = 0; to < ranks && status == FD_OK; ++to) {
        fd_parcel intake = {0};
        for (int r = 0; r < ranks && status == FD_OK; ++r) {
            const fd_parcel* sent = &parcels[(size_t)r * (size_t)ranks + (size_t)to];
            if (!fd_grow((void**)&intake.bodies, &intake.body_capacity, intake.body_count + sent->body_count,
                         sizeof *intake.bodies) ||
                !fd_grow((void**)&intake.words, &intake.word_capacity, intake.word_count + sent->word_count,
                         sizeof *intake.words)) {
                status = fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
                break;
            }
            if (sent->body_count > 0) {
                memcpy(intake.bodies + intake.body_count, sent->bodies,
                       (size_t)sent->body_count * sizeof *sent->bodies);
            }
            if (sent->word_count > 0) {
                memcpy(intake.words + intake.word_count, sent->words, (size_t)sent->word_count * sizeof *sent->words);
            }
            intake.body_count += sent->body_count;
            intake.word_count += sent->word_count;
        }
        if (status == FD_OK) {
            status = fd_partition_unpack_migration(&parts[to], intake.bodies, intake.body_count, intake.words,
                                                   intake.word_count);
        }
        fd_parcel_free(&intake);
    }
    for (size_t k = 0; k < (size_t)ranks * (size_t)ranks; ++k) {
        fd_parcel_free(&parcels[k]);
    }
    free(parcels);
    return status;
}
