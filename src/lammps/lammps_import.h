/* fricdem import-lammps: a fricdem scene from a LAMMPS granular deck
 * (docs/lammps.md, "Importing a deck"). The door of src/lammps/: the CLI
 * and the tests call this and nothing else in the folder. */
#ifndef FD_LAMMPS_IMPORT_H
#define FD_LAMMPS_IMPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "fricdem/types.h"

typedef struct fd_lammps_import_options {
    const char* deck;   /* the LAMMPS input file; data and include files are read from its directory */
    const char* scene;  /* the fricdem scene to write (YAML) */
    int var_count;      /* index-style variables set before the deck, as LAMMPS's -var NAME VALUE */
    const char* const* var_names;
    const char* const* var_values;
    bool overwrite;     /* replace an existing scene file (otherwise it is an error and the file stays) */
    FILE* notes;        /* where the notes go (commands accepted without effect, choices made); NULL: none */
} fd_lammps_import_options;

/* Reads the deck and writes the scene. A command or option without a
 * fricdem equivalent fails with "DECK:LINE: <command> ... is not supported"
 * and writes nothing. */
fd_status fd_lammps_import(const fd_lammps_import_options* options);

#endif
