/* fricdem: the command-line front end.
 *
 *   fricdem run SCENE [-o DIR] [--overwrite] [-j N] [-s key.path=value ...] [-q]
 *   fricdem resume CHECKPOINT [-o DIR] [--overwrite] [-j N] [-s key.path=value ...] [-q]
 *   (options: app/run_options.c)
 *   fricdem import-lammps DECK -o SCENE [--var NAME VALUE]... [--overwrite] [-q]
 *   fricdem models
 *   fricdem scene-format
 *   fricdem --help | --version
 *
 * Exit status: 0 success; 1 the run failed (a step or an output); 2 bad
 * usage or a bad scene (the message says FILE:LINE and the key); 130 or
 * 143 interrupted by SIGINT or SIGTERM (the step in progress is finished,
 * its outputs written, every file closed; docs/guarantees.md).
 *
 * Must not touch: the world's storage and the steppers (it drives runs through
 * include/fricdem and the scene loader; src/ never calls back into app/). */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/report.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "io/scene_loader.h"
#include "import_lammps.h"
#include "mpi_run.h"
#include "run_options.h"
#include "stage_start.h"

/* ---------------------------------------------------------------- small helpers */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void format_duration(double seconds, char* buffer, size_t size)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buffer, size, "?");
    } else if (seconds < 10) {
        snprintf(buffer, size, "%.2f s", seconds);
    } else if (seconds < 60) {
        snprintf(buffer, size, "%.1f s", seconds);
    } else if (seconds < 3600) {
        snprintf(buffer, size, "%dm%02ds", (int)(seconds / 60), (int)fmod(seconds, 60));
    } else {
        snprintf(buffer, size, "%dh%02dm", (int)(seconds / 3600), (int)fmod(seconds / 60, 60));
    }
}

/* A "Vm...:" line of /proc/self/status in kB (VmHWM: peak resident memory,
 * VmRSS: resident now); -1 if unknown. */
static long status_memory_kb(const char* key)
{
    FILE* status = fopen("/proc/self/status", "r");
    if (!status) {
        return -1;
    }
    char line[256];
    long kb = -1;
    size_t length = strlen(key);
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, key, length) == 0 && line[length] == ':') {
            kb = strtol(line + length + 1, NULL, 10);
            break;
        }
    }
    fclose(status);
    return kb;
}

/* ---------------------------------------------------------------- models */

static void print_wrapped(const char* text, int indent, int width)
{
    int column = indent;
    printf("%*s", indent, "");
    const char* p = text;
    while (*p) {
        while (*p == ' ') {
            ++p;
        }
        const char* end = p;
        while (*end && *end != ' ') {
            ++end;
        }
        int length = (int)(end - p);
        if (length == 0) {
            break;
        }
        if (column > indent && column + 1 + length > width) {
            printf("\n%*s", indent, "");
            column = indent;
        } else if (column > indent) {
            putchar(' ');
            ++column;
        }
        printf("%.*s", length, p);
        column += length;
        p = end;
    }
    putchar('\n');
}

static void format_bound(double v, char* buffer, size_t size)
{
    if (isinf(v)) {
        snprintf(buffer, size, "%sinf", v < 0 ? "-" : "");
    } else {
        snprintf(buffer, size, "%g", v);
    }
}

static void format_param_range(const fd_param_info* p, char* buffer, size_t size)
{
    if (isnan(p->min_value) && isnan(p->max_value)) {
        snprintf(buffer, size, "any");
        return;
    }
    char lo[32], hi[32];
    double min = isnan(p->min_value) ? -INFINITY : p->min_value;
    double max = isnan(p->max_value) ? INFINITY : p->max_value;
    format_bound(min, lo, sizeof lo);
    format_bound(max, hi, sizeof hi);
    snprintf(buffer, size, "%c%s, %s%c", isinf(min) ? '(' : '[', lo, hi, isinf(max) ? ')' : ']');
}

static int command_models(void)
{
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        printf("%s%s models\n", m ? "\n" : "", fd_mechanism_name((fd_mechanism)m));
        for (int i = 0; i < fd_model_count(); ++i) {
            const fd_model_info* info = fd_model_at(i);
            if (!info || (int)info->mechanism != m) {
                continue;
            }
            printf("\n  %s\n", info->name);
            print_wrapped(info->doc ? info->doc : "", 4, 79);
            if (info->param_count == 0) {
                printf("    (no parameters)\n");
                continue;
            }
            int wn = 9, wu = 4, wd = 7, wr = 5;
            char text[96];
            for (int p = 0; p < info->param_count; ++p) {
                const fd_param_info* param = &info->params[p];
                wn = (int)strlen(param->name) > wn ? (int)strlen(param->name) : wn;
                wu = (int)strlen(param->unit) > wu ? (int)strlen(param->unit) : wu;
                snprintf(text, sizeof text, "%g", param->default_value);
                wd = (int)strlen(text) > wd ? (int)strlen(text) : wd;
                format_param_range(param, text, sizeof text);
                wr = (int)strlen(text) > wr ? (int)strlen(text) : wr;
            }
            wd = wd < 8 ? 8 : wd; /* "required" */
            printf("    %-*s  %-*s  %-*s  %-*s  %s\n", wn, "parameter", wu, "unit", wd, "default", wr, "range",
                   "meaning [source]");
            for (int p = 0; p < info->param_count; ++p) {
                const fd_param_info* param = &info->params[p];
                char def[32], range[96];
                if (isnan(param->default_value)) {
                    snprintf(def, sizeof def, "required");
                } else {
                    snprintf(def, sizeof def, "%g", param->default_value);
                }
                format_param_range(param, range, sizeof range);
                printf("    %-*s  %-*s  %-*s  %-*s  %s [source: %s]\n", wn, param->name, wu, param->unit, wd, def, wr,
                       range, param->doc ? param->doc : "", param->source ? param->source : "");
            }
        }
        if (m != FD_MECHANISM_NORMAL && !fd_model_find((fd_mechanism)m, "none")) {
            printf("\n  none\n    No %s resistance (the default when a contact law does not name a %s model).\n",
                   fd_mechanism_name((fd_mechanism)m), fd_mechanism_name((fd_mechanism)m));
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- progress */

typedef struct progress {
    bool enabled;
    bool tty;
    double start;
    double last_draw;
    int64_t total;
    int next_tenth; /* plain mode: next 10% mark to report */
} progress;

/* The load's progress (fd_scene_load_with_progress): on a terminal one
 * line redrawn, else a line at each tenth, and only for a load that has
 * taken a second already (small scenes stay quiet). */
static void on_load_progress(void* user, int64_t created, int64_t total)
{
    progress* p = user;
    if (!p->enabled || total <= 0) {
        return;
    }
    double now = now_seconds();
    double elapsed = now - p->start;
    bool final = created >= total;
    double fraction = (double)created / (double)total;
    if (p->tty) {
        if (final || now - p->last_draw >= 0.1) {
            p->last_draw = now;
            fprintf(stderr, final ? "\r\033[K" : "\rloading: %lld of %lld bodies (%.0f%%)\033[K", (long long)created,
                    (long long)total, 100.0 * fraction);
            fflush(stderr);
        }
        return;
    }
    int tenth = (int)(created * 10 / total); /* the last tenth reached */
    if (elapsed >= 1.0 && tenth >= p->next_tenth && tenth < 10) {
        char elapsed_text[32];
        format_duration(elapsed, elapsed_text, sizeof elapsed_text);
        fprintf(stderr, "loading: %3d%%  %lld of %lld bodies  elapsed %s\n", 10 * tenth, (long long)created,
                (long long)total, elapsed_text);
        p->next_tenth = tenth + 1;
    }
}

static void progress_draw(progress* p, int64_t done, double time, bool final)
{
    if (!p->enabled || p->total <= 0) {
        return;
    }
    double now = now_seconds();
    double elapsed = now - p->start;
    double eta = done > 0 ? elapsed * (double)(p->total - done) / (double)done : NAN;
    char eta_text[32], elapsed_text[32];
    format_duration(eta, eta_text, sizeof eta_text);
    format_duration(elapsed, elapsed_text, sizeof elapsed_text);
    double fraction = (double)done / (double)p->total;
    if (p->tty) {
        if (!final && now - p->last_draw < 0.1) {
            return;
        }
        p->last_draw = now;
        enum { WIDTH = 30 };
        char bar[WIDTH + 1];
        int filled = (int)(fraction * WIDTH);
        for (int i = 0; i < WIDTH; ++i) {
            bar[i] = i < filled ? '#' : '.';
        }
        bar[WIDTH] = '\0';
        fprintf(stderr, "\r[%s] %5.1f%%  step %lld/%lld  t = %.6g s  ETA %s\033[K", bar, 100.0 * fraction,
                (long long)done, (long long)p->total, time, eta_text);
        if (final) {
            fprintf(stderr, "\r\033[K");
        }
        fflush(stderr);
        return;
    }
    while (p->next_tenth <= 10 && done * 10 >= p->total * p->next_tenth) {
        fprintf(stderr, "%3d%%  step %lld/%lld  t = %.6g s  elapsed %s  ETA %s\n", 10 * p->next_tenth, (long long)done,
                (long long)p->total, time, elapsed_text, eta_text);
        p->next_tenth += 1;
    }
}

/* ---------------------------------------------------------------- outputs listing */

typedef struct file_list {
    char** names;
    int count;
} file_list;

static int compare_names(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Regular files (and folders of them) in dir modified since the run started
 * (the caller allows a second of slack for coarse file-system clocks), sorted. */
static file_list files_written(const char* dir, time_t since)
{
    file_list list = {NULL, 0};
    DIR* d = opendir(dir);
    if (!d) {
        return list;
    }
    int capacity = 0;
    for (struct dirent* entry = readdir(d); entry; entry = readdir(d)) {
        if (entry->d_name[0] == '.') {
            continue;
        }
        char path[FD_PATH_MAX + 260];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        struct stat info;
        if (stat(path, &info) != 0 || info.st_mtime < since) {
            continue;
        }
        char label[300];
        if (S_ISDIR(info.st_mode)) {
            /* A folder of snapshots: "vtu/ (101 files)". */
            int inner = 0;
            DIR* sub = opendir(path);
            for (struct dirent* e = sub ? readdir(sub) : NULL; e; e = readdir(sub)) {
                char inner_path[FD_PATH_MAX + 600];
                struct stat inner_info;
                snprintf(inner_path, sizeof inner_path, "%s/%s", path, e->d_name);
                inner += e->d_name[0] != '.' && stat(inner_path, &inner_info) == 0 && S_ISREG(inner_info.st_mode) &&
                         inner_info.st_mtime >= since;
            }
            if (sub) {
                closedir(sub);
            }
            if (inner == 0) {
                continue;
            }
            snprintf(label, sizeof label, "%s/ (%d file%s)", entry->d_name, inner, inner == 1 ? "" : "s");
        } else if (S_ISREG(info.st_mode)) {
            snprintf(label, sizeof label, "%s", entry->d_name);
        } else {
            continue;
        }
        if (list.count == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            char** grown = realloc(list.names, (size_t)capacity * sizeof *grown);
            if (!grown) {
                break;
            }
            list.names = grown;
        }
        list.names[list.count] = strdup(label);
        if (list.names[list.count]) {
            list.count += 1;
        }
    }
    closedir(d);
    if (list.count > 1) {
        qsort(list.names, (size_t)list.count, sizeof *list.names, compare_names);
    }
    return list;
}

/* "bodies.csv, energy.csv, 101 .vtu files": names, except that an extension
 * with more than eight files (snapshots, not the few CSV series) is counted
 * instead. */
static void print_files(const file_list* list)
{
    if (list->count == 0) {
        printf("(no files)");
        return;
    }
    bool first = true;
    for (int i = 0; i < list->count; ++i) {
        const char* ext = strchr(list->names[i], '/') ? NULL : strrchr(list->names[i], '.');
        int same = 0;
        for (int j = 0; j < list->count; ++j) {
            const char* other = strchr(list->names[j], '/') ? NULL : strrchr(list->names[j], '.');
            same += (ext && other && strcmp(ext, other) == 0) || (!ext && !other);
        }
        if (same > 8) {
            bool earlier = false; /* counted already at its first file */
            for (int j = 0; j < i && !earlier; ++j) {
                const char* other = strchr(list->names[j], '/') ? NULL : strrchr(list->names[j], '.');
                earlier = (ext && other && strcmp(ext, other) == 0) || (!ext && !other);
            }
            if (!earlier) {
                printf("%s%d %s files", first ? "" : ", ", same, ext ? ext : "extensionless");
                first = false;
            }
            continue;
        }
        printf("%s%s", first ? "" : ", ", list->names[i]);
        first = false;
    }
}

static void free_files(file_list* list)
{
    for (int i = 0; i < list->count; ++i) {
        free(list->names[i]);
    }
    free(list->names);
}

/* ---------------------------------------------------------------- run */

/* The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none
 * has: the loop finishes its step, the outputs are closed, and the exit
 * status is 128 + the signal, as a shell reports a process it killed. */
static volatile sig_atomic_t interrupted = 0;

static void on_interrupt(int signal_number) { interrupted = signal_number; }



/* Outputs projected past this many bytes draw a warning (never silenced by
 * --quiet): a few GB is more than a run means to write by accident, as when
 * every step of 10^5 spheres wrote 35 GB in ten minutes. */
#define OUTPUT_WARNING_BYTES 4e9

/* Warns when the outputs are projected past OUTPUT_WARNING_BYTES or past
 * the free space of their file system by the end of the run; returns
 * whether it warned (once is enough). */
static bool warn_about_output_size(const fd_output* output, const fd_world* world, const fd_scene* scene)
{
    double projected = fd_output_projected_bytes(output, world, scene->duration);
    int64_t free_disk = fd_free_disk(scene->output.directory);
    bool past_disk = free_disk >= 0 && projected > (double)free_disk;
    if (projected < OUTPUT_WARNING_BYTES && !past_disk) {
        return false;
    }
    char projected_text[32], free_text[32], disk_text[96] = "";
    fd_format_bytes(projected, projected_text, sizeof projected_text);
    if (past_disk) {
        fd_format_bytes((double)free_disk, free_text, sizeof free_text);
        snprintf(disk_text, sizeof disk_text, ", more than the %s free on its file system", free_text);
    }
    fprintf(stderr,
            "warning: the outputs in %s will take about %s by t = %g s (projected from what they hold at t = %g s)%s: "
            "widen output.csv_interval or output.vtu_interval, or switch outputs off\n",
            scene->output.directory, projected_text, scene->duration, fd_world_time(world), disk_text);
    return true;
}

/* The energy ledger in one line: where the energy went, what a model created
 * and how well the books close (docs/energy.md). */
/* Stage times of the steps run since `before`. */
static fd_world_profile profile_since(fd_world_profile now, fd_world_profile before)
{
    now.broad_phase -= before.broad_phase;
    now.narrow_phase -= before.narrow_phase;
    now.contact_models -= before.contact_models;
    now.accumulate -= before.accumulate;
    now.integrate -= before.integrate;
    now.contact_steps -= before.contact_steps;
    now.steps -= before.steps;
    now.solver_iterations -= before.solver_iterations;
    now.neighbor_builds -= before.neighbor_builds;
    now.neighbor_appended -= before.neighbor_appended;
    return now;
}

/* Peak resident memory, and what the world holds per body and per contact
 * (capacities: what a run of this size needs; bench/README.md's bytes per
 * sphere and per contact). */
static void print_memory_summary(const fd_world* world)
{
    long peak = status_memory_kb("VmHWM");
    if (peak >= 0) {
        printf("  peak memory  %.1f MiB\n", (double)peak / 1024.0);
    }
    const int bodies = fd_world_body_count(world);
    const int contacts = fd_world_contact_count(world);
    if (bodies == 0) {
        return;
    }
    fd_world_memory memory = fd_world_get_memory(world);
    printf("  world        %.1f MiB: %.0f B per body (states, mass, shape, name) + %.0f B per body (neighbour lists)",
           (double)(memory.bodies + memory.neighbor_list + memory.contacts + memory.scratch) / (1024.0 * 1024.0),
           (double)memory.bodies / bodies, (double)memory.neighbor_list / bodies);
    if (contacts > 0) {
        printf(" + %.0f B per contact (%d)", (double)memory.contacts / contacts, contacts);
    }
    printf("\n");
}

static void print_energy_summary(const fd_world* world)
{
    if (!fd_world_get_def(world).energy_ledger && fd_world_get_def(world).stepper == FD_STEPPER_PENALTY) {
        printf("  energy       ledger off (world.energy_ledger, or output.energy_csv, switches it on)\n");
        return;
    }
    fd_world_energy e = fd_world_get_energy(world);
    double dashpot = 0.0, slip = 0.0, created = 0.0;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        dashpot += e.dashpot[m];
        slip += e.slip[m];
        created += e.created[m];
    }
    printf("  energy       dissipated %.4g J (dashpots %.4g, slip %.4g), created %.4g J, "
           "external and constraint work %.4g J\n",
           dashpot + slip, dashpot, slip, created, e.external_work + e.constraint_work);
    /* The closure error against what entered. It is the integrator's (first
     * order in dt) only where that was checked (docs/energy.md: halve the
     * step); above the critical step it is an instability's. */
    const double dt = fd_world_time_step(world), critical = fd_world_critical_time_step(world);
    if (e.entered > 0.0) {
        printf("  closure      error %.3g J, %.2g%% of the %.4g J that entered", e.closure_error,
               100.0 * e.closure_error / e.entered, e.entered);
    } else {
        printf("  closure      error %.3g J (nothing entered)", e.closure_error);
    }
    if (dt > critical) {
        printf("; the step is %.3g x the critical step: expect it to grow (docs/models/critical-step.md)\n",
               dt / critical);
    } else {
        printf("; halve time.step to see how much of it is the integrator's (docs/energy.md)\n");
    }
    if (created > 0.0) {
        printf("               created: normal %.4g J, slide %.4g J, roll %.4g J, spin %.4g J (D-SDS spring "
               "resets; with the complementarity stepper the push-out of penetrations and the relaxation, "
               "docs/energy.md)\n",
               e.created[FD_MECHANISM_NORMAL], e.created[FD_MECHANISM_SLIDE], e.created[FD_MECHANISM_ROLL],
               e.created[FD_MECHANISM_SPIN]);
    }
}

/* Checkpoints (docs/restart.md): DIR/checkpoint.h5, replaced at every
 * multiple of output.checkpoint_interval the run reaches (with the outputs'
 * half step of slack) and at its end. The schedule counts from t = 0, so a
 * resumed run writes them at the times the uninterrupted run would. */
static double next_checkpoint_time(double interval, double time, double dt)
{
    return interval * (floor((time + 0.5 * dt) / interval) + 1.0);
}

static bool write_checkpoint(const fd_scene* scene, char* path, size_t size)
{
    snprintf(path, size, "%s/checkpoint.h5", scene->output.directory);
    if (fd_scene_write_checkpoint(scene, path) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        return false;
    }
    return true;
}

/* Stages (docs/stages.md): the first begins before the first output, each
 * later one after the step that finished the one before it, once that step's
 * outputs are written (so a checkpoint of that step holds the new stage).
 * *over: the last stage has finished. False after an error (printed). */
static bool advance_stage(fd_scene* scene, fd_output* output, bool quiet, bool* over)
{
    *over = false;
    if (fd_scene_stage_count(scene) == 0 || (scene->stage >= 0 && !fd_scene_stage_finished(scene))) {
        return true;
    }
    return stage_begin_next(scene, output, !quiet, NULL, over);
}

static int command_run(int argc, char** argv, bool resume)
{
    run_options options;
    int parsed = run_options_parse(argc, argv, resume, &options);
    if (parsed != 0) {
        return parsed;
    }
    if (options.help) {
        printf("%s%s", fricdem_usage_text, fricdem_help_text);
        run_options_free(&options);
        return 0;
    }
    if (launched_on_ranks()) {
#ifdef FRICDEM_HAVE_MPI
        int code = run_on_ranks(&options, resume);
        run_options_free(&options);
        return code;
#else
        run_options_free(&options);
        fprintf(stderr, "error: started by mpirun, but this fricdem was built without MPI (install libopenmpi-dev, "
                        "then build again)\n");
        return EXIT_USAGE;
#endif
    }
    const char* scene_path = options.scene_path;
    const char* out_dir = options.out_dir;
    const bool quiet = options.quiet;
    const bool overwrite = options.overwrite;

    fd_scene scene;
    const double load_start = now_seconds();
    progress loading = {.enabled = !quiet, .tty = isatty(2) != 0, .start = load_start, .next_tenth = 1};
    fd_status status = (resume ? fd_scene_resume_with_progress : fd_scene_load_with_progress)(
        scene_path, options.overrides, options.override_count, on_load_progress, &loading, &scene);
    const double load_seconds = now_seconds() - load_start;
    run_options_free(&options);
    if (status != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        return EXIT_USAGE;
    }
    if (out_dir) {
        if (strlen(out_dir) == 0 || strlen(out_dir) >= sizeof scene.output.directory) {
            fd_scene_free(&scene);
            return usage_error("--out: bad directory '%s'", out_dir);
        }
        snprintf(scene.output.directory, sizeof scene.output.directory, "%s", out_dir);
    }
    /* Before the first contact search (minutes for 10^7 bodies): an output
     * directory that cannot be used stops the run at once, nothing touched. */
    if (fd_output_claim_directory(scene.output.directory, overwrite) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    fd_world* world = scene.world;
    /* Contact details only for the steps whose contacts are written out:
     * the first state's here, the others' as fd_output_wants_contacts says. */
    fd_world_set_contact_output(world, FD_CONTACT_OUTPUT_ON_REQUEST);
    const bool writes_contacts = scene.output.contacts_csv || scene.output.vtu_interval > 0.0 ||
                                 (scene.output.trajectory && scene.output.trajectory_contacts);
    if (writes_contacts) {
        /* Recording costs: at 10^6 settled spheres, 1.3 GB and three times
         * the search itself. */
        fd_world_request_contacts(world);
    }
    const double prepare_start = now_seconds();
    if (!quiet && loading.tty && fd_world_body_count(world) >= 100000) {
        fprintf(stderr, "first contact search of %d bodies ...\033[K", fd_world_body_count(world));
        fflush(stderr);
    }
    const fd_status prepared = fd_world_prepare(world);
    if (!quiet && loading.tty && fd_world_body_count(world) >= 100000) {
        fprintf(stderr, "\r\033[K");
    }
    const double prepare_seconds = now_seconds() - prepare_start;
    if (prepared != FD_OK) {
        fprintf(stderr, "error: %s: %s\n", scene.path, fd_last_error());
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    for (int i = 0; i < fd_world_warning_count(world); ++i) {
        fprintf(stderr, "warning: %s\n", fd_world_warning_at(world, i));
    }

    const double dt = fd_world_time_step(world);
    /* A resumed run goes on to the scene's duration, counted from t = 0. */
    const long long resumed_at = fd_world_step_count(world);
    long long steps = llround(scene.duration / dt) > resumed_at ? llround(scene.duration / dt) - resumed_at : 0;
    const double checkpoint_interval = scene.output.checkpoint_interval;
    double next_checkpoint =
        checkpoint_interval > 0.0 ? next_checkpoint_time(checkpoint_interval, fd_world_time(world), dt) : INFINITY;
    char checkpoint_file[FD_PATH_MAX + 32] = "";
    int64_t checkpoint_step = -1; /* the step of the last checkpoint written */
    const int body_count = fd_world_live_body_count(world);
    int dynamic_count = 0;
    for (int i = 0; i < fd_world_body_count(world); ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        dynamic_count += fd_body_is_valid(world, id) && fd_body_get_info(world, id).type == FD_BODY_DYNAMIC;
    }
    if (!quiet) {
        fd_world_def def = fd_world_get_def(world);
        printf("fricdem %s: scene %s (%s)\n", FRICDEM_VERSION_STRING, scene.name, scene.path);
        if (resume) {
            printf("  resumed  from %s at step %lld, t = %.9g s\n", scene_path, resumed_at, fd_world_time(world));
        }
        printf("  bodies   %d (%d dynamic)\n", body_count, dynamic_count);
        for (int i = 0; i < fd_world_inlet_count(world); ++i) {
            fd_inlet_info inlet = fd_world_get_inlet_info(world, i);
            printf("  inlet    '%s': %lld spheres\n", inlet.name, (long long)inlet.count);
        }
        for (int i = 0; i < fd_world_outlet_count(world); ++i) {
            printf("  outlet   '%s'\n", fd_world_get_outlet_info(world, i).name);
        }
        printf("  steps    %lld x %g s = %g s (%s)\n", steps, dt, (double)steps * dt,
               def.integrator == FD_INTEGRATOR_VELOCITY_VERLET ? "velocity_verlet" : "symplectic_euler");
        const double critical = fd_world_critical_time_step(world);
        if (def.stepper == FD_STEPPER_PENALTY && isfinite(critical)) {
            /* docs/models/critical-step.md */
            printf("  critical %.3g s, the step is %.2g of it: %s\n", critical, dt / critical,
                   fd_world_critical_step_limit(world));
        }
        if (def.periodic[0] || def.periodic[1] || def.periodic[2]) {
            printf("  periodic");
            for (int a = 0; a < 3; ++a) {
                if (def.periodic[a]) {
                    double low = a == 0 ? def.box_min.x : (a == 1 ? def.box_min.y : def.box_min.z);
                    double high = a == 0 ? def.box_max.x : (a == 1 ? def.box_max.y : def.box_max.z);
                    printf(" %c [%g, %g) m", "xyz"[a], low, high);
                }
            }
            printf("\n");
        }
        printf("  outputs  %s\n", scene.output.directory);
        char load_text[32], prepare_text[32];
        format_duration(load_seconds, load_text, sizeof load_text);
        format_duration(prepare_seconds, prepare_text, sizeof prepare_text);
        long resident = status_memory_kb("VmRSS");
        printf("  loaded   in %s, first contact search %s", load_text, prepare_text);
        if (resident >= 0) {
            printf(", %.1f MiB resident", (double)resident / 1024.0);
        }
        printf("\n");
        fflush(stdout);
    }

    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends at once */
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);

    bool stages_over = false;
    if (!advance_stage(&scene, NULL, quiet, &stages_over)) { /* the first stage, unless resumed within one */
        fd_scene_free(&scene);
        return EXIT_RUN_FAILED;
    }
    const time_t started_at = time(NULL) - 1;
    fd_output* output = fd_output_open(world, &scene.output);
    if (!output) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        fd_scene_free(&scene);
        return EXIT_RUN_FAILED;
    }
    stage_apply_output(&scene, output); /* the first stage's, or the one a resumed run is in */
    int exit_code = 0;
    if (fd_output_write(output, world) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        exit_code = EXIT_RUN_FAILED;
    }
    bool output_warned = exit_code == 0 && warn_about_output_size(output, world, &scene);
    const double first_write_seconds = fd_output_get_cost(output).seconds; /* before the loop's wall time */
    /* The run's own stage times: prepare's first contact search is in the
     * header, not in the shares of the run's wall time. */
    const fd_world_profile profile_before = fd_world_get_profile(world);
    progress bar = {.enabled = !quiet, .tty = isatty(2) != 0, .total = steps, .next_tenth = 1};
    bar.start = now_seconds();
    bar.last_draw = bar.start - 1.0;
    long long done = 0;
    double particle_steps = 0.0; /* dynamic bodies summed over the steps (inlets add bodies) */
    const int static_count = body_count - dynamic_count; /* outlets remove dynamic bodies only */
    for (; exit_code == 0 && done < steps; ++done) {
        if (interrupted) {
            break;
        }
        /* A checkpoint's step records them too: a resumed run writes its first rows from the checkpoint. */
        bool checkpoint_next = checkpoint_interval > 0.0 &&
                               (done + 1 == steps || fd_world_time(world) + 1.5 * dt >= next_checkpoint);
        if (fd_output_wants_contacts(output, world) || (done + 1 == steps && fd_output_writes_contacts(output)) ||
            checkpoint_next) {
            fd_world_request_contacts(world); /* the last step's too: fd_output_close writes it */
        }
        if (fd_world_step(world) != FD_OK) {
            if (bar.tty && bar.enabled) {
                fprintf(stderr, "\r\033[K");
            }
            fprintf(stderr, "error: %s\n", fd_last_error());
            exit_code = EXIT_RUN_FAILED;
            break;
        }
        if (fd_output_write(output, world) != FD_OK) {
            if (bar.tty && bar.enabled) {
                fprintf(stderr, "\r\033[K");
            }
            fprintf(stderr, "error: %s\n", fd_last_error());
            exit_code = EXIT_RUN_FAILED;
            break;
        }
        if (!advance_stage(&scene, output, quiet, &stages_over)) {
            exit_code = EXIT_RUN_FAILED;
            break;
        }
        if (stages_over && steps > done + 2) {
            /* The last stage ended before the longest it may run (its kinetic
             * energy fell): one more step, whose contacts are recorded for the
             * final rows, ends the run. */
            steps = done + 2;
            bar.total = steps;
        }
        if (checkpoint_interval > 0.0 && fd_world_time(world) + 0.5 * dt >= next_checkpoint) {
            next_checkpoint = next_checkpoint_time(checkpoint_interval, fd_world_time(world), dt);
            if (!write_checkpoint(&scene, checkpoint_file, sizeof checkpoint_file)) {
                exit_code = EXIT_RUN_FAILED;
                break;
            }
            checkpoint_step = fd_world_step_count(world);
        }
        if (!output_warned && (done + 1) % 1024 == 0) { /* the contacts' rows grow as a pile settles */
            output_warned = warn_about_output_size(output, world, &scene);
        }
        particle_steps += (double)(fd_world_live_body_count(world) - static_count);
        progress_draw(&bar, done + 1, fd_world_time(world), false);
    }
    const double wall = now_seconds() - bar.start;
    if (exit_code == 0 && !interrupted) {
        progress_draw(&bar, done, fd_world_time(world), true);
    } else if (bar.tty && bar.enabled) {
        fprintf(stderr, "\r\033[K");
    }
    /* What the outputs cost, for the summary: before the close (which
     * frees the writer and writes at most the final state). */
    const fd_output_cost output_cost = fd_output_get_cost(output);
    /* A failed step leaves the last good state, an interrupt the last step
     * made, whose rows the close writes; not when that step's contacts,
     * which its rows need, were not recorded (the files then end at the
     * last output, every one alike). */
    bool final_rows = (exit_code == 0 && !interrupted) || fd_world_contacts_recorded(world) || !writes_contacts;
    if (!final_rows) {
        fprintf(stderr, "note: no rows of the %s step (its contact details were not recorded): the files end at the "
                        "last output\n", interrupted && exit_code == 0 ? "interrupted" : "last good");
    }
    if (fd_output_close(output, final_rows ? world : NULL) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        exit_code = exit_code ? exit_code : EXIT_RUN_FAILED;
    }
    /* The end state, so that a finished or interrupted run can go on; not
     * after a failed step, and not when the last step's contacts (which the
     * resumed run's first rows need) were not recorded. */
    if (checkpoint_interval > 0.0 && exit_code == 0 && checkpoint_step != fd_world_step_count(world)) {
        if (fd_world_contacts_recorded(world) || !writes_contacts) {
            if (!write_checkpoint(&scene, checkpoint_file, sizeof checkpoint_file)) {
                exit_code = EXIT_RUN_FAILED;
            }
        } else {
            fprintf(stderr, "warning: no checkpoint of the interrupted step (its contact details were not "
                            "recorded); %s is the last one written\n",
                    checkpoint_file[0] ? checkpoint_file : "there is none");
        }
    }
    /* An inlet behind its schedule is never silent, not even with --quiet. */
    for (int i = 0; i < fd_world_inlet_count(world); ++i) {
        fd_inlet_info inlet = fd_world_get_inlet_info(world, i);
        if (inlet.inserted < inlet.due) {
            fprintf(stderr,
                    "warning: inlet '%s' is %lld spheres behind its schedule at t = %g s (%lld of %lld due inserted): "
                    "its region was too full (%lld placements rejected); widen the region or lower the rate\n",
                    inlet.name, (long long)(inlet.due - inlet.inserted), fd_world_time(world),
                    (long long)inlet.inserted, (long long)inlet.due, (long long)inlet.rejected);
        }
    }
    if (interrupted && exit_code == 0) {
        fprintf(stderr, "interrupted at step %lld of %lld (t = %g s) by %s; outputs so far are in %s, closed\n", done,
                steps, fd_world_time(world), interrupted == SIGTERM ? "SIGTERM" : "SIGINT", scene.output.directory);
        exit_code = 128 + interrupted;
    } else if (exit_code != 0) {
        fprintf(stderr, "stopped at step %lld of %lld (t = %g s); outputs so far are in %s\n", done, steps,
                fd_world_time(world), scene.output.directory);
    }

    if (!quiet) {
        char wall_text[32];
        format_duration(wall, wall_text, sizeof wall_text);
        printf("%s: %lld steps, %g s simulated in %s wall\n", exit_code ? "stopped" : "done", done,
               fd_world_time(world), wall_text);
        const int final_dynamic = fd_world_live_body_count(world) - static_count;
        if (wall > 0 && done > 0) {
            if (final_dynamic == dynamic_count) {
                printf("  speed        %.3g particle-steps/s (%d dynamic bod%s)\n", particle_steps / wall,
                       dynamic_count, dynamic_count == 1 ? "y" : "ies");
            } else {
                printf("  speed        %.3g particle-steps/s (%d to %d dynamic bodies)\n", particle_steps / wall,
                       dynamic_count, final_dynamic);
            }
        }
        for (int i = 0; i < fd_world_inlet_count(world); ++i) {
            fd_inlet_info inlet = fd_world_get_inlet_info(world, i);
            printf("  inlet        '%s': %lld of %lld spheres inserted", inlet.name, (long long)inlet.inserted,
                   (long long)inlet.count);
            if (inlet.delayed > 0) {
                printf(", %lld late (region full; up to %.3g s)", (long long)inlet.delayed, inlet.max_delay);
            }
            printf("\n");
        }
        for (int i = 0; i < fd_world_outlet_count(world); ++i) {
            fd_outlet_info outlet = fd_world_get_outlet_info(world, i);
            printf("  outlet       '%s': %lld bodies removed, %.6g kg\n", outlet.name, (long long)outlet.removed,
                   outlet.removed_mass);
        }
        fd_world_profile profile = profile_since(fd_world_get_profile(world), profile_before);
        double staged = profile.broad_phase + profile.narrow_phase + profile.contact_models + profile.accumulate +
                        profile.integrate;
        if (staged > 0.0 && wall > 0.0) {
            /* Where the time went; the rest is output and bookkeeping. The
             * shares add up to 100 % (rounded each on its own they summed
             * to 98..102 %, and to more if stage timers ever overlap). */
            const double parts[6] = {profile.broad_phase, profile.narrow_phase, profile.contact_models,
                                     profile.accumulate,  profile.integrate,    fmax(0.0, wall - staged)};
            int share[6];
            fd_round_percentages(parts, 6, share);
            printf("  time         broad phase %d%%, narrow phase %d%%, contact models %d%%, accumulation %d%%, "
                   "integration %d%%, output and other %d%%\n",
                   share[0], share[1], share[2], share[3], share[4], share[5]);
            if (profile.contact_steps > 0.0) {
                printf("  contacts     %.3g contact-steps, %.3g ns per contact in the contact models\n",
                       profile.contact_steps, 1e9 * profile.contact_models / profile.contact_steps);
            }
            if (profile.neighbor_builds > 0 && profile.steps > 0) {
                /* What world.neighbor_skin and an inlet's clearance tune. */
                printf("  neighbours   list built %lld times in %lld passes", (long long)profile.neighbor_builds,
                       (long long)profile.steps);
                if (profile.neighbor_appended > 0) {
                    printf(", %lld inserted bodies joined it standing", (long long)profile.neighbor_appended);
                }
                printf("\n");
            }
            if (profile.solver_iterations > 0.0 && profile.contact_steps > 0.0 && profile.steps > 0) {
                /* complementarity stepper: contact_models is the solver's time */
                fd_solver_stats stats = fd_world_solver_stats(world);
                printf("  solver       %.1f iterations per step, %.3g ns per contact-iteration, last residual "
                       "%.3g m/s\n",
                       profile.solver_iterations / (double)profile.steps,
                       1e9 * profile.contact_models * (double)profile.steps /
                           (profile.contact_steps * profile.solver_iterations),
                       stats.residual);
            }
        }
        if (wall > 0.0 && done > 0 && final_dynamic > 0) {
            printf("  per step     %.3g ms, %.3g ns per particle-step\n", 1e3 * wall / (double)done,
                   1e9 * wall / particle_steps);
        }
        print_energy_summary(world);
        print_memory_summary(world);
        if (checkpoint_file[0]) {
            printf("  checkpoint   %s (resume: fricdem resume %s)\n", checkpoint_file, checkpoint_file);
        }
        /* The final state's bits in one number: two runs that agree here agree in every body's state. */
        printf("  state hash   0x%016llx\n", (unsigned long long)fd_world_state_hash(world));
        file_list files = files_written(scene.output.directory, started_at);
        printf("  outputs      %s/: ", scene.output.directory);
        print_files(&files);
        printf("\n");
        if (output_cost.bytes > 0.0) {
            /* Where the outputs' time went, and whether large blocks went
             * past the page cache (output.direct_io, docs/output-format.md). */
            double large = output_cost.direct_bytes + output_cost.cached_bytes;
            printf("  written      %.3g MB in %.3g s (the stepping loop's share: %.0f%%)", 1e-6 * output_cost.bytes,
                   output_cost.seconds,
                   wall > 0.0 ? 100.0 * (output_cost.seconds - first_write_seconds) / wall : 0.0);
            if (large > 0.0) {
                printf(", large blocks %.0f%% past the page cache", 100.0 * output_cost.direct_bytes / large);
            }
            printf("\n");
        }
        free_files(&files);
    }
    fd_scene_free(&scene);
    return exit_code;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "%s", fricdem_usage_text);
        return EXIT_USAGE;
    }
    const char* command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 || strcmp(command, "help") == 0) {
        printf("%s%s", fricdem_usage_text, fricdem_help_text);
        return 0;
    }
    if (strcmp(command, "--version") == 0 || strcmp(command, "-V") == 0) {
        printf("fricdem %s\n", FRICDEM_VERSION_STRING);
        return 0;
    }
    if (strcmp(command, "run") == 0) {
        return command_run(argc - 2, argv + 2, false);
    }
    if (strcmp(command, "resume") == 0) {
        return command_run(argc - 2, argv + 2, true);
    }
    if (strcmp(command, "import-lammps") == 0) {
        return command_import_lammps(argc - 1, argv + 1);
    }
    if (strcmp(command, "models") == 0) {
        if (argc > 2) {
            return usage_error("models takes no arguments (got '%s')", argv[2]);
        }
        return command_models();
    }
    if (strcmp(command, "scene-format") == 0) {
        if (argc > 2) {
            return usage_error("scene-format takes no arguments (got '%s')", argv[2]);
        }
        fd_scene_write_reference(stdout);
        return 0;
    }
    return usage_error("unknown command '%s' (see fricdem --help)", command);
}
