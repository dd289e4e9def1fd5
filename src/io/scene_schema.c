/* The scene format as data: one table per YAML mapping, one row per key
 * {name, type, unit, doc, flags, range, offset, default} (the REBOUND
 * parameter-table idea). The same rows drive
 *   - parsing: fd_scene_parse_map walks a mapping node and fills a struct;
 *   - validation messages: unknown keys (with "did you mean"), wrong types,
 *     ranges and missing required keys, all worded from the row;
 *   - the reference in docs/scene-format.md (fd_scene_write_reference; a test
 *     checks that the file holds exactly what the tables say).
 * What a single row cannot say (a key valid only for one shape type, names
 * that must exist or be unique) is checked in scene.c after parsing.
 * Contact sub-model parameters are not in these tables: they come from the
 * model registry (fd_model_find and its fd_param_info table) at run time.
 * The tables themselves are in scene_keys.c and scene_keys_inputs.c.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/scene_loader.h"

/* ---------------------------------------------------------------- helpers */

static fd_scene_seen* seen_of(const fd_scene_table* table, void* target)
{
    return (fd_scene_seen*)((char*)target + table->seen_offset);
}

const yaml_node_t* fd_scene_given(const fd_scene_table* table, const void* target, const char* key)
{
    const fd_scene_seen* seen = (const fd_scene_seen*)((const char*)target + table->seen_offset);
    for (int k = 0; k < table->key_count; ++k) {
        if (strcmp(table->keys[k].name, key) == 0) {
            return seen->value[k];
        }
    }
    return NULL;
}

/* Appends ".key" (or "key" at the top, or "[i]" when key is NULL) to path;
 * returns the old length, to restore with path[old] = '\0'. */
static size_t path_push(char* path, const char* key, int index)
{
    size_t length = strlen(path);
    if (key) {
        snprintf(path + length, FD_SCENE_PATH_MAX - length, "%s%s", length ? "." : "", key);
    } else {
        snprintf(path + length, FD_SCENE_PATH_MAX - length, "[%d]", index);
    }
    return length;
}

static void format_range(const fd_scene_range* r, char* buffer, size_t size)
{
    if (r->lo_kind && r->hi_kind) {
        snprintf(buffer, size, "in %c%g, %g%c", r->lo_kind == FD_SCENE_INCLUSIVE ? '[' : '(', r->lo, r->hi,
                 r->hi_kind == FD_SCENE_INCLUSIVE ? ']' : ')');
    } else if (r->lo_kind) {
        snprintf(buffer, size, "%s %g", r->lo_kind == FD_SCENE_INCLUSIVE ? ">=" : ">", r->lo);
    } else if (r->hi_kind) {
        snprintf(buffer, size, "%s %g", r->hi_kind == FD_SCENE_INCLUSIVE ? "<=" : "<", r->hi);
    } else {
        buffer[0] = '\0';
    }
}

static bool in_range(const fd_scene_range* r, double v)
{
    if (r->lo_kind == FD_SCENE_INCLUSIVE && !(v >= r->lo)) {
        return false;
    }
    if (r->lo_kind == FD_SCENE_EXCLUSIVE && !(v > r->lo)) {
        return false;
    }
    if (r->hi_kind == FD_SCENE_INCLUSIVE && !(v <= r->hi)) {
        return false;
    }
    if (r->hi_kind == FD_SCENE_EXCLUSIVE && !(v < r->hi)) {
        return false;
    }
    return true;
}

static fd_status check_range(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const fd_scene_range* r,
                             double v)
{
    if (in_range(r, v)) {
        return FD_OK;
    }
    char range[128];
    format_range(r, range, sizeof range);
    return fd_scene_fail(ctx, node, path, "must be %s (got %s)", range, fd_scene_scalar(node));
}

static fd_status expected(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const char* what)
{
    char got[128];
    fd_scene_describe(node, got, sizeof got);
    return fd_scene_fail(ctx, node, path, "expected %s, got %s", what, got);
}

/* One key: value entry of a mapping node. */
typedef struct map_entry {
    const yaml_node_t* key;
    const char* name; /* the key's text */
    const yaml_node_t* value;
} map_entry;

/* The entry of pair; an error at the key when it is not a plain name. */
static fd_status read_entry(const fd_scene_ctx* ctx, const yaml_node_pair_t* pair, const char* path, map_entry* out)
{
    out->key = fd_scene_node(ctx, pair->key);
    out->value = fd_scene_node(ctx, pair->value);
    if (!out->key || out->key->type != YAML_SCALAR_NODE) {
        return fd_scene_fail(ctx, out->key, path, "keys must be plain names, not a mapping or a sequence");
    }
    out->name = fd_scene_scalar(out->key);
    return FD_OK;
}

/* ---------------------------------------------------------------- scalars */

/* A number or an integer as written: a plain scalar (a quoted "1" is a
 * string), not null, whose whole text converts. */
typedef struct numeral {
    const char* text;
    double real;       /* strtod's value, for a number */
    long long whole;   /* strtoll's, for an integer */
    bool out_of_range; /* the conversion set ERANGE */
} numeral;

/* Reads node as a number (strtod) or, with integer, a decimal integer
 * (strtoll); "expected a number" ("an integer") when it is not one. */
static fd_status read_numeral(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, bool integer,
                              numeral* out)
{
    const char* what = integer ? "an integer" : "a number";
    if (!node || node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        fd_scene_is_null(node)) {
        return expected(ctx, node, path, what);
    }
    out->text = fd_scene_scalar(node);
    char* end = NULL;
    errno = 0;
    if (integer) {
        out->whole = strtoll(out->text, &end, 10);
    } else {
        out->real = strtod(out->text, &end);
    }
    out->out_of_range = errno == ERANGE;
    if (end == out->text || *end != '\0') {
        return expected(ctx, node, path, what);
    }
    return FD_OK;
}

static fd_status parse_number(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, double* out)
{
    numeral n = {0}; /* (gcc -O3 cannot tell that a failed read returns before n is read) */
    fd_status status = read_numeral(ctx, node, path, false, &n);
    if (status != FD_OK) {
        return status;
    }
    if (!isfinite(n.real) || n.out_of_range) {
        if (n.out_of_range && n.real == 0.0) {
            *out = n.real; /* underflow to zero is harmless */
            return FD_OK;
        }
        if (n.out_of_range && isfinite(n.real)) {
            /* Subnormal: fewer digits than a double has, and its square is 0. */
            return fd_scene_fail(ctx, node, path,
                                 "'%s' is too small to compute with: below 2.2e-308 in magnitude, the smallest "
                                 "normal double (it keeps fewer digits, and its square is 0)",
                                 n.text);
        }
        if (n.out_of_range) {
            return fd_scene_fail(ctx, node, path, "'%s' is too large: beyond 1.8e308, the largest double", n.text);
        }
        return fd_scene_fail(ctx, node, path, "expected a finite number, got '%s'", n.text);
    }
    *out = n.real;
    return FD_OK;
}

static fd_status parse_integer(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const fd_scene_range* r,
                               int64_t* out)
{
    numeral n = {0}; /* (gcc -O3 cannot tell that a failed read returns before n is read) */
    fd_status status = read_numeral(ctx, node, path, true, &n);
    if (status != FD_OK) {
        return status;
    }
    if (n.out_of_range) {
        return fd_scene_fail(ctx, node, path, "integer out of range (got %s)", n.text);
    }
    status = check_range(ctx, node, path, r, (double)n.whole);
    if (status == FD_OK) {
        *out = (int64_t)n.whole;
    }
    return status;
}

static fd_status parse_bool(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, bool* out)
{
    static const char* const yes[] = {"true", "True", "TRUE"};
    static const char* const no[] = {"false", "False", "FALSE"};
    if (node && node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        for (int i = 0; i < 3; ++i) {
            if (strcmp(fd_scene_scalar(node), yes[i]) == 0) {
                *out = true;
                return FD_OK;
            }
            if (strcmp(fd_scene_scalar(node), no[i]) == 0) {
                *out = false;
                return FD_OK;
            }
        }
    }
    return expected(ctx, node, path, "true or false");
}

static fd_status parse_string(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, bool nonempty,
                              const char** out)
{
    if (!node || node->type != YAML_SCALAR_NODE) {
        return expected(ctx, node, path, "a string");
    }
    if (strlen(fd_scene_scalar(node)) != node->data.scalar.length) {
        return fd_scene_fail(ctx, node, path, "must not contain a NUL character");
    }
    if (nonempty && (fd_scene_is_null(node) || node->data.scalar.length == 0)) {
        return fd_scene_fail(ctx, node, path, "must not be empty");
    }
    *out = fd_scene_scalar(node);
    return FD_OK;
}

static fd_status parse_enum(fd_scene_ctx* ctx, const yaml_node_t* node, const char* path, const char* const* choices,
                            int* out)
{
    int count = 0;
    while (choices[count]) {
        ++count;
    }
    char list[512];
    fd_scene_join(list, sizeof list, choices, count);
    if (!node || node->type != YAML_SCALAR_NODE || fd_scene_is_null(node)) {
        char what[600];
        snprintf(what, sizeof what, "one of %s", list);
        return expected(ctx, node, path, what);
    }
    for (int i = 0; i < count; ++i) {
        if (strcmp(fd_scene_scalar(node), choices[i]) == 0) {
            *out = i;
            return FD_OK;
        }
    }
    const char* close = fd_scene_closest(fd_scene_scalar(node), choices, count);
    if (close) {
        return fd_scene_fail(ctx, node, path, "unknown value '%s' (did you mean '%s'? expected one of %s)",
                             fd_scene_scalar(node), close, list);
    }
    return fd_scene_fail(ctx, node, path, "unknown value '%s' (expected one of %s)", fd_scene_scalar(node), list);
}

/* ---------------------------------------------------------------- vectors */

static fd_status parse_numbers(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, const fd_scene_range* r,
                               int count, const char* form, double* out)
{
    if (!node || node->type != YAML_SEQUENCE_NODE || fd_scene_item_count(node) != count) {
        char what[64];
        snprintf(what, sizeof what, "%s (%d numbers)", form, count);
        return expected(ctx, node, path, what);
    }
    for (int i = 0; i < count; ++i) {
        const yaml_node_t* item = fd_scene_item(ctx, node, i);
        size_t mark = path_push(path, NULL, i);
        fd_status status = parse_number(ctx, item, path, &out[i]);
        if (status == FD_OK) {
            status = check_range(ctx, item, path, r, out[i]);
        }
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

static fd_status parse_quat(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, fd_quat* out)
{
    double q[4];
    static const fd_scene_range any = ANY;
    fd_status status = parse_numbers(ctx, node, path, &any, 4, "[w, x, y, z]", q);
    if (status != FD_OK) {
        return status;
    }
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(norm - 1.0) <= 1e-6)) {
        return fd_scene_fail(ctx, node, path, "must be a unit quaternion [w, x, y, z] (its norm is %.9g)", norm);
    }
    *out = (fd_quat){q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm};
    return FD_OK;
}

static fd_status parse_axes(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, uint32_t* out)
{
    *out = 0;
    if (fd_scene_is_null(node)) {
        return FD_OK;
    }
    if (!node || node->type != YAML_SEQUENCE_NODE) {
        return expected(ctx, node, path, "a list of axes such as [x, z]");
    }
    for (int i = 0; i < fd_scene_item_count(node); ++i) {
        const yaml_node_t* item = fd_scene_item(ctx, node, i);
        const char* axis = fd_scene_scalar(item);
        uint32_t bit = 0;
        if (item && item->type == YAML_SCALAR_NODE) {
            bit = strcmp(axis, "x") == 0   ? FD_LOCK_X
                  : strcmp(axis, "y") == 0 ? FD_LOCK_Y
                  : strcmp(axis, "z") == 0 ? FD_LOCK_Z
                                           : 0;
        }
        if (!bit) {
            size_t mark = path_push(path, NULL, i);
            fd_status status = expected(ctx, item, path, "an axis: x, y or z");
            path[mark] = '\0';
            return status;
        }
        *out |= bit;
    }
    return FD_OK;
}

static fd_status parse_name_pair(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, const char** out)
{
    if (!node || node->type != YAML_SEQUENCE_NODE || fd_scene_item_count(node) != 2) {
        return expected(ctx, node, path, "two material names [a, b]");
    }
    for (int i = 0; i < 2; ++i) {
        size_t mark = path_push(path, NULL, i);
        fd_status status = parse_string(ctx, fd_scene_item(ctx, node, i), path, true, &out[i]);
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- sub-models */

static int mechanism_models(fd_mechanism mechanism, const char** names, int capacity)
{
    int count = 0;
    for (int i = 0; i < fd_model_count() && count < capacity; ++i) {
        const fd_model_info* info = fd_model_at(i);
        if (info && info->mechanism == mechanism) {
            names[count++] = info->name;
        }
    }
    if (mechanism != FD_MECHANISM_NORMAL && count < capacity && !fd_model_find(mechanism, "none")) {
        names[count++] = "none"; /* always valid for friction mechanisms */
    }
    return count;
}

/* {model: NAME, PARAM: value, ...}: the model from the registry, each
 * parameter by name from its table. Ranges are checked here too, so that a
 * bad value is reported on its own line; required parameters and anything
 * else the law needs are checked by fd_world_set_contact_law. */
static fd_status parse_submodel(fd_scene_ctx* ctx, const yaml_node_t* node, char* path, fd_mechanism mechanism,
                                fd_submodel_def* out)
{
    const char* mechanism_name = fd_mechanism_name(mechanism);
    if (!node || node->type != YAML_MAPPING_NODE) {
        return expected(ctx, node, path, "a mapping {model: NAME, parameter: value, ...}");
    }
    const yaml_node_t* model_node = NULL;
    for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; ++pair) {
        const yaml_node_t* key = fd_scene_node(ctx, pair->key);
        if (key && key->type == YAML_SCALAR_NODE && strcmp(fd_scene_scalar(key), "model") == 0) {
            if (model_node) {
                size_t at = path_push(path, "model", 0);
                fd_status status = fd_scene_fail(ctx, key, path, "duplicate key");
                path[at] = '\0';
                return status;
            }
            model_node = fd_scene_node(ctx, pair->value);
        }
    }
    const char* names[64];
    int name_count = mechanism_models(mechanism, names, 64);
    char list[512];
    fd_scene_join(list, sizeof list, names, name_count);

    size_t mark = path_push(path, "model", 0);
    const char* model = NULL;
    fd_status status = FD_OK;
    if (!model_node) {
        status = fd_scene_fail(ctx, node, path, "required key is missing (%s models: %s)", mechanism_name, list);
    } else {
        status = parse_string(ctx, model_node, path, true, &model);
    }
    const fd_model_info* info = NULL;
    if (status == FD_OK) {
        info = fd_model_find(mechanism, model);
        if (!info && (mechanism == FD_MECHANISM_NORMAL || strcmp(model, "none") != 0)) {
            const char* close = fd_scene_closest(model, names, name_count);
            char hint[300] = "";
            if (close) {
                snprintf(hint, sizeof hint, "did you mean '%s'? ", close);
            }
            status = fd_scene_fail(ctx, model_node, path, "unknown %s model '%s' (%s%s models: %s)", mechanism_name,
                                   model, hint, mechanism_name, list);
        }
    }
    path[mark] = '\0';
    if (status != FD_OK) {
        return status;
    }

    out->model = info ? info->name : "none";
    out->param_count = 0;
    const char* param_names[FD_MAX_SUBMODEL_PARAMS + 1];
    int param_count = 0;
    for (int p = 0; info && p < info->param_count && p < FD_MAX_SUBMODEL_PARAMS; ++p) {
        param_names[param_count++] = info->params[p].name;
    }
    char param_list[512];
    fd_scene_join(param_list, sizeof param_list, param_names, param_count);

    for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; ++pair) {
        map_entry entry = {0};
        status = read_entry(ctx, pair, path, &entry);
        if (status != FD_OK) {
            return status;
        }
        if (strcmp(entry.name, "model") == 0) {
            continue;
        }
        mark = path_push(path, entry.name, 0);
        int p = -1;
        for (int i = 0; info && i < info->param_count; ++i) {
            if (strcmp(info->params[i].name, entry.name) == 0) {
                p = i;
            }
        }
        if (p < 0) {
            const char* close = fd_scene_closest(entry.name, param_names, param_count);
            if (param_count == 0) {
                status = fd_scene_fail(ctx, entry.key, path,
                                       "unknown parameter '%s': %s model '%s' takes no parameters", entry.name,
                                       mechanism_name, out->model);
            } else if (close) {
                status = fd_scene_fail(ctx, entry.key, path,
                                       "unknown parameter '%s' of %s model '%s' (did you mean '%s'? parameters: %s)",
                                       entry.name, mechanism_name, out->model, close, param_list);
            } else {
                status = fd_scene_fail(ctx, entry.key, path,
                                       "unknown parameter '%s' of %s model '%s' (parameters: %s)", entry.name,
                                       mechanism_name, out->model, param_list);
            }
        }
        for (int i = 0; status == FD_OK && i < out->param_count; ++i) {
            if (strcmp(out->params[i].name, entry.name) == 0) {
                status = fd_scene_fail(ctx, entry.key, path, "duplicate key");
            }
        }
        double v = 0;
        if (status == FD_OK) {
            status = parse_number(ctx, entry.value, path, &v);
        }
        if (status == FD_OK) {
            const fd_param_info* param = &info->params[p];
            fd_scene_range r = ANY;
            if (!isnan(param->min_value) && param->min_value > -INFINITY) {
                r.lo_kind = FD_SCENE_INCLUSIVE;
                r.lo = param->min_value;
            }
            if (!isnan(param->max_value) && param->max_value < INFINITY) {
                r.hi_kind = FD_SCENE_INCLUSIVE;
                r.hi = param->max_value;
            }
            status = check_range(ctx, entry.value, path, &r, v);
        }
        if (status == FD_OK && out->param_count == FD_MAX_SUBMODEL_PARAMS) {
            status = fd_scene_fail(ctx, entry.key, path, "too many parameters (at most %d)", FD_MAX_SUBMODEL_PARAMS);
        }
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
        out->params[out->param_count++] = (fd_param){info->params[p].name, v};
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- mappings */

void fd_scene_apply_defaults(const fd_scene_table* table, void* target)
{
    char* base = target;
    for (int k = 0; k < table->key_count; ++k) {
        const fd_scene_key* key = &table->keys[k];
        void* field = base + key->offset;
        switch (key->type) {
        case FD_SCENE_NUMBER:
            *(double*)field = key->def[0];
            break;
        case FD_SCENE_INTEGER:
            *(int64_t*)field = (int64_t)key->def[0];
            break;
        case FD_SCENE_BOOL:
            *(bool*)field = key->def[0] != 0.0;
            break;
        case FD_SCENE_ENUM:
            *(int*)field = (int)key->def[0];
            break;
        case FD_SCENE_VEC3:
            *(fd_vec3*)field = (fd_vec3){key->def[0], key->def[1], key->def[2]};
            break;
        case FD_SCENE_QUAT:
            *(fd_quat*)field = (fd_quat){key->def[0], key->def[1], key->def[2], key->def[3]};
            break;
        case FD_SCENE_MAP:
            fd_scene_apply_defaults(key->sub, field);
            break;
        case FD_SCENE_STRING:
            *(const char**)field = NULL;
            break;
        case FD_SCENE_AXES:
            *(uint32_t*)field = 0;
            break;
        case FD_SCENE_NAME_PAIR:
            ((const char**)field)[0] = ((const char**)field)[1] = NULL;
            break;
        case FD_SCENE_LIST:
            *(fd_scene_list*)field = (fd_scene_list){NULL, 0};
            break;
        case FD_SCENE_SUBMODEL:
            memset(field, 0, sizeof(fd_submodel_def));
            break;
        }
    }
}

static fd_status parse_list(fd_scene_ctx* ctx, const yaml_node_t* node, const fd_scene_key* key, char* path,
                            fd_scene_list* out)
{
    out->items = NULL;
    out->count = 0;
    if (!fd_scene_is_null(node)) {
        if (!node || node->type != YAML_SEQUENCE_NODE) {
            return expected(ctx, node, path, "a sequence of mappings (lines starting with '- ')");
        }
        int count = fd_scene_item_count(node);
        if (count > 0) {
            out->items = fd_scene_alloc(ctx, (size_t)count, key->sub->size);
            if (!out->items) {
                return FD_ERR_PARSE;
            }
        }
        for (int i = 0; i < count; ++i) {
            void* item = (char*)out->items + (size_t)i * key->sub->size;
            fd_scene_apply_defaults(key->sub, item);
            size_t mark = path_push(path, NULL, i);
            fd_status status = fd_scene_parse_map(ctx, fd_scene_item(ctx, node, i), key->sub, item, path);
            path[mark] = '\0';
            if (status != FD_OK) {
                return status;
            }
            out->count = i + 1;
        }
    }
    if ((key->flags & FD_SCENE_NONEMPTY) && out->count == 0) {
        return fd_scene_fail(ctx, node, path, "needs at least one entry");
    }
    return FD_OK;
}

static fd_status parse_value(fd_scene_ctx* ctx, const yaml_node_t* node, const fd_scene_key* key, char* path,
                             void* field)
{
    switch (key->type) {
    case FD_SCENE_STRING:
        return parse_string(ctx, node, path, key->flags & FD_SCENE_NONEMPTY, (const char**)field);
    case FD_SCENE_NUMBER: {
        fd_status status = parse_number(ctx, node, path, (double*)field);
        return status ? status : check_range(ctx, node, path, &key->range, *(double*)field);
    }
    case FD_SCENE_INTEGER:
        return parse_integer(ctx, node, path, &key->range, (int64_t*)field);
    case FD_SCENE_BOOL:
        return parse_bool(ctx, node, path, (bool*)field);
    case FD_SCENE_VEC3: {
        double v[3];
        fd_status status = parse_numbers(ctx, node, path, &key->range, 3, "[x, y, z]", v);
        if (status == FD_OK) {
            *(fd_vec3*)field = (fd_vec3){v[0], v[1], v[2]};
        }
        return status;
    }
    case FD_SCENE_QUAT:
        return parse_quat(ctx, node, path, (fd_quat*)field);
    case FD_SCENE_ENUM:
        return parse_enum(ctx, node, path, key->choices, (int*)field);
    case FD_SCENE_AXES:
        return parse_axes(ctx, node, path, (uint32_t*)field);
    case FD_SCENE_NAME_PAIR:
        return parse_name_pair(ctx, node, path, (const char**)field);
    case FD_SCENE_MAP:
        if (fd_scene_is_null(node)) {
            seen_of(key->sub, field)->map = node; /* an empty block: all defaults */
            return FD_OK;
        }
        if ((key->flags & FD_SCENE_SHORTHAND) && node && node->type == YAML_SCALAR_NODE) {
            seen_of(key->sub, field)->map = node; /* the scalar is the first key's value */
            seen_of(key->sub, field)->value[0] = node;
            return parse_value(ctx, node, &key->sub->keys[0], path, (char*)field + key->sub->keys[0].offset);
        }
        return fd_scene_parse_map(ctx, node, key->sub, field, path);
    case FD_SCENE_LIST:
        return parse_list(ctx, node, key, path, (fd_scene_list*)field);
    case FD_SCENE_SUBMODEL:
        return parse_submodel(ctx, node, path, (fd_mechanism)key->mechanism, (fd_submodel_def*)field);
    }
    return fd_scene_fail(ctx, node, path, "internal error: unknown key type");
}

fd_status fd_scene_parse_map(fd_scene_ctx* ctx, const yaml_node_t* node, const fd_scene_table* table, void* target,
                             char* path)
{
    fd_scene_seen* seen = seen_of(table, target);
    seen->map = node;
    if (!node || node->type != YAML_MAPPING_NODE) {
        return expected(ctx, node, path, "a mapping (key: value lines)");
    }
    const char* names[FD_SCENE_MAX_KEYS];
    for (int k = 0; k < table->key_count; ++k) {
        names[k] = table->keys[k].name;
    }
    for (yaml_node_pair_t* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; ++pair) {
        map_entry entry = {0};
        fd_status status = read_entry(ctx, pair, path, &entry);
        if (status != FD_OK) {
            return status;
        }
        int k = 0;
        while (k < table->key_count && strcmp(table->keys[k].name, entry.name) != 0) {
            ++k;
        }
        size_t mark = path_push(path, entry.name, 0);
        if (k == table->key_count) {
            const char* close = fd_scene_closest(entry.name, names, table->key_count);
            char list[600];
            fd_scene_join(list, sizeof list, names, table->key_count);
            if (close) {
                status =
                    fd_scene_fail(ctx, entry.key, path, "unknown key '%s' (did you mean '%s'?)", entry.name, close);
            } else {
                status =
                    fd_scene_fail(ctx, entry.key, path, "unknown key '%s' (valid keys here: %s)", entry.name, list);
            }
        } else if (seen->value[k]) {
            char where[FD_PATH_MAX];
            fd_scene_where(ctx, seen->value[k], where, sizeof where);
            status = fd_scene_fail(ctx, entry.key, path, "duplicate key (first given at %s)", where);
        } else {
            seen->value[k] = entry.value;
            status = parse_value(ctx, entry.value, &table->keys[k], path, (char*)target + table->keys[k].offset);
        }
        path[mark] = '\0';
        if (status != FD_OK) {
            return status;
        }
    }
    for (int k = 0; k < table->key_count; ++k) {
        if ((table->keys[k].flags & FD_SCENE_REQUIRED) && !seen->value[k]) {
            size_t mark = path_push(path, table->keys[k].name, 0);
            fd_status status = fd_scene_fail(ctx, node, path, "required key is missing");
            path[mark] = '\0';
            return status;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- reference docs */

static const char* type_text(const fd_scene_key* key, char* buffer, size_t size)
{
    switch (key->type) {
    case FD_SCENE_STRING:
        return "string";
    case FD_SCENE_NUMBER:
        return "number";
    case FD_SCENE_INTEGER:
        return "integer";
    case FD_SCENE_BOOL:
        return "bool";
    case FD_SCENE_VEC3:
        return "[x, y, z]";
    case FD_SCENE_QUAT:
        return "[w, x, y, z]";
    case FD_SCENE_AXES:
        return "list of x, y, z";
    case FD_SCENE_NAME_PAIR:
        return "[name, name]";
    case FD_SCENE_MAP:
        return key->flags & FD_SCENE_SHORTHAND ? "string or mapping" : "mapping";
    case FD_SCENE_LIST:
        return "sequence";
    case FD_SCENE_SUBMODEL:
        return "{model: NAME, ...}";
    case FD_SCENE_ENUM: {
        size_t used = 0;
        buffer[0] = '\0';
        for (int i = 0; key->choices[i]; ++i) {
            used += (size_t)snprintf(buffer + used, size - used, "%s`%s`", i ? " \\| " : "", key->choices[i]);
            if (used >= size) {
                break;
            }
        }
        return buffer;
    }
    }
    return "?";
}

static const char* default_text(const fd_scene_key* key, char* buffer, size_t size)
{
    if (key->flags & FD_SCENE_REQUIRED) {
        return "required";
    }
    if (key->def_text) {
        return key->def_text;
    }
    switch (key->type) {
    case FD_SCENE_NUMBER:
        snprintf(buffer, size, "%g", key->def[0]);
        break;
    case FD_SCENE_INTEGER:
        snprintf(buffer, size, "%" PRId64, (int64_t)key->def[0]);
        break;
    case FD_SCENE_BOOL:
        snprintf(buffer, size, "%s", key->def[0] != 0.0 ? "true" : "false");
        break;
    case FD_SCENE_ENUM:
        snprintf(buffer, size, "`%s`", key->choices[(int)key->def[0]]);
        break;
    case FD_SCENE_VEC3:
        snprintf(buffer, size, "[%g, %g, %g]", key->def[0], key->def[1], key->def[2]);
        break;
    case FD_SCENE_QUAT:
        snprintf(buffer, size, "[%g, %g, %g, %g]", key->def[0], key->def[1], key->def[2], key->def[3]);
        break;
    case FD_SCENE_LIST:
        snprintf(buffer, size, "empty");
        break;
    default:
        snprintf(buffer, size, "none");
        break;
    }
    return buffer;
}

static void write_table(FILE* out, const fd_scene_table* table)
{
    fprintf(out, "### `%s`\n\n%s\n\n", table->title, table->doc);
    fprintf(out, "| key | type | unit | default | allowed | meaning |\n");
    fprintf(out, "|-----|------|------|---------|---------|---------|\n");
    for (int k = 0; k < table->key_count; ++k) {
        const fd_scene_key* key = &table->keys[k];
        char type[256], def[128], allowed[128] = "";
        if (key->type == FD_SCENE_NUMBER || key->type == FD_SCENE_INTEGER || key->type == FD_SCENE_VEC3) {
            char range[96];
            format_range(&key->range, range, sizeof range);
            snprintf(allowed, sizeof allowed, "%s%s", key->type == FD_SCENE_VEC3 && range[0] ? "each " : "", range);
        } else if (key->type == FD_SCENE_QUAT) {
            snprintf(allowed, sizeof allowed, "unit");
        } else if (key->type == FD_SCENE_LIST && (key->flags & FD_SCENE_NONEMPTY)) {
            snprintf(allowed, sizeof allowed, ">= 1 entry");
        } else if (key->type == FD_SCENE_STRING && (key->flags & FD_SCENE_NONEMPTY)) {
            snprintf(allowed, sizeof allowed, "non-empty");
        }
        const char* unit = key->unit && key->unit[0] ? key->unit : "";
        fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", key->name, type_text(key, type, sizeof type), unit,
                default_text(key, def, sizeof def), allowed, key->doc);
    }
    fprintf(out, "\n");
    for (int k = 0; k < table->key_count; ++k) {
        if (table->keys[k].type == FD_SCENE_MAP || table->keys[k].type == FD_SCENE_LIST) {
            write_table(out, table->keys[k].sub);
        }
    }
}

void fd_scene_write_reference(FILE* out)
{
    fprintf(out, "<!-- Generated from the key tables in src/io/scene_keys*.c, scene_outlet.c and scene_stages.c "
                 "by `fricdem scene-format`;\n"
                 "     tests/test_scene.c checks that this section matches them. Do not edit by hand. -->\n\n");
    write_table(out, &fd_scene_file_table);
}
