/* The trajectory of a run in one HDF5 file, DIR/trajectory.h5, in the H5MD
 * 1.1 layout (https://www.nongnu.org/h5md/), with XDMF indexes that ParaView
 * opens: DIR/trajectory.xdmf for the bodies, DIR/trajectory_contacts.xdmf
 * for the contacts. docs/output-format.md documents every dataset; keep the
 * two in step.
 *
 * Why H5MD plus XDMF. H5MD is a plain, documented tree of time series
 * (h5py, MDAnalysis and any HDF5 reader walk it); XDMF is the index that
 * lets ParaView read those series as a time-dependent point set. VTKHDF
 * would need no index, but the ParaView of Debian 12 (5.11) does not read
 * time-dependent VTKHDF; its "XDMF Reader" (Xdmf 2) reads this index. The
 * Xdmf 3 readers of the same ParaView do not read point sets without
 * connectivity arrays, so the index is written for the Xdmf 2 reader only.
 *
 * Rows. Row i of every per-body dataset is the body in slot i
 * (fd_world_body_at(world, i), the body index of the CSV files), static
 * bodies and walls included, so value[:, i] is body i's history. A body an
 * outlet removed leaves its slot as a tombstone: NaN in the real datasets,
 * -1 in the integer ones (the H5MD fill value of `id`, which marks a
 * particle that does not exist). A slot may later be reused by a new body
 * (a new generation): `id` then holds the index again and `mass`, `radius`
 * the new body's. Inlets add slots: the rows dimension grows (both the frames
 * and the rows dimensions are unlimited), and the rows a frame did not have
 * read as the fill values. observables/all/count is the number of slots of
 * each frame, the rows the XDMF index shows. Contacts have one row per
 * contact of the frame, in the world's order; their count is
 * observables/contacts/count.
 *
 * Chunks: one frame per chunk along the frames axis, and along the rows
 * axis a power of two near the number of bodies the run is expected to
 * reach (those there are now plus what the inlets still have to pour,
 * between 64 and 16384 rows). A frame's chunks are written once and never
 * read back (chunks that spanned several frames would be recompressed at
 * every frame's flush). The datasets declare byte shuffle + deflate; the
 * per-row ones are written chunk by chunk (trajectory_chunks.c), each
 * deflated only where its content compresses (ids, zeros, springs), the
 * others stored as they are under the chunk's filter mask, which every HDF5
 * reader honours. output.trajectory_compression: none leaves the filters
 * out altogether.
 *
 * A run that stops early. Every frame ends with H5Fflush, so a run stopped
 * between frames (Ctrl-C, SIGTERM, or a process killed at any point outside
 * a frame's write) leaves a file with every frame written so far. A kill
 * inside a frame's write can leave the HDF5 metadata half updated; HDF5
 * promises nothing there (SWMR would, but a file a crashed SWMR writer
 * leaves needs `h5clear` before ParaView opens it). The file uses the
 * HDF5 1.8 format (superblock version 2): no "file open" flag that a killed
 * process would leave set.
 *
 * The indexes are rewritten after each frame (to NAME.tmp, then renamed, so
 * a reader always finds a whole one). An index grows with the frames and
 * each rewrite writes all of it: to keep that from growing as frames^2, an
 * index over INDEX_ALWAYS_BYTES is rewritten only once the HDF5 file has
 * grown by at least the index's size since its last rewrite (the index then
 * costs at most as many bytes written as the data), and always at close.
 * The index holds the datasets' extents as of its rewrite; the XDMF reader
 * takes the extents from the file and only needs the selection to fit, so
 * an index older than the file still reads.
 *
 * The writer reads the world through the public API only, like output.c.
 * This file owns the file, its datasets, the indexes and the API; the
 * frames' values are gathered in output_trajectory_frames.c.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/output_trajectory.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/checkpoint_hdf5.h"
#include "io/hdf5_direct.h"
#include "io/number_format.h"
#include "io/h5md_series.h"

static const char* const H5_NAME = "trajectory.h5";
static const char* const BODIES_INDEX = "trajectory.xdmf";
static const char* const CONTACTS_INDEX = "trajectory_contacts.xdmf";


/* ---------------------------------------------------------------- creating the file */

/* A power of two between ROWS_CHUNK_MIN and ROWS_CHUNK_MAX, at least `expected`. */
static int64_t chunk_rows(int64_t expected)
{
    int64_t rows = ROWS_CHUNK_MIN;
    while (rows < expected && rows < ROWS_CHUNK_MAX) {
        rows *= 2;
    }
    return rows;
}

/* `ok`, with the failure reported (fd_trajectory_fail: "WHAT 'NAME'") when
 * false: the last word of each writer of the file's fixed parts. */
static bool reported(const fd_trajectory* t, bool ok, const char* what, const char* name)
{
    if (!ok) {
        fd_trajectory_fail(t, what, name);
    }
    return ok;
}

/* The /h5md metadata group, the units module, the material and shape names. */
static bool write_metadata(fd_trajectory* t, const fd_world* world)
{
    hid_t h5md = H5Gcreate2(t->file, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int32_t version[2] = {1, 1}, units_version[2] = {1, 0};
    const char* user = getenv("USER");
    bool ok = h5md >= 0 && fd_h5md_set_integers(h5md, "version", version, 2, false);
    hid_t author = ok ? H5Gcreate2(h5md, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = author >= 0 && fd_h5md_set_string(author, "name", user && *user ? user : "unknown", false);
    hid_t creator = ok ? H5Gcreate2(h5md, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = creator >= 0 && fd_h5md_set_string(creator, "name", "fricdem", false) &&
         fd_h5md_set_string(creator, "version", FRICDEM_VERSION_STRING, false);
    hid_t properties = H5Pcreate(H5P_LINK_CREATE);
    ok = ok && properties >= 0 && H5Pset_create_intermediate_group(properties, 1) >= 0;
    hid_t units = ok ? H5Gcreate2(h5md, "modules/units", properties, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = units >= 0 && fd_h5md_set_integers(units, "version", units_version, 2, false) &&
         fd_h5md_set_string(units, "system", "SI", true);
    hid_t groups[] = {units, creator, author, h5md};
    for (int i = 0; i < 4; ++i) {
        fd_h5md_release(groups[i]);
    }
    /* /parameters: species index -> material name, shape code -> shape name. */
    hid_t parameters = ok ? H5Gcreate2(t->file, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = parameters >= 0;
    int materials = fd_world_material_count(world);
    const char** names = calloc((size_t)(materials > 0 ? materials : 1), sizeof *names);
    ok = ok && names != NULL;
    for (int m = 0; ok && m < materials; ++m) {
        const char* name = fd_material_name(world, (fd_material_id){m + 1});
        names[m] = name ? name : "";
    }
    static const char* const shape_names[] = {"sphere", "plane", "ellipsoid", "cylinder", "disk", "mesh"};
    ok = ok && fd_h5md_write_names(parameters, "materials", names, materials) &&
         fd_h5md_write_names(parameters, "shapes", shape_names, 6);
    free(names);
    fd_h5md_release(parameters);
    fd_h5md_release(properties);
    return reported(t, ok, "cannot write the metadata", "/h5md");
}

/* particles/all/box: dimension 3, the boundary of each axis and, with
 * periodic axes, the edges (box_max - box_min; box_min as an attribute). */
static bool write_box(fd_trajectory* t, hid_t all, const fd_world* world)
{
    fd_world_def def = fd_world_get_def(world);
    hid_t box = H5Gcreate2(all, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int32_t dimension = 3;
    bool ok = box >= 0 && fd_h5md_set_integers(box, "dimension", &dimension, 1, true);
    /* boundary: String[3], fixed length. */
    char boundary[3][9];
    bool periodic = false;
    for (int k = 0; k < 3; ++k) {
        snprintf(boundary[k], sizeof boundary[k], "%s", def.periodic[k] ? "periodic" : "none");
        periodic = periodic || def.periodic[k];
    }
    hsize_t three = 3;
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate_simple(1, &three, NULL);
    ok = ok && type >= 0 && space >= 0 && H5Tset_size(type, sizeof boundary[0]) >= 0;
    hid_t attribute = ok ? H5Acreate2(box, "boundary", type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = attribute >= 0 && H5Awrite(attribute, type, boundary) >= 0;
    fd_h5md_release(attribute);
    fd_h5md_release(type);
    if (ok && periodic) {
        double edges[3] = {def.box_max.x - def.box_min.x, def.box_max.y - def.box_min.y, def.box_max.z - def.box_min.z};
        double minimum[3] = {def.box_min.x, def.box_min.y, def.box_min.z};
        hid_t dataset = H5Dcreate2(box, "edges", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ok = dataset >= 0 && H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, edges) >= 0 &&
             fd_h5md_set_string(dataset, "unit", "m", true);
        hid_t minimum_attribute =
            ok ? H5Acreate2(dataset, "box_min", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
        ok = minimum_attribute >= 0 && H5Awrite(minimum_attribute, H5T_NATIVE_DOUBLE, minimum) >= 0;
        fd_h5md_release(minimum_attribute);
        fd_h5md_release(dataset);
    }
    fd_h5md_release(space);
    fd_h5md_release(box);
    return reported(t, ok, "cannot write the box", "/particles/all/box");
}

/* particles/all/position with the shared step and time, then the other
 * elements of the bodies. */
static bool create_bodies(fd_trajectory* t, const fd_world* world, int64_t rows)
{
    hid_t properties = H5Pcreate(H5P_LINK_CREATE);
    bool ok = properties >= 0 && H5Pset_create_intermediate_group(properties, 1) >= 0;
    hid_t all = ok ? H5Gcreate2(t->file, "particles/all", properties, H5P_DEFAULT, H5P_DEFAULT) : -1;
    hid_t position = all >= 0 ? H5Gcreate2(all, "position", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    fd_h5md_release(properties);
    ok = position >= 0 &&
         fd_h5md_create_series(t, position, "step", "/particles/all/position/step", SERIES_I64, false, 0, 0, "1",
                               &t->step) &&
         fd_h5md_create_series(t, position, "time", "/particles/all/position/time", SERIES_F64, false, 0, 0, "s",
                               &t->time) &&
         fd_h5md_create_series(t, position, "value", "/particles/all/position/value", SERIES_F64, true, 3, rows, "m",
                       &t->bodies[BODY_POSITION]) &&
         write_box(t, all, world);
    for (int e = 1; ok && e < BODY_ELEMENT_COUNT; ++e) {
        ok = fd_h5md_create_element(t, all, "/particles/all", &body_elements[e], true, rows, &t->bodies[e]);
    }
    fd_h5md_release(position);
    fd_h5md_release(all);
    if (!ok && position < 0) {
        fd_trajectory_fail(t, "cannot create the group", "/particles/all");
    }
    return ok;
}

/* particles/contacts (its box a hard link to the bodies'), its model
 * columns, and the pairs in /connectivity/contacts. */
static bool create_contacts(fd_trajectory* t, const fd_world* world, int64_t rows)
{
    hid_t contacts = H5Gcreate2(t->file, "particles/contacts", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = contacts >= 0 && H5Lcreate_hard(t->file, "/particles/all/box", contacts, "box", H5P_DEFAULT,
                                              H5P_DEFAULT) >= 0;
    for (int e = 0; ok && e < CONTACT_ELEMENT_COUNT; ++e) {
        ok = fd_h5md_create_element(t, contacts, "/particles/contacts", &contact_elements[e], true, rows,
                                    &t->contact[e]);
    }
    int columns = fd_world_contact_column_count(world);
    columns = columns > 0 ? columns : 0;
    t->model = calloc((size_t)(columns > 0 ? columns : 1), sizeof *t->model);
    t->model_names = calloc((size_t)(columns > 0 ? columns : 1), sizeof *t->model_names);
    ok = ok && t->model != NULL && t->model_names != NULL;
    for (int c = 0; ok && c < columns; ++c) {
        t->model[c].value = -1;
    }
    for (int c = 0; ok && c < columns; ++c) {
        const char* name = fd_world_contact_column_name(world, c);
        const char* unit = fd_world_contact_column_unit(world, c);
        char element[160];
        snprintf(element, sizeof element, "model/%s", name ? name : "");
        t->model_names[c] = malloc(strlen(name ? name : "") + 1);
        ok = t->model_names[c] != NULL;
        if (ok) {
            strcpy(t->model_names[c], name ? name : "");
            element_spec spec = {element, SERIES_F64, 0, unit && *unit && strcmp(unit, "-") != 0 ? unit : "1",
                                 "Scalar", NULL};
            ok = fd_h5md_create_element(t, contacts, "/particles/contacts", &spec, true, rows, &t->model[c]);
            t->model_count = c + 1;
        }
    }
    fd_h5md_release(contacts);
    /* The pairs, H5MD's time-dependent list of tuples, pointing at the bodies. */
    hid_t connectivity = ok ? H5Gcreate2(t->file, "connectivity", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    const element_spec pairs = {"contacts", SERIES_I32, 2, "1", NULL, NULL};
    ok = connectivity >= 0 && fd_h5md_create_element(t, connectivity, "/connectivity", &pairs, true, rows, &t->pairs);
    hid_t group = ok ? H5Gopen2(connectivity, "contacts", H5P_DEFAULT) : -1;
    hobj_ref_t reference;
    hid_t space = H5Screate(H5S_SCALAR);
    ok = group >= 0 && space >= 0 && H5Rcreate(&reference, t->file, "/particles/all", H5R_OBJECT, -1) >= 0;
    hid_t attribute = ok ? H5Acreate2(group, "particles_group", H5T_STD_REF_OBJ, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = attribute >= 0 && H5Awrite(attribute, H5T_STD_REF_OBJ, &reference) >= 0;
    fd_h5md_release(attribute);
    fd_h5md_release(space);
    fd_h5md_release(group);
    fd_h5md_release(connectivity);
    return reported(t, ok, "cannot create the contacts' groups in", t->h5_path);
}

static bool create_observables(fd_trajectory* t)
{
    hid_t observables = H5Gcreate2(t->file, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = observables >= 0;
    for (int o = 0; ok && o < OBSERVABLE_COUNT; ++o) {
        ok = fd_h5md_create_element(t, observables, "/observables", &observable_elements[o], false, 0,
                                    &t->observables[o]);
    }
    fd_h5md_release(observables);
    return ok;
}

/* Every dataset of the file (close_series leaves a closed one closed). */
static void close_all_series(fd_trajectory* t)
{
    fd_h5md_close_series(&t->step);
    fd_h5md_close_series(&t->time);
    fd_h5md_close_series(&t->pairs);
    for (int e = 0; e < BODY_ELEMENT_COUNT; ++e) {
        fd_h5md_close_series(&t->bodies[e]);
    }
    for (int e = 0; e < CONTACT_ELEMENT_COUNT; ++e) {
        fd_h5md_close_series(&t->contact[e]);
    }
    for (int o = 0; o < OBSERVABLE_COUNT; ++o) {
        fd_h5md_close_series(&t->observables[o]);
    }
    for (int c = 0; c < t->model_count; ++c) {
        fd_h5md_close_series(&t->model[c]);
    }
}

static void trajectory_free(fd_trajectory* t)
{
    if (!t) {
        return;
    }
    close_all_series(t);
    for (int c = 0; t->model_names && c < t->model_count; ++c) {
        free(t->model_names[c]);
    }
    free(t->model_names);
    free(t->model);
    fd_h5md_release(t->file);
    FD_FREE_ALL(t->times, t->body_counts, t->contact_counts, t->arrays, t->reals.data);
    fd_chunk_buffers_free(&t->chunks);
    free(t->integers.data);
    free(t->smalls.data);
    free(t->states.data);
    fd_text_free(&t->index);
    free(t->directory);
    free(t->h5_path);
    free(t);
}

static char* joined_path(const char* directory, const char* name)
{
    size_t size = strlen(directory) + strlen(name) + 2;
    char* path = malloc(size);
    if (path) {
        snprintf(path, size, "%s/%s", directory, name);
    }
    return path;
}

/* ---------------------------------------------------------------- XDMF indexes */

static fd_xdmf_number index_number(series_type type)
{
    return type == SERIES_F64 ? FD_XDMF_FLOAT64 : type == SERIES_I32 ? FD_XDMF_INT32 : FD_XDMF_INT64;
}

/* The arrays each index shows (output_xdmf.c writes them): the position
 * first, then every element with an index type, then (contacts) the two
 * body indices of the pairs and the model columns. */
static bool list_index_arrays(fd_trajectory* t)
{
    const int most = BODY_ELEMENT_COUNT + CONTACT_ELEMENT_COUNT + 2 + t->model_count;
    t->arrays = calloc((size_t)most, sizeof *t->arrays);
    if (!t->arrays) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory: out of memory");
        return false;
    }
    for (int group = 0; group < 2; ++group) {
        const bool contacts = group == 1;
        if (contacts && !t->contacts) {
            break;
        }
        const series* elements = contacts ? t->contact : t->bodies;
        const element_spec* specs = contacts ? contact_elements : body_elements;
        const int count = contacts ? CONTACT_ELEMENT_COUNT : BODY_ELEMENT_COUNT;
        fd_xdmf_array* first = t->arrays + t->body_array_count;
        int n = 0;
        for (int e = 0; e < count; ++e) {
            if (e == 0 || specs[e].index_type) {
                first[n++] = (fd_xdmf_array){specs[e].index_name ? specs[e].index_name : specs[e].name,
                                             e == 0 ? "Vector" : specs[e].index_type, elements[e].path,
                                             index_number(elements[e].type), elements[e].components, -1};
            }
        }
        if (contacts) {
            first[n++] = (fd_xdmf_array){"body_i", "Scalar", t->pairs.path, FD_XDMF_INT32, 2, 0};
            first[n++] = (fd_xdmf_array){"body_j", "Scalar", t->pairs.path, FD_XDMF_INT32, 2, 1};
            for (int m = 0; m < t->model_count; ++m) {
                first[n++] = (fd_xdmf_array){t->model_names[m], "Scalar", t->model[m].path, FD_XDMF_FLOAT64, 0, -1};
            }
            t->contact_array_count = n;
        } else {
            t->body_array_count = n;
        }
    }
    return true;
}

static fd_status write_indexes(fd_trajectory* t)
{
    int64_t bodies = 0, contacts = 0;
    char* path = joined_path(t->directory, BODIES_INDEX);
    if (!path) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory: out of memory");
    }
    fd_xdmf_index index = {path, H5_NAME, "bodies", t->arrays, t->body_array_count, t->times, t->body_counts,
                           t->frame_count, t->body_rows};
    fd_status status = fd_xdmf_write_index(&index, &t->index, &bodies);
    free(path);
    if (status == FD_OK && t->contacts) {
        path = joined_path(t->directory, CONTACTS_INDEX);
        if (!path) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory: out of memory");
        }
        index = (fd_xdmf_index){path, H5_NAME, "contacts", t->arrays + t->body_array_count, t->contact_array_count,
                                t->times, t->contact_counts, t->frame_count, t->contact_rows};
        status = fd_xdmf_write_index(&index, &t->index, &contacts);
        free(path);
    }
    if (status == FD_OK) {
        t->index_bytes = bodies + contacts;
        t->indexed_frames = t->frame_count;
        t->h5_bytes_indexed = t->h5_bytes;
    }
    return status;
}

/* HDF5 prints its error stack on every failed call: the API functions
 * silence it while they work and report failures through fd_fail. */
static fd_trajectory* trajectory_open(const fd_world* world, const char* directory, bool contacts, bool compressed,
                                      fd_direct_io direct_io, fd_write_rates* rates);
static fd_status trajectory_write(fd_trajectory* t, const fd_world* world);
static fd_status trajectory_close(fd_trajectory* t);

fd_trajectory* fd_trajectory_open(const fd_world* world, const char* directory, bool contacts, bool compressed,
                                  fd_direct_io direct_io, fd_write_rates* rates)
{
    fd_h5_quiet quiet = fd_h5_silence();
    fd_trajectory* t = trajectory_open(world, directory, contacts, compressed, direct_io, rates);
    fd_h5_restore(quiet);
    return t;
}

fd_status fd_trajectory_write(fd_trajectory* t, const fd_world* world)
{
    if (!t || !world) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "trajectory: trajectory and world are required");
    }
    fd_h5_quiet quiet = fd_h5_silence();
    fd_status status = trajectory_write(t, world);
    fd_h5_restore(quiet);
    return status;
}

fd_status fd_trajectory_close(fd_trajectory* t)
{
    if (!t) {
        return FD_OK;
    }
    fd_h5_quiet quiet = fd_h5_silence();
    fd_status status = trajectory_close(t);
    fd_h5_restore(quiet);
    return status;
}

static fd_trajectory* trajectory_open(const fd_world* world, const char* directory, bool contacts, bool compressed,
                                      fd_direct_io direct_io, fd_write_rates* rates)
{
    fd_trajectory* t = calloc(1, sizeof *t);
    if (!t) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory: out of memory");
        return NULL;
    }
    t->file = -1;
    t->step.value = t->time.value = t->pairs.value = -1;
    for (int e = 0; e < BODY_ELEMENT_COUNT; ++e) {
        t->bodies[e].value = -1;
    }
    for (int e = 0; e < CONTACT_ELEMENT_COUNT; ++e) {
        t->contact[e].value = -1;
    }
    for (int o = 0; o < OBSERVABLE_COUNT; ++o) {
        t->observables[o].value = -1;
    }
    t->contacts = contacts;
    t->compressed = compressed;
    t->threads = fd_world_get_def(world).thread_count;
    t->directory = malloc(strlen(directory) + 1);
    t->h5_path = joined_path(directory, H5_NAME);
    if (!t->directory || !t->h5_path) {
        fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory: out of memory");
        trajectory_free(t);
        return NULL;
    }
    strcpy(t->directory, directory);
    if (compressed && (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 || H5Zfilter_avail(H5Z_FILTER_SHUFFLE) <= 0)) {
        fd_fail(FD_ERR_IO, "trajectory '%s': this HDF5 library has no deflate or shuffle filter", t->h5_path);
        trajectory_free(t);
        return NULL;
    }
    /* The HDF5 1.8 file format (H5MD's recommendation; see the top for why not later ones). */
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    /* Chunks of 64 KiB and more start at a block boundary and, when the
     * file system and output.direct_io allow, go past the page cache
     * (hdf5_direct.h); the default driver otherwise. */
    if (access >= 0 && direct_io != FD_DIRECT_IO_NEVER) {
        fd_hdf5_direct_use(access, 64 * 1024, direct_io, rates ? rates : &t->write_rates);
    }
    if (access >= 0 && H5Pset_libver_bounds(access, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0) {
        t->file = H5Fcreate(t->h5_path, H5F_ACC_TRUNC, H5P_DEFAULT, access);
    }
    fd_h5md_release(access);
    if (t->file < 0) {
        fd_fail(FD_ERR_IO, "trajectory: cannot create '%s'", t->h5_path);
        trajectory_free(t);
        return NULL;
    }
    /* Rows per chunk: the bodies there are and those the inlets will add. */
    int64_t expected = fd_world_body_count(world);
    for (int i = 0; i < fd_world_inlet_count(world); ++i) {
        fd_inlet_info inlet = fd_world_get_inlet_info(world, i);
        expected += inlet.count > inlet.inserted ? inlet.count - inlet.inserted : 0;
    }
    bool ok = write_metadata(t, world) && create_bodies(t, world, chunk_rows(expected)) &&
              (!contacts || create_contacts(t, world, chunk_rows(3 * expected))) && create_observables(t) &&
              list_index_arrays(t) && H5Fflush(t->file, H5F_SCOPE_LOCAL) >= 0;
    if (!ok) {
        trajectory_free(t);
        return NULL;
    }
    return t;
}

/* ---------------------------------------------------------------- API */

static fd_status trajectory_write(fd_trajectory* t, const fd_world* world)
{
    if (t->frame_count == t->frame_capacity) {
        int64_t capacity = t->frame_capacity ? 2 * t->frame_capacity : 256;
        double* times = realloc(t->times, (size_t)capacity * sizeof *times);
        t->times = times ? times : t->times;
        int64_t* bodies = realloc(t->body_counts, (size_t)capacity * sizeof *bodies);
        t->body_counts = bodies ? bodies : t->body_counts;
        int64_t* contacts = realloc(t->contact_counts, (size_t)capacity * sizeof *contacts);
        t->contact_counts = contacts ? contacts : t->contact_counts;
        if (!times || !bodies || !contacts) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory '%s': out of memory", t->h5_path);
        }
        t->frame_capacity = capacity;
    }
    const int64_t frame = t->frame_count;
    const int64_t bodies = fd_world_body_count(world);
    const int64_t contacts = t->contacts ? fd_world_contact_count(world) : 0;
    const int64_t step = fd_world_step_count(world);
    const double time = fd_world_time(world);
    fd_status status = fd_trajectory_write_bodies(t, world, frame, bodies);
    if (status == FD_OK && t->contacts) {
        status = fd_trajectory_write_contacts(t, world, frame, contacts);
    }
    if (status == FD_OK) {
        status = fd_trajectory_write_observables(t, world, frame, bodies);
    }
    /* step and time last: a reader that sees frame k in them sees all of it. */
    if (status == FD_OK) {
        status = fd_trajectory_append(t, &t->step, frame, 0, 1, &step);
    }
    if (status == FD_OK) {
        status = fd_trajectory_append(t, &t->time, frame, 0, 1, &time);
    }
    if (status == FD_OK && H5Fflush(t->file, H5F_SCOPE_LOCAL) < 0) {
        status = fd_trajectory_fail(t, "cannot flush", t->h5_path);
    }
    if (status != FD_OK) {
        return status;
    }
    t->times[frame] = time;
    t->body_counts[frame] = bodies;
    t->contact_counts[frame] = contacts;
    t->frame_count = frame + 1;
    hsize_t size = 0;
    t->h5_bytes = H5Fget_filesize(t->file, &size) >= 0 ? (int64_t)size : t->h5_bytes;
    /* The rule at the top: always while small, else once the data have grown as much as the index. */
    if (t->index_bytes <= INDEX_ALWAYS_BYTES || t->h5_bytes - t->h5_bytes_indexed >= t->index_bytes) {
        status = write_indexes(t);
    }
    return status;
}

bool fd_trajectory_writes_contacts(const fd_trajectory* t) { return t && t->contacts; }

int64_t fd_trajectory_frame_count(const fd_trajectory* t) { return t ? t->frame_count : 0; }

int64_t fd_trajectory_bytes(const fd_trajectory* t) { return t ? t->h5_bytes + t->index_bytes : 0; }

static fd_status trajectory_close(fd_trajectory* t)
{
    fd_status status = FD_OK;
    if (t->frame_count > 0 && t->indexed_frames != t->frame_count) {
        status = write_indexes(t);
    }
    hid_t file = t->file;
    t->file = -1;
    /* Every dataset is closed before the file, so that H5Fclose really closes it. */
    close_all_series(t);
    if (file >= 0 && H5Fclose(file) < 0 && status == FD_OK) {
        status = fd_fail(FD_ERR_IO, "trajectory: closing '%s' failed", t->h5_path);
    }
    trajectory_free(t);
    return status;
}
