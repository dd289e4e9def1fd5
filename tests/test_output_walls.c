/* The walls series of the VTU output (src/io/output_vtu_walls.c, issue 12
 * item 7): walls.pvd + vtu/walls_NNNNNN.vtu draw every wall body at its pose
 * of the snapshot's time, at its true size: a cylindrical shell and its caps,
 * an annulus, the patches of a tetrahedron mesh, a two-triangle plate and a
 * plane. The files are read back here, ASCII and binary, with a reader of
 * their own (no code shared with the writer), and the drawn points are
 * checked against the geometry the world was built from. A contact with a wall is drawn in the contacts
 * series as a line from the sphere's centre to the contact point.
 *
 * Tolerances. Binary files hold the writer's doubles exactly; a point is the
 * body position plus a rotated body-frame point, a few roundings of numbers of
 * order 1 m, so 1e-12 m (relative to the 0.1 m to 1 m sizes here: 1e-11 to
 * 1e-12, four orders above the ~1e-16 round-off) separates round-off from any
 * real error. ASCII files have 10 significant digits (%.10g): each value there
 * is the binary one to 5e-10 relative, plus 1e-300 for zeros.
 *
 * Facet error. A circle of radius R is drawn as its inscribed n-gon (the
 * vertices on the circle), whose area is (n / 2) R^2 sin(2 pi / n); with
 * x = 2 pi / n, 1 - sin(x) / x <= x^2 / 6, so the drawn area of a disk or
 * annulus is below pi (R^2 - r^2) by at most that fraction (0.3 % at n = 48). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/file.h"
#include "support/laws.h"

#define GEOMETRY_TOLERANCE 1e-12 /* m: see the head of the file */
#define ASCII_RELATIVE 5e-10     /* %.10g: half a unit in the 10th significant digit */

/* ---------------------------------------------------------------- VTU reading */

/* A walls file read back: every array as doubles (the integer arrays hold
 * small integers, exact as doubles). */
typedef struct walls_file {
    long points, cells;
    double* point;           /* 3 per point */
    double* connectivity;
    double* offsets;
    double* types;
    double* id;
    double* wall;
    double* normal;          /* 3 per cell */
    char* text;              /* the whole file */
    bool binary;
} walls_file;

/* The DataArray `name`: its values, count of them (ASCII text or raw
 * appended binary of the declared type). */
static double* read_array(const char* text, const char* name, long* count)
{
    char key[80];
    snprintf(key, sizeof key, " Name=\"%s\"", name);
    const char* at = strstr(text, key);
    cr_assert_not_null(at, "no array %s", name);
    const char* tag = at;
    while (tag > text && strncmp(tag, "<DataArray", 10) != 0) {
        --tag;
    }
    const char* tag_end = strchr(tag, '>');
    const char* types[4] = {"Float64", "Int64", "Int32", "UInt8"};
    const size_t sizes[4] = {8, 8, 4, 1};
    int type = -1;
    for (int k = 0; k < 4; ++k) {
        char attribute[32];
        snprintf(attribute, sizeof attribute, "type=\"%s\"", types[k]);
        const char* a = strstr(tag, attribute);
        if (a && a < tag_end) {
            type = k;
        }
    }
    cr_assert_geq(type, 0, "%s: unknown type", name);
    const char* format = strstr(tag, "format=\"");
    cr_assert(format && format < tag_end);
    if (strncmp(format + 8, "ascii", 5) == 0) {
        const char* close = strstr(tag_end, "</DataArray>");
        cr_assert_not_null(close);
        long capacity = 64, n = 0;
        double* values = malloc((size_t)capacity * sizeof *values);
        const char* c = tag_end + 1;
        for (;;) {
            char* next;
            double v = strtod(c, &next);
            if (next == c || next > close) {
                break;
            }
            if (n == capacity) {
                capacity *= 2;
                values = realloc(values, (size_t)capacity * sizeof *values);
            }
            values[n++] = v;
            c = next;
        }
        cr_assert(strspn(c, " \n") == (size_t)(close - c), "%s: stray text in an ASCII array", name);
        *count = n;
        return values;
    }
    cr_assert_eq(strncmp(format + 8, "appended", 8), 0);
    uint64_t offset = (uint64_t)attribute_long(tag, "offset");
    const char* data = strchr(strstr(text, "<AppendedData encoding=\"raw\">"), '_') + 1;
    uint64_t bytes;
    memcpy(&bytes, data + offset, sizeof bytes);
    cr_assert_eq(bytes % sizes[type], 0);
    long n = (long)(bytes / sizes[type]);
    double* values = malloc((size_t)(n > 0 ? n : 1) * sizeof *values);
    const unsigned char* raw = (const unsigned char*)data + offset + 8;
    for (long i = 0; i < n; ++i) {
        if (type == 0) {
            memcpy(&values[i], raw + 8 * i, 8);
        } else if (type == 1) {
            int64_t v;
            memcpy(&v, raw + 8 * i, 8);
            values[i] = (double)v;
        } else if (type == 2) {
            int32_t v;
            memcpy(&v, raw + 4 * i, 4);
            values[i] = (double)v;
        } else {
            values[i] = raw[i];
        }
    }
    *count = n;
    return values;
}

/* Reads a walls file and checks its structure: XML (of the part before the
 * binary block), the array lengths against NumberOfPoints / NumberOfCells,
 * offsets increasing to the connectivity's length, each cell a triangle (3
 * corners, VTK type 5) or a quad (4, type 9) of existing points, wound
 * about its normal, and every point a corner of one body's cells only (a
 * body is a piece of its own: ParaView's Threshold on id cuts it whole). */
static walls_file read_walls(const char* path)
{
    walls_file f = {0};
    size_t size;
    f.text = read_all(path, &size);
    f.binary = check_vtu_xml(f.text, path, true) != NULL;
    const char* piece = strstr(f.text, "<Piece ");
    cr_assert_not_null(piece);
    f.points = attribute_long(piece, "NumberOfPoints");
    f.cells = attribute_long(piece, "NumberOfCells");
    long n;
    f.point = read_array(f.text, "Points", &n);
    cr_assert_eq(n, 3 * f.points, "%s: Points", path);
    f.offsets = read_array(f.text, "offsets", &n);
    cr_assert_eq(n, f.cells);
    f.types = read_array(f.text, "types", &n);
    cr_assert_eq(n, f.cells);
    f.id = read_array(f.text, "id", &n);
    cr_assert_eq(n, f.cells);
    f.wall = read_array(f.text, "wall", &n);
    cr_assert_eq(n, f.cells);
    f.normal = read_array(f.text, "normal", &n);
    cr_assert_eq(n, 3 * f.cells);
    f.connectivity = read_array(f.text, "connectivity", &n);
    cr_assert_eq(n, f.cells > 0 ? (long)f.offsets[f.cells - 1] : 0, "%s: connectivity length", path);
    double* owner = malloc((size_t)(f.points > 0 ? f.points : 1) * sizeof *owner);
    for (long p = 0; p < f.points; ++p) {
        owner[p] = -1.0;
    }
    const char* cell_data = strstr(f.text, "<CellData");
    cr_assert(cell_data && cell_data < strstr(f.text, "Name=\"id\""), "%s: id is not cell data", path);
    for (long c = 0; c < f.cells; ++c) {
        long begin = c > 0 ? (long)f.offsets[c - 1] : 0;
        long corners = (long)f.offsets[c] - begin;
        cr_assert((corners == 3 && f.types[c] == 5) || (corners == 4 && f.types[c] == 9),
                  "%s: cell %ld has %ld corners and type %g", path, c, corners, f.types[c]);
        fd_vec3 p[4];
        for (long k = 0; k < corners; ++k) {
            long at = (long)f.connectivity[begin + k];
            cr_assert(at >= 0 && at < f.points, "%s: corner out of range", path);
            cr_assert(owner[at] < 0.0 || owner[at] == f.id[c], "%s: point %ld is shared by bodies %g and %g", path,
                      at, owner[at], f.id[c]);
            owner[at] = f.id[c];
            p[k] = fd_v3(f.point[3 * at], f.point[3 * at + 1], f.point[3 * at + 2]);
        }
        /* The corners wind about the cell's normal (right-hand rule), as
         * ParaView lights them: the fan's summed cross product points along
         * it (1e-6: the ASCII corners' 10 digits on facets of a few mm). */
        fd_vec3 winding = fd_v3(0, 0, 0);
        for (long k = 1; k + 1 < corners; ++k) {
            winding = fd_v3_add(winding, fd_v3_cross(fd_v3_sub(p[k], p[0]), fd_v3_sub(p[k + 1], p[0])));
        }
        fd_vec3 normal = fd_v3(f.normal[3 * c], f.normal[3 * c + 1], f.normal[3 * c + 2]);
        cr_assert_leq(fd_v3_distance(fd_v3_normalize(winding), normal), 1e-6, "%s: cell %ld winds against its normal",
                      path, c);
    }
    for (long p = 0; p < f.points; ++p) {
        cr_assert_geq(owner[p], 0.0, "%s: point %ld is no cell's corner", path, p);
    }
    free(owner);
    return f;
}

static void free_walls(walls_file* f)
{
    free(f->point), free(f->connectivity), free(f->offsets), free(f->types);
    free(f->id), free(f->wall), free(f->normal), free(f->text);
}

static long cell_begin(const walls_file* f, long c) { return c > 0 ? (long)f->offsets[c - 1] : 0; }
static long cell_corners(const walls_file* f, long c) { return (long)f->offsets[c] - cell_begin(f, c); }

static fd_vec3 point_at(const walls_file* f, long p)
{
    return fd_v3(f->point[3 * p], f->point[3 * p + 1], f->point[3 * p + 2]);
}

static fd_vec3 corner(const walls_file* f, long c, long k)
{
    return point_at(f, (long)f->connectivity[cell_begin(f, c) + k]);
}

static fd_vec3 cell_normal(const walls_file* f, long c)
{
    return fd_v3(f->normal[3 * c], f->normal[3 * c + 1], f->normal[3 * c + 2]);
}

/* Area of a planar polygon cell: half the norm of the sum of the fan's cross products. */
static double cell_area(const walls_file* f, long c)
{
    fd_vec3 sum = fd_v3(0, 0, 0);
    fd_vec3 p0 = corner(f, c, 0);
    for (long k = 1; k + 1 < cell_corners(f, c); ++k) {
        sum = fd_v3_add(sum, fd_v3_cross(fd_v3_sub(corner(f, c, k), p0), fd_v3_sub(corner(f, c, k + 1), p0)));
    }
    return 0.5 * fd_v3_length(sum);
}

/* ---------------------------------------------------------------- the world */

#define DT 1e-3
#define STEPS 50

#define DRUM_RADIUS 0.1
#define DRUM_LENGTH 0.04
#define FLOOR_RADIUS 0.2
#define FLOOR_INNER 0.05
#define FLOOR_OFFSET 0.01
#define GROUND_HEIGHT -0.5
#define GROUND_SPEED 0.05          /* m/s along +z */
static const fd_vec3 drum_spin = {0.0, 0.0, 2.0}; /* rad/s, world; 0.1 rad over the run */

/* The tetrahedron with corners at the origin and on the three axes, 0.1 m,
 * wound outwards: every dihedral angle is above 54 degrees, so with a feature
 * angle of 30 degrees each face is its own patch. */
static const double tetra_vertices[12] = {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1};
static const int tetra_triangles[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

/* A flat square of side 0.2 m as two triangles sharing a diagonal: one
 * patch, whose four corners the drawing shares between its two cells. */
static const double plate_vertices[12] = {-0.1, -0.1, 0, 0.1, -0.1, 0, 0.1, 0.1, 0, -0.1, 0.1, 0};
static const int plate_triangles[6] = {0, 1, 2, 0, 2, 3};

typedef struct walls_world {
    fd_world* world;
    fd_body_id drum, floor, tetra, plate, ground;
    int drum_count, tetra_count;
} walls_world;

static fd_quat unit_rotation(fd_vec3 axis, double angle)
{
    return fd_quat_from_axis_angle(fd_v3_normalize(axis), angle);
}

static fd_body_def wall_def(const char* name, fd_material_id material, fd_vec3 position, fd_quat orientation)
{
    fd_body_def def = fd_default_body_def();
    def.name = name;
    def.type = FD_BODY_STATIC;
    def.material = material;
    def.position = position;
    def.orientation = orientation;
    return def;
}

/* A capped drum, an annulus, a tetrahedron (one body per face), and a ground
 * plane, each at a pose with no special axis. */
static walls_world make_world(void)
{
    walls_world w = {0};
    fd_world_def world_def = fd_default_world_def();
    world_def.time_step = DT;
    w.world = fd_world_create(&world_def);
    cr_assert_not_null(w.world, "%s", fd_last_error());
    fd_material_def material_def = fd_default_material_def();
    material_def.name = "steel";
    material_def.density = 7800.0;
    fd_material_id steel = fd_world_create_material(w.world, &material_def);
    cr_assert(!fd_material_id_is_null(steel), "%s", fd_last_error());

    fd_body_def drum = wall_def("drum", steel, fd_v3(0.3, -0.2, 0.5), unit_rotation(fd_v3(1, 2, 3), 0.9));
    drum.shape.type = FD_SHAPE_CYLINDER;
    drum.shape.radius = DRUM_RADIUS;
    drum.shape.length = DRUM_LENGTH;
    drum.shape.capped = true;
    cr_assert_eq(fd_world_create_wall(w.world, &drum, &w.drum, &w.drum_count), FD_OK, "%s", fd_last_error());
    cr_assert_eq(w.drum_count, 3, "a shell and two caps");

    fd_body_def floor = wall_def("floor-ring", steel, fd_v3(-0.4, 0.1, 0.0), unit_rotation(fd_v3(0, 1, 1), 0.4));
    floor.shape.type = FD_SHAPE_DISK;
    floor.shape.radius = FLOOR_RADIUS;
    floor.shape.inner_radius = FLOOR_INNER;
    floor.shape.offset = FLOOR_OFFSET;
    int count;
    cr_assert_eq(fd_world_create_wall(w.world, &floor, &w.floor, &count), FD_OK, "%s", fd_last_error());

    char message[256] = "";
    fd_mesh* mesh = fd_mesh_create(tetra_vertices, 4, tetra_triangles, 4, FD_PI / 6.0, message, sizeof message);
    cr_assert_not_null(mesh, "%s", message);
    cr_assert_eq(fd_mesh_patch_count(mesh), 4);
    cr_assert_eq(fd_mesh_triangle_count(mesh), 4);
    cr_assert_eq(fd_world_adopt_mesh(w.world, mesh), FD_OK, "%s", fd_last_error());
    fd_body_def tetra = wall_def("tetra", steel, fd_v3(0.1, 0.4, -0.2), unit_rotation(fd_v3(1, 0, 0.5), 0.3));
    tetra.shape.type = FD_SHAPE_MESH;
    tetra.shape.mesh = mesh;
    tetra.shape.mesh_patch = -1;
    cr_assert_eq(fd_world_create_wall(w.world, &tetra, &w.tetra, &w.tetra_count), FD_OK, "%s", fd_last_error());
    cr_assert_eq(w.tetra_count, 4);

    fd_mesh* plate_mesh = fd_mesh_create(plate_vertices, 4, plate_triangles, 2, FD_PI / 6.0, message, sizeof message);
    cr_assert_not_null(plate_mesh, "%s", message);
    cr_assert_eq(fd_mesh_patch_count(plate_mesh), 1);
    cr_assert_eq(fd_world_adopt_mesh(w.world, plate_mesh), FD_OK, "%s", fd_last_error());
    fd_body_def plate = wall_def("plate", steel, fd_v3(0.6, 0.6, 0.1), unit_rotation(fd_v3(-1, 1, 0), 1.1));
    plate.shape.type = FD_SHAPE_MESH;
    plate.shape.mesh = plate_mesh;
    plate.shape.mesh_patch = -1;
    cr_assert_eq(fd_world_create_wall(w.world, &plate, &w.plate, &count), FD_OK, "%s", fd_last_error());
    cr_assert_eq(count, 1);

    fd_body_def ground = wall_def("ground", steel, fd_v3(0, 0, GROUND_HEIGHT), fd_quat_identity());
    ground.shape.type = FD_SHAPE_PLANE;
    ground.shape.plane_normal = fd_v3(0, 0, 1);
    w.ground = fd_world_create_body(w.world, &ground);
    cr_assert(!fd_body_id_is_null(w.ground), "%s", fd_last_error());
    return w;
}

static int index_of(fd_body_id id) { return (int)id.index1 - 1; }

static fd_output_settings vtu_settings(const char* directory, bool ascii)
{
    fd_output_settings settings = {0};
    snprintf(settings.directory, sizeof settings.directory, "%s", directory);
    settings.vtu_interval = 1.0; /* longer than the run: a snapshot at the start and one at the end */
    settings.vtu_ascii = ascii;
    return settings;
}

/* Writes the walls of w in ASCII into ascii_dir and in binary into
 * binary_dir at the start, then (when `steps` > 0) turns the drum about
 * drum_spin, lifts the ground, runs `steps` steps and writes again. */
static void write_run(walls_world* w, const char* ascii_dir, const char* binary_dir, int steps)
{
    fd_output_settings ascii = vtu_settings(ascii_dir, true);
    fd_output_settings binary = vtu_settings(binary_dir, false);
    fd_output* outputs[2] = {fd_output_open(w->world, &ascii), fd_output_open(w->world, &binary)};
    for (int k = 0; k < 2; ++k) {
        cr_assert_not_null(outputs[k], "%s", fd_last_error());
        cr_assert_eq(fd_output_write(outputs[k], w->world), FD_OK, "%s", fd_last_error());
    }
    if (steps > 0) {
        fd_wall_motion spin = fd_default_wall_motion();
        spin.angular_velocity = drum_spin;
        /* Set on the wall's first body, the motion moves all its parts. */
        cr_assert_eq(fd_world_set_wall_motion(w->world, w->drum, &spin), FD_OK, "%s", fd_last_error());
        fd_wall_motion lift = fd_default_wall_motion();
        lift.velocity = fd_v3(0, 0, GROUND_SPEED);
        cr_assert_eq(fd_world_set_wall_motion(w->world, w->ground, &lift), FD_OK, "%s", fd_last_error());
        for (int s = 0; s < steps; ++s) {
            cr_assert_eq(fd_world_step(w->world), FD_OK, "%s", fd_last_error());
            for (int k = 0; k < 2; ++k) {
                cr_assert_eq(fd_output_write(outputs[k], w->world), FD_OK, "%s", fd_last_error());
            }
        }
    }
    for (int k = 0; k < 2; ++k) {
        cr_assert_eq(fd_output_close(outputs[k], w->world), FD_OK, "%s", fd_last_error());
    }
}

/* A world of make_world written by write_run into two fresh directories. */
typedef struct written_run {
    char ascii_dir[64], binary_dir[64];
    walls_world w;
} written_run;

static written_run write_fresh_run(int steps)
{
    written_run run;
    make_temp_dir(run.ascii_dir, sizeof run.ascii_dir);
    make_temp_dir(run.binary_dir, sizeof run.binary_dir);
    run.w = make_world();
    write_run(&run.w, run.ascii_dir, run.binary_dir, steps);
    return run;
}

static void free_run(written_run* run)
{
    fd_world_free(run->w.world);
    remove_tree(run->ascii_dir);
    remove_tree(run->binary_dir);
}

/* The cells of body `id` in f: their indices, count of them. */
static long cells_of(const walls_file* f, fd_body_id id, long* cells, long capacity)
{
    long n = 0;
    for (long c = 0; c < f->cells; ++c) {
        if ((int)f->id[c] == index_of(id)) {
            cr_assert_lt(n, capacity);
            cells[n++] = c;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- tests */

Test(output_walls, ascii_and_binary_files_parse_and_hold_the_same_drawing)
{
    /* Both encodings: well-formed, the same points and cells (ASCII to its
     * 10 digits), one cell array `wall` naming each body's wall, the drawn
     * bodies' names in the trailing comment ("floor-ring" without its "-"
     * doubled into a forbidden "--"). */
    written_run run = write_fresh_run(0);
    const walls_world w = run.w;
    walls_file a = read_walls(path_in(run.ascii_dir, "vtu/walls_000000.vtu"));
    walls_file b = read_walls(path_in(run.binary_dir, "vtu/walls_000000.vtu"));
    cr_assert(!a.binary && b.binary);
    cr_assert_eq(a.points, b.points);
    cr_assert_eq(a.cells, b.cells);
    for (long p = 0; p < 3 * a.points; ++p) {
        cr_assert_leq(fabs(a.point[p] - b.point[p]), ASCII_RELATIVE * fabs(b.point[p]) + 1e-300,
                      "coordinate %ld: %.17g vs %.17g", p, a.point[p], b.point[p]);
    }
    for (long c = 0; c < a.cells; ++c) {
        cr_assert_eq(a.offsets[c], b.offsets[c]);
        cr_assert_eq(a.types[c], b.types[c]);
        cr_assert_eq(a.id[c], b.id[c]);
        cr_assert_eq(a.wall[c], b.wall[c]);
        for (int k = 0; k < 3; ++k) {
            cr_assert_leq(fabs(a.normal[3 * c + k] - b.normal[3 * c + k]),
                          ASCII_RELATIVE * fabs(b.normal[3 * c + k]) + 1e-300);
        }
    }
    for (long k = 0; k < (long)b.offsets[b.cells - 1]; ++k) {
        cr_assert_eq(a.connectivity[k], b.connectivity[k]);
    }
    /* Every drawn body has cells, and its wall is its wall's first body. The
     * names are in a comment after </VTKFile> (in the ASCII file: the binary
     * one has NUL bytes before it, which strstr stops at). */
    const char* names = strstr(a.text, "</VTKFile>\n<!-- walls:");
    cr_assert_not_null(names);
    for (int i = 0; i < fd_world_body_count(w.world); ++i) {
        fd_body_id id = fd_world_body_at(w.world, i);
        long cells[512];
        long n = cells_of(&b, id, cells, 512);
        cr_assert_gt(n, 0, "body %d has no cells", i);
        for (long k = 0; k < n; ++k) {
            cr_assert_eq((int)b.wall[cells[k]], index_of(fd_body_get_info(w.world, id).wall));
        }
        char entry[64];
        snprintf(entry, sizeof entry, " %d=", i);
        cr_assert_not_null(strstr(names, entry), "body %d is not named", i);
    }
    cr_assert_not_null(strstr(names, "=floor_ring"));
    cr_assert_not_null(strstr(names, "=drum.cap_low"));
    free_walls(&a);
    free_walls(&b);
    free_run(&run);
}

/* Checks the drum of w, drawn in f at the pose (position, q): the shell's
 * points at distance R from the axis, on its two rims z = -+L/2 (body
 * frame); each shell normal unit, across the axis and pointing out through
 * its quad; the caps' points on their planes within R of the axis; the caps'
 * areas the inscribed polygon's. */
static void check_drum(const walls_world* w, const walls_file* f, fd_vec3 position, fd_quat q)
{
    const fd_vec3 axis = fd_quat_rotate(q, fd_v3(0, 0, 1));
    long cells[512];
    long n = cells_of(f, w->drum, cells, 512);
    cr_assert_geq(n, 48, "the shell needs at least 48 facets, has %ld", n);
    for (long k = 0; k < n; ++k) {
        long c = cells[k];
        fd_vec3 centroid = fd_v3(0, 0, 0);
        for (long j = 0; j < cell_corners(f, c); ++j) {
            fd_vec3 r = fd_v3_sub(corner(f, c, j), position);
            double along = fd_v3_dot(r, axis);
            double radial = fd_v3_length(fd_v3_reject(r, axis));
            cr_assert_leq(fabs(radial - DRUM_RADIUS), GEOMETRY_TOLERANCE, "radius %.17g", radial);
            cr_assert_leq(fabs(fabs(along) - 0.5 * DRUM_LENGTH), GEOMETRY_TOLERANCE, "not on a rim: %.17g", along);
            centroid = fd_v3_add(centroid, fd_v3_scale(1.0 / cell_corners(f, c), r));
        }
        fd_vec3 normal = cell_normal(f, c);
        cr_assert_leq(fabs(fd_v3_length(normal) - 1.0), 1e-12);
        cr_assert_leq(fabs(fd_v3_dot(normal, axis)), 1e-12, "a shell normal along the axis");
        /* Outward: the normal is the centroid's direction from the axis (the
         * centroid of a facet lies R cos(pi / n) from it, the normal through it). */
        fd_vec3 out = fd_v3_normalize(fd_v3_reject(centroid, axis));
        cr_assert_leq(fd_v3_distance(normal, out), 1e-12);
    }
    const double polygon = 0.5 * n * sin(2.0 * FD_PI / n) * DRUM_RADIUS * DRUM_RADIUS;
    for (int cap = 1; cap <= 2; ++cap) {
        fd_body_id id = fd_world_body_at(w->world, index_of(w->drum) + cap);
        long m = cells_of(f, id, cells, 512);
        cr_assert_eq(m, n, "a cap has as many segments as the shell");
        double area = 0.0;
        for (long k = 0; k < m; ++k) {
            for (long j = 0; j < cell_corners(f, cells[k]); ++j) {
                fd_vec3 r = fd_v3_sub(corner(f, cells[k], j), position);
                cr_assert_leq(fabs(fd_v3_dot(r, axis) - (cap == 1 ? -0.5 : 0.5) * DRUM_LENGTH), GEOMETRY_TOLERANCE);
                cr_assert_leq(fd_v3_length(fd_v3_reject(r, axis)), DRUM_RADIUS + GEOMETRY_TOLERANCE);
            }
            cr_assert_leq(fd_v3_distance(cell_normal(f, cells[k]), axis), 1e-12, "a cap's normal is body +z");
            area += cell_area(f, cells[k]);
        }
        cr_assert_leq(fabs(area - polygon), 1e-12 * polygon, "cap area %.17g, inscribed polygon %.17g", area, polygon);
    }
}

/* Writes a fresh run of no steps, reads its first binary drawing of the
 * walls and hands both to check: the tests of one wall's drawing against
 * the geometry make_world built it from all start and end this way. */
static void check_first_drawing(void (*check)(const walls_world* w, const walls_file* f))
{
    written_run run = write_fresh_run(0);
    walls_file f = read_walls(path_in(run.binary_dir, "vtu/walls_000000.vtu"));
    check(&run.w, &f);
    free_walls(&f);
    free_run(&run);
}

/* The drum at the position its body has at the start and the orientation
 * make_world gave it. */
static void check_drum_at_start(const walls_world* w, const walls_file* f)
{
    fd_body_state s = fd_body_get_state(w->world, w->drum);
    check_drum(w, f, s.position, unit_rotation(fd_v3(1, 2, 3), 0.9));
}

Test(output_walls, the_drum_shell_and_caps_lie_on_the_cylinder)
{
    check_first_drawing(check_drum_at_start);
}

/* Drawn area = (n / 2) sin(2 pi / n) (R^2 - r^2) to round-off, short of
 * pi (R^2 - r^2) by at most (2 pi / n)^2 / 6 of it; every point on the
 * annulus's plane at a radius of R or r (the corners are on the rims),
 * normals body +z. */
static void check_annulus(const walls_world* w, const walls_file* f)
{
    const fd_vec3 position = fd_v3(-0.4, 0.1, 0.0);
    const fd_quat q = unit_rotation(fd_v3(0, 1, 1), 0.4);
    const fd_vec3 axis = fd_quat_rotate(q, fd_v3(0, 0, 1));
    long cells[512];
    long n = cells_of(f, w->floor, cells, 512);
    cr_assert_geq(n, 48);
    double area = 0.0;
    long on_inner = 0, on_outer = 0, corners = 0;
    for (long k = 0; k < n; ++k) {
        corners += cell_corners(f, cells[k]);
        for (long j = 0; j < cell_corners(f, cells[k]); ++j) {
            fd_vec3 r = fd_v3_sub(corner(f, cells[k], j), position);
            cr_assert_leq(fabs(fd_v3_dot(r, axis) - FLOOR_OFFSET), GEOMETRY_TOLERANCE, "off the plane z = offset");
            double rho = fd_v3_length(fd_v3_reject(r, axis));
            on_inner += fabs(rho - FLOOR_INNER) <= GEOMETRY_TOLERANCE;
            on_outer += fabs(rho - FLOOR_RADIUS) <= GEOMETRY_TOLERANCE;
        }
        cr_assert_leq(fd_v3_distance(cell_normal(f, cells[k]), axis), 1e-12);
        area += cell_area(f, cells[k]);
    }
    cr_assert_eq(on_inner + on_outer, corners, "every corner on a rim (an annulus, not a disk with a centre)");
    cr_assert_gt(on_inner, 0);
    const double ring = FLOOR_RADIUS * FLOOR_RADIUS - FLOOR_INNER * FLOOR_INNER;
    const double polygon = 0.5 * n * sin(2.0 * FD_PI / n) * ring;
    cr_assert_leq(fabs(area - polygon), 1e-12 * polygon, "area %.17g, inscribed polygons %.17g", area, polygon);
    const double x = 2.0 * FD_PI / n;
    cr_assert_leq(area, FD_PI * ring);
    cr_assert_geq(area, FD_PI * ring * (1.0 - x * x / 6.0), "short of pi (R^2 - r^2) by more than the facet error");
}

Test(output_walls, the_annulus_area_approaches_pi_times_r_outer_squared_minus_r_inner_squared)
{
    check_first_drawing(check_annulus);
}

/* One triangle per patch body; its corners, as a set, are the input
 * triangle's vertices x + R(q) v (the mesh keeps the input order of its
 * triangles, so patch body p holds triangle p); its normal is the outward
 * normal of the tetrahedron's face, R(q) of the face's input normal. */
static void check_mesh_points(const walls_world* w, const walls_file* f)
{
    const fd_vec3 position = fd_v3(0.1, 0.4, -0.2);
    const fd_quat q = unit_rotation(fd_v3(1, 0, 0.5), 0.3);
    const fd_vec3 face_normals[4] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)}};
    for (int p = 0; p < 4; ++p) {
        fd_body_id id = fd_world_body_at(w->world, index_of(w->tetra) + p);
        const fd_body_info info = fd_body_get_info(w->world, id);
        cr_assert_eq(info.shape.mesh_patch, p);
        cr_assert_eq(fd_mesh_triangle_patch(info.shape.mesh, p), p);
        long cells[8];
        cr_assert_eq(cells_of(f, id, cells, 8), 1, "patch %d: one triangle", p);
        cr_assert_eq(cell_corners(f, cells[0]), 3);
        for (int j = 0; j < 3; ++j) {
            const double* v = tetra_vertices + 3 * tetra_triangles[3 * p + j];
            fd_vec3 expected = fd_v3_add(position, fd_quat_rotate(q, fd_v3(v[0], v[1], v[2])));
            bool found = false;
            for (long k = 0; k < 3; ++k) {
                found = found || fd_v3_distance(corner(f, cells[0], k), expected) <= GEOMETRY_TOLERANCE;
            }
            cr_assert(found, "patch %d: vertex %d not drawn", p, tetra_triangles[3 * p + j]);
        }
        cr_assert_leq(fd_v3_distance(cell_normal(f, cells[0]), fd_quat_rotate(q, face_normals[p])), 1e-12,
                      "patch %d: normal", p);
    }

    /* The plate: two triangles on four shared points, each the transformed
     * input vertex of the triangles' corners in order (a one-patch mesh keeps
     * its winding), area 0.04 m^2 and normal R(q) z. */
    const fd_vec3 plate_position = fd_v3(0.6, 0.6, 0.1);
    const fd_quat plate_q = unit_rotation(fd_v3(-1, 1, 0), 1.1);
    long cells[8];
    cr_assert_eq(cells_of(f, w->plate, cells, 8), 2);
    double area = 0.0;
    long distinct[6], distinct_count = 0;
    for (int k = 0; k < 2; ++k) {
        for (int j = 0; j < 3; ++j) {
            const double* v = plate_vertices + 3 * plate_triangles[3 * k + j];
            fd_vec3 expected = fd_v3_add(plate_position, fd_quat_rotate(plate_q, fd_v3(v[0], v[1], v[2])));
            cr_assert_leq(fd_v3_distance(corner(f, cells[k], j), expected), GEOMETRY_TOLERANCE);
            long at = (long)f->connectivity[cell_begin(f, cells[k]) + j];
            bool seen = false;
            for (long d = 0; d < distinct_count; ++d) {
                seen = seen || distinct[d] == at;
            }
            if (!seen) {
                distinct[distinct_count++] = at;
            }
        }
        cr_assert_leq(fd_v3_distance(cell_normal(f, cells[k]), fd_quat_rotate(plate_q, fd_v3(0, 0, 1))), 1e-12);
        area += cell_area(f, cells[k]);
    }
    cr_assert_eq(distinct_count, 4, "the diagonal's two corners are shared");
    cr_assert_leq(fabs(area - 0.04), 1e-15);
}

Test(output_walls, mesh_points_are_the_input_vertices_at_the_body_pose)
{
    check_first_drawing(check_mesh_points);
}

Test(output_walls, a_turning_drum_and_a_rising_plane_are_drawn_where_they_are)
{
    /* The drum turns about drum_spin (world frame, about its position), the
     * ground rises at GROUND_SPEED; by the closed form of docs/walls.md after
     * t: the drum's points are R(axis, |w| t) applied to its points at the
     * start (about the position), the ground's square lies in z = z0 + v t
     * with the same corners in x and y (its square is fixed at the start),
     * and the other walls have not moved. walls.pvd lists both snapshots. */
    written_run run = write_fresh_run(STEPS);
    const walls_world w = run.w;
    const double t = fd_world_time(w.world);
    cr_assert_leq(fabs(t - STEPS * DT), 1e-12);
    walls_file start = read_walls(path_in(run.binary_dir, "vtu/walls_000000.vtu"));
    walls_file end = read_walls(path_in(run.binary_dir, "vtu/walls_000001.vtu"));
    cr_assert_eq(start.points, end.points);
    cr_assert_eq(start.cells, end.cells);
    const fd_vec3 position = fd_v3(0.3, -0.2, 0.5);
    const double speed = fd_v3_length(drum_spin);
    const fd_quat turn = unit_rotation(drum_spin, speed * t);
    cr_assert_gt(speed * t, 0.05, "a visible turn");
    int drum_first = index_of(w.drum), drum_last = drum_first + w.drum_count - 1;
    for (long c = 0; c < end.cells; ++c) {
        int body = (int)end.id[c];
        cr_assert_eq(end.id[c], start.id[c]);
        for (long j = 0; j < cell_corners(&end, c); ++j) {
            fd_vec3 before = corner(&start, c, j), after = corner(&end, c, j);
            fd_vec3 expected = before;
            if (body >= drum_first && body <= drum_last) {
                expected = fd_v3_add(position, fd_quat_rotate(turn, fd_v3_sub(before, position)));
            } else if (body == index_of(w.ground)) {
                expected.z += GROUND_SPEED * t;
            }
            cr_assert_leq(fd_v3_distance(after, expected), GEOMETRY_TOLERANCE, "body %d, cell %ld: moved by %.3g",
                          body, c, fd_v3_distance(after, expected));
        }
    }
    /* The drum is still a drum, at its turned pose. */
    check_drum(&w, &end, position, fd_quat_mul(turn, unit_rotation(fd_v3(1, 2, 3), 0.9)));

    for (int k = 0; k < 2; ++k) {
        const char* directory = k == 0 ? run.ascii_dir : run.binary_dir;
        char* pvd = read_all(path_in(directory, "walls.pvd"), NULL);
        check_vtk_xml(pvd, "walls.pvd", true);
        int listed = 0;
        for (const char* d = strstr(pvd, "<DataSet"); d; d = strstr(d + 1, "<DataSet"), ++listed) {
            cr_assert_lt(listed, 2, "walls.pvd lists more than two snapshots");
            char file[64], expected[64];
            cr_assert_eq(sscanf(strstr(d, "file=\"") + 6, "%63[^\"]", file), 1);
            snprintf(expected, sizeof expected, "vtu/walls_%06d.vtu", listed);
            cr_assert_str_eq(file, expected);
            cr_assert_eq(strtod(strstr(d, "timestep=\"") + 10, NULL), listed == 0 ? 0.0 : t);
        }
        cr_assert_eq(listed, 2);
        cr_assert(!file_exists(path_in(directory, "vtu/planes.vtu")), "no planes.vtu beside the walls series");
        free(pvd);
    }
    free_walls(&start);
    free_walls(&end);
    free_run(&run);
}

Test(output_walls, a_world_without_walls_writes_no_walls_series)
{
    char directory[64];
    make_temp_dir(directory, sizeof directory);
    fd_world_def world_def = fd_default_world_def();
    world_def.time_step = DT;
    fd_world* world = fd_world_create(&world_def);
    cr_assert_not_null(world);
    fd_material_def material_def = fd_default_material_def();
    material_def.name = "grain";
    material_def.density = 2500.0;
    fd_body_def ball = fd_default_body_def();
    ball.material = fd_world_create_material(world, &material_def);
    ball.shape.radius = 0.01;
    cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &ball)), "%s", fd_last_error());
    fd_output_settings settings = vtu_settings(directory, true);
    fd_output* output = fd_output_open(world, &settings);
    cr_assert_not_null(output, "%s", fd_last_error());
    cr_assert_eq(fd_output_write(output, world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_output_close(output, world), FD_OK, "%s", fd_last_error());
    cr_assert(file_exists(path_in(directory, "bodies.pvd")));
    cr_assert(!file_exists(path_in(directory, "walls.pvd")));
    cr_assert(!file_exists(path_in(directory, "vtu/walls_000000.vtu")));
    fd_world_free(world);
    remove_tree(directory);
}

Test(output_walls, a_contact_line_ends_at_the_contact_point_on_a_drum)
{
    /* A sphere of radius r = 0.01 m against the inside of a drum of radius
     * 0.1 m (axis z through the origin), overlapping by 5e-4 m: in
     * contacts_NNNNNN.vtu the line runs from the sphere's centre to the
     * contact point (the middle of the two surface points, within the
     * overlap of (0.1, 0, 0)), not to the drum's position on its axis, 0.09 m
     * away. */
    char directory[64];
    make_temp_dir(directory, sizeof directory);
    fd_world_def world_def = test_weightless_world_def(1e-5);
    fd_world* world = test_create_world(&world_def);
    fd_material_id steel = test_add_solid_material(world, "steel", 7800.0, 0.0);
    fd_contact_law_def law = test_normal_law("hooke", "k_n", 1e5);
    test_add_param(&law.submodel[FD_MECHANISM_NORMAL], "restitution", 0.5);
    test_set_law(world, steel, &law);
    fd_body_def drum = wall_def("drum", steel, fd_v3(0, 0, 0), fd_quat_identity());
    drum.shape.type = FD_SHAPE_CYLINDER;
    drum.shape.radius = 0.1;
    drum.shape.length = 0.1;
    fd_body_id first;
    int count;
    cr_assert_eq(fd_world_create_wall(world, &drum, &first, &count), FD_OK, "%s", fd_last_error());
    fd_body_def ball = fd_default_body_def();
    ball.material = steel;
    ball.shape.radius = 0.01;
    ball.position = fd_v3(0.0905, 0, 0);
    fd_body_id ball_id = fd_world_create_body(world, &ball);
    cr_assert(!fd_body_id_is_null(ball_id), "%s", fd_last_error());
    fd_output_settings settings = vtu_settings(directory, false);
    fd_output* output = fd_output_open(world, &settings);
    cr_assert_not_null(output, "%s", fd_last_error());
    cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_contact_count(world), 1);
    cr_assert_eq(fd_output_close(output, world), FD_OK, "%s", fd_last_error());
    char* text = read_all(path_in(directory, "vtu/contacts_000000.vtu"), NULL);
    long n;
    double* points = read_array(text, "Points", &n);
    cr_assert_eq(n, 6, "one line");
    fd_vec3 centre = fd_body_get_state(world, ball_id).position;
    fd_vec3 ends[2] = {fd_v3(points[0], points[1], points[2]), fd_v3(points[3], points[4], points[5])};
    int ball_end = fd_v3_distance(ends[0], centre) < fd_v3_distance(ends[1], centre) ? 0 : 1;
    cr_assert_eq(fd_v3_distance(ends[ball_end], centre), 0.0, "one end is the sphere's centre");
    cr_assert_leq(fd_v3_distance(ends[1 - ball_end], fd_v3(0.1, 0, 0)), 5e-4, "the other the contact point: %g %g %g",
                  ends[1 - ball_end].x, ends[1 - ball_end].y, ends[1 - ball_end].z);
    free(points);
    free(text);
    fd_world_free(world);
    remove_tree(directory);
}
