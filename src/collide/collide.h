/* Collision: shapes, mass properties, narrow phase with full contact geometry.
 * The door of src/collide/.
 *
 * Must not touch: contact laws, the world, the steppers. */
#ifndef FD_COLLIDE_H
#define FD_COLLIDE_H

#include "core/math.h"

/* Internal shape: the def plus what is derived once. A body holds one (its
 * cold record), so the fields of one type share their bytes with the
 * others' (48 bytes, not 128: 80 MB fewer at 10^6 spheres, issue 19);
 * fd_shape_init zeroes the whole record and fills only its type's fields,
 * and every reader asks the type first. */
typedef struct fd_shape {
    fd_shape_type type;
    double radius;           /* sphere; cylinder; disk (outer) */
    double bounding_radius;  /* sphere around the body centre; INFINITY for planes */
    union {
        fd_vec3 semi_axes;       /* ellipsoid */
        fd_vec3 plane_normal;    /* plane, body frame, unit */
        struct {                 /* cylinder */
            double length;
            bool capped;         /* rims belong to its caps */
        };
        struct {                 /* disk */
            double inner_radius;
            double offset;       /* plane z = offset, body frame */
            int cap_of_shell;    /* the side (+1, -1) of its plane where the shell it caps lies; 0 none */
        };
        struct {                 /* mesh patch */
            const fd_mesh* mesh;
            int mesh_patch;
        };
    };
} fd_shape;
_Static_assert(sizeof(fd_shape) <= 48, "a shape's types share their bytes");

typedef struct fd_pose {
    fd_vec3 position;
    fd_quat orientation;
} fd_pose;

/* A plane or a finite wall (static only; searched apart from the grid). */
static inline bool fd_shape_is_wall(fd_shape_type type)
{
    return type == FD_SHAPE_PLANE || type == FD_SHAPE_CYLINDER || type == FD_SHAPE_DISK || type == FD_SHAPE_MESH;
}

/* Validates a shape def and fills the internal shape; on error writes a
 * message (naming the field) into message[message_size] and returns false. */
bool fd_shape_init(fd_shape* shape, const fd_shape_def* def, char* message, int message_size);

/* Volume (m^3) and principal inertia per unit mass (m^2) in the body frame. */
double fd_shape_volume(const fd_shape* shape);
fd_vec3 fd_shape_unit_inertia(const fd_shape* shape);

typedef enum fd_collide_result {
    FD_COLLIDE_SEPARATED = 0,
    FD_COLLIDE_TOUCHING = 1,    /* geometry filled */
    FD_COLLIDE_UNSUPPORTED = -1,/* pair not handled (ellipsoid-ellipsoid, plane-plane) */
} fd_collide_result;

/* Narrow phase for body i (lower index) against body j. Fills every field of
 * the geometry (contact points global and local, normal into body i,
 * penetration, principal curvatures and directions of both surfaces,
 * effective radius) when penetration > -margin. Either body may be of any
 * shape type; the normal always points into body i. */
fd_collide_result fd_collide(const fd_shape* shape_i, fd_pose pose_i, const fd_shape* shape_j, fd_pose pose_j,
                             double margin, fd_contact_geometry* geometry);

/* fd_collide without the principal directions of round surfaces (spheres,
 * planes), which are left zero: any tangent pair is principal there, so no
 * quantity may depend on them (the effective radius reads them only for two
 * unequally curved surfaces; Fang & Negrut's normal curvature of an umbilic
 * surface is its curvature). The penalty stepper's passes that record no
 * contact details use it; the recorded geometry comes from fd_collide. */
fd_collide_result fd_collide_round_frames_skipped(const fd_shape* shape_i, fd_pose pose_i, const fd_shape* shape_j,
                                                  fd_pose pose_j, double margin, fd_contact_geometry* geometry);

/* Principal curvatures (1/m, positive for the convex ellipsoid) and unit
 * principal directions (body frame) of the ellipsoid x^2/a^2 + y^2/b^2 +
 * z^2/c^2 = 1 at the surface point p (body frame). */
void fd_ellipsoid_curvature(fd_vec3 semi_axes, fd_vec3 p, double curvature[2], fd_vec3 direction[2]);

/* Hertz effective radius from the principal curvatures and directions of two
 * surfaces touching at a point (Johnson, Contact Mechanics, Sec. 4.1):
 * A + B = (k1i + k2i + k1j + k2j) / 2, |B - A| from the angle between the
 * principal directions; R_e = 1 / (2 sqrt(A B)); INFINITY if A B = 0. */
double fd_effective_radius(const double curvature_i[2], const fd_vec3 direction_i[2], const double curvature_j[2],
                           const fd_vec3 direction_j[2]);

#endif
