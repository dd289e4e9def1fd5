/* Sorting the 64-bit keys that the ranks gather (contact keys, leaving
 * bodies): each rank's share comes sorted already, so a merge of the runs
 * the keys are in costs O(n log runs) where qsort costs O(n log n) calls of
 * a comparison function (with bsearch, the numbering of new contacts took
 * 0.10 ms a step on each of two ranks at 10^5 spheres; with merges,
 * 0.03 ms). No state.
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
