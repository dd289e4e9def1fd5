/* The walls series of the VTU output (vtu/walls_NNNNNN.vtu): every wall body
 * at its pose of the snapshot's time, at its true size, as polygons.
 * Format: docs/output-format.md; the array and piece writer it fills is
 * output_vtu.c's (output_vtu_piece.h).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collide/collide.h"
#include "core/error.h"
#include "core/math.h"
#include "io/output_vtu.h"
#include "io/output_vtu_piece.h"

/* Every wall surface at its pose of the output time (a moving wall is drawn
 * where it is), as polygons sharing their corners within a body: a plane as a
 * square (the one surface with no size of its own), a cylindrical shell as
 * WALL_SEGMENTS quads, a disk as a fan of triangles about its centre (an
 * annulus as quads), a mesh patch as its own triangles. A circle is drawn as
 * its inscribed polygon: the corners lie on the true surface and a facet's
 * middle R (1 - cos(pi / n)) inside it, 9.5e-4 R for n = 72, and a disk's
 * drawn area is (n / 2) R^2 sin(2 pi / n), 1.3e-3 below pi R^2. */
enum { WALL_SEGMENTS = 72 };

/* The cells being drawn: points, then per cell its corners (indices into the
 * points), its VTK type, its body, its wall and its normal. */
typedef struct wall_drawing {
    double* points;          /* 3 per point, world frame, m */
    int64_t* connectivity;   /* the corners of every cell, cell after cell */
    int64_t* offsets;        /* per cell: the end of its corners in connectivity */
    int64_t* types;          /* per cell: VTK_TRIANGLE or VTK_QUAD */
    int64_t* ids;            /* per cell: the body index */
    int64_t* walls;          /* per cell: the index of the wall's first body (fd_body_info.wall) */
    double* normals;         /* 3 per cell: unit, world frame */
    int64_t point_count, point_capacity;
    int64_t corner_count, corner_capacity;
    int64_t cell_count, cell_capacity;
} wall_drawing;

/* Grows *data to hold `needed` elements of `size` bytes (capacity doubled). */
static bool grow(void** data, int64_t* capacity, int64_t needed, size_t size)
{
    if (needed <= *capacity) {
        return true;
    }
    int64_t grown = *capacity > 0 ? *capacity : 64;
    while (grown < needed) {
        grown *= 2;
    }
    void* larger = realloc(*data, (size_t)grown * size);
    if (!larger) {
        return false;
    }
    *data = larger;
    *capacity = grown;
    return true;
}

/* Room for `points` more points, `corners` more corners and `cells` more
 * cells; the five per-cell arrays share one capacity. */
static bool drawing_reserve(wall_drawing* d, int64_t points, int64_t corners, int64_t cells)
{
    if (!grow((void**)&d->points, &d->point_capacity, d->point_count + points, 3 * sizeof *d->points) ||
        !grow((void**)&d->connectivity, &d->corner_capacity, d->corner_count + corners, sizeof *d->connectivity)) {
        return false;
    }
    int64_t needed = d->cell_count + cells;
    if (needed <= d->cell_capacity) {
        return true;
    }
    int64_t capacity = d->cell_capacity > 0 ? 2 * d->cell_capacity : 64;
    capacity = capacity > needed ? capacity : needed;
    int64_t** integers[4] = {&d->offsets, &d->types, &d->ids, &d->walls};
    for (int k = 0; k < 4; ++k) {
        int64_t* larger = realloc(*integers[k], (size_t)capacity * sizeof **integers[k]);
        if (!larger) {
            return false;
        }
        *integers[k] = larger;
    }
    double* normals = realloc(d->normals, (size_t)capacity * 3 * sizeof *normals);
    if (!normals) {
        return false;
    }
    d->normals = normals;
    d->cell_capacity = capacity;
    return true;
}

static void drawing_free(wall_drawing* d)
{
    free(d->points), free(d->connectivity), free(d->offsets), free(d->types);
    free(d->ids), free(d->walls), free(d->normals);
}

/* Adds a point (room reserved) and returns its index. */
static int64_t add_point(wall_drawing* d, fd_vec3 p)
{
    fd_vtu_put3(d->points + 3 * d->point_count, p);
    return d->point_count++;
}

/* The body whose cells are being added: its index, its wall's and its pose. */
typedef struct wall_body {
    int64_t id, wall;
    fd_body_info info;
    fd_body_state state;
} wall_body;

/* Body frame to world frame at the body's pose of the output time. */
static fd_vec3 to_world(const wall_body* body, fd_vec3 v)
{
    return fd_v3_add(body->state.position, fd_quat_rotate(body->state.orientation, v));
}

/* Adds a cell (room reserved) of `count` corners. */
static void add_cell(wall_drawing* d, const wall_body* body, int64_t vtk_type, const int64_t* corners, int count,
                     fd_vec3 normal)
{
    for (int k = 0; k < count; ++k) {
        d->connectivity[d->corner_count++] = corners[k];
    }
    d->offsets[d->cell_count] = d->corner_count;
    d->types[d->cell_count] = vtk_type;
    d->ids[d->cell_count] = body->id;
    d->walls[d->cell_count] = body->wall;
    fd_vtu_put3(d->normals + 3 * d->cell_count, normal);
    d->cell_count += 1;
}

/* Corner k of the circle of `radius` about the body z axis in the plane z. */
static fd_vec3 circle_point(int k, double radius, double z)
{
    double angle = 2.0 * FD_PI * (double)k / WALL_SEGMENTS;
    return fd_v3(radius * cos(angle), radius * sin(angle), z);
}

/* A square of the plane about the projection of square->centre onto it
 * (fixed at the start, see output_vtu.h), normal the outward one. */
static bool draw_plane(wall_drawing* d, const wall_body* body, const fd_vtu_plane_square* square)
{
    if (!drawing_reserve(d, 4, 4, 1)) {
        return false;
    }
    fd_vec3 n = fd_v3_normalize(fd_quat_rotate(body->state.orientation, body->info.shape.plane_normal));
    fd_vec3 t1 = fd_v3_any_orthogonal(n);
    fd_vec3 t2 = fd_v3_cross(n, t1);
    fd_vec3 c = fd_v3_mul_add(square->centre, -fd_v3_dot(fd_v3_sub(square->centre, body->state.position), n), n);
    const double signs[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    int64_t corners[4];
    for (int k = 0; k < 4; ++k) {
        corners[k] = add_point(d, fd_v3_add(c, fd_v3_add(fd_v3_scale(signs[k][0] * square->half_side, t1),
                                                         fd_v3_scale(signs[k][1] * square->half_side, t2))));
    }
    add_cell(d, body, VTK_QUAD, corners, 4, n);
    return true;
}

/* The shell: two rings of corners at z = -+length/2, a quad between them per
 * segment, its normal the outward radius through the segment's middle
 * (corners in the order that makes that normal by the right-hand rule). */
static bool draw_cylinder(wall_drawing* d, const wall_body* body)
{
    if (!drawing_reserve(d, 2 * WALL_SEGMENTS, 4 * WALL_SEGMENTS, WALL_SEGMENTS)) {
        return false;
    }
    const double radius = body->info.shape.radius;
    const double half = 0.5 * body->info.shape.length;
    const int64_t first = d->point_count;
    for (int k = 0; k < WALL_SEGMENTS; ++k) {
        add_point(d, to_world(body, circle_point(k, radius, -half)));
        add_point(d, to_world(body, circle_point(k, radius, half)));
    }
    for (int k = 0; k < WALL_SEGMENTS; ++k) {
        int64_t low = first + 2 * k, next = first + 2 * ((k + 1) % WALL_SEGMENTS);
        const int64_t corners[4] = {low, next, next + 1, low + 1};
        double middle = 2.0 * FD_PI * (k + 0.5) / WALL_SEGMENTS;
        add_cell(d, body, VTK_QUAD, corners, 4,
                 fd_quat_rotate(body->state.orientation, fd_v3(cos(middle), sin(middle), 0.0)));
    }
    return true;
}

/* The disk in its plane z = offset: a fan of triangles about the centre, or
 * for an annulus a quad per segment between the inner and the outer ring;
 * normal body +z (counter-clockwise corners seen from +z). */
static bool draw_disk(wall_drawing* d, const wall_body* body)
{
    const double outer = body->info.shape.radius;
    const double inner = body->info.shape.inner_radius;
    const double z = body->info.shape.offset;
    const fd_vec3 normal = fd_quat_rotate(body->state.orientation, fd_v3(0.0, 0.0, 1.0));
    const bool annulus = inner > 0.0;
    if (!drawing_reserve(d, annulus ? 2 * WALL_SEGMENTS : WALL_SEGMENTS + 1,
                         (annulus ? 4 : 3) * WALL_SEGMENTS, WALL_SEGMENTS)) {
        return false;
    }
    if (annulus) {
        const int64_t first = d->point_count;
        for (int k = 0; k < WALL_SEGMENTS; ++k) {
            add_point(d, to_world(body, circle_point(k, inner, z)));
            add_point(d, to_world(body, circle_point(k, outer, z)));
        }
        for (int k = 0; k < WALL_SEGMENTS; ++k) {
            int64_t at = first + 2 * k, next = first + 2 * ((k + 1) % WALL_SEGMENTS);
            const int64_t corners[4] = {at, at + 1, next + 1, next};
            add_cell(d, body, VTK_QUAD, corners, 4, normal);
        }
        return true;
    }
    const int64_t centre = add_point(d, to_world(body, fd_v3(0.0, 0.0, z)));
    for (int k = 0; k < WALL_SEGMENTS; ++k) {
        add_point(d, to_world(body, circle_point(k, outer, z)));
    }
    for (int k = 0; k < WALL_SEGMENTS; ++k) {
        const int64_t corners[3] = {centre, centre + 1 + k, centre + 1 + (k + 1) % WALL_SEGMENTS};
        add_cell(d, body, VTK_TRIANGLE, corners, 3, normal);
    }
    return true;
}

/* A mesh's triangles sorted by patch (a counting sort), made once per mesh
 * and write, so that every patch body finds its own without a pass over the
 * whole mesh (a mesh of P patches and T triangles costs T + P, not P T). */
typedef struct patch_index {
    const fd_mesh* mesh;
    int* first;              /* patch p holds triangles[first[p] .. first[p + 1]) */
    int* triangles;
} patch_index;

typedef struct wall_meshes {
    patch_index* indices;
    int64_t count, capacity;
    int64_t* vertex_point;   /* mesh vertex -> its point in the drawing, -1 while the patch has not drawn it */
    int64_t vertex_capacity;
} wall_meshes;

static void meshes_free(wall_meshes* m)
{
    for (int64_t i = 0; i < m->count; ++i) {
        free(m->indices[i].first), free(m->indices[i].triangles);
    }
    free(m->indices), free(m->vertex_point);
}

static const patch_index* patches_of(wall_meshes* m, const fd_mesh* mesh)
{
    for (int64_t i = 0; i < m->count; ++i) {
        if (m->indices[i].mesh == mesh) {
            return &m->indices[i];
        }
    }
    if (!grow((void**)&m->indices, &m->capacity, m->count + 1, sizeof *m->indices)) {
        return NULL;
    }
    const int patches = fd_mesh_patch_count(mesh), triangles = fd_mesh_triangle_count(mesh);
    patch_index index = {mesh, calloc((size_t)patches + 1, sizeof(int)),
                         malloc((size_t)(triangles > 0 ? triangles : 1) * sizeof(int))};
    if (!index.first || !index.triangles) {
        free(index.first), free(index.triangles);
        return NULL;
    }
    for (int t = 0; t < triangles; ++t) {
        index.first[fd_mesh_triangle_patch(mesh, t) + 1] += 1;
    }
    for (int p = 0; p < patches; ++p) {
        index.first[p + 1] += index.first[p];
    }
    int* next = malloc((size_t)(patches > 0 ? patches : 1) * sizeof *next);
    if (!next) {
        free(index.first), free(index.triangles);
        return NULL;
    }
    memcpy(next, index.first, (size_t)patches * sizeof *next);
    for (int t = 0; t < triangles; ++t) {
        index.triangles[next[fd_mesh_triangle_patch(mesh, t)]++] = t; /* in mesh order within a patch */
    }
    free(next);
    m->indices[m->count] = index;
    return &m->indices[m->count++];
}

/* The triangles of the body's patch, each mesh vertex it uses one point
 * (the mesh's vertices are in the wall frame, i.e. the body frame); the
 * normal by the right-hand rule of the triangle's stored corners. */
static bool draw_mesh_patch(wall_drawing* d, wall_meshes* m, const wall_body* body)
{
    const fd_mesh* mesh = body->info.shape.mesh;
    const int patch = body->info.shape.mesh_patch;
    if (!mesh || patch < 0 || patch >= fd_mesh_patch_count(mesh)) {
        return true; /* not reached: fd_world_create_body checks both; nothing to draw */
    }
    const patch_index* index = patches_of(m, mesh);
    if (!index) {
        return false;
    }
    const int vertices = fd_mesh_vertex_count(mesh);
    const int64_t old_capacity = m->vertex_capacity;
    if (!grow((void**)&m->vertex_point, &m->vertex_capacity, vertices, sizeof *m->vertex_point)) {
        return false;
    }
    for (int64_t v = old_capacity; v < m->vertex_capacity; ++v) {
        m->vertex_point[v] = -1;
    }
    const int begin = index->first[patch], end = index->first[patch + 1];
    if (!drawing_reserve(d, 3 * (int64_t)(end - begin), 3 * (int64_t)(end - begin), end - begin)) {
        return false;
    }
    const double* coordinates = fd_mesh_vertices(mesh);
    const int* corners_of = fd_mesh_triangles(mesh);
    for (int k = begin; k < end; ++k) {
        const int* triangle = corners_of + 3 * index->triangles[k];
        int64_t corners[3];
        fd_vec3 p[3];
        for (int c = 0; c < 3; ++c) {
            const double* v = coordinates + 3 * triangle[c];
            p[c] = to_world(body, fd_v3(v[0], v[1], v[2]));
            if (m->vertex_point[triangle[c]] < 0) {
                m->vertex_point[triangle[c]] = add_point(d, p[c]);
            }
            corners[c] = m->vertex_point[triangle[c]];
        }
        add_cell(d, body, VTK_TRIANGLE, corners, 3,
                 fd_v3_normalize(fd_v3_cross(fd_v3_sub(p[1], p[0]), fd_v3_sub(p[2], p[0]))));
    }
    /* Forget this patch's points for the next patch body (a shared edge is drawn by both). */
    for (int k = begin; k < end; ++k) {
        const int* triangle = corners_of + 3 * index->triangles[k];
        for (int c = 0; c < 3; ++c) {
            m->vertex_point[triangle[c]] = -1;
        }
    }
    return true;
}

int fd_vtu_wall_count(const fd_world* world)
{
    int count = 0;
    for (int i = 0; i < fd_world_body_count(world); ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        count += fd_body_is_valid(world, id) && fd_shape_is_wall(fd_body_get_info(world, id).shape.type);
    }
    return count;
}

/* The box around the bodies that are not planes (their bounding spheres, so
 * a finite wall counts whole), the planes' positions and the inlets'
 * regions; the square's side is 1.5 times its largest extent. */
fd_vtu_plane_square fd_vtu_plane_square_around(const fd_world* world)
{
    fd_vec3 lo = fd_v3(INFINITY, INFINITY, INFINITY);
    fd_vec3 hi = fd_v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i < fd_world_body_count(world); ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!fd_body_is_valid(world, id)) {
            continue; /* a removed body's slot */
        }
        fd_body_info info = fd_body_get_info(world, id);
        fd_vec3 p = fd_body_get_state(world, id).position;
        double r = info.shape.type == FD_SHAPE_PLANE ? 0.0 : info.bounding_radius;
        lo = fd_v3(fmin(lo.x, p.x - r), fmin(lo.y, p.y - r), fmin(lo.z, p.z - r));
        hi = fd_v3(fmax(hi.x, p.x + r), fmax(hi.y, p.y + r), fmax(hi.z, p.z + r));
    }
    /* Inlets bring bodies later: their regions count as well. */
    for (int i = 0; i < fd_world_inlet_count(world); ++i) {
        fd_inlet_info inlet = fd_world_get_inlet_info(world, i);
        lo = fd_v3(fmin(lo.x, inlet.bounds_min.x), fmin(lo.y, inlet.bounds_min.y), fmin(lo.z, inlet.bounds_min.z));
        hi = fd_v3(fmax(hi.x, inlet.bounds_max.x), fmax(hi.y, inlet.bounds_max.y), fmax(hi.z, inlet.bounds_max.z));
    }
    fd_vec3 extent = fd_v3_sub(hi, lo);
    double side = 1.5 * fmax(extent.x, fmax(extent.y, extent.z));
    fd_vtu_plane_square square = {fd_v3_scale(0.5, fd_v3_add(lo, hi)), 0.5 * side};
    if (!(side > 0.0) || !isfinite(side) || !fd_v3_is_finite(square.centre)) {
        square = (fd_vtu_plane_square){fd_v3(0.0, 0.0, 0.0), 0.5}; /* nothing to size it by: 1 m */
    }
    return square;
}

/* The names of the drawn bodies, for the reader who opens the file in an
 * editor: an XML comment after the closing tag. */
typedef struct name_list {
    char* text;
    int64_t used, capacity;
} name_list;

/* Appends text; with `index` >= 0, " INDEX=" before it and '-' written as
 * '_' ("--" may not appear in an XML comment). */
static bool list_append(name_list* list, int64_t index, const char* text)
{
    size_t length = strlen(text);
    if (!grow((void**)&list->text, &list->capacity, list->used + (int64_t)length + 32, 1)) {
        return false;
    }
    if (index >= 0) {
        list->used += snprintf(list->text + list->used, 32, " %lld=", (long long)index);
    }
    for (size_t k = 0; k < length; ++k) {
        list->text[list->used++] = index >= 0 && text[k] == '-' ? '_' : text[k];
    }
    list->text[list->used] = '\0';
    return true;
}

fd_status fd_vtu_write_walls(const fd_world* world, const char* path, const fd_vtu_plane_square* square,
                             const fd_vtu_format* format)
{
    wall_drawing d = {0};
    wall_meshes meshes = {0};
    name_list names = {0};
    bool ok = list_append(&names, -1, "<!-- walls:");
    for (int i = 0; ok && i < fd_world_body_count(world); ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!fd_body_is_valid(world, id)) {
            continue;
        }
        wall_body body = {fd_vtu_body_index(id), 0, fd_body_get_info(world, id), fd_body_get_state(world, id)};
        if (!fd_shape_is_wall(body.info.shape.type)) {
            continue;
        }
        body.wall = fd_vtu_body_index(body.info.wall);
        switch (body.info.shape.type) {
        case FD_SHAPE_PLANE:
            ok = draw_plane(&d, &body, square);
            break;
        case FD_SHAPE_CYLINDER:
            ok = draw_cylinder(&d, &body);
            break;
        case FD_SHAPE_DISK:
            ok = draw_disk(&d, &body);
            break;
        default:
            ok = draw_mesh_patch(&d, &meshes, &body);
            break;
        }
        ok = ok && list_append(&names, body.id, body.info.name ? body.info.name : "");
    }
    ok = ok && list_append(&names, -1, " -->\n");
    meshes_free(&meshes);
    if (!ok) {
        drawing_free(&d), free(names.text);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
    }

    const table_source point_table = {d.points, NULL, 3};
    const table_source connectivity_table = {NULL, d.connectivity, 1};
    const table_source offset_table = {NULL, d.offsets, 1};
    const table_source type_table = {NULL, d.types, 1};
    const table_source id_table = {NULL, d.ids, 1};
    const table_source wall_table = {NULL, d.walls, 1};
    const table_source normal_table = {d.normals, NULL, 3};
    const vtu_array arrays[] = {
        {"Points", VTU_FLOAT64, 3, d.point_count, fd_vtu_fill_from_table, &point_table},
        {"connectivity", VTU_INT64, 1, d.corner_count, fd_vtu_fill_from_table, &connectivity_table},
        {"offsets", VTU_INT64, 1, d.cell_count, fd_vtu_fill_from_table, &offset_table},
        {"types", VTU_UINT8, 1, d.cell_count, fd_vtu_fill_from_table, &type_table},
        {"id", VTU_INT32, 1, d.cell_count, fd_vtu_fill_from_table, &id_table},
        {"wall", VTU_INT32, 1, d.cell_count, fd_vtu_fill_from_table, &wall_table},
        {"normal", VTU_FLOAT64, 3, d.cell_count, fd_vtu_fill_from_table, &normal_table},
    };
    const vtu_piece piece = {d.point_count, d.cell_count, arrays, (int)(sizeof arrays / sizeof arrays[0]),
                             "CellData", "Scalars=\"id\" Normals=\"normal\""};
    fd_status status = fd_vtu_write_piece(path, &piece, format, names.text);
    drawing_free(&d), free(names.text);
    return status;
}
