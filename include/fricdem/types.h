/** @file
 * fricdem public types: value types, handles, definition structs.
 *
 * Units are SI throughout (m, kg, s, N, rad). Every "def" struct has a
 * fd_default_*_def() function that fills every field; the comment of each
 * field gives its meaning, unit and default. Creation functions check the def
 * and fail loudly (status code + fd_last_error()).
 *
 * Must not touch: anything below src/ (public declarations only). */
#ifndef FRICDEM_TYPES_H
#define FRICDEM_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status */

/** What a call of the API returns: FD_OK, or why it failed (the message
 * is in fd_last_error()). */
typedef enum fd_status {
    FD_OK = 0,               /**< success */
    FD_ERR_INVALID_ARGUMENT, /**< a def or argument is out of range or inconsistent */
    FD_ERR_NOT_FOUND,        /**< a name (material, model, parameter) is unknown */
    FD_ERR_UNSUPPORTED,      /**< a valid request the engine does not do (e.g. ellipsoid-ellipsoid) */
    FD_ERR_NON_FINITE,       /**< a step produced NaN or infinity; the world is left as before the step */
    FD_ERR_OUT_OF_MEMORY,    /**< an allocation failed; what was there before the call is kept */
    FD_ERR_IO,               /**< a file could not be read or written */
    FD_ERR_PARSE,            /**< a scene file is malformed or has a bad value */
    FD_ERR_UNSTABLE,         /**< a step blew up (time step above the critical one); the world is left as before it */
} fd_status;

/* ---------------------------------------------------------------- values */

/** A vector of three components in the frame and unit the field that holds
 * it names (m, m/s, N, ...). */
typedef struct fd_vec3 {
    double x; /**< first component */
    double y; /**< second component */
    double z; /**< third component */
} fd_vec3;

/** Unit quaternion w + x i + y j + z k; rotates body-frame vectors into the world frame. */
typedef struct fd_quat {
    double w; /**< scalar part */
    double x; /**< i component */
    double y; /**< j component */
    double z; /**< k component */
} fd_quat;

/* ---------------------------------------------------------------- handles
 * Small structs passed by value; zero is null. The generation catches a
 * handle kept past the life of what it names. */

/** A body of a world, by value (fd_world_create_body, fd_world_body_at). */
typedef struct fd_body_id {
    int32_t index1;      /**< 1 + index in the world; 0 = null */
    uint32_t generation; /**< of the slot: a handle to a removed body no longer matches it */
} fd_body_id;

/** A material of a world, by value (fd_world_create_material). */
typedef struct fd_material_id {
    int32_t index1;      /**< 1 + index in the world; 0 = null */
} fd_material_id;

/** Whether the handle is null (no body). */
static inline bool fd_body_id_is_null(fd_body_id id) { return id.index1 == 0; }
/** Whether the handle is null (no material). */
static inline bool fd_material_id_is_null(fd_material_id id) { return id.index1 == 0; }

/* ---------------------------------------------------------------- world */

/** The time integrator of the penalty stepper (src/body/body.h). */
typedef enum fd_integrator {
    /** Paper (Fang & Negrut Sec. 4): v1 = v0 + dt a0, x1 = x0 + dt v1,
     * orientation advanced with the new angular velocity. */
    FD_INTEGRATOR_SYMPLECTIC_EULER = 0,
    /** Kick-drift-kick velocity Verlet (second order). */
    FD_INTEGRATOR_VELOCITY_VERLET = 1,
} fd_integrator;

/** How a world advances: the penalty stepper (springs and dashpots at every
 * contact, explicit integration; the default), or the non-smooth stepper of
 * Tasora & Anitescu (rigid contacts, reactions from a cone complementarity
 * problem per step; docs/models/complementarity.md). */
typedef enum fd_stepper {
    FD_STEPPER_PENALTY = 0,         /**< springs and dashpots, explicit integration */
    FD_STEPPER_COMPLEMENTARITY = 1, /**< rigid contacts, Tasora & Anitescu's cone complementarity problem */
} fd_stepper;

/** Iterative solvers of the cone complementarity problem (Tasora & Anitescu
 * Eq. 40-42). Jacobi and Gauss-Seidel are the fixed-point iteration Eq. (46)
 * with K = 0 and with K the lower block triangle of omega B N. */
typedef enum fd_solver_method {
    FD_SOLVER_APGD = 0,         /**< accelerated projected gradient descent (Nesterov, with restart) */
    FD_SOLVER_JACOBI = 1,       /**< Eq. (46), K = 0: every contact from the previous iterate (parallel) */
    FD_SOLVER_GAUSS_SEIDEL = 2, /**< Eq. (46), K lower triangular: contacts in turn, each from the newest */
} fd_solver_method;

/** Settings of the complementarity stepper; 0 in any field means its default. */
typedef struct fd_complementarity_def {
    fd_solver_method solver;  /**< default FD_SOLVER_APGD */
    int max_iterations;       /**< per step; default 200 */
    double tolerance;         /**< m/s: stop when the residual (docs/models/complementarity.md) is below; default 1e-6 */
    double omega;             /**< Eq. (46) step omega (Jacobi, Gauss-Seidel); default 0.3 for Jacobi, 1 for Gauss-Seidel */
    double lambda;            /**< Eq. (46) relaxation lambda in (0, 1]; default 1 */
    double recovery_speed;    /**< m/s: bound on the speed Phi/h pushes penetrating bodies apart; default 0.1 */
    bool cold_start;          /**< true: start every step from zero reactions; default false (warm start from the
                               * previous step's reactions of the same contacts) */
} fd_complementarity_def;

/** Which force passes of the penalty stepper record the full contact details
 * (geometry, loads, model columns) that fd_world_get_contact returns. A pass
 * that does not record still computes every load; it keeps only what the
 * next step needs, which is what makes it fast. */
typedef enum fd_contact_output {
    FD_CONTACT_OUTPUT_EVERY_STEP = 0, /**< every pass (default) */
    FD_CONTACT_OUTPUT_ON_REQUEST = 1, /**< only the pass after fd_world_request_contacts (the CLI's choice: it asks
                                       * before the steps whose contacts it writes out); one set of records,
                                       * written in place: after a step that failed, no details until a
                                       * requested step succeeds (with EVERY_STEP the last good step's stay) */
} fd_contact_output;

/** How a world is made (fd_world_create); fd_default_world_def() fills
 * every field. */
typedef struct fd_world_def {
    fd_vec3 gravity;         /**< m/s^2; default (0, 0, -9.81) */
    double time_step;        /**< s; default 1e-4 (the paper's Sec. 4 step); must be > 0 */
    fd_integrator integrator;/**< default FD_INTEGRATOR_SYMPLECTIC_EULER */
    /** A pair is a contact while its penetration exceeds -contact_margin (m).
     * Default 0: touching means overlap >= 0. Models with a prescribed normal
     * force rest at zero overlap and want a small positive margin. */
    double contact_margin;
    /** Broad-phase cell size (m); 0 (default) = largest bounding diameter. */
    double cell_size;
    int thread_count;        /**< OpenMP threads for per-contact and per-body loops; default 1 */
    fd_stepper stepper;      /**< default FD_STEPPER_PENALTY */
    fd_complementarity_def complementarity; /**< used by FD_STEPPER_COMPLEMENTARITY */
    /** Periodic boundaries, per world axis x, y, z (default: none periodic).
     * Along a periodic axis the world repeats with period box_max - box_min
     * (m): dynamic bodies are wrapped into [box_min, box_max) after every
     * drift, and a pair touches through the nearest image of body j (the
     * minimum image). box_min and box_max (m) are used on periodic axes only,
     * where box_max > box_min is required; fd_world_prepare requires each
     * periodic length >= 2 (largest bounding diameter + contact_margin), and
     * a plane's normal must be perpendicular to every periodic axis.
     * docs/design.md, "Periodic boundaries". */
    bool periodic[3];
    fd_vec3 box_min;         /**< m; default 0 */
    fd_vec3 box_max;         /**< m; default 0 */
    /** Penalty stepper: pairs within contact_margin + neighbor_skin are kept
     * in a neighbour list, rebuilt when a body has moved half the skin since
     * the last build (m; default 0 = 0.1 x the smallest bounding diameter;
     * results do not depend on it, only the cost does). */
    double neighbor_skin;
    /** Keep the energy ledger: the global balance of fd_world_get_energy
     * (docs/energy.md). Default false: without it fd_world_get_energy gives
     * the kinetic and potential energies only. */
    bool energy_ledger;
    /** With the ledger, the penalty stepper also keeps each contact's own
     * books over its life (fd_contact_view.energy: dashpot, slip, created
     * and work since the contact began), which costs reading and writing
     * them for every contact at every step. Default false: the world's
     * totals, and each contact's stored energy only (its other books read
     * 0). The scene loader sets it when an output writes contacts' books
     * (contacts.csv, the trajectory's contacts). */
    bool contact_energy_books;
    /** Raise contact events (fd_world_events) after each force pass; default false. */
    bool events;
    /** The contact arms LAMMPS uses, for decks that must give LAMMPS's numbers
     * to round-off with spinning spheres (docs/lammps.md): a pair's sliding
     * velocity from the full radii, v_i - v_j - (R_i w_i + R_j w_j) x n, its
     * torques at R - delta/2; a plane's contact taken at R, velocity and
     * torque. Default false: both at the midpoint of the two surfaces
     * (R - delta/2), one point for the work and the spring, so the contact's
     * power balances exactly (docs/design.md). Applies to the sphere kernels
     * (the laws LAMMPS has: hooke, hertz with the sliders), and to a sphere
     * against any static wall (a cylinder, disk, box or mesh; a plane under
     * the other laws): the contact at R and LAMMPS's fix wall/gran
     * R_eff = R rwall / (R + rwall), rwall = 2 / the wall's curvature across
     * (-2 Rc inside a cylinder; R on a flat face). */
    bool lammps_arms;
    /** With lammps_arms: a pair's torques at the full radii too, as LAMMPS's
     * legacy gran/hooke, gran/hooke/history and gran/hertz/history apply them
     * (pair granular applies them at R - delta/2). Default false. */
    bool lammps_legacy_torque;
    fd_contact_output contact_output; /**< default FD_CONTACT_OUTPUT_EVERY_STEP */
} fd_world_def;

/* ---------------------------------------------------------------- materials */

/** A material (fd_world_create_material); fd_default_material_def() fills
 * every field. */
typedef struct fd_material_def {
    const char* name;        /**< required, unique in the world; copied */
    double density;          /**< kg/m^3; default 1000; used when a body gives no mass */
    double youngs_modulus;   /**< Pa; default 0 (unset); needed by Hertz-type models */
    double poisson_ratio;    /**< -; default 0.3; in [-1, 0.5) */
} fd_material_def;

/* ---------------------------------------------------------------- contact laws
 * A contact law is composed of sub-models, one per mechanism, each chosen by
 * name from the registry (fd_model_*), each with its own parameters given by
 * name. Unknown names are errors, never ignored. */

/** The four mechanisms of a contact law; each has its sub-model. */
typedef enum fd_mechanism {
    FD_MECHANISM_NORMAL = 0,  /**< normal force (overlap spring and dashpot, or a prescribed force) */
    FD_MECHANISM_SLIDE = 1,   /**< tangential (sliding) friction force */
    FD_MECHANISM_ROLL = 2,    /**< rolling resistance torque */
    FD_MECHANISM_SPIN = 3,    /**< spinning (twisting) resistance torque */
    FD_MECHANISM_COUNT = 4,   /**< how many there are */
} fd_mechanism;

/** The most parameters one sub-model of a law may be given. */
#define FD_MAX_SUBMODEL_PARAMS 24

/** One parameter of a sub-model, by name (fd_model_info lists them). */
typedef struct fd_param {
    const char* name;        /**< parameter name from the sub-model's table */
    double value;            /**< in the unit the table gives */
} fd_param;

/** The sub-model of one mechanism of a law, with its parameters. */
typedef struct fd_submodel_def {
    const char* model;       /**< registry name; NULL or "none" = no such mechanism */
    fd_param params[FD_MAX_SUBMODEL_PARAMS]; /**< the parameters given; the others take their defaults */
    int param_count;         /**< how many of params are given */
} fd_submodel_def;

/** A contact law: one sub-model per mechanism (fd_world_set_contact_law). */
typedef struct fd_contact_law_def {
    fd_submodel_def submodel[FD_MECHANISM_COUNT]; /**< indexed by fd_mechanism */
} fd_contact_law_def;

/* ---------------------------------------------------------------- shapes and bodies */

/** The shape of a body. */
typedef enum fd_shape_type {
    FD_SHAPE_SPHERE = 0,     /**< a sphere of shape.radius */
    FD_SHAPE_PLANE = 1,      /**< half-space; static bodies only */
    FD_SHAPE_ELLIPSOID = 2,  /**< an ellipsoid of shape.semi_axes */
    /* Finite walls (static bodies only; docs/walls.md): thin two-sided
     * sheets, one contact per sphere and wall body. */
    FD_SHAPE_CYLINDER = 3,   /**< cylindrical shell: axis body z through the position, radius, length */
    FD_SHAPE_DISK = 4,       /**< disk or annulus in the body's z = offset plane: inner_radius <= rho <= radius */
    FD_SHAPE_MESH = 5,       /**< one patch of a triangle mesh (fd_mesh), vertices in the body frame */
} fd_shape_type;

/** A triangle mesh, immutable once built (fd_mesh_read_stl, fd_mesh_create),
 * split into patches at sharp edges; each patch is one wall body. */
typedef struct fd_mesh fd_mesh;

/** A body's shape; the fields each type reads are marked. */
typedef struct fd_shape_def {
    fd_shape_type type;      /**< default FD_SHAPE_SPHERE */
    double radius;           /**< sphere, cylinder and disk (outer) radius, m; default 0 (must be set) */
    fd_vec3 semi_axes;       /**< ellipsoid semi-axes a, b, c along body x, y, z, m */
    /** Plane: outward normal in the body frame (the solid is on the other side);
     * the plane passes through the body position. Default (0, 0, 1). */
    fd_vec3 plane_normal;
    double length;           /**< cylinder: along body z, centred on the position, m */
    bool capped;             /**< cylinder: its rims belong to end caps (disk bodies of the same wall,
                              * fd_world_create_wall), so the shell leaves rim contacts to them */
    double inner_radius;     /**< disk: 0 for a full disk, m */
    double offset;           /**< disk: its plane is body z = offset, m (the caps of a cylinder: +-length/2) */
    int cap_of_shell;        /**< disk: +1 or -1 when it caps a shell lying on that side of its plane along
                              * body z (an outer-rim contact on that side is the shell's); 0 otherwise */
    const fd_mesh* mesh;     /**< mesh: not owned by the body (fd_world_adopt_mesh) */
    int mesh_patch;          /**< mesh: the patch (0 .. fd_mesh_patch_count - 1) */
} fd_shape_def;

/** Whether a body moves. */
typedef enum fd_body_type {
    FD_BODY_DYNAMIC = 0,     /**< moves under its loads */
    FD_BODY_STATIC = 1,      /**< never moves; infinite mass */
} fd_body_type;

/** Axis-lock bits, for lock_translation and lock_rotation. The axes are those
 * of lock_frame (default: the world axes). */
enum {
    FD_LOCK_X = 1u << 0, /**< the first axis of lock_frame */
    FD_LOCK_Y = 1u << 1, /**< the second axis */
    FD_LOCK_Z = 1u << 2, /**< the third axis */
};

/** How a body is made (fd_world_create_body, fd_world_create_wall);
 * fd_default_body_def() fills every field. */
typedef struct fd_body_def {
    const char* name;        /**< optional; copied; used in messages and output */
    fd_body_type type;       /**< default FD_BODY_DYNAMIC */
    fd_shape_def shape;      /**< default a sphere of radius 0 (must be set) */
    fd_material_id material; /**< required */
    fd_vec3 position;        /**< m, world; default 0 */
    fd_quat orientation;     /**< unit quaternion, body to world; default identity */
    fd_vec3 velocity;        /**< m/s, world; default 0 */
    fd_vec3 angular_velocity;/**< rad/s, world frame; default 0 */
    double mass;             /**< kg; default 0 = density * volume */
    fd_vec3 inertia;         /**< principal moments in the body frame, kg m^2; default 0 = from shape and mass */
    uint32_t lock_translation; /**< FD_LOCK_* bits: velocity components held at their initial value */
    uint32_t lock_rotation;    /**< FD_LOCK_* bits: angular velocity components held at their initial value */
    fd_quat lock_frame;      /**< frame whose axes the locks refer to; default identity (world axes) */
    fd_vec3 external_force;  /**< N, world, applied at the centre every step; default 0 */
    fd_vec3 external_torque; /**< N m, world, applied every step; default 0 */
    /** Complementarity stepper only: generalized friction on the body's
     * translation along friction_axis (world, unit), a force |F| <= friction_force
     * (N) opposing motion along it, set-valued like Coulomb's (the seal
     * friction of Tasora & Anitescu Sec. 6.2). Default 0 = none. */
    fd_vec3 friction_axis;
    double friction_force;   /**< N; the bound of that friction (see friction_axis) */
} fd_body_def;

/** The kinematic state of a body. */
typedef struct fd_body_state {
    fd_vec3 position;        /**< m */
    fd_quat orientation;     /**< body to world */
    fd_vec3 velocity;        /**< m/s */
    fd_vec3 angular_velocity;/**< rad/s, world frame */
} fd_body_state;

/** What a body is (fd_body_get_info). */
typedef struct fd_body_info {
    const char* name;        /**< "" if none was given */
    fd_body_type type;       /**< dynamic or static */
    fd_shape_def shape;      /**< as made */
    fd_material_id material; /**< its material */
    double mass;             /**< kg (0 for static) */
    fd_vec3 inertia;         /**< principal, body frame, kg m^2 */
    double bounding_radius;  /**< m; infinity for planes */
    fd_body_id wall;         /**< the first body of the wall it belongs to (fd_world_create_wall: the shell of a
                              * capped cylinder, the first patch of a mesh); itself for any other body */
} fd_body_info;

/** Prescribed motion of a static body (a wall: a plane, a drum, a gate), set
 * by fd_world_set_wall_motion (docs/walls.md). With tau = t - t0, t0 the later
 * of start_time and the time of the call, and the pose at the call as the
 * reference (x_ref, q_ref):
 *   x(t) = x_ref + velocity g(tau, velocity_ramp) + amplitude sin(2 pi frequency tau)
 *   q(t) = rotation about angular_velocity's axis by |angular_velocity| g(tau, angular_velocity_ramp), then q_ref
 * where g(tau, T) = tau^2 / (2 T) while tau < T (the speed ramps up linearly
 * over T), tau - T / 2 after (g = tau for T = 0): a closed form of t, so a
 * wall never drifts and a resumed run moves it to the same bits. The wall
 * rotates about its own position (a drum about its axis through it). Its
 * velocity and angular velocity are the derivatives; they enter every contact
 * law through the relative velocity at the contact point. */
typedef struct fd_wall_motion {
    fd_vec3 velocity;              /**< m/s, world; default 0 */
    double velocity_ramp;          /**< s; time to reach velocity; default 0 (at once) */
    fd_vec3 amplitude;             /**< m, world; sinusoidal displacement; default 0 */
    double frequency;              /**< Hz; of the sinusoid; default 0 */
    fd_vec3 angular_velocity;      /**< rad/s, world; axis through the wall's position; default 0 */
    double angular_velocity_ramp;  /**< s; time to reach angular_velocity; default 0 (at once) */
    double start_time;             /**< s; the wall rests until then; default 0 */
} fd_wall_motion;

/** What the contacts did to a static body in the last force pass: the sum of
 * their forces on it and of their torques about its position (the drive
 * torque of a drum, the force on a gate), and the power it gives the bodies
 * it moves, -(F . v + T . omega). */
typedef struct fd_wall_reaction {
    fd_vec3 force;                 /**< N, world */
    fd_vec3 torque;                /**< N m, world, about the body's position */
    double power;                  /**< W, given to the other bodies (0 for a wall at rest) */
} fd_wall_reaction;

/* ---------------------------------------------------------------- inlets
 * An inlet pours spheres into a running world: at the rate it is given, from
 * its start time, until it has inserted its count, each at a random place in
 * its region that overlaps no body (docs/inlets.md). */

/** The region an inlet places its spheres in. */
typedef enum fd_inlet_shape {
    FD_INLET_DISK = 0,       /**< a disk (optionally thick: a short cylinder), e.g. the outlet of a funnel */
    FD_INLET_BOX = 1,        /**< an axis-aligned box */
} fd_inlet_shape;

/** The most sphere sizes one inlet may pour. */
#define FD_INLET_MAX_SIZES 16

/** An inlet (fd_world_add_inlet); fd_default_inlet_def() fills every field. */
typedef struct fd_inlet_def {
    /** Required, unique among the world's inlets; copied. The spheres are
     * named "<name>.<k>", k = 0, 1, ... in order of insertion. */
    const char* name;
    fd_material_id material; /**< required; the spheres' mass is density x volume */
    /** Radii. Without sizes (size_count = 0): uniform in radius [1 - s, 1 + s],
     * s = radius_spread (number-weighted). */
    double radius;           /**< m; default 0 (must be > 0 when size_count = 0) */
    double radius_spread;    /**< -; default 0; in [0, 0.9] */
    /** With sizes (size_count in 1..FD_INLET_MAX_SIZES): size_radius[i] with
     * probability size_fraction[i] / sum (number fractions). */
    int size_count;          /**< default 0 */
    double size_radius[FD_INLET_MAX_SIZES];   /**< m, each > 0 */
    double size_fraction[FD_INLET_MAX_SIZES]; /**< -, each >= 0, sum > 0 */
    /** Region. A sphere of radius r is centred within disk_radius - r of the
     * disk's axis and within thickness / 2 of its plane, or at least r inside
     * every face of the box: it never sticks out sideways. */
    fd_inlet_shape shape;    /**< default FD_INLET_DISK */
    fd_vec3 center;          /**< disk centre, m; default 0 */
    double disk_radius;      /**< m; default 0 (must be >= the largest sphere radius) */
    fd_vec3 normal;          /**< disk normal (normalised; its sign does not matter); default (0, 0, 1) */
    double thickness;        /**< m, extent of the region along the normal, centred on the disk; default 0 */
    fd_vec3 box_min;         /**< m; box corners: box_max - box_min >= 2 x the largest radius on each axis */
    fd_vec3 box_max;         /**< m; see box_min */
    /** Schedule: after the step that reaches time t, the inlet has inserted
     * min(count, floor(rate (t - start_time))) spheres, unless its region was
     * too full (then the rest follow as soon as they fit, and
     * fd_world_get_inlet_info reports the delay and the shortfall). */
    double rate;             /**< spheres per second; > 0 */
    int64_t count;           /**< total number of spheres; >= 1 */
    double start_time;       /**< s; default 0 */
    fd_vec3 velocity;        /**< m/s, world, initial velocity of every sphere; default 0 */
    double velocity_spread;  /**< m/s; each velocity component gets a uniform draw in [-spread, spread]; default 0 */
    uint64_t seed;           /**< Philox-4x64 key: the same seed gives bitwise the same spheres; default 1 */
    int max_attempts;        /**< placements tried per sphere per step before it waits for the next step; default 100 */
    /** m; a place is taken only with a gap of contact_margin + clearance to
     * every body; default 0. At least 1.5 x the neighbour skin lets the
     * neighbour list stand while spheres pour in (docs/inlets.md: a pour of
     * 10^6 spheres otherwise rebuilds it every step). */
    double clearance;
} fd_inlet_def;

/** What an inlet has done so far (fd_world_get_inlet_info). */
typedef struct fd_inlet_info {
    const char* name;        /**< "" when the index is out of range */
    int64_t count;           /**< total to insert */
    int64_t inserted;        /**< inserted so far */
    int64_t due;             /**< due by now: min(count, floor(rate (t - start_time))) */
    int64_t delayed;         /**< spheres inserted after the step they were due at (the region was full) */
    double max_delay;        /**< s, the longest such delay (0 if none) */
    int64_t rejected;        /**< placements rejected because the sphere would have overlapped a body */
    fd_vec3 bounds_min;      /**< m, box around the region */
    fd_vec3 bounds_max;      /**< m, see bounds_min */
} fd_inlet_info;

/* ---------------------------------------------------------------- outlets
 * An outlet takes bodies out of a running world: after each step, every
 * dynamic body whose centre lies in its region is removed
 * (fd_world_remove_body), e.g. the grains that leave a silo
 * (docs/outlets.md). */

/** The region an outlet takes bodies from. */
typedef enum fd_outlet_shape {
    FD_OUTLET_BOX = 0,        /**< an axis-aligned box */
    FD_OUTLET_HALF_SPACE = 1, /**< everything on the side of a plane its normal points away from */
    FD_OUTLET_SPHERE = 2,     /**< a ball */
} fd_outlet_shape;

/** An outlet (fd_world_add_outlet); fd_default_outlet_def() fills every field. */
typedef struct fd_outlet_def {
    const char* name;        /**< required, unique among the world's outlets; copied */
    fd_outlet_shape shape;   /**< default FD_OUTLET_BOX */
    /** Box: a centre c with box_min <= c <= box_max on every axis (m; finite,
     * box_max > box_min on each axis). */
    fd_vec3 box_min;
    fd_vec3 box_max;         /**< m; see box_min */
    /** Half-space: a centre c with (c - point) . normal < 0, i.e. below the
     * plane through `point` whose `normal` points towards the bodies that
     * stay (a floor's normal points up). normal is normalised; default (0, 0, 1). */
    fd_vec3 point;           /**< m */
    fd_vec3 normal;          /**< unit (normalised when set); see point */
    /** Sphere: a centre c with |c - center| < radius. */
    fd_vec3 center;          /**< m */
    double radius;           /**< m; > 0 */
    double start_time;       /**< s; the outlet removes bodies after the steps that reach it; default 0 */
} fd_outlet_def;

/** What an outlet has removed so far (fd_world_get_outlet_info). */
typedef struct fd_outlet_info {
    const char* name;        /**< "" when the index is out of range */
    int64_t removed;         /**< bodies removed */
    double removed_mass;     /**< kg, their mass */
} fd_outlet_info;

/* ---------------------------------------------------------------- contacts */

/** Geometry of one contact at the current step, as Fang & Negrut Sec. 2 needs it.
 * Index i is the body with the lower index (paper convention, i < j). */
typedef struct fd_contact_geometry {
    fd_vec3 point_i;         /**< contact point on body i's surface, world, m */
    fd_vec3 point_j;         /**< contact point on body j's surface, world, m */
    fd_vec3 local_point_i;   /**< point_i in body i's frame (the "painted" cross), m */
    fd_vec3 local_point_j;   /**< point_j in body j's frame (the "painted" dot), m */
    fd_vec3 normal;          /**< unit normal at the contact, pointing into body i */
    double penetration;      /**< overlap along the normal, m; > 0 when overlapping */
    /** Principal curvatures (1/m; positive = convex, 0 = flat) and their unit
     * directions (world, in the tangent plane) of each surface at its point. */
    double curvature_i[2];
    double curvature_j[2];       /**< 1/m, body j's surface; see curvature_i */
    fd_vec3 principal_dir_i[2];  /**< unit, world: body i's directions of curvature_i */
    fd_vec3 principal_dir_j[2];  /**< unit, world: body j's directions of curvature_j */
    /** Hertz effective radius 1 / (2 sqrt(A B)) (Johnson, Contact Mechanics
     * Sec. 4.1), m; infinity when both surfaces are flat. */
    double effective_radius;
} fd_contact_geometry;

/** Loads of one contact at the current step. Forces act at the contact point. */
typedef struct fd_contact_loads {
    double normal_force;     /**< N; pushes body i along +normal, body j along -normal; >= 0 except with
                              * pfc_linear in a full-dashpot mode, where the manual lets the dashpot pull,
                              * and hooke with limit_damping = 0 (LAMMPS without limit_damping) */
    fd_vec3 slide_force;     /**< N, world; tangential friction force on body i (body j gets the opposite) */
    fd_vec3 roll_torque_i;   /**< N m, world; rolling-resistance torque on body i */
    fd_vec3 roll_torque_j;   /**< N m, world; rolling-resistance torque on body j (need not be -roll_torque_i) */
    fd_vec3 spin_torque_i;   /**< N m, world; spin torque on body i */
    fd_vec3 spin_torque_j;   /**< N m, world; spin torque on body j */
    fd_vec3 force_on_i;      /**< N, world; total force on body i (normal + slide) */
} fd_contact_loads;

/** The energy books of one mechanism of one contact (J), the per-contact part
 * of the energy ledger (docs/energy.md). Increments computed when the loads
 * are evaluated are booked over the step that applies those loads. */
typedef struct fd_energy_books {
    double stored;           /**< J in the mechanism's springs now */
    double dashpot;          /**< J dissipated by its dashpots, summed over the contact's life (>= 0) */
    double slip;             /**< J dissipated by slip (sliding, rolling or twisting), summed (>= 0) */
    double created;          /**< J created by the update rule itself (the D-SDS spring reset), summed (>= 0) */
    double work;             /**< J done on the bodies by a prescribed force (the 'prescribed' normal model), summed */
} fd_energy_books;

/** A contact event (the PFC manual's callback events, Table 4), delivered
 * after each force pass by fd_world_events. */
typedef enum fd_event_type {
    FD_EVENT_CONTACT_ACTIVATED = 0, /**< a contact began (PFC contact_activated) */
    FD_EVENT_SLIP_STARTED = 1,      /**< a mechanism went from stick to slip (PFC slip_change, mode 0) */
    FD_EVENT_SLIP_ENDED = 2,        /**< back from slip to stick (slip_change, mode 1) */
} fd_event_type;

/** One contact event (fd_world_events). */
typedef struct fd_contact_event {
    fd_event_type type;      /**< what happened */
    fd_mechanism mechanism;  /**< slide, roll or spin for slip events; normal for an activation */
    uint64_t contact_id;     /**< fd_contact_view.id */
    fd_body_id body_i;       /**< the contact's lower-index body */
    fd_body_id body_j;       /**< the other body */
    int64_t step;            /**< step whose force pass raised it (0 for the pass of fd_world_prepare) */
    double time;             /**< s */
} fd_contact_event;

/** One contact after the last step (fd_world_get_contact). */
typedef struct fd_contact_view {
    uint64_t id;             /**< persistent identity: kept while the bodies stay in touch */
    fd_body_id body_i;       /**< lower-index body */
    fd_body_id body_j;       /**< higher-index body */
    int64_t first_step;      /**< step at which this contact began */
    fd_contact_geometry geometry; /**< where and how the bodies touch */
    fd_contact_loads loads;  /**< what the law applies */
    /** m; added to body j's position to give the image of body j that touches
     * body i (nonzero only across a periodic face). The geometry is given
     * near body i: point_j lies on that image, and the arms of the loads on
     * body j are taken from it (fd_world_def.periodic). */
    fd_vec3 image_offset;
    const double* columns;   /**< model output columns (fd_world_contact_column_name) */
    int column_count;        /**< length of columns */
    fd_energy_books energy[FD_MECHANISM_COUNT]; /**< per mechanism (fd_mechanism) */
} fd_contact_view;

#ifdef __cplusplus
}
#endif
#endif
