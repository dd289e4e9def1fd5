/* Options of `fricdem run` and `fricdem resume`, parsed with getopt_long:
 * short and long forms, `--opt=value` and `--opt value`, `--` ends the
 * options; anything unknown is a usage error naming it (exit 2).
 * Must not touch: the world, scenes and files (it only reads argv). */
#include "run_options.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char fricdem_usage_text[] =
    "usage: fricdem run SCENE [-o DIR] [--overwrite] [-j N] [-s key.path=value ...] [-q]\n"
    "       fricdem resume CHECKPOINT [-o DIR] [--overwrite] [-j N] [-s key.path=value ...] [-q]\n"
    "       fricdem import-lammps DECK -o SCENE [--var NAME VALUE]... [--overwrite] [-q]\n"
    "       fricdem models\n"
    "       fricdem scene-format\n"
    "       fricdem --help | --version\n";

const char fricdem_help_text[] =
    "\n"
    "fricdem is a discrete element engine whose strength is contact friction.\n"
    "\n"
    "commands:\n"
    "  run SCENE        load the scene file (YAML, see docs/scene-format.md), run it for\n"
    "                   its duration (or through its stages) and write the outputs it asks for\n"
    "  resume CHECKPOINT\n"
    "                   continue a run from a checkpoint (output.checkpoint_interval\n"
    "                   writes DIR/checkpoint.h5) to the time.duration of the scene\n"
    "                   stored in it; it ends bit for bit as the run that never\n"
    "                   stopped (docs/restart.md)\n"
    "  import-lammps DECK -o SCENE\n"
    "                   write a scene from a LAMMPS granular deck (docs/lammps.md;\n"
    "                   fricdem import-lammps --help)\n"
    "  models           list the contact models of the registry with their parameters\n"
    "  scene-format     print the reference of every scene-file key (Markdown)\n"
    "\n"
    "options of run (fricdem run --help):\n"
    "  -o, --out DIR    write the outputs to DIR (default: output.directory of the scene,\n"
    "                   else out/<scene name>); it must be missing or empty\n"
    "      --overwrite  replace an earlier run's outputs in DIR: its CSV, PVD and VTU\n"
    "                   files are removed first (nothing is, if DIR holds other files)\n"
    "  -j, --threads N  OpenMP threads (the scene's world.threads); results do not depend on it\n"
    "  -s, --set K=V    override a scene value before validation; K walks mappings by key\n"
    "                   and sequences by index or entry name, V is YAML, e.g.\n"
    "                   --set time.step=1e-5  --set bodies.ball.velocity=[1,0,0]\n"
    "                   --set contacts.0.normal.restitution=0.5 (repeatable)\n"
    "  -q, --quiet      no header, progress or summary (warnings and errors still show)\n"
    "      --balance R  under mpirun: cut the ranks' boxes again, at a migration, when a rank\n"
    "                   owns more than R times the mean of the bodies (default 1.1, at\n"
    "                   least 1; docs/mpi.md). The results do not depend on it\n"
    "      --balance-by count|time  under mpirun: what --balance evens out: the bodies each\n"
    "                   rank owns (count, the default), or the time each rank's own steps\n"
    "                   took since the last migration (time: cores of different speeds,\n"
    "                   a machine shared with other jobs). The results do not depend on it\n"
    "      --migrate-every N  under mpirun: migrate bodies at least every N steps (default:\n"
    "                   only when a body has moved far enough); for tests of the\n"
    "                   decomposition. The results do not depend on it\n"
    "  -h, --help       this text\n"
    "  resume takes the same options; --set may change only time.duration (the total\n"
    "  simulated time), output.* and world.threads\n"
    "\n"
    "exit status: 0 done, 1 the run failed, 2 bad usage or scene, 130 or 143 interrupted\n"
    "(SIGINT or SIGTERM: the step is finished, the outputs written and closed).\n";

int usage_error(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "error: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n%s", fricdem_usage_text);
    va_end(args);
    return EXIT_USAGE;
}

enum { OPTION_OVERWRITE = 256, OPTION_BALANCE, OPTION_BALANCE_BY, OPTION_MIGRATE_EVERY };

int run_options_parse(int argc, char** argv, bool resume, run_options* out)
{
    memset(out, 0, sizeof *out);
    out->overrides = calloc((size_t)argc + 2, sizeof *out->overrides);
    if (out->overrides == NULL) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUN_FAILED;
    }
    static const struct option options[] = {
        {"out", required_argument, NULL, 'o'},   {"set", required_argument, NULL, 's'},
        {"threads", required_argument, NULL, 'j'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},        {"overwrite", no_argument, NULL, OPTION_OVERWRITE},
        {"balance", required_argument, NULL, OPTION_BALANCE},
        {"balance-by", required_argument, NULL, OPTION_BALANCE_BY},
        {"migrate-every", required_argument, NULL, OPTION_MIGRATE_EVERY}, {NULL, 0, NULL, 0},
    };
    /* getopt_long reads from argv[1]: give it a program name in front. */
    char** words = calloc((size_t)argc + 2, sizeof *words);
    if (words == NULL) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUN_FAILED;
    }
    words[0] = (char*)(resume ? "fricdem resume" : "fricdem run");
    memcpy(words + 1, argv, (size_t)argc * sizeof *argv);
    const char* threads = NULL;
    const char* balance = NULL;
    const char* balance_by = NULL;
    const char* migrate_every = NULL;
    out->balance = 1.1;
    out->balance_by_time = false;
    out->migrate_every = 0;
    optind = 0; /* a fresh scan (glibc: 0 also resets its state) */
    opterr = 0; /* the messages are ours */
    int status = 0;
    for (int c; status == 0 && (c = getopt_long(argc + 1, words, ":o:s:j:qh", options, NULL)) != -1;) {
        switch (c) {
        case 'o':
            out->out_dir = optarg;
            break;
        case 's':
            out->overrides[out->override_count++] = optarg;
            break;
        case 'j':
            threads = optarg;
            break;
        case 'q':
            out->quiet = true;
            break;
        case 'h':
            out->help = true;
            break;
        case OPTION_OVERWRITE:
            out->overwrite = true;
            break;
        case OPTION_BALANCE:
            balance = optarg;
            break;
        case OPTION_BALANCE_BY:
            balance_by = optarg;
            break;
        case OPTION_MIGRATE_EVERY:
            migrate_every = optarg;
            break;
        case ':':
        case '?':
        default:
            if (optopt == OPTION_BALANCE) {
                status = usage_error("--balance needs a ratio (at least 1, e.g. 1.1)");
            } else if (optopt == OPTION_BALANCE_BY) {
                status = usage_error("--balance-by needs 'count' or 'time'");
            } else if (optopt == OPTION_MIGRATE_EVERY) {
                status = usage_error("--migrate-every needs a step count (at least 1)");
            } else if (optopt == 'o' || optopt == 's' || optopt == 'j') {
                status = usage_error("-%c needs %s", optopt,
                                     optopt == 'o' ? "a directory" : optopt == 's' ? "key.path=value" : "a count");
            } else if (optopt != 0) {
                status = usage_error("unknown option '-%c' (see fricdem --help)", optopt);
            } else {
                status = usage_error("unknown option '%s' (see fricdem --help)",
                                     words[optind - 1]);
            }
            break;
        }
    }
    if (status == 0 && !out->help) {
        for (int i = optind; i < argc + 1; ++i) {
            if (out->scene_path == NULL) {
                out->scene_path = words[i];
            } else {
                status = usage_error(resume ? "one checkpoint only (got a second: '%s')"
                                            : "one scene file only (got a second: '%s')", words[i]);
                break;
            }
        }
        if (status == 0 && out->scene_path == NULL) {
            status = usage_error(resume ? "resume needs a checkpoint file" : "run needs a scene file");
        }
    }
    if (status == 0 && threads != NULL) {
        char* end = NULL;
        long count = strtol(threads, &end, 10);
        if (end == threads || *end != '\0' || count < 1 || count > 1024) {
            status = usage_error("--threads: expected a whole number from 1 to 1024, got '%s'", threads);
        } else {
            /* Through the scene's own key, so that its checks (and a resume's rules) apply. */
            snprintf(out->threads_override, sizeof out->threads_override, "world.threads=%ld", count);
            out->overrides[out->override_count++] = out->threads_override;
        }
    }
    if (status == 0 && balance != NULL) {
        char* end = NULL;
        out->balance = strtod(balance, &end);
        if (end == balance || *end != '\0' || !(out->balance >= 1.0) || !isfinite(out->balance)) {
            status = usage_error("--balance: expected a ratio of at least 1 (e.g. 1.1), got '%s'", balance);
        }
    }
    if (status == 0 && balance_by != NULL) {
        if (strcmp(balance_by, "time") == 0 || strcmp(balance_by, "count") == 0) {
            out->balance_by_time = strcmp(balance_by, "time") == 0;
        } else {
            status = usage_error("--balance-by: expected 'count' or 'time', got '%s'", balance_by);
        }
    }
    if (status == 0 && migrate_every != NULL) {
        char* end = NULL;
        long every = strtol(migrate_every, &end, 10);
        if (end == migrate_every || *end != '\0' || every < 1 || every > 1000000000) {
            status = usage_error("--migrate-every: expected a whole number of steps of at least 1, got '%s'",
                                 migrate_every);
        }
        out->migrate_every = every;
    }
    free(words);
    if (status != 0) {
        run_options_free(out);
    }
    return status;
}

void run_options_free(run_options* options)
{
    free(options->overrides);
    options->overrides = NULL;
}
