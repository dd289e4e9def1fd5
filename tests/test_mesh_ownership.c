/* Which mesh patch owns a contact near a sharp edge or corner
 * (src/collide/mesh_query.c): one contact per face in a concave corner, one
 * contact in all on a convex edge or vertex, none from a face whose edge a
 * sphere overhangs; and, over many random centres round a box and a capped
 * faceted cylinder (both convex), exactly one contact outside, at the true
 * distance, and one per face within reach inside.
 *
 * Tolerances as in test_mesh.c: ROUND_OFF = 1e-14 for distances of order 1
 * from a few dot products. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "collide/walls.h"
#include "support/mesh.h"

#define ROUND_OFF 1e-14 /* see the top comment */
#define MAX_PATCHES 8

static fd_mesh* unit_box(int n)
{
    test_mesh m = {0};
    test_mesh_box(&m, fd_v3(0, 0, 0), fd_v3(1, 1, 1), n);
    fd_mesh* mesh = test_mesh_build(&m, 30.0 * MESH_PI / 180.0);
    test_mesh_release(&m);
    cr_assert_eq(fd_mesh_patch_count(mesh), 6);
    return mesh;
}

static void assert_vec_near(fd_vec3 actual, fd_vec3 expected, const char* what)
{
    cr_assert(fd_v3_distance(actual, expected) <= ROUND_OFF,
              "%s: got (%.17g, %.17g, %.17g), expected (%.17g, %.17g, %.17g)", what, actual.x, actual.y, actual.z,
              expected.x, expected.y, expected.z);
}

/* The one contact a sphere at centre, of reach 0.2, makes with the unit box
 * of n subdivisions per edge (asserted to be one). */
static fd_wall_hit only_hit(const fd_mesh* mesh, int n, fd_vec3 centre)
{
    fd_wall_hit hits[MAX_PATCHES];
    int count = test_hits(mesh, centre, 0.2, hits, NULL);
    cr_assert_eq(count, 1, "n = %d: %d hits", n, count);
    return hits[0];
}

Test(mesh_ownership, concave_corner_touches_three_faces)
{
    for (int n = 1; n <= 3; ++n) {
        fd_mesh* mesh = unit_box(n);
        fd_wall_hit hits[MAX_PATCHES];
        /* 0.1 from the faces x = 0, y = 0 and z = 0, reach 0.15. */
        int count = test_hits(mesh, fd_v3(0.1, 0.1, 0.1), 0.15, hits, NULL);
        cr_assert_eq(count, 3, "n = %d: %d hits", n, count);
        fd_vec3 sum = fd_v3(0, 0, 0);
        for (int i = 0; i < count; ++i) {
            cr_assert_float_eq(hits[i].gap, 0.1, ROUND_OFF);
            cr_assert_eq(hits[i].feature, FD_WALL_FACE);
            sum = fd_v3_add(sum, hits[i].normal);
        }
        assert_vec_near(sum, fd_v3(1, 1, 1), "the three inward normals");
        /* Touching two faces only. */
        cr_assert_eq(test_hits(mesh, fd_v3(0.1, 0.12, 0.5), 0.15, NULL, NULL), 2);
        fd_mesh_free(mesh);
    }
}

/* For the unit box of n = 1, 2 and 3 subdivisions per edge, the one contact
 * of a sphere at centre (reach 0.2): on that feature, at point, with that gap
 * and normal. */
static void assert_one_contact(fd_vec3 centre, fd_wall_feature feature, fd_vec3 point, double gap, fd_vec3 normal)
{
    for (int n = 1; n <= 3; ++n) {
        fd_mesh* mesh = unit_box(n);
        fd_wall_hit hit = only_hit(mesh, n, centre);
        cr_assert_eq(hit.feature, feature, "n = %d", n);
        assert_vec_near(hit.point, point, "point");
        cr_assert_float_eq(hit.gap, gap, ROUND_OFF, "n = %d", n);
        assert_vec_near(hit.normal, normal, "normal");
        fd_mesh_free(mesh);
    }
}

Test(mesh_ownership, convex_edge_is_one_contact)
{
    /* Beyond the edge x = 1, z = 1 (at y = 0.3, off the subdivisions). */
    const double k = sqrt(0.5);
    assert_one_contact(fd_v3(1.1, 0.3, 1.1), FD_WALL_EDGE, fd_v3(1, 0.3, 1), sqrt(0.02), fd_v3(k, 0, k));
}

Test(mesh_ownership, convex_vertex_is_one_contact)
{
    /* Beyond the corner (1, 1, 0) along (1, 1, -1). */
    const double k = 1.0 / sqrt(3.0);
    assert_one_contact(fd_v3(1.1, 1.1, -0.1), FD_WALL_VERTEX, fd_v3(1, 1, 0), sqrt(0.03), fd_v3(k, k, -k));
}

Test(mesh_ownership, overhanging_an_edge_touches_the_top_only)
{
    for (int n = 1; n <= 3; ++n) {
        fd_mesh* mesh = unit_box(n);
        /* Over the top z = 1, 0.05 inside its edge x = 1: the side x = 1 is
         * within reach (its edge point at sqrt(0.05^2 + 0.1^2) = 0.112) but
         * the top is closer there. */
        fd_wall_hit hit = only_hit(mesh, n, fd_v3(0.95, 0.3, 1.1));
        cr_assert_float_eq(hit.gap, 0.1, ROUND_OFF);
        assert_vec_near(hit.normal, fd_v3(0, 0, 1), "normal of the top");
        cr_assert_eq(hit.feature, FD_WALL_FACE);
        /* Exactly over the edge, and a hair inside it: still one contact.
         * Within sqrt(2 h tolerance) ~ 1e-6 of the edge (h = 0.1 the height,
         * the tolerance 3.5e-12) the side's edge point is as close as the
         * top's to round-off, and the lower patch index (the side's) takes
         * the contact, with a normal tilted by inset / h from the top's and
         * a gap longer by inset^2 / 2h. */
        const double insets[] = {0.0, 1e-9, 1e-7, 1e-5};
        for (int i = 0; i < 4; ++i) {
            hit = only_hit(mesh, n, fd_v3(1.0 - insets[i], 0.3, 1.1));
            cr_assert_float_eq(hit.gap, 0.1, 1e-12, "inset %g", insets[i]);
            cr_assert(fd_v3_distance(hit.normal, fd_v3(0, 0, 1)) <= 2.0 * insets[i] / 0.1 + ROUND_OFF,
                      "inset %g: normal (%g, %g, %g)", insets[i], hit.normal.x, hit.normal.y, hit.normal.z);
        }
        fd_mesh_free(mesh);
    }
}

/* The true answer for a box [0, 1]^3: outside, one contact at the distance
 * to the box (the distance to the clamped point); strictly inside, one per
 * face nearer than reach, at that face's distance. */
static void assert_box_answer(const fd_mesh* mesh, fd_vec3 centre, double reach)
{
    fd_wall_hit hits[MAX_PATCHES];
    int count = test_hits(mesh, centre, reach, hits, NULL);
    fd_vec3 clamped = fd_v3(fmin(1.0, fmax(0.0, centre.x)), fmin(1.0, fmax(0.0, centre.y)),
                            fmin(1.0, fmax(0.0, centre.z)));
    double outside = fd_v3_distance(centre, clamped);
    if (outside > 0.0) {
        int expected = outside < reach;
        cr_assert_eq(count, expected, "outside at (%.17g, %.17g, %.17g), distance %g: %d hits", centre.x, centre.y,
                     centre.z, outside, count);
        if (count == 1) {
            cr_assert_float_eq(hits[0].gap, outside, ROUND_OFF);
            assert_vec_near(hits[0].point, clamped, "point");
        }
        return;
    }
    double faces[6] = {centre.x, 1.0 - centre.x, centre.y, 1.0 - centre.y, centre.z, 1.0 - centre.z};
    int expected = 0;
    for (int f = 0; f < 6; ++f) {
        expected += faces[f] < reach;
    }
    cr_assert_eq(count, expected, "inside at (%.17g, %.17g, %.17g): %d hits, %d faces within reach", centre.x,
                 centre.y, centre.z, count, expected);
    for (int i = 0; i < count; ++i) {
        bool matches = false;
        for (int f = 0; f < 6; ++f) {
            matches = matches || fabs(hits[i].gap - faces[f]) <= ROUND_OFF;
        }
        cr_assert(matches, "inside hit at gap %.17g is no face's distance", hits[i].gap);
        cr_assert_eq(hits[i].feature, FD_WALL_FACE);
    }
}

Test(mesh_ownership, random_centres_round_a_box)
{
    for (int n = 1; n <= 3; n += 2) {
        fd_mesh* mesh = unit_box(n);
        uint64_t state = 2024 + (uint64_t)n;
        for (int sample = 0; sample < 20000; ++sample) {
            fd_vec3 centre = fd_v3(test_uniform(&state, -0.4, 1.4), test_uniform(&state, -0.4, 1.4),
                                   test_uniform(&state, -0.4, 1.4));
            assert_box_answer(mesh, centre, 0.3);
        }
        fd_mesh_free(mesh);
    }
}

/* A lattice that puts centres exactly on the boundaries between the regions
 * (over edges and vertices, on the extended face planes), where the ties are. */
Test(mesh_ownership, lattice_centres_on_region_boundaries)
{
    const double values[] = {-0.25, -0.125, 0.0, 0.125, 0.5, 0.875, 1.0, 1.125, 1.25};
    for (int n = 1; n <= 2; ++n) {
        fd_mesh* mesh = unit_box(n);
        int checked = 0;
        for (int i = 0; i < 9; ++i) {
            for (int j = 0; j < 9; ++j) {
                for (int k = 0; k < 9; ++k) {
                    fd_vec3 centre = fd_v3(values[i], values[j], values[k]);
                    bool inside = centre.x >= 0 && centre.x <= 1 && centre.y >= 0 && centre.y <= 1 &&
                                  centre.z >= 0 && centre.z <= 1;
                    bool on_surface = inside && (centre.x == 0 || centre.x == 1 || centre.y == 0 || centre.y == 1 ||
                                                 centre.z == 0 || centre.z == 1);
                    if (on_surface) {
                        continue; /* inside and outside at once: no single answer */
                    }
                    assert_box_answer(mesh, centre, 0.3);
                    ++checked;
                }
            }
        }
        cr_assert_gt(checked, 500);
        fd_mesh_free(mesh);
    }
}

/* A capped prism of 64 facets (radius 1, z in [-1, 1]): three patches, convex.
 * Outside, exactly one contact at the brute-force distance; inside, the side
 * (at the nearest facet plane) and each cap within reach. */
Test(mesh_ownership, random_centres_round_a_faceted_cylinder)
{
    const int sides = 64;
    test_mesh m = {0};
    test_mesh_cylinder(&m, 1.0, 1.0, sides);
    fd_mesh* mesh = test_mesh_build(&m, 30.0 * MESH_PI / 180.0);
    test_mesh_release(&m);
    cr_assert_eq(fd_mesh_patch_count(mesh), 3);
    double apothem = cos(MESH_PI / sides);
    uint64_t state = 31337;
    int inside_count = 0, outside_count = 0;
    for (int sample = 0; sample < 6000; ++sample) {
        fd_vec3 centre = fd_v3(test_uniform(&state, -1.3, 1.3), test_uniform(&state, -1.3, 1.3),
                               test_uniform(&state, -1.3, 1.3));
        const double reach = 0.25;
        /* Signed distances to the facet planes (facet k between the vertices
         * at angles 2 pi k / sides and 2 pi (k + 1) / sides). */
        double side_distance = INFINITY;
        bool inside = fabs(centre.z) < 1.0;
        for (int k = 0; k < sides; ++k) {
            double angle = 2.0 * MESH_PI * (k + 0.5) / sides;
            double plane = apothem - (centre.x * cos(angle) + centre.y * sin(angle));
            inside = inside && plane > 0.0;
            side_distance = fmin(side_distance, plane);
        }
        fd_wall_hit hits[MAX_PATCHES];
        int count = test_hits(mesh, centre, reach, hits, NULL);
        if (!inside) {
            double distance = oracle_patch_distance(mesh, -1, centre);
            if (fabs(distance - reach) < 1e-12) {
                continue;
            }
            cr_assert_eq(count, distance < reach, "outside at (%g, %g, %g), distance %g: %d hits", centre.x, centre.y,
                         centre.z, distance, count);
            if (count == 1) {
                cr_assert_float_eq(hits[0].gap, distance, ROUND_OFF);
            }
            outside_count += count;
            continue;
        }
        double top = 1.0 - centre.z, bottom = 1.0 + centre.z;
        int expected = (side_distance < reach) + (top < reach) + (bottom < reach);
        cr_assert_eq(count, expected, "inside at (%g, %g, %g): %d hits, expected %d", centre.x, centre.y, centre.z,
                     count, expected);
        for (int i = 0; i < count; ++i) {
            bool matches = fabs(hits[i].gap - side_distance) <= ROUND_OFF || fabs(hits[i].gap - top) <= ROUND_OFF ||
                           fabs(hits[i].gap - bottom) <= ROUND_OFF;
            cr_assert(matches, "inside hit at gap %.17g", hits[i].gap);
        }
        inside_count += count;
    }
    cr_assert_gt(inside_count, 300);
    cr_assert_gt(outside_count, 300);
    fd_mesh_free(mesh);
}

static double steep_bumps(double x, double y, uint64_t* state)
{
    return 0.15 * sin(4.0 * x + 1.0) * cos(3.0 * y) + 0.02 * test_uniform(state, -1, 1);
}

/* Every triangle its own patch (feature angle 0) on a bumpy surface, with
 * convex and concave edges everywhere: the ownership rule may drop contacts,
 * but never the nearest one (some patch reports a hit at the true distance). */
Test(mesh_ownership, nearest_contact_is_never_dropped)
{
    const int n = 12;
    test_mesh m = {0};
    uint64_t state = 4242;
    test_mesh_height_field(&m, n, steep_bumps, &state, 0, 2);
    fd_mesh* mesh = test_mesh_build(&m, 0.0);
    test_mesh_release(&m);
    cr_assert_eq(fd_mesh_patch_count(mesh), 2 * n * n);
    int patch_count = fd_mesh_patch_count(mesh);
    fd_wall_hit* hits = malloc((size_t)patch_count * sizeof *hits);
    cr_assert_not_null(hits);
    int multiple = 0;
    for (int sample = 0; sample < 400; ++sample) {
        fd_vec3 centre = fd_v3(test_uniform(&state, -0.9, 0.9), test_uniform(&state, -0.9, 0.9),
                               test_uniform(&state, -0.4, 0.4));
        double nearest = oracle_patch_distance(mesh, -1, centre);
        double reach = nearest + 0.1;
        int count = test_hits(mesh, centre, reach, hits, NULL);
        double best = INFINITY;
        for (int i = 0; i < count; ++i) {
            best = fmin(best, hits[i].gap);
        }
        /* A tie passes the contact to a patch as close to the mesh's
         * tolerance (4e-12 here), possibly along a short chain: 1e-10. */
        cr_assert_float_eq(best, nearest, 1e-10, "centre (%g, %g, %g): nearest reported %g, true %g", centre.x,
                           centre.y, centre.z, best, nearest);
        multiple += count > 1;
    }
    cr_assert_gt(multiple, 10, "the samples must also see several contacts (concave places)");
    free(hits);
    fd_mesh_free(mesh);
}
