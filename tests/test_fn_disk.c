/* Fang & Negrut Sec. 4.2, the disk rolling on a flat surface, through its
 * scene files (scenes/fang_negrut/disk.yaml, disk_legacy.yaml) against the
 * closed forms of docs/validation/disk.md (equation numbers cited below are
 * that page's). m = 5 kg, R = 0.2 m, I = 0.1 kg m^2, N = m g = 49 N,
 * mu_k = 0.2, mu_s = 0.25, K_E = 1e5 N/m, K_R = 1600 N m/rad (Table 3),
 * K_D = 1414.21, D_R = 25.30, v0 = 0.5 m/s, g = 9.8 m/s^2, dt = 1e-4 s. The
 * ground is body i; the disk (body j) rolls along +x with theta' = omega_y;
 * the contact reports the slide force on the ground, the opposite of the
 * disk's. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fricdem/io.h"
#include "support/support.h"

#define DISK FRICDEM_SOURCE_DIR "/scenes/fang_negrut/disk.yaml"
#define LEGACY FRICDEM_SOURCE_DIR "/scenes/fang_negrut/disk_legacy.yaml"
#define G 9.8
#define MASS 5.0
#define RADIUS 0.2
#define INERTIA 0.1
#define NORMAL (MASS * G)
#define MU_S 0.25
#define MU_K 0.2
#define K_E 1e5
#define K_R 1600.0
#define MU_R 0.1
#define DT 1e-4

/* Eq. (2)-(3): Theta^d = mu_k N / (2 R K_E) (kappa_i + kappa_j = 1/R), T_k = K_R Theta^d = 0.392 N m. */
#define T_K (K_R * MU_K * NORMAL / (2.0 * RADIUS * K_E))
/* Eq. (6): the slip velocity u = x' - R theta' falls at mu_k g + R (mu_k N R - T) / I. */
static double slip_rate(double torque) { return MU_K * G + RADIUS * (MU_K * NORMAL * RADIUS - torque) / INERTIA; }
/* Eq. (8): rolling without slip, x'' = -T R / (I + m R^2). */
static double rolling_acceleration(double torque) { return -torque * RADIUS / (INERTIA + MASS * RADIUS * RADIUS); }

typedef struct disk_run {
    fd_scene scene;
    fd_body_id disk;
    int slide_mode, roll_mode; /* roll_mode < 0 for the legacy model */
    fd_contact_view view;
} disk_run;

static disk_run open_run(const char* path, const char* const* overrides, int count)
{
    disk_run r;
    /* The paper's form (support.h): these tests reproduce Sec. 4.2's numbers (D_R is given). */
    static const char* const paper_form[] = {TEST_FN_PAPER_SLIDE};
    r.disk = test_scene_open(path, overrides, count, paper_form, 1, "disk", &r.scene);
    r.slide_mode = test_column(r.scene.world, "slide_mode");
    r.roll_mode = strcmp(path, LEGACY) == 0 ? -1 : test_column(r.scene.world, "roll_mode_j");
    return r;
}

static fd_body_state step(disk_run* r)
{
    cr_assert_eq(fd_world_step(r->scene.world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_contact_count(r->scene.world), 1);
    fd_world_get_contact(r->scene.world, 0, &r->view);
    return fd_body_get_state(r->scene.world, r->disk);
}

static double slide_mode(const disk_run* r) { return r->view.columns[r->slide_mode]; }

Test(fn_disk, slip_phase_decelerations_and_switch_to_rolling)
{
    /* Eq. (4)-(5): in slip x'' = -mu_k g = -1.96 m/s^2 and theta'' = (mu_k N R
     * - T_k) / I = 15.68 rad/s^2, with E_f = 9.8 N and the kinetic roll torque
     * 0.392 N m: constant forces, so between 20 and 80 ms (after the onset
     * transient of Eq. 10) the velocities change by the same amount each step
     * and only round-off is left (1e-9 relative covers it with a wide margin).
     * Eq. (7): started from the slip velocity at 20 ms, the slide switches to
     * stick on the step after u = x' - R theta' changes sign: two steps. */
    disk_run r = open_run(DISK, NULL, 0);
    double v20 = 0, w20 = 0, v80 = 0, w80 = 0, switch_time = -1;
    for (int n = 1; n <= 1500 && switch_time < 0; ++n) {
        fd_body_state s = step(&r);
        if (n == 200) {
            v20 = s.velocity.x;
            w20 = s.angular_velocity.y;
        }
        if (n == 800) {
            v80 = s.velocity.x;
            w80 = s.angular_velocity.y;
            cr_assert_float_eq(r.view.loads.slide_force.x, MU_K * NORMAL, 1e-12, "paper: E_f = m g mu_k = 9.8 N");
            cr_assert_float_eq(r.view.loads.roll_torque_j.y, -T_K, 1e-12, "T = %.17g", r.view.loads.roll_torque_j.y);
        }
        if (n > 200 && slide_mode(&r) == 0.0) {
            switch_time = n * DT;
        }
    }
    cr_assert_float_eq((v80 - v20) / 0.06, -MU_K * G, 1e-9 * MU_K * G);
    double expected_alpha = (MU_K * NORMAL * RADIUS - T_K) / INERTIA;
    cr_assert_float_eq((w80 - w20) / 0.06, expected_alpha, 1e-9 * expected_alpha);
    double predicted = 0.02 + (v20 - RADIUS * w20) / slip_rate(T_K);
    cr_assert_float_eq(switch_time, predicted, 2 * DT, "switch at %g s, predicted %g s", switch_time, predicted);
    fd_scene_free(&r.scene);
}

Test(fn_disk, switch_time_from_rest_without_dashpots)
{
    /* Eq. (7) from t = 0: t_s = v0 / slip_rate = 0.5 / 5.096 = 98.1 ms. Without
     * dashpots the onset is only the build-up of the springs: the roll spring
     * ramps to its cap over ~6 ms at half the kinetic torque on average, which
     * advances the switch by ~0.5 ms: tolerance 1 ms. (With the dashpots of
     * Table 3 the switch comes at 85 ms: the stick-mode dashpots act at the
     * onset, Eq. 10; the paper says 0.11 s.) */
    const char* overrides[] = {"contacts.0.slide.K_D=0", "contacts.0.roll.D_R=0"};
    disk_run r = open_run(DISK, overrides, 2);
    double switch_time = -1;
    for (int n = 1; n <= 1500 && switch_time < 0; ++n) {
        step(&r);
        if (n > 30 && slide_mode(&r) == 0.0) {
            switch_time = n * DT;
        }
    }
    cr_assert_float_eq(switch_time, 0.5 / slip_rate(T_K), 1e-3, "switch at %g s", switch_time);
    fd_scene_free(&r.scene);
}

Test(fn_disk, rolls_with_kinetic_roll_torque_then_comes_to_rest_to_round_off)
{
    /* Eq. (8): rolling without slip at x'' = -T_k R / (I + m R^2) = -0.2613
     * m/s^2 with the roll kinetic; the slide transient after the switch decays
     * through an overdamped mode of rate ~78 /s (Eq. 8b), so from 0.4 s on it is
     * below 1e-9: tolerance 1e-6 relative. Eq. (9): the stop (theta' <= 0) is
     * predicted from the state at 0.4 s within two steps. */
    disk_run r = open_run(DISK, NULL, 0);
    double v04 = 0, v10 = 0, stop = -1, max_torque = 0, max_omega = 0;
    for (int n = 1; n <= 25000; ++n) {
        fd_body_state s = step(&r);
        if (n == 4000) {
            v04 = s.velocity.x;
        }
        if (n == 10000) {
            v10 = s.velocity.x;
        }
        if (n > 4000 && n <= 10000) {
            cr_assert_eq(r.view.columns[r.roll_mode], 1.0, "roll must stay kinetic while rolling (step %d)", n);
            cr_assert_eq(slide_mode(&r), 0.0, "slide must stick while rolling (step %d)", n);
        }
        if (n > 4000 && stop < 0 && s.angular_velocity.y <= 0.0) {
            stop = n * DT;
        }
        if (stop > 0) {
            /* Eq. (11): after the stop slide and roll both stick (Theta^d < Theta^s, unloading). */
            cr_assert_eq(r.view.columns[r.roll_mode], 0.0, "roll slipped after the stop (step %d)", n);
            cr_assert_eq(slide_mode(&r), 0.0, "slide slipped after the stop (step %d)", n);
        }
        if (stop > 0 && n * DT >= stop + 1.0) {
            max_torque = fmax(max_torque, fabs(r.view.loads.roll_torque_j.y));
            max_omega = fmax(max_omega, fabs(s.angular_velocity.y));
        }
    }
    double a = rolling_acceleration(T_K);
    cr_assert_float_eq((v10 - v04) / 0.6, a, 1e-6 * fabs(a), "x'' = %.12g", (v10 - v04) / 0.6);
    cr_assert_float_eq(stop, 0.4 + v04 / -a, 2 * DT, "stop at %g s", stop);
    /* Eq. (13)-(14): at rest. The stick-stick transient decays at 34.7 /s, to
     * 1e-15 of 0.39 N m within 1 s; left is the round-off floor: the roll
     * increment p_j / R carries a few ulp(0.21 m) / R ~ 1e-16 rad of noise,
     * which the stick dashpot makes D_R theta / dt ~ 1e-10 N m, and ~1e-10 /
     * D_R ~ 4e-12 rad/s. Bounds ten times those floors (the legacy model sits
     * at 0.98 N m and ~1e-3 rad/s). */
    cr_assert(max_torque < 1e-9, "max |torque| at rest = %g N m", max_torque);
    cr_assert(max_omega < 1e-10, "max |omega| at rest = %g rad/s", max_omega);
    fd_scene_free(&r.scene);
}

Test(fn_disk, legacy_constant_torque_chatters_at_rest)
{
    /* Eq. (15)-(16): the legacy torque -mu_r R N omega / |omega| (0.98 N m)
     * slows the rolling disk at -0.6533 m/s^2 (Eq. 8 with T = 0.98 N m) to a
     * stop at ~0.51 s, after which it can never vanish: it flips sign on every
     * step, keeps its full size, and swings omega by mu_r R N dt / I = 9.8e-4
     * rad/s each step (the alternating slide force adds ~3%: tolerance 5%). */
    disk_run r = open_run(LEGACY, NULL, 0);
    const double torque = MU_R * RADIUS * NORMAL;
    double v30 = 0, v48 = 0, stop = -1, previous_torque = 0, previous_omega = 0;
    int flips = 0, rest_steps = 0;
    double max_omega = 0;
    for (int n = 1; n <= 10000; ++n) {
        fd_body_state s = step(&r);
        double t = r.view.loads.roll_torque_j.y, w = s.angular_velocity.y;
        if (n == 3000) {
            v30 = s.velocity.x;
        }
        if (n == 4800) {
            v48 = s.velocity.x;
        }
        if (n > 3000 && stop < 0 && w <= 0.0) {
            stop = n * DT;
        }
        if (stop > 0 && n * DT > stop + 0.1) {
            ++rest_steps;
            flips += t * previous_torque < 0.0;
            cr_assert_float_eq(fabs(t), torque, 1e-15, "step %d: |M_r| = %.17g", n, fabs(t));
            cr_assert_float_eq(fabs(w - previous_omega), torque * DT / INERTIA, 0.05 * torque * DT / INERTIA,
                               "step %d: omega swing %g", n, fabs(w - previous_omega));
            max_omega = fmax(max_omega, fabs(w));
        }
        previous_torque = t;
        previous_omega = w;
    }
    double a = rolling_acceleration(torque);
    /* The switch is at 0.107 s; from 0.3 s the slide transient (~78 /s) is below
     * 1e-6 of its start: tolerance 1e-5 relative. */
    cr_assert_float_eq((v48 - v30) / 0.18, a, 1e-5 * fabs(a), "x'' = %.12g", (v48 - v30) / 0.18);
    cr_assert_float_eq(stop, 0.3 + v30 / -a, 2 * DT, "stop at %g s", stop);
    /* Eq. (9b): slide and normal forces act at the contact point, so the angular
     * momentum about it, m x' R + I theta', falls only through the roll torque,
     * which is zero on the first two steps: the disk stops at m v0 R / T + 2 dt,
     * seen on the first step past it. */
    cr_assert_float_eq(stop, MASS * 0.5 * RADIUS / torque + 2 * DT, 1.5 * DT, "stop at %g s", stop);
    cr_assert(rest_steps > 3500); /* from 0.61 s to 1 s */
    cr_assert_eq(flips, rest_steps, "the torque flipped on %d of %d steps", flips, rest_steps);
    cr_assert(max_omega > 0.5 * torque * DT / INERTIA, "not at rest: max |omega| = %g", max_omega);
    fd_scene_free(&r.scene);
}
