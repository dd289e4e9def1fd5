/* The energy ledger's books that every stepper keeps the same way
 * (docs/energy.md): the work of the external loads and of the locks over a
 * step, what entered the world since it was prepared, the balance that
 * stays constant, the books a caller reads (fd_world_get_energy), and what a
 * step's rollback puts back. Reads the world's arrays; knows no stepper.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#include <math.h>
#include <string.h>

#include "body/body.h"
#include "world/world_store.h"

void fd_world_body_step_work(const fd_world* world, int b, double h, double* external, double* constraint)
{
    /* From the displacement (exact for a constant force) and the rotation
     * omega_1 h of the drift; the locks' work is what their kicks and drift
     * changed (world->lock_work). */
    const fd_body_extra* extra = fd_body_extras(&world->masses[b]);
    fd_vec3 moved = fd_v3_sub(world->position[b], world->saved_position[b]);
    *external = fd_v3_dot(extra->external_force, moved) +
                h * fd_v3_dot(extra->external_torque, world->angular_velocity[b]);
    *constraint = world->has_locks ? world->lock_work[b] : 0.0;
}

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
        double external, constraint;
        fd_world_body_step_work(world, b, h, &external, &constraint);
        totals->external_work += external;
        if (world->has_locks) {
            totals->constraint_work += constraint;
        }
    }
}

double fd_world_entered_energy(const fd_world* world, double gravitational)
{
    const fd_energy_totals* totals = &world->energy_totals;
    double entered = world->energy_reference - gravitational - totals->removed_gravitational + totals->external_work +
                     totals->constraint_work + totals->inserted;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        entered += totals->created[m];
    }
    return entered;
}

/* What the books say should stay constant: mechanical energy plus springs
 * plus what left (dissipated, released) minus what came in (created, work,
 * inserted). docs/energy.md. */
double fd_world_ledger_balance(const fd_world_energy* e)
{
    double balance = e->kinetic_translational + e->kinetic_rotational + e->gravitational + e->released +
                     e->removed - e->external_work - e->constraint_work - e->inserted;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        balance += e->stored[m] + e->dashpot[m] + e->slip[m] - e->created[m];
    }
    return balance;
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
    /* Both steppers keep the totals up to the last step and the springs'
     * energy now (the penalty stepper's from each pass's step sums,
     * src/penalty/contact_details.c, fd_book_step_sums). */
    const fd_energy_totals* totals = &world->energy_totals;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        energy.stored[m] = world->stored_energy[m];
        energy.dashpot[m] = totals->dashpot[m];
        energy.slip[m] = totals->slip[m];
        energy.created[m] = totals->created[m];
    }
    energy.normal_elastic = energy.stored[FD_MECHANISM_NORMAL];
    energy.released = totals->released;
    energy.external_work = totals->external_work;
    energy.constraint_work = totals->constraint_work;
    energy.inserted = totals->inserted;
    energy.removed = totals->removed;
    if (world->has_energy_reference) {
        energy.closure_error = fd_world_ledger_balance(&energy) - world->energy_reference;
        /* The reference is the kinetic + gravitational + stored energy at
         * prepare; less the gravitational energy now (of the bodies there
         * are, and of those removed when they left), the rest is gravity's work. */
        energy.entered = fd_world_entered_energy(world, energy.gravitational);
    }
    return energy;
}

fd_step_undo fd_world_step_marks(const fd_world* world)
{
    fd_step_undo undo = {.next_contact_id = world->next_contact_id,
                         .energy_totals = world->energy_totals,
                         .time = world->time,
                         .step_count = world->step_count};
    memcpy(undo.stored_energy, world->stored_energy, sizeof undo.stored_energy);
    return undo;
}

fd_step_undo fd_world_begin_step(fd_world* world)
{
    fd_step_undo undo = fd_world_step_marks(world);
    if (world->has_locks) {
        memset(world->lock_work, 0, (size_t)world->body_count * sizeof *world->lock_work);
    }
    return undo;
}

void fd_world_undo_step(fd_world* world, const fd_step_undo* undo)
{
    world->next_contact_id = undo->next_contact_id;
    world->energy_totals = undo->energy_totals;
    memcpy(world->stored_energy, undo->stored_energy, sizeof undo->stored_energy);
    world->time = undo->time;
    world->step_count = undo->step_count;
}
