/* Broad phase: a uniform cell grid behind a spatial hash, plus planes handled
 * apart, producing candidate pairs (i < j) in ascending key order. The door
 * of src/broadphase/.
 *
 * Cost per step is linear in the number of bodies: counting sort of bodies
 * into cells (a dense grid over their bounding box when it holds at most 4
 * cells per body, a spatial hash otherwise), then each body scans the bodies
 * of its 27 neighbour cells from a copy of their positions in cell order.
 * Pairs come out in ascending (i, j) order without a global sort:
 * grid pairs are generated per i with their j sorted, plane pairs (few) are
 * sorted on their own, and the two ordered streams are merged.
 *
 * Periodic axes. Along a periodic axis the grid covers the box with
 * n = floor(L / cell_size) cells of width L / n (>= cell_size), cell
 * coordinates are taken modulo n and so are the neighbours (deduplicated
 * when n < 3), and distances are measured to the minimum image. The box
 * bounds such a grid, so the dense grid is kept up to 64 cells per body.
 * Planes need no image: a plane's normal is perpendicular to the periodic
 * axes.
 *
 * Must not touch: the world's storage, contacts, the steppers. */
#ifndef FD_BROADPHASE_H
#define FD_BROADPHASE_H

#include <math.h>
#include <stdint.h>

#include "core/math.h"

/* Periodic boundaries of the world (fd_world_def.periodic): along a
 * periodic axis a the world repeats with period length[a] from low[a]. */
typedef struct fd_periodic {
    bool any;                     /* some axis is periodic */
    bool axis[3];
    double low[3];                /* m, box_min */
    double length[3];             /* m, box_max - box_min (> 0 on periodic axes) */
    double inverse_length[3];     /* 1/m */
    /* m, half a period on periodic axes and +inf on the others, so that the
     * minimum-image test (fd_periodic_near_offset) needs no test of the axis */
    double half_length[3];
} fd_periodic;

/* No periodic axis yet (half_length +inf: no separation needs an image). */
static inline fd_periodic fd_periodic_none(void)
{
    return (fd_periodic){.half_length = {INFINITY, INFINITY, INFINITY}};
}

/* Axis a repeats with period `length` from `low`; its derived fields with it. */
static inline void fd_periodic_set_axis(fd_periodic* periodic, int a, double low, double length)
{
    periodic->any = true;
    periodic->axis[a] = true;
    periodic->low[a] = low;
    periodic->length[a] = length;
    periodic->inverse_length[a] = 1.0 / length;
    periodic->half_length[a] = 0.5 * length;
}

/* The offset s to add to b so that b + s is the periodic image of b nearest
 * to a (the minimum image): per periodic axis a multiple of the period,
 * -L round((b - a) / L); 0 along the other axes. Exactly 0 when b is within
 * half a period of a. */
static inline fd_vec3 fd_periodic_offset(const fd_periodic* periodic, fd_vec3 a, fd_vec3 b)
{
    fd_vec3 offset = {0.0, 0.0, 0.0};
    if (periodic->axis[0]) {
        offset.x = -periodic->length[0] * round((b.x - a.x) * periodic->inverse_length[0]);
    }
    if (periodic->axis[1]) {
        offset.y = -periodic->length[1] * round((b.y - a.y) * periodic->inverse_length[1]);
    }
    if (periodic->axis[2]) {
        offset.z = -periodic->length[2] * round((b.z - a.z) * periodic->inverse_length[2]);
    }
    return offset;
}
/* The offset to add to b so that b + s is the image of b nearest to a, as
 * fd_periodic_offset, for a - b within one period on every periodic axis
 * (positions are wrapped into the box): a compare instead of round().
 * |d| > L/2 is d > L/2 or d < -L/2, and the offset then has d's sign. A
 * non-periodic axis has half_length +inf, so its test fails and its offset
 * is 0 without a test of the axis (NaN fails it too). */
static inline double fd_periodic_near_axis(double separation, double half_length, double length)
{
    return fabs(separation) > half_length ? copysign(length, separation) : 0.0;
}

static inline fd_vec3 fd_periodic_near_offset(const fd_periodic* periodic, fd_vec3 separation)
{
    const double* half = periodic->half_length;
    const double* length = periodic->length;
    return fd_v3(fd_periodic_near_axis(separation.x, half[0], length[0]),
                 fd_periodic_near_axis(separation.y, half[1], length[1]),
                 fd_periodic_near_axis(separation.z, half[2], length[2]));
}

/* x wrapped into [low, low + length). Unchanged when already inside, so a
 * body that does not cross a face keeps its bits. */
static inline double fd_periodic_wrap(double x, double low, double length)
{
    double u = x - low;
    if (u >= 0.0 && u < length) {
        return x;
    }
    double wrapped = x - length * floor(u / length);
    if (wrapped >= low + length) { /* x just below low: x + length rounded up to the face */
        wrapped -= length;
    }
    return wrapped < low ? low : wrapped;
}

/* x wrapped into the box along each periodic axis (fd_periodic_wrap: a
 * component already inside keeps its bits). */
static inline fd_vec3 fd_periodic_wrap_position(const fd_periodic* periodic, fd_vec3 x)
{
    if (periodic->axis[0]) x.x = fd_periodic_wrap(x.x, periodic->low[0], periodic->length[0]);
    if (periodic->axis[1]) x.y = fd_periodic_wrap(x.y, periodic->low[1], periodic->length[1]);
    if (periodic->axis[2]) x.z = fd_periodic_wrap(x.z, periodic->low[2], periodic->length[2]);
    return x;
}

/* The range test of one wall for the neighbour list, tighter than its
 * bounding sphere where the shape allows (fd_world_wall_reach): a drum's
 * shell is reached only near its surface, not by every sphere inside it. */
typedef enum fd_wall_reach_kind {
    FD_WALL_REACH_PLANE,    /* by the distance along normal */
    FD_WALL_REACH_SPHERE,   /* within radius of the origin (a mesh patch; a wall turning off its axis) */
    FD_WALL_REACH_SHELL,    /* cylinder: | rho - radius | and | z | - half_length */
    FD_WALL_REACH_DISK,     /* disk or annulus: | z - offset | and rho outside [inner, radius] */
} fd_wall_reach_kind;

typedef struct fd_wall_reach {
    fd_wall_reach_kind kind;
    fd_vec3 origin;
    fd_vec3 axis;           /* plane: its normal; shell and disk: the body z axis, world */
    double radius;          /* sphere: bounding radius; shell, disk: the (outer) radius */
    double half_length;     /* shell */
    double inner_radius;    /* disk */
    double offset;          /* disk: its plane along the axis from the origin */
} fd_wall_reach;

/* Whether a body at x whose reach (bounding radius + margin) is `reach`
 * may touch the wall: a conservative test (never false for a point the
 * narrow phase would find within reach). */
static inline bool fd_wall_reach_test(const fd_wall_reach* w, fd_vec3 x, double reach)
{
    fd_vec3 d = fd_v3_sub(x, w->origin);
    switch (w->kind) {
    case FD_WALL_REACH_PLANE:
        return fd_v3_dot(w->axis, d) < reach;
    case FD_WALL_REACH_SHELL: {
        double z = fd_v3_dot(w->axis, d);
        double rho = sqrt(fmax(fd_v3_length_squared(d) - z * z, 0.0));
        return fabs(rho - w->radius) < reach && fabs(z) < w->half_length + reach;
    }
    case FD_WALL_REACH_DISK: {
        double z = fd_v3_dot(w->axis, d);
        double rho = sqrt(fmax(fd_v3_length_squared(d) - z * z, 0.0));
        return fabs(z - w->offset) < reach && rho < w->radius + reach && rho > w->inner_radius - reach;
    }
    case FD_WALL_REACH_SPHERE:
    default: {
        double limit = w->radius + reach;
        return fd_v3_length_squared(d) < limit * limit;
    }
    }
}

/* The same test from a wall's bounding radius alone (the broad phase of
 * the complementarity stepper, which knows no poses): a plane (bounding
 * radius INFINITY) by its distance along the normal; a finite wall by the
 * sphere about its position within which its whole surface lies, so the
 * test holds however the wall turns about its position. */
static inline bool fd_wall_in_reach(fd_vec3 wall_position, fd_vec3 plane_normal, double wall_radius, fd_vec3 x,
                                    double reach)
{
    const fd_wall_reach wall = {.kind = wall_radius == INFINITY ? FD_WALL_REACH_PLANE : FD_WALL_REACH_SPHERE,
                                .origin = wall_position, .axis = plane_normal, .radius = wall_radius};
    return fd_wall_reach_test(&wall, x, reach);
}

typedef struct pair_buffer {
    uint64_t* keys;
    int count, capacity;
} pair_buffer;

typedef struct fd_broadphase {
    /* inputs, set by the caller before fd_broadphase_update */
    int body_count;
    const fd_vec3* positions;     /* body centres (a plane's point) */
    const double* radii;          /* bounding radius; INFINITY for planes */
    const bool* is_static;
    const bool* is_wall;
    const fd_vec3* plane_normals; /* world outward normal of plane bodies */
    const bool* is_removed;       /* slots of removed bodies, left out (src/engine/removal.c); NULL: none */
    double margin;                /* pairs within this gap are candidates */
    double cell_size;             /* > 0 */
    fd_periodic periodic;         /* pairs across periodic faces are found by their minimum image */
    int thread_count;             /* >= 1; results do not depend on it */

    /* outputs */
    uint64_t* pairs;              /* (uint64)i << 32 | j, ascending */
    int pair_count;

    /* scratch */
    int pair_capacity;
    uint64_t* plane_pairs;
    int plane_pair_capacity;
    uint64_t* grid_pairs;
    int grid_pair_capacity;
    uint32_t* bucket_start;       /* bucket_count + 1 */
    int32_t* bucket_stamp;        /* last body that visited the bucket (dedupes hash collisions of neighbours) */
    int32_t* bucket_bodies;
    uint32_t* body_bucket;
    int64_t* body_cell;           /* 3 per body */
    int bucket_count;
    int bucket_capacity;
    void* sorted;                 /* bodies' positions and radii in bucket order */
    pair_buffer* thread_buffers;  /* one per thread (dense grid, several threads) */
    int thread_buffer_count;
    int scratch_capacity;
} fd_broadphase;

void fd_broadphase_free(fd_broadphase* broadphase);
/* Frees the outputs and scratch, keeping the inputs (a caller that updates
 * rarely, like the neighbour list, holds no memory between updates). */
void fd_broadphase_release(fd_broadphase* broadphase);
/* Returns false on allocation failure. */
bool fd_broadphase_update(fd_broadphase* broadphase);

#endif
