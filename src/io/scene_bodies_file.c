/* bodies_file: spheres in bulk from a CSV or HDF5 file (docs/scene-format.md).
 *
 * A scene's `bodies_file` names a file with one sphere per row and the columns
 * of bodies.csv (docs/output-format.md): x, y, z required; name, material,
 * radius, qw..qz, vx..vz, wx..wz, mass and static optional; time, step and body (a
 * frame of fricdem's own bodies.csv) accepted and ignored as long as every row
 * has the same time. The spheres are created after the scene's `bodies` list
 * and before its generators, in row order, so that body indices in the outputs
 * follow the file.
 *
 * Both readers stream: CSV through a block buffer (1 MiB, larger only for a
 * longer record), HDF5 through hyperslabs of CHUNK_ROWS rows per column. Memory
 * grows with the rows only by the bodies themselves, which the world reserves
 * at once (fd_scene_bodies_file_rows counts the rows first: a pass of memchr
 * over the file, which costs a few percent of the parse).
 *
 * The CSV reader is src/io/csv_reader.c (why it is not a library's: there).
 * This file accepts what it reads (RFC 4180 quoting, as bodies.csv writes
 * names; LF or CRLF), '#' comment lines and blank lines before the header,
 * blank lines anywhere, a UTF-8 byte-order mark.
 *
 * Numbers: fd_parse_double (src/io/number_format.c, where a comment says
 * why its fast paths are exact) gives bitwise what strtod gives (the YAML
 * loader's conversion, so a sphere in a file and the same sphere in
 * `bodies:` are the same bits), four times faster for the decimals fricdem
 * writes (%.17g): 25 ns against glibc's 100-140 ns. With strtod the 17
 * numbers of 10^6 rows of bodies.csv would take 2.4 s, the whole budget of
 * issue 19 (LAMMPS read_data of 10^6 spheres: 2.9 s).
 *
 * Measured (issue 19; release build; a 2-core VM shared with other jobs, so
 * times vary): 10^6 spheres, columns x,y,z,radius,vx,vy,vz, `fricdem run` of
 * one step. Three runs interleaved with LAMMPS (Debian 12's, 29 Sep 2021 U2)
 * reading the same spheres with read_data (173 MB, Atoms and Velocities, all
 * %.17g): LAMMPS 2.25 to 2.60 s; CSV (147 MB) loaded in 1.76 to 2.35 s;
 * HDF5 (56 MB) 1.43 to 1.66 s (under heavier load, up to 2.9 s and 2.4 s;
 * LAMMPS then 2.55 s). Peak RSS 631 MiB and 635 MiB, the
 * world's alone (563 B per body, then the first contact search): the readers
 * hold a 1 MiB buffer or 1 MiB of hyperslabs whatever the row count. perf of
 * the CSV load: 60% in fd_world_create_body (mostly first-touch page faults
 * of the world's arrays), 7% numbers, 4% reading the file.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <errno.h>
#include <float.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/math.h"
#include "io/csv_reader.h"
#include "io/number_format.h"
#include "io/scene_loader.h"

/* ---------------------------------------------------------------- columns */

enum {
    COL_NAME,
    COL_MATERIAL,
    COL_RADIUS,
    COL_X,
    COL_Y,
    COL_Z,
    COL_QW,
    COL_QX,
    COL_QY,
    COL_QZ,
    COL_VX,
    COL_VY,
    COL_VZ,
    COL_WX,
    COL_WY,
    COL_WZ,
    COL_MASS,
    COL_STATIC,
    COL_TIME,
    COL_STEP,
    COL_BODY,
    COL_COUNT
};

static const char* const column_names[COL_COUNT] = {"name", "material", "radius", "x",  "y",  "z",      "qw",
                                                    "qx",   "qy",       "qz",     "vx", "vy", "vz",     "wx",
                                                    "wy",   "wz",       "mass",   "static", "time", "step",
                                                    "body"};

static bool is_text_column(int c) { return c == COL_NAME || c == COL_MATERIAL; }

/* Columns that come in groups: all of a group or none. */
static const int column_groups[][4] = {{COL_X, COL_Y, COL_Z, -1},
                                       {COL_QW, COL_QX, COL_QY, COL_QZ},
                                       {COL_VX, COL_VY, COL_VZ, -1},
                                       {COL_WX, COL_WY, COL_WZ, -1}};

static int find_column(const char* name)
{
    for (int c = 0; c < COL_COUNT; ++c) {
        if (strcmp(column_names[c], name) == 0) {
            return c;
        }
    }
    return -1;
}

/* One row, as both readers hand it over. */
typedef struct body_row {
    double value[COL_COUNT]; /* the numeric columns there are */
    const char* name;        /* NULL or "": none */
    const char* material;    /* the material column's text */
    bool is_static;          /* the static column's value */
} body_row;

/* ---------------------------------------------------------------- loader */

typedef struct loader {
    fd_scene_ctx* ctx;
    fd_world* world;
    const fd_scene_file* file;
    const char* path; /* resolved, for messages */
    bool hdf5;
    long long where;  /* CSV: line of the current record; HDF5: row (0-based), -1 before the rows */
    bool has[COL_COUNT];
    fd_material_id default_material;
    const char* cached_material; /* the last material name looked up (scene text) and its id */
    fd_material_id cached_id;
    bool time_set;
    double time;
    long long time_where;
    int first_body; /* world index of the file's first sphere */
    fd_body_def def;
} loader;

/* "FILE:LINE: column 'x': ..." or "FILE: dataset 'x', row R: ..."; column -1
 * for the row as a whole. */
static fd_status row_fail(const loader* l, int column, const char* format, ...) __attribute__((format(printf, 3, 4)));
static fd_status row_fail(const loader* l, int column, const char* format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (l->hdf5 && l->where < 0) {
        return fd_fail(FD_ERR_PARSE, "%s: dataset '%s': %s", l->path, column >= 0 ? column_names[column] : "?",
                       message);
    }
    if (l->hdf5) {
        if (column >= 0) {
            return fd_fail(FD_ERR_PARSE, "%s: dataset '%s', row %lld: %s", l->path, column_names[column], l->where,
                           message);
        }
        return fd_fail(FD_ERR_PARSE, "%s: row %lld: %s", l->path, l->where, message);
    }
    if (column >= 0) {
        return fd_fail(FD_ERR_PARSE, "%s:%lld: column '%s': %s", l->path, l->where, column_names[column], message);
    }
    return fd_fail(FD_ERR_PARSE, "%s:%lld: %s", l->path, l->where, message);
}

/* An error about the scene's bodies_file entry (at its line in the scene). */
static fd_status entry_fail(const loader* l, const char* key, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
static fd_status entry_fail(const loader* l, const char* key, const char* format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    const fd_scene_bodies_file* bf = &l->file->bodies_file;
    const yaml_node_t* node = key ? fd_scene_given(&fd_scene_bodies_file_table, bf, key) : NULL;
    char path[64] = "bodies_file";
    if (key) {
        snprintf(path, sizeof path, "bodies_file.%s", key);
    }
    return fd_scene_fail(l->ctx, node ? node : bf->seen.map, path, "%s", message);
}

static fd_status find_row_material(loader* l, const char* name, fd_material_id* id)
{
    if (l->cached_material && strcmp(l->cached_material, name) == 0) {
        *id = l->cached_id;
        return FD_OK;
    }
    const fd_scene_material* materials = l->file->materials.items;
    int count = l->file->materials.count;
    for (int i = 0; i < count; ++i) {
        if (strcmp(materials[i].name, name) == 0) {
            l->cached_material = materials[i].name;
            l->cached_id = fd_world_find_material(l->world, name);
            *id = l->cached_id;
            return FD_OK;
        }
    }
    if (!name[0]) {
        return row_fail(l, COL_MATERIAL, "empty (a material name is needed)");
    }
    char hint[1000];
    if (!fd_scene_material_hint(l->ctx, l->file, name, hint, sizeof hint)) {
        return FD_ERR_PARSE;
    }
    return row_fail(l, COL_MATERIAL, "unknown material '%s' (%s)", name, hint);
}

static long long csv_name_line(const loader* l, const char* name);

/* Creates the sphere of one row. */
static fd_status make_body(loader* l, const body_row* r)
{
    for (int c = COL_RADIUS; c < COL_COUNT; ++c) {
        if (l->has[c] && c != COL_STATIC && !isfinite(r->value[c])) {
            return row_fail(l, c, "must be a finite number (got %g)", r->value[c]);
        }
    }
    if (l->has[COL_TIME]) {
        if (!l->time_set) {
            l->time_set = true;
            l->time = r->value[COL_TIME];
            l->time_where = l->where;
        } else if (r->value[COL_TIME] != l->time) {
            return row_fail(l, COL_TIME,
                            "%.17g differs from %.17g (%s %lld): the file holds more than one output time; keep "
                            "the rows of one (such as the last frame of a bodies.csv)",
                            r->value[COL_TIME], l->time, l->hdf5 ? "row" : "line", l->time_where);
        }
    }
    fd_body_def* def = &l->def;
    def->shape.radius = l->has[COL_RADIUS] ? r->value[COL_RADIUS] : l->file->bodies_file.radius;
    if (!(def->shape.radius > 0.0)) {
        return row_fail(l, COL_RADIUS, "must be > 0 m (got %g)", def->shape.radius);
    }
    if (l->has[COL_MATERIAL]) {
        fd_status status = find_row_material(l, r->material, &def->material);
        if (status != FD_OK) {
            return status;
        }
    }
    def->position = fd_v3(r->value[COL_X], r->value[COL_Y], r->value[COL_Z]);
    if (l->has[COL_QW]) {
        /* As the YAML loader does: unit within 1e-6, then divided by the norm. */
        const double* q = &r->value[COL_QW];
        double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(fabs(norm - 1.0) <= 1e-6)) {
            return row_fail(l, COL_QW, "qw, qx, qy, qz must be a unit quaternion (its norm is %.9g)", norm);
        }
        def->orientation = (fd_quat){q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm};
    }
    if (l->has[COL_VX]) {
        def->velocity = fd_v3(r->value[COL_VX], r->value[COL_VY], r->value[COL_VZ]);
    }
    if (l->has[COL_WX]) {
        def->angular_velocity = fd_v3(r->value[COL_WX], r->value[COL_WY], r->value[COL_WZ]);
    }
    if (l->has[COL_MASS] && !(r->value[COL_MASS] > 0.0)) {
        return row_fail(l, COL_MASS, "must be > 0 kg (got %g)", r->value[COL_MASS]);
    }
    def->mass = l->has[COL_MASS] ? r->value[COL_MASS] : 0.0; /* 0: from the material's density */
    def->type = (l->has[COL_STATIC] ? r->is_static : l->file->bodies_file.is_static) ? FD_BODY_STATIC
                                                                                      : FD_BODY_DYNAMIC;
    if (def->type == FD_BODY_STATIC) {
        /* A static body never moves: a velocity given to it would be ignored. */
        fd_vec3 motion[2] = {def->velocity, def->angular_velocity};
        for (int k = 0; k < 2; ++k) {
            if (motion[k].x != 0.0 || motion[k].y != 0.0 || motion[k].z != 0.0) {
                return row_fail(l, k == 0 ? COL_VX : COL_WX,
                                "a static body never moves (moving walls are not supported yet): give it zero "
                                "velocities, or make it dynamic (static 0)");
            }
        }
    }
    def->name = r->name && r->name[0] ? r->name : NULL;
    fd_scene_body_created(l->ctx);
    if (!fd_body_id_is_null(fd_world_create_body(l->world, def))) {
        return FD_OK;
    }
    fd_body_id other = def->name ? fd_world_find_body(l->world, def->name) : (fd_body_id){0, 0};
    if (fd_body_id_is_null(other)) {
        return row_fail(l, -1, "%s", fd_last_error());
    }
    int index = other.index1 - 1;
    if (index < l->first_body) {
        return row_fail(l, COL_NAME, "duplicate body name '%s' (first used by the scene's bodies[%d])", def->name,
                        index);
    }
    if (l->hdf5) {
        return row_fail(l, COL_NAME, "duplicate body name '%s' (first at row %d)", def->name, index - l->first_body);
    }
    return row_fail(l, COL_NAME, "duplicate body name '%s' (first at line %lld)", def->name,
                    csv_name_line(l, def->name));
}

/* After the header: the columns present fit together and with the keys. */
static fd_status check_columns(loader* l)
{
    const fd_scene_bodies_file* bf = &l->file->bodies_file;
    for (size_t g = 0; g < sizeof column_groups / sizeof column_groups[0]; ++g) {
        int present = 0, missing = -1, count = 0;
        for (int k = 0; k < 4 && column_groups[g][k] >= 0; ++k, ++count) {
            if (l->has[column_groups[g][k]]) {
                ++present;
            } else if (missing < 0) {
                missing = column_groups[g][k];
            }
        }
        if (g == 0 && present < count) {
            return row_fail(l, missing, "missing (the columns x, y, z are required)");
        }
        if (present > 0 && present < count) {
            const int* group = column_groups[g];
            return row_fail(l, missing, "missing: the columns %s, %s, %s%s%s come together", column_names[group[0]],
                            column_names[group[1]], column_names[group[2]], count == 4 ? ", " : "",
                            count == 4 ? column_names[group[3]] : "");
        }
    }
    static const char* const keys[] = {"material", "radius", "static"};
    static const int columns[] = {COL_MATERIAL, COL_RADIUS, COL_STATIC};
    for (int k = 0; k < 3; ++k) {
        if (l->has[columns[k]] && fd_scene_given(&fd_scene_bodies_file_table, bf, keys[k])) {
            return entry_fail(l, keys[k], "not used: the file %s has a '%s' column (give one or the other)", l->path,
                              keys[k]);
        }
    }
    if (!l->has[COL_MATERIAL] && !bf->material) {
        return entry_fail(l, NULL, "%s has no 'material' column: give bodies_file.material", l->path);
    }
    if (!l->has[COL_RADIUS] && !(bf->radius > 0.0)) {
        return entry_fail(l, NULL, "%s has no 'radius' column: give bodies_file.radius", l->path);
    }
    return FD_OK;
}

static bool has_extension(const char* path, const char* extension)
{
    size_t n = strlen(path), e = strlen(extension);
    return n > e && strcasecmp(path + n - e, extension) == 0;
}

static int file_format(const fd_scene_bodies_file* bf)
{
    if (bf->format != FD_SCENE_BODIES_FILE_AUTO) {
        return bf->format;
    }
    if (has_extension(bf->path, ".csv")) {
        return FD_SCENE_BODIES_FILE_CSV;
    }
    if (has_extension(bf->path, ".h5") || has_extension(bf->path, ".hdf5")) {
        return FD_SCENE_BODIES_FILE_HDF5;
    }
    return FD_SCENE_BODIES_FILE_AUTO;
}

/* ---------------------------------------------------------------- CSV */

static const char* shorten(const char* text, char* buffer, size_t size)
{
    size_t n = strlen(text);
    if (n < size) {
        return text;
    }
    snprintf(buffer, size, "%.*s...", (int)(size - 4), text);
    return buffer;
}

static fd_status csv_header(loader* l, fd_csv_reader* r, int* columns, int* count)
{
    fd_csv_record record;
    bool first = true;
    for (;;) {
        if (!fd_csv_next(r, &record)) {
            if (r->error) {
                return entry_fail(l, "path", "cannot read %s: %s", l->path, strerror(errno));
            }
            return fd_fail(FD_ERR_PARSE, "%s: no header line (the column names, such as x,y,z,radius)", l->path);
        }
        if (first && record.end - record.start >= 3 && memcmp(record.start, "\xEF\xBB\xBF", 3) == 0) {
            record.start += 3; /* a UTF-8 byte-order mark */
        }
        first = false;
        if (record.start < record.end && record.start[0] == '#') {
            continue;
        }
        if (!fd_csv_blank(&record)) {
            break;
        }
    }
    l->where = record.line;
    fd_csv_field fields[FD_CSV_MAX_FIELDS];
    int n = fd_csv_split(&record, fields, FD_CSV_MAX_FIELDS);
    if (n > FD_CSV_MAX_FIELDS) {
        return row_fail(l, -1, "more than %d columns", FD_CSV_MAX_FIELDS);
    }
    for (int i = 0; i < n; ++i) {
        const char* name = fields[i].start;
        int c = find_column(name);
        if (c < 0) {
            char list[400], text[64];
            fd_scene_join(list, sizeof list, column_names, COL_COUNT);
            const char* close = fd_scene_closest(name, column_names, COL_COUNT);
            if (close) {
                return fd_fail(FD_ERR_PARSE, "%s:%lld: column '%s': unknown column (did you mean '%s'? columns: %s)",
                               l->path, l->where, shorten(name, text, sizeof text), close, list);
            }
            return fd_fail(FD_ERR_PARSE, "%s:%lld: column '%s': unknown column (columns: %s)", l->path, l->where,
                           shorten(name, text, sizeof text), list);
        }
        if (l->has[c]) {
            return row_fail(l, c, "given twice in the header");
        }
        l->has[c] = true;
        columns[i] = c;
    }
    *count = n;
    return check_columns(l);
}

static fd_status csv_row(loader* l, const fd_csv_field* fields, const int* columns, int count, body_row* row)
{
    char text[64];
    for (int i = 0; i < count; ++i) {
        int c = columns[i];
        const fd_csv_field* f = &fields[i];
        if (c == COL_NAME) {
            row->name = f->start;
        } else if (c == COL_MATERIAL) {
            row->material = f->start;
        } else if (c == COL_STEP || c == COL_BODY) {
            continue;
        } else if (f->start == f->end) {
            return row_fail(l, c, "empty (a number is needed)");
        } else if (c == COL_STATIC) {
            const char* s = f->start;
            if (strcmp(s, "1") == 0 || strcasecmp(s, "true") == 0) {
                row->is_static = true;
            } else if (strcmp(s, "0") == 0 || strcasecmp(s, "false") == 0) {
                row->is_static = false;
            } else {
                return row_fail(l, c, "expected 0, 1, true or false, got '%s'", shorten(s, text, sizeof text));
            }
        } else if (!fd_parse_double(f->start, f->end, &row->value[c])) {
            return row_fail(l, c, "not a number: '%s'", shorten(f->start, text, sizeof text));
        }
    }
    return FD_OK;
}

static fd_status load_csv(loader* l)
{
    fd_csv_reader reader;
    if (!fd_csv_open(&reader, l->path)) {
        fd_status status = entry_fail(l, "path", "cannot read %s: %s", l->path, strerror(errno));
        fd_csv_close(&reader);
        return status;
    }
    int columns[FD_CSV_MAX_FIELDS];
    int count = 0;
    fd_status status = csv_header(l, &reader, columns, &count);
    fd_csv_field fields[FD_CSV_MAX_FIELDS];
    body_row row;
    memset(&row, 0, sizeof row);
    fd_csv_record record;
    while (status == FD_OK && fd_csv_next(&reader, &record)) {
        l->where = record.line;
        if (record.unterminated) {
            status = row_fail(l, -1, "a quoted field is not closed before the end of the file");
            break;
        }
        if (fd_csv_blank(&record)) {
            continue;
        }
        int n = fd_csv_split(&record, fields, count);
        if (n != count) {
            status = n > count ? row_fail(l, -1, "more fields than the %d columns of the header", count)
                               : row_fail(l, -1, "%d field%s, the header has %d columns", n, n == 1 ? "" : "s", count);
            break;
        }
        status = csv_row(l, fields, columns, count, &row);
        if (status == FD_OK) {
            status = make_body(l, &row);
        }
    }
    if (status == FD_OK && reader.error) {
        status = entry_fail(l, "path", "cannot read %s: %s", l->path, strerror(errno));
    }
    fd_csv_close(&reader);
    return status;
}

/* The line of the first row named name (for a duplicate's message); 0 if
 * not found. Reads the file again: an error path only. */
static long long csv_name_line(const loader* l, const char* name)
{
    fd_csv_reader reader;
    long long line = 0;
    int name_field = -1, count = 0;
    fd_csv_field fields[FD_CSV_MAX_FIELDS];
    fd_csv_record record;
    bool header = true;
    if (!fd_csv_open(&reader, l->path)) {
        fd_csv_close(&reader);
        return 0;
    }
    while (line == 0 && fd_csv_next(&reader, &record)) {
        if (header && record.end - record.start >= 3 && memcmp(record.start, "\xEF\xBB\xBF", 3) == 0) {
            record.start += 3;
        }
        if (fd_csv_blank(&record) || (header && record.start[0] == '#')) {
            continue;
        }
        int n = fd_csv_split(&record, fields, FD_CSV_MAX_FIELDS);
        if (header) {
            header = false;
            count = n;
            for (int i = 0; i < n && i < FD_CSV_MAX_FIELDS; ++i) {
                name_field = strcmp(fields[i].start, "name") == 0 ? i : name_field;
            }
        } else if (name_field >= 0 && n == count && strcmp(fields[name_field].start, name) == 0) {
            line = record.line;
        }
    }
    fd_csv_close(&reader);
    return line;
}

static int64_t csv_count_rows(const char* path)
{
    FILE* file = fopen(path, "rb");
    char* block = file ? malloc(FD_CSV_BLOCK) : NULL;
    int64_t breaks = 0;
    size_t n = 0;
    char last = '\n';
    while (block && (n = fread(block, 1, FD_CSV_BLOCK, file)) > 0) {
        for (const char* p = block; (p = memchr(p, '\n', (size_t)(block + n - p))) != NULL; ++p) {
            ++breaks;
        }
        last = block[n - 1];
    }
    free(block);
    if (file) {
        fclose(file);
    }
    int64_t lines = breaks + (last != '\n');
    return lines > 1 ? lines - 1 : 0; /* less the header; comments and blank lines overcount a little */
}

/* ---------------------------------------------------------------- HDF5 */

enum { CHUNK_ROWS = 16384 };

/* HDF5 prints its error stack on every failed call unless told not to. */
typedef struct hdf5_quiet {
    H5E_auto2_t function;
    void* data;
} hdf5_quiet;

static hdf5_quiet hdf5_silence(void)
{
    hdf5_quiet old = {NULL, NULL};
    H5Eget_auto2(H5E_DEFAULT, &old.function, &old.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return old;
}

static void hdf5_restore(hdf5_quiet old) { H5Eset_auto2(H5E_DEFAULT, old.function, old.data); }

typedef struct hdf5_column {
    hid_t dataset, file_type, memory_type;
    int kind; /* 0 numbers, 1 fixed strings, 2 variable strings, 3 one-byte enum (h5py bool) */
    size_t width; /* fixed strings: bytes per string with the NUL */
    void* buffer;
} hdf5_column;

static void close_id(hid_t id, herr_t (*close)(hid_t))
{
    if (id > 0) {
        close(id);
    }
}

static fd_status hdf5_open_column(loader* l, hid_t group, const char* name, hdf5_column* column, hsize_t* rows,
                                  bool* have_rows)
{
    int c = find_column(name);
    if (c < 0) {
        char list[400];
        fd_scene_join(list, sizeof list, column_names, COL_COUNT);
        const char* close = fd_scene_closest(name, column_names, COL_COUNT);
        return close ? fd_fail(FD_ERR_PARSE, "%s: dataset '%s': unknown column (did you mean '%s'? columns: %s)",
                               l->path, name, close, list)
                     : fd_fail(FD_ERR_PARSE, "%s: dataset '%s': unknown column (columns: %s)", l->path, name, list);
    }
    column->dataset = H5Dopen2(group, name, H5P_DEFAULT);
    hid_t space = column->dataset < 0 ? -1 : H5Dget_space(column->dataset);
    hsize_t dims[2] = {0, 0};
    int rank = space < 0 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    close_id(space, H5Sclose);
    if (rank != 1) {
        return fd_fail(FD_ERR_PARSE, "%s: dataset '%s': expected a one-dimensional dataset (one value per row)",
                       l->path, name);
    }
    if (*have_rows && dims[0] != *rows) {
        return fd_fail(FD_ERR_PARSE, "%s: dataset '%s': %llu rows, the other datasets have %llu", l->path, name,
                       (unsigned long long)dims[0], (unsigned long long)*rows);
    }
    *rows = dims[0];
    *have_rows = true;
    column->file_type = H5Dget_type(column->dataset);
    H5T_class_t type_class = H5Tget_class(column->file_type);
    if (is_text_column(c)) {
        if (type_class != H5T_STRING) {
            return fd_fail(FD_ERR_PARSE, "%s: dataset '%s': expected strings (fixed or variable length)", l->path,
                           name);
        }
        column->memory_type = H5Tcopy(H5T_C_S1);
        H5Tset_cset(column->memory_type, H5Tget_cset(column->file_type));
        if (H5Tis_variable_str(column->file_type) > 0) {
            column->kind = 2;
            H5Tset_size(column->memory_type, H5T_VARIABLE);
            column->buffer = calloc(CHUNK_ROWS, sizeof(char*));
        } else {
            column->kind = 1;
            column->width = H5Tget_size(column->file_type) + 1;
            H5Tset_size(column->memory_type, column->width);
            H5Tset_strpad(column->memory_type, H5T_STR_NULLTERM);
            column->buffer = calloc(CHUNK_ROWS, column->width);
        }
    } else if (c == COL_STATIC && type_class == H5T_ENUM && H5Tget_size(column->file_type) == 1) {
        column->kind = 3; /* h5py writes numpy booleans as an enum FALSE = 0, TRUE = 1 of one byte */
        column->memory_type = H5Tget_native_type(column->file_type, H5T_DIR_ASCEND);
        column->buffer = calloc(CHUNK_ROWS, 1);
    } else if (type_class == H5T_INTEGER || type_class == H5T_FLOAT) {
        column->kind = 0;
        column->memory_type = H5Tcopy(H5T_NATIVE_DOUBLE);
        column->buffer = calloc(CHUNK_ROWS, sizeof(double));
    } else {
        return fd_fail(FD_ERR_PARSE, "%s: dataset '%s': expected numbers (integer or floating point)", l->path, name);
    }
    if (!column->buffer || column->memory_type < 0) {
        return fd_fail(FD_ERR_PARSE, "%s: dataset '%s': out of memory", l->path, name);
    }
    return FD_OK;
}

static void hdf5_close_column(hdf5_column* column)
{
    close_id(column->memory_type, H5Tclose);
    close_id(column->file_type, H5Tclose);
    close_id(column->dataset, H5Dclose);
    free(column->buffer);
    memset(column, 0, sizeof *column);
}

/* Rows [first, first + count) of one column into its buffer. */
static bool hdf5_read(hdf5_column* column, hsize_t first, hsize_t count)
{
    hid_t file_space = H5Dget_space(column->dataset);
    hid_t memory_space = H5Screate_simple(1, &count, NULL);
    bool ok = file_space >= 0 && memory_space >= 0 &&
              H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &first, NULL, &count, NULL) >= 0 &&
              H5Dread(column->dataset, column->memory_type, memory_space, file_space, H5P_DEFAULT, column->buffer) >= 0;
    close_id(memory_space, H5Sclose);
    close_id(file_space, H5Sclose);
    return ok;
}

static void hdf5_reclaim(hdf5_column* column, hsize_t count)
{
    if (column->kind != 2) {
        return;
    }
    hid_t space = H5Screate_simple(1, &count, NULL);
#if H5_VERSION_GE(1, 12, 0)
    H5Treclaim(column->memory_type, space, H5P_DEFAULT, column->buffer);
#else
    H5Dvlen_reclaim(column->memory_type, space, H5P_DEFAULT, column->buffer);
#endif
    H5Sclose(space);
    memset(column->buffer, 0, CHUNK_ROWS * sizeof(char*));
}

static const char* hdf5_group_name(const fd_scene_bodies_file* bf) { return bf->group ? bf->group : "/"; }

static fd_status hdf5_load_rows(loader* l, hid_t group)
{
    hdf5_column columns[COL_COUNT];
    memset(columns, 0, sizeof columns);
    hsize_t rows = 0;
    bool have_rows = false;
    fd_status status = FD_OK;
    H5G_info_t info;
    if (H5Gget_info(group, &info) < 0) {
        return fd_fail(FD_ERR_PARSE, "%s: cannot list group '%s'", l->path, hdf5_group_name(&l->file->bodies_file));
    }
    for (hsize_t i = 0; status == FD_OK && i < info.nlinks; ++i) {
        char name[256];
        ssize_t length = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
        if (length < 0) {
            continue;
        }
        if ((size_t)length >= sizeof name) {
            status = fd_fail(FD_ERR_PARSE, "%s: dataset '%s...': unknown column (a name of %zd characters)", l->path,
                             name, length);
            break;
        }
        hid_t object = H5Oopen(group, name, H5P_DEFAULT);
        bool is_dataset = object >= 0 && H5Iget_type(object) == H5I_DATASET;
        close_id(object, H5Oclose);
        if (!is_dataset) {
            continue; /* subgroups (other frames, say) are not columns */
        }
        int c = find_column(name);
        hdf5_column unknown = {0};
        status = hdf5_open_column(l, group, name, c < 0 ? &unknown : &columns[c], &rows, &have_rows);
        if (c >= 0) {
            l->has[c] = true; /* link names are unique: no column twice */
        }
    }
    l->where = -1;
    if (status == FD_OK) {
        for (int c = COL_X; c <= COL_Z && status == FD_OK; ++c) {
            if (!l->has[c]) {
                status = fd_fail(FD_ERR_PARSE, "%s: no dataset '%s' in group '%s' (x, y, z are required)", l->path,
                                 column_names[c], hdf5_group_name(&l->file->bodies_file));
            }
        }
    }
    if (status == FD_OK) {
        status = check_columns(l);
    }
    body_row row;
    memset(&row, 0, sizeof row);
    for (hsize_t first = 0; status == FD_OK && first < rows; first += CHUNK_ROWS) {
        hsize_t count = rows - first < CHUNK_ROWS ? rows - first : CHUNK_ROWS;
        for (int c = 0; c < COL_COUNT && status == FD_OK; ++c) {
            if (l->has[c] && c != COL_STEP && c != COL_BODY && !hdf5_read(&columns[c], first, count)) {
                status = fd_fail(FD_ERR_PARSE, "%s: dataset '%s': cannot read rows %llu to %llu", l->path,
                                 column_names[c], (unsigned long long)first, (unsigned long long)(first + count - 1));
            }
        }
        for (hsize_t i = 0; i < count && status == FD_OK; ++i) {
            l->where = (long long)(first + i);
            for (int c = COL_RADIUS; c < COL_COUNT; ++c) {
                if (l->has[c] && columns[c].kind == 0) {
                    row.value[c] = ((const double*)columns[c].buffer)[i];
                }
            }
            if (l->has[COL_STATIC]) {
                double v = columns[COL_STATIC].kind == 3 ? ((const unsigned char*)columns[COL_STATIC].buffer)[i]
                                                         : row.value[COL_STATIC];
                if (v != 0.0 && v != 1.0) {
                    status = row_fail(l, COL_STATIC, "expected 0 or 1, got %g", v);
                    break;
                }
                row.is_static = v == 1.0;
            }
            for (int c = COL_NAME; c <= COL_MATERIAL; ++c) {
                const char* text = NULL;
                if (l->has[c]) {
                    text = columns[c].kind == 2 ? ((char* const*)columns[c].buffer)[i]
                                                : (const char*)columns[c].buffer + i * columns[c].width;
                }
                *(c == COL_NAME ? &row.name : &row.material) = text ? text : "";
            }
            status = make_body(l, &row);
        }
        for (int c = COL_NAME; c <= COL_MATERIAL; ++c) {
            if (l->has[c]) {
                hdf5_reclaim(&columns[c], count);
            }
        }
    }
    for (int c = 0; c < COL_COUNT; ++c) {
        hdf5_close_column(&columns[c]);
    }
    return status;
}

static fd_status load_hdf5(loader* l)
{
    const fd_scene_bodies_file* bf = &l->file->bodies_file;
    hdf5_quiet quiet = hdf5_silence();
    fd_status status = FD_OK;
    hid_t file = -1, group = -1;
    FILE* probe = fopen(l->path, "rb");
    if (!probe) {
        status = entry_fail(l, "path", "cannot read %s: %s", l->path, strerror(errno));
    } else {
        fclose(probe);
        file = H5Fopen(l->path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (file < 0) {
            status = entry_fail(l, "path", "%s is not an HDF5 file (or cannot be opened as one)", l->path);
        }
    }
    if (status == FD_OK) {
        group = H5Gopen2(file, hdf5_group_name(bf), H5P_DEFAULT);
        if (group < 0) {
            status = entry_fail(l, bf->group ? "group" : "path", "%s has no group '%s'", l->path, hdf5_group_name(bf));
        }
    }
    if (status == FD_OK) {
        status = hdf5_load_rows(l, group);
    }
    close_id(group, H5Gclose);
    close_id(file, H5Fclose);
    hdf5_restore(quiet);
    return status;
}

static int64_t hdf5_count_rows(const char* path, const char* group_name)
{
    hdf5_quiet quiet = hdf5_silence();
    hsize_t dims[2] = {0, 0};
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t group = file < 0 ? -1 : H5Gopen2(file, group_name, H5P_DEFAULT);
    hid_t dataset = group < 0 ? -1 : H5Dopen2(group, "x", H5P_DEFAULT);
    hid_t space = dataset < 0 ? -1 : H5Dget_space(dataset);
    int rank = space < 0 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    close_id(space, H5Sclose);
    close_id(dataset, H5Dclose);
    close_id(group, H5Gclose);
    close_id(file, H5Fclose);
    hdf5_restore(quiet);
    return rank == 1 && dims[0] < INT32_MAX ? (int64_t)dims[0] : 0;
}

/* ---------------------------------------------------------------- entry points */

int64_t fd_scene_bodies_file_rows(const fd_scene_ctx* ctx, const fd_scene_file* file)
{
    const fd_scene_bodies_file* bf = &file->bodies_file;
    char path[FD_PATH_MAX];
    if (!bf->path || !fd_scene_resolve_path(ctx, bf->path, path, sizeof path)) {
        return 0;
    }
    switch (file_format(bf)) {
    case FD_SCENE_BODIES_FILE_CSV:
        return csv_count_rows(path);
    case FD_SCENE_BODIES_FILE_HDF5:
        return hdf5_count_rows(path, hdf5_group_name(bf));
    default:
        return 0;
    }
}

fd_status fd_scene_load_bodies_file(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file)
{
    const fd_scene_bodies_file* bf = &file->bodies_file;
    if (!bf->path) {
        return FD_OK;
    }
    char path[FD_PATH_MAX];
    loader l = {.ctx = ctx, .world = world, .file = file, .path = path};
    if (!fd_scene_resolve_path(ctx, bf->path, path, sizeof path)) {
        return entry_fail(&l, "path", "the path is too long");
    }
    int format = file_format(bf);
    if (format == FD_SCENE_BODIES_FILE_AUTO) {
        return entry_fail(&l, "path",
                          "cannot tell the format of '%s' from its extension (.csv, .h5, .hdf5): give "
                          "bodies_file.format (csv or hdf5)",
                          bf->path);
    }
    if (bf->group && format != FD_SCENE_BODIES_FILE_HDF5) {
        return entry_fail(&l, "group", "used only with HDF5 files");
    }
    if (bf->material) {
        char key_path[] = "bodies_file.material";
        fd_status status = fd_scene_find_material(ctx, world, file, bf->material,
                                                  fd_scene_given(&fd_scene_bodies_file_table, bf, "material"),
                                                  key_path, &l.default_material);
        if (status != FD_OK) {
            return status;
        }
    }
    l.def = fd_default_body_def();
    l.def.shape.type = FD_SHAPE_SPHERE;
    l.def.material = l.default_material;
    l.first_body = fd_world_body_count(world);
    l.hdf5 = format == FD_SCENE_BODIES_FILE_HDF5;
    return l.hdf5 ? load_hdf5(&l) : load_csv(&l);
}
