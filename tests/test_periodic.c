/* Periodic boundaries (fd_world_def.periodic, docs/design.md "Periodic
 * boundaries"): a collision across a face is the collision in the middle of
 * the box; a body leaving through one face comes back through the other with
 * its velocity; a contact and its history live on across a wrap; momentum of
 * a periodic gas is kept to round-off; the broad phase finds exactly the
 * minimum-image pairs of a brute-force search; results do not depend on the
 * thread count; bad definitions and scenes are refused with clear messages. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broadphase/broadphase.h"
#include "core/math.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/world.h"

/* ---------------------------------------------------------------- helpers */

static fd_world_def periodic_def(double dt, bool x, bool y, bool z, fd_vec3 low, fd_vec3 high)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = dt;
    def.gravity = fd_v3(0, 0, 0);
    def.periodic[0] = x;
    def.periodic[1] = y;
    def.periodic[2] = z;
    def.box_min = low;
    def.box_max = high;
    return def;
}

/* hooke (k_n = 1e4 N/m, e = 0.8) with a slide model ("dsds", "csds" or NULL). */
static fd_material_id add_law(fd_world* world, const char* slide_model)
{
    fd_material_id m = test_add_solid_material(world, "glass", 2500.0, 0.0);
    fd_contact_law_def law = test_hooke_law(1e4, 0.8);
    if (slide_model) {
        test_set_sds(&law, FD_MECHANISM_SLIDE, slide_model, 2e3, 1.0, 0.4);
    }
    test_set_law(world, m, &law);
    return m;
}

static fd_body_id add_ball(fd_world* world, fd_material_id m, const char* name, double radius, fd_vec3 position,
                           fd_vec3 velocity, fd_vec3 angular_velocity)
{
    fd_body_def def = test_sphere_def(m, name, radius, position, velocity);
    def.angular_velocity = angular_velocity;
    return test_create_body(world, &def);
}

/* ---------------------------------------------------------------- one collision */

typedef struct collision_run {
    fd_body_state a, b;            /* after the collision */
    int contact_steps;
    int ids;                       /* distinct contact ids seen */
    int wraps_during_contact;      /* steps in contact at which body a jumped by a period */
    double xi[400][3];             /* slide spring per contact step */
    double point_to_image;         /* max |point_j - (x_j + image_offset)| - r over the contact */
} collision_run;

/* Two spheres r = 1 cm, 2500 kg/m^3, meeting obliquely (centre lines 0.6 r
 * apart in y) at 1 m/s each, body a spinning, with friction. In the periodic
 * box [-0.5, 0.5)^3 they start on either side of the x faces and meet across
 * them (a crosses x = 0.5 while they touch); in the open world the same
 * relative configuration sits at the origin. Body a is created first in both
 * (it is body i of the contact). */
static collision_run collide_pair_shapes(bool across, const char* slide_model, bool ellipsoid_b);

static collision_run collide_pair(bool across, const char* slide_model)
{
    return collide_pair_shapes(across, slide_model, false);
}

/* Body b an ellipsoid (semi-axes 12, 10, 8 mm, turned) instead of a sphere. */
static collision_run collide_pair_shapes(bool across, const char* slide_model, bool ellipsoid_b)
{
    fd_world_def def = periodic_def(1e-5, across, across, across, fd_v3(-0.5, -0.5, -0.5), fd_v3(0.5, 0.5, 0.5));
    fd_world* world = test_create_world(&def);
    fd_material_id m = add_law(world, slide_model);
    double r = 0.01;
    /* Contact begins after 0.0205 s, when a is at 0.4995 (across) or
     * -0.0105 (open); b's image is always 0.06 m ahead of a in x. */
    double xa = across ? 0.4795 : -0.0305;
    double xb = across ? 0.4795 + 0.06 - 1.0 : -0.0305 + 0.06;
    fd_body_id a = add_ball(world, m, "a", r, fd_v3(xa, 0.2, 0.1), fd_v3(1, 0, 0), fd_v3(0, 30, 20));
    fd_body_id b;
    if (ellipsoid_b) {
        fd_body_def def_b = fd_default_body_def();
        def_b.name = "b";
        def_b.shape.type = FD_SHAPE_ELLIPSOID;
        def_b.shape.semi_axes = fd_v3(0.012, 0.01, 0.008);
        def_b.orientation = fd_quat_from_axis_angle(fd_v3_normalize(fd_v3(1, 2, 3)), 0.7);
        def_b.material = m;
        def_b.position = fd_v3(xb - 0.002, 0.2 + 0.6 * r, 0.1);
        def_b.velocity = fd_v3(-1, 0, 0);
        b = fd_world_create_body(world, &def_b);
        cr_assert(!fd_body_id_is_null(b), "%s", fd_last_error());
    } else {
        b = add_ball(world, m, "b", r, fd_v3(xb, 0.2 + 0.6 * r, 0.1), fd_v3(-1, 0, 0), fd_v3(0, 0, 0));
    }
    collision_run run;
    memset(&run, 0, sizeof run);
    uint64_t first_id = 0;
    bool touched = false;
    double previous_x = xa;
    for (int s = 0; s < 6000; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        double x = fd_body_get_state(world, a).position.x;
        int count = fd_world_contact_count(world);
        cr_assert_leq(count, 1);
        if (count == 1) {
            fd_contact_view view;
            cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
            if (!touched || view.id != first_id) {
                run.ids++;
                first_id = view.id;
            }
            touched = true;
            if (fabs(x - previous_x) > 0.5) {
                run.wraps_during_contact++;
            }
            cr_assert_lt(run.contact_steps, 400);
            if (slide_model) {
                run.xi[run.contact_steps][0] = test_column_value(world, &view, "xi_x");
                run.xi[run.contact_steps][1] = test_column_value(world, &view, "xi_y");
                run.xi[run.contact_steps][2] = test_column_value(world, &view, "xi_z");
            }
            fd_vec3 image = fd_v3_add(fd_body_get_state(world, b).position, view.image_offset);
            double off = ellipsoid_b ? fmax(0.0, fd_v3_distance(view.geometry.point_j, image) - 0.012)
                                     : fabs(fd_v3_distance(view.geometry.point_j, image) - r);
            run.point_to_image = fmax(run.point_to_image, off);
            run.contact_steps++;
        }
        previous_x = x;
    }
    cr_assert(touched, "the spheres never met");
    cr_assert_eq(fd_world_contact_count(world), 0, "still in contact at the end");
    run.a = fd_body_get_state(world, a);
    run.b = fd_body_get_state(world, b);
    fd_world_free(world);
    return run;
}

/* How far the two runs may differ. Until they touch, velocities are equal
 * bit for bit; the positions differ by round-off only: each of the ~2050
 * drifts before and ~250 during the contact rounds a coordinate to half an
 * ulp, at most 2^-54 = 5.6e-17 m for |x| < 1 m, and the image offset
 * x_b - 1 m adds one more rounding, so the relative position of the pair
 * differs by at most eps_x = 2 x 2300 x 5.6e-17 = 2.6e-13 m. Through the
 * contact that changes the force by k eps_x and the velocity by at most
 * (k eps_x / m_eff) T_c = omega^2 eps_x T_c = pi omega eps_x (omega =
 * sqrt(k/m_eff) = 1.4e3 /s, T_c = pi/omega): 1.1e-9 m/s, and the normal
 * direction by eps_x / 2r = 1.3e-11 rad, i.e. 1.3e-11 m/s on a 1 m/s
 * velocity. A factor 10 over the sum: 1.2e-8 m/s. Angular velocities take
 * the tangential part over r = 1 cm, times 2.5 (5/2 for I = 2/5 m r^2):
 * 2.8e-7 rad/s, a factor 10: 3e-6 rad/s. */
static void assert_same_collision(const collision_run* across, const collision_run* open)
{
    const double velocity_tolerance = 1.2e-8, spin_tolerance = 3e-6;
    const fd_body_state* states[2][2] = {{&across->a, &open->a}, {&across->b, &open->b}};
    for (int k = 0; k < 2; ++k) {
        fd_vec3 dv = fd_v3_sub(states[k][0]->velocity, states[k][1]->velocity);
        fd_vec3 dw = fd_v3_sub(states[k][0]->angular_velocity, states[k][1]->angular_velocity);
        cr_assert_leq(fd_v3_length(dv), velocity_tolerance, "body %c: velocities differ by %g m/s", "ab"[k],
                      fd_v3_length(dv));
        cr_assert_leq(fd_v3_length(dw), spin_tolerance, "body %c: angular velocities differ by %g rad/s", "ab"[k],
                      fd_v3_length(dw));
    }
    /* The collision did something: a changed velocity and spin. */
    cr_assert_gt(fabs(open->a.velocity.x - 1.0), 0.3);
    cr_assert_gt(fd_v3_length(fd_v3_sub(open->b.angular_velocity, fd_v3(0, 0, 0))), 1.0);
    cr_assert_eq(across->contact_steps, open->contact_steps);
}

Test(periodic, collision_across_a_face_equals_the_collision_in_the_interior_frictionless)
{
    collision_run across = collide_pair(true, NULL);
    collision_run open = collide_pair(false, NULL);
    /* Frictionless: no spin change for b, so check velocities only here. */
    for (int k = 0; k < 2; ++k) {
        const fd_body_state* p = k ? &across.b : &across.a;
        const fd_body_state* q = k ? &open.b : &open.a;
        cr_assert_leq(fd_v3_distance(p->velocity, q->velocity), 1.2e-8);
    }
    cr_assert_gt(fabs(open.a.velocity.x - 1.0), 0.3);
}

Test(periodic, collision_across_a_face_with_friction_and_spin_equals_the_interior_one)
{
    /* The arms of the friction torques are taken from body b's image; from b
     * itself (a metre away) the spins would be wrong by a factor ~100. */
    const char* models[] = {"dsds", "csds"};
    for (int k = 0; k < 2; ++k) {
        collision_run across = collide_pair(true, models[k]);
        collision_run open = collide_pair(false, models[k]);
        assert_same_collision(&across, &open);
        cr_assert_leq(across.point_to_image, 1e-4, "%s: point_j is %g m off b's image surface", models[k],
                      across.point_to_image);
    }
}

Test(periodic, an_ellipsoid_collision_across_a_face_equals_the_interior_one)
{
    /* The image offset is shape-blind: a sphere meeting an ellipsoid across
     * the faces (point_j within the ellipsoid's reach of its image) is the
     * interior collision to the same round-off bound. */
    collision_run across = collide_pair_shapes(true, "csds", true);
    collision_run open = collide_pair_shapes(false, "csds", true);
    assert_same_collision(&across, &open);
    cr_assert_leq(across.point_to_image, 1e-12);
}

Test(periodic, a_contact_and_its_history_survive_a_wrap)
{
    /* Body a crosses x = 0.5 while touching b: one contact id for the whole
     * collision, and its slide spring, step by step, is the interior run's
     * to round-off (the spring is ~1e-5 m; the bound above over k_t: the
     * force difference 1e-8 N gives 5e-12 m; 1e-10 m allowed). */
    collision_run across = collide_pair(true, "csds");
    collision_run open = collide_pair(false, "csds");
    cr_assert_eq(across.ids, 1, "%d contact ids", across.ids);
    cr_assert_eq(across.wraps_during_contact, 1, "body a should wrap once while touching");
    double largest = 0.0;
    for (int s = 0; s < across.contact_steps; ++s) {
        for (int c = 0; c < 3; ++c) {
            cr_assert_leq(fabs(across.xi[s][c] - open.xi[s][c]), 1e-10, "step %d: xi differs", s);
            largest = fmax(largest, fabs(open.xi[s][c]));
        }
    }
    cr_assert_gt(largest, 1e-6, "the spring should have been loaded");
}

/* ---------------------------------------------------------------- free flight */

Test(periodic, a_sphere_leaving_through_plus_x_reenters_at_minus_x_with_the_same_velocity)
{
    fd_world_def def = periodic_def(1e-3, true, true, false, fd_v3(0, 0, 0), fd_v3(1, 2, 1));
    fd_world* world = test_create_world(&def);
    fd_material_id m = add_law(world, NULL);
    fd_vec3 v = fd_v3(0.7, -0.3, 0.05);
    fd_body_id ball = add_ball(world, m, "ball", 0.05, fd_v3(0.9, 0.1, 0.5), v, fd_v3(1, 2, 3));
    bool reentered_x = false, reentered_y = false;
    double unwrapped_x = 0.9, unwrapped_y = 0.1;
    for (int s = 0; s < 1000; ++s) {
        fd_body_state before = fd_body_get_state(world, ball);
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        fd_body_state after = fd_body_get_state(world, ball);
        unwrapped_x += 1e-3 * v.x;
        unwrapped_y += 1e-3 * v.y;
        /* Velocity and spin are untouched, bit for bit. */
        cr_assert(memcmp(&after.velocity, &v, sizeof v) == 0);
        cr_assert(memcmp(&after.angular_velocity, &before.angular_velocity, sizeof v) == 0);
        cr_assert(after.position.x >= 0.0 && after.position.x < 1.0, "x = %.17g", after.position.x);
        cr_assert(after.position.y >= 0.0 && after.position.y < 2.0, "y = %.17g", after.position.y);
        if (after.position.x < before.position.x) {
            reentered_x = true;
            /* Left through x = 1, back at x = 0 + the rest of the step. */
            cr_assert_float_eq(after.position.x, before.position.x + 7e-4 - 1.0, 1e-15);
        }
        if (after.position.y > before.position.y) {
            reentered_y = true;
            cr_assert_float_eq(after.position.y, before.position.y - 3e-4 + 2.0, 1e-15);
        }
        /* z is not periodic: it just drifts. */
        cr_assert_float_eq(after.position.z, 0.5 + (s + 1) * 5e-5, 1e-12);
    }
    cr_assert(reentered_x && reentered_y);
    /* After 1 s: x = 0.9 + 0.7 = 1.6 -> 0.6; y = 0.1 - 0.3 = -0.2 -> 1.8
     * (round-off of 1000 additions: 1e-12). */
    fd_body_state end = fd_body_get_state(world, ball);
    cr_assert_float_eq(end.position.x, fmod(unwrapped_x, 1.0), 1e-12);
    cr_assert_float_eq(end.position.y, unwrapped_y + 2.0, 1e-12);
    fd_world_free(world);
}

Test(periodic, bodies_outside_the_box_are_wrapped_in_when_the_world_is_prepared)
{
    fd_world_def def = periodic_def(1e-3, true, false, true, fd_v3(-1, -1, -1), fd_v3(1, 1, 1));
    fd_world* world = fd_world_create(&def);
    fd_material_id m = add_law(world, NULL);
    fd_body_id ball = add_ball(world, m, "ball", 0.1, fd_v3(2.5, 5.0, -3.25), fd_v3(0, 0, 0), fd_v3(0, 0, 0));
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    fd_vec3 x = fd_body_get_state(world, ball).position;
    cr_assert_float_eq(x.x, 0.5, 1e-15);
    cr_assert_eq(x.y, 5.0); /* y is not periodic */
    cr_assert_float_eq(x.z, 0.75, 1e-15);
    fd_world_free(world);
}

Test(periodic, a_ball_rolling_on_a_floor_keeps_its_plane_contact_across_a_face)
{
    /* A floor z = 0 is allowed in a world periodic in x and y (its normal is
     * perpendicular to both); the plane contact needs no image. */
    fd_world_def def = periodic_def(1e-5, true, true, false, fd_v3(0, 0, 0), fd_v3(0.1, 0.1, 1));
    def.gravity = fd_v3(0, 0, -9.81);
    fd_world* world = fd_world_create(&def);
    fd_material_id m = add_law(world, "csds");
    test_add_ground(world, m);
    double r = 0.01, sink = 0.0104720 * 9.81 / 1e4; /* m g / k_n: resting overlap */
    fd_body_id ball = add_ball(world, m, "ball", r, fd_v3(0.095, 0.05, r - sink), fd_v3(0.5, 0, 0),
                               fd_v3(0, 0.5 / r, 0));
    uint64_t id = 0;
    bool wrapped = false;
    for (int s = 0; s < 3000; ++s) {
        double x0 = fd_body_get_state(world, ball).position.x;
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_contact_count(world), 1, "step %d: the ball left the floor", s);
        fd_contact_view view;
        fd_world_get_contact(world, 0, &view);
        cr_assert_eq(view.image_offset.x, 0.0);
        if (s == 0) {
            id = view.id;
        }
        cr_assert_eq(view.id, id, "the floor contact was renewed at step %d", s);
        wrapped = wrapped || fd_body_get_state(world, ball).position.x < x0;
    }
    cr_assert(wrapped);
    fd_world_free(world);
}

/* ---------------------------------------------------------------- momentum */

/* n spheres of radius 1 mm, 2500 kg/m^3, at random non-overlapping places in
 * the periodic cube [0, side)^3, random velocities (uniform in [-1, 1] m/s
 * per component), random spins; hooke + slide. */
static fd_world* make_gas(int n, double side, int threads, const char* slide_model, uint64_t seed)
{
    fd_world_def def = periodic_def(2e-6, true, true, true, fd_v3(0, 0, 0), fd_v3(side, side, side));
    def.thread_count = threads;
    fd_world* world = test_create_world(&def);
    fd_material_id m = test_add_solid_material(world, "glass", 2500.0, 0.0);
    fd_contact_law_def law = test_hooke_law(2e4, 0.7);
    test_set_sds(&law, FD_MECHANISM_SLIDE, slide_model, 5e3, 0.05, 0.5);
    test_set_law(world, m, &law);
    double r = 5e-4;
    fd_vec3* placed = malloc((size_t)n * sizeof *placed);
    fd_periodic box = fd_periodic_none();
    for (int a = 0; a < 3; ++a) {
        fd_periodic_set_axis(&box, a, 0.0, side);
    }
    for (int k = 0; k < n; ++k) {
        fd_vec3 x;
        bool clear;
        do {
            x = fd_v3(side * test_random(&seed), side * test_random(&seed), side * test_random(&seed));
            clear = true;
            for (int j = 0; j < k && clear; ++j) {
                fd_vec3 image = fd_v3_add(placed[j], fd_periodic_offset(&box, x, placed[j]));
                clear = fd_v3_distance(x, image) > 2.05 * r;
            }
        } while (!clear);
        placed[k] = x;
        fd_vec3 v = fd_v3(2 * test_random(&seed) - 1, 2 * test_random(&seed) - 1, 2 * test_random(&seed) - 1);
        fd_vec3 w =
            fd_v3(2e3 * test_random(&seed) - 1e3, 2e3 * test_random(&seed) - 1e3, 2e3 * test_random(&seed) - 1e3);
        add_ball(world, m, NULL, r, x, v, w);
    }
    free(placed);
    return world;
}

static fd_vec3 momentum(const fd_world* world, double* largest)
{
    fd_vec3 p = {0, 0, 0};
    *largest = 0.0;
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        fd_body_id id = fd_world_body_at(world, b);
        double mass = fd_body_get_info(world, id).mass;
        fd_vec3 v = fd_body_get_state(world, id).velocity;
        p = fd_v3_mul_add(p, mass, v);
        *largest = fmax(*largest, mass * fd_v3_length(v));
    }
    return p;
}

Test(periodic, momentum_of_a_periodic_gas_is_kept_to_round_off)
{
    /* 300 spheres at solid fraction 0.16 collide hundreds of times, many
     * across faces. Each contact pushes its two bodies with +F and -F, so
     * the total momentum changes only by round-off: each kick rounds each
     * velocity component to half an ulp, so per step and body the momentum
     * moves by at most m |v| eps (plus the summation's own round-off, of the
     * same size): bound 4 N steps eps max(m |v|) per component. */
    const int n = 300, steps = 3000;
    fd_world* world = make_gas(n, 0.015, 1, "csds", 12345);
    double largest;
    fd_vec3 p0 = momentum(world, &largest);
    int contacts = 0, across = 0;
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        for (int c = 0; c < fd_world_contact_count(world); ++c) {
            fd_contact_view view;
            fd_world_get_contact(world, c, &view);
            contacts += view.first_step == fd_world_step_count(world);
            across += view.first_step == fd_world_step_count(world) && fd_v3_length(view.image_offset) > 0.0;
        }
    }
    double now_largest;
    fd_vec3 p1 = momentum(world, &now_largest);
    double bound = 4.0 * n * steps * DBL_EPSILON * fmax(largest, now_largest);
    fd_vec3 dp = fd_v3_sub(p1, p0);
    cr_assert_leq(fabs(dp.x), bound, "dp = %g, bound %g", dp.x, bound);
    cr_assert_leq(fabs(dp.y), bound, "dp = %g, bound %g", dp.y, bound);
    cr_assert_leq(fabs(dp.z), bound, "dp = %g, bound %g", dp.z, bound);
    cr_assert_gt(contacts, 200, "only %d collisions", contacts);
    cr_assert_gt(across, 10, "only %d collisions across a face", across);
    fd_world_free(world);
}

/* ---------------------------------------------------------------- determinism */

static uint64_t run_gas(int n, double side, int threads, int steps, int* collisions)
{
    fd_world* world = make_gas(n, side, threads, "dsds", 99);
    *collisions = 0;
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        for (int c = 0; c < fd_world_contact_count(world); ++c) {
            fd_contact_view view;
            fd_world_get_contact(world, c, &view);
            *collisions += view.first_step == fd_world_step_count(world);
        }
    }
    uint64_t hash = fd_world_state_hash(world);
    fd_world_free(world);
    return hash;
}

Test(periodic, results_do_not_depend_on_the_thread_count)
{
    /* A dense gas (solid fraction 0.16: the broad phase's dense grid, split
     * among threads) and a dilute one (0.013: its spatial hash). */
    double sides[2] = {0.0086, 0.02};
    int steps[2] = {1000, 3000};
    for (int k = 0; k < 2; ++k) {
        int collisions, ignored;
        uint64_t serial = run_gas(200, sides[k], 1, steps[k], &collisions);
        uint64_t again = run_gas(200, sides[k], 1, steps[k], &ignored);
        uint64_t threaded = run_gas(200, sides[k], 2, steps[k], &ignored);
        cr_assert_eq(serial, again);
        cr_assert_eq(serial, threaded, "side %g: %016llx vs %016llx", sides[k], (unsigned long long)serial,
                     (unsigned long long)threaded);
        cr_assert_gt(collisions, 20, "side %g: only %d collisions", sides[k], collisions);
    }
}

/* ---------------------------------------------------------------- broad phase */

/* The vector from one centre to another by its minimum image per periodic
 * axis, the expression of fd_periodic_offset; *shifted when an image was taken. */
static fd_vec3 minimum_image(const void* context, fd_vec3 from, fd_vec3 to, bool* shifted)
{
    const fd_periodic* periodic = context;
    double d[3] = {to.x - from.x, to.y - from.y, to.z - from.z};
    *shifted = false;
    for (int a = 0; a < 3; ++a) {
        if (periodic->axis[a]) {
            double periods = round(d[a] * periodic->inverse_length[a]);
            *shifted = *shifted || periods != 0.0;
            d[a] -= periodic->length[a] * periods;
        }
    }
    return fd_v3(d[0], d[1], d[2]);
}

/* The grid's pairs against an O(N^2) minimum-image search, for n random
 * bodies (some outside the box, as a caller might pass them), periodic on
 * some axes, a few static bodies and two planes whose normals are
 * perpendicular to the periodic axes. The box spans about periodic_cells
 * grid cells along a periodic axis and open_cells along an open one. */
static void check_broadphase(uint64_t seed, const bool axes[3], double periodic_cells, double open_cells, int n,
                             int threads)
{
    test_broadphase_bodies bodies = test_broadphase_bodies_alloc(n);
    fd_vec3* states = bodies.positions;
    double* radii = bodies.radii;
    bool* is_static = bodies.is_static;
    bool* is_plane = bodies.is_plane;
    fd_vec3* normals = bodies.normals;
    double largest = 0.0;
    for (int b = 0; b < n; ++b) {
        radii[b] = 0.01 + 0.02 * test_random(&seed);
        largest = fmax(largest, radii[b]);
        is_static[b] = test_random(&seed) < 0.01;
    }
    double margin = 0.002, cell = 2.0 * largest + margin;
    fd_periodic periodic = fd_periodic_none();
    double length[3];
    for (int a = 0; a < 3; ++a) {
        /* A random fraction of a cell more; at least two reaches (the world's
         * own requirement, 2 x cell here). */
        length[a] = fmax(cell * ((axes[a] ? periodic_cells : open_cells) + test_random(&seed)), 2.0 * cell);
        if (axes[a]) {
            fd_periodic_set_axis(&periodic, a, -0.3 + 0.1 * a, length[a]);
        }
    }
    for (int b = 0; b < n; ++b) {
        double x[3];
        for (int a = 0; a < 3; ++a) {
            double low = axes[a] ? periodic.low[a] : 0.0;
            x[a] = low + length[a] * (1.4 * test_random(&seed) - 0.2); /* 20% outside on either side */
        }
        states[b] = fd_v3(x[0], x[1], x[2]);
    }
    /* Bodies 5 and n - 7 are planes across an open axis (if there is one):
     * a floor at 0 facing +axis and a ceiling at length facing -axis. */
    int open_axis = !axes[2] ? 2 : (!axes[1] ? 1 : (!axes[0] ? 0 : -1));
    for (int k = 0; open_axis >= 0 && k < 2; ++k) {
        int p = k ? n - 7 : 5;
        is_plane[p] = is_static[p] = true;
        radii[p] = INFINITY;
        double unit[3] = {0, 0, 0};
        unit[open_axis] = 1.0;
        fd_vec3 axis = fd_v3(unit[0], unit[1], unit[2]);
        normals[p] = k ? fd_v3_neg(axis) : axis;
        states[p] = fd_v3_scale(k ? length[open_axis] : 0.0, axis);
    }
    fd_broadphase bp = test_broadphase_over(&bodies, margin, cell, threads);
    bp.periodic = periodic;
    cr_assert(fd_broadphase_update(&bp));

    int across = 0;
    int expected = test_expect_brute_force_pairs(&bp, minimum_image, &periodic, &across);
    cr_assert(expected > 50, "the test should exercise many pairs (got %d)", expected);
    cr_assert(across > 5, "the test should exercise pairs across faces (got %d)", across);
    fd_broadphase_free(&bp);
    test_broadphase_bodies_release(&bodies);
}

Test(periodic, broad_phase_across_faces_equals_brute_force_minimum_image)
{
    const bool patterns[4][3] = {{true, true, true}, {true, false, false}, {false, true, true}, {true, true, false}};
    for (int p = 0; p < 4; ++p) {
        uint64_t seed = 2024 + 100 * (uint64_t)p;
        /* ~11 cells per axis, 1500 bodies: the dense grid, on 1 and 3 threads. */
        check_broadphase(seed, patterns[p], 11.0, 11.0, 1500, 1);
        check_broadphase(seed, patterns[p], 11.0, 11.0, 1500, 3);
        /* ~30 cells per axis, 4000 bodies: the spatial hash. */
        check_broadphase(seed + 1, patterns[p], 30.0, 30.0, 4000, 2);
        /* 2 cells per periodic axis (c - 1 and c + 1 are one cell), dense... */
        check_broadphase(seed + 2, patterns[p], 2.0, 2.0, 150, 2);
        /* ...and hashed (open axes 100 cells wide). */
        check_broadphase(seed + 3, patterns[p], 2.0, 100.0, 4000, 1);
    }
}

/* ---------------------------------------------------------------- refusals */

Test(periodic, bad_definitions_are_refused_with_clear_messages)
{
    fd_world_def def = periodic_def(1e-4, true, false, false, fd_v3(0, 0, 0), fd_v3(0, 1, 1));
    cr_assert_null(fd_world_create(&def));
    cr_assert(strstr(fd_last_error(), "periodic along x needs a box with box_max > box_min"), "%s", fd_last_error());
    def.box_max.x = INFINITY;
    cr_assert_null(fd_world_create(&def));

    /* A box shorter than two reaches. */
    def = periodic_def(1e-4, false, true, false, fd_v3(0, 0, 0), fd_v3(1, 0.07, 1));
    fd_world* world = fd_world_create(&def);
    cr_assert_not_null(world);
    fd_material_id m = add_law(world, NULL);
    add_ball(world, m, "big", 0.02, fd_v3(0.5, 0.03, 0.5), fd_v3(0, 0, 0), fd_v3(0, 0, 0));
    cr_assert_eq(fd_world_prepare(world), FD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(fd_last_error(), "0.07 m along y, less than 2 x (largest bounding diameter 0.04 m"), "%s",
              fd_last_error());
    fd_world_free(world);

    /* A plane whose normal has a component along a periodic axis. */
    def = periodic_def(1e-4, true, false, false, fd_v3(0, 0, 0), fd_v3(1, 1, 1));
    world = fd_world_create(&def);
    m = add_law(world, NULL);
    fd_body_def wall = fd_default_body_def();
    wall.name = "wall";
    wall.type = FD_BODY_STATIC;
    wall.shape.type = FD_SHAPE_PLANE;
    wall.shape.plane_normal = fd_v3(1, 0, 0);
    wall.material = m;
    cr_assert(fd_body_id_is_null(fd_world_create_body(world, &wall)));
    cr_assert(strstr(fd_last_error(), "body 'wall': a plane in a periodic world must have its normal perpendicular"),
              "%s", fd_last_error());
    /* A tilted floor, also refused; a floor is fine. */
    wall.shape.plane_normal = fd_v3(0, 0, 1);
    wall.orientation = fd_quat_from_axis_angle(fd_v3(0, 1, 0), 0.1);
    cr_assert(fd_body_id_is_null(fd_world_create_body(world, &wall)));
    wall.orientation = fd_quat_identity();
    cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &wall)), "%s", fd_last_error());
    fd_world_free(world);
}

/* ---------------------------------------------------------------- scenes */

#define HEADER                                                                                                         \
    "time: {step: 1.0e-5, duration: 0.01}\n"                                                                           \
    "materials: [{name: glass, density: 2500}]\n"                                                                      \
    "contacts: [{materials: [glass, glass], normal: {model: hooke, k_n: 1e4, restitution: 0.8}}]\n"
/* Lines 1-3 are the header; a test's own lines start at 4. */

TestSuite(periodic_scene, .init = make_dir, .fini = remove_dir);

Test(periodic_scene, a_periodic_scene_loads_with_its_box_and_wraps_its_bodies)
{
    const char* path = write_scene("good.yaml", HEADER "world:\n"
                                                       "  gravity: [0, 0, 0]\n"
                                                       "  periodic: [x, z]\n"
                                                       "  box: {min: [0, 0, 0], max: [1, 2, 3]}\n"
                                                       "bodies:\n"
                                                       "  - {name: a, material: glass, shape: {type: sphere, radius: "
                                                       "0.1}, position: [1.25, 5, -0.5]}\n");
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    fd_world_def def = fd_world_get_def(scene.world);
    cr_assert(def.periodic[0] && !def.periodic[1] && def.periodic[2]);
    cr_assert_eq(def.box_max.z, 3.0);
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    fd_vec3 x = fd_body_get_state(scene.world, fd_world_find_body(scene.world, "a")).position;
    cr_assert_float_eq(x.x, 0.25, 1e-15);
    cr_assert_eq(x.y, 5.0);
    cr_assert_float_eq(x.z, 2.5, 1e-15);
    fd_scene_free(&scene);
}

Test(periodic_scene, bad_periodic_input_is_reported_at_its_line)
{
    expect_scene_error_at("nobox.yaml", HEADER "world:\n  periodic: [x, y]\n", 5, "world.periodic",
                       "periodic axes need a box");
    expect_scene_error_at("noaxes.yaml", HEADER "world:\n  box: {min: [0, 0, 0], max: [1, 1, 1]}\n", 5, "world.box",
                       "a box is used only with periodic axes");
    expect_scene_error_at("axis.yaml", HEADER "world:\n  periodic: [x, w]\n  box: {min: [0, 0, 0], max: [1, 1, 1]}\n",
                       5, "world.periodic[1]", "expected an axis: x, y or z");
    expect_scene_error_at("flat.yaml",
                       HEADER "world:\n  periodic: [x]\n  box:\n    min: [0, 0, 0]\n    max: [1, 0, 1]\n", 8,
                       "world.box.max", "must be > min in every component (y: max 0 <= min 0)");
    expect_scene_error_at("nomax.yaml", HEADER "world:\n  periodic: [x]\n  box:\n    min: [0, 0, 0]\n", 7,
                       "world.box.max", "required key is missing");
    expect_scene_error_at("small.yaml",
                       HEADER "world:\n  periodic: [x, y, z]\n  box: {min: [0, 0, 0], max: [1, 0.3, 1]}\n"
                              "bodies:\n"
                              "  - {material: glass, shape: {type: sphere, radius: 0.1}, position: [0.5, 0.1, 0.5]}\n",
                       6, "world.box", "0.3 m along periodic axis y, less than 2 x (largest bounding diameter 0.2 m");
    expect_scene_error_at("plane.yaml",
                       HEADER "world:\n  periodic: [x, y]\n  box: {min: [0, 0, 0], max: [1, 1, 1]}\n"
                              "bodies:\n"
                              "  - name: wall\n"
                              "    static: true\n"
                              "    material: glass\n"
                              "    shape: {type: plane, normal: [1, 0, 1]}\n",
                       8, "bodies[0]", "a plane in a periodic world must have its normal perpendicular");
}
