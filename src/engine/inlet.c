/* Inlets: spheres poured into a running world (docs/inlets.md).
 *
 * An inlet owes min(count, floor(rate (t - start))) spheres after the step
 * that reaches time t. At the end of each step (fd_world_run_inlets, after
 * the contact pass and the finiteness check) it inserts the spheres it owes,
 * in order k = 0, 1, ...:
 *
 *   1. radius and velocity of sphere k from Philox-4x64-10 (Random123; Salmon
 *      et al., SC 2011) with key (seed, 1) and counter (k, 0, 0, 0);
 *   2. a place in the region from the counter (k, a + 1, 0, 0), a = 0, 1, ...
 *      the placements tried so far for sphere k; a place is taken when the
 *      sphere overlaps no body (gap >= contact_margin + the inlet's clearance
 *      to every sphere's bounding sphere and every plane), else the next a
 *      is tried;
 *   3. after max_attempts rejected places in one step the sphere waits for the
 *      next step (and so do the spheres after it); it is counted as delayed
 *      when it goes in, and the shortfall stays visible in fd_inlet_info.
 *
 * A counter-based generator makes sphere k depend on (seed, k) and on where
 * the bodies are, nothing else: the same scene gives bitwise the same run.
 * The key's second word (1) keeps an inlet's numbers apart from those of a
 * lattice generator (key (seed, 0)) with the same seed.
 *
 * The new spheres are created with fd_world_create_body, which books them in
 * the world (and the energy ledger books their energy as inserted). They touch
 * nothing, so the contacts and loads of the step stand: each new sphere gets
 * gravity and its (zero) external load as its force, the broad phase is
 * pointed at the grown arrays, and the world stays prepared, so the next step
 * does not recompute the contact pass (which would apply the incremental
 * springs' increments twice).
 *
 * Cost. Per inlet and step with something due: one pass over the bodies'
 * positions (a streaming read, a few ms for 10^6 bodies, small beside the
 * step itself) picks the planes and the bodies within reach of the region's
 * box; they go into a cell grid over that box (inlet_grid: bounded by the
 * region and by the number of those bodies, never by the world), and a
 * placement tries only the bodies of the 27 cells around it. The spheres
 * inserted in the step join the grid. So a placement costs O(1), whatever
 * the number of bodies in the world or in the region; the grid finds exactly
 * the bodies a scan of them all would reject a place for, so the places, and
 * the runs, are those of the scan.
 *
 * Must not touch: files, ranks, the command line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <Random123/philox.h>

#include "core/error.h"
#include "core/grow.h"
#include "penalty/penalty.h"
#include "engine/engine.h"
#include "world/world_store.h"

static const double PI = 3.14159265358979323846;

/* Allowance on rate (t - start) so that the round-off of t = n dt never
 * delays a sphere by a step (e.g. 800 x 125 x 1e-5 = 0.99999999999999989). */
static const double DUE_ALLOWANCE = 1e-9;

/* Uniform in [0, 1) with 53 random bits. */
static double unit_uniform(uint64_t bits) { return (double)(bits >> 11) * 0x1.0p-53; }

static void draw(const fd_inlet* inlet, uint64_t k, uint64_t stream, double u[4])
{
    const philox4x64_key_t key = {{inlet->def.seed, 1}};
    const philox4x64_ctr_t counter = {{k, stream, 0, 0}};
    const philox4x64_ctr_t random = philox4x64(counter, key);
    for (int j = 0; j < 4; ++j) {
        u[j] = unit_uniform(random.v[j]);
    }
}

fd_inlet_def fd_default_inlet_def(void)
{
    fd_inlet_def def;
    memset(&def, 0, sizeof def);
    def.shape = FD_INLET_DISK;
    def.normal = fd_v3(0, 0, 1);
    def.seed = 1;
    def.max_attempts = 100;
    return def;
}

/* ---------------------------------------------------------------- adding */

static bool finite_non_negative(double value) { return value >= 0.0 && isfinite(value); }

/* Is `name` "<prefix>.<digits>"? */
static bool is_sphere_name(const char* name, const char* prefix)
{
    size_t length = strlen(prefix);
    if (strncmp(name, prefix, length) != 0 || name[length] != '.' || name[length + 1] == '\0') {
        return false;
    }
    for (const char* c = name + length + 1; *c; ++c) {
        if (*c < '0' || *c > '9') {
            return false;
        }
    }
    return true;
}

static fd_status check_def(const fd_world* world, const fd_inlet_def* def, double* radius_min, double* radius_max)
{
    const char* name = def->name;
    if (def->material.index1 < 1 || def->material.index1 > world->material_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': material is required", name);
    }
    if (def->size_count == 0) {
        if (!(def->radius > 0.0) || !isfinite(def->radius)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': radius must be > 0 m (got %g)", name, def->radius);
        }
        if (!(def->radius_spread >= 0.0 && def->radius_spread <= 0.9)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': radius_spread must be in [0, 0.9] (got %g)", name,
                           def->radius_spread);
        }
        *radius_min = def->radius * (1.0 - def->radius_spread);
        *radius_max = def->radius * (1.0 + def->radius_spread);
    } else {
        if (def->size_count < 0 || def->size_count > FD_INLET_MAX_SIZES) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': size_count must be in [0, %d] (got %d)", name,
                           FD_INLET_MAX_SIZES, def->size_count);
        }
        double sum = 0.0;
        *radius_min = INFINITY;
        *radius_max = 0.0;
        for (int i = 0; i < def->size_count; ++i) {
            if (!(def->size_radius[i] > 0.0) || !isfinite(def->size_radius[i])) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': size %d: radius must be > 0 m (got %g)", name, i,
                               def->size_radius[i]);
            }
            if (!finite_non_negative(def->size_fraction[i])) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': size %d: fraction must be >= 0 (got %g)", name,
                               i, def->size_fraction[i]);
            }
            sum += def->size_fraction[i];
            if (def->size_fraction[i] > 0.0) {
                *radius_min = fmin(*radius_min, def->size_radius[i]);
                *radius_max = fmax(*radius_max, def->size_radius[i]);
            }
        }
        if (!(sum > 0.0)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': the size fractions must not all be 0", name);
        }
    }
    if (def->shape == FD_INLET_DISK) {
        if (!fd_v3_is_finite(def->center) || !fd_v3_is_finite(def->normal) || fd_v3_length(def->normal) == 0.0) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': disk centre and normal must be finite, the normal "
                           "not zero", name);
        }
        if (!(def->disk_radius >= *radius_max) || !isfinite(def->disk_radius)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "inlet '%s': disk radius %g m is smaller than the largest sphere radius %g m", name,
                           def->disk_radius, *radius_max);
        }
        if (!finite_non_negative(def->thickness)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': thickness must be >= 0 m (got %g)", name,
                           def->thickness);
        }
        for (int axis = 0; axis < 3; ++axis) { /* where a sphere may go: finite, or it is placed at inf */
            if (!isfinite(fabs(fd_v3_component(def->center, axis)) + def->disk_radius + def->thickness)) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT,
                               "inlet '%s': the disk reaches past the largest double along %c (centre %g m, radius "
                               "%g m)", name, "xyz"[axis], fd_v3_component(def->center, axis), def->disk_radius);
            }
        }
    } else if (def->shape == FD_INLET_BOX) {
        if (!fd_v3_is_finite(def->box_min) || !fd_v3_is_finite(def->box_max)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': box corners must be finite", name);
        }
        fd_vec3 size = fd_v3_sub(def->box_max, def->box_min);
        for (int axis = 0; axis < 3; ++axis) {
            if (!isfinite(fd_v3_component(size, axis))) { /* a sphere would be placed at inf */
                return fd_fail(FD_ERR_INVALID_ARGUMENT,
                               "inlet '%s': box from %g m to %g m along %c is longer than the largest double", name,
                               fd_v3_component(def->box_min, axis), fd_v3_component(def->box_max, axis), "xyz"[axis]);
            }
            if (!(fd_v3_component(size, axis) >= 2.0 * *radius_max)) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT,
                               "inlet '%s': box is %g m along %c, less than the largest sphere diameter %g m", name,
                               fd_v3_component(size, axis), "xyz"[axis], 2.0 * *radius_max);
            }
        }
    } else {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': unknown region shape %d", name, (int)def->shape);
    }
    if (!(def->rate > 0.0) || !isfinite(def->rate)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': rate must be > 0 spheres/s (got %g)", name, def->rate);
    }
    if (def->count < 1) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': count must be >= 1 (got %lld)", name,
                       (long long)def->count);
    }
    if (!finite_non_negative(def->start_time)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': start_time must be >= 0 s (got %g)", name,
                       def->start_time);
    }
    if (!finite_non_negative(def->clearance)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': clearance must be finite and >= 0 m (got %g)", name,
                       def->clearance);
    }
    if (!fd_v3_is_finite(def->velocity) || !finite_non_negative(def->velocity_spread)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': velocity must be finite and velocity_spread >= 0 m/s",
                       name);
    }
    if (def->max_attempts < 1) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s': max_attempts must be >= 1 (got %d)", name,
                       def->max_attempts);
    }
    for (int b = 0; b < world->body_count; ++b) {
        if (is_sphere_name(world->body_names[b], name)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "inlet '%s': body '%s' has a name of the form the inlet gives its spheres ('%s.<k>')",
                           name, world->body_names[b], name);
        }
    }
    return FD_OK;
}

static const char* inlet_name(const fd_world* world, int i) { return world->inlets[i].name; }

fd_status fd_world_add_inlet(fd_world* world, const fd_inlet_def* def)
{
    fd_status status = fd_world_check_new_input(world, "inlet", def, def != NULL ? def->name : NULL,
                                                world->inlet_count, inlet_name);
    if (status != FD_OK) {
        return status;
    }
    fd_world_note_change(world);
    double radius_min = 0.0, radius_max = 0.0;
    status = check_def(world, def, &radius_min, &radius_max);
    if (status != FD_OK) {
        return status;
    }
    char* name = NULL;
    fd_inlet* inlet = fd_world_new_input_item((void**)&world->inlets, &world->inlet_capacity, world->inlet_count,
                                              sizeof *world->inlets, "inlet", def->name, &name);
    if (inlet == NULL) {
        return FD_ERR_OUT_OF_MEMORY;
    }
    inlet->def = *def;
    inlet->def.name = inlet->name = name;
    inlet->radius_min = radius_min;
    inlet->radius_max = radius_max;
    if (def->size_count > 0) {
        double sum = 0.0, running = 0.0;
        for (int i = 0; i < def->size_count; ++i) {
            sum += def->size_fraction[i];
        }
        for (int i = 0; i < def->size_count; ++i) {
            running += def->size_fraction[i];
            inlet->size_cumulative[i] = running / sum;
        }
        inlet->size_cumulative[def->size_count - 1] = 1.0;
    }
    if (def->shape == FD_INLET_DISK) {
        inlet->normal = fd_v3_normalize(def->normal);
        inlet->axis_u = fd_v3_normalize(fd_v3_any_orthogonal(inlet->normal));
        inlet->axis_v = fd_v3_cross(inlet->normal, inlet->axis_u);
        inlet->bound_center = def->center;
        inlet->bound_radius = hypot(def->disk_radius, 0.5 * def->thickness);
    } else {
        inlet->bound_center = fd_v3_scale(0.5, fd_v3_add(def->box_min, def->box_max));
        inlet->bound_radius = 0.5 * fd_v3_distance(def->box_min, def->box_max);
    }
    world->inlet_count++;
    world->prepared = false; /* prepare checks the laws and the time step for the spheres to come */
    return FD_OK;
}

void fd_world_free_inlets(fd_world* world)
{
    for (int i = 0; i < world->inlet_count; ++i) {
        free(world->inlets[i].name);
    }
    free(world->inlets);
    free(world->inlet_near);
    world->inlets = NULL;
    world->inlet_near = NULL;
    world->inlet_count = world->inlet_capacity = world->inlet_near_capacity = 0;
}

int fd_world_inlet_count(const fd_world* world) { return world->inlet_count; }

fd_inlet_info fd_world_get_inlet_info(const fd_world* world, int index)
{
    fd_inlet_info info;
    memset(&info, 0, sizeof info);
    info.name = "";
    if (index < 0 || index >= world->inlet_count) {
        fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet index %d out of range [0, %d)", index, world->inlet_count);
        return info;
    }
    const fd_inlet* inlet = &world->inlets[index];
    const fd_inlet_def* def = &inlet->def;
    info.name = inlet->name;
    info.count = def->count;
    info.inserted = inlet->inserted;
    info.due = inlet->due_before;
    info.delayed = inlet->delayed;
    info.max_delay = inlet->max_delay;
    info.rejected = inlet->rejected;
    if (def->shape == FD_INLET_DISK) {
        /* The disk's extent along a world axis e is R sqrt(1 - (n.e)^2) + (thickness / 2) |n.e|. */
        fd_vec3 n = inlet->normal;
        double half[3];
        for (int axis = 0; axis < 3; ++axis) {
            double c = fd_v3_component(n, axis);
            half[axis] = def->disk_radius * sqrt(fmax(0.0, 1.0 - c * c)) + 0.5 * def->thickness * fabs(c);
        }
        fd_vec3 extent = fd_v3(half[0], half[1], half[2]);
        info.bounds_min = fd_v3_sub(def->center, extent);
        info.bounds_max = fd_v3_add(def->center, extent);
    } else {
        info.bounds_min = def->box_min;
        info.bounds_max = def->box_max;
    }
    return info;
}

void fd_world_inlet_extents(const fd_world* world, int* bodies_of_material, bool* dynamic_material,
                            double* smallest_radius, double* lightest, double* largest_radius)
{
    for (int i = 0; i < world->inlet_count; ++i) {
        const fd_inlet* inlet = &world->inlets[i];
        int m = inlet->def.material.index1 - 1;
        int64_t remaining = inlet->def.count - inlet->inserted;
        if (remaining <= 0) {
            continue;
        }
        bodies_of_material[m] += remaining > 1000000 ? 1000000 : (int)remaining;
        dynamic_material[m] = true;
        smallest_radius[m] = fmin(smallest_radius[m], inlet->radius_min);
        double volume = 4.0 / 3.0 * PI * inlet->radius_min * inlet->radius_min * inlet->radius_min;
        *lightest = fmin(*lightest, world->materials[m].density * volume);
        *largest_radius = fmax(*largest_radius, inlet->radius_max);
    }
}

/* ---------------------------------------------------------------- inserting */

/* Spheres due after the step that reached time t, the time it stood paused
 * taken off. */
static int64_t due_count(const fd_inlet* inlet, double time)
{
    const fd_inlet_def* def = &inlet->def;
    double owed = def->rate * (time - def->start_time - inlet->paused_total) + DUE_ALLOWANCE;
    if (!(owed >= 1.0)) {
        return 0;
    }
    if (owed >= (double)def->count) {
        return def->count;
    }
    return (int64_t)floor(owed);
}

static double sphere_radius(const fd_inlet* inlet, const double u[4])
{
    const fd_inlet_def* def = &inlet->def;
    if (def->size_count == 0) {
        return def->radius * (1.0 + def->radius_spread * (2.0 * u[0] - 1.0));
    }
    int i = 0;
    while (i < def->size_count - 1 && !(u[0] < inlet->size_cumulative[i])) {
        ++i;
    }
    return def->size_radius[i];
}

/* A place for a sphere of radius r from four uniform numbers. */
static fd_vec3 sphere_place(const fd_inlet* inlet, double r, const double u[4])
{
    const fd_inlet_def* def = &inlet->def;
    if (def->shape == FD_INLET_DISK) {
        double rho = (def->disk_radius - r) * sqrt(u[0]); /* uniform over the disk's area */
        double phi = 2.0 * PI * u[1];
        double height = def->thickness * (u[2] - 0.5);
        fd_vec3 in_plane =
            fd_v3_add(fd_v3_scale(rho * cos(phi), inlet->axis_u), fd_v3_scale(rho * sin(phi), inlet->axis_v));
        return fd_v3_add(def->center, fd_v3_add(in_plane, fd_v3_scale(height, inlet->normal)));
    }
    double p[3];
    for (int axis = 0; axis < 3; ++axis) {
        double lo = fd_v3_component(def->box_min, axis) + r;
        double hi = fd_v3_component(def->box_max, axis) - r;
        p[axis] = lo + (hi - lo) * u[axis];
    }
    return fd_v3(p[0], p[1], p[2]);
}

static bool grow_near(fd_world* world, int needed)
{
    return fd_grow_doubling((void**)&world->inlet_near, &world->inlet_near_capacity, needed, 64,
                            sizeof *world->inlet_near);
}

/* The box that holds every place the inlet can give a sphere's centre. */
static void place_bounds(const fd_inlet* inlet, double lo[3], double hi[3])
{
    const fd_inlet_def* def = &inlet->def;
    for (int axis = 0; axis < 3; ++axis) {
        if (def->shape == FD_INLET_DISK) {
            /* The disk's extent along a world axis e: R sqrt(1 - (n.e)^2) + (thickness / 2) |n.e|. */
            double c = fd_v3_component(inlet->normal, axis);
            double half = def->disk_radius * sqrt(fmax(0.0, 1.0 - c * c)) + 0.5 * def->thickness * fabs(c);
            lo[axis] = fd_v3_component(def->center, axis) - half;
            hi[axis] = fd_v3_component(def->center, axis) + half;
        } else {
            lo[axis] = fd_v3_component(def->box_min, axis);
            hi[axis] = fd_v3_component(def->box_max, axis);
        }
    }
}

void fd_world_inlet_bounds(const fd_world* world, int i, double lo[3], double hi[3], double* radius_max)
{
    place_bounds(&world->inlets[i], lo, hi);
    *radius_max = world->inlets[i].radius_max;
}

/* The bodies that can touch a sphere of the inlet anywhere in its region, in
 * a cell grid over the region's box (bounded by the region, never by the
 * world): cells at least 2 r_max + contact_margin (+ clearance) wide, so
 * that a body no wider than the inlet's spheres is found in the 27 cells
 * around a place from the cell of its centre; a wider body is entered in
 * every cell that comes within its reach, and is found in the place's own
 * cell. The planes are kept apart, at the start of world->inlet_near. The
 * clearance (fd_penalty_isolation_clearance) widens every reach so that the
 * grid also finds the bodies an isolation test needs; the free test's
 * inequality is the same, so the places taken are too. */
typedef struct inlet_grid {
    double lo[3], width[3], inverse_width[3];
    int64_t n[3];
    int32_t* head;  /* per cell: first entry, -1 = none */
    int32_t* body;  /* per entry */
    int32_t* next;  /* per entry: next entry of the same cell */
    int64_t entry_count, entry_capacity;
    int wall_count;
    double clearance;  /* m beyond contact_margin kept in reach for the isolation test; 0: none */
} inlet_grid;

static void grid_free(inlet_grid* grid)
{
    free(grid->head);
    free(grid->body);
    free(grid->next);
}

static int64_t cell_of(const inlet_grid* grid, int axis, double x)
{
    return fd_clamped_cell(x, grid->lo[axis], grid->inverse_width[axis], grid->n[axis]);
}

static bool grid_add(inlet_grid* grid, int32_t b, int64_t cx, int64_t cy, int64_t cz)
{
    if (grid->entry_count == grid->entry_capacity) {
        int64_t capacity = grid->entry_capacity > 0 ? 2 * grid->entry_capacity : 256;
        if (capacity > INT32_MAX) {
            return false;
        }
        int32_t* body = realloc(grid->body, (size_t)capacity * sizeof *body);
        if (body == NULL) {
            return false;
        }
        grid->body = body;
        int32_t* next = realloc(grid->next, (size_t)capacity * sizeof *next);
        if (next == NULL) {
            return false;
        }
        grid->next = next;
        grid->entry_capacity = capacity;
    }
    int64_t cell = (cz * grid->n[1] + cy) * grid->n[0] + cx;
    int32_t e = (int32_t)grid->entry_count++;
    grid->body[e] = b;
    grid->next[e] = grid->head[cell];
    grid->head[cell] = e;
    return true;
}

/* Enters body b (not a plane) in the cells where a place can find it. */
static bool grid_add_body(inlet_grid* grid, const fd_world* world, int32_t b, double radius_max)
{
    const double x[3] = {world->position[b].x, world->position[b].y, world->position[b].z};
    const double bound = world->bounding_radii[b];
    int64_t from[3], to[3];
    if (bound <= radius_max) {
        for (int a = 0; a < 3; ++a) {
            from[a] = cell_of(grid, a, x[a]);
        }
        return grid_add(grid, b, from[0], from[1], from[2]);
    }
    const double reach = bound + radius_max + world->def.contact_margin + grid->clearance;
    for (int a = 0; a < 3; ++a) {
        from[a] = cell_of(grid, a, x[a] - reach);
        to[a] = cell_of(grid, a, x[a] + reach);
    }
    for (int64_t cz = from[2]; cz <= to[2]; ++cz) {
        for (int64_t cy = from[1]; cy <= to[1]; ++cy) {
            for (int64_t cx = from[0]; cx <= to[0]; ++cx) {
                const int64_t c[3] = {cx, cy, cz};
                double distance = fd_cell_distance2(x, c, grid->lo, grid->width);
                /* The allowance covers round-off and places a hair outside the box. */
                if (distance <= reach * reach * (1.0 + 1e-9) && !grid_add(grid, b, cx, cy, cz)) {
                    return false;
                }
            }
        }
    }
    return true;
}

/* The grid for this step: one pass over the bodies' positions picks the
 * planes and the bodies within reach of the region's box; the grid over the
 * box gets at most about 4 (near bodies + spheres due) + 4096 cells. */
static bool grid_build(fd_world* world, const fd_inlet* inlet, int64_t due_now, double clearance, inlet_grid* grid)
{
    memset(grid, 0, sizeof *grid);
    grid->clearance = fmax(fmax(clearance, inlet->def.clearance), 0.0);
    if (!grow_near(world, world->body_count)) {
        return false;
    }
    double lo[3], hi[3];
    place_bounds(inlet, lo, hi);
    const double margin = world->def.contact_margin + grid->clearance;
    const double radius_max = inlet->radius_max;
    int near_count = 0;
    for (int b = 0; b < world->body_count; ++b) {
        if (world->is_removed[b]) {
            continue; /* a removed body's slot (src/engine/removal.c) */
        }
        if (world->is_wall[b]) {
            world->inlet_near[near_count++] = b;
            continue;
        }
        double reach = world->bounding_radii[b] + radius_max + margin;
        const fd_vec3 x = world->position[b];
        if (x.x > lo[0] - reach && x.x < hi[0] + reach && x.y > lo[1] - reach && x.y < hi[1] + reach &&
            x.z > lo[2] - reach && x.z < hi[2] + reach) {
            world->inlet_near[near_count++] = b;
        }
    }

    const double limit = fmin(4.0 * ((double)near_count + (double)due_now) + 4096.0, 0x1.0p24);
    double width = (2.0 * radius_max + margin) * (1.0 + 1e-9);
    double cells;
    for (;;) {
        cells = 1.0;
        for (int a = 0; a < 3; ++a) {
            double length = hi[a] - lo[a];
            /* At most `limit` cells along an axis, whose count is an int64
             * only once it is that small (a region 2e300 m long once
             * converted 1e300 cells to int64 and crashed); the cells then
             * are wider than `width`, which the search allows. */
            double n = fmin(floor(length / width), limit);
            grid->n[a] = n < 1.0 ? 1 : (int64_t)n;
            grid->width[a] = grid->n[a] == 1 ? fmax(length, width) : length / (double)grid->n[a];
            grid->inverse_width[a] = 1.0 / grid->width[a];
            grid->lo[a] = lo[a];
            cells *= (double)grid->n[a];
        }
        if (cells <= limit) {
            break;
        }
        width *= fmax(1.01, cbrt(cells / limit));
    }
    grid->head = malloc((size_t)cells * sizeof *grid->head);
    if (grid->head == NULL) {
        return false;
    }
    memset(grid->head, 0xff, (size_t)cells * sizeof *grid->head); /* -1 */
    for (int k = 0; k < near_count; ++k) {
        int32_t b = world->inlet_near[k];
        if (world->is_wall[b]) {
            world->inlet_near[grid->wall_count++] = b; /* in place: wall_count <= k */
        } else if (!grid_add_body(grid, world, b, radius_max)) {
            return false;
        }
    }
    return true;
}

/* Does a sphere of radius r at p stay at least contact_margin + extra
 * (`strictly`: more than that) from every body that can reach it (planes:
 * its half-space; others: their bounding sphere)? With the inlet's
 * clearance, the free test of a place; strictly with the isolation
 * clearance, the isolation test of a sphere just placed
 * (fd_penalty_append_isolated). The grid covers both reaches. */
static bool place_is_clear(const fd_world* world, const inlet_grid* grid, fd_vec3 p, double r, double extra,
                           bool strictly)
{
    double margin = world->def.contact_margin + extra;
    for (int k = 0; k < grid->wall_count; ++k) {
        int b = world->inlet_near[k];
        double gap = fd_world_wall_gap(world, world->position, b, p, r, 2.0 * margin);
        if (strictly ? !(gap > margin) : gap < margin) {
            return false;
        }
    }
    const double x[3] = {p.x, p.y, p.z};
    int64_t from[3], to[3];
    for (int a = 0; a < 3; ++a) {
        int64_t c = cell_of(grid, a, x[a]);
        from[a] = c > 0 ? c - 1 : 0;
        to[a] = c + 1 < grid->n[a] ? c + 1 : c;
    }
    for (int64_t cz = from[2]; cz <= to[2]; ++cz) {
        for (int64_t cy = from[1]; cy <= to[1]; ++cy) {
            const int32_t* row = grid->head + (cz * grid->n[1] + cy) * grid->n[0];
            for (int64_t cx = from[0]; cx <= to[0]; ++cx) {
                for (int32_t e = row[cx]; e >= 0; e = grid->next[e]) {
                    int b = grid->body[e];
                    double reach = r + world->bounding_radii[b] + margin;
                    double distance_squared = fd_v3_length_squared(fd_v3_sub(p, world->position[b]));
                    if (strictly ? !(distance_squared > reach * reach) : distance_squared < reach * reach) {
                        return false;
                    }
                }
            }
        }
    }
    return true;
}

/* The world after fd_world_create_body added body b mid-run: b's force is
 * gravity and its external load (it touches nothing), the broad phase reads
 * the possibly moved arrays, and the world stays prepared. */
static void adopt_body(fd_world* world, int b)
{
    const fd_body_extra* extra = fd_body_extras(&world->masses[b]);
    world->forces[b] = fd_v3_mul_add(extra->external_force, world->colds[b].mass, world->def.gravity);
    world->torques[b] = extra->external_torque;
    fd_world_bind_broadphase(world);
    world->prepared = true;
}

static fd_status place_due(fd_world* world, fd_inlet* inlet, int64_t due, int64_t due_before, inlet_grid* grid,
                           double clearance, bool* isolated);

/* `isolated` stays true while every sphere placed is isolated (no grid
 * clearance: false as soon as one is placed). */
static fd_status run_inlet(fd_world* world, fd_inlet* inlet, double clearance, bool* isolated)
{
    if (inlet->paused) {
        return FD_OK;
    }
    int64_t due = due_count(inlet, world->time);
    int64_t due_before = inlet->due_before;
    inlet->due_before = due;
    if (inlet->inserted >= due) {
        return FD_OK;
    }
    inlet_grid grid;
    if (!grid_build(world, inlet, due - inlet->inserted, clearance, &grid)) {
        grid_free(&grid);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "inlet '%s': out of memory", inlet->name);
    }
    fd_status status = place_due(world, inlet, due, due_before, &grid, clearance, isolated);
    grid_free(&grid);
    return status;
}

/* Inserts the spheres due, in order, while they find room. */
static fd_status place_due(fd_world* world, fd_inlet* inlet, int64_t due, int64_t due_before, inlet_grid* grid,
                           double clearance, bool* isolated)
{
    const fd_inlet_def* def = &inlet->def;
    char name[600];
    while (inlet->inserted < due) {
        int64_t k = inlet->inserted;
        double u[4];
        draw(inlet, (uint64_t)k, 0, u);
        double r = sphere_radius(inlet, u);
        fd_vec3 velocity = def->velocity;
        if (def->velocity_spread > 0.0) {
            velocity = fd_v3_add(velocity, fd_v3_scale(def->velocity_spread,
                                                      fd_v3(2.0 * u[1] - 1.0, 2.0 * u[2] - 1.0, 2.0 * u[3] - 1.0)));
        }
        bool placed = false;
        fd_vec3 position = fd_v3(0, 0, 0);
        for (int attempt = 0; attempt < def->max_attempts && !placed; ++attempt) {
            double v[4];
            draw(inlet, (uint64_t)k, (uint64_t)(inlet->attempts + 1), v);
            inlet->attempts++;
            position = sphere_place(inlet, r, v);
            placed = place_is_clear(world, grid, position, r, def->clearance, false);
            inlet->rejected += !placed;
        }
        if (!placed) {
            return FD_OK; /* the region is full: sphere k and the rest wait for a later step */
        }

        *isolated = *isolated && clearance > 0.0 && place_is_clear(world, grid, position, r, clearance, true);
        fd_body_def body = fd_default_body_def();
        snprintf(name, sizeof name, "%s.%lld", inlet->name, (long long)k);
        body.name = name;
        body.type = FD_BODY_DYNAMIC;
        body.shape.type = FD_SHAPE_SPHERE;
        body.shape.radius = r;
        body.material = def->material;
        body.position = position;
        body.velocity = velocity;
        fd_body_id id = fd_world_create_body(world, &body);
        if (fd_body_id_is_null(id)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "inlet '%s' at step %lld, t = %.9g s: %s", inlet->name,
                           (long long)world->step_count, world->time, fd_last_error());
        }
        int b = id.index1 - 1;
        adopt_body(world, b);
        if (!grid_add_body(grid, world, b, inlet->radius_max)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "inlet '%s': out of memory", inlet->name);
        }
        if (k < due_before) {
            /* Due at an earlier step: sphere k was due from start + (k + 1) / rate. */
            inlet->delayed++;
            inlet->max_delay = fmax(inlet->max_delay, world->time - (def->start_time + inlet->paused_total +
                                                                        (double)(k + 1) / def->rate));
        }
        inlet->inserted++;
        inlet->attempts = 0;
    }
    return FD_OK;
}

fd_status fd_world_run_inlets(fd_world* world)
{
    return world->inlets_by_caller ? FD_OK : fd_world_insert_from_inlets(world);
}

fd_status fd_world_insert_from_inlets(fd_world* world)
{
    /* Spheres placed clear of everything by more than the clearance join
     * the standing neighbour list as empty rows; otherwise the next pass
     * rebuilds it (its body count no longer matches). Only the cost differs. */
    const int before = world->body_count;
    const double clearance = fd_penalty_isolation_clearance(world);
    bool isolated = clearance > 0.0;
    for (int i = 0; i < world->inlet_count; ++i) {
        fd_status status = run_inlet(world, &world->inlets[i], clearance, &isolated);
        if (status != FD_OK) {
            return status;
        }
    }
    if (world->body_count > before && isolated) {
        fd_penalty_append_isolated(world);
    }
    return FD_OK;
}
