/* The layout of an fd_mesh, shared by its builder (mesh.c) and its queries
 * (mesh_query.c). Nothing here changes after fd_mesh_create returns, so
 * queries from several threads at once need no locks.
 *
 * Must not touch: contact laws, the world, the steppers. */
#ifndef FD_COLLIDE_MESH_INTERNAL_H
#define FD_COLLIDE_MESH_INTERNAL_H

#include "collide/walls.h"

/* What the closest-point query of one triangle reads, precomputed. */
typedef struct fd_mesh_triangle_geometry {
    fd_vec3 a;         /* first vertex */
    fd_vec3 edge_ab;   /* b - a */
    fd_vec3 edge_ac;   /* c - a */
    fd_vec3 edge_bc;   /* c - b */
    fd_vec3 normal;    /* unit, along (b - a) x (c - a) */
    double ab_ab, ab_ac, ac_ac, bc_bc; /* dot products of the edges */
    double inverse_determinant;        /* 1 / (ab_ab ac_ac - ab_ac^2) = 1 / |(b - a) x (c - a)|^2 */
} fd_mesh_triangle_geometry;

typedef struct fd_mesh_box {
    fd_vec3 min, max;
} fd_mesh_box;

/* A uniform grid over one patch's bounding box: cell (i, j, k) lists the
 * patch's triangles whose bounding boxes overlap it, in increasing order. */
typedef struct fd_mesh_grid {
    fd_mesh_box box;          /* the patch's bounding box */
    double inverse_cell_size; /* cells are cubes */
    int cells[3];             /* along x, y, z; cell (i, j, k) is i + cells[0] (j + cells[1] k) */
    int* cell_first;          /* cells[0] cells[1] cells[2] + 1 offsets into cell_triangles */
    int* cell_triangles;
} fd_mesh_grid;

/* A triangle's features shared with other patches, one bit each: vertex k
 * (bits 0-2) and edge k from vertex k to vertex k + 1 mod 3 (bits 3-5). */
enum { FD_MESH_SHARED_VERTEX = 1, FD_MESH_SHARED_EDGE = 8 };

/* One entry of a feature's list of incident triangles; a list is sorted by
 * patch, then triangle. */
typedef struct fd_mesh_incidence {
    int patch;
    int triangle;
} fd_mesh_incidence;

struct fd_mesh {
    int vertex_count;
    int triangle_count;
    int patch_count;
    int degenerate_count;  /* input triangles dropped */
    double* vertices;      /* 3 per vertex */
    int* triangles;        /* 3 per triangle */
    int* triangle_patch;
    fd_mesh_triangle_geometry* geometry; /* per triangle */
    fd_mesh_box* triangle_box;           /* per triangle */
    unsigned char* shared;               /* per triangle, FD_MESH_SHARED_* bits */
    int* triangle_edges;                 /* 3 per triangle: edge k's index */
    int* edge_first;                     /* edge_count + 1 offsets into edge_incidence */
    fd_mesh_incidence* edge_incidence;
    int* vertex_first;                   /* vertex_count + 1 offsets into vertex_incidence */
    fd_mesh_incidence* vertex_incidence;
    int edge_count;
    fd_mesh_grid* grids;                 /* per patch */
    double bounding_radius;              /* m */
    /* 1e-12 of the mesh's size (bounding-box diagonal plus bounding radius):
     * distances closer than this are equal to round-off (a closest point
     * computed from coordinates of that size carries ~1e-16 of it). */
    double tolerance;
};

/* The cell coordinate of value along axis, clamped to the grid. The builder
 * and the query must compute it the same way. */
static inline int fd_mesh_grid_cell(const fd_mesh_grid* grid, int axis, double value)
{
    double offset = (value - fd_v3_component(grid->box.min, axis)) * grid->inverse_cell_size;
    int last = grid->cells[axis] - 1;
    if (!(offset > 0.0)) {
        return 0;
    }
    return offset >= (double)last ? last : (int)offset;
}

#endif
