/* What a checkpoint holds, in the shapes that both its writer
 * (checkpoint.c) and its reader (checkpoint_read.c) use: the format's name,
 * the structs stored as rows of doubles, the tables of the inlets, outlets
 * and moving walls, the fingerprints of what a scene
 * builds, a body's identity and the world's contact set as columns. The
 * layout of the file is described at the top of checkpoint.c.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_CHECKPOINT_LAYOUT_H
#define FD_IO_CHECKPOINT_LAYOUT_H

#include <hdf5.h>

#include "io/checkpoint_hdf5.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

#define FD_CHECKPOINT_FORMAT_NAME "fricdem checkpoint"

/* A moving wall as a row of doubles: the motion (velocity 3, velocity_ramp,
 * amplitude 3, frequency, angular_velocity 3, angular_velocity_ramp,
 * start_time), the reference position 3 and orientation 4 (w, x, y, z), and
 * the time t0 it started from. */
enum { FD_CHECKPOINT_WALL_DOUBLES = 13 + 7 + 1 };
void fd_checkpoint_wall_row(const fd_moving_wall* wall, double* row);
void fd_checkpoint_wall_from_row(const double* row, fd_moving_wall* wall);

/* The tables of the inlets, outlets and moving walls (checkpoint_hdf5.h):
 * their columns in the order they are written, and each column's index. */
enum { FD_INLET_NAME, FD_INLET_PROGRESS, FD_INLET_MAX_DELAY, FD_INLET_PAUSE, FD_INLET_COLUMNS };
enum { FD_OUTLET_NAME, FD_OUTLET_REMOVED, FD_OUTLET_MASS, FD_OUTLET_CLOSED, FD_OUTLET_COLUMNS };
enum { FD_WALL_BODY, FD_WALL_MOTION, FD_WALL_COLUMNS };
extern const fd_h5_column fd_checkpoint_inlet_columns[FD_INLET_COLUMNS];
extern const fd_h5_column fd_checkpoint_outlet_columns[FD_OUTLET_COLUMNS];
extern const fd_h5_column fd_checkpoint_wall_columns[FD_WALL_COLUMNS];

/* The structs stored as rows of doubles are doubles only. */
enum {
    FD_CHECKPOINT_GEOMETRY_DOUBLES = sizeof(fd_contact_geometry) / sizeof(double),
    FD_CHECKPOINT_LOADS_DOUBLES = sizeof(fd_contact_loads) / sizeof(double),
    FD_CHECKPOINT_BOOK_DOUBLES = sizeof(fd_energy_books) / sizeof(double),
    FD_CHECKPOINT_EXTRA_DOUBLES = sizeof(fd_body_extra) / sizeof(double),
    FD_CHECKPOINT_TOTALS_DOUBLES = sizeof(fd_energy_totals) / sizeof(double),
};
_Static_assert(sizeof(fd_contact_geometry) % sizeof(double) == 0, "geometry is doubles");
_Static_assert(sizeof(fd_contact_loads) % sizeof(double) == 0, "loads are doubles");
_Static_assert(sizeof(fd_energy_books) % sizeof(double) == 0, "books are doubles");
_Static_assert(sizeof(fd_body_extra) % sizeof(double) == 0, "extras are doubles");
_Static_assert(sizeof(fd_energy_totals) % sizeof(double) == 0, "totals are doubles");
_Static_assert(sizeof(fd_vec3) == 3 * sizeof(double) && sizeof(fd_quat) == 4 * sizeof(double), "packed vectors");

/* FNV-1a over the bits of what a scene builds, in four parts, so that a
 * mismatch can say which part differs. */
enum { FD_PRINT_WORLD, FD_PRINT_MATERIALS, FD_PRINT_LAWS, FD_PRINT_INLETS, FD_PRINT_OUTLETS, FD_PRINT_COUNT };
extern const char* const fd_checkpoint_print_attributes[FD_PRINT_COUNT]; /* their attributes' names */
extern const char* const fd_checkpoint_print_meanings[FD_PRINT_COUNT];   /* what each covers, for messages */
void fd_checkpoint_fingerprints(const fd_world* world, uint64_t prints[FD_PRINT_COUNT]);

const char* fd_checkpoint_stepper_name(fd_stepper stepper);

static inline hsize_t fd_checkpoint_rows_of(int64_t count) { return (hsize_t)(count > 0 ? count : 0); }

/* What a body is, the same for a scene's body and one created again. */
typedef struct fd_checkpoint_identity {
    int32_t* type;
    int32_t* shape;
    fd_vec3* shape_size;          /* sphere (r, 0, 0), ellipsoid semi-axes, plane normal (body frame) */
    int32_t* material;
    double* mass;
    fd_vec3* inertia;
    int32_t* locks;               /* 2 per body: translation, rotation bits */
    const char** names;
} fd_checkpoint_identity;
bool fd_checkpoint_identity_allocate(fd_checkpoint_identity* id, int64_t n);
void fd_checkpoint_identity_free(fd_checkpoint_identity* id); /* the array of names, not the names */
void fd_checkpoint_identity_of(const fd_world* world, int b, fd_checkpoint_identity* id);

/* The world's contact set, field by field. */
typedef struct fd_checkpoint_rows {
    int32_t* pairs;
    uint64_t* id;
    int64_t* first_step;
    int32_t* law;
    uint32_t* slip;               /* 2 per contact: now, before */
    fd_contact_geometry* geometry;
    fd_contact_loads* loads;
    fd_energy_books* energy;      /* FD_MECHANISM_COUNT per contact */
    fd_vec3* offset;
} fd_checkpoint_rows;
bool fd_checkpoint_rows_allocate(fd_checkpoint_rows* r, int64_t count);
void fd_checkpoint_rows_free(fd_checkpoint_rows* r);

/* One dataset of the contact set's group: its name, native type and shape,
 * and where its values lie. */
typedef struct fd_checkpoint_dataset {
    const char* name;
    hid_t type;
    int rank;
    hsize_t dims[3];
    void* data;
} fd_checkpoint_dataset;
/* Writes the datasets in turn, or reads them into their memory. */
typedef enum fd_checkpoint_direction { FD_CHECKPOINT_WRITE, FD_CHECKPOINT_READ } fd_checkpoint_direction;
fd_status fd_checkpoint_transfer(const fd_h5_file* file, hid_t group, const fd_checkpoint_dataset* datasets, int count,
                                 fd_checkpoint_direction direction);
/* The bodies' states and loads (the first n rows of the world's arrays),
 * and a body's identity (checkpoint_identity: all but its name). */
enum { FD_CHECKPOINT_STATE_DATASETS = 6, FD_CHECKPOINT_IDENTITY_DATASETS = 7 };
void fd_checkpoint_state_datasets(const fd_world* world, int64_t n,
                                  fd_checkpoint_dataset out[FD_CHECKPOINT_STATE_DATASETS]);
void fd_checkpoint_identity_datasets(const fd_checkpoint_identity* id, int64_t n,
                                     fd_checkpoint_dataset out[FD_CHECKPOINT_IDENTITY_DATASETS]);
enum { FD_CHECKPOINT_SET_DATASETS = 11 };
/* The contact set's datasets in the order they are written and read, for
 * `count` contacts: the columns of *r, then the set's columns and, where
 * fd_checkpoint_set_has_history, its history. Returns how many. */
int fd_checkpoint_set_datasets(const fd_world* world, const fd_checkpoint_rows* r, const fd_contact_set* set,
                               int64_t count, fd_checkpoint_dataset out[FD_CHECKPOINT_SET_DATASETS]);

/* The same for the penalty stepper's contacts (their pairs, ids, first
 * steps, states, springs and, where they keep any, books). */
enum { FD_CHECKPOINT_PENALTY_DATASETS = 6 };
int fd_checkpoint_penalty_datasets(const fd_penalty_contacts* c,
                                   fd_checkpoint_dataset out[FD_CHECKPOINT_PENALTY_DATASETS]);

/* The complementarity stepper's set holds a history block per contact (its
 * warm start); the penalty stepper's record does not (its springs are in the
 * pool). */
bool fd_checkpoint_set_has_history(const fd_world* world);

#endif
