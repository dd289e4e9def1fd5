/* Scene-loading fixtures shared by the scene tests (test_scene.c,
 * test_scene_walls.c): YAML text written into a fresh temporary directory
 * per test, loaded, and its error message checked for FILE:LINE: KEYPATH. A
 * suite uses them with
 *     TestSuite(NAME, .init = make_dir, .fini = remove_dir); */
#ifndef FRICDEM_TEST_SCENE_SUPPORT_H
#define FRICDEM_TEST_SCENE_SUPPORT_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

/* ---------------------------------------------------------------- fixtures */

static char temp_dir[256];
static char written[32][512];
static int written_count;

static inline void make_dir(void)
{
    snprintf(temp_dir, sizeof temp_dir, "/tmp/fricdem_test_scene_XXXXXX");
    cr_assert_not_null(mkdtemp(temp_dir));
    written_count = 0;
}

static inline void remove_dir(void)
{
    for (int i = 0; i < written_count; ++i) {
        unlink(written[i]);
    }
    rmdir(temp_dir);
}

/* Writes text to temp_dir/name and returns the path (static storage). */
static inline const char* write_scene(const char* name, const char* text)
{
    cr_assert_lt(written_count, 32);
    char* path = written[written_count++];
    snprintf(path, 512, "%s/%s", temp_dir, name);
    FILE* file = fopen(path, "w");
    cr_assert_not_null(file);
    fputs(text, file);
    fclose(file);
    return path;
}

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
    char prefix[1024];
    if (key_path) {
        snprintf(prefix, sizeof prefix, "%s/%s:%d: %s: ", temp_dir, name, line, key_path);
    } else {
        snprintf(prefix, sizeof prefix, "%s/%s:%d: ", temp_dir, name, line);
    }
    cr_assert(strncmp(message, prefix, strlen(prefix)) == 0, "message\n  %s\ndoes not start with\n  %s", message,
              prefix);
    va_list args;
    va_start(args, key_path);
    for (const char* fragment = va_arg(args, const char*); fragment; fragment = va_arg(args, const char*)) {
        cr_assert(strstr(message, fragment), "message\n  %s\nlacks\n  %s", message, fragment);
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

#endif
