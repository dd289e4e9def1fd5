/* fd_world_prepare: what a world checks and derives before its first step
 * (the laws of every pair of materials that can touch, inherited where the
 * models allow it, the critical step, the steppers' set-up, the first
 * forces), and the energy ledger's books of a step (external loads'
 * and locks' work).
 *
 * Must not: create bodies or materials (world.c, world_bodies.c). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/staggered.h"
#include "engine/engine.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

/* ---------------------------------------------------------------- energy ledger */

static double ledger_balance(const fd_world* world)
{
    fd_world_energy energy = fd_world_get_energy(world);
    return fd_world_ledger_balance(&energy);
}

/* ---------------------------------------------------------------- prepare */

bool fd_world_reserve_law(fd_world* world)
{
    return fd_grow_doubling((void**)&world->laws, &world->law_capacity, world->law_count + 1, 8,
                            sizeof *world->laws);
}

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
    if (!fd_world_reserve_law(world)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *law_index = world->law_count++;
    world->laws[*law_index] = law;
    world->law_table[a * materials + b] = *law_index;
    world->law_table[b * materials + a] = *law_index;
    return FD_OK;
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
        world->position[b] = fd_periodic_wrap_position(periodic, world->position[b]);
    }
}

fd_status fd_world_prepare(fd_world* world)
{
    fd_world_note_change(world);
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
    fd_world_bind_broadphase(world);
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
