/* XDMF 2 indexes of time series held in HDF5 (output_xdmf.c), for the
 * trajectory (output_trajectory.c): a temporal collection of Polyvertex
 * grids, one per frame, whose points and point arrays are hyperslabs of
 * that frame's rows. ParaView's "XDMF Reader" opens them.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_OUTPUT_XDMF_H
#define FD_IO_OUTPUT_XDMF_H

#include <stdint.h>

#include "fricdem/types.h"
#include "io/number_format.h"

typedef enum fd_xdmf_number { FD_XDMF_FLOAT64, FD_XDMF_INT32, FD_XDMF_INT64 } fd_xdmf_number;

/* A dataset [frames][rows] or [frames][rows][components] shown at each
 * frame: the first array of an index is the geometry (3 components), the
 * others point attributes. */
typedef struct fd_xdmf_array {
    const char* name;        /* the attribute's name */
    const char* type;        /* XDMF AttributeType: "Scalar", "Vector", "Matrix" */
    const char* path;        /* the dataset in the HDF5 file */
    fd_xdmf_number number;
    int components;          /* 0: one value per row */
    int component;           /* >= 0: only that component, as a scalar; -1: all */
} fd_xdmf_array;

typedef struct fd_xdmf_index {
    const char* path;        /* the index file; written as PATH.tmp, then renamed */
    const char* h5_name;     /* the HDF5 file, relative to the index's directory */
    const char* collection;  /* the collection's name; grid f is "COLLECTION_%06d" */
    const fd_xdmf_array* arrays;
    int array_count;
    const double* times;     /* s, per frame */
    const int64_t* counts;   /* rows of each frame */
    int64_t frames;
    int64_t rows;            /* the datasets' rows extent now */
} fd_xdmf_index;

/* Writes the index; *bytes gets its size. `text` is scratch space. */
fd_status fd_xdmf_write_index(const fd_xdmf_index* index, fd_text* text, int64_t* bytes);

#endif
