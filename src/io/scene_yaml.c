/* The scene document: loading with libyaml's document API (every node keeps
 * its line), --set overrides grafted into the node tree, and error messages
 * that point at a node ("FILE:LINE: key.path: ...", or the --set argument
 * for a node an override created).
 *
 * Overrides are applied to the tree before validation, so an overridden
 * value goes through exactly the checks a value in the file would. Nodes
 * appended by override k have indices in [first_node, end_node) of that
 * override; that is how a message knows to name the argument, not a line.
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
    free(ctx->text);
    ctx->text = NULL;
}

/* ---------------------------------------------------------------- nodes */

static int node_count(const yaml_document_t* doc) { return (int)(doc->nodes.top - doc->nodes.start); }

yaml_node_t* fd_scene_node(const fd_scene_ctx* ctx, int index)
{
    if (index < 1 || index > node_count(&ctx->doc)) {
        return NULL;
    }
    return ctx->doc.nodes.start + index - 1;
}

yaml_node_t* fd_scene_root(fd_scene_ctx* ctx) { return yaml_document_get_root_node(&ctx->doc); }

static int node_index(const fd_scene_ctx* ctx, const yaml_node_t* node)
{
    return (int)(node - ctx->doc.nodes.start) + 1;
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

static const fd_scene_override* override_of(const fd_scene_ctx* ctx, const yaml_node_t* node)
{
    if (!node || !ctx->doc_loaded) {
        return NULL;
    }
    int index = node_index(ctx, node);
    if (index <= ctx->file_node_count) {
        return NULL;
    }
    for (int k = 0; k < ctx->override_count; ++k) {
        if (index >= ctx->overrides[k].first_node && index < ctx->overrides[k].end_node) {
            return &ctx->overrides[k];
        }
    }
    return NULL;
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

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        return fd_fail(FD_ERR_PARSE, "%s: out of memory", path);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, size);
    if (!yaml_parser_load(&parser, &ctx->doc)) {
        fd_status status = yaml_problem(ctx, &parser, NULL, text, size);
        yaml_parser_delete(&parser);
        return status;
    }
    ctx->doc_loaded = true;
    if (!yaml_document_get_root_node(&ctx->doc)) {
        yaml_parser_delete(&parser);
        return fd_fail(FD_ERR_PARSE, "%s:1: the file holds no scene (an empty YAML document; see docs/scene-format.md)",
                       path);
    }
    /* One document per file: a second one is almost surely a mistake. */
    yaml_document_t extra;
    if (!yaml_parser_load(&parser, &extra)) {
        fd_status status = yaml_problem(ctx, &parser, NULL, text, size);
        yaml_parser_delete(&parser);
        return status;
    }
    yaml_node_t* extra_root = yaml_document_get_root_node(&extra);
    size_t extra_line = extra_root ? extra_root->start_mark.line + 1 : 0;
    yaml_document_delete(&extra);
    yaml_parser_delete(&parser);
    if (extra_root) {
        return fd_fail(FD_ERR_PARSE, "%s:%zu: a second YAML document starts here; a scene file holds exactly one", path,
                       extra_line);
    }
    ctx->file_node_count = node_count(&ctx->doc);
    return FD_OK;
}

/* ---------------------------------------------------------------- overrides */

#define OVERRIDE_MAX_SEGMENTS 32

static int copy_node(yaml_document_t* dst, yaml_document_t* src, int index, int depth)
{
    yaml_node_t* node = yaml_document_get_node(src, index);
    if (!node || depth > 64) {
        return 0;
    }
    switch (node->type) {
    case YAML_SCALAR_NODE:
        return yaml_document_add_scalar(dst, node->tag, node->data.scalar.value, (int)node->data.scalar.length,
                                        node->data.scalar.style);
    case YAML_SEQUENCE_NODE: {
        int copy = yaml_document_add_sequence(dst, node->tag, node->data.sequence.style);
        for (yaml_node_item_t* item = node->data.sequence.items.start; copy && item < node->data.sequence.items.top;
             ++item) {
            int child = copy_node(dst, src, *item, depth + 1);
            if (!child || !yaml_document_append_sequence_item(dst, copy, child)) {
                return 0;
            }
        }
        return copy;
    }
    case YAML_MAPPING_NODE: {
        int copy = yaml_document_add_mapping(dst, node->tag, node->data.mapping.style);
        for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; copy && pair < node->data.mapping.pairs.top;
             ++pair) {
            int key = copy_node(dst, src, pair->key, depth + 1);
            int value = key ? copy_node(dst, src, pair->value, depth + 1) : 0;
            if (!value || !yaml_document_append_mapping_pair(dst, copy, key, value)) {
                return 0;
            }
        }
        return copy;
    }
    default:
        return 0;
    }
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

/* Item position of the sequence entry addressed by segment (an index or the
 * entry's 'name'), or -1. */
static int find_entry(const fd_scene_ctx* ctx, const yaml_node_t* sequence, const char* segment)
{
    int count = fd_scene_item_count(sequence);
    if (is_index(segment)) {
        errno = 0;
        long index = strtol(segment, NULL, 10);
        return errno == 0 && index < count ? (int)index : -1;
    }
    for (int i = 0; i < count; ++i) {
        const yaml_node_t* entry = fd_scene_item(ctx, sequence, i);
        if (!entry || entry->type != YAML_MAPPING_NODE) {
            continue;
        }
        for (yaml_node_pair_t* pair = entry->data.mapping.pairs.start; pair < entry->data.mapping.pairs.top; ++pair) {
            const yaml_node_t* key = fd_scene_node(ctx, pair->key);
            const yaml_node_t* value = fd_scene_node(ctx, pair->value);
            if (key && value && key->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(key), "name") == 0 &&
                value->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(value), segment) == 0) {
                return i;
            }
        }
    }
    return -1;
}

/* Pair position of key in a mapping, or -1. */
static int find_pair(const fd_scene_ctx* ctx, const yaml_node_t* mapping, const char* key)
{
    int count = (int)(mapping->data.mapping.pairs.top - mapping->data.mapping.pairs.start);
    for (int i = 0; i < count; ++i) {
        const yaml_node_t* k = fd_scene_node(ctx, mapping->data.mapping.pairs.start[i].key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(k), key) == 0) {
            return i;
        }
    }
    return -1;
}

/* Names of the entries of a sequence, for "did you mean". */
static const char* closest_entry_name(const fd_scene_ctx* ctx, const yaml_node_t* sequence, const char* segment)
{
    int count = fd_scene_item_count(sequence);
    const char* best = NULL;
    for (int i = 0; i < count && !best; ++i) {
        const yaml_node_t* entry = fd_scene_item(ctx, sequence, i);
        if (!entry || entry->type != YAML_MAPPING_NODE) {
            continue;
        }
        int p = find_pair(ctx, entry, "name");
        if (p < 0) {
            continue;
        }
        const char* name = fd_scene_scalar(fd_scene_node(ctx, entry->data.mapping.pairs.start[p].value));
        best = fd_scene_closest(segment, &name, 1);
    }
    return best;
}

fd_status fd_scene_apply_override(fd_scene_ctx* ctx, const char* arg)
{
    if (ctx->override_count == FD_SCENE_MAX_OVERRIDES) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %s: too many overrides (at most %d)", ctx->file, arg,
                       FD_SCENE_MAX_OVERRIDES);
    }
    const char* equals = strchr(arg, '=');
    fd_scene_override* o = &ctx->overrides[ctx->override_count++];
    o->arg = arg;
    o->key_length = equals ? (int)(equals - arg) : (int)strlen(arg);
    o->first_node = o->end_node = node_count(&ctx->doc) + 1;
    if (!equals) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %s: expected key.path=value (e.g. time.step=1e-5)", ctx->file, arg);
    }
    if (o->key_length == 0 || o->key_length >= FD_SCENE_PATH_MAX) {
        return fd_fail(FD_ERR_PARSE, "%s: --set %s: expected key.path=value with a key path before '='", ctx->file,
                       arg);
    }

    /* Split the key path into segments, remembering where each ends (for
     * messages naming the part of the path walked so far). */
    char key[FD_SCENE_PATH_MAX];
    memcpy(key, arg, (size_t)o->key_length);
    key[o->key_length] = '\0';
    const char* segments[OVERRIDE_MAX_SEGMENTS];
    int ends[OVERRIDE_MAX_SEGMENTS];
    int segment_count = 0;
    for (char* start = key;;) {
        char* dot = strchr(start, '.');
        if (dot) {
            *dot = '\0';
        }
        if (!start[0]) {
            return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: empty key in the path", ctx->file, o->key_length, arg);
        }
        if (segment_count == OVERRIDE_MAX_SEGMENTS) {
            return fd_fail(FD_ERR_PARSE, "%s: --set %.*s: path too deep", ctx->file, o->key_length, arg);
        }
        segments[segment_count] = start;
        ends[segment_count++] = (int)(start - key) + (int)strlen(start);
        if (!dot) {
            break;
        }
        start = dot + 1;
    }

    /* The value is YAML: a scalar, or a flow sequence or mapping. */
    const char* value_text = equals + 1;
    yaml_parser_t parser;
    yaml_document_t value_doc;
    if (!yaml_parser_initialize(&parser)) {
        return fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char*)value_text, strlen(value_text));
    if (!yaml_parser_load(&parser, &value_doc)) {
        fd_status status = yaml_problem(ctx, &parser, o, value_text, strlen(value_text));
        yaml_parser_delete(&parser);
        return status;
    }
    yaml_parser_delete(&parser);

    fd_status status = FD_OK;
    yaml_node_t* root = yaml_document_get_root_node(&ctx->doc);
    int current = node_index(ctx, root);
    for (int s = 0; s < segment_count && status == FD_OK; ++s) {
        const char* segment = segments[s];
        bool last = s == segment_count - 1;
        yaml_node_t* node = fd_scene_node(ctx, current);
        int walked = s ? ends[s - 1] : 0; /* length of the path before this segment */
        int value = 0;
        if (last) {
            yaml_node_t* value_root = yaml_document_get_root_node(&value_doc);
            value = value_root
                        ? copy_node(&ctx->doc, &value_doc, 1, 0)
                        : yaml_document_add_scalar(&ctx->doc, NULL, (yaml_char_t*)"", 0, YAML_PLAIN_SCALAR_STYLE);
            if (!value) {
                status = fd_fail(FD_ERR_PARSE, "%s: --set %.*s: the value is nested too deeply", ctx->file,
                                 o->key_length, arg);
                break;
            }
            node = fd_scene_node(ctx, current); /* the add may have moved the nodes */
        }
        if (node->type == YAML_MAPPING_NODE) {
            int p = find_pair(ctx, node, segment);
            if (p >= 0 && last) {
                node->data.mapping.pairs.start[p].value = value;
            } else if (p >= 0) {
                current = node->data.mapping.pairs.start[p].value;
            } else if (last) {
                int k = yaml_document_add_scalar(&ctx->doc, NULL, (yaml_char_t*)segment, -1, YAML_PLAIN_SCALAR_STYLE);
                if (!k || !yaml_document_append_mapping_pair(&ctx->doc, current, k, value)) {
                    status = fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
                }
            } else if (is_index(segments[s + 1])) {
                status = fd_fail(FD_ERR_PARSE, "%s: --set %.*s: there is no sequence '%.*s' to take entry %s of",
                                 ctx->file, o->key_length, arg, ends[s], arg, segments[s + 1]);
            } else {
                /* A missing intermediate mapping is created, so that e.g.
                 * world.threads=4 works in a scene without a world block. */
                int k = yaml_document_add_scalar(&ctx->doc, NULL, (yaml_char_t*)segment, -1, YAML_PLAIN_SCALAR_STYLE);
                int m = k ? yaml_document_add_mapping(&ctx->doc, NULL, YAML_BLOCK_MAPPING_STYLE) : 0;
                if (!m || !yaml_document_append_mapping_pair(&ctx->doc, current, k, m)) {
                    status = fd_fail(FD_ERR_PARSE, "%s: out of memory", ctx->file);
                }
                current = m;
            }
        } else if (node->type == YAML_SEQUENCE_NODE) {
            int i = find_entry(ctx, node, segment);
            if (i < 0) {
                const char* close = is_index(segment) ? NULL : closest_entry_name(ctx, node, segment);
                char hint[300] = "";
                if (close) {
                    snprintf(hint, sizeof hint, " (did you mean '%s'?)", close);
                } else if (is_index(segment)) {
                    snprintf(hint, sizeof hint, " (it has %d)", fd_scene_item_count(node));
                }
                status = fd_fail(FD_ERR_PARSE, "%s: --set %.*s: no entry %s'%s' in %.*s%s%s", ctx->file, o->key_length,
                                 arg, is_index(segment) ? "" : "named ", segment, walked, arg,
                                 walked ? "" : "the document", hint);
            } else if (last) {
                node->data.sequence.items.start[i] = value;
            } else {
                current = node->data.sequence.items.start[i];
            }
        } else {
            status =
                fd_fail(FD_ERR_PARSE, "%s: --set %.*s: %s%.*s%s is a single value, not a mapping or a sequence",
                        ctx->file, o->key_length, arg, walked ? "'" : "the document", walked, arg, walked ? "'" : "");
        }
    }
    yaml_document_delete(&value_doc);
    o->end_node = node_count(&ctx->doc) + 1;
    return status;
}
