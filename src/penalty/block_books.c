/* The ledger's books of the block kernel's lanes (block_books.h).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include "penalty/block_books.h"

#include <string.h>

#include "core/grow.h"

/* One mechanism's lifetime books of a block lane: after = before + the
 * step's increments (stored, dashpot, slip, created), stored = the step's. */
static inline __attribute__((always_inline)) void book_lane(fd_energy_books* restrict after,
                                                            const fd_energy_books* restrict before,
                                                            const double (*step)[FD_BLOCK], int c)
{
    after->stored = step[0][c];
    after->dashpot = before->dashpot + step[1][c];
    after->slip = before->slip + step[2][c];
    after->created = before->created + step[3][c];
}

void fd_book_block_lane(fd_contact_pool* pool, const fd_sphere_block* block, const fd_block_law* law, int c,
                        int32_t slot)
{
    if (!pool->lifetime_books) {
        /* The stored energies only (a mechanism the law lacks keeps its 0). */
        double* stored = fd_stored_after(pool, slot);
        stored[FD_MECHANISM_NORMAL] = block->books[FD_MECHANISM_NORMAL][0][c];
        if (law->slide != FD_KIND_NONE) {
            stored[FD_MECHANISM_SLIDE] = block->books[FD_MECHANISM_SLIDE][0][c];
        }
        if (law->roll != FD_KIND_NONE) {
            stored[FD_MECHANISM_ROLL] = block->books[FD_MECHANISM_ROLL][0][c];
        }
        if (law->spin != FD_KIND_NONE) {
            stored[FD_MECHANISM_SPIN] = block->books[FD_MECHANISM_SPIN][0][c];
        }
        return;
    }
    const fd_energy_books* before = fd_books_before(pool, slot);
    fd_energy_books* after = fd_books_after(pool, slot);
    after[FD_MECHANISM_NORMAL].stored = block->books[FD_MECHANISM_NORMAL][0][c];
    after[FD_MECHANISM_NORMAL].dashpot = before[FD_MECHANISM_NORMAL].dashpot + block->books[FD_MECHANISM_NORMAL][1][c];
    if (law->slide != FD_KIND_NONE) {
        book_lane(&after[FD_MECHANISM_SLIDE], &before[FD_MECHANISM_SLIDE], block->books[FD_MECHANISM_SLIDE], c);
    }
    if (law->roll != FD_KIND_NONE) {
        book_lane(&after[FD_MECHANISM_ROLL], &before[FD_MECHANISM_ROLL], block->books[FD_MECHANISM_ROLL], c);
    }
    if (law->spin != FD_KIND_NONE) {
        book_lane(&after[FD_MECHANISM_SPIN], &before[FD_MECHANISM_SPIN], block->books[FD_MECHANISM_SPIN], c);
    }
}

bool fd_store_book_group(fd_penalty_thread* th, int32_t index, const fd_energy_books* sums)
{
    if (th->book_group_count == th->book_group_capacity &&
        !fd_grow((void**)&th->book_groups, &th->book_group_capacity, th->book_group_count + 1,
                 sizeof *th->book_groups)) {
        return false;
    }
    fd_book_group* group = &th->book_groups[th->book_group_count++];
    group->group = index;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        group->books[m] = sums[m];
    }
    return true;
}

void fd_add_block_books(fd_energy_books* sums, const fd_sphere_block* block, const fd_block_law* law, int c)
{
    sums[FD_MECHANISM_NORMAL].stored += block->books[FD_MECHANISM_NORMAL][0][c];
    sums[FD_MECHANISM_NORMAL].dashpot += block->books[FD_MECHANISM_NORMAL][1][c];
    const fd_submodel_kind kinds[FD_MECHANISM_COUNT] = {FD_KIND_NONE, law->slide, law->roll, law->spin};
    for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
        if (kinds[m] != FD_KIND_NONE) {
            sums[m].stored += block->books[m][0][c];
            sums[m].dashpot += block->books[m][1][c];
            sums[m].slip += block->books[m][2][c];
            sums[m].created += block->books[m][3][c];
        }
    }
}

bool fd_store_book_entry(fd_penalty_thread* th, int i, int j, const fd_sphere_block* block, const fd_block_law* law,
                         int c, const fd_energy_books* scalar_books)
{
    if (th->book_entry_count == th->book_entry_capacity &&
        !fd_grow((void**)&th->book_entries, &th->book_entry_capacity, th->book_entry_count + 1,
                 sizeof *th->book_entries)) {
        return false;
    }
    fd_book_entry* entry = &th->book_entries[th->book_entry_count++];
    entry->key = (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
    if (block == NULL) {
        memcpy(entry->books, scalar_books, sizeof entry->books);
    } else {
        memset(entry->books, 0, sizeof entry->books);
        fd_add_block_books(entry->books, block, law, c);
    }
    return true;
}

/* The sums of the mechanisms present, field by field: copied as one block,
 * the loads that follow straddle its stores and wait for them (store
 * forwarding fails; perf put a fifth of sum_books_of's time there). */
static inline __attribute__((always_inline)) void copy_sums(fd_energy_books* restrict to,
                                                            const fd_energy_books* restrict from,
                                                            const bool* present)
{
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        if (present[m]) {
            to[m].stored = from[m].stored;
            to[m].dashpot = from[m].dashpot;
            to[m].slip = from[m].slip;
            to[m].created = from[m].created;
        }
    }
}

/* The step books of the chunk's slots from `begin` on while their rows are
 * those of one group (from first_row), into its running sums: each sum in
 * slot order, as fd_add_block_books adds them one contact at a time (the
 * same bits), the sums held in registers over the loop (a sum kept in
 * memory waits for the store of the one before) and the law's mechanisms
 * constants of the loop (the normal spring has no slip and creates
 * nothing). Without lifetime books (stored_after not NULL) each contact's
 * stored energies go to its slot on the way. Returns the first slot of
 * another group (or the chunk's end). */
static inline __attribute__((always_inline)) int sum_books_of(fd_energy_books* restrict running,
                                                              double* restrict stored_after, size_t book_count,
                                                              fd_sphere_block* const* blocks,
                                                              const int8_t* slot_block, const int8_t* slot_lane,
                                                              const int32_t* slot_contact, const int32_t* slot_i,
                                                              unsigned first_row, int begin, int chunk,
                                                              bool slide, bool roll, bool spin)
{
    const bool present[FD_MECHANISM_COUNT] = {true, slide, roll, spin};
    fd_energy_books sums[FD_MECHANISM_COUNT];
    copy_sums(sums, running, present);
    int s = begin;
    for (; s < chunk && (unsigned)slot_i[s] - first_row < FD_BOOK_GROUP_ROWS; ++s) {
        const fd_sphere_block* block = blocks[slot_block[s]];
        int c = slot_lane[s];
        double* stored = stored_after != NULL ? stored_after + (size_t)slot_contact[s] * book_count : NULL;
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            if (!present[m]) {
                continue;
            }
            if (stored != NULL) {
                stored[m] = block->books[m][0][c]; /* a mechanism the law lacks keeps its 0 */
            }
            sums[m].stored += block->books[m][0][c];
            sums[m].dashpot += block->books[m][1][c];
            if (m != FD_MECHANISM_NORMAL) {
                sums[m].slip += block->books[m][2][c];
                sums[m].created += block->books[m][3][c];
            }
        }
    }
    copy_sums(running, sums, present);
    return s;
}

bool fd_book_blocks(fd_penalty_thread* th, fd_contact_pool* pool, fd_sphere_block* const* blocks,
                    const int8_t* slot_block, const int8_t* slot_lane, const fd_block_law* law, int chunk,
                    const int32_t* slot_contact, const int32_t* slot_i, int32_t* running_group,
                    fd_energy_books* running)
{
    double* stored_after = NULL;
    if (pool->lifetime_books) {
        for (int s = 0; s < chunk; ++s) {
            fd_book_block_lane(pool, blocks[slot_block[s]], law, slot_lane[s], slot_contact[s]);
        }
    } else {
        stored_after = fd_stored_after(pool, 0);
    }
    size_t book_count = (size_t)pool->book_count;
    bool slide = law->slide != FD_KIND_NONE, roll = law->roll != FD_KIND_NONE, spin = law->spin != FD_KIND_NONE;
    for (int begin = 0; begin < chunk;) {
        if (!fd_enter_row_group(th, running_group, running, slot_i[begin])) {
            return false;
        }
        /* The run of the group's rows from `begin` (at least that row's
         * contact; the rows come in any order). */
        unsigned first_row = (unsigned)*running_group * FD_BOOK_GROUP_ROWS;
#define FD_SUM_BOOKS(slide, roll, spin)                                                                                \
    sum_books_of(running, stored_after, book_count, blocks, slot_block, slot_lane, slot_contact, slot_i, first_row,   \
                 begin, chunk, slide, roll, spin)
        if (!slide) {
            begin = FD_SUM_BOOKS(false, false, false);
        } else if (!roll && !spin) {
            begin = FD_SUM_BOOKS(true, false, false);
        } else if (!roll) {
            begin = FD_SUM_BOOKS(true, false, true);
        } else if (!spin) {
            begin = FD_SUM_BOOKS(true, true, false);
        } else {
            begin = FD_SUM_BOOKS(true, true, true);
        }
#undef FD_SUM_BOOKS
    }
    return true;
}
