/* Scene loader (src/io/scene*.c): a good scene gives the right world; every
 * class of error gives FD_ERR_PARSE (FD_ERR_IO for an unreadable file) and a
 * message "FILE:LINE: key.path: ..." with the right line and path; --set
 * overrides change values and fail clearly; the lattice generator is
 * reproducible to the bit; docs/scene-format.md matches the key tables.
 * The YAML files are written into a fresh temporary directory per test. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/file.h"
#include "io/scene_loader.h"

static const double PI = 3.14159265358979323846;

#include "support/scene.h"

TestSuite(scene, .init = make_dir, .fini = remove_dir);

/* ---------------------------------------------------------------- a good scene */

static const char good_scene[] = "name: drop test\n"
                                 "description: a ball on a plane\n"
                                 "time:\n"
                                 "  step: 2.0e-5\n"
                                 "  duration: 0.5\n"
                                 "  integrator: velocity_verlet\n"
                                 "world:\n"
                                 "  gravity: [0, -1, -9]\n"
                                 "  contact_margin: 1e-6\n"
                                 "  threads: 2\n"
                                 "materials:\n"
                                 "  - name: steel\n"
                                 "    density: 7800\n"
                                 "    youngs_modulus: 2.1e11\n"
                                 "  - {name: rubber, density: 1100, poisson_ratio: 0.45}\n"
                                 "contacts:\n"
                                 "  - materials: [steel, steel]\n"
                                 "    normal: {model: hooke, k_n: 1e6, restitution: 0.5}\n"
                                 "  - materials: [rubber, steel]\n"
                                 "    normal: {model: hooke, k_n: 2e5}\n"
                                 "    slide: {model: none}\n"
                                 "bodies:\n"
                                 "  - name: floor\n"
                                 "    static: true\n"
                                 "    material: steel\n"
                                 "    shape: {type: plane, normal: [0, 0, 2]}\n"
                                 "  - name: ball\n"
                                 "    material: steel\n"
                                 "    shape: {type: sphere, radius: 0.01}\n"
                                 "    position: [0, 0, 0.05]\n"
                                 "    velocity: [1, 0, 0]\n"
                                 "    angular_velocity: [0, 3, 0]\n"
                                 "    rotation: {axis: [0, 0, 2], angle: 1.5707963267948966}\n"
                                 "  - name: egg\n"
                                 "    material: rubber\n"
                                 "    shape: {type: ellipsoid, semi_axes: [0.01, 0.01, 0.02]}\n"
                                 "    position: [0.1, 0, 0.05]\n"
                                 "    orientation: [1, 0, 0, 1e-7]\n"
                                 "    mass: 0.25\n"
                                 "    inertia: [1e-5, 1e-5, 2e-5]\n"
                                 "    lock: {translation: [x, y], rotation: [z]}\n"
                                 "output:\n"
                                 "  directory: results/here\n"
                                 "  csv_interval: 0.002\n"
                                 "  contacts_csv: false\n"
                                 "  vtu_interval: 0.01\n";

Test(scene, good_scene_loads_with_the_right_values)
{
    fd_scene scene = load_ok("good.yaml", good_scene, NULL, 0);
    cr_assert_str_eq(scene.name, "drop test");
    cr_assert_eq(scene.duration, 0.5);
    cr_assert_str_eq(scene.output.directory, "results/here");
    cr_assert_eq(scene.output.csv_interval, 0.002);
    cr_assert(scene.output.bodies_csv && !scene.output.contacts_csv && scene.output.energy_csv);
    cr_assert_eq(scene.output.vtu_interval, 0.01);

    fd_world_def def = fd_world_get_def(scene.world);
    cr_assert_eq(def.time_step, 2.0e-5);
    cr_assert_eq(def.integrator, FD_INTEGRATOR_VELOCITY_VERLET);
    cr_assert_eq(def.gravity.y, -1.0);
    cr_assert_eq(def.gravity.z, -9.0);
    cr_assert_eq(def.contact_margin, 1e-6);
    cr_assert_eq(def.thread_count, 2);

    cr_assert_eq(fd_world_material_count(scene.world), 2);
    cr_assert_eq(fd_world_body_count(scene.world), 3);

    fd_body_info floor = fd_body_get_info(scene.world, body(&scene, "floor"));
    cr_assert_eq(floor.type, FD_BODY_STATIC);
    cr_assert_eq(floor.shape.type, FD_SHAPE_PLANE);

    fd_body_id ball = body(&scene, "ball");
    fd_body_state s = fd_body_get_state(scene.world, ball);
    cr_assert_eq(s.position.z, 0.05);
    cr_assert_eq(s.velocity.x, 1.0);
    cr_assert_eq(s.angular_velocity.y, 3.0);
    /* rotation by pi/2 about z: (cos pi/4, 0, 0, sin pi/4) */
    cr_assert_float_eq(s.orientation.w, sqrt(0.5), 1e-15);
    cr_assert_float_eq(s.orientation.z, sqrt(0.5), 1e-15);
    cr_assert_eq(s.orientation.x, 0.0);
    fd_body_info info = fd_body_get_info(scene.world, ball);
    cr_assert_eq(info.shape.radius, 0.01);
    cr_assert_eq(info.type, FD_BODY_DYNAMIC);
    cr_assert_float_eq(info.mass, 7800.0 * 4.0 / 3.0 * PI * 1e-6, 1e-12);
    cr_assert_eq(fd_material_id_is_null(info.material), false);
    cr_assert_str_eq(fd_material_name(scene.world, info.material), "steel");

    fd_body_id egg = body(&scene, "egg");
    fd_body_info egg_info = fd_body_get_info(scene.world, egg);
    cr_assert_eq(egg_info.mass, 0.25);
    cr_assert_eq(egg_info.inertia.z, 2e-5);
    cr_assert_eq(egg_info.shape.semi_axes.z, 0.02);
    fd_quat q = fd_body_get_state(scene.world, egg).orientation;
    cr_assert_float_eq(q.w * q.w + q.z * q.z, 1.0, 1e-15, "near-unit quaternion is normalised");
    fd_scene_free(&scene);
}

Test(scene, defaults_and_name_from_file_stem)
{
    fd_scene scene = load_ok("my_scene.yaml",
                             HEADER "bodies:\n"
                                    "  - material: steel\n"
                                    "    shape: {type: sphere, radius: 0.5}\n",
                             NULL, 0);
    cr_assert_str_eq(scene.name, "my_scene");
    cr_assert_str_eq(scene.output.directory, "out/my_scene");
    cr_assert_eq(scene.output.csv_interval, 1e-3);
    cr_assert(scene.output.bodies_csv && scene.output.contacts_csv && scene.output.energy_csv);
    cr_assert_eq(scene.output.vtu_interval, 0.0);
    fd_world_def def = fd_world_get_def(scene.world);
    cr_assert_eq(def.gravity.z, -9.81);
    cr_assert_eq(def.integrator, FD_INTEGRATOR_SYMPLECTIC_EULER);
    cr_assert_eq(def.thread_count, 1);
    cr_assert_eq(def.contact_margin, 0.0);
    fd_body_state s = fd_body_get_state(scene.world, fd_world_body_at(scene.world, 0));
    cr_assert_eq(s.orientation.w, 1.0);
    cr_assert_eq(s.position.x, 0.0);
    fd_scene_free(&scene);
}

/* Every scene of scenes/examples/ loads and prepares (a new example is
 * covered without a list to keep). */
Test(scene, example_scenes_load)
{
    char folder[1024];
    snprintf(folder, sizeof folder, "%s/scenes/examples", FRICDEM_SOURCE_DIR);
    DIR* directory = opendir(folder);
    cr_assert_not_null(directory, "cannot list %s", folder);
    int loaded = 0;
    for (struct dirent* entry; (entry = readdir(directory)) != NULL;) {
        size_t length = strlen(entry->d_name);
        if (length < 6 || strcmp(entry->d_name + length - 5, ".yaml") != 0) {
            continue;
        }
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        ++loaded;
        fd_scene scene;
        fd_status status = fd_scene_load(path, NULL, 0, &scene);
        cr_assert_eq(status, FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s: %s", path, fd_last_error());
        fd_scene_free(&scene);
    }
    closedir(directory);
    cr_assert_geq(loaded, 4, "the examples: ball_on_plane, lattice_pack, tilt_box, drum, ...");
}

/* ---------------------------------------------------------------- errors: keys */

/* HEADER and the start of one steel body (lines 5-6): the body's own keys
 * start at line 7. */
#define STEEL_BODY                                                                                                     \
    HEADER "bodies:\n"                                                                                                 \
           "  - material: steel\n"
/* STEEL_BODY as a sphere of radius 0.1 (line 7): a key added to it stands at
 * line 8. */
#define STEEL_SPHERE STEEL_BODY "    shape: {type: sphere, radius: 0.1}\n"
/* HEADER and the start of a steel-steel contact law (lines 5-6): its own
 * keys start at line 7. */
#define STEEL_CONTACT                                                                                                  \
    HEADER "contacts:\n"                                                                                               \
           "  - materials: [steel, steel]\n"

Test(scene, spec_example_negative_radius)
{
    expect_error_at("x.yaml",
                    STEEL_SPHERE "  - material: steel\n"
                                 "    shape:\n"
                                 "      type: sphere\n"
                                 "      radius: -0.1\n",
                    11, "bodies[1].shape.radius", "must be > 0 (got -0.1)", NULL);
}

Test(scene, unknown_key_with_suggestion)
{
    expect_error_at("typo.yaml", STEEL_SPHERE "    velocty: [1, 0, 0]\n", 8, "bodies[0].velocty",
                    "unknown key 'velocty'", "did you mean 'velocity'?", NULL);
    expect_error_at("top.yaml", HEADER "bodys: []\n", 5, "bodys", "did you mean 'bodies'?", NULL);
    expect_error_at("nested.yaml", HEADER "world: {gravty: [0, 0, -1]}\n", 5, "world.gravty", "did you mean 'gravity'?",
                    NULL);
}

Test(scene, unknown_key_without_suggestion_lists_the_keys)
{
    expect_error_at("unknown.yaml", HEADER "world:\n  colour: red\n", 6, "world.colour", "unknown key 'colour'",
                    "valid keys here: gravity, contact_margin, cell_size, neighbor_skin, energy_ledger, lammps_arms, "
                    "lammps_legacy_torque, threads",
                    NULL);
}

Test(scene, missing_required_keys)
{
    expect_error_at("material.yaml",
                    HEADER "bodies:\n"
                           "  - name: a\n"
                           "    shape: {type: sphere, radius: 0.1}\n",
                    6, "bodies[0].material", "required key is missing", NULL);
    expect_error_at("time.yaml", "materials: [{name: a}]\n", 1, "time", "required key is missing", NULL);
    expect_error_at("step.yaml", "time:\n  duration: 1\nmaterials: [{name: a}]\n", 2, "time.step",
                    "required key is missing", NULL);
    expect_error_at("materials.yaml", "time: {step: 1, duration: 1}\n", 1, "materials", "required key is missing",
                    NULL);
    expect_error_at("radius.yaml", STEEL_BODY "    shape: {type: sphere}\n", 7, "bodies[0].shape.radius",
                    "required key is missing (for a sphere)", NULL);
    expect_error_at("normal.yaml", STEEL_CONTACT, 6, "contacts[0].normal", "required key is missing", NULL);
}

Test(scene, wrong_types)
{
    expect_error_at("quoted.yaml", STEEL_BODY "    shape: {type: sphere, radius: \"0.1\"}\n", 7,
                    "bodies[0].shape.radius", "expected a number, got the quoted string \"0.1\"", NULL);
    expect_error_at("word.yaml", STEEL_SPHERE "    mass: heavy\n", 8, "bodies[0].mass",
                    "expected a number, got 'heavy'", NULL);
    expect_error_at("short.yaml", STEEL_SPHERE "    position: [1, 2]\n", 8, "bodies[0].position",
                    "expected [x, y, z] (3 numbers), got a sequence of 2", NULL);
    expect_error_at("component.yaml",
                    STEEL_SPHERE "    velocity:\n"
                                 "      - 1\n"
                                 "      - fast\n"
                                 "      - 0\n",
                    10, "bodies[0].velocity[1]", "expected a number, got 'fast'", NULL);
    expect_error_at("mapping.yaml", "time: {step: 1, duration: 1}\nmaterials: {name: a}\n", 2, "materials",
                    "expected a sequence", NULL);
    expect_error_at("scalar.yaml", HEADER "world: 3\n", 5, "world", "expected a mapping", NULL);
    expect_error_at("int.yaml", HEADER "world: {threads: 2.5}\n", 5, "world.threads", "expected an integer, got '2.5'",
                    NULL);
    expect_error_at("bool.yaml", HEADER "output: {bodies_csv: yes}\n", 5, "output.bodies_csv",
                    "expected true or false, got 'yes'", NULL);
    expect_error_at("enum.yaml", "time: {step: 1, duration: 1, integrator: verlet}\nmaterials: [{name: a}]\n", 1,
                    "time.integrator", "unknown value 'verlet'", "symplectic_euler, velocity_verlet", NULL);
    expect_error_at("shape.yaml", STEEL_BODY "    shape: {type: sphear, radius: 1}\n", 7, "bodies[0].shape.type",
                    "did you mean 'sphere'?", NULL);
    expect_error_at("inf.yaml", HEADER "world: {gravity: [0, 0, inf]}\n", 5, "world.gravity[2]",
                    "expected a finite number", NULL);
    expect_error_at("root.yaml", "just a line\n", 1, NULL, "expected a mapping", NULL);
}

Test(scene, duplicate_keys)
{
    expect_error_at("top.yaml", HEADER "time: {step: 1}\n", 5, "time", "duplicate key (first given at line 1)", NULL);
    expect_error_at("nested.yaml", STEEL_BODY "    shape: {type: sphere, radius: 0.1, radius: 0.2}\n", 7,
                    "bodies[0].shape.radius", "duplicate key (first given at line 7)", NULL);
    expect_error_at("param.yaml", STEEL_CONTACT "    normal: {model: hooke, k_n: 1, k_n: 2}\n", 7,
                    "contacts[0].normal.k_n", "duplicate key", NULL);
}

Test(scene, out_of_range_values)
{
    expect_error_at("mass.yaml", STEEL_SPHERE "    mass: -2\n", 8, "bodies[0].mass", "must be > 0 (got -2)", NULL);
    expect_error_at("inertia.yaml", STEEL_SPHERE "    inertia: [1, 0, 1]\n", 8, "bodies[0].inertia[1]",
                    "must be > 0 (got 0)", NULL);
    expect_error_at("poisson.yaml", HEADER "    poisson_ratio: 0.5\n", 5, "materials[0].poisson_ratio",
                    "must be in [-1, 0.5) (got 0.5)", NULL);
    expect_error_at("density.yaml", HEADER "  - {name: air, density: 0}\n", 5, "materials[1].density",
                    "must be > 0 (got 0)", NULL);
    expect_error_at("step.yaml", "time: {step: 0, duration: 1}\nmaterials: [{name: a}]\n", 1, "time.step",
                    "must be > 0 (got 0)", NULL);
    expect_error_at("threads.yaml", HEADER "world: {threads: 0}\n", 5, "world.threads", "must be in [1, 4096] (got 0)",
                    NULL);
    expect_error_at("margin.yaml", HEADER "world: {contact_margin: -1e-3}\n", 5, "world.contact_margin", "must be >= 0",
                    NULL);
    expect_error_at("restitution.yaml",
                    STEEL_CONTACT "    normal:\n"
                                  "      model: hooke\n"
                                  "      k_n: 1e5\n"
                                  "      restitution: 1.5\n",
                    10, "contacts[0].normal.restitution", "must be in [", "(got 1.5)", NULL);
}

Test(scene, quaternions_and_rotations)
{
    expect_error_at("quat.yaml", STEEL_SPHERE "    orientation: [1, 0, 0, 0.1]\n", 8, "bodies[0].orientation",
                    "must be a unit quaternion", NULL);
    expect_error_at("both.yaml",
                    STEEL_SPHERE "    orientation: [1, 0, 0, 0]\n"
                                 "    rotation: {axis: [0, 0, 1], angle: 1}\n",
                    9, "bodies[0].rotation", "either orientation or rotation, not both", NULL);
    expect_error_at("axis.yaml", STEEL_SPHERE "    rotation: {axis: [0, 0, 0], angle: 1}\n", 8,
                    "bodies[0].rotation.axis", "must not be zero", NULL);
    expect_error_at("frame.yaml", STEEL_SPHERE "    lock: {translation: [x, w]}\n", 8, "bodies[0].lock.translation[1]",
                    "expected an axis: x, y or z, got 'w'", NULL);
}

Test(scene, shape_keys_must_match_the_type)
{
    expect_error_at("plane_radius.yaml",
                    STEEL_BODY "    static: true\n"
                               "    shape: {type: plane, radius: 1}\n",
                    8, "bodies[0].shape.radius", "not used by a plane", NULL);
    expect_error_at("plane_dynamic.yaml", STEEL_BODY "    shape: {type: plane}\n", 7, "bodies[0].shape.type",
                    "a plane must be a static body", NULL);
    expect_error_at("ellipsoid.yaml",
                    STEEL_BODY "    shape:\n"
                               "      type: ellipsoid\n"
                               "      radius: 1\n",
                    9, "bodies[0].shape.radius", "not used by an ellipsoid", NULL);
}

Test(scene, a_static_body_with_a_velocity_is_refused)
{
    /* Issue 10 Sec. 5: it used to be ignored silently (a static body never
     * moves); both keys are refused at their own line, a zero one is fine. */
    expect_error_at("static_velocity.yaml",
                    STEEL_BODY "    static: true\n"
                               "    shape: {type: sphere, radius: 0.1}\n"
                               "    velocity: [1, 0, 0]\n",
                    9, "bodies[0].velocity", "moves only by a prescribed 'motion'", "static: false", NULL);
    expect_error_at("static_spin.yaml",
                    STEEL_BODY "    static: true\n"
                               "    shape: {type: plane}\n"
                               "    angular_velocity: [0, 0, 2]\n",
                    9, "bodies[0].angular_velocity", "moves only by a prescribed 'motion'", NULL);
    fd_scene scene = load_ok("static_at_rest.yaml",
                             STEEL_BODY "    static: true\n"
                                        "    shape: {type: plane}\n"
                                        "    velocity: [0, 0, 0]\n",
                             NULL, 0);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- errors: names */

/* A lattice generator's entry (five lines: type, count, material, radius,
 * region) of `count` spheres of `material`, radius 0.1 m, in the unit box:
 * the name, material and fit errors below each put one under
 * "generators:". */
#define UNIT_BOX_LATTICE(count, material)                                                                              \
    "  - type: lattice\n"                                                                                              \
    "    count: " #count "\n"                                                                                          \
    "    material: " #material "\n"                                                                                    \
    "    radius: 0.1\n"                                                                                                \
    "    region: {min: [0, 0, 0], max: [1, 1, 1]}\n"

Test(scene, duplicate_names)
{
    expect_error_at("materials.yaml", HEADER "  - name: steel\n", 5, "materials[1].name",
                    "duplicate material name 'steel' (first used at line 3)", NULL);
    expect_error_at("bodies.yaml",
                    HEADER "bodies:\n"
                           "  - {name: a, material: steel, shape: {type: sphere, radius: 0.1}}\n"
                           "  - {name: a, material: steel, shape: {type: sphere, radius: 0.1}}\n",
                    7, "bodies[1].name", "duplicate body name 'a' (first used at line 6)", NULL);
    expect_error_at("generated.yaml",
                    HEADER "bodies:\n"
                           "  - {name: grain3, material: steel, shape: {type: sphere, radius: 0.1}}\n"
                           "generators:\n" UNIT_BOX_LATTICE(8, steel),
                    8, "generators[0]", "'grain3' is already used (at line 6)", NULL);
    expect_error_at("contacts.yaml",
                    HEADER "  - name: glass\n"
                           "contacts:\n"
                           "  - materials: [steel, glass]\n"
                           "    normal: {model: hooke, k_n: 1}\n"
                           "  - materials: [glass, steel]\n"
                           "    normal: {model: hooke, k_n: 2}\n",
                    9, "contacts[1].materials", "a second contact law for materials glass and steel (first at line 7)",
                    NULL);
}

Test(scene, unknown_material_references)
{
    expect_error_at("body.yaml",
                    HEADER "bodies:\n"
                           "  - material: steal\n"
                           "    shape: {type: sphere, radius: 0.1}\n",
                    6, "bodies[0].material", "unknown material 'steal'", "did you mean 'steel'?", "materials: steel",
                    NULL);
    expect_error_at("contact.yaml",
                    HEADER "contacts:\n"
                           "  - materials: [steel, wood]\n"
                           "    normal: {model: hooke, k_n: 1}\n",
                    6, "contacts[0].materials[1]", "unknown material 'wood' (materials: steel)", NULL);
    expect_error_at("generator.yaml",
                    HEADER "generators:\n" UNIT_BOX_LATTICE(1, glass),
                    8, "generators[0].material", "unknown material 'glass'", NULL);
}

/* ---------------------------------------------------------------- errors: contact models */

Test(scene, unknown_models_and_parameters_list_the_valid_names)
{
    expect_error_at("model.yaml", STEEL_CONTACT "    normal: {model: hook, k_n: 1}\n", 7, "contacts[0].normal.model",
                    "unknown normal model 'hook'", "did you mean 'hooke'?", "hertz", "prescribed", NULL);
    expect_error_at("param.yaml",
                    STEEL_CONTACT "    normal:\n"
                                  "      model: hooke\n"
                                  "      stiffness: 1e5\n",
                    9, "contacts[0].normal.stiffness", "unknown parameter 'stiffness' of normal model 'hooke'",
                    "parameters: k_n, restitution", NULL);
    expect_error_at("slide.yaml",
                    STEEL_CONTACT "    normal: {model: hooke, k_n: 1}\n"
                                  "    slide: {model: coulomb}\n",
                    8, "contacts[0].slide.model", "unknown slide model 'coulomb'", "none", NULL);
    expect_error_at("none.yaml",
                    STEEL_CONTACT "    normal: {model: hooke, k_n: 1}\n"
                                  "    roll: {model: none, mu: 1}\n",
                    8, "contacts[0].roll.mu", "takes no parameters", NULL);
    /* `none` is a normal model too (materials that never touch,
     * tests/test_never_touch.c): listed among the valid names. */
    expect_error_at("normalunknown.yaml", STEEL_CONTACT "    normal: {model: spring}\n", 7, "contacts[0].normal.model",
                    "unknown normal model 'spring'", "none, prescribed, hooke", NULL);
    expect_error_at("nomodel.yaml", STEEL_CONTACT "    normal: {k_n: 1}\n", 7, "contacts[0].normal.model",
                    "required key is missing", "hooke", NULL);
}

Test(scene, contact_law_errors_of_the_world_name_the_entry)
{
    /* k_n is required by hooke: fd_world_set_contact_law says so. */
    expect_error_at("law.yaml", STEEL_CONTACT "    normal: {model: hooke, restitution: 0.5}\n", 6, "contacts[0]", "k_n",
                    NULL);
}

/* ---------------------------------------------------------------- errors: YAML and files */

Test(scene, yaml_syntax_errors_give_the_line)
{
    expect_error_at("flow.yaml",
                    HEADER "bodies:\n"
                           "  - {name: a, material: steel, shape: {type: sphere, radius: 0.1}\n",
                    7, NULL, "YAML syntax error", NULL);
    expect_error_at("indent.yaml",
                    HEADER "bodies:\n"
                           "  - name: a\n"
                           "     material: steel\n",
                    7, NULL, "YAML syntax error", NULL);
    expect_error_at("tab.yaml", HEADER "bodies:\n\t- name: a\n", 6, NULL, "YAML syntax error", NULL);
    expect_error_at("empty.yaml", "", 1, NULL, "holds no scene", NULL);
    expect_error_at("two.yaml", HEADER "---\ntime: {step: 1}\n", 6, NULL, "a second YAML document", NULL);
}

Test(scene, unreadable_file_is_an_io_error)
{
    fd_scene scene;
    char path[512];
    snprintf(path, sizeof path, "%s/missing.yaml", temp_dir);
    cr_assert_eq(fd_scene_load(path, NULL, 0, &scene), FD_ERR_IO);
    cr_assert(strstr(fd_last_error(), "missing.yaml"), "%s", fd_last_error());
    cr_assert_eq(fd_scene_load(temp_dir, NULL, 0, &scene), FD_ERR_IO);
    cr_assert(strstr(fd_last_error(), "is a directory"), "%s", fd_last_error());
}

/* ---------------------------------------------------------------- overrides */

static const char override_scene[] = HEADER "  - name: glass\n"
                                            "    density: 2500\n"
                                            "contacts:\n"
                                            "  - materials: [steel, steel]\n"
                                            "    normal: {model: hooke, k_n: 1e5, restitution: 0.9}\n"
                                            "bodies:\n"
                                            "  - name: floor\n"
                                            "    static: true\n"
                                            "    material: steel\n"
                                            "    shape: {type: plane}\n"
                                            "  - name: ball\n"
                                            "    material: glass\n"
                                            "    shape: {type: sphere, radius: 0.1}\n"
                                            "    position: [0, 0, 1]\n";

Test(scene, overrides_change_values)
{
    const char* sets[] = {
        "bodies.ball.velocity=[1, 0, 0]", /* by name */
        "bodies.1.position=[0,0,2]",      /* by index */
        "time.step=2e-5",
        "materials.glass.density=5000",
        "contacts.0.normal.restitution=0.5",
        "world.threads=3", /* the world block does not exist: created */
        "output.directory='some dir'",
        "name=renamed",
    };
    fd_scene scene = load_ok("over.yaml", override_scene, sets, (int)(sizeof sets / sizeof sets[0]));
    fd_body_id ball = body(&scene, "ball");
    fd_body_state s = fd_body_get_state(scene.world, ball);
    cr_assert_eq(s.velocity.x, 1.0);
    cr_assert_eq(s.position.z, 2.0);
    cr_assert_eq(fd_world_time_step(scene.world), 2e-5);
    cr_assert_float_eq(fd_body_get_info(scene.world, ball).mass, 5000.0 * 4.0 / 3.0 * PI * 1e-3, 1e-12);
    cr_assert_eq(fd_world_get_def(scene.world).thread_count, 3);
    cr_assert_str_eq(scene.output.directory, "some dir");
    cr_assert_str_eq(scene.name, "renamed");
    fd_scene_free(&scene);

    /* Adding a key that the file does not have. */
    const char* mass[] = {"bodies.ball.mass=2"};
    scene = load_ok("over2.yaml", override_scene, mass, 1);
    cr_assert_eq(fd_body_get_info(scene.world, body(&scene, "ball")).mass, 2.0);
    fd_scene_free(&scene);
}

static void expect_override_error(const char* set, const char* expected_start, const char* fragment)
{
    const char* message = load_error("over.yaml", override_scene, &set, 1, FD_ERR_PARSE);
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s/over.yaml: %s", temp_dir, expected_start);
    cr_assert(strncmp(message, prefix, strlen(prefix)) == 0, "message\n  %s\ndoes not start with\n  %s", message,
              prefix);
    if (fragment) {
        cr_assert(strstr(message, fragment), "message\n  %s\nlacks\n  %s", message, fragment);
    }
}

Test(scene, bad_overrides_fail_clearly)
{
    expect_override_error("bodies.bal.velocity=[1,0,0]", "--set bodies.bal.velocity: no entry named 'bal' in bodies",
                          "did you mean 'ball'?");
    expect_override_error("bodies.7.velocity=[1,0,0]", "--set bodies.7.velocity: no entry '7' in bodies", "it has 2");
    expect_override_error("bodies.ball.velocty=[1,0,0]",
                          "--set bodies.ball.velocty: bodies[1].velocty: ", "did you mean 'velocity'?");
    expect_override_error("bodies.ball.mass=-1", "--set bodies.ball.mass: bodies[1].mass: must be > 0 (got -1)", NULL);
    expect_override_error("bodies.ball.velocity=[1,0", "--set bodies.ball.velocity: cannot parse the value",
                          "YAML syntax error");
    expect_override_error("bodies.ball.velocity=[1,0]",
                          "--set bodies.ball.velocity: bodies[1].velocity: ", "got a sequence of 2");
    expect_override_error("time.step.x=1", "--set time.step.x: 'time.step' is a single value", NULL);
    expect_override_error("time.step", "--set time.step: expected key.path=value", NULL);
    expect_override_error("time..step=1", "--set time..step: empty key in the path", NULL);
    expect_override_error("generators.0.seed=3", "--set generators.0.seed: there is no sequence 'generators'", NULL);
    expect_override_error("contacts.0.normal.model=hook",
                          "--set contacts.0.normal.model: contacts[0].normal.model: ", "did you mean 'hooke'?");
}

/* ---------------------------------------------------------------- generator */

static const char lattice_scene[] = HEADER "generators:\n"
                                           "  - type: lattice\n"
                                           "    count: 50\n"
                                           "    material: steel\n"
                                           "    radius: 0.01\n"
                                           "    radius_spread: 0.3\n"
                                           "    region: {min: [-0.05, -0.05, 0], max: [0.05, 0.05, 0.2]}\n"
                                           "    velocity: [0, 0, -1]\n"
                                           "    seed: 7\n";

Test(scene, generator_same_seed_gives_bitwise_the_same_bodies)
{
    fd_scene a = load_ok("a.yaml", lattice_scene, NULL, 0);
    fd_scene b = load_ok("b.yaml", lattice_scene, NULL, 0);
    cr_assert_eq(fd_world_body_count(a.world), 50);
    cr_assert_eq(fd_world_body_count(b.world), 50);
    for (int i = 0; i < 50; ++i) {
        fd_body_state sa = fd_body_get_state(a.world, fd_world_body_at(a.world, i));
        fd_body_state sb = fd_body_get_state(b.world, fd_world_body_at(b.world, i));
        cr_assert(memcmp(&sa, &sb, sizeof sa) == 0, "body %d differs", i);
        double ra = fd_body_get_info(a.world, fd_world_body_at(a.world, i)).shape.radius;
        double rb = fd_body_get_info(b.world, fd_world_body_at(b.world, i)).shape.radius;
        cr_assert_eq(bits(ra), bits(rb));
    }
    cr_assert_eq(fd_world_state_hash(a.world), fd_world_state_hash(b.world));
    fd_scene_free(&a);
    fd_scene_free(&b);
}

Test(scene, generator_different_seed_differs)
{
    const char* seed[] = {"generators.0.seed=8"};
    fd_scene a = load_ok("a.yaml", lattice_scene, NULL, 0);
    fd_scene b = load_ok("b.yaml", lattice_scene, seed, 1);
    int differing = 0;
    for (int i = 0; i < 50; ++i) {
        fd_body_state sa = fd_body_get_state(a.world, fd_world_body_at(a.world, i));
        fd_body_state sb = fd_body_get_state(b.world, fd_world_body_at(b.world, i));
        differing += memcmp(&sa.position, &sb.position, sizeof sa.position) != 0;
    }
    cr_assert_eq(differing, 50);
    fd_scene_free(&a);
    fd_scene_free(&b);
}

Test(scene, generator_bodies_fit_their_region_without_overlap)
{
    fd_scene scene = load_ok("a.yaml", lattice_scene, NULL, 0);
    int n = fd_world_body_count(scene.world);
    for (int i = 0; i < n; ++i) {
        fd_vec3 p;
        /* Radii 0.01 x [0.7, 1.3]. */
        double radius = expect_generated_sphere(&scene, i, "grain", 0.007, 0.013, fd_v3(-0.05, -0.05, 0.0),
                                                fd_v3(0.05, 0.05, 0.2), &p);
        for (int j = 0; j < i; ++j) {
            fd_body_id other = fd_world_body_at(scene.world, j);
            fd_body_state t = fd_body_get_state(scene.world, other);
            double gap = sqrt(pow(p.x - t.position.x, 2) + pow(p.y - t.position.y, 2) + pow(p.z - t.position.z, 2)) -
                         radius - fd_body_get_info(scene.world, other).shape.radius;
            cr_assert(gap >= 0.0, "grains %d and %d overlap by %g", i, j, -gap);
        }
    }
    fd_scene_free(&scene);
}

/* The Philox stream is part of the format: these bits must not change from
 * one machine or release to the next (Philox-4x64-10, key (7, 0), counter
 * (0, 0, 0, 0), radius 0.01 (1 + 0.3 (2 u0 - 1)), x from u1). The values were
 * checked against an independent Python Philox-4x64-10 written from the
 * paper's round function. */
#define GOLDEN_RADIUS_BITS UINT64_C(0x3f89678f8e83711a) /* 0x1.9678f8e83711ap-7 */
#define GOLDEN_X_BITS UINT64_C(0xbf9a746f2f7e4d71)      /* -0x1.a746f2f7e4d71p-6 */
Test(scene, generator_golden_first_body)
{
    fd_scene scene = load_ok("a.yaml", lattice_scene, NULL, 0);
    fd_body_id id = fd_world_body_at(scene.world, 0);
    double radius = fd_body_get_info(scene.world, id).shape.radius;
    fd_vec3 p = fd_body_get_state(scene.world, id).position;
    cr_assert_eq(bits(radius), GOLDEN_RADIUS_BITS, "radius %a", radius);
    cr_assert_eq(bits(p.x), GOLDEN_X_BITS, "x %a", p.x);
    fd_scene_free(&scene);
}

Test(scene, generator_spacing_and_velocity_spread_make_a_dilute_gas)
{
    /* 10 x 10 x 10 sites of spacing 0.1 m fill the unit box exactly; each
     * sphere stays within jitter x (spacing / 2 - r) of its site. */
    const char* text = HEADER "generators:\n"
                              "  - type: lattice\n"
                              "    count: 1000\n"
                              "    material: steel\n"
                              "    radius: 0.01\n"
                              "    spacing: 0.1\n"
                              "    jitter: 1\n"
                              "    region: {min: [0, 0, 0], max: [1, 1, 1]}\n"
                              "    velocity: [1, 0, 0]\n"
                              "    velocity_spread: 2\n"
                              "    seed: 3\n";
    fd_scene scene = load_ok("gas.yaml", text, NULL, 0);
    fd_scene again = load_ok("gas2.yaml", text, NULL, 0);
    cr_assert_eq(fd_world_body_count(scene.world), 1000);
    cr_assert_eq(fd_world_state_hash(scene.world), fd_world_state_hash(again.world));
    double mean[3] = {0, 0, 0}, square[3] = {0, 0, 0};
    double far = 0.0;
    for (int k = 0; k < 1000; ++k) {
        fd_body_state s = fd_body_get_state(scene.world, fd_world_body_at(scene.world, k));
        double site[3] = {0.05 + 0.1 * (k % 10), 0.05 + 0.1 * ((k / 10) % 10), 0.05 + 0.1 * (k / 100)};
        double x[3] = {s.position.x, s.position.y, s.position.z};
        double v[3] = {s.velocity.x, s.velocity.y, s.velocity.z};
        for (int a = 0; a < 3; ++a) {
            far = fmax(far, fabs(x[a] - site[a]));
            mean[a] += v[a] / 1000.0;
            square[a] += v[a] * v[a] / 1000.0;
        }
    }
    cr_assert_leq(far, 0.04 + 1e-15, "a sphere left its cell's free gap (%g)", far);
    cr_assert_gt(far, 0.035, "jitter 1 should use most of the gap (%g)", far);
    /* Mean velocity (1, 0, 0) and standard deviation 2 per component: with
     * 1000 samples the mean is within 4 sigma / sqrt(1000) = 0.25 and the
     * variance 4 within 4 x 4 sqrt(2/1000) = 0.72. */
    double expected_mean[3] = {1, 0, 0};
    for (int a = 0; a < 3; ++a) {
        double variance = square[a] - mean[a] * mean[a];
        cr_assert_leq(fabs(mean[a] - expected_mean[a]), 0.25, "axis %d: mean %g", a, mean[a]);
        cr_assert_leq(fabs(variance - 4.0), 0.72, "axis %d: variance %g", a, variance);
    }
    fd_scene_free(&scene);
    fd_scene_free(&again);
    expect_error_at("close.yaml",
                    HEADER "generators:\n"
                           "  - type: lattice\n"
                           "    count: 8\n"
                           "    material: steel\n"
                           "    radius: 0.1\n"
                           "    spacing: 0.15\n"
                           "    region: {min: [0, 0, 0], max: [1, 1, 1]}\n",
                    10, "generators[0].spacing", "must be at least 2 x radius x (1 + radius_spread) = 0.2 m", NULL);
}

Test(scene, generator_count_that_does_not_fit)
{
    expect_error_at("full.yaml",
                    HEADER "generators:\n" UNIT_BOX_LATTICE(1000, steel),
                    7, "generators[0].count", "1000 spheres do not fit", "5 x 5 x 5 = 125", NULL);
    expect_error_at("flat.yaml",
                    HEADER "generators:\n"
                           "  - type: lattice\n"
                           "    count: 1\n"
                           "    material: steel\n"
                           "    radius: 0.1\n"
                           "    region: {min: [0, 0, 0], max: [1, 0, 1]}\n",
                    10, "generators[0].region.max", "must be > min in every component", NULL);
    expect_error_at("spread.yaml",
                    HEADER "generators:\n"
                           "  - type: lattice\n"
                           "    count: 1\n"
                           "    material: steel\n"
                           "    radius: 0.1\n"
                           "    radius_spread: 0.95\n"
                           "    region: {min: [0, 0, 0], max: [1, 1, 1]}\n",
                    10, "generators[0].radius_spread", "must be in [0, 0.9] (got 0.95)", NULL);
}

/* ---------------------------------------------------------------- docs */

Test(scene, docs_reference_matches_the_key_tables)
{
    char* generated = NULL;
    size_t size = 0;
    FILE* stream = open_memstream(&generated, &size);
    cr_assert_not_null(stream);
    fd_scene_write_reference(stream);
    fclose(stream);

    char path[1024];
    snprintf(path, sizeof path, "%s/docs/scene-format.md", FRICDEM_SOURCE_DIR);
    char* docs = read_all(path, NULL);
    cr_assert(strstr(docs, generated),
              "docs/scene-format.md is out of date with src/io/scene_schema.c: replace its reference section "
              "with the output of `fricdem scene-format`");
    free(docs);
    free(generated);
}
