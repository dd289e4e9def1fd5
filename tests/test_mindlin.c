/* The Mindlin tangential spring (src/contact/mindlin.c; LAMMPS tangential
 * mindlin, mindlin_rescale, mindlin/force, mindlin_rescale/force) in closed
 * form: the stiffness k_t a, the static and kinetic caps, what each variant
 * does when the contact radius shrinks and grows, its energy books, its
 * default k_t = 8 G*, the checks of a law, the critical step, and the penalty
 * stepper's sphere kernel against the registry kernel. Its agreement with
 * LAMMPS on impacts is tests/test_lammps_golden.c, case 4. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "contact/mindlin_core.h"
#include "contact/model.h"
#include "core/math.h"
#include "fricdem/fricdem.h"
#include "penalty/sphere_kernel.h"
#include "support/laws.h"
#include "support/registry.h"
#include "support/support.h"

static const double radius = 0.1;      /* m: the block is a sphere on the ground plane, R_eff = R */
static const double normal_force = 10.0; /* N, prescribed */
static const double time_step = 1e-4;  /* s */

typedef struct mindlin_params {
    const char* model;
    double k_t, mu_s, mu_k; /* mu_k < 0: left to its default */
} mindlin_params;

/* A block (body i, created before the ground) with its centre `overlap`
 * below R over the plane, N prescribed, its translation along y and z and
 * every rotation locked. Along x it moves at the given velocity: so heavy
 * (1e20 kg) that the friction force changes that velocity by 1e-23 m/s a
 * step, nothing next to the round-off of the spring, and free, so that
 * fd_body_set_state can stop or turn it (a lock would hold the initial
 * velocity). The energy ledger is on: the books are lifetime sums. */
static fd_world* make_block(const mindlin_params* p, double overlap, fd_vec3 velocity)
{
    fd_world_def def = test_weightless_world_def(time_step);
    def.energy_ledger = true;
    def.contact_energy_books = true; /* the contacts' own books are examined */
    fd_contact_law_def law = test_prescribed_law(normal_force);
    fd_submodel_def* slide = test_set_model(&law, FD_MECHANISM_SLIDE, p->model);
    test_add_param(slide, "k_t", p->k_t);
    test_add_param(slide, "mu_s", p->mu_s);
    if (p->mu_k >= 0.0) {
        test_add_param(slide, "mu_k", p->mu_k);
    }
    fd_body_def block = test_slider_def("block", radius, 1e20, overlap);
    block.velocity = velocity;
    block.lock_translation = FD_LOCK_Y | FD_LOCK_Z;
    return test_body_on_ground(&def, &law, block);
}

/* What one step shows of the block's contact. */
typedef struct observed {
    double force;      /* slide force on the block along x, N */
    double spring;     /* the history's x component: xi (m) or the elastic force (N) */
    bool slipping;
    double stiffness;  /* k_t a with a = sqrt(R_eff delta) of the step's geometry, N/m */
    fd_energy_books books;
} observed;

static observed step(fd_world* world, double k_t, const char* spring_column)
{
    cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_contact_count(world), 1);
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK, "%s", fd_last_error());
    cr_assert_eq(view.loads.slide_force.y, 0.0);
    return (observed){
        .force = view.loads.slide_force.x,
        .spring = test_column_value(world, &view, spring_column),
        .slipping = test_column_value(world, &view, "slipping") != 0.0,
        .stiffness = k_t * sqrt(view.geometry.effective_radius * view.geometry.penetration),
        .books = view.energy[FD_MECHANISM_SLIDE],
    };
}

/* Puts the block at `overlap` with the velocity. The world then evaluates its
 * forces again before the next step (fd_world_prepare), which advances the
 * spring by v dt once more: the step that follows shows two advances. */
static void move_block(fd_world* world, double overlap, fd_vec3 velocity)
{
    fd_body_id block = fd_world_find_body(world, "block");
    fd_body_state state = fd_body_get_state(world, block);
    state.position.z = radius - overlap;
    state.velocity = velocity;
    cr_assert_eq(fd_body_set_state(world, block, &state), FD_OK, "%s", fd_last_error());
}

Test(mindlin, a_ramped_displacement_loads_k_t_a_xi_up_to_mu_s_n_then_slides_at_mu_k_n)
{
    /* delta = 0.1 mm under R = 0.1 m: a = sqrt(R delta) = 3.16 mm, k = k_t a
     * = 3.16e4 N/m. Driven at v = 1 cm/s (dt = 0.1 ms: xi grows by
     * v dt = 1 um a step, no dashpot: the prescribed normal model has none),
     * the force is -k xi exactly (round-off: 1e-12 of mu_s N) while
     * k xi <= mu_s N = 4 N, about 126 steps. The first step past it slips,
     * capped at mu_s N (the limit of the mode the step starts in, Fang &
     * Negrut's switch); every later one at mu_k N = 3 N, the spring held at
     * mu_k N / k. Reversed, the spring force falls below mu_k N at once: it
     * sticks, unloads through zero and loads the other way, by v dt an
     * evaluation, until k |xi| > mu_s N again: (mu_k + mu_s) N / (k v dt) =
     * 221 steps (the re-preparation after the reversal, move_block, advances
     * nothing). The first step shows xi = v dt: fd_world_prepare evaluates
     * the contact once before it, and no time has passed then
     * (docs/validation/lammps_crosscheck.md, convention 3; issue 18). */
    const double v = 0.01, mu_s = 0.4, mu_k = 0.3, k_t = 1e7, tolerance = 1e-12 * mu_s * normal_force;
    mindlin_params p = {"mindlin", k_t, mu_s, mu_k};
    fd_world* world = make_block(&p, 1e-4, fd_v3(v, 0, 0));
    double previous = 0.0;
    int first_slip = -1, s = 0;
    double k = 0.0;
    for (; s < 200 && first_slip < 0; ++s) {
        observed o = step(world, k_t, "xi_x");
        k = o.stiffness;
        double predicted = previous + v * time_step; /* prepare's pass left xi = 0 */
        if (!o.slipping) {
            cr_assert_float_eq(o.spring, predicted, 1e-16, "step %d: xi %.17g, expected %.17g", s, o.spring, predicted);
            cr_assert_float_eq(o.force, -k * o.spring, tolerance, "step %d", s);
            cr_assert_leq(k * o.spring, mu_s * normal_force);
        } else {
            first_slip = s;
            cr_assert_gt(k * predicted, mu_s * normal_force, "slipped before k xi exceeded mu_s N");
            cr_assert_float_eq(o.force, -mu_s * normal_force, tolerance, "the step that slips is capped at mu_s N");
            cr_assert_float_eq(o.spring, mu_s * normal_force / k, 1e-12 * o.spring);
        }
        previous = o.spring;
    }
    cr_assert(first_slip > 120 && first_slip < 130, "first slip at step %d, k = %g N/m", first_slip, k);
    for (int t = 0; t < 50; ++t, ++s) {
        observed o = step(world, k_t, "xi_x");
        cr_assert(o.slipping, "step %d", s);
        cr_assert_float_eq(o.force, -mu_k * normal_force, tolerance, "step %d: %.17g", s, o.force);
        cr_assert_float_eq(o.spring, mu_k * normal_force / k, 1e-12 * o.spring);
    }
    move_block(world, 1e-4, fd_v3(-v, 0, 0));
    observed back = step(world, k_t, "xi_x");
    cr_assert(!back.slipping, "reversed: below mu_k N, it sticks");
    cr_assert_float_eq(back.force, -k * back.spring, tolerance);
    cr_assert_float_eq(back.force, -mu_k * normal_force + k * v * time_step, tolerance, "%.17g", back.force);
    int sticking = 1; /* the step (the re-preparation advanced nothing) */
    observed o = back;
    while (!o.slipping && sticking < 400) {
        o = step(world, k_t, "xi_x");
        sticking += !o.slipping;
    }
    double expected = (mu_k + mu_s) * normal_force / (k * v * time_step);
    cr_assert(fabs(sticking - expected) <= 1.0, "stuck %d evaluations on the way back, closed form %.2f", sticking,
              expected);
    cr_assert_float_eq(o.force, mu_s * normal_force, tolerance, "slips the other way at mu_s N: %.17g", o.force);
    fd_world_free(world);
}

Test(mindlin, one_coefficient_is_lammps_s_single_coulomb_limit)
{
    /* mu_k left to its default (-1): mu_k = mu_s, so the contact slides at
     * mu_s N, as LAMMPS's one mu. */
    mindlin_params p = {"mindlin", 1e7, 0.4, -1.0};
    fd_world* world = make_block(&p, 1e-4, fd_v3(0.01, 0, 0));
    observed o = {0};
    for (int s = 0; s < 200; ++s) {
        o = step(world, 1e7, "xi_x");
    }
    cr_assert(o.slipping);
    cr_assert_float_eq(o.force, -0.4 * normal_force, 1e-12 * normal_force);
    fd_world_free(world);
}

/* Loads the spring (30 steps at 1 cm/s: 30 um, about 1 N), stops, then
 * unloads the contact to a quarter of the overlap (a halves) and loads it
 * back; returns the force at rest before, at the quarter and after. */
typedef struct radius_cycle {
    observed before, unloaded, reloaded;
    double ratio; /* a_unloaded / a_before */
} radius_cycle;

static radius_cycle cycle_radius(const char* model, const char* spring_column)
{
    const double k_t = 1e7, overlap = 1e-4;
    mindlin_params p = {model, k_t, 0.4, 0.3};
    fd_world* world = make_block(&p, overlap, fd_v3(0.01, 0, 0));
    for (int s = 0; s < 30; ++s) {
        step(world, k_t, spring_column);
    }
    move_block(world, overlap, fd_v3(0, 0, 0));
    radius_cycle c;
    c.before = step(world, k_t, spring_column);
    move_block(world, 0.25 * overlap, fd_v3(0, 0, 0));
    c.unloaded = step(world, k_t, spring_column);
    move_block(world, overlap, fd_v3(0, 0, 0));
    c.reloaded = step(world, k_t, spring_column);
    c.ratio = c.unloaded.stiffness / c.before.stiffness;
    cr_assert(!c.before.slipping && !c.unloaded.slipping && !c.reloaded.slipping, "%s must stick", model);
    cr_assert_float_eq(c.ratio, 0.5, 1e-9, "a quarter of the overlap halves a");
    fd_world_free(world);
    return c;
}

Test(mindlin, each_variant_follows_the_contact_radius_as_lammps_documents)
{
    /* At rest (v = 0: the spring is not advanced), the contact radius halved
     * and restored. (D) mindlin holds xi: F = k_t a xi goes as a, and back.
     * mindlin_rescale scales xi by a_new / a_old on unloading (LAMMPS doc:
     * "xi = xi_(n-1) a / a_(n-1)" when a < a_(n-1)): F goes as a^2, and on
     * reloading xi is not scaled back, so F returns to half. (T)
     * mindlin_force holds the elastic force: F unchanged both ways;
     * mindlin_rescale_force scales it by a_new / a_old: F halves and stays.
     * Round-off: 1e-12 relative. */
    const struct {
        const char* model;
        const char* column;
        double unloaded, reloaded; /* F / F_before as powers of the ratio 1/2 */
    } cases[] = {
        {"mindlin", "xi_x", 1, 0},
        {"mindlin_rescale", "xi_x", 2, 1},
        {"mindlin_force", "spring_force_x", 0, 0},
        {"mindlin_rescale_force", "spring_force_x", 1, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        radius_cycle c = cycle_radius(cases[k].model, cases[k].column);
        double f0 = c.before.force;
        cr_assert_lt(f0, -0.5, "%s: the spring is loaded (%g N)", cases[k].model, f0);
        double unloaded = f0 * pow(c.ratio, cases[k].unloaded), reloaded = f0 * pow(c.ratio, cases[k].reloaded);
        cr_assert_float_eq(c.unloaded.force, unloaded, 1e-12 * fabs(f0), "%s unloaded: %.17g, expected %.17g",
                           cases[k].model, c.unloaded.force, unloaded);
        cr_assert_float_eq(c.reloaded.force, reloaded, 1e-12 * fabs(f0), "%s reloaded: %.17g, expected %.17g",
                           cases[k].model, c.reloaded.force, reloaded);
    }
}

Test(mindlin, a_stiffness_change_at_a_held_spring_is_booked_as_slip_or_created)
{
    /* mindlin at rest: the spring energy k xi^2 / 2 changes with k = k_t a
     * with no work done on the bodies (v = 0, the block does not move). The
     * loss when a halves, k_t (a - a/2) xi^2 / 2, is booked as slip; the gain
     * when it is restored, as created; stored follows k_t a xi^2 / 2. Round
     * off: 1e-12 of the stored energy. For mindlin_force the energy of a held
     * force F^2 / 2k goes the other way: a gain when a halves. */
    radius_cycle c = cycle_radius("mindlin", "xi_x");
    double xi = c.before.spring, k0 = c.before.stiffness, k1 = c.unloaded.stiffness;
    double e0 = 0.5 * k0 * xi * xi, e1 = 0.5 * k1 * xi * xi, tolerance = 1e-12 * e0;
    cr_assert_float_eq(c.before.books.stored, e0, tolerance);
    cr_assert_float_eq(c.unloaded.books.stored, e1, tolerance);
    cr_assert_float_eq(c.unloaded.books.slip - c.before.books.slip, e0 - e1, tolerance);
    cr_assert_eq(c.unloaded.books.created, c.before.books.created);
    cr_assert_float_eq(c.reloaded.books.created - c.unloaded.books.created, e0 - e1, tolerance);
    cr_assert_eq(c.reloaded.books.slip, c.unloaded.books.slip);
    cr_assert_eq(c.before.books.dashpot, 0.0, "no dashpot with a prescribed normal force");

    radius_cycle f = cycle_radius("mindlin_force", "spring_force_x");
    double force = f.before.spring;
    double g0 = 0.5 * force * force / f.before.stiffness, g1 = 0.5 * force * force / f.unloaded.stiffness;
    cr_assert_float_eq(f.unloaded.books.stored, g1, 1e-12 * g1);
    cr_assert_float_eq(f.unloaded.books.created - f.before.books.created, g1 - g0, 1e-12 * g1);
    cr_assert_float_eq(f.reloaded.books.slip - f.unloaded.books.slip, g1 - g0, 1e-12 * g1);
}

/* ---------------------------------------------------------------- laws */

static fd_status resolve(const char* normal, const char* slide, const fd_param* params, int count,
                         const fd_material* a, const fd_material* b, fd_contact_law* law)
{
    fd_contact_law_def def = fd_default_contact_law_def();
    def.submodel[FD_MECHANISM_NORMAL].model = normal;
    if (strcmp(normal, "hooke") == 0) {
        def.submodel[FD_MECHANISM_NORMAL].params[0] = (fd_param){"k_n", 1e5};
        def.submodel[FD_MECHANISM_NORMAL].params[1] = (fd_param){"restitution", 0.5};
        def.submodel[FD_MECHANISM_NORMAL].param_count = 2;
    } else if (strcmp(normal, "pfc_linear") == 0) {
        def.submodel[FD_MECHANISM_NORMAL].params[0] = (fd_param){"kn", 1e5};
        def.submodel[FD_MECHANISM_NORMAL].param_count = 1;
    } else if (strcmp(normal, "hertz") == 0) {
        def.submodel[FD_MECHANISM_NORMAL].params[0] = (fd_param){"restitution", 0.5};
        def.submodel[FD_MECHANISM_NORMAL].param_count = 1;
    }
    def.submodel[FD_MECHANISM_SLIDE].model = slide;
    for (int k = 0; k < count; ++k) {
        def.submodel[FD_MECHANISM_SLIDE].params[k] = params[k];
    }
    def.submodel[FD_MECHANISM_SLIDE].param_count = count;
    return fd_contact_law_resolve(law, &def, a, b, 0, 1);
}

Test(mindlin, the_default_k_t_is_eight_g_star_as_lammps_mixes_it)
{
    /* k_t = -1: 8 G*, 1/G* = 2 (2 - nu_a)(1 + nu_a)/E_a + 2 (2 - nu_b)(1 + nu_b)/E_b
     * (LAMMPS mix_stiffnessG). For like materials 8 G* = 4 G / (2 - nu),
     * G = E / 2(1 + nu), the k_t LAMMPS's doc gives for the Mindlin solution:
     * E = 1 GPa, nu = 0.3: 9.049773755656e8 Pa. Round-off: 1e-15 relative. */
    fd_material glass = {"glass", 2500.0, 1e9, 0.3}, steel = {"steel", 7800.0, 2e11, 0.28};
    fd_param mu = {"mu_s", 0.5};
    fd_contact_law law;
    cr_assert_eq(resolve("hertz", "mindlin", &mu, 1, &glass, &glass, &law), FD_OK, "%s", fd_last_error());
    double shear = 1e9 / (2.0 * 1.3);
    cr_assert_float_eq(law.derived[FD_MECHANISM_SLIDE][FD_MINDLIN_DERIVED_K_T], 4.0 * shear / 1.7, 1e-15 * 9e8);
    cr_assert_eq(law.derived[FD_MECHANISM_SLIDE][FD_MINDLIN_DERIVED_MU_K], 0.5, "mu_k defaults to mu_s");
    cr_assert_eq(resolve("hertz", "mindlin_rescale_force", &mu, 1, &glass, &steel, &law), FD_OK, "%s",
                 fd_last_error());
    double g_star = 1.0 / (2.0 * 1.7 * 1.3 / 1e9 + 2.0 * 1.72 * 1.28 / 2e11);
    cr_assert_float_eq(law.derived[FD_MECHANISM_SLIDE][FD_MINDLIN_DERIVED_K_T], 8.0 * g_star, 1e-15 * 8.0 * g_star);
    cr_assert_eq(law.history_size, FD_MINDLIN_HISTORY);
    fd_param given[2] = {{"k_t", 3e8}, {"mu_s", 0.5}};
    cr_assert_eq(resolve("hooke", "mindlin", given, 2, &glass, &glass, &law), FD_OK, "%s", fd_last_error());
    cr_assert_eq(law.derived[FD_MECHANISM_SLIDE][FD_MINDLIN_DERIVED_K_T], 3e8);
}

Test(mindlin, laws_it_cannot_evaluate_are_refused_saying_why)
{
    fd_material glass = {"glass", 2500.0, 1e9, 0.3}, soft = {"soft", 1000.0, 0.0, 0.3};
    fd_contact_law law;
    fd_param kinetic_above[2] = {{"mu_s", 0.3}, {"mu_k", 0.4}};
    cr_assert_neq(resolve("hertz", "mindlin", kinetic_above, 2, &glass, &glass, &law), FD_OK);
    cr_assert(strstr(fd_last_error(), "mu_k = 0.4 must be in [0, mu_s = 0.3]") != NULL, "%s", fd_last_error());
    fd_param zero_k[2] = {{"k_t", 0.0}, {"mu_s", 0.3}};
    cr_assert_neq(resolve("hertz", "mindlin", zero_k, 2, &glass, &glass, &law), FD_OK);
    cr_assert(strstr(fd_last_error(), "must be > 0, or -1") != NULL, "%s", fd_last_error());
    fd_param mu = {"mu_s", 0.3};
    cr_assert_neq(resolve("hooke", "mindlin", &mu, 1, &glass, &soft, &law), FD_OK);
    cr_assert(strstr(fd_last_error(), "needs youngs_modulus > 0") != NULL, "%s", fd_last_error());
    cr_assert_neq(resolve("pfc_linear", "mindlin_force", &mu, 1, &glass, &glass, &law), FD_OK);
    cr_assert(strstr(fd_last_error(), "slide model 'mindlin_force' needs normal model 'hertz', 'hooke' or "
                                      "'prescribed'") != NULL,
              "%s", fd_last_error());
}

Test(mindlin, the_critical_step_counts_k_t_a_at_one_percent_overlap)
{
    /* A sphere r = 1 cm of 2500 kg/m^3 (m = 10.5 g) on a plane (R_e = r),
     * hertz E = 1 GPa (normal tangent stiffness at delta = 1% of R_e:
     * 2 E* 0.1 R_e = 1.1e6 N/m) and mindlin k_t = 1e10 Pa without dashpot:
     * k_t a with a = sqrt(R_e 0.01 R_e) = 0.1 R_e = 1 mm is 1e7 N/m, the stiffest. */
    double steps[2];
    for (int variant = 0; variant < 2; ++variant) {
        fd_world_def def = fd_default_world_def();
        def.time_step = 1e-6;
        fd_world* world = fd_world_create(&def);
        fd_material_id m = test_add_solid_material(world, "glass", 2500.0, 1e9);
        fd_contact_law_def law = fd_default_contact_law_def();
        law.submodel[FD_MECHANISM_NORMAL].model = "hertz";
        if (variant == 0) {
            law.submodel[FD_MECHANISM_SLIDE].model = "mindlin";
            law.submodel[FD_MECHANISM_SLIDE].params[0] = (fd_param){"k_t", 1e10};
            law.submodel[FD_MECHANISM_SLIDE].params[1] = (fd_param){"mu_s", 0.5};
            law.submodel[FD_MECHANISM_SLIDE].param_count = 2;
        } else { /* the same spring as a constant k_t a = 1e10 Pa x 1 mm, no dashpot */
            law.submodel[FD_MECHANISM_SLIDE].model = "dsds";
            law.submodel[FD_MECHANISM_SLIDE].params[0] = (fd_param){"k_t", 1e10 * 0.1 * 0.01};
            law.submodel[FD_MECHANISM_SLIDE].params[1] = (fd_param){"gamma_t", 0.0};
            law.submodel[FD_MECHANISM_SLIDE].params[2] = (fd_param){"mu", 0.5};
            law.submodel[FD_MECHANISM_SLIDE].param_count = 3;
        }
        cr_assert_eq(fd_world_set_contact_law(world, m, m, &law), FD_OK, "%s", fd_last_error());
        test_add_ground(world, m);
        fd_body_def ball = fd_default_body_def();
        ball.shape.radius = 0.01;
        ball.material = m;
        ball.position = fd_v3(0, 0, 0.5);
        cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &ball)), "%s", fd_last_error());
        cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
        steps[variant] = fd_world_critical_time_step(world);
        fd_world_free(world);
    }
    /* The estimate (docs/models/critical-step.md) sums every spring on its
     * mobility; mindlin's counts as k_t a at the reference overlap, so the
     * two laws give the same step, to round-off. And the slide spring is
     * the stiffest here: the step is below the Hertz spring's alone. */
    cr_assert_float_eq(steps[0], steps[1], 1e-12 * steps[1], "%.17g vs %.17g", steps[0], steps[1]);
    double mass = 2500.0 * 4.0 / 3.0 * FD_PI * 1e-6, k = 1e10 * 0.1 * 0.01;
    cr_assert_lt(steps[0], 2.0 * sqrt(mass / k), "%.17g", steps[0]);
}

/* ---------------------------------------------------------------- kernels */

/* Deterministic pseudo-random numbers in [0, 1) (a 64-bit LCG). */
static double uniform(uint64_t* state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * 0x1.0p-53;
}

Test(mindlin, the_sphere_kernel_gives_the_registry_kernel_s_bits)
{
    /* The penalty stepper evaluates sphere contacts with its own kernel
     * (sphere_kernel.h) and everything else through the registry
     * (fd_normal_evaluate, fd_friction_evaluate); both inline
     * fd_mindlin_step and compute c_n and a alike, so for the same contact
     * and history they must agree to the last bit: force, history (spring,
     * mode, radius) and books, for each variant, with hertz and hooke, over
     * random states that stick, slip, load and unload. */
    const char* models[] = {"mindlin", "mindlin_rescale", "mindlin_force", "mindlin_rescale_force"};
    const char* normals[] = {"hertz", "hooke"};
    fd_material glass = {"glass", 2500.0, 1e9, 0.3};
    uint64_t seed = 12345;
    int slipped = 0, stuck = 0;
    for (int nm = 0; nm < 2; ++nm) {
        for (int md = 0; md < 4; ++md) {
            fd_param params[3] = {{"x_gamma_t", 0.5}, {"mu_s", 0.4}, {"mu_k", 0.3}};
            fd_contact_law law;
            cr_assert_eq(resolve(normals[nm], models[md], params, 3, &glass, &glass, &law), FD_OK, "%s",
                         fd_last_error());
            for (int trial = 0; trial < 200; ++trial) {
                double r_eff = 0.004 + 0.004 * uniform(&seed), mass = 0.01 + 0.01 * uniform(&seed);
                double overlap = 1e-5 + 1e-4 * uniform(&seed);
                fd_vec3 n = fd_v3_normalize(fd_v3(uniform(&seed) - 0.5, uniform(&seed) - 0.5, 1.0));
                fd_vec3 relative = fd_v3(uniform(&seed) - 0.5, uniform(&seed) - 0.5, uniform(&seed) - 0.5);
                /* (sized for the kernel's roll branch, which this law never takes) */
                double history[8] = {0};
                bool force_history = md >= 2;
                double scale = force_history ? 10.0 : 2e-5;
                for (int c = 0; c < 3; ++c) {
                    history[FD_MINDLIN_H_SPRING + c] = scale * (uniform(&seed) - 0.5);
                }
                history[FD_MINDLIN_H_MODE] = uniform(&seed) < 0.5 ? 0.0 : 1.0;
                history[FD_MINDLIN_H_RADIUS] = sqrt(r_eff * overlap) * (0.8 + 0.4 * uniform(&seed));
                double registry_history[8], kernel_history[8];
                memcpy(registry_history, history, sizeof history);
                memcpy(kernel_history, history, sizeof history);
                /* registry */
                fd_contact_geometry geometry;
                memset(&geometry, 0, sizeof geometry);
                geometry.normal = n;
                geometry.penetration = overlap;
                geometry.effective_radius = r_eff;
                fd_energy_books books[FD_MECHANISM_COUNT];
                memset(books, 0, sizeof books);
                unsigned flags = 0;
                fd_contact_input input = {
                    .geometry = &geometry,
                    .effective_mass = mass,
                    .penetration_rate = -fd_v3_dot(relative, n),
                    .relative_velocity = relative,
                    .time_step = 1e-6,
                    .spring_time_step = 1e-6,
                    .history = registry_history,
                    .energy = books,
                    .slip_flags = &flags,
                };
                fd_normal_result normal;
                fd_contact_loads loads = test_registry_loads(&law, &input, registry_history, &normal);
                /* sphere kernel, with the pair constants of neighbor.c */
                const double* derived = law.derived[FD_MECHANISM_NORMAL];
                double constants[3] = {0.0, r_eff, 0.0};
                if (nm == 0) {
                    constants[2] = 4.0 / 3.0 * derived[FD_NORMAL_DERIVED_MODULUS] * sqrt(r_eff);
                    constants[0] = derived[FD_NORMAL_DERIVED_GAMMA] * sqrt(mass * constants[2]);
                } else {
                    constants[0] = derived[FD_NORMAL_DERIVED_GAMMA] * sqrt(mass * 1e5);
                }
                fd_energy_books kernel_books[FD_MECHANISM_COUNT];
                memset(kernel_books, 0, sizeof kernel_books);
                fd_sphere_loads sphere =
                    fd_sphere_kernel(&law, constants, 1e-6, 1e-6, n, overlap, relative, fd_v3(0, 0, 0), fd_v3(0, 0, 0),
                                     0u, kernel_history, kernel_books);
                cr_assert_eq(sphere.normal_force, normal.force, "%s %s trial %d", normals[nm], models[md], trial);
                cr_assert(memcmp(&sphere.slide_force, &loads.slide_force, sizeof loads.slide_force) == 0,
                          "%s %s trial %d: force (%.17g %.17g %.17g) vs (%.17g %.17g %.17g)", normals[nm],
                          models[md], trial, sphere.slide_force.x, sphere.slide_force.y, sphere.slide_force.z,
                          loads.slide_force.x, loads.slide_force.y, loads.slide_force.z);
                cr_assert(memcmp(kernel_history, registry_history, sizeof history) == 0, "%s %s trial %d: history",
                          normals[nm], models[md], trial);
                cr_assert(memcmp(&kernel_books[FD_MECHANISM_SLIDE], &books[FD_MECHANISM_SLIDE],
                                 sizeof(fd_energy_books)) == 0,
                          "%s %s trial %d: books", normals[nm], models[md], trial);
                cr_assert_eq((sphere.slip & FD_ENTRY_SLIP_SLIDE) != 0, (flags & (1u << FD_MECHANISM_SLIDE)) != 0);
                slipped += registry_history[FD_MINDLIN_H_MODE] != 0.0;
                stuck += registry_history[FD_MINDLIN_H_MODE] == 0.0;
            }
        }
    }
    cr_assert(slipped > 100 && stuck > 100, "both outcomes exercised: %d slipped, %d stuck", slipped, stuck);
}
