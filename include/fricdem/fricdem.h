/** @file
 * fricdem: a discrete element engine whose strength is contact friction.
 *
 * The whole public API. Naming: fd_<object>_<verb>; 0 (FD_OK) means success;
 * a failed call returns a status (or a null handle / NULL) and leaves a
 * message readable with fd_last_error(). See docs/api.md.
 *
 * Must not touch: anything below src/ (a user's program sees only these
 * declarations; the layout of the world stays private). */
#ifndef FRICDEM_H
#define FRICDEM_H

#include <stddef.h>
#include <stdio.h>

#include "fricdem/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The library's version, MAJOR.MINOR.PATCH. */
#define FRICDEM_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- errors */

/** Message of the last failed call on this thread ("" if none). */
const char* fd_last_error(void);
/** Short name of a status code ("ok", "invalid argument", ...). */
const char* fd_status_string(fd_status status);

/* ---------------------------------------------------------------- defaults */

/** A world def with every field at its default (fd_world_def's fields say which). */
fd_world_def fd_default_world_def(void);
/** A material def with every field at its default; the name must still be set. */
fd_material_def fd_default_material_def(void);
fd_contact_law_def fd_default_contact_law_def(void); /**< hooke normal, no friction, no params */
/** A body def with every field at its default; material and shape must still be set. */
fd_body_def fd_default_body_def(void);

/* ---------------------------------------------------------------- world */

/** A simulated world: its bodies, materials, laws, walls, inlets and outlets,
 * stepped by fd_world_step. Opaque; one thread calls it at a time (it runs
 * its own OpenMP threads, fd_world_def.thread_count). */
typedef struct fd_world fd_world;

/** A new empty world; NULL on a bad def (see fd_last_error). */
fd_world* fd_world_create(const fd_world_def* def);
/** Frees the world and everything it owns (adopted meshes included); NULL is a no-op. */
void fd_world_free(fd_world* world);

/** Checks what can only be checked once the world is populated (a contact law
 * for every pair of materials that can touch, parameters of every law) and
 * estimates the critical time step. Called by the first fd_world_step; call it
 * yourself to fail early. */
fd_status fd_world_prepare(fd_world* world);

/** Critical time step (s): the stability limit of the explicit integrators
 * for every spring and dashpot of the laws in use, on the bodies that limit
 * each law, with the coordination of a packing:
 * dt_c = 2 / (beta + sqrt(beta^2 + omega^2)), omega^2 = Z sum k mu,
 * 2 beta = Z sum c mu (docs/models/critical-step.md); infinity when no law
 * has a spring or dashpot. Valid after fd_world_prepare, which warns when the
 * time step exceeds it. */
double fd_world_critical_time_step(const fd_world* world);
/** What limits it, in words: the spring or dashpot, its value, the bodies
 * and the coordination ("" when nothing does). */
const char* fd_world_critical_step_limit(const fd_world* world);
/** Warnings found by fd_world_prepare (e.g. a time step above the stable
 * range, giving both numbers); the CLI prints them. */
int fd_world_warning_count(const fd_world* world);
/** Warning `index` (0 .. fd_world_warning_count - 1); "" when out of range. */
const char* fd_world_warning_at(const fd_world* world, int index);

/** Advances one time step. On FD_ERR_NON_FINITE (a NaN or infinity) and
 * FD_ERR_UNSTABLE (a body moved more than half its radius in the step, or the
 * kinetic energy exceeds twice what entered) the state is that of the last
 * good step and fd_last_error names the body, its contact, the step and the
 * time. */
fd_status fd_world_step(fd_world* world);

double fd_world_time(const fd_world* world);        /**< simulated time, s */
int64_t fd_world_step_count(const fd_world* world); /**< steps taken since the world was made */
double fd_world_time_step(const fd_world* world);   /**< s */
/** The def the world was made with, as changed since (gravity, contact output, complementarity settings). */
fd_world_def fd_world_get_def(const fd_world* world);

/** 64-bit FNV-1a hash of every body's state bits (removed bodies' slots left
 * out): equal hashes mean bitwise equal states (used by the determinism tests). */
uint64_t fd_world_state_hash(const fd_world* world);

/** The global energy ledger (J), docs/energy.md, kept when
 * fd_world_def.energy_ledger is set (the complementarity stepper keeps it
 * always). Without it only the kinetic and gravitational energies are
 * filled, the books are 0 and closure_error is NaN. The books close when
 *   kinetic + gravitational + stored + dissipated + released + removed
 *     - created - external_work - constraint_work - inserted
 * stays equal to its value when the world was prepared; the difference is
 * closure_error, the integrator's error (first order in the time step).
 * Gravitational potential is -m g . x (relative to the origin). */
typedef struct fd_world_energy {
    double kinetic_translational; /**< J, sum of m v^2 / 2 over the dynamic bodies */
    double kinetic_rotational;    /**< J, sum of omega . I omega / 2 */
    double gravitational;         /**< J, -sum of m g . x */
    double normal_elastic;   /**< = stored[FD_MECHANISM_NORMAL], kept for existing callers */
    double stored[FD_MECHANISM_COUNT];    /**< in the springs of current contacts, per mechanism */
    double dashpot[FD_MECHANISM_COUNT];   /**< dissipated by dashpots since prepare, per mechanism */
    double slip[FD_MECHANISM_COUNT];      /**< dissipated by slip since prepare, per mechanism */
    double created[FD_MECHANISM_COUNT];   /**< created by update rules (D-SDS spring reset), per mechanism */
    double released;         /**< stored energy that left with contacts that ended (their springs vanish) */
    double external_work;    /**< done by external forces and torques, prescribed contact forces and
                              * fd_body_set_state */
    double constraint_work;  /**< done by axis locks (velocity components held fixed) */
    double inserted;         /**< kinetic + gravitational energy of bodies created after prepare */
    double removed;          /**< kinetic + gravitational energy of bodies removed after prepare (outlets,
                              * fd_world_remove_body): what they carried out of the world */
    double closure_error;    /**< the books' imbalance, see above */
    double entered;          /**< what entered since prepare: the kinetic and stored energy then, plus the work of
                              * gravity (the gravitational energy given up, by removed bodies until they left),
                              * of external loads and locks, the inserted and the created energy; the scale of
                              * closure_error (NaN with it) */
} fd_world_energy;
/** The energy books now (fd_world_energy), J. */
fd_world_energy fd_world_get_energy(const fd_world* world);

/** Wall time spent in each stage of the steps so far (s), for the summary of a
 * run and for benchmarks: the cost per contact of a contact law is
 * contact_models / contact_steps. */
typedef struct fd_world_profile {
    double broad_phase;      /**< candidate pairs */
    double narrow_phase;     /**< contact geometry and the persistent contact store */
    double contact_models;   /**< normal and friction kernels */
    double accumulate;       /**< contact loads onto bodies */
    double integrate;        /**< kicks and drifts */
    double contact_steps;    /**< contacts processed, summed over the steps */
    int64_t steps;           /**< force passes timed (steps, plus one per prepare) */
    double solver_iterations; /**< complementarity stepper: iterations summed over the steps */
    int64_t neighbor_builds;  /**< penalty stepper: neighbour-list builds so far */
    int64_t neighbor_appended; /**< penalty stepper: bodies an inlet added that joined a standing list (no build) */
    int64_t neighbor_entries; /**< penalty stepper: pairs in the neighbour list now */
} fd_world_profile;
/** The profile of the steps so far (fd_world_profile). */
fd_world_profile fd_world_get_profile(const fd_world* world);

/** Bytes the world holds, by use (capacities, not only what is in use): for
 * the memory per sphere and per contact of a run (bench/README.md). */
typedef struct fd_world_memory {
    size_t bodies;           /**< per-body arrays: states and their rollback copies, forces, mass and shape data, names */
    size_t neighbor_list;    /**< the penalty stepper's neighbour lists and packed positions */
    size_t contacts;         /**< the touching contacts' data (springs, identity, books), the undo log, the
                              * recorded details */
    size_t scratch;          /**< the broad phase's and the threads' buffers */
} fd_world_memory;
/** The bytes the world holds now (fd_world_memory). */
fd_world_memory fd_world_get_memory(const fd_world* world);
/** The bytes of the per-body arrays for one body of capacity (what
 * fd_world_memory.bodies counts per body, names and their index apart): for
 * an estimate before the bodies are made. */
size_t fd_world_bytes_per_body(void);

/** The complementarity stepper's solve of the last step: iterations taken,
 * the residual reached (m/s: the largest velocity error of a contact's
 * constraints, docs/models/complementarity.md) and the contacts in it. Zeros
 * for the penalty stepper. */
typedef struct fd_solver_stats {
    int iterations;  /**< iterations of the last solve */
    double residual; /**< m/s, reached at its end */
    int contacts;    /**< contacts in the problem */
} fd_solver_stats;
/** The last step's solve (fd_solver_stats). */
fd_solver_stats fd_world_solver_stats(const fd_world* world);
/** Changes the complementarity stepper's solver settings between steps (the
 * stepper itself is fixed at creation). */
fd_status fd_world_set_complementarity(fd_world* world, const fd_complementarity_def* def);
/** The residual after each iteration of the last solve (count returned;
 * valid until the next step). */
int fd_world_solver_residuals(const fd_world* world, const double** residuals);

/* ---------------------------------------------------------------- materials */

/** A new material; a null id (fd_material_id_is_null) on a bad def or a name already used. */
fd_material_id fd_world_create_material(fd_world* world, const fd_material_def* def);
/** The material of that name; a null id when there is none. */
fd_material_id fd_world_find_material(const fd_world* world, const char* name);
/** How many materials the world has. */
int fd_world_material_count(const fd_world* world);
/** The material's name; "" for an invalid id. */
const char* fd_material_name(const fd_world* world, fd_material_id id);

/** Sets the contact law for a pair of materials (a == b allowed). Parameters
 * are checked against the sub-models' tables: unknown names, out-of-range
 * values and missing required values are errors. */
fd_status fd_world_set_contact_law(fd_world* world, fd_material_id a, fd_material_id b,
                                   const fd_contact_law_def* def);
/** The law set for a pair of materials as resolved: each mechanism's model
 * name ("none" when absent) and every one of its parameters by name, in the
 * order of the model's table, defaults filled in. FD_ERR_NOT_FOUND when the
 * pair has no law. The names point into the registry (static storage). */
fd_status fd_world_get_contact_law(const fd_world* world, fd_material_id a, fd_material_id b,
                                   fd_contact_law_def* out);

/* ---------------------------------------------------------------- bodies */

/** Creates a body; it takes the slot of a removed body when there is one
 * (the last removed first), else the next index. */
fd_body_id fd_world_create_body(fd_world* world, const fd_body_def* def);
/** Makes room for `count` more bodies at once (optional: bodies are added in
 * any case, but a world that knows how many it will hold allocates exactly
 * that much instead of doubling). */
fd_status fd_world_reserve_bodies(fd_world* world, int count);
/** Indices 0 .. fd_world_body_count - 1 address the bodies' slots, the
 * slots of removed bodies included (fd_world_body_at gives a null handle for
 * those); fd_world_live_body_count is the number of bodies there are. */
int fd_world_body_count(const fd_world* world);
/** The number of bodies there are (slots of removed bodies left out). */
int fd_world_live_body_count(const fd_world* world);
/** The body in slot `index`; a null handle for a removed body's slot or an index out of range. */
fd_body_id fd_world_body_at(const fd_world* world, int index);
/** The body of that name; a null handle when there is none. */
fd_body_id fd_world_find_body(const fd_world* world, const char* name);
/** Whether the handle names a body of the world now (not null, not removed, not of an earlier body of its slot). */
bool fd_body_is_valid(const fd_world* world, fd_body_id id);
/** The body's state (m, m/s, rad/s, world frame); NaN everywhere for an invalid handle. */
fd_body_state fd_body_get_state(const fd_world* world, fd_body_id id);
/** Puts a dynamic body in a state (finite, unit quaternion); the ledger books the change of its
 * energy as external work. FD_ERR_INVALID_ARGUMENT for an invalid handle, a static body or a bad state. */
fd_status fd_body_set_state(fd_world* world, fd_body_id id, const fd_body_state* state);
/** The states of slots [first, first + count) in one call (NaN for a removed
 * body's slot); and setting them, as fd_body_set_state does body by body,
 * except that static bodies and removed slots keep theirs (their entries are
 * not read). Set stops at the first invalid state, with its error. */
fd_status fd_world_get_states(const fd_world* world, int first, int count, fd_body_state* out);
/** Sets the states of slots [first, first + count); see fd_world_get_states. */
fd_status fd_world_set_states(fd_world* world, int first, int count, const fd_body_state* states);
/** What the body is (fd_body_info); name "" and the rest zero for an invalid handle. */
fd_body_info fd_body_get_info(const fd_world* world, fd_body_id id);
/** The body's name ("" when unnamed, or for an invalid handle): fd_body_get_info's
 * name without the rest (a CSV row of contacts names two bodies). */
const char* fd_body_get_name(const fd_world* world, fd_body_id id);
/** Removes a body between steps (docs/outlets.md). Its handle, and every copy
 * of it, becomes invalid (fd_body_is_valid false; every call taking it
 * fails); its contacts end, their springs' energy booked as released, and
 * with the ledger its kinetic and gravitational energy as removed; its name
 * is free again. Other contacts and their histories are untouched, and the
 * results of the other bodies do not depend on the thread count. The loads
 * of its contacts at the last force pass stay in its partners' forces for
 * their next kick, as the loads of a contact that ends at the next pass do.
 * Its slot is kept as an inert tombstone until a later body takes it. */
fd_status fd_world_remove_body(fd_world* world, fd_body_id id);

/* ---------------------------------------------------------------- walls
 * Finite walls (docs/walls.md): cylindrical shells, disks and triangle
 * meshes, static bodies of shapes FD_SHAPE_CYLINDER, _DISK, _MESH. */

/* Triangle meshes (fd_mesh: src/collide/mesh.c, stl.c). */

/** From vertex coordinates (3 per vertex, wall frame, m) and triangles (3
 * vertex indices each). Vertices closer than 1e-9 of the bounding-box
 * diagonal are welded (each to the first of them in input order); vertices no
 * kept triangle uses are left out. Triangles are grouped into patches:
 * neighbours across an edge join the same patch when the angle between their
 * normals is below feature_angle (radians, in [0, pi]; the caller passes 30
 * deg by default), the winding of the pair made consistent by the shared
 * edge's direction first (STL winding is often inconsistent). Patches are
 * numbered in the order of their lowest triangle. Degenerate (zero-area)
 * triangles, also those that welding collapses, are dropped and counted
 * (fd_mesh_degenerate_count); the kept ones keep their input order, and their
 * indices in the mesh are the ones every other function uses. NULL and a
 * message in message[message_size] (when message is not NULL) on error: no
 * triangles, a non-finite coordinate (or one above 1e75 m, whose squares
 * overflow), an index out of range, a bad feature_angle, or out of memory. */
fd_mesh* fd_mesh_create(const double* vertices, int vertex_count, const int* triangles, int triangle_count,
                        double feature_angle, char* message, int message_size);

/** Reads an STL file, ASCII or binary (binary iff the size is 84 + 50 n with n
 * from the header; otherwise ASCII when it is text, else a damaged binary
 * file; ASCII errors name FILE:LINE and what was expected, binary errors the
 * byte offset), multiplies every coordinate by scale (per axis, each > 0),
 * then fd_mesh_create (whose errors come prefixed with the path). */
fd_mesh* fd_mesh_read_stl(const char* path, fd_vec3 scale, double feature_angle, char* message, int message_size);

/** A closed box of edge lengths size (m) centred on the wall origin, axes
 * along the wall frame's: 12 triangles, one patch per face in the order
 * -x, +x, -y, +y, -z, +z (a box wall, the scene's `type: box`). */
fd_mesh* fd_mesh_create_box(fd_vec3 size, char* message, int message_size);

/** Frees a mesh no world has adopted; NULL is a no-op. */
void fd_mesh_free(fd_mesh* mesh);

/** Patches: groups of triangles between sharp edges, each one wall body. */
int fd_mesh_patch_count(const fd_mesh* mesh);
/** Triangles kept (degenerate ones dropped). */
int fd_mesh_triangle_count(const fd_mesh* mesh);
/** Vertices kept (after welding). */
int fd_mesh_vertex_count(const fd_mesh* mesh);
/** How many input triangles fd_mesh_create dropped as degenerate (zero area,
 * before or after welding). */
int fd_mesh_degenerate_count(const fd_mesh* mesh);
const double* fd_mesh_vertices(const fd_mesh* mesh); /**< 3 per vertex (after welding), for VTU output */
const int* fd_mesh_triangles(const fd_mesh* mesh);   /**< 3 per triangle */
/** The patch of triangle `triangle`. */
int fd_mesh_triangle_patch(const fd_mesh* mesh, int triangle);
double fd_mesh_bounding_radius(const fd_mesh* mesh); /**< largest distance of a vertex from the wall origin, m */

/** Hands a mesh to the world, which frees it with itself; its patch bodies
 * refer to it. */
fd_status fd_world_adopt_mesh(fd_world* world, fd_mesh* mesh);
/** Creates a wall from def (a static body): one body, except a capped
 * cylinder (the shell, then its caps: disks named NAME.cap_low and
 * NAME.cap_high at z = -+length/2) and a mesh with shape.mesh_patch = -1 (one
 * body per patch, NAME then NAME.patch1, NAME.patch2, ...). The bodies share
 * def's pose; *first gets the first, *count how many. */
fd_status fd_world_create_wall(fd_world* world, const fd_body_def* def, fd_body_id* first, int* count);
/** The reaction of a whole wall (fd_wall_reaction summed over the bodies of
 * the wall whose first body is id: fd_body_info.wall), torques about its
 * position. */
fd_wall_reaction fd_world_wall_reaction(const fd_world* world, fd_body_id id);

/** Walls: static bodies moved by a prescribed motion (fd_wall_motion; the
 * penalty stepper only). Setting a motion again starts the new one from the
 * wall's pose at that time (a stage that starts a drum). */
fd_wall_motion fd_default_wall_motion(void);
/** Sets a static body's (or a whole wall's) prescribed motion; see fd_wall_motion. */
fd_status fd_world_set_wall_motion(fd_world* world, fd_body_id id, const fd_wall_motion* motion);
/** The reaction of a static body (see fd_wall_reaction); zero before the
 * first force pass. */
fd_wall_reaction fd_body_get_reaction(const fd_world* world, fd_body_id id);

/* ---------------------------------------------------------------- inlets */

/** An inlet def with every field at its default; name, material, radius, rate and count must still be set. */
fd_inlet_def fd_default_inlet_def(void);
/** Adds an inlet (see fd_inlet_def); before the first step only. The spheres
 * it inserts are created with fd_world_create_body at the end of the steps
 * they are due at, after the contact pass, so that the state, contacts and
 * loads reported after a step include them (they touch nothing yet: only
 * gravity acts on them). Fails on a bad def, a name used by another inlet, or
 * an existing body named like the inlet's spheres. fd_world_prepare checks
 * the contact laws and the time step for the spheres still to come. */
fd_status fd_world_add_inlet(fd_world* world, const fd_inlet_def* def);
/** How many inlets the world has. */
int fd_world_inlet_count(const fd_world* world);
/** Progress of inlet `index` (0-based, in order of addition); name "" when out of range. */
fd_inlet_info fd_world_get_inlet_info(const fd_world* world, int index);
/** Pauses (false) or resumes (true) inlet `index` between steps (a stage that
 * ends a fill): while paused its schedule stands still, so it goes on with the
 * sphere it would have poured next. */
fd_status fd_world_set_inlet_active(fd_world* world, int index, bool active);
/** Changes gravity between steps (m/s^2; a stage that tilts a chute). The
 * bodies' potential energy in the new field differs from the old: the
 * ledger books the difference as external work (docs/energy.md). */
fd_status fd_world_set_gravity(fd_world* world, fd_vec3 gravity);

/* ---------------------------------------------------------------- outlets */

/** An outlet def with every field at its default; name and region must still be set. */
fd_outlet_def fd_default_outlet_def(void);
/** Adds an outlet (see fd_outlet_def); before the first step only. After
 * every step (after the contact pass, before the inlets insert), each
 * dynamic body whose centre is in the region of an outlet whose start_time
 * has come is removed, in ascending body index; a body in two regions counts
 * for the outlet added first. Fails on a bad def or a name used by another
 * outlet. */
fd_status fd_world_add_outlet(fd_world* world, const fd_outlet_def* def);
/** How many outlets the world has. */
int fd_world_outlet_count(const fd_world* world);
/** Closes (active false) or reopens outlet `index` between steps: a closed
 * outlet removes nothing (a stage: closed while the silo fills, opened for
 * the discharge); it still waits for its start_time when opened. */
fd_status fd_world_set_outlet_active(fd_world* world, int index, bool active);
/** What outlet `index` (0-based, in order of addition) has removed so far;
 * name "" when out of range. */
fd_outlet_info fd_world_get_outlet_info(const fd_world* world, int index);

/* ---------------------------------------------------------------- contacts */

/** Contacts after the last step, ordered by (body_i, body_j) index. The
 * count is always known; the details (fd_world_get_contact) exist after a
 * force pass that recorded them: every pass with FD_CONTACT_OUTPUT_EVERY_STEP
 * (the default), else the pass after fd_world_request_contacts. Without
 * them fd_world_get_contact fails saying so. */
int fd_world_contact_count(const fd_world* world);
/** Contact `index` (0 .. fd_world_contact_count - 1) into *out; FD_ERR_INVALID_ARGUMENT when the
 * details were not recorded or the index is out of range. The view's pointers live until the next step. */
fd_status fd_world_get_contact(const fd_world* world, int index, fd_contact_view* out);
/** Whether the last force pass recorded the contact details. */
bool fd_world_contacts_recorded(const fd_world* world);
/** Makes the next force pass record the contact details (with
 * FD_CONTACT_OUTPUT_ON_REQUEST; a no-op otherwise). */
void fd_world_request_contacts(fd_world* world);
/** Changes fd_world_def.contact_output between steps. */
void fd_world_set_contact_output(fd_world* world, fd_contact_output mode);
/** Events of the last force pass (the last step, or fd_world_prepare), raised
 * when fd_world_def.events is set (always by the complementarity stepper), in
 * contact order: contacts that began, and slides, rolls and spins that
 * started or stopped slipping. The array is valid until the next step. A
 * contact that begins already slipping raises its activation and a slip
 * start. Models without a stick state (legacy_constant_torque) raise none. */
int fd_world_event_count(const fd_world* world);
/** The last pass's events (fd_world_event_count of them). */
const fd_contact_event* fd_world_events(const fd_world* world);
const char* fd_event_type_name(fd_event_type type); /**< "contact_activated", "slip_started", "slip_ended" */

/** Names (and units) of the model output columns of contacts in this world:
 * the union over all laws; a contact whose law lacks a column reports NaN. */
int fd_world_contact_column_count(const fd_world* world);
/** Column `column`'s name; "" when out of range. */
const char* fd_world_contact_column_name(const fd_world* world, int column);
/** Column `column`'s unit ("N", "m", "-", ...); "" when out of range. */
const char* fd_world_contact_column_unit(const fd_world* world, int column);
/** Index of the contact column with this name, or -1. */
int fd_world_find_contact_column(const fd_world* world, const char* name);

/* ---------------------------------------------------------------- model registry */

/** One parameter of a sub-model, from the model's table (fd_model_info.params):
 * the scene loader, `fricdem models` and the checks all read it. */
typedef struct fd_param_info {
    const char* name;        /**< as given in a law (fd_param.name) and a scene */
    const char* unit;        /**< "N/m", "-", ... */
    const char* doc;         /**< one line */
    double default_value;    /**< NAN = required */
    double min_value;        /**< inclusive bounds */
    double max_value;        /**< see min_value */
    const char* source;      /**< where the parameter comes from, never empty: the paper and its equation, section
                                  or table ("Fang & Negrut Eq. (2b)", "PFC rrlinear Eq. (4)", "C-SDS Eq. (10)",
                                  "Tasora & Anitescu Eq. (31)"), the peer engine's documented option ("LAMMPS pair
                                  granular: damping mass_velocity"), or "fricdem: ..." for fricdem's own choice */
} fd_param_info;

/** A sub-model of the registry: one law of one mechanism. */
typedef struct fd_model_info {
    const char* name;        /**< as given in fd_submodel_def.model ("dsds", "fang_negrut", ...) */
    fd_mechanism mechanism;  /**< the mechanism it models */
    const char* doc;         /**< a paragraph, with the paper and equation it implements */
    const fd_param_info* params; /**< its parameters, in the table's order */
    int param_count;         /**< how many */
} fd_model_info;

/** How many sub-models the registry holds. */
int fd_model_count(void);
/** Sub-model `index` (0 .. fd_model_count - 1); NULL when out of range. */
const fd_model_info* fd_model_at(int index);
/** The sub-model of that mechanism and name; NULL when there is none. */
const fd_model_info* fd_model_find(fd_mechanism mechanism, const char* name);
const char* fd_mechanism_name(fd_mechanism mechanism); /**< "normal", "slide", "roll", "spin" */

#ifdef __cplusplus
}
#endif
#endif
