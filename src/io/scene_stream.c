/* The scene file read (fd_scene_doc_load) and its YAML into libyaml node
 * trees built from parser events, every node keeping its line, with the
 * top-level `bodies:` list read as a stream rather than as one tree.
 *
 * Why not yaml_parser_load: it builds one tree for the whole file, about
 * twenty nodes per listed body, and libyaml refuses a node stack past
 * INT_MAX/2 bytes, so a scene listing 10^6 bodies failed with "out of memory
 * while parsing YAML" whatever the machine's memory. Instead the text is
 * parsed twice:
 *   1. fd_scene_doc_build: the whole document into ctx->doc, except the items
 *      of the root mapping's `bodies` sequence: that value stays an empty
 *      sequence node and its items are only counted, so that every YAML
 *      error in the file is still reported before anything is built;
 *   2. fd_scene_stream_bodies, when the bodies are built (after materials,
 *      contact laws and the world, wherever `bodies:` stands in the file):
 *      the text again, each item of that sequence into a small document of
 *      its own, handed to the caller and deleted, so that memory is bounded
 *      by one item.
 * Anchors and aliases resolve as libyaml's loader resolves them: an alias
 * names an anchor defined before it anywhere in the document, and a second
 * anchor of the same name is an error. Pass 1 builds an anchored node inside
 * a skipped item anyway, detached from the tree, so that a later alias (in
 * another item or after the list) finds it; pass 2 copies such a node into
 * the item that refers to it.
 * A `bodies` value with an anchor of its own is read whole, as before: an
 * alias to the list must see its items.
 * libyaml's add functions may move the node array: indices, not pointers,
 * are kept across them.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/scene_loader.h"

/* A sequence or mapping whose items are still being read. */
typedef struct open_node {
    int node;
    bool is_mapping;
    int key;         /* a mapping's key waiting for its value, or 0 */
    bool bodies_key; /* that key is the scalar 'bodies' written as such (not an alias) */
} open_node;

typedef struct builder {
    fd_scene_ctx* ctx;
    yaml_parser_t* parser;
    yaml_document_t* doc;
    /* Pass 1 (false): anchors go to ctx->anchors and the root's bodies list
     * is skipped. Pass 2 (true): an item's own anchors are kept here, others
     * are copied from ctx->doc. */
    bool is_item;
    bool bodies_found;
    fd_scene_anchor* local;
    int local_count, local_capacity;
    open_node* stack;
    int depth, capacity;
} builder;

static fd_status out_of_memory(const fd_scene_ctx* ctx)
{
    return fd_fail(FD_ERR_PARSE, "%s: out of memory while reading the scene", ctx->file);
}

static fd_status next_event(builder* b, yaml_event_t* event)
{
    if (!yaml_parser_parse(b->parser, event)) {
        return fd_scene_yaml_problem(b->ctx, b->parser);
    }
    return FD_OK;
}

static const yaml_char_t* anchor_of(const yaml_event_t* event)
{
    switch (event->type) {
    case YAML_SCALAR_EVENT:
        return event->data.scalar.anchor;
    case YAML_SEQUENCE_START_EVENT:
        return event->data.sequence_start.anchor;
    case YAML_MAPPING_START_EVENT:
        return event->data.mapping_start.anchor;
    default:
        return NULL;
    }
}

/* libyaml's loader gives a node without a tag, or with the bare "!", the
 * default tag of its kind; so do the add functions given NULL. */
static yaml_char_t* tag_of(yaml_char_t* tag) { return tag && strcmp((const char*)tag, "!") != 0 ? tag : NULL; }

/* ---------------------------------------------------------------- anchors */

static bool anchors_push(fd_scene_anchor** items, int* count, int* capacity, const yaml_char_t* name, int node,
                         yaml_mark_t mark)
{
    if (*count == *capacity) {
        int grown_capacity = *capacity ? 2 * *capacity : 16;
        fd_scene_anchor* grown = realloc(*items, (size_t)grown_capacity * sizeof *grown);
        if (!grown) {
            return false;
        }
        *items = grown;
        *capacity = grown_capacity;
    }
    char* copy = strdup((const char*)name);
    if (!copy) {
        return false;
    }
    (*items)[(*count)++] = (fd_scene_anchor){copy, node, mark};
    return true;
}

static const fd_scene_anchor* anchors_find(const fd_scene_anchor* items, int count, const yaml_char_t* name)
{
    for (int i = count - 1; i >= 0; --i) {
        if (strcmp(items[i].name, (const char*)name) == 0) {
            return &items[i];
        }
    }
    return NULL;
}

static void anchors_free(fd_scene_anchor* items, int count)
{
    for (int i = 0; i < count; ++i) {
        free(items[i].name);
    }
    free(items);
}

static fd_status register_anchor(builder* b, const yaml_char_t* name, int node, yaml_mark_t mark)
{
    fd_scene_ctx* ctx = b->ctx;
    if (!name) {
        return FD_OK;
    }
    if (b->is_item) {
        return anchors_push(&b->local, &b->local_count, &b->local_capacity, name, node, mark) ? FD_OK
                                                                                              : out_of_memory(ctx);
    }
    const fd_scene_anchor* first = anchors_find(ctx->anchors, ctx->anchor_count, name);
    if (first) {
        return fd_fail(FD_ERR_PARSE, "%s:%zu: YAML error: a second anchor '&%s' (the first is at line %zu)", ctx->file,
                       mark.line + 1, (const char*)name, first->mark.line + 1);
    }
    return anchors_push(&ctx->anchors, &ctx->anchor_count, &ctx->anchor_capacity, name, node, mark)
               ? FD_OK
               : out_of_memory(ctx);
}

static fd_status undefined_alias(const fd_scene_ctx* ctx, const yaml_char_t* name, yaml_mark_t mark)
{
    return fd_fail(FD_ERR_PARSE, "%s:%zu: YAML error: the alias '*%s' names no anchor defined before it", ctx->file,
                   mark.line + 1, (const char*)name);
}

/* The node an alias stands for, as an index into b->doc (0 after an error). */
static int resolve_alias(builder* b, const yaml_char_t* name, yaml_mark_t mark)
{
    fd_scene_ctx* ctx = b->ctx;
    if (b->is_item) {
        const fd_scene_anchor* local = anchors_find(b->local, b->local_count, name);
        if (local) {
            return local->node;
        }
    }
    const fd_scene_anchor* anchor = anchors_find(ctx->anchors, ctx->anchor_count, name);
    if (!anchor) {
        undefined_alias(ctx, name, mark);
        return 0;
    }
    if (!b->is_item) {
        return anchor->node;
    }
    /* Defined outside this item: the item gets its own copy, lines kept. */
    int copy = fd_scene_copy_node(b->doc, &ctx->doc, anchor->node);
    if (!copy) {
        fd_fail(FD_ERR_PARSE, "%s:%zu: the alias '*%s' is nested too deeply (or out of memory)", ctx->file,
                mark.line + 1, (const char*)name);
    }
    return copy;
}

/* ---------------------------------------------------------------- building */

static fd_status skip_items(builder* b, int* count, yaml_mark_t* end_mark);

static bool push_open(builder* b, int node, bool is_mapping)
{
    if (b->depth == b->capacity) {
        int capacity = b->capacity ? 2 * b->capacity : 32;
        open_node* grown = realloc(b->stack, (size_t)capacity * sizeof *grown);
        if (!grown) {
            return false;
        }
        b->stack = grown;
        b->capacity = capacity;
    }
    b->stack[b->depth++] = (open_node){node, is_mapping, 0, false};
    return true;
}

/* Adds a finished node to the sequence or mapping being read. */
static fd_status attach(builder* b, int node, bool is_bodies_scalar)
{
    open_node* parent = &b->stack[b->depth - 1];
    if (!parent->is_mapping) {
        return yaml_document_append_sequence_item(b->doc, parent->node, node) ? FD_OK : out_of_memory(b->ctx);
    }
    if (!parent->key) {
        parent->key = node;
        parent->bodies_key = is_bodies_scalar;
        return FD_OK;
    }
    int key = parent->key;
    parent->key = 0;
    parent->bodies_key = false;
    return yaml_document_append_mapping_pair(b->doc, parent->node, key, node) ? FD_OK : out_of_memory(b->ctx);
}

/* The node that starts with event (taken over, and deleted), and everything
 * in it, into b->doc; its index, or 0 after reporting an error. Reentrant:
 * skip_items calls it for an anchored node while the root is still open. */
static int build_node(builder* b, yaml_event_t* first)
{
    const int base = b->depth;
    yaml_event_t event = *first;
    for (;;) {
        const yaml_event_type_t type = event.type; /* yaml_event_delete clears the event */
        int node = 0;
        bool opened = false;
        bool is_bodies_scalar = false;
        fd_status status = FD_OK;
        switch (type) {
        case YAML_ALIAS_EVENT:
            node = resolve_alias(b, event.data.alias.anchor, event.start_mark);
            status = node ? FD_OK : FD_ERR_PARSE;
            break;
        case YAML_SCALAR_EVENT:
            node = yaml_document_add_scalar(b->doc, tag_of(event.data.scalar.tag), event.data.scalar.value,
                                            (int)event.data.scalar.length, event.data.scalar.style);
            if (node) {
                fd_scene_set_marks(b->doc, node, event.start_mark, event.end_mark);
                status = register_anchor(b, event.data.scalar.anchor, node, event.start_mark);
                is_bodies_scalar = strcmp((const char*)event.data.scalar.value, "bodies") == 0;
            }
            break;
        case YAML_SEQUENCE_START_EVENT:
            node = yaml_document_add_sequence(b->doc, tag_of(event.data.sequence_start.tag),
                                              event.data.sequence_start.style);
            if (!node) {
                break;
            }
            fd_scene_set_marks(b->doc, node, event.start_mark, event.end_mark);
            if (!b->is_item && !b->bodies_found && base == 0 && b->depth == 1 && b->stack[0].bodies_key &&
                !event.data.sequence_start.anchor) {
                /* The root mapping's bodies list: an empty node here, its
                 * items read by fd_scene_stream_bodies when built. */
                b->bodies_found = true;
                yaml_mark_t end = event.end_mark;
                status = skip_items(b, &b->ctx->streamed_body_count, &end);
                b->doc->nodes.start[node - 1].end_mark = end;
                b->ctx->bodies_streamed = status == FD_OK;
            } else {
                status = register_anchor(b, event.data.sequence_start.anchor, node, event.start_mark);
                opened = true;
            }
            break;
        case YAML_MAPPING_START_EVENT:
            node = yaml_document_add_mapping(b->doc, tag_of(event.data.mapping_start.tag),
                                             event.data.mapping_start.style);
            if (node) {
                fd_scene_set_marks(b->doc, node, event.start_mark, event.end_mark);
                status = register_anchor(b, event.data.mapping_start.anchor, node, event.start_mark);
                opened = true;
            }
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            node = b->stack[--b->depth].node;
            b->doc->nodes.start[node - 1].end_mark = event.end_mark;
            break;
        default:
            status = fd_fail(FD_ERR_PARSE, "%s:%zu: YAML error: unexpected event %d", b->ctx->file,
                             event.start_mark.line + 1, (int)type);
            break;
        }
        yaml_event_delete(&event);
        if (status == FD_OK && !node) {
            status = out_of_memory(b->ctx);
        }
        if (status == FD_OK && opened && !push_open(b, node, type == YAML_MAPPING_START_EVENT)) {
            status = out_of_memory(b->ctx);
        }
        if (status != FD_OK) {
            return 0;
        }
        if (!opened) {
            if (b->depth == base) {
                return node;
            }
            if (attach(b, node, is_bodies_scalar) != FD_OK) {
                return 0;
            }
        }
        if (next_event(b, &event) != FD_OK) {
            return 0;
        }
    }
}

/* The items of the root's bodies list, in pass 1: counted and parsed (so
 * that YAML errors are found now), not built, except an anchored node, which
 * later aliases may name. Leaves after the list's end event. */
static fd_status skip_items(builder* b, int* count, yaml_mark_t* end_mark)
{
    int depth = 0;
    *count = 0;
    for (;;) {
        yaml_event_t event;
        fd_status status = next_event(b, &event);
        if (status != FD_OK) {
            return status;
        }
        if (depth == 0 && event.type == YAML_SEQUENCE_END_EVENT) {
            *end_mark = event.end_mark;
            yaml_event_delete(&event);
            return FD_OK;
        }
        if (depth == 0) {
            *count += 1;
        }
        if (anchor_of(&event)) {
            if (!build_node(b, &event)) {
                return FD_ERR_PARSE;
            }
            continue;
        }
        if (event.type == YAML_ALIAS_EVENT &&
            !anchors_find(b->ctx->anchors, b->ctx->anchor_count, event.data.alias.anchor)) {
            status = undefined_alias(b->ctx, event.data.alias.anchor, event.start_mark);
        }
        depth += event.type == YAML_SEQUENCE_START_EVENT || event.type == YAML_MAPPING_START_EVENT;
        depth -= event.type == YAML_SEQUENCE_END_EVENT || event.type == YAML_MAPPING_END_EVENT;
        yaml_event_delete(&event);
        if (status != FD_OK) {
            return status;
        }
    }
}

static void builder_free(builder* b)
{
    anchors_free(b->local, b->local_count);
    free(b->stack);
}

/* ---------------------------------------------------------------- pass 1 */

fd_status fd_scene_doc_build(fd_scene_ctx* ctx)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        return out_of_memory(ctx);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char*)ctx->text, ctx->text_size);
    builder b = {.ctx = ctx, .parser = &parser, .doc = &ctx->doc};
    yaml_event_t event;
    fd_status status = next_event(&b, &event); /* stream start */
    if (status == FD_OK) {
        yaml_event_delete(&event);
        status = next_event(&b, &event);
    }
    if (status == FD_OK && event.type != YAML_DOCUMENT_START_EVENT) {
        yaml_event_delete(&event);
        status = fd_fail(FD_ERR_PARSE,
                         "%s:1: the file holds no scene (an empty YAML document; see docs/scene-format.md)", ctx->file);
    }
    if (status == FD_OK) {
        yaml_event_delete(&event);
        if (!yaml_document_initialize(&ctx->doc, NULL, NULL, NULL, 1, 1)) {
            status = out_of_memory(ctx);
        } else {
            ctx->doc_loaded = true;
            status = next_event(&b, &event);
        }
    }
    if (status == FD_OK && !build_node(&b, &event)) {
        status = FD_ERR_PARSE;
    }
    if (status == FD_OK) {
        status = next_event(&b, &event); /* document end */
    }
    if (status == FD_OK) {
        yaml_event_delete(&event);
        status = next_event(&b, &event);
    }
    /* One document per file: a second one is almost surely a mistake. */
    if (status == FD_OK && event.type == YAML_DOCUMENT_START_EVENT) {
        yaml_event_delete(&event);
        status = next_event(&b, &event);
        if (status == FD_OK) {
            size_t line = event.start_mark.line + 1;
            yaml_event_delete(&event);
            status = fd_fail(FD_ERR_PARSE, "%s:%zu: a second YAML document starts here; a scene file holds exactly one",
                             ctx->file, line);
        }
    } else if (status == FD_OK) {
        yaml_event_delete(&event);
    }
    builder_free(&b);
    yaml_parser_delete(&parser);
    ctx->file_node_count = fd_scene_doc_node_count(&ctx->doc);
    return status;
}

/* ---------------------------------------------------------------- pass 2 */

/* Reads past the node that starts with event (deleted). */
static fd_status skip_node(builder* b, yaml_event_t* event)
{
    int depth = 0;
    for (;;) {
        depth += event->type == YAML_SEQUENCE_START_EVENT || event->type == YAML_MAPPING_START_EVENT;
        depth -= event->type == YAML_SEQUENCE_END_EVENT || event->type == YAML_MAPPING_END_EVENT;
        yaml_event_delete(event);
        if (depth == 0) {
            return FD_OK;
        }
        fd_status status = next_event(b, event);
        if (status != FD_OK) {
            return status;
        }
    }
}

/* Leaves the parser just inside the root's bodies list, found as pass 1
 * found it: the first key 'bodies' (a scalar, not an alias) whose value is a
 * sequence without an anchor. */
static fd_status seek_bodies(builder* b)
{
    yaml_event_t event;
    for (int opening = 0; opening < 3; ++opening) { /* stream, document, root mapping */
        fd_status status = next_event(b, &event);
        if (status != FD_OK) {
            return status;
        }
        yaml_event_type_t type = event.type;
        yaml_event_delete(&event);
        if (opening == 2 && type != YAML_MAPPING_START_EVENT) {
            return fd_fail(FD_ERR_PARSE, "%s: internal error: the bodies list is gone on the second reading",
                           b->ctx->file);
        }
    }
    for (;;) {
        fd_status status = next_event(b, &event);
        if (status != FD_OK) {
            return status;
        }
        if (event.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&event);
            return fd_fail(FD_ERR_PARSE, "%s: internal error: the bodies list is gone on the second reading",
                           b->ctx->file);
        }
        bool is_bodies =
            event.type == YAML_SCALAR_EVENT && strcmp((const char*)event.data.scalar.value, "bodies") == 0;
        status = skip_node(b, &event);
        if (status == FD_OK) {
            status = next_event(b, &event);
        }
        if (status != FD_OK) {
            return status;
        }
        if (is_bodies && event.type == YAML_SEQUENCE_START_EVENT && !event.data.sequence_start.anchor) {
            yaml_event_delete(&event);
            return FD_OK;
        }
        status = skip_node(b, &event);
        if (status != FD_OK) {
            return status;
        }
    }
}

fd_status fd_scene_stream_bodies(fd_scene_ctx* ctx, fd_scene_item_fn build_item, void* user)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        return out_of_memory(ctx);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char*)ctx->text, ctx->text_size);
    builder b = {.ctx = ctx, .parser = &parser, .is_item = true};
    fd_status status = seek_bodies(&b);
    int count = 0;
    while (status == FD_OK) {
        yaml_event_t event;
        status = next_event(&b, &event);
        if (status != FD_OK) {
            break;
        }
        if (event.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&event);
            break;
        }
        yaml_document_t item;
        if (!yaml_document_initialize(&item, NULL, NULL, NULL, 1, 1)) {
            yaml_event_delete(&event);
            status = out_of_memory(ctx);
            break;
        }
        b.doc = &item;
        b.local_count = 0;
        int root = build_node(&b, &event);
        /* The item's names of anchors are its own: forget them. */
        for (int i = 0; i < b.local_count; ++i) {
            free(b.local[i].name);
        }
        b.local_count = 0;
        status = root ? FD_OK : FD_ERR_PARSE;
        if (status == FD_OK) {
            ctx->item_doc = &item;
            ctx->item_file_node_count = fd_scene_doc_node_count(&item);
            status = fd_scene_apply_item_overrides(ctx, &item, &root, count);
        }
        if (status == FD_OK) {
            status = build_item(ctx, count, yaml_document_get_node(&item, root), user);
        }
        ctx->item_doc = NULL;
        yaml_document_delete(&item);
        count += 1;
    }
    builder_free(&b);
    yaml_parser_delete(&parser);
    if (status == FD_OK && count != ctx->streamed_body_count) {
        status = fd_fail(FD_ERR_PARSE, "%s: internal error: %d bodies on the second reading, %d on the first",
                         ctx->file, count, ctx->streamed_body_count);
    }
    return status == FD_OK ? fd_scene_check_item_overrides(ctx) : status;
}

/* ---------------------------------------------------------------- the file */

fd_status fd_scene_doc_load(fd_scene_ctx* ctx, const char* path)
{
    ctx->file = path;
    struct stat info;
    if (stat(path, &info) != 0) {
        return fd_fail(FD_ERR_IO, "%s: cannot read the scene file: %s", path, strerror(errno));
    }
    if (S_ISDIR(info.st_mode)) {
        return fd_fail(FD_ERR_IO, "%s: is a directory, not a scene file", path);
    }
    FILE* file = fopen(path, "rb");
    if (!file) {
        return fd_fail(FD_ERR_IO, "%s: cannot read the scene file: %s", path, strerror(errno));
    }
    int error = 0;
    size_t size = 0;
    char* text = fd_read_stream(file, &size, &error);
    fclose(file);
    if (text == NULL) {
        return error == ENOMEM ? fd_fail(FD_ERR_IO, "%s: out of memory reading the scene file", path)
                               : fd_fail(FD_ERR_IO, "%s: cannot read the scene file: %s", path, strerror(error));
    }
    ctx->text = text;
    ctx->text_size = size;

    return fd_scene_doc_build(ctx);
}
