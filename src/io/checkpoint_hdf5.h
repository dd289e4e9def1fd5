/* Small HDF5 helpers for checkpoints (checkpoint.c, checkpoint_scene.c):
 * whole arrays, tables of them and scalar attributes, written and read back exactly, with
 * every failure reported through fd_fail as "checkpoint 'PATH': ...".
 *
 * Arrays are written whole (no chunking, no compression): a checkpoint is
 * written once and read once, and doubles do not compress much. Array
 * shapes are checked on reading, so a checkpoint that is not what the
 * reader expects fails with a message naming the dataset, never with a
 * buffer overrun.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_CHECKPOINT_HDF5_H
#define FD_IO_CHECKPOINT_HDF5_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fricdem/types.h"

/* HDF5 prints its error stack on every failed call unless told not to:
 * the helpers silence it while a checkpoint is open. */
typedef struct fd_h5_quiet {
    H5E_auto2_t function;
    void* data;
} fd_h5_quiet;
fd_h5_quiet fd_h5_silence(void);
void fd_h5_restore(fd_h5_quiet old);

/* What every helper needs: the file's path for messages. */
typedef struct fd_h5_file {
    hid_t id;
    const char* path;
} fd_h5_file;

/* Creates (or opens) a group; -1 after reporting the failure. */
hid_t fd_h5_group_create(const fd_h5_file* file, hid_t parent, const char* name);
hid_t fd_h5_group_open(const fd_h5_file* file, hid_t parent, const char* name);
bool fd_h5_has(hid_t parent, const char* name);
void fd_h5_close_group(hid_t group);

/* An array of `rank` dimensions `dims` of native `type` (rows first). */
fd_status fd_h5_write(const fd_h5_file* file, hid_t group, const char* name, hid_t type, int rank,
                      const hsize_t* dims, const void* data);
/* Reads an array that must have exactly `rank` and `dims`. */
fd_status fd_h5_read(const fd_h5_file* file, hid_t group, const char* name, hid_t type, int rank,
                     const hsize_t* dims, void* data);
/* The first dimension of an array, or -1 after reporting it missing. */
int64_t fd_h5_rows(const fd_h5_file* file, hid_t group, const char* name);

/* Variable-length strings, one per row; read back as malloc'ed strings
 * (*out an array of `count` of them; fd_h5_free_strings frees it). */
fd_status fd_h5_write_strings(const fd_h5_file* file, hid_t group, const char* name, const char* const* strings,
                              int64_t count);
fd_status fd_h5_read_strings(const fd_h5_file* file, hid_t group, const char* name, int64_t count, char*** out);
void fd_h5_free_strings(char** strings, int64_t count);

/* A table: the datasets of a section that hold one row each per inlet,
 * outlet or moving wall, described once (checkpoint_layout.c) and walked by
 * both the writer and the reader. A column is one dataset: its name, what
 * it holds, its values per row (1: an array [rows], more: [rows][width]),
 * and whether a reader may find it missing (added by a later version: its
 * values then stay zero). */
typedef enum fd_h5_value { FD_H5_NAME, FD_H5_INT64, FD_H5_DOUBLE } fd_h5_value;
typedef struct fd_h5_column {
    const char* name;
    fd_h5_value value;
    int width;
    bool optional;
} fd_h5_column;
enum { FD_H5_MAX_COLUMNS = 4 };
/* A table's buffers, one per column: rows x width zeroed values (for a
 * column of names, `rows` string pointers: the writer's own strings, or
 * those fd_h5_table_read allocated). */
typedef struct fd_h5_table {
    const fd_h5_column* columns;
    int column_count;
    int64_t rows;
    void* data[FD_H5_MAX_COLUMNS];
    bool strings_read[FD_H5_MAX_COLUMNS];
} fd_h5_table;
/* Every column's buffer, room for at least one row; reported when out of
 * memory (fd_h5_table_free frees what was allocated all the same). */
fd_status fd_h5_table_allocate(fd_h5_table* table, const fd_h5_column* columns, int column_count, int64_t rows);
/* The columns written (or read) in their order; on reading, a missing
 * optional column is passed over. */
fd_status fd_h5_table_write(const fd_h5_file* file, hid_t group, const fd_h5_table* table);
fd_status fd_h5_table_read(const fd_h5_file* file, hid_t group, fd_h5_table* table);
void fd_h5_table_free(fd_h5_table* table);
/* Row `row` of a column: its `width` values, or its name's pointer. */
static inline int64_t* fd_h5_int64s(const fd_h5_table* table, int column, int64_t row)
{
    return (int64_t*)table->data[column] + row * table->columns[column].width;
}
static inline double* fd_h5_doubles(const fd_h5_table* table, int column, int64_t row)
{
    return (double*)table->data[column] + row * table->columns[column].width;
}
static inline const char** fd_h5_name(const fd_h5_table* table, int column, int64_t row)
{
    return (const char**)table->data[column] + row;
}

/* Scalar attributes. */
fd_status fd_h5_set_i64(const fd_h5_file* file, hid_t object, const char* name, int64_t value);
fd_status fd_h5_set_u64(const fd_h5_file* file, hid_t object, const char* name, uint64_t value);
fd_status fd_h5_set_f64(const fd_h5_file* file, hid_t object, const char* name, double value);
fd_status fd_h5_set_string(const fd_h5_file* file, hid_t object, const char* name, const char* value);
fd_status fd_h5_get_i64(const fd_h5_file* file, hid_t object, const char* name, int64_t* value);
fd_status fd_h5_get_u64(const fd_h5_file* file, hid_t object, const char* name, uint64_t* value);
fd_status fd_h5_get_f64(const fd_h5_file* file, hid_t object, const char* name, double* value);
/* Into a buffer of `size` bytes (cut to fit, always terminated). */
fd_status fd_h5_get_string(const fd_h5_file* file, hid_t object, const char* name, char* value, size_t size);

#endif
