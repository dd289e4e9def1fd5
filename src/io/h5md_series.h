/* The trajectory's layout in H5MD series, shared by its three files:
 * h5md_series.c (series made and appended to), output_trajectory.c (the
 * file, its datasets, the indexes and the API) and
 * output_trajectory_frames.c (a frame's values). Private to them (the rest
 * of fricdem sees output_trajectory.h).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_H5MD_SERIES_H
#define FD_IO_H5MD_SERIES_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "fricdem/fricdem.h"
#include "io/block_file.h"
#include "io/number_format.h"
#include "io/output_trajectory.h"
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
    fd_write_rates write_rates; /* the direct driver's measurements when the caller shares none (hdf5_direct.h) */
    int threads;             /* the world's: the chunks of a frame are deflated on as many */
    fd_text index;
    int64_t index_bytes;     /* of both indexes at their last rewrite */
    int64_t indexed_frames;  /* frames they list */
    int64_t h5_bytes;        /* the HDF5 file's size after the last frame */
    int64_t h5_bytes_indexed; /* ... when the indexes were last rewritten */
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

/* ---------------------------------------------------------------- h5md_series.c */

/* Closes any HDF5 identifier (file, group, dataset, dataspace, type,
 * property list, attribute); nothing for -1. */
void fd_h5md_release(hid_t id);
/* FD_ERR_IO: "trajectory 'PATH': WHAT 'NAME'". */
fd_status fd_trajectory_fail(const fd_trajectory* t, const char* what, const char* name);
/* A string attribute: variable-length ASCII or fixed-length. */
bool fd_h5md_set_string(hid_t object, const char* name, const char* value, bool variable);
/* A String[count] dataset of variable-length strings, with unit "1". */
bool fd_h5md_write_names(hid_t group, const char* name, const char* const* names, int count);
/* An Integer[count] attribute (a scalar one when scalar). */
bool fd_h5md_set_integers(hid_t object, const char* name, const int32_t* values, hsize_t count, bool scalar);
/* An empty, extendible, chunked (and compressed when the trajectory is)
 * dataset `name` in group, with its unit. */
bool fd_h5md_create_series(fd_trajectory* t, hid_t group, const char* name, const char* path, series_type type,
                           bool per_row, int components, int64_t chunk_rows, const char* unit, series* out);
/* An H5MD time-dependent element: group PARENT/NAME with `value` and hard
 * links `step` and `time` to the shared ones. */
bool fd_h5md_create_element(fd_trajectory* t, hid_t parent, const char* parent_path, const element_spec* spec,
                            bool per_row, int64_t chunk_rows, series* out);
void fd_h5md_close_series(series* s);
/* Appends a frame to a series: extends it to frame + 1 frames (and `rows`
 * rows) and writes the n rows of `data` (one value per frame when not
 * per row). */
fd_status fd_trajectory_append(fd_trajectory* t, series* s, int64_t frame, int64_t rows, int64_t n, const void* data);

/* ---------------------------------------------------------------- output_trajectory_frames.c */

/* The frame's n body rows (the world's slots), contact rows and observables. */
fd_status fd_trajectory_write_bodies(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t n);
fd_status fd_trajectory_write_contacts(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t n);
fd_status fd_trajectory_write_observables(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t bodies);

#endif
