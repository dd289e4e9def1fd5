/* Fixtures of the contact-law tests: worlds, materials and bodies set up the
 * same way in many of them, and laws built from their sub-models. Each test
 * file is its own executable, so these are static inline. */
#ifndef FD_TESTS_LAWS_H
#define FD_TESTS_LAWS_H

#include <criterion/criterion.h>
#include <stdbool.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "support.h"

/* ---------------------------------------------------------------- worlds */

/* A world of the given definition; fails the test if it cannot be made. */
static inline fd_world* test_create_world(const fd_world_def* def)
{
    fd_world* world = fd_world_create(def);
    cr_assert_not_null(world, "%s", fd_last_error());
    return world;
}

/* The definition of a world without gravity: the contact-law tests load
 * their contacts themselves (a prescribed force, a driven body). */
static inline fd_world_def test_weightless_world_def(double time_step)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = time_step;
    def.gravity = fd_v3(0, 0, 0);
    return def;
}

/* ---------------------------------------------------------------- materials */

/* A material of the given definition; fails the test if it is refused. */
static inline fd_material_id test_create_material(fd_world* world, const fd_material_def* def)
{
    fd_material_id id = fd_world_create_material(world, def);
    cr_assert(!fd_material_id_is_null(id), "%s", fd_last_error());
    return id;
}

/* A material of the default properties under a name. */
static inline fd_material_id test_add_material(fd_world* world, const char* name)
{
    fd_material_def def = fd_default_material_def();
    def.name = name;
    return test_create_material(world, &def);
}

/* A material of the default properties but its density (kg/m^3) and
 * Young's modulus (Pa; 0 is the default: none given). */
static inline fd_material_id test_add_solid_material(fd_world* world, const char* name, double density,
                                                     double youngs_modulus)
{
    fd_material_def def = fd_default_material_def();
    def.name = name;
    def.density = density;
    def.youngs_modulus = youngs_modulus;
    return test_create_material(world, &def);
}

/* ---------------------------------------------------------------- laws */

/* A law whose only sub-model is the normal one, of one parameter (or none
 * when name is NULL): e.g. hooke k_n, pfc_linear kn, prescribed force. */
static inline fd_contact_law_def test_normal_law(const char* model, const char* name, double value)
{
    fd_contact_law_def law = fd_default_contact_law_def();
    fd_submodel_def* normal = test_set_model(&law, FD_MECHANISM_NORMAL, model);
    if (name != NULL) {
        test_add_param(normal, name, value);
    }
    return law;
}

/* A law whose normal force is prescribed: the friction tests load their
 * contact with a known N, whatever the overlap. */
static inline fd_contact_law_def test_prescribed_law(double force)
{
    return test_normal_law("prescribed", "force", force);
}

/* A spring-dashpot-slider (LAMMPS `tangential`, `rolling` or `twisting`
 * sds; models dsds, csds) for one mechanism: its stiffness, dashpot and
 * friction coefficient, under the names the mechanism gives them. */
static inline void test_set_sds(fd_contact_law_def* law, fd_mechanism mechanism, const char* model, double k,
                                double gamma, double mu)
{
    static const char* const names[FD_MECHANISM_COUNT][3] = {
        [FD_MECHANISM_SLIDE] = {"k_t", "gamma_t", "mu"},
        [FD_MECHANISM_ROLL] = {"k_roll", "gamma_roll", "mu_roll"},
        [FD_MECHANISM_SPIN] = {"k_twist", "gamma_twist", "mu_twist"},
    };
    cr_assert(names[mechanism][0] != NULL, "no sds for mechanism %d", (int)mechanism);
    fd_submodel_def* sub = test_set_model(law, mechanism, model);
    test_add_param(sub, names[mechanism][0], k);
    test_add_param(sub, names[mechanism][1], gamma);
    test_add_param(sub, names[mechanism][2], mu);
}

/* Parameters of one sub-model that a law must refuse, and what the message
 * of the refusal contains: a case of the tests of a model's checks. */
typedef struct test_refused_params {
    const char* names[3];
    double values[3];
    int count;
    const char* message;
} test_refused_params;

/* Sets `law` between a material and itself; fails the test if refused. */
static inline void test_set_law(fd_world* world, fd_material_id m, const fd_contact_law_def* law)
{
    cr_assert_eq(fd_world_set_contact_law(world, m, m, law), FD_OK, "%s", fd_last_error());
}

/* What a fresh world answers when `law` is set between a material "m" of
 * the default properties and itself: the checks a law meets when it is set
 * (the message of a refusal stays in fd_last_error()). */
static inline fd_status test_law_status(const fd_contact_law_def* law)
{
    fd_world_def def = fd_default_world_def();
    fd_world* world = test_create_world(&def);
    fd_material_id m = test_add_material(world, "m");
    fd_status status = fd_world_set_contact_law(world, m, m, law);
    fd_world_free(world);
    return status;
}

/* ---------------------------------------------------------------- bodies */

/* Creates a body; fails the test if it is refused. */
static inline fd_body_id test_create_body(fd_world* world, const fd_body_def* def)
{
    fd_body_id id = fd_world_create_body(world, def);
    cr_assert(!fd_body_id_is_null(id), "%s", fd_last_error());
    return id;
}

/* The definition of a free sphere of a material at a position and velocity. */
static inline fd_body_def test_sphere_def(fd_material_id material, const char* name, double radius, fd_vec3 position,
                                          fd_vec3 velocity)
{
    fd_body_def def = fd_default_body_def();
    def.name = name;
    def.shape.radius = radius;
    def.material = material;
    def.position = position;
    def.velocity = velocity;
    return def;
}

/* A free sphere of a material at a position and velocity. */
static inline fd_body_id test_add_sphere(fd_world* world, fd_material_id material, const char* name, double radius,
                                         fd_vec3 position, fd_vec3 velocity)
{
    fd_body_def def = test_sphere_def(material, name, radius, position, velocity);
    return test_create_body(world, &def);
}

/* A static plane of a material through a point, its outward normal n. */
static inline fd_body_id test_add_plane(fd_world* world, fd_material_id material, fd_vec3 n, fd_vec3 point)
{
    fd_body_def plane = fd_default_body_def();
    plane.type = FD_BODY_STATIC;
    plane.shape.type = FD_SHAPE_PLANE;
    plane.shape.plane_normal = n;
    plane.position = point;
    plane.material = material;
    return test_create_body(world, &plane);
}

/* A sphere standing on the ground plane z = 0, `overlap` into it, with every
 * rotation locked: the slider of the friction tests (unlock what a test
 * turns). */
static inline fd_body_def test_slider_def(const char* name, double radius, double mass, double overlap)
{
    fd_body_def def = fd_default_body_def();
    def.name = name;
    def.shape.radius = radius;
    def.mass = mass;
    def.position = fd_v3(0, 0, radius - overlap);
    def.lock_rotation = FD_LOCK_X | FD_LOCK_Y | FD_LOCK_Z;
    return def;
}

/* A world of the definition with one material "m" under `law`, and `body`
 * of that material on the ground plane (test_add_ground). The body is made
 * first: it is body i, the contact normal pointing from the ground into it. */
static inline fd_world* test_body_on_ground(const fd_world_def* def, const fd_contact_law_def* law, fd_body_def body)
{
    fd_world* world = test_create_world(def);
    fd_material_id m = test_add_material(world, "m");
    test_set_law(world, m, law);
    body.material = m;
    test_create_body(world, &body);
    test_add_ground(world, m);
    return world;
}

/* Steps a world until the bodies that touched have all parted (an impact
 * over), for at most max_steps steps. */
static inline void test_step_through_impact(fd_world* world, int max_steps)
{
    bool touched = false;
    for (int s = 0; s < max_steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        int contacts = fd_world_contact_count(world);
        touched = touched || contacts > 0;
        if (touched && contacts == 0) {
            break;
        }
    }
}

/* Steps a world `steps` times and returns the body's state after the first
 * `mark` of them: the start of the window over which a test measures a rate
 * (the state at its end is the body's state on return). */
static inline fd_body_state test_run_from_mark(fd_world* world, fd_body_id body, int mark, int steps)
{
    fd_body_state at_mark = fd_body_get_state(world, body);
    for (int s = 1; s <= steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        if (s == mark) {
            at_mark = fd_body_get_state(world, body);
        }
    }
    return at_mark;
}

/* ---------------------------------------------------------------- checks */

/* Runs `steps` steps of a world whose one contact holds a block (body
 * "block") pushed along +x by `load`, below the friction cap, and asserts
 * the spring-dashpot-slider ended in stick carrying it: slide force -load,
 * the spring k_t xi = load, the block at rest. */
static inline void test_expect_the_spring_holds(fd_world* world, int steps, double load, double k_t)
{
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    }
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
    cr_assert_float_eq(view.loads.slide_force.x, -load, 1e-9);
    cr_assert_float_eq(test_column_value(world, &view, "xi_x"), load / k_t, 1e-12);
    cr_assert_eq(test_column_value(world, &view, "slipping"), 0.0);
    fd_body_state state = fd_body_get_state(world, fd_world_find_body(world, "block"));
    cr_assert_float_eq(state.velocity.x, 0.0, 1e-9);
}

/* The demo's law (scenes/demo.yaml): hooke k_n = 2e4 N/m, restitution 0.3;
 * Fang & Negrut slide (mu_s 0.6, mu_k 0.5, K_E = 2e4 N/m, K_D critical) and
 * roll (eta_r 0.4, K_R and D_R by default). */
static inline fd_contact_law_def test_demo_law(void)
{
    fd_contact_law_def law = fd_default_contact_law_def();
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "k_n", 2e4);
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", 0.3);
    law.submodel[FD_MECHANISM_SLIDE].model = "fang_negrut";
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "mu_s", 0.6);
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "mu_k", 0.5);
    test_add_param(&law.submodel[FD_MECHANISM_SLIDE], "K_E", 2e4);
    law.submodel[FD_MECHANISM_ROLL].model = "fang_negrut";
    test_add_param(&law.submodel[FD_MECHANISM_ROLL], "eta_r", 0.4);
    return law;
}

#endif
