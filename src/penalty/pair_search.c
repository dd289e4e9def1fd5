/* The pair search of the neighbour list: every pair of bodies whose bounding
 * spheres come within `margin`, as rows of ascending partners.
 *
 * A dense cell grid over the bodies' bounding box (cells at least as wide as
 * the largest reach, so a pair is in the same or in adjacent cells), bodies
 * counted into cells, each cell's bodies copied with their centre and radius
 * in cell order. Each body then looks at the later bodies of its own cell and
 * at the 13 cells of the half stencil (the neighbours ahead of its cell in z,
 * then y, then x), so each pair is tested once, not twice as a full 27-cell
 * scan of every body would. The pairs found go to their row, the lower body
 * index, by a counting sort, and each short row is sorted.
 *
 * Walls (planes, and finite walls: mesh patches, cylinders, disks) are
 * tested against every dynamic body apart (they are few, and large or
 * unbounded: fd_wall_in_reach). Pairs of two static bodies are left out, and
 * so are the slots of removed bodies (src/engine/removal.c).
 *
 * Along a periodic axis the grid spans the box, its cells a whole fraction
 * of the period, and the stencil wraps: a cell past the last is the first,
 * its bodies seen shifted by the period (with at least 3 cells per period
 * the 13 cells of a half stencil are distinct, so a pair is still found
 * once, through the one image within reach). Periodic worlds with fewer
 * cells per period, and sparse worlds (more than 4 cells per body: a body
 * far from the rest), take the general broad phase (src/broadphase/). The
 * search's arrays are kept from one build to the next.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

typedef struct placed_body {
    double x, y, z, reach;        /* reach: bounding radius + margin / 2 each, so a pair touches below the sum */
    int32_t body;
    int32_t fixed;                /* 1: static, 2: passive (FD_MOTION_PASSIVE); a pair whose two share a bit is
                                   * left out (two static bodies never touch; two passive ones are another
                                   * rank's to compute: fd_pair_left_to_other_ranks, as two bits) */
} placed_body;

typedef struct found_pairs {
    uint32_t* pairs;              /* (row, partner) */
    int64_t count, capacity;
} found_pairs;

/* The search's buffers of pairs found, one per thread, kept from one build
 * to the next (their count drifts; kept, they cost no page faults the next
 * time). Its other arrays (cells, bodies placed, rows) are carved from the
 * penalty's scratch block, which the packing of the pool uses after it
 * (penalty.h). */
struct fd_pair_scratch {
    found_pairs* buffers;
    int buffer_count;
};

/* Up to this many threads the rows fill in thread order from per-thread
 * counts (4 bytes per body and thread); beyond, with atomic counters. */
enum { ORDERED_FILL_THREADS = 8 };

void fd_pair_scratch_free(struct fd_pair_scratch* scratch)
{
    if (scratch == NULL) {
        return;
    }
    for (int t = 0; t < scratch->buffer_count; ++t) {
        free(scratch->buffers[t].pairs);
    }
    free(scratch->buffers);
    free(scratch);
}

size_t fd_pair_scratch_memory(const struct fd_pair_scratch* scratch)
{
    if (scratch == NULL) {
        return 0;
    }
    size_t bytes = 0;
    for (int t = 0; t < scratch->buffer_count; ++t) {
        bytes += (size_t)scratch->buffers[t].capacity * 2 * sizeof(uint32_t);
    }
    return bytes;
}

static bool push_pair(found_pairs* buffer, int a, int b)
{
    if (buffer->count == buffer->capacity &&
        !fd_grow((void**)&buffer->pairs, &buffer->capacity, buffer->count + 1, 2 * sizeof(uint32_t))) {
        return false;
    }
    int row = a < b ? a : b, partner = a < b ? b : a;
    buffer->pairs[2 * buffer->count] = (uint32_t)row;
    buffer->pairs[2 * buffer->count + 1] = (uint32_t)partner;
    buffer->count++;
    return true;
}

/* Room for `extra` more pairs. */
static bool reserve_pairs(found_pairs* buffer, int64_t extra)
{
    return buffer->capacity - buffer->count >= extra ||
           fd_grow((void**)&buffer->pairs, &buffer->capacity, buffer->count + extra, 2 * sizeof(uint32_t));
}

/* Body a against the bodies [from, to) of `placed` seen shifted by `shift`
 * (a periodic image; zero otherwise): each candidate is written and kept
 * when near, without a branch (about a quarter are near, in no pattern a
 * predictor could follow). The caller reserved room for to - from pairs. */
static inline __attribute__((always_inline)) void test_run(const placed_body a, const placed_body* restrict placed,
                                                           int32_t from, int32_t to, const double shift[3],
                                                           found_pairs* found)
{
    uint32_t* restrict pairs = found->pairs;
    int64_t count = found->count;
    for (int32_t m = from; m < to; ++m) {
        const placed_body* b = &placed[m];
        double dx = b->x + shift[0] - a.x, dy = b->y + shift[1] - a.y, dz = b->z + shift[2] - a.z;
        double reach = a.reach + b->reach;
        int near = (dx * dx + dy * dy + dz * dz < reach * reach) & !(a.fixed & b->fixed);
        pairs[2 * count] = (uint32_t)(a.body < b->body ? a.body : b->body);
        pairs[2 * count + 1] = (uint32_t)(a.body < b->body ? b->body : a.body);
        count += near;
    }
    found->count = count;
}

/* The grid of the search: its cells per axis and, in a periodic world, per
 * axis whether it wraps and its period. */
typedef struct wrapped_grid {
    int64_t extent[3];
    bool periodic[3];
    double length[3];
} wrapped_grid;

/* What the bodies of one cell are tested against besides the later bodies
 * of their own cell: runs [begin, end) of placed bodies, each seen shifted
 * by shift (a periodic image; zero otherwise). At most the 13 cells of the
 * half stencil. */
typedef struct stencil_runs {
    int count;
    int32_t begin[13], end[13];
    double shift[13][3];
} stencil_runs;

/* The half stencil of cell (x, y, z) in a world without a periodic axis, as
 * runs of cells adjacent in x, which are adjacent in the cell order: the
 * three cells x - 1 .. x + 1 of the row ahead in y and of the three rows
 * ahead in z. This row's next cell follows the cell's own bodies with no gap,
 * so it joins their run: the end of that run is returned. */
static int32_t adjacent_stencil(const int32_t* cell_start, const int64_t extent[3], int64_t x, int64_t y, int64_t z,
                                stencil_runs* runs)
{
    int64_t c = (z * extent[1] + y) * extent[0] + x;
    int64_t x_low = x > 0 ? x - 1 : 0, x_high = x + 1 < extent[0] ? x + 1 : x;
    const int64_t rows[4][2] = {{z, y + 1}, {z + 1, y - 1}, {z + 1, y}, {z + 1, y + 1}};
    runs->count = 0;
    for (int r = 0; r < 4; ++r) {
        int64_t rz = rows[r][0], ry = rows[r][1];
        if (ry < 0 || ry >= extent[1] || rz >= extent[2]) {
            continue;
        }
        int64_t row = (rz * extent[1] + ry) * extent[0];
        int32_t from = cell_start[row + x_low], to = cell_start[row + x_high + 1];
        if (from < to) {
            runs->begin[runs->count] = from;
            runs->end[runs->count] = to;
            memset(runs->shift[runs->count], 0, sizeof runs->shift[0]);
            runs->count++;
        }
    }
    return cell_start[c + (x_high > x ? 1 : 0) + 1];
}

/* The half stencil of cell (x, y, z) in a world with a periodic axis: its 13
 * cells one by one, each wrapped into the grid with the shift of its image
 * (runs of adjacent cells would break where x wraps). The end of the cell's
 * own bodies is returned. */
static int32_t wrapped_stencil(const int32_t* cell_start, const wrapped_grid* grid, int64_t x, int64_t y, int64_t z,
                               stencil_runs* runs)
{
    /* The half stencil: (0, 0, +1), then y + 1 and z + 1 with every x. */
    static const int offsets[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},   {1, 1, 0},  {-1, -1, 1},
                                       {0, -1, 1}, {1, -1, 1}, {-1, 0, 1},  {0, 0, 1},  {1, 0, 1},
                                       {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};
    const int64_t* extent = grid->extent;
    runs->count = 0;
    for (int o = 0; o < 13; ++o) {
        int64_t at[3] = {x + offsets[o][0], y + offsets[o][1], z + offsets[o][2]};
        double image[3] = {0.0, 0.0, 0.0};
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
            if (at[a] >= 0 && at[a] < extent[a]) {
                continue;
            }
            if (!grid->periodic[a]) {
                inside = false;
                break;
            }
            /* past the last cell: the first, one period on; before the first: the last, one back */
            image[a] = at[a] < 0 ? -grid->length[a] : grid->length[a];
            at[a] = at[a] < 0 ? at[a] + extent[a] : at[a] - extent[a];
        }
        int64_t neighbour = (at[2] * extent[1] + at[1]) * extent[0] + at[0];
        if (!inside || cell_start[neighbour] == cell_start[neighbour + 1]) {
            continue;
        }
        runs->begin[runs->count] = cell_start[neighbour];
        runs->end[runs->count] = cell_start[neighbour + 1];
        memcpy(runs->shift[runs->count], image, sizeof image);
        runs->count++;
    }
    return cell_start[(z * extent[1] + y) * extent[0] + x + 1];
}

/* The pairs of the bodies in z rows [z_begin, z_end) with the bodies of
 * their half stencil (which may lie in the next slab): each body of a cell
 * against the later bodies of its run [begin, own_end) and against the
 * stencil's runs, room reserved for all of them first. */
static bool search_slab(const placed_body* placed, const int32_t* cell_start, const wrapped_grid* grid, bool wraps,
                        int64_t z_begin, int64_t z_end, found_pairs* found)
{
    const int64_t* extent = grid->extent;
    static const double unshifted[3] = {0.0, 0.0, 0.0};
    for (int64_t z = z_begin; z < z_end; ++z) {
        for (int64_t y = 0; y < extent[1]; ++y) {
            for (int64_t x = 0; x < extent[0]; ++x) {
                int64_t c = (z * extent[1] + y) * extent[0] + x;
                int32_t begin = cell_start[c], end = cell_start[c + 1];
                if (begin == end) {
                    continue;
                }
                stencil_runs runs;
                int32_t own_end = wraps ? wrapped_stencil(cell_start, grid, x, y, z, &runs)
                                        : adjacent_stencil(cell_start, extent, x, y, z, &runs);
                int64_t candidates = own_end - begin;
                for (int r = 0; r < runs.count; ++r) {
                    candidates += runs.end[r] - runs.begin[r];
                }
                if (!reserve_pairs(found, candidates)) {
                    return false;
                }
                for (int32_t k = begin; k < end; ++k) {
                    const placed_body a = placed[k];
                    test_run(a, placed, k + 1, own_end, unshifted, found);
                    for (int r = 0; r < runs.count; ++r) {
                        test_run(a, placed, runs.begin[r], runs.end[r], runs.shift[r], found);
                    }
                }
            }
        }
    }
    return true;
}

/* The first z row of slab t of `threads`: the first row whose bodies start
 * at or after t / threads of the gridded bodies (all rows for the last). */
static int64_t slab_start(const int32_t* cell_start, const int64_t extent[3], int gridded, int t, int threads)
{
    if (t >= threads) {
        return extent[2];
    }
    int64_t layer = extent[0] * extent[1];
    int64_t z = 0;
    while (z < extent[2] && (int64_t)cell_start[z * layer] * threads < (int64_t)gridded * t) {
        ++z;
    }
    return z;
}

/* Thread t's share of the pairs: the slab of z rows it takes, and its range
 * of bodies against every wall. False when out of memory. */
static bool search_share(const fd_world* world, const placed_body* placed, const int32_t* cell_start,
                         const wrapped_grid* grid, int gridded, double margin, int t, int threads, found_pairs* found)
{
    int n = world->body_count;
    const fd_body_motion* motion = world->motion;
    const fd_vec3* positions = world->position;
    const double* radii = world->bounding_radii;
    if (!fd_grow((void**)&found->pairs, &found->capacity, 4 * (int64_t)n / threads + 64, 2 * sizeof(uint32_t))) {
        return false;
    }
    int64_t z_begin = slab_start(cell_start, grid->extent, gridded, t, threads);
    int64_t z_end = slab_start(cell_start, grid->extent, gridded, t + 1, threads);
    if (!search_slab(placed, cell_start, grid, world->periodic.any, z_begin, z_end, found)) {
        return false;
    }
    int b_begin = (int)((int64_t)n * t / threads), b_end = (int)((int64_t)n * (t + 1) / threads);
    for (int p = 0; p < n; ++p) {
        if (!(motion[p].flags & FD_MOTION_WALL)) {
            continue;
        }
        const fd_wall_reach wall = fd_world_wall_reach(world, p);
        for (int b = b_begin; b < b_end; ++b) {
            if ((motion[b].flags & FD_MOTION_WALL) || !(motion[b].flags & FD_MOTION_DYNAMIC) ||
                fd_pair_left_to_other_ranks(motion[p].flags, motion[b].flags)) {
                continue;
            }
            if (fd_wall_reach_test(&wall, positions[b], radii[b] + margin) && !push_pair(found, p, b)) {
                return false;
            }
        }
    }
    return true;
}

/* x wrapped into the box along the periodic axes (the stepper wraps every
 * body after each step; this keeps the cell of a body exact whatever). */
static fd_vec3 wrapped(const fd_periodic* periodic, fd_vec3 x)
{
    double c[3] = {x.x, x.y, x.z};
    for (int a = 0; a < 3; ++a) {
        if (periodic->axis[a]) {
            c[a] -= periodic->length[a] * floor((c[a] - periodic->low[a]) * periodic->inverse_length[a]);
        }
    }
    return (fd_vec3){c[0], c[1], c[2]};
}

/* Returns 1 when the rows were built, 0 when this world needs the general
 * broad phase, -1 when out of memory. */
int fd_pair_search(fd_world* world, double margin, fd_neighbor_list* out)
{
    int n = world->body_count;
    const fd_periodic* periodic = &world->periodic;
    const fd_vec3* positions = world->position;
    const double* radii = world->bounding_radii;
    const fd_body_motion* motion = world->motion;
    int threads = world->def.thread_count > 1 ? world->def.thread_count : 1;
    double low[3] = {INFINITY, INFINITY, INFINITY}, high[3] = {-INFINITY, -INFINITY, -INFINITY};
    double largest = 0.0;
    int gridded = 0, not_finite = 0;
    double low_x = INFINITY, low_y = INFINITY, low_z = INFINITY;
    double high_x = -INFINITY, high_y = -INFINITY, high_z = -INFINITY;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1) \
    reduction(min : low_x, low_y, low_z) reduction(max : high_x, high_y, high_z, largest) \
    reduction(+ : gridded, not_finite)
    for (int b = 0; b < n; ++b) {
        if (motion[b].flags & (FD_MOTION_WALL | FD_MOTION_REMOVED)) {
            continue;
        }
        fd_vec3 x = positions[b];
        not_finite += !fd_v3_is_finite(x);
        low_x = fmin(low_x, x.x), low_y = fmin(low_y, x.y), low_z = fmin(low_z, x.z);
        high_x = fmax(high_x, x.x), high_y = fmax(high_y, x.y), high_z = fmax(high_z, x.z);
        largest = fmax(largest, radii[b]);
        ++gridded;
    }
    if (not_finite > 0) {
        return 0; /* the general broad phase leaves such a body out; the step's check reports it */
    }
    low[0] = low_x, low[1] = low_y, low[2] = low_z;
    high[0] = high_x, high[1] = high_y, high[2] = high_z;
    double width = fmax(world->broadphase.cell_size, 2.0 * largest + margin);
    double inverse_width[3] = {1.0, 1.0, 1.0};
    int64_t extent[3] = {1, 1, 1};
    double cells = 1.0;
    for (int a = 0; a < 3 && gridded > 0; ++a) {
        double count;
        if (periodic->axis[a]) {
            /* the box, in whole cells at least `width` wide */
            low[a] = periodic->low[a];
            count = floor(periodic->length[a] / width);
            if (count < 3.0) {
                return 0;
            }
            inverse_width[a] = count / periodic->length[a];
        } else {
            count = floor((high[a] - low[a]) / width) + 1.0;
            inverse_width[a] = 1.0 / width;
        }
        if (!(count < 1e9)) {
            return 0;
        }
        extent[a] = (int64_t)count;
        cells *= count;
    }
    if (cells > 4.0 * gridded + 64.0 || cells > (double)INT32_MAX - 2.0) { /* cell_of is an int32 */
        return 0;
    }
    int64_t cell_count = (int64_t)cells;
    struct fd_pair_scratch* scratch = world->penalty->search;
    if (scratch == NULL) {
        scratch = world->penalty->search = calloc(1, sizeof *scratch);
        if (scratch == NULL) {
            return -1;
        }
    }
    const bool ordered = threads > 1 && threads <= ORDERED_FILL_THREADS;
    const size_t stride = (size_t)n + 1;
    size_t bytes_cell_of = fd_cache_lines(stride * sizeof(int32_t));
    size_t bytes_cell_start = fd_cache_lines(((size_t)cell_count + 2) * sizeof(int32_t));
    size_t bytes_placed = fd_cache_lines(((size_t)gridded + 1) * sizeof(placed_body));
    size_t bytes_row_fill = fd_cache_lines(stride * sizeof(int64_t));
    size_t bytes_thread_rows = ordered ? (size_t)threads * stride * sizeof(int32_t) : 0;
    unsigned char* block = fd_scratch_block(&world->penalty->scratch, &world->penalty->scratch_capacity,
                                            bytes_cell_of + bytes_cell_start + bytes_placed + bytes_row_fill +
                                                bytes_thread_rows);
    if (block == NULL) {
        return -1;
    }
    if (threads > scratch->buffer_count) {
        found_pairs* grown = realloc(scratch->buffers, (size_t)threads * sizeof *grown);
        if (grown == NULL) {
            return -1;
        }
        memset(grown + scratch->buffer_count, 0, (size_t)(threads - scratch->buffer_count) * sizeof *grown);
        scratch->buffers = grown;
        scratch->buffer_count = threads;
    }
    int32_t* cell_of = (int32_t*)block;
    int32_t* cell_start = (int32_t*)(block + bytes_cell_of);
    placed_body* placed = (placed_body*)(block + bytes_cell_of + bytes_cell_start);
    int64_t* row_fill = (int64_t*)(block + bytes_cell_of + bytes_cell_start + bytes_placed);
    int32_t* thread_rows = /* per thread, its pairs per row, then its first slot in each row */
        (int32_t*)(block + bytes_cell_of + bytes_cell_start + bytes_placed + bytes_row_fill);
    found_pairs* buffers = scratch->buffers;
    memset(cell_start, 0, ((size_t)cell_count + 2) * sizeof *cell_start);
    memset(row_fill, 0, ((size_t)n + 1) * sizeof *row_fill);
    for (int t = 0; t < threads; ++t) {
        buffers[t].count = 0;
    }
    /* Counting sort of the bodies into cells (the order within a cell does
     * not matter: each pair is found once whatever it is, and rows are
     * sorted at the end). */
    double half_margin = 0.5 * margin;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int b = 0; b < n; ++b) {
        if (motion[b].flags & (FD_MOTION_WALL | FD_MOTION_REMOVED)) {
            cell_of[b] = -1;
            continue;
        }
        fd_vec3 x = periodic->any ? wrapped(periodic, positions[b]) : positions[b];
        int64_t cx = (int64_t)((x.x - low[0]) * inverse_width[0]);
        int64_t cy = (int64_t)((x.y - low[1]) * inverse_width[1]);
        int64_t cz = (int64_t)((x.z - low[2]) * inverse_width[2]);
        cx = cx < extent[0] ? cx : extent[0] - 1;
        cy = cy < extent[1] ? cy : extent[1] - 1;
        cz = cz < extent[2] ? cz : extent[2] - 1;
        cell_of[b] = (int32_t)((cz * extent[1] + cy) * extent[0] + cx);
        if (threads > 1) {
            __atomic_fetch_add(&cell_start[cell_of[b] + 2], 1, __ATOMIC_RELAXED);
        } else {
            cell_start[cell_of[b] + 2]++;
        }
    }
    for (int64_t c = 0; c < cell_count; ++c) {
        cell_start[c + 2] += cell_start[c + 1];
    }
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int b = 0; b < n; ++b) {
        if (cell_of[b] >= 0) {
            int32_t at = threads > 1 ? __atomic_fetch_add(&cell_start[cell_of[b] + 1], 1, __ATOMIC_RELAXED)
                                     : cell_start[cell_of[b] + 1]++;
            fd_vec3 x = periodic->any ? wrapped(periodic, positions[b]) : positions[b];
            placed[at] = (placed_body){x.x, x.y, x.z, radii[b] + half_margin, b,
                                       ((motion[b].flags & FD_MOTION_DYNAMIC) == 0) |
                                           ((motion[b].flags & FD_MOTION_PASSIVE) != 0) << 1};
        }
    }
    /* cell_start[c] .. cell_start[c + 1] now hold cell c's bodies. Threads
     * take slabs of z rows with about as many bodies each, and the bodies
     * against the planes in ranges; each into its own buffer. */
    wrapped_grid grid = {{extent[0], extent[1], extent[2]},
                         {periodic->axis[0], periodic->axis[1], periodic->axis[2]},
                         {periodic->length[0], periodic->length[1], periodic->length[2]}};
    int failures = 0;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1) reduction(+ : failures)
    for (int t = 0; t < threads; ++t) {
        /* On a copy of the thread's buffer, put back at the end: the
         * buffers lie side by side, and a count that two threads write in
         * one cache line after every run of candidates passes that line
         * from core to core (a two-thread search took 1.5 times one
         * thread's CPU time). */
        found_pairs found = buffers[t];
        failures += !search_share(world, placed, cell_start, &grid, gridded, margin, t, threads, &found);
        buffers[t] = found;
    }
    int64_t total = 0;
    for (int t = 0; t < threads; ++t) {
        total += buffers[t].count;
    }
    if (failures > 0 || total >= INT32_MAX) {
        return -1;
    }
    /* Rows by counting sort, then each row in ascending order. With a few
     * threads each counts its own pairs per row and the rows fill in thread
     * order, without atomics: a wall's long row (its pairs found in
     * ascending body order, thread after thread) then arrives sorted and
     * the insertion sort below passes over it once. (Filled through atomic
     * counters in whatever order two threads' increments fell, such a row
     * of 10^4 entries cost one thread a quadratic sort while the other
     * waited: at 10^5 spheres, a third of a two-thread build.) */
    if (!fd_neighbor_list_reserve(out, total, n)) {
        return -1;
    }
    if (ordered) {
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (int t = 0; t < threads; ++t) {
            int32_t* count = thread_rows + (size_t)t * stride;
            memset(count, 0, stride * sizeof *count);
            const found_pairs* found = &buffers[t];
            for (int64_t k = 0; k < found->count; ++k) {
                count[found->pairs[2 * k]]++;
            }
        }
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int b = 0; b < n; ++b) {
            int64_t length = 0;
            for (int t = 0; t < threads; ++t) {
                length += thread_rows[(size_t)t * stride + (size_t)b];
            }
            row_fill[b + 1] = length;
        }
    } else {
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
        for (int t = 0; t < threads; ++t) {
            const found_pairs* found = &buffers[t];
            for (int64_t k = 0; k < found->count; ++k) {
                if (threads > 1) {
                    __atomic_fetch_add(&row_fill[found->pairs[2 * k] + 1], 1, __ATOMIC_RELAXED);
                } else {
                    row_fill[found->pairs[2 * k] + 1]++;
                }
            }
        }
    }
    for (int b = 0; b < n; ++b) {
        row_fill[b + 1] += row_fill[b];
    }
    memcpy(out->row_start, row_fill, ((size_t)n + 1) * sizeof *row_fill);
    if (ordered) {
        /* Each thread's first slot in each row (total < 2^31: int32 holds it). */
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int b = 0; b < n; ++b) {
            int64_t at = row_fill[b];
            for (int t = 0; t < threads; ++t) {
                int32_t* slot = &thread_rows[(size_t)t * stride + (size_t)b];
                int32_t count = *slot;
                *slot = (int32_t)at;
                at += count;
            }
        }
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (int t = 0; t < threads; ++t) {
            int32_t* next = thread_rows + (size_t)t * stride;
            const found_pairs* found = &buffers[t];
            for (int64_t k = 0; k < found->count; ++k) {
                out->partner[next[found->pairs[2 * k]]++] = (int32_t)found->pairs[2 * k + 1];
            }
        }
    } else {
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
        for (int t = 0; t < threads; ++t) {
            const found_pairs* found = &buffers[t];
            for (int64_t k = 0; k < found->count; ++k) {
                int64_t at = threads > 1 ? __atomic_fetch_add(&row_fill[found->pairs[2 * k]], 1, __ATOMIC_RELAXED)
                                         : row_fill[found->pairs[2 * k]]++;
                out->partner[at] = (int32_t)found->pairs[2 * k + 1];
            }
        }
    }
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int b = 0; b < n; ++b) {
        int64_t length = out->row_start[b + 1] - out->row_start[b];
        if (length < 2) {
            continue; /* nothing to sort; and with no pairs at all partner is NULL (no offset on NULL: UB) */
        }
        int32_t* row = out->partner + out->row_start[b];
        for (int64_t k = 1; k < length; ++k) {
            int32_t value = row[k];
            int64_t at = k;
            while (at > 0 && row[at - 1] > value) {
                row[at] = row[at - 1];
                --at;
            }
            row[at] = value;
        }
    }
    out->count = total;
    out->body_count = n;
    return 1;
}

/* ---------------------------------------------------------------- the list's rows */

static bool reserve_entries(fd_neighbor_list* list, int64_t count)
{
    if (count <= list->capacity) {
        return true;
    }
    /* A list grows little between builds: an eighth to spare. */
    int64_t capacity = count + count / 8 + 1024;
    size_t n = (size_t)capacity;
    bool ok = fd_resize((void**)&list->partner, n, sizeof *list->partner) &&
              fd_resize((void**)&list->kind, n, sizeof *list->kind) &&
              fd_resize((void**)&list->law, n, sizeof *list->law) &&
              fd_resize((void**)&list->contact, n, sizeof *list->contact);
    if (ok) {
        list->capacity = capacity;
    }
    return ok;
}

bool fd_neighbor_list_reserve(fd_neighbor_list* list, int64_t entries, int body_count)
{
    return fd_resize((void**)&list->row_start, (size_t)body_count + 1, sizeof *list->row_start) &&
           reserve_entries(list, entries);
}
