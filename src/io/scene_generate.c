/* Body generators of a scene: `lattice` and `random` (docs/scene-format.md).
 *
 * Lattice. Spheres of mean radius r and relative spread s sit on a cubic
 * lattice of spacing 2 r_max, r_max = r (1 + s), so that no two can overlap
 * whatever their radii. The lattice block (the most sites that fit in the
 * region along each axis) is centred in the region and filled x fastest, then
 * y, then z: with gravity along -z the grains form layers from the bottom up.
 * Sphere k draws four uniform numbers from Philox-4x64-10 (Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3", SC 2011) with key (seed, 0)
 * and counter (k, 0, 0, 0): its radius r (1 + s (2 u0 - 1)) and a
 * displacement jitter (r_max - radius) (2 u - 1) along each axis, within the
 * gap its cell leaves around it. A counter-based generator makes sphere k
 * depend on (seed, k) alone, so the same seed gives bitwise the same bodies
 * on any machine and in any order of generation.
 *
 * Options: `spacing` widens the lattice (a dilute gas: the gap around each
 * sphere is spacing / 2 - r); `velocity_spread` adds to `velocity` a
 * Gaussian of that standard deviation per component, from counter
 * (k, 1, 0, 0) by Box-Muller (its log, cos and sin come from the C library,
 * so these bits are those of the machine's libm).
 * With `static: true` the spheres are static bodies: one layer of them makes
 * a rough floor.
 *
 * Random (a loose fill). Random sequential addition (RSA; Widom 1966, Feder
 * 1980): spheres k = 0, 1, ... are placed one after the other, each at the
 * first of a stream of uniformly random places where it lies wholly inside
 * the region and overlaps nothing placed before; a place is never moved once
 * taken. Proposal j of the stream (j = 0, 1, ... over the whole fill) goes to
 * the sphere being placed when j comes up, so sphere k's tries are uniform
 * and independent of where they come from: an exact RSA. Monodisperse RSA
 * jams at a packing fraction of 0.384 (Talbot, Tarjus & Viot 1991) and slows
 * down long before (about 60 proposals per sphere over a fill to 0.30, 230
 * to 0.32), so a count whose spheres would fill more than
 * RANDOM_FRACTION_LIMIT of the region is refused before anything is placed,
 * and a sphere that finds no place in `attempts` proposals fails the load
 * saying how many were placed. Philox-4x64-10 with key (seed, 2), apart
 * from the lattice's (seed, 0) and the inlets' (seed, 1): counter
 * (k, 0, 0, 0) gives sphere k's radius (u0), (k, 1, 0, 0) its Gaussian
 * velocity spread as for the lattice, (m, 2, 0, 0) proposals 2m and 2m + 1
 * (42 bits per coordinate, proposal_pair). The bodies depend on the seed
 * alone, bit for bit on any machine (no libm in the positions,
 * -ffp-contract=off), whatever the thread count.
 *
 * What "overlaps nothing" checks: the spheres this generator placed; every
 * body already in the world when it runs (the listed bodies and the earlier
 * generators' spheres) by its bounding sphere; every plane as a half-space
 * (the sphere must lie on its outer side). Not: the contact margin, the exact
 * shape of an ellipsoid, periodic images. Touching is allowed (gap >= 0).
 *
 * Cost: O(count + proposals + bodies near the region), nothing quadratic. A
 * cell grid bounded by the region (cells of width >= 2 r_max, so that an
 * overlapping pair lies in neighbouring cells; at most about
 * 4 (count + bodies) + 4096 cells, a huge region gets wider cells) holds two
 * spheres per cell in one cache line, more in an overflow list; a test reads
 * the 27 cells around the place. While most proposals are taken they are
 * tested one by one; when few are (the fill is dense), they are tested in
 * batches sorted by cell against the spheres placed before the batch (a sweep
 * through the grid in memory order, on world.threads OpenMP threads), and
 * only the few that pass are tested again, in order, exactly. The batches
 * change the time, not the result.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <Random123/philox.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/math.h"
#include "io/scene_loader.h"

/* Above this estimated packing fraction a random fill is refused up front:
 * random sequential addition jams near 0.38 and needs many tries per sphere
 * well before (about 60 per sphere over a fill to 0.30, 230 to 0.32). */
static const double RANDOM_FRACTION_LIMIT = 0.32;

static const double PI = 3.14159265358979323846;

/* Uniform in [0, 1) with 53 random bits. */
static double unit_uniform(uint64_t bits) { return (double)(bits >> 11) * 0x1.0p-53; }

/* The four uniforms of Philox-4x64-10 with key (seed, stream) and counter (k, c, 0, 0). */
static void draw(int64_t seed, uint64_t stream, int64_t k, uint64_t c, double u[4])
{
    const philox4x64_key_t key = {{(uint64_t)seed, stream}};
    const philox4x64_ctr_t counter = {{(uint64_t)k, c, 0, 0}};
    const philox4x64_ctr_t random = philox4x64(counter, key);
    for (int j = 0; j < 4; ++j) {
        u[j] = unit_uniform(random.v[j]);
    }
}

/* Philox key streams (the key's second word) of the generators. */
enum { LATTICE_STREAM = 0, RANDOM_STREAM = 2 };

/* Three independent standard normal numbers for sphere k: Box-Muller on the
 * four uniforms of Philox-4x64-10 with key (seed, stream) and counter
 * (k, 1, 0, 0) (the counter (k, 0, 0, 0) gives the radius and position).
 * The log arguments are 1 - u, in (0, 1]. */
static fd_vec3 gaussian_triple(int64_t seed, uint64_t stream, int64_t k)
{
    double u[4];
    draw(seed, stream, k, 1, u);
    const double two_pi = 6.283185307179586;
    double r0 = sqrt(-2.0 * log(1.0 - u[0])), r1 = sqrt(-2.0 * log(1.0 - u[2]));
    return fd_v3(r0 * cos(two_pi * u[1]), r0 * sin(two_pi * u[1]), r1 * cos(two_pi * u[3]));
}

/* What the two generators share: where they are in the file and what every
 * sphere gets. */
typedef struct generation {
    fd_scene_ctx* ctx;
    fd_world* world;
    const fd_scene_generator* gen;
    int index;
    fd_scene_names* names;
    const char* prefix;
    fd_material_id material;
    uint64_t stream;
    int threads; /* world.threads: OpenMP threads for the random fill's batches */
} generation;

static fd_status fail_key(const generation* g, const char* key, const char* format, const char* detail)
{
    char path[FD_SCENE_PATH_MAX];
    snprintf(path, sizeof path, "generators[%d]%s%s", g->index, key[0] ? "." : "", key);
    const yaml_node_t* node = key[0] ? fd_scene_given(&fd_scene_generator_table, g->gen, key) : NULL;
    return fd_scene_fail(g->ctx, node ? node : g->gen->seen.map, path, format, detail);
}

/* Creates sphere k (named prefix + k) of radius r at position. */
static fd_status create_sphere(const generation* g, int64_t k, double radius, fd_vec3 position)
{
    const fd_scene_generator* gen = g->gen;
    char name[256], path[FD_SCENE_PATH_MAX];
    snprintf(name, sizeof name, "%s%lld", g->prefix, (long long)k);
    const yaml_node_t* first = NULL;
    const yaml_node_t* node = gen->seen.map;
    if (!fd_scene_names_add(g->names, name, node, &first)) {
        snprintf(path, sizeof path, "generators[%d]", g->index);
        if (!first) {
            return fd_scene_fail(g->ctx, node, path, "out of memory");
        }
        char where[FD_PATH_MAX];
        fd_scene_where(g->ctx, first, where, sizeof where);
        return fd_scene_fail(g->ctx, node, path,
                             "generated body name '%s' is already used (at %s); choose another name_prefix", name,
                             where);
    }

    fd_body_def def = fd_default_body_def();
    def.name = name;
    def.type = gen->is_static ? FD_BODY_STATIC : FD_BODY_DYNAMIC;
    def.shape.type = FD_SHAPE_SPHERE;
    def.shape.radius = radius;
    def.material = g->material;
    def.position = position;
    def.velocity = gen->velocity;
    if (gen->velocity_spread > 0.0) {
        def.velocity =
            fd_v3_add(def.velocity, fd_v3_scale(gen->velocity_spread, gaussian_triple(gen->seed, g->stream, k)));
    }
    if (fd_body_id_is_null(fd_world_create_body(g->world, &def))) {
        snprintf(path, sizeof path, "generators[%d]", g->index);
        return fd_scene_fail(g->ctx, node, path, "body '%s': %s", name, fd_last_error());
    }
    fd_scene_body_created(g->ctx); /* the load's progress */
    return FD_OK;
}

/* ---------------------------------------------------------------- lattice */

static fd_status generate_lattice(const generation* g, const double lo[3], const double hi[3])
{
    const fd_scene_generator* gen = g->gen;
    if (fd_scene_given(&fd_scene_generator_table, gen, "attempts")) {
        return fail_key(g, "attempts", "%s", "only for type: random");
    }
    char path[FD_SCENE_PATH_MAX];
    const double r_max = gen->radius * (1.0 + gen->radius_spread);
    double spacing = 2.0 * r_max;
    const yaml_node_t* spacing_node = fd_scene_given(&fd_scene_generator_table, gen, "spacing");
    if (spacing_node) {
        if (!(gen->spacing >= spacing)) {
            snprintf(path, sizeof path, "generators[%d].spacing", g->index);
            return fd_scene_fail(g->ctx, spacing_node, path,
                                 "must be at least 2 x radius x (1 + radius_spread) = %g m, or spheres could overlap "
                                 "(got %g m)",
                                 spacing, gen->spacing);
        }
        spacing = gen->spacing;
    }
    double sites[3];
    double origin[3];
    for (int a = 0; a < 3; ++a) {
        double length = hi[a] - lo[a];
        /* The small relative allowance keeps a region of exactly n spacings
         * from losing a site to round-off. */
        sites[a] = floor(length / spacing * (1.0 + 1e-12));
        origin[a] = lo[a] + 0.5 * (length - sites[a] * spacing);
    }
    double capacity = sites[0] * sites[1] * sites[2];
    if ((double)gen->count > capacity) {
        snprintf(path, sizeof path, "generators[%d].count", g->index);
        return fd_scene_fail(g->ctx, fd_scene_given(&fd_scene_generator_table, gen, "count"), path,
                             "%lld spheres do not fit: the region holds %.0f x %.0f x %.0f = %.0f lattice sites of "
                             "spacing %g m (%s)",
                             (long long)gen->count, sites[0], sites[1], sites[2], capacity, spacing,
                             spacing_node ? "spacing" : "2 x radius x (1 + radius_spread)");
    }

    /* Rows of more sites than spheres are never wrapped: count bounds the
     * indices (and keeps them in range when a tiny radius gives huge site counts). */
    const int64_t nx = sites[0] < (double)gen->count ? (int64_t)sites[0] : gen->count;
    const int64_t ny = sites[1] < (double)gen->count ? (int64_t)sites[1] : gen->count;
    for (int64_t k = 0; k < gen->count; ++k) {
        double u[4];
        draw(gen->seed, LATTICE_STREAM, k, 0, u);
        const int64_t cell[3] = {k % nx, (k / nx) % ny, k / (nx * ny)};
        const double radius = gen->radius * (1.0 + gen->radius_spread * (2.0 * u[0] - 1.0));
        const double gap = 0.5 * spacing - radius; /* r_max - radius without a spacing */
        double position[3];
        for (int a = 0; a < 3; ++a) {
            double centre = origin[a] + ((double)cell[a] + 0.5) * spacing;
            position[a] = centre + gen->jitter * gap * (2.0 * u[a + 1] - 1.0);
        }
        fd_status status = create_sphere(g, k, radius, fd_v3(position[0], position[1], position[2]));
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- random */

/* A sphere in the grid: a placed one, or the bounding sphere of a body of the
 * world (entered in every cell within reach of it when it is wider than the
 * generated spheres). An empty slot has x = NaN, so that no distance test
 * finds it; r < 0 in a cell's second slot says the cell has more spheres in
 * the overflow list (the radius is |r|). */
typedef struct fill_ball {
    double x, y, z, r;
} fill_ball;

/* One cache line: most cells hold at most two spheres. */
typedef struct fill_cell {
    fill_ball slot[2];
} fill_cell;

typedef struct fill_grid {
    double lo[3], hi[3];
    double width[3];         /* cells of width >= 2 r_max: an overlapping pair lies in neighbouring cells */
    double inverse_width[3];
    int64_t n[3];            /* cells per axis */
    fill_cell* cells;
    int32_t* overflow_head; /* per cell, allocated at the first cell with a third sphere; -1 = none */
    fill_ball* overflow;
    int32_t* overflow_next;
    int64_t overflow_count, overflow_capacity;
    /* planes that can reach the region: a point and the outward normal */
    fd_vec3* plane_point;
    fd_vec3* plane_normal;
    int plane_count;
} fill_grid;

static void grid_free(fill_grid* grid)
{
    FD_FREE_ALL(grid->cells, grid->overflow_head, grid->overflow, grid->overflow_next, grid->plane_point,
                grid->plane_normal);
}

static int64_t cell_of(const fill_grid* grid, int a, double x)
{
    return fd_clamped_cell(x, grid->lo[a], grid->inverse_width[a], grid->n[a]);
}

static int64_t cell_index(const fill_grid* grid, int64_t cx, int64_t cy, int64_t cz)
{
    return (cz * grid->n[1] + cy) * grid->n[0] + cx;
}

static bool grid_add(fill_grid* grid, const fill_ball* ball, int64_t cell)
{
    fill_cell* c = &grid->cells[cell];
    if (isnan(c->slot[0].x)) {
        c->slot[0] = *ball;
        return true;
    }
    if (isnan(c->slot[1].x)) {
        c->slot[1] = *ball;
        return true;
    }
    if (!grid->overflow_head) {
        int64_t cells = grid->n[0] * grid->n[1] * grid->n[2];
        grid->overflow_head = malloc((size_t)cells * sizeof *grid->overflow_head);
        if (!grid->overflow_head) {
            return false;
        }
        memset(grid->overflow_head, 0xff, (size_t)cells * sizeof *grid->overflow_head); /* -1 */
    }
    if (grid->overflow_count == grid->overflow_capacity) {
        int64_t capacity = grid->overflow_capacity > 0 ? 2 * grid->overflow_capacity : 1024;
        if (capacity > INT32_MAX) {
            return false;
        }
        fill_ball* balls = realloc(grid->overflow, (size_t)capacity * sizeof *balls);
        if (!balls) {
            return false;
        }
        grid->overflow = balls;
        int32_t* next = realloc(grid->overflow_next, (size_t)capacity * sizeof *next);
        if (!next) {
            return false;
        }
        grid->overflow_next = next;
        grid->overflow_capacity = capacity;
    }
    int32_t e = (int32_t)grid->overflow_count++;
    grid->overflow[e] = *ball;
    grid->overflow_next[e] = grid->overflow_head[cell];
    grid->overflow_head[cell] = e;
    c->slot[1].r = -fabs(c->slot[1].r);
    return true;
}

/* Do the spheres overlap by more than `margin` (> 0 in the pre-check)? */
static inline bool ball_overlaps(const fill_ball* b, const double p[3], double r, double margin)
{
    double dx = p[0] - b->x, dy = p[1] - b->y, dz = p[2] - b->z;
    double reach = r + fabs(b->r) - margin;
    return dx * dx + dy * dy + dz * dz < reach * reach; /* false for an empty slot (NaN) */
}

/* Is a sphere of radius r at p, in cell c, not wholly inside the region, or
 * does it overlap a plane or a sphere of the grid, by more than `margin`?
 * The 27 cells around c are read as 9 rows of 3 consecutive cells (one
 * cache line each), the row of c first; within a row every slot is tested
 * without a branch per slot. */
static bool overlaps_any(const fill_grid* grid, const double p[3], const int64_t c[3], double r, double margin)
{
    for (int a = 0; a < 3; ++a) {
        if (p[a] - grid->lo[a] < r - margin || grid->hi[a] - p[a] < r - margin) {
            return true;
        }
    }
    for (int i = 0; i < grid->plane_count; ++i) {
        fd_vec3 offset = fd_v3_sub(fd_v3(p[0], p[1], p[2]), grid->plane_point[i]);
        if (fd_v3_dot(grid->plane_normal[i], offset) < r - margin) {
            return true;
        }
    }
    const int64_t x0 = c[0] > 0 ? c[0] - 1 : 0, x1 = c[0] + 1 < grid->n[0] ? c[0] + 1 : c[0];
    const double rm = r - margin;
    /* Rows nearest to p first: toward the nearer face of its cell in y and z. */
    const int sy = p[1] - grid->lo[1] < ((double)c[1] + 0.5) * grid->width[1] ? -1 : 1;
    const int sz = p[2] - grid->lo[2] < ((double)c[2] + 0.5) * grid->width[2] ? -1 : 1;
    const int rows[9][2] = {{0, 0}, {sy, 0}, {0, sz}, {sy, sz}, {-sy, 0}, {0, -sz}, {-sy, sz}, {sy, -sz}, {-sy, -sz}};
    for (int i = 0; i < 9; ++i) {
        const int64_t y = c[1] + rows[i][0], z = c[2] + rows[i][1];
        if (y < 0 || y >= grid->n[1] || z < 0 || z >= grid->n[2]) {
            continue;
        }
        const int64_t first = cell_index(grid, x0, y, z), last = first + (x1 - x0);
        bool hit = false, more = false;
        for (int64_t cell = first; cell <= last; ++cell) {
            const fill_cell* cc = &grid->cells[cell];
            for (int k = 0; k < 2; ++k) {
                const fill_ball* b = &cc->slot[k];
                double dx = p[0] - b->x, dy = p[1] - b->y, dz = p[2] - b->z;
                double reach = rm + fabs(b->r);
                hit |= dx * dx + dy * dy + dz * dz < reach * reach; /* false for an empty slot (NaN) */
            }
            more |= cc->slot[1].r < 0.0;
        }
        if (hit) {
            return true;
        }
        if (more) {
            for (int64_t cell = first; cell <= last; ++cell) {
                if (grid->cells[cell].slot[1].r < 0.0) {
                    for (int32_t e = grid->overflow_head[cell]; e >= 0; e = grid->overflow_next[e]) {
                        if (ball_overlaps(&grid->overflow[e], p, r, margin)) {
                            return true;
                        }
                    }
                }
            }
        }
    }
    return false;
}

/* The exact test: is place p taken for a sphere of radius r? */
static bool place_is_taken(const fill_grid* grid, const double p[3], double r)
{
    const int64_t c[3] = {cell_of(grid, 0, p[0]), cell_of(grid, 1, p[1]), cell_of(grid, 2, p[2])};
    return overlaps_any(grid, p, c, r, 0.0);
}

/* Enters the bodies of the world that can touch a sphere of radius <= r_max
 * centred in the region: planes in the plane list, the others by their
 * bounding sphere of radius R: one no wider than r_max in the cell of its
 * centre (clamped to the grid), a wider one in every cell that comes within
 * R + r_max of its centre, so that a place it covers finds it in its own
 * cell. */
static bool grid_add_world(fill_grid* grid, const fd_world* world, double r_max)
{
    const double* lo = grid->lo;
    const double* hi = grid->hi;
    int body_count = fd_world_body_count(world);
    for (int b = 0; b < body_count; ++b) {
        fd_body_id id = fd_world_body_at(world, b);
        fd_body_info info = fd_body_get_info(world, id);
        fd_body_state state = fd_body_get_state(world, id);
        if (info.shape.type == FD_SHAPE_PLANE) {
            fd_vec3 normal = fd_v3_normalize(fd_quat_rotate(state.orientation, info.shape.plane_normal));
            /* Kept only if a place in the region comes within r_max of the
             * plane or lies behind it: the region's lowest corner along the
             * normal. */
            double lowest = 0.0;
            for (int a = 0; a < 3; ++a) {
                double n = fd_v3_component(normal, a);
                lowest += n * ((n >= 0.0 ? lo[a] : hi[a]) - fd_v3_component(state.position, a));
            }
            if (lowest >= r_max) {
                continue;
            }
            fd_vec3* point = realloc(grid->plane_point, (size_t)(grid->plane_count + 1) * sizeof *point);
            if (!point) {
                return false;
            }
            grid->plane_point = point;
            fd_vec3* normals = realloc(grid->plane_normal, (size_t)(grid->plane_count + 1) * sizeof *normals);
            if (!normals) {
                return false;
            }
            grid->plane_normal = normals;
            grid->plane_point[grid->plane_count] = state.position;
            grid->plane_normal[grid->plane_count] = normal;
            grid->plane_count++;
            continue;
        }
        const fill_ball ball = {state.position.x, state.position.y, state.position.z, info.bounding_radius};
        const double x[3] = {ball.x, ball.y, ball.z};
        const double reach = ball.r + r_max;
        int64_t from[3], to[3];
        bool near = true;
        for (int a = 0; a < 3; ++a) {
            if (x[a] + reach <= lo[a] || x[a] - reach >= hi[a]) {
                near = false;
            }
            from[a] = cell_of(grid, a, x[a] - (ball.r > r_max ? reach : 0.0));
            to[a] = cell_of(grid, a, x[a] + (ball.r > r_max ? reach : 0.0));
        }
        if (!near) {
            continue;
        }
        for (int64_t cz = from[2]; cz <= to[2]; ++cz) {
            for (int64_t cy = from[1]; cy <= to[1]; ++cy) {
                for (int64_t cx = from[0]; cx <= to[0]; ++cx) {
                    /* A wide body: only the cells whose box comes within
                     * reach of its centre (with an allowance for round-off). */
                    const int64_t n[3] = {cx, cy, cz};
                    if (ball.r > r_max && !(fd_cell_distance2(x, n, lo, grid->width) <= reach * reach * (1.0 + 1e-9))) {
                        continue;
                    }
                    if (!grid_add(grid, &ball, cell_index(grid, cx, cy, cz))) {
                        return false;
                    }
                }
            }
        }
    }
    return true;
}

/* A proposal of a batch for the pre-check: its cell (bit fields x, y, z,
 * so that the key orders cells as they lie in memory), where in the cell
 * (relative to its lower corner, in single precision) and its place in the
 * batch. */
typedef struct fill_proposal {
    uint32_t key;
    uint32_t offset;
    float x, y, z;
} fill_proposal;

typedef struct fill_batch {
    int64_t capacity;
    fill_proposal* proposals; /* in order, then sorted by key */
    fill_proposal* scratch;
    uint32_t* bucket;         /* radix sort: 2^RADIX_BITS + 1 */
    unsigned char* possible;  /* proposal i passed the pre-check */
    int bits[3];              /* of the key's fields x, y, z */
} fill_batch;

enum { RADIX_BITS = 11 };

static void batch_free(fill_batch* batch)
{
    free(batch->proposals);
    free(batch->scratch);
    free(batch->bucket);
    free(batch->possible);
}

/* The state of the fill: sphere k is being placed with radius `radius`. */
typedef struct fill_state {
    const generation* g;
    fill_grid* grid;
    double volume;   /* of the region */
    int64_t k;
    int64_t tries; /* proposals sphere k has used */
    double radius;
    double placed_volume;
} fill_state;

static double sphere_radius(const fd_scene_generator* gen, int64_t k)
{
    double u[4];
    draw(gen->seed, RANDOM_STREAM, k, 0, u);
    return gen->radius * (1.0 + gen->radius_spread * (2.0 * u[0] - 1.0));
}

/* Proposals 2m and 2m + 1: uniform places in the region from the 256 bits
 * of Philox-4x64-10 with key (seed, 2) and counter (m, 2, 0, 0), words
 * w0..w3: 42 bits per coordinate, the top 42 bits of w0, w1, w2 for
 * proposal 2m, their low 22 bits followed by 20 bits of w3 (bits 63..44,
 * 43..24, 23..4) for proposal 2m + 1. */
static void proposal_pair(const fd_scene_generator* gen, const fill_grid* grid, int64_t m, double p[2][3])
{
    const philox4x64_key_t key = {{(uint64_t)gen->seed, RANDOM_STREAM}};
    const philox4x64_ctr_t counter = {{(uint64_t)m, 2, 0, 0}};
    const philox4x64_ctr_t random = philox4x64(counter, key);
    const uint64_t low22 = (UINT64_C(1) << 22) - 1, low20 = (UINT64_C(1) << 20) - 1;
    const uint64_t w3 = random.v[3];
    const uint64_t tail[3] = {w3 >> 44, (w3 >> 24) & low20, (w3 >> 4) & low20};
    for (int a = 0; a < 3; ++a) {
        const uint64_t w = random.v[a];
        const double span = grid->hi[a] - grid->lo[a];
        p[0][a] = grid->lo[a] + span * ((double)(w >> 22) * 0x1.0p-42);
        p[1][a] = grid->lo[a] + span * ((double)((w & low22) << 20 | tail[a]) * 0x1.0p-42);
    }
}

static void proposal_place(const fd_scene_generator* gen, const fill_grid* grid, int64_t j, double p[3])
{
    double pair[2][3];
    proposal_pair(gen, grid, j >> 1, pair);
    memcpy(p, pair[j & 1], sizeof pair[0]);
}

/* Offers place p to sphere k (`possible`: p passed the pre-check); the
 * sphere is placed, and the next one drawn, when p is free. Fails when
 * sphere k has used up its attempts. */
static fd_status offer(fill_state* s, const double p[3], bool possible)
{
    const generation* g = s->g;
    const fd_scene_generator* gen = g->gen;
    fill_grid* grid = s->grid;
    s->tries++;
    if (possible && !place_is_taken(grid, p, s->radius)) {
        const fill_ball ball = {p[0], p[1], p[2], s->radius};
        int64_t cell = cell_index(grid, cell_of(grid, 0, p[0]), cell_of(grid, 1, p[1]), cell_of(grid, 2, p[2]));
        if (!grid_add(grid, &ball, cell)) {
            return fail_key(g, "", "%s", "out of memory");
        }
        s->placed_volume += 4.0 / 3.0 * PI * s->radius * s->radius * s->radius;
        fd_status status = create_sphere(g, s->k, s->radius, fd_v3(p[0], p[1], p[2]));
        if (status != FD_OK) {
            return status;
        }
        s->k++;
        s->tries = 0;
        if (s->k < gen->count) {
            s->radius = sphere_radius(gen, s->k);
        }
        return FD_OK;
    }
    if (s->tries >= gen->attempts) {
        char text[512];
        snprintf(text, sizeof text,
                 "placed %lld of %lld spheres: sphere %lld found no free place in %lld attempts (packing fraction "
                 "%.3g so far); enlarge the region, lower count or raise attempts",
                 (long long)s->k, (long long)gen->count, (long long)s->k, (long long)gen->attempts,
                 s->placed_volume / s->volume);
        return fail_key(g, "count", "%s", text);
    }
    return FD_OK;
}

/* Proposals [j0, j0 + size) in a batch: the places, sorted by cell, are
 * first checked against the spheres placed before the batch with the
 * smallest radius (a sweep through the grid in memory order), in single
 * precision with a margin that keeps the verdict "taken" certain; only those
 * that pass are offered, in order, to the exact test. A place taken for the
 * smallest radius is taken for any, and the spheres only grow in number, so
 * this changes nothing but the time. */
static fd_status offer_batch(fill_state* s, fill_batch* batch, int64_t j0, int64_t size, double r_min)
{
    const fd_scene_generator* gen = s->g->gen;
    const fill_grid* grid = s->grid;
    const int* bits = batch->bits;
    fill_proposal* proposals = batch->proposals;
    const int threads = s->g->threads;
    /* j0 and size are even. */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t i = 0; i < size; i += 2) {
        double pair[2][3];
        proposal_pair(gen, grid, (j0 + i) >> 1, pair);
        for (int h = 0; h < 2; ++h) {
            const double* p = pair[h];
            int64_t c[3];
            float f[3];
            for (int a = 0; a < 3; ++a) {
                c[a] = cell_of(grid, a, p[a]);
                f[a] = (float)(p[a] - (grid->lo[a] + (double)c[a] * grid->width[a]));
            }
            proposals[i + h] = (fill_proposal){(uint32_t)(c[0] | c[1] << bits[0] | c[2] << (bits[0] + bits[1])),
                                               (uint32_t)(i + h), f[0], f[1], f[2]};
        }
    }
    /* Least significant digit first radix sort: stable. */
    const int key_bits = bits[0] + bits[1] + bits[2];
    for (int shift = 0; shift < key_bits; shift += RADIX_BITS) {
        const uint32_t mask = (1u << RADIX_BITS) - 1;
        memset(batch->bucket, 0, ((size_t)mask + 2) * sizeof *batch->bucket);
        for (int64_t i = 0; i < size; ++i) {
            batch->bucket[((proposals[i].key >> shift) & mask) + 1]++;
        }
        for (uint32_t d = 0; d < mask; ++d) {
            batch->bucket[d + 1] += batch->bucket[d];
        }
        for (int64_t i = 0; i < size; ++i) {
            batch->scratch[batch->bucket[(proposals[i].key >> shift) & mask]++] = proposals[i];
        }
        fill_proposal* t = batch->proposals;
        batch->proposals = batch->scratch;
        batch->scratch = t;
        proposals = batch->proposals;
    }
    /* Single precision: |f - exact| <= width 2^-24 per axis. */
    const double margin = 4.0 * fmax(grid->width[0], fmax(grid->width[1], grid->width[2])) * 0x1.0p-24;
    const uint32_t mask_x = (1u << bits[0]) - 1, mask_y = (1u << bits[1]) - 1;
#pragma omp parallel for schedule(static, 4096) num_threads(threads) if (threads > 1)
    for (int64_t i = 0; i < size; ++i) {
        const fill_proposal* q = &proposals[i];
        const int64_t c[3] = {q->key & mask_x, (q->key >> bits[0]) & mask_y, q->key >> (bits[0] + bits[1])};
        const float f[3] = {q->x, q->y, q->z};
        double p[3];
        for (int a = 0; a < 3; ++a) {
            p[a] = grid->lo[a] + (double)c[a] * grid->width[a] + (double)f[a];
        }
        batch->possible[q->offset] = !overlaps_any(grid, p, c, r_min, margin);
    }
    for (int64_t i = 0; i < size && s->k < gen->count; ++i) {
        double p[3] = {0.0, 0.0, 0.0};
        if (batch->possible[i]) {
            proposal_place(gen, grid, j0 + i, p);
        }
        fd_status status = offer(s, p, batch->possible[i]);
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

static fd_status generate_random(const generation* g, const double lo[3], const double hi[3])
{
    const fd_scene_generator* gen = g->gen;
    if (fd_scene_given(&fd_scene_generator_table, gen, "spacing")) {
        return fail_key(g, "spacing", "%s", "only for type: lattice");
    }
    if (fd_scene_given(&fd_scene_generator_table, gen, "jitter")) {
        return fail_key(g, "jitter", "%s", "only for type: lattice");
    }
    char text[512];
    const double s = gen->radius_spread;
    const double r_max = gen->radius * (1.0 + s), r_min = gen->radius * (1.0 - s);
    double volume = 1.0;
    for (int a = 0; a < 3; ++a) {
        if (!(hi[a] - lo[a] >= 2.0 * r_max)) {
            snprintf(text, sizeof text,
                     "the region must be at least 2 x radius x (1 + radius_spread) = %g m wide (%c: max - min = %g m)",
                     2.0 * r_max, "xyz"[a], hi[a] - lo[a]);
            char path[FD_SCENE_PATH_MAX];
            snprintf(path, sizeof path, "generators[%d].region.max", g->index);
            return fd_scene_fail(g->ctx, fd_scene_given(&fd_scene_region_table, &gen->region, "max"), path, "%s",
                                 text);
        }
        volume *= hi[a] - lo[a];
    }
    /* Mean sphere volume: E[(1 + s x)^3] = 1 + s^2 for x uniform in [-1, 1]. */
    const double mean_volume = 4.0 / 3.0 * PI * gen->radius * gen->radius * gen->radius * (1.0 + s * s);
    const double fraction = (double)gen->count * mean_volume / volume;
    if (fraction > RANDOM_FRACTION_LIMIT) {
        snprintf(text, sizeof text,
                 "%lld spheres would fill %.3g of the region (%g m^3), more than a random fill reaches (at most %g; "
                 "random sequential addition jams near 0.38 and slows down long before): enlarge the region or "
                 "lower count (a lattice packs up to 0.52)",
                 (long long)gen->count, fraction, volume, RANDOM_FRACTION_LIMIT);
        return fail_key(g, "count", "%s", text);
    }

    /* The grid: cells of width >= 2 r_max (a little more, against the
     * round-off of the cell index), as many as fit, at most about
     * 4 (count + bodies) + 4096 (and 2^28, for the batches' 32-bit keys). */
    fill_grid grid;
    memset(&grid, 0, sizeof grid);
    const double cell_limit =
        fmin(4.0 * ((double)gen->count + (double)fd_world_body_count(g->world)) + 4096.0, 0x1.0p28);
    double width = 2.0 * r_max * (1.0 + 1e-9);
    double cells = 0.0;
    for (;;) {
        cells = 1.0;
        for (int a = 0; a < 3; ++a) {
            double n = floor((hi[a] - lo[a]) / width);
            grid.n[a] = n < 1.0 ? 1 : (int64_t)n;
            grid.width[a] = (hi[a] - lo[a]) / (double)grid.n[a];
            grid.inverse_width[a] = (double)grid.n[a] / (hi[a] - lo[a]);
            grid.lo[a] = lo[a];
            grid.hi[a] = hi[a];
            cells *= (double)grid.n[a];
        }
        if (cells <= cell_limit) {
            break;
        }
        width *= fmax(1.01, cbrt(cells / cell_limit));
    }
    grid.cells = aligned_alloc(64, (size_t)cells * sizeof *grid.cells);
    if (!grid.cells) {
        return fail_key(g, "", "%s", "out of memory");
    }
    const fill_ball empty = {NAN, NAN, NAN, 0.0};
    for (int64_t c = 0; c < (int64_t)cells; ++c) {
        grid.cells[c].slot[0] = empty;
        grid.cells[c].slot[1] = empty;
    }
    if (!grid_add_world(&grid, g->world, r_max)) {
        grid_free(&grid);
        return fail_key(g, "", "%s", "out of memory");
    }

    /* Proposals j = 0, 1, ... are offered in order to sphere k, which takes
     * the first free one (then sphere k + 1 the next free one, ...). While
     * most proposals are taken they are offered one by one; once fewer than
     * a quarter are, in batches of about one proposal per cell (at most
     * 2^20), each pre-checked in grid order (offer_batch). Either way the
     * same proposals go to the same spheres. */
    fill_batch batch;
    memset(&batch, 0, sizeof batch);
    batch.capacity = (int64_t)fmin(fmax(cells, 16384.0), 1048576.0) & ~(int64_t)1; /* even: whole pairs */
    fill_state state = {g, &grid, volume, 0, 0, sphere_radius(gen, 0), 0.0};
    fd_status status = FD_OK;
    int64_t j = 0;
    while (status == FD_OK && state.k < gen->count) {
        /* One by one: a window of 256 proposals. */
        int64_t k_before = state.k;
        for (int i = 0; i < 128 && status == FD_OK && state.k < gen->count; ++i) {
            double pair[2][3];
            proposal_pair(gen, &grid, j >> 1, pair);
            status = offer(&state, pair[0], true);
            if (status == FD_OK && state.k < gen->count) {
                status = offer(&state, pair[1], true);
            }
            j += 2;
        }
        if (status != FD_OK || state.k >= gen->count || state.k - k_before >= 64) {
            continue;
        }
        /* In batches while fewer than a quarter are taken. */
        if (!batch.proposals) {
            batch.proposals = malloc((size_t)batch.capacity * sizeof *batch.proposals);
            batch.scratch = malloc((size_t)batch.capacity * sizeof *batch.scratch);
            batch.bucket = malloc(((size_t)1 << RADIX_BITS) * sizeof *batch.bucket + sizeof *batch.bucket);
            batch.possible = malloc((size_t)batch.capacity);
            if (!batch.proposals || !batch.scratch || !batch.bucket || !batch.possible) {
                status = fail_key(g, "", "%s", "out of memory");
                break;
            }
            for (int a = 0; a < 3; ++a) {
                batch.bits[a] = 0;
                while (((int64_t)1 << batch.bits[a]) < grid.n[a]) {
                    batch.bits[a]++;
                }
            }
        }
        for (;;) {
            int64_t k_start = state.k;
            status = offer_batch(&state, &batch, j, batch.capacity, r_min);
            j += batch.capacity;
            if (status != FD_OK || state.k >= gen->count || 4 * (state.k - k_start) >= batch.capacity) {
                break;
            }
        }
    }
    batch_free(&batch);
    grid_free(&grid);
    return status;
}

/* ---------------------------------------------------------------- entry */

fd_status fd_scene_generate(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file,
                            const fd_scene_generator* gen, int index, fd_scene_names* names)
{
    char path[FD_SCENE_PATH_MAX];
    const int threads = file->world.threads > 1 ? (int)file->world.threads : 1;
    generation g = {ctx, world, gen, index, names, NULL, {0}, LATTICE_STREAM, threads};
    snprintf(path, sizeof path, "generators[%d].material", index);
    fd_status status = fd_scene_find_material(
        ctx, world, file, gen->material, fd_scene_given(&fd_scene_generator_table, gen, "material"), path, &g.material);
    if (status != FD_OK) {
        return status;
    }
    g.prefix = gen->name_prefix ? gen->name_prefix : "grain";
    if (strlen(g.prefix) > 200) {
        return fail_key(&g, "name_prefix", "%s", "too long (at most 200 characters)");
    }

    const double lo[3] = {gen->region.min.x, gen->region.min.y, gen->region.min.z};
    const double hi[3] = {gen->region.max.x, gen->region.max.y, gen->region.max.z};
    for (int a = 0; a < 3; ++a) {
        if (!(hi[a] > lo[a])) {
            snprintf(path, sizeof path, "generators[%d].region.max", index);
            return fd_scene_fail(ctx, fd_scene_given(&fd_scene_region_table, &gen->region, "max"), path,
                                 "must be > min in every component (%c: max %g <= min %g)", "xyz"[a], hi[a], lo[a]);
        }
    }

    if (gen->is_static && (gen->velocity.x != 0.0 || gen->velocity.y != 0.0 || gen->velocity.z != 0.0)) {
        return fail_key(&g, "velocity", "%s", "static spheres cannot move: give no velocity (or static: false)");
    }
    if (gen->type == FD_SCENE_GENERATOR_RANDOM) {
        g.stream = RANDOM_STREAM;
        return generate_random(&g, lo, hi);
    }
    return generate_lattice(&g, lo, hi);
}
