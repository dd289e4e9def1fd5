/* Scene loader, long body lists (issue 19, src/io/scene_stream.c): a long
 * `bodies:` list is streamed item by item and gives the world one tree
 * would; errors deep in it name their line and index; overrides, anchors
 * and the progress of a long load. The YAML files are written into a fresh
 * temporary directory per test (tests/test_scene.c has the rest of the
 * loader's tests). */
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

#include "support/scene.h"

static const double PI = 3.14159265358979323846;

TestSuite(scene_stream, .init = make_dir, .fini = remove_dir);

/* ---------------------------------------------------------------- streamed bodies (issue 19) */

/* A long `bodies:` list is read one item at a time (src/io/scene_stream.c),
 * not built as one tree. These scenes list spheres one flow mapping a line,
 * as bench/make_pile.py writes them: body i (named b<i>) is on line
 * first_line + i. Positions print with 17 digits, so they read back to the
 * bit. */

static double listed_x(int i) { return 1e-3 * i + 1.0 / 3.0; }
static double listed_y(int i) { return sin((double)i); }
static double listed_z(int i) { return 1.0 / (i + 1.0); }

/* Writes head, then bodies_key (e.g. "bodies:\n"), then count spheres; item
 * special is replaced by special_item (a whole line) when given. Returns the
 * path; *first_line gets the line of item 0. */
static const char* write_listed(const char* name, const char* head, const char* bodies_key, int count, int special,
                                const char* special_item, int* first_line)
{
    const char* path = temp_path(name);
    FILE* file = fopen(path, "w");
    cr_assert_not_null(file);
    fputs(head, file);
    fputs(bodies_key, file);
    int lines = 1;
    for (const char* c = head; *c; ++c) {
        lines += *c == '\n';
    }
    for (const char* c = bodies_key; *c; ++c) {
        lines += *c == '\n';
    }
    if (first_line) {
        *first_line = lines;
    }
    for (int i = 0; i < count; ++i) {
        if (i == special && special_item) {
            fputs(special_item, file);
            continue;
        }
        fprintf(file,
                "  - {name: b%d, material: steel, shape: {type: sphere, radius: 0.001}, position: [%.17g, %.17g, "
                "%.17g]}\n",
                i, listed_x(i), listed_y(i), listed_z(i));
    }
    fclose(file);
    return path;
}

/* Loading path must fail with FD_ERR_PARSE and a message that starts with
 * prefix and contains fragment (if given). */
static void expect_load_error(const char* path, const char* const* sets, int set_count, const char* prefix,
                              const char* fragment)
{
    fd_scene scene;
    fd_status status = fd_scene_load(path, sets, set_count, &scene);
    cr_assert_eq(status, FD_ERR_PARSE, "%s: expected a parse error, got '%s' (%s)", path, fd_status_string(status),
                 fd_last_error());
    cr_assert_null(scene.world);
    const char* message = fd_last_error();
    cr_assert(strncmp(message, prefix, strlen(prefix)) == 0, "message\n  %s\ndoes not start with\n  %s", message,
              prefix);
    if (fragment) {
        cr_assert(strstr(message, fragment), "message\n  %s\nlacks\n  %s", message, fragment);
    }
}

/* A streamed list of count bodies whose item `at` is the line `item`
 * (write_listed after HEADER) must fail to load with a message that starts
 * "PATH:LINE: bodies[AT].KEY: " (just "PATH:LINE: " without a key), LINE
 * that item's, and contains fragment. */
static void expect_item_error(const char* name, int count, int at, const char* item, const char* key,
                              const char* fragment)
{
    int first = 0;
    const char* path = write_listed(name, HEADER, "bodies:\n", count, at, item, &first);
    char prefix[1024];
    if (key) {
        snprintf(prefix, sizeof prefix, "%s:%d: bodies[%d].%s: ", path, first + at, at, key);
    } else {
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, first + at);
    }
    expect_load_error(path, NULL, 0, prefix, fragment);
}

/* Loading path with the one override `set` must fail with a message that
 * starts "PATH: " then start, and contains fragment (if given). */
static void expect_set_error(const char* path, const char* set, const char* start, const char* fragment)
{
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s: %s", path, start);
    expect_load_error(path, &set, 1, prefix, fragment);
}

Test(scene_stream, listed_bodies_are_streamed_and_give_the_world_of_one_tree)
{
    enum { COUNT = 4000 };
    const char* streamed = write_listed("streamed.yaml", HEADER, "bodies:\n", COUNT, -1, NULL, NULL);
    /* An anchor on the list makes the loader read it whole, as one tree. */
    const char* whole = write_listed("whole.yaml", HEADER, "bodies: &all\n", COUNT, -1, NULL, NULL);

    /* The document keeps no node per body: the list is an empty sequence. */
    fd_scene_ctx ctx = {0};
    cr_assert_eq(fd_scene_doc_load(&ctx, streamed), FD_OK, "%s", fd_last_error());
    cr_assert(ctx.bodies_streamed);
    cr_assert_eq(ctx.streamed_body_count, COUNT);
    cr_assert_lt(ctx.doc.nodes.top - ctx.doc.nodes.start, 20, "a node tree per body was built");
    fd_scene_ctx_free(&ctx);
    fd_scene_ctx whole_ctx = {0};
    cr_assert_eq(fd_scene_doc_load(&whole_ctx, whole), FD_OK, "%s", fd_last_error());
    cr_assert(!whole_ctx.bodies_streamed);
    cr_assert_gt(whole_ctx.doc.nodes.top - whole_ctx.doc.nodes.start, 10 * COUNT);
    fd_scene_ctx_free(&whole_ctx);

    fd_scene a, b;
    cr_assert_eq(fd_scene_load(streamed, NULL, 0, &a), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_scene_load(whole, NULL, 0, &b), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_body_count(a.world), COUNT);
    cr_assert_eq(fd_world_body_count(b.world), COUNT);
    for (int i = 0; i < COUNT; ++i) {
        fd_body_state sa = fd_body_get_state(a.world, fd_world_body_at(a.world, i));
        fd_body_state sb = fd_body_get_state(b.world, fd_world_body_at(b.world, i));
        cr_assert(memcmp(&sa, &sb, sizeof sa) == 0, "body %d differs", i);
        cr_assert(bits(sa.position.x) == bits(listed_x(i)) && bits(sa.position.y) == bits(listed_y(i)) &&
                      bits(sa.position.z) == bits(listed_z(i)),
                  "body %d is not where the file puts it", i);
    }
    char name[32];
    snprintf(name, sizeof name, "b%d", COUNT - 1);
    cr_assert(fd_body_id_is_null(fd_world_find_body(a.world, name)) == false);
    fd_scene_free(&a);
    fd_scene_free(&b);
}

Test(scene_stream, an_error_deep_in_a_streamed_list_names_its_line_and_index)
{
    enum { COUNT = 5000, BAD = 4321 };
    expect_item_error("deep.yaml", COUNT, BAD,
                      "  - {name: bad, material: steel, shape: {type: sphere, radius: -1}, position: [0, 0, 0]}\n",
                      "shape.radius", "must be > 0");

    /* A YAML syntax error deep in the list is found by the first reading. */
    expect_item_error("syntax.yaml", COUNT, BAD, "  - {name: bad, material: steel, shape: [1, 2}\n", NULL,
                      "YAML syntax error");

    /* A key of the wrong kind, and an unknown key, at the right line. */
    expect_item_error("unknown.yaml", COUNT, BAD,
                      "  - {name: bad, material: steel, shape: {type: sphere, radius: 1}, postion: [0, 0, 0]}\n",
                      "postion", "did you mean 'position'?");
}

Test(scene_stream, a_duplicate_name_deep_in_a_streamed_list_names_both_lines)
{
    enum { COUNT = 5000, AGAIN = 4500 };
    int first = 0;
    const char* path =
        write_listed("dup.yaml", HEADER, "bodies:\n", COUNT, AGAIN,
                     "  - {name: b17, material: steel, shape: {type: sphere, radius: 0.001}, position: [0, 0, 0]}\n",
                     &first);
    char prefix[1024], fragment[256];
    snprintf(prefix, sizeof prefix, "%s:%d: bodies[%d].name: ", path, first + AGAIN, AGAIN);
    snprintf(fragment, sizeof fragment, "duplicate body name 'b17' (first used at line %d)", first + 17);
    expect_load_error(path, NULL, 0, prefix, fragment);

    /* The first use made by an override names the override. */
    path = write_listed("dup2.yaml", HEADER, "bodies:\n", 100, -1, NULL, &first);
    const char* rename[] = {"bodies.1.name=b90"};
    snprintf(prefix, sizeof prefix, "%s:%d: bodies[90].name: ", path, first + 90);
    expect_load_error(path, rename, 1, prefix, "duplicate body name 'b90' (first used at --set bodies.1.name)");
}

Test(scene_stream, overrides_apply_to_streamed_bodies)
{
    enum { COUNT = 3000 };
    const char* path = write_listed("over.yaml", HEADER, "bodies:\n", COUNT, -1, NULL, NULL);
    const char* sets[] = {
        "bodies.b2500.velocity=[1, 2, 3]", /* by name */
        "bodies.3.position=[7, 8, 9]",     /* by index */
        "bodies.5.name=renamed",           /* a later override finds the new name */
        "bodies.renamed.mass=2",
        "bodies.10={name: ten, material: steel, shape: {type: sphere, radius: 0.5}}", /* the whole item */
        "bodies.11.shape.radius=0.25",
    };
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, sets, 6, &scene), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_body_count(scene.world), COUNT);
    fd_body_state s = fd_body_get_state(scene.world, body(&scene, "b2500"));
    cr_assert(s.velocity.x == 1.0 && s.velocity.y == 2.0 && s.velocity.z == 3.0);
    cr_assert(bits(s.position.x) == bits(listed_x(2500)));
    s = fd_body_get_state(scene.world, body(&scene, "b3"));
    cr_assert(s.position.x == 7.0 && s.position.y == 8.0 && s.position.z == 9.0);
    cr_assert(fd_body_id_is_null(fd_world_find_body(scene.world, "b5")));
    cr_assert_eq(fd_body_get_info(scene.world, body(&scene, "renamed")).mass, 2.0);
    fd_body_info ten = fd_body_get_info(scene.world, body(&scene, "ten"));
    cr_assert_eq(ten.shape.radius, 0.5);
    cr_assert_eq(fd_body_get_state(scene.world, body(&scene, "ten")).position.z, 0.0);
    cr_assert_eq(fd_body_get_info(scene.world, body(&scene, "b11")).shape.radius, 0.25);
    /* Bodies no override names are as listed. */
    cr_assert_eq(fd_body_get_state(scene.world, body(&scene, "b2499")).velocity.x, 0.0);
    fd_scene_free(&scene);

    /* A bad value given to a streamed body names the override and the body. */
    expect_set_error(path, "bodies.b7.mass=-1", "--set bodies.b7.mass: bodies[7].mass: must be > 0", NULL);
    expect_set_error(path, "bodies.2999.velocity=[1, 0]", "--set bodies.2999.velocity: bodies[2999].velocity: ",
                     "got a sequence of 2");
}

Test(scene_stream, a_set_naming_a_missing_streamed_body_fails)
{
    enum { COUNT = 5000 };
    const char* path = write_listed("missing.yaml", HEADER, "bodies:\n", COUNT, -1, NULL, NULL);
    expect_set_error(path, "bodies.nosuch.velocity=[1, 0, 0]",
                     "--set bodies.nosuch.velocity: no entry named 'nosuch' in bodies", NULL);
    expect_set_error(path, "bodies.b12x.velocity=[1, 0, 0]",
                     "--set bodies.b12x.velocity: no entry named 'b12x' in bodies", "(did you mean 'b12'?)");
    expect_set_error(path, "bodies.5000.position=[0, 0, 0]",
                     "--set bodies.5000.position: no entry '5000' in bodies (it has 5000)", NULL);
}

Test(scene_stream, set_bodies_replaces_the_streamed_list)
{
    const char* path = write_listed("replace.yaml", HEADER, "bodies:\n", 1000, -1, NULL, NULL);
    const char* sets[] = {
        "bodies.b3.velocity=[1, 0, 0]", /* of the list that is then replaced: no effect */
        "bodies=[{name: only, material: steel, shape: {type: sphere, radius: 0.1}}]",
        "bodies.only.position=[0, 0, 5]",
    };
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, sets, 3, &scene), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_body_count(scene.world), 1);
    cr_assert_eq(fd_body_get_state(scene.world, body(&scene, "only")).position.z, 5.0);
    fd_scene_free(&scene);
}

Test(scene_stream, bodies_before_materials)
{
    fd_scene scene = load_ok("first.yaml",
                             "bodies:\n"
                             "  - {name: a, material: glass, shape: {type: sphere, radius: 0.1}, position: [0, 0, 1]}\n"
                             "  - name: b\n"
                             "    material: steel\n"
                             "    shape: {type: sphere, radius: 0.2}\n"
                             "time: {step: 1.0e-4, duration: 0.01}\n"
                             "materials:\n"
                             "  - {name: steel, density: 7800}\n"
                             "  - {name: glass, density: 2500}\n",
                             NULL, 0);
    cr_assert_eq(fd_world_body_count(scene.world), 2);
    fd_body_info a = fd_body_get_info(scene.world, body(&scene, "a"));
    cr_assert_str_eq(fd_material_name(scene.world, a.material), "glass");
    cr_assert_float_eq(a.mass, 2500.0 * 4.0 / 3.0 * PI * 1e-3, 1e-12);
    cr_assert_eq(fd_body_get_state(scene.world, body(&scene, "a")).position.z, 1.0);
    cr_assert_str_eq(fd_material_name(scene.world, fd_body_get_info(scene.world, body(&scene, "b")).material),
                     "steel");
    fd_scene_free(&scene);

    /* An error in such a list still names its line (2) and path. */
    expect_error_at("firstbad.yaml",
                    "bodies:\n"
                    "  - {name: a, material: glass, shape: {type: sphere, radius: 0}}\n"
                    "time: {step: 1.0e-4, duration: 0.01}\n"
                    "materials:\n"
                    "  - {name: glass, density: 2500}\n",
                    2, "bodies[0].shape.radius", "must be > 0", NULL);
}

static const char anchored_scene[] =
    HEADER "world: {gravity: &down [0, 0, -9.81]}\n"                                                        /* 5 */
           "bodies:\n"                                                                                      /* 6 */
           "  - {name: a, material: steel, shape: &ball {type: sphere, radius: 0.2}, velocity: *down}\n"    /* 7 */
           "  - {name: b, material: steel, shape: *ball, position: &p [1, 2, 3]}\n"                         /* 8 */
           "  - {name: c, material: steel, shape: {type: sphere, radius: 0.3}, velocity: *p}\n"             /* 9 */
           "  - name: d\n"                                                                                  /* 10 */
           "    material: steel\n"                                                                          /* 11 */
           "    shape: *ball\n"                                                                             /* 12 */
           "    position: *p\n"                                                                             /* 13 */
           "    velocity: &v [0, 1, 0]\n"                                                                   /* 14 */
           "    angular_velocity: *v\n"                                                                     /* 15 */
           "  - {name: e, material: steel, shape: {type: sphere, radius: &rad 0.25}, position: [5, 5, 5]}\n" /* 16 */
           "generators:\n"                                                                                  /* 17 */
           "  - type: lattice\n"
           "    count: 1\n"
           "    material: steel\n"
           "    radius: *rad\n"
           "    region: {min: [10, 10, 10], max: [11, 11, 11]}\n";

Test(scene_stream, anchors_and_aliases_in_streamed_bodies)
{
    fd_scene scene = load_ok("anchors.yaml", anchored_scene, NULL, 0);
    cr_assert_eq(fd_world_body_count(scene.world), 6);
    fd_body_state a = fd_body_get_state(scene.world, body(&scene, "a"));
    cr_assert(a.velocity.x == 0.0 && a.velocity.z == -9.81, "an alias to an anchor before the list");
    cr_assert_eq(fd_body_get_info(scene.world, body(&scene, "b")).shape.radius, 0.2, "an anchor of an earlier item");
    fd_body_state b = fd_body_get_state(scene.world, body(&scene, "b"));
    cr_assert(b.position.x == 1.0 && b.position.y == 2.0 && b.position.z == 3.0);
    fd_body_state c = fd_body_get_state(scene.world, body(&scene, "c"));
    cr_assert(c.velocity.x == 1.0 && c.velocity.y == 2.0 && c.velocity.z == 3.0);
    fd_body_id d = body(&scene, "d");
    cr_assert_eq(fd_body_get_info(scene.world, d).shape.radius, 0.2);
    cr_assert_eq(fd_body_get_state(scene.world, d).position.z, 3.0);
    /* an anchor and its alias in the same item */
    cr_assert_eq(fd_body_get_state(scene.world, d).angular_velocity.y, 1.0);
    /* an anchor in an item, its alias after the list */
    cr_assert_eq(fd_body_get_info(scene.world, fd_world_body_at(scene.world, 5)).shape.radius, 0.25);
    fd_scene_free(&scene);

    /* An error reached through an alias is at the anchored node's line. */
    expect_error_at("aliasbad.yaml",
                    HEADER "bodies:\n"
                           "  - {name: a, material: steel, shape: &bad {type: sphere, radius: -1}}\n"
                           "  - {name: b, material: steel, shape: *bad}\n",
                    6, "bodies[0].shape.radius", "must be > 0", NULL);
    expect_error_at("undefined.yaml",
                    HEADER "bodies:\n"
                           "  - {name: a, material: steel, shape: {type: sphere, radius: 1}}\n"
                           "  - {name: b, material: steel, shape: *nope}\n",
                    7, NULL, "YAML error", "'*nope'", NULL);
    expect_error_at("twice.yaml",
                    HEADER "bodies:\n"
                           "  - {name: a, material: steel, shape: &s {type: sphere, radius: 1}}\n"
                           "  - {name: b, material: steel, shape: &s {type: sphere, radius: 2}}\n",
                    7, NULL, "YAML error", "'&s'", "line 6", NULL);
}

Test(scene_stream, three_hundred_thousand_listed_spheres_load)
{
    enum { COUNT = 300000, PROBE = 123456 };
    const char* path = write_listed("big.yaml", HEADER, "bodies:\n", COUNT, -1, NULL, NULL);
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_body_count(scene.world), COUNT);
    fd_body_state s = fd_body_get_state(scene.world, fd_world_body_at(scene.world, PROBE));
    cr_assert(bits(s.position.x) == bits(listed_x(PROBE)) && bits(s.position.y) == bits(listed_y(PROBE)) &&
              bits(s.position.z) == bits(listed_z(PROBE)));
    cr_assert_eq(fd_body_get_info(scene.world, body(&scene, "b123456")).shape.radius, 0.001);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- load progress */

typedef struct progress_calls {
    int count;
    int64_t last_created, last_total;
    bool increasing;
} progress_calls;

static void record_progress(void* user, int64_t created, int64_t total)
{
    progress_calls* calls = user;
    calls->increasing = calls->increasing && created > calls->last_created;
    calls->count++;
    calls->last_created = created;
    calls->last_total = total;
}

/* A load of many bodies reports its progress (the CLI's "loading" line):
 * every 2^14 bodies created and once at the end, against the total the
 * scene announced: 3 listed + 40000 generated. */
Test(scene_stream, a_long_load_reports_progress_up_to_its_total)
{
    const char* path = write_scene("progress.yaml", HEADER "bodies:\n"
                                                           "  - {material: steel,"
                                                           " shape: {type: sphere, radius: 0.01}}\n"
                                                           "  - {material: steel, shape: {type: sphere, radius: 0.01},"
                                                           " position: [0, 0, 1]}\n"
                                                           "  - {material: steel, shape: {type: sphere, radius: 0.01},"
                                                           " position: [0, 0, 2]}\n"
                                                           "generators:\n"
                                                           "  - type: lattice\n"
                                                           "    count: 40000\n"
                                                           "    material: steel\n"
                                                           "    radius: 0.01\n"
                                                           "    region: {min: [-1, -1, 3], max: [1, 1, 5]}\n");
    progress_calls calls = {.increasing = true};
    fd_scene scene;
    cr_assert_eq(fd_scene_load_with_progress(path, NULL, 0, record_progress, &calls, &scene), FD_OK, "%s",
                 fd_last_error());
    cr_assert_eq(fd_world_body_count(scene.world), 40003);
    cr_assert_eq(calls.count, 40003 / 16384 + 1, "two calls on the way (16384, 32768) and the last");
    cr_assert(calls.increasing);
    cr_assert_eq(calls.last_created, 40003);
    cr_assert_eq(calls.last_total, 40003);
    fd_scene_free(&scene);
    /* Without a callback, the same load. */
    cr_assert_eq(fd_scene_load(path, NULL, 0, &scene), FD_OK);
    cr_assert_eq(fd_world_body_count(scene.world), 40003);
    fd_scene_free(&scene);
}
