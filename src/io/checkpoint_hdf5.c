/* HDF5 helpers for checkpoints (checkpoint_hdf5.h).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/checkpoint_hdf5.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

fd_h5_quiet fd_h5_silence(void)
{
    fd_h5_quiet old = {NULL, NULL};
    H5Eget_auto2(H5E_DEFAULT, &old.function, &old.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return old;
}

void fd_h5_restore(fd_h5_quiet old) { H5Eset_auto2(H5E_DEFAULT, old.function, old.data); }

static fd_status fail(const fd_h5_file* file, const char* what, const char* name)
{
    return fd_fail(FD_ERR_IO, "checkpoint '%s': %s '%s'", file->path, what, name);
}

hid_t fd_h5_group_create(const fd_h5_file* file, hid_t parent, const char* name)
{
    hid_t group = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) {
        fail(file, "cannot create the group", name);
    }
    return group;
}

hid_t fd_h5_group_open(const fd_h5_file* file, hid_t parent, const char* name)
{
    hid_t group = H5Gopen2(parent, name, H5P_DEFAULT);
    if (group < 0) {
        fd_fail(FD_ERR_PARSE, "checkpoint '%s': no group '%s' (not a fricdem checkpoint, or a damaged one)",
                file->path, name);
    }
    return group;
}

bool fd_h5_has(hid_t parent, const char* name) { return H5Lexists(parent, name, H5P_DEFAULT) > 0; }

void fd_h5_close_group(hid_t group)
{
    if (group >= 0) {
        H5Gclose(group);
    }
}

fd_status fd_h5_write(const fd_h5_file* file, hid_t group, const char* name, hid_t type, int rank,
                      const hsize_t* dims, const void* data)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dataset = space < 0 ? -1 : H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t elements = 1;
    for (int k = 0; k < rank; ++k) {
        elements *= dims[k];
    }
    /* An empty array is created and not written (HDF5 wants a buffer even for nothing). */
    bool ok = dataset >= 0 && (elements == 0 || H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    if (dataset >= 0) {
        H5Dclose(dataset);
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    return ok ? FD_OK : fail(file, "cannot write the dataset", name);
}

/* Opens a dataset; -1 after reporting that the group lacks it. */
static hid_t open_dataset(const fd_h5_file* file, hid_t group, const char* name)
{
    hid_t dataset = H5Dopen2(group, name, H5P_DEFAULT);
    if (dataset < 0) {
        fd_fail(FD_ERR_PARSE, "checkpoint '%s': no dataset '%s' (not a fricdem checkpoint, or a damaged one)",
                file->path, name);
    }
    return dataset;
}

/* A dataset's rank and its first 8 dimensions in dims; -1 if it has no
 * simple extent of at most 8 dimensions. */
static int dataset_extent(hid_t dataset, hsize_t dims[8])
{
    hid_t space = H5Dget_space(dataset);
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    if (rank < 0 || rank > 8 || H5Sget_simple_extent_dims(space, dims, NULL) != rank) {
        rank = -1;
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    return rank;
}

/* Opens a dataset and checks its shape; -1 after reporting what is wrong. */
static hid_t open_shaped(const fd_h5_file* file, hid_t group, const char* name, int rank, const hsize_t* dims)
{
    hid_t dataset = open_dataset(file, group, name);
    if (dataset < 0) {
        return -1;
    }
    hsize_t found[8] = {0};
    bool same = dataset_extent(dataset, found) == rank;
    for (int k = 0; same && k < rank; ++k) {
        same = found[k] == dims[k];
    }
    if (!same) {
        H5Dclose(dataset);
        fd_fail(FD_ERR_PARSE, "checkpoint '%s': dataset '%s' has not the shape this format version gives it "
                "(%d dimensions, %llu rows expected)", file->path, name, rank,
                (unsigned long long)(rank > 0 ? dims[0] : 0));
        return -1;
    }
    return dataset;
}

fd_status fd_h5_read(const fd_h5_file* file, hid_t group, const char* name, hid_t type, int rank,
                     const hsize_t* dims, void* data)
{
    hid_t dataset = open_shaped(file, group, name, rank, dims);
    if (dataset < 0) {
        return FD_ERR_PARSE;
    }
    hsize_t elements = 1;
    for (int k = 0; k < rank; ++k) {
        elements *= dims[k];
    }
    bool ok = elements == 0 || H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    H5Dclose(dataset);
    return ok ? FD_OK : fail(file, "cannot read the dataset", name);
}

int64_t fd_h5_rows(const fd_h5_file* file, hid_t group, const char* name)
{
    hid_t dataset = open_dataset(file, group, name);
    if (dataset < 0) {
        return -1;
    }
    hsize_t dims[8] = {0};
    int rank = dataset_extent(dataset, dims);
    H5Dclose(dataset);
    if (rank < 1) {
        fd_fail(FD_ERR_PARSE, "checkpoint '%s': dataset '%s' is not an array", file->path, name);
        return -1;
    }
    return (int64_t)dims[0];
}

static hid_t string_type(void)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type >= 0) {
        H5Tset_size(type, H5T_VARIABLE);
        H5Tset_cset(type, H5T_CSET_UTF8);
    }
    return type;
}

fd_status fd_h5_write_strings(const fd_h5_file* file, hid_t group, const char* name, const char* const* strings,
                              int64_t count)
{
    hid_t type = string_type();
    if (type < 0) {
        return fail(file, "cannot write the dataset", name);
    }
    hsize_t dims[1] = {(hsize_t)count};
    fd_status status = fd_h5_write(file, group, name, type, 1, dims, strings);
    H5Tclose(type);
    return status;
}

fd_status fd_h5_read_strings(const fd_h5_file* file, hid_t group, const char* name, int64_t count, char*** out)
{
    *out = NULL;
    hsize_t dims[1] = {(hsize_t)count};
    hid_t dataset = open_shaped(file, group, name, 1, dims);
    if (dataset < 0) {
        return FD_ERR_PARSE;
    }
    hid_t type = string_type();
    char** raw = calloc((size_t)(count > 0 ? count : 1), sizeof *raw);
    char** copies = calloc((size_t)(count > 0 ? count : 1), sizeof *copies);
    bool ok = type >= 0 && raw != NULL && copies != NULL &&
              (count == 0 || H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) >= 0);
    /* Into plain malloc'ed copies, so that the caller never meets HDF5's allocator. */
    for (int64_t k = 0; ok && k < count; ++k) {
        const char* text = raw[k] != NULL ? raw[k] : "";
        copies[k] = malloc(strlen(text) + 1);
        ok = copies[k] != NULL;
        if (ok) {
            strcpy(copies[k], text);
        }
    }
    if (type >= 0 && raw != NULL && count > 0) {
        hid_t space = H5Dget_space(dataset);
#if H5_VERSION_GE(1, 12, 0)
        H5Treclaim(type, space, H5P_DEFAULT, raw);
#else
        H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw);
#endif
        H5Sclose(space);
    }
    if (type >= 0) {
        H5Tclose(type);
    }
    H5Dclose(dataset);
    free(raw);
    if (!ok) {
        fd_h5_free_strings(copies, count);
        return fail(file, "cannot read the strings of", name);
    }
    *out = copies;
    return FD_OK;
}

void fd_h5_free_strings(char** strings, int64_t count)
{
    for (int64_t k = 0; strings != NULL && k < count; ++k) {
        free(strings[k]);
    }
    free(strings);
}

/* ---------------------------------------------------------------- tables */

static size_t value_size(fd_h5_value value)
{
    return value == FD_H5_NAME ? sizeof(char*) : value == FD_H5_INT64 ? sizeof(int64_t) : sizeof(double);
}

fd_status fd_h5_table_allocate(fd_h5_table* table, const fd_h5_column* columns, int column_count, int64_t rows)
{
    *table = (fd_h5_table){.columns = columns, .column_count = column_count, .rows = rows};
    bool allocated = column_count <= FD_H5_MAX_COLUMNS;
    for (int k = 0; allocated && k < column_count; ++k) {
        const fd_h5_column* column = &columns[k];
        table->data[k] = calloc((size_t)(rows > 0 ? rows : 1) * (size_t)column->width, value_size(column->value));
        allocated = table->data[k] != NULL;
    }
    return allocated ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
}

/* The shape of column k's dataset: rank 1 [rows], or rank 2 [rows][width]. */
static int column_shape(const fd_h5_table* table, int k, hsize_t dims[2])
{
    dims[0] = (hsize_t)table->rows;
    dims[1] = (hsize_t)table->columns[k].width;
    return table->columns[k].width > 1 ? 2 : 1;
}

static hid_t native_type(fd_h5_value value) { return value == FD_H5_INT64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE; }

fd_status fd_h5_table_write(const fd_h5_file* file, hid_t group, const fd_h5_table* table)
{
    fd_status s = FD_OK;
    for (int k = 0; s == FD_OK && k < table->column_count; ++k) {
        const fd_h5_column* column = &table->columns[k];
        hsize_t dims[2];
        int rank = column_shape(table, k, dims);
        s = column->value == FD_H5_NAME
                ? fd_h5_write_strings(file, group, column->name, table->data[k], table->rows)
                : fd_h5_write(file, group, column->name, native_type(column->value), rank, dims, table->data[k]);
    }
    return s;
}

fd_status fd_h5_table_read(const fd_h5_file* file, hid_t group, fd_h5_table* table)
{
    fd_status s = FD_OK;
    for (int k = 0; s == FD_OK && k < table->column_count; ++k) {
        const fd_h5_column* column = &table->columns[k];
        if (column->optional && !fd_h5_has(group, column->name)) {
            continue;
        }
        if (column->value == FD_H5_NAME) {
            char** strings = NULL;
            s = fd_h5_read_strings(file, group, column->name, table->rows, &strings);
            if (s == FD_OK) {
                free(table->data[k]);
                table->data[k] = strings;
                table->strings_read[k] = true;
            }
            continue;
        }
        hsize_t dims[2];
        int rank = column_shape(table, k, dims);
        s = fd_h5_read(file, group, column->name, native_type(column->value), rank, dims, table->data[k]);
    }
    return s;
}

void fd_h5_table_free(fd_h5_table* table)
{
    for (int k = 0; k < table->column_count && k < FD_H5_MAX_COLUMNS; ++k) {
        if (table->strings_read[k]) {
            fd_h5_free_strings(table->data[k], table->rows);
        } else {
            free(table->data[k]);
        }
        table->data[k] = NULL;
    }
}

static fd_status set_attribute(const fd_h5_file* file, hid_t object, const char* name, hid_t type, const void* value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attribute = space < 0 ? -1 : H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = attribute >= 0 && H5Awrite(attribute, type, value) >= 0;
    if (attribute >= 0) {
        H5Aclose(attribute);
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    return ok ? FD_OK : fail(file, "cannot write the attribute", name);
}

static fd_status get_attribute(const fd_h5_file* file, hid_t object, const char* name, hid_t type, void* value)
{
    hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
    if (attribute < 0) {
        return fd_fail(FD_ERR_PARSE, "checkpoint '%s': no attribute '%s' (not a fricdem checkpoint, or a damaged one)",
                       file->path, name);
    }
    bool ok = H5Aread(attribute, type, value) >= 0;
    H5Aclose(attribute);
    return ok ? FD_OK : fail(file, "cannot read the attribute", name);
}

fd_status fd_h5_set_i64(const fd_h5_file* file, hid_t object, const char* name, int64_t value)
{
    return set_attribute(file, object, name, H5T_NATIVE_INT64, &value);
}

fd_status fd_h5_set_u64(const fd_h5_file* file, hid_t object, const char* name, uint64_t value)
{
    return set_attribute(file, object, name, H5T_NATIVE_UINT64, &value);
}

fd_status fd_h5_set_f64(const fd_h5_file* file, hid_t object, const char* name, double value)
{
    return set_attribute(file, object, name, H5T_NATIVE_DOUBLE, &value);
}

fd_status fd_h5_set_string(const fd_h5_file* file, hid_t object, const char* name, const char* value)
{
    hid_t type = string_type();
    if (type < 0) {
        return fail(file, "cannot write the attribute", name);
    }
    fd_status status = set_attribute(file, object, name, type, &value);
    H5Tclose(type);
    return status;
}

fd_status fd_h5_get_i64(const fd_h5_file* file, hid_t object, const char* name, int64_t* value)
{
    return get_attribute(file, object, name, H5T_NATIVE_INT64, value);
}

fd_status fd_h5_get_u64(const fd_h5_file* file, hid_t object, const char* name, uint64_t* value)
{
    return get_attribute(file, object, name, H5T_NATIVE_UINT64, value);
}

fd_status fd_h5_get_f64(const fd_h5_file* file, hid_t object, const char* name, double* value)
{
    return get_attribute(file, object, name, H5T_NATIVE_DOUBLE, value);
}

fd_status fd_h5_get_string(const fd_h5_file* file, hid_t object, const char* name, char* value, size_t size)
{
    value[0] = '\0';
    hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
    if (attribute < 0) {
        return fd_fail(FD_ERR_PARSE, "checkpoint '%s': no attribute '%s' (not a fricdem checkpoint, or a damaged one)",
                       file->path, name);
    }
    hid_t type = string_type();
    char* text = NULL;
    bool ok = type >= 0 && H5Aread(attribute, type, &text) >= 0;
    if (ok) {
        snprintf(value, size, "%s", text != NULL ? text : "");
        H5free_memory(text);
    }
    if (type >= 0) {
        H5Tclose(type);
    }
    H5Aclose(attribute);
    return ok ? FD_OK : fail(file, "cannot read the attribute", name);
}
