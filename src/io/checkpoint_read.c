/* Reading a checkpoint back into a world (fd_world_read_checkpoint), and
 * its scene group for fd_scene_resume. The layout and why: checkpoint.c.
 *
 * The order matters: what the scene built is checked first (fingerprints,
 * stepper, the bodies the scene made), then the bodies the run added are
 * created again and every state array is read over the world's; then the
 * world is prepared without a force pass (the checkpoint's forces are the
 * ones the next kick uses), the laws are compared (inherited laws exist only
 * after prepare), and the contacts are put into a neighbour list built at the
 * restored state. Last, the restored bodies must hash as they did when the
 * checkpoint was written.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "complementarity/complementarity.h"
#include "core/error.h"
#include "core/grow.h"
#include "engine/engine.h"
#include "io/checkpoint.h"
#include "io/checkpoint_hdf5.h"
#include "io/checkpoint_layout.h"

typedef struct reader {
    fd_h5_file file;
    fd_world* world;
    int64_t body_count;
    int64_t removed_count;
    bool contacts_recorded; /* the contacts group holds every contact's record (read_contact_set) */
} reader;

/* Reads the datasets of one group of the checkpoint (read_section opens it). */
typedef fd_status (*section_reader)(reader* r, hid_t group);

/* Opens a checkpoint and checks its format and version. */
static fd_status open_checkpoint(const char* path, fd_h5_file* file)
{
    file->path = path;
    file->id = -1;
    FILE* probe = fopen(path, "rb");
    if (probe == NULL) {
        return fd_fail(FD_ERR_IO, "checkpoint '%s': cannot open it: %s", path, strerror(errno));
    }
    fclose(probe);
    if (H5Fis_hdf5(path) <= 0) {
        return fd_fail(FD_ERR_PARSE, "checkpoint '%s': not an HDF5 file", path);
    }
    file->id = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file->id < 0) {
        return fd_fail(FD_ERR_IO, "checkpoint '%s': cannot open it as HDF5", path);
    }
    char format[64];
    int64_t version = 0;
    if (fd_h5_get_string(file, file->id, "format", format, sizeof format) != FD_OK ||
        strcmp(format, FD_CHECKPOINT_FORMAT_NAME) != 0) {
        return fd_fail(FD_ERR_PARSE, "checkpoint '%s': an HDF5 file, but not a fricdem checkpoint (no format "
                       "attribute '" FD_CHECKPOINT_FORMAT_NAME "')", path);
    }
    fd_status s = fd_h5_get_i64(file, file->id, "format_version", &version);
    if (s == FD_OK && version != FD_CHECKPOINT_FORMAT) {
        char written_by[64] = "?";
        fd_h5_get_string(file, file->id, "fricdem_version", written_by, sizeof written_by);
        return fd_fail(FD_ERR_PARSE,
                       "checkpoint '%s': format version %lld (written by fricdem %s); this fricdem %s reads version "
                       "%d only", path, (long long)version, written_by, FRICDEM_VERSION_STRING,
                       FD_CHECKPOINT_FORMAT);
    }
    return s;
}

static fd_status check_prints(reader* r, int first, int end)
{
    uint64_t prints[FD_PRINT_COUNT];
    fd_checkpoint_fingerprints(r->world, prints);
    for (int k = first; k < end; ++k) {
        uint64_t stored = 0;
        fd_status s = fd_h5_get_u64(&r->file, r->file.id, fd_checkpoint_print_attributes[k], &stored);
        if (s != FD_OK) {
            return s;
        }
        if (stored != prints[k]) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "checkpoint '%s' belongs to a different scene: its %s differ from this world's (was the "
                           "scene file changed, or a --set given that changes the physics?)",
                           r->file.path, fd_checkpoint_print_meanings[k]);
        }
    }
    return FD_OK;
}

/* Takes row i of a table (checkpoint_layout.h) into the world or into
 * `into`: the i-th inlet, moving wall or outlet. */
typedef fd_status (*row_reader)(reader* r, int64_t i, const fd_h5_table* table, void* into);

/* A section that is a table of `rows` rows, each taken by `take`. */
static fd_status read_table(reader* r, hid_t group, const fd_h5_column* columns, int column_count, int64_t rows,
                            row_reader take, void* into)
{
    fd_h5_table table;
    fd_status s = fd_h5_table_allocate(&table, columns, column_count, rows);
    if (s == FD_OK) s = fd_h5_table_read(&r->file, group, &table);
    for (int64_t i = 0; s == FD_OK && i < rows; ++i) {
        s = take(r, i, &table, into);
    }
    fd_h5_table_free(&table);
    return s;
}

/* The inlets' progress column alone (a table of that one column): adds the
 * spheres an inlet had inserted to *(int64_t*)total. */
static fd_status add_inserted(reader* r, int64_t i, const fd_h5_table* progress, void* total)
{
    *(int64_t*)total += fd_h5_int64s(progress, 0, i)[0];
    return FD_OK;
}

/* The spheres the checkpoint's inlets had inserted, all together. */
static fd_status inserted_by_inlets(reader* r, int64_t* total)
{
    *total = 0;
    int n = r->world->inlet_count; /* the checkpoint's too: the inlets' fingerprints agree */
    hid_t group = fd_h5_group_open(&r->file, r->file.id, "inlets");
    fd_status s = group < 0 ? FD_ERR_PARSE
                            : read_table(r, group, &fd_checkpoint_inlet_columns[FD_INLET_PROGRESS], 1, n,
                                         add_inserted, total);
    fd_h5_close_group(group);
    return s;
}

static fd_status check_root(reader* r)
{
    fd_world* world = r->world;
    const fd_h5_file* f = &r->file;
    if (world->step_count != 0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "checkpoint '%s': read it into a world freshly built from its scene (this one has run %lld "
                       "steps)", f->path, (long long)world->step_count);
    }
    char stepper[32];
    fd_status s = fd_h5_get_string(f, f->id, "stepper", stepper, sizeof stepper);
    if (s == FD_OK && strcmp(stepper, fd_checkpoint_stepper_name(world->def.stepper)) != 0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "checkpoint '%s' is of a world with the %s stepper, this world has "
                       "the %s stepper: a different scene",
                       f->path, stepper, fd_checkpoint_stepper_name(world->def.stepper));
    }
    if (s == FD_OK) s = check_prints(r, FD_PRINT_WORLD, FD_PRINT_LAWS);
    if (s == FD_OK) s = check_prints(r, FD_PRINT_INLETS, FD_PRINT_COUNT);
    int64_t ledger = 0;
    if (s == FD_OK) s = fd_h5_get_i64(f, f->id, "energy_ledger", &ledger);
    if (s == FD_OK && world->def.energy_ledger && !ledger) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "checkpoint '%s' was written with the energy ledger off, and this world keeps it (world."
                       "energy_ledger or output.energy_csv): a resumed run cannot switch the ledger on, the books "
                       "before the checkpoint are unknown", f->path);
    }
    /* The bodies the run added are the inlets' spheres: the world must have
     * been built with all the others. Each sphere took a new slot or a
     * removed body's, so the checkpoint's slots are the scene's plus the
     * spheres, less up to one per body removed. */
    int64_t inserted = 0;
    if (s == FD_OK) s = fd_h5_get_i64(f, f->id, "body_count", &r->body_count);
    if (s == FD_OK) s = fd_h5_get_i64(f, f->id, "removed_count", &r->removed_count);
    if (s == FD_OK) s = inserted_by_inlets(r, &inserted);
    int64_t reused = world->body_count + inserted - r->body_count;
    if (s == FD_OK && (reused < 0 || reused > r->removed_count || r->body_count > INT32_MAX)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "checkpoint '%s' holds %lld bodies, %lld of them spheres from inlets; this world was built with "
                       "%d: a different scene", f->path, (long long)r->body_count, (long long)inserted,
                       world->body_count);
    }
    return s;
}

static const char* shape_name(int shape)
{
    static const char* const names[] = {"sphere", "plane", "ellipsoid", "cylinder", "disk", "mesh"};
    return shape >= 0 && shape < (int)(sizeof names / sizeof names[0]) ? names[shape] : "unknown shape";
}

/* A scene's body against the checkpoint's record of it: the same kind,
 * shape, size, material and mass, bit for bit. */
static fd_status check_body(reader* r, int b, const fd_checkpoint_identity* stored, const fd_checkpoint_identity* built)
{
    bool same = stored->type[b] == built->type[b] && stored->shape[b] == built->shape[b] &&
                memcmp(&stored->shape_size[b], &built->shape_size[b], sizeof(fd_vec3)) == 0 &&
                stored->material[b] == built->material[b] && memcmp(&stored->mass[b], &built->mass[b], 8) == 0 &&
                strcmp(stored->names[b], built->names[b]) == 0;
    if (same) {
        return FD_OK;
    }
    return fd_fail(FD_ERR_INVALID_ARGUMENT,
                   "checkpoint '%s' belongs to a different scene: its body #%d is '%s', a %s %s (size %g m, "
                   "material #%d, mass %.17g kg); this world's is '%s', a %s %s (size %g m, material #%d, mass "
                   "%.17g kg)",
                   r->file.path, b, stored->names[b], stored->type[b] == FD_BODY_STATIC ? "static" : "dynamic",
                   shape_name(stored->shape[b]), stored->shape_size[b].x, stored->material[b], stored->mass[b],
                   built->names[b], built->type[b] == FD_BODY_STATIC ? "static" : "dynamic",
                   shape_name(built->shape[b]), built->shape_size[b].x, built->material[b], built->mass[b]);
}

/* A body that the run added after the scene was built (an inlet's sphere),
 * created again from its record in slot b (the next one the world hands
 * out); a removed body's slot (stored NULL) as a static sphere, removed
 * again by the caller. */
static fd_status create_body(reader* r, int b, const fd_checkpoint_identity* stored, const fd_body_extra* extra)
{
    fd_world* world = r->world;
    fd_body_def def = fd_default_body_def();
    if (stored == NULL) {
        def.type = FD_BODY_STATIC;
        def.shape.radius = 1.0;
        def.material = (fd_material_id){1};
        fd_body_id id = fd_world_create_body(world, &def);
        return !fd_body_id_is_null(id) && id.index1 == b + 1
                   ? FD_OK
                   : fd_fail(FD_ERR_PARSE, "checkpoint '%s': cannot hold the slot of removed body #%d", r->file.path,
                             b);
    }
    def.name = stored->names[b];
    def.type = (fd_body_type)stored->type[b];
    def.shape.type = (fd_shape_type)stored->shape[b];
    def.shape.radius = stored->shape_size[b].x;
    def.shape.semi_axes = stored->shape_size[b];
    def.shape.plane_normal = stored->shape_size[b];
    def.material = (fd_material_id){stored->material[b] + 1};
    def.mass = stored->mass[b];
    def.inertia = def.type == FD_BODY_DYNAMIC ? stored->inertia[b] : fd_v3(0, 0, 0);
    def.lock_translation = (uint32_t)stored->locks[2 * b];
    def.lock_rotation = (uint32_t)stored->locks[2 * b + 1];
    if (extra != NULL) {
        def.lock_frame = extra->lock_frame;
        def.external_force = extra->external_force;
        def.external_torque = extra->external_torque;
        def.friction_axis = extra->friction_axis;
        def.friction_force = extra->friction_force;
    }
    if (stored->material[b] < 0 || stored->material[b] >= world->material_count) {
        return fd_fail(FD_ERR_PARSE, "checkpoint '%s': body #%d has material #%d, which this world lacks",
                       r->file.path, b, stored->material[b]);
    }
    fd_body_id id = fd_world_create_body(world, &def);
    if (fd_body_id_is_null(id) || id.index1 != b + 1) {
        char message[1024];
        snprintf(message, sizeof message, "%s", fd_last_error());
        return fd_fail(FD_ERR_PARSE, "checkpoint '%s': cannot create body #%d ('%s') again: %s", r->file.path, b,
                       stored->names[b], message);
    }
    return FD_OK;
}

/* What the run did to the slots: per slot whether it is a removed body's,
 * its generation, and the stack of removed slots; original[b]: slot b
 * still holds the body created in it first (generation 1, not removed). */
typedef struct slot_record {
    int32_t* removed;
    uint32_t* generation;
    int32_t* free;
    int64_t free_count;
    bool* original;
} slot_record;

static void free_slots_read(slot_record* s)
{
    FD_FREE_ALL(s->removed, s->generation, s->free, s->original);
}

static fd_status read_slots(reader* r, hid_t group, slot_record* out)
{
    const fd_h5_file* f = &r->file;
    int64_t n = r->body_count;
    size_t count = (size_t)(n > 0 ? n : 1);
    out->free_count = fd_h5_rows(f, group, "free_slots");
    out->removed = malloc(count * sizeof *out->removed);
    out->generation = malloc(count * sizeof *out->generation);
    out->original = malloc(count * sizeof *out->original);
    out->free = malloc((size_t)(out->free_count > 0 ? out->free_count : 1) * sizeof *out->free);
    if (out->free_count < 0) {
        return FD_ERR_PARSE;
    }
    if (!out->removed || !out->generation || !out->original || !out->free) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld bodies", (long long)n);
    }
    hsize_t one[1] = {fd_checkpoint_rows_of(n)}, stack[1] = {fd_checkpoint_rows_of(out->free_count)};
    fd_status s = fd_h5_read(f, group, "removed", H5T_NATIVE_INT32, 1, one, out->removed);
    if (s == FD_OK) s = fd_h5_read(f, group, "generation", H5T_NATIVE_UINT32, 1, one, out->generation);
    if (s == FD_OK) s = fd_h5_read(f, group, "free_slots", H5T_NATIVE_INT32, 1, stack, out->free);
    int64_t tombstones = 0;
    for (int64_t b = 0; s == FD_OK && b < n; ++b) {
        tombstones += out->removed[b] != 0;
        out->original[b] = out->removed[b] == 0 && out->generation[b] == 1;
    }
    /* Every removed slot once on the stack, nothing else. */
    bool valid = s == FD_OK && tombstones == out->free_count;
    for (int64_t k = 0; valid && k < out->free_count; ++k) {
        int32_t b = out->free[k];
        valid = b >= 0 && b < n && out->removed[b] == 1;
        if (valid) {
            out->removed[b] = 2; /* seen */
        }
    }
    for (int64_t b = 0; valid && b < n; ++b) {
        valid = out->removed[b] != 1;
        out->removed[b] = out->removed[b] != 0;
    }
    if (s == FD_OK && !valid) {
        s = fd_fail(FD_ERR_PARSE, "checkpoint '%s': its removed bodies' slots do not match its stack of free slots (a "
                    "damaged checkpoint)", f->path);
    }
    return s;
}

/* The slots as the checkpoint has them: the scene's bodies that the run
 * removed are removed again; the bodies beyond the scene's are created
 * again in their slots (a removed one's as a stand-in, removed again); the
 * bodies that took a scene body's slot are created in it; then the
 * generations and the stack of free slots are the checkpoint's. */
static fd_status put_back_slots(reader* r, const slot_record* slots, const fd_checkpoint_identity* stored,
                                const int32_t* extra_body, const fd_body_extra* extras, int64_t extra_count)
{
    fd_world* world = r->world;
    int64_t n = r->body_count;
    int scene_bodies = world->body_count;
    int32_t* gone = malloc((size_t)(scene_bodies > 0 ? scene_bodies : 1) * sizeof *gone);
    if (gone == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %d bodies", scene_bodies);
    }
    int gone_count = 0;
    for (int b = 0; b < scene_bodies; ++b) {
        if (!slots->original[b]) {
            gone[gone_count++] = b;
        }
    }
    fd_status s = fd_world_remove_slots(world, gone, gone_count);
    free(gone);
    /* The world hands out the slots in the order below, not its stack's. */
    world->free_slot_count = 0;
    const fd_body_extra* no_extra = NULL;
    for (int64_t b = scene_bodies, k = 0; s == FD_OK && b < n; ++b) {
        while (k < extra_count && extra_body[k] < b) {
            ++k;
        }
        bool live = !slots->removed[b];
        s = create_body(r, (int)b, live ? stored : NULL, live && k < extra_count && extra_body[k] == b ? &extras[k]
                                                                                                      : no_extra);
        int32_t slot = (int32_t)b;
        if (s == FD_OK && !live) {
            s = fd_world_remove_slots(world, &slot, 1);
            world->free_slot_count = 0;
        }
    }
    for (int b = 0, k = 0; s == FD_OK && b < scene_bodies; ++b) {
        while (k < extra_count && extra_body[k] < b) {
            ++k;
        }
        if (slots->original[b] || slots->removed[b]) {
            continue;
        }
        world->free_slots[0] = b; /* the scene body's slot, removed above: the next body takes it */
        world->free_slot_count = 1;
        s = create_body(r, b, stored, k < extra_count && extra_body[k] == b ? &extras[k] : no_extra);
    }
    if (s == FD_OK && slots->free_count > world->free_slot_capacity) {
        int32_t* grown = realloc(world->free_slots, (size_t)slots->free_count * sizeof *grown);
        s = grown ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory");
        if (grown) {
            world->free_slots = grown;
            world->free_slot_capacity = (int)slots->free_count;
        }
    }
    if (s == FD_OK) {
        for (int64_t b = 0; b < n; ++b) {
            world->generations[b] = slots->generation[b];
        }
        if (slots->free_count > 0) {
            memcpy(world->free_slots, slots->free, (size_t)slots->free_count * sizeof *slots->free);
        }
        world->free_slot_count = (int)slots->free_count;
        world->removed_count = r->removed_count;
    }
    return s;
}

static fd_status read_bodies(reader* r, hid_t group)
{
    fd_world* world = r->world;
    const fd_h5_file* f = &r->file;
    int64_t n = r->body_count;
    fd_checkpoint_identity stored, built;
    memset(&stored, 0, sizeof stored);
    memset(&built, 0, sizeof built);
    char** names = NULL;
    int32_t* extra_body = NULL;
    fd_body_extra* extras = NULL;
    bool allocated = fd_checkpoint_identity_allocate(&stored, n) &&
                     fd_checkpoint_identity_allocate(&built, world->body_count);
    fd_status s = allocated ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld bodies",
                                              (long long)n);
    fd_checkpoint_dataset identity[FD_CHECKPOINT_IDENTITY_DATASETS];
    fd_checkpoint_identity_datasets(&stored, n, identity);
    if (s == FD_OK) s = fd_checkpoint_transfer(f, group, identity, FD_CHECKPOINT_IDENTITY_DATASETS, FD_CHECKPOINT_READ);
    if (s == FD_OK) s = fd_h5_read_strings(f, group, "name", n, &names);
    for (int64_t b = 0; s == FD_OK && b < n; ++b) {
        stored.names[b] = names[b];
    }
    int64_t extra_count = s == FD_OK ? fd_h5_rows(f, group, "extra_body") : -1;
    if (s == FD_OK && extra_count < 0) {
        s = FD_ERR_PARSE;
    }
    if (s == FD_OK) {
        extra_body = malloc((size_t)(extra_count > 0 ? extra_count : 1) * sizeof *extra_body);
        extras = malloc((size_t)(extra_count > 0 ? extra_count : 1) * sizeof *extras);
        s = extra_body && extras ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    hsize_t extras_rows = fd_checkpoint_rows_of(extra_count);
    hsize_t extra_rows[1] = {extras_rows}, extra_dims[2] = {extras_rows, FD_CHECKPOINT_EXTRA_DOUBLES};
    if (s == FD_OK) s = fd_h5_read(f, group, "extra_body", H5T_NATIVE_INT32, 1, extra_rows, extra_body);
    if (s == FD_OK) s = fd_h5_read(f, group, "extra", H5T_NATIVE_DOUBLE, 2, extra_dims, extras);
    slot_record removed;
    memset(&removed, 0, sizeof removed);
    if (s == FD_OK) s = read_slots(r, group, &removed);
    /* The scene's bodies must be the checkpoint's first ones, unless the run
     * removed them; the others are created again. */
    int scene_bodies = world->body_count;
    for (int b = 0; s == FD_OK && b < scene_bodies; ++b) {
        if (removed.original[b]) {
            fd_checkpoint_identity_of(world, b, &built);
            s = check_body(r, b, &stored, &built);
        }
    }
    if (s == FD_OK && n > scene_bodies) {
        s = fd_world_reserve_bodies(world, (int)(n - scene_bodies));
    }
    if (s == FD_OK) s = put_back_slots(r, &removed, &stored, extra_body, extras, extra_count);
    free_slots_read(&removed);
    /* The extras as they were (a lock's held values are those of the body's creation). */
    for (int64_t k = 0; s == FD_OK && k < extra_count; ++k) {
        int b = extra_body[k];
        if (b < 0 || b >= n || world->masses[b].extra == NULL) {
            s = fd_fail(FD_ERR_INVALID_ARGUMENT, "checkpoint '%s': body #%d has locks or loads in the checkpoint "
                        "and none in this world: a different scene", f->path, b);
        } else {
            *world->masses[b].extra = extras[k];
        }
    }
    /* Into the arrays as the bodies created again left them. */
    fd_checkpoint_dataset state[FD_CHECKPOINT_STATE_DATASETS];
    fd_checkpoint_state_datasets(world, n, state);
    if (s == FD_OK) s = fd_checkpoint_transfer(f, group, state, FD_CHECKPOINT_STATE_DATASETS, FD_CHECKPOINT_READ);
    fd_h5_free_strings(names, n);
    free(extra_body);
    free(extras);
    fd_checkpoint_identity_free(&stored); /* its names were the strings freed above */
    fd_checkpoint_identity_free(&built);
    return s;
}

static fd_status read_world(reader* r, hid_t group)
{
    fd_world* world = r->world;
    const fd_h5_file* f = &r->file;
    int64_t has_reference = 0, iterations = 0, contacts = 0, step = 0;
    double residual = 0.0, time = 0.0;
    fd_status s = fd_h5_get_u64(f, group, "next_contact_id", &world->next_contact_id);
    if (s == FD_OK) s = fd_h5_get_i64(f, group, "has_energy_reference", &has_reference);
    if (s == FD_OK) s = fd_h5_get_f64(f, group, "energy_reference", &world->energy_reference);
    if (s == FD_OK) s = fd_h5_get_i64(f, group, "solver_iterations", &iterations);
    if (s == FD_OK) s = fd_h5_get_f64(f, group, "solver_residual", &residual);
    if (s == FD_OK) s = fd_h5_get_i64(f, group, "solver_contacts", &contacts);
    hsize_t totals[1] = {FD_CHECKPOINT_TOTALS_DOUBLES}, stored[1] = {FD_MECHANISM_COUNT};
    if (s == FD_OK) s = fd_h5_read(f, group, "energy_totals", H5T_NATIVE_DOUBLE, 1, totals, &world->energy_totals);
    if (s == FD_OK) s = fd_h5_read(f, group, "stored_energy", H5T_NATIVE_DOUBLE, 1, stored, world->stored_energy);
    hsize_t three[1] = {3};
    if (s == FD_OK && fd_h5_has(group, "gravity")) { /* a stage may have changed it */
        s = fd_h5_read(f, group, "gravity", H5T_NATIVE_DOUBLE, 1, three, &world->def.gravity);
    }
    if (s == FD_OK) s = fd_h5_get_i64(f, f->id, "step", &step);
    if (s == FD_OK) s = fd_h5_get_f64(f, f->id, "time", &time);
    if (s == FD_OK) {
        world->has_energy_reference = has_reference != 0;
        world->step_count = step;
        world->time = time;
        fd_complementarity_set_stats(world, (fd_solver_stats){(int)iterations, residual, (int)contacts});
    }
    return s;
}

static fd_status read_contact_set(reader* r, hid_t group)
{
    fd_world* world = r->world;
    const fd_h5_file* f = &r->file;
    int64_t flag = 0, count = fd_h5_rows(f, group, "id");
    fd_status s = count < 0 || count > INT32_MAX ? FD_ERR_PARSE : fd_h5_get_i64(f, group, "recorded", &flag);
    fd_checkpoint_rows rows;
    memset(&rows, 0, sizeof rows);
    fd_contact_set* set = &world->contacts;
    if (s == FD_OK && (!fd_checkpoint_rows_allocate(&rows, count) ||
                       (count > set->capacity &&
                        !fd_contact_set_resize(set, (int)count, world->history_stride, world->column_count)))) {
        s = fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld contacts", (long long)count);
    }
    fd_checkpoint_dataset datasets[FD_CHECKPOINT_SET_DATASETS];
    int used = fd_checkpoint_set_datasets(world, &rows, set, count, datasets);
    if (s == FD_OK) s = fd_checkpoint_transfer(f, group, datasets, used, FD_CHECKPOINT_READ);
    for (int64_t c = 0; s == FD_OK && c < count; ++c) {
        int i = rows.pairs[2 * c], j = rows.pairs[2 * c + 1];
        if (i < 0 || j <= i || j >= world->body_count || rows.law[c] < 0 || rows.law[c] >= world->law_count) {
            s = fd_fail(FD_ERR_PARSE, "checkpoint '%s': contact %lld names bodies %d and %d and law %d, which this "
                        "world lacks (a damaged checkpoint)", f->path, (long long)c, i, j, rows.law[c]);
            break;
        }
        fd_contact* contact = &set->contacts[c];
        memset(contact, 0, sizeof *contact);
        contact->key = (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
        contact->body_i = i;
        contact->body_j = j;
        contact->id = rows.id[c];
        contact->first_step = rows.first_step[c];
        contact->law = rows.law[c];
        contact->slip_flags = rows.slip[2 * c];
        contact->previous_slip_flags = rows.slip[2 * c + 1];
        contact->geometry = rows.geometry[c];
        contact->loads = rows.loads[c];
        memcpy(contact->energy, rows.energy + c * FD_MECHANISM_COUNT, sizeof contact->energy);
        contact->image_offset = rows.offset[c];
    }
    set->count = s == FD_OK ? (int)count : 0;
    world->previous.count = 0;
    r->contacts_recorded = flag != 0;
    fd_checkpoint_rows_free(&rows);
    return s;
}

static fd_status read_penalty(reader* r, hid_t group)
{
    const fd_h5_file* f = &r->file;
    fd_penalty_contacts c;
    memset(&c, 0, sizeof c);
    int64_t stride = 0, book_count = 0;
    c.count = fd_h5_rows(f, group, "id");
    fd_status s = c.count < 0 ? FD_ERR_PARSE : fd_h5_get_i64(f, group, "history_stride", &stride);
    int64_t lifetime_books = 0;
    if (s == FD_OK) s = fd_h5_get_i64(f, group, "book_count", &book_count);
    if (s == FD_OK) s = fd_h5_get_i64(f, group, "lifetime_books", &lifetime_books);
    if (s == FD_OK && (stride < 0 || stride > 4096 || book_count < 0 || book_count > FD_MECHANISM_COUNT)) {
        s = fd_fail(FD_ERR_PARSE, "checkpoint '%s': penalty contacts with %lld history values and %lld books each "
                    "(a damaged checkpoint)", f->path, (long long)stride, (long long)book_count);
    }
    c.history_stride = (int)stride;
    c.book_count = (int)book_count;
    c.lifetime_books = lifetime_books != 0;
    size_t n = (size_t)(c.count > 0 ? c.count : 1);
    if (s == FD_OK) {
        c.pairs = malloc(2 * n * sizeof *c.pairs);
        c.id = malloc(n * sizeof *c.id);
        c.first_step = malloc(n * sizeof *c.first_step);
        c.state = malloc(n * sizeof *c.state);
        c.springs = malloc(n * (size_t)(stride > 0 ? stride : 1) * sizeof *c.springs);
        c.books = book_count > 0 ? malloc(n * (size_t)book_count * sizeof *c.books) : NULL;
        if (!c.pairs || !c.id || !c.first_step || !c.state || !c.springs || (book_count > 0 && !c.books)) {
            s = fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for %lld contacts", (long long)c.count);
        }
    }
    fd_checkpoint_dataset datasets[FD_CHECKPOINT_PENALTY_DATASETS];
    int used = fd_checkpoint_penalty_datasets(&c, datasets);
    if (s == FD_OK) s = fd_checkpoint_transfer(f, group, datasets, used, FD_CHECKPOINT_READ);
    if (s == FD_OK) {
        s = fd_penalty_install(r->world, &c);
    }
    fd_penalty_contacts_free(&c);
    return s;
}

/* Whether the checkpoint's `kind` (inlet or outlet) i is the world's: the
 * same name, else a different scene (reported). */
static fd_status check_name(const reader* r, const char* kind, int64_t i, const char* stored, const char* built)
{
    if (strcmp(stored, built) == 0) {
        return FD_OK;
    }
    return fd_fail(FD_ERR_INVALID_ARGUMENT, "checkpoint '%s': %s %d is '%s' in the checkpoint and '%s' in this "
                   "world: a different scene", r->file.path, kind, (int)i, stored, built);
}

static fd_status take_inlet(reader* r, int64_t i, const fd_h5_table* table, void* unused)
{
    fd_inlet* inlet = &r->world->inlets[i];
    fd_status s = check_name(r, "inlet", i, *fd_h5_name(table, FD_INLET_NAME, i), inlet->name);
    if (s != FD_OK) {
        return s;
    }
    const int64_t* p = fd_h5_int64s(table, FD_INLET_PROGRESS, i);
    inlet->inserted = p[0];
    inlet->attempts = p[1];
    inlet->due_before = p[2];
    inlet->delayed = p[3];
    inlet->rejected = p[4];
    inlet->max_delay = *fd_h5_doubles(table, FD_INLET_MAX_DELAY, i);
    const double* pause = fd_h5_doubles(table, FD_INLET_PAUSE, i);
    inlet->paused = pause[0] != 0.0;
    inlet->paused_since = pause[1];
    inlet->paused_total = pause[2];
    return FD_OK;
}

static fd_status read_inlets(reader* r, hid_t group)
{
    return read_table(r, group, fd_checkpoint_inlet_columns, FD_INLET_COLUMNS, r->world->inlet_count, take_inlet,
                      NULL);
}

/* Moving wall k into walls[k], a static body of this world after the
 * previous wall's. */
static fd_status take_wall(reader* r, int64_t k, const fd_h5_table* table, void* walls)
{
    const fd_world* world = r->world;
    int64_t b = *fd_h5_int64s(table, FD_WALL_BODY, k);
    if (b < 0 || b >= world->body_count || world->colds[b].type != FD_BODY_STATIC ||
        (k > 0 && b <= *fd_h5_int64s(table, FD_WALL_BODY, k - 1))) {
        return fd_fail(FD_ERR_PARSE, "checkpoint '%s': moving wall %lld is body %lld, not a static body of this "
                       "world in ascending order (a damaged checkpoint)", r->file.path, (long long)k, (long long)b);
    }
    fd_moving_wall* wall = (fd_moving_wall*)walls + k;
    wall->body = (int32_t)b;
    fd_checkpoint_wall_from_row(fd_h5_doubles(table, FD_WALL_MOTION, k), wall);
    wall->turns_a_plane = world->colds[b].shape.type == FD_SHAPE_PLANE &&
                          fd_v3_length_squared(wall->motion.angular_velocity) > 0.0;
    return FD_OK;
}

/* The walls under a prescribed motion: those the scene set are replaced by
 * the checkpoint's (a stage may have started, changed or stopped them). */
static fd_status read_walls(reader* r, hid_t group)
{
    fd_world* world = r->world;
    int64_t n = fd_h5_rows(&r->file, group, "body");
    fd_moving_wall* walls = malloc((size_t)(n > 0 ? n : 1) * sizeof *walls);
    fd_status s = n < 0 ? FD_ERR_PARSE : walls ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    if (s == FD_OK) s = read_table(r, group, fd_checkpoint_wall_columns, FD_WALL_COLUMNS, n, take_wall, walls);
    if (s != FD_OK) {
        free(walls);
        return s;
    }
    free(world->moving_walls);
    world->moving_walls = walls;
    world->moving_wall_count = world->moving_wall_capacity = (int)n;
    return FD_OK;
}

static fd_status take_outlet(reader* r, int64_t i, const fd_h5_table* table, void* unused)
{
    fd_outlet* outlet = &r->world->outlets[i];
    fd_status s = check_name(r, "outlet", i, *fd_h5_name(table, FD_OUTLET_NAME, i), outlet->name);
    if (s != FD_OK) {
        return s;
    }
    outlet->removed = *fd_h5_int64s(table, FD_OUTLET_REMOVED, i);
    outlet->removed_mass = *fd_h5_doubles(table, FD_OUTLET_MASS, i);
    outlet->closed = *fd_h5_int64s(table, FD_OUTLET_CLOSED, i) != 0;
    return FD_OK;
}

static fd_status read_outlets(reader* r, hid_t group)
{
    /* The checkpoint's count too: the outlets' fingerprints agree. */
    return read_table(r, group, fd_checkpoint_outlet_columns, FD_OUTLET_COLUMNS, r->world->outlet_count,
                      take_outlet, NULL);
}

/* Reads one group of the checkpoint with its section_reader: every section
 * opens and closes its group here, so a reader sees only its group's datasets. */
static fd_status read_section(reader* r, const char* name, section_reader read)
{
    hid_t group = fd_h5_group_open(&r->file, r->file.id, name);
    fd_status s = group < 0 ? FD_ERR_PARSE : read(r, group);
    fd_h5_close_group(group);
    return s;
}

static fd_status read_checkpoint(reader* r)
{
    fd_world* world = r->world;
    fd_status s = check_root(r);
    if (s == FD_OK) s = read_section(r, "bodies", read_bodies);
    if (s == FD_OK) s = read_section(r, "world", read_world);
    if (s == FD_OK) s = read_section(r, "inlets", read_inlets);
    /* No walls group: written before walls could move, the scene's motions stand. */
    if (s == FD_OK && fd_h5_has(r->file.id, "walls")) s = read_section(r, "walls", read_walls);
    if (s == FD_OK) s = read_section(r, "outlets", read_outlets);
    if (s == FD_OK) {
        /* Set-up for the restored bodies, without a force pass: the forces
         * are the checkpoint's, and a pass would advance the springs again. */
        world->forces_current = true;
        world->prepared = false;
        s = fd_world_prepare(world);
    }
    if (s == FD_OK) s = check_prints(r, FD_PRINT_LAWS, FD_PRINT_LAWS + 1); /* after prepare: with the inherited laws */
    if (s == FD_OK) s = read_section(r, "contacts", read_contact_set);
    if (s == FD_OK && world->def.stepper == FD_STEPPER_PENALTY) {
        s = read_section(r, "penalty", read_penalty);
        world->penalty->unrecorded = !r->contacts_recorded;
    }
    world->event_count = 0;
    uint64_t stored_hash = 0;
    if (s == FD_OK) s = fd_h5_get_u64(&r->file, r->file.id, "state_hash", &stored_hash);
    if (s == FD_OK && stored_hash != fd_world_state_hash(world)) {
        s = fd_fail(FD_ERR_PARSE, "checkpoint '%s': the restored bodies hash to %016llx, the checkpoint says "
                    "%016llx (a damaged checkpoint)", r->file.path, (unsigned long long)fd_world_state_hash(world),
                    (unsigned long long)stored_hash);
    }
    return s;
}

fd_status fd_world_read_checkpoint(fd_world* world, const char* path)
{
    if (world == NULL || path == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "checkpoint: world and path are required");
    }
    fd_world_note_change(world);
    fd_h5_quiet quiet = fd_h5_silence();
    reader r = {{-1, path}, world, 0, 0, false};
    fd_status s = open_checkpoint(path, &r.file);
    if (s == FD_OK) {
        s = read_checkpoint(&r);
    }
    if (r.file.id >= 0) {
        H5Fclose(r.file.id);
    }
    fd_h5_restore(quiet);
    return s;
}

/* ---------------------------------------------------------------- the scene group */

void fd_checkpoint_scene_free(fd_checkpoint_scene_copy* scene)
{
    free(scene->source);
    fd_h5_free_strings(scene->overrides, scene->override_count);
    memset(scene, 0, sizeof *scene);
}

fd_status fd_checkpoint_read_scene(const char* path, fd_checkpoint_scene_copy* out)
{
    memset(out, 0, sizeof *out);
    fd_h5_quiet quiet = fd_h5_silence();
    fd_h5_file file;
    fd_status s = open_checkpoint(path, &file);
    hid_t group = -1;
    if (s == FD_OK && !fd_h5_has(file.id, "scene")) {
        s = fd_fail(FD_ERR_INVALID_ARGUMENT,
                    "checkpoint '%s' holds no scene (written by fd_world_write_checkpoint): build its world as it "
                    "was built and read it with fd_world_read_checkpoint", path);
    }
    if (s == FD_OK) {
        group = fd_h5_group_open(&file, file.id, "scene");
        s = group < 0 ? FD_ERR_PARSE : FD_OK;
    }
    if (s == FD_OK) s = fd_h5_get_string(&file, group, "path", out->path, sizeof out->path);
    int64_t size = s == FD_OK ? fd_h5_rows(&file, group, "source") : -1;
    int64_t count = s == FD_OK ? fd_h5_rows(&file, group, "overrides") : -1;
    if (s == FD_OK && (size < 0 || count < 0 || count > INT32_MAX)) {
        s = FD_ERR_PARSE;
    }
    if (s == FD_OK) {
        out->source = malloc((size_t)size + 1);
        s = out->source ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "checkpoint: out of memory for the scene");
    }
    hsize_t bytes[1] = {(hsize_t)size};
    if (s == FD_OK) s = fd_h5_read(&file, group, "source", H5T_NATIVE_UCHAR, 1, bytes, out->source);
    if (s == FD_OK) {
        out->source[size] = '\0';
        out->source_size = (size_t)size;
        s = fd_h5_read_strings(&file, group, "overrides", count, &out->overrides);
    }
    if (s == FD_OK) {
        out->override_count = (int)count;
    }
    out->stage = -1;
    if (s == FD_OK && H5Aexists(group, "stage") > 0) { /* written since scenes have stages */
        int64_t stage = -1;
        s = fd_h5_get_i64(&file, group, "stage", &stage);
        if (s == FD_OK) s = fd_h5_get_f64(&file, group, "stage_start_time", &out->stage_start_time);
        out->stage = (int)stage;
    }
    fd_h5_close_group(group);
    if (file.id >= 0) {
        H5Fclose(file.id);
    }
    fd_h5_restore(quiet);
    if (s != FD_OK) {
        fd_checkpoint_scene_free(out);
    }
    return s;
}

