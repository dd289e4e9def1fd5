/* Scene-loading fixtures shared by the scene tests (test_scene.c,
 * test_scene_walls.c, test_generate.c): YAML text after a steel header,
 * written into a fresh temporary directory per test (world.h), loaded, and
 * its error message checked for FILE:LINE: KEYPATH. A suite uses them with
 *     TestSuite(NAME, .init = make_dir, .fini = remove_dir); */
#ifndef FRICDEM_TEST_SCENE_SUPPORT_H
#define FRICDEM_TEST_SCENE_SUPPORT_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "world.h"

#define HEADER                                                                                                         \
    "time: {step: 1.0e-4, duration: 0.01}\n"                                                                           \
    "materials:\n"                                                                                                     \
    "  - name: steel\n"                                                                                                \
    "    density: 7800\n"
/* Lines 1-4 are the header; a test's own lines start at 5. */

static inline const char* load_error(const char* name, const char* text, const char* const* overrides, int count,
                              fd_status expected)
{
    const char* path = write_scene(name, text);
    fd_scene scene;
    fd_status status = fd_scene_load(path, overrides, count, &scene);
    cr_assert_eq(status, expected, "%s: expected status '%s', got '%s' (%s)", name, fd_status_string(expected),
                 fd_status_string(status), fd_last_error());
    cr_assert_null(scene.world);
    return fd_last_error();
}

/* Asserts a parse error whose message starts "PATH:LINE: KEYPATH: " and
 * contains each of the NULL-terminated fragments. */
static inline void expect_error_at(const char* name, const char* text, int line, const char* key_path, ...)
{
    const char* message = load_error(name, text, NULL, 0, FD_ERR_PARSE);
    expect_message_at(message, temp_path(name), line, key_path);
    va_list args;
    va_start(args, key_path);
    for (const char* fragment = va_arg(args, const char*); fragment; fragment = va_arg(args, const char*)) {
        expect_message_contains(message, fragment);
    }
    va_end(args);
}

static inline fd_scene load_ok(const char* name, const char* text, const char* const* overrides, int count)
{
    const char* path = write_scene(name, text);
    fd_scene scene;
    fd_status status = fd_scene_load(path, overrides, count, &scene);
    cr_assert_eq(status, FD_OK, "%s: %s", name, fd_last_error());
    cr_assert_not_null(scene.world);
    return scene;
}

static inline fd_body_id body(const fd_scene* scene, const char* name)
{
    fd_body_id id = fd_world_find_body(scene->world, name);
    cr_assert(!fd_body_id_is_null(id), "no body %s", name);
    return id;
}

/* Checks generated body k of a scene: named PREFIX<k>, a dynamic sphere with
 * a radius in [r_min, r_max], wholly inside the box [lo, hi], given the
 * velocity (0, 0, -1) of the generators that use it. Returns its radius, and
 * its position in *position when that is not NULL. */
static inline double expect_generated_sphere(const fd_scene* scene, int k, const char* prefix, double r_min,
                                             double r_max, fd_vec3 lo, fd_vec3 hi, fd_vec3* position)
{
    fd_body_id id = fd_world_body_at(scene->world, k);
    fd_body_info info = fd_body_get_info(scene->world, id);
    fd_body_state s = fd_body_get_state(scene->world, id);
    char name[32];
    snprintf(name, sizeof name, "%s%d", prefix, k);
    cr_assert_str_eq(info.name, name);
    cr_assert_eq(info.type, FD_BODY_DYNAMIC);
    cr_assert_eq(info.shape.type, FD_SHAPE_SPHERE);
    double r = info.shape.radius;
    cr_assert(r >= r_min && r <= r_max, "%s: radius %g outside [%g, %g]", name, r, r_min, r_max);
    const double at[3] = {s.position.x, s.position.y, s.position.z};
    const double low[3] = {lo.x, lo.y, lo.z}, high[3] = {hi.x, hi.y, hi.z};
    for (int a = 0; a < 3; ++a) {
        cr_assert(at[a] - r >= low[a] && at[a] + r <= high[a], "%s sticks out along %c", name, "xyz"[a]);
    }
    cr_assert_eq(s.velocity.z, -1.0);
    if (position) {
        *position = s.position;
    }
    return r;
}

/* The bits of a double, for tests that compare results to the bit (the
 * generators' seeds, a streamed list against one tree). */
static inline uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

#endif
