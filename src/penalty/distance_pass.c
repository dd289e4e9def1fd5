/* Stage 1 of a force pass: which listed pairs touch.
 *
 * Plain sphere-sphere entries (most of them) are tested inline from the
 * positions and bounding radii (arrays per field, 24 and 8 bytes a body),
 * and so are two spheres of a registry law (Fang & Negrut's) in a world
 * without periodic axes; every other kind by a function
 * out of line (test_other_entry: sphere and
 * plane from the plane's normal, and the kinds below). Each entry is
 * written without a branch on the outcome (a pair is about as likely to
 * touch as not, so a branch would be mispredicted half the time): its slot
 * in the thread's list is filled and the count advances by the test. With
 * periodic axes a sphere pair's separation at the nearest image is kept
 * beside it for the law pass. Generic entries get the full
 * narrow phase here, and keep its geometry for the law pass; round pairs of
 * the registry's laws get fd_collide's test only (round_pair.c); pairs of
 * materials that never touch (normal model none) are never touching.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <math.h>

#include "core/error.h"
#include "penalty/penalty_internal.h"
#include "penalty/round_pair.h"
#include "world/world_store.h"

/* A generic entry: fd_collide into the thread's next geometry slot (without
 * the principal frames of round surfaces unless the pass records them: no
 * kernel reads them). Returns whether the pair touches. */
static __attribute__((noinline)) bool generic_distance(const fd_world* world, fd_penalty_thread* th, int32_t e,
                                                       int i, int j, bool record)
{
    int64_t capacity = th->slot_capacity;
    if (!fd_grow((void**)&th->slots, &capacity, th->slot_count + 1, sizeof *th->slots)) {
        th->failure = FD_PASS_OUT_OF_MEMORY;
        return false;
    }
    th->slot_capacity = (int32_t)capacity;
    fd_generic_slot* generic = &th->slots[th->slot_count];
    fd_pose pose_i = {world->position[i], world->orientation[i]};
    fd_pose pose_j = {world->position[j], world->orientation[j]};
    generic->offset = fd_v3(0.0, 0.0, 0.0);
    if (world->periodic.any && !world->is_wall[i] && !world->is_wall[j]) {
        generic->offset = fd_periodic_near_offset(&world->periodic, fd_v3_sub(pose_i.position, pose_j.position));
        pose_j.position = fd_v3_add(pose_j.position, generic->offset);
    }
    fd_collide_result result =
        (record ? fd_collide : fd_collide_round_frames_skipped)(&world->colds[i].shape, pose_i, &world->colds[j].shape,
                                                                pose_j, world->def.contact_margin, &generic->geometry);
    if (result == FD_COLLIDE_UNSUPPORTED && th->failure == FD_PASS_OK) {
        th->failure = FD_PASS_UNSUPPORTED;
        th->failed_entry = e;
    }
    if (result != FD_COLLIDE_TOUCHING) {
        return false;
    }
    th->slot_count++;
    return true;
}

static __attribute__((noinline)) void note_ended(fd_penalty_thread* th, int32_t e)
{
    if (!fd_grow((void**)&th->ended, &th->ended_capacity, th->ended_count + 1, sizeof *th->ended)) {
        th->failure = FD_PASS_OUT_OF_MEMORY;
        return;
    }
    th->ended[th->ended_count++] = e;
}

/* Two spheres of a registry law at separation d (x_i - x_j at the nearest
 * image), reach the sum of their bounding radii and the margin: the quick
 * test, and fd_collide's own near the boundary. Without a periodic image d
 * is fd_collide's separation to the bit, and its test (r_i + r_j - |d| >
 * -margin) can differ from this one only within rounding of the boundary:
 * away from it (here a relative 1e-9 of reach^2, millions of ulps) the
 * quick test is fd_collide's answer. With an image, fd_collide decides
 * every pair the quick test finds. */
static inline __attribute__((always_inline)) bool round_spheres_touch(const fd_world* world, int i, int j, fd_vec3 d,
                                                                      double reach, bool imaged, double margin)
{
    double squared = fd_v3_dot(d, d), reach_squared = reach * reach;
    bool touches = squared < reach_squared;
    /* One branch, on a rare case: a pair within 2e-9 of reach^2 either side
     * (wider than the test's band below, so that outside it the quick test
     * is the answer) or a touching image. A branch on `touches` itself went
     * either way as often as not. */
    if (__builtin_expect(imaged | (fabs(squared - reach_squared) < 2e-9 * reach_squared), 0) && touches &&
        (imaged || !(squared < reach_squared * (1.0 - 1e-9)))) {
        touches = fd_round_pair_touches(world, i, j, FD_PAIR_SPHERE_SPHERE, margin);
    }
    return touches;
}

/* An entry of any kind but a plain sphere pair (test_rows takes those
 * inline): a round pair of the registry's laws, a sphere and a plane, a
 * generic pair or one that never touches. Whether it touches; a generic
 * pair's geometry goes to the thread's next slot. */
static __attribute__((noinline)) bool test_other_entry(const fd_world* world, fd_penalty_thread* th, int32_t e, int i,
                                                      int j, uint8_t pair, double ri, bool record, bool any_periodic)
{
    const fd_vec3 xi = world->position[i], xj = world->position[j];
    double rj = world->bounding_radii[j];
    double margin = world->def.contact_margin;
    bool touches;
    switch (pair >= FD_PAIR_GENERIC_SPHERES ? pair - FD_PAIR_GENERIC_SPHERES : pair) {
    case FD_PAIR_SPHERE_SPHERE: { /* two round shapes of a registry law (plain sphere pairs: test_rows) */
        fd_vec3 d = fd_v3_sub(xi, xj);
        if (any_periodic) {
            d = fd_v3_sub(d, fd_periodic_near_offset(&world->periodic, d));
        }
        return round_spheres_touch(world, i, j, d, ri + rj, any_periodic, margin);
    }
    case FD_PAIR_SPHERE_PLANE:
        touches = fd_v3_dot(fd_v3_sub(xi, xj), world->plane_normals[j]) < ri;
        break;
    case FD_PAIR_PLANE_SPHERE:
        touches = fd_v3_dot(fd_v3_sub(xj, xi), world->plane_normals[i]) < rj + margin;
        break;
    default:
        /* other shapes: the narrow phase decides; materials that
         * never touch (FD_PAIR_NEVER, past the round kinds) never do */
        touches = pair != FD_PAIR_NEVER;
        break;
    }
    if (pair == FD_PAIR_GENERIC && touches) {
        /* The registry's kernels want the full geometry. */
        return generic_distance(world, th, e, i, j, record);
    }
    if (pair > FD_PAIR_GENERIC && touches) {
        /* A round pair: fd_collide's own test; the law pass takes
         * its geometry from the centres (round_pair.c). */
        return fd_round_pair_touches(world, i, j, pair - FD_PAIR_GENERIC_SPHERES, margin);
    }
    return touches;
}

/* The rows' entries; `any_periodic` is a constant in each instantiation
 * (fd_distance_pass), so a world without periodic axes carries no image
 * code. Plain sphere pairs, most entries, are tested here, and without
 * periodic axes two spheres of a registry law too (a branch the plain
 * pairs never reach: measured, +1.3 % of the distance pass's instructions,
 * against -53 % in a Fang & Negrut pile); the others by test_other_entry. */
static inline __attribute__((always_inline)) void test_rows(const fd_world* world, const fd_neighbor_list* list,
                                                            fd_penalty_thread* th, int first_row, int end_row,
                                                            bool record, bool any_periodic)
{
    const fd_vec3* restrict position = world->position;
    const double* restrict radii = world->bounding_radii;
    const fd_periodic* periodic = &world->periodic;
    double margin = world->def.contact_margin;
    fd_touch* restrict touching = th->touching;
    fd_vec3* restrict separation = th->separation;
    int64_t count = 0, new_count = 0;
    const int32_t* restrict partner = list->partner;
    const uint8_t* restrict kind = list->kind;
    const int32_t* restrict contact = list->contact;
    const int64_t* restrict row_start = list->row_start;
    bool partners_ahead = world->penalty->partners_ahead;
    int32_t last_entry = (int32_t)row_start[end_row] - 1; /* (only read where the rows have entries) */
    for (int i = first_row; i < end_row; ++i) {
        fd_vec3 xi = position[i];
        double ri = radii[i] + margin;
        int32_t end = (int32_t)row_start[i + 1];
        for (int32_t e = (int32_t)row_start[i]; e < end; ++e) {
            int j = partner[e];
            uint8_t pair = kind[e];
            if (partners_ahead) { /* penalty_internal.h, FD_PARTNER_BYTES */
                int ahead = partner[e + FD_ENTRY_AHEAD < last_entry ? e + FD_ENTRY_AHEAD : last_entry];
                __builtin_prefetch(&position[ahead], 0, 3);
                __builtin_prefetch(&radii[ahead], 0, 3);
            }
            bool touches;
            if (pair == FD_PAIR_SPHERE_SPHERE) {
                fd_vec3 d = fd_v3_sub(xi, position[j]);
                if (any_periodic) {
                    d = fd_v3_sub(d, fd_periodic_near_offset(periodic, d));
                    separation[count] = d; /* kept if it touches, as touching[count] is */
                }
                double reach = ri + radii[j];
                touches = fd_v3_dot(d, d) < reach * reach;
            } else if (!any_periodic && pair == FD_PAIR_GENERIC_SPHERES + FD_PAIR_SPHERE_SPHERE) {
                /* Two spheres under a registry law (Fang & Negrut's lanes). */
                touches = round_spheres_touch(world, i, j, fd_v3_sub(xi, position[j]), ri + radii[j], false, margin);
            } else {
                touches = test_other_entry(world, th, e, i, j, pair, ri, record, any_periodic);
                if (th->failure == FD_PASS_OUT_OF_MEMORY) {
                    return;
                }
            }
            int was_touching = contact[e] != FD_NO_CONTACT;
            int now_touching = touches;
            touching[count] = (fd_touch){e, i};
            count += now_touching;
            new_count += now_touching > was_touching;
            /* One branch, on the rare case (a contact that ends): a branch on
             * the test itself would be mispredicted half the time. */
            if (__builtin_expect(was_touching > now_touching, 0)) {
                note_ended(th, e);
            }
        }
    }
    th->touching_count = count;
    th->new_count = new_count;
}

static __attribute__((noinline)) void test_rows_periodic(const fd_world* world, const fd_neighbor_list* list,
                                                         fd_penalty_thread* th, int first_row, int end_row,
                                                         bool record)
{
    test_rows(world, list, th, first_row, end_row, record, true);
}

static __attribute__((noinline)) void test_rows_plain(const fd_world* world, const fd_neighbor_list* list,
                                                      fd_penalty_thread* th, int first_row, int end_row, bool record)
{
    test_rows(world, list, th, first_row, end_row, record, false);
}

void fd_distance_pass(const fd_world* world, const fd_neighbor_list* list, fd_penalty_thread* th, int first_row,
                      int end_row, bool record)
{
    th->touching_count = 0;
    th->slot_count = 0;
    th->ended_count = 0;
    th->new_count = 0;
    th->remote_count = 0;
    th->failure = FD_PASS_OK;
    th->failed_entry = -1;
    int64_t entries = list->row_start[end_row] - list->row_start[first_row];
    if (!fd_grow((void**)&th->touching, &th->touching_capacity, entries + 1, sizeof *th->touching) ||
        (world->periodic.any &&
         !fd_grow((void**)&th->separation, &th->separation_capacity, entries + 1, sizeof *th->separation))) {
        th->failure = FD_PASS_OUT_OF_MEMORY;
        return;
    }
    (world->periodic.any ? test_rows_periodic : test_rows_plain)(world, list, th, first_row, end_row, record);
    if (th->failure == FD_PASS_OUT_OF_MEMORY) {
        return;
    }
    int64_t count = th->touching_count;
    const fd_touch* touching = th->touching;
    /* A touching pair without a law (prepare checks the laws, so only a
     * world changed under it gets here). */
    for (int64_t k = 0; k < count && th->failure == FD_PASS_OK; ++k) {
        if (list->law[touching[k].entry] == FD_NO_LAW) {
            th->failure = FD_PASS_NO_LAW;
            th->failed_entry = touching[k].entry;
        }
    }
}

fd_status fd_distance_failure(const fd_world* world, const fd_neighbor_list* list, const fd_penalty_thread* th)
{
    if (th->failure == FD_PASS_OUT_OF_MEMORY) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory in the contact pass");
    }
    int32_t e = th->failed_entry;
    int i = 0;
    while (list->row_start[i + 1] <= e) {
        ++i;
    }
    int j = list->partner[e];
    char a[300], b[300];
    if (th->failure == FD_PASS_NO_LAW) {
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
