/* A trajectory frame's per-row data written chunk by chunk, each chunk
 * compressed or stored as it is by what it holds (trajectory_chunks.c).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FRICDEM_IO_TRAJECTORY_CHUNKS_H
#define FRICDEM_IO_TRAJECTORY_CHUNKS_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A chunk of two runs, `prefix` elements equal to `element` and the rest
 * equal to `fill` (a constant chunk: prefix = every element), and its
 * deflated stream. A partial chunk of zeros (the books and torques of the
 * mechanisms a law lacks, with fewer contacts than a chunk holds) is one:
 * several datasets of a frame share its stream. */
typedef struct fd_constant_chunk {
    unsigned char element[8], fill[8];
    size_t element_size, chunk_bytes, prefix;
    unsigned char* stream;   /* NULL: the slot is free */
    size_t stream_bytes;
} fd_constant_chunk;

enum { FD_CONSTANT_CHUNKS = 16 };

/* One chunk's workspace (one per thread): the chunk as it is, shuffled,
 * deflated, and what is to be written. */
typedef struct fd_chunk_work {
    unsigned char* raw;
    unsigned char* shuffled;
    unsigned char* deflated;
    size_t raw_bytes, shuffled_bytes, deflated_bytes;
    bool constant;           /* two runs: the data rows' elements all the same bytes, then the fill */
    size_t prefix;           /* elements of the first run */
    uint32_t skipped;        /* filter mask: the filters not applied */
    const void* stored;
    size_t stored_bytes;
} fd_chunk_work;

/* Scratch kept between frames: the workspaces, and the streams of the
 * constant chunks met so far (zeros, mostly). */
typedef struct fd_chunk_buffers {
    fd_chunk_work* work;
    int work_count;
    fd_constant_chunk constants[FD_CONSTANT_CHUNKS];
    int next_constant;       /* the slot the next new constant chunk takes */
    int64_t deflated_constants; /* two-run chunks deflated (not found in the cache), for tests */
} fd_chunk_buffers;

/* Writes rows [0, rows) of frame `frame` of `dataset` ([frames][rows] or
 * [frames][rows][components], chunks of 1 x chunk_rows (x components),
 * filters byte shuffle then deflate, extent already covering them) from
 * `data` (rows x max(components, 1) elements of element_size bytes), each
 * chunk padded with `fill` past the last row, prepared on up to `threads`
 * OpenMP threads (the file's bytes are the same for any count). False (with
 * HDF5's or zlib's error left to the caller's message) when a write fails
 * or memory runs out. */
bool fd_write_frame_chunks(hid_t dataset, int64_t frame, int64_t rows, int64_t chunk_rows, int components,
                           size_t element_size, const void* fill, const void* data, int threads,
                           fd_chunk_buffers* buffers);

void fd_chunk_buffers_free(fd_chunk_buffers* buffers);

#endif
