/* The Fang & Negrut friction model (paper 003) against closed forms. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "support/laws.h"
#include "support/support.h"

#define G 9.8 /* the paper's g: mu_k m g = 9.8 N in Sec. 4.2, 0.525 m/s^2 in Sec. 4.1 */

typedef struct setup {
    fd_world* world;
    fd_body_id body;
    double mass;
} setup;

/* A body on a horizontal plane (plane created first: it is body i, n = -z)
 * under gravity tilted by alpha about y, as on an incline along +x down-slope. */
static setup make_setup(double alpha, fd_contact_law_def law, fd_body_def body, double dt)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = dt;
    def.contact_margin = 1e-9; /* the prescribed normal force acts at zero overlap */
    def.gravity = fd_v3(G * sin(alpha), 0.0, -G * cos(alpha));
    fd_world* world = fd_world_create(&def);
    fd_material_id m = test_add_material(world, "m");
    test_set_law(world, m, &law);
    test_add_ground(world, m);
    body.material = m;
    fd_body_id id = test_create_body(world, &body);
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    return (setup){world, id, fd_body_get_info(world, id).mass};
}

static fd_contact_law_def brick_law(double alpha, double k_d)
{
    fd_contact_law_def law = test_prescribed_law(1.0 * G * cos(alpha)); /* N = m g cos(alpha) */
    law.submodel[FD_MECHANISM_SLIDE].model = "fang_negrut";
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "mu_s", 0.25); /* Table 2 */
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "mu_k", 0.2);
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "K_E", 1e5);
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "K_D", k_d);
    return law;
}

/* The brick of Sec. 4.1: a 1 kg body that only slides (rotation locked,
 * normal and lateral translation locked). */
static fd_body_def brick(void)
{
    fd_body_def def = fd_default_body_def();
    def.name = "brick";
    def.shape.radius = 0.1;
    def.mass = 1.0;
    def.position = fd_v3(0, 0, 0.1);
    def.lock_translation = FD_LOCK_Y | FD_LOCK_Z;
    def.lock_rotation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    return def;
}

static fd_contact_view only_contact(fd_world* world)
{
    cr_assert_eq(fd_world_contact_count(world), 1);
    fd_contact_view view;
    fd_world_get_contact(world, 0, &view);
    return view;
}

Test(fang_negrut, brick_sticks_below_the_static_angle_with_elastic_force_m_g_sin_alpha)
{
    /* Sec. 4.1, alpha = 0.18 < atan(mu_s), K_D = 2 sqrt(m K_E) = 632: the brick
     * creeps micrometres and stops, the elastic force balancing m g sin(alpha)
     * = 1.75 N. The damped spring settles at rate K_D / (2 m) = 316/s, so after
     * 1 s the residual is ~e^-300: 1e-9 N is round-off. */
    const double alpha = 0.18;
    setup s = make_setup(alpha, brick_law(alpha, 632.0), brick(), 1e-4);
    for (int step = 0; step < 10000; ++step) {
        cr_assert_eq(fd_world_step(s.world), FD_OK, "%s", fd_last_error());
    }
    fd_contact_view view = only_contact(s.world);
    double tangential = view.loads.slide_force.x; /* on body i = ground: up the slope is -x ... */
    cr_assert_float_eq(fabs(tangential), 1.0 * G * sin(alpha), 1e-9, "E_f = %.12g", tangential);
    /* The friction on the brick (body j) points up-slope (-x). */
    cr_assert(tangential > 0.0, "force on the ground must point down-slope (+x), got %g", tangential);
    int slide_mode = test_column(s.world, "slide_mode");
    cr_assert_eq(view.columns[slide_mode], 0.0, "must stay in stick mode");
    /* Micro-slip only: |S| = m g sin(alpha) / K_E = 17.5 um, below S_s = mu_s N / K_E = 24.1 um. */
    double x = fd_body_get_state(s.world, s.body).position.x;
    cr_assert_float_eq(x, G * sin(alpha) / 1e5, 1e-9, "x = %g", x);
    cr_assert_float_eq(fd_body_get_state(s.world, s.body).velocity.x, 0.0, 1e-12);
    fd_world_free(s.world);
}

Test(fang_negrut, brick_slips_above_the_static_angle_with_kinetic_force)
{
    /* Sec. 4.1, alpha = 0.25 > atan(mu_s) = 0.245: kinetic slip with
     * E_f = mu_k m g cos(alpha) = 1.899 N and a = g (sin alpha - mu_k cos alpha)
     * = 0.525 m/s^2 (the paper's numbers with g = 9.8). In slip the elastic
     * part is capped at mu_k N every step, and the damping part K_D dS/dt
     * vanishes once S sits on its cap (dS is then only the cap's rescaling... the
     * increments along S are removed). We check the acceleration between 1 s
     * and 2 s, when the start-up transient (time scale m / K_D ~ 2 ms) is gone. */
    const double alpha = 0.25;
    setup s = make_setup(alpha, brick_law(alpha, 632.0), brick(), 1e-4);
    double v1 = test_run_from_mark(s.world, s.body, 10000, 20000).velocity.x;
    double v2 = fd_body_get_state(s.world, s.body).velocity.x;
    fd_contact_view view = only_contact(s.world);
    double elastic = test_column_value(s.world, &view, "slide_elastic_x");
    cr_assert_float_eq(fabs(elastic), 0.2 * G * cos(alpha), 1e-9, "E_f = %.12g", elastic);
    cr_assert_float_eq(fabs(elastic), 1.899, 5e-4, "paper: 1.899 N");
    double acceleration = v2 - v1; /* over 1 s */
    cr_assert_float_eq(acceleration, G * (sin(alpha) - 0.2 * cos(alpha)), 1e-6, "a = %.9g", acceleration);
    cr_assert_float_eq(acceleration, 0.525, 5e-4, "paper: 0.525 m/s^2");
    fd_world_free(s.world);
}

/* A sphere (body j) on the plane, for roll and spin. */
static fd_body_def ball(fd_vec3 velocity, fd_vec3 angular_velocity)
{
    fd_body_def def = fd_default_body_def();
    def.name = "ball";
    def.shape.radius = 0.2;
    def.mass = 5.0;
    def.position = fd_v3(0, 0, 0.2);
    def.velocity = velocity;
    def.angular_velocity = angular_velocity;
    def.lock_translation = FD_LOCK_Z;
    return def;
}

static fd_contact_law_def rolling_law(const char* roll_model, double eta_or_mu)
{
    fd_contact_law_def law = brick_law(0.0, -1.0);
    law.submodel[FD_MECHANISM_NORMAL].params[0].value = 5.0 * G;
    law.submodel[FD_MECHANISM_ROLL].model = roll_model;
    test_add_param(&law.submodel[FD_MECHANISM_ROLL], strcmp(roll_model, "fang_negrut") == 0 ? "eta_r" : "mu_r",
                   eta_or_mu);
    return law;
}

Test(fang_negrut, roll_torque_opposes_rolling_and_decelerates_at_the_kinetic_rate)
{
    /* Ball rolling without slip along +x: v = 1 m/s, omega_y = v / R. In
     * kinetic roll the elastic torque is K_R Theta^d = K_R mu_k N kappa / (2 K_E)
     * with kappa = 1/R on a plane and K_R = 4 eta_r K_E R^2 (Table 1, plane):
     * T = 2 eta_r mu_k N R. Rolling without slip with I = 2/5 m R^2 then
     * decelerates at a = T R / (I + m R^2) ... with the friction force
     * keeping x' = R omega: m a = -F, I alpha = F R - T, so
     * a = -T / (R (m + I / R^2)). */
    const double eta_r = 0.3, R = 0.2, m = 5.0;
    setup s = make_setup(0.0, rolling_law("fang_negrut", eta_r), ball(fd_v3(1.0, 0, 0), fd_v3(0, 1.0 / R, 0)), 1e-4);
    double v1 = 0.0;
    for (int step = 1; step <= 3000; ++step) {
        cr_assert_eq(fd_world_step(s.world), FD_OK, "%s", fd_last_error());
        if (step == 1000) {
            v1 = fd_body_get_state(s.world, s.body).velocity.x;
        }
        fd_contact_view view = only_contact(s.world);
        fd_body_state state = fd_body_get_state(s.world, s.body);
        if (step > 10) {
            /* The torque on the ball (body j) must oppose its spin. */
            cr_assert(fd_v3_dot(view.loads.roll_torque_j, state.angular_velocity) < 0.0,
                      "roll torque must oppose rolling (step %d)", step);
        }
    }
    double v2 = fd_body_get_state(s.world, s.body).velocity.x;
    double torque = 2.0 * eta_r * 0.2 * m * G * R;
    double inertia = 0.4 * m * R * R;
    double expected = -torque / (R * (m + inertia / (R * R)));
    /* Over 0.2 s the decrease is ~0.24 m/s; the slide spring's micro-motion
     * adds noise of order K_D-damped transients, ~1e-4 relative. */
    cr_assert_float_eq((v2 - v1) / 0.2, expected, 1e-3 * fabs(expected), "a = %g, expected %g", (v2 - v1) / 0.2,
                       expected);
    fd_world_free(s.world);
}

Test(fang_negrut, spin_stops_at_the_kinetic_spin_torque_rate)
{
    /* Sec. 4.4 empirical case: eta_psi = 0.006, K = 5. In kinetic spin the
     * elastic torque is K_psi K S_k = eta_psi K_E / K^2 * K mu_k N / K_E
     * = eta_psi mu_k N / K, and omega_z falls linearly at that torque over
     * I = 2/5 m R^2 until the stick switch. */
    fd_contact_law_def law = rolling_law("fang_negrut", 0.3);
    law.submodel[FD_MECHANISM_SPIN].model = "fang_negrut";
    test_add_param(&law.submodel[FD_MECHANISM_SPIN], "eta_psi", 0.006);
    test_add_param(&law.submodel[FD_MECHANISM_SPIN], "curvature", 5.0);
    fd_body_def def = ball(fd_v3(0, 0, 0), fd_v3(0, 0, 1.0));
    def.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    setup s = make_setup(0.0, law, def, 1e-4);
    double w1 = test_run_from_mark(s.world, s.body, 1000, 5000).angular_velocity.z;
    double w2 = fd_body_get_state(s.world, s.body).angular_velocity.z;
    double torque = 0.006 * 0.2 * 5.0 * G / 5.0;
    double inertia = 0.4 * 5.0 * 0.04;
    cr_assert_float_eq((w2 - w1) / 0.4, -torque / inertia, 1e-3 * torque / inertia, "alpha = %g, expected %g",
                       (w2 - w1) / 0.4, -torque / inertia);
    fd_world_free(s.world);
}

Test(fang_negrut, legacy_torque_is_mu_r_r_n_against_the_relative_spin)
{
    setup s = make_setup(0.0, rolling_law("legacy_constant_torque", 0.1), ball(fd_v3(1.0, 0, 0), fd_v3(0, 5.0, 0)),
                         1e-4);
    cr_assert_eq(fd_world_step(s.world), FD_OK);
    fd_contact_view view = only_contact(s.world);
    /* On the ball (body j): -(omega_j - omega_i)/|.| mu_r R N = -y 0.1 0.2 49. */
    cr_assert_float_eq(view.loads.roll_torque_j.y, -0.1 * 0.2 * 5.0 * G, 1e-12);
    cr_assert_float_eq(view.loads.roll_torque_i.y, 0.1 * 0.2 * 5.0 * G, 1e-12);
    fd_world_free(s.world);
}

Test(fang_negrut, parameters_are_checked)
{
    fd_contact_law_def law = brick_law(0.0, -1.0);
    law.submodel[FD_MECHANISM_SLIDE].params[0].value = 0.1; /* mu_s < mu_k */
    cr_assert_eq(test_law_status(&law), FD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(fd_last_error(), "mu_s >= mu_k > 0"), "%s", fd_last_error());
    law = brick_law(0.0, -1.0);
    law.submodel[FD_MECHANISM_SLIDE].model = "none";
    law.submodel[FD_MECHANISM_SLIDE].param_count = 0;
    law.submodel[FD_MECHANISM_ROLL].model = "fang_negrut";
    test_add_param(&law.submodel[FD_MECHANISM_ROLL], "eta_r", 0.3);
    cr_assert_eq(test_law_status(&law), FD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(fd_last_error(), "needs slide model 'fang_negrut'"), "%s", fd_last_error());
}

/* The per-step angles of the tracking (arcs, the spin angle psi) come from
 * fd_small_atan2: its series to t^13 for |y / x| <= 1/16, the library's atan2
 * beyond. Its truncation error is below 2^-59 of the result, the division
 * and the polynomial round to within 1.5 ulp, and the library's atan2 is
 * within 1 ulp of the true value: 3 ulp between the two bounds both. */
Test(fang_negrut, small_angle_atan2_is_the_library_s_to_round_off)
{
    double worst = 0.0;
    for (int e = -40; e <= 0; ++e) {
        for (int k = 0; k < 64; ++k) {
            double t = ldexp(1.0 + k / 64.0, e) * 0.0625; /* |t| from 2^-44 to 1/8: both sides of 1/16 */
            for (int sign = -1; sign <= 1; sign += 2) {
                for (int s = 0; s < 3; ++s) {
                    double x = (s == 0 ? 1.0 : s == 1 ? 3.7e-6 : 2.9e4) * (1.0 + k / 1000.0);
                    double y = sign * t * x;
                    double fast = fd_small_atan2(y, x), library = atan2(y, x);
                    double ulps = fabs(fast - library) / (DBL_EPSILON * fabs(library));
                    worst = ulps > worst ? ulps : worst;
                    cr_expect_leq(ulps, 3.0, "atan2(%.17g, %.17g): %.17g against %.17g", y, x, fast, library);
                }
            }
        }
    }
    cr_expect_gt(worst, 0.0, "the series differs from the library somewhere (else this test checks nothing)");
    /* Beyond the series' range: the library's, bit for bit. */
    cr_expect_eq(fd_small_atan2(1.0, 2.0), atan2(1.0, 2.0));
    cr_expect_eq(fd_small_atan2(0.1, -1.0), atan2(0.1, -1.0));
    cr_expect(isnan(fd_small_atan2(NAN, 1.0)));
}
