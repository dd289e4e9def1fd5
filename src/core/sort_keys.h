/* Sorting the 64-bit keys that the ranks gather (contact keys, leaving
 * bodies): each rank's share comes sorted already, so a merge of the runs
 * the keys are in costs O(n log runs) where qsort through a comparison
 * function costs O(n log n) calls (a quarter of the ranks' numbering of new
 * contacts at 10^5 spheres, bench/README.md). No state.
 *
 * Must not touch: the other folders of src/. */
#ifndef FD_CORE_SORT_KEYS_H
#define FD_CORE_SORT_KEYS_H

#include <stdint.h>

/* keys[0..count) in ascending order, whatever order they come in (a natural
 * merge sort: the ascending runs found, merged pairwise; qsort where no
 * scratch could be had). */
void fd_sort_keys(uint64_t* keys, int64_t count);

/* The first index k in sorted keys[0..count) with keys[k] >= key (count
 * when none). */
int64_t fd_lower_bound_key(const uint64_t* keys, int64_t count, uint64_t key);

/* qsort's comparison of two uint64_t keys. */
int fd_compare_keys(const void* a, const void* b);

#endif
