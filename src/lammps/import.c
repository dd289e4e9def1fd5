/* fricdem import-lammps: the deck's commands, one handler each (those that
 * make and change atoms in atoms.c), gathered into an lmp_import
 * (lmp_import.h, its helpers lmp_import.c); write_scene.c turns that into a
 * scene. A command is
 * either translated, accepted with a note because it does not change the
 * physics, or refused with DECK:LINE and the reason: never skipped in
 * silence. Behaviour follows Debian's LAMMPS (29 Sep 2021), checked against
 * it where the manual is silent. Must not write the scene file. */
#include "lammps/lmp_import.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/math.h"

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
        return c->word_count < 3 ? FAIL(c, "ID STYLE ARGS expected")
                                 : FAIL(c, "style '%s' is not supported (block is)", c->words[2]);
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
            fd_status status = lmp_need_box(import, c);
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
    if (lmp_find_region(import, region.name) != NULL) {
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
    const lmp_region* region = lmp_find_region(import, c->words[2]);
    if (region == NULL) {
        return FAIL(c, "region '%s' does not exist", c->words[2]);
    }
    return lmp_define_box(import, c, region->lo, region->hi, types);
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
    fd_status status = lmp_need_box(import, c);
    if (status != FD_OK) {
        return status;
    }
    long ilo, ihi, jlo, jhi;
    status = lmp_range_of(c, 1, import->type_count, "type I", &ilo, &ihi);
    if (status == FD_OK) {
        status = lmp_range_of(c, 2, import->type_count, "type J", &jlo, &jhi);
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
    fd_status status = lmp_group_of(import, c, 2, &group);
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
            status = lmp_group_of(import, c, w + 2, &exclude.a);
            if (status == FD_OK) {
                status = lmp_group_of(import, c, w + 3, &exclude.b);
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
    {"create_atoms", lmp_command_create_atoms, false}, {"read_data", lmp_command_read_data, false},
    {"set", lmp_command_set, false},             {"velocity", lmp_command_velocity, false},
    {"group", lmp_command_group, false},         {"pair_style", command_pair_style, false},
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
