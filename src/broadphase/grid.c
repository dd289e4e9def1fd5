#include <stdlib.h>
#include <string.h>

#include "broadphase/broadphase.h"

static bool grow(void** array, int* capacity, int needed, size_t element_size)
{
    if (needed <= *capacity) {
        return true;
    }
    int new_capacity = *capacity > 0 ? *capacity : 64;
    while (new_capacity < needed) {
        new_capacity *= 2;
    }
    void* grown = realloc(*array, (size_t)new_capacity * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    *capacity = new_capacity;
    return true;
}

void fd_broadphase_free(fd_broadphase* broadphase)
{
    free(broadphase->pairs);
    free(broadphase->plane_pairs);
    free(broadphase->grid_pairs);
    free(broadphase->bucket_start);
    free(broadphase->bucket_stamp);
    free(broadphase->bucket_bodies);
    free(broadphase->body_bucket);
    free(broadphase->body_cell);
    memset(broadphase, 0, sizeof *broadphase);
}

static uint32_t cell_hash(int64_t cx, int64_t cy, int64_t cz, uint32_t mask)
{
    /* Teschner et al. (2003) spatial hash primes. */
    uint64_t h = ((uint64_t)cx * 73856093u) ^ ((uint64_t)cy * 19349663u) ^ ((uint64_t)cz * 83492791u);
    h ^= h >> 29;
    return (uint32_t)(h & mask);
}

static int compare_keys(const void* a, const void* b)
{
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

static bool collect_plane_pairs(fd_broadphase* bp)
{
    int count = 0;
    for (int p = 0; p < bp->body_count; ++p) {
        if (!bp->is_plane[p]) {
            continue;
        }
        fd_vec3 normal = bp->plane_normals[p];
        for (int b = 0; b < bp->body_count; ++b) {
            if (bp->is_plane[b] || bp->is_static[b]) {
                continue;
            }
            double distance = fd_v3_dot(normal, fd_v3_sub(bp->states[b].position, bp->states[p].position));
            if (distance < bp->radii[b] + bp->margin) {
                if (!grow((void**)&bp->plane_pairs, &bp->plane_pair_capacity, count + 1, sizeof(uint64_t))) {
                    return false;
                }
                int lo = p < b ? p : b, hi = p < b ? b : p;
                bp->plane_pairs[count++] = (uint64_t)lo << 32 | (uint32_t)hi;
            }
        }
    }
    if (count > 1) {
        qsort(bp->plane_pairs, (size_t)count, sizeof(uint64_t), compare_keys);
    }
    bp->pair_count = count; /* temporarily: number of plane pairs */
    return true;
}

static bool collect_grid_pairs(fd_broadphase* bp, int* grid_count)
{
    int n = bp->body_count;
    if (n > bp->scratch_capacity) {
        free(bp->bucket_bodies);
        free(bp->body_bucket);
        free(bp->body_cell);
        bp->bucket_bodies = malloc((size_t)n * sizeof(int32_t));
        bp->body_bucket = malloc((size_t)n * sizeof(uint32_t));
        bp->body_cell = malloc((size_t)n * 3 * sizeof(int64_t));
        if (!bp->bucket_bodies || !bp->body_bucket || !bp->body_cell) {
            return false;
        }
        bp->scratch_capacity = n;
    }
    int bucket_count = 64;
    while (bucket_count < 2 * n) {
        bucket_count *= 2;
    }
    if (bucket_count != bp->bucket_count) {
        free(bp->bucket_start);
        free(bp->bucket_stamp);
        bp->bucket_start = malloc((size_t)(bucket_count + 1) * sizeof(uint32_t));
        bp->bucket_stamp = malloc((size_t)bucket_count * sizeof(int32_t));
        if (!bp->bucket_start || !bp->bucket_stamp) {
            return false;
        }
        bp->bucket_count = bucket_count;
    }
    uint32_t mask = (uint32_t)bucket_count - 1;
    for (int k = 0; k < bucket_count; ++k) {
        bp->bucket_stamp[k] = -1;
    }
    double inverse_cell = 1.0 / bp->cell_size;

    /* Counting sort of the bodies into buckets; within a bucket, ascending index. */
    memset(bp->bucket_start, 0, (size_t)(bucket_count + 1) * sizeof(uint32_t));
    for (int b = 0; b < n; ++b) {
        if (bp->is_plane[b]) {
            continue;
        }
        int64_t* cell = &bp->body_cell[3 * b];
        cell[0] = (int64_t)floor(bp->states[b].position.x * inverse_cell);
        cell[1] = (int64_t)floor(bp->states[b].position.y * inverse_cell);
        cell[2] = (int64_t)floor(bp->states[b].position.z * inverse_cell);
        uint32_t bucket = cell_hash(cell[0], cell[1], cell[2], mask);
        bp->body_bucket[b] = bucket;
        bp->bucket_start[bucket + 1]++;
    }
    for (int k = 0; k < bucket_count; ++k) {
        bp->bucket_start[k + 1] += bp->bucket_start[k];
    }
    /* Fill using a running cursor per bucket (reuse bucket_start shifted). */
    for (int b = 0; b < n; ++b) {
        if (bp->is_plane[b]) {
            continue;
        }
        uint32_t bucket = bp->body_bucket[b];
        bp->bucket_bodies[bp->bucket_start[bucket]++] = b;
    }
    /* Restore starts: after the fill, bucket_start[k] is the end of bucket k. */
    for (int k = bucket_count; k > 0; --k) {
        bp->bucket_start[k] = bp->bucket_start[k - 1];
    }
    bp->bucket_start[0] = 0;

    int count = 0;
    for (int i = 0; i < n; ++i) {
        if (bp->is_plane[i]) {
            continue;
        }
        const int64_t* cell = &bp->body_cell[3 * i];
        uint32_t buckets[27];
        int bucket_used = 0;
        for (int dx = -1; dx <= 1; ++dx) {
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dz = -1; dz <= 1; ++dz) {
                    uint32_t bucket = cell_hash(cell[0] + dx, cell[1] + dy, cell[2] + dz, mask);
                    if (bp->bucket_stamp[bucket] != i) {
                        bp->bucket_stamp[bucket] = i;
                        buckets[bucket_used++] = bucket;
                    }
                }
            }
        }
        int first = count;
        for (int u = 0; u < bucket_used; ++u) {
            for (uint32_t k = bp->bucket_start[buckets[u]]; k < bp->bucket_start[buckets[u] + 1]; ++k) {
                int j = bp->bucket_bodies[k];
                if (j <= i || (bp->is_static[i] && bp->is_static[j])) {
                    continue;
                }
                double reach = bp->radii[i] + bp->radii[j] + bp->margin;
                if (fd_v3_length_squared(fd_v3_sub(bp->states[j].position, bp->states[i].position)) >= reach * reach) {
                    continue;
                }
                if (!grow((void**)&bp->grid_pairs, &bp->grid_pair_capacity, count + 1, sizeof(uint64_t))) {
                    return false;
                }
                /* Insertion into this body's sorted run (runs are short). */
                uint64_t key = (uint64_t)i << 32 | (uint32_t)j;
                int at = count++;
                while (at > first && bp->grid_pairs[at - 1] > key) {
                    bp->grid_pairs[at] = bp->grid_pairs[at - 1];
                    --at;
                }
                bp->grid_pairs[at] = key;
            }
        }
    }
    *grid_count = count;
    return true;
}

bool fd_broadphase_update(fd_broadphase* bp)
{
    if (!collect_plane_pairs(bp)) {
        return false;
    }
    int plane_count = bp->pair_count;
    int grid_count = 0;
    if (!collect_grid_pairs(bp, &grid_count)) {
        return false;
    }
    if (!grow((void**)&bp->pairs, &bp->pair_capacity, plane_count + grid_count, sizeof(uint64_t))) {
        return false;
    }
    /* Merge the two ascending streams (they are disjoint). */
    int a = 0, b = 0, out = 0;
    while (a < plane_count || b < grid_count) {
        if (b >= grid_count || (a < plane_count && bp->plane_pairs[a] < bp->grid_pairs[b])) {
            bp->pairs[out++] = bp->plane_pairs[a++];
        } else {
            bp->pairs[out++] = bp->grid_pairs[b++];
        }
    }
    bp->pair_count = out;
    return true;
}
