/* Reading STL files (src/collide/stl.c): a cube written by the test as ASCII
 * and as binary reads back as the same welded mesh, scaled per axis; damaged
 * files are refused with messages that say where (FILE:LINE for ASCII, the
 * byte offset for binary) and what was expected.
 *
 * The cube's coordinates are 0 and 1, exact in float32 and in decimal, and
 * scaled by 2, 3 and 4, exact in double: vertices compare exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collide/walls.h"
#include "support/mesh.h"
#include "support/temp_dir.h"

#define FEATURE_ANGLE (30.0 * MESH_PI / 180.0)

TestSuite(mesh_stl, .init = make_dir, .fini = remove_dir);

static void write_bytes(const char* path, const void* data, size_t size)
{
    FILE* file = fopen(path, "wb");
    cr_assert_not_null(file);
    cr_assert_eq(fwrite(data, 1, size, file), size);
    cr_assert_eq(fclose(file), 0);
}

static const char* write_text(const char* name, const char* text)
{
    const char* path = temp_path(name);
    write_bytes(path, text, strlen(text));
    return path;
}

static test_mesh unit_cube(void)
{
    test_mesh m = {0};
    test_mesh_box(&m, fd_v3(0, 0, 0), fd_v3(1, 1, 1), 1);
    return m;
}

/* The cube as ASCII STL, in two solids, one facet in capitals. */
static const char* write_ascii_cube(const char* name)
{
    test_mesh m = unit_cube();
    size_t capacity = 16384, length = 0;
    char* text = malloc(capacity);
    cr_assert_not_null(text);
    length += (size_t)snprintf(text + length, capacity - length, "solid cube part one\n");
    for (int t = 0; t < m.triangle_count; ++t) {
        if (t == 6) {
            length += (size_t)snprintf(text + length, capacity - length, "endsolid cube part one\nsolid two\n");
        }
        bool capitals = t == 3;
        length += (size_t)snprintf(text + length, capacity - length, "  %s 0 0 0\n    %s\n",
                                   capitals ? "FACET NORMAL" : "facet normal", capitals ? "OUTER LOOP" : "outer loop");
        for (int k = 0; k < 3; ++k) {
            const double* p = m.vertices + 3 * m.triangles[3 * t + k];
            length += (size_t)snprintf(text + length, capacity - length, "      %s %.17g %.17g %.17g\n",
                                       capitals ? "VERTEX" : "vertex", p[0], p[1], p[2]);
        }
        length += (size_t)snprintf(text + length, capacity - length, "    endloop\r\n  endfacet\n");
    }
    length += (size_t)snprintf(text + length, capacity - length, "endsolid two\n");
    cr_assert_lt(length, capacity);
    const char* path = write_text(name, text);
    free(text);
    test_mesh_release(&m);
    return path;
}

static void put_u32(unsigned char* out, uint32_t value)
{
    for (int i = 0; i < 4; ++i) {
        out[i] = (unsigned char)(value >> (8 * i));
    }
}

static void put_f32(unsigned char* out, float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    put_u32(out, bits);
}

/* The cube as binary STL: a header that starts with "solid" (as many
 * exporters write it, which is why the size decides), 12 records. *size is
 * 84 + 50 * 12; the caller frees the bytes. */
static unsigned char* binary_cube(size_t* size)
{
    test_mesh m = unit_cube();
    *size = 84 + 50 * (size_t)m.triangle_count;
    unsigned char* data = calloc(1, *size);
    cr_assert_not_null(data);
    memset(data, ' ', 80);
    memcpy(data, "solid binary cube", 17);
    put_u32(data + 80, (uint32_t)m.triangle_count);
    for (int t = 0; t < m.triangle_count; ++t) {
        unsigned char* record = data + 84 + 50 * t;
        for (int k = 0; k < 3; ++k) {
            const double* p = m.vertices + 3 * m.triangles[3 * t + k];
            for (int axis = 0; axis < 3; ++axis) {
                put_f32(record + 12 + 12 * k + 4 * axis, (float)p[axis]);
            }
        }
    }
    test_mesh_release(&m);
    return data;
}

static fd_mesh* read_ok(const char* path, fd_vec3 scale)
{
    char message[512] = "";
    fd_mesh* mesh = fd_mesh_read_stl(path, scale, FEATURE_ANGLE, message, sizeof message);
    cr_assert_not_null(mesh, "%s", message);
    return mesh;
}

/* Reading must fail with a message holding each of the given pieces. */
static void assert_refused(const char* path, const char* first, const char* second)
{
    char message[512] = "";
    fd_mesh* mesh = fd_mesh_read_stl(path, fd_v3(1, 1, 1), FEATURE_ANGLE, message, sizeof message);
    cr_assert_null(mesh, "%s was read", path);
    cr_assert(strstr(message, first) != NULL, "message '%s' lacks '%s'", message, first);
    cr_assert(second == NULL || strstr(message, second) != NULL, "message '%s' lacks '%s'", message, second);
}

/* The scaled cube: its triangles in file order, vertex for vertex. */
static void assert_scaled_cube(const fd_mesh* mesh, fd_vec3 scale)
{
    test_mesh m = unit_cube();
    cr_assert_eq(fd_mesh_triangle_count(mesh), 12);
    cr_assert_eq(fd_mesh_vertex_count(mesh), 8, "welded from 36");
    cr_assert_eq(fd_mesh_patch_count(mesh), 6);
    cr_assert_eq(fd_mesh_degenerate_count(mesh), 0);
    for (int t = 0; t < 12; ++t) {
        for (int k = 0; k < 3; ++k) {
            const double* p = m.vertices + 3 * m.triangles[3 * t + k];
            fd_vec3 expected = fd_v3(scale.x * p[0], scale.y * p[1], scale.z * p[2]);
            fd_vec3 got = mesh_vertex_at(mesh, fd_mesh_triangles(mesh)[3 * t + k]);
            cr_assert(got.x == expected.x && got.y == expected.y && got.z == expected.z,
                      "triangle %d vertex %d: (%g, %g, %g), expected (%g, %g, %g)", t, k, got.x, got.y, got.z,
                      expected.x, expected.y, expected.z);
        }
    }
    cr_assert_float_eq(fd_mesh_bounding_radius(mesh), sqrt(4.0 + 9.0 + 16.0), 1e-14);
    test_mesh_release(&m);
}

Test(mesh_stl, ascii_cube_reads_back)
{
    const char* path = write_ascii_cube("cube.stl");
    fd_mesh* mesh = read_ok(path, fd_v3(2, 3, 4));
    assert_scaled_cube(mesh, fd_v3(2, 3, 4));
    fd_mesh_free(mesh);
}

Test(mesh_stl, binary_cube_reads_back_like_the_ascii_one)
{
    size_t size;
    unsigned char* data = binary_cube(&size);
    const char* binary_path = temp_path("cube_binary.stl");
    write_bytes(binary_path, data, size);
    free(data);
    fd_mesh* binary = read_ok(binary_path, fd_v3(2, 3, 4));
    assert_scaled_cube(binary, fd_v3(2, 3, 4));
    fd_mesh* ascii = read_ok(write_ascii_cube("cube_ascii.stl"), fd_v3(2, 3, 4));
    cr_assert_arr_eq(fd_mesh_vertices(binary), fd_mesh_vertices(ascii), 3 * 8 * sizeof(double));
    cr_assert_arr_eq(fd_mesh_triangles(binary), fd_mesh_triangles(ascii), 3 * 12 * sizeof(int));
    fd_mesh_free(binary);
    fd_mesh_free(ascii);
}

/* A one-facet ASCII STL with line n replaced by what (lines 1 to 7). */
static const char* facet_with_line(const char* name, int n, const char* what)
{
    const char* lines[] = {"solid bad", " facet normal 0 0 1", "  outer loop", "   vertex 0 0 0",
                           "   vertex 1 0 0",  "   vertex 0 1 0",        "  endloop",    " endfacet",
                           "endsolid bad"};
    char text[1024] = "";
    for (int i = 0; i < 9; ++i) {
        const char* line = i + 1 == n ? what : lines[i];
        if (line[0] != '\0') {
            strcat(text, line);
            strcat(text, "\n");
        }
    }
    return write_text(name, text);
}

Test(mesh_stl, malformed_ascii_names_file_and_line)
{
    /* The unchanged file reads. */
    fd_mesh* mesh = read_ok(facet_with_line("good.stl", 0, ""), fd_v3(1, 1, 1));
    cr_assert_eq(fd_mesh_triangle_count(mesh), 1);
    fd_mesh_free(mesh);
    /* The facet with line n replaced by what ("": left out), and the error
     * that follows "PATH:". */
    static const struct {
        const char* name;
        int n;
        const char* what;
        const char* error;
    } malformed[] = {
        {"short_vertex.stl", 5, "   vertex 1 0", "5: expected a number (vertex z)"},
        {"word.stl", 4, "   vertex 0 abc 0", "4: expected a number (vertex y) (got 'abc')"},
        /* Without its 'outer loop' line the vertex comes where 'outer' was expected. */
        {"no_loop.stl", 3, "", "3: expected 'outer' (got 'vertex')"},
        {"no_solid.stl", 1, "", "1: expected 'solid'"},
        {"four_vertices.stl", 7, "   vertex 1 1 0", "7: expected 'endloop' (got 'vertex')"},
    };
    char expected[1100];
    for (size_t k = 0; k < sizeof malformed / sizeof malformed[0]; ++k) {
        const char* path = facet_with_line(malformed[k].name, malformed[k].n, malformed[k].what);
        snprintf(expected, sizeof expected, "%s:%s", path, malformed[k].error);
        assert_refused(path, expected, NULL);
    }
    const char* path = write_text("cut.stl", "solid cut\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n");
    snprintf(expected, sizeof expected, "%s:4: unexpected end of file: expected 'vertex'", path);
    assert_refused(path, expected, NULL);
    /* A facet normal of nan (some writers' for a degenerate facet) is
     * ignored like any stored normal. */
    fd_mesh* nan_normal = read_ok(facet_with_line("nan_normal.stl", 2, " facet normal nan nan nan"), fd_v3(1, 1, 1));
    cr_assert_eq(fd_mesh_triangle_count(nan_normal), 1);
    fd_mesh_free(nan_normal);
    /* A whole file on one line reads (the solid's name stops at 'facet'). */
    path = write_text("one_line.stl", "solid one line facet normal 0 0 1 outer loop vertex 0 0 0 vertex 1 0 0 "
                                      "vertex 0 1 0 endloop endfacet endsolid one line");
    fd_mesh* one_line = read_ok(path, fd_v3(1, 1, 1));
    cr_assert_eq(fd_mesh_triangle_count(one_line), 1);
    fd_mesh_free(one_line);
    path = write_text("empty.stl", "solid nothing\nendsolid nothing\n");
    assert_refused(path, path, "no facets");
}

Test(mesh_stl, non_finite_coordinates_are_refused)
{
    char expected[1100];
    const char* path = facet_with_line("nan.stl", 5, "   vertex nan 0 0");
    snprintf(expected, sizeof expected, "%s:5: vertex x 'nan' is not a finite number", path);
    assert_refused(path, expected, NULL);
    path = facet_with_line("overflow.stl", 6, "   vertex 0 1e400 0");
    snprintf(expected, sizeof expected, "%s:6: vertex y '1e400' is not a finite number", path);
    assert_refused(path, expected, NULL);
    /* Binary: the y of triangle 3's second vertex, at byte offset
     * 84 + 50 * 3 + 12 (normal) + 12 (first vertex) + 4 (x) = 262. */
    size_t size;
    unsigned char* data = binary_cube(&size);
    put_f32(data + 262, INFINITY);
    path = temp_path("inf.stl");
    write_bytes(path, data, size);
    free(data);
    assert_refused(path, "byte offset 262 (triangle 3 counting from 0, its second vertex, y)", "not finite");
    /* Finite in the file, infinite once scaled. */
    path = facet_with_line("scaled.stl", 5, "   vertex 1e300 0 0");
    char message[512];
    cr_assert_null(fd_mesh_read_stl(path, fd_v3(1e10, 1, 1), FEATURE_ANGLE, message, sizeof message));
    snprintf(expected, sizeof expected, "%s:5: vertex x times the scale is not finite", path);
    cr_assert(strstr(message, expected) != NULL, "%s", message);
    /* Finite, but too large for the squared lengths of the geometry. */
    cr_assert_null(fd_mesh_read_stl(path, fd_v3(1, 1, 1), FEATURE_ANGLE, message, sizeof message));
    cr_assert(strstr(message, "too large") != NULL && strstr(message, path) == message, "%s", message);
}

Test(mesh_stl, damaged_binary_names_the_byte_offset)
{
    size_t size;
    unsigned char* data = binary_cube(&size);
    /* Cut 17 bytes into triangle 5: 84 + 5 * 50 + 17 = 351 bytes. */
    const char* path = temp_path("truncated.stl");
    write_bytes(path, data, 351);
    assert_refused(path, "truncated at byte offset 351",
                   "the file ends inside triangle 5 (which starts at byte offset 334)");
    /* Extra bytes after the last triangle. */
    unsigned char* longer = calloc(1, size + 7);
    cr_assert_not_null(longer);
    memcpy(longer, data, size);
    path = temp_path("long.stl");
    write_bytes(path, longer, size + 7);
    assert_refused(path, "7 bytes past the end of its 12 triangles at byte offset 684", NULL);
    free(longer);
    /* Shorter than a header, and not text (float data). */
    path = temp_path("tiny.stl");
    write_bytes(path, data + 300, 40);
    assert_refused(path, "too short for a binary STL", NULL);
    /* A count of zero. */
    put_u32(data + 80, 0);
    path = temp_path("zero.stl");
    write_bytes(path, data, 84);
    assert_refused(path, "no triangles (the count at byte offset 80 is 0)", NULL);
    free(data);
}

Test(mesh_stl, bad_arguments)
{
    const char* path = write_ascii_cube("cube.stl");
    char message[512];
    cr_assert_null(fd_mesh_read_stl(path, fd_v3(1, 0, 1), FEATURE_ANGLE, message, sizeof message));
    cr_assert(strstr(message, "scale") != NULL, "%s", message);
    cr_assert_null(fd_mesh_read_stl(path, fd_v3(1, 1, NAN), FEATURE_ANGLE, message, sizeof message));
    cr_assert(strstr(message, "scale") != NULL, "%s", message);
    cr_assert_null(fd_mesh_read_stl(path, fd_v3(1, 1, 1), -1.0, message, sizeof message));
    cr_assert(strstr(message, "feature angle") != NULL && strstr(message, path) == message, "%s", message);
    const char* missing = temp_path("missing.stl");
    cr_assert_null(fd_mesh_read_stl(missing, fd_v3(1, 1, 1), FEATURE_ANGLE, message, sizeof message));
    cr_assert(strstr(message, missing) != NULL && strstr(message, "cannot open") != NULL, "%s", message);
}
