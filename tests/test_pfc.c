/* The Itasca PFC linear model and its rolling-resistance extension rrlinear
 * (papers/001; docs/models/pfc.md, docs/validation/pfc_ball.md). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "support/laws.h"
#include "support/support.h"

#define G 9.81
#define RADIUS 0.1
#define MASS 1.0
#define KN 1e6
#define KS 1e6

typedef struct pfc_setup {
    double time_step, gravity, margin;
    double kn, dp_nratio, rgap, dp_mode, lin_mode;
    double ks, fric, dp_sratio;
    double emod, kratio;            /* deformability method: used when emod > 0 / kratio >= 0 */
    double rr_fric;                 /* < 0: no roll model */
    fd_vec3 position, velocity, angular_velocity;
    uint32_t lock_translation, lock_rotation;
} pfc_setup;

static pfc_setup default_setup(void)
{
    pfc_setup s = {
        .time_step = 2e-5,
        .gravity = G,
        .margin = 1e-9,
        .kn = KN,
        .dp_nratio = 0.1,
        .dp_mode = 3.0,
        .ks = KS,
        .fric = 0.5,
        .dp_sratio = 0.1,
        .rr_fric = -1.0,
        .kratio = -1.0,
        /* resting at its equilibrium overlap m g / k_n */
        .position = fd_v3(0, 0, RADIUS - MASS * G / KN),
    };
    return s;
}

/* A ball (body i, created first: n = +z into it) on a static plane. */
static fd_world* make_world(const pfc_setup* s, fd_body_id* ball_id)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = s->time_step;
    def.gravity = fd_v3(0, 0, -s->gravity);
    def.contact_margin = s->margin;
    fd_world* world = fd_world_create(&def);
    fd_material_id m = test_add_material(world, "m");
    fd_contact_law_def law = s->emod > 0.0 ? test_normal_law("pfc_linear", "emod", s->emod)
                                           : test_normal_law("pfc_linear", "kn", s->kn);
    fd_submodel_def* normal = &law.submodel[FD_MECHANISM_NORMAL];
    if (s->kratio >= 0.0) {
        test_add_param(normal, "kratio", s->kratio);
    }
    test_add_param(normal, "dp_nratio", s->dp_nratio);
    test_add_param(normal, "rgap", s->rgap);
    test_add_param(normal, "dp_mode", s->dp_mode);
    test_add_param(normal, "lin_mode", s->lin_mode);
    fd_submodel_def* slide = test_set_model(&law, FD_MECHANISM_SLIDE, "pfc_linear");
    if (s->kratio < 0.0) {
        test_add_param(slide, "ks", s->ks);
    }
    test_add_param(slide, "fric", s->fric);
    test_add_param(slide, "dp_sratio", s->dp_sratio);
    if (s->rr_fric >= 0.0) {
        test_add_param(test_set_model(&law, FD_MECHANISM_ROLL, "pfc_rrlinear"), "rr_fric", s->rr_fric);
    }
    test_set_law(world, m, &law);
    fd_body_def ball = fd_default_body_def();
    ball.name = "ball";
    ball.shape.radius = RADIUS;
    ball.mass = MASS;
    ball.material = m;
    ball.position = s->position;
    ball.velocity = s->velocity;
    ball.angular_velocity = s->angular_velocity;
    ball.lock_translation = s->lock_translation;
    ball.lock_rotation = s->lock_rotation;
    *ball_id = test_create_body(world, &ball);
    test_add_ground(world, m);
    return world;
}

static void step(fd_world* world, fd_contact_view* view)
{
    cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_contact_count(world), 1);
    cr_assert_eq(fd_world_get_contact(world, 0, view), FD_OK);
}

Test(pfc, normal_force_is_kn_times_overlap_plus_rgap_and_zero_beyond_it)
{
    /* No gravity, ball held still (translation locked): one step gives
     * F_n^l = k_n (-g_s) = k_n (overlap + rgap) exactly (absolute mode). */
    const double overlaps[] = {1e-4, 3e-3, 0.0};
    for (int k = 0; k < 3; ++k) {
        pfc_setup s = default_setup();
        s.gravity = 0.0;
        s.position = fd_v3(0, 0, RADIUS - overlaps[k]);
        s.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
        fd_body_id ball;
        fd_world* world = make_world(&s, &ball);
        fd_contact_view view;
        step(world, &view);
        cr_assert_float_eq(view.loads.normal_force, KN * overlaps[k], 1e-9 * KN * 3e-3);
        cr_assert_float_eq(test_column_value(world, &view, "normal_elastic_force"), KN * overlaps[k], 1e-9 * KN * 3e-3);
        cr_assert_float_eq(test_column_value(world, &view, "pfc_strain"), 0.5 * KN * overlaps[k] * overlaps[k], 1e-9);
        fd_world_free(world);
    }
    /* Reference gap 1 mm, surfaces 0.4 mm apart: g_s = 0.4 - 1 mm < 0, active,
     * F = k_n 0.6 mm; at 1.5 mm apart g_s > 0: inactive, no force. */
    const double gaps[] = {4e-4, 1.5e-3};
    const double expected[] = {KN * 6e-4, 0.0};
    for (int k = 0; k < 2; ++k) {
        pfc_setup s = default_setup();
        s.gravity = 0.0;
        s.rgap = 1e-3;
        s.margin = 2e-3;
        s.position = fd_v3(0, 0, RADIUS + gaps[k]);
        s.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
        fd_body_id ball;
        fd_world* world = make_world(&s, &ball);
        fd_contact_view view;
        step(world, &view);
        cr_assert_float_eq(view.loads.normal_force, expected[k], 1e-9 * KN * 1e-3);
        fd_world_free(world);
    }
}

Test(pfc, normal_dashpot_is_critical_ratio_times_approach_speed_and_no_tension_mode_clamps_it)
{
    /* Ball at 1e-4 overlap (F_n^l = 100 N), velocity locked. Approaching at
     * 0.1 m/s: F_n^d = 2 beta_n sqrt(m k_n) u = 2 0.1 1000 0.1 = 20 N, total
     * 120 N. Receding at 1 m/s: F_n^d = -200 N; dp_mode 0 (full) lets the
     * total pull, -100 N; dp_mode 1 (no-tension) clamps it to 0. The force is
     * that of the step's initial state; 3 N tolerance covers any ordering. */
    const double speeds[] = {-0.1, 1.0, 1.0};
    const double modes[] = {0.0, 0.0, 1.0};
    for (int k = 0; k < 3; ++k) {
        pfc_setup s = default_setup();
        s.gravity = 0.0;
        s.dp_mode = modes[k];
        s.position = fd_v3(0, 0, RADIUS - 1e-4);
        s.velocity = fd_v3(0, 0, speeds[k]); /* +z recedes from the plane */
        s.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
        fd_body_id ball;
        fd_world* world = make_world(&s, &ball);
        fd_contact_view view;
        step(world, &view);
        /* The forces belong to the state after the step (overlap 1e-4 - u dt). */
        double overlap = 1e-4 - speeds[k] * s.time_step;
        double elastic = test_column_value(world, &view, "normal_elastic_force");
        double damping = test_column_value(world, &view, "normal_damping_force");
        cr_assert_float_eq(elastic, KN * overlap, 1e-6);
        double dashpot = -2.0 * 0.1 * sqrt(MASS * KN) * speeds[k];
        double total = modes[k] == 0.0 ? elastic + dashpot : fmax(elastic + dashpot, 0.0);
        cr_assert_float_eq(damping, modes[k] == 0.0 ? dashpot : total - elastic, 1e-9, "case %d: %g", k, damping);
        cr_assert_float_eq(view.loads.normal_force, total, 1e-6, "case %d: %g", k, view.loads.normal_force);
        fd_world_free(world);
    }
}

Test(pfc, sliding_ball_reaches_the_coulomb_limit_and_slip_energy_is_the_friction_work)
{
    /* Rotation locked, v0 = 1 m/s, fric 0.3: after the spring loads
     * (k_s dU = 0.3 m g needs ~0.15 ms) the shear force is fric F_n^l with
     * lin_slip = 1, and the ball decelerates at fric g until it stops. */
    pfc_setup s = default_setup();
    s.fric = 0.3;
    s.velocity = fd_v3(1.0, 0, 0);
    s.lock_rotation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    fd_body_id ball;
    fd_world* world = make_world(&s, &ball);
    fd_contact_view view;
    double work = 0.0; /* dissipated work of the linear shear force, -sum F_s . v dt */
    double kinetic0 = 0.5 * MASS * 1.0;
    int steps = (int)(0.25 / s.time_step); /* stops at v0 / (fric g) = 0.34 s */
    for (int k = 0; k < steps; ++k) {
        step(world, &view);
        /* the contact is evaluated at the state after the step */
        work -= test_column_value(world, &view, "pfc_fs_x") * fd_body_get_state(world, ball).velocity.x * s.time_step;
        if (k > 100) {
            double fn = test_column_value(world, &view, "normal_elastic_force");
            cr_assert_eq(test_column_value(world, &view, "lin_slip"), 1.0);
            cr_assert_float_eq(-test_column_value(world, &view, "pfc_fs_x"), 0.3 * fn, 1e-9 * fn);
        }
    }
    fd_body_state state = fd_body_get_state(world, ball);
    double t = steps * s.time_step;
    cr_assert_float_eq(state.velocity.x, 1.0 - 0.3 * G * t, 1e-3);
    double slip = test_column_value(world, &view, "pfc_slip");
    double strain_shear = test_column_value(world, &view, "pfc_strain") -
                          0.5 * pow(test_column_value(world, &view, "normal_elastic_force"), 2) / KN;
    double kinetic = 0.5 * MASS * fd_v3_dot(state.velocity, state.velocity);
    /* Slip energy vs the work of the friction force less the strain stored:
     * the same sum but for the trapezoid (F_o + F)/2 of the manual's update
     * (differs from F only while the spring loads) and the evaluation of the
     * initial forces before the first step, not in `work`; both ~ ks (v0 dt)^2
     * = 4e-4 J at most, relative 1e-3 of the 0.47 J. */
    cr_log_info("sliding: slip %.9g J, friction work less strain %.9g J, kinetic lost less strain %.9g J, "
                "closed %.9g J",
                slip, work - strain_shear,
                kinetic0 - kinetic - strain_shear - test_column_value(world, &view, "pfc_dashpot"),
                0.3 * MASS * G * (t - 0.5 * 0.3 * G * t * t));
    cr_assert(fabs(slip - (work - strain_shear)) < 1e-3 * work, "slip %.9g work %.9g strain %.3g", slip, work,
              strain_shear);
    /* Against the kinetic energy lost: symplectic Euler's energy error is
     * O(dt) per unit time, here (fric g dt)/v ~ 6e-5 relative; the normal and
     * shear dashpots (dp_mode 3: shear cut while slipping) take ~0. */
    double lost = kinetic0 - kinetic - strain_shear - test_column_value(world, &view, "pfc_dashpot");
    cr_assert(fabs(slip - lost) < 1e-3 * slip, "slip %.9g, kinetic lost less strain %.9g", slip, lost);
    /* Closed form: fric m g times the distance slid, v0 t - fric g t^2 / 2. */
    double closed = 0.3 * MASS * G * (t - 0.5 * 0.3 * G * t * t);
    cr_assert(fabs(slip - closed) < 2e-3 * closed, "slip %.9g closed form %.9g", slip, closed);
    fd_world_free(world);
}

/* The manual's verification: a ball sliding and rolling on a flat surface.
 * v0 = 2 m/s, no spin, fric 0.5, rr_fric 0.1. Closed form (docs/validation/
 * pfc_ball.md): sliding until t1 = 2 v0 / ((7 mu - 5 mu_r) g), leaving
 * v1 = 5 v0 (mu - mu_r) / (7 mu - 5 mu_r); then rolling with deceleration
 * a = 5 mu_r g / 7 until t2 = t1 + v1 / a; then at rest. */
Test(pfc, rrlinear_ball_slides_then_rolls_at_five_sevenths_mu_r_g_then_rests)
{
    const double mu = 0.5, mu_r = 0.1, v0 = 2.0;
    pfc_setup s = default_setup();
    s.fric = mu;
    s.rr_fric = mu_r;
    s.velocity = fd_v3(v0, 0, 0);
    s.lock_translation = FD_LOCK_Y;
    s.lock_rotation = FD_LOCK_X | FD_LOCK_Z;
    fd_body_id ball;
    fd_world* world = make_world(&s, &ball);
    double t1 = 2.0 * v0 / ((7.0 * mu - 5.0 * mu_r) * G);
    double v1 = 5.0 * v0 * (mu - mu_r) / (7.0 * mu - 5.0 * mu_r);
    double a = 5.0 * mu_r * G / 7.0;
    double t2 = t1 + v1 / a;
    double x1 = v0 * t1 - 0.5 * mu * G * t1 * t1;
    double x2 = x1 + 0.5 * v1 * v1 / a;

    fd_contact_view view;
    double t = 0.0, slip_end_slide = NAN, rrslip_at_t1 = NAN, rrstrain_at_t1 = NAN, strain_at_t1 = NAN;
    double kinetic_at_t1 = NAN, dashpot_at_t1 = NAN, rr_work_rolling = 0.0;
    double fit_n = 0, fit_t = 0, fit_v = 0, fit_tt = 0, fit_tv = 0; /* least squares v(t) while rolling */
    int steps = (int)((t2 + 0.3) / s.time_step);
    double x_stop = NAN, t_stop = NAN;
    for (int k = 0; k < steps; ++k) {
        step(world, &view);
        t += s.time_step;
        fd_body_state state = fd_body_get_state(world, ball);
        double slipping = test_column_value(world, &view, "lin_slip");
        if (t > 1e-3 && t < t1 - 1e-3) {
            cr_assert_eq(slipping, 1.0, "t = %g: sliding phase", t);
            cr_assert_eq(test_column_value(world, &view, "rr_slip"), 1.0, "t = %g", t);
        }
        if (t > t1 + 0.02 && t < t2 - 0.02) {
            cr_assert_eq(slipping, 0.0, "t = %g: rolling phase", t);
            cr_assert_eq(test_column_value(world, &view, "rr_slip"), 1.0, "t = %g", t);
            /* M* = mu_r R F_n^l, against the rolling (omega_y > 0 for +x) */
            double fn = test_column_value(world, &view, "normal_elastic_force");
            cr_assert_float_eq(test_column_value(world, &view, "rr_moment_y"), -mu_r * RADIUS * fn, 1e-9 * fn);
            rr_work_rolling -= test_column_value(world, &view, "rr_moment_y") * state.angular_velocity.y * s.time_step;
            fit_n += 1;
            fit_t += t;
            fit_v += state.velocity.x;
            fit_tt += t * t;
            fit_tv += t * state.velocity.x;
        }
        if (isnan(slip_end_slide) && t >= t1 + 0.02) {
            slip_end_slide = test_column_value(world, &view, "pfc_slip");
            rrslip_at_t1 = test_column_value(world, &view, "pfc_rrslip");
            rrstrain_at_t1 = test_column_value(world, &view, "pfc_rrstrain");
            strain_at_t1 = test_column_value(world, &view, "pfc_strain");
            dashpot_at_t1 = test_column_value(world, &view, "pfc_dashpot");
            kinetic_at_t1 = 0.5 * MASS * state.velocity.x * state.velocity.x +
                            0.5 * 0.4 * MASS * RADIUS * RADIUS * state.angular_velocity.y * state.angular_velocity.y;
            cr_assert_float_eq(state.velocity.x, v1 - a * 0.02, 2e-3 * v1, "v(t1) = %g vs %g", state.velocity.x, v1);
        }
        if (isnan(t_stop) && state.velocity.x <= 0.0) {
            t_stop = t;
            x_stop = state.position.x;
        }
    }
    double slope = (fit_n * fit_tv - fit_t * fit_v) / (fit_n * fit_tt - fit_t * fit_t);
    cr_log_info("rrlinear: deceleration %.7g vs %.7g; stop %.7g s vs %.7g s; distance %.7g m vs %.7g m", -slope, a,
                t_stop, t2, x_stop, x2);
    cr_assert(fabs(-slope - a) < 1e-3 * a, "rolling deceleration %.6g vs 5 mu_r g / 7 = %.6g", -slope, a);
    cr_assert(fabs(t_stop - t2) < 2e-3 * t2, "stop at %.6g s vs %.6g s", t_stop, t2);
    cr_assert(fabs(x_stop - x2) < 2e-3 * x2, "stopping distance %.6g m vs %.6g m", x_stop, x2);
    /* At rest after it (the rolling spring holds the ball; elastic rocking
     * of amplitude ~ M* / k_r ~ 1e-5 rad). */
    fd_body_state rest = fd_body_get_state(world, ball);
    cr_assert(fabs(rest.velocity.x) < 1e-3, "v = %g at t2 + 0.3 s", rest.velocity.x);
    cr_assert(fabs(rest.position.x - x2) < 2e-3 * x2);

    /* Energy partitions. Sliding: slip energy is fric F_n times the slid
     * distance v0 t1 / 2 (slip speed falls linearly from v0 to 0):
     * mu m v0^2 / (7 mu - 5 mu_r). Rolling resistance while sliding: M* times
     * the rotation, M* omega_dot t1^2 / 2 with omega_dot = 5 (mu - mu_r) g / (2R). */
    double slip_closed = mu * MASS * v0 * v0 / (7.0 * mu - 5.0 * mu_r);
    cr_assert(fabs(slip_end_slide - slip_closed) < 2e-3 * slip_closed, "slip %.6g vs %.6g", slip_end_slide,
              slip_closed);
    /* (taken at t1 + 0.02 s: plus M* times the rotation rolled since t1) */
    double rr_closed_t1 = mu_r * RADIUS * MASS * G *
                          (0.5 * 2.5 * (mu - mu_r) * G / RADIUS * t1 * t1 +
                           (v1 * 0.02 - 0.5 * a * 0.02 * 0.02) / RADIUS);
    cr_assert(fabs(rrslip_at_t1 - rr_closed_t1) < 1e-2 * rr_closed_t1, "rrslip(t1) %.6g vs %.6g", rrslip_at_t1,
              rr_closed_t1);
    /* Balance over the sliding phase: kinetic energy lost less the strain
     * stored = slip + rrslip + dashpot (tolerance: symplectic Euler O(dt)). */
    double kinetic0 = 0.5 * MASS * v0 * v0;
    double strain0 = 0.5 * MASS * G * MASS * G / KN;
    double lost = kinetic0 - kinetic_at_t1 - (strain_at_t1 - strain0) - rrstrain_at_t1;
    double dissipated = slip_end_slide + rrslip_at_t1 + dashpot_at_t1;
    cr_assert(fabs(lost - dissipated) < 2e-3 * dissipated, "kinetic lost less strain %.6g vs dissipated %.6g", lost,
              dissipated);
    /* Rolling phase: rrslip increment = the moment's work, and = the kinetic
     * energy lost (the slip energy does not grow: no slip while rolling). */
    double kinetic_end = 0.5 * MASS * rest.velocity.x * rest.velocity.x;
    double rrslip_gain = test_column_value(world, &view, "pfc_rrslip") - rrslip_at_t1;
    double slip_gain = test_column_value(world, &view, "pfc_slip") - slip_end_slide;
    cr_assert(fabs(slip_gain) < 1e-6 * slip_closed, "slip energy grew by %g while rolling", slip_gain);
    double rolled_closed = mu_r * RADIUS * MASS * G * (x2 - x1 - v1 * 0.02 + 0.5 * a * 0.02 * 0.02) / RADIUS;
    cr_assert(fabs(rrslip_gain - rolled_closed) < 3e-3 * rolled_closed, "rrslip gain %.6g vs %.6g", rrslip_gain,
              rolled_closed);
    double rolling_lost = kinetic_at_t1 - kinetic_end - test_column_value(world, &view, "pfc_rrstrain") -
                          (test_column_value(world, &view, "pfc_strain") - strain_at_t1) + rrstrain_at_t1 -
                          (test_column_value(world, &view, "pfc_dashpot") - dashpot_at_t1);
    cr_log_info("rrlinear: slip(t1+) %.7g vs %.7g; rrslip(t1+) %.7g vs %.7g; lost %.7g vs dissipated %.7g; "
                "rolling: rrslip gain %.7g vs closed %.7g vs kinetic lost %.7g",
                slip_end_slide, slip_closed, rrslip_at_t1, rr_closed_t1, lost, dissipated, rrslip_gain, rolled_closed,
                rolling_lost);
    cr_assert(fabs(rrslip_gain - rolling_lost) < 3e-3 * rrslip_gain, "rrslip gain %.6g vs kinetic lost %.6g",
              rrslip_gain, rolling_lost);
    cr_assert(rr_work_rolling > 0.0);
    fd_world_free(world);
}

Test(pfc, combinations_are_checked)
{
    fd_contact_law_def law = test_normal_law("hooke", "k_n", 1e5);
    fd_submodel_def* slide = test_set_model(&law, FD_MECHANISM_SLIDE, "pfc_linear");
    test_add_param(slide, "ks", 1e5);
    test_add_param(slide, "fric", 0.3);
    cr_assert_neq(test_law_status(&law), FD_OK);
    cr_assert(strstr(fd_last_error(), "needs normal model 'pfc_linear'") != NULL, "%s", fd_last_error());
    fd_submodel_def* normal = test_set_model(&law, FD_MECHANISM_NORMAL, "pfc_linear");
    test_add_param(normal, "kn", 1e5);
    test_add_param(normal, "dp_mode", 1.5);
    cr_assert_neq(test_law_status(&law), FD_OK);
    cr_assert(strstr(fd_last_error(), "dp_mode") != NULL, "%s", fd_last_error());
    normal->param_count = 1;
    cr_assert_eq(test_law_status(&law), FD_OK, "%s", fd_last_error());
}

Test(pfc, incremental_normal_update_follows_the_overlap_and_takes_no_tension)
{
    /* lin_mode 1 from first touch (zero overlap), approaching at 0.01 m/s
     * (velocity locked, no dashpot): F_n^l := F_o + k_n u dt each step, so
     * it grows by k_n times the overlap increment, as the absolute update;
     * it leads k_n overlap by one increment k_n u dt, the one taken when the
     * contact is first evaluated (the initial forces, at zero overlap: the
     * update counts the step's displacement from the velocity). Then
     * receding: the force falls back and stays at 0, never pulling. */
    pfc_setup s = default_setup();
    s.gravity = 0.0;
    s.dp_nratio = 0.0;
    s.lin_mode = 1.0;
    s.margin = 1e-6;
    s.position = fd_v3(0, 0, RADIUS);
    s.velocity = fd_v3(0, 0, -0.01);
    s.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    fd_body_id ball;
    fd_world* world = make_world(&s, &ball);
    fd_contact_view view;
    double previous_force = 0.0, previous_overlap = 0.0;
    for (int k = 0; k < 100; ++k) {
        step(world, &view);
        if (k > 0) {
            cr_assert_float_eq(view.loads.normal_force - previous_force,
                               KN * (view.geometry.penetration - previous_overlap), 1e-9);
        }
        previous_force = view.loads.normal_force;
        previous_overlap = view.geometry.penetration;
    }
    double overlap = view.geometry.penetration, increment = KN * 0.01 * s.time_step;
    cr_assert_float_eq(view.loads.normal_force, KN * overlap + increment, 1e-9, "%g vs %g",
                       view.loads.normal_force, KN * overlap + increment);
    fd_body_state state = fd_body_get_state(world, ball);
    state.velocity = fd_v3(0, 0, 0.01);
    cr_assert_eq(fd_body_set_state(world, ball, &state), FD_OK);
    for (int k = 0; k < 150 && fd_world_contact_count(world) == 1; ++k) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        if (fd_world_contact_count(world) == 1) {
            cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
            cr_assert(view.loads.normal_force >= 0.0);
            cr_assert(view.loads.normal_force <= KN * fmax(view.geometry.penetration, 0.0) + increment + 1e-9);
        }
    }
    fd_world_free(world);
}

Test(pfc, deformability_method_sets_kn_from_emod_and_ks_from_kratio)
{
    /* PFC linear model, deformability: k_n = A E* / L with A = pi r^2,
     * r = min(R1, R2), L = R1 + R2, or L = R1 against a facet; k_s = k_n /
     * kratio. Ball R = 0.1 m on the plane, E* = 1e8 Pa: k_n = pi R E* =
     * 3.1416e7 N/m; kratio 2.5: k_s = 1.2566e7 N/m. Held at 0.1 mm overlap
     * and slid at 1 mm/s for one step: F_n = k_n 1e-4, F_s = -k_s v dt.
     * Exact to round-off (1e-12 relative). */
    pfc_setup s = default_setup();
    s.gravity = 0.0;
    s.emod = 1e8;
    s.kratio = 2.5;
    s.dp_nratio = 0.0;
    s.dp_sratio = 0.0;
    s.position = fd_v3(0, 0, RADIUS - 1e-4);
    s.velocity = fd_v3(1e-3, 0, 0);
    s.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    s.lock_rotation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    fd_body_id ball;
    fd_world* world = make_world(&s, &ball);
    fd_contact_view view;
    step(world, &view);
    double kn = FD_PI * RADIUS * 1e8;
    cr_assert_float_eq(view.loads.normal_force, kn * 1e-4, 1e-12 * kn * 1e-4);
    /* two increments: the force pass of prepare and that of the step */
    cr_assert_float_eq(view.loads.slide_force.x, -2.0 * kn / 2.5 * 1e-3 * s.time_step, 1e-12 * kn * 1e-3 * s.time_step,
                       "%g", view.loads.slide_force.x / (-kn / 2.5 * 1e-3 * s.time_step));
    /* A ball with every translation and rotation locked cannot oscillate:
     * no critical step. */
    cr_assert(isinf(fd_world_critical_time_step(world)), "%g", fd_world_critical_time_step(world));
    fd_world_free(world);
    /* Free, the critical step (docs/models/critical-step.md, one contact, no
     * dashpot) uses the same k_n on 1/m and k_s = k_n / kratio on the
     * mobility of the contact point, 1/m + R^2/I = 3.5/m for a sphere:
     * 2 / sqrt((k_n + 3.5 k_s) / m). Round-off only (1e-12 relative). */
    s.lock_translation = 0;
    s.lock_rotation = 0;
    world = make_world(&s, &ball);
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    double expected = 2.0 / sqrt((kn + 3.5 * kn / 2.5) / MASS);
    cr_assert_float_eq(fd_world_critical_time_step(world), expected, 1e-12 * expected, "%g",
                       fd_world_critical_time_step(world));
    fd_world_free(world);
}

Test(pfc, deformability_between_two_balls_uses_the_smaller_radius_and_the_sum)
{
    /* Balls of 0.1 m and 0.05 m: r = 0.05, L = 0.15, k_n = pi 0.05^2 E* / 0.15.
     * Held at 0.1 mm overlap, no gravity, one step: F_n = k_n 1e-4. */
    fd_world_def def = fd_default_world_def();
    def.gravity = fd_v3(0, 0, 0);
    def.time_step = 1e-6;
    fd_world* world = fd_world_create(&def);
    fd_material_id m = test_add_material(world, "m");
    fd_contact_law_def law = test_normal_law("pfc_linear", "emod", 1e8);
    test_set_law(world, m, &law);
    double radii[2] = {0.1, 0.05};
    double x[2] = {0.0, 0.15 - 1e-4};
    for (int k = 0; k < 2; ++k) {
        fd_body_def ball = fd_default_body_def();
        ball.shape.radius = radii[k];
        ball.material = m;
        ball.position = fd_v3(x[k], 0, 0);
        ball.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
        test_create_body(world, &ball);
    }
    cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
    double kn = FD_PI * 0.05 * 0.05 * 1e8 / 0.15;
    cr_assert_float_eq(view.loads.normal_force, kn * 1e-4, 1e-9 * kn * 1e-4); /* overlap 1e-4 from x: ~1e-12 m */
    fd_world_free(world);
}

Test(pfc, deformability_and_explicit_stiffness_are_exclusive)
{
    const test_refused_params cases[] = {
        {{"kn", "emod"}, {1e6, 1e8}, 2, "give kn or emod, not both"},
        {{"dp_nratio"}, {0.1}, 1, "needs kn (N/m), or emod (Pa)"},
    };
    for (int k = 0; k < 2; ++k) {
        fd_contact_law_def law = test_normal_law("pfc_linear", NULL, 0.0);
        for (int p = 0; p < cases[k].count; ++p) {
            test_add_param(&law.submodel[FD_MECHANISM_NORMAL], cases[k].names[p], cases[k].values[p]);
        }
        cr_assert_neq(test_law_status(&law), FD_OK);
        cr_assert(strstr(fd_last_error(), cases[k].message) != NULL, "%s", fd_last_error());
    }
    /* ks and kratio together: refused when the law's sub-models are checked together */
    fd_contact_law_def law = test_normal_law("pfc_linear", "kn", 1e6);
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "kratio", 2.0);
    fd_submodel_def* slide = test_set_model(&law, FD_MECHANISM_SLIDE, "pfc_linear");
    test_add_param(slide, "ks", 1e6);
    test_add_param(slide, "fric", 0.5);
    cr_assert_neq(test_law_status(&law), FD_OK);
    cr_assert(strstr(fd_last_error(), "give ks or the normal model's kratio, not both") != NULL, "%s", fd_last_error());
}

/* A material of its own PFC law: kn, ks, fric, rr_fric given. */
static fd_material_id add_material_with_own_law(fd_world* world, const char* name, double kn, double fric,
                                                double rr_fric, double dp_nratio)
{
    fd_material_id m = test_add_material(world, name);
    fd_contact_law_def law = test_normal_law("pfc_linear", "kn", kn);
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "dp_nratio", dp_nratio);
    fd_submodel_def* slide = test_set_model(&law, FD_MECHANISM_SLIDE, "pfc_linear");
    test_add_param(slide, "ks", kn);
    test_add_param(slide, "fric", fric);
    test_add_param(test_set_model(&law, FD_MECHANISM_ROLL, "pfc_rrlinear"), "rr_fric", rr_fric);
    test_set_law(world, m, &law);
    return m;
}

Test(pfc, a_pair_without_a_law_inherits_springs_in_series_and_the_smaller_frictions)
{
    /* Ball of material "b" (kn = ks = 3e6, fric 0.3, rr_fric 0.05) on a plane
     * of "a" (1e6, 0.5, 0.1), no law for (a, b): it inherits k = k_a k_b /
     * (k_a + k_b) = 7.5e5 N/m, mu = min = 0.3, mu_r = min = 0.05 (papers/001
     * Eq. 11). Held at 0.1 mm overlap and dragged at 1 m/s (sliding from the
     * first step): F_n = 75 N, |F_s| = 0.3 F_n, |M| = 0.05 R F_n once the
     * spin-locked ball's roll spring is capped. Exact to round-off. */
    fd_world_def def = fd_default_world_def();
    def.gravity = fd_v3(0, 0, 0);
    def.time_step = 1e-5;
    def.contact_margin = 1e-9;
    fd_world* world = fd_world_create(&def);
    fd_material_id a = add_material_with_own_law(world, "a", 1e6, 0.5, 0.1, 0.0);
    fd_material_id b = add_material_with_own_law(world, "b", 3e6, 0.3, 0.05, 0.0);
    fd_body_def ball = test_sphere_def(b, NULL, RADIUS, fd_v3(0, 0, RADIUS - 1e-4), fd_v3(1.0, 0, 0));
    ball.angular_velocity = fd_v3(0, 50.0, 0); /* rolling too fast: the roll spring caps at once */
    ball.lock_translation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    ball.lock_rotation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    test_create_body(world, &ball);
    test_add_ground(world, a);
    fd_contact_view view;
    for (int s = 0; s < 3; ++s) {
        step(world, &view);
    }
    double normal = 7.5e5 * 1e-4;
    cr_assert_float_eq(view.loads.normal_force, normal, 1e-12 * normal);
    cr_assert_float_eq(fd_v3_length(view.loads.slide_force), 0.3 * normal, 1e-12 * normal);
    cr_assert_float_eq(fd_v3_length(view.loads.roll_torque_i), 0.05 * RADIUS * normal, 1e-12 * normal);
    fd_world_free(world);
}

Test(pfc, inheritance_refuses_parameters_pfc_does_not_inherit)
{
    fd_world_def def = fd_default_world_def();
    fd_world* world = fd_world_create(&def);
    fd_material_id a = add_material_with_own_law(world, "a", 1e6, 0.5, 0.1, 0.1);
    fd_material_id b = add_material_with_own_law(world, "b", 1e6, 0.5, 0.1, 0.2);
    test_add_sphere(world, b, NULL, RADIUS, fd_v3(0, 0, 1.0), fd_v3(0, 0, 0));
    test_add_ground(world, a);
    cr_assert_neq(fd_world_prepare(world), FD_OK);
    cr_assert(strstr(fd_last_error(), "no contact law for materials 'a' and 'b'") != NULL, "%s", fd_last_error());
    cr_assert(strstr(fd_last_error(), "'dp_nratio'") != NULL, "%s", fd_last_error());
    fd_world_free(world);
}
