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
 * contacts. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "parallel/partition.h"
#include "penalty/penalty_internal.h"
#include "world/world_internal.h"

_Static_assert(sizeof(fd_energy_books) == FD_PARTITION_BOOK_WORDS * sizeof(uint64_t),
               "a book travels as FD_PARTITION_BOOK_WORDS words");

enum { LEDGER_RELEASED = 0, LEDGER_GROUP = 1, LEDGER_CONTACT = 2 };

fd_status fd_partition_ledger_supported(const fd_world* world)
{
    if (!world->def.energy_ledger) {
        return FD_OK;
    }
    const char* what = world->outlet_count > 0          ? "outlets"
                       : world->moving_wall_count > 0   ? "moving walls"
                       : world->has_external_loads      ? "external loads on bodies"
                       : world->has_locks               ? "locked degrees of freedom"
                                                        : NULL;
    if (what == NULL) {
        return FD_OK;
    }
    return fd_fail(FD_ERR_UNSUPPORTED,
                   "domain decomposition (more than one process): the energy ledger (world.energy_ledger, "
                   "output.energy_csv) with %s is not supported yet: their energy is a sum over bodies that no one "
                   "rank holds (docs/mpi.md); run it in one process, or without the ledger", what);
}

fd_status fd_partition_ledger_rows(fd_partition* part)
{
    fd_world* world = part->world;
    int n = world->body_count;
    if (!fd_penalty_grow((void**)&part->book_rows, &part->book_row_capacity, n > 0 ? n : 1,
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
    world->penalty.book_rows = part->book_rows;
    return FD_OK;
}

int fd_partition_ledger_words(const fd_partition* part)
{
    return 2 + FD_PARTITION_BOOK_WORDS * part->world->penalty.book_count;
}

static bool add_record(fd_parcel* out, int per, uint64_t kind, uint64_t which, const fd_energy_books* books)
{
    if (!fd_penalty_grow((void**)&out->words, &out->word_capacity, out->word_count + per, sizeof *out->words)) {
        return false;
    }
    uint64_t* at = out->words + out->word_count;
    at[0] = kind;
    at[1] = which;
    memcpy(at + 2, books, (size_t)(per - 2) * sizeof *at);
    out->word_count += per;
    return true;
}

fd_status fd_partition_pack_ledger(const fd_partition* part, fd_parcel* out)
{
    const fd_penalty* p = &part->world->penalty;
    int per = fd_partition_ledger_words(part);
    out->word_count = 0;
    bool ok = true;
    for (int64_t k = 0; k < p->released_count && ok; ++k) {
        ok = add_record(out, per, LEDGER_RELEASED, p->released[k].key, p->released[k].books);
    }
    for (int t = 0; t < p->thread_count && ok; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t g = 0; g < th->book_group_count && ok; ++g) {
            ok = add_record(out, per, LEDGER_GROUP, (uint64_t)th->book_groups[g].group, th->book_groups[g].books);
        }
        for (int64_t k = 0; k < th->book_entry_count && ok; ++k) {
            ok = add_record(out, per, LEDGER_CONTACT, th->book_entries[k].key, th->book_entries[k].books);
        }
    }
    return ok ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the ledger's books");
}

/* A record's place in one process's order: released energies first, by
 * ascending key; then the groups ascending, a shared group's contacts by
 * descending key. */
typedef struct ledger_place {
    uint64_t order[3];
    const uint64_t* record;
} ledger_place;

static int compare_places(const void* a, const void* b)
{
    const ledger_place* x = a;
    const ledger_place* y = b;
    for (int k = 0; k < 3; ++k) {
        if (x->order[k] != y->order[k]) {
            return x->order[k] < y->order[k] ? -1 : 1;
        }
    }
    return 0;
}

static void books_of(const uint64_t* record, int book_count, fd_energy_books books[FD_MECHANISM_COUNT])
{
    memset(books, 0, FD_MECHANISM_COUNT * sizeof *books);
    memcpy(books, record + 2, (size_t)book_count * sizeof *books);
}

fd_status fd_partition_book_ledger(fd_partition* part, const uint64_t* words, int64_t word_count)
{
    fd_world* world = part->world;
    int per = fd_partition_ledger_words(part), book_count = world->penalty.book_count;
    int64_t count = word_count / per;
    ledger_place* places = malloc((size_t)(count > 0 ? count : 1) * sizeof *places);
    if (places == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory summing the ledger");
    }
    for (int64_t k = 0; k < count; ++k) {
        const uint64_t* record = words + k * per;
        ledger_place* place = &places[k];
        place->record = record;
        if (record[0] == LEDGER_RELEASED) {
            place->order[0] = 0;
            place->order[1] = record[1];
            place->order[2] = 0;
        } else {
            uint64_t row = record[0] == LEDGER_GROUP ? record[1] * FD_BOOK_GROUP_ROWS : record[1] >> 32;
            place->order[0] = 1 + row / FD_BOOK_GROUP_ROWS;
            place->order[1] = record[0];
            place->order[2] = ~record[1]; /* contacts by descending key */
        }
    }
    qsort(places, (size_t)count, sizeof *places, compare_places);
    fd_energy_totals* totals = &world->energy_totals;
    fd_energy_books step[FD_MECHANISM_COUNT] = {{0}};
    fd_energy_books books[FD_MECHANISM_COUNT];
    int64_t k = 0;
    for (; k < count && places[k].order[0] == 0; ++k) {
        books_of(places[k].record, book_count, books);
        for (int m = 0; m < book_count; ++m) {
            totals->released += books[m].stored;
        }
    }
    fd_status status = FD_OK;
    while (k < count) {
        uint64_t group = places[k].order[0];
        if (places[k].record[0] == LEDGER_GROUP) {
            /* A group one rank answered for whole: its sum, alone. */
            if (k + 1 < count && places[k + 1].order[0] == group) {
                status = fd_fail(FD_ERR_INVALID_ARGUMENT, "domain decomposition: the ledger's group %llu came from two "
                                 "ranks", (unsigned long long)(group - 1));
                break;
            }
            books_of(places[k].record, book_count, books);
            fd_add_books(step, books);
            ++k;
            continue;
        }
        fd_energy_books running[FD_MECHANISM_COUNT] = {{0}};
        for (; k < count && places[k].order[0] == group; ++k) {
            books_of(places[k].record, book_count, books);
            fd_add_books(running, books);
        }
        fd_add_books(step, running);
    }
    free(places);
    if (status == FD_OK) {
        fd_book_step(world, step);
    }
    return status;
}
