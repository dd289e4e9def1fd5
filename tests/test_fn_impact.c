/* Fang & Negrut slide friction in an oblique impact of a sphere on a plane
 * (issue 10): the friction force never exceeds mu_s N, and in gross slip the
 * impact changes the tangential velocity and the spin by the Coulomb values
 * of rigid-body impact theory (Maw, Barber & Fawcett 1976; Chung & Ooi 2011,
 * test 4): dv_t = mu (1 + e) v_n and d(omega) = 5 mu (1 + e) v_n / (2 R) for a
 * solid sphere, e the measured normal restitution. */
#include <criterion/criterion.h>
#include <math.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "support/laws.h"
#include "support/support.h"

#define PI 3.14159265358979323846
#define RADIUS 0.05
#define MU 0.3
#define DT 1e-5

typedef struct impact {
    double v_n, v_t_out, e, omega_out; /* incident normal speed; rebound tangential speed, restitution, spin */
    double worst_ratio;                /* largest |F_slide| / (mu_s N) over the contact's steps */
} impact;

/* A sphere (R = 5 cm, 2500 kg/m^3) hits the plane z = 0 at 1 m/s and `angle`
 * degrees from the normal, without spin or gravity; hooke normal (k_n = 1e5
 * N/m, e = 0.7: ~1100 steps in contact), Fang & Negrut slide mu_s = mu_k =
 * 0.3, K_E = 5e4 N/m, K_D derived; `cap_total` 1 (default) or 0 (the paper's). */
static impact run_impact(double angle, double cap_total)
{
    fd_world_def def = test_weightless_world_def(DT);
    fd_world* world = fd_world_create(&def);
    fd_material_id m = test_add_solid_material(world, "glass", 2500.0, 0.0);
    fd_contact_law_def law = test_normal_law("hooke", "k_n", 1e5);
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", 0.7);
    law.submodel[FD_MECHANISM_SLIDE].model = "fang_negrut";
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "mu_s", MU);
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "mu_k", MU);
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "K_E", 5e4);
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "cap_total", cap_total);
    test_set_law(world, m, &law);
    test_add_ground(world, m);
    fd_body_def ball = fd_default_body_def();
    ball.shape.radius = RADIUS;
    ball.material = m;
    double theta = angle * PI / 180.0;
    ball.position = fd_v3(0, 0, RADIUS + 1e-7);
    ball.velocity = fd_v3(sin(theta), 0, -cos(theta));
    fd_body_id id = test_create_body(world, &ball);
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    impact out = {cos(theta), 0, 0, 0, 0};
    bool touched = false;
    for (int n = 0; n < 5000; ++n) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        int contacts = fd_world_contact_count(world);
        if (contacts == 0 && touched) {
            break;
        }
        if (contacts == 1) {
            touched = true;
            fd_contact_view view;
            fd_world_get_contact(world, 0, &view);
            double limit = MU * view.loads.normal_force;
            double slide = fd_v3_length(view.loads.slide_force);
            if (slide > 0.0) {
                out.worst_ratio = fmax(out.worst_ratio, limit > 0.0 ? slide / limit : INFINITY);
            }
        }
    }
    cr_assert(touched && fd_world_contact_count(world) == 0, "the impact did not end");
    fd_body_state state = fd_body_get_state(world, id);
    out.v_t_out = state.velocity.x;
    out.e = state.velocity.z / out.v_n;
    out.omega_out = state.angular_velocity.y;
    fd_world_free(world);
    return out;
}

Test(fn_impact, friction_stays_within_mu_n_and_gross_slip_gives_the_coulomb_impulse)
{
    /* Rigid-body theory: gross slip through the whole impact when tan(theta) >= 7/2 mu (1 + e) (46.2 deg
     * for e = 0.7); then the rebound has v_t = v_t_in - mu (1 + e) v_n and omega = 5 mu (1 + e) v_n / (2 R)
     * exactly, since the friction force is mu N at every step. Here from 55 to 85 degrees. Tolerance 1% of
     * the Coulomb change: the first step of the contact carries no friction (Sec. 3: no history at onset),
     * N is ~1e-3 of its peak there. The 1e-9 relative
     * bound on |F| / (mu N) is the round-off of the cap's quadratic. */
    for (double angle = 55.0; angle <= 85.0; angle += 10.0) {
        impact r = run_impact(angle, 1.0);
        cr_assert_leq(r.worst_ratio, 1.0 + 1e-9, "%g deg: |F_slide| reached %.6g mu N", angle, r.worst_ratio);
        double coulomb = MU * (1.0 + r.e) * r.v_n;
        double v_t_in = sin(angle * PI / 180.0);
        cr_assert_float_eq(v_t_in - r.v_t_out, coulomb, 0.01 * coulomb, "%g deg: dv_t %.6g, mu (1 + e) v_n %.6g",
                           angle, v_t_in - r.v_t_out, coulomb);
        /* The force acts at the midpoint of the overlap, the arm R - delta/2: the spin is short of the
         * rigid sphere's by up to delta_max / 2R, delta_max <= v_n sqrt(m / k_n) (undamped). */
        double spin = 2.5 * coulomb / RADIUS;
        double mass = 2500.0 * 4.0 / 3.0 * PI * pow(RADIUS, 3.0);
        double arm_share = r.v_n * sqrt(mass / 1e5) / (2.0 * RADIUS);
        cr_assert_float_eq(r.omega_out, spin, (0.01 + arm_share) * spin,
                           "%g deg: omega %.6g, 5 mu (1 + e) v_n / 2R %.6g", angle, r.omega_out, spin);
    }
}

Test(fn_impact, the_papers_uncapped_damper_exceeds_mu_n)
{
    /* The paper's form (cap_total = 0) adds K_D dS/dt on top of the capped spring: at onset dS/dt is the
     * full sliding speed, so the force is many times mu N and the tangential change exceeds the Coulomb
     * bound (issue 10 measured 1.8 to 3 times). This pins what cap_total = 0 reproduces. */
    impact r = run_impact(65.0, 0.0);
    double coulomb = MU * (1.0 + r.e) * r.v_n;
    cr_assert_gt(r.worst_ratio, 2.0, "|F_slide| / mu N peaked at %g", r.worst_ratio);
    cr_assert_gt(sin(65.0 * PI / 180.0) - r.v_t_out, 1.2 * coulomb, "dv_t %g vs %g", sin(65.0 * PI / 180.0) - r.v_t_out,
                 coulomb);
}
