/* fricdem import-lammps DECK -o SCENE [--var NAME VALUE]... [--overwrite] [-q]:
 * a fricdem scene from a LAMMPS granular deck (fd_lammps_import in include/fricdem/io.h,
 * docs/lammps.md "Importing a deck"). Options by getopt_long in
 * in-order mode ('-'), so that --var takes the next two words whatever they
 * look like (a negative number is a value, not an option).
 *
 * Must not touch: the world and the steppers (it only translates a deck to a scene). */
#include "import_lammps.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "run_options.h"

static const char import_help[] =
    "usage: fricdem import-lammps DECK -o SCENE [--var NAME VALUE]... [--overwrite] [-q]\n"
    "\n"
    "Writes a fricdem scene from a LAMMPS granular deck: units si or lj, atom_style sphere,\n"
    "boundary, region block, create_box, read_data (Atoms and Velocities), create_atoms single,\n"
    "set, velocity set, group, pair_style granular and gran/*, pair_coeff (LAMMPS's mixing),\n"
    "fix wall/gran (planes, zcylinder), gravity, nve/sphere, freeze, timestep, run, thermo,\n"
    "dump, neigh_modify exclude, include and variables (index, string, equal). Files the deck\n"
    "reads are taken from its directory. Any other command is an error naming DECK:LINE.\n"
    "\n"
    "  -o, --out SCENE     the scene file to write (required)\n"
    "      --var NAME VALUE  define an index variable before the deck, as lmp -var (repeatable)\n"
    "      --overwrite     replace SCENE if it exists (otherwise it is kept and this fails)\n"
    "  -q, --quiet         no notes about commands accepted without effect\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 written, 2 bad usage or a deck it cannot translate (nothing written).\n";

int command_import_lammps(int argc, char** argv)
{
    static const struct option long_options[] = {
        {"out", required_argument, NULL, 'o'}, {"var", required_argument, NULL, 'v'},
        {"overwrite", no_argument, NULL, 'w'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
    };
    const char* deck = NULL;
    const char* scene = NULL;
    bool overwrite = false, quiet = false;
    const char** names = calloc((size_t)argc + 1, sizeof *names);
    const char** values = calloc((size_t)argc + 1, sizeof *values);
    int var_count = 0, code, exit_code = 0;
    if (names == NULL || values == NULL) {
        free(names);
        free(values);
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUN_FAILED;
    }
    optind = 0; /* argv[0] is "import-lammps"; 0 also resets getopt */
    opterr = 0;
    while (exit_code == 0 && (code = getopt_long(argc, argv, "-o:qh", long_options, NULL)) != -1) {
        switch (code) {
        case 1:
            if (deck != NULL) {
                exit_code = usage_error("import-lammps takes one DECK (got '%s' and '%s')", deck, optarg);
            }
            deck = optarg;
            break;
        case 'o': scene = optarg; break;
        case 'v':
            if (optind >= argc) {
                exit_code = usage_error("--var %s needs a VALUE", optarg);
                break;
            }
            names[var_count] = optarg;
            values[var_count++] = argv[optind++];
            break;
        case 'w': overwrite = true; break;
        case 'q': quiet = true; break;
        case 'h':
            printf("%s", import_help);
            free(names);
            free(values);
            return 0;
        default:
            exit_code = usage_error("import-lammps: unknown option or missing argument '%s' (fricdem import-lammps "
                                    "--help)", argv[optind - 1]);
        }
    }
    if (exit_code == 0 && (deck == NULL || scene == NULL)) {
        exit_code = usage_error("import-lammps needs a DECK and -o SCENE (fricdem import-lammps --help)");
    }
    if (exit_code == 0) {
        fd_lammps_import_def options = {
            .deck = deck, .scene = scene, .var_count = var_count, .var_names = names, .var_values = values,
            .overwrite = overwrite, .notes = !quiet,
        };
        if (fd_lammps_import(&options) != FD_OK) {
            fprintf(stderr, "error: %s\n", fd_last_error());
            exit_code = EXIT_USAGE;
        } else if (!quiet) {
            fprintf(stderr, "wrote %s (run it with: fricdem run %s)\n", scene, scene);
        }
    }
    free(names);
    free(values);
    return exit_code;
}
