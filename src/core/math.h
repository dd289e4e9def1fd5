/* Small inline value-type math: vectors, quaternions, 3x3 matrices.
 * Double precision throughout; no allocation; every function is pure.
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#ifndef FD_CORE_MATH_H
#define FD_CORE_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fricdem/types.h"

#define FD_PI 3.14159265358979323846

typedef struct fd_mat3 {
    fd_vec3 cx, cy, cz; /* columns */
} fd_mat3;

/* a where c holds, else b, as a bitwise blend: both are computed and no
 * branch is taken, so a loop of such code vectorises, and a data-dependent
 * choice (stick or slip) costs no mispredicted branch. */
static inline double fd_select(bool c, double a, double b)
{
    uint64_t mask = -(uint64_t)c, bits_a, bits_b;
    memcpy(&bits_a, &a, sizeof a);
    memcpy(&bits_b, &b, sizeof b);
    uint64_t bits = (bits_a & mask) | (bits_b & ~mask);
    double out;
    memcpy(&out, &bits, sizeof out);
    return out;
}

static inline fd_vec3 fd_v3(double x, double y, double z) { return (fd_vec3){x, y, z}; }
static inline fd_vec3 fd_v3_add(fd_vec3 a, fd_vec3 b) { return (fd_vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline fd_vec3 fd_v3_sub(fd_vec3 a, fd_vec3 b) { return (fd_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline fd_vec3 fd_v3_neg(fd_vec3 a) { return (fd_vec3){-a.x, -a.y, -a.z}; }
static inline fd_vec3 fd_v3_scale(double s, fd_vec3 a) { return (fd_vec3){s * a.x, s * a.y, s * a.z}; }
/* a + s b */
static inline fd_vec3 fd_v3_mul_add(fd_vec3 a, double s, fd_vec3 b)
{
    return (fd_vec3){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}
static inline fd_vec3 fd_v3_hadamard(fd_vec3 a, fd_vec3 b) { return (fd_vec3){a.x * b.x, a.y * b.y, a.z * b.z}; }
static inline double fd_v3_dot(fd_vec3 a, fd_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline fd_vec3 fd_v3_cross(fd_vec3 a, fd_vec3 b)
{
    return (fd_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double fd_v3_length_squared(fd_vec3 a) { return fd_v3_dot(a, a); }
static inline double fd_v3_length(fd_vec3 a) { return sqrt(fd_v3_dot(a, a)); }
static inline double fd_v3_distance(fd_vec3 a, fd_vec3 b) { return fd_v3_length(fd_v3_sub(a, b)); }
/* Unit vector along a; the zero vector stays zero. */
static inline fd_vec3 fd_v3_normalize(fd_vec3 a)
{
    double length = fd_v3_length(a);
    return length > 0.0 ? fd_v3_scale(1.0 / length, a) : a;
}
/* A vector in lane c of arrays per component (array[3][lanes], or a pointer
 * to its first row): the block kernels' loads and stores. */
#define FD_LANE_LOAD3(array, c) fd_v3((array)[0][c], (array)[1][c], (array)[2][c])
#define FD_LANE_STORE3(array, c, v)                                                                                    \
    do {                                                                                                               \
        fd_vec3 lane_value_ = (v);                                                                                     \
        (array)[0][c] = lane_value_.x;                                                                                 \
        (array)[1][c] = lane_value_.y;                                                                                 \
        (array)[2][c] = lane_value_.z;                                                                                 \
    } while (0)

/* The copies of a vectorised loop's function: AVX-512, AVX2 and a baseline
 * one, the loader picking the one the processor runs (the lanes' arithmetic
 * is the same IEEE operations in every copy, so are the bits). None under
 * clang (the fuzz build's clang 14 makes none), nor under AddressSanitizer:
 * the sanitize build checks what memory each loop touches, the same in every
 * copy, and three copies of the block kernels were three quarters of its
 * compile time. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define FD_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define FD_VECTOR_CLONES
#endif

static inline fd_vec3 fd_v3_select(bool c, fd_vec3 a, fd_vec3 b)
{
    return (fd_vec3){fd_select(c, a.x, b.x), fd_select(c, a.y, b.y), fd_select(c, a.z, b.z)};
}
static inline bool fd_v3_is_finite(fd_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
static inline double fd_v3_component(fd_vec3 a, int axis) { return axis == 0 ? a.x : (axis == 1 ? a.y : a.z); }
/* Component of a normal to the unit vector n. */
static inline fd_vec3 fd_v3_reject(fd_vec3 a, fd_vec3 n) { return fd_v3_mul_add(a, -fd_v3_dot(a, n), n); }

/* Any unit vector orthogonal to the unit vector n (continuous except at a
 * switch of the dominant axis; callers that need continuity carry a frame). */
static inline fd_vec3 fd_v3_any_orthogonal(fd_vec3 n)
{
    fd_vec3 helper = fabs(n.x) < 0.57735 ? fd_v3(1, 0, 0) : (fabs(n.y) < 0.57735 ? fd_v3(0, 1, 0) : fd_v3(0, 0, 1));
    return fd_v3_normalize(fd_v3_cross(n, helper));
}

/* ---------------------------------------------------------------- quaternions */

static inline fd_quat fd_quat_identity(void) { return (fd_quat){1, 0, 0, 0}; }

static inline fd_quat fd_quat_mul(fd_quat a, fd_quat b)
{
    return (fd_quat){
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    };
}

static inline fd_quat fd_quat_conjugate(fd_quat q) { return (fd_quat){q.w, -q.x, -q.y, -q.z}; }

static inline double fd_quat_norm(fd_quat q) { return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }

static inline fd_quat fd_quat_normalize(fd_quat q)
{
    double inverse = 1.0 / fd_quat_norm(q);
    return (fd_quat){q.w * inverse, q.x * inverse, q.y * inverse, q.z * inverse};
}

/* q / |q| for a quaternion that is unit to round-off (the product of unit
 * quaternions, after a step's rotation): 1/sqrt(1 + e) = 1 - e/2 + O(e^2)
 * with e = |q|^2 - 1 of order 1e-16, so the first-order factor 1.5 - |q|^2/2
 * is the inverse norm to round-off, without a square root or a division. A
 * quaternion further from unit takes fd_quat_normalize. */
static inline fd_quat fd_quat_renormalize(fd_quat q)
{
    double norm_squared = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
    if (!(fabs(norm_squared - 1.0) < 1e-8)) {
        return fd_quat_normalize(q);
    }
    double inverse = 1.5 - 0.5 * norm_squared;
    return (fd_quat){q.w * inverse, q.x * inverse, q.y * inverse, q.z * inverse};
}

/* Rotates v by the unit quaternion q (body to world when q is an orientation). */
static inline fd_vec3 fd_quat_rotate(fd_quat q, fd_vec3 v)
{
    fd_vec3 u = {q.x, q.y, q.z};
    fd_vec3 t = fd_v3_scale(2.0, fd_v3_cross(u, v));
    return fd_v3_add(fd_v3_add(v, fd_v3_scale(q.w, t)), fd_v3_cross(u, t));
}

/* Rotates v by the inverse of q (world to body). */
static inline fd_vec3 fd_quat_rotate_inverse(fd_quat q, fd_vec3 v) { return fd_quat_rotate(fd_quat_conjugate(q), v); }

/* Quaternion of the rotation by |phi| about phi/|phi| (exponential map):
 * (cos(a/2), sin(a/2) phi/a), a = |phi|. A step turns a body by a small
 * angle, so for a < 0.2 both factors come from their Taylor series in
 * x = (a/2)^2 to x^6 (the first term left out is below 1e-24 of the result:
 * exact to round-off), without a square root, a sine or a cosine; larger
 * angles take the library's. */
static inline fd_quat fd_quat_from_rotation_vector(fd_vec3 phi)
{
    double angle_squared = phi.x * phi.x + phi.y * phi.y + phi.z * phi.z;
    double c; /* cos(a/2) */
    double s; /* sin(a/2) / a */
    if (angle_squared < 0.04) {
        double x = 0.25 * angle_squared;
        c = 1.0 + x * (-1.0 / 2 + x * (1.0 / 24 + x * (-1.0 / 720 + x * (1.0 / 40320 + x * (-1.0 / 3628800 +
            x * (1.0 / 479001600))))));
        s = 0.5 * (1.0 + x * (-1.0 / 6 + x * (1.0 / 120 + x * (-1.0 / 5040 + x * (1.0 / 362880 + x * (-1.0 / 39916800 +
            x * (1.0 / 6227020800.0)))))));
    } else {
        double angle = sqrt(angle_squared);
        c = cos(0.5 * angle);
        s = sin(0.5 * angle) / angle;
    }
    return (fd_quat){c, s * phi.x, s * phi.y, s * phi.z};
}

static inline fd_quat fd_quat_from_axis_angle(fd_vec3 unit_axis, double angle)
{
    return fd_quat_from_rotation_vector(fd_v3_scale(angle, unit_axis));
}

static inline bool fd_quat_is_finite(fd_quat q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

/* ---------------------------------------------------------------- 3x3 */

/* m v. */
static inline fd_vec3 fd_mat3_apply(const fd_mat3* m, fd_vec3 v)
{
    return fd_v3_add(fd_v3_add(fd_v3_scale(v.x, m->cx), fd_v3_scale(v.y, m->cy)), fd_v3_scale(v.z, m->cz));
}

/* atan2(y, x) for the small angles a step makes (a point's arc, a frame's
 * spin): with x > 0 and |y| <= x / 16, atan(t) of t = y / x from its series
 * to t^13 (the first term left out, t^15 / 15, is below 2^-59 of the result:
 * exact to round-off) with one division and no library call; other
 * arguments take the library's atan2. */
static inline bool fd_small_atan2_in_range(double y, double x) { return (x > 0.0) & (fabs(y) <= 0.0625 * x); }
/* The series itself, for arguments in range (a vector lane computes it
 * everywhere and keeps it where in range: the same bits as below). */
static inline double fd_small_atan2_series(double y, double x)
{
    double t = y / x, t2 = t * t;
    double series = -1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (-1.0 / 7.0 + t2 * (1.0 / 9.0 + t2 * (-1.0 / 11.0 +
                    t2 * (1.0 / 13.0)))));
    return t + t * t2 * series;
}
static inline double fd_small_atan2(double y, double x)
{
    return fd_small_atan2_in_range(y, x) ? fd_small_atan2_series(y, x) : atan2(y, x);
}

static inline fd_mat3 fd_mat3_from_quat(fd_quat q)
{
    fd_mat3 m;
    m.cx = fd_quat_rotate(q, fd_v3(1, 0, 0));
    m.cy = fd_quat_rotate(q, fd_v3(0, 1, 0));
    m.cz = fd_quat_rotate(q, fd_v3(0, 0, 1));
    return m;
}

/* The cell of coordinate x along one axis of a grid of `count` cells from
 * `low`, each 1 / inverse_width wide: clamped to [0, count - 1], so that a
 * point outside the grid (or NaN) lands in an edge cell (the inlets' and the
 * generators' placement grids). */
static inline int64_t fd_clamped_cell(double x, double low, double inverse_width, int64_t count)
{
    double c = floor((x - low) * inverse_width);
    if (!(c >= 0.0)) {
        return 0;
    }
    return c >= (double)count ? count - 1 : (int64_t)c;
}

/* The squared distance from point x to the box of cell c of a grid whose
 * cells start at `low`, each `width` wide (0 for a point inside): whether a
 * body wider than a cell reaches cell c of those grids. */
static inline double fd_cell_distance2(const double x[3], const int64_t c[3], const double low[3],
                                       const double width[3])
{
    double distance = 0.0;
    for (int a = 0; a < 3; ++a) {
        double cell_low = low[a] + (double)c[a] * width[a];
        double gap = fmax(0.0, fmax(cell_low - x[a], x[a] - (cell_low + width[a])));
        distance += gap * gap;
    }
    return distance;
}

#endif
