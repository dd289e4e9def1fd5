/* A fresh temporary directory per test, removed with what the test wrote
 * in it, and paths and files in it: the fixtures of the tests that run the
 * CLI (test_cli.c, test_restart_cli.c, test_trajectory.c). A suite uses
 *     TestSuite(NAME, .init = make_dir, .fini = remove_dir); */
#ifndef FRICDEM_TEST_TEMP_DIR_SUPPORT_H
#define FRICDEM_TEST_TEMP_DIR_SUPPORT_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char temp_dir[256];

static inline void make_dir(void)
{
    snprintf(temp_dir, sizeof temp_dir, "/tmp/fricdem_test_XXXXXX");
    cr_assert_not_null(mkdtemp(temp_dir));
}

static inline void remove_dir(void)
{
    /* Only what the tests create: a few files and output folders. */
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", temp_dir);
    cr_assert_eq(system(command), 0);
}

/* temp_dir/name, in one of eight rotating buffers (so that a few can be
 * passed to one call). */
static inline const char* temp_path(const char* name)
{
    static char paths[8][512];
    static int next;
    char* path = paths[next++ % 8];
    snprintf(path, 512, "%s/%s", temp_dir, name);
    return path;
}

/* The whole file (up to 128 KiB), NUL-terminated, in a static buffer that
 * the next call reuses. */
static inline char* read_text(const char* path)
{
    FILE* file = fopen(path, "rb");
    cr_assert_not_null(file, "cannot read %s", path);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, file);
    text[n] = '\0';
    fclose(file);
    return text;
}

static inline void write_file(const char* path, const char* text)
{
    FILE* file = fopen(path, "w");
    cr_assert_not_null(file, "cannot write %s", path);
    fputs(text, file);
    fclose(file);
}

static inline bool exists(const char* path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

#endif
