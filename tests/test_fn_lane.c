/* Fang & Negrut's sphere lanes (src/contact/fang_negrut_lane.h) against the
 * model's registry kernels, bit for bit. The penalty stepper takes every
 * sphere-sphere contact of a lane law through the lanes, and a contact a
 * lane marks for the registry through fang_negrut.c: the two must give the
 * same bits, or the motion would depend on how a contact was evaluated (and
 * on what was written when: a pass that records runs the registry's path
 * for the record). On random contacts (sticking and slipping in every
 * mechanism, turned bodies, a static body, a sphere on a plane either way
 * round, every law option the lanes take), each lane's force, torques, springs and slip states equal what
 * fd_normal_evaluate and fd_friction_evaluate give with the geometry and
 * torque arms the stepper's registry path builds (round_pair.c,
 * contact_details.c), exactly. End to end, tests/test_penalty.c's piles with
 * Fang & Negrut check that threads, records and the ledger change no bit. */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "collide/collide.h"
#include "contact/fang_negrut_lane.h"
#include "contact/model.h"
#include "core/math.h"
#include "support/registry.h"

/* A sub-model's parameters, (name, value) pairs up to the first without a
 * name: each pair reads as it would in a scene, and there is no count to
 * keep in step with the list. */
#define LANE_MAX_PARAMS 6

static fd_submodel_def model_def(const char* model, const fd_param* params)
{
    fd_submodel_def def;
    memset(&def, 0, sizeof def);
    def.model = model;
    for (int k = 0; k < LANE_MAX_PARAMS && params[k].name != NULL; ++k) {
        def.params[def.param_count++] = params[k];
    }
    return def;
}

typedef struct lane_case {
    const char* name;
    const char* normal;             /* hooke or hertz */
    fd_param normal_params[LANE_MAX_PARAMS];
    fd_param slide[LANE_MAX_PARAMS];
    fd_param roll[LANE_MAX_PARAMS]; /* none: no roll model */
    fd_param spin[LANE_MAX_PARAMS]; /* none: no spin model */
} lane_case;

/* The friction of the benchmark's law (the first case): most cases keep it
 * and vary the normal law or one damper on top. */
#define BENCHMARK_SLIDE {"mu_s", 0.5}, {"mu_k", 0.4}, {"K_E", 1e4}
#define BENCHMARK_ROLL {"eta_r", 0.3}
#define BENCHMARK_SPIN {"eta_psi", 0.006}

static const lane_case cases[] = {
    {"the benchmark's law: K_D, D_R given, the spin derived", "hooke",
     {{"k_n", 1e4}, {"restitution", 0.3}},
     {BENCHMARK_SLIDE, {"K_D", 1.0}, {"cap_total", 1.0}},
     {BENCHMARK_ROLL, {"D_R", 0.0}},
     {BENCHMARK_SPIN}},
    {"every damper derived, rocking inertia", "hooke",
     {{"k_n", 1e4}, {"eta_n", 2.0}},
     {{"mu_s", 0.3}, {"mu_k", 0.2}, {"K_E", 5e3}},
     {{"eta_r", 0.5}},
     {{"eta_psi", 0.01}}},
    {"the paper's dampers: uncapped, inertia about the centre, stiffnesses given", "hooke",
     {{"k_n", 2e4}, {"restitution", 0.5}, {"limit_damping", 1.0}},
     {{"mu_s", 0.6}, {"mu_k", 0.3}, {"K_E", 2e4}, {"cap_total", 0.0}},
     {{"eta_r", 0.2}, {"K_R", 1e-3}, {"rocking", 0.0}},
     {{"eta_psi", 0.01}, {"curvature", 150.0}, {"K_psi", 2e-4}, {"D_psi", -1.0}}},
    {"slide alone, LAMMPS's dashpot that may pull", "hooke",
     {{"k_n", 1e4}, {"eta_n", 5.0}, {"limit_damping", 0.0}},
     {{"mu_s", 0.4}, {"mu_k", 0.4}, {"K_E", 1e4}, {"K_D", 0.5}},
     {{0}},
     {{0}}},
    {"roll without spin, mass-scaled dashpot", "hooke",
     {{"k_n", 1e4}, {"eta_n_mass", 300.0}},
     {{"mu_s", 0.5}, {"mu_k", 0.35}, {"K_E", 1e4}},
     {BENCHMARK_ROLL, {"D_R", 1e-4}},
     {{0}}},
    {"hooke's viscoelastic dashpot", "hooke",
     {{"k_n", 1e4}, {"eta_n_visco", 3e3}},
     {BENCHMARK_SLIDE},
     {BENCHMARK_ROLL},
     {BENCHMARK_SPIN}},
    {"hertz with Tsuji's dashpot from the restitution", "hertz",
     {{"restitution", 0.5}},
     {BENCHMARK_SLIDE},
     {BENCHMARK_ROLL},
     {BENCHMARK_SPIN}},
    {"hertz with a plain dashpot that may pull", "hertz",
     {{"eta_n", 3.0}, {"limit_damping", 0.0}},
     {BENCHMARK_SLIDE},
     {BENCHMARK_ROLL, {"D_R", 0.0}},
     {{0}}},
    {"hertz with the viscoelastic dashpot", "hertz",
     {{"eta_n_visco", 2e3}},
     {BENCHMARK_SLIDE},
     {{0}},
     {BENCHMARK_SPIN}},
};

/* A small random rotation (a body's turn over a step). */
static fd_quat random_turn(double (*random)(void), double size)
{
    fd_vec3 v = {size * (random() - 0.5), size * (random() - 0.5), size * (random() - 0.5)};
    return fd_quat_from_rotation_vector(v);
}

static unsigned seed;
static double uniform(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed / 4294967296.0;
}

static fd_vec3 unit(fd_vec3 a) { return fd_v3_scale(1.0 / fd_v3_length(a), a); }

/* A random vector of the unit cube about 0. */
static fd_vec3 jitter(void) { return fd_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5); }

/* The pair's effective mass, a static body's (mass 0) the other's. */
static double pair_mass(double mass_i, double mass_j)
{
    return mass_i <= 0.0 ? mass_j : (mass_j <= 0.0 ? mass_i : mass_i * mass_j / (mass_i + mass_j));
}

/* Lane c of a block's vector field. */
static fd_vec3 lane_vec3(const double (*field)[FD_FN_BLOCK], int c)
{
    return fd_v3(field[0][c], field[1][c], field[2][c]);
}

static const char* const shape_names[3] = {"two spheres", "a sphere on a plane", "a plane under a sphere"};

Test(fn_lane, every_lane_equals_the_registry_kernels_bit_for_bit)
{
    int slipping[FD_MECHANISM_COUNT] = {0}, sticking = 0, lanes = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const lane_case* lc = &cases[k];
        fd_contact_law_def def;
        memset(&def, 0, sizeof def);
        def.submodel[FD_MECHANISM_NORMAL] = model_def(lc->normal, lc->normal_params);
        def.submodel[FD_MECHANISM_SLIDE] = model_def("fang_negrut", lc->slide);
        if (lc->roll[0].name != NULL) {
            def.submodel[FD_MECHANISM_ROLL] = model_def("fang_negrut", lc->roll);
        }
        if (lc->spin[0].name != NULL) {
            def.submodel[FD_MECHANISM_SPIN] = model_def("fang_negrut", lc->spin);
        }
        fd_contact_law law;
        fd_material material = {"m", 2500.0, 1e7, 0.3}; /* E for hertz: overlaps of 1e-4 m give forces of a few N */
        cr_assert_eq(fd_contact_law_resolve(&law, &def, &material, &material, 0, 0), FD_OK, "%s: %s", lc->name,
                     fd_last_error());
        fd_fn_lane_law lane_law;
        const double dt = 5e-5;
        cr_assert(fd_fn_lane_law_of(&law, 0, dt, &lane_law), "%s: the lanes should take this law", lc->name);
        for (int shapes = FD_FN_SPHERES; shapes <= FD_FN_PLANE_I; ++shapes) {
            bool plane_i = shapes == FD_FN_PLANE_I, plane_j = shapes == FD_FN_PLANE_J;
            static fd_fn_block block;
            memset(&block, 0, sizeof block);
            block.count = FD_FN_BLOCK;
            seed = 2024u + 77u * (unsigned)k + 1000u * (unsigned)shapes;
            fd_quat turns[FD_FN_BLOCK][2];
            for (int c = 0; c < FD_FN_BLOCK; ++c) {
                double radius_i = plane_i ? 0.0 : 0.005 * (1.0 + 0.1 * (uniform() - 0.5));
                double radius_j = plane_j ? 0.0 : 0.005 * (1.0 + 0.1 * (uniform() - 0.5));
                fd_vec3 n_before = unit(fd_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5));
                fd_vec3 tilt = fd_v3_scale(0.02, fd_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5));
                fd_vec3 n = unit(fd_v3_add(n_before, tilt)); /* into body i */
                double overlap = 1e-4 + 4e-4 * uniform();
                fd_vec3 position_i = fd_v3(0.1 * uniform(), 0.1 * uniform(), 0.1 * uniform());
                fd_vec3 along_plane = fd_v3_scale(0.05, fd_v3_reject(fd_v3(uniform() - 0.5, uniform() - 0.5,
                                                                           uniform() - 0.5), n));
                fd_vec3 position_j;
                fd_vec3 point; /* the contact point, near enough */
                if (shapes == FD_FN_SPHERES) {
                    position_j = fd_v3_mul_add(position_i, -(radius_i + radius_j - overlap), n);
                    point = fd_v3_mul_add(position_i, -(radius_i - 0.5 * overlap), n);
                } else if (plane_j) {
                    /* the plane's origin anywhere on it, its outward normal n */
                    point = fd_v3_mul_add(position_i, -(radius_i - overlap), n);
                    position_j = fd_v3_add(point, along_plane);
                } else {
                    /* body i the plane, outward normal -n; sphere j above it */
                    position_j = fd_v3_mul_add(fd_v3_add(position_i, along_plane), -(radius_j - overlap), n);
                    point = fd_v3_mul_add(position_j, radius_j - overlap, n);
                }
                for (int a = 0; a < 3; ++a) {
                    block.position_i[a][c] = fd_v3_component(position_i, a);
                    block.position_j[a][c] = fd_v3_component(position_j, a);
                    block.plane_normal[a][c] = fd_v3_component(plane_i ? fd_v3_neg(n) : n, a);
                    block.velocity_i[a][c] = plane_i ? 0.0 : 0.2 * (uniform() - 0.5);
                    block.velocity_j[a][c] = plane_j ? 0.0 : 0.2 * (uniform() - 0.5);
                    block.spin_i[a][c] = plane_i ? 0.0 : 40.0 * (uniform() - 0.5);
                    block.spin_j[a][c] = plane_j ? 0.0 : 40.0 * (uniform() - 0.5);
                }
                block.radius_i[c] = radius_i;
                block.radius_j[c] = radius_j;
                bool static_j = plane_j || c % 7 == 3; /* a static sphere, or the plane: no mass, no inertia */
                double mass_i = plane_i ? 0.0 : 2500.0 * 4.0 / 3.0 * FD_PI * radius_i * radius_i * radius_i;
                double mass_j = static_j ? 0.0 : 2500.0 * 4.0 / 3.0 * FD_PI * radius_j * radius_j * radius_j;
                block.mass_i[c] = mass_i;
                block.mass_j[c] = mass_j;
                block.inertia_i[c] = 0.4 * mass_i * radius_i * radius_i;
                block.inertia_j[c] = 0.4 * mass_j * radius_j * radius_j;
                /* a plane turns when it is a moving wall (every other one here) */
                turns[c][0] = plane_i && c % 2 == 0 ? (fd_quat){1, 0, 0, 0} : random_turn(uniform, 0.01);
                turns[c][1] = static_j && c % 2 == 0 ? (fd_quat){1, 0, 0, 0} : random_turn(uniform, 0.01);
                for (int b = 0; b < 2; ++b) {
                    const double q[4] = {turns[c][b].w, turns[c][b].x, turns[c][b].y, turns[c][b].z};
                    for (int a = 0; a < 4; ++a) {
                        (b == 0 ? block.turn_i : block.turn_j)[a][c] = q[a];
                    }
                }
                /* The pair's constants as fd_fn_pair_constants forms them. */
                double kappa_i = plane_i ? 0.0 : 1.0 / radius_i, kappa_j = plane_j ? 0.0 : 1.0 / radius_j;
                const double ci[2] = {kappa_i, kappa_i}, cj[2] = {kappa_j, kappa_j};
                const fd_vec3 none[2] = {{0, 0, 0}, {0, 0, 0}};
                double effective_radius = fd_effective_radius(ci, none, cj, none);
                double effective_mass = pair_mass(mass_i, mass_j);
                block.dashpot[c] = fd_normal_dashpot_prefactor(&law, effective_mass, effective_radius);
                block.effective_radius[c] = effective_radius;
                double modulus = law.derived[FD_MECHANISM_NORMAL][FD_NORMAL_DERIVED_MODULUS];
                block.hertz_constant[c] =
                    strcmp(lc->normal, "hertz") == 0 ? 4.0 / 3.0 * modulus * sqrt(effective_radius) : 0.0;
                /* The last step's springs: a frame in the old tangent plane,
                 * painted points near the old contact point, deflections that
                 * stick or slip (the largest exceed any cap). */
                fd_vec3 u_before = unit(fd_v3_reject(jitter(), n_before));
                fd_vec3 w_before = fd_v3_cross(n_before, u_before);
                fd_vec3 arm_i = fd_v3_sub(fd_v3_add(point, fd_v3_scale(1e-5, fd_v3(uniform() - 0.5, uniform() - 0.5,
                                                                                    uniform() - 0.5))),
                                          position_i);
                fd_vec3 arm_j = fd_v3_sub(fd_v3_add(point, fd_v3_scale(1e-5, fd_v3(uniform() - 0.5, uniform() - 0.5,
                                                                                    uniform() - 0.5))),
                                          position_j);
                double scale = c % 3 == 0 ? 1e-3 : 1e-6; /* a third far past the caps: they slip */
                double slide[FD_FN_SLIDE_HISTORY] = {arm_i.x, arm_i.y, arm_i.z, arm_j.x, arm_j.y, arm_j.z,
                                                     u_before.x, u_before.y, u_before.z, w_before.x, w_before.y,
                                                     w_before.z, scale * (uniform() - 0.5), scale * (uniform() - 0.5),
                                                     (double)(c % 2)};
                double roll[FD_FN_ROLL_HISTORY] = {scale * 10.0 * (uniform() - 0.5), scale * 10.0 * (uniform() - 0.5),
                                                   scale * 10.0 * (uniform() - 0.5), scale * 10.0 * (uniform() - 0.5),
                                                   (double)(c % 2), (double)((c / 2) % 2)};
                double spin[FD_FN_SPIN_HISTORY] = {scale * 100.0 * (uniform() - 0.5), (double)((c / 4) % 2)};
                for (int a = 0; a < FD_FN_SLIDE_HISTORY; ++a) {
                    block.slide[a][c] = slide[a];
                }
                for (int a = 0; a < FD_FN_ROLL_HISTORY; ++a) {
                    block.roll[a][c] = roll[a];
                }
                for (int a = 0; a < FD_FN_SPIN_HISTORY; ++a) {
                    block.spin[a][c] = spin[a];
                }
            }
            static fd_fn_block before;
            before = block;
            fd_fn_block_run(&block, &lane_law, (fd_fn_shapes)shapes);
            for (int c = 0; c < FD_FN_BLOCK; ++c) {
                cr_assert_eq(block.fallback[c], 0.0, "%s, %s, lane %d: these contacts need no fallback", lc->name,
                             shape_names[shapes], c);
                /* The registry path, as contact_details.c's evaluate_generic
                 * builds it from round_pair.c's geometry. */
                fd_vec3 position_i = fd_v3(before.position_i[0][c], before.position_i[1][c], before.position_i[2][c]);
                fd_vec3 position_j = fd_v3(before.position_j[0][c], before.position_j[1][c], before.position_j[2][c]);
                fd_contact_geometry g;
                memset(&g, 0, sizeof g);
                if (shapes == FD_FN_SPHERES) {
                    double radius_i = before.radius_i[c], radius_j = before.radius_j[c];
                    fd_vec3 offset = fd_v3_sub(position_i, position_j);
                    double distance = fd_v3_length(offset);
                    g.normal = fd_v3_scale(1.0 / distance, offset);
                    g.penetration = radius_i + radius_j - distance;
                    g.point_i = fd_v3_mul_add(position_i, -radius_i, g.normal);
                    g.point_j = fd_v3_mul_add(position_j, radius_j, g.normal);
                    g.curvature_i[0] = g.curvature_i[1] = 1.0 / radius_i;
                    g.curvature_j[0] = g.curvature_j[1] = 1.0 / radius_j;
                } else {
                    fd_vec3 outward = fd_v3(before.plane_normal[0][c], before.plane_normal[1][c],
                                            before.plane_normal[2][c]);
                    fd_vec3 centre = plane_i ? position_j : position_i, plane = plane_i ? position_i : position_j;
                    double radius = plane_i ? before.radius_j[c] : before.radius_i[c];
                    double height = fd_v3_dot(fd_v3_sub(centre, plane), outward);
                    fd_vec3 sphere_point = fd_v3_mul_add(centre, -radius, outward);
                    fd_vec3 plane_point = fd_v3_mul_add(centre, -height, outward);
                    g.penetration = radius - height;
                    g.normal = plane_i ? fd_v3_neg(outward) : outward;
                    g.point_i = plane_i ? plane_point : sphere_point;
                    g.point_j = plane_i ? sphere_point : plane_point;
                    double ci = plane_i ? 0.0 : 1.0 / radius, cj = plane_i ? 1.0 / radius : 0.0;
                    g.curvature_i[0] = g.curvature_i[1] = ci;
                    g.curvature_j[0] = g.curvature_j[1] = cj;
                    position_j = fd_v3_add(position_j, fd_v3(0.0, 0.0, 0.0)); /* evaluate_generic's image of j */
                }
                g.effective_radius =
                    fd_effective_radius(g.curvature_i, g.principal_dir_i, g.curvature_j, g.principal_dir_j);
                fd_body_state state_i = {position_i, {1, 0, 0, 0}, lane_vec3(before.velocity_i, c),
                                         lane_vec3(before.spin_i, c)};
                fd_body_state state_j = {position_j, {1, 0, 0, 0}, lane_vec3(before.velocity_j, c),
                                         lane_vec3(before.spin_j, c)};
                fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(g.point_i, g.point_j));
                fd_vec3 arm_i = fd_v3_sub(point, position_i), arm_j = fd_v3_sub(point, position_j);
                fd_vec3 velocity_i = fd_v3_add(state_i.velocity, fd_v3_cross(state_i.angular_velocity, arm_i));
                fd_vec3 velocity_j = fd_v3_add(state_j.velocity, fd_v3_cross(state_j.angular_velocity, arm_j));
                double mass_i = before.mass_i[c], mass_j = before.mass_j[c];
                double history[64] = {0};
                for (int a = 0; a < FD_FN_SLIDE_HISTORY; ++a) {
                    history[law.history_offset[FD_MECHANISM_SLIDE] + a] = before.slide[a][c];
                }
                for (int a = 0; lane_law.has_roll && a < FD_FN_ROLL_HISTORY; ++a) {
                    history[law.history_offset[FD_MECHANISM_ROLL] + a] = before.roll[a][c];
                }
                for (int a = 0; lane_law.has_spin && a < FD_FN_SPIN_HISTORY; ++a) {
                    history[law.history_offset[FD_MECHANISM_SPIN] + a] = before.spin[a][c];
                }
                /* The turns as contact_details.c hands them to the model. */
                fd_mat3 turn_i = fd_mat3_from_quat(turns[c][0]), turn_j = fd_mat3_from_quat(turns[c][1]);
                fd_energy_books books[FD_MECHANISM_COUNT];
                memset(books, 0, sizeof books);
                unsigned flags = 0;
                fd_contact_input input = {
                    .geometry = &g,
                    .state_i = &state_i,
                    .state_j = &state_j,
                    .mass_i = mass_i,
                    .mass_j = mass_j,
                    .inertia_i = fd_v3(before.inertia_i[c], before.inertia_i[c], before.inertia_i[c]),
                    .inertia_j = fd_v3(before.inertia_j[c], before.inertia_j[c], before.inertia_j[c]),
                    .effective_mass = pair_mass(mass_i, mass_j),
                    .penetration_rate = fd_v3_dot(fd_v3_sub(velocity_j, velocity_i), g.normal),
                    .relative_velocity = fd_v3_sub(velocity_i, velocity_j),
                    .time_step = dt,
                    .spring_time_step = dt,
                    .is_new = false,
                    .turn_i = &turn_i,
                    .turn_j = &turn_j,
                    .shape_i = plane_i ? FD_SHAPE_PLANE : FD_SHAPE_SPHERE,
                    .shape_j = plane_j ? FD_SHAPE_PLANE : FD_SHAPE_SPHERE,
                    .radius_i = before.radius_i[c],
                    .radius_j = before.radius_j[c],
                    .history = history,
                    .energy = books,
                    .books_unread = true,
                    .slip_flags = &flags,
                };
                fd_normal_result normal;
                fd_contact_loads loads = test_registry_loads(&law, &input, history, &normal);
                fd_vec3 force = fd_v3_add(fd_v3_scale(normal.force, g.normal), loads.slide_force);
                fd_vec3 torque_i =
                    fd_v3_add(fd_v3_cross(arm_i, force), fd_v3_add(loads.roll_torque_i, loads.spin_torque_i));
                fd_vec3 torque_j = fd_v3_add(fd_v3_cross(arm_j, fd_v3_neg(force)),
                                             fd_v3_add(loads.roll_torque_j, loads.spin_torque_j));
                const char* what = shape_names[shapes];
                for (int a = 0; a < 3; ++a) {
                    cr_assert(fd_v3_component(force, a) == block.force[a][c],
                              "%s, %s, lane %d: force %d: %.17g, lane %.17g", lc->name, what, c, a,
                              fd_v3_component(force, a), block.force[a][c]);
                    cr_assert(fd_v3_component(torque_i, a) == block.torque_i[a][c] &&
                                  fd_v3_component(torque_j, a) == block.torque_j[a][c],
                              "%s, %s, lane %d: torque %d: %.17g %.17g, lane %.17g %.17g", lc->name, what, c, a,
                              fd_v3_component(torque_i, a), fd_v3_component(torque_j, a), block.torque_i[a][c],
                              block.torque_j[a][c]);
                }
                for (int a = 0; a < FD_FN_SLIDE_HISTORY; ++a) {
                    cr_assert(history[law.history_offset[FD_MECHANISM_SLIDE] + a] == block.slide[a][c],
                              "%s, %s, lane %d: slide history %d: %.17g, lane %.17g", lc->name, what, c, a,
                              history[law.history_offset[FD_MECHANISM_SLIDE] + a], block.slide[a][c]);
                }
                for (int a = 0; lane_law.has_roll && a < FD_FN_ROLL_HISTORY; ++a) {
                    cr_assert(history[law.history_offset[FD_MECHANISM_ROLL] + a] == block.roll[a][c],
                              "%s, %s, lane %d: roll history %d", lc->name, what, c, a);
                }
                for (int a = 0; lane_law.has_spin && a < FD_FN_SPIN_HISTORY; ++a) {
                    cr_assert(history[law.history_offset[FD_MECHANISM_SPIN] + a] == block.spin[a][c],
                              "%s, %s, lane %d: spin history %d", lc->name, what, c, a);
                }
                cr_assert_eq((unsigned)block.slip[c], flags, "%s, %s, lane %d: slip states", lc->name, what, c);
                for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
                    slipping[m] += (flags >> m) & 1u;
                }
                sticking += flags == 0;
                ++lanes;
            }
        }
    }
    /* What the comparison covered: slip and stick in each mechanism. */
    cr_assert_gt(slipping[FD_MECHANISM_SLIDE], 5, "sliding slips in %d lanes", slipping[FD_MECHANISM_SLIDE]);
    cr_assert_gt(slipping[FD_MECHANISM_ROLL], 5, "rolling slips in %d lanes", slipping[FD_MECHANISM_ROLL]);
    cr_assert_gt(slipping[FD_MECHANISM_SPIN], 5, "spinning slips in %d lanes", slipping[FD_MECHANISM_SPIN]);
    cr_assert_gt(sticking, 5, "%d of %d lanes stick in every mechanism", sticking, lanes);
}

/* What the lanes leave to the registry: a contact point that has not moved
 * over a body (no path to take the roll direction from), and an angle past
 * fd_small_atan2's series (the library's atan2); a contact with neither
 * passes. */
Test(fn_lane, lanes_the_blends_do_not_cover_are_marked)
{
    const fd_param slide[LANE_MAX_PARAMS] = {BENCHMARK_SLIDE};
    const fd_param roll[LANE_MAX_PARAMS] = {BENCHMARK_ROLL};
    const fd_param normal[LANE_MAX_PARAMS] = {{"k_n", 1e4}, {"restitution", 0.5}};
    fd_contact_law_def def;
    memset(&def, 0, sizeof def);
    def.submodel[FD_MECHANISM_NORMAL] = model_def("hooke", normal);
    def.submodel[FD_MECHANISM_SLIDE] = model_def("fang_negrut", slide);
    def.submodel[FD_MECHANISM_ROLL] = model_def("fang_negrut", roll);
    fd_contact_law law;
    fd_material material = {"m", 2500.0, 0.0, 0.3};
    cr_assert_eq(fd_contact_law_resolve(&law, &def, &material, &material, 0, 0), FD_OK, "%s", fd_last_error());
    fd_fn_lane_law lane_law;
    cr_assert(fd_fn_lane_law_of(&law, 0, 1e-5, &lane_law));
    static fd_fn_block block;
    memset(&block, 0, sizeof block);
    block.count = 4;
    for (int c = 0; c < 4; ++c) {
        block.position_j[2][c] = -0.0099; /* two spheres of 5 mm, 0.1 mm overlap, j below i */
        block.radius_i[c] = block.radius_j[c] = 0.005;
        block.mass_i[c] = block.mass_j[c] = 1e-3;
        block.inertia_i[c] = block.inertia_j[c] = 1e-8;
        block.dashpot[c] = 0.1;
        block.turn_i[0][c] = block.turn_j[0][c] = 1.0; /* no turn: (1, 0, 0, 0) */
        block.slide[FD_FN_H_U][c] = 1.0;       /* u = x, w = y: the tangent plane of n = z */
        block.slide[FD_FN_H_W + 1][c] = 1.0;
        /* painted exactly at the contact point (z = -0.00495 from i, +0.00495 from j) */
        block.slide[FD_FN_H_ARM_I + 2][c] = -0.00495;
        block.slide[FD_FN_H_ARM_J + 2][c] = 0.00495;
        block.slide[FD_FN_H_ARM_I][c] = c >= 1 ? 1e-5 : 0.0; /* lanes 1-3: i's point moved */
        block.slide[FD_FN_H_ARM_J][c] = c >= 2 ? 1e-5 : 0.0; /* lanes 2, 3: j's too */
    }
    /* lane 3: j turned a quarter turn about n over the step, a spin angle
     * far outside the series */
    block.turn_j[0][3] = sqrt(0.5);
    block.turn_j[3][3] = sqrt(0.5);
    fd_fn_block_run(&block, &lane_law, FD_FN_SPHERES);
    cr_assert_eq(block.fallback[0], 1.0, "neither point moved: the roll direction is the registry's");
    cr_assert_eq(block.fallback[1], 1.0, "j's point did not move");
    cr_assert_eq(block.fallback[2], 0.0, "both points moved: the lane takes it");
    cr_assert_eq(block.fallback[3], 1.0, "a quarter turn: the library's atan2");
}
