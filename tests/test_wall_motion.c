/* Walls under a prescribed motion (issue 12, item 3): the pose is the closed
 * form of docs/walls.md at every step, the wall's surface velocity enters
 * every friction family through the relative velocity (a sphere on a belt
 * ends rolling at 2/7 of the belt speed whatever the law), the reaction on a
 * wall is the contacts' force and torque about its position, and the ledger
 * books the wall's work. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/world.h"

static fd_world* make_world(double dt, bool ledger)
{
    fd_world_def def = test_world_def(dt, fd_v3(0, 0, -9.81));
    def.energy_ledger = ledger;
    return test_create_world(&def);
}

/* The grain of these tests: 2000 kg/m^3, E = 1e8 Pa, Poisson's ratio 0.3 (the default). */
static fd_material_id add_material(fd_world* world) { return test_add_solid_material(world, "grain", 2000.0, 1e8); }

static fd_body_id add_sphere(fd_world* world, fd_material_id material, double radius, fd_vec3 position)
{
    return test_add_sphere(world, material, "ball", radius, position, fd_v3(0, 0, 0));
}

/* ---------------------------------------------------------------- the pose */

Test(wall_motion, the_pose_and_velocities_follow_the_closed_form_at_every_step)
{
    /* A plane that ramps to 0.2 m/s along x over 0.01 s, shakes along z with
     * 1 mm at 50 Hz from t0 = 0.002 s, and turns about z, ramped over 0.005 s
     * to 3 rad/s. Every step: x(t), v(t), the turned angle and omega(t) equal
     * docs/walls.md's formulas to round-off (1e-12 relative to the scale). */
    const double dt = 1e-4;
    fd_world* world = make_world(dt, false);
    fd_material_id m = add_material(world);
    fd_body_id ground = test_add_ground(world, m);
    fd_wall_motion motion = fd_default_wall_motion();
    motion.velocity = fd_v3(0.2, 0, 0);
    motion.velocity_ramp = 0.01;
    motion.amplitude = fd_v3(0, 0, 1e-3);
    motion.frequency = 50.0;
    motion.angular_velocity = fd_v3(0, 0, 3.0);
    motion.angular_velocity_ramp = 0.005;
    motion.start_time = 0.002;
    cr_assert_eq(fd_world_set_wall_motion(world, ground, &motion), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    for (int s = 1; s <= 300; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        double t = s * dt, tau = fmax(t - 0.002, 0.0);
        double travel = tau < 0.01 ? 0.5 * tau * tau / 0.01 : tau - 0.005;
        double speed = tau < 0.01 ? tau / 0.01 : 1.0;
        double angle = 3.0 * (tau < 0.005 ? 0.5 * tau * tau / 0.005 : tau - 0.0025);
        double spin = 3.0 * (tau < 0.005 ? tau / 0.005 : 1.0);
        fd_body_state state = fd_body_get_state(world, ground);
        cr_assert_float_eq(state.position.x, 0.2 * travel, 1e-15, "step %d", s);
        cr_assert_float_eq(state.position.z, 1e-3 * sin(2 * FD_PI * 50 * tau), 1e-15, "step %d", s);
        cr_assert_float_eq(state.velocity.x, 0.2 * speed, 1e-15, "step %d", s);
        cr_assert_float_eq(state.velocity.z, tau > 0 ? 1e-3 * 2 * FD_PI * 50 * cos(2 * FD_PI * 50 * tau) : 0.0, 1e-14,
                           "step %d", s);
        cr_assert_float_eq(state.angular_velocity.z, spin, 1e-12, "step %d", s);
        /* the body x axis turned by angle about z */
        fd_vec3 x_axis = fd_quat_rotate(state.orientation, fd_v3(1, 0, 0));
        cr_assert_float_eq(atan2(x_axis.y, x_axis.x), angle, 1e-12, "step %d", s);
    }
    fd_world_free(world);
}

/* ---------------------------------------------------------------- the belt */

typedef struct belt_law {
    const char* name;
    const char* normal;
    const char* slide;
} belt_law;

static fd_contact_law_def belt_contact_law(const belt_law* which, double k_n, double mass)
{
    fd_contact_law_def law = fd_default_contact_law_def();
    law.submodel[FD_MECHANISM_NORMAL].model = which->normal;
    if (strcmp(which->normal, "hooke") == 0) {
        test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "k_n", k_n);
        test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", 0.3);
    } else {
        test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", 0.3);
    }
    fd_submodel_def* slide = &law.submodel[FD_MECHANISM_SLIDE];
    slide->model = which->slide;
    double k_t = 2.0 / 7.0 * k_n, gamma_t = 2.0 * sqrt(mass * k_t);
    if (strcmp(which->slide, "fang_negrut") == 0) {
        test_add_param(slide, "mu_s", 0.5);
        test_add_param(slide, "mu_k", 0.5);
        test_add_param(slide, "K_E", k_t);
    } else if (strncmp(which->slide, "mindlin", 7) == 0) {
        test_add_param(slide, "mu_s", 0.5);
        test_add_param(slide, "mu_k", 0.5);
        test_add_param(slide, "x_gamma_t", 1.0); /* damps the spring's rocking as gamma_t does the others' */
    } else {
        test_add_param(slide, "k_t", k_t);
        test_add_param(slide, "gamma_t", gamma_t);
        test_add_param(slide, "mu", 0.5);
    }
    return law;
}

/* A sphere at rest on a plane that starts moving at V along x: it slides,
 * friction mu m g speeds it up and spins it back, until the contact point
 * moves with the belt; then it rolls at v = 2 V / 7 (impulse J: v = J / m,
 * omega r = 5 J / (2 m); v - omega r = V ... v = 2/7 V), whatever mu and the
 * law. Checked after 0.1 s (slip ends at 2 V / (7 mu g) = 5.8 ms; the
 * tangential springs' damped oscillation has decayed): v within 1% of 2V/7
 * and the contact point within 1% of V in speed. */
static void belt_ends_rolling(const belt_law* which)
{
    const double r = 0.01, V = 0.1, k_n = 1e4, dt = 1e-5;
    fd_world* world = make_world(dt, false);
    fd_material_id grain = add_material(world);
    double mass = 2000.0 * 4.0 / 3.0 * FD_PI * r * r * r;
    fd_contact_law_def law = belt_contact_law(which, k_n, mass);
    cr_assert_eq(fd_world_set_contact_law(world, grain, grain, &law), FD_OK, "%s: %s", which->name, fd_last_error());
    fd_body_id belt = test_add_ground(world, grain);
    fd_body_id ball = add_sphere(world, grain, r, fd_v3(0, 0, r - mass * 9.81 / k_n));
    fd_wall_motion motion = fd_default_wall_motion();
    motion.velocity = fd_v3(V, 0, 0);
    cr_assert_eq(fd_world_set_wall_motion(world, belt, &motion), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s: %s", which->name, fd_last_error());
    for (int s = 0; s < 10000; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s: %s", which->name, fd_last_error());
    }
    fd_body_state state = fd_body_get_state(world, ball);
    double contact_speed = state.velocity.x - r * state.angular_velocity.y;
    cr_expect_float_eq(state.velocity.x, 2.0 / 7.0 * V, 0.01 * 2.0 / 7.0 * V, "%s: v = %.6g m/s, 2V/7 = %.6g",
                       which->name, state.velocity.x, 2.0 / 7.0 * V);
    cr_expect_float_eq(contact_speed, V, 0.01 * V, "%s: the contact point moves at %.6g m/s, the belt at %.6g",
                       which->name, contact_speed, V);
    fd_world_free(world);
}

Test(wall_motion, a_sphere_on_a_belt_ends_rolling_at_two_sevenths_of_its_speed_with_every_slide_family)
{
    static const belt_law laws[] = {
        {"dsds", "hooke", "dsds"},
        {"csds", "hooke", "csds"},
        {"fang_negrut", "hooke", "fang_negrut"},
        {"mindlin", "hertz", "mindlin"},
    };
    for (size_t k = 0; k < sizeof laws / sizeof laws[0]; ++k) {
        belt_ends_rolling(&laws[k]);
    }
}

/* ---------------------------------------------------------------- reaction and work */

Test(wall_motion, the_reaction_on_a_floor_is_the_weight_on_it_and_its_moment_about_the_floor_origin)
{
    /* A sphere settled on the floor z = 0 at (0.3, -0.2): the floor carries
     * F = (0, 0, -m g) and, about its origin, T = arm x F with the contact
     * point (0.3, -0.2, 0) as arm: (-y m g... ) = (0.2 m g, 0.3 m g, 0) up to
     * the settling's residue (restitution 0.3, 0.5 s: below 1e-6 relative). */
    const double r = 0.01, k_n = 1e4;
    fd_world* world = make_world(1e-5, false);
    fd_material_id grain = add_material(world);
    double mass = 2000.0 * 4.0 / 3.0 * FD_PI * r * r * r, weight = mass * 9.81;
    belt_law which = {"dsds", "hooke", "dsds"};
    fd_contact_law_def law = belt_contact_law(&which, k_n, mass);
    cr_assert_eq(fd_world_set_contact_law(world, grain, grain, &law), FD_OK, "%s", fd_last_error());
    fd_body_id floor = test_add_ground(world, grain);
    add_sphere(world, grain, r, fd_v3(0.3, -0.2, r));
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    for (int s = 0; s < 50000; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    }
    fd_wall_reaction reaction = fd_body_get_reaction(world, floor);
    cr_expect_float_eq(reaction.force.z, -weight, 1e-6 * weight);
    cr_expect_float_eq(reaction.force.x, 0.0, 1e-9 * weight);
    cr_expect_float_eq(reaction.torque.x, 0.2 * weight, 1e-6 * weight);
    cr_expect_float_eq(reaction.torque.y, 0.3 * weight, 1e-6 * weight);
    cr_expect_float_eq(reaction.power, 0.0, 0.0, "a floor at rest gives no power");
    fd_world_free(world);
}

static double belt_closure(double dt, double* entered)
{
    const double r = 0.01, k_n = 1e4;
    fd_world* world = make_world(dt, true);
    fd_material_id grain = add_material(world);
    double mass = 2000.0 * 4.0 / 3.0 * FD_PI * r * r * r;
    belt_law which = {"csds", "hooke", "csds"};
    fd_contact_law_def law = belt_contact_law(&which, k_n, mass);
    cr_assert_eq(fd_world_set_contact_law(world, grain, grain, &law), FD_OK, "%s", fd_last_error());
    fd_body_id belt = test_add_ground(world, grain);
    add_sphere(world, grain, r, fd_v3(0, 0, r - mass * 9.81 / k_n));
    fd_wall_motion motion = fd_default_wall_motion();
    motion.velocity = fd_v3(0.1, 0, 0);
    cr_assert_eq(fd_world_set_wall_motion(world, belt, &motion), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    double worst = 0.0;
    int steps = (int)lround(0.03 / dt);
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        worst = fmax(worst, fabs(fd_world_get_energy(world).closure_error));
    }
    *entered = fd_world_get_energy(world).entered;
    fd_world_free(world);
    return worst;
}

Test(wall_motion, the_ledger_books_the_belts_work_and_closes_to_first_order_in_the_step)
{
    /* The belt's work, -(F . V) over the run, is what speeds the sphere up and
     * what its slip dissipates; without it the books would miss about 3 V^2 m
     * / 7 (here 100% of what entered). With it the closure is the
     * integrator's error: small against what entered and halving with the
     * step (first order, as every other book: tests/test_energy_ledger.c). */
    double entered_coarse, entered_fine;
    double coarse = belt_closure(2e-5, &entered_coarse);
    double fine = belt_closure(1e-5, &entered_fine);
    cr_expect_lt(coarse, 0.01 * entered_coarse, "closure %.3g J of %.3g J entered", coarse, entered_coarse);
    cr_expect_gt(coarse / fine, 1.6, "closure %.3g J at dt, %.3g J at dt/2", coarse, fine);
}

/* ---------------------------------------------------------------- errors */

Test(wall_motion, only_static_bodies_of_the_penalty_stepper_take_a_motion_and_its_values_are_checked)
{
    fd_world* world = make_world(1e-5, false);
    fd_material_id grain = add_material(world);
    fd_body_id ball = add_sphere(world, grain, 0.01, fd_v3(0, 0, 1));
    fd_body_id floor = test_add_ground(world, grain);
    fd_wall_motion motion = fd_default_wall_motion();
    cr_expect_eq(fd_world_set_wall_motion(world, ball, &motion), FD_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(fd_last_error(), "only a static body") != NULL, "%s", fd_last_error());
    motion.amplitude = fd_v3(0, 0, 0.01);
    cr_expect_eq(fd_world_set_wall_motion(world, floor, &motion), FD_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(fd_last_error(), "frequency") != NULL, "%s", fd_last_error());
    motion = fd_default_wall_motion();
    motion.velocity_ramp = -1.0;
    cr_expect_eq(fd_world_set_wall_motion(world, floor, &motion), FD_ERR_INVALID_ARGUMENT);
    motion.velocity_ramp = NAN;
    cr_expect_eq(fd_world_set_wall_motion(world, floor, &motion), FD_ERR_INVALID_ARGUMENT);
    fd_world_free(world);

    fd_world_def def = fd_default_world_def();
    def.stepper = FD_STEPPER_COMPLEMENTARITY;
    world = fd_world_create(&def);
    grain = add_material(world);
    floor = test_add_ground(world, grain);
    motion = fd_default_wall_motion();
    cr_expect_eq(fd_world_set_wall_motion(world, floor, &motion), FD_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(fd_last_error(), "penalty stepper") != NULL, "%s", fd_last_error());
    fd_world_free(world);
}

Test(wall_motion, a_motion_on_a_dynamic_body_in_a_scene_is_an_error_at_its_key)
{
    char directory[] = "/tmp/fricdem_wall_motion_XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(directory));
    snprintf(path, sizeof path, "%s/scene.yaml", directory);
    FILE* file = fopen(path, "w");
    cr_assert_not_null(file);
    const char* text = "time: {step: 1.0e-5, duration: 1.0e-3}\n"
                       "materials:\n  - {name: m, density: 2000}\n"
                       "contacts:\n  - materials: [m, m]\n    normal: {model: hooke, k_n: 1.0e4}\n"
                       "bodies:\n"
                       "  - {name: floor, static: true, material: m, shape: {type: plane},"
                       " motion: {velocity: [1, 0, 0]}}\n"
                       "  - {name: ball, material: m, shape: {type: sphere, radius: 0.01}, position: [0, 0, 0.01],\n"
                       "     motion: {velocity: [1, 0, 0]}}\n";
    fputs(text, file);
    fclose(file);
    fd_scene scene;
    cr_expect_eq(fd_scene_load(path, NULL, 0, &scene), FD_ERR_PARSE);
    cr_expect(strstr(fd_last_error(), ":10:") != NULL && strstr(fd_last_error(), "bodies[1].motion") != NULL, "%s",
              fd_last_error());
    unlink(path);
    rmdir(directory);
}
