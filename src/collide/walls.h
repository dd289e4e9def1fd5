/* Finite walls: the pure geometry of a sphere against a wall surface.
 *
 * Everything here works in the wall frame (the wall body's frame): the caller
 * transforms the sphere centre into it and the results back. Two kinds of
 * wall:
 *   - primitives (a cylindrical shell, a disk or annulus), closed forms in
 *     src/collide/wall_primitives.c;
 *   - triangle meshes (from arrays or an STL file), split into patches at
 *     sharp edges; each patch is one contact body for the caller
 *     (src/collide/mesh.c builds a mesh, src/collide/mesh_query.c answers the
 *     closest-point queries, src/collide/stl.c reads STL files).
 *
 * Every surface is a two-sided thin sheet: a sphere on either side touches
 * the side it is on, and the normal points from the surface towards the
 * sphere centre.
 *
 * Must not touch: contact laws, the world, the steppers. */
#ifndef FD_COLLIDE_WALLS_H
#define FD_COLLIDE_WALLS_H

#include <stdbool.h>

#include "core/math.h"
#include "fricdem/fricdem.h"

typedef enum fd_wall_feature { FD_WALL_FACE = 0, FD_WALL_EDGE = 1, FD_WALL_VERTEX = 2 } fd_wall_feature;

/* The point of a wall surface closest to a sphere centre, wall frame. */
typedef struct fd_wall_hit {
    fd_vec3 point;            /* on the surface, m */
    fd_vec3 normal;           /* unit, from the surface towards the sphere centre */
    double gap;               /* |centre - point|, m (penetration of a sphere of radius r is r - gap) */
    double curvature[2];      /* principal curvatures of the wall surface at point, 1/m, seen from the sphere's
                                 side: convex > 0, concave < 0, flat 0 */
    fd_vec3 principal_dir[2]; /* unit tangent directions of those curvatures (any orthonormal tangent pair when
                                 both are equal) */
    fd_wall_feature feature;  /* FACE: the normal is the surface's; EDGE, VERTEX: the point is on a rim or a mesh
                                 edge or vertex, and the normal is (centre - point) / gap */
    int triangle;             /* mesh: the triangle (index in the mesh) the point lies on; -1 for primitives */
} fd_wall_hit;

/* ---------------------------------------------------------------- primitives */

/* Cylindrical shell, axis = wall z through the origin, radius R, z in
 * [-length/2, length/2]. Two-sided thin sheet: a sphere inside (drum) touches
 * the inner side (curvature -1/R around, 0 along), one outside the outer
 * (+1/R); curvature[0] is the one around the axis, curvature[1] the one along
 * it. A centre on the axis has every point of a circle closest; the point
 * towards +x is taken. When capped, the rims belong to the caps (the caller
 * builds the caps as disks), so a closest point on a rim returns false (also
 * for a centre exactly in the plane of a rim); uncapped, a rim point is an
 * edge, treated as sharp (curvature 0). Returns true and fills hit when
 * gap < reach. */
bool fd_cylinder_closest(double radius, double length, bool capped, fd_vec3 centre, double reach, fd_wall_hit* hit);

/* Disk or annulus in the wall's z = 0 plane, inner_radius <= rho <=
 * outer_radius (inner 0: a full disk). Two-sided. Rim points are edges
 * (curvature 0: treated as sharp). A centre in the plane on a rim (gap 0)
 * takes the normal +z. Returns true and fills hit when gap < reach. */
bool fd_disk_closest(double inner_radius, double outer_radius, fd_vec3 centre, double reach, fd_wall_hit* hit);

/* ---------------------------------------------------------------- meshes */

/* Building a mesh (fd_mesh_create, fd_mesh_read_stl) and reading it
 * (fd_mesh_vertices, ...) are public: include/fricdem/fricdem.h. */

/* Closest point of one patch to the centre, if gap < reach AND this patch
 * owns the contact. Mesh faces, edges and vertices are flat for the contact
 * (curvature 0). Inside a patch the point moves from triangle to triangle
 * (ties go to the lowest triangle index). Between patches: a hit on a
 * feature (edge or vertex) this patch shares with other patches is dropped
 * when another patch sharing it is closer over its triangles incident to that
 * feature, or as close (within 1e-12 of the mesh size) and of a lower index;
 * so a sphere in a concave corner touches every face, one on a convex edge
 * or vertex exactly one patch. Thread-safe, allocates nothing; visits only
 * the triangles whose grid cells lie within reach of the centre. */
bool fd_mesh_patch_closest(const fd_mesh* mesh, int patch, fd_vec3 centre, double reach, fd_wall_hit* hit);

#endif
