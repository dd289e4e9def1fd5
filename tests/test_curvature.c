/* Ellipsoid principal curvatures and directions, and the Hertz effective
 * radius, against closed forms.
 *
 * Closed forms used (each derived or cited where it is used):
 *   - sphere of radius R: both principal curvatures 1/R everywhere;
 *   - ellipsoid x^2/a^2 + y^2/b^2 + z^2/c^2 = 1 at the pole (0, 0, c): c/a^2
 *     along x and c/b^2 along y; at (a, 0, 0): a/b^2 along y, a/c^2 along z
 *     (the osculating circles of the principal sections: the ellipse
 *     x^2/a^2 + z^2/c^2 = 1 has curvature c/a^2 at its vertex (0, c));
 *   - at any surface point p, with |Dp|^2 = x^2/a^4 + y^2/b^4 + z^2/c^4:
 *       Gaussian curvature K = 1 / (a^2 b^2 c^2 |Dp|^4),
 *       mean curvature     H = (a^2 + b^2 + c^2 - |p|^2) / (2 a^2 b^2 c^2 |Dp|^3)
 *     (e.g. Gray, Abbena & Salamon, Modern Differential Geometry of Curves
 *     and Surfaces with Mathematica, 3rd ed., Ch. 13; Weisstein, "Ellipsoid",
 *     MathWorld), positive for the convex surface with the outward normal;
 *   - Hertz effective radius (Johnson, Contact Mechanics, Sec. 4.1):
 *     R_e = 1 / (2 sqrt(A B)), A + B and B - A from the principal curvatures.
 *
 * Tolerances: every quantity is a short closed-form expression (a handful of
 * products, one square root, one atan2/cos/sin), so its relative error is a
 * few ulps (~1e-15); 1e-12 relative leaves three orders of magnitude for the
 * different order of operations between the code and the closed form. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "collide/collide.h"

#define ROUND_OFF 1e-12 /* relative; see the top comment */
#define PI 3.14159265358979323846 /* M_PI is not in strict C17 */

static void assert_close(double actual, double expected, double relative, const char* what)
{
    double tolerance = relative * fmax(1.0, fabs(expected));
    cr_assert(fabs(actual - expected) <= tolerance, "%s: got %.17g, expected %.17g (tolerance %.3g)", what, actual,
              expected, tolerance);
}

/* Same with a tolerance relative to |expected| only (for values far from 1). */
static void assert_relative(double actual, double expected, double relative, const char* what)
{
    double tolerance = relative * fabs(expected);
    cr_assert(fabs(actual - expected) <= tolerance, "%s: got %.17g, expected %.17g (tolerance %.3g)", what, actual,
              expected, tolerance);
}

/* v is +-expected (a principal direction has no sign). */
static void assert_axis(fd_vec3 v, fd_vec3 expected, const char* what)
{
    double s = fd_v3_dot(v, expected) < 0.0 ? -1.0 : 1.0;
    cr_assert(fd_v3_distance(fd_v3_scale(s, v), expected) <= ROUND_OFF,
              "%s: got (%.17g, %.17g, %.17g), expected +-(%g, %g, %g)", what, v.x, v.y, v.z, expected.x, expected.y,
              expected.z);
}

static fd_vec3 outward_normal(fd_vec3 e, fd_vec3 p)
{
    return fd_v3_normalize(fd_v3(p.x / (e.x * e.x), p.y / (e.y * e.y), p.z / (e.z * e.z)));
}

/* The frame conventions of fd_ellipsoid_curvature: curvature[0] >= [1];
 * (d0, d1, outward normal) right-handed orthonormal; and each direction an
 * eigenvector of the second fundamental form II(u, v) = u^T D v / |Dp|:
 * II(d_k, d_k) = k_k and II(d0, d1) = 0 (principal directions are conjugate). */
static void assert_frame(fd_vec3 e, fd_vec3 p, const double k[2], const fd_vec3 d[2])
{
    fd_vec3 nu = outward_normal(e, p);
    fd_vec3 dd = fd_v3(1.0 / (e.x * e.x), 1.0 / (e.y * e.y), 1.0 / (e.z * e.z));
    double gradient = fd_v3_length(fd_v3_hadamard(dd, p));
    cr_assert(k[0] >= k[1], "curvature[0] %.17g < curvature[1] %.17g", k[0], k[1]);
    assert_close(fd_v3_length(d[0]), 1.0, ROUND_OFF, "|d0|");
    assert_close(fd_v3_length(d[1]), 1.0, ROUND_OFF, "|d1|");
    assert_close(fd_v3_dot(d[0], d[1]), 0.0, ROUND_OFF, "d0.d1");
    assert_close(fd_v3_dot(d[0], nu), 0.0, ROUND_OFF, "d0.nu");
    assert_close(fd_v3_dot(d[1], nu), 0.0, ROUND_OFF, "d1.nu");
    assert_close(fd_v3_distance(fd_v3_cross(d[0], d[1]), nu), 0.0, ROUND_OFF, "d0 x d1 = nu");
    for (int m = 0; m < 2; ++m) {
        double normal_curvature = fd_v3_dot(d[m], fd_v3_hadamard(dd, d[m])) / gradient;
        assert_close(normal_curvature, k[m], ROUND_OFF, "II(d_k, d_k) = k_k");
    }
    assert_close(fd_v3_dot(d[0], fd_v3_hadamard(dd, d[1])) / gradient, 0.0, ROUND_OFF, "II(d0, d1) = 0");
}

/* fd_ellipsoid_curvature at the surface point p of the ellipsoid e (semi-axes
 * e): curvatures k0 along the axis d0 and k1 along d1, in the frame's
 * conventions; `where` names the point in the messages. */
static void assert_principal(fd_vec3 e, fd_vec3 p, double k0, double k1, fd_vec3 d0, fd_vec3 d1, const char* where)
{
    double k[2];
    fd_vec3 d[2];
    fd_ellipsoid_curvature(e, p, k, d);
    char what[4][96];
    snprintf(what[0], sizeof what[0], "%s k0", where);
    snprintf(what[1], sizeof what[1], "%s k1", where);
    snprintf(what[2], sizeof what[2], "%s d0", where);
    snprintf(what[3], sizeof what[3], "%s d1", where);
    assert_close(k[0], k0, ROUND_OFF, what[0]);
    assert_close(k[1], k1, ROUND_OFF, what[1]);
    assert_axis(d[0], d0, what[2]);
    assert_axis(d[1], d1, what[3]);
    assert_frame(e, p, k, d);
}

/* Point of the ellipsoid at polar angle theta (from +z) and azimuth phi. */
static fd_vec3 surface_point(fd_vec3 e, double theta, double phi)
{
    return fd_v3(e.x * sin(theta) * cos(phi), e.y * sin(theta) * sin(phi), e.z * cos(theta));
}

Test(ellipsoid_curvature, sphere_is_umbilic_everywhere)
{
    double r = 0.7;
    fd_vec3 e = fd_v3(r, r, r);
    double angles[][2] = {{0.0, 0.0}, {0.3, 1.1}, {1.2, -2.0}, {0.5 * PI, 0.4}, {2.9, 3.0}};
    for (size_t n = 0; n < sizeof angles / sizeof angles[0]; ++n) {
        fd_vec3 p = surface_point(e, angles[n][0], angles[n][1]);
        double k[2];
        fd_vec3 d[2];
        fd_ellipsoid_curvature(e, p, k, d);
        assert_close(k[0], 1.0 / r, ROUND_OFF, "k0 = 1/R");
        assert_close(k[1], 1.0 / r, ROUND_OFF, "k1 = 1/R");
        assert_frame(e, p, k, d);
    }
}

Test(ellipsoid_curvature, pole)
{
    /* At (0, 0, +-c): c/a^2 along x, c/b^2 along y; a < b so c/a^2 is larger. */
    double a = 1.0, b = 2.0, c = 3.0;
    fd_vec3 e = fd_v3(a, b, c);
    for (int side = -1; side <= 1; side += 2) {
        assert_principal(e, fd_v3(0, 0, side * c), c / (a * a), c / (b * b), fd_v3(1, 0, 0), fd_v3(0, 1, 0), "pole");
    }
}

Test(ellipsoid_curvature, equator_points)
{
    double a = 1.0, b = 2.0, c = 3.0;
    fd_vec3 e = fd_v3(a, b, c);

    /* (a, 0, 0): a/b^2 = 0.25 along y, a/c^2 = 1/9 along z. */
    assert_principal(e, fd_v3(a, 0, 0), a / (b * b), a / (c * c), fd_v3(0, 1, 0), fd_v3(0, 0, 1), "(a,0,0)");
    /* (0, -b, 0): b/a^2 = 2 along x, b/c^2 = 2/9 along z. */
    assert_principal(e, fd_v3(0, -b, 0), b / (a * a), b / (c * c), fd_v3(1, 0, 0), fd_v3(0, 0, 1), "(0,-b,0)");
}

/* Closed-form Gaussian and mean curvature of the ellipsoid at p (top comment). */
static void gauss_mean(fd_vec3 e, fd_vec3 p, double* gauss, double* mean)
{
    double g2 = p.x * p.x / pow(e.x, 4) + p.y * p.y / pow(e.y, 4) + p.z * p.z / pow(e.z, 4);
    double abc2 = e.x * e.x * e.y * e.y * e.z * e.z;
    *gauss = 1.0 / (abc2 * g2 * g2);
    *mean = (e.x * e.x + e.y * e.y + e.z * e.z - fd_v3_length_squared(p)) / (2.0 * abc2 * g2 * sqrt(g2));
}

Test(ellipsoid_curvature, general_points_gauss_and_mean)
{
    fd_vec3 shapes[] = {{1.0, 2.0, 3.0}, {0.3, 0.05, 0.11}, {2.0, 2.0, 0.5}, {0.02, 0.02, 0.05}};
    double angles[][2] = {{0.2, 0.3}, {0.7, 2.0}, {1.3, -1.0}, {2.2, 4.0}, {3.0, 0.9}, {0.5 * PI, 0.77}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        for (size_t n = 0; n < sizeof angles / sizeof angles[0]; ++n) {
            fd_vec3 e = shapes[s];
            fd_vec3 p = surface_point(e, angles[n][0], angles[n][1]);
            double k[2];
            fd_vec3 d[2];
            fd_ellipsoid_curvature(e, p, k, d);
            double gauss, mean;
            gauss_mean(e, p, &gauss, &mean);
            assert_relative(k[0] * k[1], gauss, ROUND_OFF, "k0 k1 = Gaussian curvature");
            assert_relative(0.5 * (k[0] + k[1]), mean, ROUND_OFF, "(k0 + k1)/2 = mean curvature");
            assert_frame(e, p, k, d);
        }
    }
}

Test(ellipsoid_curvature, paper_table5)
{
    /* Fang & Negrut Sec. 4.5.2, Table 5: a = b = 0.02 m, c = 0.05 m; the spin
     * curvature is the mean of the principal curvatures (App. C, Fig. 19). */
    fd_vec3 e = fd_v3(0.02, 0.02, 0.05);
    double k[2];
    fd_vec3 d[2];

    /* Upright: contact at the pole, c/a^2 = c/b^2 = 0.05/0.0004 = 125. */
    fd_ellipsoid_curvature(e, fd_v3(0, 0, -0.05), k, d);
    assert_close(k[0], 125.0, ROUND_OFF, "upright k0");
    assert_close(k[1], 125.0, ROUND_OFF, "upright k1");
    assert_close(0.5 * (k[0] + k[1]), 125.0, ROUND_OFF, "upright mean = Table 5's 125");

    /* Flat: contact at the end of a short axis, a/b^2 = 50, a/c^2 = 8. */
    fd_ellipsoid_curvature(e, fd_v3(0.02, 0, 0), k, d);
    assert_close(k[0], 50.0, ROUND_OFF, "flat k0");
    assert_close(k[1], 8.0, ROUND_OFF, "flat k1");
    assert_close(0.5 * (k[0] + k[1]), 29.0, ROUND_OFF, "flat mean = Table 5's 29");
    assert_axis(d[0], fd_v3(0, 1, 0), "flat d0 across the long axis");
    assert_axis(d[1], fd_v3(0, 0, 1), "flat d1 along the long axis");

    /* Sphere of the same volume: R = (abc)^(1/3), 1/R = 36.84 in Table 5
     * (printed to 2 decimals, hence the 0.005 tolerance). Volumes from the
     * shape module: equal volumes <=> R^3 = abc. */
    fd_shape_def def = {.type = FD_SHAPE_ELLIPSOID, .semi_axes = e};
    fd_shape ellipsoid, sphere;
    char message[128];
    cr_assert(fd_shape_init(&ellipsoid, &def, message, sizeof message), "%s", message);
    def = (fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = cbrt(e.x * e.y * e.z)};
    cr_assert(fd_shape_init(&sphere, &def, message, sizeof message), "%s", message);
    assert_relative(fd_shape_volume(&sphere), fd_shape_volume(&ellipsoid), ROUND_OFF, "equal volumes");
    cr_assert(fabs(1.0 / sphere.radius - 36.84) < 0.005, "equal-volume sphere curvature %.6g vs 36.84",
              1.0 / sphere.radius);
}

/* ---------------------------------------------------------------- effective radius */

static void frame_at_angle(double angle, fd_vec3 d[2])
{
    d[0] = fd_v3(cos(angle), sin(angle), 0);
    d[1] = fd_v3(-sin(angle), cos(angle), 0);
}

Test(effective_radius, two_spheres)
{
    /* A = B = (1/R1 + 1/R2)/2, so R_e = 1/(1/R1 + 1/R2) = R1 R2/(R1 + R2),
     * whatever the (meaningless) tangent directions. */
    double r1 = 0.3, r2 = 0.7;
    double ki[2] = {1.0 / r1, 1.0 / r1}, kj[2] = {1.0 / r2, 1.0 / r2};
    for (double angle = 0.0; angle < 3.2; angle += 0.4) {
        fd_vec3 di[2], dj[2];
        frame_at_angle(0.1, di);
        frame_at_angle(angle, dj);
        assert_close(fd_effective_radius(ki, di, kj, dj), r1 * r2 / (r1 + r2), ROUND_OFF, "R1 R2/(R1 + R2)");
    }
}

Test(effective_radius, sphere_on_plane_and_flat_pairs)
{
    double r = 0.15;
    double ks[2] = {1.0 / r, 1.0 / r}, kp[2] = {0.0, 0.0};
    fd_vec3 di[2], dj[2];
    frame_at_angle(0.0, di);
    frame_at_angle(1.0, dj);
    /* A = B = 1/(2R): R_e = R, in either order. */
    assert_close(fd_effective_radius(ks, di, kp, dj), r, ROUND_OFF, "sphere on plane");
    assert_close(fd_effective_radius(kp, dj, ks, di), r, ROUND_OFF, "plane under sphere");
    /* Two flat surfaces: A = B = 0. */
    cr_assert(isinf(fd_effective_radius(kp, di, kp, dj)), "two planes: infinity");
}

Test(effective_radius, ellipsoid_pole_on_plane)
{
    /* Pole of (a, b, c) on a plane: k1 = c/a^2, k2 = c/b^2, plane 0, so
     * A + B = (k1 + k2)/2, B - A = (k1 - k2)/2, A = k2/2, B = k1/2 and
     * R_e = 1/(2 sqrt(k1 k2 / 4)) = 1/sqrt(k1 k2) = a b / c. */
    fd_vec3 e = fd_v3(1.0, 2.0, 3.0);
    double k[2], kp[2] = {0.0, 0.0};
    fd_vec3 d[2], dp[2];
    fd_ellipsoid_curvature(e, fd_v3(0, 0, -3.0), k, d);
    frame_at_angle(0.3, dp);
    assert_close(fd_effective_radius(k, d, kp, dp), e.x * e.y / e.z, ROUND_OFF, "ab/c");
    /* Paper Table 5 ellipsoid upright: 0.02 * 0.02 / 0.05 = 0.008 m. */
    fd_vec3 t5 = fd_v3(0.02, 0.02, 0.05);
    fd_ellipsoid_curvature(t5, fd_v3(0, 0, -0.05), k, d);
    assert_close(fd_effective_radius(kp, dp, k, d), 0.008, ROUND_OFF, "Table 5 upright R_e");
}

Test(effective_radius, cylinders)
{
    /* Cylinders: k = (1/R, 0). Crossed at 90 degrees: cos 2 phi = -1,
     * B - A = |1/R1 - 1/R2|/2, A B = 1/(4 R1 R2), R_e = sqrt(R1 R2) (Johnson
     * Sec. 4.1: crossed cylinders of equal radius act as a sphere of that
     * radius on a plane). Parallel: A = 0, a line contact, R_e infinite. */
    double r1 = 0.2, r2 = 0.45;
    double k1[2] = {1.0 / r1, 0.0}, k2[2] = {1.0 / r2, 0.0};
    fd_vec3 d1[2], d2[2];
    frame_at_angle(0.25, d1);
    frame_at_angle(0.25 + (0.5 * PI), d2);
    assert_close(fd_effective_radius(k1, d1, k2, d2), sqrt(r1 * r2), ROUND_OFF, "crossed: sqrt(R1 R2)");
    assert_close(fd_effective_radius(k1, d1, k1, d2), r1, ROUND_OFF, "crossed equal: R");
    /* Parallel, one direction reversed (same axis): exact axes so that
     * cos 2 phi is exactly 1 and A B exactly 0. */
    d1[0] = fd_v3(1, 0, 0);
    d1[1] = fd_v3(0, 1, 0);
    d2[0] = fd_v3(-1, 0, 0);
    d2[1] = fd_v3(0, -1, 0);
    cr_assert(isinf(fd_effective_radius(k1, d1, k2, d2)), "parallel cylinders: infinity");
}

Test(effective_radius, two_equal_ellipsoid_tips_at_an_angle)
{
    /* Same (k1, k2) on both, K = k1 + k2, g = k1 - k2, first directions at
     * angle phi: A + B = K, B - A = g sqrt((1 + cos 2 phi)/2) = g |cos phi|,
     * so 4 A B = K^2 - g^2 cos^2 phi and R_e = 1/sqrt(K^2 - g^2 cos^2 phi);
     * phi = 0 gives 1/(2 sqrt(k1 k2)). */
    double k[2] = {5.0, 2.0};
    double sum = k[0] + k[1], difference = k[0] - k[1];
    fd_vec3 di[2], dj[2];
    frame_at_angle(0.4, di);
    for (double phi = 0.0; phi < 3.2; phi += 0.5) {
        frame_at_angle(0.4 + phi, dj);
        double expected = 1.0 / sqrt(sum * sum - difference * difference * cos(phi) * cos(phi));
        assert_close(fd_effective_radius(k, di, k, dj), expected, ROUND_OFF, "1/sqrt(K^2 - g^2 cos^2 phi)");
        assert_close(fd_effective_radius(k, dj, k, di), expected, ROUND_OFF, "symmetric in i, j");
    }
    frame_at_angle(0.4, dj);
    assert_close(fd_effective_radius(k, di, k, dj), 1.0 / (2.0 * sqrt(k[0] * k[1])), ROUND_OFF, "aligned");
}

Test(effective_radius, sphere_on_ellipsoid)
{
    /* Sphere (s = 1/R, s) on an ellipsoid point (k1, k2): the sphere adds s/2
     * to A and B alike, so A = (k2 + s)/2, B = (k1 + s)/2 and
     * R_e = 1/sqrt((k1 + s)(k2 + s)) = 1/sqrt(K + 2 H s + s^2) with the
     * closed-form Gaussian and mean curvatures K, H of the ellipsoid. */
    fd_vec3 e = fd_v3(0.3, 0.5, 0.8);
    fd_vec3 p = surface_point(e, 0.9, 2.1);
    double k[2], gauss, mean;
    fd_vec3 d[2], ds[2];
    fd_ellipsoid_curvature(e, p, k, d);
    gauss_mean(e, p, &gauss, &mean);
    double s = 1.0 / 0.12;
    double ks[2] = {s, s};
    frame_at_angle(0.7, ds);
    assert_close(fd_effective_radius(ks, ds, k, d), 1.0 / sqrt(gauss + 2.0 * mean * s + s * s), ROUND_OFF,
                 "1/sqrt((k1 + s)(k2 + s))");
}
