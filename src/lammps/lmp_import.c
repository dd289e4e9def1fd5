/* The import's state and what every part of the importer asks of it
 * (lmp_import.h): messages (lmp_fail with DECK:LINE, lmp_note), lookups of
 * groups and regions, atoms added, the box, and a pair of atom types' law
 * (its pair_coeff, or mixed). Calls no command handler: import.c and
 * atoms.c read the deck into the state, write_scene.c writes it out.
 *
 * Must not touch: the world's internals (it writes a scene). */
#include "lammps/lmp_import.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/math.h"

fd_status lmp_fail(const lmp_command* c, const char* format, ...)
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

/* ---------------------------------------------------------------- lookups */

int lmp_find_group(const lmp_import* import, const char* name)
{
    for (int g = 0; g < import->group_count; ++g) {
        if (strcmp(import->groups[g], name) == 0) {
            return g;
        }
    }
    return -1;
}

fd_status lmp_group_of(const lmp_import* import, const lmp_command* c, int word, int* group)
{
    if (word >= c->word_count) {
        return FAIL(c, "a group name is missing");
    }
    *group = lmp_find_group(import, c->words[word]);
    return *group >= 0 ? FD_OK : FAIL(c, "group '%s' does not exist", c->words[word]);
}

const lmp_region* lmp_find_region(const lmp_import* import, const char* name)
{
    for (int r = 0; r < import->region_count; ++r) {
        if (strcmp(import->regions[r].name, name) == 0) {
            return &import->regions[r];
        }
    }
    return NULL;
}

bool lmp_in_region(const lmp_region* region, const double* x)
{
    for (int a = 0; a < 3; ++a) {
        if (x[a] < region->lo[a] || x[a] > region->hi[a]) {
            return false;
        }
    }
    return true;
}

/* LAMMPS's "I", "*", "I*", "*J", "I*J" over 1..limit. */
fd_status lmp_range_of(const lmp_command* c, int word, long limit, const char* what, long* lo, long* hi)
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

fd_status lmp_need_box(const lmp_import* import, const lmp_command* c)
{
    return import->box_set ? FD_OK : FAIL(c, "comes before the box exists (create_box or read_data)");
}

fd_status lmp_add_atom(lmp_import* import, const lmp_command* c, lmp_atom atom)
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
    import->max_id = atom.id > import->max_id ? atom.id : import->max_id;
    return FD_OK;
}

fd_status lmp_define_box(lmp_import* import, const lmp_command* c, const double* lo, const double* hi, long types)
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
