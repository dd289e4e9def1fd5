/* granular_gas: runs a granular-gas scene and measures its cooling and the
 * energy of every collision (docs/validation/granular_gas.md).
 *
 *   granular_gas SCENE [--out DIR] [--set key.path=value ...] [--samples N] [--quiet]
 *
 * The scene (e.g. scenes/gas/granular_gas.yaml) must be a gas the tracker
 * understands (experiments/gas_tracker.h: dynamic spheres of one material,
 * hooke + dsds or csds, no gravity); --set overrides its values as in
 * `fricdem run` (e.g. --set contacts.0.slide.model=dsds). The scene's own
 * output block is ignored. Writes into DIR (default out/<scene name>_gas):
 *
 *   temperature.csv  time, step, T_trans, T_rot (J per degree of freedom),
 *                    kinetic_trans, kinetic_rot, normal_spring, slide_spring,
 *                    created_ledger (fd_world_get_energy().created[SLIDE]),
 *                    created_slide (the tracker's own measure, gas_tracker.h),
 *                    contacts, collisions (begun so far), px, py, pz;
 *                    rows at step 0 and N (default 300) log-spaced steps;
 *   collisions.csv   one row per contact that began after step 0 (columns
 *                    of gas_collision: energies in J, speeds in m/s);
 *   summary.csv      name, value, unit: parameters, counts, run time.
 *
 * Exit status 0 on success, 1 if the run failed, 2 on bad usage or scene. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "gas_tracker.h"

static const char usage[] =
    "usage: granular_gas SCENE [--out DIR] [--set key.path=value ...] [--samples N] [--quiet]\n";

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* mkdir -p */
static bool make_directories(const char* path)
{
    char buffer[FD_PATH_MAX];
    snprintf(buffer, sizeof buffer, "%s", path);
    for (char* c = buffer + 1;; ++c) {
        if (*c == '/' || *c == '\0') {
            char saved = *c;
            *c = '\0';
            if (mkdir(buffer, 0777) != 0 && errno != EEXIST) {
                return false;
            }
            *c = saved;
            if (saved == '\0') {
                break;
            }
        }
    }
    struct stat info;
    return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

static FILE* open_output(const char* directory, const char* name)
{
    char path[FD_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    FILE* file = fopen(path, "w");
    if (!file) {
        fprintf(stderr, "error: cannot write %s\n", path);
    }
    return file;
}

static void write_sample(FILE* file, const gas_sample* s)
{
    fprintf(file, "%.17g,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%lld,%.17g,%.17g,%.17g\n", s->time,
            (long long)s->step, s->temperature_trans, s->temperature_rot, s->kinetic_trans, s->kinetic_rot,
            s->normal_spring, s->slide_spring, s->created_ledger, s->created_slide, s->contacts,
            (long long)s->collisions, s->momentum.x, s->momentum.y, s->momentum.z);
}

static void write_collisions(FILE* file, const gas_tracker* tracker)
{
    fputs("# units: -,-,-,-,-,-,-,J,J,J,J,J,J,J,J,J,m/s,m/s,-,-,J,J,-,-\n", file);
    fputs("id,body_i,body_j,first_step,last_step,binary,ended,energy_start,energy_end,kinetic_start,kinetic_end,"
          "spring_left,integration,model_work,bound,roundoff,normal_speed,tangential_speed,restitution,"
          "tangential_restitution,"
          "created_ledger,created_slide,steps,slip_steps\n",
          file);
    for (int k = 0; k < gas_tracker_collision_count(tracker); ++k) {
        const gas_collision* c = gas_tracker_collision_at(tracker, k);
        fprintf(file,
                "%llu,%d,%d,%lld,%lld,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                "%.17g,%.17g,%.17g,%d,%d\n",
                (unsigned long long)c->id, c->body_i, c->body_j, (long long)c->first_step, (long long)c->last_step,
                c->binary, c->ended, c->energy_start, c->energy_end, c->kinetic_start, c->kinetic_end, c->spring_left,
                c->integration, c->model_work, c->bound, c->roundoff, c->normal_speed, c->tangential_speed,
                c->restitution,
                c->tangential_restitution, c->created_ledger, c->created_slide, c->steps, c->slip_steps);
    }
}

int main(int argc, char** argv)
{
    const char* scene_path = NULL;
    const char* out = NULL;
    const char** overrides = calloc((size_t)argc, sizeof *overrides);
    int override_count = 0, samples = 300;
    bool quiet = false;
    for (int a = 1; a < argc; ++a) {
        if ((strcmp(argv[a], "--set") == 0 || strcmp(argv[a], "-s") == 0) && a + 1 < argc) {
            overrides[override_count++] = argv[++a];
        } else if ((strcmp(argv[a], "--out") == 0 || strcmp(argv[a], "-o") == 0) && a + 1 < argc) {
            out = argv[++a];
        } else if (strcmp(argv[a], "--samples") == 0 && a + 1 < argc) {
            samples = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--quiet") == 0 || strcmp(argv[a], "-q") == 0) {
            quiet = true;
        } else if (argv[a][0] != '-' && !scene_path) {
            scene_path = argv[a];
        } else {
            fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    if (!scene_path || samples < 1) {
        fprintf(stderr, "%s", usage);
        return 2;
    }
    fd_scene scene;
    if (fd_scene_load(scene_path, overrides, override_count, &scene) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        return 2;
    }
    free(overrides);
    fd_world* world = scene.world;
    if (fd_world_prepare(world) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        fd_scene_free(&scene);
        return 2;
    }
    for (int k = 0; k < fd_world_warning_count(world); ++k) {
        fprintf(stderr, "warning: %s\n", fd_world_warning_at(world, k));
    }
    char message[512];
    gas_tracker* tracker = gas_tracker_create(world, message, sizeof message);
    if (!tracker) {
        fprintf(stderr, "error: %s: %s\n", scene_path, message);
        fd_scene_free(&scene);
        return 2;
    }
    char directory[FD_PATH_MAX];
    snprintf(directory, sizeof directory, "%s", out ? out : "");
    if (!out) {
        snprintf(directory, sizeof directory, "out/%s_gas", scene.name);
    }
    if (!make_directories(directory)) {
        fprintf(stderr, "error: cannot create %s\n", directory);
        return 1;
    }
    FILE* temperature = open_output(directory, "temperature.csv");
    if (!temperature) {
        return 1;
    }
    fputs("# units: s,-,J,J,J,J,J,J,J,J,-,-,kg m/s,kg m/s,kg m/s\n"
          "time,step,T_trans,T_rot,kinetic_trans,kinetic_rot,normal_spring,slide_spring,created_ledger,"
          "created_slide,contacts,collisions,px,py,pz\n",
          temperature);

    const double dt = fd_world_time_step(world);
    const long long steps = llround(scene.duration / dt);
    const double ratio = pow((double)(steps > 1 ? steps : 2), 1.0 / samples);
    if (!quiet) {
        printf("granular_gas: %s, %d spheres, slide %s, %lld steps of %g s\n", scene_path, fd_world_body_count(world),
               gas_tracker_slide_model(tracker), steps, dt);
        fflush(stdout);
    }
    gas_tracker_observe(tracker, world);
    gas_sample first = gas_tracker_sample(tracker, world);
    write_sample(temperature, &first);
    double next = 1.0;
    double started = now_seconds();
    int exit_code = 0;
    for (long long s = 1; s <= steps; ++s) {
        if (fd_world_step(world) != FD_OK) {
            fprintf(stderr, "error: %s\n", fd_last_error());
            exit_code = 1;
            break;
        }
        if (gas_tracker_observe(tracker, world) != FD_OK) {
            fprintf(stderr, "error: out of memory\n");
            exit_code = 1;
            break;
        }
        if ((double)s >= next || s == steps) {
            gas_sample sample = gas_tracker_sample(tracker, world);
            write_sample(temperature, &sample);
            fflush(temperature);
            next = fmax(next * ratio, (double)s + 1.0);
            if (!quiet && s * 10 / steps != (s - 1) * 10 / steps) {
                printf("  step %lld/%lld  T_trans %.4g J  T_rot %.4g J  %.0f s\n", s, steps, sample.temperature_trans,
                       sample.temperature_rot, now_seconds() - started);
                fflush(stdout);
            }
        }
    }
    double wall = now_seconds() - started;
    gas_tracker_finish(tracker);
    fclose(temperature);

    FILE* collisions = open_output(directory, "collisions.csv");
    if (!collisions) {
        return 1;
    }
    write_collisions(collisions, tracker);
    fclose(collisions);

    /* Counts over the collisions that ended. */
    long long ended = 0, binary = 0, skipped = 0, open = 0, rises = 0, beyond = 0, rises_kinetic = 0, creating = 0;
    double worst = -INFINITY, worst_over_bound = -INFINITY;
    for (int k = 0; k < gas_tracker_collision_count(tracker); ++k) {
        const gas_collision* c = gas_tracker_collision_at(tracker, k);
        if (!c->ended) {
            ++open;
            continue;
        }
        ++ended;
        if (!c->binary) {
            ++skipped;
            continue;
        }
        ++binary;
        double rise = c->energy_end - c->energy_start;
        rises += rise > c->roundoff;
        beyond += rise > c->bound + c->roundoff;
        creating += c->model_work > c->roundoff;
        rises_kinetic += c->kinetic_end - c->energy_start > c->roundoff;
        worst = fmax(worst, rise / c->energy_start);
        worst_over_bound = fmax(worst_over_bound, (rise - c->bound) / c->energy_start);
    }
    FILE* summary = open_output(directory, "summary.csv");
    if (!summary) {
        return 1;
    }
    fprintf(summary, "name,value,unit\n");
    fprintf(summary, "scene,%s,-\nslide_model,%s,-\n", scene_path, gas_tracker_slide_model(tracker));
    fprintf(summary, "bodies,%d,-\nsteps,%lld,-\ntime_step,%.17g,s\n", fd_world_body_count(world), steps, dt);
    const char* params[] = {"k_n", "restitution", "k_t", "gamma_t", "mu"};
    const char* units[] = {"N/m", "-", "N/m", "N s/m", "-"};
    for (int k = 0; k < 5; ++k) {
        fprintf(summary, "%s,%.17g,%s\n", params[k], gas_tracker_param(tracker, params[k]), units[k]);
    }
    fprintf(summary, "collisions_ended,%lld,-\ncollisions_open_at_end,%lld,-\n", ended, open);
    fprintf(summary, "binary,%lld,-\nskipped_not_binary,%lld,-\n", binary, skipped);
    fprintf(summary, "rises,%lld,-\nrises_beyond_bound,%lld,-\nrises_kinetic_only,%lld,-\nmodel_work_positive,%lld,-\n",
            rises, beyond, rises_kinetic, creating);
    fprintf(summary, "largest_relative_rise,%.17g,-\nlargest_relative_rise_over_bound,%.17g,-\n", worst,
            worst_over_bound);
    fprintf(summary, "wall_seconds,%.6g,s\nparticle_steps_per_second,%.6g,1/s\n", wall,
            (double)fd_world_body_count(world) * (double)steps / wall);
    fclose(summary);
    if (!quiet) {
        printf("done in %.1f s: %lld collisions ended (%lld binary, %lld skipped as not binary, %lld open at the "
               "end); binary collisions with an energy rise: %lld, beyond the integration bound: %lld; "
               "output in %s\n",
               wall, ended, binary, skipped, open, rises, beyond, directory);
    }
    gas_tracker_free(tracker);
    fd_scene_free(&scene);
    return exit_code;
}
