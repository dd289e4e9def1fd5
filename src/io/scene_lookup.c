/* What the builders of a scene look up as they go (scene.c, the
 * generators, the bodies file, the inlets): the body names already given
 * (unique across bodies and generators), materials by name with a hint for
 * a typo, paths relative to the scene file, and the count of bodies created
 * for the progress of a long load. Calls only the document's helpers
 * (scene_yaml.c); builds nothing.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scene_loader.h"

/* ---------------------------------------------------------------- name set */

struct fd_scene_names {
    fd_scene_ctx* ctx;
    char** keys;
    fd_scene_origin* origins;
    size_t capacity; /* a power of two */
    size_t count;
};

static uint64_t name_hash(const char* s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s) {
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    }
    return h;
}

fd_scene_names* fd_scene_names_create(fd_scene_ctx* ctx)
{
    fd_scene_names* names = calloc(1, sizeof(fd_scene_names));
    if (names) {
        names->ctx = ctx;
    }
    return names;
}

void fd_scene_names_free(fd_scene_names* names)
{
    if (!names) {
        return;
    }
    for (size_t i = 0; i < names->capacity; ++i) {
        free(names->keys[i]);
    }
    free(names->keys);
    free(names->origins);
    free(names);
}

static bool names_grow(fd_scene_names* names)
{
    size_t capacity = names->capacity ? 2 * names->capacity : 64;
    char** keys = calloc(capacity, sizeof *keys);
    fd_scene_origin* origins = calloc(capacity, sizeof *origins);
    if (!keys || !origins) {
        free(keys);
        free(origins);
        return false;
    }
    for (size_t i = 0; i < names->capacity; ++i) {
        if (names->keys[i]) {
            size_t j = name_hash(names->keys[i]) & (capacity - 1);
            while (keys[j]) {
                j = (j + 1) & (capacity - 1);
            }
            keys[j] = names->keys[i];
            origins[j] = names->origins[i];
        }
    }
    free(names->keys);
    free(names->origins);
    names->keys = keys;
    names->origins = origins;
    names->capacity = capacity;
    return true;
}

bool fd_scene_names_add(fd_scene_names* names, const char* name, const yaml_node_t* node, const yaml_node_t** where)
{
    *where = NULL;
    if (2 * (names->count + 1) > names->capacity && !names_grow(names)) {
        return false;
    }
    size_t j = name_hash(name) & (names->capacity - 1);
    while (names->keys[j]) {
        if (strcmp(names->keys[j], name) == 0) {
            *where = fd_scene_origin_node(names->ctx, names->origins[j]);
            return false;
        }
        j = (j + 1) & (names->capacity - 1);
    }
    names->keys[j] = strdup(name);
    if (!names->keys[j]) {
        return false;
    }
    names->origins[j] = fd_scene_origin_of(names->ctx, node);
    names->count += 1;
    return true;
}

/* ---------------------------------------------------------------- materials */

fd_status fd_scene_find_material(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file, const char* name,
                                 const yaml_node_t* node, const char* path, fd_material_id* id)
{
    *id = fd_world_find_material(world, name);
    if (!fd_material_id_is_null(*id)) {
        return FD_OK;
    }
    char hint[1000];
    if (!fd_scene_material_hint(ctx, file, name, hint, sizeof hint)) {
        return FD_ERR_PARSE;
    }
    return fd_scene_fail(ctx, node, path, "unknown material '%s' (%s)", name, hint);
}

bool fd_scene_material_hint(fd_scene_ctx* ctx, const fd_scene_file* file, const char* name, char* hint, size_t size)
{
    const fd_scene_material* materials = file->materials.items;
    int count = file->materials.count;
    const char** names = fd_scene_alloc(ctx, (size_t)count, sizeof *names);
    if (!names) {
        return false;
    }
    for (int i = 0; i < count; ++i) {
        names[i] = materials[i].name;
    }
    char list[800];
    fd_scene_join(list, sizeof list, names, count);
    const char* close = fd_scene_closest(name, names, count);
    if (close) {
        snprintf(hint, size, "did you mean '%s'? materials: %s", close, list);
    } else {
        snprintf(hint, size, "materials: %s", list);
    }
    return true;
}

/* ---------------------------------------------------------------- paths and progress */

bool fd_scene_resolve_path(const fd_scene_ctx* ctx, const char* path, char* out, size_t size)
{
    const char* slash = strrchr(ctx->file, '/');
    int n = path[0] == '/' || !slash ? snprintf(out, size, "%s", path)
                                     : snprintf(out, size, "%.*s/%s", (int)(slash - ctx->file), ctx->file, path);
    return n >= 0 && (size_t)n < size;
}

void fd_scene_body_created(fd_scene_ctx* ctx)
{
    ctx->bodies_created++;
    if (ctx->progress && (ctx->bodies_created & 0x3fff) == 0) {
        ctx->progress(ctx->progress_user, ctx->bodies_created, ctx->bodies_total);
    }
}
