/* Natural merge sort of 64-bit keys (sort_keys.h).
 *
 * Must not touch: the other folders of src/. */
#include "core/sort_keys.h"

#include <stdlib.h>
#include <string.h>

int fd_compare_keys(const void* a, const void* b)
{
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

/* Where the ascending run that begins at `begin` ends. */
static int64_t end_of_run(const uint64_t* keys, int64_t begin, int64_t count)
{
    int64_t k = begin + 1;
    while (k < count && keys[k - 1] <= keys[k]) {
        ++k;
    }
    return k;
}

/* from[begin, middle) and from[middle, end), each ascending, into
 * to[begin, end); equal keys keep their order (the left run's first). */
static void merge_runs(const uint64_t* from, int64_t begin, int64_t middle, int64_t end, uint64_t* to)
{
    int64_t a = begin, b = middle, out = begin;
    while (a < middle && b < end) {
        to[out++] = from[b] < from[a] ? from[b++] : from[a++];
    }
    memcpy(to + out, from + a, (size_t)(middle - a) * sizeof *to);
    out += middle - a;
    memcpy(to + out, from + b, (size_t)(end - b) * sizeof *to);
}

void fd_sort_keys(uint64_t* keys, int64_t count)
{
    if (count < 2 || end_of_run(keys, 0, count) == count) {
        return;
    }
    uint64_t* scratch = malloc((size_t)count * sizeof *scratch);
    if (scratch == NULL) {
        qsort(keys, (size_t)count, sizeof *keys, fd_compare_keys);
        return;
    }
    uint64_t* from = keys;
    uint64_t* to = scratch;
    int64_t runs = 2;
    while (runs > 1) {
        runs = 0;
        for (int64_t begin = 0; begin < count; ++runs) {
            int64_t middle = end_of_run(from, begin, count);
            int64_t end = middle < count ? end_of_run(from, middle, count) : count;
            merge_runs(from, begin, middle, end, to);
            begin = end;
        }
        uint64_t* merged = to;
        to = from;
        from = merged;
    }
    if (from != keys) {
        memcpy(keys, from, (size_t)count * sizeof *keys);
    }
    free(scratch);
}

int64_t fd_lower_bound_key(const uint64_t* keys, int64_t count, uint64_t key)
{
    int64_t low = 0, high = count;
    while (low < high) {
        int64_t middle = low + (high - low) / 2;
        if (keys[middle] < key) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}
