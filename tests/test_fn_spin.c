/* Fang & Negrut Sec. 4.4, the spinning sphere, through its scene files
 * (scenes/fang_negrut/spin_sphere_*.yaml) against the closed forms of
 * docs/validation/spin.md (equations S1 to S14 cited below).
 *
 * The sphere spins in place on the ground: the contact point does not move on
 * either body, p_i = p_j = 0, and the spin torque is the only load. In stick
 * the contact is a critically damped torsional oscillator; in slip the torque
 * is the capped K_psi S_k^psi and omega falls linearly; at the stop the stick
 * oscillator overshoots once and comes to rest. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fricdem/io.h"
#include "support/fang_negrut.h"
#include "support/support.h"

#define EMPIRICAL FRICDEM_SOURCE_DIR "/scenes/fang_negrut/spin_sphere_empirical.yaml"
#define HERTZ FRICDEM_SOURCE_DIR "/scenes/fang_negrut/spin_sphere_hertz.yaml"

typedef struct run {
    fd_scene scene;
    fd_body_id ball;
    int spin_elastic, spin_mode, psi_total;
} run;

static run load(const char* path, const char* const* overrides, int count)
{
    run r;
    /* The paper's form (support.h): these tests reproduce Sec. 4.4's numbers. */
    static const char* const paper_form[] = {TEST_FN_PAPER_SLIDE};
    cr_assert_eq(test_scene_load_with(path, overrides, count, paper_form, 1, &r.scene), FD_OK, "%s", fd_last_error());
    r.ball = fd_world_find_body(r.scene.world, "ball");
    cr_assert(!fd_body_id_is_null(r.ball));
    cr_assert_eq(fd_world_prepare(r.scene.world), FD_OK, "%s", fd_last_error());
    r.spin_elastic = test_column(r.scene.world, "spin_elastic");
    r.spin_mode = test_column(r.scene.world, "spin_mode");
    r.psi_total = test_column(r.scene.world, "Psi");
    return r;
}

static void step(run* r)
{
    cr_assert_eq(fd_world_step(r->scene.world), FD_OK, "%s", fd_last_error());
}

static double omega(const run* r) { return fd_body_get_state(r->scene.world, r->ball).angular_velocity.z; }

static fd_contact_view contact(const run* r)
{
    cr_assert_eq(fd_world_contact_count(r->scene.world), 1);
    fd_contact_view view;
    fd_world_get_contact(r->scene.world, 0, &view);
    return view;
}

/* Principal branch of w e^w = x, -1/e < x <= 0 (Newton). */
static double lambert_w0(double x)
{
    double w = x;
    for (int k = 0; k < 100; ++k) {
        double step = (w * exp(w) - x) / (exp(w) * (w + 1.0));
        w -= step;
        if (fabs(step) < 1e-16) {
            break;
        }
    }
    return w;
}

/* The spin-down of a body of inertia I about the normal (Eq. S4-S11). */
typedef struct theory {
    double w_n, t_sw, omega_sw, torque, alpha, t_stop, omega_min, s_s, s_k, k_psi;
} theory;

static theory spin_theory(double inertia, double k_psi, double s_s, double s_k)
{
    theory t = {.k_psi = k_psi, .s_s = s_s, .s_k = s_k};
    t.w_n = sqrt(k_psi / inertia);
    double tau = -lambert_w0(-t.w_n * s_s); /* omega0 = 1 rad/s, Eq. (S6) */
    t.t_sw = tau / t.w_n;
    t.omega_sw = (1.0 - tau) * exp(-tau); /* Eq. (S7) */
    t.torque = k_psi * s_k;               /* Eq. (S8) */
    t.alpha = t.torque / inertia;
    t.t_stop = t.t_sw + t.omega_sw / t.alpha; /* Eq. (S9) */
    t.omega_min = -s_k * t.w_n / FN_EULER_E;         /* Eq. (S11) */
    return t;
}

/* The empirical case: m = 5 kg, R = 0.2 m, K_E = 1e5 N/m, K = 5 1/m. */
static theory empirical_theory(double eta)
{
    double normal = 5.0 * FN_G, k_e = 1e5, curvature = 5.0;
    return spin_theory(0.4 * 5.0 * 0.04, eta * k_e / (curvature * curvature), /* Eq. (3c) */
                       curvature * FN_MU_S * normal / k_e, curvature * FN_MU_K * normal / k_e);
}

Test(fn_spin, empirical_stick_then_kinetic_torque_of_the_paper)
{
    /* eta_psi = 0.006: K_psi = 24 N m/rad, S_s = 6.125e-4 rad, S_k = 4.9e-4 rad.
     * In stick the elastic torque is K_psi Psi; the step that crosses S_s caps
     * Psi at S_s (largest torque K_psi S_s), the next ones at S_k, with the
     * kinetic torque eta mu_k N / K = 0.01176 N m (paper: mu_k N eta_psi R =
     * 0.0118 N m, 3 figures). Single products: 1e-12 relative is round-off. */
    run r = load(EMPIRICAL, NULL, 0);
    theory t = empirical_theory(0.006);
    double peak = 0.0;
    int switch_step = -1;
    for (int n = 1; n <= 20; ++n) {
        step(&r);
        fd_contact_view view = contact(&r);
        double psi_total = view.columns[r.psi_total], elastic = view.columns[r.spin_elastic];
        peak = fmax(peak, fabs(elastic));
        if (n == 1) {
            cr_assert_eq(view.columns[r.spin_mode], 0.0, "the first step is in stick");
            cr_assert_float_eq(elastic / psi_total, t.k_psi, 1e-12 * t.k_psi, "K_psi = %.15g", elastic / psi_total);
        }
        if (view.columns[r.spin_mode] == 1.0 && switch_step < 0) {
            switch_step = n;
            cr_assert_float_eq(fabs(psi_total), t.s_s, 1e-12 * t.s_s, "S_s^psi = %.15g", psi_total);
        } else if (switch_step > 0) {
            cr_assert_float_eq(fabs(psi_total), t.s_k, 1e-12 * t.s_k, "S_k^psi = %.15g", psi_total);
            cr_assert_float_eq(fabs(elastic), t.torque, 1e-12 * t.torque, "kinetic torque %.15g", elastic);
            cr_assert_float_eq(fabs(elastic), 0.0118, 5e-5, "paper: 0.0118 N m");
            /* The torque on the ball (body j) opposes its spin. */
            cr_assert(view.loads.spin_torque_j.z * omega(&r) < 0.0);
        }
    }
    /* Psi grows by omega dt ~ 1e-4 a step: the switch comes at step 7 (S_s / 1e-4 = 6.1, slowed by the
     * dashpot). */
    cr_assert(switch_step >= 6 && switch_step <= 8, "switch at step %d", switch_step);
    cr_assert_float_eq(peak, t.k_psi * t.s_s, 1e-12 * t.k_psi * t.s_s, "peak %.15g", peak);
    fd_scene_free(&r.scene);
}

Test(fn_spin, empirical_spin_down_overshoot_and_rest)
{
    /* The whole 8 s of Sec. 4.4 at eta_psi = 0.006 and 0.012 (the ends of the paper's study). */
    const double etas[2] = {0.006, 0.012};
    for (int e = 0; e < 2; ++e) {
        char eta_override[64];
        snprintf(eta_override, sizeof eta_override, "contacts.0.spin.eta_psi=%.17g", etas[e]);
        const char* overrides[] = {eta_override};
        run r = load(EMPIRICAL, overrides, 1);
        theory t = empirical_theory(etas[e]);
        double omega1 = 0.0, omega2 = 0.0, t_stop = NAN, omega_min = 1.0, previous = 1.0;
        for (int n = 1; n <= 80000; ++n) {
            step(&r);
            double w = omega(&r), time = n * FN_DT;
            if (n == 10000) {
                omega1 = w;
            }
            if (n == 30000) {
                omega2 = w;
            }
            if (isnan(t_stop) && w <= 0.0) {
                t_stop = time - FN_DT * w / (w - previous);
            }
            omega_min = fmin(omega_min, w);
            previous = w;
        }
        /* Slip between 1 s and 3 s (t_stop >= 3.3 s): omega is linear to round-off (1e-9 relative). */
        double alpha = (omega1 - omega2) / 2.0;
        cr_assert_float_eq(alpha, t.alpha, 1e-9 * t.alpha, "eta %g: alpha = %.15g, expected %.15g", etas[e], alpha,
                           t.alpha);
        /* The stop: t_sw + omega_sw / alpha, with omega_sw from the continuous critically damped onset
         * (Eq. S7). The integrator reaches it in ~6 steps; its error is ~w_n dt of the loss 1 - omega_sw
         * plus one step of the switch (dt times the stick torque over I, 2 sqrt(K_psi / I) ~ 35-50 rad/s^2):
         * 1e-2 rad/s on omega_sw at most, i.e. 0.01 / alpha + dt on t_stop. */
        double tolerance = 0.01 / t.alpha + FN_DT;
        cr_assert_float_eq(t_stop, t.t_stop, tolerance, "eta %g: t_stop = %.6g, expected %.6g", etas[e], t_stop,
                           t.t_stop);
        /* Overshoot -S_k w_n / e (Eq. S11): first order in w_n dt (<= 0.25%) plus the switch within one
         * step of omega = 0 (alpha dt / |omega_min| < 1%): 2% relative. */
        cr_assert_float_eq(omega_min, t.omega_min, 0.02 * fabs(t.omega_min), "eta %g: omega_min = %.6g, expected %.6g",
                           etas[e], omega_min, t.omega_min);
        /* At rest at 8 s: Psi back to 0, so no torque; |omega| below the round-off floor of the per-step
         * spin angle, 10 eps / dt = 2.2e-11 rad/s (the damped envelope is ~1e-11 at 8 s for eta 0.006). */
        fd_contact_view view = contact(&r);
        cr_assert(fabs(omega(&r)) < 5e-11, "omega at 8 s = %g", omega(&r));
        cr_assert(fabs(view.columns[r.psi_total]) < 1e-10, "Psi at 8 s = %g", view.columns[r.psi_total]);
        cr_assert_eq(view.columns[r.spin_mode], 0.0, "stick at rest");
        fd_scene_free(&r.scene);
    }
}

/* Table 5 (PDF text): the three balls. */
typedef struct ball {
    double radius, density, youngs, poisson;
} ball;
static const ball BALLS[3] = {{0.02, 8000.0, 2e11, 0.3}, {0.04, 8000.0, 2e11, 0.3}, {0.02, 2500.0, 5e10, 0.2}};

static theory hertz_theory(ball b, double k_e, double* a_out)
{
    double mass = b.density * 4.0 / 3.0 * FN_PI * pow(b.radius, 3.0);
    double normal = mass * FN_G;
    /* App. C, Eq. (15): the ground is rigid, E_eff = E / (1 - nu^2). */
    double a = cbrt(3.0 * normal * b.radius * (1.0 - b.poisson * b.poisson) / (4.0 * b.youngs));
    *a_out = a;
    return spin_theory(0.4 * mass * b.radius * b.radius, 0.5 * a * a * k_e, /* Eq. (13) */
                       FN_MU_S * normal / (k_e * a), FN_MU_K * normal / (k_e * a)); /* Eq. (14) */
}

static run load_hertz(ball b, double k_e)
{
    char overrides[7][96];
    double mass = b.density * 4.0 / 3.0 * FN_PI * pow(b.radius, 3.0);
    snprintf(overrides[0], 96, "contacts.0.slide.K_E=%.17g", k_e);
    snprintf(overrides[1], 96, "contacts.0.normal.force=%.17g", mass * FN_G);
    snprintf(overrides[2], 96, "materials.ball.density=%.17g", b.density);
    snprintf(overrides[3], 96, "materials.ball.youngs_modulus=%.17g", b.youngs);
    snprintf(overrides[4], 96, "materials.ball.poisson_ratio=%.17g", b.poisson);
    snprintf(overrides[5], 96, "bodies.ball.shape.radius=%.17g", b.radius);
    snprintf(overrides[6], 96, "bodies.ball.position=[0, 0, %.17g]", b.radius);
    const char* list[7];
    for (int k = 0; k < 7; ++k) {
        list[k] = overrides[k];
    }
    return load(HERTZ, list, 7);
}

Test(fn_spin, hertz_kinetic_deceleration_is_the_same_for_every_K_E)
{
    /* Kinetic torque K_psi S_k^psi = (a^2 K_E / 2)(mu_k N / (K_E a)) = a mu_k N / 2: K_E cancels
     * (Eq. S14). For each ball and K_E = 5e5 ... 1e7, omega must fall at a mu_k N / (2 I) between
     * 0.2 s and 1.2 s (slip starts within 26 ms and lasts > 2 s): 1e-9 relative, round-off. */
    const double stiffness[4] = {5e5, 1e6, 5e6, 1e7};
    for (int b = 0; b < 3; ++b) {
        double first = NAN;
        for (int s = 0; s < 4; ++s) {
            double a;
            theory t = hertz_theory(BALLS[b], stiffness[s], &a);
            run r = load_hertz(BALLS[b], stiffness[s]);
            double omega1 = 0.0;
            for (int n = 1; n <= 12000; ++n) {
                step(&r);
                if (n == 2000) {
                    omega1 = omega(&r);
                }
            }
            double alpha = omega1 - omega(&r);
            cr_assert_float_eq(alpha, t.alpha, 1e-9 * t.alpha, "ball %d, K_E %g: alpha %.15g, expected %.15g", b + 1,
                               stiffness[s], alpha, t.alpha);
            if (s == 0) {
                first = alpha;
            }
            cr_assert_float_eq(alpha, first, 1e-9 * first, "independent of K_E");
            fd_scene_free(&r.scene);
        }
    }
}

Test(fn_spin, hertz_overshoot_grows_as_K_E_decreases)
{
    /* Ball #1 (steel, R = 0.02 m): the overshoot is -S_k w_n / e = -mu_k N / (e sqrt(2 I K_E))
     * (Eq. S11 with Eq. 13, 14): larger for softer K_E, as the paper says. Tolerance 2% as for the
     * empirical case (w_n dt <= 0.2%, alpha dt / |omega_min| <= 0.5%). */
    const double stiffness[2] = {5e5, 1e7};
    for (int s = 0; s < 2; ++s) {
        double a;
        theory t = hertz_theory(BALLS[0], stiffness[s], &a);
        run r = load_hertz(BALLS[0], stiffness[s]);
        double omega_min = 1.0;
        int steps = (int)ceil((t.t_stop + 4.0 / t.w_n) / FN_DT); /* past the minimum at t_stop + 1 / w_n */
        for (int n = 1; n <= steps; ++n) {
            step(&r);
            omega_min = fmin(omega_min, omega(&r));
        }
        double mass = 8000.0 * 4.0 / 3.0 * FN_PI * pow(0.02, 3.0);
        double expected = -FN_MU_K * mass * FN_G / (FN_EULER_E * sqrt(2.0 * 0.4 * mass * 0.0004 * stiffness[s]));
        cr_assert_float_eq(t.omega_min, expected, 1e-12 * fabs(expected)); /* the two forms agree */
        cr_assert_float_eq(omega_min, expected, 0.02 * fabs(expected), "K_E %g: omega_min %.6g, expected %.6g",
                           stiffness[s], omega_min, expected);
        fd_scene_free(&r.scene);
    }
}

/* ---------------------------------------------------------------- fricdem's default: the capped total (issue 10) */

Test(fn_spin, default_total_torque_stays_within_the_static_limit_and_the_stop_follows_the_kinetic_torque)
{
    /* Issue 10: the stick damper D_psi psi / dt acts uncapped at the onset in the paper's form and
     * removes about mu_s N sqrt(2 I / K_E)-worth of angular momentum before slip starts (the
     * empirical_spin_down test above: omega_sw = 0.979, not 1). fricdem's default caps spring plus
     * damper at the static torque T_s = K_psi S_s^psi: the onset then lasts until Psi reaches S_s
     * (about S_s / omega0) under at most T_s, and the spin-down follows the kinetic torque T_k: the
     * stop comes at I omega0 / T_k, short by at most (T_s / T_k - 1) S_s / omega0 (the onset's excess
     * torque over its duration), plus two steps for the switch and the crossing. Every step's total
     * is checked against T_s to 1e-9 relative (the cap solves a quadratic: round-off). */
    struct {
        const char* path;
        theory t;
        double inertia;
    } cases[3];
    double a;
    cases[0].path = EMPIRICAL, cases[0].t = empirical_theory(0.006), cases[0].inertia = 0.4 * 5.0 * 0.04;
    cases[1].path = EMPIRICAL, cases[1].t = empirical_theory(0.012), cases[1].inertia = 0.4 * 5.0 * 0.04;
    cases[2].path = HERTZ, cases[2].t = hertz_theory(BALLS[0], 5e5, &a);
    cases[2].inertia = 0.4 * 8000.0 * 4.0 / 3.0 * FN_PI * pow(0.02, 5.0);
    for (int c = 0; c < 3; ++c) {
        const theory* t = &cases[c].t;
        char eta_override[64];
        snprintf(eta_override, sizeof eta_override, "contacts.0.spin.eta_psi=%.17g", c == 1 ? 0.012 : 0.006);
        const char* overrides[] = {eta_override};
        run r;
        cr_assert_eq(fd_scene_load(cases[c].path, overrides, c == 2 ? 0 : 1, &r.scene), FD_OK, "%s", fd_last_error());
        r.ball = fd_world_find_body(r.scene.world, "ball");
        cr_assert_eq(fd_world_prepare(r.scene.world), FD_OK, "%s", fd_last_error());
        int elastic = test_column(r.scene.world, "spin_elastic"), damping = test_column(r.scene.world, "spin_damping");
        double static_torque = t->k_psi * t->s_s, kinetic_torque = t->k_psi * t->s_k;
        double expected_stop = cases[c].inertia * 1.0 / kinetic_torque;
        double previous = 1.0, t_stop = NAN, peak = 0.0;
        for (int n = 1; isnan(t_stop) && n <= (int)(2.0 * expected_stop / FN_DT); ++n) {
            step(&r);
            fd_contact_view view = contact(&r);
            if (n > 1) { /* the first step of a contact has no friction (Sec. 3) */
                peak = fmax(peak, fabs(view.columns[elastic] + view.columns[damping]));
            }
            double w = omega(&r);
            if (w <= 0.0) {
                t_stop = n * FN_DT - FN_DT * w / (w - previous);
            }
            previous = w;
        }
        cr_assert_leq(peak, static_torque * (1.0 + 1e-9), "case %d: peak total torque %.12g > T_s %.12g", c, peak,
                      static_torque);
        double tolerance = (static_torque / kinetic_torque - 1.0) * t->s_s / 1.0 + 2.0 * FN_DT;
        cr_assert_float_eq(t_stop, expected_stop, tolerance, "case %d: stop at %.6g s, I omega0 / T_k = %.6g s", c,
                           t_stop, expected_stop);
        fd_scene_free(&r.scene);
    }
}
