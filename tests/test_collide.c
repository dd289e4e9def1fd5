/* Shapes, mass properties and the narrow phase against closed forms.
 *
 * Every contact is checked twice:
 *   - against the closed form of its configuration (penetration, normal,
 *     points, curvatures, effective radius), built so that the answer is
 *     known: e.g. a sphere centre placed on the normal line of a chosen
 *     ellipsoid surface point, whose closest point is then that point;
 *   - against the invariants every contact must satisfy (check_contact):
 *     unit normal into body i, point_j - point_i = penetration * normal,
 *     each point on its own surface with outward normal -normal (body i) or
 *     +normal (body j), local points that map back to the world points
 *     through the poses, principal frames orthonormal, tangent and
 *     right-handed, and the pair in the other order giving the same contact
 *     with the surfaces swapped and the normal negated.
 *
 * Tolerances. Closed forms for spheres, planes and the ellipsoid support
 * point are a few operations deep: relative error a few ulps (~1e-15); we
 * allow 1e-12 of the problem's length scale (three orders of margin for
 * the different order of operations and the rotations). The closest point
 * on an ellipsoid is iterative, but the bisection runs until no double lies
 * between its bracket ends, so the root is exact to 1 ulp and the point is
 * the same few-ulp computation after it; the same 1e-12 of the scale holds
 * (observed errors are ~1e-16). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "collide/collide.h"

#define ROUND_OFF 1e-12 /* relative to the problem's length scale; see the top comment */
#define PI 3.14159265358979323846 /* M_PI is not in strict C17 */

/* ---------------------------------------------------------------- helpers */

static void assert_close(double actual, double expected, double tolerance, const char* what)
{
    cr_assert(fabs(actual - expected) <= tolerance, "%s: got %.17g, expected %.17g (tolerance %.3g)", what, actual,
              expected, tolerance);
}

static void assert_vec_close(fd_vec3 actual, fd_vec3 expected, double tolerance, const char* what)
{
    cr_assert(fd_v3_distance(actual, expected) <= tolerance,
              "%s: got (%.17g, %.17g, %.17g), expected (%.17g, %.17g, %.17g) (tolerance %.3g)", what, actual.x,
              actual.y, actual.z, expected.x, expected.y, expected.z, tolerance);
}

/* v is +-expected (principal directions have no sign). */
static void assert_axis(fd_vec3 v, fd_vec3 expected, const char* what)
{
    double s = fd_v3_dot(v, expected) < 0.0 ? -1.0 : 1.0;
    assert_vec_close(fd_v3_scale(s, v), expected, ROUND_OFF, what);
}

/* The shape of a definition the tests know to be valid. */
static fd_shape make_shape(fd_shape_def def)
{
    fd_shape shape;
    char message[256];
    cr_assert(fd_shape_init(&shape, &def, message, sizeof message), "%s", message);
    return shape;
}

static fd_shape make_sphere(double radius)
{
    return make_shape((fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = radius});
}

static fd_shape make_ellipsoid(double a, double b, double c)
{
    return make_shape((fd_shape_def){.type = FD_SHAPE_ELLIPSOID, .semi_axes = {a, b, c}});
}

static fd_shape make_plane(fd_vec3 normal)
{
    return make_shape((fd_shape_def){.type = FD_SHAPE_PLANE, .plane_normal = normal});
}

static fd_pose make_pose(fd_vec3 position, fd_vec3 axis, double angle)
{
    return (fd_pose){position, fd_quat_from_axis_angle(fd_v3_normalize(axis), angle)};
}

static fd_pose unrotated(fd_vec3 position) { return (fd_pose){position, fd_quat_identity()}; }

static fd_vec3 to_world(fd_pose pose, fd_vec3 local)
{
    return fd_v3_add(pose.position, fd_quat_rotate(pose.orientation, local));
}

static fd_vec3 ellipsoid_gradient(fd_vec3 e, fd_vec3 p) /* D p */
{
    return fd_v3(p.x / (e.x * e.x), p.y / (e.y * e.y), p.z / (e.z * e.z));
}

/* How far p is from the surface (length units, signed: > 0 outside) and the
 * outward unit normal there, from each shape's own definition. */
static double surface_offset(const fd_shape* shape, fd_pose pose, fd_vec3 p, fd_vec3* outward)
{
    fd_vec3 local = fd_quat_rotate_inverse(pose.orientation, fd_v3_sub(p, pose.position));
    switch (shape->type) {
    case FD_SHAPE_SPHERE:
        *outward = fd_v3_normalize(fd_v3_sub(p, pose.position));
        return fd_v3_length(local) - shape->radius;
    case FD_SHAPE_PLANE:
        *outward = fd_quat_rotate(pose.orientation, shape->plane_normal);
        return fd_v3_dot(local, shape->plane_normal);
    case FD_SHAPE_ELLIPSOID: {
        fd_vec3 e = shape->semi_axes;
        *outward = fd_quat_rotate(pose.orientation, fd_v3_normalize(ellipsoid_gradient(e, local)));
        /* Level value L = sqrt(p^T D p) - 1; near the surface the distance is
         * L / |grad L| with |grad L| >= 1/e_max, so L e_max bounds it from above. */
        double level = sqrt(local.x * local.x / (e.x * e.x) + local.y * local.y / (e.y * e.y) +
                            local.z * local.z / (e.z * e.z));
        return (level - 1.0) * fmax(e.x, fmax(e.y, e.z));
    }
    default: /* the finite walls have tests of their own (test_walls.c, test_wall_contacts.c) */
        cr_assert_fail("surface_offset: shape %d", (int)shape->type);
    }
    return NAN;
}

static void check_surface_frame(const double k[2], const fd_vec3 d[2], fd_vec3 outward, const char* which)
{
    cr_assert(k[0] >= k[1], "%s: curvature[0] %.17g < curvature[1] %.17g", which, k[0], k[1]);
    cr_assert(k[1] >= 0.0, "%s: convex shapes have curvature >= 0", which);
    assert_close(fd_v3_length(d[0]), 1.0, ROUND_OFF, "principal direction 0 unit");
    assert_close(fd_v3_length(d[1]), 1.0, ROUND_OFF, "principal direction 1 unit");
    assert_close(fd_v3_dot(d[0], d[1]), 0.0, ROUND_OFF, "principal directions orthogonal");
    assert_close(fd_v3_dot(d[0], outward), 0.0, ROUND_OFF, "principal direction 0 tangent");
    assert_close(fd_v3_dot(d[1], outward), 0.0, ROUND_OFF, "principal direction 1 tangent");
    assert_vec_close(fd_v3_cross(d[0], d[1]), outward, ROUND_OFF, "(d0, d1, outward normal) right-handed");
}

/* The invariants of every contact (top comment); scale = the length scale of
 * the configuration. Also runs the pair in the other order and checks that
 * it is the same contact seen from the other side. */
static void check_contact(const fd_contact_geometry* g, const fd_shape* shape_i, fd_pose pose_i,
                          const fd_shape* shape_j, fd_pose pose_j, double margin, double scale)
{
    double tolerance = ROUND_OFF * scale;
    assert_close(fd_v3_length(g->normal), 1.0, ROUND_OFF, "|normal|");
    assert_vec_close(fd_v3_sub(g->point_j, g->point_i), fd_v3_scale(g->penetration, g->normal), tolerance,
                     "point_j - point_i = penetration * normal");
    cr_assert(g->penetration > -margin, "touching means penetration %.17g > -margin %.17g", g->penetration, margin);

    fd_vec3 outward_i, outward_j;
    assert_close(surface_offset(shape_i, pose_i, g->point_i, &outward_i), 0.0, tolerance, "point_i on surface i");
    assert_close(surface_offset(shape_j, pose_j, g->point_j, &outward_j), 0.0, tolerance, "point_j on surface j");
    assert_vec_close(outward_i, fd_v3_neg(g->normal), ROUND_OFF, "normal points into body i");
    assert_vec_close(outward_j, g->normal, ROUND_OFF, "normal points out of body j");

    assert_vec_close(to_world(pose_i, g->local_point_i), g->point_i, tolerance, "local_point_i maps to point_i");
    assert_vec_close(to_world(pose_j, g->local_point_j), g->point_j, tolerance, "local_point_j maps to point_j");

    check_surface_frame(g->curvature_i, g->principal_dir_i, fd_v3_neg(g->normal), "surface i");
    check_surface_frame(g->curvature_j, g->principal_dir_j, g->normal, "surface j");
    cr_assert(g->effective_radius ==
                  fd_effective_radius(g->curvature_i, g->principal_dir_i, g->curvature_j, g->principal_dir_j),
              "effective_radius is that of the reported curvatures");

    /* The other order: same contact, surfaces swapped, normal negated. */
    fd_contact_geometry h;
    cr_assert_eq(fd_collide(shape_j, pose_j, shape_i, pose_i, margin, &h), FD_COLLIDE_TOUCHING, "other order");
    assert_vec_close(h.point_i, g->point_j, tolerance, "swapped point_i");
    assert_vec_close(h.point_j, g->point_i, tolerance, "swapped point_j");
    assert_vec_close(h.local_point_i, g->local_point_j, tolerance, "swapped local_point_i");
    assert_vec_close(h.local_point_j, g->local_point_i, tolerance, "swapped local_point_j");
    assert_vec_close(h.normal, fd_v3_neg(g->normal), ROUND_OFF, "swapped normal");
    assert_close(h.penetration, g->penetration, tolerance, "swapped penetration");
    for (int k = 0; k < 2; ++k) {
        assert_close(h.curvature_i[k], g->curvature_j[k], ROUND_OFF / scale, "swapped curvature_i");
        assert_close(h.curvature_j[k], g->curvature_i[k], ROUND_OFF / scale, "swapped curvature_j");
        assert_vec_close(h.principal_dir_i[k], g->principal_dir_j[k], ROUND_OFF, "swapped principal_dir_i");
        assert_vec_close(h.principal_dir_j[k], g->principal_dir_i[k], ROUND_OFF, "swapped principal_dir_j");
    }
    if (isinf(g->effective_radius)) {
        cr_assert(isinf(h.effective_radius), "swapped effective radius");
    } else {
        assert_close(h.effective_radius, g->effective_radius, ROUND_OFF * g->effective_radius,
                     "swapped effective radius");
    }
}

/* fd_collide that must report a touching contact, then the invariants. */
static fd_contact_geometry touching(const fd_shape* shape_i, fd_pose pose_i, const fd_shape* shape_j, fd_pose pose_j,
                                   double margin, double scale)
{
    fd_contact_geometry g;
    memset(&g, 0xff, sizeof g); /* NaN everywhere: every field must be written */
    cr_assert_eq(fd_collide(shape_i, pose_i, shape_j, pose_j, margin, &g), FD_COLLIDE_TOUCHING, "expected a contact");
    check_contact(&g, shape_i, pose_i, shape_j, pose_j, margin, scale);
    return g;
}

/* fd_collide that must report the given result and leave the geometry alone. */
static void not_touching(const fd_shape* shape_i, fd_pose pose_i, const fd_shape* shape_j, fd_pose pose_j,
                         double margin, fd_collide_result expected)
{
    for (int order = 0; order < 2; ++order) {
        fd_contact_geometry g, before;
        memset(&g, 0x5a, sizeof g);
        before = g;
        fd_collide_result result = order == 0 ? fd_collide(shape_i, pose_i, shape_j, pose_j, margin, &g)
                                              : fd_collide(shape_j, pose_j, shape_i, pose_i, margin, &g);
        cr_assert_eq(result, expected, "order %d: result %d, expected %d", order, (int)result, (int)expected);
        cr_assert(memcmp(&g, &before, sizeof g) == 0, "geometry written without a contact");
    }
}

/* Ellipsoid point at polar angle theta (from +z) and azimuth phi, body frame. */
static fd_vec3 ellipsoid_point(fd_vec3 e, double theta, double phi)
{
    return fd_v3(e.x * sin(theta) * cos(phi), e.y * sin(theta) * sin(phi), e.z * cos(theta));
}

/* Closed-form Gaussian and mean curvature of an ellipsoid at a surface point
 * (see tests/test_curvature.c for the source). */
static void gauss_mean(fd_vec3 e, fd_vec3 p, double* gauss, double* mean)
{
    fd_vec3 g = ellipsoid_gradient(e, p);
    double g2 = fd_v3_length_squared(g);
    double abc2 = e.x * e.x * e.y * e.y * e.z * e.z;
    *gauss = 1.0 / (abc2 * g2 * g2);
    *mean = (e.x * e.x + e.y * e.y + e.z * e.z - fd_v3_length_squared(p)) / (2.0 * abc2 * g2 * sqrt(g2));
}

/* ---------------------------------------------------------------- shapes */

Test(shape, init_valid_shapes)
{
    char message[128] = "";
    fd_shape shape;
    fd_shape_def def = {.type = FD_SHAPE_SPHERE, .radius = 0.25};
    cr_assert(fd_shape_init(&shape, &def, message, sizeof message));
    cr_assert_eq(shape.type, FD_SHAPE_SPHERE);
    cr_assert_eq(shape.radius, 0.25);
    cr_assert_eq(shape.bounding_radius, 0.25);

    def = (fd_shape_def){.type = FD_SHAPE_ELLIPSOID, .semi_axes = {0.1, 0.4, 0.2}};
    cr_assert(fd_shape_init(&shape, &def, message, sizeof message));
    cr_assert_eq(shape.bounding_radius, 0.4, "bounding radius = largest semi-axis");

    /* The plane normal is normalised: (3, 0, 4) / 5. */
    def = (fd_shape_def){.type = FD_SHAPE_PLANE, .plane_normal = {3, 0, 4}};
    cr_assert(fd_shape_init(&shape, &def, message, sizeof message));
    assert_vec_close(shape.plane_normal, fd_v3(0.6, 0, 0.8), 1e-15, "normalised plane normal");
    cr_assert(isinf(shape.bounding_radius) && shape.bounding_radius > 0, "plane bounding radius infinite");
}

static void expect_invalid(fd_shape_def def, const char* field)
{
    char message[128] = "";
    fd_shape shape = {.type = FD_SHAPE_SPHERE, .radius = 42.0};
    cr_assert_not(fd_shape_init(&shape, &def, message, sizeof message), "should reject %s", field);
    cr_assert(strstr(message, field) != NULL, "message \"%s\" should name %s", message, field);
    cr_assert_eq(shape.radius, 42.0, "shape untouched on error");
    /* No buffer: still fails, does not crash. */
    cr_assert_not(fd_shape_init(&shape, &def, NULL, 0));
    /* A short buffer is truncated, not overrun. */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    cr_assert_not(fd_shape_init(&shape, &def, tiny, 4));
    cr_assert_eq(tiny[3], '\0');
    cr_assert_eq(tiny[4], 'x');
}

Test(shape, init_rejects_bad_defs)
{
    expect_invalid((fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = -1.0}, "shape.radius");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = 0.0}, "shape.radius");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = NAN}, "shape.radius");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = INFINITY}, "shape.radius");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_ELLIPSOID, .semi_axes = {1, 0, 1}}, "shape.semi_axes.y");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_ELLIPSOID, .semi_axes = {-1, 1, 1}}, "shape.semi_axes.x");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_ELLIPSOID, .semi_axes = {1, 1, NAN}}, "shape.semi_axes.z");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_PLANE, .plane_normal = {0, 0, 0}}, "shape.plane_normal");
    expect_invalid((fd_shape_def){.type = FD_SHAPE_PLANE, .plane_normal = {0, NAN, 1}}, "shape.plane_normal");
    expect_invalid((fd_shape_def){.type = (fd_shape_type)7, .radius = 1.0}, "shape.type");

    char message[128];
    fd_shape shape;
    fd_shape_def def = {.type = FD_SHAPE_SPHERE, .radius = -1.0};
    fd_shape_init(&shape, &def, message, sizeof message);
    cr_assert(strstr(message, "(got -1)") != NULL, "message \"%s\" should give the value", message);
}

Test(shape, mass_properties)
{
    /* Volumes 4/3 pi R^3 and 4/3 pi a b c; inertia per unit mass 2R^2/5 and
     * ((b^2 + c^2)/5, (a^2 + c^2)/5, (a^2 + b^2)/5); plane 0. */
    fd_shape sphere = make_sphere(0.5);
    assert_close(fd_shape_volume(&sphere), 4.0 / 3.0 * PI * 0.125, 1e-15, "sphere volume");
    assert_vec_close(fd_shape_unit_inertia(&sphere), fd_v3(0.1, 0.1, 0.1), 1e-16, "sphere unit inertia");

    fd_shape ellipsoid = make_ellipsoid(1.0, 2.0, 3.0);
    assert_close(fd_shape_volume(&ellipsoid), 8.0 * PI, 1e-14, "ellipsoid volume");
    assert_vec_close(fd_shape_unit_inertia(&ellipsoid), fd_v3(13.0 / 5.0, 10.0 / 5.0, 5.0 / 5.0), 1e-15,
                     "ellipsoid unit inertia");

    /* An ellipsoid with equal axes is the sphere. */
    fd_shape round = make_ellipsoid(0.5, 0.5, 0.5);
    assert_close(fd_shape_volume(&round), fd_shape_volume(&sphere), 1e-15, "round ellipsoid volume");
    assert_vec_close(fd_shape_unit_inertia(&round), fd_shape_unit_inertia(&sphere), 1e-16, "round inertia");

    fd_shape plane = make_plane(fd_v3(0, 0, 1));
    cr_assert_eq(fd_shape_volume(&plane), 0.0);
    assert_vec_close(fd_shape_unit_inertia(&plane), fd_v3(0, 0, 0), 0.0, "plane unit inertia");
}

/* ---------------------------------------------------------------- sphere-sphere */

Test(sphere_sphere, overlap_both_orders)
{
    /* Centres c_i and c_j = c_i + d u: the normal into i is -u, the
     * penetration R_i + R_j - d, the points c_i + R_i u and c_j - R_j u. */
    fd_shape si = make_sphere(0.5), sj = make_sphere(0.25);
    fd_vec3 u = fd_v3_normalize(fd_v3(1, -2, 0.5));
    fd_pose pi = make_pose(fd_v3(0.1, 0.2, 0.3), fd_v3(1, 1, 0), 0.8);
    fd_pose pj = make_pose(fd_v3_mul_add(pi.position, 0.7, u), fd_v3(0, 1, 3), -2.0);
    fd_contact_geometry g = touching(&si, pi, &sj, pj, 0.0, 1.0);
    assert_close(g.penetration, 0.05, ROUND_OFF, "R_i + R_j - d");
    assert_vec_close(g.normal, fd_v3_neg(u), ROUND_OFF, "normal into i");
    assert_vec_close(g.point_i, fd_v3_mul_add(pi.position, 0.5, u), ROUND_OFF, "point_i");
    assert_vec_close(g.point_j, fd_v3_mul_add(pj.position, -0.25, u), ROUND_OFF, "point_j");
    /* The local points depend on the orientation: |local| = R, direction
     * R^T u in each body frame. */
    assert_vec_close(g.local_point_i, fd_quat_rotate_inverse(pi.orientation, fd_v3_scale(0.5, u)), ROUND_OFF,
                     "local_point_i");
    assert_vec_close(g.local_point_j, fd_quat_rotate_inverse(pj.orientation, fd_v3_scale(-0.25, u)), ROUND_OFF,
                     "local_point_j");
    assert_close(g.curvature_i[0], 2.0, ROUND_OFF, "1/R_i");
    assert_close(g.curvature_i[1], 2.0, ROUND_OFF, "1/R_i");
    assert_close(g.curvature_j[0], 4.0, ROUND_OFF, "1/R_j");
    assert_close(g.curvature_j[1], 4.0, ROUND_OFF, "1/R_j");
    assert_close(g.effective_radius, 0.5 * 0.25 / 0.75, ROUND_OFF, "R_i R_j / (R_i + R_j)");

    /* Same pair with i and j exchanged: the normal turns round. */
    fd_contact_geometry h = touching(&sj, pj, &si, pi, 0.0, 1.0);
    assert_vec_close(h.normal, u, ROUND_OFF, "normal into the other body i");
}

Test(sphere_sphere, separated_and_margin)
{
    /* Exactly representable: radii 0.5 and 0.25, centres 1 apart, gap 0.25. */
    fd_shape si = make_sphere(0.5), sj = make_sphere(0.25);
    fd_pose pi = unrotated(fd_v3(0, 0, 0)), pj = unrotated(fd_v3(1, 0, 0));
    not_touching(&si, pi, &sj, pj, 0.0, FD_COLLIDE_SEPARATED);
    not_touching(&si, pi, &sj, pj, 0.2, FD_COLLIDE_SEPARATED);
    /* penetration = -margin exactly is not a contact (strict inequality). */
    not_touching(&si, pi, &sj, pj, 0.25, FD_COLLIDE_SEPARATED);
    fd_contact_geometry g = touching(&si, pi, &sj, pj, 0.3, 1.0);
    cr_assert_eq(g.penetration, -0.25, "negative penetration within the margin");
    assert_vec_close(g.normal, fd_v3(-1, 0, 0), 0.0, "normal into i");
    assert_vec_close(g.point_i, fd_v3(0.5, 0, 0), 0.0, "point_i");
    assert_vec_close(g.point_j, fd_v3(0.75, 0, 0), 0.0, "point_j");
    /* Exactly touching (penetration 0) at margin 0: 0 > -0 is false, so a
     * contact needs overlap or a margin. */
    fd_pose pk = unrotated(fd_v3(0.75, 0, 0));
    not_touching(&si, pi, &sj, pk, 0.0, FD_COLLIDE_SEPARATED);
    g = touching(&si, pi, &sj, pk, 1e-9, 1.0);
    cr_assert_eq(g.penetration, 0.0);
}

Test(sphere_sphere, coincident_centres)
{
    /* No direction is preferred; the normal is +z (documented choice) and the
     * penetration the sum of the radii. */
    fd_shape si = make_sphere(0.5), sj = make_sphere(0.25);
    fd_pose pose = unrotated(fd_v3(1, 2, 3));
    fd_contact_geometry g;
    for (int order = 0; order < 2; ++order) {
        cr_assert_eq(order == 0 ? fd_collide(&si, pose, &sj, pose, 0.0, &g) : fd_collide(&sj, pose, &si, pose, 0.0, &g),
                     FD_COLLIDE_TOUCHING);
        assert_close(g.penetration, 0.75, ROUND_OFF, "R_i + R_j");
        /* +z in both orders: with no direction between the centres, none can
         * be turned round. The points are still on their surfaces. */
        assert_vec_close(g.normal, fd_v3(0, 0, 1), 0.0, "normal +z");
        assert_vec_close(fd_v3_sub(g.point_j, g.point_i), fd_v3(0, 0, 0.75), ROUND_OFF, "points");
    }
}

/* ---------------------------------------------------------------- sphere-plane */

Test(sphere_plane, tilted_plane_both_orders)
{
    /* Plane body at P, rotated, with a non-unit body normal; world normal
     * n = q (3, 0, 4)/5. Sphere centre c = P + tangential offset + (R - delta) n:
     * penetration delta, sphere point c - R n, plane point c - (R - delta) n. */
    fd_shape plane = make_plane(fd_v3(3, 0, 4));
    fd_shape sphere = make_sphere(0.2);
    fd_pose pp = make_pose(fd_v3(1, 2, 3), fd_v3(1, 2, 3), 0.6);
    fd_vec3 n = fd_quat_rotate(pp.orientation, fd_v3(0.6, 0, 0.8));
    fd_vec3 t = fd_v3_any_orthogonal(n);
    double delta = 0.01;
    fd_vec3 c = fd_v3_mul_add(fd_v3_mul_add(pp.position, 0.37, t), 0.2 - delta, n);
    fd_pose ps = make_pose(c, fd_v3(-1, 0, 2), 1.9);

    fd_contact_geometry g = touching(&sphere, ps, &plane, pp, 0.0, 1.0);
    assert_close(g.penetration, delta, ROUND_OFF, "penetration");
    assert_vec_close(g.normal, n, ROUND_OFF, "normal into the sphere = plane normal");
    assert_vec_close(g.point_i, fd_v3_mul_add(c, -0.2, n), ROUND_OFF, "sphere point");
    assert_vec_close(g.point_j, fd_v3_mul_add(c, -(0.2 - delta), n), ROUND_OFF, "plane point");
    assert_close(g.curvature_i[0], 5.0, ROUND_OFF, "sphere 1/R");
    assert_close(g.curvature_i[1], 5.0, ROUND_OFF, "sphere 1/R");
    cr_assert(g.curvature_j[0] == 0.0 && g.curvature_j[1] == 0.0, "plane is flat");
    assert_close(g.effective_radius, 0.2, ROUND_OFF, "R_e = R on a plane");

    fd_contact_geometry h = touching(&plane, pp, &sphere, ps, 0.0, 1.0);
    assert_vec_close(h.normal, fd_v3_neg(n), ROUND_OFF, "normal into the plane = -plane normal");
    assert_close(h.penetration, delta, ROUND_OFF, "penetration");
    /* The plane's local point lies in its body plane through the origin. */
    assert_close(fd_v3_dot(h.local_point_i, fd_v3(0.6, 0, 0.8)), 0.0, ROUND_OFF, "local plane point in plane");
}

Test(sphere_plane, separated_and_margin)
{
    fd_shape plane = make_plane(fd_v3(0, 0, 1));
    fd_shape sphere = make_sphere(0.5);
    fd_pose pp = unrotated(fd_v3(0, 0, 0));
    fd_pose ps = unrotated(fd_v3(0.3, -0.2, 0.75)); /* gap 0.25 */
    not_touching(&sphere, ps, &plane, pp, 0.0, FD_COLLIDE_SEPARATED);
    not_touching(&sphere, ps, &plane, pp, 0.25, FD_COLLIDE_SEPARATED);
    fd_contact_geometry g = touching(&plane, pp, &sphere, ps, 0.5, 1.0);
    cr_assert_eq(g.penetration, -0.25);
    assert_vec_close(g.point_i, fd_v3(0.3, -0.2, 0), 0.0, "plane point under the centre");
    assert_vec_close(g.point_j, fd_v3(0.3, -0.2, 0.25), 0.0, "lowest sphere point");
    /* A sphere below the plane is inside the half-space: deep contact. */
    fd_pose deep = unrotated(fd_v3(0, 0, -2.0));
    g = touching(&sphere, deep, &plane, pp, 0.0, 1.0);
    cr_assert_eq(g.penetration, 2.5);
}

/* ---------------------------------------------------------------- ellipsoid-plane */

Test(ellipsoid_plane, upright_and_flat_paper_table5)
{
    /* Fang & Negrut Sec. 4.5.2: a = b = 0.02, c = 0.05 on the ground z = 0. */
    fd_shape ellipsoid = make_ellipsoid(0.02, 0.02, 0.05);
    fd_shape ground = make_plane(fd_v3(0, 0, 1));
    fd_pose pg = unrotated(fd_v3(0, 0, 0));
    double delta = 1e-5;

    /* Upright: lowest point the pole, penetration c - height, curvatures
     * c/a^2 = c/b^2 = 125, R_e = 1/sqrt(k1 k2) = ab/c = 0.008 (plane flat). */
    fd_pose upright = unrotated(fd_v3(0.1, 0.2, 0.05 - delta));
    fd_contact_geometry g = touching(&ellipsoid, upright, &ground, pg, 0.0, 0.05);
    assert_close(g.penetration, delta, ROUND_OFF * 0.05, "upright penetration");
    assert_vec_close(g.point_i, fd_v3(0.1, 0.2, -delta), ROUND_OFF * 0.05, "pole");
    assert_vec_close(g.point_j, fd_v3(0.1, 0.2, 0), ROUND_OFF * 0.05, "ground point");
    assert_vec_close(g.local_point_i, fd_v3(0, 0, -0.05), ROUND_OFF * 0.05, "local pole");
    assert_close(g.curvature_i[0], 125.0, ROUND_OFF * 125, "k = c/a^2");
    assert_close(g.curvature_i[1], 125.0, ROUND_OFF * 125, "k = c/b^2");
    assert_close(g.effective_radius, 0.008, ROUND_OFF * 0.008, "R_e = ab/c");

    /* Flat: rotated +90 degrees about x, so body y points up (world +z) and
     * body z along world -y: contact at body (0, -b, 0), penetration b - height,
     * curvatures b/a^2 = 50 (along body x = world x) and b/c^2 = 8 (along
     * body z = world +-y); mean 29 (Table 5), R_e = 1/sqrt(50 * 8) = 0.05. */
    fd_pose flat = make_pose(fd_v3(0, 0, 0.02 - delta), fd_v3(1, 0, 0), 0.5 * PI);
    g = touching(&ellipsoid, flat, &ground, pg, 0.0, 0.05);
    assert_close(g.penetration, delta, ROUND_OFF * 0.05, "flat penetration");
    assert_vec_close(g.local_point_i, fd_v3(0, -0.02, 0), ROUND_OFF * 0.05, "local contact at -b");
    assert_close(g.curvature_i[0], 50.0, ROUND_OFF * 50, "k = b/a^2");
    assert_close(g.curvature_i[1], 8.0, ROUND_OFF * 50, "k = b/c^2");
    assert_close(0.5 * (g.curvature_i[0] + g.curvature_i[1]), 29.0, ROUND_OFF * 50, "Table 5 mean curvature");
    assert_axis(g.principal_dir_i[0], fd_v3(1, 0, 0), "k = 50 along world x");
    assert_axis(g.principal_dir_i[1], fd_v3(0, 1, 0), "k = 8 along world y (the long axis)");
    assert_close(g.effective_radius, 0.05, ROUND_OFF * 0.05, "R_e = 1/sqrt(50 * 8)");
}

Test(ellipsoid_plane, rotated_general)
{
    /* Support function of the rotated ellipsoid: the deepest point below a
     * plane of outward normal n lies h = sqrt(sum_k (e_k (R x_k) . n)^2) below
     * the centre (R x_k the world directions of the body axes), and there the
     * ellipsoid's outward normal is -n. Penetration = h - (centre - P) . n. */
    fd_shape ellipsoid = make_ellipsoid(0.3, 0.5, 0.8);
    fd_shape plane = make_plane(fd_v3(0.2, -0.1, 1.0));
    fd_pose pp = make_pose(fd_v3(-1, 0.5, 0.2), fd_v3(0.3, 1, 0), 0.4);
    fd_vec3 n = fd_quat_rotate(pp.orientation, fd_v3_normalize(fd_v3(0.2, -0.1, 1.0)));
    double angles[] = {0.0, 0.7, 1.9, -2.6};
    double previous_penetration = NAN;
    for (size_t k = 0; k < sizeof angles / sizeof angles[0]; ++k) {
        fd_pose pe = make_pose(fd_v3_mul_add(pp.position, 0.45, n), fd_v3(1, -1, 2), angles[k]);
        fd_mat3 r = fd_mat3_from_quat(pe.orientation);
        double h = sqrt(pow(0.3 * fd_v3_dot(r.cx, n), 2) + pow(0.5 * fd_v3_dot(r.cy, n), 2) +
                        pow(0.8 * fd_v3_dot(r.cz, n), 2));
        double expected = h - 0.45;
        fd_contact_geometry g = touching(&ellipsoid, pe, &plane, pp, 0.0, 1.0);
        assert_close(g.penetration, expected, ROUND_OFF, "h - centre height");
        assert_vec_close(g.normal, n, ROUND_OFF, "normal into the ellipsoid = plane normal");
        /* Curvature at the contact point: Gaussian k1 k2 and R_e = 1/sqrt(k1 k2) on a plane. */
        double gauss, mean;
        gauss_mean(ellipsoid.semi_axes, g.local_point_i, &gauss, &mean);
        assert_close(g.curvature_i[0] * g.curvature_i[1], gauss, ROUND_OFF * gauss, "Gaussian curvature");
        assert_close(0.5 * (g.curvature_i[0] + g.curvature_i[1]), mean, ROUND_OFF * mean, "mean curvature");
        assert_close(g.effective_radius, 1.0 / sqrt(gauss), ROUND_OFF, "R_e = 1/sqrt(K)");
        /* Orientation matters: the penetration changes with the rotation. */
        cr_assert(!(fabs(g.penetration - previous_penetration) < 1e-3), "orientation changes the depth");
        previous_penetration = g.penetration;

        fd_contact_geometry f = touching(&plane, pp, &ellipsoid, pe, 0.0, 1.0);
        assert_vec_close(f.normal, fd_v3_neg(n), ROUND_OFF, "normal into the plane");
    }
}

Test(ellipsoid_plane, separated_and_margin)
{
    fd_shape ellipsoid = make_ellipsoid(1.0, 2.0, 3.0);
    fd_shape ground = make_plane(fd_v3(0, 0, 1));
    fd_pose pg = unrotated(fd_v3(0, 0, 0));
    /* Lying with body x vertical (rotated 90 degrees about y): lowest point
     * at height z - a; z = 1.5 leaves a gap of 0.5. */
    fd_pose pe = make_pose(fd_v3(0, 0, 1.5), fd_v3(0, 1, 0), 0.5 * PI);
    not_touching(&ellipsoid, pe, &ground, pg, 0.0, FD_COLLIDE_SEPARATED);
    not_touching(&ellipsoid, pe, &ground, pg, 0.49, FD_COLLIDE_SEPARATED);
    fd_contact_geometry g = touching(&ground, pg, &ellipsoid, pe, 0.51, 3.0);
    assert_close(g.penetration, -0.5, ROUND_OFF * 3, "gap 0.5");
    /* The rotation takes body +x to world -z: the contact is at (a, 0, 0). */
    assert_vec_close(g.local_point_j, fd_v3(1, 0, 0), ROUND_OFF * 3, "end of the a axis");
    assert_close(g.curvature_j[0], 0.25, ROUND_OFF, "a/b^2");
    assert_close(g.curvature_j[1], 1.0 / 9.0, ROUND_OFF, "a/c^2");
}

/* ---------------------------------------------------------------- sphere-ellipsoid */

/* Sphere of radius r whose centre lies on the normal line of the ellipsoid
 * surface point x (body frame), at signed distance s along the outward
 * normal (s > 0 outside, s < 0 inside). For s >= 0 the closest point of the
 * convex ellipsoid is x for any s; inside it is x while the centre's
 * coordinate along the smallest axis keeps the sign of x's (the Lagrange
 * multiplier then stays above -e_min^2, where the root is unique; Eberly
 * 2013). Expected: penetration r - s, ellipsoid point x, normal into the
 * sphere = outward normal at x. */
static void check_sphere_on_ellipsoid_normal(fd_vec3 e, fd_pose pe, fd_vec3 x, double s, double r)
{
    fd_shape ellipsoid = make_ellipsoid(e.x, e.y, e.z);
    fd_shape sphere = make_sphere(r);
    fd_vec3 nu_body = fd_v3_normalize(ellipsoid_gradient(e, x));
    fd_vec3 nu = fd_quat_rotate(pe.orientation, nu_body);
    fd_pose ps = make_pose(to_world(pe, fd_v3_mul_add(x, s, nu_body)), fd_v3(2, 1, -1), 0.3);
    double scale = fmax(e.x, fmax(e.y, e.z));
    double margin = s > r ? s - r + 0.1 : 0.0;

    fd_contact_geometry g = touching(&sphere, ps, &ellipsoid, pe, margin, scale);
    assert_close(g.penetration, r - s, ROUND_OFF * scale, "penetration r - s");
    assert_vec_close(g.local_point_j, x, ROUND_OFF * scale, "closest point");
    assert_vec_close(g.normal, nu, ROUND_OFF, "normal into the sphere");
    assert_vec_close(g.point_i, fd_v3_mul_add(ps.position, -r, nu), ROUND_OFF * scale, "sphere point");
    /* Curvatures: the ellipsoid's closed-form K and H; the sphere's 1/r;
     * R_e = 1/sqrt((k1 + 1/r)(k2 + 1/r)) = 1/sqrt(K + 2 H / r + 1/r^2). */
    double gauss, mean;
    gauss_mean(e, x, &gauss, &mean);
    assert_close(g.curvature_j[0] * g.curvature_j[1], gauss, ROUND_OFF * gauss, "Gaussian curvature");
    assert_close(0.5 * (g.curvature_j[0] + g.curvature_j[1]), mean, ROUND_OFF * mean, "mean curvature");
    assert_close(g.curvature_i[0], 1.0 / r, ROUND_OFF / r, "1/r");
    double expected_re = 1.0 / sqrt(gauss + 2.0 * mean / r + 1.0 / (r * r));
    assert_close(g.effective_radius, expected_re, ROUND_OFF * expected_re, "effective radius");

    fd_contact_geometry h = touching(&ellipsoid, pe, &sphere, ps, margin, scale);
    assert_vec_close(h.normal, fd_v3_neg(nu), ROUND_OFF, "normal into the ellipsoid");
}

Test(sphere_ellipsoid, outside_rotated_both_orders)
{
    fd_vec3 shapes[] = {{0.3, 0.5, 0.8}, {0.8, 0.5, 0.3}, {0.5, 0.5, 0.2}, {1.0, 0.05, 0.4}, {0.4, 0.4, 0.4}};
    double angles[][2] = {{0.3, 0.2}, {1.1, 2.5}, {2.0, -0.7}, {2.9, 4.0}, {0.5 * PI, 1.0}, {1.4, 0.5 * PI}};
    double offsets[] = {0.0, 0.01, 0.1, 0.35, 2.0}; /* the last two with a margin: separated by up to 1.8 */
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        fd_pose pe = make_pose(fd_v3(0.3, -1.0, 2.0), fd_v3(1, 2, 3), 0.2 + (double)s);
        for (size_t a = 0; a < sizeof angles / sizeof angles[0]; ++a) {
            for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
                fd_vec3 x = ellipsoid_point(shapes[s], angles[a][0], angles[a][1]);
                check_sphere_on_ellipsoid_normal(shapes[s], pe, x, offsets[o], 0.2);
            }
        }
    }
}

Test(sphere_ellipsoid, centre_inside_rotated)
{
    /* Centre inside, on the inward normal of x at depth tau, with x and the
     * centre on the same side of the plane of the two larger axes (see
     * check_sphere_on_ellipsoid_normal): penetration r + tau. */
    fd_vec3 e = fd_v3(0.8, 0.5, 0.3); /* smallest axis z */
    fd_pose pe = make_pose(fd_v3(-0.4, 0.1, 0.9), fd_v3(-1, 3, 1), 2.2);
    double angles[][2] = {{0.3, 0.2}, {1.0, 2.5}, {0.7, -0.7}, {1.3, 4.0}, {0.1, 1.0}};
    double depths[] = {0.001, 0.05, 0.1};
    for (size_t a = 0; a < sizeof angles / sizeof angles[0]; ++a) {
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; ++d) {
            fd_vec3 x = ellipsoid_point(e, angles[a][0], angles[a][1]);
            fd_vec3 nu = fd_v3_normalize(ellipsoid_gradient(e, x));
            fd_vec3 centre = fd_v3_mul_add(x, -depths[d], nu);
            cr_assert(centre.z > 0.0 && x.z > 0.0, "precondition: same side of z = 0");
            check_sphere_on_ellipsoid_normal(e, pe, x, -depths[d], 0.05);
        }
    }
}

/* Sphere of radius r centred at body point c of an ellipsoid posed at pe. */
static fd_contact_geometry sphere_at(fd_vec3 e, fd_pose pe, fd_vec3 c, double r)
{
    fd_shape ellipsoid = make_ellipsoid(e.x, e.y, e.z);
    fd_shape sphere = make_sphere(r);
    return touching(&sphere, unrotated(to_world(pe, c)), &ellipsoid, pe, 0.0, 1.0);
}

Test(sphere_ellipsoid, centre_at_ellipsoid_centre)
{
    /* The nearest surface points are the ends of the smallest axis, at
     * distance e_min: penetration r + e_min; the +axis end is returned. */
    fd_pose pe = make_pose(fd_v3(1, 2, 3), fd_v3(0, 1, 1), 1.0);
    fd_contact_geometry g = sphere_at(fd_v3(0.3, 0.5, 0.8), pe, fd_v3(0, 0, 0), 0.1);
    assert_close(g.penetration, 0.4, ROUND_OFF, "r + a");
    assert_vec_close(g.local_point_j, fd_v3(0.3, 0, 0), ROUND_OFF, "end of the smallest axis");
    g = sphere_at(fd_v3(0.8, 0.5, 0.3), pe, fd_v3(0, 0, 0), 0.1);
    assert_close(g.penetration, 0.4, ROUND_OFF, "r + c");
    assert_vec_close(g.local_point_j, fd_v3(0, 0, 0.3), ROUND_OFF, "end of the smallest axis");
    /* A round ellipsoid: distance R from the centre, whatever point. */
    g = sphere_at(fd_v3(0.5, 0.5, 0.5), pe, fd_v3(0, 0, 0), 0.1);
    assert_close(g.penetration, 0.6, ROUND_OFF, "r + R");
}

/* Two poses for centres given in the ellipsoid's frame: at the origin
 * unrotated, where a zero coordinate stays exactly zero (the closed-form
 * branches of the closest point), and rotated, where it comes back from the
 * round trip through the world frame as ~1e-17 (the bisection next to them). */
static fd_pose axis_case_pose(int which)
{
    return which == 0 ? unrotated(fd_v3(0, 0, 0)) : make_pose(fd_v3(0.5, 0, -0.5), fd_v3(1, 0, 1), -0.9);
}

static void symmetry_axes_cases(fd_pose pe)
{
    fd_vec3 e = fd_v3(0.8, 0.5, 0.3);
    double r = 0.1;

    /* Outside on each axis, gap -0.02 (overlap 0.02): nearest point the axis end. */
    fd_vec3 ends[] = {{0.8, 0, 0}, {0, -0.5, 0}, {0, 0, 0.3}};
    for (int k = 0; k < 3; ++k) {
        fd_vec3 dir = fd_v3_normalize(ends[k]);
        fd_contact_geometry g = sphere_at(e, pe, fd_v3_mul_add(ends[k], 0.08, dir), r);
        assert_close(g.penetration, 0.02, ROUND_OFF, "overlap on an axis");
        assert_vec_close(g.local_point_j, ends[k], ROUND_OFF, "axis end");
    }

    /* Inside on the longest axis at (p, 0, 0), p < (a^2 - c^2)/a = 0.6875:
     * the nearest point leaves the axis (Lagrange multiplier -c^2):
     * x = (a^2 p/(a^2 - c^2), 0, +-c sqrt(1 - (a p/(a^2 - c^2))^2)), distance
     * c sqrt(1 - p^2/(a^2 - c^2)) (substitute and simplify). */
    double a2c2 = 0.64 - 0.09;
    for (double p = 0.0; p < 0.68; p += 0.17) {
        fd_contact_geometry g = sphere_at(e, pe, fd_v3(p, 0, 0), r);
        double distance = 0.3 * sqrt(1.0 - p * p / a2c2);
        assert_close(g.penetration, r + distance, ROUND_OFF, "r + c sqrt(1 - p^2/(a^2 - c^2))");
        assert_close(g.local_point_j.x, 0.64 * p / a2c2, ROUND_OFF, "x of the nearest point");
        assert_close(fabs(g.local_point_j.z), 0.3 * sqrt(1.0 - pow(0.8 * p / a2c2, 2)), ROUND_OFF,
                     "z of the nearest point");
    }
    /* Beyond that the nearest point is the axis end: distance a - p. */
    fd_contact_geometry g = sphere_at(e, pe, fd_v3(-0.75, 0, 0), r);
    assert_close(g.penetration, r + 0.05, ROUND_OFF, "r + a - |p|");
    assert_vec_close(g.local_point_j, fd_v3(-0.8, 0, 0), ROUND_OFF, "-a end");

    /* Same on the middle axis, threshold (b^2 - c^2)/b = 0.32. */
    double b2c2 = 0.25 - 0.09;
    g = sphere_at(e, pe, fd_v3(0, 0.2, 0), r);
    assert_close(g.penetration, r + 0.3 * sqrt(1.0 - 0.04 / b2c2), ROUND_OFF, "middle axis inside");
    g = sphere_at(e, pe, fd_v3(0, 0.4, 0), r);
    assert_close(g.penetration, r + 0.1, ROUND_OFF, "middle axis beyond the threshold");

    /* Inside on the smallest axis: nearest point its end, distance c - |p|. */
    g = sphere_at(e, pe, fd_v3(0, 0, -0.1), r);
    assert_close(g.penetration, r + 0.2, ROUND_OFF, "smallest axis inside");
    assert_vec_close(g.local_point_j, fd_v3(0, 0, -0.3), ROUND_OFF, "-c end");

    /* Prolate spheroid (b = c) with the centre on its axis: a ring of nearest
     * points, at the same distance c sqrt(1 - p^2/(a^2 - c^2)). */
    fd_vec3 prolate = fd_v3(0.8, 0.3, 0.3);
    g = sphere_at(prolate, pe, fd_v3(0.34, 0, 0), r);
    assert_close(g.penetration, r + 0.3 * sqrt(1.0 - 0.34 * 0.34 / a2c2), ROUND_OFF, "prolate ring");
}

Test(sphere_ellipsoid, centre_on_symmetry_axes)
{
    symmetry_axes_cases(axis_case_pose(0));
    symmetry_axes_cases(axis_case_pose(1));
}

Test(sphere_ellipsoid, centre_near_the_middle_plane)
{
    /* Centres a hair off the plane of the two larger axes, inside: the
     * nearest point is near the closed form of the in-plane case above (the
     * distance is 1-Lipschitz in the centre), and must lie on the surface to
     * round-off even though the Lagrange multiplier is within ~1e-13 of its
     * pole -c^2 (the u = 1 + t/c^2 formulation keeps x_z = y_z / u exact). */
    fd_vec3 e = fd_v3(0.8, 0.5, 0.3);
    fd_pose pe = unrotated(fd_v3(0, 0, 0));
    double a2c2 = 0.64 - 0.09;
    double p = 0.3;
    double expected = 0.3 * sqrt(1.0 - p * p / a2c2);
    double offsets[] = {1e-300, 1e-200, 1e-30, 1e-16, 1e-13, 1e-10};
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; ++k) {
        for (int side = -1; side <= 1; side += 2) {
            fd_contact_geometry g = sphere_at(e, pe, fd_v3(p, 0, side * offsets[k]), 0.1);
            assert_close(g.penetration, 0.1 + expected, offsets[k] + ROUND_OFF, "near-plane distance");
            cr_assert(g.local_point_j.z * side > 0.0, "nearest point on the centre's side");
        }
    }
}

Test(sphere_ellipsoid, inside_in_the_middle_plane_off_axes)
{
    /* In the plane z = 0 of the two larger axes but outside the focal
     * ellipse x^2/(a^2 - c^2) + y^2/(b^2 - c^2) < 1, the nearest point stays
     * in the plane: take x on the ellipse z = 0 and go inward along its normal. */
    fd_vec3 e = fd_v3(0.8, 0.5, 0.3);
    fd_vec3 x = ellipsoid_point(e, 0.5 * PI, 0.6);
    x.z = 0.0;
    fd_vec3 nu = fd_v3_normalize(ellipsoid_gradient(e, x));
    fd_vec3 c = fd_v3_mul_add(x, -0.05, nu);
    cr_assert(c.x * c.x / 0.55 + c.y * c.y / 0.16 > 1.0, "precondition: outside the focal ellipse");
    for (int which = 0; which < 2; ++which) {
        fd_contact_geometry g = sphere_at(e, axis_case_pose(which), c, 0.1);
        assert_close(g.penetration, 0.15, ROUND_OFF, "r + depth");
        assert_vec_close(g.local_point_j, x, ROUND_OFF, "nearest point in the plane");
    }
}

Test(sphere_ellipsoid, separated_and_margin)
{
    fd_shape ellipsoid = make_ellipsoid(0.3, 0.5, 0.8);
    fd_shape sphere = make_sphere(0.1);
    fd_pose pe = make_pose(fd_v3(0, 0, 0), fd_v3(0, 1, 0), 0.5 * PI); /* body z along world +-x */
    fd_vec3 tip = to_world(pe, fd_v3(0, 0, 0.8));
    fd_vec3 out = fd_v3_normalize(tip);
    fd_pose ps = unrotated(fd_v3_mul_add(tip, 0.35, out)); /* gap 0.25 */
    not_touching(&sphere, ps, &ellipsoid, pe, 0.0, FD_COLLIDE_SEPARATED);
    not_touching(&sphere, ps, &ellipsoid, pe, 0.24, FD_COLLIDE_SEPARATED);
    fd_contact_geometry g = touching(&ellipsoid, pe, &sphere, ps, 0.26, 1.0);
    assert_close(g.penetration, -0.25, ROUND_OFF, "gap within the margin");
    assert_vec_close(g.point_i, tip, ROUND_OFF, "tip of the long axis");
    /* Beside the shortest axis: inside the bounding sphere, yet 0.25 away. */
    fd_vec3 side = to_world(pe, fd_v3(0.3 + 0.35, 0, 0));
    not_touching(&sphere, unrotated(side), &ellipsoid, pe, 0.24, FD_COLLIDE_SEPARATED);
    g = touching(&sphere, unrotated(side), &ellipsoid, pe, 0.26, 1.0);
    assert_close(g.penetration, -0.25, ROUND_OFF, "gap beside the short axis");
    /* Far away: rejected by the bounding sphere, same answer. */
    fd_pose far = unrotated(fd_v3(10, 10, 10));
    not_touching(&sphere, far, &ellipsoid, pe, 0.26, FD_COLLIDE_SEPARATED);
}

/* ---------------------------------------------------------------- unsupported, determinism */

Test(collide, unsupported_pairs)
{
    fd_shape e1 = make_ellipsoid(0.3, 0.5, 0.8), e2 = make_ellipsoid(0.2, 0.2, 0.4);
    fd_shape p1 = make_plane(fd_v3(0, 0, 1)), p2 = make_plane(fd_v3(0, 1, 0));
    fd_pose pose = unrotated(fd_v3(0, 0, 0));
    not_touching(&e1, pose, &e2, pose, 0.0, FD_COLLIDE_UNSUPPORTED);
    not_touching(&p1, pose, &p2, pose, 0.0, FD_COLLIDE_UNSUPPORTED);
    /* Two ellipsoids that certainly do not touch are separated, even when
     * their bounding spheres overlap (radii 0.8 + 0.4 > 0.6, but along x the
     * supports are 0.3 + 0.2 < 0.6): only a pair that may touch is refused. */
    not_touching(&e1, pose, &e2, unrotated(fd_v3(100, 0, 0)), 0.0, FD_COLLIDE_SEPARATED);
    not_touching(&e1, pose, &e2, unrotated(fd_v3(0.6, 0, 0)), 0.0, FD_COLLIDE_SEPARATED);
    not_touching(&e1, pose, &e2, unrotated(fd_v3(0.6, 0, 0)), 0.2, FD_COLLIDE_UNSUPPORTED);
    not_touching(&e1, pose, &e2, unrotated(fd_v3(0.45, 0, 0)), 0.0, FD_COLLIDE_UNSUPPORTED);
}

Test(collide, deterministic)
{
    /* Same inputs, bitwise the same geometry (no hidden state). */
    fd_shape sphere = make_sphere(0.2);
    fd_shape ellipsoid = make_ellipsoid(0.3, 0.5, 0.8);
    fd_pose pe = make_pose(fd_v3(0.1, 0.2, 0.3), fd_v3(1, 2, 3), 0.7);
    fd_pose ps = unrotated(to_world(pe, fd_v3(0.1, 0.3, 0.6)));
    fd_contact_geometry g, h;
    memset(&g, 0, sizeof g);
    memset(&h, 0, sizeof h);
    cr_assert_eq(fd_collide(&sphere, ps, &ellipsoid, pe, 0.0, &g), FD_COLLIDE_TOUCHING);
    cr_assert_eq(fd_collide(&sphere, ps, &ellipsoid, pe, 0.0, &h), FD_COLLIDE_TOUCHING);
    cr_assert(memcmp(&g, &h, sizeof g) == 0, "bitwise identical");
}
