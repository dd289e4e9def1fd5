/* What a checkpoint holds, shared by its writer and its reader
 * (checkpoint_layout.h).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/checkpoint_layout.h"

#include <stdlib.h>
#include <string.h>

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
    free(id->type);
    free(id->shape);
    free(id->shape_size);
    free(id->material);
    free(id->mass);
    free(id->inertia);
    free(id->locks);
    free((void*)id->names);
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
    free(r->pairs);
    free(r->id);
    free(r->first_step);
    free(r->law);
    free(r->slip);
    free(r->geometry);
    free(r->loads);
    free(r->energy);
    free(r->offset);
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
    wall->motion = (fd_wall_motion){{r[0], r[1], r[2]}, r[3], {r[4], r[5], r[6]}, r[7], {r[8], r[9], r[10]}, r[11], r[12]};
    wall->reference_position = fd_v3(r[13], r[14], r[15]);
    wall->reference_orientation = (fd_quat){r[16], r[17], r[18], r[19]};
    wall->start_time = r[20];
}
