/* Growing heap arrays, the two ways fricdem's buffers grow, freeing a
 * struct's arrays in one call, and a stream read whole into one. No state.
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#ifndef FD_CORE_GROW_H
#define FD_CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Large arrays backed by the processor's large pages where the kernel lends
 * them on request (Linux's transparent huge pages in "madvise" mode, the
 * default of many distributions): an array past FD_LARGE_PAGES_FROM bytes
 * is past what the TLB maps in 4 KiB pages (a few thousand entries), and a
 * loop over a body's partners in such arrays waits on page walks. The
 * 10^6-sphere pile: 116.8-117.0 -> 108.1-108.9 ns a particle-step. Below it
 * nothing is asked (a large page's untouched rest would count as used).
 * Advice only: where it is refused, or unknown, nothing changes. */
enum { FD_LARGE_PAGES_FROM = 8 << 20 };
void fd_advise_large_pages(void* start, size_t bytes);

/* A scratch block of at least `bytes` in *block (capacity *capacity,
 * updated): kept from one use to the next (no page faults), its contents
 * not kept when it grows (freed, then made again with a quarter to spare).
 * NULL when out of memory (*block freed). For work areas that several stages use one
 * after the other, so that the peak memory is the largest stage's, not
 * their sum. */
void* fd_scratch_block(void** block, size_t* capacity, size_t bytes);
/* `bytes` rounded up to a cache line: the offset of the next array carved
 * from a scratch block. */
static inline size_t fd_cache_lines(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* Room for `needed` elements in *array (capacity *capacity, updated), with a
 * quarter and 256 to spare: for buffers that follow a count that drifts
 * (contacts, a step's records). Contents kept; false when out of memory
 * (*array untouched). */
bool fd_grow(void** array, int64_t* capacity, int64_t needed, size_t element_size);
/* Room for `needed` elements in *array (capacity *capacity, updated), the
 * capacity doubled from `first` until it holds them: for lists that grow by
 * one or a few at a time (inlets, events, laws, the broad phase's pairs).
 * Contents kept; false when out of memory (*array untouched).
 * Inline: the broad phase asks for each pair it finds. */
static inline int fd_doubled_capacity(int capacity, int needed, int first);
static inline bool fd_grow_doubling(void** array, int* capacity, int needed, int first, size_t element_size)
{
    if (needed <= *capacity) {
        return true;
    }
    int grown_capacity = fd_doubled_capacity(*capacity, needed, first);
    void* grown = realloc(*array, (size_t)grown_capacity * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    *capacity = grown_capacity;
    return true;
}
/* The capacity fd_grow_doubling grows `capacity` to for `needed` elements
 * (`needed` > `capacity`), for arrays grown together (a contact set's). */
static inline int fd_doubled_capacity(int capacity, int needed, int first)
{
    int doubled = capacity > 0 ? capacity : first;
    while (doubled < needed) {
        doubled *= 2;
    }
    return doubled;
}
/* *array reallocated to exactly `count` elements (at least one), contents
 * kept; false when out of memory (*array untouched). */
bool fd_resize(void** array, size_t count, size_t element_size);
/* Frees each of the `count` heap blocks in `blocks` (NULL ones are skipped,
 * as free skips them). */
static inline void fd_free_each(void* const* blocks, size_t count)
{
    for (size_t k = 0; k < count; ++k) {
        free(blocks[k]);
    }
}
/* fd_free_each over its arguments, heap pointers of any object type: a
 * struct's arrays freed as one list, FD_FREE_ALL(s->a, s->b, s->c), so that
 * adding an array to the struct means adding it to one list. */
#define FD_FREE_ALL(...)                                                                                   \
    fd_free_each((void* const[]){__VA_ARGS__}, sizeof((void* const[]){__VA_ARGS__}) / sizeof(void*))
/* The rest of an open stream in one heap buffer of *size bytes and a zero
 * byte after them (so that a text reads as a string), for the caller to
 * free; NULL when out of memory (*error = ENOMEM) or when the stream fails
 * (*error = its errno). */
char* fd_read_stream(FILE* stream, size_t* size, int* error);

#endif
