/* Stages of a scene (issue 12, item 5; docs/stages.md): each begins when the
 * one before it ends (its duration, or its kinetic energy below a threshold)
 * and applies its changes: wall motions, inlets paused or resumed, gravity.
 * A run resumed from a checkpoint inside a stage ends in the same bits. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/world.h"

TestSuite(stages, .init = make_dir, .fini = remove_dir);

#define HEADER                                                                                                         \
    "time: {step: 2.0e-5}\n"                                                                                           \
    "world: {gravity: [0, 0, -9.81]}\n"                                                                                \
    "materials:\n  - {name: grain, density: 2500}\n"                                                                   \
    "contacts:\n"                                                                                                      \
    "  - materials: [grain, grain]\n"                                                                                  \
    "    normal: {model: hooke, k_n: 2.0e4, restitution: 0.3}\n"                                                       \
    "    slide: {model: dsds, k_t: 6000, gamma_t: 0.5, mu: 0.5}\n"

/* A pour onto a floor, a settling, then a blade that pushes and a gravity
 * that changes: every kind of stage change. */
static const char* const pour_push =
    HEADER "bodies:\n"
           "  - {name: floor, static: true, material: grain, shape: {type: plane}}\n"
           "  - {name: blade, static: true, material: grain, shape: {type: plane, normal: [1, 0, 0]},\n"
           "     position: [-0.03, 0, 0]}\n"
           "inlets:\n"
           "  - name: pour\n"
           "    material: grain\n"
           "    radius: 0.004\n"
           "    region: {box: {min: [-0.02, -0.02, 0.03], max: [0.02, 0.02, 0.06]}}\n"
           "    rate: 200\n"
           "    count: 1000\n"
           "    seed: 3\n"
           "stages:\n"
           "  - {name: fill, duration: 0.1}\n"
           "  - name: settle\n"
           "    duration: 0.1\n"
           "    inlets: [{inlet: pour, active: false}]\n"
           "  - name: push\n"
           "    duration: 0.1\n"
           "    motions: [{body: blade, motion: {velocity: [0.2, 0, 0], velocity_ramp: 0.02}}]\n"
           "    gravity: [0, 0, -5]\n"
           "    inlets: [{inlet: pour, active: true}]\n";

/* The CLI's loop (app/fricdem.c): the first stage before the first step,
 * each later one after the step that finished the one before. Runs until
 * the last stage has finished or `step_limit` steps were taken. */
static void run_stages(fd_scene* scene, int64_t step_limit)
{
    if (scene->stage < 0) {
        cr_assert_eq(fd_scene_begin_stage(scene, 0), FD_OK, "%s", fd_last_error());
    }
    while (fd_world_step_count(scene->world) < step_limit) {
        cr_assert_eq(fd_world_step(scene->world), FD_OK, "%s", fd_last_error());
        if (fd_scene_stage_finished(scene)) {
            if (scene->stage + 1 == fd_scene_stage_count(scene)) {
                return;
            }
            cr_assert_eq(fd_scene_begin_stage(scene, scene->stage + 1), FD_OK, "%s", fd_last_error());
        }
    }
}

Test(stages, each_stage_begins_at_the_end_of_the_last_and_applies_its_changes)
{
    fd_scene scene;
    cr_assert_eq(fd_scene_load(write_scene("pour_push.yaml", pour_push), NULL, 0, &scene), FD_OK, "%s",
                 fd_last_error());
    cr_assert_eq(fd_scene_stage_count(&scene), 3);
    cr_assert_float_eq(scene.duration, 0.3, 1e-12, "the run is as long as its stages");
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    /* Fill: 0.1 s = 5000 steps at 200 spheres/s: 20 spheres (the schedule's floor). */
    run_stages(&scene, 5000);
    cr_assert_eq(scene.stage, 1, "after 5000 steps the settle stage has begun");
    cr_assert_float_eq(scene.stage_start_time, 0.1, 1e-12);
    cr_assert_eq(fd_world_get_inlet_info(scene.world, 0).inserted, 20);
    /* Settle: paused, not one sphere more. */
    run_stages(&scene, 10000);
    cr_assert_eq(scene.stage, 2);
    cr_assert_eq(fd_world_get_inlet_info(scene.world, 0).inserted, 20, "a paused inlet pours nothing");
    fd_world_def def = fd_world_get_def(scene.world);
    cr_assert_float_eq(def.gravity.z, -5.0, 0.0, "the push stage sets gravity");
    /* Push: the inlet goes on where it stopped (its schedule stood still for
     * the 0.1 s of settle: 20 + 200 x 0.05 s = 30 at t = 0.25 s); the blade
     * ramps to 0.2 m/s over 0.02 s from t = 0.2 s. */
    run_stages(&scene, 12500);
    cr_assert_eq(fd_world_get_inlet_info(scene.world, 0).inserted, 30);
    fd_body_state blade = fd_body_get_state(scene.world, fd_world_find_body(scene.world, "blade"));
    cr_assert_float_eq(blade.velocity.x, 0.2, 1e-12);
    cr_assert_float_eq(blade.position.x, -0.03 + 0.2 * (0.05 - 0.01), 1e-12);
    run_stages(&scene, INT64_MAX);
    cr_assert_eq(fd_world_step_count(scene.world), 15000, "the last stage ends the run at 0.3 s");
    fd_scene_free(&scene);
}

/* An outlet closed by the first stage keeps the spheres in its region; the
 * stage that opens it removes them after its first step (outlets act after
 * each step, src/engine/outlet.c). */
Test(stages, a_stage_closes_and_opens_an_outlet)
{
    static const char text[] =
        HEADER "bodies:\n"
               "  - {name: a, material: grain, shape: {type: sphere, radius: 0.004}, position: [0, 0, 0]}\n"
               "  - {name: b, material: grain, shape: {type: sphere, radius: 0.004}, position: [0.1, 0, 0]}\n"
               "outlets:\n"
               "  - {name: drain, region: {half_space: {point: [0, 0, 1], normal: [0, 0, 1]}}}\n"
               "stages:\n"
               "  - {name: closed, duration: 0.01, outlets: [{outlet: drain, active: false}]}\n"
               "  - {name: open, duration: 0.01, outlets: [{outlet: drain, active: true}]}\n";
    fd_scene scene = load_prepared_scene("drain.yaml", text);
    run_stages(&scene, 500); /* 0.01 s: the whole closed stage */
    cr_assert_eq(scene.stage, 1);
    cr_assert_eq(fd_world_live_body_count(scene.world), 2, "a closed outlet removes nothing");
    cr_assert_eq(fd_world_get_outlet_info(scene.world, 0).removed, 0);
    run_stages(&scene, 501);
    cr_assert_eq(fd_world_live_body_count(scene.world), 0, "the opened outlet removes both after one step");
    cr_assert_eq(fd_world_get_outlet_info(scene.world, 0).removed, 2);
    fd_scene_free(&scene);
}

/* A stage's output intervals hold from its start: rows every 5 ms in the
 * first stage, every 2 ms in the second, at multiples of the interval from
 * t = 0 (the CLI's loop: the stage begins after the step's rows). */
Test(stages, a_stage_changes_the_output_interval)
{
    char text[2048];
    snprintf(text, sizeof text,
             HEADER "bodies:\n"
                    "  - {name: a, material: grain, shape: {type: sphere, radius: 0.004}, position: [0, 0, 0]}\n"
                    "output: {directory: %s/out, csv_interval: 0.001, energy_csv: false}\n"
                    "stages:\n"
                    "  - {name: coarse, duration: 0.01, output: {csv_interval: 0.005}}\n"
                    "  - {name: fine, duration: 0.01, output: {csv_interval: 0.002}}\n",
             temp_dir);
    fd_scene scene = load_prepared_scene("intervals.yaml", text);
    cr_assert_eq(fd_scene_begin_stage(&scene, 0), FD_OK, "%s", fd_last_error());
    fd_output* output = fd_output_open(scene.world, &scene.output);
    cr_assert_not_null(output, "%s", fd_last_error());
    double csv_interval, vtu_interval;
    fd_scene_stage_output_intervals(&scene, 0, &csv_interval, &vtu_interval);
    cr_assert_eq(csv_interval, 0.005);
    fd_output_set_intervals(output, scene.world, csv_interval, vtu_interval);
    cr_assert_eq(fd_output_write(output, scene.world), FD_OK, "%s", fd_last_error());
    for (int step = 0; step < 1000; ++step) {
        cr_assert_eq(fd_world_step(scene.world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_output_write(output, scene.world), FD_OK, "%s", fd_last_error());
        if (fd_scene_stage_finished(&scene) && scene.stage == 0) {
            cr_assert_eq(fd_scene_begin_stage(&scene, 1), FD_OK, "%s", fd_last_error());
            fd_scene_stage_output_intervals(&scene, 1, &csv_interval, &vtu_interval);
            fd_output_set_intervals(output, scene.world, csv_interval, vtu_interval);
        }
    }
    cr_assert_eq(fd_output_close(output, scene.world), FD_OK, "%s", fd_last_error());
    fd_scene_free(&scene);

    /* The step is 2e-5 s: rows at steps 0, 250, 500 (5 ms), then every 100 steps (2 ms) to 1000. */
    const int64_t expected[] = {0, 250, 500, 600, 700, 800, 900, 1000};
    const char* path = temp_path("out/bodies.csv");
    FILE* file = fopen(path, "r");
    cr_assert_not_null(file);
    char line[1024];
    int rows = 0;
    while (fgets(line, sizeof line, file)) {
        double time;
        long long step;
        if (line[0] == '#' || sscanf(line, "%lf,%lld,", &time, &step) != 2) {
            continue;
        }
        cr_assert_lt(rows, 8, "more rows than expected (step %lld)", step);
        cr_assert_eq(step, expected[rows], "row %d at step %lld, expected %lld", rows, step,
                     (long long)expected[rows]);
        ++rows;
    }
    fclose(file);
    cr_assert_eq(rows, 8);
}

Test(stages, a_stage_ends_when_the_kinetic_energy_falls_below_its_threshold)
{
    /* A sphere dropped 1 cm onto a damped floor bounces and comes to rest:
     * the stage ends at the first step whose kinetic energy is below 1e-9 J,
     * long before its 2 s, and not before its min_duration. */
    const char* text = HEADER "bodies:\n"
                              "  - {name: floor, static: true, material: grain, shape: {type: plane}}\n"
                              "  - {name: ball, material: grain, shape: {type: sphere, radius: 0.005}, "
                              "position: [0, 0, 0.015]}\n"
                              "stages:\n"
                              "  - {name: drop, duration: 2.0, until_kinetic_energy: 1.0e-9, min_duration: 0.01}\n"
                              "  - {name: rest, duration: 0.01}\n";
    fd_scene scene = load_prepared_scene("drop.yaml", text);
    cr_assert_eq(fd_scene_begin_stage(&scene, 0), FD_OK, "%s", fd_last_error());
    double previous = INFINITY;
    while (!fd_scene_stage_finished(&scene)) {
        fd_world_energy e = fd_world_get_energy(scene.world);
        previous = e.kinetic_translational + e.kinetic_rotational;
        cr_assert_eq(fd_world_step(scene.world), FD_OK, "%s", fd_last_error());
    }
    fd_world_energy e = fd_world_get_energy(scene.world);
    double t = fd_world_time(scene.world);
    cr_expect_lt(e.kinetic_translational + e.kinetic_rotational, 1e-9);
    cr_expect(previous >= 1e-9 || t <= 0.01 + 1e-9, "the stage went on a step after the condition held");
    cr_expect_gt(t, 0.01);
    cr_expect_lt(t, 1.0, "ended at t = %g s, long before its 2 s", t);
    fd_scene_free(&scene);
}

Test(stages, a_run_resumed_inside_a_stage_ends_in_the_same_bits)
{
    /* Checkpoints at t = 0.15 s (inside settle: paused inlet) and 0.25 s
     * (inside push: a moving blade, changed gravity, resumed inlet), each
     * resumed to the end: the state hash of the uninterrupted run. */
    const char* path = write_scene("pour_push.yaml", pour_push);
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    const int64_t at[2] = {7500, 12500};
    char checkpoint[2][300];
    for (int k = 0; k < 2; ++k) {
        run_stages(&scene, at[k]);
        snprintf(checkpoint[k], sizeof checkpoint[k], "%s/checkpoint_%d.h5", temp_dir, k);
        cr_assert_eq(fd_scene_write_checkpoint(&scene, checkpoint[k]), FD_OK, "%s", fd_last_error());
    }
    run_stages(&scene, INT64_MAX);
    uint64_t uninterrupted = fd_world_state_hash(scene.world);
    fd_scene_free(&scene);
    for (int k = 0; k < 2; ++k) {
        fd_scene resumed;
        cr_assert_eq(fd_scene_resume(checkpoint[k], NULL, 0, &resumed), FD_OK, "%s", fd_last_error());
        cr_assert_eq(resumed.stage, k + 1);
        run_stages(&resumed, INT64_MAX);
        cr_expect_eq(fd_world_state_hash(resumed.world), uninterrupted, "resumed at step %lld", (long long)at[k]);
        fd_scene_free(&resumed);
    }
}

static void expect_error(const char* name, const char* text, const char* where, const char* what)
{
    fd_scene scene;
    cr_expect_eq(fd_scene_load(write_scene(name, text), NULL, 0, &scene), FD_ERR_PARSE, "%s", name);
    cr_expect(strstr(fd_last_error(), where) != NULL && strstr(fd_last_error(), what) != NULL, "%s: %s", name,
              fd_last_error());
}

Test(stages, a_wrong_name_or_value_in_a_stage_is_an_error_at_its_line)
{
    const char* floor = "bodies:\n  - {name: floor, static: true, material: grain, shape: {type: plane}}\n";
    char text[2048];
    snprintf(text, sizeof text,
             "%s%sstages:\n  - name: a\n    duration: 0.1\n    motions: [{body: flor, motion: {}}]\n", HEADER, floor);
    expect_error("typo.yaml", text, ":14: stages[0].motions[0].body", "no body is named 'flor'");
    snprintf(text, sizeof text, "%s%sstages:\n  - {name: a, duration: 0.1}\n  - {name: a, duration: 0.1}\n", HEADER,
             floor);
    expect_error("twice.yaml", text, ":13: stages[1].name", "another stage is named 'a'");
    snprintf(text, sizeof text, "%s%sstages:\n  - {name: a, duration: 0.1, min_duration: 0.2}\n", HEADER, floor);
    expect_error("min.yaml", text, "stages[0].min_duration", "must not exceed");
    snprintf(text, sizeof text, "%s%sstages:\n  - {name: a, duration: 0.1, inlets: [{inlet: pour, active: false}]}\n",
             HEADER, floor);
    expect_error("inlet.yaml", text, "stages[0].inlets[0].inlet", "no inlet is named 'pour'");
    snprintf(text, sizeof text, "%s%s", HEADER, floor);
    expect_error("no_duration.yaml", text, "time.duration", "required key is missing");
}
