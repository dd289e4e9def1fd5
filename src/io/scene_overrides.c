/* --set overrides grafted into the scene's node tree ("key.path=value"),
 * and those of one streamed body into its own document, before validation,
 * so that an overridden value goes through exactly the checks a value in the
 * file would (scene_yaml.c says how a message names the argument); and the
 * copy of a node into another document (an alias's target, an override's
 * value). Calls only the document's helpers (scene_yaml.c).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/scene_loader.h"

/* ---------------------------------------------------------------- overrides */

#define OVERRIDE_MAX_SEGMENTS 32

/* An override's key path split at its dots; ends[s] is where segment s ends
 * in the argument, for messages naming the part of the path walked so far. */
typedef struct override_path {
    char key[FD_SCENE_PATH_MAX];
    const char* segments[OVERRIDE_MAX_SEGMENTS];
    int ends[OVERRIDE_MAX_SEGMENTS];
    int count;
} override_path;

static fd_status split_override(const fd_scene_ctx* ctx, const fd_scene_override* o, override_path* path)
{
    memcpy(path->key, o->arg, (size_t)o->key_length);
    path->key[o->key_length] = '\0';
    path->count = 0;
    for (char* start = path->key;;) {
        char* dot = strchr(start, '.');
        if (dot) {
            *dot = '\0';
        }
        if (!start[0]) {
            return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: empty key in the path", ctx->file, o->key_length, o->arg);
        }
        if (path->count == OVERRIDE_MAX_SEGMENTS) {
            return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: path too deep", ctx->file, o->key_length, o->arg);
        }
        path->segments[path->count] = start;
        path->ends[path->count++] = (int)(start - path->key) + (int)strlen(start);
        if (!dot) {
            return FD_OK;
        }
        start = dot + 1;
    }
}

/* The value is YAML: a scalar, or a flow sequence or mapping. */
static fd_status load_override_value(const fd_scene_ctx* ctx, const fd_scene_override* o, yaml_document_t* value)
{
    const char* text = o->arg + o->key_length + 1;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        return fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, strlen(text));
    fd_status status =
        yaml_parser_load(&parser, value) ? FD_OK : fd_scene_override_problem(ctx, &parser, o, text, strlen(text));
    yaml_parser_delete(&parser);
    return status;
}

static bool is_index(const char* segment)
{
    if (!segment[0]) {
        return false;
    }
    for (const char* c = segment; *c; ++c) {
        if (!isdigit((unsigned char)*c)) {
            return false;
        }
    }
    return true;
}

/* The value of an entry's 'name' key (the first such key), or NULL. */
static const char* entry_name(const yaml_document_t* doc, const yaml_node_t* entry)
{
    if (!entry || entry->type != YAML_MAPPING_NODE) {
        return NULL;
    }
    for (yaml_node_pair_t* pair = entry->data.mapping.pairs.start; pair < entry->data.mapping.pairs.top; ++pair) {
        const yaml_node_t* key = fd_scene_doc_node(doc, pair->key);
        if (key && key->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(key), "name") == 0) {
            const yaml_node_t* value = fd_scene_doc_node(doc, pair->value);
            return value && value->type == YAML_SCALAR_NODE ? fd_scene_scalar(value) : NULL;
        }
    }
    return NULL;
}

/* Whether the entry at position (of a sequence) is the one segment
 * addresses: by index, or by any 'name' key of it. */
static bool entry_matches(const yaml_document_t* doc, const yaml_node_t* entry, int position, const char* segment)
{
    if (is_index(segment)) {
        errno = 0;
        long index = strtol(segment, NULL, 10);
        return errno == 0 && index == position;
    }
    if (!entry || entry->type != YAML_MAPPING_NODE) {
        return false;
    }
    for (yaml_node_pair_t* pair = entry->data.mapping.pairs.start; pair < entry->data.mapping.pairs.top; ++pair) {
        const yaml_node_t* key = fd_scene_doc_node(doc, pair->key);
        const yaml_node_t* value = fd_scene_doc_node(doc, pair->value);
        if (key && value && key->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(key), "name") == 0 &&
            value->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(value), segment) == 0) {
            return true;
        }
    }
    return false;
}

/* Item position of the sequence entry addressed by segment, or -1. */
static int find_entry(const yaml_document_t* doc, const yaml_node_t* sequence, const char* segment)
{
    int count = fd_scene_item_count(sequence);
    for (int i = 0; i < count; ++i) {
        if (entry_matches(doc, fd_scene_doc_node(doc, sequence->data.sequence.items.start[i]), i, segment)) {
            return i;
        }
    }
    return -1;
}

/* Pair position of key in a mapping, or -1. */
static int find_pair(const yaml_document_t* doc, const yaml_node_t* mapping, const char* key)
{
    int count = (int)(mapping->data.mapping.pairs.top - mapping->data.mapping.pairs.start);
    for (int i = 0; i < count; ++i) {
        const yaml_node_t* k = fd_scene_doc_node(doc, mapping->data.mapping.pairs.start[i].key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(k), key) == 0) {
            return i;
        }
    }
    return -1;
}

/* The first entry name of a sequence close to segment, for "did you mean". */
static const char* closest_entry_name(const yaml_document_t* doc, const yaml_node_t* sequence, const char* segment)
{
    int count = fd_scene_item_count(sequence);
    const char* best = NULL;
    for (int i = 0; i < count && !best; ++i) {
        const char* name = entry_name(doc, fd_scene_doc_node(doc, sequence->data.sequence.items.start[i]));
        best = name ? fd_scene_closest(segment, &name, 1) : NULL;
    }
    return best;
}

/* "no entry named 'x' in bodies (did you mean 'y'?)" for segment s, in a
 * sequence of count entries. */
static fd_status missing_entry(const fd_scene_ctx* ctx, const fd_scene_override* o, const override_path* path, int s,
                               const char* close, int count)
{
    const char* segment = path->segments[s];
    int walked = s ? path->ends[s - 1] : 0; /* length of the path before this segment */
    char hint[300] = "";
    if (close) {
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", close);
    } else if (is_index(segment)) {
        snprintf(hint, sizeof hint, " (it has %d)", count);
    }
    return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: no entry %s'%s' in %.*s%s%s", ctx->file, o->key_length, o->arg,
                   is_index(segment) ? "" : "named ", segment, walked, o->arg, walked ? "" : "the document", hint);
}

/* Walks doc from node *root along segments first..count-1 of the path and
 * puts a copy of value there (replacing *root itself when first == count). */
static fd_status graft(fd_scene_ctx* ctx, const fd_scene_override* o, const override_path* path, int first,
                       yaml_document_t* doc, int* root, yaml_document_t* value_doc)
{
    const char* arg = o->arg;
    const int value = yaml_document_get_root_node(value_doc)
                          ? fd_scene_copy_node(doc, value_doc, 1)
                          : yaml_document_add_scalar(doc, NULL, (yaml_char_t*)"", 0, YAML_PLAIN_SCALAR_STYLE);
    if (!value) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: the value is nested too deeply", ctx->file, o->key_length, arg);
    }
    if (first == path->count) {
        *root = value;
        return FD_OK;
    }
    int current = *root;
    for (int s = first; s < path->count; ++s) {
        const char* segment = path->segments[s];
        bool last = s == path->count - 1;
        yaml_node_t* node = fd_scene_doc_node(doc, current);
        int walked = s ? path->ends[s - 1] : 0; /* length of the path before this segment */
        if (node->type == YAML_MAPPING_NODE) {
            int p = find_pair(doc, node, segment);
            if (p >= 0 && last) {
                node->data.mapping.pairs.start[p].value = value;
            } else if (p >= 0) {
                current = node->data.mapping.pairs.start[p].value;
            } else if (last) {
                int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t*)segment, -1, YAML_PLAIN_SCALAR_STYLE);
                if (!k || !yaml_document_append_mapping_pair(doc, current, k, value)) {
                    return fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
                }
            } else if (is_index(path->segments[s + 1])) {
                return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: there is no sequence '%.*s' to take entry %s of",
                               ctx->file, o->key_length, arg, path->ends[s], arg, path->segments[s + 1]);
            } else {
                /* A missing intermediate mapping is created, so that e.g.
                 * world.threads=4 works in a scene without a world block. */
                int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t*)segment, -1, YAML_PLAIN_SCALAR_STYLE);
                int m = k ? yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE) : 0;
                if (!m || !yaml_document_append_mapping_pair(doc, current, k, m)) {
                    return fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
                }
                current = m;
            }
        } else if (node->type == YAML_SEQUENCE_NODE) {
            int i = find_entry(doc, node, segment);
            if (i < 0) {
                const char* close = is_index(segment) ? NULL : closest_entry_name(doc, node, segment);
                return missing_entry(ctx, o, path, s, close, fd_scene_item_count(node));
            }
            if (last) {
                node->data.sequence.items.start[i] = value;
            } else {
                current = node->data.sequence.items.start[i];
            }
        } else {
            return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: %s%.*s%s is a single value, not a mapping or a sequence",
                           ctx->file, o->key_length, arg, walked ? "'" : "the document", walked, arg,
                           walked ? "'" : "");
        }
    }
    return FD_OK;
}

fd_status fd_scene_apply_override(fd_scene_ctx* ctx, const char* arg)
{
    if (ctx->override_count == FD_SCENE_MAX_OVERRIDES) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %s: too many overrides (at most %d)", ctx->file, arg,
                       FD_SCENE_MAX_OVERRIDES);
    }
    const char* equals = strchr(arg, '=');
    fd_scene_override* o = &ctx->overrides[ctx->override_count++];
    *o = (fd_scene_override){.arg = arg, .key_length = equals ? (int)(equals - arg) : (int)strlen(arg)};
    o->first_node = o->end_node = fd_scene_doc_node_count(&ctx->doc) + 1;
    if (!equals) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %s: expected key.path=value (e.g. time.step=1e-5)", ctx->file, arg);
    }
    if (o->key_length == 0 || o->key_length >= FD_SCENE_PATH_MAX) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %s: expected key.path=value with a key path before '='", ctx->file,
                       arg);
    }
    override_path path;
    fd_status status = split_override(ctx, o, &path);
    yaml_document_t value_doc;
    if (status == FD_OK) {
        status = load_override_value(ctx, o, &value_doc); /* a bad value is reported now, streamed or not */
    }
    if (status != FD_OK) {
        return status;
    }
    if (ctx->bodies_streamed && strcmp(path.segments[0], "bodies") == 0) {
        if (path.count > 1) {
            o->deferred = true; /* grafted into the body it names when that body is read */
            yaml_document_delete(&value_doc);
            return FD_OK;
        }
        /* The whole list replaced: the file's items are not read at all,
         * nor are the overrides of single items given before this one. */
        ctx->bodies_streamed = false;
        ctx->streamed_body_count = 0;
        for (int k = 0; k < ctx->override_count; ++k) {
            ctx->overrides[k].deferred = false;
        }
    }
    int root = 1; /* the document's root */
    status = graft(ctx, o, &path, 0, &ctx->doc, &root, &value_doc);
    yaml_document_delete(&value_doc);
    o->end_node = fd_scene_doc_node_count(&ctx->doc) + 1;
    return status;
}

fd_status fd_scene_apply_item_overrides(fd_scene_ctx* ctx, yaml_document_t* item, int* root, int index)
{
    for (int k = 0; k < ctx->override_count; ++k) {
        ctx->overrides[k].item_first_node = ctx->overrides[k].item_end_node = 0;
    }
    for (int k = 0; k < ctx->override_count; ++k) {
        fd_scene_override* o = &ctx->overrides[k];
        if (!o->deferred || o->matched) {
            continue;
        }
        override_path path;
        fd_status status = split_override(ctx, o, &path);
        if (status != FD_OK) {
            return status;
        }
        /* As in one tree: an override takes the first entry that matches
         * when it is applied, after the overrides given before it. */
        const char* segment = path.segments[1];
        const yaml_node_t* entry = fd_scene_doc_node(item, *root);
        if (!entry_matches(item, entry, index, segment)) {
            const char* name = o->closest[0] || is_index(segment) ? NULL : entry_name(item, entry);
            const char* close = name ? fd_scene_closest(segment, &name, 1) : NULL;
            if (close) {
                snprintf(o->closest, sizeof o->closest, "%s", close);
            }
            continue;
        }
        o->matched = true;
        o->item_first_node = fd_scene_doc_node_count(item) + 1;
        yaml_document_t value_doc;
        status = load_override_value(ctx, o, &value_doc);
        if (status == FD_OK) {
            status = graft(ctx, o, &path, 2, item, root, &value_doc);
            yaml_document_delete(&value_doc);
        }
        o->item_end_node = fd_scene_doc_node_count(item) + 1;
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

fd_status fd_scene_check_item_overrides(const fd_scene_ctx* ctx)
{
    for (int k = 0; k < ctx->override_count; ++k) {
        const fd_scene_override* o = &ctx->overrides[k];
        if (o->deferred && !o->matched) {
            override_path path;
            fd_status status = split_override(ctx, o, &path);
            return status != FD_OK ? status
                                   : missing_entry(ctx, o, &path, 1, o->closest[0] ? o->closest : NULL,
                                                   ctx->streamed_body_count);
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- copies */

/* src and dst are different documents (a node pointer into src stays put
 * while dst grows). */
static int copy_node(yaml_document_t* dst, const yaml_document_t* src, int index, int depth)
{
    const yaml_node_t* node = index >= 1 && index <= fd_scene_doc_node_count(src) ? src->nodes.start + index - 1 : NULL;
    if (!node || depth > 64) {
        return 0;
    }
    int copy = 0;
    switch (node->type) {
    case YAML_SCALAR_NODE:
        copy = yaml_document_add_scalar(dst, node->tag, node->data.scalar.value, (int)node->data.scalar.length,
                                        node->data.scalar.style);
        break;
    case YAML_SEQUENCE_NODE:
        copy = yaml_document_add_sequence(dst, node->tag, node->data.sequence.style);
        for (yaml_node_item_t* item = node->data.sequence.items.start; copy && item < node->data.sequence.items.top;
             ++item) {
            int child = copy_node(dst, src, *item, depth + 1);
            if (!child || !yaml_document_append_sequence_item(dst, copy, child)) {
                return 0;
            }
        }
        break;
    case YAML_MAPPING_NODE:
        copy = yaml_document_add_mapping(dst, node->tag, node->data.mapping.style);
        for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; copy && pair < node->data.mapping.pairs.top;
             ++pair) {
            int key = copy_node(dst, src, pair->key, depth + 1);
            int value = key ? copy_node(dst, src, pair->value, depth + 1) : 0;
            if (!value || !yaml_document_append_mapping_pair(dst, copy, key, value)) {
                return 0;
            }
        }
        break;
    default:
        return 0;
    }
    if (copy) {
        fd_scene_set_marks(dst, copy, node->start_mark, node->end_mark);
    }
    return copy;
}

int fd_scene_copy_node(yaml_document_t* dst, const yaml_document_t* src, int index)
{
    return copy_node(dst, src, index, 0);
}
