/* The energy ledger's books that every stepper keeps the same way
 * (docs/energy.md): the work of the external loads and of the locks over a
 * step, and what entered the world since it was prepared. Reads the world's
 * arrays; knows no stepper. */
#include "world/world_internal.h"

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
