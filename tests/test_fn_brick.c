/* Fang & Negrut Sec. 4.1, the brick on an incline, through its scene files
 * (scenes/fang_negrut/brick*.yaml) against the closed forms of
 * docs/validation/brick.md (equation numbers cited below are that page's).
 * m = 1 kg, mu_s = 0.25, mu_k = 0.2, K_E = 1e5 N/m, K_D = 632 N s/m (Table 2),
 * N = m g cos(alpha) prescribed, g = 9.8 m/s^2, dt = 1e-4 s. The ground is
 * body i (n = -z), down-slope is +x; contacts report the force on the
 * ground, so its x component is the up-slope friction on the brick. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fricdem/io.h"
#include "support/support.h"

#define SCENE(file) FRICDEM_SOURCE_DIR "/scenes/fang_negrut/" file
#define G 9.8
#define MASS 1.0
#define MU_S 0.25
#define MU_K 0.2
#define K_E 1e5
#define K_D 632.0
#define DT 1e-4
#define EPS 2.220446049250313e-16

typedef struct brick_run {
    fd_scene scene;
    fd_body_id brick;
    int elastic, damping, mode, s;
} brick_run;

static brick_run open_run(const char* path)
{
    brick_run r;
    /* The paper's form (support.h): these tests reproduce Sec. 4.1's numbers. */
    static const char* const paper_form[] = {TEST_FN_PAPER_SLIDE};
    r.brick = test_scene_open(path, NULL, 0, paper_form, 1, "brick", &r.scene);
    r.elastic = test_column(r.scene.world, "slide_elastic_x");
    r.damping = test_column(r.scene.world, "slide_damping_x");
    r.mode = test_column(r.scene.world, "slide_mode");
    r.s = test_column(r.scene.world, "S_x");
    return r;
}

/* Steps once; returns the contact's model columns. */
static const double* step(brick_run* r)
{
    cr_assert_eq(fd_world_step(r->scene.world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_contact_count(r->scene.world), 1);
    fd_contact_view view;
    fd_world_get_contact(r->scene.world, 0, &view);
    return view.columns;
}

static double velocity(const brick_run* r) { return fd_body_get_state(r->scene.world, r->brick).velocity.x; }

Test(fn_brick, damped_brick_creeps_monotonically_and_sticks_at_m_g_sin_alpha)
{
    /* alpha = 0.18 (brick.yaml). Eq. (6)-(7): the symplectic Euler recursion of the
     * creep has real characteristic roots (0.9734, 0.9624), so S rises
     * monotonically to S_eq = m g sin(alpha) / K_E = 1.754e-5 m < S_s: never a
     * slip step. After 0.2 s the transient is down by exp(-63) (Eq. 5): the final
     * E_f is m g sin(alpha) to round-off (1e-12 N covers 2000 steps of rounding
     * at 2 N), S likewise (1e-17 m), and the velocity (1e-15 m/s). */
    brick_run r = open_run(SCENE("brick.yaml"));
    const double load = MASS * G * sin(0.18), s_eq = load / K_E;
    double previous = 0.0, peak_damping = 0.0;
    const double* c = NULL;
    for (int n = 1; n <= 2000; ++n) {
        c = step(&r);
        cr_assert_eq(c[r.mode], 0.0, "step %d switched to slip", n);
        cr_assert(c[r.s] >= previous - 1e-20, "S fell at step %d: %.17g < %.17g", n, c[r.s], previous);
        cr_assert(c[r.s] <= s_eq * (1.0 + 8 * EPS), "S overshot S_eq at step %d", n);
        previous = c[r.s];
        peak_damping = fmax(peak_damping, c[r.damping]);
    }
    cr_assert_float_eq(c[r.elastic], load, 1e-12, "E_f = %.17g", c[r.elastic]);
    cr_assert_float_eq(c[r.elastic], 1.75, 0.005, "paper: 1.75 N");
    cr_assert_float_eq(c[r.s], s_eq, 1e-17);
    cr_assert_float_eq(velocity(&r), 0.0, 1e-15);
    /* Eq. (9): D_f = K_D S' peaks near K_D S_eq omega / e = 1.29 N (critical
     * damping); the first-order integrator is within O(omega dt) = 3.2%. */
    double omega = sqrt(K_E / MASS);
    cr_assert_float_eq(peak_damping, K_D * s_eq * omega / exp(1.0), 0.032 * 1.29, "peak D_f = %g", peak_damping);
    fd_scene_free(&r.scene);
}

Test(fn_brick, undamped_brick_slips_once_then_oscillates_in_stick_around_m_g_sin_alpha)
{
    /* alpha = 0.18 without the dashpot (brick_undamped.yaml). */
    brick_run r = open_run(SCENE("brick_undamped.yaml"));
    const double alpha = 0.18, normal = MASS * G * cos(alpha), load = MASS * G * sin(alpha);
    const double s_s = MU_S * normal / K_E, s_k = MU_K * normal / K_E, s_eq = load / K_E;
    const double omega = sqrt(K_E / MASS);
    /* Eq. (10)-(11): S = S_eq (1 - cos omega t) reaches S_s at t1 = 6.179 ms with
     * v1 = omega sqrt(S_s (2 S_eq - S_s)) = 5.146 mm/s. */
    const double t1 = acos(1.0 - s_s / s_eq) / omega;
    const double v1 = omega * sqrt(s_s * (2.0 * s_eq - s_s));
    /* Eq. (12)-(13): in slip the brick decelerates at a = (mu_k N - m g sin a) / m
     * = 0.1738 m/s^2 and sticks again at t1 + v1 / a, less the (mu_s - mu_k) N dt /
     * (m a) = 0.28 ms that the switch step (still at mu_s N) takes off: 35.50 ms. */
    const double decel = (MU_K * normal - load) / MASS;
    const double t_restick = t1 + v1 / decel - (MU_S - MU_K) * normal * DT / (MASS * decel);
    int first_slip = -1, restick = -1;
    double v_first = 0.0, f_min = INFINITY, f_max = -INFINITY;
    for (int n = 1; n <= 2000; ++n) {
        const double* c = step(&r);
        if (c[r.mode] == 1.0 && first_slip < 0) {
            first_slip = n;
            v_first = velocity(&r);
            cr_assert_float_eq(c[r.s], s_s, 1e-20, "the switch step caps S at S_s (Sec. 3.1)");
        } else if (c[r.mode] == 1.0) {
            cr_assert(restick < 0, "slipped again at step %d", n); /* Eq. (14): never again */
            cr_assert_float_eq(c[r.s], s_k, 1e-20, "in slip S sits on S_k");
        } else if (first_slip > 0 && restick < 0) {
            restick = n;
        }
        if (restick > 0 && n > restick) {
            f_min = fmin(f_min, c[r.elastic]);
            f_max = fmax(f_max, c[r.elastic]);
        }
    }
    cr_assert(first_slip > 0 && restick > 0);
    /* The switch is seen on the first step past t1: within one step. */
    cr_assert_float_eq(first_slip * DT, t1, DT, "switch to slip at %g s, expected %g s", first_slip * DT, t1);
    /* One step late at most, decelerating at (K_E S_s - m g sin a) / m = 0.656 m/s^2. */
    cr_assert_float_eq(v_first, v1, 2.0 * (K_E * s_s - load) / MASS * DT, "v1 = %g, expected %g", v_first, v1);
    cr_assert_float_eq(restick * DT, t_restick, 2 * DT, "stick again at %g s, expected %g s", restick * DT, t_restick);
    /* Eq. (14): then E_f spans [2 m g sin a - mu_k N, mu_k N] = [1.5806, 1.9283] N,
     * up to the O((omega dt)^2) of symplectic Euler's modified energy. */
    double amplitude = MU_K * normal - load;
    double tolerance = amplitude * (omega * DT) * (omega * DT);
    cr_assert_float_eq(f_max, MU_K * normal, tolerance, "max E_f = %.9g", f_max);
    cr_assert_float_eq(f_min, 2.0 * load - MU_K * normal, tolerance, "min E_f = %.9g", f_min);
    cr_assert_float_eq(0.5 * (f_min + f_max), 1.75, 0.005, "paper: oscillates around 1.75 N");
    fd_scene_free(&r.scene);
}

Test(fn_brick, slip_deceleration_of_the_undamped_brick_is_exact)
{
    /* Eq. (12): in slip every step has E_f = mu_k N and gravity m g sin(alpha):
     * the velocity falls by (mu_k N - m g sin a) dt / m on each slip step,
     * to round-off (1e-15 m/s per step). */
    brick_run r = open_run(SCENE("brick_undamped.yaml"));
    const double normal = MASS * G * cos(0.18), decel = (MU_K * normal - MASS * G * sin(0.18)) / MASS;
    double before = velocity(&r);
    int mode_before = 0, checked = 0;
    for (int n = 1; n <= 400; ++n) {
        const double* c = step(&r);
        double now = velocity(&r);
        /* The force of step n-1 acts in step n; both steps in slip after the capped switch step. */
        if (mode_before == 1 && c[r.mode] == 1.0 && fabs(c[r.s] - MU_K * normal / K_E) < 1e-20 && n > 1) {
            cr_assert_float_eq(before - now, decel * DT, 1e-15, "step %d: dv = %.17g", n, before - now);
            ++checked;
        }
        mode_before = c[r.mode] == 1.0 && fabs(c[r.s] - MU_K * normal / K_E) < 1e-20;
        before = now;
    }
    cr_assert(checked > 250, "only %d slip steps checked", checked); /* the slip lasts ~293 steps */
    fd_scene_free(&r.scene);
}

Test(fn_brick, brick_at_the_limiting_angle_sticks_on_the_static_cap)
{
    /* alpha = atan(mu_s) (brick_atan_mu_s.yaml), Eq. (8): S_eq = S_s exactly.
     * The monotone creep (Eq. 6-7) reaches the cap from below, the a-posteriori
     * test |S| / S_s > 1 never fires, and S ends on S_s to a few ulp: the
     * brick sticks, as the paper states (S <= S_s). */
    brick_run r = open_run(SCENE("brick_atan_mu_s.yaml"));
    const double normal = 9.507396501424253; /* the scene's N = 9.8 cos(atan 0.25) */
    const double s_s = MU_S * normal / K_E;
    const double* c = NULL;
    for (int n = 1; n <= 2000; ++n) {
        c = step(&r);
        cr_assert_eq(c[r.mode], 0.0, "slipped at step %d", n);
    }
    cr_assert_float_eq(c[r.s] / s_s, 1.0, 4 * EPS, "S / S_s = %.17g", c[r.s] / s_s);
    fd_scene_free(&r.scene);
}

Test(fn_brick, brick_at_atan_mu_k_sticks_with_the_kinetic_force)
{
    /* alpha = atan(mu_k): S settles at S_eq = S_k = 1.922e-5 m, E_f = mu_k N. */
    brick_run r = open_run(SCENE("brick_atan_mu_k.yaml"));
    const double normal = 9.609690621771017;
    const double* c = NULL;
    for (int n = 1; n <= 2000; ++n) {
        c = step(&r);
        cr_assert_eq(c[r.mode], 0.0, "slipped at step %d", n);
    }
    cr_assert_float_eq(c[r.elastic], MU_K * normal, 1e-12, "E_f = %.17g", c[r.elastic]);
    fd_scene_free(&r.scene);
}

Test(fn_brick, brick_at_0_25_slips_at_the_kinetic_force_and_acceleration)
{
    /* alpha = 0.25 (brick_slip.yaml). Eq. (15): the stick creep obeys the
     * recursion of Eq. (6) exactly, so the switch to slip comes on the first
     * step at which that recursion exceeds S_s. Eq. (16): then E_f = mu_k N =
     * 1.899 N and a = g (sin a - mu_k cos a) = 0.5255 m/s^2, constant (the
     * dashpot acts in stick only): round-off tolerances. */
    brick_run r = open_run(SCENE("brick_slip.yaml"));
    const double alpha = 0.25, normal = MASS * G * cos(alpha), load = MASS * G * sin(alpha);
    const double s_s = MU_S * normal / K_E;
    int expected_switch = -1;
    {
        double s = 0.0, v = 0.0, force = load;
        for (int n = 1; n <= 1000 && expected_switch < 0; ++n) {
            v += DT * force / MASS;
            double next = s + DT * v;
            force = load - K_E * next - K_D * (next - s) / DT;
            s = next;
            if (s > s_s) {
                expected_switch = n;
            }
        }
    }
    int switch_step = -1;
    double v_start = 0.0;
    const double* c = NULL;
    for (int n = 1; n <= 3000; ++n) {
        c = step(&r);
        if (c[r.mode] == 1.0 && switch_step < 0) {
            switch_step = n;
        }
        if (n == 1000) {
            v_start = velocity(&r);
        }
    }
    cr_assert_eq(switch_step, expected_switch, "switch at step %d, recursion %d", switch_step, expected_switch);
    double acceleration = (velocity(&r) - v_start) / (2000 * DT);
    double expected = G * (sin(alpha) - MU_K * cos(alpha));
    cr_assert_float_eq(acceleration, expected, 1e-9, "a = %.12g", acceleration);
    cr_assert_float_eq(acceleration, 0.525, 0.0005, "paper: 0.525 m/s^2");
    cr_assert_float_eq(c[r.elastic], MU_K * normal, 1e-14, "E_f = %.17g", c[r.elastic]);
    cr_assert_float_eq(c[r.elastic], 1.899, 0.0005, "paper: 1.899 N");
    cr_assert_eq(c[r.damping], 0.0, "no dashpot in slip (Sec. 5)");
    fd_scene_free(&r.scene);
}
