/* Arrays that start at different places within a page.
 *
 * Large arrays from malloc come from mmap and all start at the same offset
 * within a page, so element b of a dozen such arrays falls in the same set
 * of the L1 cache: a loop that streams them (the integrator reads and writes
 * positions, orientations, velocities, spins, forces and torques, old and
 * new) thrashes that set (PERFORMANCE.md measured 25 times slower). Each
 * array here starts a different number of cache lines into its block.
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#ifndef FD_CORE_STAGGERED_H
#define FD_CORE_STAGGERED_H

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* A block of `size` bytes whose start is `lane` x 7 cache lines (mod 63)
 * plus one line into the allocation; NULL when out of memory. */
static inline void* fd_staggered_alloc(size_t size, int lane)
{
    size_t offset = 64u * (size_t)(1 + (lane * 7) % 63);
    unsigned char* base = malloc(size + offset);
    if (base == NULL) {
        return NULL;
    }
    unsigned char* data = base + offset;
    memcpy(data - sizeof base, &base, sizeof base);
    fd_advise_large_pages(data, size);
    return data;
}

static inline void fd_staggered_free(void* data)
{
    if (data != NULL) {
        unsigned char* base;
        memcpy(&base, (unsigned char*)data - sizeof base, sizeof base);
        free(base);
    }
}

/* The array grown (or shrunk) from old_size to size bytes, keeping its
 * contents; NULL (old kept) when out of memory. */
static inline void* fd_staggered_resize(void* data, size_t old_size, size_t size, int lane)
{
    void* grown = fd_staggered_alloc(size, lane);
    if (grown != NULL && data != NULL) {
        memcpy(grown, data, old_size < size ? old_size : size);
        fd_staggered_free(data);
    }
    return grown;
}

#endif
