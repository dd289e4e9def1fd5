/* A sphere in contact with mesh walls, against the analytic walls (issue 12):
 *
 *   - a sphere sliding, then rolling, pushed by a constant force (so that its
 *     tangential spring is stuck with a load), over a finely triangulated flat
 *     mesh (32 x 32 squares of two triangles; also with jittered in-plane
 *     vertices) moves as on an analytic plane, for every friction family of
 *     tests/wall_laws.h with rolling resistance: the same trajectory, the same
 *     normal force across every triangle edge and vertex, exactly one contact,
 *     whose identity and spring survive each hand-over from triangle to
 *     triangle;
 *   - on the same mesh tilted 20 degrees, a sphere rolls down at 5/7 g sin
 *     theta (mu large; corrected for the contact point's depth) and slides at
 *     g (sin theta - mu cos theta) (mu small), as on the tilted plane;
 *   - a sphere inside a cylindrical shell (a drum at rest) overlaps it by the
 *     closed-form distance to the shell at every step, settles to the Hooke
 *     and Hertz overlaps of a concave contact, and rocks with the period of a
 *     sphere rolling in a cylinder.
 *
 * Why a flat mesh and a plane agree bit for bit (tolerance 0): the closest
 * point of a mesh lying in its frame's z = 0 plane is the centre's
 * projection, its normal the face normal, exactly (0, 0, +-1) (a cross
 * product of two in-plane edges has exact zero x and y parts, and each
 * component divided by the length is correctly rounded), and the gap
 * (centre - vertex) . normal is the centre's z exactly: the narrow phase
 * gives the plane's geometry to the bit, on every triangle, edge and vertex.
 * The laws then see the same numbers. (Against a plane the dsds, csds and
 * mindlin families take the scalar sphere kernel, src/penalty/law_pass.c,
 * against a mesh the registry's kernels, src/penalty/contact_details.c; the
 * two form the contact point, arms and relative velocity in the same order,
 * and agree to the bit here.) Any difference is a defect: before issue 12 the
 * face normal was scaled by 1 / length, 1 - 2^-53 instead of 1 on some
 * jittered triangles, and the normal force jumped by 2e-13 of the weight
 * where the ball crossed onto them.
 *
 * A tilted mesh (the body turned 20 degrees) is compared with the plane
 * turned alike to round-off instead: the mesh takes the centre into its
 * frame by one more rotation, which moves it by an ulp or so of its
 * coordinates (0.15 m: 3e-17 m), and the overlap (8e-6 m) by as much: 4e-12
 * of the normal force per ulp. The largest difference builds up in the
 * fang_negrut slide, whose micro-deflection S sums the tracked contact
 * points' displacements in each body's frame: an ulp of 0.15 m per step, over
 * 2.5e4 steps at most 7e-13 m, times K_E = 2.9e3 N/m: 2e-9 N, 2.5e-8 of the
 * weight. TILTED_TOLERANCE = 3e-8 relative (of the radius for positions, of
 * the speed for velocities, of the weight for forces) bounds that; a
 * misplaced contact point at a hand-over would show at 1e-6 and above (a
 * normal tilted by the coordinates' round-off, 1e-11 m over the 1e-5 m
 * overlap), a missed or doubled contact at 100%. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collide/walls.h"
#include "core/math.h"
#include "support/world.h"
#include "support/wall_laws.h"

#define PI 3.14159265358979323846
#define RADIUS 0.01
#define DENSITY 2000.0
#define YOUNGS_MODULUS 1e8
#define POISSON_RATIO 0.3
#define K_N 1e4
#define G 9.81
#define DT 1e-5
#define CELLS 32
#define CELL (1.0 / 64.0)             /* exact in binary: the vertices of the regular mesh are exact */
#define HALF_WIDTH (0.5 * CELLS * CELL) /* the mesh spans [-0.25, 0.25]^2 */
#define FEATURE_ANGLE (30.0 * PI / 180.0) /* the default */
#define TILTED_TOLERANCE 3e-8         /* see the top comment */

static double sphere_mass(void) { return DENSITY * 4.0 / 3.0 * PI * RADIUS * RADIUS * RADIUS; }

/* ---------------------------------------------------------------- walls */

typedef enum wall_kind { WALL_PLANE, WALL_REGULAR_MESH, WALL_JITTERED_MESH } wall_kind;
static const char* const wall_kind_names[] = {"plane", "regular mesh", "jittered mesh"};

/* xorshift64*: a fixed sequence, so failures reproduce. */
static double uniform(uint64_t* state, double lo, double hi)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return lo + (hi - lo) * (double)((*state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

/* The square [-0.25, 0.25]^2 of the plane z = 0 split into CELLS x CELLS
 * squares, each cut along its diagonal from (i, j) to (i + 1, j + 1).
 * Jittered: every inner vertex moved in the plane by up to 0.15 of a cell
 * along x and y (the triangles keep their orientation: a cross product of
 * two edges stays above 0.7^2 - 0.3 * 1.3 > 0 cells squared), so that a
 * path crosses edges at every angle and passes near vertices where 6 or
 * more triangles meet unevenly. */
static fd_mesh* flat_mesh(bool jittered, double feature_angle)
{
    enum { SIDE = CELLS + 1 };
    static double vertices[3 * SIDE * SIDE];
    static int triangles[3 * 2 * CELLS * CELLS];
    uint64_t state = 20240611;
    for (int j = 0; j < SIDE; ++j) {
        for (int i = 0; i < SIDE; ++i) {
            double x = -HALF_WIDTH + i * CELL, y = -HALF_WIDTH + j * CELL;
            bool inner = i > 0 && j > 0 && i < CELLS && j < CELLS;
            if (jittered && inner) {
                x += uniform(&state, -0.15, 0.15) * CELL;
                y += uniform(&state, -0.15, 0.15) * CELL;
            }
            double* v = vertices + 3 * (i + SIDE * j);
            v[0] = x;
            v[1] = y;
            v[2] = 0.0;
        }
    }
    int count = 0;
    for (int j = 0; j < CELLS; ++j) {
        for (int i = 0; i < CELLS; ++i) {
            int a = i + SIDE * j, b = a + 1, c = a + SIDE + 1, d = a + SIDE;
            int quad[6] = {a, b, c, a, c, d};
            memcpy(triangles + 3 * count, quad, sizeof quad);
            count += 2;
        }
    }
    char message[256] = "";
    fd_mesh* mesh =
        fd_mesh_create(vertices, SIDE * SIDE, triangles, count, feature_angle, message, (int)sizeof message);
    cr_assert_not_null(mesh, "%s", message);
    cr_assert_eq(fd_mesh_triangle_count(mesh), 2 * CELLS * CELLS);
    /* A flat mesh is one patch, unless every edge is a feature (angle 0:
     * normals 0 degrees apart are not below it). */
    cr_assert_eq(fd_mesh_patch_count(mesh), feature_angle > 0.0 ? 1 : 2 * CELLS * CELLS);
    return mesh;
}

Test(mesh_contact, every_face_of_a_flat_mesh_gives_the_planes_gap_and_normal_exactly)
{
    /* Above the centroid of every triangle of the jittered mesh, at heights
     * that are not powers of two: the gap is the height and the normal
     * (0, 0, 1), to the bit (see the top comment). */
    fd_mesh* mesh = flat_mesh(true, FEATURE_ANGLE);
    const double* vertices = fd_mesh_vertices(mesh);
    const int* triangles = fd_mesh_triangles(mesh);
    const double heights[] = {0.0099917815936182101, 0.00731, 3e-3};
    for (int t = 0; t < fd_mesh_triangle_count(mesh); ++t) {
        double x = 0.0, y = 0.0;
        for (int k = 0; k < 3; ++k) {
            x += vertices[3 * triangles[3 * t + k]] / 3.0;
            y += vertices[3 * triangles[3 * t + k] + 1] / 3.0;
        }
        for (int h = 0; h < 3; ++h) {
            fd_wall_hit hit;
            cr_assert(fd_mesh_patch_closest(mesh, 0, fd_v3(x, y, heights[h]), RADIUS, &hit));
            cr_assert_eq(hit.gap, heights[h], "triangle %d: gap %.17g, height %.17g", t, hit.gap, heights[h]);
            cr_assert(hit.normal.x == 0.0 && hit.normal.y == 0.0 && hit.normal.z == 1.0,
                      "triangle %d: normal (%.17g, %.17g, %.17g)", t, hit.normal.x, hit.normal.y, hit.normal.z);
        }
    }
    fd_mesh_free(mesh);
}

/* ---------------------------------------------------------------- a world with one sphere and one wall */

typedef struct rig {
    fd_world* world;
    fd_body_id ball, wall;
    const fd_mesh* mesh; /* NULL for the plane */
    fd_quat tilt;
} rig;

static fd_world* make_world(void)
{
    fd_world_def def = test_world_def(DT, fd_v3(0, 0, -G));
    return test_create_world(&def);
}

/* The one material of these tests, steel, under law. */
static fd_material_id add_steel(fd_world* world, const fd_contact_law_def* law)
{
    fd_material_def def = fd_default_material_def();
    def.name = "steel";
    def.density = DENSITY;
    def.youngs_modulus = YOUNGS_MODULUS;
    def.poisson_ratio = POISSON_RATIO;
    fd_material_id steel = test_create_material(world, &def);
    test_set_law(world, steel, law);
    return steel;
}

/* A static wall of steel turned by orientation, its shape to be given. */
static fd_body_def wall_def(const char* name, fd_material_id steel, fd_quat orientation)
{
    fd_body_def wall = fd_default_body_def();
    wall.name = name;
    wall.type = FD_BODY_STATIC;
    wall.material = steel;
    wall.orientation = orientation;
    return wall;
}

/* The wall (through the origin, turned by tilt), then the ball. */
static rig make_rig(const fd_contact_law_def* law, wall_kind kind, fd_quat tilt, const fd_body_def* ball)
{
    rig r = {.world = make_world(), .tilt = tilt};
    fd_material_id steel = add_steel(r.world, law);
    fd_body_def wall = wall_def("floor", steel, tilt);
    if (kind == WALL_PLANE) {
        wall.shape.type = FD_SHAPE_PLANE;
        r.wall = fd_world_create_body(r.world, &wall);
        cr_assert(!fd_body_id_is_null(r.wall), "%s", fd_last_error());
    } else {
        fd_mesh* mesh = flat_mesh(kind == WALL_JITTERED_MESH, FEATURE_ANGLE);
        cr_assert_eq(fd_world_adopt_mesh(r.world, mesh), FD_OK, "%s", fd_last_error());
        wall.shape.type = FD_SHAPE_MESH;
        wall.shape.mesh = mesh;
        wall.shape.mesh_patch = -1;
        int count = 0;
        cr_assert_eq(fd_world_create_wall(r.world, &wall, &r.wall, &count), FD_OK, "%s", fd_last_error());
        cr_assert_eq(count, 1, "one patch, one body");
        r.mesh = mesh;
    }
    fd_body_def def = *ball;
    def.material = steel;
    r.ball = fd_world_create_body(r.world, &def);
    cr_assert(!fd_body_id_is_null(r.ball), "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(r.world), FD_OK, "%s", fd_last_error());
    return r;
}

/* The ball at rest on the wall at the wall-frame point (x, y), its overlap
 * the static one under its weight's normal part (so that it starts without a
 * bounce), given velocity along the wall. */
static fd_body_def ball_on_wall(fd_quat tilt, double x, double y, fd_vec3 velocity, double overlap)
{
    fd_body_def def = fd_default_body_def();
    def.name = "ball";
    def.shape.radius = RADIUS;
    def.position = fd_quat_rotate(tilt, fd_v3(x, y, RADIUS - overlap));
    def.velocity = fd_quat_rotate(tilt, velocity);
    return def;
}

/* The static overlap of the ball under its weight's normal part N, for the
 * family's normal model on a flat wall (Hooke: N / k_n; Hertz: (3 N / (4 E*
 * sqrt(R)))^(2/3), Johnson Eq. 4.23, E* = E / (2 (1 - nu^2)) for two bodies
 * of one material). */
static double static_overlap(const wall_family* family, double normal_load, double effective_radius)
{
    if (strcmp(family->model[FD_MECHANISM_NORMAL], "hertz") == 0) {
        double modulus = YOUNGS_MODULUS / (2.0 * (1.0 - POISSON_RATIO * POISSON_RATIO));
        return pow(3.0 * normal_load / (4.0 * modulus * sqrt(effective_radius)), 2.0 / 3.0);
    }
    return normal_load / K_N;
}

static fd_contact_view only_contact(const rig* r, const char* what, int step)
{
    cr_assert_eq(fd_world_contact_count(r->world), 1, "%s: %d contacts at step %d", what,
                 fd_world_contact_count(r->world), step);
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(r->world, 0, &view), FD_OK, "%s", fd_last_error());
    return view;
}

/* The triangle under the ball (the one the mesh query names), or -1. */
static int triangle_under(const rig* r)
{
    fd_body_state state = fd_body_get_state(r->world, r->ball);
    fd_vec3 centre = fd_quat_rotate_inverse(r->tilt, state.position);
    fd_wall_hit hit;
    return fd_mesh_patch_closest(r->mesh, 0, centre, RADIUS, &hit) ? hit.triangle : -1;
}

/* ---------------------------------------------------------------- mesh against plane, step by step */

/* The largest differences between a mesh run and the plane run, each
 * relative to its scale. */
typedef struct difference {
    double position, velocity, angular_velocity, normal_force, slide_force, torque;
} difference;

/* Runs stepped together, the plane's first: what each contact began as, the
 * triangle under each mesh's ball, and what was found so far. */
typedef struct lockstep {
    rig runs[3];
    int run_count;
    double speed; /* the velocities' scale */
    const char* what;
    int steps;    /* taken so far */
    uint64_t ids[3];
    int64_t first_steps[3];
    int triangles[3];
    int hand_overs[3]; /* how often the triangle under the ball changed */
    int stuck_hand_overs[3]; /* of which with the slide stuck and loaded (above 1% of the weight) */
    const char* slipping_column; /* the slide model's (wall_family) */
    difference worst[3];
} lockstep;

static double relative(fd_vec3 a, fd_vec3 b, double scale) { return fd_v3_distance(a, b) / scale; }

/* Steps every run `steps` times; every step each world has exactly one
 * contact, which keeps the identity it began with, and the differences to
 * the plane are gathered. */
static void advance(lockstep* l, int steps)
{
    const double weight = sphere_mass() * G;
    for (int step = 0; step < steps; ++step) {
        int s = ++l->steps;
        fd_contact_view views[3];
        fd_body_state states[3];
        for (int k = 0; k < l->run_count; ++k) {
            cr_assert_eq(fd_world_step(l->runs[k].world), FD_OK, "%s: %s", l->what, fd_last_error());
            views[k] = only_contact(&l->runs[k], l->what, s);
            states[k] = fd_body_get_state(l->runs[k].world, l->runs[k].ball);
            if (s == 1) {
                l->ids[k] = views[k].id;
                l->first_steps[k] = views[k].first_step;
                l->triangles[k] = -1;
            }
            cr_assert_eq(views[k].id, l->ids[k], "%s, %s: the contact changed identity at step %d", l->what,
                         k == 0 ? "plane" : "mesh", s);
            cr_assert_eq(views[k].first_step, l->first_steps[k], "%s: the contact began again at step %d", l->what,
                         s);
            if (k > 0) {
                int t = triangle_under(&l->runs[k]);
                cr_assert_geq(t, 0, "%s: no triangle under the ball at step %d", l->what, s);
                bool handed_over = s > 1 && t != l->triangles[k];
                bool stuck = test_column_value(l->runs[k].world, &views[k], l->slipping_column) == 0.0 &&
                             fd_v3_length(views[k].loads.slide_force) > 0.01 * weight;
                l->hand_overs[k] += handed_over;
                l->stuck_hand_overs[k] += handed_over && stuck;
                l->triangles[k] = t;
            }
        }
        for (int k = 1; k < l->run_count; ++k) {
            difference* d = &l->worst[k];
            d->position = fmax(d->position, relative(states[k].position, states[0].position, RADIUS));
            d->velocity = fmax(d->velocity, relative(states[k].velocity, states[0].velocity, l->speed));
            d->angular_velocity = fmax(d->angular_velocity,
                                       relative(fd_v3_scale(RADIUS, states[k].angular_velocity),
                                                fd_v3_scale(RADIUS, states[0].angular_velocity), l->speed));
            d->normal_force =
                fmax(d->normal_force, fabs(views[k].loads.normal_force - views[0].loads.normal_force) / weight);
            d->slide_force =
                fmax(d->slide_force, relative(views[k].loads.slide_force, views[0].loads.slide_force, weight));
            fd_vec3 torque_k = fd_v3_add(views[k].loads.roll_torque_i, views[k].loads.spin_torque_i);
            fd_vec3 torque_0 = fd_v3_add(views[0].loads.roll_torque_i, views[0].loads.spin_torque_i);
            d->torque = fmax(d->torque, relative(torque_k, torque_0, weight * RADIUS));
        }
    }
}

static void free_runs(lockstep* l)
{
    for (int k = 0; k < l->run_count; ++k) {
        fd_world_free(l->runs[k].world);
    }
}

static void assert_agree(const difference* d, double tolerance, const char* what)
{
    cr_expect_leq(d->position, tolerance, "%s: position off by %.3g radii", what, d->position);
    cr_expect_leq(d->velocity, tolerance, "%s: velocity off by %.3g of the speed", what, d->velocity);
    cr_expect_leq(d->angular_velocity, tolerance, "%s: angular velocity off by %.3g", what, d->angular_velocity);
    cr_expect_leq(d->normal_force, tolerance, "%s: normal force off by %.3g of the weight", what, d->normal_force);
    cr_expect_leq(d->slide_force, tolerance, "%s: slide force off by %.3g of the weight", what, d->slide_force);
    cr_expect_leq(d->torque, tolerance, "%s: roll and spin torque off by %.3g of m g r", what, d->torque);
}

/* One path over the flat wall, for one family, on the plane and both meshes. */
static void flat_path(const wall_family* family, fd_vec3 start, fd_vec3 velocity, fd_vec3 push, int steps,
                      int min_hand_overs)
{
    double m = sphere_mass();
    fd_contact_law_def law = wall_family_law(family, K_N, 0.5, 0.4, m, RADIUS, true);
    double overlap = static_overlap(family, m * G, RADIUS);
    fd_body_def ball = ball_on_wall(fd_quat_identity(), start.x, start.y, velocity, overlap);
    ball.external_force = push;
    char what[128];
    snprintf(what, sizeof what, "%s from (%g, %g)", family->name, start.x, start.y);
    lockstep l = {
        .run_count = 3, .speed = fd_v3_length(velocity), .what = what, .slipping_column = family->slipping_column};
    for (int k = 0; k < 3; ++k) {
        l.runs[k] = make_rig(&law, (wall_kind)k, fd_quat_identity(), &ball);
    }
    advance(&l, steps);
    for (int k = 1; k < 3; ++k) {
        char label[192];
        snprintf(label, sizeof label, "%s, %s", what, wall_kind_names[k]);
        assert_agree(&l.worst[k], 0.0, label);
        cr_expect_geq(l.hand_overs[k], min_hand_overs, "%s: only %d triangle hand-overs", label, l.hand_overs[k]);
        cr_expect_geq(l.stuck_hand_overs[k], min_hand_overs / 2, "%s: only %d hand-overs with a stuck, loaded spring",
                      label, l.stuck_hand_overs[k]);
    }
    free_runs(&l);
}

Test(mesh_contact, a_sphere_along_the_diagonal_edges_and_through_the_vertices_moves_as_on_a_plane)
{
    /* From the vertex (-12/64, -12/64) along (1, 1), the direction of every
     * cell's diagonal edge: on the regular mesh the contact point runs along
     * edges shared by two triangles and through vertices shared by six,
     * within round-off of the edge all the way (the worst case for a
     * hand-over: the centre crosses the edge back and forth by an ulp). The
     * ball slides at 0.57 m/s without spin (slip ends after 2 v / (7 mu_k g)
     * = 41 ms), then rolls, its spring stuck with the push's share (about
     * 2/7 of it, 3% of the weight), for the rest of the 0.4 s: about 0.2 m
     * of path, 6 cells, hand-overs at each vertex. */
    for (int f = 0; f < WALL_FAMILY_COUNT; ++f) {
        double push = 0.1 * sphere_mass() * G;
        flat_path(&wall_families[f], fd_v3(-12 * CELL, -12 * CELL, 0), fd_v3(0.4, 0.4, 0),
                  fd_v3(push, push, 0), 40000, 8);
    }
}

Test(mesh_contact, a_sphere_across_edges_at_an_angle_moves_as_on_a_plane)
{
    /* At an angle to every edge, and pushed sideways so that the path bends
     * and the stuck spring of the rolling phase carries a load (2/7 of the
     * push) across every hand-over: the trajectory, loads and springs stay
     * the plane's. */
    for (int f = 0; f < WALL_FAMILY_COUNT; ++f) {
        double push = 0.1 * sphere_mass() * G;
        flat_path(&wall_families[f], fd_v3(-0.17, -0.05, 0), fd_v3(0.5, 0.2, 0), fd_v3(0.3 * push, -push, 0),
                  30000, 10);
    }
}

Test(mesh_contact, a_flat_mesh_cut_into_a_patch_per_triangle_still_gives_one_contact)
{
    /* Feature angle 0: every edge is a feature, every triangle its own patch
     * and wall body (2048 of them). Along the diagonal path through the
     * vertices, where six patches are equally close, and along the edges
     * shared by two, the ownership rule (src/collide/mesh_query.c) leaves
     * exactly one contact at every step, never none and never two. The normal
     * force equals the plane's bit for bit: on a flat wall the normal motion
     * is decoupled from the tangential one (the friction force lies in the
     * plane, its normal part exactly 0), so a hand-over cannot disturb it.
     * The tangential history does restart at each hand-over, each patch being
     * its own body (docs/walls.md: one contact per sphere and wall body):
     * the contact's identity changes with the patch, once per cell crossed
     * (the ties along the diagonal go to one of the cell's two triangles):
     * about 0.2 m of path, 6 cells. */
    const wall_family* family = &wall_families[0];
    double m = sphere_mass();
    fd_contact_law_def law = wall_family_law(family, K_N, 0.5, 0.4, m, RADIUS, false);
    fd_body_def ball = ball_on_wall(fd_quat_identity(), -12 * CELL, -12 * CELL, fd_v3(0.4, 0.4, 0),
                                    static_overlap(family, m * G, RADIUS));
    rig plane = make_rig(&law, WALL_PLANE, fd_quat_identity(), &ball);
    rig patches = {.world = make_world(), .tilt = fd_quat_identity()};
    fd_material_id steel = add_steel(patches.world, &law);
    fd_mesh* mesh = flat_mesh(false, 0.0);
    cr_assert_eq(fd_world_adopt_mesh(patches.world, mesh), FD_OK, "%s", fd_last_error());
    fd_body_def wall = wall_def("floor", steel, patches.tilt);
    wall.shape.type = FD_SHAPE_MESH;
    wall.shape.mesh = mesh;
    wall.shape.mesh_patch = -1;
    int count = 0;
    cr_assert_eq(fd_world_create_wall(patches.world, &wall, &patches.wall, &count), FD_OK, "%s", fd_last_error());
    cr_assert_eq(count, 2 * CELLS * CELLS);
    ball.material = steel;
    patches.ball = fd_world_create_body(patches.world, &ball);
    cr_assert(!fd_body_id_is_null(patches.ball), "%s", fd_last_error());
    int identities = 0;
    uint64_t id = 0;
    for (int s = 1; s <= 30000; ++s) {
        cr_assert_eq(fd_world_step(plane.world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_step(patches.world), FD_OK, "%s", fd_last_error());
        fd_contact_view on_plane = only_contact(&plane, "plane", s);
        fd_contact_view on_patch = only_contact(&patches, "one patch per triangle", s);
        cr_assert_eq(on_patch.loads.normal_force, on_plane.loads.normal_force,
                     "step %d: normal force %.17g N on the patches, %.17g N on the plane", s,
                     on_patch.loads.normal_force, on_plane.loads.normal_force);
        identities += on_patch.id != id;
        id = on_patch.id;
    }
    cr_expect_geq(identities, 5, "the contact changed patch only %d times", identities - 1);
    fd_world_free(plane.world);
    fd_world_free(patches.world);
}

/* ---------------------------------------------------------------- the incline */

/* Down a 20 degree incline (the wall turned about x, so that downhill is
 * body -y turned), for every family without rolling resistance, on the plane
 * and on the regular mesh stepped together: the acceleration along the slope
 * from the velocities at 0.05 s and 0.25 s equals the closed form, and mesh
 * and plane agree at every step (TILTED_TOLERANCE).
 *
 * Rolling: the contact point, where the tangential spring holds the sphere,
 * is at the middle of the overlap, a = r - delta/2 from the centre (both
 * kernels), so rolling without slip is v = omega a and the friction's
 * moment F a: m x'' = m g sin theta - F, I x'' / a = F a, hence
 *   x'' = g sin theta / (1 + I / (m a^2)) = g sin theta / (1 + 2/5 (r/a)^2),
 * 5/7 g sin theta (1 - 2/7 delta / r) to first order: 2e-4 below 5/7 g sin
 * theta at the static overlap delta = 8e-6 m (N = m g cos theta). Sliding:
 * the kinetic force mu N, x'' = g (sin theta - mu cos theta), whatever a.
 *
 * Tolerance 1e-7 relative. The ball starts at rest at the static overlap, so
 * the only transient is the tangential spring loading up, damped at about
 * its critical rate (sqrt(k_t / m) ~ 600 / s): e^-30 of it is left at
 * 0.05 s. After it the acceleration is constant, which the stepper
 * integrates exactly; what is left is round-off over 2e4 steps (1e-12) and
 * the static overlap's own: the contact point is at a = r - delta/2 with the
 * delta of the moment, which the normal spring's tiny residual oscillation
 * (set off by the spring loading up) moves by less than 1e-3 of delta, 1e-8
 * of x''. */
static void incline_closed_form(double mu, bool rolling)
{
    const double theta = 20.0 * PI / 180.0;
    double m = sphere_mass();
    fd_quat tilt = fd_quat_from_axis_angle(fd_v3(1, 0, 0), theta);
    fd_vec3 downhill = fd_quat_rotate(tilt, fd_v3(0, -1, 0));
    for (int f = 0; f < WALL_FAMILY_COUNT; ++f) {
        const wall_family* family = &wall_families[f];
        fd_contact_law_def law = wall_family_law(family, K_N, mu, mu, m, RADIUS, false);
        double overlap = static_overlap(family, m * G * cos(theta), RADIUS);
        double arm = RADIUS - 0.5 * overlap;
        double expected = rolling ? G * sin(theta) / (1.0 + 0.4 * (RADIUS / arm) * (RADIUS / arm))
                                  : G * (sin(theta) - mu * cos(theta));
        fd_body_def ball = ball_on_wall(tilt, 0.0, 0.15, fd_v3(0, 0, 0), overlap);
        char what[128];
        snprintf(what, sizeof what, "%s %s down the incline", family->name, rolling ? "rolling" : "sliding");
        lockstep l = {
            .run_count = 2, .speed = 0.25 * expected, .what = what, .slipping_column = family->slipping_column};
        for (int k = 0; k < 2; ++k) {
            l.runs[k] = make_rig(&law, (wall_kind)k, tilt, &ball);
        }
        double early[2];
        advance(&l, 5000);
        for (int k = 0; k < 2; ++k) {
            early[k] = fd_v3_dot(fd_body_get_state(l.runs[k].world, l.runs[k].ball).velocity, downhill);
        }
        advance(&l, 20000);
        for (int k = 0; k < 2; ++k) {
            double late = fd_v3_dot(fd_body_get_state(l.runs[k].world, l.runs[k].ball).velocity, downhill);
            double a = (late - early[k]) / 0.2;
            cr_expect(fabs(a - expected) <= 1e-7 * expected, "%s, %s: a = %.12g m/s^2, expected %.12g", what,
                      wall_kind_names[k], a, expected);
        }
        assert_agree(&l.worst[1], TILTED_TOLERANCE, what);
        /* Down x = 0, a column of vertical edges, about 5 cells: crossings of
         * the horizontal edges and the diagonals. */
        cr_expect_geq(l.hand_overs[1], 4, "%s: only %d triangle hand-overs", what, l.hand_overs[1]);
        free_runs(&l);
    }
}

Test(mesh_contact, a_sphere_rolls_down_a_tilted_mesh_at_five_sevenths_g_sin_theta)
{
    /* Rolling without slip needs mu >= 2/7 tan theta = 0.104; mu = 0.5. */
    incline_closed_form(0.5, true);
}

Test(mesh_contact, a_sphere_slides_down_a_tilted_mesh_at_g_sin_theta_minus_mu_cos_theta)
{
    /* Below mu = 2/7 tan theta the contact point's slip grows: it slides
     * throughout, at the kinetic force mu N; mu = 0.05. */
    incline_closed_form(0.05, false);
}

/* ---------------------------------------------------------------- inside a drum */

#define DRUM_RADIUS 0.05

/* Hertz's effective radius of the ball inside the shell: relative
 * curvatures 1/r - 1/R around the axis and 1/r along it, R_e = 1 /
 * sqrt((1/r - 1/R) / r) (Johnson Sec. 4.1), 0.0112 m: 12% above the ball's
 * own radius, which a plane would give. */
static double drum_effective_radius(void)
{
    return 1.0 / sqrt((1.0 / RADIUS - 1.0 / DRUM_RADIUS) / RADIUS);
}

/* A drum at rest, a cylindrical shell of radius 0.05 m and length 0.1 m,
 * its axis world x (the body's z turned onto x), and the ball inside at rest
 * at the angle phi from the bottom (in the y-z plane), its centre
 * R - r + overlap from the axis. */
static rig drum_rig(const fd_contact_law_def* law, double phi, double overlap)
{
    rig r = {.world = make_world(), .tilt = fd_quat_from_axis_angle(fd_v3(0, 1, 0), 0.5 * PI)};
    fd_material_id steel = add_steel(r.world, law);
    fd_body_def drum = wall_def("drum", steel, r.tilt);
    drum.shape.type = FD_SHAPE_CYLINDER;
    drum.shape.radius = DRUM_RADIUS;
    drum.shape.length = 0.1;
    r.wall = fd_world_create_body(r.world, &drum);
    cr_assert(!fd_body_id_is_null(r.wall), "%s", fd_last_error());
    double rho = DRUM_RADIUS - RADIUS + overlap;
    fd_body_def ball = fd_default_body_def();
    ball.name = "ball";
    ball.material = steel;
    ball.shape.radius = RADIUS;
    ball.position = fd_v3(0, rho * sin(phi), -rho * cos(phi));
    r.ball = fd_world_create_body(r.world, &ball);
    cr_assert(!fd_body_id_is_null(r.ball), "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(r.world), FD_OK, "%s", fd_last_error());
    return r;
}

Test(mesh_contact, a_sphere_in_a_drum_overlaps_the_shell_by_its_distance_and_settles_to_the_concave_overlap)
{
    /* Dropped from touching (overlap 0) at the bottom, the ball rebounds
     * (restitution 0.3) and settles. Every step: one contact, its overlap
     * r - (R - rho) from the centre's distance rho to the axis and its normal
     * -(0, y, z) / rho towards the axis, to round-off: the shell's gap is
     * rho - R computed in the drum's frame after one rotation, a few ulps of
     * 0.05 m (1e-17 m); 1e-15 m. After 0.2 s (the rebound decays as
     * e^(-zeta omega t), zeta omega = 390 / s for Hooke: e^-78) the overlap
     * is the static one under the weight: Hooke m g / k_n, Hertz (3 m g /
     * (4 E* sqrt(R_e)))^(2/3) with the concave R_e, 3.7% below a plane's;
     * tolerance 1e-9 relative, the round-off of the force balance k delta =
     * m g at delta = 8e-6 m (the centre's coordinates carry 1e-17 m, 1e-12 of
     * delta) with room for the decayed rebound. */
    double m = sphere_mass();
    for (int f = 0; f < WALL_FAMILY_COUNT; ++f) {
        const wall_family* family = &wall_families[f];
        fd_contact_law_def law = wall_family_law(family, K_N, 0.5, 0.5, m, RADIUS, false);
        rig r = drum_rig(&law, 0.0, 0.0);
        double worst_overlap = 0.0, worst_normal = 0.0;
        fd_contact_view view = {0}; /* the last step in contact's (a run never in contact fails the check below) */
        for (int s = 1; s <= 20000; ++s) {
            cr_assert_eq(fd_world_step(r.world), FD_OK, "%s: %s", family->name, fd_last_error());
            if (fd_world_contact_count(r.world) == 0) {
                continue; /* in the air during the first rebound */
            }
            view = only_contact(&r, family->name, s);
            fd_vec3 centre = fd_body_get_state(r.world, r.ball).position;
            double rho = hypot(centre.y, centre.z);
            worst_overlap = fmax(worst_overlap, fabs(view.geometry.penetration - (RADIUS - (DRUM_RADIUS - rho))));
            fd_vec3 inward = fd_v3(0, -centre.y / rho, -centre.z / rho);
            /* the normal points into body i, the lower index: the drum */
            cr_assert_eq(view.body_i.index1, r.wall.index1);
            fd_vec3 into_ball = fd_v3_neg(view.geometry.normal);
            worst_normal = fmax(worst_normal, fd_v3_distance(into_ball, inward));
        }
        cr_expect_leq(worst_overlap, 1e-15, "%s: overlap off the closed form by %.3g m", family->name, worst_overlap);
        cr_expect_leq(worst_normal, 1e-14, "%s: normal off the radial by %.3g", family->name, worst_normal);
        double expected = static_overlap(family, m * G, drum_effective_radius());
        cr_expect(fabs(view.geometry.penetration - expected) <= 1e-9 * expected,
                  "%s: settled overlap %.12g m, expected %.12g m", family->name, view.geometry.penetration, expected);
        fd_world_free(r.world);
    }
}

Test(mesh_contact, a_sphere_rocks_in_a_drum_with_the_period_of_rolling_in_a_cylinder)
{
    /* Let go at phi0 = 0.05 rad from the bottom, the ball rolls back and
     * forth without slip (mu = 0.5 against tan phi0 2/7). With its centre on
     * the circle rho = R - r + delta and the contact point a = r - delta/2
     * from the centre (rolling: omega a = rho phi'), the energy
     * m rho^2 phi'^2 / 2 (1 + I / (m a^2)) + m g rho (1 - cos phi) gives
     *   T0 = 2 pi sqrt(rho (1 + 2/5 (r/a)^2) / g)
     * (2 pi sqrt(7 (R - r) / (5 g)) = 0.4746 s for a rigid contact), and the
     * amplitude lengthens it by phi0^2 / 16 (the pendulum's series), 1.6e-4.
     * Measured over two periods between downward zero crossings of phi
     * (interpolated within the step: 1e-5 s / 0.95 s, ~1e-7 with the linear
     * interpolation's error). What is not in the closed form: the tangential
     * spring lets the contact point move, lowering the rolling stiffness by
     * about (omega / omega_t)^2 = (13 / 1100)^2 = 1.4e-4, and the next term
     * of the amplitude series (phi0^4 11 / 3072, 2e-8). Tolerance 5e-4
     * relative, three times the spring's effect (measured: 3e-5 with Hooke,
     * 4e-6 with Hertz). */
    const double phi0 = 0.05;
    double m = sphere_mass();
    for (int f = 0; f < WALL_FAMILY_COUNT; ++f) {
        const wall_family* family = &wall_families[f];
        fd_contact_law_def law = wall_family_law(family, K_N, 0.5, 0.5, m, RADIUS, false);
        double overlap = static_overlap(family, m * G * cos(phi0), drum_effective_radius());
        rig r = drum_rig(&law, phi0, overlap);
        double rho = DRUM_RADIUS - RADIUS + overlap, arm = RADIUS - 0.5 * overlap;
        double expected =
            2.0 * PI * sqrt(rho * (1.0 + 0.4 * (RADIUS / arm) * (RADIUS / arm)) / G) * (1.0 + phi0 * phi0 / 16.0);
        double crossings[3];
        int found = 0;
        double previous = phi0;
        for (int s = 1; found < 3 && s <= 150000; ++s) {
            cr_assert_eq(fd_world_step(r.world), FD_OK, "%s: %s", family->name, fd_last_error());
            only_contact(&r, family->name, s);
            fd_vec3 centre = fd_body_get_state(r.world, r.ball).position;
            double phi = atan2(centre.y, -centre.z);
            if (previous > 0.0 && phi <= 0.0) {
                crossings[found++] = DT * (s - 1 + previous / (previous - phi));
            }
            previous = phi;
        }
        cr_assert_eq(found, 3, "%s: rocked through the bottom only %d times going down", family->name, found);
        double period = 0.5 * (crossings[2] - crossings[0]);
        cr_expect(fabs(period - expected) <= 5e-4 * expected, "%s: period %.9g s, expected %.9g s", family->name,
                  period, expected);
        fd_world_free(r.world);
    }
}
