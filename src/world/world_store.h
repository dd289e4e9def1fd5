/* The world's storage, below the steppers: its layout, and the services
 * every stepper calls (contact search of the complementarity stepper,
 * stability checks, walls' motion, the ledger's shared books). The door of
 * src/world/; the world's lifecycle and step are src/engine/'s (engine.h),
 * which this folder never calls.
 *
 * Bodies are stored as parallel arrays split by use (Box2D's hot/cold split):
 * the kinematic state that the integrator and the kernels read every step,
 * the mass data the integrator reads, the force accumulators, and the cold
 * bookkeeping (names, shapes) that only setup and output touch.
 *
 * Contacts live in a flat array ordered by the key (i, j), i < j, with a
 * parallel pool of history blocks and one of output columns. Each step builds
 * the new array from the broad phase (already in key order) and merges it
 * with the previous one to carry identity and history; nothing depends on
 * memory addresses, so two runs give bitwise the same result.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#ifndef FD_WORLD_STORE_H
#define FD_WORLD_STORE_H

#include <string.h>

#include "body/body.h"
#include "broadphase/broadphase.h"
#include "collide/collide.h"
#include "contact/model.h"
#include "fricdem/fricdem.h"

/* What the penalty stepper's integration loops read per body, packed (a
 * loop that streams few arrays stays in cache; PERFORMANCE.md). */
enum {
    FD_MOTION_DYNAMIC = 1u << 0,  /* moves (not static) */
    FD_MOTION_SIMPLE = 1u << 1,   /* isotropic inertia, no locks: the straight kick and drift */
    FD_MOTION_LOADED = 1u << 2,   /* an external force or torque */
    FD_MOTION_PLANE = 1u << 3,    /* a plane (never wrapped into a periodic box) */
    FD_MOTION_WALL = 1u << 6,     /* a plane or a finite wall: searched apart from the grid (fd_wall_in_reach) */
    FD_MOTION_SPHERE = 1u << 4,   /* a sphere */
    FD_MOTION_REMOVED = 1u << 5,  /* a removed body's slot (the only flag it has): left out of the pair search */
    FD_MOTION_DORMANT = 1u << 7,  /* with FD_MOTION_REMOVED: a body another rank holds (src/parallel/partition.h),
                                   * whose state nobody reads: not even copied into the new buffers */
    FD_MOTION_PASSIVE = 1u << 8,  /* a ghost of another rank's body, whose loads its owner computes: the pair
                                   * search leaves out its pairs with other passive bodies and with walls (no
                                   * body of theirs is this rank's, src/parallel/partition.c) */
};
typedef struct fd_body_motion {
    double inverse_mass;          /* 1/kg */
    double inverse_inertia;       /* 1/(kg m^2), the isotropic moment's (FD_MOTION_SIMPLE) */
    double mass;                  /* kg; 0 for static bodies */
    uint32_t flags;               /* FD_MOTION_* */
    int32_t material;             /* index of the body's material (the neighbour list's law lookup) */
} fd_body_motion;

/* Whether the pair of bodies with these motion flags is another rank's to
 * compute: a passive body with another passive body or with a wall (neither
 * is this rank's own). The neighbour lists leave such a pair out. */
static inline bool fd_pair_left_to_other_ranks(uint32_t flags_i, uint32_t flags_j)
{
    const uint32_t not_own = FD_MOTION_PASSIVE | FD_MOTION_WALL;
    return ((flags_i | flags_j) & FD_MOTION_PASSIVE) && (flags_i & not_own) && (flags_j & not_own);
}

typedef struct fd_body_cold {
    fd_shape shape;
    double mass;
    fd_body_type type;
    int material;
    int32_t wall_group;           /* the first body of its wall (fd_world_create_wall); itself otherwise */
} fd_body_cold;

typedef struct fd_contact {
    uint64_t key;                 /* (uint64)i << 32 | j */
    uint64_t id;
    int64_t first_step;
    int32_t body_i, body_j;
    int32_t law;
    fd_contact_geometry geometry;
    fd_contact_loads loads;
    fd_energy_books energy[FD_MECHANISM_COUNT]; /* this contact's books, summed over its life */
    unsigned slip_flags;          /* bit (1 << mechanism): slipping after the last evaluation */
    unsigned previous_slip_flags; /* the same before it (0 for a new contact) */
    fd_vec3 image_offset;         /* m; body j's image x_j + image_offset touches body i (periodic) */
    /* The loads the pass added to the bodies, as it added them: force on i
     * (minus it on j) and the whole torques (arms included), so that a
     * body's sums can be made again from the records in key order (the
     * walls' reactions of several ranks, src/parallel/partition.h). */
    fd_vec3 applied_force, applied_torque_i, applied_torque_j;
} fd_contact;

/* The global energy ledger's running totals (docs/energy.md). */
typedef struct fd_energy_totals {
    double dashpot[FD_MECHANISM_COUNT];
    double slip[FD_MECHANISM_COUNT];
    double created[FD_MECHANISM_COUNT];
    double released;
    double external_work;
    double constraint_work;
    double inserted;
    double removed;               /* kinetic + gravitational energy of the bodies removed (src/engine/removal.c) */
    double removed_gravitational; /* the gravitational part of it (fd_world_energy.entered counts gravity's work
                                   * on those bodies up to their removal) */
} fd_energy_totals;

typedef struct fd_contact_set {
    fd_contact* contacts;
    double* history;              /* contact c owns history[c * history_stride ...] */
    double* columns;              /* contact c owns columns[c * column_count ...] */
    int count, capacity;
} fd_contact_set;

typedef struct fd_column {
    const char* name;
    const char* unit;
} fd_column;

typedef struct fd_complementarity fd_complementarity;
typedef struct fd_penalty fd_penalty;
/* An inlet and its progress (src/engine/inlet.c). */
typedef struct fd_inlet {
    fd_inlet_def def;             /* name points to `name` below */
    char* name;
    double radius_min, radius_max;/* m, over the size distribution */
    double size_cumulative[FD_INLET_MAX_SIZES]; /* normalised cumulative fractions */
    fd_vec3 axis_u, axis_v;       /* disk: unit vectors spanning its plane */
    fd_vec3 normal;               /* disk: unit normal */
    fd_vec3 bound_center;         /* sphere around the region, for the neighbour search */
    double bound_radius;
    int64_t inserted;
    int64_t attempts;             /* placements tried so far for the next sphere (the Philox counter) */
    int64_t due_before;           /* spheres due at the previous step */
    int64_t delayed;
    double max_delay;
    int64_t rejected;
    /* Paused by a stage (fd_world_set_inlet_active): its schedule stands
     * still, so that it goes on where it stopped when resumed. */
    bool paused;
    double paused_since;          /* s, when it was paused */
    double paused_total;          /* s, the time it stood still before that */
} fd_inlet;

/* A static body under a prescribed motion (src/world/wall_motion.c). */
typedef struct fd_moving_wall {
    int32_t body;
    fd_wall_motion motion;
    fd_vec3 reference_position;   /* the pose when the motion was set */
    fd_quat reference_orientation;
    double start_time;            /* s, t0: the later of motion.start_time and the time it was set */
    bool turns_a_plane;           /* a rotating plane: its range test changes everywhere, so the list is rebuilt */
} fd_moving_wall;
/* An outlet and what it has removed (src/engine/outlet.c). */
typedef struct fd_outlet {
    fd_outlet_def def;            /* name points to `name` below; normal normalised */
    char* name;
    int64_t removed;
    double removed_mass;          /* kg */
    bool closed;                  /* by fd_world_set_outlet_active (a stage): removes nothing */
} fd_outlet;

struct fd_world {
    fd_world_def def;
    fd_periodic periodic;         /* from def.periodic, box_min, box_max */
    double time;
    int64_t step_count;
    fd_world_profile profile;     /* wall time per stage, fd_world_get_profile */
    bool prepared;

    /* bodies: the kinematic state in arrays per field (the passes read
     * positions alone, the laws positions and velocities, the integrator
     * streams all four), fd_world_state assembles a body's */
    int body_count, body_capacity;
    fd_vec3* position;            /* m */
    fd_quat* orientation;         /* body to world */
    fd_vec3* velocity;            /* m/s */
    fd_vec3* angular_velocity;    /* rad/s, world frame */
    fd_body_mass* masses;
    fd_body_cold* colds;
    fd_vec3* forces;              /* N, world; accumulated each force pass */
    fd_vec3* torques;             /* N m, world */
    /* The other buffer of each: the penalty stepper's careful steps write
     * the step into the one and keep the state before it in the other
     * (swapped, never copied), for rollback; its steps made in place keep
     * their rewind point's copy here (src/penalty/rewind.c); the
     * complementarity stepper copies. */
    fd_vec3* saved_position;
    fd_quat* saved_orientation;
    fd_vec3* saved_velocity;
    fd_vec3* saved_angular_velocity;
    fd_vec3* saved_forces;
    fd_vec3* saved_torques;
    fd_body_motion* motion;
    int32_t* special_bodies;      /* dynamic bodies off the straight integration path (src/penalty/stepper.c) */
    int special_count;
    int special_listed;           /* body count when that list was made */
    int32_t* held_runs;           /* [begin, end) pairs: the runs of bodies not dormant (a rank's; all, in one
                                   * process), made with the list above: the integration walks only these */
    int held_run_count;
    /* broad-phase inputs, derived from the cold data */
    double* bounding_radii;
    bool* is_static;
    bool* is_wall;                /* a plane or a finite wall (a mesh patch, a cylinder, a disk): no grid cell */
    fd_vec3* plane_normals;       /* world outward normal of a plane (0 for other bodies) */

    /* body names: open-addressing hash of body indices (-1 = empty), so that
     * creating N named bodies costs O(N), not O(N^2) */
    struct fd_name_block* names;  /* the name store (world_bodies.c, store_name) */
    struct fd_name_slot* name_slots;
    int name_slot_count;          /* power of two, > 2 x named bodies */
    int named_body_count;

    /* materials and laws */
    int material_count, material_capacity;
    fd_material* materials;
    int law_count, law_capacity;
    fd_contact_law* laws;
    int* law_table;               /* material_count^2, -1 = no law */
    int history_stride;           /* max history size over laws */
    int column_count;
    fd_column columns[64];

    /* contacts: current and previous (double buffered) */
    fd_contact_set contacts;
    fd_contact_set previous;
    uint64_t next_contact_id;

    /* broad phase and narrow-phase scratch */
    fd_broadphase broadphase;
    fd_contact_geometry* candidate_geometry;
    fd_vec3* candidate_offset;    /* image offset of body j per candidate (periodic worlds) */
    signed char* candidate_touching;
    int candidate_capacity;

    /* energy ledger: totals so far (a force pass adds its contacts' step
     * books, summed in key order: src/penalty/contact_details.c,
     * fd_book_step_sums), the springs' energy now, per-contact scratch of
     * the last pass, and the balance when the world was first prepared */
    fd_energy_totals energy_totals;
    double stored_energy[FD_MECHANISM_COUNT];
    fd_energy_books* contact_energy;   /* FD_MECHANISM_COUNT per contact of the last pass */
    int contact_energy_capacity;
    double* lock_work;                 /* per body, the last kick or drift */
    bool has_locks;
    bool outlets_by_caller;       /* the step leaves the outlets to its caller (a rank of several, src/parallel) */
    bool inlets_by_caller;        /* and the inlets: fd_world_insert_from_inlets, after the outlets' removals */
    bool has_energy_reference;
    double energy_reference;
    bool forces_current;               /* forces belong to the current state (else prepare computes them) */
    /* Counts the changes made to the world from outside its steps (bodies
     * added, removed or set, gravity, laws, walls' motions, inlets and
     * outlets, a checkpoint read, a prepare: fd_world_note_change): the
     * penalty stepper's rewind point holds only while it is unchanged
     * (src/penalty/rewind.c). */
    uint64_t changes;
    bool state_before_kept;       /* the saved buffers hold the state before the last step (else it was made
                                   * in place: src/penalty/rewind.c) */
    fd_complementarity* complementarity; /* the non-smooth stepper's workspace (NULL for the penalty one) */
    fd_penalty* penalty;               /* the penalty stepper's state (src/penalty/penalty.h), owned */
    bool list_stale;                   /* a body moved by hand, or a wall's motion changed: the penalty stepper
                                        * builds its neighbour list again before its next pass */
    bool contacts_requested;           /* fd_world_request_contacts: the next pass records */
    bool has_external_loads;           /* some body has an external force or torque (ledger: their work) */
    fd_contact_event* events;          /* of the last force pass */
    int event_count, event_capacity;
    /* inlets, and the bodies near a region (scratch of fd_world_run_inlets) */
    fd_inlet* inlets;
    int inlet_count, inlet_capacity;
    int32_t* inlet_near;
    int inlet_near_capacity;
    /* gravity as the world was created with it (fd_world_set_gravity may
     * change def.gravity; checkpoints fingerprint the scene's) */
    fd_vec3 created_gravity;
    /* the meshes the world owns (fd_world_adopt_mesh) */
    fd_mesh** meshes;
    int mesh_count;
    /* walls under a prescribed motion, in ascending body order */
    fd_moving_wall* moving_walls;
    int moving_wall_count, moving_wall_capacity;
    /* removed bodies (src/engine/removal.c): their slots stay as inert
     * tombstones (is_removed), handed out again last removed first */
    bool* is_removed;             /* per body */
    uint32_t* generations;        /* per slot: its body's generation (fd_body_id), hot for the outputs' handles */
    char** body_names;            /* per slot: its body's name, never NULL ("" when unnamed); not in the cold
                                   * record because every contact row of the outputs reads two at random */
    int32_t* free_slots;          /* a stack: the next body takes free_slots[free_slot_count - 1] */
    int free_slot_count, free_slot_capacity;
    int64_t removed_count;        /* bodies removed so far */
    fd_outlet* outlets;
    int outlet_count, outlet_capacity;

    /* setup results */
    double critical_time_step;
    char critical_step_limit[400];     /* what limits it: the spring or dashpot, the bodies (stability.c) */
    double blow_up_radius;             /* m, the smallest inner radius of a dynamic body (the blow-up test's scale) */
    int warning_count;
    char warnings[8][1024];
};

/* The complementarity stepper's contact search (src/world/contacts.c):
 * gravity and external loads into forces/torques; the contact set of the
 * current state (broad and narrow phase, persistent contacts); the events of
 * the contact set against its previous slip states. (The penalty stepper has
 * its own pipeline, src/penalty/.) */
void fd_world_apply_external_loads(fd_world* world);
fd_status fd_world_find_contacts(fd_world* world);
fd_status fd_world_raise_events(fd_world* world);
/* A contact set's arrays reallocated to exactly `capacity` contacts, with
 * history_stride history values and column_count columns each (the search
 * grows its sets by doubling; a checkpoint's reader to its count); false
 * when out of memory (the capacity unchanged). */
bool fd_contact_set_resize(fd_contact_set* set, int capacity, int history_stride, int column_count);
/* Appends an event of contact `id` between body indices body_i < body_j at
 * the current step and time; false when out of memory. */
bool fd_world_push_event(fd_world* world, fd_event_type type, fd_mechanism mechanism, uint64_t id, int body_i,
                         int body_j);


/* Moving walls (src/world/wall_motion.c). fd_world_move_walls puts each
 * moving wall at its pose and velocities of the world's time, into the
 * current state buffers (a stepper calls it after its drift; the penalty
 * stepper then checks its neighbour list against the walls' moves).
 * fd_world_book_wall_work
 * books the work the walls did on the bodies over the step just taken
 * (trapezoidal in the reaction, which the force pass left in forces and
 * torques, the step's start in saved_forces and saved_torques). */
void fd_world_move_walls(fd_world* world);
/* The gap (m) between a sphere of radius r at x and wall body `wall` at its
 * pose in `positions` (and the world's orientation): negative when they
 * overlap; for a finite wall the narrow phase's, +INFINITY when farther than
 * `reach` (src/world/wall_motion.c). */
double fd_world_wall_gap(const fd_world* world, const fd_vec3* positions, int wall, fd_vec3 x, double r, double reach);
void fd_world_book_wall_work(fd_world* world, double h);
void fd_world_free_walls(fd_world* world);
/* Drops body b's prescribed motion, if it has one (a removed wall). */
void fd_world_forget_wall_motion(fd_world* world, int b);
/* The neighbour list's range test of wall body `wall` (fd_wall_reach_test). */
fd_wall_reach fd_world_wall_reach(const fd_world* world, int wall);
void fd_world_free_meshes(fd_world* world); /* src/world/wall_bodies.c */


/* The world's per-body arrays (src/world/world_bodies.c), one row each in
 * the order of their stagger lanes (core/staggered.h: the row's index is its
 * lane, so the order sets where each array starts in its page): where the
 * pointer sits in fd_world, its element's size, and for a state the steppers
 * save before a step (position to torques), where its saved copy sits (0 for
 * the others). Growing, freeing and saving the bodies walk this table. */
typedef struct fd_body_array {
    size_t field;
    size_t element_size;
    size_t saved_field;
} fd_body_array;
enum { FD_BODY_ARRAY_COUNT = 23 };
extern const fd_body_array fd_body_arrays[FD_BODY_ARRAY_COUNT];
/* The array whose pointer sits at offset `field` of `world` (a row's field
 * or saved_field), and the pointer set. The pointer is copied as bytes: the
 * member is an fd_vec3*, a bool*, ..., never a void*, so reading or writing
 * it through a void** would break the aliasing rules the optimiser relies on. */
static inline void* fd_body_array_get(const fd_world* world, size_t field)
{
    void* data;
    memcpy(&data, (const char*)world + field, sizeof data);
    return data;
}
static inline void fd_body_array_set(fd_world* world, size_t field, void* data)
{
    memcpy((char*)world + field, &data, sizeof data);
}
/* Frees every per-body array (fd_world_free). */
void fd_world_free_body_arrays(fd_world* world);
/* The bodies' states and loads (the rows with a saved copy) copied into
 * their saved buffers (restore false), or back from them (restore true):
 * the complementarity stepper's rollback, the penalty stepper's rewind point. */
void fd_world_copy_states(fd_world* world, bool restore);

/* Slots of removed bodies (src/world/world_bodies.c). The slot the next body
 * takes (a removed body's, or body_count); fd_world_create_body fills it and
 * claims it on success, or puts the tombstone back on failure. */
int fd_world_next_slot(const fd_world* world);
void fd_world_claim_slot(fd_world* world, int b);
void fd_world_make_tombstone(fd_world* world, int b, uint32_t generation);
/* Takes body b's name out of the name index (world_bodies.c). */
void fd_world_forget_body_name(fd_world* world, int b);
/* The name store's blocks, freed with the world; the name index's bytes
 * (world_bodies.c). */
void fd_world_free_names(fd_world* world);
size_t fd_world_name_slot_bytes(const fd_world* world);

/* fd_body_is_valid, for the files of src/world/ beside world_bodies.c. */
static inline bool fd_world_holds(const fd_world* world, fd_body_id id)
{
    return id.index1 >= 1 && id.index1 <= world->body_count && world->generations[id.index1 - 1] == id.generation &&
           !world->is_removed[id.index1 - 1];
}

/* "'name' (#index)", or "#index" for an unnamed body, for messages. */
const char* fd_world_body_label(const fd_world* world, int body, char* text, size_t size);

/* The broad phase's views of the per-body arrays, set again wherever the
 * arrays may have moved (they grow with the bodies). */
static inline void fd_world_bind_broadphase(fd_world* world)
{
    fd_broadphase* bp = &world->broadphase;
    bp->radii = world->bounding_radii;
    bp->is_static = world->is_static;
    bp->is_wall = world->is_wall;
    bp->plane_normals = world->plane_normals;
    bp->is_removed = world->is_removed;
}

/* Body b's state, from the arrays per field, and back. */
static inline fd_body_state fd_world_state(const fd_world* world, int b)
{
    return (fd_body_state){world->position[b], world->orientation[b], world->velocity[b], world->angular_velocity[b]};
}
static inline void fd_world_put_state(fd_world* world, int b, const fd_body_state* state)
{
    world->position[b] = state->position;
    world->orientation[b] = state->orientation;
    world->velocity[b] = state->velocity;
    world->angular_velocity[b] = state->angular_velocity;
}

/* Stable steps (src/world/stability.c). At prepare: the critical time step
 * of the laws in use, what limits it, the warning when the step exceeds it,
 * and the blow-up test's radius. */
fd_status fd_world_estimate_critical_step(fd_world* world);
/* Appends a warning for fd_world_warning_at (at most 8 are kept). */
void fd_world_add_warning(fd_world* world, const char* text);
/* A sphere's radius, an ellipsoid's smallest semi-axis (m); infinity for a plane. */
double fd_shape_inner_radius(const fd_shape* shape);
/* After a step that found a non-finite value: an error (FD_ERR_NON_FINITE)
 * naming the body that caused it (a dynamic body's state, else the heaviest
 * dynamic body with a non-finite load, with its contact), or a contact with a
 * non-finite load; FD_OK when everything is finite. The positions before the
 * step are the saved buffers where the stepper kept them there
 * (state_before_kept), else x - h v (a step made in place; messages only). */
fd_status fd_world_check_finite(fd_world* world);
/* What a failed step's message says of the state it leaves (as above). */
const char* fd_world_state_left(const fd_world* world);
/* Whether the largest displacement of a body in the step (m^2) or the
 * widest turn (omega dt)^2 may hide a blow-up, worth fd_world_check_blow_up's
 * scan. */
bool fd_world_blow_up_suspected(const fd_world* world, double largest_step_squared, double widest_turn_squared);
/* The scan: FD_ERR_UNSTABLE naming the body that moved more than half its
 * radius (or turned its surface as far) in the step, from the positions
 * before it (as fd_world_check_finite finds them) to position, its deepest
 * contact, the step and the time; else FD_OK. */
fd_status fd_world_check_blow_up(const fd_world* world);
/* With the energy ledger: FD_ERR_UNSTABLE when the kinetic energy exceeds
 * twice what entered (docs/models/critical-step.md), naming the body that
 * holds most of it; else FD_OK (always with gravity along a periodic axis). */
fd_status fd_world_check_energy_gain(const fd_world* world);
/* The same test in two parts, for ranks that each hold some bodies
 * (src/parallel): the sums over the dynamic bodies whose `roles` entry is
 * `mine` (roles NULL: all), in index order; then, on the rank that keeps the ledger, the
 * verdict from every rank's sums (`whole`: the world holds the fastest
 * body's state and contacts, for the message). */
typedef struct fd_energy_gain_parts {
    double kinetic_translational, kinetic_rotational, gravitational, mass; /* J, J, J, kg */
    double largest;               /* J: the kinetic energy of the body that holds most */
    int fastest;                  /* that body, or -1 */
} fd_energy_gain_parts;
bool fd_world_energy_gain_checked(const fd_world* world);
fd_energy_gain_parts fd_world_energy_gain_parts(const fd_world* world, const uint8_t* roles, int mine);
fd_status fd_world_judge_energy_gain(const fd_world* world, const fd_energy_gain_parts* parts, bool whole);
/* What entered the world since it was prepared (J, fd_world_energy.entered)
 * with the bodies' gravitational energy now `gravitational`. */
double fd_world_entered_energy(const fd_world* world, double gravitational);
/* Ledger (src/world/ledger.c): the work over the step just taken of body
 * b's external load and of its locks (J); and their sum over the dynamic
 * bodies booked into the totals, as one process books them (a rank of
 * several keeps its bodies' terms instead: the penalty stepper's
 * book_step_work). */
void fd_world_body_step_work(const fd_world* world, int b, double h, double* external, double* constraint);
void fd_world_book_step_work(fd_world* world, double h);
/* What a step changes of the world's own bookkeeping (the next contact id,
 * the ledger's totals and springs' energy, the time and the step count),
 * kept by either stepper for its rollback (ledger.c). fd_world_begin_step
 * also clears the locks' work of the step to come. */
/* Records a change made from outside the steps (the field `changes`). */
static inline void fd_world_note_change(fd_world* world) { world->changes++; }
typedef struct fd_step_undo {
    uint64_t next_contact_id;
    fd_energy_totals energy_totals;
    double stored_energy[FD_MECHANISM_COUNT];
    double time;
    int64_t step_count;
} fd_step_undo;
fd_step_undo fd_world_begin_step(fd_world* world);
/* The same marks without clearing anything (the penalty stepper's rewind point). */
fd_step_undo fd_world_step_marks(const fd_world* world);
void fd_world_undo_step(fd_world* world, const fd_step_undo* undo);
/* What the ledger says should stay constant: mechanical energy plus the
 * springs' and the books' (ledger.c; docs/energy.md). */
double fd_world_ledger_balance(const fd_world_energy* energy);

/* Monotonic wall clock (s), for the profile. */
double fd_wall_seconds(void);

#endif
