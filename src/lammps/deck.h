/* Reading a LAMMPS input deck as LAMMPS reads it (its manual, "Parsing
 * rules"): lines joined at a trailing `&`, comments from an unquoted `#`,
 * variables substituted (`$x`, `${name}`, `$(expression)` and
 * `$(expression:format)`), then the line split into words, quotes removed.
 * `variable` and `include` are handled here; every other command is
 * returned to the importer (lammps_import.c) with its file and line.
 *
 * Formats follow LAMMPS 2021 (checked with Debian's lmp): `${name}` of an
 * equal-style variable is "%.15g", `$(expression)` "%.20g", so an imported
 * deck sees the same digits LAMMPS does. This file must not know what any
 * command other than `variable` and `include` means. */
#ifndef FD_LAMMPS_DECK_H
#define FD_LAMMPS_DECK_H

#include <stdbool.h>
#include <stdio.h>

#include "fricdem/types.h"

typedef struct lmp_deck lmp_deck;

/* Thermo keywords an expression may name (xlo, lz, ...): the importer
 * answers them from its box; *found = false for a name it does not know. */
typedef double (*lmp_keyword_fn)(void* context, const char* name, bool* found);

typedef struct lmp_command {
    int word_count;
    char** words;      /* words[0] is the command; owned by the deck until the next call */
    const char* file;  /* the file the command's first line is in (the deck or an include) */
    int line;
} lmp_command;

/* Opens DECK. var_names/var_values (count of each) are index-style
 * variables defined before the deck is read, as LAMMPS's `-var NAME VALUE`:
 * the deck's own `variable NAME index ...` does not replace them. */
fd_status lmp_deck_open(const char* path, int var_count, const char* const* var_names,
                        const char* const* var_values, lmp_keyword_fn keyword, void* keyword_context,
                        lmp_deck** out);
void lmp_deck_close(lmp_deck* deck);

/* The next command: 1, or 0 at the end of the deck; a failure (with
 * FILE:LINE in the message) otherwise. */
fd_status lmp_deck_next(lmp_deck* deck, lmp_command* command, int* has_command);

/* The directory of the deck (for files it names): "" or a path ending in '/'. */
const char* lmp_deck_directory(const lmp_deck* deck);

/* A word as a number: the whole word must be one (a message naming the
 * command's FILE:LINE and what the word is otherwise). */
fd_status lmp_number(const lmp_command* command, int word, const char* what, double* value);
fd_status lmp_integer(const lmp_command* command, int word, const char* what, long* value);

#endif
