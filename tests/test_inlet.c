/* Inlets (src/engine/inlet.c, src/io/scene_inlet.c): the schedule
 * min(count, floor(rate (t - start))); no sphere overlaps a body when it
 * appears; every sphere lies in its region with a radius of its distribution;
 * a full region delays spheres and the shortfall is reported; the same seed
 * gives bitwise the same run, another seed another; inserting spheres leaves
 * the rest of the world bitwise as it would have been; outputs follow the
 * growing body count; bad defs and bad scene entries fail with the message
 * (FILE:LINE: KEY for scenes); the CLI summary reports the inserted count;
 * a static lattice generator makes a rough floor; spheres placed clear of
 * everything join the standing neighbour list, with the run unchanged. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "penalty/penalty.h"
#include "world/world_store.h"
#include "fricdem/io.h"
#include "support/world.h"

/* ---------------------------------------------------------------- worlds */

typedef struct setup {
    fd_world* world;
    fd_material_id grain;
} setup;

/* A world with one material, the PFC linear law with sliding and rolling
 * friction, and a floor plane z = 0 (body 0). */
static setup make_threaded_world(double time_step, fd_vec3 gravity, int threads)
{
    fd_world_def wd = fd_default_world_def();
    wd.time_step = time_step;
    wd.gravity = gravity;
    wd.thread_count = threads;
    setup s;
    s.world = test_create_world(&wd);
    s.grain = test_add_solid_material(s.world, "grain", 2500.0, 0.0);
    fd_contact_law_def law = fd_default_contact_law_def();
    law.submodel[FD_MECHANISM_NORMAL] =
        (fd_submodel_def){"pfc_linear", {{"kn", 1e4}, {"dp_nratio", 0.3}, {"dp_mode", 3}}, 3};
    law.submodel[FD_MECHANISM_SLIDE] = (fd_submodel_def){"pfc_linear", {{"ks", 1e4}, {"fric", 0.5}}, 2};
    law.submodel[FD_MECHANISM_ROLL] = (fd_submodel_def){"pfc_rrlinear", {{"rr_fric", 0.1}}, 1};
    test_set_law(s.world, s.grain, &law);
    test_add_ground(s.world, s.grain);
    return s;
}

static setup make_world(double time_step, fd_vec3 gravity) { return make_threaded_world(time_step, gravity, 1); }

static fd_inlet_def disk_inlet(fd_material_id material)
{
    fd_inlet_def def = test_inlet_def(material, (test_pour){.name = "pour", .radius = 0.005, .radius_spread = 0.1,
                                                            .rate = 800.0, .count = 60, .velocity = {0.0, 0.0, -1.0}});
    def.shape = FD_INLET_DISK;
    def.center = fd_v3(0.0, 0.0, 0.2);
    def.disk_radius = 0.03;
    return def;
}

/* The disk inlet's spheres poured from the box [lo, hi] instead. */
static fd_inlet_def box_inlet(fd_material_id material, fd_vec3 lo, fd_vec3 hi)
{
    fd_inlet_def def = disk_inlet(material);
    def.shape = FD_INLET_BOX;
    def.box_min = lo;
    def.box_max = hi;
    return def;
}

/* a_grid_over_a_wide_region_finds_every_body_in_reach: the counts of the
 * linear scan of all the bodies that the grid replaced. */
#define GRID_SCAN_INSERTED 1905
#define GRID_SCAN_REJECTED 7601

static void assert_clear(const fd_world* world, int b, double margin);

/* Asserts that body b overlaps no other body (assert_clear without a margin). */
static void assert_free(const fd_world* world, int b) { assert_clear(world, b, 0.0); }

/* Runs the world `steps` steps, asserting of each sphere that appears that
 * it overlaps no other body when it does. */
static void run_asserting_new_spheres_free(fd_world* world, int steps)
{
    int checked = fd_world_body_count(world);
    for (int n = 0; n < steps; ++n) {
        test_step(world);
        for (; checked < fd_world_body_count(world); ++checked) {
            assert_free(world, checked);
        }
    }
}

/* ---------------------------------------------------------------- schedule */

Test(inlet, count_after_t_is_floor_of_rate_times_t)
{
    /* dt = 1e-5 s, rate 800/s: one sphere every 125 steps, so after n steps
     * (t = n dt, which is not exactly n / 1e5 in binary) exactly n / 125 are
     * in (integer division), until the 60th. */
    setup s = make_world(1e-5, fd_v3(0, 0, -9.81));
    fd_inlet_def def = disk_inlet(s.grain);
    test_add_inlet(s.world, &def);
    for (int n = 1; n <= 8000; ++n) {
        test_step(s.world);
        int64_t expected = n / 125 < 60 ? n / 125 : 60;
        fd_inlet_info info = fd_world_get_inlet_info(s.world, 0);
        cr_assert_eq(info.inserted, expected, "after %d steps: %lld inserted, expected %lld", n,
                     (long long)info.inserted, (long long)expected);
        cr_assert_eq(info.due, expected);
        cr_assert_eq(fd_world_body_count(s.world), 1 + expected);
    }
    fd_inlet_info info = fd_world_get_inlet_info(s.world, 0);
    cr_assert_eq(info.delayed, 0);
    cr_assert_eq(info.max_delay, 0.0);
    cr_assert_str_eq(fd_body_get_info(s.world, fd_world_body_at(s.world, 1)).name, "pour.0");
    cr_assert_str_eq(fd_body_get_info(s.world, fd_world_body_at(s.world, 60)).name, "pour.59");
    fd_world_free(s.world);
}

Test(inlet, several_per_step_and_a_start_time)
{
    /* rate 2.5e5/s with dt = 1e-5 s: 2.5 spheres per step, from t = 1e-3 s
     * (step 100): after step n, floor(2.5 (n - 100)) in, in a wide box. */
    setup s = make_world(1e-5, fd_v3(0, 0, 0));
    fd_inlet_def def = box_inlet(s.grain, fd_v3(-0.5, -0.5, 0.1), fd_v3(0.5, 0.5, 0.6));
    def.rate = 2.5e5;
    def.start_time = 1e-3;
    def.count = 200;
    test_add_inlet(s.world, &def);
    for (int n = 1; n <= 200; ++n) {
        test_step(s.world);
        int64_t owed = n <= 100 ? 0 : (5 * (n - 100)) / 2;
        int64_t expected = owed < 200 ? owed : 200;
        cr_assert_eq(fd_world_get_inlet_info(s.world, 0).inserted, expected, "step %d", n);
    }
    fd_world_free(s.world);
}

/* ---------------------------------------------------------------- placement */

/* Adds the inlet with its spheres appearing at rest, `count` of them at
 * `rate` per second: the placement tests watch where a sphere appears (with
 * no gravity it stays there, so a region fills up), the free-fall test its
 * first step from rest. */
static void add_at_rest(fd_world* world, fd_inlet_def def, double rate, int64_t count)
{
    def.velocity = fd_v3(0, 0, 0);
    def.rate = rate;
    def.count = count;
    test_add_inlet(world, &def);
}

Test(inlet, no_overlap_and_a_full_region_delays_and_reports)
{
    /* No gravity and no velocity: the spheres stay where they appear, so a
     * disk of radius 2 cm (a few places for spheres of 5 mm) fills up and the
     * inlet must fall behind, say so, and never overlap. */
    setup s = make_world(1e-4, fd_v3(0, 0, 0));
    fd_inlet_def def = disk_inlet(s.grain);
    def.center = fd_v3(0, 0, 0.1);
    def.disk_radius = 0.02;
    def.max_attempts = 20;
    add_at_rest(s.world, def, 1000.0, 40);
    run_asserting_new_spheres_free(s.world, 200);
    fd_inlet_info info = fd_world_get_inlet_info(s.world, 0);
    /* A flat disk of radius 2 cm holds at most a handful of spheres 1 cm wide. */
    cr_assert_lt(info.inserted, 12, "%lld inserted into a disk that holds a handful", (long long)info.inserted);
    cr_assert_eq(info.due, 20);
    cr_assert_gt(info.rejected, 0);
    fd_world_free(s.world);
}

/* Asserts that body b keeps at least `margin` from every other body: spheres
 * by the bounding sphere, planes by the signed distance of the centre. */
static void assert_clear(const fd_world* world, int b, double margin)
{
    fd_body_id id = fd_world_body_at(world, b);
    double r = fd_body_get_info(world, id).shape.radius;
    fd_vec3 p = fd_body_get_state(world, id).position;
    for (int o = 0; o < fd_world_body_count(world); ++o) {
        if (o == b) {
            continue;
        }
        fd_body_id other = fd_world_body_at(world, o);
        fd_body_info oi = fd_body_get_info(world, other);
        fd_body_state os = fd_body_get_state(world, other);
        fd_vec3 d = fd_v3_sub(p, os.position);
        if (oi.shape.type == FD_SHAPE_PLANE) {
            fd_vec3 normal = fd_quat_rotate(os.orientation, oi.shape.plane_normal);
            cr_assert_geq(fd_v3_dot(d, normal), r + margin, "sphere %d comes within the margin of plane %d", b, o);
        } else {
            double reach = r + oi.bounding_radius + margin;
            cr_assert_geq(fd_v3_length_squared(d), reach * reach, "sphere %d comes within the margin of body %d", b,
                          o);
        }
    }
}

static void add_static(fd_world* world, fd_material_id material, fd_shape_def shape, fd_vec3 position)
{
    fd_body_def def = fd_default_body_def();
    def.type = FD_BODY_STATIC;
    def.shape = shape;
    def.material = material;
    def.position = position;
    cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &def)), "%s", fd_last_error());
}

Test(inlet, a_grid_over_a_wide_region_finds_every_body_in_reach)
{
    /* The placements test only the bodies of a cell grid over the region.
     * Here the grid is 15 cells wide and holds every kind of body it must
     * find: 125 small static spheres, a ball eight times wider than the
     * inlet's spheres, an ellipsoid, a plane across a corner, the floor
     * below; contact_margin 1 mm. No gravity and no velocity: the spheres
     * stay where they appear, 100 per step, until the region is full. Every
     * sphere keeps the margin from every body when it appears (all checked),
     * the schedule holds while there is room, and the counts are those that
     * the scan of all the bodies, which the grid replaced, gave. */
    setup s;
    fd_world_def wd = fd_default_world_def();
    wd.time_step = 1e-4;
    wd.gravity = fd_v3(0, 0, 0);
    wd.contact_margin = 1e-3;
    s.world = fd_world_create(&wd);
    cr_assert_not_null(s.world, "%s", fd_last_error());
    fd_material_def md = fd_default_material_def();
    md.name = "grain";
    md.density = 2500.0;
    s.grain = fd_world_create_material(s.world, &md);
    fd_contact_law_def law = fd_default_contact_law_def();
    law.submodel[FD_MECHANISM_NORMAL] = (fd_submodel_def){"hooke", {{"k_n", 1e4}, {"restitution", 0.3}}, 2};
    cr_assert_eq(fd_world_set_contact_law(s.world, s.grain, s.grain, &law), FD_OK, "%s", fd_last_error());
    test_add_ground(s.world, s.grain);
    fd_shape_def plane = {.type = FD_SHAPE_PLANE, .plane_normal = fd_v3_normalize(fd_v3(1, 0, 1))};
    add_static(s.world, s.grain, plane, fd_v3(-0.1, 0, 0.15));
    add_static(s.world, s.grain, (fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = 0.04}, fd_v3(0.02, 0.02, 0.2));
    add_static(s.world, s.grain, (fd_shape_def){.type = FD_SHAPE_ELLIPSOID, .semi_axes = fd_v3(0.02, 0.008, 0.008)},
               fd_v3(-0.06, 0.06, 0.25));
    for (int i = 0; i < 125; ++i) {
        fd_vec3 x = fd_v3(-0.08 + 0.04 * (i % 5), -0.08 + 0.04 * ((i / 5) % 5), 0.12 + 0.04 * (i / 25));
        add_static(s.world, s.grain, (fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = 0.003}, x);
    }
    const int present = fd_world_body_count(s.world);
    fd_inlet_def def = box_inlet(s.grain, fd_v3(-0.1, -0.1, 0.1), fd_v3(0.1, 0.1, 0.3));
    def.radius_spread = 0.2;
    def.max_attempts = 30;
    add_at_rest(s.world, def, 1e6, 5000);
    int checked = present;
    for (int n = 1; n <= 60; ++n) {
        test_step(s.world);
        for (; checked < fd_world_body_count(s.world); ++checked) {
            assert_clear(s.world, checked, 1e-3);
        }
        fd_inlet_info info = fd_world_get_inlet_info(s.world, 0);
        if (n <= 5) {
            cr_assert_eq(info.inserted, 100 * n, "step %d: %lld in, room for all", n, (long long)info.inserted);
        }
        cr_assert_eq(info.due, n * 100 < 5000 ? n * 100 : 5000);
        cr_assert_eq(fd_world_body_count(s.world), present + info.inserted);
    }
    fd_inlet_info info = fd_world_get_inlet_info(s.world, 0);
    cr_assert_eq(info.inserted, GRID_SCAN_INSERTED, "%lld inserted", (long long)info.inserted);
    cr_assert_eq(info.rejected, GRID_SCAN_REJECTED, "%lld rejected", (long long)info.rejected);
    fd_world_free(s.world);
}

Test(inlet, late_spheres_go_in_when_there_is_room)
{
    /* A burst (rate 1e4/s) into a disk with room for a few: spheres must
     * wait until those before them have fallen away; all go in, some late. */
    setup s = make_world(1e-4, fd_v3(0, 0, -9.81));
    fd_inlet_def def = disk_inlet(s.grain);
    def.disk_radius = 0.012;
    def.rate = 1e4;
    def.count = 30;
    def.velocity = fd_v3(0, 0, -2.0);
    test_add_inlet(s.world, &def);
    run_asserting_new_spheres_free(s.world, 3000);
    fd_inlet_info info = fd_world_get_inlet_info(s.world, 0);
    cr_assert_eq(info.inserted, 30);
    cr_assert_gt(info.delayed, 0);
    cr_assert_gt(info.max_delay, 0.0);
    fd_world_free(s.world);
}

Test(inlet, spheres_lie_in_a_tilted_thick_disk)
{
    setup s = make_world(1e-4, fd_v3(0, 0, 0));
    fd_inlet_def def = disk_inlet(s.grain);
    fd_vec3 n = fd_v3(1.0 / sqrt(3.0), 1.0 / sqrt(3.0), 1.0 / sqrt(3.0));
    def.normal = fd_v3(2.0, 2.0, 2.0); /* normalised by the inlet */
    def.center = fd_v3(0.1, -0.2, 0.5);
    def.disk_radius = 0.1;
    def.thickness = 0.04;
    def.rate = 1e4;
    def.count = 100;
    def.velocity = fd_v3(0, 0, 0);
    def.velocity_spread = 0.3;
    test_add_inlet(s.world, &def);
    bool spread_seen = false;
    for (int k = 0; k < 100; ++k) {
        test_step(s.world);
        /* The sphere of this step, where it appeared. */
        int b = fd_world_body_count(s.world) - 1;
        cr_assert_eq(b, k + 1);
        fd_body_id id = fd_world_body_at(s.world, b);
        double r = fd_body_get_info(s.world, id).shape.radius;
        cr_assert(r >= 0.0045 * (1 - 1e-15) && r <= 0.0055 * (1 + 1e-15), "radius %g out of [4.5, 5.5] mm", r);
        fd_body_state state = fd_body_get_state(s.world, id);
        fd_vec3 d = fd_v3_sub(state.position, def.center);
        double along = fd_v3_dot(d, n);
        double radial = fd_v3_length(fd_v3_reject(d, n));
        cr_assert_leq(fabs(along), 0.02 + 1e-12, "sphere %d is %g m off the disk's plane", b, along);
        cr_assert_leq(radial, 0.1 - r + 1e-12, "sphere %d sticks out of the disk (%g m from its axis)", b, radial);
        fd_vec3 v = state.velocity;
        cr_assert(fabs(v.x) <= 0.3 && fabs(v.y) <= 0.3 && fabs(v.z) <= 0.3);
        spread_seen |= fabs(v.x) > 0.01;
        assert_free(s.world, b);
    }
    cr_assert(spread_seen);
    fd_world_free(s.world);
}

Test(inlet, spheres_lie_in_a_box_with_discrete_sizes)
{
    setup s = make_world(1e-4, fd_v3(0, 0, 0));
    fd_inlet_def def = box_inlet(s.grain, fd_v3(-0.3, -0.2, 0.1), fd_v3(0.3, 0.2, 0.3));
    def.size_count = 3;
    def.size_radius[0] = 0.004;
    def.size_fraction[0] = 1.0;
    def.size_radius[1] = 0.006;
    def.size_fraction[1] = 3.0;
    def.size_radius[2] = 0.008;
    def.size_fraction[2] = 0.0; /* never drawn */
    add_at_rest(s.world, def, 1e5, 1200);
    for (int k = 0; k < 120; ++k) {
        test_step(s.world);
    }
    cr_assert_eq(fd_world_get_inlet_info(s.world, 0).inserted, 1200);
    int small = 0;
    for (int b = 1; b < fd_world_body_count(s.world); ++b) {
        fd_body_id id = fd_world_body_at(s.world, b);
        double r = fd_body_get_info(s.world, id).shape.radius;
        cr_assert(r == 0.004 || r == 0.006, "radius %g not among the sizes drawn", r);
        small += r == 0.004;
        fd_vec3 p = fd_body_get_state(s.world, id).position;
        cr_assert(p.x >= -0.3 + r && p.x <= 0.3 - r && p.y >= -0.2 + r && p.y <= 0.2 - r && p.z >= 0.1 + r &&
                      p.z <= 0.3 - r,
                  "sphere %d (r %g) at (%g, %g, %g) sticks out of the box", b, r, p.x, p.y, p.z);
    }
    /* Number fraction 1/4: binomial, sd sqrt(1200 x 1/4 x 3/4) = 15; 4 sd. */
    cr_assert(abs(small - 300) <= 60, "%d small spheres of 1200, expected 300 +- 60", small);
    fd_world_free(s.world);
}

/* ---------------------------------------------------------------- reproducibility */

static uint64_t pour_hash(uint64_t seed, int threads, int steps)
{
    setup s = make_threaded_world(2e-5, fd_v3(0, 0, -9.81), threads);
    fd_inlet_def inlet = disk_inlet(s.grain);
    inlet.seed = seed;
    inlet.center = fd_v3(0, 0, 0.05);
    inlet.rate = 2000.0;
    inlet.count = 40;
    inlet.velocity_spread = 0.2;
    test_add_inlet(s.world, &inlet);
    for (int n = 0; n < steps; ++n) {
        test_step(s.world);
    }
    cr_assert_eq(fd_world_get_inlet_info(s.world, 0).inserted, 40);
    cr_assert_gt(fd_world_contact_count(s.world), 10, "the spheres should have piled up");
    uint64_t hash = fd_world_state_hash(s.world);
    fd_world_free(s.world);
    return hash;
}

Test(inlet, same_seed_bitwise_same_other_seed_differs)
{
    uint64_t a = pour_hash(7, 1, 6000);
    uint64_t b = pour_hash(7, 1, 6000);
    uint64_t c = pour_hash(8, 1, 6000);
    uint64_t d = pour_hash(7, 2, 6000);
    cr_assert_eq(a, b, "same seed, different runs");
    cr_assert_neq(a, c, "another seed gave the same run");
    cr_assert_eq(a, d, "two threads changed the run");
}

/* A pour of 1000 spheres (one a step, a tenth of the region filled) onto
 * the floor with hooke + dsds + rolling dsds: the state after the spheres
 * have landed and piled, its neighbour-list builds and the bodies a standing
 * list took in (fd_penalty_append_isolated). `rebuild_every_step` marks the
 * list stale before every step, as inserting always did. */
typedef struct pour_run {
    uint64_t hash;
    int64_t rebuilds, appended;
    int contacts;
} pour_run;

static pour_run pour_into_a_standing_list(int threads, bool rebuild_every_step, double clearance)
{
    fd_world_def wd = fd_default_world_def();
    wd.time_step = 5e-5;
    wd.gravity = fd_v3(0, 0, -9.81);
    wd.thread_count = threads;
    fd_world* world = test_create_world(&wd);
    fd_material_id grain = test_add_solid_material(world, "grain", 2500.0, 0.0);
    fd_contact_law_def law = test_hooke_law(1e4, 0.3);
    test_set_sds(&law, FD_MECHANISM_SLIDE, "dsds", 1e4, 1.0, 0.5);
    test_set_sds(&law, FD_MECHANISM_ROLL, "dsds", 1e4, 0.0, 0.1);
    test_set_law(world, grain, &law);
    test_add_ground(world, grain);
    fd_inlet_def def = box_inlet(grain, fd_v3(-0.15, -0.15, 0.05), fd_v3(0.15, 0.15, 0.10));
    def.rate = 2e4;
    def.count = 1000;
    def.velocity_spread = 0.5; /* neighbours close in on each other soon after they appear */
    def.clearance = clearance;
    test_add_inlet(world, &def);
    int checked = fd_world_body_count(world);
    for (int n = 0; n < 3000; ++n) {
        if (rebuild_every_step) {
            world->penalty->dirty = true;
        }
        test_step(world);
        for (; clearance > 0.0 && checked < fd_world_body_count(world); ++checked) {
            assert_clear(world, checked, clearance); /* contact_margin is 0 */
        }
    }
    cr_assert_eq(fd_world_get_inlet_info(world, 0).inserted, 1000);
    pour_run run = {fd_world_state_hash(world), world->penalty->rebuilds, world->penalty->appended,
                    fd_world_contact_count(world)};
    fd_world_free(world);
    return run;
}

Test(inlet, spheres_placed_clear_join_the_standing_neighbour_list_and_the_run_is_the_same)
{
    /* Whether the list is rebuilt or takes the new spheres in, the pairs
     * that touch are the same (fd_penalty_append_isolated's bound), so the
     * runs must be bitwise the same, with one thread or two; and the list
     * must have stood through most of the 1000 insertion steps (about a
     * quarter of the spheres land within the clearance of one placed
     * before, and those steps rebuild). */
    pour_run standing = pour_into_a_standing_list(1, false, 0.0);
    pour_run rebuilt = pour_into_a_standing_list(1, true, 0.0);
    pour_run two_threads = pour_into_a_standing_list(2, false, 0.0);
    cr_assert_gt(standing.contacts, 300, "%d contacts: the spheres should have piled on the floor", standing.contacts);
    cr_assert_eq(standing.hash, rebuilt.hash, "taking spheres into the standing list changed the run");
    cr_assert_eq(standing.hash, two_threads.hash, "two threads changed the run");
    cr_assert_gt(standing.appended, 500, "%lld of 1000 spheres taken into a standing list",
                 (long long)standing.appended);
    cr_assert_lt(standing.rebuilds, rebuilt.rebuilds / 2, "%lld builds against %lld", (long long)standing.rebuilds,
                 (long long)rebuilt.rebuilds);
}

Test(inlet, a_clearance_keeps_new_spheres_that_far_and_every_one_joins_the_standing_list)
{
    /* clearance 1.5 mm against a skin of 0.9 mm (a tenth of the smallest
     * diameter): each sphere keeps 1.5 mm from every body when it appears
     * (all checked), which is more than the 1.35 mm of the isolation test
     * at most, so each joins the standing list; the run is its own (other
     * places), the same with two threads. */
    pour_run one = pour_into_a_standing_list(1, false, 0.0015);
    pour_run two = pour_into_a_standing_list(2, false, 0.0015);
    pour_run rebuilt = pour_into_a_standing_list(1, true, 0.0015);
    cr_assert_eq(one.appended, 1000, "%lld of 1000 spheres joined the standing list", (long long)one.appended);
    cr_assert_eq(one.hash, two.hash, "two threads changed the run");
    cr_assert_eq(one.hash, rebuilt.hash, "a list rebuilt every step changed the run");
}

/* One sphere of radius 5 mm placed by an inlet whose box leaves it no
 * freedom (0.1 mm of play), centred `distance` from a static sphere of the
 * same radius, after one step built the list; no gravity, nothing moves.
 * Returns the bodies the standing list took in and the builds the next
 * step made. */
static void place_one_near(double distance, int64_t* appended, int64_t* builds)
{
    setup s = make_world(1e-4, fd_v3(0, 0, 0));
    const double r = 0.005, play = 1e-4;
    add_static(s.world, s.grain, (fd_shape_def){.type = FD_SHAPE_SPHERE, .radius = r}, fd_v3(0, 0, 0.5));
    fd_inlet_def def = disk_inlet(s.grain);
    def.shape = FD_INLET_BOX;
    def.radius_spread = 0.0;
    def.box_min = fd_v3(distance - r - 0.5 * play, -r - 0.5 * play, 0.5 - r - 0.5 * play);
    def.box_max = fd_v3(distance + r + 0.5 * play, r + 0.5 * play, 0.5 + r + 0.5 * play);
    add_at_rest(s.world, def, 1e4, 1); /* one sphere after the first step */
    test_step(s.world);
    cr_assert_eq(fd_world_get_inlet_info(s.world, 0).inserted, 1);
    *appended = s.world->penalty->appended;
    int64_t before = s.world->penalty->rebuilds;
    test_step(s.world);
    *builds = s.world->penalty->rebuilds - before;
    fd_world_free(s.world);
}

Test(inlet, a_sphere_placed_within_the_clearance_makes_the_list_rebuild)
{
    /* The skin is a tenth of the smallest diameter, 1 mm, and nothing has
     * moved: the clearance is 1 mm beyond contact_margin (0). A sphere placed
     * 0.2 +- 0.1 mm from the static one is free (no overlap) but not
     * isolated: the list must be rebuilt. One placed 0.5 m away joins it. */
    int64_t appended, builds;
    place_one_near(0.0102, &appended, &builds);
    cr_assert_eq(appended, 0, "a sphere 0.2 mm from another was taken into the standing list");
    cr_assert_eq(builds, 1);
    place_one_near(0.5, &appended, &builds);
    cr_assert_eq(appended, 1, "a sphere 0.5 m from everything was not taken into the standing list");
    cr_assert_eq(builds, 0);
}

Test(inlet, inserting_leaves_the_rest_of_the_world_bitwise_unchanged)
{
    /* A ball sliding, then rolling on the floor (incremental shear spring and
     * rolling spring in its history): an inlet pouring spheres far away must
     * not change its motion by a bit, so insertion does not re-run the
     * contact pass (that would add the springs' increments twice). */
    fd_body_state states[2];
    for (int with_inlet = 0; with_inlet < 2; ++with_inlet) {
        setup s = make_world(1e-5, fd_v3(0, 0, -9.81));
        fd_body_def ball = fd_default_body_def();
        ball.name = "ball";
        ball.material = s.grain;
        ball.shape.radius = 0.01;
        /* At its equilibrium overlap m g / kn, so that it stays in contact. */
        ball.position = fd_v3(0, 0, 0.01 - 2500.0 * 4.0 / 3.0 * 3.14159265358979 * 1e-6 * 9.81 / 1e4);
        ball.velocity = fd_v3(0.5, 0, 0);
        cr_assert(!fd_body_id_is_null(fd_world_create_body(s.world, &ball)));
        if (with_inlet) {
            fd_inlet_def def = disk_inlet(s.grain);
            def.center = fd_v3(5.0, 5.0, 0.1);
            def.rate = 1000.0;
            test_add_inlet(s.world, &def);
        }
        /* It slides until t1 = 2 v0 / ((7 mu - 5 mu_r) g) = 0.034 s (both
         * springs at their limits), then rolls (shear spring elastic). */
        for (int n = 0; n < 6000; ++n) {
            test_step(s.world);
        }
        states[with_inlet] = fd_body_get_state(s.world, fd_world_find_body(s.world, "ball"));
        cr_assert_eq(fd_world_contact_count(s.world), 1, "the ball should still touch the floor");
        if (with_inlet) {
            cr_assert_eq(fd_world_get_inlet_info(s.world, 0).inserted, 60);
        }
        fd_world_free(s.world);
    }
    cr_assert(memcmp(&states[0], &states[1], sizeof states[0]) == 0, "the ball moved differently: x %.17g vs %.17g",
              states[0].position.x, states[1].position.x);
}

Test(inlet, a_new_sphere_falls_freely_from_its_first_step)
{
    /* Symplectic Euler: a sphere inserted at rest at t0 has v = -g dt after
     * one more step (its force was set to m g when it appeared). */
    setup s = make_world(1e-4, fd_v3(0, 0, -9.81));
    add_at_rest(s.world, disk_inlet(s.grain), 1e4, 1); /* the first sphere after the first step */
    test_step(s.world);
    fd_body_id id = fd_world_body_at(s.world, 1);
    fd_body_state before = fd_body_get_state(s.world, id);
    cr_assert_eq(before.velocity.z, 0.0);
    test_step(s.world);
    fd_body_state after = fd_body_get_state(s.world, id);
    cr_assert_float_eq(after.velocity.z, -9.81e-4, 1e-15);
    cr_assert_float_eq(after.position.z - before.position.z, -9.81e-8, 1e-15);
    fd_world_free(s.world);
}

/* ---------------------------------------------------------------- bad input */

static void expect_bad(fd_world* world, const fd_inlet_def* def, const char* fragment)
{
    cr_assert_eq(fd_world_add_inlet(world, def), FD_ERR_INVALID_ARGUMENT, "accepted a def that should fail (%s)",
                 fragment);
    cr_assert(strstr(fd_last_error(), fragment), "message '%s' lacks '%s'", fd_last_error(), fragment);
}

Test(inlet, bad_defs_fail_with_a_message)
{
    setup s = make_world(1e-4, fd_v3(0, 0, -9.81));
    fd_inlet_def good = disk_inlet(s.grain);
    fd_inlet_def def;
    def = good, def.name = "";
    expect_bad(s.world, &def, "name is required");
    def = good, def.material = (fd_material_id){0};
    expect_bad(s.world, &def, "material is required");
    def = good, def.radius = -1.0;
    expect_bad(s.world, &def, "radius must be > 0");
    def = good, def.radius_spread = 0.95;
    expect_bad(s.world, &def, "radius_spread must be in [0, 0.9]");
    def = good, def.disk_radius = 0.005;
    expect_bad(s.world, &def, "smaller than the largest sphere radius");
    def = good, def.normal = fd_v3(0, 0, 0);
    expect_bad(s.world, &def, "normal");
    def = good, def.shape = FD_INLET_BOX, def.box_min = fd_v3(0, 0, 0), def.box_max = fd_v3(1, 0.005, 1);
    expect_bad(s.world, &def, "less than the largest sphere diameter");
    def = good, def.rate = 0.0;
    expect_bad(s.world, &def, "rate must be > 0");
    def = good, def.count = 0;
    expect_bad(s.world, &def, "count must be >= 1");
    def = good, def.start_time = -1.0;
    expect_bad(s.world, &def, "start_time");
    def = good, def.velocity_spread = -0.1;
    expect_bad(s.world, &def, "velocity_spread");
    def = good, def.max_attempts = 0;
    expect_bad(s.world, &def, "max_attempts");
    def = good, def.clearance = -1e-3;
    expect_bad(s.world, &def, "clearance must be finite and >= 0 m");
    def = good, def.size_count = 2, def.size_radius[0] = 0.01, def.size_radius[1] = 0.02;
    expect_bad(s.world, &def, "fractions must not all be 0");
    def = good, def.size_count = 1, def.size_radius[0] = 0.01, def.size_fraction[0] = -1;
    expect_bad(s.world, &def, "fraction must be >= 0");

    fd_body_def ball = fd_default_body_def();
    ball.name = "pour.3";
    ball.material = s.grain;
    ball.shape.radius = 0.01;
    ball.position = fd_v3(1, 1, 1);
    cr_assert(!fd_body_id_is_null(fd_world_create_body(s.world, &ball)));
    expect_bad(s.world, &good, "has a name of the form the inlet gives its spheres");
    good.name = "pour2";
    test_add_inlet(s.world, &good);
    expect_bad(s.world, &good, "name already used");
    good.name = "later";
    test_step(s.world);
    expect_bad(s.world, &good, "before the first step");
    fd_world_free(s.world);
}

Test(inlet, prepare_needs_a_law_for_the_inlet_material)
{
    setup s = make_world(1e-4, fd_v3(0, 0, -9.81));
    fd_material_def md = fd_default_material_def();
    md.name = "sand";
    fd_material_id sand = fd_world_create_material(s.world, &md);
    fd_inlet_def def = disk_inlet(sand);
    test_add_inlet(s.world, &def);
    cr_assert_eq(fd_world_prepare(s.world), FD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(fd_last_error(), "no contact law for materials"), "%s", fd_last_error());
    cr_assert(strstr(fd_last_error(), "sand"), "%s", fd_last_error());
    fd_world_free(s.world);
}

/* ---------------------------------------------------------------- scenes, outputs, CLI */

TestSuite(inlet_files, .init = make_dir, .fini = remove_dir);

#define SCENE_HEAD                                                                                                     \
    "time: {step: 1.0e-4, duration: 0.2}\n"                                                                            \
    "materials: [{name: glass, density: 2500}]\n"                                                                      \
    "contacts:\n"                                                                                                      \
    "  - {materials: [glass, glass], normal: {model: hooke, k_n: 1.0e4, restitution: 0.3}}\n"                          \
    "bodies: [{name: floor, static: true, material: glass, shape: {type: plane}}]\n"                                   \
    "inlets:\n"
/* Lines 1-6 are the head; an inlet entry starts at line 7. */

Test(inlet_files, scene_inlets_load_with_their_values)
{
    fd_scene scene = load_scene_entries("good.yaml", SCENE_HEAD
                                        "  - name: funnel\n"
                                        "    material: glass\n"
                                        "    radius: 0.004\n"
                                        "    radius_spread: 0.1\n"
                                        "    region: {disk: {center: [0, 0, 0.3], radius: 0.02, thickness: 0.01}}\n"
                                        "    rate: 500\n"
                                        "    count: 20\n"
                                        "    velocity: [0, 0, -0.5]\n"
                                        "    seed: 9\n"
                                        "  - name: hopper\n"
                                        "    material: glass\n"
                                        "    sizes: [{radius: 0.003, fraction: 1}, {radius: 0.005, fraction: 2}]\n"
                                        "    region: {box: {min: [0.2, 0.2, 0.1], max: [0.3, 0.3, 0.2]}}\n"
                                        "    rate: 100\n"
                                        "    count: 5\n"
                                        "    start: 0.1\n",
                                        "inlets.funnel.count=30", fd_world_inlet_count, 2);
    fd_inlet_info funnel = fd_world_get_inlet_info(scene.world, 0);
    cr_assert_str_eq(funnel.name, "funnel");
    cr_assert_eq(funnel.count, 30);
    cr_assert_float_eq(funnel.bounds_min.x, -0.02, 1e-15);
    cr_assert_float_eq(funnel.bounds_max.z, 0.305, 1e-15);
    fd_inlet_info hopper = fd_world_get_inlet_info(scene.world, 1);
    cr_assert_str_eq(hopper.name, "hopper");
    cr_assert_eq(hopper.bounds_min.x, 0.2);
    test_run(scene.world, 2000);
    cr_assert_eq(fd_world_get_inlet_info(scene.world, 0).inserted, 30);
    cr_assert_eq(fd_world_get_inlet_info(scene.world, 1).inserted, 5);
    fd_scene_free(&scene);
}

/* SCENE_HEAD and an inlet of 5 glass spheres of radius 0.01 at 10 per
 * second (lines 7-11): its region, or another key, stands at line 12. */
#define INLET_A                                                                                                        \
    SCENE_HEAD "  - name: a\n"                                                                                         \
               "    material: glass\n"                                                                                 \
               "    radius: 0.01\n"                                                                                    \
               "    rate: 10\n"                                                                                        \
               "    count: 5\n"

Test(inlet_files, bad_scene_entries_give_file_line_key)
{
    expect_scene_error_at("bad.yaml", SCENE_HEAD "  - {name: a, material: glass, radius: 0.01, rate: -1, count: 5,\n"
                                                 "     region: {disk: {center: [0, 0, 1], radius: 0.05}}}\n",
                          7, "inlets[0].rate", "must be > 0");
    expect_scene_error_at("bad.yaml", INLET_A "    region: {disk: {center: [0, 0, 1], radius: 0.005}}\n", 12,
                          "inlets[0].region.disk.radius", "smaller than the largest sphere radius");
    expect_scene_error_at("bad.yaml",
                          INLET_A "    region:\n"
                                  "      disk: {center: [0, 0, 1], radius: 0.05}\n"
                                  "      box: {min: [0, 0, 0], max: [1, 1, 1]}\n",
                          14, "inlets[0].region.box", "either disk or box");
    expect_scene_error_at("bad.yaml", INLET_A "    region: {}\n", 12, "inlets[0].region", "needs a disk or a box");
    expect_scene_error_at("bad.yaml", SCENE_HEAD "  - name: a\n"
                                                 "    material: glass\n"
                                                 "    rate: 10\n"
                                                 "    count: 5\n"
                                                 "    region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}\n",
                          7, "inlets[0].radius", "required key is missing");
    expect_scene_error_at("bad.yaml", SCENE_HEAD "  - name: a\n"
                                                 "    material: glass\n"
                                                 "    radius: 0.01\n"
                                                 "    sizes: [{radius: 0.01, fraction: 1}]\n"
                                                 "    rate: 10\n"
                                                 "    count: 5\n"
                                                 "    region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}\n",
                          10, "inlets[0].sizes", "either radius");
    expect_scene_error_at("bad.yaml", INLET_A "    region: {box: {min: [0, 0, 0], max: [1, 0.01, 1]}}\n", 12,
                          "inlets[0].region.box.max", "at least the largest sphere diameter");
    expect_scene_error_at("bad.yaml", SCENE_HEAD "  - name: a\n"
                                                 "    material: glas\n"
                                                 "    radius: 0.01\n"
                                                 "    rate: 10\n"
                                                 "    count: 5\n"
                                                 "    region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}\n",
                          8, "inlets[0].material", "did you mean 'glass'");
    expect_scene_error_at("bad.yaml", SCENE_HEAD "  - {name: a, material: glass, radius: 0.01, rate: 10, count: 5,\n"
                                                 "     region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}}\n"
                                                 "  - {name: a, material: glass, radius: 0.01, rate: 10, count: 5,\n"
                                                 "     region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}}\n",
                          9, "inlets[1].name", "duplicate inlet name 'a' (first used at line 7)");
    expect_scene_error_at("bad.yaml",
                          SCENE_HEAD "  - {name: a, material: glass, radius: 0.01, rate: 10, count: 5, cout: 3,\n"
                                     "     region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}}\n",
                          7, "inlets[0].cout", "did you mean 'count'");
}

/* Number of rows of bodies.csv at each distinct time, and the snapshot sizes. */
Test(inlet_files, outputs_follow_the_growing_body_count)
{
    char out[600];
    snprintf(out, sizeof out, "%s/out", temp_dir);
    const char* path = write_scene("grow.yaml", SCENE_HEAD
                                   "  - {name: p, material: glass, radius: 0.005, rate: 100, count: 15,\n"
                                   "     region: {disk: {center: [0, 0, 0.3], radius: 0.03}}, velocity: [0, 0, -1]}\n"
                                   "output: {csv_interval: 0.05, vtu_interval: 0.05}\n");
    fd_scene scene = load_scene_at(path, NULL, 0);
    snprintf(scene.output.directory, sizeof scene.output.directory, "%s", out);
    fd_output* output = fd_output_open(scene.world, &scene.output);
    cr_assert_not_null(output, "%s", fd_last_error());
    cr_assert_eq(fd_output_write(output, scene.world), FD_OK);
    for (int n = 0; n < 2000; ++n) {
        cr_assert_eq(fd_world_step(scene.world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_output_write(output, scene.world), FD_OK, "%s", fd_last_error());
    }
    cr_assert_eq(fd_output_close(output, scene.world), FD_OK, "%s", fd_last_error());
    fd_scene_free(&scene);

    /* Rows at t = 0, 0.05, ..., 0.2 s: 0, 5, 10, 15, 15 spheres (rate 100/s). */
    char file[700];
    snprintf(file, sizeof file, "%s/bodies.csv", out);
    FILE* csv = fopen(file, "r");
    cr_assert_not_null(csv);
    char line[4096];
    int rows[8] = {0};
    int row_count = 0;
    char last_time[4096] = "";
    int line_number = 0;
    while (fgets(line, sizeof line, csv)) {
        if (++line_number <= 2) {
            continue;
        }
        char* comma = strchr(line, ',');
        cr_assert_not_null(comma);
        *comma = '\0';
        if (strcmp(line, last_time) != 0) {
            snprintf(last_time, sizeof last_time, "%s", line);
            row_count++;
            cr_assert_leq(row_count, 8);
        }
        rows[row_count - 1]++;
    }
    fclose(csv);
    /* The t = 0 row has no dynamic body, so it has no line at all. */
    const int expected[] = {5, 10, 15, 15};
    cr_assert_eq(row_count, 4, "%d row times", row_count);
    for (int i = 0; i < 4; ++i) {
        cr_assert_eq(rows[i], expected[i], "row time %d: %d bodies, expected %d", i, rows[i], expected[i]);
    }
    const int points[] = {0, 5, 10, 15, 15};
    for (int k = 0; k < 5; ++k) {
        snprintf(file, sizeof file, "%s/vtu/bodies_%06d.vtu", out, k);
        FILE* vtu = fopen(file, "r");
        cr_assert_not_null(vtu, "no %s", file);
        char expected_piece[128];
        snprintf(expected_piece, sizeof expected_piece, "NumberOfPoints=\"%d\"", points[k]);
        bool found = false;
        while (fgets(line, sizeof line, vtu)) {
            found |= strstr(line, expected_piece) != NULL;
        }
        fclose(vtu);
        cr_assert(found, "%s lacks %s", file, expected_piece);
    }
}

Test(inlet_files, cli_summary_reports_inserted_and_warns_when_behind)
{
    const char* path = write_scene("cli.yaml", SCENE_HEAD
                                   "  - {name: p, material: glass, radius: 0.005, rate: 100, count: 15,\n"
                                   "     region: {disk: {center: [0, 0, 0.3], radius: 0.03}}, velocity: [0, 0, -1]}\n"
                                   "  - {name: jam, material: glass, radius: 0.005, rate: 1000, count: 50,\n"
                                   "     region: {disk: {center: [1, 0, 0.3], radius: 0.005}}}\n"
                                   "world: {gravity: [0, 0, 0]}\n"
                                   "output: {csv_interval: 0.05}\n");
    char command[2048];
    snprintf(command, sizeof command, "'%s' run '%s' --out '%s/cli_out' >'%s/stdout' 2>'%s/stderr'", FRICDEM_CLI,
             path, temp_dir, temp_dir, temp_dir);
    int status = system(command);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed", command);
    char file[600], text[8192];
    snprintf(file, sizeof file, "%s/stdout", temp_dir);
    FILE* stream = fopen(file, "r");
    size_t n = fread(text, 1, sizeof text - 1, stream);
    text[n] = '\0';
    fclose(stream);
    cr_assert(strstr(text, "inlet    'p': 15 spheres"), "%s", text);
    cr_assert(strstr(text, "'p': 15 of 15 spheres inserted"), "%s", text);
    cr_assert(strstr(text, "'jam': 1 of 50 spheres inserted"), "%s", text);
    /* How often the neighbour list was built, and the spheres that joined it
     * standing: at most one build per pass, and 'p' places its spheres in
     * empty space 0.3 m up, so at least its first one joins it. */
    const char* neighbours = strstr(text, "neighbours   list built ");
    cr_assert(neighbours, "%s", text);
    long long builds = 0, passes = 0, joined = 0;
    cr_assert_eq(sscanf(neighbours, "neighbours   list built %lld times in %lld passes, %lld inserted", &builds,
                        &passes, &joined),
                 3, "%s", neighbours);
    cr_assert(builds >= 1 && builds <= passes && joined >= 1 && joined <= 16, "%s", neighbours);
    snprintf(file, sizeof file, "%s/stderr", temp_dir);
    stream = fopen(file, "r");
    n = fread(text, 1, sizeof text - 1, stream);
    text[n] = '\0';
    fclose(stream);
    cr_assert(strstr(text, "warning: inlet 'jam' is 49 spheres behind its schedule"), "%s", text);
}

/* ---------------------------------------------------------------- rough floors */

Test(inlet_files, a_static_generator_makes_a_rough_floor)
{
    const char* path = write_scene("floor.yaml", SCENE_HEAD
                                   "  - {name: p, material: glass, radius: 0.005, rate: 100, count: 5,\n"
                                   "     region: {disk: {center: [0, 0, 0.3], radius: 0.03}}}\n"
                                   "generators:\n"
                                   "  - {type: lattice, static: true, count: 100, material: glass, radius: 0.005,\n"
                                   "     region: {min: [-0.05, -0.05, 0], max: [0.05, 0.05, 0.01]}}\n");
    fd_scene scene = load_scene_at(path, NULL, 0);
    cr_assert_eq(fd_world_body_count(scene.world), 101);
    for (int b = 1; b < 101; ++b) {
        fd_body_info info = fd_body_get_info(scene.world, fd_world_body_at(scene.world, b));
        cr_assert_eq(info.type, FD_BODY_STATIC, "generated body %d is not static", b);
    }
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    fd_scene_free(&scene);
    expect_scene_error_at("bad.yaml",
                          SCENE_HEAD "  - {name: p, material: glass, radius: 0.005, rate: 100, count: 5,\n"
                                     "     region: {disk: {center: [0, 0, 0.3], radius: 0.03}}}\n"
                                     "generators:\n"
                                     "  - {type: lattice, static: true, count: 100, material: glass, radius: 0.005,\n"
                                     "     velocity: [0, 0, -1],\n"
                                     "     region: {min: [-0.05, -0.05, 0], max: [0.05, 0.05, 0.01]}}\n",
                          11, "generators[0].velocity", "static spheres cannot move");
}
