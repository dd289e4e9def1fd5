/* Closest points of the primitive walls: a cylindrical shell and a disk or
 * annulus, both two-sided thin sheets in closed form.
 *
 * The closest point of a surface of revolution about z to a centre lies in
 * the half-plane through the axis and the centre, so both reduce to a 2-D
 * problem in (rho, z): the shell is the segment rho = R, |z| <= L/2; the
 * annulus the segment z = 0, inner <= rho <= outer. A centre on the axis has
 * a whole circle of closest points; the one towards +x is taken, so that the
 * answer is deterministic.
 *
 * Curvature seen from the sphere's side: the shell curves around the axis
 * with radius R, convex seen from outside (+1/R) and concave from inside
 * (-1/R), and is straight along it. Rims are sharp edges: the sphere touches a
 * line, whose curvature across is infinite and whose effect on the contact
 * is left to the sphere's own radius, as LIGGGHTS does for mesh edges; they
 * report curvature 0.
 *
 * Must not touch: contact laws, the world, the steppers. */
#include "collide/walls.h"

/* The unit radial direction of (x, y) in the z = 0 plane; +x on the axis. */
static fd_vec3 radial_direction(fd_vec3 centre, double rho)
{
    return rho > 0.0 ? fd_v3(centre.x / rho, centre.y / rho, 0.0) : fd_v3(1.0, 0.0, 0.0);
}

/* The hit of a sharp rim point: curvature 0, the normal from the point to the
 * centre (fallback when the centre lies on the rim: gap 0 and no direction),
 * principal directions along the rim and across it. */
static void fill_rim_hit(fd_vec3 point, fd_vec3 radial, fd_vec3 centre, fd_vec3 fallback_normal, fd_wall_hit* hit)
{
    fd_vec3 offset = fd_v3_sub(centre, point);
    double gap = fd_v3_length(offset);
    fd_vec3 normal = gap > 0.0 ? fd_v3_scale(1.0 / gap, offset) : fallback_normal;
    fd_vec3 along_rim = fd_v3(-radial.y, radial.x, 0.0); /* orthogonal to normal, which lies in (radial, z) */
    hit->point = point;
    hit->normal = normal;
    hit->gap = gap;
    hit->curvature[0] = 0.0;
    hit->curvature[1] = 0.0;
    hit->principal_dir[0] = along_rim;
    hit->principal_dir[1] = fd_v3_cross(normal, along_rim);
    hit->feature = FD_WALL_EDGE;
    hit->triangle = -1;
}

bool fd_cylinder_closest(double radius, double length, bool capped, fd_vec3 centre, double reach, fd_wall_hit* hit)
{
    double half_length = 0.5 * length;
    double height = fabs(centre.z);
    /* Beyond (or in) the plane of a rim the closest point is on the rim,
     * which a capped cylinder leaves to its cap. */
    if (capped && height >= half_length) {
        return false;
    }
    double rho = sqrt(centre.x * centre.x + centre.y * centre.y);
    fd_vec3 radial = radial_direction(centre, rho);
    if (height > half_length) {
        if (!(height - half_length < reach)) {
            return false; /* the gap is at least the height above the rim plane */
        }
        double rim_z = centre.z > 0.0 ? half_length : -half_length;
        fd_vec3 point = fd_v3(radius * radial.x, radius * radial.y, rim_z);
        fill_rim_hit(point, radial, centre, radial, hit);
        return hit->gap < reach;
    }
    double signed_gap = rho - radius; /* > 0 outside */
    double gap = fabs(signed_gap);
    if (!(gap < reach)) {
        return false;
    }
    bool outside = signed_gap >= 0.0; /* a centre on the sheet takes the outer side */
    hit->point = fd_v3(radius * radial.x, radius * radial.y, centre.z);
    hit->normal = outside ? radial : fd_v3_neg(radial);
    hit->gap = gap;
    hit->curvature[0] = (outside ? 1.0 : -1.0) / radius; /* around the axis */
    hit->curvature[1] = 0.0;                               /* along it */
    hit->principal_dir[0] = fd_v3(-radial.y, radial.x, 0.0);
    hit->principal_dir[1] = fd_v3(0.0, 0.0, 1.0);
    hit->feature = FD_WALL_FACE;
    hit->triangle = -1;
    return true;
}

bool fd_disk_closest(double inner_radius, double outer_radius, fd_vec3 centre, double reach, fd_wall_hit* hit)
{
    double rho = sqrt(centre.x * centre.x + centre.y * centre.y);
    fd_vec3 up = fd_v3(0.0, 0.0, centre.z >= 0.0 ? 1.0 : -1.0);
    if (rho >= inner_radius && rho <= outer_radius) {
        double gap = fabs(centre.z);
        if (!(gap < reach)) {
            return false;
        }
        hit->point = fd_v3(centre.x, centre.y, 0.0);
        hit->normal = up;
        hit->gap = gap;
        hit->curvature[0] = 0.0;
        hit->curvature[1] = 0.0;
        hit->principal_dir[0] = fd_v3(1.0, 0.0, 0.0);
        hit->principal_dir[1] = fd_v3(0.0, 1.0, 0.0);
        hit->feature = FD_WALL_FACE;
        hit->triangle = -1;
        return true;
    }
    double rim_radius = rho > outer_radius ? outer_radius : inner_radius;
    /* The gap is at least the in-plane distance to the rim circle. */
    if (!(fabs(rho - rim_radius) < reach)) {
        return false;
    }
    fd_vec3 radial = radial_direction(centre, rho);
    fill_rim_hit(fd_v3_scale(rim_radius, radial), radial, centre, up, hit);
    return hit->gap < reach;
}
