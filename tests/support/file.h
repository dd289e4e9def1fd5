/* Files of the output tests (test_output.c, test_output_walls.c): a
 * temporary directory made and removed by the test, paths in it, a whole
 * file read into memory. */
#ifndef FRICDEM_TEST_FILE_SUPPORT_H
#define FRICDEM_TEST_FILE_SUPPORT_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The whole file, NUL-terminated (free it); its size in *size_out when not NULL. */
static inline char* read_all(const char* path, size_t* size_out)
{
    FILE* file = fopen(path, "rb");
    cr_assert_not_null(file, "cannot open %s", path);
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char* text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    cr_assert_eq(fread(text, 1, (size_t)size, file), (size_t)size);
    text[size] = '\0';
    fclose(file);
    if (size_out) {
        *size_out = (size_t)size;
    }
    return text;
}

static inline bool file_exists(const char* path)
{
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

/* A fresh directory /tmp/fricdem_test_output_XXXXXX into out[size]. */
static inline void make_temp_dir(char* out, size_t size)
{
    snprintf(out, size, "/tmp/fricdem_test_output_XXXXXX");
    cr_assert_not_null(mkdtemp(out));
}

static inline void remove_tree(const char* path)
{
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", path);
    cr_assert_eq(system(command), 0);
}

/* directory/name, in one of four rotating buffers. */
static inline char* path_in(const char* directory, const char* name)
{
    static char buffer[4][4300];
    static int next = 0;
    char* out = buffer[next++ % 4];
    snprintf(out, sizeof buffer[0], "%s/%s", directory, name);
    return out;
}

#endif
