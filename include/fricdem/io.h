/** @file
 * fricdem I/O: scene files (YAML) and run outputs (CSV, VTU/PVD).
 * Part of libfricdem; the CLI and the tests use these. See docs/scene-format.md.
 * Must not touch: anything below src/ (public declarations only). */
#ifndef FRICDEM_IO_H
#define FRICDEM_IO_H

#include "fricdem/fricdem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The longest path (bytes, with its terminating zero) the I/O functions keep. */
#define FD_PATH_MAX 4096

/** How the large output files (CSV, VTU, trajectory) reach the disk
 * (fd_output_settings.direct_io; docs/output-format.md, "Writing large frames"). */
typedef enum fd_direct_io {
    FD_DIRECT_IO_AUTO = 0, /**< measure both ways below on the blocks written and keep the faster (default) */
    FD_DIRECT_IO_ALWAYS,   /**< past the page cache (O_DIRECT) wherever the file system allows it */
    FD_DIRECT_IO_NEVER,    /**< through the page cache, as a plain write(2) does */
} fd_direct_io;

/** What a run writes and how often (fd_output_open); a scene fills it
 * from its `output:` section (docs/scene-format.md). */
typedef struct fd_output_settings {
    char directory[FD_PATH_MAX]; /**< where outputs go; default "out/<scene name>" */
    double csv_interval;     /**< s between rows of the CSV time series; default: every 1e-3 s; 0 = every step */
    bool bodies_csv;         /**< bodies.csv: one row per dynamic body per output time; default true */
    bool contacts_csv;       /**< contacts.csv: one row per contact per output time; default true */
    bool energy_csv;         /**< energy.csv: global energies per output time; default true */
    bool walls_csv;          /**< walls.csv: force, torque and power on each wall (a static body other than a sphere, or
                              * one under a prescribed motion) per output time; default true (no file without walls) */
    bool events_csv;         /**< events.csv: every contact event of every step (activation, slip start and
                              * end; fd_world_events); default false */
    bool outlets_csv;        /**< outlets.csv: per outlet and output time, the bodies and mass removed since the
                              * last row and in all (written only when the world has outlets); default true */
    double vtu_interval;     /**< s between VTU snapshots; default 0 = none */
    bool vtu_ascii;          /**< VTU arrays as text (%.10g, non-finite as 0) instead of the default raw binary
                              * appended data (exact, several times smaller and faster) */
    double checkpoint_interval; /**< s between checkpoints of the CLI (directory/checkpoint.h5, replaced each time,
                                 * and once more at the end of the run); default 0 = none. docs/restart.md */
    bool trajectory;         /**< trajectory.h5 (H5MD: every body's state, and the contacts, per frame) with the
                              * XDMF indexes trajectory.xdmf and trajectory_contacts.xdmf for ParaView;
                              * default false. docs/output-format.md */
    double trajectory_interval; /**< s between trajectory frames; 0 = every step (the scene's default: vtu_interval
                                 * when > 0, else csv_interval) */
    bool trajectory_contacts; /**< the contacts in the trajectory too (the scene's default: true) */
    bool trajectory_uncompressed; /**< the trajectory's datasets without the byte shuffle and deflate (level 1) filters:
                                   * the same values, 2-3x larger, about 2.5x faster to write; default false */
    fd_direct_io direct_io;  /**< how CSV, VTU and trajectory files are written; default FD_DIRECT_IO_AUTO */
} fd_output_settings;

/** A loaded scene: its world, ready to step, and what it asked for
 * (fd_scene_load). */
typedef struct fd_scene {
    fd_world* world;         /**< owned by the scene */
    char name[256];          /**< scene name (the 'name' key, else the file stem) */
    char description[1024];  /**< the 'description' key, "" if none (longer text is cut) */
    char path[FD_PATH_MAX];  /**< file it came from */
    double duration;         /**< s, simulated time to run */
    fd_output_settings output; /**< the outputs it asks for */
    /** What the scene was built from, kept for its checkpoints (fd_scene_write_checkpoint): */
    char* source;            /**< the scene file's text (owned) */
    size_t source_size;      /**< bytes */
    char** overrides;        /**< the overrides applied, in order (owned) */
    int override_count;      /**< how many overrides */
    /** Stages (docs/stages.md): none, or the run as a sequence of them. */
    struct fd_scene_stage_set* stages; /**< owned; NULL without stages */
    int stage;               /**< the stage under way, -1 before the first */
    double stage_start_time; /**< s, the world's time when it began */
} fd_scene;

/** Loads a scene file, applying overrides "key.path=value" (same syntax as the
 * CLI's --set; sequence entries are addressed by index or by their 'name').
 * On error returns FD_ERR_PARSE (or FD_ERR_IO) and fd_last_error() reads
 * "FILE:LINE: KEY: what is wrong". */
fd_status fd_scene_load(const char* path, const char* const* overrides, int override_count, fd_scene* out);
/** Progress of a long load (10^6 bodies and more): called every few
 * thousand bodies created and once at the end, with the bodies created so
 * far and the number the scene will hold once loaded (listed, from
 * bodies_file and generated; inlets' spheres come later). */
typedef void (*fd_scene_progress_fn)(void* user, int64_t bodies_created, int64_t bodies_total);
/** fd_scene_load with a progress callback (NULL: none). */
fd_status fd_scene_load_with_progress(const char* path, const char* const* overrides, int override_count,
                                      fd_scene_progress_fn progress, void* user, fd_scene* out);
/** Frees what the scene owns, its world included. */
void fd_scene_free(fd_scene* scene);

/** fricdem import-lammps: a scene file from a LAMMPS granular deck
 * (docs/lammps.md, "Importing a deck"). Data and include files are read
 * from the deck's directory; index variables are defined first, as LAMMPS's
 * -var NAME VALUE. A command or option without a fricdem equivalent fails
 * with "DECK:LINE: <command> ... is not supported" (fd_last_error) and writes
 * nothing; an existing scene file is kept unless overwrite. */
typedef struct fd_lammps_import_def {
    const char* deck;   /**< the LAMMPS input file */
    const char* scene;  /**< the scene file to write (YAML) */
    int var_count;      /**< index variables defined before the deck runs (-var NAME VALUE) */
    const char* const* var_names;  /**< their names (var_count of them) */
    const char* const* var_values; /**< their values, as text */
    bool overwrite;     /**< replace an existing scene file */
    bool notes;         /**< print notes on stderr: commands accepted without effect, choices made */
} fd_lammps_import_def;
/** Writes def->scene from def->deck (see fd_lammps_import_def). */
fd_status fd_lammps_import(const fd_lammps_import_def* def);

/** Stages: a scene may run as a sequence of stages (fill, settle until the
 * kinetic energy is low, turn the drum), each changing wall motions, inlets
 * and gravity when it begins (docs/stages.md). */
int fd_scene_stage_count(const fd_scene* scene);
/** Stage `stage`'s name (its required `name` key; "" when out of range). */
const char* fd_scene_stage_name(const fd_scene* scene, int stage);
/** The longest a stage runs (s): its duration. */
double fd_scene_stage_duration(const fd_scene* scene, int stage);
/** Begins stage `stage` at the world's current time: applies its changes. */
fd_status fd_scene_begin_stage(fd_scene* scene, int stage);
/** Whether the stage under way has ended at the world's current time: its
 * duration is over, or its kinetic-energy condition holds (after its
 * min_duration). */
bool fd_scene_stage_finished(const fd_scene* scene);
/** The part of fd_scene_stage_finished that needs no sum over the bodies:
 * true when the stage's duration is over; otherwise *kinetic_below is the
 * kinetic energy (J) under which it ends now (past its min_duration), or 0
 * when it does not end now whatever the energy. (Several processes sum the
 * energy over their ranks, docs/mpi.md.) */
bool fd_scene_stage_time_up(const fd_scene* scene, double* kinetic_below);
/** The output intervals in effect during `stage` (s): the scene's output
 * settings, changed by the `output` of that stage and the ones before it
 * (docs/stages.md). The caller passes them to fd_output_set_intervals when
 * the stage begins, and when a run resumes inside it. */
void fd_scene_stage_output_intervals(const fd_scene* scene, int stage, double* csv_interval, double* vtu_interval);

/* Checkpoints (docs/restart.md): the whole dynamic state of a world (bodies,
 * contacts with their ids and history, the energy ledger, time and step,
 * inlets' progress and random counters, the complementarity stepper's warm
 * start) in one HDF5 file, written as PATH.tmp and renamed to PATH, so that
 * PATH is always a whole checkpoint. The world must be between steps (after
 * fd_world_prepare or a step). A run resumed from a checkpoint ends bit for
 * bit as the uninterrupted run. */
#define FD_CHECKPOINT_FORMAT 4 /**< the format version written, and the only one read (2: removed bodies, outlets;
                                * 3: Fang & Negrut's tracked points and frame in the world frame;
                                * 4: the penalty ledger's totals hold the live contacts' dissipation too) */
/** Writes the world's checkpoint to path (as PATH.tmp, then renamed); FD_ERR_IO names the path. */
fd_status fd_world_write_checkpoint(const fd_world* world, const char* path);
/** Restores a checkpoint into a world freshly built as the checkpoint's was
 * (the same scene, or the same API calls; no step taken yet): bodies the run
 * added (inlets' spheres) are created again, everything the steps changed is
 * put back. A world built otherwise is refused, naming what differs. On an
 * error the world is left half restored: free it. */
fd_status fd_world_read_checkpoint(fd_world* world, const char* path);
/** fd_world_write_checkpoint plus the scene's text, path and overrides, so
 * that fd_scene_resume (`fricdem resume`) can build the world again. */
fd_status fd_scene_write_checkpoint(const fd_scene* scene, const char* path);
/** Builds the scene stored in a checkpoint (with the overrides it was run
 * with, then `overrides`) and restores the checkpoint into its world. Only
 * time.duration (the total simulated time), output.* and world.threads may
 * be overridden: anything else would change the physics of the run the
 * checkpoint continues, and is refused. */
fd_status fd_scene_resume(const char* checkpoint, const char* const* overrides, int override_count, fd_scene* out);
/** fd_scene_resume with a progress callback (NULL: none), as fd_scene_load_with_progress. */
fd_status fd_scene_resume_with_progress(const char* checkpoint, const char* const* overrides, int override_count,
                                        fd_scene_progress_fn progress, void* user, fd_scene* out);

/** Output writer. CSV rows reach their files in write calls of whole rows,
 * all of an output time's before fd_output_write returns, and the PVD index
 * is rewritten after every snapshot, so a run that stops early leaves
 * readable files (docs/guarantees.md). fd_output_open overwrites the files
 * it writes and leaves others alone: call fd_output_claim_directory first. */
typedef struct fd_output fd_output;
/** Opens the files the settings ask for in settings->directory (made, with its parents, if missing); NULL and a message
 * (fd_last_error) when a file cannot be written. */
fd_output* fd_output_open(const fd_world* world, const fd_output_settings* settings);
/** Makes a directory ready for a run's outputs, as `fricdem run` does before
 * fd_output_open: a missing or empty directory is fine; one that holds
 * anything is refused (FD_ERR_IO, the message lists what is there) unless
 * overwrite, which removes the outputs an earlier run wrote (the files
 * fd_output_open writes, and vtu/ with only snapshots in it) and refuses,
 * removing nothing, when anything else is there. */
fd_status fd_output_claim_directory(const char* directory, bool overwrite);
/** Changes the intervals between CSV rows and VTU snapshots from now on (a
 * stage's output; 0 = every step for CSV, no snapshots for VTU). Rows still
 * fall on multiples of the interval from t = 0, so a resumed run writes
 * them at the same times. Files that were off at fd_output_open stay off. */
void fd_output_set_intervals(fd_output* output, const fd_world* world, double csv_interval, double vtu_interval);
/** Writes whatever is due at the world's current time (call after every step,
 * and once before the first). */
fd_status fd_output_write(fd_output* output, const fd_world* world);
/** Whether fd_output_write would write a row, snapshot or frame of the world
 * as it is now (a domain-decomposed run gathers its bodies only then). */
bool fd_output_due(const fd_output* output, const fd_world* world);
/** Whether what is due at the next step needs the contact details (contacts.csv
 * rows, VTU snapshots): a caller whose world records them on request
 * (FD_CONTACT_OUTPUT_ON_REQUEST) calls fd_world_request_contacts before that
 * step. */
bool fd_output_wants_contacts(const fd_output* output, const fd_world* world);
/** Whether what is due at the next step writes the walls' reactions
 * (walls.csv rows, the walls' VTU): a run of several ranks sums them again
 * from that step's contact records (docs/mpi.md). */
bool fd_output_wants_wall_reactions(const fd_output* output, const fd_world* world);
/** Whether any output writes contacts (fd_output_close writes the final
 * state: its step needs them recorded too). */
bool fd_output_writes_contacts(const fd_output* output);
/** The bytes the outputs will hold at the end of a run of `duration` s from
 * t = 0, projected from what they hold now: the bytes per CSV row time, per
 * snapshot and per step (events, solver rows) so far, times those still
 * due. A projection: contacts that grow in number, and numbers that grow
 * from the short "0" and "1" of a scene at rest, grow the files past it
 * (call it again later in the run to see). */
double fd_output_projected_bytes(const fd_output* output, const fd_world* world, double duration);
/** What the outputs have cost so far (call before fd_output_close). */
typedef struct fd_output_cost {
    double bytes;            /**< in the files: CSV, VTU snapshots and their indexes, the trajectory */
    double seconds;          /**< wall time inside fd_output_write */
    double direct_bytes;     /**< of the large blocks, those written past the page cache (output.direct_io) */
    double cached_bytes;     /**< ... and those written through it */
} fd_output_cost;
/** What the outputs have cost so far (fd_output_cost). */
fd_output_cost fd_output_get_cost(const fd_output* output);
/** Writes the final state if not yet written and closes every file. */
fd_status fd_output_close(fd_output* output, const fd_world* world);

#ifdef __cplusplus
}
#endif
#endif
