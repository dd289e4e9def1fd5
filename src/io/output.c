/* Run outputs: CSV time series (bodies, contacts, energy) and VTK XML
 * snapshots (VTU files indexed by PVD collections) for ParaView.
 *
 * The writer reads the world only through the public API (fd_world_*,
 * fd_body_*), so it sees exactly what a user of the library sees. Formats,
 * columns and units are documented in docs/output-format.md; keep the two in
 * step.
 *
 * When a row is due. The CSV series has a row at the first call (t = 0 for a
 * fresh world), then at the first step whose time has reached the next
 * multiple k * csv_interval, and at close if the last step was not written.
 * "Reached" allows half a time step of slack, so that the round-off of
 * t = n dt against k * interval (e.g. 10 * 1e-4 vs 1e-3) never shifts a row by
 * a whole step. csv_interval = 0 writes every step. The VTU snapshots follow
 * the same rule with vtu_interval (0 = none). A step is never written twice.
 *
 * Crash safety. Every CSV file is flushed after each write and each PVD index
 * is rewritten (to a temporary file, then renamed) after every snapshot, so a
 * run that stops early leaves complete rows and a readable collection.
 *
 * A growing world. Bodies that inlets add between writes simply appear in the
 * next CSV rows and snapshots (every row and snapshot lists the bodies there
 * are at its time; a body's index never changes).
 *
 * Numbers. CSV values use %.17g, which round-trips every double exactly
 * (strtod gives back the same bits). VTU files are for viewing and use %.10g
 * to keep them small. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/math.h"
#include "fricdem/io.h"

#define FD_OUTPUT_VTU_FORMAT "%.10g"

typedef struct fd_schedule {
    double interval;         /* s; 0 = every step; < 0 = never */
    double next_time;        /* s; time of the next multiple of interval */
    int64_t last_step;       /* step last written; -1 = none yet */
} fd_schedule;

typedef struct fd_snapshot {
    double time;
    int64_t step;
} fd_snapshot;

struct fd_output {
    fd_output_settings settings;
    FILE* bodies;
    FILE* contacts;
    FILE* energy;
    FILE* events;
    FILE* solver;             /* solver.csv: the complementarity stepper's iterations and residual */
    int64_t solver_step;      /* step written last to solver.csv (-1: none) */
    int64_t events_step;      /* step whose events were written last (-1: none) */
    int contact_column_count; /* model columns in the contacts.csv header */
    fd_schedule csv;
    fd_schedule vtu;
    fd_snapshot* snapshots;   /* VTU snapshots written so far, for the PVD indexes */
    int snapshot_count;
    int snapshot_capacity;
    char* path;               /* scratch buffer for file names */
    size_t path_size;
};

/* ---------------------------------------------------------------- paths */

/* mkdir -p: creates path and every missing parent. */
static fd_status make_directories(const char* path)
{
    size_t length = strlen(path);
    if (length == 0) {
        return FD_OK;
    }
    char* buffer = malloc(length + 1);
    if (!buffer) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
    }
    memcpy(buffer, path, length + 1);
    for (size_t i = 1; i <= length; ++i) {
        if (buffer[i] != '/' && buffer[i] != '\0') {
            continue;
        }
        char saved = buffer[i];
        buffer[i] = '\0';
        if (buffer[i - 1] != '/' && mkdir(buffer, 0777) != 0 && errno != EEXIST) {
            fd_status status = fd_fail(FD_ERR_IO, "output: cannot create directory '%s': %s", buffer, strerror(errno));
            free(buffer);
            return status;
        }
        buffer[i] = saved;
    }
    free(buffer);
    struct stat info;
    if (stat(path, &info) != 0 || !S_ISDIR(info.st_mode)) {
        return fd_fail(FD_ERR_IO, "output: '%s' exists and is not a directory", path);
    }
    return FD_OK;
}

/* Formats directory/name into the scratch buffer and returns it. */
static const char* output_path(fd_output* output, const char* format, ...) __attribute__((format(printf, 2, 3)));
static const char* output_path(fd_output* output, const char* format, ...)
{
    size_t used = (size_t)snprintf(output->path, output->path_size, "%s/", output->settings.directory);
    va_list args;
    va_start(args, format);
    vsnprintf(output->path + used, output->path_size - used, format, args);
    va_end(args);
    return output->path;
}

static FILE* open_file(fd_output* output, const char* name)
{
    const char* path = output_path(output, "%s", name);
    FILE* file = fopen(path, "w");
    if (!file) {
        fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
    }
    return file;
}

/* ---------------------------------------------------------------- helpers */

static bool is_plane(const fd_world* world, fd_body_id id)
{
    return fd_body_get_info(world, id).shape.type == FD_SHAPE_PLANE;
}

static int body_index(fd_body_id id) { return id.index1 - 1; }

/* Writes a name as a CSV field, quoted (RFC 4180) when it holds a comma,
 * a quote or a line break. */
static void write_csv_name(FILE* file, const char* name)
{
    if (!name) {
        return;
    }
    if (strpbrk(name, ",\"\r\n") == NULL) {
        fputs(name, file);
        return;
    }
    fputc('"', file);
    for (const char* c = name; *c; ++c) {
        if (*c == '"') {
            fputc('"', file);
        }
        fputc(*c, file);
    }
    fputc('"', file);
}

static fd_status finish_write(FILE* file, const char* what)
{
    if (fflush(file) != 0 || ferror(file)) {
        return fd_fail(FD_ERR_IO, "output: writing %s failed: %s", what, strerror(errno));
    }
    return FD_OK;
}

/* Is a row of this schedule due at this world time and step? */
static bool schedule_due(const fd_schedule* schedule, double time, int64_t step, double time_step)
{
    if (schedule->interval < 0.0) {
        return false;
    }
    if (schedule->last_step < 0) {
        return true; /* the first call always writes */
    }
    if (step == schedule->last_step) {
        return false;
    }
    return schedule->interval == 0.0 || time + 0.5 * time_step >= schedule->next_time;
}

static void schedule_mark(fd_schedule* schedule, double time, int64_t step, double time_step)
{
    schedule->last_step = step;
    if (schedule->interval > 0.0) {
        double k = floor((time + 0.5 * time_step) / schedule->interval) + 1.0;
        schedule->next_time = k * schedule->interval;
    }
}

/* ---------------------------------------------------------------- CSV */

static const char* const bodies_columns[][2] = {
    {"time", "s"},   {"step", "-"},    {"body", "-"},    {"name", "-"},    {"x", "m"},       {"y", "m"},
    {"z", "m"},      {"qw", "-"},      {"qx", "-"},      {"qy", "-"},      {"qz", "-"},      {"vx", "m/s"},
    {"vy", "m/s"},   {"vz", "m/s"},    {"wx", "rad/s"},  {"wy", "rad/s"},  {"wz", "rad/s"},
};

static const char* const contacts_columns[][2] = {
    {"time", "s"},         {"step", "-"},         {"id", "-"},           {"body_i", "-"},
    {"body_j", "-"},       {"name_i", "-"},       {"name_j", "-"},       {"px", "m"},
    {"py", "m"},           {"pz", "m"},           {"nx", "-"},           {"ny", "-"},
    {"nz", "-"},           {"penetration", "m"},  {"normal_force", "N"}, {"fsx", "N"},
    {"fsy", "N"},          {"fsz", "N"},          {"roll_i_x", "N m"},   {"roll_i_y", "N m"},
    {"roll_i_z", "N m"},   {"roll_j_x", "N m"},   {"roll_j_y", "N m"},   {"roll_j_z", "N m"},
    {"spin_i_x", "N m"},   {"spin_i_y", "N m"},   {"spin_i_z", "N m"},   {"spin_j_x", "N m"},
    {"spin_j_y", "N m"},   {"spin_j_z", "N m"},
    /* the contact's energy books (fd_energy_books), per mechanism */
    {"stored_normal", "J"},  {"dashpot_normal", "J"}, {"slip_normal", "J"},  {"created_normal", "J"},
    {"work_normal", "J"},    {"stored_slide", "J"},   {"dashpot_slide", "J"}, {"slip_slide", "J"},
    {"created_slide", "J"},  {"work_slide", "J"},     {"stored_roll", "J"},   {"dashpot_roll", "J"},
    {"slip_roll", "J"},      {"created_roll", "J"},   {"work_roll", "J"},     {"stored_spin", "J"},
    {"dashpot_spin", "J"},   {"slip_spin", "J"},      {"created_spin", "J"},  {"work_spin", "J"},
};

/* The energy ledger (docs/energy.md): per mechanism in fd_mechanism order. */
static const char* const energy_columns[][2] = {
    {"time", "s"},
    {"step", "-"},
    {"kinetic_translational", "J"},
    {"kinetic_rotational", "J"},
    {"gravitational", "J"},
    {"stored_normal", "J"},
    {"stored_slide", "J"},
    {"stored_roll", "J"},
    {"stored_spin", "J"},
    {"dashpot_normal", "J"},
    {"dashpot_slide", "J"},
    {"dashpot_roll", "J"},
    {"dashpot_spin", "J"},
    {"slip_normal", "J"},
    {"slip_slide", "J"},
    {"slip_roll", "J"},
    {"slip_spin", "J"},
    {"created_normal", "J"},
    {"created_slide", "J"},
    {"created_roll", "J"},
    {"created_spin", "J"},
    {"released", "J"},
    {"external_work", "J"},
    {"constraint_work", "J"},
    {"inserted", "J"},
    {"total", "J"},
    {"closure_error", "J"},
};

static const char* const solver_columns[][2] = {
    {"time", "s"}, {"step", "-"}, {"iterations", "-"}, {"residual", "m/s"}, {"contacts", "-"},
};

static const char* const events_columns[][2] = {
    {"time", "s"}, {"step", "-"},   {"event", "-"},  {"mechanism", "-"}, {"contact", "-"},
    {"body_i", "-"}, {"body_j", "-"}, {"name_i", "-"}, {"name_j", "-"},
};

#define COUNT_OF(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* Line 1: "# units: u1,u2,..."; line 2: the column names. */
static void write_csv_header(FILE* file, const char* const (*columns)[2], int count, const fd_world* world,
                             int model_columns)
{
    fputs("# units: ", file);
    for (int i = 0; i < count; ++i) {
        fprintf(file, "%s%s", i ? "," : "", columns[i][1]);
    }
    for (int c = 0; c < model_columns; ++c) {
        const char* unit = fd_world_contact_column_unit(world, c);
        fprintf(file, ",%s", unit && *unit ? unit : "-");
    }
    fputc('\n', file);
    for (int i = 0; i < count; ++i) {
        fprintf(file, "%s%s", i ? "," : "", columns[i][0]);
    }
    for (int c = 0; c < model_columns; ++c) {
        fputc(',', file);
        write_csv_name(file, fd_world_contact_column_name(world, c));
    }
    fputc('\n', file);
}

static void write_vec3(FILE* file, fd_vec3 v) { fprintf(file, ",%.17g,%.17g,%.17g", v.x, v.y, v.z); }

static fd_status write_bodies_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    FILE* file = output->bodies;
    int count = fd_world_body_count(world);
    for (int i = 0; i < count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        fd_body_info info = fd_body_get_info(world, id);
        if (info.type != FD_BODY_DYNAMIC) {
            continue;
        }
        fd_body_state s = fd_body_get_state(world, id);
        fprintf(file, "%.17g,%lld,%d,", time, (long long)step, body_index(id));
        write_csv_name(file, info.name);
        write_vec3(file, s.position);
        fprintf(file, ",%.17g,%.17g,%.17g,%.17g", s.orientation.w, s.orientation.x, s.orientation.y,
                s.orientation.z);
        write_vec3(file, s.velocity);
        write_vec3(file, s.angular_velocity);
        fputc('\n', file);
    }
    return finish_write(file, "bodies.csv");
}

/* Contacts can be written only after a force pass that recorded them. */
static fd_status check_contacts_recorded(const fd_world* world, const char* what)
{
    if (fd_world_contacts_recorded(world)) {
        return FD_OK;
    }
    return fd_fail(FD_ERR_INVALID_ARGUMENT,
                   "output: %s needs the contact details of step %lld, which the world did not record (call "
                   "fd_world_request_contacts before a step when fd_output_wants_contacts says so)",
                   what, (long long)fd_world_step_count(world));
}

static fd_status write_contacts_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_status recorded = check_contacts_recorded(world, "contacts.csv");
    if (recorded != FD_OK) {
        return recorded;
    }
    FILE* file = output->contacts;
    int count = fd_world_contact_count(world);
    for (int k = 0; k < count; ++k) {
        fd_contact_view c;
        fd_status status = fd_world_get_contact(world, k, &c);
        if (status != FD_OK) {
            return status;
        }
        const fd_contact_geometry* g = &c.geometry;
        const fd_contact_loads* l = &c.loads;
        fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(g->point_i, g->point_j));
        fprintf(file, "%.17g,%lld,%llu,%d,%d,", time, (long long)step, (unsigned long long)c.id,
                body_index(c.body_i), body_index(c.body_j));
        write_csv_name(file, fd_body_get_info(world, c.body_i).name);
        fputc(',', file);
        write_csv_name(file, fd_body_get_info(world, c.body_j).name);
        write_vec3(file, point);
        write_vec3(file, g->normal);
        fprintf(file, ",%.17g,%.17g", g->penetration, l->normal_force);
        write_vec3(file, l->slide_force);
        write_vec3(file, l->roll_torque_i);
        write_vec3(file, l->roll_torque_j);
        write_vec3(file, l->spin_torque_i);
        write_vec3(file, l->spin_torque_j);
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            const fd_energy_books* e = &c.energy[m];
            fprintf(file, ",%.17g,%.17g,%.17g,%.17g,%.17g", e->stored, e->dashpot, e->slip, e->created, e->work);
        }
        for (int m = 0; m < output->contact_column_count; ++m) {
            double value = (c.columns && m < c.column_count) ? c.columns[m] : NAN;
            fprintf(file, ",%.17g", value);
        }
        fputc('\n', file);
    }
    return finish_write(file, "contacts.csv");
}

static fd_status write_energy_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_world_energy e = fd_world_get_energy(world);
    /* total: the mechanical energy plus the springs' (what dissipation lowers). */
    double total = e.kinetic_translational + e.kinetic_rotational + e.gravitational;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        total += e.stored[m];
    }
    fprintf(output->energy, "%.17g,%lld,%.17g,%.17g,%.17g", time, (long long)step, e.kinetic_translational,
            e.kinetic_rotational, e.gravitational);
    const double* books[] = {e.stored, e.dashpot, e.slip, e.created};
    for (int k = 0; k < 4; ++k) {
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            fprintf(output->energy, ",%.17g", books[k][m]);
        }
    }
    fprintf(output->energy, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", e.released, e.external_work, e.constraint_work,
            e.inserted, total, e.closure_error);
    return finish_write(output->energy, "energy.csv");
}

/* Every event of the last force pass (events are not sampled: each is written once). */
static fd_status write_events_csv(fd_output* output, const fd_world* world)
{
    const fd_contact_event* events = fd_world_events(world);
    for (int k = 0; k < fd_world_event_count(world); ++k) {
        const fd_contact_event* e = &events[k];
        fprintf(output->events, "%.17g,%lld,%s,%s,%llu,%d,%d,", e->time, (long long)e->step,
                fd_event_type_name(e->type), fd_mechanism_name(e->mechanism), (unsigned long long)e->contact_id,
                body_index(e->body_i), body_index(e->body_j));
        write_csv_name(output->events, fd_body_get_info(world, e->body_i).name);
        fputc(',', output->events);
        write_csv_name(output->events, fd_body_get_info(world, e->body_j).name);
        fputc('\n', output->events);
    }
    return finish_write(output->events, "events.csv");
}

static fd_status write_csv_row(fd_output* output, const fd_world* world)
{
    double time = fd_world_time(world);
    int64_t step = fd_world_step_count(world);
    fd_status status = FD_OK;
    if (output->bodies && status == FD_OK) {
        status = write_bodies_csv(output, world, time, step);
    }
    if (output->contacts && status == FD_OK) {
        status = write_contacts_csv(output, world, time, step);
    }
    if (output->energy && status == FD_OK) {
        status = write_energy_csv(output, world, time, step);
    }
    return status;
}

/* ---------------------------------------------------------------- VTU */

static void vtu_begin(FILE* file, int points, int cells)
{
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
          "header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n",
          file);
    fprintf(file, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", points, cells);
}

static void vtu_end(FILE* file) { fputs("    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", file); }

static void vtu_array_begin(FILE* file, const char* type, const char* name, int components)
{
    fprintf(file, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n", type,
            name, components);
}

/* Closes a snapshot file; any write error on it so far is an i/o error. */
static fd_status vtu_finish(FILE* file, const char* path)
{
    vtu_end(file);
    bool failed = ferror(file) != 0;
    if (fclose(file) != 0 || failed) {
        return fd_fail(FD_ERR_IO, "output: writing '%s' failed", path);
    }
    return FD_OK;
}

static void vtu_array_end(FILE* file) { fputs("        </DataArray>\n", file); }

static void vtu_value(FILE* file, double value)
{
    /* VTK's ASCII parser does not read "nan"/"inf" portably; write 0 instead. */
    fprintf(file, FD_OUTPUT_VTU_FORMAT " ", isfinite(value) ? value : 0.0);
}

static void vtu_vec3(FILE* file, fd_vec3 v)
{
    vtu_value(file, v.x);
    vtu_value(file, v.y);
    vtu_value(file, v.z);
    fputc('\n', file);
}

/* Cells of n cells each of `size` consecutive points, all of one VTK type. */
static void vtu_cells(FILE* file, int cells, int size, int vtk_type)
{
    fputs("      <Cells>\n", file);
    vtu_array_begin(file, "Int64", "connectivity", 1);
    for (int i = 0; i < cells * size; ++i) {
        fprintf(file, "%d\n", i);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Int64", "offsets", 1);
    for (int i = 1; i <= cells; ++i) {
        fprintf(file, "%d\n", i * size);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "UInt8", "types", 1);
    for (int i = 0; i < cells; ++i) {
        fprintf(file, "%d\n", vtk_type);
    }
    vtu_array_end(file);
    fputs("      </Cells>\n", file);
}

enum { VTK_VERTEX = 1, VTK_LINE = 3, VTK_QUAD = 9 };

/* Semi-axes of a sphere or ellipsoid (r, r, r for a sphere). */
static fd_vec3 body_semi_axes(const fd_body_info* info)
{
    if (info->shape.type == FD_SHAPE_ELLIPSOID) {
        return info->shape.semi_axes;
    }
    return fd_v3(info->shape.radius, info->shape.radius, info->shape.radius);
}

/* Writes the non-plane bodies; ids[] lists them (count of them). */
static fd_status write_bodies_vtu(const fd_world* world, const char* path, const fd_body_id* ids, int count)
{
    FILE* file = fopen(path, "w");
    if (!file) {
        return fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
    }
    vtu_begin(file, count, count);
    fputs("      <Points>\n", file);
    vtu_array_begin(file, "Float64", "Points", 3);
    for (int i = 0; i < count; ++i) {
        vtu_vec3(file, fd_body_get_state(world, ids[i]).position);
    }
    vtu_array_end(file);
    fputs("      </Points>\n", file);
    vtu_cells(file, count, 1, VTK_VERTEX);

    fputs("      <PointData Scalars=\"radius\" Vectors=\"velocity\" Tensors=\"shape_tensor\">\n", file);
    vtu_array_begin(file, "Int32", "id", 1);
    for (int i = 0; i < count; ++i) {
        fprintf(file, "%d\n", body_index(ids[i]));
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "radius", 1);
    for (int i = 0; i < count; ++i) {
        vtu_value(file, fd_body_get_info(world, ids[i]).bounding_radius);
        fputc('\n', file);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "semi_axes", 3);
    for (int i = 0; i < count; ++i) {
        fd_body_info info = fd_body_get_info(world, ids[i]);
        vtu_vec3(file, body_semi_axes(&info));
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "orientation", 4);
    for (int i = 0; i < count; ++i) {
        fd_quat q = fd_body_get_state(world, ids[i]).orientation;
        vtu_value(file, q.w);
        vtu_value(file, q.x);
        vtu_value(file, q.y);
        vtu_value(file, q.z);
        fputc('\n', file);
    }
    vtu_array_end(file);
    /* R diag(a, b, c), stored column after column: vtkTensorGlyph (ParaView's
     * TensorGlyph with "Extract Eigenvalues" off) takes components 3k..3k+2 as
     * the k-th glyph axis, here semi-axis k of the body in the world frame. */
    vtu_array_begin(file, "Float64", "shape_tensor", 9);
    for (int i = 0; i < count; ++i) {
        fd_body_info info = fd_body_get_info(world, ids[i]);
        fd_vec3 axes = body_semi_axes(&info);
        fd_mat3 r = fd_mat3_from_quat(fd_body_get_state(world, ids[i]).orientation);
        fd_vec3 columns[3] = {fd_v3_scale(axes.x, r.cx), fd_v3_scale(axes.y, r.cy), fd_v3_scale(axes.z, r.cz)};
        for (int k = 0; k < 3; ++k) {
            vtu_value(file, columns[k].x);
            vtu_value(file, columns[k].y);
            vtu_value(file, columns[k].z);
        }
        fputc('\n', file);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "velocity", 3);
    for (int i = 0; i < count; ++i) {
        vtu_vec3(file, fd_body_get_state(world, ids[i]).velocity);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "angular_velocity", 3);
    for (int i = 0; i < count; ++i) {
        vtu_vec3(file, fd_body_get_state(world, ids[i]).angular_velocity);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "speed", 1);
    for (int i = 0; i < count; ++i) {
        vtu_value(file, fd_v3_length(fd_body_get_state(world, ids[i]).velocity));
        fputc('\n', file);
    }
    vtu_array_end(file);
    fputs("      </PointData>\n", file);
    return vtu_finish(file, path);
}

/* One line per contact: from body i's centre to body j's centre (to the image
 * of body j that touches body i, across a periodic face); a plane has no
 * centre, so its end is the contact point. */
static fd_status write_contacts_vtu(const fd_world* world, const char* path)
{
    fd_status recorded = check_contacts_recorded(world, "a contacts VTU snapshot");
    if (recorded != FD_OK) {
        return recorded;
    }
    FILE* file = fopen(path, "w");
    if (!file) {
        return fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
    }
    int count = fd_world_contact_count(world);
    vtu_begin(file, 2 * count, count);
    fputs("      <Points>\n", file);
    vtu_array_begin(file, "Float64", "Points", 3);
    for (int k = 0; k < count; ++k) {
        fd_contact_view c;
        if (fd_world_get_contact(world, k, &c) != FD_OK) {
            fclose(file);
            return FD_ERR_INVALID_ARGUMENT;
        }
        fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(c.geometry.point_i, c.geometry.point_j));
        fd_vec3 a = is_plane(world, c.body_i) ? point : fd_body_get_state(world, c.body_i).position;
        /* Body j's image that touches body i (periodic), so that a contact
         * across a periodic face is a short line, not one across the box. */
        fd_vec3 b = is_plane(world, c.body_j)
                        ? point
                        : fd_v3_add(fd_body_get_state(world, c.body_j).position, c.image_offset);
        vtu_vec3(file, a);
        vtu_vec3(file, b);
    }
    vtu_array_end(file);
    fputs("      </Points>\n", file);
    vtu_cells(file, count, 2, VTK_LINE);

    fputs("      <CellData Scalars=\"normal_force\" Vectors=\"force\">\n", file);
    vtu_array_begin(file, "Float64", "normal_force", 1);
    for (int k = 0; k < count; ++k) {
        fd_contact_view c;
        fd_world_get_contact(world, k, &c);
        vtu_value(file, c.loads.normal_force);
        fputc('\n', file);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "force", 3);
    for (int k = 0; k < count; ++k) {
        fd_contact_view c;
        fd_world_get_contact(world, k, &c);
        vtu_vec3(file, c.loads.force_on_i);
    }
    vtu_array_end(file);
    vtu_array_begin(file, "UInt64", "id", 1);
    for (int k = 0; k < count; ++k) {
        fd_contact_view c;
        fd_world_get_contact(world, k, &c);
        fprintf(file, "%llu\n", (unsigned long long)c.id);
    }
    vtu_array_end(file);
    fputs("      </CellData>\n", file);
    return vtu_finish(file, path);
}

/* Rewrites NAME.pvd (via NAME.pvd.tmp and a rename) listing every snapshot. */
static fd_status write_pvd(fd_output* output, const char* name)
{
    char final_path[FD_PATH_MAX + 64];
    snprintf(final_path, sizeof final_path, "%s", output_path(output, "%s.pvd", name));
    const char* temporary = output_path(output, "%s.pvd.tmp", name);
    FILE* file = fopen(temporary, "w");
    if (!file) {
        return fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", temporary, strerror(errno));
    }
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          file);
    for (int s = 0; s < output->snapshot_count; ++s) {
        fprintf(file, "    <DataSet timestep=\"%.17g\" part=\"0\" file=\"vtu/%s_%06d.vtu\"/>\n",
                output->snapshots[s].time, name, s);
    }
    fputs("  </Collection>\n</VTKFile>\n", file);
    bool failed = ferror(file) != 0;
    if (fclose(file) != 0 || failed) {
        return fd_fail(FD_ERR_IO, "output: writing '%s' failed", temporary);
    }
    if (rename(temporary, final_path) != 0) {
        return fd_fail(FD_ERR_IO, "output: cannot rename '%s' to '%s': %s", temporary, final_path,
                       strerror(errno));
    }
    return FD_OK;
}

static fd_status write_snapshot(fd_output* output, const fd_world* world)
{
    if (output->snapshot_count == output->snapshot_capacity) {
        int capacity = output->snapshot_capacity ? 2 * output->snapshot_capacity : 64;
        fd_snapshot* grown = realloc(output->snapshots, (size_t)capacity * sizeof *grown);
        if (!grown) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
        }
        output->snapshots = grown;
        output->snapshot_capacity = capacity;
    }
    int index = output->snapshot_count;

    int body_count = fd_world_body_count(world);
    fd_body_id* ids = malloc((size_t)(body_count > 0 ? body_count : 1) * sizeof *ids);
    if (!ids) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
    }
    int count = 0;
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!is_plane(world, id)) {
            ids[count++] = id;
        }
    }
    fd_status status = write_bodies_vtu(world, output_path(output, "vtu/bodies_%06d.vtu", index), ids, count);
    free(ids);
    if (status == FD_OK) {
        status = write_contacts_vtu(world, output_path(output, "vtu/contacts_%06d.vtu", index));
    }
    if (status != FD_OK) {
        return status;
    }
    output->snapshots[index] = (fd_snapshot){fd_world_time(world), fd_world_step_count(world)};
    output->snapshot_count = index + 1;
    status = write_pvd(output, "bodies");
    if (status == FD_OK) {
        status = write_pvd(output, "contacts");
    }
    return status;
}

/* vtu/planes.vtu: each plane as a square of side 1.5 times the largest extent
 * of the box around the other bodies (and the plane positions and the inlets'
 * regions), centred on the projection of that box's centre onto the plane.
 * Written once, at open. */
static fd_status write_planes_vtu(fd_output* output, const fd_world* world)
{
    int body_count = fd_world_body_count(world);
    fd_vec3 lo = fd_v3(INFINITY, INFINITY, INFINITY);
    fd_vec3 hi = fd_v3(-INFINITY, -INFINITY, -INFINITY);
    int plane_count = 0;
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
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

    const char* path = output_path(output, "vtu/planes.vtu");
    FILE* file = fopen(path, "w");
    if (!file) {
        return fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
    }
    vtu_begin(file, 4 * plane_count, plane_count);
    fputs("      <Points>\n", file);
    vtu_array_begin(file, "Float64", "Points", 3);
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        fd_body_info info = fd_body_get_info(world, id);
        if (info.shape.type != FD_SHAPE_PLANE) {
            continue;
        }
        fd_body_state s = fd_body_get_state(world, id);
        fd_vec3 n = fd_v3_normalize(fd_quat_rotate(s.orientation, info.shape.plane_normal));
        fd_vec3 t1 = fd_v3_any_orthogonal(n);
        fd_vec3 t2 = fd_v3_cross(n, t1);
        fd_vec3 c = fd_v3_mul_add(centre, -fd_v3_dot(fd_v3_sub(centre, s.position), n), n);
        vtu_vec3(file, fd_v3_add(c, fd_v3_add(fd_v3_scale(-half, t1), fd_v3_scale(-half, t2))));
        vtu_vec3(file, fd_v3_add(c, fd_v3_add(fd_v3_scale(half, t1), fd_v3_scale(-half, t2))));
        vtu_vec3(file, fd_v3_add(c, fd_v3_add(fd_v3_scale(half, t1), fd_v3_scale(half, t2))));
        vtu_vec3(file, fd_v3_add(c, fd_v3_add(fd_v3_scale(-half, t1), fd_v3_scale(half, t2))));
    }
    vtu_array_end(file);
    fputs("      </Points>\n", file);
    vtu_cells(file, plane_count, 4, VTK_QUAD);
    fputs("      <CellData Normals=\"normal\">\n", file);
    vtu_array_begin(file, "Int32", "id", 1);
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (is_plane(world, id)) {
            fprintf(file, "%d\n", body_index(id));
        }
    }
    vtu_array_end(file);
    vtu_array_begin(file, "Float64", "normal", 3);
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        fd_body_info info = fd_body_get_info(world, id);
        if (info.shape.type == FD_SHAPE_PLANE) {
            fd_quat q = fd_body_get_state(world, id).orientation;
            vtu_vec3(file, fd_v3_normalize(fd_quat_rotate(q, info.shape.plane_normal)));
        }
    }
    vtu_array_end(file);
    fputs("      </CellData>\n", file);
    vtu_end(file);
    /* The plane names, for the reader who opens the file in an editor. */
    fputs("<!-- planes:", file);
    for (int i = 0; i < body_count; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        fd_body_info info = fd_body_get_info(world, id);
        if (info.shape.type == FD_SHAPE_PLANE) {
            fprintf(file, " %d=", body_index(id));
            /* "--" may not appear in an XML comment. */
            for (const char* c = info.name; c && *c; ++c) {
                fputc(*c == '-' ? '_' : *c, file);
            }
        }
    }
    fputs(" -->\n", file);
    bool failed = ferror(file) != 0;
    if (fclose(file) != 0 || failed) {
        return fd_fail(FD_ERR_IO, "output: writing '%s' failed", path);
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- API */

static void output_free(fd_output* output)
{
    if (!output) {
        return;
    }
    if (output->bodies) {
        fclose(output->bodies);
    }
    if (output->contacts) {
        fclose(output->contacts);
    }
    if (output->energy) {
        fclose(output->energy);
    }
    if (output->events) {
        fclose(output->events);
    }
    if (output->solver) {
        fclose(output->solver);
    }
    free(output->snapshots);
    free(output->path);
    free(output);
}

fd_output* fd_output_open(const fd_world* world, const fd_output_settings* settings)
{
    if (!world || !settings) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "output: world and settings are required");
        return NULL;
    }
    if (settings->directory[0] == '\0') {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "output: directory is empty");
        return NULL;
    }
    if (!(settings->csv_interval >= 0.0) || !(settings->vtu_interval >= 0.0)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "output: csv_interval %g and vtu_interval %g must be >= 0",
                settings->csv_interval, settings->vtu_interval);
        return NULL;
    }
    fd_output* output = calloc(1, sizeof *output);
    if (!output) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
        return NULL;
    }
    output->settings = *settings;
    output->settings.directory[FD_PATH_MAX - 1] = '\0';
    output->path_size = strlen(output->settings.directory) + 64;
    output->path = malloc(output->path_size);
    if (!output->path) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
        output_free(output);
        return NULL;
    }

    bool any_csv = settings->bodies_csv || settings->contacts_csv || settings->energy_csv;
    bool any_vtu = settings->vtu_interval > 0.0;
    output->csv = (fd_schedule){any_csv ? settings->csv_interval : -1.0, 0.0, -1};
    output->vtu = (fd_schedule){any_vtu ? settings->vtu_interval : -1.0, 0.0, -1};

    fd_status status = make_directories(output->settings.directory);
    if (status == FD_OK && any_vtu) {
        status = make_directories(output_path(output, "vtu"));
    }
    if (status != FD_OK) {
        output_free(output);
        return NULL;
    }
    if (settings->bodies_csv) {
        output->bodies = open_file(output, "bodies.csv");
        if (!output->bodies) {
            output_free(output);
            return NULL;
        }
        write_csv_header(output->bodies, bodies_columns, COUNT_OF(bodies_columns), world, 0);
    }
    if (settings->contacts_csv) {
        output->contacts = open_file(output, "contacts.csv");
        if (!output->contacts) {
            output_free(output);
            return NULL;
        }
        output->contact_column_count = fd_world_contact_column_count(world);
        if (output->contact_column_count < 0) {
            output->contact_column_count = 0;
        }
        write_csv_header(output->contacts, contacts_columns, COUNT_OF(contacts_columns), world,
                         output->contact_column_count);
    }
    if (settings->energy_csv) {
        output->energy = open_file(output, "energy.csv");
        if (!output->energy) {
            output_free(output);
            return NULL;
        }
        write_csv_header(output->energy, energy_columns, COUNT_OF(energy_columns), world, 0);
    }
    if (any_vtu) {
        status = write_planes_vtu(output, world);
        if (status != FD_OK) {
            output_free(output);
            return NULL;
        }
    }
    output->events_step = -1;
    output->solver_step = -1;
    if (settings->events_csv) {
        output->events = open_file(output, "events.csv");
        if (!output->events) {
            output_free(output);
            return NULL;
        }
        write_csv_header(output->events, events_columns, COUNT_OF(events_columns), world, 0);
    }
    if (any_csv && fd_world_get_def(world).stepper == FD_STEPPER_COMPLEMENTARITY) {
        output->solver = open_file(output, "solver.csv");
        if (!output->solver) {
            output_free(output);
            return NULL;
        }
        write_csv_header(output->solver, solver_columns, COUNT_OF(solver_columns), world, 0);
    }
    FILE* files[5] = {output->bodies, output->contacts, output->energy, output->events, output->solver};
    for (int i = 0; i < 5; ++i) {
        if (files[i] && finish_write(files[i], "a CSV header") != FD_OK) {
            output_free(output);
            return NULL;
        }
    }
    return output;
}

bool fd_output_writes_contacts(const fd_output* output)
{
    return output && (output->contacts || output->vtu.interval >= 0.0);
}

bool fd_output_wants_contacts(const fd_output* output, const fd_world* world)
{
    if (!output || !world) {
        return false;
    }
    double dt = fd_world_time_step(world);
    double time = fd_world_time(world) + dt;
    int64_t step = fd_world_step_count(world) + 1;
    return (output->contacts && schedule_due(&output->csv, time, step, dt)) || schedule_due(&output->vtu, time, step, dt);
}

fd_status fd_output_write(fd_output* output, const fd_world* world)
{
    if (!output || !world) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "output: output and world are required");
    }
    double time = fd_world_time(world);
    int64_t step = fd_world_step_count(world);
    double dt = fd_world_time_step(world);
    fd_status status = FD_OK;
    if (schedule_due(&output->csv, time, step, dt)) {
        status = write_csv_row(output, world);
        schedule_mark(&output->csv, time, step, dt);
    }
    if (status == FD_OK && schedule_due(&output->vtu, time, step, dt)) {
        status = write_snapshot(output, world);
        schedule_mark(&output->vtu, time, step, dt);
    }
    if (status == FD_OK && output->events && output->events_step != step) {
        status = write_events_csv(output, world);
        output->events_step = step;
    }
    /* The solver's iterations and residual: every step, not sampled. */
    if (status == FD_OK && output->solver && output->solver_step != step) {
        fd_solver_stats stats = fd_world_solver_stats(world);
        fprintf(output->solver, "%.17g,%lld,%d,%.17g,%d\n", time, (long long)step, stats.iterations, stats.residual,
                stats.contacts);
        status = finish_write(output->solver, "solver.csv");
        output->solver_step = step;
    }
    return status;
}

fd_status fd_output_close(fd_output* output, const fd_world* world)
{
    if (!output) {
        return FD_OK;
    }
    fd_status status = FD_OK;
    if (world) {
        int64_t step = fd_world_step_count(world);
        double time = fd_world_time(world);
        double dt = fd_world_time_step(world);
        if (output->csv.interval >= 0.0 && output->csv.last_step != step) {
            status = write_csv_row(output, world);
            schedule_mark(&output->csv, time, step, dt);
        }
        if (status == FD_OK && output->vtu.interval >= 0.0 && output->vtu.last_step != step) {
            status = write_snapshot(output, world);
            schedule_mark(&output->vtu, time, step, dt);
        }
    }
    FILE** files[5] = {&output->bodies, &output->contacts, &output->energy, &output->events, &output->solver};
    for (int i = 0; i < 5; ++i) {
        if (*files[i]) {
            if (fclose(*files[i]) != 0 && status == FD_OK) {
                status = fd_fail(FD_ERR_IO, "output: closing a CSV file failed: %s", strerror(errno));
            }
            *files[i] = NULL;
        }
    }
    output_free(output);
    return status;
}
