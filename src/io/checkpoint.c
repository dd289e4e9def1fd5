/* Checkpoints: the whole dynamic state of a world in one HDF5 file, and that
 * state put back into a world built from the same scene, so that the run
 * goes on bit for bit as if it had never stopped (docs/restart.md).
 *
 * What a world is made of falls in two parts. What the scene builds
 * (settings, materials, laws, inlets, the bodies it lists, the outputs) is
 * not stored as such: the reader is given a world built the same way, and
 * the checkpoint keeps fingerprints of it to refuse a world built from
 * another scene. What the steps change is stored whole, every value as its
 * bits (no text, no rounding):
 *
 *   /                 format, format_version, fricdem_version, stepper, step,
 *                     time, time_step, body_count, removed_count, energy_ledger,
 *                     state_hash, fingerprint_{world,materials,laws,inlets,
 *                     outlets} (attributes)
 *   /world            next_contact_id, the ledger's reference balance, the
 *                     solver's last statistics (attributes); energy_totals,
 *                     stored_energy
 *   /bodies           position, orientation (w, x, y, z), velocity,
 *                     angular_velocity, force, torque (the loads the next
 *                     kick uses), and what each body is: name, type, shape,
 *                     shape_size, material, mass, inertia, locks, and the
 *                     extras (locks' frame and held values, external loads)
 *                     of the bodies that have them; per slot its generation
 *                     and whether it is a removed body's (removed), and the
 *                     stack of those slots that later bodies take (free_slots)
 *   /contacts         the world's contact set: the complementarity
 *                     stepper's contacts with their history (the warm
 *                     start), the penalty stepper's last recorded details
 *   /penalty          the penalty stepper's contacts: pair, id, first step,
 *                     state byte, springs, books (lifetime_books: each
 *                     contact's own over its life, else stored energies only)
 *   /inlets           each inlet's progress (its Philox counters) and pause
 *   /outlets          each outlet's bodies and mass removed so far
 *   /walls            the walls under a prescribed motion: body, motion,
 *                     the pose and time it started from (a stage may have
 *                     set them; a world's gravity is in /world)
 *   /scene            (fd_scene_write_checkpoint) the scene's text, path and
 *                     overrides, for `fricdem resume`
 *
 * Bodies beyond the scene's (the inlets' spheres, bodies added between
 * steps) are created again from what /bodies says they are; the scene's
 * bodies that were removed are removed again, and a body that took a
 * removed body's slot is created in it (checkpoint_read.c). Nothing that is
 * derived is stored: the neighbour list, the pair constants, the time step
 * limit are computed again, the same bits, and the restored state is checked
 * against the state hash stored with it.
 *
 * Atomic writing: the file is written as PATH.tmp in the same directory,
 * flushed to the disk, then renamed to PATH, so that PATH is always either
 * the previous checkpoint or the new one, whole, whenever the run stops.
 *
 * This file writes; checkpoint_read.c reads; checkpoint_layout.c holds what
 * both need.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "io/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "io/checkpoint_hdf5.h"
#include "io/checkpoint_layout.h"

/* ---------------------------------------------------------------- writing */

typedef struct writer {
    fd_h5_file file;
    const fd_world* world;
    const fd_checkpoint_scene* scene; /* the scene to restart from, or NULL */
} writer;

/* Writes the datasets of one group of the checkpoint (write_section creates it). */
typedef fd_status (*section_writer)(writer* w, hid_t group);

static fd_status write_root(writer* w)
{
    const fd_world* world = w->world;
    const fd_h5_file* f = &w->file;
    uint64_t prints[FD_PRINT_COUNT];
    fd_checkpoint_fingerprints(world, prints);
    fd_status s = fd_h5_set_string(f, f->id, "format", FD_CHECKPOINT_FORMAT_NAME);
    if (s == FD_OK) s = fd_h5_set_i64(f, f->id, "format_version", FD_CHECKPOINT_FORMAT);
    if (s == FD_OK) s = fd_h5_set_string(f, f->id, "fricdem_version", FRICDEM_VERSION_STRING);
    if (s == FD_OK) s = fd_h5_set_string(f, f->id, "stepper", fd_checkpoint_stepper_name(world->def.stepper));
    if (s == FD_OK) s = fd_h5_set_i64(f, f->id, "step", world->step_count);
    if (s == FD_OK) s = fd_h5_set_f64(f, f->id, "time", world->time);
    if (s == FD_OK) s = fd_h5_set_f64(f, f->id, "time_step", world->def.time_step);
    if (s == FD_OK) s = fd_h5_set_i64(f, f->id, "body_count", world->body_count);
    if (s == FD_OK) s = fd_h5_set_i64(f, f->id, "removed_count", world->removed_count);
    if (s == FD_OK) s = fd_h5_set_i64(f, f->id, "energy_ledger", world->def.energy_ledger);
    if (s == FD_OK) s = fd_h5_set_u64(f, f->id, "state_hash", fd_world_state_hash(world));
    for (int k = 0; s == FD_OK && k < FD_PRINT_COUNT; ++k) {
        s = fd_h5_set_u64(f, f->id, fd_checkpoint_print_attributes[k], prints[k]);
    }
    return s;
}

static fd_status write_world(writer* w, hid_t group)
{
    const fd_world* world = w->world;
    const fd_h5_file* f = &w->file;
    fd_solver_stats stats = fd_world_solver_stats(world);
    fd_status s = fd_h5_set_u64(f, group, "next_contact_id", world->next_contact_id);
    if (s == FD_OK) s = fd_h5_set_i64(f, group, "has_energy_reference", world->has_energy_reference);
    if (s == FD_OK) s = fd_h5_set_f64(f, group, "energy_reference", world->energy_reference);
    if (s == FD_OK) s = fd_h5_set_i64(f, group, "solver_iterations", stats.iterations);
    if (s == FD_OK) s = fd_h5_set_f64(f, group, "solver_residual", stats.residual);
    if (s == FD_OK) s = fd_h5_set_i64(f, group, "solver_contacts", stats.contacts);
    hsize_t totals[1] = {FD_CHECKPOINT_TOTALS_DOUBLES}, stored[1] = {FD_MECHANISM_COUNT};
    if (s == FD_OK) s = fd_h5_write(f, group, "energy_totals", H5T_NATIVE_DOUBLE, 1, totals, &world->energy_totals);
    if (s == FD_OK) s = fd_h5_write(f, group, "stored_energy", H5T_NATIVE_DOUBLE, 1, stored, world->stored_energy);
    hsize_t three[1] = {3};
    if (s == FD_OK) s = fd_h5_write(f, group, "gravity", H5T_NATIVE_DOUBLE, 1, three, &world->def.gravity);
    return s;
}

/* What a body is, the same for a scene's body and one created again. */
static fd_status write_bodies(writer* w, hid_t group)
{
    const fd_world* world = w->world;
    const fd_h5_file* f = &w->file;
    int64_t n = world->body_count;
    fd_checkpoint_identity id;
    if (!fd_checkpoint_identity_allocate(&id, n)) {
        fd_checkpoint_identity_free(&id);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld bodies", (long long)n);
    }
    int64_t extra_count = 0;
    int32_t* removed = malloc((size_t)(n > 0 ? n : 1) * sizeof *removed);
    uint32_t* generation = malloc((size_t)(n > 0 ? n : 1) * sizeof *generation);
    for (int b = 0; removed && generation && b < n; ++b) {
        fd_checkpoint_identity_of(world, b, &id);
        extra_count += world->masses[b].extra != NULL;
        removed[b] = world->is_removed[b];
        generation[b] = world->generations[b];
    }
    int32_t* extra_body = malloc((size_t)(extra_count > 0 ? extra_count : 1) * sizeof *extra_body);
    fd_body_extra* extras = malloc((size_t)(extra_count > 0 ? extra_count : 1) * sizeof *extras);
    bool allocated = extra_body && extras && removed && generation;
    fd_status s = allocated ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    for (int b = 0, k = 0; s == FD_OK && b < n; ++b) {
        if (world->masses[b].extra != NULL) {
            extra_body[k] = b;
            extras[k++] = *world->masses[b].extra;
        }
    }
    hsize_t rows = fd_checkpoint_rows_of(n), extras_rows = fd_checkpoint_rows_of(extra_count);
    hsize_t one[1] = {rows};
    hsize_t extra_rows[1] = {extras_rows}, extra_dims[2] = {extras_rows, FD_CHECKPOINT_EXTRA_DOUBLES};
    const hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT32;
    fd_checkpoint_dataset state[FD_CHECKPOINT_STATE_DATASETS], identity[FD_CHECKPOINT_IDENTITY_DATASETS];
    fd_checkpoint_state_datasets(world, n, state);
    fd_checkpoint_identity_datasets(&id, n, identity);
    if (s == FD_OK) s = fd_checkpoint_transfer(f, group, state, FD_CHECKPOINT_STATE_DATASETS, FD_CHECKPOINT_WRITE);
    if (s == FD_OK) {
        s = fd_checkpoint_transfer(f, group, identity, FD_CHECKPOINT_IDENTITY_DATASETS, FD_CHECKPOINT_WRITE);
    }
    if (s == FD_OK) s = fd_h5_write_strings(f, group, "name", id.names, n);
    if (s == FD_OK) s = fd_h5_write(f, group, "extra_body", I, 1, extra_rows, extra_body);
    if (s == FD_OK) s = fd_h5_write(f, group, "extra", D, 2, extra_dims, extras);
    hsize_t free_rows[1] = {fd_checkpoint_rows_of(world->free_slot_count)};
    if (s == FD_OK) s = fd_h5_write(f, group, "removed", I, 1, one, removed);
    if (s == FD_OK) s = fd_h5_write(f, group, "generation", H5T_NATIVE_UINT32, 1, one, generation);
    if (s == FD_OK) s = fd_h5_write(f, group, "free_slots", I, 1, free_rows, world->free_slots);
    free(extra_body);
    free(extras);
    free(removed);
    free(generation);
    fd_checkpoint_identity_free(&id);
    return s;
}

/* The world's contact set, field by field. */
static fd_status write_contact_set(writer* w, hid_t group)
{
    const fd_world* world = w->world;
    const fd_h5_file* f = &w->file;
    bool recorded = fd_world_contacts_recorded(world);
    const fd_contact_set* set = &world->contacts;
    int64_t count = recorded ? set->count : 0;
    fd_checkpoint_rows r;
    if (!fd_checkpoint_rows_allocate(&r, count)) {
        fd_checkpoint_rows_free(&r);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld contacts", (long long)count);
    }
    for (int64_t c = 0; c < count; ++c) {
        const fd_contact* contact = &set->contacts[c];
        r.pairs[2 * c] = contact->body_i;
        r.pairs[2 * c + 1] = contact->body_j;
        r.id[c] = contact->id;
        r.first_step[c] = contact->first_step;
        r.law[c] = contact->law;
        r.slip[2 * c] = contact->slip_flags;
        r.slip[2 * c + 1] = contact->previous_slip_flags;
        r.geometry[c] = contact->geometry;
        r.loads[c] = contact->loads;
        memcpy(r.energy + c * FD_MECHANISM_COUNT, contact->energy, sizeof contact->energy);
        r.offset[c] = contact->image_offset;
    }
    fd_checkpoint_dataset datasets[FD_CHECKPOINT_SET_DATASETS];
    int used = fd_checkpoint_set_datasets(world, &r, set, count, datasets);
    fd_status s = fd_h5_set_i64(f, group, "recorded", recorded);
    if (s == FD_OK) s = fd_checkpoint_transfer(f, group, datasets, used, FD_CHECKPOINT_WRITE);
    fd_checkpoint_rows_free(&r);
    return s;
}

static fd_status write_penalty(writer* w, hid_t group)
{
    const fd_h5_file* f = &w->file;
    fd_penalty_contacts c;
    fd_status s = fd_penalty_gather(w->world, &c);
    if (s != FD_OK) {
        return s;
    }
    if (s == FD_OK) s = fd_h5_set_i64(f, group, "history_stride", c.history_stride);
    if (s == FD_OK) s = fd_h5_set_i64(f, group, "book_count", c.book_count);
    if (s == FD_OK) s = fd_h5_set_i64(f, group, "lifetime_books", c.lifetime_books);
    fd_checkpoint_dataset datasets[FD_CHECKPOINT_PENALTY_DATASETS];
    int used = fd_checkpoint_penalty_datasets(&c, datasets);
    if (s == FD_OK) s = fd_checkpoint_transfer(f, group, datasets, used, FD_CHECKPOINT_WRITE);
    fd_penalty_contacts_free(&c);
    return s;
}

/* Puts the i-th inlet, moving wall or outlet of the world into row i of its
 * table (checkpoint_layout.h). */
typedef void (*row_writer)(const fd_world* world, int i, fd_h5_table* table);

/* A section that is a table of `rows` rows, each put by `put`. */
static fd_status write_table(writer* w, hid_t group, const fd_h5_column* columns, int column_count, int rows,
                             row_writer put)
{
    fd_h5_table table;
    fd_status s = fd_h5_table_allocate(&table, columns, column_count, rows);
    for (int i = 0; s == FD_OK && i < rows; ++i) {
        put(w->world, i, &table);
    }
    if (s == FD_OK) s = fd_h5_table_write(&w->file, group, &table);
    fd_h5_table_free(&table);
    return s;
}

static void put_inlet(const fd_world* world, int i, fd_h5_table* table)
{
    const fd_inlet* inlet = &world->inlets[i];
    *fd_h5_name(table, FD_INLET_NAME, i) = inlet->name;
    int64_t progress[5] = {inlet->inserted, inlet->attempts, inlet->due_before, inlet->delayed, inlet->rejected};
    memcpy(fd_h5_int64s(table, FD_INLET_PROGRESS, i), progress, sizeof progress);
    *fd_h5_doubles(table, FD_INLET_MAX_DELAY, i) = inlet->max_delay;
    double pause[3] = {inlet->paused ? 1.0 : 0.0, inlet->paused_since, inlet->paused_total};
    memcpy(fd_h5_doubles(table, FD_INLET_PAUSE, i), pause, sizeof pause);
}

static void put_wall(const fd_world* world, int k, fd_h5_table* table)
{
    *fd_h5_int64s(table, FD_WALL_BODY, k) = world->moving_walls[k].body;
    fd_checkpoint_wall_row(&world->moving_walls[k], fd_h5_doubles(table, FD_WALL_MOTION, k));
}

static void put_outlet(const fd_world* world, int i, fd_h5_table* table)
{
    const fd_outlet* outlet = &world->outlets[i];
    *fd_h5_name(table, FD_OUTLET_NAME, i) = outlet->name;
    *fd_h5_int64s(table, FD_OUTLET_REMOVED, i) = outlet->removed;
    *fd_h5_doubles(table, FD_OUTLET_MASS, i) = outlet->removed_mass;
    *fd_h5_int64s(table, FD_OUTLET_CLOSED, i) = outlet->closed ? 1 : 0;
}

static fd_status write_inlets(writer* w, hid_t group)
{
    return write_table(w, group, fd_checkpoint_inlet_columns, FD_INLET_COLUMNS, w->world->inlet_count, put_inlet);
}

static fd_status write_walls(writer* w, hid_t group)
{
    return write_table(w, group, fd_checkpoint_wall_columns, FD_WALL_COLUMNS, w->world->moving_wall_count, put_wall);
}

static fd_status write_outlets(writer* w, hid_t group)
{
    return write_table(w, group, fd_checkpoint_outlet_columns, FD_OUTLET_COLUMNS, w->world->outlet_count, put_outlet);
}

static fd_status write_scene(writer* w, hid_t group)
{
    const fd_h5_file* f = &w->file;
    const fd_checkpoint_scene* scene = w->scene;
    fd_status s = FD_OK;
    hsize_t bytes[1] = {(hsize_t)scene->source_size};
    /* Absolute, so that a resume from another directory finds what the
     * scene names relative to itself (a bodies_file). */
    char* absolute = scene->path != NULL ? realpath(scene->path, NULL) : NULL;
    const char* where = absolute != NULL ? absolute : (scene->path != NULL ? scene->path : "");
    if (s == FD_OK) s = fd_h5_set_string(f, group, "path", where);
    free(absolute);
    if (s == FD_OK) s = fd_h5_set_string(f, group, "name", scene->name != NULL ? scene->name : "");
    if (s == FD_OK) s = fd_h5_write(f, group, "source", H5T_NATIVE_UCHAR, 1, bytes, scene->source);
    if (s == FD_OK) s = fd_h5_write_strings(f, group, "overrides", scene->overrides, scene->override_count);
    if (s == FD_OK) s = fd_h5_set_i64(f, group, "stage", scene->stage);
    if (s == FD_OK) s = fd_h5_set_f64(f, group, "stage_start_time", scene->stage_start_time);
    return s;
}

/* Flushes a written file to the disk before it is renamed into place. */
static bool sync_file(const char* path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return false;
    }
    bool ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

/* Writes one group of the checkpoint with its section_writer: every section
 * creates and closes its group here, in the order they are called. */
static fd_status write_section(writer* w, const char* name, section_writer write)
{
    hid_t group = fd_h5_group_create(&w->file, w->file.id, name);
    fd_status s = group < 0 ? FD_ERR_IO : write(w, group);
    fd_h5_close_group(group);
    return s;
}

fd_status fd_checkpoint_write(const fd_world* world, const char* path, const fd_checkpoint_scene* scene)
{
    if (world == NULL || path == NULL || path[0] == '\0') {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "checkpoint: world and path are required");
    }
    if (!world->prepared || !world->forces_current || world->penalty->stage != 0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "checkpoint '%s': the world must be between steps, prepared and with its forces computed "
                       "(fd_world_prepare or fd_world_step first; not after a body was moved by hand)",
                       path);
    }
    size_t length = strlen(path);
    char* temporary = malloc(length + 5);
    if (temporary == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory");
    }
    snprintf(temporary, length + 5, "%s.tmp", path);
    fd_h5_quiet quiet = fd_h5_silence();
    writer w = {{H5Fcreate(temporary, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), temporary}, world, scene};
    fd_status s = FD_OK;
    if (w.file.id < 0) {
        s = fd_fail(FD_ERR_IO, "checkpoint: cannot create '%s' (does its directory exist, and may it be written?)",
                    temporary);
    }
    if (s == FD_OK) s = write_root(&w);
    if (s == FD_OK) s = write_section(&w, "world", write_world);
    if (s == FD_OK) s = write_section(&w, "bodies", write_bodies);
    if (s == FD_OK) s = write_section(&w, "contacts", write_contact_set);
    if (s == FD_OK && world->def.stepper == FD_STEPPER_PENALTY) s = write_section(&w, "penalty", write_penalty);
    if (s == FD_OK) s = write_section(&w, "inlets", write_inlets);
    if (s == FD_OK) s = write_section(&w, "walls", write_walls);
    if (s == FD_OK) s = write_section(&w, "outlets", write_outlets);
    if (s == FD_OK && scene != NULL) s = write_section(&w, "scene", write_scene);
    if (s == FD_OK && H5Fflush(w.file.id, H5F_SCOPE_GLOBAL) < 0) {
        s = fd_fail(FD_ERR_IO, "checkpoint: cannot flush '%s'", temporary);
    }
    if (w.file.id >= 0 && H5Fclose(w.file.id) < 0 && s == FD_OK) {
        s = fd_fail(FD_ERR_IO, "checkpoint: cannot close '%s'", temporary);
    }
    fd_h5_restore(quiet);
    if (s == FD_OK && !sync_file(temporary)) {
        s = fd_fail(FD_ERR_IO, "checkpoint: cannot flush '%s' to the disk: %s", temporary, strerror(errno));
    }
    if (s == FD_OK && rename(temporary, path) != 0) {
        s = fd_fail(FD_ERR_IO, "checkpoint: cannot rename '%s' to '%s': %s", temporary, path, strerror(errno));
    }
    if (s != FD_OK) {
        remove(temporary); /* the previous checkpoint, if any, stays whole */
    }
    free(temporary);
    return s;
}

fd_status fd_world_write_checkpoint(const fd_world* world, const char* path)
{
    return fd_checkpoint_write(world, path, NULL);
}

fd_status fd_scene_write_checkpoint(const fd_scene* scene, const char* path)
{
    if (scene == NULL || scene->world == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "checkpoint: the scene has no world");
    }
    fd_checkpoint_scene source = {scene->path,
                                  scene->name,
                                  scene->source,
                                  scene->source_size,
                                  (const char* const*)scene->overrides,
                                  scene->override_count,
                                  scene->stage,
                                  scene->stage_start_time};
    return fd_checkpoint_write(scene->world, path, &source);
}

