/* What the importer gathers from a deck (import.c and atoms.c read the
 * commands into it, lmp_import.c answers its lookups; write_scene.c checks
 * it as a whole and writes the scene).
 *
 * Must not touch: the world's internals (it writes a scene). */
#ifndef FD_LAMMPS_LMP_IMPORT_H
#define FD_LAMMPS_LMP_IMPORT_H

#include <stdint.h>

#include "lammps/deck.h"
#include "lammps/granular.h"
#include "fricdem/io.h"

enum { LMP_MAX_GROUPS = 32, LMP_MAX_REGIONS = 64, LMP_MAX_WALLS = 16, LMP_MAX_EXCLUDES = 64, LMP_NAME = 64,
       LMP_MAX_TYPES = 1000 };

typedef struct lmp_atom {
    long id;
    int type;
    double position[3], velocity[3], omega[3];
    double radius, mass;
    uint32_t groups; /* bit g: in group g (bit 0: all) */
} lmp_atom;

typedef struct lmp_region {
    char name[LMP_NAME];
    double lo[3], hi[3];
} lmp_region;

typedef enum { LMP_WALL_XPLANE, LMP_WALL_YPLANE, LMP_WALL_ZPLANE, LMP_WALL_ZCYLINDER } lmp_wall_style;

typedef struct lmp_wall {
    char id[LMP_NAME];
    lmp_granular model;
    lmp_wall_style style;
    double lo, hi; /* planes: positions (has_lo, has_hi: not NULL); zcylinder: lo is the radius */
    bool has_lo, has_hi;
} lmp_wall;

typedef struct lmp_exclude {
    bool by_type;
    int a, b; /* types, or group indices */
} lmp_exclude;

typedef enum { LMP_PAIR_NONE, LMP_PAIR_GRANULAR, LMP_PAIR_LEGACY } lmp_pair_style;

typedef struct lmp_import {
    const fd_lammps_import_def* options;
    lmp_deck* deck;
    bool units_set, units_lj, sphere_style;
    bool periodic[3];
    bool box_set;
    double box_lo[3], box_hi[3];
    int type_count;
    lmp_atom* atoms;
    long atom_count, atom_capacity;
    long max_id;             /* the largest atom id so far (lmp_add_atom keeps it) */
    lmp_region regions[LMP_MAX_REGIONS];
    int region_count;
    char groups[LMP_MAX_GROUPS][LMP_NAME];
    int group_count;
    lmp_pair_style pair_style;
    char legacy_style[32];
    lmp_granular legacy_model;
    lmp_granular* coeffs; /* type_count^2, [(i-1) * type_count + (j-1)], set where coeff_set */
    bool* coeff_set;
    lmp_wall walls[LMP_MAX_WALLS];
    int wall_count;
    double gravity[3];
    uint32_t integrated_groups, frozen_groups;
    uint32_t translated_groups; /* fix nve: positions and velocities only, spins kept */
    double timestep;
    bool timestep_set;
    long steps;
    bool ran;
    long thermo_every, dump_every;
    double skin;
    lmp_exclude excludes[LMP_MAX_EXCLUDES];
    int exclude_count;
} lmp_import;

/* Shared by the command files (import.c, atoms.c); lmp_import.c. */
fd_status lmp_fail(const lmp_command* command, const char* format, ...) __attribute__((format(printf, 2, 3)));
/* The handlers' shorthand for lmp_fail. */
#define FAIL(c, ...) lmp_fail(c, __VA_ARGS__)
int lmp_find_group(const lmp_import* import, const char* name);
fd_status lmp_group_of(const lmp_import* import, const lmp_command* command, int word, int* group);
const lmp_region* lmp_find_region(const lmp_import* import, const char* name);
bool lmp_in_region(const lmp_region* region, const double* x);
/* LAMMPS's "I", "*", "I*", "*J", "I*J" over 1..limit. */
fd_status lmp_range_of(const lmp_command* command, int word, long limit, const char* what, long* lo, long* hi);
fd_status lmp_need_box(const lmp_import* import, const lmp_command* command);
fd_status lmp_add_atom(lmp_import* import, const lmp_command* command, lmp_atom atom);
fd_status lmp_define_box(lmp_import* import, const lmp_command* command, const double* lo, const double* hi,
                         long types);

/* atoms.c: the commands that make and change atoms. */
fd_status lmp_command_create_atoms(lmp_import* import, const lmp_command* command);
fd_status lmp_command_read_data(lmp_import* import, const lmp_command* command);
fd_status lmp_command_set(lmp_import* import, const lmp_command* command);
fd_status lmp_command_velocity(lmp_import* import, const lmp_command* command);
fd_status lmp_command_group(lmp_import* import, const lmp_command* command);

/* The pair (i, j) law (1-based types): its own pair_coeff or LAMMPS's mix. */
fd_status lmp_pair_law(const lmp_import* import, int i, int j, lmp_granular* law);

/* Checks the gathered deck as a whole and writes the scene file. */
fd_status lmp_write_scene(const lmp_import* import);

void lmp_note(const lmp_import* import, const lmp_command* command, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
