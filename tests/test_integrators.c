/* Time integration of free rigid bodies against closed forms. */
#include <criterion/criterion.h>
#include <math.h>

#include "body/body.h"
#include "core/math.h"
#include "fricdem/fricdem.h"
#include "core/permute.h"
#include "support/world.h"
#include "world/world_store.h"

static fd_world* make_world(fd_integrator integrator, double dt, fd_vec3 gravity)
{
    fd_world_def def = fd_default_world_def();
    def.integrator = integrator;
    def.time_step = dt;
    def.gravity = gravity;
    fd_world* world = fd_world_create(&def);
    cr_assert_not_null(world, "%s", fd_last_error());
    fd_material_def material = fd_default_material_def();
    material.name = "rock";
    cr_assert(!fd_material_id_is_null(fd_world_create_material(world, &material)), "%s", fd_last_error());
    return world;
}

static fd_body_id add_body(fd_world* world, fd_body_def def)
{
    def.material = fd_world_find_material(world, "rock");
    fd_body_id id = fd_world_create_body(world, &def);
    cr_assert(!fd_body_id_is_null(id), "%s", fd_last_error());
    return id;
}

/* A free sphere of the radius, launched from position at velocity. */
static fd_body_def ball_def(double radius, fd_vec3 position, fd_vec3 velocity)
{
    fd_body_def def = fd_default_body_def();
    def.shape.radius = radius;
    def.position = position;
    def.velocity = velocity;
    return def;
}

static void step(fd_world* world, int steps)
{
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    }
}

Test(integrators, symplectic_euler_ballistic_matches_its_closed_form_to_round_off)
{
    /* Paper Sec. 4: v_n = v0 + n dt g, x_n = x0 + dt sum_{k=1..n} v_k
     * = x0 + n dt v0 + dt^2 g n (n + 1) / 2. Only round-off separates the
     * loop from the closed form: n = 1000 additions of terms of size ~1 m
     * accumulate at most ~n eps ~ 2e-13 relative. */
    const double dt = 1e-3;
    const fd_vec3 g = {0.0, 0.0, -9.81};
    fd_world* world = make_world(FD_INTEGRATOR_SYMPLECTIC_EULER, dt, g);
    fd_body_def def = ball_def(0.1, fd_v3(1.0, 2.0, 3.0), fd_v3(0.5, -0.25, 4.0));
    fd_body_id ball = add_body(world, def);
    const int n = 1000;
    step(world, n);
    fd_body_state state = fd_body_get_state(world, ball);
    double sum = 0.5 * dt * dt * n * (n + 1.0);
    fd_vec3 expected = fd_v3_add(fd_v3_mul_add(def.position, n * dt, def.velocity), fd_v3_scale(sum, g));
    fd_vec3 expected_velocity = fd_v3_mul_add(def.velocity, n * dt, g);
    cr_assert(fd_v3_distance(state.position, expected) < 1e-12, "position off by %g m",
              fd_v3_distance(state.position, expected));
    cr_assert(fd_v3_distance(state.velocity, expected_velocity) < 1e-12, "velocity off by %g",
              fd_v3_distance(state.velocity, expected_velocity));
    /* And against the continuous parabola the error is the scheme's own,
     * dt^2 g n / 2 = dt t g / 2: first order, as the paper says. */
    double t = n * dt;
    fd_vec3 parabola = fd_v3_add(fd_v3_mul_add(def.position, t, def.velocity), fd_v3_scale(0.5 * t * t, g));
    cr_assert_float_eq(fd_v3_distance(state.position, parabola), 0.5 * dt * t * 9.81, 1e-12);
    fd_world_free(world);
}

Test(integrators, velocity_verlet_ballistic_is_exact_parabola)
{
    /* Velocity Verlet integrates constant acceleration exactly; only round-off remains. */
    const double dt = 1e-3;
    const fd_vec3 g = {0.3, 0.0, -9.81};
    fd_world* world = make_world(FD_INTEGRATOR_VELOCITY_VERLET, dt, g);
    fd_body_def def = ball_def(0.1, fd_v3(0.0, 0.0, 0.0), fd_v3(1.0, 2.0, 5.0));
    fd_body_id ball = add_body(world, def);
    step(world, 2000);
    double t = fd_world_time(world);
    cr_assert_float_eq(t, 2.0, 1e-12);
    fd_body_state state = fd_body_get_state(world, ball);
    fd_vec3 parabola = fd_v3_add(fd_v3_scale(t, def.velocity), fd_v3_scale(0.5 * t * t, g));
    cr_assert(fd_v3_distance(state.position, parabola) < 1e-11, "off by %g m",
              fd_v3_distance(state.position, parabola));
    fd_world_free(world);
}

Test(integrators, free_flight_without_gravity_is_exact)
{
    fd_world* world = make_world(FD_INTEGRATOR_SYMPLECTIC_EULER, 1e-2, fd_v3(0, 0, 0));
    fd_body_def def = ball_def(0.5, fd_v3(0.0, 0.0, 0.0), fd_v3(3.0, -1.0, 0.5));
    def.angular_velocity = fd_v3(0.0, 0.0, 2.0);
    fd_body_id ball = add_body(world, def);
    step(world, 100);
    fd_body_state state = fd_body_get_state(world, ball);
    /* 100 additions of 0.03 m: a few ulps of 3 m. */
    cr_assert(fd_v3_distance(state.position, fd_v3(3.0, -1.0, 0.5)) < 1e-13);
    cr_assert(fd_v3_distance(state.velocity, def.velocity) == 0.0, "velocity must not change at all");
    /* A sphere spinning about z for 1 s turns by 2 rad: q = (cos 1, 0, 0, sin 1). */
    cr_assert_float_eq(state.orientation.w, cos(1.0), 1e-13);
    cr_assert_float_eq(state.orientation.z, sin(1.0), 1e-13);
    fd_world_free(world);
}

/* Angular momentum in the world frame: L = R I R^T omega. */
static fd_vec3 world_momentum(fd_body_state s, fd_vec3 inertia)
{
    fd_vec3 body = fd_quat_rotate_inverse(s.orientation, s.angular_velocity);
    return fd_quat_rotate(s.orientation, fd_v3_hadamard(inertia, body));
}

static double rotational_energy(fd_body_state s, fd_vec3 inertia)
{
    fd_vec3 body = fd_quat_rotate_inverse(s.orientation, s.angular_velocity);
    return 0.5 * fd_v3_dot(body, fd_v3_hadamard(inertia, body));
}

/* Largest relative energy error of a tumbling ellipsoid over 5 s. */
static double tumbling_energy_error(double dt, double* momentum_error)
{
    fd_world* world = make_world(FD_INTEGRATOR_SYMPLECTIC_EULER, dt, fd_v3(0, 0, 0));
    fd_body_def def = fd_default_body_def();
    def.shape.type = FD_SHAPE_ELLIPSOID;
    def.shape.semi_axes = fd_v3(0.3, 0.2, 0.1);
    /* Spin mostly about the intermediate axis: the tumbling (Dzhanibekov) case. */
    def.angular_velocity = fd_v3(0.05, 6.0, 0.1);
    fd_body_id body = add_body(world, def);
    fd_vec3 inertia = fd_body_get_info(world, body).inertia;
    fd_body_state start = fd_body_get_state(world, body);
    fd_vec3 momentum0 = world_momentum(start, inertia);
    double energy0 = rotational_energy(start, inertia);
    double worst = 0.0, worst_momentum = 0.0;
    int steps = (int)lround(5.0 / dt);
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK);
        fd_body_state state = fd_body_get_state(world, body);
        worst = fmax(worst, fabs(rotational_energy(state, inertia) - energy0) / energy0);
        worst_momentum =
            fmax(worst_momentum, fd_v3_distance(world_momentum(state, inertia), momentum0) / fd_v3_length(momentum0));
    }
    fd_world_free(world);
    *momentum_error = worst_momentum;
    return worst;
}

Test(integrators, tumbling_ellipsoid_keeps_momentum_and_bounded_energy)
{
    /* The drift is a product of exact rotations about principal axes, so the
     * world angular momentum changes only by round-off: 5e4 steps of a few
     * ulps each, < 1e-11 relative. The splitting is second order and
     * symplectic, so the energy error is O((omega dt)^2) and bounded (no
     * drift): with omega dt = 6e-3 the bound 10 (omega dt)^2 = 3.6e-4 holds
     * with room, and halving dt must divide the error by about 4 (we accept >= 3). */
    double momentum_coarse = 0.0, momentum_fine = 0.0;
    double coarse = tumbling_energy_error(1e-3, &momentum_coarse);
    double fine = tumbling_energy_error(5e-4, &momentum_fine);
    cr_assert(momentum_coarse < 1e-11, "angular momentum drifted by %g", momentum_coarse);
    cr_assert(momentum_fine < 1e-11, "angular momentum drifted by %g", momentum_fine);
    cr_assert(coarse < 10.0 * pow(6.0 * 1e-3, 2), "energy error %g", coarse);
    cr_assert(coarse / fine > 3.0, "energy error should be second order: %g then %g", coarse, fine);
}

Test(integrators, axisymmetric_precession_matches_eulers_equations)
{
    /* Torque-free body with I1 = I2 != I3: omega_3 is constant and the
     * transverse part turns in body axes at Omega = (I3 - I1) / I1 omega_3
     * (Landau & Lifshitz, Mechanics, Sec. 36). The second-order drift leaves
     * errors of order (omega dt)^2 w = 2e-6 in the components (measured ~1e-7);
     * 1e-5 allows for them and catches a wrong sign or a missing gyroscopic
     * term, either of which gives an O(0.1) error after 3 s. */
    const double dt = 1e-3;
    fd_world* world = make_world(FD_INTEGRATOR_SYMPLECTIC_EULER, dt, fd_v3(0, 0, 0));
    fd_body_def def = fd_default_body_def();
    def.shape.type = FD_SHAPE_ELLIPSOID;
    def.shape.semi_axes = fd_v3(0.1, 0.1, 0.25);
    const double w3 = 2.0, w_perp = 0.5;
    def.angular_velocity = fd_v3(w_perp, 0.0, w3);
    fd_body_id body = add_body(world, def);
    fd_vec3 inertia = fd_body_get_info(world, body).inertia;
    double precession = (inertia.z - inertia.x) / inertia.x * w3;
    step(world, 3000);
    double t = fd_world_time(world);
    fd_body_state state = fd_body_get_state(world, body);
    fd_vec3 body_omega = fd_quat_rotate_inverse(state.orientation, state.angular_velocity);
    /* The sub-rotations about body axes 1 and 2 tilt L a little within a
     * step, so omega_3 is kept to O((omega dt)^2) omega_3 = 8e-6, not to
     * round-off (measured: 1.3e-7). */
    cr_assert_float_eq(body_omega.z, w3, 1e-5);
    /* Euler: omega_1' = -Omega omega_2, omega_2' = Omega omega_1, so
     * omega_1 = w cos(Omega t), omega_2 = w sin(Omega t). */
    cr_assert_float_eq(body_omega.x, w_perp * cos(precession * t), 1e-5);
    cr_assert_float_eq(body_omega.y, w_perp * sin(precession * t), 1e-5);
    fd_world_free(world);
}

Test(integrators, locks_hold_components_in_the_lock_frame)
{
    /* A disk in the x-y plane (translation z and rotation x, y locked) under a
     * tilted gravity and a torque on every axis stays in its plane. */
    fd_world* world = make_world(FD_INTEGRATOR_SYMPLECTIC_EULER, 1e-3, fd_v3(1.0, -2.0, -9.81));
    fd_body_def def = fd_default_body_def();
    def.shape.radius = 0.1;
    def.lock_translation = FD_LOCK_Z;
    def.lock_rotation = FD_LOCK_X | FD_LOCK_Y;
    def.external_torque = fd_v3(1.0, 1.0, 1.0);
    fd_body_id disk = add_body(world, def);
    fd_contact_law_def law = fd_default_contact_law_def();
    law.submodel[FD_MECHANISM_NORMAL].params[0] = (fd_param){"k_n", 1e4};
    law.submodel[FD_MECHANISM_NORMAL].param_count = 1;
    fd_material_id rock = fd_world_find_material(world, "rock");
    cr_assert_eq(fd_world_set_contact_law(world, rock, rock, &law), FD_OK, "%s", fd_last_error());
    step(world, 500);
    fd_body_state state = fd_body_get_state(world, disk);
    cr_assert_eq(state.position.z, 0.0);
    cr_assert_eq(state.angular_velocity.x, 0.0);
    cr_assert_eq(state.angular_velocity.y, 0.0);
    cr_assert(state.angular_velocity.z > 0.0, "unlocked rotation must respond to the torque");
    cr_assert(state.position.x > 0.0, "unlocked translation must respond to gravity");

    /* A brick on a 0.3 rad incline: only motion along the slope is allowed,
     * expressed with a lock frame rotated about y. */
    fd_body_def brick = fd_default_body_def();
    brick.name = "brick";
    brick.shape.radius = 0.1;
    brick.position = fd_v3(5.0, 0.0, 0.0);
    brick.lock_frame = fd_quat_from_axis_angle(fd_v3(0, 1, 0), 0.3);
    brick.lock_translation = FD_LOCK_Y | FD_LOCK_Z;
    brick.lock_rotation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    fd_body_id brick_id = add_body(world, brick);
    step(world, 100);
    state = fd_body_get_state(world, disk);
    cr_assert_eq(state.position.z, 0.0);
    fd_body_state b = fd_body_get_state(world, brick_id);
    fd_vec3 slope = fd_quat_rotate(brick.lock_frame, fd_v3(1, 0, 0));
    fd_vec3 moved = fd_v3_sub(b.position, brick.position);
    cr_assert(fd_v3_length(fd_v3_reject(moved, slope)) < 1e-14, "brick left its slope by %g m",
              fd_v3_length(fd_v3_reject(moved, slope)));
    cr_assert(fd_v3_length(moved) > 0.0);
    fd_world_free(world);
}

/* ---------------------------------------------------------------- four bodies at a time
 * The penalty stepper moves four neighbouring bodies in and out of its
 * integration block by the processor's permutes (src/penalty/body_quads.c)
 * and the others one at a time. Which way a body goes must not change a bit:
 * a periodic gas (x and y) of spheres that cross the faces, with static,
 * loaded and anisotropic bodies between them (each breaks a quad: the
 * stepper's own paths take over), colliding with friction, stepped with the
 * quads and without them, must end in the same bits, with both integrators. */
static void run_gas(fd_integrator integrator, bool quads, int steps, fd_body_state* out, int count, int* wraps,
                    int* contacts)
{
    fd_permutes_switch(quads);
    fd_world_def def = test_world_def(1e-4, fd_v3(0.3, -0.2, -9.81));
    def.integrator = integrator;
    def.periodic[0] = def.periodic[1] = true;
    def.box_min = fd_v3(0.0, 0.0, -1.0);
    def.box_max = fd_v3(0.2, 0.2, 1.0);
    fd_world* world = fd_world_create(&def);
    cr_assert_not_null(world, "%s", fd_last_error());
    fd_material_id glass = test_add_solid_material(world, "glass", 2500.0, 0.0);
    fd_contact_law_def law = test_hooke_law(1e4, 0.5);
    test_set_sds(&law, FD_MECHANISM_SLIDE, "dsds", 2e3, 1.0, 0.4);
    test_set_law(world, glass, &law);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int b = 0; b < count; ++b) {
        /* a loose lattice of 10 x 10 x 3 cells of 2 cm, jittered */
        fd_vec3 cell = fd_v3(0.01 + 0.02 * (b % 10), 0.01 + 0.02 * ((b / 10) % 10), -0.03 + 0.02 * (b / 100));
        fd_vec3 position = fd_v3_add(cell, fd_v3(test_uniform(&seed, -0.002, 0.002), test_uniform(&seed, -0.002, 0.002),
                                                  test_uniform(&seed, -0.002, 0.002)));
        fd_vec3 velocity = fd_v3(test_uniform(&seed, -3, 3), test_uniform(&seed, -3, 3), test_uniform(&seed, -1, 1));
        fd_body_def body = test_sphere_def(glass, NULL, 0.009, position, velocity);
        body.angular_velocity = fd_v3(test_uniform(&seed, -50, 50), test_uniform(&seed, -50, 50),
                                      test_uniform(&seed, -50, 50));
        if (b % 13 == 5) {
            body.type = FD_BODY_STATIC;
            body.velocity = body.angular_velocity = fd_v3(0.0, 0.0, 0.0);
        } else if (b % 11 == 3) {
            body.external_force = fd_v3(0.0, 0.0, 0.05);
        } else if (b % 17 == 8) {
            double m = 2500.0 * 4.0 / 3.0 * FD_PI * 0.009 * 0.009 * 0.009, r2 = 0.009 * 0.009;
            body.inertia = fd_v3(0.4 * m * r2, 0.5 * m * r2, 0.6 * m * r2);
        }
        test_create_body(world, &body);
    }
    fd_body_state* before = malloc((size_t)count * sizeof *before);
    cr_assert_not_null(before);
    *wraps = *contacts = 0;
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_get_states(world, 0, count, before), FD_OK, "%s", fd_last_error());
        test_step(world);
        cr_assert_eq(fd_world_get_states(world, 0, count, out), FD_OK, "%s", fd_last_error());
        for (int b = 0; b < count; ++b) {
            *wraps += fabs(out[b].position.x - before[b].position.x) > 0.1 ||
                      fabs(out[b].position.y - before[b].position.y) > 0.1;
        }
        *contacts += fd_world_contact_count(world);
    }
    free(before);
    fd_world_free(world);
    fd_permutes_switch(true);
}

Test(integrators, four_bodies_at_a_time_give_the_bits_of_one_at_a_time)
{
    if (!fd_permutes_on()) {
        cr_skip_test("this processor has no AVX2: the stepper never runs four bodies at a time");
    }
    enum { count = 300, steps = 200 };
    const fd_integrator integrators[2] = {FD_INTEGRATOR_SYMPLECTIC_EULER, FD_INTEGRATOR_VELOCITY_VERLET};
    for (int k = 0; k < 2; ++k) {
        fd_body_state quads[count], alone[count];
        int wraps_quads = 0, wraps_alone = 0, contacts = 0, contacts_alone = 0;
        run_gas(integrators[k], true, steps, quads, count, &wraps_quads, &contacts);
        run_gas(integrators[k], false, steps, alone, count, &wraps_alone, &contacts_alone);
        /* at 3 m/s a body crosses the 0.2 m box in ~700 steps: a few dozen
         * wraps in 200 steps, so the quads' wrap test is exercised */
        cr_assert_gt(wraps_quads, 10, "only %d wraps: the gas does not cross the faces", wraps_quads);
        cr_assert_eq(wraps_quads, wraps_alone);
        cr_assert_gt(contacts, steps, "too few collisions (%d contact-steps) to move the spheres' spins", contacts);
        for (int b = 0; b < count; ++b) {
            cr_assert(memcmp(&quads[b], &alone[b], sizeof quads[b]) == 0,
                      "integrator %d: body %d differs with the quads (x %.17g / %.17g, w %.17g / %.17g)", k, b,
                      quads[b].position.x, alone[b].position.x, quads[b].angular_velocity.z,
                      alone[b].angular_velocity.z);
        }
    }
}

/* A world of one material "rock" with a hooke law (k_n 1e4 N/m), gravity
 * down, the ledger on for `careful` (with an external load somewhere, it
 * makes every step the careful way: src/penalty/stepper.c). */
static fd_world* make_rock_world(fd_integrator integrator, double dt, bool careful)
{
    fd_world_def def = fd_default_world_def();
    def.integrator = integrator;
    def.time_step = dt;
    def.gravity = fd_v3(0.0, 0.0, -9.81);
    def.energy_ledger = careful;
    fd_world* world = fd_world_create(&def);
    cr_assert_not_null(world, "%s", fd_last_error());
    fd_material_def material = fd_default_material_def();
    material.name = "rock";
    fd_material_id rock = fd_world_create_material(world, &material);
    cr_assert(!fd_material_id_is_null(rock), "%s", fd_last_error());
    fd_contact_law_def law = fd_default_contact_law_def();
    law.submodel[FD_MECHANISM_NORMAL].params[0] = (fd_param){"k_n", 1e4};
    law.submodel[FD_MECHANISM_NORMAL].param_count = 1;
    cr_assert_eq(fd_world_set_contact_law(world, rock, rock, &law), FD_OK, "%s", fd_last_error());
    return world;
}

/* A sphere with an external load, far from the others (only its load
 * matters: with the ledger on, the world steps the careful way). */
static void add_pushed_far_away(fd_world* world)
{
    fd_body_def pushed = ball_def(0.01, fd_v3(100.0, 0.0, 1.0), fd_v3(0.0, 0.0, 0.0));
    pushed.external_force = fd_v3(0.0, 0.0, 1e-3);
    add_body(world, pushed);
}

/* Spheres turning from 0 to 10 rad a step, in free flight: the stepper's
 * straight loop takes the exponential map by its series up to 0.2 rad a
 * step, and a block with a wider turn is done again one body at a time by
 * body/integrate.c (src/penalty/stepper.c, exact_body), from the state
 * before the step, which a step made in place has already begun to write
 * over (its loads): both ways must give body/integrate.c's bits for every
 * sphere, the slow ones of the same block included. The careful way (the
 * saved buffers) is what a world with the ledger and an external load
 * takes. */
static void expect_the_bits_of_body_integrate(bool careful)
{
    enum { count = 8, steps = 20 };
    const double dt = 1e-4;
    const double spins[count] = {0.0, 100.0, 1e3, 3e3, 5e3, 2e4, 1e5, 50.0}; /* rad/s: omega dt to 10 rad */
    fd_world* world = make_rock_world(FD_INTEGRATOR_SYMPLECTIC_EULER, dt, careful); /* (they never touch) */
    const fd_vec3 gravity = fd_world_get_def(world).gravity;
    for (int b = 0; b < count; ++b) {
        fd_body_def ball = ball_def(0.01, fd_v3(1.0 * b, 0.0, 1.0), fd_v3(0.1 * b, 0.0, 0.0));
        ball.angular_velocity = fd_v3(0.3 * spins[b], 0.0, spins[b]);
        add_body(world, ball);
    }
    if (careful) {
        add_pushed_far_away(world);
    }
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    fd_body_state expected[count];
    cr_assert_eq(fd_world_get_states(world, 0, count, expected), FD_OK, "%s", fd_last_error());
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "step %d: %s", s, fd_last_error());
        for (int b = 0; b < count; ++b) {
            const fd_body_mass* mass = &world->masses[b];
            fd_body_kick(&expected[b], mass, fd_v3_scale(world->motion[b].mass, gravity), fd_v3(0.0, 0.0, 0.0),
                         dt);
            fd_body_drift(&expected[b], mass, dt);
        }
    }
    fd_body_state out[count];
    cr_assert_eq(fd_world_get_states(world, 0, count, out), FD_OK, "%s", fd_last_error());
    for (int b = 0; b < count; ++b) {
        cr_assert(memcmp(&out[b], &expected[b], sizeof out[b]) == 0,
                  "%s: sphere %d (omega dt = %g) differs (q.w %.17g / %.17g, x %.17g / %.17g)",
                  careful ? "careful" : "in place", b, spins[b] * dt, out[b].orientation.w, expected[b].orientation.w,
                  out[b].position.x, expected[b].position.x);
    }
    fd_world_free(world);
}

Test(integrators, turns_too_wide_for_the_series_are_body_integrates_in_place_and_the_careful_way)
{
    expect_the_bits_of_body_integrate(false);
    expect_the_bits_of_body_integrate(true);
}

/* The same on a floor, where the loads of the last step are contact loads,
 * not m g: a block done again one body at a time must kick with those
 * (made in place, the gathering has already set the new loads to m g). The
 * turns stay under the blow-up test's half radian a step. In place and the
 * careful way give the same bits. */
static void spin_on_a_floor(bool careful, fd_body_state* out, int count, int steps)
{
    const double dt = 1e-4;
    const double turns[8] = {0.0, 0.01, 0.1, 0.3, 0.45, 0.25, 0.35, 0.05}; /* rad a step */
    cr_assert_eq(count, 8);
    fd_world* world = make_rock_world(fd_default_world_def().integrator, dt, careful);
    fd_body_def floor = fd_default_body_def();
    floor.type = FD_BODY_STATIC;
    floor.shape.type = FD_SHAPE_PLANE;
    floor.shape.plane_normal = fd_v3(0.0, 0.0, 1.0);
    add_body(world, floor);
    for (int b = 0; b < count; ++b) {
        /* near the rest overlap m g / k_n = 4.1e-6 m (1000 kg/m^3), a little off it */
        fd_body_def ball = ball_def(0.01, fd_v3(0.1 * b, 0.0, 0.01 - 4.8e-6 + 2e-7 * b), fd_v3(0.0, 0.0, 0.0));
        ball.angular_velocity = fd_v3(0.0, 0.0, turns[b] / dt);
        add_body(world, ball);
    }
    if (careful) {
        add_pushed_far_away(world);
    }
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "step %d: %s", s, fd_last_error());
    }
    cr_assert_eq(fd_world_contact_count(world), count, "the spheres must stand on the floor (%d contacts)",
                 fd_world_contact_count(world));
    cr_assert_eq(fd_world_get_states(world, 1, count, out), FD_OK, "%s", fd_last_error());
    fd_world_free(world);
}

Test(integrators, turns_too_wide_for_the_series_on_a_floor_kick_with_the_contact_loads)
{
    enum { count = 8, steps = 30 };
    fd_body_state in_place[count], kept[count];
    spin_on_a_floor(false, in_place, count, steps);
    spin_on_a_floor(true, kept, count, steps);
    for (int b = 0; b < count; ++b) {
        cr_assert(memcmp(&in_place[b], &kept[b], sizeof kept[b]) == 0,
                  "sphere %d: in place z %.17g, the careful way %.17g", b, in_place[b].position.z, kept[b].position.z);
    }
    /* the floor's push is in them (30 steps of free fall would take 4.4e-5 m) */
    cr_assert_gt(in_place[4].position.z, 0.01 - 1e-5);
}
