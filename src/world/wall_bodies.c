/* Walls made of several bodies (docs/walls.md): a capped cylinder is its
 * shell and two disks, a mesh one body per patch (src/collide/mesh.c splits
 * it at sharp edges). Each body is one contact with a sphere, so a sphere in
 * the corner of a drum touches the shell and the cap at once, and one
 * rolling across a patch keeps its contact (and the friction history) from
 * triangle to triangle. The bodies of a wall share its pose and are
 * contiguous, the first standing for the wall (fd_body_info.wall): its
 * motion moves them all and walls.csv sums their reactions.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "world/world_store.h"

fd_status fd_world_adopt_mesh(fd_world* world, fd_mesh* mesh)
{
    if (world == NULL || mesh == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_adopt_mesh: null argument");
    }
    fd_world_note_change(world);
    fd_mesh** meshes = realloc(world->meshes, (size_t)(world->mesh_count + 1) * sizeof *meshes);
    if (meshes == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    world->meshes = meshes;
    world->meshes[world->mesh_count++] = mesh;
    return FD_OK;
}

void fd_world_free_meshes(fd_world* world)
{
    for (int k = 0; k < world->mesh_count; ++k) {
        fd_mesh_free(world->meshes[k]);
    }
    free(world->meshes);
    world->meshes = NULL;
    world->mesh_count = 0;
}

/* One body of the wall: def with its own shape and name "<wall>.<suffix>". */
static fd_body_id create_part(fd_world* world, const fd_body_def* def, fd_shape_def shape, const char* suffix,
                              int group)
{
    char name[512];
    fd_body_def part = *def;
    part.shape = shape;
    if (suffix != NULL) {
        snprintf(name, sizeof name, "%s.%s", def->name != NULL ? def->name : "wall", suffix);
        part.name = name;
    }
    fd_body_id id = fd_world_create_body(world, &part);
    if (!fd_body_id_is_null(id) && group >= 0) {
        world->colds[id.index1 - 1].wall_group = group;
    }
    return id;
}

fd_status fd_world_create_wall(fd_world* world, const fd_body_def* def, fd_body_id* first, int* count)
{
    if (world == NULL || def == NULL || first == NULL || count == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_create_wall: null argument");
    }
    fd_world_note_change(world);
    *count = 0;
    *first = (fd_body_id){0, 0};
    const fd_shape_def* shape = &def->shape;
    bool patches = shape->type == FD_SHAPE_MESH && shape->mesh_patch == -1;
    fd_shape_def part = *shape;
    if (patches) {
        part.mesh_patch = 0;
    }
    fd_body_id id = create_part(world, def, part, NULL, -1);
    if (fd_body_id_is_null(id)) {
        return FD_ERR_INVALID_ARGUMENT;
    }
    *first = id;
    *count = 1;
    int group = (int)id.index1 - 1;
    if (shape->type == FD_SHAPE_CYLINDER && shape->capped) {
        /* The caps: disks in the shell's frame at z = -+length/2, the shell on
         * their inner side (the top cap's -z, the bottom cap's +z). */
        fd_shape_def cap = {.type = FD_SHAPE_DISK, .radius = shape->radius};
        const char* names[2] = {"cap_low", "cap_high"};
        for (int k = 0; k < 2; ++k) {
            cap.offset = (k == 0 ? -0.5 : 0.5) * shape->length;
            cap.cap_of_shell = k == 0 ? 1 : -1;
            if (fd_body_id_is_null(create_part(world, def, cap, names[k], group))) {
                return FD_ERR_INVALID_ARGUMENT;
            }
            ++*count;
        }
    }
    for (int p = 1; patches && p < fd_mesh_patch_count(shape->mesh); ++p) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "patch%d", p);
        part.mesh_patch = p;
        if (fd_body_id_is_null(create_part(world, def, part, suffix, group))) {
            return FD_ERR_INVALID_ARGUMENT;
        }
        ++*count;
    }
    return FD_OK;
}

fd_wall_reaction fd_world_wall_reaction(const fd_world* world, fd_body_id id)
{
    fd_wall_reaction sum = {0};
    if (world == NULL || !fd_body_is_valid(world, id)) {
        return sum;
    }
    int first = (int)id.index1 - 1;
    /* The parts share the first's pose, so their moments about it add. */
    for (int b = first; b < world->body_count && world->colds[b].wall_group == first; ++b) {
        fd_wall_reaction r = fd_body_get_reaction(world, fd_world_body_at(world, b));
        sum.force = fd_v3_add(sum.force, r.force);
        sum.torque = fd_v3_add(sum.torque, r.torque);
        sum.power += r.power;
    }
    return sum;
}
