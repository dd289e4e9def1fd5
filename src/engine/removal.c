/* Removing bodies: fd_world_remove_body, and the slots removed bodies leave.
 *
 * A removed body's slot stays where it is, as an inert tombstone, and the
 * next body created takes it (the last removed first); the other bodies keep
 * their indices. Why not close the gap: a body's index is its handle (index
 * and generation, fd_body_id), the key (i, j) of each of its contacts, the
 * order in which every force on it is summed (src/penalty/penalty.h: its
 * external load, its row (b, c) in descending c, the pairs (a, b) in
 * descending a), and the row of each of its arrays. Moving the survivors
 * down would change none of those sums' orders (the survivors keep their
 * relative order), but it would rekey every contact and history above the
 * gap and break every handle a caller holds, for nothing a tombstone costs:
 * a byte per body in the pair search and the integration, and slots that
 * later bodies (an inlet's) fill again, so a run that pours and drains
 * forever does not grow.
 *
 * A tombstone is a static body with no mass, no loads, no extras, no name
 * and no contacts, flagged in is_removed and in its motion flags
 * (FD_MOTION_REMOVED and nothing else): every loop that skips static bodies
 * (integration, energies, loads, the complementarity solve) skips it as it
 * is; the broad phase and the pair search leave it out by the flag, and the
 * outputs by its handle (fd_world_body_at gives a null one). Its generation
 * is one past the removed body's, so that no handle of the removed body, or
 * copy of one, is valid again, not even once a new body fills the slot (the
 * new body goes on with that generation).
 *
 * The removed body's contacts end as contacts that part do: the penalty
 * stepper frees their pool slots and books their lifetime books into the
 * world's totals, their springs' energy as released
 * (fd_penalty_release_removed); the complementarity stepper's contacts,
 * which are its warm start, leave the contact set with their springs'
 * energy released; both keep the order of the others. The neighbour list is
 * rebuilt at the next force pass without the tombstone's entries (the
 * results do not depend on when the list is built, penalty.h). Nothing else
 * changes: the other contacts keep their ids, springs and books to the bit,
 * and the loads of the removed body's contacts at the last pass stay in its
 * partners' forces for their next kick, as those of a contact that ends at
 * the next pass do. With the ledger the body's kinetic and gravitational
 * energy is booked as removed (docs/energy.md).
 *
 * Must not touch: files, ranks, the command line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "core/error.h"
#include "core/grow.h"
#include "engine/engine.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

int fd_world_live_body_count(const fd_world* world) { return world->body_count - world->free_slot_count; }


/* Books the kinetic plus gravitational energy of dynamic body b (J), as
 * world_bodies.c books a body's energy when it is inserted, and the gravitational
 * part apart (fd_world_get_energy: gravity's work on it until it left). */
static bool book_energy(fd_world* world, int b)
{
    fd_body_state state = fd_world_state(world, b);
    double m = world->colds[b].mass;
    double gravitational = -m * fd_v3_dot(world->def.gravity, state.position);
    double energy = 0.5 * m * fd_v3_length_squared(state.velocity) +
                    fd_body_kinetic_rotational(&state, &world->masses[b]) + gravitational;
    fd_penalty* p = world->penalty;
    if (p->book_rows == NULL) {
        world->energy_totals.removed += energy;
        world->energy_totals.removed_gravitational += gravitational;
        return true;
    }
    /* A rank of several: its owner's state is exact; the rank that writes
     * the ledger adds every owner's in ascending index (src/parallel). */
    if ((p->book_rows[b] & FD_BOOK_ROW_KIND) == FD_BOOK_ROW_NONE) {
        return true;
    }
    if (!fd_grow((void**)&p->removed_energies, &p->removed_energy_capacity, p->removed_energy_count + 1,
                 sizeof *p->removed_energies)) {
        return false;
    }
    p->removed_energies[p->removed_energy_count++] = (fd_removed_energy){b, energy, gravitational};
    return true;
}

/* The world's contact set without the contacts of removed bodies, the
 * others in their order. For the complementarity stepper it is the warm
 * start of the next solve, with the contacts' springs; for the penalty
 * stepper a record of the last pass (its springs are in the pool). */
static void drop_removed_contacts(fd_world* world)
{
    fd_contact_set* set = &world->contacts;
    bool complementarity = world->def.stepper == FD_STEPPER_COMPLEMENTARITY;
    size_t stride = (size_t)world->history_stride, columns = (size_t)world->column_count;
    int kept = 0;
    for (int c = 0; c < set->count; ++c) {
        const fd_contact* contact = &set->contacts[c];
        if (world->is_removed[contact->body_i] || world->is_removed[contact->body_j]) {
            for (int m = 0; complementarity && m < FD_MECHANISM_COUNT; ++m) {
                world->energy_totals.released += contact->energy[m].stored;
                world->stored_energy[m] -= contact->energy[m].stored;
            }
            continue;
        }
        if (kept != c) {
            set->contacts[kept] = *contact;
            if (complementarity && stride > 0) {
                memmove(set->history + (size_t)kept * stride, set->history + (size_t)c * stride,
                        stride * sizeof(double));
            }
            if (columns > 0) {
                memmove(set->columns + (size_t)kept * columns, set->columns + (size_t)c * columns,
                        columns * sizeof(double));
            }
        }
        ++kept;
    }
    set->count = kept;
}

fd_status fd_world_remove_slots(fd_world* world, const int32_t* bodies, int count)
{
    if (count <= 0) {
        return FD_OK;
    }
    fd_world_note_change(world);
    if (world->free_slot_count + count > world->free_slot_capacity) {
        int capacity = world->free_slot_capacity > 0 ? world->free_slot_capacity : 64;
        while (capacity < world->free_slot_count + count) {
            capacity *= 2;
        }
        int32_t* grown = realloc(world->free_slots, (size_t)capacity * sizeof *grown);
        if (grown == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory removing %d bodies", count);
        }
        world->free_slots = grown;
        world->free_slot_capacity = capacity;
    }
    world->penalty->removed_energy_count = 0;
    for (int k = 0; k < count; ++k) {
        int b = bodies[k];
        if (world->has_energy_reference && world->colds[b].type == FD_BODY_DYNAMIC && !book_energy(world, b)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory booking the energy of %d removed bodies", count);
        }
    }
    /* Marked first: the contacts' pass below ends those of every marked body at once. */
    for (int k = 0; k < count; ++k) {
        world->is_removed[bodies[k]] = true;
    }
    if (world->def.stepper == FD_STEPPER_PENALTY) {
        fd_status released = fd_penalty_release_removed(world);
        if (released != FD_OK) {
            return released;
        }
    }
    drop_removed_contacts(world);
    for (int k = 0; k < count; ++k) {
        int b = bodies[k];
        fd_world_forget_body_name(world, b);
        free(world->masses[b].extra);
        fd_world_make_tombstone(world, b, world->generations[b] + 1);
        world->free_slots[world->free_slot_count++] = b;
    }
    world->removed_count += count;
    world->special_listed = -1; /* a removed body may have been on it */
    return FD_OK;
}

fd_status fd_world_remove_body(fd_world* world, fd_body_id id)
{
    if (world == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_remove_body: world is NULL");
    }
    if (!fd_body_is_valid(world, id)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "fd_world_remove_body: invalid body handle (index %d, generation %u): removed already, or "
                       "never of this world",
                       id.index1 - 1, id.generation);
    }
    int32_t b = id.index1 - 1;
    return fd_world_remove_slots(world, &b, 1);
}
