/* bodies_file (src/io/scene_bodies_file.c): spheres from a CSV or HDF5 file
 * give bitwise the world the same spheres listed in `bodies:` give; a frame of
 * fricdem's own bodies.csv loads back to the state it holds; every bad header
 * or row is FD_ERR_PARSE with "FILE:LINE: column 'c': ..." ("FILE: dataset
 * 'c', row R: ..." for HDF5) and makes the CLI exit with 2; relative paths
 * are relative to the scene; order is bodies, file, generators; the number
 * parser is strtod to the bit. The HDF5 files are written here with the HDF5
 * C API, so the tests need no Python. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "io/number_format.h"
#include "io/scene_loader.h"
#include "support/temp_dir.h"

/* ---------------------------------------------------------------- fixtures */

TestSuite(bodies_file, .init = make_dir, .fini = remove_dir);

/* Writes printf-formatted text to temp_dir/name and returns the path. */
static const char* write_formatted(const char* name, const char* format, ...) __attribute__((format(printf, 2, 3)));
static const char* write_formatted(const char* name, const char* format, ...)
{
    const char* path = temp_path(name);
    FILE* file = fopen(path, "w");
    cr_assert_not_null(file, "cannot write %s", path);
    va_list args;
    va_start(args, format);
    vfprintf(file, format, args);
    va_end(args);
    fclose(file);
    return path;
}

#define SCENE_HEAD                                                                                                     \
    "time: {step: 1.0e-5, duration: 1.0e-5}\n"                                                                         \
    "materials:\n"                                                                                                     \
    "  - {name: glass, density: 2500, youngs_modulus: 6e10}\n"                                                         \
    "  - {name: steel, density: 7800, youngs_modulus: 2e11}\n"                                                         \
    "contacts:\n"                                                                                                      \
    "  - materials: [glass, glass]\n"                                                                                  \
    "    normal: {model: hooke, k_n: 1.0e5}\n"                                                                         \
    "  - materials: [glass, steel]\n"                                                                                  \
    "    normal: {model: hooke, k_n: 1.0e5}\n"                                                                         \
    "  - materials: [steel, steel]\n"                                                                                  \
    "    normal: {model: hooke, k_n: 1.0e5}\n"
/* SCENE_HEAD is lines 1-11; a scene's own lines start at 12. */

static fd_scene load_ok(const char* scene_path)
{
    fd_scene scene;
    fd_status status = fd_scene_load(scene_path, NULL, 0, &scene);
    cr_assert_eq(status, FD_OK, "%s: %s", scene_path, fd_last_error());
    return scene;
}

/* Loads a scene with `bodies_file: ENTRY` and expects a parse error whose
 * message starts with prefix (after the temp dir and a slash) and holds
 * every fragment. */
static void expect_error(const char* entry, const char* prefix, ...)
{
    const char* scene_path = write_formatted("scene.yaml", SCENE_HEAD "bodies_file: %s\n", entry);
    fd_scene scene;
    fd_status status = fd_scene_load(scene_path, NULL, 0, &scene);
    const char* message = fd_last_error();
    cr_assert_eq(status, FD_ERR_PARSE, "expected a parse error, got '%s' (%s)", fd_status_string(status), message);
    cr_assert_null(scene.world);
    char start[1024];
    snprintf(start, sizeof start, "%s/%s", temp_dir, prefix);
    cr_assert(strncmp(message, start, strlen(start)) == 0, "message\n  %s\ndoes not start with\n  %s", message, start);
    va_list args;
    va_start(args, prefix);
    for (const char* fragment = va_arg(args, const char*); fragment; fragment = va_arg(args, const char*)) {
        cr_assert(strstr(message, fragment), "message\n  %s\nlacks\n  %s", message, fragment);
    }
    va_end(args);
}

/* One wrong b.csv and the error a scene with `bodies_file: ENTRY` gives for
 * it (expect_error): the message's start and up to two fragments it holds.
 * A case without csv reuses the b.csv of the case before. */
typedef struct {
    const char* csv;
    const char* entry;
    const char* prefix;
    const char* fragments[2];
} csv_error;

static void expect_csv_errors(const csv_error* cases, size_t count)
{
    for (size_t k = 0; k < count; ++k) {
        if (cases[k].csv) {
            write_formatted("b.csv", "%s", cases[k].csv);
        }
        expect_error(cases[k].entry, cases[k].prefix, cases[k].fragments[0], cases[k].fragments[1], NULL);
    }
}
#define EXPECT_CSV_ERRORS(cases) expect_csv_errors(cases, sizeof cases / sizeof cases[0])

/* Every body the same to the bit: state, shape, mass, inertia, name, type, material. */
static void assert_same_worlds(const fd_world* a, const fd_world* b)
{
    cr_assert_eq(fd_world_body_count(a), fd_world_body_count(b));
    for (int i = 0; i < fd_world_body_count(a); ++i) {
        fd_body_id ia = fd_world_body_at(a, i), ib = fd_world_body_at(b, i);
        fd_body_state sa = fd_body_get_state(a, ia), sb = fd_body_get_state(b, ib);
        cr_assert(memcmp(&sa, &sb, sizeof sa) == 0, "body %d: states differ (x %.17g vs %.17g)", i, sa.position.x,
                  sb.position.x);
        fd_body_info fa = fd_body_get_info(a, ia), fb = fd_body_get_info(b, ib);
        cr_assert_str_eq(fa.name, fb.name, "body %d", i);
        cr_assert_eq(fa.type, fb.type, "body %d", i);
        cr_assert_eq(fa.material.index1, fb.material.index1, "body %d", i);
        cr_assert(memcmp(&fa.shape.radius, &fb.shape.radius, sizeof(double)) == 0, "body %d: radii differ", i);
        cr_assert(memcmp(&fa.mass, &fb.mass, sizeof(double)) == 0, "body %d: masses differ", i);
        cr_assert(memcmp(&fa.inertia, &fb.inertia, sizeof fa.inertia) == 0, "body %d: inertias differ", i);
    }
}

/* ---------------------------------------------------------------- HDF5 writing */

/* Writes n values of memory_type as the one-dimensional dataset name of
 * file_type under where. */
static void h5_dataset(hid_t where, const char* name, hid_t file_type, hid_t memory_type, const void* values, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t set = H5Dcreate2(where, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(set, 0);
    cr_assert_geq(H5Dwrite(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
    H5Dclose(set);
    H5Sclose(space);
}

static void h5_doubles(hid_t where, const char* name, const double* values, hsize_t n)
{
    h5_dataset(where, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values, n);
}

static void h5_strings(hid_t where, const char* name, const char* const* values, hsize_t n, size_t fixed_width)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_cset(type, H5T_CSET_UTF8);
    char* packed = NULL;
    if (fixed_width) {
        H5Tset_size(type, fixed_width);
        H5Tset_strpad(type, H5T_STR_NULLPAD); /* as numpy 'S' arrays through h5py */
        packed = calloc(n, fixed_width);
        for (hsize_t i = 0; i < n; ++i) {
            strncpy(packed + i * fixed_width, values[i], fixed_width);
        }
    } else {
        H5Tset_size(type, H5T_VARIABLE); /* as Python str through h5py */
    }
    h5_dataset(where, name, type, type, fixed_width ? (const void*)packed : values, n);
    free(packed);
    H5Tclose(type);
}

/* A numpy bool array through h5py: an enum FALSE = 0, TRUE = 1 of one byte. */
static void h5_bools(hid_t where, const char* name, const int8_t* values, hsize_t n)
{
    hid_t type = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t no = 0, yes = 1;
    H5Tenum_insert(type, "FALSE", &no);
    H5Tenum_insert(type, "TRUE", &yes);
    h5_dataset(where, name, type, type, values, n);
    H5Tclose(type);
}

/* Writes odd.h5 with the datasets x and y of 3 rows and a third one, last,
 * of last_rows rows. */
static void write_odd_h5(const char* last, hsize_t last_rows)
{
    hid_t file = H5Fcreate(temp_path("odd.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const double values[3] = {0, 1, 2};
    h5_doubles(file, "x", values, 3);
    h5_doubles(file, "y", values, 3);
    h5_doubles(file, last, values, last_rows);
    H5Fclose(file);
}

/* ---------------------------------------------------------------- sample spheres */

typedef struct sphere {
    char name[16];
    const char* material;
    double radius, p[3], q[4], v[3], w[3];
    int8_t is_static;
} sphere;

static uint64_t random_state = 88172645463325252ull;

static double uniform(double lo, double hi)
{
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return lo + (hi - lo) * (double)(random_state >> 11) * 0x1p-53;
}

/* n spheres with full-precision values, the odd ones of steel, every
 * seventh static (with zero velocity, as a static body has). */
static sphere* make_spheres(int n)
{
    sphere* s = calloc((size_t)n, sizeof *s);
    cr_assert_not_null(s);
    for (int i = 0; i < n; ++i) {
        snprintf(s[i].name, sizeof s[i].name, "s%d", i);
        s[i].material = i % 2 ? "steel" : "glass";
        s[i].radius = uniform(0.001, 0.002);
        double norm = 0.0;
        for (int k = 0; k < 4; ++k) {
            s[i].q[k] = uniform(-1, 1);
            norm += s[i].q[k] * s[i].q[k];
        }
        for (int k = 0; k < 4; ++k) {
            s[i].q[k] /= sqrt(norm);
        }
        s[i].is_static = i % 7 == 3;
        for (int k = 0; k < 3; ++k) {
            s[i].p[k] = 0.005 * i + uniform(-1e-4, 1e-4) + k;
            s[i].v[k] = s[i].is_static ? 0.0 : uniform(-2, 2);
            s[i].w[k] = s[i].is_static ? 0.0 : uniform(-50, 50);
        }
    }
    return s;
}

static void write_yaml_scene(const char* name, const sphere* s, int n)
{
    FILE* file = fopen(temp_path(name), "w");
    cr_assert_not_null(file);
    fputs(SCENE_HEAD "bodies:\n", file);
    for (int i = 0; i < n; ++i) {
        fprintf(file,
                "  - {name: %s, material: %s, static: %s, shape: {type: sphere, radius: %.17g}, "
                "position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, %.17g, %.17g], "
                "velocity: [%.17g, %.17g, %.17g], angular_velocity: [%.17g, %.17g, %.17g]}\n",
                s[i].name, s[i].material, s[i].is_static ? "true" : "false", s[i].radius, s[i].p[0], s[i].p[1],
                s[i].p[2], s[i].q[0], s[i].q[1], s[i].q[2], s[i].q[3], s[i].v[0], s[i].v[1], s[i].v[2], s[i].w[0],
                s[i].w[1], s[i].w[2]);
    }
    fclose(file);
}

/* The columns in another order than bodies.csv's, to show that the header decides. */
static void write_csv(const char* name, const sphere* s, int n)
{
    FILE* file = fopen(temp_path(name), "w");
    cr_assert_not_null(file);
    fputs("# units: -,m,m,m,m,-,-,-,-,-,m/s,m/s,m/s,rad/s,rad/s,rad/s,-,-\n", file);
    fputs("name,x,y,z,radius,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,static,material\n", file);
    for (int i = 0; i < n; ++i) {
        fprintf(file, "%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%s\n",
                s[i].name, s[i].p[0], s[i].p[1], s[i].p[2], s[i].radius, s[i].q[0], s[i].q[1], s[i].q[2], s[i].q[3],
                s[i].v[0], s[i].v[1], s[i].v[2], s[i].w[0], s[i].w[1], s[i].w[2], s[i].is_static, s[i].material);
    }
    fclose(file);
}

/* Names variable-length, materials fixed-length, static as h5py's bool. */
static void write_hdf5(const char* name, const char* group_name, const sphere* s, int n)
{
    hid_t file = H5Fcreate(temp_path(name), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(file, 0);
    hid_t group = group_name ? H5Gcreate2(file, group_name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : file;
    cr_assert_geq(group, 0);
    double* column = malloc((size_t)n * sizeof *column);
    const char** names = malloc((size_t)n * sizeof *names);
    const char** materials = malloc((size_t)n * sizeof *materials);
    int8_t* statics = malloc((size_t)n);
    static const char* const numeric[] = {"radius", "x", "y", "z", "qw", "qx", "qy", "qz",
                                          "vx",     "vy", "vz", "wx", "wy", "wz"};
    for (int c = 0; c < 14; ++c) {
        for (int i = 0; i < n; ++i) {
            const double* values[] = {&s[i].radius, &s[i].p[0], &s[i].p[1], &s[i].p[2], &s[i].q[0],
                                      &s[i].q[1],   &s[i].q[2], &s[i].q[3], &s[i].v[0], &s[i].v[1],
                                      &s[i].v[2],   &s[i].w[0], &s[i].w[1], &s[i].w[2]};
            column[i] = *values[c];
        }
        h5_doubles(group, numeric[c], column, (hsize_t)n);
    }
    for (int i = 0; i < n; ++i) {
        names[i] = s[i].name;
        materials[i] = s[i].material;
        statics[i] = s[i].is_static;
    }
    h5_strings(group, "name", names, (hsize_t)n, 0);
    h5_strings(group, "material", materials, (hsize_t)n, 5);
    h5_bools(group, "static", statics, (hsize_t)n);
    free(column);
    free(names);
    free(materials);
    free(statics);
    if (group != file) {
        H5Gclose(group);
    }
    H5Fclose(file);
}

/* ---------------------------------------------------------------- same bodies, three ways */

Test(bodies_file, csv_and_hdf5_give_bitwise_the_world_of_the_same_bodies_in_yaml)
{
    enum { N = 60 };
    sphere* s = make_spheres(N);
    write_yaml_scene("listed.yaml", s, N);
    write_csv("spheres.csv", s, N);
    write_hdf5("spheres.h5", NULL, s, N);
    write_hdf5("grouped.hdf5", "frame7", s, N);
    const char* csv_scene = write_formatted("from_csv.yaml", SCENE_HEAD "bodies_file: spheres.csv\n");
    const char* h5_scene = write_formatted("from_h5.yaml", SCENE_HEAD "bodies_file: {path: spheres.h5}\n");
    const char* group_scene =
        write_formatted("from_group.yaml", SCENE_HEAD "bodies_file: {path: grouped.hdf5, group: frame7}\n");

    fd_scene listed = load_ok(temp_path("listed.yaml"));
    fd_scene from_csv = load_ok(csv_scene);
    fd_scene from_h5 = load_ok(h5_scene);
    fd_scene from_group = load_ok(group_scene);
    cr_assert_eq(fd_world_body_count(listed.world), N);
    fd_body_info info = fd_body_get_info(from_csv.world, fd_world_body_at(from_csv.world, 3));
    cr_assert_eq(info.type, FD_BODY_STATIC, "the static column makes body 3 static");
    cr_assert_str_eq(info.name, "s3");
    assert_same_worlds(listed.world, from_csv.world);
    assert_same_worlds(listed.world, from_h5.world);
    assert_same_worlds(listed.world, from_group.world);
    fd_scene_free(&listed);
    fd_scene_free(&from_csv);
    fd_scene_free(&from_h5);
    fd_scene_free(&from_group);
    free(s);
}

/* More rows than one HDF5 read (16384), variable-length names across reads. */
Test(bodies_file, hdf5_read_in_chunks_matches_csv)
{
    enum { N = 40000 };
    sphere* s = make_spheres(N);
    write_csv("many.csv", s, N);
    write_hdf5("many.h5", NULL, s, N);
    fd_scene a = load_ok(write_formatted("a.yaml", SCENE_HEAD "bodies_file: many.csv\n"));
    fd_scene b = load_ok(write_formatted("b.yaml", SCENE_HEAD "bodies_file: many.h5\n"));
    cr_assert_eq(fd_world_body_count(a.world), N);
    cr_assert_str_eq(fd_body_get_info(b.world, fd_world_body_at(b.world, N - 1)).name, "s39999");
    assert_same_worlds(a.world, b.world);
    fd_scene_free(&a);
    fd_scene_free(&b);
    free(s);
}

/* ---------------------------------------------------------------- fricdem's own bodies.csv */

Test(bodies_file, a_frame_of_bodies_csv_loads_back_to_its_state)
{
    /* A moving pile: 27 spheres of three sizes with random velocities, run 40 steps. */
    const char* scene_path = write_formatted("pile.yaml", SCENE_HEAD "generators:\n"
                                                                "  - {type: lattice, count: 27, material: glass, "
                                                                "radius: 0.002, radius_spread: 0.3, velocity_spread: "
                                                                "0.5, region: {min: [0, 0, 0], max: [0.02, 0.02, "
                                                                "0.02]}}\n");
    fd_scene pile = load_ok(scene_path);
    for (int i = 0; i < 40; ++i) {
        cr_assert_eq(fd_world_step(pile.world), FD_OK, "%s", fd_last_error());
    }
    fd_output_settings settings;
    memset(&settings, 0, sizeof settings);
    snprintf(settings.directory, sizeof settings.directory, "%s/out", temp_dir);
    settings.csv_interval = 1.0;
    settings.bodies_csv = true;
    fd_output* output = fd_output_open(pile.world, &settings);
    cr_assert_not_null(output, "%s", fd_last_error());
    cr_assert_eq(fd_output_write(output, pile.world), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_output_close(output, pile.world), FD_OK, "%s", fd_last_error());

    /* The frame as written: its radius, mass and material columns say the rest. */
    FILE* in = fopen(temp_path("out/bodies.csv"), "r");
    FILE* out = fopen(temp_path("frame.csv"), "w");
    cr_assert(in && out);
    char line[4096];
    int rows = 0;
    while (fgets(line, sizeof line, in)) {
        fputs(line, out);
        rows += line[0] != '#' && strncmp(line, "time,", 5) != 0;
    }
    fclose(in);
    fclose(out);
    cr_assert_eq(rows, 27, "one frame");

    fd_scene back = load_ok(write_formatted("back.yaml", SCENE_HEAD "bodies_file: {path: frame.csv}\n"));
    cr_assert_eq(fd_world_body_count(back.world), 27);
    for (int i = 0; i < 27; ++i) {
        fd_body_id a = fd_world_body_at(pile.world, i), b = fd_world_body_at(back.world, i);
        fd_body_state sa = fd_body_get_state(pile.world, a), sb = fd_body_get_state(back.world, b);
        cr_assert(memcmp(&sa.position, &sb.position, sizeof sa.position) == 0, "body %d position", i);
        cr_assert(memcmp(&sa.velocity, &sb.velocity, sizeof sa.velocity) == 0, "body %d velocity", i);
        cr_assert(memcmp(&sa.angular_velocity, &sb.angular_velocity, sizeof sa.angular_velocity) == 0,
                  "body %d angular velocity", i);
        /* A unit quaternion divided by its norm again moves by an ulp at most. */
        cr_assert_leq(fabs(sa.orientation.w - sb.orientation.w) + fabs(sa.orientation.x - sb.orientation.x) +
                          fabs(sa.orientation.y - sb.orientation.y) + fabs(sa.orientation.z - sb.orientation.z),
                      1e-15, "body %d orientation", i);
        fd_body_info ia = fd_body_get_info(pile.world, a), ib = fd_body_get_info(back.world, b);
        cr_assert_str_eq(ia.name, ib.name);
        cr_assert(memcmp(&ia.mass, &ib.mass, sizeof ia.mass) == 0, "body %d mass", i);
        cr_assert(memcmp(&ia.shape.radius, &ib.shape.radius, sizeof ia.shape.radius) == 0, "body %d radius", i);
        cr_assert_eq(ia.material.index1, ib.material.index1, "body %d material", i);
    }
    fd_scene_free(&back);

    /* Two frames: the time column differs; named at its line. */
    in = fopen(temp_path("frame.csv"), "r");
    out = fopen(temp_path("frames.csv"), "w");
    cr_assert(in && out);
    for (int n = 0; fgets(line, sizeof line, in); ++n) {
        fputs(line, out);
        if (n == 5) {
            fprintf(out, "0.5%s", strchr(line, ','));
        }
    }
    fclose(in);
    fclose(out);
    expect_error("{path: frames.csv}", "frames.csv:7: column 'time': ",
                 "differs from", "(line 3)", "more than one output time", NULL);
    fd_scene_free(&pile);
}

/* ---------------------------------------------------------------- errors */

Test(bodies_file, unknown_column_names_the_header_line_and_the_closest_name)
{
    static const csv_error cases[] = {
        {"# units: m,m,m,m\nx,y,z,radus\n0,0,0,0.01\n", "{path: b.csv, material: glass}",
         "b.csv:2: column 'radus': unknown column (did you mean 'radius'?", {NULL}},
        {"x,y,z,colour\n0,0,0,red\n", "{path: b.csv, material: glass, radius: 0.01}",
         "b.csv:1: column 'colour': unknown column (columns: ", {"name, material, radius"}},
        {"x,y,z,x\n0,0,0,0\n", "{path: b.csv, material: glass, radius: 0.01}", "b.csv:1: column 'x': given twice",
         {NULL}},
    };
    EXPECT_CSV_ERRORS(cases);
}

Test(bodies_file, a_bad_number_names_its_line_and_column)
{
    static const csv_error cases[] = {
        {"x,y,z,radius\n0,0,0,0.01\n\n1,0,0,0.01\n2,0,1.0.5,0.01\n", "{path: b.csv, material: glass}",
         "b.csv:5: column 'z': not a number: '1.0.5'", {NULL}},
        {"x,y,z,radius\n0,0,0,0.01\n1,,0,0.01\n", "{path: b.csv, material: glass}", "b.csv:3: column 'y': empty",
         {NULL}},
        {"x,y,z,radius\n0,0,0,0.01\n1,inf,0,0.01\n", "{path: b.csv, material: glass}",
         "b.csv:3: column 'y': must be a finite number", {NULL}},
        /* A quoted name with a line break in it: the lines after it still count. */
        {"name,x,y,z,radius\n\"two\nlines\",0,0,0,0.01\nb,1,0,0,0.01\nc,2,0,zero,0.01\n",
         "{path: b.csv, material: glass}", "b.csv:5: column 'z': not a number: 'zero'", {NULL}},
    };
    EXPECT_CSV_ERRORS(cases);
}

Test(bodies_file, missing_columns_and_missing_defaults)
{
    static const csv_error cases[] = {
        {"name,x,y,radius\na,0,0,0.01\n", "{path: b.csv, material: glass}",
         "b.csv:1: column 'z': missing (the columns x, y, z are required)", {NULL}},
        {"x,y,z,vx,vy\n0,0,0,1,1\n", "{path: b.csv, material: glass, radius: 0.01}",
         "b.csv:1: column 'vz': missing: the columns vx, vy, vz", {NULL}},
        {"x,y,z\n0,0,0\n", "{path: b.csv, material: glass}", "scene.yaml:12: bodies_file: ",
         {"no 'radius' column", "bodies_file.radius"}},
        {NULL, "{path: b.csv, radius: 0.01}", "scene.yaml:12: bodies_file: ", {"no 'material' column"}},
        {"x,y,z,radius\n0,0,0,0.01\n", "{path: b.csv, material: glass, radius: 0.01}",
         "scene.yaml:12: bodies_file.radius: not used", {NULL}},
    };
    EXPECT_CSV_ERRORS(cases);
}

Test(bodies_file, radius_must_be_positive)
{
    static const csv_error cases[] = {
        {"x,y,z,radius\n0,0,0,0.01\n1,0,0,0\n", "{path: b.csv, material: glass}",
         "b.csv:3: column 'radius': must be > 0 m (got 0)", {NULL}},
        {"x,y,z,radius\n0,0,0,-0.01\n", "{path: b.csv, material: glass}",
         "b.csv:2: column 'radius': must be > 0 m (got -0.01)", {NULL}},
        {NULL, "{path: b.csv, material: glass, radius: -1}", "scene.yaml:12: bodies_file.radius: must be > 0", {NULL}},
    };
    EXPECT_CSV_ERRORS(cases);
}

Test(bodies_file, unknown_material_with_suggestion)
{
    static const csv_error cases[] = {
        {"x,y,z,radius,material\n0,0,0,0.01,glass\n1,0,0,0.01,stel\n", "b.csv",
         "b.csv:3: column 'material': unknown material 'stel' (did you mean 'steel'?", {NULL}},
        {"x,y,z,radius\n0,0,0,0.01\n", "{path: b.csv, material: glas}",
         "scene.yaml:12: bodies_file.material: unknown material 'glas'", {NULL}},
    };
    EXPECT_CSV_ERRORS(cases);
}

Test(bodies_file, wrong_field_count)
{
    static const csv_error cases[] = {
        {"x,y,z,radius\n0,0,0,0.01\n1,0,0\n", "{path: b.csv, material: glass}",
         "b.csv:3: 3 fields, the header has 4 columns", {NULL}},
        {"x,y,z,radius\r\n0,0,0,0.01\r\n1,0,0,0.01,7\r\n", "{path: b.csv, material: glass}",
         "b.csv:3: more fields than the 4 columns", {NULL}},
    };
    EXPECT_CSV_ERRORS(cases);
}

Test(bodies_file, duplicate_names_name_the_first)
{
    write_formatted("b.csv", "name,x,y,z\na,0,0,0\nb,1,0,0\na,2,0,0\n");
    expect_error("{path: b.csv, material: glass, radius: 0.1}",
                 "b.csv:4: column 'name': duplicate body name 'a' (first at line 2)", NULL);
    const char* scene_path = write_formatted("named.yaml", SCENE_HEAD "bodies:\n"
                                                                 "  - {name: b, material: glass, shape: {type: "
                                                                 "sphere, radius: 0.1}}\n"
                                                                 "bodies_file: {path: b.csv, material: glass, "
                                                                 "radius: 0.1}\n");
    write_formatted("b.csv", "name,x,y,z\na,0,0,0\nb,1,0,0\n");
    fd_scene scene;
    cr_assert_eq(fd_scene_load(scene_path, NULL, 0, &scene), FD_ERR_PARSE);
    cr_assert(strstr(fd_last_error(), "b.csv:3: column 'name': duplicate body name 'b' (first used by the scene's "
                                      "bodies[0])"),
              "%s", fd_last_error());
}

Test(bodies_file, the_cli_exits_with_2_on_a_bad_row)
{
    write_formatted("b.csv", "x,y,z,radius\n0,0,0,0.01\n1,0,0,nan\n");
    const char* scene_path = write_formatted("cli.yaml", SCENE_HEAD "bodies_file: {path: b.csv, material: glass}\n"
                                                               "output: {directory: %s/out}\n",
                                        temp_dir);
    char command[2048];
    snprintf(command, sizeof command, "%s run '%s' > '%s/cli.out' 2>&1", FRICDEM_CLI, scene_path, temp_dir);
    int status = system(command);
    cr_assert(WIFEXITED(status));
    cr_assert_eq(WEXITSTATUS(status), 2);
    FILE* file = fopen(temp_path("cli.out"), "r");
    cr_assert_not_null(file);
    char text[4096] = "";
    size_t n = fread(text, 1, sizeof text - 1, file);
    text[n] = '\0';
    fclose(file);
    cr_assert(strstr(text, "b.csv:3: column 'radius': must be a finite number"), "%s", text);
}

Test(bodies_file, hdf5_errors_name_the_dataset_and_row)
{
    enum { N = 5 };
    sphere* s = make_spheres(N);
    s[3].radius = -0.5;
    write_hdf5("bad.h5", NULL, s, N);
    expect_error("bad.h5", "bad.h5: dataset 'radius', row 3: must be > 0 m (got -0.5)", NULL);

    write_odd_h5("z", 2);
    expect_error("{path: odd.h5, material: glass, radius: 0.1}",
                 "odd.h5: dataset 'z': 2 rows, the other datasets have 3", NULL);

    write_odd_h5("zz", 3);
    expect_error("{path: odd.h5, material: glass, radius: 0.1}",
                 "odd.h5: dataset 'zz': unknown column (did you mean 'z'?", NULL);
    expect_error("{path: odd.h5, material: glass, radius: 0.1, group: nowhere}", "scene.yaml:12: bodies_file.group: ",
                 "has no group 'nowhere'", NULL);
    write_formatted("text.h5", "x,y,z\n");
    expect_error("{path: text.h5, material: glass, radius: 0.1}", "scene.yaml:12: bodies_file.path: ",
                 "not an HDF5 file", NULL);
    free(s);
}

Test(bodies_file, missing_file_and_unknown_format_are_errors_at_the_entry)
{
    expect_error("nothere.csv", "scene.yaml:12: bodies_file.path: cannot read ", "nothere.csv", NULL);
    write_formatted("b.txt", "x,y,z,radius\n0,0,0,0.01\n");
    expect_error("{path: b.txt, material: glass}", "scene.yaml:12: bodies_file.path: cannot tell the format", NULL);
    expect_error("{path: b.csv, material: glass, group: g}", "scene.yaml:12: bodies_file.group: used only with HDF5",
                 NULL);
    expect_error("{path: b.txt, formt: csv}", "scene.yaml:12: bodies_file.formt: unknown key 'formt' (did you mean "
                                              "'format'?)",
                 NULL);
    fd_scene scene = load_ok(write_formatted("txt.yaml", SCENE_HEAD "bodies_file: {path: b.txt, format: csv, material: "
                                                               "glass}\n"));
    cr_assert_eq(fd_world_body_count(scene.world), 1);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- paths and order */

Test(bodies_file, a_relative_path_is_relative_to_the_scene_file)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/scenes", temp_dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(dir, sizeof dir, "%s/data", temp_dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    write_formatted("data/b.csv", "x,y,z\n0,0,0\n1,2,3\n");
    const char* scene_path = write_formatted("scenes/s.yaml", SCENE_HEAD
                                             "bodies_file: {path: ../data/b.csv, material: glass, radius: 0.1}\n");
    char cwd[1024];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir("/"), 0, "the working directory is elsewhere");
    fd_scene scene;
    fd_status status = fd_scene_load(scene_path, NULL, 0, &scene);
    cr_assert_eq(chdir(cwd), 0);
    cr_assert_eq(status, FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_body_count(scene.world), 2);
    fd_body_state last = fd_body_get_state(scene.world, fd_world_body_at(scene.world, 1));
    cr_assert(last.position.x == 1 && last.position.y == 2 && last.position.z == 3);
    fd_scene_free(&scene);

    /* The scene given by a relative path: the file is relative to its directory still. */
    cr_assert_eq(chdir(temp_dir), 0);
    status = fd_scene_load("scenes/s.yaml", NULL, 0, &scene);
    cr_assert_eq(chdir(cwd), 0);
    cr_assert_eq(status, FD_OK, "%s", fd_last_error());
    fd_scene_free(&scene);
}

Test(bodies_file, bodies_come_first_then_the_file_then_the_generators)
{
    write_formatted("b.csv", "name,x,y,z\nf0,0,0,1\nf1,0,0,2\n");
    const char* scene_path = write_formatted("order.yaml", SCENE_HEAD "generators:\n"
                                                                 "  - {type: lattice, count: 2, name_prefix: g, "
                                                                 "material: glass, radius: 0.1, region: {min: [5, "
                                                                 "5, 5], max: [6, 6, 6]}}\n"
                                                                 "bodies_file: {path: b.csv, material: steel, "
                                                                 "radius: 0.1, static: true}\n"
                                                                 "bodies:\n"
                                                                 "  - {name: floor, static: true, material: glass, "
                                                                 "shape: {type: plane}}\n");
    fd_scene scene = load_ok(scene_path);
    static const char* const expected[] = {"floor", "f0", "f1", "g0", "g1"};
    cr_assert_eq(fd_world_body_count(scene.world), 5);
    for (int i = 0; i < 5; ++i) {
        cr_assert_str_eq(fd_body_get_info(scene.world, fd_world_body_at(scene.world, i)).name, expected[i]);
    }
    fd_body_info f0 = fd_body_get_info(scene.world, fd_world_body_at(scene.world, 1));
    cr_assert_eq(f0.type, FD_BODY_STATIC, "static: true applies without a static column");
    cr_assert_eq(f0.material.index1, fd_world_find_material(scene.world, "steel").index1);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- bulk */

/* Speed is measured by the benchmarks (bench/README.md), never here: this
 * checks that a file of many rows streams through to the last one. */
Test(bodies_file, a_hundred_thousand_rows_load_to_the_last)
{
    enum { N = 100000 };
    FILE* file = fopen(temp_path("bulk.csv"), "w");
    cr_assert_not_null(file);
    fputs("x,y,z,radius,vx,vy,vz\n", file);
    double last[3] = {0, 0, 0};
    for (int i = 0; i < N; ++i) {
        for (int k = 0; k < 3; ++k) {
            last[k] = uniform(-1, 1);
        }
        fprintf(file, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", last[0], last[1], last[2], uniform(1e-3, 2e-3),
                uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    }
    fclose(file);
    const char* scene_path =
        write_formatted("bulk.yaml", SCENE_HEAD "bodies_file: {path: bulk.csv, material: glass}\n");
    fd_scene scene = load_ok(scene_path);
    cr_assert_eq(fd_world_body_count(scene.world), N);
    fd_body_state s = fd_body_get_state(scene.world, fd_world_body_at(scene.world, N - 1));
    cr_assert(s.position.x == last[0] && s.position.y == last[1] && s.position.z == last[2]);
    fd_scene_free(&scene);
}

/* ---------------------------------------------------------------- numbers */

static void expect_strtod(const char* text)
{
    double ours = 0.0;
    char* stop = NULL;
    double theirs = strtod(text, &stop);
    bool ok = fd_parse_double(text, text + strlen(text), &ours);
    cr_assert_eq(ok, *stop == '\0' && stop != text, "'%s': accepted %d", text, ok);
    if (ok) {
        cr_assert(memcmp(&ours, &theirs, sizeof ours) == 0, "'%s': %.17g (%a) vs strtod %.17g (%a)", text, ours, ours,
                  theirs, theirs);
    }
}

Test(bodies_file, numbers_are_strtod_to_the_bit)
{
    static const char* const cases[] = {
        "0", "-0", "+1", "1.", ".5", "-.5e-3", "1e22", "1e23", "9007199254740993", "9007199254740992.5",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234", "2.2250738585072014e-308",
        "4.9e-324", "1e-400", "1.7976931348623157e308", "1e309", "0.1", "0.30000000000000004", "1e", "e5", "1e+",
        "--1", "1,5", "nan", "inf", "-Infinity", "0x1p3", "", ".", "-", "1.5e-27", "1.2345678901234567e27",
        "0.000000000000000000000000000012345678901234567", "7.0e-10", "1e-22", "1e-23",
        /* exact midpoints between doubles, 2^53 + 1 scaled: ties go to even */
        "9007199254740993e-5", "90071992547409930e-6", "4503599627370497.5", "2.5000000000000000000000e-1"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        expect_strtod(cases[i]);
    }
    char text[64];
    static const char* const formats[] = {"%.17g", "%.16g", "%.15g", "%.6g", "%.18g", "%.19g", "%.20e"};
    for (int i = 0; i < 300000; ++i) {
        double magnitude = pow(10.0, uniform(-30, 30));
        double value = uniform(-1, 1) * magnitude;
        snprintf(text, sizeof text, formats[i % 7], value);
        expect_strtod(text);
    }
    /* Near midpoints: m + 1/2 ulp for m of 53 bits, in 17 to 19 digits (the
     * long double path, where rounding twice could go wrong) and in 25. */
    for (int i = 0; i < 20000; ++i) {
        double m = ldexp(floor(uniform(0x1p52, 0x1p53)), (int)floor(uniform(-60, 10)));
        long double mid = (long double)m + (long double)(nextafter(m, INFINITY) - m) / 2.0L;
        static const char* const mid_formats[] = {"%.17Lg", "%.18Lg", "%.19Lg", "%.25Lg"};
        snprintf(text, sizeof text, mid_formats[i % 4], mid);
        expect_strtod(text);
    }
}
