/* Surface curvature of the ellipsoid and the Hertz effective radius.
 *
 * Conventions shared with narrowphase.c:
 *   - curvature[0] >= curvature[1] (maximum principal curvature first);
 *     positive means convex as seen from outside the body;
 *   - (direction[0], direction[1], outward normal) is a right-handed
 *     orthonormal frame; direction[k] is the direction of curvature[k].
 *
 * Ellipsoid. The surface is the level set F(p) = p^T D p - 1 = 0 with
 * D = diag(1/a^2, 1/b^2, 1/c^2). The second fundamental form of a level set
 * with respect to the outward unit normal nu = grad F / |grad F| is
 * II(u, v) = u^T Hess(F) v / |grad F| for tangent u, v (e.g. Goldman,
 * "Curvature formulas for implicit curves and surfaces", CAGD 22 (2005)
 * 632-658); here Hess F = 2 D and grad F = 2 D p, so in an orthonormal tangent
 * basis (t1, t2) the shape operator is the symmetric 2x2
 *   M_kl = t_k^T D t_l / |D p|,
 * whose eigenvalues are the principal curvatures and whose eigenvectors,
 * mapped back through (t1, t2), are the principal directions.
 *
 * Effective radius (Johnson, Contact Mechanics, 1985, Sec. 4.1):
 * near the contact the gap between two surfaces is A x^2 + B y^2 in the
 * principal axes of the relative curvature, with
 *   A + B = (k1i + k2i + k1j + k2j) / 2,
 *   B - A = 1/2 sqrt(gi^2 + gj^2 + 2 gi gj cos 2 phi),  g = k1 - k2,
 * phi the angle between the directions of k1i and k1j, and the equivalent
 * radius of the Hertz contact is R_e = 1 / (2 sqrt(A B)). Rather than
 * subtracting (B - A)^2 from (A + B)^2, which cancels for nearly cylindrical
 * contacts, A B is expanded (substitute k1 = (K + g)/2, k2 = (K - g)/2,
 * K = k1 + k2) into
 *   16 A B = 4 k1i k2i + 4 k1j k2j + 2 (Ki Kj - gi gj cos 2 phi),
 * in which every term is >= 0 for convex surfaces (K >= |g|).
 *
 * Must not touch: contact laws, the world, the steppers. */
#include "collide/collide.h"

void fd_ellipsoid_curvature(fd_vec3 semi_axes, fd_vec3 p, double curvature[2], fd_vec3 direction[2])
{
    fd_vec3 d = fd_v3(1.0 / (semi_axes.x * semi_axes.x), 1.0 / (semi_axes.y * semi_axes.y),
                      1.0 / (semi_axes.z * semi_axes.z));
    fd_vec3 gradient = fd_v3_hadamard(d, p); /* D p, half the gradient of F */
    double gradient_length = fd_v3_length(gradient);
    fd_vec3 nu = fd_v3_scale(1.0 / gradient_length, gradient);

    fd_vec3 t1 = fd_v3_any_orthogonal(nu);
    fd_vec3 t2 = fd_v3_cross(nu, t1);
    fd_vec3 dt1 = fd_v3_hadamard(d, t1);
    fd_vec3 dt2 = fd_v3_hadamard(d, t2);
    double m11 = fd_v3_dot(t1, dt1) / gradient_length;
    double m22 = fd_v3_dot(t2, dt2) / gradient_length;
    double m12 = fd_v3_dot(t1, dt2) / gradient_length;

    /* Symmetric 2x2 eigenproblem in closed form: with
     * (m11 - m22)/2 = h cos 2 theta and m12 = h sin 2 theta, M = mean I + h R,
     * R the reflection whose +1 eigenvector is (cos theta, sin theta). */
    double mean = 0.5 * (m11 + m22);
    double half_difference = 0.5 * (m11 - m22);
    double h = hypot(half_difference, m12);
    double theta = 0.5 * atan2(m12, half_difference); /* atan2(0, 0) = 0: any direction at an umbilic */
    curvature[0] = mean + h;
    curvature[1] = mean - h;
    direction[0] = fd_v3_normalize(fd_v3_add(fd_v3_scale(cos(theta), t1), fd_v3_scale(sin(theta), t2)));
    direction[1] = fd_v3_cross(nu, direction[0]);
}

double fd_effective_radius(const double curvature_i[2], const fd_vec3 direction_i[2], const double curvature_j[2],
                           const fd_vec3 direction_j[2])
{
    double sum_i = curvature_i[0] + curvature_i[1];
    double sum_j = curvature_j[0] + curvature_j[1];
    double difference_i = curvature_i[0] - curvature_i[1];
    double difference_j = curvature_j[0] - curvature_j[1];
    /* The angle between the principal frames matters only when both
     * surfaces are curved unequally (not a sphere or a plane): otherwise the
     * product of the differences is 0 and the term below is exactly 0. */
    double cos_2phi = 0.0;
    if (difference_i * difference_j != 0.0) {
        double cos_phi = fd_v3_dot(fd_v3_normalize(direction_i[0]), fd_v3_normalize(direction_j[0]));
        cos_phi = fmin(1.0, fmax(-1.0, cos_phi));
        cos_2phi = 2.0 * cos_phi * cos_phi - 1.0;
    }
    double sixteen_ab = 4.0 * curvature_i[0] * curvature_i[1] + 4.0 * curvature_j[0] * curvature_j[1] +
                        2.0 * (sum_i * sum_j - difference_i * difference_j * cos_2phi);
    if (!(sixteen_ab > 0.0)) {
        return INFINITY; /* a flat or line contact: no finite Hertz radius */
    }
    /* R_e = 1 / (2 sqrt(A B)) = 1 / sqrt(4 A B) = 2 / sqrt(16 A B). */
    return 2.0 / sqrt(sixteen_ab);
}
