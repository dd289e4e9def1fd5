/* The world: creation, materials, contact laws, and the step (bodies in
 * world_bodies.c, fd_world_prepare and the ledger's step books in
 * world_prepare.c).
 *
 * A step is a readable list of stages (after Box2D's solver stages):
 *
 *   symplectic Euler (Fang & Negrut Sec. 4)   velocity Verlet
 *   kick(dt)     v1 = v0 + dt a0              kick(dt/2)
 *   drift(dt)    x1 = x0 + dt v1              drift(dt)
 *   forces at t1 (contact pass)               forces at t1
 *                                             kick(dt/2)
 *   check: every value finite, else roll back and report.
 *   inlets: the spheres due by the new time join the state (src/engine/inlet.c).
 *
 * Forces are computed at the end of a step, for the new state, so that the
 * contacts and loads reported after a step belong to the state reported with
 * them; the accelerations a0 used by the next kick are the ones stored here
 * (fd_world_prepare computes the first ones).
 *
 * Must not touch: files, ranks, the command line. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "complementarity/complementarity.h"
#include "core/error.h"
#include "core/grow.h"
#include "penalty/penalty.h"
#include "engine/engine.h"
#include "world/world_store.h"

/* ---------------------------------------------------------------- defaults */

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

/* ---------------------------------------------------------------- world */

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
    fd_periodic periodic = fd_periodic_none();
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
        fd_periodic_set_axis(&periodic, a, low, high - low);
    }
    fd_world* world = calloc(1, sizeof *world);
    fd_penalty* penalty = calloc(1, sizeof *penalty);
    if (world == NULL || penalty == NULL) {
        free(world);
        free(penalty);
        fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory creating the world");
        return NULL;
    }
    world->penalty = penalty; /* zeroed: no list, no pool yet (fd_penalty_prepare) */
    if (def->stepper == FD_STEPPER_COMPLEMENTARITY) {
        world->complementarity = fd_complementarity_create();
        if (world->complementarity == NULL) {
            free(world->penalty);
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
    fd_world_free_names(world);
    for (int m = 0; m < world->material_count; ++m) {
        free(world->materials[m].name);
    }
    fd_world_free_inlets(world);
    fd_world_free_outlets(world);
    fd_world_free_walls(world);
    fd_world_free_meshes(world);
    fd_world_free_body_arrays(world);
    fd_contact_set* sets[2] = {&world->contacts, &world->previous};
    for (int s = 0; s < 2; ++s) {
        FD_FREE_ALL(sets[s]->contacts, sets[s]->history, sets[s]->columns);
    }
    fd_broadphase_free(&world->broadphase);
    fd_penalty_free(world->penalty);
    fd_complementarity_free(world->complementarity);
    FD_FREE_ALL(world->free_slots, world->name_slots, world->special_bodies, world->held_runs, world->materials,
                world->laws, world->law_table, world->penalty, world->candidate_geometry, world->candidate_offset,
                world->candidate_touching, world->contact_energy, world->events);
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
    fd_world_note_change(world);
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
    fd_world_note_change(world);
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
        if (!fd_world_reserve_law(world)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
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
    fd_penalty_free(world->penalty); /* its history blocks change with the laws */
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

/* ---------------------------------------------------------------- step */

fd_status fd_world_step(fd_world* world)
{
    if (!world->prepared) {
        fd_status status = fd_world_prepare(world);
        if (status != FD_OK) {
            return status;
        }
    }
    /* The step of the world's stepper (each rolls back a failed step to the
     * last good one), then, on the finished state, bodies in the outlets
     * leave and spheres due from inlets join (src/engine/outlet.c, inlet.c). */
    fd_status status = world->def.stepper == FD_STEPPER_PENALTY
                           ? fd_penalty_step(world)           /* src/penalty/stepper.c */
                           : fd_complementarity_step(world);  /* src/complementarity/stepper.c */
    if (status != FD_OK) {
        return status;
    }
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

int fd_world_contact_count(const fd_world* world)
{
    return world->def.stepper == FD_STEPPER_PENALTY ? (int)world->penalty->touching_count : world->contacts.count;
}

bool fd_world_contacts_recorded(const fd_world* world)
{
    return world->def.stepper != FD_STEPPER_PENALTY || !world->penalty->unrecorded;
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
    profile.neighbor_builds = world->penalty->rebuilds;
    profile.neighbor_appended = world->penalty->appended;
    profile.neighbor_entries = world->penalty->lists[world->penalty->current].count;
    return profile;
}

size_t fd_world_bytes_per_body(void)
{
    return 2 * sizeof(fd_body_state) + 4 * sizeof(fd_vec3) + sizeof(fd_body_mass) + sizeof(fd_body_cold) +
           sizeof(fd_body_motion) + sizeof(double) + 3 * sizeof(bool) + sizeof(fd_vec3) + sizeof(double) +
           sizeof(uint32_t) + sizeof(char*);
}

fd_world_memory fd_world_get_memory(const fd_world* world)
{
    fd_world_memory memory = {0};
    size_t capacity = (size_t)world->body_capacity;
    size_t per_body = fd_world_bytes_per_body();
    memory.bodies = capacity * per_body + fd_world_name_slot_bytes(world);
    for (int b = 0; b < world->body_count; ++b) {
        memory.bodies += strlen(world->body_names[b]) + 1;
    }
    size_t pipeline = fd_penalty_memory(world);
    const fd_penalty* p = world->penalty;
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
