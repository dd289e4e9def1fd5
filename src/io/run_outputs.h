/* What the writers of a run's outputs share: the writer's state (fd_output),
 * the CSV functions output.c calls (output_csv.c) and the paths inside the
 * output directory (output_directory.c). Private to them (the rest of
 * fricdem sees fricdem/io.h).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_RUN_OUTPUTS_H
#define FD_IO_RUN_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fricdem/io.h"
#include "io/block_file.h"
#include "io/number_format.h"
#include "io/output_trajectory.h"
#include "io/output_vtu.h"

typedef struct fd_schedule {
    double interval;         /* s; 0 = every step; < 0 = never */
    double next_time;        /* s; time of the next multiple of interval */
    int64_t last_step;       /* step last written; -1 = none yet */
} fd_schedule;

typedef struct fd_snapshot {
    double time;
    int64_t step;
} fd_snapshot;

/* A CSV file: rows are appended to block.text and written in blocks
 * (block_file.h; see Crash safety above). */
typedef struct csv_file {
    bool open;
    fd_block_file block;
    const char* name;         /* "bodies.csv", for messages */
    int64_t header;           /* bytes of the header (the bytes so far: fd_block_file_size) */
} csv_file;

struct fd_output {
    fd_output_settings settings;
    csv_file bodies;
    csv_file contacts;
    csv_file energy;
    csv_file events;
    csv_file walls;           /* walls.csv: the reaction on each wall (fd_body_get_reaction) */
    csv_file outlets;         /* outlets.csv, with the totals of each outlet at its last row */
    int64_t* outlet_removed;
    double* outlet_mass;
    csv_file solver;          /* solver.csv: the complementarity stepper's iterations and residual */
    int64_t solver_step;      /* step written last to solver.csv (-1: none) */
    int64_t events_step;      /* step whose events were written last (-1: none) */
    int contact_column_count; /* model columns in the contacts.csv header */
    fd_write_rates write_rates; /* what the CSV, VTU and trajectory files learned of direct writes (block_file.h) */
    double write_seconds;       /* wall time inside fd_output_write */
    fd_text* row_texts;         /* one per thread: CSV rows formatted in parallel (output_csv.c) */
    int row_text_count;
    fd_schedule csv;
    fd_schedule vtu;
    bool walls_vtu;           /* the world had walls at the start: a walls snapshot with every snapshot */
    fd_vtu_plane_square plane_square; /* where the planes are drawn, fixed at the start */
    fd_schedule trajectory_schedule;
    fd_trajectory* trajectory; /* trajectory.h5 and its XDMF indexes (output_trajectory.c); NULL: off */
    /* What has been written, for fd_output_projected_bytes. */
    int64_t csv_times;        /* CSV row times written */
    int64_t step_rows;        /* steps with their events and solver rows written */
    int64_t snapshot_bytes;   /* the snapshots' VTU files */
    int64_t index_bytes;      /* the PVD indexes (rewritten, about constant) */
    fd_snapshot* snapshots;   /* VTU snapshots written so far, for the PVD indexes */
    int snapshot_count;
    int snapshot_capacity;
    char* path;               /* scratch buffer for file names */
    size_t path_size;
};

/* directory/format..., in the output's scratch buffer (valid until the next call). */
const char* fd_output_path(fd_output* output, const char* format, ...) __attribute__((format(printf, 2, 3)));
/* The body index of the CSV files (the slot). */
static inline int fd_output_body_index(fd_body_id id) { return id.index1 - 1; }

/* Opens the CSV files the settings ask for, each with its header; false
 * (fd_fail set) when one cannot be opened or written. */
bool fd_output_open_csv_files(fd_output* output, const fd_world* world, bool any_csv, bool outlets_csv);
/* Everything is flushed after each output time, so closing writes nothing. */
bool fd_output_close_csv(csv_file* file);
/* The rows of an output time in every open sampled file (bodies, contacts,
 * energy, walls, outlets). */
fd_status fd_output_write_csv_row(fd_output* output, const fd_world* world);
/* Every event of the last force pass. */
fd_status fd_output_write_events_csv(fd_output* output, const fd_world* world);
/* The complementarity solver's row of this step. */
fd_status fd_output_write_solver_row(fd_output* output, const fd_world* world, double time, int64_t step);
/* FD_OK when the world recorded the contact details `what` needs. */
fd_status fd_output_check_contacts_recorded(const fd_world* world, const char* what);

#endif
