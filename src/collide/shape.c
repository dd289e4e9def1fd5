/* Shapes: validation of a shape def and the mass properties of each shape.
 *
 * Mass properties are per unit density (volume) and per unit mass (inertia),
 * so that the body module can take either a given mass or density * volume.
 * The inertia tensors are the textbook ones for homogeneous solids:
 *   sphere of radius R:        I = (2/5) m R^2 about every axis;
 *   ellipsoid of semi-axes a, b, c along x, y, z:
 *                              I_x = m (b^2 + c^2) / 5, I_y = m (a^2 + c^2) / 5,
 *                              I_z = m (a^2 + b^2) / 5
 * (standard tables of moments of inertia of homogeneous solids; for the
 * ellipsoid, integrate y^2 + z^2 over the unit ball scaled by (a, b, c)).
 * A plane is a static half-space with no finite volume, and the finite walls
 * (cylindrical shell, disk, mesh patch) are thin sheets: volume and inertia
 * are 0, and the body module gives static bodies infinite mass instead. A
 * finite wall's bounding radius is the distance from its position within
 * which its whole surface lies (the broad phase's range, fd_wall_in_reach).
 *
 * Must not touch: contact laws, the world, the steppers. */
#include <float.h>
#include <stdio.h>

#include "collide/collide.h"
#include "collide/walls.h"
#include "core/error.h"

/* pi to double precision; M_PI is not in strict C17. */
#define FD_SHAPE_PI 3.14159265358979323846

/* A length must be a positive finite number; !(x > 0) also rejects NaN. */
static bool is_positive_length(double x) { return x > 0.0 && isfinite(x); }

/* The error for a volume a double does not hold as a normal number:
 * overflowed to inf (a sphere's radius above ~3.5e102 m) or below
 * 2.2e-308 m^3 (a radius below ~8e-103 m), where the mass and inertia
 * made from it are garbage. */
static bool shape_volume_error(double volume, const char* key, double length, const char* formula, char* message,
                               int message_size)
{
    if (volume > DBL_MAX) {
        return fd_message_false(
            message, message_size,
            "%s %g m is too large: the volume %s overflows a double (lengths above about 3.5e102 m)", key, length,
            formula);
    }
    return fd_message_false(message, message_size,
                            "%s %g m is too small: the volume %s = %g m^3 underflows a double (lengths below about "
                            "8e-103 m)",
                            key, length, formula, volume);
}

/* A volume a double holds as a normal number. */
static bool is_normal_volume(double volume) { return volume >= DBL_MIN && volume <= DBL_MAX; }

bool fd_shape_init(fd_shape* shape, const fd_shape_def* def, char* message, int message_size)
{
    fd_shape result = {0};
    result.type = def->type;
    switch (def->type) {
    case FD_SHAPE_SPHERE:
        if (!is_positive_length(def->radius)) {
            return fd_message_false(message, message_size, "shape.radius must be > 0 and finite (got %g)", def->radius);
        }
        result.radius = def->radius;
        result.bounding_radius = def->radius;
        if (!is_normal_volume(fd_shape_volume(&result))) {
            return shape_volume_error(fd_shape_volume(&result), "shape.radius", def->radius, "4/3 pi r^3", message,
                                      message_size);
        }
        break;
    case FD_SHAPE_ELLIPSOID: {
        const char* names[3] = {"x", "y", "z"};
        for (int axis = 0; axis < 3; ++axis) {
            double length = fd_v3_component(def->semi_axes, axis);
            if (!is_positive_length(length)) {
                return fd_message_false(message, message_size, "shape.semi_axes.%s must be > 0 and finite (got %g)",
                                        names[axis], length);
            }
        }
        result.semi_axes = def->semi_axes;
        result.bounding_radius = fmax(def->semi_axes.x, fmax(def->semi_axes.y, def->semi_axes.z));
        if (!is_normal_volume(fd_shape_volume(&result))) {
            double largest = result.bounding_radius;
            double smallest = fmin(def->semi_axes.x, fmin(def->semi_axes.y, def->semi_axes.z));
            bool large = fd_shape_volume(&result) > DBL_MAX;
            return shape_volume_error(fd_shape_volume(&result),
                                      large ? "shape.semi_axes (largest)" : "shape.semi_axes (smallest)",
                                      large ? largest : smallest, "4/3 pi a b c", message, message_size);
        }
        break;
    }
    case FD_SHAPE_PLANE: {
        fd_vec3 n = def->plane_normal;
        double length = fd_v3_length(n);
        if (!fd_v3_is_finite(n) || !(length > 0.0) || !isfinite(length)) {
            return fd_message_false(message, message_size,
                                    "shape.plane_normal must be a nonzero finite vector (got (%g, %g, %g))", n.x, n.y,
                                    n.z);
        }
        result.plane_normal = fd_v3_scale(1.0 / length, n);
        result.bounding_radius = INFINITY;
        break;
    }
    case FD_SHAPE_CYLINDER:
        if (!is_positive_length(def->radius) || !is_positive_length(def->length)) {
            return fd_message_false(message, message_size,
                                    "a cylinder needs shape.radius and shape.length > 0 and finite (got %g m, %g m)",
                                    def->radius, def->length);
        }
        result.radius = def->radius;
        result.length = def->length;
        result.capped = def->capped;
        result.bounding_radius = hypot(def->radius, 0.5 * def->length);
        break;
    case FD_SHAPE_DISK:
        if (!is_positive_length(def->radius) || !(def->inner_radius >= 0.0) || !(def->inner_radius < def->radius) ||
            !isfinite(def->offset) || def->cap_of_shell < -1 || def->cap_of_shell > 1) {
            return fd_message_false(message, message_size,
                                    "a disk needs 0 <= shape.inner_radius < shape.radius, both finite, and a finite "
                                    "shape.offset (got %g m, %g m, %g m)",
                                    def->inner_radius, def->radius, def->offset);
        }
        result.radius = def->radius;
        result.inner_radius = def->inner_radius;
        result.offset = def->offset;
        result.cap_of_shell = def->cap_of_shell;
        result.bounding_radius = hypot(def->radius, def->offset);
        break;
    case FD_SHAPE_MESH:
        if (def->mesh == NULL || def->mesh_patch < 0 || def->mesh_patch >= fd_mesh_patch_count(def->mesh)) {
            return fd_message_false(message, message_size,
                                    "a mesh shape needs shape.mesh and a patch in 0 .. %d (got %d)",
                                    def->mesh != NULL ? fd_mesh_patch_count(def->mesh) - 1 : -1, def->mesh_patch);
        }
        result.mesh = def->mesh;
        result.mesh_patch = def->mesh_patch;
        result.bounding_radius = fd_mesh_bounding_radius(def->mesh);
        break;
    default:
        return fd_message_false(
            message, message_size,
            "shape.type %d is not a shape type (sphere = 0, plane = 1, ellipsoid = 2, cylinder = 3, "
            "disk = 4, mesh = 5)",
            (int)def->type);
    }
    *shape = result;
    return true;
}

double fd_shape_volume(const fd_shape* shape)
{
    switch (shape->type) {
    case FD_SHAPE_SPHERE: {
        double r = shape->radius;
        return 4.0 / 3.0 * FD_SHAPE_PI * r * r * r;
    }
    case FD_SHAPE_ELLIPSOID: {
        fd_vec3 e = shape->semi_axes;
        return 4.0 / 3.0 * FD_SHAPE_PI * e.x * e.y * e.z;
    }
    default: return 0.0; /* a plane, a finite wall: no volume */
    }
}

fd_vec3 fd_shape_unit_inertia(const fd_shape* shape)
{
    switch (shape->type) {
    case FD_SHAPE_SPHERE: {
        double i = 0.4 * shape->radius * shape->radius;
        return fd_v3(i, i, i);
    }
    case FD_SHAPE_ELLIPSOID: {
        fd_vec3 e2 = fd_v3_hadamard(shape->semi_axes, shape->semi_axes);
        return fd_v3((e2.y + e2.z) / 5.0, (e2.x + e2.z) / 5.0, (e2.x + e2.y) / 5.0);
    }
    default: return fd_v3(0, 0, 0);
    }
}
