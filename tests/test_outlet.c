/* Outlets (src/engine/outlet.c, src/io/scene_outlet.c, outlets.csv): a
 * half-space below a column of falling spheres removes exactly those that
 * cross it, at the step they cross, with their mass, and the energy ledger
 * still closes, to the integrator's known error; boxes and balls take the
 * bodies whose centre is inside (faces included for a box), not those that
 * only reach in; a body in two regions counts for the first outlet; an
 * outlet waits for its start time; static bodies stay; bad defs and bad
 * scene entries fail with a message (FILE:LINE: KEY, exit 2 from the CLI);
 * outlets.csv has its units and rows that add up to the totals. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/file.h"
#include "support/world.h"

/* ---------------------------------------------------------------- worlds */

/* The outlet tests' world: hooke only, the energy ledger on, one material
 * "glass" of 2500 kg/m^3. */
static fd_world* make_world(fd_vec3 gravity, fd_material_id* material)
{
    fd_world_def wd = test_world_def(1e-4, gravity);
    wd.energy_ledger = true;
    fd_world* world = test_create_world(&wd);
    *material = test_add_solid_material(world, "glass", 2500.0, 0.0);
    fd_contact_law_def law = test_hooke_law(1e4, 0.3);
    test_set_law(world, *material, &law);
    return world;
}

static fd_body_id add_sphere(fd_world* world, fd_material_id material, double radius, fd_vec3 position,
                             fd_vec3 velocity)
{
    return test_add_sphere(world, material, NULL, radius, position, velocity);
}

/* An outlet that takes the bodies whose centre is in the box [lo, hi]. */
static fd_outlet_def box_outlet(const char* name, fd_vec3 lo, fd_vec3 hi)
{
    fd_outlet_def def = fd_default_outlet_def();
    def.name = name;
    def.box_min = lo;
    def.box_max = hi;
    return def;
}

/* ---------------------------------------------------------------- a falling column */

Test(outlet, a_half_space_below_a_falling_column_removes_exactly_the_spheres_that_cross_it)
{
    const double g = 9.81, dt = 1e-4, floor_z = -0.5;
    fd_material_id glass;
    fd_world* world = make_world(fd_v3(0, 0, -g), &glass);
    enum { N = 20, STEPS = 5000 };
    fd_body_id ids[N];
    double mass[N], z[N], v[N];
    for (int i = 0; i < N; ++i) {
        z[i] = 0.05 + 0.1 * i, v[i] = 0.0;
        ids[i] = add_sphere(world, glass, 0.01 + 0.0005 * i, fd_v3(0.0, 0.0, z[i]), fd_v3(0, 0, 0));
        mass[i] = fd_body_get_info(world, ids[i]).mass;
    }
    fd_outlet_def below = fd_default_outlet_def();
    below.name = "below";
    below.shape = FD_OUTLET_HALF_SPACE;
    below.point = fd_v3(3.0, -7.0, floor_z); /* any point of the plane z = -0.5 */
    below.normal = fd_v3(0.0, 0.0, 2.0);     /* normalised by the world */
    test_add_outlet(world, &below);
    cr_assert_eq(fd_world_outlet_count(world), 1);

    bool gone[N] = {false};
    int64_t removed = 0, steps_in[N] = {0};
    double removed_mass = 0.0, carried = 0.0;
    for (int n = 1; n <= STEPS; ++n) {
        test_step(world);
        for (int i = 0; i < N; ++i) { /* symplectic Euler in free fall, as the world steps */
            if (!gone[i]) {
                v[i] -= dt * g;
                z[i] += dt * v[i];
                steps_in[i]++; /* the step it leaves after counts: it was stepped */
            }
        }
        for (int i = 0; i < N; ++i) { /* ascending index: the order the outlet adds the masses in */
            bool valid = fd_body_is_valid(world, ids[i]);
            if (gone[i]) {
                cr_assert_not(valid, "a removed sphere came back");
                continue;
            }
            if (valid) {
                double zi = fd_body_get_state(world, ids[i]).position.z;
                cr_assert_geq(zi, floor_z, "sphere %d is below the outlet's plane after step %d", i, n);
                cr_assert_float_eq(zi, z[i], 1e-9);
            } else {
                cr_assert_lt(z[i], floor_z + 1e-9, "sphere %d was removed at step %d above the plane (z = %g)", i,
                             n, z[i]);
                gone[i] = true;
                removed++;
                removed_mass += mass[i];
                carried += 0.5 * mass[i] * v[i] * v[i] + mass[i] * g * z[i];
            }
        }
        fd_outlet_info info = fd_world_get_outlet_info(world, 0);
        cr_assert_eq(info.removed, removed, "step %d", n);
        cr_assert_eq(info.removed_mass, removed_mass, "step %d: the masses of the removed spheres", n);
    }
    /* After 0.5 s a sphere has fallen g t^2 / 2 (+ g dt t / 2, symplectic
     * Euler) = 1.2288 m: those from below 0.7288 m, the first 7, are out. */
    cr_assert_eq(removed, 7);
    cr_assert_str_eq(fd_world_get_outlet_info(world, 0).name, "below");
    cr_assert_eq(fd_world_live_body_count(world), N - 7);
    /* The ledger: what left is booked, and the books close to the
     * integrator's own error, -m g^2 dt^2 / 2 per body and step of free
     * fall (docs/energy.md), of the steps each body was in the world. */
    fd_world_energy e = fd_world_get_energy(world);
    cr_assert_float_eq(e.removed, carried, 1e-9 * fabs(carried));
    double expected = 0.0;
    for (int i = 0; i < N; ++i) {
        expected -= 0.5 * g * g * dt * dt * mass[i] * (double)steps_in[i];
    }
    cr_assert_lt(expected, 0.0);
    cr_assert_float_eq(e.closure_error, expected, 1e-6 * fabs(expected), "closure %.9g J, expected %.9g J",
                       e.closure_error, expected);
    /* What entered is the work of gravity on every sphere, until it left for those that left. */
    double work = 0.0;
    for (int i = 0; i < N; ++i) {
        work += mass[i] * g * (0.05 + 0.1 * i - z[i]);
    }
    cr_assert_float_eq(e.entered, work, 1e-9 * work, "entered %.9g J, gravity's work %.9g J", e.entered, work);
    fd_world_free(world);
}

/* ---------------------------------------------------------------- regions */

Test(outlet, boxes_and_balls_take_the_bodies_whose_centre_is_inside)
{
    fd_material_id glass;
    fd_world* world = make_world(fd_v3(0, 0, 0), &glass);
    fd_outlet_def box = box_outlet("box", fd_v3(0.0, 0.0, 0.0), fd_v3(1.0, 1.0, 1.0));
    test_add_outlet(world, &box);
    fd_outlet_def ball = fd_default_outlet_def();
    ball.name = "ball";
    ball.shape = FD_OUTLET_SPHERE;
    ball.center = fd_v3(0.9, 0.5, 0.5); /* overlaps the box: a body in both counts for the box */
    ball.radius = 0.3;
    test_add_outlet(world, &ball);
    struct {
        fd_vec3 at;
        int outlet; /* -1: stays */
    } cases[] = {
        {{0.5, 0.5, 0.5}, 0},    /* in the box */
        {{1.0, 1.0, 1.0}, 0},    /* on the box's corner: faces belong to it */
        {{1.1, 0.5, 0.5}, 1},    /* in the ball, out of the box */
        {{1.0, 0.5, 0.5}, 0},    /* in both: the box was added first */
        {{1.05, 1.05, 0.5}, -1}, /* near both, in neither (its surface reaches into both) */
        {{0.5, 0.5, -0.02}, -1}, /* its surface reaches into the box */
        {{1.25, 0.5, 0.5}, -1},  /* 0.35 from the ball's centre */
    };
    enum { CASES = sizeof cases / sizeof cases[0] };
    fd_body_id ids[CASES];
    double expected_mass[2] = {0.0, 0.0};
    int expected_count[2] = {0, 0};
    for (int k = 0; k < CASES; ++k) {
        ids[k] = add_sphere(world, glass, 0.05, cases[k].at, fd_v3(0, 0, 0));
        if (cases[k].outlet >= 0) {
            expected_count[cases[k].outlet]++;
            expected_mass[cases[k].outlet] += fd_body_get_info(world, ids[k]).mass;
        }
    }
    fd_body_def wall = fd_default_body_def(); /* a static body in the box stays */
    wall.type = FD_BODY_STATIC;
    wall.material = glass;
    wall.shape.radius = 0.1;
    wall.position = fd_v3(0.2, 0.2, 0.2);
    fd_body_id fixed = fd_world_create_body(world, &wall);
    cr_assert(!fd_body_id_is_null(fixed), "%s", fd_last_error());
    test_step(world);
    for (int k = 0; k < CASES; ++k) {
        cr_assert_eq(fd_body_is_valid(world, ids[k]), cases[k].outlet < 0, "case %d", k);
    }
    cr_assert(fd_body_is_valid(world, fixed), "a static body is never removed");
    for (int i = 0; i < 2; ++i) {
        fd_outlet_info info = fd_world_get_outlet_info(world, i);
        cr_assert_eq(info.removed, expected_count[i], "outlet %d", i);
        cr_assert_float_eq(info.removed_mass, expected_mass[i], 1e-15);
    }
    cr_assert_str_eq(fd_world_get_outlet_info(world, 2).name, "", "out of range");
    fd_world_free(world);
}

Test(outlet, an_outlet_waits_for_its_start_time)
{
    fd_material_id glass;
    fd_world* world = make_world(fd_v3(0, 0, 0), &glass);
    fd_outlet_def def = box_outlet("late", fd_v3(-1, -1, -1), fd_v3(1, 1, 1));
    def.start_time = 0.003; /* after the 30th step of 1e-4 s (30 x 1e-4 rounds below 0.003) */
    test_add_outlet(world, &def);
    fd_body_id id = add_sphere(world, glass, 0.01, fd_v3(0, 0, 0), fd_v3(0, 0, 0));
    for (int n = 1; n < 30; ++n) {
        test_step(world);
        cr_assert(fd_body_is_valid(world, id), "removed at step %d, before the start", n);
    }
    test_step(world);
    cr_assert_not(fd_body_is_valid(world, id), "not removed at the step that reaches the start");
    cr_assert_eq(fd_world_get_outlet_info(world, 0).removed, 1);
    fd_world_free(world);
}

static void expect_bad(fd_world* world, const fd_outlet_def* def, const char* fragment)
{
    cr_assert_eq(fd_world_add_outlet(world, def), FD_ERR_INVALID_ARGUMENT, "accepted (%s)", fragment);
    cr_assert(strstr(fd_last_error(), fragment), "message\n  %s\nlacks\n  %s", fd_last_error(), fragment);
}

Test(outlet, bad_defs_fail_with_a_message)
{
    fd_material_id glass;
    fd_world* world = make_world(fd_v3(0, 0, -9.81), &glass);
    fd_outlet_def good = fd_default_outlet_def();
    good.name = "o";
    good.box_max = fd_v3(1, 1, 1);
    fd_outlet_def def = good;
    def.name = NULL;
    expect_bad(world, &def, "name is required");
    def = good;
    def.box_max = fd_v3(1, 0, 1);
    expect_bad(world, &def, "box_max must exceed box_min on every axis (y: min 0 m, max 0 m)");
    def = good;
    def.box_min = fd_v3(NAN, 0, 0);
    expect_bad(world, &def, "finite");
    def = good;
    def.shape = FD_OUTLET_HALF_SPACE;
    def.normal = fd_v3(0, 0, 0);
    expect_bad(world, &def, "non-zero normal");
    def = good;
    def.shape = FD_OUTLET_SPHERE;
    def.radius = 0.0;
    expect_bad(world, &def, "radius > 0 m");
    def = good;
    def.start_time = -1.0;
    expect_bad(world, &def, "start_time must be a finite number >= 0 s");
    def = good;
    def.shape = (fd_outlet_shape)7;
    expect_bad(world, &def, "unknown shape 7");
    test_add_outlet(world, &good);
    expect_bad(world, &good, "name already used");
    add_sphere(world, glass, 0.01, fd_v3(5, 5, 5), fd_v3(0, 0, 0));
    test_step(world);
    def = good;
    def.name = "later";
    expect_bad(world, &def, "before the first step");
    fd_world_free(world);
}

/* ---------------------------------------------------------------- scenes, outputs, CLI */

TestSuite(outlet_files, .init = make_dir, .fini = remove_dir);

/* A column of spheres falling under gravity onto nothing. Lines 1-9 are
 * the head; an outlet entry starts at line 10. */
#define SCENE_HEAD                                                                                                     \
    "time: {step: 1.0e-4, duration: 0.5}\n"                                                                            \
    "materials: [{name: glass, density: 2500}]\n"                                                                      \
    "contacts:\n"                                                                                                      \
    "  - {materials: [glass, glass], normal: {model: hooke, k_n: 1.0e4, restitution: 0.3}}\n"                          \
    "generators:\n"                                                                                                    \
    "  - {type: lattice, count: 20, name_prefix: s, material: glass, radius: 0.01,\n"                                  \
    "     region: {min: [-0.011, -0.011, 0.0], max: [0.011, 0.011, 2.0]}}\n"                                         \
    "output: {csv_interval: 0.05, bodies_csv: false, contacts_csv: false, energy_csv: true}\n"                        \
    "outlets:\n"

Test(outlet_files, scene_outlets_load_with_their_values)
{
    fd_scene scene = load_scene_entries("good.yaml", SCENE_HEAD
                                        "  - name: drain\n"
                                        "    region: {half_space: {point: [0, 0, -0.5], normal: [0, 0, 3]}}\n"
                                        "  - name: side\n"
                                        "    region: {box: {min: [1, 1, 1], max: [2, 2, 2]}}\n"
                                        "    start: 0.25\n"
                                        "  - {name: ball, region: {sphere: {center: [5, 0, 0], radius: 0.5}}}\n",
                                        "outlets.side.start=0.3", fd_world_outlet_count, 3);
    cr_assert_str_eq(fd_world_get_outlet_info(scene.world, 0).name, "drain");
    cr_assert_str_eq(fd_world_get_outlet_info(scene.world, 2).name, "ball");
    cr_assert(scene.output.outlets_csv, "outlets.csv is on by default");
    test_run(scene.world, 5000);
    cr_assert_gt(fd_world_get_outlet_info(scene.world, 0).removed, 0);
    cr_assert_eq(fd_world_get_outlet_info(scene.world, 1).removed, 0);
    fd_scene_free(&scene);
}

/* SCENE_HEAD and the name of an outlet (line 10): its keys start at line 11. */
#define OUTLET_A SCENE_HEAD "  - name: a\n"

Test(outlet_files, bad_scene_entries_give_file_line_key)
{
    expect_scene_error_at("bad.yaml", OUTLET_A "    region: {box: {min: [0, 0, 0], max: [1, -1, 1]}}\n", 11,
                          "outlets[0].region.box.max", "must exceed min on every axis (y: min 0 m, max -1 m)");
    expect_scene_error_at("bad.yaml", OUTLET_A "    region: {sphere: {center: [0, 0, 0], radus: 1}}\n", 11,
                          "outlets[0].region.sphere.radus", "did you mean 'radius'");
    expect_scene_error_at("bad.yaml", OUTLET_A "    regin: {sphere: {center: [0, 0, 0], radius: 1}}\n", 11,
                          "outlets[0].regin", "did you mean 'region'");
    expect_scene_error_at("bad.yaml", OUTLET_A "    region: {sphere: {center: [0, 0, 0], radius: 0}}\n", 11,
                          "outlets[0].region.sphere.radius", "must be > 0");
    expect_scene_error_at("bad.yaml",
                          OUTLET_A "    region:\n"
                                   "      box: {min: [0, 0, 0], max: [1, 1, 1]}\n"
                                   "      half_space: {point: [0, 0, 0]}\n",
                          13, "outlets[0].region.half_space", "not two");
    expect_scene_error_at("bad.yaml", OUTLET_A "    region: {}\n", 11, "outlets[0].region",
                          "needs a box, a half_space or a sphere");
    expect_scene_error_at("bad.yaml", OUTLET_A "    region: {half_space: {point: [0, 0, 0], normal: [0, 0, 0]}}\n", 11,
                          "outlets[0].region.half_space.normal", "must not be zero");
    expect_scene_error_at("bad.yaml",
                          OUTLET_A "    region: {half_space: {point: [0, 0, 0]}}\n"
                                   "    start: -1\n",
                          12, "outlets[0].start", "must be >= 0");
    expect_scene_error_at("bad.yaml", SCENE_HEAD "  - {name: a, region: {half_space: {point: [0, 0, 0]}}}\n"
                                                 "  - {name: a, region: {half_space: {point: [0, 0, 1]}}}\n",
                          11, "outlets[1].name", "duplicate outlet name 'a' (first used at line 10)");
    expect_scene_error_at("bad.yaml", SCENE_HEAD "  - {region: {half_space: {point: [0, 0, 0]}}}\n", 10,
                          "outlets[0].name", "required key is missing");
}

/* The lines of a file, as an array of strings (the file's text, cut). */
static int split_lines(char* text, char** lines, int room)
{
    int count = 0;
    for (char* line = strtok(text, "\n"); line && count < room; line = strtok(NULL, "\n")) {
        lines[count++] = line;
    }
    return count;
}

Test(outlet_files, outlets_csv_has_units_and_rows_that_add_up_to_the_totals)
{
    const char* path = write_scene("csv.yaml", SCENE_HEAD
                                   "  - {name: drain, region: {half_space: {point: [0, 0, -0.5]}}}\n"
                                   "  - {name: never, region: {sphere: {center: [9, 9, 9], radius: 1}}}\n");
    fd_scene scene = load_scene_at(path, NULL, 0);
    snprintf(scene.output.directory, sizeof scene.output.directory, "%s/out", temp_dir);
    scene.output.bodies_csv = true;   /* the bodies there are, at each time */
    scene.output.vtu_interval = 0.25; /* snapshots at 0, 0.25 and 0.5 s */
    scene.output.vtu_ascii = true;
    fd_output* output = fd_output_open(scene.world, &scene.output);
    cr_assert_not_null(output, "%s", fd_last_error());
    cr_assert_eq(fd_output_write(output, scene.world), FD_OK, "%s", fd_last_error());
    for (int n = 0; n < 5000; ++n) {
        cr_assert_eq(fd_world_step(scene.world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_output_write(output, scene.world), FD_OK, "%s", fd_last_error());
    }
    cr_assert_eq(fd_output_close(output, scene.world), FD_OK, "%s", fd_last_error());
    fd_outlet_info drain = fd_world_get_outlet_info(scene.world, 0);
    cr_assert_gt(drain.removed, 2);

    char* text = read_all(temp_path("out/outlets.csv"), NULL);
    char* lines[64];
    int count = split_lines(text, lines, 64);
    cr_assert_str_eq(lines[0], "# units: s,-,-,-,kg,-,kg");
    cr_assert_str_eq(lines[1], "time,step,outlet,removed,removed_mass,total_removed,total_removed_mass");
    cr_assert_eq(count, 2 + 2 * 11, "a row per outlet at t = 0, 0.05, ..., 0.5");
    long long sum = 0, total = -1, never = 0;
    double mass_sum = 0.0, mass_total = -1.0;
    for (int k = 2; k < count; ++k) {
        double time, mass, cumulative_mass;
        long long step, removed, cumulative;
        char name[32];
        cr_assert_eq(sscanf(lines[k], "%lf,%lld,%31[^,],%lld,%lf,%lld,%lf", &time, &step, name, &removed, &mass,
                            &cumulative, &cumulative_mass),
                     7, "%s", lines[k]);
        cr_assert_str_eq(name, (k - 2) % 2 == 0 ? "drain" : "never");
        if ((k - 2) % 2 == 0) {
            sum += removed;
            mass_sum += mass;
            cr_assert_eq(cumulative, sum, "%s: the interval counts add up to the total", lines[k]);
            cr_assert_float_eq(cumulative_mass, mass_sum, 1e-12);
            total = cumulative;
            mass_total = cumulative_mass;
        } else {
            never += cumulative;
        }
    }
    cr_assert_eq(total, drain.removed);
    cr_assert_eq(mass_total, drain.removed_mass, "%.17g vs %.17g", mass_total, drain.removed_mass);
    cr_assert_eq(never, 0);
    free(text);
    /* energy.csv has the removed book, and the bodies that left are in it. */
    text = read_all(temp_path("out/energy.csv"), NULL);
    cr_assert(strstr(text, ",inserted,removed,total,closure_error\n"), "energy.csv's header lacks removed");
    free(text);
    /* bodies.csv and the last snapshot list the bodies there are, no more. */
    int live = fd_world_live_body_count(scene.world);
    cr_assert_lt(live, 20);
    text = read_all(temp_path("out/bodies.csv"), NULL);
    int last_rows = 0;
    for (char* line = strstr(text, "\n0.5,"); line; line = strstr(line + 1, "\n0.5,")) {
        ++last_rows;
    }
    cr_assert_eq(last_rows, live, "bodies.csv has %d rows at t = 0.5 s for %d bodies", last_rows, live);
    cr_assert_null(strstr(text, "nan"), "a removed body's slot was written");
    free(text);
    text = read_all(temp_path("out/vtu/bodies_000002.vtu"), NULL);
    char points[64];
    snprintf(points, sizeof points, "NumberOfPoints=\"%d\"", live);
    cr_assert(strstr(text, points), "the last snapshot lacks %s", points);
    free(text);
    fd_scene_free(&scene);
}

/* Runs `fricdem run PATH --out temp_dir/OUT`, its output into temp_dir/stdout
 * and temp_dir/stderr; returns what system() gives. */
static int run_cli(const char* path, const char* out)
{
    char command[2048];
    snprintf(command, sizeof command, "'%s' run '%s' --out '%s' >'%s' 2>'%s'", FRICDEM_CLI, path, temp_path(out),
             temp_path("stdout"), temp_path("stderr"));
    return system(command);
}

Test(outlet_files, the_cli_reports_the_outlets_and_exits_2_on_a_bad_entry)
{
    const char* path =
        write_scene("cli.yaml", SCENE_HEAD "  - {name: drain, region: {half_space: {point: [0, 0, -0.5]}}}\n");
    int status = run_cli(path, "cli_out");
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed", path);
    char* text = read_all(temp_path("stdout"), NULL);
    cr_assert(strstr(text, "outlet   'drain'"), "%s", text);
    cr_assert(strstr(text, "outlet       'drain': 20 bodies removed"), "%s", text);
    free(text);
    cr_assert_eq(access(temp_path("cli_out/outlets.csv"), F_OK), 0, "no outlets.csv");

    path = write_scene("cli_bad.yaml",
                       SCENE_HEAD "  - {name: drain, region: {box: {min: [0, 0, 0], max: [0, 1, 1]}}}\n");
    status = run_cli(path, "cli_bad");
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "exit %d", WEXITSTATUS(status));
    text = read_all(temp_path("stderr"), NULL);
    char expected[700];
    snprintf(expected, sizeof expected, "%s:10: outlets[0].region.box.max: must exceed min", path);
    cr_assert(strstr(text, expected), "%s", text);
    free(text);
}
