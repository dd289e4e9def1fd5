/* The H5MD series of the trajectory (h5md_series.h): HDF5 attributes and
 * datasets made the way H5MD 1.1 asks, extendible series created with their
 * chunking and filters, and a frame appended to a series. Owns no file: the
 * trajectory's writer (output_trajectory.c) creates and closes it, its frames
 * (output_trajectory_frames.c) append to its series.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/h5md_series.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

/* Closes any HDF5 identifier (file, group, dataset, dataspace, type,
 * property list, attribute); nothing for -1. */
void fd_h5md_release(hid_t id)
{
    if (id >= 0) {
        H5Idec_ref(id);
    }
}

fd_status fd_trajectory_fail(const fd_trajectory* t, const char* what, const char* name)
{
    return fd_fail(FD_ERR_IO, "trajectory '%s': %s '%s'", t->h5_path, what, name);
}

static hid_t memory_type(series_type type)
{
    return type == SERIES_F64 ? H5T_NATIVE_DOUBLE : type == SERIES_I32 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64;
}

static hid_t file_type(series_type type)
{
    return type == SERIES_F64 ? H5T_IEEE_F64LE : type == SERIES_I32 ? H5T_STD_I32LE : H5T_STD_I64LE;
}

static size_t element_size(series_type type) { return type == SERIES_I32 ? sizeof(int32_t) : sizeof(int64_t); }

/* The fill value of a series: NaN for reals, -1 (H5MD: "does not exist") for
 * integers; what a dataset reads where nothing was written. */
static const void* fill_value(series_type type)
{
    static const double nan = NAN;
    static const int32_t minus_one_32 = -1;
    static const int64_t minus_one_64 = -1;
    return type == SERIES_F64 ? (const void*)&nan
           : type == SERIES_I32 ? (const void*)&minus_one_32
                                : (const void*)&minus_one_64;
}

/* A string attribute: variable-length ASCII (the H5MD units module's `unit`)
 * or fixed-length (the h5md group's metadata, as H5MD asks). */
bool fd_h5md_set_string(hid_t object, const char* name, const char* value, bool variable)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate(H5S_SCALAR);
    bool ok = type >= 0 && space >= 0 && H5Tset_size(type, variable ? H5T_VARIABLE : strlen(value) + 1) >= 0 &&
              H5Tset_cset(type, H5T_CSET_ASCII) >= 0;
    hid_t attribute = ok ? H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = attribute >= 0 && H5Awrite(attribute, type, variable ? (const void*)&value : (const void*)value) >= 0;
    fd_h5md_release(attribute);
    fd_h5md_release(space);
    fd_h5md_release(type);
    return ok;
}

/* A String[count] dataset of variable-length strings, with unit "1". */
bool fd_h5md_write_names(hid_t group, const char* name, const char* const* names, int count)
{
    hsize_t dims = (hsize_t)count;
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate_simple(1, &dims, NULL);
    bool ok = type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 && H5Tset_cset(type, H5T_CSET_UTF8) >= 0;
    hid_t dataset = ok ? H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = dataset >= 0 && (count == 0 || H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) >= 0) &&
         fd_h5md_set_string(dataset, "unit", "1", true);
    fd_h5md_release(dataset);
    fd_h5md_release(space);
    fd_h5md_release(type);
    return ok;
}

/* An Integer[count] attribute. */
bool fd_h5md_set_integers(hid_t object, const char* name, const int32_t* values, hsize_t count, bool scalar)
{
    hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, NULL);
    hid_t attribute = space < 0 ? -1 : H5Acreate2(object, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = attribute >= 0 && H5Awrite(attribute, H5T_NATIVE_INT32, values) >= 0;
    fd_h5md_release(attribute);
    fd_h5md_release(space);
    return ok;
}

/* An empty, extendible, chunked and compressed dataset `name` in group, with
 * its unit: [0] (frames), [0][0] (frames, rows) or [0][0][components]. */
bool fd_h5md_create_series(fd_trajectory* t, hid_t group, const char* name, const char* path, series_type type,
                           bool per_row, int components, int64_t chunk_rows, const char* unit, series* out)
{
    *out = (series){.value = -1, .type = type, .per_row = per_row, .components = components, .chunk_rows = chunk_rows};
    snprintf(out->path, sizeof out->path, "%s", path);
    hsize_t dims[3], max[3], chunk[3];
    int rank = 0;
    dims[rank] = 0, max[rank] = H5S_UNLIMITED, chunk[rank++] = per_row ? 1 : FRAMES_CHUNK;
    if (per_row) {
        dims[rank] = 0, max[rank] = H5S_UNLIMITED, chunk[rank++] = (hsize_t)chunk_rows;
    }
    if (components > 0) {
        dims[rank] = max[rank] = chunk[rank] = (hsize_t)components, ++rank;
    }
    hid_t space = H5Screate_simple(rank, dims, max);
    hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
    bool ok = space >= 0 && properties >= 0 && H5Pset_chunk(properties, rank, chunk) >= 0 &&
              (!t->compressed ||
               (H5Pset_shuffle(properties) >= 0 && H5Pset_deflate(properties, DEFLATE_LEVEL) >= 0)) &&
              H5Pset_fill_value(properties, memory_type(type), fill_value(type)) >= 0;
    out->value = ok ? H5Dcreate2(group, name, file_type(type), space, H5P_DEFAULT, properties, H5P_DEFAULT) : -1;
    ok = out->value >= 0 && fd_h5md_set_string(out->value, "unit", unit, true);
    fd_h5md_release(properties);
    fd_h5md_release(space);
    if (!ok) {
        fd_trajectory_fail(t, "cannot create the dataset", path);
    }
    return ok;
}

/* An H5MD time-dependent element: group PARENT/NAME with `value` and hard
 * links `step` and `time` to the shared ones. */
bool fd_h5md_create_element(fd_trajectory* t, hid_t parent, const char* parent_path, const element_spec* spec,
                            bool per_row, int64_t chunk_rows, series* out)
{
    char path[192];
    snprintf(path, sizeof path, "%s/%s/value", parent_path, spec->name);
    hid_t properties = H5Pcreate(H5P_LINK_CREATE);
    bool ok = properties >= 0 && H5Pset_create_intermediate_group(properties, 1) >= 0;
    hid_t group = ok ? H5Gcreate2(parent, spec->name, properties, H5P_DEFAULT, H5P_DEFAULT) : -1;
    fd_h5md_release(properties);
    ok = group >= 0 && H5Lcreate_hard(t->file, t->step.path, group, "step", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
         H5Lcreate_hard(t->file, t->time.path, group, "time", H5P_DEFAULT, H5P_DEFAULT) >= 0;
    if (!ok) {
        fd_h5md_release(group);
        fd_trajectory_fail(t, "cannot create the element", path);
        return false;
    }
    ok = fd_h5md_create_series(t, group, "value", path, spec->type, per_row, spec->components, chunk_rows, spec->unit,
                               out);
    H5Gclose(group);
    return ok;
}

void fd_h5md_close_series(series* s)
{
    fd_h5md_release(s->value);
    s->value = -1;
}

/* Appends a frame to a series: extends it to frame + 1 frames (and `rows`
 * rows) and writes the n rows of `data` (one value per frame when not
 * per row). */
fd_status fd_trajectory_append(fd_trajectory* t, series* s, int64_t frame, int64_t rows, int64_t n, const void* data)
{
    hsize_t dims[3], start[3] = {(hsize_t)frame, 0, 0}, count[3];
    int rank = 0;
    dims[rank] = (hsize_t)frame + 1, count[rank++] = 1;
    if (s->per_row) {
        dims[rank] = (hsize_t)rows, count[rank++] = (hsize_t)n;
    }
    if (s->components > 0) {
        dims[rank] = count[rank] = (hsize_t)s->components, ++rank;
    }
    if (H5Dset_extent(s->value, dims) < 0) {
        return fd_trajectory_fail(t, "cannot extend the dataset", s->path);
    }
    if (n == 0) {
        return FD_OK;
    }
    if (t->compressed && s->per_row) {
        /* Chunk by chunk, each compressed only where it pays (trajectory_chunks.c). */
        return fd_write_frame_chunks(s->value, frame, n, s->chunk_rows, s->components, element_size(s->type),
                                     fill_value(s->type), data, t->threads, &t->chunks)
                   ? FD_OK
                   : fd_trajectory_fail(t, "cannot write a frame of", s->path);
    }
    hid_t file_space = H5Dget_space(s->value);
    hid_t memory_space = H5Screate_simple(rank, count, NULL);
    bool ok = file_space >= 0 && memory_space >= 0 &&
              H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
              H5Dwrite(s->value, memory_type(s->type), memory_space, file_space, H5P_DEFAULT, data) >= 0;
    fd_h5md_release(memory_space);
    fd_h5md_release(file_space);
    return ok ? FD_OK : fd_trajectory_fail(t, "cannot write a frame of", s->path);
}
