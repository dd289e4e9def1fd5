/* The scene document: reading the file (its YAML into nodes that keep their
 * lines is scene_stream.c's), --set overrides grafted into the node tree, and
 * error messages that point at a node ("FILE:LINE: key.path: ...", or the
 * --set argument for a node an override created).
 *
 * Overrides are applied to the tree before validation, so an overridden
 * value goes through exactly the checks a value in the file would. Nodes
 * appended by override k have indices in [first_node, end_node) of that
 * override; that is how a message knows to name the argument, not a line.
 * An override of one streamed body (bodies.ENTRY...) waits for that body:
 * it is grafted into the body's own document when the body is read, and
 * its node range is kept per item (item_first_node, item_end_node).
 * libyaml's add functions may move the node array: nothing here keeps a node
 * pointer across them, only indices. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "io/scene_internal.h"

/* ---------------------------------------------------------------- memory */

void* fd_scene_alloc(fd_scene_ctx* ctx, size_t count, size_t size)
{
    if (ctx->allocation_count == ctx->allocation_capacity) {
        int capacity = ctx->allocation_capacity ? 2 * ctx->allocation_capacity : 16;
        void** grown = realloc(ctx->allocations, (size_t)capacity * sizeof *grown);
        if (!grown) {
            fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
            return NULL;
        }
        ctx->allocations = grown;
        ctx->allocation_capacity = capacity;
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
    for (int i = 0; i < ctx->allocation_count; ++i) {
        free(ctx->allocations[i]);
    }
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

static int node_count(const yaml_document_t* doc) { return (int)(doc->nodes.top - doc->nodes.start); }

static yaml_node_t* doc_node(const yaml_document_t* doc, int index)
{
    if (index < 1 || index > node_count(doc)) {
        return NULL;
    }
    return doc->nodes.start + index - 1;
}

/* While a streamed body is being built, the indices its nodes hold are
 * indices into its own document. */
yaml_node_t* fd_scene_node(const fd_scene_ctx* ctx, int index)
{
    return doc_node(ctx->item_doc ? ctx->item_doc : &ctx->doc, index);
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
    size_t capacity = 4096, size = 0;
    char* text = malloc(capacity);
    while (text) {
        if (size == capacity) {
            char* grown = realloc(text, 2 * capacity);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            capacity *= 2;
        }
        size_t n = fread(text + size, 1, capacity - size, file);
        size += n;
        if (n == 0) {
            break;
        }
    }
    bool failed = ferror(file) != 0;
    int read_errno = errno;
    fclose(file);
    if (!text) {
        return fd_fail(FD_ERR_IO, "%s: out of memory reading the scene file", path);
    }
    if (failed) {
        free(text);
        return fd_fail(FD_ERR_IO, "%s: cannot read the scene file: %s", path, strerror(read_errno));
    }
    ctx->text = text;
    ctx->text_size = size;

    return fd_scene_doc_build(ctx);
}

fd_status fd_scene_yaml_problem(const fd_scene_ctx* ctx, const yaml_parser_t* parser)
{
    return yaml_problem(ctx, parser, NULL, ctx->text, ctx->text_size);
}

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
    fd_status status = yaml_parser_load(&parser, value) ? FD_OK : yaml_problem(ctx, &parser, o, text, strlen(text));
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
        const yaml_node_t* key = doc_node(doc, pair->key);
        if (key && key->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(key), "name") == 0) {
            const yaml_node_t* value = doc_node(doc, pair->value);
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
        const yaml_node_t* key = doc_node(doc, pair->key);
        const yaml_node_t* value = doc_node(doc, pair->value);
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
        if (entry_matches(doc, doc_node(doc, sequence->data.sequence.items.start[i]), i, segment)) {
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
        const yaml_node_t* k = doc_node(doc, mapping->data.mapping.pairs.start[i].key);
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
        const char* name = entry_name(doc, doc_node(doc, sequence->data.sequence.items.start[i]));
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
        yaml_node_t* node = doc_node(doc, current);
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
    o->first_node = o->end_node = node_count(&ctx->doc) + 1;
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
    o->end_node = node_count(&ctx->doc) + 1;
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
        const yaml_node_t* entry = doc_node(item, *root);
        if (!entry_matches(item, entry, index, segment)) {
            const char* name = o->closest[0] || is_index(segment) ? NULL : entry_name(item, entry);
            const char* close = name ? fd_scene_closest(segment, &name, 1) : NULL;
            if (close) {
                snprintf(o->closest, sizeof o->closest, "%s", close);
            }
            continue;
        }
        o->matched = true;
        o->item_first_node = node_count(item) + 1;
        yaml_document_t value_doc;
        status = load_override_value(ctx, o, &value_doc);
        if (status == FD_OK) {
            status = graft(ctx, o, &path, 2, item, root, &value_doc);
            yaml_document_delete(&value_doc);
        }
        o->item_end_node = node_count(item) + 1;
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
