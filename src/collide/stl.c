/* Reading STL files into meshes.
 *
 * STL (3D Systems' StereoLithography format) comes in two encodings:
 *   - binary: an 80-byte header (free text, often starting with "solid"),
 *     a little-endian uint32 triangle count n at byte offset 80, then n
 *     records of 50 bytes: the normal and three vertices as 12 little-endian
 *     float32, and a 2-byte attribute; 84 + 50 n bytes in all;
 *   - ASCII: "solid name", then per triangle
 *       facet normal nx ny nz / outer loop / vertex x y z (3 times) /
 *       endloop / endfacet,
 *     and "endsolid name"; some exporters put several solids in one file.
 * A binary file's header may start with "solid" too, so the size decides: a
 * file of exactly 84 + 50 n bytes is binary. Any other is ASCII when it
 * holds text only (no control bytes besides white space; float data is full
 * of them), and else a binary file that is damaged (truncated, or with bytes
 * past the last triangle), whose error names the byte offset where it went
 * wrong. ASCII errors name FILE:LINE and what was expected there.
 *
 * The stored normals are ignored (the mesh computes its own from the
 * vertices, which many exporters get wrong or leave zero); every vertex is
 * read as written, once per triangle, and fd_mesh_create welds them.
 *
 * Must not touch: contact laws, the world, the steppers. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collide/walls.h"
#include "core/error.h"
#include "core/grow.h"

#define STL_HEADER_BYTES 84
#define STL_RECORD_BYTES 50
/* Vertices are stored 9 doubles per triangle and fd_mesh_create takes an
 * int count of 3 per triangle. */
#define STL_MAX_TRIANGLES (INT32_MAX / 9)

/* The triangles read so far: 9 coordinates each, scaled. */
typedef struct stl_soup {
    double* coordinates;
    size_t triangle_count;
    size_t capacity; /* triangles */
} stl_soup;

static double* soup_add_triangle(stl_soup* soup)
{
    if (soup->triangle_count == soup->capacity) {
        size_t capacity = soup->capacity ? 2 * soup->capacity : 64;
        double* grown = realloc(soup->coordinates, capacity * 9 * sizeof *grown);
        if (grown == NULL) {
            return NULL;
        }
        soup->coordinates = grown;
        soup->capacity = capacity;
    }
    return soup->coordinates + 9 * soup->triangle_count++;
}

static bool read_whole_file(const char* path, unsigned char** data, size_t* size, char* message, int message_size)
{
    FILE* file = fopen(path, "rb");
    if (file == NULL) {
        return fd_message_false(message, message_size, "%s: cannot open: %s", path, strerror(errno));
    }
    int error = 0;
    size_t length = 0;
    unsigned char* buffer = (unsigned char*)fd_read_stream(file, &length, &error);
    fclose(file);
    if (buffer == NULL) {
        return error == ENOMEM ? fd_message_false(message, message_size, "%s: out of memory reading the file", path)
                               : fd_message_false(message, message_size, "%s: read error", path);
    }
    *data = buffer;
    *size = length;
    return true;
}

/* ---------------------------------------------------------------- binary */

static uint32_t little_endian_u32(const unsigned char* bytes)
{
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

static float little_endian_f32(const unsigned char* bytes)
{
    uint32_t bits = little_endian_u32(bytes);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static bool is_binary_size(const unsigned char* data, size_t size)
{
    return size >= STL_HEADER_BYTES &&
           (uint64_t)size == STL_HEADER_BYTES + (uint64_t)STL_RECORD_BYTES * little_endian_u32(data + 80);
}

/* Why a file that is not 84 + 50 n bytes (n from its header) and not ASCII
 * cannot be read, naming the byte offset where it stops making sense. */
static bool binary_size_error(const char* path, size_t size, const unsigned char* data, char* message,
                              int message_size)
{
    if (size < STL_HEADER_BYTES) {
        return fd_message_false(
            message, message_size,
            "%s: not an STL file: %zu bytes is too short for a binary STL (84-byte header), and it is "
            "not text (an ASCII STL)",
            path, size);
    }
    uint32_t announced = little_endian_u32(data + 80);
    uint64_t expected = STL_HEADER_BYTES + (uint64_t)STL_RECORD_BYTES * announced;
    if ((uint64_t)size < expected) {
        size_t triangle = (size - STL_HEADER_BYTES) / STL_RECORD_BYTES;
        return fd_message_false(
            message, message_size,
            "%s: binary STL truncated at byte offset %zu: the count at byte offset 80 announces %u "
            "triangles (%llu bytes), the file ends inside triangle %zu (which starts at byte offset %zu)",
            path, size, announced, (unsigned long long)expected, triangle,
            STL_HEADER_BYTES + triangle * STL_RECORD_BYTES);
    }
    return fd_message_false(
        message, message_size,
        "%s: binary STL has %llu bytes past the end of its %u triangles at byte offset %llu (the count "
        "at byte offset 80); is it an ASCII STL with control characters?",
        path, (unsigned long long)(size - expected), announced, (unsigned long long)expected);
}

static bool read_binary(const char* path, const unsigned char* data, fd_vec3 scale, stl_soup* soup, char* message,
                        int message_size)
{
    uint32_t count = little_endian_u32(data + 80);
    if (count == 0) {
        return fd_message_false(message, message_size,
                                "%s: binary STL with no triangles (the count at byte offset 80 is 0)", path);
    }
    if (count > STL_MAX_TRIANGLES) {
        return fd_message_false(message, message_size, "%s: binary STL of %u triangles, more than the %d a mesh holds",
                                path, count, STL_MAX_TRIANGLES);
    }
    const char* axis_names = "xyz";
    const char* ordinals[3] = {"first", "second", "third"};
    double factors[3] = {scale.x, scale.y, scale.z};
    for (uint32_t t = 0; t < count; ++t) {
        double* out = soup_add_triangle(soup);
        if (out == NULL) {
            return fd_message_false(message, message_size, "%s: out of memory at triangle %u", path, t);
        }
        size_t record = STL_HEADER_BYTES + (size_t)t * STL_RECORD_BYTES;
        for (int i = 0; i < 9; ++i) {
            size_t offset = record + 12 + 4 * (size_t)i; /* past the normal */
            double value = little_endian_f32(data + offset);
            out[i] = value * factors[i % 3];
            if (!isfinite(out[i])) {
                return fd_message_false(
                    message, message_size,
                    "%s: byte offset %zu (triangle %u counting from 0, its %s vertex, %c): coordinate "
                    "%g%s is not finite",
                    path, offset, t, ordinals[i / 3], axis_names[i % 3], value,
                    isfinite(value) ? " times the scale" : "");
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------- ASCII */

typedef struct ascii_reader {
    const char* text;
    size_t size;
    size_t at;
    long line;          /* of text[at] */
    long token_line;    /* of the last token read */
    const char* path;
    char* message;
    int message_size;
} ascii_reader;

typedef struct ascii_token {
    const char* start; /* NULL at the end of the file */
    int length;
    long line;
} ascii_token;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

static ascii_token next_token(ascii_reader* r)
{
    while (r->at < r->size && is_space(r->text[r->at])) {
        r->line += r->text[r->at] == '\n';
        ++r->at;
    }
    ascii_token token = {NULL, 0, r->token_line}; /* the end of the file: after the last token's line */
    if (r->at < r->size) {
        token.line = r->token_line = r->line;
        token.start = r->text + r->at;
        while (r->at < r->size && !is_space(r->text[r->at])) {
            ++r->at;
        }
        size_t length = (size_t)(r->text + r->at - token.start);
        token.length = length < 1000 ? (int)length : 1000;
    }
    return token;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Keywords compare without case: some exporters write FACET NORMAL. */
static bool is_keyword(ascii_token token, const char* keyword)
{
    if (token.start == NULL || token.length != (int)strlen(keyword)) {
        return false;
    }
    for (int i = 0; i < token.length; ++i) {
        if (lower(token.start[i]) != keyword[i]) {
            return false;
        }
    }
    return true;
}

/* Past a solid's name: the words after 'solid' or 'endsolid' on its line, up
 * to a keyword that may follow on the same line (some writers put a whole
 * file on one line). */
static void skip_name(ascii_reader* r)
{
    long line = r->token_line;
    for (;;) {
        ascii_reader before = *r;
        ascii_token token = next_token(r);
        if (token.start == NULL || token.line != line || is_keyword(token, "facet") ||
            is_keyword(token, "endsolid") || is_keyword(token, "solid")) {
            *r = before;
            return;
        }
    }
}

/* An error at the token's line: "expected X (got 'Y')", or at the end of the file. */
static bool expected_error(ascii_reader* r, ascii_token token, const char* expected)
{
    if (token.start == NULL) {
        return fd_message_false(r->message, r->message_size, "%s:%ld: unexpected end of file: expected %s", r->path,
                                token.line, expected);
    }
    return fd_message_false(r->message, r->message_size, "%s:%ld: expected %s (got '%.*s')", r->path, token.line,
                            expected, token.length < 40 ? token.length : 40, token.start);
}

static bool expect_keyword(ascii_reader* r, const char* keyword)
{
    ascii_token token = next_token(r);
    if (is_keyword(token, keyword)) {
        return true;
    }
    char expected[32];
    snprintf(expected, sizeof expected, "'%s'", keyword);
    return expected_error(r, token, expected);
}

/* A number, the whole token, on the line of the token before it (a number
 * missing at the end of a line is reported on that line, not on the next),
 * finite when the caller needs it; what names the number in the message. */
static bool read_number(ascii_reader* r, const char* what, bool finite, double* value)
{
    long line = r->token_line;
    ascii_token token = next_token(r);
    if (token.line != line) {
        return fd_message_false(r->message, r->message_size,
                                "%s:%ld: expected a number (%s) before the end of the line", r->path, line, what);
    }
    char buffer[64];
    if (token.start != NULL && token.length < (int)sizeof buffer) {
        memcpy(buffer, token.start, (size_t)token.length);
        buffer[token.length] = '\0';
        char* end;
        *value = strtod(buffer, &end);
        if (end == buffer + token.length && token.length > 0) {
            if (finite && !isfinite(*value)) {
                return fd_message_false(r->message, r->message_size, "%s:%ld: %s '%s' is not a finite number", r->path,
                                        token.line, what, buffer);
            }
            return true;
        }
    }
    char expected[96];
    snprintf(expected, sizeof expected, "a number (%s)", what);
    return expected_error(r, token, expected);
}

static bool read_facet(ascii_reader* r, fd_vec3 scale, stl_soup* soup)
{
    double ignored;
    if (!expect_keyword(r, "normal")) {
        return false;
    }
    /* The stored normal is ignored, and may be anything: some writers put
     * nan for a degenerate facet. */
    for (int i = 0; i < 3; ++i) {
        if (!read_number(r, "facet normal component", false, &ignored)) {
            return false;
        }
    }
    if (!expect_keyword(r, "outer") || !expect_keyword(r, "loop")) {
        return false;
    }
    double* out = soup_add_triangle(soup);
    if (out == NULL) {
        return fd_message_false(r->message, r->message_size, "%s:%ld: out of memory", r->path, r->line);
    }
    const char* names[3] = {"vertex x", "vertex y", "vertex z"};
    double factors[3] = {scale.x, scale.y, scale.z};
    for (int v = 0; v < 3; ++v) {
        if (!expect_keyword(r, "vertex")) {
            return false;
        }
        for (int i = 0; i < 3; ++i) {
            if (!read_number(r, names[i], true, &out[3 * v + i])) {
                return false;
            }
            out[3 * v + i] *= factors[i];
            if (!isfinite(out[3 * v + i])) {
                return fd_message_false(r->message, r->message_size, "%s:%ld: %s times the scale is not finite",
                                        r->path, r->line, names[i]);
            }
        }
    }
    if (!expect_keyword(r, "endloop") || !expect_keyword(r, "endfacet")) {
        return false;
    }
    if (soup->triangle_count > STL_MAX_TRIANGLES) {
        return fd_message_false(r->message, r->message_size, "%s:%ld: more than the %d triangles a mesh holds", r->path,
                                r->line, STL_MAX_TRIANGLES);
    }
    return true;
}

static bool read_ascii(const char* path, const unsigned char* data, size_t size, fd_vec3 scale, stl_soup* soup,
                       char* message, int message_size)
{
    ascii_reader r = {(const char*)data, size, 0, 1, 1, path, message, message_size};
    ascii_token token = next_token(&r);
    if (!is_keyword(token, "solid")) {
        return expected_error(&r, token, "'solid' (the start of an ASCII STL)");
    }
    skip_name(&r);
    for (;;) {
        token = next_token(&r);
        if (is_keyword(token, "facet")) {
            if (!read_facet(&r, scale, soup)) {
                return false;
            }
        } else if (is_keyword(token, "endsolid")) {
            skip_name(&r);
            token = next_token(&r);
            if (token.start == NULL) {
                break;
            }
            if (!is_keyword(token, "solid")) {
                return expected_error(&r, token, "'solid' or the end of the file after 'endsolid'");
            }
            skip_name(&r);
        } else {
            return expected_error(&r, token, "'facet' or 'endsolid'");
        }
    }
    if (soup->triangle_count == 0) {
        return fd_message_false(message, message_size, "%s: ASCII STL with no facets", path);
    }
    return true;
}

/* Text only: no NUL or other control byte besides white space (binary
 * float data is full of them: 0.0 is four NUL bytes). */
static bool is_text(const unsigned char* data, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        if ((data[i] < 0x20 && !is_space((char)data[i])) || data[i] == 0x7f) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- reading */

fd_mesh* fd_mesh_read_stl(const char* path, fd_vec3 scale, double feature_angle, char* message, int message_size)
{
    if (!(scale.x > 0.0 && scale.y > 0.0 && scale.z > 0.0 && fd_v3_is_finite(scale))) {
        fd_message_false(message, message_size, "%s: scale (%g, %g, %g) must be > 0 and finite on each axis", path,
                         scale.x, scale.y, scale.z);
        return NULL;
    }
    unsigned char* data = NULL;
    size_t size = 0;
    if (!read_whole_file(path, &data, &size, message, message_size)) {
        return NULL;
    }
    stl_soup soup = {0};
    bool ok;
    if (is_binary_size(data, size)) {
        ok = read_binary(path, data, scale, &soup, message, message_size);
    } else if (is_text(data, size)) {
        ok = read_ascii(path, data, size, scale, &soup, message, message_size);
    } else {
        ok = binary_size_error(path, size, data, message, message_size);
    }
    free(data);
    fd_mesh* mesh = NULL;
    if (ok) {
        int vertex_count = 3 * (int)soup.triangle_count;
        int* triangles = malloc((size_t)vertex_count * sizeof *triangles);
        if (triangles == NULL) {
            fd_message_false(message, message_size, "%s: out of memory", path);
        } else {
            for (int i = 0; i < vertex_count; ++i) {
                triangles[i] = i; /* a soup: fd_mesh_create welds the repeated vertices */
            }
            char inner[512] = "";
            mesh = fd_mesh_create(soup.coordinates, vertex_count, triangles, (int)soup.triangle_count,
                                  feature_angle, inner, (int)sizeof inner);
            if (mesh == NULL) {
                fd_message_false(message, message_size, "%s: %s", path, inner);
            }
            free(triangles);
        }
    }
    free(soup.coordinates);
    return mesh;
}
