/* Options of `fricdem run` and `fricdem resume` (getopt_long), and the
 * usage and help texts of the command line (app/fricdem.c).
 * Must not touch: the world, scenes and files (it only reads argv). */
#ifndef FRICDEM_APP_RUN_OPTIONS_H
#define FRICDEM_APP_RUN_OPTIONS_H

#include <stdbool.h>

enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2 };

extern const char fricdem_usage_text[];
extern const char fricdem_help_text[];

typedef struct run_options {
    const char* scene_path;   /* the scene file, or the checkpoint of resume */
    const char* out_dir;      /* NULL: the scene's output.directory */
    bool quiet;
    bool overwrite;
    bool help;                /* --help: print the help and exit 0 */
    const char** overrides;   /* --set values, then world.threads=N for --threads (owned) */
    int override_count;
    char threads_override[64];
    double balance;           /* --balance: under mpirun, cut the boxes again above this imbalance (1.1) */
    bool balance_by_time;     /* --balance-by time: the imbalance of the ranks' step times, not of their bodies */
    long migrate_every;       /* --migrate-every: under mpirun, migrate at least every so many steps (0: by moves
                               * only) */
} run_options;

/* Parses argv[0..argc) (the words after `run` or `resume`). Returns 0, or
 * EXIT_USAGE after printing what is wrong and the usage. Free with
 * run_options_free. */
int run_options_parse(int argc, char** argv, bool resume, run_options* out);
void run_options_free(run_options* options);

/* "error: ..." and the usage on stderr; returns EXIT_USAGE. */
int usage_error(const char* format, ...) __attribute__((format(printf, 1, 2)));

#endif
