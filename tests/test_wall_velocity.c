/* A moving wall's surface velocity in every friction model (issue 12): a
 * sphere at rest on a wall that starts turning at once (no ramp) is dragged
 * along the wall's surface velocity omega x (r_contact - axis point); while
 * it slips the drag is the kinetic force mu_k N; and once it has caught up,
 * its surface moves with the wall's at the contact point. For each friction
 * family of tests/wall_laws.h:
 *
 *   - a drum (a cylindrical shell, axis horizontal) turning about its axis,
 *     the sphere at its bottom: the surface velocity is tangent to the shell
 *     in the plane across the axis, and the sphere slips until its contact
 *     point has caught up (about 2 V / (7 mu_k g) = 5 ms, longer as it
 *     climbs). The velocity must be the wall's at the contact point, omega R:
 *     at the sphere's centre it would be omega (R - r), 20% less;
 *   - a flat annulus spinning about its own axis under a sphere off the axis:
 *     the surface velocity omega x (r - axis) has a direction that depends on
 *     where the contact is (at the wall's position it would be zero).
 *
 * Tolerances.
 *   Direction on the drum: the friction force and the surface velocity are
 *   both tangent to the shell in the plane across the axis, parallel up to
 *   round-off, so the test is on the sign (a force against the wall's motion
 *   gives a cosine of -1): cosine >= 1 - 1e-12, over the first 10 steps and
 *   every slipping step.
 *   Direction on the annulus, over the first 10 steps (1e-4 s): the models
 *   carry their springs in frames that turn with the bodies (fang_negrut's
 *   painted points and contact frame, the pfc shear force; the sds springs
 *   are projected and, in D-SDS, reset with the dashpot term, which lets the
 *   force lead the turning slip velocity by gamma |v| / F of its turn), so
 *   the drag may be off the surface velocity by up to what the wall turned,
 *   omega t = 3e-4 rad; 1e-3 rad (measured: 1e-4 fang_negrut, 1e-5 dsds,
 *   1e-8 csds). A drag against the motion or across it would be pi or pi/2
 *   off.
 *   Magnitude while slipping: mindlin and fang_negrut cap at mu_s N in the
 *   step that starts in stick and switches (Fang & Negrut Sec. 3.1, "the mode
 *   the step starts in"), so the kinetic force is checked on the steps that
 *   start slipping; every family caps at mu_k times the normal force it is
 *   given (pfc: its linear part; the dashpots that act on top in stick are
 *   off in slip): one multiplication and a rescaling, 1e-12 relative.
 *   Caught up: 30 ms after the start the remaining slip is the stuck spring's
 *   settling (measured below 5e-4 of the surface speed); 1e-2 of it is 20
 *   times below what a velocity taken at the centre would leave on the drum,
 *   100 times below a wall velocity left out. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/math.h"
#include "support/support.h"
#include "support/wall_laws.h"

#define PI 3.14159265358979323846
#define RADIUS 0.01
#define DENSITY 2000.0
#define K_N 1e4
#define G 9.81
#define DT 1e-5
#define MU_S 0.6
#define MU_K 0.4 /* the one coefficient of dsds, csds and pfc */

static double sphere_mass(void) { return DENSITY * 4.0 / 3.0 * PI * RADIUS * RADIUS * RADIUS; }

typedef struct rig {
    fd_world* world;
    fd_body_id ball, wall;
} rig;

/* A world with the wall `wall` (static) turning at omega about its position
 * from t = 0, and a ball at rest at `position`. */
static rig make_rig(const wall_family* family, fd_body_def wall, fd_vec3 omega, fd_vec3 position)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = DT;
    def.gravity = fd_v3(0, 0, -G);
    rig r = {.world = fd_world_create(&def)};
    cr_assert_not_null(r.world, "%s", fd_last_error());
    fd_material_def material = fd_default_material_def();
    material.name = "steel";
    material.density = DENSITY;
    material.youngs_modulus = 1e8;
    material.poisson_ratio = 0.3;
    fd_material_id steel = fd_world_create_material(r.world, &material);
    cr_assert(!fd_material_id_is_null(steel), "%s", fd_last_error());
    fd_contact_law_def law = wall_family_law(family, K_N, MU_S, MU_K, sphere_mass(), RADIUS, false);
    cr_assert_eq(fd_world_set_contact_law(r.world, steel, steel, &law), FD_OK, "%s: %s", family->name,
                 fd_last_error());
    wall.type = FD_BODY_STATIC;
    wall.material = steel;
    r.wall = fd_world_create_body(r.world, &wall);
    cr_assert(!fd_body_id_is_null(r.wall), "%s", fd_last_error());
    fd_wall_motion motion = fd_default_wall_motion();
    motion.angular_velocity = omega;
    cr_assert_eq(fd_world_set_wall_motion(r.world, r.wall, &motion), FD_OK, "%s", fd_last_error());
    fd_body_def ball = fd_default_body_def();
    ball.name = "ball";
    ball.material = steel;
    ball.shape.radius = RADIUS;
    ball.position = position;
    r.ball = fd_world_create_body(r.world, &ball);
    cr_assert(!fd_body_id_is_null(r.ball), "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(r.world), FD_OK, "%s: %s", family->name, fd_last_error());
    return r;
}

/* The overlap under the load N on a wall whose Hertz radius with the ball is
 * R_e (Hooke and pfc_linear: N / k_n; Hertz: Johnson Eq. 4.23 with E* =
 * E / (2 (1 - nu^2))): the ball starts there, without a bounce. */
static double static_overlap(const wall_family* family, double load, double effective_radius)
{
    if (strcmp(family->model[FD_MECHANISM_NORMAL], "hertz") == 0) {
        double modulus = 1e8 / (2.0 * (1.0 - 0.3 * 0.3));
        return pow(3.0 * load / (4.0 * modulus * sqrt(effective_radius)), 2.0 / 3.0);
    }
    return load / K_N;
}

/* What one step shows of the drag: the friction force on the ball, the
 * wall's surface velocity at the contact point, whether the slide slips and
 * the normal force its cap is a multiple of. */
typedef struct drag {
    fd_vec3 force, surface_velocity;
    fd_vec3 slip; /* the ball's surface velocity at the contact point minus the wall's */
    bool slipping;
    double cap_normal;
} drag;

/* What the steps of a drag add up to: the steps that slipped after a
 * slipping step (kinetic), the largest departure of their force from mu_k N
 * (relative), and the last step's slip over the wall's surface speed. */
typedef struct slip_record {
    int kinetic_steps;
    bool was_slipping;
    double worst_cap, final_slip;
} slip_record;

static void record_slip(slip_record* record, const drag* d)
{
    if (d->slipping && record->was_slipping) {
        ++record->kinetic_steps;
        double cap = MU_K * d->cap_normal;
        record->worst_cap = fmax(record->worst_cap, fabs(fd_v3_length(d->force) - cap) / cap);
    }
    record->was_slipping = d->slipping;
    record->final_slip = fd_v3_length(d->slip) / fd_v3_length(d->surface_velocity);
}

static drag step_drag(const rig* r, const wall_family* family, fd_vec3 omega, int step)
{
    cr_assert_eq(fd_world_step(r->world), FD_OK, "%s: %s", family->name, fd_last_error());
    cr_assert_eq(fd_world_contact_count(r->world), 1, "%s: %d contacts at step %d", family->name,
                 fd_world_contact_count(r->world), step);
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(r->world, 0, &view), FD_OK, "%s", fd_last_error());
    /* slide_force acts on body i: the wall, made first */
    cr_assert_eq(view.body_i.index1, r->wall.index1);
    drag d;
    d.force = fd_v3_neg(view.loads.slide_force);
    fd_vec3 axis_point = fd_body_get_state(r->world, r->wall).position;
    d.surface_velocity = fd_v3_cross(omega, fd_v3_sub(view.geometry.point_i, axis_point));
    fd_body_state ball = fd_body_get_state(r->world, r->ball);
    fd_vec3 arm = fd_v3_sub(view.geometry.point_i, ball.position);
    d.slip = fd_v3_sub(fd_v3_add(ball.velocity, fd_v3_cross(ball.angular_velocity, arm)), d.surface_velocity);
    d.slipping = test_column_value(r->world, &view, family->slipping_column) == 1.0;
    d.cap_normal = family->cap_normal_column != NULL
                       ? test_column_value(r->world, &view, family->cap_normal_column)
                       : view.loads.normal_force;
    return d;
}

static double cosine(fd_vec3 a, fd_vec3 b) { return fd_v3_dot(a, b) / (fd_v3_length(a) * fd_v3_length(b)); }

/* ---------------------------------------------------------------- the drum */

Test(wall_velocity, a_drum_that_starts_turning_drags_the_sphere_at_its_bottom_at_the_kinetic_force)
{
    /* Drum radius R = 0.05 m, axis world x (body z turned onto it), turning
     * at omega = 2 rad/s: at the bottom the surface moves at omega R =
     * 0.1 m/s along +y. The ball, at rest at the static overlap under its
     * weight, is dragged along +y at once, slips for 4 to 7 ms (the families'
     * stiffness and damping differ) and then rolls with the drum. */
    const double drum_radius = 0.05;
    const fd_vec3 omega = fd_v3(2.0, 0, 0);
    double m = sphere_mass();
    /* Hertz's radius of the concave contact (tests/test_mesh_contact.c) */
    double effective_radius = 1.0 / sqrt((1.0 / RADIUS - 1.0 / drum_radius) / RADIUS);
    for (int f = 0; f < WALL_FAMILY_COUNT; ++f) {
        const wall_family* family = &wall_families[f];
        fd_body_def drum = fd_default_body_def();
        drum.name = "drum";
        drum.orientation = fd_quat_from_axis_angle(fd_v3(0, 1, 0), 0.5 * PI);
        drum.shape.type = FD_SHAPE_CYLINDER;
        drum.shape.radius = drum_radius;
        drum.shape.length = 0.1;
        double overlap = static_overlap(family, m * G, effective_radius);
        rig r = make_rig(family, drum, omega, fd_v3(0, 0, -(drum_radius - RADIUS + overlap)));
        slip_record slip = {0, false, 0.0, 0.0};
        double worst_cosine = 1.0;
        for (int s = 1; s <= 3000; ++s) {
            drag d = step_drag(&r, family, omega, s);
            if (s <= 10 || d.slipping) {
                worst_cosine = fmin(worst_cosine, cosine(d.force, d.surface_velocity));
            }
            record_slip(&slip, &d);
        }
        cr_expect_geq(slip.kinetic_steps, 300, "%s: slipped only %d steps", family->name, slip.kinetic_steps);
        cr_expect_geq(worst_cosine, 1.0 - 1e-12, "%s: the drag is %.3g rad off the drum's surface velocity",
                      family->name, acos(fmin(worst_cosine, 1.0)));
        cr_expect_leq(slip.worst_cap, 1e-12, "%s: slipping force off mu_k N by %.3g of it", family->name,
                      slip.worst_cap);
        cr_expect_leq(slip.final_slip, 1e-2, "%s: after 30 ms the ball still slips at %.3g of the drum's surface speed",
                      family->name, slip.final_slip);
        fd_world_free(r.world);
    }
}

/* ---------------------------------------------------------------- the spinning annulus */

Test(wall_velocity, an_annulus_spinning_under_a_sphere_drags_it_along_omega_cross_r)
{
    /* An annulus (radii 0.01 and 0.1 m) in the plane z = 0, spinning at
     * omega = 3 rad/s about its own axis z; the ball at rest at (0.03, 0.02),
     * rho = 0.036 m from the axis: the surface under it moves at
     * 3 (-0.02, 0.03, 0) m/s, 0.108 m/s. The drag points along it over the
     * first 10 steps (1e-3 rad, see the top), equals mu_k N while the ball
     * slips (4 to 8 ms), and then the ball's surface moves with the
     * turntable's at the contact. */
    const fd_vec3 omega = fd_v3(0, 0, 3.0);
    double m = sphere_mass();
    for (int f = 0; f < WALL_FAMILY_COUNT; ++f) {
        const wall_family* family = &wall_families[f];
        fd_body_def disk = fd_default_body_def();
        disk.name = "turntable";
        disk.shape.type = FD_SHAPE_DISK;
        disk.shape.radius = 0.1;
        disk.shape.inner_radius = 0.01;
        double overlap = static_overlap(family, m * G, RADIUS);
        rig r = make_rig(family, disk, omega, fd_v3(0.03, 0.02, RADIUS - overlap));
        slip_record slip = {0, false, 0.0, 0.0};
        double worst_angle = 0.0;
        for (int s = 1; s <= 3000; ++s) {
            drag d = step_drag(&r, family, omega, s);
            if (s <= 10) {
                worst_angle = fmax(worst_angle, acos(fmin(cosine(d.force, d.surface_velocity), 1.0)));
            }
            record_slip(&slip, &d);
        }
        cr_expect_geq(slip.kinetic_steps, 300, "%s: slipped only %d steps", family->name, slip.kinetic_steps);
        cr_expect_leq(worst_angle, 1e-3, "%s: the drag is %.3g rad off omega x r", family->name, worst_angle);
        cr_expect_leq(slip.worst_cap, 1e-12, "%s: slipping force off mu_k N by %.3g of it", family->name,
                      slip.worst_cap);
        cr_expect_leq(slip.final_slip, 1e-2, "%s: after 30 ms the ball still slips at %.3g of the turntable's speed",
                      family->name, slip.final_slip);
        fd_world_free(r.world);
    }
}
