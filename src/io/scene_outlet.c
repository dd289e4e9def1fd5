/* Outlets of a scene: the key tables of the `outlets` entries, and each
 * entry into fd_world_add_outlet (docs/outlets.md).
 *
 * The tables live here rather than in scene_keys_inputs.c with the other
 * inputs' tables: the outlets are one concern, kept whole. What the
 * tables cannot say is checked at the line of the key it is about: unique
 * outlet names, exactly one of `box`, `half_space` and `sphere`, a box with
 * max > min on every axis, a normal that is not zero. Anything else the
 * world refuses is reported at the entry.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <string.h>

#include "core/error.h"
#include "core/math.h"
#include "io/scene_loader.h"

/* ---------------------------------------------------------------- tables */

static const fd_scene_table box_table = {
    "outlets[].region.box", "An axis-aligned box: a body whose centre lies within min and max on every axis leaves.",
    fd_scene_box_keys, FD_SCENE_BOX_KEY_COUNT, sizeof(fd_scene_region), offsetof(fd_scene_region, seen)};

static const fd_scene_key half_space_keys[] = {
    {.name = "point",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "a point of the plane that bounds it",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_half_space, point)},
    {.name = "normal",
     .type = FD_SCENE_VEC3,
     .unit = "-",
     .doc = "normal of that plane, pointing towards the bodies that stay (a floor's points up); normalised, not zero",
     .range = ANY,
     .offset = offsetof(fd_scene_half_space, normal),
     .def = {0, 0, 1}},
};
CHECK_KEYS(half_space_keys);
static const fd_scene_table half_space_table = {
    "outlets[].region.half_space",
    "Everything below a plane: a body whose centre c has (c - point) . normal < 0 leaves, e.g. every grain that "
    "falls out of a silo.",
    KEYS(half_space_keys), sizeof(fd_scene_half_space), offsetof(fd_scene_half_space, seen)};

static const fd_scene_key ball_keys[] = {
    {.name = "center",
     .type = FD_SCENE_VEC3,
     .unit = "m",
     .doc = "centre of the ball",
     .flags = FD_SCENE_REQUIRED,
     .range = ANY,
     .offset = offsetof(fd_scene_ball, center)},
    {.name = "radius",
     .type = FD_SCENE_NUMBER,
     .unit = "m",
     .doc = "its radius",
     .flags = FD_SCENE_REQUIRED,
     .range = GT0,
     .offset = offsetof(fd_scene_ball, radius)},
};
CHECK_KEYS(ball_keys);
static const fd_scene_table ball_table = {"outlets[].region.sphere",
                                          "A ball: a body whose centre is closer than radius to center leaves.",
                                          KEYS(ball_keys), sizeof(fd_scene_ball), offsetof(fd_scene_ball, seen)};

static const fd_scene_key region_keys[] = {
    {.name = "box",
     .type = FD_SCENE_MAP,
     .doc = "a box region (see below)",
     .offset = offsetof(fd_scene_outlet_region, box),
     .sub = &box_table,
     .def_text = "none"},
    {.name = "half_space",
     .type = FD_SCENE_MAP,
     .doc = "a half-space region (see below)",
     .offset = offsetof(fd_scene_outlet_region, half_space),
     .sub = &half_space_table,
     .def_text = "none"},
    {.name = "sphere",
     .type = FD_SCENE_MAP,
     .doc = "a ball region (see below)",
     .offset = offsetof(fd_scene_outlet_region, sphere),
     .sub = &ball_table,
     .def_text = "none"},
};
CHECK_KEYS(region_keys);
static const fd_scene_table region_table = {
    "outlets[].region", "Where an outlet takes bodies out: exactly one of `box`, `half_space` and `sphere`.",
    KEYS(region_keys), sizeof(fd_scene_outlet_region), offsetof(fd_scene_outlet_region, seen)};

static const fd_scene_key outlet_keys[] = {
    {.name = "name",
     .type = FD_SCENE_STRING,
     .doc = "unique outlet name (the `outlet` column of outlets.csv)",
     .flags = FD_SCENE_REQUIRED | FD_SCENE_NONEMPTY,
     .offset = offsetof(fd_scene_outlet, name)},
    {.name = "region",
     .type = FD_SCENE_MAP,
     .doc = "the region a body's centre enters to leave (see below)",
     .flags = FD_SCENE_REQUIRED,
     .offset = offsetof(fd_scene_outlet, region),
     .sub = &region_table},
    {.name = "start",
     .type = FD_SCENE_NUMBER,
     .unit = "s",
     .doc = "time from which the outlet removes bodies (after the step that reaches it)",
     .range = GE0,
     .offset = offsetof(fd_scene_outlet, start)},
};
CHECK_KEYS(outlet_keys);
const fd_scene_table fd_scene_outlet_table = {
    "outlets[]",
    "Outlets (an optional sequence): after every step, each dynamic body whose centre is in an outlet's region is "
    "removed, its energy booked as removed (docs/outlets.md).",
    KEYS(outlet_keys), sizeof(fd_scene_outlet), offsetof(fd_scene_outlet, seen)};

/* ---------------------------------------------------------------- building */

static fd_status fail_at(fd_scene_ctx* ctx, const yaml_node_t* node, int index, const char* key, const char* format,
                         const char* detail)
{
    char path[FD_SCENE_PATH_MAX];
    snprintf(path, sizeof path, "outlets[%d]%s%s", index, key[0] ? "." : "", key);
    return fd_scene_fail(ctx, node, path, format, detail);
}

static fd_status outlet_region(fd_scene_ctx* ctx, const fd_scene_outlet* out, int index, fd_outlet_def* def)
{
    const fd_scene_outlet_region* region = &out->region;
    const char* const names[] = {"box", "half_space", "sphere"};
    const yaml_node_t* given[3];
    int count = 0, chosen = -1;
    for (int k = 0; k < 3; ++k) {
        given[k] = fd_scene_given(&region_table, region, names[k]);
        if (given[k] != NULL) {
            if (count++ > 0) {
                char key[64];
                snprintf(key, sizeof key, "region.%s", names[k]);
                return fail_at(ctx, given[k], index, key, "%s", "give one of box, half_space and sphere, not two");
            }
            chosen = k;
        }
    }
    if (chosen < 0) {
        return fail_at(ctx, region->seen.map, index, "region", "%s", "needs a box, a half_space or a sphere");
    }
    if (chosen == 0) {
        const fd_scene_region* box = &region->box;
        for (int axis = 0; axis < 3; ++axis) {
            double lo = fd_v3_component(box->min, axis), hi = fd_v3_component(box->max, axis);
            if (!(hi > lo)) {
                char text[160];
                snprintf(text, sizeof text, "must exceed min on every axis (%c: min %g m, max %g m)", "xyz"[axis], lo,
                         hi);
                return fail_at(ctx, fd_scene_given(&box_table, box, "max"), index, "region.box.max", "%s", text);
            }
        }
        def->shape = FD_OUTLET_BOX;
        def->box_min = box->min;
        def->box_max = box->max;
    } else if (chosen == 1) {
        const fd_scene_half_space* half = &region->half_space;
        if (fd_v3_length(half->normal) == 0.0) {
            return fail_at(ctx, fd_scene_given(&half_space_table, half, "normal"), index, "region.half_space.normal",
                           "%s", "must not be zero");
        }
        def->shape = FD_OUTLET_HALF_SPACE;
        def->point = half->point;
        def->normal = half->normal;
    } else {
        def->shape = FD_OUTLET_SPHERE;
        def->center = region->sphere.center;
        def->radius = region->sphere.radius;
    }
    return FD_OK;
}

fd_status fd_scene_build_outlet(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, int index)
{
    const fd_scene_outlet* outlets = file->outlets.items;
    const fd_scene_outlet* out = &outlets[index];
    for (int j = 0; j < index; ++j) {
        if (strcmp(outlets[j].name, out->name) == 0) {
            char where[FD_PATH_MAX], text[FD_PATH_MAX + 300];
            fd_scene_where(ctx, fd_scene_given(&fd_scene_outlet_table, &outlets[j], "name"), where, sizeof where);
            snprintf(text, sizeof text, "duplicate outlet name '%s' (first used at %s)", out->name, where);
            return fail_at(ctx, fd_scene_given(&fd_scene_outlet_table, out, "name"), index, "name", "%s", text);
        }
    }
    fd_outlet_def def = fd_default_outlet_def();
    def.name = out->name;
    def.start_time = out->start;
    fd_status status = outlet_region(ctx, out, index, &def);
    if (status != FD_OK) {
        return status;
    }
    if (fd_world_add_outlet(world, &def) != FD_OK) {
        return fail_at(ctx, out->seen.map, index, "", "%s", fd_last_error());
    }
    return FD_OK;
}
