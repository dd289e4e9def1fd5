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

enum { VTK_VERTEX = 1, VTK_LINE = 3, VTK_QUAD = 9 };

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

/* ---------------------------------------------------------------- planes */

/* Values computed beforehand (the few planes), `components` per tuple. */
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

/* Each plane as a square of side 1.5 times the largest extent of the box
 * around the other bodies (and the plane positions and the inlets'
 * regions), centred on the projection of that box's centre onto the plane. */
fd_status fd_vtu_write_planes(const fd_world* world, const char* path, bool ascii)
{
    int body_count = fd_world_body_count(world);
    fd_vec3 lo = fd_v3(INFINITY, INFINITY, INFINITY);
    fd_vec3 hi = fd_v3(-INFINITY, -INFINITY, -INFINITY);
    int plane_count = 0;
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!fd_body_is_valid(world, id)) {
            continue; /* a removed body's slot */
        }
        fd_body_info info = fd_body_get_info(world, id);
        fd_vec3 p = fd_body_get_state(world, id).position;
        double r = info.shape.type == FD_SHAPE_PLANE ? 0.0 : info.bounding_radius;
        plane_count += info.shape.type == FD_SHAPE_PLANE;
        lo = fd_v3(fmin(lo.x, p.x - r), fmin(lo.y, p.y - r), fmin(lo.z, p.z - r));
        hi = fd_v3(fmax(hi.x, p.x + r), fmax(hi.y, p.y + r), fmax(hi.z, p.z + r));
    }
    /* Inlets bring bodies later: their regions count as well. */
    for (int i = 0; i < fd_world_inlet_count(world); ++i) {
        fd_inlet_info inlet = fd_world_get_inlet_info(world, i);
        lo = fd_v3(fmin(lo.x, inlet.bounds_min.x), fmin(lo.y, inlet.bounds_min.y), fmin(lo.z, inlet.bounds_min.z));
        hi = fd_v3(fmax(hi.x, inlet.bounds_max.x), fmax(hi.y, inlet.bounds_max.y), fmax(hi.z, inlet.bounds_max.z));
    }
    if (plane_count == 0) {
        return FD_OK;
    }
    fd_vec3 centre = fd_v3_scale(0.5, fd_v3_add(lo, hi));
    fd_vec3 extent = fd_v3_sub(hi, lo);
    double side = 1.5 * fmax(extent.x, fmax(extent.y, extent.z));
    if (!(side > 0.0) || !isfinite(side)) {
        side = 1.0;
    }
    double half = 0.5 * side;

    double* corners = malloc((size_t)plane_count * 12 * sizeof *corners);
    double* normals = malloc((size_t)plane_count * 3 * sizeof *normals);
    int64_t* indices = malloc((size_t)plane_count * sizeof *indices);
    /* The plane names, for the reader who opens the file in an editor. */
    size_t trailer_size = 64;
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!fd_body_is_valid(world, id)) {
            continue;
        }
        fd_body_info info = fd_body_get_info(world, id);
        trailer_size += info.shape.type == FD_SHAPE_PLANE ? strlen(info.name ? info.name : "") + 16 : 0;
    }
    char* trailer = malloc(trailer_size);
    if (!corners || !normals || !indices || !trailer) {
        free(corners), free(normals), free(indices), free(trailer);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
    }
    size_t used = (size_t)snprintf(trailer, trailer_size, "<!-- planes:");
    int p = 0;
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!fd_body_is_valid(world, id)) {
            continue;
        }
        fd_body_info info = fd_body_get_info(world, id);
        if (info.shape.type != FD_SHAPE_PLANE) {
            continue;
        }
        fd_body_state s = fd_body_get_state(world, id);
        fd_vec3 n = fd_v3_normalize(fd_quat_rotate(s.orientation, info.shape.plane_normal));
        fd_vec3 t1 = fd_v3_any_orthogonal(n);
        fd_vec3 t2 = fd_v3_cross(n, t1);
        fd_vec3 c = fd_v3_mul_add(centre, -fd_v3_dot(fd_v3_sub(centre, s.position), n), n);
        const double signs[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int k = 0; k < 4; ++k) {
            fd_vec3 corner = fd_v3_add(c, fd_v3_add(fd_v3_scale(signs[k][0] * half, t1),
                                                    fd_v3_scale(signs[k][1] * half, t2)));
            put3(corners + 12 * p + 3 * k, corner);
        }
        put3(normals + 3 * p, n);
        indices[p] = body_index(id);
        used += (size_t)snprintf(trailer + used, trailer_size - used, " %d=", body_index(id));
        /* "--" may not appear in an XML comment. */
        for (const char* ch = info.name; ch && *ch && used + 8 < trailer_size; ++ch) {
            trailer[used++] = *ch == '-' ? '_' : *ch;
        }
        ++p;
    }
    snprintf(trailer + used, trailer_size - used, " -->\n");

    const table_source corner_table = {corners, NULL, 3};
    const table_source normal_table = {normals, NULL, 3};
    const table_source index_table = {NULL, indices, 1};
    const uniform_cells quads = {4, VTK_QUAD};
    const vtu_array arrays[] = {
        {"Points", VTU_FLOAT64, 3, 4 * plane_count, fill_from_table, &corner_table},
        {"connectivity", VTU_INT64, 1, 4 * plane_count, fill_connectivity, &quads},
        {"offsets", VTU_INT64, 1, plane_count, fill_offsets, &quads},
        {"types", VTU_UINT8, 1, plane_count, fill_types, &quads},
        {"id", VTU_INT32, 1, plane_count, fill_from_table, &index_table},
        {"normal", VTU_FLOAT64, 3, plane_count, fill_from_table, &normal_table},
    };
    const vtu_piece piece = {4 * plane_count, plane_count, arrays, (int)(sizeof arrays / sizeof arrays[0]),
                             "CellData", "Normals=\"normal\""};
    fd_status status = write_piece(path, &piece, ascii, trailer);
    free(corners), free(normals), free(indices), free(trailer);
    return status;
}
