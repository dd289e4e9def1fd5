/* Primitive walls (src/collide/wall_primitives.c) against closed forms: the
 * cylindrical shell from inside and outside, its rims capped and uncapped,
 * and the disk and annulus with their rims.
 *
 * The closed forms: a centre at distance rho from the axis is at distance
 * |rho - R| from a shell (when |z| <= L/2), along the radial direction; beyond
 * a rim the closest point is the rim point in the centre's half-plane through
 * the axis, and the distance is the 2-D one in (rho, z). The numbers are
 * chosen so that these are exact or nearly (3-4-5 triangles).
 *
 * Tolerance: each quantity is a few floating-point operations on numbers of
 * order 1 (a square root, a division), so its error is a few ulps, below
 * 1e-15; 1e-14 leaves room for the order of the operations. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "collide/walls.h"

#define ROUND_OFF 1e-14 /* absolute, for quantities of order 1; see the top comment */

static void assert_near(double actual, double expected, const char* what)
{
    cr_assert(fabs(actual - expected) <= ROUND_OFF, "%s: got %.17g, expected %.17g", what, actual, expected);
}

static void assert_vec_near(fd_vec3 actual, fd_vec3 expected, const char* what)
{
    cr_assert(fd_v3_distance(actual, expected) <= ROUND_OFF, "%s: got (%.17g, %.17g, %.17g), expected (%g, %g, %g)",
              what, actual.x, actual.y, actual.z, expected.x, expected.y, expected.z);
}

/* What every hit must satisfy whatever the surface: a unit normal from the
 * point to the centre, the gap their distance, and principal directions that
 * are unit, orthogonal to each other and tangent (orthogonal to the normal). */
static void assert_consistent(const fd_wall_hit* hit, fd_vec3 centre)
{
    assert_near(fd_v3_length(hit->normal), 1.0, "|normal|");
    assert_near(hit->gap, fd_v3_distance(centre, hit->point), "gap = |centre - point|");
    assert_vec_near(fd_v3_mul_add(hit->point, hit->gap, hit->normal), centre, "point + gap normal = centre");
    for (int k = 0; k < 2; ++k) {
        assert_near(fd_v3_length(hit->principal_dir[k]), 1.0, "|principal direction|");
        assert_near(fd_v3_dot(hit->principal_dir[k], hit->normal), 0.0, "principal direction . normal");
    }
    assert_near(fd_v3_dot(hit->principal_dir[0], hit->principal_dir[1]), 0.0, "principal directions orthogonal");
    cr_assert_eq(hit->triangle, -1, "a primitive has no triangle");
}

/* A hit consistent with the centre (assert_consistent) at the closed form's
 * point, normal and gap; `where` names the point in the messages. */
static void assert_hit(const fd_wall_hit* hit, fd_vec3 centre, fd_vec3 point, fd_vec3 normal, double gap,
                       const char* where)
{
    char what[3][64];
    snprintf(what[0], sizeof what[0], "%s point", where);
    snprintf(what[1], sizeof what[1], "%s normal", where);
    snprintf(what[2], sizeof what[2], "%s gap", where);
    assert_consistent(hit, centre);
    assert_vec_near(hit->point, point, what[0]);
    assert_vec_near(hit->normal, normal, what[1]);
    assert_near(hit->gap, gap, what[2]);
}

/* ---------------------------------------------------------------- cylinder */

Test(walls, cylinder_inside_is_concave)
{
    /* Drum of radius 2: centre at rho = 1.5 (0.9, 1.2), so gap 0.5 towards the
     * wall point 2 (0.6, 0.8) and normal -(0.6, 0.8) back to the axis. */
    fd_vec3 centre = fd_v3(0.9, 1.2, 0.3);
    fd_wall_hit hit;
    cr_assert(fd_cylinder_closest(2.0, 4.0, true, centre, 0.6, &hit));
    assert_hit(&hit, centre, fd_v3(1.2, 1.6, 0.3), fd_v3(-0.6, -0.8, 0.0), 0.5, "shell");
    assert_near(hit.curvature[0], -0.5, "curvature around the axis (concave: -1/R)");
    assert_near(hit.curvature[1], 0.0, "curvature along the axis");
    assert_vec_near(hit.principal_dir[1], fd_v3(0, 0, 1), "along the axis");
    cr_assert_eq(hit.feature, FD_WALL_FACE);
}

Test(walls, cylinder_outside_is_convex)
{
    /* rho = 5 (3, -4): gap 3 from the shell of radius 2, normal (0.6, -0.8). */
    fd_vec3 centre = fd_v3(3.0, -4.0, -1.0);
    fd_wall_hit hit;
    cr_assert(fd_cylinder_closest(2.0, 4.0, false, centre, 3.5, &hit));
    assert_consistent(&hit, centre);
    assert_near(hit.gap, 3.0, "gap");
    assert_vec_near(hit.normal, fd_v3(0.6, -0.8, 0.0), "normal");
    assert_near(hit.curvature[0], 0.5, "curvature around the axis (convex: +1/R)");
    assert_near(hit.curvature[1], 0.0, "curvature along the axis");
    cr_assert_eq(hit.feature, FD_WALL_FACE);
}

Test(walls, cylinder_reach_is_strict)
{
    fd_vec3 centre = fd_v3(3.0, -4.0, 0.0); /* gap exactly 3 */
    fd_wall_hit hit;
    cr_assert_not(fd_cylinder_closest(2.0, 4.0, false, centre, 3.0, &hit), "gap = reach is no hit");
    cr_assert(fd_cylinder_closest(2.0, 4.0, false, centre, nextafter(3.0, 4.0), &hit));
}

Test(walls, cylinder_centre_on_axis_takes_plus_x)
{
    fd_vec3 centre = fd_v3(0.0, 0.0, 0.5);
    fd_wall_hit hit;
    cr_assert(fd_cylinder_closest(2.0, 4.0, true, centre, 2.5, &hit));
    assert_hit(&hit, centre, fd_v3(2.0, 0.0, 0.5), fd_v3(-1.0, 0.0, 0.0), 2.0, "shell");
}

Test(walls, uncapped_rim_is_a_sharp_edge)
{
    /* Above the rim z = 2 of a shell of radius 2: centre rho = 2.3, z = 2.4,
     * offset (0.3, 0.4) in (rho, z) from the rim point: gap 0.5. */
    fd_vec3 centre = fd_v3(2.3, 0.0, 2.4);
    fd_wall_hit hit;
    cr_assert(fd_cylinder_closest(2.0, 4.0, false, centre, 1.0, &hit));
    assert_hit(&hit, centre, fd_v3(2.0, 0.0, 2.0), fd_v3(0.6, 0.0, 0.8), 0.5, "rim");
    assert_near(hit.curvature[0], 0.0, "rim curvature");
    assert_near(hit.curvature[1], 0.0, "rim curvature");
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
    /* Below the lower rim, inside: the rim point at z = -2. */
    centre = fd_v3(0.0, -1.7, -2.4);
    cr_assert(fd_cylinder_closest(2.0, 4.0, false, centre, 1.0, &hit));
    assert_consistent(&hit, centre);
    assert_vec_near(hit.point, fd_v3(0.0, -2.0, -2.0), "lower rim point");
    assert_near(hit.gap, 0.5, "gap");
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
}

Test(walls, capped_rim_belongs_to_the_cap)
{
    fd_wall_hit hit;
    cr_assert_not(fd_cylinder_closest(2.0, 4.0, true, fd_v3(2.3, 0.0, 2.4), 1.0, &hit), "beyond the rim, outside");
    cr_assert_not(fd_cylinder_closest(2.0, 4.0, true, fd_v3(1.7, 0.0, -2.1), 1.0, &hit), "beyond the rim, inside");
    cr_assert_not(fd_cylinder_closest(2.0, 4.0, true, fd_v3(1.7, 0.0, 2.0), 1.0, &hit), "in the rim's plane");
    /* Just inside the rim plane the shell is the contact. */
    cr_assert(fd_cylinder_closest(2.0, 4.0, true, fd_v3(1.7, 0.0, 1.9), 1.0, &hit));
    assert_near(hit.gap, 0.3, "gap");
    cr_assert_eq(hit.feature, FD_WALL_FACE);
}

/* ---------------------------------------------------------------- disk */

Test(walls, disk_interior_both_sides)
{
    fd_wall_hit hit;
    fd_vec3 above = fd_v3(0.3, -0.4, 0.25);
    cr_assert(fd_disk_closest(0.0, 1.0, above, 0.3, &hit));
    assert_hit(&hit, above, fd_v3(0.3, -0.4, 0.0), fd_v3(0, 0, 1), 0.25, "above:");
    assert_near(hit.curvature[0], 0.0, "flat");
    assert_near(hit.curvature[1], 0.0, "flat");
    cr_assert_eq(hit.feature, FD_WALL_FACE);
    fd_vec3 below = fd_v3(0.0, 0.0, -0.25); /* on the axis of a full disk: a face point */
    cr_assert(fd_disk_closest(0.0, 1.0, below, 0.3, &hit));
    assert_consistent(&hit, below);
    assert_vec_near(hit.normal, fd_v3(0, 0, -1), "normal below");
    cr_assert_eq(hit.feature, FD_WALL_FACE);
    cr_assert_not(fd_disk_closest(0.0, 1.0, below, 0.25, &hit), "gap = reach is no hit");
}

Test(walls, annulus_hole_rim)
{
    /* Hole of radius 0.5: centre at rho = 0.2 (0.12, 0.16), z = 0.4: the
     * rim point 0.5 (0.6, 0.8) = (0.3, 0.4, 0), offset (-0.18, -0.24, 0.4),
     * gap sqrt(0.09 + 0.16) = 0.5. */
    fd_vec3 centre = fd_v3(0.12, 0.16, 0.4);
    fd_wall_hit hit;
    cr_assert(fd_disk_closest(0.5, 1.0, centre, 0.6, &hit));
    assert_hit(&hit, centre, fd_v3(0.3, 0.4, 0.0), fd_v3(-0.36, -0.48, 0.8), 0.5, "hole rim");
    assert_near(hit.curvature[0], 0.0, "sharp rim");
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
    /* In the annulus itself: a face. */
    cr_assert(fd_disk_closest(0.5, 1.0, fd_v3(0.0, 0.7, -0.1), 0.6, &hit));
    cr_assert_eq(hit.feature, FD_WALL_FACE);
    assert_near(hit.gap, 0.1, "gap over the annulus");
}

Test(walls, disk_outer_rim)
{
    /* Outer radius 1: centre at rho = 1.3 on -y, z = -0.4: rim point (0, -1, 0),
     * offset (0, -0.3, -0.4), gap 0.5. */
    fd_vec3 centre = fd_v3(0.0, -1.3, -0.4);
    fd_wall_hit hit;
    cr_assert(fd_disk_closest(0.5, 1.0, centre, 0.6, &hit));
    assert_hit(&hit, centre, fd_v3(0.0, -1.0, 0.0), fd_v3(0.0, -0.6, -0.8), 0.5, "outer rim");
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
    cr_assert_not(fd_disk_closest(0.5, 1.0, centre, 0.5, &hit), "gap = reach is no hit");
    cr_assert_not(fd_disk_closest(0.5, 1.0, fd_v3(0.0, -1.45, 0.0), 0.4, &hit), "in plane, beyond reach");
}

Test(walls, disk_centre_on_rim_in_plane_takes_plus_z)
{
    fd_wall_hit hit;
    cr_assert(fd_disk_closest(0.0, 1.0, fd_v3(0.0, 1.0, 0.0), 0.1, &hit));
    assert_near(hit.gap, 0.0, "gap");
    assert_vec_near(hit.normal, fd_v3(0, 0, 1), "normal");
    /* Just beyond the rim in the plane: the normal is radial. */
    fd_vec3 centre = fd_v3(0.0, 1.25, 0.0);
    cr_assert(fd_disk_closest(0.0, 1.0, centre, 0.3, &hit));
    assert_consistent(&hit, centre);
    assert_vec_near(hit.normal, fd_v3(0, 1, 0), "normal");
    cr_assert_eq(hit.feature, FD_WALL_EDGE);
}
