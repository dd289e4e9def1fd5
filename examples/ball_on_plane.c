/* The smallest complete use of the fricdem C API: a steel ball dropped on a
 * floor, with Fang & Negrut slide and roll friction, stepped until it rests.
 * Built by CMake as `fricdem_example`; docs/api.md walks through it.
 * Prints the rebound height ratio and the final state; exits 1 on any error. */
#include <stdio.h>

#include "fricdem/fricdem.h"

static int fail(const char* what)
{
    fprintf(stderr, "example: %s: %s\n", what, fd_last_error());
    return 1;
}

int main(void)
{
    /* 1. A world: every def starts from its documented defaults. */
    fd_world_def world_def = fd_default_world_def();
    world_def.time_step = 1e-5; /* s */
    fd_world* world = fd_world_create(&world_def);
    if (world == NULL) {
        return fail("world");
    }

    /* 2. A material and the contact law of the steel-steel pair. */
    fd_material_def steel = fd_default_material_def();
    steel.name = "steel";
    steel.density = 7800.0;       /* kg/m^3 */
    steel.youngs_modulus = 2.1e11; /* Pa */
    fd_material_id material = fd_world_create_material(world, &steel);
    if (fd_material_id_is_null(material)) {
        return fail("material");
    }
    fd_contact_law_def law = fd_default_contact_law_def();
    fd_submodel_def* normal = &law.submodel[FD_MECHANISM_NORMAL];
    normal->model = "hooke";
    normal->params[normal->param_count++] = (fd_param){"k_n", 1e6};       /* N/m */
    normal->params[normal->param_count++] = (fd_param){"restitution", 0.6};
    fd_submodel_def* slide = &law.submodel[FD_MECHANISM_SLIDE];
    slide->model = "fang_negrut";
    slide->params[slide->param_count++] = (fd_param){"mu_s", 0.3};
    slide->params[slide->param_count++] = (fd_param){"mu_k", 0.25};
    slide->params[slide->param_count++] = (fd_param){"K_E", 1e6};         /* N/m */
    fd_submodel_def* roll = &law.submodel[FD_MECHANISM_ROLL];
    roll->model = "fang_negrut";
    roll->params[roll->param_count++] = (fd_param){"eta_r", 0.3};
    if (fd_world_set_contact_law(world, material, material, &law) != FD_OK) {
        return fail("contact law");
    }

    /* 3. Bodies: a static floor and a 1 cm ball 4 cm above it. */
    fd_body_def floor_def = fd_default_body_def();
    floor_def.name = "floor";
    floor_def.type = FD_BODY_STATIC;
    floor_def.shape.type = FD_SHAPE_PLANE;
    floor_def.material = material;
    fd_body_def ball_def = fd_default_body_def();
    ball_def.name = "ball";
    ball_def.shape.radius = 0.01;            /* m */
    ball_def.position = (fd_vec3){0, 0, 0.05}; /* m */
    ball_def.velocity = (fd_vec3){0.2, 0, 0};  /* m/s */
    ball_def.material = material;
    if (fd_body_id_is_null(fd_world_create_body(world, &floor_def))) {
        return fail("floor");
    }
    fd_body_id ball = fd_world_create_body(world, &ball_def);
    if (fd_body_id_is_null(ball)) {
        return fail("ball");
    }

    /* 4. Prepare (checks, critical time step), then step. */
    if (fd_world_prepare(world) != FD_OK) {
        return fail("prepare");
    }
    for (int w = 0; w < fd_world_warning_count(world); ++w) {
        fprintf(stderr, "warning: %s\n", fd_world_warning_at(world, w));
    }
    double apex = 0.0;
    bool bounced = false;
    for (int step = 0; step < 100000; ++step) { /* 1 s */
        if (fd_world_step(world) != FD_OK) {
            return fail("step");
        }
        fd_body_state state = fd_body_get_state(world, ball);
        bounced = bounced || fd_world_contact_count(world) > 0;
        if (bounced && fd_world_contact_count(world) == 0 && state.position.z > apex) {
            apex = state.position.z; /* highest point after the first bounce */
        }
    }
    fd_body_state state = fd_body_get_state(world, ball);
    printf("first rebound apex: %.4f m of centre height (drop from 0.05 m)\n", apex);
    printf("after %g s: x = %.4f m, v = (%.3g, %.3g, %.3g) m/s, omega_y = %.3g rad/s\n", fd_world_time(world),
           state.position.x, state.velocity.x, state.velocity.y, state.velocity.z, state.angular_velocity.y);
    fd_world_free(world);
    return 0;
}
