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

/* The bits of a double, for tests that compare results to the bit (the
 * generators' seeds, a streamed list against one tree). */
static inline uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

#endif
