/* What a checkpoint holds, shared by its writer and its reader
 * (checkpoint_layout.h).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/checkpoint_layout.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* ---------------------------------------------------------------- tables */

const fd_h5_column fd_checkpoint_inlet_columns[FD_INLET_COLUMNS] = {
    [FD_INLET_NAME] = {"name", FD_H5_NAME, 1, false},
    /* inserted, attempts (the Philox counter of the next sphere), due_before, delayed, rejected */
    [FD_INLET_PROGRESS] = {"progress", FD_H5_INT64, 5, false},
    [FD_INLET_MAX_DELAY] = {"max_delay", FD_H5_DOUBLE, 1, false},
    /* paused (0 or 1), paused_since, paused_total (s); written since inlets could be paused */
    [FD_INLET_PAUSE] = {"pause", FD_H5_DOUBLE, 3, true},
};
const fd_h5_column fd_checkpoint_outlet_columns[FD_OUTLET_COLUMNS] = {
    [FD_OUTLET_NAME] = {"name", FD_H5_NAME, 1, false},
    [FD_OUTLET_REMOVED] = {"removed", FD_H5_INT64, 1, false},
    [FD_OUTLET_MASS] = {"removed_mass", FD_H5_DOUBLE, 1, false},
    /* 0 or 1; written since outlets could be closed by a stage */
    [FD_OUTLET_CLOSED] = {"closed", FD_H5_INT64, 1, true},
};
const fd_h5_column fd_checkpoint_wall_columns[FD_WALL_COLUMNS] = {
    [FD_WALL_BODY] = {"body", FD_H5_INT64, 1, false},
    [FD_WALL_MOTION] = {"motion", FD_H5_DOUBLE, FD_CHECKPOINT_WALL_DOUBLES, false},
};

/* ---------------------------------------------------------------- fingerprints */

const char* const fd_checkpoint_print_attributes[FD_PRINT_COUNT] = {
    "fingerprint_world", "fingerprint_materials", "fingerprint_laws", "fingerprint_inlets", "fingerprint_outlets"};
const char* const fd_checkpoint_print_meanings[FD_PRINT_COUNT] = {
    "world settings (gravity, time step, integrator, stepper and solver settings, contact margin, periodic box)",
    "materials", "contact laws", "inlets", "outlets"};

static void mix(uint64_t* hash, const void* data, size_t size)
{
    const unsigned char* bytes = data;
    for (size_t k = 0; k < size; ++k) {
        *hash = (*hash ^ bytes[k]) * 1099511628211ull;
    }
}
static void mix_double(uint64_t* hash, double value) { mix(hash, &value, sizeof value); }
static void mix_vec(uint64_t* hash, fd_vec3 v)
{
    mix_double(hash, v.x);
    mix_double(hash, v.y);
    mix_double(hash, v.z);
}
static void mix_int(uint64_t* hash, int64_t value) { mix(hash, &value, sizeof value); }
static void mix_text(uint64_t* hash, const char* text) { mix(hash, text, strlen(text) + 1); }

void fd_checkpoint_fingerprints(const fd_world* world, uint64_t prints[FD_PRINT_COUNT])
{
    for (int k = 0; k < FD_PRINT_COUNT; ++k) {
        prints[k] = 1469598103934665603ull;
    }
    const fd_world_def* def = &world->def;
    uint64_t* h = &prints[FD_PRINT_WORLD];
    mix_vec(h, world->created_gravity); /* a stage may have changed def.gravity: /world keeps it */
    mix_double(h, def->time_step);
    mix_int(h, def->integrator);
    mix_double(h, def->contact_margin);
    mix_int(h, def->stepper);
    if (def->stepper == FD_STEPPER_COMPLEMENTARITY) {
        const fd_complementarity_def* c = &def->complementarity;
        mix_int(h, c->solver);
        mix_int(h, c->max_iterations);
        mix_double(h, c->tolerance);
        mix_double(h, c->omega);
        mix_double(h, c->lambda);
        mix_double(h, c->recovery_speed);
        mix_int(h, c->cold_start);
    }
    for (int a = 0; a < 3; ++a) {
        mix_int(h, world->periodic.axis[a]);
        if (world->periodic.axis[a]) {
            mix_double(h, world->periodic.low[a]);
            mix_double(h, world->periodic.length[a]);
        }
    }
    h = &prints[FD_PRINT_MATERIALS];
    mix_int(h, world->material_count);
    for (int m = 0; m < world->material_count; ++m) {
        const fd_material* material = &world->materials[m];
        mix_text(h, material->name);
        mix_double(h, material->density);
        mix_double(h, material->youngs_modulus);
        mix_double(h, material->poisson_ratio);
    }
    h = &prints[FD_PRINT_LAWS];
    mix_int(h, world->law_count);
    for (int l = 0; l < world->law_count; ++l) {
        const fd_contact_law* law = &world->laws[l];
        mix_int(h, law->material_a);
        mix_int(h, law->material_b);
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            const fd_submodel* model = law->submodel[m];
            mix_text(h, model != NULL ? model->info.name : "");
            for (int p = 0; model != NULL && p < model->info.param_count && p < FD_MAX_SUBMODEL_PARAMS; ++p) {
                mix_double(h, law->params[m][p]);
            }
        }
        mix_int(h, law->history_size);
    }
    h = &prints[FD_PRINT_INLETS];
    mix_int(h, world->inlet_count);
    for (int i = 0; i < world->inlet_count; ++i) {
        const fd_inlet_def* d = &world->inlets[i].def;
        mix_text(h, d->name);
        mix_int(h, d->material.index1);
        mix_double(h, d->radius);
        mix_double(h, d->radius_spread);
        mix_int(h, d->size_count);
        for (int s = 0; s < d->size_count; ++s) {
            mix_double(h, d->size_radius[s]);
            mix_double(h, d->size_fraction[s]);
        }
        mix_int(h, d->shape);
        mix_vec(h, d->center);
        mix_double(h, d->disk_radius);
        mix_vec(h, d->normal);
        mix_double(h, d->thickness);
        mix_vec(h, d->box_min);
        mix_vec(h, d->box_max);
        mix_double(h, d->rate);
        mix_int(h, d->count);
        mix_double(h, d->start_time);
        mix_vec(h, d->velocity);
        mix_double(h, d->velocity_spread);
        mix_int(h, (int64_t)d->seed);
        mix_int(h, d->max_attempts);
    }
    h = &prints[FD_PRINT_OUTLETS];
    mix_int(h, world->outlet_count);
    for (int i = 0; i < world->outlet_count; ++i) {
        const fd_outlet_def* d = &world->outlets[i].def;
        mix_text(h, d->name);
        mix_int(h, d->shape);
        mix_vec(h, d->box_min);
        mix_vec(h, d->box_max);
        mix_vec(h, d->point);
        mix_vec(h, d->normal);
        mix_vec(h, d->center);
        mix_double(h, d->radius);
        mix_double(h, d->start_time);
    }
}

const char* fd_checkpoint_stepper_name(fd_stepper stepper)
{
    return stepper == FD_STEPPER_COMPLEMENTARITY ? "complementarity" : "penalty";
}

/* ---------------------------------------------------------------- bodies and contacts as columns */

void fd_checkpoint_identity_free(fd_checkpoint_identity* id)
{
    FD_FREE_ALL(id->type, id->shape, id->shape_size, id->material, id->mass, id->inertia, id->locks, (void*)id->names);
}

bool fd_checkpoint_identity_allocate(fd_checkpoint_identity* id, int64_t n)
{
    size_t count = (size_t)(n > 0 ? n : 1);
    memset(id, 0, sizeof *id);
    id->type = malloc(count * sizeof *id->type);
    id->shape = malloc(count * sizeof *id->shape);
    id->shape_size = malloc(count * sizeof *id->shape_size);
    id->material = malloc(count * sizeof *id->material);
    id->mass = malloc(count * sizeof *id->mass);
    id->inertia = malloc(count * sizeof *id->inertia);
    id->locks = malloc(2 * count * sizeof *id->locks);
    id->names = malloc(count * sizeof *id->names);
    return id->type && id->shape && id->shape_size && id->material && id->mass && id->inertia && id->locks &&
           id->names;
}

/* Three numbers that tell a body's shape and size, so that resuming with a
 * changed scene is caught (checkpoint_read.c compares them bit for bit). */
static fd_vec3 shape_size_of(const fd_shape* shape)
{
    switch (shape->type) {
    case FD_SHAPE_SPHERE:
        return fd_v3(shape->radius, 0.0, 0.0);
    case FD_SHAPE_ELLIPSOID:
        return shape->semi_axes;
    case FD_SHAPE_CYLINDER:
        return fd_v3(shape->radius, shape->length, shape->capped ? 1.0 : 0.0);
    case FD_SHAPE_DISK:
        return fd_v3(shape->radius, shape->inner_radius, shape->offset);
    case FD_SHAPE_MESH:
        /* Its extent, its size in triangles, and which patch: a changed STL
         * (another file, scale or feature angle) changes one of them. */
        return fd_v3(fd_mesh_bounding_radius(shape->mesh), (double)fd_mesh_triangle_count(shape->mesh),
                     (double)shape->mesh_patch);
    default:
        return shape->plane_normal;
    }
}

void fd_checkpoint_identity_of(const fd_world* world, int b, fd_checkpoint_identity* id)
{
    const fd_body_cold* cold = &world->colds[b];
    id->type[b] = cold->type;
    id->shape[b] = cold->shape.type;
    id->shape_size[b] = shape_size_of(&cold->shape);
    id->material[b] = cold->material;
    id->mass[b] = cold->mass;
    id->inertia[b] = world->masses[b].inertia;
    id->locks[2 * b] = world->masses[b].lock_translation;
    id->locks[2 * b + 1] = world->masses[b].lock_rotation;
    id->names[b] = world->body_names[b];
}

void fd_checkpoint_rows_free(fd_checkpoint_rows* r)
{
    FD_FREE_ALL(r->pairs, r->id, r->first_step, r->law, r->slip, r->geometry, r->loads, r->energy, r->offset);
}

fd_status fd_checkpoint_transfer(const fd_h5_file* file, hid_t group, const fd_checkpoint_dataset* datasets, int count,
                                 fd_checkpoint_direction direction)
{
    fd_status s = FD_OK;
    for (int k = 0; s == FD_OK && k < count; ++k) {
        const fd_checkpoint_dataset* d = &datasets[k];
        s = direction == FD_CHECKPOINT_WRITE ? fd_h5_write(file, group, d->name, d->type, d->rank, d->dims, d->data)
                                             : fd_h5_read(file, group, d->name, d->type, d->rank, d->dims, d->data);
    }
    return s;
}

void fd_checkpoint_state_datasets(const fd_world* world, int64_t n,
                                  fd_checkpoint_dataset out[FD_CHECKPOINT_STATE_DATASETS])
{
    hsize_t rows = fd_checkpoint_rows_of(n);
    const hid_t D = H5T_NATIVE_DOUBLE;
    const fd_checkpoint_dataset datasets[FD_CHECKPOINT_STATE_DATASETS] = {
        {"position", D, 2, {rows, 3}, world->position},
        {"orientation", D, 2, {rows, 4}, world->orientation},
        {"velocity", D, 2, {rows, 3}, world->velocity},
        {"angular_velocity", D, 2, {rows, 3}, world->angular_velocity},
        {"force", D, 2, {rows, 3}, world->forces},
        {"torque", D, 2, {rows, 3}, world->torques},
    };
    memcpy(out, datasets, sizeof datasets);
}

void fd_checkpoint_identity_datasets(const fd_checkpoint_identity* id, int64_t n,
                                     fd_checkpoint_dataset out[FD_CHECKPOINT_IDENTITY_DATASETS])
{
    hsize_t rows = fd_checkpoint_rows_of(n);
    const hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT32;
    const fd_checkpoint_dataset datasets[FD_CHECKPOINT_IDENTITY_DATASETS] = {
        {"type", I, 1, {rows}, id->type},
        {"shape", I, 1, {rows}, id->shape},
        {"shape_size", D, 2, {rows, 3}, id->shape_size},
        {"material", I, 1, {rows}, id->material},
        {"mass", D, 1, {rows}, id->mass},
        {"inertia", D, 2, {rows, 3}, id->inertia},
        {"locks", I, 2, {rows, 2}, id->locks},
    };
    memcpy(out, datasets, sizeof datasets);
}

int fd_checkpoint_set_datasets(const fd_world* world, const fd_checkpoint_rows* r, const fd_contact_set* set,
                               int64_t count, fd_checkpoint_dataset out[FD_CHECKPOINT_SET_DATASETS])
{
    hsize_t n = fd_checkpoint_rows_of(count);
    const hid_t D = H5T_NATIVE_DOUBLE;
    const fd_checkpoint_dataset datasets[] = {
        {"pair", H5T_NATIVE_INT32, 2, {n, 2}, r->pairs},
        {"id", H5T_NATIVE_UINT64, 1, {n}, r->id},
        {"first_step", H5T_NATIVE_INT64, 1, {n}, r->first_step},
        {"law", H5T_NATIVE_INT32, 1, {n}, r->law},
        {"slip_flags", H5T_NATIVE_UINT32, 2, {n, 2}, r->slip},
        {"geometry", D, 2, {n, FD_CHECKPOINT_GEOMETRY_DOUBLES}, r->geometry},
        {"loads", D, 2, {n, FD_CHECKPOINT_LOADS_DOUBLES}, r->loads},
        {"energy", D, 3, {n, FD_MECHANISM_COUNT, FD_CHECKPOINT_BOOK_DOUBLES}, r->energy},
        {"image_offset", D, 2, {n, 3}, r->offset},
        {"columns", D, 2, {n, (hsize_t)world->column_count}, set->columns},
        /* The last: left out where the set holds no history. */
        {"history", D, 2, {n, (hsize_t)world->history_stride}, set->history},
    };
    _Static_assert(sizeof datasets / sizeof datasets[0] == FD_CHECKPOINT_SET_DATASETS, "every dataset listed");
    int used = fd_checkpoint_set_has_history(world) ? FD_CHECKPOINT_SET_DATASETS : FD_CHECKPOINT_SET_DATASETS - 1;
    memcpy(out, datasets, (size_t)used * sizeof *out);
    return used;
}

int fd_checkpoint_penalty_datasets(const fd_penalty_contacts* c,
                                   fd_checkpoint_dataset out[FD_CHECKPOINT_PENALTY_DATASETS])
{
    hsize_t n = fd_checkpoint_rows_of(c->count);
    const fd_checkpoint_dataset datasets[] = {
        {"pair", H5T_NATIVE_INT32, 2, {n, 2}, c->pairs},
        {"id", H5T_NATIVE_UINT64, 1, {n}, c->id},
        {"first_step", H5T_NATIVE_INT64, 1, {n}, c->first_step},
        {"state", H5T_NATIVE_UINT8, 1, {n}, c->state},
        {"springs", H5T_NATIVE_DOUBLE, 2, {n, (hsize_t)c->history_stride}, c->springs},
        /* The last: left out when there are no books. */
        {"books", H5T_NATIVE_DOUBLE, 3, {n, (hsize_t)c->book_count, FD_CHECKPOINT_BOOK_DOUBLES}, c->books},
    };
    _Static_assert(sizeof datasets / sizeof datasets[0] == FD_CHECKPOINT_PENALTY_DATASETS, "every dataset listed");
    int used = c->book_count > 0 ? FD_CHECKPOINT_PENALTY_DATASETS : FD_CHECKPOINT_PENALTY_DATASETS - 1;
    memcpy(out, datasets, (size_t)used * sizeof *out);
    return used;
}

bool fd_checkpoint_rows_allocate(fd_checkpoint_rows* r, int64_t count)
{
    size_t n = (size_t)(count > 0 ? count : 1);
    memset(r, 0, sizeof *r);
    r->pairs = malloc(2 * n * sizeof *r->pairs);
    r->id = malloc(n * sizeof *r->id);
    r->first_step = malloc(n * sizeof *r->first_step);
    r->law = malloc(n * sizeof *r->law);
    r->slip = malloc(2 * n * sizeof *r->slip);
    r->geometry = malloc(n * sizeof *r->geometry);
    r->loads = malloc(n * sizeof *r->loads);
    r->energy = malloc(n * FD_MECHANISM_COUNT * sizeof *r->energy);
    r->offset = malloc(n * sizeof *r->offset);
    return r->pairs && r->id && r->first_step && r->law && r->slip && r->geometry && r->loads && r->energy &&
           r->offset;
}

bool fd_checkpoint_set_has_history(const fd_world* world) { return world->def.stepper == FD_STEPPER_COMPLEMENTARITY; }


/* ---------------------------------------------------------------- moving walls */

void fd_checkpoint_wall_row(const fd_moving_wall* wall, double* row)
{
    const fd_wall_motion* m = &wall->motion;
    const double values[FD_CHECKPOINT_WALL_DOUBLES] = {
        m->velocity.x,         m->velocity.y,         m->velocity.z,         m->velocity_ramp,
        m->amplitude.x,        m->amplitude.y,        m->amplitude.z,        m->frequency,
        m->angular_velocity.x, m->angular_velocity.y, m->angular_velocity.z, m->angular_velocity_ramp,
        m->start_time,         wall->reference_position.x, wall->reference_position.y, wall->reference_position.z,
        wall->reference_orientation.w, wall->reference_orientation.x, wall->reference_orientation.y,
        wall->reference_orientation.z, wall->start_time};
    memcpy(row, values, sizeof values);
}

void fd_checkpoint_wall_from_row(const double* r, fd_moving_wall* wall)
{
    wall->motion =
        (fd_wall_motion){{r[0], r[1], r[2]}, r[3], {r[4], r[5], r[6]}, r[7], {r[8], r[9], r[10]}, r[11], r[12]};
    wall->reference_position = fd_v3(r[13], r[14], r[15]);
    wall->reference_orientation = (fd_quat){r[16], r[17], r[18], r[19]};
    wall->start_time = r[20];
}
