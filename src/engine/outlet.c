/* Outlets: regions that take bodies out of a running world (docs/outlets.md).
 *
 * After each step (fd_world_run_outlets, after the contact pass, before the
 * inlets insert), every dynamic body whose centre lies in the region of an
 * outlet whose start time has come is removed with fd_world_remove_slots,
 * all of the step's at once, in ascending body index; a body in two regions
 * counts for the outlet added first. The test reads the bodies' positions
 * only (the centre, not the shape: a sphere half through the region's face
 * stays until its centre crosses), so the outcome is a function of the state
 * and the same for any thread count.
 *
 * Cost: one pass over the positions per step and outlet, split over the
 * threads, which counts the bodies inside; only a step that found some
 * collects them (serially, in index order) and removes them.
 *
 * Also the checks an inlet or outlet passes when added
 * (fd_world_check_new_input).
 *
 * Must not touch: files, ranks, the command line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "engine/engine.h"
#include "world/world_store.h"

fd_outlet_def fd_default_outlet_def(void)
{
    fd_outlet_def def;
    memset(&def, 0, sizeof def);
    def.shape = FD_OUTLET_BOX;
    def.normal = fd_v3(0, 0, 1);
    return def;
}

/* ---------------------------------------------------------------- adding */

static fd_status check_def(const fd_outlet_def* def)
{
    const char* name = def->name;
    if (!(def->start_time >= 0.0) || !isfinite(def->start_time)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "outlet '%s': start_time must be a finite number >= 0 s (got %g)",
                       name, def->start_time);
    }
    switch (def->shape) {
    case FD_OUTLET_BOX:
        if (!fd_v3_is_finite(def->box_min) || !fd_v3_is_finite(def->box_max)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "outlet '%s': box_min and box_max must be finite", name);
        }
        for (int axis = 0; axis < 3; ++axis) {
            double lo = fd_v3_component(def->box_min, axis), hi = fd_v3_component(def->box_max, axis);
            if (!(hi > lo)) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT,
                               "outlet '%s': box_max must exceed box_min on every axis (%c: min %g m, max %g m)", name,
                               "xyz"[axis], lo, hi);
            }
        }
        return FD_OK;
    case FD_OUTLET_HALF_SPACE: {
        double length = fd_v3_length(def->normal);
        if (!fd_v3_is_finite(def->point) || !(length > 0.0) || !isfinite(length)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "outlet '%s': a half-space needs a finite point and a finite, non-zero normal", name);
        }
        return FD_OK;
    }
    case FD_OUTLET_SPHERE:
        if (!fd_v3_is_finite(def->center) || !(def->radius > 0.0) || !isfinite(def->radius)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "outlet '%s': a sphere needs a finite center and a radius > 0 m (got %g)", name,
                           def->radius);
        }
        return FD_OK;
    }
    return fd_fail(FD_ERR_INVALID_ARGUMENT, "outlet '%s': unknown shape %d", name, (int)def->shape);
}

fd_status fd_world_check_new_input(const fd_world* world, const char* kind, const void* def, const char* name,
                                   int count, fd_input_name name_of)
{
    if (def == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: def is NULL", kind);
    }
    if (name == NULL || name[0] == '\0') {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: name is required", kind);
    }
    if (world->step_count > 0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s '%s': %ss must be added before the first step", kind, name, kind);
    }
    for (int i = 0; i < count; ++i) {
        if (strcmp(name_of(world, i), name) == 0) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s '%s': name already used", kind, name);
        }
    }
    return FD_OK;
}

void* fd_world_new_input_item(void** items, int* capacity, int count, size_t size, const char* kind,
                              const char* name, char** name_copy)
{
    if (!fd_grow_doubling(items, capacity, count + 1, 4, size) || (*name_copy = strdup(name)) == NULL) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory adding %s '%s'", kind, name);
        return NULL;
    }
    void* item = (char*)*items + (size_t)count * size;
    memset(item, 0, size);
    return item;
}

static const char* outlet_name(const fd_world* world, int i) { return world->outlets[i].name; }

fd_status fd_world_add_outlet(fd_world* world, const fd_outlet_def* def)
{
    fd_status status = fd_world_check_new_input(world, "outlet", def, def != NULL ? def->name : NULL,
                                                world->outlet_count, outlet_name);
    if (status != FD_OK) {
        return status;
    }
    fd_world_note_change(world);
    status = check_def(def);
    if (status != FD_OK) {
        return status;
    }
    char* name = NULL;
    fd_outlet* outlet = fd_world_new_input_item((void**)&world->outlets, &world->outlet_capacity, world->outlet_count,
                                                sizeof *world->outlets, "outlet", def->name, &name);
    if (outlet == NULL) {
        return FD_ERR_OUT_OF_MEMORY;
    }
    outlet->def = *def;
    outlet->def.name = outlet->name = name;
    if (def->shape == FD_OUTLET_HALF_SPACE) {
        outlet->def.normal = fd_v3_normalize(def->normal);
    }
    world->outlet_count++;
    return FD_OK;
}

void fd_world_free_outlets(fd_world* world)
{
    for (int i = 0; i < world->outlet_count; ++i) {
        free(world->outlets[i].name);
    }
    free(world->outlets);
    world->outlets = NULL;
    world->outlet_count = world->outlet_capacity = 0;
}

int fd_world_outlet_count(const fd_world* world) { return world->outlet_count; }

fd_outlet_info fd_world_get_outlet_info(const fd_world* world, int index)
{
    if (index < 0 || index >= world->outlet_count) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "outlet index %d out of range [0, %d)", index, world->outlet_count);
        return (fd_outlet_info){.name = ""};
    }
    const fd_outlet* outlet = &world->outlets[index];
    return (fd_outlet_info){outlet->name, outlet->removed, outlet->removed_mass};
}

/* ---------------------------------------------------------------- removing */

static bool inside(const fd_outlet_def* def, fd_vec3 c)
{
    switch (def->shape) {
    case FD_OUTLET_BOX:
        return c.x >= def->box_min.x && c.x <= def->box_max.x && c.y >= def->box_min.y && c.y <= def->box_max.y &&
               c.z >= def->box_min.z && c.z <= def->box_max.z;
    case FD_OUTLET_HALF_SPACE:
        return fd_v3_dot(fd_v3_sub(c, def->point), def->normal) < 0.0;
    case FD_OUTLET_SPHERE:
        return fd_v3_length_squared(fd_v3_sub(c, def->center)) < def->radius * def->radius;
    }
    return false;
}

/* Whether outlet i removes bodies after the step just taken: its start
 * time has come (half a step of slack: t = n dt may round to just below a
 * start time it reaches). */
static bool is_open(const fd_world* world, int i)
{
    return !world->outlets[i].closed && world->time + 0.5 * world->def.time_step >= world->outlets[i].def.start_time;
}

/* The first open outlet whose region holds body b's centre, or -1. */
static int outlet_of(const fd_world* world, int b)
{
    if (world->colds[b].type != FD_BODY_DYNAMIC) {
        return -1; /* static bodies stay, and so do removed bodies' slots (static) */
    }
    for (int i = 0; i < world->outlet_count; ++i) {
        if (is_open(world, i) && inside(&world->outlets[i].def, world->position[b])) {
            return i;
        }
    }
    return -1;
}

int fd_world_outlet_of(const fd_world* world, int b) { return outlet_of(world, b); }

fd_status fd_world_run_outlets(fd_world* world)
{
    if (world->outlets_by_caller) {
        return FD_OK; /* every rank removes the bodies their owners found (src/parallel/partition.c) */
    }
    bool any_open = false;
    for (int i = 0; i < world->outlet_count; ++i) {
        any_open = any_open || is_open(world, i);
    }
    if (!any_open) {
        return FD_OK;
    }
    int n = world->body_count, found = 0;
    int threads = world->def.thread_count;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && n >= 4096) reduction(+ : found)
    for (int b = 0; b < n; ++b) {
        found += outlet_of(world, b) >= 0;
    }
    if (found == 0) {
        return FD_OK;
    }
    /* The bodies, their outlets and masses (the removal zeroes the slots'). */
    int32_t* leaving = malloc((size_t)found * sizeof *leaving);
    int32_t* outlet = malloc((size_t)found * sizeof *outlet);
    double* mass = malloc((size_t)found * sizeof *mass);
    fd_status status = leaving && outlet && mass
                           ? FD_OK
                           : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory removing %d bodies at the outlets", found);
    int count = 0;
    for (int b = 0; status == FD_OK && b < n && count < found; ++b) {
        int i = outlet_of(world, b);
        if (i >= 0) {
            outlet[count] = i;
            mass[count] = world->colds[b].mass;
            leaving[count++] = b;
        }
    }
    if (status == FD_OK) {
        status = fd_world_remove_slots(world, leaving, count);
    }
    for (int k = 0; status == FD_OK && k < count; ++k) {
        world->outlets[outlet[k]].removed++;
        world->outlets[outlet[k]].removed_mass += mass[k];
    }
    free(leaving);
    free(outlet);
    free(mass);
    return status;
}
