/* The scene document's helpers, below every other part of the loader: the
 * context's memory, the nodes, where a node came from (a line of the file,
 * or a --set argument), the error messages that point at a node ("FILE:LINE:
 * key.path: ...", or the --set argument for a node an override created),
 * spelling hints, and libyaml's own errors. Reading the file into nodes is
 * scene_stream.c's, grafting overrides scene_overrides.c's.
 *
 * Nodes appended by override k have indices in [first_node, end_node) of
 * that override; that is how a message knows to name the argument, not a
 * line. An override of one streamed body (bodies.ENTRY...) waits for that
 * body: it is grafted into the body's own document when the body is read,
 * and its node range is kept per item (item_first_node, item_end_node).
 * libyaml's add functions may move the node array: nothing here keeps a node
 * pointer across them, only indices.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "io/scene_loader.h"

/* ---------------------------------------------------------------- memory */

void* fd_scene_alloc(fd_scene_ctx* ctx, size_t count, size_t size)
{
    if (!fd_grow_doubling((void**)&ctx->allocations, &ctx->allocation_capacity, ctx->allocation_count + 1, 16,
                          sizeof *ctx->allocations)) {
        fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
        return NULL;
    }
    void* block = calloc(count ? count : 1, size ? size : 1);
    if (!block) {
        fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
        return NULL;
    }
    ctx->allocations[ctx->allocation_count++] = block;
    return block;
}

void fd_scene_ctx_free(fd_scene_ctx* ctx)
{
    fd_free_each(ctx->allocations, (size_t)ctx->allocation_count);
    free(ctx->allocations);
    ctx->allocations = NULL;
    ctx->allocation_count = ctx->allocation_capacity = 0;
    if (ctx->doc_loaded) {
        yaml_document_delete(&ctx->doc);
        ctx->doc_loaded = false;
    }
    for (int i = 0; i < ctx->anchor_count; ++i) {
        free(ctx->anchors[i].name);
    }
    free(ctx->anchors);
    ctx->anchors = NULL;
    ctx->anchor_count = ctx->anchor_capacity = 0;
    free(ctx->text);
    ctx->text = NULL;
}

/* ---------------------------------------------------------------- nodes */

/* While a streamed body is being built, the indices its nodes hold are
 * indices into its own document. */
yaml_node_t* fd_scene_node(const fd_scene_ctx* ctx, int index)
{
    return fd_scene_doc_node(ctx->item_doc ? ctx->item_doc : &ctx->doc, index);
}

yaml_node_t* fd_scene_root(fd_scene_ctx* ctx) { return yaml_document_get_root_node(&ctx->doc); }

/* 1-based index of node in doc, or 0 when it is not one of doc's nodes. */
static int index_in(const yaml_document_t* doc, const yaml_node_t* node)
{
    uintptr_t at = (uintptr_t)node, start = (uintptr_t)doc->nodes.start, top = (uintptr_t)doc->nodes.top;
    return doc->nodes.start && at >= start && at < top ? (int)(node - doc->nodes.start) + 1 : 0;
}

int fd_scene_item_count(const yaml_node_t* sequence)
{
    if (!sequence || sequence->type != YAML_SEQUENCE_NODE) {
        return 0;
    }
    return (int)(sequence->data.sequence.items.top - sequence->data.sequence.items.start);
}

yaml_node_t* fd_scene_item(const fd_scene_ctx* ctx, const yaml_node_t* sequence, int i)
{
    if (i < 0 || i >= fd_scene_item_count(sequence)) {
        return NULL;
    }
    return fd_scene_node(ctx, sequence->data.sequence.items.start[i]);
}

const char* fd_scene_scalar(const yaml_node_t* node)
{
    if (!node || node->type != YAML_SCALAR_NODE) {
        return "";
    }
    return (const char*)node->data.scalar.value;
}

bool fd_scene_is_null(const yaml_node_t* node)
{
    if (!node || node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
        return false;
    }
    const char* s = fd_scene_scalar(node);
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
           strcmp(s, "NULL") == 0;
}

void fd_scene_describe(const yaml_node_t* node, char* buffer, size_t size)
{
    if (!node || fd_scene_is_null(node)) {
        snprintf(buffer, size, "nothing");
    } else if (node->type == YAML_MAPPING_NODE) {
        snprintf(buffer, size, "a mapping");
    } else if (node->type == YAML_SEQUENCE_NODE) {
        snprintf(buffer, size, "a sequence of %d", fd_scene_item_count(node));
    } else if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        snprintf(buffer, size, "'%.60s'", fd_scene_scalar(node));
    } else {
        snprintf(buffer, size, "the quoted string \"%.60s\"", fd_scene_scalar(node));
    }
}

/* ---------------------------------------------------------------- messages */

/* The override a node came from, or NULL for a node of the file. A node is
 * one of the scene document's, of the streamed body being built, or the
 * stand-in for a node that is gone (fd_scene_origin_node). */
static const fd_scene_override* override_of(const fd_scene_ctx* ctx, const yaml_node_t* node)
{
    if (!node) {
        return NULL;
    }
    if (node == &ctx->origin_node) {
        return ctx->origin_override >= 0 ? &ctx->overrides[ctx->origin_override] : NULL;
    }
    int index = ctx->doc_loaded ? index_in(&ctx->doc, node) : 0;
    if (index) {
        for (int k = 0; index > ctx->file_node_count && k < ctx->override_count; ++k) {
            if (index >= ctx->overrides[k].first_node && index < ctx->overrides[k].end_node) {
                return &ctx->overrides[k];
            }
        }
        return NULL;
    }
    index = ctx->item_doc ? index_in(ctx->item_doc, node) : 0;
    if (index > ctx->item_file_node_count) {
        for (int k = 0; k < ctx->override_count; ++k) {
            if (index >= ctx->overrides[k].item_first_node && index < ctx->overrides[k].item_end_node) {
                return &ctx->overrides[k];
            }
        }
    }
    return NULL;
}

fd_scene_origin fd_scene_origin_of(const fd_scene_ctx* ctx, const yaml_node_t* node)
{
    const fd_scene_override* o = override_of(ctx, node);
    return (fd_scene_origin){node ? (uint32_t)node->start_mark.line + 1 : 0,
                             o ? (int32_t)(o - ctx->overrides) : -1};
}

const yaml_node_t* fd_scene_origin_node(fd_scene_ctx* ctx, fd_scene_origin origin)
{
    memset(&ctx->origin_node, 0, sizeof ctx->origin_node);
    ctx->origin_node.start_mark.line = origin.line ? origin.line - 1 : 0;
    ctx->origin_node.end_mark = ctx->origin_node.start_mark;
    ctx->origin_override = origin.override;
    return &ctx->origin_node;
}

void fd_scene_where(const fd_scene_ctx* ctx, const yaml_node_t* node, char* buffer, size_t size)
{
    const fd_scene_override* o = override_of(ctx, node);
    if (o) {
        snprintf(buffer, size, "--set %.*s", o->key_length, o->arg);
    } else if (node) {
        snprintf(buffer, size, "line %zu", node->start_mark.line + 1);
    } else {
        snprintf(buffer, size, "%s", ctx->file);
    }
}

fd_status fd_scene_fail(const fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const char* format, ...)
{
    char message[1536];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);

    char where[FD_PATH_MAX + 300];
    const fd_scene_override* o = override_of(ctx, node);
    if (o) {
        snprintf(where, sizeof where, "%s: --set %.*s", ctx->file, o->key_length, o->arg);
    } else if (node) {
        snprintf(where, sizeof where, "%s:%zu", ctx->file, node->start_mark.line + 1);
    } else {
        snprintf(where, sizeof where, "%s", ctx->file);
    }
    if (path && path[0]) {
        return fd_fail(FD_ERR_PARSE, "%s: %s: %s", where, path, message);
    }
    return fd_fail(FD_ERR_PARSE, "%s: %s", where, message);
}

/* ---------------------------------------------------------------- suggestions */

/* Damerau-free Levenshtein distance, case-insensitive, for short names. */
static int edit_distance(const char* a, const char* b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) {
        return 1000;
    }
    int row[64];
    for (size_t j = 0; j <= lb; ++j) {
        row[j] = (int)j;
    }
    for (size_t i = 1; i <= la; ++i) {
        int diagonal = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; ++j) {
            int above = row[j];
            int cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            int best = diagonal + cost;
            if (row[j - 1] + 1 < best) {
                best = row[j - 1] + 1;
            }
            if (above + 1 < best) {
                best = above + 1;
            }
            row[j] = best;
            diagonal = above;
        }
    }
    return row[lb];
}

const char* fd_scene_closest(const char* word, const char* const* names, int count)
{
    const char* best = NULL;
    int best_distance = 1000;
    for (int i = 0; i < count; ++i) {
        int d = edit_distance(word, names[i]);
        if (d < best_distance) {
            best_distance = d;
            best = names[i];
        }
    }
    if (!best) {
        return NULL;
    }
    /* A typo: at most a third of the longer name changed (and at least one
     * edit allowed), or one name is a prefix of the other. */
    size_t lw = strlen(word), lb = strlen(best);
    size_t longer = lw > lb ? lw : lb;
    int allowed = (int)(longer / 3) > 1 ? (int)(longer / 3) : 1;
    return best_distance <= allowed ? best : NULL;
}

void fd_scene_join(char* buffer, size_t size, const char* const* names, int count)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (int i = 0; i < count; ++i) {
        int n = snprintf(buffer + used, size - used, "%s%s", i ? ", " : "", names[i]);
        if (n < 0 || (size_t)n >= size - used) {
            if (size > 4) {
                strcpy(buffer + size - 4, "...");
            }
            return;
        }
        used += (size_t)n;
    }
}

/* ---------------------------------------------------------------- loading */

static int line_at_offset(const char* text, size_t size, size_t offset)
{
    int line = 1;
    for (size_t i = 0; i < offset && i < size; ++i) {
        line += text[i] == '\n';
    }
    return line;
}

/* libyaml's problem as "LINE-PREFIX: YAML syntax error: ..." where the
 * prefix is "FILE:LINE" for the file or "FILE: --set KEY: value 'V'" for an
 * override value. */
static fd_status yaml_problem(const fd_scene_ctx* ctx, const yaml_parser_t* parser, const fd_scene_override* o,
                              const char* text, size_t size)
{
    int line = 0;
    char detail[600] = "";
    switch (parser->error) {
    case YAML_MEMORY_ERROR:
        snprintf(detail, sizeof detail, "out of memory while parsing YAML");
        break;
    case YAML_READER_ERROR:
        line = line_at_offset(text, size, parser->problem_offset);
        if (parser->problem_value != -1) {
            snprintf(detail, sizeof detail, "YAML error: %s (byte 0x%02x)", parser->problem ? parser->problem : "?",
                     (unsigned)parser->problem_value);
        } else {
            snprintf(detail, sizeof detail, "YAML error: %s", parser->problem ? parser->problem : "?");
        }
        break;
    default:
        line = (int)parser->problem_mark.line + 1;
        if (parser->context && !o) {
            snprintf(detail, sizeof detail, "YAML syntax error: %s (%s at line %zu)",
                     parser->problem ? parser->problem : "?", parser->context, parser->context_mark.line + 1);
        } else {
            snprintf(detail, sizeof detail, "YAML syntax error: %s", parser->problem ? parser->problem : "?");
        }
        break;
    }
    if (o) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: cannot parse the value '%s': %s", ctx->file, o->key_length,
                       o->arg, o->arg + o->key_length + 1, detail);
    }
    if (line > 0) {
        return fd_fail(FD_ERR_PARSE, "%s:%d: %s", ctx->file, line, detail);
    }
    return fd_fail(FD_ERR_PARSE, "%s: %s", ctx->file, detail);
}

fd_status fd_scene_yaml_problem(const fd_scene_ctx* ctx, const yaml_parser_t* parser)
{
    return yaml_problem(ctx, parser, NULL, ctx->text, ctx->text_size);
}

fd_status fd_scene_override_problem(const fd_scene_ctx* ctx, const yaml_parser_t* parser, const fd_scene_override* o,
                                    const char* text, size_t size)
{
    return yaml_problem(ctx, parser, o, text, size);
}
