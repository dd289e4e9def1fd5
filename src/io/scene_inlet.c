/* Inlets of a scene: the `inlets` entries into fd_world_add_inlet.
 *
 * What the key tables cannot say is checked here, each at the line of the key
 * it is about: unique inlet names, the material, `radius` or `sizes` (one of
 * them), `disk` or `box` (one of them), a region wide enough for the largest
 * sphere. Anything else the world refuses (a body already named like the
 * inlet's spheres) is reported at the entry. See docs/inlets.md.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <string.h>

#include "core/error.h"
#include "core/math.h"
#include "io/scene_loader.h"

static fd_status fail_at(fd_scene_ctx* ctx, const yaml_node_t* node, int index, const char* key, const char* format,
                         const char* detail)
{
    char path[FD_SCENE_PATH_MAX];
    snprintf(path, sizeof path, "inlets[%d]%s%s", index, key[0] ? "." : "", key);
    return fd_scene_fail(ctx, node, path, format, detail);
}

/* Radii: `radius` (+ `radius_spread`) or `sizes`; fills def, returns the largest. */
static fd_status inlet_sizes(fd_scene_ctx* ctx, const fd_scene_inlet* in, int index, fd_inlet_def* def,
                             double* radius_max)
{
    const fd_scene_table* table = &fd_scene_inlet_table;
    const yaml_node_t* radius = fd_scene_given(table, in, "radius");
    const yaml_node_t* spread = fd_scene_given(table, in, "radius_spread");
    const yaml_node_t* sizes = fd_scene_given(table, in, "sizes");
    if (radius && sizes) {
        return fail_at(ctx, sizes, index, "sizes", "%s", "give either radius (with radius_spread) or sizes, not both");
    }
    if (!radius && !sizes) {
        return fail_at(ctx, in->seen.map, index, "radius", "%s", "required key is missing (or give sizes)");
    }
    if (radius) {
        def->radius = in->radius;
        def->radius_spread = in->radius_spread;
        *radius_max = in->radius * (1.0 + in->radius_spread);
        return FD_OK;
    }
    if (spread) {
        return fail_at(ctx, spread, index, "radius_spread", "%s", "only with radius, not with sizes");
    }
    if (in->sizes.count == 0 || in->sizes.count > FD_INLET_MAX_SIZES) {
        char text[64];
        snprintf(text, sizeof text, "needs 1 to %d entries (got %d)", FD_INLET_MAX_SIZES, in->sizes.count);
        return fail_at(ctx, sizes, index, "sizes", "%s", text);
    }
    const fd_scene_size* items = in->sizes.items;
    double sum = 0.0;
    *radius_max = 0.0;
    def->size_count = in->sizes.count;
    for (int i = 0; i < in->sizes.count; ++i) {
        def->size_radius[i] = items[i].radius;
        def->size_fraction[i] = items[i].fraction;
        sum += items[i].fraction;
        if (items[i].fraction > 0.0 && items[i].radius > *radius_max) {
            *radius_max = items[i].radius;
        }
    }
    if (!(sum > 0.0)) {
        return fail_at(ctx, sizes, index, "sizes", "%s", "the fractions must not all be 0");
    }
    return FD_OK;
}

static fd_status inlet_region(fd_scene_ctx* ctx, const fd_scene_inlet* in, int index, double radius_max,
                              fd_inlet_def* def)
{
    const fd_scene_inlet_region* region = &in->region;
    const yaml_node_t* disk = fd_scene_given(&fd_scene_inlet_region_table, region, "disk");
    const yaml_node_t* box = fd_scene_given(&fd_scene_inlet_region_table, region, "box");
    if (disk && box) {
        return fail_at(ctx, box, index, "region.box", "%s", "give either disk or box, not both");
    }
    if (!disk && !box) {
        return fail_at(ctx, region->seen.map, index, "region", "%s", "needs a disk or a box");
    }
    char text[256];
    if (disk) {
        const fd_scene_disk* d = &region->disk;
        if (fd_v3_length(d->normal) == 0.0) {
            return fail_at(ctx, fd_scene_given(&fd_scene_disk_table, d, "normal"), index, "region.disk.normal", "%s",
                           "must not be zero");
        }
        if (d->radius < radius_max) {
            snprintf(text, sizeof text, "%g m is smaller than the largest sphere radius %g m", d->radius, radius_max);
            return fail_at(ctx, fd_scene_given(&fd_scene_disk_table, d, "radius"), index, "region.disk.radius", "%s",
                           text);
        }
        def->shape = FD_INLET_DISK;
        def->center = d->center;
        def->disk_radius = d->radius;
        def->normal = fd_v3_normalize(d->normal);
        def->thickness = d->thickness;
        return FD_OK;
    }
    const fd_scene_region* b = &region->box;
    const yaml_node_t* max = fd_scene_given(&fd_scene_inlet_box_table, b, "max");
    for (int axis = 0; axis < 3; ++axis) {
        double lo = fd_v3_component(b->min, axis), hi = fd_v3_component(b->max, axis);
        if (!(hi - lo >= 2.0 * radius_max)) {
            snprintf(text, sizeof text,
                     "the box must be at least the largest sphere diameter %g m wide (%c: max - min = %g m)",
                     2.0 * radius_max, "xyz"[axis], hi - lo);
            return fail_at(ctx, max, index, "region.box.max", "%s", text);
        }
    }
    def->shape = FD_INLET_BOX;
    def->box_min = b->min;
    def->box_max = b->max;
    return FD_OK;
}

fd_status fd_scene_build_inlet(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, int index)
{
    const fd_scene_inlet* inlets = file->inlets.items;
    const fd_scene_inlet* in = &inlets[index];
    const fd_scene_table* table = &fd_scene_inlet_table;
    for (int j = 0; j < index; ++j) {
        if (strcmp(inlets[j].name, in->name) == 0) {
            char where[FD_PATH_MAX], text[FD_PATH_MAX + 300];
            fd_scene_where(ctx, fd_scene_given(table, &inlets[j], "name"), where, sizeof where);
            snprintf(text, sizeof text, "duplicate inlet name '%s' (first used at %s)", in->name, where);
            return fail_at(ctx, fd_scene_given(table, in, "name"), index, "name", "%s", text);
        }
    }
    fd_inlet_def def = fd_default_inlet_def();
    def.name = in->name;
    char path[FD_SCENE_PATH_MAX];
    snprintf(path, sizeof path, "inlets[%d].material", index);
    fd_status status = fd_scene_find_material(ctx, world, file, in->material, fd_scene_given(table, in, "material"),
                                              path, &def.material);
    double radius_max = 0.0;
    if (status == FD_OK) {
        status = inlet_sizes(ctx, in, index, &def, &radius_max);
    }
    if (status == FD_OK) {
        status = inlet_region(ctx, in, index, radius_max, &def);
    }
    if (status != FD_OK) {
        return status;
    }
    def.rate = in->rate;
    def.count = in->count;
    def.start_time = in->start;
    def.velocity = in->velocity;
    def.velocity_spread = in->velocity_spread;
    def.seed = (uint64_t)in->seed;
    def.max_attempts = (int)in->attempts;
    def.clearance = in->clearance;
    if (fd_world_add_inlet(world, &def) != FD_OK) {
        return fail_at(ctx, in->seen.map, index, "", "%s", fd_last_error());
    }
    return FD_OK;
}
