/* The hash-grid broad phase against an O(N^2) reference. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "broadphase/broadphase.h"

/* Small deterministic generator (xorshift64*) for positions and radii. */
static double uniform(uint64_t* state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (double)((*state * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

/* far = true puts body 1 a kilometre away: the bounding box then holds far
 * more than 4 cells per body and the grid falls back to its spatial hash. */
static void check_against_brute_force(bool far, int threads)
{
    enum { N = 3000 };
    fd_vec3* states = calloc(N, sizeof *states);
    double* radii = calloc(N, sizeof *radii);
    bool* is_static = calloc(N, sizeof *is_static);
    bool* is_plane = calloc(N, sizeof *is_plane);
    fd_vec3* normals = calloc(N, sizeof *normals);
    uint64_t seed = 88172645463325252ull;
    double largest = 0.0;
    for (int b = 0; b < N; ++b) {
        /* Bodies 10 and 2000 are planes (floor z = 0, wall x = 0.9); body 7 a static sphere. */
        if (b == 10 || b == 2000) {
            is_plane[b] = is_static[b] = true;
            radii[b] = INFINITY;
            normals[b] = b == 10 ? fd_v3(0, 0, 1) : fd_v3(-1, 0, 0);
            states[b] = b == 10 ? fd_v3(0, 0, 0) : fd_v3(0.9, 0, 0);
            continue;
        }
        is_static[b] = b == 7;
        radii[b] = 0.01 + 0.02 * uniform(&seed); /* polydisperse, 1:3 */
        largest = fmax(largest, radii[b]);
        states[b] = fd_v3(uniform(&seed), uniform(&seed), uniform(&seed) - 0.05);
    }
    if (far) {
        states[1] = fd_v3(1000.0, -500.0, 20.0);
    }
    fd_broadphase bp = {0};
    bp.body_count = N;
    bp.positions = states;
    bp.radii = radii;
    bp.is_static = is_static;
    bp.is_wall = is_plane;
    bp.plane_normals = normals;
    bp.margin = 0.001;
    bp.cell_size = 2.0 * largest + bp.margin;
    bp.thread_count = threads;
    cr_assert(fd_broadphase_update(&bp));

    int expected = 0;
    for (int i = 0; i < N; ++i) {
        for (int j = i + 1; j < N; ++j) {
            bool hit;
            if (is_plane[i] && is_plane[j]) {
                hit = false;
            } else if (is_plane[i] || is_plane[j]) {
                int p = is_plane[i] ? i : j, b = is_plane[i] ? j : i;
                hit = !is_static[b] &&
                      fd_v3_dot(normals[p], fd_v3_sub(states[b], states[p])) < radii[b] + bp.margin;
            } else {
                double reach = radii[i] + radii[j] + bp.margin;
                hit = !(is_static[i] && is_static[j]) &&
                      fd_v3_length_squared(fd_v3_sub(states[i], states[j])) < reach * reach;
            }
            if (hit) {
                uint64_t key = (uint64_t)i << 32 | (uint32_t)j;
                cr_assert(expected < bp.pair_count, "missing pairs");
                cr_assert_eq(bp.pairs[expected], key, "pair %d: expected (%d, %d), got (%d, %d)", expected, i, j,
                             (int)(bp.pairs[expected] >> 32), (int)(bp.pairs[expected] & 0xffffffffu));
                ++expected;
            }
        }
    }
    cr_assert_eq(bp.pair_count, expected, "grid found %d pairs, brute force %d", bp.pair_count, expected);
    cr_assert(expected > 1000, "the test should exercise many pairs (got %d)", expected);
    fd_broadphase_free(&bp);
    free(states);
    free(radii);
    free(is_static);
    free(is_plane);
    free(normals);
}

Test(broadphase, dense_grid_finds_exactly_the_brute_force_pairs_in_ascending_order)
{
    check_against_brute_force(false, 1);
}

Test(broadphase, dense_grid_on_three_threads_gives_the_same_ordered_pairs)
{
    /* Each thread fills its own buffer for a range of bodies; joined in order
     * they must be exactly the brute-force list, in ascending key order. */
    check_against_brute_force(false, 3);
}

Test(broadphase, hashed_grid_finds_exactly_the_brute_force_pairs_in_ascending_order)
{
    check_against_brute_force(true, 2);
}

/* The pairs of n spheres of radius 0.01 m at the given centres (no planes,
 * none static), with cells as wide as a pair's reach. */
static int far_apart_pairs(const fd_vec3* centres, int n, uint64_t* pairs, int capacity)
{
    double radii[8];
    bool is_static[8] = {false}, is_plane[8] = {false};
    fd_vec3 normals[8] = {{0, 0, 0}};
    cr_assert(n <= 8);
    for (int b = 0; b < n; ++b) {
        radii[b] = 0.01;
    }
    fd_broadphase bp = {0};
    bp.body_count = n;
    bp.positions = centres;
    bp.radii = radii;
    bp.is_static = is_static;
    bp.is_wall = is_plane;
    bp.plane_normals = normals;
    bp.margin = 0.0;
    bp.cell_size = 0.02;
    bp.thread_count = 1;
    cr_assert(fd_broadphase_update(&bp));
    int count = bp.pair_count;
    cr_assert(count <= capacity);
    for (int k = 0; k < count; ++k) {
        pairs[k] = bp.pairs[k];
    }
    fd_broadphase_free(&bp);
    return count;
}

Test(broadphase, bodies_2e17_m_apart_neither_overflow_the_cell_count_nor_lose_pairs)
{
    /* 2e17 m / 0.02 m = 1e19 cells along x, more than an int64 holds: the
     * count once wrapped negative, passed as the dense grid's size and
     * crashed in a memset of negative length. Two touching pairs, one at
     * each end, must still be found. */
    fd_vec3 centres[4] = {{0, 0, 0}, {0.015, 0, 0}, {2e17, 0, 0}, {2e17, 0.015, 0}};
    uint64_t pairs[8];
    int count = far_apart_pairs(centres, 4, pairs, 8);
    cr_assert_eq(count, 2, "found %d pairs", count);
    cr_assert_eq(pairs[0], (uint64_t)0 << 32 | 1);
    cr_assert_eq(pairs[1], (uint64_t)2 << 32 | 3);
}

Test(broadphase, bodies_at_the_ends_of_the_double_range_still_pair)
{
    /* high - low overflows to inf, and x / cell to inf: the hash's cells are
     * clamped, yet the pair at 1e300 m (same x, 0.015 m apart in y) is found
     * and the lone body at -1e308 m pairs with nothing. */
    fd_vec3 centres[3] = {{-1e308, 0, 0}, {1e300, 0, 0}, {1e300, 0.015, 0}};
    uint64_t pairs[8];
    int count = far_apart_pairs(centres, 3, pairs, 8);
    cr_assert_eq(count, 1, "found %d pairs", count);
    cr_assert_eq(pairs[0], (uint64_t)1 << 32 | 2);
}
