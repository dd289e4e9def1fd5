/* VTK XML unstructured-grid snapshots (VTU) for ParaView.
 *
 * Two encodings of the same arrays. Binary (the default): every DataArray
 * is `format="appended"` and its bytes follow the XML in one raw
 * <AppendedData> block (a UInt64 byte count, then the little-endian values),
 * so a frame of 10^6 spheres is written at the speed of the disk, values
 * exact, NaN kept. ASCII (output.vtu_format: ascii): the values as text in
 * the XML, %.10g, non-finite values written as 0 (VTK's ASCII reader does
 * not parse "nan" portably); readable in an editor, about five times larger.
 *
 * Each array is described by a small table entry whose `fill` callback
 * gives the components of tuple i, so both encodings stream the world
 * through the public API (fd_body_get_state, fd_world_get_contact) in one
 * pass per array, with nothing held per body. */
#include "io/output_vtu.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/math.h"

typedef enum vtu_type { VTU_FLOAT64, VTU_INT32, VTU_INT64, VTU_UINT64, VTU_UINT8 } vtu_type;

static const char* const vtu_type_names[] = {"Float64", "Int32", "Int64", "UInt64", "UInt8"};
static const size_t vtu_type_sizes[] = {8, 4, 8, 8, 1};

#define VTU_MAX_COMPONENTS 9

/* One DataArray: `tuples` tuples of `components` values. Integer arrays
 * fill `integers`, Float64 arrays fill `reals`. */
typedef struct vtu_array {
    const char* name;
    vtu_type type;
    int components;
    int64_t tuples;
    void (*fill)(const void* source, int64_t i, double* reals, int64_t* integers);
    const void* source;
} vtu_array;

/* A piece: Points, then Cells (connectivity, offsets, types), then the
 * attribute arrays under <PointData> or <CellData>. */
typedef struct vtu_piece {
    int64_t points, cells;
    const vtu_array* arrays; /* [0] Points, [1..3] the cells, then the attributes */
    int array_count;
    const char* data_tag;        /* "PointData" or "CellData" */
    const char* data_attributes; /* e.g. Scalars="radius" */
} vtu_piece;

/* ---------------------------------------------------------------- cells */

/* Every cell is `size` consecutive points of one VTK type. */
typedef struct uniform_cells {
    int64_t size;
    int64_t vtk_type;
} uniform_cells;

static void fill_connectivity(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)source, (void)reals;
    integers[0] = i;
}

static void fill_offsets(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)reals;
    integers[0] = (i + 1) * ((const uniform_cells*)source)->size;
}

static void fill_types(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)i, (void)reals;
    integers[0] = ((const uniform_cells*)source)->vtk_type;
}

enum { VTK_VERTEX = 1, VTK_LINE = 3, VTK_TRIANGLE = 5, VTK_QUAD = 9 };

/* ---------------------------------------------------------------- writer */

static void write_array_header(FILE* file, const vtu_array* array, bool ascii, uint64_t offset)
{
    fprintf(file, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" ",
            vtu_type_names[array->type], array->name, array->components);
    if (ascii) {
        fputs("format=\"ascii\">\n", file);
    } else {
        fprintf(file, "format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
    }
}

static void write_array_ascii(FILE* file, const vtu_array* array)
{
    double reals[VTU_MAX_COMPONENTS];
    int64_t integers[VTU_MAX_COMPONENTS];
    for (int64_t i = 0; i < array->tuples; ++i) {
        array->fill(array->source, i, reals, integers);
        for (int k = 0; k < array->components; ++k) {
            if (array->type == VTU_FLOAT64) {
                fprintf(file, "%.10g ", isfinite(reals[k]) ? reals[k] : 0.0);
            } else {
                fprintf(file, "%lld ", (long long)integers[k]);
            }
        }
        fputc('\n', file);
    }
    fputs("        </DataArray>\n", file);
}

static uint64_t array_bytes(const vtu_array* array)
{
    return (uint64_t)array->tuples * (uint64_t)array->components * vtu_type_sizes[array->type];
}

/* The array's byte count, then its values, little-endian (x86-64 and
 * aarch64 Linux are; the file says byte_order="LittleEndian"). */
static void write_array_binary(FILE* file, const vtu_array* array)
{
    uint64_t bytes = array_bytes(array);
    fwrite(&bytes, sizeof bytes, 1, file);
    unsigned char block[1 << 16];
    size_t used = 0;
    const size_t size = vtu_type_sizes[array->type];
    double reals[VTU_MAX_COMPONENTS];
    int64_t integers[VTU_MAX_COMPONENTS];
    for (int64_t i = 0; i < array->tuples; ++i) {
        array->fill(array->source, i, reals, integers);
        if (used + VTU_MAX_COMPONENTS * 8 > sizeof block) {
            fwrite(block, 1, used, file);
            used = 0;
        }
        for (int k = 0; k < array->components; ++k) {
            switch (array->type) {
            case VTU_FLOAT64:
                memcpy(block + used, &reals[k], size);
                break;
            case VTU_INT32: {
                int32_t v = (int32_t)integers[k];
                memcpy(block + used, &v, size);
                break;
            }
            case VTU_INT64:
            case VTU_UINT64:
                memcpy(block + used, &integers[k], size);
                break;
            case VTU_UINT8:
                block[used] = (unsigned char)integers[k];
                break;
            }
            used += size;
        }
    }
    fwrite(block, 1, used, file);
}

static fd_status write_piece(const char* path, const vtu_piece* piece, bool ascii, const char* trailer)
{
    FILE* file = fopen(path, "wb");
    if (!file) {
        return fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
    }
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
          "header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n",
          file);
    fprintf(file, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n", (long long)piece->points,
            (long long)piece->cells);
    uint64_t offset = 0;
    for (int a = 0; a < piece->array_count; ++a) {
        const vtu_array* array = &piece->arrays[a];
        if (a == 0) {
            fputs("      <Points>\n", file);
        } else if (a == 1) {
            fputs("      <Cells>\n", file);
        } else if (a == 4) {
            fprintf(file, "      <%s %s>\n", piece->data_tag, piece->data_attributes);
        }
        write_array_header(file, array, ascii, offset);
        if (ascii) {
            write_array_ascii(file, array);
        }
        offset += sizeof(uint64_t) + array_bytes(array);
        if (a == 0) {
            fputs("      </Points>\n", file);
        } else if (a == 3) {
            fputs("      </Cells>\n", file);
        }
    }
    if (piece->array_count > 4) {
        fprintf(file, "      </%s>\n", piece->data_tag);
    }
    fputs("    </Piece>\n  </UnstructuredGrid>\n", file);
    if (!ascii) {
        fputs("  <AppendedData encoding=\"raw\">\n   _", file);
        for (int a = 0; a < piece->array_count; ++a) {
            write_array_binary(file, &piece->arrays[a]);
        }
        fputs("\n  </AppendedData>\n", file);
    }
    fputs("</VTKFile>\n", file);
    if (trailer) {
        fputs(trailer, file);
    }
    bool failed = ferror(file) != 0;
    if (fclose(file) != 0 || failed) {
        return fd_fail(FD_ERR_IO, "output: writing '%s' failed", path);
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- bodies */

typedef struct body_source {
    const fd_world* world;
    const fd_body_id* ids;
} body_source;

static int body_index(fd_body_id id) { return id.index1 - 1; }

/* Semi-axes of a sphere or ellipsoid (r, r, r for a sphere). */
static fd_vec3 body_semi_axes(const fd_body_info* info)
{
    if (info->shape.type == FD_SHAPE_ELLIPSOID) {
        return info->shape.semi_axes;
    }
    return fd_v3(info->shape.radius, info->shape.radius, info->shape.radius);
}

static void put3(double* reals, fd_vec3 v)
{
    reals[0] = v.x;
    reals[1] = v.y;
    reals[2] = v.z;
}

static void fill_body_position(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    put3(reals, fd_body_get_state(s->world, s->ids[i]).position);
}

static void fill_body_id(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)reals;
    integers[0] = body_index(((const body_source*)source)->ids[i]);
}

static void fill_body_radius(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    reals[0] = fd_body_get_info(s->world, s->ids[i]).bounding_radius;
}

static void fill_body_semi_axes(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    fd_body_info info = fd_body_get_info(s->world, s->ids[i]);
    put3(reals, body_semi_axes(&info));
}

static void fill_body_orientation(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    fd_quat q = fd_body_get_state(s->world, s->ids[i]).orientation;
    reals[0] = q.w;
    reals[1] = q.x;
    reals[2] = q.y;
    reals[3] = q.z;
}

/* R diag(a, b, c), stored column after column: vtkTensorGlyph (ParaView's
 * TensorGlyph with "Extract Eigenvalues" off) takes components 3k..3k+2 as
 * the k-th glyph axis, here semi-axis k of the body in the world frame. */
static void fill_body_shape_tensor(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    fd_body_info info = fd_body_get_info(s->world, s->ids[i]);
    fd_vec3 axes = body_semi_axes(&info);
    fd_mat3 r = fd_mat3_from_quat(fd_body_get_state(s->world, s->ids[i]).orientation);
    put3(reals, fd_v3_scale(axes.x, r.cx));
    put3(reals + 3, fd_v3_scale(axes.y, r.cy));
    put3(reals + 6, fd_v3_scale(axes.z, r.cz));
}

static void fill_body_velocity(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    put3(reals, fd_body_get_state(s->world, s->ids[i]).velocity);
}

static void fill_body_angular_velocity(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    put3(reals, fd_body_get_state(s->world, s->ids[i]).angular_velocity);
}

static void fill_body_speed(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    reals[0] = fd_v3_length(fd_body_get_state(s->world, s->ids[i]).velocity);
}

fd_status fd_vtu_write_bodies(const fd_world* world, const char* path, const fd_body_id* ids, int count, bool ascii)
{
    const body_source bodies = {world, ids};
    const uniform_cells vertices = {1, VTK_VERTEX};
    const vtu_array arrays[] = {
        {"Points", VTU_FLOAT64, 3, count, fill_body_position, &bodies},
        {"connectivity", VTU_INT64, 1, count, fill_connectivity, &vertices},
        {"offsets", VTU_INT64, 1, count, fill_offsets, &vertices},
        {"types", VTU_UINT8, 1, count, fill_types, &vertices},
        {"id", VTU_INT32, 1, count, fill_body_id, &bodies},
        {"radius", VTU_FLOAT64, 1, count, fill_body_radius, &bodies},
        {"semi_axes", VTU_FLOAT64, 3, count, fill_body_semi_axes, &bodies},
        {"orientation", VTU_FLOAT64, 4, count, fill_body_orientation, &bodies},
        {"shape_tensor", VTU_FLOAT64, 9, count, fill_body_shape_tensor, &bodies},
        {"velocity", VTU_FLOAT64, 3, count, fill_body_velocity, &bodies},
        {"angular_velocity", VTU_FLOAT64, 3, count, fill_body_angular_velocity, &bodies},
        {"speed", VTU_FLOAT64, 1, count, fill_body_speed, &bodies},
    };
    const vtu_piece piece = {count, count, arrays, (int)(sizeof arrays / sizeof arrays[0]), "PointData",
                             "Scalars=\"radius\" Vectors=\"velocity\" Tensors=\"shape_tensor\""};
    return write_piece(path, &piece, ascii, NULL);
}

/* ---------------------------------------------------------------- contacts */

static bool is_plane(const fd_world* world, fd_body_id id)
{
    return fd_body_get_info(world, id).shape.type == FD_SHAPE_PLANE;
}

static fd_contact_view contact_at(const fd_world* world, int64_t k)
{
    fd_contact_view c;
    if (fd_world_get_contact(world, (int)k, &c) != FD_OK) {
        memset(&c, 0, sizeof c); /* not reached: the caller checked that the contacts are recorded */
    }
    return c;
}

/* Point 2k is body i's centre, point 2k+1 the centre of body j's image that
 * touches body i (periodic), so that a contact across a periodic face is a
 * short line, not one across the box; a plane has no centre, so its end is
 * the contact point. */
static void fill_contact_end(const void* source, int64_t point, double* reals, int64_t* integers)
{
    (void)integers;
    const fd_world* world = source;
    fd_contact_view c = contact_at(world, point / 2);
    fd_vec3 middle = fd_v3_scale(0.5, fd_v3_add(c.geometry.point_i, c.geometry.point_j));
    fd_vec3 end;
    if (point % 2 == 0) {
        end = is_plane(world, c.body_i) ? middle : fd_body_get_state(world, c.body_i).position;
    } else {
        end = is_plane(world, c.body_j) ? middle
                                          : fd_v3_add(fd_body_get_state(world, c.body_j).position, c.image_offset);
    }
    put3(reals, end);
}

static void fill_contact_normal_force(const void* source, int64_t k, double* reals, int64_t* integers)
{
    (void)integers;
    reals[0] = contact_at(source, k).loads.normal_force;
}

static void fill_contact_force(const void* source, int64_t k, double* reals, int64_t* integers)
{
    (void)integers;
    put3(reals, contact_at(source, k).loads.force_on_i);
}

static void fill_contact_id(const void* source, int64_t k, double* reals, int64_t* integers)
{
    (void)reals;
    integers[0] = (int64_t)contact_at(source, k).id;
}

fd_status fd_vtu_write_contacts(const fd_world* world, const char* path, bool ascii)
{
    const int64_t count = fd_world_contact_count(world);
    const uniform_cells lines = {2, VTK_LINE};
    const vtu_array arrays[] = {
        {"Points", VTU_FLOAT64, 3, 2 * count, fill_contact_end, world},
        {"connectivity", VTU_INT64, 1, 2 * count, fill_connectivity, &lines},
        {"offsets", VTU_INT64, 1, count, fill_offsets, &lines},
        {"types", VTU_UINT8, 1, count, fill_types, &lines},
        {"normal_force", VTU_FLOAT64, 1, count, fill_contact_normal_force, world},
        {"force", VTU_FLOAT64, 3, count, fill_contact_force, world},
        {"id", VTU_UINT64, 1, count, fill_contact_id, world},
    };
    const vtu_piece piece = {2 * count, count, arrays, (int)(sizeof arrays / sizeof arrays[0]), "CellData",
                             "Scalars=\"normal_force\" Vectors=\"force\""};
    return write_piece(path, &piece, ascii, NULL);
}

/* ---------------------------------------------------------------- walls */

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
    put3(d->points + 3 * d->point_count, p);
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
    put3(d->normals + 3 * d->cell_count, normal);
    d->cell_count += 1;
}

/* A point of the unit circle in the body's x-y plane, at segment k. */
static fd_vec3 circle_point(int k, double radius, double z)
{
    double angle = 2.0 * FD_PI * (double)k / WALL_SEGMENTS;
    return fd_v3(radius * cos(angle), radius * sin(angle), z);
}

/* Values computed beforehand, `components` per tuple: reals, or integers
 * when reals is NULL. */
typedef struct table_source {
    const double* reals;
    const int64_t* integers;
    int components;
} table_source;

static void fill_from_table(const void* source, int64_t i, double* reals, int64_t* integers)
{
    const table_source* t = source;
    for (int k = 0; k < t->components; ++k) {
        if (t->reals) {
            reals[k] = t->reals[i * t->components + k];
        } else {
            integers[k] = t->integers[i * t->components + k];
        }
    }
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

static bool is_drawn_wall(fd_shape_type type)
{
    return type == FD_SHAPE_PLANE || type == FD_SHAPE_CYLINDER || type == FD_SHAPE_DISK || type == FD_SHAPE_MESH;
}

int fd_vtu_wall_count(const fd_world* world)
{
    int count = 0;
    for (int i = 0; i < fd_world_body_count(world); ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        count += fd_body_is_valid(world, id) && is_drawn_wall(fd_body_get_info(world, id).shape.type);
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

fd_status fd_vtu_write_walls(const fd_world* world, const char* path, const fd_vtu_plane_square* square, bool ascii)
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
        wall_body body = {body_index(id), 0, fd_body_get_info(world, id), fd_body_get_state(world, id)};
        if (!is_drawn_wall(body.info.shape.type)) {
            continue;
        }
        body.wall = body_index(body.info.wall);
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
        {"Points", VTU_FLOAT64, 3, d.point_count, fill_from_table, &point_table},
        {"connectivity", VTU_INT64, 1, d.corner_count, fill_from_table, &connectivity_table},
        {"offsets", VTU_INT64, 1, d.cell_count, fill_from_table, &offset_table},
        {"types", VTU_UINT8, 1, d.cell_count, fill_from_table, &type_table},
        {"id", VTU_INT32, 1, d.cell_count, fill_from_table, &id_table},
        {"wall", VTU_INT32, 1, d.cell_count, fill_from_table, &wall_table},
        {"normal", VTU_FLOAT64, 3, d.cell_count, fill_from_table, &normal_table},
    };
    const vtu_piece piece = {d.point_count, d.cell_count, arrays, (int)(sizeof arrays / sizeof arrays[0]),
                             "CellData", "Scalars=\"id\" Normals=\"normal\""};
    fd_status status = write_piece(path, &piece, ascii, names.text);
    drawing_free(&d), free(names.text);
    return status;
}
