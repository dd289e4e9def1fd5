/* The broad phase's grid and spatial hash (broadphase.h gives the design):
 * candidate pairs of bounding spheres in ascending key order. Owns its
 * cells and buffers; reads positions and radii, never the world.
 *
 * Must not touch: the world's storage, contacts, the steppers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broadphase/broadphase.h"
#include "core/grow.h"

/* The broad phase's buffers start at 64 entries and double. */
enum { FIRST_CAPACITY = 64 };

void fd_broadphase_release(fd_broadphase* bp)
{
    FD_FREE_ALL(bp->pairs, bp->plane_pairs, bp->grid_pairs, bp->bucket_start, bp->bucket_stamp, bp->bucket_bodies,
                bp->body_bucket, bp->body_cell, bp->sorted);
    for (int t = 0; t < bp->thread_buffer_count; ++t) {
        free(bp->thread_buffers[t].keys);
    }
    free(bp->thread_buffers);
    bp->pairs = bp->plane_pairs = bp->grid_pairs = NULL;
    bp->bucket_start = bp->body_bucket = NULL;
    bp->bucket_stamp = bp->bucket_bodies = NULL;
    bp->body_cell = NULL;
    bp->sorted = NULL;
    bp->thread_buffers = NULL;
    bp->pair_count = bp->pair_capacity = bp->plane_pair_capacity = bp->grid_pair_capacity = 0;
    bp->bucket_count = bp->bucket_capacity = bp->scratch_capacity = bp->thread_buffer_count = 0;
}

void fd_broadphase_free(fd_broadphase* broadphase)
{
    fd_broadphase_release(broadphase);
    memset(broadphase, 0, sizeof *broadphase);
}

static uint32_t cell_hash(int64_t cx, int64_t cy, int64_t cz, uint32_t mask)
{
    /* Combine the three cell coordinates, then mix with the splitmix64
     * finaliser: XOR-of-primes hashes (Teschner et al. 2003) collide badly on
     * the regular lattices that DEM packings start from. */
    uint64_t h = (uint64_t)cx * 0x9E3779B97F4A7C15ull + (uint64_t)cy * 0xC2B2AE3D27D4EB4Full +
                 (uint64_t)cz * 0x165667B19E3779F9ull;
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 31;
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
        if (!bp->is_wall[p]) {
            continue;
        }
        fd_vec3 normal = bp->plane_normals[p];
        for (int b = 0; b < bp->body_count; ++b) {
            if (bp->is_wall[b] || bp->is_static[b]) { /* a removed body's slot is static */
                continue;
            }
            if (fd_wall_in_reach(bp->positions[p], normal, bp->radii[p], bp->positions[b], bp->radii[b] + bp->margin)) {
                if (!fd_grow_doubling((void**)&bp->plane_pairs, &bp->plane_pair_capacity, count + 1, FIRST_CAPACITY,
                                      sizeof(uint64_t))) {
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

/* Body data in bucket order, so that the inner loop streams through memory. */
typedef struct sorted_body {
    double x, y, z, radius;
    int32_t body;
    int32_t is_static;
} sorted_body;

static bool reserve_scratch(fd_broadphase* bp, int n, int buckets)
{
    if (n > bp->scratch_capacity) {
        free(bp->bucket_bodies);
        free(bp->body_bucket);
        free(bp->body_cell);
        free(bp->sorted);
        bp->bucket_bodies = malloc((size_t)n * sizeof(int32_t));
        bp->body_bucket = malloc((size_t)n * sizeof(uint32_t));
        bp->body_cell = malloc((size_t)n * 3 * sizeof(int64_t));
        bp->sorted = malloc((size_t)n * sizeof(sorted_body));
        if (!bp->bucket_bodies || !bp->body_bucket || !bp->body_cell || !bp->sorted) {
            return false;
        }
        bp->scratch_capacity = n;
    }
    if (buckets > bp->bucket_capacity) {
        free(bp->bucket_start);
        free(bp->bucket_stamp);
        bp->bucket_start = malloc((size_t)(buckets + 1) * sizeof(uint32_t));
        bp->bucket_stamp = malloc((size_t)buckets * sizeof(int32_t));
        if (!bp->bucket_start || !bp->bucket_stamp) {
            return false;
        }
        bp->bucket_capacity = buckets;
    }
    bp->bucket_count = buckets;
    return true;
}

typedef struct grid_layout {
    bool dense;
    int64_t extent[3];            /* cells per axis (dense grid; periodic axes in either mode) */
    uint32_t mask;
} grid_layout;

/* The distinct cells c - 1, c, c + 1 along one axis, in ascending order:
 * clipped to [0, n) on an open axis of the dense grid, taken modulo n on a
 * periodic axis (fewer than three when n < 3). Returns how many. */
static int axis_neighbours(int64_t c, int64_t n, bool periodic, int64_t out[3])
{
    int count = 0;
    for (int64_t d = -1; d <= 1; ++d) {
        int64_t v = c + d;
        if (periodic) {
            v = ((v % n) + n) % n;
        } else if (v < 0 || v >= n) {
            continue;
        }
        bool seen = false;
        for (int k = 0; k < count; ++k) {
            seen = seen || out[k] == v;
        }
        if (seen) {
            continue;
        }
        int at = count++;
        while (at > 0 && out[at - 1] > v) {
            out[at] = out[at - 1];
            --at;
        }
        out[at] = v;
    }
    return count;
}

/* Candidate pairs (i, j > i) for bodies i in [begin, end), appended to
 * the buffer in ascending key order. */
static bool pairs_for_range(fd_broadphase* bp, const grid_layout* layout, int begin, int end, pair_buffer* out)
{
    const sorted_body* sorted = bp->sorted;
    const int64_t* extent = layout->extent;
    const fd_periodic* periodic = &bp->periodic;
    bool dense = layout->dense;
    uint32_t mask = layout->mask;
    int count = out->count;
    for (int i = begin; i < end; ++i) {
        if (bp->body_bucket[i] == UINT32_MAX) {
            continue;
        }
        const int64_t* cell = &bp->body_cell[3 * i];
        /* Ranges of the sorted array to scan: up to 9 rows of at most 2 runs
         * of contiguous cells (dense), or up to 27 distinct buckets (hash). */
        uint32_t range_start[27], range_end[27];
        int ranges = 0;
        if (dense) {
            int64_t xs[3], ys[3], zs[3];
            int nx = axis_neighbours(cell[0], extent[0], periodic->axis[0], xs);
            int ny = axis_neighbours(cell[1], extent[1], periodic->axis[1], ys);
            int nz = axis_neighbours(cell[2], extent[2], periodic->axis[2], zs);
            for (int kz = 0; kz < nz; ++kz) {
                for (int ky = 0; ky < ny; ++ky) {
                    int64_t row = (zs[kz] * extent[1] + ys[ky]) * extent[0];
                    for (int a = 0; a < nx;) {
                        int b = a;
                        while (b + 1 < nx && xs[b + 1] == xs[b] + 1) {
                            ++b;
                        }
                        range_start[ranges] = bp->bucket_start[row + xs[a]];
                        range_end[ranges] = bp->bucket_start[row + xs[b] + 1];
                        ++ranges;
                        a = b + 1;
                    }
                }
            }
        } else {
            for (int dx = -1; dx <= 1; ++dx) {
                for (int dy = -1; dy <= 1; ++dy) {
                    for (int dz = -1; dz <= 1; ++dz) {
                        int64_t c[3] = {cell[0] + dx, cell[1] + dy, cell[2] + dz};
                        for (int a = 0; a < 3; ++a) {
                            if (periodic->axis[a]) {
                                c[a] = ((c[a] % extent[a]) + extent[a]) % extent[a];
                            }
                        }
                        uint32_t bucket = cell_hash(c[0], c[1], c[2], mask);
                        if (bp->bucket_stamp[bucket] != i) {
                            bp->bucket_stamp[bucket] = i;
                            range_start[ranges] = bp->bucket_start[bucket];
                            range_end[ranges] = bp->bucket_start[bucket + 1];
                            ++ranges;
                        }
                    }
                }
            }
        }
        fd_vec3 xi = bp->positions[i];
        double ri = bp->radii[i] + bp->margin;
        bool static_i = bp->is_static[i];
        int first = count;
        for (int r = 0; r < ranges; ++r) {
            for (uint32_t k = range_start[r]; k < range_end[r]; ++k) {
                const sorted_body* other = &sorted[k];
                int j = other->body;
                if (j <= i || (static_i && other->is_static)) {
                    continue;
                }
                double reach = ri + other->radius;
                double dx = other->x - xi.x, dy = other->y - xi.y, dz = other->z - xi.z;
                if (periodic->any) { /* minimum image, as fd_periodic_offset */
                    if (periodic->axis[0]) dx -= periodic->length[0] * round(dx * periodic->inverse_length[0]);
                    if (periodic->axis[1]) dy -= periodic->length[1] * round(dy * periodic->inverse_length[1]);
                    if (periodic->axis[2]) dz -= periodic->length[2] * round(dz * periodic->inverse_length[2]);
                }
                if (dx * dx + dy * dy + dz * dz >= reach * reach) {
                    continue;
                }
                if (!fd_grow_doubling((void**)&out->keys, &out->capacity, count + 1, FIRST_CAPACITY,
                                      sizeof(uint64_t))) {
                    out->count = count;
                    return false;
                }
                /* Insertion into this body's sorted run (runs are short). */
                uint64_t key = (uint64_t)i << 32 | (uint32_t)j;
                int at = count++;
                while (at > first && out->keys[at - 1] > key) {
                    out->keys[at] = out->keys[at - 1];
                    --at;
                }
                out->keys[at] = key;
            }
        }
    }
    out->count = count;
    return true;
}

/* The hash's cell coordinate floor(u) of a position in cell widths, held
 * within +-2^62: a body 1e300 m out has a finite cell, the int64 conversion
 * stays defined, and c +- 1 cannot overflow. Clamping keeps neighbours
 * neighbours (it never pulls two cells apart), so at worst bodies beyond
 * the bound share a cell and their pairs are tested by distance. */
static int64_t hashed_cell(double u)
{
    const double bound = 4611686018427387904.0; /* 2^62 */
    double c = floor(u);
    return c > bound ? (int64_t)bound : (c < -bound ? -(int64_t)bound : (int64_t)c);
}

/* Cells are addressed densely over the bounding box of the bodies when that
 * box holds at most 4 cells per body (the usual packed case: neighbour cells
 * are then three contiguous runs per row, and memory access is local), and
 * through a spatial hash otherwise (a body far from the rest). A periodic
 * axis is always covered by the box's own cells (floor(L / cell_size) of
 * them), in either mode, and with a periodic axis the dense grid is kept up
 * to 64 cells per body. */
static bool collect_grid_pairs(fd_broadphase* bp, int* grid_count)
{
    int n = bp->body_count;
    const fd_periodic* periodic = &bp->periodic;
    double inverse_cell = 1.0 / bp->cell_size;
    fd_vec3 low = {INFINITY, INFINITY, INFINITY}, high = {-INFINITY, -INFINITY, -INFINITY};
    int grid_bodies = 0;
    for (int b = 0; b < n; ++b) {
        if (!bp->is_wall[b] && !(bp->is_removed != NULL && bp->is_removed[b]) && fd_v3_is_finite(bp->positions[b])) {
            fd_vec3 x = bp->positions[b];
            low = fd_v3(fmin(low.x, x.x), fmin(low.y, x.y), fmin(low.z, x.z));
            high = fd_v3(fmax(high.x, x.x), fmax(high.y, x.y), fmax(high.z, x.z));
            ++grid_bodies;
        }
    }
    /* Per axis: first cell's lower edge, inverse cell width, cell count. */
    double origin[3] = {low.x, low.y, low.z};
    double inverse_width[3] = {inverse_cell, inverse_cell, inverse_cell};
    /* Cell counts per axis in double first: bodies 2e17 m apart span more
     * cells than an int64 holds (and high - low may overflow to inf), so
     * only a count that passed the dense test below is ever converted. */
    double axis_cells[3] = {0.0, 0.0, 0.0};
    if (grid_bodies > 0) {
        axis_cells[0] = floor((high.x - low.x) * inverse_cell) + 1.0;
        axis_cells[1] = floor((high.y - low.y) * inverse_cell) + 1.0;
        axis_cells[2] = floor((high.z - low.z) * inverse_cell) + 1.0;
    }
    for (int a = 0; a < 3; ++a) {
        if (periodic->axis[a]) {
            double count = floor(periodic->length[a] * inverse_cell);
            count = count < 1.0 ? 1.0 : (count > 1e9 ? 1e9 : count);
            axis_cells[a] = count;
            origin[a] = periodic->low[a];
            inverse_width[a] = count * periodic->inverse_length[a];
        }
    }
    double cells = grid_bodies > 0 ? axis_cells[0] * axis_cells[1] * axis_cells[2] : 0.0;
    /* A periodic axis bounds the grid by the box, not by outlying bodies:
     * a dilute gas (~5 cells per body at solid fraction 0.1) keeps the dense
     * grid, which is several times faster than the hash, up to 64 cells per body.
     * The dense grid's cell index is a uint32 and its bucket count an int;
     * an infinite or NaN count fails the test and takes the hash. */
    bool dense = cells <= (periodic->any ? 64.0 : 4.0) * grid_bodies + 64.0 && cells < (double)INT32_MAX;
    /* Cells per axis: the dense grid's, and the periodic axes' in either mode
     * (both at most 1e9 here); 0 on the hash's open axes, which never read it. */
    int64_t extent[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) {
        extent[a] = dense || periodic->axis[a] ? (int64_t)axis_cells[a] : 0;
    }
    int bucket_count;
    if (dense) {
        bucket_count = (int)cells;
    } else {
        bucket_count = 64;
        while (bucket_count < 2 * n) {
            bucket_count *= 2;
        }
    }
    if (!reserve_scratch(bp, n, bucket_count > 0 ? bucket_count : 1)) {
        return false;
    }
    uint32_t mask = (uint32_t)bucket_count - 1;

    /* Counting sort of the bodies into buckets; within a bucket, ascending index. */
    memset(bp->bucket_start, 0, (size_t)(bucket_count + 1) * sizeof(uint32_t));
    for (int b = 0; b < n; ++b) {
        if (bp->is_wall[b] || (bp->is_removed != NULL && bp->is_removed[b]) || !fd_v3_is_finite(bp->positions[b])) {
            /* Left out: a non-finite body is reported by the step's check; a removed body's slot is none. */
            bp->body_bucket[b] = UINT32_MAX;
            continue;
        }
        int64_t* cell = &bp->body_cell[3 * b];
        fd_vec3 position = bp->positions[b];
        double x[3] = {position.x, position.y, position.z};
        for (int a = 0; a < 3; ++a) {
            if (periodic->axis[a]) {
                /* The cell of the wrapped coordinate, in [0, extent). */
                double inside = fd_periodic_wrap(x[a], periodic->low[a], periodic->length[a]);
                int64_t c = (int64_t)floor((inside - origin[a]) * inverse_width[a]);
                cell[a] = c < 0 ? 0 : (c >= extent[a] ? extent[a] - 1 : c);
            } else if (dense) {
                cell[a] = (int64_t)floor((x[a] - origin[a]) * inverse_width[a]);
            } else {
                cell[a] = hashed_cell(x[a] * inverse_width[a]);
            }
        }
        uint32_t bucket = dense ? (uint32_t)((cell[2] * extent[1] + cell[1]) * extent[0] + cell[0])
                                : cell_hash(cell[0], cell[1], cell[2], mask);
        bp->body_bucket[b] = bucket;
        bp->bucket_start[bucket + 1]++;
    }
    for (int k = 0; k < bucket_count; ++k) {
        bp->bucket_start[k + 1] += bp->bucket_start[k];
    }
    for (int b = 0; b < n; ++b) {
        if (bp->body_bucket[b] == UINT32_MAX) {
            continue;
        }
        uint32_t at = bp->bucket_start[bp->body_bucket[b]]++;
        sorted_body* entry = &((sorted_body*)bp->sorted)[at];
        fd_vec3 x = bp->positions[b];
        *entry = (sorted_body){x.x, x.y, x.z, bp->radii[b], b, bp->is_static[b]};
    }
    /* After the fill, bucket_start[k] is the end of bucket k: shift back. */
    for (int k = bucket_count; k > 0; --k) {
        bp->bucket_start[k] = bp->bucket_start[k - 1];
    }
    bp->bucket_start[0] = 0;
    if (!dense) {
        for (int k = 0; k < bucket_count; ++k) {
            bp->bucket_stamp[k] = -1;
        }
    }

    grid_layout layout = {dense, {extent[0], extent[1], extent[2]}, mask};
    int threads = dense && bp->thread_count > 1 ? bp->thread_count : 1;
    if (threads == 1) {
        pair_buffer all = {bp->grid_pairs, 0, bp->grid_pair_capacity};
        bool ok = pairs_for_range(bp, &layout, 0, n, &all);
        bp->grid_pairs = all.keys;
        bp->grid_pair_capacity = all.capacity;
        *grid_count = all.count;
        return ok;
    }
    /* Each thread takes a contiguous range of i into its own buffer; the
     * buffers joined in thread order are exactly the serial output, so the
     * result does not depend on the thread count. (The hash mode shares its
     * bucket stamps and stays serial.) */
    if (threads > bp->thread_buffer_count) {
        pair_buffer* buffers = realloc(bp->thread_buffers, (size_t)threads * sizeof *buffers);
        if (buffers == NULL) {
            return false;
        }
        for (int t = bp->thread_buffer_count; t < threads; ++t) {
            buffers[t] = (pair_buffer){NULL, 0, 0};
        }
        bp->thread_buffers = buffers;
        bp->thread_buffer_count = threads;
    }
    int failures = 0;
#pragma omp parallel for schedule(static, 1) num_threads(threads) reduction(+ : failures)
    for (int t = 0; t < threads; ++t) {
        pair_buffer* buffer = &bp->thread_buffers[t];
        buffer->count = 0;
        int begin = (int)((int64_t)n * t / threads), end = (int)((int64_t)n * (t + 1) / threads);
        failures += pairs_for_range(bp, &layout, begin, end, buffer) ? 0 : 1;
    }
    if (failures > 0) {
        return false;
    }
    int total = 0;
    for (int t = 0; t < threads; ++t) {
        total += bp->thread_buffers[t].count;
    }
    if (!fd_grow_doubling((void**)&bp->grid_pairs, &bp->grid_pair_capacity, total, FIRST_CAPACITY, sizeof(uint64_t))) {
        return false;
    }
    int at = 0;
    for (int t = 0; t < threads; ++t) {
        if (bp->thread_buffers[t].count > 0) { /* an empty buffer may have no storage yet: no memcpy from NULL */
            memcpy(bp->grid_pairs + at, bp->thread_buffers[t].keys,
                   (size_t)bp->thread_buffers[t].count * sizeof(uint64_t));
        }
        at += bp->thread_buffers[t].count;
    }
    *grid_count = total;
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
    if (!fd_grow_doubling((void**)&bp->pairs, &bp->pair_capacity, plane_count + grid_count, FIRST_CAPACITY,
                          sizeof(uint64_t))) {
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
