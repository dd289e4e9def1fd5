/* Triangle-mesh walls (src/collide/mesh.c, mesh_query.c): building (welding,
 * degenerate triangles, errors), patches, and the closest point of a patch
 * against analytic answers and against a brute-force oracle.
 *
 * Tolerances: coordinates are of order 1, and a closest point is a few dot
 * and cross products of them (a normal normalised once), so it carries a few
 * ulps of 1, ~1e-15; 1e-14 (ROUND_OFF) leaves room for the order of the
 * operations. A tilted plane goes through a rotation first, one more rounding
 * of each coordinate, well inside that. The oracle computes a distance
 * another way (edge-side tests instead of barycentric coordinates), so the two
 * agree to round-off, not bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "collide/walls.h"
#include "support/mesh.h"

#define ROUND_OFF 1e-14 /* see the top comment */

static void assert_vec_near(fd_vec3 actual, fd_vec3 expected, double tolerance, const char* what)
{
    cr_assert(fd_v3_distance(actual, expected) <= tolerance,
              "%s: got (%.17g, %.17g, %.17g), expected (%.17g, %.17g, %.17g)", what, actual.x, actual.y, actual.z,
              expected.x, expected.y, expected.z);
}

/* ---------------------------------------------------------------- one triangle */

static fd_mesh* single_triangle(void)
{
    double vertices[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    int triangles[] = {0, 1, 2};
    char message[128];
    fd_mesh* mesh = fd_mesh_create(vertices, 3, triangles, 1, 30.0 * MESH_PI / 180.0, message, sizeof message);
    cr_assert_not_null(mesh, "%s", message);
    return mesh;
}

Test(mesh, single_triangle_face)
{
    fd_mesh* mesh = single_triangle();
    cr_assert_eq(fd_mesh_patch_count(mesh), 1);
    fd_wall_hit hit;
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(0.2, 0.3, 0.5), 1.0, &hit));
    assert_vec_near(hit.point, fd_v3(0.2, 0.3, 0.0), ROUND_OFF, "point");
    assert_vec_near(hit.normal, fd_v3(0, 0, 1), ROUND_OFF, "normal above");
    cr_assert_float_eq(hit.gap, 0.5, ROUND_OFF);
    cr_assert_eq(hit.feature, FD_WALL_FACE);
    cr_assert_eq(hit.triangle, 0);
    cr_assert_eq(hit.curvature[0], 0.0);
    cr_assert_eq(hit.curvature[1], 0.0);
    cr_assert_float_eq(fd_v3_dot(hit.principal_dir[0], hit.normal), 0.0, ROUND_OFF);
    cr_assert_float_eq(fd_v3_dot(hit.principal_dir[1], hit.normal), 0.0, ROUND_OFF);
    cr_assert_float_eq(fd_v3_dot(hit.principal_dir[0], hit.principal_dir[1]), 0.0, ROUND_OFF);
    /* Two-sided: below, the normal points down. */
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(0.2, 0.3, -0.5), 1.0, &hit));
    assert_vec_near(hit.normal, fd_v3(0, 0, -1), ROUND_OFF, "normal below");
    cr_assert_float_eq(hit.gap, 0.5, ROUND_OFF);
    /* Reach is strict. */
    cr_assert_not(fd_mesh_patch_closest(mesh, 0, fd_v3(0.2, 0.3, 0.5), 0.5, &hit));
    cr_assert_not(fd_mesh_patch_closest(mesh, 1, fd_v3(0.2, 0.3, 0.5), 1.0, &hit), "no patch 1");
    fd_mesh_free(mesh);
}

Test(mesh, single_triangle_edges)
{
    fd_mesh* mesh = single_triangle();
    fd_wall_hit hit;
    /* Beyond the edge y = 0: closest point (0.5, 0, 0), offset (0, -0.3, 0.4). */
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(0.5, -0.3, 0.4), 1.0, &hit));
    assert_vec_near(hit.point, fd_v3(0.5, 0, 0), ROUND_OFF, "point on edge ab");
    assert_vec_near(hit.normal, fd_v3(0, -0.6, 0.8), ROUND_OFF, "normal");
    cr_assert_float_eq(hit.gap, 0.5, ROUND_OFF);
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
    /* Beyond the hypotenuse x + y = 1 in the plane: from (0.8, 0.7, 0) the
     * closest point is (0.55, 0.45, 0), distance 0.25 sqrt 2. */
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(0.8, 0.7, 0.0), 1.0, &hit));
    assert_vec_near(hit.point, fd_v3(0.55, 0.45, 0), ROUND_OFF, "point on edge bc");
    cr_assert_float_eq(hit.gap, 0.25 * sqrt(2.0), ROUND_OFF);
    assert_vec_near(hit.normal, fd_v3(sqrt(0.5), sqrt(0.5), 0), ROUND_OFF, "in-plane normal");
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
    /* Beyond the edge x = 0, below the plane. */
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(-0.4, 0.5, -0.3), 1.0, &hit));
    assert_vec_near(hit.point, fd_v3(0, 0.5, 0), ROUND_OFF, "point on edge ca");
    assert_vec_near(hit.normal, fd_v3(-0.8, 0, -0.6), ROUND_OFF, "normal");
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
    fd_mesh_free(mesh);
}

Test(mesh, single_triangle_vertices)
{
    fd_mesh* mesh = single_triangle();
    fd_wall_hit hit;
    /* Beyond a = (0, 0, 0): offset (-0.3, -0.4, 1.2), length 1.3. */
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(-0.3, -0.4, 1.2), 2.0, &hit));
    assert_vec_near(hit.point, fd_v3(0, 0, 0), ROUND_OFF, "vertex a");
    cr_assert_float_eq(hit.gap, 1.3, ROUND_OFF);
    assert_vec_near(hit.normal, fd_v3(-0.3 / 1.3, -0.4 / 1.3, 1.2 / 1.3), ROUND_OFF, "normal");
    cr_assert_eq(hit.feature, FD_WALL_VERTEX);
    /* Beyond b = (1, 0, 0) in the plane: (1.3, -0.4, 0), distance 0.5. */
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(1.3, -0.4, 0.0), 1.0, &hit));
    assert_vec_near(hit.point, fd_v3(1, 0, 0), ROUND_OFF, "vertex b");
    cr_assert_float_eq(hit.gap, 0.5, ROUND_OFF);
    cr_assert_eq(hit.feature, FD_WALL_VERTEX);
    /* Beyond c = (0, 1, 0), under the plane. */
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(-0.3, 1.4, -1.2), 2.0, &hit));
    assert_vec_near(hit.point, fd_v3(0, 1, 0), ROUND_OFF, "vertex c");
    cr_assert_float_eq(hit.gap, 1.3, ROUND_OFF);
    cr_assert_eq(hit.feature, FD_WALL_VERTEX);
    cr_assert_not(fd_mesh_patch_closest(mesh, 0, fd_v3(-0.3, 1.4, -1.2), 1.3, &hit), "gap = reach");
    fd_mesh_free(mesh);
}

Test(mesh, centre_on_the_surface_takes_the_face_normal)
{
    fd_mesh* mesh = single_triangle();
    fd_wall_hit hit;
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(0.25, 0.25, 0.0), 0.1, &hit));
    cr_assert_eq(hit.gap, 0.0);
    assert_vec_near(hit.normal, fd_v3(0, 0, 1), 0.0, "face normal");
    cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(0.5, 0.5, 0.0), 0.1, &hit), "on the hypotenuse");
    cr_assert_float_eq(fd_v3_length(hit.normal), 1.0, ROUND_OFF);
    cr_assert_float_eq(fabs(hit.normal.z), 1.0, ROUND_OFF);
    fd_mesh_free(mesh);
}

/* ---------------------------------------------------------------- a fine plane */

/* The square [-1, 1]^2 of the plane z = 0 in the frame (rotation, origin),
 * split into n x n squares of two triangles, diagonals alternating and
 * windings mixed. */
static void fine_plane(test_mesh* m, int n, fd_quat rotation, fd_vec3 origin)
{
    for (int j = 0; j <= n; ++j) {
        for (int i = 0; i <= n; ++i) {
            fd_vec3 local = fd_v3(-1.0 + 2.0 * i / n, -1.0 + 2.0 * j / n, 0.0);
            test_mesh_vertex(m, fd_v3_add(origin, fd_quat_rotate(rotation, local)));
        }
    }
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            int a = i + (n + 1) * j, b = a + 1, c = a + n + 2, d = a + n + 1;
            if ((i + j) % 2 == 0) {
                test_mesh_quad(m, a, b, c, d, (i * 3 + j) % 4 == 0, (i + 5 * j) % 3 == 0);
            } else {
                test_mesh_quad(m, b, c, d, a, (i * 3 + j) % 4 == 0, (i + 5 * j) % 3 == 0);
            }
        }
    }
}

/* Gap and normal equal the analytic plane's at centres over every vertex,
 * edge and diagonal of the triangulation (a lattice 1/4 of the cell size,
 * which holds the vertices, edge midpoints and points along every diagonal)
 * and between, above and below: no bumps. */
static void assert_plane_without_bumps(fd_quat rotation, fd_vec3 origin)
{
    const int n = 16;
    test_mesh m = {0};
    fine_plane(&m, n, rotation, origin);
    fd_mesh* mesh = test_mesh_build(&m, 30.0 * MESH_PI / 180.0);
    cr_assert_eq(fd_mesh_patch_count(mesh), 1, "a plane is one patch whatever its windings");
    cr_assert_eq(fd_mesh_triangle_count(mesh), 2 * n * n);
    fd_vec3 up = fd_quat_rotate(rotation, fd_v3(0, 0, 1));
    const double heights[] = {0.3, -0.2, 1e-3, -0.05};
    int samples = 0;
    double worst_gap = 0.0, worst_normal = 0.0;
    for (int h = 0; h < 4; ++h) {
        for (int j = 0; j <= 4 * n; ++j) {
            for (int i = 0; i <= 4 * n; ++i) {
                fd_vec3 local = fd_v3(-1.0 + 0.5 * i / n, -1.0 + 0.5 * j / n, heights[h]);
                fd_vec3 centre = fd_v3_add(origin, fd_quat_rotate(rotation, local));
                fd_wall_hit hit;
                cr_assert(fd_mesh_patch_closest(mesh, 0, centre, 0.5, &hit), "no hit at (%g, %g, %g)", local.x,
                          local.y, local.z);
                fd_vec3 expected_normal = heights[h] > 0.0 ? up : fd_v3_neg(up);
                worst_gap = fmax(worst_gap, fabs(hit.gap - fabs(heights[h])));
                worst_normal = fmax(worst_normal, fd_v3_distance(hit.normal, expected_normal));
                ++samples;
            }
        }
    }
    cr_assert(worst_gap <= ROUND_OFF, "gap off the plane's by %.3g over %d centres", worst_gap, samples);
    cr_assert(worst_normal <= ROUND_OFF, "normal off the plane's by %.3g over %d centres", worst_normal, samples);
    fd_mesh_free(mesh);
    test_mesh_release(&m);
}

Test(mesh, fine_plane_has_no_bumps)
{
    assert_plane_without_bumps(fd_quat_identity(), fd_v3(0, 0, 0));
}

Test(mesh, tilted_fine_plane_has_no_bumps)
{
    fd_quat rotation = fd_quat_from_axis_angle(fd_v3_normalize(fd_v3(1, 2, 3)), 0.7);
    assert_plane_without_bumps(rotation, fd_v3(0.3, -0.2, 0.45));
}

/* Exactly above a vertex or an edge of the axis-aligned plane (coordinates
 * multiples of 1/8, exact in binary) every incident triangle is at exactly
 * the same distance: the lowest triangle index takes the contact. */
Test(mesh, ties_go_to_the_lowest_triangle)
{
    const int n = 16;
    test_mesh m = {0};
    fine_plane(&m, n, fd_quat_identity(), fd_v3(0, 0, 0));
    fd_mesh* mesh = test_mesh_build(&m, 30.0 * MESH_PI / 180.0);
    int checked = 0;
    for (int j = 1; j < 2 * n; ++j) {
        for (int i = 1; i < 2 * n; ++i) {
            fd_vec3 centre = fd_v3(-1.0 + 1.0 * i / n, -1.0 + 1.0 * j / n, 0.25);
            fd_wall_hit hit;
            cr_assert(fd_mesh_patch_closest(mesh, 0, centre, 0.5, &hit));
            /* The lowest triangle whose closed area holds the centre's foot. */
            int lowest = -1;
            for (int t = 0; t < fd_mesh_triangle_count(mesh) && lowest < 0; ++t) {
                if (oracle_mesh_triangle_distance(mesh, t, centre) == 0.25) {
                    lowest = t;
                }
            }
            cr_assert_eq(hit.triangle, lowest, "at (%g, %g): triangle %d, expected %d", centre.x, centre.y,
                         hit.triangle, lowest);
            ++checked;
        }
    }
    cr_assert_gt(checked, 900);
    fd_mesh_free(mesh);
    test_mesh_release(&m);
}

/* ---------------------------------------------------------------- patches */

Test(mesh, box_is_six_patches)
{
    for (int n = 1; n <= 3; ++n) {
        test_mesh m = {0};
        test_mesh_box(&m, fd_v3(0, 0, 0), fd_v3(1, 1, 1), n);
        fd_mesh* mesh = test_mesh_build(&m, 30.0 * MESH_PI / 180.0);
        cr_assert_eq(fd_mesh_triangle_count(mesh), 12 * n * n);
        cr_assert_eq(fd_mesh_vertex_count(mesh), 6 * n * n + 2, "welded: V = E - F + 2 = 6 n^2 + 2");
        cr_assert_eq(fd_mesh_patch_count(mesh), 6, "n = %d", n);
        /* Each patch is one face: its triangles' vertices share a coordinate. */
        for (int t = 0; t < fd_mesh_triangle_count(mesh); ++t) {
            int first = -1;
            for (int s = 0; s < fd_mesh_triangle_count(mesh) && first < 0; ++s) {
                if (fd_mesh_triangle_patch(mesh, s) == fd_mesh_triangle_patch(mesh, t)) {
                    first = s;
                }
            }
            fd_vec3 a = fd_v3_sub(mesh_vertex_at(mesh, fd_mesh_triangles(mesh)[3 * t]),
                                  mesh_vertex_at(mesh, fd_mesh_triangles(mesh)[3 * first]));
            fd_vec3 b = fd_v3_cross(fd_v3_sub(mesh_vertex_at(mesh, fd_mesh_triangles(mesh)[3 * first + 1]),
                                              mesh_vertex_at(mesh, fd_mesh_triangles(mesh)[3 * first])),
                                    fd_v3_sub(mesh_vertex_at(mesh, fd_mesh_triangles(mesh)[3 * first + 2]),
                                              mesh_vertex_at(mesh, fd_mesh_triangles(mesh)[3 * first])));
            cr_assert_float_eq(fd_v3_dot(a, b), 0.0, ROUND_OFF, "triangle %d off its patch's plane", t);
        }
        cr_assert_float_eq(fd_mesh_bounding_radius(mesh), sqrt(3.0), ROUND_OFF);
        /* Patches are numbered in the order of their lowest triangle. */
        int next = 0;
        for (int t = 0; t < fd_mesh_triangle_count(mesh); ++t) {
            int p = fd_mesh_triangle_patch(mesh, t);
            cr_assert_leq(p, next);
            next += p == next;
        }
        fd_mesh_free(mesh);
        test_mesh_release(&m);
    }
}

/* The cylinder of 64 facets, radius 1 and z in [-1, 1], into m, built at
 * the 30 degree feature angle: three patches (side and two caps), which the
 * patch test checks and the concurrency test queries. */
static fd_mesh* unit_cylinder(test_mesh* m)
{
    test_mesh_cylinder(m, 1.0, 1.0, 64);
    return test_mesh_build(m, 30.0 * MESH_PI / 180.0);
}

Test(mesh, faceted_cylinder_side_is_one_patch)
{
    test_mesh m = {0};
    fd_mesh* mesh = unit_cylinder(&m);
    cr_assert_eq(fd_mesh_triangle_count(mesh), 4 * 64);
    cr_assert_eq(fd_mesh_patch_count(mesh), 3, "side + two caps");
    int side = fd_mesh_triangle_patch(mesh, 0), top = fd_mesh_triangle_patch(mesh, 2);
    int bottom = fd_mesh_triangle_patch(mesh, 3);
    cr_assert(side != top && side != bottom && top != bottom);
    for (int k = 0; k < 64; ++k) {
        cr_assert_eq(fd_mesh_triangle_patch(mesh, 4 * k), side);
        cr_assert_eq(fd_mesh_triangle_patch(mesh, 4 * k + 1), side);
        cr_assert_eq(fd_mesh_triangle_patch(mesh, 4 * k + 2), top);
        cr_assert_eq(fd_mesh_triangle_patch(mesh, 4 * k + 3), bottom);
    }
    fd_mesh_free(mesh);
    /* Below the 360/64 = 5.6 degrees between facets, every facet (two
     * coplanar triangles) is its own patch. */
    mesh = test_mesh_build(&m, 5.0 * MESH_PI / 180.0);
    cr_assert_eq(fd_mesh_patch_count(mesh), 64 + 2);
    fd_mesh_free(mesh);
    test_mesh_release(&m);
}

/* Two triangles folded 10 degrees apart across an edge, a knife edge: their
 * normals, wound consistently, are 170 degrees apart, so they split, though
 * |n1 . n2| = cos 10 degrees; whichever way the second is wound. */
Test(mesh, knife_edge_splits_whatever_the_winding)
{
    double angle = 10.0 * MESH_PI / 180.0;
    double vertices[] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, cos(angle), sin(angle)};
    int consistent[] = {0, 1, 2, 1, 0, 3};
    int inconsistent[] = {0, 1, 2, 0, 1, 3};
    char message[128];
    fd_mesh* mesh = fd_mesh_create(vertices, 4, consistent, 2, 30.0 * MESH_PI / 180.0, message, sizeof message);
    cr_assert_not_null(mesh, "%s", message);
    cr_assert_eq(fd_mesh_patch_count(mesh), 2);
    fd_mesh_free(mesh);
    mesh = fd_mesh_create(vertices, 4, inconsistent, 2, 30.0 * MESH_PI / 180.0, message, sizeof message);
    cr_assert_not_null(mesh, "%s", message);
    cr_assert_eq(fd_mesh_patch_count(mesh), 2);
    fd_mesh_free(mesh);
    /* Opened to 170 degrees (a 10-degree crease) they join, either winding. */
    double open[] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -cos(angle), sin(angle)};
    mesh = fd_mesh_create(open, 4, consistent, 2, 30.0 * MESH_PI / 180.0, message, sizeof message);
    cr_assert_eq(fd_mesh_patch_count(mesh), 1);
    fd_mesh_free(mesh);
    mesh = fd_mesh_create(open, 4, inconsistent, 2, 30.0 * MESH_PI / 180.0, message, sizeof message);
    cr_assert_eq(fd_mesh_patch_count(mesh), 1);
    fd_mesh_free(mesh);
}

/* ---------------------------------------------------------------- building */

/* The unit box as a triangle soup, each triangle with its own three
 * vertices, each coordinate moved by up to jitter. */
static void box_soup(test_mesh* soup, double jitter)
{
    test_mesh box = {0};
    test_mesh_box(&box, fd_v3(0, 0, 0), fd_v3(1, 1, 1), 1);
    uint64_t state = 12345;
    for (int t = 0; t < box.triangle_count; ++t) {
        int v[3];
        for (int k = 0; k < 3; ++k) {
            const double* p = box.vertices + 3 * box.triangles[3 * t + k];
            v[k] = test_mesh_vertex(soup, fd_v3(p[0] + jitter * test_uniform(&state, -1, 1),
                                                p[1] + jitter * test_uniform(&state, -1, 1),
                                                p[2] + jitter * test_uniform(&state, -1, 1)));
        }
        test_mesh_triangle(soup, v[0], v[1], v[2]);
    }
    test_mesh_release(&box);
}

Test(mesh, welding)
{
    /* The diagonal is sqrt 3, so vertices weld within 1.7e-9. */
    test_mesh soup = {0};
    box_soup(&soup, 0.0);
    cr_assert_eq(soup.vertex_count, 36);
    fd_mesh* mesh = test_mesh_build(&soup, 30.0 * MESH_PI / 180.0);
    cr_assert_eq(fd_mesh_vertex_count(mesh), 8);
    cr_assert_eq(fd_mesh_patch_count(mesh), 6);
    fd_mesh_free(mesh);
    test_mesh_release(&soup);
    box_soup(&soup, 1e-12); /* 1e-12 per coordinate: at most 3.5e-12 apart */
    mesh = test_mesh_build(&soup, 30.0 * MESH_PI / 180.0);
    cr_assert_eq(fd_mesh_vertex_count(mesh), 8);
    cr_assert_eq(fd_mesh_patch_count(mesh), 6);
    fd_mesh_free(mesh);
    test_mesh_release(&soup);
    box_soup(&soup, 1e-6); /* far above the weld distance: nothing welds, no two triangles share an edge */
    mesh = test_mesh_build(&soup, 30.0 * MESH_PI / 180.0);
    cr_assert_eq(fd_mesh_vertex_count(mesh), 36);
    cr_assert_eq(fd_mesh_patch_count(mesh), 12);
    fd_mesh_free(mesh);
    test_mesh_release(&soup);
}

Test(mesh, degenerate_triangles_are_dropped_and_counted)
{
    /* A square of two triangles plus a collinear one, a repeated-index one
     * and one that welding collapses (vertex 5 is 1e-12 from vertex 0). */
    double vertices[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0, 0, 1e-12, 0, 0};
    int triangles[] = {0, 1, 2, 0, 4, 1, 0, 2, 3, 1, 1, 2, 0, 5, 3};
    char message[128];
    fd_mesh* mesh = fd_mesh_create(vertices, 6, triangles, 5, 0.5, message, sizeof message);
    cr_assert_not_null(mesh, "%s", message);
    cr_assert_eq(fd_mesh_triangle_count(mesh), 2);
    cr_assert_eq(fd_mesh_degenerate_count(mesh), 3);
    cr_assert_eq(fd_mesh_vertex_count(mesh), 4, "unused vertices are left out");
    int expected[] = {0, 1, 2, 0, 2, 3}; /* kept in input order, vertices renumbered in input order */
    cr_assert_arr_eq(fd_mesh_triangles(mesh), expected, sizeof expected);
    fd_mesh_free(mesh);
    int only_degenerate[] = {0, 4, 1};
    cr_assert_null(fd_mesh_create(vertices, 6, only_degenerate, 1, 0.5, message, sizeof message));
    cr_assert(strstr(message, "degenerate") != NULL, "%s", message);
}

Test(mesh, errors)
{
    double vertices[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    int triangles[] = {0, 1, 2};
    char message[256];
    cr_assert_null(fd_mesh_create(vertices, 3, triangles, 0, 0.5, message, sizeof message));
    cr_assert(strstr(message, "no triangles") != NULL, "%s", message);
    int out_of_range[] = {0, 1, 3};
    cr_assert_null(fd_mesh_create(vertices, 3, out_of_range, 1, 0.5, message, sizeof message));
    cr_assert(strstr(message, "triangle 0: vertex index 3 out of range") != NULL, "%s", message);
    int negative[] = {0, -1, 2};
    cr_assert_null(fd_mesh_create(vertices, 3, negative, 1, 0.5, message, sizeof message));
    cr_assert(strstr(message, "out of range") != NULL, "%s", message);
    double not_finite[] = {0, 0, 0, 1, 0, 0, 0, NAN, 0};
    cr_assert_null(fd_mesh_create(not_finite, 3, triangles, 1, 0.5, message, sizeof message));
    cr_assert(strstr(message, "vertex 2: coordinate y is not finite") != NULL, "%s", message);
    double infinite[] = {0, 0, 0, 1, 0, INFINITY, 0, 1, 0};
    cr_assert_null(fd_mesh_create(infinite, 3, triangles, 1, 0.5, message, sizeof message));
    cr_assert(strstr(message, "vertex 1: coordinate z is not finite") != NULL, "%s", message);
    double huge[] = {0, 0, 0, 1e80, 0, 0, 0, 1, 0};
    cr_assert_null(fd_mesh_create(huge, 3, triangles, 1, 0.5, message, sizeof message));
    cr_assert(strstr(message, "vertex 1: coordinate x = 1e+80 m is too large") != NULL, "%s", message);
    cr_assert_null(fd_mesh_create(vertices, 3, triangles, 1, -0.1, message, sizeof message));
    cr_assert(strstr(message, "feature angle") != NULL, "%s", message);
    cr_assert_null(fd_mesh_create(vertices, 3, triangles, 1, NAN, NULL, 0), "no message buffer is fine");
}

/* ---------------------------------------------------------------- grid against brute force */

static double gentle_bumps(double x, double y, uint64_t* state)
{
    return 0.1 * sin(3.0 * x) * cos(2.0 * y) + 0.01 * test_uniform(state, -1, 1);
}

/* A bumpy height field (1800 triangles), one patch (feature angle pi): the
 * grid's answer equals the brute-force minimum over all triangles for random
 * centres and reaches, and the hit lies on the triangle it names. */
Test(mesh, grid_agrees_with_brute_force)
{
    test_mesh m = {0};
    uint64_t state = 777;
    test_mesh_height_field(&m, 30, gentle_bumps, &state, 3, 0);
    fd_mesh* mesh = test_mesh_build(&m, MESH_PI);
    cr_assert_eq(fd_mesh_patch_count(mesh), 1);
    int hits = 0;
    for (int sample = 0; sample < 3000; ++sample) {
        fd_vec3 centre = fd_v3(test_uniform(&state, -1.3, 1.3), test_uniform(&state, -1.3, 1.3),
                               test_uniform(&state, -0.5, 0.5));
        double reach = test_uniform(&state, 0.01, 0.6);
        double expected = oracle_patch_distance(mesh, -1, centre);
        if (fabs(expected - reach) < 1e-12) {
            continue; /* too close to call */
        }
        fd_wall_hit hit;
        bool found = fd_mesh_patch_closest(mesh, 0, centre, reach, &hit);
        cr_assert_eq(found, expected < reach, "centre (%g, %g, %g), reach %g: distance %.17g", centre.x, centre.y,
                     centre.z, reach, expected);
        if (found) {
            cr_assert_float_eq(hit.gap, expected, ROUND_OFF);
            cr_assert_float_eq(oracle_mesh_triangle_distance(mesh, hit.triangle, centre), expected, ROUND_OFF);
            cr_assert_float_eq(oracle_mesh_triangle_distance(mesh, hit.triangle, hit.point), 0.0, ROUND_OFF);
            assert_vec_near(fd_v3_mul_add(hit.point, hit.gap, hit.normal), centre, ROUND_OFF, "point + gap normal");
            ++hits;
        }
    }
    cr_assert_gt(hits, 1000, "the samples must exercise hits (%d)", hits);
    fd_mesh_free(mesh);
    test_mesh_release(&m);
}

/* Queries from several threads at once give bit for bit the serial answers:
 * the mesh holds no mutable state. */
Test(mesh, concurrent_queries_match_serial)
{
    test_mesh m = {0};
    fd_mesh* mesh = unit_cylinder(&m);
    enum { COUNT = 4000 };
    static fd_vec3 centres[COUNT];
    static fd_wall_hit serial[COUNT * 3], parallel[COUNT * 3];
    static bool serial_found[COUNT * 3], parallel_found[COUNT * 3];
    uint64_t state = 99;
    for (int i = 0; i < COUNT; ++i) {
        centres[i] = fd_v3(test_uniform(&state, -1.3, 1.3), test_uniform(&state, -1.3, 1.3),
                           test_uniform(&state, -1.3, 1.3));
    }
    memset(serial, 0, sizeof serial);
    memset(parallel, 0, sizeof parallel);
    for (int i = 0; i < 3 * COUNT; ++i) {
        serial_found[i] = fd_mesh_patch_closest(mesh, i % 3, centres[i / 3], 0.3, &serial[i]);
    }
#pragma omp parallel for schedule(dynamic, 16) num_threads(4)
    for (int i = 0; i < 3 * COUNT; ++i) {
        parallel_found[i] = fd_mesh_patch_closest(mesh, i % 3, centres[i / 3], 0.3, &parallel[i]);
    }
    int found = 0;
    for (int i = 0; i < 3 * COUNT; ++i) {
        cr_assert_eq(parallel_found[i], serial_found[i]);
        cr_assert(memcmp(&parallel[i], &serial[i], sizeof serial[i]) == 0, "query %d differs", i);
        found += serial_found[i];
    }
    cr_assert_gt(found, 500);
    fd_mesh_free(mesh);
    test_mesh_release(&m);
}
