/* The Verlet neighbour list of the penalty stepper (penalty.h).
 *
 * Built from the broad phase's candidate pairs with the margin widened by the
 * skin: every pair whose bounding spheres come within contact_margin + skin
 * (m) is an entry, in ascending key order, grouped in rows by body i. As long
 * as no body has moved more than half the skin since the build, no pair that
 * is not listed can touch (each of its two bodies moved less than skin / 2),
 * so the list serves every force pass until then.
 *
 * A rebuild carries each entry's contact (state, history, id, first step,
 * books) to the new list by key: both lists are in key order, so one merge
 * per row finds them. A touching pair is always in the new list (it is within
 * the margin, so within the wider reach). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "penalty/penalty_internal.h"
#include "world/world_internal.h"

static bool grow_array(void** array, size_t count, size_t element_size)
{
    void* grown = realloc(*array, (count > 0 ? count : 1) * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    return true;
}

void fd_neighbor_list_free(fd_neighbor_list* list)
{
    free(list->row_start);
    free(list->partner);
    free(list->kind);
    free(list->law);
    free(list->constants);
    free(list->state);
    free(list->history);
    free(list->contact_id);
    free(list->first_step);
    free(list->books);
    free(list->thread_row);
    memset(list, 0, sizeof *list);
}

static bool reserve_entries(fd_neighbor_list* list, int64_t count, int history_stride, int constant_stride,
                            bool ledger)
{
    if (count <= list->capacity && (list->books != NULL || !ledger)) {
        return true;
    }
    int64_t capacity = list->capacity > 0 ? list->capacity : 1024;
    while (capacity < count) {
        capacity += capacity / 2;
    }
    size_t n = (size_t)capacity;
    bool ok = grow_array((void**)&list->partner, n, sizeof *list->partner) &&
              grow_array((void**)&list->kind, n, sizeof *list->kind) &&
              grow_array((void**)&list->law, n, sizeof *list->law) &&
              grow_array((void**)&list->constants, n * (size_t)constant_stride, sizeof *list->constants) &&
              grow_array((void**)&list->state, n, sizeof *list->state) &&
              grow_array((void**)&list->history, n * (size_t)(history_stride > 0 ? history_stride : 1),
                         sizeof *list->history) &&
              grow_array((void**)&list->contact_id, n, sizeof *list->contact_id) &&
              grow_array((void**)&list->first_step, n, sizeof *list->first_step);
    if (ok && ledger) {
        ok = grow_array((void**)&list->books, n * FD_MECHANISM_COUNT, sizeof *list->books);
    }
    if (ok) {
        list->capacity = capacity;
    }
    return ok;
}

bool fd_law_has_sphere_kernel(const fd_contact_law* law)
{
    fd_submodel_kind normal = law->submodel[FD_MECHANISM_NORMAL]->kind;
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    bool normal_ok = normal == FD_KIND_NORMAL_HOOKE || normal == FD_KIND_NORMAL_HERTZ;
    bool slide_ok = slide == NULL || slide->kind == FD_KIND_SLIDE_DSDS || slide->kind == FD_KIND_SLIDE_CSDS;
    bool roll_ok = roll == NULL || roll->kind == FD_KIND_ROLL_DSDS || roll->kind == FD_KIND_ROLL_CSDS;
    bool spin_ok = spin == NULL || spin->kind == FD_KIND_SPIN_DSDS || spin->kind == FD_KIND_SPIN_CSDS ||
                   spin->kind == FD_KIND_SPIN_MARSHALL;
    return normal_ok && slide_ok && roll_ok && spin_ok;
}

int fd_law_constant_count(const fd_contact_law* law)
{
    if (law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ) {
        return 3;
    }
    return law->submodel[FD_MECHANISM_ROLL] != NULL || law->submodel[FD_MECHANISM_SPIN] != NULL ? 2 : 1;
}

/* The pair's constants for the sphere kernels, fixed for the life of the
 * entry: [0] the normal dashpot (hooke: gamma sqrt(m k), eta_n or eta_n_mass
 * m, N s/m; hertz: gamma sqrt(m K), N s/m^(5/4)), [1] R_eff (m), [2] hertz's
 * K = 4/3 E* sqrt(R_eff) (Johnson Eq. 4.23), with m the pair's effective
 * mass (the dynamic one's against a static body). */
static void pair_constants(const fd_contact_law* law, double mass_i, double mass_j, double radius_i, double radius_j,
                           bool plane_j, int stride, double* out)
{
    double effective_mass = mass_i <= 0.0 ? mass_j : (mass_j <= 0.0 ? mass_i : mass_i * mass_j / (mass_i + mass_j));
    double effective_radius = plane_j ? radius_i : 1.0 / (1.0 / radius_i + 1.0 / radius_j);
    const double* p = law->params[FD_MECHANISM_NORMAL];
    const double* derived = law->derived[FD_MECHANISM_NORMAL];
    double c0;
    double hertz_constant = 0.0;
    if (law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ) {
        hertz_constant = 4.0 / 3.0 * derived[FD_NORMAL_DERIVED_MODULUS] * sqrt(effective_radius);
        c0 = derived[FD_NORMAL_DERIVED_GAMMA] * sqrt(effective_mass * hertz_constant);
    } else {
        c0 = derived[FD_NORMAL_DERIVED_GAMMA] * sqrt(effective_mass * p[FD_HOOKE_STIFFNESS]);
        if (p[FD_HOOKE_ETA_N] > 0.0) {
            c0 = p[FD_HOOKE_ETA_N];
        } else if (p[FD_HOOKE_ETA_N_MASS] > 0.0) {
            c0 = p[FD_HOOKE_ETA_N_MASS] * effective_mass;
        }
    }
    double values[3] = {c0, effective_radius, hertz_constant};
    for (int k = 0; k < stride; ++k) {
        out[k] = values[k];
    }
}

void fd_pair_constants(const fd_world* world, fd_neighbor_list* list, int64_t e, int i, int j)
{
    const fd_contact_law* law = &world->laws[list->law[e]];
    bool plane_i = world->is_plane[i], plane_j = world->is_plane[j];
    /* per (sphere, other): the order of the pair does not matter for them */
    int sphere = plane_i ? j : i, other = plane_i ? i : j;
    pair_constants(law, world->motion[sphere].mass, world->motion[other].mass, world->bounding_radii[sphere],
                   world->bounding_radii[other], plane_i || plane_j, world->penalty.constant_stride,
                   list->constants + (size_t)e * (size_t)world->penalty.constant_stride);
}

static uint8_t pair_kind(uint32_t flags_i, uint32_t flags_j, bool sphere_kernel)
{
    if (!sphere_kernel) {
        return FD_PAIR_GENERIC;
    }
    bool sphere_i = flags_i & FD_MOTION_SPHERE, sphere_j = flags_j & FD_MOTION_SPHERE;
    bool plane_i = flags_i & FD_MOTION_PLANE, plane_j = flags_j & FD_MOTION_PLANE;
    if (sphere_i && sphere_j) {
        return FD_PAIR_SPHERE_SPHERE;
    }
    if (sphere_i && plane_j) {
        return FD_PAIR_SPHERE_PLANE;
    }
    if (plane_i && sphere_j) {
        return FD_PAIR_PLANE_SPHERE;
    }
    return FD_PAIR_GENERIC;
}

/* Row bounds per thread, each with about the same number of entries plus
 * rows (a row costs its body's loop even when empty). */
static bool balance_threads(fd_neighbor_list* list, int threads)
{
    if (!grow_array((void**)&list->thread_row, (size_t)threads + 1, sizeof *list->thread_row)) {
        return false;
    }
    list->thread_count = threads;
    int n = list->body_count;
    double total = (double)list->count + (double)n;
    int row = 0;
    list->thread_row[0] = 0;
    for (int t = 1; t < threads; ++t) {
        double target = total * t / threads;
        while (row < n && (double)list->row_start[row] + row < target) {
            ++row;
        }
        list->thread_row[t] = row;
    }
    list->thread_row[threads] = n;
    return true;
}

fd_status fd_neighbor_list_build(fd_world* world, fd_neighbor_list* out, const fd_neighbor_list* old)
{
    fd_penalty* penalty = &world->penalty;
    fd_broadphase* bp = &world->broadphase;
    bp->body_count = world->body_count;
    bp->states = world->states;
    bp->radii = world->bounding_radii;
    bp->is_static = world->is_static;
    bp->is_plane = world->is_plane;
    bp->plane_normals = world->plane_normals;
    bp->margin = world->def.contact_margin + penalty->skin;
    if (!fd_broadphase_update(bp)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory in the broad phase");
    }
    int n = world->body_count;
    int stride = world->history_stride;
    int constant_stride = penalty->constant_stride;
    bool ledger = world->def.energy_ledger;
    if (!grow_array((void**)&out->row_start, (size_t)n + 1, sizeof *out->row_start) ||
        !reserve_entries(out, bp->pair_count, stride, constant_stride, ledger)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for a neighbour list of %d pairs", bp->pair_count);
    }
    out->body_count = n;
    out->count = bp->pair_count;
    int materials = world->material_count;
    int constant_stride_size = constant_stride;
    const fd_body_motion* motion = world->motion;
    const bool* sphere_kernel = penalty->law_sphere_kernel;
    int64_t e = 0;
    for (int i = 0; i < n; ++i) {
        out->row_start[i] = e;
        int64_t old_e = old != NULL && i < old->body_count ? old->row_start[i] : 0;
        int64_t old_end = old != NULL && i < old->body_count ? old->row_start[i + 1] : 0;
        const int* law_row = world->law_table + (size_t)motion[i].material * (size_t)materials;
        uint32_t flags_i = motion[i].flags;
        for (; e < bp->pair_count && (int)(bp->pairs[e] >> 32) == i; ++e) {
            int j = (int)(bp->pairs[e] & 0xffffffffu);
            int law_index = law_row[motion[j].material];
            out->partner[e] = j;
            out->law[e] = law_index >= 0 ? (uint16_t)law_index : FD_NO_LAW;
            out->kind[e] = pair_kind(flags_i, motion[j].flags, law_index >= 0 && sphere_kernel[law_index]);
            /* The contact this pair had in the old list, if any. */
            while (old_e < old_end && old->partner[old_e] < j) {
                ++old_e;
            }
            if (old_e < old_end && old->partner[old_e] == j && old->law[old_e] == out->law[e] &&
                (old->state[old_e] & FD_ENTRY_TOUCHING)) {
                out->state[e] = old->state[old_e];
                out->contact_id[e] = old->contact_id[old_e];
                out->first_step[e] = old->first_step[old_e];
                memcpy(out->constants + (size_t)e * (size_t)constant_stride_size,
                       old->constants + (size_t)old_e * (size_t)constant_stride_size,
                       (size_t)constant_stride_size * sizeof(double));
                if (stride > 0) {
                    memcpy(out->history + (size_t)e * (size_t)stride, old->history + (size_t)old_e * (size_t)stride,
                           (size_t)stride * sizeof(double));
                }
                if (ledger && old->books != NULL) {
                    memcpy(out->books + (size_t)e * FD_MECHANISM_COUNT, old->books + (size_t)old_e * FD_MECHANISM_COUNT,
                           FD_MECHANISM_COUNT * sizeof(fd_energy_books));
                }
            } else {
                /* A contact that begins computes its constants and zeroes its
                 * history and books (force_pass.c, begin_contact). */
                out->state[e] = 0;
            }
        }
    }
    out->row_start[n] = e;
    if (!balance_threads(out, world->def.thread_count)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the neighbour list");
    }
    /* The rebuild test measures displacements from here. */
    if (n > penalty->reference_capacity) {
        int capacity = n + n / 2 + 64;
        if (!grow_array((void**)&penalty->reference_position, (size_t)capacity, sizeof(fd_vec3)) ||
            !grow_array((void**)&penalty->places, (size_t)capacity, sizeof(fd_place))) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the neighbour list");
        }
        penalty->reference_capacity = capacity;
    }
    for (int b = 0; b < n; ++b) {
        fd_vec3 x = world->states[b].position;
        penalty->reference_position[b] = x;
        penalty->places[b] = (fd_place){x.x, x.y, x.z, world->bounding_radii[b]};
    }
    penalty->max_displacement_squared = 0.0;
    penalty->rebuilds++;
    return FD_OK;
}

size_t fd_neighbor_list_memory(const fd_neighbor_list* list, int history_stride, int constant_stride)
{
    size_t per_entry = sizeof(int32_t) + sizeof(uint8_t) + sizeof(uint16_t) + (size_t)constant_stride * sizeof(double) +
                       sizeof(uint8_t) + (size_t)history_stride * sizeof(double) + sizeof(uint64_t) + sizeof(int64_t) +
                       (list->books != NULL ? FD_MECHANISM_COUNT * sizeof(fd_energy_books) : 0);
    return (size_t)list->capacity * per_entry + (size_t)(list->body_count + 1) * sizeof(int64_t);
}
