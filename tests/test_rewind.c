/* The penalty stepper steps the bodies in place and rolls a failed step
 * back by its rewind point (src/penalty/rewind.c): back to the point, the
 * steps since made again, the failing step once more the careful way. What
 * a caller must see is what the double buffers gave: the world at the last
 * good step, to the bit, contacts and ledger included, so that going on from
 * there is the run that never tried the failing step.
 *
 * The scene: sixteen spheres settling on a floor (their contacts build
 * springs), and a projectile fired along the floor at 0.8 of its radius per
 * step, which in flight or sliding is no blow-up, and is one the step it
 * runs into the first sphere: well after the rewind points of steps 0 and
 * FD_REWIND_INTERVAL, so that the failure makes tens of steps again. */
#include <criterion/criterion.h>
#include <string.h>

#include "fricdem/fricdem.h"
#include "support/laws.h"
#include "support/support.h"

enum { PILE_SIDE = 4 };
static const double RADIUS = 0.01;     /* m */
static const double TIME_STEP = 1e-4;  /* s */

typedef enum scene_law { LAW_DSDS_LEDGER, LAW_FANG_NEGRUT } scene_law;

static fd_world* make_scene(scene_law which, fd_body_id* projectile)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = TIME_STEP;
    def.gravity = fd_v3(0.0, 0.0, -9.81);
    def.energy_ledger = which == LAW_DSDS_LEDGER;
    fd_world* world = test_create_world(&def);
    fd_material_id glass = test_add_solid_material(world, "glass", 2500.0, 0.0);
    fd_contact_law_def law = test_demo_law(); /* Fang & Negrut slide and roll */
    if (which == LAW_DSDS_LEDGER) {
        law = fd_default_contact_law_def();
        test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "k_n", 2e4);
        test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", 0.5);
        test_set_sds(&law, FD_MECHANISM_SLIDE, "dsds", 1e4, 0.0, 0.5);
        test_set_sds(&law, FD_MECHANISM_ROLL, "dsds", 1e4, 0.0, 0.1);
    }
    test_set_law(world, glass, &law);
    test_add_plane(world, glass, fd_v3(0.0, 0.0, 1.0), fd_v3(0.0, 0.0, 0.0));
    char names[PILE_SIDE * PILE_SIDE][16];
    for (int a = 0; a < PILE_SIDE; ++a) {
        for (int b = 0; b < PILE_SIDE; ++b) {
            /* a little into the floor and into each other, and a little off
             * the lattice, so that the springs turn as they settle */
            int k = a * PILE_SIDE + b;
            snprintf(names[k], sizeof names[k], "grain %d", k);
            fd_vec3 at = fd_v3(1.99 * RADIUS * a + 1e-4 * b, 1.99 * RADIUS * b, 0.995 * RADIUS + 1e-4 * (a + b));
            test_add_sphere(world, glass, names[k], RADIUS, at, fd_v3(0.0, 0.0, 0.0));
        }
    }
    /* 0.8 radii a step: 330 steps or so to the pile */
    double speed = 0.8 * RADIUS / TIME_STEP;
    *projectile = test_add_sphere(world, glass, "projectile", RADIUS,
                                  fd_v3(-330.0 * 0.8 * RADIUS, 1.99 * RADIUS, 1.0001 * RADIUS), fd_v3(speed, 0, 0));
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    return world;
}

/* A change from outside the steps (the API's, which must make the stepper
 * take a new rewind point, or step the careful way): a grain nudged. */
static void nudge(fd_world* world)
{
    fd_body_id grain = fd_world_find_body(world, "grain 5");
    fd_body_state state = fd_body_get_state(world, grain);
    state.velocity = fd_v3_add(state.velocity, fd_v3(0.0, 0.01, 0.0));
    cr_assert_eq(fd_body_set_state(world, grain, &state), FD_OK, "%s", fd_last_error());
    /* (which the next step would do first: the books of the state as set,
     * so that the test's "before the step" is what the step starts from) */
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
}

static void expect_same_energy(const fd_world_energy* a, const fd_world_energy* b, const char* what)
{
    /* field by field, as doubles (the struct holds only doubles) */
    const double* x = (const double*)a;
    const double* y = (const double*)b;
    for (size_t k = 0; k < sizeof *a / sizeof(double); ++k) {
        cr_assert(memcmp(&x[k], &y[k], sizeof x[k]) == 0, "%s: the ledger's books differ in double %zu: %.17g against "
                  "%.17g", what, k, x[k], y[k]);
    }
}

/* Whether the scene is nudged before step `step`: at `nudge_at` alone, or
 * at every step from `nudge_at` on (`every`). */
static bool nudged(int64_t step, int nudge_at, bool every)
{
    return nudge_at >= 0 && (every ? step >= nudge_at : step == nudge_at);
}

/* Steps the scene until the projectile's blow-up (nudged as `nudged`
 * says); checks that the world is left at the last good step to the bit;
 * then, without the projectile, 50 steps on, against a second world that
 * made the same steps and never tried the failing one. */
static void fail_and_go_on(scene_law which, int nudge_at, bool every)
{
    fd_body_id projectile;
    fd_world* world = make_scene(which, &projectile);
    uint64_t hash_before = 0;
    fd_world_energy energy_before = {0};
    int contacts_before = 0;
    fd_status status = FD_OK;
    int64_t last_good = 0;
    while (status == FD_OK && fd_world_step_count(world) < 1000) {
        if (nudged(fd_world_step_count(world), nudge_at, every)) {
            nudge(world);
        }
        last_good = fd_world_step_count(world);
        hash_before = fd_world_state_hash(world);
        energy_before = fd_world_get_energy(world);
        contacts_before = fd_world_contact_count(world);
        status = fd_world_step(world);
    }
    cr_assert_eq(status, FD_ERR_UNSTABLE, "the projectile must blow up: %s", fd_last_error());
    cr_assert(strstr(fd_last_error(), "projectile") != NULL, "%s", fd_last_error());
    cr_assert(strstr(fd_last_error(), "state kept at the last good step") != NULL, "%s", fd_last_error());
    /* far enough to make steps again from a rewind point of the interval's,
     * and from one taken after a change (FD_REWIND_SPACING, 32, after it) */
    cr_assert_gt(last_good, 256 + 60, "the blow-up came at step %lld", (long long)last_good + 1);
    cr_assert_eq(fd_world_step_count(world), last_good);
    cr_assert_eq(fd_world_state_hash(world), hash_before, "the bodies are not at the last good step");
    cr_assert_eq(fd_world_contact_count(world), contacts_before);
    fd_world_energy energy_after = fd_world_get_energy(world);
    expect_same_energy(&energy_after, &energy_before, "left at the last good step");

    fd_body_id reference_projectile;
    fd_world* reference = make_scene(which, &reference_projectile);
    while (fd_world_step_count(reference) < last_good) {
        if (nudged(fd_world_step_count(reference), nudge_at, every)) {
            nudge(reference);
        }
        cr_assert_eq(fd_world_step(reference), FD_OK, "%s", fd_last_error());
    }
    if (nudged(last_good, nudge_at, every)) {
        nudge(reference); /* as the failing world was before its failing step */
    }
    cr_assert_eq(fd_world_state_hash(reference), hash_before);
    cr_assert_eq(fd_world_remove_body(world, projectile), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_remove_body(reference, reference_projectile), FD_OK, "%s", fd_last_error());
    for (int n = 0; n < 50; ++n) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_step(reference), FD_OK, "%s", fd_last_error());
        /* the springs and books made again too: any bit off shows here */
        cr_assert_eq(fd_world_state_hash(world), fd_world_state_hash(reference), "step %lld after the failure",
                     (long long)n + 1);
    }
    fd_world_energy a = fd_world_get_energy(world), b = fd_world_get_energy(reference);
    expect_same_energy(&a, &b, "50 steps on");
    cr_assert_eq(fd_world_contact_count(world), fd_world_contact_count(reference));
    fd_world_free(reference);
    fd_world_free(world);
}

Test(rewind, a_blow_up_leaves_the_last_good_step_and_going_on_is_the_run_that_never_failed)
{
    fail_and_go_on(LAW_DSDS_LEDGER, -1, false);
}

Test(rewind, fang_and_negrut_tracked_points_are_made_again_to_the_bit)
{
    /* The turns of the bodies over each step (the tracked points' paths)
     * need the orientations before the step, kept aside when made in place. */
    fail_and_go_on(LAW_FANG_NEGRUT, -1, false);
}

Test(rewind, a_change_between_steps_after_the_rewind_point_is_kept)
{
    /* Without a new rewind point at the nudge, making the steps again from
     * the older one would lose it. */
    fail_and_go_on(LAW_DSDS_LEDGER, 256 + 40, false);
}

Test(rewind, a_world_changed_every_step_is_left_at_its_last_good_step_too)
{
    /* From step 250 on every step follows a nudge: a rewind point at most
     * every 32 steps, the careful way between them. */
    fail_and_go_on(LAW_DSDS_LEDGER, 250, true);
}
