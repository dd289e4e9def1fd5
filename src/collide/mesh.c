/* Building a triangle-mesh wall: welding, patches, shared features, grids.
 *
 * fd_mesh_create turns a triangle soup (an STL file is one) into what the
 * closest-point queries of mesh_query.c read, in six passes:
 *   1. validation (finite coordinates, indices in range);
 *   2. welding: vertices closer than 1e-9 of the bounding-box diagonal
 *      become one (a hash grid of cells that size, so each vertex compares
 *      with the few in its 27 neighbour cells), each to the first of them in
 *      input order; an STL file repeats every vertex once per triangle, and
 *      without welding no two triangles would share an edge;
 *   3. degenerate triangles (two vertices welded, or zero area to round-off)
 *      are dropped; the rest keep their input order;
 *   4. patches: the triangles sharing each edge are found by sorting the
 *      edges, and neighbours join (union-find) when the angle between their
 *      normals, winding made consistent across the shared edge, is below the
 *      feature angle. A patch is one contact body for the caller, so a smooth
 *      surface (a drum's faceted side) must be one patch and a sharp edge (a
 *      box's) must split;
 *   5. shared features: for each edge and vertex the list of its incident
 *      triangles sorted by patch, and per triangle a bit for each of its
 *      edges and vertices that several patches share, which the ownership
 *      rule of the query reads;
 *   6. one uniform grid per patch over its bounding box, cells about the mean
 *      triangle size, so that a query visits only the triangles near the
 *      sphere.
 * Everything is deterministic: hash-table probing, sorting (on total orders)
 * and union-find (the lower root wins) depend on the input order only.
 *
 * Must not touch: contact laws, the world, the steppers. */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collide/mesh_internal.h"
#include "core/error.h"
#include "core/grow.h"

/* Weld distance and degeneracy threshold, relative to the mesh size. */
#define WELD_RELATIVE 1e-9
/* A triangle whose height is below this fraction of its longest edge has no
 * normal to speak of (its cross product is round-off) and is dropped. */
#define DEGENERATE_RELATIVE 1e-12
#define TIE_RELATIVE 1e-12
/* Squares of lengths (and products of squares, in the degeneracy test) must
 * stay far from overflow: 1e100^4 = 1e400 does not, 1e75^4 = 1e300 does. */
#define MAX_COORDINATE 1e75

static fd_vec3 vertex_at(const double* vertices, int index)
{
    return fd_v3(vertices[3 * index], vertices[3 * index + 1], vertices[3 * index + 2]);
}

/* ---------------------------------------------------------------- validation */

static bool validate_input(const double* vertices, int vertex_count, const int* triangles, int triangle_count,
                           double feature_angle, char* message, int message_size)
{
    if (triangle_count <= 0 || triangles == NULL) {
        return fd_message_false(message, message_size, "mesh has no triangles");
    }
    if (vertex_count <= 0 || vertices == NULL) {
        return fd_message_false(message, message_size, "mesh has no vertices");
    }
    if (vertex_count > INT_MAX / 3 || triangle_count > INT_MAX / 3) {
        return fd_message_false(message, message_size, "mesh too large (%d vertices, %d triangles; at most %d each)",
                                vertex_count, triangle_count, INT_MAX / 3);
    }
    if (!(feature_angle >= 0.0 && feature_angle <= FD_PI)) {
        return fd_message_false(message, message_size, "feature angle %g rad must be in [0, pi]", feature_angle);
    }
    const char* axis_names = "xyz";
    for (int i = 0; i < 3 * vertex_count; ++i) {
        if (!isfinite(vertices[i])) {
            return fd_message_false(message, message_size, "vertex %d: coordinate %c is not finite (%g)", i / 3,
                                    axis_names[i % 3], vertices[i]);
        }
        if (fabs(vertices[i]) > MAX_COORDINATE) {
            return fd_message_false(message, message_size,
                                    "vertex %d: coordinate %c = %g m is too large (above %g m the squared lengths of "
                                    "the closest-point tests overflow)",
                                    i / 3, axis_names[i % 3], vertices[i], MAX_COORDINATE);
        }
    }
    for (int i = 0; i < 3 * triangle_count; ++i) {
        if (triangles[i] < 0 || triangles[i] >= vertex_count) {
            return fd_message_false(message, message_size, "triangle %d: vertex index %d out of range (0 to %d)", i / 3,
                                    triangles[i], vertex_count - 1);
        }
    }
    return true;
}

/* ---------------------------------------------------------------- welding */

typedef struct weld_grid {
    int64_t* keys;  /* 3 per slot: the cell's coordinates */
    int* heads;     /* per slot: first vertex in the cell, -1 for an empty slot */
    int* next;      /* per vertex: the next one in its cell */
    size_t mask;    /* slot count - 1, a power of two at least twice the vertex count */
} weld_grid;

static size_t weld_slot(const weld_grid* grid, const int64_t cell[3], bool* found)
{
    uint64_t hash = (uint64_t)cell[0] * 0x9E3779B97F4A7C15ull ^ (uint64_t)cell[1] * 0xC2B2AE3D27D4EB4Full ^
                    (uint64_t)cell[2] * 0x165667B19E3779F9ull;
    hash ^= hash >> 31;
    for (size_t slot = (size_t)hash & grid->mask;; slot = (slot + 1) & grid->mask) {
        if (grid->heads[slot] < 0) {
            *found = false;
            return slot;
        }
        const int64_t* key = grid->keys + 3 * slot;
        if (key[0] == cell[0] && key[1] == cell[1] && key[2] == cell[2]) {
            *found = true;
            return slot;
        }
    }
}

/* representative[i]: the first vertex (in input order) of those within the
 * weld distance of vertex i that came before it and were not welded
 * themselves, or i. */
static bool weld_vertices(const double* vertices, int vertex_count, fd_vec3 box_min, double distance,
                          int* representative)
{
    size_t slots = 16;
    while (slots < 2 * (size_t)vertex_count) {
        slots *= 2;
    }
    weld_grid grid = {malloc(3 * slots * sizeof(int64_t)), malloc(slots * sizeof(int)),
                      malloc((size_t)vertex_count * sizeof(int)), slots - 1};
    bool ok = grid.keys != NULL && grid.heads != NULL && grid.next != NULL;
    if (ok) {
        for (size_t s = 0; s < slots; ++s) {
            grid.heads[s] = -1;
        }
        /* Cells the weld distance wide: two vertices that weld lie in
         * neighbouring cells. Coordinates are within the diagonal of box_min,
         * 1e9 cells, so the cell coordinates fit. */
        double inverse_cell = distance > 0.0 ? 1.0 / distance : 1.0;
        double distance_squared = distance * distance;
        for (int i = 0; i < vertex_count; ++i) {
            fd_vec3 p = vertex_at(vertices, i);
            int64_t cell[3] = {(int64_t)floor((p.x - box_min.x) * inverse_cell),
                               (int64_t)floor((p.y - box_min.y) * inverse_cell),
                               (int64_t)floor((p.z - box_min.z) * inverse_cell)};
            int best = -1;
            for (int dz = -1; dz <= 1; ++dz) {
                for (int dy = -1; dy <= 1; ++dy) {
                    for (int dx = -1; dx <= 1; ++dx) {
                        int64_t neighbour[3] = {cell[0] + dx, cell[1] + dy, cell[2] + dz};
                        bool found;
                        size_t slot = weld_slot(&grid, neighbour, &found);
                        for (int j = found ? grid.heads[slot] : -1; j >= 0; j = grid.next[j]) {
                            if ((best < 0 || j < best) &&
                                fd_v3_length_squared(fd_v3_sub(p, vertex_at(vertices, j))) < distance_squared) {
                                best = j;
                            }
                        }
                    }
                }
            }
            if (best >= 0) {
                representative[i] = best;
                continue;
            }
            representative[i] = i;
            bool found;
            size_t slot = weld_slot(&grid, cell, &found);
            if (!found) {
                grid.keys[3 * slot] = cell[0];
                grid.keys[3 * slot + 1] = cell[1];
                grid.keys[3 * slot + 2] = cell[2];
                grid.heads[slot] = -1;
            }
            grid.next[i] = grid.heads[slot];
            grid.heads[slot] = i;
        }
    }
    free(grid.keys);
    free(grid.heads);
    free(grid.next);
    return ok;
}

/* ---------------------------------------------------------------- triangles */

/* Zero area to round-off: |(b - a) x (c - a)| below DEGENERATE_RELATIVE of
 * the longest edge squared. */
static bool is_degenerate(fd_vec3 a, fd_vec3 b, fd_vec3 c)
{
    double longest_squared = fmax(fd_v3_length_squared(fd_v3_sub(b, a)),
                                  fmax(fd_v3_length_squared(fd_v3_sub(c, b)), fd_v3_length_squared(fd_v3_sub(a, c))));
    double cross_squared = fd_v3_length_squared(fd_v3_cross(fd_v3_sub(b, a), fd_v3_sub(c, a)));
    double threshold = DEGENERATE_RELATIVE * longest_squared;
    return !(cross_squared > threshold * threshold);
}

static void fill_geometry(fd_mesh* mesh, int t)
{
    const int* v = mesh->triangles + 3 * t;
    fd_vec3 a = vertex_at(mesh->vertices, v[0]);
    fd_vec3 b = vertex_at(mesh->vertices, v[1]);
    fd_vec3 c = vertex_at(mesh->vertices, v[2]);
    fd_mesh_triangle_geometry* g = &mesh->geometry[t];
    g->a = a;
    g->edge_ab = fd_v3_sub(b, a);
    g->edge_ac = fd_v3_sub(c, a);
    g->edge_bc = fd_v3_sub(c, b);
    /* Divided by the length, not multiplied by its inverse: each component
     * is then correctly rounded, so a face in a coordinate plane gets the
     * normal (0, 0, +-1) exactly whatever its area (c * (1 / c) is 1 - 2^-53
     * for some c), and a sphere rolling over a flat mesh sees the same gap
     * on every triangle, not one an ulp off on some (issue 12). */
    fd_vec3 cross = fd_v3_cross(g->edge_ab, g->edge_ac);
    double length = fd_v3_length(cross);
    g->normal = fd_v3(cross.x / length, cross.y / length, cross.z / length);
    g->ab_ab = fd_v3_dot(g->edge_ab, g->edge_ab);
    g->ab_ac = fd_v3_dot(g->edge_ab, g->edge_ac);
    g->ac_ac = fd_v3_dot(g->edge_ac, g->edge_ac);
    g->bc_bc = fd_v3_dot(g->edge_bc, g->edge_bc);
    /* Lagrange's identity: the determinant is |ab x ac|^2, computed so from
     * the cross product because the difference of products cancels for
     * slender triangles. */
    g->inverse_determinant = 1.0 / fd_v3_length_squared(fd_v3_cross(g->edge_ab, g->edge_ac));
    fd_mesh_box* box = &mesh->triangle_box[t];
    box->min = fd_v3(fmin(a.x, fmin(b.x, c.x)), fmin(a.y, fmin(b.y, c.y)), fmin(a.z, fmin(b.z, c.z)));
    box->max = fd_v3(fmax(a.x, fmax(b.x, c.x)), fmax(a.y, fmax(b.y, c.y)), fmax(a.z, fmax(b.z, c.z)));
}

/* ---------------------------------------------------------------- edges and patches */

typedef struct edge_record {
    int low, high; /* the edge's vertices, low < high */
    int patch;     /* -1 until the patches are known */
    int triangle;
    int local;     /* the edge's index k in its triangle: from vertex k to vertex k + 1 mod 3 */
} edge_record;

static int compare_edge_records(const void* left, const void* right)
{
    const edge_record* a = left;
    const edge_record* b = right;
    if (a->low != b->low) {
        return a->low < b->low ? -1 : 1;
    }
    if (a->high != b->high) {
        return a->high < b->high ? -1 : 1;
    }
    if (a->patch != b->patch) {
        return a->patch < b->patch ? -1 : 1;
    }
    if (a->triangle != b->triangle) {
        return a->triangle < b->triangle ? -1 : 1;
    }
    return (a->local > b->local) - (a->local < b->local);
}

static int find_root(int* parent, int t)
{
    while (parent[t] != t) {
        parent[t] = parent[parent[t]]; /* path halving */
        t = parent[t];
    }
    return t;
}

/* The lower root wins, so a patch's root is its lowest triangle. */
static void join(int* parent, int s, int t)
{
    int a = find_root(parent, s), b = find_root(parent, t);
    if (a < b) {
        parent[b] = a;
    } else if (b < a) {
        parent[a] = b;
    }
}

/* Whether edge record e runs from low to high in its triangle. */
static bool runs_forward(const fd_mesh* mesh, const edge_record* e)
{
    return mesh->triangles[3 * e->triangle + e->local] == e->low;
}

/* Union-find over the edges of one sorted group of records (one edge): two
 * triangles join when their normals, the winding of one flipped where both
 * run the edge the same way (consistent winding runs a shared edge in
 * opposite directions), are closer than the feature angle. */
static void join_across_edge(const fd_mesh* mesh, const edge_record* group, int count, double cosine_limit,
                             int* parent)
{
    for (int i = 0; i < count; ++i) {
        for (int j = i + 1; j < count; ++j) {
            double cosine = fd_v3_dot(mesh->geometry[group[i].triangle].normal,
                                      mesh->geometry[group[j].triangle].normal);
            if (runs_forward(mesh, &group[i]) == runs_forward(mesh, &group[j])) {
                cosine = -cosine;
            }
            if (cosine > cosine_limit) {
                join(parent, group[i].triangle, group[j].triangle);
            }
        }
    }
}

static int group_end(const edge_record* records, int count, int start)
{
    int end = start + 1;
    while (end < count && records[end].low == records[start].low && records[end].high == records[start].high) {
        ++end;
    }
    return end;
}

/* Patches, the edge table and the shared-edge bits. */
static bool build_edges_and_patches(fd_mesh* mesh, double feature_angle)
{
    int record_count = 3 * mesh->triangle_count;
    edge_record* records = malloc((size_t)record_count * sizeof *records);
    int* parent = malloc((size_t)mesh->triangle_count * sizeof *parent);
    int* patch_of_root = malloc((size_t)mesh->triangle_count * sizeof *patch_of_root);
    bool ok = records != NULL && parent != NULL && patch_of_root != NULL;
    if (ok) {
        for (int t = 0; t < mesh->triangle_count; ++t) {
            parent[t] = t;
            patch_of_root[t] = -1;
            for (int k = 0; k < 3; ++k) {
                int from = mesh->triangles[3 * t + k], to = mesh->triangles[3 * t + (k + 1) % 3];
                records[3 * t + k] = (edge_record){from < to ? from : to, from < to ? to : from, -1, t, k};
            }
        }
        qsort(records, (size_t)record_count, sizeof *records, compare_edge_records);
        double cosine_limit = cos(feature_angle);
        for (int start = 0; start < record_count;) {
            int end = group_end(records, record_count, start);
            join_across_edge(mesh, records + start, end - start, cosine_limit, parent);
            start = end;
        }
        mesh->patch_count = 0;
        for (int t = 0; t < mesh->triangle_count; ++t) {
            int root = find_root(parent, t);
            if (patch_of_root[root] < 0) {
                patch_of_root[root] = mesh->patch_count++;
            }
            mesh->triangle_patch[t] = patch_of_root[root];
        }
        /* Sorted again with the patches known, each edge's list comes out
         * ordered by patch, then triangle. */
        for (int r = 0; r < record_count; ++r) {
            records[r].patch = mesh->triangle_patch[records[r].triangle];
        }
        qsort(records, (size_t)record_count, sizeof *records, compare_edge_records);
        mesh->edge_count = 0;
        for (int start = 0; start < record_count; start = group_end(records, record_count, start)) {
            ++mesh->edge_count;
        }
        mesh->edge_first = malloc(((size_t)mesh->edge_count + 1) * sizeof *mesh->edge_first);
        mesh->edge_incidence = malloc((size_t)record_count * sizeof *mesh->edge_incidence);
        ok = mesh->edge_first != NULL && mesh->edge_incidence != NULL;
    }
    if (ok) {
        int edge = 0;
        for (int start = 0; start < record_count; ++edge) {
            int end = group_end(records, record_count, start);
            bool shared = records[start].patch != records[end - 1].patch;
            mesh->edge_first[edge] = start;
            for (int r = start; r < end; ++r) {
                mesh->edge_incidence[r] = (fd_mesh_incidence){records[r].patch, records[r].triangle};
                mesh->triangle_edges[3 * records[r].triangle + records[r].local] = edge;
                if (shared) {
                    mesh->shared[records[r].triangle] |= (unsigned char)(FD_MESH_SHARED_EDGE << records[r].local);
                }
            }
            start = end;
        }
        mesh->edge_first[mesh->edge_count] = record_count;
    }
    free(records);
    free(parent);
    free(patch_of_root);
    return ok;
}

static int compare_incidence(const void* left, const void* right)
{
    const fd_mesh_incidence* a = left;
    const fd_mesh_incidence* b = right;
    if (a->patch != b->patch) {
        return a->patch < b->patch ? -1 : 1;
    }
    return (a->triangle > b->triangle) - (a->triangle < b->triangle);
}

/* Each vertex's incident triangles (by patch, then triangle) and the
 * shared-vertex bits. */
static bool build_vertex_incidence(fd_mesh* mesh)
{
    int n = mesh->vertex_count;
    mesh->vertex_first = calloc((size_t)n + 1, sizeof *mesh->vertex_first);
    mesh->vertex_incidence = malloc(3 * (size_t)mesh->triangle_count * sizeof *mesh->vertex_incidence);
    if (mesh->vertex_first == NULL || mesh->vertex_incidence == NULL) {
        return false;
    }
    for (int i = 0; i < 3 * mesh->triangle_count; ++i) {
        ++mesh->vertex_first[mesh->triangles[i] + 1];
    }
    for (int v = 0; v < n; ++v) {
        mesh->vertex_first[v + 1] += mesh->vertex_first[v];
    }
    int* fill = malloc((size_t)n * sizeof *fill);
    if (fill == NULL) {
        return false;
    }
    memcpy(fill, mesh->vertex_first, (size_t)n * sizeof *fill);
    for (int t = 0; t < mesh->triangle_count; ++t) {
        for (int k = 0; k < 3; ++k) {
            int v = mesh->triangles[3 * t + k];
            mesh->vertex_incidence[fill[v]++] = (fd_mesh_incidence){mesh->triangle_patch[t], t};
        }
    }
    free(fill);
    for (int v = 0; v < n; ++v) {
        fd_mesh_incidence* list = mesh->vertex_incidence + mesh->vertex_first[v];
        int count = mesh->vertex_first[v + 1] - mesh->vertex_first[v];
        qsort(list, (size_t)count, sizeof *list, compare_incidence);
        if (count > 0 && list[0].patch != list[count - 1].patch) {
            for (int i = 0; i < count; ++i) {
                int t = list[i].triangle;
                for (int k = 0; k < 3; ++k) {
                    if (mesh->triangles[3 * t + k] == v) {
                        mesh->shared[t] |= (unsigned char)(FD_MESH_SHARED_VERTEX << k);
                    }
                }
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------- grids */

static double box_extent(const fd_mesh_box* box, int axis)
{
    return fd_v3_component(box->max, axis) - fd_v3_component(box->min, axis);
}

/* The number of (cell, triangle) entries the grid would hold. */
static double grid_entry_count(const fd_mesh* mesh, const fd_mesh_grid* grid, const int* list, int count)
{
    double entries = 0.0;
    for (int i = 0; i < count; ++i) {
        const fd_mesh_box* box = &mesh->triangle_box[list[i]];
        double cells = 1.0;
        for (int axis = 0; axis < 3; ++axis) {
            cells *= fd_mesh_grid_cell(grid, axis, fd_v3_component(box->max, axis)) -
                     fd_mesh_grid_cell(grid, axis, fd_v3_component(box->min, axis)) + 1;
        }
        entries += cells;
    }
    return entries;
}

/* A grid over the patch's triangles list[count]. Cells start at the mean
 * triangle size (a triangle then spans a few cells and a cell holds a few
 * triangles) and grow until there are at most 4 count + 64 cells and
 * 8 count + 4096 entries, so that memory stays linear in the triangles even
 * when one patch mixes very large and very small ones. */
static bool build_grid(const fd_mesh* mesh, const int* list, int count, fd_mesh_grid* grid)
{
    grid->box = mesh->triangle_box[list[0]];
    double mean_size = 0.0;
    for (int i = 0; i < count; ++i) {
        const fd_mesh_box* box = &mesh->triangle_box[list[i]];
        grid->box.min = fd_v3(fmin(grid->box.min.x, box->min.x), fmin(grid->box.min.y, box->min.y),
                              fmin(grid->box.min.z, box->min.z));
        grid->box.max = fd_v3(fmax(grid->box.max.x, box->max.x), fmax(grid->box.max.y, box->max.y),
                              fmax(grid->box.max.z, box->max.z));
        mean_size += fmax(box_extent(box, 0), fmax(box_extent(box, 1), box_extent(box, 2)));
    }
    double cell_size = mean_size / count; /* > 0: no kept triangle is a point */
    double cell_limit = 4.0 * count + 64.0;
    double entry_limit = 8.0 * count + 4096.0;
    for (;;) {
        double cells = 1.0;
        for (int axis = 0; axis < 3; ++axis) {
            double along = fmax(1.0, ceil(box_extent(&grid->box, axis) / cell_size));
            grid->cells[axis] = along < 1e6 ? (int)along : 1000000;
            cells *= along;
        }
        grid->inverse_cell_size = 1.0 / cell_size;
        if (cells <= cell_limit && grid_entry_count(mesh, grid, list, count) <= entry_limit) {
            break;
        }
        cell_size *= cells > cell_limit ? cbrt(cells / cell_limit) * 1.01 : 2.0;
    }
    int cell_count = grid->cells[0] * grid->cells[1] * grid->cells[2];
    int entries = (int)grid_entry_count(mesh, grid, list, count);
    grid->cell_first = calloc((size_t)cell_count + 1, sizeof *grid->cell_first);
    grid->cell_triangles = malloc((size_t)entries * sizeof *grid->cell_triangles);
    if (grid->cell_first == NULL || grid->cell_triangles == NULL) {
        return false;
    }
    /* Two passes over the same cell ranges: count, then fill in triangle order. */
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < count; ++i) {
            const fd_mesh_box* box = &mesh->triangle_box[list[i]];
            int low[3], high[3];
            for (int axis = 0; axis < 3; ++axis) {
                low[axis] = fd_mesh_grid_cell(grid, axis, fd_v3_component(box->min, axis));
                high[axis] = fd_mesh_grid_cell(grid, axis, fd_v3_component(box->max, axis));
            }
            for (int k = low[2]; k <= high[2]; ++k) {
                for (int j = low[1]; j <= high[1]; ++j) {
                    for (int c = low[0]; c <= high[0]; ++c) {
                        int cell = c + grid->cells[0] * (j + grid->cells[1] * k);
                        if (pass == 0) {
                            ++grid->cell_first[cell + 1];
                        } else {
                            grid->cell_triangles[grid->cell_first[cell]++] = list[i];
                        }
                    }
                }
            }
        }
        if (pass == 0) {
            for (int cell = 0; cell < cell_count; ++cell) {
                grid->cell_first[cell + 1] += grid->cell_first[cell];
            }
        } else {
            /* Filling advanced each offset to the next cell's: shift back. */
            for (int cell = cell_count; cell > 0; --cell) {
                grid->cell_first[cell] = grid->cell_first[cell - 1];
            }
            grid->cell_first[0] = 0;
        }
    }
    return true;
}

static bool build_grids(fd_mesh* mesh)
{
    mesh->grids = calloc((size_t)mesh->patch_count, sizeof *mesh->grids);
    int* first = calloc((size_t)mesh->patch_count + 1, sizeof *first);
    int* list = malloc((size_t)mesh->triangle_count * sizeof *list);
    bool ok = mesh->grids != NULL && first != NULL && list != NULL;
    if (ok) {
        for (int t = 0; t < mesh->triangle_count; ++t) {
            ++first[mesh->triangle_patch[t] + 1];
        }
        for (int p = 0; p < mesh->patch_count; ++p) {
            first[p + 1] += first[p];
        }
        for (int t = 0; t < mesh->triangle_count; ++t) {
            list[first[mesh->triangle_patch[t]]++] = t; /* advances first[p] to first[p + 1] */
        }
        for (int p = 0; ok && p < mesh->patch_count; ++p) {
            int start = p == 0 ? 0 : first[p - 1];
            ok = build_grid(mesh, list + start, first[p] - start, &mesh->grids[p]);
        }
    }
    free(first);
    free(list);
    return ok;
}

/* ---------------------------------------------------------------- create */

static fd_vec3 bounding_min(const double* vertices, int count, fd_vec3* max)
{
    fd_vec3 min = vertex_at(vertices, 0);
    *max = min;
    for (int i = 1; i < count; ++i) {
        fd_vec3 p = vertex_at(vertices, i);
        min = fd_v3(fmin(min.x, p.x), fmin(min.y, p.y), fmin(min.z, p.z));
        *max = fd_v3(fmax(max->x, p.x), fmax(max->y, p.y), fmax(max->z, p.z));
    }
    return min;
}

/* The welded, compacted vertices and the kept triangles. */
static bool build_vertices_and_triangles(fd_mesh* mesh, const double* vertices, int vertex_count,
                                         const int* triangles, int triangle_count)
{
    fd_vec3 max;
    fd_vec3 min = bounding_min(vertices, vertex_count, &max);
    double diagonal = fd_v3_distance(min, max);
    int* representative = malloc((size_t)vertex_count * sizeof *representative);
    int* new_index = malloc((size_t)vertex_count * sizeof *new_index);
    mesh->triangles = malloc(3 * (size_t)triangle_count * sizeof *mesh->triangles);
    bool ok = representative != NULL && new_index != NULL && mesh->triangles != NULL &&
              weld_vertices(vertices, vertex_count, min, WELD_RELATIVE * diagonal, representative);
    if (ok) {
        int kept = 0;
        for (int t = 0; t < triangle_count; ++t) {
            int v[3];
            for (int k = 0; k < 3; ++k) {
                v[k] = representative[triangles[3 * t + k]];
            }
            if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0] ||
                is_degenerate(vertex_at(vertices, v[0]), vertex_at(vertices, v[1]), vertex_at(vertices, v[2]))) {
                ++mesh->degenerate_count;
                continue;
            }
            memcpy(mesh->triangles + 3 * kept, v, sizeof v);
            ++kept;
        }
        mesh->triangle_count = kept;
        /* Compaction: the used representatives, in input order. */
        for (int i = 0; i < vertex_count; ++i) {
            new_index[i] = -1;
        }
        for (int i = 0; i < 3 * kept; ++i) {
            new_index[mesh->triangles[i]] = 0;
        }
        for (int i = 0; i < vertex_count; ++i) {
            if (new_index[i] == 0) {
                new_index[i] = mesh->vertex_count++;
            }
        }
        /* + 1: a mesh whose triangles were all dropped has no vertices, and
         * malloc(0) may return NULL, which is not out of memory. */
        mesh->vertices = malloc(3 * ((size_t)mesh->vertex_count + 1) * sizeof *mesh->vertices);
        ok = mesh->vertices != NULL;
    }
    if (ok) {
        for (int i = 0; i < vertex_count; ++i) {
            if (new_index[i] >= 0) {
                memcpy(mesh->vertices + 3 * new_index[i], vertices + 3 * i, 3 * sizeof *vertices);
            }
        }
        for (int i = 0; i < 3 * mesh->triangle_count; ++i) {
            mesh->triangles[i] = new_index[mesh->triangles[i]];
        }
    }
    free(representative);
    free(new_index);
    return ok;
}

fd_mesh* fd_mesh_create(const double* vertices, int vertex_count, const int* triangles, int triangle_count,
                        double feature_angle, char* message, int message_size)
{
    if (!validate_input(vertices, vertex_count, triangles, triangle_count, feature_angle, message, message_size)) {
        return NULL;
    }
    fd_mesh* mesh = calloc(1, sizeof *mesh);
    if (mesh == NULL || !build_vertices_and_triangles(mesh, vertices, vertex_count, triangles, triangle_count)) {
        fd_mesh_free(mesh);
        fd_message_false(message, message_size, "out of memory building a mesh of %d triangles", triangle_count);
        return NULL;
    }
    if (mesh->triangle_count == 0) {
        fd_message_false(message, message_size, "mesh has no triangles: all %d are degenerate (zero area)",
                         triangle_count);
        fd_mesh_free(mesh);
        return NULL;
    }
    size_t n = (size_t)mesh->triangle_count;
    mesh->triangle_patch = malloc(n * sizeof *mesh->triangle_patch);
    mesh->geometry = malloc(n * sizeof *mesh->geometry);
    mesh->triangle_box = malloc(n * sizeof *mesh->triangle_box);
    mesh->shared = calloc(n, sizeof *mesh->shared);
    mesh->triangle_edges = malloc(3 * n * sizeof *mesh->triangle_edges);
    bool ok = mesh->triangle_patch != NULL && mesh->geometry != NULL && mesh->triangle_box != NULL &&
              mesh->shared != NULL && mesh->triangle_edges != NULL;
    for (int t = 0; ok && t < mesh->triangle_count; ++t) {
        fill_geometry(mesh, t);
    }
    ok = ok && build_edges_and_patches(mesh, feature_angle) && build_vertex_incidence(mesh) && build_grids(mesh);
    if (!ok) {
        fd_mesh_free(mesh);
        fd_message_false(message, message_size, "out of memory building a mesh of %d triangles", triangle_count);
        return NULL;
    }
    fd_vec3 max;
    fd_vec3 min = bounding_min(mesh->vertices, mesh->vertex_count, &max);
    for (int v = 0; v < mesh->vertex_count; ++v) {
        mesh->bounding_radius = fmax(mesh->bounding_radius, fd_v3_length(vertex_at(mesh->vertices, v)));
    }
    mesh->tolerance = TIE_RELATIVE * (fd_v3_distance(min, max) + mesh->bounding_radius);
    return mesh;
}

void fd_mesh_free(fd_mesh* mesh)
{
    if (mesh == NULL) {
        return;
    }
    for (int p = 0; mesh->grids != NULL && p < mesh->patch_count; ++p) {
        free(mesh->grids[p].cell_first);
        free(mesh->grids[p].cell_triangles);
    }
    FD_FREE_ALL(mesh->grids, mesh->vertices, mesh->triangles, mesh->triangle_patch, mesh->geometry, mesh->triangle_box,
                mesh->shared, mesh->triangle_edges, mesh->edge_first, mesh->edge_incidence, mesh->vertex_first,
                mesh->vertex_incidence, mesh);
}

/* ---------------------------------------------------------------- accessors */

int fd_mesh_patch_count(const fd_mesh* mesh) { return mesh->patch_count; }
int fd_mesh_triangle_count(const fd_mesh* mesh) { return mesh->triangle_count; }
int fd_mesh_vertex_count(const fd_mesh* mesh) { return mesh->vertex_count; }
int fd_mesh_degenerate_count(const fd_mesh* mesh) { return mesh->degenerate_count; }
const double* fd_mesh_vertices(const fd_mesh* mesh) { return mesh->vertices; }
const int* fd_mesh_triangles(const fd_mesh* mesh) { return mesh->triangles; }
double fd_mesh_bounding_radius(const fd_mesh* mesh) { return mesh->bounding_radius; }

int fd_mesh_triangle_patch(const fd_mesh* mesh, int triangle)
{
    return triangle >= 0 && triangle < mesh->triangle_count ? mesh->triangle_patch[triangle] : -1;
}

fd_mesh* fd_mesh_create_box(fd_vec3 size, char* message, int message_size)
{
    double vertices[24];
    for (int v = 0; v < 8; ++v) {
        vertices[3 * v + 0] = (v & 1 ? 0.5 : -0.5) * size.x;
        vertices[3 * v + 1] = (v & 2 ? 0.5 : -0.5) * size.y;
        vertices[3 * v + 2] = (v & 4 ? 0.5 : -0.5) * size.z;
    }
    /* Faces -x, +x, -y, +y, -z, +z as two triangles each, wound outwards; the
     * 90 degree edges split them into one patch per face (30 degrees is below). */
    static const int triangles[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                      2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    return fd_mesh_create(vertices, 8, triangles, 12, 30.0 * FD_PI / 180.0, message, message_size);
}
