/* Fang & Negrut (paper 003) Sec. 4.3: a sphere sent up an incline, through
 * the scene scenes/fang_negrut/incline.yaml. The closed forms and the App. D
 * regimes are derived in docs/validation/incline.md ("the notes"); the
 * validation case scripts/validation/incline.py runs the full Fig. 12 sweep.
 *
 * Conventions of the scene: x points up the slope, gravity is tilted, the
 * plane is body i, so the slide force and the roll torque on the sphere are
 * -slide_elastic_x and roll_elastic_j_y; omega_y > 0 rolls up the slope. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fricdem/io.h"
#include "support/support.h"

#define SCENE FRICDEM_SOURCE_DIR "/scenes/fang_negrut/incline.yaml"
#define G 9.8
#define MASS 5.0
#define RADIUS 0.2
#define INERTIA 0.08 /* 2/5 m R^2 */
#define MU_S 0.25
#define MU_K 0.2
#define K_E 1.0e5
#define DT 1.0e-4

static const double PI = 3.14159265358979323846;

typedef struct run {
    fd_scene scene;
    fd_body_id ball;
    int slide_mode, roll_mode, slide_elastic_x, roll_elastic_j_y;
} run;

/* The scene with the overrides and the paper's form (support.h), or
 * fricdem's defaults (capped totals, D_R from the rocking inertia). */
static run load_form(const char* const* overrides, int count, bool paper)
{
    run r;
    static const char* const paper_form[] = {TEST_FN_PAPER_SLIDE, TEST_FN_PAPER_ROLL};
    r.ball = test_scene_open(SCENE, overrides, count, paper_form, paper ? 2 : 0, "ball", &r.scene);
    r.slide_mode = test_column(r.scene.world, "slide_mode");
    r.roll_mode = test_column(r.scene.world, "roll_mode_j");
    r.slide_elastic_x = test_column(r.scene.world, "slide_elastic_x");
    r.roll_elastic_j_y = test_column(r.scene.world, "roll_elastic_j_y");
    return r;
}

/* The tests of Sec. 4.3 reproduce the paper's numbers: the paper's form. */
static run load(const char* const* overrides, int count) { return load_form(overrides, count, true); }

typedef struct sample {
    double t, v, omega, force, torque; /* force and torque on the sphere (elastic parts) */
    int slide, roll;                   /* 0 static, 1 kinetic */
} sample;

static sample step(run* r)
{
    cr_assert_eq(fd_world_step(r->scene.world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_contact_count(r->scene.world), 1);
    fd_contact_view view;
    fd_world_get_contact(r->scene.world, 0, &view);
    fd_body_state state = fd_body_get_state(r->scene.world, r->ball);
    return (sample){fd_world_time(r->scene.world), state.velocity.x, state.angular_velocity.y,
                    -view.columns[r->slide_elastic_x], view.columns[r->roll_elastic_j_y],
                    (int)view.columns[r->slide_mode], (int)view.columns[r->roll_mode]};
}

/* ---------------------------------------------------------------- Fig. 11: 35 degrees, eta_r = 0.3 */

Test(fn_incline, phases_I_to_IV_at_35_degrees)
{
    const double alpha = 35.0 * PI / 180.0, eta = 0.3;
    const double n = MASS * G * cos(alpha);
    const double t_k = 2.0 * eta * RADIUS * MU_K * n; /* notes Eq. (7) */
    run r = load(NULL, 0);
    enum { STEPS = 3000 };                            /* 0.3 s, the scene's duration */
    static sample s[STEPS + 1];
    s[0] = (sample){0.0, 0.5, 0.0, 0.0, 0.0, 0, 0};
    for (int k = 1; k <= STEPS; ++k) {
        s[k] = step(&r);
    }
    /* Phase boundaries from the modes (notes Sec. 4): onset until both are kinetic; I until the slide
     * sticks; II until v changes sign; III until the slide slips again. */
    int onset = 1;
    while (onset < STEPS && !(s[onset].slide == 1 && s[onset].roll == 1)) {
        ++onset;
    }
    int k1 = onset, k2, k3;
    while (k1 < STEPS && s[k1].slide == 1) {
        ++k1;
    }
    for (k2 = k1; k2 < STEPS && s[k2].v >= 0.0; ++k2) {
    }
    for (k3 = k2; k3 < STEPS && s[k3].slide == 0; ++k3) {
    }
    cr_assert(onset < 20 && k1 < k2 && k2 < k3 && k3 < STEPS, "onset %d, I->II %d, II->III %d, III->IV %d", onset,
              k1, k2, k3);
    /* The paper's snapshots (Fig. 11b-e): phase I at 0.004 s, II at 0.05 s, III at 0.09 s, IV at 0.2 s. */
    cr_assert(onset < 40 && 40 < k1, "t = 0.004 s must be in phase I");
    cr_assert(k1 <= 500 && 500 < k2, "t = 0.05 s must be in phase II (I->II at %g s)", s[k1].t);
    cr_assert(k2 <= 900 && 900 < k3, "t = 0.09 s must be in phase III (III->IV at %g s)", s[k3].t);
    cr_assert(k3 <= 2000, "t = 0.2 s must be in phase IV");
    /* Phases I and IV: slide and roll kinetic all through, elastic parts exactly at their kinetic caps
     * (Sec. 3.1 cap; Eq. 2c): mu_k N and 2 eta_r R mu_k N up to round-off of the rescaling, 1e-9 relative.
     * The first step of a phase is skipped: a switching step is capped at the static limit. */
    for (int k = onset + 1; k < k1; ++k) {
        cr_assert(s[k].slide == 1 && s[k].roll == 1, "phase I, step %d: both modes kinetic", k);
        cr_assert_float_eq(s[k].force, -MU_K * n, 1e-9 * MU_K * n, "phase I F_E = %.12g", s[k].force);
        cr_assert_float_eq(s[k].torque, -t_k, 1e-9 * t_k, "phase I T_E = %.12g", s[k].torque);
    }
    for (int k = k3 + 1; k <= STEPS; ++k) {
        cr_assert(s[k].slide == 1 && s[k].roll == 1, "phase IV, step %d: both modes kinetic", k);
        cr_assert_float_eq(s[k].force, MU_K * n, 1e-9 * MU_K * n, "phase IV F_E = %.12g", s[k].force);
        cr_assert_float_eq(s[k].torque, t_k, 1e-9 * t_k, "phase IV T_E = %.12g", s[k].torque);
    }
    /* The paper's numbers, 4 significant digits: F_E = 8.027 N (the closed form 8.02769 N truncated: one
     * unit of the last digit), T_E = 0.963 N m (half a unit). */
    cr_assert_float_eq(s[STEPS].force, 8.027, 1e-3);
    cr_assert_float_eq(s[STEPS].torque, 0.963, 5e-4);
    /* Phases II and III: slide static, |F_E| <= mu_s N = 10.03 N (paper); roll kinetic in II. */
    for (int k = k1; k < k3; ++k) {
        cr_assert(s[k].slide == 0 && fabs(s[k].force) <= MU_S * n * (1.0 + 1e-12), "step %d", k);
    }
    for (int k = k1; k < k2 - 5; ++k) {
        cr_assert(s[k].roll == 1 && fabs(s[k].torque + t_k) < 1e-9 * t_k, "phase II roll kinetic, step %d", k);
    }
    /* Accelerations (notes Eq. 12, 13, 22, 23): all loads constant in I and IV, so the differences are exact up
     * to round-off (tolerance 1e-9 relative over >= 300 steps). */
    const double a1 = -G * (sin(alpha) + MU_K * cos(alpha)), b1 = (MU_K * n * RADIUS - t_k) / INERTIA;
    const double a4 = -G * (sin(alpha) - MU_K * cos(alpha));
    int i0 = onset + 5, i1 = k1 - 5, j0 = k3 + 5, j1 = STEPS;
    cr_assert_float_eq((s[i1].v - s[i0].v) / (s[i1].t - s[i0].t), a1, 1e-9 * fabs(a1));
    cr_assert_float_eq((s[i1].omega - s[i0].omega) / (s[i1].t - s[i0].t), b1, 1e-9 * fabs(b1));
    cr_assert_float_eq((s[j1].v - s[j0].v) / (s[j1].t - s[j0].t), a4, 1e-9 * fabs(a4));
    cr_assert_float_eq((s[j1].omega - s[j0].omega) / (s[j1].t - s[j0].t), -b1, 1e-9 * fabs(b1));
    /* Angular momentum about the contact line, L = m R v + I omega: the slide force has no moment about the
     * contact point, so from the end of the onset to the turnaround dL/dt = -(m g R sin a + T_k) (notes Eq. 9, 15). */
    double l0 = MASS * RADIUS * s[i0].v + INERTIA * s[i0].omega;
    double l1 = MASS * RADIUS * s[k2 - 40].v + INERTIA * s[k2 - 40].omega;
    double dl = -(MASS * G * RADIUS * sin(alpha) + t_k);
    cr_assert_float_eq((l1 - l0) / (s[k2 - 40].t - s[i0].t), dl, 1e-9 * fabs(dl));
    /* Switching times from the state at the end of the onset (notes Eq. 14, 16): the mode switches a posteriori at
     * the first step after the event and v_CM turns round a little before L = 0 (micro-slip): 3 steps. */
    double t1 = s[onset].t + (s[onset].v - RADIUS * s[onset].omega) / (-a1 + RADIUS * b1);
    double t2 = s[onset].t + (MASS * RADIUS * s[onset].v + INERTIA * s[onset].omega) / -dl;
    cr_assert_float_eq(s[k1].t, t1, 3 * DT, "I->II at %g s, closed form %g s", s[k1].t, t1);
    cr_assert_float_eq(s[k2].t, t2, 3 * DT, "II->III at %g s, closed form %g s", s[k2].t, t2);
    fd_scene_free(&r.scene);
}

/* ---------------------------------------------------------------- Fig. 12: one run per regime */

typedef struct outcome {
    double v, omega, v_before, force, alpha, n;
    int slide, roll;
} outcome;

/* One run of the Fig. 12 sweep: 1 s, K_D = sqrt(m K_E), D_R = sqrt(I K_R) (Sec. 4.3). */
static outcome sweep_run(double alpha_deg, double eta)
{
    const double alpha = alpha_deg * PI / 180.0;
    char gravity[128], force[64], eta_r[64], k_d[64], d_r[64];
    snprintf(gravity, sizeof gravity, "world.gravity=[%.17g, 0, %.17g]", -G * sin(alpha), -G * cos(alpha));
    snprintf(force, sizeof force, "contacts.0.normal.force=%.17g", MASS * G * cos(alpha));
    snprintf(eta_r, sizeof eta_r, "contacts.0.roll.eta_r=%.17g", eta);
    snprintf(k_d, sizeof k_d, "contacts.0.slide.K_D=%.17g", sqrt(MASS * K_E));
    snprintf(d_r, sizeof d_r, "contacts.0.roll.D_R=%.17g", sqrt(INERTIA * 4.0 * eta * K_E * RADIUS * RADIUS));
    const char* overrides[] = {gravity, force, eta_r, k_d, d_r};
    run r = load(overrides, 5);
    sample s = {0};
    double v_before = 0.0;
    for (int k = 1; k <= 10000; ++k) {
        s = step(&r);
        if (k == 9000) {
            v_before = s.v;
        }
    }
    fd_scene_free(&r.scene);
    return (outcome){s.v, s.omega, v_before, s.force, alpha, MASS * G * cos(alpha), s.slide, s.roll};
}

/* The points lie at least 4 degrees from every App. D border and outside the hysteresis bands of the
 * notes (Sec. 5), so App. D's regime is the only steady state there. Kinematic constraints of Table 4 with
 * 1 mm/s thresholds (micro-slip of the slide spring is ~1e-6 m/s at 1 s; a moving sphere is at >= 0.1 m/s). */

Test(fn_incline, static_at_3_degrees_eta_0_3)
{
    /* App. D: tan 3deg = 0.052 <= 2 eta_r mu_s = 0.15 (S up to 8.5 deg; band from 6.8 deg). */
    outcome o = sweep_run(3.0, 0.3);
    cr_assert(o.slide == 0 && o.roll == 0, "S: both modes static (got slide %d, roll %d)", o.slide, o.roll);
    cr_assert(fabs(o.v) < 1e-3 && fabs(o.omega * RADIUS) < 1e-3, "S: v = %g, omega = %g", o.v, o.omega);
    /* At rest the static slide force carries the weight along the slope: F_E = m g sin a (the slide
     * dashpot has decayed: ~1e-6 m/s of residual micro-slip gives < 1e-3 N). */
    cr_assert_float_eq(o.force, MASS * G * sin(o.alpha), 1e-3, "F_E = %g", o.force);
}

Test(fn_incline, pure_rolling_at_18_degrees_eta_0_3)
{
    /* App. D: 2 eta_r mu_s = 0.15 < tan 18deg = 0.325 <= 3.5 mu_s - 5 eta_r mu_k = 0.575 (PR from 8.5 to
     * 29.9 deg). */
    outcome o = sweep_run(18.0, 0.3);
    cr_assert(o.slide == 0 && o.roll == 1, "PR: slide static, roll kinetic (got %d, %d)", o.slide, o.roll);
    cr_assert(fabs(o.v - o.omega * RADIUS) < 1e-3 && o.v < -0.1, "PR: v = %g, omega R = %g", o.v,
              o.omega * RADIUS);
    /* Rolling down with the kinetic roll torque: (m + I/R^2) dv/dt = -m g sin a + T_k / R (notes Eq. 9 with
     * T = +T_k). Over the last 0.1 s the slide spring has settled (decay time ~4 ms with the sweep's K_D),
     * so the micro-slip rate is constant to far below 1e-6 relative. */
    double t_k = 2.0 * 0.3 * RADIUS * MU_K * o.n;
    double a = (-MASS * G * sin(o.alpha) + t_k / RADIUS) / (MASS + INERTIA / (RADIUS * RADIUS));
    cr_assert_float_eq((o.v - o.v_before) / 0.1, a, 1e-6 * fabs(a), "dv/dt = %.9g", (o.v - o.v_before) / 0.1);
}

Test(fn_incline, rolling_with_slip_at_29_5_degrees_eta_0_48)
{
    /* App. D: tan 29.5deg = 0.566 > 3.5 mu_s - 5 eta_r mu_k = 0.395 (RwS beyond 21.6 deg), eta_r < 0.5. */
    outcome o = sweep_run(29.5, 0.48);
    cr_assert(o.slide == 1 && o.roll == 1, "RwS: both modes kinetic (got %d, %d)", o.slide, o.roll);
    cr_assert(fabs(o.v) - fabs(o.omega * RADIUS) > 0.1 && o.v < 0.0 && o.omega < 0.0, "RwS: v = %g, omega R = %g",
              o.v, o.omega * RADIUS);
    /* Sliding down with kinetic friction: dv/dt = -g (sin a - mu_k cos a), exact up to round-off. */
    double a = -G * (sin(o.alpha) - MU_K * cos(o.alpha));
    cr_assert_float_eq((o.v - o.v_before) / 0.1, a, 1e-9 * fabs(a));
}

Test(fn_incline, pure_slip_at_25_degrees_eta_0_6)
{
    /* App. D: PS for eta_r >= 0.5; tan 25deg = 0.466 > 3.5 mu_s - 5 eta_r mu_k = 0.275 (15.4 deg), so a
     * rolling sphere cannot stay in pure rolling either. eta_r = 0.6 lies outside Fig. 12's range (its only
     * PS row, eta_r = 0.5, is a knife edge: notes Sec. 6). */
    outcome o = sweep_run(25.0, 0.6);
    cr_assert(o.slide == 1 && o.roll == 0, "PS: slide kinetic, roll static (got %d, %d)", o.slide, o.roll);
    cr_assert(fabs(o.omega * RADIUS) < 1e-3 && o.v < -0.1, "PS: v = %g, omega R = %g", o.v, o.omega * RADIUS);
    double a = -G * (sin(o.alpha) - MU_K * cos(o.alpha)); /* like the brick of Sec. 4.1 */
    cr_assert_float_eq((o.v - o.v_before) / 0.1, a, 1e-9 * fabs(a));
}

/* ---------------------------------------------------------------- the default roll damping (issue 10) */

/* A sphere released at rest on an incline of alpha degrees, eta_r = 0.3, the
 * derived K_D and D_R; its speed after 1 s. */
static double released_speed(double alpha_deg, bool paper)
{
    const double alpha = alpha_deg * PI / 180.0;
    char gravity[128], force[64];
    snprintf(gravity, sizeof gravity, "world.gravity=[%.17g, 0, %.17g]", -G * sin(alpha), -G * cos(alpha));
    snprintf(force, sizeof force, "contacts.0.normal.force=%.17g", MASS * G * cos(alpha));
    const char* overrides[] = {gravity, force, "bodies.ball.velocity=[0, 0, 0]", "contacts.0.roll.D_R=-1"};
    run r = load_form(overrides, 4, paper);
    sample s = {0};
    for (int k = 1; k <= 10000; ++k) {
        s = step(&r);
    }
    fd_scene_free(&r.scene);
    return fabs(s.v);
}

Test(fn_incline, released_between_the_kinetic_and_static_roll_limits_it_holds)
{
    /* App. D: at rest the sphere holds while tan(alpha) <= 2 eta_r mu_s = 0.15 (8.53 deg); it keeps
     * rolling once moving above 2 eta_r mu_k = 0.12 (6.84 deg). Released at 7.2 deg (tan = 0.126, 84% of
     * the static limit) the gravity moment loads the roll spring from zero. With the paper's
     * D_R = 2 sqrt(I K_R), about half of critical for rocking about the contact point (zeta =
     * sqrt(2/7) = 0.53), the spring overshoots by ~14%, past the static limit, switches to kinetic and
     * the sphere rolls away (issue 10; measured: it holds only up to ~7.0 deg). With the default, D_R
     * critical for rocking (2 sqrt((I + m R^2) K_R)) and spring plus damper capped at the static limit,
     * it holds (measured up to ~7.3 deg: a critically damped load step still asks 1 + e^-2 = 1.135 times
     * the load at its peak, which the cap refuses; docs/models/fang-negrut.md). Held: below 1 mm/s (a
     * stuck spring creeps at ~1e-6 m/s); rolling away: above 2 cm/s after 1 s (rolling against the
     * kinetic torque 2 eta_r mu_k N R it gains (m g R sin a - T_k) R / (I + m R^2) = 0.044 m/s^2). */
    double held = released_speed(7.2, false);
    cr_assert_lt(held, 1e-3, "default D_R: v = %g m/s after 1 s", held);
    double rolled = released_speed(7.2, true);
    cr_assert_gt(rolled, 0.02, "the paper's D_R: v = %g m/s after 1 s", rolled);
}
