/* fricdem import-lammps: the commands that make and change atoms
 * (create_atoms, read_data, set, velocity, group), into the lmp_import of
 * lmp_import.h. LAMMPS 2021's behaviour where the manual is silent,
 * checked with Debian's lmp: `set diameter` keeps the mass, `set density`
 * sets it from the current diameter. Must not write the scene
 * (write_scene.c) or read commands (import.c dispatches them). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/math.h"
#include "lammps/lmp_import.h"

/* LAMMPS's sphere mass from a diameter and a density, in its own order of
 * operations (atom_vec_sphere.cpp, set.cpp), so masses agree to the bit. */
static double sphere_mass(double radius, double density)
{
    return radius > 0.0 ? 4.0 * FD_PI / 3.0 * radius * radius * radius * density : density;
}

fd_status lmp_command_create_atoms(lmp_import* import, const lmp_command* c)
{
    fd_status status = lmp_need_box(import, c);
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
    atom.id = import->max_id + 1; /* LAMMPS numbers a created atom after the largest id */
    return status == FD_OK ? lmp_add_atom(import, c, atom) : status;
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
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "%s:%d: Atoms (sphere): 'id type diameter density x y z [ix iy iz]' "
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
        status = lmp_add_atom(import, c, atom);
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
    fd_status status = lmp_define_box(import, c, lo, hi, types);
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

fd_status lmp_command_read_data(lmp_import* import, const lmp_command* c)
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
    default: return lmp_in_region(filter->region, atom->position);
    }
}

fd_status lmp_command_set(lmp_import* import, const lmp_command* c)
{
    if (c->word_count < 5) {
        return FAIL(c, "STYLE ID KEYWORD VALUE expected");
    }
    atom_filter filter = {0};
    fd_status status = FD_OK;
    const char* style = c->words[1];
    if (strcmp(style, "atom") == 0) {
        status = lmp_range_of(c, 2, import->max_id, "the atom id", &filter.lo, &filter.hi);
    } else if (strcmp(style, "type") == 0) {
        filter.style = 1;
        status = lmp_range_of(c, 2, import->type_count, "the type", &filter.lo, &filter.hi);
    } else if (strcmp(style, "group") == 0) {
        filter.style = 2;
        status = lmp_group_of(import, c, 2, &filter.group);
    } else if (strcmp(style, "region") == 0) {
        filter.style = 3;
        filter.region = lmp_find_region(import, c->words[2]);
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

fd_status lmp_command_velocity(lmp_import* import, const lmp_command* c)
{
    int group;
    fd_status status = lmp_group_of(import, c, 1, &group);
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
        } else if (strcmp(keyword, "units") != 0 ||
                   (strcmp(argument, "box") != 0 && strcmp(argument, "lattice") != 0)) {
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

fd_status lmp_command_group(lmp_import* import, const lmp_command* c)
{
    if (c->word_count < 3) {
        return FAIL(c, "ID STYLE ARGS expected");
    }
    int group = lmp_find_group(import, c->words[1]);
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
        for (int w = 3; w < c->word_count; ++w) {
            long lo, hi;
            fd_status status = by_type ? lmp_range_of(c, w, import->type_count, "the type", &lo, &hi)
                                       : lmp_range_of(c, w, import->max_id, "the atom id", &lo, &hi);
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
        const lmp_region* region = lmp_find_region(import, c->words[3]);
        if (region == NULL) {
            return FAIL(c, "region '%s' does not exist", c->words[3]);
        }
        for (long k = 0; k < import->atom_count; ++k) {
            import->atoms[k].groups |= lmp_in_region(region, import->atoms[k].position) ? bit : 0u;
        }
        return FD_OK;
    }
    if (strcmp(style, "subtract") == 0 || strcmp(style, "union") == 0) {
        int first;
        fd_status status = lmp_group_of(import, c, 3, &first);
        uint32_t others = 0;
        for (int w = 4; status == FD_OK && w < c->word_count; ++w) {
            int g;
            status = lmp_group_of(import, c, w, &g);
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
