/* The `random` generator (src/io/scene_generate.c): a loose fill by random
 * sequential addition. No two spheres overlap, and none overlaps the bodies
 * already in the world (listed spheres, earlier generators, planes); every
 * sphere lies wholly in the region with a radius in the spread; the same
 * seed gives bitwise the same bodies (whatever the thread count), another
 * seed others; a plain random sequential addition written from the
 * documented streams gives the same bits; the first sphere's bits are
 * pinned; a count that cannot fit
 * and a fill that runs out of attempts fail with FILE:LINE: KEY; a 10^5
 * sphere fill loads whole. The YAML files go to a fresh temporary
 * directory per test. */
#include <Random123/philox.h>
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

#include "support/scene.h"

TestSuite(random_fill, .init = make_dir, .fini = remove_dir);

#undef HEADER /* scene_support.h's; this file's scenes use glass */
#define HEADER                                                                                                         \
    "time: {step: 1.0e-4, duration: 0.01}\n"                                                                           \
    "materials: [{name: glass, density: 2500}]\n"
/* Lines 1-2 are the header; a test's own lines start at 3. */

typedef struct sphere {
    double x[3];
    double r;
} sphere;

/* Bodies [first, first + count) of a world as spheres (bounding spheres). */
static sphere* spheres_of(const fd_world* world, int first, int count)
{
    sphere* s = calloc((size_t)count, sizeof *s);
    cr_assert_not_null(s);
    for (int i = 0; i < count; ++i) {
        fd_body_id id = fd_world_body_at(world, first + i);
        fd_body_state state = fd_body_get_state(world, id);
        s[i] = (sphere){{state.position.x, state.position.y, state.position.z},
                        fd_body_get_info(world, id).bounding_radius};
    }
    return s;
}

/* The largest overlap of a pair (i, j), j < i, i >= first, every such pair
 * (brute force); a pair overlaps when |x_i - x_j|^2 < (r_i + r_j)^2. */
static double worst_overlap(const sphere* s, int count, int first)
{
    double worst = 0.0;
    for (int i = first; i < count; ++i) {
        for (int j = 0; j < i; ++j) {
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a) {
                d2 += (s[i].x[a] - s[j].x[a]) * (s[i].x[a] - s[j].x[a]);
            }
            double reach = s[i].r + s[j].r;
            if (d2 < reach * reach) {
                worst = fmax(worst, fmax(reach - sqrt(d2), DBL_MIN));
            }
        }
    }
    return worst;
}

/* 2800 spheres of radius 0.01 +- 20 % fill 0.27 of a 0.3 m x 0.3 m x 0.5 m box. */
static const char fill_scene[] = HEADER "generators:\n"
                                        "  - type: random\n"
                                        "    count: 2800\n"
                                        "    name_prefix: bead\n"
                                        "    material: glass\n"
                                        "    radius: 0.01\n"
                                        "    radius_spread: 0.2\n"
                                        "    region: {min: [-0.15, -0.15, 0], max: [0.15, 0.15, 0.5]}\n"
                                        "    velocity: [0, 0, -1]\n"
                                        "    seed: 7\n";

/* ---------------------------------------------------------------- geometry */

Test(random_fill, no_overlap_inside_the_region_radii_in_the_spread)
{
    fd_scene scene = load_ok("fill.yaml", fill_scene, NULL, 0);
    int n = fd_world_body_count(scene.world);
    cr_assert_eq(n, 2800);
    double volume = 0.0;
    for (int k = 0; k < n; ++k) {
        /* Radii 0.01 x [0.8, 1.2]. */
        double r = expect_generated_sphere(&scene, k, "bead", 0.008, 0.012, fd_v3(-0.15, -0.15, 0.0),
                                           fd_v3(0.15, 0.15, 0.5), NULL);
        volume += 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
    }
    cr_assert(volume / 0.045 > 0.26 && volume / 0.045 < 0.28, "packing fraction %g", volume / 0.045);
    sphere* s = spheres_of(scene.world, 0, n);
    double worst = worst_overlap(s, n, 0);
    cr_assert_eq(worst, 0.0, "two beads overlap by %g m", worst);
    free(s);
    fd_scene_free(&scene);
}

Test(random_fill, keeps_clear_of_listed_bodies_earlier_generators_and_planes)
{
    /* A big listed ball in the middle, a static lattice layer at the bottom
     * of the region, a tilted plane cutting a corner: the random spheres
     * (dense enough to have been tried everywhere) touch none of them. */
    const char* text = HEADER "bodies:\n"
                              "  - {name: ball, static: true, material: glass, shape: {type: sphere, radius: 0.08},\n"
                              "     position: [0, 0, 0.25]}\n"
                              "  - {name: slope, static: true, material: glass,\n"
                              "     shape: {type: plane, normal: [1, 0, 1]},\n"
                              "     position: [-0.1, 0, 0]}\n"
                              "generators:\n"
                              "  - {type: lattice, static: true, count: 225, name_prefix: floor, material: glass,\n"
                              "     radius: 0.01, region: {min: [-0.15, -0.15, 0], max: [0.15, 0.15, 0.02]}}\n"
                              "  - {type: random, count: 2500, material: glass, radius: 0.01, radius_spread: 0.1,\n"
                              "     region: {min: [-0.15, -0.15, 0], max: [0.15, 0.15, 0.5]}}\n";
    fd_scene scene = load_ok("clear.yaml", text, NULL, 0);
    int n = fd_world_body_count(scene.world);
    cr_assert_eq(n, 2 + 225 + 2500);
    /* The random spheres against the lattice and each other (the lattice's
     * spheres touch), the ball and the plane. */
    sphere* s = spheres_of(scene.world, 2, n - 2);
    sphere ball = {{0, 0, 0.25}, 0.08};
    double worst = worst_overlap(s, n - 2, 225);
    cr_assert_eq(worst, 0.0, "overlap of %g m with a random sphere", worst);
    const double normal[3] = {1 / sqrt(2.0), 0, 1 / sqrt(2.0)};
    for (int i = 225; i < n - 2; ++i) {
        double d2 = 0.0, height = 0.0;
        for (int a = 0; a < 3; ++a) {
            d2 += (s[i].x[a] - ball.x[a]) * (s[i].x[a] - ball.x[a]);
            height += normal[a] * (s[i].x[a] - (a == 0 ? -0.1 : 0.0));
        }
        cr_assert(sqrt(d2) >= s[i].r + ball.r, "grain%d overlaps the ball", i - 225);
        cr_assert(height >= s[i].r, "grain%d lies %g m behind the plane", i - 225, s[i].r - height);
    }
    free(s);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- reproducibility */

Test(random_fill, same_seed_bitwise_same_other_seed_differs)
{
    const char* other[] = {"generators.0.seed=8"};
    fd_scene a = load_ok("a.yaml", fill_scene, NULL, 0);
    fd_scene b = load_ok("b.yaml", fill_scene, NULL, 0);
    fd_scene c = load_ok("c.yaml", fill_scene, other, 1);
    int differing = 0;
    for (int k = 0; k < 2800; ++k) {
        fd_body_id ia = fd_world_body_at(a.world, k), ib = fd_world_body_at(b.world, k),
                   ic = fd_world_body_at(c.world, k);
        fd_body_state sa = fd_body_get_state(a.world, ia), sb = fd_body_get_state(b.world, ib),
                      sc = fd_body_get_state(c.world, ic);
        cr_assert(memcmp(&sa, &sb, sizeof sa) == 0, "bead%d differs with the same seed", k);
        double ra = fd_body_get_info(a.world, ia).shape.radius, rb = fd_body_get_info(b.world, ib).shape.radius;
        cr_assert_eq(bits(ra), bits(rb), "bead%d: radius differs with the same seed", k);
        differing += memcmp(&sa.position, &sc.position, sizeof sa.position) != 0;
    }
    cr_assert_eq(fd_world_state_hash(a.world), fd_world_state_hash(b.world));
    cr_assert_eq(differing, 2800);
    fd_scene_free(&a);
    fd_scene_free(&b);
    fd_scene_free(&c);
}

Test(random_fill, thread_count_does_not_change_the_bits)
{
    /* Dense enough (0.30) that most proposals go through the batches, which
     * run on world.threads threads. */
    const char* text = HEADER "world: {threads: 1}\n"
                              "generators:\n"
                              "  - {type: random, count: 20000, material: glass, radius: 0.005, radius_spread: 0.1,\n"
                              "     region: {min: [0, 0, 0], max: [0.2, 0.2, 0.8813]}, seed: 3}\n";
    const char* two[] = {"world.threads=2"};
    fd_scene a = load_ok("one.yaml", text, NULL, 0);
    fd_scene b = load_ok("two.yaml", text, two, 1);
    cr_assert_eq(fd_world_body_count(a.world), 20000);
    cr_assert_eq(fd_world_state_hash(a.world), fd_world_state_hash(b.world));
    fd_scene_free(&a);
    fd_scene_free(&b);
}

/* Random sequential addition written plainly from the documented streams:
 * sphere k's radius from counter (k, 0, 0, 0), proposals 2m and 2m + 1 from
 * the 42-bit fields of counter (m, 2, 0, 0), key (seed, 2); each proposal
 * goes to the sphere being placed, which takes it if it lies wholly inside
 * and overlaps no sphere placed before (every one of them tested). */
static void plain_rsa(uint64_t seed, int count, double radius, double spread, const double lo[3], const double hi[3],
                      sphere* out)
{
    const philox4x64_key_t key = {{seed, 2}};
    int64_t j = 0;
    for (int k = 0; k < count; ++k) {
        philox4x64_ctr_t rc = {{(uint64_t)k, 0, 0, 0}};
        double u0 = (double)(philox4x64(rc, key).v[0] >> 11) * 0x1.0p-53;
        double r = radius * (1.0 + spread * (2.0 * u0 - 1.0));
        for (bool placed = false; !placed; ++j) {
            philox4x64_ctr_t pc = {{(uint64_t)(j >> 1), 2, 0, 0}};
            philox4x64_ctr_t w = philox4x64(pc, key);
            double p[3];
            for (int a = 0; a < 3; ++a) {
                uint64_t field = (j & 1) == 0 ? w.v[a] >> 22
                                               : (w.v[a] & ((UINT64_C(1) << 22) - 1)) << 20 |
                                                     ((w.v[3] >> (44 - 20 * a)) & ((UINT64_C(1) << 20) - 1));
                p[a] = lo[a] + (hi[a] - lo[a]) * ((double)field * 0x1.0p-42);
            }
            placed = true;
            for (int a = 0; a < 3; ++a) {
                placed = placed && p[a] - lo[a] >= r && hi[a] - p[a] >= r;
            }
            for (int i = 0; i < k && placed; ++i) {
                double d2 = 0.0;
                for (int a = 0; a < 3; ++a) {
                    d2 += (p[a] - out[i].x[a]) * (p[a] - out[i].x[a]);
                }
                placed = !(d2 < (r + out[i].r) * (r + out[i].r));
            }
            if (placed) {
                out[k] = (sphere){{p[0], p[1], p[2]}, r};
            }
        }
    }
}

/* The scene of HEADER and the one random generator given (its entry after
 * "generators:"), loaded; asserts that it placed count spheres. */
static fd_scene load_random(const char* name, const char* generator, int count)
{
    char text[1024];
    snprintf(text, sizeof text, HEADER "generators:\n%s", generator);
    fd_scene scene = load_ok(name, text, NULL, 0);
    cr_assert_eq(fd_world_body_count(scene.world), count);
    return scene;
}

Test(random_fill, the_batches_change_nothing_a_plain_rsa_agrees)
{
    /* 600 spheres at a packing fraction of 0.27: most proposals go through
     * the batches and their single-precision pre-check. */
    fd_scene scene = load_random("plain.yaml",
                                 "  - {type: random, count: 600, material: glass, radius: 0.01, radius_spread: 0.2,\n"
                                 "     region: {min: [0, 0, 0], max: [0.2, 0.2, 0.242]}, seed: 11}\n",
                                 600);
    sphere* got = spheres_of(scene.world, 0, 600);
    sphere* want = calloc(600, sizeof *want);
    cr_assert_not_null(want);
    const double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.2, 0.242};
    plain_rsa(11, 600, 0.01, 0.2, lo, hi, want);
    for (int k = 0; k < 600; ++k) {
        for (int a = 0; a < 3; ++a) {
            cr_assert_eq(bits(got[k].x[a]), bits(want[k].x[a]), "sphere %d, axis %d: %.17g, plainly %.17g", k, a,
                         got[k].x[a], want[k].x[a]);
        }
        cr_assert_eq(bits(got[k].r), bits(want[k].r), "sphere %d: radius %.17g, plainly %.17g", k, got[k].r,
                     want[k].r);
    }
    free(got);
    free(want);
    fd_scene_free(&scene);
}

/* The Philox streams are part of the format: these bits must not change from
 * one machine or release to the next. Sphere 0 of fill_scene: radius
 * 0.01 (1 + 0.2 (2 u0 - 1)), u0 from Philox-4x64-10 with key (7, 2) and
 * counter (0, 0, 0, 0); its place is proposal 0 (nothing is there yet), x
 * from the top 42 bits of word 0 of counter (0, 2, 0, 0). Checked against an
 * independent Python Philox-4x64-10 written from the paper's round function
 * (the one that pins the lattice's bits in tests/test_scene.c). */
#define GOLDEN_RADIUS_BITS UINT64_C(0x3f82705c3cf02588) /* 0.009003372773821253 */
#define GOLDEN_X_BITS UINT64_C(0xbf8fe0d68997ccd0)      /* -0.015565563272480182 */
Test(random_fill, golden_first_sphere)
{
    fd_scene scene = load_ok("gold.yaml", fill_scene, NULL, 0);
    fd_body_id id = fd_world_body_at(scene.world, 0);
    double radius = fd_body_get_info(scene.world, id).shape.radius;
    fd_vec3 p = fd_body_get_state(scene.world, id).position;
    cr_assert_eq(bits(radius), GOLDEN_RADIUS_BITS, "radius %a (%.17g)", radius, radius);
    cr_assert_eq(bits(p.x), GOLDEN_X_BITS, "x %a (%.17g)", p.x, p.x);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- errors */

Test(random_fill, a_count_that_cannot_fit_names_the_key)
{
    /* 0.4 of the region: refused before anything is placed. */
    expect_error_at("full.yaml",
                    HEADER "generators:\n"
                           "  - type: random\n"
                           "    count: 1000\n"
                           "    material: glass\n"
                           "    radius: 0.1\n"
                           "    region: {min: [0, 0, 0], max: [2.0, 2.0, 2.6179939]}\n",
                    5, "generators[0].count", "1000 spheres would fill 0.4 of the region",
                    "more than a random fill reaches (at most 0.32", NULL);
    /* Room by volume, but a plane leaves only a sliver of the region: the
     * attempts run out and the message says how many went in. */
    expect_error_at("sliver.yaml",
                    HEADER "bodies: [{name: floor, static: true, material: glass, shape: {type: plane},\n"
                           "          position: [0, 0, 0.9]}]\n"
                           "generators:\n"
                           "  - type: random\n"
                           "    count: 200\n"
                           "    material: glass\n"
                           "    radius: 0.05\n"
                           "    attempts: 2000\n"
                           "    region: {min: [0, 0, 0], max: [1, 1, 1]}\n",
                    7, "generators[0].count", "placed ", " of 200 spheres: sphere ",
                    "found no free place in 2000 attempts", NULL);
    expect_error_at("thin.yaml",
                    HEADER "generators:\n"
                           "  - {type: random, count: 10, material: glass, radius: 0.1,\n"
                           "     region: {min: [0, 0, 0], max: [1, 1, 0.15]}}\n",
                    5, "generators[0].region.max", "at least 2 x radius x (1 + radius_spread) = 0.2 m wide", NULL);
    expect_error_at("spacing.yaml",
                    HEADER "generators:\n"
                           "  - {type: random, count: 10, material: glass, radius: 0.1, spacing: 0.3,\n"
                           "     region: {min: [0, 0, 0], max: [1, 1, 1]}}\n",
                    4, "generators[0].spacing", "only for type: lattice", NULL);
    expect_error_at("attempts.yaml",
                    HEADER "generators:\n"
                           "  - {type: lattice, count: 10, material: glass, radius: 0.1, attempts: 5,\n"
                           "     region: {min: [0, 0, 0], max: [1, 1, 1]}}\n",
                    4, "generators[0].attempts", "only for type: random", NULL);
}

/* ---------------------------------------------------------------- size */

Test(random_fill, a_hundred_thousand_spheres_fill_their_region)
{
    /* 10^5 spheres at a packing fraction of 0.25 (about 3 proposals per
     * sphere): the batched, gridded path at a size where it matters. Its
     * speed is measured by the benchmarks, not here. */
    fd_scene scene =
        load_random("big.yaml",
                    "  - {type: random, count: 100000, material: glass, radius: 0.001, radius_spread: 0.1,\n"
                    "     region: {min: [0, 0, 0], max: [0.1, 0.1, 0.16963]}}\n",
                    100000);
    fd_scene_free(&scene);
}
