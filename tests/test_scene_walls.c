/* Walls in scene files (src/io/scene.c, docs/walls.md): the shape types
 * cylinder, disk, box and mesh build the right bodies (a capped cylinder its
 * shell and caps, a box and a mesh one body per patch), a wall's motion moves
 * all its parts, a wall carries the weight of what rests on it, and each
 * wrong key names FILE:LINE: KEYPATH. */
#include <math.h>

#include "core/math.h"
#include "support/scene.h"

TestSuite(scene_walls, .init = make_dir, .fini = remove_dir);

static const double PI = 3.14159265358979323846;

static void step(fd_world* world, int count)
{
    for (int k = 0; k < count; ++k) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    }
}

/* An L-shaped sheet: a unit square in z = 0 and one standing in x = 1, two
 * triangles each; the 90 degree fold is sharper than the default feature
 * angle (30 degrees), so it is two patches. */
static const char folded_stl[] = "solid folded\n"
                                 " facet normal 0 0 1\n  outer loop\n"
                                 "   vertex 0 0 0\n   vertex 1 0 0\n   vertex 1 1 0\n  endloop\n endfacet\n"
                                 " facet normal 0 0 1\n  outer loop\n"
                                 "   vertex 0 0 0\n   vertex 1 1 0\n   vertex 0 1 0\n  endloop\n endfacet\n"
                                 " facet normal -1 0 0\n  outer loop\n"
                                 "   vertex 1 0 0\n   vertex 1 0 1\n   vertex 1 1 1\n  endloop\n endfacet\n"
                                 " facet normal -1 0 0\n  outer loop\n"
                                 "   vertex 1 0 0\n   vertex 1 1 1\n   vertex 1 1 0\n  endloop\n endfacet\n"
                                 "endsolid folded\n";

#define WALLS_HEADER                                                                                                   \
    "time: {step: 1.0e-5, duration: 0.01}\n"                                                                           \
    "world: {gravity: [0, 0, -9.81]}\n"                                                                                \
    "materials: [{name: steel, density: 7800, youngs_modulus: 2.1e11, poisson_ratio: 0.3}]\n"                          \
    "contacts:\n"                                                                                                      \
    "  - materials: [steel, steel]\n"                                                                                  \
    "    normal: {model: hooke, k_n: 1.0e5, restitution: 0.3}\n"                                                       \
    "    slide: {model: dsds, k_t: 5.0e4, mu: 0.5}\n"
/* Lines 1-7 are the header; a test's own lines start at 8. */

static const char walls_scene[] = WALLS_HEADER
    "bodies:\n"
    "  - name: drum\n"
    "    static: true\n"
    "    material: steel\n"
    "    rotation: {axis: [1, 0, 0], angle: 1.5707963267948966}\n"
    "    shape: {type: cylinder, radius: 0.05, length: 0.02, capped: true}\n"
    "  - {name: floor, static: true, material: steel, position: [0.3, 0, 0],\n"
    "     shape: {type: disk, radius: 0.05, inner_radius: 0.01}}\n"
    "  - {name: bin, static: true, material: steel, position: [0.2, 0, 0], shape: {type: box, size: [0.05, 0.06, "
    "0.07]}}\n"
    "  - {name: fold, static: true, material: steel, position: [0, 0.3, 0],\n"
    "     shape: {type: mesh, file: folded.stl, scale: [0.1, 0.1, 0.1]}}\n"
    "  - {name: in_drum, material: steel, shape: {type: sphere, radius: 0.005}, position: [0, 0, -0.045]}\n"
    "  - {name: in_bin, material: steel, shape: {type: sphere, radius: 0.005}, position: [0.2, 0, -0.03]}\n";

Test(scene_walls, each_wall_shape_builds_its_bodies)
{
    write_scene("folded.stl", folded_stl);
    fd_scene scene = load_ok("walls.yaml", walls_scene, NULL, 0);
    fd_world* world = scene.world;
    /* drum 3 + floor 1 + bin 6 faces + fold 2 patches + 2 spheres */
    cr_assert_eq(fd_world_body_count(world), 14);

    fd_body_id drum = body(&scene, "drum");
    fd_body_info shell = fd_body_get_info(world, drum);
    cr_assert_eq(shell.shape.type, FD_SHAPE_CYLINDER);
    cr_assert_eq(shell.shape.radius, 0.05);
    cr_assert_eq(shell.shape.length, 0.02);
    cr_assert(shell.shape.capped);
    const char* caps[] = {"drum.cap_low", "drum.cap_high"};
    for (int k = 0; k < 2; ++k) {
        fd_body_info cap = fd_body_get_info(world, body(&scene, caps[k]));
        cr_assert_eq(cap.shape.type, FD_SHAPE_DISK);
        cr_assert_eq(cap.shape.offset, (k == 0 ? -0.5 : 0.5) * 0.02);
        cr_assert_eq(cap.wall.index1, drum.index1, "%s belongs to the drum", caps[k]);
    }

    fd_body_info floor = fd_body_get_info(world, body(&scene, "floor"));
    cr_assert_eq(floor.shape.type, FD_SHAPE_DISK);
    cr_assert_eq(floor.shape.inner_radius, 0.01);

    /* The box: six faces, each one patch of two triangles; the patches
     * together hold the 12 triangles of a closed box. */
    fd_body_id bin = body(&scene, "bin");
    const fd_mesh* box = fd_body_get_info(world, bin).shape.mesh;
    cr_assert_not_null(box);
    cr_assert_eq(fd_mesh_patch_count(box), 6);
    cr_assert_eq(fd_mesh_triangle_count(box), 12);
    /* Half the box's space diagonal bounds it: sqrt(0.05^2 + 0.06^2 + 0.07^2) / 2. */
    cr_assert_float_eq(fd_mesh_bounding_radius(box), 0.5 * sqrt(0.0025 + 0.0036 + 0.0049), 1e-15);
    for (int p = 1; p < 6; ++p) {
        char name[32];
        snprintf(name, sizeof name, "bin.patch%d", p);
        fd_body_info face = fd_body_get_info(world, body(&scene, name));
        cr_assert_eq(face.shape.mesh_patch, p);
        cr_assert_eq(face.wall.index1, bin.index1);
    }

    /* The STL, scaled by 0.1: two patches, vertices within 0.1 * sqrt(3). */
    const fd_mesh* fold = fd_body_get_info(world, body(&scene, "fold")).shape.mesh;
    cr_assert_eq(fd_mesh_patch_count(fold), 2);
    cr_assert_float_eq(fd_mesh_bounding_radius(fold), 0.1 * sqrt(3.0), 1e-15);
    cr_assert_eq(fd_body_get_info(world, body(&scene, "fold.patch1")).shape.mesh_patch, 1);
    fd_scene_free(&scene);
}

/* A sphere brought to rest by the dashpot carries its weight into the wall
 * it rests on: the bottom face of the box, the bottom of the drum's shell.
 * The dashpot (restitution 0.3) damps the bounce with a time constant of
 * about 0.2 ms, so 0.3 s leaves the residual far below the 1e-9 relative
 * tolerance; round-off of the force sum is ~1e-16. */
Test(scene_walls, a_resting_sphere_loads_the_wall_it_rests_on)
{
    write_scene("folded.stl", folded_stl);
    const char* set[] = {"time.duration=0.3"};
    fd_scene scene = load_ok("walls.yaml", walls_scene, set, 1);
    fd_world* world = scene.world;
    step(world, 30000);
    double weight = 7800.0 * 4.0 / 3.0 * PI * pow(0.005, 3) * 9.81;
    const char* walls[] = {"bin", "drum"};
    for (int k = 0; k < 2; ++k) {
        fd_wall_reaction r = fd_world_wall_reaction(world, body(&scene, walls[k]));
        cr_assert_float_eq(r.force.z, -weight, 1e-9 * weight, "%s carries %.17g N, the sphere weighs %.17g N",
                           walls[k], -r.force.z, weight);
        cr_assert_lt(fabs(r.force.x) + fabs(r.force.y), 1e-9 * weight);
    }
    /* The box's weight lies on its bottom face (-z: patch 4 of box_mesh's
     * order -x, +x, -y, +y, -z, +z); the others carry nothing. */
    cr_assert_float_eq(fd_body_get_reaction(world, body(&scene, "bin.patch4")).force.z, -weight, 1e-9 * weight);
    cr_assert_eq(fd_body_get_reaction(world, body(&scene, "bin")).force.z, 0.0);
    fd_scene_free(&scene);
}

/* The parts of a wall share one pose: a drum's motion, given in the scene or
 * by a stage, turns its caps with its shell, by the closed form angle
 * omega t (docs/walls.md). */
Test(scene_walls, a_wall_motion_moves_every_part)
{
    write_scene("folded.stl", folded_stl);
    /* The drum's motion goes under its shape line; the stages at the end. */
    const char* marker = "capped: true}\n";
    const char* at = strstr(walls_scene, marker) + strlen(marker);
    char scene_text[4096];
    snprintf(scene_text, sizeof scene_text,
             "%.*s    motion: {angular_velocity: [0, 2.0, 0]}\n%s"
             "stages:\n"
             "  - {name: turn, duration: 0.005}\n"
             "  - {name: box_slides, duration: 0.005, motions: [{body: bin, motion: {velocity: [0.1, 0, 0]}}]}\n",
             (int)(at - walls_scene), walls_scene, at);
    fd_scene scene = load_ok("moving.yaml", scene_text, NULL, 0);
    fd_world* world = scene.world;
    cr_assert_eq(fd_scene_begin_stage(&scene, 0), FD_OK, "%s", fd_last_error());
    step(world, 500);
    cr_assert_eq(fd_scene_begin_stage(&scene, 1), FD_OK, "%s", fd_last_error());
    step(world, 500);

    fd_quat shell = fd_body_get_state(world, body(&scene, "drum")).orientation;
    for (int k = 0; k < 2; ++k) {
        fd_quat cap = fd_body_get_state(world, body(&scene, k == 0 ? "drum.cap_low" : "drum.cap_high")).orientation;
        cr_assert(memcmp(&cap, &shell, sizeof cap) == 0, "the caps turn with the shell, to the bit");
    }
    /* Turned by 2 rad/s * 0.01 s about world y, after the initial quarter
     * turn about x: the angle of (q q_0^-1) is 0.02 rad to round-off. */
    fd_quat start = fd_quat_from_axis_angle(fd_v3(1, 0, 0), 0.5 * PI);
    fd_quat turn = fd_quat_mul(shell, fd_quat_conjugate(start));
    double angle = 2.0 * atan2(sqrt(turn.x * turn.x + turn.y * turn.y + turn.z * turn.z), fabs(turn.w));
    cr_assert_float_eq(angle, 0.02, 1e-12);

    /* The stage moved every face of the box by 0.1 m/s * 0.005 s. */
    for (int p = 0; p < 6; ++p) {
        char name[32];
        snprintf(name, sizeof name, p == 0 ? "bin" : "bin.patch%d", p);
        cr_assert_float_eq(fd_body_get_state(world, body(&scene, name)).position.x, 0.2 + 0.1 * 0.005, 1e-15,
                           "%s", name);
    }
    fd_scene_free(&scene);
}

/* A wrong wall: the scene's lines after WALLS_HEADER "bodies:\n" (line 9 on)
 * and the line, key path and a fragment of the parse error they give. */
typedef struct {
    const char* name;
    const char* bodies;
    int line;
    const char* key_path;
    const char* fragment;
} wall_error;

Test(scene_walls, wrong_wall_keys_name_file_line_and_key)
{
    static const wall_error cases[] = {
        {"dynamic_cylinder.yaml", "  - material: steel\n    shape: {type: cylinder, radius: 0.1, length: 0.1}\n", 10,
         "bodies[0].shape.type", "a cylinder is a wall: it must be a static body"},
        {"length_on_disk.yaml", "  - {material: steel, static: true, shape: {type: disk, radius: 0.1, length: 1}}\n", 9,
         "bodies[0].shape.length", "not used by a disk (only by cylinder shapes)"},
        {"no_length.yaml", "  - {material: steel, static: true, shape: {type: cylinder, radius: 0.1}}\n", 9,
         "bodies[0].shape.length", "required key is missing (for a cylinder)"},
        {"annulus.yaml",
         "  - {material: steel, static: true,\n"
         "     shape: {type: disk, radius: 0.1, inner_radius: 0.1}}\n",
         10, "bodies[0].shape.inner_radius", "must be less than radius"},
        {"no_file.yaml", "  - {material: steel, static: true, shape: {type: mesh, file: missing.stl}}\n", 9,
         "bodies[0].shape.file", "missing.stl"},
        {"zero_scale.yaml",
         "  - {material: steel, static: true,\n"
         "     shape: {type: mesh, file: folded.stl, scale: [1, 0, 1]}}\n",
         10, "bodies[0].shape.scale[1]", "must be > 0"},
        {"box_without_size.yaml", "  - {material: steel, static: true, shape: {type: box}}\n", 9,
         "bodies[0].shape.size", "required key is missing (for a box)"},
        /* A part of a wall does not move alone (its parts share one pose). */
        {"part_motion.yaml",
         "  - {name: drum, material: steel, static: true,\n"
         "     shape: {type: cylinder, radius: 0.1, length: 0.1, capped: true}}\n"
         "stages:\n"
         "  - name: spin\n"
         "    duration: 0.1\n"
         "    motions: [{body: drum.cap_low, motion: {angular_velocity: [0, 0, 1]}}]\n",
         14, "stages[0].motions[0].body", "'drum.cap_low' is part of a wall"},
    };
    write_scene("folded.stl", folded_stl);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char text[2048];
        snprintf(text, sizeof text, WALLS_HEADER "bodies:\n%s", cases[k].bodies);
        expect_error_at(cases[k].name, text, cases[k].line, cases[k].key_path, cases[k].fragment, NULL);
    }
}
