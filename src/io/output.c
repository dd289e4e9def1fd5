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
 * are binary by default (output_vtu.c).
 *
 * This file owns the writer, its schedules, the VTU snapshots and their
 * PVD indexes and the API; the CSV files' rows are formatted in
 * output_csv.c, the trajectory in output_trajectory.c.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "collide/collide.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/math.h"
#include "fricdem/io.h"
#include "io/block_file.h"
#include "io/number_format.h"
#include "io/run_outputs.h"
#include "io/output_trajectory.h"
#include "io/output_vtu.h"

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

/* ---------------------------------------------------------------- helpers */

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

/* ---------------------------------------------------------------- VTU */

/* Rewrites NAME.pvd (via NAME.pvd.tmp and a rename) listing every snapshot. */
static fd_status write_pvd(fd_output* output, const char* name)
{
    char final_path[FD_PATH_MAX + 64];
    snprintf(final_path, sizeof final_path, "%s", fd_output_path(output, "%s.pvd", name));
    const char* temporary = fd_output_path(output, "%s.pvd.tmp", name);
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
        fd_vtu_write_bodies(world, fd_output_path(output, "vtu/bodies_%06d.vtu", index), ids, count, &format);
    free(ids);
    if (status == FD_OK) {
        status = fd_output_check_contacts_recorded(world, "a contacts VTU snapshot");
    }
    if (status == FD_OK) {
        status = fd_vtu_write_contacts(world, fd_output_path(output, "vtu/contacts_%06d.vtu", index), &format);
    }
    if (status == FD_OK && output->walls_vtu) {
        status = fd_vtu_write_walls(world, fd_output_path(output, "vtu/walls_%06d.vtu", index), &output->plane_square,
                                    &format);
    }
    if (status != FD_OK) {
        return status;
    }
    output->snapshots[index] = (fd_snapshot){fd_world_time(world), fd_world_step_count(world)};
    output->snapshot_count = index + 1;
    output->snapshot_bytes += file_bytes(fd_output_path(output, "vtu/bodies_%06d.vtu", index)) +
                              file_bytes(fd_output_path(output, "vtu/contacts_%06d.vtu", index));
    status = write_pvd(output, "bodies");
    if (status == FD_OK) {
        status = write_pvd(output, "contacts");
    }
    if (output->walls_vtu) {
        output->snapshot_bytes += file_bytes(fd_output_path(output, "vtu/walls_%06d.vtu", index));
        if (status == FD_OK) {
            status = write_pvd(output, "walls");
        }
    }
    output->index_bytes = file_bytes(fd_output_path(output, "bodies.pvd")) +
                          file_bytes(fd_output_path(output, "contacts.pvd")) +
                          (output->walls_vtu ? file_bytes(fd_output_path(output, "walls.pvd")) : 0);
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
        fd_output_close_csv(files[i]);
    }
    fd_trajectory_close(output->trajectory);
    for (int t = 0; t < output->row_text_count; ++t) {
        fd_text_free(&output->row_texts[t]);
    }
    FD_FREE_ALL(output->row_texts, output->outlet_removed, output->outlet_mass, output->snapshots, output->path,
                output);
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
        status = make_directories(fd_output_path(output, "vtu"));
    }
    if (status != FD_OK) {
        output_free(output);
        return NULL;
    }
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
    if (!fd_output_open_csv_files(output, world, any_csv, outlets_csv)) {
        output_free(output);
        return NULL;
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
        int64_t bytes = fd_block_file_size(&sampled[i]->block);
        written += (double)bytes;
        *sampled_rows += (double)(bytes - sampled[i]->header);
    }
    for (int i = 0; i < 2; ++i) {
        int64_t bytes = fd_block_file_size(&stepped[i]->block);
        written += (double)bytes;
        *stepped_rows += (double)(bytes - stepped[i]->header);
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

bool fd_output_due(const fd_output* output, const fd_world* world)
{
    if (!output || !world) {
        return false;
    }
    double time = fd_world_time(world), dt = fd_world_time_step(world);
    int64_t step = fd_world_step_count(world);
    return schedule_due(&output->csv, time, step, dt) || schedule_due(&output->vtu, time, step, dt) ||
           schedule_due(&output->trajectory_schedule, time, step, dt);
}

/* Whether `schedule` is due at the end of the step the world takes next. */
static bool due_after_next_step(const fd_schedule* schedule, const fd_world* world)
{
    double dt = fd_world_time_step(world);
    return schedule_due(schedule, fd_world_time(world) + dt, fd_world_step_count(world) + 1, dt);
}

bool fd_output_wants_wall_reactions(const fd_output* output, const fd_world* world)
{
    if (!output || !world) {
        return false;
    }
    return (output->walls.open && due_after_next_step(&output->csv, world)) ||
           (output->walls_vtu && due_after_next_step(&output->vtu, world));
}

bool fd_output_wants_contacts(const fd_output* output, const fd_world* world)
{
    if (!output || !world) {
        return false;
    }
    return (output->contacts.open && due_after_next_step(&output->csv, world)) ||
           due_after_next_step(&output->vtu, world) ||
           (fd_trajectory_writes_contacts(output->trajectory) &&
            due_after_next_step(&output->trajectory_schedule, world));
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
        status = fd_output_write_csv_row(output, world);
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
        status = fd_output_write_events_csv(output, world);
        output->events_step = step;
    }
    if ((output->events.open && output->events_step != step) || (output->solver.open && output->solver_step != step)) {
        output->step_rows += 1; /* a step whose events and solver row go out now */
    }
    /* The solver's iterations and residual: every step, not sampled. */
    if (status == FD_OK && output->solver.open && output->solver_step != step) {
        status = fd_output_write_solver_row(output, world, time, step);
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
            status = fd_output_write_csv_row(output, world);
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
        if (files[i]->open && !fd_output_close_csv(files[i]) && status == FD_OK) {
            status = fd_fail(FD_ERR_IO, "output: closing %s failed: %s", files[i]->name, strerror(errno));
        }
    }
    output_free(output);
    return status;
}
