/* fd_scene_load: a YAML scene file (docs/scene-format.md) into a world.
 *
 * The stages, each in its own function:
 *   load      fd_scene_doc_load: the file into a libyaml document (lines kept),
 *             except the items of the top-level bodies list, which are read
 *             one at a time when the bodies are built (scene_stream.c);
 *   override  fd_scene_apply_override: each --set grafted into the tree;
 *   parse     fd_scene_parse_map with the key tables of scene_schema.c: types,
 *             ranges, unknown and missing keys, into a fd_scene_file struct;
 *   build     what the tables cannot check (unique names, references to
 *             materials, keys that depend on the shape type, orientation vs
 *             rotation), then the world itself: materials, contact laws,
 *             bodies, generated bodies (scene_generate.c), inlets
 *             (scene_inlet.c), outlets (scene_outlet.c);
 *   outputs   the output settings and the run length.
 * Every error is FD_ERR_PARSE (FD_ERR_IO when the file cannot be read) with a
 * message "FILE:LINE: key.path: what is wrong", and leaves *out empty. The
 * world's own checks (fd_world_create_*, fd_world_set_contact_law) are
 * reported the same way, at the line of the entry that failed.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/math.h"
#include "core/report.h"
#include "io/scene_loader.h"

static const char* const shape_type_articles[FD_SCENE_SHAPE_COUNT] = {
    "a sphere", "a plane", "an ellipsoid", "a cylinder", "a disk", "a box", "a mesh"};
/* The world's shape of each scene shape type (a box is a mesh of 12 triangles). */
static const fd_shape_type world_shape_types[FD_SCENE_SHAPE_COUNT] = {
    [FD_SCENE_SHAPE_SPHERE] = FD_SHAPE_SPHERE,     [FD_SCENE_SHAPE_PLANE] = FD_SHAPE_PLANE,
    [FD_SCENE_SHAPE_ELLIPSOID] = FD_SHAPE_ELLIPSOID, [FD_SCENE_SHAPE_CYLINDER] = FD_SHAPE_CYLINDER,
    [FD_SCENE_SHAPE_DISK] = FD_SHAPE_DISK,         [FD_SCENE_SHAPE_BOX] = FD_SHAPE_MESH,
    [FD_SCENE_SHAPE_MESH] = FD_SHAPE_MESH};

/* "duplicate name 'x' (first at line 4)", or out of memory. */
static fd_status duplicate_name(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const char* what,
                                const char* name, const yaml_node_t* first)
{
    if (!first) {
        return fd_scene_fail(ctx, node, path, "out of memory");
    }
    char where[FD_PATH_MAX];
    fd_scene_where(ctx, first, where, sizeof where);
    return fd_scene_fail(ctx, node, path, "duplicate %s name '%s' (first used at %s)", what, name, where);
}

/* ---------------------------------------------------------------- materials */

static fd_status build_materials(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file)
{
    const fd_scene_material* materials = file->materials.items;
    char path[FD_SCENE_PATH_MAX];
    for (int i = 0; i < file->materials.count; ++i) {
        const fd_scene_material* m = &materials[i];
        for (int j = 0; j < i; ++j) {
            if (strcmp(materials[j].name, m->name) == 0) {
                snprintf(path, sizeof path, "materials[%d].name", i);
                return duplicate_name(ctx, fd_scene_given(&fd_scene_material_table, m, "name"), path, "material",
                                      m->name, fd_scene_given(&fd_scene_material_table, &materials[j], "name"));
            }
        }
        fd_material_def def = fd_default_material_def();
        def.name = m->name;
        def.density = m->density;
        def.youngs_modulus = m->youngs_modulus;
        def.poisson_ratio = m->poisson_ratio;
        if (fd_material_id_is_null(fd_world_create_material(world, &def))) {
            snprintf(path, sizeof path, "materials[%d]", i);
            return fd_scene_fail(ctx, m->seen.map, path, "%s", fd_last_error());
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- contact laws */

static fd_status build_contacts(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file)
{
    static const char* const mechanism_keys[FD_MECHANISM_COUNT] = {"normal", "slide", "roll", "spin"};
    const fd_scene_contact* contacts = file->contacts.items;
    fd_material_id* pairs = fd_scene_alloc(ctx, (size_t)file->contacts.count * 2, sizeof *pairs);
    if (!pairs) {
        return FD_ERR_PARSE;
    }
    char path[FD_SCENE_PATH_MAX];
    for (int i = 0; i < file->contacts.count; ++i) {
        const fd_scene_contact* c = &contacts[i];
        const yaml_node_t* names = fd_scene_given(&fd_scene_contact_table, c, "materials");
        for (int side = 0; side < 2; ++side) {
            snprintf(path, sizeof path, "contacts[%d].materials[%d]", i, side);
            fd_status status = fd_scene_find_material(ctx, world, file, c->materials[side],
                                                      fd_scene_item(ctx, names, side), path, &pairs[2 * i + side]);
            if (status != FD_OK) {
                return status;
            }
        }
        fd_material_id a = pairs[2 * i], b = pairs[2 * i + 1];
        for (int j = 0; j < i; ++j) {
            fd_material_id pa = pairs[2 * j], pb = pairs[2 * j + 1];
            if ((pa.index1 == a.index1 && pb.index1 == b.index1) || (pa.index1 == b.index1 && pb.index1 == a.index1)) {
                char where[FD_PATH_MAX];
                fd_scene_where(ctx, contacts[j].seen.map, where, sizeof where);
                snprintf(path, sizeof path, "contacts[%d].materials", i);
                return fd_scene_fail(ctx, names, path, "a second contact law for materials %s and %s (first at %s)",
                                     c->materials[0], c->materials[1], where);
            }
        }
        fd_contact_law_def law = fd_default_contact_law_def();
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            if (fd_scene_given(&fd_scene_contact_table, c, mechanism_keys[m])) {
                law.submodel[m] = c->submodel[m];
            }
        }
        if (fd_world_set_contact_law(world, a, b, &law) != FD_OK) {
            snprintf(path, sizeof path, "contacts[%d]", i);
            return fd_scene_fail(ctx, c->seen.map, path, "%s", fd_last_error());
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- bodies */

#define SHAPE_BIT(type) (1u << (type))

/* Which shape types use each shape key, and which need it. */
typedef struct shape_key_use {
    const char* key;
    unsigned used_by;
    unsigned required_by;
    const char* owners; /* for the message */
} shape_key_use;

static const shape_key_use shape_key_uses[] = {
    {"radius", SHAPE_BIT(FD_SCENE_SHAPE_SPHERE) | SHAPE_BIT(FD_SCENE_SHAPE_CYLINDER) | SHAPE_BIT(FD_SCENE_SHAPE_DISK),
     SHAPE_BIT(FD_SCENE_SHAPE_SPHERE) | SHAPE_BIT(FD_SCENE_SHAPE_CYLINDER) | SHAPE_BIT(FD_SCENE_SHAPE_DISK),
     "sphere, cylinder and disk"},
    {"semi_axes", SHAPE_BIT(FD_SCENE_SHAPE_ELLIPSOID), SHAPE_BIT(FD_SCENE_SHAPE_ELLIPSOID), "ellipsoid"},
    {"normal", SHAPE_BIT(FD_SCENE_SHAPE_PLANE), 0, "plane"},
    {"length", SHAPE_BIT(FD_SCENE_SHAPE_CYLINDER), SHAPE_BIT(FD_SCENE_SHAPE_CYLINDER), "cylinder"},
    {"capped", SHAPE_BIT(FD_SCENE_SHAPE_CYLINDER), 0, "cylinder"},
    {"inner_radius", SHAPE_BIT(FD_SCENE_SHAPE_DISK), 0, "disk"},
    {"size", SHAPE_BIT(FD_SCENE_SHAPE_BOX), SHAPE_BIT(FD_SCENE_SHAPE_BOX), "box"},
    {"file", SHAPE_BIT(FD_SCENE_SHAPE_MESH), SHAPE_BIT(FD_SCENE_SHAPE_MESH), "mesh"},
    {"scale", SHAPE_BIT(FD_SCENE_SHAPE_MESH), 0, "mesh"},
    {"feature_angle", SHAPE_BIT(FD_SCENE_SHAPE_MESH), 0, "mesh"},
};

/* Finite walls: static only (a cylinder, disk, box or mesh has no mass model). */
static bool is_finite_wall(int scene_shape)
{
    return scene_shape == FD_SCENE_SHAPE_CYLINDER || scene_shape == FD_SCENE_SHAPE_DISK ||
           scene_shape == FD_SCENE_SHAPE_BOX || scene_shape == FD_SCENE_SHAPE_MESH;
}

static fd_status shape_fail(fd_scene_ctx* ctx, const fd_scene_shape* s, char* path, size_t length, const char* key,
                            const char* message)
{
    snprintf(path + length, FD_SCENE_PATH_MAX - length, ".shape.%s", key);
    const yaml_node_t* node = fd_scene_given(&fd_scene_shape_table, s, key);
    return fd_scene_fail(ctx, node ? node : s->seen.map, path, "%s", message);
}

/* The mesh of a box or mesh wall, handed to the world (which frees it). */
static fd_status shape_mesh(fd_scene_ctx* ctx, fd_world* world, const fd_scene_shape* s, char* path, size_t length,
                            fd_shape_def* shape)
{
    char message[1024];
    fd_mesh* mesh = NULL;
    if (s->type == FD_SCENE_SHAPE_BOX) {
        mesh = fd_mesh_create_box(s->size, message, (int)sizeof message);
    } else {
        char file[4096];
        if (!fd_scene_resolve_path(ctx, s->file, file, sizeof file)) {
            return shape_fail(ctx, s, path, length, "file", "path too long");
        }
        mesh = fd_mesh_read_stl(file, s->scale, s->feature_angle * FD_PI / 180.0, message, (int)sizeof message);
    }
    if (mesh == NULL) {
        return shape_fail(ctx, s, path, length, s->type == FD_SCENE_SHAPE_BOX ? "size" : "file", message);
    }
    if (fd_world_adopt_mesh(world, mesh) != FD_OK) {
        fd_mesh_free(mesh);
        return shape_fail(ctx, s, path, length, "type", fd_last_error());
    }
    shape->mesh = mesh;
    shape->mesh_patch = -1; /* every patch: fd_world_create_wall makes one body of each */
    return FD_OK;
}

/* The keys of a shape that its type uses; a key given for another type is an
 * error rather than silently ignored. */
static fd_status check_shape(fd_scene_ctx* ctx, fd_world* world, const fd_scene_body* body, char* path,
                             fd_shape_def* shape)
{
    const fd_scene_shape* s = &body->shape;
    size_t length = strlen(path);
    for (size_t k = 0; k < sizeof shape_key_uses / sizeof shape_key_uses[0]; ++k) {
        const shape_key_use* use = &shape_key_uses[k];
        const yaml_node_t* given = fd_scene_given(&fd_scene_shape_table, s, use->key);
        snprintf(path + length, FD_SCENE_PATH_MAX - length, ".shape.%s", use->key);
        if (given && !(use->used_by & SHAPE_BIT(s->type))) {
            return fd_scene_fail(ctx, given, path, "not used by %s (only by %s shapes)", shape_type_articles[s->type],
                                 use->owners);
        }
        if (!given && (use->required_by & SHAPE_BIT(s->type))) {
            return fd_scene_fail(ctx, s->seen.map, path, "required key is missing (for %s)",
                                 shape_type_articles[s->type]);
        }
    }
    path[length] = '\0';
    if (is_finite_wall(s->type) && !body->is_static) {
        char message[160];
        snprintf(message, sizeof message,
                 "%s is a wall: it must be a static body (add 'static: true'; it moves by 'motion')",
                 shape_type_articles[s->type]);
        return shape_fail(ctx, s, path, length, "type", message);
    }
    shape->type = world_shape_types[s->type];
    shape->radius = s->radius;
    shape->semi_axes = s->semi_axes;
    shape->plane_normal = s->normal;
    switch (s->type) {
    case FD_SCENE_SHAPE_CYLINDER:
        shape->length = s->length;
        shape->capped = s->capped;
        break;
    case FD_SCENE_SHAPE_DISK:
        if (!(s->inner_radius < s->radius)) {
            return shape_fail(ctx, s, path, length, "inner_radius", "must be less than radius");
        }
        shape->inner_radius = s->inner_radius;
        break;
    case FD_SCENE_SHAPE_BOX:
    case FD_SCENE_SHAPE_MESH:
        return shape_mesh(ctx, world, s, path, length, shape);
    case FD_SCENE_SHAPE_PLANE:
        if (fd_v3_length(s->normal) == 0.0) {
            return shape_fail(ctx, s, path, length, "normal", "must not be zero");
        }
        shape->plane_normal = fd_v3_normalize(s->normal);
        /* A moving plane (a carriage's raceway) needs a mass and its rotations locked. */
        if (!body->is_static && (!(body->mass > 0.0) || (body->lock.rotation != (FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z)))) {
            return shape_fail(ctx, s, path, length, "type",
                              "a plane must be a static body (add 'static: true'), or a moving one with a mass "
                              "and 'lock: {rotation: [x, y, z]}'");
        }
        break;
    default: /* a sphere or an ellipsoid: radius or semi_axes, set above */
        break;
    }
    return FD_OK;
}

static fd_status body_orientation(fd_scene_ctx* ctx, const fd_scene_body* body, char* path, fd_quat* q)
{
    const yaml_node_t* rotation = fd_scene_given(&fd_scene_body_table, body, "rotation");
    *q = body->orientation;
    if (!rotation) {
        return FD_OK;
    }
    size_t length = strlen(path);
    if (fd_scene_given(&fd_scene_body_table, body, "orientation")) {
        snprintf(path + length, FD_SCENE_PATH_MAX - length, ".rotation");
        return fd_scene_fail(ctx, rotation, path, "give either orientation or rotation, not both");
    }
    if (fd_scene_is_null(rotation)) {
        return FD_OK;
    }
    fd_vec3 axis = body->rotation.axis;
    if (fd_v3_length(axis) == 0.0) {
        snprintf(path + length, FD_SCENE_PATH_MAX - length, ".rotation.axis");
        return fd_scene_fail(ctx, fd_scene_given(&fd_scene_rotation_table, &body->rotation, "axis"), path,
                             "must not be zero");
    }
    *q = fd_quat_from_axis_angle(fd_v3_normalize(axis), body->rotation.angle);
    return FD_OK;
}

/* Body i from its parsed keys. */
static fd_status build_body(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, const fd_scene_body* b,
                            int i, fd_scene_names* names)
{
    char path[FD_SCENE_PATH_MAX];
    fd_status status = FD_OK;
    if (b->name) {
        const yaml_node_t* node = fd_scene_given(&fd_scene_body_table, b, "name");
        const yaml_node_t* first = NULL;
        if (!fd_scene_names_add(names, b->name, node, &first)) {
            snprintf(path, sizeof path, "bodies[%d].name", i);
            return duplicate_name(ctx, node, path, "body", b->name, first);
        }
    }
    fd_body_def def = fd_default_body_def();
    snprintf(path, sizeof path, "bodies[%d].material", i);
    status = fd_scene_find_material(ctx, world, file, b->material, fd_scene_given(&fd_scene_body_table, b, "material"),
                                    path, &def.material);
    snprintf(path, sizeof path, "bodies[%d]", i);
    if (status == FD_OK) {
        status = check_shape(ctx, world, b, path, &def.shape);
    }
    if (status == FD_OK) {
        status = body_orientation(ctx, b, path, &def.orientation);
    }
    if (status != FD_OK) {
        return status;
    }
    /* A static body never moves: a velocity given to it would be ignored. */
    static const char* const motion_keys[] = {"velocity", "angular_velocity"};
    const fd_vec3 motion[] = {b->velocity, b->angular_velocity};
    for (int k = 0; k < 2 && b->is_static; ++k) {
        if (motion[k].x != 0.0 || motion[k].y != 0.0 || motion[k].z != 0.0) {
            snprintf(path, sizeof path, "bodies[%d].%s", i, motion_keys[k]);
            return fd_scene_fail(ctx, fd_scene_given(&fd_scene_body_table, b, motion_keys[k]), path,
                                 "a static body moves only by a prescribed 'motion' (a wall): give it there, or make "
                                 "the body dynamic (static: false)");
        }
    }
    const yaml_node_t* motion_node = fd_scene_given(&fd_scene_body_table, b, "motion");
    if (motion_node && !fd_scene_is_null(motion_node) && !b->is_static) {
        snprintf(path, sizeof path, "bodies[%d].motion", i);
        return fd_scene_fail(ctx, motion_node, path,
                             "only a static body (a wall) takes a prescribed motion; a dynamic one moves by its loads");
    }
    def.name = b->name;
    def.type = b->is_static ? FD_BODY_STATIC : FD_BODY_DYNAMIC;
    def.position = b->position;
    def.velocity = b->velocity;
    def.angular_velocity = b->angular_velocity;
    def.mass = b->mass;
    def.inertia = b->inertia;
    def.lock_translation = b->lock.translation;
    def.lock_rotation = b->lock.rotation;
    def.lock_frame = b->lock.frame;
    def.external_force = b->external_force;
    def.external_torque = b->external_torque;
    def.friction_axis = b->friction_axis;
    def.friction_force = b->friction_force;
    fd_scene_body_created(ctx);
    fd_body_id id = {0, 0};
    if (is_finite_wall(b->shape.type)) {
        int parts = 0; /* a capped cylinder is 3 bodies, a mesh one per patch (docs/walls.md) */
        if (fd_world_create_wall(world, &def, &id, &parts) != FD_OK) {
            id = (fd_body_id){0, 0};
        }
    } else {
        id = fd_world_create_body(world, &def);
    }
    if (fd_body_id_is_null(id)) {
        return fd_scene_fail(ctx, b->seen.map, path, "%s", fd_last_error());
    }
    if (motion_node && !fd_scene_is_null(motion_node)) {
        const fd_scene_motion* m = &b->motion;
        fd_wall_motion wall_motion = {m->velocity,         m->velocity_ramp,         m->amplitude, m->frequency,
                                      m->angular_velocity, m->angular_velocity_ramp, m->start_time};
        if (fd_world_set_wall_motion(world, id, &wall_motion) != FD_OK) {
            snprintf(path, sizeof path, "bodies[%d].motion", i);
            return fd_scene_fail(ctx, motion_node, path, "%s", fd_last_error());
        }
    }
    return FD_OK;
}

typedef struct streamed_bodies {
    fd_world* world;
    const fd_scene_file* file;
    fd_scene_names* names;
} streamed_bodies;

/* One item of a streamed bodies list: parsed against the body table as an
 * item of the list would be, then built; its document is deleted after this
 * (the world has copied what it keeps). */
static fd_status build_streamed_body(fd_scene_ctx* ctx, int index, const yaml_node_t* item, void* user)
{
    const streamed_bodies* bodies = user;
    fd_scene_body body = {0};
    char path[FD_SCENE_PATH_MAX];
    snprintf(path, sizeof path, "bodies[%d]", index);
    fd_scene_apply_defaults(&fd_scene_body_table, &body);
    fd_status status = fd_scene_parse_map(ctx, item, &fd_scene_body_table, &body, path);
    return status == FD_OK ? build_body(ctx, bodies->world, bodies->file, &body, index, bodies->names) : status;
}

/* The bodies list: read from the file's text item by item when streamed (the
 * usual case, scene_stream.c), else parsed with the rest of the document (a
 * list given whole by --set bodies=[...], or one that has an anchor). */
static fd_status build_bodies(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, fd_scene_names* names)
{
    if (ctx->bodies_streamed) {
        streamed_bodies bodies = {world, file, names};
        return fd_scene_stream_bodies(ctx, build_streamed_body, &bodies);
    }
    const fd_scene_body* bodies = file->bodies.items;
    for (int i = 0; i < file->bodies.count; ++i) {
        fd_status status = build_body(ctx, world, file, &bodies[i], i, names);
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- scene */

/* world.periodic and world.box come together; the box is a box. */
static fd_status check_periodic(fd_scene_ctx* ctx, const fd_scene_world* world)
{
    const yaml_node_t* periodic = fd_scene_given(&fd_scene_world_table, world, "periodic");
    const yaml_node_t* box = fd_scene_given(&fd_scene_world_table, world, "box");
    if (world->periodic != 0 && !box) {
        return fd_scene_fail(ctx, periodic, "world.periodic",
                             "periodic axes need a box: add world.box: {min: [x, y, z], max: [x, y, z]}");
    }
    if (box && world->periodic == 0) {
        return fd_scene_fail(ctx, box, "world.box", "a box is used only with periodic axes (give world.periodic)");
    }
    if (!box || fd_scene_is_null(box)) {
        return box ? fd_scene_fail(ctx, box, "world.box", "required keys min and max are missing") : FD_OK;
    }
    const double lo[3] = {world->box.min.x, world->box.min.y, world->box.min.z};
    const double hi[3] = {world->box.max.x, world->box.max.y, world->box.max.z};
    for (int a = 0; a < 3; ++a) {
        if (!(hi[a] > lo[a])) {
            return fd_scene_fail(ctx, fd_scene_given(&fd_scene_box_table, &world->box, "max"), "world.box.max",
                                 "must be > min in every component (%c: max %g <= min %g)", "xyz"[a], hi[a], lo[a]);
        }
    }
    return FD_OK;
}

/* Each period must hold two reaches 2 r_max + margin (minimum image); known
 * once the bodies exist, reported at the box. */
static fd_status check_box_size(fd_scene_ctx* ctx, fd_world* world, const fd_scene_world* scene_world)
{
    fd_world_def def = fd_world_get_def(world);
    double largest = 0.0;
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        fd_body_info info = fd_body_get_info(world, fd_world_body_at(world, b));
        if (info.shape.type != FD_SHAPE_PLANE && info.bounding_radius > largest) {
            largest = info.bounding_radius;
        }
    }
    double needed = 2.0 * (2.0 * largest + def.contact_margin);
    for (int a = 0; a < 3; ++a) {
        double length = fd_v3_component(def.box_max, a) - fd_v3_component(def.box_min, a);
        if (def.periodic[a] && !(length >= needed)) {
            return fd_scene_fail(ctx, fd_scene_given(&fd_scene_world_table, scene_world, "box"), "world.box",
                                 "the box is %g m along periodic axis %c, less than 2 x (largest bounding diameter "
                                 "%g m + contact_margin %g m) = %g m: a body could touch two images of another",
                                 length, "xyz"[a], 2.0 * largest, def.contact_margin, needed);
        }
    }
    return FD_OK;
}

static fd_status build_world(fd_scene_ctx* ctx, const fd_scene_file* file, fd_world** out)
{
    fd_status status = check_periodic(ctx, &file->world);
    if (status != FD_OK) {
        return status;
    }
    fd_world_def def = fd_default_world_def();
    for (int a = 0; a < 3; ++a) {
        def.periodic[a] = (file->world.periodic & (1u << a)) != 0;
    }
    def.box_min = file->world.box.min;
    def.box_max = file->world.box.max;
    def.gravity = file->world.gravity;
    def.time_step = file->time.step;
    def.integrator = file->time.integrator == 1 ? FD_INTEGRATOR_VELOCITY_VERLET : FD_INTEGRATOR_SYMPLECTIC_EULER;
    def.contact_margin = file->world.contact_margin;
    def.cell_size = file->world.cell_size;
    def.thread_count = (int)file->world.threads;
    def.neighbor_skin = file->world.neighbor_skin;
    /* The ledger is what energy.csv writes; events what events.csv writes. */
    def.energy_ledger = file->world.energy_ledger || file->output.energy_csv;
    /* Each contact's own books only where a file shows them (reading and
     * writing them every step is most of what the ledger costs). */
    def.contact_energy_books =
        def.energy_ledger &&
        (file->output.contacts_csv || (file->output.trajectory && file->output.trajectory_contacts));
    def.lammps_arms = file->world.lammps_arms;
    def.lammps_legacy_torque = file->world.lammps_legacy_torque;
    def.events = file->output.events_csv;
    def.stepper = file->world.stepper == 1 ? FD_STEPPER_COMPLEMENTARITY : FD_STEPPER_PENALTY;
    static const fd_solver_method methods[] = {FD_SOLVER_APGD, FD_SOLVER_JACOBI, FD_SOLVER_GAUSS_SEIDEL};
    def.complementarity.solver = methods[file->solver.method];
    def.complementarity.max_iterations = (int)file->solver.max_iterations;
    def.complementarity.tolerance = file->solver.tolerance;
    def.complementarity.omega = file->solver.omega;
    def.complementarity.lambda = file->solver.lambda;
    def.complementarity.recovery_speed = file->solver.recovery_speed;
    def.complementarity.cold_start = !file->solver.warm_start;
    *out = fd_world_create(&def);
    if (!*out) {
        const yaml_node_t* world_node = fd_scene_given(&fd_scene_file_table, file, "world");
        return fd_scene_fail(ctx, world_node ? world_node : fd_scene_given(&fd_scene_file_table, file, "time"),
                             world_node ? "world" : "time", "%s", fd_last_error());
    }
    return FD_OK;
}

/* The file name without its directories and last extension. */
static void file_stem(const char* path, char* stem, size_t size)
{
    const char* base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char* dot = strrchr(base, '.');
    size_t length = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (length >= size) {
        length = size - 1;
    }
    memcpy(stem, base, length);
    stem[length] = '\0';
}

/* Memory a body costs over a run, beyond fd_world_bytes_per_body: its name
 * and name-index slots (about 48 B for names like "grain1234567"), and the
 * neighbour list and contact records of a settled packing, about 450 B
 * (bench/README.md at 10^6 spheres, hooke + dsds: 104 B of lists per body
 * and 1.79 contacts of 194 B). Laws with long histories take more. */
enum { NAME_BYTES = 48, PACKING_BYTES = 450 };

/* A clear error before the bodies are allocated when the scene's bodies,
 * inlets' spheres included, would need more memory than the machine has
 * free: 10^7 generated spheres once took 13.7 GiB with no word. The message
 * names the largest generator or inlet. FRICDEM_NO_MEMORY_CHECK=1 skips it
 * (a machine whose free memory is not what /proc/meminfo says). */
static fd_status check_memory(fd_scene_ctx* ctx, const fd_scene_file* file, int64_t bodies)
{
    const fd_scene_inlet* inlets = file->inlets.items;
    for (int i = 0; i < file->inlets.count; ++i) {
        bodies += inlets[i].count;
    }
    const char* skip = getenv("FRICDEM_NO_MEMORY_CHECK");
    if (bodies <= 0 || (skip != NULL && strcmp(skip, "1") == 0)) {
        return FD_OK;
    }
    char source[128];
    int64_t available = fd_available_memory(source, sizeof source);
    double per_body = (double)fd_world_bytes_per_body() + NAME_BYTES + PACKING_BYTES;
    double needed = (double)bodies * per_body;
    if (available < 0 || needed <= (double)available) {
        return FD_OK;
    }
    /* The largest single source of bodies, for the message's FILE:LINE. */
    const yaml_node_t* node = NULL;
    char path[64] = "";
    int64_t largest = 0;
    const fd_scene_generator* generators = file->generators.items;
    for (int g = 0; g < file->generators.count; ++g) {
        if (generators[g].count > largest) {
            largest = generators[g].count;
            node = fd_scene_given(&fd_scene_generator_table, &generators[g], "count");
            snprintf(path, sizeof path, "generators[%d].count", g);
        }
    }
    for (int i = 0; i < file->inlets.count; ++i) {
        if (inlets[i].count > largest) {
            largest = inlets[i].count;
            node = fd_scene_given(&fd_scene_inlet_table, &inlets[i], "count");
            snprintf(path, sizeof path, "inlets[%d].count", i);
        }
    }
    char needed_text[32], available_text[32];
    fd_format_bytes(needed, needed_text, sizeof needed_text);
    fd_format_bytes((double)available, available_text, sizeof available_text);
    return fd_scene_fail(ctx, node, path,
                         "the scene's %lld bodies need about %s (%.0f B each: %zu B of states, mass and shape, %d B "
                         "of name, %d B of neighbour list and contacts in a packing), more than the %s of memory "
                         "free (%s): lower the count, or run on a larger machine (FRICDEM_NO_MEMORY_CHECK=1 tries "
                         "anyway)",
                         (long long)bodies, needed_text, per_body, fd_world_bytes_per_body(), (int)NAME_BYTES,
                         (int)PACKING_BYTES, available_text, source);
}

/* The run takes round(duration / step) steps, counted in an int64 and as
 * the double t = n step: at most 2^53 (9.0e15), the last count a double
 * holds exactly. More once wrapped to -9223372036854775808 steps, and the
 * run did nothing and exited 0. The message points at the duration when it
 * is beyond any simulated time (above 1e9 s, 30 years), else at the step. */
static fd_status check_step_count(fd_scene_ctx* ctx, const fd_scene_time* time)
{
    const double most_steps = 9007199254740992.0; /* 2^53 */
    double steps = time->duration / time->step;
    if (steps <= most_steps) {
        return FD_OK;
    }
    bool blame_duration = time->duration > 1e9;
    const char* key = blame_duration ? "duration" : "step";
    char path[32];
    snprintf(path, sizeof path, "time.%s", key);
    return fd_scene_fail(ctx, fd_scene_given(&fd_scene_time_table, time, key), path,
                         "%g s of duration in steps of %g s is %.3g steps, more than a run can count (at most 2^53 "
                         "= 9.0e15 steps): %s",
                         time->duration, time->step, steps,
                         blame_duration ? "shorten time.duration" : "lengthen time.step");
}

static fd_status build_scene(fd_scene_ctx* ctx, const fd_scene_file* file, const char* path, fd_scene* out)
{
    if (file->name) {
        if (strlen(file->name) >= sizeof out->name) {
            return fd_scene_fail(ctx, fd_scene_given(&fd_scene_file_table, file, "name"), "name",
                                 "too long (at most %zu characters)", sizeof out->name - 1);
        }
        snprintf(out->name, sizeof out->name, "%s", file->name);
    } else {
        file_stem(path, out->name, sizeof out->name);
        if (!out->name[0]) {
            snprintf(out->name, sizeof out->name, "scene");
        }
    }
    snprintf(out->description, sizeof out->description, "%s", file->description ? file->description : "");
    if (strlen(path) >= sizeof out->path) {
        return fd_scene_fail(ctx, NULL, "", "the path is too long");
    }
    snprintf(out->path, sizeof out->path, "%s", path);
    out->duration = file->time.duration;
    if (file->stages.count == 0 && !fd_scene_given(&fd_scene_time_table, &file->time, "duration")) {
        return fd_scene_fail(ctx, file->time.seen.map, "time.duration",
                             "required key is missing (a scene without stages runs for time.duration)");
    }
    fd_status counted = check_step_count(ctx, &file->time);
    if (counted != FD_OK) {
        return counted;
    }

    const fd_scene_output_keys* o = &file->output;
    fd_output_settings* settings = &out->output;
    int n = o->directory ? snprintf(settings->directory, sizeof settings->directory, "%s", o->directory)
                         : snprintf(settings->directory, sizeof settings->directory, "out/%s", out->name);
    if (n < 0 || (size_t)n >= sizeof settings->directory) {
        return fd_scene_fail(ctx, fd_scene_given(&fd_scene_output_table, o, "directory"), "output.directory",
                             "too long");
    }
    settings->csv_interval = o->csv_interval;
    settings->bodies_csv = o->bodies_csv;
    settings->contacts_csv = o->contacts_csv;
    settings->energy_csv = o->energy_csv;
    settings->events_csv = o->events_csv;
    settings->walls_csv = o->walls_csv;
    settings->outlets_csv = o->outlets_csv;
    settings->vtu_interval = o->vtu_interval;
    settings->vtu_ascii = o->vtu_format == 1;
    settings->checkpoint_interval = o->checkpoint_interval;
    settings->trajectory = o->trajectory;
    settings->trajectory_interval = fd_scene_given(&fd_scene_output_table, o, "trajectory_interval")
                                        ? o->trajectory_interval
                                    : o->vtu_interval > 0.0 ? o->vtu_interval
                                                            : o->csv_interval;
    settings->trajectory_contacts = o->trajectory_contacts;
    settings->trajectory_uncompressed = o->trajectory_compression == 1;
    settings->direct_io = (fd_direct_io)o->direct_io;

    fd_status status = build_world(ctx, file, &out->world);
    if (status == FD_OK) {
        status = build_materials(ctx, out->world, file);
    }
    if (status == FD_OK) {
        status = build_contacts(ctx, out->world, file);
    }
    if (status == FD_OK) {
        /* Every body the scene will hold, in one allocation. */
        int64_t total = file->bodies.count + (ctx->bodies_streamed ? ctx->streamed_body_count : 0) +
                        fd_scene_bodies_file_rows(ctx, file);
        for (int g = 0; g < file->generators.count; ++g) {
            total += ((const fd_scene_generator*)file->generators.items)[g].count;
        }
        ctx->bodies_total = total;
        status = check_memory(ctx, file, total);
        if (status == FD_OK && total > 0 && total < INT32_MAX &&
            fd_world_reserve_bodies(out->world, (int)total) != FD_OK) {
            status = fd_scene_fail(ctx, NULL, "", "%s", fd_last_error());
        }
    }
    fd_scene_names* names = NULL;
    if (status == FD_OK) {
        names = fd_scene_names_create(ctx);
        status = names ? build_bodies(ctx, out->world, file, names) : fd_scene_fail(ctx, NULL, "", "out of memory");
    }
    if (status == FD_OK) {
        status = fd_scene_load_bodies_file(ctx, out->world, file); /* after `bodies`, before the generators */
    }
    const fd_scene_generator* generators = file->generators.items;
    for (int g = 0; status == FD_OK && g < file->generators.count; ++g) {
        status = fd_scene_generate(ctx, out->world, file, &generators[g], g, names);
    }
    for (int i = 0; status == FD_OK && i < file->inlets.count; ++i) {
        status = fd_scene_build_inlet(ctx, out->world, file, i);
    }
    for (int i = 0; status == FD_OK && i < file->outlets.count; ++i) {
        status = fd_scene_build_outlet(ctx, out->world, file, i);
    }
    fd_scene_names_free(names);
    if (status == FD_OK) {
        status = check_box_size(ctx, out->world, &file->world);
    }
    if (status == FD_OK) {
        status = fd_scene_build_stages(ctx, file, out);
    }
    return status;
}

fd_status fd_scene_load(const char* path, const char* const* overrides, int override_count, fd_scene* out)
{
    return fd_scene_load_with_progress(path, overrides, override_count, NULL, NULL, out);
}

/* Keeps what the scene was built from (its checkpoints store it): the text,
 * taken over from the context, and copies of the overrides. */
static fd_status keep_source(fd_scene_ctx* ctx, const char* const* overrides, int override_count, fd_scene* out)
{
    out->source = ctx->text;
    out->source_size = ctx->text_size;
    ctx->text = NULL;
    out->overrides = calloc((size_t)(override_count > 0 ? override_count : 1), sizeof *out->overrides);
    if (!out->overrides) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "%s: out of memory", ctx->file);
    }
    for (int i = 0; i < override_count; ++i) {
        out->overrides[i] = strdup(overrides[i]);
        if (!out->overrides[i]) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "%s: out of memory", ctx->file);
        }
        out->override_count = i + 1;
    }
    return FD_OK;
}

/* The stages after the file's text is in ctx (fd_scene_load_with_progress, fd_scene_load_text). */
static fd_status load_from_context(fd_scene_ctx* ctx, fd_status status, const char* path,
                                   const char* const* overrides, int override_count, fd_scene* out);

fd_status fd_scene_load_with_progress(const char* path, const char* const* overrides, int override_count,
                                      fd_scene_progress_fn progress, void* user, fd_scene* out)
{
    if (!out || !path || override_count < 0 || (override_count > 0 && !overrides)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_scene_load: NULL path or output, or bad overrides");
    }
    memset(out, 0, sizeof *out);
    fd_scene_ctx ctx = {0};
    ctx.progress = progress;
    ctx.progress_user = user;
    return load_from_context(&ctx, fd_scene_doc_load(&ctx, path), path, overrides, override_count, out);
}

fd_status fd_scene_load_text(const char* path, const char* text, size_t size, const char* const* overrides,
                             int override_count, fd_scene_progress_fn progress, void* user, fd_scene* out)
{
    if (!out || !path || !text || override_count < 0 || (override_count > 0 && !overrides)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_scene_load_text: NULL path, text or output, or bad overrides");
    }
    memset(out, 0, sizeof *out);
    fd_scene_ctx ctx = {0};
    ctx.progress = progress;
    ctx.progress_user = user;
    ctx.file = path;
    ctx.text = malloc(size + 1);
    fd_status status = FD_OK;
    if (!ctx.text) {
        status = fd_fail(FD_ERR_OUT_OF_MEMORY, "%s: out of memory for the scene's text", path);
    } else {
        memcpy(ctx.text, text, size);
        ctx.text[size] = '\0';
        ctx.text_size = size;
        status = fd_scene_doc_build(&ctx);
    }
    return load_from_context(&ctx, status, path, overrides, override_count, out);
}

static fd_status load_from_context(fd_scene_ctx* ctx, fd_status status, const char* path,
                                   const char* const* overrides, int override_count, fd_scene* out)
{
    fd_scene_progress_fn progress = ctx->progress;
    void* user = ctx->progress_user;
    for (int i = 0; status == FD_OK && i < override_count; ++i) {
        if (!overrides[i]) {
            status = fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_scene_load: override %d is NULL", i);
        } else {
            status = fd_scene_apply_override(ctx, overrides[i]);
        }
    }
    fd_scene_file* file = NULL;
    if (status == FD_OK) {
        file = fd_scene_alloc(ctx, 1, sizeof *file);
        status = file ? FD_OK : FD_ERR_PARSE;
    }
    if (status == FD_OK) {
        char key_path[FD_SCENE_PATH_MAX] = "";
        fd_scene_apply_defaults(&fd_scene_file_table, file);
        status = fd_scene_parse_map(ctx, fd_scene_root(ctx), &fd_scene_file_table, file, key_path);
    }
    if (status == FD_OK) {
        status = build_scene(ctx, file, path, out);
    }
    if (status == FD_OK && progress && ctx->bodies_created > 0) {
        progress(user, ctx->bodies_created, ctx->bodies_total);
    }
    if (status == FD_OK) {
        status = keep_source(ctx, overrides, override_count, out);
    }
    fd_scene_ctx_free(ctx);
    if (status != FD_OK) {
        fd_scene_free(out);
        memset(out, 0, sizeof *out);
    }
    return status;
}

void fd_scene_free(fd_scene* scene)
{
    if (!scene) {
        return;
    }
    if (scene->world) {
        fd_world_free(scene->world);
    }
    scene->world = NULL;
    fd_scene_free_stages(scene);
    free(scene->source);
    scene->source = NULL;
    scene->source_size = 0;
    for (int i = 0; scene->overrides && i < scene->override_count; ++i) {
        free(scene->overrides[i]);
    }
    free(scene->overrides);
    scene->overrides = NULL;
    scene->override_count = 0;
}
