/* LAMMPS `pair_style granular` settings in fricdem (docs/lammps.md): the
 * hooke normal model's LAMMPS dashpots (`damping velocity`, `damping
 * mass_velocity`) and `limit_damping`, and the translated deck
 * scenes/lammps/rolling_ball.yaml against its closed form. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/laws.h"
#include "support/support.h"

/* hooke k_n = 1e4 N/m with one extra parameter (name, value), and a second
 * one when name2 is not NULL. */
static fd_contact_law_def hooke(const char* name, double value, const char* name2, double value2)
{
    fd_contact_law_def def = fd_default_contact_law_def();
    fd_submodel_def* normal = test_set_model(&def, FD_MECHANISM_NORMAL, "hooke");
    test_add_param(normal, "k_n", 1e4);
    if (name != NULL) {
        test_add_param(normal, name, value);
    }
    if (name2 != NULL) {
        test_add_param(normal, name2, value2);
    }
    return def;
}

static fd_world* make_world(double time_step, const fd_contact_law_def* law, fd_material_id* material)
{
    fd_world_def def = test_weightless_world_def(time_step);
    fd_world* world = fd_world_create(&def);
    *material = test_add_material(world, "m");
    if (law != NULL) {
        test_set_law(world, *material, law);
    }
    return world;
}

static void add_ball(fd_world* world, fd_material_id material, const char* name, double mass, fd_vec3 position,
                     fd_vec3 velocity)
{
    fd_body_def body = fd_default_body_def();
    body.name = name;
    body.material = material;
    body.shape.radius = 0.1;
    body.mass = mass;
    body.position = position;
    body.velocity = velocity;
    test_create_body(world, &body);
}

/* Normal force of two balls (masses 1 and 3 kg: m_eff = 0.75 kg) overlapping
 * by 1e-3 m and closing (rate > 0) or opening (rate < 0) at |rate| m/s. */
static double pair_normal_force(const fd_contact_law_def* law, double rate)
{
    fd_material_id m;
    fd_world* world = make_world(1e-5, law, &m);
    add_ball(world, m, "a", 1.0, fd_v3(0, 0, 0), fd_v3(0, 0, 0.5 * rate));
    add_ball(world, m, "b", 3.0, fd_v3(0, 0, 0.199), fd_v3(0, 0, -0.5 * rate));
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
    double force = view.loads.normal_force;
    fd_world_free(world);
    return force;
}

Test(lammps, hooke_eta_n_is_damping_velocity_and_eta_n_mass_is_damping_mass_velocity)
{
    /* LAMMPS: F_n = k_n delta - eta_n v_n (velocity) or - eta_n m_eff v_n
     * (mass_velocity), v_n = (v_i - v_j) . n = -d(delta)/dt. Here k_n delta =
     * 10 N, d(delta)/dt = 1 m/s: eta_n = 3 N s/m gives 13 N; eta_n_mass = 4 1/s
     * gives 4 x 0.75 = 3 N s/m, 13 N. Exact up to the round-off of delta. */
    fd_contact_law_def velocity = hooke("eta_n", 3.0, NULL, 0.0);
    cr_assert_float_eq(pair_normal_force(&velocity, 1.0), 13.0, 1e-11);
    fd_contact_law_def mass_velocity = hooke("eta_n_mass", 4.0, NULL, 0.0);
    cr_assert_float_eq(pair_normal_force(&mass_velocity, 1.0), 13.0, 1e-11);
    /* Opening at 1 m/s with eta_n = 20 N s/m: 10 - 20 = -10 N. LAMMPS without
     * limit_damping lets it pull (limit_damping = 0); with it (the default
     * here, 1) the force is clamped at 0. */
    fd_contact_law_def pulling = hooke("eta_n", 20.0, "limit_damping", 0.0);
    cr_assert_float_eq(pair_normal_force(&pulling, -1.0), -10.0, 1e-11);
    fd_contact_law_def clamped = hooke("eta_n", 20.0, "limit_damping", 1.0);
    cr_assert_eq(pair_normal_force(&clamped, -1.0), 0.0);
}

/* Restitution of a 1 kg ball hitting the plane at 1 m/s (no gravity, dt =
 * 1e-5 s: omega dt = 1e-3). */
static double bounce(const fd_contact_law_def* law)
{
    fd_material_id m;
    fd_world* world = make_world(1e-5, law, &m);
    add_ball(world, m, "ball", 1.0, fd_v3(0, 0, 0.1 + 1e-5), fd_v3(0, 0, -1.0));
    test_add_ground(world, m);
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    fd_body_id ball = fd_world_find_body(world, "ball");
    test_step_through_impact(world, 20000);
    double restitution = fd_body_get_state(world, ball).velocity.z;
    fd_world_free(world);
    return restitution;
}

Test(lammps, an_unclamped_lammps_dashpot_has_the_textbook_restitution)
{
    /* k_n = 1e4 N/m, m = 1 kg (omega = 100 rad/s), c = 2 zeta sqrt(m k_n) = 40
     * N s/m (zeta = 0.2). Without the clamp (LAMMPS's default) the contact
     * ends at zero overlap and e = exp(-zeta pi / sqrt(1 - zeta^2)) = 0.5266
     * exactly; symplectic Euler at omega dt = 1e-3 is within ~zeta omega dt
     * of it (tolerance 1e-3). eta_n_mass = 40 1/s is the same dashpot against
     * a static plane (m_eff = m): the same bounce to the bit. With
     * limit_damping = 1 the ball leaves earlier, where spring and dashpot
     * cancel, with a visibly higher restitution (the reason fricdem's own
     * restitution parameter is calibrated with the clamp). */
    double zeta = 0.2, expected = exp(-zeta * acos(-1.0) / sqrt(1.0 - zeta * zeta));
    fd_contact_law_def velocity = hooke("eta_n", 40.0, "limit_damping", 0.0);
    double e = bounce(&velocity);
    cr_assert_float_eq(e, expected, 1e-3, "e = %.6f, textbook %.6f", e, expected);
    fd_contact_law_def mass_velocity = hooke("eta_n_mass", 40.0, "limit_damping", 0.0);
    cr_assert_eq(bounce(&mass_velocity), e);
    fd_contact_law_def clamped = hooke("eta_n", 40.0, NULL, 0.0);
    double e_clamped = bounce(&clamped);
    cr_assert(e_clamped > expected + 0.01, "clamped e = %.6f", e_clamped);
}

static void expect_refused(const fd_contact_law_def* law, const char* text)
{
    fd_material_id m;
    fd_world* world = make_world(1e-5, NULL, &m);
    cr_assert_neq(fd_world_set_contact_law(world, m, m, law), FD_OK);
    cr_assert(strstr(fd_last_error(), text) != NULL, "message: %s", fd_last_error());
    fd_world_free(world);
}

Test(lammps, hooke_takes_one_dashpot_and_limit_damping_zero_only_with_a_lammps_dashpot)
{
    fd_contact_law_def two = hooke("restitution", 0.5, "eta_n", 1.0);
    expect_refused(&two, "normal model 'hooke' takes one dashpot");
    two = hooke("eta_n", 1.0, "eta_n_mass", 1.0);
    expect_refused(&two, "normal model 'hooke' takes one dashpot");
    two = hooke("eta_n_visco", 1.0, "eta_n_mass", 1.0);
    expect_refused(&two, "eta_n_visco (damping viscoelastic)");
    fd_contact_law_def half = hooke("limit_damping", 0.5, NULL, 0.0);
    expect_refused(&half, "limit_damping is 1 (N >= 0) or 0");
    fd_contact_law_def calibrated = hooke("restitution", 0.5, "limit_damping", 0.0);
    expect_refused(&calibrated, "the restitution calibration assumes the clamp");
}

Test(lammps, hertz_takes_one_dashpot)
{
    /* Tsuji's (from the restitution) or one of LAMMPS's: two are ambiguous;
     * and the restitution's calibration assumes the clamp. */
    const char* names[][2] = {{"restitution", "eta_n"}, {"eta_n_mass", "eta_n_visco"},
                              {"restitution", "limit_damping"}};
    const char* messages[] = {"normal model 'hertz' takes one dashpot", "normal model 'hertz' takes one dashpot",
                              "the restitution calibration assumes the clamp"};
    for (int k = 0; k < 3; ++k) {
        fd_world_def def = fd_default_world_def();
        fd_world* world = fd_world_create(&def);
        fd_material_def m = fd_default_material_def();
        m.name = "m";
        m.youngs_modulus = 1e9;
        fd_material_id material = fd_world_create_material(world, &m);
        fd_contact_law_def law = test_normal_law("hertz", names[k][0], 0.5);
        test_add_param(&law.submodel[FD_MECHANISM_NORMAL], names[k][1], k == 2 ? 0.0 : 1.0);
        cr_assert_neq(fd_world_set_contact_law(world, material, material, &law), FD_OK, "case %d", k);
        cr_assert(strstr(fd_last_error(), messages[k]) != NULL, "case %d: %s", k, fd_last_error());
        fd_world_free(world);
    }
}

Test(lammps, the_translated_rolling_ball_deck_slows_at_five_sevenths_mu_roll_g)
{
    /* scenes/lammps/rolling_ball.yaml: rolling sds capped at M = mu_roll N R
     * (R_eff = R against the floor), N = m g, the slide spring sticking (it
     * carries m a = 7e-3 N < mu N = 0.05 N). The slide force acts at the
     * contact point, r = R - delta/2 from the centre (delta = m g / k_n), which
     * rolls without slip, v = omega r: m a = F, I omega' = -F r - M give
     * a = mu_roll g R r / (2/5 R^2 + r^2) = 5/7 mu_roll g (1 + 0.43 delta/2R),
     * 2.2e-4 above 5/7 mu_roll g = 0.70071 m/s^2. Measured between t = 0.1 s
     * and 0.4 s, after the slide spring's transient (~1 ms); N stays at m g
     * (the ball starts at its equilibrium overlap): tolerance 1e-6 relative.
     * The rolling spring slips all along; twisting marshall is idle. */
    fd_scene scene;
    cr_assert_eq(fd_scene_load(FRICDEM_SOURCE_DIR "/scenes/lammps/rolling_ball.yaml", NULL, 0, &scene), FD_OK, "%s",
                 fd_last_error());
    fd_world* world = scene.world;
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    fd_body_id ball = fd_world_find_body(world, "ball");
    double v1 = test_run_from_mark(world, ball, 10000, 40000).velocity.x;
    fd_body_state state = fd_body_get_state(world, ball);
    double radius = 0.01, mass = 2500.0 * 4.0 / 3.0 * acos(-1.0) * radius * radius * radius;
    double arm = radius - 0.5 * mass * 9.81 / 1e4;
    double a = (v1 - state.velocity.x) / 0.3;
    double expected = 0.1 * 9.81 * radius * arm / (0.4 * radius * radius + arm * arm);
    cr_assert_float_eq(a, expected, 1e-6 * expected, "a = %.8f, closed form %.8f (5/7 mu_roll g = %.8f)", a, expected,
                       5.0 / 7.0 * 0.981);
    cr_assert_float_eq(state.velocity.x, state.angular_velocity.y * arm, 1e-7, "rolling without slip");
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
    cr_assert_eq(test_column_value(world, &view, "roll_slipping"), 1.0);
    cr_assert_eq(test_column_value(world, &view, "slipping"), 0.0);
    cr_assert_eq(view.loads.spin_torque_i.z, 0.0);
    fd_scene_free(&scene);
}
