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
 * Crash safety. CSV rows reach their file through write(2) calls of whole
 * rows only (no stdio buffer that could hold half a row): the rows of an
 * output time go out in blocks cut at row ends, and the last block before
 * fd_output_write returns. So a process killed between two write calls
 * (SIGKILL, or any signal the caller does not catch) leaves files that end
 * with a whole row; a kill inside one large write may still cut it short at
 * a page, which no user-space writer can prevent (docs/guarantees.md). Each
 * PVD index is rewritten (to a temporary file, then renamed) after every
 * snapshot, so it is always a readable collection.
 *
 * A growing world. Bodies that inlets add between writes simply appear in the
 * next CSV rows and snapshots, and bodies that outlets remove are gone from
 * them (every row and snapshot lists the bodies there are at its time; a
 * body's index never changes, and a removed body's slot, which
 * fd_world_body_at gives a null handle for, is skipped).
 *
 * Numbers. CSV values are the text of %.17g, which round-trips every double
 * exactly (strtod gives back the same bits), formatted by number_format.c
 * (the same characters, several times faster than printf). VTU snapshots
 * are binary by default (output_vtu.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "collide/collide.h"
#include "core/error.h"
#include "core/math.h"
#include "fricdem/io.h"
#include "io/block_file.h"
#include "io/number_format.h"
#include "io/output_trajectory.h"
#include "io/output_vtu.h"

typedef struct fd_schedule {
    double interval;         /* s; 0 = every step; < 0 = never */
    double next_time;        /* s; time of the next multiple of interval */
    int64_t last_step;       /* step last written; -1 = none yet */
} fd_schedule;

typedef struct fd_snapshot {
    double time;
    int64_t step;
} fd_snapshot;

/* A CSV file: rows are appended to block.text and written in blocks
 * (block_file.h; see Crash safety above). */
typedef struct csv_file {
    bool open;
    fd_block_file block;
    const char* name;         /* "bodies.csv", for messages */
    int64_t written;          /* bytes so far, header included */
    int64_t header;           /* bytes of the header */
} csv_file;

struct fd_output {
    fd_output_settings settings;
    csv_file bodies;
    csv_file contacts;
    csv_file energy;
    csv_file events;
    csv_file walls;           /* walls.csv: the reaction on each wall (fd_body_get_reaction) */
    csv_file outlets;         /* outlets.csv, with the totals of each outlet at its last row */
    int64_t* outlet_removed;
    double* outlet_mass;
    csv_file solver;          /* solver.csv: the complementarity stepper's iterations and residual */
    int64_t solver_step;      /* step written last to solver.csv (-1: none) */
    int64_t events_step;      /* step whose events were written last (-1: none) */
    int contact_column_count; /* model columns in the contacts.csv header */
    fd_write_rates write_rates; /* what the CSV, VTU and trajectory files learned of direct writes (block_file.h) */
    double write_seconds;       /* wall time inside fd_output_write */
    fd_schedule csv;
    fd_schedule vtu;
    bool walls_vtu;           /* the world had walls at the start: a walls snapshot with every snapshot */
    fd_vtu_plane_square plane_square; /* where the planes are drawn, fixed at the start */
    fd_schedule trajectory_schedule;
    fd_trajectory* trajectory; /* trajectory.h5 and its XDMF indexes (output_trajectory.c); NULL: off */
    /* What has been written, for fd_output_projected_bytes. */
    int64_t csv_times;        /* CSV row times written */
    int64_t step_rows;        /* steps with their events and solver rows written */
    int64_t snapshot_bytes;   /* the snapshots' VTU files */
    int64_t index_bytes;      /* the PVD indexes (rewritten, about constant) */
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

static bool open_csv(fd_output* output, csv_file* file, const char* name)
{
    const char* path = output_path(output, "%s", name);
    *file = (csv_file){.name = name};
    if (!fd_block_file_open(&file->block, path, output->settings.direct_io, &output->write_rates)) {
        fd_fail(FD_ERR_IO, "output: cannot open '%s' for writing: %s", path, strerror(errno));
        return false;
    }
    file->open = true;
    return true;
}

/* Everything is flushed after each output time, so closing writes nothing. */
static bool close_csv(csv_file* file)
{
    bool ok = !file->open || fd_block_file_close(&file->block);
    file->open = false;
    return ok;
}

/* ---------------------------------------------------------------- helpers */


static int body_index(fd_body_id id) { return id.index1 - 1; }


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
    {"vy", "m/s"},   {"vz", "m/s"},    {"wx", "rad/s"},  {"wy", "rad/s"},  {"wz", "rad/s"},  {"radius", "m"},
    {"mass", "kg"},  {"material", "-"},
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
    {"removed", "J"},
    {"total", "J"},
    {"closure_error", "J"},
};

static const char* const outlets_columns[][2] = {
    {"time", "s"},       {"step", "-"},      {"outlet", "-"},           {"removed", "-"},
    {"removed_mass", "kg"}, {"total_removed", "-"}, {"total_removed_mass", "kg"},
};

static const char* const solver_columns[][2] = {
    {"time", "s"}, {"step", "-"}, {"iterations", "-"}, {"residual", "m/s"}, {"contacts", "-"},
};

static const char* const walls_columns[][2] = {
    {"time", "s"},       {"step", "-"},       {"wall", "-"},       {"force_x", "N"},   {"force_y", "N"},
    {"force_z", "N"},    {"torque_x", "N m"}, {"torque_y", "N m"}, {"torque_z", "N m"}, {"power", "W"},
    {"position_x", "m"}, {"position_y", "m"}, {"position_z", "m"},
};

static const char* const events_columns[][2] = {
    {"time", "s"}, {"step", "-"},   {"event", "-"},  {"mechanism", "-"}, {"contact", "-"},
    {"body_i", "-"}, {"body_j", "-"}, {"name_i", "-"}, {"name_j", "-"},
};

#define COUNT_OF(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* A name as a CSV field, quoted (RFC 4180) when it holds a comma, a quote
 * or a line break. */
static void text_csv_name(fd_text* text, const char* name)
{
    if (!name) {
        return;
    }
    if (strpbrk(name, ",\"\r\n") == NULL) {
        fd_text_append(text, name, strlen(name));
        return;
    }
    fd_text_char(text, '"');
    for (const char* c = name; *c; ++c) {
        if (*c == '"') {
            fd_text_char(text, '"');
        }
        fd_text_char(text, *c);
    }
    fd_text_char(text, '"');
}

static void text_value(fd_text* text, double value)
{
    fd_text_char(text, ',');
    fd_text_g17(text, value);
}

static void text_vec3(fd_text* text, fd_vec3 v)
{
    text_value(text, v.x);
    text_value(text, v.y);
    text_value(text, v.z);
}

/* Line 1: "# units: u1,u2,..."; line 2: the column names. */
static fd_status flush_rows(fd_output* output, csv_file* file, bool last);

static fd_status write_csv_header(fd_output* output, csv_file* file, const char* const (*columns)[2],
                                  int count, const fd_world* world, int model_columns)
{
    fd_text* text = &file->block.text;
    fd_text_append(text, "# units: ", 9);
    for (int i = 0; i < count; ++i) {
        if (i) {
            fd_text_char(text, ',');
        }
        fd_text_append(text, columns[i][1], strlen(columns[i][1]));
    }
    for (int c = 0; c < model_columns; ++c) {
        const char* unit = fd_world_contact_column_unit(world, c);
        unit = unit && *unit ? unit : "-";
        fd_text_char(text, ',');
        fd_text_append(text, unit, strlen(unit));
    }
    fd_text_char(text, '\n');
    for (int i = 0; i < count; ++i) {
        if (i) {
            fd_text_char(text, ',');
        }
        fd_text_append(text, columns[i][0], strlen(columns[i][0]));
    }
    for (int c = 0; c < model_columns; ++c) {
        fd_text_char(text, ',');
        text_csv_name(text, fd_world_contact_column_name(world, c));
    }
    fd_text_char(text, '\n');
    fd_status status = flush_rows(output, file, true);
    file->header = file->written;
    return status;
}

/* "time,step," of a row, formatted once per output time. */
static void row_prefix(char* prefix, double time, int64_t step)
{
    size_t length = fd_format_g17(time, prefix);
    prefix[length++] = ',';
    length += fd_format_integer(step, prefix + length);
    prefix[length++] = ',';
    prefix[length] = '\0';
}

/* Rows are formatted into the file's text buffer and written in blocks
 * of about a megabyte (number_format.h: ~5x faster than fprintf), directly
 * or through the page cache (block_file.h). Called after each whole row, so
 * every block ends at a row's end; `last` writes what is left of an output
 * time's rows. */
enum { CSV_BLOCK_BYTES = 1 << 20 };

static fd_status flush_rows(fd_output* output, csv_file* file, bool last)
{
    (void)output;
    fd_block_file* block = &file->block;
    if (block->text.length - block->written < CSV_BLOCK_BYTES && !last) {
        return FD_OK;
    }
    if (!fd_block_file_flush(block)) {
        return block->text.failed ? fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory writing %s", file->name)
                                  : fd_fail(FD_ERR_IO, "output: writing %s failed: %s", file->name, strerror(errno));
    }
    file->written = fd_block_file_size(block);
    return FD_OK;
}

static fd_status write_bodies_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    csv_file* file = &output->bodies;
    fd_text* text = &file->block.text;
    char prefix[2 * FD_NUMBER_TEXT_MAX + 4];
    row_prefix(prefix, time, step);
    const size_t prefix_length = strlen(prefix);
    int count = fd_world_body_count(world);
    fd_status status = FD_OK;
    for (int i = 0; i < count && status == FD_OK; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!fd_body_is_valid(world, id)) {
            continue; /* a removed body's slot */
        }
        fd_body_info info = fd_body_get_info(world, id);
        if (info.type != FD_BODY_DYNAMIC) {
            continue;
        }
        fd_body_state s = fd_body_get_state(world, id);
        fd_text_append(text, prefix, prefix_length);
        fd_text_integer(text, body_index(id));
        fd_text_char(text, ',');
        text_csv_name(text, info.name);
        text_vec3(text, s.position);
        text_value(text, s.orientation.w);
        text_value(text, s.orientation.x);
        text_value(text, s.orientation.y);
        text_value(text, s.orientation.z);
        text_vec3(text, s.velocity);
        text_vec3(text, s.angular_velocity);
        /* What a packing fraction or a mass flow needs, and what reading the
         * frame back as a bodies_file needs to give the same bodies. */
        text_value(text, info.shape.type == FD_SHAPE_SPHERE ? info.shape.radius : info.bounding_radius);
        text_value(text, info.mass);
        fd_text_char(text, ',');
        text_csv_name(text, fd_material_name(world, info.material));
        fd_text_char(text, '\n');
        status = flush_rows(output, file, false);
    }
    return status == FD_OK ? flush_rows(output, file, true) : status;
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
    csv_file* file = &output->contacts;
    fd_text* text = &file->block.text;
    char prefix[2 * FD_NUMBER_TEXT_MAX + 4];
    row_prefix(prefix, time, step);
    const size_t prefix_length = strlen(prefix);
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
        fd_text_append(text, prefix, prefix_length);
        fd_text_integer(text, (int64_t)c.id);
        fd_text_char(text, ',');
        fd_text_integer(text, body_index(c.body_i));
        fd_text_char(text, ',');
        fd_text_integer(text, body_index(c.body_j));
        fd_text_char(text, ',');
        text_csv_name(text, fd_body_get_info(world, c.body_i).name);
        fd_text_char(text, ',');
        text_csv_name(text, fd_body_get_info(world, c.body_j).name);
        text_vec3(text, point);
        text_vec3(text, g->normal);
        text_value(text, g->penetration);
        text_value(text, l->normal_force);
        text_vec3(text, l->slide_force);
        text_vec3(text, l->roll_torque_i);
        text_vec3(text, l->roll_torque_j);
        text_vec3(text, l->spin_torque_i);
        text_vec3(text, l->spin_torque_j);
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            const fd_energy_books* e = &c.energy[m];
            text_value(text, e->stored);
            text_value(text, e->dashpot);
            text_value(text, e->slip);
            text_value(text, e->created);
            text_value(text, e->work);
        }
        for (int m = 0; m < output->contact_column_count; ++m) {
            text_value(text, (c.columns && m < c.column_count) ? c.columns[m] : NAN);
        }
        fd_text_char(text, '\n');
        status = flush_rows(output, file, false);
        if (status != FD_OK) {
            return status;
        }
    }
    return flush_rows(output, file, true);
}

static fd_status write_energy_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_world_energy e = fd_world_get_energy(world);
    /* total: the mechanical energy plus the springs' (what dissipation lowers). */
    double total = e.kinetic_translational + e.kinetic_rotational + e.gravitational;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        total += e.stored[m];
    }
    fd_text* text = &output->energy.block.text;
    char prefix[2 * FD_NUMBER_TEXT_MAX + 4];
    row_prefix(prefix, time, step);
    fd_text_append(text, prefix, strlen(prefix) - 1); /* without its trailing comma */
    text_value(text, e.kinetic_translational);
    text_value(text, e.kinetic_rotational);
    text_value(text, e.gravitational);
    const double* books[] = {e.stored, e.dashpot, e.slip, e.created};
    for (int k = 0; k < 4; ++k) {
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            text_value(text, books[k][m]);
        }
    }
    const double tail[] = {e.released, e.external_work, e.constraint_work, e.inserted, e.removed, total,
                           e.closure_error};
    for (int k = 0; k < COUNT_OF(tail); ++k) {
        text_value(text, tail[k]);
    }
    fd_text_char(text, '\n');
    return flush_rows(output, &output->energy, true);
}

/* A wall, for walls.csv: a static body that is not a sphere (a plane, a
 * wall shape), or one that moves (a sphere held on a path). Fixed spheres
 * (a rough floor of glued grains) are bodies, not walls. A wall of several
 * bodies (a capped drum, a mesh's patches) is one row, under its first
 * body, the others' reactions summed into it (fd_world_wall_reaction). */
static bool is_wall(const fd_world* world, fd_body_id id)
{
    fd_body_info info = fd_body_get_info(world, id);
    if (info.type != FD_BODY_STATIC || info.wall.index1 != id.index1) {
        return false;
    }
    fd_body_state state = fd_body_get_state(world, id);
    bool moves = state.velocity.x != 0.0 || state.velocity.y != 0.0 || state.velocity.z != 0.0 ||
                 state.angular_velocity.x != 0.0 || state.angular_velocity.y != 0.0 || state.angular_velocity.z != 0.0;
    return info.shape.type != FD_SHAPE_SPHERE || moves;
}

static int wall_count(const fd_world* world)
{
    int count = 0;
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        count += is_wall(world, fd_world_body_at(world, b));
    }
    return count;
}

static fd_status write_walls_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_text* text = &output->walls.block.text;
    char prefix[2 * FD_NUMBER_TEXT_MAX + 4];
    row_prefix(prefix, time, step);
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        fd_body_id id = fd_world_body_at(world, b);
        if (!is_wall(world, id)) {
            continue;
        }
        fd_wall_reaction r = fd_world_wall_reaction(world, id);
        fd_text_append(text, prefix, strlen(prefix));
        text_csv_name(text, fd_body_get_info(world, id).name);
        text_vec3(text, r.force);
        text_vec3(text, r.torque);
        text_value(text, r.power);
        text_vec3(text, fd_body_get_state(world, id).position);
        fd_text_char(text, '\n');
        fd_status status = flush_rows(output, &output->walls, false);
        if (status != FD_OK) {
            return status;
        }
    }
    return flush_rows(output, &output->walls, true);
}

/* Every event of the last force pass (events are not sampled: each is written once). */
static fd_status write_events_csv(fd_output* output, const fd_world* world)
{
    const fd_contact_event* events = fd_world_events(world);
    fd_text* text = &output->events.block.text;
    for (int k = 0; k < fd_world_event_count(world); ++k) {
        const fd_contact_event* e = &events[k];
        char fields[256];
        int length = snprintf(fields, sizeof fields, "%.17g,%lld,%s,%s,%llu,%d,%d,", e->time, (long long)e->step,
                              fd_event_type_name(e->type), fd_mechanism_name(e->mechanism),
                              (unsigned long long)e->contact_id, body_index(e->body_i), body_index(e->body_j));
        fd_text_append(text, fields, (size_t)length);
        text_csv_name(text, fd_body_get_info(world, e->body_i).name);
        fd_text_char(text, ',');
        text_csv_name(text, fd_body_get_info(world, e->body_j).name);
        fd_text_char(text, '\n');
        fd_status status = flush_rows(output, &output->events, false);
        if (status != FD_OK) {
            return status;
        }
    }
    return flush_rows(output, &output->events, true);
}

/* One row per outlet: what it removed since the last row of this file (since
 * t = 0 for the first row, also of a resumed run's file) and in all. */
static fd_status write_outlets_csv(fd_output* output, const fd_world* world, double time, int64_t step)
{
    fd_text* text = &output->outlets.block.text;
    char prefix[2 * FD_NUMBER_TEXT_MAX + 4];
    row_prefix(prefix, time, step);
    for (int i = 0; i < fd_world_outlet_count(world); ++i) {
        fd_outlet_info info = fd_world_get_outlet_info(world, i);
        fd_text_append(text, prefix, strlen(prefix));
        text_csv_name(text, info.name);
        fd_text_char(text, ',');
        fd_text_integer(text, info.removed - output->outlet_removed[i]);
        text_value(text, info.removed_mass - output->outlet_mass[i]);
        fd_text_char(text, ',');
        fd_text_integer(text, info.removed);
        text_value(text, info.removed_mass);
        fd_text_char(text, '\n');
        output->outlet_removed[i] = info.removed;
        output->outlet_mass[i] = info.removed_mass;
    }
    return flush_rows(output, &output->outlets, true);
}

static fd_status write_csv_row(fd_output* output, const fd_world* world)
{
    double time = fd_world_time(world);
    int64_t step = fd_world_step_count(world);
    fd_status status = FD_OK;
    if (output->bodies.open && status == FD_OK) {
        status = write_bodies_csv(output, world, time, step);
    }
    if (output->contacts.open && status == FD_OK) {
        status = write_contacts_csv(output, world, time, step);
    }
    if (output->energy.open && status == FD_OK) {
        status = write_energy_csv(output, world, time, step);
    }
    if (output->walls.open && status == FD_OK) {
        status = write_walls_csv(output, world, time, step);
    }
    if (output->outlets.open && status == FD_OK) {
        status = write_outlets_csv(output, world, time, step);
    }
    output->csv_times += 1;
    return status;
}

/* ---------------------------------------------------------------- VTU */

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

/* A file's size in bytes; 0 when it cannot be read. */
static int64_t file_bytes(const char* path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (int64_t)info.st_size : 0;
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
        /* Walls are drawn by the walls series, at their true size. */
        if (fd_body_is_valid(world, id) && !fd_shape_is_wall(fd_body_get_info(world, id).shape.type)) {
            ids[count++] = id;
        }
    }
    const fd_vtu_format format = {output->settings.vtu_ascii, output->settings.direct_io, &output->write_rates};
    fd_status status =
        fd_vtu_write_bodies(world, output_path(output, "vtu/bodies_%06d.vtu", index), ids, count, &format);
    free(ids);
    if (status == FD_OK) {
        status = check_contacts_recorded(world, "a contacts VTU snapshot");
    }
    if (status == FD_OK) {
        status = fd_vtu_write_contacts(world, output_path(output, "vtu/contacts_%06d.vtu", index), &format);
    }
    if (status == FD_OK && output->walls_vtu) {
        status = fd_vtu_write_walls(world, output_path(output, "vtu/walls_%06d.vtu", index), &output->plane_square,
                                    &format);
    }
    if (status != FD_OK) {
        return status;
    }
    output->snapshots[index] = (fd_snapshot){fd_world_time(world), fd_world_step_count(world)};
    output->snapshot_count = index + 1;
    output->snapshot_bytes += file_bytes(output_path(output, "vtu/bodies_%06d.vtu", index)) +
                              file_bytes(output_path(output, "vtu/contacts_%06d.vtu", index));
    status = write_pvd(output, "bodies");
    if (status == FD_OK) {
        status = write_pvd(output, "contacts");
    }
    if (output->walls_vtu) {
        output->snapshot_bytes += file_bytes(output_path(output, "vtu/walls_%06d.vtu", index));
        if (status == FD_OK) {
            status = write_pvd(output, "walls");
        }
    }
    output->index_bytes = file_bytes(output_path(output, "bodies.pvd")) +
                          file_bytes(output_path(output, "contacts.pvd")) +
                          (output->walls_vtu ? file_bytes(output_path(output, "walls.pvd")) : 0);
    return status;
}

/* ---------------------------------------------------------------- API */

static void output_free(fd_output* output)
{
    if (!output) {
        return;
    }
    csv_file* files[7] = {&output->bodies, &output->contacts, &output->energy,
                          &output->events, &output->solver,   &output->walls, &output->outlets};
    for (int i = 0; i < 7; ++i) {
        close_csv(files[i]);
    }
    fd_trajectory_close(output->trajectory);
    free(output->outlet_removed);
    free(output->outlet_mass);
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
    if (!(settings->csv_interval >= 0.0) || !(settings->vtu_interval >= 0.0) ||
        (settings->trajectory && !(settings->trajectory_interval >= 0.0))) {
        fd_fail(FD_ERR_INVALID_ARGUMENT,
                "output: csv_interval %g, vtu_interval %g and trajectory_interval %g must be >= 0",
                settings->csv_interval, settings->vtu_interval, settings->trajectory_interval);
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

    bool outlets_csv = settings->outlets_csv && fd_world_outlet_count(world) > 0;
    bool any_csv = settings->bodies_csv || settings->contacts_csv || settings->energy_csv || outlets_csv;
    bool any_vtu = settings->vtu_interval > 0.0;
    output->csv = (fd_schedule){any_csv ? settings->csv_interval : -1.0, 0.0, -1};
    output->vtu = (fd_schedule){any_vtu ? settings->vtu_interval : -1.0, 0.0, -1};
    output->trajectory_schedule = (fd_schedule){settings->trajectory ? settings->trajectory_interval : -1.0, 0.0, -1};

    fd_status status = make_directories(output->settings.directory);
    if (status == FD_OK && any_vtu) {
        status = make_directories(output_path(output, "vtu"));
    }
    if (status != FD_OK) {
        output_free(output);
        return NULL;
    }
    /* The CSV files, each with its header written. */
    output->contact_column_count = settings->contacts_csv ? fd_world_contact_column_count(world) : 0;
    if (output->contact_column_count < 0) {
        output->contact_column_count = 0;
    }
    struct {
        bool wanted;
        csv_file* file;
        const char* name;
        const char* const (*columns)[2];
        int count, model_columns;
    } csvs[] = {
        {settings->bodies_csv, &output->bodies, "bodies.csv", bodies_columns, COUNT_OF(bodies_columns), 0},
        {settings->contacts_csv, &output->contacts, "contacts.csv", contacts_columns, COUNT_OF(contacts_columns),
         output->contact_column_count},
        {settings->energy_csv, &output->energy, "energy.csv", energy_columns, COUNT_OF(energy_columns), 0},
        {settings->events_csv, &output->events, "events.csv", events_columns, COUNT_OF(events_columns), 0},
        {settings->walls_csv && any_csv && wall_count(world) > 0, &output->walls, "walls.csv", walls_columns,
         COUNT_OF(walls_columns), 0},
        {outlets_csv, &output->outlets, "outlets.csv", outlets_columns, COUNT_OF(outlets_columns), 0},
        {any_csv && fd_world_get_def(world).stepper == FD_STEPPER_COMPLEMENTARITY, &output->solver, "solver.csv",
         solver_columns, COUNT_OF(solver_columns), 0},
    };
    output->events_step = -1;
    output->solver_step = -1;
    int outlets = fd_world_outlet_count(world);
    output->outlet_removed = calloc((size_t)(outlets > 0 ? outlets : 1), sizeof *output->outlet_removed);
    output->outlet_mass = calloc((size_t)(outlets > 0 ? outlets : 1), sizeof *output->outlet_mass);
    if (!output->outlet_removed || !output->outlet_mass) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
        output_free(output);
        return NULL;
    }
    for (int i = 0; i < COUNT_OF(csvs); ++i) {
        if (!csvs[i].wanted) {
            continue;
        }
        if (!open_csv(output, csvs[i].file, csvs[i].name) ||
            write_csv_header(output, csvs[i].file, csvs[i].columns, csvs[i].count, world, csvs[i].model_columns) !=
                FD_OK) {
            output_free(output);
            return NULL;
        }
    }
    /* The walls series: when the world has walls now (walls move, so each
     * snapshot draws them at its time); the planes' squares sized now. */
    output->walls_vtu = any_vtu && fd_vtu_wall_count(world) > 0;
    output->plane_square = fd_vtu_plane_square_around(world);
    if (settings->trajectory) {
        output->trajectory = fd_trajectory_open(world, output->settings.directory, settings->trajectory_contacts,
                                                 !settings->trajectory_uncompressed, settings->direct_io,
                                                 &output->write_rates);
        if (!output->trajectory) {
            output_free(output);
            return NULL;
        }
    }
    return output;
}

/* Bytes in the output's files so far; the rows (headers left out) of the
 * CSV files sampled at row times and of those written every step. */
static double written_bytes(const fd_output* output, double* sampled_rows, double* stepped_rows)
{
    const csv_file* sampled[5] = {&output->bodies, &output->contacts, &output->energy, &output->walls,
                                  &output->outlets};
    const csv_file* stepped[2] = {&output->events, &output->solver};
    double written = (double)(output->snapshot_bytes + output->index_bytes);
    *sampled_rows = *stepped_rows = 0.0;
    for (int i = 0; i < 5; ++i) {
        written += (double)sampled[i]->written;
        *sampled_rows += (double)(sampled[i]->written - sampled[i]->header);
    }
    for (int i = 0; i < 2; ++i) {
        written += (double)stepped[i]->written;
        *stepped_rows += (double)(stepped[i]->written - stepped[i]->header);
    }
    return written + (double)fd_trajectory_bytes(output->trajectory);
}

fd_output_cost fd_output_get_cost(const fd_output* output)
{
    if (!output) {
        return (fd_output_cost){0};
    }
    double sampled_rows, stepped_rows;
    return (fd_output_cost){.bytes = written_bytes(output, &sampled_rows, &stepped_rows),
                            .seconds = output->write_seconds,
                            .direct_bytes = (double)output->write_rates.bytes[1],
                            .cached_bytes = (double)output->write_rates.bytes[0]};
}

double fd_output_projected_bytes(const fd_output* output, const fd_world* world, double duration)
{
    if (!output || !world) {
        return 0.0;
    }
    double sampled_rows, stepped_rows;
    double written = written_bytes(output, &sampled_rows, &stepped_rows);
    /* What is still due: row times and snapshots by their schedules (a
     * first write at t = 0, then one per interval, or one per step), and
     * the per-step rows at every step. */
    double dt = fd_world_time_step(world);
    double steps = floor(duration / dt + 0.5);
    double done_steps = (double)fd_world_step_count(world);
    double due_times = output->csv.interval < 0.0  ? 0.0
                       : output->csv.interval == 0.0 ? steps + 1.0
                                                     : floor(duration / output->csv.interval + 0.5) + 1.0;
    double due_snapshots = output->vtu.interval <= 0.0 ? 0.0 : floor(duration / output->vtu.interval + 0.5) + 1.0;
    /* A step is never written twice: an interval below the step writes every step. */
    due_times = fmin(due_times, steps + 1.0);
    due_snapshots = fmin(due_snapshots, steps + 1.0);
    /* The trajectory's frames, like the snapshots: bytes per frame so far times the frames still due. */
    int64_t frames = fd_trajectory_frame_count(output->trajectory);
    const double frame_interval = output->trajectory_schedule.interval;
    double due_frames = frame_interval < 0.0    ? 0.0
                        : frame_interval == 0.0 ? steps + 1.0
                                                : floor(duration / frame_interval + 0.5) + 1.0;
    due_frames = fmin(due_frames, steps + 1.0);
    double projected = written;
    if (frames > 0 && due_frames > (double)frames) {
        projected += (double)fd_trajectory_bytes(output->trajectory) / (double)frames * (due_frames - (double)frames);
    }
    if (output->csv_times > 0 && due_times > (double)output->csv_times) {
        projected += sampled_rows / (double)output->csv_times * (due_times - (double)output->csv_times);
    }
    if (output->snapshot_count > 0 && due_snapshots > (double)output->snapshot_count) {
        projected += (double)output->snapshot_bytes / output->snapshot_count *
                     (due_snapshots - (double)output->snapshot_count);
    }
    if (output->step_rows > 0 && steps + 1.0 > done_steps + 1.0) {
        projected += stepped_rows / (double)output->step_rows * (steps - done_steps);
    }
    return projected;
}

/* The next row of a schedule whose interval changes: the first multiple of
 * the new interval after the row written last (or after now). */
static void schedule_set_interval(fd_schedule* schedule, double interval, double time, double time_step)
{
    schedule->interval = interval;
    if (interval > 0.0) {
        double k = floor((time + 0.5 * time_step) / interval) + 1.0;
        schedule->next_time = schedule->last_step < 0 ? 0.0 : k * interval;
    }
}

void fd_output_set_intervals(fd_output* output, const fd_world* world, double csv_interval, double vtu_interval)
{
    if (!output || !world || !(csv_interval >= 0.0) || !(vtu_interval >= 0.0)) {
        return;
    }
    double time = fd_world_time(world), dt = fd_world_time_step(world);
    if (output->csv.interval >= 0.0) {
        schedule_set_interval(&output->csv, csv_interval, time, dt);
    }
    if (output->settings.vtu_interval > 0.0) {
        schedule_set_interval(&output->vtu, vtu_interval > 0.0 ? vtu_interval : -1.0, time, dt);
    }
}

bool fd_output_writes_contacts(const fd_output* output)
{
    return output && (output->contacts.open || output->vtu.interval >= 0.0 ||
                      fd_trajectory_writes_contacts(output->trajectory));
}

bool fd_output_wants_contacts(const fd_output* output, const fd_world* world)
{
    if (!output || !world) {
        return false;
    }
    double dt = fd_world_time_step(world);
    double time = fd_world_time(world) + dt;
    int64_t step = fd_world_step_count(world) + 1;
    return (output->contacts.open && schedule_due(&output->csv, time, step, dt)) ||
           schedule_due(&output->vtu, time, step, dt) ||
           (fd_trajectory_writes_contacts(output->trajectory) &&
            schedule_due(&output->trajectory_schedule, time, step, dt));
}

static fd_status output_write(fd_output* output, const fd_world* world);

fd_status fd_output_write(fd_output* output, const fd_world* world)
{
    if (!output || !world) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "output: output and world are required");
    }
    double start = fd_write_clock();
    fd_status status = output_write(output, world);
    output->write_seconds += fd_write_clock() - start;
    return status;
}

static fd_status output_write(fd_output* output, const fd_world* world)
{
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
    if (status == FD_OK && schedule_due(&output->trajectory_schedule, time, step, dt)) {
        status = fd_trajectory_write(output->trajectory, world);
        schedule_mark(&output->trajectory_schedule, time, step, dt);
    }
    if (status == FD_OK && output->events.open && output->events_step != step) {
        status = write_events_csv(output, world);
        output->events_step = step;
    }
    if ((output->events.open && output->events_step != step) || (output->solver.open && output->solver_step != step)) {
        output->step_rows += 1; /* a step whose events and solver row go out now */
    }
    /* The solver's iterations and residual: every step, not sampled. */
    if (status == FD_OK && output->solver.open && output->solver_step != step) {
        fd_solver_stats stats = fd_world_solver_stats(world);
        fd_text* text = &output->solver.block.text;
        char prefix[2 * FD_NUMBER_TEXT_MAX + 4];
        row_prefix(prefix, time, step);
        fd_text_append(text, prefix, strlen(prefix));
        fd_text_integer(text, stats.iterations);
        text_value(text, stats.residual);
        fd_text_char(text, ',');
        fd_text_integer(text, stats.contacts);
        fd_text_char(text, '\n');
        status = flush_rows(output, &output->solver, true);
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
        if (status == FD_OK && output->trajectory_schedule.interval >= 0.0 &&
            output->trajectory_schedule.last_step != step) {
            status = fd_trajectory_write(output->trajectory, world);
            schedule_mark(&output->trajectory_schedule, time, step, dt);
        }
    }
    fd_status closed = fd_trajectory_close(output->trajectory);
    output->trajectory = NULL;
    status = status == FD_OK ? closed : status;
    csv_file* files[7] = {&output->bodies, &output->contacts, &output->energy,
                          &output->events, &output->solver,   &output->walls, &output->outlets};
    for (int i = 0; i < 7; ++i) {
        if (files[i]->open && !close_csv(files[i]) && status == FD_OK) {
            status = fd_fail(FD_ERR_IO, "output: closing %s failed: %s", files[i]->name, strerror(errno));
        }
    }
    output_free(output);
    return status;
}
