/* Fang & Negrut's sphere lanes in the force pass (penalty_internal.h): the
 * pairs' constants and one contact through a lane of its own; the inputs'
 * gathering and the loads' return, once per contact, are inline in
 * fn_lanes.h. The lanes themselves are the model's
 * (contact/fang_negrut_lane.h); law_pass.c decides when.
 *
 * Must not: change what a contact computes (the lanes give the registry
 * path's bits), or read a body's cold record. */
#include <math.h>

#include "collide/collide.h"
#include "core/permute.h"
#include "contact/fang_negrut_lane.h"
#include "penalty/fn_lanes.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

static bool isotropic(fd_vec3 inertia) { return inertia.x == inertia.y && inertia.y == inertia.z; }

void fd_fn_pair_constants(const fd_world* world, const fd_contact_law* law, int shapes, int i, int j, double* out)
{
    /* The dashpot as normal.c forms it, with the effective radius
     * round_pair.c gives the pair (a plane curves nowhere; the factor is 1
     * for the lanes' laws). A plane's radius is not read. */
    double radius_i = shapes == FD_FN_PLANE_I ? 0.0 : world->bounding_radii[i];
    double radius_j = shapes == FD_FN_PLANE_J ? 0.0 : world->bounding_radii[j];
    const fd_vec3 zero = {0.0, 0.0, 0.0};
    const fd_vec3 directions[2] = {zero, zero};
    double kappa_i = shapes == FD_FN_PLANE_I ? 0.0 : 1.0 / radius_i;
    double kappa_j = shapes == FD_FN_PLANE_J ? 0.0 : 1.0 / radius_j;
    const double curvature_i[2] = {kappa_i, kappa_i}, curvature_j[2] = {kappa_j, kappa_j};
    double effective_radius = fd_effective_radius(curvature_i, directions, curvature_j, directions);
    double mass_i = world->motion[i].mass, mass_j = world->motion[j].mass;
    out[FD_FN_PAIR_DASHPOT] =
        fd_normal_dashpot_prefactor(law, fd_pair_effective_mass(mass_i, mass_j), effective_radius);
    out[FD_FN_PAIR_EFFECTIVE_RADIUS] = effective_radius;
    out[FD_FN_PAIR_HERTZ] = law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ
                                ? fd_hertz_constant(law->derived[FD_MECHANISM_NORMAL], effective_radius)
                                : 0.0;
    out[FD_FN_PAIR_RADIUS] = radius_i;
    out[FD_FN_PAIR_RADIUS + 1] = radius_j;
    out[FD_FN_PAIR_MASS] = mass_i;
    out[FD_FN_PAIR_MASS + 1] = mass_j;
    /* fang_negrut.c turns the axis into a body's frame unless its moments
     * are equal: such a pair takes the registry path (fd_fn_gather). */
    fd_vec3 inertia_i = world->masses[i].inertia, inertia_j = world->masses[j].inertia;
    out[FD_FN_PAIR_INERTIA] = isotropic(inertia_i) ? inertia_i.x : NAN;
    out[FD_FN_PAIR_INERTIA + 1] = isotropic(inertia_j) ? inertia_j.x : NAN;
}

bool fd_fn_single(fd_world* world, const fd_fn_lane_law* law, fd_fn_block* block, int shapes, int i, int j,
                  int32_t slot, fd_pair_loads* out)
{
    if (!fd_fn_gather(world, block, 0, shapes, i, j, slot, law)) {
        return false;
    }
    block->count = 1;
    fd_fn_gather_springs(block, law, &world->penalty->pool, world->history_stride);
    fd_fn_block_run(block, law, (fd_fn_shapes)shapes);
    if (block->fallback[0] != 0.0) {
        return false;
    }
    fd_fn_scatter_springs(block, law, &world->penalty->pool, world->history_stride);
    *out = fd_fn_lane_loads(block, 0);
    return true;
}

#if defined(FD_HAVE_PERMUTES)
/* The springs of the lanes [0, 4 quads), four lanes and four history doubles
 * at a time: four contacts' k .. k + 3 are a 4 x 4 transpose away from four
 * lanes of rows k .. k + 3 (the last four end at the law's size, overlapping
 * the four before: what they write twice is the same). `row`: the law's
 * spring_row, or NULL where it is the identity (then, with the size a
 * constant below, every address is a constant offset). */
static inline int lane_row(const int8_t* row, int k) { return row != NULL ? row[k] : k; }

static inline __attribute__((always_inline)) FD_AVX2 void gather_quads(fd_fn_block* b, const double* before,
                                                                      int stride, int quads, const int8_t* row,
                                                                      int size)
{
    for (int c = 0; c < 4 * quads; c += 4) {
        const double* springs[4];
        for (int r = 0; r < 4; ++r) {
            springs[r] = before + (size_t)b->slot[c + r] * (size_t)stride;
        }
        for (int start = 0; start < size; start += 4) {
            int k = start + 4 <= size ? start : size - 4;
            fd_lanes4 lanes = fd_transpose4((fd_lanes4){_mm256_loadu_pd(springs[0] + k),
                                                        _mm256_loadu_pd(springs[1] + k),
                                                        _mm256_loadu_pd(springs[2] + k),
                                                        _mm256_loadu_pd(springs[3] + k)});
            _mm256_storeu_pd(b->springs[lane_row(row, k)] + c, lanes.r0);
            _mm256_storeu_pd(b->springs[lane_row(row, k + 1)] + c, lanes.r1);
            _mm256_storeu_pd(b->springs[lane_row(row, k + 2)] + c, lanes.r2);
            _mm256_storeu_pd(b->springs[lane_row(row, k + 3)] + c, lanes.r3);
        }
    }
}

_Static_assert(FD_FN_BLOCK / 4 <= 32, "a block's quads are bits of a uint32_t");

/* The inverse of gather_quads for the quads whose four lanes the block did
 * (no fallback); the others lane by lane (fd_fn_scatter_springs). Returns
 * a mask of the quads left (bit q: lanes 4q .. 4q + 3). */
static inline __attribute__((always_inline)) FD_AVX2 uint32_t scatter_quads(const fd_fn_block* b, double* after,
                                                                           int stride, int quads,
                                                                           const int8_t* row, int size)
{
    uint32_t left = 0;
    for (int q = 0; q < quads; ++q) {
        int c = 4 * q;
        if ((b->fallback[c] != 0.0) | (b->fallback[c + 1] != 0.0) | (b->fallback[c + 2] != 0.0) |
            (b->fallback[c + 3] != 0.0)) {
            left |= 1u << q;
            continue;
        }
        double* springs[4];
        for (int r = 0; r < 4; ++r) {
            springs[r] = after + (size_t)b->slot[c + r] * (size_t)stride;
        }
        for (int start = 0; start < size; start += 4) {
            int k = start + 4 <= size ? start : size - 4;
            fd_lanes4 contacts =
                fd_transpose4((fd_lanes4){_mm256_loadu_pd(b->springs[lane_row(row, k)] + c),
                                          _mm256_loadu_pd(b->springs[lane_row(row, k + 1)] + c),
                                          _mm256_loadu_pd(b->springs[lane_row(row, k + 2)] + c),
                                          _mm256_loadu_pd(b->springs[lane_row(row, k + 3)] + c)});
            _mm256_storeu_pd(springs[0] + k, contacts.r0);
            _mm256_storeu_pd(springs[1] + k, contacts.r1);
            _mm256_storeu_pd(springs[2] + k, contacts.r2);
            _mm256_storeu_pd(springs[3] + k, contacts.r3);
        }
    }
    return left;
}

/* The block's whole quads, the common laws' layouts with their sizes
 * constant. Returns the lanes done. */
static FD_AVX2 int gather_by_quads(fd_fn_block* b, const fd_fn_lane_law* law, const double* before, int stride)
{
    int quads = b->count / 4;
    if (law->springs_in_order && law->history_size == FD_FN_SPRINGS) {
        gather_quads(b, before, stride, quads, NULL, FD_FN_SPRINGS); /* slide, roll and spin */
    } else if (law->springs_in_order && law->history_size == FD_FN_SLIDE_HISTORY) {
        gather_quads(b, before, stride, quads, NULL, FD_FN_SLIDE_HISTORY); /* slide */
    } else {
        gather_quads(b, before, stride, quads, law->spring_row, law->history_size);
    }
    return 4 * quads;
}

static FD_AVX2 uint32_t scatter_by_quads(const fd_fn_block* b, const fd_fn_lane_law* law, double* after, int stride)
{
    int quads = b->count / 4;
    if (law->springs_in_order && law->history_size == FD_FN_SPRINGS) {
        return scatter_quads(b, after, stride, quads, NULL, FD_FN_SPRINGS);
    }
    if (law->springs_in_order && law->history_size == FD_FN_SLIDE_HISTORY) {
        return scatter_quads(b, after, stride, quads, NULL, FD_FN_SLIDE_HISTORY);
    }
    return scatter_quads(b, after, stride, quads, law->spring_row, law->history_size);
}
#endif

void fd_fn_gather_springs(fd_fn_block* b, const fd_fn_lane_law* law, const fd_contact_pool* pool, int stride)
{
    const double* before = fd_springs_before(pool, 0, stride);
    int c = 0;
#if defined(FD_HAVE_PERMUTES)
    if (law->history_size >= 4 && fd_permutes_on()) {
        c = gather_by_quads(b, law, before, stride);
    }
#endif
    for (; c < b->count; ++c) {
        const double* springs = before + (size_t)b->slot[c] * (size_t)stride;
        for (int k = 0; k < law->history_size; ++k) {
            b->springs[law->spring_row[k]][c] = springs[k];
        }
    }
}

/* Lane c's springs into the pool, unless it is a fallback (whose springs
 * are the registry path's to write). */
static inline void scatter_lane(const fd_fn_block* b, const fd_fn_lane_law* law, double* after, int stride, int c)
{
    if (b->fallback[c] == 0.0) {
        double* springs = after + (size_t)b->slot[c] * (size_t)stride;
        for (int k = 0; k < law->history_size; ++k) {
            springs[k] = b->springs[law->spring_row[k]][c];
        }
    }
}

void fd_fn_scatter_springs(const fd_fn_block* b, const fd_fn_lane_law* law, fd_contact_pool* pool, int stride)
{
    const double* before = fd_springs_before(pool, 0, stride);
    double* after = fd_springs_after(pool, 0, stride);
    int c = 0;
#if defined(FD_HAVE_PERMUTES)
    if (law->history_size >= 4 && fd_permutes_on()) {
        /* the quads with a fallback lane, lane by lane */
        for (uint32_t left = scatter_by_quads(b, law, after, stride); left != 0; left &= left - 1) {
            int quad = __builtin_ctz(left);
            for (int lane = 4 * quad; lane < 4 * quad + 4; ++lane) {
                scatter_lane(b, law, after, stride, lane);
            }
        }
        c = b->count / 4 * 4;
    }
#endif
    for (; c < b->count; ++c) {
        scatter_lane(b, law, after, stride, c);
    }
    /* What the law keeps nothing in (another law's room): carried over. */
    for (int lane = 0; lane < b->count && law->history_size < stride; ++lane) {
        if (b->fallback[lane] == 0.0) {
            size_t slot = (size_t)b->slot[lane] * (size_t)stride;
            for (int k = law->history_size; k < stride; ++k) {
                after[slot + k] = before[slot + k];
            }
        }
    }
}
