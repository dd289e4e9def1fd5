/* Static and kinetic friction in the spring-dashpot-sliders (issue 18, item
 * 3): slide, roll and twist dsds and csds take mu_s and mu_k (one mu stays
 * both). A sticking contact slips when its load exceeds mu_s N and slides
 * capped at mu_k N until the load falls to mu_k N or below (LAMMPS
 * linear_history/static; model.h, fd_static_kinetic).
 *
 * Closed forms on one sphere (R = 1 cm, m = 10 g) on a ground under gravity
 * g tilted by theta about y, so that the ground is an incline and "down the
 * slope" is +x; the sphere's height is locked, so the normal force is the
 * constant N = m g cos(theta) and the friction caps are exact numbers:
 *  - sliding (rotation locked): the deceleration on level ground is mu_k g,
 *    not mu_s g; at rest on an incline with mu_k < tan(theta) < mu_s the
 *    sphere stays, and sliding down that incline it keeps sliding with
 *    a = g (sin - mu_k cos); above mu_s it starts;
 *  - rolling: at rest with mu_roll_k < tan(theta) < mu_roll_s it stays,
 *    rolling it keeps rolling at a = (g sin - mu_roll_k g cos R_eff / a_s) /
 *    (1 + I / (m a_s^2)), a_s the arm of the contact point;
 *  - twisting: a spinning sphere slows at mu_twist_k N / I; an applied torque
 *    between mu_twist_k N and mu_twist_s N does not start it.
 * Each runs on the three paths a contact can take: the registry kernels
 * (prescribed normal force on a plane), the scalar sphere kernel (hooke on a
 * plane) and the vectorised block kernel (hooke on a static sphere of 10 km);
 * and for PFC linear + rrlinear (fric_s, fric_k, rr_fric_s, rr_fric_k; its
 * registry kernels) the sliding and rolling cases.
 * The springs are critically damped, so that a load applied at once does not
 * overshoot past the static cap. While a contact slips its force is the cap
 * exactly, so on the planes the rates below hold to round-off (1e-9); on the
 * ground sphere the overlap changes by x^2 / (2 R_g), about 1e-4 of it over
 * the windows' few millimetres, and the rates to 1e-3. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "support/laws.h"
#include "support/support.h"

enum { PATH_REGISTRY, PATH_SPHERE_KERNEL, PATH_BLOCK, PATH_COUNT };
static const char* const path_names[PATH_COUNT] = {"registry", "sphere kernel", "block"};
/* The friction families: the two spring-dashpot-sliders, and PFC's linear
 * model with rrlinear (its shear dashpot cut while slipping, dp_mode 3, so
 * that a slipping contact's force is the cap; registry kernels only). */
enum { FAMILY_COUNT = 3 };
static const char* const families[FAMILY_COUNT] = {"dsds", "csds", "pfc"};
static bool path_takes(int path, const char* family) { return strcmp(family, "pfc") != 0 || path == PATH_REGISTRY; }

/* Steps (*path, *f) through every path with every family it takes, from
 * (0, -1); false after the last. */
static bool next_path_and_family(int* path, int* f)
{
    do {
        if (++*f == FAMILY_COUNT) {
            *f = 0;
            ++*path;
        }
        if (*path == PATH_COUNT) {
            return false;
        }
    } while (!path_takes(*path, families[*f]));
    return true;
}

#define RADIUS 0.01
#define MASS 0.01
#define GRAVITY 9.81
#define K_N 1.0e4
#define GROUND_RADIUS 1.0e4
#define TIME_STEP 1.0e-5

typedef struct scene {
    int path;
    double theta;             /* incline, rad */
    const char* family;       /* "dsds" or "csds" */
    double mu_s, mu_k;        /* slide */
    bool roll;                /* roll model of the family */
    double mu_roll_s, mu_roll_k;
    bool twist;               /* spin model of the family */
    double mu_twist_s, mu_twist_k, gamma_twist;
    fd_vec3 velocity, angular_velocity, torque;
    uint32_t lock_translation, lock_rotation;
} scene;

static double normal_force(const scene* s) { return MASS * GRAVITY * cos(s->theta); }

/* Tangential springs stiff against the loads (a stretch of micrometres),
 * critically damped: gamma_t = 2 sqrt(k_t m). */
static void set_sds_law(fd_contact_law_def* law, const scene* s)
{
    if (s->path == PATH_REGISTRY) {
        test_add_param(test_set_model(law, FD_MECHANISM_NORMAL, "prescribed"), "force", normal_force(s));
    } else {
        test_add_param(test_set_model(law, FD_MECHANISM_NORMAL, "hooke"), "k_n", K_N);
    }
    fd_submodel_def* slide = test_set_model(law, FD_MECHANISM_SLIDE, s->family);
    test_add_param(slide, "k_t", 1.0e4);
    test_add_param(slide, "gamma_t", 20.0);
    test_add_param(slide, "mu_s", s->mu_s);
    test_add_param(slide, "mu_k", s->mu_k);
    if (s->roll) {
        fd_submodel_def* roll = test_set_model(law, FD_MECHANISM_ROLL, s->family);
        test_add_param(roll, "k_roll", 1.0e3);
        test_add_param(roll, "gamma_roll", 8.0); /* 2 sqrt(k_roll R^2 7/5 m R^2) / R^2: the rocking's critical */
        test_add_param(roll, "mu_roll_s", s->mu_roll_s);
        test_add_param(roll, "mu_roll_k", s->mu_roll_k);
    }
    if (s->twist) {
        fd_submodel_def* twist = test_set_model(law, FD_MECHANISM_SPIN, s->family);
        test_add_param(twist, "k_twist", 1.0e-3);
        test_add_param(twist, "gamma_twist", s->gamma_twist);
        test_add_param(twist, "mu_twist_s", s->mu_twist_s);
        test_add_param(twist, "mu_twist_k", s->mu_twist_k);
    }
}

/* PFC linear + rrlinear with fric_s, fric_k and rr_fric_s, rr_fric_k; the
 * shear dashpot critical (beta_s = 1) and cut while slipping (dp_mode 3). */
static void set_pfc_law(fd_contact_law_def* law, const scene* s)
{
    fd_submodel_def* normal = test_set_model(law, FD_MECHANISM_NORMAL, "pfc_linear");
    test_add_param(normal, "kn", K_N);
    test_add_param(normal, "dp_mode", 3.0);
    fd_submodel_def* slide = test_set_model(law, FD_MECHANISM_SLIDE, "pfc_linear");
    test_add_param(slide, "ks", 1.0e4);
    test_add_param(slide, "dp_sratio", 1.0);
    test_add_param(slide, "fric_s", s->mu_s);
    test_add_param(slide, "fric_k", s->mu_k);
    if (s->roll) {
        fd_submodel_def* roll = test_set_model(law, FD_MECHANISM_ROLL, "pfc_rrlinear");
        test_add_param(roll, "rr_fric_s", s->mu_roll_s);
        test_add_param(roll, "rr_fric_k", s->mu_roll_k);
    }
}

static fd_world* build(const scene* s)
{
    fd_world_def world_def = fd_default_world_def();
    world_def.time_step = TIME_STEP;
    world_def.gravity = fd_v3(GRAVITY * sin(s->theta), 0.0, -GRAVITY * cos(s->theta));
    world_def.integrator = FD_INTEGRATOR_VELOCITY_VERLET;
    world_def.contact_margin = 1e-9; /* the prescribed normal force acts at zero overlap */
    fd_world* world = test_create_world(&world_def);
    fd_material_id material = test_add_material(world, "m");

    fd_contact_law_def law = fd_default_contact_law_def();
    double overlap = s->path == PATH_REGISTRY && strcmp(s->family, "pfc") != 0 ? 0.0 : normal_force(s) / K_N;
    if (strcmp(s->family, "pfc") == 0) {
        set_pfc_law(&law, s);
    } else {
        set_sds_law(&law, s);
    }
    test_set_law(world, material, &law);

    if (s->path == PATH_BLOCK) {
        fd_body_def ground = fd_default_body_def();
        ground.name = "ground";
        ground.type = FD_BODY_STATIC;
        ground.material = material;
        ground.shape.radius = GROUND_RADIUS;
        ground.position = fd_v3(0.0, 0.0, -GROUND_RADIUS);
        test_create_body(world, &ground);
    } else {
        test_add_ground(world, material);
    }
    fd_body_def ball = fd_default_body_def();
    ball.name = "ball";
    ball.material = material;
    ball.shape.radius = RADIUS;
    ball.mass = MASS;
    ball.position = fd_v3(0.0, 0.0, RADIUS - overlap);
    ball.velocity = s->velocity;
    ball.angular_velocity = s->angular_velocity;
    ball.external_torque = s->torque;
    ball.lock_translation = s->lock_translation | FD_LOCK_Z; /* N stays m g cos(theta) */
    ball.lock_rotation = s->lock_rotation;
    test_create_body(world, &ball);
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_contact_count(world), 1, "%s: the ball must touch the ground", path_names[s->path]);
    return world;
}

static fd_body_state ball_state(const fd_world* world)
{
    return fd_body_get_state(world, fd_world_find_body(world, "ball"));
}

static void run_for(fd_world* world, double seconds)
{
    int steps = (int)lround(seconds / TIME_STEP);
    for (int k = 0; k < steps; ++k) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    }
}


/* Relative tolerance of a rate whose force is a cap (see the top). */
static double cap_tolerance(int path) { return path == PATH_BLOCK ? 1e-3 : 1e-9; }

/* The mean acceleration along x over [start, start + window] (s from now),
 * from the velocities at both ends. */
static double acceleration_x(fd_world* world, double start, double window)
{
    run_for(world, start);
    double before = ball_state(world).velocity.x;
    run_for(world, window);
    return (ball_state(world).velocity.x - before) / window;
}

/* The sliding rate on the incline: a = g (sin - mu_k cos), mu_k = 0.3. */
static void expect_kinetic_slide(const scene* s, int f, double start)
{
    fd_world* world = build(s);
    double expected = GRAVITY * (sin(s->theta) - 0.3 * cos(s->theta));
    double measured = acceleration_x(world, start, 0.02);
    cr_assert(fabs(measured - expected) < cap_tolerance(s->path) * fabs(expected),
              "%s %s: acceleration %.12g, expected %.12g", path_names[s->path], families[f], measured, expected);
    fd_world_free(world);
}


/* ---------------------------------------------------------------- slide */

static scene sliding_block(int path, const char* family, double tan_theta)
{
    return (scene){.path = path, .theta = atan(tan_theta), .family = family, .mu_s = 0.6, .mu_k = 0.3,
                   .lock_rotation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z};
}

Test(static_kinetic, a_sliding_sphere_slows_at_mu_k_g_not_mu_s_g)
{
    /* Sliding, the force is the cap mu_k N along -x: the velocity falls by
     * mu_k g per second, half what mu_s would give (it stops at 34 ms).
     * 5 ms let the first steps (one capped at mu_s) pass. */
    for (int path = 0, f = -1; next_path_and_family(&path, &f);) {
        scene s = sliding_block(path, families[f], 0.0);
        s.velocity = fd_v3(0.1, 0.0, 0.0);
        fd_world* world = build(&s);
        double deceleration = -acceleration_x(world, 0.005, 0.02);
        cr_assert(fabs(deceleration - 0.3 * GRAVITY) < cap_tolerance(path) * 0.3 * GRAVITY,
                  "%s %s: deceleration %.12g, mu_k g %.12g", path_names[path], families[f], deceleration,
                  0.3 * GRAVITY);
        fd_world_free(world);
    }
}

Test(static_kinetic, between_mu_k_and_mu_s_a_resting_sphere_stays_and_a_sliding_one_keeps_sliding)
{
    /* tan(theta) = 0.45: at rest the spring holds m g sin(theta) = 0.04 N
     * with a stretch of 4 micrometres (k_t = 1e4 N/m); had the kinetic cap
     * held it, it would slide 6.7 mm in 0.1 s. Sliding at 0.1 m/s, it keeps
     * sliding with a = g (sin - mu_k cos) = 1.34 m/s^2. */
    double tan_theta = 0.45;
    for (int path = 0, f = -1; next_path_and_family(&path, &f);) {
        scene s = sliding_block(path, families[f], tan_theta);
        fd_world* world = build(&s);
        run_for(world, 0.1);
        double x = ball_state(world).position.x;
        cr_assert(fabs(x) < 1e-5, "%s %s: the resting sphere moved %g m", path_names[path], families[f], x);
        fd_world_free(world);

        s.velocity = fd_v3(0.1, 0.0, 0.0);
        expect_kinetic_slide(&s, f, 0.005);
    }
}

Test(static_kinetic, above_mu_s_a_resting_sphere_starts_and_slides_at_the_kinetic_rate)
{
    /* tan(theta) = 0.65 > mu_s: the spring loads for a few steps, slips, and
     * from then on a = g (sin - mu_k cos), over the window from 10 to 30 ms. */
    double tan_theta = 0.65;
    for (int path = 0, f = -1; next_path_and_family(&path, &f);) {
        scene s = sliding_block(path, families[f], tan_theta);
        expect_kinetic_slide(&s, f, 0.01); /* it must have started: a > 0 at the kinetic rate */
    }
}

/* ---------------------------------------------------------------- roll */

Test(static_kinetic, between_mu_roll_k_and_mu_roll_s_a_resting_sphere_stays_and_a_rolling_one_keeps_rolling)
{
    /* mu_roll_s = 0.1, mu_roll_k = 0.03, tan(theta) = 0.045 (slide mu = 1
     * holds the contact point): below half mu_roll_s, so that PFC's rolling
     * spring, which has no dashpot, holds even the twice-the-load overshoot
     * of a slope applied at once. At rest the rolling spring holds the
     * slope's moment; under the kinetic cap alone the sphere would roll
     * 0.5 mm in 0.1 s. Rolling at 0.1 m/s it keeps rolling: m a = m g sin - f
     * and I a / a_s = f a_s - R_eff mu_roll_k N, a_s = R - delta/2 the arm of
     * the contact point, R_eff = R (plane) or R Rg / (R + Rg); the sticking
     * slide spring and the dashpots add a ringing that averages out over the
     * 0.05 s window: to 1 %. */
    double tan_theta = 0.045, theta = atan(tan_theta);
    for (int path = 0, f = -1; next_path_and_family(&path, &f);) {
        scene s = {.path = path, .theta = theta, .family = families[f], .mu_s = 1.0, .mu_k = 1.0, .roll = true,
                   .mu_roll_s = 0.1, .mu_roll_k = 0.03};
        fd_world* world = build(&s);
        run_for(world, 0.1);
        double x = ball_state(world).position.x;
        cr_assert(fabs(x) < 2e-5, "%s %s: the resting sphere rolled %g m", path_names[path], families[f], x);
        fd_world_free(world);

        double overlap = path == PATH_REGISTRY ? 0.0 : normal_force(&s) / K_N;
        double arm = RADIUS - 0.5 * overlap;
        double effective = path == PATH_BLOCK ? RADIUS * GROUND_RADIUS / (RADIUS + GROUND_RADIUS) : RADIUS;
        double inertia = 0.4 * MASS * RADIUS * RADIUS;
        double expected = (MASS * GRAVITY * sin(theta) - effective / arm * 0.03 * normal_force(&s)) /
                          (MASS + inertia / (arm * arm));
        s.velocity = fd_v3(0.1, 0.0, 0.0);
        s.angular_velocity = fd_v3(0.0, 0.1 / arm, 0.0);
        world = build(&s);
        run_for(world, 0.02);
        double v1 = ball_state(world).velocity.x;
        run_for(world, 0.05);
        double v2 = ball_state(world).velocity.x;
        double acceleration = (v2 - v1) / 0.05;
        cr_assert(fabs(acceleration - expected) < 0.01 * expected, "%s %s: acceleration %.6g, expected %.6g",
                  path_names[path], families[f], acceleration, expected);
        fd_world_free(world);
    }
}

/* ---------------------------------------------------------------- twist */

Test(static_kinetic, a_spinning_sphere_slows_at_mu_twist_k_n_over_i_and_a_torque_below_mu_twist_s_n_does_not_start_it)
{
    /* Level ground, translation and tilt locked. Twisting, the torque is the
     * cap mu_twist_k N: omega falls by mu_twist_k N / I = 24.5 rad/s^2, half
     * what mu_twist_s would give (a light dashpot: a D-SDS slips every step
     * while k w dt > gamma alpha dt, here above 0.02 rad/s). At rest under an
     * applied torque T = 1.5 mu_twist_k N < mu_twist_s N, the twisting spring
     * (critically damped, k_twist = 1e-3 N m/rad) holds it at T / k_twist =
     * 0.0147 rad after 5 time constants (to 5 %), where the kinetic cap
     * would let it turn 0.07 rad. */
    double inertia = 0.4 * MASS * RADIUS * RADIUS;
    for (int path = 0; path < PATH_COUNT; ++path) {
        for (int f = 0; f < 2; ++f) { /* PFC has no twisting model */
            scene s = {.path = path, .family = families[f], .mu_s = 1.0, .mu_k = 1.0, .twist = true,
                       .mu_twist_s = 2e-4, .mu_twist_k = 1e-4, .gamma_twist = 1e-6,
                       .angular_velocity = fd_v3(0.0, 0.0, 2.0),
                       .lock_translation = FD_LOCK_X | FD_LOCK_Y, .lock_rotation = FD_LOCK_X | FD_LOCK_Y};
            double alpha = 1e-4 * normal_force(&s) / inertia;
            fd_world* world = build(&s);
            run_for(world, 0.01);
            double w1 = ball_state(world).angular_velocity.z;
            run_for(world, 0.05);
            double w2 = ball_state(world).angular_velocity.z;
            cr_assert(fabs((w1 - w2) / 0.05 - alpha) < cap_tolerance(path) * alpha,
                      "%s %s: %.12g rad/s^2, expected %.12g", path_names[path], families[f], (w1 - w2) / 0.05, alpha);
            fd_world_free(world);

            s.angular_velocity = fd_v3(0.0, 0.0, 0.0);
            s.gamma_twist = 2.0 * sqrt(1e-3 * inertia);
            s.torque = fd_v3(0.0, 0.0, 1.5e-4 * normal_force(&s));
            double held = s.torque.z / 1e-3;
            world = build(&s);
            run_for(world, 0.1);
            fd_quat q = ball_state(world).orientation;
            double turned = 2.0 * atan2(q.z, q.w);
            cr_assert(fabs(turned - held) < 0.05 * held, "%s %s: turned %g rad under a torque below the static cap "
                      "(the spring holds it at %g)", path_names[path], families[f], turned, held);
            fd_world_free(world);
        }
    }
}

/* ---------------------------------------------------------------- input */

Test(static_kinetic, mu_with_mu_s_or_mu_k_above_mu_s_or_neither_is_refused_naming_the_model_and_keys)
{
    test_refused_params cases[] = {
        {{"mu", "mu_s"}, {0.5, 0.6}, 2, "not both"},
        {{"mu", "mu_k"}, {0.5, 0.3}, 2, "not both"},
        {{"mu_s", "mu_k"}, {0.3, 0.5}, 2, "0 <= mu_k <= mu_s"},
        {{"mu_k"}, {0.3}, 1, "needs mu"},
        {{NULL}, {0.0}, 0, "needs mu"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        fd_contact_law_def law = test_normal_law("hooke", "k_n", K_N);
        fd_submodel_def* slide = test_set_model(&law, FD_MECHANISM_SLIDE, "dsds");
        test_add_param(slide, "k_t", 1.0e4);
        for (int k = 0; k < cases[c].count; ++k) {
            test_add_param(slide, cases[c].names[k], cases[c].values[k]);
        }
        cr_assert_neq(test_law_status(&law), FD_OK, "case %zu accepted", c);
        cr_assert(strstr(fd_last_error(), cases[c].message) != NULL && strstr(fd_last_error(), "dsds") != NULL,
                  "case %zu: '%s'", c, fd_last_error());
    }
    /* PFC's names: fric, fric_s, fric_k. */
    fd_contact_law_def law = test_normal_law("pfc_linear", "kn", K_N);
    fd_submodel_def* slide = test_set_model(&law, FD_MECHANISM_SLIDE, "pfc_linear");
    test_add_param(slide, "ks", 1.0e4);
    test_add_param(slide, "fric_s", 0.3);
    test_add_param(slide, "fric_k", 0.5);
    cr_assert_neq(test_law_status(&law), FD_OK, "fric_k > fric_s accepted");
    cr_assert(strstr(fd_last_error(), "pfc_linear") != NULL && strstr(fd_last_error(), "fric_k <= fric_s") != NULL,
              "'%s'", fd_last_error());
}
