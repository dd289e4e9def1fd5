/* Narrow phase: the full contact geometry of one pair of shapes.
 *
 * What the Fang & Negrut friction model needs from a contact (paper Sec. 2,
 * App. B and C): the contact point on each surface, global and painted on
 * the body (local), the normal, the penetration, and the curvature of both
 * surfaces at their points (roll and spin stiffnesses, Hertz radius). So
 * every pair computes two surface points, not one midpoint.
 *
 * Conventions (fd_contact_geometry in fricdem/types.h):
 *   - normal: unit, pointing INTO body i (from j towards i); a positive
 *     normal force pushes body i along +normal;
 *   - point_j - point_i = penetration * normal for every pair handled here
 *     (the two surface points lie on one normal line), penetration > 0 when
 *     the bodies overlap;
 *   - curvature[0] >= curvature[1]; (principal_dir[0], principal_dir[1],
 *     outward normal of that surface) is a right-handed orthonormal frame in
 *     the world. The outward normal of body i's surface is -normal, that of
 *     body j is +normal. Spheres and planes have no preferred tangent
 *     direction: their pair is a fixed function of the outward normal
 *     (fd_v3_any_orthogonal), so it is deterministic;
 *   - the geometry is written only when the result is FD_COLLIDE_TOUCHING,
 *     i.e. penetration > -margin; otherwise *geometry is left as it was.
 *
 * Each pair is computed in one canonical order (sphere before plane,
 * ellipsoid before plane, sphere before ellipsoid); the other order swaps
 * the points and curvatures and negates the normal.
 *
 * Closest point on an ellipsoid (sphere-ellipsoid): the robust method of
 * D. Eberly, "Distance from a Point to an Ellipse, an Ellipsoid, or a
 * Hyperellipsoid" (Geometric Tools, 2013), written here from its equations:
 * reflect the query point into the first octant, sort the semi-axes
 * e0 >= e1 >= e2, and solve the Lagrange condition x - y + t D x = 0,
 * x_i = e_i^2 y_i / (e_i^2 + t), for the root t > -e2^2 of
 * sum_i (e_i y_i / (e_i^2 + t))^2 = 1 by bisection; a zero coordinate drops
 * to the ellipse problem in the remaining plane, or (zero coordinate along
 * the smallest axis, point deep inside) to a closed form. The unknown here
 * is u = 1 + t / e2^2 (Eberly bisects on t / e2^2): every denominator is then
 * u + (e_i^2 - e2^2)/e2^2, a sum of two non-negative numbers each known to
 * full relative precision, so x_2 = y_2 / u stays accurate when the point
 * is nearly on the plane of the two larger axes (u -> 0). The bisection
 * runs to adjacent doubles (50 to 70 steps), so the result is exact
 * to round-off and a deterministic function of its inputs.
 *
 * Must not touch: contact laws, the world, the steppers. */
#include "collide/collide.h"
#include "collide/walls.h"

/* ---------------------------------------------------------------- closest point on an ellipsoid */

/* Root u > 0 of G(u) = sum_k (rz[k] / (u + offset[k]))^2 - 1 in [lo, hi] with
 * G(lo) >= 0 >= G(hi); G decreases on u > 0 (offset[k] >= 0, the last one
 * 0). Bisection in log scale while the bracket spans more than a factor 4
 * (a root near 0 is then found to full relative precision), then
 * arithmetic, until no double lies strictly between lo and hi. */
static double secular_root(int count, const double rz[], const double offset[], double lo, double hi)
{
    for (int iteration = 0; iteration < 400; ++iteration) {
        double mid = hi > 4.0 * lo ? sqrt(lo) * sqrt(hi) : 0.5 * (lo + hi);
        if (!(mid > lo && mid < hi)) {
            mid = 0.5 * (lo + hi);
            if (!(mid > lo && mid < hi)) {
                break;
            }
        }
        double g = -1.0;
        for (int k = 0; k < count; ++k) {
            double q = rz[k] / (mid + offset[k]);
            g += q * q;
        }
        if (g > 0.0) {
            lo = mid;
        } else if (g < 0.0) {
            hi = mid;
        } else {
            return mid;
        }
    }
    return 0.5 * (lo + hi);
}

/* Closest point on the ellipse (x0/e0)^2 + (x1/e1)^2 = 1 to (y0, y1), with
 * e0 >= e1 > 0 and y0, y1 >= 0. */
static void closest_on_ellipse(const double e[2], const double y[2], double x[2])
{
    if (y[1] > 0.0) {
        if (y[0] > 0.0) {
            double z[2] = {y[0] / e[0], y[1] / e[1]};
            double r0 = (e[0] / e[1]) * (e[0] / e[1]);
            double offset[2] = {(e[0] - e[1]) * (e[0] + e[1]) / (e[1] * e[1]), 0.0};
            double rz[2] = {r0 * z[0], z[1]};
            bool inside = z[0] * z[0] + z[1] * z[1] < 1.0;
            double hi = inside ? 1.0 : hypot(rz[0], rz[1]);
            double u = secular_root(2, rz, offset, z[1], hi);
            x[0] = r0 * y[0] / (u + offset[0]);
            x[1] = y[1] / u;
        } else {
            x[0] = 0.0;
            x[1] = e[1];
        }
    } else {
        /* On the major axis: inside the evolute's cusp the closest point
         * leaves the axis (Lagrange condition with t = -e1^2). */
        double denominator = (e[0] - e[1]) * (e[0] + e[1]);
        double numerator = e[0] * y[0];
        if (numerator < denominator) {
            double ratio = numerator / denominator;
            x[0] = e[0] * ratio;
            x[1] = e[1] * sqrt(fmax(0.0, 1.0 - ratio * ratio));
        } else {
            x[0] = e[0];
            x[1] = 0.0;
        }
    }
}

/* Same for the ellipsoid with e0 >= e1 >= e2 > 0 and y >= 0. */
static void closest_on_sorted_ellipsoid(const double e[3], const double y[3], double x[3])
{
    if (y[2] > 0.0) {
        if (y[1] > 0.0) {
            if (y[0] > 0.0) {
                double z[3] = {y[0] / e[0], y[1] / e[1], y[2] / e[2]};
                double r[3] = {(e[0] / e[2]) * (e[0] / e[2]), (e[1] / e[2]) * (e[1] / e[2]), 1.0};
                double offset[3] = {(e[0] - e[2]) * (e[0] + e[2]) / (e[2] * e[2]),
                                    (e[1] - e[2]) * (e[1] + e[2]) / (e[2] * e[2]), 0.0};
                double rz[3] = {r[0] * z[0], r[1] * z[1], z[2]};
                bool inside = z[0] * z[0] + z[1] * z[1] + z[2] * z[2] < 1.0;
                double hi = inside ? 1.0 : sqrt(rz[0] * rz[0] + rz[1] * rz[1] + rz[2] * rz[2]);
                double u = secular_root(3, rz, offset, z[2], hi);
                x[0] = r[0] * y[0] / (u + offset[0]);
                x[1] = r[1] * y[1] / (u + offset[1]);
                x[2] = y[2] / u;
            } else {
                double sub_e[2] = {e[1], e[2]}, sub_y[2] = {y[1], y[2]}, sub_x[2];
                closest_on_ellipse(sub_e, sub_y, sub_x);
                x[0] = 0.0;
                x[1] = sub_x[0];
                x[2] = sub_x[1];
            }
        } else if (y[0] > 0.0) {
            double sub_e[2] = {e[0], e[2]}, sub_y[2] = {y[0], y[2]}, sub_x[2];
            closest_on_ellipse(sub_e, sub_y, sub_x);
            x[0] = sub_x[0];
            x[1] = 0.0;
            x[2] = sub_x[1];
        } else {
            x[0] = 0.0;
            x[1] = 0.0;
            x[2] = e[2];
        }
        return;
    }
    /* On the plane of the two larger axes. Deep inside (the region bounded by
     * the focal ellipse) the closest point leaves the plane: t = -e2^2. */
    double denominator0 = (e[0] - e[2]) * (e[0] + e[2]);
    double denominator1 = (e[1] - e[2]) * (e[1] + e[2]);
    double numerator0 = e[0] * y[0];
    double numerator1 = e[1] * y[1];
    if (numerator0 < denominator0 && numerator1 < denominator1) {
        double ratio0 = numerator0 / denominator0;
        double ratio1 = numerator1 / denominator1;
        double discriminant = 1.0 - ratio0 * ratio0 - ratio1 * ratio1;
        if (discriminant > 0.0) {
            x[0] = e[0] * ratio0;
            x[1] = e[1] * ratio1;
            x[2] = e[2] * sqrt(discriminant);
            return;
        }
    }
    double sub_x[2];
    closest_on_ellipse(e, y, sub_x);
    x[0] = sub_x[0];
    x[1] = sub_x[1];
    x[2] = 0.0;
}

/* Closest point on the surface of the ellipsoid with the given semi-axes
 * (body frame) to the point y (body frame). Where several points are equally
 * close (y on the medial surface) one of them is returned, always the same. */
static fd_vec3 ellipsoid_closest_point(fd_vec3 semi_axes, fd_vec3 y)
{
    double axes[3] = {semi_axes.x, semi_axes.y, semi_axes.z};
    double point[3] = {y.x, y.y, y.z};
    /* Sort the axes by decreasing length; ties keep x, y, z order. */
    int order[3] = {0, 1, 2};
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 0; k + 1 < 3; ++k) {
            if (axes[order[k + 1]] > axes[order[k]]) {
                int swap = order[k];
                order[k] = order[k + 1];
                order[k + 1] = swap;
            }
        }
    }
    double sorted_e[3], sorted_y[3], sorted_x[3];
    for (int k = 0; k < 3; ++k) {
        sorted_e[k] = axes[order[k]];
        sorted_y[k] = fabs(point[order[k]]);
    }
    closest_on_sorted_ellipsoid(sorted_e, sorted_y, sorted_x);
    double result[3];
    for (int k = 0; k < 3; ++k) {
        result[order[k]] = point[order[k]] < 0.0 ? -sorted_x[k] : sorted_x[k];
    }
    return fd_v3(result[0], result[1], result[2]);
}

/* ---------------------------------------------------------------- surface frames */

/* Sphere or plane: equal curvatures, tangent pair fixed by the outward normal. */
static void round_surface(double curvature, fd_vec3 outward, double curvatures[2], fd_vec3 directions[2])
{
    curvatures[0] = curvature;
    curvatures[1] = curvature;
    directions[0] = fd_v3_any_orthogonal(outward);
    directions[1] = fd_v3_cross(outward, directions[0]);
}

/* Two round surfaces touching along n (into i): round_surface for i about
 * -n and for j about n, with one orthogonal vector for both. The helper of
 * fd_v3_any_orthogonal depends on |n| only, so i's first direction is
 * exactly minus j's and i's second exactly j's (negation is exact): the
 * same bits as two calls, at half the cost. */
static void round_surfaces(double curvature_i, double curvature_j, fd_vec3 n, bool directions, fd_contact_geometry* g)
{
    g->curvature_i[0] = g->curvature_i[1] = curvature_i;
    g->curvature_j[0] = g->curvature_j[1] = curvature_j;
    if (!directions) {
        return; /* left zero (fd_collide_round_frames_skipped) */
    }
    fd_vec3 first_j = fd_v3_any_orthogonal(n);
    fd_vec3 second = fd_v3_cross(n, first_j);
    g->principal_dir_i[0] = fd_v3_neg(first_j);
    g->principal_dir_i[1] = second;
    g->principal_dir_j[0] = first_j;
    g->principal_dir_j[1] = second;
}

/* Ellipsoid at the body-frame surface point p: curvatures, world directions. */
static void ellipsoid_surface(const fd_shape* ellipsoid, fd_quat orientation, fd_vec3 p, double curvatures[2],
                              fd_vec3 directions[2])
{
    fd_vec3 body_directions[2];
    fd_ellipsoid_curvature(ellipsoid->semi_axes, p, curvatures, body_directions);
    directions[0] = fd_quat_rotate(orientation, body_directions[0]);
    directions[1] = fd_quat_rotate(orientation, body_directions[1]);
}

/* Outward unit normal of the ellipsoid at the body-frame surface point p. */
static fd_vec3 ellipsoid_normal(fd_vec3 semi_axes, fd_vec3 p)
{
    fd_vec3 inverse_square = fd_v3(1.0 / (semi_axes.x * semi_axes.x), 1.0 / (semi_axes.y * semi_axes.y),
                                   1.0 / (semi_axes.z * semi_axes.z));
    return fd_v3_normalize(fd_v3_hadamard(inverse_square, p));
}

static fd_vec3 plane_world_normal(const fd_shape* plane, fd_pose pose)
{
    return fd_quat_rotate(pose.orientation, plane->plane_normal);
}

/* ---------------------------------------------------------------- pairs, canonical order (normal into a) */

static fd_collide_result sphere_sphere(const fd_shape* a, fd_pose pose_a, const fd_shape* b, fd_pose pose_b,
                                       double margin, bool directions, fd_contact_geometry* g)
{
    fd_vec3 offset = fd_v3_sub(pose_a.position, pose_b.position);
    double distance = fd_v3_length(offset);
    double penetration = a->radius + b->radius - distance;
    if (!(penetration > -margin)) {
        return FD_COLLIDE_SEPARATED;
    }
    /* Coincident centres: any direction is as good; +z, deterministically. */
    fd_vec3 n = distance > 0.0 ? fd_v3_scale(1.0 / distance, offset) : fd_v3(0, 0, 1);
    g->normal = n;
    g->penetration = penetration;
    g->point_i = fd_v3_mul_add(pose_a.position, -a->radius, n);
    g->point_j = fd_v3_mul_add(pose_b.position, b->radius, n);
    round_surfaces(1.0 / a->radius, 1.0 / b->radius, n, directions, g);
    return FD_COLLIDE_TOUCHING;
}

static fd_collide_result sphere_plane(const fd_shape* sphere, fd_pose pose_s, const fd_shape* plane, fd_pose pose_p,
                                      double margin, bool directions, fd_contact_geometry* g)
{
    fd_vec3 n = plane_world_normal(plane, pose_p);
    double height = fd_v3_dot(fd_v3_sub(pose_s.position, pose_p.position), n); /* centre above the plane */
    double penetration = sphere->radius - height;
    if (!(penetration > -margin)) {
        return FD_COLLIDE_SEPARATED;
    }
    g->normal = n;
    g->penetration = penetration;
    g->point_i = fd_v3_mul_add(pose_s.position, -sphere->radius, n);
    g->point_j = fd_v3_mul_add(pose_s.position, -height, n);
    round_surfaces(1.0 / sphere->radius, 0.0, n, directions, g);
    return FD_COLLIDE_TOUCHING;
}

/* The deepest point of the ellipsoid below the plane is its support point in
 * the direction m = -n (outward plane normal n): maximising m^T p over
 * p^T A^-2 p = 1 gives p = A^2 m / sqrt(m^T A^2 m), A = diag(a, b, c), and
 * the support value h = m^T p = sqrt(m^T A^2 m); the outward normal there is m. */
static fd_collide_result ellipsoid_plane(const fd_shape* ellipsoid, fd_pose pose_e, const fd_shape* plane,
                                         fd_pose pose_p, double margin, fd_contact_geometry* g)
{
    fd_vec3 n = plane_world_normal(plane, pose_p);
    fd_vec3 m = fd_quat_rotate_inverse(pose_e.orientation, fd_v3_neg(n));
    fd_vec3 a2 = fd_v3_hadamard(ellipsoid->semi_axes, ellipsoid->semi_axes);
    fd_vec3 a2m = fd_v3_hadamard(a2, m);
    double support = sqrt(fd_v3_dot(m, a2m));
    double height = fd_v3_dot(fd_v3_sub(pose_e.position, pose_p.position), n); /* centre above the plane */
    double penetration = support - height;
    if (!(penetration > -margin)) {
        return FD_COLLIDE_SEPARATED;
    }
    fd_vec3 p = fd_v3_scale(1.0 / support, a2m);
    g->normal = n;
    g->penetration = penetration;
    g->point_i = fd_v3_add(pose_e.position, fd_quat_rotate(pose_e.orientation, p));
    g->point_j = fd_v3_mul_add(g->point_i, penetration, n);
    ellipsoid_surface(ellipsoid, pose_e.orientation, p, g->curvature_i, g->principal_dir_i);
    round_surface(0.0, n, g->curvature_j, g->principal_dir_j);
    return FD_COLLIDE_TOUCHING;
}

/* Sphere (a) against ellipsoid (b): x = closest surface point of the
 * ellipsoid to the sphere centre c, nu the outward ellipsoid normal at x.
 * c = x + d nu outside and c = x - d nu inside (d = |c - x|), so the
 * penetration is R - d or R + d and the sphere's point is c - R nu. */
static fd_collide_result sphere_ellipsoid(const fd_shape* sphere, fd_pose pose_s, const fd_shape* ellipsoid,
                                          fd_pose pose_e, double margin, fd_contact_geometry* g)
{
    double radius = sphere->radius;
    fd_vec3 centre_offset = fd_v3_sub(pose_s.position, pose_e.position);
    /* Cheap rejection: the surface is within bounding_radius of the centre,
     * so penetration <= R + bounding_radius - |centre offset|. The small
     * slack keeps round-off from deciding a case at the margin. */
    double reach = radius + ellipsoid->bounding_radius + margin;
    if (fd_v3_length(centre_offset) - reach > 1e-9 * reach) {
        return FD_COLLIDE_SEPARATED;
    }
    fd_vec3 semi_axes = ellipsoid->semi_axes;
    fd_vec3 c = fd_quat_rotate_inverse(pose_e.orientation, centre_offset);
    fd_vec3 x = ellipsoid_closest_point(semi_axes, c);
    double distance = fd_v3_distance(c, x);
    fd_vec3 scaled = fd_v3(c.x / semi_axes.x, c.y / semi_axes.y, c.z / semi_axes.z);
    bool inside = fd_v3_length_squared(scaled) < 1.0;
    double penetration = inside ? radius + distance : radius - distance;
    if (!(penetration > -margin)) {
        return FD_COLLIDE_SEPARATED;
    }
    fd_vec3 nu = fd_quat_rotate(pose_e.orientation, ellipsoid_normal(semi_axes, x));
    g->normal = nu;
    g->penetration = penetration;
    g->point_i = fd_v3_mul_add(pose_s.position, -radius, nu);
    g->point_j = fd_v3_add(pose_e.position, fd_quat_rotate(pose_e.orientation, x));
    round_surface(1.0 / radius, fd_v3_neg(nu), g->curvature_i, g->principal_dir_i);
    ellipsoid_surface(ellipsoid, pose_e.orientation, x, g->curvature_j, g->principal_dir_j);
    return FD_COLLIDE_TOUCHING;
}

/* ---------------------------------------------------------------- ellipsoid pairs */

/* Support distance of an ellipsoid along the world unit direction d:
 * max over the surface of d . (x - centre) = |A R^T d|, A = diag(a, b, c). */
static double ellipsoid_support(const fd_shape* e, fd_quat orientation, fd_vec3 d)
{
    return fd_v3_length(fd_v3_hadamard(e->semi_axes, fd_quat_rotate_inverse(orientation, d)));
}

/* Conservative separation test for two ellipsoids (we do not compute their
 * contact): separating-axis checks along the centre line and the six
 * principal axes. True means certainly apart by more than the margin; false
 * means they may touch, and the pair is refused as unsupported. This lets
 * ellipsoids share a scene as long as they never come close. */
static bool ellipsoids_separated(const fd_shape* a, fd_pose pose_a, const fd_shape* b, fd_pose pose_b, double margin)
{
    fd_vec3 between = fd_v3_sub(pose_b.position, pose_a.position);
    fd_vec3 axes[7];
    axes[0] = fd_v3_normalize(between);
    for (int k = 0; k < 3; ++k) {
        fd_vec3 unit = k == 0 ? fd_v3(1, 0, 0) : (k == 1 ? fd_v3(0, 1, 0) : fd_v3(0, 0, 1));
        axes[1 + k] = fd_quat_rotate(pose_a.orientation, unit);
        axes[4 + k] = fd_quat_rotate(pose_b.orientation, unit);
    }
    for (int k = 0; k < 7; ++k) {
        double gap = fabs(fd_v3_dot(between, axes[k])) - ellipsoid_support(a, pose_a.orientation, axes[k]) -
                     ellipsoid_support(b, pose_b.orientation, axes[k]);
        if (fd_v3_length_squared(axes[k]) > 0.0 && gap > margin) {
            return true;
        }
    }
    return false;
}

/* ---------------------------------------------------------------- finite walls */

/* A sphere against a finite wall (src/collide/walls.h): the wall's closest
 * point to the centre in the wall frame, the contact's normal from it to the
 * centre (into the sphere, body i), both surface points and the wall's
 * curvatures in world. The walls are two-sided sheets. */
static fd_collide_result sphere_wall(const fd_shape* sphere, fd_pose pose_s, const fd_shape* wall, fd_pose pose_w,
                                     double margin, bool directions, fd_contact_geometry* g)
{
    fd_vec3 centre = fd_quat_rotate_inverse(pose_w.orientation, fd_v3_sub(pose_s.position, pose_w.position));
    double reach = sphere->radius + margin;
    fd_wall_hit hit;
    bool touching = false;
    switch (wall->type) {
    case FD_SHAPE_CYLINDER:
        touching = fd_cylinder_closest(wall->radius, wall->length, wall->capped, centre, reach, &hit);
        break;
    case FD_SHAPE_DISK: {
        fd_vec3 in_plane = fd_v3(centre.x, centre.y, centre.z - wall->offset);
        touching = fd_disk_closest(wall->inner_radius, wall->radius, in_plane, reach, &hit);
        hit.point.z += wall->offset;
        /* A cap's outer rim on the shell's side of its plane is the shell's
         * contact (the shell's face is nearer or as near there). */
        double rho_squared = hit.point.x * hit.point.x + hit.point.y * hit.point.y;
        if (touching && wall->cap_of_shell != 0 && hit.feature != FD_WALL_FACE &&
            rho_squared > 0.25 * (wall->radius + wall->inner_radius) * (wall->radius + wall->inner_radius) &&
            wall->cap_of_shell * in_plane.z > 0.0) {
            touching = false;
        }
        break;
    }
    case FD_SHAPE_MESH:
        touching = fd_mesh_patch_closest(wall->mesh, wall->mesh_patch, centre, reach, &hit);
        break;
    default:
        return FD_COLLIDE_UNSUPPORTED;
    }
    if (!touching) {
        return FD_COLLIDE_SEPARATED;
    }
    fd_vec3 n = fd_quat_rotate(pose_w.orientation, hit.normal);
    g->normal = n;
    g->penetration = sphere->radius - hit.gap;
    g->point_i = fd_v3_mul_add(pose_s.position, -sphere->radius, n);
    g->point_j = fd_v3_add(pose_w.position, fd_quat_rotate(pose_w.orientation, hit.point));
    round_surfaces(1.0 / sphere->radius, 0.0, n, directions, g);
    g->curvature_j[0] = hit.curvature[0];
    g->curvature_j[1] = hit.curvature[1];
    if (hit.curvature[0] != hit.curvature[1] || directions) {
        /* Unequal curvatures (a shell) always need their directions. */
        g->principal_dir_j[0] = fd_quat_rotate(pose_w.orientation, hit.principal_dir[0]);
        g->principal_dir_j[1] = fd_quat_rotate(pose_w.orientation, hit.principal_dir[1]);
    }
    return FD_COLLIDE_TOUCHING;
}

/* ---------------------------------------------------------------- dispatch */

/* Whether the pair (a, b) is handled as (b, a): planes go last, ellipsoids
 * after spheres. */
static bool is_reversed(fd_shape_type a, fd_shape_type b)
{
    return (fd_shape_is_wall(a) && !fd_shape_is_wall(b)) || (a == FD_SHAPE_ELLIPSOID && b == FD_SHAPE_SPHERE);
}

static fd_collide_result collide_canonical(const fd_shape* a, fd_pose pose_a, const fd_shape* b, fd_pose pose_b,
                                           double margin, bool directions, fd_contact_geometry* g)
{
    if (a->type == FD_SHAPE_SPHERE && b->type == FD_SHAPE_SPHERE) {
        return sphere_sphere(a, pose_a, b, pose_b, margin, directions, g);
    }
    if (a->type == FD_SHAPE_SPHERE && b->type == FD_SHAPE_PLANE) {
        return sphere_plane(a, pose_a, b, pose_b, margin, directions, g);
    }
    if (a->type == FD_SHAPE_SPHERE && fd_shape_is_wall(b->type)) {
        return sphere_wall(a, pose_a, b, pose_b, margin, directions, g);
    }
    if (a->type == FD_SHAPE_ELLIPSOID && b->type == FD_SHAPE_PLANE) {
        return ellipsoid_plane(a, pose_a, b, pose_b, margin, g);
    }
    if (a->type == FD_SHAPE_SPHERE && b->type == FD_SHAPE_ELLIPSOID) {
        return sphere_ellipsoid(a, pose_a, b, pose_b, margin, g);
    }
    if (a->type == FD_SHAPE_ELLIPSOID && b->type == FD_SHAPE_ELLIPSOID &&
        ellipsoids_separated(a, pose_a, b, pose_b, margin)) {
        return FD_COLLIDE_SEPARATED;
    }
    return FD_COLLIDE_UNSUPPORTED; /* ellipsoid-ellipsoid that may touch, plane-plane */
}

static fd_collide_result collide(const fd_shape* shape_i, fd_pose pose_i, const fd_shape* shape_j, fd_pose pose_j,
                                 double margin, bool directions, fd_contact_geometry* geometry)
{
    fd_contact_geometry g = {0};
    bool reversed = is_reversed(shape_i->type, shape_j->type);
    fd_collide_result result = reversed ? collide_canonical(shape_j, pose_j, shape_i, pose_i, margin, directions, &g)
                                        : collide_canonical(shape_i, pose_i, shape_j, pose_j, margin, directions, &g);
    if (result != FD_COLLIDE_TOUCHING) {
        return result;
    }
    if (reversed) {
        /* Computed with j as "i": swap the surfaces, turn the normal round. */
        fd_contact_geometry s = g;
        g.point_i = s.point_j;
        g.point_j = s.point_i;
        g.normal = fd_v3_neg(s.normal);
        for (int k = 0; k < 2; ++k) {
            g.curvature_i[k] = s.curvature_j[k];
            g.curvature_j[k] = s.curvature_i[k];
            g.principal_dir_i[k] = s.principal_dir_j[k];
            g.principal_dir_j[k] = s.principal_dir_i[k];
        }
    }
    g.local_point_i = fd_quat_rotate_inverse(pose_i.orientation, fd_v3_sub(g.point_i, pose_i.position));
    g.local_point_j = fd_quat_rotate_inverse(pose_j.orientation, fd_v3_sub(g.point_j, pose_j.position));
    g.effective_radius = fd_effective_radius(g.curvature_i, g.principal_dir_i, g.curvature_j, g.principal_dir_j);
    *geometry = g;
    return FD_COLLIDE_TOUCHING;
}

fd_collide_result fd_collide(const fd_shape* shape_i, fd_pose pose_i, const fd_shape* shape_j, fd_pose pose_j,
                             double margin, fd_contact_geometry* geometry)
{
    return collide(shape_i, pose_i, shape_j, pose_j, margin, true, geometry);
}

fd_collide_result fd_collide_round_frames_skipped(const fd_shape* shape_i, fd_pose pose_i, const fd_shape* shape_j,
                                                  fd_pose pose_j, double margin, fd_contact_geometry* geometry)
{
    return collide(shape_i, pose_i, shape_j, pose_j, margin, false, geometry);
}
