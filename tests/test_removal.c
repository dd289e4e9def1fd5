/* Removing bodies (src/engine/removal.c, fd_world_remove_body): the handle
 * and every copy of it become invalid, and a new body that takes the slot
 * does not revive them; names leave the name index; the removed body's
 * contacts end while every other contact keeps its springs and books to the
 * bit (against the same run where the body was far away and never removed);
 * runs with removals are bitwise the same at one and two threads; the energy
 * ledger books what leaves and keeps closing; the complementarity stepper
 * keeps the warm start of the other contacts; a checkpoint after removals
 * (scene bodies removed, their slots taken by an inlet's spheres, those
 * removed in turn) resumes bit for bit. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "body/body.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "penalty/penalty.h"
#include "support/world.h"
#include "engine/engine.h"
#include "world/world_store.h"

/* ---------------------------------------------------------------- helpers */

/* A penalty world: hooke + the spring-dashpot-slider (a slide spring with
 * history), the ledger on, one material. */
static fd_world* make_world(int threads, fd_material_id* material)
{
    fd_world_def wd = fd_default_world_def();
    wd.time_step = 1e-4;
    wd.thread_count = threads;
    wd.energy_ledger = true;
    fd_world* world = test_create_world(&wd);
    *material = test_add_solid_material(world, "glass", 2500.0, 0.0);
    fd_contact_law_def law = test_hooke_law(1e4, 0.3);
    test_set_sds(&law, FD_MECHANISM_SLIDE, "dsds", 2.5e3, 0.0, 0.5);
    test_set_law(world, *material, &law);
    return world;
}

static fd_scene load_scene(const char* relative, const char* const* overrides, int count)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/%s", FRICDEM_SOURCE_DIR, relative);
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, overrides, count, &scene), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    return scene;
}

/* Every `every`-th distinct non-plane body of the live penalty contacts, in
 * ascending index (at most `room`): bodies that touch others. */
static int touching_bodies(const fd_world* world, int every, int32_t* out, int room)
{
    fd_penalty_contacts c;
    cr_assert_eq(fd_penalty_gather(world, &c), FD_OK);
    int n = fd_world_body_count(world), count = 0, seen = 0;
    bool* touches = calloc((size_t)n, sizeof *touches);
    for (int64_t k = 0; k < c.count; ++k) {
        for (int e = 0; e < 2; ++e) {
            int b = c.pairs[2 * k + e];
            touches[b] = touches[b] || !world->is_wall[b];
        }
    }
    for (int b = 0; b < n && count < room; ++b) {
        if (touches[b] && seen++ % every == 0) {
            out[count++] = b;
        }
    }
    free(touches);
    fd_penalty_contacts_free(&c);
    return count;
}

/* The kinetic and gravitational energy of a body (J), as the ledger has it. */
static double body_energy(const fd_world* world, int b)
{
    fd_body_state s = fd_world_state(world, b);
    double m = world->colds[b].mass;
    return 0.5 * m * fd_v3_length_squared(s.velocity) + fd_body_kinetic_rotational(&s, &world->masses[b]) -
           m * fd_v3_dot(world->def.gravity, s.position);
}

static bool contact_involves(const fd_penalty_contacts* c, int64_t k, int body)
{
    return c->pairs[2 * k] == body || c->pairs[2 * k + 1] == body;
}

/* ---------------------------------------------------------------- handles and names */

Test(removal, the_handle_and_its_copies_are_invalid_and_stay_so)
{
    fd_material_id glass;
    fd_world* world = make_world(1, &glass);
    fd_body_id a = test_add_sphere(world, glass, "a", 0.01, fd_v3(0, 0, 1), fd_v3(0, 0, 0));
    fd_body_id b = test_add_sphere(world, glass, "b", 0.01, fd_v3(1, 0, 1), fd_v3(0, 0, 0));
    fd_body_id c = test_add_sphere(world, glass, "c", 0.01, fd_v3(2, 0, 1), fd_v3(0, 0, 0));
    test_run(world, 3);
    fd_body_id copy = b;
    cr_assert_eq(fd_world_remove_body(world, b), FD_OK, "%s", fd_last_error());
    cr_assert_not(fd_body_is_valid(world, b));
    cr_assert_not(fd_body_is_valid(world, copy));
    cr_assert(fd_body_is_valid(world, a) && fd_body_is_valid(world, c));
    cr_assert_eq(fd_world_body_count(world), 3, "the slot stays");
    cr_assert_eq(fd_world_live_body_count(world), 2);
    cr_assert(fd_body_id_is_null(fd_world_body_at(world, 1)), "a removed body's slot has no handle");
    cr_assert(fd_body_id_is_null(fd_world_find_body(world, "b")), "its name is gone from the index");

    /* Every call that takes it fails, saying why. */
    fd_body_state state = fd_body_get_state(world, copy);
    cr_assert(isnan(state.position.x));
    cr_assert(strstr(fd_last_error(), "invalid body handle"), "%s", fd_last_error());
    cr_assert_eq(fd_body_set_state(world, copy, &state), FD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(fd_last_error(), "invalid body handle"), "%s", fd_last_error());
    cr_assert_str_eq(fd_body_get_info(world, copy).name, "");
    cr_assert_str_eq(fd_body_get_name(world, copy), "");
    cr_assert_str_eq(fd_body_get_name(world, a), "a");
    cr_assert_eq(fd_world_remove_body(world, copy), FD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(fd_last_error(), "removed already"), "%s", fd_last_error());

    /* A new body takes the slot (and the free name) with a generation no
     * handle of the removed body has. */
    fd_body_id d = test_add_sphere(world, glass, "b", 0.02, fd_v3(3, 0, 1), fd_v3(0, 0, 0));
    cr_assert_eq(d.index1, b.index1, "the new body takes the removed body's slot");
    cr_assert_neq(d.generation, b.generation);
    cr_assert(fd_body_is_valid(world, d));
    cr_assert_not(fd_body_is_valid(world, copy), "a new body in the slot does not revive the old handle");
    cr_assert_eq(fd_world_find_body(world, "b").generation, d.generation);
    cr_assert_eq(fd_body_get_info(world, d).shape.radius, 0.02);
    cr_assert_str_eq(fd_body_get_name(world, d), "b", "the new body's name, through the slot's new generation");
    cr_assert_eq(fd_world_live_body_count(world), 3);
    cr_assert_eq(fd_world_body_count(world), 3);
    test_run(world, 3);
    cr_assert_eq(fd_body_get_state(world, d).position.x, 3.0);
    cr_assert_lt(fd_body_get_state(world, d).position.z, 1.0, "the new body falls from its first step");
    cr_assert_eq(fd_world_remove_body(world, (fd_body_id){0, 0}), FD_ERR_INVALID_ARGUMENT);
    fd_world_free(world);
}

/* A static sphere, and a loaded sphere pressed into it from the start. */
static void press(fd_world* world, fd_material_id glass)
{
    fd_body_def def = fd_default_body_def();
    def.name = "pressed";
    def.material = glass;
    def.shape.radius = 0.01;
    def.position = fd_v3(0.0199, 0, 0);
    def.external_force = fd_v3(-0.05, 0, 0); /* a loaded body: off the straight integration path */
    cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &def)), "%s", fd_last_error());
}

Test(removal, a_body_in_a_removed_slot_touches_and_moves_from_its_first_step)
{
    /* Two worlds: a static sphere and a body far away, stepped (the lists
     * are built); in one world the far body is removed, and both step on;
     * then the pressed sphere comes, in one world into the slot of the far
     * body, in the other after it. From then on the two
     * must agree on the pressed sphere to the bit: the slot's reuse is seen
     * by the neighbour list and by the integrator's list of loaded bodies. */
    fd_world* worlds[2];
    fd_body_id far[2];
    for (int w = 0; w < 2; ++w) {
        fd_material_id glass;
        worlds[w] = make_world(1, &glass);
        fd_body_def wall = fd_default_body_def();
        wall.type = FD_BODY_STATIC;
        wall.shape.radius = 0.01;
        wall.material = glass;
        cr_assert(!fd_body_id_is_null(fd_world_create_body(worlds[w], &wall)));
        far[w] = test_add_sphere(worlds[w], glass, "far", 0.01, fd_v3(1, 0, 0), fd_v3(0, 0, 0));
        test_run(worlds[w], 3);
        if (w == 0) {
            cr_assert_eq(fd_world_remove_body(worlds[w], far[w]), FD_OK, "%s", fd_last_error());
        }
        test_run(worlds[w], 3); /* the list and the integrator's lists made again without it */
        press(worlds[w], glass);
    }
    cr_assert_eq(fd_world_find_body(worlds[0], "pressed").index1, far[0].index1, "the slot is taken again");
    cr_assert_eq(fd_world_find_body(worlds[1], "pressed").index1, 3);
    for (int n = 0; n < 50; ++n) {
        test_step(worlds[0]);
        test_step(worlds[1]);
        cr_assert_eq(fd_world_contact_count(worlds[0]), fd_world_contact_count(worlds[1]), "step %d", n);
        fd_body_state a = fd_body_get_state(worlds[0], fd_world_find_body(worlds[0], "pressed"));
        fd_body_state b = fd_body_get_state(worlds[1], fd_world_find_body(worlds[1], "pressed"));
        cr_assert(memcmp(&a, &b, sizeof a) == 0, "step %d: x %.17g vs %.17g", n, a.position.x, b.position.x);
        if (n == 0) {
            cr_assert_eq(fd_world_contact_count(worlds[0]), 1, "the contact is found at the first pass");
        }
    }
    fd_body_state a = fd_body_get_state(worlds[0], fd_world_find_body(worlds[0], "pressed"));
    cr_assert_gt(a.velocity.x, 0.0, "pushed off the static sphere");
    fd_world_free(worlds[0]);
    fd_world_free(worlds[1]);
}

Test(removal, removed_names_leave_the_name_index_and_the_others_stay_found)
{
    fd_material_id glass;
    fd_world* world = make_world(1, &glass);
    enum { N = 300 };
    fd_body_id ids[N];
    char name[32];
    for (int k = 0; k < N; ++k) {
        snprintf(name, sizeof name, "s%d", k);
        ids[k] = test_add_sphere(world, glass, name, 0.01, fd_v3(0.1 * k, 0, 1), fd_v3(0, 0, 0));
    }
    /* Every third, so that entries of the probe runs behind them move back. */
    for (int k = 0; k < N; k += 3) {
        cr_assert_eq(fd_world_remove_body(world, ids[k]), FD_OK, "%s", fd_last_error());
    }
    for (int k = 0; k < N; ++k) {
        snprintf(name, sizeof name, "s%d", k);
        fd_body_id found = fd_world_find_body(world, name);
        if (k % 3 == 0) {
            cr_assert(fd_body_id_is_null(found), "'%s' was removed and is still found", name);
        } else {
            cr_assert(found.index1 == ids[k].index1 && found.generation == ids[k].generation, "'%s' lost", name);
        }
    }
    /* The removed names are free again; the new bodies fill the slots, the last removed first. */
    for (int k = 0; k < N; k += 3) {
        snprintf(name, sizeof name, "s%d", k);
        fd_body_id id = test_add_sphere(world, glass, name, 0.01, fd_v3(0.1 * k, 1, 1), fd_v3(0, 0, 0));
        cr_assert_eq(id.index1, ids[(N - 1) / 3 * 3 - k].index1);
        cr_assert_eq(fd_world_find_body(world, name).index1, id.index1);
    }
    cr_assert_eq(fd_world_body_count(world), N);
    cr_assert_eq(fd_world_live_body_count(world), N);
    fd_world_free(world);
}

/* ---------------------------------------------------------------- contacts */

/* A floor (body 0), sphere A sliding on it into sphere B, and sphere C
 * between them in index order: sliding on the floor far away (near), or
 * high in the air (far). */
static fd_world* three_spheres(bool near)
{
    fd_material_id glass;
    fd_world* world = make_world(1, &glass);
    test_add_ground(world, glass);
    double r = 0.01;
    double z = r - 1e-5; /* resting: k_n x overlap = m g */
    test_add_sphere(world, glass, "A", r, fd_v3(0, 0, z), fd_v3(0.2, 0, 0));
    test_add_sphere(world, glass, "C", r, near ? fd_v3(0.5, 0, z) : fd_v3(0.5, 0, 10.0), fd_v3(0.3, 0.1, 0));
    test_add_sphere(world, glass, "B", r, fd_v3(2.05 * r, 0, z), fd_v3(0, 0, 0));
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    return world;
}

/* The live contacts of x that do not involve body `skip`, against all of y's
 * that do not: pairs, first steps, states, springs and books to the bit;
 * at least `minimum` of them. */
static void assert_same_contacts_but(const fd_world* x, const fd_world* y, int skip, int64_t minimum)
{
    fd_penalty_contacts a, b;
    cr_assert_eq(fd_penalty_gather(x, &a), FD_OK);
    cr_assert_eq(fd_penalty_gather(y, &b), FD_OK);
    int64_t j = 0, compared = 0;
    for (int64_t k = 0; k < a.count; ++k) {
        if (contact_involves(&a, k, skip)) {
            continue;
        }
        while (j < b.count && contact_involves(&b, j, skip)) {
            ++j;
        }
        cr_assert_lt(j, b.count, "a contact more in one run");
        cr_assert(a.pairs[2 * k] == b.pairs[2 * j] && a.pairs[2 * k + 1] == b.pairs[2 * j + 1], "pairs differ");
        cr_assert_eq(a.first_step[k], b.first_step[j]);
        cr_assert_eq(a.state[k], b.state[j]);
        cr_assert(memcmp(a.springs + k * a.history_stride, b.springs + j * b.history_stride,
                         (size_t)a.history_stride * sizeof(double)) == 0,
                  "the springs of contact (%d, %d) differ", a.pairs[2 * k], a.pairs[2 * k + 1]);
        cr_assert(memcmp(a.books + k * a.book_count, b.books + j * b.book_count,
                         (size_t)a.book_count * sizeof *a.books) == 0,
                  "the books of contact (%d, %d) differ", a.pairs[2 * k], a.pairs[2 * k + 1]);
        ++j;
        ++compared;
    }
    while (j < b.count && contact_involves(&b, j, skip)) {
        ++j;
    }
    cr_assert_eq(j, b.count, "a contact more in one run");
    cr_assert_geq(compared, minimum, "%lld contacts compared", (long long)compared);
    fd_penalty_contacts_free(&a);
    fd_penalty_contacts_free(&b);
}

/* The largest |spring| of the contacts that involve `body` (or that do not). */
static double largest_spring(const fd_world* world, int body, bool involving)
{
    fd_penalty_contacts c;
    cr_assert_eq(fd_penalty_gather(world, &c), FD_OK);
    double largest = 0.0;
    for (int64_t k = 0; k < c.count; ++k) {
        for (int s = 0; contact_involves(&c, k, body) == involving && s < c.history_stride; ++s) {
            largest = fmax(largest, fabs(c.springs[k * c.history_stride + s]));
        }
    }
    fd_penalty_contacts_free(&c);
    return largest;
}

Test(removal, a_removed_body_takes_its_contacts_and_leaves_the_others_histories_to_the_bit)
{
    fd_world* removed = three_spheres(true); /* C slides on the floor, then is removed */
    fd_world* far = three_spheres(false);    /* C in the air, never removed */
    const int a = 1, c = 2, b = 3;
    for (int n = 0; n < 35; ++n) { /* A meets B at step 25 */
        test_step(removed);
        test_step(far);
    }
    cr_assert_eq(fd_world_contact_count(removed), fd_world_contact_count(far) + 1, "C touches the floor");
    cr_assert_gt(largest_spring(removed, c, false), 0.0, "the other contacts have slide springs");
    cr_assert_gt(largest_spring(removed, c, true), 0.0, "C's contact has a slide spring");
    fd_world_energy before = fd_world_get_energy(removed);
    double carried = body_energy(removed, c);
    cr_assert_eq(fd_world_remove_body(removed, fd_world_body_at(removed, c)), FD_OK, "%s", fd_last_error());

    /* C's contact is gone, from the pool and from the recorded contacts. */
    cr_assert_eq(fd_world_contact_count(removed), fd_world_contact_count(far));
    fd_penalty_contacts gathered;
    cr_assert_eq(fd_penalty_gather(removed, &gathered), FD_OK);
    for (int64_t k = 0; k < gathered.count; ++k) {
        cr_assert_not(contact_involves(&gathered, k, c), "a contact of the removed body is left");
    }
    fd_penalty_contacts_free(&gathered);
    for (int k = 0; k < fd_world_contact_count(removed); ++k) {
        fd_contact_view view;
        cr_assert_eq(fd_world_get_contact(removed, k, &view), FD_OK, "%s", fd_last_error());
        cr_assert(fd_body_is_valid(removed, view.body_i) && fd_body_is_valid(removed, view.body_j));
    }
    /* The ledger: its spring's energy released, its own energy removed. */
    fd_world_energy after = fd_world_get_energy(removed);
    cr_assert_float_eq(after.removed - before.removed, carried, 1e-12 * fabs(carried));
    cr_assert_gt(after.released, before.released, "C's spring was loaded");
    cr_assert_float_eq(after.closure_error, before.closure_error, 1e-12);

    /* From here on the two runs agree on every other body and contact. */
    for (int n = 0; n < 200; ++n) {
        fd_body_id ia = fd_world_body_at(removed, a), ib = fd_world_body_at(removed, b);
        fd_body_state sa = fd_body_get_state(removed, ia), sb = fd_body_get_state(removed, ib);
        fd_body_state fa = fd_body_get_state(far, fd_world_body_at(far, a));
        fd_body_state fb = fd_body_get_state(far, fd_world_body_at(far, b));
        cr_assert(memcmp(&sa, &fa, sizeof sa) == 0 && memcmp(&sb, &fb, sizeof sb) == 0,
                  "A or B differs at step %lld", (long long)fd_world_step_count(removed));
        assert_same_contacts_but(removed, far, c, n == 0 ? 3 : 2); /* A-B, then A and B on the floor */
        test_step(removed);
        test_step(far);
    }
    cr_assert_gt(fd_world_get_profile(removed).neighbor_builds, 1, "the list was built again without C");
    fd_world_free(removed);
    fd_world_free(far);
}

/* ---------------------------------------------------------------- threads, ledger */

/* The pour of LAMMPS's cross-check, low and small, with an outlet in a
 * corner of the floor. */
static fd_scene pour_with_outlet(int threads)
{
    char thread_text[64];
    snprintf(thread_text, sizeof thread_text, "world.threads=%d", threads);
    const char* overrides[] = {
        "generators.0.count=150",
        "generators.0.region={min: [-0.015, -0.015, 0.0], max: [0.015, 0.015, 0.025]}",
        "generators.0.velocity=[0, 0, -0.5]",
        "world.energy_ledger=true",
        "outlets=[{name: corner, region: {box: {min: [-0.02, -0.02, -0.01], max: [-0.008, -0.008, 0.003]}}, "
        "start: 0.004}]",
        thread_text,
    };
    return load_scene("lammps/pour.yaml", overrides, 6);
}

Test(removal, removals_give_bitwise_the_same_run_at_one_and_two_threads)
{
    fd_scene one = pour_with_outlet(1), two = pour_with_outlet(2);
    cr_assert_eq(fd_world_get_def(two.world).thread_count, 2);
    for (int n = 0; n < 1200; ++n) {
        if (n == 700) {
            /* Bodies in the thick of it, with contacts on every side. */
            int32_t picked[2][40];
            int count = touching_bodies(one.world, 4, picked[0], 40);
            cr_assert_eq(touching_bodies(two.world, 4, picked[1], 40), count);
            cr_assert_gt(count, 10);
            for (int k = 0; k < count; ++k) {
                cr_assert_eq(picked[0][k], picked[1][k]);
                cr_assert_eq(fd_world_remove_body(one.world, fd_world_body_at(one.world, picked[0][k])), FD_OK);
                cr_assert_eq(fd_world_remove_body(two.world, fd_world_body_at(two.world, picked[1][k])), FD_OK);
            }
        }
        test_step(one.world);
        test_step(two.world);
        cr_assert_eq(fd_world_state_hash(one.world), fd_world_state_hash(two.world), "step %d", n + 1);
    }
    cr_assert_gt(fd_world_get_outlet_info(one.world, 0).removed, 0, "the outlet removed bodies");
    cr_assert_eq(fd_world_get_outlet_info(one.world, 0).removed, fd_world_get_outlet_info(two.world, 0).removed);
    fd_penalty_contacts x, y;
    cr_assert_eq(fd_penalty_gather(one.world, &x), FD_OK);
    cr_assert_eq(fd_penalty_gather(two.world, &y), FD_OK);
    cr_assert_eq(x.count, y.count);
    cr_assert(memcmp(x.pairs, y.pairs, 2 * (size_t)x.count * sizeof *x.pairs) == 0);
    cr_assert(memcmp(x.springs, y.springs, (size_t)(x.count * x.history_stride) * sizeof(double)) == 0);
    cr_assert(memcmp(x.books, y.books, (size_t)(x.count * x.book_count) * sizeof *x.books) == 0);
    for (int64_t k = 0; k < x.count; ++k) {
        cr_assert_not(one.world->is_removed[x.pairs[2 * k]] || one.world->is_removed[x.pairs[2 * k + 1]],
                      "a contact with a removed body's slot");
    }
    fd_penalty_contacts_free(&x);
    fd_penalty_contacts_free(&y);
    fd_world_energy ea = fd_world_get_energy(one.world), eb = fd_world_get_energy(two.world);
    cr_assert(memcmp(&ea, &eb, sizeof ea) == 0, "the ledgers differ");
    fd_scene_free(&one);
    fd_scene_free(&two);
}

Test(removal, the_ledger_books_what_leaves_and_keeps_closing)
{
    fd_scene kept = pour_with_outlet(1), cut = pour_with_outlet(1);
    test_run(kept.world, 700);
    test_run(cut.world, 700);
    fd_world_energy before = fd_world_get_energy(cut.world);
    int32_t picked[40];
    int count = touching_bodies(cut.world, 4, picked, 40);
    cr_assert_gt(count, 10);
    double carried = 0.0;
    for (int k = 0; k < count; ++k) {
        carried += body_energy(cut.world, picked[k]);
    }
    cr_assert_eq(fd_world_remove_slots(cut.world, picked, count), FD_OK, "%s", fd_last_error());
    fd_world_energy after = fd_world_get_energy(cut.world);
    cr_assert_float_eq(after.removed - before.removed, carried, 1e-12 * fabs(carried));
    cr_assert_gt(after.released, before.released, "the removed bodies' springs were loaded");
    /* Nothing is lost or made by the removal itself: the books balance as before, to round-off. */
    cr_assert_float_eq(after.closure_error, before.closure_error, 1e-9 * before.entered,
                       "closure %g J before, %g J after", before.closure_error, after.closure_error);
    /* And they go on closing as well as the run without the removal. */
    test_run(kept.world, 800);
    test_run(cut.world, 800);
    fd_world_energy e_kept = fd_world_get_energy(kept.world), e_cut = fd_world_get_energy(cut.world);
    cr_assert_gt(e_cut.removed, after.removed, "the outlet removed bodies too");
    /* The closure error is the integrator's (about 7% of what entered in
     * this short pour at either step, docs/energy.md); the removals change
     * the trajectories, not the books: measured 3% apart. An unbooked
     * spring or body would show as tens of percent. */
    cr_assert_lt(fabs(e_cut.closure_error - e_kept.closure_error), 0.2 * fabs(e_kept.closure_error),
                 "closure %g J with the removals, %g J without", e_cut.closure_error, e_kept.closure_error);
    fd_scene_free(&kept);
    fd_scene_free(&cut);
}

/* ---------------------------------------------------------------- complementarity */

Test(removal, the_complementarity_stepper_keeps_the_others_warm_start)
{
    const char* overrides[] = {"generators.0.count=150"};
    fd_scene scene = load_scene("complementarity/pile_box.yaml", overrides, 1);
    fd_world* world = scene.world;
    test_run(world, 30);
    const fd_contact_set* set = &world->contacts;
    cr_assert_gt(set->count, 20);
    /* Remove the lower body of every fifth contact between two spheres. */
    int n = world->body_count;
    bool* leaving = calloc((size_t)n, sizeof *leaving);
    int32_t picked[64];
    int count = 0;
    for (int k = 0, marked = 0; k < set->count && marked < 64; k += 5) {
        int i = set->contacts[k].body_i;
        if (!world->is_wall[i] && !leaving[i]) {
            leaving[i] = true;
            ++marked;
        }
    }
    for (int b = 0; b < n && count < 64; ++b) {
        if (leaving[b]) {
            picked[count++] = b;
        }
    }
    cr_assert_gt(count, 3);
    /* The contacts that stay, with their warm start, before. */
    int stride = world->history_stride, kept = 0;
    fd_contact* stay = malloc((size_t)set->count * sizeof *stay);
    double* history = malloc((size_t)set->count * (size_t)stride * sizeof *history);
    for (int k = 0; k < set->count; ++k) {
        if (!leaving[set->contacts[k].body_i] && !leaving[set->contacts[k].body_j]) {
            stay[kept] = set->contacts[k];
            memcpy(history + (size_t)kept * stride, set->history + (size_t)k * stride, (size_t)stride * sizeof(double));
            ++kept;
        }
    }
    cr_assert_lt(kept, set->count);
    double largest = 0.0;
    for (int k = 0; k < kept * stride; ++k) {
        largest = fmax(largest, fabs(history[k]));
    }
    cr_assert_gt(largest, 0.0, "the contacts have reactions (their warm start)");
    fd_world_energy before = fd_world_get_energy(world);
    for (int k = 0; k < count; ++k) {
        cr_assert_eq(fd_world_remove_body(world, fd_world_body_at(world, picked[k])), FD_OK, "%s", fd_last_error());
    }
    cr_assert_eq(set->count, kept);
    cr_assert_eq(fd_world_contact_count(world), kept);
    for (int k = 0; k < kept; ++k) {
        const fd_contact* p = &set->contacts[k];
        const fd_contact* q = &stay[k];
        cr_assert(p->key == q->key && p->id == q->id && p->first_step == q->first_step &&
                      memcmp(&p->loads, &q->loads, sizeof p->loads) == 0 &&
                      memcmp(p->energy, q->energy, sizeof p->energy) == 0,
                  "contact %d changed", k);
    }
    cr_assert(memcmp(set->history, history, (size_t)kept * (size_t)stride * sizeof(double)) == 0,
              "the warm start of the contacts that stay changed");
    fd_world_energy after = fd_world_get_energy(world);
    cr_assert_float_eq(after.closure_error, before.closure_error, 1e-9 * before.entered);
    test_run(world, 20);
    for (int k = 0; k < world->contacts.count; ++k) {
        cr_assert_not(leaving[world->contacts.contacts[k].body_i] || leaving[world->contacts.contacts[k].body_j],
                      "a removed body touches again");
    }
    free(leaving);
    free(stay);
    free(history);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- checkpoints */

/* The pour with an inlet raining through a ball outlet: scene bodies in the
 * ball are removed at the first step, the inlet's spheres take their slots
 * and then new ones, the ball removes some of those, whose slots the next
 * spheres take; after the inlet stops the ball and then a box in a corner
 * of the floor remove more (scene bodies and spheres) for good; after the
 * checkpoint a second inlet takes slots from the restored stack. */
static fd_scene rain(void)
{
    const char* overrides[] = {
        "generators.0.count=150",
        "generators.0.region={min: [-0.015, -0.015, 0.0], max: [0.015, 0.015, 0.025]}",
        "generators.0.velocity=[0, 0, -0.5]",
        "inlets=[{name: rain, material: glass, radius: 0.0015, region: {disk: {center: [0, 0, 0.032], radius: 0.01}}, "
        "rate: 10000, count: 50, velocity: [0, 0, -1], seed: 3}, "
        "{name: late, material: glass, radius: 0.0015, region: {disk: {center: [0, 0, 0.032], radius: 0.01}}, "
        "rate: 10000, count: 20, start: 0.009, seed: 4}]",
        "outlets=[{name: ball, region: {sphere: {center: [0, 0, 0.024], radius: 0.005}}}, "
        "{name: corner, region: {box: {min: [-0.02, -0.02, -0.01], max: [-0.003, -0.003, 0.004]}}, start: 0.003}]",
        "world.energy_ledger=true",
    };
    return load_scene("lammps/pour.yaml", overrides, 6);
}

static void assert_same_world(const fd_world* a, const fd_world* b, const char* label)
{
    cr_assert_eq(fd_world_step_count(a), fd_world_step_count(b), "%s", label);
    cr_assert_eq(fd_world_body_count(a), fd_world_body_count(b), "%s: slots", label);
    cr_assert_eq(fd_world_live_body_count(a), fd_world_live_body_count(b), "%s: bodies", label);
    cr_assert_eq(fd_world_state_hash(a), fd_world_state_hash(b), "%s: state hash", label);
    for (int s = 0; s < a->body_count; ++s) {
        cr_assert_eq(a->is_removed[s], b->is_removed[s], "%s: slot %d", label, s);
        cr_assert_eq(a->generations[s], b->generations[s], "%s: generation of slot %d", label, s);
        cr_assert_str_eq(a->body_names[s], b->body_names[s], "%s: slot %d", label, s);
    }
    cr_assert_eq(a->free_slot_count, b->free_slot_count, "%s", label);
    cr_assert(a->free_slot_count == 0 ||
                  memcmp(a->free_slots, b->free_slots, (size_t)a->free_slot_count * sizeof *a->free_slots) == 0,
              "%s: the stacks of free slots differ", label);
    cr_assert_eq(a->removed_count, b->removed_count, "%s", label);
    cr_assert_eq(a->next_contact_id, b->next_contact_id, "%s", label);
    fd_penalty_contacts x, y;
    cr_assert_eq(fd_penalty_gather(a, &x), FD_OK);
    cr_assert_eq(fd_penalty_gather(b, &y), FD_OK);
    cr_assert_eq(x.count, y.count, "%s: contacts", label);
    cr_assert(memcmp(x.pairs, y.pairs, 2 * (size_t)x.count * sizeof *x.pairs) == 0, "%s", label);
    cr_assert(memcmp(x.id, y.id, (size_t)x.count * sizeof *x.id) == 0, "%s: ids", label);
    cr_assert(memcmp(x.springs, y.springs, (size_t)(x.count * x.history_stride) * sizeof(double)) == 0, "%s", label);
    cr_assert(memcmp(x.books, y.books, (size_t)(x.count * x.book_count) * sizeof *x.books) == 0, "%s", label);
    fd_penalty_contacts_free(&x);
    fd_penalty_contacts_free(&y);
    fd_world_energy ea = fd_world_get_energy(a), eb = fd_world_get_energy(b);
    cr_assert(memcmp(&ea, &eb, sizeof ea) == 0, "%s: the ledgers differ", label);
    for (int i = 0; i < fd_world_outlet_count(a); ++i) {
        fd_outlet_info p = fd_world_get_outlet_info(a, i), q = fd_world_get_outlet_info(b, i);
        cr_assert(p.removed == q.removed && memcmp(&p.removed_mass, &q.removed_mass, sizeof(double)) == 0,
                  "%s: outlet '%s'", label, p.name);
    }
    for (int i = 0; i < fd_world_inlet_count(a); ++i) {
        cr_assert_eq(fd_world_get_inlet_info(a, i).inserted, fd_world_get_inlet_info(b, i).inserted, "%s", label);
        cr_assert_eq(a->inlets[i].attempts, b->inlets[i].attempts, "%s", label);
    }
}

Test(removal, a_checkpoint_after_removals_resumes_bit_for_bit)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/test_removal_checkpoint.h5", FRICDEM_BINARY_DIR);
    remove(path);
    const int before = 800, after = 500;
    fd_scene straight = rain();
    test_run(straight.world, before + after);
    fd_scene stopped = rain();
    test_run(stopped.world, before);

    /* What the reader must put back: every kind of slot. */
    const fd_world* w = stopped.world;
    int scene_bodies = 5 + 150, scene_gone = 0, scene_taken = 0, added_gone = 0, added_taken = 0;
    for (int s = 0; s < w->body_count; ++s) {
        bool scene = s < scene_bodies, changed = w->generations[s] > 1;
        scene_gone += scene && w->is_removed[s];
        scene_taken += scene && changed && !w->is_removed[s];
        added_gone += !scene && w->is_removed[s];
        added_taken += !scene && changed && !w->is_removed[s];
    }
    cr_assert(scene_gone > 0 && scene_taken > 0 && added_gone > 0 && added_taken > 0,
              "scene slots removed %d, taken again %d; added slots removed %d, taken again %d", scene_gone,
              scene_taken, added_gone, added_taken);
    cr_assert_gt(fd_world_contact_count(w), 0);
    cr_assert_eq(fd_scene_write_checkpoint(&stopped, path), FD_OK, "%s", fd_last_error());

    fd_scene resumed;
    cr_assert_eq(fd_scene_resume(path, NULL, 0, &resumed), FD_OK, "%s", fd_last_error());
    assert_same_world(stopped.world, resumed.world, "resumed at the checkpoint");
    test_run(stopped.world, after);
    test_run(resumed.world, after);
    cr_assert_gt(fd_world_get_inlet_info(stopped.world, 1).inserted, 0, "the second inlet took slots after it");
    assert_same_world(straight.world, stopped.world, "written and went on");
    assert_same_world(straight.world, resumed.world, "resumed and went on");
    fd_scene_free(&straight);
    fd_scene_free(&stopped);
    fd_scene_free(&resumed);
    remove(path);
}
