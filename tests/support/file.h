/* Files of the output tests (test_output.c, test_output_walls.c): a
 * temporary directory made and removed by the test, paths in it, a whole
 * file read into memory, the XML of a VTK file checked and its attributes
 * read. */
#ifndef FRICDEM_TEST_FILE_SUPPORT_H
#define FRICDEM_TEST_FILE_SUPPORT_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* A small well-formedness check of the XML text of the file at path:
 * balanced, properly nested tags, quoted attributes, comments skipped; enough
 * for what VTK writes. strict: the XML declaration is required and no comment
 * may hold "--" (test_output_walls.c's reader, to the letter of XML 1.0). */
static inline void check_vtk_xml(const char* text, const char* path, bool strict)
{
    const char* stack[64];
    size_t stack_length[64];
    int depth = 0;
    const char* c = text;
    if (strict) {
        cr_assert_eq(strncmp(c, "<?xml", 5), 0, "%s: no XML declaration", path);
    }
    if (strncmp(c, "<?xml", 5) == 0) {
        c = strstr(c, "?>");
        cr_assert_not_null(c, "%s: unterminated XML declaration", path);
    }
    while ((c = strchr(c, '<')) != NULL) {
        if (strncmp(c, "<!--", 4) == 0) {
            const char* end = strstr(c + 4, "-->");
            cr_assert_not_null(end, "%s: unterminated comment", path);
            if (strict) {
                cr_assert_eq(strstr(c + 4, "--"), end, "%s: \"--\" inside a comment", path);
            }
            c = end + 3;
            continue;
        }
        const char* close = strchr(c, '>');
        cr_assert_not_null(close, "%s: unterminated tag", path);
        bool closing = c[1] == '/';
        const char* name = c + (closing ? 2 : 1);
        size_t length = strcspn(name, " \t\n/>");
        cr_assert_gt(length, 0, "%s: empty tag name", path);
        int quotes = 0;
        for (const char* q = c; q < close; ++q) {
            quotes += *q == '"';
        }
        cr_assert_eq(quotes % 2, 0, "%s: unbalanced quotes in a tag", path);
        if (closing) {
            cr_assert_gt(depth, 0, "%s: closing tag with nothing open", path);
            --depth;
            cr_assert(stack_length[depth] == length && strncmp(stack[depth], name, length) == 0,
                      "%s: </%.*s> closes <%.*s>", path, (int)length, name, (int)stack_length[depth], stack[depth]);
        } else if (close[-1] != '/') {
            cr_assert_lt(depth, 64);
            stack[depth] = name;
            stack_length[depth] = length;
            ++depth;
        }
        c = close + 1;
    }
    cr_assert_eq(depth, 0, "%s: %d elements left open", path, depth);
}

/* check_vtk_xml of a VTU file's text: all of it, or, where raw binary data is
 * appended, the XML before <AppendedData> closed by </VTKFile>. Returns the
 * <AppendedData tag, NULL for an ASCII file. */
static inline const char* check_vtu_xml(const char* text, const char* path, bool strict)
{
    const char* appended = strstr(text, "<AppendedData");
    if (appended) {
        size_t head = (size_t)(appended - text);
        char* xml = malloc(head + 16);
        cr_assert_not_null(xml);
        memcpy(xml, text, head);
        strcpy(xml + head, "</VTKFile>\n");
        check_vtk_xml(xml, path, strict);
        free(xml);
    } else {
        check_vtk_xml(text, path, strict);
    }
    return appended;
}

/* The integer value of the attribute `name` of the XML tag that starts at tag. */
static inline long attribute_long(const char* tag, const char* name)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char* at = strstr(tag, key);
    cr_assert(at && at < strchr(tag, '>'), "no attribute %s in %.60s", name, tag);
    return strtol(at + strlen(key), NULL, 10);
}

#endif
