/* `mpirun -np N fricdem run SCENE`: the domain decomposition of
 * src/parallel/partition.h with MPI carrying its messages. Every rank loads
 * the scene and takes its box; after each step one reduction tells every
 * rank whether a step failed, how far a body may have moved since the last
 * migration and since the lists were built (every rank rebuilds at the
 * same step) and whether rank 0 writes output now; the contacts that began
 * are numbered as one process numbers them; the owners then send their
 * ghosts (an all-to-all); rank 0 gathers the owned bodies when it writes;
 * bodies and contacts migrate at a rebuild once a body may have moved half
 * a skin (at once past a whole one), after the outputs.
 * The bodies are those of one process to the bit (partition.h), so the
 * files are too.
 *
 * When an output reads contacts, every rank records the step's and rank 0
 * gathers the records of the ranks that answer for them.
 *
 * The walls' reactions, which every rank sums in part, rank 0 sums again
 * from the records (fd_partition_sum_wall_loads).
 *
 * The outlets' bodies are found by their owners and removed on every rank.
 *
 * Every rank holds the bodies around an inlet's region, so every rank's
 * inlet inserts the same spheres.
 *
 * Stages begin at the same step on every rank (a stage that ends by its
 * kinetic energy sums it over the ranks as one process would decide).
 *
 * Contact events come from the ranks that answer for their contacts, every
 * step, to rank 0, and so do the energy ledger's books (rank 0 sums them in
 * one process's order and writes energy.csv).
 *
 * Must not touch: the world's storage and the physics (the partition and the
 * steppers own them; this file carries messages between ranks and files). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collide/collide.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/sort_keys.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "mpi_run.h"
#include "parallel/partition.h"
#include "run_options.h"
#include "stage_start.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The process's CPU time, all its threads. */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The buffers of the messages, kept from one step to the next (allocated
 * and freed each step, a few hundred kilobytes each were fresh pages every
 * time: a sixth of a step at 10^5 bodies went to page faults). */
typedef struct transport {
    int ranks;
    int* counts;                  /* 4 x ranks: sent, their offsets, received, their offsets */
    int64_t* rank_counts;         /* one count per rank (the new contacts each numbers) */
    fd_body_record* out;
    fd_body_record* in;
    uint64_t* words_out;
    uint64_t* words_in;
    int64_t out_capacity, in_capacity, words_out_capacity, words_in_capacity;
    fd_parcel* parcels;           /* per rank */
    MPI_Datatype record;          /* one fd_body_record */
} transport;

/* Room for `count` elements of `size` bytes (the contents are not kept). */
static bool room(void** buffer, int64_t* capacity, int64_t count, size_t size)
{
    if (count <= *capacity) {
        return true;
    }
    int64_t grown = count + count / 2 + 64;
    void* fresh = malloc((size_t)grown * size);
    if (fresh == NULL) {
        return false;
    }
    free(*buffer);
    *buffer = fresh;
    *capacity = grown;
    return true;
}

/* Each rank's offset in a gathered buffer from the counts; the total. */
static int64_t offsets_of(const int* counts, int* offsets, int ranks)
{
    int64_t total = 0;
    for (int r = 0; r < ranks; ++r) {
        offsets[r] = (int)total;
        total += counts[r];
    }
    return total;
}

static void transport_free(transport* t)
{
    if (t->parcels != NULL) {
        for (int r = 0; r < t->ranks; ++r) {
            fd_parcel_free(&t->parcels[r]);
        }
    }
    FD_FREE_ALL(t->parcels, t->counts, t->rank_counts, t->out, t->in, t->words_out, t->words_in);
    if (t->record != MPI_DATATYPE_NULL) {
        MPI_Type_free(&t->record);
    }
    memset(t, 0, sizeof *t);
}

static bool transport_init(transport* t, int ranks)
{
    memset(t, 0, sizeof *t);
    t->ranks = ranks;
    t->counts = calloc(4 * (size_t)ranks, sizeof *t->counts);
    t->rank_counts = calloc((size_t)ranks, sizeof *t->rank_counts);
    t->parcels = calloc((size_t)ranks, sizeof *t->parcels);
    MPI_Type_contiguous((int)sizeof(fd_body_record), MPI_BYTE, &t->record);
    MPI_Type_commit(&t->record);
    return t->counts != NULL && t->rank_counts != NULL && t->parcels != NULL;
}

/* An all-to-all of `out` (counts and offsets in elements of `type`, set by
 * the caller in t->counts) into *in: the counts first, then the data.
 * Returns the elements received, or -1 (out of memory on some rank). */
static bool any_rank_failed(bool failed);

static int64_t all_to_all(transport* t, const void* out, MPI_Datatype type, size_t size, void** in,
                          int64_t* in_capacity)
{
    int ranks = t->ranks;
    int* send = t->counts;
    int* send_offsets = send + ranks;
    int* receive = send + 2 * ranks;
    int* receive_offsets = send + 3 * ranks;
    MPI_Alltoall(send, 1, MPI_INT, receive, 1, MPI_INT, MPI_COMM_WORLD);
    int64_t total = offsets_of(receive, receive_offsets, ranks);
    bool ok = room(in, in_capacity, total > 0 ? total : 1, size);
    if (!any_rank_failed(!ok)) {
        MPI_Alltoallv(out, send, send_offsets, type, *in, receive, receive_offsets, type, MPI_COMM_WORLD);
        return total;
    }
    return -1;
}

/* Rank 0 gathers the owned bodies of every rank into t->in (*total of
 * them); the others only send. */
static fd_status gather_bodies(transport* t, fd_partition* part, int rank, int64_t* total)
{
    int ranks = t->ranks;
    int64_t owned = fd_partition_owned_count(part);
    bool ok = room((void**)&t->out, &t->out_capacity, owned > 0 ? owned : 1, sizeof *t->out);
    if (ok) {
        fd_partition_pack_owned(part, t->out);
    }
    int sending = ok ? (int)owned : 0;
    int* counts = t->counts;
    int* offsets = t->counts + ranks;
    MPI_Gather(&sending, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    *total = 0;
    if (rank == 0) {
        *total = offsets_of(counts, offsets, ranks);
        ok = ok && room((void**)&t->in, &t->in_capacity, *total + 1, sizeof *t->in);
    }
    if (any_rank_failed(!ok)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory gathering %lld bodies", (long long)*total);
    }
    MPI_Gatherv(t->out, sending, t->record, t->in, counts, offsets, t->record, 0, MPI_COMM_WORLD);
    return FD_OK;
}

/* Every rank's parcel of words to rank 0, into t->words_in (*total). */
static fd_status gather_words(transport* t, const fd_parcel* mine, int rank, int64_t* total)
{
    int ranks = t->ranks;
    int sending = (int)mine->word_count;
    int* counts = t->counts;
    int* offsets = t->counts + ranks;
    MPI_Gather(&sending, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    *total = 0;
    bool ok = true;
    if (rank == 0) {
        *total = offsets_of(counts, offsets, ranks);
        ok = room((void**)&t->words_in, &t->words_in_capacity, *total + 1, sizeof *t->words_in);
    }
    if (any_rank_failed(!ok)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory gathering %lld words", (long long)*total);
    }
    MPI_Gatherv(mine->words, sending, MPI_UINT64_T, t->words_in, counts, offsets, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return FD_OK;
}

/* What every rank packs (`pack`), gathered and taken in on rank 0 (`put`);
 * `what` names it when a rank runs out of memory packing. */
static fd_status gather_on_rank_0(transport* t, fd_partition* part, int rank,
                                  fd_status (*pack)(const fd_partition*, fd_parcel*),
                                  fd_status (*put)(fd_partition*, const uint64_t*, int64_t), const char* what)
{
    fd_status status = pack(part, &t->parcels[0]);
    if (any_rank_failed(status != FD_OK)) {
        return status != FD_OK ? status : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %s", what);
    }
    int64_t words = 0;
    status = gather_words(t, &t->parcels[0], rank, &words);
    if (status == FD_OK && rank == 0) {
        status = put(part, t->words_in, words);
    }
    return status;
}

/* The step's contact events on rank 0, from the ranks that answer for
 * their contacts (after the step's numbering: their ids are one
 * process's), in one process's order. */
static fd_status gather_events(transport* t, fd_partition* part, int rank)
{
    return gather_on_rank_0(t, part, rank, fd_partition_pack_events, fd_partition_put_events, "the contact events");
}

/* Rank 0, at a step whose only output is its events: written with every
 * body held (the rows name both bodies). */
static fd_status write_events_alone(fd_partition* part, fd_output* output)
{
    fd_partition_hold_everything(part, true);
    fd_status status = fd_output_write(output, part->world);
    fd_partition_hold_everything(part, false);
    return status;
}

/* Rank 0 holds every body with the gathered states (and, when the step was
 * recorded, the contacts' records from the ranks that answer for them) and
 * writes (close: the last rows), then gives its dormant bodies back. */
static fd_status gather_and_write(transport* t, fd_partition* part, fd_output* output, int rank, bool closing,
                                  bool records, uint64_t* hash)
{
    int64_t total = 0, words = 0, own_count = 0;
    fd_status status = gather_bodies(t, part, rank, &total);
    fd_status packed = records && status == FD_OK ? fd_partition_pack_records(part, &t->parcels[0]) : FD_OK;
    if (any_rank_failed(packed != FD_OK)) {
        return packed != FD_OK ? packed : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contacts' records");
    }
    if (records && status == FD_OK) {
        status = gather_words(t, &t->parcels[0], rank, &words);
    }
    if (status == FD_OK && rank == 0) {
        fd_partition_put_bodies(part, t->in, total);
        fd_partition_hold_everything(part, true);
        if (records) {
            status = fd_partition_put_records(part, t->words_in, words, &own_count);
            fd_partition_sum_wall_loads(part);
        }
        if (status == FD_OK) {
            status = closing ? fd_output_close(output, part->world) : fd_output_write(output, part->world);
        }
        if (hash != NULL) {
            *hash = fd_world_state_hash(part->world); /* one process's, every body held */
        }
        if (records) {
            fd_partition_end_records(part, own_count);
        }
        fd_partition_hold_everything(part, false);
    }
    return status;
}

/* A checkpoint of the whole world on rank 0 (docs/restart.md): every owned
 * body, and every contact from the rank that answers for it, gathered and
 * installed there; the file is the one one process writes at this step. */
static fd_status write_checkpoint(transport* t, fd_partition* part, const fd_scene* scene, int rank, bool records)
{
    int64_t bodies = 0, words = 0, own_count = 0;
    fd_status status = gather_bodies(t, part, rank, &bodies);
    fd_parcel* mine = &t->parcels[0];
    /* the step's records (as one process keeps them in its checkpoints),
     * put in place before the words are gathered again for the contacts */
    fd_status packed = records && status == FD_OK ? fd_partition_pack_records(part, mine) : FD_OK;
    if (any_rank_failed(status != FD_OK || packed != FD_OK)) {
        return status != FD_OK ? status : (packed != FD_OK ? packed : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory"));
    }
    if (records) {
        status = gather_words(t, mine, rank, &words);
        if (status == FD_OK && rank == 0) {
            status = fd_partition_put_records(part, t->words_in, words, &own_count);
            fd_partition_sum_wall_loads(part);
        }
        if (any_rank_failed(status != FD_OK)) {
            return status != FD_OK ? status : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    status = fd_partition_pack_answered(part, mine);
    if (any_rank_failed(status != FD_OK)) {
        return status != FD_OK ? status : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory gathering the contacts");
    }
    status = gather_words(t, mine, rank, &words);
    if (status != FD_OK) {
        return status;
    }
    if (rank == 0) {
        status = fd_partition_install_everything(part, t->in, bodies, t->words_in, words);
        if (status == FD_OK) {
            char path[FD_PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/checkpoint.h5", scene->output.directory);
            status = fd_scene_write_checkpoint(scene, path);
        }
        if (records) {
            fd_partition_end_records(part, own_count);
        }
        fd_partition_hold_everything(part, false);
    }
    return status;
}

/* The ghosts each rank owns for each other rank, all to all. */
static fd_status exchange_ghosts(transport* t, fd_partition* part)
{
    int ranks = t->ranks;
    int64_t sending = 0;
    for (int r = 0; r < ranks; ++r) {
        sending += fd_partition_ghost_count(part, r);
    }
    bool ok = room((void**)&t->out, &t->out_capacity, sending > 0 ? sending : 1, sizeof *t->out);
    int64_t at = 0;
    for (int r = 0; r < ranks; ++r) {
        int64_t count = ok ? fd_partition_ghost_count(part, r) : 0;
        if (count > 0) {
            fd_partition_pack_ghosts(part, r, t->out + at);
        }
        t->counts[r] = (int)count;
        t->counts[ranks + r] = (int)at;
        at += count;
    }
    int64_t received = all_to_all(t, t->out, t->record, sizeof *t->in, (void**)&t->in, &t->in_capacity);
    if (!ok || received < 0) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory exchanging %lld ghosts", (long long)sending);
    }
    fd_partition_put_bodies(part, t->in, received);
    return FD_OK;
}

/* Every rank's words from `collect` to every rank, sorted, in t->words_in
 * (*total of them). */
static fd_status everyone_sorted(transport* t, fd_partition* part, int64_t (*collect)(fd_partition*, uint64_t**),
                                 int64_t* total)
{
    int ranks = t->ranks;
    uint64_t* words = NULL;
    int64_t count = collect(part, &words);
    int mine = count > 0 ? (int)count : 0;
    int* counts = t->counts;
    int* offsets = t->counts + ranks;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    *total = offsets_of(counts, offsets, ranks);
    bool ok = count >= 0 && room((void**)&t->words_in, &t->words_in_capacity, *total > 0 ? *total : 1,
                                 sizeof *t->words_in);
    if (any_rank_failed(!ok)) {
        free(words);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory gathering %lld words", (long long)*total);
    }
    MPI_Allgatherv(words, mine, MPI_UINT64_T, t->words_in, counts, offsets, MPI_UINT64_T, MPI_COMM_WORLD);
    fd_sort_keys(t->words_in, *total); /* each rank's share comes sorted: a merge */
    free(words);
    return FD_OK;
}

/* The contacts that began in the step, numbered in key order over all
 * ranks as one process numbers them (partition.h): each rank's keys to the
 * rank that numbers their range, the ids back (the counts of the way back
 * are those of the way there), and every rank's count to every rank, which
 * gives each numbering rank its first id and all the total. A rank out of
 * memory sends nothing and says so at the end, where every rank fails. */
static fd_status number_new_contacts(transport* t, fd_partition* part)
{
    int ranks = t->ranks;
    int* send = t->counts;
    int* send_offsets = t->counts + ranks;
    int* got_counts = t->counts + 2 * ranks;
    int* got_offsets = t->counts + 3 * ranks;
    uint64_t* keys = NULL;
    int64_t mine = fd_partition_new_keys(part, &keys);
    size_t room_mine = (size_t)(mine > 0 ? mine : 1);
    uint64_t* ids = malloc(room_mine * sizeof *ids);            /* in grouped order, then key k's */
    int64_t* order = malloc(room_mine * sizeof *order);         /* key k's group, then its place among them */
    int64_t* every_count = t->rank_counts;
    bool ok = mine >= 0 && ids != NULL && order != NULL &&
              room((void**)&t->words_out, &t->words_out_capacity, (int64_t)room_mine, sizeof *t->words_out);
    /* The keys grouped by the rank that numbers them (each group in key
     * order, as they come). */
    memset(send, 0, 2 * (size_t)ranks * sizeof *send);
    for (int64_t k = 0; ok && k < mine; ++k) {
        order[k] = fd_partition_numbering_rank(part, keys[k], ranks);
        ++send[order[k]];
    }
    offsets_of(send, send_offsets, ranks);
    for (int64_t k = 0; ok && k < mine; ++k) {
        order[k] = send_offsets[order[k]]++;
        t->words_out[order[k]] = keys[k];
    }
    offsets_of(send, send_offsets, ranks);
    int64_t got = all_to_all(t, t->words_out, MPI_UINT64_T, sizeof *t->words_in, (void**)&t->words_in,
                             &t->words_in_capacity);
    if (got < 0) { /* every rank knows (all_to_all) */
        FD_FREE_ALL(keys, ids, order);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory numbering new contacts");
    }
    uint64_t* got_ids = malloc((size_t)(got > 0 ? got : 1) * sizeof *got_ids);
    ok = ok && got_ids != NULL;
    int64_t before = 0, total = 0;
    MPI_Allgather(&got, 1, MPI_INT64_T, every_count, 1, MPI_INT64_T, MPI_COMM_WORLD);
    for (int r = 0; ok && r < ranks; ++r) {
        before += r < part->rank ? every_count[r] : 0;
        total += every_count[r];
    }
    ok = ok && fd_partition_number_keys(t->words_in, got, part->next_id + (uint64_t)before, got_ids);
    /* The ids back, as many to each rank as it sent here. */
    MPI_Alltoallv(ok ? got_ids : t->words_in, got_counts, got_offsets, MPI_UINT64_T, ids, send, send_offsets,
                  MPI_UINT64_T, MPI_COMM_WORLD);
    for (int64_t k = 0; ok && k < mine; ++k) {
        t->words_out[k] = ids[order[k]];
    }
    ok = ok && fd_partition_take_ids(part, t->words_out, total);
    FD_FREE_ALL(keys, ids, order, got_ids);
    return any_rank_failed(!ok) ? fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory numbering %lld new contacts",
                                          (long long)(mine > 0 ? mine : 0))
                                : FD_OK;
}

/* The contacts that began in the step, numbered in key order over all
 * ranks as one process numbers them; then the bodies the outlets take,
 * found by their owners, removed on every rank in ascending index as one
 * process removes them. */
static fd_status number_contacts_send_events_run_outlets(transport* t, fd_partition* part, bool events, int rank)
{
    fd_status status = number_new_contacts(t, part);
    if (status != FD_OK) {
        return status;
    }
    int64_t total = 0;
    /* The events, numbered now, before an outlet takes their bodies (one
     * process raises them before its outlets run too). */
    status = events ? gather_events(t, part, rank) : FD_OK;
    if (status != FD_OK) {
        return status;
    }
    if (fd_world_outlet_count(part->world) == 0) {
        return FD_OK;
    }
    status = everyone_sorted(t, part, fd_partition_leaving, &total);
    status = status == FD_OK ? fd_partition_remove(part, t->words_in, total) : status;
    if (status != FD_OK || total == 0 || !fd_world_get_def(part->world).energy_ledger) {
        return status;
    }
    /* The energy the removed bodies took, to rank 0 (every rank knows that
     * some were: the same list). */
    return gather_on_rank_0(t, part, rank, fd_partition_pack_removals, fd_partition_book_removals,
                            "the ledger's books");
}

/* When a rank owns too many bodies (or, by_time, took too long over its
 * own steps since the last migration: `step_seconds`): the boxes cut again
 * from every rank's owned bodies, gathered on every rank (each cuts the
 * same boxes); by time, each body weighs its owner's step time per owned
 * body, so the new boxes even out the times the ranks are expected to
 * take. */
static fd_status rebalance(transport* t, fd_partition* part, bool by_time, double step_seconds)
{
    int ranks = t->ranks;
    int64_t owned = fd_partition_owned_count(part), most = 0, total = 0;
    MPI_Allreduce(&owned, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&owned, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    /* by time, every rank's owned count and step time */
    double* times = NULL;
    bool unbalanced;
    if (by_time) {
        double mine_time[2] = {(double)owned, step_seconds};
        times = malloc((size_t)ranks * 2 * sizeof *times);
        if (any_rank_failed(times == NULL)) {
            free(times);
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory cutting the boxes again");
        }
        MPI_Allgather(mine_time, 2, MPI_DOUBLE, times, 2, MPI_DOUBLE, MPI_COMM_WORLD);
        double slowest = 0.0, sum = 0.0;
        for (int r = 0; r < ranks; ++r) {
            slowest = fmax(slowest, times[2 * r + 1]);
            sum += times[2 * r + 1];
        }
        unbalanced = ranks > 1 && sum > 0.0 && slowest > part->domain->rebalance_above * sum / ranks;
    } else {
        unbalanced = fd_domain_unbalanced(part->domain, most, total);
    }
    if (!unbalanced) {
        free(times);
        return FD_OK;
    }
    /* every rank's owned positions, 3 doubles each */
    int* counts = t->counts;
    int* offsets = t->counts + ranks;
    int mine = (int)(3 * owned);
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    offsets_of(counts, offsets, ranks);
    fd_vec3* local = malloc((size_t)(owned > 0 ? owned : 1) * sizeof *local);
    fd_vec3* points = malloc((size_t)(total > 0 ? total : 1) * sizeof *points);
    double* weights = by_time ? malloc((size_t)(total > 0 ? total : 1) * sizeof *weights) : NULL;
    bool ok = local != NULL && points != NULL && (!by_time || weights != NULL);
    fd_status status = ok ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory cutting the boxes again");
    if (!any_rank_failed(!ok)) {
        fd_partition_owned_positions(part, local);
        MPI_Allgatherv(local, mine, MPI_DOUBLE, points, counts, offsets, MPI_DOUBLE, MPI_COMM_WORLD);
        /* The points come in rank order: rank r's weigh its time per body
         * (a rank that owns none sends none). */
        for (int r = 0, k = 0; by_time && r < ranks; ++r) {
            double per_body = times[2 * r] > 0.0 ? times[2 * r + 1] / times[2 * r] : 0.0;
            for (int c = 0; c < counts[r] / 3; ++c) {
                weights[k++] = per_body > 0.0 ? per_body : 1e-300; /* (a rank too fast to time: barely) */
            }
        }
        status = by_time ? fd_domain_cut_weighted(part->domain, points, weights, total)
                         : fd_domain_cut(part->domain, points, total);
        part->domain->rebalances += status == FD_OK;
    }
    free(times);
    free(local);
    free(points);
    free(weights);
    return status;
}

/* Bodies and contacts to the ranks that hold them next. */
static fd_status migrate(transport* t, fd_partition* part)
{
    int ranks = t->ranks;
    fd_status status = fd_partition_pack_migration(part, t->parcels);
    bool ok = status == FD_OK;
    int64_t body_total = 0, word_total = 0;
    for (int r = 0; r < ranks; ++r) {
        body_total += ok ? t->parcels[r].body_count : 0;
        word_total += ok ? t->parcels[r].word_count : 0;
    }
    ok = ok && room((void**)&t->out, &t->out_capacity, body_total > 0 ? body_total : 1, sizeof *t->out) &&
         room((void**)&t->words_out, &t->words_out_capacity, word_total > 0 ? word_total : 1, sizeof *t->words_out);
    /* the bodies */
    int64_t at = 0;
    for (int r = 0; r < ranks; ++r) {
        int64_t count = ok ? t->parcels[r].body_count : 0;
        if (count > 0) {
            memcpy(t->out + at, t->parcels[r].bodies, (size_t)count * sizeof *t->out);
        }
        t->counts[r] = (int)count;
        t->counts[ranks + r] = (int)at;
        at += count;
    }
    int64_t bodies = all_to_all(t, t->out, t->record, sizeof *t->in, (void**)&t->in, &t->in_capacity);
    /* the contacts */
    at = 0;
    for (int r = 0; r < ranks; ++r) {
        int64_t count = ok && bodies >= 0 ? t->parcels[r].word_count : 0;
        if (count > 0) {
            memcpy(t->words_out + at, t->parcels[r].words, (size_t)count * sizeof *t->words_out);
        }
        t->counts[r] = (int)count;
        t->counts[ranks + r] = (int)at;
        at += count;
    }
    int64_t words = all_to_all(t, t->words_out, MPI_UINT64_T, sizeof *t->words_in, (void**)&t->words_in,
                               &t->words_in_capacity);
    if (!ok || bodies < 0 || words < 0) {
        return status != FD_OK ? status : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory migrating bodies");
    }
    return fd_partition_unpack_migration(part, t->in, bodies, t->words_in, words);
}

/* Every rank's verdict: 0 when all agree that nothing failed. */
static bool any_rank_failed(bool failed)
{
    int mine = failed ? 1 : 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any != 0;
}

/* Whether the dynamic bodies' kinetic energy is below `threshold` (J), as
 * one process decides it (fd_scene_stage_finished: the translational and
 * the rotational terms each summed in index order). Any two orders of
 * summing n terms of one sign differ by at most 2 (n - 1) u times their
 * sum (u = 2^-53; Higham, Accuracy and Stability of Numerical Algorithms,
 * Eq. 4.4): outside a band of 8 n u around the threshold the ranks' sum
 * decides as one process's; inside it rank 0 gathers the terms and sums
 * them as one process does (FRICDEM_TEST_EXACT_KINETIC=1 takes that path
 * always, for tests). */
static bool kinetic_energy_below(transport* t, fd_partition* part, double threshold, int rank, bool* failed)
{
    fd_parcel* mine = &t->parcels[0];
    double sum[2];
    fd_status status = fd_partition_pack_kinetic_terms(part, mine, sum);
    if (any_rank_failed(status != FD_OK)) {
        *failed = true;
        return false;
    }
    double local[3] = {sum[0], sum[1], (double)(mine->word_count / FD_PARTITION_KINETIC_WORDS)}, all[3];
    MPI_Allreduce(local, all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double kinetic = all[0] + all[1];
    const char* forced = getenv("FRICDEM_TEST_EXACT_KINETIC");
    bool exact = forced != NULL && strcmp(forced, "1") == 0;
    if (!exact && fabs(kinetic - threshold) > 4.0 * all[2] * DBL_EPSILON * kinetic) {
        return kinetic < threshold;
    }
    int64_t words = 0;
    if (gather_words(t, mine, rank, &words) != FD_OK) {
        *failed = true;
        return false;
    }
    int below = 0;
    if (rank == 0) {
        /* By index (each term's first word), then summed as one process does. */
        int64_t count = words / FD_PARTITION_KINETIC_WORDS;
        qsort(t->words_in, (size_t)count, FD_PARTITION_KINETIC_WORDS * sizeof *t->words_in, fd_compare_keys);
        double translational = 0.0, rotational = 0.0;
        for (int64_t k = 0; k < count; ++k) {
            double energy[2];
            memcpy(energy, t->words_in + FD_PARTITION_KINETIC_WORDS * k + 1, sizeof energy);
            translational += energy[0];
            rotational += energy[1];
        }
        below = translational + rotational < threshold;
    }
    MPI_Bcast(&below, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return below != 0;
}

/* The energy ledger's books of the step just made, every rank's, summed on
 * rank 0 in one process's order (partition.h); rank 0 writes the ledger. */
static fd_status sum_ledger(transport* t, fd_partition* part, int rank)
{
    return gather_on_rank_0(t, part, rank, fd_partition_pack_ledger, fd_partition_book_ledger, "the ledger's books");
}

/* Every 64 steps with the ledger, its test of the kinetic energy against
 * what entered (fd_world_check_energy_gain in one process): every rank's
 * sums over its bodies to rank 0, which judges with the ledger's totals and
 * tells every rank. True when the run must stop (rank 0 says why). */
static bool energy_gained(fd_partition* part, int rank)
{
    fd_world* world = part->world;
    if (fd_world_step_count(world) % 64 != 0 || !fd_world_energy_gain_checked(world)) {
        return false;
    }
    fd_energy_gain_parts mine = fd_partition_energy_gain_parts(part);
    double sums[4] = {mine.kinetic_translational, mine.kinetic_rotational, mine.gravitational, mine.mass}, all[4];
    MPI_Reduce(sums, all, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    struct {
        double value;
        int index;
    } largest = {mine.largest, mine.fastest}, most;
    MPI_Reduce(&largest, &most, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD);
    int verdict = 0;
    if (rank == 0) {
        fd_energy_gain_parts parts = {all[0], all[1], all[2], all[3], most.value, most.index};
        if (fd_world_judge_energy_gain(world, &parts, false) != FD_OK) {
            fprintf(stderr, "error (rank 0): %s\n", fd_last_error());
            verdict = 1;
        }
    }
    MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return verdict != 0;
}

/* The stage under way, if finished, gives way to the next on every rank at
 * the same step (docs/stages.md; each rank's scene applies the changes to
 * its world: walls, inlets and outlets are on every rank). */
static bool advance_stage(transport* t, fd_partition* part, fd_scene* scene, fd_output* output, bool announce,
                          int rank, bool* over)
{
    *over = false;
    if (fd_scene_stage_count(scene) == 0) {
        return true;
    }
    if (scene->stage >= 0) {
        double kinetic_below = 0.0;
        bool failed = false;
        bool finished = fd_scene_stage_time_up(scene, &kinetic_below) ||
                        (kinetic_below > 0.0 && kinetic_energy_below(t, part, kinetic_below, rank, &failed));
        if (failed) {
            fprintf(stderr, "error (rank %d): out of memory summing the kinetic energy\n", rank);
            return false;
        }
        if (!finished) {
            return true;
        }
    }
    char who[32];
    snprintf(who, sizeof who, "(rank %d)", rank);
    if (!fd_world_get_def(scene->world).energy_ledger || fd_scene_stage_count(scene) <= scene->stage + 1) {
        return stage_begin_next(scene, output, announce, who, over);
    }
    /* With the ledger, rank 0 begins the stage holding every body where it
     * is: a change of gravity books its work on every body (run_changes.c). */
    int64_t total = 0;
    if (gather_bodies(t, part, rank, &total) != FD_OK) {
        fprintf(stderr, "error %s: %s\n", who, fd_last_error());
        return false;
    }
    if (rank == 0) {
        fd_partition_put_bodies(part, t->in, total);
        fd_partition_hold_everything(part, true);
    }
    bool begun = stage_begin_next(scene, output, announce, who, over);
    if (rank == 0) {
        fd_partition_hold_everything(part, false);
    }
    return begun;
}

static int run(const run_options* options, bool resume, int rank, int ranks)
{
    bool leader = rank == 0;
    fd_scene scene;
    double start = now_seconds();
    fd_status status = (resume ? fd_scene_resume : fd_scene_load)(options->scene_path, options->overrides,
                                                                   options->override_count, &scene);
    if (status != FD_OK) {
        if (leader) {
            fprintf(stderr, "error: %s\n", fd_last_error());
        }
        return EXIT_USAGE;
    }
    if (options->out_dir != NULL) {
        snprintf(scene.output.directory, sizeof scene.output.directory, "%s", options->out_dir);
    }
    fd_world* world = scene.world;
    /* The contacts' details are recorded only for the steps whose outputs read them. */
    fd_world_set_contact_output(world, FD_CONTACT_OUTPUT_ON_REQUEST);
    if ((int64_t)fd_world_body_count(world) > INT_MAX / (int64_t)sizeof(fd_body_record)) {
        /* MPI's counts are ints: rank 0's gather of every body must fit. */
        if (leader) {
            fprintf(stderr, "error: %s: %d bodies with %d processes: at most %d yet (one message of every body's "
                    "state must stay under 2^31 bytes)\n", scene.path, fd_world_body_count(world), ranks,
                    (int)(INT_MAX / (int64_t)sizeof(fd_body_record)));
        }
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    /* The directory first (rank 0), as one process does: nothing touched on failure. */
    bool failed = leader && fd_output_claim_directory(scene.output.directory, options->overwrite) != FD_OK;
    if (failed) {
        fprintf(stderr, "error: %s\n", fd_last_error());
    }
    if (any_rank_failed(failed)) {
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    fd_domain domain = {0};
    fd_partition part = {0};
    /* Records are gathered for the outputs that read contacts, and for the
     * walls' reactions (summed again from them: each rank has a share);
     * the first state's are recorded by the set-up pass. */
    bool walls = false;
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        walls = walls || fd_shape_is_wall(fd_body_get_info(world, fd_world_body_at(world, b)).shape.type);
    }
    const bool writes_contacts = scene.output.contacts_csv || scene.output.vtu_interval > 0.0 ||
                                 (scene.output.trajectory && scene.output.trajectory_contacts) ||
                                 (walls && scene.output.walls_csv);
    if (writes_contacts) {
        fd_world_request_contacts(world);
    }
    status = fd_world_prepare(world);
    if (status == FD_OK) {
        status = fd_domain_plan(world, ranks, &domain);
    }
    if (status == FD_OK) {
        domain.rebalance_above = options->balance;
        status = fd_partition_init(&part, world, &domain, rank);
        /* a stage may set a wall moving: its work needs its reaction from the step before */
        part.track_walls = fd_scene_stage_count(&scene) > 0;
    }
    if (status != FD_OK && leader) {
        fprintf(stderr, "error: %s: %s\n", scene.path, fd_last_error());
    }
    if (any_rank_failed(status != FD_OK)) {
        fd_domain_free(&domain);
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    /* The messages' buffers; then the first stage, unless resumed within
     * one (every rank alike: a resumed stage may end by the ranks'
     * kinetic energy at once). */
    transport t;
    bool stages_over = false;
    int stage_before = scene.stage;
    bool buffers = transport_init(&t, ranks);
    if (any_rank_failed(!buffers) || !advance_stage(&t, &part, &scene, NULL, false, rank, &stages_over)) {
        if (!buffers) {
            fprintf(stderr, "error (rank %d): out of memory for the messages' buffers\n", rank);
        }
        transport_free(&t);
        fd_partition_free(&part);
        fd_domain_free(&domain);
        fd_scene_free(&scene);
        return EXIT_RUN_FAILED;
    }
    /* Opened on the whole world, as one process opens it (the planes' VTU
     * squares are sized by every body). */
    fd_output* output = NULL;
    if (leader) {
        fd_partition_hold_everything(&part, true);
        output = fd_output_open(world, &scene.output);
        fd_partition_hold_everything(&part, false);
        stage_apply_output(&scene, output); /* the first stage's, or the one a resumed run is in */
    }
    failed = leader && output == NULL;
    if (failed) {
        fprintf(stderr, "error: %s\n", fd_last_error());
    }
    const bool events = scene.output.events_csv;
    const bool ledger = fd_world_get_def(world).energy_ledger;
    if (!any_rank_failed(failed) &&
        ((events && gather_events(&t, &part, rank) != FD_OK) ||
         gather_and_write(&t, &part, output, rank, false, writes_contacts, NULL) != FD_OK)) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        failed = true;
    }
    double dt = fd_world_time_step(world);
    /* A resumed run goes on to the scene's duration, counted from t = 0. */
    long long resumed_at = fd_world_step_count(world);
    long long steps = llround(scene.duration / dt) > resumed_at ? llround(scene.duration / dt) - resumed_at : 0;
    double interval = scene.output.checkpoint_interval;
    double next_checkpoint = interval > 0.0 ? interval * (floor((fd_world_time(world) + 0.5 * dt) / interval) + 1.0)
                                            : INFINITY;
    long long checkpoint_step = -1;
    if (leader && !options->quiet) {
        printf("fricdem %s: scene %s (%s)\n", FRICDEM_VERSION_STRING, scene.name, scene.path);
        printf("  ranks    %d, boxes by coordinate bisection, halo %.3g m (bodies held by each rank in the "
               "summary)\n", ranks, domain.halo);
        printf("  steps    %lld x %g s = %g s\n", steps, dt, (double)steps * dt);
        printf("  outputs  %s\n", scene.output.directory);
        if (scene.stage != stage_before) {
            stage_announce(&scene); /* after the header, as one process prints it */
        }
        fflush(stdout);
    }
    double loop_start = now_seconds(), loop_cpu = cpu_seconds();
    int64_t builds_before = fd_world_get_profile(world).neighbor_builds;
    /* Wall time of each part of a step on this rank: its own step, the wait
     * for the slowest rank (the step's one reduction), the ghosts (and new
     * contacts' numbers, outlets), the migrations (and rebalancing). */
    enum { PHASE_STEP, PHASE_WAIT, PHASE_GHOSTS, PHASE_MIGRATE, PHASE_COUNT };
    double phase[PHASE_COUNT] = {0.0};
    double step_seconds_at_migration = 0.0; /* phase[PHASE_STEP] at the last migration (--balance-by time) */
    long long done = 0;
    int next_tenth = 1;
    /* Whether the next step records its contacts (rank 0's outputs say;
     * then every rank records, and rank 0 gathers the records). */
    int record_next =
        leader && (fd_output_wants_contacts(output, world) || fd_output_wants_wall_reactions(output, world)) ? 1 : 0;
    MPI_Bcast(&record_next, 1, MPI_INT, 0, MPI_COMM_WORLD);
    bool recorded = writes_contacts;
    for (; done < steps; ++done) {
        /* The last step's for the close; a checkpoint's (its records are
         * in it, as in one process's). */
        bool checkpoint_next = interval > 0.0 &&
                               (done + 1 == steps || fd_world_time(world) + 1.5 * dt >= next_checkpoint);
        recorded = record_next != 0 || (done + 1 == steps && writes_contacts) || checkpoint_next;
        if (recorded) {
            fd_world_request_contacts(world);
        }
        double phase_start = now_seconds();
        status = ledger ? fd_partition_ledger_rows(&part) : FD_OK;
        if (status == FD_OK) {
            status = fd_world_step(world);
        }
        double stepped = now_seconds();
        phase[PHASE_STEP] += stepped - phase_start;
        if (status != FD_OK) {
            fprintf(stderr, "error (rank %d): %s\n", rank, fd_last_error());
            failed = true;
        }
        /* One reduction a step: a failure anywhere (this step's, or the
         * last one's writing or migrating), the largest move since the
         * last migration, whether rank 0 writes now, and whether the next
         * step records its contacts for it. */
        double mine[5] = {failed ? 1.0 : 0.0, fd_partition_largest_move(&part),
                          leader && fd_output_due(output, world) ? 1.0 : 0.0,
                          leader && (fd_output_wants_contacts(output, world) ||
                                     fd_output_wants_wall_reactions(output, world)) ? 1.0 : 0.0,
                          fd_partition_list_drift(&part)};
        double all[5];
        MPI_Allreduce(mine, all, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double reduced = now_seconds();
        phase[PHASE_WAIT] += reduced - stepped;
        record_next = all[3] != 0.0;
        if (all[0] != 0.0) {
            failed = true;
            break;
        }
        /* The ledger's books to rank 0 (its sum may fail there alone: one
         * more reduction), then its test of the energy every 64 steps. */
        if (ledger && sum_ledger(&t, &part, rank) != FD_OK) {
            fprintf(stderr, "error (rank %d): %s\n", rank, fd_last_error());
            failed = true;
        }
        if (ledger && (any_rank_failed(failed) || energy_gained(&part, rank))) {
            failed = true;
            break;
        }
        if (number_contacts_send_events_run_outlets(&t, &part, events, rank) != FD_OK ||
            exchange_ghosts(&t, &part) != FD_OK || fd_partition_run_inlets(&part) != FD_OK) {
            fprintf(stderr, "error (rank %d): %s\n", rank, fd_last_error());
            failed = true;
        }
        double exchanged = now_seconds();
        phase[PHASE_GHOSTS] += exchanged - reduced;
        /* The outputs due; rank 0 writes the step's events alone between
         * them (every step: events.csv is not sampled). */
        if (all[2] != 0.0 && gather_and_write(&t, &part, output, rank, false, recorded, NULL) != FD_OK) {
            fprintf(stderr, "error: %s\n", fd_last_error());
            failed = true;
        } else if (all[2] == 0.0 && events && leader && write_events_alone(&part, output) != FD_OK) {
            fprintf(stderr, "error: %s\n", fd_last_error());
            failed = true;
        }
        /* The next stage, once this step's outputs are written (a
         * checkpoint of this step holds it), as one process begins it. */
        if (!advance_stage(&t, &part, &scene, output, leader && !options->quiet, rank, &stages_over)) {
            failed = true;
        }
        if (stages_over && steps > done + 2) {
            /* The last stage ended before the longest it may run (its kinetic
             * energy fell): one more step, whose contacts are recorded for
             * the final rows, ends the run. */
            steps = done + 2;
        }
        /* The checkpoints at the times one process writes them (every rank
         * knows the time: no message decides it). */
        if (interval > 0.0 && fd_world_time(world) + 0.5 * dt >= next_checkpoint) {
            next_checkpoint = interval * (floor((fd_world_time(world) + 0.5 * dt) / interval) + 1.0);
            if (write_checkpoint(&t, &part, &scene, rank, recorded) != FD_OK) {
                fprintf(stderr, "error: %s\n", fd_last_error());
                failed = true;
            }
            checkpoint_step = fd_world_step_count(world);
        }
        /* Every rank's list is rebuilt at the same steps, and migrations
         * come with them (fd_domain_migrates). After the outputs (their
         * records are those of the contacts' owners before it), and never
         * after the last step (the final files gather from those owners). */
        double written = now_seconds();
        bool rebuild_next = fd_partition_share_list_drift(&part, all[4]);
        bool migrate_now = fd_domain_migrates(&domain, all[1], rebuild_next) ||
                           (options->migrate_every > 0 && (done + 1) % options->migrate_every == 0);
        if (!failed && done + 1 < steps && migrate_now &&
            (rebalance(&t, &part, options->balance_by_time, phase[PHASE_STEP] - step_seconds_at_migration) != FD_OK ||
             migrate(&t, &part) != FD_OK)) {
            fprintf(stderr, "error (rank %d): %s\n", rank, fd_last_error());
            failed = true;
        }
        if (migrate_now) {
            step_seconds_at_migration = phase[PHASE_STEP];
        }
        phase[PHASE_MIGRATE] += now_seconds() - written;
        if (leader && !options->quiet && steps >= 10 && (done + 1) * 10 >= steps * next_tenth) {
            fprintf(stderr, "step %lld of %lld (%d%%), t = %.6g s, %.1f s\n", done + 1, steps, 10 * next_tenth,
                    fd_world_time(world), now_seconds() - loop_start);
            ++next_tenth;
        }
    }
    failed = any_rank_failed(failed); /* the last step's writing or migrating too */
    double wall = now_seconds() - loop_start;
    uint64_t state_hash = 0;
    /* The end state too, so that the run can go on (as one process does). */
    if (!failed && interval > 0.0 && checkpoint_step != fd_world_step_count(world) &&
        write_checkpoint(&t, &part, &scene, rank, recorded) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        failed = true;
    }
    failed = any_rank_failed(failed);
    if (!failed && gather_and_write(&t, &part, output, rank, true, recorded, &state_hash) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        failed = true;
    } else if (failed && leader) {
        fd_output_close(output, NULL);
        fprintf(stderr, "stopped at step %lld of %lld; outputs so far are in %s\n", done, steps,
                scene.output.directory);
    }
    /* What each rank held (owned and ghosts) and the CPU time its process
     * took in the loop (a rank's share of the wall time it did not wait). */
    enum { HELD_OWNED, HELD_GHOSTS, HELD_CPU, HELD_BUILDS, HELD_PHASES, HELD_COUNT = HELD_PHASES + PHASE_COUNT };
    double held[HELD_COUNT] = {(double)fd_partition_owned_count(&part), 0.0, cpu_seconds() - loop_cpu,
                               (double)(fd_world_get_profile(world).neighbor_builds - builds_before)};
    memcpy(held + HELD_PHASES, phase, sizeof phase);
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        held[HELD_GHOSTS] += part.role[b] == FD_ROLE_GHOST;
    }
    double* every = leader ? malloc((size_t)ranks * HELD_COUNT * sizeof *every) : NULL;
    MPI_Gather(held, HELD_COUNT, MPI_DOUBLE, every, HELD_COUNT, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (leader && !options->quiet && !failed) {
        printf("done: %lld steps in %.2f s wall (%.3g ms a step) on %d ranks, %lld migrations (%lld with the boxes "
               "cut again); load and set-up %.2f s\n", done, wall, done > 0 ? 1e3 * wall / (double)done : 0.0, ranks,
               (long long)part.migrations, (long long)domain.rebalances, loop_start - start);
        for (int r = 0; r < ranks; ++r) {
            const double* its = every + (size_t)r * HELD_COUNT;
            double per_step = done > 0 ? 1e3 / (double)done : 0.0;
            printf("  rank %d: %.0f bodies owned, %.0f ghosts, %.3g ms of CPU a step, neighbour lists built %.0f "
                   "times\n", r, its[HELD_OWNED], its[HELD_GHOSTS], per_step * its[HELD_CPU], its[HELD_BUILDS]);
            printf("          ms a step: own step %.3g, waiting for the others %.3g, ghosts %.3g, migrations %.3g\n",
                   per_step * its[HELD_PHASES + PHASE_STEP], per_step * its[HELD_PHASES + PHASE_WAIT],
                   per_step * its[HELD_PHASES + PHASE_GHOSTS], per_step * its[HELD_PHASES + PHASE_MIGRATE]);
        }
        printf("  state hash   0x%016llx\n", (unsigned long long)state_hash);
    }
    free(every);
    transport_free(&t);
    fd_partition_free(&part);
    fd_domain_free(&domain);
    fd_scene_free(&scene);
    return failed ? EXIT_RUN_FAILED : 0;
}

int run_on_ranks(const run_options* options, bool resume)
{
    MPI_Init(NULL, NULL);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int code = run(options, resume, rank, ranks);
    MPI_Finalize();
    return code;
}
