/* The contact search of the complementarity stepper, as a list of stages:
 *
 *   1. forces from gravity and external loads;
 *   2. broad phase: candidate pairs (i < j) in ascending key order, within
 *      the stepper's envelope;
 *   3. narrow phase per candidate: full contact geometry (independent per
 *      candidate, so it runs in parallel and writes only its own slot);
 *   4. persistent store: the touching candidates form the new contact array,
 *      merged with the previous one by key to carry identity and history;
 *      a new contact starts with zero history;
 *   5. the events of the contact set against its previous slip states.
 *
 * (The penalty stepper has its own pipeline with a neighbour list and sphere
 * kernels, src/penalty/.)
 *
 * Periodic boundaries: the narrow phase meets body j through its image
 * nearest to body i (fd_periodic_offset); the contact keeps that offset.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/grow.h"
#include "world/world_store.h"

bool fd_contact_set_resize(fd_contact_set* set, int capacity, int history_stride, int column_count)
{
    size_t rows = (size_t)capacity;
    /* Each contact's history and columns: a row of doubles (at least one) each. */
    bool ok = fd_resize((void**)&set->contacts, rows, sizeof *set->contacts) &&
              fd_resize((void**)&set->history, rows * (size_t)(history_stride > 0 ? history_stride : 1),
                        sizeof(double)) &&
              fd_resize((void**)&set->columns, rows * (size_t)(column_count > 0 ? column_count : 1), sizeof(double));
    if (ok) {
        set->capacity = capacity;
    }
    return ok;
}

static bool reserve_set(fd_contact_set* set, int count, int history_stride, int column_count)
{
    return count <= set->capacity ||
           fd_contact_set_resize(set, fd_doubled_capacity(set->capacity, count, 64), history_stride, column_count);
}

const char* fd_world_body_label(const fd_world* world, int body, char* text, size_t size)
{
    if (world->body_names[body][0] != '\0') {
        snprintf(text, size, "'%s' (#%d)", world->body_names[body], body);
    } else {
        snprintf(text, size, "#%d", body);
    }
    return text;
}

void fd_world_apply_external_loads(fd_world* world)
{
    for (int b = 0; b < world->body_count; ++b) {
        const fd_body_mass* mass = &world->masses[b];
        if (world->colds[b].type == FD_BODY_STATIC) {
            world->forces[b] = fd_v3(0, 0, 0);
            world->torques[b] = fd_v3(0, 0, 0);
            continue;
        }
        world->forces[b] =
            fd_v3_mul_add(fd_body_extras(mass)->external_force, world->colds[b].mass, world->def.gravity);
        world->torques[b] = fd_body_extras(mass)->external_torque;
    }
}

static fd_status run_narrow_phase(fd_world* world)
{
    fd_broadphase* bp = &world->broadphase;
    int count = bp->pair_count;
    if (count > world->candidate_capacity) {
        int capacity = world->candidate_capacity > 0 ? world->candidate_capacity : 64;
        while (capacity < count) {
            capacity *= 2;
        }
        fd_contact_geometry* geometry = realloc(world->candidate_geometry, (size_t)capacity * sizeof *geometry);
        if (geometry == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %d candidate pairs", count);
        }
        world->candidate_geometry = geometry;
        signed char* touching = realloc(world->candidate_touching, (size_t)capacity);
        if (touching == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %d candidate pairs", count);
        }
        world->candidate_touching = touching;
        fd_vec3* offsets = realloc(world->candidate_offset, (size_t)capacity * sizeof *offsets);
        if (offsets == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %d candidate pairs", count);
        }
        world->candidate_offset = offsets;
        world->candidate_capacity = capacity;
    }
    double margin = world->broadphase.margin; /* the scene's contact_margin, or the complementarity stepper's
                                               * envelope */
    const fd_periodic* periodic = &world->periodic;
#pragma omp parallel for schedule(static) num_threads(world->def.thread_count) if (world->def.thread_count > 1)
    for (int k = 0; k < count; ++k) {
        int i = (int)(bp->pairs[k] >> 32), j = (int)(bp->pairs[k] & 0xffffffffu);
        fd_pose pose_i = {world->position[i], world->orientation[i]};
        fd_pose pose_j = {world->position[j], world->orientation[j]};
        /* Periodic: body j's image nearest to body i (planes need none). */
        fd_vec3 offset = {0.0, 0.0, 0.0};
        if (periodic->any && !world->is_wall[i] && !world->is_wall[j]) {
            offset = fd_periodic_offset(periodic, pose_i.position, pose_j.position);
            pose_j.position = fd_v3_add(pose_j.position, offset);
        }
        world->candidate_offset[k] = offset;
        world->candidate_touching[k] = (signed char)fd_collide(&world->colds[i].shape, pose_i, &world->colds[j].shape,
                                                               pose_j, margin, &world->candidate_geometry[k]);
    }
    for (int k = 0; k < count; ++k) {
        if (world->candidate_touching[k] == FD_COLLIDE_UNSUPPORTED) {
            int i = (int)(bp->pairs[k] >> 32), j = (int)(bp->pairs[k] & 0xffffffffu);
            char a[300], b[300];
            return fd_fail(FD_ERR_UNSUPPORTED,
                           "contact between bodies %s and %s at step %lld, t = %.9g s: %s-%s contact is not supported",
                           fd_world_body_label(world, i, a, sizeof a), fd_world_body_label(world, j, b, sizeof b),
                           (long long)world->step_count, world->time,
                           world->colds[i].type == FD_BODY_STATIC && world->colds[i].shape.type == FD_SHAPE_PLANE
                               ? "plane"
                               : (world->colds[i].shape.type == FD_SHAPE_ELLIPSOID ? "ellipsoid" : "sphere"),
                           world->colds[j].shape.type == FD_SHAPE_ELLIPSOID ? "ellipsoid"
                           : world->colds[j].shape.type == FD_SHAPE_PLANE  ? "plane"
                                                                            : "sphere");
        }
    }
    return FD_OK;
}

/* Stage 4: new contact array from the touching candidates, merged with the
 * previous array (both in ascending key order). */
/* A contact that ended takes its springs' energy with it (a spring cut at
 * separation): the ledger books it as released, so the books still close. */
static void release_stored_energy(fd_world* world, const fd_contact* contact)
{
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        world->energy_totals.released += contact->energy[m].stored;
    }
}

/* A contact's loads, slip state and reaction columns before the solver has
 * run on it: zero reactions (NaN in the columns its law lacks, as the
 * solver leaves them). The contacts of the initial state are written out
 * as they are (t = 0, no step yet), so nothing here may stay unwritten. */
static void clear_reactions(const fd_world* world, fd_contact* contact, double* columns)
{
    contact->loads = (fd_contact_loads){0};
    contact->slip_flags = 0;
    for (int k = 0; k < world->column_count; ++k) {
        columns[k] = NAN;
    }
    const fd_contact_law* law = &world->laws[contact->law];
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        const fd_submodel* model = law->submodel[m];
        for (int k = 0; model != NULL && k < model->column_count; ++k) {
            columns[law->column_index[m][k]] = 0.0;
        }
    }
}

static fd_status build_contact_set(fd_world* world)
{
    fd_contact_set swap = world->previous;
    world->previous = world->contacts;
    world->contacts = swap;
    fd_contact_set* now = &world->contacts;
    const fd_contact_set* before = &world->previous;
    const fd_broadphase* bp = &world->broadphase;
    int stride = world->history_stride;
    int columns = world->column_count;

    if (!reserve_set(now, bp->pair_count, stride, columns)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %d contacts", bp->pair_count);
    }
    int count = 0, old = 0, carried = -1;
    for (int k = 0; k < bp->pair_count; ++k) {
        if (world->candidate_touching[k] != FD_COLLIDE_TOUCHING) {
            continue;
        }
        uint64_t key = bp->pairs[k];
        int i = (int)(key >> 32), j = (int)(key & 0xffffffffu);
        int material_i = world->colds[i].material, material_j = world->colds[j].material;
        int law = world->law_table[material_i * world->material_count + material_j];
        if (law < 0) {
            char a[300], b[300];
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "no contact law for materials '%s' and '%s' (bodies %s and %s)",
                           world->materials[material_i].name, world->materials[material_j].name,
                           fd_world_body_label(world, i, a, sizeof a), fd_world_body_label(world, j, b, sizeof b));
        }
        if (fd_law_never_touches(&world->laws[law])) {
            continue; /* materials that never touch (normal model none) */
        }
        while (old < before->count && before->contacts[old].key < key) {
            if (old != carried) {
                release_stored_energy(world, &before->contacts[old]);
            }
            ++old;
        }
        fd_contact* contact = &now->contacts[count];
        double* history = now->history + (size_t)count * (size_t)stride;
        contact->key = key;
        contact->body_i = i;
        contact->body_j = j;
        contact->law = law;
        contact->geometry = world->candidate_geometry[k];
        contact->image_offset = world->candidate_offset[k];
        clear_reactions(world, contact, now->columns + (size_t)count * (size_t)columns);
        if (old < before->count && before->contacts[old].key == key && before->contacts[old].law == law) {
            contact->id = before->contacts[old].id;
            contact->first_step = before->contacts[old].first_step;
            memcpy(contact->energy, before->contacts[old].energy, sizeof contact->energy);
            contact->previous_slip_flags = before->contacts[old].slip_flags;
            memcpy(history, before->history + (size_t)old * (size_t)stride, (size_t)stride * sizeof(double));
            carried = old;
        } else {
            contact->id = world->next_contact_id++;
            contact->first_step = world->step_count;
            memset(contact->energy, 0, sizeof contact->energy);
            contact->previous_slip_flags = 0;
            memset(history, 0, (size_t)stride * sizeof(double));
        }
        ++count;
    }
    for (; old < before->count; ++old) {
        if (old != carried) {
            release_stored_energy(world, &before->contacts[old]);
        }
    }
    now->count = count;
    if (count > world->contact_energy_capacity) {
        int capacity = count + count / 2 + 16;
        fd_energy_books* grown =
            realloc(world->contact_energy, (size_t)capacity * FD_MECHANISM_COUNT * sizeof *world->contact_energy);
        if (!grown) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the energy books of %d contacts", count);
        }
        world->contact_energy = grown;
        world->contact_energy_capacity = capacity;
    }
    return FD_OK;
}

bool fd_world_push_event(fd_world* world, fd_event_type type, fd_mechanism mechanism, uint64_t id, int body_i,
                         int body_j)
{
    if (!fd_grow_doubling((void**)&world->events, &world->event_capacity, world->event_count + 1, 64,
                          sizeof *world->events)) {
        return false;
    }
    world->events[world->event_count++] = (fd_contact_event){
        .type = type,
        .mechanism = mechanism,
        .contact_id = id,
        .body_i = fd_world_body_at(world, body_i),
        .body_j = fd_world_body_at(world, body_j),
        .step = world->step_count,
        .time = world->time,
    };
    return true;
}

static bool add_event(fd_world* world, fd_event_type type, fd_mechanism mechanism, const fd_contact* contact)
{
    return fd_world_push_event(world, type, mechanism, contact->id, contact->body_i, contact->body_j);
}

/* Stage 6b: events, in contact order (deterministic for any thread count). */
fd_status fd_world_raise_events(fd_world* world)
{
    world->event_count = 0;
    const fd_contact_set* set = &world->contacts;
    for (int c = 0; c < set->count; ++c) {
        const fd_contact* contact = &set->contacts[c];
        bool ok = true;
        if (contact->first_step == world->step_count) {
            ok = add_event(world, FD_EVENT_CONTACT_ACTIVATED, FD_MECHANISM_NORMAL, contact);
        }
        unsigned changed = contact->slip_flags ^ contact->previous_slip_flags;
        for (int m = FD_MECHANISM_SLIDE; ok && changed != 0 && m < FD_MECHANISM_COUNT; ++m) {
            if (changed & (1u << m)) {
                fd_event_type type = (contact->slip_flags & (1u << m)) ? FD_EVENT_SLIP_STARTED : FD_EVENT_SLIP_ENDED;
                ok = add_event(world, type, (fd_mechanism)m, contact);
            }
        }
        if (!ok) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact events");
        }
    }
    return FD_OK;
}

double fd_wall_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

fd_status fd_world_find_contacts(fd_world* world)
{
    fd_world_profile* profile = &world->profile;
    double start = fd_wall_seconds();
    fd_broadphase* bp = &world->broadphase;
    bp->body_count = world->body_count;
    bp->positions = world->position;
    if (!fd_broadphase_update(bp)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory in the broad phase");
    }
    double broad_done = fd_wall_seconds();
    profile->broad_phase += broad_done - start;
    fd_status status = run_narrow_phase(world);
    if (status != FD_OK) {
        return status;
    }
    status = build_contact_set(world);
    profile->narrow_phase += fd_wall_seconds() - broad_done;
    return status;
}
