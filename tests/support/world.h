/* Builders of the worlds and scenes of the engine tests (inlets, outlets,
 * removal, periodic boxes, stages, walls, scenes): worlds, materials and laws
 * set up the same way in many of them, scene files written into a fresh
 * temporary directory per test (support/temp_dir.h) and their errors
 * checked for FILE:LINE: KEYPATH, the brute-force reference of the broad
 * phase, and a fixed random sequence. Each test file is its own executable,
 * so these are static inline. */
#ifndef FD_TESTS_WORLD_H
#define FD_TESTS_WORLD_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "broadphase/broadphase.h"
#include "core/math.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "laws.h"
#include "temp_dir.h"

/* ---------------------------------------------------------------- worlds */

/* The definition of a world of the given step and gravity, the rest default. */
static inline fd_world_def test_world_def(double time_step, fd_vec3 gravity)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = time_step;
    def.gravity = gravity;
    return def;
}

/* A law whose only sub-model is hooke's normal spring and dashpot. */
static inline fd_contact_law_def test_hooke_law(double k_n, double restitution)
{
    fd_contact_law_def law = test_normal_law("hooke", "k_n", k_n);
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", restitution);
    return law;
}

/* One step of a world; fails the test, naming the step, if it is refused. */
static inline void test_step(fd_world* world)
{
    cr_assert_eq(fd_world_step(world), FD_OK, "step %lld: %s", (long long)fd_world_step_count(world),
                 fd_last_error());
}

static inline void test_run(fd_world* world, int steps)
{
    for (int k = 0; k < steps; ++k) {
        test_step(world);
    }
}

/* Adds an inlet to a world; fails the test if it is refused. */
static inline void test_add_inlet(fd_world* world, const fd_inlet_def* def)
{
    cr_assert_eq(fd_world_add_inlet(world, def), FD_OK, "%s", fd_last_error());
}

/* Adds an outlet to a world; fails the test if it is refused. */
static inline void test_add_outlet(fd_world* world, const fd_outlet_def* def)
{
    cr_assert_eq(fd_world_add_outlet(world, def), FD_OK, "%s", fd_last_error());
}

/* ---------------------------------------------------------------- scene files */

/* Writes text to temp_dir/name and returns the path (one of temp_path's
 * rotating buffers). */
static inline const char* write_scene(const char* name, const char* text)
{
    const char* path = temp_path(name);
    write_file(path, text);
    return path;
}

/* The scene file at path loaded with count --set overrides; fails the test
 * if it is refused. */
static inline fd_scene load_scene_at(const char* path, const char* const* overrides, int count)
{
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, overrides, count, &scene), FD_OK, "%s", fd_last_error());
    return scene;
}

/* The scene text, written to temp_dir/name and loaded with one --set
 * override, after checking that it made `expected` entries of a kind (count:
 * fd_world_inlet_count, fd_world_outlet_count). The inlet and outlet tests
 * load their good file this way, then check that the override reached the
 * entry it names. */
static inline fd_scene load_scene_entries(const char* name, const char* text, const char* override,
                                          int (*count)(const fd_world*), int expected)
{
    fd_scene scene = load_scene_at(write_scene(name, text), &override, 1);
    cr_assert_eq(count(scene.world), expected);
    return scene;
}

/* The scene text, written to temp_dir/name, loaded and its world prepared;
 * fails the test if either is refused. */
static inline fd_scene load_prepared_scene(const char* name, const char* text)
{
    fd_scene scene = load_scene_at(write_scene(name, text), NULL, 0);
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    return scene;
}

/* Asserts that an error message starts "PATH:LINE: KEYPATH: " (or
 * "PATH:LINE: " when key_path is NULL): where a scene's mistake is. */
static inline void expect_message_at(const char* message, const char* path, int line, const char* key_path)
{
    char prefix[1024];
    if (key_path) {
        snprintf(prefix, sizeof prefix, "%s:%d: %s: ", path, line, key_path);
    } else {
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    }
    cr_assert(strncmp(message, prefix, strlen(prefix)) == 0, "message\n  %s\ndoes not start with\n  %s", message,
              prefix);
}

static inline void expect_message_contains(const char* message, const char* fragment)
{
    cr_assert(strstr(message, fragment), "message\n  %s\nlacks\n  %s", message, fragment);
}

/* Asserts that the scene text, written to temp_dir/name, fails to load with
 * FD_ERR_PARSE and a message "FILE:LINE: KEYPATH: ..." that contains fragment. */
static inline void expect_scene_error_at(const char* name, const char* text, int line, const char* key_path,
                                         const char* fragment)
{
    const char* path = write_scene(name, text);
    fd_scene scene;
    fd_status status = fd_scene_load(path, NULL, 0, &scene);
    cr_assert_eq(status, FD_ERR_PARSE, "%s: got '%s' (%s), expected a failure (%s)", name, fd_status_string(status),
                 fd_last_error(), fragment);
    const char* message = fd_last_error();
    expect_message_at(message, path, line, key_path);
    expect_message_contains(message, fragment);
}

/* ---------------------------------------------------------------- random */

/* xorshift64*: a fixed sequence, so scenes and failures reproduce. */
static inline double test_random(uint64_t* state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (double)((*state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static inline double test_uniform(uint64_t* state, double lo, double hi) { return lo + (hi - lo) * test_random(state); }

/* ---------------------------------------------------------------- broad phase */

/* The bodies handed to the broad phase: n of each, calloc'd (all free,
 * spheres, not static, until a test says otherwise). */
typedef struct test_broadphase_bodies {
    int n;
    fd_vec3* positions;
    double* radii;
    bool* is_static;
    bool* is_plane;
    fd_vec3* normals; /* of the planes */
} test_broadphase_bodies;

static inline test_broadphase_bodies test_broadphase_bodies_alloc(int n)
{
    test_broadphase_bodies b = {n,
                                calloc((size_t)n, sizeof *b.positions),
                                calloc((size_t)n, sizeof *b.radii),
                                calloc((size_t)n, sizeof *b.is_static),
                                calloc((size_t)n, sizeof *b.is_plane),
                                calloc((size_t)n, sizeof *b.normals)};
    cr_assert(b.positions && b.radii && b.is_static && b.is_plane && b.normals);
    return b;
}

static inline void test_broadphase_bodies_release(test_broadphase_bodies* b)
{
    free(b->positions);
    free(b->radii);
    free(b->is_static);
    free(b->is_plane);
    free(b->normals);
}

/* A broad phase over the bodies (not yet updated): its inputs are the
 * bodies' arrays and the settings given, every other member (not
 * periodic, no removed bodies, the outputs and scratch) zero. */
static inline fd_broadphase test_broadphase_over(const test_broadphase_bodies* b, double margin, double cell_size,
                                                 int threads)
{
    return (fd_broadphase){.body_count = b->n, .positions = b->positions, .radii = b->radii,
                           .is_static = b->is_static, .is_wall = b->is_plane, .plane_normals = b->normals,
                           .margin = margin, .cell_size = cell_size, .thread_count = threads};
}

/* The vector from one centre to another as the reference sees it (the
 * minimum image in a periodic box); *shifted when an image was taken. */
typedef fd_vec3 (*test_separation)(const void* context, fd_vec3 from, fd_vec3 to, bool* shifted);

/* Asserts that the updated broad phase found exactly the pairs of the
 * O(N^2) reference, in ascending key order: a plane and a body not static
 * whose centre is within its radius + margin of the plane, two spheres not
 * both static closer than their radii + margin (separation NULL: the plain
 * difference). Returns the pair count; *across (when not NULL) counts the
 * sphere pairs that touch only through an image. */
static inline int test_expect_brute_force_pairs(const fd_broadphase* bp, test_separation separation,
                                                const void* context, int* across)
{
    const fd_vec3* x = bp->positions;
    const double* radii = bp->radii;
    const bool* is_static = bp->is_static;
    const bool* is_plane = bp->is_wall;
    int expected = 0;
    for (int i = 0; i < bp->body_count; ++i) {
        for (int j = i + 1; j < bp->body_count; ++j) {
            bool hit;
            if (is_plane[i] && is_plane[j]) {
                hit = false;
            } else if (is_plane[i] || is_plane[j]) {
                int p = is_plane[i] ? i : j, b = is_plane[i] ? j : i;
                hit = !is_static[b] && fd_v3_dot(bp->plane_normals[p], fd_v3_sub(x[b], x[p])) < radii[b] + bp->margin;
            } else {
                double reach = radii[i] + radii[j] + bp->margin;
                bool shifted = false;
                fd_vec3 d = separation ? separation(context, x[i], x[j], &shifted) : fd_v3_sub(x[j], x[i]);
                hit = !(is_static[i] && is_static[j]) && fd_v3_length_squared(d) < reach * reach;
                if (across != NULL) {
                    *across += hit && shifted;
                }
            }
            if (hit) {
                uint64_t key = (uint64_t)i << 32 | (uint32_t)j;
                cr_assert(expected < bp->pair_count, "missing pairs");
                cr_assert_eq(bp->pairs[expected], key, "pair %d: expected (%d, %d), got (%d, %d)", expected, i, j,
                             (int)(bp->pairs[expected] >> 32), (int)(bp->pairs[expected] & 0xffffffffu));
                ++expected;
            }
        }
    }
    cr_assert_eq(bp->pair_count, expected, "grid found %d pairs, brute force %d", bp->pair_count, expected);
    return expected;
}

#endif
