/* The array and piece machinery of the VTU writer (output_vtu.c), shared
 * with the walls series (output_vtu_walls.c): a piece is its arrays, each
 * described by a table entry whose `fill` callback gives the components of
 * tuple i, written ASCII or raw binary appended by fd_vtu_write_piece.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_OUTPUT_VTU_PIECE_H
#define FD_IO_OUTPUT_VTU_PIECE_H

#include <stdbool.h>
#include <stdint.h>

#include "fricdem/fricdem.h"
#include "io/output_vtu.h"

typedef enum vtu_type { VTU_FLOAT64, VTU_INT32, VTU_INT64, VTU_UINT64, VTU_UINT8 } vtu_type;

#define VTU_MAX_COMPONENTS 9

/* One DataArray: `tuples` tuples of `components` values. Integer arrays
 * fill `integers`, Float64 arrays fill `reals`. */
typedef struct vtu_array {
    const char* name;
    vtu_type type;
    int components;
    int64_t tuples;
    void (*fill)(const void* source, int64_t i, double* reals, int64_t* integers);
    const void* source;
} vtu_array;

/* A piece: Points, then Cells (connectivity, offsets, types), then the
 * attribute arrays under <PointData> or <CellData>. */
typedef struct vtu_piece {
    int64_t points, cells;
    const vtu_array* arrays; /* [0] Points, [1..3] the cells, then the attributes */
    int array_count;
    const char* data_tag;        /* "PointData" or "CellData" */
    const char* data_attributes; /* e.g. Scalars="radius" */
} vtu_piece;

/* VTK cell types (vtkCellType.h). */
enum { VTK_VERTEX = 1, VTK_LINE = 3, VTK_TRIANGLE = 5, VTK_QUAD = 9 };

/* Writes the piece to path; `trailer` (may be NULL) goes after </VTKFile>. */
fd_status fd_vtu_write_piece(const char* path, const vtu_piece* piece, const fd_vtu_format* format,
                             const char* trailer);

/* Values computed beforehand, `components` per tuple: reals, or integers
 * when reals is NULL (fill with fd_vtu_fill_from_table). */
typedef struct table_source {
    const double* reals;
    const int64_t* integers;
    int components;
} table_source;

void fd_vtu_fill_from_table(const void* source, int64_t i, double* reals, int64_t* integers);

static inline void fd_vtu_put3(double* reals, fd_vec3 v)
{
    reals[0] = v.x;
    reals[1] = v.y;
    reals[2] = v.z;
}

static inline int fd_vtu_body_index(fd_body_id id) { return id.index1 - 1; }

#endif
