/* The world's bodies: their storage (arrays per field, listed once in
 * fd_body_arrays and grown together), creation from a def with its checks,
 * names (an open-addressing hash of body indices), states and the public
 * queries of one body.
 *
 * Must not: step, evaluate contacts or touch the contact laws (world.c,
 * src/penalty/). */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "core/error.h"
#include "core/staggered.h"
#include "world/world_store.h"

/* ---------------------------------------------------------------- body names */

/* Body names live in blocks of a name store that never move (a name's
 * pointer stays valid for the world's life), without an allocation per body. */
enum { NAME_BLOCK = 1 << 16 };
typedef struct fd_name_block {
    struct fd_name_block* next;
    size_t used;
    char text[];
} fd_name_block;

static char* store_name(fd_world* world, const char* name)
{
    static char empty[1] = "";
    if (name == NULL || name[0] == '\0') {
        return empty;
    }
    size_t length = strlen(name) + 1;
    fd_name_block* block = world->names;
    if (block == NULL || block->used + length > NAME_BLOCK) {
        size_t size = length > NAME_BLOCK ? length : NAME_BLOCK;
        fd_name_block* fresh = malloc(sizeof *fresh + size);
        if (fresh == NULL) {
            return NULL;
        }
        fresh->next = block;
        fresh->used = 0;
        world->names = fresh;
        block = fresh;
    }
    char* stored = block->text + block->used;
    memcpy(stored, name, length);
    block->used += length;
    return stored;
}

void fd_world_free_names(fd_world* world)
{
    for (fd_name_block* block = world->names; block != NULL;) {
        fd_name_block* next = block->next;
        free(block);
        block = next;
    }
    world->names = NULL;
}


static uint64_t name_hash(const char* name)
{
    uint64_t hash = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char* c = (const unsigned char*)name; *c; ++c) {
        hash ^= *c;
        hash *= 1099511628211ull;
    }
    return hash;
}

/* A slot of the name hash: the body, and its name's hash, which a probe
 * compares before the name itself, so that a probe past other names costs
 * one memory access, not three (slot, body record, name): with 10^7 named
 * bodies, creating them was dominated by those misses. */
struct fd_name_slot {
    int32_t body; /* -1 = empty */
    uint32_t hash;
};

size_t fd_world_name_slot_bytes(const fd_world* world)
{
    return (size_t)world->name_slot_count * sizeof(struct fd_name_slot);
}

/* Index of the body with this name, or -1. */
static int find_body_index(const fd_world* world, const char* name)
{
    if (name == NULL || name[0] == '\0' || world->name_slot_count == 0) {
        return -1;
    }
    const uint64_t hash = name_hash(name);
    const uint32_t mask = (uint32_t)world->name_slot_count - 1;
    for (uint32_t slot = (uint32_t)hash & mask;; slot = (slot + 1) & mask) {
        const struct fd_name_slot entry = world->name_slots[slot];
        if (entry.body < 0) {
            return -1;
        }
        if (entry.hash == (uint32_t)(hash >> 32) && strcmp(world->body_names[entry.body], name) == 0) {
            return entry.body;
        }
    }
}

static void insert_name_slot(struct fd_name_slot* slots, int slot_count, const char* name, int32_t body)
{
    const uint64_t hash = name_hash(name);
    const uint32_t mask = (uint32_t)slot_count - 1;
    uint32_t slot = (uint32_t)hash & mask;
    while (slots[slot].body >= 0) {
        slot = (slot + 1) & mask;
    }
    slots[slot] = (struct fd_name_slot){body, (uint32_t)(hash >> 32)};
}

static bool add_body_name(fd_world* world, int body)
{
    const char* name = world->body_names[body];
    if (name[0] == '\0') {
        return true;
    }
    if (2 * (world->named_body_count + 1) >= world->name_slot_count) {
        int slot_count = world->name_slot_count > 0 ? 2 * world->name_slot_count : 64;
        struct fd_name_slot* slots = malloc((size_t)slot_count * sizeof *slots);
        if (slots == NULL) {
            return false;
        }
        for (int k = 0; k < slot_count; ++k) {
            slots[k] = (struct fd_name_slot){-1, 0};
        }
        for (int b = 0; b < world->body_count; ++b) { /* body may be a removed body's slot, below the others */
            if (b != body && world->body_names[b][0] != '\0') {
                insert_name_slot(slots, slot_count, world->body_names[b], b);
            }
        }
        free(world->name_slots);
        world->name_slots = slots;
        world->name_slot_count = slot_count;
    }
    insert_name_slot(world->name_slots, world->name_slot_count, name, body);
    world->named_body_count++;
    return true;
}

/* Takes a body's name out of the index: the entries after it in its probe
 * run move back into the hole where their own probe would meet them first
 * (deletion without markers, Knuth 6.4 Algorithm R), so that lookups stay
 * as short as if the name had never been there. */
void fd_world_forget_body_name(fd_world* world, int body)
{
    const char* name = world->body_names[body];
    if (name[0] == '\0' || world->name_slot_count == 0) {
        return;
    }
    const uint32_t mask = (uint32_t)world->name_slot_count - 1;
    struct fd_name_slot* slots = world->name_slots;
    uint32_t hole = (uint32_t)name_hash(name) & mask;
    while (slots[hole].body != body) {
        if (slots[hole].body < 0) {
            return; /* not indexed */
        }
        hole = (hole + 1) & mask;
    }
    for (uint32_t next = (hole + 1) & mask; slots[next].body >= 0; next = (next + 1) & mask) {
        uint32_t home = (uint32_t)name_hash(world->body_names[slots[next].body]) & mask;
        /* It may fill the hole unless its home lies cyclically in (hole, next]. */
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            slots[hole] = slots[next];
            hole = next;
        }
    }
    slots[hole] = (struct fd_name_slot){-1, 0};
    world->named_body_count--;
}

fd_body_def fd_default_body_def(void)
{
    fd_body_def def;
    memset(&def, 0, sizeof def);
    def.type = FD_BODY_DYNAMIC;
    def.shape.type = FD_SHAPE_SPHERE;
    def.shape.plane_normal = fd_v3(0, 0, 1);
    def.orientation = fd_quat_identity();
    def.lock_frame = fd_quat_identity();
    return def;
}

/* ---------------------------------------------------------------- slots
 * A removed body's slot is a tombstone until a new body takes it (the last
 * removed first; docs/outlets.md). */

static char no_name[1] = "";

int fd_world_next_slot(const fd_world* world)
{
    return world->free_slot_count > 0 ? world->free_slots[world->free_slot_count - 1] : world->body_count;
}

void fd_world_claim_slot(fd_world* world, int b)
{
    world->is_removed[b] = false;
    if (b == world->body_count) {
        world->body_count++;
        return;
    }
    world->free_slot_count--; /* b was the top of the stack (fd_world_next_slot) */
    /* Below body_count nothing notices a new body by the count: the
     * neighbour list and the integrator's list of special bodies are made
     * again. */
    world->list_stale = true;
    world->special_listed = -1;
}

void fd_world_make_tombstone(fd_world* world, int b, uint32_t generation)
{
    fd_body_cold* cold = &world->colds[b];
    world->body_names[b] = no_name;
    cold->type = FD_BODY_STATIC;
    cold->material = 0;
    cold->mass = 0.0;
    world->generations[b] = generation;
    /* The extras were freed by the removal, or never kept by a failed creation. */
    world->masses[b] = (fd_body_mass){.inverse_mass = 0.0};
    world->motion[b] = (fd_body_motion){.flags = FD_MOTION_REMOVED};
    fd_vec3 zero = fd_v3(0.0, 0.0, 0.0);
    world->velocity[b] = world->saved_velocity[b] = zero;
    world->angular_velocity[b] = world->saved_angular_velocity[b] = zero;
    world->forces[b] = world->saved_forces[b] = zero;
    world->torques[b] = world->saved_torques[b] = zero;
    world->bounding_radii[b] = 0.0;
    world->is_static[b] = true;
    world->is_wall[b] = false;
    world->plane_normals[b] = zero;
    world->lock_work[b] = 0.0;
    world->is_removed[b] = true;
    cold->wall_group = b;
    fd_world_forget_wall_motion(world, b); /* a tombstone never moves */
}

/* ---------------------------------------------------------------- bodies */

/* A row of fd_body_arrays; SAVED(field) names the saved copy of a state. */
#define BODY_ARRAY(array, saved)                                                                   \
    {offsetof(fd_world, array), sizeof *((fd_world*)NULL)->array, saved}
#define SAVED(array) offsetof(fd_world, array)

const fd_body_array fd_body_arrays[FD_BODY_ARRAY_COUNT] = {
    BODY_ARRAY(position, SAVED(saved_position)),
    BODY_ARRAY(orientation, SAVED(saved_orientation)),
    BODY_ARRAY(velocity, SAVED(saved_velocity)),
    BODY_ARRAY(angular_velocity, SAVED(saved_angular_velocity)),
    BODY_ARRAY(masses, 0),
    BODY_ARRAY(colds, 0),
    BODY_ARRAY(forces, SAVED(saved_forces)),
    BODY_ARRAY(torques, SAVED(saved_torques)),
    BODY_ARRAY(saved_position, 0),
    BODY_ARRAY(saved_orientation, 0),
    BODY_ARRAY(saved_velocity, 0),
    BODY_ARRAY(saved_angular_velocity, 0),
    BODY_ARRAY(saved_forces, 0),
    BODY_ARRAY(saved_torques, 0),
    BODY_ARRAY(motion, 0),
    BODY_ARRAY(bounding_radii, 0),
    BODY_ARRAY(is_static, 0),
    BODY_ARRAY(is_wall, 0),
    BODY_ARRAY(plane_normals, 0),
    BODY_ARRAY(lock_work, 0),
    BODY_ARRAY(is_removed, 0),
    BODY_ARRAY(generations, 0),
    BODY_ARRAY(body_names, 0),
};
#undef SAVED
#undef BODY_ARRAY

/* Room for `needed` bodies in every per-body array: exactly that many when
 * asked (fd_world_reserve_bodies), else by doubling. */
static bool resize_bodies(fd_world* world, int capacity)
{
    size_t old = (size_t)world->body_capacity;
    for (int lane = 0; lane < FD_BODY_ARRAY_COUNT; ++lane) {
        const fd_body_array* array = &fd_body_arrays[lane];
        void* grown = fd_staggered_resize(fd_body_array_get(world, array->field), old * array->element_size,
                                          (size_t)capacity * array->element_size, lane);
        if (grown == NULL) {
            return false;
        }
        fd_body_array_set(world, array->field, grown);
    }
    world->body_capacity = capacity;
    return true;
}

void fd_world_copy_states(fd_world* world, bool restore)
{
    size_t n = (size_t)world->body_count;
    for (int k = 0; k < FD_BODY_ARRAY_COUNT && n > 0; ++k) {
        const fd_body_array* array = &fd_body_arrays[k];
        if (array->saved_field == 0) {
            continue;
        }
        void* live = fd_body_array_get(world, array->field);
        void* saved = fd_body_array_get(world, array->saved_field);
        memcpy(restore ? live : saved, restore ? saved : live, n * array->element_size);
    }
}

void fd_world_free_body_arrays(fd_world* world)
{
    for (int k = 0; k < FD_BODY_ARRAY_COUNT; ++k) {
        fd_staggered_free(fd_body_array_get(world, fd_body_arrays[k].field));
    }
}

static bool grow_bodies(fd_world* world)
{
    if (world->body_count < world->body_capacity) {
        return true;
    }
    return resize_bodies(world, world->body_capacity > 0 ? 2 * world->body_capacity : 64);
}

fd_status fd_world_reserve_bodies(fd_world* world, int count)
{
    if (count < 0 || count > INT32_MAX - world->body_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_reserve_bodies: bad count %d", count);
    }
    int needed = world->body_count + count;
    if (needed <= world->body_capacity) {
        return FD_OK;
    }
    return resize_bodies(world, needed) ? FD_OK
                                        : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %d bodies", needed);
}

/* Kinetic plus gravitational energy of a dynamic body (J), for the ledger. */
static double body_mechanical_energy(const fd_world* world, int b)
{
    fd_body_state state = fd_world_state(world, b);
    double m = world->colds[b].mass;
    return 0.5 * m * fd_v3_length_squared(state.velocity) + fd_body_kinetic_rotational(&state, &world->masses[b]) -
           m * fd_v3_dot(world->def.gravity, state.position);
}

static bool vec_positive(fd_vec3 v) { return v.x > 0.0 && v.y > 0.0 && v.z > 0.0 && fd_v3_is_finite(v); }
static bool vec_zero(fd_vec3 v) { return v.x == 0.0 && v.y == 0.0 && v.z == 0.0; }

/* Creates the body of def in slot b (body_count, or a removed body's) with
 * that generation; the slot is the caller's to claim. */
static fd_body_id create_body_in(fd_world* world, const fd_body_def* def, int b, uint32_t generation)
{
    fd_body_id null_id = {0, 0};
    const char* label = def != NULL && def->name != NULL && def->name[0] != '\0' ? def->name : "(unnamed)";
    if (def == NULL) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body: def is NULL");
        return null_id;
    }
    if (find_body_index(world, def->name) >= 0) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': name already used", def->name);
        return null_id;
    }
    if (def->material.index1 < 1 || def->material.index1 > world->material_count) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': material is required", label);
        return null_id;
    }
    if (def->type != FD_BODY_DYNAMIC && def->type != FD_BODY_STATIC) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': unknown body type %d", label, (int)def->type);
        return null_id;
    }
    fd_shape shape;
    char message[256];
    if (!fd_shape_init(&shape, &def->shape, message, sizeof message)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': %s", label, message);
        return null_id;
    }
    /* A moving plane (a slider, a carriage's raceway) keeps its normal: it
     * needs all rotations locked, and a mass, which a half-space does not
     * have of itself. */
    if (shape.type == FD_SHAPE_PLANE && def->type != FD_BODY_STATIC &&
        (def->lock_rotation != (FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z) || !(def->mass > 0.0))) {
        fd_fail(FD_ERR_INVALID_ARGUMENT,
                "body '%s': a dynamic plane needs a mass and all three rotations locked (or make it static)", label);
        return null_id;
    }
    if (shape.type != FD_SHAPE_PLANE && fd_shape_is_wall(shape.type) &&
        (def->type != FD_BODY_STATIC || world->periodic.any)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': a finite wall (cylinder, disk, mesh) must be a static body%s",
                label, world->periodic.any ? ", and is not supported in a periodic world" : "");
        return null_id;
    }
    if (!fd_v3_is_finite(def->position) || !fd_v3_is_finite(def->velocity) ||
        !fd_v3_is_finite(def->angular_velocity) || !fd_v3_is_finite(def->external_force) ||
        !fd_v3_is_finite(def->external_torque)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': position, velocities and external loads must be finite", label);
        return null_id;
    }
    double norm = fd_quat_norm(def->orientation);
    if (!fd_quat_is_finite(def->orientation) || fabs(norm - 1.0) > 1e-6) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': orientation must be a unit quaternion (norm %g)", label, norm);
        return null_id;
    }
    double lock_norm = fd_quat_norm(def->lock_frame);
    if (!fd_quat_is_finite(def->lock_frame) || fabs(lock_norm - 1.0) > 1e-6) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': lock_frame must be a unit quaternion (norm %g)", label,
                lock_norm);
        return null_id;
    }
    if (!(def->friction_force >= 0.0) || !isfinite(def->friction_force) ||
        (def->friction_force > 0.0 && fabs(fd_v3_length(def->friction_axis) - 1.0) > 1e-6)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT,
                "body '%s': friction_force must be >= 0 N (got %g) and friction_axis a unit vector (length %g)",
                label, def->friction_force, fd_v3_length(def->friction_axis));
        return null_id;
    }
    if (shape.type == FD_SHAPE_PLANE && world->periodic.any) {
        /* A plane must look the same from every image: its normal has no
         * component along a periodic axis (to 1e-12, round-off of a rotated normal). */
        fd_vec3 normal = fd_quat_rotate(fd_quat_normalize(def->orientation), shape.plane_normal);
        for (int a = 0; a < 3; ++a) {
            if (world->periodic.axis[a] && fabs(fd_v3_component(normal, a)) > 1e-12) {
                fd_fail(FD_ERR_INVALID_ARGUMENT,
                        "body '%s': a plane in a periodic world must have its normal perpendicular to every periodic "
                        "axis (world normal [%g, %g, %g] has a %c component, and %c is periodic)",
                        label, normal.x, normal.y, normal.z, "xyz"[a], "xyz"[a]);
                return null_id;
            }
        }
    }
    if ((def->lock_translation | def->lock_rotation) & ~(uint32_t)(FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': lock bits other than x, y, z", label);
        return null_id;
    }
    if (def->type == FD_BODY_STATIC && (!vec_zero(def->velocity) || !vec_zero(def->angular_velocity))) {
        /* It would be ignored: a static body never moves (moving walls are not supported yet). */
        fd_fail(FD_ERR_INVALID_ARGUMENT,
                "body '%s': a static body never moves; give it no velocity or angular_velocity (got [%g, %g, %g] "
                "m/s, [%g, %g, %g] rad/s), or make it dynamic",
                label, def->velocity.x, def->velocity.y, def->velocity.z, def->angular_velocity.x,
                def->angular_velocity.y, def->angular_velocity.z);
        return null_id;
    }
    if (def->mass < 0.0 || !isfinite(def->mass)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': mass must be > 0 kg (got %g)", label, def->mass);
        return null_id;
    }
    if (!vec_zero(def->inertia) && !vec_positive(def->inertia)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': inertia must have three moments > 0 kg m^2", label);
        return null_id;
    }
    if (!grow_bodies(world)) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory adding body '%s'", label);
        return null_id;
    }
    fd_body_cold* cold = &world->colds[b];
    fd_body_mass* mass = &world->masses[b];
    memset(cold, 0, sizeof *cold);
    memset(mass, 0, sizeof *mass);
    world->body_names[b] = store_name(world, def->name);
    if (world->body_names[b] == NULL) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory adding body '%s'", label);
        return null_id;
    }
    cold->type = def->type;
    cold->shape = shape;
    cold->material = def->material.index1 - 1;
    world->generations[b] = generation;
    cold->wall_group = b;

    if (def->type == FD_BODY_DYNAMIC) {
        double m = def->mass > 0.0 ? def->mass : world->materials[cold->material].density * fd_shape_volume(&shape);
        if (!(m > 0.0) || !isfinite(m)) {
            /* Not a given mass (checked above): density x volume left the doubles. */
            fd_fail(FD_ERR_INVALID_ARGUMENT,
                    "body '%s': its mass, density %g kg/m^3 x volume %g m^3 = %g kg, is not a finite number > 0 "
                    "(the body is too large or too small, or its density too high, for double precision)",
                    label, world->materials[cold->material].density, fd_shape_volume(&shape), m);
            return null_id;
        }
        fd_vec3 inertia = vec_zero(def->inertia) ? fd_v3_scale(m, fd_shape_unit_inertia(&shape)) : def->inertia;
        if (shape.type == FD_SHAPE_PLANE && vec_zero(def->inertia)) {
            inertia = fd_v3(m, m, m); /* never used: its rotations are locked */
        }
        if (!vec_positive(inertia) || !(fmin(inertia.x, fmin(inertia.y, inertia.z)) >= DBL_MIN)) {
            fd_fail(FD_ERR_INVALID_ARGUMENT,
                    "body '%s': its moments of inertia (%g, %g, %g) kg m^2 are not finite numbers > 2.2e-308 "
                    "(mass %g kg and size out of double precision's range)",
                    label, inertia.x, inertia.y, inertia.z, m);
            return null_id;
        }
        cold->mass = m;
        mass->inverse_mass = 1.0 / m;
        mass->inertia = inertia;
        mass->inverse_inertia = fd_v3(1.0 / inertia.x, 1.0 / inertia.y, 1.0 / inertia.z);
        mass->isotropic = inertia.x == inertia.y && inertia.y == inertia.z;
    }
    mass->lock_translation = (uint8_t)def->lock_translation;
    mass->lock_rotation = (uint8_t)def->lock_rotation;
    bool has_extra = def->lock_translation != 0 || def->lock_rotation != 0 || !vec_zero(def->external_force) ||
                     !vec_zero(def->external_torque) || def->friction_force > 0.0;
    if (has_extra) {
        fd_body_extra* extra = malloc(sizeof *extra);
        if (extra == NULL) {
            fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory adding body '%s'", label);
            return null_id;
        }
        extra->lock_frame = fd_quat_normalize(def->lock_frame);
        extra->locked_velocity = fd_quat_rotate_inverse(extra->lock_frame, def->velocity);
        extra->locked_angular_velocity = fd_quat_rotate_inverse(extra->lock_frame, def->angular_velocity);
        extra->external_force = def->external_force;
        extra->external_torque = def->external_torque;
        extra->friction_axis = def->friction_axis;
        extra->friction_force = def->friction_force;
        mass->extra = extra;
    }

    world->position[b] = def->position;
    world->orientation[b] = fd_quat_normalize(def->orientation);
    world->velocity[b] = def->velocity;
    world->angular_velocity[b] = def->angular_velocity;
    world->forces[b] = fd_v3(0, 0, 0);
    world->torques[b] = fd_v3(0, 0, 0);

    world->bounding_radii[b] = shape.bounding_radius;
    world->is_static[b] = def->type == FD_BODY_STATIC;
    world->is_wall[b] = fd_shape_is_wall(shape.type);
    world->plane_normals[b] =
        shape.type == FD_SHAPE_PLANE ? fd_quat_rotate(world->orientation[b], shape.plane_normal) : fd_v3(0, 0, 0);
    if (!add_body_name(world, b)) {
        free(mass->extra);
        fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory adding body '%s'", label);
        return null_id;
    }

    world->lock_work[b] = 0.0;
    bool locked = mass->lock_translation != 0 || mass->lock_rotation != 0;
    bool loaded = !vec_zero(def->external_force) || !vec_zero(def->external_torque);
    world->has_locks = world->has_locks || locked;
    world->has_external_loads = world->has_external_loads || loaded;
    world->motion[b] = (fd_body_motion){
        .inverse_mass = mass->inverse_mass,
        .inverse_inertia = mass->inverse_inertia.x,
        .mass = cold->mass,
        .flags = (def->type == FD_BODY_DYNAMIC ? FD_MOTION_DYNAMIC : 0u) |
                 (def->type == FD_BODY_DYNAMIC && mass->isotropic && !locked ? FD_MOTION_SIMPLE : 0u) |
                 (loaded ? FD_MOTION_LOADED : 0u) | (shape.type == FD_SHAPE_PLANE ? FD_MOTION_PLANE : 0u) |
                 (fd_shape_is_wall(shape.type) ? FD_MOTION_WALL : 0u) |
                 (shape.type == FD_SHAPE_SPHERE ? FD_MOTION_SPHERE : 0u),
        .material = cold->material,
    };
    if (def->type == FD_BODY_DYNAMIC) {
        /* Loads until the next force pass: a body added between steps falls
         * from its first step on. Contacts it makes count from the next pass. */
        world->forces[b] = fd_v3_mul_add(def->external_force, cold->mass, world->def.gravity);
        world->torques[b] = def->external_torque;
        if (world->has_energy_reference) {
            world->energy_totals.inserted += body_mechanical_energy(world, b);
        }
    }
    world->prepared = false; /* set-up again (cell size, laws); forces of the others stay valid */
    return (fd_body_id){b + 1, world->generations[b]};
}

fd_body_id fd_world_create_body(fd_world* world, const fd_body_def* def)
{
    fd_world_note_change(world);
    /* A removed body's slot goes on with the tombstone's generation, which
     * no handle of the removed body has (src/engine/removal.c). */
    int b = fd_world_next_slot(world);
    bool reused = b < world->body_count;
    uint32_t generation = reused ? world->generations[b] : 1;
    fd_body_id id = create_body_in(world, def, b, generation);
    if (fd_body_id_is_null(id)) {
        if (reused) {
            fd_world_make_tombstone(world, b, generation); /* the failed def may have written over it */
        }
        return id;
    }
    fd_world_claim_slot(world, b);
    return id;
}

int fd_world_body_count(const fd_world* world) { return world->body_count; }

fd_body_id fd_world_body_at(const fd_world* world, int index)
{
    if (index < 0 || index >= world->body_count || world->is_removed[index]) {
        return (fd_body_id){0, 0};
    }
    return (fd_body_id){index + 1, world->generations[index]};
}

fd_body_id fd_world_find_body(const fd_world* world, const char* name)
{
    return fd_world_body_at(world, find_body_index(world, name));
}

bool fd_body_is_valid(const fd_world* world, fd_body_id id) { return fd_world_holds(world, id); }

fd_body_state fd_body_get_state(const fd_world* world, fd_body_id id)
{
    if (!fd_body_is_valid(world, id)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "invalid body handle");
        return (fd_body_state){{NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}, {NAN, NAN, NAN}, {NAN, NAN, NAN}};
    }
    return fd_world_state(world, id.index1 - 1);
}

fd_status fd_body_set_state(fd_world* world, fd_body_id id, const fd_body_state* state)
{
    fd_world_note_change(world);
    if (!fd_body_is_valid(world, id)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "invalid body handle");
    }
    int b = id.index1 - 1;
    if (world->colds[b].type == FD_BODY_STATIC) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s' is static", world->body_names[b]);
    }
    if (!fd_v3_is_finite(state->position) || !fd_v3_is_finite(state->velocity) ||
        !fd_v3_is_finite(state->angular_velocity) || !fd_quat_is_finite(state->orientation) ||
        fabs(fd_quat_norm(state->orientation) - 1.0) > 1e-6) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': state must be finite with a unit quaternion",
                       world->body_names[b]);
    }
    double before = body_mechanical_energy(world, b);
    fd_world_put_state(world, b, state);
    world->orientation[b] = fd_quat_normalize(state->orientation);
    if (world->has_energy_reference) {
        world->energy_totals.external_work += body_mechanical_energy(world, b) - before;
    }
    world->prepared = false;
    world->forces_current = false; /* forces belong to the old state */
    world->list_stale = true; /* a body moved by hand may meet pairs the neighbour list does not hold */
    return FD_OK;
}

const char* fd_body_get_name(const fd_world* world, fd_body_id id)
{
    return fd_body_is_valid(world, id) ? world->body_names[id.index1 - 1] : "";
}

fd_body_info fd_body_get_info(const fd_world* world, fd_body_id id)
{
    fd_body_info info;
    memset(&info, 0, sizeof info);
    if (!fd_body_is_valid(world, id)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "invalid body handle");
        info.name = "";
        return info;
    }
    int b = id.index1 - 1;
    info.name = world->body_names[b];
    info.type = world->colds[b].type;
    const fd_shape* shape = &world->colds[b].shape;
    info.shape = (fd_shape_def){.type = shape->type, .radius = shape->radius, .plane_normal = fd_v3(0, 0, 1)};
    switch (shape->type) { /* (the type's own fields only: they share their bytes, collide.h) */
    case FD_SHAPE_ELLIPSOID:
        info.shape.semi_axes = shape->semi_axes;
        break;
    case FD_SHAPE_PLANE:
        info.shape.plane_normal = shape->plane_normal;
        break;
    case FD_SHAPE_CYLINDER:
        info.shape.length = shape->length;
        info.shape.capped = shape->capped;
        break;
    case FD_SHAPE_DISK:
        info.shape.inner_radius = shape->inner_radius;
        info.shape.offset = shape->offset;
        info.shape.cap_of_shell = shape->cap_of_shell;
        break;
    case FD_SHAPE_MESH:
        info.shape.mesh = shape->mesh;
        info.shape.mesh_patch = shape->mesh_patch;
        break;
    default:
        break;
    }
    info.wall = (fd_body_id){(uint32_t)world->colds[b].wall_group + 1, world->generations[world->colds[b].wall_group]};
    info.material = (fd_material_id){world->colds[b].material + 1};
    info.mass = world->colds[b].mass;
    info.inertia = world->masses[b].inertia;
    info.bounding_radius = world->colds[b].shape.bounding_radius;
    return info;
}
