/* Broad phase: a uniform cell grid behind a spatial hash, plus planes handled
 * apart, producing candidate pairs (i < j) in ascending key order. The door
 * of src/broadphase/.
 *
 * Cost per step is linear in the number of bodies: counting sort of bodies
 * into cells (a dense grid over their bounding box when it holds at most 4
 * cells per body, a spatial hash otherwise), then each body scans the bodies
 * of its 27 neighbour cells from a copy of their positions in cell order. Pairs come out in ascending (i, j) order without a global sort:
 * grid pairs are generated per i with their j sorted, plane pairs (few) are
 * sorted on their own, and the two ordered streams are merged. */
#ifndef FD_BROADPHASE_H
#define FD_BROADPHASE_H

#include <stdint.h>

#include "core/math.h"

typedef struct pair_buffer {
    uint64_t* keys;
    int count, capacity;
} pair_buffer;

typedef struct fd_broadphase {
    /* inputs, set by the caller before fd_broadphase_update */
    int body_count;
    const fd_body_state* states;  /* positions are read from here */
    const double* radii;          /* bounding radius; INFINITY for planes */
    const bool* is_static;
    const bool* is_plane;
    const fd_vec3* plane_normals; /* world outward normal of plane bodies */
    double margin;                /* pairs within this gap are candidates */
    double cell_size;             /* > 0 */
    int thread_count;             /* >= 1; results do not depend on it */

    /* outputs */
    uint64_t* pairs;              /* (uint64)i << 32 | j, ascending */
    int pair_count;

    /* scratch */
    int pair_capacity;
    uint64_t* plane_pairs;
    int plane_pair_capacity;
    uint64_t* grid_pairs;
    int grid_pair_capacity;
    uint32_t* bucket_start;       /* bucket_count + 1 */
    int32_t* bucket_stamp;        /* last body that visited the bucket (dedupes hash collisions of neighbours) */
    int32_t* bucket_bodies;
    uint32_t* body_bucket;
    int64_t* body_cell;           /* 3 per body */
    int bucket_count;
    int bucket_capacity;
    void* sorted;                 /* bodies' positions and radii in bucket order */
    pair_buffer* thread_buffers;  /* one per thread (dense grid, several threads) */
    int thread_buffer_count;
    int scratch_capacity;
} fd_broadphase;

void fd_broadphase_free(fd_broadphase* broadphase);
/* Returns false on allocation failure. */
bool fd_broadphase_update(fd_broadphase* broadphase);

#endif
