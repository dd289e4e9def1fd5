/* The ledger's books of the block kernel's lanes (law_pass.c): each
 * contact's books after the step in its pool slot (its lifetime books, or
 * only its stored energies), and the step's books summed per group of
 * FD_BOOK_GROUP_ROWS rows in key order (penalty.h, fd_book_group), or kept
 * per contact where a rank books a row's contacts one by one
 * (fd_book_entry). The sums take the same contacts in the same order however
 * the pass found them, so the books do not depend on the path, the chunk or
 * the thread count.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#ifndef FD_PENALTY_BLOCK_BOOKS_H
#define FD_PENALTY_BLOCK_BOOKS_H

#include "penalty/penalty_internal.h"
#include "penalty/sphere_block.h"

/* The lifetime books of a block lane, after = before + the step's (stored =
 * the step's). What the block never changes is left alone: the normal
 * spring's slip and created, and every work, stay at the zero begin_contact
 * put in both buffers (the pool's compaction copies one buffer into both). */
void fd_book_block_lane(fd_contact_pool* pool, const fd_sphere_block* block, const fd_block_law* law, int c,
                        int32_t slot);

/* A group's sums into the thread's list (penalty.h, fd_book_group); false
 * when out of memory. */
bool fd_store_book_group(fd_penalty_thread* th, int32_t index, const fd_energy_books* sums);

/* A block lane's step books (its mechanisms only; the normal spring has
 * no slip and nothing created, no block law does work) into the sums. */
void fd_add_block_books(fd_energy_books* sums, const fd_sphere_block* block, const fd_block_law* law, int c);

/* A contact's step books, one by one (fd_book_entry): a block lane's as
 * fd_add_block_books adds them (the books it leaves out are zeros, which add
 * nothing), else the scalar path's. False when out of memory. */
bool fd_store_book_entry(fd_penalty_thread* th, int i, int j, const fd_sphere_block* block, const fd_block_law* law,
                         int c, const fd_energy_books* scalar_books);

/* The books of a chunk whose every contact is a block lane of one law: each
 * contact's books after the step (fd_book_block_lane, or its stored
 * energies in sum_books_of) and the step's into the sums of the rows'
 * groups, in slot order; sum_books_of for the block's combinations of
 * mechanisms (a roll or spin model without a slide model has no block
 * loop). False when out of memory. */
bool fd_book_blocks(fd_penalty_thread* th, fd_contact_pool* pool, fd_sphere_block* const* blocks,
                    const int8_t* slot_block, const int8_t* slot_lane, const fd_block_law* law, int chunk,
                    const int32_t* slot_contact, const int32_t* slot_i, int32_t* running_group,
                    fd_energy_books* running);

/* The running sums for the group of row i (fd_book_group): the last
 * group's stored when i is in another. False when out of memory. */
static inline __attribute__((always_inline)) bool fd_enter_row_group(fd_penalty_thread* th, int32_t* running_group,
                                                                     fd_energy_books* running, int i)
{
    int32_t row_group = i / FD_BOOK_GROUP_ROWS;
    if (row_group == *running_group) {
        return true;
    }
    if (*running_group >= 0 && !fd_store_book_group(th, *running_group, running)) {
        return false;
    }
    *running_group = row_group;
    /* Field by field, as the loops that sum into them read them
     * (sum_books_of): a block write would make their loads wait. */
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        running[m].stored = running[m].dashpot = running[m].slip = running[m].created = running[m].work = 0.0;
    }
    return true;
}

#endif
