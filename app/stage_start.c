/* The command line's start of a stage (stage_start.h). Owns nothing; must
 * not decide when a stage ends (the callers sum the kinetic energy each
 * their own way). */
#include "stage_start.h"

#include <stdio.h>

#include "fricdem/fricdem.h"

void stage_apply_output(const fd_scene* scene, fd_output* output)
{
    if (output != NULL && fd_scene_stage_count(scene) > 0) {
        double csv_interval, vtu_interval;
        fd_scene_stage_output_intervals(scene, scene->stage, &csv_interval, &vtu_interval);
        fd_output_set_intervals(output, scene->world, csv_interval, vtu_interval);
    }
}

bool stage_begin_next(fd_scene* scene, fd_output* output, bool announce, const char* who, bool* over)
{
    *over = false;
    int count = fd_scene_stage_count(scene);
    int next = scene->stage + 1;
    if (next >= count) {
        *over = count > 0;
        return true;
    }
    if (fd_scene_begin_stage(scene, next) != FD_OK) {
        fprintf(stderr, "error%s%s: %s\n", who != NULL ? " " : "", who != NULL ? who : "", fd_last_error());
        return false;
    }
    stage_apply_output(scene, output);
    if (announce) {
        stage_announce(scene);
    }
    return true;
}

void stage_announce(const fd_scene* scene)
{
    int stage = scene->stage;
    printf("  stage    %d of %d '%s' from t = %.9g s (at most %g s)\n", stage + 1, fd_scene_stage_count(scene),
           fd_scene_stage_name(scene, stage), fd_world_time(scene->world), fd_scene_stage_duration(scene, stage));
    fflush(stdout);
}
