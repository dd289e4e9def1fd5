/* Reading a LAMMPS deck: lines, variables, expressions (deck.h says what
 * and why). Its only knowledge of LAMMPS commands is `variable` and
 * `include`; everything else goes back to the importer.
 *
 * Must not touch: the world's internals (it writes a scene). */
#include "lammps/deck.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/number_format.h"
#include "core/math.h"

enum { MAX_INCLUDE_DEPTH = 16, MAX_EXPRESSION_DEPTH = 32 };

typedef enum { VARIABLE_INDEX, VARIABLE_STRING, VARIABLE_EQUAL } variable_style;
static const char* const style_names[] = {"index", "string", "equal"};

typedef struct lmp_variable {
    char* name;
    variable_style style;
    char* text; /* the value (index, string) or the expression (equal) */
} lmp_variable;

typedef struct open_file {
    FILE* file;
    char* path;
    int line;
} open_file;

struct lmp_deck {
    open_file files[MAX_INCLUDE_DEPTH];
    int depth;
    char* directory;
    lmp_variable* variables;
    int variable_count, variable_capacity;
    lmp_keyword_fn keyword;
    void* keyword_context;
    char* physical; /* getline's buffer */
    size_t physical_capacity;
    fd_text joined, substituted; /* NUL-terminated past their length (append below) */
    char** words;
    int word_capacity;
    char* command_file; /* the file of the command returned last */
    int command_line;
    int expression_depth;
};

/* ---------------------------------------------------------------- small helpers */

/* fd_text's append, kept NUL-terminated for the C string calls that read
 * the line (the terminator is not counted in its length). */
static bool append(fd_text* buffer, const char* text, size_t length)
{
    fd_text_append(buffer, text, length);
    if (!fd_text_reserve(buffer, 1)) {
        return false;
    }
    buffer->bytes[buffer->length] = '\0';
    return true;
}

static const char* current_file(const lmp_deck* deck) { return deck->files[deck->depth - 1].path; }

static lmp_variable* find_variable(lmp_deck* deck, const char* name, size_t length)
{
    for (int v = 0; v < deck->variable_count; ++v) {
        if (strlen(deck->variables[v].name) == length && strncmp(deck->variables[v].name, name, length) == 0) {
            return &deck->variables[v];
        }
    }
    return NULL;
}

static fd_status define_variable(lmp_deck* deck, const char* name, variable_style style, const char* text)
{
    lmp_variable* existing = find_variable(deck, name, strlen(name));
    if (existing != NULL) {
        char* value = strdup(text);
        if (value == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for variable '%s'", name);
        }
        free(existing->text);
        existing->text = value;
        existing->style = style;
        return FD_OK;
    }
    if (deck->variable_count == deck->variable_capacity) {
        int capacity = deck->variable_capacity ? 2 * deck->variable_capacity : 16;
        lmp_variable* grown = realloc(deck->variables, (size_t)capacity * sizeof *grown);
        if (grown == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for variable '%s'", name);
        }
        deck->variables = grown;
        deck->variable_capacity = capacity;
    }
    lmp_variable* variable = &deck->variables[deck->variable_count];
    variable->name = strdup(name);
    variable->text = strdup(text);
    variable->style = style;
    if (variable->name == NULL || variable->text == NULL) {
        free(variable->name);
        free(variable->text);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for variable '%s'", name);
    }
    deck->variable_count++;
    return FD_OK;
}

/* ---------------------------------------------------------------- expressions */

/* Equal-style formulas (LAMMPS manual, `variable`): numbers, PI, thermo
 * keywords, v_NAME, the math functions below, unary - and !, then ^, * / %,
 * + -, comparisons, && and ||; unary minus binds tighter than ^ as in
 * LAMMPS (-2^2 = 4). */
typedef struct expression {
    lmp_deck* deck;
    const char* at;
    char error[160];
} expression;

static double parse_or(expression* e);

static void skip_space(expression* e)
{
    while (isspace((unsigned char)*e->at)) {
        e->at++;
    }
}

static bool take(expression* e, const char* token)
{
    skip_space(e);
    size_t length = strlen(token);
    if (strncmp(e->at, token, length) == 0) {
        e->at += length;
        return true;
    }
    return false;
}

static double fail_expression(expression* e, const char* format, ...)
{
    if (e->error[0] == '\0') {
        va_list args;
        va_start(args, format);
        vsnprintf(e->error, sizeof e->error, format, args);
        va_end(args);
    }
    return NAN;
}

static double evaluate_text(lmp_deck* deck, const char* text, char* error, size_t error_size);

static double variable_value(expression* e, const char* name, size_t length)
{
    lmp_variable* variable = find_variable(e->deck, name, length);
    if (variable == NULL) {
        return fail_expression(e, "variable '%.*s' is not defined", (int)length, name);
    }
    if (variable->style == VARIABLE_EQUAL) {
        char error[160];
        double value = evaluate_text(e->deck, variable->text, error, sizeof error);
        if (error[0]) {
            return fail_expression(e, "in v_%s: %s", variable->name, error);
        }
        /* LAMMPS 2021 reads v_NAME of an equal-style variable back from its
         * text, "%.15g" (lmp's $(v_a) of a = 0.07883653494134105 shows
         * 0.078836534941341004923): the same digits here. */
        char text[64];
        snprintf(text, sizeof text, "%.15g", value);
        return strtod(text, NULL);
    }
    char* end;
    double value = strtod(variable->text, &end);
    while (isspace((unsigned char)*end)) {
        end++;
    }
    if (end == variable->text || *end != '\0') {
        return fail_expression(e, "v_%s is '%s', not a number", variable->name, variable->text);
    }
    return value;
}

static double call_function(expression* e, const char* name, size_t length)
{
    double args[2] = {0.0, 0.0};
    int count = 0;
    if (!take(e, ")")) {
        do {
            if (count == 2) {
                return fail_expression(e, "too many arguments to %.*s()", (int)length, name);
            }
            args[count++] = parse_or(e);
        } while (take(e, ","));
        if (!take(e, ")")) {
            return fail_expression(e, "')' expected after the arguments of %.*s()", (int)length, name);
        }
    }
    static const struct {
        const char* name;
        double (*one)(double);
    } unary[] = {{"sqrt", sqrt}, {"exp", exp}, {"ln", log}, {"log", log10}, {"sin", sin},   {"cos", cos},
                 {"tan", tan},   {"asin", asin}, {"acos", acos}, {"atan", atan}, {"abs", fabs}, {"ceil", ceil},
                 {"floor", floor}, {"round", round}};
    for (size_t f = 0; f < sizeof unary / sizeof unary[0]; ++f) {
        if (strlen(unary[f].name) == length && strncmp(unary[f].name, name, length) == 0) {
            return count == 1 ? unary[f].one(args[0])
                              : fail_expression(e, "%s() takes one argument", unary[f].name);
        }
    }
    if (count == 2 && length == 5 && strncmp(name, "atan2", 5) == 0) {
        return atan2(args[0], args[1]);
    }
    if (count == 2 && length == 3 && strncmp(name, "min", 3) == 0) {
        return args[0] < args[1] ? args[0] : args[1];
    }
    if (count == 2 && length == 3 && strncmp(name, "max", 3) == 0) {
        return args[0] > args[1] ? args[0] : args[1];
    }
    return fail_expression(e, "function %.*s() with %d arguments is not supported", (int)length, name, count);
}

static double parse_primary(expression* e)
{
    skip_space(e);
    if (take(e, "(")) {
        double value = parse_or(e);
        return take(e, ")") ? value : fail_expression(e, "')' expected");
    }
    if (isdigit((unsigned char)*e->at) || *e->at == '.') {
        char* end;
        double value = strtod(e->at, &end);
        if (end == e->at) {
            return fail_expression(e, "bad number at '%s'", e->at);
        }
        e->at = end;
        return value;
    }
    if (isalpha((unsigned char)*e->at) || *e->at == '_') {
        const char* name = e->at;
        while (isalnum((unsigned char)*e->at) || *e->at == '_') {
            e->at++;
        }
        size_t length = (size_t)(e->at - name);
        if (length > 2 && strncmp(name, "v_", 2) == 0) {
            return variable_value(e, name + 2, length - 2);
        }
        if (take(e, "(")) {
            return call_function(e, name, length);
        }
        if (length == 2 && strncmp(name, "PI", 2) == 0) {
            return FD_PI;
        }
        char keyword[64];
        if (length < sizeof keyword && e->deck->keyword != NULL) {
            memcpy(keyword, name, length);
            keyword[length] = '\0';
            bool found = false;
            double value = e->deck->keyword(e->deck->keyword_context, keyword, &found);
            if (found) {
                return value;
            }
        }
        return fail_expression(e, "'%.*s' is not a supported keyword (thermo keywords: the box's xlo ... zhi, lx, "
                                  "ly, lz, vol)", (int)length, name);
    }
    return fail_expression(e, "unexpected '%s'", e->at);
}

static double parse_unary(expression* e)
{
    if (take(e, "-")) {
        return -parse_unary(e);
    }
    if (take(e, "!")) {
        return parse_unary(e) == 0.0 ? 1.0 : 0.0;
    }
    return parse_primary(e);
}

static double parse_power(expression* e)
{
    double base = parse_unary(e);
    return take(e, "^") ? pow(base, parse_power(e)) : base;
}

/* The binary operators, all left-associative, by level from the loosest
 * (&& and || share one) to the tightest; within a level a symbol comes
 * before a shorter one it starts with ("<=" before "<"). Both operands are
 * always evaluated (no short circuit). */
typedef enum binary_op {
    OP_AND, OP_OR,
    OP_LE, OP_GE, OP_LT, OP_GT, OP_EQ, OP_NE,
    OP_ADD, OP_SUB,
    OP_MUL, OP_DIV, OP_MOD
} binary_op;
enum { OPERATOR_LEVELS = 4, LEVEL_OPERATORS = 6 };
typedef struct binary_operator {
    const char* symbol;
    binary_op op;
} binary_operator;
static const binary_operator operators[OPERATOR_LEVELS][LEVEL_OPERATORS] = {
    {{"&&", OP_AND}, {"||", OP_OR}},
    {{"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}, {"==", OP_EQ}, {"!=", OP_NE}},
    {{"+", OP_ADD}, {"-", OP_SUB}},
    {{"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD}},
};

static double apply(binary_op op, double left, double right)
{
    switch (op) {
    case OP_AND: return left != 0.0 && right != 0.0;
    case OP_OR: return left != 0.0 || right != 0.0;
    case OP_LE: return left <= right;
    case OP_GE: return left >= right;
    case OP_LT: return left < right;
    case OP_GT: return left > right;
    case OP_EQ: return left == right;
    case OP_NE: return left != right;
    case OP_ADD: return left + right;
    case OP_SUB: return left - right;
    case OP_MUL: return left * right;
    case OP_DIV: return left / right;
    case OP_MOD: break;
    }
    return fmod(left, right);
}

/* The operator of `level` at e->at, taken; NULL when there is none. */
static const binary_operator* take_operator(expression* e, int level)
{
    for (int k = 0; k < LEVEL_OPERATORS && operators[level][k].symbol != NULL; ++k) {
        if (take(e, operators[level][k].symbol)) {
            return &operators[level][k];
        }
    }
    return NULL;
}

/* Operands joined by the operators of `level` and tighter ones (powers and
 * unary operators below the last level). */
static double parse_level(expression* e, int level)
{
    if (level == OPERATOR_LEVELS) {
        return parse_power(e);
    }
    double value = parse_level(e, level + 1);
    for (const binary_operator* o; (o = take_operator(e, level)) != NULL;) {
        value = apply(o->op, value, parse_level(e, level + 1));
    }
    return value;
}

/* A whole expression. */
static double parse_or(expression* e) { return parse_level(e, 0); }

/* error[0] == '\0' on success. */
static double evaluate_text(lmp_deck* deck, const char* text, char* error, size_t error_size)
{
    error[0] = '\0';
    if (deck->expression_depth >= MAX_EXPRESSION_DEPTH) {
        snprintf(error, error_size, "variables refer to each other more than %d deep", MAX_EXPRESSION_DEPTH);
        return NAN;
    }
    deck->expression_depth++;
    expression e = {.deck = deck, .at = text};
    double value = parse_or(&e);
    skip_space(&e);
    if (e.error[0] == '\0' && *e.at != '\0') {
        fail_expression(&e, "unexpected '%s'", e.at);
    }
    deck->expression_depth--;
    if (e.error[0] != '\0') {
        snprintf(error, error_size, "%s", e.error);
    }
    return value;
}

/* ---------------------------------------------------------------- substitution */

/* A printf format for one double: %[flags][width][.precision](e|f|g|E|F|G). */
static bool is_number_format(const char* format)
{
    if (*format++ != '%') {
        return false;
    }
    format += strspn(format, "-+ #0");
    format += strspn(format, "0123456789");
    if (*format == '.') {
        format++;
        format += strspn(format, "0123456789");
    }
    return strchr("efgEFG", *format) != NULL && *format != '\0' && format[1] == '\0';
}

static fd_status substitute_value(lmp_deck* deck, fd_text* out, const char* name, size_t length)
{
    lmp_variable* variable = find_variable(deck, name, length);
    if (variable == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: variable '%.*s' is not defined (define it in the deck or "
                       "with --var %.*s VALUE)", current_file(deck), deck->command_line, (int)length, name,
                       (int)length, name);
    }
    char number[64];
    const char* value = variable->text;
    if (variable->style == VARIABLE_EQUAL) {
        char error[160];
        double result = evaluate_text(deck, variable->text, error, sizeof error);
        if (error[0] != '\0') {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: variable '%s' = '%s': %s", current_file(deck),
                           deck->command_line, variable->name, variable->text, error);
        }
        snprintf(number, sizeof number, "%.15g", result); /* LAMMPS's Variable::retrieve */
        value = number;
    }
    return append(out, value, strlen(value)) ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
}

static fd_status substitute_immediate(lmp_deck* deck, fd_text* out, const char* inner, size_t length)
{
    char* text = strndup(inner, length);
    if (text == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    const char* format = "%.20g"; /* LAMMPS's Input::substitute */
    char* colon = strrchr(text, ':');
    if (colon != NULL && colon[1] == '%') {
        *colon = '\0';
        format = colon + 1;
        if (!is_number_format(format)) {
            fd_status status = fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: $(%s): '%s' is not a format for one number "
                                       "(such as %%.17g)", current_file(deck), deck->command_line, text, format);
            free(text);
            return status;
        }
    }
    char error[160];
    double value = evaluate_text(deck, text, error, sizeof error);
    fd_status status = FD_OK;
    if (error[0] != '\0') {
        status = fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: $(%s): %s", current_file(deck), deck->command_line, text,
                         error);
    } else {
        char number[128];
        snprintf(number, sizeof number, format, value);
        status = append(out, number, strlen(number)) ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    free(text);
    return status;
}

/* Comments out (an unquoted '#'), variables in; LAMMPS 2021 substitutes
 * inside quotes too (checked with its `print`). */
static fd_status substitute(lmp_deck* deck, const char* line, fd_text* out)
{
    out->length = 0;
    if (!append(out, "", 0)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    char quote = 0;
    for (const char* c = line; *c != '\0';) {
        if (quote == 0 && *c == '#') {
            break;
        }
        if (*c == '"' || *c == '\'') {
            quote = quote == 0 ? *c : (quote == *c ? 0 : quote);
        }
        if (*c != '$') {
            if (!append(out, c, 1)) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
            }
            c++;
            continue;
        }
        fd_status status;
        if (c[1] == '{') {
            const char* close = strchr(c + 2, '}');
            if (close == NULL) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: '${' without its '}'", current_file(deck),
                               deck->command_line);
            }
            status = substitute_value(deck, out, c + 2, (size_t)(close - c - 2));
            c = close + 1;
        } else if (c[1] == '(') {
            int depth = 0;
            const char* close = c + 1;
            for (; *close != '\0'; ++close) {
                depth += *close == '(' ? 1 : (*close == ')' ? -1 : 0);
                if (depth == 0) {
                    break;
                }
            }
            if (*close != ')') {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: '$(' without its ')'", current_file(deck),
                               deck->command_line);
            }
            status = substitute_immediate(deck, out, c + 2, (size_t)(close - c - 2));
            c = close + 1;
        } else if (isalnum((unsigned char)c[1]) || c[1] == '_') {
            status = substitute_value(deck, out, c + 1, 1);
            c += 2;
        } else {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: a lone '$' (a variable is $x, ${name} or $(expression))",
                           current_file(deck), deck->command_line);
        }
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

/* Words of the substituted line: whitespace apart, "...", '...' or
 * """...""" one word each, quotes removed (in place). */
static fd_status split_words(lmp_deck* deck, char* line, int* count)
{
    *count = 0;
    char* c = line;
    for (;;) {
        while (isspace((unsigned char)*c)) {
            c++;
        }
        if (*c == '\0') {
            return FD_OK;
        }
        if (*count == deck->word_capacity) {
            int capacity = deck->word_capacity ? 2 * deck->word_capacity : 32;
            char** grown = realloc(deck->words, (size_t)capacity * sizeof *grown);
            if (grown == NULL) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
            }
            deck->words = grown;
            deck->word_capacity = capacity;
        }
        const char* closing = strncmp(c, "\"\"\"", 3) == 0 ? "\"\"\"" : (*c == '"' ? "\"" : (*c == '\'' ? "'" : NULL));
        if (closing != NULL) {
            char* start = c + strlen(closing);
            char* end = strstr(start, closing);
            if (end == NULL) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: unbalanced quote %s", current_file(deck),
                               deck->command_line, closing);
            }
            *end = '\0';
            deck->words[(*count)++] = start;
            c = end + strlen(closing);
            continue;
        }
        deck->words[(*count)++] = c;
        while (*c != '\0' && !isspace((unsigned char)*c)) {
            c++;
        }
        if (*c != '\0') {
            *c++ = '\0';
        }
    }
}

/* ---------------------------------------------------------------- files */

static fd_status push_file(lmp_deck* deck, const char* path)
{
    if (deck->depth == MAX_INCLUDE_DEPTH) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: include files nest more than %d deep", current_file(deck),
                       deck->command_line, MAX_INCLUDE_DEPTH);
    }
    FILE* file = fopen(path, "r");
    if (file == NULL) {
        if (deck->depth > 0) {
            return fd_fail(FD_ERR_IO, "%s:%d: include: cannot open '%s'", current_file(deck), deck->command_line,
                           path);
        }
        return fd_fail(FD_ERR_IO, "cannot open LAMMPS deck '%s'", path);
    }
    char* copy = strdup(path);
    if (copy == NULL) {
        fclose(file);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    deck->files[deck->depth++] = (open_file){file, copy, 0};
    return FD_OK;
}

static void pop_file(lmp_deck* deck)
{
    open_file* top = &deck->files[--deck->depth];
    fclose(top->file);
    free(top->path); /* commands keep their own copy (command_file) */
}

/* One logical line (continuations joined) into deck->joined; false at the
 * end of the deck. */
static fd_status read_line(lmp_deck* deck, bool* got)
{
    *got = false;
    deck->joined.length = 0;
    bool continued = false;
    while (deck->depth > 0) {
        open_file* top = &deck->files[deck->depth - 1];
        ssize_t length = getline(&deck->physical, &deck->physical_capacity, top->file);
        if (length < 0) {
            if (continued) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: the file ends after a continuation '&'", top->path,
                               top->line);
            }
            pop_file(deck);
            continue;
        }
        top->line++;
        if (!continued) {
            deck->command_line = top->line;
        }
        while (length > 0 && isspace((unsigned char)deck->physical[length - 1])) {
            length--;
        }
        continued = length > 0 && deck->physical[length - 1] == '&';
        if (continued) {
            length--;
        }
        if (!append(&deck->joined, deck->physical, (size_t)length) || !append(&deck->joined, " ", 1)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
        }
        if (!continued) {
            *got = true;
            return FD_OK;
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- commands the deck handles */

static fd_status command_variable(lmp_deck* deck, int count, char** words)
{
    const char* where = current_file(deck);
    if (count < 3) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: variable: NAME STYLE ARGS expected", where,
                       deck->command_line);
    }
    const char* name = words[1];
    const char* style = words[2];
    if (strcmp(style, "delete") == 0) {
        lmp_variable* variable = find_variable(deck, name, strlen(name));
        if (variable != NULL) {
            free(variable->name);
            free(variable->text);
            *variable = deck->variables[--deck->variable_count];
        }
        return FD_OK;
    }
    variable_style kind;
    if (strcmp(style, "index") == 0) {
        kind = VARIABLE_INDEX;
    } else if (strcmp(style, "string") == 0) {
        kind = VARIABLE_STRING;
    } else if (strcmp(style, "equal") == 0) {
        kind = VARIABLE_EQUAL;
    } else {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: variable style '%s' is not supported (index, string and "
                       "equal are)", where, deck->command_line, style);
    }
    if (count < 4 || (kind != VARIABLE_INDEX && count != 4)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: variable %s %s takes %s", where, deck->command_line, name,
                       style, kind == VARIABLE_INDEX ? "one value or more" : "one argument (quote it)");
    }
    lmp_variable* existing = find_variable(deck, name, strlen(name));
    if (existing != NULL && existing->style == VARIABLE_INDEX && kind == VARIABLE_INDEX) {
        return FD_OK; /* as LAMMPS: an index variable (from -var or earlier) is not redefined */
    }
    if (existing != NULL && existing->style != kind) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: variable '%s' is %s-style already; it cannot become %s",
                       where, deck->command_line, name, style_names[existing->style], style);
    }
    if (kind == VARIABLE_INDEX && count > 4) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: variable %s index with several values loops with `next`, "
                       "which the importer does not run; give one value", where, deck->command_line, name);
    }
    return define_variable(deck, name, kind, words[3]);
}

static fd_status command_include(lmp_deck* deck, int count, char** words)
{
    if (count != 2) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: include takes one file name", current_file(deck),
                       deck->command_line);
    }
    /* Relative to the deck's directory (LAMMPS reads from its working directory;
     * the importer runs from anywhere). */
    char path[4096];
    if (words[1][0] == '/') {
        snprintf(path, sizeof path, "%s", words[1]);
    } else {
        snprintf(path, sizeof path, "%s%s", deck->directory, words[1]);
    }
    return push_file(deck, path);
}

/* ---------------------------------------------------------------- public */

fd_status lmp_deck_open(const char* path, int var_count, const char* const* var_names,
                        const char* const* var_values, lmp_keyword_fn keyword, void* keyword_context,
                        lmp_deck** out)
{
    *out = NULL;
    lmp_deck* deck = calloc(1, sizeof *deck);
    if (deck == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    deck->keyword = keyword;
    deck->keyword_context = keyword_context;
    const char* slash = strrchr(path, '/');
    deck->directory = strndup(path, slash ? (size_t)(slash - path + 1) : 0);
    fd_status status = deck->directory ? FD_OK : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    for (int v = 0; status == FD_OK && v < var_count; ++v) {
        status = define_variable(deck, var_names[v], VARIABLE_INDEX, var_values[v]);
    }
    if (status == FD_OK) {
        status = push_file(deck, path);
    }
    if (status != FD_OK) {
        lmp_deck_close(deck);
        return status;
    }
    *out = deck;
    return FD_OK;
}

void lmp_deck_close(lmp_deck* deck)
{
    if (deck == NULL) {
        return;
    }
    while (deck->depth > 0) {
        pop_file(deck);
    }
    for (int v = 0; v < deck->variable_count; ++v) {
        free(deck->variables[v].name);
        free(deck->variables[v].text);
    }
    free(deck->variables);
    free(deck->directory);
    free(deck->physical);
    fd_text_free(&deck->joined);
    fd_text_free(&deck->substituted);
    free(deck->words);
    free(deck->command_file);
    free(deck);
}

const char* lmp_deck_directory(const lmp_deck* deck) { return deck->directory; }

fd_status lmp_deck_next(lmp_deck* deck, lmp_command* command, int* has_command)
{
    *has_command = 0;
    for (;;) {
        bool got;
        fd_status status = read_line(deck, &got);
        if (status != FD_OK || !got) {
            return status;
        }
        /* The command's file name lives until the next command. */
        const char* file = current_file(deck);
        if (deck->command_file == NULL || strcmp(deck->command_file, file) != 0) {
            char* copy = strdup(file);
            if (copy == NULL) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
            }
            free(deck->command_file);
            deck->command_file = copy;
        }
        /* `print` changes nothing in the scene and may name computes
         * (c_ID), which only a running LAMMPS can evaluate: its words are
         * kept as written. */
        const char* first = deck->joined.bytes + strspn(deck->joined.bytes, " \t");
        bool print = strncmp(first, "print", 5) == 0 && (first[5] == ' ' || first[5] == '\t' || first[5] == '\0');
        if (print) {
            deck->substituted.length = 0;
            status = append(&deck->substituted, first, strlen(first)) ? FD_OK
                                                                       : fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
        } else {
            status = substitute(deck, deck->joined.bytes, &deck->substituted);
        }
        int count = 0;
        if (status == FD_OK) {
            status = split_words(deck, deck->substituted.bytes, &count);
        }
        if (status != FD_OK) {
            return status;
        }
        if (count == 0) {
            continue;
        }
        if (strcmp(deck->words[0], "variable") == 0) {
            status = command_variable(deck, count, deck->words);
        } else if (strcmp(deck->words[0], "include") == 0) {
            status = command_include(deck, count, deck->words);
        } else {
            *command = (lmp_command){count, deck->words, deck->command_file, deck->command_line};
            *has_command = 1;
            return FD_OK;
        }
        if (status != FD_OK) {
            return status;
        }
    }
}

fd_status lmp_number(const lmp_command* command, int word, const char* what, double* value)
{
    if (word >= command->word_count) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: %s is missing", command->file, command->line,
                       command->words[0], what);
    }
    const char* text = command->words[word];
    char* end;
    *value = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(*value)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: %s '%s' is not a finite number", command->file,
                       command->line, command->words[0], what, text);
    }
    return FD_OK;
}

fd_status lmp_integer(const lmp_command* command, int word, const char* what, long* value)
{
    double number;
    fd_status status = lmp_number(command, word, what, &number);
    if (status != FD_OK) {
        return status;
    }
    if (number != floor(number) || fabs(number) > 9.0e15) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: %s '%s' is not an integer", command->file,
                       command->line, command->words[0], what, command->words[word]);
    }
    *value = (long)number;
    return FD_OK;
}
