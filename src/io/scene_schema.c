/* The scene format as data: one table per YAML mapping, one row per key
 * {name, type, unit, doc, flags, range, offset, default} (the REBOUND
 * parameter-table idea). The same rows drive
 *   - parsing: fd_scene_parse_map walks a mapping node and fills a struct;
 *   - validation messages: unknown keys (with "did you mean"), wrong types,
 *     ranges and missing required keys, all worded from the row;
 *   - the reference in docs/scene-format.md (fd_scene_write_reference; a test
 *     checks that the file holds exactly what the tables say).
 * What a single row cannot say (a key valid only for one shape type, names
 * that must exist or be unique) is checked in scene.c after parsing.
 * Contact sub-model parameters are not in these tables: they come from the
 * model registry (fd_model_find and its fd_param_info table) at run time. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/scene_internal.h"

/* ---------------------------------------------------------------- tables */

/* KEYS, CHECK_KEYS and the ranges ANY, GT0, ... are in scene_internal.h. */

static const char* const integrator_names[] = {"symplectic_euler", "velocity_verlet", NULL};
static const char* const stepper_names[] = {"penalty", "complementarity", NULL};
static const char* const solver_names[] = {"apgd", "jacobi", "gauss_seidel", NULL};
static const char* const vtu_format_names[] = {"binary", "ascii", NULL};
static const char* const trajectory_compression_names[] = {"deflate", "none", NULL};
/* In fd_direct_io's order (fricdem/io.h). */
static const char* const direct_io_names[] = {"auto", "always", "never", NULL};
static const char* const shape_names[] = {"sphere", "plane", "ellipsoid", "cylinder", "disk", "box", "mesh", NULL};
static const char* const bodies_file_formats[] = {"auto", "csv", "hdf5", NULL};
static const char* const generator_names[] = {"lattice", "random", NULL};

static const fd_scene_key time_keys[] = {
    {.name = "step",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time step",
     .flags = FD_SCENE_REQUIRED,
     .range = GT0,
     .offset = offsetof(fd_scene_time, step)},
    {.name = "duration",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "simulated time to run; the run takes round(duration / step) steps, at most 2^53; with stages, "
            "optional: a cap on the stages' total",
     .range = GE0,
     .offset = offsetof(fd_scene_time, duration)},
    {.name = "integrator",
     .type = FD_SCENE_ENUM,
     .doc = "time integrator (see docs/api.md)",
     .offset = offsetof(fd_scene_time, integrator),
     .choices = integrator_names,
     .def = {0}},
};
CHECK_KEYS(time_keys);
const fd_scene_table fd_scene_time_table = {"time", "Time stepping (required).", KEYS(time_keys), sizeof(fd_scene_time),
                                            offsetof(fd_scene_time, seen)};

static const fd_scene_key box_keys[] = {
    {.name = "min",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "lower corner",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_region, min)},
    {.name = "max",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "upper corner (each component > min); along a periodic axis the period is max - min",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_region, max)},
};
CHECK_KEYS(box_keys);
const fd_scene_table fd_scene_box_table = {
    "world.box",
    "Periodic box (with `world.periodic`). Each period must be at least 2 x (largest bounding diameter + "
    "contact_margin), so that a body touches at most one image of another; a plane must have its normal "
    "perpendicular to every periodic axis.",
    KEYS(box_keys), sizeof(fd_scene_region), offsetof(fd_scene_region, seen)};

static const fd_scene_key world_keys[] = {
    {.name = "gravity",
     .type = FD_SCENE_VEC3,
     .unit = "m/s^2",
     .doc = "gravitational acceleration",
     .range = ANY,
     .offset = offsetof(fd_scene_world, gravity),
     .def = {0, 0, -9.81}},
    {.name = "contact_margin",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "a pair is a contact while its penetration exceeds -contact_margin",
     .range = GE0,
     .offset = offsetof(fd_scene_world, contact_margin)},
    {.name = "cell_size",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "broad-phase cell size; 0 = the largest bounding diameter",
     .range = GE0,
     .offset = offsetof(fd_scene_world, cell_size),
     .def_text = "0 (auto)"},
    {.name = "neighbor_skin",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "penalty stepper: pairs within contact_margin + neighbor_skin are kept in a neighbour list, rebuilt "
            "when a body has moved half the skin; only the cost depends on it; 0 = a tenth of the smallest diameter",
     .range = GE0,
     .offset = offsetof(fd_scene_world, neighbor_skin),
     .def_text = "0 (auto)"},
    {.name = "energy_ledger",
     .type = FD_SCENE_BOOL,
     .doc = "keep the energy ledger (docs/energy.md): per-contact books and the global balance; on whenever "
            "output.energy_csv is",
     .offset = offsetof(fd_scene_world, energy_ledger),
     .def = {0}},
    {.name = "lammps_arms",
     .type = FD_SCENE_BOOL,
     .doc = "LAMMPS's contact arms, for decks that must give its numbers with spinning spheres: a pair's sliding "
            "velocity from the full radii, its torques at R - delta/2, a plane's contact at R; false: both at the "
            "midpoint of the surfaces (the contact's power balances); sphere kernels, and a sphere against a "
            "cylinder, disk, box or mesh wall: the contact at R, LAMMPS's R_eff = R rwall / (R + rwall), rwall = "
            "2 / curvature (docs/lammps.md)",
     .offset = offsetof(fd_scene_world, lammps_arms),
     .def = {0}},
    {.name = "lammps_legacy_torque",
     .type = FD_SCENE_BOOL,
     .doc = "with lammps_arms: a pair's torques at the full radii, as LAMMPS's legacy gran/hooke, gran/hooke/history "
            "and gran/hertz/history apply them (pair granular: R - delta/2); sphere kernels only (docs/lammps.md)",
     .offset = offsetof(fd_scene_world, lammps_legacy_torque),
     .def = {0}},
    {.name = "threads",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "OpenMP threads",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 1, 4096},
     .offset = offsetof(fd_scene_world, threads),
     .def = {1}},
    {.name = "stepper",
     .type = FD_SCENE_ENUM,
     .doc = "penalty: springs at contacts, explicit steps; complementarity: rigid contacts, friction cones, a cone "
            "complementarity problem per step (docs/models/complementarity.md; contacts take the 'rigid' model)",
     .offset = offsetof(fd_scene_world, stepper),
     .choices = stepper_names},
    {.name = "periodic",
     .type = FD_SCENE_AXES,
     .doc = "periodic axes (needs `box`): bodies wrap into the box, pairs touch through the nearest image",
     .offset = offsetof(fd_scene_world, periodic),
     .def_text = "[] (none)"},
    {.name = "box",
     .type = FD_SCENE_MAP,
     .doc = "the periodic box (see below); only with `periodic`",
     .offset = offsetof(fd_scene_world, box),
     .sub = &fd_scene_box_table,
     .def_text = "none"},
};
CHECK_KEYS(world_keys);
const fd_scene_table fd_scene_world_table = {"world", "World settings (optional block).", KEYS(world_keys),
                                             sizeof(fd_scene_world), offsetof(fd_scene_world, seen)};

static const fd_scene_key solver_keys[] = {
    {.name = "method",
     .type = FD_SCENE_ENUM,
     .doc = "solver of the cone complementarity problem: apgd (accelerated projected gradient), jacobi or "
            "gauss_seidel (the fixed-point iteration Eq. 46)",
     .offset = offsetof(fd_scene_solver, method),
     .choices = solver_names},
    {.name = "max_iterations",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "iterations per step at most",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 1, 1e9},
     .offset = offsetof(fd_scene_solver, max_iterations),
     .def = {200}},
    {.name = "tolerance",
     .type = FD_SCENE_NUMBER,
     .unit = "m/s",
     .doc = "stop when the residual (largest constraint velocity error) is below",
     .range = GT0,
     .offset = offsetof(fd_scene_solver, tolerance),
     .def = {1e-6}},
    {.name = "omega",
     .type = FD_SCENE_NUMBER,
     .unit = "-",
     .doc = "step omega of Eq. (46) (jacobi, gauss_seidel); 0 = 0.3 for jacobi, 1 for gauss_seidel",
     .range = GE0,
     .offset = offsetof(fd_scene_solver, omega),
     .def_text = "0 (auto)"},
    {.name = "lambda",
     .type = FD_SCENE_NUMBER,
     .unit = "-",
     .doc = "relaxation lambda of Eq. (46), in (0, 1]",
     .range = {FD_SCENE_EXCLUSIVE, FD_SCENE_INCLUSIVE, 0, 1},
     .offset = offsetof(fd_scene_solver, lambda),
     .def = {1}},
    {.name = "recovery_speed",
     .type = FD_SCENE_NUMBER,
     .unit = "m/s",
     .doc = "fastest speed at which the stabilisation Phi/h pushes penetrating bodies apart",
     .range = GT0,
     .offset = offsetof(fd_scene_solver, recovery_speed),
     .def = {0.1}},
    {.name = "warm_start",
     .type = FD_SCENE_BOOL,
     .doc = "start each step from the previous step's reactions of the same contacts",
     .offset = offsetof(fd_scene_solver, warm_start),
     .def = {1}},
};
CHECK_KEYS(solver_keys);
const fd_scene_table fd_scene_solver_table = {"solver", "The complementarity stepper's solver (optional block).",
                                              KEYS(solver_keys), sizeof(fd_scene_solver),
                                              offsetof(fd_scene_solver, seen)};

static const fd_scene_key material_keys[] = {
    {.name = "name",
     .type = FD_SCENE_STRING,
     .doc = "unique material name, used by contacts and bodies",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_material, name)},
    {.name = "density",
     .type = FD_SCENE_NUMBER,
     .unit = "kg/m^3",
     .doc = "density; gives the mass of bodies that do not set one",
     .range = GT0,
     .offset = offsetof(fd_scene_material, density),
     .def = {1000}},
    {.name = "youngs_modulus",
     .type = FD_SCENE_NUMBER,
     .unit = "Pa",
     .doc = "Young's modulus; 0 = unset (Hertz-type models need it)",
     .range = GE0,
     .offset = offsetof(fd_scene_material, youngs_modulus)},
    {.name = "poisson_ratio",
     .type = FD_SCENE_NUMBER,
     .unit = "-",
     .doc = "Poisson's ratio",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_EXCLUSIVE, -1, 0.5},
     .offset = offsetof(fd_scene_material, poisson_ratio),
     .def = {0.3}},
};
CHECK_KEYS(material_keys);
const fd_scene_table fd_scene_material_table = {"materials[]", "Materials (a sequence, at least one entry).",
                                                KEYS(material_keys), sizeof(fd_scene_material),
                                                offsetof(fd_scene_material, seen)};

static const fd_scene_key contact_keys[] = {
    {.name = "materials",
     .type = FD_SCENE_NAME_PAIR,
     .doc = "the two materials this law is for (may be equal)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_contact, materials)},
    {.name = "normal",
     .type = FD_SCENE_SUBMODEL,
     .doc = "normal force model and its parameters",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_contact, submodel[FD_MECHANISM_NORMAL]),
     .mechanism = FD_MECHANISM_NORMAL},
    {.name = "slide",
     .type = FD_SCENE_SUBMODEL,
     .doc = "sliding friction model and its parameters",
     .offset = offsetof(fd_scene_contact, submodel[FD_MECHANISM_SLIDE]),
     .mechanism = FD_MECHANISM_SLIDE,
     .def_text = "none"},
    {.name = "roll",
     .type = FD_SCENE_SUBMODEL,
     .doc = "rolling resistance model and its parameters",
     .offset = offsetof(fd_scene_contact, submodel[FD_MECHANISM_ROLL]),
     .mechanism = FD_MECHANISM_ROLL,
     .def_text = "none"},
    {.name = "spin",
     .type = FD_SCENE_SUBMODEL,
     .doc = "spinning resistance model and its parameters",
     .offset = offsetof(fd_scene_contact, submodel[FD_MECHANISM_SPIN]),
     .mechanism = FD_MECHANISM_SPIN,
     .def_text = "none"},
};
CHECK_KEYS(contact_keys);
const fd_scene_table fd_scene_contact_table = {
    "contacts[]",
    "Contact laws, one per pair of materials (a sequence). Each mechanism is a mapping "
    "`{model: NAME, PARAMETER: value, ...}`; the models and their parameters are those of the registry "
    "(`fricdem models` lists them with units, defaults and ranges).",
    KEYS(contact_keys), sizeof(fd_scene_contact), offsetof(fd_scene_contact, seen)};

static const fd_scene_key shape_keys[] = {
    {.name = "type",
     .type = FD_SCENE_ENUM,
     .doc = "shape type",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_shape, type),
     .choices = shape_names},
    {.name = "radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "radius of a sphere, of a cylinder, or the outer radius of a disk (required there)",
     .range = GT0,
     .offset = offsetof(fd_scene_shape, radius),
     .def_text = "none"},
    {.name = "semi_axes",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "semi-axes a, b, c along the body x, y, z axes (ellipsoid only, required there)",
     .range = GT0,
     .offset = offsetof(fd_scene_shape, semi_axes),
     .def_text = "none"},
    {.name = "normal",
     .type = FD_SCENE_VEC3,
     .unit = "-",
     .doc = "outward normal in the body frame (plane only); the plane passes through the body position",
     .range = ANY,
     .offset = offsetof(fd_scene_shape, normal),
     .def = {0, 0, 1}},
    {.name = "length",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "cylinder length along the body z axis, centred on the body position (cylinder only, required there)",
     .range = GT0,
     .offset = offsetof(fd_scene_shape, length),
     .def_text = "none"},
    {.name = "capped",
     .type = FD_SCENE_BOOL,
     .doc = "cylinder: closed by two end disks, bodies NAME.cap_low and NAME.cap_high of the same wall",
     .offset = offsetof(fd_scene_shape, capped),
     .def = {0}},
    {.name = "inner_radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "disk: radius of the central hole (an annulus, a silo floor with its orifice); 0 = a full disk",
     .range = GE0,
     .offset = offsetof(fd_scene_shape, inner_radius),
     .def = {0}},
    {.name = "size",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "box: full edge lengths along the body x, y, z axes, centred on the body position (box only, "
            "required there); a closed wall of 12 triangles, one patch per face",
     .range = GT0,
     .offset = offsetof(fd_scene_shape, size),
     .def_text = "none"},
    {.name = "file",
     .type = FD_SCENE_STRING,
     .doc = "mesh: STL file (ASCII or binary), relative to the scene file; its coordinates are in the body "
            "frame (scaled, then placed by position and orientation) (mesh only, required there)",
     .flags = FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_shape, file)},
    {.name = "scale",
     .type = FD_SCENE_VEC3,
     .unit = "-",
     .doc = "mesh: factors applied to the STL coordinates per axis (0.001 for a file in mm)",
     .range = GT0,
     .offset = offsetof(fd_scene_shape, scale),
     .def = {1, 1, 1}},
    {.name = "feature_angle",
     .type = FD_SCENE_NUMBER,
     .unit = "deg",
     .doc = "mesh: neighbouring triangles whose normals differ by less join one patch (one contact per sphere and "
            "patch, its history carried across the triangles); a sharper edge splits patches",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 0.0, 180.0},
     .offset = offsetof(fd_scene_shape, feature_angle),
     .def = {30}},
};
CHECK_KEYS(shape_keys);
const fd_scene_table fd_scene_shape_table = {"bodies[].shape", "Shape of a body (required).", KEYS(shape_keys),
                                             sizeof(fd_scene_shape), offsetof(fd_scene_shape, seen)};

static const fd_scene_key rotation_keys[] = {
    {.name = "axis",
     .type = FD_SCENE_VEC3,
     .unit = "-",
     .doc = "rotation axis (world frame; normalised)",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_rotation, axis)},
    {.name = "angle",
     .type = FD_SCENE_NUMBER,
     .unit = "rad",
     .doc = "rotation angle (right-hand rule)",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_rotation, angle)},
};
CHECK_KEYS(rotation_keys);
const fd_scene_table fd_scene_rotation_table = {"bodies[].rotation",
                                                "Initial orientation as a rotation from the identity (instead of "
                                                "`orientation`).",
                                                KEYS(rotation_keys), sizeof(fd_scene_rotation),
                                                offsetof(fd_scene_rotation, seen)};

static const fd_scene_key lock_keys[] = {
    {.name = "translation",
     .type = FD_SCENE_AXES,
     .doc = "velocity components held at their initial value",
     .offset = offsetof(fd_scene_lock, translation),
     .def_text = "[]"},
    {.name = "rotation",
     .type = FD_SCENE_AXES,
     .doc = "angular velocity components held at their initial value",
     .offset = offsetof(fd_scene_lock, rotation),
     .def_text = "[]"},
    {.name = "frame",
     .type = FD_SCENE_QUAT,
     .unit = "-",
     .doc = "unit quaternion of the frame whose axes the locks refer to",
     .range = ANY,
     .offset = offsetof(fd_scene_lock, frame),
     .def = {1, 0, 0, 0},
     .def_text = "[1, 0, 0, 0] (world axes)"},
};
CHECK_KEYS(lock_keys);
const fd_scene_table fd_scene_lock_table = {"bodies[].lock", "Axis locks of a body (optional).", KEYS(lock_keys),
                                            sizeof(fd_scene_lock), offsetof(fd_scene_lock, seen)};

static const fd_scene_key motion_keys[] = {
    {.name = "velocity",
     .type = FD_SCENE_VEC3,
     .unit = "m/s",
     .doc = "translation velocity, world frame",
     .range = ANY,
     .offset = offsetof(fd_scene_motion, velocity)},
    {.name = "velocity_ramp",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time over which the velocity rises linearly from 0 (0: at once)",
     .range = GE0,
     .offset = offsetof(fd_scene_motion, velocity_ramp)},
    {.name = "amplitude",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "sinusoidal displacement amplitude, world frame: x += amplitude sin(2 pi frequency t)",
     .range = ANY,
     .offset = offsetof(fd_scene_motion, amplitude)},
    {.name = "frequency",
     .type = FD_SCENE_NUMBER,
     .unit = "Hz",
     .doc = "frequency of the sinusoid (needed with an amplitude)",
     .range = GE0,
     .offset = offsetof(fd_scene_motion, frequency)},
    {.name = "angular_velocity",
     .type = FD_SCENE_VEC3,
     .unit = "rad/s",
     .doc = "rotation about the axis through the body position, world frame (a drum: along its axis)",
     .range = ANY,
     .offset = offsetof(fd_scene_motion, angular_velocity)},
    {.name = "angular_velocity_ramp",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time over which the angular velocity rises linearly from 0 (0: at once)",
     .range = GE0,
     .offset = offsetof(fd_scene_motion, angular_velocity_ramp)},
    {.name = "start_time",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "the wall rests until this time",
     .range = GE0,
     .offset = offsetof(fd_scene_motion, start_time)},
};
CHECK_KEYS(motion_keys);
const fd_scene_table fd_scene_motion_table = {
    "bodies[].motion",
    "Prescribed motion of a static body (a moving wall: a drum, a piston, a shaking floor), a closed form of time "
    "(docs/walls.md); the penalty stepper only.",
    KEYS(motion_keys), sizeof(fd_scene_motion), offsetof(fd_scene_motion, seen)};

static const fd_scene_key body_keys[] = {
    {.name = "name",
     .type = FD_SCENE_STRING,
     .doc = "unique body name (used by --set, messages and outputs)",
     .flags = FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_body, name),
     .def_text = "none"},
    {.name = "static",
     .type = FD_SCENE_BOOL,
     .doc = "a static body never moves (infinite mass); planes must be static",
     .offset = offsetof(fd_scene_body, is_static),
     .def = {0}},
    {.name = "material",
     .type = FD_SCENE_STRING,
     .doc = "name of one of the materials",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_body, material)},
    {.name = "shape",
     .type = FD_SCENE_MAP,
     .doc = "shape (see below)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_body, shape),
     .sub = &fd_scene_shape_table},
    {.name = "position",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "position of the centre, world frame",
     .range = ANY,
     .offset = offsetof(fd_scene_body, position)},
    {.name = "orientation",
     .type = FD_SCENE_QUAT,
     .unit = "-",
     .doc = "unit quaternion, body to world; normalised if within 1e-6 of unit; not with `rotation`",
     .range = ANY,
     .offset = offsetof(fd_scene_body, orientation),
     .def = {1, 0, 0, 0}},
    {.name = "rotation",
     .type = FD_SCENE_MAP,
     .doc = "orientation as axis and angle (see below); not with `orientation`",
     .offset = offsetof(fd_scene_body, rotation),
     .sub = &fd_scene_rotation_table,
     .def_text = "none"},
    {.name = "velocity",
     .type = FD_SCENE_VEC3,
     .unit = "m/s",
     .doc = "initial velocity, world frame",
     .range = ANY,
     .offset = offsetof(fd_scene_body, velocity)},
    {.name = "angular_velocity",
     .type = FD_SCENE_VEC3,
     .unit = "rad/s",
     .doc = "initial angular velocity, world frame",
     .range = ANY,
     .offset = offsetof(fd_scene_body, angular_velocity)},
    {.name = "mass",
     .type = FD_SCENE_NUMBER,
     .unit = "kg",
     .doc = "mass",
     .range = GT0,
     .offset = offsetof(fd_scene_body, mass),
     .def_text = "density x volume"},
    {.name = "inertia",
     .type = FD_SCENE_VEC3,
     .unit = "kg m^2",
     .doc = "principal moments of inertia, body frame",
     .range = GT0,
     .offset = offsetof(fd_scene_body, inertia),
     .def_text = "from shape and mass"},
    {.name = "lock",
     .type = FD_SCENE_MAP,
     .doc = "axis locks (see below)",
     .offset = offsetof(fd_scene_body, lock),
     .sub = &fd_scene_lock_table,
     .def_text = "none"},
    {.name = "external_force",
     .type = FD_SCENE_VEC3,
     .unit = "N",
     .doc = "force applied at the centre every step, world frame",
     .range = ANY,
     .offset = offsetof(fd_scene_body, external_force)},
    {.name = "external_torque",
     .type = FD_SCENE_VEC3,
     .unit = "N m",
     .doc = "torque applied every step, world frame",
     .range = ANY,
     .offset = offsetof(fd_scene_body, external_torque)},
    {.name = "friction_axis",
     .type = FD_SCENE_VEC3,
     .unit = "-",
     .doc = "complementarity stepper: unit axis of a generalized friction on the body's translation (a seal)",
     .range = ANY,
     .offset = offsetof(fd_scene_body, friction_axis)},
    {.name = "friction_force",
     .type = FD_SCENE_NUMBER,
     .unit = "N",
     .doc = "complementarity stepper: limit of that friction, |F| <= friction_force (Tasora & Anitescu Sec. 6.2); "
            "0 = none",
     .range = GE0,
     .offset = offsetof(fd_scene_body, friction_force)},
    {.name = "motion",
     .type = FD_SCENE_MAP,
     .doc = "static bodies: prescribed motion (see below)",
     .offset = offsetof(fd_scene_body, motion),
     .sub = &fd_scene_motion_table,
     .def_text = "none (at rest)"},
};
CHECK_KEYS(body_keys);
const fd_scene_table fd_scene_body_table = {"bodies[]", "Bodies (a sequence).", KEYS(body_keys), sizeof(fd_scene_body),
                                            offsetof(fd_scene_body, seen)};

static const fd_scene_key bodies_file_keys[] = {
    {.name = "path",
     .type = FD_SCENE_STRING,
     .doc = "the file; a relative path is relative to the scene file's directory",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_bodies_file, path)},
    {.name = "format",
     .type = FD_SCENE_ENUM,
     .doc = "auto: from the extension (.csv; .h5 or .hdf5)",
     .offset = offsetof(fd_scene_bodies_file, format),
     .choices = bodies_file_formats},
    {.name = "group",
     .type = FD_SCENE_STRING,
     .doc = "HDF5 only: the group that holds the column datasets",
     .flags = FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_bodies_file, group),
     .def_text = "`/` (the root)"},
    {.name = "material",
     .type = FD_SCENE_STRING,
     .doc = "material of every sphere when the file has no `material` column",
     .flags = FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_bodies_file, material),
     .def_text = "none"},
    {.name = "radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "radius of every sphere when the file has no `radius` column",
     .range = GT0,
     .offset = offsetof(fd_scene_bodies_file, radius),
     .def_text = "none"},
    {.name = "static",
     .type = FD_SCENE_BOOL,
     .doc = "make the spheres static when the file has no `static` column",
     .offset = offsetof(fd_scene_bodies_file, is_static),
     .def = {0}},
};
CHECK_KEYS(bodies_file_keys);
const fd_scene_table fd_scene_bodies_file_table = {
    "bodies_file",
    "Spheres from a CSV or HDF5 file, one per row, with the columns of bodies.csv (see `bodies_file` above); "
    "a path alone stands for `{path: PATH}`.",
    KEYS(bodies_file_keys), sizeof(fd_scene_bodies_file), offsetof(fd_scene_bodies_file, seen)};

static const fd_scene_key region_keys[] = {
    {.name = "min",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "lower corner",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_region, min)},
    {.name = "max",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "upper corner (each component > min)",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_region, max)},
};
CHECK_KEYS(region_keys);
const fd_scene_table fd_scene_region_table = {"generators[].region", "Axis-aligned box the generated spheres fill.",
                                              KEYS(region_keys), sizeof(fd_scene_region),
                                              offsetof(fd_scene_region, seen)};

static const fd_scene_key generator_keys[] = {
    {.name = "type",
     .type = FD_SCENE_ENUM,
     .doc = "`lattice` (spheres on a cubic lattice) or `random` (a loose fill by random sequential addition)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_generator, type),
     .choices = generator_names},
    {.name = "count",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "number of spheres",
     .flags = FD_SCENE_REQUIRED,
     .range = INT_POSITIVE,
     .offset = offsetof(fd_scene_generator, count)},
    {.name = "name_prefix",
     .type = FD_SCENE_STRING,
     .doc = "body names are the prefix followed by 0, 1, 2, ...",
     .flags = FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_generator, name_prefix),
     .def_text = "grain"},
    {.name = "material",
     .type = FD_SCENE_STRING,
     .doc = "material name",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_generator, material)},
    {.name = "radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "mean sphere radius",
     .flags = FD_SCENE_REQUIRED,
     .range = GT0,
     .offset = offsetof(fd_scene_generator, radius)},
    {.name = "radius_spread",
     .type = FD_SCENE_NUMBER,
     .unit = "-",
     .doc = "relative spread s: radii uniform in radius x [1 - s, 1 + s]",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 0, 0.9},
     .offset = offsetof(fd_scene_generator, radius_spread)},
    {.name = "region",
     .type = FD_SCENE_MAP,
     .doc = "box to fill (see below)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_generator, region),
     .sub = &fd_scene_region_table},
    {.name = "velocity",
     .type = FD_SCENE_VEC3,
     .unit = "m/s",
     .doc = "initial velocity of every sphere (the mean, with `velocity_spread`)",
     .range = ANY,
     .offset = offsetof(fd_scene_generator, velocity)},
    {.name = "velocity_spread",
     .type = FD_SCENE_NUMBER,
     .unit = "m/s",
     .doc = "standard deviation of each velocity component about `velocity` (Gaussian, Philox + Box-Muller)",
     .range = GE0,
     .offset = offsetof(fd_scene_generator, velocity_spread)},
    {.name = "spacing",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "`lattice` only: lattice spacing; at least 2 x radius x (1 + radius_spread)",
     .range = GT0,
     .offset = offsetof(fd_scene_generator, spacing),
     .def_text = "2 x radius x (1 + radius_spread)"},
    {.name = "jitter",
     .type = FD_SCENE_NUMBER,
     .unit = "-",
     .doc = "`lattice` only: random displacement of each sphere, as a fraction of its free gap in its lattice cell",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 0, 1},
     .offset = offsetof(fd_scene_generator, jitter),
     .def = {0.5}},
    {.name = "seed",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "random seed (Philox key); same seed, same bodies",
     .range = GE0,
     .offset = offsetof(fd_scene_generator, seed),
     .def = {1}},
    {.name = "static",
     .type = FD_SCENE_BOOL,
     .doc = "make the spheres static (fixed), e.g. a rough floor of one layer; `velocity` must then be zero",
     .offset = offsetof(fd_scene_generator, is_static),
     .def = {0}},
    {.name = "attempts",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "`random` only: places tried per sphere before the load fails",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 1, 1e9},
     .offset = offsetof(fd_scene_generator, attempts),
     .def = {100000}},
};
CHECK_KEYS(generator_keys);
const fd_scene_table fd_scene_generator_table = {"generators[]", "Body generators (an optional sequence).",
                                                 KEYS(generator_keys), sizeof(fd_scene_generator),
                                                 offsetof(fd_scene_generator, seen)};

static const fd_scene_key disk_keys[] = {
    {.name = "center",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "centre of the disk",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_disk, center)},
    {.name = "radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "disk radius (>= the largest sphere radius); centres lie within radius - r of the axis",
     .flags = FD_SCENE_REQUIRED,
     .range = GT0,
     .offset = offsetof(fd_scene_disk, radius)},
    {.name = "normal",
     .type = FD_SCENE_VEC3,
     .unit = "-",
     .doc = "normal of the disk (normalised)",
     .range = ANY,
     .offset = offsetof(fd_scene_disk, normal),
     .def = {0, 0, 1}},
    {.name = "thickness",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "centres lie within thickness / 2 of the disk's plane (0: on it)",
     .range = GE0,
     .offset = offsetof(fd_scene_disk, thickness)},
};
CHECK_KEYS(disk_keys);
const fd_scene_table fd_scene_disk_table = {"inlets[].region.disk",
                                            "A disk (a short cylinder when thick), e.g. the outlet of a funnel.",
                                            KEYS(disk_keys), sizeof(fd_scene_disk), offsetof(fd_scene_disk, seen)};

const fd_scene_table fd_scene_inlet_box_table = {"inlets[].region.box",
                                                 "An axis-aligned box; every sphere lies wholly inside it.",
                                                 KEYS(region_keys), sizeof(fd_scene_region),
                                                 offsetof(fd_scene_region, seen)};

static const fd_scene_key inlet_region_keys[] = {
    {.name = "disk",
     .type = FD_SCENE_MAP,
     .doc = "a disk region (see below); not with `box`",
     .offset = offsetof(fd_scene_inlet_region, disk),
     .sub = &fd_scene_disk_table,
     .def_text = "none"},
    {.name = "box",
     .type = FD_SCENE_MAP,
     .doc = "a box region (see below); not with `disk`",
     .offset = offsetof(fd_scene_inlet_region, box),
     .sub = &fd_scene_inlet_box_table,
     .def_text = "none"},
};
CHECK_KEYS(inlet_region_keys);
const fd_scene_table fd_scene_inlet_region_table = {"inlets[].region",
                                                    "Where an inlet places its spheres: exactly one of `disk` and "
                                                    "`box`.",
                                                    KEYS(inlet_region_keys), sizeof(fd_scene_inlet_region),
                                                    offsetof(fd_scene_inlet_region, seen)};

static const fd_scene_key size_keys[] = {
    {.name = "radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "sphere radius",
     .flags = FD_SCENE_REQUIRED,
     .range = GT0,
     .offset = offsetof(fd_scene_size, radius)},
    {.name = "fraction",
     .type = FD_SCENE_NUMBER,
     .unit = "-",
     .doc = "number fraction (the fractions are divided by their sum)",
     .flags = FD_SCENE_REQUIRED,
     .range = GE0,
     .offset = offsetof(fd_scene_size, fraction)},
};
CHECK_KEYS(size_keys);
const fd_scene_table fd_scene_size_table = {"inlets[].sizes[]", "A discrete size distribution (instead of `radius`).",
                                            KEYS(size_keys), sizeof(fd_scene_size), offsetof(fd_scene_size, seen)};

static const fd_scene_key inlet_keys[] = {
    {.name = "name",
     .type = FD_SCENE_STRING,
     .doc = "unique inlet name; its spheres are named `<name>.0`, `<name>.1`, ...",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_inlet, name)},
    {.name = "material",
     .type = FD_SCENE_STRING,
     .doc = "material name",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_inlet, material)},
    {.name = "radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "mean sphere radius (required unless `sizes` is given)",
     .range = GT0,
     .offset = offsetof(fd_scene_inlet, radius),
     .def_text = "none"},
    {.name = "radius_spread",
     .type = FD_SCENE_NUMBER,
     .unit = "-",
     .doc = "relative spread s: radii uniform in radius x [1 - s, 1 + s] (with `radius` only)",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 0, 0.9},
     .offset = offsetof(fd_scene_inlet, radius_spread)},
    {.name = "sizes",
     .type = FD_SCENE_LIST,
     .doc = "discrete size distribution, up to 16 entries (see below); not with `radius`",
     .offset = offsetof(fd_scene_inlet, sizes),
     .sub = &fd_scene_size_table},
    {.name = "region",
     .type = FD_SCENE_MAP,
     .doc = "where the spheres are placed (see below)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_inlet, region),
     .sub = &fd_scene_inlet_region_table},
    {.name = "rate",
     .type = FD_SCENE_NUMBER,
     .unit = "1/s",
     .doc = "spheres per second: floor(rate (t - start)) are in after the step that reaches t",
     .flags = FD_SCENE_REQUIRED,
     .range = GT0,
     .offset = offsetof(fd_scene_inlet, rate)},
    {.name = "count",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "total number of spheres",
     .flags = FD_SCENE_REQUIRED,
     .range = INT_POSITIVE,
     .offset = offsetof(fd_scene_inlet, count)},
    {.name = "start",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time the pouring starts",
     .range = GE0,
     .offset = offsetof(fd_scene_inlet, start)},
    {.name = "velocity",
     .type = FD_SCENE_VEC3,
     .unit = "m/s",
     .doc = "initial velocity of every sphere, world frame",
     .range = ANY,
     .offset = offsetof(fd_scene_inlet, velocity)},
    {.name = "velocity_spread",
     .type = FD_SCENE_NUMBER,
     .unit = "m/s",
     .doc = "each velocity component gets a uniform random addition in [-spread, spread]",
     .range = GE0,
     .offset = offsetof(fd_scene_inlet, velocity_spread)},
    {.name = "seed",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "random seed (Philox key); same seed, same run",
     .range = GE0,
     .offset = offsetof(fd_scene_inlet, seed),
     .def = {1}},
    {.name = "attempts",
     .type = FD_SCENE_INTEGER,
     .unit = "",
     .doc = "placements tried per sphere per step before it waits for the next step",
     .range = {FD_SCENE_INCLUSIVE, FD_SCENE_INCLUSIVE, 1, 1000000},
     .offset = offsetof(fd_scene_inlet, attempts),
     .def = {100}},
    {.name = "clearance",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "a place is taken only with a gap of contact_margin + clearance to every body; 1.5 x the neighbour skin "
            "or more keeps the neighbour list standing while spheres pour in (docs/inlets.md)",
     .range = GE0,
     .offset = offsetof(fd_scene_inlet, clearance)},
};
CHECK_KEYS(inlet_keys);
const fd_scene_table fd_scene_inlet_table = {"inlets[]",
                                             "Inlets (an optional sequence): spheres poured during the run "
                                             "(docs/inlets.md).",
                                             KEYS(inlet_keys), sizeof(fd_scene_inlet),
                                             offsetof(fd_scene_inlet, seen)};

static const fd_scene_key output_keys[] = {
    {.name = "directory",
     .type = FD_SCENE_STRING,
     .doc = "where the output files go (created if missing)",
     .flags = FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_output_keys, directory),
     .def_text = "`out/<name>`"},
    {.name = "csv_interval",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time between CSV rows; 0 = every step",
     .range = GE0,
     .offset = offsetof(fd_scene_output_keys, csv_interval),
     .def = {1e-3}},
    {.name = "bodies_csv",
     .type = FD_SCENE_BOOL,
     .doc = "write bodies.csv (one row per dynamic body per output time)",
     .offset = offsetof(fd_scene_output_keys, bodies_csv),
     .def = {1}},
    {.name = "contacts_csv",
     .type = FD_SCENE_BOOL,
     .doc = "write contacts.csv (one row per contact per output time)",
     .offset = offsetof(fd_scene_output_keys, contacts_csv),
     .def = {1}},
    {.name = "energy_csv",
     .type = FD_SCENE_BOOL,
     .doc = "write energy.csv (global energies per output time)",
     .offset = offsetof(fd_scene_output_keys, energy_csv),
     .def = {1}},
    {.name = "walls_csv",
     .type = FD_SCENE_BOOL,
     .doc = "write walls.csv (force, torque about the wall's position and power of the contacts on each wall: a "
            "static body other than a sphere, or one with a motion) when the scene has walls",
     .offset = offsetof(fd_scene_output_keys, walls_csv),
     .def = {1}},
    {.name = "events_csv",
     .type = FD_SCENE_BOOL,
     .doc = "write events.csv (every contact activation and every start and end of slip, each step)",
     .offset = offsetof(fd_scene_output_keys, events_csv),
     .def = {0}},
    {.name = "outlets_csv",
     .type = FD_SCENE_BOOL,
     .doc = "write outlets.csv (per outlet and output time: bodies and mass removed since the last row and in all; "
            "only when the scene has outlets)",
     .offset = offsetof(fd_scene_output_keys, outlets_csv),
     .def = {1}},
    {.name = "vtu_interval",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time between VTU snapshots; 0 = none",
     .range = GE0,
     .offset = offsetof(fd_scene_output_keys, vtu_interval)},
    {.name = "vtu_format",
     .type = FD_SCENE_ENUM,
     .doc = "binary: raw appended arrays, exact and fast (10^6 spheres in a fraction of a second); ascii: text "
            "readable in an editor, %.10g, about five times larger",
     .offset = offsetof(fd_scene_output_keys, vtu_format),
     .choices = vtu_format_names},
    {.name = "checkpoint_interval",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time between checkpoints (checkpoint.h5 in the output directory, replaced each time and written once "
            "more at the end; `fricdem resume` continues from it, docs/restart.md); 0 = none",
     .range = GE0,
     .offset = offsetof(fd_scene_output_keys, checkpoint_interval)},
    {.name = "trajectory",
     .type = FD_SCENE_BOOL,
     .doc = "write trajectory.h5 (H5MD: every body's position, orientation, velocity, angular velocity, radius, mass "
            "and material per frame, and the contacts with their loads and model columns) and the XDMF indexes "
            "trajectory.xdmf and trajectory_contacts.xdmf that ParaView's XDMF Reader opens",
     .offset = offsetof(fd_scene_output_keys, trajectory),
     .def = {0}},
    {.name = "trajectory_interval",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time between trajectory frames; 0 = every step",
     .range = GE0,
     .offset = offsetof(fd_scene_output_keys, trajectory_interval),
     .def_text = "vtu_interval if > 0, else csv_interval"},
    {.name = "trajectory_contacts",
     .type = FD_SCENE_BOOL,
     .doc = "the contacts in the trajectory too (recording them costs: at 10^6 settled spheres, three times the "
            "contact search)",
     .offset = offsetof(fd_scene_output_keys, trajectory_contacts),
     .def = {1}},
    {.name = "trajectory_compression",
     .type = FD_SCENE_ENUM,
     .doc = "deflate: every dataset byte-shuffled and deflated (level 1), 2-3x smaller; none: no filters, the same "
            "values about 2.5x faster to write (docs/output-format.md)",
     .offset = offsetof(fd_scene_output_keys, trajectory_compression),
     .choices = trajectory_compression_names},
    {.name = "direct_io",
     .type = FD_SCENE_ENUM,
     .doc = "how large blocks of the CSV, VTU and trajectory files reach the disk: auto measures writes past the "
            "page cache (O_DIRECT) against writes through it on the blocks it writes and keeps the faster; always: "
            "direct wherever the file system allows it; never: through the page cache. The values are the same "
            "(docs/output-format.md)",
     .offset = offsetof(fd_scene_output_keys, direct_io),
     .choices = direct_io_names},
};
CHECK_KEYS(output_keys);
const fd_scene_table fd_scene_output_table = {"output", "Run outputs (optional block).", KEYS(output_keys),
                                              sizeof(fd_scene_output_keys), offsetof(fd_scene_output_keys, seen)};

static const fd_scene_key file_keys[] = {
    {.name = "name",
     .type = FD_SCENE_STRING,
     .doc = "scene name (used for the default output directory)",
     .flags = FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_file, name),
     .def_text = "the file name without extension"},
    {.name = "description",
     .type = FD_SCENE_STRING,
     .doc = "free text",
     .offset = offsetof(fd_scene_file, description),
     .def_text = "none"},
    {.name = "time",
     .type = FD_SCENE_MAP,
     .doc = "time stepping (see below)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_file, time),
     .sub = &fd_scene_time_table},
    {.name = "world",
     .type = FD_SCENE_MAP,
     .doc = "world settings (see below)",
     .offset = offsetof(fd_scene_file, world),
     .sub = &fd_scene_world_table,
     .def_text = "all defaults"},
    {.name = "solver",
     .type = FD_SCENE_MAP,
     .doc = "solver of the complementarity stepper (see below)",
     .offset = offsetof(fd_scene_file, solver),
     .sub = &fd_scene_solver_table,
     .def_text = "all defaults"},
    {.name = "materials",
     .type = FD_SCENE_LIST,
     .doc = "materials (see below)",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_file, materials),
     .sub = &fd_scene_material_table},
    {.name = "contacts",
     .type = FD_SCENE_LIST,
     .doc = "contact laws (see below)",
     .offset = offsetof(fd_scene_file, contacts),
     .sub = &fd_scene_contact_table},
    {.name = "bodies",
     .type = FD_SCENE_LIST,
     .doc = "bodies (see below)",
     .offset = offsetof(fd_scene_file, bodies),
     .sub = &fd_scene_body_table},
    {.name = "bodies_file",
     .type = FD_SCENE_MAP,
     .doc = "more spheres from a CSV or HDF5 file, created after `bodies` (see below)",
     .flags = FD_SCENE_SHORTHAND,
     .offset = offsetof(fd_scene_file, bodies_file),
     .sub = &fd_scene_bodies_file_table,
     .def_text = "none"},
    {.name = "generators",
     .type = FD_SCENE_LIST,
     .doc = "body generators (see below)",
     .offset = offsetof(fd_scene_file, generators),
     .sub = &fd_scene_generator_table},
    {.name = "inlets",
     .type = FD_SCENE_LIST,
     .doc = "inlets that pour spheres during the run (see below)",
     .offset = offsetof(fd_scene_file, inlets),
     .sub = &fd_scene_inlet_table},
    {.name = "outlets",
     .type = FD_SCENE_LIST,
     .doc = "outlets that remove bodies during the run (see below)",
     .offset = offsetof(fd_scene_file, outlets),
     .sub = &fd_scene_outlet_table},
    {.name = "output",
     .type = FD_SCENE_MAP,
     .doc = "outputs (see below)",
     .offset = offsetof(fd_scene_file, output),
     .sub = &fd_scene_output_table,
     .def_text = "all defaults"},
    {.name = "stages",
     .type = FD_SCENE_LIST,
     .doc = "the run as a sequence of stages, each changing wall motions, inlets and gravity (see below; "
            "docs/stages.md)",
     .offset = offsetof(fd_scene_file, stages),
     .sub = &fd_scene_stage_table},
};
CHECK_KEYS(file_keys);
const fd_scene_table fd_scene_file_table = {"top level", "The keys of the scene file itself.", KEYS(file_keys),
                                            sizeof(fd_scene_file), offsetof(fd_scene_file, seen)};

/* ---------------------------------------------------------------- helpers */

static fd_scene_seen* seen_of(const fd_scene_table* table, void* target)
{
    return (fd_scene_seen*)((char*)target + table->seen_offset);
}

const yaml_node_t* fd_scene_given(const fd_scene_table* table, const void* target, const char* key)
{
    const fd_scene_seen* seen = (const fd_scene_seen*)((const char*)target + table->seen_offset);
    for (int k = 0; k < table->key_count; ++k) {
        if (strcmp(table->keys[k].name, key) == 0) {
            return seen->value[k];
        }
    }
    return NULL;
}

/* Appends ".key" (or "key" at the top, or "[i]" when key is NULL) to path;
 * returns the old length, to restore with path[old] = '\0'. */
static size_t path_push(char* path, const char* key, int index)
{
    size_t length = strlen(path);
    if (key) {
        snprintf(path + length, FD_SCENE_PATH_MAX - length, "%s%s", length ? "." : "", key);
    } else {
        snprintf(path + length, FD_SCENE_PATH_MAX - length, "[%d]", index);
    }
    return length;
}

static void format_range(const fd_scene_range* r, char* buffer, size_t size)
{
    if (r->lo_kind && r->hi_kind) {
        snprintf(buffer, size, "in %c%g, %g%c", r->lo_kind == FD_SCENE_INCLUSIVE ? '[' : '(', r->lo, r->hi,
                 r->hi_kind == FD_SCENE_INCLUSIVE ? ']' : ')');
    } else if (r->lo_kind) {
        snprintf(buffer, size, "%s %g", r->lo_kind == FD_SCENE_INCLUSIVE ? ">=" : ">", r->lo);
    } else if (r->hi_kind) {
        snprintf(buffer, size, "%s %g", r->hi_kind == FD_SCENE_INCLUSIVE ? "<=" : "<", r->hi);
    } else {
        buffer[0] = '\0';
    }
}

static bool in_range(const fd_scene_range* r, double v)
{
    if (r->lo_kind == FD_SCENE_INCLUSIVE && !(v >= r->lo)) {
        return false;
    }
    if (r->lo_kind == FD_SCENE_EXCLUSIVE && !(v > r->lo)) {
        return false;
    }
    if (r->hi_kind == FD_SCENE_INCLUSIVE && !(v <= r->hi)) {
        return false;
    }
    if (r->hi_kind == FD_SCENE_EXCLUSIVE && !(v < r->hi)) {
        return false;
    }
    return true;
}

static fd_status check_range(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const fd_scene_range* r,
                             double v)
{
    if (in_range(r, v)) {
        return FD_OK;
    }
    char range[128];
    format_range(r, range, sizeof range);
    return fd_scene_fail(ctx, node, path, "must be %s (got %s)", range, fd_scene_scalar(node));
}

static fd_status expected(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const char* what)
{
    char got[128];
    fd_scene_describe(node, got, sizeof got);
    return fd_scene_fail(ctx, node, path, "expected %s, got %s", what, got);
}

/* ---------------------------------------------------------------- scalars */

static fd_status parse_number(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, double* out)
{
    if (!node || node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        fd_scene_is_null(node)) {
        return expected(ctx, node, path, "a number");
    }
    const char* text = fd_scene_scalar(node);
    char* end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0') {
        return expected(ctx, node, path, "a number");
    }
    if (!isfinite(v) || errno == ERANGE) {
        if (errno == ERANGE && v == 0.0) {
            *out = v; /* underflow to zero is harmless */
            return FD_OK;
        }
        if (errno == ERANGE && isfinite(v)) {
            /* Subnormal: fewer digits than a double has, and its square is 0. */
            return fd_scene_fail(ctx, node, path,
                                 "'%s' is too small to compute with: below 2.2e-308 in magnitude, the smallest "
                                 "normal double (it keeps fewer digits, and its square is 0)",
                                 text);
        }
        if (errno == ERANGE) {
            return fd_scene_fail(ctx, node, path, "'%s' is too large: beyond 1.8e308, the largest double", text);
        }
        return fd_scene_fail(ctx, node, path, "expected a finite number, got '%s'", text);
    }
    *out = v;
    return FD_OK;
}

static fd_status parse_integer(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const fd_scene_range* r,
                               int64_t* out)
{
    if (!node || node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        fd_scene_is_null(node)) {
        return expected(ctx, node, path, "an integer");
    }
    const char* text = fd_scene_scalar(node);
    char* end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0') {
        return expected(ctx, node, path, "an integer");
    }
    if (errno == ERANGE) {
        return fd_scene_fail(ctx, node, path, "integer out of range (got %s)", text);
    }
    fd_status status = check_range(ctx, node, path, r, (double)v);
    if (status == FD_OK) {
        *out = (int64_t)v;
    }
    return status;
}

static fd_status parse_bool(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, bool* out)
{
    static const char* const yes[] = {"true", "True", "TRUE"};
    static const char* const no[] = {"false", "False", "FALSE"};
    if (node && node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        for (int i = 0; i < 3; ++i) {
            if (strcmp(fd_scene_scalar(node), yes[i]) == 0) {
                *out = true;
                return FD_OK;
            }
            if (strcmp(fd_scene_scalar(node), no[i]) == 0) {
                *out = false;
                return FD_OK;
            }
        }
    }
    return expected(ctx, node, path, "true or false");
}

static fd_status parse_string(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, bool nonempty,
                              const char** out)
{
    if (!node || node->type != YAML_SCALAR_NODE) {
        return expected(ctx, node, path, "a string");
    }
    if (strlen(fd_scene_scalar(node)) != node->data.scalar.length) {
        return fd_scene_fail(ctx, node, path, "must not contain a NUL character");
    }
    if (nonempty && (fd_scene_is_null(node) || node->data.scalar.length == 0)) {
        return fd_scene_fail(ctx, node, path, "must not be empty");
    }
    *out = fd_scene_scalar(node);
    return FD_OK;
}

static fd_status parse_enum(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const char* const* choices,
                            int* out)
{
    int count = 0;
    while (choices[count]) {
        ++count;
    }
    char list[512];
    fd_scene_join(list, sizeof list, choices, count);
    if (!node || node->type != YAML_SCALAR_NODE || fd_scene_is_null(node)) {
        char what[600];
        snprintf(what, sizeof what, "one of %s", list);
        return expected(ctx, node, path, what);
    }
    for (int i = 0; i < count; ++i) {
        if (strcmp(fd_scene_scalar(node), choices[i]) == 0) {
            *out = i;
            return FD_OK;
        }
    }
    const char* close = fd_scene_closest(fd_scene_scalar(node), choices, count);
    if (close) {
        return fd_scene_fail(ctx, node, path, "unknown value '%s' (did you mean '%s'? expected one of %s)",
                             fd_scene_scalar(node), close, list);
    }
    return fd_scene_fail(ctx, node, path, "unknown value '%s' (expected one of %s)", fd_scene_scalar(node), list);
}

/* ---------------------------------------------------------------- vectors */

static fd_status parse_numbers(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, const fd_scene_range* r,
                               int count, const char* form, double* out)
{
    if (!node || node->type != YAML_SEQUENCE_NODE || fd_scene_item_count(node) != count) {
        char what[64];
        snprintf(what, sizeof what, "%s (%d numbers)", form, count);
        return expected(ctx, node, path, what);
    }
    for (int i = 0; i < count; ++i) {
        const yaml_node_t* item = fd_scene_item(ctx, node, i);
        size_t mark = path_push(path, NULL, i);
        fd_status status = parse_number(ctx, item, path, &out[i]);
        if (status == FD_OK) {
            status = check_range(ctx, item, path, r, out[i]);
        }
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

static fd_status parse_quat(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, fd_quat* out)
{
    double q[4];
    static const fd_scene_range any = ANY;
    fd_status status = parse_numbers(ctx, node, path, &any, 4, "[w, x, y, z]", q);
    if (status != FD_OK) {
        return status;
    }
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(norm - 1.0) <= 1e-6)) {
        return fd_scene_fail(ctx, node, path, "must be a unit quaternion [w, x, y, z] (its norm is %.9g)", norm);
    }
    *out = (fd_quat){q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm};
    return FD_OK;
}

static fd_status parse_axes(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, uint32_t* out)
{
    *out = 0;
    if (fd_scene_is_null(node)) {
        return FD_OK;
    }
    if (!node || node->type != YAML_SEQUENCE_NODE) {
        return expected(ctx, node, path, "a list of axes such as [x, z]");
    }
    for (int i = 0; i < fd_scene_item_count(node); ++i) {
        const yaml_node_t* item = fd_scene_item(ctx, node, i);
        const char* axis = fd_scene_scalar(item);
        uint32_t bit = 0;
        if (item && item->type == YAML_SCALAR_NODE) {
            bit = strcmp(axis, "x") == 0   ? FD_LOCK_X
                  : strcmp(axis, "y") == 0 ? FD_LOCK_Y
                  : strcmp(axis, "z") == 0 ? FD_LOCK_Z
                                           : 0;
        }
        if (!bit) {
            size_t mark = path_push(path, NULL, i);
            fd_status status = expected(ctx, item, path, "an axis: x, y or z");
            path[mark] = '\0';
            return status;
        }
        *out |= bit;
    }
    return FD_OK;
}

static fd_status parse_name_pair(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, const char** out)
{
    if (!node || node->type != YAML_SEQUENCE_NODE || fd_scene_item_count(node) != 2) {
        return expected(ctx, node, path, "two material names [a, b]");
    }
    for (int i = 0; i < 2; ++i) {
        size_t mark = path_push(path, NULL, i);
        fd_status status = parse_string(ctx, fd_scene_item(ctx, node, i), path, true, &out[i]);
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- sub-models */

static int mechanism_models(fd_mechanism mechanism, const char** names, int capacity)
{
    int count = 0;
    for (int i = 0; i < fd_model_count() && count < capacity; ++i) {
        const fd_model_info* info = fd_model_at(i);
        if (info && info->mechanism == mechanism) {
            names[count++] = info->name;
        }
    }
    if (mechanism != FD_MECHANISM_NORMAL && count < capacity && !fd_model_find(mechanism, "none")) {
        names[count++] = "none"; /* always valid for friction mechanisms */
    }
    return count;
}

/* {model: NAME, PARAM: value, ...}: the model from the registry, each
 * parameter by name from its table. Ranges are checked here too, so that a
 * bad value is reported on its own line; required parameters and anything
 * else the law needs are checked by fd_world_set_contact_law. */
static fd_status parse_submodel(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, fd_mechanism mechanism,
                                fd_submodel_def* out)
{
    const char* mechanism_name = fd_mechanism_name(mechanism);
    if (!node || node->type != YAML_MAPPING_NODE) {
        return expected(ctx, node, path, "a mapping {model: NAME, parameter: value, ...}");
    }
    const yaml_node_t* model_node = NULL;
    for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; ++pair) {
        const yaml_node_t* key = fd_scene_node(ctx, pair->key);
        if (key && key->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(key), "model") == 0) {
            if (model_node) {
                size_t at = path_push(path, "model", 0);
                fd_status status = fd_scene_fail(ctx, key, path, "duplicate key");
                path[at] = '\0';
                return status;
            }
            model_node = fd_scene_node(ctx, pair->value);
        }
    }
    const char* names[64];
    int name_count = mechanism_models(mechanism, names, 64);
    char list[512];
    fd_scene_join(list, sizeof list, names, name_count);

    size_t mark = path_push(path, "model", 0);
    const char* model = NULL;
    fd_status status = FD_OK;
    if (!model_node) {
        status = fd_scene_fail(ctx, node, path, "required key is missing (%s models: %s)", mechanism_name, list);
    } else {
        status = parse_string(ctx, model_node, path, true, &model);
    }
    const fd_model_info* info = NULL;
    if (status == FD_OK) {
        info = fd_model_find(mechanism, model);
        if (!info && (mechanism == FD_MECHANISM_NORMAL || strcmp(model, "none") != 0)) {
            const char* close = fd_scene_closest(model, names, name_count);
            char hint[300] = "";
            if (close) {
                snprintf(hint, sizeof hint, "did you mean '%s'? ", close);
            }
            status = fd_scene_fail(ctx, model_node, path, "unknown %s model '%s' (%s%s models: %s)", mechanism_name,
                                   model, hint, mechanism_name, list);
        }
    }
    path[mark] = '\0';
    if (status != FD_OK) {
        return status;
    }

    out->model = info ? info->name : "none";
    out->param_count = 0;
    const char* param_names[FD_MAX_SUBMODEL_PARAMS + 1];
    int param_count = 0;
    for (int p = 0; info && p < info->param_count && p < FD_MAX_SUBMODEL_PARAMS; ++p) {
        param_names[param_count++] = info->params[p].name;
    }
    char param_list[512];
    fd_scene_join(param_list, sizeof param_list, param_names, param_count);

    for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; ++pair) {
        const yaml_node_t* key = fd_scene_node(ctx, pair->key);
        const yaml_node_t* value = fd_scene_node(ctx, pair->value);
        if (!key || key->type != YAML_SCALAR_NODE) {
            return fd_scene_fail(ctx, key, path, "keys must be plain names");
        }
        const char* name = fd_scene_scalar(key);
        if (strcmp(name, "model") == 0) {
            continue;
        }
        mark = path_push(path, name, 0);
        int p = -1;
        for (int i = 0; info && i < info->param_count; ++i) {
            if (strcmp(info->params[i].name, name) == 0) {
                p = i;
            }
        }
        if (p < 0) {
            const char* close = fd_scene_closest(name, param_names, param_count);
            if (param_count == 0) {
                status = fd_scene_fail(ctx, key, path, "unknown parameter '%s': %s model '%s' takes no parameters",
                                       name, mechanism_name, out->model);
            } else if (close) {
                status = fd_scene_fail(ctx, key, path,
                                       "unknown parameter '%s' of %s model '%s' (did you mean '%s'? parameters: %s)",
                                       name, mechanism_name, out->model, close, param_list);
            } else {
                status = fd_scene_fail(ctx, key, path, "unknown parameter '%s' of %s model '%s' (parameters: %s)", name,
                                       mechanism_name, out->model, param_list);
            }
        }
        for (int i = 0; status == FD_OK && i < out->param_count; ++i) {
            if (strcmp(out->params[i].name, name) == 0) {
                status = fd_scene_fail(ctx, key, path, "duplicate key");
            }
        }
        double v = 0;
        if (status == FD_OK) {
            status = parse_number(ctx, value, path, &v);
        }
        if (status == FD_OK) {
            const fd_param_info* param = &info->params[p];
            fd_scene_range r = ANY;
            if (!isnan(param->min_value) && param->min_value > -INFINITY) {
                r.lo_kind = FD_SCENE_INCLUSIVE;
                r.lo = param->min_value;
            }
            if (!isnan(param->max_value) && param->max_value < INFINITY) {
                r.hi_kind = FD_SCENE_INCLUSIVE;
                r.hi = param->max_value;
            }
            status = check_range(ctx, value, path, &r, v);
        }
        if (status == FD_OK && out->param_count == FD_MAX_SUBMODEL_PARAMS) {
            status = fd_scene_fail(ctx, key, path, "too many parameters (at most %d)", FD_MAX_SUBMODEL_PARAMS);
        }
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
        out->params[out->param_count++] = (fd_param){info->params[p].name, v};
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- mappings */

void fd_scene_apply_defaults(const fd_scene_table* table, void* target)
{
    char* base = target;
    for (int k = 0; k < table->key_count; ++k) {
        const fd_scene_key* key = &table->keys[k];
        void* field = base + key->offset;
        switch (key->type) {
        case FD_SCENE_NUMBER:
            *(double*)field = key->def[0];
            break;
        case FD_SCENE_INTEGER:
            *(int64_t*)field = (int64_t)key->def[0];
            break;
        case FD_SCENE_BOOL:
            *(bool*)field = key->def[0] != 0.0;
            break;
        case FD_SCENE_ENUM:
            *(int*)field = (int)key->def[0];
            break;
        case FD_SCENE_VEC3:
            *(fd_vec3*)field = (fd_vec3){key->def[0], key->def[1], key->def[2]};
            break;
        case FD_SCENE_QUAT:
            *(fd_quat*)field = (fd_quat){key->def[0], key->def[1], key->def[2], key->def[3]};
            break;
        case FD_SCENE_MAP:
            fd_scene_apply_defaults(key->sub, field);
            break;
        case FD_SCENE_STRING:
            *(const char**)field = NULL;
            break;
        case FD_SCENE_AXES:
            *(uint32_t*)field = 0;
            break;
        case FD_SCENE_NAME_PAIR:
            ((const char**)field)[0] = ((const char**)field)[1] = NULL;
            break;
        case FD_SCENE_LIST:
            *(fd_scene_list*)field = (fd_scene_list){NULL, 0};
            break;
        case FD_SCENE_SUBMODEL:
            memset(field, 0, sizeof(fd_submodel_def));
            break;
        }
    }
}

static fd_status parse_list(fd_scene_ctx* ctx, const yaml_node_t* node, const fd_scene_key* key, char* path,
                            fd_scene_list* out)
{
    out->items = NULL;
    out->count = 0;
    if (!fd_scene_is_null(node)) {
        if (!node || node->type != YAML_SEQUENCE_NODE) {
            return expected(ctx, node, path, "a sequence of mappings (lines starting with '- ')");
        }
        int count = fd_scene_item_count(node);
        if (count > 0) {
            out->items = fd_scene_alloc(ctx, (size_t)count, key->sub->size);
            if (!out->items) {
                return FD_ERR_PARSE;
            }
        }
        for (int i = 0; i < count; ++i) {
            void* item = (char*)out->items + (size_t)i * key->sub->size;
            fd_scene_apply_defaults(key->sub, item);
            size_t mark = path_push(path, NULL, i);
            fd_status status = fd_scene_parse_map(ctx, fd_scene_item(ctx, node, i), key->sub, item, path);
            path[mark] = '\0';
            if (status != FD_OK) {
                return status;
            }
            out->count = i + 1;
        }
    }
    if ((key->flags & FD_SCENE_NONEMPTY) && out->count == 0) {
        return fd_scene_fail(ctx, node, path, "needs at least one entry");
    }
    return FD_OK;
}

static fd_status parse_value(fd_scene_ctx* ctx, const yaml_node_t* node, const fd_scene_key* key, char* path,
                             void* field)
{
    switch (key->type) {
    case FD_SCENE_STRING:
        return parse_string(ctx, node, path, key->flags & FD_SCENE_NONEMPTY, (const char**)field);
    case FD_SCENE_NUMBER: {
        fd_status status = parse_number(ctx, node, path, (double*)field);
        return status ? status : check_range(ctx, node, path, &key->range, *(double*)field);
    }
    case FD_SCENE_INTEGER:
        return parse_integer(ctx, node, path, &key->range, (int64_t*)field);
    case FD_SCENE_BOOL:
        return parse_bool(ctx, node, path, (bool*)field);
    case FD_SCENE_VEC3: {
        double v[3];
        fd_status status = parse_numbers(ctx, node, path, &key->range, 3, "[x, y, z]", v);
        if (status == FD_OK) {
            *(fd_vec3*)field = (fd_vec3){v[0], v[1], v[2]};
        }
        return status;
    }
    case FD_SCENE_QUAT:
        return parse_quat(ctx, node, path, (fd_quat*)field);
    case FD_SCENE_ENUM:
        return parse_enum(ctx, node, path, key->choices, (int*)field);
    case FD_SCENE_AXES:
        return parse_axes(ctx, node, path, (uint32_t*)field);
    case FD_SCENE_NAME_PAIR:
        return parse_name_pair(ctx, node, path, (const char**)field);
    case FD_SCENE_MAP:
        if (fd_scene_is_null(node)) {
            seen_of(key->sub, field)->map = node; /* an empty block: all defaults */
            return FD_OK;
        }
        if ((key->flags & FD_SCENE_SHORTHAND) && node && node->type == YAML_SCALAR_NODE) {
            seen_of(key->sub, field)->map = node; /* the scalar is the first key's value */
            seen_of(key->sub, field)->value[0] = node;
            return parse_value(ctx, node, &key->sub->keys[0], path, (char*)field + key->sub->keys[0].offset);
        }
        return fd_scene_parse_map(ctx, node, key->sub, field, path);
    case FD_SCENE_LIST:
        return parse_list(ctx, node, key, path, (fd_scene_list*)field);
    case FD_SCENE_SUBMODEL:
        return parse_submodel(ctx, node, path, (fd_mechanism)key->mechanism, (fd_submodel_def*)field);
    }
    return fd_scene_fail(ctx, node, path, "internal error: unknown key type");
}

fd_status fd_scene_parse_map(fd_scene_ctx* ctx, const yaml_node_t* node, const fd_scene_table* table, void* target,
                             char* path)
{
    fd_scene_seen* seen = seen_of(table, target);
    seen->map = node;
    if (!node || node->type != YAML_MAPPING_NODE) {
        return expected(ctx, node, path, "a mapping (key: value lines)");
    }
    const char* names[FD_SCENE_MAX_KEYS];
    for (int k = 0; k < table->key_count; ++k) {
        names[k] = table->keys[k].name;
    }
    for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; ++pair) {
        const yaml_node_t* key_node = fd_scene_node(ctx, pair->key);
        const yaml_node_t* value = fd_scene_node(ctx, pair->value);
        if (!key_node || key_node->type != YAML_SCALAR_NODE) {
            return fd_scene_fail(ctx, key_node, path, "keys must be plain names, not a mapping or a sequence");
        }
        const char* name = fd_scene_scalar(key_node);
        int k = 0;
        while (k < table->key_count && strcmp(table->keys[k].name, name) != 0) {
            ++k;
        }
        size_t mark = path_push(path, name, 0);
        fd_status status = FD_OK;
        if (k == table->key_count) {
            const char* close = fd_scene_closest(name, names, table->key_count);
            char list[600];
            fd_scene_join(list, sizeof list, names, table->key_count);
            if (close) {
                status = fd_scene_fail(ctx, key_node, path, "unknown key '%s' (did you mean '%s'?)", name, close);
            } else {
                status = fd_scene_fail(ctx, key_node, path, "unknown key '%s' (valid keys here: %s)", name, list);
            }
        } else if (seen->value[k]) {
            char where[FD_PATH_MAX];
            fd_scene_where(ctx, seen->value[k], where, sizeof where);
            status = fd_scene_fail(ctx, key_node, path, "duplicate key (first given at %s)", where);
        } else {
            seen->value[k] = value;
            status = parse_value(ctx, value, &table->keys[k], path, (char*)target + table->keys[k].offset);
        }
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
    }
    for (int k = 0; k < table->key_count; ++k) {
        if ((table->keys[k].flags & FD_SCENE_REQUIRED) && !seen->value[k]) {
            size_t mark = path_push(path, table->keys[k].name, 0);
            fd_status status = fd_scene_fail(ctx, node, path, "required key is missing");
            path[mark] = '\0';
            return status;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- reference docs */

static const char* type_text(const fd_scene_key* key, char* buffer, size_t size)
{
    switch (key->type) {
    case FD_SCENE_STRING:
        return "string";
    case FD_SCENE_NUMBER:
        return "number";
    case FD_SCENE_INTEGER:
        return "integer";
    case FD_SCENE_BOOL:
        return "bool";
    case FD_SCENE_VEC3:
        return "[x, y, z]";
    case FD_SCENE_QUAT:
        return "[w, x, y, z]";
    case FD_SCENE_AXES:
        return "list of x, y, z";
    case FD_SCENE_NAME_PAIR:
        return "[name, name]";
    case FD_SCENE_MAP:
        return key->flags & FD_SCENE_SHORTHAND ? "string or mapping" : "mapping";
    case FD_SCENE_LIST:
        return "sequence";
    case FD_SCENE_SUBMODEL:
        return "{model: NAME, ...}";
    case FD_SCENE_ENUM: {
        size_t used = 0;
        buffer[0] = '\0';
        for (int i = 0; key->choices[i]; ++i) {
            used += (size_t)snprintf(buffer + used, size - used, "%s`%s`", i ? " \\| " : "", key->choices[i]);
            if (used >= size) {
                break;
            }
        }
        return buffer;
    }
    }
    return "?";
}

static const char* default_text(const fd_scene_key* key, char* buffer, size_t size)
{
    if (key->flags & FD_SCENE_REQUIRED) {
        return "required";
    }
    if (key->def_text) {
        return key->def_text;
    }
    switch (key->type) {
    case FD_SCENE_NUMBER:
        snprintf(buffer, size, "%g", key->def[0]);
        break;
    case FD_SCENE_INTEGER:
        snprintf(buffer, size, "%" PRId64, (int64_t)key->def[0]);
        break;
    case FD_SCENE_BOOL:
        snprintf(buffer, size, "%s", key->def[0] != 0.0 ? "true" : "false");
        break;
    case FD_SCENE_ENUM:
        snprintf(buffer, size, "`%s`", key->choices[(int)key->def[0]]);
        break;
    case FD_SCENE_VEC3:
        snprintf(buffer, size, "[%g, %g, %g]", key->def[0], key->def[1], key->def[2]);
        break;
    case FD_SCENE_QUAT:
        snprintf(buffer, size, "[%g, %g, %g, %g]", key->def[0], key->def[1], key->def[2], key->def[3]);
        break;
    case FD_SCENE_LIST:
        snprintf(buffer, size, "empty");
        break;
    default:
        snprintf(buffer, size, "none");
        break;
    }
    return buffer;
}

static void write_table(FILE* out, const fd_scene_table* table)
{
    fprintf(out, "### `%s`\n\n%s\n\n", table->title, table->doc);
    fprintf(out, "| key | type | unit | default | allowed | meaning |\n");
    fprintf(out, "|-----|------|------|---------|---------|---------|\n");
    for (int k = 0; k < table->key_count; ++k) {
        const fd_scene_key* key = &table->keys[k];
        char type[256], def[128], allowed[128] = "";
        if (key->type == FD_SCENE_NUMBER || key->type == FD_SCENE_INTEGER || key->type == FD_SCENE_VEC3) {
            char range[96];
            format_range(&key->range, range, sizeof range);
            snprintf(allowed, sizeof allowed, "%s%s", key->type == FD_SCENE_VEC3 && range[0] ? "each " : "", range);
        } else if (key->type == FD_SCENE_QUAT) {
            snprintf(allowed, sizeof allowed, "unit");
        } else if (key->type == FD_SCENE_LIST && (key->flags & FD_SCENE_NONEMPTY)) {
            snprintf(allowed, sizeof allowed, ">= 1 entry");
        } else if (key->type == FD_SCENE_STRING && (key->flags & FD_SCENE_NONEMPTY)) {
            snprintf(allowed, sizeof allowed, "non-empty");
        }
        const char* unit = key->unit && key->unit[0] ? key->unit : "";
        fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", key->name, type_text(key, type, sizeof type), unit,
                default_text(key, def, sizeof def), allowed, key->doc);
    }
    fprintf(out, "\n");
    for (int k = 0; k < table->key_count; ++k) {
        if (table->keys[k].type == FD_SCENE_MAP || table->keys[k].type == FD_SCENE_LIST) {
            write_table(out, table->keys[k].sub);
        }
    }
}

void fd_scene_write_reference(FILE* out)
{
    fprintf(out, "<!-- Generated from the key tables in src/io/scene_schema.c by `fricdem scene-format`;\n"
                 "     tests/test_scene.c checks that this section matches them. Do not edit by hand. -->\n\n");
    write_table(out, &fd_scene_file_table);
}
