/* fricdem import-lammps: the deck's commands, one handler each, gathered
 * into an lmp_import (import_internal.h); write_scene.c turns that into a
 * scene. A command is either translated, accepted with a note because it
 * does not change the physics, or refused with DECK:LINE and the reason:
 * never skipped in silence. Behaviour follows Debian's LAMMPS (29 Sep 2021),
 * checked against it where the manual is silent (e.g. `set diameter` keeps
 * the mass; `set density` sets it from the current diameter). */
#include "lammps/import_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/math.h"

#define FAIL(c, ...) lmp_fail(c, __VA_ARGS__)

static fd_status lmp_fail(const lmp_command* c, const char* format, ...) __attribute__((format(printf, 2, 3)));
static fd_status lmp_fail(const lmp_command* c, const char* format, ...)
{
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s: %s", c->file, c->line, c->words[0], message);
}

void lmp_note(const lmp_import* import, const lmp_command* c, const char* format, ...)
{
    if (!import->options->notes) {
        return;
    }
    FILE* notes = stderr;
    if (c != NULL) {
        fprintf(notes, "note: %s:%d: %s: ", c->file, c->line, c->words[0]);
    } else {
        fprintf(notes, "note: ");
    }
    va_list args;
    va_start(args, format);
    vfprintf(notes, format, args);
    va_end(args);
    fprintf(notes, "\n");
}

/* LAMMPS's sphere mass from a diameter and a density, in its own order of
 * operations (atom_vec_sphere.cpp, set.cpp), so masses agree to the bit. */
static double sphere_mass(double radius, double density)
{
    return radius > 0.0 ? 4.0 * FD_PI / 3.0 * radius * radius * radius * density : density;
}

/* ---------------------------------------------------------------- lookups */

static int find_group(const lmp_import* import, const char* name)
{
    for (int g = 0; g < import->group_count; ++g) {
        if (strcmp(import->groups[g], name) == 0) {
            return g;
        }
    }
    return -1;
}

static fd_status group_of(const lmp_import* import, const lmp_command* c, int word, int* group)
{
    if (word >= c->word_count) {
        return FAIL(c, "a group name is missing");
    }
    *group = find_group(import, c->words[word]);
    return *group >= 0 ? FD_OK : FAIL(c, "group '%s' does not exist", c->words[word]);
}

static const lmp_region* find_region(const lmp_import* import, const char* name)
{
    for (int r = 0; r < import->region_count; ++r) {
        if (strcmp(import->regions[r].name, name) == 0) {
            return &import->regions[r];
        }
    }
    return NULL;
}

static bool in_region(const lmp_region* region, const double* x)
{
    for (int a = 0; a < 3; ++a) {
        if (x[a] < region->lo[a] || x[a] > region->hi[a]) {
            return false;
        }
    }
    return true;
}

/* LAMMPS's "I", "*", "I*", "*J", "I*J" over 1..limit. */
static fd_status range_of(const lmp_command* c, int word, long limit, const char* what, long* lo, long* hi)
{
    if (word >= c->word_count) {
        return FAIL(c, "%s is missing", what);
    }
    const char* text = c->words[word];
    const char* star = strchr(text, '*');
    char* end;
    if (star == NULL) {
        *lo = *hi = strtol(text, &end, 10);
        if (end == text || *end != '\0') {
            return FAIL(c, "%s '%s' is not an integer or a range I*J", what, text);
        }
    } else {
        *lo = star == text ? 1 : strtol(text, &end, 10);
        *hi = star[1] == '\0' ? limit : strtol(star + 1, &end, 10);
        if ((star != text && end == text) || (star[1] != '\0' && *end != '\0')) {
            return FAIL(c, "%s '%s' is not a range I*J", what, text);
        }
    }
    if (*lo < 1 || *hi > limit || *lo > *hi) {
        return FAIL(c, "%s '%s' is outside 1..%ld", what, text, limit);
    }
    return FD_OK;
}

static fd_status need_box(const lmp_import* import, const lmp_command* c)
{
    return import->box_set ? FD_OK : FAIL(c, "comes before the box exists (create_box or read_data)");
}

static fd_status add_atom(lmp_import* import, const lmp_command* c, lmp_atom atom)
{
    if (import->atom_count == import->atom_capacity) {
        long capacity = import->atom_capacity ? 2 * import->atom_capacity : 1024;
        lmp_atom* grown = realloc(import->atoms, (size_t)capacity * sizeof *grown);
        if (grown == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "%s:%d: out of memory for the atoms", c->file, c->line);
        }
        import->atoms = grown;
        import->atom_capacity = capacity;
    }
    atom.groups = 1u; /* group all */
    import->atoms[import->atom_count++] = atom;
    return FD_OK;
}

static fd_status define_box(lmp_import* import, const lmp_command* c, const double* lo, const double* hi, long types)
{
    if (import->box_set) {
        return FAIL(c, "the box exists already");
    }
    if (types < 1 || types > LMP_MAX_TYPES) {
        return FAIL(c, "%ld atom types: 1 to %d are supported", types, LMP_MAX_TYPES);
    }
    for (int a = 0; a < 3; ++a) {
        if (!(hi[a] > lo[a]) || !isfinite(lo[a]) || !isfinite(hi[a])) {
            return FAIL(c, "the box is empty or unbounded along %c", "xyz"[a]);
        }
        import->box_lo[a] = lo[a];
        import->box_hi[a] = hi[a];
    }
    import->type_count = (int)types;
    import->coeffs = calloc((size_t)(types * types), sizeof *import->coeffs);
    import->coeff_set = calloc((size_t)(types * types), sizeof *import->coeff_set);
    if (import->coeffs == NULL || import->coeff_set == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    import->box_set = true;
    return FD_OK;
}

/* ---------------------------------------------------------------- set-up commands */

static fd_status command_units(lmp_import* import, const lmp_command* c)
{
    if (c->word_count != 2 || (strcmp(c->words[1], "si") != 0 && strcmp(c->words[1], "lj") != 0)) {
        return FAIL(c, "units si and lj are supported (fricdem is SI; lj's reduced numbers are kept as they are)");
    }
    import->units_set = true;
    import->units_lj = strcmp(c->words[1], "lj") == 0;
    if (import->units_lj) {
        lmp_note(import, c, "lj: the scene keeps the deck's reduced numbers; read them in LJ units");
    }
    return FD_OK;
}

static fd_status command_atom_style(lmp_import* import, const lmp_command* c)
{
    if (c->word_count != 2 || strcmp(c->words[1], "sphere") != 0) {
        return FAIL(c, "atom_style sphere is supported (fricdem bodies are rigid bodies)");
    }
    import->sphere_style = true;
    return FD_OK;
}

static fd_status command_dimension(lmp_import* import, const lmp_command* c)
{
    (void)import;
    return c->word_count == 2 && strcmp(c->words[1], "3") == 0 ? FD_OK : FAIL(c, "only dimension 3 is supported");
}

static fd_status command_boundary(lmp_import* import, const lmp_command* c)
{
    if (c->word_count != 4) {
        return FAIL(c, "three boundary styles expected");
    }
    for (int a = 0; a < 3; ++a) {
        const char* style = c->words[a + 1];
        bool periodic = strcmp(style, "p") == 0;
        if (!periodic && strspn(style, "fsm") != strlen(style)) {
            return FAIL(c, "boundary '%s': p, f, s, m and their pairs are supported", style);
        }
        import->periodic[a] = periodic;
    }
    return FD_OK;
}

static fd_status command_region(lmp_import* import, const lmp_command* c)
{
    if (c->word_count < 3 || strcmp(c->words[2], "block") != 0) {
        return c->word_count < 3 ? FAIL(c, "ID STYLE ARGS expected") : FAIL(c, "style '%s' is not supported (block is)", c->words[2]);
    }
    if (c->word_count < 9 || import->region_count == LMP_MAX_REGIONS || strlen(c->words[1]) >= LMP_NAME) {
        return FAIL(c, "block needs xlo xhi ylo yhi zlo zhi (at most %d regions, names under %d characters)",
                    LMP_MAX_REGIONS, LMP_NAME);
    }
    lmp_region region;
    snprintf(region.name, sizeof region.name, "%s", c->words[1]);
    for (int k = 0; k < 6; ++k) {
        const char* word = c->words[3 + k];
        double* bound = k % 2 == 0 ? &region.lo[k / 2] : &region.hi[k / 2];
        if (strcmp(word, "INF") == 0 || strcmp(word, "-INF") == 0) {
            *bound = k % 2 == 0 ? -INFINITY : INFINITY;
        } else if (strcmp(word, "EDGE") == 0) {
            fd_status status = need_box(import, c);
            if (status != FD_OK) {
                return status;
            }
            *bound = k % 2 == 0 ? import->box_lo[k / 2] : import->box_hi[k / 2];
        } else {
            fd_status status = lmp_number(c, 3 + k, "a block bound", bound);
            if (status != FD_OK) {
                return status;
            }
        }
    }
    for (int w = 9; w < c->word_count; w += 2) {
        bool units = strcmp(c->words[w], "units") == 0 && w + 1 < c->word_count &&
                     (strcmp(c->words[w + 1], "box") == 0 || strcmp(c->words[w + 1], "lattice") == 0);
        bool side_in = strcmp(c->words[w], "side") == 0 && w + 1 < c->word_count && strcmp(c->words[w + 1], "in") == 0;
        if (!units && !side_in) {
            return FAIL(c, "keyword '%s' is not supported (units box, side in are)", c->words[w]);
        }
    }
    if (find_region(import, region.name) != NULL) {
        return FAIL(c, "region '%s' exists already", region.name);
    }
    import->regions[import->region_count++] = region;
    return FD_OK;
}

static fd_status command_create_box(lmp_import* import, const lmp_command* c)
{
    long types;
    fd_status status = lmp_integer(c, 1, "the number of atom types", &types);
    if (status != FD_OK) {
        return status;
    }
    if (c->word_count != 3) {
        return FAIL(c, "N REGION expected (no extra keywords)");
    }
    const lmp_region* region = find_region(import, c->words[2]);
    if (region == NULL) {
        return FAIL(c, "region '%s' does not exist", c->words[2]);
    }
    return define_box(import, c, region->lo, region->hi, types);
}

static fd_status command_create_atoms(lmp_import* import, const lmp_command* c)
{
    fd_status status = need_box(import, c);
    long type;
    if (status == FD_OK) {
        status = lmp_integer(c, 1, "the atom type", &type);
    }
    if (status != FD_OK) {
        return status;
    }
    if (c->word_count < 3 || strcmp(c->words[2], "single") != 0) {
        return FAIL(c, "style '%s' is not supported (single is; list bodies in a data file for read_data)",
                    c->word_count > 2 ? c->words[2] : "");
    }
    if (type < 1 || type > import->type_count) {
        return FAIL(c, "atom type %ld is outside 1..%d", type, import->type_count);
    }
    lmp_atom atom = {.type = (int)type, .radius = 0.5, .mass = sphere_mass(0.5, 1.0)}; /* LAMMPS's defaults */
    for (int a = 0; a < 3 && status == FD_OK; ++a) {
        status = lmp_number(c, 3 + a, "a coordinate", &atom.position[a]);
    }
    for (int w = 6; status == FD_OK && w < c->word_count; w += 2) {
        if (strcmp(c->words[w], "units") != 0 || w + 1 >= c->word_count) {
            return FAIL(c, "keyword '%s' is not supported (units box is)", c->words[w]);
        }
    }
    for (long k = 0; k < import->atom_count; ++k) {
        atom.id = import->atoms[k].id > atom.id ? import->atoms[k].id : atom.id;
    }
    atom.id++;
    return status == FD_OK ? add_atom(import, c, atom) : status;
}

/* ---------------------------------------------------------------- read_data */

typedef struct data_file {
    FILE* file;
    char path[4096];
    int line;
    char* text;
    size_t capacity;
} data_file;

/* The next non-blank line, comment cut; NULL at the end. */
static char* data_line(data_file* data)
{
    while (getline(&data->text, &data->capacity, data->file) >= 0) {
        data->line++;
        char* hash = strchr(data->text, '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        char* start = data->text + strspn(data->text, " \t\r\n");
        if (*start != '\0') {
            return start;
        }
    }
    return NULL;
}

static int split(char* line, char** words, int capacity)
{
    int count = 0;
    for (char* word = strtok(line, " \t\r\n"); word != NULL && count < capacity; word = strtok(NULL, " \t\r\n")) {
        words[count++] = word;
    }
    return count;
}

static fd_status data_numbers(const data_file* data, char** words, int count, double* values)
{
    for (int k = 0; k < count; ++k) {
        char* end;
        values[k] = strtod(words[k], &end);
        if (end == words[k] || *end != '\0' || !isfinite(values[k])) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: '%s' is not a number", data->path, data->line, words[k]);
        }
    }
    return FD_OK;
}

static lmp_atom* atom_by_id(lmp_import* import, long id)
{
    for (long k = 0; k < import->atom_count; ++k) {
        if (import->atoms[k].id == id) {
            return &import->atoms[k];
        }
    }
    return NULL;
}

static fd_status read_atoms(lmp_import* import, const lmp_command* c, data_file* data, long count)
{
    for (long k = 0; k < count; ++k) {
        char* line = data_line(data);
        char* words[16];
        int n = line ? split(line, words, 16) : 0;
        if (n != 7 && n != 10) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: Atoms (sphere): 'id type diameter density x y z [ix iy iz]' "
                           "expected, %d atoms still to read", data->path, data->line, (int)(count - k));
        }
        double v[7];
        fd_status status = data_numbers(data, words, 7, v);
        if (status != FD_OK) {
            return status;
        }
        if (v[1] < 1 || v[1] > import->type_count || v[1] != floor(v[1]) || !(v[2] > 0.0) || !(v[3] > 0.0)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: an atom needs a type in 1..%d, a diameter > 0 (fricdem "
                           "bodies are spheres) and a density > 0", data->path, data->line, import->type_count);
        }
        double radius = 0.5 * v[2];
        lmp_atom atom = {.id = (long)v[0], .type = (int)v[1], .radius = radius, .mass = sphere_mass(radius, v[3]),
                         .position = {v[4], v[5], v[6]}};
        status = add_atom(import, c, atom);
        if (status != FD_OK) {
            return status;
        }
    }
    return FD_OK;
}

/* first: the index of the file's first atom (Velocities usually list the
 * atoms in the order of Atoms: found at once, else searched). */
static fd_status read_velocities(lmp_import* import, data_file* data, long first, long count)
{
    for (long k = 0; k < count; ++k) {
        char* line = data_line(data);
        char* words[16];
        double v[7];
        if (line == NULL || split(line, words, 16) != 7) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: Velocities (sphere): 'id vx vy vz wx wy wz' expected",
                           data->path, data->line);
        }
        fd_status status = data_numbers(data, words, 7, v);
        if (status != FD_OK) {
            return status;
        }
        long guess = first + k;
        lmp_atom* atom = guess < import->atom_count && import->atoms[guess].id == (long)v[0]
                             ? &import->atoms[guess]
                             : atom_by_id(import, (long)v[0]);
        if (atom == NULL) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: no atom with id %.0f", data->path, data->line, v[0]);
        }
        memcpy(atom->velocity, v + 1, sizeof atom->velocity);
        memcpy(atom->omega, v + 4, sizeof atom->omega);
    }
    return FD_OK;
}

static fd_status read_data_body(lmp_import* import, const lmp_command* c, data_file* data)
{
    /* The first line is a title, whatever it says (even a '#'). */
    if (getline(&data->text, &data->capacity, data->file) >= 0) {
        data->line++;
    }
    long first = import->atom_count;
    long atoms = -1, types = -1;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    char* line;
    while ((line = data_line(data)) != NULL) {
        char* words[8];
        int n = split(line, words, 8);
        if (n == 2 && strcmp(words[1], "atoms") == 0) {
            atoms = strtol(words[0], NULL, 10);
        } else if (n == 3 && strcmp(words[1], "atom") == 0 && strcmp(words[2], "types") == 0) {
            types = strtol(words[0], NULL, 10);
        } else if (n == 4 && words[2][0] >= 'x' && words[2][0] <= 'z' && strcmp(words[2] + 1, "lo") == 0) {
            int a = words[2][0] - 'x';
            double bounds[2];
            fd_status status = data_numbers(data, words, 2, bounds);
            if (status != FD_OK) {
                return status;
            }
            lo[a] = bounds[0];
            hi[a] = bounds[1];
        } else if (n >= 2 && isdigit((unsigned char)words[0][0]) && strtol(words[0], NULL, 10) == 0) {
            continue; /* "0 bonds" and the like */
        } else {
            break; /* the first section */
        }
    }
    if (atoms < 0 || types < 1) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: the header needs 'N atoms' and 'N atom types' before the "
                       "sections (and no triclinic tilt, bonds or other counts)", data->path, data->line);
    }
    fd_status status = define_box(import, c, lo, hi, types);
    bool have_atoms = false;
    while (status == FD_OK && line != NULL) {
        char* words[4];
        int n = split(line, words, 4);
        if (n >= 1 && strcmp(words[0], "Atoms") == 0) {
            status = read_atoms(import, c, data, atoms);
            have_atoms = true;
        } else if (n >= 1 && strcmp(words[0], "Velocities") == 0) {
            status = have_atoms ? read_velocities(import, data, first, atoms)
                                : fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: Velocities before Atoms", data->path,
                                          data->line);
        } else {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: section '%s' is not supported (Atoms and Velocities of "
                           "atom_style sphere are)", data->path, data->line, n ? words[0] : "");
        }
        line = data_line(data);
    }
    if (status == FD_OK && !have_atoms && atoms > 0) {
        status = fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: no Atoms section for its %ld atoms", data->path, atoms);
    }
    return status;
}

static fd_status command_read_data(lmp_import* import, const lmp_command* c)
{
    if (!import->sphere_style) {
        return FAIL(c, "needs atom_style sphere first");
    }
    if (c->word_count != 2) {
        return FAIL(c, "one file and no keywords expected");
    }
    data_file data = {0};
    const char* name = c->words[1];
    snprintf(data.path, sizeof data.path, "%s%s", name[0] == '/' ? "" : lmp_deck_directory(import->deck), name);
    data.file = fopen(data.path, "r");
    if (data.file == NULL) {
        return FAIL(c, "cannot open '%s'", data.path);
    }
    fd_status status = read_data_body(import, c, &data);
    fclose(data.file);
    free(data.text);
    return status;
}

/* ---------------------------------------------------------------- atoms: set, velocity, group */

/* The atoms a `set` or `velocity` addresses, as a test on each atom. */
typedef struct atom_filter {
    int style; /* 0 atom ids, 1 types, 2 group, 3 region */
    long lo, hi;
    int group;
    const lmp_region* region;
} atom_filter;

static bool passes(const atom_filter* filter, const lmp_atom* atom)
{
    switch (filter->style) {
    case 0: return atom->id >= filter->lo && atom->id <= filter->hi;
    case 1: return atom->type >= filter->lo && atom->type <= filter->hi;
    case 2: return (atom->groups >> filter->group) & 1u;
    default: return in_region(filter->region, atom->position);
    }
}

static fd_status command_set(lmp_import* import, const lmp_command* c)
{
    if (c->word_count < 5) {
        return FAIL(c, "STYLE ID KEYWORD VALUE expected");
    }
    atom_filter filter = {0};
    fd_status status = FD_OK;
    const char* style = c->words[1];
    long max_id = 0;
    for (long k = 0; k < import->atom_count; ++k) {
        max_id = import->atoms[k].id > max_id ? import->atoms[k].id : max_id;
    }
    if (strcmp(style, "atom") == 0) {
        status = range_of(c, 2, max_id, "the atom id", &filter.lo, &filter.hi);
    } else if (strcmp(style, "type") == 0) {
        filter.style = 1;
        status = range_of(c, 2, import->type_count, "the type", &filter.lo, &filter.hi);
    } else if (strcmp(style, "group") == 0) {
        filter.style = 2;
        status = group_of(import, c, 2, &filter.group);
    } else if (strcmp(style, "region") == 0) {
        filter.style = 3;
        filter.region = find_region(import, c->words[2]);
        status = filter.region ? FD_OK : FAIL(c, "region '%s' does not exist", c->words[2]);
    } else {
        return FAIL(c, "style '%s' is not supported (atom, type, group, region are)", style);
    }
    for (int w = 3; status == FD_OK && w < c->word_count; w += 2) {
        const char* keyword = c->words[w];
        double value;
        int values = strcmp(keyword, "omega") == 0 ? 3 : 1;
        double omega[3];
        for (int k = 0; k < values && status == FD_OK; ++k) {
            status = lmp_number(c, w + 1 + k, keyword, values == 3 ? &omega[k] : &value);
        }
        if (status != FD_OK) {
            return status;
        }
        bool diameter = strcmp(keyword, "diameter") == 0, density = strcmp(keyword, "density") == 0;
        bool mass = strcmp(keyword, "mass") == 0, type = strcmp(keyword, "type") == 0;
        if (!(diameter || density || mass || type || values == 3)) {
            return FAIL(c, "keyword '%s' is not supported (diameter, density, mass, type, omega are)", keyword);
        }
        if ((diameter || density || mass) && !(value > 0.0)) {
            return FAIL(c, "%s %g: must be > 0 (fricdem bodies are spheres with a mass)", keyword, value);
        }
        if (type && (value < 1 || value > import->type_count || value != floor(value))) {
            return FAIL(c, "type %g is outside 1..%d", value, import->type_count);
        }
        for (long k = 0; k < import->atom_count; ++k) {
            lmp_atom* atom = &import->atoms[k];
            if (!passes(&filter, atom)) {
                continue;
            }
            if (diameter) {
                atom->radius = 0.5 * value; /* LAMMPS keeps the mass (checked with lmp 2021) */
            } else if (density) {
                atom->mass = sphere_mass(atom->radius, value);
            } else if (mass) {
                atom->mass = value;
            } else if (type) {
                atom->type = (int)value;
            } else {
                memcpy(atom->omega, omega, sizeof omega);
            }
        }
        w += values - 1;
    }
    return status;
}

static fd_status command_velocity(lmp_import* import, const lmp_command* c)
{
    int group;
    fd_status status = group_of(import, c, 1, &group);
    if (status != FD_OK) {
        return status;
    }
    if (c->word_count < 6 || strcmp(c->words[2], "set") != 0) {
        return FAIL(c, "style '%s' is not supported (set is; create draws random numbers fricdem cannot repeat)",
                    c->word_count > 2 ? c->words[2] : "");
    }
    bool known[3] = {false, false, false}, sum = false;
    double value[3] = {0, 0, 0};
    for (int a = 0; a < 3 && status == FD_OK; ++a) {
        known[a] = strcmp(c->words[3 + a], "NULL") != 0;
        if (known[a]) {
            status = lmp_number(c, 3 + a, "a velocity component", &value[a]);
        }
    }
    for (int w = 6; status == FD_OK && w < c->word_count; w += 2) {
        const char* keyword = c->words[w];
        const char* argument = w + 1 < c->word_count ? c->words[w + 1] : "";
        if (strcmp(keyword, "sum") == 0 && (strcmp(argument, "yes") == 0 || strcmp(argument, "no") == 0)) {
            sum = argument[0] == 'y';
        } else if (strcmp(keyword, "units") != 0 || (strcmp(argument, "box") != 0 && strcmp(argument, "lattice") != 0)) {
            return FAIL(c, "keyword '%s %s' is not supported (sum, units are)", keyword, argument);
        }
    }
    for (long k = 0; status == FD_OK && k < import->atom_count; ++k) {
        lmp_atom* atom = &import->atoms[k];
        for (int a = 0; a < 3; ++a) {
            if (((atom->groups >> group) & 1u) && known[a]) {
                atom->velocity[a] = sum ? atom->velocity[a] + value[a] : value[a];
            }
        }
    }
    return status;
}

static fd_status command_group(lmp_import* import, const lmp_command* c)
{
    if (c->word_count < 3) {
        return FAIL(c, "ID STYLE ARGS expected");
    }
    int group = find_group(import, c->words[1]);
    if (group < 0) {
        if (import->group_count == LMP_MAX_GROUPS || strlen(c->words[1]) >= LMP_NAME) {
            return FAIL(c, "at most %d groups, names under %d characters", LMP_MAX_GROUPS, LMP_NAME);
        }
        group = import->group_count++;
        snprintf(import->groups[group], LMP_NAME, "%s", c->words[1]);
    }
    if (group == 0) {
        return FAIL(c, "group all cannot be changed");
    }
    const char* style = c->words[2];
    uint32_t bit = 1u << group;
    if (strcmp(style, "type") == 0 || strcmp(style, "id") == 0) {
        bool by_type = style[0] == 't';
        long max_id = 0;
        for (long k = 0; k < import->atom_count; ++k) {
            max_id = import->atoms[k].id > max_id ? import->atoms[k].id : max_id;
        }
        for (int w = 3; w < c->word_count; ++w) {
            long lo, hi;
            fd_status status = by_type ? range_of(c, w, import->type_count, "the type", &lo, &hi)
                                       : range_of(c, w, max_id, "the atom id", &lo, &hi);
            if (status != FD_OK) {
                return status;
            }
            for (long k = 0; k < import->atom_count; ++k) {
                long key = by_type ? import->atoms[k].type : import->atoms[k].id;
                import->atoms[k].groups |= key >= lo && key <= hi ? bit : 0u;
            }
        }
        return FD_OK;
    }
    if (strcmp(style, "region") == 0 && c->word_count == 4) {
        const lmp_region* region = find_region(import, c->words[3]);
        if (region == NULL) {
            return FAIL(c, "region '%s' does not exist", c->words[3]);
        }
        for (long k = 0; k < import->atom_count; ++k) {
            import->atoms[k].groups |= in_region(region, import->atoms[k].position) ? bit : 0u;
        }
        return FD_OK;
    }
    if (strcmp(style, "subtract") == 0 || strcmp(style, "union") == 0) {
        int first;
        fd_status status = group_of(import, c, 3, &first);
        uint32_t others = 0;
        for (int w = 4; status == FD_OK && w < c->word_count; ++w) {
            int g;
            status = group_of(import, c, w, &g);
            others |= status == FD_OK ? 1u << g : 0u;
        }
        if (status != FD_OK) {
            return status;
        }
        for (long k = 0; k < import->atom_count; ++k) {
            lmp_atom* atom = &import->atoms[k];
            bool member = style[0] == 's' ? ((atom->groups >> first) & 1u) && !(atom->groups & others)
                                          : ((atom->groups >> first) & 1u) || (atom->groups & others);
            atom->groups = member ? atom->groups | bit : atom->groups & ~bit;
        }
        return FD_OK;
    }
    return FAIL(c, "style '%s' is not supported (type, id, region, subtract, union are)", style);
}

/* ---------------------------------------------------------------- pair styles */

static fd_status command_pair_style(lmp_import* import, const lmp_command* c)
{
    if (c->word_count < 2) {
        return FAIL(c, "a style is expected");
    }
    const char* style = c->words[1];
    if (strcmp(style, "granular") == 0) {
        if (c->word_count != 2) {
            return FAIL(c, "granular takes no global cutoff here (a contact is an overlap)");
        }
        import->pair_style = LMP_PAIR_GRANULAR;
        return FD_OK;
    }
    if (strcmp(style, "gran/hooke") == 0 || strcmp(style, "gran/hooke/history") == 0 ||
        strcmp(style, "gran/hertz/history") == 0) {
        int next = 2;
        fd_status status = lmp_granular_parse_legacy(c, style + 5, &next, &import->legacy_model);
        if (status == FD_OK && next != c->word_count) {
            status = FAIL(c, "'%s' after the coefficients is not supported", c->words[next]);
        }
        snprintf(import->legacy_style, sizeof import->legacy_style, "%s", style + 5);
        import->pair_style = LMP_PAIR_LEGACY;
        return status;
    }
    return FAIL(c, "style '%s' is not supported (granular, gran/hooke, gran/hooke/history, gran/hertz/history are)",
                style);
}

static fd_status command_pair_coeff(lmp_import* import, const lmp_command* c)
{
    fd_status status = need_box(import, c);
    if (status != FD_OK) {
        return status;
    }
    long ilo, ihi, jlo, jhi;
    status = range_of(c, 1, import->type_count, "type I", &ilo, &ihi);
    if (status == FD_OK) {
        status = range_of(c, 2, import->type_count, "type J", &jlo, &jhi);
    }
    if (status != FD_OK) {
        return status;
    }
    lmp_granular model;
    if (import->pair_style == LMP_PAIR_LEGACY) {
        if (c->word_count != 3) {
            return FAIL(c, "gran/%s takes its coefficients in pair_style; pair_coeff * * has no more words",
                        import->legacy_style);
        }
        model = import->legacy_model;
    } else if (import->pair_style == LMP_PAIR_GRANULAR) {
        int next = 3;
        status = lmp_granular_parse(c, &next, false, &model);
        if (status != FD_OK) {
            return status;
        }
    } else {
        return FAIL(c, "comes before pair_style");
    }
    int n = import->type_count;
    for (long i = ilo; i <= ihi; ++i) {
        for (long j = jlo; j <= jhi; ++j) {
            long lo = i < j ? i : j, hi = i < j ? j : i;
            import->coeffs[(lo - 1) * n + (hi - 1)] = model;
            import->coeff_set[(lo - 1) * n + (hi - 1)] = true;
        }
    }
    return FD_OK;
}

fd_status lmp_pair_law(const lmp_import* import, int i, int j, lmp_granular* law)
{
    int n = import->type_count;
    int lo = i < j ? i : j, hi = i < j ? j : i;
    if (import->coeff_set[(lo - 1) * n + (hi - 1)]) {
        *law = import->coeffs[(lo - 1) * n + (hi - 1)];
        return FD_OK;
    }
    if (!import->coeff_set[(lo - 1) * n + (lo - 1)] || !import->coeff_set[(hi - 1) * n + (hi - 1)]) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: no pair_coeff for atom types %d %d, nor for %d %d and %d %d to "
                       "mix from", import->options->deck, lo, hi, lo, lo, hi, hi);
    }
    return lmp_granular_mix(&import->coeffs[(lo - 1) * n + (lo - 1)], &import->coeffs[(hi - 1) * n + (hi - 1)], lo,
                            hi, law);
}

/* ---------------------------------------------------------------- fixes */

static fd_status fix_gravity(lmp_import* import, const lmp_command* c)
{
    double magnitude, direction[3];
    fd_status status = lmp_number(c, 4, "the magnitude", &magnitude);
    const char* style = c->word_count > 5 ? c->words[5] : "";
    if (status == FD_OK && strcmp(style, "vector") == 0 && c->word_count == 9) {
        for (int a = 0; a < 3 && status == FD_OK; ++a) {
            status = lmp_number(c, 6 + a, "a direction component", &direction[a]);
        }
        double length = sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
        if (status == FD_OK && !(length > 0.0)) {
            return FAIL(c, "gravity vector 0 0 0 has no direction");
        }
        for (int a = 0; a < 3; ++a) {
            direction[a] /= length;
        }
    } else if (status == FD_OK && strcmp(style, "chute") == 0 && c->word_count == 7) {
        double angle;
        status = lmp_number(c, 6, "the chute angle", &angle);
        double theta = (180.0 - angle) * FD_PI / 180.0; /* fix_gravity.cpp: phi = 0, theta = 180 - angle */
        direction[0] = sin(theta);
        direction[1] = 0.0;
        direction[2] = cos(theta);
    } else if (status == FD_OK && strcmp(style, "spherical") == 0 && c->word_count == 8) {
        double phi, theta;
        status = lmp_number(c, 6, "phi", &phi);
        if (status == FD_OK) {
            status = lmp_number(c, 7, "theta", &theta);
        }
        phi *= FD_PI / 180.0;
        theta *= FD_PI / 180.0;
        direction[0] = sin(theta) * cos(phi);
        direction[1] = sin(theta) * sin(phi);
        direction[2] = cos(theta);
    } else if (status == FD_OK) {
        return FAIL(c, "gravity: MAGNITUDE vector X Y Z, chute ANGLE or spherical PHI THETA with numbers are "
                       "supported");
    }
    for (int a = 0; a < 3 && status == FD_OK; ++a) {
        import->gravity[a] += magnitude * direction[a];
    }
    return status;
}

static fd_status fix_wall(lmp_import* import, const lmp_command* c)
{
    if (import->wall_count == LMP_MAX_WALLS || strlen(c->words[1]) >= LMP_NAME) {
        return FAIL(c, "at most %d wall fixes, IDs under %d characters", LMP_MAX_WALLS, LMP_NAME);
    }
    lmp_wall* wall = &import->walls[import->wall_count];
    *wall = (lmp_wall){0};
    snprintf(wall->id, sizeof wall->id, "%s", c->words[1]);
    int next = 5;
    fd_status status;
    const char* style = c->word_count > 4 ? c->words[4] : "";
    if (strcmp(style, "granular") == 0) {
        status = lmp_granular_parse(c, &next, true, &wall->model);
    } else if (strcmp(style, "hooke") == 0 || strcmp(style, "hooke/history") == 0 ||
               strcmp(style, "hertz/history") == 0) {
        status = lmp_granular_parse_legacy(c, style, &next, &wall->model);
    } else {
        return FAIL(c, "wall/gran style '%s' is not supported (granular, hooke, hooke/history, hertz/history are)",
                    style);
    }
    if (status != FD_OK) {
        return status;
    }
    const char* wall_style = next < c->word_count ? c->words[next] : "";
    static const char* const planes[] = {"xplane", "yplane", "zplane"};
    int plane = -1;
    for (int a = 0; a < 3; ++a) {
        plane = strcmp(wall_style, planes[a]) == 0 ? a : plane;
    }
    if (plane >= 0) {
        wall->style = (lmp_wall_style)plane;
        wall->has_lo = next + 1 < c->word_count && strcmp(c->words[next + 1], "NULL") != 0;
        wall->has_hi = next + 2 < c->word_count && strcmp(c->words[next + 2], "NULL") != 0;
        if (wall->has_lo) {
            status = lmp_number(c, next + 1, "the lower wall", &wall->lo);
        }
        if (status == FD_OK && wall->has_hi) {
            status = lmp_number(c, next + 2, "the upper wall", &wall->hi);
        }
        if (status == FD_OK && import->periodic[plane]) {
            status = FAIL(c, "a %s wall along a periodic axis", wall_style);
        }
        next += 3;
    } else if (strcmp(wall_style, "zcylinder") == 0) {
        wall->style = LMP_WALL_ZCYLINDER;
        status = lmp_number(c, next + 1, "the cylinder radius", &wall->lo);
        next += 2;
    } else {
        return FAIL(c, "wall style '%s' is not supported (xplane, yplane, zplane, zcylinder are)", wall_style);
    }
    if (status == FD_OK && next < c->word_count) {
        status = FAIL(c, "keyword '%s' is not supported (fricdem's moving walls: bodies[].motion in the scene)",
                      c->words[next]);
    }
    if (status == FD_OK) {
        import->wall_count++;
    }
    return status;
}

static fd_status command_fix(lmp_import* import, const lmp_command* c)
{
    if (c->word_count < 4) {
        return FAIL(c, "ID GROUP STYLE expected");
    }
    int group;
    fd_status status = group_of(import, c, 2, &group);
    if (status != FD_OK) {
        return status;
    }
    const char* style = c->words[3];
    if (strcmp(style, "nve/sphere") == 0) {
        if (c->word_count != 4) {
            return FAIL(c, "nve/sphere keywords are not supported");
        }
        import->integrated_groups |= 1u << group;
        return FD_OK;
    }
    if (strcmp(style, "nve") == 0) {
        if (c->word_count != 4) {
            return FAIL(c, "nve keywords are not supported");
        }
        import->translated_groups |= 1u << group; /* the scene locks these bodies' rotation */
        return FD_OK;
    }
    if (strcmp(style, "freeze") == 0) {
        import->frozen_groups |= 1u << group;
        return FD_OK;
    }
    if (group != 0) {
        return FAIL(c, "%s on group '%s': fricdem applies it to every body (use group all)", style, c->words[2]);
    }
    if (strcmp(style, "gravity") == 0) {
        return fix_gravity(import, c);
    }
    if (strcmp(style, "wall/gran") == 0) {
        return fix_wall(import, c);
    }
    return FAIL(c, "style '%s' is not supported (nve/sphere, nve, freeze, gravity, wall/gran are)", style);
}

/* ---------------------------------------------------------------- neighbours, run, outputs */

static fd_status command_neigh_modify(lmp_import* import, const lmp_command* c)
{
    for (int w = 1; w < c->word_count; ++w) {
        const char* keyword = c->words[w];
        if (strcmp(keyword, "exclude") != 0) {
            static const char* const with_value[] = {"every", "delay", "check", "once", "page", "one", "binsize",
                                                     "cluster", "include"};
            bool known = false;
            for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; ++k) {
                known = known || strcmp(keyword, with_value[k]) == 0;
            }
            if (!known || w + 1 >= c->word_count) {
                return FAIL(c, "keyword '%s' is not supported", keyword);
            }
            lmp_note(import, c, "%s %s: fricdem rebuilds its list when a body has moved half the skin", keyword,
                     c->words[w + 1]);
            w++;
            continue;
        }
        const char* kind = w + 1 < c->word_count ? c->words[w + 1] : "";
        if (strcmp(kind, "none") == 0) {
            import->exclude_count = 0;
            w += 1;
            continue;
        }
        if (w + 3 >= c->word_count || (strcmp(kind, "type") != 0 && strcmp(kind, "group") != 0) ||
            import->exclude_count == LMP_MAX_EXCLUDES) {
            return FAIL(c, "exclude '%s': exclude type I J and exclude group G1 G2 are supported", kind);
        }
        lmp_exclude exclude = {.by_type = kind[0] == 't'};
        fd_status status;
        if (exclude.by_type) {
            long a, b;
            status = lmp_integer(c, w + 2, "type I", &a);
            if (status == FD_OK) {
                status = lmp_integer(c, w + 3, "type J", &b);
            }
            exclude.a = (int)a;
            exclude.b = (int)b;
        } else {
            status = group_of(import, c, w + 2, &exclude.a);
            if (status == FD_OK) {
                status = group_of(import, c, w + 3, &exclude.b);
            }
        }
        if (status != FD_OK) {
            return status;
        }
        import->excludes[import->exclude_count++] = exclude;
        w += 3;
    }
    return FD_OK;
}

static fd_status command_neighbor(lmp_import* import, const lmp_command* c)
{
    fd_status status = lmp_number(c, 1, "the skin", &import->skin);
    if (status == FD_OK && import->skin < 0.0) {
        status = FAIL(c, "a negative skin");
    }
    return status;
}

static fd_status command_timestep(lmp_import* import, const lmp_command* c)
{
    fd_status status = lmp_number(c, 1, "the step", &import->timestep);
    if (status == FD_OK && !(import->timestep > 0.0)) {
        status = FAIL(c, "the step must be > 0");
    }
    import->timestep_set = true;
    return status;
}

static fd_status command_run(lmp_import* import, const lmp_command* c)
{
    long steps;
    fd_status status = lmp_integer(c, 1, "the number of steps", &steps);
    if (status == FD_OK && steps < 0) {
        status = FAIL(c, "a negative number of steps");
    }
    for (int w = 2; status == FD_OK && w < c->word_count; w += 2) {
        bool pre_post = (strcmp(c->words[w], "pre") == 0 || strcmp(c->words[w], "post") == 0) && w + 1 < c->word_count;
        if (!pre_post) {
            status = FAIL(c, "keyword '%s' is not supported (pre, post are)", c->words[w]);
        }
    }
    import->steps += status == FD_OK ? steps : 0;
    import->ran = true;
    return status;
}

static fd_status command_thermo(lmp_import* import, const lmp_command* c)
{
    return lmp_integer(c, 1, "the interval", &import->thermo_every);
}

static fd_status command_dump(lmp_import* import, const lmp_command* c)
{
    long every;
    fd_status status = lmp_integer(c, 4, "the interval", &every);
    if (status != FD_OK) {
        return status;
    }
    if (every < 1) {
        return FAIL(c, "the interval must be >= 1");
    }
    if (import->dump_every > 0 && every != import->dump_every) {
        lmp_note(import, c, "a second dump every %ld steps: bodies.csv keeps one interval (every %ld)", every,
                 import->dump_every < every ? import->dump_every : every);
    }
    import->dump_every = import->dump_every > 0 && import->dump_every < every ? import->dump_every : every;
    lmp_note(import, c, "%s: written as bodies.csv in the output directory (every dynamic body, every column)",
             c->words[1]);
    return FD_OK;
}

/* ---------------------------------------------------------------- dispatch */

typedef fd_status (*command_fn)(lmp_import*, const lmp_command*);

static const struct {
    const char* name;
    command_fn run;
    bool after_run; /* allowed after a run (changes nothing the scene holds, or adds steps) */
} commands[] = {
    {"units", command_units, false},         {"atom_style", command_atom_style, false},
    {"dimension", command_dimension, false}, {"boundary", command_boundary, false},
    {"region", command_region, false},       {"create_box", command_create_box, false},
    {"create_atoms", command_create_atoms, false}, {"read_data", command_read_data, false},
    {"set", command_set, false},             {"velocity", command_velocity, false},
    {"group", command_group, false},         {"pair_style", command_pair_style, false},
    {"pair_coeff", command_pair_coeff, false}, {"fix", command_fix, false},
    {"neigh_modify", command_neigh_modify, false}, {"neighbor", command_neighbor, false},
    {"timestep", command_timestep, false},   {"run", command_run, true},
    {"thermo", command_thermo, true},        {"dump", command_dump, true},
};

/* Accepted with a note: they change no result. */
static const char* const noted[] = {"atom_modify", "newton", "comm_modify", "compute", "thermo_style",
                                    "thermo_modify", "print", "dump_modify", "processors", "echo", "log",
                                    "undump", "reset_timestep", "write_data", "write_restart", "write_dump"};

static fd_status run_command(lmp_import* import, const lmp_command* c)
{
    for (size_t k = 0; k < sizeof noted / sizeof noted[0]; ++k) {
        if (strcmp(c->words[0], noted[k]) == 0) {
            lmp_note(import, c, "accepted; it does not change the scene");
            return FD_OK;
        }
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; ++k) {
        if (strcmp(c->words[0], commands[k].name) != 0) {
            continue;
        }
        if (import->ran && !commands[k].after_run) {
            return FAIL(c, "after a run is not supported: the scene is one run from one state (split the deck, or "
                           "use the scene's stages)");
        }
        return commands[k].run(import, c);
    }
    return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s:%d: %s is not supported", c->file, c->line, c->words[0]);
}

/* Thermo keywords of `$(...)` and equal-style variables: the box. */
static double box_keyword(void* context, const char* name, bool* found)
{
    const lmp_import* import = context;
    *found = import->box_set;
    if (!import->box_set) {
        return NAN;
    }
    for (int a = 0; a < 3; ++a) {
        char lo[4] = {(char)('x' + a), 'l', 'o', 0}, hi[4] = {(char)('x' + a), 'h', 'i', 0};
        char length[3] = {'l', (char)('x' + a), 0};
        if (strcmp(name, lo) == 0) {
            return import->box_lo[a];
        }
        if (strcmp(name, hi) == 0) {
            return import->box_hi[a];
        }
        if (strcmp(name, length) == 0) {
            return import->box_hi[a] - import->box_lo[a];
        }
    }
    if (strcmp(name, "vol") == 0) {
        return (import->box_hi[0] - import->box_lo[0]) * (import->box_hi[1] - import->box_lo[1]) *
               (import->box_hi[2] - import->box_lo[2]);
    }
    *found = false;
    return NAN;
}

fd_status fd_lammps_import(const fd_lammps_import_def* options)
{
    lmp_import import = {.options = options, .group_count = 1, .groups = {"all"}};
    fd_status status = lmp_deck_open(options->deck, options->var_count, options->var_names, options->var_values,
                                     box_keyword, &import, &import.deck);
    int has_command = 1;
    while (status == FD_OK && has_command) {
        lmp_command command;
        status = lmp_deck_next(import.deck, &command, &has_command);
        if (status == FD_OK && has_command) {
            status = run_command(&import, &command);
        }
    }
    if (status == FD_OK) {
        status = lmp_write_scene(&import);
    }
    lmp_deck_close(import.deck);
    free(import.atoms);
    free(import.coeffs);
    free(import.coeff_set);
    return status;
}
