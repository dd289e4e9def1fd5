/* The hash-grid broad phase against an O(N^2) reference. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "broadphase/broadphase.h"
#include "support/world.h"

/* far = true puts body 1 a kilometre away: the bounding box then holds far
 * more than 4 cells per body and the grid falls back to its spatial hash. */
static void check_against_brute_force(bool far, int threads)
{
    enum { N = 3000 };
    test_broadphase_bodies bodies = test_broadphase_bodies_alloc(N);
    uint64_t seed = 88172645463325252ull;
    double largest = 0.0;
    for (int b = 0; b < N; ++b) {
        /* Bodies 10 and 2000 are planes (floor z = 0, wall x = 0.9); body 7 a static sphere. */
        if (b == 10 || b == 2000) {
            bodies.is_plane[b] = bodies.is_static[b] = true;
            bodies.radii[b] = INFINITY;
            bodies.normals[b] = b == 10 ? fd_v3(0, 0, 1) : fd_v3(-1, 0, 0);
            bodies.positions[b] = b == 10 ? fd_v3(0, 0, 0) : fd_v3(0.9, 0, 0);
            continue;
        }
        bodies.is_static[b] = b == 7;
        bodies.radii[b] = 0.01 + 0.02 * test_random(&seed); /* polydisperse, 1:3 */
        largest = fmax(largest, bodies.radii[b]);
        bodies.positions[b] = fd_v3(test_random(&seed), test_random(&seed), test_random(&seed) - 0.05);
    }
    if (far) {
        bodies.positions[1] = fd_v3(1000.0, -500.0, 20.0);
    }
    const double margin = 0.001;
    fd_broadphase bp = test_broadphase_over(&bodies, margin, 2.0 * largest + margin, threads);
    cr_assert(fd_broadphase_update(&bp));

    int expected = test_expect_brute_force_pairs(&bp, NULL, NULL, NULL);
    cr_assert(expected > 1000, "the test should exercise many pairs (got %d)", expected);
    fd_broadphase_free(&bp);
    test_broadphase_bodies_release(&bodies);
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
    test_broadphase_bodies bodies = test_broadphase_bodies_alloc(n);
    for (int b = 0; b < n; ++b) {
        bodies.positions[b] = centres[b];
        bodies.radii[b] = 0.01;
    }
    fd_broadphase bp = test_broadphase_over(&bodies, 0.0, 0.02, 1);
    cr_assert(fd_broadphase_update(&bp));
    int count = bp.pair_count;
    cr_assert(count <= capacity);
    for (int k = 0; k < count; ++k) {
        pairs[k] = bp.pairs[k];
    }
    fd_broadphase_free(&bp);
    test_broadphase_bodies_release(&bodies);
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
