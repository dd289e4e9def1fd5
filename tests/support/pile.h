/* The settling pile of the penalty tests (test_penalty.c, test_partition.c):
 * 400 spheres of three sizes falling from a jittered lattice into a box of
 * planes, or onto a floor in a box periodic along x and y, with the law and
 * the run options a test asks for. */
#ifndef FRICDEM_TEST_PILE_SUPPORT_H
#define FRICDEM_TEST_PILE_SUPPORT_H

#include <criterion/criterion.h>
#include <string.h>

#include "fricdem/fricdem.h"
#include "support.h"

typedef struct pile_options {
    int threads;
    double skin;                  /* m; 0 = automatic */
    bool ledger;
    bool lifetime_books;          /* with the ledger, each contact's lifetime books (fd_world_def.contact_energy_books) */
    fd_contact_output output;
    const char* slide;            /* "dsds", "csds", "fang_negrut" (with its roll and spin), "fang_negrut_slide"
                                   * (without), "fang_negrut_slide_spin", "pfc" (linear and rrlinear) or NULL
                                   * (frictionless) */
    bool roll_and_spin;           /* rolling and twisting sds (the scalar kernel) */
    bool periodic;                /* x and y periodic instead of side walls */
    bool periodic_all;            /* x, y and z periodic (0.1 m each way), no walls at all */
    double cell_size;             /* m; 0 = automatic */
    int materials;                /* 1 (0 too) or 3 materials of equal properties, the spheres taking them in turn */
    bool gas;                     /* no gravity, and the spheres fly at up to 1.5 m/s every way */
    bool outlet;                  /* an outlet takes the spheres of the strip x > 0.025 m from t = 0.01 s */
    bool inlet;                   /* an inlet pours 150 more spheres from a box above the pile */
    bool pushed;                  /* every 50th sphere under an external force and torque, every 50th
                                   * from the 25th with locked degrees of freedom */
    bool complementarity;         /* the complementarity stepper instead of the penalty one */
} pile_options;

static fd_submodel_def submodel(const char* model, const char* a, double va, const char* b, double vb,
                                const char* c, double vc)
{
    fd_submodel_def def;
    memset(&def, 0, sizeof def);
    def.model = model;
    const char* names[3] = {a, b, c};
    double values[3] = {va, vb, vc};
    for (int k = 0; k < 3; ++k) {
        if (names[k] != NULL) {
            def.params[def.param_count++] = (fd_param){names[k], values[k]};
        }
    }
    return def;
}

static fd_world* make_pile(const pile_options* o)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = 2e-5;
    def.thread_count = o->threads;
    def.neighbor_skin = o->skin;
    def.energy_ledger = o->ledger;
    def.contact_energy_books = o->lifetime_books;
    def.contact_output = o->output;
    if (o->complementarity) {
        def.stepper = FD_STEPPER_COMPLEMENTARITY;
    }
    def.integrator = FD_INTEGRATOR_VELOCITY_VERLET;
    if (o->gas) {
        def.gravity = (fd_vec3){0.0, 0.0, 0.0};
    }
    def.cell_size = o->cell_size;
    if (o->periodic || o->periodic_all) {
        def.periodic[0] = def.periodic[1] = true;
        def.periodic[2] = o->periodic_all;
        def.box_min = (fd_vec3){-0.05, -0.05, 0.0};
        def.box_max = (fd_vec3){0.05, 0.05, o->periodic_all ? 0.1 : 1.0};
    }
    fd_world* world = fd_world_create(&def);
    cr_assert_not_null(world, "%s", fd_last_error());
    fd_material_def material = fd_default_material_def();
    material.name = "grain";
    material.density = 2500.0;
    fd_material_id m = fd_world_create_material(world, &material);
    int material_count = o->materials > 1 ? o->materials : 1;
    fd_material_id kinds[3] = {m, m, m};
    const char* names[3] = {"grain", "grain_b", "grain_c"};
    for (int k = 1; k < material_count; ++k) {
        material.name = names[k];
        kinds[k] = fd_world_create_material(world, &material);
    }
    fd_contact_law_def law;
    memset(&law, 0, sizeof law);
    law.submodel[FD_MECHANISM_NORMAL] = submodel("hooke", "k_n", 3e3, "restitution", 0.4, NULL, 0.0);
    if (o->slide != NULL && strcmp(o->slide, "pfc") == 0) {
        /* PFC's linear model with its dashpots, and rrlinear rolling resistance */
        law.submodel[FD_MECHANISM_NORMAL] = submodel("pfc_linear", "kn", 3e3, "dp_nratio", 0.2, NULL, 0.0);
        law.submodel[FD_MECHANISM_SLIDE] = submodel("pfc_linear", "ks", 2e3, "fric", 0.4, "dp_sratio", 0.1);
        law.submodel[FD_MECHANISM_ROLL] = submodel("pfc_rrlinear", "rr_fric", 0.1, NULL, 0.0, NULL, 0.0);
    } else if (o->slide != NULL && strncmp(o->slide, "fang_negrut", strlen("fang_negrut")) == 0) {
        /* the generic path on spheres (no sphere kernel) */
        law.submodel[FD_MECHANISM_SLIDE] = submodel("fang_negrut", "mu_s", 0.5, "mu_k", 0.4, "K_E", 2e3);
        if (strcmp(o->slide, "fang_negrut") == 0) {
            law.submodel[FD_MECHANISM_ROLL] = submodel("fang_negrut", "eta_r", 0.3, NULL, 0.0, NULL, 0.0);
        }
        if (strcmp(o->slide, "fang_negrut") == 0 || strcmp(o->slide, "fang_negrut_slide_spin") == 0) {
            law.submodel[FD_MECHANISM_SPIN] = submodel("fang_negrut", "eta_psi", 0.006, NULL, 0.0, NULL, 0.0);
        }
    } else if (o->slide != NULL) {
        law.submodel[FD_MECHANISM_SLIDE] = submodel(o->slide, "k_t", 2e3, "gamma_t", 0.5, "mu", 0.4);
    }
    if (o->roll_and_spin) {
        law.submodel[FD_MECHANISM_ROLL] = submodel("dsds", "k_roll", 1e3, "gamma_roll", 0.1, "mu_roll", 0.1);
        law.submodel[FD_MECHANISM_SPIN] = submodel("dsds", "k_twist", 1e-3, "gamma_twist", 1e-5, "mu_twist", 1e-3);
    }
    for (int a = 0; a < material_count; ++a) {
        for (int b = a; b < material_count; ++b) {
            /* the same law for every pair, each its own law of the world */
            cr_assert_eq(fd_world_set_contact_law(world, kinds[a], kinds[b], &law), FD_OK, "%s", fd_last_error());
        }
    }
    fd_vec3 normals[5] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    fd_vec3 points[5] = {{0, 0, 0}, {-0.05, 0, 0}, {0.05, 0, 0}, {0, -0.05, 0}, {0, 0.05, 0}};
    for (int p = 0; p < (o->periodic_all ? 0 : (o->periodic ? 1 : 5)); ++p) {
        fd_body_def plane = fd_default_body_def();
        plane.type = FD_BODY_STATIC;
        plane.shape.type = FD_SHAPE_PLANE;
        plane.shape.plane_normal = normals[p];
        plane.position = points[p];
        plane.material = m;
        cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &plane)), "%s", fd_last_error());
    }
    if (o->inlet) {
        fd_inlet_def inlet = test_inlet_def(m, (test_pour){.name = "pour", .radius = 0.005, .radius_spread = 0.05,
                                                           .rate = 5000.0, .count = 150, .velocity = {0.0, 0.0, -0.5}});
        inlet.shape = FD_INLET_BOX;
        inlet.box_min = (fd_vec3){-0.04, -0.04, 0.10};
        inlet.box_max = (fd_vec3){0.04, 0.04, 0.13};
        cr_assert_eq(fd_world_add_inlet(world, &inlet), FD_OK, "%s", fd_last_error());
    }
    if (o->outlet) {
        fd_outlet_def outlet = fd_default_outlet_def();
        outlet.name = "strip";
        outlet.box_min = (fd_vec3){0.025, -1.0, -1.0};
        outlet.box_max = (fd_vec3){1.0, 1.0, 1.0};
        outlet.start_time = 0.01;
        cr_assert_eq(fd_world_add_outlet(world, &outlet), FD_OK, "%s", fd_last_error());
    }
    for (int k = 0; k < 400; ++k) {
        int x = k % 8, y = (k / 8) % 8, z = k / 64;
        fd_body_def ball = fd_default_body_def();
        ball.shape.radius = 0.005 * (1.0 + 0.05 * (k % 3));
        ball.material = kinds[(k / 7) % material_count];
        ball.position = (fd_vec3){-0.042 + 0.012 * x + 0.0007 * (z % 3), -0.042 + 0.012 * y + 0.0005 * (z % 2),
                                  0.008 + 0.012 * z};
        ball.velocity = (fd_vec3){0.05 * ((k * 7) % 5 - 2), 0.05 * ((k * 3) % 5 - 2), -0.3};
        if (o->gas) {
            ball.velocity = (fd_vec3){0.3 * ((k * 7) % 11 - 5), 0.25 * ((k * 3) % 13 - 6), 0.375 * ((k * 5) % 9 - 4)};
        }
        ball.angular_velocity = (fd_vec3){(double)((k * 11) % 7 - 3), 0.0, (double)((k * 5) % 3 - 1)};
        if (o->pushed && k % 50 == 0) {
            ball.external_force = (fd_vec3){0.02, -0.01, 0.0};
            ball.external_torque = (fd_vec3){0.0, 0.0, 1.0e-6};
        }
        if (o->pushed && k % 50 == 25) {
            ball.lock_translation = FD_LOCK_Y;
            ball.lock_rotation = FD_LOCK_X | FD_LOCK_Z;
        }
        cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &ball)), "%s", fd_last_error());
    }
    return world;
}

#endif
