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
 * gives the components of tuple i, so both encodings stream the bodies
 * through the public API (fd_body_get_state) in one pass per array, with
 * nothing held per body. A frame's contacts are gathered first into a table
 * of what the arrays show (88 bytes a contact, one pass over their records
 * instead of one per array); the walls series (output_vtu_walls.c) fills
 * its arrays from tables it draws beforehand too.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/output_vtu.h"
#include "io/output_vtu_piece.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collide/collide.h"
#include "core/error.h"
#include "core/math.h"

static const char* const vtu_type_names[] = {"Float64", "Int32", "Int64", "UInt64", "UInt8"};
static const size_t vtu_type_sizes[] = {8, 4, 8, 8, 1};

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

/* ---------------------------------------------------------------- writer */

/* The file's text goes out in blocks of about this size (block_file.h). */
enum { VTU_BLOCK_BYTES = 1 << 20 };

static void text_string(fd_text* text, const char* string)
{
    fd_text_append(text, string, strlen(string));
}

static void text_printf(fd_text* text, const char* format, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(fd_text* text, const char* format, ...)
{
    char line[512];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    fd_text_append(text, line, length < 0 ? 0 : (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

/* Writes what is buffered once a block's worth is there, behind the next
 * block's formatting (closing the file waits); false on a write error. */
static bool flush_block(fd_block_file* file)
{
    return fd_block_file_pending(file) < VTU_BLOCK_BYTES || fd_block_file_write_behind(file);
}

static void write_array_header(fd_text* text, const vtu_array* array, bool ascii, uint64_t offset)
{
    text_printf(text, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" ",
                vtu_type_names[array->type], array->name, array->components);
    if (ascii) {
        text_string(text, "format=\"ascii\">\n");
    } else {
        text_printf(text, "format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
    }
}

static bool write_array_ascii(fd_block_file* file, const vtu_array* array)
{
    fd_text* text = &file->text;
    double reals[VTU_MAX_COMPONENTS];
    int64_t integers[VTU_MAX_COMPONENTS];
    for (int64_t i = 0; i < array->tuples; ++i) {
        array->fill(array->source, i, reals, integers);
        for (int k = 0; k < array->components; ++k) {
            if (array->type == VTU_FLOAT64) {
                text_printf(text, "%.10g ", isfinite(reals[k]) ? reals[k] : 0.0);
            } else {
                text_printf(text, "%lld ", (long long)integers[k]);
            }
        }
        fd_text_char(text, '\n');
        if (!flush_block(file)) {
            return false;
        }
    }
    text_string(text, "        </DataArray>\n");
    return true;
}

static uint64_t array_bytes(const vtu_array* array)
{
    return (uint64_t)array->tuples * (uint64_t)array->components * vtu_type_sizes[array->type];
}

/* The array's byte count, then its values, little-endian (x86-64 and
 * aarch64 Linux are; the file says byte_order="LittleEndian"). */
static bool write_array_binary(fd_block_file* file, const vtu_array* array)
{
    fd_text* text = &file->text;
    uint64_t bytes = array_bytes(array);
    fd_text_append(text, (const char*)&bytes, sizeof bytes);
    const size_t size = vtu_type_sizes[array->type];
    double reals[VTU_MAX_COMPONENTS];
    int64_t integers[VTU_MAX_COMPONENTS];
    for (int64_t i = 0; i < array->tuples; ++i) {
        array->fill(array->source, i, reals, integers);
        if (!fd_text_reserve(text, VTU_MAX_COMPONENTS * 8)) {
            return true; /* text.failed: the flush reports it */
        }
        unsigned char* out = (unsigned char*)text->bytes + text->length;
        for (int k = 0; k < array->components; ++k) {
            switch (array->type) {
            case VTU_FLOAT64:
                memcpy(out, &reals[k], size);
                break;
            case VTU_INT32: {
                int32_t v = (int32_t)integers[k];
                memcpy(out, &v, size);
                break;
            }
            case VTU_INT64:
            case VTU_UINT64:
                memcpy(out, &integers[k], size);
                break;
            case VTU_UINT8:
                *out = (unsigned char)integers[k];
                break;
            }
            out += size;
        }
        text->length += size * (size_t)array->components;
        if ((i & 1023) == 1023 && !flush_block(file)) {
            return false;
        }
    }
    return true;
}

fd_status fd_vtu_write_piece(const char* path, const vtu_piece* piece, const fd_vtu_format* format,
                             const char* trailer)
{
    fd_block_file file;
    if (!fd_block_file_open(&file, path, format->direct_io, format->rates)) {
        return fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
    }
    const bool ascii = format->ascii;
    fd_text* text = &file.text;
    text_string(text, "<?xml version=\"1.0\"?>\n"
                      "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                      "header_type=\"UInt64\">\n"
                      "  <UnstructuredGrid>\n");
    text_printf(text, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n", (long long)piece->points,
                (long long)piece->cells);
    uint64_t offset = 0;
    bool ok = true;
    for (int a = 0; a < piece->array_count && ok; ++a) {
        const vtu_array* array = &piece->arrays[a];
        if (a == 0) {
            text_string(text, "      <Points>\n");
        } else if (a == 1) {
            text_string(text, "      <Cells>\n");
        } else if (a == 4) {
            text_printf(text, "      <%s %s>\n", piece->data_tag, piece->data_attributes);
        }
        write_array_header(text, array, ascii, offset);
        if (ascii) {
            ok = write_array_ascii(&file, array);
        }
        offset += sizeof(uint64_t) + array_bytes(array);
        if (a == 0) {
            text_string(text, "      </Points>\n");
        } else if (a == 3) {
            text_string(text, "      </Cells>\n");
        }
    }
    if (piece->array_count > 4) {
        text_printf(text, "      </%s>\n", piece->data_tag);
    }
    text_string(text, "    </Piece>\n  </UnstructuredGrid>\n");
    if (!ascii && ok) {
        text_string(text, "  <AppendedData encoding=\"raw\">\n   _");
        for (int a = 0; a < piece->array_count && ok; ++a) {
            ok = write_array_binary(&file, &piece->arrays[a]);
        }
        text_string(text, "\n  </AppendedData>\n");
    }
    text_string(text, "</VTKFile>\n");
    if (trailer) {
        text_string(text, trailer);
    }
    bool out_of_memory = text->failed;
    ok = fd_block_file_close(&file) && ok;
    if (out_of_memory) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory writing '%s'", path);
    }
    if (!ok) {
        return fd_fail(FD_ERR_IO, "output: writing '%s' failed: %s", path, strerror(errno));
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- bodies */

/* The vectors of a body's state that an array shows as they are. */
typedef enum state_vector { STATE_POSITION, STATE_VELOCITY, STATE_ANGULAR_VELOCITY } state_vector;

typedef struct body_source {
    const fd_world* world;
    const fd_body_id* ids;
    state_vector vector; /* which one fill_body_state_vector shows */
} body_source;

/* Semi-axes of a sphere or ellipsoid (r, r, r for a sphere). */
static fd_vec3 body_semi_axes(const fd_body_info* info)
{
    if (info->shape.type == FD_SHAPE_ELLIPSOID) {
        return info->shape.semi_axes;
    }
    return fd_v3(info->shape.radius, info->shape.radius, info->shape.radius);
}

/* The points (positions), the velocities and the angular velocities. */
static void fill_body_state_vector(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    fd_body_state state = fd_body_get_state(s->world, s->ids[i]);
    const fd_vec3 vectors[] = {[STATE_POSITION] = state.position, [STATE_VELOCITY] = state.velocity,
                               [STATE_ANGULAR_VELOCITY] = state.angular_velocity};
    fd_vtu_put3(reals, vectors[s->vector]);
}

static void fill_body_id(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)reals;
    integers[0] = fd_vtu_body_index(((const body_source*)source)->ids[i]);
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
    fd_vtu_put3(reals, body_semi_axes(&info));
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
    fd_vtu_put3(reals, fd_v3_scale(axes.x, r.cx));
    fd_vtu_put3(reals + 3, fd_v3_scale(axes.y, r.cy));
    fd_vtu_put3(reals + 6, fd_v3_scale(axes.z, r.cz));
}

static void fill_body_speed(const void* source, int64_t i, double* reals, int64_t* integers)
{
    (void)integers;
    const body_source* s = source;
    reals[0] = fd_v3_length(fd_body_get_state(s->world, s->ids[i]).velocity);
}

fd_status fd_vtu_write_bodies(const fd_world* world, const char* path, const fd_body_id* ids, int count,
                              const fd_vtu_format* format)
{
    const body_source bodies = {world, ids, STATE_POSITION}, velocities = {world, ids, STATE_VELOCITY},
                      angular_velocities = {world, ids, STATE_ANGULAR_VELOCITY};
    const uniform_cells vertices = {1, VTK_VERTEX};
    const vtu_array arrays[] = {
        {"Points", VTU_FLOAT64, 3, count, fill_body_state_vector, &bodies},
        {"connectivity", VTU_INT64, 1, count, fill_connectivity, &vertices},
        {"offsets", VTU_INT64, 1, count, fill_offsets, &vertices},
        {"types", VTU_UINT8, 1, count, fill_types, &vertices},
        {"id", VTU_INT32, 1, count, fill_body_id, &bodies},
        {"radius", VTU_FLOAT64, 1, count, fill_body_radius, &bodies},
        {"semi_axes", VTU_FLOAT64, 3, count, fill_body_semi_axes, &bodies},
        {"orientation", VTU_FLOAT64, 4, count, fill_body_orientation, &bodies},
        {"shape_tensor", VTU_FLOAT64, 9, count, fill_body_shape_tensor, &bodies},
        {"velocity", VTU_FLOAT64, 3, count, fill_body_state_vector, &velocities},
        {"angular_velocity", VTU_FLOAT64, 3, count, fill_body_state_vector, &angular_velocities},
        {"speed", VTU_FLOAT64, 1, count, fill_body_speed, &bodies},
    };
    const vtu_piece piece = {count, count, arrays, (int)(sizeof arrays / sizeof arrays[0]), "PointData",
                             "Scalars=\"radius\" Vectors=\"velocity\" Tensors=\"shape_tensor\""};
    return fd_vtu_write_piece(path, &piece, format, NULL);
}

/* ---------------------------------------------------------------- contacts */


/* A frame's contacts as the arrays need them, gathered in one pass over
 * fd_world_get_contact (each array would otherwise fetch every contact's
 * whole record again: four passes of random reads). Point 2k is body i's
 * centre, point 2k+1 the centre of body j's image that touches body i
 * (periodic), so that a contact across a periodic face is a short line, not
 * one across the box; a wall surface has no centre (a drum's position is on
 * its axis), so its end is the contact point. */
typedef struct contact_table {
    double* ends;          /* 2 x 3 per contact */
    double* normal_force;  /* 1 per contact */
    double* force;         /* 3 per contact: on body i */
    int64_t* id;           /* 1 per contact */
} contact_table;

static bool is_wall_body(const fd_world* world, fd_body_id id)
{
    return fd_shape_is_wall(fd_body_get_info(world, id).shape.type);
}

static fd_status gather_contacts(const fd_world* world, int64_t count, contact_table* t)
{
    size_t n = (size_t)(count > 0 ? count : 1);
    t->ends = malloc(n * 6 * sizeof(double));
    t->normal_force = malloc(n * sizeof(double));
    t->force = malloc(n * 3 * sizeof(double));
    t->id = malloc(n * sizeof(int64_t));
    if (!t->ends || !t->normal_force || !t->force || !t->id) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "VTU contacts: out of memory for %lld contacts", (long long)count);
    }
    for (int64_t k = 0; k < count; ++k) {
        fd_contact_view c;
        fd_status status = fd_world_get_contact(world, (int)k, &c);
        if (status != FD_OK) {
            return status;
        }
        fd_vec3 middle = fd_v3_scale(0.5, fd_v3_add(c.geometry.point_i, c.geometry.point_j));
        fd_vec3 end_i = is_wall_body(world, c.body_i) ? middle : fd_body_get_state(world, c.body_i).position;
        fd_vec3 end_j = is_wall_body(world, c.body_j)
                            ? middle
                            : fd_v3_add(fd_body_get_state(world, c.body_j).position, c.image_offset);
        fd_vtu_put3(t->ends + 6 * k, end_i);
        fd_vtu_put3(t->ends + 6 * k + 3, end_j);
        t->normal_force[k] = c.loads.normal_force;
        fd_vtu_put3(t->force + 3 * k, c.loads.force_on_i);
        t->id[k] = (int64_t)c.id;
    }
    return FD_OK;
}

static void free_contact_table(contact_table* t)
{
    free(t->ends);
    free(t->normal_force);
    free(t->force);
    free(t->id);
}

fd_status fd_vtu_write_contacts(const fd_world* world, const char* path, const fd_vtu_format* format)
{
    const int64_t count = fd_world_contact_count(world);
    contact_table table = {0};
    fd_status status = gather_contacts(world, count, &table);
    if (status != FD_OK) {
        free_contact_table(&table);
        return status;
    }
    const uniform_cells lines = {2, VTK_LINE};
    const table_source ends = {table.ends, NULL, 3}, normal_force = {table.normal_force, NULL, 1},
                       force = {table.force, NULL, 3}, id = {NULL, table.id, 1};
    const vtu_array arrays[] = {
        {"Points", VTU_FLOAT64, 3, 2 * count, fd_vtu_fill_from_table, &ends},
        {"connectivity", VTU_INT64, 1, 2 * count, fill_connectivity, &lines},
        {"offsets", VTU_INT64, 1, count, fill_offsets, &lines},
        {"types", VTU_UINT8, 1, count, fill_types, &lines},
        {"normal_force", VTU_FLOAT64, 1, count, fd_vtu_fill_from_table, &normal_force},
        {"force", VTU_FLOAT64, 3, count, fd_vtu_fill_from_table, &force},
        {"id", VTU_UINT64, 1, count, fd_vtu_fill_from_table, &id},
    };
    const vtu_piece piece = {2 * count, count, arrays, (int)(sizeof arrays / sizeof arrays[0]), "CellData",
                             "Scalars=\"normal_force\" Vectors=\"force\""};
    status = fd_vtu_write_piece(path, &piece, format, NULL);
    free_contact_table(&table);
    return status;
}

/* ---------------------------------------------------------------- tables */

void fd_vtu_fill_from_table(const void* source, int64_t i, double* reals, int64_t* integers)
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
