/* Meshes and an independent closest-point oracle shared by the mesh tests
 * (each test file is its own executable, so these are static). */
#ifndef FD_TESTS_MESH_SUPPORT_H
#define FD_TESTS_MESH_SUPPORT_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "collide/walls.h"
#include "world.h" /* test_random, test_uniform */

#define MESH_PI 3.14159265358979323846 /* M_PI is not in strict C17 */

/* A triangle list being built: coordinates and indices, grown as needed. */
typedef struct test_mesh {
    double* vertices;
    int* triangles;
    int vertex_count, triangle_count;
    int vertex_capacity, triangle_capacity;
} test_mesh;

static inline int test_mesh_vertex(test_mesh* m, fd_vec3 p)
{
    if (m->vertex_count == m->vertex_capacity) {
        m->vertex_capacity = m->vertex_capacity ? 2 * m->vertex_capacity : 64;
        m->vertices = realloc(m->vertices, 3 * (size_t)m->vertex_capacity * sizeof *m->vertices);
        cr_assert_not_null(m->vertices);
    }
    m->vertices[3 * m->vertex_count] = p.x;
    m->vertices[3 * m->vertex_count + 1] = p.y;
    m->vertices[3 * m->vertex_count + 2] = p.z;
    return m->vertex_count++;
}

static inline void test_mesh_triangle(test_mesh* m, int a, int b, int c)
{
    if (m->triangle_count == m->triangle_capacity) {
        m->triangle_capacity = m->triangle_capacity ? 2 * m->triangle_capacity : 64;
        m->triangles = realloc(m->triangles, 3 * (size_t)m->triangle_capacity * sizeof *m->triangles);
        cr_assert_not_null(m->triangles);
    }
    int* t = m->triangles + 3 * m->triangle_count++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
}

static inline void test_mesh_release(test_mesh* m)
{
    free(m->vertices);
    free(m->triangles);
    *m = (test_mesh){0};
}

static inline fd_mesh* test_mesh_build(const test_mesh* m, double feature_angle)
{
    char message[256] = "";
    fd_mesh* mesh = fd_mesh_create(m->vertices, m->vertex_count, m->triangles, m->triangle_count, feature_angle,
                                   message, (int)sizeof message);
    cr_assert_not_null(mesh, "fd_mesh_create: %s", message);
    return mesh;
}

/* A quad a b c d (in order round it) as two triangles, the winding of one
 * flipped when flip says so (STL files often mix windings). */
static inline void test_mesh_quad(test_mesh* m, int a, int b, int c, int d, bool flip_first, bool flip_second)
{
    if (flip_first) {
        test_mesh_triangle(m, a, c, b);
    } else {
        test_mesh_triangle(m, a, b, c);
    }
    if (flip_second) {
        test_mesh_triangle(m, a, d, c);
    } else {
        test_mesh_triangle(m, a, c, d);
    }
}

/* The box [lo, hi], each face split into n x n squares of two triangles,
 * each face with its own vertices (welding joins them), windings mixed. */
static inline void test_mesh_box(test_mesh* m, fd_vec3 lo, fd_vec3 hi, int n)
{
    double low[3] = {lo.x, lo.y, lo.z}, high[3] = {hi.x, hi.y, hi.z};
    for (int axis = 0; axis < 3; ++axis) {
        for (int side = 0; side < 2; ++side) {
            int u = (axis + 1) % 3, v = (axis + 2) % 3;
            int first = m->vertex_count;
            for (int j = 0; j <= n; ++j) {
                for (int i = 0; i <= n; ++i) {
                    double p[3];
                    p[axis] = side ? high[axis] : low[axis];
                    p[u] = low[u] + (high[u] - low[u]) * i / n;
                    p[v] = low[v] + (high[v] - low[v]) * j / n;
                    test_mesh_vertex(m, fd_v3(p[0], p[1], p[2]));
                }
            }
            for (int j = 0; j < n; ++j) {
                for (int i = 0; i < n; ++i) {
                    int a = first + i + (n + 1) * j;
                    int cell = i + n * j + 7 * (2 * axis + side);
                    test_mesh_quad(m, a, a + 1, a + n + 2, a + n + 1, cell % 3 == 0, cell % 5 == 1);
                }
            }
        }
    }
}

/* The height field z = height(x, y, state) over [-1, 1]^2 in n x n quads of
 * two triangles (height draws any noise it adds from *state, vertex by
 * vertex, row by row). Quad (i, j) has the winding of its first triangle
 * flipped where i + j is a multiple of flip_first, of its second where it
 * is one of flip_second; 0 flips none. */
static inline void test_mesh_height_field(test_mesh* m, int n, double (*height)(double x, double y, uint64_t* state),
                                          uint64_t* state, int flip_first, int flip_second)
{
    int first = m->vertex_count;
    for (int j = 0; j <= n; ++j) {
        for (int i = 0; i <= n; ++i) {
            double x = -1.0 + 2.0 * i / n, y = -1.0 + 2.0 * j / n;
            test_mesh_vertex(m, fd_v3(x, y, height(x, y, state)));
        }
    }
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            int a = first + i + (n + 1) * j;
            test_mesh_quad(m, a, a + 1, a + n + 2, a + n + 1, flip_first && (i + j) % flip_first == 0,
                           flip_second && (i + j) % flip_second == 0);
        }
    }
}

/* A prism of `sides` facets round the z axis (vertices at radius r), z in
 * [-h, h], capped with a fan from the centre of each end. */
static inline void test_mesh_cylinder(test_mesh* m, double r, double h, int sides)
{
    int bottom = m->vertex_count;
    for (int k = 0; k < sides; ++k) {
        double angle = 2.0 * MESH_PI * k / sides;
        test_mesh_vertex(m, fd_v3(r * cos(angle), r * sin(angle), -h));
        test_mesh_vertex(m, fd_v3(r * cos(angle), r * sin(angle), h));
    }
    int bottom_centre = test_mesh_vertex(m, fd_v3(0, 0, -h));
    int top_centre = test_mesh_vertex(m, fd_v3(0, 0, h));
    for (int k = 0; k < sides; ++k) {
        int b0 = bottom + 2 * k, t0 = b0 + 1;
        int b1 = bottom + 2 * ((k + 1) % sides), t1 = b1 + 1;
        test_mesh_quad(m, b0, b1, t1, t0, k % 4 == 1, k % 7 == 3);
        test_mesh_triangle(m, top_centre, t0, t1);
        test_mesh_triangle(m, bottom_centre, b1, b0);
    }
}

/* ---------------------------------------------------------------- oracle */

/* Distance from p to the segment ab. */
static inline double oracle_segment_distance(fd_vec3 p, fd_vec3 a, fd_vec3 b)
{
    fd_vec3 e = fd_v3_sub(b, a);
    double t = fd_v3_dot(fd_v3_sub(p, a), e) / fd_v3_dot(e, e);
    t = fmax(0.0, fmin(1.0, t));
    return fd_v3_distance(p, fd_v3_mul_add(a, t, e));
}

/* Distance from p to the triangle abc, computed differently from the code
 * under test: the projection is inside when it is on the inner side of all
 * three edge lines (signs of cross products), else the nearest edge segment. */
static inline double oracle_triangle_distance(fd_vec3 p, fd_vec3 a, fd_vec3 b, fd_vec3 c)
{
    fd_vec3 n = fd_v3_normalize(fd_v3_cross(fd_v3_sub(b, a), fd_v3_sub(c, a)));
    double s = fd_v3_dot(fd_v3_sub(p, a), n);
    fd_vec3 q = fd_v3_mul_add(p, -s, n);
    bool inside = fd_v3_dot(fd_v3_cross(fd_v3_sub(b, a), fd_v3_sub(q, a)), n) >= 0.0 &&
                  fd_v3_dot(fd_v3_cross(fd_v3_sub(c, b), fd_v3_sub(q, b)), n) >= 0.0 &&
                  fd_v3_dot(fd_v3_cross(fd_v3_sub(a, c), fd_v3_sub(q, c)), n) >= 0.0;
    if (inside) {
        return fabs(s);
    }
    return fmin(oracle_segment_distance(p, a, b),
                fmin(oracle_segment_distance(p, b, c), oracle_segment_distance(p, c, a)));
}

static inline fd_vec3 mesh_vertex_at(const fd_mesh* mesh, int v)
{
    const double* p = fd_mesh_vertices(mesh) + 3 * v;
    return fd_v3(p[0], p[1], p[2]);
}

/* Oracle distance from p to triangle t of a built mesh. */
static inline double oracle_mesh_triangle_distance(const fd_mesh* mesh, int t, fd_vec3 p)
{
    const int* v = fd_mesh_triangles(mesh) + 3 * t;
    return oracle_triangle_distance(p, mesh_vertex_at(mesh, v[0]), mesh_vertex_at(mesh, v[1]),
                                    mesh_vertex_at(mesh, v[2]));
}

/* Oracle distance from p to a patch (or to the whole mesh when patch < 0). */
static inline double oracle_patch_distance(const fd_mesh* mesh, int patch, fd_vec3 p)
{
    double nearest = INFINITY;
    for (int t = 0; t < fd_mesh_triangle_count(mesh); ++t) {
        if (patch < 0 || fd_mesh_triangle_patch(mesh, t) == patch) {
            nearest = fmin(nearest, oracle_mesh_triangle_distance(mesh, t, p));
        }
    }
    return nearest;
}

/* The patches that report a hit: their count, and the hits in hits[] (by
 * patch) when not NULL. */
static inline int test_hits(const fd_mesh* mesh, fd_vec3 centre, double reach, fd_wall_hit* hits, int* patches)
{
    int count = 0;
    for (int p = 0; p < fd_mesh_patch_count(mesh); ++p) {
        fd_wall_hit hit;
        if (fd_mesh_patch_closest(mesh, p, centre, reach, &hit)) {
            if (hits != NULL) {
                hits[count] = hit;
            }
            if (patches != NULL) {
                patches[count] = p;
            }
            ++count;
        }
    }
    return count;
}

#endif
