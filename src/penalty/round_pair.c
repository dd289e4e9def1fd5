/* Geometry on demand for the round pairs of the registry's laws (sphere-
 * sphere and sphere-plane entries of kinds FD_PAIR_GENERIC_SPHERES + 0, 1,
 * 2: Fang & Negrut, PFC, a prescribed normal force).
 *
 * Such a pair needs no narrow phase: its normal, surface points and
 * curvatures follow from the two centres (or the centre and the plane). These
 * functions compute them with the same operations, in the same order, as
 * src/collide/narrowphase.c's sphere_sphere and sphere_plane reached through
 * fd_collide (the periodic image of body j added to j's position first, the
 * plane's normal turned round when the plane is body i), so a pair evaluated
 * here gets the bits fd_collide gives (a sphere's bounding radius is its
 * radius), at a fraction of the cost: no
 * principal directions (a round surface curves alike every way, and no law
 * reads them there), no body-frame points, no copy of a geometry slot. A
 * pass that records contacts stores fd_collide's full geometry, which
 * fd_round_pair_record_geometry computes the same way (tests/
 * test_round_pair.c checks both against fd_collide, bit for bit).
 *
 * Must not: decide anything a law decides, or read a contact's history. */
#include <math.h>

#include "penalty/round_pair.h"

fd_vec3 fd_round_pair_geometry(const fd_world* world, int i, int j, int shapes, fd_generic_slot* out)
{
    fd_contact_geometry* g = &out->geometry;
    /* What the branches below do not set, zeroed field by field (a zeroed
     * struct is a `rep stos`, slow at this size, whose wide stores the
     * readers of the fields then wait for). */
    const fd_vec3 zero = {0.0, 0.0, 0.0};
    g->local_point_i = g->local_point_j = zero;
    g->principal_dir_i[0] = g->principal_dir_i[1] = g->principal_dir_j[0] = g->principal_dir_j[1] = zero;
    fd_vec3 image = fd_round_pair_image_offset(world, i, j);
    out->offset = image;
    if (shapes == FD_PAIR_SPHERE_SPHERE) {
        double radius_i = world->bounding_radii[i], radius_j = world->bounding_radii[j];
        fd_vec3 position_i = world->position[i];
        fd_vec3 position_j = fd_v3_add(world->position[j], image);
        fd_vec3 offset = fd_v3_sub(position_i, position_j);
        double distance = fd_v3_length(offset);
        fd_vec3 n = distance > 0.0 ? fd_v3_scale(1.0 / distance, offset) : fd_v3(0, 0, 1);
        g->normal = n;
        g->penetration = radius_i + radius_j - distance;
        g->point_i = fd_v3_mul_add(position_i, -radius_i, n);
        g->point_j = fd_v3_mul_add(position_j, radius_j, n);
        g->curvature_i[0] = g->curvature_i[1] = 1.0 / radius_i;
        g->curvature_j[0] = g->curvature_j[1] = 1.0 / radius_j;
    } else {
        /* Computed with the sphere as "i" (narrowphase.c's canonical order),
         * then turned round when the plane is body i. */
        bool plane_first = shapes == FD_PAIR_PLANE_SPHERE;
        int sphere = plane_first ? j : i, plane = plane_first ? i : j;
        double radius = world->bounding_radii[sphere];
        fd_vec3 centre = world->position[sphere];
        fd_vec3 n = world->plane_normals[plane];
        double height = fd_v3_dot(fd_v3_sub(centre, world->position[plane]), n);
        fd_vec3 sphere_point = fd_v3_mul_add(centre, -radius, n);
        fd_vec3 plane_point = fd_v3_mul_add(centre, -height, n);
        g->penetration = radius - height;
        g->normal = plane_first ? fd_v3_neg(n) : n;
        g->point_i = plane_first ? plane_point : sphere_point;
        g->point_j = plane_first ? sphere_point : plane_point;
        double curvature_i = plane_first ? 0.0 : 1.0 / radius, curvature_j = plane_first ? 1.0 / radius : 0.0;
        g->curvature_i[0] = g->curvature_i[1] = curvature_i;
        g->curvature_j[0] = g->curvature_j[1] = curvature_j;
    }
    g->effective_radius = fd_effective_radius(g->curvature_i, g->principal_dir_i, g->curvature_j, g->principal_dir_j);
    return image;
}

/* fd_collide's full geometry of a round pair, for a record: the geometry
 * above, plus what fd_collide adds (narrowphase.c: round_surfaces' principal
 * directions, both points in their body's frame), with its operations, so
 * the record holds fd_collide's bits without its shape dispatch or the cold
 * body records (the cache misses that made a recorded pass slow). */
fd_vec3 fd_round_pair_record_geometry(const fd_world* world, int i, int j, int shapes, fd_generic_slot* out)
{
    fd_vec3 offset = fd_round_pair_geometry(world, i, j, shapes, out);
    fd_contact_geometry* g = &out->geometry;
    /* The directions are round_surfaces' about the normal the canonical pair
     * (sphere first) was computed with: n into the first sphere; a plane
     * that is body i had its surfaces swapped after. */
    bool plane_first = shapes == FD_PAIR_PLANE_SPHERE;
    fd_vec3 canonical_normal = plane_first ? fd_v3_neg(g->normal) : g->normal;
    fd_vec3 first = fd_v3_any_orthogonal(canonical_normal);
    fd_vec3 second = fd_v3_cross(canonical_normal, first);
    g->principal_dir_i[0] = plane_first ? first : fd_v3_neg(first);
    g->principal_dir_i[1] = second;
    g->principal_dir_j[0] = plane_first ? fd_v3_neg(first) : first;
    g->principal_dir_j[1] = second;
    fd_vec3 position_j = fd_v3_add(world->position[j], offset);
    g->local_point_i = fd_quat_rotate_inverse(world->orientation[i], fd_v3_sub(g->point_i, world->position[i]));
    g->local_point_j = fd_quat_rotate_inverse(world->orientation[j], fd_v3_sub(g->point_j, position_j));
    return offset;
}
