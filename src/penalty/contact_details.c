/* What a force pass keeps beyond the loads, and the pairs without a sphere
 * kernel:
 *
 *  - generic pairs (ellipsoids, Fang & Negrut, PFC, a prescribed normal
 *    force): the full geometry of the narrow phase and the registry's
 *    kernels through fd_contact_input, as the engine always evaluated them;
 *  - the record of a contact (fd_world_get_contact) on passes that record:
 *    full geometry, loads, model columns, books, identity;
 *  - the energy ledger's books: each contact sums its own over its life; a
 *    contact that ends hands them to the world's totals;
 *  - the events of a pass, in key order.
 *
 * None of this is on the path of a pass that records nothing and keeps no
 * books: it runs only for generic pairs, or when asked for.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

/* A record's books: with the ledger's lifetime books the pool's (zero for
 * mechanisms it keeps none of), else the step's stored energies only. */
static void record_books(fd_contact* contact, const fd_contact_pool* pool, int32_t slot, bool ledger,
                         const fd_energy_books* step_books)
{
    memset(contact->energy, 0, sizeof contact->energy);
    if (ledger && pool->lifetime_books) {
        memcpy(contact->energy, fd_books_after(pool, slot), (size_t)pool->book_count * sizeof(fd_energy_books));
        return;
    }
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        contact->energy[m].stored = step_books[m].stored;
    }
}

/* The normal spring's books for the registry's normal models: the elastic
 * energy and the dashpot's work over the step, or a prescribed force's work
 * (pfc_linear books its own partitions). */
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

/* A body's shape and radius from the hot per-body arrays when it is a sphere
 * (the cold record is a cache miss per contact at 10^4 bodies and more). */
static fd_shape_type shape_of(const fd_world* world, int b)
{
    return (world->motion[b].flags & FD_MOTION_SPHERE) ? FD_SHAPE_SPHERE : world->colds[b].shape.type;
}
static double radius_of(const fd_world* world, int b)
{
    return (world->motion[b].flags & FD_MOTION_SPHERE) ? world->bounding_radii[b] : world->colds[b].shape.radius;
}

/* LAMMPS's fix wall/gran conventions for a sphere against a static wall on
 * this path (a cylinder, a disk, a box, a mesh; a plane under a law without
 * a sphere kernel), taken with world.lammps_arms as the plane kernels take
 * them: the contact at the
 * sphere's full radius R (velocity and torque arms), and the effective radius
 * R rwall / (R + rwall) with rwall = 2 / kappa from the wall's curvature
 * across (fix_wall_gran.cpp: rwall = -2 Rc inside a zcylinder, +2 Rc outside;
 * R on a flat face). Returns whether it applies: a sphere and a wall. */
static bool lammps_wall_contact(const fd_world* world, int i, int j, const fd_body_state* state_i,
                                const fd_body_state* state_j, const fd_contact_geometry* geometry,
                                fd_contact_geometry* lammps, fd_vec3* point)
{
    if (!world->def.lammps_arms) {
        return false; /* the default: no per-body loads for it */
    }
    bool sphere_i = world->motion[i].flags & FD_MOTION_SPHERE, sphere_j = world->motion[j].flags & FD_MOTION_SPHERE;
    if (sphere_i == sphere_j) {
        return false;
    }
    int sphere = sphere_i ? i : j, wall = sphere_i ? j : i;
    if (world->motion[wall].mass > 0.0) {
        return false; /* a dynamic body (an ellipsoid): not a wall */
    }
    double radius = world->bounding_radii[sphere];
    /* n points into body i: the contact is at x_i - R n on sphere i, x_j + R n on sphere j. */
    *point = sphere_i ? fd_v3_mul_add(state_i->position, -radius, geometry->normal)
                      : fd_v3_mul_add(state_j->position, radius, geometry->normal);
    const double* curvature = sphere_i ? geometry->curvature_j : geometry->curvature_i;
    double across = fabs(curvature[0]) >= fabs(curvature[1]) ? curvature[0] : curvature[1];
    *lammps = *geometry;
    if (across != 0.0) {
        double rwall = 2.0 / across;
        lammps->effective_radius = radius * rwall / (radius + rwall);
    } else {
        lammps->effective_radius = radius;
    }
    return true;
}

/* The registry's kernels on the full geometry: loads and the torques on both
 * bodies (arms from the midpoint of the two surface points, or LAMMPS's wall
 * conventions above; body j's image across a periodic face). */
static void evaluate_generic(const fd_world* world, const fd_contact_law* law, int i, int j,
                             const fd_generic_slot* slot, const double offset[3], bool is_new, unsigned was_slipping,
                             double* history, double* columns, fd_energy_books* step_books, bool books_unread,
                             unsigned* slip_flags, fd_contact_loads* loads, fd_vec3* torque_i, fd_vec3* torque_j)
{
    const fd_body_state body_i = fd_world_state(world, i);
    const fd_body_state* state_i = &body_i;
    /* Body j's image from the world's arrays and the offset's components
     * (in registers): adding to the copy just made would read it back
     * across the stores that made it, a forwarding stall. */
    fd_body_state image_j = fd_world_state(world, j);
    const fd_vec3 position_j = world->position[j];
    image_j.position = (fd_vec3){position_j.x + offset[0], position_j.y + offset[1], position_j.z + offset[2]};
    const fd_contact_geometry* geometry = &slot->geometry;
    fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(geometry->point_i, geometry->point_j));
    fd_contact_geometry lammps_geometry;
    if (lammps_wall_contact(world, i, j, state_i, &image_j, geometry, &lammps_geometry, &point)) {
        geometry = &lammps_geometry;
    }
    fd_vec3 arm_i = fd_v3_sub(point, state_i->position);
    fd_vec3 arm_j = fd_v3_sub(point, image_j.position);
    fd_vec3 velocity_i = fd_v3_add(state_i->velocity, fd_v3_cross(state_i->angular_velocity, arm_i));
    fd_vec3 velocity_j = fd_v3_add(image_j.velocity, fd_v3_cross(image_j.angular_velocity, arm_j));
    const fd_material* material_i = &world->materials[world->motion[i].material];
    const fd_material* material_j = &world->materials[world->motion[j].material];
    double mass_i = world->motion[i].mass, mass_j = world->motion[j].mass;
    /* Each body's turn over the step as the matrix fang_negrut.c carries its vectors with. */
    fd_mat3 turn_i, turn_j;
    if (world->penalty->turns_ready) {
        turn_i = fd_mat3_from_quat(world->penalty->body_turns[i]);
        turn_j = fd_mat3_from_quat(world->penalty->body_turns[j]);
    }
    fd_contact_input input = {
        .geometry = geometry,
        .state_i = state_i,
        .state_j = &image_j,
        .mass_i = mass_i,
        .mass_j = mass_j,
        .inertia_i = world->masses[i].inertia,
        .inertia_j = world->masses[j].inertia,
        .effective_mass = fd_pair_effective_mass(mass_i, mass_j),
        /* n points into body i: the overlap grows when j moves along n faster than i. */
        .penetration_rate = fd_v3_dot(fd_v3_sub(velocity_j, velocity_i), geometry->normal),
        .relative_velocity = fd_v3_sub(velocity_i, velocity_j),
        .time_step = world->def.time_step,
        .spring_time_step = world->penalty->spring_time_step, /* 0 in the set-up pass */
        .is_new = is_new,
        .turn_i = world->penalty->turns_ready ? &turn_i : NULL,
        .turn_j = world->penalty->turns_ready ? &turn_j : NULL,
        .shape_i = shape_of(world, i),
        .shape_j = shape_of(world, j),
        .radius_i = radius_of(world, i),
        .radius_j = radius_of(world, j),
        .youngs_modulus_i = material_i->youngs_modulus,
        .youngs_modulus_j = material_j->youngs_modulus,
        .poisson_ratio_i = material_i->poisson_ratio,
        .poisson_ratio_j = material_j->poisson_ratio,
        .history = history,
        .energy = step_books,
        .books_unread = books_unread,
        .slip_flags = slip_flags,
        .was_slipping = was_slipping,
    };
    fd_normal_result normal = fd_normal_evaluate(law, &input);
    book_normal_energy(law, &input, &normal, &step_books[FD_MECHANISM_NORMAL]);
    const int* normal_columns = law->column_index[FD_MECHANISM_NORMAL];
    if (columns != NULL && law->submodel[FD_MECHANISM_NORMAL]->column_count >= 2) {
        columns[normal_columns[0]] = normal.elastic_force;
        columns[normal_columns[1]] = normal.damping_force;
    }
    /* Field by field: a memset of the struct is a `rep stos` (slow for 144 bytes). */
    const fd_vec3 zero = {0.0, 0.0, 0.0};
    loads->slide_force = zero;
    loads->roll_torque_i = zero;
    loads->roll_torque_j = zero;
    loads->spin_torque_i = zero;
    loads->spin_torque_j = zero;
    loads->normal_force = normal.force;
    fd_friction_evaluate(law, &input, normal.force, history, columns, loads);
    loads->force_on_i = fd_v3_add(fd_v3_scale(normal.force, geometry->normal), loads->slide_force);
    *torque_i = fd_v3_add(fd_v3_cross(arm_i, loads->force_on_i), fd_v3_add(loads->roll_torque_i, loads->spin_torque_i));
    *torque_j = fd_v3_add(fd_v3_cross(arm_j, fd_v3_neg(loads->force_on_i)),
                          fd_v3_add(loads->roll_torque_j, loads->spin_torque_j));
}


fd_pair_loads fd_generic_pair(fd_world* world, const fd_neighbor_list* list, int32_t e, int i, int j, int32_t slot,
                              const fd_generic_slot* geometry, double offset_x, double offset_y, double offset_z,
                              bool is_new, bool ledger, bool record, int64_t index, fd_energy_books* step_books_out)
{
    const double offset[3] = {offset_x, offset_y, offset_z};
    const fd_contact_law* law = &world->laws[list->law[e]];
    /* The registry's kernels update the springs in place: on a copy in the
     * pass's output buffer. */
    int stride = world->history_stride;
    double* history = fd_springs_to_update(&world->penalty->pool, slot, stride);
    /* Model columns only for a recorded contact: the kernels skip them on NULL. */
    double* columns = record ? world->penalty->record_set->columns + (size_t)index * (size_t)world->column_count : NULL;
    if (record) {
        for (int c = 0; c < world->column_count; ++c) {
            columns[c] = NAN;
        }
    }
    /* The kernels add to zeroed books only when someone reads them: 160
     * bytes, which gcc clears with a slow `rep stos`, on every contact of a
     * plain pass otherwise. */
    fd_energy_books step_books[FD_MECHANISM_COUNT];
    if (ledger || record) {
        memset(step_books, 0, sizeof step_books);
    }
    fd_contact_loads loads;
    unsigned flags = 0;
    fd_pair_loads out;
    /* The last step's slip state: FD_ENTRY_SLIP_SLIDE << (m - 1) is 1 << m. */
    unsigned was_slipping = is_new ? 0u : world->penalty->pool.state[slot] & (FD_ENTRY_NOW & ~FD_ENTRY_TOUCHING);
    evaluate_generic(world, law, i, j, geometry, offset, is_new, was_slipping, history, columns, step_books,
                     !ledger && !record, &flags, &loads, &out.torque_i, &out.torque_j);
    out.force = loads.force_on_i;
    out.slip = fd_entry_slip_of_flags(flags);
    if (ledger) {
        fd_book_slot(&world->penalty->pool, slot, step_books, 0xfu);
        memcpy(step_books_out, step_books, sizeof step_books);
    }
    if (record) {
        fd_contact* contact = &world->penalty->record_set->contacts[index];
        contact->geometry = geometry->geometry;
        contact->loads = loads;
        contact->image_offset = (fd_vec3){offset_x, offset_y, offset_z};
        record_books(contact, &world->penalty->pool, slot, ledger, step_books);
    }
    return out;
}

/* The record of a sphere contact: fd_collide's full geometry (from the
 * centres, round_pair.c: the pass already found that the pair touches), the loads
 * and the model columns from the kernel's results and the new springs. */
void fd_record_sphere_contact(fd_world* world, const fd_neighbor_list* list, int32_t e, int i, int j, int32_t slot,
                              int64_t index, fd_vec3 offset, fd_vec3 n, const fd_sphere_loads* loads,
                              const fd_energy_books* step_books, fd_vec3 force, bool ledger)
{
    const fd_contact_law* law = &world->laws[list->law[e]];
    const double* history = fd_springs_after(&world->penalty->pool, slot, world->history_stride);
    fd_contact* contact = &world->penalty->record_set->contacts[index];
    double* columns = world->penalty->record_set->columns + (size_t)index * (size_t)world->column_count;
    for (int c = 0; c < world->column_count; ++c) {
        columns[c] = NAN;
    }
    fd_generic_slot geometry;
    fd_round_pair_record_geometry(world, i, j, list->kind[e], &geometry);
    contact->geometry = geometry.geometry;
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
        int shown = law->submodel[m]->kind == FD_KIND_SLIDE_LINEAR_NOHISTORY ? 0 : springs[m]; /* no spring */
        for (int c = 0; c < shown; ++c) {
            columns[law->column_index[m][c]] = h[c];
        }
        columns[law->column_index[m][shown]] = (loads->slip & (FD_ENTRY_SLIP_SLIDE << (m - 1))) ? 1.0 : 0.0;
    }
    /* A law without rolling or twisting records +0 torques for them (the
     * kernel's -(+0) and 0 n would give -0 where n points down: the same
     * nothing, but a column of mixed signed zeros that the trajectory cannot
     * store as one constant chunk). */
    fd_vec3 zero = {0.0, 0.0, 0.0};
    bool rolls = law->submodel[FD_MECHANISM_ROLL] != NULL, spins = law->submodel[FD_MECHANISM_SPIN] != NULL;
    contact->loads = (fd_contact_loads){
        .normal_force = loads->normal_force,
        .slide_force = loads->slide_force,
        .roll_torque_i = rolls ? loads->roll_torque : zero,
        .roll_torque_j = rolls ? fd_v3_neg(loads->roll_torque) : zero,
        .spin_torque_i = spins ? fd_v3_scale(loads->spin_torque, n) : zero,
        .spin_torque_j = spins ? fd_v3_scale(-loads->spin_torque, n) : zero,
        .force_on_i = force,
    };
    record_books(contact, &world->penalty->pool, slot, ledger, step_books);
}

void fd_record_identity(fd_world* world, const fd_neighbor_list* list, int32_t e, int i, int j, int32_t slot,
                        int64_t index, unsigned state, unsigned slip)
{
    const fd_contact_pool* pool = &world->penalty->pool;
    fd_contact* contact = &world->penalty->record_set->contacts[index];
    contact->key = (uint64_t)i << 32 | (uint32_t)j;
    contact->id = pool->id[slot];
    contact->first_step = pool->first_step[slot];
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

/* In key order: activations, then slip changes by mechanism. */
fd_status fd_raise_events(fd_world* world, const fd_neighbor_list* list)
{
    world->event_count = 0;
    const fd_penalty* p = world->penalty;
    for (int t = 0; t < list->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t k = 0; k < th->touching_count; ++k) {
            int32_t e = th->touching[k].entry;
            int32_t slot = list->contact[e];
            unsigned state = p->pool.state[slot];
            unsigned previous = state >> 4;
            int i = th->touching[k].row, j = list->partner[e];
            uint64_t id = p->pool.id[slot];
            bool ok = true;
            if ((previous & FD_ENTRY_TOUCHING) == 0) {
                ok = fd_world_push_event(world, FD_EVENT_CONTACT_ACTIVATED, FD_MECHANISM_NORMAL, id, i, j);
                previous = 0;
            }
            unsigned changed = (state ^ previous) & (FD_ENTRY_NOW & ~(unsigned)FD_ENTRY_TOUCHING);
            for (int m = FD_MECHANISM_SLIDE; ok && changed != 0 && m < FD_MECHANISM_COUNT; ++m) {
                unsigned bit = (unsigned)FD_ENTRY_SLIP_SLIDE << (m - 1);
                if (changed & bit) {
                    ok = fd_world_push_event(world, (state & bit) ? FD_EVENT_SLIP_STARTED : FD_EVENT_SLIP_ENDED,
                                   (fd_mechanism)m, id, i, j);
                }
            }
            if (!ok) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact events");
            }
        }
    }
    return FD_OK;
}

/* A contact that ended takes its springs' energy along as `released` (a
 * spring cut at separation); what it dissipated, created and worked is in
 * the world's totals already, step by step (fd_book_step_sums). */
/* The row (body i) of entry e: the last row starting at or before it. */
static int row_of_entry(const fd_neighbor_list* list, int64_t e)
{
    int low = 0, high = list->body_count; /* row_start[low] <= e < row_start[high] */
    while (high - low > 1) {
        int middle = low + (high - low) / 2;
        if (list->row_start[middle] <= e) {
            low = middle;
        } else {
            high = middle;
        }
    }
    return low;
}

fd_status fd_retire_books(fd_world* world, const fd_neighbor_list* list)
{
    fd_penalty* p = world->penalty;
    fd_energy_totals* totals = &world->energy_totals;
    p->released_count = 0;
    for (int t = 0; t < list->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t k = 0; k < th->ended_count; ++k) {
            int32_t e = th->ended[k];
            if (p->book_rows == NULL) {
                for (int m = 0; m < p->pool.book_count; ++m) {
                    totals->released += fd_slot_stored_before(&p->pool, list->contact[e], m);
                }
                continue;
            }
            /* A rank of several: the contacts it answers for, kept for the
             * rank that sums every rank's in key order (one process's: the
             * threads' rows ascending). */
            if (!fd_keep_released(p, row_of_entry(list, e), list->partner[e], list->contact[e])) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the ledger's released energies");
            }
        }
    }
    return FD_OK;
}

/* The pass's step books into the world's ledger: the row groups' sums
 * (fd_book_group) added in the order of their rows, each thread's groups
 * having come in reverse; the stored energies are the springs' now, the
 * rest adds to the totals. The same sums for any thread count: a group is
 * summed by one thread in key order, and the groups in order here. */
void fd_book_step_sums(fd_world* world, const fd_neighbor_list* list)
{
    const fd_penalty* p = world->penalty;
    if (p->book_rows != NULL) {
        return; /* a rank of several: its share waits for the others' (fd_book_step) */
    }
    fd_energy_books step[FD_MECHANISM_COUNT] = {{0}};
    for (int t = 0; t < list->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t g = th->book_group_count - 1; g >= 0; --g) {
            fd_add_books(step, th->book_groups[g].books);
        }
    }
    fd_book_step(world, step);
}

void fd_book_step(fd_world* world, const fd_energy_books step[FD_MECHANISM_COUNT])
{
    fd_energy_totals* totals = &world->energy_totals;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        world->stored_energy[m] = step[m].stored;
        totals->dashpot[m] += step[m].dashpot;
        totals->slip[m] += step[m].slip;
        totals->created[m] += step[m].created;
        totals->external_work += step[m].work;
    }
}
