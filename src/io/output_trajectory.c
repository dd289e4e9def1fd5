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
 * The writer reads the world through the public API only, like output.c. */
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
#include "io/checkpoint_hdf5.h"
#include "io/hdf5_direct.h"
#include "io/number_format.h"
#include "io/output_xdmf.h"
#include "io/trajectory_chunks.h"

enum {
    ROWS_CHUNK_MIN = 64,
    ROWS_CHUNK_MAX = 16384,
    FRAMES_CHUNK = 1024,       /* frames per chunk of the per-frame datasets (step, time, observables) */
    DEFLATE_LEVEL = 1,
    STATE_BLOCK = 4096,        /* bodies per fd_world_get_states call */
    INDEX_ALWAYS_BYTES = 4 << 20,
};

static const char* const H5_NAME = "trajectory.h5";
static const char* const BODIES_INDEX = "trajectory.xdmf";
static const char* const CONTACTS_INDEX = "trajectory_contacts.xdmf";

typedef enum series_type { SERIES_F64, SERIES_I32, SERIES_I64 } series_type;

/* One H5MD time-dependent element's value dataset: [frames], [frames][rows]
 * or [frames][rows][components]. */
typedef struct series {
    hid_t value;
    series_type type;
    bool per_row;
    int components;          /* 0: a scalar per row (or per frame) */
    int64_t chunk_rows;      /* rows per chunk (per_row) */
    char path[192];          /* of the value dataset, for the index */
} series;

/* What an element is: its name, type, unit (H5MD units module syntax, "1"
 * for pure numbers) and how the index shows it. */
typedef struct element_spec {
    const char* name;
    series_type type;
    int components;
    const char* unit;
    const char* index_type;  /* XDMF AttributeType; NULL: the geometry, or not indexed */
    const char* index_name;  /* the attribute's name in the index (NULL: name) */
} element_spec;

enum {
    BODY_POSITION,
    BODY_ORIENTATION,
    BODY_VELOCITY,
    BODY_ANGULAR_VELOCITY,
    BODY_RADIUS,
    BODY_MASS,
    BODY_SPECIES,
    BODY_SHAPE,
    BODY_ID,
    BODY_ELEMENT_COUNT
};

static const element_spec body_elements[BODY_ELEMENT_COUNT] = {
    [BODY_POSITION] = {"position", SERIES_F64, 3, "m", NULL, NULL},
    [BODY_ORIENTATION] = {"orientation", SERIES_F64, 4, "1", "Matrix", NULL},
    [BODY_VELOCITY] = {"velocity", SERIES_F64, 3, "m s-1", "Vector", NULL},
    [BODY_ANGULAR_VELOCITY] = {"angular_velocity", SERIES_F64, 3, "rad s-1", "Vector", NULL},
    [BODY_RADIUS] = {"radius", SERIES_F64, 0, "m", "Scalar", NULL},
    [BODY_MASS] = {"mass", SERIES_F64, 0, "kg", "Scalar", NULL},
    [BODY_SPECIES] = {"species", SERIES_I32, 0, "1", "Scalar", "material"},
    [BODY_SHAPE] = {"shape", SERIES_I32, 0, "1", "Scalar", NULL},
    [BODY_ID] = {"id", SERIES_I64, 0, "1", "Scalar", NULL},
};

enum {
    CONTACT_POSITION,
    CONTACT_ID,
    CONTACT_NORMAL,
    CONTACT_PENETRATION,
    CONTACT_NORMAL_FORCE,
    CONTACT_SLIDE_FORCE,
    CONTACT_ROLL_I,
    CONTACT_ROLL_J,
    CONTACT_SPIN_I,
    CONTACT_SPIN_J,
    CONTACT_STORED,
    CONTACT_DASHPOT,
    CONTACT_SLIP,
    CONTACT_CREATED,
    CONTACT_WORK,
    CONTACT_ELEMENT_COUNT
};

/* The energy books are per mechanism (normal, slide, roll, spin). */
static const element_spec contact_elements[CONTACT_ELEMENT_COUNT] = {
    [CONTACT_POSITION] = {"position", SERIES_F64, 3, "m", NULL, NULL},
    [CONTACT_ID] = {"id", SERIES_I64, 0, "1", "Scalar", NULL},
    [CONTACT_NORMAL] = {"normal", SERIES_F64, 3, "1", "Vector", NULL},
    [CONTACT_PENETRATION] = {"penetration", SERIES_F64, 0, "m", "Scalar", NULL},
    [CONTACT_NORMAL_FORCE] = {"normal_force", SERIES_F64, 0, "N", "Scalar", NULL},
    [CONTACT_SLIDE_FORCE] = {"slide_force", SERIES_F64, 3, "N", "Vector", NULL},
    [CONTACT_ROLL_I] = {"roll_torque_i", SERIES_F64, 3, "N m", "Vector", NULL},
    [CONTACT_ROLL_J] = {"roll_torque_j", SERIES_F64, 3, "N m", "Vector", NULL},
    [CONTACT_SPIN_I] = {"spin_torque_i", SERIES_F64, 3, "N m", "Vector", NULL},
    [CONTACT_SPIN_J] = {"spin_torque_j", SERIES_F64, 3, "N m", "Vector", NULL},
    [CONTACT_STORED] = {"energy_stored", SERIES_F64, 4, "J", "Matrix", NULL},
    [CONTACT_DASHPOT] = {"energy_dashpot", SERIES_F64, 4, "J", "Matrix", NULL},
    [CONTACT_SLIP] = {"energy_slip", SERIES_F64, 4, "J", "Matrix", NULL},
    [CONTACT_CREATED] = {"energy_created", SERIES_F64, 4, "J", "Matrix", NULL},
    [CONTACT_WORK] = {"energy_work", SERIES_F64, 4, "J", "Matrix", NULL},
};

enum {
    OBSERVE_COUNT,
    OBSERVE_BODIES,
    OBSERVE_CONTACTS,
    OBSERVE_KINETIC_TRANSLATIONAL,
    OBSERVE_KINETIC_ROTATIONAL,
    OBSERVE_GRAVITATIONAL,
    OBSERVE_STORED,
    OBSERVE_DASHPOT,
    OBSERVE_SLIP,
    OBSERVE_CREATED,
    OBSERVE_RELEASED,
    OBSERVE_EXTERNAL_WORK,
    OBSERVE_CONSTRAINT_WORK,
    OBSERVE_INSERTED,
    OBSERVE_REMOVED,
    OBSERVE_TOTAL,
    OBSERVE_CLOSURE_ERROR,
    OBSERVABLE_COUNT
};

/* Paths under /observables; the energy ledger's (fd_world_get_energy,
 * docs/energy.md) per-mechanism books have 4 components. */
static const element_spec observable_elements[OBSERVABLE_COUNT] = {
    [OBSERVE_COUNT] = {"all/count", SERIES_I32, 0, "1", NULL, NULL},
    [OBSERVE_BODIES] = {"all/bodies", SERIES_I32, 0, "1", NULL, NULL},
    [OBSERVE_CONTACTS] = {"contacts/count", SERIES_I32, 0, "1", NULL, NULL},
    [OBSERVE_KINETIC_TRANSLATIONAL] = {"energy/kinetic_translational", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_KINETIC_ROTATIONAL] = {"energy/kinetic_rotational", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_GRAVITATIONAL] = {"energy/gravitational", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_STORED] = {"energy/stored", SERIES_F64, 4, "J", NULL, NULL},
    [OBSERVE_DASHPOT] = {"energy/dashpot", SERIES_F64, 4, "J", NULL, NULL},
    [OBSERVE_SLIP] = {"energy/slip", SERIES_F64, 4, "J", NULL, NULL},
    [OBSERVE_CREATED] = {"energy/created", SERIES_F64, 4, "J", NULL, NULL},
    [OBSERVE_RELEASED] = {"energy/released", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_EXTERNAL_WORK] = {"energy/external_work", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_CONSTRAINT_WORK] = {"energy/constraint_work", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_INSERTED] = {"energy/inserted", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_REMOVED] = {"energy/removed", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_TOTAL] = {"energy/total", SERIES_F64, 0, "J", NULL, NULL},
    [OBSERVE_CLOSURE_ERROR] = {"energy/closure_error", SERIES_F64, 0, "J", NULL, NULL},
};

/* A growable scratch array. */
typedef struct scratch {
    void* data;
    size_t bytes;
} scratch;

struct fd_trajectory {
    hid_t file;
    char* directory;
    char* h5_path;
    bool contacts;
    bool compressed;         /* byte shuffle + deflate on every dataset */
    series step, time;       /* shared by every element (hard links) */
    series bodies[BODY_ELEMENT_COUNT];
    series contact[CONTACT_ELEMENT_COUNT];
    series pairs;            /* /connectivity/contacts: the two body indices of each contact */
    series* model;           /* /particles/contacts/model/NAME: the contact models' output columns */
    char** model_names;
    int model_count;
    series observables[OBSERVABLE_COUNT];
    int64_t body_rows, contact_rows; /* extent of the rows dimension */
    /* Per frame, for the indexes: time, body rows (the world's slots), contact rows. */
    double* times;
    int64_t* body_counts;
    int64_t* contact_counts;
    int64_t frame_count, frame_capacity;
    fd_xdmf_array* arrays;   /* what the indexes show: the bodies' arrays, then the contacts' */
    int body_array_count, contact_array_count;
    scratch reals, integers, smalls, states;
    fd_chunk_buffers chunks;
    fd_write_rates write_rates; /* the direct driver's measurements (hdf5_direct.h) */
    int threads;             /* the world's: the chunks of a frame are deflated on as many */
    fd_text index;
    int64_t index_bytes;     /* of both indexes at their last rewrite */
    int64_t indexed_frames;  /* frames they list */
    int64_t h5_bytes;        /* the HDF5 file's size after the last frame */
    int64_t h5_bytes_indexed; /* ... when the indexes were last rewritten */
};

/* ---------------------------------------------------------------- HDF5 helpers */

/* Closes any HDF5 identifier (file, group, dataset, dataspace, type,
 * property list, attribute); nothing for -1. */
static void release(hid_t id)
{
    if (id >= 0) {
        H5Idec_ref(id);
    }
}

static fd_status fail(const fd_trajectory* t, const char* what, const char* name)
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
static bool set_string(hid_t object, const char* name, const char* value, bool variable)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate(H5S_SCALAR);
    bool ok = type >= 0 && space >= 0 && H5Tset_size(type, variable ? H5T_VARIABLE : strlen(value) + 1) >= 0 &&
              H5Tset_cset(type, H5T_CSET_ASCII) >= 0;
    hid_t attribute = ok ? H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = attribute >= 0 && H5Awrite(attribute, type, variable ? (const void*)&value : (const void*)value) >= 0;
    release(attribute);
    release(space);
    release(type);
    return ok;
}

/* A String[count] dataset of variable-length strings, with unit "1". */
static bool write_names(hid_t group, const char* name, const char* const* names, int count)
{
    hsize_t dims = (hsize_t)count;
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate_simple(1, &dims, NULL);
    bool ok = type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 && H5Tset_cset(type, H5T_CSET_UTF8) >= 0;
    hid_t dataset = ok ? H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = dataset >= 0 && (count == 0 || H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) >= 0) &&
         set_string(dataset, "unit", "1", true);
    release(dataset);
    release(space);
    release(type);
    return ok;
}

/* An Integer[count] attribute. */
static bool set_integers(hid_t object, const char* name, const int32_t* values, hsize_t count, bool scalar)
{
    hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, NULL);
    hid_t attribute = space < 0 ? -1 : H5Acreate2(object, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = attribute >= 0 && H5Awrite(attribute, H5T_NATIVE_INT32, values) >= 0;
    release(attribute);
    release(space);
    return ok;
}

/* An empty, extendible, chunked and compressed dataset `name` in group, with
 * its unit: [0] (frames), [0][0] (frames, rows) or [0][0][components]. */
static bool create_series(fd_trajectory* t, hid_t group, const char* name, const char* path, series_type type,
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
    ok = out->value >= 0 && set_string(out->value, "unit", unit, true);
    release(properties);
    release(space);
    if (!ok) {
        fail(t, "cannot create the dataset", path);
    }
    return ok;
}

/* An H5MD time-dependent element: group PARENT/NAME with `value` and hard
 * links `step` and `time` to the shared ones. */
static bool create_element(fd_trajectory* t, hid_t parent, const char* parent_path, const element_spec* spec,
                           bool per_row, int64_t chunk_rows, series* out)
{
    char path[192];
    snprintf(path, sizeof path, "%s/%s/value", parent_path, spec->name);
    hid_t properties = H5Pcreate(H5P_LINK_CREATE);
    bool ok = properties >= 0 && H5Pset_create_intermediate_group(properties, 1) >= 0;
    hid_t group = ok ? H5Gcreate2(parent, spec->name, properties, H5P_DEFAULT, H5P_DEFAULT) : -1;
    release(properties);
    ok = group >= 0 && H5Lcreate_hard(t->file, t->step.path, group, "step", H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
         H5Lcreate_hard(t->file, t->time.path, group, "time", H5P_DEFAULT, H5P_DEFAULT) >= 0;
    if (!ok) {
        release(group);
        fail(t, "cannot create the element", path);
        return false;
    }
    ok = create_series(t, group, "value", path, spec->type, per_row, spec->components, chunk_rows, spec->unit, out);
    H5Gclose(group);
    return ok;
}

static void close_series(series* s)
{
    release(s->value);
    s->value = -1;
}

/* Appends a frame to a series: extends it to frame + 1 frames (and `rows`
 * rows) and writes the n rows of `data` (one value per frame when not
 * per row). */
static fd_status append(fd_trajectory* t, series* s, int64_t frame, int64_t rows, int64_t n, const void* data)
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
        return fail(t, "cannot extend the dataset", s->path);
    }
    if (n == 0) {
        return FD_OK;
    }
    if (t->compressed && s->per_row) {
        /* Chunk by chunk, each compressed only where it pays (trajectory_chunks.c). */
        return fd_write_frame_chunks(s->value, frame, n, s->chunk_rows, s->components, element_size(s->type),
                                     fill_value(s->type), data, t->threads, &t->chunks)
                   ? FD_OK
                   : fail(t, "cannot write a frame of", s->path);
    }
    hid_t file_space = H5Dget_space(s->value);
    hid_t memory_space = H5Screate_simple(rank, count, NULL);
    bool ok = file_space >= 0 && memory_space >= 0 &&
              H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
              H5Dwrite(s->value, memory_type(s->type), memory_space, file_space, H5P_DEFAULT, data) >= 0;
    release(memory_space);
    release(file_space);
    return ok ? FD_OK : fail(t, "cannot write a frame of", s->path);
}

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

/* The /h5md metadata group, the units module, the material and shape names. */
static bool write_metadata(fd_trajectory* t, const fd_world* world)
{
    hid_t h5md = H5Gcreate2(t->file, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int32_t version[2] = {1, 1}, units_version[2] = {1, 0};
    const char* user = getenv("USER");
    bool ok = h5md >= 0 && set_integers(h5md, "version", version, 2, false);
    hid_t author = ok ? H5Gcreate2(h5md, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = author >= 0 && set_string(author, "name", user && *user ? user : "unknown", false);
    hid_t creator = ok ? H5Gcreate2(h5md, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = creator >= 0 && set_string(creator, "name", "fricdem", false) &&
         set_string(creator, "version", FRICDEM_VERSION_STRING, false);
    hid_t properties = H5Pcreate(H5P_LINK_CREATE);
    ok = ok && properties >= 0 && H5Pset_create_intermediate_group(properties, 1) >= 0;
    hid_t units = ok ? H5Gcreate2(h5md, "modules/units", properties, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = units >= 0 && set_integers(units, "version", units_version, 2, false) &&
         set_string(units, "system", "SI", true);
    hid_t groups[] = {units, creator, author, h5md};
    for (int i = 0; i < 4; ++i) {
        release(groups[i]);
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
    ok = ok && write_names(parameters, "materials", names, materials) &&
         write_names(parameters, "shapes", shape_names, 6);
    free(names);
    release(parameters);
    release(properties);
    if (!ok) {
        fail(t, "cannot write the metadata", "/h5md");
    }
    return ok;
}

/* particles/all/box: dimension 3, the boundary of each axis and, with
 * periodic axes, the edges (box_max - box_min; box_min as an attribute). */
static bool write_box(fd_trajectory* t, hid_t all, const fd_world* world)
{
    fd_world_def def = fd_world_get_def(world);
    hid_t box = H5Gcreate2(all, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int32_t dimension = 3;
    bool ok = box >= 0 && set_integers(box, "dimension", &dimension, 1, true);
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
    release(attribute);
    release(type);
    if (ok && periodic) {
        double edges[3] = {def.box_max.x - def.box_min.x, def.box_max.y - def.box_min.y, def.box_max.z - def.box_min.z};
        double minimum[3] = {def.box_min.x, def.box_min.y, def.box_min.z};
        hid_t dataset = H5Dcreate2(box, "edges", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ok = dataset >= 0 && H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, edges) >= 0 &&
             set_string(dataset, "unit", "m", true);
        hid_t minimum_attribute =
            ok ? H5Acreate2(dataset, "box_min", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
        ok = minimum_attribute >= 0 && H5Awrite(minimum_attribute, H5T_NATIVE_DOUBLE, minimum) >= 0;
        release(minimum_attribute);
        release(dataset);
    }
    release(space);
    release(box);
    if (!ok) {
        fail(t, "cannot write the box", "/particles/all/box");
    }
    return ok;
}

/* particles/all/position with the shared step and time, then the other
 * elements of the bodies. */
static bool create_bodies(fd_trajectory* t, const fd_world* world, int64_t rows)
{
    hid_t properties = H5Pcreate(H5P_LINK_CREATE);
    bool ok = properties >= 0 && H5Pset_create_intermediate_group(properties, 1) >= 0;
    hid_t all = ok ? H5Gcreate2(t->file, "particles/all", properties, H5P_DEFAULT, H5P_DEFAULT) : -1;
    hid_t position = all >= 0 ? H5Gcreate2(all, "position", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    release(properties);
    ok = position >= 0 &&
         create_series(t, position, "step", "/particles/all/position/step", SERIES_I64, false, 0, 0, "1", &t->step) &&
         create_series(t, position, "time", "/particles/all/position/time", SERIES_F64, false, 0, 0, "s", &t->time) &&
         create_series(t, position, "value", "/particles/all/position/value", SERIES_F64, true, 3, rows, "m",
                       &t->bodies[BODY_POSITION]) &&
         write_box(t, all, world);
    for (int e = 1; ok && e < BODY_ELEMENT_COUNT; ++e) {
        ok = create_element(t, all, "/particles/all", &body_elements[e], true, rows, &t->bodies[e]);
    }
    release(position);
    release(all);
    if (!ok && position < 0) {
        fail(t, "cannot create the group", "/particles/all");
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
        ok = create_element(t, contacts, "/particles/contacts", &contact_elements[e], true, rows, &t->contact[e]);
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
            ok = create_element(t, contacts, "/particles/contacts", &spec, true, rows, &t->model[c]);
            t->model_count = c + 1;
        }
    }
    release(contacts);
    /* The pairs, H5MD's time-dependent list of tuples, pointing at the bodies. */
    hid_t connectivity = ok ? H5Gcreate2(t->file, "connectivity", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    const element_spec pairs = {"contacts", SERIES_I32, 2, "1", NULL, NULL};
    ok = connectivity >= 0 && create_element(t, connectivity, "/connectivity", &pairs, true, rows, &t->pairs);
    hid_t group = ok ? H5Gopen2(connectivity, "contacts", H5P_DEFAULT) : -1;
    hobj_ref_t reference;
    hid_t space = H5Screate(H5S_SCALAR);
    ok = group >= 0 && space >= 0 && H5Rcreate(&reference, t->file, "/particles/all", H5R_OBJECT, -1) >= 0;
    hid_t attribute = ok ? H5Acreate2(group, "particles_group", H5T_STD_REF_OBJ, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = attribute >= 0 && H5Awrite(attribute, H5T_STD_REF_OBJ, &reference) >= 0;
    release(attribute);
    release(space);
    release(group);
    release(connectivity);
    if (!ok) {
        fail(t, "cannot create the contacts' groups in", t->h5_path);
    }
    return ok;
}

static bool create_observables(fd_trajectory* t)
{
    hid_t observables = H5Gcreate2(t->file, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = observables >= 0;
    for (int o = 0; ok && o < OBSERVABLE_COUNT; ++o) {
        ok = create_element(t, observables, "/observables", &observable_elements[o], false, 0, &t->observables[o]);
    }
    release(observables);
    return ok;
}

/* Every dataset of the file (close_series leaves a closed one closed). */
static void close_all_series(fd_trajectory* t)
{
    close_series(&t->step);
    close_series(&t->time);
    close_series(&t->pairs);
    for (int e = 0; e < BODY_ELEMENT_COUNT; ++e) {
        close_series(&t->bodies[e]);
    }
    for (int e = 0; e < CONTACT_ELEMENT_COUNT; ++e) {
        close_series(&t->contact[e]);
    }
    for (int o = 0; o < OBSERVABLE_COUNT; ++o) {
        close_series(&t->observables[o]);
    }
    for (int c = 0; c < t->model_count; ++c) {
        close_series(&t->model[c]);
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
    release(t->file);
    free(t->times);
    free(t->body_counts);
    free(t->contact_counts);
    free(t->arrays);
    free(t->reals.data);
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
                                      fd_direct_io direct_io);
static fd_status trajectory_write(fd_trajectory* t, const fd_world* world);
static fd_status trajectory_close(fd_trajectory* t);

fd_trajectory* fd_trajectory_open(const fd_world* world, const char* directory, bool contacts, bool compressed,
                                  fd_direct_io direct_io)
{
    fd_h5_quiet quiet = fd_h5_silence();
    fd_trajectory* t = trajectory_open(world, directory, contacts, compressed, direct_io);
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
                                      fd_direct_io direct_io)
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
        fd_hdf5_direct_use(access, 64 * 1024, direct_io, &t->write_rates);
    }
    if (access >= 0 && H5Pset_libver_bounds(access, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0) {
        t->file = H5Fcreate(t->h5_path, H5F_ACC_TRUNC, H5P_DEFAULT, access);
    }
    release(access);
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

/* ---------------------------------------------------------------- frames */

static void* grow(fd_trajectory* t, scratch* s, size_t bytes)
{
    if (bytes > s->bytes) {
        size_t size = s->bytes ? s->bytes : 4096;
        while (size < bytes) {
            size *= 2;
        }
        void* data = realloc(s->data, size);
        if (!data) {
            fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory '%s': out of memory", t->h5_path);
            return NULL;
        }
        s->data = data;
        s->bytes = size;
    }
    return s->data;
}

static fd_status write_bodies(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t n)
{
    /* reals: position 3, orientation 4, velocity 3, angular velocity 3, radius, mass per row. */
    const int64_t width[] = {3, 4, 3, 3, 1, 1};
    double* reals = grow(t, &t->reals, (size_t)(n > 0 ? n : 1) * 15 * sizeof(double));
    int32_t* smalls = grow(t, &t->smalls, (size_t)(n > 0 ? n : 1) * 2 * sizeof(int32_t));
    int64_t* ids = grow(t, &t->integers, (size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    fd_body_state* states = grow(t, &t->states, STATE_BLOCK * sizeof(fd_body_state));
    if (!reals || !smalls || !ids || !states) {
        return FD_ERR_OUT_OF_MEMORY;
    }
    double* field[6];
    field[0] = reals;
    for (int k = 1; k < 6; ++k) {
        field[k] = field[k - 1] + width[k - 1] * n;
    }
    int32_t* species = smalls;
    int32_t* shapes = smalls + n;
    for (int64_t first = 0; first < n; first += STATE_BLOCK) {
        int count = (int)(n - first < STATE_BLOCK ? n - first : STATE_BLOCK);
        fd_status status = fd_world_get_states(world, (int)first, count, states);
        if (status != FD_OK) {
            return status;
        }
        for (int j = 0; j < count; ++j) {
            int64_t i = first + j;
            const fd_body_state* s = &states[j];
            double* p = field[0] + 3 * i;
            double* q = field[1] + 4 * i;
            double* v = field[2] + 3 * i;
            double* w = field[3] + 3 * i;
            p[0] = s->position.x, p[1] = s->position.y, p[2] = s->position.z;
            q[0] = s->orientation.w, q[1] = s->orientation.x, q[2] = s->orientation.y, q[3] = s->orientation.z;
            v[0] = s->velocity.x, v[1] = s->velocity.y, v[2] = s->velocity.z;
            w[0] = s->angular_velocity.x, w[1] = s->angular_velocity.y, w[2] = s->angular_velocity.z;
            fd_body_id id = fd_world_body_at(world, (int)i);
            if (!fd_body_is_valid(world, id)) { /* a removed body's slot (its state is NaN already) */
                field[4][i] = field[5][i] = NAN;
                species[i] = shapes[i] = -1;
                ids[i] = -1;
                continue;
            }
            fd_body_info info = fd_body_get_info(world, id);
            /* A plane's bounding radius is infinite: NaN, so that ParaView's
             * glyphs and bounds pass over it (they skip NaN, not infinity). */
            field[4][i] = isfinite(info.bounding_radius) ? info.bounding_radius : NAN;
            field[5][i] = info.mass;
            species[i] = info.material.index1 - 1;
            shapes[i] = (int32_t)info.shape.type;
            ids[i] = i;
        }
    }
    t->body_rows = n > t->body_rows ? n : t->body_rows;
    const void* data[BODY_ELEMENT_COUNT] = {
        [BODY_POSITION] = field[0], [BODY_ORIENTATION] = field[1], [BODY_VELOCITY] = field[2],
        [BODY_ANGULAR_VELOCITY] = field[3], [BODY_RADIUS] = field[4], [BODY_MASS] = field[5],
        [BODY_SPECIES] = species, [BODY_SHAPE] = shapes, [BODY_ID] = ids,
    };
    fd_status status = FD_OK;
    for (int e = 0; e < BODY_ELEMENT_COUNT && status == FD_OK; ++e) {
        status = append(t, &t->bodies[e], frame, t->body_rows, n, data[e]);
    }
    return status;
}

static void put3(double* out, fd_vec3 v)
{
    out[0] = v.x, out[1] = v.y, out[2] = v.z;
}

static fd_status write_contacts(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t n)
{
    if (!fd_world_contacts_recorded(world)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "output: the trajectory needs the contact details of step %lld, which the world did not "
                       "record (call fd_world_request_contacts before a step when fd_output_wants_contacts says so)",
                       (long long)fd_world_step_count(world));
    }
    /* Reals per row: the fixed elements' components, then the model columns. */
    int64_t width = 0, offset[CONTACT_ELEMENT_COUNT];
    for (int e = 0; e < CONTACT_ELEMENT_COUNT; ++e) {
        offset[e] = width;
        const element_spec* spec = &contact_elements[e];
        width += spec->type != SERIES_F64 ? 0 : spec->components ? spec->components : 1;
    }
    const int64_t rows = n > 0 ? n : 1;
    double* reals = grow(t, &t->reals, (size_t)(rows * (width + t->model_count)) * sizeof(double));
    int64_t* ids = grow(t, &t->integers, (size_t)rows * sizeof(int64_t));
    int32_t* pairs = grow(t, &t->smalls, (size_t)rows * 2 * sizeof(int32_t));
    if (!reals || !ids || !pairs) {
        return FD_ERR_OUT_OF_MEMORY;
    }
    double* field[CONTACT_ELEMENT_COUNT];
    for (int e = 0; e < CONTACT_ELEMENT_COUNT; ++e) {
        field[e] = reals + offset[e] * n;
    }
    double* model = reals + width * n;
    for (int64_t k = 0; k < n; ++k) {
        fd_contact_view c;
        fd_status status = fd_world_get_contact(world, (int)k, &c);
        if (status != FD_OK) {
            return status;
        }
        const fd_contact_geometry* g = &c.geometry;
        const fd_contact_loads* l = &c.loads;
        /* The contact point: the midpoint of the points on the two surfaces, as in contacts.csv. */
        double* point = field[CONTACT_POSITION] + 3 * k;
        point[0] = 0.5 * (g->point_i.x + g->point_j.x);
        point[1] = 0.5 * (g->point_i.y + g->point_j.y);
        point[2] = 0.5 * (g->point_i.z + g->point_j.z);
        ids[k] = (int64_t)c.id;
        pairs[2 * k] = c.body_i.index1 - 1;
        pairs[2 * k + 1] = c.body_j.index1 - 1;
        put3(field[CONTACT_NORMAL] + 3 * k, g->normal);
        field[CONTACT_PENETRATION][k] = g->penetration;
        field[CONTACT_NORMAL_FORCE][k] = l->normal_force;
        put3(field[CONTACT_SLIDE_FORCE] + 3 * k, l->slide_force);
        put3(field[CONTACT_ROLL_I] + 3 * k, l->roll_torque_i);
        put3(field[CONTACT_ROLL_J] + 3 * k, l->roll_torque_j);
        put3(field[CONTACT_SPIN_I] + 3 * k, l->spin_torque_i);
        put3(field[CONTACT_SPIN_J] + 3 * k, l->spin_torque_j);
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            field[CONTACT_STORED][4 * k + m] = c.energy[m].stored;
            field[CONTACT_DASHPOT][4 * k + m] = c.energy[m].dashpot;
            field[CONTACT_SLIP][4 * k + m] = c.energy[m].slip;
            field[CONTACT_CREATED][4 * k + m] = c.energy[m].created;
            field[CONTACT_WORK][4 * k + m] = c.energy[m].work;
        }
        for (int m = 0; m < t->model_count; ++m) {
            model[m * n + k] = (c.columns && m < c.column_count) ? c.columns[m] : NAN;
        }
    }
    t->contact_rows = n > t->contact_rows ? n : t->contact_rows;
    fd_status status = FD_OK;
    for (int e = 0; e < CONTACT_ELEMENT_COUNT && status == FD_OK; ++e) {
        status = append(t, &t->contact[e], frame, t->contact_rows, n, e == CONTACT_ID ? (const void*)ids : field[e]);
    }
    for (int m = 0; m < t->model_count && status == FD_OK; ++m) {
        status = append(t, &t->model[m], frame, t->contact_rows, n, model + m * n);
    }
    return status == FD_OK ? append(t, &t->pairs, frame, t->contact_rows, n, pairs) : status;
}

static fd_status write_observables(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t bodies)
{
    fd_world_energy e = fd_world_get_energy(world);
    double total = e.kinetic_translational + e.kinetic_rotational + e.gravitational;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        total += e.stored[m];
    }
    const int32_t counts[3] = {(int32_t)bodies, fd_world_live_body_count(world), fd_world_contact_count(world)};
    const void* data[OBSERVABLE_COUNT] = {
        [OBSERVE_COUNT] = &counts[0],
        [OBSERVE_BODIES] = &counts[1],
        [OBSERVE_CONTACTS] = &counts[2],
        [OBSERVE_KINETIC_TRANSLATIONAL] = &e.kinetic_translational,
        [OBSERVE_KINETIC_ROTATIONAL] = &e.kinetic_rotational,
        [OBSERVE_GRAVITATIONAL] = &e.gravitational,
        [OBSERVE_STORED] = e.stored,
        [OBSERVE_DASHPOT] = e.dashpot,
        [OBSERVE_SLIP] = e.slip,
        [OBSERVE_CREATED] = e.created,
        [OBSERVE_RELEASED] = &e.released,
        [OBSERVE_EXTERNAL_WORK] = &e.external_work,
        [OBSERVE_CONSTRAINT_WORK] = &e.constraint_work,
        [OBSERVE_INSERTED] = &e.inserted,
        [OBSERVE_REMOVED] = &e.removed,
        [OBSERVE_TOTAL] = &total,
        [OBSERVE_CLOSURE_ERROR] = &e.closure_error,
    };
    fd_status status = FD_OK;
    for (int o = 0; o < OBSERVABLE_COUNT && status == FD_OK; ++o) {
        status = append(t, &t->observables[o], frame, 0, 1, data[o]);
    }
    return status;
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
    fd_status status = write_bodies(t, world, frame, bodies);
    if (status == FD_OK && t->contacts) {
        status = write_contacts(t, world, frame, contacts);
    }
    if (status == FD_OK) {
        status = write_observables(t, world, frame, bodies);
    }
    /* step and time last: a reader that sees frame k in them sees all of it. */
    if (status == FD_OK) {
        status = append(t, &t->step, frame, 0, 1, &step);
    }
    if (status == FD_OK) {
        status = append(t, &t->time, frame, 0, 1, &time);
    }
    if (status == FD_OK && H5Fflush(t->file, H5F_SCOPE_LOCAL) < 0) {
        status = fail(t, "cannot flush", t->h5_path);
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
