/* fricdem against LAMMPS: the golden numbers of LAMMPS 29Sep2021 (Debian
 * 20220106) for the cross-check cases (the decks in scripts/lammps/, written to
 * tests/golden/lammps_*.csv by scripts/lammps/run_lammps.py), reproduced by
 * the equivalent fricdem scenes (scenes/lammps/). LAMMPS is not needed here.
 * docs/validation/lammps_crosscheck.md derives everything below.
 *
 * Case 1, two-sphere impacts (hooke + linear_history, velocity Verlet): the
 * velocities and spins after separation and the contact's first, last and
 * number of steps. Case 2, a sphere on a wall: its state every 0.01 s and the
 * time it stops.
 *
 * What to expect. The laws and the integrator are the same; one convention
 * differs. LAMMPS takes the relative sliding velocity with the full radii as
 * arms, v_i - v_j - (R_i w_i + R_j w_j) x n, and applies the sliding force at
 * R_i - delta/2 from the centre for a pair but at R for a wall; fricdem
 * evaluates both at the midpoint of the two surface points, R_i - delta/2
 * (docs/design.md). In a contact that slides throughout in one plane the force
 * is mu N along the same line in both engines and the results are equal to
 * round-off; otherwise they differ by O(delta / 2R) of the rotational part
 * (here up to 2e-3 of a spin in the 3-D impact, 5e-5 on the wall). The golden
 * file carries that effect for each number, `arm_shift`, computed by
 * scripts/lammps/reference.py, a transcription of LAMMPS's kernels run once
 * with LAMMPS's arms (it reproduces LAMMPS to 1e-15 of the scale, checked
 * when the golden file is written) and once with fricdem's (it reproduces
 * fricdem to the same round-off). So fricdem must give lammps + arm_shift,
 * and the tolerance is round-off: 1e-10 of the quantity's scale (1 m/s,
 * 100 rad/s, 10 mm), five orders of magnitude above the 1e-15 observed
 * (~1000 steps, a handful of stick/slip switches that could each amplify a
 * last-bit difference) and five below the arm effect it must resolve.
 * Contact steps must match exactly.
 *
 * Case 4, two-sphere impacts with a Mindlin tangential spring (hertz or hooke
 * normal, slide mindlin, mindlin_rescale, mindlin_force,
 * mindlin_rescale_force; LAMMPS tangential mindlin and its variants): the
 * force on sphere one every 10 steps of contact as well, and the same
 * reasoning. The tolerance is tighter, 1e-12 of the scale (for a force: the
 * largest force row of the case, 70 to 84 N): observed 8e-16 over the whole
 * run (forces 6e-16, velocities 4e-16, spins 8e-16 of 100 rad/s) through
 * 220 to 270 steps of stick and 50 to 145 of slip, so 1e-12 leaves three
 * orders of magnitude for another compiler or libm and a last bit amplified
 * at the switch, and is nine orders below the arm effect (up to 1.3e-3 of the
 * force scale, 2e-3 of a spin) and the differences between the models (the
 * rescale alone moves a spin by 0.05 rad/s, 5e-4 of the scale), so that
 * neither a wrong convention nor a wrong variant passes.
 *
 * The variants with rolling and twisting resistance need the roll and spin
 * models `dsds` (LAMMPS rolling sds / twisting sds) and `marshall` (twisting
 * marshall); while they are not registered those tests are skipped. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "core/math.h"
#include "fricdem/io.h"
#include "support/support.h"

#define GOLDEN(file) FRICDEM_GOLDEN_DIR "/" file
#define SCENE(file) FRICDEM_SOURCE_DIR "/scenes/lammps/" file

enum { MAX_ROWS = 8192 }; /* rows of one case: case 6 has 21 steps x 32 spheres x 6 */

typedef struct golden_row {
    long step;
    char quantity[48];
    double lammps;
    double arm_shift;
} golden_row;

/* The rows of one case of a golden file (case,step,quantity,lammps,arm_shift). */
static int load_golden(const char* path, const char* name, golden_row* rows)
{
    FILE* file = fopen(path, "r");
    cr_assert(file != NULL, "cannot open %s", path);
    char line[512];
    int count = 0;
    bool header = false;
    while (fgets(line, sizeof line, file) != NULL) {
        if (line[0] == '#') {
            continue;
        }
        if (!header) {
            cr_assert(strncmp(line, "case,step,quantity,lammps,arm_shift", 35) == 0, "%s: unexpected header %s",
                      path, line);
            header = true;
            continue;
        }
        char* fields[5];
        char* cursor = line;
        for (int k = 0; k < 5; ++k) {
            fields[k] = cursor;
            cursor = strpbrk(cursor, ",\n");
            cr_assert(cursor != NULL || k == 4, "%s: short row", path);
            if (cursor != NULL) {
                *cursor++ = '\0';
            }
        }
        if (strcmp(fields[0], name) != 0) {
            continue;
        }
        cr_assert(count < MAX_ROWS);
        golden_row* row = &rows[count++];
        row->step = strtol(fields[1], NULL, 10);
        snprintf(row->quantity, sizeof row->quantity, "%s", fields[2]);
        row->lammps = strtod(fields[3], NULL);
        row->arm_shift = strtod(fields[4], NULL);
    }
    fclose(file);
    cr_assert(count > 0, "%s has no rows for case %s", path, name);
    return count;
}

/* Whether a quantity is a force ("one.fx": case 4; "b7.Fx": case 6). */
static bool is_force(const char* quantity)
{
    const char* dot = strchr(quantity, '.');
    return dot != NULL && (dot[1] == 'f' || dot[1] == 'F');
}

/* The total contact force on a body: the sum over the step's recorded contacts. */
static fd_vec3 total_contact_force(fd_world* world, fd_body_id id)
{
    fd_vec3 total = {0.0, 0.0, 0.0};
    for (int c = 0; c < fd_world_contact_count(world); ++c) {
        fd_contact_view view;
        cr_assert_eq(fd_world_get_contact(world, c, &view), FD_OK, "%s", fd_last_error());
        double sign = view.body_i.index1 == id.index1 ? 1.0 : (view.body_j.index1 == id.index1 ? -1.0 : 0.0);
        total = fd_v3_add(total, fd_v3_scale(sign, view.loads.force_on_i));
    }
    return total;
}

/* "one.vx" -> body "one", velocity x (v: velocity, w: spin, f: the force of
 * its one contact, F: the sum of its contacts' forces, x/y/z alone:
 * position). force_scale: the scale of a force (N). atom_names: the scene
 * was imported (fricdem import-lammps), whose bodies are "atom<id>": the
 * golden file's "b<id>" is "atom<id>", its "one" and "two" (atoms 1 and 2)
 * "atom1" and "atom2". */
static double body_quantity(fd_world* world, const char* quantity, double force_scale, double* scale,
                            bool atom_names)
{
    char body[32];
    const char* dot = strchr(quantity, '.');
    cr_assert(dot != NULL && (size_t)(dot - quantity) < sizeof body - 4, "bad quantity %s", quantity);
    int prefix = atom_names && quantity[0] == 'b' ? snprintf(body, sizeof body, "atom") : 0;
    int skip = prefix > 0 ? 1 : 0;
    memcpy(body + prefix, quantity + skip, (size_t)(dot - quantity - skip));
    body[prefix + (dot - quantity - skip)] = '\0';
    if (atom_names && (strcmp(body, "one") == 0 || strcmp(body, "two") == 0)) {
        snprintf(body, sizeof body, "atom%d", body[1] == 'n' ? 1 : 2);
    }
    fd_body_id id = fd_world_find_body(world, body);
    cr_assert(!fd_body_id_is_null(id), "no body %s", body);
    fd_body_state state = fd_body_get_state(world, id);
    const char* field = dot + 1;
    fd_vec3 value;
    if (field[0] == 'f') {
        /* The pair's force on the body (LAMMPS's f of a two-atom run). */
        cr_assert_eq(fd_world_contact_count(world), 1, "%s: expected the one contact", quantity);
        fd_contact_view view;
        cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK, "%s", fd_last_error());
        fd_vec3 f = view.loads.force_on_i;
        value = view.body_i.index1 == id.index1 ? f : (fd_vec3){-f.x, -f.y, -f.z};
        *scale = force_scale;
        ++field;
    } else if (field[0] == 'F') {
        value = total_contact_force(world, id);
        *scale = force_scale;
        ++field;
    } else if (field[0] == 'v') {
        value = state.velocity;
        *scale = 1.0;    /* m/s */
        ++field;
    } else if (field[0] == 'w') {
        value = state.angular_velocity;
        *scale = 100.0;  /* rad/s */
        ++field;
    } else {
        value = state.position;
        *scale = 0.01;   /* m */
    }
    return field[0] == 'x' ? value.x : field[0] == 'y' ? value.y : value.z;
}

/* The imported scenes (lammps_arms) take LAMMPS's number itself, the others
 * LAMMPS's plus the arm shift of fricdem's convention. */
static void check(const char* name, const golden_row* row, double measured, double scale, double relative,
                  bool lammps_arms)
{
    double expected = row->lammps + (lammps_arms ? 0.0 : row->arm_shift);
    double tolerance = relative * scale;
    cr_expect(fabs(measured - expected) <= tolerance,
              "%s step %ld %s: fricdem %.17g, LAMMPS %.17g + arm shift %.3g = %.17g (difference %.3g, tolerance %.3g)",
              name, row->step, row->quantity, measured, row->lammps, row->arm_shift, expected,
              measured - expected, tolerance);
}

static void skip_unless_registered(const char* name, fd_mechanism mechanism, const char* model)
{
    if (fd_model_find(mechanism, model) == NULL) {
        cr_skip_test("%s: %s model '%s' is not registered yet (pending: the roll and spin models of the sds "
                     "branch); the LAMMPS numbers are in tests/golden/, this test runs once it is merged",
                     name, fd_mechanism_name(mechanism), model);
    }
}

/* Runs the case's scene to its last golden step, comparing at every golden
 * step to `relative` of each quantity's scale (forces: the largest force row
 * of the case). */
/* The scene at scene_path against the golden file's case `name`. */
static void run_scene_within(const char* golden, const char* name, const char* scene_path, bool atom_names,
                             double relative)
{
    static golden_row rows[MAX_ROWS];
    int count = load_golden(golden, name, rows);
    long last = 0;
    double force_scale = 0.0;
    for (int k = 0; k < count; ++k) {
        last = rows[k].step > last ? rows[k].step : last;
        force_scale = is_force(rows[k].quantity) && fabs(rows[k].lammps) > force_scale ? fabs(rows[k].lammps)
                                                                                        : force_scale;
    }
    fd_scene scene;
    cr_assert_eq(fd_scene_load(scene_path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    fd_world* world = scene.world;
    for (int k = 0; k < count; ++k) {
        if (rows[k].step == 0 && is_force(rows[k].quantity)) {
            fd_world_request_contacts(world); /* the set-up pass records its contact (case 5) */
        }
    }
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    long first_contact = -1, last_contact = -1, contact_steps = 0, stopped = -1;
    fd_body_id ball = fd_world_find_body(world, "ball"); /* case 2 */
    for (long step = 0; step <= last; ++step) {
        if (step > 0) {
            for (int k = 0; k < count; ++k) {
                if (rows[k].step == step && is_force(rows[k].quantity)) {
                    fd_world_request_contacts(world); /* recording does not change the trajectory (test_penalty) */
                }
            }
            cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
            if (fd_world_contact_count(world) > 0) {
                first_contact = first_contact < 0 ? step : first_contact;
                last_contact = step;
                ++contact_steps;
            }
            /* stop_time: the first 100-step sample (LAMMPS's dump interval) with speed < 1e-3 m/s. */
            if (stopped < 0 && step % 100 == 0 && !fd_body_id_is_null(ball)) {
                fd_body_state s = fd_body_get_state(world, ball);
                if (hypot(s.velocity.x, s.velocity.y) < 1e-3) {
                    stopped = step;
                }
            }
        }
        for (int k = 0; k < count; ++k) {
            if (rows[k].step != step) {
                continue;
            }
            const char* q = rows[k].quantity;
            if (strcmp(q, "contact_first_step") == 0) {
                cr_expect_eq(first_contact, (long)rows[k].lammps, "%s: first contact step %ld, LAMMPS %ld", name,
                             first_contact, (long)rows[k].lammps);
            } else if (strcmp(q, "contact_last_step") == 0) {
                cr_expect_eq(last_contact, (long)rows[k].lammps, "%s: last contact step %ld, LAMMPS %ld", name,
                             last_contact, (long)rows[k].lammps);
            } else if (strcmp(q, "contact_steps") == 0) {
                cr_expect_eq(contact_steps, (long)rows[k].lammps, "%s: %ld contact steps, LAMMPS %ld", name,
                             contact_steps, (long)rows[k].lammps);
            } else if (strcmp(q, "stop_time") == 0) {
                double time = stopped < 0 ? NAN : (double)stopped * fd_world_time_step(world);
                cr_expect(fabs(time - (rows[k].lammps + rows[k].arm_shift)) < 1e-9,
                          "%s: stops at %.9g s, LAMMPS %.9g s (+ arm shift %.3g s)", name, time, rows[k].lammps,
                          rows[k].arm_shift);
            } else {
                double scale;
                double value = body_quantity(world, q, force_scale, &scale, atom_names);
                check(name, &rows[k], value, scale, relative, atom_names);
            }
        }
    }
    fd_scene_free(&scene);
}

static void run_case_within(const char* golden, const char* name, double relative)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.yaml", SCENE(""), name);
    run_scene_within(golden, name, path, false, relative);
}

static void run_case(const char* golden, const char* name) { run_case_within(golden, name, 1e-10); }

/* run_case of a case with rolling and twisting resistance: skipped while its
 * roll or spin model is not registered. */
static void run_resisted_case(const char* golden, const char* name, const char* roll_model, const char* spin_model)
{
    skip_unless_registered(name, FD_MECHANISM_ROLL, roll_model);
    skip_unless_registered(name, FD_MECHANISM_SPIN, spin_model);
    run_case(golden, name);
}

/* run_case_within for each of the `count` cases of one golden file. */
static void run_cases_within(const char* golden, const char* const* cases, size_t count, double relative)
{
    for (size_t k = 0; k < count; ++k) {
        run_case_within(golden, cases[k], relative);
    }
}

#define COUNT(array) (sizeof(array) / sizeof(array)[0])

/* ---------------------------------------------------------------- case 1: two-sphere impacts */

Test(lammps_golden, impact_elastic_slide_equals_lammps_to_round_off)
{
    /* Elastic normal, planar, sliding throughout: arm_shift is 0 (1e-14 rad/s). */
    run_case(GOLDEN("lammps_impact.csv"), "impact_elastic_slide");
}

Test(lammps_golden, impact_damped_slide_equals_lammps_to_round_off)
{
    /* LAMMPS damping velocity eta_n = gamma sqrt(m_eff k_n) and a tangential
     * dashpot xgammat eta_n: fricdem's hooke restitution 0.5 and dsds gamma_t. */
    run_case(GOLDEN("lammps_impact.csv"), "impact_damped_slide");
}

Test(lammps_golden, impact_damped_stick_equals_lammps_up_to_the_contact_arm)
{
    /* 3-D, stick and slip: differs from LAMMPS by up to 0.09 rad/s (2e-3 of
     * the spin), all of it the arm convention. */
    run_case(GOLDEN("lammps_impact.csv"), "impact_damped_stick");
}

Test(lammps_golden, impact_roll_twist_equals_lammps_up_to_the_contact_arm)
{
    run_resisted_case(GOLDEN("lammps_impact.csv"), "impact_roll_twist", "dsds", "dsds");
}

Test(lammps_golden, impact_roll_marshall_equals_lammps_up_to_the_contact_arm)
{
    run_resisted_case(GOLDEN("lammps_impact.csv"), "impact_roll_marshall", "dsds", "marshall");
}

/* ---------------------------------------------------------------- case 2: a sphere on a wall */

Test(lammps_golden, rolling_slide_equals_lammps_up_to_the_contact_arm)
{
    /* Slides, curves, rolls: v = R w in LAMMPS, (R - delta/2) w in fricdem (5e-5). */
    run_case(GOLDEN("lammps_rolling.csv"), "rolling_slide");
}

Test(lammps_golden, rolling_resist_equals_lammps_up_to_the_contact_arm)
{
    run_resisted_case(GOLDEN("lammps_rolling.csv"), "rolling_resist", "dsds", "dsds");
}

/* ---------------------------------------------------------------- case 4: Mindlin tangential spring */

/* 1e-12 of the scale: the header says why. Each impact sticks for 220 to
 * 270 steps, then slips to the end of the contact (50 to 145 steps: the
 * Coulomb limit falls with N); the _rescale variants scale their history
 * from the peak overlap on. */
#define MINDLIN_TOLERANCE 1e-12

/* impact_mindlin, impact_mindlin_rescale, impact_mindlin_force,
 * impact_mindlin_rescale_force and impact_hooke_mindlin. */
Test(lammps_golden, mindlin_impacts_equal_lammps_up_to_the_contact_arm)
{
    static const char* const cases[] = {"impact_mindlin", "impact_mindlin_rescale", "impact_mindlin_force",
                                        "impact_mindlin_rescale_force", "impact_hooke_mindlin"};
    run_cases_within(GOLDEN("lammps_mindlin.csv"), cases, COUNT(cases), MINDLIN_TOLERANCE);
}

/* ---------------------------------------------------------------- case 8: static and dynamic sliders */

/* LAMMPS 2026's tangential linear_history/static and mindlin/static (issue
 * 18, item 3), as hand-written scenes with fricdem's own arms (the imported
 * decks of case 8, below, take LAMMPS's): case 4's rows and tolerance (1e-12 of the scale; observed
 * between 1e-15 and 2e-15). Debian's LAMMPS (2021) predates the models, so the golden
 * numbers are scripts/lammps/reference.py's transcription of their
 * calculate_forces; run_lammps.py checks that transcription, with mu_d =
 * mu_s, against LAMMPS's linear_history and mindlin on the same impacts (7e-16
 * of the scale at every step). Each impact switches state several times
 * (dynamic at once, static, dynamic; the Mindlin one twice more), and mu_d
 * = 0.3 against mu_s = 0.5 moves a spin by several rad/s, so a cap taken from
 * the wrong coefficient at a single step, or a switch back to static at mu_s
 * instead of mu_d, is far outside the tolerance. */
Test(lammps_golden, static_slider_impacts_equal_lammps_up_to_the_contact_arm)
{
    static const char* const cases[] = {"impact_linear_history_static", "impact_mindlin_static"};
    run_cases_within(GOLDEN("lammps_newer.csv"), cases, COUNT(cases), MINDLIN_TOLERANCE);
}

/* ---------------------------------------------------------------- case 5: touching at t = 0 */

/* Issue 18, "history from elapsed time only": two spheres touching at t = 0,
 * spins held at zero (so neither arm convention enters), the force on
 * sphere one at every step of contact from step 0, LAMMPS's set-up, whose
 * history LAMMPS does not advance. fricdem's set-up pass (fd_world_prepare)
 * advances no spring either (fd_penalty.spring_time_step = 0), so step 0 is
 * F = -k_n delta n - gamma_t v_t exactly and each later step adds only its
 * own motion. Tolerance 1e-12 of the largest force (200 N; 154 N for
 * hertz): observed 5.7e-16 over the 156 steps of contact of
 * linear_history; a spring one step ahead (the convention before issue 18)
 * is off by k_t v_t dt = 0.125 N, 6e-4 of the scale.
 *
 * The other variants check LAMMPS's options (issue 18, item 2) on the same
 * pair, whose two sizes make m_eff neither sphere's mass:
 *  - mass_velocity: hooke eta_n_mass, dsds x_gamma_t (xgammat times the
 *    pair's normal dashpot; a constant gamma_t of either sphere's own mass
 *    would be off by half of it);
 *  - viscoelastic (LAMMPS's default), hooke and hertz/material: eta_n_visco,
 *    c = eta a m_eff, a = sqrt(R_eff delta) (R_eff formed as 1/(1/R_i +
 *    1/R_j) here, R_i R_j/(R_i + R_j) in LAMMPS: a last bit inside a square
 *    root); the hertz one also without limit_damping (`_free`: the dashpot
 *    pulls in 48 of its 183 steps, the Coulomb limits follow |N|);
 *  - tsuji: hooke tsuji, alpha(e) of Tsuji et al.'s polynomial;
 *  - linear_nohistory: with mu = 0.05 its dashpot (10.6 N) is capped at
 *    mu N = 10 N at step 0 and below it afterwards: both branches;
 *  - the legacy gran/hooke/history: hooke eta_n_mass, dsds x_gamma_t =
 *    gamma_t/gamma_n, legacy_projection 1; observed 1.7e-14 (advanced, then
 *    projected, in LAMMPS; the other way round here), against 3.2e-10 with
 *    legacy_projection 0: the test tells the projections apart;
 *  - the legacy gran/hooke: hooke eta_n_mass, linear_nohistory;
 *  - the legacy gran/hertz/history: hertz (E* = 3/4 kn) eta_n_mass, mindlin
 *    k_t = kt, x_gamma_t = gamma_t/gamma_n, legacy_projection 1. */
Test(lammps_golden, touching_pairs_equal_lammps_from_step_0)
{
    static const char* const cases[] = {
        "touching_linear_history",     "touching_mindlin",      "touching_mass_velocity",
        "touching_viscoelastic",       "touching_hertz_viscoelastic", "touching_hertz_viscoelastic_free",
        "touching_tsuji",              "touching_nohistory",    "touching_legacy_hooke_history",
        "touching_legacy_hooke",       "touching_legacy_hertz_history", "touching_roll_twist",
        "touching_roll_marshall",
    };
    run_cases_within(GOLDEN("lammps_touching.csv"), cases, COUNT(cases), 1e-12);
}

/* ---------------------------------------------------------------- case 6: many spheres */

/* The many-sphere parity system (scripts/lammps/make_unit_system.py, after
 * LAMMPS's own unit test of its granular pair styles): 32 polydisperse
 * spheres overlapping in a periodic cube with random velocities and spins,
 * contacts beginning and ending; fricdem with LAMMPS's arms
 * (world.lammps_arms) and roll transport 1. Each sphere's total force (to
 * 1e-12 of the case's largest force row) and spin (of 100 rad/s) every 10
 * steps over 200 steps from step 0 (tests/golden/lammps_unit.csv):
 *  - hooke with mass_velocity damping, linear_history with xgammat, rolling
 *    sds, twisting marshall;
 *  - hertz/material with viscoelastic damping, mindlin, rolling sds,
 *    twisting sds;
 * and the dilute variant (unit_dilute_*: a cube of 150 mm, no overlap at the
 * start, up to 2 m/s): every 100 steps over 2500 steps of 1e-5 s, in which 12
 * contacts begin from zero history, load, slip and end. Over 10 000 steps the
 * dilute runs drift apart too, to 9e-10 of the spins' scale at the end.
 * Why 200 steps: the system is dense and stiff, so the engines' round-off
 * differences (the order of the sums over a sphere's contacts, the mass from
 * the diameter) grow from step to step; compared every 100 steps over 1000
 * the hertz case passed 1e-9 of the largest force at step 300 and the hooke
 * case 1e-8 at step 400, growing on, and the hooke case showed a jump of
 * 0.024 rad/s in one sphere's spin at step 337 (one sliding contact, no
 * state switch in fricdem): LAMMPS rebuilds its neighbour list at that step
 * and that version flips a rolling spring whose pair changes order, which
 * later LAMMPS fixed (docs/lammps.md, "Differences that remain"). Compared at every step, two
 * single-step spikes of 1e-9 N (step 12) and 1.2e-8 N (step 43, one pair;
 * 3e-11 of the largest force) fall between these samples. */
Test(lammps_golden, many_spinning_spheres_in_a_periodic_box_equal_lammps)
{
    static const char* const cases[] = {"unit_hooke_roll_marshall", "unit_hertz_mindlin_sds",
                                        "unit_dilute_hooke_roll_marshall", "unit_dilute_hertz_mindlin_sds"};
    run_cases_within(GOLDEN("lammps_unit.csv"), cases, COUNT(cases), 1e-12);
}

/* ---------------------------------------------------------------- case 7: decks imported by fricdem import-lammps */

/* DECK (relative to the source tree) imported into a fresh scene file; its path in scene[size]. */
static void import_deck(const char* deck, char* directory, size_t directory_size, char* scene, size_t size)
{
    snprintf(directory, directory_size, "/tmp/fricdem_test_import_XXXXXX");
    cr_assert_not_null(mkdtemp(directory));
    snprintf(scene, size, "%s/imported.yaml", directory);
    char deck_path[4096];
    snprintf(deck_path, sizeof deck_path, "%s/%s", FRICDEM_SOURCE_DIR, deck);
    fd_lammps_import_def options = {.deck = deck_path, .scene = scene};
    cr_assert_eq(fd_lammps_import(&options), FD_OK, "%s", fd_last_error());
}

static void remove_import(const char* directory, const char* scene)
{
    remove(scene);
    cr_assert_eq(rmdir(directory), 0, "%s should hold the scene only", directory);
}

/* Each case's deck scripts/lammps/CASE.in imported and run, with LAMMPS's
 * arms, against the golden file's case to `relative` of the scales. */
static void run_imported_cases(const char* golden, const char* const* cases, size_t count, double relative)
{
    for (size_t k = 0; k < count; ++k) {
        char deck[256], directory[64], scene[128];
        snprintf(deck, sizeof deck, "scripts/lammps/%s.in", cases[k]);
        import_deck(deck, directory, sizeof directory, scene, sizeof scene);
        run_scene_within(golden, cases[k], scene, true, relative);
        remove_import(directory, scene);
    }
}

/* The parity system's own decks (scripts/lammps/unit_*.in, with the include
 * and the data file they read), imported instead of written by hand: the same
 * 1e-12 of the force and spin scales as the hand-written scenes above, so the
 * importer's laws, masses, states and conventions (lammps_arms, transport 1)
 * are LAMMPS's to round-off, mass_velocity and hertz/material included. */
Test(lammps_golden, imported_parity_decks_equal_lammps)
{
    static const char* const cases[] = {"unit_hooke_roll_marshall", "unit_hertz_mindlin_sds",
                                        "unit_dilute_hooke_roll_marshall", "unit_dilute_hertz_mindlin_sds"};
    run_imported_cases(GOLDEN("lammps_unit.csv"), cases, COUNT(cases), 1e-12);
}

/* Case 8's decks (scripts/lammps/impact_*.in of options newer than Debian's
 * LAMMPS, with their include) imported: the importer maps the static sliders
 * to dsds and mindlin with mu_s and mu_k, damping coeff_restitution to
 * hooke's and hertz's coeff_restitution, and the _classic sliders to dsds and
 * mindlin with legacy_projection; the scene runs with LAMMPS's arms, so it
 * must give the golden numbers themselves (no arm shift) within case 8's
 * 1e-12 of the scale. Observed: 2e-15 of the scale, except mindlin_classic,
 * 5e-14 (fricdem projects the spring and then advances it, LAMMPS's classic
 * update advances and then projects: the same in exact arithmetic, and the
 * Mindlin stiffness k_t a changes every step, which keeps the two roundings
 * from agreeing). */
Test(lammps_golden, imported_newer_decks_equal_lammps)
{
    static const char* const cases[] = {"impact_linear_history_static",   "impact_mindlin_static",
                                        "impact_coeff_restitution",       "impact_hertz_coeff_restitution",
                                        "impact_linear_history_classic", "impact_mindlin_classic"};
    run_imported_cases(GOLDEN("lammps_newer.csv"), cases, COUNT(cases), MINDLIN_TOLERANCE);
}

/* The decks shipped in scenes/lammps/decks/ (issue 18): imported, run, and
 * the kinetic energy, translational and rotational, compared with LAMMPS's at
 * each of its thermo steps (tests/golden/lammps_import.csv). polydisperse: two
 * materials, a written-out 1-2 pair, mass_velocity, twisting marshall, a floor
 * wall, periodic x and y, read_data with velocities, equal-style variables;
 * settle: create_atoms from an include, set, groups, a frozen base and its
 * exclusion, plane walls (hooke + mindlin), hertz/material + mindlin NULL +
 * rolling and twisting sds; mixing: a pair without a pair_coeff line, mixed
 * by the importer, against LAMMPS running the manual's mixing written out;
 * legacy: gran/hooke/history and fix wall/gran hooke/history with their NULL
 * defaults, their torque arm (lammps_legacy_torque), and fix nve (spins kept)
 * on one type; cylinder: fix wall/gran zcylinder (LAMMPS's wall contact at R
 * and R_eff with rwall = -2 Rc) with hertz, mindlin, rolling and twisting;
 * exclude: neigh_modify exclude type and group between moving atoms
 * (tracers that pass through grains and each other: normal model none).
 * Observed: within 2e-12 (the rounding of the sums, grown over 1500 to 6000
 * steps of collisions); 1e-8 is the bound, and a wrong law, mass,
 * mixing or wall shows as 1e-4 or more (a rolling torque lost for one step at
 * one contact moved the rotational energy by 3e-3). */
Test(lammps_golden, imported_decks_keep_lammps_kinetic_energy)
{
    static const char* const cases[] = {"polydisperse", "settle", "mixing", "legacy", "cylinder", "exclude"};
    static golden_row rows[MAX_ROWS];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char deck[256], directory[64], scene_path[128];
        snprintf(deck, sizeof deck, "scenes/lammps/decks/%s.in", cases[k]);
        import_deck(deck, directory, sizeof directory, scene_path, sizeof scene_path);
        int count = load_golden(GOLDEN("lammps_import.csv"), cases[k], rows);
        cr_assert_gt(count, 4, "%s: no golden rows", cases[k]);
        fd_scene scene;
        cr_assert_eq(fd_scene_load(scene_path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
        long step = 0;
        for (int r = 0; r < count; ++r) {
            for (; step < rows[r].step; ++step) {
                cr_assert_eq(fd_world_step(scene.world), FD_OK, "%s", fd_last_error());
            }
            fd_world_energy energy = fd_world_get_energy(scene.world);
            bool rotational = strcmp(rows[r].quantity, "kinetic_rotational") == 0;
            double value = rotational ? energy.kinetic_rotational : energy.kinetic_translational;
            double lammps = rows[r].lammps;
            /* The rotational energy is 0 until the first contact in settle. */
            double scale = fabs(lammps) > 0.0 ? fabs(lammps) : 1e-30;
            cr_expect(fabs(value - lammps) <= 1e-8 * scale, "%s step %ld: %s %.17g J, LAMMPS %.17g J (%.2g relative)",
                      cases[k], rows[r].step, rows[r].quantity, value, lammps, fabs(value - lammps) / scale);
        }
        cr_expect_gt(step, 1000, "%s ran %ld steps", cases[k], step);
        fd_scene_free(&scene);
        remove_import(directory, scene_path);
    }
}
