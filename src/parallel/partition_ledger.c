/* The energy ledger on several ranks (partition.h): which contacts each
 * rank books how, its books as words, and on the rank that writes the
 * ledger every rank's books summed in one process's order. Owns the book
 * rows; must not touch roles or contacts (partition.c).
 *
 * One process's order (src/penalty/contact_details.c): the contacts that
 * ended release their springs' energy in ascending key order; then each
 * group of FD_BOOK_GROUP_ROWS rows sums its contacts' step books from zero
 * in descending key order (the law pass meets them so), and the step's sum
 * adds the groups in ascending order. Floating-point sums depend on their
 * order, so the summing rank repeats exactly these additions: a group one
 * rank answers for whole comes as its sum, a shared group as its
 * contacts. The step's other books follow in fd_penalty_step's order: the
 * external loads' and locks' work of each rank's bodies (ascending index),
 * then a moving wall's work from its whole reaction (every rank's loads on
 * it added from zero in descending key order). An outlet's removals come
 * in a second message: the bodies' energies in ascending index, then their
 * contacts' springs in ascending key. Last, every 64 steps, each rank's
 * sums for the ledger's test of the kinetic energy. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "parallel/partition.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

_Static_assert(sizeof(fd_energy_books) == FD_PARTITION_BOOK_WORDS * sizeof(uint64_t),
               "a book travels as FD_PARTITION_BOOK_WORDS words");

enum { LEDGER_RELEASED = 0, LEDGER_GROUP = 1, LEDGER_CONTACT = 2, LEDGER_WALL = 3, LEDGER_REMOVED = 4,
       LEDGER_BODY_WORK = 5 };
enum { WALL_LOAD_WORDS = 9 };     /* force, torque_i, torque_j */
enum { FD_LEDGER_MERGE_RUNS = 16 }; /* a shared group's runs merged; more are sorted */

fd_status fd_partition_ledger_rows(fd_partition* part)
{
    fd_world* world = part->world;
    int n = world->body_count;
    if (!fd_grow((void**)&part->book_rows, &part->book_row_capacity, n > 0 ? n : 1,
                 sizeof *part->book_rows)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the ledger's rows");
    }
    for (int first = 0; first < n; first += FD_BOOK_GROUP_ROWS) {
        int end = first + FD_BOOK_GROUP_ROWS < n ? first + FD_BOOK_GROUP_ROWS : n;
        /* A group this rank answers for whole: every body of it owned here
         * (or gone: it has no contacts). A wall's contacts are answered by
         * the owner of the other body: a group with a wall is shared. */
        bool whole = true;
        for (int b = first; b < end && whole; ++b) {
            int role = b < part->body_count ? part->role[b] : FD_ROLE_DORMANT;
            whole = role == FD_ROLE_OWNED || role == FD_ROLE_GONE;
        }
        for (int b = first; b < end; ++b) {
            int role = b < part->body_count ? part->role[b] : FD_ROLE_DORMANT;
            part->book_rows[b] = whole                      ? FD_BOOK_ROW_GROUP
                                 : role == FD_ROLE_SHARED   ? FD_BOOK_ROW_WALL
                                 : role == FD_ROLE_OWNED    ? FD_BOOK_ROW_EACH
                                                            : FD_BOOK_ROW_NONE;
        }
    }
    /* The walls whose reactions the writing rank sums: from the state the
     * world was prepared in (every body held: its walls' loads are one
     * process's), the loads of the last step. */
    bool track = part->track_walls || world->moving_wall_count > 0;
    if (track && part->wall_loads == NULL) {
        part->wall_loads = calloc((size_t)(n > 0 ? n : 1) * 4, sizeof *part->wall_loads);
        if (part->wall_loads == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the walls' loads");
        }
        part->wall_load_bodies = n; /* walls come with the scene: bodies added later are spheres */
        for (int b = 0; b < n && b < part->body_count; ++b) {
            if (part->role[b] == FD_ROLE_SHARED) {
                part->wall_loads[4 * b] = world->forces[b];
                part->wall_loads[4 * b + 1] = world->torques[b];
            }
        }
    }
    for (int b = 0; track && b < part->wall_load_bodies && b < part->body_count; ++b) {
        if (part->role[b] == FD_ROLE_SHARED) {
            part->book_rows[b] |= FD_BOOK_ROW_TRACKED;
        }
    }
    world->penalty->book_rows = part->book_rows;
    return FD_OK;
}

int fd_partition_ledger_words(const fd_partition* part)
{
    int books = 2 + FD_PARTITION_BOOK_WORDS * part->world->penalty->book_count;
    return books > 2 + WALL_LOAD_WORDS ? books : 2 + WALL_LOAD_WORDS;
}

static bool add_record(fd_parcel* out, int per, int part_books, uint64_t kind, uint64_t which, const void* books)
{
    if (!fd_grow((void**)&out->words, &out->word_capacity, out->word_count + per, sizeof *out->words)) {
        return false;
    }
    uint64_t* at = out->words + out->word_count;
    at[0] = kind;
    at[1] = which;
    size_t bytes = kind == LEDGER_WALL      ? WALL_LOAD_WORDS * sizeof *at
                   : kind == LEDGER_REMOVED || kind == LEDGER_BODY_WORK ? 2 * sizeof *at
                                            : (size_t)part_books * sizeof(fd_energy_books);
    memset(at + 2, 0, (size_t)(per - 2) * sizeof *at);
    memcpy(at + 2, books, bytes);
    out->word_count += per;
    return true;
}

/* The springs' energies of the contacts that ended (a pass's, or an
 * outlet's removal's), this rank's. */
static bool add_released(fd_parcel* out, int per, const fd_penalty* p)
{
    bool ok = true;
    for (int64_t k = 0; k < p->released_count && ok; ++k) {
        ok = add_record(out, per, p->book_count, LEDGER_RELEASED, p->released[k].key, p->released[k].books);
    }
    return ok;
}

fd_status fd_partition_pack_ledger(const fd_partition* part, fd_parcel* out)
{
    const fd_penalty* p = part->world->penalty;
    int per = fd_partition_ledger_words(part), books = p->book_count;
    out->word_count = 0;
    bool ok = add_released(out, per, p);
    for (int t = 0; t < p->thread_count && ok; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t g = 0; g < th->book_group_count && ok; ++g) {
            ok = add_record(out, per, books, LEDGER_GROUP, (uint64_t)th->book_groups[g].group,
                            th->book_groups[g].books);
        }
        for (int64_t k = 0; k < th->book_entry_count && ok; ++k) {
            ok = add_record(out, per, books, LEDGER_CONTACT, th->book_entries[k].key, th->book_entries[k].books);
        }
        for (int64_t k = 0; k < th->wall_load_count && ok; ++k) {
            const fd_wall_load* load = &th->wall_loads[k];
            double vectors[WALL_LOAD_WORDS] = {load->force.x,    load->force.y,    load->force.z,
                                               load->torque_i.x, load->torque_i.y, load->torque_i.z,
                                               load->torque_j.x, load->torque_j.y, load->torque_j.z};
            ok = add_record(out, per, books, LEDGER_WALL, load->key, vectors);
        }
    }
    for (int64_t k = 0; k < p->body_work_count && ok; ++k) {
        double work[2] = {p->body_work[k].external, p->body_work[k].constraint};
        ok = add_record(out, per, books, LEDGER_BODY_WORK, (uint64_t)p->body_work[k].body, work);
    }
    return ok ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the ledger's books");
}

/* Records by their second word (a key): ascending, or descending. */
static int ascending_keys(const void* a, const void* b)
{
    uint64_t x = (*(const uint64_t* const*)a)[1], y = (*(const uint64_t* const*)b)[1];
    return (x > y) - (x < y);
}
static int descending_keys(const void* a, const void* b) { return ascending_keys(b, a); }

static void books_of(const uint64_t* record, int book_count, fd_energy_books books[FD_MECHANISM_COUNT])
{
    memset(books, 0, FD_MECHANISM_COUNT * sizeof *books);
    memcpy(books, record + 2, (size_t)book_count * sizeof *books);
}

/* The group of rows of a group's or a contact's record. */
static int64_t group_of(const uint64_t* record)
{
    return record[0] == LEDGER_GROUP ? (int64_t)record[1] : (int64_t)(record[1] >> 32) / FD_BOOK_GROUP_ROWS;
}

static int64_t bucket_of(const uint64_t* record, int64_t groups)
{
    return record[0] == LEDGER_RELEASED    ? 0
           : record[0] == LEDGER_WALL      ? groups + 1
           : record[0] == LEDGER_BODY_WORK ? groups + 2
                                           : 1 + group_of(record);
}

/* The external loads' and locks' work of the bodies (fd_world_book_step_work:
 * every dynamic body in ascending index; those not sent added zero). */
static void book_body_work(fd_world* world, const uint64_t** records, int64_t count)
{
    qsort(records, (size_t)count, sizeof *records, ascending_keys);
    for (int64_t k = 0; k < count; ++k) {
        double work[2];
        memcpy(work, records[k] + 2, sizeof work);
        world->energy_totals.external_work += work[0];
        if (world->has_locks) {
            world->energy_totals.constraint_work += work[1];
        }
    }
}

static fd_vec3 vector_at(const uint64_t* record, int k)
{
    double v[3];
    memcpy(v, record + 2 + 3 * k, sizeof v);
    return fd_v3(v[0], v[1], v[2]);
}

/* The moving walls' work over the step (src/world/wall_motion.c,
 * fd_world_book_wall_work: trapezoidal in the reaction and the wall's
 * velocities), from their whole reactions: every rank's loads on the walls
 * added from zero in descending key order, as one process adds them
 * (fd_partition_sum_wall_loads). */
static void book_wall_work(fd_partition* part, const uint64_t** records, int64_t count)
{
    fd_world* world = part->world;
    fd_vec3* loads = part->wall_loads;
    if (loads == NULL) {
        return;
    }
    for (int b = 0; b < part->wall_load_bodies && b < part->body_count; ++b) {
        if (part->role[b] == FD_ROLE_SHARED) {
            loads[4 * b + 2] = loads[4 * b + 3] = fd_v3(0.0, 0.0, 0.0);
        }
    }
    qsort(records, (size_t)count, sizeof *records, descending_keys);
    for (int64_t k = 0; k < count; ++k) {
        int i = (int)(records[k][1] >> 32), j = (int)(records[k][1] & 0xffffffffu);
        if (part->role[i] == FD_ROLE_SHARED) {
            loads[4 * i + 2] = fd_v3_add(loads[4 * i + 2], vector_at(records[k], 0));
            loads[4 * i + 3] = fd_v3_add(loads[4 * i + 3], vector_at(records[k], 1));
        }
        if (part->role[j] == FD_ROLE_SHARED) {
            loads[4 * j + 2] = fd_v3_sub(loads[4 * j + 2], vector_at(records[k], 0));
            loads[4 * j + 3] = fd_v3_add(loads[4 * j + 3], vector_at(records[k], 2));
        }
    }
    double h = world->def.time_step;
    for (int k = 0; k < world->moving_wall_count; ++k) {
        int b = world->moving_walls[k].body;
        double power_before = fd_v3_dot(loads[4 * b], world->saved_velocity[b]) +
                              fd_v3_dot(loads[4 * b + 1], world->saved_angular_velocity[b]);
        double power_after = fd_v3_dot(loads[4 * b + 2], world->velocity[b]) +
                             fd_v3_dot(loads[4 * b + 3], world->angular_velocity[b]);
        world->energy_totals.external_work -= 0.5 * h * (power_before + power_after);
    }
    for (int b = 0; b < part->wall_load_bodies && b < part->body_count; ++b) {
        if (part->role[b] == FD_ROLE_SHARED) {
            loads[4 * b] = loads[4 * b + 2];
            loads[4 * b + 1] = loads[4 * b + 3];
        }
    }
}

fd_status fd_partition_book_ledger(fd_partition* part, const uint64_t* words, int64_t word_count)
{
    fd_world* world = part->world;
    int per = fd_partition_ledger_words(part), book_count = world->penalty->book_count;
    int64_t count = word_count / per;
    int64_t groups = ((int64_t)world->body_count + FD_BOOK_GROUP_ROWS - 1) / FD_BOOK_GROUP_ROWS;
    /* The records bucketed by group (a counting sort: the groups are few
     * and known), the released ones first in bucket 0, then the walls'
     * loads and the bodies' work. */
    int64_t* start = calloc((size_t)groups + 4, sizeof *start);
    const uint64_t** sorted = malloc((size_t)(count > 0 ? count : 1) * sizeof *sorted);
    if (start == NULL || sorted == NULL) {
        free(start);
        free(sorted);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory summing the ledger");
    }
    fd_status status = FD_OK;
    for (int64_t k = 0; k < count && status == FD_OK; ++k) {
        const uint64_t* record = words + k * per;
        int64_t bucket = bucket_of(record, groups);
        bool apart = record[0] == LEDGER_WALL || record[0] == LEDGER_BODY_WORK;
        if (record[0] > LEDGER_BODY_WORK || record[0] == LEDGER_REMOVED || (!apart && bucket > groups)) {
            status = fd_fail(FD_ERR_INVALID_ARGUMENT, "domain decomposition: a ledger record of kind %llu names "
                             "group %lld of %lld", (unsigned long long)record[0], (long long)bucket - 1,
                             (long long)groups);
            break;
        }
        start[bucket + 1]++;
    }
    for (int64_t g = 0; g <= groups + 2; ++g) {
        start[g + 1] += start[g];
    }
    for (int64_t k = 0; k < count && status == FD_OK; ++k) {
        const uint64_t* record = words + k * per;
        int64_t bucket = bucket_of(record, groups);
        sorted[start[bucket]++] = record; /* start[b] ends at the next bucket's start */
    }
    fd_energy_totals* totals = &world->energy_totals;
    fd_energy_books step[FD_MECHANISM_COUNT] = {{0}};
    fd_energy_books books[FD_MECHANISM_COUNT];
    int64_t begin = 0;
    for (int64_t bucket = 0; bucket <= groups && status == FD_OK; ++bucket) {
        int64_t end = start[bucket], size = end - begin;
        const uint64_t** records = sorted + begin;
        begin = end;
        if (size == 0) {
            continue;
        }
        if (bucket == 0) {
            /* The released energies, by ascending key. */
            qsort(records, (size_t)size, sizeof *records, ascending_keys);
            for (int64_t k = 0; k < size; ++k) {
                books_of(records[k], book_count, books);
                for (int m = 0; m < book_count; ++m) {
                    totals->released += books[m].stored;
                }
            }
            continue;
        }
        if (records[0][0] == LEDGER_GROUP || (size > 1 && records[size - 1][0] == LEDGER_GROUP)) {
            /* A group one rank answered for whole: its sum, alone. */
            if (size > 1) {
                status = fd_fail(FD_ERR_INVALID_ARGUMENT, "domain decomposition: the ledger's group %lld came from "
                                 "two ranks", (long long)bucket - 1);
                break;
            }
            books_of(records[0], book_count, books);
            fd_add_books(step, books);
            continue;
        }
        /* A shared group: its contacts by descending key, from zero. Each
         * rank's come in that order already (its law pass met them so), one
         * run after another: merged. */
        int64_t run_start[FD_LEDGER_MERGE_RUNS + 1];
        int runs = 0;
        run_start[runs++] = 0;
        for (int64_t k = 1; k < size && runs <= FD_LEDGER_MERGE_RUNS; ++k) {
            if (records[k][1] > records[k - 1][1]) {
                if (runs == FD_LEDGER_MERGE_RUNS) {
                    runs++; /* too many runs: sorted instead */
                    break;
                }
                run_start[runs++] = k;
            }
        }
        if (runs > FD_LEDGER_MERGE_RUNS) {
            qsort(records, (size_t)size, sizeof *records, descending_keys);
            runs = 1;
        }
        run_start[runs] = size;
        int64_t head[FD_LEDGER_MERGE_RUNS];
        memcpy(head, run_start, (size_t)runs * sizeof *head);
        fd_energy_books running[FD_MECHANISM_COUNT] = {{0}};
        for (int64_t k = 0; k < size; ++k) {
            int pick = -1;
            for (int r = 0; r < runs; ++r) {
                if (head[r] < run_start[r + 1] && (pick < 0 || records[head[r]][1] > records[head[pick]][1])) {
                    pick = r;
                }
            }
            const uint64_t* record = records[head[pick]++];
            if (record[0] != LEDGER_CONTACT) {
                status = fd_fail(FD_ERR_INVALID_ARGUMENT, "domain decomposition: the ledger's group %lld came from "
                                 "two ranks", (long long)bucket - 1);
                break;
            }
            books_of(record, book_count, books);
            fd_add_books(running, books);
        }
        fd_add_books(step, running);
    }
    if (status == FD_OK) {
        /* fd_penalty_step's order: the pass's books, the loads' and locks'
         * work, the walls' */
        fd_book_step(world, step);
        book_body_work(world, sorted + start[groups + 1], start[groups + 2] - start[groups + 1]);
        book_wall_work(part, sorted + begin, start[groups + 1] - begin);
    }
    free(start);
    free(sorted);
    return status;
}

/* ---------------------------------------------------------------- removals */

fd_status fd_partition_pack_removals(const fd_partition* part, fd_parcel* out)
{
    const fd_penalty* p = part->world->penalty;
    int per = fd_partition_ledger_words(part);
    out->word_count = 0;
    bool ok = true;
    for (int64_t k = 0; k < p->removed_energy_count && ok; ++k) {
        const fd_removed_energy* removed = &p->removed_energies[k];
        double energies[2] = {removed->energy, removed->gravitational};
        ok = add_record(out, per, 0, LEDGER_REMOVED, (uint64_t)removed->body, energies);
    }
    ok = ok && add_released(out, per, p);
    return ok ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the ledger's books");
}

/* One process's removal (src/engine/removal.c): the bodies' energies in
 * ascending index, then their contacts' springs in ascending key. */
fd_status fd_partition_book_removals(fd_partition* part, const uint64_t* words, int64_t word_count)
{
    fd_world* world = part->world;
    int per = fd_partition_ledger_words(part), book_count = world->penalty->book_count;
    int64_t count = word_count / per;
    const uint64_t** sorted = malloc((size_t)(count > 0 ? count : 1) * sizeof *sorted);
    if (sorted == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory summing the ledger");
    }
    int64_t bodies = 0;
    for (int64_t k = 0; k < count; ++k) {
        bodies += words[k * per] == LEDGER_REMOVED;
    }
    int64_t next_body = 0, next_contact = bodies;
    for (int64_t k = 0; k < count; ++k) {
        const uint64_t* record = words + k * per;
        sorted[record[0] == LEDGER_REMOVED ? next_body++ : next_contact++] = record;
    }
    qsort(sorted, (size_t)bodies, sizeof *sorted, ascending_keys);
    qsort(sorted + bodies, (size_t)(count - bodies), sizeof *sorted, ascending_keys);
    fd_energy_totals* totals = &world->energy_totals;
    for (int64_t k = 0; k < bodies; ++k) {
        double energies[2];
        memcpy(energies, sorted[k] + 2, sizeof energies);
        totals->removed += energies[0];
        totals->removed_gravitational += energies[1];
    }
    fd_energy_books books[FD_MECHANISM_COUNT];
    for (int64_t k = bodies; k < count; ++k) {
        books_of(sorted[k], book_count, books);
        for (int m = 0; m < book_count; ++m) {
            totals->released += books[m].stored;
            world->stored_energy[m] -= books[m].stored;
        }
    }
    free(sorted);
    return FD_OK;
}

/* ---------------------------------------------------------------- energy gain */

fd_energy_gain_parts fd_partition_energy_gain_parts(const fd_partition* part)
{
    return fd_world_energy_gain_parts(part->world, part->role, FD_ROLE_OWNED);
}
