/* The force pass of the penalty stepper, as a list of stages (penalty.h
 * gives the design and why):
 *
 *   0. the neighbour list, rebuilt when a body has moved half the skin;
 *   1. distance pass, per thread over its rows: which entries touch, into a
 *      short list (generic pairs get their full geometry here);
 *   2. serial: contact numbering in key order (ids of new contacts, the
 *      record's indices), failures reported in key order;
 *   3. law pass, per thread over its touching contacts in descending key
 *      order: the law, the loads onto the two bodies (or into the thread's
 *      buffer for a body of a later thread's range), the record;
 *   4. serial: buffered loads, latest thread first; the ledger's retired
 *      contacts and the events, in key order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "penalty/penalty_internal.h"
#include "penalty/sphere_block.h"
#include "penalty/sphere_kernel.h"
#include "world/world_internal.h"

enum { FAILURE_NONE = 0, FAILURE_UNSUPPORTED = 1, FAILURE_NO_LAW = 2, FAILURE_MEMORY = 3 };

static bool grow(void** array, int64_t* capacity, int64_t needed, size_t element_size)
{
    if (needed <= *capacity) {
        return true;
    }
    int64_t grown_capacity = *capacity > 0 ? *capacity : 256;
    while (grown_capacity < needed) {
        grown_capacity *= 2;
    }
    void* grown = realloc(*array, (size_t)grown_capacity * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    *capacity = grown_capacity;
    return true;
}

void fd_penalty_free(fd_penalty* penalty)
{
    fd_neighbor_list_free(&penalty->lists[0]);
    fd_neighbor_list_free(&penalty->lists[1]);
    free(penalty->reference_position);
    free(penalty->places);
    for (int t = 0; t < penalty->thread_count; ++t) {
        fd_penalty_thread* th = &penalty->threads[t];
        free(th->touching);
        free(th->slots);
        free(th->remote);
        free(th->ended);
        free(th->columns);
        free(th->block);
    }
    free(penalty->threads);
    free(penalty->undo);
    free(penalty->law_sphere_kernel);
    free(penalty->block_law_index);
    free(penalty->block_laws);
    memset(penalty, 0, sizeof *penalty);
}

fd_status fd_penalty_prepare(fd_world* world, double skin)
{
    fd_penalty* p = &world->penalty;
    bool* flags = realloc(p->law_sphere_kernel, (size_t)(world->law_count > 0 ? world->law_count : 1) * sizeof *flags);
    if (flags == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    p->law_sphere_kernel = flags;
    int* block_index = realloc(p->block_law_index, (size_t)(world->law_count > 0 ? world->law_count : 1) * sizeof(int));
    fd_block_law* block_laws =
        realloc(p->block_laws, (size_t)(world->law_count > 0 ? world->law_count : 1) * sizeof(fd_block_law));
    if (block_index == NULL || block_laws == NULL) {
        free(block_index);
        free(block_laws);
        p->block_law_index = NULL;
        p->block_laws = NULL;
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    p->block_law_index = block_index;
    p->block_laws = block_laws;
    p->block_law_count = 0;
    for (int l = 0; l < world->law_count; ++l) {
        block_index[l] = fd_block_law_of(&world->laws[l], l, world->def.time_step, &block_laws[p->block_law_count])
                             ? p->block_law_count++
                             : -1;
    }
    int stride = 1;
    for (int l = 0; l < world->law_count; ++l) {
        flags[l] = fd_law_has_sphere_kernel(&world->laws[l]);
        if (flags[l]) {
            int count = fd_law_constant_count(&world->laws[l]);
            stride = count > stride ? count : stride;
        }
    }
    if (skin != p->skin || stride != p->constant_stride) {
        p->dirty = true;
    }
    p->skin = skin;
    p->constant_stride = stride;
    /* A list built before this prepare carries over: a rebuild decides. */
    if (p->lists[p->current].row_start != NULL && p->lists[p->current].body_count != world->body_count) {
        p->dirty = true;
    }
    return FD_OK;
}

static fd_status reserve_threads(fd_world* world, int threads)
{
    fd_penalty* p = &world->penalty;
    if (threads > p->thread_count) {
        fd_penalty_thread* grown = realloc(p->threads, (size_t)threads * sizeof *grown);
        if (grown == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact pass");
        }
        memset(grown + p->thread_count, 0, (size_t)(threads - p->thread_count) * sizeof *grown);
        p->threads = grown;
        p->thread_count = threads;
    }
    for (int t = 0; t < threads; ++t) {
        fd_penalty_thread* th = &p->threads[t];
        if (th->block == NULL) {
            th->block = aligned_alloc(64, (sizeof(fd_sphere_block) + 63) / 64 * 64);
            if (th->block == NULL) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact pass");
            }
        }
        if (th->columns == NULL || world->column_count > 0) {
            double* columns = realloc(th->columns, (size_t)(world->column_count > 0 ? world->column_count : 1) *
                                                       sizeof(double));
            if (columns == NULL) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact pass");
            }
            th->columns = columns;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- stage 0: the list */

static bool list_is_stale(const fd_world* world)
{
    const fd_penalty* p = &world->penalty;
    const fd_neighbor_list* list = &p->lists[p->current];
    double half_skin = 0.5 * p->skin;
    return p->dirty || list->row_start == NULL || list->body_count != world->body_count ||
           list->thread_count != world->def.thread_count || !(p->max_displacement_squared <= half_skin * half_skin);
}

static fd_status refresh_list(fd_world* world)
{
    fd_penalty* p = &world->penalty;
    p->rebuilt_this_step = false;
    if (!list_is_stale(world)) {
        return FD_OK;
    }
    int next = 1 - p->current;
    const fd_neighbor_list* old = p->lists[p->current].row_start != NULL ? &p->lists[p->current] : NULL;
    fd_status status = fd_neighbor_list_build(world, &p->lists[next], old);
    if (status != FD_OK) {
        return status;
    }
    p->current = next;
    p->rebuilt_this_step = old != NULL;
    p->dirty = false;
    return FD_OK;
}

/* ---------------------------------------------------------------- stage 1: distance pass */

/* The generic pairs of a row's entry: the full narrow phase into a slot of
 * the thread (kept for the law pass). Returns whether it touches. */
static __attribute__((noinline)) bool generic_distance(const fd_world* world, fd_penalty_thread* th, int64_t e,
                                                       int i, int j, int32_t* slot)
{
    const fd_body_state* states = world->states;
    int64_t capacity = th->slot_capacity;
    if (!grow((void**)&th->slots, &capacity, th->slot_count + 1, sizeof *th->slots)) {
        th->failure = FAILURE_MEMORY;
        return false;
    }
    th->slot_capacity = (int32_t)capacity;
    fd_generic_slot* generic = &th->slots[th->slot_count];
    fd_pose pose_i = {states[i].position, states[i].orientation};
    fd_pose pose_j = {states[j].position, states[j].orientation};
    generic->offset = fd_v3(0.0, 0.0, 0.0);
    if (world->periodic.any && !world->is_plane[i] && !world->is_plane[j]) {
        generic->offset = fd_periodic_near_offset(&world->periodic, fd_v3_sub(pose_i.position, pose_j.position));
        pose_j.position = fd_v3_add(pose_j.position, generic->offset);
    }
    fd_collide_result result = fd_collide(&world->colds[i].shape, pose_i, &world->colds[j].shape, pose_j,
                                          world->def.contact_margin, &generic->geometry);
    if (result == FD_COLLIDE_UNSUPPORTED && th->failure == FAILURE_NONE) {
        th->failure = FAILURE_UNSUPPORTED;
        th->failed_entry = e;
    }
    if (result != FD_COLLIDE_TOUCHING) {
        return false;
    }
    *slot = th->slot_count++;
    return true;
}

static __attribute__((noinline)) void note_ended(fd_penalty_thread* th, int64_t e)
{
    if (!grow((void**)&th->ended, &th->ended_capacity, th->ended_count + 1, sizeof *th->ended)) {
        th->failure = FAILURE_MEMORY;
        return;
    }
    th->ended[th->ended_count++] = e;
}

/* Stage 1 over rows [first_row, end_row). The touching entries are written
 * without a branch on the test (a pair is as likely to touch as not): each
 * entry's slot is filled and the count advances by the test's outcome. */
static void distance_pass(const fd_world* world, const fd_neighbor_list* list, fd_penalty_thread* th, int first_row,
                          int end_row)
{
    th->touching_count = 0;
    th->slot_count = 0;
    th->ended_count = 0;
    th->new_count = 0;
    th->remote_count = 0;
    th->failure = FAILURE_NONE;
    th->failed_entry = -1;
    int64_t entries = list->row_start[end_row] - list->row_start[first_row];
    if (!grow((void**)&th->touching, &th->touching_capacity, entries + 1, sizeof *th->touching)) {
        th->failure = FAILURE_MEMORY;
        return;
    }
    const fd_place* places = world->penalty.places;
    const fd_periodic* periodic = &world->periodic;
    bool any_periodic = periodic->any;
    double margin = world->def.contact_margin;
    fd_touch* touching = th->touching;
    int64_t count = 0, new_count = 0;
    const int32_t* partner = list->partner;
    const uint8_t* kind = list->kind;
    const uint8_t* state = list->state;
    for (int i = first_row; i < end_row; ++i) {
        const fd_place pi = places[i];
        fd_vec3 xi = {pi.x, pi.y, pi.z};
        double ri = pi.radius + margin;
        int64_t end = list->row_start[i + 1];
        for (int64_t e = list->row_start[i]; e < end; ++e) {
            int j = partner[e];
            const fd_place pj = places[j];
            fd_vec3 xj = {pj.x, pj.y, pj.z};
            bool touches;
            int32_t slot = -1;
            switch (kind[e]) {
            case FD_PAIR_SPHERE_SPHERE: {
                fd_vec3 d = fd_v3_sub(xi, xj);
                if (any_periodic) {
                    d = fd_v3_sub(d, fd_periodic_near_offset(periodic, d));
                }
                double reach = ri + pj.radius;
                touches = fd_v3_dot(d, d) < reach * reach;
                break;
            }
            case FD_PAIR_SPHERE_PLANE:
                touches = fd_v3_dot(fd_v3_sub(xi, xj), world->plane_normals[j]) < ri;
                break;
            case FD_PAIR_PLANE_SPHERE:
                touches = fd_v3_dot(fd_v3_sub(xj, xi), world->plane_normals[i]) < pj.radius + margin;
                break;
            default:
                touches = generic_distance(world, th, e, i, j, &slot);
                if (th->failure == FAILURE_MEMORY) {
                    return;
                }
                break;
            }
            unsigned was_touching = state[e] & FD_ENTRY_TOUCHING;
            touching[count] = (fd_touch){e, i, slot};
            count += touches;
            new_count += touches & !was_touching;
            if (was_touching & !touches) {
                note_ended(th, e);
            }
        }
    }
    th->touching_count = count;
    th->new_count = new_count;
    /* A touching pair without a law (prepare checks the laws, so only a
     * world changed under it gets here). */
    for (int64_t k = 0; k < count && th->failure == FAILURE_NONE; ++k) {
        if (list->law[touching[k].entry] == FD_NO_LAW) {
            th->failure = FAILURE_NO_LAW;
            th->failed_entry = touching[k].entry;
        }
    }
}

static fd_status report_failure(const fd_world* world, const fd_neighbor_list* list, const fd_penalty_thread* th)
{
    if (th->failure == FAILURE_MEMORY) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory in the contact pass");
    }
    int64_t e = th->failed_entry;
    int i = 0;
    while (list->row_start[i + 1] <= e) {
        ++i;
    }
    int j = list->partner[e];
    char a[300], b[300];
    if (th->failure == FAILURE_NO_LAW) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "no contact law for materials '%s' and '%s' (bodies %s and %s)",
                       world->materials[world->colds[i].material].name, world->materials[world->colds[j].material].name,
                       fd_world_body_label(world, i, a, sizeof a), fd_world_body_label(world, j, b, sizeof b));
    }
    static const char* const shape_names[] = {"sphere", "plane", "ellipsoid"};
    return fd_fail(FD_ERR_UNSUPPORTED,
                   "contact between bodies %s and %s at step %lld, t = %.9g s: %s-%s contact is not supported",
                   fd_world_body_label(world, i, a, sizeof a), fd_world_body_label(world, j, b, sizeof b),
                   (long long)world->step_count, world->time, shape_names[world->colds[i].shape.type],
                   shape_names[world->colds[j].shape.type]);
}

/* ---------------------------------------------------------------- stage 3: law pass */

/* What stage 3 writes for one contact when the pass records. */
typedef struct record_target {
    fd_contact* contact;
    double* columns;
} record_target;

static void book_lifetime(fd_energy_books* lifetime, const fd_energy_books* step)
{
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        lifetime[m].stored = step[m].stored;
        lifetime[m].dashpot += step[m].dashpot;
        lifetime[m].slip += step[m].slip;
        lifetime[m].created += step[m].created;
        lifetime[m].work += step[m].work;
    }
}

/* The normal spring's books for the registry's normal models (contacts.c
 * before: the prescribed force's work; pfc_linear books its own). */
static void book_normal_energy(const fd_contact_law* law, const fd_contact_input* input,
                               const fd_normal_result* normal, fd_energy_books* books)
{
    double overlap_change = input->penetration_rate * input->time_step;
    switch (law->submodel[FD_MECHANISM_NORMAL]->kind) {
    case FD_KIND_NORMAL_PRESCRIBED:
        books->work = -normal->force * overlap_change;
        break;
    case FD_KIND_NORMAL_PFC_LINEAR:
        break;
    default:
        books->stored = normal->elastic_energy;
        books->dashpot = (normal->force - normal->elastic_force) * overlap_change;
        break;
    }
}

static double effective_mass(double mass_i, double mass_j)
{
    if (mass_i <= 0.0) {
        return mass_j;
    }
    if (mass_j <= 0.0) {
        return mass_i;
    }
    return mass_i * mass_j / (mass_i + mass_j);
}

/* A generic pair: the registry's kernels on the full geometry. Fills the
 * loads and the torques on both bodies (arms from the midpoint of the two
 * surface points; body j's image across a periodic face). */
static void generic_contact(const fd_world* world, const fd_contact_law* law, int i, int j,
                            const fd_generic_slot* slot, bool is_new, double* history, double* columns,
                            fd_energy_books* step_books, unsigned* slip_flags, fd_contact_loads* loads,
                            fd_vec3* torque_i, fd_vec3* torque_j)
{
    const fd_body_state* state_i = &world->states[i];
    fd_body_state image_j = world->states[j];
    image_j.position = fd_v3_add(image_j.position, slot->offset);
    const fd_contact_geometry* geometry = &slot->geometry;
    fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(geometry->point_i, geometry->point_j));
    fd_vec3 arm_i = fd_v3_sub(point, state_i->position);
    fd_vec3 arm_j = fd_v3_sub(point, image_j.position);
    fd_vec3 velocity_i = fd_v3_add(state_i->velocity, fd_v3_cross(state_i->angular_velocity, arm_i));
    fd_vec3 velocity_j = fd_v3_add(image_j.velocity, fd_v3_cross(image_j.angular_velocity, arm_j));
    const fd_material* material_i = &world->materials[world->colds[i].material];
    const fd_material* material_j = &world->materials[world->colds[j].material];
    fd_contact_input input = {
        .geometry = geometry,
        .state_i = state_i,
        .state_j = &image_j,
        .mass_i = world->colds[i].mass,
        .mass_j = world->colds[j].mass,
        .inertia_i = world->masses[i].inertia,
        .inertia_j = world->masses[j].inertia,
        .effective_mass = effective_mass(world->colds[i].mass, world->colds[j].mass),
        /* n points into body i: the overlap grows when j moves along n faster than i. */
        .penetration_rate = fd_v3_dot(fd_v3_sub(velocity_j, velocity_i), geometry->normal),
        .relative_velocity = fd_v3_sub(velocity_i, velocity_j),
        .time_step = world->def.time_step,
        .is_new = is_new,
        .shape_i = world->colds[i].shape.type,
        .shape_j = world->colds[j].shape.type,
        .radius_i = world->colds[i].shape.radius,
        .radius_j = world->colds[j].shape.radius,
        .youngs_modulus_i = material_i->youngs_modulus,
        .youngs_modulus_j = material_j->youngs_modulus,
        .poisson_ratio_i = material_i->poisson_ratio,
        .poisson_ratio_j = material_j->poisson_ratio,
        .history = history,
        .energy = step_books,
        .slip_flags = slip_flags,
    };
    fd_normal_result normal = fd_normal_evaluate(law, &input);
    book_normal_energy(law, &input, &normal, &step_books[FD_MECHANISM_NORMAL]);
    const int* normal_columns = law->column_index[FD_MECHANISM_NORMAL];
    if (law->submodel[FD_MECHANISM_NORMAL]->column_count >= 2) {
        columns[normal_columns[0]] = normal.elastic_force;
        columns[normal_columns[1]] = normal.damping_force;
    }
    memset(loads, 0, sizeof *loads);
    loads->normal_force = normal.force;
    fd_friction_evaluate(law, &input, normal.force, history, columns, loads);
    loads->force_on_i = fd_v3_add(fd_v3_scale(normal.force, geometry->normal), loads->slide_force);
    *torque_i = fd_v3_add(fd_v3_cross(arm_i, loads->force_on_i), fd_v3_add(loads->roll_torque_i, loads->spin_torque_i));
    *torque_j = fd_v3_add(fd_v3_cross(arm_j, fd_v3_neg(loads->force_on_i)),
                          fd_v3_add(loads->roll_torque_j, loads->spin_torque_j));
}

/* The full geometry of a sphere pair, for the record (fd_collide with an
 * unbounded margin: the pass already decided that the pair touches). */
static void sphere_pair_geometry(const fd_world* world, int i, int j, fd_vec3 offset, fd_contact_geometry* geometry)
{
    fd_pose pose_i = {world->states[i].position, world->states[i].orientation};
    fd_pose pose_j = {fd_v3_add(world->states[j].position, offset), world->states[j].orientation};
    fd_collide(&world->colds[i].shape, pose_i, &world->colds[j].shape, pose_j, INFINITY, geometry);
}

/* What the law of one contact gives its two bodies. */
typedef struct contact_loads {
    fd_vec3 force;                /* on body i; body j takes the opposite */
    fd_vec3 torque_i, torque_j;
    unsigned slip;                /* FD_ENTRY_SLIP_* */
} contact_loads;

/* The bookkeeping of a contact that begins, and the undo log of one that goes
 * on (fd_penalty_rollback); out of the hot loop's way. */
static __attribute__((noinline)) void begin_contact(const fd_world* world, fd_neighbor_list* list, int64_t e, int i,
                                                    int j, int stride, bool ledger, uint64_t id, int64_t step)
{
    if (list->kind[e] != FD_PAIR_GENERIC) {
        fd_pair_constants(world, list, e, i, j);
    }
    memset(list->history + (size_t)e * (size_t)stride, 0, (size_t)stride * sizeof(double));
    if (ledger) {
        memset(list->books + (size_t)e * FD_MECHANISM_COUNT, 0, FD_MECHANISM_COUNT * sizeof(fd_energy_books));
    }
    list->contact_id[e] = id;
    list->first_step[e] = step;
}

/* Slip bits of the registry's kernels (1 << mechanism) as FD_ENTRY_SLIP_*. */
static unsigned entry_slip_bits(unsigned flags)
{
    unsigned slip = 0;
    for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
        slip |= (flags & (1u << m)) ? (unsigned)FD_ENTRY_SLIP_SLIDE << (m - 1) : 0u;
    }
    return slip;
}

/* A generic pair (registry kernels, full geometry), with its record and its
 * books. */
static __attribute__((noinline)) contact_loads generic_entry(fd_world* world, fd_neighbor_list* list,
                                                             const fd_penalty_thread* th, fd_touch touch,
                                                             bool is_new, bool ledger, bool record, int64_t index)
{
    int64_t e = touch.entry;
    int i = touch.row, j = list->partner[e];
    const fd_contact_law* law = &world->laws[list->law[e]];
    double* history = list->history + (size_t)e * (size_t)world->history_stride;
    const fd_generic_slot* slot = &th->slots[touch.slot];
    double* columns = record ? world->previous.columns + (size_t)index * (size_t)world->column_count : th->columns;
    fd_energy_books step_books[FD_MECHANISM_COUNT];
    memset(step_books, 0, sizeof step_books);
    fd_contact_loads loads;
    unsigned flags = 0;
    contact_loads out;
    generic_contact(world, law, i, j, slot, is_new, history, columns, step_books, &flags, &loads, &out.torque_i,
                    &out.torque_j);
    out.force = loads.force_on_i;
    out.slip = entry_slip_bits(flags);
    fd_energy_books* lifetime = ledger ? list->books + (size_t)e * FD_MECHANISM_COUNT : NULL;
    if (ledger) {
        book_lifetime(lifetime, step_books);
    }
    if (record) {
        fd_contact* contact = &world->previous.contacts[index];
        contact->geometry = slot->geometry;
        contact->loads = loads;
        contact->image_offset = slot->offset;
        if (ledger) {
            memcpy(contact->energy, lifetime, sizeof contact->energy);
        } else {
            memset(contact->energy, 0, sizeof contact->energy);
            for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
                contact->energy[m].stored = step_books[m].stored;
            }
        }
    }
    return out;
}

/* The record of a sphere contact: the full geometry (fd_collide), the loads
 * and the model columns from the kernel's results and the new history. */
static __attribute__((noinline)) void record_sphere_contact(fd_world* world, const fd_neighbor_list* list,
                                                            int64_t e, int i, int j, int64_t index, fd_vec3 offset,
                                                            fd_vec3 n, const fd_sphere_loads* loads,
                                                            const fd_energy_books* step_books,
                                                            const contact_loads* out, bool ledger)
{
    const fd_contact_law* law = &world->laws[list->law[e]];
    const double* history = list->history + (size_t)e * (size_t)world->history_stride;
    fd_contact* contact = &world->previous.contacts[index];
    double* columns = world->previous.columns + (size_t)index * (size_t)world->column_count;
    sphere_pair_geometry(world, i, j, offset, &contact->geometry);
    contact->image_offset = offset;
    const int* normal_columns = law->column_index[FD_MECHANISM_NORMAL];
    if (law->submodel[FD_MECHANISM_NORMAL]->column_count >= 2) {
        columns[normal_columns[0]] = loads->elastic_force;
        columns[normal_columns[1]] = loads->damping_force;
    }
    static const int springs[FD_MECHANISM_COUNT] = {0, 3, 3, 1}; /* history doubles shown: slide xi, roll xi, spin xi */
    for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
        if (law->submodel[m] == NULL) {
            continue;
        }
        const double* h = history + law->history_offset[m];
        for (int c = 0; c < springs[m]; ++c) {
            columns[law->column_index[m][c]] = h[c];
        }
        columns[law->column_index[m][springs[m]]] = (out->slip & (FD_ENTRY_SLIP_SLIDE << (m - 1))) ? 1.0 : 0.0;
    }
    contact->loads = (fd_contact_loads){
        .normal_force = loads->normal_force,
        .slide_force = loads->slide_force,
        .roll_torque_i = loads->roll_torque,
        .roll_torque_j = fd_v3_neg(loads->roll_torque),
        .spin_torque_i = fd_v3_scale(loads->spin_torque, n),
        .spin_torque_j = fd_v3_scale(-loads->spin_torque, n),
        .force_on_i = out->force,
    };
    if (ledger) {
        memcpy(contact->energy, list->books + (size_t)e * FD_MECHANISM_COUNT, sizeof contact->energy);
    } else {
        memset(contact->energy, 0, sizeof contact->energy);
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            contact->energy[m].stored = step_books[m].stored;
        }
    }
}

/* The identity part of a record, for both paths. */
static void record_identity(fd_world* world, const fd_neighbor_list* list, int64_t e, int i, int j, int64_t index,
                            unsigned state, unsigned slip)
{
    fd_contact* contact = &world->previous.contacts[index];
    contact->key = (uint64_t)i << 32 | (uint32_t)j;
    contact->id = list->contact_id[e];
    contact->first_step = list->first_step[e];
    contact->body_i = i;
    contact->body_j = j;
    contact->law = list->law[e];
    unsigned mechanisms = 0, previous = 0;
    for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
        unsigned bit = (unsigned)FD_ENTRY_SLIP_SLIDE << (m - 1);
        mechanisms |= (slip & bit) ? 1u << m : 0u;
        previous |= (state & bit) ? 1u << m : 0u;
    }
    contact->slip_flags = mechanisms;
    contact->previous_slip_flags = (state & FD_ENTRY_TOUCHING) ? previous : 0u;
}

/* A sphere-sphere or sphere-plane contact (sphere_kernel.h): its geometry
 * from the centres, the law, the loads. */
static inline __attribute__((always_inline)) contact_loads sphere_entry(fd_world* world, fd_neighbor_list* list,
                                                                       int64_t e, int i, int j, bool ledger,
                                                                       bool record, int64_t index)
{
    const fd_body_state* si = &world->states[i];
    const fd_body_state* sj = &world->states[j];
    const double* radii = world->bounding_radii;
    const fd_contact_law* law = &world->laws[list->law[e]];
    const double* constants = list->constants + (size_t)e * (size_t)world->penalty.constant_stride;
    double* history = list->history + (size_t)e * (size_t)world->history_stride;
    uint8_t kind = list->kind[e];
    contact_loads out;
    fd_vec3 n, relative;
    double overlap;
    fd_vec3 offset = {0.0, 0.0, 0.0};
    fd_vec3 arm_i = {0, 0, 0}, arm_j = {0, 0, 0};
    double a_i = 0.0, a_j = 0.0;
    if (kind == FD_PAIR_SPHERE_SPHERE) {
        fd_vec3 d = fd_v3_sub(si->position, sj->position);
        if (world->periodic.any) {
            offset = fd_periodic_near_offset(&world->periodic, d);
            d = fd_v3_sub(d, offset);
        }
        double distance = sqrt(fd_v3_dot(d, d));
        /* Coincident centres: +z, deterministically (narrowphase.c). */
        n = distance > 0.0 ? fd_v3_scale(1.0 / distance, d) : fd_v3(0.0, 0.0, 1.0);
        overlap = radii[i] + radii[j] - distance;
        /* The contact point halfway between the two surfaces: a_i from centre
         * i and a_j from centre j along the line of centres. */
        a_i = radii[i] - 0.5 * overlap;
        a_j = radii[j] - 0.5 * overlap;
        relative = fd_v3_sub(fd_v3_sub(si->velocity, sj->velocity),
                             fd_v3_cross(fd_v3_add(fd_v3_scale(a_i, si->angular_velocity),
                                                   fd_v3_scale(a_j, sj->angular_velocity)),
                                         n));
    } else {
        /* Sphere s against plane p: n_p the plane's outward normal, the centre
         * at height h over it, the contact point between the surfaces. */
        bool plane_first = kind == FD_PAIR_PLANE_SPHERE;
        int sphere = plane_first ? j : i, plane = plane_first ? i : j;
        const fd_body_state* ss = plane_first ? sj : si;
        const fd_body_state* sp = plane_first ? si : sj;
        fd_vec3 plane_normal = world->plane_normals[plane];
        double height = fd_v3_dot(fd_v3_sub(ss->position, sp->position), plane_normal);
        overlap = radii[sphere] - height;
        double a_s = radii[sphere] - 0.5 * overlap;
        fd_vec3 point = fd_v3_mul_add(ss->position, -a_s, plane_normal);
        fd_vec3 arm_s = fd_v3_scale(-a_s, plane_normal);
        fd_vec3 arm_p = fd_v3_sub(point, sp->position);
        fd_vec3 surface_s = fd_v3_sub(ss->velocity, fd_v3_scale(a_s, fd_v3_cross(ss->angular_velocity, plane_normal)));
        fd_vec3 surface_p = fd_v3_add(sp->velocity, fd_v3_cross(sp->angular_velocity, arm_p));
        n = plane_first ? fd_v3_neg(plane_normal) : plane_normal;
        relative = plane_first ? fd_v3_sub(surface_p, surface_s) : fd_v3_sub(surface_s, surface_p);
        arm_i = plane_first ? arm_p : arm_s;
        arm_j = plane_first ? arm_s : arm_p;
    }
    fd_energy_books step_books[FD_MECHANISM_COUNT];
    if (ledger || record) {
        memset(step_books, 0, sizeof step_books);
    }
    fd_sphere_loads loads = fd_sphere_kernel(law, constants, world->def.time_step, n, overlap, relative,
                                             si->angular_velocity, sj->angular_velocity, history,
                                             ledger || record ? step_books : NULL);
    out.force = fd_v3_mul_add(loads.slide_force, loads.normal_force, n);
    fd_vec3 roll_spin = fd_v3_mul_add(loads.roll_torque, loads.spin_torque, n);
    if (kind == FD_PAIR_SPHERE_SPHERE) {
        /* arm_i = -a_i n, arm_j = +a_j n: arm x F = -a n x F_t for both. */
        fd_vec3 turn = fd_v3_cross(n, loads.slide_force);
        out.torque_i = fd_v3_sub(roll_spin, fd_v3_scale(a_i, turn));
        out.torque_j = fd_v3_neg(fd_v3_add(roll_spin, fd_v3_scale(a_j, turn)));
    } else {
        out.torque_i = fd_v3_add(fd_v3_cross(arm_i, out.force), roll_spin);
        out.torque_j = fd_v3_sub(fd_v3_cross(arm_j, fd_v3_neg(out.force)), roll_spin);
    }
    out.slip = loads.slip;
    if (ledger) {
        book_lifetime(list->books + (size_t)e * FD_MECHANISM_COUNT, step_books);
    }
    if (record) {
        record_sphere_contact(world, list, e, i, j, index, offset, n, &loads, step_books, &out, ledger);
    }
    return out;
}

/* The record and books of a contact evaluated by the block kernel. */
static __attribute__((noinline)) void block_lane_bookkeeping(fd_world* world, const fd_neighbor_list* list,
                                                             const fd_sphere_block* block, int c, int64_t e, int i,
                                                             int j, int64_t index, fd_vec3 offset, bool ledger,
                                                             bool record, unsigned slip)
{
    fd_energy_books step_books[FD_MECHANISM_COUNT];
    memset(step_books, 0, sizeof step_books);
    for (int m = 0; m < 2; ++m) {
        step_books[m] = (fd_energy_books){block->books[m][0][c], block->books[m][1][c], block->books[m][2][c],
                                          block->books[m][3][c], block->books[m][4][c]};
    }
    if (ledger) {
        book_lifetime(list->books + (size_t)e * FD_MECHANISM_COUNT, step_books);
    }
    if (record) {
        fd_sphere_loads loads = {
            .normal_force = block->normal_force[c],
            .elastic_force = block->elastic_force[c],
            .damping_force = block->damping_force[c],
            .slide_force = fd_v3_mul_add(fd_v3(block->force[0][c], block->force[1][c], block->force[2][c]),
                                         -block->normal_force[c],
                                         fd_v3(block->normal[0][c], block->normal[1][c], block->normal[2][c])),
            .slip = slip,
        };
        contact_loads out = {.force = fd_v3(block->force[0][c], block->force[1][c], block->force[2][c]), .slip = slip};
        record_sphere_contact(world, list, e, i, j, index, offset,
                              fd_v3(block->normal[0][c], block->normal[1][c], block->normal[2][c]), &loads, step_books,
                              &out, ledger);
    }
}

/* Stage 3 for one thread. `record` and `ledger` are constants in each of the
 * instantiations below, so the hot one carries no record or book code.
 *
 * The touching contacts are taken FD_BLOCK at a time in descending key order.
 * In a chunk, the sphere-sphere contacts of one block law go to the block
 * kernel (sphere_block.h) and the others are evaluated at once, each into its
 * slot; then the chunk's loads go onto the bodies slot by slot, in the order
 * penalty.h explains (where a load is computed does not change that order). */
static inline __attribute__((always_inline)) void law_pass(fd_world* world, fd_neighbor_list* list,
                                                            fd_penalty_thread* th, int end_row, bool record,
                                                            bool ledger)
{
    fd_penalty* p = &world->penalty;
    fd_vec3* forces = world->forces;
    fd_vec3* torques = world->torques;
    const fd_body_state* states = world->states;
    const fd_place* places = p->places;
    const fd_periodic* periodic = &world->periodic;
    bool any_periodic = periodic->any;
    int stride = world->history_stride;
    int constant_stride = p->constant_stride;
    int64_t step = world->step_count;
    size_t undo_stride = (size_t)(stride + (ledger ? 5 * FD_MECHANISM_COUNT : 0));
    double* undo = p->undo + (size_t)th->first_contact * undo_stride;
    uint64_t next_id = th->first_id + (uint64_t)th->new_count; /* ids of new contacts, counted down */
    fd_sphere_block* block = th->block;
    const int* block_law_index = p->block_law_index; /* per law: its block law, or -1 */
    int32_t slot_lane[FD_BLOCK];
    contact_loads slot_loads[FD_BLOCK];
    fd_vec3 lane_offset[FD_BLOCK];
    for (int64_t top = th->touching_count - 1; top >= 0; top -= FD_BLOCK) {
        int chunk = top + 1 < FD_BLOCK ? (int)(top + 1) : FD_BLOCK;
        block->count = 0;
        int block_law = -1;
        for (int slot = 0; slot < chunk; ++slot) {
            int64_t k = top - slot;
            const fd_touch touch = th->touching[k];
            int64_t e = touch.entry;
            int i = touch.row, j = list->partner[e];
            unsigned state = list->state[e];
            int64_t index = th->first_contact + k; /* this contact's place in key order */
            /* The undo log of this pass (fd_penalty_rollback). */
            double* saved = undo + (size_t)k * undo_stride;
            const double* history = list->history + (size_t)e * (size_t)stride;
            for (int h = 0; h < stride; ++h) {
                saved[h] = history[h];
            }
            if (ledger) {
                memcpy(saved + stride, list->books + (size_t)e * FD_MECHANISM_COUNT,
                       FD_MECHANISM_COUNT * sizeof(fd_energy_books));
            }
            bool is_new = (state & FD_ENTRY_TOUCHING) == 0;
            if (is_new) {
                begin_contact(world, list, e, i, j, stride, ledger, --next_id, step);
            }
            uint8_t kind = list->kind[e];
            int law_block = kind == FD_PAIR_SPHERE_SPHERE ? block_law_index[list->law[e]] : -1;
            if (law_block >= 0 && block_law < 0) {
                block_law = law_block;
            }
            if (law_block >= 0 && law_block == block_law) {
                /* A lane of the block: its inputs, gathered. */
                int c = block->count++;
                slot_lane[slot] = c;
                const fd_place pi = places[i], pj = places[j];
                fd_vec3 d = {pi.x - pj.x, pi.y - pj.y, pi.z - pj.z};
                fd_vec3 offset = {0.0, 0.0, 0.0};
                if (any_periodic) {
                    offset = fd_periodic_near_offset(periodic, d);
                    d = fd_v3_sub(d, offset);
                }
                lane_offset[c] = offset;
                const fd_body_state* si = &states[i];
                const fd_body_state* sj = &states[j];
                block->separation[0][c] = d.x;
                block->separation[1][c] = d.y;
                block->separation[2][c] = d.z;
                block->velocity_i[0][c] = si->velocity.x;
                block->velocity_i[1][c] = si->velocity.y;
                block->velocity_i[2][c] = si->velocity.z;
                block->velocity_j[0][c] = sj->velocity.x;
                block->velocity_j[1][c] = sj->velocity.y;
                block->velocity_j[2][c] = sj->velocity.z;
                block->spin_i[0][c] = si->angular_velocity.x;
                block->spin_i[1][c] = si->angular_velocity.y;
                block->spin_i[2][c] = si->angular_velocity.z;
                block->spin_j[0][c] = sj->angular_velocity.x;
                block->spin_j[1][c] = sj->angular_velocity.y;
                block->spin_j[2][c] = sj->angular_velocity.z;
                block->radius_i[c] = pi.radius;
                block->radius_j[c] = pj.radius;
                block->damping[c] = list->constants[(size_t)e * (size_t)constant_stride];
                block->spring[0][c] = history[0];
                block->spring[1][c] = history[1];
                block->spring[2][c] = history[2];
                continue;
            }
            slot_lane[slot] = -1;
            slot_loads[slot] = kind != FD_PAIR_GENERIC
                                   ? sphere_entry(world, list, e, i, j, ledger, record, index)
                                   : generic_entry(world, list, th, touch, is_new, ledger, record, index);
        }
        if (block->count > 0) {
            const fd_block_law* law = &p->block_laws[block_law];
            if (record || ledger) {
                fd_sphere_block_run_full(block, law);
            } else {
                fd_sphere_block_run(block, law);
            }
            bool slides = law->slide != FD_KIND_NONE;
            for (int slot = 0; slot < chunk; ++slot) {
                int c = slot_lane[slot];
                if (c < 0) {
                    continue;
                }
                int64_t k = top - slot;
                int64_t e = th->touching[k].entry;
                unsigned slip = 0;
                if (slides) {
                    double* history = list->history + (size_t)e * (size_t)stride;
                    history[0] = block->spring_after[0][c];
                    history[1] = block->spring_after[1][c];
                    history[2] = block->spring_after[2][c];
                    slip = block->slipping[c] != 0.0 ? FD_ENTRY_SLIP_SLIDE : 0u;
                }
                slot_loads[slot] = (contact_loads){
                    .force = fd_v3(block->force[0][c], block->force[1][c], block->force[2][c]),
                    .torque_i = fd_v3(block->torque_i[0][c], block->torque_i[1][c], block->torque_i[2][c]),
                    .torque_j = fd_v3(block->torque_j[0][c], block->torque_j[1][c], block->torque_j[2][c]),
                    .slip = slip,
                };
                if (record || ledger) {
                    block_lane_bookkeeping(world, list, block, c, e, th->touching[k].row, list->partner[e],
                                           th->first_contact + k, lane_offset[c], ledger, record, slip);
                }
            }
        }
        /* The chunk's loads onto the bodies, slot by slot. */
        for (int slot = 0; slot < chunk; ++slot) {
            int64_t k = top - slot;
            int64_t e = th->touching[k].entry;
            int i = th->touching[k].row, j = list->partner[e];
            const contact_loads* loads = &slot_loads[slot];
            unsigned state = list->state[e];
            if (record) {
                record_identity(world, list, e, i, j, th->first_contact + k, state, loads->slip);
            }
            list->state[e] = (uint8_t)((state << 4) | loads->slip | FD_ENTRY_TOUCHING);
            forces[i] = fd_v3_add(forces[i], loads->force);
            torques[i] = fd_v3_add(torques[i], loads->torque_i);
            if (j < end_row) {
                forces[j] = fd_v3_sub(forces[j], loads->force);
                torques[j] = fd_v3_add(torques[j], loads->torque_j);
            } else {
                if (th->remote_count == th->remote_capacity &&
                    !grow((void**)&th->remote, &th->remote_capacity, th->remote_count + 1, sizeof *th->remote)) {
                    th->failure = FAILURE_MEMORY;
                    return;
                }
                th->remote[th->remote_count++] = (fd_remote_load){fd_v3_neg(loads->force), loads->torque_j, j};
            }
        }
    }
    /* Contacts that ended: their state moves to the high nibble. */
    for (int64_t k = 0; k < th->ended_count; ++k) {
        int64_t e = th->ended[k];
        list->state[e] = (uint8_t)(list->state[e] << 4);
    }
}

static void law_pass_plain(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, false, false);
}
static void law_pass_ledger(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, false, true);
}
static void law_pass_record(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, true, false);
}
static void law_pass_record_ledger(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, true, true);
}

/* ---------------------------------------------------------------- stage 4 */

static bool add_event(fd_world* world, fd_event_type type, fd_mechanism mechanism, uint64_t id, int i, int j)
{
    if (world->event_count == world->event_capacity) {
        int capacity = world->event_capacity > 0 ? 2 * world->event_capacity : 64;
        fd_contact_event* grown = realloc(world->events, (size_t)capacity * sizeof *grown);
        if (grown == NULL) {
            return false;
        }
        world->events = grown;
        world->event_capacity = capacity;
    }
    world->events[world->event_count++] = (fd_contact_event){
        .type = type,
        .mechanism = mechanism,
        .contact_id = id,
        .body_i = fd_world_body_at(world, i),
        .body_j = fd_world_body_at(world, j),
        .step = world->step_count,
        .time = world->time,
    };
    return true;
}

/* Events of the pass in key order: activations, then slip changes by
 * mechanism (contacts.c's order before). */
static fd_status raise_events(fd_world* world, const fd_neighbor_list* list)
{
    world->event_count = 0;
    fd_penalty* p = &world->penalty;
    for (int t = 0; t < list->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t k = 0; k < th->touching_count; ++k) {
            int64_t e = th->touching[k].entry;
            unsigned state = list->state[e];
            unsigned previous = state >> 4;
            int i = th->touching[k].row, j = list->partner[e];
            bool ok = true;
            if ((previous & FD_ENTRY_TOUCHING) == 0) {
                ok = add_event(world, FD_EVENT_CONTACT_ACTIVATED, FD_MECHANISM_NORMAL, list->contact_id[e], i, j);
                previous = 0;
            }
            unsigned changed = (state ^ previous) & (FD_ENTRY_NOW & ~(unsigned)FD_ENTRY_TOUCHING);
            for (int m = FD_MECHANISM_SLIDE; ok && changed != 0 && m < FD_MECHANISM_COUNT; ++m) {
                unsigned bit = (unsigned)FD_ENTRY_SLIP_SLIDE << (m - 1);
                if (changed & bit) {
                    ok = add_event(world, (state & bit) ? FD_EVENT_SLIP_STARTED : FD_EVENT_SLIP_ENDED, (fd_mechanism)m,
                                   list->contact_id[e], i, j);
                }
            }
            if (!ok) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact events");
            }
        }
    }
    return FD_OK;
}

/* A contact that ended takes its lifetime books to the world's totals, and
 * its springs' energy leaves as `released` (a spring cut at separation). */
static void retire_books(fd_world* world, const fd_neighbor_list* list)
{
    fd_penalty* p = &world->penalty;
    fd_energy_totals* totals = &world->energy_totals;
    for (int t = 0; t < list->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t k = 0; k < th->ended_count; ++k) {
            const fd_energy_books* books = list->books + (size_t)th->ended[k] * FD_MECHANISM_COUNT;
            for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
                totals->dashpot[m] += books[m].dashpot;
                totals->slip[m] += books[m].slip;
                totals->created[m] += books[m].created;
                totals->external_work += books[m].work;
                totals->released += books[m].stored;
            }
        }
    }
}

/* The pass records into the world's spare contact set; the commit of the
 * step makes it the current one (a failed step leaves the last good one). */
static bool reserve_record(fd_world* world, int64_t count)
{
    fd_contact_set* set = &world->previous;
    if (count <= set->capacity) {
        return true;
    }
    int capacity = set->capacity > 0 ? set->capacity : 64;
    while (capacity < count) {
        capacity *= 2;
    }
    fd_contact* contacts = realloc(set->contacts, (size_t)capacity * sizeof *contacts);
    if (contacts == NULL) {
        return false;
    }
    set->contacts = contacts;
    double* columns = realloc(set->columns, (size_t)capacity * (size_t)(world->column_count > 0 ? world->column_count
                                                                                                : 1) *
                                                sizeof(double));
    if (columns == NULL) {
        return false;
    }
    set->columns = columns;
    double* history = realloc(set->history, (size_t)capacity * (size_t)(world->history_stride > 0
                                                                             ? world->history_stride
                                                                             : 1) *
                                                sizeof(double));
    if (history == NULL) {
        return false;
    }
    set->history = history;
    set->capacity = capacity;
    return true;
}

fd_status fd_penalty_force_pass(fd_world* world, bool record)
{
    fd_penalty* p = &world->penalty;
    fd_world_profile* profile = &world->profile;
    double start = fd_wall_seconds();
    p->stage = 0;
    fd_status status = refresh_list(world);
    if (status != FD_OK) {
        return status;
    }
    fd_neighbor_list* list = &p->lists[p->current];
    int threads = list->thread_count;
    status = reserve_threads(world, threads);
    if (status != FD_OK) {
        return status;
    }
    double listed = fd_wall_seconds();
    profile->broad_phase += listed - start;

    /* Stage 1. */
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        distance_pass(world, list, &p->threads[t], list->thread_row[t], list->thread_row[t + 1]);
    }
    /* Stage 2. */
    int64_t total = 0;
    uint64_t next_id = world->next_contact_id;
    for (int t = 0; t < threads; ++t) {
        fd_penalty_thread* th = &p->threads[t];
        if (th->failure != FAILURE_NONE) {
            return report_failure(world, list, th);
        }
        th->first_contact = total;
        th->first_id = next_id;
        total += th->touching_count;
        next_id += (uint64_t)th->new_count;
    }
    bool ledger = world->def.energy_ledger;
    int64_t undo_size = total * (world->history_stride + (ledger ? 5 * FD_MECHANISM_COUNT : 0));
    if (!grow((void**)&p->undo, &p->undo_capacity, undo_size > 0 ? undo_size : 1, sizeof(double)) ||
        (record && !reserve_record(world, total))) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %lld contacts", (long long)total);
    }
    double tested = fd_wall_seconds();
    profile->narrow_phase += tested - listed;

    /* Stage 3. */
    p->stage = 1;
    void (*pass)(fd_world*, fd_neighbor_list*, fd_penalty_thread*, int) =
        record ? (ledger ? law_pass_record_ledger : law_pass_record) : (ledger ? law_pass_ledger : law_pass_plain);
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        pass(world, list, &p->threads[t], list->thread_row[t + 1]);
    }
    double evaluated = fd_wall_seconds();
    profile->contact_models += evaluated - tested;

    /* Stage 4. */
    world->next_contact_id = next_id;
    for (int t = threads - 1; t >= 0; --t) {
        const fd_penalty_thread* th = &p->threads[t];
        if (th->failure == FAILURE_MEMORY) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory in the contact pass");
        }
        for (int64_t k = 0; k < th->remote_count; ++k) {
            const fd_remote_load* load = &th->remote[k];
            world->forces[load->body] = fd_v3_add(world->forces[load->body], load->force);
            world->torques[load->body] = fd_v3_add(world->torques[load->body], load->torque);
        }
    }
    if (ledger) {
        retire_books(world, list);
    }
    p->pass_touching_count = total;
    p->pass_recorded = record;
    world->previous.count = record ? (int)total : 0;
    status = world->def.events ? raise_events(world, list) : FD_OK;
    if (!world->def.events) {
        world->event_count = 0;
    }
    profile->accumulate += fd_wall_seconds() - evaluated;
    profile->contact_steps += (double)total;
    profile->steps++;
    return status;
}

/* ---------------------------------------------------------------- rollback */

void fd_penalty_rollback(fd_world* world)
{
    fd_penalty* p = &world->penalty;
    if (p->rebuilt_this_step) {
        /* The list before the step was not touched: go back to it, and build
         * afresh from it at the next pass. */
        p->current = 1 - p->current;
        p->dirty = true;
        p->rebuilt_this_step = false;
        p->stage = 0;
        return;
    }
    world->event_count = 0;
    p->dirty = true; /* the packed places hold the failed step's positions */
    if (p->stage == 0) {
        return;
    }
    fd_neighbor_list* list = &p->lists[p->current];
    bool ledger = world->def.energy_ledger;
    int stride = world->history_stride;
    size_t undo_stride = (size_t)(stride + (ledger ? 5 * FD_MECHANISM_COUNT : 0));
    for (int t = 0; t < list->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t k = 0; k < th->touching_count; ++k) {
            int64_t e = th->touching[k].entry;
            const double* saved = p->undo + (size_t)(th->first_contact + k) * undo_stride;
            memcpy(list->history + (size_t)e * (size_t)stride, saved, (size_t)stride * sizeof(double));
            if (ledger) {
                memcpy(list->books + (size_t)e * FD_MECHANISM_COUNT, saved + stride,
                       FD_MECHANISM_COUNT * sizeof(fd_energy_books));
            }
            list->state[e] >>= 4;
        }
        for (int64_t k = 0; k < th->ended_count; ++k) {
            list->state[th->ended[k]] >>= 4;
        }
    }
    p->stage = 0;
}

void fd_penalty_commit(fd_world* world)
{
    fd_penalty* p = &world->penalty;
    p->rebuilt_this_step = false;
    p->stage = 0;
    p->touching_count = p->pass_touching_count;
    p->unrecorded = !p->pass_recorded;
    if (p->pass_recorded) {
        fd_contact_set swap = world->contacts;
        world->contacts = world->previous;
        world->previous = swap;
    }
}

/* ---------------------------------------------------------------- queries */

void fd_penalty_sum_books(const fd_world* world, fd_energy_books totals[FD_MECHANISM_COUNT])
{
    memset(totals, 0, FD_MECHANISM_COUNT * sizeof *totals);
    const fd_penalty* p = &world->penalty;
    const fd_neighbor_list* list = &p->lists[p->current];
    if (list->books == NULL || list->row_start == NULL) {
        return;
    }
    for (int64_t e = 0; e < list->count; ++e) {
        if ((list->state[e] & FD_ENTRY_TOUCHING) == 0) {
            continue;
        }
        const fd_energy_books* books = list->books + (size_t)e * FD_MECHANISM_COUNT;
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            totals[m].stored += books[m].stored;
            totals[m].dashpot += books[m].dashpot;
            totals[m].slip += books[m].slip;
            totals[m].created += books[m].created;
            totals[m].work += books[m].work;
        }
    }
}

size_t fd_penalty_memory(const fd_world* world)
{
    const fd_penalty* p = &world->penalty;
    size_t bytes = 0;
    for (int l = 0; l < 2; ++l) {
        bytes += fd_neighbor_list_memory(&p->lists[l], world->history_stride, p->constant_stride);
    }
    bytes += (size_t)p->reference_capacity * (sizeof(fd_vec3) + sizeof(fd_place)) +
             (size_t)p->undo_capacity * sizeof(double);
    for (int t = 0; t < p->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        bytes += (size_t)th->touching_capacity * sizeof(fd_touch) + (size_t)th->slot_capacity * sizeof(fd_generic_slot) +
                 (size_t)th->remote_capacity * sizeof(fd_remote_load) + (size_t)th->ended_capacity * sizeof(int64_t);
    }
    return bytes;
}
