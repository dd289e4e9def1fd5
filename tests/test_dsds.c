/* The discontinuous spring-dashpot-slider (C-SDS paper, Eq. 1-3). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "support/laws.h"
#include "support/support.h"

/* A 1 kg block (body i, created before the ground) on a plane with N = 10 N
 * prescribed; normal translation and all rotations locked. */
static fd_world* make_block(fd_vec3 velocity, uint32_t lock_translation, fd_vec3 external, double gamma)
{
    fd_world_def def = test_weightless_world_def(1e-4);
    def.contact_margin = 1e-9;
    fd_contact_law_def law = test_prescribed_law(10.0);
    test_set_sds(&law, FD_MECHANISM_SLIDE, "dsds", 1e4, gamma, 0.3);
    fd_body_def block = test_slider_def("block", 0.1, 1.0, 0.0);
    block.velocity = velocity;
    block.external_force = external;
    block.lock_translation = lock_translation;
    return test_body_on_ground(&def, &law, block);
}

Test(dsds, sliding_force_is_mu_n_against_the_motion_and_the_spring_is_reset_by_eq_3)
{
    /* Driven at 1 m/s (x velocity locked): gamma v = 50 N > mu N = 3 N, so the
     * contact slides from its first step. The force on the block is
     * -mu N x = -3 N x, and Eq. (3) sets xi = -(F + gamma v)/k
     * = (3 - 50) / 1e4 x = -4.7 mm x: loaded AGAINST the velocity, the D-SDS
     * artefact the C-SDS paper describes (Sec. 2). Exact up to round-off. */
    fd_world* world = make_block(fd_v3(1.0, 0, 0), FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z, fd_v3(0, 0, 0), 50.0);
    for (int s = 0; s < 10; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        fd_contact_view view;
        cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
        cr_assert_float_eq(view.loads.slide_force.x, -3.0, 1e-12);
        cr_assert_eq(test_column_value(world, &view, "slipping"), 1.0);
        cr_assert_float_eq(test_column_value(world, &view, "xi_x"), (3.0 - 50.0) / 1e4, 1e-15);
    }
    fd_world_free(world);
}

Test(dsds, sticking_contact_holds_a_load_below_mu_n_with_k_xi_equal_to_it)
{
    /* 2 N < mu N = 3 N pushes the block; with gamma = 2 sqrt(m k) = 200 N s/m
     * (critical) it settles within ~10 / sqrt(k/m) = 0.1 s; after 1 s the
     * spring carries the load: k xi = 2 N, the block at rest, in stick. */
    fd_world* world = make_block(fd_v3(0, 0, 0), FD_LOCK_Y | FD_LOCK_Z, fd_v3(2.0, 0, 0), 200.0);
    test_expect_the_spring_holds(world, 10000, 2.0, 1e4);
    fd_world_free(world);
}

Test(dsds, a_load_above_mu_n_slides_at_the_coulomb_rate)
{
    /* 5 N > 3 N: after the spring loads, a = (5 - 3) / 1 m/s^2 exactly. */
    fd_world* world = make_block(fd_v3(0, 0, 0), FD_LOCK_Y | FD_LOCK_Z, fd_v3(5.0, 0, 0), 0.0);
    fd_body_id block = fd_world_find_body(world, "block");
    double v1 = test_run_from_mark(world, block, 10000, 20000).velocity.x;
    double v2 = fd_body_get_state(world, block).velocity.x;
    cr_assert_float_eq(v2 - v1, 2.0, 1e-9, "a = %.12g", v2 - v1);
    fd_world_free(world);
}
