/* The imported deck as a whole: checks that need every command (which atoms
 * move, which laws need moduli, what an exclusion leaves out), then the
 * scene file, written beside its final name and renamed into place so that
 * a failed import leaves nothing behind and an existing scene is replaced
 * only when asked.
 *
 * Must not touch: the world's internals (it writes a scene). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contact/model.h"
#include "core/error.h"
#include "core/math.h"
#include "lammps/lmp_import.h"

/* fricdem's default poisson_ratio: the materials of a hooke or k_n hertz deck take it. */
static const double default_poisson_ratio = 0.3;

typedef struct material {
    double density, youngs_modulus, poisson_ratio;
} material;

static bool is_static(const lmp_import* import, const lmp_atom* atom)
{
    return (atom->groups & import->frozen_groups) != 0;
}

static fd_status deck_fail(const lmp_import* import, const char* message)
{
    return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: %s", import->options->deck, message);
}

/* ---------------------------------------------------------------- checks */

static fd_status check_atoms(const lmp_import* import)
{
    if (!import->sphere_style || !import->box_set || import->atom_count == 0) {
        return deck_fail(import, "no atoms: the deck needs atom_style sphere, a box (create_box or read_data) and "
                                 "atoms");
    }
    if (import->pair_style == LMP_PAIR_NONE) {
        return deck_fail(import, "no pair_style: granular, gran/hooke, gran/hooke/history or gran/hertz/history");
    }
    for (long k = 0; k < import->atom_count; ++k) {
        const lmp_atom* atom = &import->atoms[k];
        bool moving = false;
        for (int a = 0; a < 3; ++a) {
            moving = moving || atom->velocity[a] != 0.0 || atom->omega[a] != 0.0;
        }
        if (is_static(import, atom) && moving) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: atom %ld is frozen (fix freeze) but moves: fricdem's static "
                           "bodies are at rest (set its velocity to 0)", import->options->deck, atom->id);
        }
        bool spins = (atom->groups & import->integrated_groups) != 0;
        bool translates = (atom->groups & import->translated_groups) != 0;
        if (spins && translates) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: atom %ld is integrated twice (fix nve/sphere and fix nve)",
                           import->options->deck, atom->id);
        }
        if (!is_static(import, atom) && !spins && !translates) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "%s: atom %ld is neither integrated (fix nve/sphere or nve) nor frozen "
                           "(fix freeze): fricdem moves every body that is not static", import->options->deck,
                           atom->id);
        }
    }
    return FD_OK;
}

/* neigh_modify exclude as pairs of types that never touch (fricdem's
 * normal model none, a law per pair of materials): `exclude type I J` is
 * one pair; `exclude group G1 G2` is every pair of a type in G1 with a type
 * in G2 when each group holds whole types. A group that holds only some
 * atoms of a type cannot be told apart by material; it is taken only where
 * fricdem pairs nothing anyway, between atoms that are all static (frozen).
 * excluded[(I - 1) n + (J - 1)] is set for both orders. */
static fd_status resolve_excludes(const lmp_import* import, bool* excluded)
{
    int n = import->type_count;
    for (int e = 0; e < import->exclude_count; ++e) {
        const lmp_exclude* exclude = &import->excludes[e];
        if (exclude->by_type) {
            if (exclude->a < 1 || exclude->a > n || exclude->b < 1 || exclude->b > n) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT,
                               "%s: neigh_modify exclude type %d %d: the box has types 1 to %d",
                               import->options->deck, exclude->a, exclude->b, n);
            }
            excluded[(exclude->a - 1) * n + (exclude->b - 1)] = true;
            excluded[(exclude->b - 1) * n + (exclude->a - 1)] = true;
            continue;
        }
        /* Per type: atoms in G1 (bit 0) and not (bit 1), likewise G2 (bits 2, 3). */
        unsigned* seen = calloc((size_t)n + 1, sizeof *seen);
        if (seen == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
        }
        bool all_static = true;
        for (long k = 0; k < import->atom_count; ++k) {
            const lmp_atom* atom = &import->atoms[k];
            bool in_a = (atom->groups >> exclude->a) & 1u, in_b = (atom->groups >> exclude->b) & 1u;
            seen[atom->type] |= (in_a ? 1u : 2u) | (in_b ? 4u : 8u);
            all_static = all_static && (!(in_a || in_b) || is_static(import, atom));
        }
        int mixed = 0;
        for (int t = 1; t <= n && mixed == 0; ++t) {
            mixed = ((seen[t] & 3u) == 3u || (seen[t] & 12u) == 12u) ? t : 0;
        }
        if (mixed != 0 && !all_static) {
            free(seen);
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s: neigh_modify exclude group %s %s: a group holds only some "
                           "atoms of type %d; fricdem excludes pairs by material (one per type), so each group must "
                           "hold whole types, or only static (frozen) atoms", import->options->deck,
                           import->groups[exclude->a], import->groups[exclude->b], mixed);
        }
        for (int s = 1; s <= n && mixed == 0; ++s) {
            for (int t = 1; t <= n; ++t) {
                if ((seen[s] & 1u) && (seen[t] & 4u)) {
                    excluded[(s - 1) * n + (t - 1)] = true;
                    excluded[(t - 1) * n + (s - 1)] = true;
                }
            }
        }
        free(seen);
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- moduli */

static bool is_hertz(const lmp_granular* law) { return law->normal != LMP_NORMAL_HOOKE; }

/* A material's modulus for a law with a type (or a wall) alone: hertz/material
 * gives E and nu; hertz gives k_n = 4/3 E* with E* = E / (2 (1 - nu^2)). */
static void own_modulus(const lmp_granular* law, material* m)
{
    if (law->normal == LMP_NORMAL_HERTZ_MATERIAL) {
        m->youngs_modulus = law->normal_coeffs[0];
        m->poisson_ratio = law->normal_coeffs[2];
    } else if (law->normal == LMP_NORMAL_HERTZ) {
        m->poisson_ratio = default_poisson_ratio;
        m->youngs_modulus = 1.5 * law->normal_coeffs[0] * (1.0 - m->poisson_ratio * m->poisson_ratio);
    }
}

static double fricdem_modulus(const material* a, const material* b)
{
    return fd_hertz_modulus(a->youngs_modulus, a->poisson_ratio, b->youngs_modulus, b->poisson_ratio);
}

/* E* as LAMMPS forms it for a pair law (mixed == it came from lmp_granular_mix). */
static double lammps_modulus(const lmp_granular* law, const material* a, const material* b, bool mixed)
{
    if (law->normal == LMP_NORMAL_HERTZ) {
        return 0.75 * law->normal_coeffs[0];
    }
    if (mixed) {
        return fricdem_modulus(a, b); /* mix_stiffnessE */
    }
    double nu = law->normal_coeffs[2];
    return law->normal_coeffs[0] / (2.0 * (1.0 - nu * nu));
}

static fd_status check_modulus(const lmp_import* import, const lmp_granular* law, const material* a,
                               const material* b, bool mixed, const char* pair)
{
    if (!is_hertz(law)) {
        return FD_OK; /* hooke: no modulus (mindlin's NULL k_t without hertz/material is refused when parsed) */
    }
    double lammps = lammps_modulus(law, a, b, mixed), fricdem = fricdem_modulus(a, b);
    /* Both are a handful of roundings of the same numbers. */
    if (!(fabs(lammps - fricdem) <= 1e-12 * fabs(lammps))) {
        char message[512];
        snprintf(message, sizeof message, "%s: LAMMPS's E* = %.17g here, but fricdem forms E* from the two "
                 "materials' moduli (%.17g): give the types their own hertz models whose mixing is this pair's", pair,
                 lammps, fricdem);
        return deck_fail(import, message);
    }
    return FD_OK;
}

/* Each type's material, and each pair's law checked against them where it
 * acts: on a pair with a moving atom (static bodies never meet each other). */
static fd_status gather_materials(const lmp_import* import, material* types, material* walls)
{
    int n = import->type_count;
    bool moves[LMP_MAX_TYPES + 1] = {false}, seen[LMP_MAX_TYPES + 1] = {false};
    for (int t = 1; t <= n; ++t) {
        types[t - 1] = (material){.density = 1000.0, .poisson_ratio = default_poisson_ratio};
    }
    for (long k = 0; k < import->atom_count; ++k) {
        const lmp_atom* atom = &import->atoms[k];
        moves[atom->type] |= !is_static(import, atom);
        if (!seen[atom->type]) {
            /* The material's density, informational: each body's mass is written out. */
            seen[atom->type] = true;
            types[atom->type - 1].density =
                atom->mass / (4.0 / 3.0 * FD_PI * atom->radius * atom->radius * atom->radius);
        }
    }
    for (int t = 1; t <= n; ++t) {
        material* m = &types[t - 1];
        lmp_granular law;
        fd_status status = lmp_pair_law(import, t, t, &law);
        if (status != FD_OK) {
            return status;
        }
        own_modulus(&law, m);
    }
    for (int i = 1; i <= n; ++i) {
        for (int j = i; j <= n; ++j) {
            lmp_granular law;
            fd_status status = lmp_pair_law(import, i, j, &law);
            char pair[64];
            snprintf(pair, sizeof pair, "atom types %d %d", i, j);
            bool mixed = !import->coeff_set[(i - 1) * n + (j - 1)];
            if (status == FD_OK && (moves[i] || moves[j])) {
                status = check_modulus(import, &law, &types[i - 1], &types[j - 1], mixed, pair);
            }
            if (status != FD_OK) {
                return status;
            }
        }
    }
    for (int w = 0; w < import->wall_count; ++w) {
        const lmp_wall* wall = &import->walls[w];
        walls[w] = (material){.density = 1000.0, .poisson_ratio = default_poisson_ratio};
        own_modulus(&wall->model, &walls[w]);
        for (int t = 1; t <= n; ++t) {
            if (!moves[t]) {
                continue;
            }
            char pair[128];
            snprintf(pair, sizeof pair, "fix %s and atom type %d", wall->id, t);
            /* LAMMPS's wall: E* = E / (2 (1 - nu^2)) of the fix's own coefficients. */
            fd_status status = check_modulus(import, &wall->model, &walls[w], &types[t - 1], false, pair);
            if (status != FD_OK) {
                return status;
            }
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- writing */

static void write_vector(FILE* out, const double* v)
{
    fprintf(out, "[%.17g, %.17g, %.17g]", v[0], v[1], v[2]);
}

static void write_material(FILE* out, const char* name, const material* m)
{
    fprintf(out, "  - {name: %s, density: %.17g", name, m->density);
    if (m->youngs_modulus > 0.0) {
        fprintf(out, ", youngs_modulus: %.17g", m->youngs_modulus);
    }
    fprintf(out, ", poisson_ratio: %.17g}\n", m->poisson_ratio);
}

static void write_header(FILE* out, const lmp_import* import, const char* name)
{
    fprintf(out, "# Imported by `fricdem import-lammps` from %s (docs/lammps.md, \"Importing a deck\").\n",
            import->options->deck);
    fprintf(out, "# LAMMPS's conventions where fricdem has a choice: world.lammps_arms, roll transport 1.\n");
    fprintf(out, "name: %s\n", name);
    fprintf(out, "time:\n  step: %.17g\n  duration: %.17g  # %ld steps\n  integrator: velocity_verlet  # fix "
            "nve/sphere\n", import->timestep, (double)import->steps * import->timestep, import->steps);
    fprintf(out, "world:\n  gravity: ");
    write_vector(out, import->gravity);
    fprintf(out, "\n  lammps_arms: true\n");
    if (import->pair_style == LMP_PAIR_LEGACY) {
        fprintf(out, "  lammps_legacy_torque: true  # gran/%s: a pair's torques at the full radii\n",
                import->legacy_style);
    }
    if (import->skin > 0.0) {
        fprintf(out, "  neighbor_skin: %.17g\n", import->skin);
    }
    if (import->periodic[0] || import->periodic[1] || import->periodic[2]) {
        fprintf(out, "  periodic: [");
        const char* separator = "";
        for (int a = 0; a < 3; ++a) {
            if (import->periodic[a]) {
                fprintf(out, "%s%c", separator, 'x' + a);
                separator = ", ";
            }
        }
        fprintf(out, "]\n  box: {min: ");
        write_vector(out, import->box_lo);
        fprintf(out, ", max: ");
        write_vector(out, import->box_hi);
        fprintf(out, "}\n");
    }
}

static void write_laws(FILE* out, const lmp_import* import, const bool* excluded)
{
    int n = import->type_count;
    fprintf(out, "contacts:\n");
    for (int i = 1; i <= n; ++i) {
        for (int j = i; j <= n; ++j) {
            if (excluded[(i - 1) * n + (j - 1)]) {
                fprintf(out, "  - materials: [type%d, type%d]  # neigh_modify exclude\n", i, j);
                fprintf(out, "    normal: {model: none}\n");
                continue;
            }
            lmp_granular law;
            lmp_pair_law(import, i, j, &law); /* checked by gather_materials */
            bool mixed = !import->coeff_set[(i - 1) * n + (j - 1)];
            fprintf(out, "  - materials: [type%d, type%d]%s\n", i, j, mixed ? "  # LAMMPS's mixing" : "");
            lmp_granular_write(out, &law, "    ");
        }
    }
    for (int w = 0; w < import->wall_count; ++w) {
        for (int t = 1; t <= n; ++t) {
            fprintf(out, "  - materials: [wall_%s, type%d]  # fix %s wall/gran\n", import->walls[w].id, t,
                    import->walls[w].id);
            lmp_granular_write(out, &import->walls[w].model, "    ");
        }
    }
}

static void write_walls(FILE* out, const lmp_import* import)
{
    for (int w = 0; w < import->wall_count; ++w) {
        const lmp_wall* wall = &import->walls[w];
        if (wall->style == LMP_WALL_ZCYLINDER) {
            /* LAMMPS's zcylinder is endless about the z axis: long enough to reach past the box both ways. */
            double length = 3.0 * (import->box_hi[2] - import->box_lo[2]);
            double centre = 0.5 * (import->box_lo[2] + import->box_hi[2]);
            fprintf(out, "  - {name: %s, static: true, material: wall_%s, shape: {type: cylinder, radius: %.17g, "
                    "length: %.17g}, position: [0, 0, %.17g]}\n", wall->id, wall->id, wall->lo, length, centre);
            continue;
        }
        int axis = (int)wall->style;
        for (int side = 0; side < 2; ++side) {
            if (!(side == 0 ? wall->has_lo : wall->has_hi)) {
                continue;
            }
            double normal[3] = {0, 0, 0}, position[3] = {0, 0, 0};
            normal[axis] = side == 0 ? 1.0 : -1.0;
            position[axis] = side == 0 ? wall->lo : wall->hi;
            fprintf(out, "  - {name: %s_%s, static: true, material: wall_%s, shape: {type: plane, normal: ",
                    wall->id, side == 0 ? "lo" : "hi", wall->id);
            write_vector(out, normal);
            fprintf(out, "}, position: ");
            write_vector(out, position);
            fprintf(out, "}\n");
        }
    }
}

static void write_atoms(FILE* out, const lmp_import* import)
{
    for (long k = 0; k < import->atom_count; ++k) {
        const lmp_atom* atom = &import->atoms[k];
        fprintf(out, "  - {name: atom%ld, material: type%d, shape: {type: sphere, radius: %.17g}, mass: %.17g, "
                "position: ", atom->id, atom->type, atom->radius, atom->mass);
        write_vector(out, atom->position);
        if (is_static(import, atom)) {
            fprintf(out, ", static: true}\n");
            continue;
        }
        fprintf(out, ", velocity: ");
        write_vector(out, atom->velocity);
        fprintf(out, ", angular_velocity: ");
        write_vector(out, atom->omega);
        if (atom->groups & import->translated_groups) {
            fprintf(out, ", lock: {rotation: [x, y, z]}"); /* fix nve: the spin stays as it is */
        }
        fprintf(out, "}\n");
    }
}

static void write_output(FILE* out, const lmp_import* import)
{
    long every = import->dump_every > 0 ? import->dump_every : import->thermo_every;
    fprintf(out, "output:\n");
    if (every > 0) {
        fprintf(out, "  csv_interval: %.17g  # every %ld steps (%s)\n", (double)every * import->timestep, every,
                import->dump_every > 0 ? "dump" : "thermo");
    }
    fprintf(out, "  bodies_csv: %s\n  contacts_csv: false\n  energy_csv: %s\n",
            import->dump_every > 0 ? "true" : "false", import->thermo_every > 0 ? "true" : "false");
}

static fd_status write_file(const lmp_import* import, FILE* out, const material* types, const material* walls,
                            const bool* excluded)
{
    const char* slash = strrchr(import->options->deck, '/');
    char name[256];
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : import->options->deck);
    char* dot = strrchr(name, '.');
    if (dot != NULL && dot != name) {
        *dot = '\0';
    }
    write_header(out, import, name);
    fprintf(out, "materials:\n");
    for (int t = 1; t <= import->type_count; ++t) {
        char material_name[32];
        snprintf(material_name, sizeof material_name, "type%d", t);
        write_material(out, material_name, &types[t - 1]);
    }
    for (int w = 0; w < import->wall_count; ++w) {
        char material_name[LMP_NAME + 8];
        snprintf(material_name, sizeof material_name, "wall_%s", import->walls[w].id);
        write_material(out, material_name, &walls[w]);
    }
    write_laws(out, import, excluded);
    fprintf(out, "bodies:\n");
    write_walls(out, import);
    write_atoms(out, import);
    write_output(out, import);
    return ferror(out) ? fd_fail(FD_ERR_IO, "%s: write error", import->options->scene) : FD_OK;
}

fd_status lmp_write_scene(const lmp_import* import)
{
    const fd_lammps_import_def* options = import->options;
    if (!options->overwrite && access(options->scene, F_OK) == 0) {
        return fd_fail(FD_ERR_IO, "%s exists; it is kept (--overwrite replaces it)", options->scene);
    }
    lmp_import* mutable_import = (lmp_import*)import;
    if (!import->units_set) {
        lmp_note(import, NULL, "no units command: LAMMPS's default is lj; the scene keeps the deck's numbers");
    }
    if (!import->timestep_set) {
        mutable_import->timestep = import->units_lj || !import->units_set ? 0.005 : 1.0e-8;
        lmp_note(import, NULL, "no timestep command: LAMMPS's default %g", import->timestep);
    }
    if (!import->ran) {
        lmp_note(import, NULL, "no run command: the scene runs 0 steps (set time.duration)");
    }
    fd_status status = check_atoms(import);
    bool tsuji = false;
    for (int i = 1; i <= import->type_count; ++i) {
        for (int j = i; j <= import->type_count; ++j) {
            lmp_granular law;
            tsuji = tsuji || (lmp_pair_law(import, i, j, &law) == FD_OK && law.damping == LMP_DAMPING_TSUJI);
        }
    }
    for (int w = 0; w < import->wall_count; ++w) {
        tsuji = tsuji || import->walls[w].model.damping == LMP_DAMPING_TSUJI;
    }
    if (tsuji) {
        lmp_note(import, NULL, "damping tsuji: alpha(e) as LAMMPS 29 Sep 2021 (Debian), tsuji_sqrt2: 0 in the scene; "
                 "newer LAMMPS multiplies it by sqrt(2) (gran_sub_mod_damping.cpp, \"effective mass convention\"): "
                 "set tsuji_sqrt2: 1 for a deck of such a version");
    }
    for (int w = 0; status == FD_OK && w < import->wall_count; ++w) {
        const lmp_wall* wall = &import->walls[w];
        if (wall->model.normal == LMP_NORMAL_HERTZ_MATERIAL) {
            lmp_note(import, NULL, "fix %s: a hertz/material wall has E* = E / (2 (1 - nu^2)) here, as LAMMPS's manual "
                     "and LAMMPS since 2023; LAMMPS 29 Sep 2021 (Debian) uses E / (2 (1 - nu))", wall->id);
        }
    }
    material* types = calloc((size_t)import->type_count + (size_t)import->wall_count + 1, sizeof *types);
    bool* excluded = calloc((size_t)import->type_count * (size_t)import->type_count + 1, sizeof *excluded);
    if (types == NULL || excluded == NULL) {
        free(types);
        free(excluded);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    material* walls = types + import->type_count;
    if (status == FD_OK) {
        status = resolve_excludes(import, excluded);
    }
    if (status == FD_OK) {
        status = gather_materials(import, types, walls);
    }
    if (status != FD_OK) {
        free(types);
        free(excluded);
        return status;
    }
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.partial", options->scene);
    FILE* out = fopen(temporary, "w");
    if (out == NULL) {
        free(types);
        free(excluded);
        return fd_fail(FD_ERR_IO, "cannot write %s: %s", temporary, strerror(errno));
    }
    status = write_file(import, out, types, walls, excluded);
    free(types);
    free(excluded);
    if (fclose(out) != 0 && status == FD_OK) {
        status = fd_fail(FD_ERR_IO, "%s: %s", temporary, strerror(errno));
    }
    if (status == FD_OK && rename(temporary, options->scene) != 0) {
        status = fd_fail(FD_ERR_IO, "cannot rename %s to %s: %s", temporary, options->scene, strerror(errno));
    }
    if (status != FD_OK) {
        remove(temporary);
    }
    return status;
}
