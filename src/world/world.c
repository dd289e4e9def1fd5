/* The world: creation, bodies, materials, contact laws, and the step.
 *
 * A step is a readable list of stages (after Box2D's solver stages):
 *
 *   symplectic Euler (Fang & Negrut Sec. 4)   velocity Verlet
 *   kick(dt)     v1 = v0 + dt a0              kick(dt/2)
 *   drift(dt)    x1 = x0 + dt v1              drift(dt)
 *   forces at t1 (contact pass)               forces at t1
 *                                             kick(dt/2)
 *   check: every value finite, else roll back and report.
 *   inlets: the spheres due by the new time join the state (src/world/inlet.c).
 *
 * Forces are computed at the end of a step, for the new state, so that the
 * contacts and loads reported after a step belong to the state reported with
 * them; the accelerations a0 used by the next kick are the ones stored here
 * (fd_world_prepare computes the first ones). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "core/error.h"
#include "core/staggered.h"
#include "world/world_internal.h"

/* ---------------------------------------------------------------- defaults */

const fd_body_extra fd_no_extra = {.lock_frame = {1.0, 0.0, 0.0, 0.0}};

fd_world_def fd_default_world_def(void)
{
    return (fd_world_def){
        .gravity = {0.0, 0.0, -9.81},
        .time_step = 1e-4,
        .integrator = FD_INTEGRATOR_SYMPLECTIC_EULER,
        .contact_margin = 0.0,
        .cell_size = 0.0,
        .thread_count = 1,
    };
}

fd_material_def fd_default_material_def(void)
{
    return (fd_material_def){.name = NULL, .density = 1000.0, .youngs_modulus = 0.0, .poisson_ratio = 0.3};
}

fd_contact_law_def fd_default_contact_law_def(void)
{
    fd_contact_law_def def;
    memset(&def, 0, sizeof def);
    def.submodel[FD_MECHANISM_NORMAL].model = "hooke";
    return def;
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

/* ---------------------------------------------------------------- world */

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

static char* copy_string(const char* text)
{
    size_t length = text != NULL ? strlen(text) : 0;
    char* copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text != NULL ? text : "", length);
        copy[length] = '\0';
    }
    return copy;
}

fd_world* fd_world_create(const fd_world_def* def)
{
    if (def == NULL) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_create: def is NULL");
        return NULL;
    }
    if (!(def->time_step > 0.0) || !isfinite(def->time_step)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: time_step must be > 0 s (got %g)", def->time_step);
        return NULL;
    }
    if (!fd_v3_is_finite(def->gravity)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: gravity must be finite");
        return NULL;
    }
    if (!(def->contact_margin >= 0.0) || !isfinite(def->contact_margin)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: contact_margin must be >= 0 m (got %g)", def->contact_margin);
        return NULL;
    }
    if (!(def->cell_size >= 0.0) || !isfinite(def->cell_size)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: cell_size must be >= 0 m (got %g)", def->cell_size);
        return NULL;
    }
    if (!(def->neighbor_skin >= 0.0) || !isfinite(def->neighbor_skin)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: neighbor_skin must be >= 0 m (got %g; 0 = automatic)",
                def->neighbor_skin);
        return NULL;
    }
    if (def->contact_output != FD_CONTACT_OUTPUT_EVERY_STEP && def->contact_output != FD_CONTACT_OUTPUT_ON_REQUEST) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: unknown contact_output %d", (int)def->contact_output);
        return NULL;
    }
    if (def->thread_count < 1) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: thread_count must be >= 1 (got %d)", def->thread_count);
        return NULL;
    }
    if (def->integrator != FD_INTEGRATOR_SYMPLECTIC_EULER && def->integrator != FD_INTEGRATOR_VELOCITY_VERLET) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: unknown integrator %d", (int)def->integrator);
        return NULL;
    }
    if (def->stepper != FD_STEPPER_PENALTY && def->stepper != FD_STEPPER_COMPLEMENTARITY) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: unknown stepper %d", (int)def->stepper);
        return NULL;
    }
    const fd_complementarity_def* ccp = &def->complementarity;
    if (ccp->solver != FD_SOLVER_APGD && ccp->solver != FD_SOLVER_JACOBI && ccp->solver != FD_SOLVER_GAUSS_SEIDEL) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "world: unknown complementarity solver %d", (int)ccp->solver);
        return NULL;
    }
    if (ccp->max_iterations < 0 || !(ccp->tolerance >= 0.0) || !(ccp->omega >= 0.0) || !(ccp->lambda >= 0.0) ||
        ccp->lambda > 1.0 || !(ccp->recovery_speed >= 0.0)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT,
                "world: complementarity settings out of range (max_iterations %d >= 0, tolerance %g >= 0 m/s, "
                "omega %g >= 0, lambda %g in [0, 1], recovery_speed %g >= 0 m/s; 0 = default)",
                ccp->max_iterations, ccp->tolerance, ccp->omega, ccp->lambda, ccp->recovery_speed);
        return NULL;
    }
    fd_periodic periodic = {0};
    for (int a = 0; a < 3; ++a) {
        if (!def->periodic[a]) {
            continue;
        }
        double low = fd_v3_component(def->box_min, a), high = fd_v3_component(def->box_max, a);
        if (!isfinite(low) || !isfinite(high) || !(high > low) || !isfinite(high - low)) {
            fd_fail(FD_ERR_INVALID_ARGUMENT,
                    "world: periodic along %c needs a box with box_max > box_min along %c (got min %g m, max %g m)",
                    "xyz"[a], "xyz"[a], low, high);
            return NULL;
        }
        periodic.any = true;
        periodic.axis[a] = true;
        periodic.low[a] = low;
        periodic.length[a] = high - low;
        periodic.inverse_length[a] = 1.0 / (high - low);
    }
    fd_world* world = calloc(1, sizeof *world);
    if (world == NULL) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory creating the world");
        return NULL;
    }
    if (def->stepper == FD_STEPPER_COMPLEMENTARITY) {
        world->complementarity = fd_complementarity_create();
        if (world->complementarity == NULL) {
            free(world);
            fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory creating the world");
            return NULL;
        }
    }
    world->def = *def;
    world->created_gravity = def->gravity;
    world->periodic = periodic;
    world->next_contact_id = 1;
    world->critical_time_step = INFINITY;
    world->blow_up_radius = INFINITY;
    return world;
}

void fd_world_free(fd_world* world)
{
    if (world == NULL) {
        return;
    }
    for (int b = 0; b < world->body_count; ++b) {
        free(world->masses[b].extra);
    }
    for (fd_name_block* block = world->names; block != NULL;) {
        fd_name_block* next = block->next;
        free(block);
        block = next;
    }
    for (int m = 0; m < world->material_count; ++m) {
        free(world->materials[m].name);
    }
    fd_world_free_inlets(world);
    fd_world_free_outlets(world);
    free(world->free_slots);
    fd_staggered_free(world->is_removed);
    fd_staggered_free(world->generations);
    free(world->name_slots);
    fd_staggered_free(world->position);
    fd_staggered_free(world->orientation);
    fd_staggered_free(world->velocity);
    fd_staggered_free(world->angular_velocity);
    fd_staggered_free(world->masses);
    fd_staggered_free(world->colds);
    fd_staggered_free(world->forces);
    fd_staggered_free(world->torques);
    fd_staggered_free(world->saved_position);
    fd_staggered_free(world->saved_orientation);
    fd_staggered_free(world->saved_velocity);
    fd_staggered_free(world->saved_angular_velocity);
    fd_staggered_free(world->saved_forces);
    fd_staggered_free(world->saved_torques);
    fd_staggered_free(world->motion);
    free(world->special_bodies);
    fd_staggered_free(world->bounding_radii);
    fd_staggered_free(world->is_static);
    fd_staggered_free(world->is_wall);
    fd_world_free_walls(world);
    fd_world_free_meshes(world);
    fd_staggered_free(world->plane_normals);
    free(world->materials);
    free(world->laws);
    free(world->law_table);
    fd_contact_set* sets[2] = {&world->contacts, &world->previous};
    for (int s = 0; s < 2; ++s) {
        free(sets[s]->contacts);
        free(sets[s]->history);
        free(sets[s]->columns);
    }
    fd_broadphase_free(&world->broadphase);
    fd_penalty_free(&world->penalty);
    free(world->candidate_geometry);
    free(world->candidate_offset);
    free(world->candidate_touching);
    free(world->contact_energy);
    fd_staggered_free(world->lock_work);
    free(world->events);
    fd_complementarity_free(world->complementarity);
    free(world);
}

double fd_world_time(const fd_world* world) { return world->time; }
int64_t fd_world_step_count(const fd_world* world) { return world->step_count; }
double fd_world_time_step(const fd_world* world) { return world->def.time_step; }
fd_world_def fd_world_get_def(const fd_world* world) { return world->def; }
double fd_world_critical_time_step(const fd_world* world) { return world->critical_time_step; }
const char* fd_world_critical_step_limit(const fd_world* world) { return world->critical_step_limit; }
int fd_world_warning_count(const fd_world* world) { return world->warning_count; }

const char* fd_world_warning_at(const fd_world* world, int index)
{
    return index >= 0 && index < world->warning_count ? world->warnings[index] : "";
}

/* ---------------------------------------------------------------- materials and laws */

fd_material_id fd_world_create_material(fd_world* world, const fd_material_def* def)
{
    fd_material_id null_id = {0};
    if (def == NULL || def->name == NULL || def->name[0] == '\0') {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "material: name is required");
        return null_id;
    }
    if (!fd_material_id_is_null(fd_world_find_material(world, def->name))) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "material '%s': name already used", def->name);
        return null_id;
    }
    if (!(def->density > 0.0) || !isfinite(def->density)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "material '%s': density must be > 0 kg/m^3 (got %g)", def->name,
                def->density);
        return null_id;
    }
    if (!(def->youngs_modulus >= 0.0) || !isfinite(def->youngs_modulus)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "material '%s': youngs_modulus must be >= 0 Pa (got %g)", def->name,
                def->youngs_modulus);
        return null_id;
    }
    if (!(def->poisson_ratio >= -1.0 && def->poisson_ratio < 0.5)) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "material '%s': poisson_ratio must be in [-1, 0.5) (got %g)", def->name,
                def->poisson_ratio);
        return null_id;
    }
    if (world->material_count == world->material_capacity) {
        int capacity = world->material_capacity > 0 ? 2 * world->material_capacity : 8;
        fd_material* materials = realloc(world->materials, (size_t)capacity * sizeof *materials);
        if (materials == NULL) {
            fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
            return null_id;
        }
        world->materials = materials;
        world->material_capacity = capacity;
    }
    /* Grow the square law table, keeping existing entries. */
    int old_count = world->material_count, new_count = old_count + 1;
    int* table = malloc((size_t)new_count * (size_t)new_count * sizeof *table);
    if (table == NULL) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
        return null_id;
    }
    for (int a = 0; a < new_count; ++a) {
        for (int b = 0; b < new_count; ++b) {
            table[a * new_count + b] = a < old_count && b < old_count ? world->law_table[a * old_count + b] : -1;
        }
    }
    free(world->law_table);
    world->law_table = table;
    fd_material* material = &world->materials[old_count];
    material->name = copy_string(def->name);
    material->density = def->density;
    material->youngs_modulus = def->youngs_modulus;
    material->poisson_ratio = def->poisson_ratio;
    world->material_count = new_count;
    world->prepared = false;
    world->forces_current = false;
    return (fd_material_id){old_count + 1};
}

fd_material_id fd_world_find_material(const fd_world* world, const char* name)
{
    for (int m = 0; name != NULL && m < world->material_count; ++m) {
        if (strcmp(world->materials[m].name, name) == 0) {
            return (fd_material_id){m + 1};
        }
    }
    return (fd_material_id){0};
}

int fd_world_material_count(const fd_world* world) { return world->material_count; }

const char* fd_material_name(const fd_world* world, fd_material_id id)
{
    return id.index1 >= 1 && id.index1 <= world->material_count ? world->materials[id.index1 - 1].name : "";
}

static int find_or_add_column(fd_world* world, const char* name, const char* unit)
{
    for (int k = 0; k < world->column_count; ++k) {
        if (strcmp(world->columns[k].name, name) == 0) {
            return k;
        }
    }
    if (world->column_count >= (int)(sizeof world->columns / sizeof world->columns[0])) {
        return -1;
    }
    world->columns[world->column_count] = (fd_column){name, unit};
    return world->column_count++;
}

static void free_contact_sets(fd_world* world)
{
    /* The pools' strides change with the laws: start them afresh. */
    fd_contact_set* sets[2] = {&world->contacts, &world->previous};
    for (int s = 0; s < 2; ++s) {
        free(sets[s]->contacts);
        free(sets[s]->history);
        free(sets[s]->columns);
        memset(sets[s], 0, sizeof *sets[s]);
    }
}

fd_status fd_world_set_contact_law(fd_world* world, fd_material_id a, fd_material_id b, const fd_contact_law_def* def)
{
    if (a.index1 < 1 || a.index1 > world->material_count || b.index1 < 1 || b.index1 > world->material_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "contact law: invalid material handle");
    }
    if (def == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "contact law: def is NULL");
    }
    if (world->step_count > 0 || world->contacts.count > 0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "contact law: laws must be set before the first step");
    }
    int ma = a.index1 - 1, mb = b.index1 - 1;
    fd_contact_law law;
    fd_status status = fd_contact_law_resolve(&law, def, &world->materials[ma], &world->materials[mb], ma, mb);
    if (status != FD_OK) {
        char message[2048];
        snprintf(message, sizeof message, "%s", fd_last_error());
        return fd_fail(status, "contact law for materials '%s' and '%s': %s", world->materials[ma].name,
                       world->materials[mb].name, message);
    }
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        const fd_submodel* model = law.submodel[m];
        for (int k = 0; model != NULL && k < model->column_count; ++k) {
            int column = find_or_add_column(world, model->column_names[k], model->column_units[k]);
            if (column < 0) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "too many contact output columns");
            }
            law.column_index[m][k] = column;
        }
    }
    int index = world->law_table[ma * world->material_count + mb];
    if (index < 0) {
        if (world->law_count == world->law_capacity) {
            int capacity = world->law_capacity > 0 ? 2 * world->law_capacity : 8;
            fd_contact_law* laws = realloc(world->laws, (size_t)capacity * sizeof *laws);
            if (laws == NULL) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
            }
            world->laws = laws;
            world->law_capacity = capacity;
        }
        index = world->law_count++;
    }
    world->laws[index] = law;
    world->law_table[ma * world->material_count + mb] = index;
    world->law_table[mb * world->material_count + ma] = index;
    if (law.history_size > world->history_stride) {
        world->history_stride = law.history_size;
    }
    free_contact_sets(world);
    fd_penalty_free(&world->penalty); /* its history blocks change with the laws */
    world->prepared = false;
    world->forces_current = false;
    return FD_OK;
}

fd_status fd_world_get_contact_law(const fd_world* world, fd_material_id a, fd_material_id b, fd_contact_law_def* out)
{
    if (a.index1 < 1 || a.index1 > world->material_count || b.index1 < 1 || b.index1 > world->material_count ||
        out == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "contact law: invalid material handle or NULL output");
    }
    int ma = a.index1 - 1, mb = b.index1 - 1;
    int index = world->law_table[ma * world->material_count + mb];
    if (index < 0) {
        return fd_fail(FD_ERR_NOT_FOUND, "no contact law for materials '%s' and '%s'", world->materials[ma].name,
                       world->materials[mb].name);
    }
    const fd_contact_law* law = &world->laws[index];
    memset(out, 0, sizeof *out);
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        const fd_submodel* model = law->submodel[m];
        out->submodel[m].model = model != NULL ? model->info.name : "none";
        for (int p = 0; model != NULL && p < model->info.param_count && p < FD_MAX_SUBMODEL_PARAMS; ++p) {
            out->submodel[m].params[p] = (fd_param){model->info.params[p].name, law->params[m][p]};
            out->submodel[m].param_count = p + 1;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- body names */

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
        if (entry.hash == (uint32_t)(hash >> 32) && strcmp(world->colds[entry.body].name, name) == 0) {
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
    const char* name = world->colds[body].name;
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
            if (b != body && world->colds[b].name[0] != '\0') {
                insert_name_slot(slots, slot_count, world->colds[b].name, b);
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
    const char* name = world->colds[body].name;
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
        uint32_t home = (uint32_t)name_hash(world->colds[slots[next].body].name) & mask;
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

/* ---------------------------------------------------------------- bodies */

/* Room for `needed` bodies in every per-body array: exactly that many when
 * asked (fd_world_reserve_bodies), else by doubling. */
static bool resize_bodies(fd_world* world, int capacity)
{
    int lane = 0;
    size_t old = (size_t)world->body_capacity;
#define FD_GROW(field)                                                                                 \
    do {                                                                                               \
        void* grown = fd_staggered_resize(world->field, old * sizeof *world->field,                    \
                                          (size_t)capacity * sizeof *world->field, lane++);            \
        if (grown == NULL) return false;                                                               \
        world->field = grown;                                                                          \
    } while (0)
    FD_GROW(position);
    FD_GROW(orientation);
    FD_GROW(velocity);
    FD_GROW(angular_velocity);
    FD_GROW(masses);
    FD_GROW(colds);
    FD_GROW(forces);
    FD_GROW(torques);
    FD_GROW(saved_position);
    FD_GROW(saved_orientation);
    FD_GROW(saved_velocity);
    FD_GROW(saved_angular_velocity);
    FD_GROW(saved_forces);
    FD_GROW(saved_torques);
    FD_GROW(motion);
    FD_GROW(bounding_radii);
    FD_GROW(is_static);
    FD_GROW(is_wall);
    FD_GROW(plane_normals);
    FD_GROW(lock_work);
    FD_GROW(is_removed);
    FD_GROW(generations);
#undef FD_GROW
    world->body_capacity = capacity;
    return true;
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
    cold->name = store_name(world, def->name);
    if (cold->name == NULL) {
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
    /* A removed body's slot goes on with the tombstone's generation, which
     * no handle of the removed body has (src/world/removal.c). */
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

bool fd_body_is_valid(const fd_world* world, fd_body_id id)
{
    return id.index1 >= 1 && id.index1 <= world->body_count &&
           world->generations[id.index1 - 1] == id.generation && !world->is_removed[id.index1 - 1];
}

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
    if (!fd_body_is_valid(world, id)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "invalid body handle");
    }
    int b = id.index1 - 1;
    if (world->colds[b].type == FD_BODY_STATIC) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s' is static", world->colds[b].name);
    }
    if (!fd_v3_is_finite(state->position) || !fd_v3_is_finite(state->velocity) ||
        !fd_v3_is_finite(state->angular_velocity) || !fd_quat_is_finite(state->orientation) ||
        fabs(fd_quat_norm(state->orientation) - 1.0) > 1e-6) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': state must be finite with a unit quaternion",
                       world->colds[b].name);
    }
    double before = body_mechanical_energy(world, b);
    fd_world_put_state(world, b, state);
    world->orientation[b] = fd_quat_normalize(state->orientation);
    if (world->has_energy_reference) {
        world->energy_totals.external_work += body_mechanical_energy(world, b) - before;
    }
    world->prepared = false;
    world->forces_current = false; /* forces belong to the old state */
    world->penalty.dirty = true;   /* a body moved by hand may meet pairs the neighbour list does not hold */
    return FD_OK;
}

const char* fd_body_get_name(const fd_world* world, fd_body_id id)
{
    return fd_body_is_valid(world, id) ? world->colds[id.index1 - 1].name : "";
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
    info.name = world->colds[b].name;
    info.type = world->colds[b].type;
    const fd_shape* shape = &world->colds[b].shape;
    info.shape = (fd_shape_def){.type = shape->type,
                                .radius = shape->radius,
                                .semi_axes = shape->type == FD_SHAPE_ELLIPSOID ? shape->semi_axes : fd_v3(0, 0, 0),
                                .plane_normal = shape->type == FD_SHAPE_PLANE ? shape->plane_normal : fd_v3(0, 0, 1),
                                .length = shape->length,
                                .capped = shape->capped,
                                .inner_radius = shape->inner_radius,
                                .offset = shape->offset,
                                .cap_of_shell = shape->cap_of_shell,
                                .mesh = shape->mesh,
                                .mesh_patch = shape->mesh_patch};
    info.wall = (fd_body_id){(uint32_t)world->colds[b].wall_group + 1, world->generations[world->colds[b].wall_group]};
    info.material = (fd_material_id){world->colds[b].material + 1};
    info.mass = world->colds[b].mass;
    info.inertia = world->masses[b].inertia;
    info.bounding_radius = world->colds[b].shape.bounding_radius;
    return info;
}

/* ---------------------------------------------------------------- energy ledger */

/* What the books say should stay constant: mechanical energy plus springs
 * plus what left (dissipated, released) minus what came in (created, work,
 * inserted). docs/energy.md. */
static double ledger_balance_of(const fd_world_energy* e)
{
    double balance = e->kinetic_translational + e->kinetic_rotational + e->gravitational + e->released +
                     e->removed - e->external_work - e->constraint_work - e->inserted;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        balance += e->stored[m] + e->dashpot[m] + e->slip[m] - e->created[m];
    }
    return balance;
}

static double ledger_balance(const fd_world* world)
{
    fd_world_energy energy = fd_world_get_energy(world);
    return ledger_balance_of(&energy);
}

/* Work of the external loads over a step, from the displacement (exact for a
 * constant force) and the rotation omega_1 h of the drift; and of the locks. */
void fd_world_book_step_work(fd_world* world, double h)
{
    fd_energy_totals* totals = &world->energy_totals;
    if (!world->has_external_loads && !world->has_locks) {
        return;
    }
    for (int b = 0; b < world->body_count; ++b) {
        if (world->colds[b].type != FD_BODY_DYNAMIC) {
            continue;
        }
        const fd_body_mass* mass = &world->masses[b];
        fd_vec3 moved = fd_v3_sub(world->position[b], world->saved_position[b]);
        const fd_body_extra* extra = fd_body_extras(mass);
        totals->external_work += fd_v3_dot(extra->external_force, moved) +
                                 h * fd_v3_dot(extra->external_torque, world->angular_velocity[b]);
        if (world->has_locks) {
            totals->constraint_work += world->lock_work[b];
        }
    }
}

/* ---------------------------------------------------------------- prepare */

/* A pair of materials without a law of its own inherits one from the laws of
 * each material with itself where the models define inheritance (PFC). */
static fd_status inherit_law(fd_world* world, int a, int b, int* law_index)
{
    int materials = world->material_count;
    int own_a = world->law_table[a * materials + a], own_b = world->law_table[b * materials + b];
    const char* name_a = world->materials[a].name;
    const char* name_b = world->materials[b].name;
    if (a == b || own_a < 0 || own_b < 0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "no contact law for materials '%s' and '%s' (add one under 'contacts'; a pair of materials "
                       "with PFC laws of their own inherits one)",
                       name_a, name_b);
    }
    fd_contact_law law;
    fd_status status = fd_pfc_inherit_law(&world->laws[own_a], &world->laws[own_b], &law);
    if (status != FD_OK) {
        char message[1024];
        snprintf(message, sizeof message, "%s", fd_last_error());
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "no contact law for materials '%s' and '%s' (add one under "
                       "'contacts'): %s", name_a, name_b, message);
    }
    law.material_a = a;
    law.material_b = b;
    if (world->law_count == world->law_capacity) {
        int capacity = world->law_capacity > 0 ? 2 * world->law_capacity : 8;
        fd_contact_law* laws = realloc(world->laws, (size_t)capacity * sizeof *laws);
        if (laws == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
        }
        world->laws = laws;
        world->law_capacity = capacity;
    }
    *law_index = world->law_count++;
    world->laws[*law_index] = law;
    world->law_table[a * materials + b] = *law_index;
    world->law_table[b * materials + a] = *law_index;
    return FD_OK;
}

void fd_world_add_warning(fd_world* world, const char* text)
{
    if (world->warning_count < (int)(sizeof world->warnings / sizeof world->warnings[0])) {
        snprintf(world->warnings[world->warning_count++], sizeof world->warnings[0], "%s", text);
    }
}

/* Bodies back into the periodic box (after a drift; at prepare for bodies
 * placed outside it). Planes are left where they are: their normal is
 * perpendicular to the periodic axes, so moving them along one changes nothing. */
static void wrap_positions(fd_world* world)
{
    const fd_periodic* periodic = &world->periodic;
    if (!periodic->any) {
        return;
    }
#pragma omp parallel for schedule(static) num_threads(world->def.thread_count) if (world->def.thread_count > 1)
    for (int b = 0; b < world->body_count; ++b) {
        if (world->is_wall[b]) {
            continue;
        }
        fd_vec3* x = &world->position[b];
        if (periodic->axis[0]) x->x = fd_periodic_wrap(x->x, periodic->low[0], periodic->length[0]);
        if (periodic->axis[1]) x->y = fd_periodic_wrap(x->y, periodic->low[1], periodic->length[1]);
        if (periodic->axis[2]) x->z = fd_periodic_wrap(x->z, periodic->low[2], periodic->length[2]);
    }
}

fd_status fd_world_prepare(fd_world* world)
{
    world->warning_count = 0;
    /* Every pair of materials that can touch (not both only on static bodies) needs a law. */
    int materials = world->material_count;
    bool* dynamic_material = calloc((size_t)(materials > 0 ? materials : 1), sizeof(bool));
    int* bodies_of_material = calloc((size_t)(materials > 0 ? materials : 1), sizeof(int));
    double* smallest_radius = malloc((size_t)(materials > 0 ? materials : 1) * sizeof(double));
    if (!dynamic_material || !bodies_of_material || !smallest_radius) {
        free(dynamic_material);
        free(bodies_of_material);
        free(smallest_radius);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int m = 0; m < materials; ++m) {
        smallest_radius[m] = INFINITY;
    }
    double lightest = INFINITY, largest_radius = 0.0, smallest_body_radius = INFINITY;
    for (int b = 0; b < world->body_count; ++b) {
        if (world->is_removed[b]) {
            continue;
        }
        int m = world->colds[b].material;
        bodies_of_material[m]++;
        if (world->colds[b].type == FD_BODY_DYNAMIC) {
            dynamic_material[m] = true;
            lightest = fmin(lightest, world->colds[b].mass);
        }
        if (!world->is_wall[b]) {
            largest_radius = fmax(largest_radius, world->bounding_radii[b]);
            smallest_body_radius = fmin(smallest_body_radius, world->bounding_radii[b]);
            smallest_radius[m] = fmin(smallest_radius[m], world->bounding_radii[b]);
        }
    }
    fd_world_inlet_extents(world, bodies_of_material, dynamic_material, smallest_radius, &lightest, &largest_radius);
    double smallest_sphere_radius = smallest_body_radius; /* bodies and the inlets' spheres */
    for (int m = 0; m < materials; ++m) {
        smallest_sphere_radius = fmin(smallest_sphere_radius, smallest_radius[m]);
    }
    fd_status status = FD_OK;
    for (int a = 0; a < materials && status == FD_OK; ++a) {
        for (int b = a; b < materials && status == FD_OK; ++b) {
            /* A material touches itself only if two bodies are made of it. */
            bool present = a == b ? bodies_of_material[a] >= 2 : bodies_of_material[a] > 0 && bodies_of_material[b] > 0;
            bool can_touch = present && (dynamic_material[a] || dynamic_material[b]);
            if (!can_touch) {
                continue;
            }
            int law = world->law_table[a * materials + b];
            if (law < 0) {
                status = inherit_law(world, a, b, &law);
                if (status != FD_OK) {
                    break;
                }
            }
            if (fd_law_never_touches(&world->laws[law])) {
                continue; /* either stepper leaves such pairs out */
            }
            /* Each stepper takes its own contact models. */
            bool rigid = world->laws[law].submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_RIGID;
            bool complementarity_stepper = world->def.stepper == FD_STEPPER_COMPLEMENTARITY;
            if (rigid != complementarity_stepper) {
                status = fd_fail(FD_ERR_INVALID_ARGUMENT,
                                 rigid ? "contact law for materials '%s' and '%s' has normal model 'rigid', which "
                                         "needs the complementarity stepper (stepper: complementarity)"
                                       : "contact law for materials '%s' and '%s': the complementarity stepper "
                                         "takes normal model 'rigid' with the cone friction models",
                                 world->materials[a].name, world->materials[b].name);
                break;
            }
        }
    }
    free(dynamic_material);
    free(bodies_of_material);
    free(smallest_radius);
    if (status != FD_OK) {
        return status;
    }

    /* The critical step of every spring and dashpot integrated explicitly,
     * with a warning when the step exceeds it (src/world/stability.c). */
    status = fd_world_estimate_critical_step(world);
    if (status != FD_OK) {
        return status;
    }

    /* Minimum image: a body may meet at most one image of another, so every
     * period must be at least twice the largest reach 2 r_max + margin. */
    for (int a = 0; a < 3; ++a) {
        double reach = 2.0 * largest_radius + world->def.contact_margin;
        if (world->periodic.axis[a] && !(world->periodic.length[a] >= 2.0 * reach)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "world: the periodic box is %g m along %c, less than 2 x (largest bounding diameter %g m + "
                           "contact margin %g m) = %g m: a body could touch two images of another",
                           world->periodic.length[a], "xyz"[a], 2.0 * largest_radius, world->def.contact_margin,
                           2.0 * reach);
        }
    }
    wrap_positions(world);

    fd_broadphase* bp = &world->broadphase;
    bp->periodic = world->periodic;
    bp->radii = world->bounding_radii;
    bp->is_static = world->is_static;
    bp->is_wall = world->is_wall;
    bp->plane_normals = world->plane_normals;
    bp->is_removed = world->is_removed;
    bool complementarity = world->def.stepper == FD_STEPPER_COMPLEMENTARITY;
    double margin = world->def.contact_margin;
    if (complementarity && margin == 0.0 && isfinite(smallest_body_radius)) {
        /* The non-smooth stepper must see a contact one step before the
         * bodies touch (its gap Phi > 0 enters Eq. 18 as Phi/h): an envelope
         * of a tenth of the smallest radius catches approach speeds up to
         * 0.1 r / h. Set contact_margin to choose another. */
        margin = 0.1 * smallest_body_radius;
    }
    bp->margin = margin;
    bp->thread_count = world->def.thread_count;
    double skin = 0.0;
    if (!complementarity) {
        /* The neighbour list's skin: given, or a tenth of the smallest
         * diameter (bodies and the inlets' spheres). */
        skin = world->def.neighbor_skin > 0.0 ? world->def.neighbor_skin
                                              : (isfinite(smallest_sphere_radius) ? 0.2 * smallest_sphere_radius : 0.0);
        status = fd_penalty_prepare(world, skin);
        if (status != FD_OK) {
            return status;
        }
    }
    double cell = 2.0 * largest_radius + margin + skin;
    bp->cell_size = fmax(world->def.cell_size, cell > 0.0 ? cell : 1.0);

    world->prepared = true;
    if (complementarity) {
        /* No force pass: the contacts of the initial state, for the outputs. */
        if (!world->forces_current) {
            fd_world_apply_external_loads(world);
            status = fd_world_find_contacts(world);
            if (status != FD_OK) {
                world->prepared = false;
                return status;
            }
            world->forces_current = true;
        }
    } else if (!world->forces_current) {
        /* Not after a body was added between steps: the kernels advance their
         * history when they run, so a second pass at the same state would
         * count this step's slide twice. */
        status = fd_penalty_forces(world);
        if (status != FD_OK) {
            fd_penalty_rollback(world);
            world->prepared = false;
            return status;
        }
        fd_penalty_commit(world);
        world->forces_current = true;
    }
    if (!world->has_energy_reference) {
        world->has_energy_reference = true;
        world->energy_reference = ledger_balance(world);
    }
    return status;
}

/* ---------------------------------------------------------------- step */

fd_status fd_world_step(fd_world* world)
{
    if (!world->prepared) {
        fd_status status = fd_world_prepare(world);
        if (status != FD_OK) {
            return status;
        }
    }
    if (world->def.stepper == FD_STEPPER_PENALTY) {
        return fd_penalty_step(world); /* src/penalty/stepper.c */
    }
    /* The complementarity stepper: copies of the state for rollback. */
    if (world->body_capacity == 0 && fd_world_reserve_bodies(world, 1) != FD_OK) {
        /* No bodies yet (an inlet may bring them), so no arrays: the copies
         * below must not hand memcpy null pointers, even for zero bytes. */
        return FD_ERR_OUT_OF_MEMORY;
    }
    size_t n = (size_t)world->body_count;
    memcpy(world->saved_position, world->position, n * sizeof *world->position);
    memcpy(world->saved_orientation, world->orientation, n * sizeof *world->orientation);
    memcpy(world->saved_velocity, world->velocity, n * sizeof *world->velocity);
    memcpy(world->saved_angular_velocity, world->angular_velocity, n * sizeof *world->angular_velocity);
    memcpy(world->saved_forces, world->forces, n * sizeof *world->forces);
    memcpy(world->saved_torques, world->torques, n * sizeof *world->torques);
    uint64_t saved_next_id = world->next_contact_id;
    fd_energy_totals saved_totals = world->energy_totals;
    double saved_stored[FD_MECHANISM_COUNT];
    memcpy(saved_stored, world->stored_energy, sizeof saved_stored);
    if (world->has_locks) {
        memset(world->lock_work, 0, n * sizeof *world->lock_work);
    }
    double dt = world->def.time_step;
    double saved_time = world->time;
    int64_t saved_step = world->step_count;
    fd_status status = fd_world_step_complementarity(world);
    if (status == FD_OK) {
        status = fd_world_check_finite(world);
    }
    if (status == FD_OK) {
        fd_world_book_step_work(world, dt);
    }
    if (status != FD_OK) {
        /* Roll back to the last good step: the caller can still write it out. */
        memcpy(world->position, world->saved_position, n * sizeof *world->position);
        memcpy(world->orientation, world->saved_orientation, n * sizeof *world->orientation);
        memcpy(world->velocity, world->saved_velocity, n * sizeof *world->velocity);
        memcpy(world->angular_velocity, world->saved_angular_velocity, n * sizeof *world->angular_velocity);
        memcpy(world->forces, world->saved_forces, n * sizeof *world->forces);
        memcpy(world->torques, world->saved_torques, n * sizeof *world->torques);
        if (status == FD_ERR_NON_FINITE) {
            fd_contact_set swap = world->contacts;
            world->contacts = world->previous;
            world->previous = swap;
        }
        world->next_contact_id = saved_next_id;
        world->energy_totals = saved_totals;
        memcpy(world->stored_energy, saved_stored, sizeof saved_stored);
        world->time = saved_time;
        world->step_count = saved_step;
        return status;
    }
    /* Bodies in the outlets leave, then spheres due from inlets join the
     * finished state (src/world/outlet.c, inlet.c). */
    status = fd_world_run_outlets(world);
    return status == FD_OK ? fd_world_run_inlets(world) : status;
}

/* ---------------------------------------------------------------- queries */

uint64_t fd_world_state_hash(const fd_world* world)
{
    /* FNV-1a, 64 bit, over the bytes of every body's state (all doubles, no
     * padding), body by body. */
    uint64_t hash = 1469598103934665603ull;
    for (int b = 0; b < world->body_count; ++b) {
        if (world->is_removed[b]) {
            continue; /* a tombstone's state is no body's */
        }
        fd_body_state state = fd_world_state(world, b);
        const unsigned char* bytes = (const unsigned char*)&state;
        for (size_t k = 0; k < sizeof state; ++k) {
            hash ^= bytes[k];
            hash *= 1099511628211ull;
        }
    }
    return hash;
}

fd_world_energy fd_world_get_energy(const fd_world* world)
{
    fd_world_energy energy = {0};
    for (int b = 0; b < world->body_count; ++b) {
        if (world->colds[b].type != FD_BODY_DYNAMIC) {
            continue;
        }
        fd_body_state state = fd_world_state(world, b);
        double m = world->colds[b].mass;
        energy.kinetic_translational += 0.5 * m * fd_v3_length_squared(state.velocity);
        energy.kinetic_rotational += fd_body_kinetic_rotational(&state, &world->masses[b]);
        energy.gravitational -= m * fd_v3_dot(world->def.gravity, state.position);
    }
    bool penalty = world->def.stepper == FD_STEPPER_PENALTY;
    if (penalty && !world->def.energy_ledger) {
        energy.closure_error = NAN;
        energy.entered = NAN;
        return energy;
    }
    const fd_energy_totals* totals = &world->energy_totals;
    /* Penalty stepper: the totals hold the books of contacts that ended; the
     * live contacts keep theirs (src/penalty/). */
    fd_energy_books live[FD_MECHANISM_COUNT] = {{0}};
    if (penalty) {
        fd_penalty_sum_books(world, live);
    }
    double live_work = 0.0;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        energy.stored[m] = penalty ? live[m].stored : world->stored_energy[m];
        energy.dashpot[m] = totals->dashpot[m] + live[m].dashpot;
        energy.slip[m] = totals->slip[m] + live[m].slip;
        energy.created[m] = totals->created[m] + live[m].created;
        live_work += live[m].work;
    }
    energy.normal_elastic = energy.stored[FD_MECHANISM_NORMAL];
    energy.released = totals->released;
    energy.external_work = totals->external_work + live_work;
    energy.constraint_work = totals->constraint_work;
    energy.inserted = totals->inserted;
    energy.removed = totals->removed;
    if (world->has_energy_reference) {
        energy.closure_error = ledger_balance_of(&energy) - world->energy_reference;
        /* The reference is the kinetic + gravitational + stored energy at
         * prepare; less the gravitational energy now (of the bodies there
         * are, and of those removed when they left), the rest is gravity's work. */
        energy.entered = world->energy_reference - energy.gravitational - totals->removed_gravitational +
                         energy.external_work + energy.constraint_work + energy.inserted;
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            energy.entered += energy.created[m];
        }
    }
    return energy;
}

int fd_world_contact_count(const fd_world* world)
{
    return world->def.stepper == FD_STEPPER_PENALTY ? (int)world->penalty.touching_count : world->contacts.count;
}

bool fd_world_contacts_recorded(const fd_world* world)
{
    return world->def.stepper != FD_STEPPER_PENALTY || !world->penalty.unrecorded;
}

void fd_world_request_contacts(fd_world* world) { world->contacts_requested = true; }

void fd_world_set_contact_output(fd_world* world, fd_contact_output mode)
{
    if (mode == FD_CONTACT_OUTPUT_EVERY_STEP || mode == FD_CONTACT_OUTPUT_ON_REQUEST) {
        world->def.contact_output = mode;
    }
}

fd_status fd_world_get_contact(const fd_world* world, int index, fd_contact_view* out)
{
    if (!fd_world_contacts_recorded(world)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "contact details were not recorded at step %lld (the world records them on request: "
                       "fd_world_request_contacts before the step, or contact_output FD_CONTACT_OUTPUT_EVERY_STEP)",
                       (long long)world->step_count);
    }
    if (index < 0 || index >= world->contacts.count || out == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "contact index %d out of range [0, %d)", index,
                       world->contacts.count);
    }
    const fd_contact* contact = &world->contacts.contacts[index];
    out->id = contact->id;
    out->body_i = fd_world_body_at(world, contact->body_i);
    out->body_j = fd_world_body_at(world, contact->body_j);
    out->first_step = contact->first_step;
    out->geometry = contact->geometry;
    out->loads = contact->loads;
    out->image_offset = contact->image_offset;
    out->columns = world->contacts.columns + (size_t)index * (size_t)world->column_count;
    out->column_count = world->column_count;
    memcpy(out->energy, contact->energy, sizeof out->energy);
    return FD_OK;
}

int fd_world_event_count(const fd_world* world) { return world->event_count; }
const fd_contact_event* fd_world_events(const fd_world* world) { return world->events; }

const char* fd_event_type_name(fd_event_type type)
{
    switch (type) {
    case FD_EVENT_CONTACT_ACTIVATED:
        return "contact_activated";
    case FD_EVENT_SLIP_STARTED:
        return "slip_started";
    case FD_EVENT_SLIP_ENDED:
        return "slip_ended";
    }
    return "unknown";
}

int fd_world_contact_column_count(const fd_world* world) { return world->column_count; }

const char* fd_world_contact_column_name(const fd_world* world, int column)
{
    return column >= 0 && column < world->column_count ? world->columns[column].name : "";
}

const char* fd_world_contact_column_unit(const fd_world* world, int column)
{
    return column >= 0 && column < world->column_count ? world->columns[column].unit : "";
}

int fd_world_find_contact_column(const fd_world* world, const char* name)
{
    for (int k = 0; name != NULL && k < world->column_count; ++k) {
        if (strcmp(world->columns[k].name, name) == 0) {
            return k;
        }
    }
    return -1;
}

fd_world_profile fd_world_get_profile(const fd_world* world)
{
    fd_world_profile profile = world->profile;
    profile.neighbor_builds = world->penalty.rebuilds;
    profile.neighbor_appended = world->penalty.appended;
    profile.neighbor_entries = world->penalty.lists[world->penalty.current].count;
    return profile;
}

size_t fd_world_bytes_per_body(void)
{
    return 2 * sizeof(fd_body_state) + 4 * sizeof(fd_vec3) + sizeof(fd_body_mass) + sizeof(fd_body_cold) +
           sizeof(fd_body_motion) + sizeof(double) + 3 * sizeof(bool) + sizeof(fd_vec3) + sizeof(double);
}

fd_world_memory fd_world_get_memory(const fd_world* world)
{
    fd_world_memory memory = {0};
    size_t capacity = (size_t)world->body_capacity;
    size_t per_body = fd_world_bytes_per_body();
    memory.bodies = capacity * per_body + (size_t)world->name_slot_count * sizeof(struct fd_name_slot);
    for (int b = 0; b < world->body_count; ++b) {
        memory.bodies += strlen(world->colds[b].name) + 1;
    }
    size_t pipeline = fd_penalty_memory(world);
    const fd_penalty* p = &world->penalty;
    size_t lists = (size_t)(p->lists[0].capacity + p->lists[1].capacity) *
                       (sizeof(int32_t) + sizeof(uint8_t) + sizeof(uint16_t) + sizeof(int32_t)) +
                   (size_t)p->reference_capacity * sizeof(fd_vec3);
    memory.neighbor_list = lists;
    size_t records = 0;
    const fd_contact_set* sets[2] = {&world->contacts, &world->previous};
    for (int k = 0; k < 2; ++k) {
        records += (size_t)sets[k]->capacity * (sizeof(fd_contact) + (size_t)world->column_count * sizeof(double) +
                                                (size_t)world->history_stride * sizeof(double));
    }
    memory.contacts = pipeline - lists + records;
    const fd_broadphase* bp = &world->broadphase;
    memory.scratch = (size_t)(bp->pair_capacity + bp->plane_pair_capacity + bp->grid_pair_capacity) * sizeof(uint64_t) +
                     (size_t)bp->bucket_capacity * 2 * sizeof(int32_t) +
                     (size_t)bp->scratch_capacity * (2 * sizeof(int32_t) + 3 * sizeof(int64_t) + 40);
    return memory;
}
