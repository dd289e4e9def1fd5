/* Normal model "none": two materials that never touch (LAMMPS neigh_modify
 * exclude type). Their bodies pass through each other and through walls of
 * the other material as if alone, on both steppers; a law that gives them
 * friction is refused. */
#include <criterion/criterion.h>
#include <math.h>

#include "support/scene.h"

TestSuite(never_touch, .init = make_dir, .fini = remove_dir);

/* A resting grain on a floor of its own material, and (in the second scene)
 * a ghost sphere dropped through both with a downward speed. */
#define NEVER_SCENE_HEAD                                                                                               \
    "time: {step: 1.0e-5, duration: 0.02}\n"                                                                           \
    "world: {gravity: [0, 0, -9.81]}\n"                                                                                \
    "materials:\n"                                                                                                     \
    "  - {name: grain, density: 2500.0}\n"                                                                             \
    "  - {name: ghost, density: 2500.0}\n"                                                                             \
    "contacts:\n"                                                                                                      \
    "  - materials: [grain, grain]\n"                                                                                  \
    "    normal: {model: hooke, k_n: 1.0e4, restitution: 0.5}\n"                                                       \
    "    slide: {model: dsds, k_t: 8.0e3, gamma_t: 0.0, mu: 0.5}\n"                                                    \
    "  - materials: [grain, ghost]\n"                                                                                  \
    "    normal: {model: none}\n"                                                                                      \
    "  - materials: [ghost, ghost]\n"                                                                                  \
    "    normal: {model: none}\n"                                                                                      \
    "bodies:\n"                                                                                                        \
    "  - {name: floor, static: true, material: grain, shape: {type: plane, normal: [0, 0, 1]}, position: [0, 0, 0]}\n" \
    "  - {name: grain, material: grain, shape: {type: sphere, radius: 0.01}, position: [0, 0, 0.0099],\n"              \
    "     angular_velocity: [0, 3, 0]}\n"

#define NEVER_GHOSTS                                                                                                   \
    "  - {name: ghost, material: ghost, shape: {type: sphere, radius: 0.01}, position: [0.004, 0, 0.012],\n"           \
    "     velocity: [0, 0, -0.5]}\n"                                                                                   \
    "  - {name: twin, material: ghost, shape: {type: sphere, radius: 0.01}, position: [0.004, 0.003, 0.012],\n"        \
    "     velocity: [0, 0, 0.5]}\n"

static fd_scene load_and_run(const char* name, const char* text, int steps)
{
    fd_scene scene;
    const char* path = write_scene(name, text);
    cr_assert_eq(fd_scene_load(path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(scene.world), FD_OK, "%s", fd_last_error());
    }
    return scene;
}

Test(never_touch, ghosts_leave_the_grain_exactly_as_it_is_alone_and_fall_freely)
{
    enum { STEPS = 4000 };
    fd_scene alone = load_and_run("alone.yaml", NEVER_SCENE_HEAD, STEPS);
    fd_scene haunted = load_and_run("haunted.yaml", NEVER_SCENE_HEAD NEVER_GHOSTS, STEPS);
    fd_body_state a = fd_body_get_state(alone.world, fd_world_find_body(alone.world, "grain"));
    fd_body_state b = fd_body_get_state(haunted.world, fd_world_find_body(haunted.world, "grain"));
    /* The grain's contacts (the floor) are the same in both; the ghosts,
     * overlapping it and each other from the start, add nothing: bit for bit. */
    cr_expect_eq(memcmp(&a, &b, sizeof a), 0, "grain z %.17g alone, %.17g among ghosts", a.position.z, b.position.z);
    cr_expect_eq(fd_world_contact_count(haunted.world), fd_world_contact_count(alone.world));
    /* Each ghost is in free fall through the grain, its twin and the floor:
     * its velocity is v0 - g t, a sum of equal increments (round-off only:
     * 4000 additions of 9.81e-5, each rounded to half an ulp of 0.5, 5.6e-17,
     * so at most 2.2e-13). */
    double t = STEPS * 1.0e-5;
    const char* ghosts[2] = {"ghost", "twin"};
    const double v0[2] = {-0.5, 0.5};
    for (int k = 0; k < 2; ++k) {
        fd_body_state g = fd_body_get_state(haunted.world, fd_world_find_body(haunted.world, ghosts[k]));
        cr_expect_float_eq(g.velocity.z, v0[k] - 9.81 * t, 2.5e-13, "%s: vz %.17g", ghosts[k], g.velocity.z);
        cr_expect_eq(g.velocity.x, 0.0);
        cr_expect_eq(g.angular_velocity.y, 0.0);
    }
    fd_body_state ghost = fd_body_get_state(haunted.world, fd_world_find_body(haunted.world, "ghost"));
    cr_expect_lt(ghost.position.z, -0.005, "the ghost went through the floor (z = %g)", ghost.position.z);
    fd_scene_free(&alone);
    fd_scene_free(&haunted);
}

Test(never_touch, complementarity_stepper_leaves_the_pairs_out_too)
{
    fd_scene scene = load_and_run("rigid.yaml",
                                  "time: {step: 1.0e-4, duration: 0.02}\n"
                                  "world: {gravity: [0, 0, -9.81], stepper: complementarity}\n"
                                  "materials:\n"
                                  "  - {name: grain, density: 2500.0}\n"
                                  "  - {name: ghost, density: 2500.0}\n"
                                  "contacts:\n"
                                  "  - materials: [grain, grain]\n"
                                  "    normal: {model: rigid}\n"
                                  "    slide: {model: sliding_cone, mu: 0.5}\n"
                                  "  - materials: [grain, ghost]\n"
                                  "    normal: {model: none}\n"
                                  "bodies:\n"
                                  "  - {name: floor, static: true, material: grain,"
                                  " shape: {type: plane, normal: [0, 0, 1]},\n"
                                  "     position: [0, 0, 0]}\n"
                                  "  - {name: ghost, material: ghost, shape: {type: sphere, radius: 0.01},\n"
                                  "     position: [0, 0, 0.009], velocity: [0, 0, -0.5]}\n",
                                  100);
    fd_body_state ghost = fd_body_get_state(scene.world, fd_world_find_body(scene.world, "ghost"));
    /* Starting in the floor and falling: no contact ever, free fall (the
     * velocity is v0 - g t to round-off: 100 increments, below 1e-14). */
    cr_expect_eq(fd_world_contact_count(scene.world), 0);
    cr_expect_float_eq(ghost.velocity.z, -0.5 - 9.81 * 0.01, 1e-14, "vz %.17g", ghost.velocity.z);
    fd_scene_free(&scene);
}

Test(never_touch, a_law_that_never_touches_takes_no_friction_and_no_parameters)
{
    const char* message = load_error("friction.yaml",
                                     HEADER "contacts:\n"
                                            "  - materials: [steel, steel]\n"
                                            "    normal: {model: none}\n"
                                            "    slide: {model: dsds, k_t: 1.0e3, gamma_t: 0.0, mu: 0.5}\n",
                                     NULL, 0, FD_ERR_PARSE);
    cr_expect_not_null(strstr(message, "normal model 'none' (the materials never touch) takes no slide model"), "%s",
                       message);
    message = load_error("parameter.yaml",
                         HEADER "contacts:\n"
                                "  - materials: [steel, steel]\n"
                                "    normal: {model: none, k_n: 1.0e3}\n",
                         NULL, 0, FD_ERR_PARSE);
    cr_expect_not_null(strstr(message, "normal.k_n: unknown parameter 'k_n': normal model 'none' takes no parameters"),
                       "%s", message);
}
